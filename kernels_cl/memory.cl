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
