/*
 * Mixed-precision refinement at the public levels: the options and the last result, ps_mat_dsgesv
 * on device matrices and the host driver ps_dsgesv. The host driver works on A in place where the
 * backend can (A changes only when refinement falls back, as in LAPACK) and on a private copy of X,
 * which reaches the caller only when the call succeeds.
 */
#include "base/check.h"
#include "base/matrix.h"
#include "refine/refine.h"
#include "base/staging.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PS__REFINE_MAX_ITER    10000
#define PS__REFINE_MAX_RESTART 1000

/* ---- options and names ---- */

static const ps__enum_name lowprec_names[] = {
    {"float", PS_LOWPREC_FLOAT}, {"tf32", PS_LOWPREC_TF32},     {"fp16", PS_LOWPREC_FP16},
    {"bf16", PS_LOWPREC_BF16},   {"tf32x3", PS_LOWPREC_TF32X3}, {"fp16x3", PS_LOWPREC_FP16X3}};
static const ps__enum_name factor_names[] = {{"partial", PS_REFINE_PARTIAL_PIVOTING},
                                             {"rbt", PS_REFINE_RBT}};
static const ps__enum_name path_names[] = {{"none", PS_REFINE_NONE},
                                           {"classical", PS_REFINE_CLASSICAL},
                                           {"gmres", PS_REFINE_GMRES},
                                           {"fallback", PS_REFINE_FALLBACK}};

const char *ps_lowprec_name(ps_lowprec p) {
    return ps__enum_to_name(lowprec_names, PS__COUNT(lowprec_names), (int)p, "unknown");
}

ps_status ps_lowprec_from_name(const char *name, ps_lowprec *p) {
    int v;
    if (!p || ps__enum_from_name(lowprec_names, PS__COUNT(lowprec_names), name, &v))
        return PS_ERR_INVALID_ARGUMENT;
    *p = (ps_lowprec)v;
    return PS_SUCCESS;
}

const char *ps_refine_factor_name(ps_refine_factor f) {
    return ps__enum_to_name(factor_names, PS__COUNT(factor_names), (int)f, "unknown");
}

ps_status ps_refine_factor_from_name(const char *name, ps_refine_factor *f) {
    int v;
    if (!f || ps__enum_from_name(factor_names, PS__COUNT(factor_names), name, &v))
        return PS_ERR_INVALID_ARGUMENT;
    *f = (ps_refine_factor)v;
    return PS_SUCCESS;
}

const char *ps_refine_path_name(ps_refine_path p) {
    return ps__enum_to_name(path_names, PS__COUNT(path_names), (int)p, "unknown");
}

ps_refine_options ps_refine_options_default(void) {
    ps_refine_options o = {PS_LOWPREC_FLOAT, 30, 1, 60, PS_REFINE_PARTIAL_PIVOTING};
    return o;
}

ps_refine_options ps__refine_options(const ps_context *ctx) {
    if (ctx->refine_set) return ctx->refine;
    ps_refine_options o = ps_refine_options_default();
    o.precision = (ps_lowprec)ctx->tuning.ir_precision;
    o.factorization = (ps_refine_factor)ctx->tuning.ir_factor;
    o.gmres = ctx->tuning.ir_gmres;
    return o;
}

ps_refine_options ps_context_refine_options(const ps_context *ctx) {
    return ctx ? ps__refine_options(ctx) : ps_refine_options_default();
}

ps_refine_result ps_context_refine_result(const ps_context *ctx) {
    ps_refine_result r = {
        PS_REFINE_NONE, PS_LOWPREC_FLOAT, PS_REFINE_PARTIAL_PIVOTING, 0, 0, 0, 0.0};
    return ctx ? ctx->refine_result : r;
}

