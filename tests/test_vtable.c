/*
 * Every vtable entry of the backend given by --backend against naive loops in double: odd sizes,
 * nonzero element offsets, leading dimensions larger than the rows, increments above 1, both
 * dtypes. Each output buffer is compared whole, so writes outside the view are caught. The
 * portable defaults of the optional entries run on the same backend against the same loops, and
 * the LU panel kernel's info is compared with the CPU backend's plain loops (the oracle), its
 * pivots with the column maxima of partial pivoting and its factors by their backward error.
 */

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/trsm_recursive.h"
#include "vtable_harness.h"

/* ---------------------------------------------------------------- memory */

static void test_memory(ps__dtype dt) {
    /* 1500 x 900: transfers of several MB, as a rectangle of many columns on OpenCL */
    static const int dims[][2] = {{0, 3}, {1, 1}, {3, 5}, {17, 4}, {64, 3}, {1500, 900}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        shape s = random_shape(dims[t][0], dims[t][1]), d = random_shape(dims[t][0], dims[t][1]);
        tbuf src = tb_random(dt, shape_count(s)), dst = tb_random(dt, shape_count(d));
        double *exp = copy_of(&dst);
        for (int j = 0; j < s.cols; j++)
            for (int i = 0; i < s.rows; i++) exp[d.off + i + (size_t)j * d.ld] = AT(src, s, i, j);
        CHECK(be->ops->copy2d(be, dt, s.rows, s.cols, view(&src, s), view(&dst, d)) == 0, "copy2d");
        expect_buffer("copy2d", &dst, exp, NULL, 0);

        /* upload a host block with its own ldh into a view, then download it back */
        int ldh = s.rows + 2;
        double *hv = malloc(sizeof(double) * (size_t)(ldh * (s.cols + 1)));
        size_t es = ps__dtype_size(dt);
        unsigned char *h = malloc(es * (size_t)(ldh * (s.cols + 1)));
        for (int k = 0; k < ldh * s.cols; k++) {
            hv[k] = round_to(dt, ps_test_rand());
            if (dt == PS__DOUBLE)
                ((double *)h)[k] = hv[k];
            else
                ((float *)h)[k] = (float)hv[k];
        }
        for (int j = 0; j < s.cols; j++)
            for (int i = 0; i < s.rows; i++) exp[d.off + i + (size_t)j * d.ld] = hv[i + j * ldh];
        CHECK(be->ops->upload(be, dt, s.rows, s.cols, h, ldh, view(&dst, d)) == 0, "upload");
        expect_buffer("upload into view", &dst, exp, NULL, 0);
        memset(h, 0, es * (size_t)(ldh * s.cols));
        CHECK(be->ops->download(be, dt, s.rows, s.cols, view(&dst, d), h, ldh) == 0, "download");
        int same = 1;
        for (int j = 0; j < s.cols; j++)
            for (int i = 0; i < s.rows; i++) {
                double g =
                    dt == PS__DOUBLE ? ((double *)h)[i + j * ldh] : ((float *)h)[i + j * ldh];
                same &= g == hv[i + j * ldh];
            }
        CHECK(same, "download of a view with ld %d, offset %zu", d.ld, d.off);

        /* the same through host_alloc's transfer memory, the backend's and the default */
        for (int which = 0; which < 2 && s.rows > 0; which++) {
            const ps__backend_ops *ops = which ? ps__backend_defaults() : be->ops;
            size_t bytes = es * (size_t)(ldh * s.cols);
            unsigned char *p = NULL, *q = NULL;
            CHECK(ops->host_alloc(be, bytes, (void **)&p) == 0 && p, "host_alloc");
            CHECK(ops->host_alloc(be, bytes, (void **)&q) == 0 && q, "host_alloc");
            if (!p || !q) break;
            for (int k = 0; k < ldh * s.cols; k++) {
                double v = round_to(dt, ps_test_rand());
                if (dt == PS__DOUBLE)
                    ((double *)p)[k] = v;
                else
                    ((float *)p)[k] = (float)v;
            }
            memset(q, 0, bytes);
            CHECK(be->ops->upload(be, dt, s.rows, s.cols, p, ldh, view(&dst, d)) == 0 &&
                      be->ops->download(be, dt, s.rows, s.cols, view(&dst, d), q, ldh) == 0,
                  "upload and download through host_alloc memory");
            int equal = 1;
            for (int j = 0; j < s.cols; j++)
                equal &= memcmp(p + es * (size_t)(j * ldh), q + es * (size_t)(j * ldh),
                                es * (size_t)s.rows) == 0;
            CHECK(equal, "%shost_alloc memory: round trip differs", which ? "default " : "");
            ops->host_free(be, p);
            ops->host_free(be, q);
            /* dst's view back to what exp says, for the checks below */
            CHECK(be->ops->upload(be, dt, s.rows, s.cols, h, ldh, view(&dst, d)) == 0, "upload");
        }

        /* fill, the backend's and the default */
        for (int which = 0; which < 2; which++) {
            ps__scalar v = ps__scalar_of(dt, ps_test_rand());
            for (int j = 0; j < s.cols; j++)
                for (int i = 0; i < s.rows; i++)
                    exp[d.off + i + (size_t)j * d.ld] = ps__scalar_value(dt, v);
            const ps__backend_ops *ops = which ? ps__backend_defaults() : be->ops;
            CHECK(ops->fill(be, dt, s.rows, s.cols, &v, view(&dst, d)) == 0, "fill");
            expect_buffer(which ? "default fill" : "fill", &dst, exp, NULL, 0);
        }

        /* read_elements at random offsets, the backend's and the default */
        for (int which = 0; which < 2; which++) {
            size_t offs[5];
            double want[5];
            unsigned char out[5 * sizeof(double)];
            for (int k = 0; k < 5; k++) {
                offs[k] = (size_t)ps_test_rand_int(dst.count);
                want[k] = exp[offs[k]];
            }
            const ps__backend_ops *ops = which ? ps__backend_defaults() : be->ops;
            CHECK(ops->read_elements(be, dt, dst.dev, 5, offs, out) == 0, "read_elements");
            for (int k = 0; k < 5; k++) {
                double g = dt == PS__DOUBLE ? ((double *)out)[k] : ((float *)out)[k];
                CHECK(g == want[k], "%sread_elements[%d] = %g, expected %g",
                      which ? "default " : "", k, g, want[k]);
            }
        }
        free(h), free(hv), free(exp);
        tb_free(&src), tb_free(&dst);
    }
}

