/*
 * The CUDA backend: a runtime-loaded module (libportsolve_cuda.so). BLAS entries call cuBLAS on
 * the context's stream; fill, laswp and the LU panel are the kernels of cuda_kernels.cu. Host
 * transfers go through two pinned staging buffers, so the host copy of one chunk overlaps the
 * DMA of the other. Every CUDA and cuBLAS return code is checked and reported with the
 * vendor's name and text.
 */
#include "cuda_internal.h"
#include "../core/base/size_rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ps_status ps_cuda_fail(ps__backend *be, cudaError_t err, const char *what) {
    ps_status st = err == cudaErrorMemoryAllocation ? PS_ERR_OUT_OF_MEMORY
                   : (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
                       ? PS_ERR_BACKEND_UNAVAILABLE
                       : PS_ERR_BACKEND;
    cudaGetLastError(); /* clear a non-sticky error so the context stays usable */
    return ps__backend_fail(be, st, "cuda: %s failed: %s (%s)", what, cudaGetErrorName(err),
                            cudaGetErrorString(err));
}

ps_status ps_cublas_fail(ps__backend *be, cublasStatus_t st, const char *what) {
    ps_status s = st == CUBLAS_STATUS_ALLOC_FAILED ? PS_ERR_OUT_OF_MEMORY : PS_ERR_BACKEND;
    return ps__backend_fail(be, s, "cuda: %s failed: %s (%s)", what, cublasGetStatusName(st),
                            cublasGetStatusString(st));
}

static void release_state(ps_cuda_state *st) {
    if (!st) return;
    for (int i = 0; i < 2; i++) {
        if (st->staging[i]) cudaFreeHost(st->staging[i]);
        if (st->staged[i]) cudaEventDestroy(st->staged[i]);
        if (st->lane_done[i]) cudaEventDestroy(st->lane_done[i]);
        if (st->handles[i]) cublasDestroy(st->handles[i]);
    }
    for (int i = 0; i < PS__TRANSFER_SLOTS; i++)
        if (st->transferred[i]) cudaEventDestroy(st->transferred[i]);
    for (int i = 0; i < PS__TRANSFER_MARKS; i++)
        if (st->marks[i]) cudaEventDestroy(st->marks[i]);
    if (st->transfers) cudaStreamDestroy(st->transfers);
    if (st->scratch) cudaFree(st->scratch);
    if (st->potrf_arrivals) cudaFree(st->potrf_arrivals);
    if (st->coop_scratch) cudaFree(st->coop_scratch);
    for (int i = 0; i < 2; i++) {
        if (st->gemv_partial[i]) cudaFree(st->gemv_partial[i]);
        if (st->gemv_tickets[i]) cudaFree(st->gemv_tickets[i]);
        if (st->trsv_sync[i]) cudaFree(st->trsv_sync[i]);
    }
    ps_cuda_iter_release(st);
    ps_cuda_partition_release(st);
    if (st->pool) cudaMemPoolDestroy(st->pool);
    if (st->lane[1]) cudaStreamDestroy(st->lane[1]);
    if (st->stream && !st->borrowed) cudaStreamDestroy(st->stream);
    free(st);
}

