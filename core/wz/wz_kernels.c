/*
 * Portable defaults of the WZ entries (core/backend.h), from the required entries only.
 *
 * The step entries are the papers' BLAS formulation, driven by the host: the four corner
 * elements are read back every step, alpha..delta computed on the host, the two W columns
 * formed with axpy/scal (and, for pivoting, the candidates' determinants with copy/scal/
 * axpy + iamax). core's "vector-host" WZ variant calls default_wz_corner on purpose, to
 * reproduce the published algorithm; the reorder and diagonal-solve defaults go through the host.
 */
#include "wz/wz_kernels.h"
#include "base/host_values.h"
#include "wz/wz_corner.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static double safe_min(ps__dtype dt) {
    return dt == PS__DOUBLE ? DBL_MIN : (double)FLT_MIN;
}

static ps_status read_at(ps__backend *be, ps__dtype dt, ps__mat a, int i, int j, double *v) {
    ps__mat e = ps__mat_at(a, i, j);
    ps__scalar x;
    PS__TRY(be->ops->read_elements(be, dt, e.buf, 1, &e.off, &x));
    *v = ps__scalar_value(dt, x);
    return PS_SUCCESS;
}

static ps_status write_at(ps__backend *be, ps__dtype dt, ps__mat a, int i, int j, double v) {
    ps__scalar x = ps__scalar_of(dt, v);
    return be->ops->upload(be, dt, 1, 1, &x, 1, ps__mat_at(a, i, j));
}

static ps_status write_int(ps__backend *be, void *buf, size_t off, int32_t v) {
    ps__mat m = {buf, off, 1};
    return be->ops->upload(be, PS__INT32, 1, 1, &v, 1, m);
}

/* A failed step: zero W entries in rows [e0, e1) of columns c0 and (if >= 0) c1, and the step
 * number in info unless an earlier step failed. */
static ps_status fail_step(ps__backend *be, ps__dtype dt, ps__mat a, int e0, int e1, int c0, int c1,
                           void *info, int step) {
    ps__scalar zero = ps__scalar_of(dt, 0.0);
    if (e1 > e0) {
        PS__TRY(be->ops->fill(be, dt, e1 - e0, 1, &zero, ps__mat_at(a, e0, c0)));
        if (c1 >= 0) PS__TRY(be->ops->fill(be, dt, e1 - e0, 1, &zero, ps__mat_at(a, e0, c1)));
    }
    int32_t cur;
    ps__mat im = {info, 0, 1};
    PS__TRY(be->ops->download(be, PS__INT32, 1, 1, im, &cur, 1));
    return cur ? PS_SUCCESS : write_int(be, info, 0, step);
}

/* Pivot rows of a step (backend.h): r0 = lo gets the first largest |a(i,c0)| of rows
 * [lo, hi), then r1 the first row of [lo+1, hi) maximizing |a(lo,c0) a(i,c1) - a(lo,c1) a(i,c0)|,
 * each swapped over the first swap_cols columns. work holds hi - lo - 1 elements. */
static ps_status pick_rows(ps__backend *be, ps__dtype dt, ps__mat a, int lo, int hi, int r1, int c0,
                           int c1, int swap_cols, ps__vec work, int *p, int *q) {
    const ps__backend_ops *ops = be->ops;
    PS__TRY(ops->iamax(be, dt, hi - lo, ps__mat_col(a, lo, c0), p));
    *p += lo;
    if (*p != lo)
        PS__TRY(ops->swap(be, dt, swap_cols, ps__mat_row(a, lo, 0), ps__mat_row(a, *p, 0)));
    double u0, u1;
    PS__TRY(read_at(be, dt, a, lo, c0, &u0));
    PS__TRY(read_at(be, dt, a, lo, c1, &u1));
    int len = hi - lo - 1;
    ps__scalar s0 = ps__scalar_of(dt, u0), s1 = ps__scalar_of(dt, -u1);
    PS__TRY(ops->copy(be, dt, len, ps__mat_col(a, lo + 1, c1), work));
    PS__TRY(ops->scal(be, dt, len, &s0, work));
    PS__TRY(ops->axpy(be, dt, len, &s1, ps__mat_col(a, lo + 1, c0), work));
    PS__TRY(ops->iamax(be, dt, len, work, q));
    *q += lo + 1;
    if (*q != r1)
        PS__TRY(ops->swap(be, dt, swap_cols, ps__mat_row(a, r1, 0), ps__mat_row(a, *q, 0)));
    return PS_SUCCESS;
}

