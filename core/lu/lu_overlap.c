/*
 * Host LU with its transfers overlapped with the factorization: ps_?getrf of a square matrix and
 * ps_?gesv on backends with memory of their own, from the order ps__lu_overlap_from names.
 *
 * The matrix goes up in pieces of columns: the left half [0, f) in LEFT_PIECES pieces, then the
 * right half. Each left piece is factored as soon as it has arrived, left-looking: the earlier
 * pieces' row interchanges, U = L^-1 A above it and the update below it, then a tall LU with
 * partial pivoting of its rows from the diagonal down, whose interchanges then go to the columns
 * on its left. The right half is brought up to date the same way in one step, and its lower
 * square A22 factored right-looking as usual. The flops are the one-piece LU's and the factors
 * LAPACK's; the device starts on the first piece while the rest is still being staged.
 *
 * Downloads run while the device works: the left half once it is factored, U12 once the right
 * half is up to date, A22 at the end. The rows of the left half below f still take A22's row
 * interchanges, which the host applies to them last (on the device they stay as they were, and
 * the solve uses them so). The pivots of each piece count from its first row until they reach
 * the host.
 *
 * An order n that is not a multiple of 8 is factored as diag(A, I) of the next one (nf, as
 * ps_mat_getrf's aligned copy, core/lu/lu_copy.c): the device copy has nf columns, the pad made
 * on the device, the right half runs to nf, and only A's n rows, columns and pivots travel. The
 * GEMMs then keep sides that are multiples of 8 (docs/PERFORMANCE.md has the figures).
 *
 * A second host thread, the transfer thread, stages the later pieces and runs the downloads
 * while this one queues the work: queueing may wait for the device (a factorization releases its
 * scratch with cudaFree, which waits), and the transfers must not wait for that.
 * transfer_order's marks keep each side behind what it reads.
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

/* Pieces of the left half: the device starts once the first has arrived. */
#define LEFT_PIECES 2
#define PIECES      (LEFT_PIECES + 1)

/* transfer_order's marks (0 and 1 are the staging's): the work after the left half, after the
 * right half's update, after everything; each piece's arrival. */
enum { MARK_LEFT = 2, MARK_TOP = 3, MARK_ALL = 4, MARK_ARRIVED = 5 };

/* What the two threads share. h.go: how far the work is queued (1: the left half, 2: the right
 * half's update), or -1 when the transfer thread is to stop; h.staged: pieces queued up. */
typedef struct overlap {
    ps_context *ctx;
    ps__dtype dt;
    const ps__lu_host_call *call;
    int nf;               /* the device copy's order: n, or diag(A, I) padded (above) */
    int col0[PIECES + 1]; /* piece p is columns [col0[p], col0[p + 1]), the last ending at nf */
    ps__mat a;
    void *ipiv[PIECES], *info[PIECES]; /* per piece, counting from its first row */
    ps__handoff h;
    ps_status downloaded_status;
} overlap;

int ps__lu_overlap_from(ps_context *ctx, ps__dtype dt) {
    return ps__tuned_size(ctx, ctx->tuning.lu_overlap, PS__ALGO_LU_OVERLAP, dt, 0);
}

int ps__lu_overlap_split(ps_context *ctx, ps__dtype dt, int n) {
    int from = ps__lu_overlap_from(ctx, dt), nb = ps__lu_block_size(ctx, dt, n, n);
    void *alias;
    if (from <= 0 || n < from || n < 2 * LEFT_PIECES * nb) return 0;
    if (ctx->tuning.lu_panel == PS__LU_PANEL_HOST) return 0;
    if (ctx->be.ops->host_alias(&ctx->be, ctx, &alias) == PS_SUCCESS) return 0;
    return n / 2 / nb * nb;
}

/* Columns of piece p that A has (the last piece's pad columns are made on the device). */
static int host_columns(const overlap *o, int p) {
    int end = o->col0[p + 1] < o->call->n ? o->col0[p + 1] : o->call->n;
    return end - o->col0[p];
}

static ps_status stage_piece(overlap *o, int p) {
    const ps__lu_host_call *c = o->call;
    PS__TRY(ps__stage_columns_in(o->ctx, o->dt, c->n, o->col0[p], host_columns(o, p), c->a, c->lda,
                                 &c->check_a, o->a));
    return o->ctx->be.ops->transfer_order(&o->ctx->be, PS__ORDER_MARK_TRANSFERS, MARK_ARRIVED + p);
}

