#include "refine/trsv_blocked.h"

#include "base/matrix.h"
#include "refine/refine_kernels.h"

int ps__gemv_mixed_offered(ps_context *ctx) {
    ps__backend *be = &ctx->be;
    ps__mat none = {NULL, 0, 1};
    ps__vec nothing = {NULL, 0, 1};
    if (ps__refine(be)->gemv_mixed(be, 0, 0, 0.0, none, nothing, nothing) == PS_SUCCESS) return 1;
    ctx->last_error[0] = '\0'; /* a refusal (no double on this device) is an answer here */
    return 0;
}

int ps__trsv_blocked_order(ps_context *ctx, int n) {
    if (n <= 0) return 0;
    int nb = ps__tuned_size(ctx, ctx->tuning.ir_trsv_block, PS__ALGO_TRSV_BLOCKED, PS__FLOAT, n);
    if (nb <= 0 || !ps__gemv_mixed_offered(ctx)) return 0;
    return nb < n ? nb : n;
}

/* The storage of block b's inverse, and block b's order. */
static ps__mat inverse_of(const ps__trsv_blocked *t, int side, int b) {
    return ps__mat_at(t->inv[side], 0, b * t->nb);
}
static int order_of(const ps__trsv_blocked *t, int b) {
    int rest = t->n - b * t->nb;
    return rest < t->nb ? rest : t->nb;
}

ps_status ps__trsv_blocked_open(ps__scratch *s, int n, int nb, ps__trsv_blocked *t) {
    int blocks = (n + nb - 1) / nb;
    size_t slot = (size_t)nb * (size_t)nb; /* doubles */
    void *buf;
    PS__TRY(ps__scratch_dev(s, (2 * (size_t)blocks + 1) * slot * sizeof(double), &buf));
    *t = (ps__trsv_blocked){.n = n,
                            .nb = nb,
                            .blocks = blocks,
                            .inv = {{buf, 0, nb}, {buf, (size_t)blocks * slot, nb}},
                            .widened = {buf, 2 * (size_t)blocks * slot, nb}};
    return PS_SUCCESS;
}

ps_status ps__trsv_blocked_invert(ps_context *ctx, ps__trsv_blocked *t, ps__tview lu, int cols,
                                  void *flag) {
    ps__backend *be = &ctx->be;
    ps__scalar one = ps__scalar_of(PS__DOUBLE, 1.0);
    /* a diagonal block's storage is the same square whether lu is transposed or not */
    ps__tview widened = {t->widened, lu.t};
    for (; t->ready < t->blocks; t->ready++) {
        int b = t->ready, s0 = b * t->nb, bs = order_of(t, b);
        if (s0 + bs > cols) break;
        /* the block widened once: each trsm reads its own triangle of it */
        PS__TRY(be->ops->convert(be, PS__FLOAT, PS__DOUBLE, bs, bs, 1.0, ps__tview_at(lu, s0, s0).m,
                                 t->widened, flag));
        for (int side = 0; side < 2; side++) {
            ps__mat inv = inverse_of(t, side, b);
            PS__TRY(ps__fill_identity(ctx, PS__DOUBLE, bs, inv));
            /* inv = T_bb^-1 I; trsm reads T_bb's triangle (and not a unit diagonal) only. The
             * inverse by halves (dtrti2's block form, X21 = -X22 T21 X11 by two trmm a level,
             * a third of the flops) was slower on CUDA: at n = 32768 with blocks of 2048 its
             * 1536 cuBLAS trmm kernels and 1024 small trsm took about 60 ms against this
             * loop's 27 (H200). */
            PS__TRY(ps__trsm_tv(be, PS__DOUBLE, PS__LEFT, side ? PS__UPPER : PS__LOWER, PS__NOTRANS,
                                side ? PS__NONUNIT : PS__UNIT, bs, bs, &one, widened,
                                ps__tview_as_is(inv)));
        }
    }
    return PS_SUCCESS;
}

ps_status ps__trsv_blocked_make(ps__scratch *s, int n, int nb, ps__mat lu, void *flag,
                                ps__trsv_blocked *t) {
    PS__TRY(ps__trsv_blocked_open(s, n, nb, t));
    return ps__trsv_blocked_invert(s->ctx, t, ps__tview_as_is(lu), n, flag);
}

/* The solve's chain of products, 2 blocks - 1 of them, each waiting for the one before. */
static ps_status solve_chain(ps__backend *be, const ps__trsv_blocked *t, int side, ps__mat lu,
                             ps__vec b, ps__vec x) {
    int n = t->n;
    ps__scalar zero = ps__scalar_of(PS__DOUBLE, 0.0), one = ps__scalar_of(PS__DOUBLE, 1.0);
    for (int step = 0; step < t->blocks; step++) {
        int blk = side ? t->blocks - 1 - step : step, b0 = blk * t->nb, bs = order_of(t, blk);
        ps__vec bb = {b.buf, b.off + (size_t)b0 * (size_t)b.inc, b.inc};
        ps__vec xb = {x.buf, x.off + (size_t)b0 * (size_t)x.inc, x.inc};
        /* x_b = T_bb^-1 b_b, every earlier block (in the solve's order) already subtracted; the
         * inverse is triangular, its other half the zeros the trsm on the identity left */
        PS__TRY(ps__refine(be)->gemv_triangle(be, PS__DOUBLE, side ? PS__UPPER : PS__LOWER, bs,
                                              &one, inverse_of(t, side, blk), bb, &zero, xb));
        /* the blocks still to come less block column blk times x_b: below it (L) or above it (U) */
        int r0 = side ? 0 : b0 + bs, rows = side ? b0 : n - b0 - bs;
        if (rows == 0) continue;
        ps__vec rest = {b.buf, b.off + (size_t)r0 * (size_t)b.inc, b.inc};
        PS__TRY(ps__refine(be)->gemv_mixed(be, rows, bs, -1.0, ps__mat_at(lu, r0, b0), xb, rest));
    }
    return PS_SUCCESS;
}

ps_status ps__trsv_blocked_solve(ps_context *ctx, const ps__trsv_blocked *t, ps__uplo uplo,
                                 ps__mat lu, ps__vec b, ps__vec x) {
    ps__backend *be = &ctx->be;
    /* The factors and the inverses are fixed while the chain runs, so each product may load its
     * block before the one ahead of it has finished (read_only_matrices). On CUDA at n = 32768
     * an application is 62 products of 10-90 us with 1.7-1.9 us idle between them (H100); so
     * launched, GMRES-IR's 60 Arnoldi steps took 215 ms against 227 (H200). */
    PS__TRY(ps__refine(be)->read_only_matrices(be, 1));
    ps_status st = solve_chain(be, t, uplo == PS__UPPER, lu, b, x);
    ps_status off = ps__refine(be)->read_only_matrices(be, 0);
    return st != PS_SUCCESS ? st : off;
}
