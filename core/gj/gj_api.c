/*
 * Inversion and Gauss-Jordan at the public levels: ps_mat_getri/gjinv/gjsv on device matrices,
 * the host drivers ps_?getri/gjinv/gjsv, and the Gauss-Jordan options. gjinv and gjsv work on
 * private copies (a device workspace, or the staging copy of the host drivers), so a singular
 * matrix leaves the caller's arrays as they were; getri checks U's diagonal before it writes.
 */
#include "base/check.h"
#include "gj/gj.h"
#include "lu/lu.h"
#include "base/matrix.h"
#include "base/staging.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- options ---- */

static const ps__enum_name variant_names[] = {
    {"device", PS_GJ_DEVICE}, {"hybrid", PS_GJ_HYBRID}, {"concurrent", PS_GJ_CONCURRENT}};

const char *ps_gj_variant_name(ps_gj_variant v) {
    return ps__enum_to_name(variant_names, PS__COUNT(variant_names), (int)v, "unknown");
}

ps_status ps_gj_variant_from_name(const char *name, ps_gj_variant *v) {
    int value;
    if (!v || ps__enum_from_name(variant_names, PS__COUNT(variant_names), name, &value))
        return PS_ERR_INVALID_ARGUMENT;
    *v = (ps_gj_variant)value;
    return PS_SUCCESS;
}

ps_gj_options ps_context_gj_options(const ps_context *ctx) {
    ps_gj_options o = {PS_GJ_DEVICE, 0, 0};
    if (ctx) {
        o.variant = (ps_gj_variant)ctx->tuning.gj_variant;
        o.block_size = ctx->tuning.gj_nb;
        o.stripe_size = ctx->tuning.gj_stripe;
    }
    return o;
}

#define PS__GJ_MAX_NB     4096
#define PS__GJ_MAX_STRIPE 1024

ps_status ps_context_set_gj_options(ps_context *ctx, const ps_gj_options *opts) {
    static const char fn[] = "ps_context_set_gj_options";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    if (!opts) return ps__bad_arg(ctx, 2, "%s: opts is NULL", fn);
    if (opts->variant != PS_GJ_DEVICE && opts->variant != PS_GJ_HYBRID &&
        opts->variant != PS_GJ_CONCURRENT)
        return ps__bad_arg(ctx, 2, "%s: variant=%d is not a ps_gj_variant", fn, (int)opts->variant);
    if (opts->block_size < 0 || opts->block_size > PS__GJ_MAX_NB)
        return ps__bad_arg(ctx, 2, "%s: block_size=%d is not 0 (automatic) or 1..%d", fn,
                           opts->block_size, PS__GJ_MAX_NB);
    if (opts->stripe_size < 0 || opts->stripe_size > PS__GJ_MAX_STRIPE)
        return ps__bad_arg(ctx, 2, "%s: stripe_size=%d is not 0 (automatic) or 1..%d", fn,
                           opts->stripe_size, PS__GJ_MAX_STRIPE);
    ctx->tuning.gj_variant = opts->variant;
    ctx->tuning.gj_nb = opts->block_size;
    ctx->tuning.gj_stripe = opts->stripe_size;
    return PS_SUCCESS;
}

int ps__gj_block_size(ps_context *ctx, ps__dtype dt, int n) {
    if (ctx->tuning.gj_nb > 0) return ctx->tuning.gj_nb;
    int nb = ctx->be.ops->block_size(&ctx->be, PS__ALGO_GJ, dt, n);
    return nb > 0 ? nb : 128;
}

int ps__gj_stripe_size(ps_context *ctx, ps__dtype dt, int n) {
    if (ctx->tuning.gj_stripe > 0) return ctx->tuning.gj_stripe;
    int s = ctx->be.ops->block_size(&ctx->be, PS__ALGO_GJ_STRIPE, dt, n);
    return s > 0 && s <= PS__GJ_MAX_STRIPE ? s : 128;
}

/* ---- shared pieces ---- */

