/*
 * Right-looking LU with partial pivoting on the block-cyclic layout (ScaLAPACK's pdgetrf). Step
 * k, block column K of width jb:
 *   1. the process column holding K gathers the panel rows k.. on the rank holding the diagonal
 *      block, which factors it (the context's getrf) and scatters it back;
 *   2. the pivots go to every rank, which applies them to its columns outside the panel;
 *   3. the panel goes along the process rows, the diagonal block's process row solves for its
 *      block row of U and sends it down the process columns;
 *   4. every rank updates its part of the trailing matrix with one GEMM.
 * Each step ends with an agreement on the status, so a failure on one rank ends the call on all.
 */
#include "dist.h"

#include <stdlib.h>
#include <string.h>

static ps_status host_getrf(ps_grid *g, ps__dtype dt, int m, int n, void *a, int *ipiv) {
    if (dt == PS__DOUBLE) return ps_dgetrf(g->ctx, m, n, a, m, ipiv);
    return ps_sgetrf(g->ctx, m, n, a, m, ipiv);
}

/* The panel at step k: factored on the diagonal block's rank, the pivots (0-based global rows)
 * into piv and the status (success, or singular with info) into *st, on every rank. */
static ps_status factor_panel(ps_grid *g, ps__dist_mat *a, int k, int jb, ps__dist_buf *stage,
                              void *panel, int *piv, int *info) {
    int m = a->r.n, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    ps__mat v = ps__mat_at(a->m, ps__cyclic_below(&a->r, k, g->myrow), ps__cyclic_local(&a->c, k));
    ps_status st = PS_SUCCESS;
    /* the root's verdict, then the pivots: {status, info, piv...} */
    int *word = malloc((size_t)(jb + 2) * sizeof *word);
    if (!word) return ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    word[0] = PS_SUCCESS, word[1] = 0;
    if (g->mycol == pc) {
        st = ps__dist_gather_rows(g, a, k, m, jb, v, pr, stage, panel);
        if (g->myrow == pr) {
            if (st == PS_SUCCESS) {
                ps_status f = host_getrf(g, a->dt, m - k, jb, panel, word + 2);
                if (f == PS_ERR_SINGULAR)
                    word[1] = k + ps_context_last_info(g->ctx);
                else if (f != PS_SUCCESS)
                    st = ps__dist_fail(g, f, "rank %d: the panel at column %d: %s", g->rank, k + 1,
                                       ps_context_last_error(g->ctx));
            }
            word[0] = (int)st;
            for (int i = 0; i < jb; i++) word[2 + i] = k + word[2 + i] - 1;
        }
    }
    MPI_Bcast(word, jb + 2, MPI_INT, pr * g->npcol + pc, g->all);
    if (g->mycol == pc && word[0] == PS_SUCCESS) {
        ps_status s = ps__dist_scatter_rows(g, a, k, m, jb, panel, pr, stage, v);
        if (st == PS_SUCCESS) st = s;
    }
    /* after a failure on the root (which the step's agreement reports) no row moves */
    for (int i = 0; i < jb; i++) piv[i] = word[0] == PS_SUCCESS ? word[2 + i] : k + i;
    if (word[1] && !*info) *info = word[1];
    free(word);
    return st;
}

ps_status ps__dist_getrf(ps_grid *g, ps__dist_mat *a, int *piv, int *info) {
    if (g->nprow == 1) return ps__dist_getrf_cols(g, a, piv, info);
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    size_t es = ps__dtype_size(dt);
    int m = a->r.n, n = a->c.n, nb = a->r.nb, kmax = m < n ? m : n;
    ps__dist_buf stage = {0}, panel = {0};
    ps__mat lw = {0}, uw = {0};
    int lrows = a->lrows > 0 ? a->lrows : 1, lcols = a->lcols > 0 ? a->lcols : 1;
    /* everything the steps need, reserved and agreed on first */
    size_t most = (size_t)(a->lrows + m) * (size_t)nb;
    if ((size_t)4 * nb * lcols > most) most = (size_t)4 * nb * lcols;
    if ((size_t)lrows * nb > most) most = (size_t)lrows * nb;
    ps_status st = ps__dist_reserve(g, &stage, most * es);
    if (st == PS_SUCCESS) st = ps__dist_reserve(g, &panel, (size_t)(m > 0 ? m : 1) * nb * es);
    if (st == PS_SUCCESS) {
        lw.ld = lrows, uw.ld = nb;
        st = ps__dev_alloc(g->ctx, (size_t)lrows * nb * es, &lw.buf);
        /* U's block row, and before it the interchanges' rows (ps__dist_swap_rows) */
        if (st == PS_SUCCESS) st = ps__dev_alloc(g->ctx, (size_t)2 * nb * lcols * es, &uw.buf);
        if (st != PS_SUCCESS)
            st = ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
    }
    st = ps__dist_agree(g, st);
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    for (int k = 0; k < kmax && st == PS_SUCCESS; k += nb) {
        int jb = kmax - k < nb ? kmax - k : nb;
        int pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
        int r0 = ps__cyclic_below(&a->r, k, g->myrow), lc = ps__cyclic_local(&a->c, k);
        st = factor_panel(g, a, k, jb, &stage, panel.p, piv + k, info);
        /* the interchanges on the columns outside the panel */
        int in_panel = g->mycol == pc;
        ps_status s = ps__dist_swap_rows(g, a, k, jb, piv + k, 0, in_panel ? lc : a->lcols, 0,
                                         &stage, uw.buf);
        if (st == PS_SUCCESS) st = s;
        if (in_panel) {
            s = ps__dist_swap_rows(g, a, k, jb, piv + k, lc + jb, a->lcols, 0, &stage, uw.buf);
            if (st == PS_SUCCESS) st = s;
        }
        /* L along the process rows; U's block row down the process columns */
        ps__mat lpanel = in_panel ? ps__mat_at(a->m, r0, lc) : lw;
        s = ps__dist_bcast(g, PS__DIST_ROW, pc, dt, a->lrows - r0, jb, ps__mat_at(a->m, r0, lc), lw,
                           &stage);
        if (st == PS_SUCCESS) st = s;
        int c1 = ps__cyclic_below(&a->c, k + jb, g->mycol), right = a->lcols - c1;
        if (g->myrow == pr && right > 0 && st == PS_SUCCESS) {
            st = be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, jb, right, &one,
                               lpanel, ps__mat_at(a->m, r0, c1));
            if (st != PS_SUCCESS)
                st = ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
        }
        ps__mat upanel = g->myrow == pr ? ps__mat_at(a->m, r0, c1) : uw;
        s = ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, right, ps__mat_at(a->m, r0, c1), uw,
                           &stage);
        if (st == PS_SUCCESS) st = s;
        int r1 = ps__cyclic_below(&a->r, k + jb, g->myrow), below = a->lrows - r1;
        if (below > 0 && right > 0 && st == PS_SUCCESS) {
            st = be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, below, right, jb, &minus_one,
                               ps__mat_at(lpanel, r1 - r0, 0), upanel, &one,
                               ps__mat_at(a->m, r1, c1));
            if (st != PS_SUCCESS)
                st = ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
        }
        st = ps__dist_agree(g, st);
    }
    if (lw.buf) ps__dev_free(g->ctx, lw.buf);
    if (uw.buf) ps__dev_free(g->ctx, uw.buf);
    free(stage.p);
    free(panel.p);
    return st;
}
