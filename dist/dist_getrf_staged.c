/*
 * The host-array LU of a grid of one process row with its transfers beside the work, as
 * core/lu/lu_overlap.c does on one device. The global columns go up in three pieces: the left
 * half [0, f) in two, then the right half. While a second host thread stages them:
 *   1. the panels of the first piece are factored, their updates stopping at its end;
 *   2. the second piece is brought up to date with them (their interchanges, then each panel
 *      broadcast again for U's block row and the update below it) and its panels factored;
 *   3. the right half is brought up to date with the left half's panels the same way, while the
 *      left half goes down: nothing changes it any more but the later interchanges;
 *   4. the panels [f, kmax) are factored as usual, their interchanges reaching the right half
 *      only, while its U block row (the rows above f, final) goes down;
 *   5. the bottom right corner comes down, the host applies the interchanges of step 4 to the
 *      left half's rows below f, and so does the device, for the solves that follow.
 * The flops are those of the plain LU, plus one more broadcast of each left panel (two of the
 * first piece's). transfer_order's marks keep each side behind what it reads; the second thread
 * makes no MPI call.
 */
#include "dist_lu_cols.h"
#include "lu/lu.h"
#include "base/staging.h"

#include <pthread.h>
#include <stdlib.h>

/* transfer_order's marks (0 and 1 are the staging's): each piece's arrival; the work after
 * step 2 and after step 3. */
enum { MARK_ARRIVED = 2, MARK_LEFT = 5, MARK_TOP = 6 };
#define PIECES 3

/* What the two threads share. staged: pieces queued up; go: how far the work is queued (1:
 * steps 1 and 2, 2: step 3), -1 when the transfer thread is to stop. */
typedef struct staged_lu {
    ps_grid *g;
    ps__dist_mat *a;
    char *host;
    int lld, f;
    int fcol[PIECES], col0[PIECES + 1]; /* piece p: global columns from fcol[p], local [col0[p],
                                           col0[p + 1]) */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int staged, go;
    ps_status staged_status, downloaded_status;
} staged_lu;

int ps__dist_getrf_split(ps_grid *g, const ps__dist_mat *a) {
    ps_context *ctx = g->ctx;
    int kmax = a->r.n < a->c.n ? a->r.n : a->c.n, nb = a->c.nb;
    int from = ps__lu_overlap_from(ctx, a->dt);
    void *alias;
    int f = kmax / 2 / nb * nb;
    if (g->nprow > 1 || from <= 0 || kmax < from || kmax < 2 * nb) f = 0;
    if (ctx->be.ops->host_alias(&ctx->be, a->m.buf, &alias) == PS_SUCCESS) f = 0;
    /* the same way on every rank, whatever their backends and tunings */
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_MIN, g->all);
    return f;
}

static void set_shared(staged_lu *o, int *field, int value, ps_status st) {
    pthread_mutex_lock(&o->lock);
    *field = value;
    if (st && !o->staged_status) o->staged_status = st;
    pthread_cond_broadcast(&o->changed);
    pthread_mutex_unlock(&o->lock);
}

/* Waits until *field reaches value: 0 then, -1 when the staging failed or the work stopped. */
static int wait_shared(staged_lu *o, const int *field, int value) {
    pthread_mutex_lock(&o->lock);
    while (*field < value && o->go >= 0 && !o->staged_status)
        pthread_cond_wait(&o->changed, &o->lock);
    int reached = *field >= value && !o->staged_status;
    pthread_mutex_unlock(&o->lock);
    return reached ? 0 : -1;
}

static size_t column_bytes(const staged_lu *o, int col) {
    return (size_t)col * (size_t)o->lld * ps__dtype_size(o->a->dt);
}

/* The pieces up, in order. */
static void stage_pieces(staged_lu *o) {
    ps_context *ctx = o->g->ctx;
    const ps__dist_mat *a = o->a;
    for (int p = 0; p < PIECES; p++) {
        ps_status st =
            ps__stage_columns_in(ctx, a->dt, a->lrows, o->col0[p], o->col0[p + 1] - o->col0[p],
                                 o->host, o->lld, NULL, a->m);
        if (!st)
            st = ctx->be.ops->transfer_order(&ctx->be, PS__ORDER_MARK_TRANSFERS, MARK_ARRIVED + p);
        set_shared(o, &o->staged, p + 1, st);
        if (st) return;
    }
}

/* Then the left half down after step 2, and the right half's rows above f after step 3. */
static void download_finished(staged_lu *o) {
    ps_context *ctx = o->g->ctx;
    ps__backend *be = &ctx->be;
    const ps__dist_mat *a = o->a;
    int lf = o->col0[PIECES - 1];
    ps_status st = PS_SUCCESS;
    if (wait_shared(o, &o->go, 1)) return;
    st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_LEFT);
    if (!st) st = ps__stage_block_out(ctx, a->dt, a->lrows, lf, a->m, o->host, o->lld);
    if (!st && !wait_shared(o, &o->go, 2)) {
        st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_TOP);
        if (!st)
            st = ps__stage_block_out(ctx, a->dt, o->f, a->lcols - lf, ps__mat_at(a->m, 0, lf),
                                     o->host + column_bytes(o, lf), o->lld);
    }
    o->downloaded_status = st;
}

