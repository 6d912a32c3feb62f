/*
 * The WZ vtable entries on the backend given by --backend, and their portable defaults, against
 * the CPU backend's plain loops (the oracle): the step-order panel kernel (pivoted and not,
 * odd widths ending with the middle step, a step whose every corner is singular, info already
 * set; its pivots and info against the oracle's, its factors by their backward error), the
 * natural-layout corner step of the vector form (likewise: its multipliers by their residual),
 * the reorder between natural and
 * step order (exact), and the diagonal-block Z solve. Views have random offsets and leading
 * dimensions.
 */
#include "vtable_harness.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The device buffer against the oracle's native array: |diff| <= tol eps max|oracle|. */
static int matches(const char *what, const tbuf *b, const void *oracle, double tol) {
    double *e = malloc(sizeof(double) * (size_t)b->count), *mag = malloc(sizeof(double) * b->count);
    double scale = 1;
    for (int i = 0; i < b->count; i++) {
        e[i] = b->dt == PS__INT32 ? ((const int32_t *)oracle)[i] : native_at(b->dt, oracle, i);
        scale = fmax(scale, fabs(e[i]));
    }
    for (int i = 0; i < b->count; i++) mag[i] = scale;
    int ok = expect_buffer(what, b, e, b->dt == PS__INT32 || tol == 0 ? NULL : mag, tol);
    free(e), free(mag);
    return ok;
}

/* |L_C| |U_C| for the 2 x 2 corner c (row-major) as core/wz/wz_corner.h solves with it: Gaussian
 * elimination with partial pivoting of c^T. Returned in c's orientation and row order, so that
 * a row x of multipliers solved from x c = b has residual |b - x c| <= gamma |x| mag. */
static void corner_magnitude(const double c[4], double mag[4]) {
    /* c^T = [c0 c2; c1 c3]; its rows swap when |c1| > |c0| */
    int swap = fabs(c[1]) > fabs(c[0]);
    double p0 = swap ? c[1] : c[0], p1 = swap ? c[3] : c[2]; /* the pivot row of c^T */
    double r0 = swap ? c[0] : c[1], r1 = swap ? c[2] : c[3];
    double l = p0 != 0 ? r0 / p0 : 0, u = r1 - l * p1;
    /* |L||U| of the swapped c^T: [|p0| |p1|; |l||p0| |l||p1| + |u|], rows back in place */
    double t[4] = {fabs(p0), fabs(p1), fabs(l * p0), fabs(l * p1) + fabs(u)};
    double ct[4] = {swap ? t[2] : t[0], swap ? t[3] : t[1], swap ? t[0] : t[2],
                    swap ? t[1] : t[3]}; /* rows of c^T: ct[0..1] row 0, ct[2..3] row 1 */
    mag[0] = ct[0], mag[1] = ct[2], mag[2] = ct[1], mag[3] = ct[3]; /* transposed back */
}

/*
 * Whether the m x w step-order panel ga (view s of a buffer of count elements; zsub[t] at z[1 +
 * 2t], pivots piv[] relative to the panel) holds WZ factors of the input a0: P a0 = L Z within
 * 2 (terms + 2) eps (|L||Z|)_ij, Higham's componentwise bound for LU, plus, in a step's own two
 * columns below its corner, 4 eps (|w| |L_C||U_C|)_j: the multipliers w of a row are solved
 * from w C = b by Gaussian elimination with partial pivoting, whose residual is bounded by the
 * corner's factors, not by |C| (a nearly singular corner makes them far apart). L is the unit
 * lower triangle (zero at the corners' lower-left), Z the upper triangle with zsub[s] at
 * (2s+1, 2s). Elements outside the view must be unchanged. skip_first_step: the first step
 * failed (its multipliers are 0, so the rows below keep their first two columns unreduced,
 * which the check then leaves out). Judged this way rather than by elementwise agreement with
 * the oracle's factors, which a small corner determinant breaks between two correct
 * factorizations (docs/EXTENDING.md).
 */
