/*
 * ps_dsposv: LAPACK's dsposv on every backend. A symmetric positive definite double system is
 * factored by Cholesky in float and the solution refined in double (x += (L L^T)^-1 (b - A x),
 * classical refinement as LAPACK, no GMRES); when float cannot serve (A or a residual beyond
 * float's range, A not positive definite in float, or no convergence in max_iter steps) it falls
 * back to the double Cholesky factorization, which then overwrites A, as in LAPACK.
 *
 * Only A's uplo triangle is read. Its infinity norm (for the stopping test) and the float range
 * test run on the host over the caller's triangle, so that the unread triangle can hold anything;
 * the residual A x is formed from the triangle with two triangular products.
 */
#include "base/check.h"
#include "chol/chol.h"
#include "lu/lu.h"
#include "refine/refine.h"
#include "base/staging.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define MAX_THREADS 32

typedef struct sp_refine {
    ps_context *ctx;
    ps__backend *be;
    const ps__backend_ops *ops;
    ps__uplo uplo;
    int n, nrhs;
    ps__mat a, b, x; /* double: A (its triangle), B, X (X contiguous) */
    ps__mat sa, sx;  /* float: A's factor, a right-hand side or correction */
    ps__mat r, y;    /* double, contiguous: residual, work */
    void *flag;      /* int32 device word: conversion overflow, factorization info */
    double cte;      /* LAPACK's test with a margin (ps__refine_tolerance) */
} sp_refine;

/* ||A||_inf of the symmetric matrix held in the uplo triangle of the host array, and whether an
 * entry of that triangle is beyond float's range (LAPACK's dlat2s test). Row sums are gathered
 * per thread and added up, so the columns can be shared out. */
static ps_status triangle_norm(ps_context *ctx, ps__uplo uplo, int n, const double *A, int lda,
                               double *anrm, int *out_of_float) {
    int threads = 1;
#ifdef _OPENMP
    threads = omp_get_max_threads();
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    if ((double)n * n < 1e6) threads = 1;
#endif
    double *sums = calloc((size_t)threads * (size_t)n, sizeof(double));
    if (!sums) return ps__fail(ctx, PS_ERR_OUT_OF_HOST_MEMORY, "ps_dsposv: no memory for A's norm");
    int big = 0;
#ifdef _OPENMP
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) reduction(| : big)
#endif
    for (int j = 0; j < n; j++) {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        double *s = sums + (size_t)t * (size_t)n, col = 0;
        const double *a = A + (size_t)j * (size_t)lda;
        int first = uplo == PS__LOWER ? j : 0, end = uplo == PS__LOWER ? n : j + 1;
        for (int i = first; i < end; i++) {
            double v = fabs(a[i]);
            if (v > FLT_MAX) big = 1;
            col += v;
            if (i != j) s[i] += v; /* the mirrored entry (j, i) of row i */
        }
        s[j] += col;
    }
    double norm = 0;
    for (int i = 0; i < n; i++) {
        double row = 0;
        for (int t = 0; t < threads; t++) row += sums[(size_t)t * (size_t)n + (size_t)i];
        if (row > norm || isnan(row)) norm = row;
    }
    free(sums);
    *anrm = norm;
    *out_of_float = big;
    return PS_SUCCESS;
}

/* dst (float) = src (double); *overflow: an entry did not fit (LAPACK's dlag2s test). */
static ps_status to_float(sp_refine *w, ps__mat src, ps__mat dst, int *overflow) {
    PS__TRY(ps__zero_info(w->ctx, w->flag));
    PS__TRY(w->ops->convert(w->be, PS__DOUBLE, PS__FLOAT, w->n, w->nrhs, 1.0, src, dst, w->flag));
    return ps__read_info(w->ctx, w->flag, overflow);
}

/* dst += alpha src, column by column (n x nrhs, both contiguous). */
static ps_status add_columns(sp_refine *w, double alpha, ps__mat src, ps__mat dst) {
    ps__scalar a = {.d = alpha};
    for (int j = 0; j < w->nrhs; j++)
        PS__TRY(w->ops->axpy(w->be, PS__DOUBLE, w->n, &a, ps__mat_col(src, 0, j),
                             ps__mat_col(dst, 0, j)));
    return PS_SUCCESS;
}

/* r = b - A x, A symmetric in its uplo triangle T = S + D (S strictly triangular):
 * A x = (S + D) x + (S^T + D) x - D x, two triangular products and a diagonal scaling, each
 * rounding relative to |A| |x| as a symmetric product does. */
static ps_status residual(sp_refine *w) {
    ps__scalar one = {.d = 1.0};
    PS__TRY(w->ops->copy2d(w->be, PS__DOUBLE, w->n, w->nrhs, w->b, w->r));
    for (int t = 0; t < 2; t++) {
        PS__TRY(w->ops->copy2d(w->be, PS__DOUBLE, w->n, w->nrhs, w->x, w->y));
        PS__TRY(w->ops->trmm(w->be, PS__DOUBLE, PS__LEFT, w->uplo, t ? PS__TRANS : PS__NOTRANS,
                             PS__NONUNIT, w->n, w->nrhs, &one, w->a, w->y));
        PS__TRY(add_columns(w, -1.0, w->y, w->r));
    }
    PS__TRY(w->ops->copy2d(w->be, PS__DOUBLE, w->n, w->nrhs, w->x, w->y));
    ps__vec diagonal = {w->a.buf, w->a.off, w->a.ld + 1};
    for (int j = 0; j < w->nrhs; j++)
        PS__TRY(w->ops->vmul(w->be, PS__DOUBLE, w->n, diagonal, ps__mat_col(w->y, 0, j)));
    return add_columns(w, 1.0, w->y, w->r);
}