/* copy_triangle, the backend's and the default: only the uplo triangle of dst changes. */
static void test_copy_triangle(ps__dtype dt) {
    static const int orders[] = {0, 1, 3, 17, 64, 130};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int which = 0; which < 4; which++) {
            int n = orders[t], lower = which & 1;
            const ps__backend_ops *ops = which & 2 ? ps__backend_defaults() : be->ops;
            shape s = random_shape(n, n), d = random_shape(n, n);
            tbuf src = tb_random(dt, shape_count(s)), dst = tb_random(dt, shape_count(d));
            double *exp = copy_of(&dst);
            for (int j = 0; j < n; j++)
                for (int i = lower ? j : 0; i < (lower ? n : j + 1); i++)
                    exp[d.off + i + (size_t)j * d.ld] = AT(src, s, i, j);
            CHECK(ops->copy_triangle(be, dt, lower ? PS__LOWER : PS__UPPER, n, view(&src, s),
                                     view(&dst, d)) == 0,
                  "copy_triangle");
            char what[64];
            snprintf(what, sizeof what, "%scopy_triangle %s n=%d", which & 2 ? "default " : "",
                     lower ? "L" : "U", n);
            expect_buffer(what, &dst, exp, NULL, 0);
            free(exp);
            tb_free(&src), tb_free(&dst);
        }
}

/* ---------------------------------------------------------------- level 1 */

static void test_level1(ps__dtype dt) {
    static const int lengths[] = {0, 1, 2, 7, 33, 1000};
    for (size_t t = 0; t < 6; t++) {
        int n = lengths[t], incx = 1 + ps_test_rand_int(3), incy = 1 + ps_test_rand_int(3);
        size_t ox = (size_t)ps_test_rand_int(5), oy = (size_t)ps_test_rand_int(5);
        int cx = (int)ox + n * incx + 1, cy = (int)oy + n * incy + 1;
        tbuf x = tb_random(dt, cx), y = tb_random(dt, cy);
        double *ex = copy_of(&x), *ey = copy_of(&y), *mag = calloc((size_t)cy, sizeof(double));
        ps__vec vx = vview(&x, ox, incx), vy = vview(&y, oy, incy);
#define XI(i) x.host[ox + (size_t)(i)*incx]
#define YI(i) y.host[oy + (size_t)(i)*incy]
        ps__scalar alpha = ps__scalar_of(dt, ps_test_rand());
        double a = ps__scalar_value(dt, alpha);

        /* axpy */
        for (int i = 0; i < n; i++) {
            ey[oy + (size_t)i * incy] = YI(i) + a * XI(i);
            mag[oy + (size_t)i * incy] = fabs(YI(i)) + fabs(a * XI(i));
        }
        CHECK(be->ops->axpy(be, dt, n, &alpha, vx, vy) == 0, "axpy");
        expect_buffer("axpy", &y, ey, mag, 4);
        upload_all(&y);

        /* scal */
        for (int i = 0; i < n; i++) {
            ey[oy + (size_t)i * incy] = a * YI(i);
            mag[oy + (size_t)i * incy] = fabs(a * YI(i));
        }
        CHECK(be->ops->scal(be, dt, n, &alpha, vy) == 0, "scal");
        expect_buffer("scal", &y, ey, mag, 2);
        upload_all(&y);

        /* copy x -> y */
        memcpy(ey, y.host, sizeof(double) * (size_t)cy);
        for (int i = 0; i < n; i++) ey[oy + (size_t)i * incy] = XI(i);
        CHECK(be->ops->copy(be, dt, n, vx, vy) == 0, "copy");
        expect_buffer("copy", &y, ey, NULL, 0);
        upload_all(&y);

        /* swap */
        memcpy(ey, y.host, sizeof(double) * (size_t)cy);
        for (int i = 0; i < n; i++) {
            ey[oy + (size_t)i * incy] = XI(i);
            ex[ox + (size_t)i * incx] = YI(i);
        }
        CHECK(be->ops->swap(be, dt, n, vx, vy) == 0, "swap");
        expect_buffer("swap x", &x, ex, NULL, 0);
        expect_buffer("swap y", &y, ey, NULL, 0);
        upload_all(&x), upload_all(&y);

        /* dot, nrm2, iamax */
        double dref = 0, dmag = 0, nref = 0;
        int iref = n > 0 ? 0 : -1;
        for (int i = 0; i < n; i++) {
            dref += XI(i) * YI(i);
            dmag += fabs(XI(i) * YI(i));
            nref += XI(i) * XI(i);
            if (fabs(XI(i)) > fabs(XI(iref))) iref = i;
        }
        nref = sqrt(nref);
        ps__scalar r;
        CHECK(be->ops->dot(be, dt, n, vx, vy, &r) == 0, "dot");
        CHECK(fabs(ps__scalar_value(dt, r) - dref) <= (n + 2) * 2 * eps_of(dt) * dmag,
              "%sdot n=%d: %.17g vs %.17g", dtname(dt), n, ps__scalar_value(dt, r), dref);
        CHECK(be->ops->nrm2(be, dt, n, vx, &r) == 0, "nrm2");
        CHECK(fabs(ps__scalar_value(dt, r) - nref) <= (n + 2) * 2 * eps_of(dt) * nref,
              "%snrm2 n=%d: %.17g vs %.17g", dtname(dt), n, ps__scalar_value(dt, r), nref);
        int idx = -7;
        CHECK(be->ops->iamax(be, dt, n, vx, &idx) == 0, "iamax");
        CHECK(idx == iref, "%siamax n=%d: %d, expected %d", dtname(dt), n, idx, iref);
#undef XI
#undef YI
        free(ex), free(ey), free(mag);
        tb_free(&x), tb_free(&y);
    }
}

/* gemv N with contiguous vectors over shapes where the CUDA backend runs its own kernel (up to
 * 32 rows per SM by default, at least 256 columns; column slices that do not divide n, and one
 * block per 32-row tile from half the SMs' tiles on) and past it; beta = 0 with y full of NaN,
 * which BLAS must not read. */
