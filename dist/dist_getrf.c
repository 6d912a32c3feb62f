/*
 * Right-looking LU with partial pivoting on the block-cyclic layout (ScaLAPACK's pdgetrf). Step
 * k, block column K of width jb:
 *   1. the process column holding K assembles the panel rows k.. on the device of the rank
 *      holding the diagonal block, which factors them (the context's panel factorization) and
 *      sends them back;
 *   2. the pivots go to every rank, which applies them to its columns outside the panel;
 *   3. the panel goes along the process rows, the diagonal block's process row solves for its
 *      block row of U and sends it down the process columns;
 *   4. every rank updates its part of the trailing matrix with one GEMM.
 * With two lanes, look-ahead: the next block column is updated first on lane 0, and its panel
 * (step 1, whose pivots the host needs) runs on lane 1 while lane 0 updates the rest. Each step
 * starts with an agreement on the status, so a failure on one rank ends the call on all.
 */
#include "dist.h"
#include "lu/lu.h"

#include <stdlib.h>

/* The scratch of the panel steps: the assembled panel (m x nb), a process row's part of it
 * (LOCr x nb), the panel's pivots and zero-pivot word (device int32), and the verdict sent to
 * every rank ({status, info, pivots}). */
typedef struct {
    void *w, *part, *ipiv, *info;
    int *word;
    int zero_seen; /* this rank's info already reported */
} panel_scratch;

/* The panel at step k on the devices, on the current lane of s: every process row sends its
 * rows of it down the process column, the diagonal block's rank assembles them in global order
 * and factors them with the context's panel factorization, the factored panel goes back down the
 * column and every rank takes its rows. The pivots (0-based global rows) into piv and the first
 * zero pivot into *info, on every rank; ps->info (zero at the start) keeps this rank's first. */
static ps_status factor_panel(ps__dist_steps *s, ps__dist_mat *a, int k, int jb, panel_scratch *ps,
                              ps__dist_buf *stage, int *piv, int *info) {
    ps_grid *g = s->g;
    ps__backend *be = &g->ctx->be;
    int m = a->r.n, mk = m - k, pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
    ps__mat v = ps__mat_at(a->m, ps__cyclic_below(&a->r, k, g->myrow), ps__cyclic_local(&a->c, k));
    ps__mat w = {ps->w, 0, mk};
    ps_status st = PS_SUCCESS;
    int *word = ps->word;
    word[0] = PS_SUCCESS, word[1] = 0;
    if (g->mycol == pc) {
        st = ps__dist_assemble(g, PS__DIST_COL, a, k, m, jb, v, ps->part, g->myrow == pr, w,
                               s->lane, stage);
        if (g->myrow == pr && st == PS_SUCCESS) {
            int32_t zero = 0;
            ps__vec pv = {ps->ipiv, 0, 1}, iv = {ps->info, 0, 1};
            /* the pivots read on this lane only, while the other one updates */
            st = ps__lu_panel(g->ctx, a->dt, mk, w, 0, jb, ps->ipiv, ps->info);
            if (st == PS_SUCCESS) st = be->ops->fetch_start(be, PS__INT32, 0, jb, pv);
            if (st == PS_SUCCESS) st = be->ops->fetch_start(be, PS__INT32, 1, 1, iv);
            if (st == PS_SUCCESS) st = be->ops->fetch_wait(be, PS__INT32, 0, jb, pv, word + 2);
            if (st == PS_SUCCESS) st = be->ops->fetch_wait(be, PS__INT32, 1, 1, iv, &zero);
            if (st != PS_SUCCESS)
                st = ps__dist_fail(g, st, "rank %d: the panel at column %d: %s", g->rank, k + 1,
                                   ps_context_last_error(g->ctx));
            if (zero > 0 && !ps->zero_seen) word[1] = k + zero, ps->zero_seen = 1;
            for (int i = 0; i < jb; i++) word[2 + i] += k;
        }
        if (g->myrow == pr) word[0] = (int)st;
    }
    MPI_Bcast(word, jb + 2, MPI_INT, pr * g->npcol + pc, g->all);
    if (g->mycol == pc && word[0] == PS_SUCCESS) {
        ps_status x = ps__dist_bcast(g, PS__DIST_COL, pr, a->dt, mk, jb, w, w, s->lane, stage);
        if (st == PS_SUCCESS) st = x;
        if (st == PS_SUCCESS)
            st = ps__dist_failed(g, ps__dist_move_runs(be, a->dt, &a->r, g->myrow,
                                                       ps__cyclic_below(&a->r, k, g->myrow),
                                                       a->lrows, k, jb, 0, v, w, 0));
    }
    /* after a failure on the root (which the step's agreement reports) no row moves */
    for (int i = 0; i < jb; i++) piv[i] = word[0] == PS_SUCCESS ? word[2 + i] : k + i;
    if (word[1] && !*info) *info = word[1];
    return st;
}

