/*
 * WZ on device matrices (ps_mat_wztrf/wztrs/wzsv), the host drivers ps_?wztrf/wztrs/wzsv and
 * the WZ options. Every variant factors in a workspace of order n, so a breakdown of the
 * unpivoted algorithm leaves the caller's matrix as it was; the solve runs in step order
 * (core/wz/wz.c), which the blocked form's workspace already is.
 */
#include "base/check.h"
#include "base/matrix.h"
#include "base/staging.h"
#include "wz/wz.h"
#include "wz/wz_kernels.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ---- */

static const ps__enum_name variant_names[] = {
    {"blocked", PS_WZ_BLOCKED}, {"vector", PS_WZ_VECTOR}, {"vector-host", PS_WZ_VECTOR_HOST}};

const char *ps_wz_variant_name(ps_wz_variant v) {
    return ps__enum_to_name(variant_names, PS__COUNT(variant_names), (int)v, "unknown");
}

ps_status ps_wz_variant_from_name(const char *name, ps_wz_variant *v) {
    int value;
    if (!v || ps__enum_from_name(variant_names, PS__COUNT(variant_names), name, &value))
        return PS_ERR_INVALID_ARGUMENT;
    *v = (ps_wz_variant)value;
    return PS_SUCCESS;
}

ps_wz_options ps_context_wz_options(const ps_context *ctx) {
    ps_wz_options o = {PS_WZ_BLOCKED, 1, 0};
    if (ctx) {
        o.variant = (ps_wz_variant)ctx->tuning.wz_variant;
        o.pivoting = ctx->tuning.wz_pivoting;
        o.block_size = ctx->tuning.wz_nb;
    }
    return o;
}

ps_status ps_context_set_wz_options(ps_context *ctx, const ps_wz_options *opts) {
    static const char fn[] = "ps_context_set_wz_options";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    if (!opts) return ps__bad_arg(ctx, 2, "%s: opts is NULL", fn);
    if (opts->variant != PS_WZ_BLOCKED && opts->variant != PS_WZ_VECTOR &&
        opts->variant != PS_WZ_VECTOR_HOST)
        return ps__bad_arg(ctx, 2, "%s: variant=%d is not a ps_wz_variant", fn, (int)opts->variant);
    if (opts->pivoting != 0 && opts->pivoting != 1)
        return ps__bad_arg(ctx, 2, "%s: pivoting=%d is neither 0 nor 1", fn, opts->pivoting);
    if (opts->block_size < 0 || opts->block_size > 4096 || opts->block_size % 2)
        return ps__bad_arg(ctx, 2, "%s: block_size=%d is not 0 (automatic) or an even 2..4096", fn,
                           opts->block_size);
    ctx->tuning.wz_variant = opts->variant;
    ctx->tuning.wz_pivoting = opts->pivoting;
    ctx->tuning.wz_nb = opts->block_size;
    return PS_SUCCESS;
}

/* ---- pivots: natural (public, 1-based) and step order (device, 0-based) ---- */

/* The public convention from the step-order device pivots (downloaded into ipiv); tmp holds n. */
static void pivots_to_natural(int n, int *ipiv, int32_t *tmp) {
    for (int t = 0; t < n; t++) tmp[t] = ipiv[t];
    for (int t = 0; t < n; t++) ipiv[ps__wz_nat(n, t)] = ps__wz_nat(n, tmp[t]) + 1;
}

/* Checks public pivots and uploads them in step order (steps holds n). Step k may swap row k
 * with rows k..n-k and then row n+1-k with rows k+1..n+1-k (1-based), in that order. */
static ps_status upload_step_pivots(ps_context *ctx, int n, const int *ipiv, void *dev_ipiv,
                                    int32_t *steps, const char *fn, int pos) {
    for (int t = 0; t < n; t++) {
        int row = ps__wz_nat(n, t), partner = ipiv[row] - 1;
        int tp = partner >= 0 && partner < n ? ps__wz_pos(n, partner) : -1;
        if (tp < t)
            return ps__bad_arg(ctx, pos,
                               "%s: ipiv[%d]=%d is not a row WZ step %d can swap with row %d", fn,
                               row, ipiv[row], t / 2 + 1, row + 1);
        steps[t] = tp;
    }
    ps__mat v = {dev_ipiv, 0, n};
    return ctx->be.ops->upload(&ctx->be, PS__INT32, n, 1, steps, n, v);
}