/*
 * The two W columns of rows [e0, e1), [w0 w1] C = [x0 x1], from host-computed coefficients as
 * in the papers, but by Gaussian elimination with partial pivoting on C^T rather than their
 * alpha..delta (the explicit inverse, i.e. Cramer's rule, which is not backward stable for an
 * ill-conditioned corner): with (q, s) the pivot row of C^T and l, u its elimination,
 * w1 = (rb - l ra) / u and w0 = (ra - s w1) / q. *ok = 0 when a pivot is below the safe minimum.
 */
static ps_status w_columns(ps__backend *be, ps__dtype dt, ps__mat a, int e0, int e1, int c0, int c1,
                           const double c[4], int *ok) {
    ps__wz_pivot pv = ps__wz_corner_pivot(dt, c[0], c[1], c[2], c[3]);
    int swap = pv.swap;
    double q = pv.q, s = pv.s, l = pv.l, u = pv.u;
    *ok = fabs(q) >= safe_min(dt) && fabs(u) >= safe_min(dt);
    int len = e1 - e0;
    if (!*ok || len <= 0) return PS_SUCCESS;
    const ps__backend_ops *ops = be->ops;
    ps__vec x0 = ps__mat_col(a, e0, c0), x1 = ps__mat_col(a, e0, c1);
    ps__vec ra = swap ? x1 : x0, rb = swap ? x0 : x1;
    ps__scalar ml = ps__scalar_of(dt, -l), ru = ps__scalar_of(dt, 1.0 / u),
               ms = ps__scalar_of(dt, -s), rq = ps__scalar_of(dt, 1.0 / q);
    PS__TRY(ops->axpy(be, dt, len, &ml, ra, rb)); /* rb = w1 */
    PS__TRY(ops->scal(be, dt, len, &ru, rb));
    PS__TRY(ops->axpy(be, dt, len, &ms, rb, ra)); /* ra = w0 */
    PS__TRY(ops->scal(be, dt, len, &rq, ra));
    return swap ? ops->swap(be, dt, len, x0, x1) : PS_SUCCESS;
}

/* Reads the corner [a(r0,c0) a(r0,c1) a(r1,c0) a(r1,c1)] in one call. */
static ps_status read_corner(ps__backend *be, ps__dtype dt, ps__mat a, int r0, int r1, int c0,
                             int c1, double c[4]) {
    size_t offs[4] = {ps__mat_at(a, r0, c0).off, ps__mat_at(a, r0, c1).off,
                      ps__mat_at(a, r1, c0).off, ps__mat_at(a, r1, c1).off};
    double v[4]; /* count packed elements of the dtype */
    PS__TRY(be->ops->read_elements(be, dt, a.buf, 4, offs, v));
    for (int i = 0; i < 4; i++) c[i] = dt == PS__DOUBLE ? v[i] : (double)((const float *)v)[i];
    return PS_SUCCESS;
}

static ps_status default_wz_corner(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a,
                                   ps__vec work, void *ipiv, void *info, int pivoting) {
    int k2 = n - 1 - k;
    if (k == k2) {
        double v;
        PS__TRY(write_int(be, ipiv, (size_t)k, k));
        PS__TRY(read_at(be, dt, a, k, k, &v));
        return fabs(v) >= safe_min(dt) ? PS_SUCCESS
                                       : fail_step(be, dt, a, 0, 0, k, -1, info, k + 1);
    }
    int p = k, q = k2;
    if (pivoting) PS__TRY(pick_rows(be, dt, a, k, k2 + 1, k2, k, k2, n, work, &p, &q));
    PS__TRY(write_int(be, ipiv, (size_t)k, p));
    PS__TRY(write_int(be, ipiv, (size_t)k2, q));
    double c[4];
    int ok;
    PS__TRY(read_corner(be, dt, a, k, k2, k, k2, c));
    PS__TRY(w_columns(be, dt, a, k + 1, k2, k, k2, c, &ok));
    return ok ? PS_SUCCESS : fail_step(be, dt, a, k + 1, k2, k, k2, info, k + 1);
}

