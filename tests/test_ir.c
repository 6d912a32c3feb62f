/*
 * Mixed-precision iterative refinement (ps_dsgesv, ps_mat_dsgesv) on the backend given by
 * --backend, in every lower precision that backend offers (float everywhere; TF32, FP16 and BF16
 * on CUDA; the others must refuse those with PS_ERR_NOT_SUPPORTED):
 *   solve:       dlatms cond 1e1..1e8, n in {1,2,3,31,100,257}, one and three right-hand sides,
 *                leading dimensions > n. Scaled residual < 30, the reported backward error
 *                meets LAPACK's test and agrees with the host's, the path and counts are
 *                consistent, A is untouched unless it fell back (then it holds dgetrf's
 *                factors); float never falls back up to cond 1e4, no precision at cond 1e1.
 *   gmres:       cond 1e8 in float (kappa u > 1): classical refinement stalls, GMRES-IR meets
 *                the test, also with each of its allocations failing in turn (out of memory,
 *                nothing written or leaked; without the widened factors it still solves);
 *                with GMRES off it falls back with iter = -31 at cond 1e10.
 *   cond12:      cond 1e12 either meets the test or falls back and says so.
 *   special:     a float overflow (iter -2), a matrix singular in float only (iter -3), an
 *                exactly singular matrix (PS_ERR_SINGULAR, X untouched), n = 0, nrhs = 0.
 *   device_level, errors: ps_mat_dsgesv; bad arguments, options, environment.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "checks.h"
#include "base/context.h" /* the allocation failure hook */
#include "refine/refine.h"
#include "refine/refine_kernels.h"
#include "refine/trsv_blocked.h"
#include "test_util.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const ps_lowprec all_precisions[] = {PS_LOWPREC_FLOAT, PS_LOWPREC_TF32,   PS_LOWPREC_FP16,
                                            PS_LOWPREC_BF16,  PS_LOWPREC_TF32X3, PS_LOWPREC_FP16X3};

/* Random cond-1e8 systems drawn at most until one takes the GMRES-IR path (test_gmres). */
#define GMRES_TRIES 40

/* The modes of three products on split operands: about float's accuracy. */
static int split3(ps_lowprec p) {
    return p == PS_LOWPREC_TF32X3 || p == PS_LOWPREC_FP16X3;
}

/* The backend offers the tensor-core precisions: CUDA. */
static int offers(ps_lowprec p) {
    return p == PS_LOWPREC_FLOAT || !strcmp(ps_test_backend_name(), "cuda");
}

static void set_factored(ps_context *ctx, ps_lowprec p, int max_iter, int gmres,
                         ps_refine_factor f) {
    ps_refine_options o = ps_refine_options_default();
    o.precision = p;
    o.max_iter = max_iter;
    o.gmres = gmres;
    o.factorization = f;
    CHECK_STATUS(ps_context_set_refine_options(ctx, &o), PS_SUCCESS);
    /* RBT: blocks of 16, so its pivot window (two block rows) is far shorter than the matrices
     * here and the rows below it take the triangular-solve path; otherwise the tuning's lu_nb
     * (0: the backend's) */
    ctx->lu_block_size = f == PS_REFINE_RBT ? 16 : ctx->tuning.lu_nb;
}

static void set_options(ps_context *ctx, ps_lowprec p, int max_iter, int gmres) {
    set_factored(ctx, p, max_iter, gmres, PS_REFINE_PARTIAL_PIVOTING);
}

static double *latms(int n, int lda, double cond) {
    double *a = ps_test_random_array(PS_DOUBLE, lda > 0 ? lda : 1, n);
    int info = ps_test_latms_d(n, cond, 'N', a, lda);
    CHECK(info == 0, "dlatms info %d", info);
    return a;
}

/* max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf), on the host in double. */
static double backward_error(int n, int nrhs, const double *A, int lda, const double *X, int ldx,
                             const double *B, int ldb) {
    double anrm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'I', n, n, A, lda), worst = 0;
    double *r = malloc(sizeof(double) * (size_t)n);
    for (int j = 0; j < nrhs; j++) {
        double rn = 0, xn = 0;
        for (int i = 0; i < n; i++) {
            double s = B[i + (size_t)j * ldb];
            for (int k = 0; k < n; k++) s -= A[i + (size_t)k * lda] * X[k + (size_t)j * ldx];
            r[i] = s;
            rn = fmax(rn, fabs(s));
            xn = fmax(xn, fabs(X[i + (size_t)j * ldx]));
        }
        double be = rn == 0 ? 0 : rn / (anrm * xn);
        if (!(be <= worst)) worst = be;
    }
    free(r);
    return worst;
}

