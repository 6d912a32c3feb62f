/*
 * The inversion and Gauss-Jordan vtable entries on the backend given by --backend, and their
 * portable defaults, against naive loops on host mirrors: trmm (all 16 side/uplo/trans/diag
 * combinations, the triangle's other half filled with garbage that must not be read), colswp
 * (forward and backward, any pivots and getrf's kind, exact), transpose (exact) and the stripe
 * update jk -= ji ik (stripe heights 1..300,
 * including ones that do not divide the rows). Views have random offsets and leading dimensions,
 * and nothing outside a view may change. Also the helpers of the transposed layouts on this
 * backend's entries (core/base/tview.c): gemm and trsm on blocks stored either way, in every
 * combination, and the in-place transpose by strips.
 */
#include "base/tview.h"
#include "vtable_harness.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* op(a)(i,j) of a triangular view whose other half holds garbage. */
static double tri(const tbuf *a, shape s, ps__uplo uplo, ps__diag diag, ps__trans tr, int i,
                  int j) {
    if (tr == PS__TRANS) {
        int t = i;
        i = j;
        j = t;
    }
    if (i == j) return diag == PS__UNIT ? 1.0 : AT(*a, s, i, j);
    return (uplo == PS__LOWER ? i > j : i < j) ? AT(*a, s, i, j) : 0.0;
}

/* Expected buffer: the mirror with the view's elements replaced by want (m x n, column-major);
 * mag: the magnitude each element's rounding is relative to. */
static int check_view(const char *what, const tbuf *b, shape s, int m, int n, const double *want,
                      const double *wmag, double tol) {
    double *e = copy_of(b), *mag = malloc(sizeof(double) * (size_t)b->count);
    for (int i = 0; i < b->count; i++) mag[i] = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            size_t at = s.off + (size_t)i + (size_t)j * s.ld;
            e[at] = want[i + (size_t)j * m];
            mag[at] = wmag[i + (size_t)j * m];
        }
    int ok = expect_buffer(what, b, e, mag, tol);
    free(e), free(mag);
    return ok;
}

static void test_trmm(ps__dtype dt) {
    static const int dims[][2] = {{0, 3}, {3, 0}, {1, 1}, {2, 5}, {5, 3}, {17, 9}, {40, 33}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int combo = 0; combo < 32; combo++) {
            int m = dims[t][0], n = dims[t][1];
            const ps__backend_ops *ops = combo & 16 ? ps__backend_defaults() : be->ops;
            ps__side side = combo & 1 ? PS__RIGHT : PS__LEFT;
            ps__uplo uplo = combo & 2 ? PS__LOWER : PS__UPPER;
            ps__trans tr = combo & 4 ? PS__TRANS : PS__NOTRANS;
            ps__diag diag = combo & 8 ? PS__UNIT : PS__NONUNIT;
            int na = side == PS__LEFT ? m : n;
            shape sa = random_shape(na, na), sb = random_shape(m, n);
            tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb));
            ps__scalar alpha = ps__scalar_of(dt, 0.5 + ps_test_rand());
            double al = ps__scalar_value(dt, alpha);
            double *want = malloc(sizeof(double) * (size_t)(m * n + 1));
            double *mag = malloc(sizeof(double) * (size_t)(m * n + 1));
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double r = 0, g = 0;
                    for (int p = 0; p < na; p++) {
                        double prod = side == PS__LEFT
                                          ? tri(&A, sa, uplo, diag, tr, i, p) * AT(B, sb, p, j)
                                          : AT(B, sb, i, p) * tri(&A, sa, uplo, diag, tr, p, j);
                        r += prod;
                        g += fabs(prod);
                    }
                    want[i + (size_t)j * m] = al * r;
                    mag[i + (size_t)j * m] = fabs(al) * g;
                }
            ps_status st =
                ops->trmm(be, dt, side, uplo, tr, diag, m, n, &alpha, view(&A, sa), view(&B, sb));
            CHECK(st == PS_SUCCESS, "%strmm%s combo %d: %s", dtname(dt),
                  combo & 16 ? " default" : "", combo, be->err);
            char what[64];
            snprintf(what, sizeof what, "%strmm%s combo %d %dx%d", dtname(dt),
                     combo & 16 ? " default" : "", combo & 15, m, n);
            check_view(what, &B, sb, m, n, want, mag, 4.0 * (na + 2));
            free(want), free(mag);
            tb_free(&A), tb_free(&B);
        }
}