/* One step of the step-order panel (t0 = 2s); work holds m elements. */
static ps_status panel_step(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                            void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting,
                            int s, ps__vec work) {
    const ps__backend_ops *ops = be->ops;
    int t0 = 2 * s, t1 = t0 + 1, step = row_base / 2 + s + 1;
    if (t1 == w) { /* the middle 1 x 1 step */
        int p = t0;
        if (pivoting) {
            PS__TRY(ops->iamax(be, dt, m - t0, ps__mat_col(a, t0, t0), &p));
            p += t0;
            if (p != t0) PS__TRY(ops->swap(be, dt, w, ps__mat_row(a, t0, 0), ps__mat_row(a, p, 0)));
        }
        PS__TRY(write_int(be, ipiv, ipiv_off + (size_t)t0, row_base + p));
        double piv;
        PS__TRY(read_at(be, dt, a, t0, t0, &piv));
        if (!(fabs(piv) >= safe_min(dt))) return fail_step(be, dt, a, t1, m, t0, -1, info, step);
        ps__scalar r = ps__scalar_of(dt, 1.0 / piv);
        return ops->scal(be, dt, m - t1, &r, ps__mat_col(a, t1, t0));
    }
    int p = t0, q = t1;
    if (pivoting) PS__TRY(pick_rows(be, dt, a, t0, m, t1, t0, t1, w, work, &p, &q));
    PS__TRY(write_int(be, ipiv, ipiv_off + (size_t)t0, row_base + p));
    PS__TRY(write_int(be, ipiv, ipiv_off + (size_t)t1, row_base + q));
    double c[4];
    PS__TRY(read_corner(be, dt, a, t0, t1, t0, t1, c));
    ps__scalar z = ps__scalar_of(dt, c[2]);
    ps__mat zm = {zsub.buf, zsub.off + (size_t)s * (size_t)zsub.inc, 1};
    PS__TRY(ops->upload(be, dt, 1, 1, &z, 1, zm));
    PS__TRY(write_at(be, dt, a, t1, t0, 0.0));
    int ok;
    PS__TRY(w_columns(be, dt, a, t1 + 1, m, t0, t1, c, &ok));
    if (!ok) return fail_step(be, dt, a, t1 + 1, m, t0, t1, info, step);
    int rows = m - t1 - 1, cols = w - t1 - 1;
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    ps__scalar minus_one = ps__scalar_of(dt, -1.0);
    PS__TRY(ops->ger(be, dt, rows, cols, &minus_one, ps__mat_col(a, t1 + 1, t0),
                     ps__mat_row(a, t0, t1 + 1), ps__mat_at(a, t1 + 1, t1 + 1)));
    return ops->ger(be, dt, rows, cols, &minus_one, ps__mat_col(a, t1 + 1, t1),
                    ps__mat_row(a, t1, t1 + 1), ps__mat_at(a, t1 + 1, t1 + 1));
}

static ps_status default_wz_panel(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a,
                                  ps__vec zsub, void *ipiv, size_t ipiv_off, int row_base,
                                  void *info, int pivoting) {
    if (m <= 0 || w <= 0) return PS_SUCCESS;
    void *buf;
    PS__TRY(be->ops->alloc(be, (size_t)m * ps__dtype_size(dt), &buf));
    ps__vec work = {buf, 0, 1};
    ps_status st = PS_SUCCESS;
    for (int s = 0; 2 * s < w && !st; s++)
        st = panel_step(be, dt, m, w, a, zsub, ipiv, ipiv_off, row_base, info, pivoting, s, work);
    be->ops->free(be, buf);
    return st;
}

static int default_wz_panel_width(ps__backend *be, ps__dtype dt, int m) {
    (void)be, (void)dt, (void)m;
    return 8;
}

static int nat(int n, int t) {
    return t % 2 == 0 ? t / 2 : n - 1 - (t - 1) / 2;
}

