/* The CPU backend's Cholesky kernel family: dpotf2's loop on the diagonal blocks
 * (ps__cpu_potrf_panel, cpu_kernels.c); the tall leaf is the portable default's. */
#include "cpu_internal.h"

static int cpu_potrf_width(ps__backend *be, ps__dtype dt) {
    (void)be, (void)dt;
    return 32; /* below this the recursion's BLAS calls cost more than the loops they replace */
}

const ps__chol_kernels ps__cpu_chol_kernels = {
    .header = {PS__CHOL_KERNELS_ABI, sizeof(ps__chol_kernels)},
    .potrf_panel = ps__cpu_potrf_panel,
    .potrf_width = cpu_potrf_width,
};
