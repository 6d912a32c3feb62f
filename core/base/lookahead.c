/* The look-ahead loop of the blocked factorizations (see lookahead.h). */
#include "base/lookahead.h"

static ps_status run_steps(ps_context *ctx, int k, int n, int nb,
                           const ps__lookahead_steps *steps) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    int split = 0;
    PS__TRY(ops->lanes_split(be, steps->algo, steps->dt, k, &split));
    PS__TRY(steps->panel(steps->arg, 0, k < nb ? k : nb));
    for (int j = 0; j < k; j += nb) {
        int jb = k - j < nb ? k - j : nb, next = j + jb;
        int nb2 = next < k ? (k - next < nb ? k - next : nb) : 0; /* the next panel's width */
        int rest0 = next + nb2;
        if (j > 0) PS__TRY(ops->lanes_split(be, steps->algo, steps->dt, k - j, &split));
        PS__TRY(ops->lane_wait(be, 0, 1));
        if (steps->finish) PS__TRY(steps->finish(steps->arg, j, jb));
        /* On split lanes lane 0 has most of the device, so it also updates the next block
         * column (a GEMM of nb columns) while lane 1 factors the panel. Lane 0 takes the row
         * swaps left of the panel (columns no other work touches) last, after its trailing
         * update, in time it would otherwise spend waiting for the next panel: lane 1's chain
         * is the longer one (on an H200 this made fp16x3 refinement 3% faster; before the next
         * block column's update the swaps held lane 1 back). */
        int next_on_0 = split && nb2 > 0;
        if (next_on_0) PS__TRY(steps->update(steps->arg, j, jb, next, rest0));
        if (nb2 > 0) {
            PS__TRY(ops->lane_wait(be, 1, 0));
            PS__TRY(ops->use_lane(be, 1));
            ps_status st = next_on_0 ? PS_SUCCESS : steps->update(steps->arg, j, jb, next, rest0);
            if (!st) st = steps->panel(steps->arg, next, nb2);
            PS__TRY(ops->use_lane(be, 0));
            PS__TRY(st);
        }
        /* the previous step's done here, queued after everything the next panel waits for */
        if (steps->done && j > 0) PS__TRY(steps->done(steps->arg, j - nb, nb));
        if (rest0 < n) PS__TRY(steps->update(steps->arg, j, jb, rest0, n));
        if (steps->left) PS__TRY(steps->left(steps->arg, j, jb));
    }
    if (steps->done) PS__TRY(steps->done(steps->arg, (k - 1) / nb * nb, k - (k - 1) / nb * nb));
    return ops->lane_wait(be, 0, 1);
}

ps_status ps__lookahead(ps_context *ctx, int k, int n, int nb, const ps__lookahead_steps *steps) {
    ps__backend *be = &ctx->be;
    if (k <= 0) return PS_SUCCESS;
    if (nb < 1) nb = k; /* one block: never loop on a step of zero */
    return ps__lanes_join_after(be, run_steps(ctx, k, n, nb, steps));
}

ps_status ps__lanes_join_after(ps__backend *be, ps_status st) {
    if (st) be->ops->use_lane(be, 0);
    ps_status joined = be->ops->lanes_join(be);
    return st ? st : joined;
}
