/*
 * The mixed-precision vtable entries on the backend given by --backend, and their portable
 * defaults, against host loops: convert (double <-> float and same-type, scaled by powers of
 * two, exact; values beyond FLT_MAX and NaN set the overflow word, which is never cleared),
 * butterfly (against dense butterfly matrices built from the entry's definition, every side and
 * precision combination, in place, orders that are and are not multiples of 4, overflow),
 * norm_inf (odd shapes, NaN propagated) and set_float_compute (float always; the tensor-core
 * modes on CUDA, where a float GEMM of at least 512 x 512 in each must agree with the float
 * GEMM to its format's rounding and a smaller one must be float's; refused elsewhere), and
 * permute_rows (a gather; with ps__pivots_to_perm, the rows laswp moves). Views have
 * random offsets and leading dimensions, and nothing outside a view may change.
 */
#include "vtable_harness.h"

#include "base/blas_defaults.h"
#include "refine/butterfly.h"
#include "iter/iter.h"
#include "lu/lu.h"
#include "refine/trsv_blocked.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int read_word(const tbuf *w) {
    double *h = tb_download(w);
    int v = (int)h[0];
    free(h);
    return v;
}

/* Row i of the view a (k columns) times x (stride incx) in long double, the products gemv's
 * oracles sum; *size gets sum |a(i,j) x_j|, the scale of the device's rounding. */
static long double row_times(const tbuf *a, shape sa, int i, int k, const double *x, size_t incx,
                             long double *size) {
    long double sum = 0;
    *size = 0;
    for (int j = 0; j < k; j++) {
        long double p = (long double)AT(*a, sa, i, j) * x[(size_t)j * incx];
        sum += p, *size += fabsl(p);
    }
    return sum;
}

/* One entry's run: convert, or convert_transposed (dst = alpha src^T) with transposed. */
static ps_status run_convert(const ps__backend_ops *ops, int transposed, ps__dtype from,
                             ps__dtype to, int m, int n, double alpha, ps__mat src, ps__mat dst,
                             void *word) {
    return transposed
               ? ps__refine(be)->convert_transposed(be, from, to, m, n, alpha, src, dst, word)
               : ops->convert(be, from, to, m, n, alpha, src, dst, word);
}

/* convert and convert_transposed against their definitions, dst = alpha src (or alpha src^T)
 * rounded to dst's type, for every pair of types: views at random offsets with ld > rows, shapes
 * that leave CUDA's 32 x 32 transposing tiles partial, the overflow word for a value beyond
 * float's range and for NaN (a set word stays set). convert also through the default;
 * convert_transposed is refused by the default and OpenCL (the refinement then narrows and the
 * LU transposes), and CPU and CUDA must offer it. */
static void test_convert(void) {
    ps__mat none = {NULL, 0, 1};
    CHECK(ps__refine_kernels_defaults()->convert_transposed(
              be, PS__DOUBLE, PS__FLOAT, 0, 0, 1.0, none, none, NULL) == PS_ERR_NOT_SUPPORTED,
          "default convert_transposed did not refuse");
    const char *name = ps_test_backend_name();
    int offered = !strcmp(name, "cpu") || !strcmp(name, "cuda");
    ps_status probe =
        ps__refine(be)->convert_transposed(be, PS__DOUBLE, PS__FLOAT, 0, 0, 1.0, none, none, NULL);
    CHECK(probe == (offered ? PS_SUCCESS : PS_ERR_NOT_SUPPORTED),
          "the %s backend's convert_transposed answered %d (%s)", name, (int)probe, be->err);
    static const int dims[][2] = {{0, 3}, {3, 0}, {1, 1}, {2, 5}, {17, 9}, {70, 33}, {300, 257}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int combo = 0; combo < 32; combo++) {
            int transposed = combo & 16;
            if (transposed && (probe != PS_SUCCESS || (combo & 8))) continue;
            const ps__backend_ops *ops = combo & 8 ? ps__backend_defaults() : be->ops;
            ps__dtype from = combo & 1 ? PS__FLOAT : PS__DOUBLE;
            ps__dtype to = combo & 2 ? PS__FLOAT : PS__DOUBLE;
            int m = dims[t][0], n = dims[t][1];
            int special = (combo & 4) && from == PS__DOUBLE && to == PS__FLOAT && m * n > 0;
            shape ss = random_shape(m, n),
                  sd = transposed ? random_shape(n, m) : random_shape(m, n);
            tbuf S = tb_random(from, shape_count(ss)), D = tb_random(to, shape_count(sd));
            int32_t zero = 0;
            tbuf W = int_buffer(1, &zero);
            double alpha = combo & 4 ? 0.25 : 1.0;
            if (special) { /* one element beyond FLT_MAX after scaling */
                AT(S, ss, m - 1, n / 2) = 4 * (double)FLT_MAX * 1.5;
                upload_all(&S);
            }
            char what[96];
            snprintf(what, sizeof what, "%s %s->%s %dx%d%s%s",
                     transposed ? "convert_transposed" : "convert", dtname(from), dtname(to), m, n,
                     special ? " overflow" : "", combo & 8 ? " (default)" : "");
            CHECK(run_convert(ops, transposed, from, to, m, n, alpha, view(&S, ss), view(&D, sd),
                              W.dev) == PS_SUCCESS,
                  "%s: %s", what, be->err);
            int overflowed = read_word(&W);
            CHECK(overflowed == special, "%s: overflow word %d", what, overflowed);
            if (!special) { /* dst is unspecified after an overflow */
                double *e = copy_of(&D);
                for (int j = 0; j < n; j++)
                    for (int i = 0; i < m; i++) {
                        size_t at = transposed ? sd.off + j + (size_t)i * sd.ld
                                               : sd.off + i + (size_t)j * sd.ld;
                        e[at] = round_to(to, alpha * AT(S, ss, i, j));
                    }
                expect_buffer(what, &D, e, NULL, 0);
                free(e);
            }
            /* NaN sets the word too, and a set word stays set */
            if (m * n > 0 && from == PS__DOUBLE) {
                AT(S, ss, m / 2, n - 1) = NAN;
                upload_all(&S);
                int32_t z = 0;
                tbuf W2 = int_buffer(1, &z);
                CHECK(run_convert(ops, transposed, from, to, m, n, 1.0, view(&S, ss), view(&D, sd),
                                  W2.dev) == PS_SUCCESS,
                      "%s NaN: %s", what, be->err);
                CHECK(read_word(&W2) == 1, "%s: NaN did not set the word", what);
                AT(S, ss, m / 2, n - 1) = 0.5;
                upload_all(&S);
                CHECK(run_convert(ops, transposed, from, to, m, n, 1.0, view(&S, ss), view(&D, sd),
                                  W2.dev) == PS_SUCCESS,
                      "%s: %s", what, be->err);
                CHECK(read_word(&W2) == 1, "%s: the word was cleared", what);
                tb_free(&W2);
            }
            tb_free(&S), tb_free(&D), tb_free(&W);
        }
}

/* The dense butterfly of order n from weights w (2n), built from the definition in backend.h
 * as the product of its two levels, independently of the code under test. */
