/* Launches of the kernels in kernels_cl/: fill, scale, iamax, laswp, the LU panel, the Cholesky
 * block and the fused vector updates. */
#include "cl_internal.h"

/* Sets k's arguments from (size, pointer) pairs and enqueues it over `dims` dimensions, the
 * global size rounded up to the local size. */
ps_status ps_cl_launch(ps__backend *be, cl_kernel k, const char *name, int nargs,
                       const size_t *sizes, const void *const *values, cl_uint dims,
                       const size_t *items, const size_t *local) {
    for (int i = 0; i < nargs; i++) {
        cl_int err = clSetKernelArg(k, (cl_uint)i, sizes[i], values[i]);
        if (err != CL_SUCCESS) return ps_cl_fail(be, err, name);
    }
    size_t global[3];
    for (cl_uint d = 0; d < dims; d++) global[d] = (items[d] + local[d] - 1) / local[d] * local[d];
    PS_CL_TRY(be,
              clEnqueueNDRangeKernel(ps_cl(be)->queue, k, dims, NULL, global, local, 0, NULL,
                                     ps_cl_event(be, name)),
              name);
    return PS_SUCCESS;
}

/* a(i,j) = value (ps_fill) or a(i,j) *= value (ps_scale2d) over a rows x cols view. */
static ps_status elementwise(ps__backend *be, ps__dtype dt, const char *name, int rows, int cols,
                             const ps__scalar *value, ps__mat a) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_MEMORY, dt, name, &k));
    cl_mem buf = (cl_mem)a.buf;
    cl_ulong off = a.off;
    const size_t sizes[] = {sizeof rows, sizeof cols, ps__dtype_size(dt),
                            sizeof buf,  sizeof off,  sizeof a.ld};
    const void *const values[] = {&rows, &cols, value, &buf, &off, &a.ld};
    const size_t items[2] = {(size_t)rows, (size_t)cols}, local[2] = {16, 16};
    return ps_cl_launch(be, k, name, 6, sizes, values, 2, items, local);
}

ps_status ps_cl_scale2d(ps__backend *be, ps__dtype dt, int rows, int cols, const ps__scalar *alpha,
                        ps__mat a) {
    return elementwise(be, dt, "ps_scale2d", rows, cols, alpha, a);
}

/* permute_rows and scatter_rows: one work-item per element of the rows x cols view that has
 * consecutive rows (dst for the gather, src for the scatter). */
static ps_status rows_by_index(ps__backend *be, ps__dtype dt, const char *name, int rows, int cols,
                               const void *idx, size_t idx_off, ps__mat src, ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_MEMORY, dt, name, &k));
    cl_mem p = (cl_mem)idx, s = (cl_mem)src.buf, d = (cl_mem)dst.buf;
    cl_ulong poff = idx_off, soff = src.off, doff = dst.off;
    const size_t sizes[] = {sizeof rows, sizeof cols,   sizeof p, sizeof poff, sizeof s,
                            sizeof soff, sizeof src.ld, sizeof d, sizeof doff, sizeof dst.ld};
    const void *const values[] = {&rows, &cols, &p, &poff, &s, &soff, &src.ld, &d, &doff, &dst.ld};
    const size_t items[2] = {(size_t)rows, (size_t)cols}, local[2] = {64, 1};
    return ps_cl_launch(be, k, name, 10, sizes, values, 2, items, local);
}

ps_status ps_cl_permute_rows(ps__backend *be, ps__dtype dt, int rows, int cols, const void *perm,
                             size_t perm_off, ps__mat src, ps__mat dst) {
    return rows_by_index(be, dt, "ps_permute_rows", rows, cols, perm, perm_off, src, dst);
}

ps_status ps_cl_scatter_rows(ps__backend *be, ps__dtype dt, int rows, int cols, const void *idx,
                             size_t idx_off, ps__mat src, ps__mat dst) {
    return rows_by_index(be, dt, "ps_scatter_rows", rows, cols, idx, idx_off, src, dst);
}

ps_status ps_cl_fill(ps__backend *be, ps__dtype dt, int rows, int cols, const ps__scalar *value,
                     ps__mat a) {
    return elementwise(be, dt, "ps_fill", rows, cols, value, a);
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
    size_t local = (size_t)ps_cl(be)->panel_wg; /* one work-group */
    PS__TRY(ps_cl_launch(be, k, "ps_iamax", 5, sizes, values, 1, &local, &local));
    cl_int idx;
    PS_CL_TRY(
        be, clEnqueueReadBuffer(ps_cl(be)->queue, out, CL_TRUE, 0, sizeof idx, &idx, 0, NULL, NULL),
        "clEnqueueReadBuffer (iamax result)");
    *result = idx;
    return PS_SUCCESS;
}

/* laswp by ps_laswp_perm (kernels_cl/lu.cl): chunks of PS_CL_PERM_CHUNK interchanges, in the
 * order they apply, each one launch over groups of columns (a few per group on GPUs, so that a
 * narrow laswp still spreads; on CPU devices, one work-item each, fewer and wider). columns 1:
 * the interchanges are of columns, over nlines rows, grouped by rows. */
