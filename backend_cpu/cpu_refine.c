/*
 * The CPU backend's mixed-precision entries as plain loops (the oracle the GPU kernels are
 * tested against): precision conversion with LAPACK dlag2s's overflow test, the infinity
 * norm, and the triangular solve with float factors in double. Float GEMMs compute in float only,
 * so set_float_compute is the default's.
 */
#include "../core/base/blas_defaults.h"
#include "../core/refine/butterfly.h"
#include "cpu_internal.h"

#include <math.h>
#include <stdint.h>

static double element(ps__dtype dt, ps__mat a, int i, int j) {
    size_t k = a.off + (size_t)i + (size_t)j * (size_t)a.ld;
    return dt == PS__DOUBLE ? ((const double *)a.buf)[k] : (double)((const float *)a.buf)[k];
}

/* a(i,j) = v, already rounded to dt */
static void store(ps__dtype dt, ps__mat a, int i, int j, double v) {
    size_t k = a.off + (size_t)i + (size_t)j * (size_t)a.ld;
    if (dt == PS__DOUBLE)
        ((double *)a.buf)[k] = v;
    else
        ((float *)a.buf)[k] = (float)v;
}

/* dst = alpha src rounded to dst_dt, or alpha src^T with transposed; info[0] = 1 on overflow. */
static void convert_elements(ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols, double alpha,
                             ps__mat src, ps__mat dst, void *info, int transposed) {
    int overflow = 0;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) {
            double v = ps__convert_value(dst_dt, alpha, element(src_dt, src, i, j), &overflow);
            if (transposed)
                store(dst_dt, dst, j, i, v);
            else
                store(dst_dt, dst, i, j, v);
        }
    if (overflow) *(int32_t *)info = 1;
}

ps_status ps__cpu_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                          double alpha, ps__mat src, ps__mat dst, void *info) {
    (void)be;
    convert_elements(src_dt, dst_dt, rows, cols, alpha, src, dst, info, 0);
    return PS_SUCCESS;
}

ps_status ps__cpu_convert_transposed(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                                     int cols, double alpha, ps__mat src, ps__mat dst, void *info) {
    (void)be;
    convert_elements(src_dt, dst_dt, rows, cols, alpha, src, dst, info, 1);
    return PS_SUCCESS;
}

ps_status ps__cpu_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                           double *result) {
    (void)be;
    double best = 0;
    /* Row sums a block of rows at a time, walking each column contiguously. */
    enum { ROWS = 256 };
    double sums[ROWS];
    for (int i0 = 0; i0 < rows; i0 += ROWS) {
        int h = rows - i0 < ROWS ? rows - i0 : ROWS;
        for (int i = 0; i < h; i++) sums[i] = 0;
        for (int j = 0; j < cols; j++)
            for (int i = 0; i < h; i++) sums[i] += fabs(element(dt, a, i0 + i, j));
        for (int i = 0; i < h; i++) {
            if (isnan(sums[i])) {
                *result = sums[i];
                return PS_SUCCESS;
            }
            if (sums[i] > best) best = sums[i];
        }
    }
    *result = best;
    return PS_SUCCESS;
}

ps_status ps__cpu_butterfly(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                            double alpha, const void *left, const void *right, ps__mat src,
                            ps__mat dst, void *info) {
    (void)be;
    int overflow = 0, rslots = ps__butterfly_slots(rows, left);
    int cslots = ps__butterfly_slots(cols, right);
    for (int cs = 0; cs < cslots; cs++) {
        int ci[4], nc = ps__butterfly_slot(cols, right, cs, ci);
        for (int rs = 0; rs < rslots; rs++) {
            int ri[4], nr = ps__butterfly_slot(rows, left, rs, ri);
            double x[4][4];
            for (int b = 0; b < nc; b++)
                for (int a = 0; a < nr; a++) x[a][b] = alpha * element(src_dt, src, ri[a], ci[b]);
            ps__butterfly_block(left, rows, rs, nr, right, cols, cs, nc, x);
            for (int b = 0; b < nc; b++)
                for (int a = 0; a < nr; a++) {
                    store(dst_dt, dst, ri[a], ci[b],
                          ps__convert_value(dst_dt, 1.0, x[a][b], &overflow));
                }
        }
    }
    if (overflow) *(int32_t *)info = 1;
    return PS_SUCCESS;
}

/* x = A^-1 x, A a float triangle, in double, by columns (each column of A read once,
 * contiguously). */
ps_status ps__cpu_trsv_mixed(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                             ps__vec x) {
    (void)be;
    const float *af = (const float *)a.buf + a.off;
    double *xv = (double *)x.buf + x.off;
    size_t inc = (size_t)x.inc, ld = (size_t)a.ld;
    for (int step = 0; step < n; step++) {
        int j = uplo == PS__LOWER ? step : n - 1 - step;
        const float *col = af + (size_t)j * ld;
        if (diag == PS__NONUNIT) xv[(size_t)j * inc] /= (double)col[j];
        double xj = xv[(size_t)j * inc];
        int i0 = uplo == PS__LOWER ? j + 1 : 0, i1 = uplo == PS__LOWER ? n : j;
        for (int i = i0; i < i1; i++) xv[(size_t)i * inc] -= (double)col[i] * xj;
    }
    return PS_SUCCESS;
}

/* y += alpha A x, A float, x and y double, in double, by columns (each column of A read once,
 * contiguously). */
ps_status ps__cpu_gemv_mixed(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                             ps__vec y) {
    (void)be;
    if (m <= 0 || k <= 0) return PS_SUCCESS;
    const float *af = (const float *)a.buf + a.off;
    const double *xv = (const double *)x.buf + x.off;
    double *yv = (double *)y.buf + y.off;
    size_t incx = (size_t)x.inc, incy = (size_t)y.inc, ld = (size_t)a.ld;
    for (int j = 0; j < k; j++) {
        const float *col = af + (size_t)j * ld;
        double xj = alpha * xv[(size_t)j * incx];
        for (int i = 0; i < m; i++) yv[(size_t)i * incy] += (double)col[i] * xj;
    }
    return PS_SUCCESS;
}

const ps__refine_kernels ps__cpu_refine_kernels = {
    .header = {PS__REFINE_KERNELS_ABI, sizeof(ps__refine_kernels)},
    .butterfly = ps__cpu_butterfly,
    .trsv_mixed = ps__cpu_trsv_mixed,
    .gemv_mixed = ps__cpu_gemv_mixed,
    .convert_transposed = ps__cpu_convert_transposed,
};