/* ---- the factor and solve pipeline, shared by both levels ---- */

typedef struct wz_work {
    ps__mat w;          /* n x n: the factors in step order (blocked form) or natural order */
    ps__vec zsub, work; /* n/2 corner entries; n elements for the host-driven corner step */
    void *ipiv, *info;  /* device int32 */
    int32_t *order;     /* host: n pivots between the step order and the natural one */
    ps__mat rows;       /* n x nrhs: the right-hand sides in step order */
    int steps;          /* w and ipiv are in step order */
} wz_work;

/* Everything a call needs, allocated before any work: a failure leaves the caller's data. */
static ps_status wz_alloc(ps__scratch *s, ps__dtype dt, int n, int nrhs, wz_work *ws) {
    size_t es = ps__dtype_size(dt), nn = (size_t)n * (size_t)n;
    void *w, *vecs;
    PS__TRY(ps__scratch_dev(s, nn * es, &w));
    PS__TRY(ps__scratch_dev(s, ((size_t)n / 2 + 1 + (size_t)n) * es, &vecs));
    PS__TRY(ps__scratch_dev(s, (size_t)n * sizeof(int32_t), &ws->ipiv));
    PS__TRY(ps__scratch_dev(s, sizeof(int32_t), &ws->info));
    PS__TRY(ps__scratch_host(s, (size_t)(n > 0 ? n : 1) * sizeof *ws->order, (void **)&ws->order));
    void *rows = NULL;
    if (nrhs > 0) PS__TRY(ps__scratch_dev(s, (size_t)n * (size_t)nrhs * es, &rows));
    ws->rows = (ps__mat){rows, 0, n > 0 ? n : 1};
    ws->w = (ps__mat){w, 0, n > 0 ? n : 1};
    ws->zsub = (ps__vec){vecs, 0, 1};
    ws->work = (ps__vec){vecs, (size_t)n / 2 + 1, 1};
    ws->steps = 0;
    return PS_SUCCESS;
}

/* Whether a nonzero info is a breakdown (nothing is written back) or a singular matrix. */
static int breaks_down(const ps_context *ctx, int info) {
    return info > 0 && !ctx->tuning.wz_pivoting;
}

static ps_status wz_failure(ps_context *ctx, const char *fn, int n, int info) {
    ctx->last_info = info;
    int k = info, k2 = n + 1 - info;
    if (!ctx->tuning.wz_pivoting)
        return ps__fail(ctx, PS_ERR_WZ_BREAKDOWN,
                        "%s: the corner determinant of step %d (rows and columns %d and %d) is "
                        "zero or below the smallest normal number, so WZ without pivoting breaks "
                        "down; pivoting (the default) avoids this for every nonsingular matrix "
                        "(info=%d)",
                        fn, k, k, k2, info);
    if (k == k2)
        return ps__fail(ctx, PS_ERR_SINGULAR,
                        "%s: the middle pivot Z(%d,%d) is exactly zero, so the matrix is singular "
                        "(info=%d)",
                        fn, k, k, info);
    return ps__fail(ctx, PS_ERR_SINGULAR,
                    "%s: every corner determinant of step %d (rows and columns %d and %d) is zero, "
                    "so the matrix is singular (info=%d)",
                    fn, k, k, k2, info);
}

/*
 * Factors the natural-layout n x n view a in ws. Unless the algorithm broke down, writes the
 * factors back into a and the public pivots into ipiv. *info: the failed step or 0.
 */
