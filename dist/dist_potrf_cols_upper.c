/*
 * Upper Cholesky, A = U^T U, on grids of one process row (1 x P), every step on the devices.
 * Step k, block row K of width jb: the holder pc of block column K factors the diagonal block (the
 * context's recursive Cholesky) and broadcasts it; every rank solves its own columns of U's block
 * row right of it (trsm); the block row is gathered on every rank in column order (a broadcast
 * from each rank, then its blocks put in place; a grid of one rank uses it in place); every rank
 * updates its trailing block columns, GEMM above the diagonal block (against the gathered row) and
 * SYRK on it (against its own), never touching the lower triangle. With two lanes, look-ahead as in
 * the lower one (dist_potrf_cols.c): on lane 1 the next block column's holder solves that block
 * column's part of the row, updates its diagonal block, factors and broadcasts it while lane 0 does
 * the rest. The verdict stays on the device as in the lower one. The steps also run in parts, for
 * the host-array Cholesky that moves its columns beside them (dist_staged.c).
 */
#include "chol/chol.h"
#include "dist_staged.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    ps__dist_steps s; /* the first failure, and the lanes: 2 with look-ahead */
    ps__dist_mat *a;
    int nb, upto;        /* the steps update the global columns up to upto */
    void *info;          /* device int32: the first failing minor's order among this rank's */
    void *diag[2];       /* device: the broadcast diagonal blocks (ld nb), by step parity */
    ps__mat mine, whole; /* U's block row: by rank, each rank's columns in turn; in column order */
} upper_chol;

static int width(const upper_chol *w, int k) {
    return w->a->r.n - k < w->nb ? w->a->r.n - k : w->nb;
}

/* U(K, K) as this rank uses it: in place on its holder, else the broadcast copy. */
static ps__mat diag_view(const upper_chol *w, int k) {
    const ps__dist_mat *a = w->a;
    if (w->s.g->mycol == ps__cyclic_owner(&a->c, k))
        return ps__mat_at(a->m, k, ps__cyclic_local(&a->c, k));
    return (ps__mat){w->diag[k / w->nb % 2], 0, w->nb};
}

/* The factored diagonal block k from its holder to the row, where columns right of it need it. */
static void send_diag(upper_chol *w, int k) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int jb = width(w, k), pc = ps__cyclic_owner(&a->c, k);
    ps__mat copy = {w->diag[k / w->nb % 2], 0, w->nb};
    if (g->npcol == 1 || a->r.n - k - jb <= 0) return;
    if (g->mycol == pc && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->copy2d(be, a->dt, jb, jb, diag_view(w, k), copy));
    /* a rank that failed still takes part */
    ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, a->dt, copy.buf, 0,
                                         (size_t)w->nb * jb, w->s.lane));
}

/* Diagonal block k factored on its holder (its block column up to date), then sent. */
static void factor_diag(upper_chol *w, int k) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    if (g->mycol == ps__cyclic_owner(&a->c, k) && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, ps__potrf_recursive(g->ctx, a->dt, PS__UPPER, width(w, k),
                                                 diag_view(w, k), w->info, k));
    send_diag(w, k);
}

/* Block row k of this rank's local columns [c0, c1), right of block column K: U(K, K)^-T A. */
static void solve_row(upper_chol *w, int k, int c0, int c1) {
    ps__backend *be = &w->s.g->ctx->be;
    ps__dist_mat *a = w->a;
    ps__scalar one = ps__scalar_of(a->dt, 1.0);
    if (c1 > c0 && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->trsm(be, a->dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT,
                                           width(w, k), c1 - c0, &one, diag_view(w, k),
                                           ps__mat_at(a->m, k, c0)));
}

/* Gathers block row k's global columns [k + jb, upto) from every rank (each rank's local columns
 * there, packed with ld jb) into w->whole in column order. Nothing at the last block row (no
 * columns right of it) nor on one process column, which uses the row in place (row_view). */
