/* The conjugate-gradient step (the cg_step entry in Chronopoulos and Gear's form, core/backend.h;
 * -DPS_DOUBLE selects double) as three kernels on one in-order queue, its scalars never leaving
 * the device: OpenCL 1.2 has no grid-wide barrier, so the reduction ends a kernel and a
 * one-group kernel finishes it. The host then reads the scalar block a step late
 * (iter_krylov.c) instead of waiting for every dot product.
 *   ps_cg_dots    (grid)      partial sums of (r, r), (r, u), (w, u) unless in[STOP]
 *   ps_cg_scalars (one group) the sums, the block out (ps__cg_scalars in backend.h), alpha, beta
 *   ps_cg_update  (grid)      xbest = x when it is the best iterate; p = u + beta p,
 *                             s = w + beta s, x += alpha p, r -= alpha s, u = dinv .* r
 * work holds [update, alpha, beta, save, first] and from CG_PARTIAL on the partial sums, three
 * per group. Every kernel is launched with PS_CG_LOCAL work-items per group. */

#define PS_CG_LOCAL 64
/* the scalar block (core/backend.h, PS__CG_*) */
#define GAMMA           0
#define RR              1
#define DENOM           2
#define BEST            3
#define ALPHA           4
#define STOP            5
#define STOP_CONVERGED  1
#define STOP_PQ         2
#define STOP_NOT_FINITE 3
#define STOP_RZ         4
/* work */
#define W_UPDATE   0
#define W_ALPHA    1
#define W_BETA     2
#define W_SAVE     3
#define W_FIRST    4
#define CG_PARTIAL 8
#define PARTIAL    4 /* the norm's partial sums (ps_orth_partial), two per group */

