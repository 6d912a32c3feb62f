/*
 * Right-looking Cholesky on the block-cyclic layout (ScaLAPACK's pdpotrf), lower or upper. Step
 * k: the rank holding the diagonal block factors it (the context's potrf) and the verdict goes
 * to every rank; the block column below it (lower; upper: the block row right of it) is solved
 * on its process column (row) and then reaches every rank whole; every rank updates the blocks
 * of its trailing triangle with SYRK on diagonal blocks and GEMM elsewhere. The other triangle
 * is never read or written.
 */
#include "dist.h"

#include <stdlib.h>
#include <string.h>

static ps_status failed(ps_grid *g, ps_status st) {
    if (st == PS_SUCCESS) return st;
    return ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
}

static ps_status host_potrf(ps_grid *g, ps__dtype dt, ps__uplo uplo, int n, void *a) {
    char u = uplo == PS__LOWER ? 'L' : 'U';
    if (dt == PS__DOUBLE) return ps_dpotrf(g->ctx, u, n, a, n);
    return ps_spotrf(g->ctx, u, n, a, n);
}

/* The diagonal block at step k, factored on its rank; {status, info} on every rank. */
static void factor_diagonal(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, int k, int jb, void *host,
                            int word[2]) {
    ps__backend *be = &g->ctx->be;
    int pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    word[0] = PS_SUCCESS, word[1] = 0;
    if (g->myrow == pr && g->mycol == pc) {
        ps__mat d = ps__mat_at(a->m, ps__cyclic_local(&a->r, k), ps__cyclic_local(&a->c, k));
        ps_status st = failed(g, be->ops->download(be, a->dt, jb, jb, d, host, jb));
        if (st == PS_SUCCESS) {
            ps_status f = host_potrf(g, a->dt, uplo, jb, host);
            if (f == PS_ERR_NOT_SPD)
                word[1] = k + ps_context_last_info(g->ctx);
            else if (f != PS_SUCCESS)
                st = ps__dist_fail(g, f, "rank %d: the diagonal block at %d: %s", g->rank, k + 1,
                                   ps_context_last_error(g->ctx));
        }
        /* the block as far as it got, as LAPACK leaves it */
        if (st == PS_SUCCESS) st = failed(g, be->ops->upload(be, a->dt, jb, jb, host, jb, d));
        word[0] = (int)st;
    }
    MPI_Bcast(word, 2, MPI_INT, pr * g->npcol + pc, g->all);
}

typedef struct {
    ps__dist_buf stage, panel, mine;
    ps__mat dw, pd, md; /* diagonal block; the whole panel; the panel's rows for this rank's rows */
} workspace;

/* Lower: the block column below the diagonal solved, then L(k + jb.., k..k + jb) on every rank
 * (host panel, ld count) and on the device (pd), with this rank's rows of it in md. */
static ps_status spread_column(ps_grid *g, ps__dist_mat *a, int k, int jb, workspace *w) {
    ps__backend *be = &g->ctx->be;
    int n = a->r.n, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    int count = n - k - jb, lc = ps__cyclic_local(&a->c, k);
    int r1 = ps__cyclic_below(&a->r, k + jb, g->myrow), rows = a->lrows - r1;
    size_t es = ps__dtype_size(a->dt);
    ps_status st = PS_SUCCESS;
    if (g->mycol == pc) {
        ps__mat d = ps__mat_at(a->m, ps__cyclic_below(&a->r, k, g->myrow), lc);
        st = ps__dist_bcast(g, PS__DIST_COL, pr, a->dt, jb, jb, d, w->dw, &w->stage);
        ps__scalar one = ps__scalar_of(a->dt, 1.0);
        if (st == PS_SUCCESS && rows > 0)
            st = failed(g, be->ops->trsm(be, a->dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT,
                                         rows, jb, &one, g->myrow == pr ? d : w->dw,
                                         ps__mat_at(a->m, r1, lc)));
        ps_status x = ps__dist_gather_rows(g, a, k + jb, n, jb, ps__mat_at(a->m, r1, lc), -1,
                                           &w->stage, w->panel.p);
        if (st == PS_SUCCESS) st = x;
    }
    ps__dist_bcast_bytes(w->panel.p, (size_t)count * jb * es, pc, g->row);
    w->pd.ld = count;
    if (st == PS_SUCCESS)
        st = failed(g, be->ops->upload(be, a->dt, count, jb, w->panel.p, count, w->pd));
    for (int l = r1; l < a->lrows; l++) {
        int p = ps__cyclic_global(&a->r, l, g->myrow) - k - jb;
        for (int j = 0; j < jb; j++)
            memcpy((char *)w->mine.p + ((size_t)(l - r1) + (size_t)j * rows) * es,
                   (char *)w->panel.p + ((size_t)p + (size_t)j * count) * es, es);
    }
    w->md.ld = rows > 0 ? rows : 1;
    if (st == PS_SUCCESS && rows > 0)
        st = failed(g, be->ops->upload(be, a->dt, rows, jb, w->mine.p, rows, w->md));
    return st;
}

