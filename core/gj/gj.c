/*
 * Matrix inversion by blocked Gauss-Jordan elimination with partial pivoting (Ezzatti,
 * Quintana-Orti and Remon, after Quintana-Orti et al., SIAM J. Sci. Comput. 2001), written once
 * against the vtable.
 *
 * Step k works on the block column of b columns at k, rows split into 0 = [0,k), 1 = [k,k+b),
 * 2 = [k+b,n). Gauss-Jordan on those columns (pivot rows chosen from rows >= k) amounts to a
 * transformation T that is the identity except in block column 1, where it is
 *     [P0; P1; P2] = [-M01 inv(M11); inv(M11); -M21 inv(M11)],
 * with M the current matrix after the step's row interchanges. In-place Gauss-Jordan leaves
 * exactly that block column in place of the panel, and every other column j becomes
 *     M0j + P0 M1j,  P1 M1j,  M2j + P2 M1j,
 * the paper's six GEMMs (three for the columns left of the panel, three for those right).
 *
 * The panel itself (the paper's unblocked GJE) is computed from an LU factorization with
 * partial pivoting of its rows [k,n), which chooses the same pivots: with M11 = L11 U11 and
 * M21 = L21 U11, P2 = -L21 inv(L11), P0 = -M01 inv(U11) inv(L11) (two trsm) and
 * P1 = inv(U11) inv(L11) (two trsm on an identity). This keeps the panel in the backend's
 * fastest kernels (the recursive LU panel) instead of a column-at-a-time loop over all n rows.
 *
 * Row interchanges of the whole rows make the algorithm compute inv(P A) = inv(A) P^T; the
 * inverse is recovered by swapping columns back, last interchange first.
 *
 * Variants (ps_gj_variant): device (everything on the backend; with two lanes, the next panel
 * is updated and factored on lane 1 while lane 0 updates the rest: look-ahead), hybrid (the
 * panel is factored on the host CPU by a CPU-backend context, the updates on the device), and
 * concurrent (the paper's Hyb-Con: the host factors panel k+1 while the device runs step k's
 * big update, with the panel's transfers on lane 0 and the update on lane 1).
 */
#include "base/check.h"
#include "gj/gj.h"
#include "base/lookahead.h"
#include "lu/lu.h"
#include "base/matrix.h"
#include "base/trsm_recursive.h"
#include "base/tview.h"

#include <stdint.h>
#include <string.h>

/* The BLAS-3 form of the step's triangular solves, where the backend asks for it
 * (ps__use_l_inverse: cuBLAS's trsm is slow): the step's solves with L11 and U11 become products
 * with inv(L11) (formed on the panel's lane, LU's block rows' workspace, lu.c) and inv(U11)
 * (formed by a recursive solve on an identity, trsm_recursive.h). Both alternate between two
 * slots by the step's parity, as the look-ahead lane forms the next step's while the other lane
 * still reads the current one's. transform: M01 inv(U11) of the rest's lane's current step
 * (k x nb of n x nb), the multipliers of the rows above. l.product NULL: plain trsm, and
 * u_inverse and transform unused. */
typedef struct gj_inverse {
    ps__l_inverse l;
    void *u_inverse[2]; /* nb x nb each: inv(U11) by the step's parity */
    void *transform;
} gj_inverse;

/* U11 triangles no wider than this are solved by the backend's trsm when inv(U11) is formed. */
#define PS__GJ_TRSM_LEAF 128

/*
 * The transposed layout (gj_layout, the backend's PS__ALGO_GJ_TRANSPOSED): the
 * device variant may hold the matrix transposed for the whole inversion (a transpose at each end,
 * move_matrix), so that every row interchange of a step moves two contiguous columns (on an
 * H100 at n = 16384 the rows' laswp was about 25 ms of lane 0's 225; docs/GJ.md). The blocks are
 * ps__tview's (tview.h), whose helpers turn each operation on them into the one on storage.
 */

/* Whether gjinv's device variant at order n holds the matrix transposed: gj_layout,
 * else the backend's measured choice. */
static int use_transposed_layout(ps_context *ctx, ps__dtype dt, int n) {
    if (ctx->tuning.gj_layout != PS__LAYOUT_AUTO)
        return ctx->tuning.gj_layout == PS__LAYOUT_TRANSPOSED;
    int from = ctx->be.ops->block_size(&ctx->be, PS__ALGO_GJ_TRANSPOSED, dt, n);
    return from > 0 && n >= from;
}

