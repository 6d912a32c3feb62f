/* ps_dsposv (float Cholesky, double refinement, LAPACK's dsposv) on libtmglib SPD matrices of
 * prescribed condition: the answer, what iter says about A, the unread triangle never read, the
 * fallbacks (A beyond float's range, not positive definite), and argument errors. */
#include "checks.h"
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* An SPD matrix of condition cond (order n, leading dimension lda) whose triangle opposite uplo
 * is NaN: dsposv must read only its uplo triangle. full: the symmetric matrix, for the checks. */
static double *spd(int n, int lda, double cond, char uplo, double scale, double **full) {
    double *a = ps_test_random_array(PS_DOUBLE, lda, n);
    CHECK(ps_test_latms_d(n, cond, 'P', a, lda) == 0, "dlatms failed");
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) a[i + (size_t)j * lda] *= scale;
    *full = ps_test_clone(PS_DOUBLE, a, lda, n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if ((uplo == 'L' && i < j) || (uplo == 'U' && i > j)) a[i + (size_t)j * lda] = NAN;
    return a;
}

/* max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf) on the host. */
static double backward_error(int n, int nrhs, const double *A, int lda, const double *X, int ldx,
                             const double *B, int ldb) {
    double anrm = 0, worst = 0;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int k = 0; k < n; k++) s += fabs(A[i + (size_t)k * lda]);
        anrm = fmax(anrm, s);
    }
    for (int j = 0; j < nrhs; j++) {
        double rn = 0, xn = 0;
        for (int i = 0; i < n; i++) {
            double s = B[i + (size_t)j * ldb];
            for (int k = 0; k < n; k++) s -= A[i + (size_t)k * lda] * X[k + (size_t)j * ldx];
            rn = fmax(rn, fabs(s));
            xn = fmax(xn, fabs(X[i + (size_t)j * ldx]));
        }
        double be = rn == 0 ? 0 : rn / (anrm * xn);
        if (!(be <= worst)) worst = be;
    }
    return worst;
}

/* One dsposv; expect: the iter the call must report (1: any >= 0, 0: any, else that code). */
static void check_solve(ps_context *ctx, int n, int nrhs, char uplo, double cond, double scale,
                        int expect) {
    int lda = n + 3, ldb = n + 2, ldx = n + 1, iter = -999;
    double *full, *A = spd(n, lda, cond, uplo, scale, &full);
    double *A0 = ps_test_clone(PS_DOUBLE, A, lda, n);
    double *B = ps_test_random_array(PS_DOUBLE, ldb, nrhs);
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) B[i + (size_t)j * ldb] *= scale;
    double *B0 = ps_test_clone(PS_DOUBLE, B, ldb, nrhs);
    double *X = ps_test_random_array(PS_DOUBLE, ldx, nrhs);
    double *X0 = ps_test_clone(PS_DOUBLE, X, ldx, nrhs);
    ps_status st = ps_dsposv(ctx, uplo, n, nrhs, A, lda, B, ldb, X, ldx, &iter);
    ps_refine_result r = ps_context_refine_result(ctx);
    char what[96];
    snprintf(what, sizeof what, "dsposv %c n=%d nrhs=%d cond=%.0e scale=%.0e", uplo, n, nrhs, cond,
             scale);
    CHECK(st == PS_SUCCESS, "%s: %s (%s)", what, ps_status_string(st), ps_context_last_error(ctx));
    if (st == PS_SUCCESS && n > 0) {
        CHECK(expect == 1 ? iter >= 0 : expect == 0 || iter == expect, "%s: iter %d, expected %d",
              what, iter, expect);
        CHECK(iter == r.iter, "%s: iter %d but the result says %d", what, iter, r.iter);
        CHECK(memcmp(B, B0, sizeof(double) * (size_t)ldb * nrhs) == 0, "%s: B written", what);
        CHECK(ps_test_padding_intact(PS_DOUBLE, n, ldx, nrhs, X, X0), "%s: X padding", what);
        double ratio = ps_check_solve_ratio(PS_DOUBLE, 'N', n, nrhs, full, lda, X, ldx, B, ldb);
        CHECK(ratio < PS_TEST_THRESHOLD, "%s: residual ratio %.3g", what, ratio);
        if (iter >= 0) { /* LAPACK's claim: the test met, A unchanged */
            CHECK(r.path == PS_REFINE_CLASSICAL, "%s: path %s", what, ps_refine_path_name(r.path));
            double be = backward_error(n, nrhs, full, lda, X, ldx, B, ldb);
            double bound = 4 * sqrt((double)n) * ps_test_eps(PS_DOUBLE);
            CHECK(be <= bound, "%s: backward error %.3g above %.3g", what, be, bound);
            /* and LAPACK's own test of a refined answer (ddrvac): below 1 */
            double lapack = ratio * n / sqrt((double)n);
            CHECK(lapack < 1, "%s: ddrvac's ratio %.3g", what, lapack);
            CHECK(memcmp(A, A0, sizeof(double) * (size_t)lda * n) == 0 || n == 0,
                  "%s: A changed with iter %d", what, iter);
        } else { /* fell back: A's triangle holds the double Cholesky factor, the rest as was */
            CHECK(r.path == PS_REFINE_FALLBACK && isnan(r.backward_error), "%s: path %s", what,
                  ps_refine_path_name(r.path));
            double f = ps_check_chol_ratio(PS_DOUBLE, uplo, n, full, lda, A, lda);
            CHECK(f < PS_TEST_THRESHOLD, "%s: factor ratio %.3g", what, f);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    if ((uplo == 'L' && i < j) || (uplo == 'U' && i > j))
                        CHECK(isnan(A[i + (size_t)j * lda]), "%s: unread A(%d,%d) written", what, i,
                              j);
        }
    }
    free(full), free(A), free(A0), free(B), free(B0), free(X), free(X0);
}