ps_status ps_context_set_refine_options(ps_context *ctx, const ps_refine_options *opts) {
    static const char fn[] = "ps_context_set_refine_options";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    if (!opts) return ps__bad_arg(ctx, 2, "%s: opts is NULL", fn);
    if (!strcmp(ps_lowprec_name(opts->precision), "unknown"))
        return ps__bad_arg(ctx, 2, "%s: precision=%d is not a ps_lowprec", fn,
                           (int)opts->precision);
    if (opts->max_iter < 0 || opts->max_iter > PS__REFINE_MAX_ITER)
        return ps__bad_arg(ctx, 2, "%s: max_iter=%d is not in 0..%d", fn, opts->max_iter,
                           PS__REFINE_MAX_ITER);
    if (opts->gmres != 0 && opts->gmres != 1)
        return ps__bad_arg(ctx, 2, "%s: gmres=%d is not 0 or 1", fn, opts->gmres);
    if (opts->restart < 1 || opts->restart > PS__REFINE_MAX_RESTART)
        return ps__bad_arg(ctx, 2, "%s: restart=%d is not in 1..%d", fn, opts->restart,
                           PS__REFINE_MAX_RESTART);
    if (!strcmp(ps_refine_factor_name(opts->factorization), "unknown"))
        return ps__bad_arg(ctx, 2, "%s: factorization=%d is not a ps_refine_factor", fn,
                           (int)opts->factorization);
    ctx->refine = *opts;
    ctx->refine_set = 1;
    return PS_SUCCESS;
}

/* ---- the solve, shared by both levels ---- */

/* Runs ps__dsgesv with device pivots, records the result, returns pivots and iter. */
static ps_status run(ps__scratch *s, const char *fn, int n, int nrhs, ps__mat a, int *ipiv,
                     ps__mat b, ps__mat x, int *iter) {
    ps_context *ctx = s->ctx;
    void *dev_ipiv;
    ps_refine_options o = ps__refine_options(ctx);
    ps_status st = ps__scratch_dev(s, (size_t)n * sizeof(int32_t), &dev_ipiv);
    if (!st) st = ps__dsgesv(ctx, fn, n, nrhs, a, dev_ipiv, b, x, &o, &ctx->refine_result);
    if (st == PS_SUCCESS || st == PS_ERR_SINGULAR) {
        *iter = ctx->refine_result.iter;
        ps_status pst = ps__download_pivots(ctx, n, dev_ipiv, ipiv);
        if (pst) st = pst;
    }
    return st;
}

ps_status ps_mat_dsgesv(ps_context *ctx, ps_matrix *A, int *ipiv, const ps_matrix *B, ps_matrix *X,
                        int *iter) {
    static const char fn[] = "ps_mat_dsgesv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    memset(&ctx->refine_result, 0, sizeof ctx->refine_result);
    PS__TRY(ps__check_square_matrix(ctx, A, 2, fn));
    if (A->dt != PS__DOUBLE) {
        ps__bad_arg(ctx, 2, "%s: A is float; dsgesv solves double systems", fn);
        return PS_ERR_DTYPE_MISMATCH;
    }
    int n = A->rows;
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 3, "%s: ipiv is NULL", fn);
    PS__TRY(ps__check_rhs_matrix(ctx, A, B, 4, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, A, X, 5, fn));
    if (X->cols != B->cols)
        return ps__bad_arg(ctx, 5, "%s: X has %d columns but B has %d", fn, X->cols, B->cols);
    if (X->buf == B->buf && X->off == B->off && n > 0 && B->cols > 0)
        return ps__bad_arg(ctx, 5, "%s: X is B; they must not overlap", fn);
    if (!iter) return ps__bad_arg(ctx, 6, "%s: iter is NULL", fn);
    *iter = 0;
    ctx->refine_result.precision = ps__refine_options(ctx).precision;
    ctx->refine_result.factorization = ps__refine_options(ctx).factorization;
    if (n == 0) return PS_SUCCESS;
    ps__scratch s = ps__scratch_begin(ctx);
    ps_status st = run(&s, fn, n, B->cols, ps__matrix_view(A), ipiv, ps__matrix_view(B),
                       ps__matrix_view(X), iter);
    ps__scratch_end(&s);
    return st;
}

