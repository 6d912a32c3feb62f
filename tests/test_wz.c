/*
 * WZ factorization (wztrf/wztrs/wzsv), both precisions, all three variants (blocked, vector with
 * the device corner step, vector as published), on the backend given by --backend: dlatms/slatms
 * matrices of condition 1e1..1e12, orders 0..7, 64, 65, 255, 256 and 1001, lda > n, one and
 * several right-hand sides; LAPACK-style ratios ||PA - WZ|| / (||A|| n eps) and the scaled
 * residual; matrices whose corner determinants are exactly zero (pivoting copes, the unpivoted
 * algorithm reports its breakdown and leaves A as it was); singular matrices with a known
 * failing step; the device-matrix level; the options and the environment.
 * two_lanes: dlatms, scaled and singular again with the context made to claim two lanes, so that
 * the blocked variant's look-ahead schedule (core/lu/lu.c), which only backends with two lanes
 * (CUDA) take, runs on every backend (the lanes run in order here).
 */
#include "checks.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int orders[] = {0, 1, 2, 3, 4, 5, 6, 7, 64, 65, 255, 256, 1001};
static const double conds[] = {1e1, 1e6, 1e12};
static const ps_wz_variant variants[] = {PS_WZ_BLOCKED, PS_WZ_VECTOR, PS_WZ_VECTOR_HOST};

static ps_status wzsv(ps_context *ctx, ps_dtype dt, int n, int nrhs, void *A, int lda, int *ipiv,
                      void *B, int ldb) {
    return dt == PS_DOUBLE ? ps_dwzsv(ctx, n, nrhs, A, lda, ipiv, B, ldb)
                           : ps_swzsv(ctx, n, nrhs, A, lda, ipiv, B, ldb);
}
static ps_status wztrf(ps_context *ctx, ps_dtype dt, int n, void *A, int lda, int *ipiv) {
    return dt == PS_DOUBLE ? ps_dwztrf(ctx, n, A, lda, ipiv) : ps_swztrf(ctx, n, A, lda, ipiv);
}
static ps_status wztrs(ps_context *ctx, ps_dtype dt, int n, int nrhs, const void *A, int lda,
                       const int *ipiv, void *B, int ldb) {
    return dt == PS_DOUBLE ? ps_dwztrs(ctx, n, nrhs, A, lda, ipiv, B, ldb)
                           : ps_swztrs(ctx, n, nrhs, A, lda, ipiv, B, ldb);
}

static void set_options(ps_context *ctx, ps_wz_variant v, int pivoting, int nb) {
    ps_wz_options o = {v, pivoting, nb};
    CHECK_STATUS(ps_context_set_wz_options(ctx, &o), PS_SUCCESS);
}

static void *latms(ps_dtype dt, int n, int lda, double cond) {
    void *a = ps_test_random_array(dt, lda, n);
    int info = dt == PS_DOUBLE ? ps_test_latms_d(n, cond, 'N', a, lda)
                               : ps_test_latms_s(n, cond, 'N', a, lda);
    CHECK(info == 0, "latms info %d", info);
    return a;
}

static const char *vname(ps_context *ctx) {
    return ps_wz_variant_name(ps_context_wz_options(ctx).variant);
}

/* wzsv on A0 and B0 = A0 X, then wztrs with the returned factors on another right-hand side;
 * ratios, padding, and pivots that follow the documented convention. */
