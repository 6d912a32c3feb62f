/*
 * LU (getrf/getrs/gesv), both precisions, on the backend given by --backend:
 * dlatms/slatms matrices of condition 1e1..1e12, odd and tiny orders, lda > n, one and several
 * right-hand sides, transposed solves, rectangular factorizations, several block sizes, the
 * device-matrix level, and LAPACKE_?gesv on the same input as the reference.
 */
#include "checks.h"
#include "test_util.h"
#include "base/context.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int orders[] = {0, 1, 2, 3, 4, 5, 17, 64, 65, 127, 257, 1000};
static const double conds[] = {1e1, 1e3, 1e6, 1e9, 1e12};

static double worst_forward; /* reported at the end, to show the margin */

/* A random n x n test matrix of condition cond in a random array of leading dimension lda. */
static void *test_matrix(ps_dtype dt, int n, int lda, double cond) {
    void *a = ps_test_random_array(dt, lda, n);
    int info = dt == PS_DOUBLE ? ps_test_latms_d(n, cond, 'N', a, lda)
                               : ps_test_latms_s(n, cond, 'N', a, lda);
    CHECK(info == 0, "latms info %d", info);
    return a;
}

static ps_status gesv(ps_context *ctx, ps_dtype dt, int n, int nrhs, void *A, int lda, int *ipiv,
                      void *B, int ldb) {
    return dt == PS_DOUBLE ? ps_dgesv(ctx, n, nrhs, A, lda, ipiv, B, ldb)
                           : ps_sgesv(ctx, n, nrhs, A, lda, ipiv, B, ldb);
}

/* gesv against the LAPACK ratios and against LAPACKE_?gesv's forward error. */
static void check_gesv(ps_context *ctx, ps_dtype dt, int n, int lda, int nrhs, double cond) {
    int ldb = n + (nrhs > 1 ? 5 : 0);
    if (ldb < 1) ldb = 1;
    void *A0 = test_matrix(dt, n, lda, cond);
    void *Xtrue = ps_test_random_array(dt, n > 0 ? n : 1, nrhs);
    void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, lda, Xtrue, n > 0 ? n : 1, ldb);
    void *A = ps_test_clone(dt, A0, lda, n), *B = ps_test_clone(dt, B0, ldb, nrhs);
    int *ipiv = malloc(sizeof(int) * (size_t)(n + 1));

    ps_status st = gesv(ctx, dt, n, nrhs, A, lda, ipiv, B, ldb);
    /* Beyond 1/eps (cond 1e12 in float) the matrix is numerically singular in that precision and
     * an exactly zero pivot is a correct outcome, as it is for LAPACK; it must still say where. */
    if (st == PS_ERR_SINGULAR && cond * ps_test_eps(dt) >= 1) {
        int info = ps_context_last_info(ctx);
        CHECK(info >= 1 && info <= n, "singular info %d outside 1..%d", info, n);
        free(A0), free(Xtrue), free(B0), free(A), free(B), free(ipiv);
        return;
    }
    CHECK(st == PS_SUCCESS, "%cgesv n=%d lda=%d nrhs=%d cond=%g: %s: %s",
          dt == PS_DOUBLE ? 'd' : 's', n, lda, nrhs, cond, ps_status_string(st),
          ps_context_last_error(ctx));
    if (st == PS_SUCCESS) {
        double solve = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, lda, B, ldb, B0, ldb);
        double fact = ps_check_lu_ratio(dt, n, n, A0, lda, A, lda, ipiv);
        CHECK(solve < PS_TEST_THRESHOLD, "%cgesv n=%d cond=%g nrhs=%d: residual ratio %g",
              dt == PS_DOUBLE ? 'd' : 's', n, cond, nrhs, solve);
        CHECK(fact < PS_TEST_THRESHOLD, "%cgesv n=%d cond=%g: ||PA-LU|| ratio %g",
              dt == PS_DOUBLE ? 'd' : 's', n, cond, fact);
        CHECK(ps_test_padding_intact(dt, n, lda, n, A, A0),
              "A's rows beyond n were written (lda=%d)", lda);
        CHECK(ps_test_padding_intact(dt, n, ldb, nrhs, B, B0), "B's rows beyond n were written");

        /* Forward error against the known solution, as LAPACK's dget04 judges it:
         * ||x - x_true||_inf / (||x_true||_inf cond n eps) < 30, for ours and for LAPACKE_?gesv
         * on the same input (the reference shows the bound is attainable on this matrix).
         * Only meaningful while cond * eps is well below 1. */
        if (n > 0 && cond * ps_test_eps(dt) < 1e-3) {
            void *Ar = ps_test_clone(dt, A0, lda, n), *Br = ps_test_clone(dt, B0, ldb, nrhs);
            int *ipr = malloc(sizeof(int) * (size_t)n);
            int info = dt == PS_DOUBLE
                           ? LAPACKE_dgesv(LAPACK_COL_MAJOR, n, nrhs, Ar, lda, ipr, Br, ldb)
                           : LAPACKE_sgesv(LAPACK_COL_MAJOR, n, nrhs, Ar, lda, ipr, Br, ldb);
            CHECK(info == 0, "LAPACKE gesv info %d", info);
            double ours = ps_check_forward_ratio(dt, n, nrhs, B, ldb, Xtrue, n, cond);
            double theirs = ps_check_forward_ratio(dt, n, nrhs, Br, ldb, Xtrue, n, cond);
            CHECK(ours < PS_TEST_THRESHOLD,
                  "%cgesv n=%d cond=%g: forward error ratio %g (LAPACKE's %g)",
                  dt == PS_DOUBLE ? 'd' : 's', n, cond, ours, theirs);
            CHECK(theirs < PS_TEST_THRESHOLD, "LAPACKE forward error ratio %g: bad test matrix",
                  theirs);
            if (ours > worst_forward) worst_forward = ours;
            free(Ar), free(Br), free(ipr);
        }
    }
    free(A0), free(Xtrue), free(B0), free(A), free(B), free(ipiv);
}

