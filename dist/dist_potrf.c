/*
 * Right-looking Cholesky on the block-cyclic layout (ScaLAPACK's pdpotrf), lower or upper. Step
 * k: the rank holding the diagonal block factors it (the context's recursive potrf); the block
 * column below it (lower; upper: the block row right of it) is solved on its process column
 * (row) and then reaches every rank whole; every rank updates the blocks of its trailing triangle
 * with SYRK on diagonal blocks and GEMM elsewhere. The other triangle is never read or written.
 * With two lanes, look-ahead: each step updates the next block column (upper: block row) first,
 * and the next step's diagonal block and spread run on lane 1 while lane 0 updates the rest. The
 * verdict stays on the device until the end, as on one process row (dist_potrf_cols.c): after a
 * minor that is not positive definite the later diagonal blocks are skipped, the first one's order
 * is reported, and the blocks from its block on are left unspecified. The steps also run in
 * parts, for the host-array Cholesky that moves its triangle beside them (dist_staged.c): each
 * later piece of columns is brought up to date with the panels left of it (catch_up, upper only:
 * each panel's block row solved in the new columns and spread again), and each block column
 * (upper: block row) of the factor goes down once its step has made it final.
 */
#include "dist_staged.h"
#include "chol/chol.h"
#include "lu/lu.h"

#include <stdlib.h>

typedef struct {
    ps__dist_steps s; /* the first failure, and the lanes: 2 with look-ahead */
    /* device: the diagonal block; by step parity, the whole panel and the panel's part for this
     * rank's rows; one process's part of the panel on its way; the first failing minor's order
     * among this rank's diagonal blocks */
    ps__mat dw, pd[2], md[2];
    void *part, *info;
    int gupto; /* the global columns the steps solve and update stop here (the part that has
                  arrived) */
} workspace;

/* Which of the two panel buffers (pd, md) step k uses. */
static int parity(const ps__dist_mat *a, int k) {
    return k / a->r.nb % 2;
}

/* Lower: the block column below the diagonal solved, then L(k + jb.., k..k + jb) on every rank
 * (pd, count x jb) with this rank's rows of it in md: each process row of the panel's process
 * column sends its rows down the column, which assembles them, then the column sends the whole
 * along the process rows. */
static ps_status spread_column(ps_grid *g, ps__dist_mat *a, int k, int jb, workspace *w) {
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    int n = a->r.n, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    int count = n - k - jb, lc = ps__cyclic_local(&a->c, k);
    int r1 = ps__cyclic_below(&a->r, k + jb, g->myrow), rows = a->lrows - r1;
    ps__mat *pd = &w->pd[parity(a, k)], *md = &w->md[parity(a, k)];
    ps_status st = PS_SUCCESS;
    pd->ld = count;
    if (g->mycol == pc) {
        ps__mat d = ps__mat_at(a->m, ps__cyclic_below(&a->r, k, g->myrow), lc);
        ps__mat mine = ps__mat_at(a->m, r1, lc);
        st = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, jb, d, w->dw, w->s.lane);
        ps__scalar one = ps__scalar_of(dt, 1.0);
        if (st == PS_SUCCESS && rows > 0)
            st = ps__dist_failed(g,
                                 be->ops->trsm(be, dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT,
                                               rows, jb, &one, g->myrow == pr ? d : w->dw, mine));
        ps_status x =
            ps__dist_assemble(g, PS__DIST_COL, a, k + jb, n, jb, mine, w->part, 1, *pd, w->s.lane);
        if (st == PS_SUCCESS) st = x;
    }
    ps_status x = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, count, jb, *pd, *pd, w->s.lane);
    if (st == PS_SUCCESS) st = x;
    md->ld = rows > 0 ? rows : 1;
    if (st == PS_SUCCESS && rows > 0)
        st = ps__dist_failed(g, ps__dist_move_runs(be, dt, &a->r, g->myrow, r1, a->lrows, k + jb,
                                                   jb, 0, *md, *pd, 0));
    return st;
}

/* Upper: the block row right of the diagonal solved in the columns from g_lo on, then U(k..k +
 * jb, k + jb..) on every rank (pd, jb x count) with the columns for this rank's rows in md (jb x
 * rows), the same way along the process row, then down the columns; all up to the column
 * gupto. */