ps_status ps_dsgesv(ps_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv,
                    const double *B, int ldb, double *X, int ldx, int *iter) {
    static const char fn[] = "ps_dsgesv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    memset(&ctx->refine_result, 0, sizeof ctx->refine_result);
    if (n < 0) return ps__bad_arg(ctx, 2, "%s: n=%d is negative", fn, n);
    if (nrhs < 0) return ps__bad_arg(ctx, 3, "%s: nrhs=%d is negative", fn, nrhs);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 4));
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 6, "%s: ipiv is NULL", fn);
    PS__TRY(ps__check_array(ctx, fn, 'B', B, n > 0 && nrhs > 0, ldb, 'n', n, 7));
    PS__TRY(ps__check_array(ctx, fn, 'X', X, n > 0 && nrhs > 0, ldx, 'n', n, 9));
    if (!iter) return ps__bad_arg(ctx, 11, "%s: iter is NULL", fn);
    PS__TRY(ps__check_separate(ctx, fn, A, 'A', lda, n, B, 'B', ldb, nrhs, n, sizeof(double), 7));
    PS__TRY(ps__check_separate(ctx, fn, A, 'A', lda, n, X, 'X', ldx, nrhs, n, sizeof(double), 9));
    PS__TRY(
        ps__check_separate(ctx, fn, B, 'B', ldb, nrhs, X, 'X', ldx, nrhs, n, sizeof(double), 9));
    *iter = 0;
    ctx->refine_result.precision = ps__refine_options(ctx).precision;
    ctx->refine_result.factorization = ps__refine_options(ctx).factorization;
    PS__TRY(ps__check_dtype_supported(ctx, PS__DOUBLE, fn));
    if (n == 0) return PS_SUCCESS;

    /* A in double and in float, B, X and a residual */
    PS__TRY(ps__workspace_fits(ctx, fn, PS__DOUBLE, 1.5 * n * n + 3.0 * n * nrhs));
    ps__finite_check check_a = {fn, "A", 4, PS__SHAPE_ALL}, check_b = {fn, "B", 7, PS__SHAPE_ALL};
    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b, x;
    ps_status st = ps__stage_in(&s, PS__DOUBLE, n, n, A, lda, 1, &check_a, &a);
    if (!st) st = ps__stage_in(&s, PS__DOUBLE, n, nrhs, B, ldb, 1, &check_b, &b);
    /* X is written during refinement: a private copy keeps the caller's X on failure. */
    if (!st) st = ps__stage_in(&s, PS__DOUBLE, n, nrhs, X, ldx, 0, NULL, &x);
    int tmp_iter = 0;
    if (!st) st = run(&s, fn, n, nrhs, a.dev, ipiv, b.dev, x.dev, &tmp_iter);
    if (!st) st = ps__check_solution(ctx, PS__DOUBLE, n, nrhs, x.dev, fn);
    /* A changed only when it fell back (its double factors, returned as dgesv does, also when
     * the solution is not finite, so that getrs with them gives LAPACK's answer). */
    int fell_back = ctx->refine_result.path == PS_REFINE_FALLBACK;
    int factored = st == PS_SUCCESS || st == PS_ERR_SINGULAR || st == PS_ERR_RESULT_NOT_FINITE;
    if (factored && fell_back) {
        ps_status ost = ps__stage_out(ctx, PS__DOUBLE, n, n, &a, A, lda);
        if (ost) st = ost;
    }
    if (st == PS_SUCCESS) st = ps__stage_out(ctx, PS__DOUBLE, n, nrhs, &x, X, ldx);
    if (st == PS_SUCCESS || st == PS_ERR_SINGULAR || st == PS_ERR_RESULT_NOT_FINITE)
        *iter = tmp_iter;
    ps__scratch_end(&s);
    return st;
}
