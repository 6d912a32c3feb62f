/* Device-resident matrices. */
#include "base/matrix.h"
#include "base/staging.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

ps_status ps__check_matrix(ps_context *ctx, const ps_matrix *m, int pos, const char *fn,
                           const char *name) {
    if (!m) return ps__bad_arg(ctx, pos, "%s: %s is NULL", fn, name);
    if (m->ctx != ctx) {
        ps__bad_arg(ctx, pos, "%s: %s was created on another context", fn, name);
        return PS_ERR_CONTEXT_MISMATCH;
    }
    return PS_SUCCESS;
}

ps_status ps_matrix_create(ps_context *ctx, ps_dtype dtype, int rows, int cols, int ld,
                           ps_matrix **out) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    if (!out) return ps__bad_arg(ctx, 6, "ps_matrix_create: out is NULL");
    *out = NULL;
    if (dtype != PS_FLOAT && dtype != PS_DOUBLE)
        return ps__bad_arg(ctx, 2, "ps_matrix_create: dtype=%d is neither PS_FLOAT nor PS_DOUBLE",
                           (int)dtype);
    if (rows < 0) return ps__bad_arg(ctx, 3, "ps_matrix_create: rows=%d is negative", rows);
    if (cols < 0) return ps__bad_arg(ctx, 4, "ps_matrix_create: cols=%d is negative", cols);
    if (ld == 0) ld = ps__device_ld(rows);
    if (ld < (rows > 0 ? rows : 1))
        return ps__bad_arg(ctx, 5, "ps_matrix_create: ld=%d is less than max(1, rows=%d)", ld,
                           rows);
    if (dtype == PS_DOUBLE && !ctx->be.has_double)
        return ps__fail(ctx, PS_ERR_NO_DOUBLE,
                        "ps_matrix_create: device '%s' has no double "
                        "precision",
                        ctx->be.device_name);
    size_t bytes;
    if (!ps__bytes_of((size_t)ld, (size_t)cols, ps__dtype_size((ps__dtype)dtype), &bytes))
        return ps__fail(ctx, PS_ERR_OUT_OF_MEMORY,
                        "ps_matrix_create: ld=%d x cols=%d elements do not fit in the address "
                        "space",
                        ld, cols);
    ps_matrix *m;
    ps_status st = ps__host_alloc(ctx, sizeof *m, (void **)&m);
    if (st) return st;
    m->ctx = ctx;
    m->dt = (ps__dtype)dtype;
    m->rows = rows;
    m->cols = cols;
    m->ld = ld;
    m->off = 0;
    m->owns = 1;
    st = ps__dev_alloc(ctx, bytes, &m->buf);
    if (st) {
        ps__host_free(ctx, m);
        return st;
    }
    *out = m;
    return PS_SUCCESS;
}

ps_status ps_matrix_wrap_native(ps_context *ctx, ps_dtype dtype, int rows, int cols, int ld,
                                void *buffer, size_t offset, ps_matrix **out) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    if (!out) return ps__bad_arg(ctx, 8, "ps_matrix_wrap_native: out is NULL");
    *out = NULL;
    if (dtype != PS_FLOAT && dtype != PS_DOUBLE)
        return ps__bad_arg(ctx, 2,
                           "ps_matrix_wrap_native: dtype=%d is neither PS_FLOAT nor "
                           "PS_DOUBLE",
                           (int)dtype);
    if (rows < 0 || cols < 0)
        return ps__bad_arg(ctx, rows < 0 ? 3 : 4, "ps_matrix_wrap_native: %d x %d is negative",
                           rows, cols);
    if (ld < (rows > 0 ? rows : 1))
        return ps__bad_arg(ctx, 5, "ps_matrix_wrap_native: ld=%d is less than max(1, rows=%d)", ld,
                           rows);
    if (!buffer) return ps__bad_arg(ctx, 6, "ps_matrix_wrap_native: buffer is NULL");
    if (strcmp(ctx->be.ops->name, "cpu") == 0)
        return ps__bad_arg(ctx, 1,
                           "ps_matrix_wrap_native: the cpu backend has no device "
                           "buffers to wrap; use the host drivers");
    size_t esize = ps__dtype_size((ps__dtype)dtype);
    /* a misaligned address would fault in the first kernel and leave the device unusable */
    if (ctx->be.buffers_are_addresses && (uintptr_t)buffer % esize != 0)
        return ps__bad_arg(ctx, 6,
                           "ps_matrix_wrap_native: buffer %p is not aligned to its %zu-byte "
                           "elements",
                           buffer, esize);
    if (dtype == PS_DOUBLE && !ctx->be.has_double)
        return ps__fail(ctx, PS_ERR_NO_DOUBLE,
                        "ps_matrix_wrap_native: device '%s' has no double "
                        "precision",
                        ctx->be.device_name);
    ps_matrix *m;
    PS__TRY(ps__host_alloc(ctx, sizeof *m, (void **)&m));
    *m = (ps_matrix){ctx, (ps__dtype)dtype, rows, cols, ld, buffer, offset, 0};
    *out = m;
    return PS_SUCCESS;
}

