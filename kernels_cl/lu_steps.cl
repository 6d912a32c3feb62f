/*
 * The LU leaf spread over every compute unit, one launch per column (-DPS_STEP_WG=<power of
 * two> work-items per work-group; 1 on CPU devices).
 *
 * ps_getrf_panel in lu.cl factors a leaf with one work-group, so one compute unit streams the
 * whole leaf for each column. Here the m x n leaf's rows are cut into contiguous chunks, one per
 * work-group, and launch j (j = 0..n-1) takes column j's step on every chunk at once. OpenCL 1.2
 * has no grid-wide barrier, so what a step needs from the other work-groups travels between
 * launches through a small exchange buffer, in two sets written and read alternately:
 *   - each work-group's pivot candidate for the next column: its row index (cand_row, -1 when
 *     it has none) and that row's n values (cand, row g of the set);
 *   - the values of the next column's diagonal row (cand, row G of the set), written by the
 *     work-group that owns it.
 * Launch j reduces the G candidates to the pivot row p (the first largest |a(i,j)|, as idamax
 * and lu.cl choose it), so every work-group knows the pivot row and the old row j without
 * reading rows another work-group may be rewriting in the same launch. The owner of row j
 * writes the pivot row there, the owner of row p writes the old row j there; every row below j
 * is scaled and updated; then each work-group finds its candidate for column j + 1 and
 * publishes it. Launch -1 only publishes the candidates for column 0.
 *
 * The arithmetic is lu.cl's (and LAPACK dgetf2's): a pivot of magnitude at least PS_SAFE_MIN
 * scales by its reciprocal, a smaller one divides, a zero pivot leaves the column unscaled,
 * sets info and still updates with it. Row swaps cover the leaf's n columns.
 */
#define PS_STEP_MAX_N 64 /* PS_CL_STEP_MAX_N in backend_opencl/cl_internal.h */
#define PS_STEP_BATCH 32 /* elements of a row loaded before any is stored */

/* The better of two pivot candidates: larger magnitude, then the lower row (first maximum). */
static int better(real v, int i, real v_best, int i_best) {
    return i >= 0 && (i_best < 0 || v > v_best || (v == v_best && i < i_best));
}

/* Loads row[k * lda] for k = k0 .. k0 + PS_STEP_BATCH - 1 below n into x. */
static void load_batch(real *x, __global const real *row, int lda, int k0, int n) {
#pragma unroll
    for (int t = 0; t < PS_STEP_BATCH; t++)
        if (k0 + t < n) x[t] = row[(size_t)(k0 + t) * lda];
}

/* Copies the n values of row (stride lda) to out, loads before stores (see the update). */
static void copy_row(__global real *out, __global const real *row, int lda, int n) {
    for (int k0 = 0; k0 < n; k0 += PS_STEP_BATCH) {
        real x[PS_STEP_BATCH];
        load_batch(x, row, lda, k0, n);
#pragma unroll
        for (int t = 0; t < PS_STEP_BATCH; t++)
            if (k0 + t < n) out[k0 + t] = x[t];
    }
}

