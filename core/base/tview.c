/* Operations on blocks of a matrix that may be stored transposed (see tview.h). */
#include "base/tview.h"

static ps__trans flipped(ps__trans t, int flip) {
    return !flip ? t : t == PS__TRANS ? PS__NOTRANS : PS__TRANS;
}

ps_status ps__gemm_tv(ps__backend *be, ps__dtype dt, int m, int n, int k, const ps__scalar *alpha,
                      ps__tview a, ps__tview b, const ps__scalar *beta, ps__tview c) {
    ps__trans ta = flipped(PS__NOTRANS, a.t), tb = flipped(PS__NOTRANS, b.t);
    if (!c.t) return be->ops->gemm(be, dt, ta, tb, m, n, k, alpha, a.m, b.m, beta, c.m);
    return be->ops->gemm(be, dt, flipped(tb, 1), flipped(ta, 1), n, m, k, alpha, b.m, a.m, beta,
                         c.m);
}

ps_status ps__trsm_tv(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                      ps__diag diag, int m, int n, const ps__scalar *alpha, ps__tview a,
                      ps__tview b) {
    if (b.t) { /* op(A) X = B is X^T op(A)^T = B^T, and the other way round */
        side = side == PS__LEFT ? PS__RIGHT : PS__LEFT;
        trans = flipped(trans, 1);
        int rows = m;
        m = n;
        n = rows;
    }
    if (a.t) { /* A's stored form is A^T: its other triangle, transposed */
        uplo = uplo == PS__LOWER ? PS__UPPER : PS__LOWER;
        trans = flipped(trans, 1);
    }
    return be->ops->trsm(be, dt, side, uplo, trans, diag, m, n, alpha, a.m, b.m);
}

ps_status ps__copy_tv(ps__backend *be, ps__dtype dt, int rows, int cols, ps__tview src,
                      ps__tview dst) {
    if (src.t == dst.t)
        return src.t ? be->ops->copy2d(be, dt, cols, rows, src.m, dst.m)
                     : be->ops->copy2d(be, dt, rows, cols, src.m, dst.m);
    return src.t ? be->ops->transpose(be, dt, cols, rows, src.m, dst.m)
                 : be->ops->transpose(be, dt, rows, cols, src.m, dst.m);
}

ps_status ps__swap_rows_tv(ps__backend *be, ps__dtype dt, int ncols, ps__tview a, int k, int b,
                           const void *ipiv) {
    if (a.t) return be->ops->colswp(be, dt, ncols, a.m, k, k + b, ipiv, (size_t)k, 1);
    return be->ops->laswp(be, dt, ncols, a.m, k, k + b, ipiv, (size_t)k, 1);
}

/* Each diagonal block goes through work, and the strip below it is exchanged with the one right
 * of it (the first through work). */
ps_status ps__transpose_in_place_by_strips(ps__backend *be, ps__dtype dt, int n, ps__mat a,
                                           void *work, int w) {
    for (int j = 0; j < n; j += w) {
        int jw = n - j < w ? n - j : w, r = n - j - jw;
        ps__mat tmp = {work, 0, jw}, d = ps__mat_at(a, j, j);
        PS__TRY(be->ops->transpose(be, dt, jw, jw, d, tmp));
        PS__TRY(be->ops->copy2d(be, dt, jw, jw, tmp, d));
        if (r == 0) continue;
        ps__mat below = ps__mat_at(a, j + jw, j), right = ps__mat_at(a, j, j + jw);
        PS__TRY(be->ops->transpose(be, dt, r, jw, below, tmp));
        PS__TRY(be->ops->transpose(be, dt, jw, r, right, below));
        PS__TRY(be->ops->copy2d(be, dt, jw, r, tmp, right));
    }
    return PS_SUCCESS;
}

ps_status ps__transpose_in_place(ps__backend *be, ps__dtype dt, int n, ps__mat a, void *work,
                                 int w) {
    ps_status st = be->ops->transpose_square(be, dt, n, a);
    if (st != PS_ERR_NOT_SUPPORTED) return st;
    if (be->err && be->err_size) be->err[0] = '\0'; /* a refusal is an answer here */
    return ps__transpose_in_place_by_strips(be, dt, n, a, work, w);
}