static void test_gemv_contiguous(ps__dtype dt) {
    static const int dims[][2] = {{1, 256},    {33, 300},   {300, 2000},  {2000, 700},
                                  {2048, 257}, {2049, 300}, {3001, 1001}, {4097, 1100},
                                  {4224, 300}, {4225, 257}, {8192, 260}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int mode = 0; mode < 3; mode++) {
            /* 1: beta = 0 over a NaN y; 2: alpha = 0 over NaN in A and x (BLAS reads neither) */
            int m = dims[t][0], n = dims[t][1], zero_beta = mode == 1, zero_alpha = mode == 2;
            shape s = random_shape(m, n);
            tbuf A = tb_random(dt, shape_count(s)), x = tb_random(dt, n), y = tb_random(dt, m);
            if (zero_beta) {
                for (int i = 0; i < m; i++) y.host[i] = NAN;
                upload_all(&y);
            }
            if (zero_alpha) {
                AT(A, s, m / 2, n / 2) = NAN;
                x.host[n - 1] = NAN;
                upload_all(&A), upload_all(&x);
            }
            ps__scalar alpha = ps__scalar_of(dt, zero_alpha ? 0.0 : ps_test_rand()),
                       beta = ps__scalar_of(dt, zero_beta ? 0.0 : ps_test_rand());
            double al = ps__scalar_value(dt, alpha), bt = ps__scalar_value(dt, beta);
            double *ey = malloc(sizeof(double) * (size_t)m),
                   *mag = malloc(sizeof(double) * (size_t)m);
            for (int i = 0; i < m; i++) {
                double sum = 0, sm = 0;
                for (int k = 0; k < n; k++) {
                    sum += AT(A, s, i, k) * x.host[k];
                    sm += fabs(AT(A, s, i, k) * x.host[k]);
                }
                ey[i] = (zero_alpha ? 0.0 : al * sum) + (zero_beta ? 0.0 : bt * y.host[i]);
                mag[i] =
                    (zero_alpha ? 0.0 : fabs(al) * sm) + (zero_beta ? 0.0 : fabs(bt * y.host[i]));
            }
            CHECK(be->ops->gemv(be, dt, PS__NOTRANS, m, n, &alpha, view(&A, s), vview(&x, 0, 1),
                                &beta, vview(&y, 0, 1)) == 0,
                  "gemv: %s", be->err);
            char what[64];
            snprintf(what, sizeof what, "%sgemv N %dx%d contiguous%s", dtname(dt), m, n,
                     zero_beta    ? " beta 0"
                     : zero_alpha ? " alpha 0"
                                  : "");
            expect_buffer(what, &y, ey, mag, 2.0 * (n + 2));
            free(ey), free(mag);
            tb_free(&A), tb_free(&x), tb_free(&y);
        }
}

/* ---------------------------------------------------------------- level 2 */

static void test_level2(ps__dtype dt) {
    static const int dims[][2] = {{0, 0}, {3, 0},  {0, 3},  {1, 1},
                                  {3, 5}, {17, 9}, {9, 17}, {65, 64}};
    for (size_t t = 0; t < 8; t++) {
        int m = dims[t][0], n = dims[t][1];
        for (int tr = 0; tr < 2; tr++) {
            /* gemv: y = alpha op(A) x + beta y */
            shape s = random_shape(m, n);
            int lx = tr ? m : n, ly = tr ? n : m, incx = 1 + ps_test_rand_int(2), incy = 2;
            tbuf A = tb_random(dt, shape_count(s)), x = tb_random(dt, lx * incx + 2),
                 y = tb_random(dt, ly * incy + 3);
            double *ey = copy_of(&y), *mag = calloc((size_t)y.count, sizeof(double));
            ps__scalar alpha = ps__scalar_of(dt, ps_test_rand()),
                       beta = ps__scalar_of(dt, ps_test_rand());
            double al = ps__scalar_value(dt, alpha), bt = ps__scalar_value(dt, beta);
            for (int i = 0; i < ly; i++) {
                double sum = 0, sm = 0;
                for (int k = 0; k < lx; k++) {
                    double aik = tr ? AT(A, s, k, i) : AT(A, s, i, k);
                    sum += aik * x.host[1 + (size_t)k * incx];
                    sm += fabs(aik * x.host[1 + (size_t)k * incx]);
                }
                size_t yi = 2 + (size_t)i * incy;
                if (m == 0 || n == 0) continue; /* BLAS quick return: y untouched */
                ey[yi] = al * sum + bt * y.host[yi];
                mag[yi] = fabs(al) * sm + fabs(bt * y.host[yi]);
            }
            CHECK(be->ops->gemv(be, dt, tr ? PS__TRANS : PS__NOTRANS, m, n, &alpha, view(&A, s),
                                vview(&x, 1, incx), &beta, vview(&y, 2, incy)) == 0,
                  "gemv");
            expect_buffer(tr ? "gemv T" : "gemv N", &y, ey, mag, 2.0 * (lx + 2));
            free(ey), free(mag);
            tb_free(&A), tb_free(&x), tb_free(&y);
        }
        /* ger: A += alpha x y^T */
        shape s = random_shape(m, n);
        tbuf A = tb_random(dt, shape_count(s)), x = tb_random(dt, m * 2 + 1),
             y = tb_random(dt, n + 3);
        double *ea = copy_of(&A), *mag = calloc((size_t)A.count, sizeof(double));
        ps__scalar alpha = ps__scalar_of(dt, ps_test_rand());
        double al = ps__scalar_value(dt, alpha);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                size_t k = s.off + i + (size_t)j * s.ld;
                double p = al * x.host[1 + 2 * (size_t)i] * y.host[3 + (size_t)j];
                ea[k] = A.host[k] + p;
                mag[k] = fabs(A.host[k]) + fabs(p);
            }
        CHECK(be->ops->ger(be, dt, m, n, &alpha, vview(&x, 1, 2), vview(&y, 3, 1), view(&A, s)) ==
                  0,
              "ger");
        expect_buffer("ger", &A, ea, mag, 4);
        free(ea), free(mag);
        tb_free(&A), tb_free(&x), tb_free(&y);
    }
}

/* A triangular matrix in view s of b that is well conditioned: a dominant diagonal (garbage
 * when unit, which must then be ignored) and small off-diagonal entries; the other triangle is
 * left random, which must not be read. */
static void make_triangular(tbuf *b, shape s, ps__uplo uplo, ps__diag diag) {
    int n = s.rows;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int in_tri = uplo == PS__LOWER ? i > j : i < j;
            if (i == j)
                AT(*b, s, i, j) = round_to(b->dt, diag == PS__UNIT ? 1e3 : 2 + ps_test_rand());
            else if (in_tri)
                AT(*b, s, i, j) = round_to(b->dt, ps_test_rand() / n);
        }
    upload_all(b);
}
/* Element (i,j) of the triangular operator as the routine must see it. */
static double tri_at(const tbuf *b, shape s, ps__uplo uplo, ps__diag diag, ps__trans tr, int i,
                     int j) {
    if (tr == PS__TRANS) {
        int t = i;
        i = j;
        j = t;
    }
    if (i == j) return diag == PS__UNIT ? 1.0 : AT(*b, s, i, j);
    int in_tri = uplo == PS__LOWER ? i > j : i < j;
    return in_tri ? AT(*b, s, i, j) : 0.0;
}

