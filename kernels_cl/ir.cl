/* Mixed-precision refinement kernels (-DPS_DOUBLE selects double): precision conversion with
 * LAPACK dlag2s's overflow test, the random butterfly transformation, and the row sums of the
 * infinity norm. The conversions between
 * float and double exist in the double program only (a device without fp64 has no double). */

/* dst = alpha * src over rows x cols, one work-item per row of a column chunk; *info = 1 when a
 * result is not finite (beyond the destination's range, or NaN/Inf). */
#define PS_CONVERT_KERNEL(name, S, D, A)                                                           \
    __kernel void name(int rows, int cols, A alpha, __global const S *src, ulong soff, int lds,    \
                       __global D *dst, ulong doff, int ldd, __global int *info, ulong ioff) {     \
        int i = get_global_id(0);                                                                  \
        if (i >= rows) return;                                                                     \
        int bad = 0;                                                                               \
        for (int j = get_global_id(1); j < cols; j += get_global_size(1)) {                        \
            D v = (D)(alpha * src[soff + (ulong)i + (ulong)j * (ulong)lds]);                       \
            bad |= !isfinite(v);                                                                   \
            dst[doff + (ulong)i + (ulong)j * (ulong)ldd] = v;                                      \
        }                                                                                          \
        if (bad) info[ioff] = 1;                                                                   \
    }

PS_CONVERT_KERNEL(ps_convert_same, real, real, real)
#ifdef PS_DOUBLE
PS_CONVERT_KERNEL(ps_convert_d2f, double, float, double)
PS_CONVERT_KERNEL(ps_convert_f2d, float, double, double)
#endif

/* sums[i] = sum_j |a(i,j)|, one work-item per row (the columns walked in order, coalesced across
 * the work-group). */
__kernel void ps_row_sums(int rows, int cols, __global const real *a, ulong off, int lda,
                          __global real *sums) {
    int i = get_global_id(0);
    if (i >= rows) return;
    real s = 0;
    for (int j = 0; j < cols; j++) s += fabs(a[off + (ulong)i + (ulong)j * (ulong)lda]);
    sums[i] = s;
}

#ifdef PS_DOUBLE
/* The butterfly entry (core/backend.h; ps__butterfly_orbit in core/refine/backend_defaults_ir.h is
 * the definition restated here). Slot s of a dimension with q orbits: orbit s's four indices, or
 * one index beyond them; returns the count. */
inline int ps_butterfly_slot(int q, int s, int *idx) {
    if (s >= q) {
        idx[0] = 4 * q + (s - q);
        return 1;
    }
    for (int a = 0; a < 4; a++) idx[a] = s + a * q;
    return 4;
}

inline void ps_butterfly_pair(int transposed, double wa, double wb, double *x, int a, int b,
                              int stride) {
    const double root_half = 0.70710678118654752440; /* sqrt(1/2) */
    double xa = x[a * stride], xb = x[b * stride];
    if (transposed) {
        x[a * stride] = wa * (xa + xb) * root_half;
        x[b * stride] = wb * (xa - xb) * root_half;
    } else {
        x[a * stride] = (wa * xa + wb * xb) * root_half;
        x[b * stride] = (wa * xa - wb * xb) * root_half;
    }
}

/* x = T x (transposed: T^T x) on orbit p of the butterfly of order n with q = n / 4 orbits, the
 * four values at x[0], x[stride], x[2 stride], x[3 stride]. */
inline void ps_butterfly_orbit(__global const double *w, int n, int q, int p, int transposed,
                               double *x, int stride) {
    __global const double *u = w + p, *v = w + n + p;
    if (!transposed) {
        ps_butterfly_pair(0, u[0], u[2 * q], x, 0, 2, stride);
        ps_butterfly_pair(0, u[q], u[3 * q], x, 1, 3, stride);
        ps_butterfly_pair(0, v[0], v[q], x, 0, 1, stride);
        ps_butterfly_pair(0, v[2 * q], v[3 * q], x, 2, 3, stride);
    } else {
        ps_butterfly_pair(1, v[0], v[q], x, 0, 1, stride);
        ps_butterfly_pair(1, v[2 * q], v[3 * q], x, 2, 3, stride);
        ps_butterfly_pair(1, u[0], u[2 * q], x, 0, 2, stride);
        ps_butterfly_pair(1, u[q], u[3 * q], x, 1, 3, stride);
    }
}