/* getrf then getrs with trans 'N' and 'T' on the same factors. */
static void check_getrf_getrs(ps_context *ctx, ps_dtype dt, int n, int lda, double cond) {
    int nrhs = 2, ldb = n + 1;
    void *A0 = test_matrix(dt, n, lda, cond);
    void *A = ps_test_clone(dt, A0, lda, n);
    int *ipiv = malloc(sizeof(int) * (size_t)(n + 1));
    ps_status st =
        dt == PS_DOUBLE ? ps_dgetrf(ctx, n, n, A, lda, ipiv) : ps_sgetrf(ctx, n, n, A, lda, ipiv);
    CHECK(st == PS_SUCCESS, "getrf n=%d: %s", n, ps_context_last_error(ctx));
    if (st == PS_SUCCESS) {
        double fact = ps_check_lu_ratio(dt, n, n, A0, lda, A, lda, ipiv);
        CHECK(fact < PS_TEST_THRESHOLD, "getrf n=%d cond=%g: ||PA-LU|| ratio %g", n, cond, fact);
        for (int t = 0; t < 2; t++) {
            char trans = t ? 'T' : 'N';
            void *X = ps_test_random_array(dt, n > 0 ? n : 1, nrhs);
            void *B0 = ps_test_rhs_for(dt, trans, n, nrhs, A0, lda, X, n > 0 ? n : 1, ldb);
            void *B = ps_test_clone(dt, B0, ldb, nrhs);
            st = dt == PS_DOUBLE ? ps_dgetrs(ctx, trans, n, nrhs, A, lda, ipiv, B, ldb)
                                 : ps_sgetrs(ctx, trans, n, nrhs, A, lda, ipiv, B, ldb);
            CHECK(st == PS_SUCCESS, "getrs %c n=%d: %s", trans, n, ps_context_last_error(ctx));
            double solve = ps_check_solve_ratio(dt, trans, n, nrhs, A0, lda, B, ldb, B0, ldb);
            CHECK(solve < PS_TEST_THRESHOLD, "getrs trans=%c n=%d cond=%g: residual ratio %g",
                  trans, n, cond, solve);
            free(X), free(B0), free(B);
        }
    }
    free(A0), free(A), free(ipiv);
}

