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
 * A backend whose trsm is slow (cuBLAS's ran at about 4 TFLOP/s for LU's 512-row block rows on
 * an H100) can have the block row of U computed as inv(L11) A12 instead: L11's inverse is formed
 * once per panel (a trsm of order nb, beside the panel on the look-ahead lane) and each block row
 * is one GEMM into a workspace and a copy back. L11 is unit lower triangular with entries of
 * magnitude at most 1 (partial pivoting), the case where multiplying by the inverse is as
 * accurate in practice as the substitution (MAGMA's trsm inverts its diagonal blocks likewise).
 *
 * Pivots stay on the device (an int32 buffer of 0-based absolute row indices) and so does the
 * info word; nothing is read back to the host inside the factorization. Backends with two or
 * more lanes (concurrent queues) get look-ahead (core/base/lookahead.c): the next panel is factored
 * while the trailing matrix is updated.
 */
#include "lu/lu.h"
#include "base/lookahead.h"
#include "base/matrix.h"
#include "base/tview.h"
#include "lu/lu_kernels.h"

#include <stdint.h>
#include <stdlib.h>

/* ps__getrf_window searches each column's pivot within this many block rows. One (pivots within
 * the diagonal block) made refinement much slower: float factors of dlatms-like matrices
 * needed 5-6 classical steps at cond 1e2 where partial pivoting needs 2, and fell back at cond
 * 1e6 (CPU, n = 2000, nb = 128; TF32X3 at n = 32768 needed GMRES-IR at cond 1e4). Two gave
 * partial pivoting's step counts (2 / 3 / 6 at cond 1e2 / 1e4 / 1e6; TF32X3 at 32768: 4 and 6
 * at cond 1e2 and 1e4), and on the H100 cost no more time than one. Four and eight gave the same
 * counts (CPU); four was 3-4% slower at n = 32768 on the H100. */
#define PS__LU_WINDOW_BLOCKS 2

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
    return ps__lu(&ctx->be)->getrf_panel(&ctx->be, dt, m - j, n, ps__mat_at(a, j, j), ipiv,
                                         (size_t)j, j, info);
}

static int lu_leaf_width(ps_context *ctx, ps__dtype dt, int m) {
    return ctx->tuning.lu_panel_width > 0 ? ctx->tuning.lu_panel_width
                                          : ps__lu(&ctx->be)->panel_width(&ctx->be, dt, m);
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

ps_status ps__l_inverse_open(ps__scratch *s, ps__dtype dt, int nb, int n, ps__l_inverse *inv) {
    size_t es = ps__dtype_size(dt), square = es * (size_t)nb * (size_t)nb;
    *inv = (ps__l_inverse){nb, {NULL, NULL}, NULL};
    PS__TRY(ps__scratch_dev(s, square, &inv->linv[0]));
    PS__TRY(ps__scratch_dev(s, square, &inv->linv[1]));
    return ps__scratch_dev(s, es * (size_t)nb * (size_t)n, &inv->product);
}

ps__mat ps__l_inverse_of(const ps__l_inverse *inv, int j) {
    return (ps__mat){inv->linv[j / inv->nb % 2], 0, inv->nb};
}

ps_status ps__l_inverse_form(ps_context *ctx, ps__dtype dt, const ps__l_inverse *inv, int j, int jb,
                             ps__mat l) {
    ps__backend *be = &ctx->be;
    ps__scalar zero = ps__scalar_of(dt, 0.0), one = ps__scalar_of(dt, 1.0);
    ps__mat linv = ps__l_inverse_of(inv, j), diagonal = {linv.buf, linv.off, linv.ld + 1};
    PS__TRY(be->ops->fill(be, dt, jb, jb, &zero, linv));
    PS__TRY(be->ops->fill(be, dt, 1, jb, &one, diagonal));
    return be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, jb, jb, &one, l, linv);
}

ps__tview ps__l_inverse_product_tv(const ps__l_inverse *inv, int c0, int transposed, int n) {
    if (!transposed) return ps__tview_as_is((ps__mat){inv->product, (size_t)c0 * inv->nb, inv->nb});
    return (ps__tview){{inv->product, (size_t)c0, n}, 1};
}

