/*
 * The CPU backend's inversion and Gauss-Jordan entries: trmm from CBLAS, column interchanges,
 * and the striped solver's tile update as plain loops (the oracle the GPU kernels are tested
 * against). The tile update is blocked like the GPU kernels, a 64 x 64 block of JK per task, and
 * the blocks of different stripes run on different threads (OpenMP, when the compiler has it),
 * which is the thesis's "stripes updated concurrently" on a CPU.
 */
#include "cpu_internal.h"

#include <cblas.h>
#include <stdint.h>

/* Spreads a loop's iterations over threads when the compiler has OpenMP and the work is big. */
#ifdef _OPENMP
#define PS__PARALLEL_FOR_IF_BIG(work) _Pragma("omp parallel for schedule(static) if (work > 1e6)")
#else
#define PS__PARALLEL_FOR_IF_BIG(work)
#endif

#define DM(v) PS__CPU_PTR(double, (v).buf, (v).off)
#define SM(v) PS__CPU_PTR(float, (v).buf, (v).off)

ps_status ps__cpu_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b) {
    (void)be;
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    enum CBLAS_SIDE sd = side == PS__RIGHT ? CblasRight : CblasLeft;
    enum CBLAS_UPLO ul = uplo == PS__LOWER ? CblasLower : CblasUpper;
    enum CBLAS_TRANSPOSE tr = trans == PS__TRANS ? CblasTrans : CblasNoTrans;
    enum CBLAS_DIAG dg = diag == PS__UNIT ? CblasUnit : CblasNonUnit;
    if (dt == PS__DOUBLE)
        cblas_dtrmm(CblasColMajor, sd, ul, tr, dg, m, n, alpha->d, DM(a), a.ld, DM(b), b.ld);
    else
        cblas_strmm(CblasColMajor, sd, ul, tr, dg, m, n, alpha->s, SM(a), a.ld, SM(b), b.ld);
    return PS_SUCCESS;
}