/* Pivots of colswp's list k1..k2-1 into piv[2 ..]: any column, or getrf's kind (column k swaps
 * with one at or right of it), which the CUDA backend composes on the device for short lists. */
static void draw_pivots(int *piv, int ncols, int k1, int k2, int getrf_kind) {
    for (int k = k1; k < k2; k++)
        piv[2 + k - k1] = getrf_kind ? k + ps_test_rand_int(ncols - k) : ps_test_rand_int(ncols);
}

static void test_colswp(ps__dtype dt) {
    /* {2, 2100} and {300, 700}: long cycles, which the CUDA backend cuts into pieces; {1000, 300}
     * and {37, 1030}: getrf's kind in chunks of 256 over many blocks of rows (1030 interchanges:
     * planned on the host by CUDA, 1029 from k1 = 1 on the device) */
    static const int dims[][2] = {{1, 1},     {5, 3},    {17, 9},     {70, 33},  {3, 130},
                                  {300, 700}, {2, 2100}, {1000, 300}, {37, 1030}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int which = 0; which < 8; which++) {
            int rows = dims[t][0], ncols = dims[t][1], forward = which & 1;
            const ps__backend_ops *ops = which & 2 ? ps__backend_defaults() : be->ops;
            int k1 = ncols > 2 ? 1 : 0, k2 = ncols, getrf_kind = which & 4;
            int *piv = malloc(sizeof(int) * (size_t)(ncols + 2));
            for (int i = 0; i < ncols + 2; i++) piv[i] = -1;
            draw_pivots(piv, ncols, k1, k2, getrf_kind);
            tbuf ipiv = int_buffer(ncols + 2, piv);
            shape s = random_shape(rows, ncols);
            tbuf A = tb_random(dt, shape_count(s));
            double *e = copy_of(&A);
            for (int q = 0; q < k2 - k1; q++) {
                int k = forward ? k1 + q : k2 - 1 - q, p = piv[2 + k - k1];
                for (int i = 0; i < rows; i++) {
                    size_t x = s.off + i + (size_t)k * s.ld, y = s.off + i + (size_t)p * s.ld;
                    double v = e[x];
                    e[x] = e[y];
                    e[y] = v;
                }
            }
            ps_status st = ops->colswp(be, dt, rows, view(&A, s), k1, k2, ipiv.dev, 2, forward);
            CHECK(st == PS_SUCCESS, "colswp: %s", be->err);
            char what[96];
            snprintf(what, sizeof what, "%scolswp%s %dx%d forward=%d%s", dtname(dt),
                     which & 2 ? " default" : "", rows, ncols, forward,
                     getrf_kind ? " getrf pivots" : "");
            expect_buffer(what, &A, e, NULL, 0);
            free(e), free(piv);
            tb_free(&A), tb_free(&ipiv);
        }
}

/* dst = src^T, exact, between views with their own offsets and leading dimensions. */
static void test_transpose(ps__dtype dt) {
    static const int dims[][2] = {{0, 3}, {3, 0}, {1, 1},   {1, 7},
                                  {7, 1}, {5, 3}, {33, 65}, {300, 40}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int which = 0; which < 2; which++) {
            int rows = dims[t][0], cols = dims[t][1];
            const ps__backend_ops *ops = which ? ps__backend_defaults() : be->ops;
            shape ss = random_shape(rows, cols), sd = random_shape(cols, rows);
            tbuf src = tb_random(dt, shape_count(ss)), dst = tb_random(dt, shape_count(sd));
            double *e = copy_of(&dst), *e_src = copy_of(&src);
            for (int j = 0; j < cols; j++)
                for (int i = 0; i < rows; i++)
                    e[sd.off + (size_t)j + (size_t)i * sd.ld] = AT(src, ss, i, j);
            ps_status st = ops->transpose(be, dt, rows, cols, view(&src, ss), view(&dst, sd));
            CHECK(st == PS_SUCCESS, "transpose: %s", be->err);
            char what[64];
            snprintf(what, sizeof what, "%stranspose%s %dx%d", dtname(dt), which ? " default" : "",
                     rows, cols);
            expect_buffer(what, &dst, e, NULL, 0);
            expect_buffer(what, &src, e_src, NULL, 0); /* the source is left as it was */
            free(e), free(e_src);
            tb_free(&src), tb_free(&dst);
        }
}