/* Everything after the device and stream are known. */
static ps_status finish_open(ps__backend *be, ps_cuda_state *st) {
    struct cudaDeviceProp prop;
    PS_CUDA_TRY(be, cudaGetDeviceProperties(&prop, st->device), "cudaGetDeviceProperties");
    snprintf(be->device_name, sizeof be->device_name, "%.128s (CUDA device %d, sm_%d%d, %.0f GiB)",
             prop.name, st->device, prop.major, prop.minor,
             (double)prop.totalGlobalMem / (1 << 30));
    be->has_double = 1;
    be->buffers_are_addresses = 1;
    /* Host drivers up to these orders run on the CPU path (core/base/crossover.c; measured on an
     * H200, docs/PERFORMANCE.md). */
    be->host_crossover[PS__FLOAT] = PS_CUDA_HOST_CROSSOVER_FLOAT;
    be->host_crossover[PS__DOUBLE] = PS_CUDA_HOST_CROSSOVER_DOUBLE;
    st->fp64_tensor_cores = prop.major >= 8;
    st->tensor_cores_32f = prop.major >= 8;
    st->float_compute = PS__COMPUTE_FP32;
    st->panel_threads = prop.maxThreadsPerBlock >= 512 ? 512 : 256;
    st->sms = prop.multiProcessorCount;
    /* Tuning knobs of the split lanes (cuda_partition.c): cuda_panel_sms, the SMs the
     * look-ahead lane gets to itself (0 never splits); cuda_split_below, the columns
     * left to factor below which LU splits (-1: unset, the measured default by precision). */
    st->panel_sms_request = be->tuning->cuda_panel_sms;
    st->split_below = be->tuning->cuda_split_below;
    /* Lane 0 is the context's stream; lane 1 carries the LU look-ahead's panels, at the
     * highest priority, so its small kernels get SMs as soon as the big GEMM frees some. */
    st->lane[0] = st->stream;
    int least = 0, greatest = 0;
    PS_CUDA_TRY(be, cudaDeviceGetStreamPriorityRange(&least, &greatest), "stream priorities");
    PS_CUDA_TRY(be, cudaStreamCreateWithPriority(&st->lane[1], cudaStreamNonBlocking, greatest),
                "cudaStreamCreate (look-ahead lane)");
    for (int i = 0; i < 2; i++) {
        PS_CUBLAS_TRY(be, cublasCreate(&st->handles[i]), "cublasCreate");
        PS_CUBLAS_TRY(be, cublasSetStream(st->handles[i], st->lane[i]), "cublasSetStream");
        PS_CUDA_TRY(be, cudaEventCreateWithFlags(&st->lane_done[i], cudaEventDisableTiming),
                    "cudaEventCreate");
    }
    st->cur = 0;
    st->blas = st->handles[0];
    st->cur_stream = st->lane[0];
    /* The pool of the operations' workspaces (TF32X3's and FP16X3's GEMM operands, some
     * kernels' partial results) keeps up to a quarter of the device's memory between uses: with
     * the default pool's threshold of 0 every synchronization gave the memory back, and the next
     * allocation (over 1 GB for the catch-up GEMMs of LU by pieces) mapped it again, up to 7 ms
     * that held up the transfer thread's copies too (H200, docs/PERFORMANCE.md). A device
     * without memory pools keeps none: those operations then fail as they did before. */
    struct cudaMemPoolProps pool = {
        .allocType = cudaMemAllocationTypePinned,
        .location = {.type = cudaMemLocationTypeDevice, .id = st->device}};
    uint64_t keep = prop.totalGlobalMem / 4;
    int pools = 0;
    if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, st->device) ==
            cudaSuccess &&
        pools && cudaMemPoolCreate(&st->pool, &pool) == cudaSuccess)
        PS_CUDA_TRY(be, cudaMemPoolSetAttribute(st->pool, cudaMemPoolAttrReleaseThreshold, &keep),
                    "cudaMemPoolSetAttribute");
    cudaGetLastError(); /* a device without pools left its error behind */
    PS_CUDA_TRY(be, cudaMalloc(&st->scratch, 64), "cudaMalloc (scratch)");
    PS_CUDA_TRY(be, cudaMalloc((void **)&st->potrf_arrivals, sizeof(int)), "cudaMalloc (arrivals)");
    PS_CUDA_TRY(be, cudaMemset(st->potrf_arrivals, 0, sizeof(int)), "cudaMemset (arrivals)");
    PS_CUDA_TRY(be, ps_cuda_potrf_max_blocks(st->device, &st->potrf_max_blocks),
                "potrf_tall occupancy");
    PS_CUDA_TRY(be, ps_cuda_trsm_small_init(), "small-triangle trsm shared memory");
    PS_CUDA_TRY(be, ps_cuda_trsv_mixed_init(), "trsv_mixed shared memory");
    /* trsv_mixed's rows per block row; 0 turns the entry off (refinement then widens the
     * factors, as before it existed) */
    st->trsv_rows = ps__knob_or(be->tuning->cuda_trsv_rows, PS_CUDA_TRSV_ROWS);
    /* gemv_mixed's column slices (thread-block clusters, Hopper on); cuda_gemv_mixed_slices
     *, a tuning knob, lowers the most (1: whole columns a block, as without clusters) */
    int slices = 1;
    PS_CUDA_TRY(be, ps_cuda_gemv_mixed_init(st->device, &slices), "gemv_mixed clusters");
    st->gemv_mixed_slices = ps__knob_or(be->tuning->cuda_gemv_mixed_slices, slices);
    if (st->gemv_mixed_slices > slices) st->gemv_mixed_slices = slices;
    /* The whole-GPU LU leaf needs cooperative launch; without it the one-block kernel runs.
     * cuda_panel_rows (a tuning knob) sets the rows per block its grid is sized for. */
    int coop = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, st->device);
    if (coop && ps_cuda_coop_panel_init(st->device, &st->coop) == cudaSuccess &&
        st->coop.max_blocks > 0) {
        size_t bytes = ps_cuda_coop_scratch_bytes(st->coop.max_blocks);
        PS_CUDA_TRY(be, cudaMalloc(&st->coop_scratch, bytes), "cudaMalloc (panel scratch)");
        /* no exchange flag is zero, so no stale word matches */
        PS_CUDA_TRY(be, cudaMemset(st->coop_scratch, 0, bytes), "cudaMemset (panel scratch)");
        st->coop.rows_per_block = be->tuning->cuda_panel_rows;
        st->wz_coop = ps_cuda_wz_panel_coop_init(&st->coop) == cudaSuccess;
    }
    cudaGetLastError();
    int l2_bytes = 0;
    PS_CUDA_TRY(be, cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, st->device),
                "cudaDeviceGetAttribute (L2 size)");
    int l2_keep_mib = ps__knob_or(be->tuning->cuda_gemv_l2_keep, l2_bytes / 2 >> 20);
    st->gemv_l2_keep = (size_t)l2_keep_mib << 20;
    /* unset: 32 rows per SM, and on a held matrix kept in L2 PS_CUDA_GEMV_MAX_ROWS (measured,
     * cuda_internal.h) */
    int gemv_rows = PS_CUDA_GEMV_ROWS_PER_SM * st->sms, rows_knob = be->tuning->cuda_gemv_max_rows;
    if (gemv_rows > PS_CUDA_GEMV_MAX_ROWS) gemv_rows = PS_CUDA_GEMV_MAX_ROWS;
    st->gemv_max_rows = rows_knob >= 0 ? rows_knob : gemv_rows;
    st->gemv_held_max_rows = rows_knob >= 0         ? rows_knob
                             : st->gemv_l2_keep > 0 ? PS_CUDA_GEMV_MAX_ROWS
                                                    : gemv_rows;
    for (int i = 0; i < 2; i++) {
        size_t tiles = PS_CUDA_GEMV_MAX_ROWS / 32 * sizeof(unsigned);
        PS_CUDA_TRY(be,
                    cudaMalloc(&st->gemv_partial[i], (size_t)PS_CUDA_GEMV_MAX_SLICES *
                                                         PS_CUDA_GEMV_MAX_ROWS * sizeof(double)),
                    "cudaMalloc (gemv slices)");
        PS_CUDA_TRY(be, cudaMalloc((void **)&st->gemv_tickets[i], tiles),
                    "cudaMalloc (gemv tickets)");
        PS_CUDA_TRY(be, cudaMemset(st->gemv_tickets[i], 0, tiles), "cudaMemset (gemv tickets)");
        PS_CUDA_TRY(be, cudaMalloc((void **)&st->trsv_sync[i], 2 * sizeof(unsigned)),
                    "cudaMalloc (trsv_mixed counters)");
        PS_CUDA_TRY(be, cudaMemset(st->trsv_sync[i], 0, 2 * sizeof(unsigned)),
                    "cudaMemset (trsv_mixed counters)");
        PS_CUDA_TRY(be, cudaMallocHost(&st->staging[i], PS_CUDA_STAGING_BYTES),
                    "cudaMallocHost (pinned staging)");
        PS_CUDA_TRY(be, cudaEventCreateWithFlags(&st->staged[i], cudaEventDisableTiming),
                    "cudaEventCreate");
    }
    for (int i = 0; i < PS__TRANSFER_SLOTS; i++)
        PS_CUDA_TRY(be, cudaEventCreateWithFlags(&st->transferred[i], cudaEventDisableTiming),
                    "cudaEventCreate");
    for (int i = 0; i < PS__TRANSFER_MARKS; i++)
        PS_CUDA_TRY(be, cudaEventCreateWithFlags(&st->marks[i], cudaEventDisableTiming),
                    "cudaEventCreate");
    PS_CUDA_TRY(be, cudaStreamCreateWithFlags(&st->transfers, cudaStreamNonBlocking),
                "cudaStreamCreate (transfers)");
    return ps_cuda_iter_open(be, st);
}

