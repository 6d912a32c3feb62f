/*
 * Bad input to the LU drivers, one case per CTest test (--case NAME): each must be refused with
 * its status, a message, the LAPACK-style info, and the caller's arrays untouched; afterwards
 * the context must still solve correctly, and nothing may be left allocated.
 */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "checks.h"
#include "base/context.h"
#include "lu/lu.h"
#include "test_util.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 40, NRHS = 2, LDA = N + 3, LDB = N + 1 };

static double A[LDA * N], B[LDB * NRHS], A0[LDA * N], B0[LDB * NRHS];
static int ipiv[N], ipiv0[N];

static double X[LDB * NRHS], X0[LDB * NRHS]; /* dsgesv's and dsposv's solution */

/* Fresh well-conditioned data in A/B (A symmetric positive definite for kind 'P') and their
 * snapshots. */
static void fresh_data_of(char kind) {
    ps_test_latms_d(N, 10.0, kind, A, LDA);
    for (int i = 0; i < LDB * NRHS; i++) X[i] = X0[i] = ps_test_rand();
    for (int i = 0; i < LDB * NRHS; i++) B[i] = ps_test_rand();
    for (int i = 0; i < N; i++) ipiv[i] = ipiv0[i] = 1 + ps_test_rand_int(N);
    memcpy(A0, A, sizeof A);
    memcpy(B0, B, sizeof B);
}

static void fresh_data(void) {
    fresh_data_of('N');
}

static int untouched(void) {
    return memcmp(A, A0, sizeof A) == 0 && memcmp(B, B0, sizeof B) == 0 &&
           memcmp(ipiv, ipiv0, sizeof ipiv) == 0 && memcmp(X, X0, sizeof X) == 0;
}

/* After a refused call: the status, a message, the info, untouched arrays, nothing leaked. */
static void expect_refusal(ps_context *ctx, ps_status got, ps_status want, int want_info,
                           const char *what) {
    CHECK(got == want, "%s: got %s, expected %s", what, ps_status_string(got),
          ps_status_string(want));
    CHECK(strlen(ps_context_last_error(ctx)) > 10, "%s: no message", what);
    CHECK(ps_context_last_info(ctx) == want_info, "%s: info %d, expected %d (%s)", what,
          ps_context_last_info(ctx), want_info, ps_context_last_error(ctx));
    CHECK(untouched(), "%s: the caller's arrays were modified", what);
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0,
          "%s: %ld device buffers and %ld host blocks left allocated", what, ctx->live_buffers,
          ctx->live_host_blocks);
    printf("  %-40s -> %s: %s\n", what, ps_status_string(got), ps_context_last_error(ctx));
}

/* The context still works: a real solve with a good residual. */
static void expect_usable(ps_context *ctx) {
    fresh_data();
    ps_status st = ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB);
    CHECK(st == PS_SUCCESS, "solve after the failure: %s", ps_context_last_error(ctx));
    double r = ps_check_solve_ratio(PS_DOUBLE, 'N', N, NRHS, A0, LDA, B, LDB, B0, LDB);
    CHECK(r < PS_TEST_THRESHOLD, "solve after the failure: residual ratio %g", r);
    CHECK(ps_context_last_info(ctx) == 0 && ps_context_last_error(ctx)[0] == '\0',
          "success leaves info 0 and no message");
    fresh_data();
}

static void case_null_pointers(ps_context *ctx) {
    fresh_data();
    expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, NULL, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT,
                   -4, "dgesv A=NULL");
    expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, NULL, B, LDB), PS_ERR_INVALID_ARGUMENT, -6,
                   "dgesv ipiv=NULL");
    expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, NULL, LDB), PS_ERR_INVALID_ARGUMENT,
                   -7, "dgesv B=NULL");
    expect_refusal(ctx, ps_dgetrf(ctx, N, N, NULL, LDA, ipiv), PS_ERR_INVALID_ARGUMENT, -4,
                   "dgetrf A=NULL");
    expect_refusal(ctx, ps_dgetrf(ctx, N, N, A, LDA, NULL), PS_ERR_INVALID_ARGUMENT, -6,
                   "dgetrf ipiv=NULL");
    expect_refusal(ctx, ps_dgetrs(ctx, 'N', N, NRHS, NULL, LDA, ipiv, B, LDB),
                   PS_ERR_INVALID_ARGUMENT, -5, "dgetrs A=NULL");
    expect_refusal(ctx, ps_dgetrs(ctx, 'N', N, NRHS, A, LDA, NULL, B, LDB), PS_ERR_INVALID_ARGUMENT,
                   -7, "dgetrs ipiv=NULL");
    expect_refusal(ctx, ps_sgesv(ctx, N, NRHS, NULL, LDA, ipiv, (float *)B, LDB),
                   PS_ERR_INVALID_ARGUMENT, -4, "sgesv A=NULL");
    CHECK_STATUS(ps_dgesv(NULL, N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT);
    CHECK(untouched(), "ctx=NULL touched the arrays");
    /* NULL is fine where nothing is read: n = 0, nrhs = 0 */
    CHECK_STATUS(ps_dgesv(ctx, 0, NRHS, NULL, 1, NULL, NULL, 1), PS_SUCCESS);
    CHECK_STATUS(ps_dgetrs(ctx, 'N', N, 0, A, LDA, ipiv, NULL, LDB), PS_SUCCESS);
    expect_usable(ctx);
}

static void case_negative_sizes(ps_context *ctx) {
    fresh_data();
    expect_refusal(ctx, ps_dgesv(ctx, -1, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT, -2,
                   "dgesv n=-1");
    expect_refusal(ctx, ps_dgesv(ctx, N, -3, A, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT, -3,
                   "dgesv nrhs=-3");
    expect_refusal(ctx, ps_dgetrf(ctx, -2, N, A, LDA, ipiv), PS_ERR_INVALID_ARGUMENT, -2,
                   "dgetrf m=-2");
    expect_refusal(ctx, ps_dgetrf(ctx, N, -2, A, LDA, ipiv), PS_ERR_INVALID_ARGUMENT, -3,
                   "dgetrf n=-2");
    expect_refusal(ctx, ps_dgetrs(ctx, 'N', -1, NRHS, A, LDA, ipiv, B, LDB),
                   PS_ERR_INVALID_ARGUMENT, -3, "dgetrs n=-1");
    expect_refusal(ctx, ps_dgetrs(ctx, 'N', N, -1, A, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT,
                   -4, "dgetrs nrhs=-1");
    expect_refusal(ctx, ps_sgesv(ctx, -1, NRHS, (float *)A, LDA, ipiv, (float *)B, LDB),
                   PS_ERR_INVALID_ARGUMENT, -2, "sgesv n=-1");
    expect_usable(ctx);
}

static void case_bad_leading_dimensions(ps_context *ctx) {
    fresh_data();
    expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, A, N - 1, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT, -5,
                   "dgesv lda<n");
    expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, N - 1), PS_ERR_INVALID_ARGUMENT, -8,
                   "dgesv ldb<n");
    expect_refusal(ctx, ps_dgesv(ctx, 0, 0, A, 0, ipiv, B, 1), PS_ERR_INVALID_ARGUMENT, -5,
                   "dgesv lda=0 with n=0");
    expect_refusal(ctx, ps_dgetrf(ctx, N, 5, A, N - 1, ipiv), PS_ERR_INVALID_ARGUMENT, -5,
                   "dgetrf lda<m");
    expect_refusal(ctx, ps_dgetrs(ctx, 'N', N, NRHS, A, N - 1, ipiv, B, LDB),
                   PS_ERR_INVALID_ARGUMENT, -6, "dgetrs lda<n");
    expect_refusal(ctx, ps_dgetrs(ctx, 'N', N, NRHS, A, LDA, ipiv, B, 0), PS_ERR_INVALID_ARGUMENT,
                   -9, "dgetrs ldb=0");
    expect_usable(ctx);
}

