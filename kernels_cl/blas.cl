/* BLAS helpers CLBlast lacks or gets wrong, for both precisions: -DPS_DOUBLE selects double,
 * -DPS_WG=<power of two> the work-group size. Offsets are in elements. The triangular solve's
 * diagonal blocks are trsm.cl's. */

/* BLAS i?amax by one work-group: the 0-based index of the FIRST element of largest |x_i|
 * (CLBlast 1.5 returns buffer positions, and 0 for an all-zero vector). NaN never wins. */
__kernel __attribute__((reqd_work_group_size(PS_WG, 1, 1))) void
ps_iamax(int n, __global const real *x, ulong off, int inc, __global int *result) {
    __local real best_val[PS_WG];
    __local int best_idx[PS_WG];
    int lid = get_local_id(0);
    real bv = -1;
    int bi = n;
    for (int i = lid; i < n; i += PS_WG) {
        real v = fabs(x[off + (ulong)i * (ulong)inc]);
        if (v > bv) {
            bv = v;
            bi = i;
        }
    }
    best_val[lid] = bv;
    best_idx[lid] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = PS_WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            real v2 = best_val[lid + s];
            int i2 = best_idx[lid + s];
            if (v2 > best_val[lid] || (v2 == best_val[lid] && i2 < best_idx[lid])) {
                best_val[lid] = v2;
                best_idx[lid] = i2;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) result[0] = best_idx[0] < n ? best_idx[0] : 0;
}

/* y = alpha x + beta y (the iterative solvers' direction updates); one work-item per element. */
__kernel void ps_axpby(int n, real alpha, __global const real *x, ulong xoff, int incx, real beta,
                       __global real *y, ulong yoff, int incy) {
    int i = get_global_id(0);
    if (i < n) {
        ulong iy = yoff + (ulong)i * incy;
        y[iy] = alpha * x[xoff + (ulong)i * incx] + beta * y[iy];
    }
}

/* y_i *= x_i (the Jacobi step and preconditioner). */
__kernel void ps_vmul(int n, __global const real *x, ulong xoff, int incx, __global real *y,
                      ulong yoff, int incy) {
    int i = get_global_id(0);
    if (i < n) y[yoff + (ulong)i * incy] *= x[xoff + (ulong)i * incx];
}

/* y = alpha A x + beta y for A not transposed (backend_opencl/cl_gemv.c). ps_gemv_n_part: a
 * work-group is PS_GEMV_ROWS rows times the per_slice columns of slice get_group_id(1); work-item
 * (r, q) takes row r and the slice's columns q, q + PS_GEMV_PARTS, ..., so each load of a group
 * is a coalesced run of rows; the parts are summed in order into part[slice * m + row]. */
#define PS_GEMV_ROWS  64
#define PS_GEMV_PARTS 4
__kernel __attribute__((reqd_work_group_size(PS_GEMV_ROWS, PS_GEMV_PARTS, 1))) void
ps_gemv_n_part(int m, int n, int per_slice, __global const real *a, ulong ao, int lda,
               __global const real *x, ulong xo, __global real *part) {
    __local real red[PS_GEMV_PARTS][PS_GEMV_ROWS];
    int r = get_local_id(0), q = get_local_id(1), row = get_group_id(0) * PS_GEMV_ROWS + r;
    int slice = get_group_id(1), c0 = slice * per_slice, c1 = min(n, c0 + per_slice);
    real acc = 0;
    if (row < m)
        for (int c = c0 + q; c < c1; c += PS_GEMV_PARTS)
            acc += a[ao + (ulong)row + (ulong)c * (ulong)lda] * x[xo + c];
    red[q][r] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (q == 0 && row < m) {
        real s = red[0][r];
        for (int p = 1; p < PS_GEMV_PARTS; p++) s += red[p][r];
        part[(ulong)slice * (ulong)m + row] = s;
    }
}

/* y = alpha (the slices' sums, in slice order) + beta y; y is not read when beta = 0. */
__kernel void ps_gemv_n_sum(int m, int slices, real alpha, real beta, __global const real *part,
                            __global real *y, ulong yo) {
    int row = get_global_id(0);
    if (row >= m) return;
    real s = 0;
    for (int k = 0; k < slices; k++) s += part[(ulong)k * (ulong)m + row];
    y[yo + row] = beta == 0 ? alpha * s : alpha * s + beta * y[yo + row];
}