static ps_status singular(ps_context *ctx, const char *fn, int info, const char *what) {
    ctx->last_info = info;
    return ps__fail(ctx, PS_ERR_SINGULAR,
                    "%s: %s %d is exactly zero, so the matrix is singular "
                    "(info=%d)",
                    fn, what, info, info);
}

/* The first exact zero on the diagonal of the n x n view a (1-based), or 0. */
static ps_status zero_on_diagonal(ps__scratch *s, ps__dtype dt, int n, ps__mat a, int *first) {
    ps_context *ctx = s->ctx;
    size_t *offs;
    double *vals; /* room for n doubles holds n floats too */
    *first = 0;
    PS__TRY(ps__scratch_host(s, (size_t)n * sizeof *offs, (void **)&offs));
    PS__TRY(ps__scratch_host(s, (size_t)n * sizeof *vals, (void **)&vals));
    for (int i = 0; i < n; i++) offs[i] = a.off + (size_t)i * ((size_t)a.ld + 1);
    PS__TRY(ctx->be.ops->read_elements(&ctx->be, dt, a.buf, n, offs, vals));
    for (int i = 0; i < n && !*first; i++) {
        double d = dt == PS__DOUBLE ? vals[i] : (double)((const float *)vals)[i];
        if (d == 0) *first = i + 1;
    }
    return PS_SUCCESS;
}

/* getri's blocks: the context's LU block size when one is set (lu_nb), else the
 * backend's choice for getri, else LU's. */
static int getri_block_size(ps_context *ctx, ps__dtype dt, int n) {
    if (ctx->lu_block_size > 0) return ctx->lu_block_size;
    int nb = ctx->be.ops->block_size(&ctx->be, PS__ALGO_GETRI, dt, n);
    return nb > 0 ? nb : ps__lu_block_size(ctx, dt, n, n);
}

/* getri on the device view a (n x n, getrf's factors) with 1-based host pivots. */
static ps_status run_getri(ps__scratch *s, ps__dtype dt, int n, ps__mat a, const int *ipiv,
                           const char *fn) {
    ps_context *ctx = s->ctx;
    int first;
    void *dev_ipiv;
    PS__TRY(zero_on_diagonal(s, dt, n, a, &first));
    if (first) return singular(ctx, fn, first, "the diagonal element of U in row");
    PS__TRY(ps__upload_pivots(s, n, ipiv, &dev_ipiv));
    return ps__getri(ctx, dt, n, a, dev_ipiv, getri_block_size(ctx, dt, n));
}

/* gjinv of the device view a, computed in work (a itself, or a private buffer, so that a is
 * written only on success). */
static ps_status run_gjinv(ps__scratch *s, ps__dtype dt, int n, ps__mat a, ps__mat work,
                           const char *fn) {
    ps_context *ctx = s->ctx;
    void *dev_ipiv;
    int info = 0;
    PS__TRY(ps__scratch_dev(s, (size_t)n * sizeof(int32_t), &dev_ipiv));
    PS__TRY(ps__gjinv(ctx, dt, n, a, work, a, ps__gj_block_size(ctx, dt, n),
                      (ps__gj_where)ctx->tuning.gj_variant, dev_ipiv, &info));
    if (info) return singular(ctx, fn, info, "the Gauss-Jordan pivot of column");
    return PS_SUCCESS;
}

static ps_status run_gjsv(ps__scratch *s, ps__dtype dt, int n, int nrhs, ps__mat a, ps__mat b,
                          const char *fn) {
    ps_context *ctx = s->ctx;
    void *dev_ipiv;
    int info = 0;
    PS__TRY(ps__scratch_dev(s, (size_t)n * sizeof(int32_t), &dev_ipiv));
    PS__TRY(ps__gjsv(ctx, dt, n, nrhs, a, b, ps__gj_stripe_size(ctx, dt, n), dev_ipiv, &info));
    if (info) return singular(ctx, fn, info, "the Gauss-Jordan pivot of column");
    return PS_SUCCESS;
}

