/*
 * Cholesky (potrf/potrs/posv), both precisions and both triangles, on the backend given by
 * --backend: dlatms/slatms symmetric positive definite matrices of condition 1e1..1e12, odd and
 * tiny orders, lda > n, one and several right-hand sides; LAPACK's factorization and residual
 * ratios; the other triangle and the padding never written; matrices that are not positive
 * definite at a known minor; the device-matrix level. All of it three times: with the
 * backend's own choice of algorithm, then with the recursive and the blocked one forced.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include "checks.h"
#include "test_util.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int orders[] = {0, 1, 2, 3, 4, 5, 17, 31, 32, 33, 64, 65, 127, 257, 600};
static const double conds[] = {1e1, 1e3, 1e6, 1e9, 1e12};

static void *spd_matrix(ps_dtype dt, int n, int lda, double cond) {
    void *a = ps_test_random_array(dt, lda, n);
    int info = dt == PS_DOUBLE ? ps_test_latms_d(n, cond, 'P', a, lda)
                               : ps_test_latms_s(n, cond, 'P', a, lda);
    CHECK(info == 0, "latms info %d", info);
    return a;
}

/* True when the triangle opposite to uplo (diagonal excluded) is as in the original. */
static int other_triangle_intact(ps_dtype dt, char uplo, int n, const void *a, const void *orig,
                                 int lda) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if ((uplo == 'L' ? i < j : i > j) &&
                ps_test_get(dt, a, lda, i, j) != ps_test_get(dt, orig, lda, i, j))
                return 0;
    return 1;
}

static ps_status posv(ps_context *ctx, ps_dtype dt, char uplo, int n, int nrhs, void *A, int lda,
                      void *B, int ldb) {
    return dt == PS_DOUBLE ? ps_dposv(ctx, uplo, n, nrhs, A, lda, B, ldb)
                           : ps_sposv(ctx, uplo, n, nrhs, A, lda, B, ldb);
}

static void check_posv(ps_context *ctx, ps_dtype dt, char uplo, int n, int lda, int nrhs,
                       double cond) {
    int ldb = n + (nrhs > 1 ? 3 : 0);
    if (ldb < 1) ldb = 1;
    char p = dt == PS_DOUBLE ? 'd' : 's';
    void *A0 = spd_matrix(dt, n, lda, cond);
    void *X = ps_test_random_array(dt, n > 0 ? n : 1, nrhs);
    void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, lda, X, n > 0 ? n : 1, ldb);
    void *A = ps_test_clone(dt, A0, lda, n), *B = ps_test_clone(dt, B0, ldb, nrhs);
    ps_status st = posv(ctx, dt, uplo, n, nrhs, A, lda, B, ldb);
    /* Beyond 1/eps the matrix is numerically indefinite in that precision (LAPACK also stops). */
    if (st == PS_ERR_NOT_SPD && cond * ps_test_eps(dt) >= 1e-3) {
        int info = ps_context_last_info(ctx);
        CHECK(info >= 1 && info <= n, "not-SPD info %d outside 1..%d", info, n);
        CHECK(memcmp(B, B0, ps_test_esize(dt) * (size_t)ldb * nrhs) == 0, "B written on failure");
    } else {
        CHECK(st == PS_SUCCESS, "%cposv uplo=%c n=%d lda=%d nrhs=%d cond=%g: %s: %s", p, uplo, n,
              lda, nrhs, cond, ps_status_string(st), ps_context_last_error(ctx));
        if (st == PS_SUCCESS) {
            double solve = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, lda, B, ldb, B0, ldb);
            double fact = ps_check_chol_ratio(dt, uplo, n, A0, lda, A, lda);
            CHECK(solve < PS_TEST_THRESHOLD, "%cposv uplo=%c n=%d cond=%g: residual ratio %g", p,
                  uplo, n, cond, solve);
            CHECK(fact < PS_TEST_THRESHOLD, "%cposv uplo=%c n=%d cond=%g: ||A-LL'|| ratio %g", p,
                  uplo, n, cond, fact);
            CHECK(other_triangle_intact(dt, uplo, n, A, A0, lda),
                  "%cposv uplo=%c wrote the "
                  "other triangle",
                  p, uplo);
            CHECK(ps_test_padding_intact(dt, n, lda, n, A, A0), "A's padding was written");
            CHECK(ps_test_padding_intact(dt, n, ldb, nrhs, B, B0), "B's padding was written");
        }
    }
    free(A0), free(X), free(B0), free(A), free(B);
}