/* The transfer thread's first job: the pieces up. It stages the first piece too, so that only
 * its threads copy (a second team of OpenMP threads beside the first, spinning, cost about 10 ms
 * at n = 16384 on the H200). */
static void stage_pieces(overlap *o) {
    for (int p = 0; p < PIECES; p++) {
        ps_status st = stage_piece(o, p);
        ps__handoff_set(&o->h, &o->h.staged, p + 1, st);
        if (st) return;
    }
}

/* Its second: the left half, then U12, down once the work has made them final. */
static void download_finished(overlap *o) {
    ps_context *ctx = o->ctx;
    const ps__lu_host_call *c = o->call;
    ps__backend *be = &ctx->be;
    int n = c->n, f = o->col0[LEFT_PIECES];
    size_t es = ps__dtype_size(o->dt);
    ps_status st = PS_SUCCESS;
    if (ps__handoff_wait(&o->h, &o->h.go, 1)) return;
    st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_LEFT);
    if (!st) st = ps__stage_block_out(ctx, o->dt, n, f, o->a, c->a, c->lda);
    if (!st && !ps__handoff_wait(&o->h, &o->h.go, 2)) {
        st = be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_TOP);
        if (!st)
            st = ps__stage_block_out(ctx, o->dt, f, n - f, ps__mat_at(o->a, 0, f),
                                     (char *)c->a + (size_t)f * (size_t)c->lda * es, c->lda);
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

/* Brings piece p up to date with the pieces left of it: their row interchanges, U = L^-1 A in
 * its rows above the diagonal and A -= L U below. */
static ps_status catch_up(overlap *o, int p) {
    ps__backend *be = &o->ctx->be;
    ps__dtype dt = o->dt;
    int n = o->nf, c0 = o->col0[p], cw = o->col0[p + 1] - c0;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    for (int q = 0; q < p; q++)
        PS__TRY(be->ops->laswp(be, dt, cw, ps__mat_at(o->a, o->col0[q], c0), 0,
                               o->col0[q + 1] - o->col0[q], o->ipiv[q], 0, 1));
    PS__TRY(be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, c0, cw, &one, o->a,
                          ps__mat_at(o->a, 0, c0)));
    return be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, n - c0, cw, c0, &minus_one,
                         ps__mat_at(o->a, c0, 0), ps__mat_at(o->a, 0, c0), &one,
                         ps__mat_at(o->a, c0, c0));
}

/* Work may read piece p once it has arrived. */
static ps_status wait_for_piece(overlap *o, int p) {
    if (ps__handoff_wait(&o->h, &o->h.staged, p + 1)) return o->h.failed;
    return o->ctx->be.ops->transfer_order(&o->ctx->be, PS__ORDER_WORK_AFTER, MARK_ARRIVED + p);
}

/* Solves with the factors as the device holds them: L21 without A22's interchanges; of a padded
 * copy, the leading n x n part (its pad rows of L are zero and its pad pivots none). */
static ps_status solve(overlap *o, ps__mat b) {
    ps__backend *be = &o->ctx->be;
    ps__dtype dt = o->dt;
    int n = o->call->n, nrhs = o->call->nrhs, f = o->col0[LEFT_PIECES];
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    for (int q = 0; q < LEFT_PIECES; q++)
        PS__TRY(be->ops->laswp(be, dt, nrhs, ps__mat_at(b, o->col0[q], 0), 0,
                               o->col0[q + 1] - o->col0[q], o->ipiv[q], 0, 1));
    PS__TRY(
        be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, f, nrhs, &one, o->a, b));
    PS__TRY(be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, n - f, nrhs, f, &minus_one,
                          ps__mat_at(o->a, f, 0), b, &one, ps__mat_at(b, f, 0)));
    PS__TRY(
        be->ops->laswp(be, dt, nrhs, ps__mat_at(b, f, 0), 0, n - f, o->ipiv[LEFT_PIECES], 0, 1));
    PS__TRY(be->ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, n - f, nrhs, &one,
                          ps__mat_at(o->a, f, f), ps__mat_at(b, f, 0)));
    return be->ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, n, nrhs, &one, o->a,
                         b);
}

