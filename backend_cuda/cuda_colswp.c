/*
 * Column interchanges (the vtable's colswp) on CUDA, planned on the host.
 *
 * getri and gjinv end by undoing n interchanges, last first. Applied one after the other, a
 * thread per row, each swap waits for the previous one's stores: 10 ms at n = 16384 on an H100
 * with the GPU otherwise idle (a sixteenth of gjinv's time), and the interchanges' order admits
 * no other parallelism. Their composition is one permutation, though, and a permutation moves
 * every column once. The host reads the pivots (the GPU has finished with them: this is the
 * last step of both callers), composes them, and lists the permutation's cycles; the GPU then
 * rotates the cycles with a thread per row and per segment of the list, every access coalesced.
 * A single GPU thread would need about 1 ms for the O(n) sequential plan; the host, a few
 * microseconds.
 *
 * The plan: core/base/colswp_plan.h; the kernels: cuda_gj_kernels.cu.
 *
 * A short list (a block step's interchanges: gjinv's transposed layout swaps columns at every
 * step, core/gj/gj.c) never waits for the host: the host read would stall the look-ahead's other
 * lane at every step (measurement showed 0.66x -> 0.85x of cuSOLVER's inverse with the plan
 * read per step). The laswp kernel's permutation, composed on the device in each block
 * (cuda_laswp.cu), moves the columns instead.
 */
#include "../core/base/colswp_plan.h"
#include "cuda_internal.h"

ps_status ps_cuda_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                         const void *ipiv, size_t ipiv_off, int forward) {
    if (nrows <= 0 || k2 <= k1) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    cudaStream_t s = st->cur_stream;
    int count = k2 - k1;
    if (count <= PS_CUDA_COLSWP_ON_DEVICE) {
        PS_CUDA_TRY(be,
                    ps_cuda_launch_colswp_steps(s, dt == PS__DOUBLE, nrows,
                                                ps_cuda_ptr(dt, a.buf, a.off), a.ld, k1, k2,
                                                (const int *)ipiv + ipiv_off, forward),
                    "colswp kernel");
        return PS_SUCCESS;
    }
    int32_t *piv = malloc(sizeof(int32_t) * (size_t)count);
    if (!piv) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "colswp: out of host memory");
    /* 4 bytes per interchange; pageable memory is enough for a copy this size */
    cudaError_t err = cudaMemcpyAsync(piv, (const int32_t *)ipiv + ipiv_off,
                                      sizeof(int32_t) * (size_t)count, cudaMemcpyDeviceToHost, s);
    if (!err) err = cudaStreamSynchronize(s);
    if (err) {
        free(piv);
        return ps_cuda_fail(be, err, "colswp: reading the pivots");
    }
    ps__colswp_plan plan;
    PS__TRY(ps__colswp_plan_pivots(be, piv, count, k1, forward, &plan));
    if (!plan.words) return PS_SUCCESS; /* the interchanges cancel out */
    size_t es = ps__dtype_size(dt);
    size_t words = ps__colswp_plan_words(&plan);
    size_t word_bytes = (sizeof(int32_t) * words + 15) / 16 * 16;
    void *dev = NULL;
    err = ps_cuda_malloc_async(ps_cuda(be), (void **)&dev,
                               word_bytes + es * (size_t)plan.nsave * nrows, s);
    /* pageable source: cudaMemcpyAsync returns once it has copied it into its own staging */
    if (!err)
        err = cudaMemcpyAsync(dev, plan.words, sizeof(int32_t) * words, cudaMemcpyHostToDevice, s);
    free(plan.words);
    if (!err) {
        const int32_t *w = dev;
        err = ps_cuda_launch_colswp(
            s, dt == PS__DOUBLE, nrows, ps_cuda_ptr(dt, a.buf, a.off), a.ld, plan.entries,
            plan.nseg, plan.nsave, w, w + plan.entries, w + 2 * (size_t)plan.entries,
            w + 2 * (size_t)plan.entries + plan.nseg + 1, (char *)dev + word_bytes);
    }
    if (dev) {
        cudaError_t f = cudaFreeAsync(dev, s);
        if (!err) err = f;
    }
    if (err) return ps_cuda_fail(be, err, "colswp");
    return PS_SUCCESS;
}
