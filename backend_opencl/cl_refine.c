/* The OpenCL backend's mixed-precision entries, on the kernels of kernels_cl/ir.cl. Float GEMMs
 * compute in float only (CLBlast has no tensor-core modes), so set_float_compute is the
 * default's. */
#include "cl_internal.h"

#include <math.h>
#include <stdlib.h>

ps_status ps_cl_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                        double alpha, ps__mat src, ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    const char *name = src_dt == dst_dt       ? "ps_convert_same"
                       : src_dt == PS__DOUBLE ? "ps_convert_d2f"
                                              : "ps_convert_f2d";
    /* the cross conversions live in the double program */
    ps__dtype program = src_dt == dst_dt ? src_dt : PS__DOUBLE;
    if (program == PS__DOUBLE && !be->has_double)
        return ps__backend_fail(be, PS_ERR_NO_DOUBLE, "%s has no double precision (cl_khr_fp64)",
                                be->device_name);
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_IR, program, name, &k));
    cl_mem sb = (cl_mem)src.buf, db = (cl_mem)dst.buf, ib = (cl_mem)info;
    cl_ulong so = src.off, dof = dst.off, io = 0;
    float alpha_f = (float)alpha; /* a power of two: exact */
    const void *alpha_p = program == PS__DOUBLE ? (const void *)&alpha : (const void *)&alpha_f;
    size_t alpha_size = program == PS__DOUBLE ? sizeof alpha : sizeof alpha_f;
    const size_t sizes[] = {sizeof rows,   sizeof cols,   alpha_size, sizeof sb,
                            sizeof so,     sizeof src.ld, sizeof db,  sizeof dof,
                            sizeof dst.ld, sizeof ib,     sizeof io};
    const void *const values[] = {&rows, &cols, alpha_p, &sb, &so, &src.ld,
                                  &db,   &dof,  &dst.ld, &ib, &io};
    /* enough column groups to fill a GPU when the rows are few */
    size_t groups = (size_t)(cols < 256 ? cols : 256);
    const size_t items[2] = {(size_t)rows, groups}, local[2] = {64, 1};
    return ps_cl_launch(be, k, name, 11, sizes, values, 2, items, local);
}

ps_status ps_cl_butterfly(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                          double alpha, const void *left, const void *right, ps__mat src,
                          ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    /* the weights are double: every variant lives in the double program */
    if (!be->has_double)
        return ps__backend_fail(be, PS_ERR_NO_DOUBLE, "%s has no double precision (cl_khr_fp64)",
                                be->device_name);
    static const char *const names[2][2] = {{"ps_butterfly_ff", "ps_butterfly_fd"},
                                            {"ps_butterfly_df", "ps_butterfly_dd"}};
    const char *name = names[src_dt == PS__DOUBLE][dst_dt == PS__DOUBLE];
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_IR, PS__DOUBLE, name, &k));
    cl_mem lb = (cl_mem)left, rb = (cl_mem)right, sb = (cl_mem)src.buf, db = (cl_mem)dst.buf;
    cl_mem ib = (cl_mem)info;
    int qr = left ? rows / 4 : 0, qc = right ? cols / 4 : 0;
    cl_ulong so = src.off, dof = dst.off, io = 0;
    const size_t sizes[] = {sizeof rows, sizeof cols, sizeof alpha,  sizeof lb, sizeof qr,
                            sizeof rb,   sizeof qc,   sizeof sb,     sizeof so, sizeof src.ld,
                            sizeof db,   sizeof dof,  sizeof dst.ld, sizeof ib, sizeof io};
    const void *const values[] = {&rows, &cols,   &alpha, &lb,  &qr,     &rb, &qc, &sb,
                                  &so,   &src.ld, &db,    &dof, &dst.ld, &ib, &io};
    size_t rslots = (size_t)(rows - 3 * qr), cslots = (size_t)(cols - 3 * qc);
    const size_t items[2] = {rslots, cslots < 4096 ? cslots : 4096}, local[2] = {64, 1};
    return ps_cl_launch(be, k, name, 15, sizes, values, 2, items, local);
}

ps_status ps_cl_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                         double *result) {
    *result = 0;
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_IR, dt, "ps_row_sums", &k));
    size_t es = ps__dtype_size(dt);
    void *sums = NULL;
    PS__TRY(be->ops->alloc(be, (size_t)rows * es, &sums));
    double *host = malloc((size_t)rows * sizeof(double)); /* holds rows floats or doubles */
    ps_status st =
        host ? PS_SUCCESS
             : ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "norm_inf: out of host memory");
    cl_mem ab = (cl_mem)a.buf, sb = (cl_mem)sums;
    cl_ulong off = a.off;
    const size_t sizes[] = {sizeof rows, sizeof cols, sizeof ab,
                            sizeof off,  sizeof a.ld, sizeof sb};
    const void *const values[] = {&rows, &cols, &ab, &off, &a.ld, &sb};
    size_t items = (size_t)rows, local = 64;
    if (!st) st = ps_cl_launch(be, k, "ps_row_sums", 6, sizes, values, 1, &items, &local);
    ps__mat sm = {sums, 0, rows};
    if (!st) st = be->ops->download(be, dt, rows, 1, sm, host, rows);
    for (int i = 0; i < rows && !st; i++) {
        double v = dt == PS__DOUBLE ? host[i] : (double)((float *)host)[i];
        if (isnan(v)) {
            *result = v;
            break;
        }
        if (v > *result) *result = v;
    }
    free(host);
    be->ops->free(be, sums);
    return st;
}

