/* The conjugate-gradient step (the cg_step entry, -DPS_DOUBLE selects double) as five kernels
 * on one in-order queue, its scalars never leaving the device: OpenCL 1.2 has no grid-wide
 * barrier, so each reduction ends a kernel and a one-group kernel finishes it. The host then
 * reads the scalar block a step late (iter_krylov.c) instead of waiting for every dot product.
 *   ps_cg_begin  (grid)      xbest = x when in[SAVE]; partial sums of (p, q) unless in[STOP]
 *   ps_cg_alpha  (one group) pq, out = in with SAVE clear, the PQ stop, alpha = rz / pq
 *   ps_cg_update (grid)      x += alpha p, r -= alpha q, z = dinv .* r; partials of rr and rz
 *   ps_cg_finish (one group) rr, rz', beta and the end of the step (ps__cg_finish in backend.h)
 *   ps_cg_p      (grid)      p = z + beta p
 * work holds [run, alpha, beta] (run: 1 while the step proceeds past ps_cg_alpha) and then the
 * partial sums, two per group. Every kernel is launched with PS_CG_LOCAL work-items per group. */

#define PS_CG_LOCAL 64
/* the scalar block (core/backend.h, PS__CG_*) */
#define RZ              0
#define RR              1
#define PQ              2
#define BEST            3
#define SAVE            4
#define STOP            5
#define STOP_CONVERGED  1
#define STOP_PQ         2
#define STOP_NOT_FINITE 3
#define STOP_RZ         4
/* work */
#define RUN     0
#define ALPHA   1
#define BETA    2
#define PARTIAL 4

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

__kernel void ps_cg_begin(int n, __global const real *in, ulong ino, __global const real *x,
                          ulong xo, __global real *xbest, ulong xbo, __global const real *p,
                          ulong po, __global const real *q, ulong qo, __global real *work) {
    __local real red[PS_CG_LOCAL];
    int save = in[ino + SAVE] != 0, run = in[ino + STOP] == 0;
    real acc = 0;
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) {
        if (save) xbest[xbo + i] = x[xo + i];
        if (run) acc += p[po + i] * q[qo + i];
    }
    group_sum(red, acc);
    if (get_local_id(0) == 0) work[PARTIAL + 2 * get_group_id(0)] = red[0];
}

__kernel void ps_cg_alpha(int groups, __global const real *in, ulong ino, __global real *out,
                          ulong oo, __global real *work) {
    __local real red[PS_CG_LOCAL];
    real acc = 0;
    for (int g = get_local_id(0); g < groups; g += PS_CG_LOCAL) acc += work[PARTIAL + 2 * g];
    group_sum(red, acc);
    if (get_local_id(0) != 0) return;
    real pq = red[0];
    for (int e = 0; e <= STOP; e++) out[oo + e] = in[ino + e];
    out[oo + SAVE] = 0;
    int run = in[ino + STOP] == 0;
    if (run) {
        out[oo + PQ] = pq;
        if (!(pq > 0)) {
            out[oo + STOP] = STOP_PQ;
            run = 0;
        }
    }
    work[RUN] = run;
    work[ALPHA] = run ? in[ino + RZ] / pq : 0;
}

__kernel void ps_cg_update(int n, __global real *x, ulong xo, __global real *r, ulong ro,
                           __global real *z, ulong zo, __global const real *p, ulong po,
                           __global const real *q, ulong qo, __global const real *dinv, ulong dio,
                           int has_dinv, __global real *work) {
    __local real red[PS_CG_LOCAL];
    int run = work[RUN] != 0;
    real alpha = work[ALPHA], rr = 0, rz = 0;
    for (int i = get_global_id(0); run && i < n; i += get_global_size(0)) {
        x[xo + i] += alpha * p[po + i];
        real ri = r[ro + i] - alpha * q[qo + i];
        r[ro + i] = ri;
        rr += ri * ri;
        if (has_dinv) {
            real zi = dinv[dio + i] * ri;
            z[zo + i] = zi;
            rz += ri * zi;
        }
    }
    group_sum(red, rr);
    if (get_local_id(0) == 0) work[PARTIAL + 2 * get_group_id(0)] = red[0];
    barrier(CLK_LOCAL_MEM_FENCE); /* red is reused */
    group_sum(red, rz);
    if (get_local_id(0) == 0) work[PARTIAL + 2 * get_group_id(0) + 1] = red[0];
}

/* stop_rr arrives in the program's precision; rr <= stop_rr compares as the host does unless
 * stop_rr is not a float, which moves the boundary by one rounding. */
__kernel void ps_cg_finish(int groups, int has_dinv, real stop_rr, __global const real *in,
                           ulong ino, __global real *out, ulong oo, __global real *work) {
    __local real red[PS_CG_LOCAL];
    real acc_rr = 0, acc_rz = 0;
    for (int g = get_local_id(0); g < groups; g += PS_CG_LOCAL) {
        acc_rr += work[PARTIAL + 2 * g];
        acc_rz += work[PARTIAL + 2 * g + 1];
    }
    group_sum(red, acc_rr);
    real rr = red[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    group_sum(red, acc_rz);
    real rz = has_dinv ? red[0] : rr;
    if (get_local_id(0) != 0 || work[RUN] == 0) return;
    /* ps__cg_finish */
    real best = in[ino + BEST];
    work[BETA] = rz / in[ino + RZ];
    out[oo + RZ] = rz;
    out[oo + RR] = rr;
    out[oo + SAVE] = rr < best;
    out[oo + BEST] = rr < best ? rr : best;
    out[oo + STOP] = rr <= stop_rr     ? STOP_CONVERGED
                     : !(rr - rr == 0) ? STOP_NOT_FINITE
                     : rz == 0         ? STOP_RZ
                                       : 0;
}

__kernel void ps_cg_p(int n, __global const real *z, ulong zo, __global real *p, ulong po,
                      __global const real *work) {
    if (work[RUN] == 0) return;
    real beta = work[BETA];
    for (int i = get_global_id(0); i < n; i += get_global_size(0))
        p[po + i] = z[zo + i] + beta * p[po + i];
}

/* GMRES's two classical Gram-Schmidt passes for k <= PS_CL_ORTH_MAX_K columns, each
 *   ps_orth_dots   (grid)      per group, the partial sums of v(:, c)' w for every column c, in
 *                              chunks of PS_ORTH_CHUNK columns, into part[c * groups + g]
 *   ps_orth_sum    (one group) h[c] = the partials summed in group order, into col
 *   ps_orth_update (grid)      w -= v h
 * CLBlast's transposed gemv gave each of the k sums one work-item, which then read a whole
 * column alone: about 1.8 ms an Arnoldi step at n = 20000 on an H100, 400 times what reading v
 * costs (docs/PERFORMANCE.md, session 24). */
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
