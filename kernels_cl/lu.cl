/*
 * LU kernels for both precisions: -DPS_DOUBLE selects double, -DPS_WG=<power of two> the
 * work-group size of the panel kernel. Offsets are in elements; pivots are 0-based int32.
 */

/* LAPACK laswp: one work-item per column applies all interchanges of that column in order
 * (forward, or reversed when forward is 0). Row k is swapped with row ipiv[k - k1]. */
__kernel void ps_laswp(int ncols, __global real *a, ulong off, int lda, int k1, int k2,
                       __global const int *ipiv, ulong ipiv_off, int forward) {
    int j = get_global_id(0);
    if (j >= ncols) return;
    __global real *col = a + off + (ulong)j * (ulong)lda;
    __global const int *piv = ipiv + ipiv_off;
    for (int t = 0; t < k2 - k1; t++) {
        int k = forward ? k1 + t : k2 - 1 - t;
        int p = piv[k - k1];
        if (p != k) {
            real tmp = col[k];
            col[k] = col[p];
            col[p] = tmp;
        }
    }
}

/*
 * Unblocked LU with partial pivoting of an m x n panel (m >= n, n small) by ONE work-group
 * of PS_WG work-items (1 on CPU devices), so the whole panel is factored on the device in one
 * launch: no host round trip per column. Every barrier is reached by the whole work-group. Per
 * column: a work-group reduction finds the first largest |a(i,j)|, the rows are swapped across the
 * panel, the column is scaled and the rank-1 update applied. Matches LAPACK dgetf2 (and the CPU
 * oracle), including its handling of tiny and zero pivots.
 */
__kernel __attribute__((reqd_work_group_size(PS_WG, 1, 1))) void
ps_getrf_panel(int m, int n, __global real *a, ulong off, int lda, __global int *ipiv,
               ulong ipiv_off, int row_base, __global int *info) {
    __local real best_val[PS_WG];
    __local int best_row[PS_WG];
    int lid = get_local_id(0);
    __global real *base = a + off;
    __global int *piv = ipiv + ipiv_off;
    int steps = min(m, n);
    for (int j = 0; j < steps; j++) {
        __global real *col = base + (ulong)j * (ulong)lda;
        real bv = -1;
        int bi = m;
        for (int i = j + lid; i < m; i += PS_WG) {
            real v = fabs(col[i]);
            if (v > bv) {
                bv = v;
                bi = i;
            }
        }
        best_val[lid] = bv;
        best_row[lid] = bi;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = PS_WG / 2; s > 0; s >>= 1) {
            if (lid < s) {
                real v2 = best_val[lid + s];
                int i2 = best_row[lid + s];
                if (v2 > best_val[lid] || (v2 == best_val[lid] && i2 < best_row[lid])) {
                    best_val[lid] = v2;
                    best_row[lid] = i2;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        /* Work-item 0 publishes the pivot row and value through local memory. */
        if (lid == 0) {
            int p0 = best_row[0];
            best_val[0] = base[p0 + (ulong)j * (ulong)lda];
            piv[j] = row_base + p0;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        int p = best_row[0];
        real pivot = best_val[0];
        if (pivot != 0 && p != j)
            for (int k = lid; k < n; k += PS_WG) {
                __global real *ck = base + (ulong)k * (ulong)lda;
                real t = ck[j];
                ck[j] = ck[p];
                ck[p] = t;
            }
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (pivot == 0 && lid == 0 && info[0] == 0) info[0] = row_base + j + 1;
        /* Scaling and update in one pass over the rows below (each work-item its own rows; row
         * j of the columns to the right is only read): a zero pivot leaves the column unscaled,
         * as LAPACK does, and still updates with it. */
        int by_reciprocal = fabs(pivot) >= PS_SAFE_MIN;
        real r = by_reciprocal ? 1 / pivot : 1;
        for (int i = j + 1 + lid; i < m; i += PS_WG) {
            real l = col[i];
            if (pivot != 0) l = by_reciprocal ? l * r : l / pivot;
            col[i] = l;
            for (int k = j + 1; k < n; k++) {
                __global real *ck = base + (ulong)k * (ulong)lda;
                ck[i] -= l * ck[j];
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}
