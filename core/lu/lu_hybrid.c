/*
 * LU with every panel factored on the host CPU and every update on the device: MAGMA's
 * dgetrf_gpu scheme, for backends whose own panel kernel is slow (the OpenCL backend's panel is
 * one work-group per column, and OpenCL 1.2 has no grid-wide barrier for a faster one). The
 * host-panel helpers are gjinv's hybrid variant's too.
 *
 * Per block step j, on the backend's one in-order queue: upload panel j (factored on the host)
 * and its pivots, swap the columns left of it, update the next block column with it, download
 * that block column (the only wait: for that small update), queue the update of the rest of the
 * trailing matrix, and factor the next panel on the host (the CPU backend's recursive panel on
 * OpenBLAS) while the device runs that big update. The host panel buffer holds rows at their
 * absolute positions, so the host factorization's pivots are the device's as they are.
 */
#include "lu/lu.h"

ps_status ps__host_panel_open(ps_context *ctx, ps__scratch *s, ps__dtype dt, int m, int nb, int k,
                              ps__host_panel *hp) {
    void *panel, *pivots;
    *hp = (ps__host_panel){NULL, {NULL, 0, m}, NULL, 0};
    PS__TRY(ps__context_host(ctx, &hp->host));
    /* from the backend's transfer memory: it travels twice per step */
    PS__TRY(ps__scratch_transfer(s, ps__dtype_size(dt) * (size_t)m * (size_t)nb, &panel));
    PS__TRY(ps__scratch_host(s, sizeof(int32_t) * (size_t)k, &pivots));
    hp->panel.buf = panel;
    hp->ipiv = pivots;
    return PS_SUCCESS;
}

ps_status ps__host_panel_download(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w,
                                  ps__host_panel *hp) {
    ps__backend *be = &ctx->be;
    void *rows_j = (char *)hp->panel.buf + ps__dtype_size(dt) * (size_t)j;
    return be->ops->download(be, dt, m - j, w, ps__mat_at(a, j, j), rows_j, hp->panel.ld);
}

ps_status ps__host_panel_factor(ps__dtype dt, int m, int j, int w, ps__host_panel *hp) {
    return ps__lu_panel(hp->host, dt, m, ps__mat_global_columns(hp->panel, j), j, w, hp->ipiv,
                        &hp->info);
}

ps_status ps__host_panel_upload(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w,
                                void *ipiv, const ps__host_panel *hp) {
    ps__backend *be = &ctx->be;
    const void *rows_j = (const char *)hp->panel.buf + ps__dtype_size(dt) * (size_t)j;
    PS__TRY(be->ops->upload(be, dt, m - j, w, rows_j, hp->panel.ld, ps__mat_at(a, j, j)));
    ps__mat pivots = {ipiv, (size_t)j, w};
    return be->ops->upload(be, PS__INT32, w, 1, hp->ipiv + j, w, pivots);
}

static ps_status run(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv, void *info,
                     int nb, ps__host_panel *hp) {
    ps__backend *be = &ctx->be;
    int k = m < n ? m : n;
    PS__TRY(ps__host_panel_download(ctx, dt, m, a, 0, k < nb ? k : nb, hp));
    PS__TRY(ps__host_panel_factor(dt, m, 0, k < nb ? k : nb, hp));
    for (int j = 0; j < k; j += nb) {
        int jb = k - j < nb ? k - j : nb, next = j + jb;
        int nb2 = next < k ? (k - next < nb ? k - next : nb) : 0; /* the next panel's width */
        int rest0 = next + nb2;
        PS__TRY(ps__host_panel_upload(ctx, dt, m, a, j, jb, ipiv, hp));
        if (j > 0) PS__TRY(be->ops->laswp(be, dt, j, a, j, next, ipiv, (size_t)j, 1));
        if (nb2 > 0) {
            /* the next panel's download waits for its update only; the big update follows */
            PS__TRY(ps__lu_update(ctx, dt, m, a, j, jb, next, nb2, ipiv));
            PS__TRY(ps__host_panel_download(ctx, dt, m, a, next, nb2, hp));
        }
        if (rest0 < n) PS__TRY(ps__lu_update(ctx, dt, m, a, j, jb, rest0, n - rest0, ipiv));
        if (nb2 > 0) PS__TRY(ps__host_panel_factor(dt, m, next, nb2, hp));
    }
    if (!hp->info) return PS_SUCCESS;
    ps__mat info_view = {info, 0, 1}; /* no device panel ran: the word is still zero */
    return be->ops->upload(be, PS__INT32, 1, 1, &hp->info, 1, info_view);
}

ps_status ps__getrf_hybrid(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                           void *info, int nb) {
    int k = m < n ? m : n;
    if (k == 0) return PS_SUCCESS;
    if (nb < 1 || nb > k) nb = k;
    ps__scratch s = ps__scratch_begin(ctx);
    ps__host_panel hp;
    ps_status st = ps__host_panel_open(ctx, &s, dt, m, nb, k, &hp);
    if (!st) st = run(ctx, dt, m, n, a, ipiv, info, nb, &hp);
    ps__scratch_end(&s);
    return st;
}