static int wz_factors_ok(ps__dtype dt, int m, int w, shape s, const double *a0, const int *piv,
                         const double *ga, const double *z, int count, int skip_first_step) {
    /* P a0 (ld m), the interchanges in the order recorded: t = 2s, then 2s + 1 */
    double *pa = rows_interchanged(s, m, w, a0, piv, w);
    int ok = outside_view_kept(s, m, w, a0, ga, count) && pa;
#define G(i, j) ga[s.off + (size_t)(i) + (size_t)(j) * (size_t)s.ld]
    for (int j = 0; j < w && ok; j++)
        for (int i = 0; i < m && ok; i++) {
            if (skip_first_step && i >= 2 && j < 2) continue;
            int last = i < j + 1 ? i : j + 1; /* L(i, p) Z(p, j) is zero beyond p = last */
            if (last > w - 1) last = w - 1;   /* (L has w columns) */
            double lz = 0, mag = 0;           /* (L Z)(i, j) and (|L||Z|)(i, j) */
            double corner = 0;                /* (|w| |L_C||U_C|)_j, below a step's corner */
            int c0 = j - j % 2;
            if (c0 + 1 < w && i > c0 + 1) {
                double c[4] = {G(c0, c0), G(c0, c0 + 1), z[1 + 2 * (j / 2)], G(c0 + 1, c0 + 1)};
                double cm[4];
                corner_magnitude(c, cm);
                corner = fabs(G(i, c0)) * cm[j - c0] + fabs(G(i, c0 + 1)) * cm[2 + j - c0];
            }
            for (int p = 0; p <= last; p++) {
                double l = p == i ? 1.0 : G(i, p);
                double zz = p <= j                              ? G(p, j)
                            : p == j + 1 && j % 2 == 0 && p < w ? z[1 + 2 * (j / 2)]
                                                                : 0.0;
                lz += l * zz;
                mag += fabs(l) * fabs(zz);
            }
            double bound = (2.0 * (last + 3) * mag + 4.0 * corner) * eps_of(dt) + DBL_MIN;
            if (fabs(pa[i + (size_t)j * m] - lz) > bound) ok = 0;
        }
#undef G
    free(pa);
    return ok;
}

/* The first pivot t of a factored step-order panel (pivots piv relative to it) that is not the
 * best candidate up to rounding, or -1 (0 also when a pivot is out of range). Step s's first
 * row (t = 2s) must hold the largest |R(i, 2s)| and its second (t = 2s + 1) the largest
 * |R(2s, 2s) R(i, 2s + 1) - R(2s, 2s + 1) R(i, 2s)| over the rows below, R the matrix the step
 * chose from, rebuilt from the backend's own factors (reduced_column). Where two rows differ by
 * rounding alone a backend and the CPU oracle may pick differently (seen once in 150 runs of
 * a 701 x 33 float panel on POCL), so the choice is judged, not compared. */
static int wz_pivots_not_largest(ps__dtype dt, int m, int w, shape s, const double *a0,
                                 const int *piv, const double *ga) {
    double *pa = rows_interchanged(s, m, w, a0, piv, w);
    if (!pa) return 0;
    size_t bytes = sizeof(double) * (size_t)m;
    double *r0 = malloc(bytes), *m0 = malloc(bytes), *r1 = malloc(bytes), *m1 = malloc(bytes),
           *met = malloc(bytes), *slack = malloc(bytes);
    int bad = -1;
    for (int k = 0; k < w && bad < 0; k += 2) {
        reduced_column(s, m, pa, ga, k, k, r0, m0);
        for (int i = k; i < m; i++) met[i] = fabs(r0[i]);
        if (!pivot_is_largest(dt, m, k, met, m0)) {
            bad = k;
            break;
        }
        if (k + 1 >= w) break; /* the middle 1 x 1 step */
        reduced_column(s, m, pa, ga, k, k + 1, r1, m1);
        double u0 = r0[k], u1 = r1[k];
        for (int i = k + 1; i < m; i++) {
            met[i] = fabs(u0 * r1[i] - u1 * r0[i]);
            slack[i] =
                fabs(u0) * m1[i] + fabs(u1) * m0[i] + m0[k] * fabs(r1[i]) + m1[k] * fabs(r0[i]);
        }
        if (!pivot_is_largest(dt, m, k + 1, met, slack)) bad = k + 1;
    }
    free(pa), free(r0), free(m0), free(r1), free(m1), free(met), free(slack);
    return bad;
}