/* Everything after the first piece's upload, queued; go tells the transfer thread how far. */
static ps_status queue_work(overlap *o, ps__mat b) {
    ps_context *ctx = o->ctx;
    ps__backend *be = &ctx->be;
    ps__dtype dt = o->dt;
    int n = o->nf, f = o->col0[LEFT_PIECES];
    PS__TRY(ps__pad_identity(ctx, dt, o->call->n, n, o->a)); /* beside the first piece's upload */
    for (int p = 0; p < LEFT_PIECES; p++) {
        int c0 = o->col0[p], cw = o->col0[p + 1] - c0;
        PS__TRY(wait_for_piece(o, p));
        if (p > 0) PS__TRY(catch_up(o, p));
        PS__TRY(ps__getrf(ctx, dt, n - c0, cw, ps__mat_at(o->a, c0, c0), o->ipiv[p], o->info[p]));
        if (p > 0)
            PS__TRY(be->ops->laswp(be, dt, c0, ps__mat_at(o->a, c0, 0), 0, cw, o->ipiv[p], 0, 1));
    }
    PS__TRY(be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_LEFT));
    ps__handoff_set(&o->h, &o->h.go, 1, PS_SUCCESS);
    PS__TRY(wait_for_piece(o, LEFT_PIECES));
    PS__TRY(catch_up(o, LEFT_PIECES));
    PS__TRY(be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_TOP));
    ps__handoff_set(&o->h, &o->h.go, 2, PS_SUCCESS);
    PS__TRY(ps__getrf(ctx, dt, n - f, n - f, ps__mat_at(o->a, f, f), o->ipiv[LEFT_PIECES],
                      o->info[LEFT_PIECES]));
    if (o->call->nrhs > 0) PS__TRY(solve(o, b));
    return be->ops->transfer_order(be, PS__ORDER_MARK_WORK, MARK_ALL);
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

/* The pivots to the caller (1-based, from row 1), the first zero pivot's column, and A22's
 * interchanges applied to the rows of the left half below it. */
static ps_status finish_factors(overlap *o, int *info, int *from, char *buffers, int threads) {
    ps_context *ctx = o->ctx;
    const ps__lu_host_call *c = o->call;
    *info = 0;
    for (int p = 0; p < PIECES; p++) {
        int c0 = o->col0[p], cw = host_columns(o, p), piece_info = 0;
        PS__TRY(ps__read_info(ctx, o->info[p], &piece_info));
        if (!*info && piece_info > 0 && piece_info <= cw) *info = c0 + piece_info;
        PS__TRY(ps__download_pivots(ctx, cw, o->ipiv[p], c->ipiv + c0));
        for (int i = c0; i < c0 + cw; i++) c->ipiv[i] += c0;
    }
    int f = o->col0[LEFT_PIECES];
    ps__lu_host_interchanges(o->dt, f, c->a, c->lda, c->ipiv, 1, f, c->n, c->n, from, buffers,
                             threads);
    return PS_SUCCESS;
}

/* The pieces' columns: the left half [0, f) cut into LEFT_PIECES, whole blocks of nb each. */
static void cut_pieces(overlap *o, int n, int f) {
    int nb = ps__lu_block_size(o->ctx, o->dt, n, n), blocks = f / nb;
    for (int p = 0; p < LEFT_PIECES; p++) o->col0[p] = blocks * p / LEFT_PIECES * nb;
    o->col0[LEFT_PIECES] = f;
    o->col0[PIECES] = o->nf;
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
    overlap o = {.ctx = ctx, .dt = dt, .call = c, .nf = nf};
    cut_pieces(&o, n, f);
    PS__TRY(ps__scratch_dev(s, bytes, &abuf));
    o.a = (ps__mat){abuf, 0, ld};
    for (int p = 0; p < PIECES; p++) {
        PS__TRY(
            ps__scratch_dev(s, (size_t)(o.col0[p + 1] - o.col0[p]) * sizeof(int32_t), &o.ipiv[p]));
        PS__TRY(ps__scratch_dev(s, sizeof(int32_t), &o.info[p]));
    }
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

    PS__TRY(be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, MARK_ALL));
    PS__TRY(ps__stage_block_out(ctx, dt, n - f, n - f, ps__mat_at(o.a, f, f),
                                (char *)c->a + ((size_t)f * (size_t)c->lda + (size_t)f) * es,
                                c->lda));
    PS__TRY(finish_factors(&o, info, from, buffers, threads));
    if (c->nrhs == 0 || *info > 0) return PS_SUCCESS;
    *result = ps__check_solution(ctx, dt, n, c->nrhs, b.dev, c->fn);
    if (*result) return PS_SUCCESS;
    return ps__stage_out(ctx, dt, n, c->nrhs, &b, c->b, c->ldb);
}
