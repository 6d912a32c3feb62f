/*
 * Host-array factorizations of one process row with their transfers beside the work, as
 * core/lu/lu_overlap.c does on one device. The global columns go up in three pieces: the left
 * half [0, f) in two, then the rest. While a second host thread stages them:
 *   1. the panels of the first piece are factored, their updates stopping at its end;
 *   2. the second piece is brought up to date with them and its panels factored;
 *   3. the rest is brought up to date with the left half's panels, while the left half goes
 *      down: nothing changes it any more (LU: its rows above f; its rows below take the later
 *      interchanges);
 *   4. the panels [f, kmax) are factored as usual, while (LU, upper Cholesky) the rest's rows
 *      above f, final after step 3, go down, and then the rest of the factor, a block row (LU:
 *      of every column; upper Cholesky) or a block column (lower Cholesky) once its step is
 *      done.
 * With f = 0 the array goes up whole, as the last piece, and only step 4 runs (lower Cholesky on
 * grids of several process rows). transfer_order's marks keep each side behind what it reads;
 * the second thread makes no MPI call.
 */
#include "dist_staged.h"
#include "lu/lu.h"
#include "base/handoff.h"
#include "base/staging.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <pthread.h>
#include <stdio.h>

/* transfer_order's marks (0 and 1 are the staging's): each piece's arrival; the work after
 * step 2, after step 3 and after the last of step 4's steps that reported done. */
enum { MARK_ARRIVED = 2, MARK_LEFT = 5, MARK_TOP = 6, MARK_DONE = 7 };
#define PIECES 3

/* What the two threads share. h.staged: pieces queued up; h.go: how far the work is queued (1:
 * steps 1 and 2, 2: step 3), -1 when the transfer thread is to stop; h.done: the steps the work
 * queued has done in step 4 (ps__dist_steps_done). */
typedef struct staged {
    ps_grid *g;
    ps__dist_mat *a;
    const ps__dist_parts *p;
    char *host;
    int lld, f;
    int fcol[PIECES], col0[PIECES + 1]; /* piece p: global columns from fcol[p], local [col0[p],
                                           col0[p + 1]) */
    ps__handoff h;
    ps_status downloaded_status;
} staged;

int ps__dist_staged_split(ps_grid *g, const ps__dist_mat *a, int kmax) {
    ps_context *ctx = g->ctx;
    int nb = a->c.nb, from = ps__lu_overlap_from(ctx, a->dt);
    void *alias;
    int f = kmax / 2 / nb * nb;
    if (from <= 0 || kmax < from || kmax < 2 * nb) f = -1;
    if (ctx->be.ops->host_alias(&ctx->be, a->m.buf, &alias) == PS_SUCCESS) f = -1;
    /* the same way on every rank, whatever their backends and tunings */
    MPI_Allreduce(MPI_IN_PLACE, &f, 1, MPI_INT, MPI_MIN, g->all);
    return f;
}

/* Rows [lo, r1) of the local columns [c0, c1) up or down; where p->triangle, only those of uplo's
 * triangle (a block column at a time). */
static ps_status move(staged *o, int up, int c0, int c1, int lo, int r1) {
    ps_context *ctx = o->g->ctx;
    const ps__dist_mat *a = o->a;
    size_t es = ps__dtype_size(a->dt);
    int step = o->p->triangle ? a->c.nb : c1 - c0;
    for (int c = c0; c < c1; c += step) {
        int w = c1 - c < step ? c1 - c : step, r0 = lo, rows = r1 - lo;
        if (o->p->triangle) ps__dist_triangle_rows(a, o->p->uplo, c, w, &r0, &rows);
        if (r0 < lo) rows -= lo - r0, r0 = lo;
        if (r0 + rows > r1) rows = r1 - r0;
        char *row0 = o->host + (size_t)r0 * es; /* row r0 of the host array's first column */
        ps__mat v = ps__mat_at(a->m, r0, 0);
        if (rows <= 0) continue;
        PS__TRY(up ? ps__stage_columns_in(ctx, a->dt, rows, c, w, row0, o->lld, NULL, v)
                   : ps__stage_block_out(ctx, a->dt, rows, w, ps__mat_at(v, 0, c),
                                         row0 + (size_t)c * (size_t)o->lld * es, o->lld));
    }
    return PS_SUCCESS;
}

