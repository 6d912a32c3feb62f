/* The CUDA backend's LU kernel family: the cooperative panel kernel over the lane's SMs, or the
 * one-block kernel where cooperative launch is not available (cuda_lu_panel.cu). */
#include "cuda_internal.h"

static ps_status cuda_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a,
                                  void *ipiv, size_t ipiv_off, int row_base, void *info) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    ps_cuda_coop_panel cp = ps_cuda_lane_coop(st);
    int blocks = st->coop_scratch
                     ? ps_cuda_coop_panel_blocks(&cp, dt == PS__DOUBLE, m, n, PS_CUDA_LU_ROWS_OF_N,
                                                 PS_CUDA_LU_COOP_ROWS)
                     : 0;
    if (blocks > 0) {
        PS__TRY(ps_cuda_coop_next_epoch(be));
        PS_CUDA_TRY(be,
                    ps_cuda_launch_getrf_panel_coop(st->cur_stream, dt == PS__DOUBLE, blocks, m, n,
                                                    ps_cuda_ptr(dt, a.buf, a.off), a.ld,
                                                    (int *)ipiv + ipiv_off, row_base, (int *)info,
                                                    st->coop_epoch, st->coop_scratch),
                    "getrf panel kernel (cooperative)");
        return PS_SUCCESS;
    }
    /* no cooperative launch, or a leaf wider than fits (lu_panel_width) */
    PS_CUDA_TRY(be,
                ps_cuda_launch_getrf_panel(st->cur_stream, dt == PS__DOUBLE, st->panel_threads, m,
                                           n, ps_cuda_ptr(dt, a.buf, a.off), a.ld,
                                           (int *)ipiv + ipiv_off, row_base, (int *)info),
                "getrf panel kernel");
    return PS_SUCCESS;
}

/* Leaf width of the recursive panel: with the cooperative leaf, the widest that fits its
 * shared memory up to PS_CUDA_LU_LEAF (measured: docs/PERFORMANCE.md), in multiples of 8;
 * without cooperative launch the one-block kernel, best narrow (w = 4 measured on an H200). */
static int cuda_panel_width(ps__backend *be, ps__dtype dt, int m) {
    ps_cuda_state *st = ps_cuda(be);
    if (!st->coop_scratch) return 4;
    ps_cuda_coop_panel cp = ps_cuda_lane_coop(st);
    int w = ps_cuda_coop_panel_max_width(&cp, dt == PS__DOUBLE, m, PS_CUDA_LU_ROWS_OF_N,
                                         PS_CUDA_LU_COOP_ROWS);
    if (w > PS_CUDA_LU_LEAF) w = PS_CUDA_LU_LEAF;
    return w >= 8 ? w / 8 * 8 : (w > 0 ? w : 4);
}

const ps__lu_kernels ps_cuda_lu_kernels = {
    .header = {PS__LU_KERNELS_ABI, sizeof(ps__lu_kernels)},
    .getrf_panel = cuda_getrf_panel,
    .panel_width = cuda_panel_width,
};
