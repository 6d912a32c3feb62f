/*
 * The vtable entries the Cholesky and iterative solvers add, on the backend given by --backend:
 * the Cholesky block kernel (potrf_panel) of the backend and the portable default against the
 * CPU backend's plain loops (the oracle), including a block that is not positive definite and
 * an info already set; the tall-panel kernel (potrf_tall) against the oracle and a CBLAS trsm,
 * on panels of 1..600 rows; the fused vector kernels axpby and vmul against naive loops, with
 * offsets and increments above 1.
 */
#include "vtable_harness.h"

#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A symmetric positive definite n x n block in the view: B B^T / n + I on both triangles. */
static void make_spd(tbuf *A, shape s, int n) {
    double *b = malloc(sizeof(double) * (size_t)n * (size_t)n + 1);
    for (int i = 0; i < n * n; i++) b[i] = ps_test_rand();
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double v = i == j ? 1.0 : 0.0;
            for (int k = 0; k < n; k++) v += b[i + k * n] * b[j + k * n] / n;
            AT(*A, s, i, j) = round_to(A->dt, v);
        }
    free(b);
}

static void test_potrf_panel(ps__dtype dt) {
    static const int orders[] = {1, 2, 3, 8, 17, 32, 33, 64};
    for (size_t t = 0; t < sizeof orders / sizeof orders[0]; t++)
        for (int which = 0; which < 2; which++)
            for (int uplo = 0; uplo < 2; uplo++)
                for (int fail_case = 0; fail_case < 3; fail_case++) {
                    /* 0: SPD; 1: the minor of order f+1 is not positive; 2: info preset */
                    int n = orders[t], base = 5, f = n / 2;
                    const ps__chol_kernels *ops = FAMILY(chol, which);
                    if (!which && n > ps__chol(be)->potrf_width(be, dt))
                        continue; /* above its width */
                    shape s = random_shape(n, n);
                    tbuf A = tb_random(dt, shape_count(s));
                    make_spd(&A, s, n);
                    if (fail_case == 1) AT(A, s, f, f) = -1.0 - n; /* leading f x f stays SPD */
                    upload_all(&A);
                    int init = fail_case == 2 ? 42 : 0;
                    tbuf info = int_buffer(1, &init);
                    ps__uplo u = uplo ? PS__UPPER : PS__LOWER;
                    ps_status st = ops->potrf_panel(be, dt, u, n, view(&A, s), info.dev, base);
                    CHECK(st == PS_SUCCESS, "%spotrf_panel n=%d: %s", which ? "default " : "", n,
                          be->err);

                    void *h = tb_native_copy(&A);
                    int32_t oinfo = init;
                    ps__mat hv = {h, s.off, s.ld};
                    CPU_FAMILY(chol)->potrf_panel(NULL, dt, u, n, hv, &oinfo, base);
                    double *gi = tb_download(&info), *ga = tb_download(&A);
                    int want = fail_case == 2 ? 42 : fail_case == 1 ? base + f + 1 : 0;
                    CHECK((int)gi[0] == want && oinfo == want,
                          "%s%spotrf_panel n=%d uplo=%c case %d: info %g, oracle %d, expected %d",
                          which ? "default " : "", dtname(dt), n, uplo ? 'U' : 'L', fail_case,
                          gi[0], (int)oinfo, want);
                    /* Factored columns agree with the oracle; past a failure the kernels may
                     * differ (left- versus right-looking), so compare the leading block only. */
                    int upto = fail_case == 1 ? f : fail_case == 2 ? 0 : n;
                    double diff = 0, mag = 1;
                    for (int j = 0; j < upto; j++)
                        for (int i = 0; i < upto; i++) {
                            size_t e = s.off + (size_t)i + (size_t)j * (size_t)s.ld;
                            double o = native_at(dt, h, e);
                            diff = fmax(diff, fabs(o - ga[e]));
                            mag = fmax(mag, fabs(o));
                        }
                    CHECK(diff <= 8.0 * n * eps_of(dt) * mag,
                          "%s%spotrf_panel n=%d uplo=%c differs from the oracle by %g",
                          which ? "default " : "", dtname(dt), n, uplo ? 'U' : 'L', diff);
                    /* The other triangle and everything outside the view are never written. */
                    int outside_ok = 1;
                    for (int e = 0; e < A.count; e++) {
                        long rel = (long)e - (long)s.off;
                        int j = rel >= 0 ? (int)(rel / s.ld) : -1,
                            i = rel >= 0 ? (int)(rel % s.ld) : -1;
                        int inside = rel >= 0 && j < n && i < n && (uplo ? i <= j : i >= j);
                        if (!inside || fail_case == 2) outside_ok &= ga[e] == A.host[e];
                    }
                    CHECK(outside_ok, "%spotrf_panel n=%d uplo=%c wrote outside its triangle",
                          which ? "default " : "", n, uplo ? 'U' : 'L');
                    free(h), free(gi), free(ga);
                    tb_free(&A), tb_free(&info);
                }
}