static double *dense_butterfly(int n, const double *w) {
    size_t nn = (size_t)n * (size_t)n;
    double *level[2], *t = calloc(nn ? nn : 1, sizeof(double));
    int q = n / 4;
    for (int l = 0; l < 2; l++) {
        level[l] = calloc(nn ? nn : 1, sizeof(double));
        for (int i = 4 * q; i < n; i++) level[l][i + (size_t)i * n] = 1;
        for (int p = 0; p < q; p++)
            for (int k = 0; k < 2; k++) {
                /* level 0 pairs (p, p+2q), (p+q, p+3q); level 1 (p, p+q), (p+2q, p+3q) */
                int a = l == 0 ? p + k * q : p + 2 * k * q, b = l == 0 ? a + 2 * q : a + q;
                double wa = w[(size_t)l * n + a] * sqrt(0.5), wb = w[(size_t)l * n + b] * sqrt(0.5);
                level[l][a + (size_t)a * n] = wa, level[l][a + (size_t)b * n] = wb;
                level[l][b + (size_t)a * n] = wa, level[l][b + (size_t)b * n] = -wb;
            }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                t[i + (size_t)j * n] += level[1][i + (size_t)k * n] * level[0][k + (size_t)j * n];
    free(level[0]), free(level[1]);
    return t;
}

static void test_butterfly(void) {
    static const int dims[][2] = {{0, 3}, {3, 0}, {1, 1},  {2, 5},   {4, 4},
                                  {5, 7}, {8, 1}, {17, 9}, {70, 33}, {130, 4}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int combo = 0; combo < 64; combo++) {
            const ps__refine_kernels *ops = FAMILY(refine, combo & 32);
            ps__dtype from = combo & 1 ? PS__FLOAT : PS__DOUBLE;
            ps__dtype to = combo & 2 ? PS__FLOAT : PS__DOUBLE;
            int use_left = (combo & 4) != 0, use_right = (combo & 8) != 0;
            int in_place = (combo & 16) && from == to;
            int m = dims[t][0], n = dims[t][1];
            shape ss = random_shape(m, n), sd = in_place ? ss : random_shape(m, n);
            tbuf S = tb_random(from, shape_count(ss)),
                 D = in_place ? S : tb_random(to, shape_count(sd));
            tbuf L = tb_random(PS__DOUBLE, 2 * m + 1), R = tb_random(PS__DOUBLE, 2 * n + 1);
            for (int i = 0; i < L.count; i++) L.host[i] = 0.9 + 0.2 * fabs(L.host[i]);
            for (int i = 0; i < R.count; i++) R.host[i] = 0.9 + 0.2 * fabs(R.host[i]);
            upload_all(&L), upload_all(&R);
            int32_t zero = 0;
            tbuf W = int_buffer(1, &zero);
            double alpha = combo & 4 ? 0.5 : 1.0;
            double *tl = dense_butterfly(m, L.host), *tr = dense_butterfly(n, R.host);
            double *e = copy_of(&D), *mag = calloc((size_t)D.count, sizeof(double));
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double v = 0, a = 0;
                    for (int k = 0; k < m; k++)
                        for (int l = 0; l < n; l++) {
                            double lk = use_left ? tl[i + (size_t)k * m] : (i == k);
                            double rl = use_right ? tr[l + (size_t)j * n] : (l == j);
                            v += lk * AT(S, ss, k, l) * rl;
                            a += fabs(lk * AT(S, ss, k, l) * rl);
                        }
                    e[sd.off + i + (size_t)j * sd.ld] = round_to(to, alpha * v);
                    mag[sd.off + i + (size_t)j * sd.ld] = alpha * a;
                }
            ps_status st =
                ops->butterfly(be, from, to, m, n, alpha, use_left ? L.dev : NULL,
                               use_right ? R.dev : NULL, view(&S, ss), view(&D, sd), W.dev);
            CHECK(st == PS_SUCCESS, "butterfly: %s", be->err);
            char what[128];
            snprintf(what, sizeof what, "butterfly %s->%s %dx%d%s%s%s%s", dtname(from), dtname(to),
                     m, n, use_left ? " left" : "", use_right ? " right" : "",
                     in_place ? " in place" : "", combo & 32 ? " (default)" : "");
            expect_buffer(what, &D, e, mag, 8);
            CHECK(read_word(&W) == 0, "%s: overflow word set", what);
            /* beyond FLT_MAX (or NaN in double) sets the word */
            if (m * n > 0 && !in_place) {
                AT(S, ss, m - 1, n - 1) =
                    from == PS__DOUBLE ? (to == PS__FLOAT ? 1e300 : NAN) : NAN;
                upload_all(&S);
                CHECK(ops->butterfly(be, from, to, m, n, alpha, use_left ? L.dev : NULL,
                                     use_right ? R.dev : NULL, view(&S, ss), view(&D, sd),
                                     W.dev) == PS_SUCCESS,
                      "butterfly: %s", be->err);
                CHECK(read_word(&W) == 1, "%s: overflow not reported", what);
            }
            free(tl), free(tr), free(e), free(mag);
            if (!in_place) tb_free(&D);
            tb_free(&S), tb_free(&L), tb_free(&R), tb_free(&W);
        }
}

static void test_norm_inf(ps__dtype dt) {
    static const int dims[][2] = {{0, 3}, {3, 0}, {1, 1}, {1, 40}, {300, 1}, {17, 9}, {130, 70}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int which = 0; which < 4; which++) {
            const ps__backend_ops *ops = which & 1 ? ps__backend_defaults() : be->ops;
            int m = dims[t][0], n = dims[t][1], with_nan = (which & 2) && m * n > 0;
            shape s = random_shape(m, n);
            tbuf A = tb_random(dt, shape_count(s));
            if (with_nan) {
                AT(A, s, m / 2, n - 1) = NAN;
                upload_all(&A);
            }
            double want = 0, got = -1;
            for (int i = 0; i < m; i++) {
                double sum = 0;
                for (int j = 0; j < n; j++) sum += fabs(AT(A, s, i, j));
                if (sum > want) want = sum;
            }
            CHECK(ops->norm_inf(be, dt, m, n, view(&A, s), &got) == PS_SUCCESS, "norm_inf: %s",
                  be->err);
            if (with_nan)
                CHECK(isnan(got), "norm_inf %s %dx%d%s: %g with a NaN inside", dtname(dt), m, n,
                      which & 1 ? " (default)" : "", got);
            else
                CHECK(fabs(got - want) <= 4 * n * eps_of(dt) * want,
                      "norm_inf %s %dx%d%s: %.17g, expected %.17g", dtname(dt), m, n,
                      which & 1 ? " (default)" : "", got, want);
            tb_free(&A);
        }
}

/* m distinct rows of 0..rows-1 in random order at list[off..off+m), every other element of the
 * list (around them, at an offset) a negative number. */
static int *random_rows(int m, int rows, int off, int extra) {
    int *all = malloc(sizeof(int) * (size_t)(rows + 1));
    int *list = malloc(sizeof(int) * (size_t)(m + off + extra));
    for (int i = 0; i < rows; i++) all[i] = i;
    for (int i = rows - 1; i > 0; i--) { /* Fisher-Yates */
        int k = ps_test_rand_int(i + 1), tmp = all[i];
        all[i] = all[k];
        all[k] = tmp;
    }
    for (int i = 0; i < m + off + extra; i++) list[i] = -1 - ps_test_rand_int(5);
    for (int i = 0; i < m; i++) list[off + i] = all[i];
    free(all);
    return list;
}

/* permute_rows against a host gather and scatter_rows against a host scatter: random rows of a
 * view with as many rows or more (the index buffer at an offset, other values around), odd
 * shapes and one long column, the backend's entry and the default; the scatter's rows with a
 * negative index, and the other rows of dst, must keep their values. Then the permutation
 * ps__pivots_to_perm makes from getrf-style pivots (chains of interchanges, which laswp applies a
 * chunk at a time) must move rows exactly as laswp does, and a pivot outside 0..n-1 must be
 * refused. */
static void test_permute_rows(ps__dtype dt) {
    static const int dims[][2] = {{0, 3}, {3, 0},  {1, 1},   {2, 5},
                                  {3, 2}, {17, 9}, {70, 33}, {1000, 1}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++)
        for (int which = 0; which < 4; which++) {
            int scatter = which >= 2;
            const ps__backend_ops *ops = which % 2 ? ps__backend_defaults() : be->ops;
            int m = dims[t][0], n = dims[t][1], poff = ps_test_rand_int(4);
            int tall = m + (t % 2 ? 0 : ps_test_rand_int(9)); /* rows of the indexed view */
            int *idx = random_rows(m, tall, poff, 3);
            if (scatter && m > 1) idx[poff + ps_test_rand_int(m)] = -1; /* a row left out */
            tbuf P = int_buffer(m + poff + 3, idx);
            shape ss = random_shape(scatter ? m : tall, n),
                  sd = random_shape(scatter ? tall : m, n);
            tbuf S = tb_random(dt, shape_count(ss)), D = tb_random(dt, shape_count(sd));
            ps_status st = scatter ? ops->scatter_rows(be, dt, m, n, P.dev, (size_t)poff,
                                                       view(&S, ss), view(&D, sd))
                                   : ops->permute_rows(be, dt, m, n, P.dev, (size_t)poff,
                                                       view(&S, ss), view(&D, sd));
            CHECK(st == PS_SUCCESS, "%s: %s", scatter ? "scatter_rows" : "permute_rows", be->err);
            double *e = copy_of(&D);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    int r = idx[poff + i];
                    if (!scatter)
                        e[sd.off + i + (size_t)j * sd.ld] = AT(S, ss, r, j);
                    else if (r >= 0)
                        e[sd.off + r + (size_t)j * sd.ld] = AT(S, ss, i, j);
                }
            char what[96];
            snprintf(what, sizeof what, "%s %s %dx%d of %d%s",
                     scatter ? "scatter_rows" : "permute_rows", dtname(dt), m, n, tall,
                     which % 2 ? " (default)" : "");
            expect_buffer(what, &D, e, NULL, 0);
            double *src_now = tb_download(&S);
            CHECK(!memcmp(src_now, S.host, sizeof(double) * (size_t)S.count), "%s: src changed",
                  what);
            free(src_now), free(e), free(idx);
            tb_free(&P), tb_free(&S), tb_free(&D);
        }
    /* ps__pivots_to_perm + permute_rows against laswp, with pivots that chain */
    static const int orders[] = {1, 2, 3, 31, 300, 1100};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++) {
        int n = orders[t], cols = 1 + ps_test_rand_int(3);
        int *piv = malloc(sizeof(int) * (size_t)n);
        for (int k = 0; k < n; k++) { /* often a row swapped in before, so the swaps chain */
            int r = ps_test_rand_int(3);
            piv[k] = r == 0             ? k
                     : r == 1 || k == 0 ? k + ps_test_rand_int(n - k)
                                        : (piv[k - 1] > k ? piv[k - 1] : k);
        }
        tbuf I = int_buffer(n, piv), Q = int_buffer(n, piv);
        shape s = random_shape(n, cols);
        tbuf S = tb_random(dt, shape_count(s)), L = tb_random(dt, shape_count(s)),
             D = tb_random(dt, shape_count(s));
        memcpy(L.host, S.host, sizeof(double) * (size_t)S.count);
        upload_all(&L);
        CHECK(ps__pivots_to_perm(ctx_under_test, n, I.dev, Q.dev) == PS_SUCCESS,
              "pivots_to_perm: %s", ps_context_last_error(ctx_under_test));
        CHECK(be->ops->permute_rows(be, dt, n, cols, Q.dev, 0, view(&S, s), view(&D, s)) ==
                  PS_SUCCESS,
              "permute_rows: %s", be->err);
        CHECK(be->ops->laswp(be, dt, cols, view(&L, s), 0, n, I.dev, 0, 1) == PS_SUCCESS,
              "laswp: %s", be->err);
        double *swapped = tb_download(&L), *expect = copy_of(&D);
        for (int j = 0; j < cols; j++)
            for (int i = 0; i < n; i++) {
                size_t e = s.off + (size_t)i + (size_t)j * (size_t)s.ld;
                expect[e] = swapped[e];
            }
        free(swapped);
        char what[96];
        snprintf(what, sizeof what, "pivots_to_perm + permute_rows %s n=%d, against laswp",
                 dtname(dt), n);
        expect_buffer(what, &D, expect, NULL, 0);
        free(expect);
        piv[n - 1] = n; /* not a row */
        tbuf B = int_buffer(n, piv);
        CHECK(ps__pivots_to_perm(ctx_under_test, n, B.dev, Q.dev) == PS_ERR_BACKEND,
              "pivots_to_perm n=%d: a pivot of n accepted", n);
        tb_free(&B), tb_free(&I), tb_free(&Q), tb_free(&S), tb_free(&L), tb_free(&D);
        free(piv);
    }
}

