/*
 * Upper Cholesky, A = U^T U, on grids of one process row (1 x P), every step on the devices.
 * Step k, block row K of width jb: the holder pc of block column K factors the diagonal block (the
 * context's recursive Cholesky) and broadcasts it; every rank solves its own columns of U's block
 * row right of it (trsm); the block row is gathered on every rank in column order (a broadcast
 * from each rank, then its blocks put in place); every rank updates its trailing block columns,
 * GEMM above the diagonal block and SYRK on it, never touching the lower triangle. The verdict
 * stays on the device as in the lower one (dist_potrf_cols.c).
 */
#include "chol/chol.h"
#include "dist.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    ps__dist_steps s; /* the first failure (one lane) */
    ps__dist_mat *a;
    int nb;
    void *info;          /* device int32: the first failing minor's order among this rank's */
    ps__mat diag;        /* the broadcast diagonal block, ld nb */
    ps__mat mine, whole; /* U's block row: by rank, each rank's columns in turn; in column order */
    ps__dist_buf stage;
} upper_chol;

/* Gathers the block row's columns [k + jb, n) from every rank (each rank's local columns from c1
 * on, packed with ld jb) into w->whole in column order. */
static void gather_row(upper_chol *w, int k, int jb) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    size_t at = 0;
    for (int p = 0; p < g->npcol; p++) {
        int c1 = ps__cyclic_below(&a->c, k + jb, p), cols = ps__cyclic_below(&a->c, a->c.n, p) - c1;
        if (cols <= 0) continue;
        ps__mat piece = {w->mine.buf, at, jb};
        if (p == g->mycol && w->s.st == PS_SUCCESS)
            ps__dist_note(&w->s,
                          be->ops->copy2d(be, a->dt, jb, cols, ps__mat_at(a->m, k, c1), piece));
        ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, p, a->dt, piece.buf, piece.off,
                                             (size_t)jb * cols, 0, &w->stage));
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

static void step(upper_chol *w, int k, int jb) {
    ps_grid *g = w->s.g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    int n = a->r.n, pc = ps__cyclic_owner(&a->c, k);
    int c1 = ps__cyclic_below(&a->c, k + jb, g->mycol), right = a->lcols - c1;
    ps__mat d = g->mycol == pc ? ps__mat_at(a->m, k, ps__cyclic_local(&a->c, k)) : w->diag;
    if (g->mycol == pc && w->s.st == PS_SUCCESS) {
        ps__dist_note(&w->s, ps__potrf_recursive(g->ctx, dt, PS__UPPER, jb, d, w->info, k));
        if (w->s.st == PS_SUCCESS)
            ps__dist_note(&w->s, be->ops->copy2d(be, dt, jb, jb, d, w->diag));
    }
    if (n - k - jb <= 0) return;
    ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, dt, w->diag.buf, 0,
                                         (size_t)w->diag.ld * jb, 0, &w->stage));
    if (right > 0 && w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT, jb,
                                           right, &one, d, ps__mat_at(a->m, k, c1)));
    gather_row(w, k, jb);
    for (int c = c1; c < a->lcols && w->s.st == PS_SUCCESS;) {
        int gj = ps__cyclic_global(&a->c, c, g->mycol), wj = w->nb - gj % w->nb;
        if (wj > a->lcols - c) wj = a->lcols - c;
        ps__mat uj = ps__mat_at(w->whole, 0, gj - k - jb);
        if (gj > k + jb)
            ps__dist_note(&w->s, be->ops->gemm(be, dt, PS__TRANS, PS__NOTRANS, gj - k - jb, wj, jb,
                                               &minus_one, w->whole, uj, &one,
                                               ps__mat_at(a->m, k + jb, c)));
        if (w->s.st == PS_SUCCESS)
            ps__dist_note(&w->s, be->ops->syrk(be, dt, PS__UPPER, PS__TRANS, wj, jb, &minus_one, uj,
                                               &one, ps__mat_at(a->m, gj, c)));
        c += wj;
    }
}

ps_status ps__dist_potrf_cols_upper(ps_grid *g, ps__dist_mat *a, int *info) {
    ps__backend *be = &g->ctx->be;
    size_t es = ps__dtype_size(a->dt);
    int n = a->r.n, nb = a->c.nb;
    upper_chol w = {{g, 1, 0, PS_SUCCESS}, a,  nb, NULL, {NULL, 0, nb}, {NULL, 0, nb},
                    {NULL, 0, nb},         {0}};
    size_t row_bytes = (size_t)(n > 0 ? n : 1) * (size_t)nb * es;
    int32_t zero = 0;
    ps_status st = ps__dev_alloc(g->ctx, 4, &w.info);
    if (st == PS_SUCCESS)
        st = be->ops->upload(be, PS__INT32, 1, 1, &zero, 1, (ps__mat){w.info, 0, 1});
    if (st == PS_SUCCESS) st = ps__dev_alloc(g->ctx, (size_t)nb * nb * es, &w.diag.buf);
    if (st == PS_SUCCESS) st = ps__dev_alloc(g->ctx, row_bytes, &w.mine.buf);
    if (st == PS_SUCCESS) st = ps__dev_alloc(g->ctx, row_bytes, &w.whole.buf);
    if (st != PS_SUCCESS)
        st = ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
    if (st == PS_SUCCESS && !ps__dist_peers(g)) st = ps__dist_reserve(g, &w.stage, row_bytes);
    w.s.st = ps__dist_agree(g, st);
    /* one agreement a step, before its exchanges; a failure inside a step still takes part */
    for (int k = 0; k < n && w.s.st == PS_SUCCESS; k += nb) {
        step(&w, k, n - k < nb ? n - k : nb);
        w.s.st = ps__dist_agree(g, w.s.st);
    }
    st = ps__dist_first_info(&w.s, w.info, info);
    if (w.info) ps__dev_free(g->ctx, w.info);
    if (w.diag.buf) ps__dev_free(g->ctx, w.diag.buf);
    if (w.mine.buf) ps__dev_free(g->ctx, w.mine.buf);
    if (w.whole.buf) ps__dev_free(g->ctx, w.whole.buf);
    free(w.stage.p);
    return st;
}