/* The tall panel: an SPD n x n block on top of m - n random rows (upper: the transpose, an
 * n x m view). Checked against the oracle's potrf_panel plus CBLAS's trsm: the factor and the
 * solved rows; after a failure the leading block and info; with info preset, the block
 * untouched; never anything outside the panel's triangle and rows. */
static void test_potrf_tall(ps__dtype dt) {
    /* the last two need more row blocks than the CUDA kernel's grid holds on an H100 */
    static const int shapes[][2] = {{1, 1},    {5, 3},     {70, 17},    {300, 64},
                                    {600, 33}, {1100, 64}, {20000, 64}, {35000, 61}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++)
        for (int which = 0; which < 2; which++)
            for (int uplo = 0; uplo < 2; uplo++)
                for (int fail_case = 0; fail_case < 3; fail_case++) {
                    int m = shapes[t][0], n = shapes[t][1], base = 3, f = n / 2;
                    const ps__chol_kernels *ops = FAMILY(chol, which);
                    if (n > ps__chol(be)->potrf_width(be, dt)) continue;
                    int rows = uplo ? n : m, cols = uplo ? m : n;
                    shape s = random_shape(rows, cols);
                    tbuf A = tb_random(dt, shape_count(s));
                    make_spd(&A, s, n);
                    if (fail_case == 1) AT(A, s, f, f) = -1.0 - n;
                    upload_all(&A);
                    int init = fail_case == 2 ? 42 : 0;
                    tbuf info = int_buffer(1, &init);
                    ps__uplo u = uplo ? PS__UPPER : PS__LOWER;
                    ps_status st = ops->potrf_tall(be, dt, u, m, n, view(&A, s), info.dev, base);
                    CHECK(st == PS_SUCCESS, "%spotrf_tall %dx%d: %s", which ? "default " : "", m, n,
                          be->err);

                    void *h = tb_native_copy(&A);
                    int32_t oinfo = init;
                    ps__mat hv = {h, s.off, s.ld};
                    CPU_FAMILY(chol)->potrf_panel(NULL, dt, u, n, hv, &oinfo, base);
                    if (oinfo == 0 && m > n) {
                        CBLAS_SIDE side = uplo ? CblasLeft : CblasRight;
                        CBLAS_UPLO tri = uplo ? CblasUpper : CblasLower;
                        int bm = uplo ? n : m - n, bn = uplo ? m - n : n;
                        size_t boff = s.off + (uplo ? (size_t)n * s.ld : (size_t)n);
                        if (dt == PS__DOUBLE)
                            cblas_dtrsm(CblasColMajor, side, tri, CblasTrans, CblasNonUnit, bm, bn,
                                        1.0, (double *)h + s.off, s.ld, (double *)h + boff, s.ld);
                        else
                            cblas_strsm(CblasColMajor, side, tri, CblasTrans, CblasNonUnit, bm, bn,
                                        1.0f, (float *)h + s.off, s.ld, (float *)h + boff, s.ld);
                    }
                    double *gi = tb_download(&info), *ga = tb_download(&A);
                    int want = fail_case == 2 ? 42 : fail_case == 1 ? base + f + 1 : 0;
                    CHECK((int)gi[0] == want && oinfo == want,
                          "%s%spotrf_tall %dx%d uplo=%c case %d: info %g, oracle %d, expected %d",
                          which ? "default " : "", dtname(dt), m, n, uplo ? 'U' : 'L', fail_case,
                          gi[0], (int)oinfo, want);
                    /* Compared: the whole panel when it succeeded, else the leading block. */
                    int upto = fail_case == 1 ? f : fail_case == 2 ? 0 : n;
                    int long_upto = fail_case == 0 ? m : upto;
                    double diff = 0, mag = 1;
                    for (int c = 0; c < upto; c++)
                        for (int r = c; r < long_upto; r++) {
                            size_t e = s.off + (uplo ? (size_t)c + (size_t)r * (size_t)s.ld
                                                     : (size_t)r + (size_t)c * (size_t)s.ld);
                            double o = native_at(dt, h, e);
                            diff = fmax(diff, fabs(o - ga[e]));
                            mag = fmax(mag, fabs(o));
                        }
                    CHECK(diff <= 8.0 * n * eps_of(dt) * mag,
                          "%s%spotrf_tall %dx%d uplo=%c differs from the oracle by %g (of %g)",
                          which ? "default " : "", dtname(dt), m, n, uplo ? 'U' : 'L', diff, mag);
                    int outside_ok = 1;
                    for (int e = 0; e < A.count; e++) {
                        long rel = (long)e - (long)s.off;
                        int j = rel >= 0 ? (int)(rel / s.ld) : -1,
                            i = rel >= 0 ? (int)(rel % s.ld) : -1;
                        int r = uplo ? j : i, c = uplo ? i : j; /* as an element of L */
                        int inside = rel >= 0 && i < rows && j < cols && c < n && r >= c;
                        /* with info preset the rows below are unspecified, the block untouched */
                        int frozen = fail_case == 2 && r < n;
                        if (!inside || frozen) outside_ok &= ga[e] == A.host[e];
                    }
                    CHECK(outside_ok, "%spotrf_tall %dx%d uplo=%c wrote outside its panel",
                          which ? "default " : "", m, n, uplo ? 'U' : 'L');
                    free(h), free(gi), free(ga);
                    tb_free(&A), tb_free(&info);
                }
}

