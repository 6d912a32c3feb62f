/* Moving parts of distributed matrices between the device and the host, and between ranks. */
#include "dist.h"
#include "base/staging.h"

#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define DIST_TRY(g, expr)                                                                          \
    do {                                                                                           \
        ps_status dist_st_ = (expr);                                                               \
        if (dist_st_ != PS_SUCCESS) return ps__dist_failed(g, dist_st_);                           \
    } while (0)

ps_status ps__dist_alloc(ps_grid *g, ps__dtype dt, const int desc[9], ps__dist_mat *d) {
    memset(d, 0, sizeof *d);
    d->dt = dt;
    d->r = (ps__cyclic){desc[2], desc[4], g->nprow, desc[6], g->myrow};
    d->c = (ps__cyclic){desc[3], desc[5], g->npcol, desc[7], g->mycol};
    d->lrows = ps_numroc(d->r.n, d->r.nb, g->myrow, d->r.src, g->nprow);
    d->lcols = ps_numroc(d->c.n, d->c.nb, g->mycol, d->c.src, g->npcol);
    int ld = d->lrows > 0 ? ps__device_ld(d->lrows) : 1; /* aligned columns, as staging.h says */
    size_t bytes = (size_t)ld * (size_t)(d->lcols > 0 ? d->lcols : 1) * ps__dtype_size(dt);
    d->m.ld = ld;
    DIST_TRY(g, ps__dev_alloc(g->ctx, bytes, &d->m.buf));
    return PS_SUCCESS;
}

ps_status ps__dist_upload(ps_grid *g, ps__dtype dt, const int desc[9], const void *a,
                          ps__dist_mat *d) {
    ps_status st = ps__dist_alloc(g, dt, desc, d);
    if (st != PS_SUCCESS) return st;
    st = ps__dist_put(g, d, a, desc[8]);
    if (st != PS_SUCCESS) ps__dist_release(g, d);
    return st;
}

/* The local arrays travel through the context's staging ring (core/base/staging.c): several
 * threads into page-locked buffers, overlapped with the DMA; as many threads as the rank's share
 * of its node's cores, the calling thread's own count back afterwards. */
ps_status ps__dist_move(ps_grid *g, int up, ps__dtype dt, int rows, int cols, void *host, int ld,
                        ps__mat v) {
#ifdef _OPENMP
    int caller = omp_get_max_threads();
    omp_set_num_threads(g->host_threads);
#endif
    ps_status st = up ? ps__upload(g->ctx, dt, rows, cols, host, ld, v)
                      : ps__download(g->ctx, dt, rows, cols, v, host, ld);
#ifdef _OPENMP
    omp_set_num_threads(caller);
#endif
    return st;
}

ps_status ps__dist_put(ps_grid *g, ps__dist_mat *d, const void *a, int lld) {
    if (d->lrows > 0 && d->lcols > 0)
        DIST_TRY(g, ps__dist_move(g, 1, d->dt, d->lrows, d->lcols, (void *)a, lld, d->m));
    return PS_SUCCESS;
}

ps_status ps__dist_download(ps_grid *g, const ps__dist_mat *d, void *a, int lld) {
    if (d->lrows > 0 && d->lcols > 0)
        DIST_TRY(g, ps__dist_move(g, 0, d->dt, d->lrows, d->lcols, a, lld, d->m));
    return PS_SUCCESS;
}

void ps__dist_triangle_rows(const ps__dist_mat *d, ps__uplo uplo, int c, int w, int *r0,
                            int *rows) {
    int k = ps__cyclic_global(&d->c, c, d->c.me);
    *r0 = uplo == PS__LOWER ? ps__cyclic_below(&d->r, k, d->r.me) : 0;
    *rows = uplo == PS__LOWER ? d->lrows - *r0 : ps__cyclic_below(&d->r, k + w, d->r.me);
}

/* uplo's triangle between the host local array and the device, a local block column at a time:
 * Cholesky's drivers move only what they read and write (the other triangle is never written
 * back; on the device it is left undefined). */