/* One dsgesv of A0 (n x n, lda) with nrhs random right-hand sides; checks everything the
 * result says. Returns iter (or INT32 min on a failed call). */
static int check_solve(ps_context *ctx, const double *A0, int n, int lda, int nrhs,
                       const char *what) {
    int ldb = n + 2, ldx = n + 1;
    double *A = ps_test_clone(PS_DOUBLE, A0, lda, n);
    double *B = ps_test_random_array(PS_DOUBLE, ldb, nrhs);
    double *X = ps_test_random_array(PS_DOUBLE, ldx, nrhs);
    double *X0 = ps_test_clone(PS_DOUBLE, X, ldx, nrhs);
    int *ipiv = malloc(sizeof(int) * (size_t)(n + 1)), iter = -999;
    ps_status st = ps_dsgesv(ctx, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, &iter);
    ps_refine_result r = ps_context_refine_result(ctx);
    CHECK(st == PS_SUCCESS, "%s n=%d nrhs=%d: %s (%s)", what, n, nrhs, ps_status_string(st),
          ps_context_last_error(ctx));
    if (st != PS_SUCCESS) {
        free(A), free(B), free(X), free(X0), free(ipiv);
        return -1000000;
    }
    CHECK(iter == r.iter, "%s: iter %d but the result says %d", what, iter, r.iter);
    CHECK(r.precision == ps_context_refine_options(ctx).precision, "%s: result precision %s", what,
          ps_lowprec_name(r.precision));
    CHECK(r.factorization == ps_context_refine_options(ctx).factorization,
          "%s: result factorization %s", what, ps_refine_factor_name(r.factorization));
    double ratio = ps_check_solve_ratio(PS_DOUBLE, 'N', n, nrhs, A0, lda, X, ldx, B, ldb);
    CHECK(ratio < PS_TEST_THRESHOLD, "%s n=%d nrhs=%d iter=%d path=%s: residual ratio %.3g", what,
          n, nrhs, iter, ps_refine_path_name(r.path), ratio);
    CHECK(ps_test_padding_intact(PS_DOUBLE, n, ldx, nrhs, X, X0), "%s: X padding written", what);
    for (int i = 0; i < n; i++)
        CHECK(ipiv[i] >= 1 && ipiv[i] <= n, "%s: ipiv[%d] = %d", what, i, ipiv[i]);
    double eps = DBL_EPSILON / 2;
    if (iter >= 0) {
        CHECK(r.path == PS_REFINE_CLASSICAL || r.path == PS_REFINE_GMRES,
              "%s: path %s with iter %d", what, ps_refine_path_name(r.path), iter);
        CHECK(iter == r.classical_steps + r.gmres_iterations, "%s: iter %d != %d + %d", what, iter,
              r.classical_steps, r.gmres_iterations);
        CHECK(r.path == PS_REFINE_GMRES || r.gmres_iterations == 0, "%s: GMRES steps on path %s",
              what, ps_refine_path_name(r.path));
        /* The claim is LAPACK's test; the host's own residual (rounded differently, by up to
         * about sqrt(n) eps) must agree. */
        double bound = sqrt((double)n) * eps;
        CHECK(r.backward_error <= bound, "%s: reported backward error %.3g above %.3g", what,
              r.backward_error, bound);
        double host = backward_error(n, nrhs, A0, lda, X, ldx, B, ldb);
        CHECK(host <= 4 * bound, "%s n=%d: host backward error %.3g, reported %.3g", what, n, host,
              r.backward_error);
        CHECK(memcmp(A, A0, sizeof(double) * (size_t)lda * n) == 0, "%s: A changed with iter %d",
              what, iter);
    } else {
        CHECK(r.path == PS_REFINE_FALLBACK, "%s: iter %d on path %s", what, iter,
              ps_refine_path_name(r.path));
        CHECK(isnan(r.backward_error), "%s: fallback reports backward error %g", what,
              r.backward_error);
        double lu = ps_check_lu_ratio(PS_DOUBLE, n, n, A0, lda, A, lda, ipiv);
        CHECK(lu < PS_TEST_THRESHOLD, "%s: fallback factors ratio %.3g", what, lu);
    }
    free(A), free(B), free(X), free(X0), free(ipiv);
    return iter;
}