/* potrf, then potrs twice on the factor. */
static void check_potrf_potrs(ps_context *ctx, ps_dtype dt, char uplo, int n) {
    int lda = n + 2, nrhs = 2, ldb = n + 1;
    void *A0 = spd_matrix(dt, n, lda, 1e4), *A = ps_test_clone(dt, A0, lda, n);
    ps_status st =
        dt == PS_DOUBLE ? ps_dpotrf(ctx, uplo, n, A, lda) : ps_spotrf(ctx, uplo, n, A, lda);
    CHECK(st == PS_SUCCESS, "potrf uplo=%c n=%d: %s", uplo, n, ps_context_last_error(ctx));
    double fact = ps_check_chol_ratio(dt, uplo, n, A0, lda, A, lda);
    CHECK(fact < PS_TEST_THRESHOLD, "potrf uplo=%c n=%d: ratio %g", uplo, n, fact);
    /* LAPACKE on the same input: the factors agree to working precision. */
    void *R = ps_test_clone(dt, A0, lda, n);
    int info = dt == PS_DOUBLE ? LAPACKE_dpotrf(LAPACK_COL_MAJOR, uplo, n, R, lda)
                               : LAPACKE_spotrf(LAPACK_COL_MAJOR, uplo, n, R, lda);
    CHECK(info == 0, "LAPACKE potrf info %d", info);
    double diff = 0, mag = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if (uplo == 'L' ? i >= j : i <= j) {
                diff =
                    fmax(diff, fabs(ps_test_get(dt, A, lda, i, j) - ps_test_get(dt, R, lda, i, j)));
                mag = fmax(mag, fabs(ps_test_get(dt, R, lda, i, j)));
            }
    CHECK(diff <= 1e4 * ps_test_eps(dt) * mag, "potrf uplo=%c n=%d: differs from LAPACKE by %g",
          uplo, n, diff);
    for (int round = 0; round < 2; round++) {
        void *X = ps_test_random_array(dt, n > 0 ? n : 1, nrhs);
        void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, lda, X, n > 0 ? n : 1, ldb);
        void *B = ps_test_clone(dt, B0, ldb, nrhs);
        st = dt == PS_DOUBLE ? ps_dpotrs(ctx, uplo, n, nrhs, A, lda, B, ldb)
                             : ps_spotrs(ctx, uplo, n, nrhs, A, lda, B, ldb);
        CHECK(st == PS_SUCCESS, "potrs: %s", ps_context_last_error(ctx));
        double solve = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, lda, B, ldb, B0, ldb);
        CHECK(solve < PS_TEST_THRESHOLD, "potrs uplo=%c n=%d: residual ratio %g", uplo, n, solve);
        free(X), free(B0), free(B);
    }
    free(A0), free(A), free(R);
}

/* Whether every entry of the uplo triangle is finite. */
static int triangle_finite(ps_dtype dt, char uplo, int n, const void *a, int lda) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if ((uplo == 'L' ? i >= j : i <= j) && !isfinite(ps_test_get(dt, a, lda, i, j)))
                return 0;
    return 1;
}

/* An SPD matrix with A(k,k) made negative, or (zero) row and column k zeroed as LAPACK's tester
 * does: the minor of order k+1 is the first that is not positive definite (the leading k x k
 * block is a principal block of an SPD matrix). */