static void test_stripe_update(ps__dtype dt) {
    /* m, ncols, s: single rows and columns, tiles that do not divide, a wide stripe */
    static const int dims[][3] = {{0, 4, 3},      {4, 0, 3},      {5, 4, 0},    {1, 1, 1},
                                  {7, 5, 3},      {64, 64, 16},   {65, 67, 32}, {130, 33, 7},
                                  {100, 260, 64}, {300, 40, 300}, {33, 2, 128}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int which = 0; which < 2; which++) {
            int m = dims[t][0], nc = dims[t][1], s = dims[t][2];
            const ps__gj_kernels *ops = FAMILY(gj, which);
            shape sj = random_shape(m, s), si = random_shape(s, nc), sk = random_shape(m, nc);
            tbuf JI = tb_random(dt, shape_count(sj)), IK = tb_random(dt, shape_count(si));
            tbuf JK = tb_random(dt, shape_count(sk));
            double *want = malloc(sizeof(double) * (size_t)(m * nc + 1));
            double *mag = malloc(sizeof(double) * (size_t)(m * nc + 1));
            for (int j = 0; j < nc; j++)
                for (int i = 0; i < m; i++) {
                    double r = AT(JK, sk, i, j), g = fabs(r);
                    for (int p = 0; p < s; p++) {
                        double prod = AT(JI, sj, i, p) * AT(IK, si, p, j);
                        r -= prod;
                        g += fabs(prod);
                    }
                    want[i + (size_t)j * m] = r;
                    mag[i + (size_t)j * m] = g;
                }
            ps_status st = ops->gj_stripe_update(be, dt, m, nc, s, view(&JI, sj), view(&IK, si),
                                                 view(&JK, sk));
            CHECK(st == PS_SUCCESS, "gj_stripe_update: %s", be->err);
            char what[80];
            snprintf(what, sizeof what, "%sgj_stripe_update%s m=%d ncols=%d s=%d", dtname(dt),
                     which ? " default" : "", m, nc, s);
            check_view(what, &JK, sk, m, nc, want, mag, 4.0 * (s + 2));
            free(want), free(mag);
            tb_free(&JI), tb_free(&IK), tb_free(&JK);
        }
}

/* Element (i, j) of the block v of b, stored as is or transposed (storage shape s). */
static double block_at(const tbuf *b, shape s, int t, int i, int j) {
    return t ? AT(*b, s, j, i) : AT(*b, s, i, j);
}

/* A rows x cols block stored as is or transposed: its storage shape. */
static shape block_shape(int rows, int cols, int t) {
    return t ? random_shape(cols, rows) : random_shape(rows, cols);
}

/* want (the block's m x n values, column-major) laid out as the storage of a block stored t. */
static double *as_stored(const double *want, int m, int n, int t) {
    double *w = malloc(sizeof(double) * (size_t)(m * n + 1));
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            w[t ? j + (size_t)i * n : i + (size_t)j * m] = want[i + (size_t)j * m];
    return w;
}

/* c = alpha a b + beta c with each of a, b, c stored as is or transposed. */
static void test_gemm_tv(ps__dtype dt) {
    static const int dims[][3] = {{0, 3, 2}, {3, 0, 2}, {1, 1, 1}, {5, 3, 4}, {17, 9, 13}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int combo = 0; combo < 8; combo++) {
            int m = dims[d][0], n = dims[d][1], k = dims[d][2];
            int ta = combo & 1, tb = (combo >> 1) & 1, tc = (combo >> 2) & 1;
            shape sa = block_shape(m, k, ta), sb = block_shape(k, n, tb),
                  sc = block_shape(m, n, tc);
            tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb));
            tbuf C = tb_random(dt, shape_count(sc));
            ps__scalar alpha = ps__scalar_of(dt, 0.5 + ps_test_rand()),
                       beta = ps__scalar_of(dt, 0.25 + ps_test_rand());
            double al = ps__scalar_value(dt, alpha), bt = ps__scalar_value(dt, beta);
            double *want = malloc(sizeof(double) * (size_t)(m * n + 1));
            double *mag = malloc(sizeof(double) * (size_t)(m * n + 1));
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double r = 0, g = 0;
                    for (int p = 0; p < k; p++) {
                        double prod = block_at(&A, sa, ta, i, p) * block_at(&B, sb, tb, p, j);
                        r += prod;
                        g += fabs(prod);
                    }
                    double c0 = block_at(&C, sc, tc, i, j);
                    want[i + (size_t)j * m] = al * r + bt * c0;
                    mag[i + (size_t)j * m] = fabs(al) * g + fabs(bt * c0);
                }
            ps_status st =
                ps__gemm_tv(be, dt, m, n, k, &alpha, (ps__tview){view(&A, sa), ta},
                            (ps__tview){view(&B, sb), tb}, &beta, (ps__tview){view(&C, sc), tc});
            CHECK(st == PS_SUCCESS, "%sgemm_tv combo %d: %s", dtname(dt), combo, be->err);
            double *ws = as_stored(want, m, n, tc), *ms = as_stored(mag, m, n, tc);
            char what[64];
            snprintf(what, sizeof what, "%sgemm_tv combo %d %dx%dx%d", dtname(dt), combo, m, n, k);
            check_view(what, &C, sc, tc ? n : m, tc ? m : n, ws, ms, 4.0 * (k + 2));
            free(want), free(mag), free(ws), free(ms);
            tb_free(&A), tb_free(&B), tb_free(&C);
        }
}