static void test_trsv(ps__dtype dt) {
    static const int orders[] = {0, 1, 2, 7, 40, 150}; /* 150: OpenCL's blocks of 64 */
    for (size_t t = 0; t < 6; t++)
        for (int combo = 0; combo < 16; combo++) {
            int n = orders[t], inc = 1 + combo / 8;
            ps__uplo uplo = combo & 1 ? PS__LOWER : PS__UPPER;
            ps__trans tr = combo & 2 ? PS__TRANS : PS__NOTRANS;
            ps__diag diag = combo & 4 ? PS__UNIT : PS__NONUNIT;
            shape s = random_shape(n, n);
            tbuf A = tb_random(dt, shape_count(s)), x = tb_random(dt, n * inc + 2);
            make_triangular(&A, s, uplo, diag);
            CHECK(be->ops->trsv(be, dt, uplo, tr, diag, n, view(&A, s), vview(&x, 2, inc)) == 0,
                  "trsv");
            double *got = tb_download(&x);
            for (int i = 0; i < n; i++) { /* residual of op(T) got = b */
                double r = -x.host[2 + (size_t)i * inc], m = fabs(r);
                for (int k = 0; k < n; k++) {
                    double p = tri_at(&A, s, uplo, diag, tr, i, k) * got[2 + (size_t)k * inc];
                    r += p;
                    m += fabs(p);
                }
                CHECK(fabs(r) <= 4.0 * (n + 2) * eps_of(dt) * m, "%strsv combo %d n=%d row %d: %g",
                      dtname(dt), combo, n, i, r);
            }
            CHECK(got[0] == x.host[0] && got[1] == x.host[1], "trsv wrote before its offset");
            free(got);
            tb_free(&A), tb_free(&x);
        }
}

/* ---------------------------------------------------------------- level 3 */

/* BLAS semantics: with beta = 0 C is not read, with alpha = 0 neither A nor B is (NaN there
 * must not reach the result). 300 x 260 x 220 is large enough for the OpenCL backend's own GEMM
 * on GPUs. */
static void test_gemm_unread(ps__dtype dt) {
    const int m = 300, n = 260, k = 220;
    for (int special = 0; special < 3; special++) {
        int beta_zero = special != 1, alpha_zero = special != 0;
        shape sa = random_shape(m, k), sb = random_shape(k, n), sc = random_shape(m, n);
        tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb)),
             C = tb_random(dt, shape_count(sc));
        ps__scalar alpha = ps__scalar_of(dt, alpha_zero ? 0.0 : ps_test_rand()),
                   beta = ps__scalar_of(dt, beta_zero ? 0.0 : ps_test_rand());
        double al = ps__scalar_value(dt, alpha), bt = ps__scalar_value(dt, beta);
        double *ec = copy_of(&C), *mag = calloc((size_t)C.count, sizeof(double));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double sm = 0, sum = alpha_zero ? 0
                                                : oracle_dot(&A, sa, PS__NOTRANS, &B, sb,
                                                             PS__NOTRANS, i, j, k, &sm);
                size_t ci = sc.off + i + (size_t)j * sc.ld;
                ec[ci] = al * sum + (beta_zero ? 0 : bt * C.host[ci]);
                mag[ci] = fabs(al) * sm + (beta_zero ? 0 : fabs(bt * C.host[ci]));
            }
        /* NaN where the product must not look */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++)
                if (beta_zero) C.host[sc.off + i + (size_t)j * sc.ld] = NAN;
        for (int e = 0; e < A.count && alpha_zero; e++) A.host[e] = NAN;
        for (int e = 0; e < B.count && alpha_zero; e++) B.host[e] = NAN;
        upload_all(&A), upload_all(&B), upload_all(&C);
        CHECK(be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m, n, k, &alpha, view(&A, sa),
                            view(&B, sb), &beta, view(&C, sc)) == 0,
              "gemm");
        char what[64];
        snprintf(what, sizeof what, "gemm %dx%dx%d, alpha %g, beta %g", m, n, k, al, bt);
        expect_buffer(what, &C, ec, mag, 2.0 * (k + 2));
        free(ec), free(mag);
        tb_free(&A), tb_free(&B), tb_free(&C);
    }
}

static void test_gemm(ps__dtype dt) {
    /* 700 x 20 x 30: the shape of LU's panel products; 700 x 650 x 600: CLBlast's padded path
     * (its workspace) on POCL */
    static const int dims[][3] = {{0, 3, 2},       {3, 0, 2},      {4, 3, 0},    {1, 1, 1},
                                  {3, 5, 7},       {17, 13, 9},    {33, 65, 31}, {700, 20, 30},
                                  {700, 650, 600}, {129, 513, 257}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int combo = 0; combo < 4; combo++) {
            int m = dims[t][0], n = dims[t][1], k = dims[t][2];
            ps__trans ta = combo & 1 ? PS__TRANS : PS__NOTRANS,
                      tb = combo & 2 ? PS__TRANS : PS__NOTRANS;
            shape sa = ta ? random_shape(k, m) : random_shape(m, k);
            shape sb = tb ? random_shape(n, k) : random_shape(k, n);
            shape sc = random_shape(m, n);
            tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb)),
                 C = tb_random(dt, shape_count(sc));
            double *ec = copy_of(&C), *mag = calloc((size_t)C.count, sizeof(double));
            ps__scalar alpha = ps__scalar_of(dt, ps_test_rand()),
                       beta = ps__scalar_of(dt, ps_test_rand());
            double al = ps__scalar_value(dt, alpha), bt = ps__scalar_value(dt, beta);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double sm, sum = oracle_dot(&A, sa, ta, &B, sb, tb, i, j, k, &sm);
                    size_t ci = sc.off + i + (size_t)j * sc.ld;
                    ec[ci] = al * sum + bt * C.host[ci];
                    mag[ci] = fabs(al) * sm + fabs(bt * C.host[ci]);
                }
            CHECK(be->ops->gemm(be, dt, ta, tb, m, n, k, &alpha, view(&A, sa), view(&B, sb), &beta,
                                view(&C, sc)) == 0,
                  "gemm");
            char what[64];
            snprintf(what, sizeof what, "gemm %c%c %dx%dx%d", ta ? 'T' : 'N', tb ? 'T' : 'N', m, n,
                     k);
            expect_buffer(what, &C, ec, mag, 2.0 * (k + 2));
            /* a sync between products (OpenCL gives its GEMM workspace back there) */
            if (combo == 1) CHECK(be->ops->sync(be) == 0, "sync");
            free(ec), free(mag);
            tb_free(&A), tb_free(&B), tb_free(&C);
        }
    test_gemm_unread(dt);
}

