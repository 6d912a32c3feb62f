/*
 * The host-array LU of a grid of one process row with its transfers beside the work
 * (dist_staged.c runs the parts). Every step applies its interchanges to all the columns left of
 * its panel on the device, so a block row is final in every column once its step is done; the
 * rows below the split go down block row by block row behind the last steps, and nothing is
 * left for the host to do after them. The flops are the plain LU's, plus one more broadcast of
 * each left panel (two of the first piece's). Grids of several process rows run dist_getrf.c's
 * steps in the same parts.
 */
#include "dist_lu_cols.h"
#include "dist_staged.h"

static void steps(void *w, int k0, int k1) {
    ps__cols_lu_steps(w, k0, k1);
}

static void catch_up(void *w, int f, int g1) {
    ps__cols_lu_catch_up(w, f, g1);
}

ps_status ps__dist_getrf_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f, int *piv,
                                int *info) {
    if (g->nprow > 1) return ps__dist_getrf_grid_staged(g, a, host, lld, f, piv, info);
    ps__cols_lu w;
    if (ps__cols_lu_open(&w, g, a) != PS_SUCCESS) return ps__cols_lu_close(&w, piv, info);
    ps__dist_parts parts = {&w, &w.s, steps, catch_up, 0, PS__LOWER, 1, 0};
    ps__dist_staged_run(g, a, host, lld, f, &parts);
    return ps__cols_lu_close(&w, piv, info);
}