static void gather_row(upper_chol *w, int k) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int jb = width(w, k);
    if (g->npcol == 1 || a->r.n - k - jb <= 0) return;
    size_t at = 0;
    for (int p = 0; p < g->npcol; p++) {
        int c1 = ps__cyclic_below(&a->c, k + jb, p),
            cols = ps__cyclic_below(&a->c, w->upto, p) - c1;
        if (cols <= 0) continue;
        ps__mat piece = {w->mine.buf, at, jb};
        if (p == g->mycol && w->s.st == PS_SUCCESS)
            ps__dist_note(&w->s,
                          be->ops->copy2d(be, a->dt, jb, cols, ps__mat_at(a->m, k, c1), piece));
        ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, p, a->dt, piece.buf, piece.off,
                                             (size_t)jb * cols, w->s.lane));
        /* its blocks to their places */
        for (int c = c1; c < c1 + cols && w->s.st == PS_SUCCESS;) {
            int gj = ps__cyclic_global(&a->c, c, p), wj = w->nb - gj % w->nb;
            if (wj > c1 + cols - c) wj = c1 + cols - c;
            ps__dist_note(&w->s, be->ops->copy2d(be, a->dt, jb, wj, ps__mat_at(piece, 0, c - c1),
                                                 ps__mat_at(w->whole, 0, gj - k - jb)));
            c += wj;
        }
        at += (size_t)jb * cols;
    }
}

/* Block row k's columns from k + jb on, in column order: gathered, or in place on one rank. */
static ps__mat row_view(const upper_chol *w, int k) {
    if (w->s.g->npcol == 1) return ps__mat_at(w->a->m, k, k + width(w, k));
    return w->whole;
}

/* This rank's local columns [c0, c1) right of block column K, against block row K: rows between
 * it and each block column's diagonal block by GEMM with the whole row (none for the block column
 * right after K), the diagonal block by SYRK with the rank's own part of the row. */
static void update(upper_chol *w, int k, int c0, int c1) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    int jb = width(w, k);
    for (int c = c0; c < c1 && w->s.st == PS_SUCCESS;) {
        int gj = ps__cyclic_global(&a->c, c, g->mycol), wj = w->nb - gj % w->nb;
        if (wj > c1 - c) wj = c1 - c;
        ps__mat uj = ps__mat_at(a->m, k, c);
        if (gj > k + jb)
            ps__dist_note(&w->s, be->ops->gemm(be, dt, PS__TRANS, PS__NOTRANS, gj - k - jb, wj, jb,
                                               &minus_one, row_view(w, k), uj, &one,
                                               ps__mat_at(a->m, k + jb, c)));
        if (w->s.st == PS_SUCCESS)
            ps__dist_note(&w->s, be->ops->syrk(be, dt, PS__UPPER, PS__TRANS, wj, jb, &minus_one, uj,
                                               &one, ps__mat_at(a->m, gj, c)));
        c += wj;
    }
}

static void resend_diag(void *w, int k) {
    send_diag(w, k);
}

/* Block row k on the local columns [c0, c1): solved, gathered, applied. */
static void row_step(void *arg, int k, int c0, int c1) {
    upper_chol *w = arg;
    solve_row(w, k, c0, c1);
    gather_row(w, k);
    update(w, k, c0, c1);
}

/* The steps for the block rows [k0, k1). */
static void steps(void *arg, int k0, int k1) {
    upper_chol *w = arg;
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    if (k0 >= k1) return;
    ps__dist_use_lane(&w->s, 1);
    factor_diag(w, k0);
    for (int k = k0; k < k1; k += w->nb) {
        int jb = width(w, k), next = k + jb, right = ps__cyclic_below(&a->c, next, g->mycol);
        int upto = ps__cyclic_below(&a->c, w->upto, g->mycol), ahead = 0;
        /* one agreement a step, before its exchanges */
        w->s.st = ps__dist_agree(g, w->s.st);
        if (w->s.st != PS_SUCCESS) break;
        ps__dist_lane_wait(&w->s, 0, 1); /* the diagonal block k has arrived */
        if (k > k0) ps__dist_steps_done(&w->s, k);
        if (next < k1) {
            if (g->mycol == ps__cyclic_owner(&a->c, next)) ahead = width(w, next);
            if (ahead > upto - right) ahead = upto - right;
            ps__dist_lane_wait(&w->s, 1, 0);
            ps__dist_use_lane(&w->s, 1);
            solve_row(w, k, right, right + ahead);
            ps__dist_lane_wait(&w->s, 0, 1); /* lane 0's gather reads that part of the row */
            update(w, k, right, right + ahead);
            factor_diag(w, next);
        }
        ps__dist_use_lane(&w->s, 0);
        solve_row(w, k, right + ahead, upto);
        gather_row(w, k);
        update(w, k, right + ahead, upto);
    }
    ps__dist_lanes_join(&w->s);
    if (k1 == a->r.n) ps__dist_steps_done(&w->s, k1);
}