static void check_solve(ps_context *ctx, ps_dtype dt, const void *A0, int n, int lda, int nrhs,
                        const char *what, double cond) {
    int ldb = n + (nrhs > 1 ? 2 : 0);
    if (ldb < 1) ldb = 1;
    char p = dt == PS_DOUBLE ? 'd' : 's';
    void *X = ps_test_random_array(dt, n > 0 ? n : 1, nrhs);
    void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, lda, X, n > 0 ? n : 1, ldb);
    void *A = ps_test_clone(dt, A0, lda, n), *B = ps_test_clone(dt, B0, ldb, nrhs);
    int *ipiv = malloc(sizeof(int) * (size_t)(n + 1));
    ps_status st = wzsv(ctx, dt, n, nrhs, A, lda, ipiv, B, ldb);
    /* Beyond 1/eps (cond 1e12 in float) the matrix is numerically singular in that precision, and
     * a corner may come out exactly singular (LU's test accepts the same). */
    if (st == PS_ERR_SINGULAR && cond * ps_test_eps(dt) >= 1) {
        CHECK(memcmp(B, B0, ps_test_esize(dt) * (size_t)ldb * nrhs) == 0, "B written");
        free(X), free(B0), free(A), free(B), free(ipiv);
        return;
    }
    CHECK(st == PS_SUCCESS, "%cwzsv %s %s n=%d lda=%d nrhs=%d: %s: %s", p, vname(ctx), what, n, lda,
          nrhs, ps_status_string(st), ps_context_last_error(ctx));
    if (st == PS_SUCCESS) {
        double fact = ps_check_wz_ratio(dt, n, A0, lda, A, lda, ipiv);
        double solve = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, lda, B, ldb, B0, ldb);
        CHECK(fact < PS_TEST_THRESHOLD, "%cwzsv %s %s n=%d: ||PA-WZ|| ratio %g", p, vname(ctx),
              what, n, fact);
        CHECK(solve < PS_TEST_THRESHOLD, "%cwzsv %s %s n=%d nrhs=%d: residual ratio %g", p,
              vname(ctx), what, n, nrhs, solve);
        CHECK(ps_test_padding_intact(dt, n, lda, n, A, A0) &&
                  ps_test_padding_intact(dt, n, ldb, nrhs, B, B0),
              "%cwzsv n=%d wrote into the padding", p, n);
        int piv_ok = 1; /* step k swaps row k with k..n-1-k, then row n-1-k with k+1..n-1-k */
        for (int i = 0; i < n; i++) {
            int k = i < n - 1 - i ? i : n - 1 - i, lo = i == k ? k : k + 1;
            piv_ok &= ipiv[i] - 1 >= lo && ipiv[i] - 1 <= n - 1 - k;
        }
        CHECK(piv_ok, "%cwzsv %s n=%d: pivots outside the documented ranges", p, vname(ctx), n);

        /* wztrs with the factors on a fresh right-hand side. */
        void *X2 = ps_test_random_array(dt, n > 0 ? n : 1, nrhs);
        void *C0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, lda, X2, n > 0 ? n : 1, ldb);
        void *C = ps_test_clone(dt, C0, ldb, nrhs);
        st = wztrs(ctx, dt, n, nrhs, A, lda, ipiv, C, ldb);
        CHECK(st == PS_SUCCESS, "%cwztrs n=%d: %s", p, n, ps_context_last_error(ctx));
        double r2 = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, lda, C, ldb, C0, ldb);
        CHECK(r2 < PS_TEST_THRESHOLD, "%cwztrs %s %s n=%d: residual ratio %g", p, vname(ctx), what,
              n, r2);
        free(X2), free(C0), free(C);
    }
    free(X), free(B0), free(A), free(B), free(ipiv);
}

static void test_dlatms(ps_context *ctx, ps_dtype dt) {
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        set_options(ctx, variants[v], 1, 0);
        for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++)
            for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++) {
                int n = orders[o];
                if (n > 300 && c != 1) continue; /* the largest order once per variant */
                int lda = n + (c == 1 ? 3 : 0);
                if (lda < 1) lda = 1;
                void *A0 = latms(dt, n, lda, conds[c]);
                char what[32];
                snprintf(what, sizeof what, "cond=%g", conds[c]);
                check_solve(ctx, dt, A0, n, lda, c == 0 ? 1 : 3, what, conds[c]);
                free(A0);
            }
    }
    /* Block sizes that do not divide n, and the smallest (one step per panel). */
    int nbs[] = {2, 6, 32};
    for (size_t i = 0; i < sizeof nbs / sizeof nbs[0]; i++) {
        set_options(ctx, PS_WZ_BLOCKED, 1, nbs[i]);
        void *A0 = latms(dt, 131, 131, 1e6);
        check_solve(ctx, dt, A0, 131, 131, 2, "small block", 1e6);
        free(A0);
    }
    set_options(ctx, PS_WZ_BLOCKED, 1, 0);
}