static ps_status spread_row(ps_grid *g, ps__dist_mat *a, int k, int jb, int g_lo, workspace *w) {
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    int n = w->gupto, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    int count = n - k - jb, r0 = ps__cyclic_below(&a->r, k, g->myrow);
    int c1 = ps__cyclic_below(&a->c, k + jb, g->mycol), cend = ps__cyclic_below(&a->c, n, g->mycol);
    int cs = ps__cyclic_below(&a->c, g_lo > k + jb ? g_lo : k + jb, g->mycol), cols = cend - cs;
    int r1 = ps__cyclic_below(&a->r, k + jb, g->myrow);
    int rows = ps__cyclic_below(&a->r, n, g->myrow) - r1;
    ps__mat *pd = &w->pd[parity(a, k)], *md = &w->md[parity(a, k)];
    ps_status st = PS_SUCCESS;
    pd->ld = jb;
    if (g->myrow == pr) {
        ps__mat d = ps__mat_at(a->m, r0, ps__cyclic_below(&a->c, k, g->mycol));
        ps__mat mine = ps__mat_at(a->m, r0, c1);
        st = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, jb, jb, d, w->dw, w->s.lane);
        ps__scalar one = ps__scalar_of(dt, 1.0);
        if (st == PS_SUCCESS && cols > 0)
            st = ps__dist_failed(
                g, be->ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT, jb, cols,
                                 &one, g->mycol == pc ? d : w->dw, ps__mat_at(a->m, r0, cs)));
        ps_status x =
            ps__dist_assemble(g, PS__DIST_ROW, a, k + jb, n, jb, mine, w->part, 1, *pd, w->s.lane);
        if (st == PS_SUCCESS) st = x;
    }
    ps_status x = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, count, *pd, *pd, w->s.lane);
    if (st == PS_SUCCESS) st = x;
    md->ld = jb;
    if (st == PS_SUCCESS && rows > 0)
        st = ps__dist_failed(g, ps__dist_move_runs(be, dt, &a->r, g->myrow, r1, r1 + rows, k + jb,
                                                   jb, 1, *md, *pd, 0));
    return st;
}

/* The trailing triangle, each local block column from k + jb (and g_lo) up to gupto, against
 * the spread panel: with next set only the blocks the next step's panel reads (lower: its block
 * column; upper: its block row), else the others. */
static void update(ps__dist_mat *a, ps__uplo uplo, int k, int jb, int g_lo, int next_panel,
                   workspace *w) {
    ps_grid *g = w->s.g;
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__mat pd = w->pd[parity(a, k)], md = w->md[parity(a, k)];
    int nb = a->c.nb, next = k + jb, r1 = ps__cyclic_below(&a->r, next, g->myrow);
    /* upper: the next block row's local rows [r1, r1 + nr) */
    int end = next + nb < a->r.n ? next + nb : a->r.n;
    int nr =
        ps__cyclic_owner(&a->r, next) == g->myrow ? ps__cyclic_below(&a->r, end, g->myrow) - r1 : 0;
    int cend = ps__cyclic_below(&a->c, w->gupto, g->mycol);
    for (int c = ps__cyclic_below(&a->c, g_lo > next ? g_lo : next, g->mycol);
         c < cend && w->s.st == PS_SUCCESS; c += nb) {
        int gj = ps__cyclic_global(&a->c, c, g->mycol), wj = cend - c < nb ? cend - c : nb;
        int p = gj - next, own = ps__cyclic_owner(&a->r, gj) == g->myrow;
        int rd = ps__cyclic_below(&a->r, gj, g->myrow); /* the diagonal block's first local row */
        if (uplo == PS__LOWER) {
            /* the next block column is this rank's first local one right of the panel, if any */
            if ((gj == next) != next_panel) continue;
            ps__mat cj = ps__mat_at(pd, p, 0);
            int rows = a->lrows - rd, skip = own ? wj : 0;
            if (own)
                ps__dist_note(&w->s, be->ops->syrk(be, dt, PS__LOWER, PS__NOTRANS, wj, jb,
                                                   &minus_one, cj, &one, ps__mat_at(a->m, rd, c)));
            if (w->s.st == PS_SUCCESS && rows > skip)
                ps__dist_note(&w->s,
                              be->ops->gemm(be, dt, PS__NOTRANS, PS__TRANS, rows - skip, wj, jb,
                                            &minus_one, ps__mat_at(md, rd + skip - r1, 0), cj, &one,
                                            ps__mat_at(a->m, rd + skip, c)));
        } else {
            /* rows [r1, rd) above the diagonal block, the next block row's first */
            int lo = next_panel ? r1 : r1 + nr, hi = next_panel ? r1 + nr : rd;
            if (hi > rd) hi = rd;
            ps__mat cj = ps__mat_at(pd, 0, p);
            if (hi > lo)
                ps__dist_note(&w->s, be->ops->gemm(be, dt, PS__TRANS, PS__NOTRANS, hi - lo, wj, jb,
                                                   &minus_one, ps__mat_at(md, 0, lo - r1), cj, &one,
                                                   ps__mat_at(a->m, lo, c)));
            if (w->s.st == PS_SUCCESS && own && (gj == next) == next_panel)
                ps__dist_note(&w->s, be->ops->syrk(be, dt, PS__UPPER, PS__TRANS, wj, jb, &minus_one,
                                                   cj, &one, ps__mat_at(a->m, rd, c)));
        }
    }
}

