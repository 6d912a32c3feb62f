/*
 * Cholesky factorization, written once against the backend vtable.
 *
 * Two algorithms, lower case shown (the upper case is its transpose: U = L^T, every block
 * (i, j) of L stored at (j, i) of U, and each operation transposed):
 *
 * Recursive (Gustavson; LAPACK dpotrf2): split A = [A11 .; A21 A22] at n1 = n/2,
 *   L11 = chol(A11);  L21 = A21 L11^-T (trsm);  A22 -= L21 L21^T (syrk);  L22 = chol(A22).
 * The top levels give one trsm and one syrk of order n/2 with inner dimension n/2, the largest
 * BLAS-3 calls the factorization allows; on one queue (the CPU, OpenCL) this is the fastest.
 * The recursion stops at the backend's potrf_width, where the device's potrf_panel kernel
 * factors the diagonal block.
 *
 * Blocked right-looking with look-ahead (backends whose block_size(PS__ALGO_CHOL) is set, or
 * chol_nb): per block column j of width nb, the tall panel (rows j..n-1) is factored
 * recursively down to the backend's potrf_tall leaves (see panel()); the trailing matrix is then
 * updated with it, A(c, c') -= L(c, j) L(c', j)^T for c >= c' (see update_columns). On a GPU
 * the recursive form puts every small trsm/syrk of its lower levels, and every leaf, on the
 * critical path with nothing beside them; here the panel of step j + 1 runs on the second lane
 * while the first updates the rest of the trailing matrix with step j's panel, so it hides
 * behind that update (the look-ahead LU has, core/base/lookahead.c). With one lane the same loop
 * runs in order and is the plain blocked algorithm (LAPACK dpotrf).
 *
 * The info word lives on the device: a failing block records the order of the first leading
 * minor that is not positive definite, and every later block kernel sees it and does nothing,
 * so nothing is read back inside the factorization. The updates after a failure run on data
 * that no longer matters; they never touch the leading block that is already factored. Where
 * the word lies in host memory (the CPU backend) it is read for free, and the factorization
 * stops at the failure, as LAPACK's does (ps__chol_failed_on_host).
 */
#include "chol/chol.h"
#include "base/lookahead.h"
#include "chol/chol_kernels.h"

#include <stdint.h>

/* Splits at a multiple of the leaf width where it can, so the leaves stay full. */
static int split_point(int n, int leaf) {
    int n1 = n / 2;
    if (leaf > 1 && n1 > leaf) n1 = n1 / leaf * leaf;
    return n1;
}

static ps_status potrf_rec(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a, int base,
                           void *info, int leaf) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    if (n <= leaf) return ps__chol(be)->potrf_panel(be, dt, uplo, n, a, info, base);

    int n1 = split_point(n, leaf), n2 = n - n1;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__mat a11 = a, a22 = ps__mat_at(a, n1, n1);
    PS__TRY(potrf_rec(ctx, dt, uplo, n1, a11, base, info, leaf));
    if (ps__chol_failed_on_host(be, info)) return PS_SUCCESS;
    if (uplo == PS__LOWER) {
        ps__mat a21 = ps__mat_at(a, n1, 0);
        PS__TRY(ops->trsm(be, dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT, n2, n1, &one, a11,
                          a21));
        PS__TRY(ops->syrk(be, dt, PS__LOWER, PS__NOTRANS, n2, n1, &minus_one, a21, &one, a22));
    } else {
        ps__mat a12 = ps__mat_at(a, 0, n1);
        PS__TRY(
            ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT, n1, n2, &one, a11, a12));
        PS__TRY(ops->syrk(be, dt, PS__UPPER, PS__TRANS, n2, n1, &minus_one, a12, &one, a22));
    }
    return potrf_rec(ctx, dt, uplo, n2, a22, base + n1, info, leaf);
}

ps_status ps__potrf_recursive(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                              void *info, int index_base) {
    int leaf = ps__chol(&ctx->be)->potrf_width(&ctx->be, dt);
    return n > 0 ? potrf_rec(ctx, dt, uplo, n, a, index_base, info, leaf < 1 ? 1 : leaf)
                 : PS_SUCCESS;
}

/* A(r0.., c0..) -= L(r0.., j) L(c0.., j)^T for a rows x cols block strictly below the
 * diagonal (r0 >= c0 + cols), jb the panel's width. */
static ps_status update_block(ps_context *ctx, ps__dtype dt, ps__uplo uplo, ps__mat a, int j,
                              int jb, int r0, int rows, int c0, int cols) {
    ps__backend *be = &ctx->be;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    if (uplo == PS__LOWER)
        return be->ops->gemm(be, dt, PS__NOTRANS, PS__TRANS, rows, cols, jb, &minus_one,
                             ps__mat_at(a, r0, j), ps__mat_at(a, c0, j), &one,
                             ps__mat_at(a, r0, c0));
    return be->ops->gemm(be, dt, PS__TRANS, PS__NOTRANS, cols, rows, jb, &minus_one,
                         ps__mat_at(a, j, c0), ps__mat_at(a, j, r0), &one, ps__mat_at(a, c0, r0));
}

/* The triangle of rows and columns [c0, c1) updated by panel j: syrk up to the tile order,
 * above it split in two triangles and the square between them, so most of it is one large
 * gemm (cuBLAS's syrk runs well below its gemm rate, and never touches the other triangle
 * either way). */
