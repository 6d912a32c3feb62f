/*
 * Look-ahead on disjoint SMs. The look-ahead lane (lane 1) runs the next panel while lane 0
 * updates the trailing matrix; on a shared device each of lane 1's small kernels waits for
 * blocks of lane 0's GEMM to finish before it gets an SM (tens of microseconds each), and the
 * cooperative LU leaf, which wants nearly every SM, waits for the GEMM to drain. A CUPTI trace of
 * dgesv at n = 16384 (docs/PERFORMANCE.md) showed lane 1 busy for 147 of 175 ms, its
 * 248 leaves alone 103 ms. Green contexts (CUDA 12.4+) split the SMs: lane 1 gets a few of its
 * own, lane 0 the rest, so neither waits for the other's blocks.
 *
 * The driver's green-context entry points come through cudaGetDriverEntryPointByVersion, so the
 * module still links only the static runtime and loads where the driver is absent or older
 * (then the lanes share the device as before).
 */
#include "cuda_internal.h"

#include <cuda.h>
#include <limits.h>

typedef CUresult (*get_resource_fn)(CUdevice, CUdevResource *, CUdevResourceType);
typedef CUresult (*split_fn)(CUdevResource *, unsigned *, const CUdevResource *, CUdevResource *,
                             unsigned, unsigned);
typedef CUresult (*generate_desc_fn)(CUdevResourceDesc *, CUdevResource *, unsigned);
typedef CUresult (*green_create_fn)(CUgreenCtx *, CUdevResourceDesc, CUdevice, unsigned);
typedef CUresult (*green_destroy_fn)(CUgreenCtx);
typedef CUresult (*green_stream_fn)(CUstream *, CUgreenCtx, unsigned, int);

typedef struct {
    get_resource_fn get_resource;
    split_fn split;
    generate_desc_fn generate_desc;
    green_create_fn green_create;
    green_destroy_fn green_destroy;
    green_stream_fn green_stream;
} green_api;

/* The green-context entry points of the driver (at the toolkit's version of their ABI); NULL when
 * all were found, else the name of the first one missing. */