/* Step k's diagonal block factored on its rank and its block column (row) spread, on the
 * current lane. */
static void panel(ps__dist_mat *a, ps__uplo uplo, int k, int jb, workspace *w) {
    ps_grid *g = w->s.g;
    int n = a->r.n;
    if (w->s.st == PS_SUCCESS && g->myrow == ps__cyclic_owner(&a->r, k) &&
        g->mycol == ps__cyclic_owner(&a->c, k)) {
        ps__mat d = ps__mat_at(a->m, ps__cyclic_local(&a->r, k), ps__cyclic_local(&a->c, k));
        ps__dist_note(&w->s, ps__potrf_recursive(g->ctx, a->dt, uplo, jb, d, w->info, k));
    }
    /* a rank that failed still takes part */
    if (k + jb < n)
        ps__dist_keep(&w->s, uplo == PS__LOWER ? spread_column(g, a, k, jb, w)
                                               : spread_row(g, a, k, jb, k + jb, w));
}

/* The steps of a grid of several process rows and what they reserve. */
typedef struct {
    workspace w;
    ps__dist_mat *a;
    ps__uplo uplo;
} grid_chol;

/* Reserves what the steps need (agreed: every rank returns the same status). */
static ps_status open_steps(grid_chol *c, ps_grid *g, ps__dist_mat *a, ps__uplo uplo) {
    ps__backend *be = &g->ctx->be;
    size_t es = ps__dtype_size(a->dt);
    int n = a->r.n, nb = a->r.nb, lrows = a->lrows > 0 ? a->lrows : 1;
    *c = (grid_chol){.a = a, .uplo = uplo};
    workspace *w = &c->w;
    w->dw.ld = nb;
    w->gupto = n;
    w->s = (ps__dist_steps){.g = g, .lanes = be->ops->lanes(be) > 1 ? 2 : 1};
    /* the largest part of the panel one process holds: its rows (lower) or columns (upper) */
    int part = 1;
    for (int p = 0; p < g->nprow; p++)
        if (ps__cyclic_below(&a->r, n, p) > part) part = ps__cyclic_below(&a->r, n, p);
    for (int q = 0; q < g->npcol; q++)
        if (ps__cyclic_below(&a->c, n, q) > part) part = ps__cyclic_below(&a->c, n, q);
    size_t most = (size_t)(n > 0 ? n : 1) * nb;
    ps_status st = ps__dist_reserve_stage(g, most * es);
    void **dev[] = {&w->dw.buf,    &w->pd[0].buf, &w->pd[1].buf, &w->md[0].buf,
                    &w->md[1].buf, &w->part,      &w->info};
    size_t bytes[] = {(size_t)nb * nb * es,
                      most * es,
                      most * es,
                      (size_t)lrows * nb * es,
                      (size_t)lrows * nb * es,
                      (size_t)part * nb * es,
                      sizeof(int32_t)};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0] && st == PS_SUCCESS; i++)
        st = ps__dist_failed(g, ps__dev_alloc(g->ctx, bytes[i], dev[i]));
    if (st == PS_SUCCESS) st = ps__dist_failed(g, ps__zero_info(g->ctx, w->info));
    return w->s.st = ps__dist_agree(g, st);
}

/* The steps of the panels [k0, k1) (multiples of nb, or n; k1 is gupto). Each step reports its
 * panel's columns (lower) or rows (upper) final (s.done) once the next step's update has waited
 * for the panel. */