static ps_status select_device(ps__backend *be, const char *spec, int *device) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return ps__backend_fail(be, PS_ERR_BACKEND_UNAVAILABLE,
                                "cuda: no usable CUDA device: %s (%s)", cudaGetErrorName(err),
                                cudaGetErrorString(err));
    }
    if (count == 0)
        return ps__backend_fail(be, PS_ERR_BACKEND_UNAVAILABLE, "cuda: no CUDA device found");
    if (!spec || strcmp(spec, "gpu") == 0) {
        *device = 0;
        return PS_SUCCESS;
    }
    char *end;
    long d = strtol(spec, &end, 10);
    if (end == spec || *end || d < 0 || d >= count)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                "PORTSOLVE_DEVICE='%s' names no CUDA device (there are %d: 0..%d)",
                                spec, count, count - 1);
    *device = (int)d;
    return PS_SUCCESS;
}

/* Ends an open: on success so far, the rest of the set-up; the state becomes the backend's, or
 * is released on any failure. */
static ps_status adopt(ps__backend *be, ps_cuda_state *st, ps_status s) {
    if (!s) s = finish_open(be, st);
    if (s) {
        release_state(st);
        return s;
    }
    be->impl = st;
    return PS_SUCCESS;
}

static ps_status cuda_open(ps__backend *be, const char *device_spec) {
    ps_cuda_state *st = calloc(1, sizeof *st);
    if (!st) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
    ps_status s = select_device(be, device_spec, &st->device);
    if (!s) {
        cudaError_t err = cudaSetDevice(st->device);
        if (!err) err = cudaStreamCreateWithFlags(&st->stream, cudaStreamNonBlocking);
        if (err) s = ps_cuda_fail(be, err, "creating the stream");
    }
    return adopt(be, st, s);
}

static ps_status cuda_open_borrowed(ps__backend *be, void *native_context, void *native_queue) {
    (void)native_context;
    ps_cuda_state *st = calloc(1, sizeof *st);
    if (!st) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "cuda: out of host memory");
    st->borrowed = 1;
    st->stream = (cudaStream_t)native_queue; /* NULL: the legacy default stream */
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (!err) err = cudaGetDevice(&st->device);
    ps_status s = err ? ps_cuda_fail(be, err, "finding the caller's device") : PS_SUCCESS;
    return adopt(be, st, s);
}

static void cuda_close(ps__backend *be) {
    ps_cuda_state *st = ps_cuda(be);
    if (st && st->stream) cudaStreamSynchronize(st->stream);
    if (st && st->lane[1]) cudaStreamSynchronize(st->lane[1]);
    if (st && st->transfers) cudaStreamSynchronize(st->transfers);
    for (int i = 0; st && i < 2; i++)
        if (st->part.stream[i]) cudaStreamSynchronize(st->part.stream[i]);
    release_state(st);
    be->impl = NULL;
}