static int32_t *int_mirror(const tbuf *b) {
    int32_t *h = malloc(sizeof(int32_t) * (size_t)b->count);
    for (int i = 0; i < b->count; i++) h[i] = (int32_t)b->host[i];
    return h;
}

/* The pivot check itself: the CPU oracle's panel without pivoting, on a matrix that needs it,
 * is exact factors with the wrong pivots, and must be refused. */
static void test_pivot_check(ps__dtype dt) {
    int m = 60, w = 8;
    shape s = random_shape(m, w);
    tbuf A = tb_random(dt, shape_count(s));
    void *h = tb_native_copy(&A);
    double *hz = malloc(sizeof(double) * (size_t)w);
    int32_t piv[8], info = 0;
    ps__mat hv = {h, s.off, s.ld};
    ps__vec hzv = {hz, 0, 1};
    CPU_FAMILY(wz)->wz_panel(NULL, dt, m, w, hv, hzv, piv, 0, 0, &info, 0);
    double *ga = malloc(sizeof(double) * (size_t)A.count);
    for (int e = 0; e < A.count; e++) ga[e] = native_at(dt, h, (size_t)e);
    int rel_piv[8];
    for (int t = 0; t < w; t++) rel_piv[t] = piv[t];
    CHECK(wz_pivots_not_largest(dt, m, w, s, A.host, rel_piv, ga) >= 0,
          "the pivot check accepts a %s panel factored without pivoting", dtname(dt));
    free(h), free(hz), free(ga);
    tb_free(&A);
}

