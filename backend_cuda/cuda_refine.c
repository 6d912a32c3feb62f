/* The CUDA backend's mixed-precision entries: the kernels of cuda_refine_kernels.cu, and the float
 * GEMM compute modes (cuda_blas.c reads st->float_compute). */
#include "cuda_internal.h"

#include <stdint.h>
#include <string.h>

ps_status ps_cuda_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                          double alpha, ps__mat src, ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_convert(ps_cuda(be)->cur_stream, src_dt == PS__DOUBLE,
                                       dst_dt == PS__DOUBLE, rows, cols, alpha,
                                       ps_cuda_ptr(src_dt, src.buf, src.off), src.ld,
                                       ps_cuda_ptr(dst_dt, dst.buf, dst.off), dst.ld, (int *)info),
                "convert kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_convert_transposed(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                                     int cols, double alpha, ps__mat src, ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_convert_transposed(
                    ps_cuda(be)->cur_stream, src_dt == PS__DOUBLE, dst_dt == PS__DOUBLE, rows, cols,
                    alpha, ps_cuda_ptr(src_dt, src.buf, src.off), src.ld,
                    ps_cuda_ptr(dst_dt, dst.buf, dst.off), dst.ld, (int *)info),
                "convert_transposed kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_butterfly(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                            double alpha, const void *left, const void *right, ps__mat src,
                            ps__mat dst, void *info) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_butterfly(
                    ps_cuda(be)->cur_stream, src_dt == PS__DOUBLE, dst_dt == PS__DOUBLE, rows, cols,
                    alpha, left, right, ps_cuda_ptr(src_dt, src.buf, src.off), src.ld,
                    ps_cuda_ptr(dst_dt, dst.buf, dst.off), dst.ld, (int *)info),
                "butterfly kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                           double *result) {
    *result = 0;
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    cudaStream_t s = st->cur_stream;
    /* The row sums live in stream-ordered memory, freed behind the kernels. */
    void *sums = NULL;
    PS_CUDA_TRY(
        be,
        ps_cuda_malloc_async(ps_cuda(be), (void **)&sums, sizeof(double) * (size_t)rows + 64, s),
        "norm_inf workspace");
    unsigned long long *out = (unsigned long long *)((double *)sums + rows), bits = 0;
    cudaError_t e = ps_cuda_launch_norm_inf(s, dt == PS__DOUBLE, rows, cols,
                                            ps_cuda_ptr(dt, a.buf, a.off), a.ld, sums, out);
    if (e == cudaSuccess) e = cudaMemcpyAsync(&bits, out, sizeof bits, cudaMemcpyDeviceToHost, s);
    cudaError_t f = cudaFreeAsync(sums, s);
    if (e == cudaSuccess) e = f;
    if (e == cudaSuccess) e = cudaStreamSynchronize(s);
    if (e != cudaSuccess) return ps_cuda_fail(be, e, "norm_inf");
    memcpy(result, &bits, sizeof *result);
    return PS_SUCCESS;
}

ps_status ps_cuda_set_float_compute(ps__backend *be, ps__float_compute mode) {
    ps_cuda_state *st = ps_cuda(be);
    if (mode != PS__COMPUTE_FP32 && !st->tensor_cores_32f)
        return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED,
                                "%s has no TF32/BF16 tensor cores (sm_80 or later needed) for the "
                                "requested float GEMM mode",
                                be->device_name);
    st->float_compute = mode;
    return PS_SUCCESS;
}

ps_status ps_cuda_trsv_mixed(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                             ps__vec x) {
    ps_cuda_state *st = ps_cuda(be);
    if (st->trsv_rows == 0) return PS_ERR_NOT_SUPPORTED; /* turned off: no message */
    if (n <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_trsv_mixed(st->cur_stream, st->trsv_rows, uplo == PS__UPPER,
                                          diag == PS__UNIT, n, (const float *)a.buf + a.off, a.ld,
                                          (double *)x.buf + x.off, x.inc, st->trsv_sync[st->cur]),
                "trsv_mixed kernel");
    return PS_SUCCESS;
}

/* One kernel (cuda_gemv_mixed.cu), launched ahead where the matrices are read-only. */
ps_status ps_cuda_gemv_mixed(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                             ps__vec y) {
    ps_cuda_state *st = ps_cuda(be);
    if (m <= 0 || k <= 0) return PS_SUCCESS;
    int ahead = st->read_only_matrices && st->iter.early >= 2;
    PS_CUDA_TRY(be,
                ps_cuda_launch_gemv_mixed(
                    st->cur_stream, ps_cuda_lane_sms(st), st->gemv_mixed_slices, m, k, alpha,
                    (const float *)a.buf + a.off, a.ld, (const double *)x.buf + x.off, x.inc,
                    (double *)y.buf + y.off, y.inc, ahead),
                "gemv_mixed kernel");
    return PS_SUCCESS;
}

const ps__refine_kernels ps_cuda_refine_kernels = {
    .header = {PS__REFINE_KERNELS_ABI, sizeof(ps__refine_kernels)},
    .convert_transposed = ps_cuda_convert_transposed,
    .butterfly = ps_cuda_butterfly,
    .trsv_mixed = ps_cuda_trsv_mixed,
    .gemv_mixed = ps_cuda_gemv_mixed,
    .read_only_matrices = ps_cuda_read_only_matrices,
    .gemv_triangle = ps_cuda_gemv_triangle,
};
