/* BLAS helpers CLBlast lacks or gets wrong, for both precisions: -DPS_DOUBLE selects double,
 * -DPS_WG=<power of two> the work-group size. Offsets are in elements. */

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

/* Element (i,k) of op(T) for T at t (leading dimension ldt): T(i,k), or T(k,i) when trans. */
#define PS_OPT(t, ldt, trans, i, k)                                                                \
    ((trans) ? (t)[(ulong)(k) + (ulong)(i) * (ulong)(ldt)]                                         \
             : (t)[(ulong)(i) + (ulong)(k) * (ulong)(ldt)])

/*
 * The diagonal-block solve of the blocked trsm: op(T) X = B (left) or X op(T) = B (right) for a
 * bs x bs triangular block T, in place in B, by plain substitution in the working precision
 * (backward stable, unlike solves through inverted diagonal blocks). lower: op(T) is lower
 * triangular. One work-item per column of B (left) or per row of B (right); count of them.
 */
__kernel void ps_trsm_diag(int right, int lower, int trans, int unit, int bs, int count,
                           __global const real *t, ulong t_off, int ldt, __global real *b,
                           ulong b_off, int ldb) {
    int w = get_global_id(0);
    if (w >= count) return;
    t += t_off;
    /* x(i) is element i of the column (left) or row (right) this work-item solves */
    __global real *x = right ? b + b_off + (ulong)w : b + b_off + (ulong)w * (ulong)ldb;
    ulong step = right ? (ulong)ldb : 1;
    /* left: x = op(T)^-1 x; right: x = x op(T)^-1, i.e. op(T)^T x' = x', whose triangle is the
     * other one: forward when op(T) is lower (left) or upper (right). */
    int forward = right ? !lower : lower;
    for (int s = 0; s < bs; s++) {
        int i = forward ? s : bs - 1 - s;
        real sum = x[(ulong)i * step];
        if (forward)
            for (int k = 0; k < i; k++)
                sum -= (right ? PS_OPT(t, ldt, trans, k, i) : PS_OPT(t, ldt, trans, i, k)) *
                       x[(ulong)k * step];
        else
            for (int k = i + 1; k < bs; k++)
                sum -= (right ? PS_OPT(t, ldt, trans, k, i) : PS_OPT(t, ldt, trans, i, k)) *
                       x[(ulong)k * step];
        x[(ulong)i * step] = unit ? sum : sum / PS_OPT(t, ldt, trans, i, i);
    }
}

/*
 * The diagonal-block solve of the blocked trsm for a single vector (backend_opencl/cl_trsm.c):
 * op(T) x = x for a bs x bs block (bs <= PS_TRSV_BLOCK), by one work-group of PS_STEP_WG
 * work-items holding x in local memory, column by column: the owner of x(i) divides it, then
 * every work-item subtracts op(T)(r, i) x(i) from its own later rows r. lower: op(T) is lower
 * triangular (solved forward). Substitution in the working precision, as ps_trsm_diag.
 */
#define PS_TRSV_BLOCK 128 /* PS_CL_TRSV_BLOCK in cl_trsm.c */
__kernel __attribute__((reqd_work_group_size(PS_STEP_WG, 1, 1))) void
ps_trsv_diag(int lower, int trans, int unit, int bs, __global const real *t, ulong t_off, int ldt,
             __global real *x, ulong x_off, int incx) {
    __local real xl[PS_TRSV_BLOCK];
    int lid = get_local_id(0);
    t += t_off;
    x += x_off;
    for (int r = lid; r < bs; r += PS_STEP_WG) xl[r] = x[(long)r * incx];
    for (int s = 0; s < bs; s++) {
        int i = lower ? s : bs - 1 - s;
        if (!unit && lid == i % PS_STEP_WG) xl[i] /= PS_OPT(t, ldt, trans, i, i);
        barrier(CLK_LOCAL_MEM_FENCE);
        real xi = xl[i];
        for (int r = lid; r < bs; r += PS_STEP_WG)
            if (lower ? r > i : r < i) xl[r] -= PS_OPT(t, ldt, trans, r, i) * xi;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int r = lid; r < bs; r += PS_STEP_WG) x[(long)r * incx] = xl[r];
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