static ps_status wz_factor(ps__scratch *s, ps__dtype dt, int n, ps__mat a, wz_work *ws, int *ipiv,
                           int *info) {
    ps_context *ctx = s->ctx;
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    int pivoting = ctx->tuning.wz_pivoting;
    *info = 0;
    if (ctx->tuning.wz_variant == PS_WZ_BLOCKED) {
        ws->steps = 1;
        ps__vec plain = {NULL, 0, 1}; /* A itself: no corner entries to set aside */
        PS__TRY(ps__wz(be)->wz_reorder(be, dt, n, n, 1, 1, a, ws->w, plain));
        PS__TRY(ps__wztrf_steps(ctx, dt, n, ws->w, ws->zsub, ws->ipiv, ws->info, pivoting));
        PS__TRY(ps__read_info(ctx, ws->info, info));
        if (breaks_down(ctx, *info)) return PS_SUCCESS;
        PS__TRY(ps__wz(be)->wz_reorder(be, dt, n, n, 1, 0, ws->w, a, ws->zsub));
        PS__TRY(ps__download_pivots(ctx, n, ws->ipiv, ipiv));
        for (int i = 0; i < n; i++) ipiv[i] -= 1;
        pivots_to_natural(n, ipiv, ws->order);
        return PS_SUCCESS;
    }
    ws->steps = 0;
    PS__TRY(ops->copy2d(be, dt, n, n, a, ws->w));
    PS__TRY(ps__wztrf_vector(ctx, dt, n, ws->w, ws->work, ws->ipiv, ws->info, pivoting,
                             ctx->tuning.wz_variant == PS_WZ_VECTOR_HOST));
    PS__TRY(ps__read_info(ctx, ws->info, info));
    if (breaks_down(ctx, *info)) return PS_SUCCESS;
    PS__TRY(ops->copy2d(be, dt, n, n, ws->w, a));
    return ps__download_pivots(ctx, n, ws->ipiv, ipiv);
}

/*
 * Solves with the factors in a (natural layout) and the public pivots, or, when ws->steps, with
 * the step-order factors and pivots ws already holds; b (n x nrhs) is overwritten by X.
 */
static ps_status wz_solve(ps__scratch *s, ps__dtype dt, int n, int nrhs, ps__mat a, const int *ipiv,
                          wz_work *ws, ps__mat b, const char *fn, int ipiv_pos) {
    ps_context *ctx = s->ctx;
    ps__backend *be = &ctx->be;
    if (!ws->steps) {
        PS__TRY(upload_step_pivots(ctx, n, ipiv, ws->ipiv, ws->order, fn, ipiv_pos));
        PS__TRY(ps__wz(be)->wz_reorder(be, dt, n, n, 1, 1, a, ws->w, ws->zsub));
        ws->steps = 1;
    }
    ps__mat bs = ws->rows;
    PS__TRY(ps__wz(be)->wz_reorder(be, dt, n, nrhs, 0, 1, b, bs, ws->zsub));
    PS__TRY(ps__wztrs_steps(ctx, dt, n, nrhs, ws->w, ws->zsub, ws->ipiv, bs));
    return ps__wz(be)->wz_reorder(be, dt, n, nrhs, 0, 0, bs, b, ws->zsub);
}

/* ---- device matrices ---- */

/* wztrf (B NULL) or wzsv on device matrices. */
static ps_status mat_factor_solve(ps_context *ctx, const char *fn, ps_matrix *A, int *ipiv,
                                  ps_matrix *B) {
    int n = A->rows, info = 0;
    if (n == 0) return PS_SUCCESS;
    ps__scratch s = ps__scratch_begin(ctx);
    wz_work ws;
    ps_status st = wz_alloc(&s, A->dt, n, B ? B->cols : 0, &ws);
    if (!st) st = wz_factor(&s, A->dt, n, ps__matrix_view(A), &ws, ipiv, &info);
    if (!st && info == 0 && B && B->cols > 0)
        st = wz_solve(&s, A->dt, n, B->cols, ps__matrix_view(A), ipiv, &ws, ps__matrix_view(B), fn,
                      3);
    ps__scratch_end(&s);
    if (!st && info > 0) st = wz_failure(ctx, fn, n, info);
    return st;
}