ps_status ps__l_inverse_apply(ps_context *ctx, ps__dtype dt, const ps__l_inverse *inv, int j,
                              int jb, int c0, int cw, ps__tview block, int n) {
    ps__backend *be = &ctx->be;
    ps__scalar zero = ps__scalar_of(dt, 0.0), one = ps__scalar_of(dt, 1.0);
    ps__tview product = ps__l_inverse_product_tv(inv, c0, block.t, n);
    PS__TRY(ps__gemm_tv(be, dt, jb, cw, jb, &one, ps__tview_as_is(ps__l_inverse_of(inv, j)), block,
                        &zero, product));
    return ps__copy_tv(be, dt, jb, cw, product, block);
}

/* Applies panel j (jb wide, factored, pivots in ipiv) to the columns [c0, c0 + cw) of the
 * n-column view a: its row swaps, the block row of U (by trsm, or with inv non-null by its
 * inverse), and the update of the rows below. */
static ps_status update_columns(ps_context *ctx, ps__dtype dt, int m, int n, ps__tview a, int j,
                                int jb, int c0, int cw, void *ipiv, const ps__l_inverse *inv) {
    ps__backend *be = &ctx->be;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__tview block = ps__tview_at(a, j, c0);
    PS__TRY(ps__swap_rows_tv(be, dt, cw, ps__tview_at(a, 0, c0), j, jb, ipiv));
    if (inv) {
        PS__TRY(ps__l_inverse_apply(ctx, dt, inv, j, jb, c0, cw, block, n));
    } else {
        PS__TRY(ps__trsm_tv(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, jb, cw, &one,
                            ps__tview_at(a, j, j), block));
    }
    if (m - j - jb <= 0) return PS_SUCCESS;
    return ps__gemm_tv(be, dt, m - j - jb, cw, jb, &minus_one, ps__tview_at(a, j + jb, j), block,
                       &one, ps__tview_at(a, j + jb, c0));
}

/* The blocked factorization's steps for the look-ahead loop (core/base/lookahead.c). */
typedef struct {
    ps_context *ctx;
    ps__dtype dt;
    int m, n;
    ps__tview a;   /* the matrix; a.t: stored transposed (see use_transposed_layout) */
    ps__mat panel; /* a.t: the m x nb workspace the panels are factored in, as is */
    void *ipiv, *info;
    const ps__factor_kind *kind;
    const ps__l_inverse *inv; /* NULL: block rows of U by trsm */
    int window;               /* > 0: pivots searched within this many rows from the diagonal */
    const ps__lu_progress *progress; /* NULL: none */
    int joined; /* the leading columns that have arrived (progress->columns_arrive) */
} factor_args;

/* Where panel j's pivot search ends (one past its last row): m, or the window's end. */
static int search_end(const factor_args *f, int j) {
    return f->window > 0 && f->m - j > f->window ? j + f->window : f->m;
}

/* Panel j: its partial-pivoting LU; or, with a window, the partial-pivoting LU of its first
 * window rows alone (the rows below are solved for in step_finish). On the transposed layout the
 * panel is copied out as is, factored there by the same recursive panel, and copied back. */
static ps_status step_panel(void *arg, int j, int jb) {
    factor_args *f = arg;
    ps__backend *be = &f->ctx->be;
    int rows = search_end(f, j);
    ps__mat factored = f->a.m;
    if (f->a.t) {
        factored = ps__mat_global_columns(f->panel, j);
        PS__TRY(ps__copy_tv(be, f->dt, rows - j, jb, ps__tview_at(f->a, j, j),
                            ps__tview_as_is(ps__mat_at(factored, j, j))));
    }
    PS__TRY(panel_factor(f->ctx, f->dt, rows, factored, j, jb, f->ipiv, f->info, f->kind));
    if (f->inv)
        PS__TRY(ps__l_inverse_form(f->ctx, f->dt, f->inv, j, jb, ps__mat_at(factored, j, j)));
    if (!f->a.t) return PS_SUCCESS;
    return ps__copy_tv(be, f->dt, rows - j, jb, ps__tview_as_is(ps__mat_at(factored, j, j)),
                       ps__tview_at(f->a, j, j));
}

