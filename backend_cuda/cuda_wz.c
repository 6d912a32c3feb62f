/* The CUDA backend's WZ entries (core/backend.h): launches of cuda_wz_kernels.cu. */
#include "cuda_internal.h"

ps_status ps_cuda_wz_corner(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a, ps__vec work,
                            void *ipiv, void *info, int pivoting) {
    (void)work;
    if (n <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    PS_CUDA_TRY(be,
                ps_cuda_launch_wz_corner(st->cur_stream, dt == PS__DOUBLE, st->panel_threads, n, k,
                                         ps_cuda_ptr(dt, a.buf, a.off), a.ld, (int *)ipiv,
                                         (int *)info, pivoting),
                "wz corner kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_wz_panel(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                           void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting) {
    if (m <= 0 || w <= 0) return PS_SUCCESS;
    ps_cuda_state *st = ps_cuda(be);
    ps_cuda_coop_panel cp = ps_cuda_lane_coop(st);
    int blocks = st->coop_scratch && st->wz_coop
                     ? ps_cuda_coop_panel_blocks(&cp, dt == PS__DOUBLE, m, w, PS_CUDA_WZ_ROWS_OF_N,
                                                 ps_cuda_wz_coop_rows(st))
                     : 0;
    if (blocks > 0) {
        PS__TRY(ps_cuda_coop_next_epoch(be));
        PS_CUDA_TRY(be,
                    ps_cuda_launch_wz_panel_coop(st->cur_stream, dt == PS__DOUBLE, blocks, m, w,
                                                 ps_cuda_ptr(dt, a.buf, a.off), a.ld,
                                                 ps_cuda_ptr(dt, zsub.buf, zsub.off), zsub.inc,
                                                 (int *)ipiv + ipiv_off, row_base, (int *)info,
                                                 pivoting, st->coop_epoch, st->coop_scratch),
                    "wz panel kernel (cooperative)");
        return PS_SUCCESS;
    }
    /* no cooperative launch, or a panel wider than fits (wz_panel_width) */
    PS_CUDA_TRY(be,
                ps_cuda_launch_wz_panel(st->cur_stream, dt == PS__DOUBLE, st->panel_threads, m, w,
                                        ps_cuda_ptr(dt, a.buf, a.off), a.ld,
                                        ps_cuda_ptr(dt, zsub.buf, zsub.off), zsub.inc,
                                        (int *)ipiv + ipiv_off, row_base, (int *)info, pivoting),
                "wz panel kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_wz_reorder(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                             int to_steps, ps__mat src, ps__mat dst, ps__vec zsub) {
    if (n <= 0 || ncols <= 0) return PS_SUCCESS;
    void *z = zsub.buf ? ps_cuda_ptr(dt, zsub.buf, zsub.off) : NULL;
    PS_CUDA_TRY(be,
                ps_cuda_launch_wz_reorder(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, n, ncols,
                                          square, to_steps, ps_cuda_ptr(dt, src.buf, src.off),
                                          src.ld, ps_cuda_ptr(dt, dst.buf, dst.off), dst.ld, z,
                                          zsub.inc),
                "wz reorder kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_wz_zsolve(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z,
                            ps__vec zsub, ps__mat x) {
    if (nb <= 0 || nrhs <= 0) return PS_SUCCESS;
    PS_CUDA_TRY(be,
                ps_cuda_launch_wz_zsolve(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, nb, nrhs,
                                         ps_cuda_ptr(dt, z.buf, z.off), z.ld,
                                         ps_cuda_ptr(dt, zsub.buf, zsub.off), zsub.inc,
                                         ps_cuda_ptr(dt, x.buf, x.off), x.ld),
                "wz zsolve kernel");
    return PS_SUCCESS;
}

/* The WZ leaf: the cooperative kernel's widest that fits up to PS_CUDA_WZ_LEAF; the one-block
 * kernel narrow (w = 4 measured best on an H100, docs/PERFORMANCE.md). */
static int cuda_wz_panel_width(ps__backend *be, ps__dtype dt, int m) {
    ps_cuda_state *st = ps_cuda(be);
    if (!st->coop_scratch || !st->wz_coop) return 4;
    ps_cuda_coop_panel cp = ps_cuda_lane_coop(st);
    int w = ps_cuda_coop_panel_max_width(&cp, dt == PS__DOUBLE, m, PS_CUDA_WZ_ROWS_OF_N,
                                         ps_cuda_wz_coop_rows(st));
    if (w > PS_CUDA_WZ_LEAF) w = PS_CUDA_WZ_LEAF;
    return w >= 8 ? w / 8 * 8 : (w >= 2 ? w / 2 * 2 : 4);
}

const ps__wz_kernels ps_cuda_wz_kernels = {
    .header = {PS__WZ_KERNELS_ABI, sizeof(ps__wz_kernels)},
    .wz_corner = ps_cuda_wz_corner,
    .wz_panel = ps_cuda_wz_panel,
    .wz_panel_width = cuda_wz_panel_width,
    .wz_reorder = ps_cuda_wz_reorder,
    .wz_zsolve = ps_cuda_wz_zsolve,
};