static void *transfer_thread(void *arg) {
    stage_pieces(arg);
    download_finished(arg);
    return NULL;
}

/* Work may read piece p once it has arrived on every rank (agreed). */
static void wait_for_piece(staged_lu *o, ps__cols_lu *w, int p) {
    ps__backend *be = &o->g->ctx->be;
    ps_status st = w->s.st;
    if (st == PS_SUCCESS && wait_shared(o, &o->staged, p + 1))
        st = ps__dist_fail(o->g, o->staged_status, "rank %d: %s", o->g->rank,
                           ps_context_last_error(o->g->ctx));
    if (st == PS_SUCCESS) st = be->ops->transfer_order(be, PS__ORDER_WORK_AFTER, MARK_ARRIVED + p);
    w->s.st = ps__dist_agree(o->g, st);
    ps__dist_lane_wait(&w->s, 1, 0);
}

/* Queues steps 1 to 4; go tells the transfer thread how far. */
static void queue_work(staged_lu *o, ps__cols_lu *w) {
    ps__backend *be = &o->g->ctx->be;
    int f1 = o->fcol[1], lf = o->col0[PIECES - 1];
    wait_for_piece(o, w, 0);
    w->upto = o->col0[1];
    if (w->s.st == PS_SUCCESS) ps__cols_lu_steps(w, 0, f1);
    wait_for_piece(o, w, 1);
    if (w->s.st != PS_SUCCESS) return;
    ps__cols_lu_catch_up(w, f1, lf);
    /* collective also after a failure in the catch-up, which its first agreement makes
     * everyone's */
    ps__cols_lu_steps(w, f1, o->f);
    if (w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_LEFT));
    /* the caller's array is written only once every rank has all of it */
    wait_for_piece(o, w, 2);
    if (w->s.st != PS_SUCCESS) return;
    set_shared(o, &o->go, 1, PS_SUCCESS);
    w->frozen = lf;
    ps__cols_lu_catch_up(w, o->f, w->a->lcols);
    if (w->s.st == PS_SUCCESS)
        ps__dist_note(&w->s, be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_TOP));
    if (w->s.st == PS_SUCCESS) set_shared(o, &o->go, 2, PS_SUCCESS);
    ps__cols_lu_steps(w, o->f, w->kmax);
}

ps_status ps__dist_getrf_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f, int *piv,
                                int *info) {
    ps_context *ctx = g->ctx;
    ps__backend *be = &ctx->be;
    ps__dtype dt = a->dt;
    size_t es = ps__dtype_size(dt);
    int m = a->r.n, kmax = m < a->c.n ? m : a->c.n, threads = ps__lu_host_threads();
    staged_lu o = {.g = g, .a = a, .host = host, .lld = lld, .f = f};
    o.fcol[1] = f / 2 / a->c.nb * a->c.nb, o.fcol[2] = f; /* the first piece may be empty */
    for (int p = 0; p < PIECES; p++) o.col0[p] = ps__cyclic_below(&a->c, o.fcol[p], g->mycol);
    o.col0[PIECES] = a->lcols;
    int lf = o.col0[PIECES - 1];
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
    ps__dist_note(&w.s, ps__transfers_after_work(ctx));
    pthread_t thread;
    pthread_mutex_init(&o.lock, NULL);
    pthread_cond_init(&o.changed, NULL);
    int threaded = pthread_create(&thread, NULL, transfer_thread, &o) == 0;
    if (!threaded) stage_pieces(&o); /* no second thread: one job after the other */
    queue_work(&o, &w);
    if (w.s.st != PS_SUCCESS) set_shared(&o, &o.go, -1, PS_SUCCESS);
    if (threaded)
        pthread_join(thread, NULL);
    else if (w.s.st == PS_SUCCESS)
        download_finished(&o);
    pthread_cond_destroy(&o.changed);
    pthread_mutex_destroy(&o.lock);
    if (o.downloaded_status != PS_SUCCESS)
        ps__dist_note(&w.s, ps__dist_fail(g, o.downloaded_status, "rank %d: %s", g->rank,
                                          ps_context_last_error(ctx)));
    /* the device's left columns take step 3's interchanges now that they are down */
    if (w.s.st == PS_SUCCESS && lf > 0)
        ps__dist_note(&w.s, be->ops->laswp(be, dt, lf, a->m, f, kmax, w.ipiv, (size_t)f, 1));
    st = ps__cols_lu_close(&w, piv, info);
    if (st == PS_SUCCESS) {
        st = ps__download(ctx, dt, m - f, a->lcols - lf, ps__mat_at(a->m, f, lf),
                          o.host + column_bytes(&o, lf) + (size_t)f * es, lld);
        if (st != PS_SUCCESS)
            st = ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(ctx));
        st = ps__dist_agree(g, st);
    } else { /* nothing may still move into the caller's array or out of the ring */
        for (int i = 0; i < PS__TRANSFER_SLOTS; i++) be->ops->transfer_wait(be, i);
    }
    if (st == PS_SUCCESS)
        ps__lu_host_interchanges(dt, lf, host, lld, piv, 0, f, kmax, m, from, buffers, threads);
    free(from), free(buffers);
    return st;
}