/* The pieces up, in order. */
static void stage_pieces(staged *o) {
    ps__backend *be = &o->g->ctx->be;
    for (int p = 0; p < PIECES; p++) {
        ps_status st = move(o, 1, o->col0[p], o->col0[p + 1], 0, o->a->lrows);
        if (!st) st = be->ops->transfer_order(be, PS__ORDER_MARK_TRANSFERS, MARK_ARRIVED + p);
        ps__handoff_set(&o->h, &o->h.staged, p + 1, st);
        if (st) return;
    }
}

/* Then the left half down after step 2, the rest's rows above f after step 3 (p->top), and the
 * rest as the last steps make it final. */
static void download_finished(staged *o) {
    ps__backend *be = &o->g->ctx->be;
    const ps__dist_mat *a = o->a;
    int lf = o->col0[PIECES - 1], rows = !o->p->by_columns, myrow = o->g->myrow;
    int end = rows ? a->r.n : a->c.n; /* the global index the steps' done counts to */
    int lrow_f = ps__cyclic_below(&a->r, o->f, myrow); /* the local rows above f */
    ps_status st = PS_SUCCESS;
    if (ps__handoff_wait(&o->h, &o->h.go, 1)) return;
    st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_LEFT);
    if (!st) st = move(o, 0, 0, lf, 0, rows ? lrow_f : a->lrows);
    if (!st && o->p->top && !ps__handoff_wait(&o->h, &o->h.go, 2)) {
        st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_TOP);
        if (!st) st = move(o, 0, lf, a->lcols, 0, lrow_f);
    }
    /* each round takes all the steps have finished since the last: the mark is at least that far */
    for (int done = o->f, k; !st && done < end; done = k) {
        if ((k = ps__handoff_wait_beyond(&o->h, &o->h.done, done)) < 0) break;
        st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_DONE);
        if (st) break;
        if (rows)
            st = move(o, 0, 0, a->lcols, ps__cyclic_below(&a->r, done, myrow),
                      ps__cyclic_below(&a->r, k < end ? k : end, myrow));
        else
            st = move(o, 0, ps__cyclic_below(&a->c, done, o->g->mycol),
                      ps__cyclic_below(&a->c, k, o->g->mycol), 0, a->lrows);
    }
    o->downloaded_status = st;
}

/* The steps' done: the mark first, then how far the mark covers. */
static void steps_done(void *arg, int k) {
    staged *o = arg;
    ps__backend *be = &o->g->ctx->be;
    ps__dist_note(o->p->s, be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_DONE));
    if (o->p->s->st == PS_SUCCESS) ps__handoff_set(&o->h, &o->h.done, k, PS_SUCCESS);
}

static void *transfer_thread(void *arg) {
    ps_grid *g = ((staged *)arg)->g;
    g->ctx->be.ops->activate(&g->ctx->be); /* this thread works on the context's device too */
#ifdef _OPENMP
    omp_set_num_threads(g->host_threads); /* this thread's copies */
#endif
    stage_pieces(arg);
    download_finished(arg);
    return NULL;
}

/* Work may read piece p once it has arrived on every rank (agreed). */
static void wait_for_piece(staged *o, int p) {
    ps_grid *g = o->g;
    ps__backend *be = &g->ctx->be;
    ps__dist_steps *s = o->p->s;
    ps_status st = s->st;
    if (st == PS_SUCCESS && ps__handoff_wait(&o->h, &o->h.staged, p + 1))
        st = ps__dist_failed(g, o->h.failed);
    if (st == PS_SUCCESS) st = be->ops->transfer_order(be, PS__ORDER_WORK_AFTER, MARK_ARRIVED + p);
    s->st = ps__dist_agree(g, st);
    ps__dist_lane_wait(s, 1, 0);
}