/* Solves t x = r in place for the order-n dense t (column-major), partial pivoting: the host
 * oracle of the triangular solves, whatever the triangle's orientation. */
static void dense_solve(int n, double *t, double *r) {
    for (int k = 0; k < n; k++) {
        int p = k;
        for (int i = k + 1; i < n; i++)
            if (fabs(t[i + (size_t)k * n]) > fabs(t[p + (size_t)k * n])) p = i;
        for (int j = 0; j < n; j++) {
            double x = t[k + (size_t)j * n];
            t[k + (size_t)j * n] = t[p + (size_t)j * n];
            t[p + (size_t)j * n] = x;
        }
        double x = r[k];
        r[k] = r[p];
        r[p] = x;
        for (int i = k + 1; i < n; i++) {
            double l = t[i + (size_t)k * n] / t[k + (size_t)k * n];
            for (int j = k; j < n; j++) t[i + (size_t)j * n] -= l * t[k + (size_t)j * n];
            r[i] -= l * r[k];
        }
    }
    for (int i = n - 1; i >= 0; i--) {
        for (int j = i + 1; j < n; j++) r[i] -= t[i + (size_t)j * n] * r[j];
        r[i] /= t[i + (size_t)i * n];
    }
}

/* The trsm entry's 16 side/uplo/trans/diag combinations on a triangle and a right-hand side each
 * stored as is or transposed; the triangle's other half holds values that must not be read, and
 * its diagonal is large enough to keep the solves well conditioned. */
static void test_trsm_tv(ps__dtype dt) {
    static const int dims[][2] = {{0, 3}, {3, 0}, {1, 1}, {2, 5}, {5, 3}, {9, 7}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int combo = 0; combo < 64; combo++) {
            int m = dims[d][0], n = dims[d][1];
            ps__side side = combo & 1 ? PS__RIGHT : PS__LEFT;
            ps__uplo uplo = combo & 2 ? PS__LOWER : PS__UPPER;
            ps__trans tr = combo & 4 ? PS__TRANS : PS__NOTRANS;
            ps__diag diag = combo & 8 ? PS__UNIT : PS__NONUNIT;
            int ta = (combo >> 4) & 1, tb = (combo >> 5) & 1, na = side == PS__LEFT ? m : n;
            shape sa = random_shape(na, na), sb = block_shape(m, n, tb);
            tbuf A = tb_random(dt, shape_count(sa)), B = tb_random(dt, shape_count(sb));
            for (int i = 0; i < na; i++) AT(A, sa, i, i) = (i % 2 ? -1.0 : 1.0) * (na + 2);
            upload_all(&A);
            ps__scalar alpha = ps__scalar_of(dt, 0.5 + ps_test_rand());
            double al = ps__scalar_value(dt, alpha);
            /* t = op(A) as the algorithm sees A (its triangle uplo of the block), dense */
            double *t = calloc((size_t)(na * na + 1), sizeof(double));
            for (int j = 0; j < na; j++)
                for (int i = 0; i < na; i++) {
                    int r = tr == PS__TRANS ? j : i, c = tr == PS__TRANS ? i : j;
                    double v = r == c ? (diag == PS__UNIT ? 1.0 : block_at(&A, sa, ta, r, c))
                               : (uplo == PS__LOWER ? r > c : r < c) ? block_at(&A, sa, ta, r, c)
                                                                     : 0.0;
                    t[i + (size_t)j * na] = v;
                }
            /* X = alpha t^-1 B (left) or alpha B t^-1 (right: t^T X^T = alpha B^T), by column or
             * row of B */
            double *want = malloc(sizeof(double) * (size_t)(m * n + 1));
            double *mag = malloc(sizeof(double) * (size_t)(m * n + 1));
            double *tt = malloc(sizeof(double) * (size_t)(na * na + 1));
            double *r = malloc(sizeof(double) * (size_t)(na + 1)), scale = 0;
            int lines = side == PS__LEFT ? n : m;
            for (int l = 0; l < lines; l++) {
                for (int j = 0; j < na; j++)
                    for (int i = 0; i < na; i++)
                        tt[i + (size_t)j * na] =
                            side == PS__LEFT ? t[i + (size_t)j * na] : t[j + (size_t)i * na];
                for (int p = 0; p < na; p++)
                    r[p] = al * (side == PS__LEFT ? block_at(&B, sb, tb, p, l)
                                                  : block_at(&B, sb, tb, l, p));
                dense_solve(na, tt, r);
                for (int p = 0; p < na; p++) {
                    int i = side == PS__LEFT ? p : l, j = side == PS__LEFT ? l : p;
                    want[i + (size_t)j * m] = r[p];
                    if (fabs(r[p]) > scale) scale = fabs(r[p]);
                }
            }
            for (int e = 0; e < m * n; e++) mag[e] = scale;
            ps_status st =
                ps__trsm_tv(be, dt, side, uplo, tr, diag, m, n, &alpha,
                            (ps__tview){view(&A, sa), ta}, (ps__tview){view(&B, sb), tb});
            CHECK(st == PS_SUCCESS, "%strsm_tv combo %d: %s", dtname(dt), combo, be->err);
            double *ws = as_stored(want, m, n, tb), *ms = as_stored(mag, m, n, tb);
            char what[64];
            snprintf(what, sizeof what, "%strsm_tv combo %d %dx%d", dtname(dt), combo, m, n);
            check_view(what, &B, sb, tb ? n : m, tb ? m : n, ws, ms, 16.0 * (na + 2));
            free(t), free(tt), free(r), free(want), free(mag), free(ws), free(ms);
            tb_free(&A), tb_free(&B);
        }
}

