/*
 * ps_dsgesv's A moved beside the low-precision LU: the host driver's double A goes up in pieces
 * of columns on a second host thread (the transfer thread), and the LU starts on the first:
 * each piece is narrowed and joins the factorization as it arrives (core/refine/refine_low.c,
 * narrow_arrived; core/lu/lu.c, columns_arrive). Without it the whole of A went up before the
 * narrowing, about as long as the LU itself at n = 32768 (docs/PERFORMANCE.md). A successful
 * call writes nothing back to A, so only the upload overlaps; the pieces and the join follow
 * the host LU's (core/lu/lu_overlap.c).
 */
#include "refine/refine_staged.h"

#include "base/handoff.h"
#include "lu/lu.h"

#include <pthread.h>
#include <string.h>

/* Pieces A goes up in (fewer where it has fewer block columns); the first holds 1/FIRST_SHARE of
 * its block columns, at least FIRST_BLOCKS where there are more. */
#define PIECES       8
#define FIRST_SHARE  16
#define FIRST_BLOCKS 4
/* A staged piece joins once its first column is at most this share of the order ahead of the
 * columns the LU needs (a half). */
#define JOIN_AHEAD_DIV 2
/* transfer_order's mark for piece p's arrival: MARK_ARRIVED + p (0 and 1 are the staging's) */
#define MARK_ARRIVED 2

struct ps__refine_staging {
    ps_context *ctx;
    const double *a;
    int lda, n;
    ps__finite_check check;
    ps__mat dev;
    int pieces;           /* piece p is A's columns [col0[p], col0[p + 1]) */
    int col0[PIECES + 1]; /* the last ending at n */
    int32_t top[PIECES];  /* each piece's largest exponent field, once staged */
    int joined;           /* pieces the LU has taken */
    int ticks;            /* the work thread's fetches (ps__keep_close) */
    void *tick;
    ps__handoff h;
    pthread_t thread;
    int threaded;
};

int ps__refine_staged_wanted(ps_context *ctx, int n, const ps_refine_options *o) {
    void *alias;
    int from = ps__lu_overlap_from(ctx, PS__FLOAT), nf = ps__aligned_order(n);
    if (from <= 0 || n < from || n < 4 * ps__lu_block_size(ctx, PS__FLOAT, nf, nf)) return 0;
    if (o->factorization != PS_REFINE_PARTIAL_PIVOTING || o->precision == PS_LOWPREC_FP16) return 0;
    if (ctx->tuning.lu_panel == PS__LU_PANEL_HOST) return 0;
    return ctx->be.ops->host_alias(&ctx->be, ctx, &alias) != PS_SUCCESS;
}

/* The pieces' columns, whole blocks of the LU each: the first, then the rest in equal parts. */
static void cut_pieces(ps__refine_staging *g, int nb) {
    int blocks = (g->n + nb - 1) / nb, first = blocks / FIRST_SHARE;
    if (first < FIRST_BLOCKS) first = FIRST_BLOCKS;
    if (first > blocks - 1) first = blocks - 1;
    int rest = blocks - first, parts = rest < PIECES - 1 ? rest : PIECES - 1;
    g->pieces = parts + 1;
    g->col0[0] = 0;
    for (int p = 1; p <= parts; p++) g->col0[p] = (first + rest * (p - 1) / parts) * nb;
    g->col0[g->pieces] = g->n;
}

/* The transfer thread: every piece up, each checked for NaN and Inf and measured as it is
 * copied, and marked for the work that reads it. */
static void *transfer_thread(void *arg) {
    ps__refine_staging *g = arg;
    ps_context *ctx = g->ctx;
    ctx->be.ops->activate(&ctx->be); /* this thread works on the context's device too */
    for (int p = 0; p < g->pieces; p++) {
        ps__finite_check check = g->check;
        check.top = &g->top[p];
        ps_status st =
            ps__stage_columns_in(ctx, PS__DOUBLE, g->n, g->col0[p], g->col0[p + 1] - g->col0[p],
                                 g->a, g->lda, &check, g->dev);
        if (!st)
            st = ctx->be.ops->transfer_order(&ctx->be, PS__ORDER_MARK_TRANSFERS, MARK_ARRIVED + p);
        ps__handoff_set(&g->h, &g->h.staged, p + 1, st);
        if (st) break;
    }
    return NULL;
}

/* The source's arrive: the pieces staged by now join, at least those up to need. */
static ps_status arrive(void *arg, int need, int *have, int32_t *top) {
    ps__refine_staging *g = arg;
    ps__backend *be = &g->ctx->be;
    int must = g->joined;
    while (must < g->pieces && g->col0[must] < need) must++;
    PS__TRY(ps__keep_close(g->ctx, g->tick, &g->ticks));
    int staged = ps__handoff_read(&g->h, &g->h.staged), q = must;
    while (q < staged && g->col0[q] <= need + g->n / JOIN_AHEAD_DIV) q++;
    for (; g->joined < q; g->joined++) {
        if (ps__handoff_wait(&g->h, &g->h.staged, g->joined + 1)) return g->h.failed;
        PS__TRY(be->ops->transfer_order(be, PS__ORDER_WORK_AFTER, MARK_ARRIVED + g->joined));
        if (g->top[g->joined] > *top) *top = g->top[g->joined];
    }
    *have = g->col0[q];
    return PS_SUCCESS;
}

ps_status ps__refine_staging_start(ps__scratch *s, int n, const double *a, int lda,
                                   const ps__finite_check *check, ps__mat dev,
                                   ps__refine_staging **out, ps__refine_source *source) {
    ps_context *ctx = s->ctx;
    ps__refine_staging *g;
    *out = NULL;
    PS__TRY(ps__scratch_host(s, sizeof *g, (void **)&g));
    memset(g, 0, sizeof *g);
    g->ctx = ctx, g->a = a, g->lda = lda, g->n = n, g->check = *check, g->dev = dev;
    int nf = ps__aligned_order(n);
    cut_pieces(g, ps__lu_block_size(ctx, PS__FLOAT, nf, nf));
    PS__TRY(ps__scratch_dev(s, sizeof(int32_t), &g->tick));
    PS__TRY(ps__zero_info(ctx, g->tick));
    PS__TRY(ps__transfers_after_work(ctx));
    ps__handoff_init(&g->h);
    ps__staging_hold(ctx, (size_t)n * (size_t)n * sizeof(double));
    g->threaded = pthread_create(&g->thread, NULL, transfer_thread, g) == 0;
    if (!g->threaded) transfer_thread(g); /* no second thread: A up, then the work */
    *out = g;
    *source = (ps__refine_source){.arrive = arrive, .arg = g};
    return PS_SUCCESS;
}

ps_status ps__refine_staging_end(ps__refine_staging *g, ps_status st) {
    if (!g) return st;
    ps__backend *be = &g->ctx->be;
    if (st) ps__handoff_set(&g->h, &g->h.go, -1, PS_SUCCESS);
    if (g->threaded) pthread_join(g->thread, NULL);
    ps__staging_unhold(g->ctx);
    ps__handoff_destroy(&g->h);
    if (g->h.failed) st = g->h.failed; /* a refused input: what the caller must hear */
    if (st)                            /* nothing may still move out of the ring */
        for (int i = 0; i < PS__TRANSFER_SLOTS; i++) be->ops->transfer_wait(be, i);
    return st;
}
