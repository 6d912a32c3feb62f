/*
 * Inversion (getri from getrf's factors; gjinv, blocked Gauss-Jordan, in its three variants) and
 * the striped Gauss-Jordan solver gjsv, both precisions, on the backend given by --backend:
 * dlatms/slatms matrices of condition 1e1..1e12, n in {0,1,2,3,31,32,33,100,257,1000}, lda > n,
 * block sizes and stripe heights that do not divide n, one and several right-hand sides;
 * LAPACK's ratios ||I - A inv(A)|| / (n ||A|| ||inv(A)|| eps) and the scaled residual; singular
 * matrices with the failing index and the arrays left as they were; NaN input; the device-matrix
 * level; the options and bad arguments.
 * two_lanes: inverse, solve and singular again with the context made to claim two lanes, so that
 * the look-ahead schedules of gjinv (device and concurrent variants) and gjsv, which only
 * backends with two lanes (CUDA) take, run on every backend: the lanes run in order here, so
 * this checks the schedules' split of the work, not their synchronization.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "checks.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int orders[] = {0, 1, 2, 3, 31, 32, 33, 100, 257, 1000};
static const double conds[] = {1e1, 1e6, 1e12};
static const ps_gj_variant variants[] = {PS_GJ_DEVICE, PS_GJ_HYBRID, PS_GJ_CONCURRENT};

static ps_status getrf(ps_context *ctx, ps_dtype dt, int n, void *A, int lda, int *ipiv) {
    return dt == PS_DOUBLE ? ps_dgetrf(ctx, n, n, A, lda, ipiv)
                           : ps_sgetrf(ctx, n, n, A, lda, ipiv);
}
static ps_status getri(ps_context *ctx, ps_dtype dt, int n, void *A, int lda, const int *ipiv) {
    return dt == PS_DOUBLE ? ps_dgetri(ctx, n, A, lda, ipiv) : ps_sgetri(ctx, n, A, lda, ipiv);
}
static ps_status gjinv(ps_context *ctx, ps_dtype dt, int n, void *A, int lda) {
    return dt == PS_DOUBLE ? ps_dgjinv(ctx, n, A, lda) : ps_sgjinv(ctx, n, A, lda);
}
static ps_status gjsv(ps_context *ctx, ps_dtype dt, int n, int nrhs, void *A, int lda, void *B,
                      int ldb) {
    return dt == PS_DOUBLE ? ps_dgjsv(ctx, n, nrhs, A, lda, B, ldb)
                           : ps_sgjsv(ctx, n, nrhs, A, lda, B, ldb);
}

/* nb 0: the context's block size (automatic unless the run's --tuning sets gj_nb). */
static void set_options(ps_context *ctx, ps_gj_variant v, int nb, int stripe) {
    if (nb == 0) nb = ps_context_gj_options(ctx).block_size;
    ps_gj_options o = {v, nb, stripe};
    CHECK_STATUS(ps_context_set_gj_options(ctx, &o), PS_SUCCESS);
}

static void *latms(ps_dtype dt, int n, int lda, double cond) {
    void *a = ps_test_random_array(dt, lda > 0 ? lda : 1, n);
    int info = dt == PS_DOUBLE ? ps_test_latms_d(n, cond, 'N', a, lda)
                               : ps_test_latms_s(n, cond, 'N', a, lda);
    CHECK(info == 0, "latms info %d", info);
    return a;
}

static size_t bytes(ps_dtype dt, int ld, int cols) {
    return ps_test_esize(dt) * (size_t)(ld > 0 ? ld : 1) * (size_t)(cols > 0 ? cols : 0);
}

/* Beyond 1/eps (cond 1e12 in float) a matrix is singular in that precision: an exact zero pivot
 * is then a right answer, provided nothing was written. */
static int numerically_singular(ps_dtype dt, double cond) {
    return cond * ps_test_eps(dt) >= 1;
}

