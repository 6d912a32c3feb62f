/*
 * Host LU with its transfers overlapped with the factorization: ps_?getrf of a square matrix and
 * ps_?gesv on backends with memory of their own, from the order ps__lu_overlap_from names.
 *
 * The matrix goes up in pieces of columns, a small one first, and the device factors it as
 * ps__getrf does (right-looking, with look-ahead) from the moment the first has arrived: each
 * later piece joins the factorization at a step after its arrival, brought up to date with the
 * steps before (core/lu/lu.c, columns_arrive), on the update lane beside the panels. So the
 * uploads cost the wait for the first piece and the catch-ups, not a factorization in parts. A
 * staged piece joins once the steps are within 1/JOIN_AHEAD_DIV of the order of its columns
 * (joining everything at once held the panels back behind the catch-ups), and every piece by
 * the step before the split column f. While pieces are on the way the work thread keeps at
 * most two steps ahead of the device (it waits for a fetch queued two steps before), so that it
 * sees a piece arrive about when the device could use it.
 *
 * Downloads run while the device works, by the eighths of the order (events, below): the rows
 * of the factors above a step are final once it is done, in the columns that have joined; at
 * step f the left part [0, f) below it too, as from step f on the row interchanges leave the
 * left part's columns as they are (left_kept): the host applies them to its rows below f last,
 * and the solve uses them so. f at half the order: the downloads, bound by the host's copies,
 * start early enough to end soon after the factorization, and what is left at its end (the
 * rows below the last eighth, right of f) is small (docs/PERFORMANCE.md).
 *
 * An order n that is not a multiple of 8 is factored as diag(A, I) of the next one (nf, as
 * ps_mat_getrf's aligned copy, core/lu/lu_copy.c): the device copy has nf columns, the pad made
 * on the device, and only A's n rows, columns and pivots travel. The GEMMs then keep sides that
 * are multiples of 8 (docs/PERFORMANCE.md has the figures).
 *
 * A second host thread, the transfer thread, stages the pieces and runs the downloads while
 * this one queues the work, which waits for the device at times. transfer_order's marks keep
 * each side behind what it reads. The factorization's workspace is the call's (released after
 * it): CUDA's cudaFree waits for the device, and meanwhile holds up the other thread's copies.
 */
#include "lu/lu.h"
#include "base/handoff.h"
#include "base/staging.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Pieces the matrix goes up in (fewer where it has fewer block columns); the first holds
 * 1/FIRST_SHARE of its block columns, at least FIRST_BLOCKS (enough for the first steps) where
 * there are more. */
#define PIECES       8
#define FIRST_SHARE  16
#define FIRST_BLOCKS 4
/* The left part: LEFT_EIGHTHS eighths of the order, whole blocks. The downloads go by the
 * eighths of the order: event k (1 to EIGHTHS - 1) is the end of the step at row_end[k]. */
#define EIGHTHS      8
#define LEFT_EIGHTHS 4
/* A staged piece joins once its first column is at most this share of the order ahead of the
 * step (a half). */
#define JOIN_AHEAD_DIV 2

/* transfer_order's marks (0 and 1 are the staging's): the work after the factorization; each
 * piece's arrival; each event's. */
enum { MARK_ALL = 2, MARK_ARRIVED = 3, MARK_EVENT = MARK_ARRIVED + PIECES };
_Static_assert(MARK_EVENT + EIGHTHS <= PS__TRANSFER_MARKS, "transfer_order has too few marks");

/* What the two threads share. h.go: the events the work has queued (their rows final), -1 when
 * the transfer thread is to stop; h.staged: pieces queued up. */
typedef struct overlap {
    ps_context *ctx;
    ps__dtype dt;
    const ps__lu_host_call *call;
    int nf;                 /* the device copy's order: n, or diag(A, I) padded (above) */
    int nb, f;              /* the factorization's block size; the split column */
    int pieces;             /* pieces of columns; piece p is [col0[p], col0[p + 1]) */
    int col0[PIECES + 1];   /* the last ending at nf */
    int joined;             /* pieces the factorization has taken */
    int row_end[EIGHTHS];   /* event k: rows [row_end[k - 1], row_end[k]) final (row_end[0] = 0) */
    int joined_at[EIGHTHS]; /* ... in the columns [0, joined_at[k]) of A (events before f) */
    int events;             /* events queued */
    int ticks;              /* the work thread's fetches (keep_close) */
    ps__scratch *s;         /* the call's workspace, the factorization's too */
    ps__mat a;
    void *ipiv, *info, *tick; /* pivots (0-based rows), the first zero pivot, a word to fetch */
    ps__handoff h;
    ps_status downloaded_status;
} overlap;

