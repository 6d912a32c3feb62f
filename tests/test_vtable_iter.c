/*
 * The vtable entries that keep the iterative solvers' scalars on the device, on the backend
 * given by --backend, the backend's own and the portable defaults: cg_step against a naive CG
 * step on the host mirror (with and without the Jacobi scaling, every stop case, the first and
 * the last step, the best iterate's save), orthonormalize against CGS2 on the host (k = 0..130
 * columns, at n = 5000 k = 100 too many for CUDA's cluster to keep V's slices in shared
 * memory, a zero vector left as it is), each with and without fetching its results, and
 * fetch_start / fetch_wait through both slots with the source overwritten after the wait,
 * products on a matrix held by hold_matrix right behind kernels that rewrite their x,
 * arnoldi_steps against the host's CGS2 step by step (or its refusal, leaving everything as it
 * was), arnoldi_restart (x's update, the residual, its norm and v_0, then the steps) and
 * gmres_update_x (x += dinv .* (V y) from the host's y), and cg_steps against per-step gemv
 * and cg_step calls. --case NAME runs one group.
 */
#include "vtable_harness.h"
#include "base/tuning.h"
#include "iter/cg_scalars.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { VX, VR, VU, VW, VP, VS, VD, VB, NV }; /* x, r, u, w, p, s, dinv, xbest */
/* The most steps a cg_steps call takes here (core's calls take 32). */
#define PS__CG_STEPS_PER_CALL_TEST 40

static double dot_host(ps__dtype dt, const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i] * b[i];
    return round_to(dt, s);
}

static double abs_dot_host(const double *a, const double *b, int n) {
    double s = 0;
    for (int i = 0; i < n; i++) s += fabs(a[i] * b[i]);
    return s;
}

/* Runs one cg_step of ops on fresh vectors; `mode` picks the case: 0 a plain step, 1 with the
 * Jacobi scaling, 2 (p, A p) <= 0 (w = -u), 3 stopped on entry, 4 converged (stop_rr huge), 5
 * no improvement of best (best tiny), 6 (r, u) = 0 (u zero), 7 the first update (alpha 0 in,
 * NaN in p and s), 8 the last step (measure only). The expectation is worked out here on the
 * host mirrors from the entry's definition in core/backend.h. */
static void run_cg_case(const ps__iter_kernels *kernels, const char *who, ps__dtype dt, int n,
                        int mode) {
    tbuf v[NV], blk = tb_random(dt, 2 * PS__CG_SCALARS);
    for (int k = 0; k < NV; k++) v[k] = tb_random(dt, n > 0 ? n : 1);
    int precond = mode == 1 || mode == 6, first = mode == 7, last = mode == 8;
    const double *u0 = v[precond ? VU : VR].host;
    for (int i = 0; i < n; i++) {
        if (mode == 6) v[VU].host[i] = 0;
        /* w = u (1 + noise / 10): (w, u) >= 0.9 (u, u), above beta gamma / alpha_old below */
        v[VW].host[i] = round_to(dt, (mode == 2 ? -1 : 1) * u0[i] * (1 + 0.1 * v[VW].host[i]));
        v[VD].host[i] = round_to(dt, 1.5 + 0.5 * v[VD].host[i]);
        if (first) v[VP].host[i] = v[VS].host[i] = NAN;
    }
    for (int k = 0; k < NV; k++) upload_all(&v[k]);
    /* gamma_old alpha_old >= 2 n bounds beta gamma / alpha_old = gamma^2 / (gamma_old
     * alpha_old) by (u, u) / 2 (Cauchy-Schwarz, |r_i| <= 1) */
    double in[PS__CG_SCALARS] = {round_to(dt, 2 * (n > 0 ? n : 1) * (1 + fabs(ps_test_rand()))),
                                 round_to(dt, 3.0),
                                 round_to(dt, 0.5),
                                 mode == 5 ? round_to(dt, 1e-30) : 1e30,
                                 first ? 0 : round_to(dt, 1 + fabs(ps_test_rand())),
                                 mode == 3 ? PS__CG_STOP_RZ : 0};
    in[PS__CG_BEST] = round_to(dt, in[PS__CG_BEST]);
    for (int i = 0; i < PS__CG_SCALARS; i++) blk.host[i] = in[i];
    upload_all(&blk);
    double stop_rr = mode == 4 ? 1e30 : 0;

    /* the expectation, on the mirrors */
    double *e[NV];
    for (int k = 0; k < NV; k++) e[k] = copy_of(&v[k]);
    double *x = e[VX], *r = e[VR], *uu = e[precond ? VU : VR], *p = e[VP], *sv = e[VS];
    const double *w = v[VW].host, *dinv = v[VD].host;
    double out[PS__CG_SCALARS], alpha = 0, beta = 0;
    /* each scalar's error bound in units of (n + 4) eps, propagated from the sums of the terms'
     * magnitudes: the dots cancel (r and u are independent with the Jacobi scaling), so a bound
     * relative to the result alone is too tight; kappa carries alpha's and beta's relative
     * errors into the vectors */
    double bound[PS__CG_SCALARS] = {0}, kappa = 1;
    for (int i = 0; i < PS__CG_SCALARS; i++) out[i] = in[i];
    int update = 0;
    if (mode != 3) {
        double rr = dot_host(dt, r, r, n), gamma = precond ? dot_host(dt, r, uu, n) : rr,
               delta = dot_host(dt, w, uu, n);
        double gamma_mag = precond ? abs_dot_host(r, uu, n) : rr,
               delta_mag = abs_dot_host(w, uu, n);
        out[PS__CG_GAMMA] = gamma, out[PS__CG_RR] = rr;
        bound[PS__CG_GAMMA] = gamma_mag, bound[PS__CG_RR] = bound[PS__CG_BEST] = rr;
        if (rr < in[PS__CG_BEST]) {
            out[PS__CG_BEST] = rr;
            for (int i = 0; i < n; i++) e[VB][i] = x[i];
        }
        out[PS__CG_STOP] = rr <= stop_rr ? PS__CG_STOP_CONVERGED : gamma == 0 ? PS__CG_STOP_RZ : 0;
        if (out[PS__CG_STOP] == 0 && !last) {
            beta = first ? 0 : gamma / in[PS__CG_GAMMA];
            double denom = first ? delta : delta - beta * gamma / in[PS__CG_ALPHA];
            out[PS__CG_DENOM] = denom;
            /* beta gamma / alpha_old = gamma^2 / (gamma_old alpha_old): twice gamma's error */
            double rel_gamma = gamma_mag / fabs(gamma);
            bound[PS__CG_DENOM] =
                delta_mag +
                (first ? 0 : fabs(beta * gamma / in[PS__CG_ALPHA]) * (2 * rel_gamma + 3));
            if (!(denom > 0)) {
                out[PS__CG_STOP] = PS__CG_STOP_PQ;
            } else {
                alpha = gamma / denom;
                out[PS__CG_ALPHA] = alpha;
                double rel_alpha = rel_gamma + bound[PS__CG_DENOM] / denom + 1;
                bound[PS__CG_ALPHA] = fabs(alpha) * rel_alpha;
                kappa = 1 + rel_alpha + (first ? 0 : rel_gamma);
                update = 1;
            }
        }
    }
    CHECK(mode != 2 || out[PS__CG_STOP] == PS__CG_STOP_PQ, "cg case 2 sets up (p, A p) <= 0");
    CHECK(mode == 2 || mode == 3 || mode == 4 || mode == 6 || mode == 8 || update,
          "cg case %d sets up an update", mode);
    if (update)
        for (int i = 0; i < n; i++) {
            p[i] = first ? uu[i] : uu[i] + beta * p[i];
            sv[i] = first ? w[i] : w[i] + beta * sv[i];
            x[i] += alpha * p[i];
            r[i] -= alpha * sv[i];
            if (precond) uu[i] = dinv[i] * r[i];
        }

    ps__cg_vectors cv = {
        vview(&v[VX], 0, 1), vview(&v[VR], 0, 1), vview(&v[precond ? VU : VR], 0, 1),
        vview(&v[VW], 0, 1), vview(&v[VP], 0, 1), vview(&v[VS], 0, 1),
        vview(&v[VD], 0, 1), vview(&v[VB], 0, 1)};
    if (!precond) cv.dinv.buf = NULL;
    int slot = ps_test_rand_int(PS__FETCH_SLOTS + 1) - 1; /* -1: no fetch */
    CHECK(kernels->cg_step(be, dt, n, &cv, vview(&blk, 0, 1), vview(&blk, PS__CG_SCALARS, 1),
                           stop_rr, last, slot) == PS_SUCCESS,
          "%s cg_step: %s", who, be->err);
    double fetched[PS__CG_SCALARS];
    if (slot >= 0)
        CHECK(be->ops->fetch_wait(be, dt, slot, PS__CG_SCALARS, vview(&blk, PS__CG_SCALARS, 1),
                                  fetched) == PS_SUCCESS,
              "%s fetch_wait after cg_step: %s", who, be->err);

    /* vectors: n-term sums in either order, scaled by alpha and beta */
    double *mag = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    double scale = (1 + fabs(alpha)) * (1 + fabs(beta));
    for (int i = 0; i < n; i++)
        mag[i] = 4 * kappa * scale * scale *
                 (fabs(x[i]) + fabs(r[i]) + fabs(uu[i]) + fabs(w[i]) + 1) * n;
    char what[96];
    for (int k = 0; k < NV; k++) {
        if (k == VD || k == VW || (k == VU && !precond)) continue; /* read only */
        snprintf(what, sizeof what, "%s cg_step mode %d %s vector %d", who, mode, dtname(dt), k);
        expect_buffer(what, &v[k], e[k], mag, 1);
    }
    double *got = tb_download(&blk);
    for (int i = 0; i < PS__CG_SCALARS; i++) {
        double ex = out[i], g = got[PS__CG_SCALARS + i];
        int computed = ex != in[i] || i == PS__CG_GAMMA || i == PS__CG_RR;
        double tol = i != PS__CG_STOP && computed && mode != 3
                         ? 32 * (n + 4) * eps_of(dt) * (bound[i] + 1e-300)
                         : 0;
        CHECK(fabs(g - ex) <= tol, "%s cg_step mode %d %s n=%d: scalar %d is %.17g, expected %.17g",
              who, mode, dtname(dt), n, i, g, ex);
        if (slot >= 0)
            CHECK(native_at(dt, fetched, (size_t)i) == g,
                  "%s cg_step mode %d: fetched scalar %d is %.17g, the block holds %.17g", who,
                  mode, i, native_at(dt, fetched, (size_t)i), g);
    }
    free(got), free(mag);
    for (int k = 0; k < NV; k++) free(e[k]), tb_free(&v[k]);
    tb_free(&blk);
}