/* One inversion by `method` (0 getri, 1 gjinv) of A0; ratio and padding. */
static void check_inverse(ps_context *ctx, ps_dtype dt, int method, const void *A0, int n, int lda,
                          double cond) {
    char p = dt == PS_DOUBLE ? 'd' : 's';
    const char *name =
        method == 0 ? "getri" : ps_gj_variant_name(ps_context_gj_options(ctx).variant);
    void *A = ps_test_clone(dt, A0, lda, n);
    ps_status st;
    if (method == 0) {
        int *ipiv = malloc(sizeof(int) * (size_t)(n + 1));
        st = getrf(ctx, dt, n, A, lda, ipiv);
        if (st == PS_SUCCESS) st = getri(ctx, dt, n, A, lda, ipiv);
        free(ipiv);
    } else {
        st = gjinv(ctx, dt, n, A, lda);
    }
    if (st == PS_ERR_SINGULAR && numerically_singular(dt, cond)) {
        if (method == 1)
            CHECK(memcmp(A, A0, bytes(dt, lda, n)) == 0, "%cgjinv n=%d: A written when singular", p,
                  n);
        free(A);
        return;
    }
    CHECK(st == PS_SUCCESS, "%c%s n=%d lda=%d cond=%g: %s: %s", p, name, n, lda, cond,
          ps_status_string(st), ps_context_last_error(ctx));
    if (st == PS_SUCCESS) {
        double r = ps_check_inverse_ratio(dt, n, A0, lda, A, lda);
        CHECK(r < PS_TEST_THRESHOLD, "%c%s n=%d lda=%d cond=%g: ||I - A inv(A)|| ratio %g", p, name,
              n, lda, cond, r);
        CHECK(ps_test_padding_intact(dt, n, lda, n, A, A0), "%c%s n=%d wrote into the padding", p,
              name, n);
    }
    free(A);
}

static void check_gjsv(ps_context *ctx, ps_dtype dt, const void *A0, int n, int lda, int nrhs,
                       double cond) {
    char p = dt == PS_DOUBLE ? 'd' : 's';
    int ldb = n + (nrhs > 1 ? 2 : 0), ldx = n > 0 ? n : 1;
    if (ldb < 1) ldb = 1;
    void *X = ps_test_random_array(dt, ldx, nrhs);
    void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, lda, X, ldx, ldb);
    void *A = ps_test_clone(dt, A0, lda, n), *B = ps_test_clone(dt, B0, ldb, nrhs);
    ps_status st = gjsv(ctx, dt, n, nrhs, A, lda, B, ldb);
    int stripe = ps_context_gj_options(ctx).stripe_size;
    if (st == PS_ERR_SINGULAR && numerically_singular(dt, cond)) {
        CHECK(memcmp(A, A0, bytes(dt, lda, n)) == 0 && memcmp(B, B0, bytes(dt, ldb, nrhs)) == 0,
              "%cgjsv n=%d: arrays written when singular", p, n);
    } else {
        CHECK(st == PS_SUCCESS, "%cgjsv n=%d lda=%d nrhs=%d stripe=%d cond=%g: %s: %s", p, n, lda,
              nrhs, stripe, cond, ps_status_string(st), ps_context_last_error(ctx));
        if (st == PS_SUCCESS) {
            double r = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, lda, B, ldb, B0, ldb);
            CHECK(r < PS_TEST_THRESHOLD, "%cgjsv n=%d nrhs=%d stripe=%d cond=%g: residual ratio %g",
                  p, n, nrhs, stripe, cond, r);
            CHECK(ps_test_padding_intact(dt, n, lda, n, A, A0) &&
                      ps_test_padding_intact(dt, n, ldb, nrhs, B, B0),
                  "%cgjsv n=%d wrote into the padding", p, n);
        }
    }
    free(X), free(B0), free(A), free(B);
}

/* Every order, condition and variant; the largest order at one condition. */
static void test_inverse(ps_context *ctx, ps_dtype dt) {
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
        for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
            int n = orders[o];
            if (n > 300 && c != 1) continue;
            int lda = n + (c == 1 ? 3 : 0);
            if (lda < 1) lda = 1;
            void *A0 = latms(dt, n, lda, conds[c]);
            set_options(ctx, PS_GJ_DEVICE, 0, 0);
            check_inverse(ctx, dt, 0, A0, n, lda, conds[c]);
            for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
                set_options(ctx, variants[v], 0, 0);
                check_inverse(ctx, dt, 1, A0, n, lda, conds[c]);
            }
            free(A0);
        }
    /* Block sizes that do not divide n, a single column per block, and more than n. */
    static const int nbs[] = {1, 7, 32, 500};
    void *A0 = latms(dt, 100, 101, 1e4);
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++)
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            set_options(ctx, variants[v], nbs[i], 0);
            check_inverse(ctx, dt, 1, A0, 100, 101, 1e4);
        }
    free(A0);
    set_options(ctx, PS_GJ_DEVICE, 0, 0);
}

