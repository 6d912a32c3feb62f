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

#if defined(PS_NV_DMMA) && defined(PS_DOUBLE)
/*
 * The same product in double on NVIDIA's FP64 tensor cores (PS_NV_DMMA: the host found NVIDIA's
 * platform and a device of compute capability 8.0 or later; 2: 9.0 or later), through PTX's
 * mma.sync, the scheme of the CUDA backend's stripe kernel (backend_cuda/cuda_gj_kernels.cu): a
 * 128 x 64 block of C per work-group of 8 warps, a 32 x 32 warp tile as 4 x 4 tiles of the
 * 8 x 8 x 4 DMMA (pairs of them as one 16 x 8 x 4 DMMA from 9.0). Fragments (PTX ISA,
 * mma.m8n8k4.f64), with g = lane / 4 and t = lane % 4: A holds a(g, t), B holds b(t, g), C holds
 * c(g, 2t) and c(g, 2t + 1). k goes in slices of 16 staged in local memory (rows padded by 4
 * doubles, so the fragment loads are free of bank conflicts), the next slice loaded into
 * registers while the current one is multiplied. Work-items 32 w .. 32 w + 31 of the 1-D
 * work-group are warp w, as NVIDIA's OpenCL forms them.
 */
#define PS_DMMA_BM      128
#define PS_DMMA_BN      64
#define PS_DMMA_WM      32
#define PS_DMMA_BK      16
#define PS_DMMA_PAD     4
#define PS_DMMA_THREADS (PS_DMMA_BM / PS_DMMA_WM * PS_DMMA_BN / 32 * 32)
#define PS_DMMA_A_PER   (PS_DMMA_BM * PS_DMMA_BK / PS_DMMA_THREADS)
#define PS_DMMA_B_PER   (PS_DMMA_BK * PS_DMMA_BN / PS_DMMA_THREADS)
#define PS_DMMA_UM      (PS_DMMA_WM / 8)

/* This work-item's share of the slice at k0 (a rows ar, columns ac + l THREADS / BM; b rows br,
 * columns bc + l THREADS / BK), zero outside the operands. */
static void dmma_load(double *ra, double *rb, int m, int n, int k, int i0, int j0, int k0, int ar,
                      int ac, int br, int bc, __global const double *a, int lda,
                      __global const double *b, int ldb) {
#pragma unroll
    for (int l = 0; l < PS_DMMA_A_PER; l++) {
        int p = k0 + ac + l * (PS_DMMA_THREADS / PS_DMMA_BM);
        ra[l] = i0 + ar < m && p < k ? a[i0 + ar + (size_t)p * lda] : 0.0;
    }
#pragma unroll
    for (int l = 0; l < PS_DMMA_B_PER; l++) {
        int j = j0 + bc + l * (PS_DMMA_THREADS / PS_DMMA_BK), p = k0 + br;
        rb[l] = j < n && p < k ? b[p + (size_t)j * ldb] : 0.0;
    }
}

