/*
 * Triangular solves with a distributed triangle (the solves of getrs and potrs), b = op(T)^-1 b.
 * Block by block in the order op(T) is triangular: the diagonal block's process row solves its
 * block of b and sends it down the process columns, then every rank updates its rows of b still
 * to come with the off-diagonal blocks of that block column of op(T), which reach it along its
 * process row (op = N: a block column of T; op = T: a block row of T, assembled first).
 */
#include "dist.h"

#include <stdlib.h>

/* The exchange buffer and the grid's device scratch slots: the diagonal block, b's block and
 * T's block column in dev[0..2], and for op = T on several ranks a block row of T and one
 * process's part of it in dev[3..4]. Agreed. */
static ps_status take(ps_grid *g, const ps__dist_mat *a, ps__trans trans, const ps__dist_mat *b,
                      void *dev[5]) {
    size_t es = ps__dtype_size(a->dt);
    int n = a->r.n, nb = a->r.nb, nrhs = b->lcols, lrows = a->lrows > 0 ? a->lrows : 1;
    int lcols_most = 1;
    for (int q = 0; q < g->npcol; q++)
        if (ps__cyclic_below(&a->c, n, q) > lcols_most) lcols_most = ps__cyclic_below(&a->c, n, q);
    size_t most = (size_t)lrows * nb;
    if ((size_t)nb * (nrhs > 0 ? nrhs : 1) > most) most = (size_t)nb * (nrhs > 0 ? nrhs : 1);
    if ((size_t)(n > 0 ? n : 1) * nb > most) most = (size_t)(n > 0 ? n : 1) * nb;
    ps_status st = ps__dist_reserve_stage(g, most * es);
    size_t bytes[] = {(size_t)nb * nb * es, (size_t)nb * (nrhs > 0 ? nrhs : 1) * es,
                      (size_t)lrows * nb * es, (size_t)nb * (n > 0 ? n : 1) * es,
                      (size_t)nb * lcols_most * es};
    int need = trans == PS__TRANS && g->nprow * g->npcol > 1 ? 5 : 3;
    for (int i = 0; i < 5; i++) dev[i] = NULL;
    for (int i = 0; i < need && st == PS_SUCCESS; i++)
        st = ps__dist_failed(g, ps__dist_scratch(g, PS__DIST_TRSM_DIAG + i, bytes[i], &dev[i]));
    return ps__dist_agree(g, st);
}

ps_status ps__dist_trsm_reserve(ps_grid *g, const ps__dist_mat *a, ps__trans trans,
                                const ps__dist_mat *b) {
    if (ps__dist_trsm_cols_fits(g, b)) return ps__dist_trsm_cols_reserve(g, a, trans, b);
    void *dev[5];
    return take(g, a, trans, b, dev);
}

ps_status ps__dist_trsm(ps_grid *g, const ps__dist_mat *a, ps__uplo uplo, ps__trans trans,
                        ps__diag diag, ps__dist_mat *b) {
    if (ps__dist_trsm_cols_fits(g, b)) return ps__dist_trsm_cols(g, a, uplo, trans, diag, b);
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    int n = a->r.n, nb = a->r.nb, nrhs = b->lcols;
    int forward = (uplo == PS__LOWER) != (trans == PS__TRANS);
    int blocks = (n + nb - 1) / nb, lrows = a->lrows > 0 ? a->lrows : 1;
    void *dev[5];
    ps_status st = take(g, a, trans, b, dev);
    ps__mat dw = {dev[0], 0, nb}, bw = {dev[1], 0, nb}, tw = {dev[2], 0, lrows};
    void *row = dev[3], *part = dev[4];
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps_status ready = st;
    for (int s = 0; s < blocks && ready == PS_SUCCESS; s++) {
        int k = (forward ? s : blocks - 1 - s) * nb, jb = n - k < nb ? n - k : nb;
        int pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
        int r0 = ps__cyclic_below(&a->r, k, g->myrow), ck = ps__cyclic_local(&a->c, k);
        ps__mat bk = ps__mat_at(b->m, r0, 0);
        if (g->myrow == pr) {
            ps__mat d = ps__mat_at(a->m, r0, ck);
            ps_status x = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, jb, jb, d, dw, 0);
            if (st == PS_SUCCESS) st = x;
            if (st == PS_SUCCESS && nrhs > 0)
                st = ps__dist_failed(g, be->ops->trsm(be, dt, PS__LEFT, uplo, trans, diag, jb, nrhs,
                                                      &one, g->mycol == pc ? d : dw, bk));
        }
        ps_status x = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, nrhs, bk, bw, 0);
        if (st == PS_SUCCESS) st = x;
        ps__mat bsolved = g->myrow == pr ? bk : bw;
        int g0 = forward ? k + jb : 0, g1 = forward ? n : k;
        int l0 = ps__cyclic_below(&a->r, g0, g->myrow),
            count = ps__cyclic_below(&a->r, g1, g->myrow) - l0;
        ps__mat t = tw;
        ps__trans op = PS__NOTRANS;
        if (trans == PS__NOTRANS) {
            ps__mat src = ps__mat_at(a->m, l0, ck);
            x = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, count, jb, src, tw, 0);
            if (g->mycol == pc) t = src;
        } else if (g->nprow == 1 && g->npcol == 1) {
            /* one rank: block row k of T is in place */
            x = PS_SUCCESS;
            t = ps__mat_at(a->m, r0, g0);
            op = PS__TRANS;
        } else {
            /* block row k of T, columns g0..g1: assembled on the diagonal block's process row
             * (each process column sends its part along the row), sent down the process columns,
             * and every rank takes the columns that multiply its rows of b */
            ps__mat whole = {row, 0, jb};
            x = PS_SUCCESS;
            if (g->myrow == pr && g1 > g0) {
                ps__mat mine = ps__mat_at(a->m, r0, ps__cyclic_below(&a->c, g0, g->mycol));
                x = ps__dist_assemble(g, PS__DIST_ROW, a, g0, g1, jb, mine, part, 1, whole, 0);
            }
            ps_status y = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, g1 - g0, whole, whole, 0);
            if (x == PS_SUCCESS) x = y;
            t = (ps__mat){tw.buf, 0, jb};
            if (x == PS_SUCCESS && count > 0)
                x = ps__dist_failed(g, ps__dist_move_runs(be, dt, &a->r, g->myrow, l0, l0 + count,
                                                          g0, jb, 1, t, whole, 0));
            op = PS__TRANS;
        }
        if (st == PS_SUCCESS) st = x;
        if (st == PS_SUCCESS && count > 0 && nrhs > 0)
            st = ps__dist_failed(g,
                                 be->ops->gemm(be, dt, op, PS__NOTRANS, count, nrhs, jb, &minus_one,
                                               t, bsolved, &one, ps__mat_at(b->m, l0, 0)));
    }
    /* one agreement at the end: a rank that failed took part in every exchange all the same */
    return ps__dist_agree(g, st);
}
