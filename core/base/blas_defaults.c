/* Portable defaults of the BLAS-like base entries (backend.h) that need more than a few lines:
 * trmm, column interchanges, transposes, conversion and the infinity norm, each from the
 * required entries and obviously right over fast (a transfer per column or row), and the late
 * reads of fetch_start and fetch_wait. */
#include "base/blas_defaults.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* b = alpha * d * b for one row (side left) or column (side right) of b, d = a(0,0) or 1. */
static ps_status scale_line(ps__backend *be, ps__dtype dt, ps__side side, ps__diag diag, int len,
                            const ps__scalar *alpha, ps__mat a, ps__mat b) {
    double d = 1;
    if (diag == PS__NONUNIT) {
        ps__scalar v;
        PS__TRY(be->ops->read_elements(be, dt, a.buf, 1, &a.off, &v));
        d = ps__scalar_value(dt, v);
    }
    ps__scalar f = ps__scalar_of(dt, ps__scalar_value(dt, *alpha) * d);
    ps__vec line = side == PS__LEFT ? ps__mat_row(b, 0, 0) : ps__mat_col(b, 0, 0);
    return be->ops->scal(be, dt, len, &f, line);
}

ps_status ps__default_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo,
                           ps__trans trans, ps__diag diag, int m, int n, const ps__scalar *alpha,
                           ps__mat a, ps__mat b) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    int k = side == PS__LEFT ? m : n; /* order of the triangle */
    if (k == 1) return scale_line(be, dt, side, diag, side == PS__LEFT ? n : m, alpha, a, b);
    int k1 = k / 2, k2 = k - k1;
    ps__mat a11 = a, a22 = ps__mat_at(a, k1, k1);
    /* op(a) = [op11 op12; op21 op22]; the off-diagonal block that is not zero is stored as a12
     * (upper) or a21 (lower), transposed when trans is. */
    int op_upper = (uplo == PS__UPPER) != (trans == PS__TRANS);
    ps__mat off = uplo == PS__UPPER ? ps__mat_at(a, 0, k1) : ps__mat_at(a, k1, 0);
    ps__scalar one = ps__scalar_of(dt, 1.0);
    if (side == PS__LEFT) {
        ps__mat b1 = b, b2 = ps__mat_at(b, k1, 0);
        if (op_upper) { /* b1 = op11 b1 + op12 b2, then b2 = op22 b2 */
            PS__TRY(ps__default_trmm(be, dt, side, uplo, trans, diag, k1, n, alpha, a11, b1));
            PS__TRY(be->ops->gemm(be, dt, trans, PS__NOTRANS, k1, n, k2, alpha, off, b2, &one, b1));
            return ps__default_trmm(be, dt, side, uplo, trans, diag, k2, n, alpha, a22, b2);
        }
        /* b2 = op21 b1 + op22 b2, then b1 = op11 b1 */
        PS__TRY(ps__default_trmm(be, dt, side, uplo, trans, diag, k2, n, alpha, a22, b2));
        PS__TRY(be->ops->gemm(be, dt, trans, PS__NOTRANS, k2, n, k1, alpha, off, b1, &one, b2));
        return ps__default_trmm(be, dt, side, uplo, trans, diag, k1, n, alpha, a11, b1);
    }
    ps__mat b1 = b, b2 = ps__mat_at(b, 0, k1);
    if (op_upper) { /* [b1 op11, b1 op12 + b2 op22] */
        PS__TRY(ps__default_trmm(be, dt, side, uplo, trans, diag, m, k2, alpha, a22, b2));
        PS__TRY(be->ops->gemm(be, dt, PS__NOTRANS, trans, m, k2, k1, alpha, b1, off, &one, b2));
        return ps__default_trmm(be, dt, side, uplo, trans, diag, m, k1, alpha, a11, b1);
    }
    /* [b1 op11 + b2 op21, b2 op22] */
    PS__TRY(ps__default_trmm(be, dt, side, uplo, trans, diag, m, k1, alpha, a11, b1));
    PS__TRY(be->ops->gemm(be, dt, PS__NOTRANS, trans, m, k1, k2, alpha, b2, off, &one, b1));
    return ps__default_trmm(be, dt, side, uplo, trans, diag, m, k2, alpha, a22, b2);
}

