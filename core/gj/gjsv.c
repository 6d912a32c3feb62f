/*
 * The striped Gauss-Jordan solver (Eyvazov, after Carcenac's striping algorithm), written once
 * against the vtable.
 *
 * [A | B] is cut into horizontal stripes of s rows. Stripe I's tiles are II (its diagonal s x s
 * block), IK (the rest of the stripe right of II, B included); another stripe J has JI (its
 * block in I's columns) and JK (the rest). Forward pass, for each pivot stripe I in turn:
 *   1. II and the JI below it: the pivot column is factored with partial pivoting over all the
 *      rows below (the thesis had no pivoting and divided by zero pivots); this is the
 *      backend's recursive LU panel, so the JI tiles hold the multipliers L_JI.
 *   2. The row interchanges are applied to the rest of [A | B].
 *   3. IK := inv(L_II) IK (trsm).
 *   4. JK -= L_JI IK for every stripe J below I: the stripe kernel (gj_stripe_update), a
 *      blocked rank-s update in which every JK tile is independent, so all stripes are updated
 *      at once by one launch (the thesis launched one thread per entry and one kernel per row).
 * This leaves [U | C], the row echelon form. Backward pass, for each stripe I from the last:
 *   5. B_I := inv(U_II) B_I, which makes stripe I's row of the reduced form [0 .. I .. 0 | X_I];
 *   6. B_J -= U_JI X_I for every stripe J above I: the stripe kernel again.
 * After the first stripe B holds X. Forward and backward together do the flops of LU and two
 * triangular solves. Backends with two lanes get look-ahead in the forward pass: the next pivot
 * stripe's columns are updated and factored on lane 1 while lane 0 updates the other stripes.
 * Nothing is allocated per stripe.
 */
#include "base/check.h"
#include "gj/gj.h"
#include "lu/lu.h"
#include "gj/gj_kernels.h"

#include <stdint.h>

/* Steps 2-4 of pivot stripe i0 (sb rows) on the columns [c0, c0+cw) of a (b: the right-hand
 * sides, updated when with_b). */
static ps_status stripe_forward(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat a,
                                ps__mat b, int i0, int sb, int c0, int cw, int with_b,
                                const void *ipiv) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    ps__scalar one = ps__scalar_of(dt, 1.0);
    int below = n - i0 - sb;
    ps__mat lii = ps__mat_at(a, i0, i0), lji = ps__mat_at(a, i0 + sb, i0);
    if (cw > 0) {
        PS__TRY(ops->laswp(be, dt, cw, ps__mat_at(a, 0, c0), i0, i0 + sb, ipiv, (size_t)i0, 1));
        PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, sb, cw, &one, lii,
                          ps__mat_at(a, i0, c0)));
        PS__TRY(ps__gj(be)->gj_stripe_update(be, dt, below, cw, sb, lji, ps__mat_at(a, i0, c0),
                                             ps__mat_at(a, i0 + sb, c0)));
    }
    if (with_b && nrhs > 0) {
        PS__TRY(ops->laswp(be, dt, nrhs, b, i0, i0 + sb, ipiv, (size_t)i0, 1));
        PS__TRY(ops->trsm(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, sb, nrhs, &one, lii,
                          ps__mat_at(b, i0, 0)));
        PS__TRY(ps__gj(be)->gj_stripe_update(be, dt, below, nrhs, sb, lji, ps__mat_at(b, i0, 0),
                                             ps__mat_at(b, i0 + sb, 0)));
    }
    return PS_SUCCESS;
}

static ps_status forward_plain(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat a, ps__mat b,
                               int s, void *ipiv, void *info) {
    ps__backend *be = &ctx->be;
    for (int i0 = 0; i0 < n; i0 += s) {
        int sb = n - i0 < s ? n - i0 : s;
        PS__TRY(ps__lu_panel(ctx, dt, n, a, i0, sb, ipiv, info));
        if (i0 > 0) PS__TRY(be->ops->laswp(be, dt, i0, a, i0, i0 + sb, ipiv, (size_t)i0, 1));
        PS__TRY(stripe_forward(ctx, dt, n, nrhs, a, b, i0, sb, i0 + sb, n - i0 - sb, 1, ipiv));
    }
    return PS_SUCCESS;
}

/* Look-ahead: lane 1 updates and factors the next pivot column while lane 0 updates the rest of
 * the stripes (the same lane discipline as the LU driver, core/lu/lu.c). */
static ps_status forward_lookahead(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat a,
                                   ps__mat b, int s, void *ipiv, void *info) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    PS__TRY(ps__lu_panel(ctx, dt, n, a, 0, n < s ? n : s, ipiv, info));
    for (int i0 = 0; i0 < n; i0 += s) {
        int sb = n - i0 < s ? n - i0 : s, next = i0 + sb;
        int s2 = next < n ? (n - next < s ? n - next : s) : 0;
        int rest0 = next + s2;
        PS__TRY(ops->lane_wait(be, 0, 1));
        if (i0 > 0) PS__TRY(ops->laswp(be, dt, i0, a, i0, i0 + sb, ipiv, (size_t)i0, 1));
        if (s2 > 0) {
            PS__TRY(ops->lane_wait(be, 1, 0));
            PS__TRY(ops->use_lane(be, 1));
            ps_status st = stripe_forward(ctx, dt, n, nrhs, a, b, i0, sb, next, s2, 0, ipiv);
            if (!st) st = ps__lu_panel(ctx, dt, n, a, next, s2, ipiv, info);
            ps_status st0 = ops->use_lane(be, 0);
            PS__TRY(st);
            PS__TRY(st0);
        }
        PS__TRY(stripe_forward(ctx, dt, n, nrhs, a, b, i0, sb, rest0, n - rest0, 1, ipiv));
    }
    return ops->lane_wait(be, 0, 1);
}

ps_status ps__gjsv(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat a, ps__mat b, int s,
                   void *ipiv, int *info) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    *info = 0;
    if (n == 0) return PS_SUCCESS;
    if (s > n) s = n;
    ps__scratch sc = ps__scratch_begin(ctx);
    void *dev_info;
    ps_status st = ps__scratch_dev(&sc, sizeof(int32_t), &dev_info);
    if (!st) st = ps__zero_info(ctx, dev_info);
    if (!st) {
        if (ops->lanes(be) >= 2 && n > s)
            st = forward_lookahead(ctx, dt, n, nrhs, a, b, s, ipiv, dev_info);
        else
            st = forward_plain(ctx, dt, n, nrhs, a, b, s, ipiv, dev_info);
    }
    if (!st) st = ps__read_info(ctx, dev_info, info);
    ps__scalar one = ps__scalar_of(dt, 1.0);
    /* backward pass, only for a nonsingular U (a zero pivot would divide by zero) */
    for (int i0 = (n - 1) / s * s; i0 >= 0 && !st && !*info && nrhs > 0; i0 -= s) {
        int sb = n - i0 < s ? n - i0 : s;
        ps__mat bi = ps__mat_at(b, i0, 0);
        st = ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, sb, nrhs, &one,
                       ps__mat_at(a, i0, i0), bi);
        if (!st && i0 > 0)
            st = ps__gj(be)->gj_stripe_update(be, dt, i0, nrhs, sb, ps__mat_at(a, 0, i0), bi, b);
    }
    ps__scratch_end(&sc);
    return st;
}
