/*
 * Right-looking LU with partial pivoting on the block-cyclic layout (ScaLAPACK's pdgetrf). Step
 * k, block column K of width jb:
 *   1. the process column holding K assembles the panel rows k.. on the device of the rank
 *      holding the diagonal block, which factors them (the context's panel factorization) and
 *      sends them back;
 *   2. the pivots go to every rank, which applies them to its columns outside the panel;
 *   3. the panel goes along the process rows, the diagonal block's process row solves for its
 *      block row of U and sends it down the process columns;
 *   4. every rank updates its part of the trailing matrix with one GEMM.
 * With two lanes, look-ahead: the next block column is updated first on lane 0, and its panel
 * (step 1, whose pivots the host needs) runs on lane 1 while lane 0 updates the rest. Each step
 * starts with an agreement on the status, so a failure on one rank ends the call on all. The
 * steps also run in parts, for the host-array LU that moves its columns beside them
 * (dist_staged.c): each later piece of columns is brought up to date with the panels left of it
 * (catch_up), and each block row of the factors goes down once its step has made it final.
 */
#include "dist_staged.h"
#include "lu/lu.h"

#include <stdlib.h>

/* The scratch of the panel steps: the assembled panel (m x nb), a process row's part of it
 * (LOCr x nb), the panel's pivots and zero-pivot word (device int32), and the verdict sent to
 * every rank ({status, info, pivots}). */
typedef struct {
    void *w, *part, *ipiv, *info;
    int *word;
    int zero_seen; /* this rank's info already reported */
} panel_scratch;

/* The panel at step k on the devices, on the current lane of s: every process row sends its
 * rows of it down the process column, the diagonal block's rank assembles them in global order
 * and factors them with the context's panel factorization, the factored panel goes back down the
 * column and every rank takes its rows. The pivots (0-based global rows) into piv and the first
 * zero pivot into *info, on every rank; ps->info (zero at the start) keeps this rank's first. */
static ps_status factor_panel(ps__dist_steps *s, ps__dist_mat *a, int k, int jb, panel_scratch *ps,
                              int *piv, int *info) {
    ps_grid *g = s->g;
    ps__backend *be = &g->ctx->be;
    int m = a->r.n, mk = m - k, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    ps__mat v = ps__mat_at(a->m, ps__cyclic_below(&a->r, k, g->myrow), ps__cyclic_local(&a->c, k));
    ps__mat w = {ps->w, 0, mk};
    ps_status st = PS_SUCCESS;
    int *word = ps->word;
    word[0] = PS_SUCCESS, word[1] = 0;
    if (g->mycol == pc) {
        st = ps__dist_assemble(g, PS__DIST_COL, a, k, m, jb, v, ps->part, g->myrow == pr, w,
                               s->lane);
        if (g->myrow == pr && st == PS_SUCCESS) {
            int32_t zero = 0;
            ps__vec pv = {ps->ipiv, 0, 1}, iv = {ps->info, 0, 1};
            /* the pivots read on this lane only, while the other one updates */
            st = ps__lu_panel(g->ctx, a->dt, mk, w, 0, jb, ps->ipiv, ps->info);
            if (st == PS_SUCCESS) st = be->ops->fetch_start(be, PS__INT32, 0, jb, pv);
            if (st == PS_SUCCESS) st = be->ops->fetch_start(be, PS__INT32, 1, 1, iv);
            if (st == PS_SUCCESS) st = be->ops->fetch_wait(be, PS__INT32, 0, jb, pv, word + 2);
            if (st == PS_SUCCESS) st = be->ops->fetch_wait(be, PS__INT32, 1, 1, iv, &zero);
            if (st != PS_SUCCESS)
                st = ps__dist_fail(g, st, "rank %d: the panel at column %d: %s", g->rank, k + 1,
                                   ps_context_last_error(g->ctx));
            if (zero > 0 && !ps->zero_seen) word[1] = k + zero, ps->zero_seen = 1;
            for (int i = 0; i < jb; i++) word[2 + i] += k;
        }
        if (g->myrow == pr) word[0] = (int)st;
    }
    MPI_Bcast(word, jb + 2, MPI_INT, pr * g->npcol + pc, g->all);
    if (g->mycol == pc && word[0] == PS_SUCCESS) {
        ps_status x = ps__dist_bcast(g, PS__DIST_COL, pr, a->dt, mk, jb, w, w, s->lane);
        if (st == PS_SUCCESS) st = x;
        if (st == PS_SUCCESS)
            st = ps__dist_failed(g, ps__dist_move_runs(be, a->dt, &a->r, g->myrow,
                                                       ps__cyclic_below(&a->r, k, g->myrow),
                                                       a->lrows, k, jb, 0, v, w, 0));
    }
    /* after a failure on the root (which the step's agreement reports) no row moves */
    for (int i = 0; i < jb; i++) piv[i] = word[0] == PS_SUCCESS ? word[2 + i] : k + i;
    if (word[1] && !*info) *info = word[1];
    return st;
}