/* With a window: L21 = A21 U11^-1 for the rows below it, a triangular solve with no sequential
 * search down the column. It runs on lane 0, which on split lanes has most of the device: on
 * the panel's lane (32 of an H100's SMs) cuBLAS's strsm for it took 66 ms of the panel lane's
 * critical path at n = 32768 (docs/PERFORMANCE.md). */
static ps_status step_finish(void *arg, int j, int jb) {
    factor_args *f = arg;
    int rows = search_end(f, j);
    if (rows == f->m) return PS_SUCCESS;
    ps__backend *be = &f->ctx->be;
    ps__scalar one = ps__scalar_of(f->dt, 1.0);
    return ps__trsm_tv(be, f->dt, PS__RIGHT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, f->m - rows, jb,
                       &one, ps__tview_at(f->a, j, j), ps__tview_at(f->a, rows, j));
}

/* Panel j's row swaps for the columns left of it (from left_kept on, not for those before it). */
static ps_status step_left(void *arg, int j, int jb) {
    factor_args *f = arg;
    int kept = f->progress ? f->progress->left_kept : 0, c0 = kept > 0 && j >= kept ? kept : 0;
    if (j - c0 <= 0) return PS_SUCCESS;
    return ps__swap_rows_tv(&f->ctx->be, f->dt, j - c0, ps__tview_at(f->a, 0, c0), j, jb, f->ipiv);
}

/* Triangles of at most this order go to the backend's trsm in catch_up's solve; above it the
 * solve goes by halves, most of its flops in GEMMs (cuBLAS's strsm ran at about a third of
 * SGEMM's rate, and only GEMMs take the float split mode). */
#define PS__CATCH_UP_TRSM_LEAF 512

/* b = L^-1 b for the unit lower triangle L (k x k) of the view l; b is k x w. */
static ps_status solve_by_halves(ps__backend *be, ps__dtype dt, int k, int w, ps__tview l,
                                 ps__tview b) {
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    if (k <= PS__CATCH_UP_TRSM_LEAF)
        return ps__trsm_tv(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, k, w, &one, l, b);
    int k1 = k / 2 / 8 * 8;
    PS__TRY(solve_by_halves(be, dt, k1, w, l, b));
    PS__TRY(ps__gemm_tv(be, dt, k - k1, w, k1, &minus_one, ps__tview_at(l, k1, 0), b, &one,
                        ps__tview_at(b, k1, 0)));
    return solve_by_halves(be, dt, k - k1, w, ps__tview_at(l, k1, k1), ps__tview_at(b, k1, 0));
}

/* Columns [c0, c1) that join at step j: the row interchanges, U = L11^-1 A in rows [0, j) and
 * the update below of the steps before it, in one pass each (left-looking). The left swaps of
 * those steps are done (lookahead.h: each step's come after its trailing update) and step j's
 * are not, so L's rows below j are in the order the new columns' rows are swapped into. */
static ps_status catch_up(factor_args *f, int j, int c0, int c1) {
    ps__backend *be = &f->ctx->be;
    ps__scalar one = ps__scalar_of(f->dt, 1.0), minus_one = ps__scalar_of(f->dt, -1.0);
    ps__tview cols = ps__tview_at(f->a, 0, c0);
    if (j == 0) return PS_SUCCESS;
    PS__TRY(ps__swap_rows_tv(be, f->dt, c1 - c0, cols, 0, j, f->ipiv));
    PS__TRY(solve_by_halves(be, f->dt, j, c1 - c0, f->a, cols));
    if (f->m == j) return PS_SUCCESS;
    return ps__gemm_tv(be, f->dt, f->m - j, c1 - c0, j, &minus_one, ps__tview_at(f->a, j, 0), cols,
                       &one, ps__tview_at(f->a, j, c0));
}

