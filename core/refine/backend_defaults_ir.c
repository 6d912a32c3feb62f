/*
 * Portable defaults of the mixed-precision entries, from the required ones: conversion and the
 * infinity norm move one column at a time through host memory. Correct everywhere and slow
 * (a transfer per column); every shipped backend has kernels for both.
 */
#include "refine/backend_defaults_ir.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Host element i of a column of either precision. */
static double host_at(ps__dtype dt, const void *col, int i) {
    return dt == PS__DOUBLE ? ((const double *)col)[i] : (double)((const float *)col)[i];
}

/* Stores v (already rounded to dt) as element i of a host column of either precision. */
static void host_store(ps__dtype dt, void *col, size_t i, double v) {
    if (dt == PS__DOUBLE)
        ((double *)col)[i] = v;
    else
        ((float *)col)[i] = (float)v;
}

ps_status ps__default_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                              int cols, double alpha, ps__mat src, ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    void *in = malloc((size_t)rows * sizeof(double)), *out = malloc((size_t)rows * sizeof(double));
    ps_status st =
        in && out ? PS_SUCCESS
                  : ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "convert: out of host memory");
    int overflow = 0;
    for (int j = 0; j < cols && st == PS_SUCCESS; j++) {
        st = be->ops->download(be, src_dt, rows, 1, ps__mat_at(src, 0, j), in, rows);
        for (int i = 0; i < rows && st == PS_SUCCESS; i++) {
            host_store(dst_dt, out, (size_t)i,
                       ps__convert_value(dst_dt, alpha, host_at(src_dt, in, i), &overflow));
        }
        if (st == PS_SUCCESS)
            st = be->ops->upload(be, dst_dt, rows, 1, out, rows, ps__mat_at(dst, 0, j));
    }
    if (st == PS_SUCCESS && overflow) {
        int32_t one = 1;
        ps__mat word = {info, 0, 1};
        st = be->ops->upload(be, PS__INT32, 1, 1, &one, 1, word);
    }
    free(in), free(out);
    return st;
}

ps_status ps__default_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                               double *result) {
    *result = 0;
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    void *col = malloc((size_t)rows * sizeof(double));
    double *sums = calloc((size_t)rows, sizeof(double));
    ps_status st = col && sums ? PS_SUCCESS
                               : ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY,
                                                  "norm_inf: out of host memory");
    for (int j = 0; j < cols && st == PS_SUCCESS; j++) {
        st = be->ops->download(be, dt, rows, 1, ps__mat_at(a, 0, j), col, rows);
        for (int i = 0; i < rows && st == PS_SUCCESS; i++) sums[i] += fabs(host_at(dt, col, i));
    }
    for (int i = 0; i < rows && st == PS_SUCCESS; i++) {
        if (isnan(sums[i])) {
            *result = sums[i];
            break;
        }
        if (sums[i] > *result) *result = sums[i];
    }
    free(col), free(sums);
    return st;
}

/* No portable form without an n x n double copy, which is what the caller does instead. */
ps_status ps__default_trsv_mixed(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                                 ps__vec x) {
    (void)be, (void)uplo, (void)diag, (void)n, (void)a, (void)x;
    return PS_ERR_NOT_SUPPORTED;
}

/* Likewise: the caller then solves by trsv_mixed or with widened factors. */
ps_status ps__default_gemv_mixed(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                                 ps__vec y) {
    (void)be, (void)m, (void)k, (void)alpha, (void)a, (void)x, (void)y;
    return PS_ERR_NOT_SUPPORTED;
}

ps_status ps__default_set_float_compute(ps__backend *be, ps__float_compute mode) {
    if (mode == PS__COMPUTE_FP32) return PS_SUCCESS;
    return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED,
                            "the %s backend computes float GEMMs in float only (no tensor-core "
                            "TF32/FP16/BF16 mode)",
                            be->ops->name);
}

/* The weights of a butterfly of order n to the host (NULL stays NULL). */
static ps_status butterfly_weights(ps__backend *be, int n, const void *dev, double **host) {
    *host = NULL;
    if (!dev || n < 4) return PS_SUCCESS;
    *host = malloc(2 * (size_t)n * sizeof(double));
    if (!*host)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "butterfly: out of host memory");
    ps__mat w = {(void *)dev, 0, 2 * n};
    return be->ops->download(be, PS__DOUBLE, 2 * n, 1, w, *host, 2 * n);
}

/* One column slot (its 1 or 4 columns) at a time through host memory. */
ps_status ps__default_butterfly(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                                int cols, double alpha, const void *left, const void *right,
                                ps__mat src, ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    double *lw = NULL, *rw = NULL, *in = NULL, *out = NULL;
    ps_status st = butterfly_weights(be, rows, left, &lw);
    if (st == PS_SUCCESS) st = butterfly_weights(be, cols, right, &rw);
    if (st == PS_SUCCESS) {
        in = malloc(4 * (size_t)rows * sizeof(double));
        out = malloc(4 * (size_t)rows * sizeof(double));
        if (!in || !out)
            st = ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "butterfly: out of host memory");
    }
    int overflow = 0, cslots = ps__butterfly_slots(cols, rw),
        rslots = ps__butterfly_slots(rows, lw);
    size_t es = ps__dtype_size(src_dt), ds = ps__dtype_size(dst_dt);
    for (int cs = 0; cs < cslots && st == PS_SUCCESS; cs++) {
        int ci[4], nc = ps__butterfly_slot(cols, rw, cs, ci);
        for (int b = 0; b < nc && st == PS_SUCCESS; b++)
            st = be->ops->download(be, src_dt, rows, 1, ps__mat_at(src, 0, ci[b]),
                                   (char *)in + (size_t)b * (size_t)rows * es, rows);
        for (int rs = 0; rs < rslots && st == PS_SUCCESS; rs++) {
            int ri[4], nr = ps__butterfly_slot(rows, lw, rs, ri);
            double x[4][4];
            for (int b = 0; b < nc; b++)
                for (int a = 0; a < nr; a++)
                    x[a][b] =
                        alpha * host_at(src_dt, (char *)in + (size_t)b * (size_t)rows * es, ri[a]);
            ps__butterfly_block(lw, rows, rs, nr, rw, cols, cs, nc, x);
            for (int b = 0; b < nc; b++)
                for (int a = 0; a < nr; a++)
                    host_store(dst_dt, out, (size_t)b * (size_t)rows + (size_t)ri[a],
                               ps__convert_value(dst_dt, 1.0, x[a][b], &overflow));
        }
        for (int b = 0; b < nc && st == PS_SUCCESS; b++) {
            st = be->ops->upload(be, dst_dt, rows, 1, (char *)out + (size_t)b * (size_t)rows * ds,
                                 rows, ps__mat_at(dst, 0, ci[b]));
        }
    }
    if (st == PS_SUCCESS && overflow) {
        int32_t one = 1;
        ps__mat word = {info, 0, 1};
        st = be->ops->upload(be, PS__INT32, 1, 1, &one, 1, word);
    }
    free(lw), free(rw), free(in), free(out);
    return st;
}