/* W = M01 inv(U11) (k x b) in the transform buffer: as is (leading dimension k), or transposed
 * (b x k, leading dimension nb) when the matrix is, so that M0j -= W Y is C = A B in storage. */
static ps__tview transform_of(const gj_inverse *inv, int k, int transposed) {
    if (!transposed) return ps__tview_as_is((ps__mat){inv->transform, 0, k});
    return (ps__tview){{inv->transform, 0, inv->l.nb}, 1};
}

/* Step k's slot of inv(U11). */
static ps__mat u_inverse_of(const gj_inverse *inv, int k) {
    return (ps__mat){inv->u_inverse[k / inv->l.nb % 2], 0, inv->l.nb};
}

/*
 * The BLAS-3 form's part of the step-k panel's transform that needs only the panel's own
 * factors: inv(U11) (b x b, from the saved factors' diagonal block lu, by a solve on an
 * identity), then P2 = -L21 inv(L11) and P1 = inv(U11) inv(L11), written straight into the
 * n x b panel p (the factors are read from saved). Columns of the panel become columns of the
 * inverse; nothing else reads them this step.
 */
static ps_status panel_transform_factors(ps_context *ctx, ps__dtype dt, int n, int k, int b,
                                         ps__tview p, ps__mat saved, const gj_inverse *inv) {
    ps__backend *be = &ctx->be;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__scalar zero = ps__scalar_of(dt, 0.0);
    ps__mat lu = ps__mat_at(saved, k, 0), linv = ps__l_inverse_of(&inv->l, k);
    ps__mat uinv = u_inverse_of(inv, k);
    PS__TRY(ps__fill_identity(ctx, dt, b, uinv));
    PS__TRY(ps__trsm_recursive(be, dt, PS__LEFT, PS__UPPER, PS__NONUNIT, b, b, &one, lu, uinv,
                               PS__GJ_TRSM_LEAF));
    if (n - k - b > 0) /* P2 = -L21 inv(L11) */
        PS__TRY(ps__gemm_tv(be, dt, n - k - b, b, b, &minus_one,
                            ps__tview_as_is(ps__mat_at(saved, k + b, 0)), ps__tview_as_is(linv),
                            &zero, ps__tview_at(p, k + b, 0)));
    /* P1 = inv(U11) inv(L11) */
    return ps__gemm_tv(be, dt, b, b, b, &one, ps__tview_as_is(uinv), ps__tview_as_is(linv), &zero,
                       ps__tview_at(p, k, 0));
}

/*
 * Where the look-ahead forms step k's inv(U11), P2 and P1 (panel_transform_factors): on the
 * panel's lane, right after the panel, once the panel lane has time to spare, else on the rest's
 * lane before its update. GJ's update is about n x n x b flops at every step while the panel's LU
 * shrinks with n - k, so the panel's lane is the longer one early and has slack late: moving them
 * for the second half measured faster on an H100 than for no step or every step.
 */
static int factors_on_panel_lane(int n, int k) {
    return 2 * k >= n;
}

/*
 * Whether the rest's lane also updates the next panel's rows below (its swaps, Y and GEMM) at
 * step k, first, so the panel's lane only factors: in the first quarter, where the tall panels
 * make the panel's lane the longer one (measured about 1% faster on an H100 than never; every
 * step gained nothing).
 */
static int next_on_rest_lane(int n, int k) {
    return 4 * k < n;
}

/*
 * Turns the n x b panel p (block column k; rows [k,n) LU-factored with partial pivoting, rows
 * [0,k) still M01) into [P0; P1; P2]. saved: the copy of the factored panel the updates read;
 * the factors are read from there, so P1 and P2 are written straight into p (P2 as the product
 * -L21 inv(L11), P1 as inv(U11) inv(L11) or solved from an identity) with no copy back. Only the
 * panel's own columns need this (they become columns of the inverse); the other columns'
 * updates read saved too, so the transform runs off the critical path, on the lane of the big
 * update, before that update reaches these columns (the next step's left part). In the BLAS-3
 * form this also forms the rows above' multipliers W = M01 inv(U11) into transform, which the
 * updates use, and P0 = -W inv(L11).
 */