static void test_cg_step(ps__dtype dt) {
    /* CUDA: up to 3072 one block holding its elements in registers, up to 6144 one block,
     * above it the cooperative grid */
    static const int lengths[] = {1, 7, 100, 2048, 3001, 3072, 3073, 9001};
    for (int which = 0; which < 2; which++) {
        const ps__iter_kernels *kernels = FAMILY(iter, which);
        const char *who = which ? "default" : "backend";
        for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; t++)
            for (int mode = 0; mode <= 8; mode++) run_cg_case(kernels, who, dt, lengths[t], mode);
    }
}

/* V's k columns orthonormal (Gram-Schmidt twice in double, then rounded to dt), as GMRES's
 * basis is: the columns of V that orthonormalize's contract describes. */
static void orthonormal_columns(ps__dtype dt, tbuf *V, shape vs, int n, int k) {
    for (int c = 0; c < k; c++) {
        for (int pass = 0; pass < 2; pass++)
            for (int p = 0; p < c; p++) {
                double d = 0;
                for (int i = 0; i < n; i++) d += AT(*V, vs, i, p) * AT(*V, vs, i, c);
                for (int i = 0; i < n; i++) AT(*V, vs, i, c) -= d * AT(*V, vs, i, p);
            }
        double ss = 0;
        for (int i = 0; i < n; i++) ss += AT(*V, vs, i, c) * AT(*V, vs, i, c);
        for (int i = 0; i < n; i++) AT(*V, vs, i, c) /= sqrt(ss);
    }
    for (int c = 0; c < k; c++)
        for (int i = 0; i < n; i++) AT(*V, vs, i, c) = round_to(dt, AT(*V, vs, i, c));
}

/* CGS2 of w (n values, in place) against the k columns of the mirror v (view vs), in double
 * with each h rounded to dt as orthonormalize says: h[0 .. k) = h1, h[k .. 2k) = h2; returns
 * ||w|| after both passes (w is not normalized). */
static double host_cgs2(ps__dtype dt, const double *v, shape vs, int n, int k, double *w,
                        double *h) {
    for (int pass = 0; pass < 2; pass++) {
        for (int c = 0; c < k; c++) {
            double d = 0;
            for (int i = 0; i < n; i++) d += v[vs.off + i + (size_t)c * vs.ld] * w[i];
            h[pass * k + c] = round_to(dt, d);
        }
        for (int i = 0; i < n; i++)
            for (int c = 0; c < k; c++) w[i] -= v[vs.off + i + (size_t)c * vs.ld] * h[pass * k + c];
    }
    double ss = 0;
    for (int i = 0; i < n; i++) ss += w[i] * w[i];
    return sqrt(ss);
}

/* orthonormalize's CGS2 on the host mirror, in double with each h rounded to dt as the entry
 * says. The projections and w's update are specified for any v; the norm only for orthonormal
 * columns (k <= n), where a backend may take it from the second pass's reduction (CUDA's
 * cluster kernel), so w and the norm are checked there. With k > n (random v) the
 * coefficients are. */