/* The oracle of trsv_mixed: x = A^-1 x by substitution in double, by columns, on the host's float
 * triangle (column-major, leading dimension ld) and double x (stride inc). */
static void host_substitution(ps__uplo uplo, ps__diag diag, int n, const float *a, size_t ld,
                              double *x, size_t inc) {
    for (int step = 0; step < n; step++) {
        int j = uplo == PS__LOWER ? step : n - 1 - step;
        const float *col = a + (size_t)j * ld;
        if (diag == PS__NONUNIT) x[(size_t)j * inc] /= col[j];
        for (int i = uplo == PS__LOWER ? j + 1 : 0; i < (uplo == PS__LOWER ? n : j); i++)
            x[(size_t)i * inc] -= col[i] * x[(size_t)j * inc];
    }
}

/* x = A^-1 x with a float triangle and a double x (trsv_mixed) against substitution in double on
 * the host from the same float entries, every uplo and diag, orders around the CUDA kernel's block
 * rows of 64 and 128 (partial last blocks, one block, many), strided x at an offset, the
 * triangle's other half and (for unit) its diagonal filled with values that would show if read.
 * The triangles are kept well conditioned (off-diagonal entries of size 1/n, diagonals of size
 * 1 to 2), so the double solve is accurate to some n eps, and float arithmetic anywhere (errors
 * near 1e-7) fails the bound. A backend without the entry must refuse it (the default, also
 * checked here) with nothing written: refinement then widens the factors instead. */
static void test_trsv_mixed(void) {
    ps__vec none = {NULL, 0, 1};
    ps__mat empty = {NULL, 0, 1};
    CHECK(ps__refine_kernels_defaults()->trsv_mixed(be, PS__LOWER, PS__UNIT, 0, empty, none) ==
              PS_ERR_NOT_SUPPORTED,
          "default trsv_mixed did not refuse");
    int offered = ps__refine(be)->trsv_mixed(be, PS__LOWER, PS__UNIT, 0, empty, none) == PS_SUCCESS;
    static const int orders[] = {1, 2, 3, 63, 64, 65, 127, 128, 129, 200, 1000, 2049};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int combo = 0; combo < 4; combo++) {
            ps__uplo uplo = combo & 1 ? PS__UPPER : PS__LOWER;
            ps__diag diag = combo & 2 ? PS__UNIT : PS__NONUNIT;
            int n = orders[t], inc = 1 + ps_test_rand_int(2), xoff = ps_test_rand_int(3);
            shape sa = random_shape(n, n);
            tbuf A = tb_random(PS__FLOAT, shape_count(sa));
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) {
                    int inside = uplo == PS__LOWER ? i > j : i < j;
                    if (i == j)
                        AT(A, sa, i, j) = diag == PS__UNIT ? 1e30
                                                           : (1.5 + 0.5 * ps_test_rand()) *
                                                                 (ps_test_rand() < 0 ? -1 : 1);
                    else if (inside)
                        AT(A, sa, i, j) /= n;
                    else
                        AT(A, sa, i, j) = NAN;
                }
            upload_all(&A);
            tbuf X = tb_random(PS__DOUBLE, xoff + (n - 1) * inc + 1 + 2);
            double *expect = copy_of(&X), *mag = malloc(sizeof(double) * (size_t)X.count);
            float *host_a = tb_native_copy(&A);
            host_substitution(uplo, diag, n, host_a + sa.off, (size_t)sa.ld, expect + xoff,
                              (size_t)inc);
            free(host_a);
            double xmax = 0;
            for (int i = 0; i < n; i++)
                if (fabs(expect[xoff + (size_t)i * inc]) > xmax)
                    xmax = fabs(expect[xoff + (size_t)i * inc]);
            for (int i = 0; i < X.count; i++) mag[i] = 0; /* outside the view: unchanged */
            for (int i = 0; i < n; i++) mag[xoff + (size_t)i * inc] = 4 * xmax;
            char what[96];
            snprintf(what, sizeof what, "trsv_mixed %s %s n=%d inc=%d",
                     uplo == PS__LOWER ? "lower" : "upper", diag == PS__UNIT ? "unit" : "nonunit",
                     n, inc);
            ps_status st =
                ps__refine(be)->trsv_mixed(be, uplo, diag, n, view(&A, sa), vview(&X, xoff, inc));
            if (offered) {
                CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
                expect_buffer(what, &X, expect, mag, 16.0 * n);
            } else {
                CHECK(st == PS_ERR_NOT_SUPPORTED, "%s: status %d where n = 0 was refused", what,
                      (int)st);
                expect_buffer(what, &X, X.host, NULL, 0); /* refused: nothing written */
            }
            double *a_now = tb_download(&A);
            int same = 1;
            for (int i = 0; i < A.count; i++)
                if (!(a_now[i] == A.host[i] || (isnan(a_now[i]) && isnan(A.host[i])))) same = 0;
            CHECK(same, "%s: the matrix changed", what);
            free(a_now), free(expect), free(mag);
            tb_free(&A), tb_free(&X);
        }
    if (!offered)
        printf("trsv_mixed: the %s backend does not offer it (refinement widens the factors); "
               "its refusal was checked\n",
               be->ops->name);
}

/* trsv_mixed at an order whose CUDA kernel has more block rows than can run at once (157 of 128
 * rows, one block an SM on an H100 or H200: the later ones start while the chain is under way)
 * and block rows far enough from their turn to take the earlier ones' results in batches
 * (core/backend.h; backend_cuda/cuda_trsv_mixed.cu). The refinement's two solves, lower unit and
 * upper non-unit, on one matrix at an offset, with ld > n, against substitution in double. Its
 * 1.6 GB of floats make it a test of its own (cuda.vtable_ir_trsv_large): the paths it reaches
 * are the CUDA kernel's, and the smaller orders of test_trsv_mixed cover every backend. */
static void test_trsv_mixed_large(void) {
    const int n = 20000, ld = n + 3, off = 2;
    size_t count = off + (size_t)ld * n;
    float *a = malloc(sizeof(float) * count);
    double *x0 = malloc(sizeof(double) * n), *expect = malloc(sizeof(double) * n);
    double *b = malloc(sizeof(double) * n);
    long double *r = malloc(sizeof(long double) * 2 * (size_t)n), *mag = r + n;
    CHECK(a && x0 && expect && b && r, "out of host memory");
    if (!a || !x0 || !expect || !b || !r) {
        free(a), free(x0), free(expect), free(b), free(r);
        return;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[off + i + (size_t)j * ld] =
                (float)(i == j ? (1.5 + 0.5 * ps_test_rand()) * (ps_test_rand() < 0 ? -1 : 1)
                               : ps_test_rand() / n);
    void *dev = NULL, *xdev = NULL;
    CHECK(be->ops->alloc(be, sizeof(float) * count, &dev) == PS_SUCCESS &&
              be->ops->alloc(be, sizeof(double) * n, &xdev) == PS_SUCCESS,
          "alloc: %s", be->err);
    ps__mat view_a = {dev, (size_t)off, ld}, whole = {dev, 0, (int)count};
    CHECK(be->ops->upload(be, PS__FLOAT, (int)count, 1, a, (int)count, whole) == PS_SUCCESS,
          "upload: %s", be->err);
    for (int combo = 0; combo < 2; combo++) {
        ps__uplo uplo = combo ? PS__UPPER : PS__LOWER;
        ps__diag diag = combo ? PS__NONUNIT : PS__UNIT;
        for (int i = 0; i < n; i++) b[i] = expect[i] = x0[i] = ps_test_rand();
        host_substitution(uplo, diag, n, a + off, (size_t)ld, expect, 1);
        ps__mat xm = {xdev, 0, n};
        ps__vec xv = {xdev, 0, 1};
        CHECK(be->ops->upload(be, PS__DOUBLE, n, 1, x0, n, xm) == PS_SUCCESS, "upload: %s",
              be->err);
        ps_status st = ps__refine(be)->trsv_mixed(be, uplo, diag, n, view_a, xv);
        CHECK(st == PS_SUCCESS, "trsv_mixed n=%d: %s", n, be->err);
        CHECK(be->ops->download(be, PS__DOUBLE, n, 1, xm, x0, n) == PS_SUCCESS, "download: %s",
              be->err);
        double xmax = 0, worst = 0;
        for (int i = 0; i < n; i++) xmax = fmax(xmax, fabs(expect[i]));
        for (int i = 0; i < n; i++) worst = fmax(worst, fabs(x0[i] - expect[i]));
        CHECK(worst <= 64.0 * n * DBL_EPSILON * xmax,
              "trsv_mixed %s n=%d: error %.3g of max |x| %.3g (allowed %.3g)",
              combo ? "upper nonunit" : "lower unit", n, worst, xmax,
              64.0 * n * DBL_EPSILON * xmax);
        /* and each row's residual b - A x in long double against the substitution's backward
         * error, 4 n eps (|b| + |A| |x|): the off-diagonal entries are of size 1/n, so what
         * arithmetic in float there would change hides under the forward bound above (which
         * grows with n) but not under this one */
        for (int i = 0; i < n; i++) r[i] = b[i], mag[i] = fabsl((long double)b[i]);
        for (int j = 0; j < n; j++) {
            const float *col = a + off + (size_t)j * ld;
            int i0 = uplo == PS__LOWER ? j + 1 : 0, i1 = uplo == PS__LOWER ? n : j;
            long double xj = x0[j], dj = diag == PS__UNIT ? 1.0L : (long double)col[j];
            r[j] -= dj * xj, mag[j] += fabsl(dj * xj);
            for (int i = i0; i < i1; i++)
                r[i] -= (long double)col[i] * xj, mag[i] += fabsl((long double)col[i] * xj);
        }
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++)
            if (!(fabsl(r[i]) <= 4.0L * n * DBL_EPSILON * mag[i])) bad = i;
        CHECK(bad < 0, "trsv_mixed %s n=%d: row %d's residual %.3Lg over its bound %.3Lg",
              combo ? "upper nonunit" : "lower unit", n, bad, bad < 0 ? 0.0L : fabsl(r[bad]),
              bad < 0 ? 0.0L : 4.0L * n * DBL_EPSILON * mag[bad]);
    }
    be->ops->free(be, xdev), be->ops->free(be, dev);
    free(a), free(x0), free(expect), free(b), free(r);
}