static void test_solve(ps_context *ctx) {
    static const int orders[] = {1, 2, 3, 31, 100, 257};
    for (size_t k = 0; k < sizeof orders / sizeof orders[0]; k++)
        for (int u = 0; u < 2; u++) {
            char uplo = u ? 'U' : 'L';
            /* no claim of convergence is possible at n <= 4: straight to double */
            int converges = orders[k] > 4 ? 1 : PS_REFINE_NOT_CONVERGED;
            check_solve(ctx, orders[k], k % 2 ? 3 : 1, uplo, 10, 1, converges);
            check_solve(ctx, orders[k], 2, uplo, 1e4, 1, converges);
            check_solve(ctx, orders[k], 15, uplo, 3e7, 1, 0); /* float at its limit */
        }
    /* condition 1e12 defeats float: no convergence within 30 steps, or not positive definite in
     * float; either way the answer is double Cholesky's */
    int iter_codes = 0;
    for (int u = 0; u < 2; u++) {
        int n = 120, lda = n, iter;
        double *full, *A = spd(n, lda, 1e12, u ? 'U' : 'L', 1, &full);
        double *B = ps_test_random_array(PS_DOUBLE, n, 1), *X = malloc(sizeof(double) * n);
        ps_status st = ps_dsposv(ctx, u ? 'U' : 'L', n, 1, A, lda, B, n, X, n, &iter);
        CHECK(st == PS_SUCCESS &&
                  (iter == PS_REFINE_NOT_CONVERGED || iter == PS_REFINE_LOW_SINGULAR),
              "dsposv cond 1e12: %s, iter %d", ps_status_string(st), iter);
        double ratio = ps_check_solve_ratio(PS_DOUBLE, 'N', n, 1, full, lda, X, n, B, n);
        CHECK(ratio < PS_TEST_THRESHOLD, "dsposv cond 1e12: residual ratio %.3g", ratio);
        iter_codes += iter < 0;
        free(full), free(A), free(B), free(X);
    }
    CHECK(iter_codes == 2, "dsposv cond 1e12: fell back %d times of 2", iter_codes);
    /* entries beyond float's range: LAPACK's -2, solved in double */
    check_solve(ctx, 40, 2, 'L', 10, 1e300, PS_REFINE_OVERFLOW);
    check_solve(ctx, 40, 2, 'U', 10, 1e300, PS_REFINE_OVERFLOW);
}

