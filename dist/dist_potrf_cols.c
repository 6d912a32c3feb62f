/*
 * Lower Cholesky on grids of one process row (1 x P), every step on the devices. Step k, block
 * column K of width jb on process column pc: pc factors the diagonal block (the context's potrf)
 * and, unless it is not positive definite, solves the block column below it (trsm), packs it and
 * broadcasts it along the row; every rank then updates its trailing block columns against it,
 * SYRK on the diagonal block and GEMM below, never touching the upper triangle. The diagonal
 * block's verdict is read back each step, as LAPACK stops at the first minor that fails.
 */
#include "chol/chol.h"
#include "dist.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    ps_grid *g;
    ps__dist_mat *a;
    void *info, *pan; /* device: the diagonal block's verdict; the broadcast block column */
    ps__dist_buf stage;
    ps_status st;
} cols_chol;

static void note(cols_chol *w, ps_status s) {
    if (s != PS_SUCCESS && w->st == PS_SUCCESS)
        w->st = ps__dist_fail(w->g, s, "rank %d: %s", w->g->rank, ps_context_last_error(w->g->ctx));
}

/* The diagonal block and the block column below it on pc; the first failing minor's order
 * (0: none) on every rank. */
static int factor_column(cols_chol *w, int k, int jb) {
    ps_grid *g = w->g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    int n = a->r.n, pc = ps__cyclic_owner(&a->c, k), lc = ps__cyclic_local(&a->c, k);
    int32_t word[2] = {PS_SUCCESS, 0};
    if (g->mycol == pc) {
        ps__mat d = ps__mat_at(a->m, k, lc);
        note(w, ps__potrf(g->ctx, a->dt, PS__LOWER, jb, d, w->info));
        if (w->st == PS_SUCCESS)
            note(w, be->ops->download(be, PS__INT32, 1, 1, (ps__mat){w->info, 0, 1}, &word[1], 1));
        ps__scalar one = ps__scalar_of(a->dt, 1.0);
        if (w->st == PS_SUCCESS && !word[1] && n - k - jb > 0) {
            note(w, be->ops->trsm(be, a->dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT,
                                  n - k - jb, jb, &one, d, ps__mat_at(d, jb, 0)));
            if (g->npcol > 1 && w->st == PS_SUCCESS)
                note(w, be->ops->copy2d(be, a->dt, n - k - jb, jb, ps__mat_at(d, jb, 0),
                                        (ps__mat){w->pan, 0, n - k - jb}));
        }
        word[0] = (int32_t)w->st;
    }
    MPI_Bcast(word, 2, MPI_INT32_T, pc, g->row);
    if (word[0] != PS_SUCCESS) return 0; /* the step's agreement reports it */
    return word[1] ? k + word[1] : 0;
}

/* This rank's block columns right of block column K against L(k + jb.., k..k + jb). */
static void update(cols_chol *w, int k, int jb) {
    ps_grid *g = w->g;
    ps__dist_mat *a = w->a;
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    int n = a->r.n, nb = a->c.nb, below = n - k - jb;
    ps__mat l = g->mycol == ps__cyclic_owner(&a->c, k)
                    ? ps__mat_at(a->m, k + jb, ps__cyclic_local(&a->c, k))
                    : (ps__mat){w->pan, 0, below};
    for (int c = ps__cyclic_below(&a->c, k + jb, g->mycol); c < a->lcols && w->st == PS_SUCCESS;
         c += nb) {
        int gj = ps__cyclic_global(&a->c, c, g->mycol), wj = a->lcols - c < nb ? a->lcols - c : nb;
        ps__mat lj = ps__mat_at(l, gj - k - jb, 0);
        note(w, be->ops->syrk(be, dt, PS__LOWER, PS__NOTRANS, wj, jb, &minus_one, lj, &one,
                              ps__mat_at(a->m, gj, c)));
        if (w->st == PS_SUCCESS && n - gj - wj > 0)
            note(w, be->ops->gemm(be, dt, PS__NOTRANS, PS__TRANS, n - gj - wj, wj, jb, &minus_one,
                                  ps__mat_at(lj, wj, 0), lj, &one, ps__mat_at(a->m, gj + wj, c)));
    }
}

ps_status ps__dist_potrf_cols(ps_grid *g, ps__dist_mat *a, int *info) {
    size_t es = ps__dtype_size(a->dt);
    int n = a->r.n, nb = a->c.nb;
    cols_chol w = {g, a, NULL, NULL, {0}, PS_SUCCESS};
    size_t panel_bytes = (size_t)(n > 0 ? n : 1) * (size_t)nb * es;
    ps_status st = ps__dev_alloc(g->ctx, 4, &w.info);
    if (st == PS_SUCCESS && g->npcol > 1) st = ps__dev_alloc(g->ctx, panel_bytes, &w.pan);
    if (st != PS_SUCCESS)
        st = ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
    if (st == PS_SUCCESS && !ps__dist_peers(g)) st = ps__dist_reserve(g, &w.stage, panel_bytes);
    w.st = ps__dist_agree(g, st);
    for (int k = 0; k < n && w.st == PS_SUCCESS; k += nb) {
        int jb = n - k < nb ? n - k : nb, failed = factor_column(&w, k, jb);
        w.st = ps__dist_agree(g, w.st);
        if (w.st != PS_SUCCESS) break;
        if (failed) {
            *info = failed;
            break;
        }
        if (k + jb >= n) break;
        note(&w, ps__dist_vbcast(g, PS__DIST_ROW, ps__cyclic_owner(&a->c, k), a->dt, w.pan, 0,
                                 (size_t)(n - k - jb) * jb, 0, &w.stage));
        update(&w, k, jb);
    }
    st = ps__dist_agree(g, w.st);
    if (w.info) ps__dev_free(g->ctx, w.info);
    if (w.pan) ps__dev_free(g->ctx, w.pan);
    free(w.stage.p);
    return st;
}
