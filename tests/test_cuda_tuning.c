/*
 * The CUDA backend's LU leaf under its tuning knobs: cuda_panel_rows out of range is
 * refused when the context is created, naming the variable; in range, LU is still right with
 * grids of many tiny row slices (slices shorter than the leaf, so pivot rows and row j move
 * between blocks at every step) and of one slice, and with a leaf too wide for shared memory
 * (lu_panel_width), which the one-block kernel factors instead. The WZ leaf, on the
 * same grid, is checked the same way (wz_panel_width for the fallback). The split
 * look-ahead lanes' knobs (cuda_panel_sms, cuda_split_below) likewise: bad
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
        char knob[64];
        snprintf(knob, sizeof knob, "cuda_panel_rows=%s", bad[i]);
        ps_test_tuning(knob);
        ps_context_options o = ps_context_options_default();
        o.backend = PS_BACKEND_CUDA;
        ps_context *ctx = NULL;
        CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);
        CHECK(!ctx && strstr(ps_last_create_error(), "cuda_panel_rows"), "\"%s\" refused: %s",
              bad[i], ps_last_create_error());
    }
    static const char *const rows[] = {"3", "16", "5000"};
    for (int i = 0; i < 3; i++) {
        char knob[64];
        snprintf(knob, sizeof knob, "cuda_panel_rows=%s", rows[i]);
        ps_test_tuning(knob);
        check_getrf(PS_DOUBLE, 700, 700, rows[i]);
        check_getrf(PS_FLOAT, 517, 300, rows[i]);
        check_getrf(PS_DOUBLE, 150, 401, rows[i]);
        check_wztrf(PS_DOUBLE, 700, rows[i]);
        check_wztrf(PS_FLOAT, 517, rows[i]);
    }
    ps_test_tuning("lu_panel_width=256,cuda_panel_rows=5000"); /* 256 of 3000 rows: no fit */
    check_getrf(PS_DOUBLE, 3000, 300, "one-block fallback");
    ps_test_tuning("wz_panel_width=256,cuda_panel_rows=5000");
    check_wztrf(PS_DOUBLE, 3000, "one-block WZ fallback");
    ps_test_tuning(NULL);

    /* The split lanes (cuda_partition.c): their knobs' bad values (and gemv_mixed's slices'),
     * LU on shared lanes, on the smallest partition, and switching to split lanes part way (700
     * columns: the third block step has 188 left). */
    static const char *const bad_knobs[][2] = {
        {"cuda_panel_sms", "-1"},        {"cuda_panel_sms", "8x"},       {"cuda_panel_sms", "5000"},
        {"cuda_split_below", ""},        {"cuda_split_below", "-3"},     {"cuda_trsv_rows", "32"},
        {"cuda_gemv_mixed_slices", "0"}, {"cuda_gemv_mixed_slices", "9"}};
    for (size_t i = 0; i < sizeof bad_knobs / sizeof bad_knobs[0]; i++) {
        char knob[64];
        snprintf(knob, sizeof knob, "%s=%s", bad_knobs[i][0], bad_knobs[i][1]);
        ps_test_tuning(knob);
        ps_context_options o = ps_context_options_default();
        o.backend = PS_BACKEND_CUDA;
        ps_context *ctx = NULL;
        CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);
        CHECK(!ctx && strstr(ps_last_create_error(), bad_knobs[i][0]), "%s=\"%s\" refused: %s",
              bad_knobs[i][0], bad_knobs[i][1], ps_last_create_error());
    }
    ps_test_tuning(NULL);
    static const char *const sms[] = {"0", "8", "1000"};
    for (int i = 0; i < 3; i++) {
        char knob[64];
        snprintf(knob, sizeof knob, "cuda_panel_sms=%s", sms[i]);
        ps_test_tuning(knob);
        check_getrf(PS_DOUBLE, 700, 700, sms[i]);
        check_getrf(PS_FLOAT, 900, 517, sms[i]);
    }
    ps_test_tuning("cuda_split_below=400");
    check_getrf(PS_DOUBLE, 700, 700, "split from the third step");
    check_getrf(PS_FLOAT, 1000, 800, "split from the third step");
    ps_test_tuning(NULL);

    /* At n = 32768 the failing product was m = 6272, n = k = 384: the second half of a
     * 768-column panel 6656 rows tall. Both ways of forming U's block rows. */
    static const ps_lowprec modes[] = {PS_LOWPREC_TF32, PS_LOWPREC_FP16, PS_LOWPREC_BF16,
                                       PS_LOWPREC_TF32X3, PS_LOWPREC_FP16X3};
    for (int inverse = 0; inverse < 2; inverse++) {
        ps_test_tuning(inverse ? "lu_nb=768,lu_block_row=inverse" : "lu_nb=768,lu_block_row=trsm");
        for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
            check_dsgesv(modes[i], 6656, inverse ? "split, nb 768, inverse" : "split, nb 768");
    }
    ps_test_tuning(NULL);
    return ps_test_finish("test_cuda_tuning");
}
