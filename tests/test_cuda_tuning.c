/*
 * The CUDA backend's LU leaf under its tuning knobs: PORTSOLVE_CUDA_PANEL_ROWS out of range is
 * refused when the context is created, naming the variable; in range, LU is still right with
 * grids of many tiny row slices (slices shorter than the leaf, so pivot rows and row j move
 * between blocks at every step) and of one slice, and with a leaf too wide for shared memory
 * (PORTSOLVE_LU_PANEL_WIDTH), which the one-block kernel factors instead. The WZ leaf, on the
 * same grid, is checked the same way (PORTSOLVE_WZ_PANEL_WIDTH for the fallback). The split
 * look-ahead lanes' knobs (PORTSOLVE_CUDA_PANEL_SMS, PORTSOLVE_CUDA_SPLIT_BELOW) likewise: bad
 * values refused, LU right on shared lanes, on the smallest partition, on more SMs than the
 * device has (no split), and when the lanes split part way through. Mixed-precision refinement
 * in every tensor-core mode on split lanes with 768-column blocks, the setting in which cuBLAS's
 * TF32 GEMM of a panel product failed to launch at n = 32768 (cuda_blas.c; that failure did not
 * reproduce at this test's size, so this checks the modes on split lanes, not the fix).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "checks.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static ps_context *cuda_context(void) {
    ps_context_options o = ps_context_options_default();
    o.backend = PS_BACKEND_CUDA;
    ps_context *ctx = NULL;
    ps_status st = ps_context_create(&ctx, &o);
    CHECK(st == PS_SUCCESS, "cuda context: %s", ps_last_create_error());
    return ctx;
}

static void check_getrf(ps_dtype dt, int m, int n, const char *what) {
    ps_context *ctx = cuda_context();
    if (!ctx) return;
    int lda = m + 5;
    size_t es = dt == PS_DOUBLE ? sizeof(double) : sizeof(float);
    void *A = malloc(es * (size_t)lda * n), *LU = malloc(es * (size_t)lda * n);
    int *ipiv = malloc(sizeof(int) * (size_t)(m < n ? m : n));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < lda; i++) {
            double v = ps_test_rand();
            if (dt == PS_DOUBLE)
                ((double *)A)[i + (size_t)j * lda] = v;
            else
                ((float *)A)[i + (size_t)j * lda] = (float)v;
        }
    memcpy(LU, A, es * (size_t)lda * n);
    ps_status st =
        dt == PS_DOUBLE ? ps_dgetrf(ctx, m, n, LU, lda, ipiv) : ps_sgetrf(ctx, m, n, LU, lda, ipiv);
    CHECK_STATUS(st, PS_SUCCESS);
    double r = ps_check_lu_ratio(dt, m, n, A, lda, LU, lda, ipiv);
    CHECK(r < PS_TEST_THRESHOLD, "%s: %s getrf %d x %d ratio %g", what, dt == PS_DOUBLE ? "d" : "s",
          m, n, r);
    free(A), free(LU), free(ipiv);
    ps_context_destroy(ctx);
}

/* ps_dsgesv in precision p of a random n x n matrix made well conditioned (sqrt(n) added to
 * the diagonal), so that every mode refines without falling back. */
static void check_dsgesv(ps_lowprec p, int n, const char *what) {
    ps_context *ctx = cuda_context();
    if (!ctx) return;
    int lda = n + 1;
    double *A = ps_test_random_array(PS_DOUBLE, lda, n), *B = ps_test_random_array(PS_DOUBLE, n, 1);
    double *X = ps_test_random_array(PS_DOUBLE, n, 1);
    for (int i = 0; i < n; i++) A[i + (size_t)i * lda] += sqrt((double)n);
    double *A0 = ps_test_clone(PS_DOUBLE, A, lda, n);
    int *ipiv = malloc(sizeof(int) * (size_t)n), iter = -999;
    ps_refine_options o = ps_refine_options_default();
    o.precision = p;
    CHECK_STATUS(ps_context_set_refine_options(ctx, &o), PS_SUCCESS);
    ps_status st = ps_dsgesv(ctx, n, 1, A, lda, ipiv, B, n, X, n, &iter);
    CHECK(st == PS_SUCCESS && iter >= 0, "%s: dsgesv (%s) n=%d: iter %d, %s", what,
          ps_lowprec_name(p), n, iter, ps_context_last_error(ctx));
    double r = ps_check_solve_ratio(PS_DOUBLE, 'N', n, 1, A0, lda, X, n, B, n);
    CHECK(r < PS_TEST_THRESHOLD, "%s: dsgesv (%s) n=%d residual ratio %g", what, ps_lowprec_name(p),
          n, r);
    free(A), free(A0), free(B), free(X), free(ipiv);
    ps_context_destroy(ctx);
}