static void case_bad_trans_and_pivots(ps_context *ctx) {
    fresh_data();
    expect_refusal(ctx, ps_dgetrs(ctx, 'X', N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT,
                   -2, "dgetrs trans='X'");
    ipiv[7] = ipiv0[7] = N + 1;
    expect_refusal(ctx, ps_dgetrs(ctx, 'N', N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT,
                   -7, "dgetrs ipiv[7]=n+1");
    ipiv[7] = ipiv0[7] = 0;
    expect_refusal(ctx, ps_dgetrs(ctx, 'T', N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_INVALID_ARGUMENT,
                   -7, "dgetrs ipiv[7]=0");
    expect_usable(ctx);
}

/* LAPACK semantics: the factorization completes, A and ipiv hold it, info is the first zero
 * pivot, and B is left as it was. */
static void expect_singular(ps_context *ctx, ps_status st, int want_info, const char *what) {
    CHECK(st == PS_ERR_SINGULAR, "%s: got %s", what, ps_status_string(st));
    CHECK(ps_context_last_info(ctx) == want_info, "%s: info %d, expected %d", what,
          ps_context_last_info(ctx), want_info);
    char needle[32];
    snprintf(needle, sizeof needle, "U(%d,%d)", want_info, want_info);
    CHECK(strstr(ps_context_last_error(ctx), needle) != NULL, "%s: message names %s: %s", what,
          needle, ps_context_last_error(ctx));
    CHECK(memcmp(B, B0, sizeof B) == 0, "%s: B was modified", what);
    double r = ps_check_lu_ratio(PS_DOUBLE, N, N, A0, LDA, A, LDA, ipiv);
    CHECK(r < PS_TEST_THRESHOLD, "%s: A does not hold the factors (ratio %g)", what, r);
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "%s: leaked", what);
    printf("  %-40s -> %s: %s\n", what, ps_status_string(st), ps_context_last_error(ctx));
}

static void case_singular(ps_context *ctx) {
    /* a zero column 6 stays zero under elimination, so U(6,6) is exactly zero */
    fresh_data();
    for (int i = 0; i < N; i++) A[i + 5 * LDA] = A0[i + 5 * LDA] = 0.0;
    expect_singular(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), 6, "dgesv zero column 6");
    memcpy(A, A0, sizeof A);
    expect_singular(ctx, ps_dgetrf(ctx, N, N, A, LDA, ipiv), 6, "dgetrf zero column 6");
    /* an all-zero matrix is singular at 1 */
    memset(A, 0, sizeof A);
    memcpy(A0, A, sizeof A);
    expect_singular(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), 1, "dgesv zero matrix");
    /* float: column 2 = 2 * column 1 with exactly representable multipliers (0.5, 0.25), so
     * U(2,2) is exactly zero with or without fused multiply-adds */
    float Af[9] = {4, 2, 1, 8, 4, 2, 1, 5, 3}, Bf[3] = {1, 2, 3}, Bf0[3] = {1, 2, 3};
    ps_status st = ps_sgesv(ctx, 3, 1, Af, 3, ipiv, Bf, 3);
    CHECK(st == PS_ERR_SINGULAR && ps_context_last_info(ctx) == 2, "sgesv rank one: %s, info %d",
          ps_status_string(st), ps_context_last_info(ctx));
    CHECK(memcmp(Bf, Bf0, sizeof Bf) == 0, "sgesv singular modified B");
    CHECK(Af[0] == 4 && Af[1] == 0.5f && Af[2] == 0.25f && ipiv[0] == 1,
          "sgesv singular: A holds the factors");
    expect_usable(ctx);
}

static void case_non_finite(ps_context *ctx) {
    const double bad[] = {NAN, INFINITY, -INFINITY};
    for (int k = 0; k < 3; k++) {
        fresh_data();
        A[7 + 11 * LDA] = A0[7 + 11 * LDA] = bad[k];
        expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_NON_FINITE, -4,
                       "dgesv non-finite A(8,12)");
        CHECK(strstr(ps_context_last_error(ctx), "A(8,12)") != NULL, "message names A(8,12): %s",
              ps_context_last_error(ctx));
        expect_refusal(ctx, ps_dgetrf(ctx, N, N, A, LDA, ipiv), PS_ERR_NON_FINITE, -4,
                       "dgetrf non-finite A");
        fresh_data();
        B[3 + LDB] = B0[3 + LDB] = bad[k];
        expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_NON_FINITE, -7,
                       "dgesv non-finite B(4,2)");
        CHECK(strstr(ps_context_last_error(ctx), "B(4,2)") != NULL, "message names B(4,2)");
        for (int i = 0; i < N; i++) ipiv[i] = ipiv0[i] = i + 1;
        expect_refusal(ctx, ps_dgetrs(ctx, 'N', N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_NON_FINITE,
                       -8, "dgetrs non-finite B");
    }
    /* NaN in the padding (rows beyond n) is not part of the matrix and is accepted */
    fresh_data();
    A[N + 2] = A0[N + 2] = NAN;
    CHECK_STATUS(ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), PS_SUCCESS);
    CHECK(isnan(A[N + 2]), "padding was written");
    /* float */
    float Af[4] = {1, 2, NAN, 4}, Bf[2] = {1, 1};
    CHECK_STATUS(ps_sgesv(ctx, 2, 1, Af, 2, ipiv, Bf, 2), PS_ERR_NON_FINITE);
    expect_usable(ctx);
}

/* A NaN or Inf in the last block column that staging copies is found during the copy, after the
 * earlier blocks went to the device: every driver refuses, naming the element, and A, B and the
 * pivots stay as they were. The order is large enough for several staging blocks. */
enum { BIG = 700, BIG_LD = 703, BIG_RHS = 3 };
typedef struct big_arrays {
    double *A, *A0, *B, *B0;
    int *ipiv, *ipiv0;
} big_arrays;

static void big_fresh(big_arrays *m) {
    size_t a = (size_t)BIG_LD * BIG, b = (size_t)BIG_LD * BIG_RHS;
    ps_test_latms_d(BIG, 10.0, 'P', m->A, BIG_LD); /* symmetric positive definite */
    for (size_t i = 0; i < b; i++) m->B[i] = ps_test_rand();
    for (int i = 0; i < BIG; i++) m->ipiv[i] = i + 1;
    memcpy(m->A0, m->A, a * sizeof *m->A);
    memcpy(m->B0, m->B, b * sizeof *m->B);
    memcpy(m->ipiv0, m->ipiv, BIG * sizeof *m->ipiv);
}

static void big_refused(ps_context *ctx, const big_arrays *m, ps_status got, int want_info,
                        const char *where, const char *what) {
    size_t a = (size_t)BIG_LD * BIG, b = (size_t)BIG_LD * BIG_RHS;
    CHECK(got == PS_ERR_NON_FINITE, "%s: got %s", what, ps_status_string(got));
    CHECK(ps_context_last_info(ctx) == want_info, "%s: info %d, expected %d", what,
          ps_context_last_info(ctx), want_info);
    CHECK(strstr(ps_context_last_error(ctx), where) != NULL, "%s: message '%s' names %s", what,
          ps_context_last_error(ctx), where);
    CHECK(memcmp(m->A, m->A0, a * sizeof *m->A) == 0, "%s: A was modified", what);
    CHECK(memcmp(m->B, m->B0, b * sizeof *m->B) == 0, "%s: B was modified", what);
    CHECK(memcmp(m->ipiv, m->ipiv0, BIG * sizeof *m->ipiv) == 0, "%s: ipiv was modified", what);
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "%s: %ld buffers, %ld blocks left",
          what, ctx->live_buffers, ctx->live_host_blocks);
}

