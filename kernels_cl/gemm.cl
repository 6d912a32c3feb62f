/*
 * C = alpha A B + beta C for column-major A (m x k), B (k x n) and C (m x n), neither
 * transposed, at any offsets and leading dimensions.
 *
 * Why not CLBlast's: its fast GEMM kernel needs padded, offset-free operands, so for a block
 * inside a matrix (LU's trailing update, whose C has the whole matrix's leading dimension) it
 * copies C into a workspace and back on every call and A and B as well; its direct kernel avoids
 * the copies but is slower on large products. This kernel reads the operands where they are.
 *
 * A work-group of PS_GEMM_DX x PS_GEMM_DY work-items computes a PS_GEMM_BM x PS_GEMM_BN block of
 * C, each work-item PS_GEMM_TM x PS_GEMM_TN of its elements, rows tx + DX r and columns
 * ty + DY s, so that neighbouring work-items load and store neighbouring rows. The k dimension
 * goes in slices of PS_GEMM_BK: a slice of A (BM x BK) and of B (BK x BN) is staged in local
 * memory, and the next slice is loaded into registers while the current one is multiplied
 * (local memory for two slices would exceed the 48 KB NVIDIA's OpenCL offers a work-group).
 * Elements outside the operands load as zero and nothing outside C is stored. With beta = 0,
 * C is not read (BLAS: it may hold NaN).
 */
/* OWN_GEMM_* in backend_opencl/cl_gemm.c follow these. */
#define PS_GEMM_TM      8
#define PS_GEMM_TN      8
#define PS_GEMM_DX      16
#define PS_GEMM_DY      16
#define PS_GEMM_BK      16
#define PS_GEMM_BM      (PS_GEMM_TM * PS_GEMM_DX)
#define PS_GEMM_BN      (PS_GEMM_TN * PS_GEMM_DY)
#define PS_GEMM_WG      (PS_GEMM_DX * PS_GEMM_DY)
#define PS_GEMM_A_LOADS (PS_GEMM_BM * PS_GEMM_BK / PS_GEMM_WG) /* per work-item and slice */
#define PS_GEMM_B_LOADS (PS_GEMM_BK * PS_GEMM_BN / PS_GEMM_WG)
/* B's slice is stored k-major with a padded row, so that the work-items storing one column's
 * BK elements hit different banks. */
#define PS_GEMM_BN_PAD (PS_GEMM_BN + 1)
#define PS_GEMM_CG     4 /* columns of C read before any is written */

/* Loads this work-item's share of the slice at k0: A element (i, kk) with
 * i = e % BM, kk = e / BM and B element (kk, j) with kk = e % BK, j = e / BK, for
 * e = t + WG l, so that consecutive work-items read consecutive addresses. */
static void load_slice(real *ra, real *rb, int m, int n, int k, int m0, int n0, int k0, int t,
                       __global const real *a, int lda, __global const real *b, int ldb) {
#pragma unroll
    for (int l = 0; l < PS_GEMM_A_LOADS; l++) {
        int e = t + PS_GEMM_WG * l, i = m0 + e % PS_GEMM_BM, kk = k0 + e / PS_GEMM_BM;
        ra[l] = i < m && kk < k ? a[i + (size_t)kk * lda] : 0;
    }
#pragma unroll
    for (int l = 0; l < PS_GEMM_B_LOADS; l++) {
        int e = t + PS_GEMM_WG * l, kk = k0 + e % PS_GEMM_BK, j = n0 + e / PS_GEMM_BK;
        rb[l] = kk < k && j < n ? b[kk + (size_t)j * ldb] : 0;
    }
}

static void store_slice(__local real *as, __local real *bs, const real *ra, const real *rb, int t) {
#pragma unroll
    for (int l = 0; l < PS_GEMM_A_LOADS; l++) {
        int e = t + PS_GEMM_WG * l;
        as[(e / PS_GEMM_BM) * PS_GEMM_BM + e % PS_GEMM_BM] = ra[l];
    }
#pragma unroll
    for (int l = 0; l < PS_GEMM_B_LOADS; l++) {
        int e = t + PS_GEMM_WG * l;
        bs[(e % PS_GEMM_BK) * PS_GEMM_BN_PAD + e / PS_GEMM_BK] = rb[l];
    }
}