static ps_status cuda_sync(ps__backend *be) {
    ps_cuda_state *st = ps_cuda(be);
    PS_CUDA_TRY(be, cudaStreamSynchronize(st->lane[1]), "cudaStreamSynchronize (lane 1)");
    PS_CUDA_TRY(be, cudaStreamSynchronize(st->transfers), "cudaStreamSynchronize (transfers)");
    for (int i = 0; i < 2; i++)
        if (st->part.stream[i])
            PS_CUDA_TRY(be, cudaStreamSynchronize(st->part.stream[i]),
                        "cudaStreamSynchronize (split lane)");
    PS_CUDA_TRY(be, cudaStreamSynchronize(st->stream), "cudaStreamSynchronize");
    return PS_SUCCESS;
}

/* The context's device becomes the calling thread's current one: cudaMalloc, kernel launches on
 * the context's streams and its cuBLAS handles need it. */
static void cuda_activate(ps__backend *be) {
    ps_cuda_state *st = ps_cuda(be);
    int current = -1;
    if (st && (cudaGetDevice(&current) != cudaSuccess || current != st->device))
        cudaSetDevice(st->device);
}

static int cuda_lanes(ps__backend *be) {
    (void)be;
    return 2;
}

static ps_status cuda_use_lane(ps__backend *be, int lane) {
    ps_cuda_state *st = ps_cuda(be);
    st->cur = lane ? 1 : 0;
    st->blas = st->handles[st->cur];
    st->cur_stream = ps_cuda_lane_stream(st, st->cur);
    return PS_SUCCESS;
}

static ps_status cuda_lane_wait(ps__backend *be, int waiter, int signaller) {
    ps_cuda_state *st = ps_cuda(be);
    int s = signaller ? 1 : 0, w = waiter ? 1 : 0;
    PS_CUDA_TRY(be, cudaEventRecord(st->lane_done[s], ps_cuda_lane_stream(st, s)),
                "cudaEventRecord (lane)");
    PS_CUDA_TRY(be, cudaStreamWaitEvent(ps_cuda_lane_stream(st, w), st->lane_done[s], 0),
                "cudaStreamWaitEvent");
    return PS_SUCCESS;
}

static void *cuda_queue(ps__backend *be) {
    return ps_cuda(be)->stream;
}

static ps_status cuda_alloc(ps__backend *be, size_t bytes, void **buf) {
    cudaError_t err = cudaMalloc(buf, bytes);
    if (err == cudaErrorMemoryAllocation) { /* the pool's unused memory back, and once more */
        ps_cuda_state *st = ps_cuda(be);
        cudaGetLastError();
        if (st->pool && cudaDeviceSynchronize() == cudaSuccess &&
            cudaMemPoolTrimTo(st->pool, 0) == cudaSuccess)
            err = cudaMalloc(buf, bytes);
    }
    if (err != cudaSuccess) {
        *buf = NULL;
        ps_status s = ps_cuda_fail(be, err, "cudaMalloc");
        return s == PS_ERR_BACKEND ? PS_ERR_OUT_OF_MEMORY : s;
    }
    return PS_SUCCESS;
}

static void cuda_free(ps__backend *be, void *buf) {
    (void)be;
    if (buf) cudaFree(buf);
}

/* Columns per staging chunk; 0 when a single column does not fit or host is page-locked already
 * (host_alloc memory, or the caller's own): then the DMA moves it in place. */
static int chunk_columns(size_t column_bytes, const void *host) {
    struct cudaPointerAttributes at;
    if (cudaPointerGetAttributes(&at, host) == cudaSuccess && at.type == cudaMemoryTypeHost)
        return 0;
    cudaGetLastError(); /* an unknown pointer is plain memory, not an error to keep */
    size_t c = PS_CUDA_STAGING_BYTES / (column_bytes ? column_bytes : 1);
    return c > 0x7fffffff ? 0x7fffffff : (int)c;
}

static ps_status cuda_upload(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host,
                             int ldh, ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    size_t es = ps__dtype_size(dt), width = (size_t)rows * es;
    char *d = ps_cuda_ptr(dt, dst.buf, dst.off);
    cudaStream_t lane0 = ps_cuda_lane_stream(st, 0);
    int per = chunk_columns(width, host);
    if (per == 0) {
        PS_CUDA_TRY(be,
                    cudaMemcpy2DAsync(d, (size_t)dst.ld * es, host, (size_t)ldh * es, width,
                                      (size_t)cols, cudaMemcpyHostToDevice, lane0),
                    "cudaMemcpy2DAsync (upload)");
        PS_CUDA_TRY(be, cudaStreamSynchronize(lane0), "cudaStreamSynchronize (upload)");
        return PS_SUCCESS;
    }
    for (int c0 = 0, chunk = 0; c0 < cols; c0 += per, chunk++) {
        int b = chunk % 2, nc = cols - c0 < per ? cols - c0 : per;
        /* the DMA that last read this staging buffer must be done before it is refilled */
        PS_CUDA_TRY(be, cudaEventSynchronize(st->staged[b]), "cudaEventSynchronize (upload)");
        for (int j = 0; j < nc; j++)
            memcpy((char *)st->staging[b] + (size_t)j * width,
                   (const char *)host + (size_t)(c0 + j) * ldh * es, width);
        PS_CUDA_TRY(be,
                    cudaMemcpy2DAsync(d + (size_t)c0 * dst.ld * es, (size_t)dst.ld * es,
                                      st->staging[b], width, width, (size_t)nc,
                                      cudaMemcpyHostToDevice, lane0),
                    "cudaMemcpy2DAsync (upload)");
        PS_CUDA_TRY(be, cudaEventRecord(st->staged[b], lane0), "cudaEventRecord");
    }
    /* lane 0 only: an upload must not wait for work on the other lane */
    PS_CUDA_TRY(be, cudaStreamSynchronize(lane0), "cudaStreamSynchronize (upload)");
    return PS_SUCCESS;
}