static ps_status panel_transform(ps_context *ctx, ps__dtype dt, int n, int k, int b, ps__tview p,
                                 ps__mat saved, ps__tview f, const gj_inverse *inv) {
    ps__backend *be = &ctx->be;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__scalar zero = ps__scalar_of(dt, 0.0);
    ps__mat lu = ps__mat_at(saved, k, 0);
    ps__tview p1 = ps__tview_at(p, k, 0), p2 = ps__tview_at(p, k + b, 0);
    if (inv->l.product) {
        if (!factors_on_panel_lane(n, k))
            PS__TRY(panel_transform_factors(ctx, dt, n, k, b, p, saved, inv));
        if (k == 0) return PS_SUCCESS;
        ps__tview w = transform_of(inv, k, p.t);
        PS__TRY(
            ps__gemm_tv(be, dt, k, b, b, &one, f, ps__tview_as_is(u_inverse_of(inv, k)), &zero, w));
        return ps__gemm_tv(be, dt, k, b, b, &minus_one, w,
                           ps__tview_as_is(ps__l_inverse_of(&inv->l, k)), &zero, p);
    }
    if (k > 0) { /* P0 = -M01 inv(U11) inv(L11) */
        PS__TRY(ps__trsm_tv(be, dt, PS__RIGHT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, k, b,
                            &minus_one, ps__tview_as_is(lu), p));
        PS__TRY(ps__trsm_tv(be, dt, PS__RIGHT, PS__LOWER, PS__NOTRANS, PS__UNIT, k, b, &one,
                            ps__tview_as_is(lu), p));
    }
    if (n - k - b > 0) { /* P2 = -L21 inv(L11); the transposed layout factored a copy of L21 */
        if (p.t)
            PS__TRY(ps__copy_tv(be, dt, n - k - b, b, ps__tview_as_is(ps__mat_at(saved, k + b, 0)),
                                p2));
        PS__TRY(ps__trsm_tv(be, dt, PS__RIGHT, PS__LOWER, PS__NOTRANS, PS__UNIT, n - k - b, b,
                            &minus_one, ps__tview_as_is(lu), p2));
    }
    /* P1 = inv(U11) inv(L11), from an identity (which is its own transpose) */
    PS__TRY(ps__fill_identity(ctx, dt, b, p1.m));
    PS__TRY(ps__trsm_tv(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, b, b, &one,
                        ps__tview_as_is(lu), p1));
    return ps__trsm_tv(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, b, b, &one,
                       ps__tview_as_is(lu), p1);
}

/*
 * Applies step k to the columns [c0, c0+cw): the row interchanges, then, with the saved panel
 * (M01 above L11\U11 above L21), Y = inv(L11) M1j, M2j -= L21 Y (LU's update), M1j = inv(U11) Y
 * and M0j -= M01 M1j (the elimination above). This equals M0j + P0 M1j, P1 M1j, M2j + P2 M1j,
 * the paper's three GEMMs per side, with the same flops, but never multiplies by the explicitly
 * formed inv(M11): with blocks of 128 that product alone raised ||I - A inv(A)|| ratios to
 * ~300 on cond 1e12 matrices, against < 1 this way (classical GJE, one column at a time, shows
 * no such loss either). In the BLAS-3 form the two factors are applied one after the other by
 * their inverses: inv(L11), whose entries are at most 1 in magnitude, as LU's block rows are,
 * and inv(U11), formed by a solve on an identity; on dlatms matrices of condition 1e8..1e12 and
 * graded ones, n = 300..2000, blocks of 64..256, the ratios stayed at the solves' (0.002..0.011
 * with the solves, 0.002..0.020 with inv(U11), limit 30; docs/GJ.md), and test_gj runs this
 * form (lu_block_row).
 * In two parts: the rows below (the swaps, Y and M2j: all the next panel's factorization needs)
 * and the rows above (M1j and M0j from Y), which look-ahead may run on the other lane.
 */
