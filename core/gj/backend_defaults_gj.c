/*
 * Portable defaults of trmm, colswp, transpose and the Gauss-Jordan stripe update, from the
 * required entries. trmm recurses on the triangle (two half-size trmm and one gemm per level) down
 * to single rows or columns, whose diagonal element is read back: correct everywhere, fast nowhere;
 * every shipped backend has a vendor trmm.
 */
#include "gj/backend_defaults_gj.h"

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

ps_status ps__default_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                       ps__mat ji, ps__mat ik, ps__mat jk) {
    if (m <= 0 || ncols <= 0 || s <= 0) return PS_SUCCESS;
    ps__scalar minus = ps__scalar_of(dt, -1.0), one = ps__scalar_of(dt, 1.0);
    return be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m, ncols, s, &minus, ji, ik, &one, jk);
}
