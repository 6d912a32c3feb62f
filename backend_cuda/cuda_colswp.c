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
 * The plan. Column j must end with what column src[j] holds now. A cycle j0 -> j1 -> ... ->
 * j(m-1) (j(t+1) = src[j(t)]) is rotated by writing, in order, column j(t) from column j(t+1)
 * and finally j(m-1) from the old j0. The list of cycles is cut into segments of at most S
 * entries, each processed in order by one thread per row: cycles of up to S entries stay whole
 * inside a segment (the thread keeps the old j0 itself), longer ones are cut into pieces, and the
 * first column of every piece is saved before any moves (the previous piece's last entry, or the
 * cycle's end, reads it from there).
 */
#include "cuda_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct colswp_plan {
    int32_t *words; /* dst[e] (entries), src[e] (entries), seg[nseg + 1], saved[nsave] */
    int entries, nseg, nsave;
} colswp_plan;

/* Segment length: a few hundred entries per thread at large n, shorter at small n so that the
 * rows x segments grid still fills the GPU (and the tests reach the cut cycles). */
static int segment_length(int columns) {
    int s = columns / 64;
    return s < 8 ? 8 : s > 256 ? 256 : s;
}

/* Builds the plan from the interchanges piv[0..count) of columns k1.. (order as colswp's
 * forward). ncols: one more than the largest column named. Returns 0, or -1 out of memory. */
static int make_plan(const int32_t *piv, int count, int k1, int forward, int ncols,
                     colswp_plan *plan) {
    memset(plan, 0, sizeof *plan);
    int32_t *src = malloc(sizeof(int32_t) * (size_t)ncols);
    unsigned char *seen = calloc((size_t)ncols, 1);
    /* at most ncols entries, ncols segments (one per cycle or piece) + 1, ncols saved columns */
    plan->words = malloc(sizeof(int32_t) * (4 * (size_t)ncols + 1));
    if (!src || !seen || !plan->words) {
        free(src), free(seen), free(plan->words);
        plan->words = NULL;
        return -1;
    }
    for (int j = 0; j < ncols; j++) src[j] = j;
    for (int t = 0; t < count; t++) {
        int s = forward ? t : count - 1 - t, k = k1 + s, p = piv[s];
        int32_t v = src[k];
        src[k] = src[p];
        src[p] = v;
    }
    const int S = segment_length(ncols);
    int32_t *dst = plan->words, *from = dst + ncols, *seg = from + ncols;
    int32_t *saved = seg + ncols + 1;
    int e = 0, nseg = 0, nsave = 0;
    seg[0] = 0;
    for (int j0 = 0; j0 < ncols; j0++) {
        if (src[j0] == j0 || seen[j0]) continue;
        int m = 0;
        for (int j = j0; !seen[j]; j = src[j]) seen[j] = 1, m++;
        if (m <= S) { /* whole, in the open segment unless it would overflow it */
            if (e - seg[nseg] + m > S) seg[++nseg] = e;
            int j = j0;
            for (int t = 0; t < m; t++, e++, j = src[j]) {
                dst[e] = t == 0 ? -(j + 1) : j; /* negative: keep the old value first */
                from[e] = t == m - 1 ? -1 : src[j];
            }
        } else { /* pieces of S, each its own segment; piece q's first column is saved[first+q] */
            if (e > seg[nseg]) seg[++nseg] = e;
            int first = nsave, pieces = (m + S - 1) / S, j = j0;
            for (int q = 0; q < pieces; q++) {
                int len = q == pieces - 1 ? m - q * S : S;
                saved[nsave++] = j;
                for (int t = 0; t < len; t++, e++, j = src[j]) {
                    dst[e] = j;
                    /* a piece's last entry reads the next piece's saved first column (the
                     * cycle's first for the last piece): code -2 - slot */
                    from[e] = t < len - 1 ? src[j] : -2 - (first + (q + 1) % pieces);
                }
                seg[++nseg] = e;
            }
        }
    }
    if (e > seg[nseg]) seg[++nseg] = e;
    /* pack: dst, src, seg, saved contiguous for one upload */
    memmove(dst + e, from, sizeof(int32_t) * (size_t)e);
    memmove(dst + 2 * (size_t)e, seg, sizeof(int32_t) * (size_t)(nseg + 1));
    memmove(dst + 2 * (size_t)e + nseg + 1, saved, sizeof(int32_t) * (size_t)nsave);
    plan->entries = e;
    plan->nseg = nseg;
    plan->nsave = nsave;
    free(src), free(seen);
    return 0;
}

ps_status ps_cuda_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                         const void *ipiv, size_t ipiv_off, int forward) {
    if (nrows <= 0 || k2 <= k1) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    cudaStream_t s = st->cur_stream;
    int count = k2 - k1;
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
    int ncols = k2;
    for (int t = 0; t < count; t++) {
        if (piv[t] < 0) {
            int bad = piv[t];
            free(piv);
            return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                    "colswp: pivot %d of column %d is negative", bad, k1 + t);
        }
        if (piv[t] >= ncols) ncols = piv[t] + 1;
    }
    colswp_plan plan;
    int planned = make_plan(piv, count, k1, forward, ncols, &plan);
    free(piv);
    if (planned)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "colswp: out of host memory");
    if (plan.entries == 0) { /* the interchanges cancel out */
        free(plan.words);
        return PS_SUCCESS;
    }
    size_t es = ps__dtype_size(dt);
    size_t words = 2 * (size_t)plan.entries + plan.nseg + 1 + plan.nsave;
    size_t word_bytes = (sizeof(int32_t) * words + 15) / 16 * 16;
    void *dev = NULL;
    err = cudaMallocAsync(&dev, word_bytes + es * (size_t)plan.nsave * nrows, s);
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