static void test_solve(ps_context *ctx) {
    static const int orders[] = {1, 2, 3, 31, 100, 257};
    static const double conds[] = {1e1, 1e4, 1e8};
    for (size_t p = 0; p < 2 * sizeof all_precisions / sizeof all_precisions[0]; p++) {
        ps_lowprec prec = all_precisions[p % (sizeof all_precisions / sizeof all_precisions[0])];
        ps_refine_factor f = p < sizeof all_precisions / sizeof all_precisions[0]
                                 ? PS_REFINE_PARTIAL_PIVOTING
                                 : PS_REFINE_RBT;
        if (!offers(prec)) continue; /* test_errors checks the refusal */
        set_factored(ctx, prec, 30, 1, f);
        for (size_t c = 0; c < sizeof conds / sizeof conds[0]; c++)
            for (size_t k = 0; k <= sizeof orders / sizeof orders[0]; k++) {
                /* TF32X3 splits only GEMMs of 512 x 512 or more (FP16X3 from 128 x 128): one
                 * order large enough that the LU's trailing updates take that path */
                if (k == sizeof orders / sizeof orders[0] && !split3(prec)) break;
                int n = k < sizeof orders / sizeof orders[0] ? orders[k] : 1100, lda = n + 3;
                double *A0 = latms(n, lda, conds[c]);
                for (int nrhs = 1; nrhs <= 3; nrhs += 2) {
                    char what[96];
                    snprintf(what, sizeof what, "%s %s cond %.0e", ps_lowprec_name(prec),
                             ps_refine_factor_name(f), conds[c]);
                    int iter = check_solve(ctx, A0, n, lda, nrhs, what);
                    /* Below order 4 LAPACK's test (||r|| <= sqrt(n) eps ||A|| ||x||) can sit
                     * under the rounding of the residual itself (each r_i carries up to about
                     * 3 eps (|b_i| + |A||x|_i)), so no step can pass it and the fallback is the
                     * right answer: seen once on POCL at n = 2, float, cond 1e1 (seed
                     * 1795733243: four classical steps at the floor, then GMRES-IR). */
                    int must_refine =
                        n > 3 && conds[c] <= (prec == PS_LOWPREC_FLOAT || split3(prec) ? 1e4 : 1e1);
                    if (must_refine)
                        CHECK(iter >= 0, "%s n=%d nrhs=%d fell back (iter %d)", what, n, nrhs,
                              iter);
                    /* TF32X3's and FP16X3's factors are about float's: a handful of classical
                     * steps where plain TF32 (kappa u = 5 at cond 1e4) needs GMRES or falls
                     * back */
                    if (split3(prec) && conds[c] <= 1e4)
                        CHECK(iter <= 15, "%s n=%d nrhs=%d took %d steps", what, n, nrhs, iter);
                    /* with float's factors (kappa u <= 1e-3 here) every classical step
                     * contracts, so GMRES-IR is never needed: a solve that fails to (such as
                     * classical refinement's by the inverted blocks, ir_early_inverses)
                     * shows here even where GMRES-IR would have rescued it */
                    if (must_refine && prec == PS_LOWPREC_FLOAT && conds[c] <= 1e4)
                        CHECK(ps_context_refine_result(ctx).path == PS_REFINE_CLASSICAL,
                              "%s n=%d nrhs=%d needed GMRES-IR (%d classical steps, %d Arnoldi)",
                              what, n, nrhs, ps_context_refine_result(ctx).classical_steps,
                              ps_context_refine_result(ctx).gmres_iterations);
                }
                free(A0);
            }
    }
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 1);
}

/* RBT on matrices whose pivots lie far outside the window: the anti-identity (a depth-2
 * butterfly maps its orbits onto other orbits, so L A R keeps tiny leading blocks), with noise,
 * and a matrix whose first rows are tiny. Either refinement meets the test or the call falls
 * back and says so; never a wrong answer. */
static void test_rbt_hard(ps_context *ctx) {
    int n = 203, lda = 205;
    for (int kind = 0; kind < 2; kind++) {
        double *A0 = ps_test_random_array(PS_DOUBLE, lda, n);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double *a = &A0[i + (size_t)j * lda];
                if (kind == 0)
                    *a = (i + j == n - 1 ? 1.0 : 0.0) + 1e-3 * *a;
                else if (i < 40)
                    *a *= 1e-9;
            }
        set_factored(ctx, PS_LOWPREC_FLOAT, 30, 1, PS_REFINE_RBT);
        check_solve(ctx, A0, n, lda, 2, kind == 0 ? "rbt anti-identity" : "rbt tiny top rows");
        free(A0);
    }
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 1);
}

/* Each allocation of a GMRES-IR solve of a cond-1e8 system failing in turn: the call fails with an
 * out-of-memory status, the caller's arrays untouched and nothing leaked, except the widened
 * factors (refine.c), whose absence only moves the preconditioner to the low precision: that
 * call must still meet the test or fall back and say so. A backend with trsv_mixed solves with
 * the float factors themselves and makes no such allocation. */