/* The work-group's best of (bv, bi) over its work-items, in red_v / red_i[0]. */
static void reduce_best(__local real *red_v, __local int *red_i, __local int *red_g, real bv,
                        int bi, int bg, int lid) {
    red_v[lid] = bv, red_i[lid] = bi, red_g[lid] = bg;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = PS_STEP_WG / 2; s > 0; s >>= 1) {
        if (lid < s && better(red_v[lid + s], red_i[lid + s], red_v[lid], red_i[lid]))
            red_v[lid] = red_v[lid + s], red_i[lid] = red_i[lid + s], red_g[lid] = red_g[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel __attribute__((reqd_work_group_size(PS_STEP_WG, 1, 1))) void
ps_getrf_step(int m, int n, int j, int chunk, __global real *a, ulong off, int lda,
              __global int *ipiv, ulong ipiv_off, int row_base, __global int *info,
              __global real *cand, __global int *cand_row) {
    __local real urow[PS_STEP_MAX_N]; /* the pivot row, row j after the swap */
    __local real drow[PS_STEP_MAX_N]; /* row j before the swap */
    __local real red_v[PS_STEP_WG];
    __local int red_i[PS_STEP_WG], red_g[PS_STEP_WG];
    const int g = get_group_id(0), groups = get_num_groups(0), lid = get_local_id(0);
    const int r0 = g * chunk, r1 = min(m, r0 + chunk), c = j + 1;
    __global real *base = a + off;
    /* set s holds rows g = 0..groups of n values, then groups candidate indices */
    __global const real *in = cand + (size_t)(j & 1) * (size_t)(groups + 1) * (size_t)n;
    __global const int *in_row = cand_row + (size_t)(j & 1) * (size_t)groups;
    __global real *out = cand + (size_t)((j + 1) & 1) * (size_t)(groups + 1) * (size_t)n;
    __global int *out_row = cand_row + (size_t)((j + 1) & 1) * (size_t)groups;
    /* This work-item's rows are i0, i0 + PS_STEP_WG, ... below r1; it alone writes them in the
     * update and reads them back for the exchange, so no global barrier is needed. Its
     * candidate for column c: cv, ci (-1: none; NaN never counts). */
    const int i0 = max(r0, c) + lid;
    real cv = 0;
    int ci = -1;

    if (j < 0) { /* launch -1: column 0's candidates only */
        for (int i = i0; i < r1; i += PS_STEP_WG) {
            real v = fabs(base[i]);
            if (!isnan(v) && better(v, i, cv, ci)) cv = v, ci = i;
        }
    } else {
        /* The first row's first batch is loaded before the pivot is known, to overlap. */
        real l0 = 0, x0[PS_STEP_BATCH];
        if (i0 < r1) {
            l0 = base[i0 + (size_t)j * lda];
            load_batch(x0, base + i0, lda, j + 1, n);
        }
        /* The pivot: the best of the published candidates (every work-group the same). */
        real bv = 0;
        int bi = -1, bg = -1;
        for (int h = lid; h < groups; h += PS_STEP_WG) {
            int i = in_row[h];
            real v = fabs(in[(size_t)h * n + j]); /* loaded whatever i, to overlap */
            if (better(v, i, bv, bi)) bv = v, bi = i, bg = h;
        }
        reduce_best(red_v, red_i, red_g, bv, bi, bg, lid);
        /* No candidate at all (only NaN below the diagonal): row j stays, as idamax keeps it.
         * A zero pivot moves nothing either; row j itself is then the U row. */
        int p = red_i[0] >= 0 ? red_i[0] : j, slot = red_g[0];
        __global const real *diag = in + (size_t)groups * n;
        __global const real *prow = slot >= 0 ? in + (size_t)slot * n : diag;
        int swap = prow[j] != 0 && p != j;
        for (int k = lid; k < n; k += PS_STEP_WG) {
            drow[k] = diag[k];
            urow[k] = swap ? prow[k] : diag[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        real pivot = urow[j];
        if (g == 0 && lid == 0) {
            ipiv[ipiv_off + j] = row_base + (swap ? p : j);
            if (pivot == 0 && info[0] == 0) info[0] = row_base + j + 1;
        }
        if (swap && j >= r0 && j < r1)
            for (int k = lid; k < n; k += PS_STEP_WG) base[j + (size_t)k * lda] = urow[k];
        int by_reciprocal = fabs(pivot) >= PS_SAFE_MIN;
        real r = by_reciprocal ? 1 / pivot : 1;
        for (int i = i0; i < r1; i += PS_STEP_WG) {
            __global real *row = base + i;
            int moved = swap && i == p; /* row p receives the old row j */
            if (moved)
                for (int k = 0; k < j; k++) row[(size_t)k * lda] = drow[k];
            real l = i == i0 ? l0 : row[(size_t)j * lda];
            if (moved) l = drow[j];
            /* A batch's loads all go before its stores: the compiler cannot tell that they do
             * not alias, and a round trip per element made a launch 11 us long on the H100. */
            for (int k0 = j + 1; k0 < n || k0 == j + 1; k0 += PS_STEP_BATCH) {
                real x[PS_STEP_BATCH];
                if (i == i0 && k0 == j + 1) {
#pragma unroll
                    for (int t = 0; t < PS_STEP_BATCH; t++) x[t] = x0[t];
                } else {
                    load_batch(x, row, lda, k0, n);
                }
                if (moved)
#pragma unroll
                    for (int t = 0; t < PS_STEP_BATCH; t++)
                        if (k0 + t < n) x[t] = drow[k0 + t];
                if (k0 == j + 1) {
                    if (pivot != 0) l = by_reciprocal ? l * r : l / pivot;
                    row[(size_t)j * lda] = l;
                }
#pragma unroll
                for (int t = 0; t < PS_STEP_BATCH; t++)
                    if (k0 + t < n) {
                        real v = x[t] - l * urow[k0 + t];
                        row[(size_t)(k0 + t) * lda] = v;
                        if (k0 + t == c && !isnan(fabs(v)) && better(fabs(v), i, cv, ci))
                            cv = fabs(v), ci = i;
                    }
            }
        }
    }

    /* Publish this work-group's candidate for column c, and row c if it is ours: each copied
     * by the work-item that owns the row. */
    if (c >= n) return;
    reduce_best(red_v, red_i, red_g, cv, ci, 0, lid);
    int best = red_i[0];
    if (lid == 0) out_row[g] = best;
    if (best >= 0 && (best - i0) % PS_STEP_WG == 0 && best >= i0)
        copy_row(out + (size_t)g * n, base + best, lda, n);
    if (c >= r0 && c < r1 && c == i0) copy_row(out + (size_t)groups * n, base + c, lda, n);
}