static void test_not_spd(ps_context *ctx) {
    int n = 9, iter = 5;
    double A[81] = {0}, B[9], X[9], X0[9];
    for (int i = 0; i < n; i++) A[i * 10] = 2, B[i] = 1, X[i] = X0[i] = 7;
    A[4 * 10] = -1; /* the leading minor of order 5 is not positive definite */
    ps_status st = ps_dsposv(ctx, 'L', n, 1, A, n, B, n, X, n, &iter);
    CHECK(st == PS_ERR_NOT_SPD && ps_context_last_info(ctx) == 5,
          "dsposv not SPD: %s, info %d (%s)", ps_status_string(st), ps_context_last_info(ctx),
          ps_context_last_error(ctx));
    CHECK(iter == PS_REFINE_LOW_SINGULAR, "dsposv not SPD: iter %d", iter);
    CHECK(memcmp(X, X0, sizeof X) == 0, "dsposv not SPD: X written");
    CHECK(A[0] == sqrt(2.0), "dsposv not SPD: A(1,1) = %g, not its factor", A[0]);
    /* row and column 4 zero (LAPACK's tester does so): no step past that pivot, which would
     * divide by it, may leave NaN or Inf in the triangle */
    enum { N = 70 };
    double *Z = malloc(sizeof(double) * N * N), Bz[N], Xz[N];
    for (int j = 0; j < N; j++) {
        Bz[j] = 1, Xz[j] = 7;
        for (int i = 0; i < N; i++) Z[i + j * N] = i == j ? 4 : 1.0 / (1 + abs(i - j));
    }
    for (int i = 0; i < N; i++) Z[i + 3 * N] = Z[3 + i * N] = 0;
    st = ps_dsposv(ctx, 'L', N, 1, Z, N, Bz, N, Xz, N, &iter);
    CHECK(st == PS_ERR_NOT_SPD && ps_context_last_info(ctx) == 4, "dsposv zero pivot: %s, info %d",
          ps_status_string(st), ps_context_last_info(ctx));
    int finite = 1;
    for (int j = 0; j < N; j++)
        for (int i = j; i < N; i++) finite &= isfinite(Z[i + j * N]) != 0;
    CHECK(finite, "dsposv zero pivot: NaN or Inf left in A");
    free(Z);
}

/* A refused call: PS_ERR_INVALID_ARGUMENT with LAPACK's info (minus the argument's position,
 * the context counting as the first) and X untouched. */
#define REFUSED(call, pos, what)                                                                   \
    do {                                                                                           \
        X[0] = X[1] = 7;                                                                           \
        ps_status st = (call);                                                                     \
        CHECK(st == PS_ERR_INVALID_ARGUMENT && ps_context_last_info(ctx) == -(pos) && X[0] == 7,   \
              "dsposv bad %s: %s, info %d", what, ps_status_string(st),                            \
              ps_context_last_info(ctx));                                                          \
    } while (0)

static void test_errors(ps_context *ctx) {
    double A[4] = {2, 0, 0, 2}, B[2] = {1, 1}, X[2];
    int iter;
    REFUSED(ps_dsposv(ctx, 'X', 2, 1, A, 2, B, 2, X, 2, &iter), 2, "uplo");
    REFUSED(ps_dsposv(ctx, 'L', -1, 1, A, 2, B, 2, X, 2, &iter), 3, "n");
    REFUSED(ps_dsposv(ctx, 'L', 2, -1, A, 2, B, 2, X, 2, &iter), 4, "nrhs");
    REFUSED(ps_dsposv(ctx, 'L', 2, 1, NULL, 2, B, 2, X, 2, &iter), 5, "A");
    REFUSED(ps_dsposv(ctx, 'L', 2, 1, A, 1, B, 2, X, 2, &iter), 6, "lda");
    REFUSED(ps_dsposv(ctx, 'L', 2, 1, A, 2, B, 1, X, 2, &iter), 8, "ldb");
    REFUSED(ps_dsposv(ctx, 'L', 2, 1, A, 2, B, 2, X, 1, &iter), 10, "ldx");
    REFUSED(ps_dsposv(ctx, 'L', 2, 1, A, 2, B, 2, X, 2, NULL), 11, "iter");
    REFUSED(ps_dsposv(ctx, 'L', 2, 1, A, 2, X, 2, X, 2, &iter), 9, "X overlapping B");
    CHECK(ps_dsposv(NULL, 'L', 2, 1, A, 2, B, 2, X, 2, &iter) == PS_ERR_INVALID_ARGUMENT,
          "dsposv NULL context");
    double N[4] = {2, NAN, 0, 2};
    CHECK(ps_dsposv(ctx, 'L', 2, 1, N, 2, B, 2, X, 2, &iter) == PS_ERR_NON_FINITE,
          "dsposv NaN in the triangle read");
    CHECK(ps_dsposv(ctx, 'U', 2, 1, N, 2, B, 2, X, 2, &iter) == PS_SUCCESS &&
              fabs(X[0] - 0.5) < 1e-15,
          "dsposv NaN in the triangle not read: %s", ps_context_last_error(ctx));
    CHECK(ps_dsposv(ctx, 'L', 0, 1, A, 1, B, 1, X, 1, &iter) == PS_SUCCESS && iter == 0,
          "dsposv n = 0");
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    ps_context *ctx = ps_test_context(0);
    if (!ctx) return ps_test_finish("test_dsposv");
    const char *c = ps_test_case();
    if (!c || !strcmp(c, "solve")) test_solve(ctx);
    if (!c || !strcmp(c, "not_spd")) test_not_spd(ctx);
    if (!c || !strcmp(c, "errors")) test_errors(ctx);
    int rc = ps_test_finish("test_dsposv");
    ps_context_destroy(ctx);
    return rc;
}