static void gmres_alloc_failures(ps_context *ctx, int n, int lda) {
    int ldb = n, ldx = n + 1, optional = 0, injected = 0, iter = -999;
    double *A0 = NULL, *B = NULL, *X0 = ps_test_random_array(PS_DOUBLE, ldx, 1);
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    /* a system that takes the GMRES path. Classical refinement crawls to the test alone on
     * some of these systems (up to a third on an H200: test_gmres), and whether it does depends
     * on the matrix more than on the right-hand side (an H100 run found a matrix on which 4 of 4
     * right-hand sides did), so each try draws both afresh. */
    for (int tries = 0; tries < GMRES_TRIES; tries++) {
        free(A0), free(B);
        A0 = latms(n, lda, 1e8);
        B = ps_test_random_array(PS_DOUBLE, ldb, 1);
        double *A = ps_test_clone(PS_DOUBLE, A0, lda, n), *X = ps_test_clone(PS_DOUBLE, X0, ldx, 1);
        CHECK_STATUS(ps_dsgesv(ctx, n, 1, A, lda, ipiv, B, ldb, X, ldx, &iter), PS_SUCCESS);
        free(A), free(X);
        if (ps_context_refine_result(ctx).path == PS_REFINE_GMRES) break;
    }
    CHECK(ps_context_refine_result(ctx).path == PS_REFINE_GMRES,
          "no system of %d took the GMRES path (iter %d)", GMRES_TRIES, iter);
    for (int k = 1; k < 200; k++) {
        double *A = ps_test_clone(PS_DOUBLE, A0, lda, n);
        double *X = ps_test_clone(PS_DOUBLE, X0, ldx, 1);
        ps__context_fail_nth_alloc(ctx, k);
        ps_status st = ps_dsgesv(ctx, n, 1, A, lda, ipiv, B, ldb, X, ldx, &iter);
        int hook_left = ctx->fail_alloc_countdown;
        ps__context_fail_nth_alloc(ctx, 0);
        CHECK(ctx->live_buffers == 0 && ctx->live_host_blocks == 0,
              "allocation %d failing: %ld buffers, %ld blocks leaked", k, ctx->live_buffers,
              ctx->live_host_blocks);
        if (hook_left > 0) { /* the call made fewer than k allocations */
            CHECK(st == PS_SUCCESS, "no failure injected: %s", ps_context_last_error(ctx));
            free(A), free(X);
            break;
        }
        injected++;
        if (st == PS_SUCCESS) {
            optional++;
            double ratio = ps_check_solve_ratio(PS_DOUBLE, 'N', n, 1, A0, lda, X, ldx, B, ldb);
            CHECK(ratio < PS_TEST_THRESHOLD, "allocation %d failing, iter %d: residual ratio %.3g",
                  k, iter, ratio);
        } else {
            CHECK(st == PS_ERR_OUT_OF_MEMORY || st == PS_ERR_OUT_OF_HOST_MEMORY,
                  "allocation %d failing: %s", k, ps_status_string(st));
            CHECK(memcmp(X, X0, sizeof(double) * (size_t)ldx) == 0 &&
                      memcmp(A, A0, sizeof(double) * (size_t)lda * (size_t)n) == 0,
                  "allocation %d failing: the caller's arrays were written", k);
        }
        free(A), free(X);
    }
    ps__vec none = {NULL, 0, 1};
    int widens = ps__refine(&ctx->be)->trsv_mixed(&ctx->be, PS__LOWER, PS__UNIT, 0,
                                                  (ps__mat){NULL, 0, 1}, none) != PS_SUCCESS;
    /* the inverted diagonal blocks, where they are used, are made before anything is widened,
     * and without their memory the solve goes on by trsv_mixed or widened factors */
    int blocked = ps__trsv_blocked_order(ctx, n) > 0;
    /* inverted while the LU runs (ir_early_inverses), they come with a word of their own
     * for convert's overflow test, and without either the solve goes on as without them */
    int early = blocked && (ctx->tuning.ir_early_inverses >= 0 ? ctx->tuning.ir_early_inverses
                                                               : ctx->be.ops->lanes(&ctx->be) >= 2);
    CHECK(optional == (early ? 2 : blocked || widens) && injected > optional,
          "%d of %d failing allocations were survived (expected %s)", optional, injected,
          early     ? "the inverted diagonal blocks and their word"
          : blocked ? "only the inverted diagonal blocks"
          : widens  ? "only the widened factors"
                    : "none: the backend has trsv_mixed");
    free(A0), free(B), free(X0), free(ipiv);
}