#define PS_CL_PERM_CHUNK 256
static ps_status permute_lines(ps__backend *be, ps__dtype dt, int nlines, ps__mat a, int k1, int k2,
                               const void *ipiv, size_t ipiv_off, int forward, int columns) {
    if (nlines <= 0 || k2 <= k1) return PS_SUCCESS;
    ps_cl_state *st = ps_cl(be);
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_LU, dt, "ps_laswp_perm", &k));
    int max_groups = st->step_wg > 1 ? 512 : 16;
    int per_group = (nlines + max_groups - 1) / max_groups, least = columns ? 32 : 8;
    if (per_group < least) per_group = least;
    size_t local = (size_t)st->step_wg,
           items = (size_t)((nlines + per_group - 1) / per_group) * local;
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv;
    cl_ulong off = a.off;
    int chunks = (k2 - k1 + PS_CL_PERM_CHUNK - 1) / PS_CL_PERM_CHUNK;
    for (int i = 0; i < chunks; i++) {
        int c = forward ? i : chunks - 1 - i, first = k1 + c * PS_CL_PERM_CHUNK;
        int count = k2 - first < PS_CL_PERM_CHUNK ? k2 - first : PS_CL_PERM_CHUNK;
        cl_ulong poff = ipiv_off + (size_t)c * PS_CL_PERM_CHUNK;
        const size_t sizes[] = {sizeof nlines, sizeof per_group, sizeof buf,    sizeof off,
                                sizeof a.ld,   sizeof first,     sizeof count,  sizeof piv,
                                sizeof poff,   sizeof forward,   sizeof columns};
        const void *const values[] = {&nlines, &per_group, &buf,  &off,     &a.ld,   &first,
                                      &count,  &piv,       &poff, &forward, &columns};
        PS__TRY(ps_cl_launch(be, k, "ps_laswp_perm", 11, sizes, values, 1, &items, &local));
    }
    return PS_SUCCESS;
}

ps_status ps_cl_laswp(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                      const void *ipiv, size_t ipiv_off, int forward) {
    return permute_lines(be, dt, ncols, a, k1, k2, ipiv, ipiv_off, forward, 0);
}

ps_status ps_cl_colswp_steps(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                             const void *ipiv, size_t ipiv_off, int forward) {
    return permute_lines(be, dt, nrows, a, k1, k2, ipiv, ipiv_off, forward, 1);
}

ps_status ps_cl_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                            size_t ipiv_off, int row_base, void *info) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    ps_cl_state *st = ps_cl(be);
    if (st->step_rows > 0 && m >= st->step_rows && n <= PS_CL_STEP_MAX_N && m >= n)
        return ps_cl_getrf_steps(be, dt, m, n, a, ipiv, ipiv_off, row_base, info);
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_LU, dt, "ps_getrf_panel", &k));
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv, inf = (cl_mem)info;
    cl_ulong off = a.off, poff = ipiv_off;
    const size_t sizes[] = {sizeof m,   sizeof n,    sizeof buf,      sizeof off, sizeof a.ld,
                            sizeof piv, sizeof poff, sizeof row_base, sizeof inf};
    const void *const values[] = {&m, &n, &buf, &off, &a.ld, &piv, &poff, &row_base, &inf};
    size_t local = (size_t)st->panel_wg; /* one work-group */
    return ps_cl_launch(be, k, "ps_getrf_panel", 9, sizes, values, 1, &local, &local);
}

ps_status ps_cl_potrf_panel(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                            void *info, int index_base) {
    if (n <= 0) return PS_SUCCESS;
    if (n > PS_CL_POTRF_MAX)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                "potrf_panel: n=%d is above the kernel's %d", n, PS_CL_POTRF_MAX);
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_CHOL, dt, "ps_potrf_panel", &k));
    cl_mem buf = (cl_mem)a.buf, inf = (cl_mem)info;
    cl_ulong off = a.off;
    int lower = uplo == PS__LOWER;
    const size_t sizes[] = {sizeof lower, sizeof n,   sizeof buf,       sizeof off,
                            sizeof a.ld,  sizeof inf, sizeof index_base};
    const void *const values[] = {&lower, &n, &buf, &off, &a.ld, &inf, &index_base};
    size_t local = (size_t)ps_cl(be)->panel_wg; /* one work-group */
    return ps_cl_launch(be, k, "ps_potrf_panel", 7, sizes, values, 1, &local, &local);
}

ps_status ps_cl_axpby(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                      const ps__scalar *beta, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_BLAS, dt, "ps_axpby", &k));
    cl_mem xb = (cl_mem)x.buf, yb = (cl_mem)y.buf;
    cl_ulong xoff = x.off, yoff = y.off;
    size_t es = ps__dtype_size(dt);
    const size_t sizes[] = {sizeof n, es,        sizeof xb,   sizeof xoff, sizeof x.inc,
                            es,       sizeof yb, sizeof yoff, sizeof y.inc};
    const void *const values[] = {&n, alpha, &xb, &xoff, &x.inc, beta, &yb, &yoff, &y.inc};
    size_t local = 64, items = (size_t)n;
    return ps_cl_launch(be, k, "ps_axpby", 9, sizes, values, 1, &items, &local);
}

ps_status ps_cl_vmul(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_BLAS, dt, "ps_vmul", &k));
    cl_mem xb = (cl_mem)x.buf, yb = (cl_mem)y.buf;
    cl_ulong xoff = x.off, yoff = y.off;
    const size_t sizes[] = {sizeof n,  sizeof xb,   sizeof xoff, sizeof x.inc,
                            sizeof yb, sizeof yoff, sizeof y.inc};
    const void *const values[] = {&n, &xb, &xoff, &x.inc, &yb, &yoff, &y.inc};
    size_t local = 64, items = (size_t)n;
    return ps_cl_launch(be, k, "ps_vmul", 7, sizes, values, 1, &items, &local);
}