/* On lane 0 at step j: the columns the caller says have arrived (at least need) join. */
static ps_status join_columns(factor_args *f, int j, int need) {
    const ps__lu_progress *p = f->progress;
    int have = f->joined;
    if (!p || !p->columns_arrive || have >= f->n) return PS_SUCCESS;
    PS__TRY(p->columns_arrive(p->arg, j, need, &have));
    if (have < need || have > f->n || (p->left_kept > 0 && j >= p->left_kept && have < f->n))
        return ps__fail(f->ctx, PS_ERR_BACKEND, "LU: %d of %d columns have arrived at column %d",
                        have, f->n, j);
    if (have > f->joined) PS__TRY(catch_up(f, j, f->joined, have));
    f->joined = have;
    return PS_SUCCESS;
}

/* Applies panel j to [c0, c1); the trailing update (c1 = n, on lane 0) first lets the arrived
 * columns join, enough of them for the next step's panel and its block column, and then
 * covers only those. */
static ps_status step_update(void *arg, int j, int jb, int c0, int c1) {
    factor_args *f = arg;
    if (c1 == f->n && f->joined < f->n) {
        PS__TRY(join_columns(f, j, c0 + jb < f->n ? c0 + jb : f->n));
        if (c1 > f->joined) c1 = f->joined;
        if (c1 <= c0) return PS_SUCCESS;
    }
    return update_columns(f->ctx, f->dt, f->m, f->n, f->a, j, jb, c0, c1 - c0, f->ipiv, f->inv);
}

/* After step j's work on lane 0: the leading (j + jb) square of the factors is final. */
static ps_status step_done(void *arg, int j, int jb) {
    factor_args *f = arg;
    return f->progress->columns_final(f->progress->arg, f->a, j + jb);
}

ps_status ps__lu_update(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int jb, int c0,
                        int cw, void *ipiv) {
    return update_columns(ctx, dt, m, c0 + cw, ps__tview_as_is(a), j, jb, c0, cw, ipiv, NULL);
}

int ps__use_l_inverse(ps_context *ctx, ps__dtype dt, int k, int nb) {
    if (ctx->tuning.lu_block_row != PS__LU_BLOCK_ROW_AUTO)
        return ctx->tuning.lu_block_row == PS__LU_BLOCK_ROW_INVERSE && k > nb;
    int from = ctx->be.ops->block_size(&ctx->be, PS__ALGO_LU_INVERSE, dt, k);
    return from > 0 && k >= from && k > nb;
}

/* The block steps: with look-ahead on backends with two lanes, else LAPACK's order. */
static ps_status run_blocked(factor_args *f, int k, int n, int nb) {
    ps__backend *be = &f->ctx->be;
    if (be->ops->lanes(be) >= 2 && k > nb) {
        /* look-ahead: the next panel hides behind the trailing update */
        ps__lookahead_steps steps = {.arg = f,
                                     .panel = step_panel,
                                     .finish = step_finish,
                                     .left = step_left,
                                     .update = step_update,
                                     .done = f->progress && f->progress->columns_final ? step_done
                                                                                       : NULL,
                                     .algo = f->kind->algo,
                                     .dt = f->dt};
        return ps__lookahead(f->ctx, k, n, nb, &steps);
    }
    for (int j = 0; j < k; j += nb) {
        int jb = k - j < nb ? k - j : nb;
        PS__TRY(step_panel(f, j, jb));
        PS__TRY(step_finish(f, j, jb));
        /* Everything on the panel's right, then its swaps for the columns on its left. */
        if (n - j - jb > 0) PS__TRY(step_update(f, j, jb, j + jb, n));
        PS__TRY(step_left(f, j, jb));
        if (f->progress && f->progress->columns_final) PS__TRY(step_done(f, j, jb));
    }
    return PS_SUCCESS;
}

/* Whether LU of order n holds the matrix transposed while it factors it: lu_layout,
 * else the backend's measured choice (block_size of PS__ALGO_LU_TRANSPOSED). */
