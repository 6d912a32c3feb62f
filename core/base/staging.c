/* Host arrays staged for the backend (see staging.h). */
#include "base/staging.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* The ring's buffers are at most this large; a call's chunks are whole columns of one buffer. */
#define RING_MAX_BYTES ((size_t)32 << 20)
#define RING_MIN_BYTES ((size_t)1 << 20)
/* Copies and scans below this many bytes stay on the calling thread (a parallel region costs
 * microseconds; one thread moves about 4 GB/s). */
#define PARALLEL_BYTES ((size_t)4 << 20)
/* The most threads a copy uses: host memory bandwidth is saturated well before. */
#define MAX_THREADS 32
/* A column is cut into segments of this many elements, so that tall single columns spread. */
#define SEGMENT 32768

static int threads_for(size_t bytes) {
#ifdef _OPENMP
    if (bytes < PARALLEL_BYTES) return 1;
    int t = omp_get_max_threads();
    return t < MAX_THREADS ? t : MAX_THREADS;
#else
    (void)bytes;
    return 1;
#endif
}

/* Rows r0 .. r1 - 1 of columns col0 .. col0 + cols - 1 of src (rows x ., leading dimension lds
 * elements): copied into dst (row r0 at its top, leading dimension ldd) when dst is not NULL, and
 * scanned for NaN/Inf in shape's part when check is set. Returns 1 when the scan found one (the
 * copy may then be incomplete). */
static int walk_rows(ps__dtype dt, int check, int shape, int rows, int r0, int r1, int col0,
                     int cols, const char *src, size_t lds, char *dst, size_t ldd) {
    size_t es = ps__dtype_size(dt);
    long segs = (r1 - r0 + SEGMENT - 1) / SEGMENT, items = segs * (long)cols;
    int bad = 0;
    int threads = threads_for((size_t)(r1 - r0) * (size_t)cols * es);
#ifdef _OPENMP
#pragma omp parallel for schedule(static) reduction(| : bad) num_threads(threads) if (threads > 1)
#endif
    for (long it = 0; it < items; it++) {
        int j = col0 + (int)(it / segs), i0 = r0 + (int)(it % segs) * SEGMENT;
        int i1 = r1 - i0 < SEGMENT ? r1 : i0 + SEGMENT;
        const char *from = src + ((size_t)j * lds + (size_t)i0) * es;
        char *to = dst ? dst + ((size_t)(j - col0) * ldd + (size_t)(i0 - r0)) * es : NULL;
        int first = i0, end = i1;
        if (check) {
            ps__shape_rows(shape, rows, j, &first, &end);
            if (first < i0) first = i0;
            if (end > i1) end = i1;
        }
        if (check && first == i0 && end == i1) /* the whole segment: checked as it is copied */
            bad |= ps__copy_nonfinite(dt, to, from, (size_t)(i1 - i0));
        else {
            if (check && first < end)
                bad |= ps__range_nonfinite(dt, src + ((size_t)j * lds + (size_t)first) * es,
                                           (size_t)(end - first));
            if (to) memcpy(to, from, (size_t)(i1 - i0) * es);
        }
    }
    (void)threads;
    return bad;
}

static int walk_columns(ps__dtype dt, int check, int shape, int rows, int col0, int cols,
                        const char *src, size_t lds, char *dst, size_t ldd) {
    return walk_rows(dt, check, shape, rows, 0, rows, col0, cols, src, lds, dst, ldd);
}

/* The rows [*r0, *r1) a transfer of columns c0 .. c0 + nc - 1 moves: all, or those of the
 * triangle moved (PS__LOWER, PS__UPPER) with the rest of the block's diagonal square. */
static void moved_rows(int moved, int rows, int c0, int nc, int *r0, int *r1) {
    *r0 = moved == PS__LOWER ? (c0 < rows ? c0 : rows) : 0;
    *r1 = moved == PS__UPPER ? (c0 + nc < rows ? c0 + nc : rows) : rows;
}

ps_status ps__check_finite(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *a,
                           int lda, const ps__finite_check *check) {
    if (!check || rows <= 0 || cols <= 0) return PS_SUCCESS;
    if (!walk_columns(dt, 1, check->shape, rows, 0, cols, a, (size_t)lda, NULL, 0))
        return PS_SUCCESS;
    return ps__report_nonfinite(ctx, dt, check, rows, 0, cols, a, lda);
}

