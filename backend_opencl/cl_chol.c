/* The OpenCL backend's Cholesky kernel family: the diagonal blocks by one work-group
 * (ps_cl_potrf_panel, cl_kernels.c); the tall leaf is the portable default's. */
#include "cl_internal.h"

static int cl_potrf_width(ps__backend *be, ps__dtype dt) {
    (void)be, (void)dt;
    return PS_CL_POTRF_MAX;
}

const ps__chol_kernels ps_cl_chol_kernels = {
    .header = {PS__CHOL_KERNELS_ABI, sizeof(ps__chol_kernels)},
    .potrf_panel = ps_cl_potrf_panel,
    .potrf_width = cl_potrf_width,
};