static void test_orthonormalize(ps__dtype dt) {
    static const int lengths[] = {0, 1, 5, 1000, 5000, 70001};
    static const int ks[] = {0, 1, 3, 8, 9, 35, 100, 130};
    for (int which = 0; which < 2; which++) {
        const ps__iter_kernels *kernels = FAMILY(iter, which);
        const ps__backend_ops *ops = which ? ps__backend_defaults() : be->ops;
        const char *who = which ? "default" : "backend";
        for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; t++)
            for (size_t kk = 0; kk < sizeof ks / sizeof ks[0]; kk++)
                for (int zero = 0; zero < 2; zero++) {
                    int n = lengths[t], k = ks[kk];
                    if ((n > 5000 && k > 9) || (zero && k > 1)) continue;
                    int count = 2 * k + 1, slot = ps_test_rand_int(PS__FETCH_SLOTS + 1) - 1;
                    shape vs = random_shape(n, k);
                    size_t off = (size_t)ps_test_rand_int(4);
                    tbuf V = tb_random(dt, shape_count(vs)), W = tb_random(dt, (int)off + n + 1),
                         H = tb_random(dt, count + 2);
                    int orthonormal = k <= n;
                    if (orthonormal) orthonormal_columns(dt, &V, vs, n, k);
                    upload_all(&V);
                    if (zero)
                        for (int i = 0; i < n; i++) W.host[off + (size_t)i] = 0;
                    upload_all(&W);
                    double *w = malloc(sizeof(double) * (size_t)(n + 1)),
                           *h = malloc(sizeof(double) * (size_t)count), wmag = 1;
                    for (int i = 0; i < n; i++) w[i] = W.host[off + (size_t)i];
                    for (int i = 0; i < n; i++) wmag += fabs(w[i]);
                    double nrm = host_cgs2(dt, V.host, vs, n, k, w, h);
                    h[2 * k] = nrm;
                    CHECK(kernels->orthonormalize(be, dt, n, k, view(&V, vs), vview(&W, off, 1),
                                                  vview(&H, 1, 1), slot) == PS_SUCCESS,
                          "%s orthonormalize: %s", who, be->err);
                    double fetched[300];
                    if (slot >= 0)
                        CHECK(ops->fetch_wait(be, dt, slot, count, vview(&H, 1, 1), fetched) ==
                                  PS_SUCCESS,
                              "%s fetch_wait after orthonormalize: %s", who, be->err);
                    char what[80];
                    snprintf(what, sizeof what, "%s orthonormalize %s n=%d k=%d", who, dtname(dt),
                             n, k);
                    /* the projections: n-term sums of terms up to |v| |w| (|v_ij| < 1) */
                    double *got = tb_download(&H);
                    double tol_h = 8 * (n + k + 2) * eps_of(dt) * wmag * (1 + k);
                    int bad = 0;
                    for (int i = 0; i < 2 * k; i++) bad += !(fabs(got[1 + i] - h[i]) <= tol_h);
                    CHECK(!bad && got[0] == H.host[0] && got[count + 1] == H.host[count + 1],
                          "%s: %d of %d coefficients off (first %.17g vs %.17g), or a neighbour "
                          "written",
                          what, bad, 2 * k, k ? got[1] : 0, k ? h[0] : 0);
                    /* w after both passes is a small difference: compare w * nrm */
                    double *wg = tb_download(&W);
                    double tol_w = 16 * (n + k + 2) * eps_of(dt) * wmag * (1 + k) * (1 + k),
                           err = 0;
                    for (int i = 0; i < n; i++) {
                        double e = nrm > 0 ? w[i] : 0, g = nrm > 0 ? wg[off + i] * nrm : 0;
                        if (!(nrm > 0)) g = wg[off + i] - w[i];
                        if (!(fabs(g - e) <= err)) err = fabs(g - e);
                    }
                    /* the norm: an n-term sum of squares (error up to about n eps relative in
                     * any summation order, e.g. OpenBLAS's nrm2 against this loop) plus what
                     * w's own error contributes, at most sqrt(n) times its largest entry */
                    double tol_nrm = (n + 2) * eps_of(dt) * nrm + sqrt((double)n) * tol_w;
                    if (orthonormal)
                        CHECK(err <= tol_w && fabs(got[count] - nrm) <= tol_nrm,
                              "%s: w off by %.3g (tol %.3g); norm %.17g, expected %.17g (tol "
                              "%.3g)",
                              what, err, tol_w, got[count], nrm, tol_nrm);
                    for (int i = 0; slot >= 0 && i < count; i++)
                        CHECK(native_at(dt, fetched, (size_t)i) == got[1 + i],
                              "%s: fetched element %d is %.17g, the column holds %.17g", what, i,
                              native_at(dt, fetched, (size_t)i), got[1 + i]);
                    free(got), free(wg), free(w), free(h);
                    tb_free(&V), tb_free(&W), tb_free(&H);
                }
    }
}

/* Two fetches in flight, then the sources overwritten: each wait delivers its start's values. */
static void test_fetch(ps__dtype dt) {
    for (int which = 0; which < 2; which++) {
        const ps__backend_ops *ops = which ? ps__backend_defaults() : be->ops;
        const char *who = which ? "default" : "backend";
        int counts[PS__FETCH_SLOTS] = {1 + ps_test_rand_int(8), 40 + ps_test_rand_int(200)};
        tbuf src[PS__FETCH_SLOTS];
        for (int sl = 0; sl < PS__FETCH_SLOTS; sl++) {
            src[sl] = tb_random(dt, counts[sl] + 2);
            CHECK(ops->fetch_start(be, dt, sl, counts[sl], vview(&src[sl], 2, 1)) == PS_SUCCESS,
                  "%s fetch_start: %s", who, be->err);
        }
        for (int sl = PS__FETCH_SLOTS - 1; sl >= 0; sl--) {
            double got[256 * 2];
            CHECK(ops->fetch_wait(be, dt, sl, counts[sl], vview(&src[sl], 2, 1), got) == PS_SUCCESS,
                  "%s fetch_wait: %s", who, be->err);
            int bad = 0;
            for (int i = 0; i < counts[sl]; i++)
                bad += native_at(dt, got, (size_t)i) != src[sl].host[2 + i];
            CHECK(!bad, "%s fetch slot %d (%s, %d elements): %d wrong", who, sl, dtname(dt),
                  counts[sl], bad);
            tb_free(&src[sl]);
        }
    }
}

/* y = A x for the square view s of A's mirror, and each row's sum of |terms| (its rounding's
 * scale). */
static void host_product(const tbuf *a, shape s, const double *x, double *y, double *mag) {
    for (int i = 0; i < s.rows; i++) {
        double sum = 0, m = 0;
        for (int j = 0; j < s.cols; j++) {
            sum += AT(*a, s, i, j) * x[j];
            m += fabs(AT(*a, s, i, j) * x[j]);
        }
        y[i] = sum;
        mag[i] = m;
    }
}

/* hold_matrix, then products on the held matrix, each right behind a kernel that rewrites
 * their x (scal): a backend that reads the held matrix ahead must still wait for x. Then a
 * product on another matrix after the hold has ended. */
