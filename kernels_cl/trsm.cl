/* The diagonal blocks of the OpenCL backend's blocked triangular solve (backend_opencl/cl_trsm.c),
 * for both precisions: -DPS_DOUBLE selects double. A program of its own: its fully unrolled
 * substitution takes seconds to compile on some drivers (NVIDIA's: 5-7 s), which callers that
 * never solve a triangle (the iterative solvers, gemv, iamax) should not pay. */

/* Element (i,k) of op(T) for T at t (leading dimension ldt): T(i,k), or T(k,i) when trans. */
#define PS_OPT(t, ldt, trans, i, k)                                                                \
    ((trans) ? (t)[(ulong)(k) + (ulong)(i) * (ulong)(ldt)]                                         \
             : (t)[(ulong)(i) + (ulong)(k) * (ulong)(ldt)])

/* Diagonal blocks of the blocked trsm (backend_opencl/cl_trsm.c) are at most PS_TRSM_BLOCK. */
#define PS_TRSM_BLOCK 64 /* PS_CL_TRSM_BLOCK in cl_trsm.c */
#define PS_TRSM_LOADS 16 /* triangle elements a work-item loads at once */

/*
 * Every diagonal-block solve as a forward substitution on a lower triangle: the block's system
 * M x = b, M = op(T) (left) or op(T)^T (right: x op(T) = b), becomes L y = c with L[i * B + k]
 * (B = PS_TRSM_BLOCK) in local memory, the unknowns reversed when M is upper triangular, and
 * rows past bs of the identity (so a padded y stays 0). The diagonal holds reciprocals (1 for
 * unit diagonals): a division on the substitution's critical path, once per unknown, cost more
 * than the multiply-adds beside it. All work-items of the group take part.
 */
static void forward_lower_block(__local real *L, int upper, int mtrans, int unit, int bs,
                                __global const real *t, int ldt, int lid, int items) {
    /* PS_TRSM_LOADS elements per work-item are loaded before any is stored: the compiler does
     * not reorder global loads across local stores, and one round trip per element made this
     * kernel 30 us long on the H100 */
    for (int e0 = lid; e0 < PS_TRSM_BLOCK * PS_TRSM_BLOCK; e0 += items * PS_TRSM_LOADS) {
        real v[PS_TRSM_LOADS];
#pragma unroll
        for (int u = 0; u < PS_TRSM_LOADS; u++) {
            int e = e0 + u * items;
            int i = e % PS_TRSM_BLOCK, k = e / PS_TRSM_BLOCK; /* i fastest: coalesced reads */
            v[u] = i == k ? 1 : 0;
            if (e < PS_TRSM_BLOCK * PS_TRSM_BLOCK && i < bs && k <= i && !(unit && i == k)) {
                int si = upper ? bs - 1 - i : i, sk = upper ? bs - 1 - k : k;
                v[u] = PS_OPT(t, ldt, mtrans, si, sk);
                if (i == k) v[u] = 1 / v[u];
            }
        }
#pragma unroll
        for (int u = 0; u < PS_TRSM_LOADS; u++) {
            int e = e0 + u * items;
            if (e < PS_TRSM_BLOCK * PS_TRSM_BLOCK)
                L[(e % PS_TRSM_BLOCK) * PS_TRSM_BLOCK + e / PS_TRSM_BLOCK] = v[u];
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/*
 * The diagonal-block solve of the blocked trsm: op(T) X = B (left) or X op(T) = B (right) for a
 * bs x bs triangular block T (bs <= PS_TRSM_BLOCK), in place in B, by substitution in the
 * working precision (backward stable, unlike solves through inverted diagonal blocks). lower:
 * op(T) is lower triangular. One work-item per column of B (left) or per row (right), count of
 * them, in groups of PS_TRSM_BLOCK sharing the triangle in local memory; each holds its vector
 * in registers (loaded all at once: one round trip, not one per element).
 */
__kernel __attribute__((reqd_work_group_size(PS_TRSM_BLOCK, 1, 1))) void
ps_trsm_diag(int right, int lower, int trans, int unit, int bs, int count, __global const real *t,
             ulong t_off, int ldt, __global real *b, ulong b_off, int ldb) {
    __local real L[PS_TRSM_BLOCK * PS_TRSM_BLOCK];
    int w = get_global_id(0), lid = get_local_id(0);
    /* M = op(T) or op(T)^T; it is upper when op(T) is upper (left) or lower (right) */
    int upper = right ? lower : !lower;
    forward_lower_block(L, upper, right ? !trans : trans, unit, bs, t + t_off, ldt, lid,
                        PS_TRSM_BLOCK);
    /* work-items past count load a valid vector and store nothing */
    int wc = min(w, count - 1);
    __global real *x0 = right ? b + b_off + (ulong)wc : b + b_off + (ulong)wc * (ulong)ldb;
    ulong step = right ? (ulong)ldb : 1;
    real y[PS_TRSM_BLOCK];
#pragma unroll
    for (int i = 0; i < PS_TRSM_BLOCK; i++)
        y[i] = i < bs ? x0[(ulong)(upper ? bs - 1 - i : i) * step] : 0;
        /* by columns, as LAPACK's trsm: each unknown, once divided, is subtracted from all later
         * ones, which are independent of each other (a row-by-row dot product chains every
         * multiply-add, and took 30 us per block on the H100) */
#pragma unroll
    for (int k = 0; k < PS_TRSM_BLOCK; k++) {
        y[k] *= L[k * PS_TRSM_BLOCK + k];
#pragma unroll
        for (int i = k + 1; i < PS_TRSM_BLOCK; i++) y[i] -= L[i * PS_TRSM_BLOCK + k] * y[k];
    }
    if (w < count)
#pragma unroll
        for (int i = 0; i < PS_TRSM_BLOCK; i++)
            if (i < bs) x0[(ulong)(upper ? bs - 1 - i : i) * step] = y[i];
}