static ps_status cuda_download(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                               void *host, int ldh) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    size_t es = ps__dtype_size(dt), width = (size_t)rows * es;
    const char *s = ps_cuda_ptr(dt, src.buf, src.off);
    cudaStream_t lane0 = ps_cuda_lane_stream(st, 0);
    int per = chunk_columns(width, host);
    if (per == 0) {
        PS_CUDA_TRY(be,
                    cudaMemcpy2DAsync(host, (size_t)ldh * es, s, (size_t)src.ld * es, width,
                                      (size_t)cols, cudaMemcpyDeviceToHost, lane0),
                    "cudaMemcpy2DAsync (download)");
        PS_CUDA_TRY(be, cudaStreamSynchronize(lane0), "cudaStreamSynchronize (download)");
        return PS_SUCCESS;
    }
    /* DMA chunk k into one staging buffer while the host copies chunk k-1 out of the other */
    int chunks = (cols + per - 1) / per;
    for (int k = 0; k <= chunks; k++) {
        if (k < chunks) {
            int c0 = k * per, nc = cols - c0 < per ? cols - c0 : per;
            PS_CUDA_TRY(be,
                        cudaMemcpy2DAsync(st->staging[k % 2], width, s + (size_t)c0 * src.ld * es,
                                          (size_t)src.ld * es, width, (size_t)nc,
                                          cudaMemcpyDeviceToHost, lane0),
                        "cudaMemcpy2DAsync (download)");
            PS_CUDA_TRY(be, cudaEventRecord(st->staged[k % 2], lane0), "cudaEventRecord");
        }
        if (k > 0) {
            int p = k - 1, c0 = p * per, nc = cols - c0 < per ? cols - c0 : per;
            PS_CUDA_TRY(be, cudaEventSynchronize(st->staged[p % 2]),
                        "cudaEventSynchronize (download)");
            for (int j = 0; j < nc; j++)
                memcpy((char *)host + (size_t)(c0 + j) * ldh * es,
                       (const char *)st->staging[p % 2] + (size_t)j * width, width);
        }
    }
    return PS_SUCCESS;
}

/* Page-locked memory, so transfers move it by DMA and can run while the host works; plain
 * memory where the driver will not pin that much. */
static ps_status cuda_host_alloc(ps__backend *be, size_t bytes, void **ptr) {
    if (cudaHostAlloc(ptr, bytes ? bytes : 1, cudaHostAllocDefault) == cudaSuccess)
        return PS_SUCCESS;
    cudaGetLastError();
    *ptr = malloc(bytes ? bytes : 1);
    if (!*ptr)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY,
                                "cuda: host allocation of %zu bytes failed", bytes);
    return PS_SUCCESS;
}

static void cuda_host_free(ps__backend *be, void *ptr) {
    (void)be;
    unsigned flags;
    if (!ptr) return;
    if (cudaHostGetFlags(&flags, ptr) == cudaSuccess) {
        cudaFreeHost(ptr);
        return;
    }
    cudaGetLastError();
    free(ptr);
}

/* A 2-D copy between host memory and a view queued on the transfer stream, tracked by slot. */
static ps_status transfer_async(ps__backend *be, int to_device, ps__dtype dt, int rows, int cols,
                                void *host, int ldh, ps__mat view, int slot) {
    ps_cuda_state *st = ps_cuda(be);
    if (slot < 0 || slot >= PS__TRANSFER_SLOTS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "cuda: transfer slot %d", slot);
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    size_t es = ps__dtype_size(dt), width = (size_t)rows * es;
    char *d = ps_cuda_ptr(dt, view.buf, view.off);
    cudaError_t err =
        to_device ? cudaMemcpy2DAsync(d, (size_t)view.ld * es, host, (size_t)ldh * es, width,
                                      (size_t)cols, cudaMemcpyHostToDevice, st->transfers)
                  : cudaMemcpy2DAsync(host, (size_t)ldh * es, d, (size_t)view.ld * es, width,
                                      (size_t)cols, cudaMemcpyDeviceToHost, st->transfers);
    PS_CUDA_TRY(be, err, to_device ? "cudaMemcpy2DAsync (upload)" : "cudaMemcpy2DAsync (download)");
    err = cudaEventRecord(st->transferred[slot], st->transfers);
    if (err != cudaSuccess) /* the slot's wait would miss the copy, which reads or writes host */
        cudaStreamSynchronize(st->transfers);
    PS_CUDA_TRY(be, err, "cudaEventRecord");
    return PS_SUCCESS;
}

/* Marks are events, recorded on lane 0's stream (the partition's while split) or on the transfer
 * stream. */