int ps__lu_overlap_from(ps_context *ctx, ps__dtype dt) {
    return ps__tuned_size(ctx, ctx->tuning.lu_overlap, PS__ALGO_LU_OVERLAP, dt, 0);
}

int ps__lu_overlap_split(ps_context *ctx, ps__dtype dt, int n) {
    int from = ps__lu_overlap_from(ctx, dt), nf = ps__aligned_order(n);
    int nb = ps__lu_block_size(ctx, dt, nf, nf);
    void *alias;
    if (from <= 0 || n < from || n < 4 * nb) return 0;
    if (ctx->tuning.lu_panel == PS__LU_PANEL_HOST) return 0;
    if (ctx->be.ops->host_alias(&ctx->be, ctx, &alias) == PS_SUCCESS) return 0;
    return (int)((long)n * LEFT_EIGHTHS / 8 / nb * nb);
}

/* Columns of piece p that A has (the last piece's pad columns are made on the device). */
static int host_columns(const overlap *o, int p) {
    int end = o->col0[p + 1] < o->call->n ? o->col0[p + 1] : o->call->n;
    return end > o->col0[p] ? end - o->col0[p] : 0;
}

static ps_status stage_piece(overlap *o, int p) {
    const ps__lu_host_call *c = o->call;
    int cols = host_columns(o, p);
    if (cols > 0)
        PS__TRY(ps__stage_columns_in(o->ctx, o->dt, c->n, o->col0[p], cols, c->a, c->lda,
                                     &c->check_a, o->a));
    return o->ctx->be.ops->transfer_order(&o->ctx->be, PS__ORDER_MARK_TRANSFERS, MARK_ARRIVED + p);
}

/* The transfer thread's first job: the pieces up. It stages the first piece too, so that only
 * its threads copy (a second team of OpenMP threads beside the first, spinning, cost about 10 ms
 * at n = 16384 on the H200). */
static void stage_pieces(overlap *o) {
    for (int p = 0; p < o->pieces; p++) {
        ps_status st = stage_piece(o, p);
        ps__handoff_set(&o->h, &o->h.staged, p + 1, st);
        if (st) return;
    }
}

/* Rows [r0, r1) x columns [c0, c1) of the factors down into A (clipped to A's order). */
static ps_status block_out(overlap *o, int r0, int r1, int c0, int c1) {
    const ps__lu_host_call *c = o->call;
    int n = c->n;
    size_t es = ps__dtype_size(o->dt);
    if (r1 > n) r1 = n;
    if (c1 > n) c1 = n;
    if (r1 <= r0 || c1 <= c0) return PS_SUCCESS;
    return ps__stage_block_out(o->ctx, o->dt, r1 - r0, c1 - c0, ps__mat_at(o->a, r0, c0),
                               (char *)c->a + ((size_t)c0 * (size_t)c->lda + (size_t)r0) * es,
                               c->lda);
}

/* Event k's share of the factors: above f its rows in the columns that had joined; at f what
 * the events before it left of their rows, its own rows and the left part below f; after f its
 * rows right of f (left of f they wait for the host's interchanges). */
static ps_status download_event(overlap *o, int k) {
    int n = o->call->n, f = o->f;
    if (k < LEFT_EIGHTHS) return block_out(o, o->row_end[k - 1], o->row_end[k], 0, o->joined_at[k]);
    if (k > LEFT_EIGHTHS) return block_out(o, o->row_end[k - 1], o->row_end[k], f, n);
    for (int i = 1; i <= LEFT_EIGHTHS; i++)
        PS__TRY(block_out(o, o->row_end[i - 1], o->row_end[i],
                          i < LEFT_EIGHTHS ? o->joined_at[i] : 0, n));
    return block_out(o, f, n, 0, f);
}