ps_status ps__default_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                             const void *ipiv, size_t ipiv_off, int forward) {
    if (k2 <= k1 || nrows <= 0) return PS_SUCCESS;
    int count = k2 - k1;
    int32_t *piv = malloc((size_t)count * sizeof *piv);
    if (!piv) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "colswp: out of host memory");
    ps__mat pm = {(void *)ipiv, ipiv_off, count};
    ps_status st = be->ops->download(be, PS__INT32, count, 1, pm, piv, count);
    for (int t = 0; t < count && st == PS_SUCCESS; t++) {
        int k = forward ? k1 + t : k2 - 1 - t;
        int p = piv[k - k1];
        if (p != k) st = be->ops->swap(be, dt, nrows, ps__mat_col(a, 0, k), ps__mat_col(a, 0, p));
    }
    free(piv);
    return st;
}

ps_status ps__default_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                                ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    if (cols <= rows) { /* column j of src becomes row j of dst */
        for (int j = 0; j < cols; j++)
            PS__TRY(be->ops->copy(be, dt, rows, ps__mat_col(src, 0, j), ps__mat_row(dst, j, 0)));
        return PS_SUCCESS;
    }
    for (int i = 0; i < rows; i++) /* row i of src becomes column i of dst */
        PS__TRY(be->ops->copy(be, dt, cols, ps__mat_row(src, i, 0), ps__mat_col(dst, 0, i)));
    return PS_SUCCESS;
}

ps_status ps__default_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                              int cols, double alpha, ps__mat src, ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    void *in = malloc((size_t)rows * sizeof(double)), *out = malloc((size_t)rows * sizeof(double));
    ps_status st =
        in && out ? PS_SUCCESS
                  : ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "convert: out of host memory");
    int overflow = 0;
    for (int j = 0; j < cols && st == PS_SUCCESS; j++) {
        st = be->ops->download(be, src_dt, rows, 1, ps__mat_at(src, 0, j), in, rows);
        for (int i = 0; i < rows && st == PS_SUCCESS; i++) {
            ps__host_store(dst_dt, out, (size_t)i,
                           ps__convert_value(dst_dt, alpha, ps__host_at(src_dt, in, i), &overflow));
        }
        if (st == PS_SUCCESS)
            st = be->ops->upload(be, dst_dt, rows, 1, out, rows, ps__mat_at(dst, 0, j));
    }
    if (st == PS_SUCCESS && overflow) {
        int32_t one = 1;
        ps__mat word = {info, 0, 1};
        st = be->ops->upload(be, PS__INT32, 1, 1, &one, 1, word);
    }
    free(in), free(out);
    return st;
}

ps_status ps__default_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                               double *result) {
    *result = 0;
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    void *col = malloc((size_t)rows * sizeof(double));
    double *sums = calloc((size_t)rows, sizeof(double));
    ps_status st = col && sums ? PS_SUCCESS
                               : ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY,
                                                  "norm_inf: out of host memory");
    for (int j = 0; j < cols && st == PS_SUCCESS; j++) {
        st = be->ops->download(be, dt, rows, 1, ps__mat_at(a, 0, j), col, rows);
        for (int i = 0; i < rows && st == PS_SUCCESS; i++) sums[i] += fabs(ps__host_at(dt, col, i));
    }
    for (int i = 0; i < rows && st == PS_SUCCESS; i++) {
        if (isnan(sums[i])) {
            *result = sums[i];
            break;
        }
        if (sums[i] > *result) *result = sums[i];
    }
    free(col), free(sums);
    return st;
}

ps_status ps__default_set_float_compute(ps__backend *be, ps__float_compute mode) {
    if (mode == PS__COMPUTE_FP32) return PS_SUCCESS;
    return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED,
                            "the %s backend computes float GEMMs in float only (no tensor-core "
                            "TF32/FP16/BF16 mode)",
                            be->ops->name);
}

ps_status ps__default_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src) {
    (void)be, (void)dt, (void)slot, (void)count, (void)src;
    return PS_SUCCESS; /* fetch_wait reads src, which the caller promised not to change */
}

ps_status ps__default_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                                 void *host) {
    (void)slot;
    ps__mat m = {src.buf, src.off, count > 0 ? count : 1};
    return be->ops->download(be, dt, count, 1, m, host, count > 0 ? count : 1);
}
