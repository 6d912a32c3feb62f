/* The Cholesky diagonal-block kernel for both precisions: -DPS_DOUBLE selects double, -DPS_WG
 * the work-group size. Offsets are in elements. */

/* The largest block (the backend's potrf_width): 32 x 32 in local memory, 8 KiB in double,
 * well inside the 32 KiB every OpenCL device offers. */
#define PS_POTRF_MAX 32

/* Unblocked right-looking Cholesky of an n x n block by one work-group, in local memory, with
 * the CPU oracle's operations in its order. The upper case is factored as the lower factor of
 * its transpose. A nonzero info on entry (an earlier block failed) makes it do nothing; a
 * pivot that is not positive stops it and records index_base + j + 1. */
__kernel __attribute__((reqd_work_group_size(PS_WG, 1, 1))) void
ps_potrf_panel(int lower, int n, __global real *a, ulong off, int lda, __global int *info,
               int index_base) {
    __local real s[PS_POTRF_MAX * PS_POTRF_MAX];
    __local int failed;
    if (info[0] != 0) return; /* the same value for every work-item */
    int lid = get_local_id(0);
    __global real *a0 = a + off;
    for (int e = lid; e < n * n; e += PS_WG) {
        int i = e % n, j = e / n;
        if (i >= j) s[e] = lower ? a0[i + (ulong)j * lda] : a0[j + (ulong)i * lda];
    }
    if (lid == 0) failed = -1;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int j = 0; j < n; j++) {
        real d = s[j + j * n];
        if (!(d > 0)) { /* every work-item read the same d: a uniform exit */
            if (lid == 0) failed = j;
            break;
        }
        real r = sqrt(d);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) s[j + j * n] = r;
        for (int i = j + 1 + lid; i < n; i += PS_WG) s[i + j * n] /= r;
        barrier(CLK_LOCAL_MEM_FENCE);
        int m = n - j - 1;
        for (int e = lid; e < m * m; e += PS_WG) {
            int i = j + 1 + e % m, k = j + 1 + e / m;
            if (i >= k) s[i + k * n] -= s[i + j * n] * s[k + j * n];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int e = lid; e < n * n; e += PS_WG) {
        int i = e % n, j = e / n;
        if (i >= j) {
            if (lower)
                a0[i + (ulong)j * lda] = s[e];
            else
                a0[j + (ulong)i * lda] = s[e];
        }
    }
    if (lid == 0 && failed >= 0) info[0] = index_base + failed + 1;
}