static void check_not_spd(ps_context *ctx, ps_dtype dt, char uplo, int n, int k, int zero) {
    int lda = n + 1, nrhs = 2;
    void *A0 = spd_matrix(dt, n, lda, 1e2);
    ps_test_set(dt, A0, lda, k, k, -2.0);
    for (int i = 0; zero && i < n; i++) {
        ps_test_set(dt, A0, lda, i, k, 0.0);
        ps_test_set(dt, A0, lda, k, i, 0.0);
    }
    void *A = ps_test_clone(dt, A0, lda, n), *B = ps_test_random_array(dt, n, nrhs);
    void *B0 = ps_test_clone(dt, B, n, nrhs);
    ps_status st = posv(ctx, dt, uplo, n, nrhs, A, lda, B, n);
    CHECK(st == PS_ERR_NOT_SPD, "posv n=%d k=%d: %s", n, k, ps_status_string(st));
    CHECK(ps_context_last_info(ctx) == k + 1, "not-SPD info %d, expected %d",
          ps_context_last_info(ctx), k + 1);
    CHECK(memcmp(B, B0, ps_test_esize(dt) * (size_t)n * nrhs) == 0, "B written on failure");
    CHECK(strstr(ps_context_last_error(ctx), "not positive definite") != NULL, "message '%s'",
          ps_context_last_error(ctx));
    /* As LAPACK: the leading k x k block holds its factor. */
    if (k > 0) {
        double fact = ps_check_chol_ratio(dt, uplo, k, A0, lda, A, lda);
        CHECK(fact < PS_TEST_THRESHOLD, "leading block after failure: ratio %g", fact);
    }
    CHECK(other_triangle_intact(dt, uplo, n, A, A0, lda), "other triangle written on failure");
    /* and, as LAPACK's, no step past the failure: with a zero pivot such steps divide by it */
    CHECK(triangle_finite(dt, uplo, n, A, lda), "posv n=%d k=%d%s: NaN or Inf left in A", n, k,
          zero ? " (zero row and column)" : "");
    free(A0), free(A), free(B), free(B0);
}

/* ps_mat_posv of A0 (n x n, ld n) uploaded into A, or with solve_only ps_mat_potrs on the factor
 * A already holds, for B's columns of right-hand sides: LAPACK's residual ratio. */
static void check_device_solve(ps_context *ctx, ps_dtype dt, char uplo, const void *A0, int n,
                               ps_matrix *A, ps_matrix *B, int solve_only, const char *what) {
    int nrhs = ps_matrix_cols(B);
    void *X = ps_test_random_array(dt, n, nrhs);
    void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, n, X, n, n);
    void *Bh = ps_test_random_array(dt, n, nrhs);
    if (!solve_only) CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_upload(B, B0, n), PS_SUCCESS);
    CHECK_STATUS(solve_only ? ps_mat_potrs(ctx, uplo, A, B) : ps_mat_posv(ctx, uplo, A, B),
                 PS_SUCCESS);
    CHECK_STATUS(ps_matrix_download(B, Bh, n), PS_SUCCESS);
    double solve = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, n, Bh, n, B0, n);
    CHECK(solve < PS_TEST_THRESHOLD, "%s %c n=%d: residual ratio %g", what, uplo, n, solve);
    free(X), free(B0), free(Bh);
}

static void check_matrix_level(ps_context *ctx, ps_dtype dt, char uplo, int n) {
    void *A0 = spd_matrix(dt, n, n, 1e3);
    ps_matrix *A = NULL, *B = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, n, n + 2, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, 3, 0, &B), PS_SUCCESS);
    if (A && B) {
        check_device_solve(ctx, dt, uplo, A0, n, A, B, 0, "ps_mat_posv");
        check_device_solve(ctx, dt, uplo, A0, n, A, B, 1, "ps_mat_potrs"); /* the factor left */
        CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_potrf(ctx, uplo, A), PS_SUCCESS);
    }
    ps_matrix_destroy(A);
    ps_matrix_destroy(B);
    free(A0);
}

/* ps_mat_potrf and ps_mat_posv on a matrix of leading dimension ld (0: ps_matrix_create's
 * aligned one) whose other triangle holds NaN (--case matrix, run with chol_copy=1 so that an
 * order that is not a multiple of 8, or an odd ld in double, goes through the aligned copy, and
 * with chol_copy=0 in place): the
 * factor by LAPACK's ratio, the other triangle bitwise as it was, the solve, and a matrix that
 * is not positive definite at a known minor. */