/* Sums v over the group into red[0] (every work-item passes the barriers). */
static void group_sum(__local real *red, real v) {
    int l = get_local_id(0);
    red[l] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = PS_CG_LOCAL / 2; w > 0; w /= 2) {
        if (l < w) red[l] += red[l + w];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Sums three values over the group into red[0][0], red[1][0], red[2][0]. */
static void group_sum3(__local real red[3][PS_CG_LOCAL], real a, real b, real c) {
    int l = get_local_id(0);
    red[0][l] = a, red[1][l] = b, red[2][l] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int w = PS_CG_LOCAL / 2; w > 0; w /= 2) {
        if (l < w) {
            red[0][l] += red[0][l + w];
            red[1][l] += red[1][l + w];
            red[2][l] += red[2][l + w];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void ps_cg_dots(int n, int has_dinv, __global const real *in, ulong ino,
                         __global const real *r, ulong ro, __global const real *u, ulong uo,
                         __global const real *w, ulong wo, __global real *work) {
    __local real red[3][PS_CG_LOCAL];
    int run = in[ino + STOP] == 0;
    real rr = 0, ru = 0, wu = 0;
    for (int i = get_global_id(0); run && i < n; i += get_global_size(0)) {
        real ri = r[ro + i], ui = has_dinv ? u[uo + i] : ri;
        rr += ri * ri;
        ru += ri * ui;
        wu += w[wo + i] * ui;
    }
    group_sum3(red, rr, ru, wu);
    if (get_local_id(0) < 3)
        work[CG_PARTIAL + 3 * get_group_id(0) + get_local_id(0)] = red[get_local_id(0)][0];
}

/* stop_rr arrives in the program's precision; rr <= stop_rr compares as the host does unless
 * stop_rr is not a float, which moves the boundary by one rounding. */
__kernel void ps_cg_scalars(int groups, int has_dinv, int last, real stop_rr,
                            __global const real *in, ulong ino, __global real *out, ulong oo,
                            __global real *work) {
    __local real red[3][PS_CG_LOCAL];
    real a0 = 0, a1 = 0, a2 = 0;
    for (int g = get_local_id(0); g < groups; g += PS_CG_LOCAL) {
        a0 += work[CG_PARTIAL + 3 * g];
        a1 += work[CG_PARTIAL + 3 * g + 1];
        a2 += work[CG_PARTIAL + 3 * g + 2];
    }
    group_sum3(red, a0, a1, a2);
    if (get_local_id(0) != 0) return;
    for (int e = 0; e <= STOP; e++) out[oo + e] = in[ino + e];
    work[W_UPDATE] = 0;
    work[W_SAVE] = 0;
    if (in[ino + STOP] != 0) return;
    /* ps__cg_scalars */
    real rr = red[0][0], gamma = has_dinv ? red[1][0] : rr, delta = red[2][0];
    real best = in[ino + BEST], alpha_old = in[ino + ALPHA], gamma_old = in[ino + GAMMA];
    int save = rr < best;
    work[W_SAVE] = save;
    if (save) out[oo + BEST] = rr;
    out[oo + GAMMA] = gamma;
    out[oo + RR] = rr;
    int stop = rr <= stop_rr     ? STOP_CONVERGED
               : !(rr - rr == 0) ? STOP_NOT_FINITE
               : gamma == 0      ? STOP_RZ
                                 : 0;
    out[oo + STOP] = stop;
    if (stop != 0 || last) return;
    real beta = alpha_old != 0 ? gamma / gamma_old : 0;
    real denom = alpha_old != 0 ? delta - beta * gamma / alpha_old : delta;
    out[oo + DENOM] = denom;
    if (!(denom > 0)) {
        out[oo + STOP] = STOP_PQ;
        return;
    }
    real alpha = gamma / denom;
    out[oo + ALPHA] = alpha;
    work[W_UPDATE] = 1;
    work[W_ALPHA] = alpha;
    work[W_BETA] = beta;
    work[W_FIRST] = alpha_old == 0;
}

__kernel void ps_cg_update(int n, int has_dinv, __global real *x, ulong xo, __global real *xbest,
                           ulong xbo, __global real *r, ulong ro, __global real *u, ulong uo,
                           __global const real *w, ulong wo, __global real *p, ulong po,
                           __global real *s, ulong so, __global const real *dinv, ulong dio,
                           __global const real *work) {
    int update = work[W_UPDATE] != 0, save = work[W_SAVE] != 0, first = work[W_FIRST] != 0;
    if (!update && !save) return;
    real alpha = work[W_ALPHA], beta = work[W_BETA];
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        real xi = x[xo + i];
        if (save) xbest[xbo + i] = xi;
        if (!update) continue;
        real ri = r[ro + i], ui = has_dinv ? u[uo + i] : ri, wi = w[wo + i];
        real pi = first ? ui : ui + beta * p[po + i];
        real si = first ? wi : wi + beta * s[so + i];
        p[po + i] = pi;
        s[so + i] = si;
        x[xo + i] = xi + alpha * pi;
        ri -= alpha * si;
        r[ro + i] = ri;
        if (has_dinv) u[uo + i] = dinv[dio + i] * ri;
    }
}

/* GMRES's two classical Gram-Schmidt passes for k <= PS_CL_ORTH_MAX_K columns, each
 *   ps_orth_dots   (grid)      per group, the partial sums of v(:, c)' w for every column c, in
 *                              chunks of PS_ORTH_CHUNK columns, into part[c * groups + g]
 *   ps_orth_sum    (one group) h[c] = the partials summed in group order, into col
 *   ps_orth_update (grid)      w -= v h
 * CLBlast's transposed gemv gave each of the k sums one work-item, which then read a whole
 * column alone: about 1.8 ms an Arnoldi step at n = 20000 on an H100, 400 times what reading v
 * costs (docs/PERFORMANCE.md). */
#define PS_ORTH_CHUNK 8

__kernel void ps_orth_dots(int n, int k, __global const real *v, ulong vo, int ldv,
                           __global const real *w, ulong wo, __global real *part) {
    __local real red[PS_ORTH_CHUNK][PS_CG_LOCAL];
    int l = get_local_id(0), g = get_group_id(0), groups = get_num_groups(0);
    for (int c0 = 0; c0 < k; c0 += PS_ORTH_CHUNK) {
        real acc[PS_ORTH_CHUNK];
        for (int u = 0; u < PS_ORTH_CHUNK; u++) acc[u] = 0;
        for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
            real wi = w[wo + i];
            for (int u = 0; u < PS_ORTH_CHUNK; u++)
                if (c0 + u < k) acc[u] += v[vo + i + (ulong)(c0 + u) * (ulong)ldv] * wi;
        }
        for (int u = 0; u < PS_ORTH_CHUNK; u++) red[u][l] = acc[u];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int span = PS_CG_LOCAL / 2; span > 0; span /= 2) {
            if (l < span)
                for (int u = 0; u < PS_ORTH_CHUNK; u++) red[u][l] += red[u][l + span];
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (l < PS_ORTH_CHUNK && c0 + l < k) part[(ulong)(c0 + l) * (ulong)groups + g] = red[l][0];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void ps_orth_sum(int k, int groups, __global const real *part, __global real *col,
                          ulong co) {
    for (int c = get_local_id(0); c < k; c += get_local_size(0)) {
        real s = 0;
        for (int g = 0; g < groups; g++) s += part[(ulong)c * (ulong)groups + g];
        col[co + c] = s;
    }
}

__kernel void ps_orth_update(int n, int k, __global const real *v, ulong vo, int ldv,
                             __global real *w, ulong wo, __global const real *h, ulong ho) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        real s = 0;
        for (int c = 0; c < k; c++) s += v[vo + i + (ulong)c * (ulong)ldv] * h[ho + c];
        w[wo + i] -= s;
    }
}

/* GMRES's orthonormalize after the two CGS passes: the norm of w and the division, without the
 * host.
 *   ps_orth_partial (grid)      partial sums of w_i^2, one per group into work[PARTIAL + 2 g]
 *   ps_orth_norm    (one group) col[c] = sqrt(sum), in the data's precision
 *   ps_orth_scale   (grid)      w /= col[c] when it is positive and finite */
__kernel void ps_orth_partial(int n, __global const real *w, ulong wo, __global real *work) {
    __local real red[PS_CG_LOCAL];
    real acc = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) acc += w[wo + i] * w[wo + i];
    group_sum(red, acc);
    if (get_local_id(0) == 0) work[PARTIAL + 2 * get_group_id(0)] = red[0];
}

