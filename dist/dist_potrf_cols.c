/*
 * Lower Cholesky on grids of one process row (1 x P), every step on the devices. Step k, block
 * column K of width jb on process column pc: pc factors the diagonal block (the context's potrf),
 * solves the block column below it (trsm), packs it and broadcasts it along the row; every rank
 * then updates its trailing block columns against it, SYRK on the diagonal block and GEMM below,
 * never touching the upper triangle. With two lanes, look-ahead as in LU (dist_getrf_cols.c): the
 * next block column's holder updates it first and factors and broadcasts it on lane 1 while lane 0
 * updates the rest. The verdict stays on the device until the end: after a minor that is not
 * positive definite the later diagonal blocks are skipped, the first one's order is reported, and
 * the columns from its block on are left unspecified.
 */
#include "chol/chol.h"
#include "dist_staged.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    ps__dist_steps s; /* the first failure, and the lanes: 2 with look-ahead */
    ps__dist_mat *a;
    int nb, upto; /* the steps update the local columns up to upto */
    void *info;   /* device int32: the first failing minor's order among this rank's blocks */
    void *pan[2]; /* device: the broadcast block columns, by step parity */
} cols_chol;

static int width(const cols_chol *w, int k) {
    return w->a->r.n - k < w->nb ? w->a->r.n - k : w->nb;
}

/* L(k + jb.., k..k + jb) as this rank uses it: in place on its holder, else the broadcast copy. */
static ps__mat l_view(const cols_chol *w, int k) {
    const ps__dist_mat *a = w->a;
    int jb = width(w, k);
    if (w->s.g->mycol == ps__cyclic_owner(&a->c, k))
        return ps__mat_at(a->m, k + jb, ps__cyclic_local(&a->c, k));
    return (ps__mat){w->pan[k / w->nb % 2], 0, a->r.n - k - jb};
}

/* Block column k: the diagonal block and the column below it on pc, then on every rank. */
static void factor_column(cols_chol *w, int k) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int n = a->r.n, jb = width(w, k), below = n - k - jb, pc = ps__cyclic_owner(&a->c, k);
    ps__mat pack = {w->pan[k / w->nb % 2], 0, below > 0 ? below : 1};
    if (g->mycol == pc && w->s.st == PS_SUCCESS) {
        ps__mat d = ps__mat_at(a->m, k, ps__cyclic_local(&a->c, k));
        ps__scalar one = ps__scalar_of(a->dt, 1.0);
        ps__dist_note(&w->s, ps__potrf_recursive(g->ctx, a->dt, PS__LOWER, jb, d, w->info, k));
        if (w->s.st == PS_SUCCESS && below > 0)
            ps__dist_note(&w->s,
                          be->ops->trsm(be, a->dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT,
                                        below, jb, &one, d, ps__mat_at(d, jb, 0)));
        if (g->npcol > 1 && w->s.st == PS_SUCCESS && below > 0)
            ps__dist_note(&w->s, be->ops->copy2d(be, a->dt, below, jb, ps__mat_at(d, jb, 0), pack));
    }
    /* a rank that failed still takes part */
    if (below > 0)
        ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, a->dt, pack.buf, 0,
                                             (size_t)below * jb, w->s.lane));
}

/* This rank's local block columns [c0, c1) right of block column K, against L(k + jb.., K). */
static void update(cols_chol *w, int k, int c0, int c1) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    int n = a->r.n, jb = width(w, k);
    ps__mat l = l_view(w, k);
    for (int c = c0; c < c1 && w->s.st == PS_SUCCESS;) {
        int gj = ps__cyclic_global(&a->c, c, g->mycol);
        int wj = w->nb - gj % w->nb; /* to the end of this block column */
        if (wj > c1 - c) wj = c1 - c;
        ps__mat lj = ps__mat_at(l, gj - k - jb, 0);
        ps__dist_note(&w->s, be->ops->syrk(be, dt, PS__LOWER, PS__NOTRANS, wj, jb, &minus_one, lj,
                                           &one, ps__mat_at(a->m, gj, c)));
        if (w->s.st == PS_SUCCESS && n - gj - wj > 0)
            ps__dist_note(&w->s, be->ops->gemm(be, dt, PS__NOTRANS, PS__TRANS, n - gj - wj, wj, jb,
                                               &minus_one, ps__mat_at(lj, wj, 0), lj, &one,
                                               ps__mat_at(a->m, gj + wj, c)));
        c += wj;
    }
}

