/* Argument and input checks shared by the drivers, and pivot conversions. */
#include "base/check.h"
#include "base/staging.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(int) == sizeof(int32_t), "pivots are passed as 32-bit ints");

/* A value is not finite when its exponent field is all ones: adding one to the field then carries
 * into the sign bit. The test has no comparison, so that compilers vectorize it for any target
 * (a 64-bit equality test does not vectorize with SSE2); copying in the same pass reads the
 * array once. The loop is written twice so that neither tests dst per element. */
#define DEFINE_COPY_NONFINITE(name, bits_t, exp_mask, exp_one, sign_bit)                           \
    static int name(void *restrict dst, const void *restrict src, size_t count) {                  \
        const char *from = src;                                                                    \
        char *to = dst;                                                                            \
        bits_t acc = 0, bits;                                                                      \
        if (to)                                                                                    \
            for (size_t i = 0; i < count; i++) {                                                   \
                memcpy(&bits, from + i * sizeof bits, sizeof bits);                                \
                memcpy(to + i * sizeof bits, &bits, sizeof bits);                                  \
                acc |= (bits & (exp_mask)) + (exp_one);                                            \
            }                                                                                      \
        else                                                                                       \
            for (size_t i = 0; i < count; i++) {                                                   \
                memcpy(&bits, from + i * sizeof bits, sizeof bits);                                \
                acc |= (bits & (exp_mask)) + (exp_one);                                            \
            }                                                                                      \
        return (acc & (sign_bit)) != 0;                                                            \
    }

DEFINE_COPY_NONFINITE(copy_nonfinite64, uint64_t, 0x7ff0000000000000ull, 0x0010000000000000ull,
                      0x8000000000000000ull)
DEFINE_COPY_NONFINITE(copy_nonfinite32, uint32_t, 0x7f800000u, 0x00800000u, 0x80000000u)

int ps__copy_nonfinite(ps__dtype dt, void *restrict dst, const void *restrict src, size_t count) {
    return dt == PS__DOUBLE ? copy_nonfinite64(dst, src, count) : copy_nonfinite32(dst, src, count);
}

int ps__range_nonfinite(ps__dtype dt, const void *a, size_t count) {
    return ps__copy_nonfinite(dt, NULL, a, count);
}

ps_status ps__report_nonfinite(ps_context *ctx, ps__dtype dt, const ps__finite_check *check,
                               int rows, int col0, int cols, const void *a, int lda) {
    size_t es = ps__dtype_size(dt);
    for (int j = col0; j < col0 + cols; j++) {
        int first, end;
        ps__shape_rows(check->shape, rows, j, &first, &end);
        const char *c = (const char *)a + (size_t)j * (size_t)lda * es;
        for (int i = first; i < end; i++) {
            double v = dt == PS__DOUBLE ? ((const double *)c)[i] : (double)((const float *)c)[i];
            if (isfinite(v)) continue;
            ctx->last_info = -check->pos;
            return ps__fail(ctx, PS_ERR_NON_FINITE,
                            "%s: %s(%d,%d) is not finite; inputs must not contain NaN or Inf",
                            check->fn, check->name, i + 1, j + 1);
        }
    }
    return PS_SUCCESS;
}

ps_status ps__check_array(ps_context *ctx, const char *fn, char name, const void *a, int used,
                          int ld, char dim, int rows, int pos) {
    if (!a && used) return ps__bad_arg(ctx, pos, "%s: %c is NULL", fn, name);
    if (ld < ps__max1(rows))
        return ps__bad_arg(ctx, pos + 1, "%s: ld%c=%d is less than max(1,%c=%d)", fn,
                           (char)tolower((unsigned char)name), ld, dim, rows);
    return PS_SUCCESS;
}

/* The bytes [first, end) an rows x cols column-major array spans. */
static void span_of(const void *a, int ld, int cols, int rows, size_t es, uintptr_t *first,
                    uintptr_t *end) {
    *first = (uintptr_t)a;
    *end = *first + ((size_t)(cols - 1) * (size_t)ld + (size_t)rows) * es;
}

