/* The CPU backend's LU kernel family: dgetf2's loop on narrow panels and LAPACK's getrf on wide
 * ones (ps__cpu_getrf_panel, cpu_kernels.c). */
#include "cpu_internal.h"

static int cpu_panel_width(ps__backend *be, ps__dtype dt, int m) {
    (void)be, (void)dt, (void)m;
    /* wider panels go whole to OpenBLAS's getrf (ps__cpu_getrf_panel), whose own recursion is
     * threaded; core's recursion would split them into single-threaded loop leaves */
    return 1024;
}

const ps__lu_kernels ps__cpu_lu_kernels = {
    .header = {PS__LU_KERNELS_ABI, sizeof(ps__lu_kernels)},
    .getrf_panel = ps__cpu_getrf_panel,
    .panel_width = cpu_panel_width,
};