ps_status ps__dist_getrf(ps_grid *g, ps__dist_mat *a, int *piv, int *info) {
    if (g->nprow == 1) return ps__dist_getrf_cols(g, a, piv, info);
    ps__backend *be = &g->ctx->be;
    ps__dtype dt = a->dt;
    size_t es = ps__dtype_size(dt);
    int m = a->r.n, n = a->c.n, nb = a->r.nb, kmax = m < n ? m : n;
    ps__dist_buf stage = {0};
    ps__mat lw = {0}, uw = {0};
    panel_scratch ps = {0};
    int lrows = a->lrows > 0 ? a->lrows : 1, lcols = a->lcols > 0 ? a->lcols : 1, part_rows = 1;
    for (int p = 0; p < g->nprow; p++)
        if (ps__cyclic_below(&a->r, m, p) > part_rows) part_rows = ps__cyclic_below(&a->r, m, p);
    /* everything the steps need, reserved and agreed on first */
    size_t most = (size_t)(a->lrows + m) * (size_t)nb;
    if ((size_t)4 * nb * lcols > most) most = (size_t)4 * nb * lcols;
    if ((size_t)lrows * nb > most) most = (size_t)lrows * nb;
    ps_status st = ps__dist_reserve(g, &stage, most * es);
    if (st == PS_SUCCESS) {
        ps.word = malloc((size_t)(nb + 2) * sizeof *ps.word);
        if (!ps.word) st = ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    }
    if (st == PS_SUCCESS) {
        ps_context *ctx = g->ctx;
        lw.ld = lrows, uw.ld = nb;
        st = ps__dev_alloc(ctx, (size_t)lrows * nb * es, &lw.buf);
        /* U's block row, and before it the interchanges' rows (ps__dist_swap_rows) */
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, (size_t)4 * nb * (lcols + 1) * es, &uw.buf);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, (size_t)(m > 0 ? m : 1) * nb * es, &ps.w);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, (size_t)part_rows * nb * es, &ps.part);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, (size_t)nb * sizeof(int32_t), &ps.ipiv);
        if (st == PS_SUCCESS) st = ps__dev_alloc(ctx, sizeof(int32_t), &ps.info);
        st = ps__dist_failed(g, st);
    }
    if (st == PS_SUCCESS) st = ps__dist_failed(g, ps__zero_info(g->ctx, ps.info));
    ps__dist_steps s = {
        .g = g, .lanes = be->ops->lanes(be) > 1 ? 2 : 1, .st = ps__dist_agree(g, st)};
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    if (kmax > 0 && s.st == PS_SUCCESS) {
        ps__dist_use_lane(&s, 1);
        ps__dist_keep(&s, factor_panel(&s, a, 0, kmax < nb ? kmax : nb, &ps, &stage, piv, info));
    }
    for (int k = 0; k < kmax; k += nb) {
        /* one agreement a step, before its exchanges */
        s.st = ps__dist_agree(g, s.st);
        if (s.st != PS_SUCCESS) break;
        int jb = kmax - k < nb ? kmax - k : nb, next = k + jb;
        int pr = ps__cyclic_owner(&a->r, k), pc = ps__cyclic_owner(&a->c, k);
        int r0 = ps__cyclic_below(&a->r, k, g->myrow), lc = ps__cyclic_local(&a->c, k);
        ps__dist_lane_wait(&s, 0, 1); /* panel k is in place */
        ps__dist_use_lane(&s, 0);
        /* the interchanges on the columns outside the panel */
        int in_panel = g->mycol == pc;
        ps__dist_keep(&s, ps__dist_swap_rows(g, a, k, jb, piv + k, 0, a->lcols, in_panel ? lc : 0,
                                             in_panel ? lc + jb : 0, 0, &stage, uw.buf));
        /* L along the process rows; U's block row down the process columns */
        ps__mat lpanel = in_panel ? ps__mat_at(a->m, r0, lc) : lw;
        ps__dist_keep(&s, ps__dist_bcast(g, PS__DIST_ROW, pc, dt, a->lrows - r0, jb,
                                         ps__mat_at(a->m, r0, lc), lw, 0, &stage));
        int c1 = ps__cyclic_below(&a->c, next, g->mycol), right = a->lcols - c1;
        if (g->myrow == pr && right > 0 && s.st == PS_SUCCESS)
            ps__dist_note(&s, be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, jb,
                                            right, &one, lpanel, ps__mat_at(a->m, r0, c1)));
        ps__mat upanel = g->myrow == pr ? ps__mat_at(a->m, r0, c1) : uw;
        ps__dist_keep(&s, ps__dist_bcast(g, PS__DIST_COL, pr, dt, jb, right,
                                         ps__mat_at(a->m, r0, c1), uw, 0, &stage));
        /* the trailing update: the next block column first, then its panel on lane 1 beside
         * the rest */
        int r1 = ps__cyclic_below(&a->r, next, g->myrow), below = a->lrows - r1, ahead = 0;
        if (next < kmax && g->mycol == ps__cyclic_owner(&a->c, next))
            ahead = n - next < nb ? n - next : nb;
        for (int part = 0; part < 2; part++) {
            int from = part ? ahead : 0, cols = part ? right - ahead : ahead;
            if (below > 0 && cols > 0 && s.st == PS_SUCCESS)
                ps__dist_note(&s, be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, below, cols, jb,
                                                &minus_one, ps__mat_at(lpanel, r1 - r0, 0),
                                                ps__mat_at(upanel, 0, from), &one,
                                                ps__mat_at(a->m, r1, c1 + from)));
            if (part == 0 && next < kmax) ps__dist_lane_wait(&s, 1, 0);
        }
        if (next < kmax) {
            int jn = kmax - next < nb ? kmax - next : nb;
            ps__dist_use_lane(&s, 1);
            ps__dist_keep(&s, factor_panel(&s, a, next, jn, &ps, &stage, piv + next, info));
        }
    }
    ps__dist_lanes_join(&s);
    st = ps__dist_agree(g, s.st);
    void *dev[] = {lw.buf, uw.buf, ps.w, ps.part, ps.ipiv, ps.info};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++)
        if (dev[i]) ps__dev_free(g->ctx, dev[i]);
    free(ps.word);
    free(stage.p);
    return st;
}