/* Its second: the factors down, event by event, each once the work has made its rows final. */
static void download_finished(overlap *o) {
    ps__backend *be = &o->ctx->be;
    ps_status st = PS_SUCCESS;
    for (int k = 1; k < EIGHTHS && !st; k++) {
        if (ps__handoff_wait(&o->h, &o->h.go, k)) return;
        st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_EVENT + k);
        if (!st) st = download_event(o, k);
    }
    o->downloaded_status = st;
}

static void *transfer_thread(void *arg) {
    overlap *o = arg;
    o->ctx->be.ops->activate(&o->ctx->be); /* this thread works on the context's device too */
    stage_pieces(arg);
    download_finished(arg);
    return NULL;
}

/* Work may read piece p once it has arrived: this thread waits for its staging, lane 0's work
 * for its copies. */
static ps_status wait_for_piece(overlap *o, int p) {
    if (ps__handoff_wait(&o->h, &o->h.staged, p + 1)) return o->h.failed;
    return o->ctx->be.ops->transfer_order(&o->ctx->be, PS__ORDER_WORK_AFTER, MARK_ARRIVED + p);
}

/* Keeps this thread at most two steps ahead of lane 0: each call fetches a word behind the work
 * queued so far and waits for the fetch of two calls before. */
static ps_status keep_close(overlap *o) {
    ps__backend *be = &o->ctx->be;
    ps__vec word = {o->tick, 0, 1};
    int slot = o->ticks % PS__FETCH_SLOTS;
    int32_t value;
    if (o->ticks >= PS__FETCH_SLOTS)
        PS__TRY(be->ops->fetch_wait(be, PS__INT32, slot, 1, word, &value));
    o->ticks++;
    return be->ops->fetch_start(be, PS__INT32, slot, 1, word);
}

/* The factorization's columns_arrive: the pieces staged by now join, and at least those up to
 * need; every piece by the step before f. */
static ps_status columns_arrive(void *arg, int j, int need, int *have) {
    overlap *o = arg;
    int must = o->joined;
    if (j + o->nb >= o->f)
        must = o->pieces;
    else
        while (must < o->pieces && o->col0[must] < need) must++;
    PS__TRY(keep_close(o));
    int staged = ps__handoff_read(&o->h, &o->h.staged), q = must;
    if (!o->ctx->test_late_joins)
        while (q < staged && o->col0[q] <= j + o->nf / JOIN_AHEAD_DIV) q++;
    for (; o->joined < q; o->joined++) PS__TRY(wait_for_piece(o, o->joined));
    *have = o->col0[q];
    return PS_SUCCESS;
}

/* The factorization's columns_final: the events whose rows the steps up to cols make final. */
static ps_status columns_final(void *arg, ps__tview a, int cols) {
    overlap *o = arg;
    (void)a;
    while (o->events < EIGHTHS - 1 && o->row_end[o->events + 1] <= cols) {
        int k = ++o->events;
        if (k < LEFT_EIGHTHS) o->joined_at[k] = o->col0[o->joined]; /* from f on, all have */
        PS__TRY(o->ctx->be.ops->transfer_order(&o->ctx->be, PS__ORDER_MARK_WORK, MARK_EVENT + k));
        ps__handoff_set(&o->h, &o->h.go, k, PS_SUCCESS);
    }
    return PS_SUCCESS;
}

/* Solves with the factors as the device holds them: L21 without the interchanges from step f
 * on; of a padded copy, the leading n x n part (its pad rows of L are zero and its pad pivots
 * none). */
static ps_status solve(overlap *o, ps__mat b) {
    ps__backend *be = &o->ctx->be;
    ps__dtype dt = o->dt;
    int n = o->call->n, nrhs = o->call->nrhs, f = o->f;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    PS__TRY(be->ops->laswp(be, dt, nrhs, b, 0, f, o->ipiv, 0, 1));
    PS__TRY(
        be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, f, nrhs, &one, o->a, b));
    PS__TRY(be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, n - f, nrhs, f, &minus_one,
                          ps__mat_at(o->a, f, 0), b, &one, ps__mat_at(b, f, 0)));
    PS__TRY(be->ops->laswp(be, dt, nrhs, b, f, n, o->ipiv, (size_t)f, 1));
    PS__TRY(be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, n - f, nrhs, &one,
                          ps__mat_at(o->a, f, f), ps__mat_at(b, f, 0)));
    return be->ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, n, nrhs, &one, o->a,
                         b);
}

