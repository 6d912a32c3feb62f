/*
 * LU on grids of one process row (1 x P, the layout for the GPUs of one host), every step on the
 * devices. Step k, block column K of width jb, held by process column pc:
 *   1. pc factors the panel in place with the context's panel factorization (core/lu), packs
 *      rows k.. of it and broadcasts them with its pivots along the row (peer transport, or MPI
 *      through the host);
 *   2. every rank applies the interchanges to its columns right of the panel, solves for its part
 *      of U's block row (trsm) and updates its trailing columns with one GEMM; the interchanges of
 *      the columns left of the panel come after, off the critical path.
 * With two lanes, look-ahead: on lane 1 the next panel's holder updates that block column first,
 * factors and broadcasts it while lane 0 updates the rest, as core/base/lookahead.c does on one
 * device (through MPI the broadcast's host transfers wait for lane 0, which costs the overlap
 * but keeps the order). Pivots and info stay on the device until the end. The steps also run in
 * parts, for the host-array LU that moves its columns beside them (dist_getrf_staged.c).
 */
#include "dist_lu_cols.h"
#include "lu/lu.h"

static int width(const ps__cols_lu *w, int k) {
    return w->kmax - k < w->nb ? w->kmax - k : w->nb;
}

/* The rows k.. of block column K as this rank uses them: in place on its holder, else the
 * broadcast copy. */
static ps__mat l_view(const ps__cols_lu *w, int k) {
    const ps__dist_mat *a = w->a;
    if (w->s.g->mycol == ps__cyclic_owner(&a->c, k))
        return ps__mat_at(a->m, k, ps__cyclic_local(&a->c, k));
    return (ps__mat){w->pan[k / w->nb % 2], 0, a->r.n - k};
}

/* Step 1 for block column k: factored on its holder, then on every rank of the row. */
static void panel(ps__cols_lu *w, int k) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int m = a->r.n, jb = width(w, k), pc = ps__cyclic_owner(&a->c, k);
    int mine = g->mycol == pc, lc = ps__cyclic_local(&a->c, k);
    ps__mat pack = {w->pan[k / w->nb % 2], 0, m - k};
    if (mine && w->s.st == PS_SUCCESS) {
        ps__mat whole = ps__mat_global_columns(ps__mat_at(a->m, 0, lc), k);
        ps__dist_note(&w->s, ps__lu_panel(g->ctx, a->dt, m, whole, k, jb, w->ipiv, w->info));
        if (g->npcol > 1 && w->s.st == PS_SUCCESS)
            ps__dist_note(&w->s,
                          be->ops->copy2d(be, a->dt, m - k, jb, ps__mat_at(a->m, k, lc), pack));
    }
    /* a rank that failed still takes part */
    ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, a->dt, pack.buf, 0,
                                         (size_t)(m - k) * jb, w->s.lane));
    ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, PS__INT32, w->ipiv, (size_t)k,
                                         (size_t)jb, w->s.lane));
}

/* Step 2 for block column k on this rank's local columns [c0, c1) right of it (swap: with its
 * interchanges first). */
static void apply(ps__cols_lu *w, int k, int c0, int c1, int swap) {
    ps__backend *be = &w->s.g->ctx->be;
    ps__dist_mat *a = w->a;
    ps__dtype dt = a->dt;
    int m = a->r.n, jb = width(w, k), cols = c1 - c0;
    if (cols <= 0 || w->s.st != PS_SUCCESS) return;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__mat l = l_view(w, k), top = ps__mat_at(a->m, k, c0);
    if (swap)
        ps__dist_note(&w->s, be->ops->laswp(be, dt, cols, ps__mat_at(a->m, 0, c0), k, k + jb,
                                            w->ipiv, (size_t)k, 1));
    if (w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, jb,
                                           cols, &one, l, top));
    if (w->s.st == PS_SUCCESS && m - k - jb > 0)
        ps__dist_note(&w->s, be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m - k - jb, cols, jb,
                                           &minus_one, ps__mat_at(l, jb, 0), top, &one,
                                           ps__mat_at(a->m, k + jb, c0)));
}

/* The panel's lane on SMs of its own (core/base/lookahead.c) on the rank that factors the next
 * panel, while the trailing order is small enough; the other ranks keep the whole device for their
 * update. Not with NCCL between several ranks: there it runs correctly but gained nothing on two
 * H200s (docs/DIST.md, what was tried). Returns whether the lanes are split now. */
static int split_lanes(ps__cols_lu *w, int k, int holder) {
    ps_grid *g = w->s.g;
    ps__backend *be = &g->ctx->be;
    int split = 0;
    if (w->s.lanes < 2 || w->s.st != PS_SUCCESS || (g->npcol > 1 && ps__dist_peers(g))) return 0;
    if (holder)
        ps__dist_note(&w->s, be->ops->lanes_split(be, PS__ALGO_LU, w->a->dt, w->kmax - k, &split));
    else
        ps__dist_note(&w->s, be->ops->lanes_join(be));
    return split;
}

