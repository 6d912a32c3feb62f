/*
 * The CUDA backend's entries for the iterative solvers: the fused CG step and GMRES's
 * normalization (cooperative kernels, cuda_iter_kernels.cu), and fetch_start / fetch_wait,
 * which move a few device values into pinned host memory behind the work already queued, so
 * that the host can read them a step later without draining the stream. The step kernels write
 * their fetched values into that (mapped) memory themselves: measured on an H100, a separate
 * cudaMemcpyAsync of 48 bytes added 9 us to every iteration.
 */
#include "cuda_internal.h"
#include "../core/iter/cg_scalars.h"

#include <string.h>

ps_status ps_cuda_iter_open(ps__backend *be, ps_cuda_state *st) {
    /* without cooperative launch the kernels run as one block */
    int coop = 0;
    cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, st->device);
    cudaGetLastError();
    if (coop)
        PS_CUDA_TRY(be, ps_cuda_iter_init(st->device, &st->iter), "iteration kernels' occupancy");
    /* Short vectors take orthonormalize's cluster form where the device has clusters;
     * cuda_cluster_max_n sets how short (0: never). */
    PS_CUDA_TRY(be, ps_cuda_iter_cluster_init(st->device, &st->iter), "iteration clusters");
    st->iter.cluster_max_n = ps__knob_or(be->tuning->cuda_cluster_max_n, PS_CUDA_CLUSTER_MAX_N);
    int cluster_blocks = ps__knob_or(be->tuning->cuda_cluster_blocks, st->iter.cluster_blocks);
    if (cluster_blocks < st->iter.cluster_blocks) st->iter.cluster_blocks = cluster_blocks;
    st->iter.early = ps__knob_or(be->tuning->cuda_iter_early, st->iter.cluster_blocks > 0 ? 2 : 0);
    /* GMRES's steps with the matrix resident on the SMs where it fits (cuda_resident=0
     * turns them off) */
    int resident = ps__knob_or(be->tuning->cuda_resident, 1);
    if (coop && resident) {
        PS_CUDA_TRY(be, ps_cuda_iter_resident_init(st->device, &st->resident),
                    "resident Arnoldi kernels");
        if (st->resident.blocks > 0) {
            PS_CUDA_TRY(
                be,
                cudaMalloc((void **)&st->resident_partial,
                           ps_cuda_resident_partial_doubles(&st->resident) * sizeof(double)),
                "cudaMalloc (resident Arnoldi partial sums)");
            /* arnoldi_cancel's flag in device memory, written by a copy on a stream of its own
             * while the kernel runs: read each step from mapped host memory instead, it cost
             * about 1 us a step (the next grid sync's fence waited for the read across the bus) */
            PS_CUDA_TRY(be, cudaMalloc((void **)&st->resident_cancel_dev, sizeof(int)),
                        "cudaMalloc (resident Arnoldi cancel flag)");
            PS_CUDA_TRY(be, cudaMemset(st->resident_cancel_dev, 0, sizeof(int)),
                        "cudaMemset (resident Arnoldi cancel flag)");
            PS_CUDA_TRY(be, cudaHostAlloc((void **)&st->resident_cancel_host, sizeof(int), 0),
                        "cudaHostAlloc (resident Arnoldi cancel flag)");
            PS_CUDA_TRY(be, cudaStreamCreateWithFlags(&st->cancel_stream, cudaStreamNonBlocking),
                        "cudaStreamCreate (resident Arnoldi cancel)");
        }
    }
    size_t blocks = st->iter.max_blocks > 0 ? (size_t)st->iter.max_blocks : 1;
    PS_CUDA_TRY(be,
                cudaMalloc((void **)&st->iter_partial,
                           (2 * PS_CUDA_ORTH_MAX_K + 3) * blocks * sizeof(double)),
                "cudaMalloc (iteration partial sums)");
    PS_CUDA_TRY(
        be,
        cudaHostAlloc((void **)&st->mark_host, PS__FETCH_SLOTS * sizeof(int), cudaHostAllocMapped),
        "cudaHostAlloc (fetch marks)");
    memset(st->mark_host, 0, PS__FETCH_SLOTS * sizeof(int));
    PS_CUDA_TRY(be, cudaHostGetDevicePointer((void **)&st->mark_dev, st->mark_host, 0),
                "cudaHostGetDevicePointer (fetch marks)");
    for (int i = 0; i < PS__FETCH_SLOTS; i++) {
        PS_CUDA_TRY(be, cudaHostAlloc(&st->fetch_host[i], PS_CUDA_FETCH_BYTES, cudaHostAllocMapped),
                    "cudaHostAlloc (fetch)");
        PS_CUDA_TRY(be, cudaHostGetDevicePointer(&st->fetch_dev[i], st->fetch_host[i], 0),
                    "cudaHostGetDevicePointer (fetch)");
        PS_CUDA_TRY(be, cudaEventCreateWithFlags(&st->fetch_done[i], cudaEventDisableTiming),
                    "cudaEventCreate (fetch)");
    }
    return PS_SUCCESS;
}