static void check_matrix_copy(ps_context *ctx, ps_dtype dt, char uplo, int n, int ld) {
    int k = n / 2, nrhs = 2;
    size_t es = ps_test_esize(dt);
    void *A0 = spd_matrix(dt, n, n, 1e3);
    ps_matrix *A = NULL, *B = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, n, ld, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, nrhs, 0, &B), PS_SUCCESS);
    if (!A || !B) goto done;
    for (int bad = 0; bad < 2; bad++) {
        void *H = ps_test_clone(dt, A0, n, n), *F = ps_test_random_array(dt, n, n);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                if (uplo == 'L' ? i < j : i > j) ps_test_set(dt, H, n, i, j, NAN);
        if (bad) ps_test_set(dt, H, n, k, k, -2.0);
        CHECK_STATUS(ps_matrix_upload(A, H, n), PS_SUCCESS);
        ps_status st = ps_mat_potrf(ctx, uplo, A);
        int info = ps_context_last_info(ctx);
        CHECK_STATUS(ps_matrix_download(A, F, n), PS_SUCCESS);
        int kept = 1;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                size_t e = ((size_t)j * (size_t)n + (size_t)i) * es;
                if ((uplo == 'L' ? i < j : i > j) && memcmp((char *)F + e, (char *)H + e, es))
                    kept = 0;
            }
        CHECK(kept, "ps_mat_potrf %c n=%d ld=%d bad=%d: the other triangle was written", uplo, n,
              ld, bad);
        int order = bad ? k : n;
        if (bad) {
            CHECK(st == PS_ERR_NOT_SPD && info == k + 1,
                  "ps_mat_potrf %c n=%d ld=%d: %s, info %d, expected not SPD at %d", uplo, n, ld,
                  ps_status_string(st), info, k + 1);
        } else {
            CHECK_STATUS(st, PS_SUCCESS);
        }
        if (order > 0) {
            double fact = ps_check_chol_ratio(dt, uplo, order, A0, n, F, n);
            CHECK(fact < PS_TEST_THRESHOLD, "ps_mat_potrf %c n=%d ld=%d bad=%d: factor ratio %g",
                  uplo, n, ld, bad, fact);
        }
        free(H), free(F);
    }
    char what[48];
    snprintf(what, sizeof what, "ps_mat_posv (ld %d)", ld);
    check_device_solve(ctx, dt, uplo, A0, n, A, B, 0, what);
done:
    ps_matrix_destroy(A);
    ps_matrix_destroy(B);
    free(A0);
}

/* A context whose Cholesky is forced to one algorithm: chol_nb = 4096 (no test order reaches
 * it) selects the recursive one, a small odd block size the blocked one with partial last
 * blocks. */
static ps_context *context_with_chol_nb(const char *nb) {
    char knob[32];
    snprintf(knob, sizeof knob, "chol_nb=%s", nb);
    ps_test_tuning(knob);
    ps_context *ctx = ps_test_context(0);
    ps_test_tuning(NULL);
    return ctx;
}

static void run_all(ps_context *ctx) {
    static const ps_dtype dtypes[] = {PS_DOUBLE, PS_FLOAT};
    for (int d = 0; d < 2; d++)
        for (int u = 0; u < 2; u++) {
            ps_dtype dt = dtypes[d];
            char uplo = u ? 'U' : 'L';
            for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
                int n = orders[i];
                for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
                    int lda = (c % 2) ? n + 1 + (int)c : (n > 0 ? n : 1);
                    check_posv(ctx, dt, uplo, n, lda, (c % 2) ? 3 : 1, conds[c]);
                }
                if (n <= 257) check_potrf_potrs(ctx, dt, uplo, n);
            }
            static const int bad[][2] = {{1, 0},    {2, 1},     {40, 0},   {40, 17},
                                         {130, 23}, {130, 129}, {300, 200}};
            for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++)
                for (int zero = 0; zero < 2; zero++)
                    check_not_spd(ctx, dt, uplo, bad[b][0], bad[b][1], zero);
            check_matrix_level(ctx, dt, uplo, 150);
        }
}

/* --case float_split: the float Cholesky with chol_float_split=1 at orders whose updates reach
 * the split mode's 512 x 512 GEMMs (blocks of 512 on CUDA). The factor must be nearly as
 * accurate as plain float's (within 8x its ratio: TF32X3 keeps 22 of float's 24 bits, and an
 * H200 gave 1.3-3x; TF32 alone would be thousands of times off), differ from it where the
 * backend has the mode (so it was applied), and be the same bits where it has not (it then
 * computes in float, with no message left behind). Then ps_sposv and the device level with the
 * mode, by LAPACK's ratios. */
