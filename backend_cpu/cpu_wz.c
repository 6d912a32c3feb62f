/* The CPU backend's WZ entries (core/backend.h): plain loops for both precisions. */
#include "cpu_internal.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

#define PS_CPU_TEMPLATE "cpu_wz_real.h"
#include "cpu_instantiate.h"

#define DM(m) PS__CPU_PTR(double, (m).buf, (m).off)
#define SM(m) PS__CPU_PTR(float, (m).buf, (m).off)

ps_status ps__cpu_wz_corner(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a, ps__vec work,
                            void *ipiv, void *info, int pivoting) {
    (void)be, (void)work;
    if (dt == PS__DOUBLE)
        wz_corner_d(n, k, DM(a), a.ld, ipiv, info, pivoting);
    else
        wz_corner_s(n, k, SM(a), a.ld, ipiv, info, pivoting);
    return PS_SUCCESS;
}

ps_status ps__cpu_wz_panel(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                           void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting) {
    (void)be;
    int32_t *piv = (int32_t *)ipiv + ipiv_off;
    if (dt == PS__DOUBLE)
        wz_panel_d(m, w, DM(a), a.ld, DM(zsub), zsub.inc, piv, row_base, info, pivoting);
    else
        wz_panel_s(m, w, SM(a), a.ld, SM(zsub), zsub.inc, piv, row_base, info, pivoting);
    return PS_SUCCESS;
}

ps_status ps__cpu_wz_reorder(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                             int to_steps, ps__mat src, ps__mat dst, ps__vec zsub) {
    (void)be;
    if (dt == PS__DOUBLE)
        wz_reorder_d(n, ncols, square, to_steps, DM(src), src.ld, DM(dst), dst.ld,
                     square && zsub.buf ? DM(zsub) : NULL, zsub.inc);
    else
        wz_reorder_s(n, ncols, square, to_steps, SM(src), src.ld, SM(dst), dst.ld,
                     square && zsub.buf ? SM(zsub) : NULL, zsub.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_wz_zsolve(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z,
                            ps__vec zsub, ps__mat x) {
    (void)be;
    if (dt == PS__DOUBLE)
        wz_zsolve_d(nb, nrhs, DM(z), z.ld, DM(zsub), zsub.inc, DM(x), x.ld);
    else
        wz_zsolve_s(nb, nrhs, SM(z), z.ld, SM(zsub), zsub.inc, SM(x), x.ld);
    return PS_SUCCESS;
}

static int cpu_wz_panel_width(ps__backend *be, ps__dtype dt, int m) {
    (void)be, (void)dt, (void)m;
    return 16; /* eight steps: as the LU panel, the loops stay in cache */
}

const ps__wz_kernels ps__cpu_wz_kernels = {
    .header = {PS__WZ_KERNELS_ABI, sizeof(ps__wz_kernels)},
    .wz_corner = ps__cpu_wz_corner,
    .wz_panel = ps__cpu_wz_panel,
    .wz_panel_width = cpu_wz_panel_width,
    .wz_reorder = ps__cpu_wz_reorder,
    .wz_zsolve = ps__cpu_wz_zsolve,
};
