/* The CUDA backend's inversion and Gauss-Jordan entries: trmm on cuBLAS (in place, B passed as
 * C, which cuBLAS documents as its in-place form), transpose (cuBLAS's geam), and the kernels of
 * cuda_gj_kernels.cu (colswp: cuda_colswp.c). */
#include "cuda_internal.h"

static cublasSideMode_t side_of(ps__side s) {
    return s == PS__RIGHT ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
}

ps_status ps_cuda_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    cublasFillMode_t fill = uplo == PS__LOWER ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    cublasOperation_t op = trans == PS__TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
    cublasDiagType_t dg = diag == PS__UNIT ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
    void *pa = ps_cuda_ptr(dt, a.buf, a.off), *pb = ps_cuda_ptr(dt, b.buf, b.off);
    if (dt == PS__DOUBLE)
        PS_CUBLAS_TRY(be,
                      cublasDtrmm(st->blas, side_of(side), fill, op, dg, m, n, &alpha->d, pa, a.ld,
                                  pb, b.ld, pb, b.ld),
                      "cublasDtrmm");
    else
        PS_CUBLAS_TRY(be,
                      cublasStrmm(st->blas, side_of(side), fill, op, dg, m, n, &alpha->s, pa, a.ld,
                                  pb, b.ld, pb, b.ld),
                      "cublasStrmm");
    return PS_SUCCESS;
}

/* dst = src^T by cuBLAS's geam (C = 1 op(A) + 0 B, B = C, which geam allows in place). */
ps_status ps_cuda_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                            ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    void *ps = ps_cuda_ptr(dt, src.buf, src.off), *pd = ps_cuda_ptr(dt, dst.buf, dst.off);
    if (dt == PS__DOUBLE) {
        const double one = 1, zero = 0;
        PS_CUBLAS_TRY(be,
                      cublasDgeam(st->blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, rows, &one, ps, src.ld,
                                  &zero, pd, dst.ld, pd, dst.ld),
                      "cublasDgeam (transpose)");
    } else {
        const float one = 1, zero = 0;
        PS_CUBLAS_TRY(be,
                      cublasSgeam(st->blas, CUBLAS_OP_T, CUBLAS_OP_N, cols, rows, &one, ps, src.ld,
                                  &zero, pd, dst.ld, pd, dst.ld),
                      "cublasSgeam (transpose)");
    }
    return PS_SUCCESS;
}

/* a = a^T in place, one kernel over pairs of tiles (cuda_gj_kernels.cu). */
ps_status ps_cuda_transpose_square(ps__backend *be, ps__dtype dt, int n, ps__mat a) {
    if (n <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_transpose_square(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, n,
                                                ps_cuda_ptr(dt, a.buf, a.off), a.ld),
                "transpose_square kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                   ps__mat ji, ps__mat ik, ps__mat jk) {
    if (m <= 0 || ncols <= 0 || s <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    PS_CUDA_TRY(be,
                ps_cuda_launch_stripe_update(
                    st->cur_stream, dt == PS__DOUBLE, st->fp64_tensor_cores, m, ncols, s,
                    ps_cuda_ptr(dt, ji.buf, ji.off), ji.ld, ps_cuda_ptr(dt, ik.buf, ik.off), ik.ld,
                    ps_cuda_ptr(dt, jk.buf, jk.off), jk.ld),
                "stripe update kernel");
    return PS_SUCCESS;
}

const ps__gj_kernels ps_cuda_gj_kernels = {
    .header = {PS__GJ_KERNELS_ABI, sizeof(ps__gj_kernels)},
    .gj_stripe_update = ps_cuda_gj_stripe_update,
};