/* Brings the global columns from upto to g1 up to date with the block rows [0, f), factored:
 * each diagonal block sent again, the row solved, gathered (the earlier columns' part again) and
 * applied. */
static void catch_up(void *arg, int f, int g1) {
    upper_chol *w = arg;
    ps_grid *g = w->s.g;
    int c0 = ps__cyclic_below(&w->a->c, w->upto, g->mycol);
    int c1 = ps__cyclic_below(&w->a->c, g1, g->mycol);
    w->upto = g1;
    ps__dist_catch_up(&w->s, w, f, w->nb, c0, c1, resend_diag, row_step);
}

/* Reserves what the steps need (agreed). */
static ps_status open_steps(upper_chol *w, ps_grid *g, ps__dist_mat *a) {
    ps__backend *be = &g->ctx->be;
    size_t es = ps__dtype_size(a->dt);
    int n = a->r.n, nb = a->c.nb;
    *w = (upper_chol){{.g = g, .lanes = 1}, a, nb, n, NULL, {NULL, NULL}, {NULL, 0, nb},
                      {NULL, 0, nb}};
    if (be->ops->lanes(be) > 1) w->s.lanes = 2;
    size_t row_bytes = (size_t)(n > 0 ? n : 1) * (size_t)nb * es;
    int32_t zero = 0;
    ps_status st = ps__dev_alloc(g->ctx, 4, &w->info);
    if (st == PS_SUCCESS)
        st = be->ops->upload(be, PS__INT32, 1, 1, &zero, 1, (ps__mat){w->info, 0, 1});
    /* the exchanges' buffers, where there are exchanges */
    for (int i = 0; i < 2 && st == PS_SUCCESS && g->npcol > 1; i++)
        st = ps__dev_alloc(g->ctx, (size_t)nb * nb * es, &w->diag[i]);
    if (st == PS_SUCCESS && g->npcol > 1) st = ps__dev_alloc(g->ctx, row_bytes, &w->mine.buf);
    if (st == PS_SUCCESS && g->npcol > 1) st = ps__dev_alloc(g->ctx, row_bytes, &w->whole.buf);
    st = ps__dist_failed(g, st);
    if (st == PS_SUCCESS && g->npcol > 1) st = ps__dist_reserve_stage(g, row_bytes);
    return w->s.st = ps__dist_agree(g, st);
}

/* The verdict to every rank, the status agreed; releases what open_steps reserved. */
static ps_status close_steps(upper_chol *w, int *info) {
    ps_grid *g = w->s.g;
    ps_status st = ps__dist_first_info(&w->s, w->info, info);
    void *bufs[] = {w->info, w->diag[0], w->diag[1], w->mine.buf, w->whole.buf};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        if (bufs[i]) ps__dev_free(g->ctx, bufs[i]);
    return st;
}

ps_status ps__dist_potrf_cols_upper(ps_grid *g, ps__dist_mat *a, int *info) {
    upper_chol w;
    if (open_steps(&w, g, a) == PS_SUCCESS) steps(&w, 0, a->r.n);
    return close_steps(&w, info);
}

ps_status ps__dist_potrf_upper_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f,
                                      int *info) {
    upper_chol w;
    ps__dist_parts parts = {&w, &w.s, steps, catch_up, 1, PS__UPPER, 1, 0};
    if (open_steps(&w, g, a) == PS_SUCCESS) ps__dist_staged_run(g, a, host, lld, f, &parts);
    return close_steps(&w, info);
}