static void test_gmres(ps_context *ctx) {
    int n = 200, lda = 203, iter = -1, tries = 0;
    double *A0 = NULL;
    ps_refine_result r = {0};
    /* On some random cond-1e8 matrices classical refinement crawls to the test by itself and
     * GMRES never starts: none of 60 on the CPU backend, but 2 of 60 on an H100 and 13 of 36 on
     * an H200, whose float LU rounds otherwise. Such a matrix must still be solved,
     * and a fresh one is drawn until GMRES-IR has been exercised: at most GMRES_TRIES, so that
     * even where an LU rounds otherwise again (blocks of 16 in gmres_early) and two matrices in
     * three crawl, all of them do in about one run in 10^7. */
    /* With a loose inner tolerance (--tuning ir_gmres_tol=1e-2) GMRES-IR may stall on a rare
     * matrix (one seed in about 1500 runs on the CPU backend) and fall back to the double LU: the
     * outer test still decides, and check_solve has checked the answer either way. */
    int loose = ctx->tuning.ir_gmres_tol >= 1e-3;
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 1);
    do {
        free(A0);
        A0 = latms(n, lda, 1e8);
        iter = check_solve(ctx, A0, n, lda, 2, "float cond 1e8 gmres");
        r = ps_context_refine_result(ctx);
        CHECK(iter >= 0 || (loose && r.path == PS_REFINE_FALLBACK),
              "cond 1e8 in float: iter %d path %s (expected the test met)", iter,
              ps_refine_path_name(r.path));
    } while (r.path == PS_REFINE_CLASSICAL && iter >= 0 && ++tries < GMRES_TRIES);
    CHECK((iter >= 0 && r.path == PS_REFINE_GMRES && r.gmres_iterations > 0) ||
              (loose && r.path == PS_REFINE_FALLBACK && r.gmres_iterations > 0),
          "cond 1e8 in float: iter %d path %s with %d GMRES steps after %d matrices (expected "
          "GMRES-IR to meet the test)",
          iter, ps_refine_path_name(r.path), r.gmres_iterations, tries + 1);
    gmres_alloc_failures(ctx, n, lda);
    /* classical refinement alone contracts by about kappa u per step, near 1 here: it may
     * crawl to the test in 20-odd steps or fall back, and must be right either way */
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 0);
    check_solve(ctx, A0, n, lda, 2, "float cond 1e8 classical only");
    set_options(ctx, PS_LOWPREC_FLOAT, 2, 0);
    iter = check_solve(ctx, A0, n, lda, 1, "float cond 1e8 max_iter 2");
    CHECK(iter == PS_REFINE_NOT_CONVERGED, "max_iter 2: iter %d, expected -31", iter);
    free(A0);
    /* kappa u = 600: classical refinement diverges, to LAPACK's iter -(ITERMAX + 1), or, when
     * the growing residual leaves float's range first, to its overflow code -2 */
    A0 = latms(n, lda, 1e10);
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 0);
    iter = check_solve(ctx, A0, n, lda, 1, "float cond 1e10 classical only");
    CHECK(iter == PS_REFINE_NOT_CONVERGED || iter == PS_REFINE_OVERFLOW,
          "classical only at cond 1e10 in float: iter %d, expected -31 or -2", iter);
    free(A0);
}

static void test_cond12(ps_context *ctx) {
    for (size_t p = 0; p < sizeof all_precisions / sizeof all_precisions[0]; p++) {
        if (!offers(all_precisions[p])) continue;
        set_options(ctx, all_precisions[p], 30, 1);
        int n = 150, lda = 151;
        double *A0 = latms(n, lda, 1e12);
        char what[64];
        snprintf(what, sizeof what, "%s cond 1e12", ps_lowprec_name(all_precisions[p]));
        check_solve(ctx, A0, n, lda, 1, what); /* meets the test or says it fell back */
        free(A0);
    }
}

