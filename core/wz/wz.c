/*
 * WZ factorization, written once against the backend vtable (docs/WZ.md has the derivation).
 *
 * A = W Z eliminates from both ends at once: step k (k2 = n-1-k) solves, for every inner row i,
 * [w(i,k) w(i,k2)] C = [a(i,k) a(i,k2)] with the 2 x 2 corner C = [a(k,k) a(k,k2); a(k2,k)
 * a(k2,k2)], and updates a(i,j) -= w(i,k) a(k,j) + w(i,k2) a(k2,j) for the inner columns j.
 *
 * Vector form (Bylina & Bylina): one corner step and two rank-1 ger updates per step, on the
 * natural layout. The corner step is a vtable kernel, so GPU backends never wait for the host;
 * the published version, which reads the corners back every step, is the entry's portable
 * default and stays selectable (PS_WZ_VECTOR_HOST).
 *
 * Blocked form: number the indices in "step order" 0, n-1, 1, n-2, ... (natural index k goes
 * to position 2k, n-1-k to 2k+1). In that order, with B = Q A Q^T, W becomes unit lower
 * triangular (step k's W entries lie in rows strictly inside k..k2, which come after positions
 * 2k, 2k+1) and Z block upper triangular with the 2 x 2 corners on the diagonal: WZ is a block
 * LU of B with 2 x 2 pivots. So the blocked form is the library's blocked LU with two-column
 * steps: b steps (the first b and the last b columns of the active matrix) are factored as one
 * contiguous panel of 2b columns, then U12 = L11^-1 A12 (trsm) and A22 -= L21 U12, one GEMM of
 * inner dimension 2b, which carries almost all flops. The corners' lower-left entries, which
 * would sit in L's strict lower triangle at (2s+1, 2s), are kept aside in zsub so that L is
 * exactly unit lower triangular for trsm. Pivoting picks two rows per step (backend.h); in step
 * order their swaps are LAPACK's row interchanges, so laswp applies them.
 */
#include "wz/wz.h"
#include "wz/wz_kernels.h"
#include "lu/lu.h"

int ps__wz_block_size(ps_context *ctx, ps__dtype dt, int n) {
    int nb = ctx->tuning.wz_nb;
    if (nb <= 0) nb = ctx->be.ops->block_size(&ctx->be, PS__ALGO_WZ, dt, n);
    if (nb <= 0) nb = ps__lu_block_size(ctx, dt, n, n);
    nb -= nb % 2;
    return nb < 2 ? 2 : nb;
}

static ps_status wz_leaf(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, int j, void *ipiv,
                         void *info, const ps__factor_kind *kind) {
    ps__vec z = kind->zsub;
    z.off += (size_t)(j / 2) * (size_t)z.inc;
    return ps__wz(&ctx->be)->wz_panel(&ctx->be, dt, m - j, n, ps__mat_at(a, j, j), z, ipiv,
                                      (size_t)j, j, info, kind->pivoting);
}

static int wz_leaf_width(ps_context *ctx, ps__dtype dt, int m) {
    int w = ctx->tuning.wz_panel_width > 0 ? ctx->tuning.wz_panel_width
                                           : ps__wz(&ctx->be)->wz_panel_width(&ctx->be, dt, m);
    w -= w % 2;
    return w < 2 ? 2 : w;
}

ps_status ps__wztrf_steps(ps_context *ctx, ps__dtype dt, int n, ps__mat w, ps__vec zsub, void *ipiv,
                          void *info, int pivoting) {
    PS__TRY(ps__zero_info(ctx, info));
    if (n == 0) return PS_SUCCESS;
    ps__factor_kind kind = {2, wz_leaf, wz_leaf_width, zsub, pivoting, PS__ALGO_WZ};
    return ps__blocked_factor(ctx, dt, n, n, w, ipiv, info, ps__wz_block_size(ctx, dt, n), &kind);
}

ps_status ps__wztrf_vector(ps_context *ctx, ps__dtype dt, int n, ps__mat a, ps__vec work,
                           void *ipiv, void *info, int pivoting, int host_corners) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    PS__TRY(ps__zero_info(ctx, info));
    ps__scalar minus_one = ps__scalar_of(dt, -1.0);
    for (int k = 0; 2 * k <= n - 1; k++) {
        int k2 = n - 1 - k, inner = k2 - k - 1;
        if (host_corners)
            PS__TRY(
                ps__wz_kernels_defaults()->wz_corner(be, dt, n, k, a, work, ipiv, info, pivoting));
        else
            PS__TRY(ps__wz(be)->wz_corner(be, dt, n, k, a, work, ipiv, info, pivoting));
        if (inner <= 0) continue;
        ps__mat inside = ps__mat_at(a, k + 1, k + 1);
        PS__TRY(ops->ger(be, dt, inner, inner, &minus_one, ps__mat_col(a, k + 1, k),
                         ps__mat_row(a, k, k + 1), inside));
        PS__TRY(ops->ger(be, dt, inner, inner, &minus_one, ps__mat_col(a, k + 1, k2),
                         ps__mat_row(a, k2, k + 1), inside));
    }
    return PS_SUCCESS;
}

/* Rows of a diagonal block of the Z solve: small enough for the backends' block kernels. */
#define PS__WZ_ZSOLVE_BLOCK 64

ps_status ps__wztrs_steps(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat w, ps__vec zsub,
                          const void *ipiv, ps__mat b) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    /* W c = P b: the interchanges, then the unit lower triangle (W in step order). */
    PS__TRY(ops->laswp(be, dt, nrhs, b, 0, n, ipiv, 0, 1));
    PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, n, nrhs, &one, w, b));
    /* Z x = c from the bottom (the middle of the natural order) up: a 2 x 2 block-triangular
     * solve of each diagonal block, then one GEMM for the rows above it. Blocks start at
     * multiples of an even size, so no corner is split; an odd n ends with the 1 x 1 middle. */
    const int zb = PS__WZ_ZSOLVE_BLOCK;
    for (int j0 = (n - 1) / zb * zb; j0 >= 0; j0 -= zb) {
        int j1 = j0 + zb < n ? j0 + zb : n;
        ps__vec z = zsub;
        z.off += (size_t)(j0 / 2) * (size_t)z.inc;
        PS__TRY(ps__wz(be)->wz_zsolve(be, dt, j1 - j0, nrhs, ps__mat_at(w, j0, j0), z,
                                      ps__mat_at(b, j0, 0)));
        if (j0 > 0)
            PS__TRY(ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, j0, nrhs, j1 - j0, &minus_one,
                              ps__mat_at(w, 0, j0), ps__mat_at(b, j0, 0), &one, b));
    }
    return PS_SUCCESS;
}
