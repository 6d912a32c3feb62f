/*
 * Triangular solves with a distributed triangle (the solves of getrs and potrs), b = op(T)^-1 b.
 * Block by block in the order op(T) is triangular: the diagonal block's process row solves its
 * block of b and sends it down the process columns, then every rank updates its rows of b still
 * to come with the off-diagonal blocks of that block column of op(T), which reach it along its
 * process row (op = N: a block column of T; op = T: a block row of T, gathered first).
 */
#include "dist.h"

#include <stdlib.h>
#include <string.h>

static ps_status failed(ps_grid *g, ps_status st) {
    if (st == PS_SUCCESS) return st;
    return ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
}

/* Rows [g0, g1) of b: with op = T, the columns of block row K that multiply them, picked from
 * the gathered block row (jb x (g1 - g0) host, ld jb) into a jb x count device view. */
static ps_status pick_columns(ps_grid *g, const ps__dist_mat *b, int jb, int g0, int g1,
                              const void *row, ps__dist_buf *pack, ps__mat dst) {
    size_t es = ps__dtype_size(b->dt);
    int l0 = ps__cyclic_below(&b->r, g0, g->myrow), l1 = ps__cyclic_below(&b->r, g1, g->myrow);
    if (l1 <= l0) return PS_SUCCESS;
    for (int l = l0; l < l1; l++) {
        int gl = ps__cyclic_global(&b->r, l, g->myrow) - g0;
        memcpy((char *)pack->p + (size_t)(l - l0) * (size_t)jb * es,
               (const char *)row + (size_t)gl * (size_t)jb * es, (size_t)jb * es);
    }
    return failed(g, g->ctx->be.ops->upload(&g->ctx->be, b->dt, jb, l1 - l0, pack->p, jb, dst));
}

ps_status ps__dist_trsm(ps_grid *g, const ps__dist_mat *a, ps__uplo uplo, ps__trans trans,
                        ps__diag diag, ps__dist_mat *b) {
    if (ps__dist_trsm_cols_fits(g, b)) return ps__dist_trsm_cols(g, a, uplo, trans, diag, b);
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    size_t es = ps__dtype_size(dt);
    int n = a->r.n, nb = a->r.nb, nrhs = b->lcols;
    int forward = (uplo == PS__LOWER) != (trans == PS__TRANS);
    int blocks = (n + nb - 1) / nb, lrows = a->lrows > 0 ? a->lrows : 1;
    ps__dist_buf stage = {0}, row = {0}, pack = {0};
    ps__mat dw = {NULL, 0, nb}, bw = {NULL, 0, nb}, tw = {NULL, 0, lrows};
    size_t most = (size_t)lrows * nb;
    if ((size_t)nb * (nrhs > 0 ? nrhs : 1) > most) most = (size_t)nb * (nrhs > 0 ? nrhs : 1);
    if ((size_t)(a->lcols + n) * nb > most) most = (size_t)(a->lcols + n) * nb;
    ps_status st = ps__dist_reserve(g, &stage, most * es);
    if (st == PS_SUCCESS) st = ps__dist_reserve(g, &row, (size_t)nb * (n > 0 ? n : 1) * es);
    if (st == PS_SUCCESS) st = ps__dist_reserve(g, &pack, (size_t)nb * lrows * es);
    if (st == PS_SUCCESS) st = failed(g, ps__dev_alloc(g->ctx, (size_t)nb * nb * es, &dw.buf));
    if (st == PS_SUCCESS)
        st = failed(g, ps__dev_alloc(g->ctx, (size_t)nb * (nrhs > 0 ? nrhs : 1) * es, &bw.buf));
    if (st == PS_SUCCESS) st = failed(g, ps__dev_alloc(g->ctx, (size_t)lrows * nb * es, &tw.buf));
    st = ps__dist_agree(g, st);
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps_status ready = st;
    for (int s = 0; s < blocks && ready == PS_SUCCESS; s++) {
        int k = (forward ? s : blocks - 1 - s) * nb, jb = n - k < nb ? n - k : nb;
        int pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
        int r0 = ps__cyclic_below(&a->r, k, g->myrow), ck = ps__cyclic_local(&a->c, k);
        ps__mat bk = ps__mat_at(b->m, r0, 0);
        if (g->myrow == pr) {
            ps__mat d = ps__mat_at(a->m, r0, ck);
            ps_status x = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, jb, jb, d, dw, &stage);
            if (st == PS_SUCCESS) st = x;
            if (st == PS_SUCCESS && nrhs > 0)
                st = failed(g, be->ops->trsm(be, dt, PS__LEFT, uplo, trans, diag, jb, nrhs, &one,
                                             g->mycol == pc ? d : dw, bk));
        }
        ps_status x = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, nrhs, bk, bw, &stage);
        if (st == PS_SUCCESS) st = x;
        ps__mat bsolved = g->myrow == pr ? bk : bw;
        int g0 = forward ? k + jb : 0, g1 = forward ? n : k;
        int l0 = ps__cyclic_below(&a->r, g0, g->myrow),
            count = ps__cyclic_below(&a->r, g1, g->myrow) - l0;
        ps__mat t = tw;
        ps__trans op = PS__NOTRANS;
        if (trans == PS__NOTRANS) {
            ps__mat src = ps__mat_at(a->m, l0, ck);
            x = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, count, jb, src, tw, &stage);
            if (g->mycol == pc) t = src;
        } else if (g->nprow == 1 && g->npcol == 1) {
            /* one rank: block row k of T is in place */
            x = PS_SUCCESS;
            t = ps__mat_at(a->m, r0, g0);
            op = PS__TRANS;
        } else {
            /* block row k of T, columns g0..g1, on every rank */
            x = PS_SUCCESS;
            if (g->myrow == pr && g1 > g0)
                x = ps__dist_gather_cols(
                    g, a, jb, g0, g1, ps__mat_at(a->m, r0, ps__cyclic_below(&a->c, g0, g->mycol)),
                    &stage, row.p);
            if (g1 > g0)
                ps__dist_bcast_bytes(row.p, (size_t)jb * (size_t)(g1 - g0) * es, pr, g->col);
            if (x == PS_SUCCESS)
                x = pick_columns(g, b, jb, g0, g1, row.p, &pack, (ps__mat){tw.buf, 0, jb});
            t = (ps__mat){tw.buf, 0, jb};
            op = PS__TRANS;
        }
        if (st == PS_SUCCESS) st = x;
        if (st == PS_SUCCESS && count > 0 && nrhs > 0)
            st = failed(g, be->ops->gemm(be, dt, op, PS__NOTRANS, count, nrhs, jb, &minus_one, t,
                                         bsolved, &one, ps__mat_at(b->m, l0, 0)));
    }
    /* one agreement at the end: a rank that failed took part in every exchange all the same */
    st = ps__dist_agree(g, st);
    if (dw.buf) ps__dev_free(g->ctx, dw.buf);
    if (bw.buf) ps__dev_free(g->ctx, bw.buf);
    if (tw.buf) ps__dev_free(g->ctx, tw.buf);
    free(stage.p);
    free(row.p);
    free(pack.p);
    return st;
}