static void check_float_split(void) {
    static const int ns[] = {1537, 2048};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int u = 0; u < 2; u++) {
            int n = ns[i], lda = n + 5;
            char uplo = u ? 'U' : 'L';
            size_t bytes = sizeof(float) * (size_t)lda * n;
            float *A0 = spd_matrix(PS_FLOAT, n, lda, 1e3);
            float *F[2] = {malloc(bytes), malloc(bytes)};
            double ratio[2] = {0, 0};
            int has = 0;
            for (int split = 0; split < 2; split++) {
                ps_test_tuning(split ? "chol_float_split=1" : "chol_float_split=0");
                ps_context *ctx = ps_test_context(0);
                if (split) {
                    has = ps_test_has_float_split(ctx);
                    CHECK(has >= 0, "float compute not set back");
                }
                memcpy(F[split], A0, bytes);
                CHECK_STATUS(ps_spotrf(ctx, uplo, n, F[split], lda), PS_SUCCESS);
                CHECK(ps_context_last_error(ctx)[0] == '\0', "spotrf %c n=%d split=%d left '%s'",
                      uplo, n, split, ps_context_last_error(ctx));
                ratio[split] = ps_check_chol_ratio(PS_FLOAT, uplo, n, A0, lda, F[split], lda);
                ps_context_destroy(ctx);
            }
            CHECK(ratio[0] < PS_TEST_THRESHOLD && ratio[1] <= 8 * ratio[0],
                  "spotrf %c n=%d: factor ratio %g split, %g in float", uplo, n, ratio[1],
                  ratio[0]);
            int same = !memcmp(F[0], F[1], bytes);
            CHECK(same == !has,
                  "spotrf %c n=%d: factor %s plain float's, but the backend %s the mode", uplo, n,
                  same ? "is" : "differs from", has ? "has" : "has not");
            printf("%c n=%d: factor ratio %.3g in float, %.3g in the split mode (%s)\n", uplo, n,
                   ratio[0], ratio[1], has ? "applied" : "not available");
            ps_test_tuning("chol_float_split=1");
            ps_context *ctx = ps_test_context(0);
            check_posv(ctx, PS_FLOAT, uplo, n, lda, 3, 1e3);
            check_matrix_level(ctx, PS_FLOAT, uplo, n);
            ps_context_destroy(ctx);
            free(A0), free(F[0]), free(F[1]);
        }
    ps_test_tuning(NULL);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    const char *which = ps_test_case();
    if (which && strcmp(which, "matrix") == 0) { /* the device level alone (chol_copy=1 in CMake) */
        static const int matrix_orders[] = {4, 7, 8, 65, 150, 257};
        static const ps_dtype dtypes[] = {PS_DOUBLE, PS_FLOAT};
        ps_context *ctx = ps_test_context(0);
        for (int d = 0; d < 2; d++)
            for (int u = 0; u < 2; u++)
                for (size_t i = 0; i < sizeof matrix_orders / sizeof matrix_orders[0]; i++) {
                    int n = matrix_orders[i];
                    check_matrix_copy(ctx, dtypes[d], u ? 'U' : 'L', n, n + 1);
                    check_matrix_copy(ctx, dtypes[d], u ? 'U' : 'L', n, 0);
                }
        ps_context_destroy(ctx);
        return ps_test_finish("test_chol");
    }
    if (which && strcmp(which, "float_split") == 0) {
        check_float_split();
        return ps_test_finish("test_chol");
    }
    if (which) {
        fprintf(stderr, "FAIL: test_chol has no case '%s' (only 'matrix', 'float_split')\n", which);
        return 1;
    }
    /* The backend's own choice, then each algorithm on its own. */
    ps_context *ctx = ps_test_context(0);
    run_all(ctx);
    ps_context_destroy(ctx);
    static const char *const forced[] = {"4096", "23"};
    for (int f = 0; f < 2; f++) {
        ctx = context_with_chol_nb(forced[f]);
        run_all(ctx);
        ps_context_destroy(ctx);
    }
    return ps_test_finish("test_chol");
}
