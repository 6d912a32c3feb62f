/*
 * Inverse from the LU factors (LAPACK dgetri, blocked), written against the vtable.
 *
 * Phase 1 inverts U in place (dtrtri, upper, non-unit), left to right: block column j of
 * inv(U) is -inv(U11) U12 inv(U22), one trmm (inv(U11) is already in place) and one trsm; the
 * diagonal block is inverted by a trsm on an identity in a workspace, which leaves its lower
 * triangle exactly zero. Copying that block back would destroy the strictly lower part of L
 * there, so each diagonal block is saved first (diag, nb x n).
 *
 * Phase 2 solves X L = inv(U) for X = inv(A) P from the right (dgetri): block column j of L goes
 * to a workspace (its diagonal block from the saved copy) and is zeroed in A, then
 * X_j = (X_j - X_{right} L_{right,j}) inv(L_jj): one gemm and one unit-lower trsm.
 * Finally the column interchanges are undone, last first: inv(A) = X P.
 */
#include "gj/gj.h"
#include "base/matrix.h"

ps_status ps__getri(ps_context *ctx, ps__dtype dt, int n, ps__mat a, const void *ipiv, int nb) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    if (n == 0) return PS_SUCCESS;
    if (nb > n) nb = n;
    size_t es = ps__dtype_size(dt);
    ps__scratch s = ps__scratch_begin(ctx);
    void *diag_buf, *col_buf, *eye_buf;
    ps_status st = ps__scratch_dev(&s, (size_t)nb * n * es, &diag_buf);
    if (!st) st = ps__scratch_dev(&s, (size_t)n * nb * es, &col_buf);
    if (!st) st = ps__scratch_dev(&s, (size_t)nb * nb * es, &eye_buf);
    if (st) {
        ps__scratch_end(&s);
        return st;
    }
    ps__mat diag = {diag_buf, 0, nb}, col = {col_buf, 0, n}, eye = {eye_buf, 0, nb};
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__scalar zero = ps__scalar_of(dt, 0.0);

    /* Phase 1: U := inv(U). */
    for (int j = 0; j < n && !st; j += nb) {
        int jb = n - j < nb ? n - j : nb;
        ps__mat ajj = ps__mat_at(a, j, j), above = ps__mat_at(a, 0, j);
        if (j > 0) {
            st = ops->trmm(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, j, jb, &one, a,
                           above);
            if (!st)
                st = ops->trsm(be, dt, PS__RIGHT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, j, jb,
                               &minus_one, ajj, above);
        }
        if (!st) st = ops->copy2d(be, dt, jb, jb, ajj, ps__mat_at(diag, 0, j));
        if (!st) st = ps__fill_identity(ctx, dt, jb, eye);
        if (!st)
            st = ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, jb, jb, &one, ajj,
                           eye);
        if (!st) st = ops->copy2d(be, dt, jb, jb, eye, ajj);
    }

    /* Phase 2: solve inv(A) L = inv(U), block columns from the right. */
    int last = (n - 1) / nb * nb;
    for (int j = last; j >= 0 && !st; j -= nb) {
        int jb = n - j < nb ? n - j : nb, below = n - j - jb;
        st = ops->copy2d(be, dt, jb, jb, ps__mat_at(diag, 0, j), ps__mat_at(col, j, 0));
        if (!st && below > 0) {
            st = ops->copy2d(be, dt, below, jb, ps__mat_at(a, j + jb, j),
                             ps__mat_at(col, j + jb, 0));
            if (!st) st = ops->fill(be, dt, below, jb, &zero, ps__mat_at(a, j + jb, j));
            if (!st)
                st = ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, n, jb, below, &minus_one,
                               ps__mat_at(a, 0, j + jb), ps__mat_at(col, j + jb, 0), &one,
                               ps__mat_at(a, 0, j));
        }
        if (!st)
            st = ops->trsm(be, dt, PS__RIGHT, PS__LOWER, PS__NOTRANS, PS__UNIT, n, jb, &one,
                           ps__mat_at(col, j, 0), ps__mat_at(a, 0, j));
    }
    if (!st) st = ops->colswp(be, dt, n, a, 0, n, ipiv, 0, 0);
    /* the workspaces must outlive the queued work that reads them */
    if (!st) st = ops->sync(be);
    ps__scratch_end(&s);
    return st;
}