void ps_cuda_iter_release(ps_cuda_state *st) {
    if (st->iter_partial) cudaFree(st->iter_partial);
    if (st->resident_partial) cudaFree(st->resident_partial);
    if (st->cancel_stream) cudaStreamSynchronize(st->cancel_stream);
    if (st->cancel_stream) cudaStreamDestroy(st->cancel_stream);
    if (st->resident_cancel_dev) cudaFree(st->resident_cancel_dev);
    if (st->resident_cancel_host) cudaFreeHost(st->resident_cancel_host);
    if (st->mark_host) cudaFreeHost(st->mark_host);
    for (int i = 0; i < PS__FETCH_SLOTS; i++) {
        if (st->fetch_host[i]) cudaFreeHost(st->fetch_host[i]);
        if (st->fetch_done[i]) cudaEventDestroy(st->fetch_done[i]);
    }
}

ps_status ps_cuda_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src) {
    ps_cuda_state *st = ps_cuda(be);
    if (slot < 0 || slot >= PS__FETCH_SLOTS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "fetch_start: slot %d", slot);
    size_t bytes = count > 0 ? (size_t)count * ps__dtype_size(dt) : 0;
    st->fetch_src[slot] = NULL;
    st->mark_bytes[slot] = 0; /* no early prefix: this copy ends with the work before it */
    if (bytes == 0 || bytes > PS_CUDA_FETCH_BYTES) return PS_SUCCESS; /* fetch_wait reads it */
    const void *from = ps_cuda_ptr(dt, src.buf, src.off);
    PS_CUDA_TRY(
        be,
        cudaMemcpyAsync(st->fetch_host[slot], from, bytes, cudaMemcpyDeviceToHost, st->cur_stream),
        "cudaMemcpyAsync (fetch)");
    PS_CUDA_TRY(be, cudaEventRecord(st->fetch_done[slot], st->cur_stream),
                "cudaEventRecord (fetch)");
    st->fetch_src[slot] = from;
    st->fetch_bytes[slot] = bytes;
    return PS_SUCCESS;
}