#define PS_CL_TRSV_MIXED_BLOCK 64 /* PS_TRSV_MIXED_BLOCK in kernels_cl/ir.cl */

/* x = A^-1 x, A a float triangle, x double, in double: a launch per block row of
 * PS_CL_TRSV_MIXED_BLOCK (kernels_cl/ir.cl, ps_trsv_mixed_step), each solving one diagonal block
 * and updating the rows after it by the block column before. Offered for every order, n = 0
 * included (refinement asks with it), where the device has double precision. */
ps_status ps_cl_trsv_mixed(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                           ps__vec x) {
    if (!ps_cl(be)->trsv_mixed) return PS_ERR_NOT_SUPPORTED; /* turned off: no message */
    if (!be->has_double)
        return ps__backend_fail(be, PS_ERR_NO_DOUBLE, "%s has no double precision (cl_khr_fp64)",
                                be->device_name);
    if (n <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_IR, PS__DOUBLE, "ps_trsv_mixed_step", &k));
    int upper = uplo == PS__UPPER, unit = diag == PS__UNIT;
    int blocks = (n + PS_CL_TRSV_MIXED_BLOCK - 1) / PS_CL_TRSV_MIXED_BLOCK;
    cl_mem ab = (cl_mem)a.buf, xb = (cl_mem)x.buf;
    cl_ulong ao = a.off, xo = x.off;
    for (int s = 0; s < blocks; s++) {
        const size_t sizes[] = {sizeof upper, sizeof unit, sizeof n,  sizeof s,  sizeof ab,
                                sizeof ao,    sizeof a.ld, sizeof xb, sizeof xo, sizeof x.inc};
        const void *const values[] = {&upper, &unit, &n, &s, &ab, &ao, &a.ld, &xb, &xo, &x.inc};
        /* block row s and every one after it */
        size_t items = (size_t)(blocks - s) * PS_CL_TRSV_MIXED_BLOCK,
               local = PS_CL_TRSV_MIXED_BLOCK;
        PS__TRY(ps_cl_launch(be, k, "ps_trsv_mixed_step", 10, sizes, values, 1, &items, &local));
    }
    return PS_SUCCESS;
}

#define PS_CL_GEMV_MIXED_GROUPS 8 /* PS_GEMV_MIXED_GROUPS in kernels_cl/ir.cl */

/* y += alpha A x, A float, x and y double, in double (kernels_cl/ir.cl, ps_gemv_mixed): a
 * work-group per 32 rows. Offered where the device has double precision. */
ps_status ps_cl_gemv_mixed(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                           ps__vec y) {
    if (!be->has_double)
        return ps__backend_fail(be, PS_ERR_NO_DOUBLE, "%s has no double precision (cl_khr_fp64)",
                                be->device_name);
    if (m <= 0 || k <= 0) return PS_SUCCESS;
    cl_kernel kern;
    PS__TRY(ps_cl_kernel(be, PS_CL_IR, PS__DOUBLE, "ps_gemv_mixed", &kern));
    cl_mem ab = (cl_mem)a.buf, xb = (cl_mem)x.buf, yb = (cl_mem)y.buf;
    cl_ulong ao = a.off, xo = x.off, yo = y.off;
    const size_t sizes[] = {sizeof m,  sizeof k,  sizeof alpha, sizeof ab, sizeof ao, sizeof a.ld,
                            sizeof xb, sizeof xo, sizeof x.inc, sizeof yb, sizeof yo, sizeof y.inc};
    const void *const values[] = {&m,  &k,  &alpha, &ab, &ao, &a.ld,
                                  &xb, &xo, &x.inc, &yb, &yo, &y.inc};
    size_t items[2] = {(size_t)(m + 31) / 32 * 32, PS_CL_GEMV_MIXED_GROUPS},
           local[2] = {32, PS_CL_GEMV_MIXED_GROUPS};
    return ps_cl_launch(be, kern, "ps_gemv_mixed", 12, sizes, values, 2, items, local);
}

const ps__refine_kernels ps_cl_refine_kernels = {
    .header = {PS__REFINE_KERNELS_ABI, sizeof(ps__refine_kernels)},
    .butterfly = ps_cl_butterfly,
    .trsv_mixed = ps_cl_trsv_mixed,
    .gemv_mixed = ps_cl_gemv_mixed,
};