/* A device copy of the rows x cols view src, released with the scratch. */
static ps_status private_copy(ps__scratch *s, ps__dtype dt, int rows, int cols, ps__mat src,
                              ps__mat *copy) {
    ps_context *ctx = s->ctx;
    PS__TRY(ps__scratch_matrix(s, dt, rows, cols, copy));
    return ctx->be.ops->copy2d(&ctx->be, dt, rows, cols, src, *copy);
}

/* ---- device matrices ---- */

ps_status ps_mat_getri(ps_context *ctx, ps_matrix *A, const int *ipiv) {
    static const char fn[] = "ps_mat_getri";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_square_matrix(ctx, A, 2, fn));
    int n = A->rows;
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 3, "%s: ipiv is NULL", fn);
    if (n == 0) return PS_SUCCESS;
    PS__TRY(ps__check_pivots(ctx, n, ipiv, fn, 3));
    ps__scratch s = ps__scratch_begin(ctx);
    ps_status st = run_getri(&s, A->dt, n, ps__matrix_view(A), ipiv, fn);
    ps__scratch_end(&s);
    return st;
}

ps_status ps_mat_gjinv(ps_context *ctx, ps_matrix *A) {
    static const char fn[] = "ps_mat_gjinv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_square_matrix(ctx, A, 2, fn));
    int n = A->rows;
    if (n == 0) return PS_SUCCESS;
    ps__scratch s = ps__scratch_begin(ctx);
    ps__mat work;
    ps_status st = ps__scratch_matrix(&s, A->dt, n, n, &work);
    /* the inverse is formed in the private buffer and copied to A (transposed back, when the
     * layout is) only on success */
    if (!st) st = run_gjinv(&s, A->dt, n, ps__matrix_view(A), work, fn);
    if (!st) st = ctx->be.ops->sync(&ctx->be);
    ps__scratch_end(&s);
    return st;
}

ps_status ps_mat_gjsv(ps_context *ctx, ps_matrix *A, ps_matrix *B) {
    static const char fn[] = "ps_mat_gjsv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_square_matrix(ctx, A, 2, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, A, B, 3, fn));
    int n = A->rows, nrhs = B->cols;
    if (n == 0) return PS_SUCCESS;
    ps__scratch s = ps__scratch_begin(ctx);
    ps__mat a, b;
    ps_status st = private_copy(&s, A->dt, n, n, ps__matrix_view(A), &a);
    if (!st) st = private_copy(&s, A->dt, n, nrhs, ps__matrix_view(B), &b);
    if (!st) st = run_gjsv(&s, A->dt, n, nrhs, a, b, fn);
    if (!st) st = ctx->be.ops->copy2d(&ctx->be, A->dt, n, n, a, ps__matrix_view(A));
    if (!st) st = ctx->be.ops->copy2d(&ctx->be, A->dt, n, nrhs, b, ps__matrix_view(B));
    if (!st) st = ctx->be.ops->sync(&ctx->be);
    ps__scratch_end(&s);
    return st;
}

/* ---- host drivers ---- */

/* The checks of an order-n matrix argument A (position pos) with leading dimension lda. */
static ps_status check_square(ps_context *ctx, ps__dtype dt, const char *fn, int n, const void *A,
                              int lda, int pos) {
    if (n < 0) return ps__bad_arg(ctx, 2, "%s: n=%d is negative", fn, n);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, pos));
    return ps__check_dtype_supported(ctx, dt, fn);
}

static ps_status host_getri(ps_context *ctx, ps__dtype dt, const char *fn, int n, void *A, int lda,
                            const int *ipiv) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_context *cpu;
    if (ps__crossover(ctx, dt, n, &cpu))
        return ps__crossed(ctx, cpu, host_getri(cpu, dt, fn, n, A, lda, ipiv));
    PS__TRY(check_square(ctx, dt, fn, n, A, lda, 3));
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 5, "%s: ipiv is NULL", fn);
    if (n == 0) return PS_SUCCESS;
    PS__TRY(ps__check_pivots(ctx, n, ipiv, fn, 5));
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n));
    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a;
    ps_status st =
        ps__stage_in(&s, dt, n, n, A, lda, 0, &(ps__finite_check){fn, "A", 3, PS__SHAPE_ALL}, &a);
    if (!st) st = run_getri(&s, dt, n, a.dev, ipiv, fn);
    if (!st) st = ps__stage_out(ctx, dt, n, n, &a, A, lda);
    ps__scratch_end(&s);
    return st;
}