__kernel void ps_orth_norm(int groups, __global real *col, ulong c, __global const real *work) {
    __local real red[PS_CG_LOCAL];
    real acc = 0;
    for (int g = get_local_id(0); g < groups; g += PS_CG_LOCAL) acc += work[PARTIAL + 2 * g];
    group_sum(red, acc);
    if (get_local_id(0) == 0) col[c] = sqrt(red[0]);
}

__kernel void ps_orth_scale(int n, __global real *w, ulong wo, __global const real *col, ulong c) {
    real h = col[c];
    if (!(h > 0) || isinf(h)) return; /* NaN fails the first test */
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) w[wo + i] /= h;
}

/* GMRES's gmres_update_x: x += dinv .* (V(:, 0 .. ky) y), y in the arguments, so that the host's y
 * needs no upload (a blocking transfer, which drains the queue at every restart); the product in
 * the data's precision and rounded before dinv, as the gemv, vmul and axpy it replaces. At most
 * PS_UPDATE_MAX_K columns (PS_CL_UPDATE_MAX_K in cl_internal.h). */
#define PS_UPDATE_MAX_K 64
typedef struct {
    real y[PS_UPDATE_MAX_K];
} ps_host_y;

__kernel void ps_gmres_update_x(int n, int ky, __global const real *v, ulong vo, int ldv,
                                int has_dinv, __global const real *dinv, ulong dio,
                                __global real *x, ulong xo, ps_host_y y) {
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        real s = 0;
        for (int c = 0; c < ky; c++) s += v[vo + i + (ulong)c * (ulong)ldv] * y.y[c];
        if (has_dinv) s *= dinv[dio + i];
        x[xo + i] += s;
    }
}