/* Orders from one to several hundred (the blocked Cholesky's panel updates); the last case has
 * beta = 0 over a C of NaN in the referenced triangle, which BLAS must not read. */
static void test_syrk(ps__dtype dt) {
    static const int dims[][2] = {{0, 2},   {1, 1},   {5, 3},    {17, 9},
                                  {40, 41}, {64, 16}, {130, 70}, {513, 5}};
    const size_t cases = sizeof dims / sizeof dims[0];
    for (size_t t = 0; t < cases + 1; t++)
        for (int combo = 0; combo < 4; combo++) {
            int beta_zero = t == cases;
            int n = beta_zero ? 70 : dims[t][0], k = beta_zero ? 20 : dims[t][1];
            ps__uplo uplo = combo & 1 ? PS__LOWER : PS__UPPER;
            ps__trans tr = combo & 2 ? PS__TRANS : PS__NOTRANS;
            shape sa = tr ? random_shape(k, n) : random_shape(n, k), sc = random_shape(n, n);
            tbuf A = tb_random(dt, shape_count(sa)), C = tb_random(dt, shape_count(sc));
            if (beta_zero) {
                for (int j = 0; j < n; j++)
                    for (int i = uplo == PS__LOWER ? j : 0; i < (uplo == PS__LOWER ? n : j + 1);
                         i++)
                        C.host[sc.off + i + (size_t)j * sc.ld] = NAN;
                upload_all(&C);
            }
            double *ec = copy_of(&C), *mag = calloc((size_t)C.count, sizeof(double));
            ps__scalar alpha = ps__scalar_of(dt, ps_test_rand()),
                       beta = ps__scalar_of(dt, beta_zero ? 0.0 : ps_test_rand());
            double al = ps__scalar_value(dt, alpha), bt = ps__scalar_value(dt, beta);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) {
                    if (uplo == PS__LOWER ? i < j : i > j) continue; /* other triangle untouched */
                    /* op(A)(i, :) . op(A)(j, :): the second factor is op(A)^T */
                    double sm, sum = oracle_dot(&A, sa, tr, &A, sa, tr ? PS__NOTRANS : PS__TRANS, i,
                                                j, k, &sm);
                    size_t ci = sc.off + i + (size_t)j * sc.ld;
                    double old = beta_zero ? 0.0 : C.host[ci];
                    ec[ci] = al * sum + bt * old;
                    mag[ci] = fabs(al) * sm + fabs(bt * old);
                }
            CHECK(be->ops->syrk(be, dt, uplo, tr, n, k, &alpha, view(&A, sa), &beta,
                                view(&C, sc)) == 0,
                  "syrk");
            expect_buffer("syrk", &C, ec, mag, 2.0 * (k + 2));
            free(ec), free(mag);
            tb_free(&A), tb_free(&C);
        }
}

static void test_trsm(ps__dtype dt) {
    /* One column of order 512 and more: the CUDA backend's one-launch trsv (full and partial
     * block rows); one column and one row of several blocks: the OpenCL backend's blocked trsv.
     * Triangles of 16..160 with 8192 and more right-hand sides: the CUDA backend's small-triangle
     * kernel (two threads per column or row, split into halves above 64). Each untransposed solve
     * also by ps__trsm_recursive (core/base/trsm_recursive.h) with random small leaves, so that it
     * recurses several levels on both halves. m, n, and the sides to run (1 left, 2 right): the
     * oracle costs the triangle's order squared times the vectors it checks. */
    static const int dims[][3] = {{0, 3, 3},     {3, 0, 3},     {1, 1, 3},     {5, 3, 3},
                                  {17, 9, 3},    {40, 33, 3},   {131, 45, 3},  {512, 1, 3},
                                  {777, 1, 3},   {1100, 1, 3},  {64, 8200, 1}, {160, 8195, 1},
                                  {8200, 97, 2}, {8193, 16, 2}, {1, 700, 2}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int way = 0; way < 2 * 16; way++) {
            int combo = way % 16, recursive = way >= 16;
            if (recursive && combo & 4) continue; /* transposed: no recursive form */
            int m = dims[t][0], n = dims[t][1];
            if (recursive && m * n > 20000) continue; /* the small orders test it enough */
            ps__side side = combo & 1 ? PS__RIGHT : PS__LEFT;
            if (!(dims[t][2] & (side == PS__LEFT ? 1 : 2))) continue;
            ps__uplo uplo = combo & 2 ? PS__LOWER : PS__UPPER;
            ps__trans tr = combo & 4 ? PS__TRANS : PS__NOTRANS;
            ps__diag diag = combo & 8 ? PS__UNIT : PS__NONUNIT;
            int na = side == PS__LEFT ? m : n;
            shape sa = random_shape(na, na), sb = random_shape(m, n);
            tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb));
            make_triangular(&A, sa, uplo, diag);
            ps__scalar alpha = ps__scalar_of(dt, 0.5 + ps_test_rand());
            double al = ps__scalar_value(dt, alpha);
            int leaf = 1 + ps_test_rand_int(16);
            ps_status st = recursive ? ps__trsm_recursive(be, dt, side, uplo, diag, m, n, &alpha,
                                                          view(&A, sa), view(&B, sb), leaf)
                                     : be->ops->trsm(be, dt, side, uplo, tr, diag, m, n, &alpha,
                                                     view(&A, sa), view(&B, sb));
            CHECK(st == PS_SUCCESS, "%s", recursive ? "trsm_recursive" : "trsm");
            double *got = tb_download(&B);
            int bad = 0;
            /* with hundreds and more vectors (columns on the left, rows on the right), about 64
             * of them from a random start, and the last, are checked: each vector is solved
             * alone, and the oracle's cost would otherwise dominate the suite */
            int vectors = side == PS__LEFT ? n : m, stride = vectors > 256 ? vectors / 64 : 1;
            int first = ps_test_rand_int(stride);
            for (int j = 0; j < n && !bad; j++)
                for (int i = 0; i < m && !bad; i++) { /* residual of op(A) X = alpha B or X op(A) */
                    int v = side == PS__LEFT ? j : i;
                    if (v % stride != first && v != vectors - 1) continue;
                    double r = -al * AT(B, sb, i, j), mg = fabs(r);
                    for (int p = 0; p < na; p++) {
                        double prod = side == PS__LEFT ? tri_at(&A, sa, uplo, diag, tr, i, p) *
                                                             got[sb.off + p + (size_t)j * sb.ld]
                                                       : got[sb.off + i + (size_t)p * sb.ld] *
                                                             tri_at(&A, sa, uplo, diag, tr, p, j);
                        r += prod;
                        mg += fabs(prod);
                    }
                    if (!(fabs(r) <= 4.0 * (na + 2) * eps_of(dt) * mg)) {
                        CHECK(0, "%strsm%s combo %d %dx%d (%d,%d): residual %g of %g", dtname(dt),
                              recursive ? " (recursive)" : "", combo, m, n, i, j, r, mg);
                        bad = 1;
                    }
                }
            for (int e = 0; e < B.count && !bad; e++) { /* outside the view: untouched */
                int row = (int)((e - (int)sb.off) % sb.ld), col = (e - (int)sb.off) / sb.ld;
                int inside = e >= (int)sb.off && row < m && col < n;
                if (!inside && got[e] != B.host[e]) {
                    CHECK(0, "trsm wrote element %d outside its view", e);
                    bad = 1;
                }
            }
            if (!bad) CHECK(1, "trsm");
            free(got);
            tb_free(&A), tb_free(&B);
        }
}

