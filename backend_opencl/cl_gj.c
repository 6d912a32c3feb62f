/* The OpenCL backend's inversion and Gauss-Jordan entries: trmm and transpose on CLBlast, the
 * kernels of kernels_cl/gj.cl (column interchanges, the striped solver's tile update). */
#include "../core/base/colswp_plan.h"
#include "cl_internal.h"

#include <clblast_c.h>

ps_status ps_cl_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                     ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    CLBlastSide sd = side == PS__RIGHT ? CLBlastSideRight : CLBlastSideLeft;
    CLBlastTriangle tri = uplo == PS__LOWER ? CLBlastTriangleLower : CLBlastTriangleUpper;
    CLBlastTranspose tr = trans == PS__TRANS ? CLBlastTransposeYes : CLBlastTransposeNo;
    CLBlastDiagonal dg = diag == PS__UNIT ? CLBlastDiagonalUnit : CLBlastDiagonalNonUnit;
    cl_command_queue *q = &ps_cl(be)->queue;
    CLBlastStatusCode code =
        dt == PS__DOUBLE
            ? CLBlastDtrmm(CLBlastLayoutColMajor, sd, tri, tr, dg, m, n, alpha->d, (cl_mem)a.buf,
                           a.off, a.ld, (cl_mem)b.buf, b.off, b.ld, q, NULL)
            : CLBlastStrmm(CLBlastLayoutColMajor, sd, tri, tr, dg, m, n, alpha->s, (cl_mem)a.buf,
                           a.off, a.ld, (cl_mem)b.buf, b.off, b.ld, q, NULL);
    if (code == CLBlastSuccess) return PS_SUCCESS;
    return ps_cl_fail(be, (cl_int)code, "CLBlast trmm");
}

/* dst = src^T by CLBlast's omatcopy (out of place, scaled by 1). */
ps_status ps_cl_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                          ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    cl_command_queue *q = &ps_cl(be)->queue;
    CLBlastStatusCode code =
        dt == PS__DOUBLE ? CLBlastDomatcopy(CLBlastLayoutColMajor, CLBlastTransposeYes, rows, cols,
                                            1.0, (cl_mem)src.buf, src.off, src.ld, (cl_mem)dst.buf,
                                            dst.off, dst.ld, q, NULL)
                         : CLBlastSomatcopy(CLBlastLayoutColMajor, CLBlastTransposeYes, rows, cols,
                                            1.0f, (cl_mem)src.buf, src.off, src.ld, (cl_mem)dst.buf,
                                            dst.off, dst.ld, q, NULL);
    if (code == CLBlastSuccess) return PS_SUCCESS;
    return ps_cl_fail(be, (cl_int)code, "CLBlast omatcopy (transpose)");
}

/* Column interchanges as cycle rotations, planned on the host (core/base/colswp_plan.h; the CUDA
 * backend's reasoning, backend_cuda/cuda_colswp.c): one pass over the moved columns, a
 * work-item per row and per segment of the cycle list, instead of a work-item per row walking
 * every interchange. Reading the pivots waits for the queue, which is right for getri's and
 * gjinv's last step; a step's short list goes to the permutation kernel instead. */
/* Longest interchange list colswp applies with the permutation kernel; longer ones (getri's
 * and gjinv's final n) are planned on the host. */
#define PS_CL_COLSWP_ON_DEVICE 1024