static void test_vector_kernels(ps__dtype dt) {
    static const int lengths[] = {0, 1, 7, 100, 1000};
    for (size_t t = 0; t < sizeof lengths / sizeof lengths[0]; t++)
        for (int which = 0; which < 2; which++) {
            const ps__backend_ops *ops = which ? ps__backend_defaults() : be->ops;
            int n = lengths[t], incx = 1 + ps_test_rand_int(3), incy = 1 + ps_test_rand_int(3);
            size_t offx = (size_t)ps_test_rand_int(4), offy = (size_t)ps_test_rand_int(4);
            int cx = (int)offx + incx * n + 1, cy = (int)offy + incy * n + 1;
            tbuf X = tb_random(dt, cx), Y = tb_random(dt, cy);
            double alpha = round_to(dt, ps_test_rand()), beta = round_to(dt, ps_test_rand());
            ps__scalar a = ps__scalar_of(dt, alpha), b = ps__scalar_of(dt, beta);

            double *ey = copy_of(&Y), *mag = calloc((size_t)cy, sizeof(double));
            for (int i = 0; i < n; i++) {
                double xv = X.host[offx + (size_t)i * incx], yv = Y.host[offy + (size_t)i * incy];
                ey[offy + (size_t)i * incy] = alpha * xv + beta * yv;
                mag[offy + (size_t)i * incy] = 2 * (fabs(alpha * xv) + fabs(beta * yv));
            }
            CHECK(ops->axpby(be, dt, n, &a, vview(&X, offx, incx), &b, vview(&Y, offy, incy)) ==
                      PS_SUCCESS,
                  "axpby: %s", be->err);
            expect_buffer(which ? "default axpby" : "axpby", &Y, ey, mag, 2);

            upload_all(&Y); /* back to the original y */
            for (int i = 0; i < n; i++) {
                size_t iy = offy + (size_t)i * incy;
                double xv = X.host[offx + (size_t)i * incx];
                ey[iy] = xv * Y.host[iy];
                mag[iy] = fabs(ey[iy]);
            }
            CHECK(ops->vmul(be, dt, n, vview(&X, offx, incx), vview(&Y, offy, incy)) == PS_SUCCESS,
                  "vmul: %s", be->err);
            expect_buffer(which ? "default vmul" : "vmul", &Y, ey, mag, 1);
            free(ey), free(mag);
            tb_free(&X), tb_free(&Y);
        }
}

/* gemv and gemm with beta = 0 must not read the output (BLAS): NaN there must not leak in. The
 * iterative solvers' matrix-vector products write into uninitialized workspace this way. */
static void test_beta_zero(ps__dtype dt) {
    int m = 37, n = 23;
    tbuf A = tb_random(dt, m * n), X = tb_random(dt, n), Y = tb_random(dt, m), C = tb_random(dt, m);
    for (int i = 0; i < m; i++) Y.host[i] = NAN, C.host[i] = NAN;
    upload_all(&Y), upload_all(&C);
    ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0);
    ps__mat a = {A.dev, 0, m}, xm = {X.dev, 0, n}, cm = {C.dev, 0, m};
    CHECK(be->ops->gemv(be, dt, PS__NOTRANS, m, n, &one, a, vview(&X, 0, 1), &zero,
                        vview(&Y, 0, 1)) == PS_SUCCESS,
          "gemv: %s", be->err);
    CHECK(be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m, 1, n, &one, a, xm, &zero, cm) ==
              PS_SUCCESS,
          "gemm: %s", be->err);
    double *e = malloc(sizeof(double) * (size_t)m), *mag = malloc(sizeof(double) * (size_t)m);
    for (int i = 0; i < m; i++) {
        e[i] = 0, mag[i] = 0;
        for (int k = 0; k < n; k++) {
            e[i] += A.host[i + k * m] * X.host[k];
            mag[i] += fabs(A.host[i + k * m] * X.host[k]);
        }
        mag[i] *= 2;
    }
    expect_buffer("gemv with beta = 0 over NaN", &Y, e, mag, n);
    expect_buffer("gemm with beta = 0 over NaN", &C, e, mag, n);
    free(e), free(mag);
    tb_free(&A), tb_free(&X), tb_free(&Y), tb_free(&C);
}

static void run_all(ps__dtype dt) {
    test_potrf_panel(dt);
    test_potrf_tall(dt);
    test_vector_kernels(dt);
    test_beta_zero(dt);
}

int main(int argc, char **argv) {
    return vtable_main(argc, argv, "test_vtable_solvers", run_all);
}
