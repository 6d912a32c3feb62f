/*
 * LU with partial pivoting, written once against the backend vtable.
 *
 * Right-looking blocked algorithm (LAPACK dgetrf): for each block column of width nb, factor
 * the tall panel, apply its row swaps to the columns left and right of it, solve for the block
 * row of U (trsm) and update the trailing matrix with one gemm, which carries almost all flops.
 *
 * The panel is factored recursively (Toledo; LAPACK dgetrf2): split it in two halves, factor the
 * left, update the right with trsm + gemm, factor the right, swap the left. Recursion stops at
 * the backend's panel width, where the getrf_panel kernel (a device kernel on GPUs, plain loops
 * on the CPU) takes over. This keeps the panel BLAS-3 rich, so it does not dominate on the CPU
 * where the unblocked loop would be memory-bound.
 *
 * Pivots stay on the device (an int32 buffer of 0-based absolute row indices) and so does the
 * info word; nothing is read back to the host inside the factorization. Backends with two or
 * more lanes (concurrent queues) get look-ahead (core/lookahead.c): the next panel is factored
 * while the trailing matrix is updated.
 */
#include "lu.h"
#include "lookahead.h"
#include "matrix.h"

#include <stdint.h>
#include <stdlib.h>

int ps__lu_block_size(ps_context *ctx, ps__dtype dt, int m, int n) {
    if (ctx->lu_block_size > 0) return ctx->lu_block_size;
    int k = m < n ? m : n;
    int nb = ctx->be.ops->block_size(&ctx->be, PS__ALGO_LU, dt, k);
    return nb > 0 ? nb : 128;
}

/* The LU leaf: the backend's unblocked panel kernel. */
static ps_status lu_leaf(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, int j, void *ipiv,
                         void *info, const ps__factor_kind *kind) {
    (void)kind;
    return ctx->be.ops->getrf_panel(&ctx->be, dt, m - j, n, ps__mat_at(a, j, j), ipiv, (size_t)j, j,
                                    info);
}

static int lu_leaf_width(ps_context *ctx, ps__dtype dt, int m) {
    return ctx->lu_panel_width > 0 ? ctx->lu_panel_width
                                   : ctx->be.ops->panel_width(&ctx->be, dt, m);
}

static const ps__factor_kind lu_kind = {1, lu_leaf, lu_leaf_width, {NULL, 0, 1}, 1, PS__ALGO_LU};

/*
 * Factors the panel of columns j..j+n-1, rows j..m-1 of a (the whole matrix view), applying
 * row swaps within those columns only. The panel's top row equals its first column. Splits fall
 * on multiples of kind->align from j, so a WZ step's two columns are never separated.
 */
static ps_status panel_factor(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int n,
                              void *ipiv, void *info, const ps__factor_kind *kind) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    int leaf = kind->leaf_width(ctx, dt, m - j), align = kind->align;
    int n1 = (n / 2 + align - 1) / align * align;
    if (n <= (leaf > align ? leaf : align) || n1 >= n)
        return kind->leaf(ctx, dt, m, n, a, j, ipiv, info, kind);

    int n2 = n - n1;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    PS__TRY(panel_factor(ctx, dt, m, a, j, n1, ipiv, info, kind));
    PS__TRY(ops->laswp(be, dt, n2, ps__mat_at(a, 0, j + n1), j, j + n1, ipiv, (size_t)j, 1));
    PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, n1, n2, &one,
                      ps__mat_at(a, j, j), ps__mat_at(a, j, j + n1)));
    PS__TRY(ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m - j - n1, n2, n1, &minus_one,
                      ps__mat_at(a, j + n1, j), ps__mat_at(a, j, j + n1), &one,
                      ps__mat_at(a, j + n1, j + n1)));
    PS__TRY(panel_factor(ctx, dt, m, a, j + n1, n2, ipiv, info, kind));
    return ops->laswp(be, dt, n1, ps__mat_at(a, 0, j), j + n1, j + n, ipiv, (size_t)(j + n1), 1);
}

ps_status ps__lu_panel(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w, void *ipiv,
                       void *info) {
    return panel_factor(ctx, dt, m, a, j, w, ipiv, info, &lu_kind);
}

/* Applies panel j (jb wide, factored, pivots in ipiv) to the columns [c0, c0 + cw): its row
 * swaps, the block row of U, and the update of the rows below. */
