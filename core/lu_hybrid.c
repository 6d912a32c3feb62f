/*
 * LU with every panel factored on the host CPU and every update on the device: MAGMA's
 * dgetrf_gpu scheme, for backends whose own panel kernel is slow (the OpenCL backend's panel is
 * one work-group per column, and OpenCL 1.2 has no grid-wide barrier for a faster one).
 *
 * Per block step j, on the backend's one in-order queue: upload panel j (factored on the host)
 * and its pivots, swap the columns left of it, update the next block column with it, download
 * that block column (the only wait: for that small update), queue the update of the rest of the
 * trailing matrix, and factor the next panel on the host (the CPU backend's recursive panel on
 * OpenBLAS) while the device runs that big update. The host panel buffer holds rows at their
 * absolute positions, so the host factorization's pivots are the device's as they are.
 */
#include "lu.h"

#include <stdint.h>

typedef struct {
    ps_context *host; /* the CPU context that factors the panels */
    ps__mat panel;    /* host: m x nb, rows at their absolute positions, column 0 = column j */
    int32_t *ipiv;    /* host: the pivots, absolute rows */
    int32_t info;     /* host: the first zero pivot's 1-based column, 0 if none */
} host_panel;

/* Downloads columns [j, j + w) of rows [j, m) and factors them on the host. */
static ps_status factor_on_host(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w,
                                host_panel *hp) {
    ps__backend *be = &ctx->be;
    void *rows_j = (char *)hp->panel.buf + ps__dtype_size(dt) * (size_t)j;
    PS__TRY(be->ops->download(be, dt, m - j, w, ps__mat_at(a, j, j), rows_j, hp->panel.ld));
    return ps__lu_panel(hp->host, dt, m, ps__mat_global_columns(hp->panel, j), j, w, hp->ipiv,
                        &hp->info);
}

/* Puts the host-factored panel j and its pivots back on the device. */
static ps_status upload_panel(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w,
                              void *ipiv, const host_panel *hp) {
    ps__backend *be = &ctx->be;
    const void *rows_j = (const char *)hp->panel.buf + ps__dtype_size(dt) * (size_t)j;
    PS__TRY(be->ops->upload(be, dt, m - j, w, rows_j, hp->panel.ld, ps__mat_at(a, j, j)));
    ps__mat pivots = {ipiv, (size_t)j, w};
    return be->ops->upload(be, PS__INT32, w, 1, hp->ipiv + j, w, pivots);
}

static ps_status run(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv, void *info,
                     int nb, host_panel *hp) {
    ps__backend *be = &ctx->be;
    int k = m < n ? m : n;
    PS__TRY(factor_on_host(ctx, dt, m, a, 0, k < nb ? k : nb, hp));
    for (int j = 0; j < k; j += nb) {
        int jb = k - j < nb ? k - j : nb, next = j + jb;
        int nb2 = next < k ? (k - next < nb ? k - next : nb) : 0; /* the next panel's width */
        PS__TRY(upload_panel(ctx, dt, m, a, j, jb, ipiv, hp));
        if (j > 0) PS__TRY(be->ops->laswp(be, dt, j, a, j, next, ipiv, (size_t)j, 1));
        if (nb2 > 0) PS__TRY(ps__lu_update(ctx, dt, m, a, j, jb, next, nb2, ipiv));
        /* the next panel's download waits for its update only; the big update follows it */
        int rest0 = next + nb2;
        if (nb2 > 0) {
            void *rows = (char *)hp->panel.buf + ps__dtype_size(dt) * (size_t)next;
            PS__TRY(be->ops->download(be, dt, m - next, nb2, ps__mat_at(a, next, next), rows,
                                      hp->panel.ld));
        }
        if (rest0 < n) PS__TRY(ps__lu_update(ctx, dt, m, a, j, jb, rest0, n - rest0, ipiv));
        if (nb2 > 0)
            PS__TRY(ps__lu_panel(hp->host, dt, m, ps__mat_global_columns(hp->panel, next), next,
                                 nb2, hp->ipiv, &hp->info));
    }
    if (!hp->info) return PS_SUCCESS;
    ps__mat info_view = {info, 0, 1}; /* no device panel ran: the word is still zero */
    return be->ops->upload(be, PS__INT32, 1, 1, &hp->info, 1, info_view);
}

ps_status ps__getrf_hybrid(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                           void *info, int nb) {
    int k = m < n ? m : n;
    if (k == 0) return PS_SUCCESS;
    if (nb < 1) nb = k;
    if (nb > k) nb = k;
    host_panel hp = {NULL, {NULL, 0, m}, NULL, 0};
    PS__TRY(ps__context_host(ctx, &hp.host));
    ps__scratch s = ps__scratch_begin(ctx);
    void *panel, *pivots;
    ps_status st = ps__scratch_host(&s, ps__dtype_size(dt) * (size_t)m * (size_t)nb, &panel);
    if (!st) st = ps__scratch_host(&s, sizeof(int32_t) * (size_t)k, &pivots);
    if (!st) {
        hp.panel.buf = panel;
        hp.ipiv = pivots;
        st = run(ctx, dt, m, n, a, ipiv, info, nb, &hp);
    }
    ps__scratch_end(&s);
    return st;
}
