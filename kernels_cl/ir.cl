/* Mixed-precision refinement kernels (-DPS_DOUBLE selects double): precision conversion with
 * LAPACK dlag2s's overflow test, and the row sums of the infinity norm. The conversions between
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