static ps_status host_gjinv(ps_context *ctx, ps__dtype dt, const char *fn, int n, void *A,
                            int lda) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(check_square(ctx, dt, fn, n, A, lda, 3));
    if (n == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n));
    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a;
    ps_status st =
        ps__stage_in(&s, dt, n, n, A, lda, 0, &(ps__finite_check){fn, "A", 3, PS__SHAPE_ALL}, &a);
    if (!st) st = run_gjinv(&s, dt, n, a.dev, a.dev, fn);
    if (!st) st = ps__stage_out(ctx, dt, n, n, &a, A, lda);
    ps__scratch_end(&s);
    return st;
}

static ps_status host_gjsv(ps_context *ctx, ps__dtype dt, const char *fn, int n, int nrhs, void *A,
                           int lda, void *B, int ldb) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    if (n < 0) return ps__bad_arg(ctx, 2, "%s: n=%d is negative", fn, n);
    if (nrhs < 0) return ps__bad_arg(ctx, 3, "%s: nrhs=%d is negative", fn, nrhs);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 4));
    PS__TRY(ps__check_array(ctx, fn, 'B', B, n > 0 && nrhs > 0, ldb, 'n', n, 6));
    PS__TRY(
        ps__check_separate(ctx, fn, A, 'A', lda, n, B, 'B', ldb, nrhs, n, ps__dtype_size(dt), 6));
    PS__TRY(ps__check_dtype_supported(ctx, dt, fn));
    if (n == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + (double)n * nrhs));
    ps__finite_check check_a = {fn, "A", 4, PS__SHAPE_ALL}, check_b = {fn, "B", 6, PS__SHAPE_ALL};
    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b;
    ps_status st = ps__stage_in(&s, dt, n, n, A, lda, 0, &check_a, &a);
    if (!st) st = ps__stage_in(&s, dt, n, nrhs, B, ldb, 0, &check_b, &b);
    if (!st) st = run_gjsv(&s, dt, n, nrhs, a.dev, b.dev, fn);
    if (!st) st = ps__check_solution(ctx, dt, n, nrhs, b.dev, fn);
    if (!st) st = ps__stage_out(ctx, dt, n, nrhs, &b, B, ldb);
    if (!st) st = ps__stage_out(ctx, dt, n, n, &a, A, lda);
    ps__scratch_end(&s);
    return st;
}

ps_status ps_sgetri(ps_context *ctx, int n, float *A, int lda, const int *ipiv) {
    return host_getri(ctx, PS__FLOAT, "ps_sgetri", n, A, lda, ipiv);
}
ps_status ps_dgetri(ps_context *ctx, int n, double *A, int lda, const int *ipiv) {
    return host_getri(ctx, PS__DOUBLE, "ps_dgetri", n, A, lda, ipiv);
}
ps_status ps_sgjinv(ps_context *ctx, int n, float *A, int lda) {
    return host_gjinv(ctx, PS__FLOAT, "ps_sgjinv", n, A, lda);
}
ps_status ps_dgjinv(ps_context *ctx, int n, double *A, int lda) {
    return host_gjinv(ctx, PS__DOUBLE, "ps_dgjinv", n, A, lda);
}
ps_status ps_sgjsv(ps_context *ctx, int n, int nrhs, float *A, int lda, float *B, int ldb) {
    return host_gjsv(ctx, PS__FLOAT, "ps_sgjsv", n, nrhs, A, lda, B, ldb);
}
ps_status ps_dgjsv(ps_context *ctx, int n, int nrhs, double *A, int lda, double *B, int ldb) {
    return host_gjsv(ctx, PS__DOUBLE, "ps_dgjsv", n, nrhs, A, lda, B, ldb);
}