static void test_hold_matrix(ps__dtype dt) {
    /* 2500: above the share of L2 a held matrix keeps there on CUDA (50 MB in double) */
    static const int orders[] = {1, 300, 1000, 2000, 2500};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++) {
        int n = orders[t];
        shape as = random_shape(n, n);
        tbuf A = tb_random(dt, shape_count(as)), X = tb_random(dt, n), Y = tb_random(dt, n);
        CHECK(ps__iter(be)->hold_matrix(be, dt, n, n, view(&A, as)) == PS_SUCCESS,
              "hold_matrix n=%d: %s", n, be->err);
        double *expect = malloc(sizeof(double) * (size_t)n), *mag = malloc(sizeof(double) * n);
        ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0);
        for (int round = 0; round < 6; round++) {
            const double factor = round % 2 ? -2 : 0.5; /* exact in both precisions */
            ps__scalar f = ps__scalar_of(dt, factor);
            CHECK(be->ops->scal(be, dt, n, &f, vview(&X, 0, 1)) == PS_SUCCESS, "scal: %s", be->err);
            for (int i = 0; i < n; i++) X.host[i] *= factor;
            CHECK(be->ops->gemv(be, dt, PS__NOTRANS, n, n, &one, view(&A, as), vview(&X, 0, 1),
                                &zero, vview(&Y, 0, 1)) == PS_SUCCESS,
                  "gemv on the held matrix: %s", be->err);
            host_product(&A, as, X.host, expect, mag);
            char what[80];
            snprintf(what, sizeof what, "gemv on the held matrix, %s n=%d round %d", dtname(dt), n,
                     round);
            expect_buffer(what, &Y, expect, mag, 2.0 * (n + 2));
        }
        ps__mat none = {NULL, 0, 1};
        CHECK(ps__iter(be)->hold_matrix(be, dt, 0, 0, none) == PS_SUCCESS, "hold_matrix end: %s",
              be->err);
        /* another matrix, written just before its product */
        tbuf B = tb_random(dt, shape_count(as));
        ps__scalar two = ps__scalar_of(dt, 2.0);
        CHECK(be->ops->scal(be, dt, shape_count(as), &two, vview(&B, 0, 1)) == PS_SUCCESS,
              "scal: %s", be->err);
        for (int e = 0; e < shape_count(as); e++) B.host[e] *= 2;
        CHECK(be->ops->gemv(be, dt, PS__NOTRANS, n, n, &one, view(&B, as), vview(&X, 0, 1), &zero,
                            vview(&Y, 0, 1)) == PS_SUCCESS,
              "gemv after the hold: %s", be->err);
        host_product(&B, as, X.host, expect, mag);
        char what[80];
        snprintf(what, sizeof what, "gemv after the hold, %s n=%d", dtname(dt), n);
        expect_buffer(what, &Y, expect, mag, 2.0 * (n + 2));
        free(expect), free(mag);
        tb_free(&A), tb_free(&B), tb_free(&X), tb_free(&Y);
    }
}

/* Whether got[e] == before[e] for every e in [from, to). */
static int unchanged(const double *got, const double *before, int from, int to) {
    for (int e = from; e < to; e++)
        if (got[e] != before[e]) return 0;
    return 1;
}

/* Whether the backend under test must take its path with the matrix resident on the chip
 * (arnoldi_steps, arnoldi_restart, cg_steps) at order n: CUDA at n <= 300 (16 rows
 * on each of 19 SMs, which any device with cooperative launch has; H100 and H200 take up to
 * 2048) unless cuda_resident=0 turned the path off. */
static int resident_path_expected(int n) {
    return strcmp(be->ops->name, "cuda") == 0 && n <= 300 && be->tuning->cuda_resident != 0;
}

/* Steps 0 .. j1 - 1 queued and at once cancelled (arnoldi_cancel): the steps taken must be a
 * prefix, 0 .. *taken - 1, with nothing written past it (their columns and V's columns as they
 * were). The caller then queues the rest from *taken, which the cancel must not stop. */
static ps_status cancelled_call(ps__dtype dt, int n, const tbuf *A, shape as, ps__vec dinv, tbuf *V,
                                shape vs, tbuf *C, int stride, int j1, const double *v_before,
                                const double *c_before, const char *what, int *taken) {
    *taken = 0;
    ps_status st = ps__iter(be)->arnoldi_steps(be, dt, n, view(A, as), dinv, view(V, vs), 0, j1,
                                               vview(C, 1, 1), stride, -1);
    if (st != PS_SUCCESS) return st;
    ps__iter(be)->arnoldi_cancel(be);
    double *vg = tb_download(V), *cg = tb_download(C);
    int t = 0; /* the first step whose norm is still the buffer's old value */
    while (t < j1 && cg[1 + (size_t)t * stride + 2 * (t + 1)] !=
                         c_before[1 + (size_t)t * stride + 2 * (t + 1)])
        t++;
    int same = 1;
    for (int j = t; j < j1; j++) {
        for (int e = 0; e < 2 * (j + 1) + 1; e++)
            same &= cg[1 + (size_t)j * stride + e] == c_before[1 + (size_t)j * stride + e];
        for (int i = 0; i < n; i++) {
            size_t e = vs.off + (size_t)i + (size_t)(j + 1) * (size_t)vs.ld;
            same &= vg[e] == v_before[e];
        }
    }
    CHECK(same, "%s: the cancelled call took %d of %d steps, then wrote past them", what, t, j1);
    free(vg), free(cg);
    *taken = t;
    return PS_SUCCESS;
}

/* Steps 0 .. j1 - 1 against CGS2 on the host, each judged from the backend's own basis vg
 * (view vs; so that one step's rounding does not carry into the next one's check) and its
 * columns cols (stride apart): the coefficients, the norm and v_{j+1}. d: dinv's mirror or NULL. */
static void check_steps(ps__dtype dt, int n, const tbuf *A, shape as, const double *d,
                        const double *vg, shape vs, const double *cols, int stride, int j1,
                        const char *what) {
    double *x = malloc(sizeof(double) * (size_t)n), *w = malloc(sizeof(double) * n),
           *h = malloc(sizeof(double) * (size_t)(2 * j1 + 1));
    for (int j = 0; j < j1; j++) {
        int k = j + 1;
        const double *col = cols + (size_t)j * (size_t)stride;
        double wmag = 1;
        for (int i = 0; i < n; i++)
            x[i] = round_to(dt, vg[vs.off + i + (size_t)j * vs.ld] * (d ? d[i] : 1.0));
        for (int i = 0; i < n; i++) {
            double sum = 0;
            for (int c = 0; c < n; c++) {
                sum += AT(*A, as, i, c) * x[c];
                wmag += fabs(AT(*A, as, i, c) * x[c]);
            }
            w[i] = sum;
        }
        double nrm = host_cgs2(dt, vg, vs, n, k, w, h);
        /* as test_orthonormalize's bounds, the first pass's sum and the second's split judged
         * together (a backend may form the product otherwise) */
        double tol_h = 8 * (n + k + 2) * eps_of(dt) * wmag * (1 + k);
        int bad = 0;
        for (int c = 0; c < k; c++) bad += !(fabs(col[c] + col[k + c] - h[c] - h[k + c]) <= tol_h);
        double tol_w = 16 * (n + k + 2) * eps_of(dt) * wmag * (1 + k) * (1 + k);
        double tol_nrm = (n + 2) * eps_of(dt) * nrm + sqrt((double)n) * tol_w;
        CHECK(!bad && fabs(col[2 * k] - nrm) <= tol_nrm,
              "%s step %d: %d of %d coefficients off (first %.17g vs %.17g), norm %.17g vs %.17g "
              "(tol %.3g)",
              what, j, bad, k, col[0] + col[k], h[0] + h[k], col[2 * k], nrm, tol_nrm);
        if (k == n) break; /* the space is exhausted: v_{j+1} is rounding */
        double err = 0;
        for (int i = 0; i < n; i++) {
            double e = fabs(vg[vs.off + i + (size_t)k * vs.ld] * nrm - w[i]);
            if (!(e <= err)) err = e;
        }
        CHECK(err <= tol_w, "%s step %d: v_{j+1} off by %.3g (tol %.3g)", what, j, err, tol_w);
    }
    free(x), free(w), free(h);
}