static void test_solve(ps_context *ctx, ps_dtype dt) {
    for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
        for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
            int n = orders[o];
            if (n > 300 && c != 1) continue;
            int lda = n + (c == 1 ? 3 : 0);
            if (lda < 1) lda = 1;
            void *A0 = latms(dt, n, lda, conds[c]);
            set_options(ctx, PS_GJ_DEVICE, 0, 0);
            check_gjsv(ctx, dt, A0, n, lda, c == 0 ? 1 : 3, conds[c]);
            free(A0);
        }
    /* Stripes that do not divide n, one row per stripe, wider than n; nrhs = 0 and many. */
    static const int stripes[] = {1, 7, 32, 64, 300};
    void *A0 = latms(dt, 257, 260, 1e5);
    for (size_t i = 0; i < sizeof stripes / sizeof stripes[0]; i++) {
        set_options(ctx, PS_GJ_DEVICE, 0, stripes[i]);
        check_gjsv(ctx, dt, A0, 257, 260, 2, 1e5);
    }
    set_options(ctx, PS_GJ_DEVICE, 0, 16);
    check_gjsv(ctx, dt, A0, 257, 260, 0, 1e5);
    check_gjsv(ctx, dt, A0, 257, 260, 40, 1e5);
    free(A0);
    set_options(ctx, PS_GJ_DEVICE, 0, 0);
}

/* A zero column j: every method fails at column j + 1 and writes nothing. */
static void test_singular(ps_context *ctx, ps_dtype dt) {
    static const int cases[][2] = {{1, 0}, {2, 1}, {3, 0}, {33, 32}, {100, 40}, {257, 200}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int n = cases[c][0], j = cases[c][1], lda = n + 1;
        void *A0 = latms(dt, n, lda, 10.0);
        for (int i = 0; i < n; i++) ps_test_set(dt, A0, lda, i, j, 0.0);
        for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
            set_options(ctx, variants[v], v == 0 ? 0 : 16, 0);
            void *A = ps_test_clone(dt, A0, lda, n);
            ps_status st = gjinv(ctx, dt, n, A, lda);
            CHECK(st == PS_ERR_SINGULAR && ps_context_last_info(ctx) == j + 1,
                  "gjinv %s n=%d zero column %d: %s info %d", ps_gj_variant_name(variants[v]), n,
                  j + 1, ps_status_string(st), ps_context_last_info(ctx));
            CHECK(memcmp(A, A0, bytes(dt, lda, n)) == 0, "gjinv n=%d: A written when singular", n);
            free(A);
        }
        for (int stripe = 0; stripe <= 16; stripe += 16) {
            set_options(ctx, PS_GJ_DEVICE, 0, stripe);
            void *A = ps_test_clone(dt, A0, lda, n);
            void *B0 = ps_test_random_array(dt, n, 2), *B = ps_test_clone(dt, B0, n, 2);
            ps_status st = gjsv(ctx, dt, n, 2, A, lda, B, n);
            CHECK(st == PS_ERR_SINGULAR && ps_context_last_info(ctx) == j + 1,
                  "gjsv n=%d stripe=%d zero column %d: %s info %d", n, stripe, j + 1,
                  ps_status_string(st), ps_context_last_info(ctx));
            CHECK(memcmp(A, A0, bytes(dt, lda, n)) == 0 && memcmp(B, B0, bytes(dt, n, 2)) == 0,
                  "gjsv n=%d: arrays written when singular", n);
            free(A), free(B0), free(B);
        }
        /* getri on factors with U(j,j) = 0 (getrf reports it and returns the factors) */
        void *F = ps_test_clone(dt, A0, lda, n);
        int *ipiv = malloc(sizeof(int) * (size_t)n);
        CHECK_STATUS(getrf(ctx, dt, n, F, lda, ipiv), PS_ERR_SINGULAR);
        void *F0 = ps_test_clone(dt, F, lda, n);
        ps_status st = getri(ctx, dt, n, F, lda, ipiv);
        CHECK(st == PS_ERR_SINGULAR && ps_context_last_info(ctx) == j + 1,
              "getri n=%d zero U(%d,%d): %s info %d", n, j + 1, j + 1, ps_status_string(st),
              ps_context_last_info(ctx));
        CHECK(memcmp(F, F0, bytes(dt, lda, n)) == 0, "getri n=%d: A written when singular", n);
        free(F), free(F0), free(ipiv), free(A0);
    }
    set_options(ctx, PS_GJ_DEVICE, 0, 0);
}