ps_status ps__check_separate(ps_context *ctx, const char *fn, const void *a, char aname, int lda,
                             int acols, const void *b, char bname, int ldb, int bcols, int rows,
                             size_t es, int pos) {
    if (!a || !b || rows <= 0 || acols <= 0 || bcols <= 0) return PS_SUCCESS;
    uintptr_t a0, a1, b0, b1;
    span_of(a, lda, acols, rows, es, &a0, &a1);
    span_of(b, ldb, bcols, rows, es, &b0, &b1);
    if (a0 < b1 && b0 < a1)
        return ps__bad_arg(ctx, pos, "%s: %c shares memory with %c; they must be separate arrays",
                           fn, bname, aname);
    return PS_SUCCESS;
}

ps_status ps__parse_uplo(ps_context *ctx, char c, ps__uplo *uplo, const char *fn, int pos) {
    if (c == 'L' || c == 'l') {
        *uplo = PS__LOWER;
        return PS_SUCCESS;
    }
    if (c == 'U' || c == 'u') {
        *uplo = PS__UPPER;
        return PS_SUCCESS;
    }
    return ps__bad_arg(ctx, pos, "%s: uplo='%c' is not 'L' or 'U'", fn,
                       c >= 32 && c < 127 ? c : '?');
}

ps_status ps__check_pivots(ps_context *ctx, int n, const int *ipiv, const char *fn, int pos) {
    for (int i = 0; i < n; i++)
        if (ipiv[i] < 1 || ipiv[i] > n)
            return ps__bad_arg(ctx, pos, "%s: ipiv[%d]=%d is outside 1..n=%d", fn, i, ipiv[i], n);
    return PS_SUCCESS;
}

ps_status ps__parse_trans(ps_context *ctx, char c, ps__trans *trans, const char *fn, int pos) {
    switch (c) {
    case 'N':
    case 'n':
        *trans = PS__NOTRANS;
        return PS_SUCCESS;
    case 'T':
    case 't':
    case 'C':
    case 'c':
        *trans = PS__TRANS;
        return PS_SUCCESS;
    default:
        return ps__bad_arg(ctx, pos, "%s: trans='%c' is not 'N', 'T' or 'C'", fn,
                           c >= 32 && c < 127 ? c : '?');
    }
}

ps_status ps__upload_pivots(ps__scratch *s, int n, const int *ipiv, void **dev_ipiv) {
    ps_context *ctx = s->ctx;
    int32_t *zero_based;
    PS__TRY(ps__scratch_dev(s, (size_t)n * sizeof(int32_t), dev_ipiv));
    if (n == 0) return PS_SUCCESS;
    PS__TRY(ps__scratch_host(s, (size_t)n * sizeof(int32_t), (void **)&zero_based));
    for (int i = 0; i < n; i++) zero_based[i] = ipiv[i] - 1;
    ps__mat v = {*dev_ipiv, 0, n};
    return ctx->be.ops->upload(&ctx->be, PS__INT32, n, 1, zero_based, n, v);
}

ps_status ps__download_pivots(ps_context *ctx, int n, const void *dev_ipiv, int *ipiv) {
    if (n == 0) return PS_SUCCESS;
    ps__mat v = {(void *)dev_ipiv, 0, n};
    PS__TRY(ctx->be.ops->download(&ctx->be, PS__INT32, n, 1, v, ipiv, n));
    for (int i = 0; i < n; i++) ipiv[i] += 1;
    return PS_SUCCESS;
}

ps_status ps__read_info(ps_context *ctx, const void *dev_info, int *info) {
    ps__mat v = {(void *)dev_info, 0, 1};
    int32_t value;
    PS__TRY(ctx->be.ops->download(&ctx->be, PS__INT32, 1, 1, v, &value, 1));
    *info = value;
    return PS_SUCCESS;
}