/* Well-conditioned matrices with entries near the top or the bottom of the precision's range
 * (a power of two times a matrix of condition 1.1, so exactly scaled): the pivot search's 2 x 2
 * determinants must not overflow or underflow into a false "singular". */
static void test_scaled(ps_context *ctx, ps_dtype dt) {
    const int exps[] = {dt == PS_DOUBLE ? 1015 : 120, dt == PS_DOUBLE ? -1000 : -120};
    set_options(ctx, PS_WZ_BLOCKED, 1, 0);
    for (size_t k = 0; k < sizeof exps / sizeof exps[0]; k++) {
        int n = 50, lda = 53;
        void *A0 = latms(dt, n, lda, 1.1);
        for (size_t i = 0; i < (size_t)lda * n; i++) {
            if (dt == PS_DOUBLE)
                ((double *)A0)[i] = ldexp(((double *)A0)[i], exps[k]);
            else
                ((float *)A0)[i] = ldexpf(((float *)A0)[i], exps[k]);
        }
        char what[32];
        snprintf(what, sizeof what, "scaled by 2^%d", exps[k]);
        check_solve(ctx, dt, A0, n, lda, 1, what, 1.1);
        free(A0);
    }
}

/* Diagonally dominant matrices factor stably without pivoting. */
static void test_unpivoted(ps_context *ctx, ps_dtype dt) {
    static const int sizes[] = {1, 2, 3, 7, 64, 65, 255};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        set_options(ctx, variants[v], 0, 0);
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            int n = sizes[i], lda = n + 1;
            void *A0 = ps_test_random_array(dt, lda, n);
            for (int j = 0; j < n; j++)
                ps_test_set(dt, A0, lda, j, j, ps_test_get(dt, A0, lda, j, j) + 2.0 * n);
            check_solve(ctx, dt, A0, n, lda, 2, "unpivoted, diagonally dominant", 10);
            free(A0);
        }
    }
    set_options(ctx, PS_WZ_BLOCKED, 1, 0);
}

/* Zero corner determinants: a cyclic shift (a(i, i+1 mod n) = 1, every corner singular at the
 * first step) and a dlatms matrix with its outermost corner zeroed. */