static ps_status move_triangle(ps_grid *g, ps__dist_mat *d, ps__uplo uplo, void *a, int lld,
                               int up) {
    size_t es = ps__dtype_size(d->dt);
    for (int c = 0; c < d->lcols; c += d->c.nb) {
        int w = d->lcols - c < d->c.nb ? d->lcols - c : d->c.nb, r0, rows;
        ps__dist_triangle_rows(d, uplo, c, w, &r0, &rows);
        if (rows <= 0) continue;
        char *h = (char *)a + ((size_t)c * (size_t)lld + (size_t)r0) * es;
        ps__mat v = ps__mat_at(d->m, r0, c);
        DIST_TRY(g, ps__dist_move(g, up, d->dt, rows, w, h, lld, v));
    }
    return PS_SUCCESS;
}

ps_status ps__dist_put_triangle(ps_grid *g, ps__dist_mat *d, ps__uplo uplo, const void *a,
                                int lld) {
    return move_triangle(g, d, uplo, (void *)a, lld, 1);
}

ps_status ps__dist_get_triangle(ps_grid *g, const ps__dist_mat *d, ps__uplo uplo, void *a,
                                int lld) {
    return move_triangle(g, (ps__dist_mat *)d, uplo, a, lld, 0);
}

void ps__dist_release(ps_grid *g, ps__dist_mat *d) {
    ps__dev_free(g->ctx, d->m.buf);
    d->m.buf = NULL;
}