__kernel __attribute__((reqd_work_group_size(PS_DMMA_THREADS, 1, 1))) void
ps_gemm_nn_dmma(int m, int n, int k, double alpha, double beta, __global const double *a,
                ulong a_off, int lda, __global const double *b, ulong b_off, int ldb,
                __global double *c, ulong c_off, int ldc) {
    __local double a_s[PS_DMMA_BK][PS_DMMA_BM + PS_DMMA_PAD];
    __local double b_s[PS_DMMA_BK][PS_DMMA_BN + PS_DMMA_PAD];
    const int tid = get_local_id(0), lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wi = (warp % (PS_DMMA_BM / PS_DMMA_WM)) * PS_DMMA_WM;
    const int wj = (warp / (PS_DMMA_BM / PS_DMMA_WM)) * 32;
    const int i0 = get_group_id(0) * PS_DMMA_BM, j0 = get_group_id(1) * PS_DMMA_BN;
    const int ar = tid % PS_DMMA_BM, ac = tid / PS_DMMA_BM;
    const int br = tid % PS_DMMA_BK, bc = tid / PS_DMMA_BK;
    a += a_off, b += b_off, c += c_off;
    double ra[PS_DMMA_A_PER], rb[PS_DMMA_B_PER];
    double acc[PS_DMMA_UM][4][2];
#pragma unroll
    for (int u = 0; u < PS_DMMA_UM; u++)
#pragma unroll
        for (int v = 0; v < 4; v++) acc[u][v][0] = acc[u][v][1] = 0;
    dmma_load(ra, rb, m, n, k, i0, j0, 0, ar, ac, br, bc, a, lda, b, ldb);
    for (int k0 = 0; k0 < k; k0 += PS_DMMA_BK) {
#pragma unroll
        for (int l = 0; l < PS_DMMA_A_PER; l++)
            a_s[ac + l * (PS_DMMA_THREADS / PS_DMMA_BM)][ar] = ra[l];
#pragma unroll
        for (int l = 0; l < PS_DMMA_B_PER; l++)
            b_s[br][bc + l * (PS_DMMA_THREADS / PS_DMMA_BK)] = rb[l];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (k0 + PS_DMMA_BK < k)
            dmma_load(ra, rb, m, n, k, i0, j0, k0 + PS_DMMA_BK, ar, ac, br, bc, a, lda, b, ldb);
            /* Not unrolled: unrolled, the compiler loads every step's fragments ahead and the
             * kernel needs 172 registers instead of 150 (H100: LU's GEMMs 138 -> 131 ms). */
#pragma unroll 1
        for (int kk = 0; kk < PS_DMMA_BK; kk += 4) {
            double af[PS_DMMA_UM], bf[4];
#pragma unroll
            for (int u = 0; u < PS_DMMA_UM; u++) af[u] = a_s[kk + t][wi + 8 * u + g];
#pragma unroll
            for (int v = 0; v < 4; v++) bf[v] = b_s[kk + t][wj + 8 * v + g];
#if PS_NV_DMMA >= 2
                /* m16n8k4: A holds rows g and g + 8 (the m8n8k4 tiles u and u + 1), C likewise */
#pragma unroll
            for (int u = 0; u < PS_DMMA_UM; u += 2)
#pragma unroll
                for (int v = 0; v < 4; v++)
                    __asm__ __volatile__("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 "
                                         "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                                         : "+d"(acc[u][v][0]), "+d"(acc[u][v][1]),
                                           "+d"(acc[u + 1][v][0]), "+d"(acc[u + 1][v][1])
                                         : "d"(af[u]), "d"(af[u + 1]), "d"(bf[v]));
#else
#pragma unroll
            for (int u = 0; u < PS_DMMA_UM; u++)
#pragma unroll
                for (int v = 0; v < 4; v++)
                    __asm__ __volatile__("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 "
                                         "{%0,%1}, {%2}, {%3}, {%0,%1};"
                                         : "+d"(acc[u][v][0]), "+d"(acc[u][v][1])
                                         : "d"(af[u]), "d"(bf[v]));
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* C's loads all before its stores (see ps_gemm_nn) */
    double cv[PS_DMMA_UM][4][2];
#pragma unroll
    for (int u = 0; u < PS_DMMA_UM; u++)
#pragma unroll
        for (int v = 0; v < 4; v++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int gi = i0 + wi + 8 * u + g, gj = j0 + wj + 8 * v + 2 * t + h;
                cv[u][v][h] = beta != 0 && gi < m && gj < n ? c[gi + (size_t)gj * ldc] : 0;
            }
#pragma unroll
    for (int u = 0; u < PS_DMMA_UM; u++)
#pragma unroll
        for (int v = 0; v < 4; v++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int gi = i0 + wi + 8 * u + g, gj = j0 + wj + 8 * v + 2 * t + h;
                double x = alpha * acc[u][v][h];
                if (beta != 0) x += beta * cv[u][v][h];
                if (gi < m && gj < n) c[gi + (size_t)gj * ldc] = x;
            }
}
#endif