/* arnoldi_steps against CGS2 on the host, each step judged from the backend's own basis (so
 * that one step's rounding does not carry into the next one's check): steps 0 .. j1 - 1 in two
 * calls as GMRES makes them (0 .. j0 - 1 and j0 .. j1 - 1) or as a cancelled call and the rest
 * (cancelled_call), with and without dinv, through a fetch slot or not, V and A as views with
 * lda > n. A backend without the path for a case must
 * say PS_ERR_NOT_SUPPORTED and leave V and the columns as they were. */
static void test_arnoldi_steps(ps__dtype dt) {
    static const int orders[] = {1, 2, 3, 7, 300, 1000, 2000, 2048, 2049};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int pc = 0; pc < 2; pc++) {
            int n = orders[t];
            int j1 = n < 36 ? n : 20 + ps_test_rand_int(17);
            int j0 = j1 > 1 ? ps_test_rand_int(j1) : 0; /* 0: one call */
            int stride = 2 * j1 + 1 + ps_test_rand_int(3), slot = ps_test_rand_int(3) - 1;
            int cancel = ps_test_rand_int(3) == 0; /* a call cancelled, then the rest */
            shape as = random_shape(n, n), vs = random_shape(n, j1 + 1);
            tbuf A = tb_random(dt, shape_count(as)), V = tb_random(dt, shape_count(vs)),
                 D = tb_random(dt, n), C = tb_random(dt, stride * j1 + 2);
            for (int i = 0; i < n; i++) D.host[i] = 0.5 + fabs(D.host[i]);
            orthonormal_columns(dt, &V, vs, n, 1);
            upload_all(&A), upload_all(&V), upload_all(&D), upload_all(&C);
            double *v_before = copy_of(&V), *c_before = copy_of(&C);
            ps__vec dinv = {NULL, 0, 1};
            if (pc) dinv = vview(&D, 0, 1);
            char what[96];
            snprintf(what, sizeof what, "arnoldi_steps %s n=%d steps 0..%d..%d%s%s", dtname(dt), n,
                     j0, j1, pc ? " dinv" : "", cancel && j1 > 1 ? " cancelled" : "");
            ps_status st = PS_SUCCESS;
            double *fetched = malloc(sizeof(double) * (size_t)(stride * j1));
            double *prefix = malloc(sizeof(double) * (size_t)(stride * j1));
            int prefix_from = -1; /* the first step of the call whose prefix was fetched */
            int lo = 0, hi = j0 ? j0 : j1;
            if (cancel && j1 > 1)
                st = cancelled_call(dt, n, &A, as, dinv, &V, vs, &C, stride, j1, v_before, c_before,
                                    what, &lo);
            if (lo > 0) hi = j1;          /* the rest in one call */
            const int first_fetched = lo; /* the steps fetched through the slot: from here */
            while (lo < j1 && st == PS_SUCCESS) {
                st = ps__iter(be)->arnoldi_steps(be, dt, n, view(&A, as), dinv, view(&V, vs), lo,
                                                 hi, vview(&C, 1 + (size_t)lo * (size_t)stride, 1),
                                                 stride, slot);
                if (st == PS_SUCCESS && slot >= 0 && hi - lo > PS__ARNOLDI_CHECKPOINT) {
                    /* a prefix first, as GMRES reads it (CUDA: before the call ends) */
                    ps__vec src = vview(&C, 1 + (size_t)lo * (size_t)stride, 1);
                    double raw[8192];
                    const int count = PS__ARNOLDI_CHECKPOINT * stride;
                    CHECK(be->ops->fetch_wait(be, dt, slot, count, src, raw) == PS_SUCCESS,
                          "%s: fetch_wait of a prefix: %s", what, be->err);
                    for (int e = 0; e < count; e++)
                        prefix[lo * stride + e] = native_at(dt, raw, (size_t)e);
                    prefix_from = lo;
                }
                if (st == PS_SUCCESS && slot >= 0) {
                    ps__vec src = vview(&C, 1 + (size_t)lo * (size_t)stride, 1);
                    double raw[8192];
                    CHECK(be->ops->fetch_wait(be, dt, slot, (hi - lo) * stride, src, raw) ==
                              PS_SUCCESS,
                          "%s: fetch_wait: %s", what, be->err);
                    for (int e = 0; e < (hi - lo) * stride; e++)
                        fetched[lo * stride + e] = native_at(dt, raw, (size_t)e);
                }
                lo = hi, hi = j1;
            }
            double *vg = tb_download(&V), *cg = tb_download(&C);
            if (st == PS_ERR_NOT_SUPPORTED) {
                CHECK(!resident_path_expected(n), "%s: declined (the path is expected)", what);
                int same =
                    unchanged(vg, v_before, 0, V.count) && unchanged(cg, c_before, 0, C.count);
                CHECK(same, "%s: declined but wrote V or the columns", what);
            } else {
                CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
                CHECK(cg[0] == c_before[0] && cg[1 + stride * j1] == c_before[1 + stride * j1],
                      "%s: wrote outside the columns", what);
                check_steps(dt, n, &A, as, pc ? D.host : NULL, vg, vs, cg + 1, stride, j1, what);
                /* the columns, not what lies between */
                for (int j = first_fetched; slot >= 0 && j < j1; j++)
                    for (int e = j * stride; e < j * stride + 2 * j + 3; e++)
                        CHECK(fetched[e] == cg[1 + e], "%s: fetched element %d is %.17g, not %.17g",
                              what, e, fetched[e], cg[1 + e]);
                for (int j = prefix_from;
                     prefix_from >= 0 && j < prefix_from + PS__ARNOLDI_CHECKPOINT; j++)
                    for (int e = j * stride; e < j * stride + 2 * j + 3; e++)
                        CHECK(prefix[e] == cg[1 + e],
                              "%s: element %d of the fetched prefix is %.17g, not %.17g", what, e,
                              prefix[e], cg[1 + e]);
            }
            free(vg), free(cg), free(v_before), free(c_before), free(fetched), free(prefix);
            tb_free(&A), tb_free(&V), tb_free(&D), tb_free(&C);
        }
}

/* x += dinv .* (V(:, 0 .. ky) y) on the host, against the backend's x (elements from + i of
 * got and before): the count of elements off by more than the sums' rounding. */
static int update_errors(ps__dtype dt, int n, const tbuf *V, shape vs, int ky, const double *y,
                         const double *dinv, const double *got, const double *before, int from) {
    int bad = 0;
    for (int i = 0; i < n; i++) {
        double sum = 0, mag = 0;
        for (int c = 0; c < ky; c++) {
            sum += AT(*V, vs, i, c) * y[c];
            mag += fabs(AT(*V, vs, i, c) * y[c]);
        }
        double di = dinv ? dinv[i] : 1.0, expect = before[from + i] + di * sum;
        double tol = (ky + 4) * eps_of(dt) * (fabs(before[from + i]) + di * mag);
        bad += !(fabs(got[from + i] - expect) <= tol);
    }
    return bad;
}