ps_status ps_cl_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                       const void *ipiv, size_t ipiv_off, int forward) {
    if (nrows <= 0 || k2 <= k1) return PS_SUCCESS;
    /* a step's list (gjinv's transposed layout) stays on the device: a blocking read of the
     * pivots here would stall the look-ahead's other queue at every step */
    if (k2 - k1 <= PS_CL_COLSWP_ON_DEVICE)
        return ps_cl_colswp_steps(be, dt, nrows, a, k1, k2, ipiv, ipiv_off, forward);
    ps_cl_state *st = ps_cl(be);
    int count = k2 - k1;
    int32_t *piv = malloc(sizeof(int32_t) * (size_t)count);
    if (!piv) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "colswp: out of host memory");
    cl_int err = clEnqueueReadBuffer(st->queue, (cl_mem)ipiv, CL_TRUE, ipiv_off * sizeof(int32_t),
                                     sizeof(int32_t) * (size_t)count, piv, 0, NULL, NULL);
    if (err != CL_SUCCESS) {
        free(piv);
        return ps_cl_fail(be, err, "clEnqueueReadBuffer (colswp pivots)");
    }
    ps__colswp_plan plan;
    PS__TRY(ps__colswp_plan_pivots(be, piv, count, k1, forward, &plan));
    if (!plan.words) return PS_SUCCESS; /* the interchanges cancel out */
    size_t es = ps__dtype_size(dt);
    size_t words = ps__colswp_plan_words(&plan);
    cl_mem w = clCreateBuffer(st->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              sizeof(int32_t) * words, plan.words, &err);
    free(plan.words);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (colswp plan)");
    cl_mem values = clCreateBuffer(st->context, CL_MEM_READ_WRITE,
                                   es * ((size_t)plan.nsave * (size_t)nrows + 1), NULL, &err);
    ps_status status =
        err == CL_SUCCESS ? PS_SUCCESS : ps_cl_fail(be, err, "clCreateBuffer (colswp)");
    cl_mem buf = (cl_mem)a.buf;
    cl_ulong off = a.off;
    const size_t sizes[] = {sizeof nrows,     sizeof buf,        sizeof off,
                            sizeof a.ld,      sizeof w,          sizeof plan.entries,
                            sizeof plan.nseg, sizeof plan.nsave, sizeof values};
    const void *const vals[] = {&nrows,        &buf,       &off,        &a.ld,  &w,
                                &plan.entries, &plan.nseg, &plan.nsave, &values};
    const size_t local[2] = {64, 1};
    cl_kernel k;
    if (!status && plan.nsave > 0) {
        const size_t items[2] = {(size_t)nrows, (size_t)plan.nsave};
        status = ps_cl_kernel(be, PS_CL_GJ, dt, "ps_colswp_save", &k);
        if (!status)
            status = ps_cl_launch(be, k, "ps_colswp_save", 9, sizes, vals, 2, items, local);
    }
    if (!status) { /* the same arguments less nsave */
        const size_t msizes[] = {sizes[0], sizes[1], sizes[2], sizes[3],
                                 sizes[4], sizes[5], sizes[6], sizes[8]};
        const void *const mvals[] = {vals[0], vals[1], vals[2], vals[3],
                                     vals[4], vals[5], vals[6], vals[8]};
        const size_t items[2] = {(size_t)nrows, (size_t)plan.nseg};
        status = ps_cl_kernel(be, PS_CL_GJ, dt, "ps_colswp_move", &k);
        if (!status)
            status = ps_cl_launch(be, k, "ps_colswp_move", 8, msizes, mvals, 2, items, local);
    }
    /* released behind the queued kernels: OpenCL keeps a buffer until the commands using it end */
    clReleaseMemObject(w);
    if (values) clReleaseMemObject(values);
    return status;
}

ps_status ps_cl_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s, ps__mat ji,
                                 ps__mat ik, ps__mat jk) {
    if (m <= 0 || ncols <= 0 || s <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_GJ, dt, "ps_gj_stripe_update", &k));
    cl_mem jib = (cl_mem)ji.buf, ikb = (cl_mem)ik.buf, jkb = (cl_mem)jk.buf;
    cl_ulong jio = ji.off, iko = ik.off, jko = jk.off;
    const size_t sizes[] = {sizeof m,     sizeof ncols, sizeof s,   sizeof jib,
                            sizeof jio,   sizeof ji.ld, sizeof ikb, sizeof iko,
                            sizeof ik.ld, sizeof jkb,   sizeof jko, sizeof jk.ld};
    const void *const values[] = {&m,   &ncols, &s,     &jib, &jio, &ji.ld,
                                  &ikb, &iko,   &ik.ld, &jkb, &jko, &jk.ld};
    /* one 16 x 16 work-group per 64 x 64 block of jk */
    const size_t items[2] = {(size_t)(m + 63) / 64 * 16, (size_t)(ncols + 63) / 64 * 16};
    const size_t local[2] = {16, 16};
    return ps_cl_launch(be, k, "ps_gj_stripe_update", 12, sizes, values, 2, items, local);
}

const ps__gj_kernels ps_cl_gj_kernels = {
    .header = {PS__GJ_KERNELS_ABI, sizeof(ps__gj_kernels)},
    .gj_stripe_update = ps_cl_gj_stripe_update,
};
