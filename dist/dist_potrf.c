/*
 * Right-looking Cholesky on the block-cyclic layout (ScaLAPACK's pdpotrf), lower or upper. Step
 * k: the rank holding the diagonal block factors it (the context's potrf) and the verdict goes
 * to every rank; the block column below it (lower; upper: the block row right of it) is solved
 * on its process column (row) and then reaches every rank whole; every rank updates the blocks
 * of its trailing triangle with SYRK on diagonal blocks and GEMM elsewhere. The other triangle
 * is never read or written.
 */
#include "dist.h"
#include "base/check.h"
#include "chol/chol.h"

#include <stdlib.h>

/* The diagonal block at step k, factored on its rank's device (the context's potrf); {status,
 * info} on every rank. */
static void factor_diagonal(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, int k, int jb, void *info,
                            int word[2]) {
    int pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    word[0] = PS_SUCCESS, word[1] = 0;
    if (g->myrow == pr && g->mycol == pc) {
        ps__mat d = ps__mat_at(a->m, ps__cyclic_local(&a->r, k), ps__cyclic_local(&a->c, k));
        int minor = 0;
        ps_status st = ps__potrf(g->ctx, a->dt, uplo, jb, d, info);
        if (st == PS_SUCCESS) st = ps__read_info(g->ctx, info, &minor);
        if (st != PS_SUCCESS)
            st = ps__dist_fail(g, st, "rank %d: the diagonal block at %d: %s", g->rank, k + 1,
                               ps_context_last_error(g->ctx));
        if (minor > 0) word[1] = k + minor;
        word[0] = (int)st;
    }
    MPI_Bcast(word, 2, MPI_INT, pr * g->npcol + pc, g->all);
}

typedef struct {
    ps__dist_buf stage;
    /* device: the diagonal block; the whole panel; the panel's part for this rank's rows; one
     * process's part of the panel on its way; potrf's info word */
    ps__mat dw, pd, md;
    void *part, *info;
} workspace;

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
    ps_status st = PS_SUCCESS;
    w->pd.ld = count;
    if (g->mycol == pc) {
        ps__mat d = ps__mat_at(a->m, ps__cyclic_below(&a->r, k, g->myrow), lc);
        ps__mat mine = ps__mat_at(a->m, r1, lc);
        st = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, jb, d, w->dw, 0, &w->stage);
        ps__scalar one = ps__scalar_of(dt, 1.0);
        if (st == PS_SUCCESS && rows > 0)
            st = ps__dist_failed(g,
                                 be->ops->trsm(be, dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT,
                                               rows, jb, &one, g->myrow == pr ? d : w->dw, mine));
        ps_status x = ps__dist_assemble(g, PS__DIST_COL, a, k + jb, n, jb, mine, w->part, 1, w->pd,
                                        0, &w->stage);
        if (st == PS_SUCCESS) st = x;
    }
    ps_status x = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, count, jb, w->pd, w->pd, 0, &w->stage);
    if (st == PS_SUCCESS) st = x;
    w->md.ld = rows > 0 ? rows : 1;
    if (st == PS_SUCCESS && rows > 0)
        st = ps__dist_failed(g, ps__dist_move_runs(be, dt, &a->r, g->myrow, r1, a->lrows, k + jb,
                                                   jb, 0, w->md, w->pd, 0));
    return st;
}

/* Upper: the block row right of the diagonal solved, then U(k..k + jb, k + jb..) on every rank
 * (pd, jb x count) with the columns for this rank's rows in md (jb x rows), the same way along
 * the process row, then down the columns. */
static ps_status spread_row(ps_grid *g, ps__dist_mat *a, int k, int jb, workspace *w) {
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    int n = a->r.n, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    int count = n - k - jb, r0 = ps__cyclic_below(&a->r, k, g->myrow);
    int c1 = ps__cyclic_below(&a->c, k + jb, g->mycol), cols = a->lcols - c1;
    int r1 = ps__cyclic_below(&a->r, k + jb, g->myrow), rows = a->lrows - r1;
    ps_status st = PS_SUCCESS;
    w->pd.ld = jb;
    if (g->myrow == pr) {
        ps__mat d = ps__mat_at(a->m, r0, ps__cyclic_below(&a->c, k, g->mycol));
        ps__mat mine = ps__mat_at(a->m, r0, c1);
        st = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, jb, jb, d, w->dw, 0, &w->stage);
        ps__scalar one = ps__scalar_of(dt, 1.0);
        if (st == PS_SUCCESS && cols > 0)
            st = ps__dist_failed(g,
                                 be->ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT,
                                               jb, cols, &one, g->mycol == pc ? d : w->dw, mine));
        ps_status x = ps__dist_assemble(g, PS__DIST_ROW, a, k + jb, n, jb, mine, w->part, 1, w->pd,
                                        0, &w->stage);
        if (st == PS_SUCCESS) st = x;
    }
    ps_status x = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, count, w->pd, w->pd, 0, &w->stage);
    if (st == PS_SUCCESS) st = x;
    w->md.ld = jb;
    if (st == PS_SUCCESS && rows > 0)
        st = ps__dist_failed(g, ps__dist_move_runs(be, dt, &a->r, g->myrow, r1, a->lrows, k + jb,
                                                   jb, 1, w->md, w->pd, 0));
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
        if (st != PS_SUCCESS) return ps__dist_failed(g, st);
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
    /* the largest part of the panel one process holds: its rows (lower) or columns (upper) */
    int part = 1;
    for (int p = 0; p < g->nprow; p++)
        if (ps__cyclic_below(&a->r, n, p) > part) part = ps__cyclic_below(&a->r, n, p);
    for (int q = 0; q < g->npcol; q++)
        if (ps__cyclic_below(&a->c, n, q) > part) part = ps__cyclic_below(&a->c, n, q);
    size_t most = (size_t)(n > 0 ? n : 1) * nb;
    ps_status st = ps__dist_reserve(g, &w.stage, most * es);
    void **dev[] = {&w.dw.buf, &w.pd.buf, &w.md.buf, &w.part, &w.info};
    size_t bytes[] = {(size_t)nb * nb * es, most * es, (size_t)lrows * nb * es,
                      (size_t)part * nb * es, sizeof(int32_t)};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0] && st == PS_SUCCESS; i++)
        st = ps__dist_failed(g, ps__dev_alloc(g->ctx, bytes[i], dev[i]));
    st = ps__dist_agree(g, st);
    for (int k = 0; k < n && st == PS_SUCCESS; k += nb) {
        int jb = n - k < nb ? n - k : nb, word[2];
        factor_diagonal(g, a, uplo, k, jb, w.info, word);
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
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (*dev[i]) ps__dev_free(g->ctx, *dev[i]);
    free(w.stage.p);
    return st;
}