void ps__staging_release(ps_context *ctx) {
    for (int i = 0; i < PS__TRANSFER_SLOTS; i++) {
        if (!ctx->ring[i]) continue;
        ctx->be.ops->transfer_wait(&ctx->be, i);
        ctx->be.ops->host_free(&ctx->be, ctx->ring[i]);
        ctx->ring[i] = NULL;
    }
    ctx->ring_bytes = 0;
}

/* Buffers of at least the size a transfer of `bytes` pipelines well in; 0 when they cannot be
 * had (the caller then transfers from its own memory). */
static size_t ring_for(ps_context *ctx, size_t bytes) {
    size_t want = bytes / PS__TRANSFER_SLOTS;
    if (want > RING_MAX_BYTES) want = RING_MAX_BYTES;
    if (want < RING_MIN_BYTES) want = RING_MIN_BYTES;
    if (ctx->ring_bytes >= want || ctx->ring_held) return ctx->ring_bytes;
    ps__staging_release(ctx);
    for (int i = 0; i < PS__TRANSFER_SLOTS; i++)
        if (ctx->be.ops->host_alloc(&ctx->be, want, &ctx->ring[i]) != PS_SUCCESS) {
            ctx->ring[i] = NULL;
            ps__staging_release(ctx);
            ctx->last_error[0] = '\0'; /* not an error: the transfer goes unstaged */
            return 0;
        }
    ctx->ring_bytes = want;
    return want;
}

ps_status ps__scratch_matrix(ps__scratch *s, ps__dtype dt, int rows, int cols, ps__mat *m) {
    size_t bytes;
    *m = (ps__mat){NULL, 0, ps__device_ld(rows)};
    if (!ps__bytes_of((size_t)m->ld, (size_t)ps__max1(cols), ps__dtype_size(dt), &bytes))
        return ps__fail(s->ctx, PS_ERR_OUT_OF_MEMORY,
                        "a %d x %d device work array does not fit in memory", rows, cols);
    return ps__scratch_dev(s, bytes, &m->buf);
}

int ps__aligned_copy_wanted(ps_context *ctx, ps__algo algo, int knob, ps__dtype dt, int n,
                            ps__mat a) {
    int from = ps__tuned_size(ctx, knob, algo, dt, 0);
    size_t es = ps__dtype_size(dt);
    if (from <= 0 || n < from) return 0;
    return n % 8 != 0 || ((size_t)a.ld * es) % 16 != 0 || (a.off * es) % 16 != 0;
}

ps_status ps__pad_identity(ps_context *ctx, ps__dtype dt, int n, int np, ps__mat w) {
    ps__backend *be = &ctx->be;
    int p = np - n;
    if (p <= 0) return PS_SUCCESS;
    ps__scalar zero = ps__scalar_of(dt, 0.0), one = ps__scalar_of(dt, 1.0);
    PS__TRY(be->ops->fill(be, dt, n, p, &zero, ps__mat_at(w, 0, n)));
    PS__TRY(be->ops->fill(be, dt, p, np, &zero, ps__mat_at(w, n, 0)));
    ps__mat diagonal = {w.buf, w.off + (size_t)n * ((size_t)w.ld + 1), w.ld + 1};
    return be->ops->fill(be, dt, 1, p, &one, diagonal); /* a row of stride ld + 1 */
}

void ps__staging_hold(ps_context *ctx, size_t bytes) {
    ring_for(ctx, bytes);
    ctx->ring_held = 1;
}

void ps__staging_unhold(ps_context *ctx) {
    ctx->ring_held = 0;
}

/* Columns per ring buffer for columns of column_bytes; 0 when the ring cannot be used. */
static int ring_columns(ps_context *ctx, size_t column_bytes, int cols) {
    size_t ring = ring_for(ctx, column_bytes * (size_t)cols);
    size_t per = ring / column_bytes;
    return per > (size_t)cols ? cols : (int)per;
}

/* Transfers queued from now on wait for all work queued before. */
static ps_status follow_work(ps__backend *be) {
    PS__TRY(be->ops->transfer_order(be, PS__ORDER_MARK_WORK, PS__MARK_STAGING));
    return be->ops->transfer_order(be, PS__ORDER_TRANSFERS_AFTER, PS__MARK_STAGING);
}

ps_status ps__work_after_transfers(ps_context *ctx, int mark) {
    ps__backend *be = &ctx->be;
    PS__TRY(be->ops->transfer_order(be, PS__ORDER_MARK_TRANSFERS, mark));
    return be->ops->transfer_order(be, PS__ORDER_WORK_AFTER, mark);
}