/* One work-item per row slot and column slot (the second dimension strides over column slots):
 * its up to 4 x 4 elements are read, transformed on both sides and written, so in place is safe;
 * consecutive work-items take consecutive row slots, so each load is coalesced. x[a + 4 b] holds
 * element (a, b) of the block. */
#define PS_BUTTERFLY_KERNEL(name, S, D)                                                            \
    __kernel void name(int rows, int cols, double alpha, __global const double *left, int qr,      \
                       __global const double *right, int qc, __global const S *src, ulong soff,    \
                       int lds, __global D *dst, ulong doff, int ldd, __global int *info,          \
                       ulong ioff) {                                                               \
        int rs = get_global_id(0);                                                                 \
        if (rs >= rows - 3 * qr) return;                                                           \
        int ri[4], ci[4], nr = ps_butterfly_slot(qr, rs, ri), bad = 0;                             \
        for (int cs = get_global_id(1); cs < cols - 3 * qc; cs += get_global_size(1)) {            \
            int nc = ps_butterfly_slot(qc, cs, ci);                                                \
            double x[16];                                                                          \
            for (int b = 0; b < nc; b++)                                                           \
                for (int a = 0; a < nr; a++)                                                       \
                    x[a + 4 * b] =                                                                 \
                        alpha * (double)src[soff + (ulong)ri[a] + (ulong)ci[b] * (ulong)lds];      \
            if (nr == 4)                                                                           \
                for (int b = 0; b < nc; b++)                                                       \
                    ps_butterfly_orbit(left, rows, qr, rs, 0, x + 4 * b, 1);                       \
            if (nc == 4)                                                                           \
                for (int a = 0; a < nr; a++) ps_butterfly_orbit(right, cols, qc, cs, 1, x + a, 4); \
            for (int b = 0; b < nc; b++)                                                           \
                for (int a = 0; a < nr; a++) {                                                     \
                    D v = (D)x[a + 4 * b];                                                         \
                    bad |= !isfinite(v);                                                           \
                    dst[doff + (ulong)ri[a] + (ulong)ci[b] * (ulong)ldd] = v;                      \
                }                                                                                  \
        }                                                                                          \
        if (bad) info[ioff] = 1;                                                                   \
    }

PS_BUTTERFLY_KERNEL(ps_butterfly_dd, double, double)
PS_BUTTERFLY_KERNEL(ps_butterfly_df, double, float)
PS_BUTTERFLY_KERNEL(ps_butterfly_fd, float, double)
PS_BUTTERFLY_KERNEL(ps_butterfly_ff, float, float)
#endif

#ifdef PS_DOUBLE
#define PS_TRSV_MIXED_BLOCK 64 /* PS_CL_TRSV_MIXED_BLOCK in backend_opencl/cl_ir.c */

/*
 * x = A^-1 x for a float triangle A and a double x, every operation in double (the vtable's
 * trsv_mixed: GMRES-IR's preconditioner with the float factors, no n x n double copy of them).
 * Launch s of the n / B block rows in the solve's order (B = PS_TRSV_MIXED_BLOCK; top down for
 * lower, bottom up for upper): every row of block row s and after subtracts block column s - 1
 * (final since launch s - 1) times x_{s-1}, and then group 0, which holds block row s, solves
 * its diagonal block, so x_s is final. Groups > 0 take B rows each of the block rows after s.
 * A launch per block row, as OpenCL promises no way for a work-group to wait for another.
 */