static ps_status update_columns(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int jb,
                                int c0, int cw, void *ipiv) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    PS__TRY(ops->laswp(be, dt, cw, ps__mat_at(a, 0, c0), j, j + jb, ipiv, (size_t)j, 1));
    PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, jb, cw, &one,
                      ps__mat_at(a, j, j), ps__mat_at(a, j, c0)));
    if (m - j - jb <= 0) return PS_SUCCESS;
    return ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m - j - jb, cw, jb, &minus_one,
                     ps__mat_at(a, j + jb, j), ps__mat_at(a, j, c0), &one,
                     ps__mat_at(a, j + jb, c0));
}

/* The blocked factorization's steps for the look-ahead loop (core/lookahead.c). */
typedef struct {
    ps_context *ctx;
    ps__dtype dt;
    int m;
    ps__mat a;
    void *ipiv, *info;
    const ps__factor_kind *kind;
} factor_args;

static ps_status step_panel(void *arg, int j, int jb) {
    factor_args *f = arg;
    return panel_factor(f->ctx, f->dt, f->m, f->a, j, jb, f->ipiv, f->info, f->kind);
}

/* Panel j's row swaps for the columns left of it. */
static ps_status step_left(void *arg, int j, int jb) {
    factor_args *f = arg;
    if (j == 0) return PS_SUCCESS;
    ps__backend *be = &f->ctx->be;
    return be->ops->laswp(be, f->dt, j, f->a, j, j + jb, f->ipiv, (size_t)j, 1);
}

static ps_status step_update(void *arg, int j, int jb, int c0, int c1) {
    factor_args *f = arg;
    return update_columns(f->ctx, f->dt, f->m, f->a, j, jb, c0, c1 - c0, f->ipiv);
}

ps_status ps__blocked_factor(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                             void *info, int nb, const ps__factor_kind *kind) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    int k = m < n ? m : n;
    if (k == 0) return PS_SUCCESS;
    if (ops->lanes(be) >= 2 && k > nb) {
        /* look-ahead: the next panel hides behind the trailing update */
        factor_args f = {ctx, dt, m, a, ipiv, info, kind};
        ps__lookahead_steps steps = {&f, step_panel, step_left, step_update, kind->algo};
        return ps__lookahead(ctx, k, n, nb, &steps);
    }

    for (int j = 0; j < k; j += nb) {
        int jb = k - j < nb ? k - j : nb;
        PS__TRY(panel_factor(ctx, dt, m, a, j, jb, ipiv, info, kind));
        /* Swaps of this panel for the columns on its left, then everything on its right. */
        if (j > 0) PS__TRY(ops->laswp(be, dt, j, a, j, j + jb, ipiv, (size_t)j, 1));
        if (n - j - jb > 0) PS__TRY(update_columns(ctx, dt, m, a, j, jb, j + jb, n - j - jb, ipiv));
    }
    return PS_SUCCESS;
}

ps_status ps__zero_info(ps_context *ctx, void *info) {
    int32_t zero = 0;
    ps__mat info_view = {info, 0, 1};
    return ctx->be.ops->upload(&ctx->be, PS__INT32, 1, 1, &zero, 1, info_view);
}

ps_status ps__getrf(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                    void *info) {
    PS__TRY(ps__zero_info(ctx, info));
    int k = m < n ? m : n;
    if (k == 0) return PS_SUCCESS;
    return ps__blocked_factor(ctx, dt, m, n, a, ipiv, info, ps__lu_block_size(ctx, dt, m, n),
                              &lu_kind);
}

ps_status ps__getrs(ps_context *ctx, ps__dtype dt, ps__trans trans, int n, int nrhs, ps__mat a,
                    const void *ipiv, ps__mat b) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0);
    if (trans == PS__NOTRANS) {
        /* A = P L U: X = U \ (L \ (P^T B)). */
        PS__TRY(ops->laswp(be, dt, nrhs, b, 0, n, ipiv, 0, 1));
        PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, n, nrhs, &one, a, b));
        return ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, n, nrhs, &one, a,
                         b);
    }
    /* A^T = U^T L^T P^T: X = P (L^T \ (U^T \ B)), the swaps undone in reverse order. */
    PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT, n, nrhs, &one, a, b));
    PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__TRANS, PS__UNIT, n, nrhs, &one, a, b));
    return ops->laswp(be, dt, nrhs, b, 0, n, ipiv, 0, 0);
}