/* y += alpha A x with a float A and double x, y (gemv_mixed) against the same sums in long
 * double on the host: shapes with no rows or columns, single ones, tall and wide ones, views at
 * random offsets with ld > m, strided x and y. The bound, 4 k eps of |y| + |alpha| sum |a| |x|
 * per element, fails products or sums in float (errors near 1e-7 relative). The default must
 * refuse the entry; where the backend offers it, m = k = 0 succeeds. */
static void test_gemv_mixed(void) {
    ps__vec none = {NULL, 0, 1};
    ps__mat empty = {NULL, 0, 1};
    CHECK(ps__refine_kernels_defaults()->gemv_mixed(be, 0, 0, 0.0, empty, none, none) ==
              PS_ERR_NOT_SUPPORTED,
          "default gemv_mixed did not refuse");
    ps_status probe = ps__refine(be)->gemv_mixed(be, 0, 0, 0.0, empty, none, none);
    CHECK(probe == PS_SUCCESS, "the %s backend's gemv_mixed refused m = k = 0: %s", be->ops->name,
          be->err);
    /* 20001 and 20003 are tall enough for CUDA's four rows a lane (16-byte loads), the first
     * with its columns 16-byte aligned as that needs, the other as it falls. On 132 SMs CUDA cuts
     * the columns of 70 x 1000 into 3 slices and of 1000 x 2048 into 8 (a row a lane, its columns
     * unaligned), and those of the aligned 2049 x 2048 into 8 (a partial last tile)
     * and of the aligned 17001 x 1030 into 2, of four rows a lane. */
    static const int dims[][2] = {{0, 4},       {4, 0},        {1, 1},      {2, 3},
                                  {33, 7},      {31, 65},      {100, 70},   {1000, 9},
                                  {70, 1000},   {3000, 257},   {20001, 37}, {20003, 41},
                                  {2049, 2048}, {17001, 1030}, {1000, 2048}};
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        int m = dims[t][0], k = dims[t][1];
        int incx = 1 + ps_test_rand_int(2), incy = 1 + ps_test_rand_int(2);
        int xoff = ps_test_rand_int(3), yoff = ps_test_rand_int(3);
        double alpha = t % 2 ? -1.0 : 0.75;
        shape sa = random_shape(m, k);
        if (m == 20001 || m == 17001 || m == 2049) sa.off = 0, sa.ld = m + 3;
        if (m == 1000 && k == 2048) sa.ld = m + 1; /* never 16-byte aligned columns */
        tbuf A = tb_random(PS__FLOAT, shape_count(sa) > 0 ? shape_count(sa) : 1);
        tbuf X = tb_random(PS__DOUBLE, xoff + (k > 0 ? (k - 1) * incx + 1 : 0) + 2);
        tbuf Y = tb_random(PS__DOUBLE, yoff + (m > 0 ? (m - 1) * incy + 1 : 0) + 2);
        double *expect = copy_of(&Y), *mag = calloc((size_t)Y.count, sizeof(double));
        for (int i = 0; i < m; i++) {
            long double size, sum = row_times(&A, sa, i, k, X.host + xoff, (size_t)incx, &size);
            size_t e = yoff + (size_t)i * incy;
            expect[e] = (double)(Y.host[e] + alpha * sum);
            mag[e] = 4.0 * (k + 1) * (fabs(Y.host[e]) + fabs(alpha) * (double)size);
        }
        char what[96];
        snprintf(what, sizeof what, "gemv_mixed m=%d k=%d incx=%d incy=%d alpha=%g", m, k, incx,
                 incy, alpha);
        ps_status st = ps__refine(be)->gemv_mixed(be, m, k, alpha, view(&A, sa),
                                                  vview(&X, xoff, incx), vview(&Y, yoff, incy));
        CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
        expect_buffer(what, &Y, expect, mag, 1.0);
        expect_buffer("gemv_mixed: x unchanged", &X, X.host, NULL, 0);
        free(expect), free(mag);
        tb_free(&A), tb_free(&X), tb_free(&Y);
    }
}

/* read_only_matrices (the chains of GMRES-IR's blocked solves, core/refine/trsv_blocked.c):
 * products on fixed matrices, each queued right behind kernels that rewrite its vectors, as in the
 * chain: scal of x and y, gemv_mixed into y, then a gemv whose x is that y. A backend that loads
 * the matrices ahead (CUDA on Hopper) must still wait for the vectors; a product on stale ones
 * misses the bounds by far. The shapes are ones CUDA cuts into column slices (gemv_mixed) and short
 * columns (gemv), as at n = 32768 with blocks of 2048. The default accepts the hint. */
static void test_read_only(void) {
    const ps__refine_kernels *def = ps__refine_kernels_defaults();
    CHECK(def->read_only_matrices(be, 1) == PS_SUCCESS &&
              def->read_only_matrices(be, 0) == PS_SUCCESS,
          "the default read_only_matrices refused the hint");
    static const int dims[][2] = {{2049, 2048}, {1000, 2048}, {17001, 1030}, {4000, 600}};
    CHECK(ps__refine(be)->read_only_matrices(be, 1) == PS_SUCCESS, "read_only_matrices on: %s",
          be->err);
    for (size_t t = 0; t < sizeof dims / sizeof dims[0]; t++) {
        int m = dims[t][0], k = dims[t][1], g = m < k ? m : k;
        shape sa = random_shape(m, k), sd = random_shape(g, g);
        if (m % 4 == 1) sa.off = 0, sa.ld = m + 3; /* aligned: CUDA's four rows a lane */
        tbuf A = tb_random(PS__FLOAT, shape_count(sa)), D = tb_random(PS__DOUBLE, shape_count(sd));
        tbuf X = tb_random(PS__DOUBLE, k), Y = tb_random(PS__DOUBLE, m);
        tbuf Z = tb_random(PS__DOUBLE, g);
        double *expect = malloc(sizeof(double) * (size_t)m), *mag = malloc(sizeof(double) * m);
        ps__scalar one = ps__scalar_of(PS__DOUBLE, 1.0), zero = ps__scalar_of(PS__DOUBLE, 0.0);
        for (int round = 0; round < 4; round++) {
            const double factor = round % 2 ? -2 : 0.5; /* exact */
            ps__scalar f = ps__scalar_of(PS__DOUBLE, factor);
            CHECK(be->ops->scal(be, PS__DOUBLE, k, &f, vview(&X, 0, 1)) == PS_SUCCESS &&
                      be->ops->scal(be, PS__DOUBLE, m, &f, vview(&Y, 0, 1)) == PS_SUCCESS,
                  "scal: %s", be->err);
            for (int j = 0; j < k; j++) X.host[j] *= factor;
            for (int i = 0; i < m; i++) Y.host[i] *= factor;
            CHECK(ps__refine(be)->gemv_mixed(be, m, k, -1.0, view(&A, sa), vview(&X, 0, 1),
                                             vview(&Y, 0, 1)) == PS_SUCCESS,
                  "gemv_mixed %d x %d: %s", m, k, be->err);
            CHECK(be->ops->gemv(be, PS__DOUBLE, PS__NOTRANS, g, g, &one, view(&D, sd),
                                vview(&Y, 0, 1), &zero, vview(&Z, 0, 1)) == PS_SUCCESS,
                  "gemv %d x %d: %s", g, g, be->err);
            for (int i = 0; i < m; i++) {
                long double size, sum = row_times(&A, sa, i, k, X.host, 1, &size);
                expect[i] = (double)(Y.host[i] - sum);
                mag[i] = 4.0 * (k + 1) * (fabs(Y.host[i]) + (double)size);
            }
            char what[96];
            snprintf(what, sizeof what, "gemv_mixed %d x %d behind scal, round %d", m, k, round);
            expect_buffer(what, &Y, expect, mag, 1.0);
            /* the gemv's oracle from the y the device holds */
            double *y = tb_download(&Y);
            memcpy(Y.host, y, sizeof(double) * (size_t)m);
            free(y);
            for (int i = 0; i < g; i++) {
                long double size, sum = row_times(&D, sd, i, g, Y.host, 1, &size);
                expect[i] = (double)sum;
                mag[i] = 4.0 * (g + 1) * (double)size;
            }
            snprintf(what, sizeof what, "gemv %d x %d behind gemv_mixed, round %d", g, g, round);
            expect_buffer(what, &Z, expect, mag, 1.0);
        }
        free(expect), free(mag);
        tb_free(&A), tb_free(&D), tb_free(&X), tb_free(&Y), tb_free(&Z);
    }
    CHECK(ps__refine(be)->read_only_matrices(be, 0) == PS_SUCCESS, "read_only_matrices off: %s",
          be->err);
}