ps_status ps__transfers_after_work(ps_context *ctx) {
    return follow_work(&ctx->be);
}

/* Uploads columns col0 .. col0 + cols - 1 of host into the same columns of dst through the ring:
 * the threads fill buffer k while buffer k - 1 is on its way. The transfers stay queued; the
 * work that reads them must be ordered behind them (PS__ORDER_WORK_AFTER). */
static ps_status upload_columns(ps_context *ctx, ps__dtype dt, int rows, int col0, int cols,
                                const void *host, int ldh, const ps__finite_check *check,
                                ps__mat dst, int moved) {
    ps__backend *be = &ctx->be;
    size_t es = ps__dtype_size(dt);
    int per = ring_columns(ctx, (size_t)rows * es, cols);
    if (per == 0) {
        if (check &&
            walk_columns(dt, 1, check->shape, rows, col0, cols, host, (size_t)ldh, NULL, 0))
            return ps__report_nonfinite(ctx, dt, check, rows, col0, cols, host, ldh);
        return be->ops->upload(be, dt, rows, cols,
                               (const char *)host + (size_t)col0 * (size_t)ldh * es, ldh,
                               ps__mat_at(dst, 0, col0));
    }
    ps_status st = PS_SUCCESS;
    for (int c0 = col0, k = 0; c0 < col0 + cols && !st; c0 += per, k++) {
        int slot = k % PS__TRANSFER_SLOTS, nc = col0 + cols - c0 < per ? col0 + cols - c0 : per;
        st = be->ops->transfer_wait(be, slot); /* the buffer's last transfer has read it */
        if (st) break;
        int r0, r1;
        moved_rows(moved, rows, c0, nc, &r0, &r1);
        if (walk_rows(dt, check != NULL, check ? check->shape : PS__SHAPE_ALL, rows, r0, r1, c0, nc,
                      host, (size_t)ldh, ctx->ring[slot], (size_t)(r1 - r0))) {
            st = ps__report_nonfinite(ctx, dt, check, rows, c0, nc, host, ldh);
            break;
        }
        st = be->ops->upload_async(be, dt, r1 - r0, nc, ctx->ring[slot], ps__max1(r1 - r0),
                                   ps__mat_at(dst, r0, c0), slot);
    }
    return st;
}

/* Without the ring: blocking downloads, of the moved triangle's blocks of columns only (the
 * rest of the copy may never have been uploaded). */
static ps_status download_unstaged(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat src,
                                   void *host, int ldh, int moved) {
    ps__backend *be = &ctx->be;
    size_t es = ps__dtype_size(dt);
    int step = moved == PS__SHAPE_ALL ? cols : 256;
    for (int c0 = 0; c0 < cols; c0 += step) {
        int nc = cols - c0 < step ? cols - c0 : step, r0, r1;
        moved_rows(moved, rows, c0, nc, &r0, &r1);
        PS__TRY(be->ops->download(be, dt, r1 - r0, nc, ps__mat_at(src, r0, c0),
                                  (char *)host + ((size_t)c0 * (size_t)ldh + (size_t)r0) * es,
                                  ldh));
    }
    return PS_SUCCESS;
}

/* Downloads through the ring: buffer k is copied out while later ones are on their way. Every
 * transfer has finished when it returns. */
static ps_status download_staged(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat src,
                                 void *host, int ldh, int moved) {
    ps__backend *be = &ctx->be;
    size_t es = ps__dtype_size(dt);
    int per = ring_columns(ctx, (size_t)rows * es, cols);
    if (per == 0) return download_unstaged(ctx, dt, rows, cols, src, host, ldh, moved);
    int chunks = (cols + per - 1) / per;
    ps_status st = PS_SUCCESS;
    for (int k = 0; k < chunks + PS__TRANSFER_SLOTS && !st; k++) {
        if (k >= PS__TRANSFER_SLOTS) { /* chunk p is in its buffer: copy it out */
            int p = k - PS__TRANSFER_SLOTS, slot = p % PS__TRANSFER_SLOTS, c0 = p * per;
            if (p >= chunks) break;
            int nc = cols - c0 < per ? cols - c0 : per, r0, r1;
            moved_rows(moved, rows, c0, nc, &r0, &r1);
            st = be->ops->transfer_wait(be, slot);
            if (!st)
                walk_columns(
                    dt, 0, PS__SHAPE_ALL, r1 - r0, 0, nc, ctx->ring[slot], (size_t)(r1 - r0),
                    (char *)host + ((size_t)c0 * (size_t)ldh + (size_t)r0) * es, (size_t)ldh);
        }
        if (!st && k < chunks) {
            int slot = k % PS__TRANSFER_SLOTS, c0 = k * per;
            int nc = cols - c0 < per ? cols - c0 : per, r0, r1;
            moved_rows(moved, rows, c0, nc, &r0, &r1);
            st = be->ops->download_async(be, dt, r1 - r0, nc, ps__mat_at(src, r0, c0),
                                         ctx->ring[slot], ps__max1(r1 - r0), slot);
        }
    }
    if (st) /* no transfer may still write a buffer that the next call refills */
        for (int i = 0; i < PS__TRANSFER_SLOTS; i++) be->ops->transfer_wait(be, i);
    return st;
}

