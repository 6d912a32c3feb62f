/* Launches of the WZ kernels of kernels_cl/wz.cl (the wz_* entries of core/backend.h). */
#include "cl_internal.h"

ps_status ps_cl_wz_corner(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a, ps__vec work,
                          void *ipiv, void *info, int pivoting) {
    (void)work;
    if (n <= 0) return PS_SUCCESS;
    cl_kernel kern;
    PS__TRY(ps_cl_kernel(be, PS_CL_WZ, dt, "ps_wz_corner", &kern));
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv, inf = (cl_mem)info;
    cl_ulong off = a.off;
    const size_t sizes[] = {sizeof n,    sizeof k,   sizeof buf, sizeof off,
                            sizeof a.ld, sizeof piv, sizeof inf, sizeof pivoting};
    const void *const values[] = {&n, &k, &buf, &off, &a.ld, &piv, &inf, &pivoting};
    size_t local = (size_t)ps_cl(be)->panel_wg; /* one work-group */
    return ps_cl_launch(be, kern, "ps_wz_corner", 8, sizes, values, 1, &local, &local);
}

ps_status ps_cl_wz_panel(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                         void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting) {
    if (m <= 0 || w <= 0) return PS_SUCCESS;
    cl_kernel kern;
    PS__TRY(ps_cl_kernel(be, PS_CL_WZ, dt, "ps_wz_panel", &kern));
    cl_mem buf = (cl_mem)a.buf, zb = (cl_mem)zsub.buf, piv = (cl_mem)ipiv, inf = (cl_mem)info;
    cl_ulong off = a.off, zoff = zsub.off, poff = ipiv_off;
    const size_t sizes[] = {sizeof m,        sizeof w,    sizeof buf,      sizeof off, sizeof a.ld,
                            sizeof zb,       sizeof zoff, sizeof zsub.inc, sizeof piv, sizeof poff,
                            sizeof row_base, sizeof inf,  sizeof pivoting};
    const void *const values[] = {&m,        &w,   &buf,  &off,      &a.ld, &zb,      &zoff,
                                  &zsub.inc, &piv, &poff, &row_base, &inf,  &pivoting};
    size_t local = (size_t)ps_cl(be)->panel_wg; /* one work-group */
    return ps_cl_launch(be, kern, "ps_wz_panel", 13, sizes, values, 1, &local, &local);
}

ps_status ps_cl_wz_reorder(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                           int to_steps, ps__mat src, ps__mat dst, ps__vec zsub) {
    if (n <= 0 || ncols <= 0) return PS_SUCCESS;
    cl_kernel kern;
    PS__TRY(ps_cl_kernel(be, PS_CL_WZ, dt, "ps_wz_reorder", &kern));
    cl_mem sb = (cl_mem)src.buf, db = (cl_mem)dst.buf;
    /* without corner entries the kernel still needs a valid buffer argument: it never reads it */
    int has_zsub = zsub.buf != NULL;
    cl_mem zb = has_zsub ? (cl_mem)zsub.buf : db;
    cl_ulong soff = src.off, doff = dst.off, zoff = zsub.off;
    const size_t sizes[] = {sizeof n,        sizeof ncols,   sizeof square, sizeof to_steps,
                            sizeof sb,       sizeof soff,    sizeof src.ld, sizeof db,
                            sizeof doff,     sizeof dst.ld,  sizeof zb,     sizeof zoff,
                            sizeof zsub.inc, sizeof has_zsub};
    const void *const values[] = {&n,  &ncols, &square, &to_steps, &sb,   &soff,     &src.ld,
                                  &db, &doff,  &dst.ld, &zb,       &zoff, &zsub.inc, &has_zsub};
    const size_t items[2] = {(size_t)n, (size_t)ncols}, local[2] = {16, 16};
    return ps_cl_launch(be, kern, "ps_wz_reorder", 14, sizes, values, 2, items, local);
}

ps_status ps_cl_wz_zsolve(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z, ps__vec zsub,
                          ps__mat x) {
    if (nb <= 0 || nrhs <= 0) return PS_SUCCESS;
    cl_kernel kern;
    PS__TRY(ps_cl_kernel(be, PS_CL_WZ, dt, "ps_wz_zsolve", &kern));
    cl_mem zm = (cl_mem)z.buf, zb = (cl_mem)zsub.buf, xb = (cl_mem)x.buf;
    cl_ulong off = z.off, zoff = zsub.off, xoff = x.off;
    const size_t sizes[] = {sizeof nb,   sizeof nrhs, sizeof zm,   sizeof off,
                            sizeof z.ld, sizeof zb,   sizeof zoff, sizeof zsub.inc,
                            sizeof xb,   sizeof xoff, sizeof x.ld};
    const void *const values[] = {&nb,   &nrhs,     &zm, &off,  &z.ld, &zb,
                                  &zoff, &zsub.inc, &xb, &xoff, &x.ld};
    size_t local = 32, items = (size_t)nrhs;
    return ps_cl_launch(be, kern, "ps_wz_zsolve", 11, sizes, values, 1, &items, &local);
}

/* As the LU leaf: narrow on GPUs (one compute unit streams the leaf), wider on CPU devices. */
static int cl_wz_panel_width(ps__backend *be, ps__dtype dt, int m) {
    (void)dt, (void)m;
    return ps_cl(be)->panel_wg > 1 ? 4 : 16;
}

const ps__wz_kernels ps_cl_wz_kernels = {
    .header = {PS__WZ_KERNELS_ABI, sizeof(ps__wz_kernels)},
    .wz_corner = ps_cl_wz_corner,
    .wz_panel = ps_cl_wz_panel,
    .wz_panel_width = cl_wz_panel_width,
    .wz_reorder = ps_cl_wz_reorder,
    .wz_zsolve = ps_cl_wz_zsolve,
};