static void test_special(ps_context *ctx) {
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 1);
    int n = 43, lda = 44; /* not a multiple of 8: the float LU factors diag(A, I) */
    /* beyond FLT_MAX: narrowing overflows, LAPACK's iter -2 */
    double *A0 = latms(n, lda, 10);
    for (int i = 0; i < n * lda; i++) A0[i] *= 1e300;
    CHECK(check_solve(ctx, A0, n, lda, 2, "overflow") == -2, "overflow: iter %d",
          ps_context_refine_result(ctx).iter);
    free(A0);
    /* a column below float's smallest subnormal: singular in float only, iter -3 */
    A0 = latms(n, lda, 10);
    for (int i = 0; i < n; i++) A0[i + (size_t)5 * lda] *= 1e-60;
    CHECK(check_solve(ctx, A0, n, lda, 1, "float-singular") == -3, "float-singular: iter %d",
          ps_context_refine_result(ctx).iter);
    /* exactly singular: column 5 zero */
    for (int i = 0; i < n; i++) A0[i + (size_t)5 * lda] = 0;
    double *B = ps_test_random_array(PS_DOUBLE, n, 1), *X = ps_test_random_array(PS_DOUBLE, n, 1);
    double *X0 = ps_test_clone(PS_DOUBLE, X, n, 1);
    int ipiv[43], iter = 0;
    CHECK_STATUS(ps_dsgesv(ctx, n, 1, A0, lda, ipiv, B, n, X, n, &iter), PS_ERR_SINGULAR);
    CHECK(iter == -3, "singular: iter %d", iter);
    CHECK(ps_context_last_info(ctx) >= 1 && ps_context_last_info(ctx) <= n, "singular info %d",
          ps_context_last_info(ctx));
    CHECK(memcmp(X, X0, sizeof(double) * n) == 0, "singular: X written");
    free(A0), free(B), free(X), free(X0);
    /* FP16X3 on matrices far outside FP16's range either way: refinement scales the float copy
     * to max |a| < 1, so both refine (unscaled, one would overflow FP16 and the other vanish).
     * Order 1100, so that the LU's trailing updates are large enough to take that path. */
    if (offers(PS_LOWPREC_FP16X3)) {
        set_options(ctx, PS_LOWPREC_FP16X3, 30, 1);
        for (int big = 0; big < 2; big++) {
            int m = 1100, ldm = m + 2;
            A0 = latms(m, ldm, 1e2);
            for (size_t i = 0; i < (size_t)ldm * m; i++) A0[i] *= big ? 1e20 : 1e-20;
            const char *what = big ? "fp16x3, |a| near 1e20" : "fp16x3, |a| near 1e-20";
            int it = check_solve(ctx, A0, m, ldm, 1, what);
            CHECK(it >= 0 && it <= 15, "%s: iter %d", what, it);
            free(A0);
        }
        set_options(ctx, PS_LOWPREC_FLOAT, 30, 1);
    }
    /* n = 0 and nrhs = 0 */
    iter = -5;
    CHECK_STATUS(ps_dsgesv(ctx, 0, 1, NULL, 1, NULL, NULL, 1, NULL, 1, &iter), PS_SUCCESS);
    CHECK(iter == 0 && ps_context_refine_result(ctx).path == PS_REFINE_NONE, "n=0: iter %d", iter);
    A0 = latms(n, lda, 10);
    double *A = ps_test_clone(PS_DOUBLE, A0, lda, n);
    iter = -5;
    CHECK_STATUS(ps_dsgesv(ctx, n, 0, A, lda, ipiv, NULL, n, NULL, n, &iter), PS_SUCCESS);
    CHECK(iter == 0, "nrhs=0: iter %d", iter);
    CHECK(memcmp(A, A0, sizeof(double) * (size_t)lda * n) == 0, "nrhs=0: A changed");
    for (int i = 0; i < n; i++) CHECK(ipiv[i] >= 1 && ipiv[i] <= n, "nrhs=0: ipiv[%d]", i);
    free(A0), free(A);
}

static void test_device_level(ps_context *ctx) {
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 1);
    int n = 65, nrhs = 2;
    double *A0 = latms(n, n, 1e3), *B0 = ps_test_random_array(PS_DOUBLE, n, nrhs);
    double *X = malloc(sizeof(double) * (size_t)n * nrhs), *Aback = malloc(sizeof(double) * n * n);
    ps_matrix *A = NULL, *B = NULL, *Xm = NULL, *F = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, n, n, n + 4, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, n, nrhs, n, &B), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, n, nrhs, n + 1, &Xm), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, PS_FLOAT, n, n, n, &F), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_upload(B, B0, n), PS_SUCCESS);
    int ipiv[65], iter = -9;
    CHECK_STATUS(ps_mat_dsgesv(ctx, A, ipiv, B, Xm, &iter), PS_SUCCESS);
    CHECK(iter >= 0, "device level: iter %d", iter);
    CHECK_STATUS(ps_matrix_download(Xm, X, n), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_download(A, Aback, n), PS_SUCCESS);
    CHECK(memcmp(A0, Aback, sizeof(double) * n * n) == 0, "device level: A changed");
    double ratio = ps_check_solve_ratio(PS_DOUBLE, 'N', n, nrhs, A0, n, X, n, B0, n);
    CHECK(ratio < PS_TEST_THRESHOLD, "device level residual ratio %.3g", ratio);
    CHECK_STATUS(ps_mat_dsgesv(ctx, A, ipiv, B, B, &iter), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_mat_dsgesv(ctx, F, ipiv, B, Xm, &iter), PS_ERR_DTYPE_MISMATCH);
    CHECK_STATUS(ps_mat_dsgesv(ctx, A, ipiv, B, Xm, NULL), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_mat_dsgesv(ctx, A, NULL, B, Xm, &iter), PS_ERR_INVALID_ARGUMENT);
    /* NaN in A: refused before any work */
    double nan = NAN;
    double *An = ps_test_clone(PS_DOUBLE, A0, n, n);
    An[7] = nan;
    CHECK_STATUS(ps_matrix_upload(A, An, n), PS_SUCCESS);
    CHECK_STATUS(ps_mat_dsgesv(ctx, A, ipiv, B, Xm, &iter), PS_ERR_NON_FINITE);
    ps_matrix_destroy(A), ps_matrix_destroy(B), ps_matrix_destroy(Xm), ps_matrix_destroy(F);
    free(A0), free(B0), free(X), free(Aback), free(An);
}