static ps_status update_below(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int k, int b,
                              int c0, int cw, const void *ipiv, ps__mat saved, ps__tview f,
                              const gj_inverse *inv) {
    ps__backend *be = &ctx->be;
    if (cw <= 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__mat lu = ps__mat_at(saved, k, 0);
    ps__tview m1 = ps__tview_at(a, k, c0);
    PS__TRY(ps__swap_rows_tv(be, dt, cw, ps__tview_at(a, 0, c0), k, b, ipiv));
    ps__tview y = m1; /* Y: in place, or in the product workspace */
    if (inv->l.product) {
        ps__scalar zero = ps__scalar_of(dt, 0.0);
        y = ps__l_inverse_product_tv(&inv->l, c0, a.t, n);
        PS__TRY(ps__gemm_tv(be, dt, b, cw, b, &one, ps__tview_as_is(ps__l_inverse_of(&inv->l, k)),
                            m1, &zero, y));
    } else {
        PS__TRY(ps__trsm_tv(be, dt, PS__LEFT, PS__LOWER, PS__NOTRANS, PS__UNIT, b, cw, &one,
                            ps__tview_as_is(lu), m1));
    }
    if (n - k - b <= 0) return PS_SUCCESS;
    return ps__gemm_tv(be, dt, n - k - b, cw, b, &minus_one, ps__tview_at(f, k + b, 0), y, &one,
                       ps__tview_at(a, k + b, c0));
}

static ps_status update_above(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int k, int b,
                              int c0, int cw, ps__mat saved, ps__tview f, const gj_inverse *inv) {
    ps__backend *be = &ctx->be;
    if (cw <= 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__scalar zero = ps__scalar_of(dt, 0.0);
    ps__tview m1 = ps__tview_at(a, k, c0), a0 = ps__tview_at(a, 0, c0);
    if (inv->l.product) { /* from Y in the product workspace: M1j = inv(U11) Y, M0j -= W Y */
        ps__tview y = ps__l_inverse_product_tv(&inv->l, c0, a.t, n);
        PS__TRY(ps__gemm_tv(be, dt, b, cw, b, &one, ps__tview_as_is(u_inverse_of(inv, k)), y, &zero,
                            m1));
        if (k == 0) return PS_SUCCESS;
        return ps__gemm_tv(be, dt, k, cw, b, &minus_one, transform_of(inv, k, a.t), y, &one, a0);
    }
    PS__TRY(ps__trsm_tv(be, dt, PS__LEFT, PS__UPPER, PS__NOTRANS, PS__NONUNIT, b, cw, &one,
                        ps__tview_as_is(ps__mat_at(saved, k, 0)), m1));
    if (k == 0) return PS_SUCCESS;
    return ps__gemm_tv(be, dt, k, cw, b, &minus_one, f, m1, &one, a0);
}

static ps_status update_columns(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int k, int b,
                                int c0, int cw, const void *ipiv, ps__mat saved, ps__tview f,
                                const gj_inverse *inv) {
    PS__TRY(update_below(ctx, dt, n, a, k, b, c0, cw, ipiv, saved, f, inv));
    return update_above(ctx, dt, n, a, k, b, c0, cw, saved, f, inv);
}

/* Everything outside the panel and the next panel [next, next+b2): left of k, right of both. */
static ps_status update_rest(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int k, int b,
                             int next, int b2, const void *ipiv, ps__mat saved, ps__tview f,
                             const gj_inverse *inv) {
    PS__TRY(update_columns(ctx, dt, n, a, k, b, 0, k, ipiv, saved, f, inv));
    return update_columns(ctx, dt, n, a, k, b, next + b2, n - next - b2, ipiv, saved, f, inv);
}

typedef struct gj_work {
    ps__mat saved[2];  /* device: n x b, the factored panel of even and odd steps */
    ps__mat saved_t;   /* transposed layout: the current step's saved panel transposed (nb x n) */
    ps__host_panel hp; /* hybrid: n x b on the host, the pivots, the CPU context */
    gj_inverse inv;    /* block rows by inv(L11) (product NULL: by trsm) */
} gj_work;

/* Step k's panel: the LU of its rows [k,n) with partial pivoting, on the device or on the host
 * with the transfers around it, then its copy into saved (n x b; rows from copy_from, the rest
 * copied by the caller), which the updates read, and inv(L11) when the updates use it. */
static ps_status factor_panel(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int k, int b,
                              ps__gj_where where, void *ipiv, void *info, gj_work *ws,
                              ps__mat saved, int copy_from) {
    ps__backend *be = &ctx->be;
    ps__tview p = ps__tview_at(a, 0, k);
    if (a.t) { /* the panel is factored in its copy, which is stored as is */
        PS__TRY(ps__copy_tv(be, dt, n - copy_from, b, ps__tview_at(p, copy_from, 0),
                            ps__tview_as_is(ps__mat_at(saved, copy_from, 0))));
        PS__TRY(ps__lu_panel(ctx, dt, n, ps__mat_global_columns(saved, k), k, b, ipiv, info));
    } else {
        if (where == PS__GJ_DEVICE) {
            PS__TRY(ps__lu_panel(ctx, dt, n, a.m, k, b, ipiv, info));
        } else {
            /* rows [k,n) travel; rows above the panel's diagonal block are not touched by its LU */
            PS__TRY(ps__host_panel_download(ctx, dt, n, a.m, k, b, &ws->hp));
            PS__TRY(ps__host_panel_factor(dt, n, k, b, &ws->hp));
            PS__TRY(ps__host_panel_upload(ctx, dt, n, a.m, k, b, ipiv, &ws->hp));
        }
        PS__TRY(be->ops->copy2d(be, dt, n - copy_from, b, ps__mat_at(p.m, copy_from, 0),
                                ps__mat_at(saved, copy_from, 0)));
    }
    if (!ws->inv.l.product) return PS_SUCCESS;
    PS__TRY(ps__l_inverse_form(ctx, dt, &ws->inv.l, k, b, ps__mat_at(saved, k, 0)));
    if (!factors_on_panel_lane(n, k)) return PS_SUCCESS;
    return panel_transform_factors(ctx, dt, n, k, b, p, saved, &ws->inv);
}

/*
 * The factored panel as the rest's update reads it (M01 above, L21 below): saved itself, or, when
 * the matrix is transposed, its transpose, formed here (an n x b transpose per step), so that
 * the update's two big products read both operands as C = A B does. With saved read as B^T
 * instead, cuBLAS's GEMMs on the rest's lane took 203 ms against 193 ms for the same flops
 * untransposed (H100, n = 16384; docs/PERFORMANCE.md). Only the rest's lane reads
 * the transpose (the next panel's update on the other lane reads saved), and it reads it before
 * the next step's replaces it.
 */
static ps_status rest_factors(ps__backend *be, ps__dtype dt, int n, int b, const gj_work *ws,
                              ps__mat saved, int transposed, ps__tview *f) {
    *f = ps__tview_as_is(saved);
    if (!transposed) return PS_SUCCESS;
    *f = (ps__tview){ws->saved_t, 1};
    return ps__copy_tv(be, dt, n, b, ps__tview_as_is(saved), *f);
}

/* No look-ahead: panel, update, one step after the other. */
static ps_status gjinv_plain(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int nb,
                             ps__gj_where where, void *ipiv, void *info, gj_work *ws) {
    for (int k = 0; k < n; k += nb) {
        int b = n - k < nb ? n - k : nb;
        PS__TRY(factor_panel(ctx, dt, n, a, k, b, where, ipiv, info, ws, ws->saved[0], 0));
        ps__tview f;
        PS__TRY(rest_factors(&ctx->be, dt, n, b, ws, ws->saved[0], a.t, &f));
        PS__TRY(
            panel_transform(ctx, dt, n, k, b, ps__tview_at(a, 0, k), ws->saved[0], f, &ws->inv));
        PS__TRY(update_rest(ctx, dt, n, a, k, b, k + b, 0, ipiv, ws->saved[0], f, &ws->inv));
    }
    return PS_SUCCESS;
}

/*
 * Look-ahead on two lanes. Per step k: one lane updates the next panel's columns below the
 * panel and factors the next panel while the other updates the rest of the matrix and then,
 * waiting for that lane's Y, the next panel's rows above, which its factorization does not need
 * (this takes work off the panel's lane, the longer one). device: the next panel on lane 1 (the
 * high-priority lane), the rest on lane 0. concurrent (the paper's Hyb-Con): the rest on lane 1,
 * while lane 0 updates the next panel, downloads it, the host factors it and lane 0 uploads it, all
 * overlapping lane 1's GEMMs. The saved panels alternate between two buffers, so the next panel's
 * never overwrites the one the rest's update still reads. The transform of panel k into inverse
 * columns runs on the rest's lane before its update. device, in the first quarter: the rest's lane
 * updates the next panel's rows below too, first (next_on_rest_lane).
 */
static ps_status lookahead_steps(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int nb,
                                 ps__gj_where where, void *ipiv, void *info, gj_work *ws) {
    ps__backend *be = &ctx->be;
    const ps__backend_ops *ops = be->ops;
    int panel_lane = where == PS__GJ_DEVICE ? 1 : 0, rest_lane = 1 - panel_lane;
    PS__TRY(
        factor_panel(ctx, dt, n, a, 0, n < nb ? n : nb, where, ipiv, info, ws, ws->saved[0], 0));
    for (int k = 0; k < n; k += nb) {
        int b = n - k < nb ? n - k : nb, next = k + b;
        int b2 = next < n ? (n - next < nb ? n - next : nb) : 0;
        ps__mat saved = ws->saved[(k / nb) % 2];
        /* both lanes start after everything of the previous step (the next panel's columns
         * were updated by the previous rest, the rest reads this step's panel) */
        PS__TRY(ops->lane_wait(be, 0, 1));
        PS__TRY(ops->lane_wait(be, 1, 0));
        /* the big update (after this panel's transform) first on its lane, so the next panel's
         * work overlaps it */
        PS__TRY(ops->use_lane(be, rest_lane));
        int next_on_rest = where == PS__GJ_DEVICE && b2 > 0 && next_on_rest_lane(n, k);
        ps_status st = PS_SUCCESS;
        ps__tview f =
            ps__tview_as_is(saved); /* the next panel's update reads saved, the rest's f */
        if (next_on_rest) {
            st = update_below(ctx, dt, n, a, k, b, next, b2, ipiv, saved, f, &ws->inv);
            if (!st) st = ops->lane_wait(be, panel_lane, rest_lane);
        }
        if (!st) st = rest_factors(be, dt, n, b, ws, saved, a.t, &f);
        if (!st) st = panel_transform(ctx, dt, n, k, b, ps__tview_at(a, 0, k), saved, f, &ws->inv);
        if (!st) st = update_rest(ctx, dt, n, a, k, b, next, b2, ipiv, saved, f, &ws->inv);
        if (!st) st = ops->use_lane(be, panel_lane);
        if (!st && b2 > 0) {
            /* the next panel's rows below: then its factorization can start, while the rest's
             * lane, after its big update, finishes the rows above (they wait for Y only) */
            ps__mat saved_next = ws->saved[(next / nb) % 2];
            if (!next_on_rest)
                st = update_below(ctx, dt, n, a, k, b, next, b2, ipiv, saved,
                                  ps__tview_as_is(saved), &ws->inv);
            if (!st) st = ops->lane_wait(be, rest_lane, panel_lane);
            if (!st) st = ops->use_lane(be, rest_lane);
            if (!st) st = update_above(ctx, dt, n, a, k, b, next, b2, saved, f, &ws->inv);
            if (!st)
                st = ps__copy_tv(be, dt, next, b2, ps__tview_at(a, 0, next),
                                 ps__tview_as_is(saved_next));
            if (!st) st = ops->use_lane(be, panel_lane);
            if (!st)
                st = factor_panel(ctx, dt, n, a, next, b2, where, ipiv, info, ws, saved_next, next);
        }
        ps_status st0 = ops->use_lane(be, 0);
        PS__TRY(st);
        PS__TRY(st0);
    }
    PS__TRY(ops->lane_wait(be, 0, 1));
    return ops->lane_wait(be, 1, 0);
}

/* The device variant's lanes may split the device for the steps (the backend decides, as for
 * LU: on CUDA the panel's lane gets SMs of its own, so its small kernels never queue behind the
 * rest's GEMMs); they are joined again on every path out, the first error kept. */
static ps_status gjinv_lookahead(ps_context *ctx, ps__dtype dt, int n, ps__tview a, int nb,
                                 ps__gj_where where, void *ipiv, void *info, gj_work *ws) {
    ps__backend *be = &ctx->be;
    if (where != PS__GJ_DEVICE) return lookahead_steps(ctx, dt, n, a, nb, where, ipiv, info, ws);
    int split = 0;
    ps_status st = be->ops->lanes_split(be, PS__ALGO_GJ, dt, n, &split);
    if (!st) st = lookahead_steps(ctx, dt, n, a, nb, where, ipiv, info, ws);
    return ps__lanes_join_after(be, st);
}

static int same_view(ps__mat x, ps__mat y) {
    return x.buf == y.buf && x.off == y.off && x.ld == y.ld;
}

/* dst = src (n x n) as stored, or transposed; in place when they are one view (work: the
 * in-place transpose's w x n workspace). */
static ps_status move_matrix(ps__backend *be, ps__dtype dt, int n, ps__mat src, ps__mat dst,
                             int transposed, void *work, int w) {
    if (same_view(src, dst))
        return transposed ? ps__transpose_in_place(be, dt, n, dst, work, w) : PS_SUCCESS;
    return transposed ? be->ops->transpose(be, dt, n, n, src, dst)
                      : be->ops->copy2d(be, dt, n, n, src, dst);
}

ps_status ps__gjinv(ps_context *ctx, ps__dtype dt, int n, ps__mat in, ps__mat work, ps__mat out,
                    int nb, ps__gj_where where, void *ipiv, int *info) {
    ps__backend *be = &ctx->be;
    *info = 0;
    if (n == 0) return PS_SUCCESS;
    if (nb > n) nb = n;
    /* On a backend that computes in host memory, host and device are one: one computation. */
    void *alias;
    if (be->ops->host_alias(be, work.buf, &alias) == PS_SUCCESS) where = PS__GJ_DEVICE;
    size_t es = ps__dtype_size(dt);
    gj_work ws;
    memset(&ws, 0, sizeof ws);
    ps__tview a = {work, where == PS__GJ_DEVICE && n > nb && use_transposed_layout(ctx, dt, n)};
    ps__scratch s = ps__scratch_begin(ctx);
    void *saved_buf, *dev_info;
    /* the saved panels, and after them the transposed layout's saved_t */
    size_t panel_bytes = (size_t)nb * n * es;
    ps_status st = ps__scratch_dev(&s, (size_t)(a.t ? 3 : 2) * panel_bytes, &saved_buf);
    ws.saved_t = (ps__mat){saved_buf, 2 * (size_t)nb * n, nb};
    if (!st) st = ps__scratch_dev(&s, sizeof(int32_t), &dev_info);
    if (!st) st = ps__zero_info(ctx, dev_info);
    ws.saved[0] = (ps__mat){saved_buf, 0, n};
    ws.saved[1] = (ps__mat){saved_buf, (size_t)nb * n, n};
    if (!st && where != PS__GJ_DEVICE) st = ps__host_panel_open(ctx, &s, dt, n, nb, n, &ws.hp);
    if (!st && ps__use_l_inverse(ctx, dt, n, nb)) {
        st = ps__l_inverse_open(&s, dt, nb, n, &ws.inv.l);
        if (!st) st = ps__scratch_dev(&s, (size_t)nb * n * es, &ws.inv.transform);
        for (int i = 0; i < 2 && !st; i++)
            st = ps__scratch_dev(&s, (size_t)nb * nb * es, &ws.inv.u_inverse[i]);
    }
    /* in place, the transposes go through the saved panels' buffer (free before and after) */
    if (!st) st = move_matrix(be, dt, n, in, work, a.t, saved_buf, nb);
    if (!st) {
        /* hybrid is the paper's Hyb: panel and update one after the other */
        if (be->ops->lanes(be) >= 2 && n > nb && where != PS__GJ_HYBRID)
            st = gjinv_lookahead(ctx, dt, n, a, nb, where, ipiv, dev_info, &ws);
        else
            st = gjinv_plain(ctx, dt, n, a, nb, where, ipiv, dev_info, &ws);
    }
    int dinfo = 0;
    if (!st) st = ps__read_info(ctx, dev_info, &dinfo);
    int32_t hinfo = ws.hp.info;
    if (!st) *info = dinfo && (!hinfo || dinfo < hinfo) ? dinfo : hinfo;
    /* a singular matrix leaves out as it was, unless it is the workspace */
    if (!st && !(*info && !same_view(out, work))) {
        st = move_matrix(be, dt, n, work, out, a.t, saved_buf, nb);
        if (!st) st = be->ops->colswp(be, dt, n, out, 0, n, ipiv, 0, 0);
    }
    ps__scratch_end(&s);
    return st;
}
