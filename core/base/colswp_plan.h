/*
 * The plan of the column interchanges (the vtable's colswp) as cycle rotations, shared by the GPU
 * backends (header only: backends are self-contained modules).
 *
 * The interchanges compose to one permutation: column j must end with what column src[j] holds
 * now. A cycle j0 -> j1 -> ... -> j(m-1) (j(t+1) = src[j(t)]) is rotated by writing, in order,
 * column j(t) from column j(t+1) and finally j(m-1) from the old j0. The list of cycles is cut
 * into segments of at most S entries, each processed in order by one thread per row: cycles of
 * up to S entries stay whole inside a segment (the thread keeps the old j0 itself), longer ones
 * are cut into pieces, and the first column of every piece is saved before any moves (the
 * previous piece's last entry, or the cycle's end, reads it from there). Every column is then
 * read once before it is written, whatever order the segments run in.
 *
 * Entry e moves column src[e] (>= 0), the kept first column (-1) or saved column -2 - src[e]
 * into column dst[e]; dst[e] < 0 (column -dst[e] - 1) starts a whole cycle: keep that column's
 * old value first.
 */
#ifndef PS_CORE_COLSWP_PLAN_H
#define PS_CORE_COLSWP_PLAN_H

#include "backend.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ps__colswp_plan {
    int32_t *words; /* dst[e] (entries), src[e] (entries), seg[nseg + 1], saved[nsave] */
    int entries, nseg, nsave;
} ps__colswp_plan;

/* Segment length: a few hundred entries per thread at large n, shorter at small n so that the
 * rows x segments grid still fills the GPU (and the tests reach the cut cycles). */
static inline int ps__colswp_segment_length(int columns) {
    int s = columns / 64;
    return s < 8 ? 8 : s > 256 ? 256 : s;
}

/* Builds the plan from the interchanges piv[0..count) of columns k1.. (order as colswp's
 * forward). ncols: one more than the largest column named. Returns 0, or -1 out of memory. */
static inline int ps__colswp_make_plan(const int32_t *piv, int count, int k1, int forward,
                                       int ncols, ps__colswp_plan *plan) {
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
    const int S = ps__colswp_segment_length(ncols);
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

/* The plan's words: dst and src (entries each), seg (nseg + 1), saved (nsave). */
static inline size_t ps__colswp_plan_words(const ps__colswp_plan *plan) {
    return 2 * (size_t)plan->entries + (size_t)plan->nseg + 1 + (size_t)plan->nsave;
}

/* The plan of colswp's interchanges piv[0..count) of columns k1.. as read from the device
 * (piv is freed here). plan->words is the caller's to free; NULL when nothing moves. */
static inline ps_status ps__colswp_plan_pivots(ps__backend *be, int32_t *piv, int count, int k1,
                                               int forward, ps__colswp_plan *plan) {
    memset(plan, 0, sizeof *plan);
    int ncols = k1 + count;
    for (int t = 0; t < count; t++) {
        if (piv[t] < 0) {
            int bad = piv[t];
            free(piv);
            return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                    "colswp: pivot %d of column %d is negative", bad, k1 + t);
        }
        if (piv[t] >= ncols) ncols = piv[t] + 1;
    }
    int failed = ps__colswp_make_plan(piv, count, k1, forward, ncols, plan);
    free(piv);
    if (failed)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "colswp: out of host memory");
    if (plan->entries == 0) {
        free(plan->words);
        plan->words = NULL;
    }
    return PS_SUCCESS;
}

#endif
