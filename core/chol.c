/*
 * Cholesky factorization, written once against the backend vtable.
 *
 * Recursive (Gustavson; LAPACK dpotrf2), lower case: split A = [A11 .; A21 A22] at n1 = n/2,
 *   L11 = chol(A11);  L21 = A21 L11^-T (trsm);  A22 -= L21 L21^T (syrk);  L22 = chol(A22).
 * The upper case is its transpose: U12 = U11^-T A12, A22 -= U12^T U12. The top levels give
 * one trsm and one syrk of order n/2 with inner dimension n/2, the largest BLAS-3 calls the
 * factorization allows, so nearly all flops run at the GEMM rate; the recursion stops at the
 * backend's potrf_width, where the device's potrf_panel kernel factors the diagonal block.
 *
 * The info word lives on the device: a failing block records the order of the first leading
 * minor that is not positive definite, and every later block kernel sees it and does nothing,
 * so nothing is read back inside the factorization. The updates after a failure run on data
 * that no longer matters; they never touch the leading block that is already factored.
 */
#include "chol.h"

#include <stdint.h>

/* Splits at a multiple of the leaf width where it can, so the leaves stay full. */
static int split_point(int n, int leaf) {
    int n1 = n / 2;
    if (leaf > 1 && n1 > leaf) n1 = n1 / leaf * leaf;
    return n1;
}

static ps_status potrf_rec(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a, int base,
                           void *info, int leaf) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    if (n <= leaf) return ops->potrf_panel(be, dt, uplo, n, a, info, base);

    int n1 = split_point(n, leaf), n2 = n - n1;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__mat a11 = a, a22 = ps__mat_at(a, n1, n1);
    PS__TRY(potrf_rec(ctx, dt, uplo, n1, a11, base, info, leaf));
    if (uplo == PS__LOWER) {
        ps__mat a21 = ps__mat_at(a, n1, 0);
        PS__TRY(ops->trsm(be, dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT, n2, n1, &one, a11,
                          a21));
        PS__TRY(ops->syrk(be, dt, PS__LOWER, PS__NOTRANS, n2, n1, &minus_one, a21, &one, a22));
    } else {
        ps__mat a12 = ps__mat_at(a, 0, n1);
        PS__TRY(
            ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT, n1, n2, &one, a11, a12));
        PS__TRY(ops->syrk(be, dt, PS__UPPER, PS__TRANS, n2, n1, &minus_one, a12, &one, a22));
    }
    return potrf_rec(ctx, dt, uplo, n2, a22, base + n1, info, leaf);
}

ps_status ps__potrf(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a, void *info) {
    ps__backend *be = &ctx->be;
    int32_t zero = 0;
    ps__mat info_view = {info, 0, 1};
    PS__TRY(be->ops->upload(be, PS__INT32, 1, 1, &zero, 1, info_view));
    if (n == 0) return PS_SUCCESS;
    int leaf = be->ops->potrf_width(be, dt);
    return potrf_rec(ctx, dt, uplo, n, a, 0, info, leaf > 0 ? leaf : 1);
}

ps_status ps__potrs(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, int nrhs, ps__mat a,
                    ps__mat b) {
    ps__backend *be = &ctx->be;
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0);
    /* A = L L^T: X = L^-T (L^-1 B); A = U^T U: X = U^-1 (U^-T B). */
    ps__trans first = uplo == PS__LOWER ? PS__NOTRANS : PS__TRANS;
    ps__trans second = uplo == PS__LOWER ? PS__TRANS : PS__NOTRANS;
    PS__TRY(be->ops->trsm(be, dt, PS__LEFT, uplo, first, PS__NONUNIT, n, nrhs, &one, a, b));
    return be->ops->trsm(be, dt, PS__LEFT, uplo, second, PS__NONUNIT, n, nrhs, &one, a, b);
}