/* Creating a context fails, naming the variable whose value it refused. */
static void expect_env_refused(const char *variable) {
    ps_context_options co = ps_context_options_default();
    co.backend = ps_test_backend_kind();
    ps_context *c = NULL;
    CHECK_STATUS(ps_context_create(&c, &co), PS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ps_last_create_error(), variable) != NULL, "env error for %s: %s", variable,
          ps_last_create_error());
    ps_context_destroy(c);
}

static void test_errors(ps_context *ctx) {
    int n = 5, ipiv[5], iter = 7;
    double *A = latms(n, n, 10), *B = ps_test_random_array(PS_DOUBLE, n, 1);
    double *X = ps_test_random_array(PS_DOUBLE, n, 1);
    set_options(ctx, PS_LOWPREC_FLOAT, 30, 1);
    struct {
        ps_status got;
        int pos;
    } cases[] = {
        {ps_dsgesv(ctx, -1, 1, A, n, ipiv, B, n, X, n, &iter), 2},
        {ps_dsgesv(ctx, n, -1, A, n, ipiv, B, n, X, n, &iter), 3},
        {ps_dsgesv(ctx, n, 1, NULL, n, ipiv, B, n, X, n, &iter), 4},
        {ps_dsgesv(ctx, n, 1, A, n - 1, ipiv, B, n, X, n, &iter), 5},
        {ps_dsgesv(ctx, n, 1, A, n, NULL, B, n, X, n, &iter), 6},
        {ps_dsgesv(ctx, n, 1, A, n, ipiv, NULL, n, X, n, &iter), 7},
        {ps_dsgesv(ctx, n, 1, A, n, ipiv, B, n - 1, X, n, &iter), 8},
        {ps_dsgesv(ctx, n, 1, A, n, ipiv, B, n, NULL, n, &iter), 9},
        {ps_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n - 1, &iter), 10},
        {ps_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, NULL), 11},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK(cases[i].got == PS_ERR_INVALID_ARGUMENT, "case %zu: %s", i,
              ps_status_string(cases[i].got));
    }
    CHECK_STATUS(ps_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, NULL), PS_ERR_INVALID_ARGUMENT);
    CHECK(ps_context_last_info(ctx) == -11, "iter NULL: info %d", ps_context_last_info(ctx));
    CHECK_STATUS(ps_dsgesv(ctx, n, 1, A, n, ipiv, B, n, B, n, &iter), PS_ERR_INVALID_ARGUMENT);
    double saved = A[3];
    A[3] = INFINITY;
    CHECK_STATUS(ps_dsgesv(ctx, n, 1, A, n, ipiv, B, n, X, n, &iter), PS_ERR_NON_FINITE);
    A[3] = saved;

    /* options */
    ps_refine_options o = ps_refine_options_default();
    CHECK(o.precision == PS_LOWPREC_FLOAT && o.max_iter == 30 && o.gmres == 1 && o.restart == 60,
          "defaults");
    ps_refine_options bad = o;
    bad.precision = (ps_lowprec)9;
    CHECK_STATUS(ps_context_set_refine_options(ctx, &bad), PS_ERR_INVALID_ARGUMENT);
    bad = o, bad.max_iter = -1;
    CHECK_STATUS(ps_context_set_refine_options(ctx, &bad), PS_ERR_INVALID_ARGUMENT);
    bad = o, bad.gmres = 2;
    CHECK_STATUS(ps_context_set_refine_options(ctx, &bad), PS_ERR_INVALID_ARGUMENT);
    bad = o, bad.restart = 0;
    CHECK_STATUS(ps_context_set_refine_options(ctx, &bad), PS_ERR_INVALID_ARGUMENT);
    bad = o, bad.factorization = (ps_refine_factor)2;
    CHECK_STATUS(ps_context_set_refine_options(ctx, &bad), PS_ERR_INVALID_ARGUMENT);
    CHECK(o.factorization == PS_REFINE_PARTIAL_PIVOTING, "default factorization %d",
          (int)o.factorization);
    CHECK_STATUS(ps_context_set_refine_options(ctx, NULL), PS_ERR_INVALID_ARGUMENT);
    ps_refine_factor rf;
    CHECK_STATUS(ps_refine_factor_from_name("RBT", &rf), PS_SUCCESS);
    CHECK(rf == PS_REFINE_RBT && !strcmp(ps_refine_factor_name(rf), "rbt"), "rbt parsed as %d",
          (int)rf);
    CHECK_STATUS(ps_refine_factor_from_name("none", &rf), PS_ERR_INVALID_ARGUMENT);
    ps_lowprec p;
    CHECK_STATUS(ps_lowprec_from_name("BF16", &p), PS_SUCCESS);
    CHECK(p == PS_LOWPREC_BF16, "bf16 parsed as %d", (int)p);
    CHECK_STATUS(ps_lowprec_from_name("half", &p), PS_ERR_INVALID_ARGUMENT);
    CHECK_STATUS(ps_lowprec_from_name("tf32x3", &p), PS_SUCCESS);
    CHECK(p == PS_LOWPREC_TF32X3 && !strcmp(ps_lowprec_name(p), "tf32x3"), "tf32x3 parsed as %d",
          (int)p);
    CHECK_STATUS(ps_lowprec_from_name("FP16X3", &p), PS_SUCCESS);
    CHECK(p == PS_LOWPREC_FP16X3 && !strcmp(ps_lowprec_name(p), "fp16x3"), "fp16x3 parsed as %d",
          (int)p);

    /* the tensor-core precisions: CUDA offers them, the others refuse before touching anything */
    for (size_t k = 1; k < sizeof all_precisions / sizeof all_precisions[0]; k++) {
        set_options(ctx, all_precisions[k], 30, 1);
        double *Ac = ps_test_clone(PS_DOUBLE, A, n, n), *Xc = ps_test_clone(PS_DOUBLE, X, n, 1);
        ps_status st = ps_dsgesv(ctx, n, 1, Ac, n, ipiv, B, n, Xc, n, &iter);
        if (offers(all_precisions[k])) {
            CHECK(st == PS_SUCCESS, "%s: %s", ps_lowprec_name(all_precisions[k]),
                  ps_context_last_error(ctx));
        } else {
            CHECK(st == PS_ERR_NOT_SUPPORTED, "%s on %s: %s", ps_lowprec_name(all_precisions[k]),
                  ps_test_backend_name(), ps_status_string(st));
            CHECK(memcmp(Ac, A, sizeof(double) * n * n) == 0 &&
                      memcmp(Xc, X, sizeof(double) * n) == 0,
                  "refused %s but wrote", ps_lowprec_name(all_precisions[k]));
        }
        free(Ac), free(Xc);
    }

    /* the environment, read at context creation */
    setenv("PORTSOLVE_IR_PRECISION", "fp16", 1);
    setenv("PORTSOLVE_IR_GMRES", "0", 1);
    setenv("PORTSOLVE_IR_FACTOR", "rbt", 1);
    ps_context *c2 = ps_test_context(0);
    if (c2) {
        ps_refine_options e = ps_context_refine_options(c2);
        CHECK(e.precision == PS_LOWPREC_FP16 && e.gmres == 0 && e.factorization == PS_REFINE_RBT,
              "env: %s gmres %d %s", ps_lowprec_name(e.precision), e.gmres,
              ps_refine_factor_name(e.factorization));
        ps_context_destroy(c2);
    }
    setenv("PORTSOLVE_IR_FACTOR", "tournament", 1);
    expect_env_refused("PORTSOLVE_IR_FACTOR");
    unsetenv("PORTSOLVE_IR_FACTOR");
    setenv("PORTSOLVE_IR_PRECISION", "half", 1);
    expect_env_refused("PORTSOLVE_IR_PRECISION");
    unsetenv("PORTSOLVE_IR_PRECISION");
    unsetenv("PORTSOLVE_IR_GMRES");
    free(A), free(B), free(X);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    ps_context *ctx = ps_test_context(0);
    if (!ctx) return ps_test_finish("test_ir");
    const char *c = ps_test_case();
    if (!c || !strcmp(c, "solve")) test_solve(ctx);
    if (!c || !strcmp(c, "rbt")) test_rbt_hard(ctx);
    if (!c || !strcmp(c, "gmres")) test_gmres(ctx);
    if (!c || !strcmp(c, "cond12")) test_cond12(ctx);
    if (!c || !strcmp(c, "special")) test_special(ctx);
    if (!c || !strcmp(c, "device_level")) test_device_level(ctx);
    if (!c || !strcmp(c, "errors")) test_errors(ctx);
    int rc = ps_test_finish("test_ir");
    ps_context_destroy(ctx);
    return rc;
}