/* Upper: the block row right of the diagonal solved, then U(k..k + jb, k + jb..) on every rank
 * (pd, jb x count) with the columns for this rank's rows in md (jb x rows). */
static ps_status spread_row(ps_grid *g, ps__dist_mat *a, int k, int jb, workspace *w) {
    ps__backend *be = &g->ctx->be;
    int n = a->r.n, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    int count = n - k - jb, r0 = ps__cyclic_below(&a->r, k, g->myrow);
    int c1 = ps__cyclic_below(&a->c, k + jb, g->mycol), cols = a->lcols - c1;
    int r1 = ps__cyclic_below(&a->r, k + jb, g->myrow), rows = a->lrows - r1;
    size_t es = ps__dtype_size(a->dt);
    ps_status st = PS_SUCCESS;
    if (g->myrow == pr) {
        ps__mat d = ps__mat_at(a->m, r0, ps__cyclic_below(&a->c, k, g->mycol));
        st = ps__dist_bcast(g, PS__DIST_ROW, pc, a->dt, jb, jb, d, w->dw, &w->stage);
        ps__scalar one = ps__scalar_of(a->dt, 1.0);
        if (st == PS_SUCCESS && cols > 0)
            st = failed(g, be->ops->trsm(be, a->dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT, jb,
                                         cols, &one, g->mycol == pc ? d : w->dw,
                                         ps__mat_at(a->m, r0, c1)));
        ps_status x = ps__dist_gather_cols(g, a, jb, k + jb, n, ps__mat_at(a->m, r0, c1), &w->stage,
                                           w->panel.p);
        if (st == PS_SUCCESS) st = x;
    }
    ps__dist_bcast_bytes(w->panel.p, (size_t)count * jb * es, pr, g->col);
    w->pd.ld = jb;
    if (st == PS_SUCCESS)
        st = failed(g, be->ops->upload(be, a->dt, jb, count, w->panel.p, jb, w->pd));
    for (int l = r1; l < a->lrows; l++) {
        int p = ps__cyclic_global(&a->r, l, g->myrow) - k - jb;
        memcpy((char *)w->mine.p + (size_t)(l - r1) * jb * es,
               (char *)w->panel.p + (size_t)p * jb * es, (size_t)jb * es);
    }
    w->md.ld = jb;
    if (st == PS_SUCCESS && rows > 0)
        st = failed(g, be->ops->upload(be, a->dt, jb, rows, w->mine.p, jb, w->md));
    return st;
}