/* Rectangular getrf (random entries): factorization ratio and the pivot range. */
static void check_rectangular(ps_context *ctx, ps_dtype dt, int m, int n) {
    int lda = m + 2, k = m < n ? m : n;
    void *A0 = ps_test_random_array(dt, lda, n), *A = ps_test_clone(dt, A0, lda, n);
    int *ipiv = malloc(sizeof(int) * (size_t)(k + 1));
    ps_status st =
        dt == PS_DOUBLE ? ps_dgetrf(ctx, m, n, A, lda, ipiv) : ps_sgetrf(ctx, m, n, A, lda, ipiv);
    CHECK(st == PS_SUCCESS, "getrf %dx%d: %s", m, n, ps_context_last_error(ctx));
    if (st == PS_SUCCESS) {
        double fact = ps_check_lu_ratio(dt, m, n, A0, lda, A, lda, ipiv);
        CHECK(fact < PS_TEST_THRESHOLD, "getrf %dx%d: ||PA-LU|| ratio %g", m, n, fact);
        for (int i = 0; i < k; i++)
            CHECK(ipiv[i] >= i + 1 && ipiv[i] <= m, "getrf %dx%d: ipiv[%d]=%d", m, n, i, ipiv[i]);
    }
    free(A0), free(A), free(ipiv);
}

/* The device-matrix level: factor once, solve twice without re-uploading A. */
/* The factors a device LU left in A (n x n) and its pivots against A0 (LAPACK's ratio). */
static void check_device_factors(ps_dtype dt, int n, const void *A0, int lda, const ps_matrix *A,
                                 const int *ipiv, const char *what) {
    void *F = ps_test_random_array(dt, n, n);
    CHECK_STATUS(ps_matrix_download(A, F, n), PS_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(ipiv[i] >= 1 && ipiv[i] <= n, "%s: ipiv[%d] = %d", what, i, ipiv[i]);
    double ratio = ps_check_lu_ratio(dt, n, n, A0, lda, F, n, ipiv);
    CHECK(ratio < PS_TEST_THRESHOLD, "%s n=%d: factors ratio %g", what, n, ratio);
    free(F);
}

/* The device-matrix level, A with ld n + 1 (columns not 16-byte aligned, so that lu_copy=1 takes
 * the aligned copy, core/lu/lu_copy.c, at every order). */
static void check_matrix_level(ps_context *ctx, ps_dtype dt, int n) {
    int lda = n + 3, nrhs = 3;
    void *A0 = test_matrix(dt, n, lda, 1e4);
    ps_matrix *A = NULL, *B = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, n, n + 1, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, nrhs, 0, &B), PS_SUCCESS);
    if (!A || !B) goto done;
    CHECK(ps_matrix_ld(A) == n + 1 && ps_matrix_rows(A) == n && ps_matrix_cols(B) == nrhs &&
              ps_matrix_dtype(B) == dt,
          "matrix accessors");
    /* ld 0: the rows, rounded up to a multiple of 32 above 32 rows (aligned columns) */
    int want_ld = n <= 32 ? (n > 1 ? n : 1) : (n + 31) / 32 * 32;
    CHECK(ps_matrix_ld(B) == want_ld, "ld 0 for %d rows gave %d, not %d", n, ps_matrix_ld(B),
          want_ld);
    CHECK_STATUS(ps_matrix_upload(A, A0, lda), PS_SUCCESS);
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    CHECK_STATUS(ps_mat_getrf(ctx, A, ipiv), PS_SUCCESS);
    check_device_factors(dt, n, A0, lda, A, ipiv, "ps_mat_getrf");
    for (int round = 0; round < 2; round++) {
        char trans = round ? 'T' : 'N';
        void *X = ps_test_random_array(dt, n, nrhs);
        void *B0 = ps_test_rhs_for(dt, trans, n, nrhs, A0, lda, X, n, n);
        void *Bh = ps_test_random_array(dt, n, nrhs);
        CHECK_STATUS(ps_matrix_upload(B, B0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_getrs(ctx, trans, A, ipiv, B), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(B, Bh, n), PS_SUCCESS);
        double solve = ps_check_solve_ratio(dt, trans, n, nrhs, A0, lda, Bh, n, B0, n);
        CHECK(solve < PS_TEST_THRESHOLD, "ps_mat_getrs %c n=%d: residual ratio %g", trans, n,
              solve);
        free(X), free(B0), free(Bh);
    }
    /* ps_mat_gesv on a fresh upload. */
    void *X = ps_test_random_array(dt, n, nrhs);
    void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, lda, X, n, n);
    void *Bh = ps_test_random_array(dt, n, nrhs);
    CHECK_STATUS(ps_matrix_upload(A, A0, lda), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_upload(B, B0, n), PS_SUCCESS);
    CHECK_STATUS(ps_mat_gesv(ctx, A, ipiv, B), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_download(B, Bh, n), PS_SUCCESS);
    double solve = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, lda, Bh, n, B0, n);
    CHECK(solve < PS_TEST_THRESHOLD, "ps_mat_gesv n=%d: residual ratio %g", n, solve);
    check_device_factors(dt, n, A0, lda, A, ipiv, "ps_mat_gesv");
    /* singular (column 3 zero): LAPACK's info and factors, B untouched */
    if (n > 3) {
        size_t es = dt == PS_DOUBLE ? sizeof(double) : sizeof(float);
        memset((char *)A0 + 3 * (size_t)lda * es, 0, (size_t)n * es);
        CHECK_STATUS(ps_matrix_upload(A, A0, lda), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_upload(B, B0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_gesv(ctx, A, ipiv, B), PS_ERR_SINGULAR);
        CHECK(ps_context_last_info(ctx) == 4, "singular at the device level: info %d, not 4",
              ps_context_last_info(ctx));
        check_device_factors(dt, n, A0, lda, A, ipiv, "singular ps_mat_gesv");
        CHECK_STATUS(ps_matrix_download(B, Bh, n), PS_SUCCESS);
        CHECK(memcmp(Bh, B0, (size_t)n * nrhs * es) == 0, "singular ps_mat_gesv wrote B");
    }
    free(X), free(B0), free(Bh), free(ipiv);
done:
    ps_matrix_destroy(A);
    ps_matrix_destroy(B);
    free(A0);
}