void ps_matrix_destroy(ps_matrix *m) {
    if (!m) return;
    ps_context *ctx = m->ctx;
    if (m->owns) ps__dev_free(ctx, m->buf);
    ps__host_free(ctx, m);
}

static ps_status upload(ps_matrix *m, const void *host, int ldh, const char *fn, int finite) {
    if (!m) return PS_ERR_INVALID_ARGUMENT;
    ps_context *ctx = m->ctx;
    PS__BEGIN(ctx);
    if (!host && m->rows > 0 && m->cols > 0) return ps__bad_arg(ctx, 2, "%s: host is NULL", fn);
    if (ldh < (m->rows > 0 ? m->rows : 1))
        return ps__bad_arg(ctx, 3, "%s: ldh=%d is less than max(1, rows=%d)", fn, ldh, m->rows);
    if (m->rows == 0 || m->cols == 0) return PS_SUCCESS;
    ps__finite_check check = {fn, "host", 2, PS__SHAPE_ALL};
    return ps__upload_finite(ctx, m->dt, m->rows, m->cols, host, ldh, finite ? &check : NULL,
                             ps__matrix_view(m));
}

ps_status ps_matrix_upload(ps_matrix *m, const void *host, int ldh) {
    return upload(m, host, ldh, "ps_matrix_upload", 0);
}

ps_status ps_matrix_upload_finite(ps_matrix *m, const void *host, int ldh) {
    return upload(m, host, ldh, "ps_matrix_upload_finite", 1);
}

ps_status ps_matrix_download(const ps_matrix *m, void *host, int ldh) {
    if (!m) return PS_ERR_INVALID_ARGUMENT;
    ps_context *ctx = m->ctx;
    PS__BEGIN(ctx);
    if (!host && m->rows > 0 && m->cols > 0)
        return ps__bad_arg(ctx, 2, "ps_matrix_download: host is NULL");
    if (ldh < (m->rows > 0 ? m->rows : 1))
        return ps__bad_arg(ctx, 3, "ps_matrix_download: ldh=%d is less than max(1, rows=%d)", ldh,
                           m->rows);
    if (m->rows == 0 || m->cols == 0) return PS_SUCCESS;
    return ps__download(ctx, m->dt, m->rows, m->cols, ps__matrix_view(m), host, ldh);
}

int ps_matrix_rows(const ps_matrix *m) {
    return m ? m->rows : 0;
}
int ps_matrix_cols(const ps_matrix *m) {
    return m ? m->cols : 0;
}
int ps_matrix_ld(const ps_matrix *m) {
    return m ? m->ld : 0;
}
ps_dtype ps_matrix_dtype(const ps_matrix *m) {
    return m ? (ps_dtype)m->dt : PS_DOUBLE;
}

ps_status ps__check_square_matrix(ps_context *ctx, const ps_matrix *A, int pos, const char *fn) {
    PS__TRY(ps__check_matrix(ctx, A, pos, fn, "A"));
    if (A->rows != A->cols)
        return ps__bad_arg(ctx, pos, "%s: A is %d x %d, not square", fn, A->rows, A->cols);
    return PS_SUCCESS;
}

ps_status ps__check_rhs_matrix(ps_context *ctx, const ps_matrix *A, const ps_matrix *B, int pos,
                               const char *fn) {
    PS__TRY(ps__check_matrix(ctx, B, pos, fn, "B"));
    if (B->rows != A->rows)
        return ps__bad_arg(ctx, pos, "%s: B has %d rows but A is of order %d", fn, B->rows,
                           A->rows);
    if (A->dt != B->dt) {
        ps__bad_arg(ctx, pos, "%s: A and B differ in precision", fn);
        return PS_ERR_DTYPE_MISMATCH;
    }
    return PS_SUCCESS;
}

ps_status ps__fill_identity(ps_context *ctx, ps__dtype dt, int b, ps__mat eye) {
    ps__backend *be = &ctx->be;
    ps__scalar zero = ps__scalar_of(dt, 0.0), one = ps__scalar_of(dt, 1.0);
    PS__TRY(be->ops->fill(be, dt, b, b, &zero, eye));
    ps__mat diagonal = {eye.buf, eye.off, eye.ld + 1};
    return be->ops->fill(be, dt, 1, b, &one, diagonal);
}