/* The n x n view a transposed in place, exact, nothing around it changed: by strips of w
 * (orders that strips divide and do not), by ps__transpose_in_place (the backend's
 * transpose_square where it offers it, else strips), and by the entry itself, which either
 * transposes (orders across several 32 x 32 tiles and within one) or refuses with
 * PS_ERR_NOT_SUPPORTED and leaves a as it was, as the default does. */
static void test_transpose_in_place(ps__dtype dt) {
    static const int dims[][2] = {{0, 4},   {1, 4},   {2, 1},  {5, 2},    {17, 4},
                                  {40, 64}, {65, 16}, {33, 8}, {100, 32}, {257, 64}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        for (int how = 0; how < 4; how++) {
            int n = dims[d][0], w = dims[d][1];
            shape sa = random_shape(n, n);
            tbuf A = tb_random(dt, shape_count(sa)), work = tb_random(dt, w * n + 1);
            double *e = copy_of(&A), *before = copy_of(&A);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    e[sa.off + (size_t)i + (size_t)j * sa.ld] = AT(A, sa, j, i);
            static const char *const names[] = {"by strips", "transpose_in_place",
                                                "transpose_square", "transpose_square default"};
            ps_status st;
            if (how == 0)
                st = ps__transpose_in_place_by_strips(be, dt, n, view(&A, sa), work.dev, w);
            else if (how == 1)
                st = ps__transpose_in_place(be, dt, n, view(&A, sa), work.dev, w);
            else
                st = (how == 2 ? be->ops : ps__backend_defaults())
                         ->transpose_square(be, dt, n, view(&A, sa));
            char what[80];
            snprintf(what, sizeof what, "%s%s n=%d w=%d", dtname(dt), names[how], n, w);
            if (how == 3 || (how == 2 && st == PS_ERR_NOT_SUPPORTED)) {
                CHECK(st == PS_ERR_NOT_SUPPORTED, "%s: %s", what, ps_status_string(st));
                expect_buffer(what, &A, before, NULL, 0); /* refused: untouched */
            } else {
                CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
                expect_buffer(what, &A, e, NULL, 0);
            }
            free(e), free(before);
            tb_free(&A), tb_free(&work);
        }
}

static void run_all(ps__dtype dt) {
    test_trmm(dt);
    test_colswp(dt);
    test_transpose(dt);
    test_stripe_update(dt);
    test_gemm_tv(dt);
    test_trsm_tv(dt);
    test_transpose_in_place(dt);
}

int main(int argc, char **argv) {
    return vtable_main(argc, argv, "test_vtable_gj", run_all);
}