static void case_non_finite_last_block(ps_context *ctx) {
    size_t a = (size_t)BIG_LD * BIG, b = (size_t)BIG_LD * BIG_RHS;
    big_arrays m = {malloc(a * sizeof(double)), malloc(a * sizeof(double)),
                    malloc(b * sizeof(double)), malloc(b * sizeof(double)),
                    malloc(BIG * sizeof(int)),  malloc(BIG * sizeof(int))};
    CHECK(m.A && m.A0 && m.B && m.B0 && m.ipiv && m.ipiv0, "out of host memory");
    if (!(m.A && m.A0 && m.B && m.B0 && m.ipiv && m.ipiv0)) goto done;
    const double bad[] = {NAN, INFINITY};
    size_t corner = (size_t)(BIG - 1) + (size_t)(BIG - 1) * BIG_LD;
    size_t last_b = (size_t)(BIG - 2) + (size_t)(BIG_RHS - 1) * BIG_LD;
    int iter;
    double *X = malloc(b * sizeof(double));
    for (int k = 0; k < 2 && X; k++) {
        big_fresh(&m);
        m.A[corner] = m.A0[corner] = bad[k];
        const char *at = "A(700,700)";
        big_refused(ctx, &m, ps_dgesv(ctx, BIG, BIG_RHS, m.A, BIG_LD, m.ipiv, m.B, BIG_LD), -4, at,
                    "dgesv");
        big_refused(ctx, &m, ps_dgetrf(ctx, BIG, BIG, m.A, BIG_LD, m.ipiv), -4, at, "dgetrf");
        big_refused(ctx, &m, ps_dgetrs(ctx, 'N', BIG, BIG_RHS, m.A, BIG_LD, m.ipiv, m.B, BIG_LD),
                    -5, at, "dgetrs");
        big_refused(ctx, &m, ps_dposv(ctx, 'L', BIG, BIG_RHS, m.A, BIG_LD, m.B, BIG_LD), -5, at,
                    "dposv");
        big_refused(ctx, &m, ps_dpotrf(ctx, 'U', BIG, m.A, BIG_LD), -4, at, "dpotrf");
        big_refused(ctx, &m, ps_dgetri(ctx, BIG, m.A, BIG_LD, m.ipiv), -3, at, "dgetri");
        big_refused(ctx, &m, ps_dgjinv(ctx, BIG, m.A, BIG_LD), -3, at, "dgjinv");
        big_refused(ctx, &m, ps_dgjsv(ctx, BIG, BIG_RHS, m.A, BIG_LD, m.B, BIG_LD), -4, at,
                    "dgjsv");
        big_refused(ctx, &m, ps_dwzsv(ctx, BIG, BIG_RHS, m.A, BIG_LD, m.ipiv, m.B, BIG_LD), -4, at,
                    "dwzsv");
        big_refused(
            ctx, &m,
            ps_dsgesv(ctx, BIG, BIG_RHS, m.A, BIG_LD, m.ipiv, m.B, BIG_LD, X, BIG_LD, &iter), -4,
            at, "dsgesv");

        big_fresh(&m);
        m.B[last_b] = m.B0[last_b] = bad[k];
        at = "B(699,3)";
        big_refused(ctx, &m, ps_dgesv(ctx, BIG, BIG_RHS, m.A, BIG_LD, m.ipiv, m.B, BIG_LD), -7, at,
                    "dgesv B");
        big_refused(ctx, &m, ps_dposv(ctx, 'U', BIG, BIG_RHS, m.A, BIG_LD, m.B, BIG_LD), -7, at,
                    "dposv B");
        big_refused(ctx, &m, ps_dgetrs(ctx, 'T', BIG, BIG_RHS, m.A, BIG_LD, m.ipiv, m.B, BIG_LD),
                    -8, at, "dgetrs B");
    }
    /* a NaN in the triangle potrf does not read is accepted (LAPACK reads one triangle) */
    big_fresh(&m);
    m.A[(size_t)(BIG - 1) * BIG_LD] = NAN; /* A(1,700): upper only */
    CHECK_STATUS(ps_dpotrf(ctx, 'L', BIG, m.A, BIG_LD), PS_SUCCESS);
    /* and the triangle it does not read is not written either: the NaN and the rest stay */
    int other_kept = 1;
    for (int j = 1; j < BIG; j++)
        for (int i = 0; i < j; i++) {
            size_t at = (size_t)i + (size_t)j * BIG_LD;
            other_kept &= memcmp(&m.A[at], &m.A0[at], sizeof m.A[at]) == 0 ||
                          (at == (size_t)(BIG - 1) * BIG_LD && isnan(m.A[at]));
        }
    CHECK(other_kept, "dpotrf('L') wrote the upper triangle");
    free(X);
done:
    free(m.A), free(m.A0), free(m.B), free(m.B0), free(m.ipiv), free(m.ipiv0);
    expect_usable(ctx);
}

/* The host crossover: small host-driver calls on a GPU backend run on the CPU path. Both paths
 * must solve the same systems to LAPACK's residual test, refuse the same bad input the same
 * way, and return LAPACK's factors for a singular matrix. */
static void case_crossover(ps_context *ctx) {
    int gpu = strcmp(ps_context_backend_name(ctx), "cpu") != 0;
    CHECK(ps_context_host_crossover(ctx, PS_DOUBLE) == 0, "tests run with the crossover off");
    CHECK_STATUS(ps_context_set_host_crossover(ctx, -2), PS_ERR_INVALID_ARGUMENT);
    static const int orders[] = {1, 2, 3, 17, N};
    for (int path = 0; path < 2; path++) {
        CHECK_STATUS(ps_context_set_host_crossover(ctx, path ? 1000 : 0), PS_SUCCESS);
        CHECK(ps_context_host_crossover(ctx, PS_FLOAT) == (gpu && path ? 1000 : 0),
              "crossover order reported");
        for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
            int n = orders[o];
            fresh_data();
            ps_status st = ps_dgesv(ctx, n, NRHS, A, LDA, ipiv, B, LDB);
            CHECK(st == PS_SUCCESS, "path %d n=%d: %s", path, n, ps_context_last_error(ctx));
            CHECK(ps_context_last_call_on_host(ctx) == (gpu && path), "path %d: ran on host %d",
                  path, ps_context_last_call_on_host(ctx));
            double r = ps_check_solve_ratio(PS_DOUBLE, 'N', n, NRHS, A0, LDA, B, LDB, B0, LDB);
            CHECK(r < PS_TEST_THRESHOLD, "path %d n=%d: residual ratio %g", path, n, r);
            fresh_data();
            CHECK_STATUS(ps_dgetrf(ctx, n, n, A, LDA, ipiv), PS_SUCCESS);
            double f = ps_check_lu_ratio(PS_DOUBLE, n, n, A0, LDA, A, LDA, ipiv);
            CHECK(f < PS_TEST_THRESHOLD, "path %d n=%d: factorization ratio %g", path, n, f);
            CHECK_STATUS(ps_dgetrs(ctx, 'T', n, NRHS, A, LDA, ipiv, B, LDB), PS_SUCCESS);
            r = ps_check_solve_ratio(PS_DOUBLE, 'T', n, NRHS, A0, LDA, B, LDB, B0, LDB);
            CHECK(r < PS_TEST_THRESHOLD, "path %d n=%d: getrs('T') residual ratio %g", path, n, r);
        }
        /* the same refusal, message and info either way, arrays untouched */
        fresh_data();
        expect_refusal(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, N - 1), PS_ERR_INVALID_ARGUMENT,
                       -8, "crossover: ldb < n");
        CHECK(strstr(ps_context_last_error(ctx), "ldb=39") != NULL, "message: %s",
              ps_context_last_error(ctx));
        /* singular: LAPACK's factors and info either way */
        fresh_data();
        for (int i = 0; i < N; i++) A[i + 5 * LDA] = A0[i + 5 * LDA] = 0; /* column 6 is zero */
        CHECK_STATUS(ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_SINGULAR);
        CHECK(ps_context_last_info(ctx) == 6, "path %d: singular info %d", path,
              ps_context_last_info(ctx));
        CHECK(memcmp(B, B0, sizeof B) == 0, "path %d: B changed on singular", path);
        double f = ps_check_lu_ratio(PS_DOUBLE, N, N, A0, LDA, A, LDA, ipiv);
        CHECK(f < PS_TEST_THRESHOLD, "path %d: singular factors' ratio %g", path, f);
    }
    CHECK_STATUS(ps_context_set_host_crossover(ctx, 0), PS_SUCCESS);
    expect_usable(ctx);
}

