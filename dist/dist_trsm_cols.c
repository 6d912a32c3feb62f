/*
 * Triangular solves on grids of one process row (1 x P) whose right-hand sides sit in one process
 * column (nrhs up to B's block), every step on the devices. Every rank keeps a replica of b (n x
 * nrhs, broadcast from its holder once); block step k, in the order op(T) is triangular, is done
 * by the holder pc of T's block column k, which has all of that column:
 *   op = N (right-looking): pc solves x_k with the diagonal block, forms T(rows to come, k) x_k,
 *     and broadcasts both; every rank subtracts the product from its replica;
 *   op = T (left-looking): pc subtracts T(rows done, k)^T x(rows done) from b_k, solves x_k, and
 *     broadcasts it.
 * One broadcast a step of jb (op = T) or up to n (op = N) rows of nrhs, instead of T's blocks; the
 * holder takes the solution back at the end.
 */
#include "dist.h"

#include <stdlib.h>

typedef struct {
    ps__dist_steps s; /* the first failure (one lane) */
    const ps__dist_mat *a;
    ps__dist_mat *b;
    ps__mat x;    /* the replica of b, ld n */
    ps__mat pack; /* op = N: x_k over the product, ld n */
} cols_trsm;

int ps__dist_trsm_cols_fits(const ps_grid *g, const ps__dist_mat *b) {
    return g->nprow == 1 && g->npcol > 1 && b->c.n <= b->c.nb;
}

/* The replica of b and (op = N) x_k over the product from the grid's scratch slots, and the
 * exchange buffer for b's broadcast. Agreed. */
static ps_status take(ps_grid *g, const ps__dist_mat *a, ps__trans trans, const ps__dist_mat *b,
                      void **x, void **pack) {
    size_t bytes = (size_t)a->r.n * (size_t)b->c.n * ps__dtype_size(a->dt);
    *x = *pack = NULL;
    ps_status st = ps__dist_scratch(g, PS__DIST_COLS_X, bytes, x);
    if (st == PS_SUCCESS && trans == PS__NOTRANS)
        st = ps__dist_scratch(g, PS__DIST_COLS_PACK, bytes, pack);
    st = ps__dist_failed(g, st);
    if (st == PS_SUCCESS) st = ps__dist_reserve_stage(g, bytes);
    return ps__dist_agree(g, st);
}

ps_status ps__dist_trsm_cols_reserve(ps_grid *g, const ps__dist_mat *a, ps__trans trans,
                                     const ps__dist_mat *b) {
    void *x, *pack;
    return take(g, a, trans, b, &x, &pack);
}

static void step(cols_trsm *w, ps__uplo uplo, ps__trans trans, ps__diag diag, int k, int jb,
                 int forward) {
    ps_grid *g = w->s.g;
    const ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    int n = a->r.n, nrhs = w->b->c.n, pc = ps__cyclic_owner(&a->c, k);
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__scalar zero = ps__scalar_of(dt, 0.0);
    ps__mat col = ps__mat_at(a->m, 0, ps__cyclic_local(&a->c, k)), xk = ps__mat_at(w->x, k, 0);
    if (trans == PS__NOTRANS) {
        /* the rows still to come */
        int g0 = forward ? k + jb : 0, count = forward ? n - k - jb : k;
        ps__mat pk = w->pack; /* rows 0..jb: x_k; jb..jb + count: T(g0.., k) x_k */
        pk.ld = jb + count;
        if (g->mycol == pc && w->s.st == PS_SUCCESS) {
            ps__dist_note(&w->s, be->ops->trsm(be, dt, PS__LEFT, uplo, trans, diag, jb, nrhs, &one,
                                               ps__mat_at(col, k, 0), xk));
            if (w->s.st == PS_SUCCESS)
                ps__dist_note(&w->s, be->ops->copy2d(be, dt, jb, nrhs, xk, pk));
            if (w->s.st == PS_SUCCESS && count > 0)
                ps__dist_note(&w->s, be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, count, nrhs,
                                                   jb, &one, ps__mat_at(col, g0, 0), xk, &zero,
                                                   ps__mat_at(pk, jb, 0)));
        }
        ps__dist_note(&w->s,
                      ps__dist_vbcast(g, PS__DIST_ROW, pc, dt, pk.buf, 0, (size_t)pk.ld * nrhs, 0));
        if (w->s.st != PS_SUCCESS) return;
        if (g->mycol != pc) ps__dist_note(&w->s, be->ops->copy2d(be, dt, jb, nrhs, pk, xk));
        for (int j = 0; j < nrhs && count > 0 && w->s.st == PS_SUCCESS; j++)
            ps__dist_note(&w->s, be->ops->axpy(be, dt, count, &minus_one, ps__mat_col(pk, jb, j),
                                               ps__mat_col(w->x, g0, j)));
    } else {
        /* the rows done */
        int g0 = forward ? 0 : k + jb, count = forward ? k : n - k - jb;
        if (g->mycol == pc && w->s.st == PS_SUCCESS) {
            if (count > 0)
                ps__dist_note(&w->s, be->ops->gemm(be, dt, PS__TRANS, PS__NOTRANS, jb, nrhs, count,
                                                   &minus_one, ps__mat_at(col, g0, 0),
                                                   ps__mat_at(w->x, g0, 0), &one, xk));
            if (w->s.st == PS_SUCCESS)
                ps__dist_note(&w->s, be->ops->trsm(be, dt, PS__LEFT, uplo, trans, diag, jb, nrhs,
                                                   &one, ps__mat_at(col, k, 0), xk));
        }
        /* x_k is a jb x nrhs block of the replica: its columns' span goes whole (the rows between
         * are the same on every rank: only pc changed its replica, and only x_k) */
        ps__dist_note(&w->s, ps__dist_vbcast(g, PS__DIST_ROW, pc, dt, xk.buf, xk.off,
                                             (size_t)(nrhs - 1) * (size_t)w->x.ld + (size_t)jb, 0));
    }
}

ps_status ps__dist_trsm_cols(ps_grid *g, const ps__dist_mat *a, ps__uplo uplo, ps__trans trans,
                             ps__diag diag, ps__dist_mat *b) {
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    int n = a->r.n, nb = a->r.nb, nrhs = b->c.n, holder = b->c.src;
    int forward = (uplo == PS__LOWER) != (trans == PS__TRANS), blocks = (n + nb - 1) / nb;
    cols_trsm w = {{.g = g, .lanes = 1}, a, b, {NULL, 0, n}, {NULL, 0, n}};
    w.s.st = take(g, a, trans, b, &w.x.buf, &w.pack.buf);
    int exchanging = w.s.st == PS_SUCCESS;
    if (w.s.st == PS_SUCCESS && g->mycol == holder)
        ps__dist_note(&w.s, be->ops->copy2d(be, dt, n, nrhs, b->m, w.x));
    /* from here every rank takes part in every exchange, also after a failure */
    if (exchanging)
        ps__dist_note(
            &w.s, ps__dist_vbcast(g, PS__DIST_ROW, holder, dt, w.x.buf, 0, (size_t)n * nrhs, 0));
    for (int s = 0; s < blocks && exchanging; s++) {
        int k = (forward ? s : blocks - 1 - s) * nb;
        step(&w, uplo, trans, diag, k, n - k < nb ? n - k : nb, forward);
    }
    if (w.s.st == PS_SUCCESS && g->mycol == holder)
        ps__dist_note(&w.s, be->ops->copy2d(be, dt, n, nrhs, w.x, b->m));
    /* one agreement at the end: a rank that failed took part in every exchange all the same */
    return ps__dist_agree(g, w.s.st);
}