ps_status ps_mat_wztrf(ps_context *ctx, ps_matrix *A, int *ipiv) {
    static const char fn[] = "ps_mat_wztrf";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_square_matrix(ctx, A, 2, fn));
    if (!ipiv && A->rows > 0) return ps__bad_arg(ctx, 3, "%s: ipiv is NULL", fn);
    return mat_factor_solve(ctx, fn, A, ipiv, NULL);
}

ps_status ps_mat_wztrs(ps_context *ctx, const ps_matrix *WZ, const int *ipiv, ps_matrix *B) {
    static const char fn[] = "ps_mat_wztrs";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_square_matrix(ctx, WZ, 2, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, WZ, B, 4, fn));
    int n = WZ->rows;
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 3, "%s: ipiv is NULL", fn);
    if (n == 0 || B->cols == 0) return PS_SUCCESS;
    ps__scratch s = ps__scratch_begin(ctx);
    wz_work ws;
    ps_status st = wz_alloc(&s, WZ->dt, n, B->cols, &ws);
    if (!st)
        st = wz_solve(&s, WZ->dt, n, B->cols, ps__matrix_view(WZ), ipiv, &ws, ps__matrix_view(B),
                      fn, 3);
    ps__scratch_end(&s);
    return st;
}

ps_status ps_mat_wzsv(ps_context *ctx, ps_matrix *A, int *ipiv, ps_matrix *B) {
    static const char fn[] = "ps_mat_wzsv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_square_matrix(ctx, A, 2, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, A, B, 4, fn));
    if (!ipiv && A->rows > 0) return ps__bad_arg(ctx, 3, "%s: ipiv is NULL", fn);
    return mat_factor_solve(ctx, fn, A, ipiv, B);
}

/* ---- host drivers (argument positions as in wzsv; wztrf has no nrhs or B) ---- */

static ps_status check_host_args(ps_context *ctx, ps__dtype dt, const char *fn, int n, int nrhs,
                                 const void *A, int lda, const int *ipiv, const void *B, int ldb,
                                 int has_rhs) {
    int shift = has_rhs ? 1 : 0;
    if (n < 0) return ps__bad_arg(ctx, 2, "%s: n=%d is negative", fn, n);
    if (has_rhs && nrhs < 0) return ps__bad_arg(ctx, 3, "%s: nrhs=%d is negative", fn, nrhs);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 3 + shift));
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 5 + shift, "%s: ipiv is NULL", fn);
    if (has_rhs) {
        PS__TRY(ps__check_array(ctx, fn, 'B', B, n > 0 && nrhs > 0, ldb, 'n', n, 7));
        PS__TRY(ps__check_separate(ctx, fn, A, 'A', lda, n, B, 'B', ldb, nrhs, n,
                                   ps__dtype_size(dt), 7));
    }
    return ps__check_dtype_supported(ctx, dt, fn);
}

/* wztrf (B NULL) or wzsv: A and ipiv are written when the factorization completes (also for a
 * singular matrix, as LAPACK), B only when the solve succeeds. */