static void steps(void *arg, int k0, int k1) {
    grid_chol *c = arg;
    workspace *w = &c->w;
    ps_grid *g = w->s.g;
    ps__dist_mat *a = c->a;
    int n = a->r.n, nb = a->r.nb;
    if (k0 >= k1) return;
    if (w->s.st == PS_SUCCESS) {
        ps__dist_use_lane(&w->s, 1);
        panel(a, c->uplo, k0, n - k0 < nb ? n - k0 : nb, w);
    }
    for (int k = k0; k < k1; k += nb) {
        int jb = n - k < nb ? n - k : nb, next = k + jb;
        /* one agreement a step, before its exchanges */
        w->s.st = ps__dist_agree(g, w->s.st);
        if (w->s.st != PS_SUCCESS || next >= k1) break;
        ps__dist_lane_wait(&w->s, 0, 1); /* panel k has been spread */
        ps__dist_use_lane(&w->s, 0);
        ps__dist_steps_done(&w->s, next);
        update(a, c->uplo, k, jb, next, 1, w);
        ps__dist_lane_wait(&w->s, 1, 0);
        update(a, c->uplo, k, jb, next, 0, w);
        ps__dist_use_lane(&w->s, 1);
        panel(a, c->uplo, next, n - next < nb ? n - next : nb, w);
    }
    ps__dist_lanes_join(&w->s);
    if (k1 == n) ps__dist_steps_done(&w->s, n);
}

/* Upper: panel k's block row solved in the new columns from g_lo, spread again and the new
 * columns updated with it. (Lower goes up whole: ps__dist_potrf_grid_staged.) */
static void apply_panel(void *arg, int k, int g_lo, int g1) {
    grid_chol *c = arg;
    workspace *w = &c->w;
    ps__dist_mat *a = c->a;
    int jb = a->r.n - k < a->r.nb ? a->r.n - k : a->r.nb;
    (void)g1; /* w->gupto */
    ps__dist_keep(&w->s, spread_row(w->s.g, a, k, jb, g_lo, w));
    update(a, c->uplo, k, jb, g_lo, 1, w);
    update(a, c->uplo, k, jb, g_lo, 0, w);
}

/* Brings the global columns from gupto to g1 up to date with the panels [0, f), already
 * factored; gupto becomes g1. */
static void catch_up(void *arg, int f, int g1) {
    grid_chol *c = arg;
    int g_lo = c->w.gupto;
    c->w.gupto = g1;
    ps__dist_catch_up(&c->w.s, c, f, c->a->r.nb, g_lo, g1, NULL, apply_panel);
}

/* The first failing minor to every rank, the status agreed; releases what open_steps reserved. */
static ps_status close_steps(grid_chol *c, int *info) {
    workspace *w = &c->w;
    ps_status st = ps__dist_first_info(&w->s, w->info, info);
    void *dev[] = {w->dw.buf,    w->pd[0].buf, w->pd[1].buf, w->md[0].buf,
                   w->md[1].buf, w->part,      w->info};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) ps__dev_free(w->s.g->ctx, dev[i]);
    return st;
}

ps_status ps__dist_potrf(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, int *info) {
    if (g->nprow == 1)
        return uplo == PS__LOWER ? ps__dist_potrf_cols(g, a, info)
                                 : ps__dist_potrf_cols_upper(g, a, info);
    grid_chol c;
    if (open_steps(&c, g, a, uplo) == PS_SUCCESS) steps(&c, 0, a->r.n);
    return close_steps(&c, info);
}

ps_status ps__dist_potrf_grid_staged(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, void *host,
                                     int lld, int f, int *info) {
    grid_chol c;
    /* lower: a block column is final once its panel is; upper: a block row, and the rest's rows
     * above f once it has caught up */
    ps__dist_parts parts = {
        &c, &c.w.s, steps, catch_up, 1, uplo, uplo == PS__UPPER, uplo == PS__LOWER};
    if (open_steps(&c, g, a, uplo) == PS_SUCCESS) {
        c.w.gupto = 0; /* the columns arrive in pieces */
        /* The lower triangle's first quarter of columns holds 7/16 of it: its pieces start the
         * work no sooner, and the catch-up's spreads cost what they save (docs/DIST.md), so it
         * goes up whole (f = 0: the last piece is everything) and only comes down in pieces. */
        ps__dist_staged_run(g, a, host, lld, uplo == PS__LOWER ? 0 : f, &parts);
    }
    return close_steps(&c, info);
}