static ps_status upload_staged(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *host,
                               int ldh, const ps__finite_check *check, ps__mat dst, int moved) {
    ps__backend *be = &ctx->be;
    PS__TRY(follow_work(be));
    PS__TRY(upload_columns(ctx, dt, rows, 0, cols, host, ldh, check, dst, moved));
    return ps__work_after_transfers(ctx, PS__MARK_STAGED);
}

ps_status ps__stage_columns_in(ps_context *ctx, ps__dtype dt, int rows, int col0, int cols,
                               const void *host, int ldh, const ps__finite_check *check,
                               ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    return upload_columns(ctx, dt, rows, col0, cols, host, ldh, check, dst, PS__SHAPE_ALL);
}

ps_status ps__stage_block_out(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat src,
                              void *host, int ldh) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    return download_staged(ctx, dt, rows, cols, src, host, ldh, PS__SHAPE_ALL);
}

/* order > rows = cols: the copy is diag(A, I) of that order (ps__stage_triangle_in's np). */
static ps_status stage_in(ps__scratch *s, ps__dtype dt, int rows, int cols, int order,
                          const void *host, int ldh, int may_alias, const ps__finite_check *check,
                          int moved, ps__staged *out) {
    ps_context *ctx = s->ctx;
    void *alias;
    int host_memory = ctx->be.ops->host_alias(&ctx->be, (void *)host, &alias) == PS_SUCCESS;
    if (may_alias && host_memory) {
        PS__TRY(ps__check_finite(ctx, dt, rows, cols, host, ldh, check));
        *out = (ps__staged){{alias, 0, ldh}, 1, PS__SHAPE_ALL};
        return PS_SUCCESS;
    }
    out->aliased = 0;
    out->moved = moved;
    int padded = order > rows;
    out->dev = (ps__mat){NULL, 0, ps__device_ld(padded ? order : rows)};
    size_t bytes;
    if (!ps__bytes_of((size_t)out->dev.ld, (size_t)(padded ? order : cols), ps__dtype_size(dt),
                      &bytes))
        return ps__fail(ctx, PS_ERR_OUT_OF_MEMORY,
                        "a %d x %d staging copy does not fit in the "
                        "address space",
                        rows, cols);
    PS__TRY(ps__scratch_dev(s, bytes, &out->dev.buf));
    if (rows == 0 || cols == 0) return PS_SUCCESS;
    if (padded) PS__TRY(ps__pad_identity(ctx, dt, rows, order, out->dev));
    if (host_memory) { /* the device buffer is host memory: copy into it directly */
        PS__TRY(ctx->be.ops->host_alias(&ctx->be, out->dev.buf, &alias));
        if (!walk_columns(dt, check != NULL, check ? check->shape : PS__SHAPE_ALL, rows, 0, cols,
                          host, (size_t)ldh, alias, (size_t)out->dev.ld))
            return PS_SUCCESS;
        return ps__report_nonfinite(ctx, dt, check, rows, 0, cols, host, ldh);
    }
    return upload_staged(ctx, dt, rows, cols, host, ldh, check, out->dev, moved);
}

ps_status ps__stage_in(ps__scratch *s, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                       int may_alias, const ps__finite_check *check, ps__staged *out) {
    return stage_in(s, dt, rows, cols, rows, host, ldh, may_alias, check, PS__SHAPE_ALL, out);
}