/* Whether every column meets max|r_j| <= max|x_j| cte (ps__refine_tolerance); *worst: the largest
 * max|r_j| / max|x_j|. */
static ps_status converged(sp_refine *w, int *done, double *worst) {
    *done = 1;
    *worst = 0;
    for (int j = 0; j < w->nrhs; j++) {
        double rn, xn;
        PS__TRY(w->ops->norm_inf(w->be, PS__DOUBLE, w->n, 1, ps__mat_at(w->r, 0, j), &rn));
        PS__TRY(w->ops->norm_inf(w->be, PS__DOUBLE, w->n, 1, ps__mat_at(w->x, 0, j), &xn));
        if (!(rn <= xn * w->cte)) *done = 0; /* NaN fails */
        double ratio = rn == 0 ? 0 : rn / xn;
        if (!(ratio <= *worst)) *worst = ratio;
    }
    return PS_SUCCESS;
}

/* The float factorization and refinement: *code 0 and *iter the steps when the test was met,
 * else *code LAPACK's reason to fall back (-2, -3 or -31). */
static ps_status refine(sp_refine *w, int max_iter, int a_out_of_float, int *code, int *iter,
                        double *worst) {
    int overflow, info, done;
    *code = 0;
    if (!(w->cte > 0)) return *code = PS_REFINE_NOT_CONVERGED, PS_SUCCESS; /* n <= 4 */
    PS__TRY(to_float(w, w->b, w->sx, &overflow));
    if (overflow || a_out_of_float) return *code = PS_REFINE_OVERFLOW, PS_SUCCESS;
    /* the whole square is converted; what the unread triangle turns into is never read */
    PS__TRY(w->ops->convert(w->be, PS__DOUBLE, PS__FLOAT, w->n, w->n, 1.0, w->a, w->sa, w->flag));
    PS__TRY(ps__potrf(w->ctx, PS__FLOAT, w->uplo, w->n, w->sa, w->flag));
    PS__TRY(ps__read_info(w->ctx, w->flag, &info));
    if (info) return *code = PS_REFINE_LOW_SINGULAR, PS_SUCCESS;
    PS__TRY(ps__potrs(w->ctx, PS__FLOAT, w->uplo, w->n, w->nrhs, w->sa, w->sx));
    PS__TRY(
        w->ops->convert(w->be, PS__FLOAT, PS__DOUBLE, w->n, w->nrhs, 1.0, w->sx, w->x, w->flag));
    PS__TRY(residual(w));
    PS__TRY(converged(w, &done, worst));
    for (*iter = 0; !done; ++*iter) {
        if (*iter == max_iter) return *code = PS_REFINE_NOT_CONVERGED, PS_SUCCESS;
        PS__TRY(to_float(w, w->r, w->sx, &overflow));
        if (overflow) return *code = PS_REFINE_OVERFLOW, PS_SUCCESS;
        PS__TRY(ps__potrs(w->ctx, PS__FLOAT, w->uplo, w->n, w->nrhs, w->sa, w->sx));
        PS__TRY(w->ops->convert(w->be, PS__FLOAT, PS__DOUBLE, w->n, w->nrhs, 1.0, w->sx, w->y,
                                w->flag));
        PS__TRY(add_columns(w, 1.0, w->y, w->x));
        PS__TRY(residual(w));
        PS__TRY(converged(w, &done, worst));
    }
    return PS_SUCCESS;
}

/* LAPACK's fallback: A's double Cholesky factor, X from it. *info > 0: not positive definite. */
static ps_status fall_back(sp_refine *w, int *info) {
    PS__TRY(ps__potrf(w->ctx, PS__DOUBLE, w->uplo, w->n, w->a, w->flag));
    PS__TRY(ps__read_info(w->ctx, w->flag, info));
    if (*info) return PS_SUCCESS;
    PS__TRY(w->ops->copy2d(w->be, PS__DOUBLE, w->n, w->nrhs, w->b, w->x));
    return ps__potrs(w->ctx, PS__DOUBLE, w->uplo, w->n, w->nrhs, w->a, w->x);
}

/* Stages everything, refines or falls back, and writes back: X on success, A when it fell back
 * (its factor, also the partial one when A is not positive definite). */