ps_status ps_cuda_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                             void *host) {
    ps_cuda_state *st = ps_cuda(be);
    if (slot < 0 || slot >= PS__FETCH_SLOTS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "fetch_wait: slot %d", slot);
    if (count <= 0) return PS_SUCCESS;
    size_t bytes = (size_t)count * ps__dtype_size(dt);
    const void *from = ps_cuda_ptr(dt, src.buf, src.off);
    if (st->fetch_src[slot] == from && st->fetch_bytes[slot] == bytes) {
        PS_CUDA_TRY(be, cudaEventSynchronize(st->fetch_done[slot]), "cudaEventSynchronize (fetch)");
        memcpy(host, st->fetch_host[slot], bytes);
        return PS_SUCCESS;
    }
    if (st->fetch_src[slot] == from && bytes < st->fetch_bytes[slot] &&
        bytes <= st->mark_bytes[slot]) {
        /* a prefix the kernel marks final before it ends; or the kernel's end, when it stops
         * short of the mark (a breakdown, a cancel) */
        const volatile int *mark = st->mark_host + slot;
        while (*mark != st->mark_gen[slot]) {
            cudaError_t q = cudaEventQuery(st->fetch_done[slot]);
            if (q == cudaSuccess) break;
            if (q != cudaErrorNotReady) PS_CUDA_TRY(be, q, "cudaEventQuery (fetch)");
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE); /* the values after the mark */
        memcpy(host, st->fetch_host[slot], bytes);
        return PS_SUCCESS;
    }
    ps__mat m = {src.buf, src.off, count};
    return be->ops->download(be, dt, count, 1, m, host, count);
}

/* The mapped memory a step kernel writes slot's values into, or NULL (no fetch, or too many
 * bytes: then fetch_done falls back to fetch_start). */
static void *fetch_target(ps_cuda_state *st, int slot, size_t bytes) {
    if (slot < 0 || slot >= PS__FETCH_SLOTS) return NULL;
    st->fetch_src[slot] = NULL;
    st->mark_bytes[slot] = 0;
    return bytes <= PS_CUDA_FETCH_BYTES ? st->fetch_dev[slot] : NULL;
}

/* After the kernel that wrote (or not) the slot's values: marks them as on their way. */
static ps_status fetch_done(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                            void *target) {
    ps_cuda_state *st = ps_cuda(be);
    if (slot < 0) return PS_SUCCESS;
    if (!target) return ps_cuda_fetch_start(be, dt, slot, count, src);
    PS_CUDA_TRY(be, cudaEventRecord(st->fetch_done[slot], st->cur_stream),
                "cudaEventRecord (fetch)");
    st->fetch_src[slot] = ps_cuda_ptr(dt, src.buf, src.off);
    st->fetch_bytes[slot] = (size_t)count * ps__dtype_size(dt);
    return PS_SUCCESS;
}

ps_status ps_cuda_cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v, ps__vec in,
                          ps__vec out, double stop_rr, int last, int fetch_slot) {
    ps_cuda_state *st = ps_cuda(be);
    if (v->x.inc != 1 || v->r.inc != 1 || v->u.inc != 1 || v->w.inc != 1 || v->p.inc != 1 ||
        v->s.inc != 1 || v->xbest.inc != 1 || (v->dinv.buf && v->dinv.inc != 1))
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "cg_step: vectors must be contiguous");
    if (fetch_slot >= PS__FETCH_SLOTS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "cg_step: slot %d", fetch_slot);
    void *target = fetch_target(st, fetch_slot, PS__CG_SCALARS * ps__dtype_size(dt));
#define PS_PTR(vec) ((vec).buf ? ps_cuda_ptr(dt, (vec).buf, (vec).off) : NULL)
    ps_cuda_cg_ptrs ptrs = {PS_PTR(v->x), PS_PTR(v->r), PS_PTR(v->u),    PS_PTR(v->w),
                            PS_PTR(v->p), PS_PTR(v->s), PS_PTR(v->dinv), PS_PTR(v->xbest)};
    PS_CUDA_TRY(be,
                ps_cuda_launch_cg_step(st->cur_stream, dt == PS__DOUBLE, &st->iter, n, ptrs,
                                       PS_PTR(in), PS_PTR(out), stop_rr, last, st->iter_partial,
                                       target),
                "cg_step kernel");
#undef PS_PTR
    return fetch_done(be, dt, fetch_slot, PS__CG_SCALARS, out, target);
}