/* Through the host: src is read once, permuted, and written to dst. */
static ps_status default_wz_reorder(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                                    int to_steps, ps__mat src, ps__mat dst, ps__vec zsub) {
    if (n <= 0 || ncols <= 0) return PS_SUCCESS;
    size_t es = ps__dtype_size(dt), count = (size_t)n * (size_t)ncols;
    int pairs = zsub.buf && square ? n / 2 : 0;
    unsigned char *h = malloc(2 * count * es + (size_t)pairs * es + 1);
    if (!h) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "wz_reorder: out of memory");
    unsigned char *out = h + count * es, *z = out + count * es;
    ps__mat zm = {zsub.buf, zsub.off, zsub.inc}; /* a 1 x pairs matrix with ld = inc */
    ps_status st = be->ops->download(be, dt, n, ncols, src, h, n);
    if (!st && square && !to_steps && pairs > 0) st = be->ops->download(be, dt, 1, pairs, zm, z, 1);
    if (!st) {
        for (int u = 0; u < ncols; u++)
            for (int t = 0; t < n; t++) {
                size_t step_e = (size_t)t + (size_t)u * n;
                size_t nat_e = (size_t)nat(n, t) + (size_t)(square ? nat(n, u) : u) * n;
                if (to_steps)
                    memcpy(out + step_e * es, h + nat_e * es, es);
                else
                    memcpy(out + nat_e * es, h + step_e * es, es);
            }
        for (int s = 0; s < pairs; s++) {
            size_t lower_left = (size_t)(n - 1 - s) + (size_t)s * n;
            size_t sub = (size_t)(2 * s + 1) + (size_t)(2 * s) * n;
            if (to_steps) {
                memcpy(z + (size_t)s * es, h + lower_left * es, es);
                memset(out + sub * es, 0, es);
            } else {
                memcpy(out + lower_left * es, z + (size_t)s * es, es);
            }
        }
        st = be->ops->upload(be, dt, n, ncols, out, n, dst);
    }
    if (!st && square && to_steps && pairs > 0) st = be->ops->upload(be, dt, 1, pairs, z, 1, zm);
    free(h);
    return st;
}

/* Through the host, in double. */
static ps_status default_wz_zsolve(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat zf,
                                   ps__vec zsub, ps__mat x) {
    if (nb <= 0 || nrhs <= 0) return PS_SUCCESS;
    size_t es = ps__dtype_size(dt), nz = (size_t)nb * nb, nx = (size_t)nb * nrhs;
    int pairs = nb / 2;
    double *u = malloc((nz + nx + (size_t)pairs + 1) * sizeof *u);
    unsigned char *raw = malloc((nz + nx + (size_t)pairs + 1) * es);
    ps_status st = u && raw ? PS_SUCCESS : PS_ERR_OUT_OF_HOST_MEMORY;
    if (st) ps__backend_fail(be, st, "wz_zsolve: out of host memory");
    double *xs = u + nz, *zs = xs + nx;
    ps__mat zm = {zsub.buf, zsub.off, zsub.inc};
    if (!st) st = be->ops->download(be, dt, nb, nb, zf, raw, nb);
    if (!st) st = be->ops->download(be, dt, nb, nrhs, x, raw + nz * es, nb);
    if (!st && pairs > 0) st = be->ops->download(be, dt, 1, pairs, zm, raw + (nz + nx) * es, 1);
    if (!st) {
        ps__values_to_double(dt, raw, nz + nx + (size_t)pairs, u);
        for (int c = 0; c < nrhs; c++) {
            double *xc = xs + (size_t)c * nb;
            int t = nb;
            if (nb % 2) {
                t = nb - 1;
                xc[t] /= u[(size_t)t * (nb + 1)];
            }
            for (; t > 0; t -= 2) {
                int t0 = t - 2, t1 = t - 1;
                double r0 = xc[t0], r1 = xc[t1];
                for (int j = t; j < nb; j++) {
                    r0 -= u[t0 + (size_t)j * nb] * xc[j];
                    r1 -= u[t1 + (size_t)j * nb] * xc[j];
                }
                ps__wz_pivot pv =
                    ps__wz_corner_pivot(dt, u[t0 + (size_t)t0 * nb], u[t0 + (size_t)t1 * nb],
                                        zs[t0 / 2], u[t1 + (size_t)t1 * nb]);
                ps__wz_corner_solve(dt, &pv, ps__wz_round(dt, r0), ps__wz_round(dt, r1), &xc[t0],
                                    &xc[t1]);
            }
        }
        ps__values_from_double(dt, xs, nx, raw);
        st = be->ops->upload(be, dt, nb, nrhs, raw, nb, x);
    }
    free(u), free(raw);
    return st;
}

static const ps__wz_kernels defaults = {
    .header = {PS__WZ_KERNELS_ABI, sizeof(ps__wz_kernels)},
    .wz_corner = default_wz_corner,
    .wz_panel = default_wz_panel,
    .wz_panel_width = default_wz_panel_width,
    .wz_reorder = default_wz_reorder,
    .wz_zsolve = default_wz_zsolve,
};

_Static_assert(offsetof(ps__wz_kernels, wz_corner) == sizeof(ps__family_header),
               "a family table is its header, then function pointers");

const ps__wz_kernels *ps__wz_kernels_defaults(void) {
    return &defaults;
}