static ps_status update_triangle(ps_context *ctx, ps__dtype dt, ps__uplo uplo, ps__mat a, int j,
                                 int jb, int c0, int c1, int tile) {
    int order = c1 - c0;
    if (order <= tile) {
        ps__backend *be = &ctx->be;
        ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
        ps__mat acc = ps__mat_at(a, c0, c0);
        return uplo == PS__LOWER ? be->ops->syrk(be, dt, PS__LOWER, PS__NOTRANS, order, jb,
                                                 &minus_one, ps__mat_at(a, c0, j), &one, acc)
                                 : be->ops->syrk(be, dt, PS__UPPER, PS__TRANS, order, jb,
                                                 &minus_one, ps__mat_at(a, j, c0), &one, acc);
    }
    int mid = c0 + (order / 2 + tile - 1) / tile * tile;
    if (mid >= c1) mid = c0 + order / 2;
    PS__TRY(update_triangle(ctx, dt, uplo, a, j, jb, c0, mid, tile));
    PS__TRY(update_block(ctx, dt, uplo, a, j, jb, mid, c1 - mid, c0, mid - c0));
    return update_triangle(ctx, dt, uplo, a, j, jb, mid, c1, tile);
}

/* Updates the columns [c0, c1) of the trailing matrix (rows c0..n-1) with panel j. */
static ps_status update_columns(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                                int j, int jb, int c0, int c1) {
    PS__TRY(update_triangle(ctx, dt, uplo, a, j, jb, c0, c1, jb));
    if (c1 >= n) return PS_SUCCESS;
    return update_block(ctx, dt, uplo, a, j, jb, c1, n - c1, c0, c1 - c0);
}

/* The panel of block column j (w wide, rows j..n-1), factored recursively like LU's panel
 * (core/lu/lu.c): the left half, its update of the right half (update_columns), the right half;
 * the leaves are the backend's potrf_tall, which factors a diagonal block and solves the rows
 * below it in one call. Every call is tall (n - j rows), so the trsm of the rows below is never
 * a separate latency-bound call of its own, and the few square ones left are one gemm each. */
static ps_status panel(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a, int j, int w,
                       void *info, int leaf) {
    ps__backend *be = &ctx->be;
    if (w <= leaf)
        return ps__chol(be)->potrf_tall(be, dt, uplo, n - j, w, ps__mat_at(a, j, j), info, j);
    int w1 = split_point(w, leaf);
    PS__TRY(panel(ctx, dt, uplo, n, a, j, w1, info, leaf));
    if (ps__chol_failed_on_host(be, info)) return PS_SUCCESS;
    PS__TRY(update_columns(ctx, dt, uplo, n, a, j, w1, j + w1, j + w));
    return panel(ctx, dt, uplo, n, a, j + w1, w - w1, info, leaf);
}

/* The blocked algorithm's steps for the look-ahead loop (core/base/lookahead.c). */
typedef struct {
    ps_context *ctx;
    ps__dtype dt;
    ps__uplo uplo;
    int n, leaf;
    ps__mat a;
    void *info;
} chol_args;

static ps_status step_panel(void *arg, int j, int jb) {
    chol_args *c = arg;
    if (ps__chol_failed_on_host(&c->ctx->be, c->info)) return PS_SUCCESS;
    return panel(c->ctx, c->dt, c->uplo, c->n, c->a, j, jb, c->info, c->leaf);
}

static ps_status step_update(void *arg, int j, int jb, int c0, int c1) {
    chol_args *c = arg;
    if (ps__chol_failed_on_host(&c->ctx->be, c->info)) return PS_SUCCESS;
    return update_columns(c->ctx, c->dt, c->uplo, c->n, c->a, j, jb, c0, c1);
}

/* The blocked algorithm's block size for order n: chol_nb, else the backend's;
 * 0 (or n or more) selects the recursive algorithm. */
static int chol_block_size(ps_context *ctx, ps__dtype dt, int n) {
    if (ctx->tuning.chol_nb > 0) return ctx->tuning.chol_nb;
    return ctx->be.ops->block_size(&ctx->be, PS__ALGO_CHOL, dt, n);
}

ps_status ps__potrf(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a, void *info) {
    ps__backend *be = &ctx->be;
    int32_t zero = 0;
    ps__mat info_view = {info, 0, 1};
    PS__TRY(be->ops->upload(be, PS__INT32, 1, 1, &zero, 1, info_view));
    if (n == 0) return PS_SUCCESS;
    int leaf = ps__chol(be)->potrf_width(be, dt);
    if (leaf < 1) leaf = 1;
    int nb = chol_block_size(ctx, dt, n);
    if (nb > 0 && nb < n) {
        chol_args c = {ctx, dt, uplo, n, leaf, a, info};
        ps__lookahead_steps steps = {
            .arg = &c, .panel = step_panel, .update = step_update, .algo = PS__ALGO_CHOL, .dt = dt};
        return ps__lookahead(ctx, n, n, nb, &steps);
    }
    return potrf_rec(ctx, dt, uplo, n, a, 0, info, leaf);
}

ps_status ps__potrs(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, int nrhs, ps__mat a,
                    ps__mat b) {
    ps__backend *be = &ctx->be;
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0);
    /* A = L L^T: X = L^-T (L^-1 B); A = U^T U: X = U^-1 (U^-T B). */
    ps__trans first = uplo == PS__LOWER ? PS__NOTRANS : PS__TRANS;
    ps__trans second = uplo == PS__LOWER ? PS__TRANS : PS__NOTRANS;
    PS__TRY(be->ops->trsm(be, dt, PS__LEFT, uplo, first, PS__NONUNIT, n, nrhs, &one, a, b));
    return be->ops->trsm(be, dt, PS__LEFT, uplo, second, PS__NONUNIT, n, nrhs, &one, a, b);
}