/* gmres_update_x: x += dinv .* (V y) against the host's, ky from 0 to 65 (one past what CUDA
 * takes), V with a leading dimension past n, with and without dinv, orders 0 to 2500; nothing
 * is written outside x. A backend without the path must say PS_ERR_NOT_SUPPORTED and leave x as
 * it was; CUDA and OpenCL must take ky <= 64, and the default with
 * arnoldi_composed=1 every call without dinv. */
static void test_gmres_update_x(ps__dtype dt) {
    static const int orders[] = {0, 1, 2, 3, 7, 300, 2500};
    static const int kys[] = {0, 1, 5, 35, 64, 65};
    int composed = be->tuning->arnoldi_composed;
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int variant = 0; variant < 4; variant++) {
            int n = orders[t], pc = variant & 1;
            int ky = kys[ps_test_rand_int((int)(sizeof kys / sizeof kys[0]))];
            shape vs = random_shape(n, ky + 1);
            tbuf V = tb_random(dt, shape_count(vs)), D = tb_random(dt, n + 1),
                 X = tb_random(dt, n + 4);
            for (int i = 0; i < n; i++) D.host[i] = 0.5 + fabs(D.host[i]);
            double *y = malloc(sizeof(double) * (size_t)(ky + 1));
            for (int c = 0; c < ky; c++) y[c] = ps_test_rand();
            upload_all(&V), upload_all(&D), upload_all(&X);
            double *x_before = copy_of(&X);
            ps__vec dinv = {NULL, 0, 1};
            if (pc) dinv = vview(&D, 0, 1);
            char what[96];
            snprintf(what, sizeof what, "gmres_update_x %s n=%d ky=%d%s", dtname(dt), n, ky,
                     pc ? " dinv" : "");
            ps_status st =
                ps__iter(be)->gmres_update_x(be, dt, n, view(&V, vs), ky, y, dinv, vview(&X, 2, 1));
            double *xg = tb_download(&X);
            if (st == PS_ERR_NOT_SUPPORTED) {
                int own =
                    strcmp(be->ops->name, "cuda") == 0 || strcmp(be->ops->name, "opencl") == 0;
                int expected = own ? ky <= 64 : composed && !pc;
                CHECK(!expected, "%s: declined (the path is expected)", what);
                CHECK(unchanged(xg, x_before, 0, X.count), "%s: declined but wrote x", what);
            } else {
                CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
                CHECK(unchanged(xg, x_before, 0, 2) && unchanged(xg, x_before, 2 + n, X.count),
                      "%s: wrote outside x", what);
                int bad = update_errors(dt, n, &V, vs, ky, y, pc ? D.host : NULL, xg, x_before, 2);
                CHECK(!bad, "%s: %d of %d elements of x off", what, bad, n);
            }
            free(xg), free(x_before), free(y);
            tb_free(&V), tb_free(&D), tb_free(&X);
        }
}

/* arnoldi_restart: x += dinv .* (V y) against the host's, beta = ||b - A x|| and v_0 = r / beta
 * from the backend's own x, then the steps as check_steps judges them; a zero residual (x = 0,
 * b = 0) writes beta = 0 and v_0 = r and nothing more. A backend without the path must say
 * PS_ERR_NOT_SUPPORTED and leave x, V and out as they were; CUDA must take it where
 * arnoldi_steps must. */
static void test_arnoldi_restart(ps__dtype dt) {
    static const int orders[] = {1, 2, 3, 7, 300, 1000, 2000, 2500};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int variant = 0; variant < 3; variant++) {
            int n = orders[t], pc = variant == 1, zero = variant == 2;
            int j1 = n < 36 ? n : 20 + ps_test_rand_int(17);
            int m = j1 + ps_test_rand_int(4), ky = zero ? 0 : ps_test_rand_int(m + 1);
            int stride = 2 * j1 + 1 + ps_test_rand_int(3), slot = ps_test_rand_int(3) - 1;
            shape as = random_shape(n, n), vs = random_shape(n, m + 1);
            tbuf A = tb_random(dt, shape_count(as)), V = tb_random(dt, shape_count(vs)),
                 D = tb_random(dt, n), X = tb_random(dt, n + 2), B = tb_random(dt, n + 1),
                 C = tb_random(dt, stride * j1 + 3);
            for (int i = 0; i < n; i++) D.host[i] = 0.5 + fabs(D.host[i]);
            for (int i = 0; zero && i < n; i++) X.host[2 + i] = B.host[1 + i] = 0;
            double *y = malloc(sizeof(double) * (size_t)(ky + 1));
            for (int c = 0; c < ky; c++) y[c] = ps_test_rand();
            upload_all(&A), upload_all(&V), upload_all(&D), upload_all(&X), upload_all(&B),
                upload_all(&C);
            double *v_before = copy_of(&V), *c_before = copy_of(&C), *x_before = copy_of(&X);
            ps__vec dinv = {NULL, 0, 1};
            if (pc) dinv = vview(&D, 0, 1);
            char what[96];
            snprintf(what, sizeof what, "arnoldi_restart %s n=%d ky=%d steps %d%s%s", dtname(dt), n,
                     ky, j1, pc ? " dinv" : "", zero ? " zero residual" : "");
            ps__vec out = vview(&C, 1, 1);
            ps_status st = ps__iter(be)->arnoldi_restart(
                be, dt, n, view(&A, as), dinv, vview(&B, 1, 1), vview(&X, 2, 1), view(&V, vs), ky,
                y, j1, out, stride, slot);
            double *fetched = malloc(sizeof(double) * (size_t)(1 + stride * j1));
            if (st == PS_SUCCESS && slot >= 0) {
                double raw[8192];
                CHECK(be->ops->fetch_wait(be, dt, slot, 1 + j1 * stride, out, raw) == PS_SUCCESS,
                      "%s: fetch_wait: %s", what, be->err);
                for (int e = 0; e < 1 + j1 * stride; e++)
                    fetched[e] = native_at(dt, raw, (size_t)e);
            }
            double *vg = tb_download(&V), *cg = tb_download(&C), *xg = tb_download(&X);
            if (st == PS_ERR_NOT_SUPPORTED) {
                CHECK(!resident_path_expected(n), "%s: declined (the path is expected)", what);
                int same = unchanged(vg, v_before, 0, V.count) &&
                           unchanged(cg, c_before, 0, C.count) &&
                           unchanged(xg, x_before, 0, X.count);
                CHECK(same, "%s: declined but wrote x, V or out", what);
            } else {
                CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
            }
            if (st == PS_SUCCESS) {
                CHECK(cg[0] == c_before[0] && cg[2 + stride * j1] == c_before[2 + stride * j1] &&
                          xg[0] == x_before[0] && xg[1] == x_before[1],
                      "%s: wrote outside x or out", what);
                int bad = update_errors(dt, n, &V, vs, ky, y, pc ? D.host : NULL, xg, x_before, 2);
                CHECK(!bad, "%s: %d of %d elements of x off", what, bad, n);
                /* r = b - A x from the backend's x, its norm and v_0 */
                double *r = malloc(sizeof(double) * (size_t)(n + 1)), ss = 0, rmag = 0, rmax = 0;
                for (int i = 0; i < n; i++) {
                    double sum = B.host[1 + i], mag = fabs(B.host[1 + i]);
                    for (int c = 0; c < n; c++) {
                        sum -= AT(A, as, i, c) * xg[2 + c];
                        mag += fabs(AT(A, as, i, c) * xg[2 + c]);
                    }
                    r[i] = sum, ss += sum * sum;
                    if (mag > rmag) rmag = mag;
                    if (fabs(sum) > rmax) rmax = fabs(sum);
                }
                double beta = sqrt(ss), tol_r = 2 * (n + 2) * eps_of(dt) * rmag;
                double got = cg[1];
                CHECK(fabs(got - beta) <= sqrt((double)n) * tol_r + 2 * eps_of(dt) * beta,
                      "%s: beta %.17g, expected %.17g", what, got, beta);
                double err = 0;
                for (int i = 0; i < n; i++) {
                    double e = fabs(vg[vs.off + i] * (got > 0 ? got : 1.0) - r[i]);
                    if (!(e <= err)) err = e;
                }
                CHECK(err <= tol_r + 4 * eps_of(dt) * rmax, "%s: v_0 off by %.3g (tol %.3g)", what,
                      err, tol_r + 4 * eps_of(dt) * rmax);
                if (zero) {
                    CHECK(got == 0, "%s: beta %.17g for a zero residual", what, got);
                    int same = unchanged(cg, c_before, 2, C.count);
                    for (int c = 1; c <= m; c++)
                        for (int i = 0; i < n; i++) {
                            size_t e = vs.off + (size_t)i + (size_t)c * (size_t)vs.ld;
                            same &= vg[e] == v_before[e];
                        }
                    CHECK(same, "%s: wrote steps after a zero residual", what);
                } else {
                    check_steps(dt, n, &A, as, pc ? D.host : NULL, vg, vs, cg + 2, stride, j1,
                                what);
                }
                for (int e = 0; slot >= 0 && e < 1 + j1 * stride; e++) {
                    int in_col = e == 0 || (e - 1) % stride < 2 * ((e - 1) / stride) + 3;
                    if (in_col && !(zero && e > 0))
                        CHECK(fetched[e] == cg[1 + e], "%s: fetched element %d is %.17g, not %.17g",
                              what, e, fetched[e], cg[1 + e]);
                }
                free(r);
            }
            free(vg), free(cg), free(xg), free(v_before), free(c_before), free(x_before);
            free(fetched), free(y);
            tb_free(&A), tb_free(&V), tb_free(&D), tb_free(&X), tb_free(&B), tb_free(&C);
        }
}