/* alpha = 0: B becomes zero without being read (BLAS), NaN in B included, on the backends' own
 * paths too (the CUDA small-triangle kernel from 8192 right-hand sides). */
static void test_trsm_alpha_zero(ps__dtype dt) {
    static const int dims[][2] = {{5, 3}, {64, 8200}, {8200, 40}};
    for (int t = 0; t < 3; t++) {
        int m = dims[t][0], n = dims[t][1];
        ps__side side = t == 2 ? PS__RIGHT : PS__LEFT;
        ps__uplo uplo = ps_test_rand_int(2) ? PS__LOWER : PS__UPPER;
        int na = side == PS__LEFT ? m : n;
        shape sa = random_shape(na, na), sb = random_shape(m, n);
        tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb));
        make_triangular(&A, sa, uplo, PS__NONUNIT);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) AT(B, sb, i, j) = NAN;
        upload_all(&B);
        ps__scalar zero = ps__scalar_of(dt, 0.0);
        CHECK(be->ops->trsm(be, dt, side, uplo, PS__NOTRANS, PS__NONUNIT, m, n, &zero, view(&A, sa),
                            view(&B, sb)) == PS_SUCCESS,
              "trsm alpha 0");
        double *got = tb_download(&B);
        int bad = 0;
        for (int e = 0; e < B.count && !bad; e++) {
            int row = (int)((e - (int)sb.off) % sb.ld), col = (e - (int)sb.off) / sb.ld;
            int inside = e >= (int)sb.off && row < m && col < n;
            if (inside ? got[e] != 0.0 : got[e] != B.host[e]) {
                CHECK(0, "%strsm alpha 0 %dx%d: element %d is %g", dtname(dt), m, n, e, got[e]);
                bad = 1;
            }
        }
        if (!bad) CHECK(1, "trsm alpha 0");
        free(got);
        tb_free(&A), tb_free(&B);
    }
}

/* ---------------------------------------------------------------- LAPACK-like and custom */

/* A pivot for row k of a rows-row matrix whose interchanges cover rows [k1, k2). mode 0:
 * getrf's, any row at or below k; 1: getrf's, crowded onto a few rows (k itself, k + 1 and the
 * first rows below k2, so later steps choose rows earlier ones wrote); 2: any row (WZ's). */
static int laswp_pivot(int mode, int rows, int k, int k2) {
    if (mode == 2) return ps_test_rand_int(rows);
    if (mode == 0) return k + ps_test_rand_int(rows - k);
    int pick = ps_test_rand_int(4);
    if (pick == 0 || k + 1 >= rows) return k;
    if (pick == 1) return k + 1;
    int below = rows - k2 < 3 ? rows - k2 : 3; /* rows below the interchanged range */
    return below > 0 ? k2 + ps_test_rand_int(below) : k + ps_test_rand_int(rows - k);
}

/* Sizes cover the CUDA kernel's paths: one block of columns and several, at most 256
 * interchanges per launch and more (chunks in order), rows below the range. */
static void test_laswp(ps__dtype dt) {
    static const int dims[][2] = {{1, 1}, {5, 3}, {17, 9}, {70, 33}, {300, 150}, {620, 70}};
    for (size_t t = 0; t < 6; t++)
        for (int which = 0; which < 12; which++) {
            int rows = dims[t][0], ncols = dims[t][1], forward = which & 1, mode = which / 4;
            const ps__backend_ops *ops = which & 2 ? ps__backend_defaults() : be->ops;
            int k1 = rows > 2 ? 1 : 0, k2 = rows > 100 ? rows - rows / 10 : rows;
            int *piv = malloc(sizeof(int) * (size_t)(rows + 2));
            piv[0] = piv[1] = -99; /* before ipiv_off: must not be read */
            for (int k = k1; k < k2; k++) piv[2 + k - k1] = laswp_pivot(mode, rows, k, k2);
            tbuf P = int_buffer(2 + k2 - k1, piv);
            shape s = random_shape(rows, ncols);
            tbuf A = tb_random(dt, shape_count(s));
            double *ea = copy_of(&A);
            for (int q = 0; q < k2 - k1; q++) {
                int k = forward ? k1 + q : k2 - 1 - q, p = piv[2 + k - k1];
                for (int j = 0; j < ncols; j++) {
                    size_t a = s.off + k + (size_t)j * s.ld, b = s.off + p + (size_t)j * s.ld;
                    double tmp = ea[a];
                    ea[a] = ea[b];
                    ea[b] = tmp;
                }
            }
            CHECK(ops->laswp(be, dt, ncols, view(&A, s), k1, k2, P.dev, 2, forward) == 0, "laswp");
            expect_buffer(which & 2 ? "default laswp" : "laswp", &A, ea, NULL, 0);
            free(piv), free(ea);
            tb_free(&P), tb_free(&A);
        }
}