ps_status ps_cuda_cg_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a, const ps__cg_vectors *v,
                           ps__vec in, ps__vec out, int count, double stop_rr, int last,
                           int fetch_slot) {
    ps_cuda_state *st = ps_cuda(be);
    const size_t bytes = (size_t)count * PS__CG_SCALARS * ps__dtype_size(dt);
    if (!st->resident_partial || count < 1 || fetch_slot >= PS__FETCH_SLOTS || v->x.inc != 1 ||
        v->r.inc != 1 || v->u.inc != 1 || v->w.inc != 1 || v->p.inc != 1 || v->s.inc != 1 ||
        v->xbest.inc != 1 || (v->dinv.buf && v->dinv.inc != 1) || in.inc != 1 || out.inc != 1 ||
        !ps_cuda_resident_cg_fits(&st->resident, dt == PS__DOUBLE, n))
        return PS_ERR_NOT_SUPPORTED;
    void *target = fetch_target(st, fetch_slot, bytes);
#define PS_PTR(vec) ((vec).buf ? ps_cuda_ptr(dt, (vec).buf, (vec).off) : NULL)
    ps_cuda_cg_ptrs ptrs = {PS_PTR(v->x), PS_PTR(v->r), PS_PTR(v->u),    PS_PTR(v->w),
                            PS_PTR(v->p), PS_PTR(v->s), PS_PTR(v->dinv), PS_PTR(v->xbest)};
    PS_CUDA_TRY(be,
                ps_cuda_launch_cg_resident(st->cur_stream, dt == PS__DOUBLE, &st->resident, n,
                                           ps_cuda_ptr(dt, a.buf, a.off), a.ld, ptrs, PS_PTR(in),
                                           PS_PTR(out), count, stop_rr, last, target,
                                           st->resident_partial),
                "resident CG kernel");
#undef PS_PTR
    return fetch_done(be, dt, fetch_slot, count * PS__CG_SCALARS, out, target);
}

ps_status ps_cuda_orthonormalize(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v, ps__vec w,
                                 ps__vec col, int fetch_slot) {
    ps_cuda_state *st = ps_cuda(be);
    if (w.inc != 1 || col.inc != 1 || k < 0 || fetch_slot >= PS__FETCH_SLOTS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                "orthonormalize: w.inc=%d, col.inc=%d (must be 1), k=%d, slot %d",
                                w.inc, col.inc, k, fetch_slot);
    int count = 2 * k + 1, kk = k;
    if (k > PS_CUDA_ORTH_MAX_K) { /* the projections by cuBLAS, then the kernel normalizes */
        ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0),
                   minus_one = ps__scalar_of(dt, -1.0);
        if (n == 0) { /* empty projections are 0 (cuBLAS gemv would not write them) */
            ps__mat h = {col.buf, col.off, 1};
            PS__TRY(be->ops->fill(be, dt, 1, 2 * k, &zero, h));
        }
        for (int pass = 0; pass < 2 && n > 0; pass++) {
            ps__vec h = ps__vec_at(col, (size_t)pass * (size_t)k);
            PS__TRY(ps_cuda_gemv(be, dt, PS__TRANS, n, k, &one, v, w, &zero, h));
            PS__TRY(ps_cuda_gemv(be, dt, PS__NOTRANS, n, k, &minus_one, v, h, &one, w));
        }
        kk = 0;
    }
    void *target =
        kk == k ? fetch_target(st, fetch_slot, (size_t)count * ps__dtype_size(dt)) : NULL;
    PS_CUDA_TRY(be,
                ps_cuda_launch_orthonormalize(
                    st->cur_stream, dt == PS__DOUBLE, &st->iter, n, kk,
                    ps_cuda_ptr(dt, v.buf, v.off), v.ld, ps_cuda_ptr(dt, w.buf, w.off),
                    ps_cuda_ptr(dt, col.buf, col.off + 2 * (size_t)(k - kk)), st->iter_partial,
                    target),
                "orthonormalize kernel");
    return fetch_done(be, dt, fetch_slot, count, col, target);
}