static ps_status cuda_transfer_order(ps__backend *be, ps__transfer_order order, int mark) {
    ps_cuda_state *st = ps_cuda(be);
    if (mark < 0 || mark >= PS__TRANSFER_MARKS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "cuda: transfer mark %d", mark);
    cudaEvent_t ev = st->marks[mark];
    cudaError_t err;
    switch (order) {
    case PS__ORDER_MARK_WORK:
        err = cudaEventRecord(ev, ps_cuda_lane_stream(st, 0));
        break;
    case PS__ORDER_MARK_TRANSFERS:
        err = cudaEventRecord(ev, st->transfers);
        break;
    case PS__ORDER_TRANSFERS_AFTER:
        err = cudaStreamWaitEvent(st->transfers, ev, 0);
        break;
    default:
        err = cudaStreamWaitEvent(ps_cuda_lane_stream(st, 0), ev, 0);
        break;
    }
    PS_CUDA_TRY(be, err, "transfer order");
    return PS_SUCCESS;
}

/* Free memory counts what the context's pool keeps unused: cuda_alloc gives it back on demand. */
static ps_status cuda_device_memory(ps__backend *be, size_t *free_bytes, size_t *total_bytes) {
    ps_cuda_state *st = ps_cuda(be);
    uint64_t reserved = 0, used = 0;
    PS_CUDA_TRY(be, cudaMemGetInfo(free_bytes, total_bytes), "cudaMemGetInfo");
    if (st->pool &&
        cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrReservedMemCurrent, &reserved) ==
            cudaSuccess &&
        cudaMemPoolGetAttribute(st->pool, cudaMemPoolAttrUsedMemCurrent, &used) == cudaSuccess &&
        reserved > used)
        *free_bytes += (size_t)(reserved - used);
    return PS_SUCCESS;
}

/* The pool's unused memory back to the device (ps_context_release_memory, after sync). */
static ps_status cuda_release_cached(ps__backend *be) {
    ps_cuda_state *st = ps_cuda(be);
    if (st->pool) PS_CUDA_TRY(be, cudaMemPoolTrimTo(st->pool, 0), "cudaMemPoolTrimTo");
    return PS_SUCCESS;
}

static ps_status cuda_upload_async(ps__backend *be, ps__dtype dt, int rows, int cols,
                                   const void *host, int ldh, ps__mat dst, int slot) {
    return transfer_async(be, 1, dt, rows, cols, (void *)host, ldh, dst, slot);
}

static ps_status cuda_download_async(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                                     void *host, int ldh, int slot) {
    return transfer_async(be, 0, dt, rows, cols, host, ldh, src, slot);
}

static ps_status cuda_transfer_wait(ps__backend *be, int slot) {
    if (slot < 0 || slot >= PS__TRANSFER_SLOTS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "cuda: transfer slot %d", slot);
    PS_CUDA_TRY(be, cudaEventSynchronize(ps_cuda(be)->transferred[slot]),
                "cudaEventSynchronize (transfer)");
    return PS_SUCCESS;
}

static ps_status cuda_copy2d(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                             ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    size_t es = ps__dtype_size(dt);
    PS_CUDA_TRY(be,
                cudaMemcpy2DAsync(ps_cuda_ptr(dt, dst.buf, dst.off), (size_t)dst.ld * es,
                                  ps_cuda_ptr(dt, src.buf, src.off), (size_t)src.ld * es,
                                  (size_t)rows * es, (size_t)cols, cudaMemcpyDeviceToDevice,
                                  ps_cuda(be)->cur_stream),
                "cudaMemcpy2DAsync (copy2d)");
    return PS_SUCCESS;
}

static ps_status cuda_fill(ps__backend *be, ps__dtype dt, int rows, int cols,
                           const ps__scalar *value, ps__mat a) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_fill(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, rows, cols, value,
                                    ps_cuda_ptr(dt, a.buf, a.off), a.ld),
                "fill kernel");
    return PS_SUCCESS;
}

static ps_status cuda_copy_triangle(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n,
                                    ps__mat src, ps__mat dst) {
    if (n <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_copy_triangle(ps_cuda(be)->cur_stream, dt == PS__DOUBLE,
                                             uplo == PS__LOWER, n,
                                             ps_cuda_ptr(dt, src.buf, src.off), src.ld,
                                             ps_cuda_ptr(dt, dst.buf, dst.off), dst.ld),
                "copy_triangle kernel");
    return PS_SUCCESS;
}

static ps_status cuda_read_elements(ps__backend *be, ps__dtype dt, const void *buf, int count,
                                    const size_t *offsets, void *out) {
    ps_cuda_state *st = ps_cuda(be);
    size_t es = ps__dtype_size(dt);
    for (int i = 0; i < count; i++)
        PS_CUDA_TRY(be,
                    cudaMemcpyAsync((char *)st->staging[0] + (size_t)i * es,
                                    ps_cuda_ptr(dt, (void *)buf, offsets[i]), es,
                                    cudaMemcpyDeviceToHost, st->stream),
                    "cudaMemcpyAsync (read_elements)");
    PS__TRY(cuda_sync(be));
    memcpy(out, st->staging[0], (size_t)count * es);
    return PS_SUCCESS;
}

static ps_status cuda_laswp(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                            const void *ipiv, size_t ipiv_off, int forward) {
    if (ncols <= 0 || k2 <= k1) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_laswp(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, ncols,
                                     ps_cuda_ptr(dt, a.buf, a.off), a.ld, k1, k2,
                                     (const int *)ipiv + ipiv_off, forward),
                "laswp kernel");
    return PS_SUCCESS;
}