/* Queues steps 1 to 4; go tells the transfer thread how far. */
static void queue_work(staged *o, int kmax) {
    const ps__dist_parts *p = o->p;
    ps__backend *be = &o->g->ctx->be;
    ps__dist_steps *s = p->s;
    int f1 = o->fcol[1];
    wait_for_piece(o, 0);
    p->catch_up(p->w, 0, f1);
    if (s->st == PS_SUCCESS) p->steps(p->w, 0, f1);
    wait_for_piece(o, 1);
    if (s->st != PS_SUCCESS) return;
    p->catch_up(p->w, f1, o->f);
    /* collective also after a failure in the catch-up, which its first agreement makes
     * everyone's */
    p->steps(p->w, f1, o->f);
    if (s->st == PS_SUCCESS)
        ps__dist_note(s, be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_LEFT));
    /* the caller's array is written only once every rank has all of it */
    wait_for_piece(o, 2);
    if (s->st != PS_SUCCESS) return;
    ps__handoff_set(&o->h, &o->h.go, 1, PS_SUCCESS);
    p->catch_up(p->w, o->f, o->a->c.n);
    if (s->st == PS_SUCCESS)
        ps__dist_note(s, be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_TOP));
    if (s->st == PS_SUCCESS) ps__handoff_set(&o->h, &o->h.go, 2, PS_SUCCESS);
    s->done = steps_done, s->done_arg = o;
    p->steps(p->w, o->f, kmax);
    s->done = NULL;
}

ps_status ps__dist_staged_run(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f,
                              const ps__dist_parts *p) {
    ps_context *ctx = g->ctx;
    ps__backend *be = &ctx->be;
    int kmax = a->r.n < a->c.n ? a->r.n : a->c.n;
    staged o = {.g = g, .a = a, .p = p, .host = host, .lld = lld, .f = f};
    o.fcol[1] = f / 2 / a->c.nb * a->c.nb, o.fcol[2] = f; /* the first piece may be empty */
    for (int i = 0; i < PIECES; i++) o.col0[i] = ps__cyclic_below(&a->c, o.fcol[i], g->mycol);
    o.col0[PIECES] = a->lcols;
    if (ctx->tuning.dist_verbose && g->rank == 0) {
        if (f > 0)
            fprintf(stderr,
                    "portsolve_mpi: the host array moves beside the work, split at column %d\n",
                    f + 1);
        else
            fprintf(stderr, "portsolve_mpi: the host array moves beside the work, the factor "
                            "down behind the steps\n");
    }
    ps__dist_note(p->s, ps__transfers_after_work(ctx));
    pthread_t thread;
    ps__handoff_init(&o.h);
    ps__staging_hold(ctx, (size_t)a->lrows * (size_t)a->lcols * ps__dtype_size(a->dt));
    int threaded = pthread_create(&thread, NULL, transfer_thread, &o) == 0;
    if (!threaded) stage_pieces(&o); /* no second thread: one job after the other */
    queue_work(&o, kmax);
    if (p->s->st != PS_SUCCESS) ps__handoff_set(&o.h, &o.h.go, -1, PS_SUCCESS);
    if (threaded)
        pthread_join(thread, NULL);
    else if (p->s->st == PS_SUCCESS)
        download_finished(&o);
    ps__staging_unhold(ctx);
    ps__handoff_destroy(&o.h);
    if (o.downloaded_status != PS_SUCCESS)
        ps__dist_note(p->s, ps__dist_fail(g, o.downloaded_status, "rank %d: %s", g->rank,
                                          ps_context_last_error(ctx)));
    if (p->s->st != PS_SUCCESS) /* nothing may still move into the caller's array */
        for (int i = 0; i < PS__TRANSFER_SLOTS; i++) be->ops->transfer_wait(be, i);
    return p->s->st;
}