/* The steps of a grid of several process rows and what they reserve; piv and info are the
 * caller's (host). */
typedef struct {
    ps__dist_steps s;
    ps__dist_mat *a;
    int *piv, *info;
    ps__mat lw, uw; /* L's panel along the process row; U's block row down the column */
    panel_scratch ps;
    int upto; /* the local columns the steps swap and update stop here */
} grid_lu;

/* Reserves what the steps need (agreed: every rank returns the same status). */
static ps_status open_steps(grid_lu *w, ps_grid *g, ps__dist_mat *a, int *piv, int *info) {
    ps__backend *be = &g->ctx->be;
    size_t es = ps__dtype_size(a->dt);
    int m = a->r.n, nb = a->r.nb;
    int lrows = a->lrows > 0 ? a->lrows : 1, lcols = a->lcols > 0 ? a->lcols : 1, part_rows = 1;
    *w = (grid_lu){.s = {.g = g, .lanes = be->ops->lanes(be) > 1 ? 2 : 1},
                   .a = a,
                   .piv = piv,
                   .info = info,
                   .upto = a->lcols};
    for (int p = 0; p < g->nprow; p++)
        if (ps__cyclic_below(&a->r, m, p) > part_rows) part_rows = ps__cyclic_below(&a->r, m, p);
    size_t most = (size_t)(a->lrows + m) * (size_t)nb;
    if ((size_t)4 * nb * lcols > most) most = (size_t)4 * nb * lcols;
    if ((size_t)lrows * nb > most) most = (size_t)lrows * nb;
    ps_status st = ps__dist_reserve_stage(g, most * es);
    if (st == PS_SUCCESS) st = ps__dist_reserve_swaps(g, nb);
    if (st == PS_SUCCESS) {
        w->ps.word = malloc((size_t)(nb + 2) * sizeof *w->ps.word);
        if (!w->ps.word) st = ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    if (st == PS_SUCCESS) {
        ps_context *ctx = g->ctx;
        w->lw.ld = lrows, w->uw.ld = nb;
        st = ps__dev_alloc(ctx, (size_t)lrows * nb * es, &w->lw.buf);
        /* U's block row, and before it the interchanges' rows (ps__dist_swap_rows) */
        if (st == PS_SUCCESS)
            st = ps__dev_alloc(ctx, (size_t)4 * nb * (lcols + 1) * es, &w->uw.buf);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, (size_t)(m > 0 ? m : 1) * nb * es, &w->ps.w);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, (size_t)part_rows * nb * es, &w->ps.part);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, (size_t)nb * sizeof(int32_t), &w->ps.ipiv);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, sizeof(int32_t), &w->ps.info);
        st = ps__dist_failed(g, st);
    }
    if (st == PS_SUCCESS) st = ps__dist_failed(g, ps__zero_info(g->ctx, w->ps.info));
    return w->s.st = ps__dist_agree(g, st);
}