/* ps_matrix_upload_finite: the same round trip as ps_matrix_upload on finite data; a NaN (Inf in
 * float) in the last element of the last column, which the ring copies last, refused with its
 * position, the context usable after it; its arguments checked as ps_matrix_upload's. */
static void check_upload_finite(ps_context *ctx, ps_matrix *M, unsigned char *in,
                                unsigned char *out, int single) {
    int rows = ps_matrix_rows(M), cols = ps_matrix_cols(M), ldh = rows + 4;
    size_t es = single ? sizeof(float) : sizeof(double);
    CHECK_STATUS(ps_matrix_upload_finite(M, in, ldh), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_download(M, out, ldh), PS_SUCCESS);
    int same = 1;
    for (size_t j = 0; j < (size_t)cols; j++)
        same &= memcmp(in + j * ldh * es, out + j * ldh * es, (size_t)rows * es) == 0;
    CHECK(same, "%s upload_finite round trip differs", single ? "float" : "double");
    size_t last = (size_t)(cols - 1) * ldh + (size_t)rows - 1;
    unsigned char saved[8];
    memcpy(saved, in + last * es, es);
    if (single)
        ((float *)in)[last] = INFINITY;
    else
        ((double *)in)[last] = NAN;
    CHECK_STATUS(ps_matrix_upload_finite(M, in, ldh), PS_ERR_NON_FINITE);
    char want[64];
    snprintf(want, sizeof want, "host(%d,%d) is not finite", rows, cols);
    CHECK(strstr(ps_context_last_error(ctx), want) != NULL, "upload_finite said '%s'",
          ps_context_last_error(ctx));
    memcpy(in + last * es, saved, es);
    CHECK_STATUS(ps_matrix_upload_finite(M, in, rows - 1), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_upload_finite(M, NULL, ldh), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_upload_finite(NULL, in, ldh), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_upload_finite(M, in, ldh), PS_SUCCESS);
    expect_usable(ctx);
}

/* ps_matrix_upload / download move large matrices through the staging ring in several blocks:
 * the round trip is exact, leading dimensions larger than the rows included, and the columns
 * between the rows and ldh are left alone. */
static void case_matrix_roundtrip(ps_context *ctx) {
    enum { ROWS = 701, COLS = 450, LD = 703, LDH = 705 };
    for (int single = 0; single < 2; single++) {
        size_t es = single ? sizeof(float) : sizeof(double), count = (size_t)LDH * COLS;
        unsigned char *in = malloc(count * es), *out = malloc(count * es);
        ps_matrix *M = NULL;
        CHECK(in && out, "out of host memory");
        if (!in || !out) {
            free(in), free(out);
            return;
        }
        for (size_t i = 0; i < count; i++) {
            double v = ps_test_rand();
            if (single)
                ((float *)in)[i] = (float)v;
            else
                ((double *)in)[i] = v;
        }
        memset(out, 0x5a, count * es);
        CHECK_STATUS(ps_matrix_create(ctx, single ? PS_FLOAT : PS_DOUBLE, ROWS, COLS, LD, &M),
                     PS_SUCCESS);
        CHECK_STATUS(ps_matrix_upload(M, in, LDH), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(M, out, LDH), PS_SUCCESS);
        int same = 1, padding = 1;
        for (size_t j = 0; j < COLS; j++) {
            size_t col = j * LDH * es;
            same &= memcmp(in + col, out + col, ROWS * es) == 0;
            for (size_t b = ROWS * es; b < LDH * es; b++) padding &= out[col + b] == 0x5a;
        }
        CHECK(same, "%s round trip differs", single ? "float" : "double");
        CHECK(padding, "%s download wrote rows beyond the matrix", single ? "float" : "double");
        check_upload_finite(ctx, M, in, out, single);
        ps_matrix_destroy(M);
        free(in), free(out);
    }
}

/* Sizes whose byte count does not fit in a size_t are refused, not wrapped into a small
 * allocation that the work would run past (ld * cols * 8 = 2^64 + 537552 here). */
static void case_huge_sizes(ps_context *ctx) {
    ps_matrix *M = NULL;
    ps_status st = ps_matrix_create(ctx, PS_DOUBLE, 2147437309, 1073764994, 0, &M);
    CHECK(st == PS_ERR_OUT_OF_MEMORY, "huge matrix: %s (%s)", ps_status_string(st),
          ps_context_last_error(ctx));
    CHECK(M == NULL, "huge matrix: no handle");
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "huge matrix: nothing allocated");
    st = ps_matrix_create(ctx, PS_FLOAT, 1 << 30, 1 << 30, 0, &M); /* 2^62 bytes: fits, too big */
    CHECK(st == PS_ERR_OUT_OF_MEMORY && M == NULL, "2^62 bytes: %s", ps_status_string(st));
    expect_usable(ctx);
}

/* An output array that shares memory with an input is refused with the output's position, the
 * arrays untouched: the drivers read A while they write B (or X). Arrays that only touch are
 * accepted. */
static void case_aliasing(ps_context *ctx) {
    enum { n = 12, ld = 14, nrhs = 2 };
    static double buf[ld * n + ld * nrhs + 8], copy[ld * n + ld * nrhs + 8], X[ld * nrhs];
    int ip[n], iter;
    for (size_t i = 0; i < sizeof buf / sizeof buf[0]; i++) buf[i] = ps_test_rand();
    for (int i = 0; i < n; i++) buf[i + (size_t)i * ld] += 2 * n, ip[i] = i + 1;
    memcpy(copy, buf, sizeof buf);
    double *A = buf, *tail = buf + (size_t)ld * (n - 1); /* B starting in A's last column */
    struct {
        const char *what;
        ps_status st;
        int pos;
    } calls[] = {
        {"dgesv B = A", ps_dgesv(ctx, n, nrhs, A, ld, ip, A, ld), 7},
        {"dgesv B in A's last column", ps_dgesv(ctx, n, nrhs, A, ld, ip, tail, ld), 7},
        {"dgetrs B = A", ps_dgetrs(ctx, 'N', n, nrhs, A, ld, ip, A, ld), 8},
        {"dposv B = A", ps_dposv(ctx, 'L', n, nrhs, A, ld, A, ld), 7},
        {"dpotrs B in A's last column", ps_dpotrs(ctx, 'U', n, nrhs, A, ld, tail, ld), 7},
        {"dwzsv B = A", ps_dwzsv(ctx, n, nrhs, A, ld, ip, A, ld), 7},
        {"dgjsv B = A", ps_dgjsv(ctx, n, nrhs, A, ld, A, ld), 6},
        {"dsgesv B = A", ps_dsgesv(ctx, n, nrhs, A, ld, ip, A, ld, X, ld, &iter), 7},
        {"dsgesv X = A", ps_dsgesv(ctx, n, nrhs, A, ld, ip, X, ld, A, ld, &iter), 9},
        {"dsgesv X = B", ps_dsgesv(ctx, n, nrhs, A, ld, ip, X, ld, X, ld, &iter), 9},
    };
    for (size_t c = 0; c < sizeof calls / sizeof calls[0]; c++) {
        CHECK(calls[c].st == PS_ERR_INVALID_ARGUMENT, "%s: %s", calls[c].what,
              ps_status_string(calls[c].st));
        CHECK(memcmp(buf, copy, sizeof buf) == 0, "%s: arrays modified", calls[c].what);
    }
    /* the info of the last refusal names X */
    CHECK(ps_context_last_info(ctx) == -9, "dsgesv X = B: info %d", ps_context_last_info(ctx));
    CHECK(strstr(ps_context_last_error(ctx), "X shares memory with B") != NULL, "message: %s",
          ps_context_last_error(ctx));
    /* B right after A's last element of its last column: separate, and solved */
    double *after = buf + (size_t)ld * (n - 1) + n;
    CHECK_STATUS(ps_dgesv(ctx, n, 1, A, ld, ip, after, n), PS_SUCCESS);
    expect_usable(ctx);
}