static void test_zero_corners(ps_context *ctx, ps_dtype dt) {
    static const int sizes[] = {3, 4, 5, 64, 65, 256};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (int kind = 0; kind < 2; kind++) {
            int n = sizes[i], lda = n + 2;
            if (kind == 1 && n < 4) continue; /* zeroing the corners of a 3 x 3 makes it singular */
            void *A0;
            if (kind == 0) {
                A0 = ps_test_random_array(dt, lda, n);
                for (int j = 0; j < n; j++)
                    for (int r = 0; r < n; r++) ps_test_set(dt, A0, lda, r, j, 0.0);
                for (int r = 0; r < n; r++) ps_test_set(dt, A0, lda, r, (r + 1) % n, 1.0);
            } else {
                A0 = latms(dt, n, lda, 1e3);
                int e[2] = {0, n - 1};
                for (int a = 0; a < 2; a++)
                    for (int b = 0; b < 2; b++) ps_test_set(dt, A0, lda, e[a], e[b], 0.0);
            }
            for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
                set_options(ctx, variants[v], 1, 0);
                check_solve(ctx, dt, A0, n, lda, 1, kind ? "zeroed corner" : "cyclic shift", 1e3);
                /* Without pivoting: PS_ERR_WZ_BREAKDOWN at step 1, nothing written. */
                set_options(ctx, variants[v], 0, 0);
                void *A = ps_test_clone(dt, A0, lda, n);
                void *B = ps_test_random_array(dt, n, 1), *B1 = ps_test_clone(dt, B, n, 1);
                int *ipiv = malloc(sizeof(int) * (size_t)n);
                for (int r = 0; r < n; r++) ipiv[r] = -7;
                ps_status st = wzsv(ctx, dt, n, 1, A, lda, ipiv, B, n);
                CHECK(st == PS_ERR_WZ_BREAKDOWN && ps_context_last_info(ctx) == 1,
                      "unpivoted %s n=%d on a zero corner: %s, info %d (%s)", vname(ctx), n,
                      ps_status_string(st), ps_context_last_info(ctx), ps_context_last_error(ctx));
                CHECK(memcmp(A, A0, ps_test_esize(dt) * (size_t)lda * n) == 0 &&
                          memcmp(B, B1, ps_test_esize(dt) * (size_t)n) == 0 && ipiv[0] == -7,
                      "unpivoted %s n=%d: arrays written on breakdown", vname(ctx), n);
                free(A), free(B), free(B1), free(ipiv);
            }
            free(A0);
        }
    set_options(ctx, PS_WZ_BLOCKED, 1, 0);
}

/* A zero column j makes step min(j, n-1-j) + 1 singular whatever the pivoting does. */
static void test_singular(ps_context *ctx, ps_dtype dt) {
    static const int cases[][2] = {{1, 0}, {2, 1}, {5, 2}, {6, 4}, {64, 10}, {65, 32}, {257, 200}};
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        set_options(ctx, variants[v], 1, 0);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            int n = cases[c][0], j = cases[c][1], lda = n;
            void *A0 = latms(dt, n, lda, 10.0);
            for (int i = 0; i < n; i++) ps_test_set(dt, A0, lda, i, j, 0.0);
            void *A = ps_test_clone(dt, A0, lda, n);
            void *B = ps_test_random_array(dt, n, 2), *B1 = ps_test_clone(dt, B, n, 2);
            int *ipiv = malloc(sizeof(int) * (size_t)n);
            ps_status st = wzsv(ctx, dt, n, 2, A, lda, ipiv, B, n);
            int want = (j < n - 1 - j ? j : n - 1 - j) + 1;
            CHECK(st == PS_ERR_SINGULAR && ps_context_last_info(ctx) == want,
                  "%s n=%d zero column %d: %s, info %d, expected %d (%s)", vname(ctx), n, j,
                  ps_status_string(st), ps_context_last_info(ctx), want,
                  ps_context_last_error(ctx));
            CHECK(memcmp(B, B1, ps_test_esize(dt) * (size_t)n * 2) == 0,
                  "B written for a singular matrix");
            int finite = 1;
            for (int e = 0; e < n * n; e++)
                finite &= isfinite(ps_test_get(dt, A, lda, e % n, e / n));
            CHECK(finite, "%s n=%d: non-finite factors of a singular matrix", vname(ctx), n);
            /* The factors are returned (as getrf): wztrf alone gives the same info. */
            void *A2 = ps_test_clone(dt, A0, lda, n);
            CHECK_STATUS(wztrf(ctx, dt, n, A2, lda, ipiv), PS_ERR_SINGULAR);
            CHECK(n <= 2 || memcmp(A2, A0, ps_test_esize(dt) * (size_t)lda * n) != 0,
                  "wztrf left a singular matrix of order %d unfactored", n); /* n <= 2: Z = A */
            free(A0), free(A), free(A2), free(B), free(B1), free(ipiv);
        }
    }
    set_options(ctx, PS_WZ_BLOCKED, 1, 0);
}