/* NaN or Inf anywhere in the input: PS_ERR_NON_FINITE, nothing written. */
static void test_non_finite(ps_context *ctx, ps_dtype dt) {
    int n = 40, lda = 41;
    for (int which = 0; which < 2; which++) {
        void *A0 = latms(dt, n, lda, 10.0);
        ps_test_set(dt, A0, lda, 17, 23, which ? INFINITY : NAN);
        void *A = ps_test_clone(dt, A0, lda, n);
        void *B0 = ps_test_random_array(dt, n, 1), *B = ps_test_clone(dt, B0, n, 1);
        CHECK_STATUS(gjinv(ctx, dt, n, A, lda), PS_ERR_NON_FINITE);
        CHECK_STATUS(gjsv(ctx, dt, n, 1, A, lda, B, n), PS_ERR_NON_FINITE);
        int *ipiv = malloc(sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++) ipiv[i] = i + 1;
        CHECK_STATUS(getri(ctx, dt, n, A, lda, ipiv), PS_ERR_NON_FINITE);
        CHECK(memcmp(A, A0, bytes(dt, lda, n)) == 0 && memcmp(B, B0, bytes(dt, n, 1)) == 0,
              "arrays written on non-finite input");
        /* and a NaN in B only */
        void *A1 = latms(dt, n, lda, 10.0);
        ps_test_set(dt, B, n, 5, 0, NAN);
        CHECK_STATUS(gjsv(ctx, dt, n, 1, A1, lda, B, n), PS_ERR_NON_FINITE);
        free(A0), free(A), free(A1), free(B0), free(B), free(ipiv);
    }
}

/* ps_mat_getri/gjinv/gjsv on device matrices, against the host drivers' ratios. */
static void test_device_level(ps_context *ctx, ps_dtype dt) {
    static const int sizes[] = {1, 33, 130};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int n = sizes[i];
        void *A0 = latms(dt, n, n, 1e3);
        ps_matrix *A = NULL, *B = NULL;
        CHECK_STATUS(ps_matrix_create(ctx, dt, n, n, n + 2, &A), PS_SUCCESS);
        if (!A) {
            free(A0);
            continue;
        }
        void *X = ps_test_clone(dt, A0, n, n);
        /* gjinv */
        CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_gjinv(ctx, A), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(A, X, n), PS_SUCCESS);
        double r = ps_check_inverse_ratio(dt, n, A0, n, X, n);
        CHECK(r < PS_TEST_THRESHOLD, "ps_mat_gjinv n=%d: ratio %g", n, r);
        /* getrf + getri */
        int *ipiv = malloc(sizeof(int) * (size_t)n);
        CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_getrf(ctx, A, ipiv), PS_SUCCESS);
        CHECK_STATUS(ps_mat_getri(ctx, A, ipiv), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(A, X, n), PS_SUCCESS);
        r = ps_check_inverse_ratio(dt, n, A0, n, X, n);
        CHECK(r < PS_TEST_THRESHOLD, "ps_mat_getri n=%d: ratio %g", n, r);
        /* gjsv */
        void *Xt = ps_test_random_array(dt, n, 2),
             *B0 = ps_test_rhs_for(dt, 'N', n, 2, A0, n, Xt, n, n);
        void *Bh = ps_test_clone(dt, B0, n, 2);
        CHECK_STATUS(ps_matrix_create(ctx, dt, n, 2, n, &B), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_upload(B, B0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_gjsv(ctx, A, B), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(B, Bh, n), PS_SUCCESS);
        r = ps_check_solve_ratio(dt, 'N', n, 2, A0, n, Bh, n, B0, n);
        CHECK(r < PS_TEST_THRESHOLD, "ps_mat_gjsv n=%d: residual ratio %g", n, r);
        /* a singular device matrix is left as it was */
        for (int k = 0; k < n; k++) ps_test_set(dt, A0, n, k, n / 2, 0.0);
        CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_gjinv(ctx, A), PS_ERR_SINGULAR);
        CHECK_STATUS(ps_matrix_download(A, X, n), PS_SUCCESS);
        CHECK(memcmp(X, A0, bytes(dt, n, n)) == 0, "ps_mat_gjinv n=%d: A written when singular", n);
        /* a mismatched right-hand side is refused */
        ps_matrix *C = NULL;
        CHECK_STATUS(ps_matrix_create(ctx, dt, n + 1, 1, n + 1, &C), PS_SUCCESS);
        CHECK(ps_mat_gjsv(ctx, A, C) == PS_ERR_INVALID_ARGUMENT, "gjsv with B of n+1 rows");
        ps_matrix_destroy(C);
        ps_matrix_destroy(A), ps_matrix_destroy(B);
        free(A0), free(X), free(ipiv), free(Xt), free(B0), free(Bh);
    }
}