/* --case float_split: the float LU with lu_float_split=1 at orders whose GEMMs reach the split
 * mode's 512 x 512 (core/lu/lu.c). The factors must be as accurate as plain float's (within 4x
 * its ||PA-LU|| ratio: TF32 without the low parts would be thousands of times off) and differ
 * from them where the backend has the mode (so it was applied), and be the same bits where it
 * has not (it then computes in float, with no message left behind). Then the host drivers, LU by
 * pieces and the device level with the mode, against LAPACK's thresholds. */
static void check_float_split(void) {
    static const int ns[] = {1000, 1301};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        int n = ns[i], lda = n + 5;
        size_t bytes = sizeof(float) * (size_t)lda * n;
        float *A0 = test_matrix(PS_FLOAT, n, lda, 1e4);
        float *F[2] = {malloc(bytes), malloc(bytes)};
        int *ipiv[2] = {malloc(sizeof(int) * (size_t)n), malloc(sizeof(int) * (size_t)n)};
        double ratio[2] = {0, 0};
        int has = 0;
        for (int split = 0; split < 2; split++) {
            ps_test_tuning(split ? "lu_float_split=1" : "lu_float_split=0");
            ps_context *ctx = ps_test_context(0);
            if (split) {
                has = ps_test_has_float_split(ctx);
                CHECK(has >= 0, "float compute not set back");
            }
            memcpy(F[split], A0, bytes);
            CHECK_STATUS(ps_sgetrf(ctx, n, n, F[split], lda, ipiv[split]), PS_SUCCESS);
            CHECK(ps_context_last_error(ctx)[0] == '\0', "sgetrf n=%d split=%d left '%s'", n, split,
                  ps_context_last_error(ctx));
            ratio[split] = ps_check_lu_ratio(PS_FLOAT, n, n, A0, lda, F[split], lda, ipiv[split]);
            ps_context_destroy(ctx);
        }
        CHECK(ratio[1] <= 4 * ratio[0], "sgetrf n=%d: ||PA-LU|| ratio %g split, %g in float", n,
              ratio[1], ratio[0]);
        int same = !memcmp(F[0], F[1], bytes) && !memcmp(ipiv[0], ipiv[1], sizeof(int) * (size_t)n);
        CHECK(same == !has, "sgetrf n=%d: factors %s plain float's, but the backend %s the mode", n,
              same ? "are" : "differ from", has ? "has" : "has not");
        printf("n=%d: ||PA-LU|| ratio %.3g in float, %.3g in the split mode (%s)\n", n, ratio[0],
               ratio[1], has ? "applied" : "not available");
        for (int pieces = 0; pieces < 2; pieces++) {
            ps_test_tuning(pieces ? "lu_float_split=1,lu_overlap=1" : "lu_float_split=1");
            ps_context *ctx = ps_test_context(0);
            check_gesv(ctx, PS_FLOAT, n, lda, 3, 1e6);
            if (!pieces) {
                check_getrf_getrs(ctx, PS_FLOAT, n, lda, 1e3);
                check_matrix_level(ctx, PS_FLOAT, n);
            }
            ps_context_destroy(ctx);
        }
        free(A0), free(F[0]), free(F[1]), free(ipiv[0]), free(ipiv[1]);
    }
    ps_test_tuning(NULL);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    static const ps_dtype dtypes[] = {PS_DOUBLE, PS_FLOAT};
    /* --case split: the orders LU by pieces splits (lu_overlap=1 in CMake), at two
     * conditions, for the runs that only add that path to what the full run covers */
    const char *which = ps_test_case();
    /* split_two_lanes: the same with the contexts made to claim two lanes, so that the pieces
     * join inside the look-ahead schedule, as on CUDA (the lanes run in order here) */
    int two = which && strcmp(which, "split_two_lanes") == 0;
    int split_only = two || (which && strcmp(which, "split") == 0);
    if (which && strcmp(which, "matrix") == 0) { /* the device level alone (lu_copy=1 in CMake) */
        ps_context *ctx = ps_test_context(0);
        static const int matrix_orders[] = {4, 7, 8, 65, 150, 257};
        for (int d = 0; d < 2; d++)
            for (size_t i = 0; i < sizeof matrix_orders / sizeof matrix_orders[0]; i++)
                check_matrix_level(ctx, dtypes[d], matrix_orders[i]);
        ps_context_destroy(ctx);
        return ps_test_finish("test_lu");
    }
    if (which && strcmp(which, "float_split") == 0) {
        check_float_split();
        return ps_test_finish("test_lu");
    }
    if (which && !split_only) {
        fprintf(stderr,
                "FAIL: test_lu has no case '%s' (only 'split', 'split_two_lanes', 'matrix', "
                "'float_split')\n",
                which);
        return 1;
    }
    ps_context *ctx = ps_test_context(0);
    if (two) ps_test_two_lanes(ctx);
    for (int d = 0; d < 2; d++) {
        ps_dtype dt = dtypes[d];
        /* split: each piece of the matrix also joins the factorization only at the step that
         * needs it (a test hook), so that every piece after the first is caught up (the small
         * blocks below split these orders on every backend) */
        for (int late = 0; late <= split_only; late++) {
            ctx->test_late_joins = late;
            for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
                int n = orders[i];
                if (split_only && n < 64) continue;
                for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
                    if (split_only && c != 1 && c != 3) continue;
                    int lda = (c % 2) ? n + 1 + (int)c : (n > 0 ? n : 1);
                    check_gesv(ctx, dt, n, lda, 1, conds[c]);
                    if (n <= 257) check_gesv(ctx, dt, n, lda, 4, conds[c]);
                }
                if (n <= 257) check_getrf_getrs(ctx, dt, n, n + 2, 1e6);
            }
        }
        ctx->test_late_joins = 0;
        static const int shapes[][2] = {{1, 4},   {4, 1},   {5, 3},     {3, 5},
                                        {65, 17}, {17, 65}, {300, 257}, {257, 300}};
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            check_rectangular(ctx, dt, shapes[s][0], shapes[s][1]);
        check_matrix_level(ctx, dt, 150);
    }
    ps_context_destroy(ctx);

    /* Block sizes that leave partial blocks and one that disables blocking. */
    static const int block_sizes[] = {1, 7, 32};
    for (size_t b = 0; b < 3; b++) {
        ctx = ps_test_context(block_sizes[b]);
        if (two) ps_test_two_lanes(ctx);
        for (int late = 0; late <= split_only; late++) {
            ctx->test_late_joins = late;
            for (int d = 0; d < 2; d++) {
                check_gesv(ctx, dtypes[d], 127, 130, 2, 1e6);
                check_gesv(ctx, dtypes[d], 301, 301, 1, 1e3);
                check_getrf_getrs(ctx, dtypes[d], 65, 65, 1e3);
                check_rectangular(ctx, dtypes[d], 100, 37);
            }
        }
        ps_context_destroy(ctx);
    }
    printf("largest forward error ratio seen: %.3g (threshold %g)\n", worst_forward,
           PS_TEST_THRESHOLD);
    return ps_test_finish("test_lu");
}