/* Whether the backend's factored panel ga (the whole buffer, view s, pivots piv relative to the
 * panel) is an LU factorization of the input a0 as accurate as LAPACK's: outside the m x n view
 * unchanged, and inside P a0 - L U within the componentwise backward error bound of Gaussian
 * elimination, a small multiple of k eps |L||U| for k-term sums (Higham, Accuracy and Stability,
 * Thm. 9.3). Elementwise agreement with the oracle's factors is no test: behind a small pivot, a
 * rounding (an FMA or not) moves L and U far more than eps while both stay exact factors of a
 * nearby matrix (a 9 x 9 float panel with the pivot 0.0048 differed by 7e-5 in U(8,8), where both
 * factorizations' backward errors were 1 eps). */
static int panel_factors_ok(ps__dtype dt, int m, int n, shape s, const double *a0, const int *piv,
                            const double *ga, int count) {
    int steps = m < n ? m : n;
    double *pa = rows_interchanged(s, m, n, a0, piv, steps); /* P a0, ld m */
    int ok = outside_view_kept(s, m, n, a0, ga, count) && pa;
#define G(i, j) ga[s.off + (size_t)(i) + (size_t)(j) * (size_t)s.ld]
    for (int j = 0; j < n && ok; j++)
        for (int i = 0; i < m && ok; i++) {
            int terms = (i < j ? i : j) + 1; /* gamma_terms of Higham's bound, with margin */
            double lu = 0, mag = 0;          /* (L U)(i, j) and (|L||U|)(i, j) */
            for (int k = 0; k < terms && k < steps; k++) {
                double l = k == i ? 1.0 : G(i, k);
                lu += l * G(k, j);
                mag += fabs(l) * fabs(G(k, j));
            }
            if (fabs(pa[i + (size_t)j * m] - lu) > 2.0 * (terms + 2) * eps_of(dt) * mag + DBL_MIN)
                ok = 0;
        }
#undef G
    free(pa);
    return ok;
}

/* The first step of a factored panel (pivots piv relative to it) whose pivot is not its
 * column's largest, up to rounding (pivot_is_largest, on the column rebuilt from the backend's
 * own factors), or -1; 0 also when a pivot is out of range. */
static int pivots_not_largest(ps__dtype dt, int m, int n, shape s, const double *a0, const int *piv,
                              const double *ga) {
    int steps = m < n ? m : n, bad = -1;
    double *pa = rows_interchanged(s, m, n, a0, piv, steps);
    if (!pa) return 0;
    double *r = malloc(sizeof(double) * (size_t)m), *mag = malloc(sizeof(double) * (size_t)m);
    for (int k = 0; k < steps && bad < 0; k++) {
        reduced_column(s, m, pa, ga, k, k, r, mag);
        for (int i = k; i < m; i++) r[i] = fabs(r[i]);
        if (!pivot_is_largest(dt, m, k, r, mag)) bad = k;
    }
    free(pa), free(r), free(mag);
    return bad;
}

/* The panel kernel of this backend and the portable default: its pivots those of partial
 * pivoting up to rounding (pivots_not_largest; where two rows differ by rounding alone the CPU
 * oracle may pick the other), info against the oracle's, and the factors of the input
 * (panel_factors_ok). Tall
 * leaves reach the OpenCL backend's column-step kernel (from 512 rows on CPU devices, 2048 on
 * GPUs), with a width it does not take (70) and a single column beside. */
/* The pivot check itself: a panel eliminated without interchanges (exact factors, the wrong
 * pivots) must be refused. */
static void test_pivot_check(ps__dtype dt) {
    int m = 50, n = 6, piv[6];
    shape s = random_shape(m, n);
    tbuf A = tb_random(dt, shape_count(s));
    double *ga = copy_of(&A);
#define G(i, j) ga[s.off + (size_t)(i) + (size_t)(j) * (size_t)s.ld]
    for (int k = 0; k < n; k++) {
        piv[k] = k;
        for (int i = k + 1; i < m; i++) {
            G(i, k) /= G(k, k);
            for (int j = k + 1; j < n; j++) G(i, j) -= G(i, k) * G(k, j);
        }
    }
#undef G
    CHECK(pivots_not_largest(dt, m, n, s, A.host, piv, ga) >= 0,
          "the pivot check accepts a %s panel eliminated without interchanges", dtname(dt));
    free(ga);
    tb_free(&A);
}

static void test_getrf_panel(ps__dtype dt) {
    test_pivot_check(dt);
    static const int dims[][2] = {{1, 1},     {5, 3},    {17, 16},  {64, 8},
                                  {300, 32},  {9, 9},    {700, 16}, {1030, 33},
                                  {2100, 64}, {600, 70}, {2050, 1}, {4100, 5}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int which = 0; which < 2; which++)
            for (int zero_col = -1; zero_col < 2; zero_col += 2) {
                int m = dims[t][0], n = dims[t][1], row_base = 3;
                const ps__lu_kernels *ops = FAMILY(lu, which);
                shape s = random_shape(m, n);
                tbuf A = tb_random(dt, shape_count(s));
                int zc = zero_col > 0 && n > 1 ? 1 : -1; /* make column 1 exactly zero */
                if (zc >= 0) {
                    for (int i = 0; i < m; i++) AT(A, s, i, zc) = 0;
                    upload_all(&A);
                }
                /* an info already set by an earlier panel must survive */
                int init = zc >= 0 && t % 2 ? 77 : 0;
                int *zeros = calloc((size_t)n + 2, sizeof(int));
                tbuf P = int_buffer(n + 2, zeros), info = int_buffer(1, &init);
                ps_status pst =
                    ops->getrf_panel(be, dt, m, n, view(&A, s), P.dev, 2, row_base, info.dev);
                CHECK(pst == PS_SUCCESS, "%sgetrf_panel %dx%d: %s", which ? "default " : "", m, n,
                      be->err);
                /* the oracle on the host, in the same precision */
                void *h = tb_native_copy(&A);
                int32_t opiv[128], oinfo = init;
                ps__mat hv = {h, s.off, s.ld};
                CPU_FAMILY(lu)->getrf_panel(NULL, dt, m, n, hv, opiv, 0, row_base, &oinfo);
                double *gp = tb_download(&P), *gi = tb_download(&info), *ga = tb_download(&A);
                int want_info = init ? init : zc < 0 ? 0 : row_base + zc + 1;
                CHECK((int)gi[0] == oinfo && oinfo == want_info, "getrf_panel info %g, oracle %d",
                      gi[0], (int)oinfo);
                int rel_piv[128];
                for (int i = 0; i < n && i < m; i++) rel_piv[i] = (int)gp[2 + i] - row_base;
                int bad_step = pivots_not_largest(dt, m, n, s, A.host, rel_piv, ga);
                CHECK(bad_step < 0,
                      "%s%sgetrf_panel %dx%d: step %d's pivot (row %d; the oracle's %d) is not the "
                      "column's largest",
                      which ? "default " : "", dtname(dt), m, n, bad_step,
                      bad_step >= 0 ? rel_piv[bad_step] : 0,
                      bad_step >= 0 ? opiv[bad_step] - row_base : 0);
                CHECK(panel_factors_ok(dt, m, n, s, A.host, rel_piv, ga, A.count),
                      "%s%sgetrf_panel %dx%d: not the factors of the input (P A != L U)",
                      which ? "default " : "", dtname(dt), m, n);
                free(h), free(zeros), free(gp), free(gi), free(ga);
                tb_free(&A), tb_free(&P), tb_free(&info);
            }
}

