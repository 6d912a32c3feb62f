/* The OpenCL backend's LU kernel family: the one-work-group panel kernel and the column-step
 * leaf (cl_kernels.c, cl_lu_steps.c). */
#include "cl_internal.h"

/* The column-step leaf's width: launches are per column whatever the width, wider leaves save
 * core's recursive splits (a trsm, a GEMM and two laswp each). */
#define STEP_LEAF_WIDTH 32

/* The one-work-group panel kernel streams the m x w leaf through one compute unit: on GPUs
 * narrow leaves (the rest of the panel goes to CLBlast on all units) measured fastest, on CPU
 * devices the kernel runs as one work-item and wider leaves save CLBlast calls. Tall leaves take
 * the column steps instead, whose launches per column do not grow with the width (32 measured
 * best on an H100, and faster than the one-work-group kernel at any width). */
static int cl_panel_width(ps__backend *be, ps__dtype dt, int m) {
    (void)dt;
    ps_cl_state *st = ps_cl(be);
    if (st->step_rows > 0 && m >= st->step_rows) return STEP_LEAF_WIDTH;
    return st->panel_wg > 1 ? 4 : 16;
}

const ps__lu_kernels ps_cl_lu_kernels = {
    .header = {PS__LU_KERNELS_ABI, sizeof(ps__lu_kernels)},
    .getrf_panel = ps_cl_getrf_panel,
    .panel_width = cl_panel_width,
};