static void test_panel(ps__dtype dt) {
    test_pivot_check(dt);
    /* the last three span several row slices of a GPU backend's cooperative leaf (128 rows
     * each on CUDA), the middle one with an odd width (a middle step at the end) */
    static const int shapes[][2] = {{2, 2},     {3, 3},    {5, 2},   {9, 4},    {7, 7},
                                    {20, 8},    {33, 16},  {64, 16}, {100, 32}, {65, 64},
                                    {1000, 64}, {701, 33}, {300, 18}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        for (int which = 0; which < 2; which++)
            for (int mode = 0; mode < 4; mode++) {
                /* mode 0: pivoted; 1: unpivoted (diagonally dominant); 2: first step singular
                 * (column 1 zero: every corner determinant is an exact 0 even with fused
                 * multiply-adds, which a dependent column would not give); 3: info already set */
                int m = shapes[t][0], w = shapes[t][1], base = 6, pivoting = mode != 1;
                const ps__wz_kernels *ops = FAMILY(wz, which);
                shape s = random_shape(m, w);
                tbuf A = tb_random(dt, shape_count(s));
                if (mode == 1)
                    for (int i = 0; i < w; i++) AT(A, s, i, i) += 2.0 * m;
                if (mode == 2 && w >= 2)
                    for (int i = 0; i < m; i++) AT(A, s, i, 1) = 0.0;
                upload_all(&A);
                int init = mode == 3 ? 42 : 0, pivinit[70], pairs = w / 2 + 1;
                for (int i = 0; i < 70; i++) pivinit[i] = -1;
                tbuf info = int_buffer(1, &init), piv = int_buffer(w + 3, pivinit);
                tbuf z = tb_random(dt, 2 * pairs + 3);
                upload_all(&z);
                ps__vec zv = vview(&z, 1, 2);
                ps_status st = ops->wz_panel(be, dt, m, w, view(&A, s), zv, piv.dev, 2, base,
                                             info.dev, pivoting);
                CHECK(st == PS_SUCCESS, "%swz_panel %dx%d: %s", which ? "default " : "", m, w,
                      be->err);

                void *h = tb_native_copy(&A), *hz = tb_native_copy(&z);
                int32_t oinfo = init, *opiv = int_mirror(&piv);
                ps__mat hv = {h, s.off, s.ld};
                ps__vec hzv = {hz, 1, 2};
                CPU_FAMILY(wz)->wz_panel(NULL, dt, m, w, hv, hzv, opiv, 2, base, &oinfo, pivoting);
                char what[96];
                snprintf(what, sizeof what, "%s%swz_panel %dx%d mode %d", which ? "default " : "",
                         dtname(dt), m, w, mode);
                double *ga = tb_download(&A), *gz = tb_download(&z), *gp = tb_download(&piv);
                int rel_piv[70];
                for (int t = 0; t < w; t++) rel_piv[t] = (int)gp[2 + t] - base;
                if (pivoting) {
                    int bad = wz_pivots_not_largest(dt, m, w, s, A.host, rel_piv, ga);
                    CHECK(bad < 0,
                          "%s: pivot %d (row %d; the oracle's %d) is not the largest candidate",
                          what, bad, bad >= 0 ? rel_piv[bad] : 0,
                          bad >= 0 ? opiv[2 + bad] - base : 0);
                } else {
                    matches(what, &piv, opiv, 0);
                }
                int z_kept = 1; /* zsub's view is every other element from 1, pairs of them */
                for (int e = 0; e < z.count; e++)
                    if ((e < 1 || e % 2 == 0 || (e - 1) / 2 >= w / 2) && gz[e] != z.host[e])
                        z_kept = 0;
                CHECK(z_kept, "%s: elements of zsub's buffer outside its view changed", what);
                CHECK(wz_factors_ok(dt, m, w, s, A.host, rel_piv, ga, gz, A.count, mode == 2),
                      "%s: not the factors of the input (P A != L Z)", what);
                free(ga), free(gz), free(gp);
                double *gi = tb_download(&info);
                int want = mode == 3 ? 42 : mode == 2 ? base / 2 + 1 : 0;
                CHECK((int)gi[0] == want && oinfo == want, "%s: info %g, oracle %d, expected %d",
                      what, gi[0], (int)oinfo, want);
                free(h), free(hz), free(opiv), free(gi);
                tb_free(&A), tb_free(&info), tb_free(&piv), tb_free(&z);
            }
}

/*
 * Whether the natural-layout step k of the order-n matrix ga (view s of a buffer of count
 * elements, pivots piv when pivoting) is the corner step of a0: every element is a0's with the two
 * pivot rows swapped in (exactly), except W in rows k+1..k2-1 of columns k and k2, which must solve
 * w C = b, b the row's entries there and C the corner, with residual within 4 eps (|w|
 * |L_C||U_C|) (corner_magnitude), or be zero when the step failed.
 */
static int corner_ok(ps__dtype dt, int n, int k, shape s, const double *a0, const int *piv,
                     const double *ga, int count, int failed, int pivoting) {
    int k2 = n - 1 - k, ok = 1;
    double *pa = malloc(sizeof(double) * (size_t)count);
    for (int e = 0; e < count; e++) pa[e] = a0[e];
    int rows[2] = {k, k2};
    /* row k's interchange, then row k2's (the unpivoted step and the middle one have none) */
    for (int r = 0; r < (pivoting && k < k2 ? 2 : 0) && ok; r++) {
        int t = rows[r], p = piv[t];
        if (p < k || p > k2)
            ok = 0;
        else
            for (int j = 0; j < n; j++) {
                double v = pa[s.off + t + (size_t)j * s.ld];
                pa[s.off + t + (size_t)j * s.ld] = pa[s.off + p + (size_t)j * s.ld];
                pa[s.off + p + (size_t)j * s.ld] = v;
            }
    }
#define P(i, j) pa[s.off + (size_t)(i) + (size_t)(j) * (size_t)s.ld]
#define G(i, j) ga[s.off + (size_t)(i) + (size_t)(j) * (size_t)s.ld]
    for (int e = 0; e < count && ok; e++) { /* everything but W: moved, not computed */
        int in = e >= (int)s.off && (e - (int)s.off) % s.ld < n;
        int i = (e - (int)s.off) % s.ld, j = (e - (int)s.off) / s.ld;
        int is_w = in && i > k && i < k2 && (j == k || j == k2);
        if (!is_w && ga[e] != pa[e]) ok = 0;
    }
    double c[4] = {P(k, k), P(k, k2), P(k2, k), P(k2, k2)}, cm[4];
    corner_magnitude(c, cm);
    for (int i = k + 1; i < k2 && ok; i++) {
        double w0 = G(i, k), w1 = G(i, k2);
        if (failed) {
            ok = w0 == 0 && w1 == 0;
            continue;
        }
        for (int j = 0; j < 2 && ok; j++) {
            double b = P(i, j ? k2 : k), r = b - (w0 * c[j] + w1 * c[2 + j]);
            if (fabs(r) > 4.0 * eps_of(dt) * (fabs(w0) * cm[j] + fabs(w1) * cm[2 + j]) + DBL_MIN)
                ok = 0;
        }
    }
#undef P
#undef G
    free(pa);
    return ok;
}

static void test_corner(ps__dtype dt) {
    static const int orders[] = {1, 2, 3, 5, 8, 33, 64};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int which = 0; which < 2; which++)
            for (int pivoting = 0; pivoting < 2; pivoting++)
                for (int at = 0; at < 3; at++) {
                    int n = orders[t], k = at == 0 ? 0 : at == 1 ? (n - 1) / 4 : (n - 1) / 2;
                    const ps__wz_kernels *ops = FAMILY(wz, which);
                    shape s = random_shape(n, n);
                    tbuf A = tb_random(dt, shape_count(s)), work = tb_random(dt, n + 2);
                    if (!pivoting)
                        for (int i = 0; i < n; i++) AT(A, s, i, i) += 2.0 * n;
                    upload_all(&A);
                    int init = 0, pivinit[64];
                    for (int i = 0; i < 64; i++) pivinit[i] = -1;
                    tbuf info = int_buffer(1, &init), piv = int_buffer(n, pivinit);
                    ps_status st = ops->wz_corner(be, dt, n, k, view(&A, s), vview(&work, 1, 1),
                                                  piv.dev, info.dev, pivoting);
                    CHECK(st == PS_SUCCESS, "wz_corner n=%d k=%d: %s", n, k, be->err);
                    void *h = tb_native_copy(&A);
                    int32_t oinfo = 0, *opiv = int_mirror(&piv);
                    ps__mat hv = {h, s.off, s.ld};
                    ps__vec nowork = {NULL, 0, 1};
                    CPU_FAMILY(wz)->wz_corner(NULL, dt, n, k, hv, nowork, opiv, &oinfo, pivoting);
                    char what[96];
                    snprintf(what, sizeof what, "%s%swz_corner n=%d k=%d pivoting %d",
                             which ? "default " : "", dtname(dt), n, k, pivoting);
                    matches(what, &piv, opiv, 0);
                    double *gi = tb_download(&info), *ga = tb_download(&A), *gp = tb_download(&piv);
                    CHECK((int)gi[0] == oinfo, "%s: info %g, oracle %d", what, gi[0], (int)oinfo);
                    int ipiv[64];
                    for (int i = 0; i < n; i++) ipiv[i] = (int)gp[i];
                    CHECK(corner_ok(dt, n, k, s, A.host, ipiv, ga, A.count, oinfo != 0, pivoting),
                          "%s: not the corner step of the input (w C != b)", what);
                    free(h), free(opiv), free(gi), free(ga), free(gp);
                    tb_free(&A), tb_free(&work), tb_free(&info), tb_free(&piv);
                }
}