/* A solution that comes out NaN or Inf from finite inputs is never reported as success: either
 * the call solves it (a finite, correct x) or it says PS_ERR_RESULT_NOT_FINITE and writes
 * nothing back. diag(1e-320, 1e-320) x = (1e-320, 2e-320) has x = (1, 2) (condition 1) but its
 * pivots are subnormal; diag(1e-300, 1) x = (1e10, 1) has x_1 = 1e310, beyond double. */
static void result_case(ps_context *ctx, double d, double b0, double x0, int representable) {
    typedef enum { GESV, GETRS, POSV, GJSV, WZSV, DSGESV, CALLS } call;
    static const char *const names[CALLS] = {"dgesv", "dgetrs", "dposv",
                                             "dgjsv", "dwzsv",  "dsgesv"};
    for (int c = 0; c < CALLS; c++) {
        double a[4] = {d, 0, 0, d}, a0[4], b[2] = {b0, 2 * d}, bb[2], x[2] = {7, 7};
        int ip[2] = {1, 2}, iter;
        if (c == GESV) ip[0] = ip[1] = 9; /* gesv's output */
        if (!representable) a[3] = 1, b[1] = 1;
        memcpy(a0, a, sizeof a), memcpy(bb, b, sizeof b);
        ps_status st;
        double *sol = c == DSGESV ? x : b;
        switch ((call)c) {
        case GESV:
            st = ps_dgesv(ctx, 2, 1, a, 2, ip, b, 2);
            break;
        case GETRS:
            st = ps_dgetrs(ctx, 'N', 2, 1, a, 2, ip, b, 2);
            break;
        case POSV:
            st = ps_dposv(ctx, 'L', 2, 1, a, 2, b, 2);
            break;
        case GJSV:
            st = ps_dgjsv(ctx, 2, 1, a, 2, b, 2);
            break;
        case WZSV:
            st = ps_dwzsv(ctx, 2, 1, a, 2, ip, b, 2);
            break;
        default:
            st = ps_dsgesv(ctx, 2, 1, a, 2, ip, b, 2, x, 2, &iter);
            break;
        }
        if (st == PS_SUCCESS) {
            CHECK(representable && isfinite(sol[0]) && isfinite(sol[1]) &&
                      fabs(sol[0] - x0) <= 1e-12 * x0 && fabs(sol[1] - 2) <= 1e-12,
                  "%s d=%g: success with x = (%g, %g)", names[c], d, sol[0], sol[1]);
        } else if (c == WZSV && st == PS_ERR_SINGULAR) {
            /* WZ counts a corner pivot below the safe minimum as singular (docs/WZ.md) */
            CHECK(representable && memcmp(b, bb, sizeof b) == 0, "dwzsv d=%g: singular", d);
        } else {
            CHECK(st == PS_ERR_RESULT_NOT_FINITE, "%s d=%g: %s (%s)", names[c], d,
                  ps_status_string(st), ps_context_last_error(ctx));
            CHECK(memcmp(b, bb, sizeof b) == 0 && (c != DSGESV || (x[0] == 7 && x[1] == 7)),
                  "%s d=%g: the right-hand side or X was written", names[c], d);
            CHECK(c == GETRS || c == GESV || c == POSV || c == GJSV || c == WZSV ||
                      memcmp(a, a0, sizeof a) == 0,
                  "%s d=%g: A written", names[c], d);
            /* gesv and posv return the factors, as on a singular matrix */
            CHECK(c != GESV || (memcmp(a, a0, sizeof a) == 0 && ip[0] == 1 && ip[1] == 2),
                  "dgesv d=%g: the factors or pivots did not come back", d);
            CHECK(c != POSV || (a[0] == sqrt(a0[0]) && a[3] == sqrt(a0[3])),
                  "dposv d=%g: the factor did not come back (%g, %g)", d, a[0], a[3]);
        }
    }
}

/* A context used by a second thread while a call runs: the second thread's calls are refused
 * with PS_ERR_CONTEXT_BUSY (they corrupted results before), the running call's answer is right,
 * and the context serves either thread once the call is over. */
typedef struct busy_probe {
    ps_context *ctx;
    atomic_int started, done;
    int busy, other;
} busy_probe;

static void *probe_context(void *arg) {
    busy_probe *p = arg;
    while (!atomic_load(&p->started)) {
    }
    /* a pause between tries, so that the probe does not hold the context most of the time
     * and starve the solving thread (under ASan on two cores it was refused a million times) */
    const struct timespec pause = {0, 20000};
    while (!atomic_load(&p->done)) {
        ps_status st = ps_context_synchronize(p->ctx);
        if (st == PS_ERR_CONTEXT_BUSY)
            p->busy++;
        else if (st != PS_SUCCESS)
            p->other++;
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void case_context_busy(ps_context *ctx) {
    enum { N = 700 };
    double *A = ps_test_random_array(PS_DOUBLE, N, N), *B = malloc(sizeof(double) * N);
    int *ipiv = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++) A[i + (size_t)i * N] += N;
    double *A0 = ps_test_clone(PS_DOUBLE, A, N, N), ones[N];
    for (int i = 0; i < N; i++) ones[i] = 1;
    busy_probe p = {ctx, 0, 0, 0, 0};
    pthread_t t;
    pthread_create(&t, NULL, probe_context, &p);
    int refused = 0, calls = 0;
    for (int round = 0; round < 3; round++) {
        memcpy(A, A0, sizeof(double) * N * N);
        for (int i = 0; i < N; i++) B[i] = 1;
        atomic_store(&p.started, 1);
        ps_status st;
        do { /* the probe may hold the context for an instant: then this call is the refused one */
            st = ps_dgesv(ctx, N, 1, A, N, ipiv, B, N);
            refused += st == PS_ERR_CONTEXT_BUSY;
        } while (st == PS_ERR_CONTEXT_BUSY && refused < 1000000);
        calls++;
        CHECK(st == PS_SUCCESS, "dgesv beside a probing thread: %s", ps_status_string(st));
        double r = ps_check_solve_ratio(PS_DOUBLE, 'N', N, 1, A0, N, B, N, ones, N);
        CHECK(r < PS_TEST_THRESHOLD, "dgesv beside a probing thread: residual ratio %.3g", r);
    }
    atomic_store(&p.done, 1);
    pthread_join(t, NULL);
    CHECK(p.busy > 0, "the probing thread was never refused during %d calls", calls);
    CHECK(p.other == 0, "the probing thread got %d other failures", p.other);
    expect_usable(ctx);
    free(A), free(A0), free(B), free(ipiv);
}

static void case_result_not_finite(ps_context *ctx) {
    result_case(ctx, 1e-320, 1e-320, 1, 1);
    result_case(ctx, 1e-300, 1e10, HUGE_VAL, 0); /* x_1 = 1e310 */
    expect_usable(ctx);
}

/* The iterative solvers on a right-hand side anywhere in double's range: A x = b with
 * A = [4 1 0; 1 5 1; 0 1 6] and b = s (5, 8, 13), so x = s (1, 1, 2), for s from 1e-300 to
 * 1e307. Each solver must converge to that x (relative error 1e-6), never return x = 0 for a
 * nonzero b, never report a breakdown the scale alone caused. */
static void case_iter_scaled(ps_context *ctx) {
    typedef ps_status (*solver)(ps_context *, int, const double *, int, const double *, double *,
                                const ps_iter_options *, ps_iter_result *);
    static const solver solvers[] = {ps_djacobi, ps_dgs, ps_dcg, ps_dbicgstab, ps_dgmres};
    static const char *const names[] = {"jacobi", "gs", "cg", "bicgstab", "gmres"};
    static const double scales[] = {1e-300, 1e-170, 1e-160, 1, 1e160, 1e300, 1e307};
    const double A[9] = {4, 1, 0, 1, 5, 1, 0, 1, 6};
    ps_iter_options o = ps_iter_options_default();
    o.tol = 1e-10;
    for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++)
        for (size_t m = 0; m < sizeof solvers / sizeof solvers[0]; m++) {
            double sc = scales[k], b[3] = {5 * sc, 8 * sc, 13 * sc}, x[3] = {0, 0, 0};
            ps_iter_result res;
            ps_status st = solvers[m](ctx, 3, A, 3, b, x, &o, &res);
            double err = fmax(fmax(fabs(x[0] / sc - 1), fabs(x[1] / sc - 1)), fabs(x[2] / sc - 2));
            CHECK(st == PS_SUCCESS && err <= 1e-6,
                  "%s, b scaled by %g: %s (%s), x/s = (%g, %g, %g)", names[m], sc,
                  ps_status_string(st), ps_context_last_error(ctx), x[0] / sc, x[1] / sc,
                  x[2] / sc);
        }
}