static int use_transposed_layout(ps_context *ctx, ps__dtype dt, int n) {
    if (ctx->tuning.lu_layout != PS__LAYOUT_AUTO)
        return ctx->tuning.lu_layout == PS__LAYOUT_TRANSPOSED;
    int from = ctx->be.ops->block_size(&ctx->be, PS__ALGO_LU_TRANSPOSED, dt, n);
    return from > 0 && n >= from;
}

/* Whether blocked_factor holds the n x n matrix transposed (a square LU with partial pivoting
 * over whole columns, of more than one block nb). */
static int holds_transposed(ps_context *ctx, ps__dtype dt, int n, int nb) {
    return n > nb && use_transposed_layout(ctx, dt, n);
}

/*
 * The transposed layout (square LU with partial pivoting over whole columns): the matrix is
 * transposed in place, factored with every block of it seen through ps__tview (tview.h), and
 * transposed back. Each panel's row interchanges then move contiguous columns where they moved
 * rows with one element per 32-byte sector: laswp was a quarter of the float LU's kernel time at
 * n = 32768 on an H200, and the layout made that solve (fp16x3, cond 1e2) 8% faster
 * (docs/PERFORMANCE.md). Not for a window's pivots: rows within two block rows of each
 * other lie in the same sectors of a column already (RBT's LU was 3% slower transposed). The panels
 * are factored in an m x nb workspace as is (the backend's panel kernel reads columns); the
 * in-place transposes go through it too.
 */
static ps_status blocked_factor(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                                void *info, int nb, const ps__factor_kind *kind, int window,
                                const ps__lu_progress *progress, int given_transposed) {
    int k = m < n ? m : n;
    if (k == 0) return PS_SUCCESS;
    ps__backend *be = &ctx->be;
    ps__l_inverse inv_ws, *inv = NULL;
    ps__scratch own = ps__scratch_begin(ctx);
    ps__scratch *s = progress && progress->scratch ? progress->scratch : &own;
    ps_status st = PS_SUCCESS;
    if (kind->algo == PS__ALGO_LU && ps__use_l_inverse(ctx, dt, k, nb)) {
        st = ps__l_inverse_open(s, dt, nb, n, &inv_ws);
        inv = &inv_ws;
    }
    factor_args f = {.ctx = ctx,
                     .dt = dt,
                     .m = m,
                     .n = n,
                     .a = ps__tview_as_is(a),
                     .ipiv = ipiv,
                     .info = info,
                     .kind = kind,
                     .inv = inv,
                     .window = window,
                     .progress = progress,
                     .joined = n};
    int arriving = progress && progress->columns_arrive;
    f.a.t = kind == &lu_kind && m == n && !window && !arriving && holds_transposed(ctx, dt, n, nb);
    if (arriving) {
        f.joined = 0;
        if (!st) st = join_columns(&f, 0, n < 2 * nb ? n : 2 * nb);
    }
    if (!st && given_transposed && !f.a.t)
        st = ps__fail(ctx, PS_ERR_INVALID_ARGUMENT,
                      "LU: the matrix came transposed, but n = %d is factored as it stands", n);
    if (!st && f.a.t) {
        void *panel = NULL;
        st = ps__scratch_dev(s, ps__dtype_size(dt) * (size_t)m * (size_t)nb, &panel);
        f.panel = (ps__mat){panel, 0, m};
        if (!st && !given_transposed) st = ps__transpose_in_place(be, dt, n, a, panel, nb);
    }
    if (!st) st = run_blocked(&f, k, n, nb);
    if (!st && f.a.t) st = ps__transpose_in_place(be, dt, n, a, f.panel.buf, nb);
    ps__scratch_end(&own); /* as every scratch: released behind the queued work that reads it */
    return st;
}

ps_status ps__blocked_factor(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                             void *info, int nb, const ps__factor_kind *kind) {
    return blocked_factor(ctx, dt, m, n, a, ipiv, info, nb, kind, 0, NULL, 0);
}

