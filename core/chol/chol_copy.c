/*
 * Cholesky of a device matrix whose order is not a multiple of 8 or whose columns do not start
 * 16-byte aligned, in an aligned copy diag(A, I) (its factor diag(L, I)), as core/lu/lu_copy.c
 * does for LU: cuBLAS's GEMMs and SYRKs take slower kernels for either. Only the uplo triangle
 * goes each way, so the other triangle of the caller's matrix is neither read nor written.
 * docs/PERFORMANCE.md has the figures.
 */
#include "chol/chol.h"
#include "base/staging.h"

ps_status ps__potrf_in_copy(ps__scratch *s, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                            void *info, int *copied) {
    ps_context *ctx = s->ctx;
    ps__backend *be = &ctx->be;
    int np = ps__aligned_order(n);
    ps__mat w;
    *copied = 0;
    ps_status st = ps__scratch_matrix(s, dt, np, np, &w);
    if (st == PS_ERR_OUT_OF_MEMORY) { /* in place, as without the copy */
        ctx->last_error[0] = '\0';
        return PS_SUCCESS;
    }
    PS__TRY(st);
    PS__TRY(be->ops->copy_triangle(be, dt, uplo, n, a, w)); /* the rest of w is never read */
    PS__TRY(ps__pad_identity(ctx, dt, n, np, w));
    PS__TRY(ps__potrf(ctx, dt, uplo, np, w, info));
    PS__TRY(be->ops->copy_triangle(be, dt, uplo, n, w, a));
    *copied = 1;
    return PS_SUCCESS;
}