static ps_status rows_by_index(ps__backend *be, ps__dtype dt, int scatter, int rows, int cols,
                               const void *idx, size_t idx_off, ps__mat src, ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_rows_by_index(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, scatter,
                                             rows, cols, (const int *)idx + idx_off,
                                             ps_cuda_ptr(dt, src.buf, src.off), src.ld,
                                             ps_cuda_ptr(dt, dst.buf, dst.off), dst.ld),
                scatter ? "scatter_rows kernel" : "permute_rows kernel");
    return PS_SUCCESS;
}

static ps_status cuda_permute_rows(ps__backend *be, ps__dtype dt, int rows, int cols,
                                   const void *perm, size_t perm_off, ps__mat src, ps__mat dst) {
    return rows_by_index(be, dt, 0, rows, cols, perm, perm_off, src, dst);
}

static ps_status cuda_scatter_rows(ps__backend *be, ps__dtype dt, int rows, int cols,
                                   const void *idx, size_t idx_off, ps__mat src, ps__mat dst) {
    return rows_by_index(be, dt, 1, rows, cols, idx, idx_off, src, dst);
}

ps_status ps_cuda_coop_next_epoch(ps__backend *be) {
    ps_cuda_state *st = ps_cuda(be);
    if (++st->coop_epoch >= PS_CUDA_COOP_EPOCHS) {
        /* flags wrap: clear the words of earlier launches (once per 8M launches) */
        for (int i = 0; i < 2; i++) {
            PS_CUDA_TRY(be, cudaStreamSynchronize(st->lane[i]), "cudaStreamSynchronize");
            if (st->part.stream[i])
                PS_CUDA_TRY(be, cudaStreamSynchronize(st->part.stream[i]), "cudaStreamSynchronize");
        }
        PS_CUDA_TRY(
            be, cudaMemset(st->coop_scratch, 0, ps_cuda_coop_scratch_bytes(st->coop.max_blocks)),
            "cudaMemset (panel scratch)");
        st->coop_epoch = 1;
    }
    return PS_SUCCESS;
}

static ps_status cuda_axpby(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha,
                            ps__vec x, const ps__scalar *beta, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_axpby(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, n, alpha,
                                     ps_cuda_ptr(dt, x.buf, x.off), x.inc, beta,
                                     ps_cuda_ptr(dt, y.buf, y.off), y.inc),
                "axpby kernel");
    return PS_SUCCESS;
}

static ps_status cuda_vmul(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_vmul(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, n,
                                    ps_cuda_ptr(dt, x.buf, x.off), x.inc,
                                    ps_cuda_ptr(dt, y.buf, y.off), y.inc),
                "vmul kernel");
    return PS_SUCCESS;
}

/* Block sizes and thresholds, measured on an H100 and an H200 (docs/PERFORMANCE.md and
 * docs/GJ.md give the runs). */
static const ps__size_rule cuda_sizes[] = {
    /* LU's block size (core/lu/lu.c) */
    {PS__ALGO_LU, PS__ANY_DTYPE, 0, 128},
    {PS__ALGO_LU, PS__ANY_DTYPE, 12288, 512},
    {PS__ALGO_LU, PS__FLOAT, 24576, 768},
    /* LU's block rows of U by inv(L11), from this order */
    {PS__ALGO_LU_INVERSE, PS__ANY_DTYPE, 0, 12288},
    /* LU held transposed, from this order: the transposes at both ends cost more below */
    {PS__ALGO_LU_TRANSPOSED, PS__FLOAT, 0, 16384},
    {PS__ALGO_LU_TRANSPOSED, PS__DOUBLE, 0, 24576},
    /* host LU by pieces, its transfers beside the work (core/lu/lu_overlap.c), from this order */
    {PS__ALGO_LU_OVERLAP, PS__ANY_DTYPE, 0, 8192},
    /* device LU and Cholesky in an aligned copy (core/lu/lu_copy.c, core/chol/chol_copy.c),
     * double only: float gained nothing */
    {PS__ALGO_LU_COPY, PS__DOUBLE, 0, 12288},
    {PS__ALGO_CHOL_COPY, PS__DOUBLE, 0, 12288},
    /* float LU's and Cholesky's GEMMs in TF32X3 (core/base/float_split.c), from this order
     * (with TF32 tensor cores): LU no faster at 8192 */
    {PS__ALGO_LU_FLOAT_SPLIT, PS__FLOAT, 0, 12288},
    {PS__ALGO_CHOL_FLOAT_SPLIT, PS__FLOAT, 0, 12288},
    /* Cholesky's block size (core/chol/chol.c) */
    {PS__ALGO_CHOL, PS__ANY_DTYPE, 0, 512},
    {PS__ALGO_CHOL, PS__ANY_DTYPE, 12288, 1024},
    {PS__ALGO_CHOL, PS__ANY_DTYPE, 24576, 2048},
    /* gjinv's block size, gjsv's stripe, gjinv held transposed from this order (core/gj/) */
    {PS__ALGO_GJ, PS__DOUBLE, 0, 256},
    {PS__ALGO_GJ, PS__DOUBLE, 12288, 512},
    {PS__ALGO_GJ, PS__FLOAT, 0, 512},
    {PS__ALGO_GJ_STRIPE, PS__ANY_DTYPE, 0, 128},
    {PS__ALGO_GJ_STRIPE, PS__ANY_DTYPE, 8193, 512},
    {PS__ALGO_GJ_TRANSPOSED, PS__ANY_DTYPE, 0, 8192},
    /* getri's block size (core/gj/getri.c) */
    {PS__ALGO_GETRI, PS__ANY_DTYPE, 0, 256},
    {PS__ALGO_GETRI, PS__ANY_DTYPE, 8192, 512},
    {PS__ALGO_GETRI, PS__FLOAT, 24576, 768},
    /* GMRES-IR's preconditioner by inverted diagonal blocks of this order
     * (core/refine/trsv_blocked.c); below 16384 it keeps trsv_mixed */
    {PS__ALGO_TRSV_BLOCKED, PS__ANY_DTYPE, 16384, 2048},
};