/* gemv_triangle (GMRES-IR's inverted diagonal blocks, core/refine/trsv_blocked.c): a triangle held
 * in a square whose other half holds zeros, against the same sums in long double, lower and upper,
 * for beta 0 and not, at tiny sizes and at the shapes CUDA takes in column slices (2048, as at
 * n = 32768), in one block per row tile (3000) and by cuBLAS on the square (5000); the last
 * rounds run inside read_only_matrices right behind a scal of x, as in the chain. A backend
 * that skipped a column of the triangle (the diagonal's tile, say) misses by whole terms. */
static void test_gemv_triangle(void) {
    static const int sizes[] = {0, 1, 2, 3, 33, 100, 2048, 3000, 5000};
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++)
        for (int round = 0; round < 4; round++) {
            int n = sizes[t], ahead = round >= 2;
            ps__uplo uplo = round % 2 ? PS__UPPER : PS__LOWER;
            shape sa = random_shape(n, n);
            tbuf A = tb_random(PS__DOUBLE, shape_count(sa) > 0 ? shape_count(sa) : 1);
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++)
                    if (uplo == PS__LOWER ? i < j : i > j) AT(A, sa, i, j) = 0;
            upload_all(&A);
            tbuf X = tb_random(PS__DOUBLE, n > 0 ? n : 1), Y = tb_random(PS__DOUBLE, n > 0 ? n : 1);
            const double alpha = 0.75, beta = round % 3 ? -1.5 : 0.0, factor = -2; /* exact */
            ps__scalar a_s = ps__scalar_of(PS__DOUBLE, alpha),
                       b_s = ps__scalar_of(PS__DOUBLE, beta);
            ps__scalar f = ps__scalar_of(PS__DOUBLE, factor);
            if (ahead)
                CHECK(ps__refine(be)->read_only_matrices(be, 1) == PS_SUCCESS, "read_only on: %s",
                      be->err);
            if (ahead && n > 0) {
                CHECK(be->ops->scal(be, PS__DOUBLE, n, &f, vview(&X, 0, 1)) == PS_SUCCESS,
                      "scal: %s", be->err);
                for (int j = 0; j < n; j++) X.host[j] *= factor;
            }
            ps_status st =
                ps__refine(be)->gemv_triangle(be, PS__DOUBLE, uplo, n, &a_s, view(&A, sa),
                                              vview(&X, 0, 1), &b_s, vview(&Y, 0, 1));
            if (ahead)
                CHECK(ps__refine(be)->read_only_matrices(be, 0) == PS_SUCCESS, "read_only off: %s",
                      be->err);
            char what[96];
            snprintf(what, sizeof what, "gemv_triangle %s n = %d, beta %g%s",
                     uplo == PS__LOWER ? "lower" : "upper", n, beta, ahead ? ", behind scal" : "");
            CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
            double *expect = malloc(sizeof(double) * (size_t)Y.count);
            double *mag = malloc(sizeof(double) * (size_t)Y.count);
            memcpy(expect, Y.host, sizeof(double) * (size_t)Y.count),
                memset(mag, 0, sizeof(double) * (size_t)Y.count);
            for (int i = 0; i < n; i++) {
                long double size, sum = row_times(&A, sa, i, n, X.host, 1, &size);
                expect[i] = (double)(alpha * sum + (long double)beta * Y.host[i]);
                mag[i] = 4.0 * (n + 2) * (double)(fabsl(alpha) * size + fabs(beta * Y.host[i]));
            }
            expect_buffer(what, &Y, expect, mag, 1.0);
            expect_buffer("gemv_triangle: x unchanged", &X, X.host, NULL, 0);
            free(expect), free(mag);
            tb_free(&A), tb_free(&X), tb_free(&Y);
        }
}

/* The blocked triangular solves of GMRES-IR's preconditioner (core/refine/trsv_blocked.c) on one LU
 * array (unit lower L below the diagonal, U on and above it), against substitution in double on
 * the host: orders with one block, partial last blocks and many, blocks of order 1 and larger
 * than n, the array at an offset with ld > n, strided x. The triangles are as test_trsv_mixed's
 * (well conditioned), so the inverses are accurate and float arithmetic anywhere fails the
 * bound. */
static void test_trsv_blocked(void) {
    /* 3000 in blocks of 1024: products CUDA slices, launched ahead (read_only_matrices) */
    static const int cases[][2] = {{1, 1},       {2, 1},     {3, 2},      {65, 64},
                                   {65, 7},      {200, 64},  {200, 500},  {1000, 96},
                                   {1000, 1000}, {700, 613}, {3000, 1024}};
    int32_t zero = 0;
    tbuf W = int_buffer(1, &zero);
    for (size_t t = 0; t < sizeof cases / sizeof cases[0]; t++) {
        int n = cases[t][0], nb = cases[t][1];
        shape sa = random_shape(n, n);
        tbuf A = tb_random(PS__FLOAT, shape_count(sa));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                AT(A, sa, i, j) = i == j
                                      ? (1.5 + 0.5 * ps_test_rand()) * (ps_test_rand() < 0 ? -1 : 1)
                                      : AT(A, sa, i, j) / n;
        upload_all(&A);
        float *host_a = tb_native_copy(&A);
        ps__scratch s = ps__scratch_begin(ctx_under_test);
        ps__trsv_blocked tb;
        ps_status st;
        if (t % 2 == 0) {
            st = ps__trsv_blocked_make(&s, n, nb, view(&A, sa), W.dev, &tb);
            CHECK(st == PS_SUCCESS, "trsv_blocked_make n=%d nb=%d: %s", n, nb, be->err);
        } else {
            /* as GMRES-IR's early inverses make them (core/refine/refine.c): from the factors
             * stored transposed, as LU's transposed layout holds them, a few block columns a call
             */
            shape st_shape = random_shape(n, n);
            tbuf T = tb_random(PS__FLOAT, shape_count(st_shape));
            for (int j = 0; j < n; j++)
                for (int i = 0; i < n; i++) AT(T, st_shape, j, i) = AT(A, sa, i, j);
            upload_all(&T);
            st = ps__trsv_blocked_open(&s, n, nb, &tb);
            CHECK(st == PS_SUCCESS, "trsv_blocked_open n=%d nb=%d: %s", n, nb, be->err);
            ps__tview tv = {view(&T, st_shape), 1};
            for (int cols = nb - 1; st == PS_SUCCESS;) {
                st = ps__trsv_blocked_invert(ctx_under_test, &tb, tv, cols, W.dev);
                int expect_ready = cols >= n ? tb.blocks : cols / nb;
                CHECK(st == PS_SUCCESS && tb.ready == expect_ready,
                      "trsv_blocked_invert n=%d nb=%d to column %d: %d blocks ready, expected %d "
                      "(%s)",
                      n, nb, cols, tb.ready, expect_ready, be->err);
                if (cols >= n) break;
                cols += 1 + ps_test_rand_int(2 * nb);
                if (cols > n) cols = n;
            }
            tb_free(&T);
        }
        for (int side = 0; side < 2 && st == PS_SUCCESS; side++) {
            ps__uplo uplo = side ? PS__UPPER : PS__LOWER;
            ps__diag diag = side ? PS__NONUNIT : PS__UNIT;
            int inc = 1 + ps_test_rand_int(2), xoff = ps_test_rand_int(3);
            int boff = ps_test_rand_int(3), binc = 1 + ps_test_rand_int(2);
            tbuf X = tb_random(PS__DOUBLE, xoff + (n - 1) * inc + 1 + 2);
            tbuf B = tb_random(PS__DOUBLE, boff + (n - 1) * binc + 1 + 2);
            double *expect = copy_of(&X), *mag = calloc((size_t)X.count, sizeof(double));
            for (int i = 0; i < n; i++)
                expect[xoff + (size_t)i * inc] = B.host[boff + (size_t)i * binc];
            host_substitution(uplo, diag, n, host_a + sa.off, (size_t)sa.ld, expect + xoff,
                              (size_t)inc);
            double xmax = 0;
            for (int i = 0; i < n; i++) xmax = fmax(xmax, fabs(expect[xoff + (size_t)i * inc]));
            for (int i = 0; i < n; i++) mag[xoff + (size_t)i * inc] = 4 * xmax;
            char what[96];
            snprintf(what, sizeof what, "trsv_blocked %s n=%d nb=%d inc=%d/%d",
                     side ? "upper" : "lower unit", n, nb, binc, inc);
            st = ps__trsv_blocked_solve(ctx_under_test, &tb, uplo, view(&A, sa),
                                        vview(&B, boff, binc), vview(&X, xoff, inc));
            CHECK(st == PS_SUCCESS, "%s: %s", what, be->err);
            /* x's view holds the solution, and nothing around it changed (b is overwritten) */
            expect_buffer(what, &X, expect, mag, 16.0 * n);
            free(expect), free(mag);
            tb_free(&X), tb_free(&B);
        }
        expect_buffer("trsv_blocked: the factors unchanged", &A, A.host, NULL, 0);
        ps__scratch_end(&s);
        free(host_a);
        tb_free(&A);
    }
    tb_free(&W);
}