/* The iterative solvers' options: each invalid field refused before any work (argument 8 of the
 * host drivers, 6 of ps_mat_iter_solve, whose method is argument 2), x untouched. */
static void case_iter_options(ps_context *ctx) {
    double history[4];
    ps_iter_options bad[8];
    static const char *const what[8] = {
        "tol NaN",   "tol -1",    "tol Inf",      "max_iter -1",
        "restart 0", "precond 7", "history NULL", "history_capacity -1"};
    for (int i = 0; i < 8; i++) bad[i] = ps_iter_options_default();
    bad[0].tol = NAN, bad[1].tol = -1, bad[2].tol = INFINITY, bad[3].max_iter = -1;
    bad[4].restart = 0, bad[5].precond = (ps_precond)7;
    bad[6].history = NULL, bad[6].history_capacity = 4;
    bad[7].history = history, bad[7].history_capacity = -1;
    for (int i = 0; i < 8; i++) {
        char label[64];
        fresh_data();
        snprintf(label, sizeof label, "dgmres, opts %s", what[i]);
        expect_refusal(ctx, ps_dgmres(ctx, N, A, LDA, B, X, &bad[i], NULL), PS_ERR_INVALID_ARGUMENT,
                       -8, label);
        CHECK(strstr(ps_context_last_error(ctx), "opts->") != NULL, "%s: message '%s'", label,
              ps_context_last_error(ctx));
        snprintf(label, sizeof label, "ps_mat_iter_solve, opts %s", what[i]);
        expect_refusal(ctx, ps_mat_iter_solve(ctx, PS_ITER_CG, NULL, NULL, NULL, &bad[i], NULL),
                       PS_ERR_INVALID_ARGUMENT, -6, label);
    }
    fresh_data();
    expect_refusal(ctx, ps_dcg(ctx, N, A, LDA, B, X, &bad[4], NULL), PS_ERR_INVALID_ARGUMENT, -8,
                   "dcg, opts restart 0");
    expect_refusal(ctx, ps_mat_iter_solve(ctx, (ps_iter_method)99, NULL, NULL, NULL, NULL, NULL),
                   PS_ERR_INVALID_ARGUMENT, -2, "ps_mat_iter_solve, method 99");
    expect_usable(ctx);
}

/* The host drivers case_alloc_failure fails, by number, and the matrix each takes. */
static ps_status alloc_call(ps_context *ctx, int which) {
    int iter;
    switch (which) {
    case 0:
        return ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB);
    case 1:
        return ps_dgetrf(ctx, N, N, A, LDA, ipiv);
    case 2:
        return ps_dgetrs(ctx, 'T', N, NRHS, A, LDA, ipiv, B, LDB);
    case 3:
        return ps_dposv(ctx, 'L', N, NRHS, A, LDA, B, LDB);
    case 4:
        return ps_dpotrf(ctx, 'U', N, A, LDA);
    case 5:
        return ps_dgjinv(ctx, N, A, LDA);
    case 6:
        return ps_dgjsv(ctx, N, NRHS, A, LDA, B, LDB);
    case 7:
        return ps_dwzsv(ctx, N, NRHS, A, LDA, ipiv, B, LDB);
    case 8:
        return ps_dsgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB, X, LDB, &iter);
    case 9:
        return ps_dsposv(ctx, 'L', N, NRHS, A, LDA, B, LDB, X, LDB, &iter);
    case 10:
        return ps_dpotrs(ctx, 'U', N, NRHS, A, LDA, B, LDB);
    case 11:
        return ps_dwztrf(ctx, N, A, LDA, ipiv);
    case 12:
        return ps_dcg(ctx, N, A, LDA, B, X, NULL, NULL);
    default:
        return ps_dgmres(ctx, N, A, LDA, B, X, NULL, NULL);
    }
}
enum { ALLOC_CALLS = 14 };
/* The calls above that take a symmetric positive definite A (GMRES too: restarted, it may
 * stall on an indefinite one). */
static int spd_call(int which) {
    return which == 3 || which == 4 || (which >= 9 && which != 11);
}

/* Makes the k-th allocation of a call fail, for every k until the call needs fewer. */
static void case_alloc_failure(ps_context *ctx) {
    for (int which = 0; which < ALLOC_CALLS; which++) {
        int injected = 0;
        for (int k = 1; k < 50; k++) {
            fresh_data_of(spd_call(which) ? 'P' : 'N');
            ps__context_fail_nth_alloc(ctx, k);
            ps_status st = alloc_call(ctx, which);
            int hook_left = ctx->fail_alloc_countdown;
            ps__context_fail_nth_alloc(ctx, 0);
            if (hook_left > 0) { /* the call needed fewer than k allocations */
                CHECK(st == PS_SUCCESS, "call %d without injected failure: %s", which,
                      ps_context_last_error(ctx));
                break;
            }
            injected++;
            CHECK(st == PS_ERR_OUT_OF_MEMORY || st == PS_ERR_OUT_OF_HOST_MEMORY,
                  "call %d, allocation %d failing: %s", which, k, ps_status_string(st));
            CHECK(strstr(ps_context_last_error(ctx), "injected") != NULL, "message: %s",
                  ps_context_last_error(ctx));
            CHECK(untouched(), "call %d, allocation %d failing: arrays modified", which, k);
            CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0,
                  "call %d, allocation %d failing: %ld buffers, %ld blocks leaked", which, k,
                  ctx->live_buffers, ctx->live_host_blocks);
        }
        CHECK(injected >= 1, "call %d: no allocation point exercised", which);
        expect_usable(ctx);
    }
    /* matrix creation */
    ps_matrix *m = NULL;
    for (int k = 1; k <= 2; k++) {
        ps__context_fail_nth_alloc(ctx, k);
        CHECK(ps_matrix_create(ctx, PS_DOUBLE, 10, 10, 0, &m) != PS_SUCCESS && m == NULL,
              "matrix_create with allocation %d failing", k);
        CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "matrix_create leaked");
    }
    ps__context_fail_nth_alloc(ctx, 0);
    expect_usable(ctx);
}

/* ps_mat_getrf and ps_mat_potrf in an aligned copy (core/lu/lu_copy.c, core/chol/chol_copy.c,
 * forced by lu_copy=1 / chol_copy=1 on a matrix of odd ld) with each allocation failing in turn:
 * where the copy's fails, the call factors in place, leaving no message; where the call's own
 * fails, it reports it. */
