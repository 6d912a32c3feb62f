/*
 * LU of a device matrix whose order is not a multiple of 8 or whose columns do not start 16-byte
 * aligned (ld times the element size not a multiple of 16: an odd ld in double, as a caller's own
 * buffer with ld = n often has): cuBLAS's GEMMs take slower kernels for either. Where the backend
 * says so, ps_mat_getrf and ps_mat_gesv factor an aligned copy instead, diag(A, I) padded to a
 * multiple of 8 (whose factors are diag(L, I) and diag(U, I) with A's pivots), and copy the
 * factors back; without the device memory for the copy, A in place. docs/PERFORMANCE.md has the
 * figures.
 */
#include "lu/lu.h"
#include "base/staging.h"

#include <stdint.h>

ps_status ps__copy_pivots(ps_context *ctx, int n, const void *src, void *dst) {
    ps__backend *be = &ctx->be;
    return be->ops->copy2d(be, PS__INT32, n, 1, (ps__mat){(void *)src, 0, n}, (ps__mat){dst, 0, n});
}

ps_status ps__getrf_in_copy(ps__scratch *s, ps__dtype dt, int n, ps__mat a, void *ipiv, void *info,
                            int *copied) {
    ps_context *ctx = s->ctx;
    ps__backend *be = &ctx->be;
    int np = ps__aligned_order(n);
    void *piv = ipiv;
    ps__mat w;
    *copied = 0;
    ps_status st = np > n ? ps__scratch_dev(s, (size_t)np * sizeof(int32_t), &piv) : PS_SUCCESS;
    if (st == PS_SUCCESS) st = ps__scratch_matrix(s, dt, np, np, &w);
    if (st == PS_ERR_OUT_OF_MEMORY) { /* in place, as without the copy */
        ctx->last_error[0] = '\0';
        return PS_SUCCESS;
    }
    PS__TRY(st);
    PS__TRY(be->ops->copy2d(be, dt, n, n, a, w));
    PS__TRY(ps__pad_identity(ctx, dt, n, np, w));
    PS__TRY(ps__getrf(ctx, dt, np, np, w, piv, info));
    PS__TRY(be->ops->copy2d(be, dt, n, n, w, a));
    if (piv != ipiv) PS__TRY(ps__copy_pivots(ctx, n, piv, ipiv));
    *copied = 1;
    return PS_SUCCESS;
}
