/*
 * The host-array LU of a grid of one process row with its transfers beside the work
 * (dist_staged.c runs the parts). After them the bottom right corner comes down, and the host
 * applies the right half's interchanges to the left half's rows below the split, which went down
 * before those interchanges; so does the device to its copy, for the solves that follow. The
 * flops are the plain LU's, plus one more broadcast of each left panel (two of the first
 * piece's).
 */
#include "dist_lu_cols.h"
#include "dist_staged.h"
#include "lu/lu.h"
#include "base/staging.h"

#include <stdlib.h>

static void steps(void *w, int k0, int k1) {
    ps__cols_lu_steps(w, k0, k1);
}

static void catch_up(void *w, int f, int g1) {
    ps__cols_lu_catch_up(w, f, g1);
}

ps_status ps__dist_getrf_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f, int *piv,
                                int *info) {
    ps_context *ctx = g->ctx;
    ps__backend *be = &ctx->be;
    ps__dtype dt = a->dt;
    size_t es = ps__dtype_size(dt);
    int m = a->r.n, kmax = m < a->c.n ? m : a->c.n, threads = g->host_threads;
    int lf = ps__cyclic_below(&a->c, f, g->mycol);
    /* the host's share of the interchanges, reserved before anything reaches the caller */
    int *from = malloc((size_t)(m - f) * sizeof *from);
    char *buffers = malloc((size_t)threads * (size_t)(m - f) * es);
    ps__cols_lu w;
    ps_status st = ps__dist_agree(
        g, from && buffers ? PS_SUCCESS
                           : ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory"));
    if (st == PS_SUCCESS && ps__cols_lu_open(&w, g, a) != PS_SUCCESS)
        st = ps__cols_lu_close(&w, piv, info);
    if (st != PS_SUCCESS) {
        free(from), free(buffers);
        return st;
    }
    ps__dist_parts parts = {&w, &w.s, &w.frozen, steps, catch_up, 0, PS__LOWER, 1};
    ps__dist_staged_run(g, a, host, lld, f, &parts);
    /* the device's left columns take the later interchanges now that they are down */
    if (w.s.st == PS_SUCCESS && lf > 0)
        ps__dist_note(&w.s, be->ops->laswp(be, dt, lf, a->m, f, kmax, w.ipiv, (size_t)f, 1));
    st = ps__cols_lu_close(&w, piv, info);
    if (st == PS_SUCCESS) {
        st = ps__dist_move(g, 0, dt, m - f, a->lcols - lf,
                           (char *)host + ((size_t)lf * (size_t)lld + (size_t)f) * es, lld,
                           ps__mat_at(a->m, f, lf));
        st = ps__dist_failed(g, st);
        st = ps__dist_agree(g, st);
    }
    if (st == PS_SUCCESS)
        ps__lu_host_interchanges(dt, lf, host, lld, piv, 0, f, kmax, m, from, buffers, threads);
    free(from), free(buffers);
    return st;
}