/* GMRES's identity preconditioner, for systems that need none (diagonally dominant). */
static ps_status identity_precond(void *arg, ps__vec v, ps__vec z) {
    return be->ops->copy(be, PS__DOUBLE, *(const int *)arg, v, z);
}

/* out = A z on the host (long double sums), uploaded: a seed's product. */
static void times_a(const tbuf *a, shape sa, int n, const tbuf *z, tbuf *out) {
    for (int i = 0; i < n; i++) {
        long double size;
        out->host[i] = (double)row_times(a, sa, i, n, z->host, 1, &size);
    }
    upload_all(out);
}

/* Solves A x = b by GMRES with GMRES-IR's stopping flags (ps__precond: x_zero,
 * estimate_ends, enough) and returns the true relative 2-norm residual of x, computed on the host;
 * res gets the solve's result and hist its history. A is diagonal with entries spread over
 * [2, 100] plus noise, so GMRES needs tens of steps; X is zeroed first where x_zero says so. */
static double flagged_gmres(int n, shape sa, tbuf *A, tbuf *B, tbuf *X, ps__precond pc, double tol,
                            ps_status *st, ps_iter_result *res, double *hist, int capacity) {
    if (pc.x_zero) {
        for (int i = 0; i < n; i++) X->host[i] = 0;
        upload_all(X);
    }
    ps_iter_options io = ps_iter_options_default();
    io.tol = tol, io.max_iter = 400, io.restart = 120;
    io.history = hist, io.history_capacity = capacity;
    *st = ps__iter_solve_precond(ctx_under_test, "test", PS_ITER_GMRES, PS__DOUBLE, n, view(A, sa),
                                 vview(B, 0, 1), vview(X, 0, 1), &io, res, &pc);
    double *x = tb_download(X), rr = 0, bb = 0;
    for (int i = 0; i < n; i++) {
        long double size;
        double r = (double)(B->host[i] - row_times(A, sa, i, n, x, 1, &size));
        rr += r * r, bb += B->host[i] * B->host[i];
    }
    free(x);
    return sqrt(rr / bb);
}

/* GMRES-IR's flags on the GMRES it calls (core/iter/iter.c): with enough, GMRES stops at the first
 * step whose residual estimate is at most enough, though o->tol is far below; with estimate_ends
 * the result reports that estimate, and it matches the true residual of the returned x (no
 * product checks it, so a wrong x would show here); with x_zero the residual GMRES starts from is
 * b itself (x zero on entry), and the solution is the same as without the flag. A NaN enough is
 * ignored. A seeded first step (seed_z, seed_az) is taken as given. */
static void test_iter_caller_ends(void) {
    static const int sizes[] = {1, 2, 3, 120, 300};
    enum { CAP = 400 };
    double hist[CAP];
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        int n = sizes[t];
        shape sa = random_shape(n, n);
        tbuf A = tb_random(PS__DOUBLE, shape_count(sa));
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                AT(A, sa, i, j) = i == j ? 2 + 98.0 * i / (n > 1 ? n - 1 : 1) + AT(A, sa, i, j) / 2
                                         : AT(A, sa, i, j) / (4 * sqrt((double)n));
        upload_all(&A);
        tbuf B = tb_random(PS__DOUBLE, n), X = tb_random(PS__DOUBLE, n);
        ps__precond plain = {
            .apply = identity_precond, .arg = &n, .seed_z = {NULL, 0, 1}, .seed_az = {NULL, 0, 1}};
        ps__precond flagged = plain;
        flagged.x_zero = flagged.estimate_ends = 1, flagged.enough = 1e-4;
        ps_iter_result full, early;
        ps_status st;
        /* the reference: to 1e-11 from x = 0, the end judged by a product */
        ps__precond zero_start = plain;
        zero_start.x_zero = 1;
        double rel = flagged_gmres(n, sa, &A, &B, &X, zero_start, 1e-11, &st, &full, hist, CAP);
        CHECK(st == PS_SUCCESS && rel <= 1e-11 * 1.01 && full.converged,
              "GMRES x_zero to 1e-11, n = %d: %s, true residual %.3g", n, ps_status_string(st),
              rel);
        rel = flagged_gmres(n, sa, &A, &B, &X, flagged, 1e-14, &st, &early, hist, CAP);
        CHECK(st == PS_SUCCESS && early.converged, "GMRES enough 1e-4, n = %d: %s", n,
              ps_status_string(st));
        /* GMRES stops at the first step within enough, or at a restart (every 120 steps) whose
         * fresh residual is within it though the cycle's last estimate was not */
        int k = early.history_length;
        int at_restart = k % 120 == 0 && k > 0 && hist[k - 1] > 1e-4 && early.rel_residual <= 1e-4;
        CHECK(k == early.iterations && k >= 1 &&
                  (at_restart || (hist[k - 1] <= 1e-4 && (k == 1 || hist[k - 2] > 1e-4))),
              "GMRES enough 1e-4, n = %d: %d steps, estimates %.3g then %.3g: not stopped at the "
              "first step within enough",
              n, k, k > 1 ? hist[k - 2] : NAN, k > 0 ? hist[k - 1] : NAN);
        CHECK(at_restart || early.rel_residual == hist[k - 1],
              "GMRES estimate_ends, n = %d: reported %.17g, the last estimate %.17g (%d steps)", n,
              early.rel_residual, hist[k - 1], k);
        CHECK(fabs(rel - early.rel_residual) <= 1e-3 * early.rel_residual + 1e-12,
              "GMRES enough 1e-4, n = %d: true residual %.6g, estimate %.6g", n, rel,
              early.rel_residual);
        if (n > 3)
            CHECK(early.iterations < full.iterations && full.iterations > 10,
                  "GMRES enough 1e-4, n = %d: %d steps against %d to 1e-11", n, early.iterations,
                  full.iterations);
        /* x_zero from a zeroed x and the driver's residual from the same x: the same steps */
        ps__precond driver = flagged;
        driver.x_zero = 0;
        for (int i = 0; i < n; i++) X.host[i] = 0;
        upload_all(&X);
        ps_iter_result same;
        double rel2 = flagged_gmres(n, sa, &A, &B, &X, driver, 1e-14, &st, &same, hist, CAP);
        CHECK(st == PS_SUCCESS && same.iterations == early.iterations &&
                  fabs(rel2 - rel) <= 1e-6 * rel + 1e-15,
              "GMRES x_zero, n = %d: %d steps to %.6g, against %d to %.6g from the driver's "
              "residual",
              n, early.iterations, rel, same.iterations, rel2);
        /* a seeded first step (z_0 and A z_0 given): with z_0 the solution x* of A x = b, GMRES
         * from x = 0 is done in that one step; with a random z_0 it converges as ever. The seeds
         * are left as they were, and refused for another method. */
        tbuf Z = tb_random(PS__DOUBLE, n), AZ = tb_random(PS__DOUBLE, n);
        times_a(&A, sa, n, &Z, &AZ);
        double *z0 = copy_of(&Z), *az0 = copy_of(&AZ);
        ps__precond seeded = plain;
        seeded.x_zero = 1, seeded.seed_z = vview(&Z, 0, 1), seeded.seed_az = vview(&AZ, 0, 1);
        ps_iter_result sr;
        rel = flagged_gmres(n, sa, &A, &AZ, &X, seeded, 1e-10, &st, &sr, hist, CAP);
        double *x = tb_download(&X), xerr = 0, xmax = 0;
        for (int i = 0; i < n; i++)
            xerr = fmax(xerr, fabs(x[i] - z0[i])), xmax = fmax(xmax, fabs(z0[i]));
        free(x);
        CHECK(st == PS_SUCCESS && sr.iterations == 1 && rel <= 1e-10 && xerr <= 1e-12 * xmax,
              "GMRES seeded with the solution, n = %d: %s, %d steps, residual %.3g, error %.3g", n,
              ps_status_string(st), sr.iterations, rel, xerr / xmax);
        for (int i = 0; i < n; i++) Z.host[i] = z0[i] * (1 + 0.5 * ((i * 7919) % 13 - 6) / 6.0);
        upload_all(&Z); /* z_0 now only near x*: A z_0 as above is no longer its product */
        times_a(&A, sa, n, &Z, &AZ);
        free(z0), free(az0);
        z0 = copy_of(&Z), az0 = copy_of(&AZ);
        rel = flagged_gmres(n, sa, &A, &B, &X, seeded, 1e-10, &st, &sr, hist, CAP);
        CHECK(st == PS_SUCCESS && rel <= 1.01e-10 && sr.iterations <= 2 * full.iterations + 2,
              "GMRES seeded, n = %d: %s, %d steps (%d unseeded to 1e-11), true residual %.3g", n,
              ps_status_string(st), sr.iterations, full.iterations, rel);
        expect_buffer("GMRES's seed z_0 unchanged", &Z, z0, NULL, 0);
        expect_buffer("GMRES's seed A z_0 unchanged", &AZ, az0, NULL, 0);
        ps_iter_options io = ps_iter_options_default();
        st = ps__iter_solve_precond(ctx_under_test, "test", PS_ITER_BICGSTAB, PS__DOUBLE, n,
                                    view(&A, sa), vview(&B, 0, 1), vview(&X, 0, 1), &io, &sr,
                                    &seeded);
        CHECK(st == PS_ERR_INVALID_ARGUMENT, "BiCGSTAB seeded: %s", ps_status_string(st));
        free(z0), free(az0);
        tb_free(&Z), tb_free(&AZ);
        /* a NaN enough leaves o->tol */
        flagged.enough = NAN;
        rel = flagged_gmres(n, sa, &A, &B, &X, flagged, 1e-9, &st, &same, hist, CAP);
        CHECK(st == PS_SUCCESS && same.rel_residual <= 1e-9 && rel <= 1.01e-9,
              "GMRES enough NaN, n = %d: %s, estimate %.3g, true %.3g", n, ps_status_string(st),
              same.rel_residual, rel);
        tb_free(&A), tb_free(&B), tb_free(&X);
    }
}

