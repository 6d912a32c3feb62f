/* Argument and input checks shared by the drivers, and pivot conversions. */
#include "check.h"
#include "staging.h"

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

_Static_assert(sizeof(int) == sizeof(int32_t), "pivots are passed as 32-bit ints");

/* True when some element of the column is NaN or Inf: an exponent field of all ones. Integer
 * tests, OR-reduced, so the loop vectorizes and the scan costs about one read of the data. */
static int column_has_nonfinite_d(const double *c, int rows) {
    unsigned bad = 0;
    for (int i = 0; i < rows; i++) {
        uint64_t bits;
        memcpy(&bits, &c[i], sizeof bits);
        bad |= (unsigned)((bits & 0x7ff0000000000000ull) == 0x7ff0000000000000ull);
    }
    return bad != 0;
}

static int column_has_nonfinite_s(const float *c, int rows) {
    unsigned bad = 0;
    for (int i = 0; i < rows; i++) {
        uint32_t bits;
        memcpy(&bits, &c[i], sizeof bits);
        bad |= (unsigned)((bits & 0x7f800000u) == 0x7f800000u);
    }
    return bad != 0;
}

/* Scans, in each column j, the rows the shape references: all (PS__UPLO_ALL), j..rows-1
 * (lower) or 0..j (upper). */
enum { PS__UPLO_ALL = -1 };
static ps_status check_finite_rows(ps_context *ctx, ps__dtype dt, int shape, int rows, int cols,
                                   const void *a, int lda, const char *fn, const char *name,
                                   int pos) {
    for (int j = 0; j < cols; j++) {
        int first = shape == PS__LOWER ? j : 0;
        int end = shape == PS__UPPER ? (j + 1 < rows ? j + 1 : rows) : rows;
        if (first >= end) continue;
        size_t col_off = (size_t)j * (size_t)lda;
        int i = first;
        if (dt == PS__DOUBLE) {
            const double *c = (const double *)a + col_off;
            if (!column_has_nonfinite_d(c + first, end - first)) continue;
            while (isfinite(c[i])) i++;
        } else {
            const float *c = (const float *)a + col_off;
            if (!column_has_nonfinite_s(c + first, end - first)) continue;
            while (isfinite(c[i])) i++;
        }
        ctx->last_info = -pos;
        return ps__fail(ctx, PS_ERR_NON_FINITE,
                        "%s: %s(%d,%d) is not finite; inputs must not contain NaN or Inf", fn, name,
                        i + 1, j + 1);
    }
    return PS_SUCCESS;
}

ps_status ps__check_finite(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *a,
                           int lda, const char *fn, const char *name, int pos) {
    return check_finite_rows(ctx, dt, PS__UPLO_ALL, rows, cols, a, lda, fn, name, pos);
}

ps_status ps__check_finite_triangle(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n,
                                    const void *a, int lda, const char *fn, const char *name,
                                    int pos) {
    return check_finite_rows(ctx, dt, (int)uplo, n, n, a, lda, fn, name, pos);
}

ps_status ps__check_array(ps_context *ctx, const char *fn, char name, const void *a, int used,
                          int ld, char dim, int rows, int pos) {
    if (!a && used) return ps__bad_arg(ctx, pos, "%s: %c is NULL", fn, name);
    if (ld < ps__max1(rows))
        return ps__bad_arg(ctx, pos + 1, "%s: ld%c=%d is less than max(1,%c=%d)", fn,
                           (char)tolower((unsigned char)name), ld, dim, rows);
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