static void test_device_level(ps_context *ctx, ps_dtype dt) {
    int n = 97, nrhs = 3;
    void *A0 = latms(dt, n, n, 1e4);
    void *X = ps_test_random_array(dt, n, nrhs);
    void *B0 = ps_test_rhs_for(dt, 'N', n, nrhs, A0, n, X, n, n);
    void *F = ps_test_clone(dt, A0, n, n), *B = ps_test_clone(dt, B0, n, nrhs);
    int ipiv[97];
    for (size_t v = 0; v < sizeof variants / sizeof variants[0]; v++) {
        set_options(ctx, variants[v], 1, 0);
        ps_matrix *A = NULL, *Bm = NULL;
        CHECK_STATUS(ps_matrix_create(ctx, (ps_dtype)dt, n, n, n + 1, &A), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_create(ctx, (ps_dtype)dt, n, nrhs, 0, &Bm), PS_SUCCESS);
        if (!A || !Bm) {
            ps_matrix_destroy(A), ps_matrix_destroy(Bm);
            continue;
        }
        CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_upload(Bm, B0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_wzsv(ctx, A, ipiv, Bm), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(A, F, n), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(Bm, B, n), PS_SUCCESS);
        double fact = ps_check_wz_ratio(dt, n, A0, n, F, n, ipiv);
        double res = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, n, B, n, B0, n);
        CHECK(fact < PS_TEST_THRESHOLD && res < PS_TEST_THRESHOLD,
              "ps_mat_wzsv %s: factorization ratio %g, residual ratio %g", vname(ctx), fact, res);
        /* wztrf then wztrs on the device matrices. */
        CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_upload(Bm, B0, n), PS_SUCCESS);
        CHECK_STATUS(ps_mat_wztrf(ctx, A, ipiv), PS_SUCCESS);
        CHECK_STATUS(ps_mat_wztrs(ctx, A, ipiv, Bm), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(Bm, B, n), PS_SUCCESS);
        res = ps_check_solve_ratio(dt, 'N', n, nrhs, A0, n, B, n, B0, n);
        CHECK(res < PS_TEST_THRESHOLD, "ps_mat_wztrf + wztrs %s: residual ratio %g", vname(ctx),
              res);
        ps_matrix_destroy(A), ps_matrix_destroy(Bm);
    }
    set_options(ctx, PS_WZ_BLOCKED, 1, 0);
    free(A0), free(X), free(B0), free(F), free(B);
}