/* The work, queued: the factorization as the pieces arrive, then the solve. */
static ps_status queue_work(overlap *o, ps__mat b) {
    ps_context *ctx = o->ctx;
    ps__lu_progress progress = {.columns_final = columns_final,
                                .arg = o,
                                .columns_arrive = columns_arrive,
                                .left_kept = o->f,
                                .scratch = o->s};
    PS__TRY(ps__pad_identity(ctx, o->dt, o->call->n, o->nf, o->a)); /* beside the first upload */
    PS__TRY(ps__getrf_progress(ctx, o->dt, o->nf, o->a, o->ipiv, o->info, &progress, 0));
    PS__TRY(ctx->be.ops->transfer_order(&ctx->be, PS__ORDER_MARK_WORK, MARK_ALL));
    return o->call->nrhs > 0 ? solve(o, b) : PS_SUCCESS;
}

void ps__lu_host_interchanges(ps__dtype dt, int cols, void *a, int lda, const int *ipiv, int base,
                              int first, int last, int end, int *from, char *buffers, int threads) {
    int rows = end - first, lo = 0, hi;
    size_t es = ps__dtype_size(dt);
    if (rows <= 0 || cols <= 0 || last <= first) return;
    for (int i = 0; i < rows; i++) from[i] = i; /* row first + i comes from row first + from[i] */
    for (int k = 0; k < last - first; k++) {
        int p = ipiv[first + k] - base - first, t = from[k];
        from[k] = from[p];
        from[p] = t;
    }
    /* only the rows that move: none where no interchange moved a row (a dominant diagonal) */
    for (hi = rows; hi > 0 && from[hi - 1] == hi - 1; hi--) continue;
    while (lo < hi && from[lo] == lo) lo++;
    if (lo >= hi) return;
#ifdef _OPENMP
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1 && cols > 64)
#endif
    for (int j = 0; j < cols; j++) {
#ifdef _OPENMP
        char *buffer = buffers + (size_t)omp_get_thread_num() * (size_t)rows * es;
#else
        char *buffer = buffers;
#endif
        char *col = (char *)a + ((size_t)j * (size_t)lda + (size_t)first) * es;
        if (dt == PS__DOUBLE)
            for (int i = lo; i < hi; i++) ((double *)buffer)[i] = ((double *)col)[from[i]];
        else
            for (int i = lo; i < hi; i++) ((float *)buffer)[i] = ((float *)col)[from[i]];
        memcpy(col + (size_t)lo * es, buffer + (size_t)lo * es, (size_t)(hi - lo) * es);
    }
    (void)threads;
}

int ps__lu_host_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* The pivots to the caller (1-based), the first zero pivot's column, and the interchanges from
 * step f on applied to the rows of the left part below f. */
static ps_status finish_factors(overlap *o, int *info, int *from, char *buffers, int threads) {
    ps_context *ctx = o->ctx;
    const ps__lu_host_call *c = o->call;
    int n = c->n, f = o->f;
    PS__TRY(ps__read_info(ctx, o->info, info));
    if (*info > n) *info = 0; /* the pad's own columns have unit pivots */
    PS__TRY(ps__download_pivots(ctx, n, o->ipiv, c->ipiv));
    ps__lu_host_interchanges(o->dt, f, c->a, c->lda, c->ipiv, 1, f, n, n, from, buffers, threads);
    return PS_SUCCESS;
}

/* The events' rows: the eighths of the order, whole blocks, the LEFT_EIGHTHS-th at f. */
static void cut_events(overlap *o) {
    for (int k = 0; k < EIGHTHS; k++)
        o->row_end[k] =
            k == LEFT_EIGHTHS ? o->f : (int)((long)o->call->n * k / EIGHTHS / o->nb * o->nb);
}

/* The pieces' columns, whole blocks each: the first (1/FIRST_SHARE of the blocks, at least
 * FIRST_BLOCKS), then the rest in equal parts, up to PIECES in all. */