static void test_errors(ps_context *ctx) {
    double a[4] = {1, 2, 3, 4}, b[2] = {1, 1};
    int ipiv[2] = {1, 2}, bad_ipiv[2] = {3, 2};
    CHECK_STATUS(ps_dgjinv(ctx, -1, a, 1), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgjinv(ctx, 2, NULL, 2), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgjinv(ctx, 2, a, 1), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgjinv(NULL, 2, a, 2), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgetri(ctx, 2, a, 2, NULL), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgetri(ctx, 2, a, 2, bad_ipiv), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgetri(ctx, 2, a, 1, ipiv), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgjsv(ctx, 2, -1, a, 2, b, 2), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgjsv(ctx, 2, 1, a, 2, NULL, 2), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgjsv(ctx, 2, 1, a, 2, b, 1), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dgjsv(ctx, 0, 1, NULL, 1, NULL, 1), PS_SUCCESS);
    CHECK_STATUS(ps_dgjinv(ctx, 0, NULL, 1), PS_SUCCESS);
    CHECK(a[0] == 1 && a[3] == 4 && b[0] == 1, "arrays written by rejected calls");
    ps_gj_options bad[] = {
        {(ps_gj_variant)7, 0, 0}, {PS_GJ_DEVICE, -1, 0}, {PS_GJ_DEVICE, 0, 2000}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_STATUS(ps_context_set_gj_options(ctx, &bad[i]), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_context_set_gj_options(ctx, NULL), PS_ERR_INVALID_ARGUMENT);
    ps_gj_variant v;
    CHECK(ps_gj_variant_from_name("Concurrent", &v) == PS_SUCCESS && v == PS_GJ_CONCURRENT,
          "variant name parse");
    CHECK_STATUS(ps_gj_variant_from_name("hybridx", &v), PS_ERR_INVALID_ARGUMENT);
    CHECK(strcmp(ps_gj_variant_name(PS_GJ_HYBRID), "hybrid") == 0, "variant name");
    /* The environment is read at context creation; a bad value fails it with a message. */
    setenv("PORTSOLVE_GJ_VARIANT", "sideways", 1);
    ps_context *c2 = NULL;
    ps_context_options o = ps_context_options_default();
    o.backend = ps_test_backend_kind();
    CHECK_STATUS(ps_context_create(&c2, &o), PS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ps_last_create_error(), "PORTSOLVE_GJ_VARIANT") != NULL, "message: %s",
          ps_last_create_error());
    setenv("PORTSOLVE_GJ_VARIANT", "hybrid", 1);
    ps_test_tuning("gj_nb=48,gj_stripe=24");
    CHECK_STATUS(ps_context_create(&c2, &o), PS_SUCCESS);
    ps_gj_options got = ps_context_gj_options(c2);
    CHECK(got.variant == PS_GJ_HYBRID && got.block_size == 48 && got.stripe_size == 24,
          "options from the environment and the tuning: %d %d %d", (int)got.variant, got.block_size,
          got.stripe_size);
    ps_context_destroy(c2);
    unsetenv("PORTSOLVE_GJ_VARIANT");
    ps_test_tuning("gj_stripe=0");
    CHECK_STATUS(ps_context_create(&c2, &o), PS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ps_last_create_error(), "gj_stripe") != NULL, "message: %s",
          ps_last_create_error());
    ps_test_tuning("gj_layout=diagonal");
    CHECK_STATUS(ps_context_create(&c2, &o), PS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ps_last_create_error(), "gj_layout") != NULL, "message: %s",
          ps_last_create_error());
    ps_test_tuning("gj_layout=Transposed");
    CHECK_STATUS(ps_context_create(&c2, &o), PS_SUCCESS);
    ps_context_destroy(c2);
    ps_test_tuning(NULL);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    ps_context *ctx = ps_test_context(0);
    if (!ctx) return ps_test_finish("gj");
    const char *c = ps_test_case();
    int lanes = c && !strcmp(c, "two_lanes");
    if (lanes) ps_test_two_lanes(ctx);
    for (int d = 0; d < 2; d++) {
        ps_dtype dt = d ? PS_DOUBLE : PS_FLOAT;
        if (!c || lanes || !strcmp(c, "inverse")) test_inverse(ctx, dt);
        if (!c || lanes || !strcmp(c, "solve")) test_solve(ctx, dt);
        if (!c || lanes || !strcmp(c, "singular")) test_singular(ctx, dt);
        if (!c || !strcmp(c, "non_finite")) test_non_finite(ctx, dt);
        if (!c || !strcmp(c, "device_level")) test_device_level(ctx, dt);
    }
    if (!c || !strcmp(c, "errors")) test_errors(ctx);
    ps_context_destroy(ctx);
    return ps_test_finish("gj");
}