ps_status ps__getrf_window(ps_context *ctx, ps__dtype dt, int n, ps__mat a, void *ipiv,
                           void *info) {
    PS__TRY(ps__zero_info(ctx, info));
    if (n == 0) return PS_SUCCESS;
    int nb = ps__lu_block_size(ctx, dt, n, n);
    return blocked_factor(ctx, dt, n, n, a, ipiv, info, nb, &lu_kind, PS__LU_WINDOW_BLOCKS * nb,
                          NULL, 0);
}

ps_status ps__zero_info(ps_context *ctx, void *info) {
    int32_t zero = 0;
    ps__mat info_view = {info, 0, 1};
    return ctx->be.ops->upload(&ctx->be, PS__INT32, 1, 1, &zero, 1, info_view);
}

/* Whether getrf factors on the host's panels (ps__getrf_hybrid): asked for, and a not already in
 * host memory. */
static int on_host_panels(ps_context *ctx, ps__mat a) {
    void *alias;
    return ctx->tuning.lu_panel == PS__LU_PANEL_HOST &&
           ctx->be.ops->host_alias(&ctx->be, a.buf, &alias) != PS_SUCCESS;
}

static ps_status getrf(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                       void *info, const ps__lu_progress *progress, int given_transposed) {
    PS__TRY(ps__zero_info(ctx, info));
    int k = m < n ? m : n;
    if (k == 0) return PS_SUCCESS;
    int nb = ps__lu_block_size(ctx, dt, m, n);
    if (on_host_panels(ctx, a)) {
        if (given_transposed)
            return ps__fail(ctx, PS_ERR_INVALID_ARGUMENT,
                            "LU: the matrix came transposed to the host panels' factorization");
        return ps__getrf_hybrid(ctx, dt, m, n, a, ipiv, info, nb);
    }
    return blocked_factor(ctx, dt, m, n, a, ipiv, info, nb, &lu_kind, 0, progress,
                          given_transposed);
}

ps_status ps__getrf(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                    void *info) {
    return getrf(ctx, dt, m, n, a, ipiv, info, NULL, 0);
}

ps_status ps__getrf_progress(ps_context *ctx, ps__dtype dt, int n, ps__mat a, void *ipiv,
                             void *info, const ps__lu_progress *progress, int given_transposed) {
    return getrf(ctx, dt, n, n, a, ipiv, info, progress, given_transposed);
}

int ps__getrf_holds_transposed(ps_context *ctx, ps__dtype dt, int n) {
    /* getrf's path off the host panels (a device matrix on them goes there) */
    return n > 0 && ctx->tuning.lu_panel != PS__LU_PANEL_HOST &&
           holds_transposed(ctx, dt, n, ps__lu_block_size(ctx, dt, n, n));
}

ps_status ps__pivots_to_perm(ps_context *ctx, int n, const void *ipiv, void *perm) {
    if (n <= 0) return PS_SUCCESS;
    ps__backend *be = &ctx->be;
    int32_t *host;
    PS__TRY(ps__host_alloc(ctx, 2 * (size_t)n * sizeof *host, (void **)&host));
    int32_t *piv = host, *order = host + n;
    ps__mat pm = {(void *)ipiv, 0, n}, om = {perm, 0, n};
    ps_status st = be->ops->download(be, PS__INT32, n, 1, pm, piv, n);
    /* the interchanges applied to the row numbers themselves */
    for (int i = 0; i < n; i++) order[i] = i;
    for (int k = 0; k < n && st == PS_SUCCESS; k++) {
        int p = piv[k];
        if (p < 0 || p >= n) {
            st = ps__fail(ctx, PS_ERR_BACKEND, "pivot %d of %d is %d, not a row index", k, n, p);
            break;
        }
        int32_t t = order[k];
        order[k] = order[p];
        order[p] = t;
    }
    if (st == PS_SUCCESS) st = be->ops->upload(be, PS__INT32, n, 1, order, n, om);
    ps__host_free(ctx, host);
    return st;
}

ps_status ps__getrs_perm(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat a,
                         const void *perm, ps__mat src, ps__mat dst) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0);
    PS__TRY(ops->permute_rows(be, dt, n, nrhs, perm, 0, src, dst));
    PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, n, nrhs, &one, a, dst));
    return ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, n, nrhs, &one, a, dst);
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