static void test_reorder(ps__dtype dt) {
    static const int orders[] = {1, 2, 3, 4, 7, 16, 33};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int which = 0; which < 2; which++)
            for (int square = 0; square < 3; square++) /* 2: square without zsub */
                for (int to_steps = 0; to_steps < 2; to_steps++) {
                    int n = orders[t], ncols = square ? n : 3, pairs = n / 2;
                    const ps__wz_kernels *ops = FAMILY(wz, which);
                    shape ss = random_shape(n, ncols), sd = random_shape(n, ncols);
                    tbuf S = tb_random(dt, shape_count(ss)), D = tb_random(dt, shape_count(sd));
                    tbuf z = tb_random(dt, 2 * pairs + 2);
                    upload_all(&S), upload_all(&D), upload_all(&z);
                    ps__vec zv = vview(&z, 1, 2);
                    if (square == 2) zv.buf = NULL;
                    ps_status st = ops->wz_reorder(be, dt, n, ncols, square != 0, to_steps,
                                                   view(&S, ss), view(&D, sd), zv);
                    CHECK(st == PS_SUCCESS, "wz_reorder: %s", be->err);
                    void *hs = tb_native_copy(&S), *hd = tb_native_copy(&D),
                         *hz = tb_native_copy(&z);
                    ps__mat hsv = {hs, ss.off, ss.ld}, hdv = {hd, sd.off, sd.ld};
                    ps__vec hzv = {square == 2 ? NULL : hz, 1, 2};
                    CPU_FAMILY(wz)->wz_reorder(NULL, dt, n, ncols, square != 0, to_steps, hsv, hdv,
                                               hzv);
                    char what[96];
                    snprintf(what, sizeof what, "%s%swz_reorder n=%d square %d to_steps %d",
                             which ? "default " : "", dtname(dt), n, square, to_steps);
                    matches(what, &D, hd, 0);
                    matches(what, &z, hz, 0);
                    matches(what, &S, hs, 0);
                    free(hs), free(hd), free(hz);
                    tb_free(&S), tb_free(&D), tb_free(&z);
                }
    /* Round trip: back(to_steps(A)) is A again. */
    int n = 9;
    tbuf S = tb_random(dt, n * n), D = tb_random(dt, n * n), R = tb_random(dt, n * n),
         z = tb_random(dt, n);
    upload_all(&S);
    ps__mat sv = {S.dev, 0, n}, dv = {D.dev, 0, n}, rv = {R.dev, 0, n};
    CHECK(ps__wz(be)->wz_reorder(be, dt, n, n, 1, 1, sv, dv, vview(&z, 0, 1)) == 0, "reorder");
    CHECK(ps__wz(be)->wz_reorder(be, dt, n, n, 1, 0, dv, rv, vview(&z, 0, 1)) == 0, "reorder back");
    expect_buffer("wz_reorder round trip", &R, S.host, NULL, 0);
    tb_free(&S), tb_free(&D), tb_free(&R), tb_free(&z);
}