__kernel __attribute__((reqd_work_group_size(PS_TRSV_MIXED_BLOCK, 1, 1))) void
ps_trsv_mixed_step(int upper, int unit, int n, int s, __global const float *a, ulong aoff, int lda,
                   __global double *x, ulong xoff, int incx) {
    const int B = PS_TRSV_MIXED_BLOCK;
    __local double xprev[PS_TRSV_MIXED_BLOCK], sol[PS_TRSV_MIXED_BLOCK];
    __local float t[PS_TRSV_MIXED_BLOCK * PS_TRSV_MIXED_BLOCK]; /* column-major */
    const int lid = get_local_id(0), grp = get_group_id(0), blocks = (n + B - 1) / B;
    /* block row s's index; group g's block row, g block rows after it in the solve's order */
    const int own = upper ? blocks - 1 - s : s, mine = upper ? own - grp : own + grp;
    const int r0 = own * B, rows = min(B, n - r0), row = mine * B + lid;
    const int live = row < n; /* every group's block row exists: the host sizes the launch */
    __global double *xr = x + xoff + (ulong)(live ? row : 0) * (ulong)incx;
    if (grp == 0) /* the diagonal block, its triangle only (the other one may hold anything) */
        for (int e = lid; e < B * B; e += B) {
            int i = e % B, k = e / B; /* i fastest: coalesced */
            int inside = i < rows && k < rows && (upper ? i < k : i > k);
            t[e] = inside || (i == k && i < rows && !unit)
                       ? a[aoff + (ulong)(r0 + i) + (ulong)(r0 + k) * (ulong)lda]
                       : 0.0f;
        }
    double y = live ? *xr : 0.0;
    /* y -= A(row, block column s - 1) x_{s-1}. Every group passes this barrier and group 0 alone
     * the solve's: with the barrier inside `if (s > 0)` and the other groups returning before the
     * solve, POCL 3.1's kernels wrote zeros (both are valid OpenCL) */
    const int c0 = (upper ? own + 1 : own - 1) * B, cols = s > 0 ? min(B, n - c0) : 0;
    if (lid < cols) xprev[lid] = x[xoff + (ulong)(c0 + lid) * (ulong)incx];
    barrier(CLK_LOCAL_MEM_FENCE); /* and t loaded */
    double acc = 0;
    if (live)
        for (int k = 0; k < cols; k++)
            acc += (double)a[aoff + (ulong)row + (ulong)(c0 + k) * (ulong)lda] * xprev[k];
    y -= acc;
    /* group 0 solves its diagonal block by columns: unknown k, once final, is broadcast through
     * sol and subtracted from the later rows, one barrier a column */
    const int solving = grp == 0 ? rows : 0;
    for (int step = 0; step < solving; step++) {
        const int k = upper ? rows - 1 - step : step;
        if (lid == k) {
            if (!unit) y /= (double)t[k + k * B];
            sol[k] = y;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (upper ? lid < k : lid > k) y -= (double)t[lid + k * B] * sol[k]; /* t: 0 past rows */
    }
    if (live) *xr = y;
}
#define PS_GEMV_MIXED_GROUPS 8 /* PS_CL_GEMV_MIXED_GROUPS in backend_opencl/cl_ir.c */

/*
 * y += alpha A x for a float m x k matrix A and double vectors x, y, every product and sum in
 * double (the vtable's gemv_mixed: the off-diagonal products of GMRES-IR's blocked triangular
 * solves, core/refine/trsv_blocked.c). A work-group is a tile of 32 rows (a work-item a row, so
 * each column is read in one contiguous segment) and PS_GEMV_MIXED_GROUPS column groups, which take
 * every G-th column; their sums meet in local memory, added in group order.
 */
__kernel __attribute__((reqd_work_group_size(32, PS_GEMV_MIXED_GROUPS, 1))) void
ps_gemv_mixed(int m, int k, double alpha, __global const float *a, ulong aoff, int lda,
              __global const double *x, ulong xoff, int incx, __global double *y, ulong yoff,
              int incy) {
    __local double part[PS_GEMV_MIXED_GROUPS][32];
    const int lane = get_local_id(0), g = get_local_id(1);
    const int row = get_group_id(0) * 32 + lane, live = row < m;
    double acc = 0;
    if (live)
        for (int j = g; j < k; j += PS_GEMV_MIXED_GROUPS)
            acc = fma((double)a[aoff + (ulong)row + (ulong)j * (ulong)lda],
                      x[xoff + (ulong)j * (ulong)incx], acc);
    part[g][lane] = acc;
    barrier(CLK_LOCAL_MEM_FENCE); /* on every path (see ps_trsv_mixed_step) */
    if (g == 0 && live) {
        double sum = 0;
        for (int h = 0; h < PS_GEMV_MIXED_GROUPS; h++) sum += part[h][lane];
        y[yoff + (ulong)row * (ulong)incy] += alpha * sum;
    }
}
#endif
