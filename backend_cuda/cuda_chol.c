/* The CUDA backend's Cholesky kernel family: one kernel factors the diagonal block and solves
 * the panel below it (cuda_kernels.cu). */
#include "cuda_internal.h"

static ps_status cuda_potrf_tall(ps__backend *be, ps__dtype dt, ps__uplo uplo, int m, int n,
                                 ps__mat a, void *info, int index_base) {
    if (n <= 0) return PS_SUCCESS;
    if (n > PS_CUDA_POTRF_MAX || m < n)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                "potrf_tall: m=%d, n=%d outside n <= m, n <= %d", m, n,
                                PS_CUDA_POTRF_MAX);
    ps_cuda_state *st = ps_cuda(be);
    /* its grid must fit at once on the lane's SMs */
    int max_blocks = st->sms > 0 ? st->potrf_max_blocks / st->sms * ps_cuda_lane_sms(st) : 0;
    PS_CUDA_TRY(be,
                ps_cuda_launch_potrf_tall(st->cur_stream, dt == PS__DOUBLE, uplo == PS__LOWER, m, n,
                                          ps_cuda_ptr(dt, a.buf, a.off), a.ld, (int *)info,
                                          index_base, st->potrf_arrivals, max_blocks),
                "potrf tall-panel kernel");
    return PS_SUCCESS;
}

static ps_status cuda_potrf_panel(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                                  void *info, int index_base) {
    return cuda_potrf_tall(be, dt, uplo, n, n, a, info, index_base);
}

static int cuda_potrf_width(ps__backend *be, ps__dtype dt) {
    (void)be, (void)dt;
    return PS_CUDA_POTRF_MAX;
}

const ps__chol_kernels ps_cuda_chol_kernels = {
    .header = {PS__CHOL_KERNELS_ABI, sizeof(ps__chol_kernels)},
    .potrf_panel = cuda_potrf_panel,
    .potrf_width = cuda_potrf_width,
    .potrf_tall = cuda_potrf_tall,
};