/*
 * Look-ahead lanes, on backends that have two: a product queued on one lane behind a few large
 * products that delay it, then lane_wait, then a copy of its result on the other lane must copy
 * the finished product (a lane_wait that orders nothing copies the old values on devices that
 * run queues side by side); and products queued on both lanes at once must not disturb each
 * other (each lane keeps its own GEMM workspace on OpenCL).
 */
static void test_lanes(ps__dtype dt) {
    if (!be->ops->lanes || be->ops->lanes(be) < 2) return;
    const int n = 384, m2 = 200, delay = 768, delays = 4;
    shape sdelay = {delay, delay, delay, 0};
    tbuf E = tb_random(dt, delay * delay), F = tb_random(dt, delay * delay);
    for (int signaller = 0; signaller < 2; signaller++) {
        int waiter = 1 - signaller;
        shape sa = random_shape(n, n), sb = random_shape(n, n), sc = random_shape(n, n),
              sd = random_shape(n, n), s2a = random_shape(m2, n), s2b = random_shape(n, m2),
              s2c = random_shape(m2, m2);
        tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb)),
             C = tb_random(dt, shape_count(sc)), D = tb_random(dt, shape_count(sd)),
             A2 = tb_random(dt, shape_count(s2a)), B2 = tb_random(dt, shape_count(s2b)),
             C2 = tb_random(dt, shape_count(s2c));
        ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0);
        double *ed = copy_of(&D), *mag = calloc((size_t)D.count, sizeof(double));
        double *ec2 = copy_of(&C2), *mag2 = calloc((size_t)C2.count, sizeof(double));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                ed[sd.off + i + (size_t)j * sd.ld] =
                    oracle_dot(&A, sa, PS__NOTRANS, &B, sb, PS__NOTRANS, i, j, n,
                               &mag[sd.off + i + (size_t)j * sd.ld]);
        for (int j = 0; j < m2; j++)
            for (int i = 0; i < m2; i++)
                ec2[s2c.off + i + (size_t)j * s2c.ld] =
                    oracle_dot(&A2, s2a, PS__NOTRANS, &B2, s2b, PS__NOTRANS, i, j, n,
                               &mag2[s2c.off + i + (size_t)j * s2c.ld]);
        CHECK(be->ops->use_lane(be, signaller) == 0, "use_lane %d", signaller);
        for (int d = 0; d < delays; d++) /* F = E E: only to keep the lane busy */
            CHECK(be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, delay, delay, delay, &one,
                                view(&E, sdelay), view(&E, sdelay), &zero, view(&F, sdelay)) == 0,
                  "delaying gemm on lane %d", signaller);
        CHECK(be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, n, n, n, &one, view(&A, sa),
                            view(&B, sb), &zero, view(&C, sc)) == 0,
              "gemm on lane %d", signaller);
        CHECK(be->ops->use_lane(be, waiter) == 0, "use_lane %d", waiter);
        /* a product of its own on the waiting lane, before the wait: runs beside the first */
        CHECK(be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m2, m2, n, &one, view(&A2, s2a),
                            view(&B2, s2b), &zero, view(&C2, s2c)) == 0,
              "gemm on lane %d", waiter);
        CHECK(be->ops->lane_wait(be, waiter, signaller) == 0, "lane_wait(%d, %d): %s", waiter,
              signaller, be->err);
        CHECK(be->ops->copy2d(be, dt, n, n, view(&C, sc), view(&D, sd)) == 0, "copy2d");
        CHECK(be->ops->use_lane(be, 0) == 0, "use_lane 0");
        CHECK(be->ops->sync(be) == 0, "sync");
        char what[64];
        snprintf(what, sizeof what, "lane %d's product copied on lane %d", signaller, waiter);
        expect_buffer(what, &D, ed, mag, 2.0 * (n + 2));
        snprintf(what, sizeof what, "product on lane %d beside lane %d's", waiter, signaller);
        expect_buffer(what, &C2, ec2, mag2, 2.0 * (n + 2));
        free(ed), free(mag), free(ec2), free(mag2);
        tb_free(&A), tb_free(&B), tb_free(&C), tb_free(&D);
        tb_free(&A2), tb_free(&B2), tb_free(&C2);
    }
    tb_free(&E), tb_free(&F);
}

/* Every group, or with --case NAME only that one (the runs under a backend knob that changes
 * a few entries, tests/CMakeLists.txt). A name that matches nothing runs no check, which fails. */
static void run_all(ps__dtype dt) {
    static const struct {
        const char *name;
        void (*run)(ps__dtype);
    } groups[] = {{"memory", test_memory},
                  {"copy_triangle", test_copy_triangle},
                  {"level1", test_level1},
                  {"level2", test_level2},
                  {"gemv_contiguous", test_gemv_contiguous},
                  {"trsv", test_trsv},
                  {"gemm", test_gemm},
                  {"syrk", test_syrk},
                  {"trsm", test_trsm},
                  {"trsm_alpha_zero", test_trsm_alpha_zero},
                  {"laswp", test_laswp},
                  {"getrf_panel", test_getrf_panel},
                  {"lanes", test_lanes}};
    const char *only = ps_test_case();
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        if (!only || strcmp(only, groups[g].name) == 0) groups[g].run(dt);
}

int main(int argc, char **argv) {
    return vtable_main(argc, argv, "test_vtable", run_all);
}