ps_status ps__stage_triangle_in(ps__scratch *s, ps__dtype dt, int n, int np, const void *host,
                                int ldh, int may_alias, const ps__finite_check *check,
                                ps__staged *out) {
    return stage_in(s, dt, n, n, np, host, ldh, may_alias, check, check->shape, out);
}

static ps_status stage_out(ps_context *ctx, ps__dtype dt, int rows, int cols, const ps__staged *in,
                           void *host, int ldh, int follow) {
    if (in->aliased || rows == 0 || cols == 0) return PS_SUCCESS;
    void *alias;
    if (ctx->be.ops->host_alias(&ctx->be, in->dev.buf, &alias) == PS_SUCCESS) {
        PS__TRY(ctx->be.ops->sync(&ctx->be));
        walk_columns(dt, 0, PS__SHAPE_ALL, rows, 0, cols,
                     (const char *)alias + in->dev.off * ps__dtype_size(dt), (size_t)in->dev.ld,
                     host, (size_t)ldh);
        return PS_SUCCESS;
    }
    if (follow) PS__TRY(follow_work(&ctx->be));
    return download_staged(ctx, dt, rows, cols, in->dev, host, ldh, in->moved);
}

ps_status ps__stage_out(ps_context *ctx, ps__dtype dt, int rows, int cols, const ps__staged *in,
                        void *host, int ldh) {
    return stage_out(ctx, dt, rows, cols, in, host, ldh, 1);
}

ps_status ps__stage_out_beside(ps_context *ctx, ps__dtype dt, int rows, int cols,
                               const ps__staged *in, void *host, int ldh) {
    return stage_out(ctx, dt, rows, cols, in, host, ldh, 0);
}

ps_status ps__upload_finite(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *host,
                            int ldh, const ps__finite_check *check, ps__mat dst) {
    void *alias;
    ps__backend *be = &ctx->be;
    if (rows <= 0 || cols <= 0 || be->ops->host_alias(be, dst.buf, &alias) == PS_SUCCESS) {
        if (!check || rows <= 0 || cols <= 0)
            return be->ops->upload(be, dt, rows, cols, host, ldh, dst);
        /* host memory: the check in the copy's own pass, as stage_in's */
        char *to = (char *)alias + dst.off * ps__dtype_size(dt);
        if (!walk_columns(dt, 1, check->shape, rows, 0, cols, host, (size_t)ldh, to,
                          (size_t)dst.ld))
            return PS_SUCCESS;
        return ps__report_nonfinite(ctx, dt, check, rows, 0, cols, host, ldh);
    }
    ps_status st = upload_staged(ctx, dt, rows, cols, host, ldh, check, dst, PS__SHAPE_ALL);
    /* a refusal still waits for what is in flight */
    for (int i = 0; i < PS__TRANSFER_SLOTS; i++) {
        ps_status w = be->ops->transfer_wait(be, i);
        if (!st) st = w;
    }
    return st;
}

ps_status ps__upload(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                     ps__mat dst) {
    return ps__upload_finite(ctx, dt, rows, cols, host, ldh, NULL, dst);
}

ps_status ps__download(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat src, void *host,
                       int ldh) {
    void *alias;
    ps__backend *be = &ctx->be;
    if (rows <= 0 || cols <= 0 || be->ops->host_alias(be, src.buf, &alias) == PS_SUCCESS)
        return be->ops->download(be, dt, rows, cols, src, host, ldh);
    PS__TRY(follow_work(be));
    return download_staged(ctx, dt, rows, cols, src, host, ldh, PS__SHAPE_ALL);
}

ps_status ps__check_solution(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat x,
                             const char *fn) {
    double norm = 0;
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    PS__TRY(ctx->be.ops->norm_inf(&ctx->be, dt, rows, cols, x, &norm));
    if (isfinite(norm)) return PS_SUCCESS;
    return ps__fail(ctx, PS_ERR_RESULT_NOT_FINITE,
                    "%s: the computed solution is not finite: it lies beyond the precision's "
                    "range, or a pivot is below the safe minimum and its reciprocal overflows; "
                    "the right-hand sides were not written back",
                    fn);
}

ps_status ps__check_dtype_supported(ps_context *ctx, ps__dtype dt, const char *fn) {
    if (dt == PS__DOUBLE && !ctx->be.has_double)
        return ps__fail(ctx, PS_ERR_NO_DOUBLE, "%s: device '%s' has no double precision", fn,
                        ctx->be.device_name);
    return PS_SUCCESS;
}