/* Unit roundoff of each compute mode's GEMM input format (the split modes: the dropped
 * low-by-low product and the low part's own rounding, 2^-22 at most, both parts rounded to
 * nearest). */
static double mode_eps(ps__float_compute c) {
    switch (c) {
    case PS__COMPUTE_TF32:
        return ldexp(1, -11);
    case PS__COMPUTE_FP16:
        return ldexp(1, -11);
    case PS__COMPUTE_BF16:
        return ldexp(1, -8);
    case PS__COMPUTE_TF32X3:
    case PS__COMPUTE_FP16X3:
        return ldexp(1, -22);
    default:
        return FLT_EPSILON / 2;
    }
}

/* The largest relative error (to sum |a||b|) of one float gemm C = op(A) op(B) in the current
 * mode, on random operands with random leading dimensions, A's multiplied by a_scale and B's by
 * b_scale (powers of two, so the operands stay exact floats). An error of up to floor times
 * sum (|a| + |b|) is forgiven first: FP16X3's absolute floor (FP16's subnormals under each low
 * part), which float's range does not have. rms (when not NULL) gets the root mean square of
 * the errors over that of the exact products, floor not forgiven. With packed_stride > 0 the
 * operands are packed (leading dimension = rows, as the LU's) and only every packed_stride-th
 * row and column is checked (the host's products are the cost of a big C). */
/* Set: gemm_error fills the device's memory just before its product and frees it after
 * (test_split3_full_device); full_device_refused says whether a block of full_device_probe
 * bytes could then not be had. */
static int full_device;
static int full_device_refused;
static size_t full_device_probe;

enum { FILL_CHUNKS = 4096 };
static void *fill_chunk[FILL_CHUNKS];
static size_t fill_size[FILL_CHUNKS];
static int fill_count;

/* Takes device memory in ever smaller blocks until none of 1 MiB is left, then gives back
 * `spare` bytes of it, so that small allocations still succeed and big ones cannot. */
static void fill_device(size_t spare) {
    fill_count = 0;
    be->ops->release_cached(be);
    for (size_t block = (size_t)1 << 30; block >= ((size_t)1 << 20); block /= 4)
        while (fill_count < FILL_CHUNKS &&
               be->ops->alloc(be, block, &fill_chunk[fill_count]) == PS_SUCCESS)
            fill_size[fill_count++] = block;
    /* the smallest blocks (the last taken) that fit in what is left to give */
    size_t given = 0;
    for (int i = fill_count - 1; i >= 0 && given < spare; i--)
        if (fill_size[i] <= spare - given) {
            be->ops->free(be, fill_chunk[i]);
            given += fill_size[i];
            fill_chunk[i] = fill_chunk[--fill_count], fill_size[i] = fill_size[fill_count];
        }
    void *probe = NULL;
    full_device_refused = be->ops->alloc(be, full_device_probe, &probe) != PS_SUCCESS;
    if (probe) be->ops->free(be, probe);
}

static void unfill_device(void) {
    while (fill_count > 0) be->ops->free(be, fill_chunk[--fill_count]);
}

static double gemm_error(ps__float_compute c, ps__trans ta, ps__trans tb, int m, int n, int k,
                         double a_scale, double b_scale, double floor, int packed_stride,
                         double *rms) {
    int nt = ta == PS__NOTRANS, ntb = tb == PS__NOTRANS;
    shape sa = nt ? random_shape(m, k) : random_shape(k, m);
    shape sb = ntb ? random_shape(k, n) : random_shape(n, k), sc = random_shape(m, n);
    int stride = packed_stride > 0 ? packed_stride : 1;
    if (packed_stride > 0) {
        shape *all[] = {&sa, &sb, &sc};
        for (int i = 0; i < 3; i++) all[i]->ld = all[i]->rows, all[i]->off = 0;
    }
    tbuf A = tb_random(PS__FLOAT, shape_count(sa)), B = tb_random(PS__FLOAT, shape_count(sb));
    tbuf C = tb_random(PS__FLOAT, shape_count(sc));
    for (int i = 0; i < A.count; i++) A.host[i] *= a_scale;
    for (int i = 0; i < B.count; i++) B.host[i] *= b_scale;
    upload_all(&A), upload_all(&B);
    ps__scalar one = ps__scalar_of(PS__FLOAT, 1.0), zero = ps__scalar_of(PS__FLOAT, 0.0);
    if (full_device) fill_device((size_t)4 << 20);
    ps_status st = be->ops->gemm(be, PS__FLOAT, ta, tb, m, n, k, &one, view(&A, sa), view(&B, sb),
                                 &zero, view(&C, sc));
    if (full_device) CHECK(be->ops->sync(be) == PS_SUCCESS, "sync on a full device: %s", be->err);
    unfill_device();
    CHECK(st == PS_SUCCESS, "gemm in mode %d: %s", (int)c, be->err);
    double *got = tb_download(&C), worst = 0, err2 = 0, want2 = 0;
    for (int j = 0; j < n; j += stride)
        for (int r = 0; r < m; r += stride) {
            double mag, want = oracle_dot(&A, sa, ta, &B, sb, tb, r, j, k, &mag), terms = 0;
            double diff = got[sc.off + r + (size_t)j * sc.ld] - want;
            err2 += diff * diff, want2 += want * want;
            for (int p = 0; floor > 0 && p < k; p++)
                terms += fabs(ta == PS__NOTRANS ? AT(A, sa, r, p) : AT(A, sa, p, r)) +
                         fabs(tb == PS__NOTRANS ? AT(B, sb, p, j) : AT(B, sb, j, p));
            double excess = fabs(diff) - floor * terms;
            double err = excess <= 0 ? 0 : excess / mag; /* NaN stays NaN */
            if (!(err <= worst)) worst = err;            /* NaN sticks */
        }
    if (rms) *rms = sqrt(err2 / want2);
    free(got);
    tb_free(&A), tb_free(&B), tb_free(&C);
    return worst;
}