static void test_zsolve(ps__dtype dt) {
    static const int sizes[] = {1, 2, 3, 4, 7, 8, 31, 32, 64};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++)
        for (int which = 0; which < 2; which++)
            for (int nrhs = 1; nrhs <= 3; nrhs += 2) {
                int nb = sizes[t];
                const ps__wz_kernels *ops = FAMILY(wz, which);
                shape sz = random_shape(nb, nb), sx = random_shape(nb, nrhs);
                tbuf Z = tb_random(dt, shape_count(sz)), X = tb_random(dt, shape_count(sx));
                tbuf zs = tb_random(dt, nb + 2);
                for (int i = 0; i < nb; i++) AT(Z, sz, i, i) += 4.0; /* well conditioned */
                upload_all(&Z);
                ps__vec zv = vview(&zs, 2, 1);
                ps_status st = ops->wz_zsolve(be, dt, nb, nrhs, view(&Z, sz), zv, view(&X, sx));
                CHECK(st == PS_SUCCESS, "wz_zsolve: %s", be->err);
                void *hz = tb_native_copy(&Z), *hx = tb_native_copy(&X), *hs = tb_native_copy(&zs);
                ps__mat hzv = {hz, sz.off, sz.ld}, hxv = {hx, sx.off, sx.ld};
                ps__vec hsv = {hs, 2, 1};
                CPU_FAMILY(wz)->wz_zsolve(NULL, dt, nb, nrhs, hzv, hsv, hxv);
                char what[96];
                snprintf(what, sizeof what, "%s%swz_zsolve nb=%d nrhs=%d", which ? "default " : "",
                         dtname(dt), nb, nrhs);
                matches(what, &X, hx, 16.0 * nb);
                matches(what, &Z, hz, 0);
                free(hz), free(hx), free(hs);
                tb_free(&Z), tb_free(&X), tb_free(&zs);
            }
}

static void run_all(ps__dtype dt) {
    test_panel(dt);
    test_corner(dt);
    test_reorder(dt);
    test_zsolve(dt);
}

int main(int argc, char **argv) {
    return vtable_main(argc, argv, "test_vtable_wz", run_all);
}