static ps_status solve(ps__scratch *s, sp_refine *w, double *A, int lda, const double *B, int ldb,
                       double *X, int ldx, int *iter) {
    ps_context *ctx = w->ctx;
    static const char fn[] = "ps_dsposv";
    ps__finite_check check_a = {fn, "A", 5, (int)w->uplo}, check_b = {fn, "B", 7, PS__SHAPE_ALL};
    ps__staged a, b, x;
    PS__TRY(ps__stage_in(s, PS__DOUBLE, w->n, w->n, A, lda, 1, &check_a, &a));
    PS__TRY(ps__stage_in(s, PS__DOUBLE, w->n, w->nrhs, B, ldb, 1, &check_b, &b));
    PS__TRY(ps__stage_in(s, PS__DOUBLE, w->n, w->nrhs, X, ldx, 0, NULL, &x));
    double anrm = 0;
    int a_out_of_float = 0;
    PS__TRY(triangle_norm(ctx, w->uplo, w->n, A, lda, &anrm, &a_out_of_float));
    w->cte = ps__refine_tolerance(anrm, w->n);
    w->a = a.dev;
    w->b = b.dev;
    w->x = x.dev;
    PS__TRY(ps__scratch_dev(s, sizeof(int32_t), &w->flag));
    PS__TRY(ps__scratch_matrix(s, PS__FLOAT, w->n, w->n, &w->sa));
    PS__TRY(ps__scratch_matrix(s, PS__FLOAT, w->n, w->nrhs, &w->sx));
    PS__TRY(ps__scratch_matrix(s, PS__DOUBLE, w->n, w->nrhs, &w->r));
    PS__TRY(ps__scratch_matrix(s, PS__DOUBLE, w->n, w->nrhs, &w->y));

    ps_refine_result *res = &ctx->refine_result;
    int code, steps = 0, info = 0;
    double worst = NAN;
    PS__TRY(refine(w, ps__refine_options(ctx).max_iter, a_out_of_float, &code, &steps, &worst));
    if (code == 0) {
        res->path = PS_REFINE_CLASSICAL;
        res->iter = res->classical_steps = steps;
        res->backward_error = anrm > 0 ? worst / anrm : 0;
    } else {
        res->path = PS_REFINE_FALLBACK;
        res->iter = code;
        res->classical_steps = steps;
        res->backward_error = NAN;
        PS__TRY(fall_back(w, &info));
        /* not positive definite: the leading block's factor alone, as dposv's (chol_api.c) */
        int done = info > 0 ? info - 1 : w->n;
        PS__TRY(ps__stage_out(ctx, PS__DOUBLE, done, done, &a, A, lda));
        if (info) {
            ctx->last_info = info;
            *iter = code;
            return ps__fail(ctx, PS_ERR_NOT_SPD,
                            "%s: the leading minor of order %d is not positive definite (info=%d; "
                            "the float factorization had failed first, iter=%d)",
                            fn, info, info, code);
        }
    }
    *iter = res->iter;
    PS__TRY(ps__check_solution(ctx, PS__DOUBLE, w->n, w->nrhs, w->x, fn));
    return ps__stage_out(ctx, PS__DOUBLE, w->n, w->nrhs, &x, X, ldx);
}

ps_status ps_dsposv(ps_context *ctx, char uplo, int n, int nrhs, double *A, int lda,
                    const double *B, int ldb, double *X, int ldx, int *iter) {
    static const char fn[] = "ps_dsposv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    memset(&ctx->refine_result, 0, sizeof ctx->refine_result);
    ps__uplo u;
    PS__TRY(ps__parse_uplo(ctx, uplo, &u, fn, 2));
    if (n < 0) return ps__bad_arg(ctx, 3, "%s: n=%d is negative", fn, n);
    if (nrhs < 0) return ps__bad_arg(ctx, 4, "%s: nrhs=%d is negative", fn, nrhs);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 5));
    PS__TRY(ps__check_array(ctx, fn, 'B', B, n > 0 && nrhs > 0, ldb, 'n', n, 7));
    PS__TRY(ps__check_array(ctx, fn, 'X', X, n > 0 && nrhs > 0, ldx, 'n', n, 9));
    if (!iter) return ps__bad_arg(ctx, 11, "%s: iter is NULL", fn);
    PS__TRY(ps__check_separate(ctx, fn, A, 'A', lda, n, B, 'B', ldb, nrhs, n, sizeof(double), 7));
    PS__TRY(ps__check_separate(ctx, fn, A, 'A', lda, n, X, 'X', ldx, nrhs, n, sizeof(double), 9));
    PS__TRY(
        ps__check_separate(ctx, fn, B, 'B', ldb, nrhs, X, 'X', ldx, nrhs, n, sizeof(double), 9));
    *iter = 0;
    ctx->refine_result.precision = PS_LOWPREC_FLOAT;
    PS__TRY(ps__check_dtype_supported(ctx, PS__DOUBLE, fn));
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, PS__DOUBLE, 1.5 * n * n + 3.0 * n * nrhs));

    sp_refine w;
    memset(&w, 0, sizeof w);
    w.ctx = ctx;
    w.be = &ctx->be;
    w.ops = ctx->be.ops;
    w.uplo = u;
    w.n = n;
    w.nrhs = nrhs;
    ps__scratch s = ps__scratch_begin(ctx);
    ps_status st = solve(&s, &w, A, lda, B, ldb, X, ldx, iter);
    ps__scratch_end(&s);
    return st;
}