/* Panel k's L along the process rows and its block row of U in the local columns [c0, c1) (their
 * interchanges already there): solved on the diagonal block's process row, which makes the rows
 * above k + jb final in those columns (s.done), then sent down the process columns. The views this
 * rank updates its rows below with into l and u. Collective over the grid; every rank takes part,
 * also after a failure. */
static void row_of_u(grid_lu *w, int k, int jb, int c0, int c1, ps__mat *l, ps__mat *u) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    int pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k), cols = c1 - c0;
    int r0 = ps__cyclic_below(&a->r, k, g->myrow), lc = ps__cyclic_local(&a->c, k);
    ps__scalar one = ps__scalar_of(dt, 1.0);
    *l = g->mycol == pc ? ps__mat_at(a->m, r0, lc) : w->lw;
    ps__dist_keep(&w->s, ps__dist_bcast(g, PS__DIST_ROW, pc, dt, a->lrows - r0, jb,
                                        ps__mat_at(a->m, r0, lc), w->lw, 0));
    if (g->myrow == pr && cols > 0 && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, jb,
                                           cols, &one, *l, ps__mat_at(a->m, r0, c0)));
    ps__dist_steps_done(&w->s, k + jb);
    *u = g->myrow == pr ? ps__mat_at(a->m, r0, c0) : w->uw;
    ps__dist_keep(&w->s, ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, cols, ps__mat_at(a->m, r0, c0),
                                        w->uw, 0));
}

/* Rows below panel k of the local columns [c0, c0 + cols) (in u from column from) updated with l
 * and u, on the current lane. */
static void update(grid_lu *w, int k, int jb, ps__mat l, ps__mat u, int from, int c0, int cols) {
    ps__dist_mat *a = w->a;
    ps__backend *be = &w->s.g->ctx->be;
    int r0 = ps__cyclic_below(&a->r, k, w->s.g->myrow);
    int r1 = ps__cyclic_below(&a->r, k + jb, w->s.g->myrow), below = a->lrows - r1;
    ps__scalar one = ps__scalar_of(a->dt, 1.0), minus_one = ps__scalar_of(a->dt, -1.0);
    if (below > 0 && cols > 0 && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->gemm(be, a->dt, PS__NOTRANS, PS__NOTRANS, below, cols, jb,
                                           &minus_one, ps__mat_at(l, r1 - r0, 0),
                                           ps__mat_at(u, 0, from), &one, ps__mat_at(a->m, r1, c0)));
}

/* The catch-up's use of panel k on the local columns [c0, c1). */
static void apply_panel(void *arg, int k, int c0, int c1) {
    grid_lu *w = arg;
    int kmax = w->a->r.n < w->a->c.n ? w->a->r.n : w->a->c.n;
    int jb = kmax - k < w->a->r.nb ? kmax - k : w->a->r.nb;
    ps__mat l, u;
    row_of_u(w, k, jb, c0, c1, &l, &u);
    update(w, k, jb, l, u, 0, c0, c1 - c0);
}

/* The steps of the panels [k0, k1) (multiples of nb, or kmax), their interchanges and updates
 * on the local columns left of upto. Each reports the rows above its end final once its block
 * row of U is solved (row_of_u): its interchanges have reached every column and later steps
 * touch only rows below it. */