static void check_copy_allocations(ps_context *ctx, int chol) {
    static double F[LDA * N];
    int *knob = chol ? &ctx->tuning.chol_copy : &ctx->tuning.lu_copy;
    int saved = *knob, fell_back = 0;
    *knob = 1;
    ps_matrix *Au = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, N, N, N + 1, &Au), PS_SUCCESS);
    for (int k = 1; k < 20 && Au; k++) {
        fresh_data_of(chol ? 'P' : 'N');
        CHECK_STATUS(ps_matrix_upload(Au, A, LDA), PS_SUCCESS);
        ps__context_fail_nth_alloc(ctx, k);
        ps_status st = chol ? ps_mat_potrf(ctx, 'L', Au) : ps_mat_getrf(ctx, Au, ipiv);
        int hook_left = ctx->fail_alloc_countdown;
        ps__context_fail_nth_alloc(ctx, 0);
        CHECK(st == PS_SUCCESS || st == PS_ERR_OUT_OF_MEMORY, "aligned copy, allocation %d: %s", k,
              ps_status_string(st));
        if (st == PS_SUCCESS) {
            CHECK(ps_context_last_error(ctx)[0] == '\0', "allocation %d: message left: %s", k,
                  ps_context_last_error(ctx));
            CHECK_STATUS(ps_matrix_download(Au, F, LDA), PS_SUCCESS);
            double r = chol ? ps_check_chol_ratio(PS_DOUBLE, 'L', N, A0, LDA, F, LDA)
                            : ps_check_lu_ratio(PS_DOUBLE, N, N, A0, LDA, F, LDA, ipiv);
            CHECK(r < PS_TEST_THRESHOLD, "allocation %d failing: factors ratio %g", k, r);
            fell_back += hook_left == 0;
        }
        if (hook_left > 0) break; /* the call needed fewer than k allocations */
    }
    CHECK(fell_back >= 1, "no failing allocation of the %s aligned copy was answered in place",
          chol ? "Cholesky" : "LU");
    ps_matrix_destroy(Au);
    *knob = saved;
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "aligned copy leaked");
}

static void case_matrix_level(ps_context *ctx) {
    ps_matrix *Ad = NULL, *Bd = NULL, *Bs = NULL, *Rect = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, -1, 3, 0, &Ad), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, 5, 3, 4, &Ad), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_create(ctx, (ps_dtype)7, 5, 3, 0, &Ad), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, 5, 3, 0, NULL), PS_ERR_INVALID_ARGUMENT);
    CHECK(Ad == NULL, "a failed create set the matrix");
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, N, N, 0, &Ad), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, N, NRHS, 0, &Bd), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, PS_FLOAT, N, NRHS, 0, &Bs), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, N, N + 1, 0, &Rect), PS_SUCCESS);
    fresh_data();
    CHECK_STATUS(ps_matrix_upload(Ad, A, N - 1), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_upload(Ad, NULL, LDA), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_upload(Ad, A, LDA), PS_SUCCESS);
    CHECK_STATUS(ps_mat_gesv(ctx, Ad, ipiv, Bs), PS_ERR_DTYPE_MISMATCH);
    CHECK_STATUS(ps_mat_gesv(ctx, Rect, ipiv, Bd), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_mat_getrs(ctx, 'Q', Ad, ipiv, Bd), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_mat_getrf(ctx, NULL, ipiv), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_matrix_download(Ad, NULL, LDA), PS_ERR_INVALID_ARGUMENT);
    CHECK(ps_context_last_info(ctx) == -2, "download into NULL: info %d",
          ps_context_last_info(ctx));
    CHECK_STATUS(ps_matrix_download(Ad, A, N - 1), PS_ERR_INVALID_ARGUMENT);
    CHECK(ps_context_last_info(ctx) == -3, "download with ldh < rows: info %d",
          ps_context_last_info(ctx));
    CHECK(untouched(), "a refused download wrote the host array");

    /* wrapping a caller's buffer: each bad argument with its position as info, out left NULL;
     * the cpu backend has no device buffers to wrap (refused before the buffer is looked at) */
    static const struct {
        ps_dtype dt;
        int rows, cols, ld, info;
    } wraps[] = {{(ps_dtype)7, 4, 4, 4, -2},
                 {PS_DOUBLE, -1, 4, 4, -3},
                 {PS_DOUBLE, 4, -1, 4, -4},
                 {PS_DOUBLE, 4, 4, 3, -5}};
    double not_a_buffer;
    for (size_t i = 0; i < sizeof wraps / sizeof wraps[0]; i++) {
        ps_matrix *w = Ad;
        CHECK_STATUS(ps_matrix_wrap_native(ctx, wraps[i].dt, wraps[i].rows, wraps[i].cols,
                                           wraps[i].ld, &not_a_buffer, 0, &w),
                     PS_ERR_INVALID_ARGUMENT);
        CHECK(w == NULL && ps_context_last_info(ctx) == wraps[i].info,
              "wrap %zu: info %d, expected %d (%s)", i, ps_context_last_info(ctx), wraps[i].info,
              ps_context_last_error(ctx));
    }
    ps_matrix *w = Ad;
    CHECK_STATUS(ps_matrix_wrap_native(ctx, PS_DOUBLE, 4, 4, 4, NULL, 0, &w),
                 PS_ERR_INVALID_ARGUMENT);
    CHECK(w == NULL && ps_context_last_info(ctx) == -6, "wrap of NULL: info %d",
          ps_context_last_info(ctx));
    CHECK_STATUS(ps_matrix_wrap_native(ctx, PS_DOUBLE, 4, 4, 4, &not_a_buffer, 0, NULL),
                 PS_ERR_INVALID_ARGUMENT);
    CHECK(ps_context_last_info(ctx) == -8, "wrap without out: info %d", ps_context_last_info(ctx));
    if (!strcmp(ps_context_backend_name(ctx), "cpu")) {
        CHECK_STATUS(ps_matrix_wrap_native(ctx, PS_DOUBLE, 4, 4, 4, &not_a_buffer, 0, &w),
                     PS_ERR_INVALID_ARGUMENT);
        CHECK(w == NULL && strstr(ps_context_last_error(ctx), "no device buffers"),
              "wrap on the cpu backend: '%s'", ps_context_last_error(ctx));
    }

    /* a matrix from another context */
    ps_context *other = ps_test_context(0);
    ps_matrix *foreign = NULL;
    CHECK_STATUS(ps_matrix_create(other, PS_DOUBLE, N, NRHS, 0, &foreign), PS_SUCCESS);
    CHECK_STATUS(ps_mat_gesv(ctx, Ad, ipiv, foreign), PS_ERR_CONTEXT_MISMATCH);
    CHECK(strstr(ps_context_last_error(ctx), "another context") != NULL, "mismatch message");
    ps_matrix_destroy(foreign);
    ps_context_destroy(other);

    ps_matrix_destroy(Ad), ps_matrix_destroy(Bd), ps_matrix_destroy(Bs), ps_matrix_destroy(Rect);
    ps_matrix_destroy(NULL);
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "matrices leaked");
    check_copy_allocations(ctx, 0);
    check_copy_allocations(ctx, 1);
    expect_usable(ctx);
}

/* The host LU with its transfers overlapped (core/lu/lu_overlap.c; CMake runs this case with
 * lu_overlap=1 and blocks of 8): it is taken, and it keeps the drivers' promises: info and
 * LAPACK's factors for a zero pivot in the left part and right of it, NaN or Inf in the piece the
 * transfer thread stages last refused with the arrays untouched, a solution that is not finite,
 * and failed allocations, without leaks or a ring left held. */