static ps_status host_factor_solve(ps_context *ctx, ps__dtype dt, const char *fn, int n, int nrhs,
                                   void *A, int lda, int *ipiv, void *B, int ldb, int has_rhs) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(check_host_args(ctx, dt, fn, n, nrhs, A, lda, ipiv, B, ldb, has_rhs));
    if (n == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + (has_rhs ? (double)n * nrhs : 0)));

    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b = {{0}, 1, PS__SHAPE_ALL};
    wz_work ws;
    int info = 0, solve = has_rhs && nrhs > 0;
    int *piv = NULL; /* the pivots land in the caller's ipiv only when the call succeeds */
    ps_status st = ps__scratch_host(&s, (size_t)n * sizeof *piv, (void **)&piv);
    ps__finite_check check_a = {fn, "A", has_rhs ? 4 : 3, PS__SHAPE_ALL},
                     check_b = {fn, "B", 7, PS__SHAPE_ALL};
    if (!st) st = wz_alloc(&s, dt, n, solve ? nrhs : 0, &ws);
    if (!st) st = ps__stage_in(&s, dt, n, n, A, lda, 1, &check_a, &a);
    if (!st && solve) st = ps__stage_in(&s, dt, n, nrhs, B, ldb, 0, &check_b, &b);
    if (!st) st = wz_factor(&s, dt, n, a.dev, &ws, piv, &info);
    if (!st && info == 0 && solve) st = wz_solve(&s, dt, n, nrhs, a.dev, piv, &ws, b.dev, fn, 6);
    if (!st && info == 0 && solve) st = ps__check_solution(ctx, dt, n, nrhs, b.dev, fn);
    if (!st && info == 0 && solve) st = ps__stage_out(ctx, dt, n, nrhs, &b, B, ldb);
    if (!st && !breaks_down(ctx, info)) {
        st = ps__stage_out(ctx, dt, n, n, &a, A, lda);
        if (!st) memcpy(ipiv, piv, (size_t)n * sizeof *piv);
    }
    ps__scratch_end(&s);
    if (!st && info > 0) st = wz_failure(ctx, fn, n, info);
    return st;
}

static ps_status host_wztrs(ps_context *ctx, ps__dtype dt, const char *fn, int n, int nrhs,
                            const void *A, int lda, const int *ipiv, void *B, int ldb) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(check_host_args(ctx, dt, fn, n, nrhs, A, lda, ipiv, B, ldb, 1));
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + (double)n * nrhs));

    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b;
    wz_work ws;
    ps__finite_check check_a = {fn, "A", 4, PS__SHAPE_ALL}, check_b = {fn, "B", 7, PS__SHAPE_ALL};
    ps_status st = wz_alloc(&s, dt, n, nrhs, &ws);
    if (!st) st = ps__stage_in(&s, dt, n, n, A, lda, 1, &check_a, &a);
    if (!st) st = ps__stage_in(&s, dt, n, nrhs, B, ldb, 0, &check_b, &b);
    if (!st) st = wz_solve(&s, dt, n, nrhs, a.dev, ipiv, &ws, b.dev, fn, 6);
    if (!st) st = ps__check_solution(ctx, dt, n, nrhs, b.dev, fn);
    if (!st) st = ps__stage_out(ctx, dt, n, nrhs, &b, B, ldb);
    ps__scratch_end(&s);
    return st;
}

ps_status ps_swztrf(ps_context *ctx, int n, float *A, int lda, int *ipiv) {
    return host_factor_solve(ctx, PS__FLOAT, "ps_swztrf", n, 0, A, lda, ipiv, NULL, 1, 0);
}
ps_status ps_dwztrf(ps_context *ctx, int n, double *A, int lda, int *ipiv) {
    return host_factor_solve(ctx, PS__DOUBLE, "ps_dwztrf", n, 0, A, lda, ipiv, NULL, 1, 0);
}
ps_status ps_swztrs(ps_context *ctx, int n, int nrhs, const float *A, int lda, const int *ipiv,
                    float *B, int ldb) {
    return host_wztrs(ctx, PS__FLOAT, "ps_swztrs", n, nrhs, A, lda, ipiv, B, ldb);
}
ps_status ps_dwztrs(ps_context *ctx, int n, int nrhs, const double *A, int lda, const int *ipiv,
                    double *B, int ldb) {
    return host_wztrs(ctx, PS__DOUBLE, "ps_dwztrs", n, nrhs, A, lda, ipiv, B, ldb);
}
ps_status ps_swzsv(ps_context *ctx, int n, int nrhs, float *A, int lda, int *ipiv, float *B,
                   int ldb) {
    return host_factor_solve(ctx, PS__FLOAT, "ps_swzsv", n, nrhs, A, lda, ipiv, B, ldb, 1);
}
ps_status ps_dwzsv(ps_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv, double *B,
                   int ldb) {
    return host_factor_solve(ctx, PS__DOUBLE, "ps_dwzsv", n, nrhs, A, lda, ipiv, B, ldb, 1);
}
