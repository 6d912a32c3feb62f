/* Memory helpers for both precisions: -DPS_DOUBLE selects double. Offsets are in elements. */

/* a(i,j) = value for the rows x cols view; one work-item per element. */
__kernel void ps_fill(int rows, int cols, real value, __global real *a, ulong off, int lda) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i < rows && j < cols) a[off + (ulong)i + (ulong)j * (ulong)lda] = value;
}

/* a(i,j) *= alpha for the rows x cols view; one work-item per element. */
__kernel void ps_scale2d(int rows, int cols, real alpha, __global real *a, ulong off, int lda) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i < rows && j < cols) a[off + (ulong)i + (ulong)j * (ulong)lda] *= alpha;
}

/* dst(i,j) = src(perm[i], j) for the rows x cols view dst (the vtable's permute_rows, a
 * gather); one work-item per element. */
__kernel void ps_permute_rows(int rows, int cols, __global const int *perm, ulong perm_off,
                              __global const real *src, ulong soff, int lds, __global real *dst,
                              ulong doff, int ldd) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i < rows && j < cols)
        dst[doff + (ulong)i + (ulong)j * (ulong)ldd] =
            src[soff + (ulong)perm[perm_off + i] + (ulong)j * (ulong)lds];
}

/* dst(idx[i], j) = src(i, j) where idx[i] >= 0 (the vtable's scatter_rows). */
__kernel void ps_scatter_rows(int rows, int cols, __global const int *idx, ulong idx_off,
                              __global const real *src, ulong soff, int lds, __global real *dst,
                              ulong doff, int ldd) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i < rows && j < cols) {
        int r = idx[idx_off + i];
        if (r >= 0)
            dst[doff + (ulong)r + (ulong)j * (ulong)ldd] =
                src[soff + (ulong)i + (ulong)j * (ulong)lds];
    }
}