static void test_float_compute(int tensor_cores) {
    static const ps__float_compute modes[] = {PS__COMPUTE_FP32,   PS__COMPUTE_TF32,
                                              PS__COMPUTE_FP16,   PS__COMPUTE_BF16,
                                              PS__COMPUTE_TF32X3, PS__COMPUTE_FP16X3};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        ps__float_compute c = modes[i];
        ps_status st = be->ops->set_float_compute(be, c);
        if (c != PS__COMPUTE_FP32 && !tensor_cores) {
            CHECK(st == PS_ERR_NOT_SUPPORTED, "set_float_compute(%d) on %s: %s", (int)c,
                  be->ops->name, ps_status_string(st));
            continue;
        }
        CHECK(st == PS_SUCCESS, "set_float_compute(%d): %s", (int)c, be->err);
        /* The TF32 modes apply only to products of at least 512 x 512 and FP16X3 to those of
         * at least 128 x 128 (smaller ones, in the LU's panel, run in float); FP16 and BF16 to
         * all. Each is tried on both sides of that line (n = 45 below it) and, above it, with
         * every transposition. */
        int lowprec = c != PS__COMPUTE_FP32;
        int split3 = c == PS__COMPUTE_TF32X3 || c == PS__COMPUTE_FP16X3;
        for (int shape_case = 0; shape_case < (lowprec ? 5 : 1); shape_case++) {
            int big = lowprec && shape_case > 0;
            ps__trans ta = shape_case >= 3 ? PS__TRANS : PS__NOTRANS;
            ps__trans tb = shape_case % 2 == 0 && big ? PS__TRANS : PS__NOTRANS;
            int m = big ? 512 + ps_test_rand_int(40) : 70 + ps_test_rand_int(400),
                n = big ? 512 + ps_test_rand_int(40) : 45;
            int k = big ? 1 + ps_test_rand_int(200) : 130;
            double worst = gemm_error(c, ta, tb, m, n, k, 1, 1, 0, 0, NULL);
            /* inputs rounded (2 u), products accumulated in float (k eps) */
            int big_only = c == PS__COMPUTE_TF32 || split3;
            ps__float_compute applied = big || !big_only ? c : PS__COMPUTE_FP32;
            double allowed = 4 * mode_eps(applied) + k * FLT_EPSILON;
            CHECK(worst <= allowed, "gemm %c%c %dx%dx%d in mode %d: relative error %.3g above %.3g",
                  ta == PS__NOTRANS ? 'N' : 'T', tb == PS__NOTRANS ? 'N' : 'T', m, n, k, (int)c,
                  worst, allowed);
            /* each single-format mode that rounds the operands itself really rounds as it says:
             * float is far more accurate than FP16/BF16, whose products show their own rounding
             * (about u / sqrt(k) on average). TF32 is cuBLAS's FAST_TF32 compute type, which
             * permits the rounding and does not promise it: products of 512 x 512 x 83..261
             * came out float-accurate on an H100 (CUDA 13.0), so only its bound is checked. */
            if (applied == PS__COMPUTE_FP32)
                CHECK(worst <= k * FLT_EPSILON, "float gemm %dx%dx%d (mode %d) error %.3g", m, n, k,
                      (int)c, worst);
            else if (!big_only)
                CHECK(worst >= mode_eps(c) / 16,
                      "gemm %dx%dx%d in mode %d: error %.3g is too small for its "
                      "format (the mode was not applied?)",
                      m, n, k, (int)c, worst);
        }
        if (split3) {
            /* At the LU's update shape at n = 32768 (k = 768, packed operands whose rows are a
             * multiple of 8) the split modes are nearly as accurate as float itself, since their
             * small products are summed before the big one (cuda_blas.c says why). On an H200
             * (m = n = 4096) the rms error was 1.9x SGEMM's for FP16X3 and 3.7x for TF32X3 in
             * this order (3.9x with TF32X3's parts truncated rather than rounded), 8x and 18x in
             * the other. cuBLAS's kernels for other shapes gave more: 3.7x for FP16X3 with
             * leading dimensions not a multiple of 8, and 5.2x at m = n = 2048 in either order.
             * Both on fresh operands of one shape. */
            int m = 4096 + 8 * ps_test_rand_int(5), n = 4096 + 8 * ps_test_rand_int(5), k = 768;
            double mode_rms = NAN, float_rms = NAN, times = c == PS__COMPUTE_FP16X3 ? 3 : 6;
            gemm_error(c, PS__NOTRANS, PS__NOTRANS, m, n, k, 1, 1, 0, 32, &mode_rms);
            CHECK(be->ops->set_float_compute(be, PS__COMPUTE_FP32) == PS_SUCCESS, "float: %s",
                  be->err);
            gemm_error(PS__COMPUTE_FP32, PS__NOTRANS, PS__NOTRANS, m, n, k, 1, 1, 0, 32,
                       &float_rms);
            CHECK(be->ops->set_float_compute(be, c) == PS_SUCCESS, "mode %d: %s", (int)c, be->err);
            CHECK(mode_rms <= times * float_rms,
                  "gemm %dx%dx%d in mode %d: rms error %.3g of the product's, above %gx "
                  "float's %.3g",
                  m, n, k, (int)c, mode_rms, times, float_rms);
        }
        if (c == PS__COMPUTE_TF32X3) {
            /* float's range: an entry within 2^-11 of float's largest, which TF32 rounds to
             * Inf, is split by truncation, so that A B stays finite and exact here */
            float big = 0x1.fffffep127f, small = 0x1p-20f;
            int m = 512, n = 520, k = 2;
            tbuf A = tb_random(PS__FLOAT, m * k), B = tb_random(PS__FLOAT, k * n);
            tbuf C = tb_random(PS__FLOAT, m * n);
            for (int i = 0; i < A.count; i++) A.host[i] = i % 2 ? -big : big;
            for (int i = 0; i < B.count; i++) B.host[i] = small;
            upload_all(&A), upload_all(&B);
            ps__scalar one = ps__scalar_of(PS__FLOAT, 1.0), zero = ps__scalar_of(PS__FLOAT, 0.0);
            CHECK(be->ops->gemm(be, PS__FLOAT, PS__NOTRANS, PS__NOTRANS, m, n, k, &one,
                                (ps__mat){A.dev, 0, m}, (ps__mat){B.dev, 0, k}, &zero,
                                (ps__mat){C.dev, 0, m}) == PS_SUCCESS,
                  "TF32X3 gemm near float's largest: %s", be->err);
            double *got = tb_download(&C), want = 2.0 * big * small, worst = 0;
            for (int j = 0; j < n; j++)
                for (int i = 0; i < m; i++) {
                    double e = fabs(got[i + (size_t)j * m] - (i % 2 ? -want : want)) / want;
                    if (!(e <= worst)) worst = e;
                }
            CHECK(worst <= 4 * mode_eps(c), "TF32X3 gemm near float's largest: error %.3g", worst);
            free(got);
            tb_free(&A), tb_free(&B), tb_free(&C);
        }
        if (c == PS__COMPUTE_FP16X3) {
            /* FP16's range: operands far from 1 either way keep the mode's accuracy (its parts
             * are scaled), while one beyond it (|A| above 65504 / 2^6) overflows visibly. Each
             * term a b also carries an absolute error of up to 2^-35 (|a| + |b|) (docs/IR.md:
             * a low part held as lo 2^11 among FP16's subnormals, and the dropped Alo Blo where
             * a hi is itself subnormal): with |B| near 2^-12 an entry whose few terms all have
             * tiny b (k of 1 or 2) misses float's relative accuracy by that (H200, cuBLAS 13.1:
             * 2.5e-5 at k <= 2, against 1.2e-6). The check forgives that floor and nothing
             * more, and half the time draws k of 1 or 2, where it binds. */
            static const double scales[][2] = {{0x1p9, 0x1p-12}, {0x1p-12, 0x1p10}, {0x1p12, 1}};
            for (int s = 0; s < 3; s++) {
                int m = 512 + ps_test_rand_int(40), n = 512 + ps_test_rand_int(40);
                int k = s < 2 && ps_test_rand_int(2) ? 1 + ps_test_rand_int(2)
                                                     : 1 + ps_test_rand_int(200);
                double worst = gemm_error(c, PS__NOTRANS, PS__NOTRANS, m, n, k, scales[s][0],
                                          scales[s][1], 0x1p-35, 0, NULL);
                double allowed = 4 * mode_eps(c) + k * FLT_EPSILON;
                if (s < 2)
                    CHECK(worst <= allowed,
                          "FP16X3 gemm, operands scaled by %g and %g: relative "
                          "error %.3g above %.3g",
                          scales[s][0], scales[s][1], worst, allowed);
                else
                    CHECK(!(worst <= 1), "FP16X3 gemm beyond FP16's range: error %.3g, not visible",
                          worst);
            }
        }
    }
    CHECK(be->ops->set_float_compute(be, PS__COMPUTE_FP32) == PS_SUCCESS, "reset: %s", be->err);
    /* the default refuses every tensor-core mode and accepts float */
    CHECK(ps__backend_defaults()->set_float_compute(be, PS__COMPUTE_TF32) == PS_ERR_NOT_SUPPORTED,
          "default accepted TF32");
    CHECK(ps__backend_defaults()->set_float_compute(be, PS__COMPUTE_FP32) == PS_SUCCESS,
          "default refused float");
}

/* With the device full, the split modes' three copies of the operands cannot be had: the product
 * is then computed in float (cuda_blas.c), as accurate as float's, and the device stays usable
 * for the next one in the mode. Only when asked: it takes the whole device for a moment. */
static void test_split3_full_device(void) {
    static const ps__float_compute modes[] = {PS__COMPUTE_TF32X3, PS__COMPUTE_FP16X3};
    enum { m = 2048, n = 2048, k = 2048 };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        ps__float_compute c = modes[i];
        CHECK(be->ops->set_float_compute(be, c) == PS_SUCCESS, "mode %d: %s", (int)c, be->err);
        gemm_error(c, PS__NOTRANS, PS__NOTRANS, m, n, k, 1, 1, 0, 32, NULL); /* cuBLAS set up */
        /* the smaller mode's copies of A and B: 3 (m + n) k two-byte parts */
        full_device_probe = (size_t)3 * (m + n) * k * 2;
        full_device = 1;
        double worst = gemm_error(c, PS__NOTRANS, PS__NOTRANS, m, n, k, 1, 1, 0, 32, NULL);
        full_device = 0;
        CHECK(full_device_refused, "the filled device still had %zu bytes for the parts",
              full_device_probe);
        CHECK(worst <= k * FLT_EPSILON, "gemm %dx%dx%d in mode %d on a full device: error %.3g", m,
              n, k, (int)c, worst);
        worst = gemm_error(c, PS__NOTRANS, PS__NOTRANS, m, n, k, 1, 1, 0, 32, NULL);
        CHECK(worst <= 4 * mode_eps(c) + k * FLT_EPSILON,
              "gemm in mode %d after the full device: error %.3g", (int)c, worst);
    }
    CHECK(be->ops->set_float_compute(be, PS__COMPUTE_FP32) == PS_SUCCESS, "float: %s", be->err);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    ps_context *ctx = ps_test_context(0);
    if (!ctx) return ps_test_finish("test_vtable_ir");
    be = &ctx->be;
    ctx_under_test = ctx;
    const char *c = ps_test_case(); /* --case NAME runs one group (the sanitizer runs') */
    if (!c || !strcmp(c, "convert")) test_convert();
    if (!c || !strcmp(c, "butterfly")) test_butterfly();
    if (!c || !strcmp(c, "norm_inf")) test_norm_inf(PS__DOUBLE), test_norm_inf(PS__FLOAT);
    if (!c || !strcmp(c, "permute_rows"))
        test_permute_rows(PS__DOUBLE), test_permute_rows(PS__FLOAT);
    if (!c || !strcmp(c, "float_compute"))
        test_float_compute(!strcmp(ps_test_backend_name(), "cuda"));
    if (!c || !strcmp(c, "trsv_mixed")) test_trsv_mixed();
    if (!c || !strcmp(c, "gemv_mixed")) test_gemv_mixed();
    if (!c || !strcmp(c, "trsv_blocked")) test_trsv_blocked();
    if (!c || !strcmp(c, "read_only")) test_read_only();
    if (!c || !strcmp(c, "gemv_triangle")) test_gemv_triangle();
    if (!c || !strcmp(c, "iter_caller_ends")) test_iter_caller_ends();
    if (c && !strcmp(c, "trsv_mixed_large")) test_trsv_mixed_large();     /* only when asked */
    if (c && !strcmp(c, "split3_full_device")) test_split3_full_device(); /* only when asked */
    int rc = ps_test_finish("test_vtable_ir");
    ctx_under_test = NULL;
    ps_context_destroy(ctx);
    return rc;
}
