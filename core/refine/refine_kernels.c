/* Portable defaults of the refinement's kernel family (refine_kernels.h), from the base
 * entries. The mixed-precision products and solves refuse (the callers then widen the factors
 * once), the butterfly moves a few columns at a time through host memory, and the hints do
 * nothing. */
#include "refine/refine_kernels.h"
#include "base/blas_defaults.h"
#include "refine/butterfly.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* No portable form without an n x n double copy, which is what the caller does instead. */
static ps_status default_trsv_mixed(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                                    ps__vec x) {
    (void)be, (void)uplo, (void)diag, (void)n, (void)a, (void)x;
    return PS_ERR_NOT_SUPPORTED;
}

/* Likewise: the caller then solves by trsv_mixed or with widened factors. */
static ps_status default_gemv_mixed(ps__backend *be, int m, int k, double alpha, ps__mat a,
                                    ps__vec x, ps__vec y) {
    (void)be, (void)m, (void)k, (void)alpha, (void)a, (void)x, (void)y;
    return PS_ERR_NOT_SUPPORTED;
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
static ps_status default_butterfly(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
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
                        alpha *
                        ps__host_at(src_dt, (char *)in + (size_t)b * (size_t)rows * es, ri[a]);
            ps__butterfly_block(lw, rows, rs, nr, rw, cols, cs, nc, x);
            for (int b = 0; b < nc; b++)
                for (int a = 0; a < nr; a++)
                    ps__host_store(dst_dt, out, (size_t)b * (size_t)rows + (size_t)ri[a],
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

/* Nothing reads ahead: the hint needs no action. */
static ps_status default_read_only_matrices(ps__backend *be, int on) {
    (void)be, (void)on;
    return PS_SUCCESS;
}

/* Refused: a transposing narrowing through the host would cost more than the device's own
 * narrowing and transpose, which the caller does instead. */
static ps_status default_convert_transposed(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt,
                                            int rows, int cols, double alpha, ps__mat src,
                                            ps__mat dst, void *info) {
    (void)src_dt, (void)dst_dt, (void)rows, (void)cols, (void)alpha, (void)src, (void)dst,
        (void)info;
    return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED, "convert_transposed: not offered");
}

/* The promised zeros read like any other entry: gemv on the whole square is the product. */
static ps_status default_gemv_triangle(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n,
                                       const ps__scalar *alpha, ps__mat a, ps__vec x,
                                       const ps__scalar *beta, ps__vec y) {
    (void)uplo;
    return be->ops->gemv(be, dt, PS__NOTRANS, n, n, alpha, a, x, beta, y);
}

static const ps__refine_kernels defaults = {
    .header = {PS__REFINE_KERNELS_ABI, sizeof(ps__refine_kernels)},
    .butterfly = default_butterfly,
    .trsv_mixed = default_trsv_mixed,
    .gemv_mixed = default_gemv_mixed,
    .read_only_matrices = default_read_only_matrices,
    .convert_transposed = default_convert_transposed,
    .gemv_triangle = default_gemv_triangle,
};

_Static_assert(offsetof(ps__refine_kernels, butterfly) == sizeof(ps__family_header),
               "a family table is its header, then function pointers");

const ps__refine_kernels *ps__refine_kernels_defaults(void) {
    return &defaults;
}