/* WZ (blocked, pivoted: the cooperative WZ leaf under the same knobs) of an n x n matrix. */
static void check_wztrf(ps_dtype dt, int n, const char *what) {
    ps_context *ctx = cuda_context();
    if (!ctx) return;
    int lda = n + 3;
    size_t es = dt == PS_DOUBLE ? sizeof(double) : sizeof(float);
    void *A = malloc(es * (size_t)lda * n), *F = malloc(es * (size_t)lda * n);
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    for (size_t i = 0; i < (size_t)lda * n; i++) {
        double v = ps_test_rand();
        if (dt == PS_DOUBLE)
            ((double *)A)[i] = v;
        else
            ((float *)A)[i] = (float)v;
    }
    memcpy(F, A, es * (size_t)lda * n);
    ps_status st =
        dt == PS_DOUBLE ? ps_dwztrf(ctx, n, F, lda, ipiv) : ps_swztrf(ctx, n, F, lda, ipiv);
    CHECK_STATUS(st, PS_SUCCESS);
    double r = ps_check_wz_ratio(dt, n, A, lda, F, lda, ipiv);
    CHECK(r < PS_TEST_THRESHOLD, "%s: %s wztrf %d ratio %g", what, dt == PS_DOUBLE ? "d" : "s", n,
          r);
    free(A), free(F), free(ipiv);
    ps_context_destroy(ctx);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    static const char *const bad[] = {"0", "-8", "12x", "", "70000"};
    for (int i = 0; i < 5; i++) {
        setenv("PORTSOLVE_CUDA_PANEL_ROWS", bad[i], 1);
        ps_context_options o = ps_context_options_default();
        o.backend = PS_BACKEND_CUDA;
        ps_context *ctx = NULL;
        CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);
        CHECK(!ctx && strstr(ps_last_create_error(), "PORTSOLVE_CUDA_PANEL_ROWS"),
              "\"%s\" refused: %s", bad[i], ps_last_create_error());
    }
    static const char *const rows[] = {"3", "16", "5000"};
    for (int i = 0; i < 3; i++) {
        setenv("PORTSOLVE_CUDA_PANEL_ROWS", rows[i], 1);
        check_getrf(PS_DOUBLE, 700, 700, rows[i]);
        check_getrf(PS_FLOAT, 517, 300, rows[i]);
        check_getrf(PS_DOUBLE, 150, 401, rows[i]);
        check_wztrf(PS_DOUBLE, 700, rows[i]);
        check_wztrf(PS_FLOAT, 517, rows[i]);
    }
    unsetenv("PORTSOLVE_CUDA_PANEL_ROWS");
    setenv("PORTSOLVE_LU_PANEL_WIDTH", "256", 1); /* 256 columns of 3000 rows: no fit */
    setenv("PORTSOLVE_CUDA_PANEL_ROWS", "5000", 1);
    check_getrf(PS_DOUBLE, 3000, 300, "one-block fallback");
    unsetenv("PORTSOLVE_LU_PANEL_WIDTH");
    setenv("PORTSOLVE_WZ_PANEL_WIDTH", "256", 1);
    check_wztrf(PS_DOUBLE, 3000, "one-block WZ fallback");
    unsetenv("PORTSOLVE_WZ_PANEL_WIDTH");
    unsetenv("PORTSOLVE_CUDA_PANEL_ROWS");

    /* The split lanes (cuda_partition.c): their knobs' bad values (and gemv_mixed's slices'),
     * LU on shared lanes, on the smallest partition, and switching to split lanes part way (700
     * columns: the third block step has 188 left). */
    static const char *const bad_knobs[][2] = {
        {"PORTSOLVE_CUDA_PANEL_SMS", "-1"},       {"PORTSOLVE_CUDA_PANEL_SMS", "8x"},
        {"PORTSOLVE_CUDA_PANEL_SMS", "5000"},     {"PORTSOLVE_CUDA_SPLIT_BELOW", ""},
        {"PORTSOLVE_CUDA_SPLIT_BELOW", "-3"},     {"PORTSOLVE_CUDA_GEMV_MIXED_SLICES", "0"},
        {"PORTSOLVE_CUDA_GEMV_MIXED_SLICES", "9"}};
    for (size_t i = 0; i < sizeof bad_knobs / sizeof bad_knobs[0]; i++) {
        setenv(bad_knobs[i][0], bad_knobs[i][1], 1);
        ps_context_options o = ps_context_options_default();
        o.backend = PS_BACKEND_CUDA;
        ps_context *ctx = NULL;
        CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);
        CHECK(!ctx && strstr(ps_last_create_error(), bad_knobs[i][0]), "%s=\"%s\" refused: %s",
              bad_knobs[i][0], bad_knobs[i][1], ps_last_create_error());
        unsetenv(bad_knobs[i][0]);
    }
    static const char *const sms[] = {"0", "8", "1000"};
    for (int i = 0; i < 3; i++) {
        setenv("PORTSOLVE_CUDA_PANEL_SMS", sms[i], 1);
        check_getrf(PS_DOUBLE, 700, 700, sms[i]);
        check_getrf(PS_FLOAT, 900, 517, sms[i]);
    }
    unsetenv("PORTSOLVE_CUDA_PANEL_SMS");
    setenv("PORTSOLVE_CUDA_SPLIT_BELOW", "400", 1);
    check_getrf(PS_DOUBLE, 700, 700, "split from the third step");
    check_getrf(PS_FLOAT, 1000, 800, "split from the third step");
    unsetenv("PORTSOLVE_CUDA_SPLIT_BELOW");

    /* At n = 32768 the failing product was m = 6272, n = k = 384: the second half of a
     * 768-column panel 6656 rows tall. Both ways of forming U's block rows. */
    static const ps_lowprec modes[] = {PS_LOWPREC_TF32, PS_LOWPREC_FP16, PS_LOWPREC_BF16,
                                       PS_LOWPREC_TF32X3, PS_LOWPREC_FP16X3};
    setenv("PORTSOLVE_LU_NB", "768", 1);
    for (int inverse = 0; inverse < 2; inverse++) {
        setenv("PORTSOLVE_LU_BLOCK_ROW", inverse ? "inverse" : "trsm", 1);
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
            check_dsgesv(modes[i], 6656, inverse ? "split, nb 768, inverse" : "split, nb 768");
    }
    unsetenv("PORTSOLVE_LU_BLOCK_ROW");
    unsetenv("PORTSOLVE_LU_NB");
    return ps_test_finish("test_cuda_tuning");
}