void ps__cols_lu_steps(ps__cols_lu *w, int k0, int k1) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int split = 0;
    if (k0 >= k1) return;
    ps__dist_use_lane(&w->s, 1);
    panel(w, k0);
    for (int k = k0; k < k1; k += w->nb) {
        int jb = width(w, k), next = k + jb, right = ps__cyclic_below(&a->c, next, g->mycol);
        int ahead = 0;
        /* one agreement a step, before its exchanges */
        w->s.st = ps__dist_agree(g, w->s.st);
        if (w->s.st != PS_SUCCESS) break;
        split = split_lanes(w, k, next < k1 && g->mycol == ps__cyclic_owner(&a->c, next));
        ps__dist_lane_wait(&w->s, 0, 1);
        if (k > k0) ps__dist_steps_done(&w->s, k);
        if (next < k1) {
            if (g->mycol == ps__cyclic_owner(&a->c, next)) {
                ahead = a->c.n - next < w->nb ? a->c.n - next : w->nb;
                if (ahead > w->upto - right) ahead = w->upto - right;
            }
            /* split, lane 0 has most of the device: it updates the next block column first */
            ps__dist_use_lane(&w->s, 0);
            if (split) apply(w, k, right, right + ahead, 1);
            ps__dist_lane_wait(&w->s, 1, 0);
            ps__dist_use_lane(&w->s, 1);
            if (!split) apply(w, k, right, right + ahead, 1);
            panel(w, next);
        }
        ps__dist_use_lane(&w->s, 0);
        apply(w, k, right + ahead, w->upto, 1);
        int left = ps__cyclic_below(&a->c, k, g->mycol);
        if (left > 0 && w->s.st == PS_SUCCESS)
            ps__dist_note(&w->s,
                          be->ops->laswp(be, a->dt, left, a->m, k, k + jb, w->ipiv, (size_t)k, 1));
    }
    ps__dist_lanes_join(&w->s);
    if (k1 == w->kmax) ps__dist_steps_done(&w->s, a->r.n); /* its rows below kmax too */
}

/* Broadcasts the factored panel k again (rows k.. as its holder has them now). */
static void rebroadcast(void *arg, int k) {
    ps__cols_lu *w = arg;
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int m = a->r.n, jb = width(w, k), pc = ps__cyclic_owner(&a->c, k);
    ps__mat pack = {w->pan[k / w->nb % 2], 0, m - k};
    if (g->npcol == 1) return;
    if (g->mycol == pc && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s,
                      be->ops->copy2d(be, a->dt, m - k, jb,
                                      ps__mat_at(a->m, k, ps__cyclic_local(&a->c, k)), pack));
    ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, a->dt, pack.buf, 0,
                                         (size_t)(m - k) * jb, w->s.lane));
}

/* Panel k's U block row and update on the columns [c0, c1), its interchanges already there. */
static void apply_swapped(void *w, int k, int c0, int c1) {
    apply(w, k, c0, c1, 0);
}

void ps__cols_lu_catch_up(ps__cols_lu *w, int f, int g1) {
    ps__backend *be = &w->s.g->ctx->be;
    ps__dist_mat *a = w->a;
    int c0 = w->upto, c1 = ps__cyclic_below(&a->c, g1, w->s.g->mycol);
    w->upto = c1;
    /* all the panels' interchanges first: the L they left has every one of them applied */
    if (c1 > c0 && f > 0 && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->laswp(be, a->dt, c1 - c0, ps__mat_at(a->m, 0, c0), 0, f,
                                            w->ipiv, 0, 1));
    ps__dist_catch_up(&w->s, w, f, w->nb, c0, c1, rebroadcast, apply_swapped);
}

ps_status ps__cols_lu_open(ps__cols_lu *w, ps_grid *g, ps__dist_mat *a) {
    ps__backend *be = &g->ctx->be;
    size_t es = ps__dtype_size(a->dt);
    int m = a->r.n, n = a->c.n;
    *w = (ps__cols_lu){{.g = g, .lanes = 1}, a, m < n ? m : n, a->c.nb, a->lcols, NULL, NULL,
                       {NULL, NULL}};
    if (be->ops->lanes(be) > 1) w->s.lanes = 2;
    size_t panel_bytes = (size_t)(m > 0 ? m : 1) * (size_t)w->nb * es;
    ps_status st = ps__dev_alloc(g->ctx, (size_t)(w->kmax > 0 ? w->kmax : 1) * 4, &w->ipiv);
    if (st == PS_SUCCESS) st = ps__dev_alloc(g->ctx, 4, &w->info);
    if (st == PS_SUCCESS) st = ps__zero_info(g->ctx, w->info);
    for (int i = 0; i < 2 && st == PS_SUCCESS && g->npcol > 1; i++)
        st = ps__dev_alloc(g->ctx, panel_bytes, &w->pan[i]);
    st = ps__dist_failed(g, st);
    if (st == PS_SUCCESS) st = ps__dist_reserve_stage(g, panel_bytes);
    return w->s.st = ps__dist_agree(g, st);
}

ps_status ps__cols_lu_close(ps__cols_lu *w, int *piv, int *info) {
    ps_grid *g = w->s.g;
    ps__backend *be = &g->ctx->be;
    /* the pivots and the first zero pivot, the same on every rank */
    if (w->s.st == PS_SUCCESS && w->kmax > 0)
        ps__dist_note(&w->s, be->ops->download(be, PS__INT32, w->kmax, 1,
                                               (ps__mat){w->ipiv, 0, w->kmax}, piv, w->kmax));
    ps_status st = ps__dist_first_info(&w->s, w->info, info);
    for (int i = 0; i < 2; i++)
        if (w->pan[i]) ps__dev_free(g->ctx, w->pan[i]);
    if (w->ipiv) ps__dev_free(g->ctx, w->ipiv);
    if (w->info) ps__dev_free(g->ctx, w->info);
    *w = (ps__cols_lu){0};
    return st;
}

ps_status ps__dist_getrf_cols(ps_grid *g, ps__dist_mat *a, int *piv, int *info) {
    ps__cols_lu w;
    if (ps__cols_lu_open(&w, g, a) == PS_SUCCESS) ps__cols_lu_steps(&w, 0, w.kmax);
    return ps__cols_lu_close(&w, piv, info);
}