/* Whether the resident kernel takes steps j0 .. j1 - 1 with these arguments. */
static int resident_takes(const ps_cuda_state *st, ps__dtype dt, int n, ps__vec dinv, int j0,
                          int j1, ps__vec col, int col_stride, int fetch_slot) {
    return st->resident_partial && st->cancel_stream && j0 >= 0 && j1 > j0 &&
           col_stride >= 2 * j1 + 1 && col.inc == 1 && (!dinv.buf || dinv.inc == 1) &&
           fetch_slot < PS__FETCH_SLOTS &&
           ps_cuda_resident_fits(&st->resident, dt == PS__DOUBLE, n, j1);
}

/* The launch of steps j0 .. j1 - 1, their columns at col (after the restart's norm with a
 * restart), and the fetch of count elements from fetched through fetch_slot. */
static ps_status resident_launch(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                 ps__mat v, int j0, int j1, ps__vec col, int col_stride,
                                 const ps_cuda_resident_restart *restart, ps__vec fetched,
                                 int count, int fetch_slot) {
    ps_cuda_state *st = ps_cuda(be);
    const size_t es = ps__dtype_size(dt);
    void *target = fetch_target(st, fetch_slot, (size_t)count * es);
    char *host_cols = target && restart ? (char *)target + es : (char *)target;
    /* the first steps' columns marked final early, when the call has more steps than that */
    int *mark = target && j1 - j0 > PS__ARNOLDI_CHECKPOINT ? st->mark_dev + fetch_slot : NULL;
    const int generation = st->resident_generation + 1;
    PS_CUDA_TRY(
        be,
        ps_cuda_launch_arnoldi_resident(
            st->cur_stream, dt == PS__DOUBLE, &st->resident, n, ps_cuda_ptr(dt, a.buf, a.off), a.ld,
            dinv.buf ? ps_cuda_ptr(dt, dinv.buf, dinv.off) : NULL, ps_cuda_ptr(dt, v.buf, v.off),
            v.ld, j0, j1, ps_cuda_ptr(dt, col.buf, col.off), col_stride, host_cols,
            st->resident_partial, st->resident_cancel_dev, generation, mark, restart),
        "resident Arnoldi kernel");
    st->resident_generation = generation; /* a launch that failed takes no generation */
    PS__TRY(fetch_done(be, dt, fetch_slot, count, fetched, target));
    if (mark) {
        st->mark_gen[fetch_slot] = generation;
        st->mark_bytes[fetch_slot] =
            ((restart ? 1 : 0) + (size_t)PS__ARNOLDI_CHECKPOINT * (size_t)col_stride) * es;
    }
    return PS_SUCCESS;
}

ps_status ps_cuda_arnoldi_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                ps__mat v, int j0, int j1, ps__vec col, int col_stride,
                                int fetch_slot) {
    if (!resident_takes(ps_cuda(be), dt, n, dinv, j0, j1, col, col_stride, fetch_slot))
        return PS_ERR_NOT_SUPPORTED;
    return resident_launch(be, dt, n, a, dinv, v, j0, j1, col, col_stride, NULL, col,
                           (j1 - j0) * col_stride, fetch_slot);
}

/* y into the struct a kernel takes by value; 0 when there are more than it holds. */
static int host_y(int ky, const double *y, ps_cuda_host_y *out) {
    if (ky < 0 || ky > PS_CUDA_UPDATE_MAX_K) return 0;
    out->ky = ky;
    for (int c = 0; c < ky; c++) out->y[c] = y[c];
    return 1;
}

ps_status ps_cuda_arnoldi_restart(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                  ps__vec b, ps__vec x, ps__mat v, int ky, const double *y, int j1,
                                  ps__vec out, int col_stride, int fetch_slot) {
    ps__vec cols = ps__vec_at(out, 1);
    ps_cuda_resident_restart restart = {
        ps_cuda_ptr(dt, b.buf, b.off), ps_cuda_ptr(dt, x.buf, x.off), {0, {0}}};
    if (b.inc != 1 || x.inc != 1 || !host_y(ky, y, &restart.y) ||
        !resident_takes(ps_cuda(be), dt, n, dinv, 0, j1, cols, col_stride, fetch_slot))
        return PS_ERR_NOT_SUPPORTED;
    return resident_launch(be, dt, n, a, dinv, v, 0, j1, cols, col_stride, &restart, out,
                           1 + j1 * col_stride, fetch_slot);
}