/* The steps for the block columns [k0, k1). */
static void steps(void *arg, int k0, int k1) {
    cols_chol *w = arg;
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    if (k0 >= k1) return;
    ps__dist_use_lane(&w->s, 1);
    factor_column(w, k0);
    for (int k = k0; k < k1; k += w->nb) {
        int jb = width(w, k), next = k + jb, right = ps__cyclic_below(&a->c, next, g->mycol);
        int ahead = 0;
        /* one agreement a step, before its exchanges */
        w->s.st = ps__dist_agree(g, w->s.st);
        if (w->s.st != PS_SUCCESS) break;
        ps__dist_lane_wait(&w->s, 0, 1);
        if (k > k0) ps__dist_steps_done(&w->s, k);
        if (next < k1) {
            if (g->mycol == ps__cyclic_owner(&a->c, next)) ahead = width(w, next);
            if (ahead > w->upto - right) ahead = w->upto - right;
            ps__dist_lane_wait(&w->s, 1, 0);
            ps__dist_use_lane(&w->s, 1);
            update(w, k, right, right + ahead);
            factor_column(w, next);
        }
        ps__dist_use_lane(&w->s, 0);
        update(w, k, right + ahead, w->upto);
    }
    ps__dist_lanes_join(&w->s);
    if (k1 == a->r.n) ps__dist_steps_done(&w->s, k1);
}

/* Broadcasts block column k's L below its diagonal block again, as its holder has it. */
static void rebroadcast(void *arg, int k) {
    cols_chol *w = arg;
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int jb = width(w, k), below = a->r.n - k - jb, pc = ps__cyclic_owner(&a->c, k);
    ps__mat pack = {w->pan[k / w->nb % 2], 0, below > 0 ? below : 1};
    if (g->npcol == 1 || below <= 0) return;
    if (g->mycol == pc && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->copy2d(be, a->dt, below, jb, l_view(w, k), pack));
    ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, a->dt, pack.buf, 0,
                                         (size_t)below * jb, w->s.lane));
}

static void update_columns(void *w, int k, int c0, int c1) {
    update(w, k, c0, c1);
}

/* Brings the local columns from upto to those below the global column g1 up to date with the
 * block columns [0, f), factored. */
static void catch_up(void *arg, int f, int g1) {
    cols_chol *w = arg;
    int c0 = w->upto, c1 = ps__cyclic_below(&w->a->c, g1, w->s.g->mycol);
    w->upto = c1;
    ps__dist_catch_up(&w->s, w, f, w->nb, c0, c1, rebroadcast, update_columns);
}

/* Reserves what the steps need (agreed). */
static ps_status open_steps(cols_chol *w, ps_grid *g, ps__dist_mat *a) {
    ps__backend *be = &g->ctx->be;
    size_t es = ps__dtype_size(a->dt);
    int n = a->r.n, nb = a->c.nb;
    *w = (cols_chol){{.g = g, .lanes = 1}, a, nb, a->lcols, NULL, {NULL, NULL}};
    if (be->ops->lanes(be) > 1) w->s.lanes = 2;
    size_t panel_bytes = (size_t)(n > 0 ? n : 1) * (size_t)nb * es;
    int32_t zero = 0;
    ps_status st = ps__dev_alloc(g->ctx, 4, &w->info);
    if (st == PS_SUCCESS)
        st = be->ops->upload(be, PS__INT32, 1, 1, &zero, 1, (ps__mat){w->info, 0, 1});
    for (int i = 0; i < 2 && st == PS_SUCCESS && g->npcol > 1; i++)
        st = ps__dev_alloc(g->ctx, panel_bytes, &w->pan[i]);
    st = ps__dist_failed(g, st);
    if (st == PS_SUCCESS) st = ps__dist_reserve_stage(g, panel_bytes);
    return w->s.st = ps__dist_agree(g, st);
}

/* The verdict to every rank, the status agreed; releases what open_steps reserved. */
static ps_status close_steps(cols_chol *w, int *info) {
    ps_grid *g = w->s.g;
    ps_status st = ps__dist_first_info(&w->s, w->info, info);
    if (w->info) ps__dev_free(g->ctx, w->info);
    for (int i = 0; i < 2; i++)
        if (w->pan[i]) ps__dev_free(g->ctx, w->pan[i]);
    return st;
}

ps_status ps__dist_potrf_cols(ps_grid *g, ps__dist_mat *a, int *info) {
    cols_chol w;
    if (open_steps(&w, g, a) == PS_SUCCESS) steps(&w, 0, a->r.n);
    return close_steps(&w, info);
}

ps_status ps__dist_potrf_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f,
                                int *info) {
    cols_chol w;
    ps__dist_parts parts = {&w, &w.s, steps, catch_up, 1, PS__LOWER, 0, 1};
    if (open_steps(&w, g, a) == PS_SUCCESS) ps__dist_staged_run(g, a, host, lld, f, &parts);
    return close_steps(&w, info);
}