/* The trailing triangle: each local block column from k + jb on, against the spread panel. */
static ps_status update(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, int k, int jb, workspace *w) {
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    int nb = a->c.nb, r1 = ps__cyclic_below(&a->r, k + jb, g->myrow);
    for (int c = ps__cyclic_below(&a->c, k + jb, g->mycol); c < a->lcols; c += nb) {
        int gj = ps__cyclic_global(&a->c, c, g->mycol), wj = a->lcols - c < nb ? a->lcols - c : nb;
        int p = gj - k - jb, own = ps__cyclic_owner(&a->r, gj) == g->myrow;
        int rd = ps__cyclic_below(&a->r, gj, g->myrow); /* the diagonal block's first local row */
        ps_status st = PS_SUCCESS;
        if (uplo == PS__LOWER) {
            ps__mat cj = ps__mat_at(w->pd, p, 0);
            int rows = a->lrows - rd, skip = own ? wj : 0;
            if (own)
                st = be->ops->syrk(be, dt, PS__LOWER, PS__NOTRANS, wj, jb, &minus_one, cj, &one,
                                   ps__mat_at(a->m, rd, c));
            if (st == PS_SUCCESS && rows > skip)
                st = be->ops->gemm(be, dt, PS__NOTRANS, PS__TRANS, rows - skip, wj, jb, &minus_one,
                                   ps__mat_at(w->md, rd + skip - r1, 0), cj, &one,
                                   ps__mat_at(a->m, rd + skip, c));
        } else {
            ps__mat cj = ps__mat_at(w->pd, 0, p);
            if (rd > r1)
                st = be->ops->gemm(be, dt, PS__TRANS, PS__NOTRANS, rd - r1, wj, jb, &minus_one,
                                   w->md, cj, &one, ps__mat_at(a->m, r1, c));
            if (st == PS_SUCCESS && own)
                st = be->ops->syrk(be, dt, PS__UPPER, PS__TRANS, wj, jb, &minus_one, cj, &one,
                                   ps__mat_at(a->m, rd, c));
        }
        if (st != PS_SUCCESS) return failed(g, st);
    }
    return PS_SUCCESS;
}

ps_status ps__dist_potrf(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, int *info) {
    if (g->nprow == 1)
        return uplo == PS__LOWER ? ps__dist_potrf_cols(g, a, info)
                                 : ps__dist_potrf_cols_upper(g, a, info);
    size_t es = ps__dtype_size(a->dt);
    int n = a->r.n, nb = a->r.nb, lrows = a->lrows > 0 ? a->lrows : 1;
    workspace w = {0};
    w.dw.ld = nb;
    size_t most = (size_t)(a->lrows + n) * nb;
    if ((size_t)(a->lcols + n) * nb > most) most = (size_t)(a->lcols + n) * nb;
    ps_status st = ps__dist_reserve(g, &w.stage, most * es);
    if (st == PS_SUCCESS) st = ps__dist_reserve(g, &w.panel, (size_t)(n > 0 ? n : 1) * nb * es);
    if (st == PS_SUCCESS) st = ps__dist_reserve(g, &w.mine, (size_t)lrows * nb * es);
    if (st == PS_SUCCESS) st = failed(g, ps__dev_alloc(g->ctx, (size_t)nb * nb * es, &w.dw.buf));
    if (st == PS_SUCCESS)
        st = failed(g, ps__dev_alloc(g->ctx, (size_t)(n > 0 ? n : 1) * nb * es, &w.pd.buf));
    if (st == PS_SUCCESS) st = failed(g, ps__dev_alloc(g->ctx, (size_t)lrows * nb * es, &w.md.buf));
    st = ps__dist_agree(g, st);
    for (int k = 0; k < n && st == PS_SUCCESS; k += nb) {
        int jb = n - k < nb ? n - k : nb, word[2];
        factor_diagonal(g, a, uplo, k, jb, w.panel.p, word);
        if (word[1]) {
            *info = word[1];
            break;
        }
        st = ps__dist_agree(g, (ps_status)word[0] != PS_SUCCESS &&
                                       ps__cyclic_owner(&a->r, k) == g->myrow &&
                                       ps__cyclic_owner(&a->c, k) == g->mycol
                                   ? (ps_status)word[0]
                                   : PS_SUCCESS);
        if (st != PS_SUCCESS || k + jb >= n) break;
        st = uplo == PS__LOWER ? spread_column(g, a, k, jb, &w) : spread_row(g, a, k, jb, &w);
        if (st == PS_SUCCESS) st = update(g, a, uplo, k, jb, &w);
        st = ps__dist_agree(g, st);
    }
    if (w.dw.buf) ps__dev_free(g->ctx, w.dw.buf);
    if (w.pd.buf) ps__dev_free(g->ctx, w.pd.buf);
    if (w.md.buf) ps__dev_free(g->ctx, w.md.buf);
    free(w.stage.p);
    free(w.panel.p);
    free(w.mine.p);
    return st;
}
