/* BLAS helpers CLBlast lacks or gets wrong, for both precisions: -DPS_DOUBLE selects double,
 * -DPS_WG=<power of two> the work-group size. Offsets are in elements. */
#ifdef PS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#else
typedef float real;
#endif

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