static int cuda_block_size(ps__backend *be, ps__algo algo, ps__dtype dt, int n) {
    if ((algo == PS__ALGO_LU_FLOAT_SPLIT || algo == PS__ALGO_CHOL_FLOAT_SPLIT) &&
        !ps_cuda(be)->tensor_cores_32f)
        return 0;
    return ps__size_rule_find(cuda_sizes, sizeof cuda_sizes / sizeof cuda_sizes[0], algo, dt, n);
}

static void cuda_list_devices(char *buf, size_t size) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        cudaGetLastError();
        snprintf(buf, size, "no usable CUDA device: %s\n", cudaGetErrorString(err));
        return;
    }
    buf[0] = '\0';
    for (int d = 0; d < count; d++) {
        struct cudaDeviceProp prop;
        size_t used = strlen(buf);
        if (cudaGetDeviceProperties(&prop, d) != cudaSuccess || used + 2 >= size) break;
        snprintf(buf + used, size - used, "%d: %.128s, sm_%d%d, %.0f GiB, double precision: yes\n",
                 d, prop.name, prop.major, prop.minor, (double)prop.totalGlobalMem / (1 << 30));
    }
}

static const ps__backend_ops cuda_ops = {
    .abi_version = PS__BACKEND_ABI_VERSION,
    .struct_size = sizeof(ps__backend_ops),
    .name = "cuda",
    .open = cuda_open,
    .close = cuda_close,
    .sync = cuda_sync,
    .queue = cuda_queue,
    .alloc = cuda_alloc,
    .free = cuda_free,
    .upload = cuda_upload,
    .download = cuda_download,
    .copy2d = cuda_copy2d,
    .copy = ps_cuda_copy,
    .swap = ps_cuda_swap,
    .scal = ps_cuda_scal,
    .axpy = ps_cuda_axpy,
    .dot = ps_cuda_dot,
    .nrm2 = ps_cuda_nrm2,
    .iamax = ps_cuda_iamax,
    .gemv = ps_cuda_gemv,
    .ger = ps_cuda_ger,
    .trsv = ps_cuda_trsv,
    .gemm = ps_cuda_gemm,
    .syrk = ps_cuda_syrk,
    .trsm = ps_cuda_trsm,
    .fill = cuda_fill,
    .copy_triangle = cuda_copy_triangle,
    .read_elements = cuda_read_elements,
    .laswp = cuda_laswp,
    .fetch_start = ps_cuda_fetch_start,
    .fetch_wait = ps_cuda_fetch_wait,
    .axpby = cuda_axpby,
    .vmul = cuda_vmul,
    .trmm = ps_cuda_trmm,
    .colswp = ps_cuda_colswp,
    .transpose = ps_cuda_transpose,
    .convert = ps_cuda_convert,
    .permute_rows = cuda_permute_rows,
    .scatter_rows = cuda_scatter_rows,
    .transpose_square = ps_cuda_transpose_square,
    .norm_inf = ps_cuda_norm_inf,
    .set_float_compute = ps_cuda_set_float_compute,
    .block_size = cuda_block_size,
    .list_devices = cuda_list_devices,
    .open_borrowed = cuda_open_borrowed,
    .lanes = cuda_lanes,
    .use_lane = cuda_use_lane,
    .lane_wait = cuda_lane_wait,
    .lanes_split = ps_cuda_lanes_split,
    .lanes_join = ps_cuda_lanes_join,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .upload_async = cuda_upload_async,
    .download_async = cuda_download_async,
    .transfer_wait = cuda_transfer_wait,
    .transfer_order = cuda_transfer_order,
    .device_memory = cuda_device_memory,
    .release_cached = cuda_release_cached,
    .activate = cuda_activate,
    .family = {[PS__FAMILY_LU] = &ps_cuda_lu_kernels.header,
               [PS__FAMILY_CHOL] = &ps_cuda_chol_kernels.header,
               [PS__FAMILY_WZ] = &ps_cuda_wz_kernels.header,
               [PS__FAMILY_GJ] = &ps_cuda_gj_kernels.header,
               [PS__FAMILY_ITER] = &ps_cuda_iter_kernels.header,
               [PS__FAMILY_REFINE] = &ps_cuda_refine_kernels.header,
               [PS__FAMILY_PEER] = &ps_cuda_peer_kernels.header},
};

/* The module's one exported symbol. */
__attribute__((visibility("default"))) const ps__backend_ops *ps_backend_module_v1(void) {
    return &cuda_ops;
}