__kernel __attribute__((reqd_work_group_size(PS_GEMM_DX, PS_GEMM_DY, 1))) void
ps_gemm_nn(int m, int n, int k, real alpha, real beta, __global const real *a, ulong a_off, int lda,
           __global const real *b, ulong b_off, int ldb, __global real *c, ulong c_off, int ldc) {
    __local real as[PS_GEMM_BK * PS_GEMM_BM];
    __local real bs[PS_GEMM_BK * PS_GEMM_BN_PAD];
    const int tx = get_local_id(0), ty = get_local_id(1), t = tx + PS_GEMM_DX * ty;
    const int m0 = get_group_id(0) * PS_GEMM_BM, n0 = get_group_id(1) * PS_GEMM_BN;
    a += a_off, b += b_off, c += c_off;
    real acc[PS_GEMM_TM][PS_GEMM_TN];
#pragma unroll
    for (int r = 0; r < PS_GEMM_TM; r++)
#pragma unroll
        for (int s = 0; s < PS_GEMM_TN; s++) acc[r][s] = 0;
    real ra[PS_GEMM_A_LOADS], rb[PS_GEMM_B_LOADS];
    load_slice(ra, rb, m, n, k, m0, n0, 0, t, a, lda, b, ldb);
    for (int k0 = 0; k0 < k; k0 += PS_GEMM_BK) {
        barrier(CLK_LOCAL_MEM_FENCE); /* the previous slice is no longer read */
        store_slice(as, bs, ra, rb, t);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + PS_GEMM_BK < k)
            load_slice(ra, rb, m, n, k, m0, n0, k0 + PS_GEMM_BK, t, a, lda, b, ldb);
#pragma unroll
        for (int kk = 0; kk < PS_GEMM_BK; kk++) {
            real fa[PS_GEMM_TM], fb[PS_GEMM_TN];
#pragma unroll
            for (int r = 0; r < PS_GEMM_TM; r++) fa[r] = as[kk * PS_GEMM_BM + tx + PS_GEMM_DX * r];
#pragma unroll
            for (int s = 0; s < PS_GEMM_TN; s++)
                fb[s] = bs[kk * PS_GEMM_BN_PAD + ty + PS_GEMM_DY * s];
#pragma unroll
            for (int r = 0; r < PS_GEMM_TM; r++)
#pragma unroll
                for (int s = 0; s < PS_GEMM_TN; s++) acc[r][s] = fma(fa[r], fb[s], acc[r][s]);
        }
    }
    /* C in column groups of PS_GEMM_CG: a group's loads all go before its stores, since the
     * compiler cannot tell that they do not alias and would wait a round trip per element. */
#pragma unroll
    for (int s0 = 0; s0 < PS_GEMM_TN; s0 += PS_GEMM_CG) {
        real cv[PS_GEMM_TM][PS_GEMM_CG];
#pragma unroll
        for (int s = 0; s < PS_GEMM_CG; s++)
#pragma unroll
            for (int r = 0; r < PS_GEMM_TM; r++) {
                int i = m0 + tx + PS_GEMM_DX * r, j = n0 + ty + PS_GEMM_DY * (s0 + s);
                cv[r][s] = beta != 0 && i < m && j < n ? c[i + (size_t)j * ldc] : 0;
            }
#pragma unroll
        for (int s = 0; s < PS_GEMM_CG; s++)
#pragma unroll
            for (int r = 0; r < PS_GEMM_TM; r++) {
                int i = m0 + tx + PS_GEMM_DX * r, j = n0 + ty + PS_GEMM_DY * (s0 + s);
                real v = alpha * acc[r][s0 + s];
                if (beta != 0) v += beta * cv[r][s];
                if (i < m && j < n) c[i + (size_t)j * ldc] = v;
            }
    }
}
