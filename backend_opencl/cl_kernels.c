/* Launches of the kernels in kernels_cl/: fill, laswp and the one-work-group LU panel. */
#include "cl_internal.h"

/* Sets the arguments of k from a list of (size, pointer) pairs. */
static cl_int set_args(cl_kernel k, int count, const size_t *sizes, const void *const *values) {
    for (int i = 0; i < count; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]);
        if (err != CL_SUCCESS) return err;
    }
    return CL_SUCCESS;
}

static size_t round_up(size_t v, size_t m) {
    return (v + m - 1) / m * m;
}

ps_status ps_cl_fill(ps__backend *be, ps__dtype dt, int rows, int cols, const ps__scalar *value,
                     ps__mat a) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_MEMORY, dt, "ps_fill", &k));
    cl_mem buf = (cl_mem)a.buf;
    cl_ulong off = a.off;
    size_t es = ps__dtype_size(dt);
    const size_t sizes[] = {sizeof rows, sizeof cols, es, sizeof buf, sizeof off, sizeof a.ld};
    const void *const values[] = {&rows, &cols, value, &buf, &off, &a.ld};
    PS_CL_TRY(be, set_args(k, 6, sizes, values), "clSetKernelArg (ps_fill)");
    size_t local[2] = {16, 16},
           global[2] = {round_up((size_t)rows, 16), round_up((size_t)cols, 16)};
    PS_CL_TRY(be,
              clEnqueueNDRangeKernel(ps_cl(be)->queue, k, 2, NULL, global, local, 0, NULL, NULL),
              "clEnqueueNDRangeKernel (ps_fill)");
    return PS_SUCCESS;
}

/* Our own kernel: CLBlast 1.5's iamax returns buffer positions, and 0 for a zero vector. */
ps_status ps_cl_iamax(ps__backend *be, ps__dtype dt, int n, ps__vec x, int *result) {
    *result = -1;
    if (n <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_BLAS, dt, "ps_iamax", &k));
    cl_mem buf = (cl_mem)x.buf, out = ps_cl(be)->scratch;
    cl_ulong off = x.off;
    const size_t sizes[] = {sizeof n, sizeof buf, sizeof off, sizeof x.inc, sizeof out};
    const void *const values[] = {&n, &buf, &off, &x.inc, &out};
    PS_CL_TRY(be, set_args(k, 5, sizes, values), "clSetKernelArg (ps_iamax)");
    size_t local = (size_t)ps_cl(be)->panel_wg, global = local;
    PS_CL_TRY(be,
              clEnqueueNDRangeKernel(ps_cl(be)->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              "clEnqueueNDRangeKernel (ps_iamax)");
    cl_int idx;
    PS_CL_TRY(
        be, clEnqueueReadBuffer(ps_cl(be)->queue, out, CL_TRUE, 0, sizeof idx, &idx, 0, NULL, NULL),
        "clEnqueueReadBuffer (iamax result)");
    *result = idx;
    return PS_SUCCESS;
}

ps_status ps_cl_laswp(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                      const void *ipiv, size_t ipiv_off, int forward) {
    if (ncols <= 0 || k2 <= k1) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_LU, dt, "ps_laswp", &k));
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv;
    cl_ulong off = a.off, poff = ipiv_off;
    const size_t sizes[] = {sizeof ncols, sizeof buf, sizeof off,  sizeof a.ld,   sizeof k1,
                            sizeof k2,    sizeof piv, sizeof poff, sizeof forward};
    const void *const values[] = {&ncols, &buf, &off, &a.ld, &k1, &k2, &piv, &poff, &forward};
    PS_CL_TRY(be, set_args(k, 9, sizes, values), "clSetKernelArg (ps_laswp)");
    size_t local = 64, global = round_up((size_t)ncols, local);
    PS_CL_TRY(be,
              clEnqueueNDRangeKernel(ps_cl(be)->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              "clEnqueueNDRangeKernel (ps_laswp)");
    return PS_SUCCESS;
}

ps_status ps_cl_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                            size_t ipiv_off, int row_base, void *info) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_LU, dt, "ps_getrf_panel", &k));
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv, inf = (cl_mem)info;
    cl_ulong off = a.off, poff = ipiv_off;
    const size_t sizes[] = {sizeof m,   sizeof n,    sizeof buf,      sizeof off, sizeof a.ld,
                            sizeof piv, sizeof poff, sizeof row_base, sizeof inf};
    const void *const values[] = {&m, &n, &buf, &off, &a.ld, &piv, &poff, &row_base, &inf};
    PS_CL_TRY(be, set_args(k, 9, sizes, values), "clSetKernelArg (ps_getrf_panel)");
    size_t local = (size_t)ps_cl(be)->panel_wg, global = local;
    PS_CL_TRY(be,
              clEnqueueNDRangeKernel(ps_cl(be)->queue, k, 1, NULL, &global, &local, 0, NULL, NULL),
              "clEnqueueNDRangeKernel (ps_getrf_panel)");
    return PS_SUCCESS;
}