static void cut_pieces(overlap *o) {
    int blocks = (o->nf + o->nb - 1) / o->nb, first = blocks / FIRST_SHARE;
    if (first < FIRST_BLOCKS) first = FIRST_BLOCKS;
    if (first > blocks - 1) first = blocks - 1;
    int rest = blocks - first, parts = rest < PIECES - 1 ? rest : PIECES - 1;
    o->pieces = parts + 1;
    o->col0[0] = 0;
    for (int p = 1; p <= parts; p++) o->col0[p] = (first + rest * (p - 1) / parts) * o->nb;
    o->col0[o->pieces] = o->nf;
}

ps_status ps__lu_overlapped(ps__scratch *s, ps__dtype dt, const ps__lu_host_call *c, int f,
                            int *info, ps_status *result) {
    ps_context *ctx = s->ctx;
    ps__backend *be = &ctx->be;
    int n = c->n;
    size_t es = ps__dtype_size(dt), bytes;
    void *abuf;
    ps__staged b = {{NULL, 0, 1}, 0, PS__SHAPE_ALL};
    *info = 0;
    *result = PS_SUCCESS;
    int nf = ps__aligned_order(n), ld = ps__device_ld(nf);
    if (!ps__bytes_of((size_t)ld, (size_t)nf, es, &bytes))
        return ps__fail(ctx, PS_ERR_OUT_OF_MEMORY, "%s: an %d x %d copy does not fit in memory",
                        c->fn, nf, nf);
    overlap o = {.ctx = ctx,
                 .dt = dt,
                 .call = c,
                 .nf = nf,
                 .nb = ps__lu_block_size(ctx, dt, nf, nf),
                 .f = f,
                 .s = s};
    cut_pieces(&o);
    cut_events(&o);
    PS__TRY(ps__scratch_dev(s, bytes, &abuf));
    o.a = (ps__mat){abuf, 0, ld};
    PS__TRY(ps__scratch_dev(s, (size_t)nf * sizeof(int32_t), &o.ipiv));
    PS__TRY(ps__scratch_dev(s, sizeof(int32_t), &o.info));
    PS__TRY(ps__scratch_dev(s, sizeof(int32_t), &o.tick));
    PS__TRY(ps__zero_info(ctx, o.tick));
    /* the host's share of the interchanges, allocated before anything reaches the caller */
    int threads = ps__lu_host_threads(), *from;
    char *buffers;
    PS__TRY(ps__scratch_host(s, (size_t)(n - f) * sizeof *from, (void **)&from));
    PS__TRY(ps__scratch_host(s, (size_t)threads * (size_t)(n - f) * es, (void **)&buffers));
    if (c->nrhs > 0) PS__TRY(ps__stage_in(s, dt, n, c->nrhs, c->b, c->ldb, 0, &c->check_b, &b));
    PS__TRY(ps__transfers_after_work(ctx));

    pthread_t thread;
    ps__handoff_init(&o.h);
    ps__staging_hold(ctx, bytes);
    int threaded = pthread_create(&thread, NULL, transfer_thread, &o) == 0;
    if (!threaded) stage_pieces(&o); /* no second thread: one job after the other */
    ps_status st = queue_work(&o, b.dev);
    if (st) ps__handoff_set(&o.h, &o.h.go, -1, PS_SUCCESS);
    if (threaded)
        pthread_join(thread, NULL);
    else if (!st)
        download_finished(&o);
    ps__staging_unhold(ctx);
    ps__handoff_destroy(&o.h);
    if (o.h.failed) st = o.h.failed; /* a refused input: what the caller must hear */
    if (!st) st = o.downloaded_status;
    if (st) { /* nothing may still move into the caller's arrays or out of the ring */
        for (int i = 0; i < PS__TRANSFER_SLOTS; i++) be->ops->transfer_wait(be, i);
        return st;
    }

    /* the rows below the last event, right of f, go down beside the solve */
    PS__TRY(be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_ALL));
    PS__TRY(block_out(&o, o.row_end[EIGHTHS - 1], n, f, n));
    PS__TRY(finish_factors(&o, info, from, buffers, threads));
    if (c->nrhs == 0 || *info > 0) return PS_SUCCESS;
    *result = ps__check_solution(ctx, dt, n, c->nrhs, b.dev, c->fn);
    if (*result) return PS_SUCCESS;
    return ps__stage_out(ctx, dt, n, c->nrhs, &b, c->b, c->ldb);
}