ps_status ps_cuda_gmres_update_x(ps__backend *be, ps__dtype dt, int n, ps__mat v, int ky,
                                 const double *y, ps__vec dinv, ps__vec x) {
    ps_cuda_host_y hy;
    if (x.inc != 1 || (dinv.buf && dinv.inc != 1) || !host_y(ky, y, &hy))
        return PS_ERR_NOT_SUPPORTED;
    PS_CUDA_TRY(be,
                ps_cuda_launch_update_x(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, n,
                                        ps_cuda_ptr(dt, v.buf, v.off), v.ld,
                                        dinv.buf ? ps_cuda_ptr(dt, dinv.buf, dinv.off) : NULL,
                                        ps_cuda_ptr(dt, x.buf, x.off), &hy),
                "gmres_update_x kernel");
    return PS_SUCCESS;
}

void ps_cuda_arnoldi_cancel(ps__backend *be) {
    ps_cuda_state *st = ps_cuda(be);
    if (!st->cancel_stream) return;
    /* every launch so far: a kernel stops once the flag reaches its generation. The pinned
     * source only grows, so a copy that reads a later value than it was queued with is right
     * too. A failed copy only lets the steps run to their end (a hint): its error is dropped. */
    *(volatile int *)st->resident_cancel_host = st->resident_generation;
    if (cudaMemcpyAsync(st->resident_cancel_dev, st->resident_cancel_host, sizeof(int),
                        cudaMemcpyHostToDevice, st->cancel_stream) != cudaSuccess)
        cudaGetLastError();
}

ps_status ps_cuda_read_only_matrices(ps__backend *be, int on) {
    ps_cuda(be)->read_only_matrices = on != 0;
    return PS_SUCCESS;
}

ps_status ps_cuda_hold_matrix(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a) {
    ps_cuda_state *st = ps_cuda(be);
    int held = rows > 0 && cols > 0 && a.buf;
    /* the matrix held until now (if a product kept part of it in L2) */
    const void *was = st->held_in_l2 ? st->held_ptr : NULL;
    size_t span = 0;
    if (was)
        span = ((size_t)st->held_ld * (size_t)(st->held_cols - 1) + (size_t)st->held_rows) *
               (st->held_dt == PS__DOUBLE ? sizeof(double) : sizeof(float));
    st->held_in_l2 = 0;
    st->held_ptr = held ? ps_cuda_ptr(dt, a.buf, a.off) : NULL;
    st->held_rows = held ? rows : 0;
    st->held_cols = held ? cols : 0;
    st->held_ld = a.ld;
    st->held_dt = dt;
    /* ... leaves L2 at the normal priority (after the hold has changed, so that a failure here
     * leaves no stale hold behind) */
    if (was)
        PS_CUDA_TRY(be, ps_cuda_launch_l2_normal(st->cur_stream, st->sms, was, span),
                    "L2 priority kernel");
    return PS_SUCCESS;
}

const ps__iter_kernels ps_cuda_iter_kernels = {
    .header = {PS__ITER_KERNELS_ABI, sizeof(ps__iter_kernels)},
    .cg_step = ps_cuda_cg_step,
    .orthonormalize = ps_cuda_orthonormalize,
    .hold_matrix = ps_cuda_hold_matrix,
    .arnoldi_steps = ps_cuda_arnoldi_steps,
    .arnoldi_cancel = ps_cuda_arnoldi_cancel,
    .arnoldi_restart = ps_cuda_arnoldi_restart,
    .gmres_update_x = ps_cuda_gmres_update_x,
    .cg_steps = ps_cuda_cg_steps,
};