/* An SPD matrix of condition about 2 (3 I plus a symmetric part of entries in (-1, 1) /
 * sqrt(n)), on which CG's steps stay within rounding of each other whatever the order of their
 * sums. */
static tbuf spd_matrix(ps__dtype dt, int n, shape as) {
    tbuf A = tb_random(dt, shape_count(as));
    double scale = 1 / sqrt((double)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j; i++) {
            double v = i == j ? 3 : round_to(dt, AT(A, as, i, j) * scale);
            AT(A, as, i, j) = AT(A, as, j, i) = v;
        }
    return A;
}

/* The largest |e[i]| over [from, to) plus 1e-300. */
static double largest(const double *e, int from, int to, int step) {
    double m = 1e-300;
    for (int i = from; i < to; i += step) m = fabs(e[i]) > m ? fabs(e[i]) : m;
    return m;
}

/* The rr below which CG's steps from the blocks b (the start's measured in block 1) are
 * rounding noise, where two orders of summation part ways (and rr may reach 0 at different
 * steps). */
static double noise_floor(ps__dtype dt, int n, const double *b) {
    double f = 4096 * (n + 4) * eps_of(dt);
    return b[PS__CG_SCALARS + PS__CG_RR] * f * f;
}

/* cg_steps against the backend's own per-step calls (gemv, then cg_step, which the cg_step
 * group checks against the host) from the same start: every vector and every step's block
 * agree to rounding (the products may be summed in another order), the stop fields exactly,
 * while the steps' residuals stay above rounding's floor (past it, on the steps of a small
 * order that has converged, the two part ways); w is scratch.
 * mode 0: steps from a first update; 1 with the Jacobi scaling; 2 a stop within the call
 * (stop_rr between two steps' rr, from a first run of the reference); 3 stopped on entry
 * (nothing changes, the blocks are copies). The call's last step may measure only (`last`).
 * The fetched blocks must be the blocks; a refusal must leave everything as it was. */