static const char *load_green_api(green_api *api) {
    struct {
        const char *name;
        void **fn;
    } table[] = {
        {"cuDeviceGetDevResource", (void **)&api->get_resource},
        {"cuDevSmResourceSplitByCount", (void **)&api->split},
        {"cuDevResourceGenerateDesc", (void **)&api->generate_desc},
        {"cuGreenCtxCreate", (void **)&api->green_create},
        {"cuGreenCtxDestroy", (void **)&api->green_destroy},
        {"cuGreenCtxStreamCreate", (void **)&api->green_stream},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        enum cudaDriverEntryPointQueryResult found;
        *table[i].fn = NULL;
        if (cudaGetDriverEntryPointByVersion(table[i].name, table[i].fn, CUDART_VERSION,
                                             cudaEnableDefault, &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess || !*table[i].fn) {
            cudaGetLastError();
            return table[i].name;
        }
    }
    return NULL;
}

void ps_cuda_partition_release(ps_cuda_state *st) {
    ps_cuda_partition *p = &st->part;
    green_api api;
    int have = (p->green[0] || p->green[1]) && !load_green_api(&api);
    /* LU and GJ ask for different sizes, so a partition may be replaced right after a join,
     * while its streams may still run work the joined lanes wait for: let that finish first */
    for (int i = 0; i < 2; i++)
        if (p->stream[i]) cudaStreamSynchronize(p->stream[i]);
    for (int i = 0; i < 2; i++) {
        if (p->stream[i]) cudaStreamDestroy(p->stream[i]);
        if (p->green[i] && have) api.green_destroy((CUgreenCtx)p->green[i]);
        p->stream[i] = NULL;
        p->green[i] = NULL;
        p->sms[i] = 0;
    }
}

/* The driver's name for r (through the entry point, as the rest). */
static const char *driver_error(CUresult r) {
    typedef CUresult (*name_fn)(CUresult, const char **);
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found;
    const char *name = NULL;
    if (cudaGetDriverEntryPointByVersion("cuGetErrorName", &fn, CUDART_VERSION, cudaEnableDefault,
                                         &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess && fn && ((name_fn)fn)(r, &name) == CUDA_SUCCESS &&
        name)
        return name;
    cudaGetLastError();
    return "unknown CUresult";
}

/* Makes the partition with (at least) panel_sms SMs for lane 1, unless it exists with that
 * many. A failure is reported and leaves no partition. */
static ps_status make_partition(ps__backend *be, ps_cuda_state *st, int panel_sms) {
    ps_cuda_partition *p = &st->part;
    if (p->sms[1] && p->sms[1] >= panel_sms && p->sms[1] < panel_sms + 8) return PS_SUCCESS;
    ps_cuda_partition_release(st);
    green_api api;
    const char *missing = load_green_api(&api);
    if (missing)
        return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED,
                                "cuda: the driver lacks %s (green contexts split the lanes; "
                                "PORTSOLVE_TUNING=cuda_panel_sms=0 shares them)",
                                missing);
    CUdevResource all, parts[1], rest;
    unsigned groups = 1;
    CUresult r = api.get_resource((CUdevice)st->device, &all, CU_DEV_RESOURCE_TYPE_SM);
    if (!r) r = api.split(parts, &groups, &all, &rest, 0, (unsigned)panel_sms);
    if (!r && (groups != 1 || rest.sm.smCount == 0)) r = CUDA_ERROR_INVALID_VALUE;
    CUdevResource *res[2] = {&rest, &parts[0]};
    int least = 0, greatest = 0;
    if (!r) cudaDeviceGetStreamPriorityRange(&least, &greatest);
    for (int i = 0; i < 2 && !r; i++) {
        CUdevResourceDesc desc;
        CUgreenCtx g = NULL;
        CUstream s = NULL;
        r = api.generate_desc(&desc, res[i], 1);
        if (!r) r = api.green_create(&g, desc, (CUdevice)st->device, CU_GREEN_CTX_DEFAULT_STREAM);
        if (!r) p->green[i] = g;
        if (!r) r = api.green_stream(&s, g, CU_STREAM_NON_BLOCKING, i == 1 ? greatest : least);
        if (!r) {
            p->stream[i] = (cudaStream_t)s;
            p->sms[i] = (int)res[i]->sm.smCount;
        }
    }
    if (r) {
        ps_cuda_partition_release(st);
        return ps__backend_fail(be, PS_ERR_BACKEND,
                                "cuda: splitting the device into %d + the rest SMs: %s (CUresult "
                                "%d)",
                                panel_sms, driver_error(r), (int)r);
    }
    return PS_SUCCESS;
}

/*
 * SMs for lane 1 when splitting for algo with n columns left to factor (GJ: of order n); 0: do
 * not split. Each rule is the best of a sweep over the SM count and the order to split from
 * (H100 and H200, against cuSOLVER; docs/PERFORMANCE.md):
 * - LU and WZ: a quarter of the SMs for the last PS_CUDA_SPLIT_BELOW columns; while the
 *   trailing matrix is larger, GEMM on fewer SMs costs more than the panel gains;
 * - the float LU of FP16X3 refinement, whose GEMMs are about twice as fast so that the panel's
 *   lane is the longer chain from the start: three eighths from the first column (TF32X3, with
 *   slower GEMMs, lost there and keeps the LU rule);
 * - GJ inversion, whose update is the whole matrix at every step: an eighth of the SMs from the
 *   start, for orders up to PS_CUDA_SPLIT_BELOW;
 * - Cholesky keeps sharing: its leaf and small syrk need the whole device.
 * cuda_panel_sms overrides the SM count for LU, WZ and GJ.
 */
static int panel_sms_for(const ps_cuda_state *st, ps__algo algo, ps__dtype dt, int n) {
    int lu_like = algo == PS__ALGO_LU || algo == PS__ALGO_WZ;
    int fast_lu = algo == PS__ALGO_LU && dt == PS__FLOAT && st->float_compute == PS__COMPUTE_FP16X3;
    int below = st->split_below >= 0 ? st->split_below : fast_lu ? INT_MAX : PS_CUDA_SPLIT_BELOW;
    if ((!lu_like && algo != PS__ALGO_GJ) || n > below) return 0;
    if (st->partition_failed && st->panel_sms_request < 0) return 0;
    if (st->panel_sms_request >= 0) return st->panel_sms_request;
    /* 132 SMs: 32 (LU, WZ), 48 (FP16X3's LU), 16 (GJ) */
    int share = (fast_lu ? st->sms * 3 / 8 : st->sms / (lu_like ? 4 : 8)) / 8 * 8;
    return share >= 8 ? share : 0;
}

/* Moves the lanes onto the partition (split) or back onto the context's streams: each new
 * lane follows everything queued on either old one, and the cuBLAS handles follow. */
static ps_status move_lanes(ps__backend *be, ps_cuda_state *st, int split) {
    cudaStream_t old[2] = {ps_cuda_lane_stream(st, 0), ps_cuda_lane_stream(st, 1)};
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < 2 && !err; i++) err = cudaEventRecord(st->lane_done[i], old[i]);
    st->split = split;
    for (int i = 0; i < 2 && !err; i++)
        for (int k = 0; k < 2 && !err; k++)
            err = cudaStreamWaitEvent(ps_cuda_lane_stream(st, i), st->lane_done[k], 0);
    ps_status failed = PS_SUCCESS;
    if (err) { /* the new lanes cannot follow the old ones: wait for them here */
        for (int i = 0; i < 2; i++) cudaStreamSynchronize(old[i]);
        failed = ps_cuda_fail(be, err, split ? "splitting the lanes" : "joining the lanes");
    }
    for (int i = 0; i < 2; i++)
        PS_CUBLAS_TRY(be, cublasSetStream(st->handles[i], ps_cuda_lane_stream(st, i)),
                      "cublasSetStream");
    st->cur_stream = ps_cuda_lane_stream(st, st->cur);
    return failed;
}

ps_status ps_cuda_lanes_split(ps__backend *be, ps__algo algo, ps__dtype dt, int n, int *split) {
    ps_cuda_state *st = ps_cuda(be);
    int sms = panel_sms_for(st, algo, dt, n);
    int want = sms > 0 && sms < st->sms;
    *split = st->split;
    if (want == st->split) return PS_SUCCESS;
    if (want) {
        ps_status s = make_partition(be, st, sms);
        if (s && st->panel_sms_request < 0) {
            /* the default asked; without green contexts the lanes keep sharing the device (and
             * the call succeeds, so its message goes) */
            st->partition_failed = 1;
            if (be->err && be->err_size) be->err[0] = '\0';
            return PS_SUCCESS;
        }
        PS__TRY(s);
    }
    PS__TRY(move_lanes(be, st, want));
    *split = want;
    return PS_SUCCESS;
}

ps_status ps_cuda_lanes_join(ps__backend *be) {
    ps_cuda_state *st = ps_cuda(be);
    return st->split ? move_lanes(be, st, 0) : PS_SUCCESS;
}