static int ascending(const void *x, const void *y) {
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

ps_status ps__dist_move_runs(ps__backend *be, ps__dtype dt, const ps__cyclic *d, int p, int lo,
                             int hi, int g0, int w, int by_cols, ps__mat packed, ps__mat whole,
                             int to_whole) {
    for (int l = lo, len; l < hi; l += len) {
        int g = ps__cyclic_global(d, l, p);
        for (len = 1; l + len < hi && ps__cyclic_global(d, l + len, p) == g + len;) len++;
        ps__mat pv = by_cols ? ps__mat_at(packed, 0, l - lo) : ps__mat_at(packed, l - lo, 0);
        ps__mat wv = by_cols ? ps__mat_at(whole, 0, g - g0) : ps__mat_at(whole, g - g0, 0);
        int rows = by_cols ? w : len, cols = by_cols ? len : w;
        ps_status st = to_whole ? be->ops->copy2d(be, dt, rows, cols, pv, wv)
                                : be->ops->copy2d(be, dt, rows, cols, wv, pv);
        if (st != PS_SUCCESS) return st;
    }
    return PS_SUCCESS;
}

ps_status ps__dist_assemble(ps_grid *g, ps__dist_line line, const ps__dist_mat *a, int g0, int g1,
                            int w, ps__mat mine, void *part, int place, ps__mat whole, int lane) {
    int by_cols = line == PS__DIST_ROW, np = by_cols ? g->npcol : g->nprow;
    int me = by_cols ? g->mycol : g->myrow;
    const ps__cyclic *d = by_cols ? &a->c : &a->r;
    ps_status st = PS_SUCCESS;
    for (int p = 0; p < np; p++) {
        int lo = ps__cyclic_below(d, g0, p), hi = ps__cyclic_below(d, g1, p);
        ps__mat piece = {part, 0, by_cols ? w : (hi > lo ? hi - lo : 1)};
        ps_status x = ps__dist_bcast(g, line, p, a->dt, by_cols ? w : hi - lo,
                                     by_cols ? hi - lo : w, mine, piece, lane);
        if (st == PS_SUCCESS) st = x;
        /* the root keeps its part where it is */
        if (place && st == PS_SUCCESS)
            st = ps__dist_failed(g, ps__dist_move_runs(&g->ctx->be, a->dt, d, p, lo, hi, g0, w,
                                                       by_cols, p == me ? mine : piece, whole, 1));
    }
    return st;
}

/* The position of row r in the touched rows t[0..n) (ascending, r among them). */
static int find_row(const int *t, int n, int r) {
    const int *at = bsearch(&r, t, (size_t)n, sizeof *t, ascending);
    return (int)(at - t);
}

ps_status ps__dist_swap_rows(ps_grid *g, const ps__dist_mat *a, int base, int count, const int *piv,
                             int c0, int c1, int skip0, int skip1, int reverse, void *rows_dev) {
    ps__backend *be = &g->ctx->be;
    /* the columns as up to two ranges [first[r], first[r] + width[r]), side by side in the rows
     * that move */
    int first[2] = {c0, c1}, width[2] = {c1 - c0, 0};
    if (skip0 < skip1 && skip0 < c1 && skip1 > c0) {
        width[0] = skip0 > c0 ? skip0 - c0 : 0;
        first[1] = skip1, width[1] = c1 > skip1 ? c1 - skip1 : 0;
    }
    int ncols = width[0] + width[1];
    if (count <= 0 || ncols <= 0) return PS_SUCCESS;
    /* the lists live in the grid's reserve, which the drivers make before their first exchange */
    if (count > g->swaps_asked) g->reserve_underruns++;
    ps_status st = ps__dist_reserve_swaps(g, count);
    if (st != PS_SUCCESS) return st;
    /* the rows the interchanges touch (t, ascending), and which old row each ends up holding */
    int *t = g->swaps.p;
    int *from = t + 2 * count, *pair = t + 4 * count, *moving = t + 12 * count;
    int *start = moving + g->nprow, *lands = start + g->nprow, *next = lands + g->nprow, n = 0;
    for (int i = 0; i < count; i++) t[2 * i] = base + i, t[2 * i + 1] = piv[i];
    qsort(t, (size_t)(2 * count), sizeof *t, ascending);
    for (int i = 0; i < 2 * count; i++)
        if (n == 0 || t[i] != t[n - 1]) t[n++] = t[i];
    memcpy(from, t, (size_t)n * sizeof *t);
    for (int s = 0; s < count; s++) {
        int i = reverse ? count - 1 - s : s;
        int x = find_row(t, n, base + i), y = find_row(t, n, piv[i]);
        int keep = from[x];
        from[x] = from[y], from[y] = keep;
    }
    /* the old rows that move, as (old row, new place) by old row: rows [start[p], start[p] +
     * moving[p]) of the device scratch hold process row p's in that order, as a moving[p] x
     * ncols matrix; each holder gathers its own, sends them to the whole process column (device
     * to device where the transport allows), and every rank scatters what lands on its rows */
    int total = 0;
    for (int i = 0; i < n; i++)
        if (from[i] != t[i]) pair[2 * total] = from[i], pair[2 * total + 1] = t[i], total++;
    qsort(pair, (size_t)total, 2 * sizeof *pair, ascending);
    for (int p = 0; p < g->nprow; p++) moving[p] = lands[p] = 0;
    for (int i = 0; i < total; i++) moving[ps__cyclic_owner(&a->r, pair[2 * i])]++;
    for (int p = 0, sum = 0; p < g->nprow; p++) next[p] = start[p] = sum, sum += moving[p];
    /* the index lists, after the rows in the scratch: this rank's rows to gather, then for each
     * row of the scratch its place on this rank or -1 */
    int me = g->myrow, *idx = pair + 2 * total, nidx = moving[me] + total;
    for (int i = 0, mine = 0; i < total; i++) {
        int p = ps__cyclic_owner(&a->r, pair[2 * i]), dest = pair[2 * i + 1];
        int here = ps__cyclic_owner(&a->r, dest) == me;
        if (p == me) idx[mine++] = ps__cyclic_local(&a->r, pair[2 * i]);
        idx[moving[me] + next[p]++] = here ? ps__cyclic_local(&a->r, dest) : -1;
        lands[p] |= here;
    }
    size_t ioff = (size_t)total * (size_t)ncols * ps__dtype_size(a->dt) / sizeof(int32_t);
    if (total > 0)
        st = be->ops->upload(be, PS__INT32, nidx, 1, idx, nidx, (ps__mat){rows_dev, ioff, nidx});
    for (int r = 0, at = 0; r < 2 && st == PS_SUCCESS && moving[me] > 0; at += width[r++]) {
        ps__mat mine = {rows_dev, (size_t)start[me] * (size_t)ncols, moving[me]};
        if (width[r] > 0)
            st = be->ops->permute_rows(be, a->dt, moving[me], width[r], rows_dev, ioff,
                                       ps__mat_at(a->m, 0, first[r]), ps__mat_at(mine, 0, at));
    }
    st = ps__dist_failed(g, st);
    /* a rank that failed still takes part, so that no other rank waits for it */
    for (int p = 0; p < g->nprow; p++) {
        ps__mat part = {rows_dev, (size_t)start[p] * (size_t)ncols, moving[p] > 0 ? moving[p] : 1};
        ps_status x = ps__dist_bcast(g, PS__DIST_COL, p, a->dt, moving[p], ncols, part, part, 0);
        if (st == PS_SUCCESS) st = x;
    }
    for (int p = 0; p < g->nprow && st == PS_SUCCESS; p++) {
        ps__mat part = {rows_dev, (size_t)start[p] * (size_t)ncols, moving[p]};
        for (int r = 0, at = 0; r < 2 && st == PS_SUCCESS && lands[p]; at += width[r++])
            if (width[r] > 0)
                st = ps__dist_failed(g,
                                     be->ops->scatter_rows(be, a->dt, moving[p], width[r], rows_dev,
                                                           ioff + (size_t)moving[me] + start[p],
                                                           ps__mat_at(part, 0, at),
                                                           ps__mat_at(a->m, 0, first[r])));
    }
    return st;
}

ps_status ps__dist_bcast(ps_grid *g, ps__dist_line line, int root, ps__dtype dt, int rows, int cols,
                         ps__mat src, ps__mat dst, int lane) {
    ps__backend *be = &g->ctx->be;
    MPI_Comm comm = line == PS__DIST_ROW ? g->row : g->col;
    int me, size;
    MPI_Comm_size(comm, &size);
    if (rows <= 0 || cols <= 0 || size == 1) return PS_SUCCESS;
    MPI_Comm_rank(comm, &me);
    ps_status st = PS_SUCCESS;
    if (ps__dist_peers(g)) {
        /* dst is a workspace: its span goes whole, gaps between its columns included */
        if (me == root && (src.buf != dst.buf || src.off != dst.off))
            st = be->ops->copy2d(be, dt, rows, cols, src, dst);
        st = ps__dist_failed(g, st);
        ps_status x = ps__dist_vbcast(g, line, root, dt, dst.buf, dst.off,
                                      (size_t)(cols - 1) * (size_t)dst.ld + (size_t)rows, lane);
        return st != PS_SUCCESS ? st : x;
    }
    /* host transfers follow lane 0 and hold it back (lane 1 too when that is the current one) */
    if (lane) st = ps__dist_failed(g, be->ops->lane_wait(be, 0, 1));
    ps_status x = ps__dist_bcast_host(g, comm, root, dt, rows, cols, src, dst);
    if (st == PS_SUCCESS) st = x;
    if (lane && st == PS_SUCCESS) st = ps__dist_failed(g, be->ops->lane_wait(be, 1, 0));
    return st;
}

ps_status ps__dist_bcast_host(ps_grid *g, MPI_Comm comm, int root, ps__dtype dt, int rows, int cols,
                              ps__mat src, ps__mat dst) {
    ps__backend *be = &g->ctx->be;
    int me;
    MPI_Comm_rank(comm, &me);
    /* pieces of at most the stage's size, the same on every rank: whole columns, or parts of
     * one where a column is larger */
    size_t es = ps__dtype_size(dt), most = g->stage_piece / es;
    int rper = (size_t)rows > most ? (int)most : rows;
    size_t fit = rper < rows ? 1 : most / (size_t)(rows > 0 ? rows : 1);
    int cper = fit < (size_t)cols ? (int)fit : cols;
    /* a no-op where the driver reserved before its first exchange, as it must */
    size_t piece = (size_t)rper * (size_t)cper * es;
    if (piece > g->stage_asked) g->reserve_underruns++;
    ps_status st = ps__dist_reserve_stage(g, piece);
    for (int c0 = 0; c0 < cols; c0 += cper)
        for (int r0 = 0; r0 < rows; r0 += rper) {
            int nc = cols - c0 < cper ? cols - c0 : cper, nr = rows - r0 < rper ? rows - r0 : rper;
            if (st == PS_SUCCESS && me == root)
                st = ps__dist_failed(
                    g, be->ops->download(be, dt, nr, nc, ps__mat_at(src, r0, c0), g->stage.p, nr));
            if (g->stage.p) ps__dist_bcast_bytes(g->stage.p, (size_t)nr * nc * es, root, comm);
            if (st == PS_SUCCESS && me != root)
                st = ps__dist_failed(
                    g, be->ops->upload(be, dt, nr, nc, g->stage.p, nr, ps__mat_at(dst, r0, c0)));
        }
    return st;
}