static void test_cg_steps(ps__dtype dt) {
    static const int orders[] = {1, 2, 3, 17, 300, 2000, 2049};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int mode = 0; mode < 4; mode++) {
            int n = orders[t], count = 1 + ps_test_rand_int(PS__CG_STEPS_PER_CALL_TEST);
            /* the last step measuring only, as CG's driver asks for it (the steps after such a
             * step would go on from a block whose alpha is not its gamma's) */
            int last = ps_test_rand_int(3) == 0 ? count - 1 : -1;
            int slot = ps_test_rand_int(PS__FETCH_SLOTS + 1) - 1, pre = mode == 1;
            shape as = random_shape(n, n);
            tbuf A = spd_matrix(dt, n, as);
            upload_all(&A);
            tbuf v[2][NV], blk[2];
            for (int k = 0; k < NV; k++) {
                v[0][k] = tb_random(dt, n);
                if (k == VD)
                    for (int i = 0; i < n; i++) v[0][k].host[i] = 0.5 + fabs(v[0][k].host[i]);
            }
            for (int i = 0; i < n; i++) /* u = dinv .* r */
                v[0][VU].host[i] = round_to(dt, v[0][VD].host[i] * v[0][VR].host[i]);
            const int blocks = (count + 1) * PS__CG_SCALARS;
            blk[0] = tb_random(dt, blocks);
            double in[PS__CG_SCALARS] = {1, 1, 1, 1e30, 0, mode == 3 ? PS__CG_STOP_RZ : 0};
            for (int e = 0; e < PS__CG_SCALARS; e++) blk[0].host[e] = in[e];
            for (int c = 0; c < 2; c++) { /* set 1: the reference's copy */
                if (c) blk[1] = tb_random(dt, blocks);
                for (int k = 0; k < NV && c; k++) v[1][k] = tb_random(dt, n);
                for (int k = 0; k < NV && c; k++)
                    memcpy(v[1][k].host, v[0][k].host, sizeof(double) * (size_t)n);
                if (c) memcpy(blk[1].host, blk[0].host, sizeof(double) * (size_t)blocks);
                for (int k = 0; k < NV; k++) upload_all(&v[c][k]);
                upload_all(&blk[c]);
            }
            ps__cg_vectors cv[2];
            for (int c = 0; c < 2; c++) {
                ps__cg_vectors x = {vview(&v[c][VX], 0, 1),
                                    vview(&v[c][VR], 0, 1),
                                    vview(&v[c][pre ? VU : VR], 0, 1),
                                    vview(&v[c][VW], 0, 1),
                                    vview(&v[c][VP], 0, 1),
                                    vview(&v[c][VS], 0, 1),
                                    vview(&v[c][VD], 0, 1),
                                    vview(&v[c][VB], 0, 1)};
                if (!pre) x.dinv.buf = NULL;
                cv[c] = x;
            }
            /* the reference: per-step calls; mode 2 first finds stop_rr from a dry run's rr */
            ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0);
            double stop_rr = 0;
            int stop_at = -1;
            for (int run = mode == 2 ? 0 : 1; run < 2; run++) {
                for (int k = 0; k < NV; k++) upload_all(&v[1][k]);
                upload_all(&blk[1]);
                for (int i = 0; i < count; i++) {
                    CHECK(be->ops->gemv(be, dt, PS__NOTRANS, n, n, &one, view(&A, as), cv[1].u,
                                        &zero, cv[1].w) == PS_SUCCESS,
                          "gemv: %s", be->err);
                    CHECK(ps__iter(be)->cg_step(be, dt, n, &cv[1],
                                                vview(&blk[1], (size_t)i * PS__CG_SCALARS, 1),
                                                vview(&blk[1], (size_t)(i + 1) * PS__CG_SCALARS, 1),
                                                stop_rr, i == last, -1) == PS_SUCCESS,
                          "cg_step: %s", be->err);
                }
                if (run == 0) { /* the stop: at the step whose rr falls furthest below all
                                 * before it, stop_rr halfway (geometrically) between */
                    double *b = tb_download(&blk[1]), best_gap = 0, low = INFINITY;
                    const double floor = noise_floor(dt, n, b);
                    for (int k = 1; k <= count; k++) {
                        const double *blk_k = b + (size_t)k * PS__CG_SCALARS;
                        double rr = blk_k[PS__CG_RR], above = k > 1 ? low : 4 * rr;
                        if (!(rr > floor)) break;
                        if (above / rr > best_gap) {
                            best_gap = above / rr;
                            stop_at = k - 1;
                            stop_rr = sqrt(rr) * sqrt(above); /* no underflow */
                        }
                        if (blk_k[PS__CG_STOP] != 0) break;
                        low = rr < low ? rr : low;
                    }
                    free(b);
                }
            }
            char what[112];
            snprintf(what, sizeof what, "cg_steps %s n=%d mode %d count %d last %d", dtname(dt), n,
                     mode, count, last);
            double *before[NV], *blk_before = copy_of(&blk[0]);
            for (int k = 0; k < NV; k++) before[k] = copy_of(&v[0][k]);
            ps_status st = ps__iter(be)->cg_steps(
                be, dt, n, view(&A, as), &cv[0], vview(&blk[0], 0, 1),
                vview(&blk[0], PS__CG_SCALARS, 1), count, stop_rr, last, slot);
            double *got_blk = tb_download(&blk[0]), *ref_blk = tb_download(&blk[1]);
            CHECK(mode != 2 ||
                      (stop_at >= 0 && ref_blk[(stop_at + 1) * PS__CG_SCALARS + PS__CG_STOP] ==
                                           PS__CG_STOP_CONVERGED),
                  "cg_steps mode 2 sets up a stop (at step %d of %d)", stop_at, count);
            if (st == PS_ERR_NOT_SUPPORTED) {
                CHECK(!resident_path_expected(n), "%s: declined (the path is expected)", what);
                int same = unchanged(got_blk, blk_before, 0, blocks);
                for (int k = 0; k < NV; k++) {
                    double *g = tb_download(&v[0][k]);
                    same = same && unchanged(g, before[k], 0, n);
                    free(g);
                }
                CHECK(same, "%s: declined but wrote a vector or a block", what);
            } else {
                CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
                if (slot >= 0) {
                    double raw[(PS__CG_STEPS_PER_CALL_TEST + 1) * PS__CG_SCALARS];
                    CHECK(be->ops->fetch_wait(be, dt, slot, count * PS__CG_SCALARS,
                                              vview(&blk[0], PS__CG_SCALARS, 1), raw) == PS_SUCCESS,
                          "%s: fetch_wait: %s", what, be->err);
                    for (int e = 0; e < count * PS__CG_SCALARS; e++)
                        CHECK(native_at(dt, raw, (size_t)e) == got_blk[PS__CG_SCALARS + e],
                              "%s: fetched element %d is %.17g, the block holds %.17g", what, e,
                              native_at(dt, raw, (size_t)e), got_blk[PS__CG_SCALARS + e]);
                }
                /* rounding of n-term sums, carried through the steps */
                const double tol = 4.0 * (count + 1) * (n + 4), floor = noise_floor(dt, n, ref_blk);
                int clear = 1; /* the steps so far measured residuals above rounding's floor */
                for (int e = 0; e < blocks; e++) {
                    int field = e % PS__CG_SCALARS;
                    if (field == 0 && e > 0) clear = clear && ref_blk[e + PS__CG_RR] > floor;
                    if (!clear) break; /* steps on noise: the two orders of sums part ways */
                    double scale = largest(ref_blk, field, blocks, PS__CG_SCALARS);
                    double allowed =
                        field == PS__CG_STOP || e < PS__CG_SCALARS ? 0 : tol * eps_of(dt) * scale;
                    CHECK(fabs(got_blk[e] - ref_blk[e]) <= allowed,
                          "%s: block %d element %d is %.17g, the per-step calls' %.17g", what,
                          e / PS__CG_SCALARS - 1, field, got_blk[e], ref_blk[e]);
                }
                for (int k = 0; k < NV; k++) {
                    if (k == VD || k == VW || (k == VU && !pre))
                        continue; /* read only, scratch, or r */
                    double *ref = tb_download(&v[1][k]);
                    double *mag = malloc(sizeof(double) * (size_t)n);
                    double scale = largest(before[k], 0, n, 1) + largest(ref, 0, n, 1);
                    for (int i = 0; i < n; i++) mag[i] = scale;
                    char vwhat[140];
                    snprintf(vwhat, sizeof vwhat, "%s vector %d", what, k);
                    expect_buffer(vwhat, &v[0][k], ref, mag, tol);
                    free(ref), free(mag);
                }
            }
            free(got_blk), free(ref_blk), free(blk_before);
            for (int k = 0; k < NV; k++) free(before[k]), tb_free(&v[0][k]), tb_free(&v[1][k]);
            tb_free(&blk[0]), tb_free(&blk[1]), tb_free(&A);
        }
}

static void run_all(ps__dtype dt) {
    static const struct {
        const char *name;
        void (*run)(ps__dtype);
    } groups[] = {{"cg_steps", test_cg_steps},
                  {"gmres_update_x", test_gmres_update_x},
                  {"arnoldi_restart", test_arnoldi_restart},
                  {"arnoldi_steps", test_arnoldi_steps},
                  {"hold_matrix", test_hold_matrix},
                  {"cg_step", test_cg_step},
                  {"orthonormalize", test_orthonormalize},
                  {"fetch", test_fetch}};
    const char *only = ps_test_case(); /* --case NAME: one group (a sanitizer's run) */
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        if (!only || strcmp(only, groups[g].name) == 0) groups[g].run(dt);
}

int main(int argc, char **argv) {
    return vtable_main(argc, argv, "test_vtable_iter", run_all);
}