/* Bad input, as for gesv: every argument, NaN, pivots no WZ step produces, options. */
static void test_errors(ps_context *ctx) {
    double A[16] = {4, 1, 0, 1, 1, 4, 1, 0, 0, 1, 4, 1, 1, 0, 1, 4}, B[4] = {1, 2, 3, 4};
    int ipiv[4];
    CHECK_STATUS(ps_dwzsv(NULL, 4, 1, A, 4, ipiv, B, 4), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dwzsv(ctx, -1, 1, A, 4, ipiv, B, 4), PS_ERR_INVALID_ARGUMENT);
    CHECK(ps_context_last_info(ctx) == -2, "info %d for n", ps_context_last_info(ctx));
    CHECK_STATUS(ps_dwzsv(ctx, 4, -1, A, 4, ipiv, B, 4), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dwzsv(ctx, 4, 1, NULL, 4, ipiv, B, 4), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dwzsv(ctx, 4, 1, A, 3, ipiv, B, 4), PS_ERR_INVALID_ARGUMENT);
    CHECK(ps_context_last_info(ctx) == -5, "info %d for lda", ps_context_last_info(ctx));
    CHECK_STATUS(ps_dwzsv(ctx, 4, 1, A, 4, NULL, B, 4), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dwzsv(ctx, 4, 1, A, 4, ipiv, NULL, 4), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dwzsv(ctx, 4, 1, A, 4, ipiv, B, 3), PS_ERR_INVALID_ARGUMENT);
    CHECK(ps_context_last_info(ctx) == -8, "info %d for ldb", ps_context_last_info(ctx));
    CHECK_STATUS(ps_dwztrf(ctx, 4, A, 2, ipiv), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_dwztrs(ctx, 4, 1, A, 4, NULL, B, 4), PS_ERR_INVALID_ARGUMENT);
    A[5] = NAN;
    CHECK_STATUS(ps_dwzsv(ctx, 4, 1, A, 4, ipiv, B, 4), PS_ERR_NON_FINITE);
    A[5] = 4;
    B[2] = INFINITY;
    CHECK_STATUS(ps_dwzsv(ctx, 4, 1, A, 4, ipiv, B, 4), PS_ERR_NON_FINITE);
    B[2] = 3;
    CHECK_STATUS(ps_dwzsv(ctx, 0, 1, NULL, 1, NULL, NULL, 1), PS_SUCCESS);
    /* Pivots: step 1 may swap row 1 with 1..4 and row 4 with 2..4; step 2 row 2 with 2..3. */
    double F[16];
    memcpy(F, A, sizeof F);
    CHECK_STATUS(ps_dwztrf(ctx, 4, F, 4, ipiv), PS_SUCCESS);
    int bad[][4] = {{0, 2, 3, 4}, {5, 2, 3, 4}, {1, 2, 3, 1}, {1, 1, 3, 4}, {1, 2, 4, 4}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double b[4] = {1, 2, 3, 4};
        CHECK_STATUS(ps_dwztrs(ctx, 4, 1, F, 4, bad[i], b, 4), PS_ERR_INVALID_ARGUMENT);
        CHECK(b[0] == 1 && b[3] == 4, "B written with bad pivots");
    }
    ps_wz_options o = {(ps_wz_variant)7, 1, 0};
    CHECK_STATUS(ps_context_set_wz_options(ctx, &o), PS_ERR_INVALID_ARGUMENT);
    o.variant = PS_WZ_BLOCKED, o.pivoting = 2;
    CHECK_STATUS(ps_context_set_wz_options(ctx, &o), PS_ERR_INVALID_ARGUMENT);
    o.pivoting = 1, o.block_size = 7;
    CHECK_STATUS(ps_context_set_wz_options(ctx, &o), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_context_set_wz_options(ctx, NULL), PS_ERR_INVALID_ARGUMENT);
    ps_wz_variant v;
    CHECK(ps_wz_variant_from_name("Vector-Host", &v) == PS_SUCCESS && v == PS_WZ_VECTOR_HOST,
          "variant names");
    CHECK_STATUS(ps_wz_variant_from_name("vectorhost", &v), PS_ERR_INVALID_ARGUMENT);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    ps_context *ctx = ps_test_context(0);
    ps_wz_options o = ps_context_wz_options(ctx);
    CHECK(o.variant == PS_WZ_BLOCKED && o.pivoting == 1 && o.block_size == 0,
          "default WZ options: variant %d pivoting %d nb %d", o.variant, o.pivoting, o.block_size);
    const char *only = ps_test_case();
    int lanes = only && !strcmp(only, "two_lanes");
    if (lanes) ps_test_two_lanes(ctx);
    for (int d = 0; d < 2; d++) {
        ps_dtype dt = d ? PS_FLOAT : PS_DOUBLE;
        if (!only || lanes || !strcmp(only, "dlatms")) test_dlatms(ctx, dt);
        if (!only || !strcmp(only, "unpivoted")) test_unpivoted(ctx, dt);
        if (!only || lanes || !strcmp(only, "scaled")) test_scaled(ctx, dt);
        if (!only || !strcmp(only, "zero_corners")) test_zero_corners(ctx, dt);
        if (!only || lanes || !strcmp(only, "singular")) test_singular(ctx, dt);
        if (!only || !strcmp(only, "device_level")) test_device_level(ctx, dt);
    }
    if (!only || !strcmp(only, "errors")) test_errors(ctx);
    int rc = ps_test_finish("test_wz");
    ps_context_destroy(ctx);
    return rc;
}