static void steps(void *arg, int k0, int k1) {
    grid_lu *w = arg;
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    int m = a->r.n, n = a->c.n, nb = a->r.nb, kmax = m < n ? m : n;
    int *piv = w->piv;
    if (k0 >= k1) return;
    if (w->s.st == PS_SUCCESS) {
        ps__dist_use_lane(&w->s, 1);
        ps__dist_keep(&w->s, factor_panel(&w->s, a, k0, kmax - k0 < nb ? kmax - k0 : nb, &w->ps,
                                          piv + k0, w->info));
    }
    for (int k = k0; k < k1; k += nb) {
        /* one agreement a step, before its exchanges */
        w->s.st = ps__dist_agree(g, w->s.st);
        if (w->s.st != PS_SUCCESS) break;
        int jb = kmax - k < nb ? kmax - k : nb, next = k + jb;
        int pc = ps__cyclic_owner(&a->c, k), lc = ps__cyclic_local(&a->c, k);
        ps__dist_lane_wait(&w->s, 0, 1); /* panel k is in place */
        ps__dist_use_lane(&w->s, 0);
        /* the interchanges on the columns outside the panel */
        int in_panel = g->mycol == pc;
        ps__dist_keep(&w->s, ps__dist_swap_rows(g, a, k, jb, piv + k, 0, w->upto, in_panel ? lc : 0,
                                                in_panel ? lc + jb : 0, 0, w->uw.buf));
        /* L along the process rows; U's block row down the process columns */
        int c1 = ps__cyclic_below(&a->c, next, g->mycol), right = w->upto - c1, ahead = 0;
        ps__mat lpanel, upanel;
        row_of_u(w, k, jb, c1, w->upto, &lpanel, &upanel);
        /* the trailing update: the next block column first, then its panel on lane 1 beside
         * the rest */
        if (next < k1 && g->mycol == ps__cyclic_owner(&a->c, next))
            ahead = n - next < nb ? n - next : nb;
        update(w, k, jb, lpanel, upanel, 0, c1, ahead);
        if (next < k1) ps__dist_lane_wait(&w->s, 1, 0);
        update(w, k, jb, lpanel, upanel, ahead, c1 + ahead, right - ahead);
        if (next < k1) {
            int jn = kmax - next < nb ? kmax - next : nb;
            ps__dist_use_lane(&w->s, 1);
            ps__dist_keep(&w->s, factor_panel(&w->s, a, next, jn, &w->ps, piv + next, w->info));
        }
    }
    ps__dist_lanes_join(&w->s);
    if (k1 == kmax) ps__dist_steps_done(&w->s, m); /* the rows below kmax too */
}

/* Brings the local columns from upto to those below the global column g1 up to date with the
 * panels [0, f), already factored: all their interchanges first (the L they left has every one
 * of them applied), then each panel's block row of U and update; upto becomes their end. */
static void catch_up(void *arg, int f, int g1) {
    grid_lu *w = arg;
    ps_grid *g = w->s.g;
    int c0 = w->upto, c1 = ps__cyclic_below(&w->a->c, g1, g->mycol), nb = w->a->r.nb;
    w->upto = c1;
    ps__dist_use_lane(&w->s, 0);
    for (int k = 0; k < f; k += nb) {
        int jb = f - k < nb ? f - k : nb;
        ps__dist_keep(&w->s,
                      ps__dist_swap_rows(g, w->a, k, jb, w->piv + k, c0, c1, 0, 0, 0, w->uw.buf));
    }
    ps__dist_catch_up(&w->s, w, f, nb, c0, c1, NULL, apply_panel);
}

/* The status agreed; releases what open_steps reserved. */
static ps_status close_steps(grid_lu *w) {
    ps_grid *g = w->s.g;
    ps_status st = ps__dist_agree(g, w->s.st);
    void *dev[] = {w->lw.buf, w->uw.buf, w->ps.w, w->ps.part, w->ps.ipiv, w->ps.info};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) ps__dev_free(g->ctx, dev[i]);
    free(w->ps.word);
    return st;
}

ps_status ps__dist_getrf(ps_grid *g, ps__dist_mat *a, int *piv, int *info) {
    if (g->nprow == 1) return ps__dist_getrf_cols(g, a, piv, info);
    grid_lu w;
    if (open_steps(&w, g, a, piv, info) == PS_SUCCESS)
        steps(&w, 0, a->r.n < a->c.n ? a->r.n : a->c.n);
    return close_steps(&w);
}

ps_status ps__dist_getrf_grid_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f,
                                     int *piv, int *info) {
    grid_lu w;
    ps__dist_parts parts = {&w, &w.s, steps, catch_up, 0, PS__LOWER, 1, 0};
    if (open_steps(&w, g, a, piv, info) == PS_SUCCESS) {
        w.upto = 0; /* the columns arrive in pieces */
        ps__dist_staged_run(g, a, host, lld, f, &parts);
    }
    return close_steps(&w);
}