static void case_overlap(ps_context *ctx) {
    CHECK(ps__lu_overlap_split(ctx, PS__DOUBLE, N) > 0 &&
              ps__lu_overlap_split(ctx, PS__FLOAT, BIG) > 0,
          "the LU is not overlapped at n=%d and %d", N, BIG);
    case_singular(ctx);
    /* a zero column (1-based) in the left part's second piece, at the left part's last column
     * and the first right of it (the split's step), and further right */
    int f = ps__lu_overlap_split(ctx, PS__DOUBLE, N), zeros[] = {f / 2 + 2, f, f + 1, f + 3};
    for (int z = 0; z < (int)(sizeof zeros / sizeof zeros[0]); z++) {
        fresh_data();
        for (int i = 0; i < N; i++) A[i + (zeros[z] - 1) * LDA] = A0[i + (zeros[z] - 1) * LDA] = 0;
        expect_singular(ctx, ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), zeros[z],
                        zeros[z] > f ? "dgesv zero column right of the left part"
                                     : "dgesv zero column, left part");
    }
    /* an order that is not a multiple of 8 (factored as diag(A, I) of the next one): a zero
     * column right of the left part, LAPACK's info and factors, nothing outside A's n x n written
     */
    int n = N - 1, fo = ps__lu_overlap_split(ctx, PS__DOUBLE, n);
    CHECK(fo > 0 && n % 8 != 0, "the LU is not split at n=%d", n);
    fresh_data();
    for (int i = 0; i < N; i++) A[i + (fo + 2) * LDA] = A0[i + (fo + 2) * LDA] = 0;
    ps_status st = ps_dgesv(ctx, n, NRHS, A, LDA, ipiv, B, LDB);
    CHECK(st == PS_ERR_SINGULAR && ps_context_last_info(ctx) == fo + 3,
          "dgesv n=%d, zero column %d: %s, info %d", n, fo + 3, ps_status_string(st),
          ps_context_last_info(ctx));
    CHECK(memcmp(B, B0, sizeof B) == 0, "dgesv n=%d singular: B was modified", n);
    double r = ps_check_lu_ratio(PS_DOUBLE, n, n, A0, LDA, A, LDA, ipiv);
    CHECK(r < PS_TEST_THRESHOLD, "dgesv n=%d singular: factors ratio %g", n, r);
    int outside = 1;
    for (int k = 0; k < N; k++)
        outside &= A[k + n * LDA] == A0[k + n * LDA] && A[n + k * LDA] == A0[n + k * LDA];
    CHECK(outside && ipiv[n] == ipiv0[n], "dgesv n=%d: row or column %d of A, or ipiv[%d], written",
          n, n + 1, n);
    case_non_finite_last_block(ctx);
    case_result_not_finite(ctx);
    case_alloc_failure(ctx);
    /* the transfer thread's ring, held at its size during a call, is free again after each */
    CHECK(!ctx->ring_held, "the staging ring is still held after the calls");
}

/* The host drivers' estimate before they start (core/base/workspace.c): with the device's free
 * memory made small through a test hook, calls whose arrays clearly do not fit are refused before
 * anything happens, saying how much they need; a call that fits runs. Backends that work in the
 * caller's memory need none. */
static void case_workspace(ps_context *ctx) {
    int own_memory = strcmp(ps_context_backend_name(ctx), "cpu") != 0;
    double X[LDB * NRHS];
    int iter;
    ctx->test_device_free = ((size_t)16 << 20) + 8000; /* the libraries' reserve, and 8000 bytes */
    struct {
        const char *what;
        ps_status st;
    } calls[4];
    fresh_data();
    calls[0].what = "dgesv", calls[0].st = ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB);
    fresh_data();
    calls[1].what = "dposv", calls[1].st = ps_dposv(ctx, 'L', N, NRHS, A, LDA, B, LDB);
    fresh_data();
    calls[2].what = "dgjinv", calls[2].st = ps_dgjinv(ctx, N, A, LDA);
    fresh_data();
    calls[3].what = "dsgesv",
    calls[3].st = ps_dsgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB, X, LDB, &iter);
    for (int c = 0; c < 4; c++) {
        if (own_memory) {
            CHECK(calls[c].st == PS_ERR_OUT_OF_MEMORY, "%s: %s", calls[c].what,
                  ps_status_string(calls[c].st));
            CHECK(untouched(), "%s: arrays changed", calls[c].what);
        } else {
            CHECK(calls[c].st == PS_SUCCESS || calls[c].st == PS_ERR_NOT_SPD, "%s on cpu: %s",
                  calls[c].what, ps_status_string(calls[c].st));
        }
    }
    if (own_memory) {
        fresh_data();
        CHECK_STATUS(ps_dgesv(ctx, N, NRHS, A, LDA, ipiv, B, LDB), PS_ERR_OUT_OF_MEMORY);
        CHECK(strstr(ps_context_last_error(ctx), "GiB of device memory") != NULL, "message: %s",
              ps_context_last_error(ctx));
    }
    fresh_data(); /* 20 x 20 and two right-hand sides: 3520 bytes fit */
    CHECK_STATUS(ps_dgesv(ctx, 20, NRHS, A, LDA, ipiv, B, LDB), PS_SUCCESS);
    ctx->test_device_free = 0;
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "leaked");
    expect_usable(ctx);
}

/* ps_context_release_memory: the staging buffers a host call left (on the backends that stage)
 * are given back, a device matrix stays as it was, and the calls after it are right; a NULL
 * context is refused. */
static void case_release_memory(ps_context *ctx) {
    CHECK_STATUS(ps_context_release_memory(NULL), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_context_set_host_crossover(ctx, 0), PS_SUCCESS); /* the device path */
    void *alias;
    int stages = ctx->be.ops->host_alias(&ctx->be, A, &alias) != PS_SUCCESS;
    ps_matrix *M = NULL;
    double up[LDA * N], back[LDA * N];
    fresh_data();
    memcpy(up, A0, sizeof up);
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, N, N, 0, &M), PS_SUCCESS);
    if (!M) return;
    CHECK_STATUS(ps_matrix_upload(M, up, LDA), PS_SUCCESS);
    expect_usable(ctx);
    CHECK((ctx->ring_bytes > 0) == stages, "after a host call the staging buffers are %s",
          ctx->ring_bytes > 0 ? "kept" : "not there");
    CHECK_STATUS(ps_context_release_memory(ctx), PS_SUCCESS);
    int kept = 0;
    for (int i = 0; i < PS__TRANSFER_SLOTS; i++) kept += ctx->ring[i] != NULL;
    CHECK(ctx->ring_bytes == 0 && kept == 0, "%d staging buffers kept", kept);
    memset(back, 0, sizeof back);
    CHECK_STATUS(ps_matrix_download(M, back, LDA), PS_SUCCESS);
    int same = 1;
    for (int j = 0; j < N; j++) same &= memcmp(back + j * LDA, up + j * LDA, N * sizeof *A) == 0;
    CHECK(same, "the device matrix changed");
    expect_usable(ctx);
    CHECK_STATUS(ps_context_release_memory(ctx), PS_SUCCESS); /* twice in a row */
    ps_matrix_destroy(M);
    CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0, "leaked");
    expect_usable(ctx);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    static const struct {
        const char *name;
        void (*run)(ps_context *);
    } cases[] = {{"null_pointers", case_null_pointers},
                 {"negative_sizes", case_negative_sizes},
                 {"bad_leading_dimensions", case_bad_leading_dimensions},
                 {"bad_trans_and_pivots", case_bad_trans_and_pivots},
                 {"singular", case_singular},
                 {"non_finite", case_non_finite},
                 {"non_finite_last_block", case_non_finite_last_block},
                 {"crossover", case_crossover},
                 {"matrix_roundtrip", case_matrix_roundtrip},
                 {"huge_sizes", case_huge_sizes},
                 {"aliasing", case_aliasing},
                 {"result_not_finite", case_result_not_finite},
                 {"iter_scaled", case_iter_scaled},
                 {"iter_options", case_iter_options},
                 {"context_busy", case_context_busy},
                 {"alloc_failure", case_alloc_failure},
                 {"matrix_level", case_matrix_level},
                 {"overlap", case_overlap},
                 {"workspace", case_workspace},
                 {"release_memory", case_release_memory}};
    const char *want = ps_test_case();
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        if (want && strcmp(want, cases[i].name) != 0) continue;
        ps_context *ctx = ps_test_context(0);
        printf("case %s\n", cases[i].name);
        cases[i].run(ctx);
        ps_context_destroy(ctx);
        ran++;
    }
    if (!ran) {
        fprintf(stderr, "FAIL: no case named '%s'\n", want);
        return 1;
    }
    return ps_test_finish("test_errors");
}