#define PS__CPU_GJ_KERNELS(real, suffix)                                                           \
    static void colswp_##suffix(int nrows, real *a, int lda, int k1, int k2, const int32_t *piv,   \
                                int forward) {                                                     \
        for (int t = 0; t < k2 - k1; t++) {                                                        \
            int k = forward ? k1 + t : k2 - 1 - t, p = piv[k - k1];                                \
            if (p == k) continue;                                                                  \
            real *x = a + (size_t)k * lda, *y = a + (size_t)p * lda;                               \
            for (int i = 0; i < nrows; i++) {                                                      \
                real v = x[i];                                                                     \
                x[i] = y[i];                                                                       \
                y[i] = v;                                                                          \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    /* jk -= ji ik, one 64 x 64 block of jk per task; the sums run in double for both */           \
    static void stripe_update_##suffix(int m, int ncols, int s, const real *ji, int ldji,          \
                                       const real *ik, int ldik, real *jk, int ldjk) {             \
        int mb = (m + 63) / 64, nb = (ncols + 63) / 64;                                            \
        double work = (double)m * ncols * s;                                                       \
        PS__PARALLEL_FOR_IF_BIG(work)                                                              \
        for (int t = 0; t < mb * nb; t++) {                                                        \
            int i0 = (t % mb) * 64, j0 = (t / mb) * 64;                                            \
            int i1 = i0 + 64 < m ? i0 + 64 : m, j1 = j0 + 64 < ncols ? j0 + 64 : ncols;            \
            for (int j = j0; j < j1; j++) {                                                        \
                double acc[64] = {0};                                                              \
                for (int p = 0; p < s; p++) {                                                      \
                    double b = ik[p + (size_t)j * ldik];                                           \
                    const real *col = ji + (size_t)p * ldji;                                       \
                    for (int i = i0; i < i1; i++) acc[i - i0] += (double)col[i] * b;               \
                }                                                                                  \
                for (int i = i0; i < i1; i++)                                                      \
                    jk[i + (size_t)j * ldjk] = (real)(jk[i + (size_t)j * ldjk] - acc[i - i0]);     \
            }                                                                                      \
        }                                                                                          \
    }

PS__CPU_GJ_KERNELS(double, d)
PS__CPU_GJ_KERNELS(float, s)

/* a = a^T in place: each pair of 64 x 64 tiles (I, J), (J, I) swapped entry by entry, so both
 * stay in cache */
#define PS__CPU_TRANSPOSE_SQUARE(real, suffix)                                                     \
    static void transpose_square_##suffix(int n, real *a, int lda) {                               \
        for (int j0 = 0; j0 < n; j0 += 64)                                                         \
            for (int i0 = j0; i0 < n; i0 += 64) {                                                  \
                int i1 = i0 + 64 < n ? i0 + 64 : n, j1 = j0 + 64 < n ? j0 + 64 : n;                \
                for (int j = j0; j < j1; j++)                                                      \
                    for (int i = i0 > j + 1 ? i0 : j + 1; i < i1; i++) {                           \
                        real v = a[i + (size_t)j * lda];                                           \
                        a[i + (size_t)j * lda] = a[j + (size_t)i * lda];                           \
                        a[j + (size_t)i * lda] = v;                                                \
                    }                                                                              \
            }                                                                                      \
    }
PS__CPU_TRANSPOSE_SQUARE(double, d)
PS__CPU_TRANSPOSE_SQUARE(float, s)

ps_status ps__cpu_transpose_square(ps__backend *be, ps__dtype dt, int n, ps__mat a) {
    (void)be;
    if (n <= 0) return PS_SUCCESS;
    if (dt == PS__DOUBLE)
        transpose_square_d(n, DM(a), a.ld);
    else
        transpose_square_s(n, SM(a), a.ld);
    return PS_SUCCESS;
}

/* dst = src^T (rows x cols into cols x rows) by 64 x 64 tiles, so that both sides stay in cache
 * (the portable default copies a row or column at a time) */
#define PS__CPU_TRANSPOSE(real, suffix)                                                            \
    static void transpose_##suffix(int rows, int cols, const real *src, int lds, real *dst,        \
                                   int ldd) {                                                      \
        for (int j0 = 0; j0 < cols; j0 += 64)                                                      \
            for (int i0 = 0; i0 < rows; i0 += 64) {                                                \
                int i1 = i0 + 64 < rows ? i0 + 64 : rows, j1 = j0 + 64 < cols ? j0 + 64 : cols;    \
                for (int i = i0; i < i1; i++)                                                      \
                    for (int j = j0; j < j1; j++)                                                  \
                        dst[j + (size_t)i * ldd] = src[i + (size_t)j * lds];                       \
            }                                                                                      \
    }
PS__CPU_TRANSPOSE(double, d)
PS__CPU_TRANSPOSE(float, s)

ps_status ps__cpu_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                            ps__mat dst) {
    (void)be;
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    if (dt == PS__DOUBLE)
        transpose_d(rows, cols, DM(src), src.ld, DM(dst), dst.ld);
    else
        transpose_s(rows, cols, SM(src), src.ld, SM(dst), dst.ld);
    return PS_SUCCESS;
}

ps_status ps__cpu_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                         const void *ipiv, size_t ipiv_off, int forward) {
    (void)be;
    if (nrows <= 0 || k2 <= k1) return PS_SUCCESS;
    const int32_t *piv = (const int32_t *)ipiv + ipiv_off;
    if (dt == PS__DOUBLE)
        colswp_d(nrows, DM(a), a.ld, k1, k2, piv, forward);
    else
        colswp_s(nrows, SM(a), a.ld, k1, k2, piv, forward);
    return PS_SUCCESS;
}

ps_status ps__cpu_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                   ps__mat ji, ps__mat ik, ps__mat jk) {
    (void)be;
    if (m <= 0 || ncols <= 0 || s <= 0) return PS_SUCCESS;
    if (dt == PS__DOUBLE)
        stripe_update_d(m, ncols, s, DM(ji), ji.ld, DM(ik), ik.ld, DM(jk), jk.ld);
    else
        stripe_update_s(m, ncols, s, SM(ji), ji.ld, SM(ik), ik.ld, SM(jk), jk.ld);
    return PS_SUCCESS;
}

const ps__gj_kernels ps__cpu_gj_kernels = {
    .header = {PS__GJ_KERNELS_ABI, sizeof(ps__gj_kernels)},
    .gj_stripe_update = ps__cpu_gj_stripe_update,
};
