/* The LU leaf by one launch per column over every compute unit (kernels_cl/lu_steps.cl). */
#include "cl_internal.h"

/* The exchange buffers, made on first use at their largest size. */
static ps_status exchange_buffers(ps__backend *be) {
    ps_cl_state *st = ps_cl(be);
    cl_int err;
    if (!st->step_cand) {
        size_t bytes = sizeof(double) * 2 * (PS_CL_STEP_GROUPS_MAX + 1) * PS_CL_STEP_MAX_N;
        st->step_cand = clCreateBuffer(st->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (LU step candidates)");
    }
    if (!st->step_cand_row) {
        size_t bytes = sizeof(cl_int) * 2 * PS_CL_STEP_GROUPS_MAX;
        st->step_cand_row = clCreateBuffer(st->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (LU step rows)");
    }
    return PS_SUCCESS;
}

/* getrf_panel's contract (core/backend.h) for m >= n, n <= PS_CL_STEP_MAX_N: the rows in
 * contiguous chunks, one work-group each, and n + 1 launches on the
 * in-order queue (the first only publishes column 0's candidates). The exchange buffers are
 * the backend's: this relies on the queue running one leaf at a time, as the backend's single
 * lane does. */
ps_status ps_cl_getrf_steps(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                            size_t ipiv_off, int row_base, void *info) {
    ps_cl_state *st = ps_cl(be);
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    if (n > PS_CL_STEP_MAX_N || m < n)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                "opencl: LU column steps on %d x %d (at most %d columns, m >= n)",
                                m, n, PS_CL_STEP_MAX_N);
    PS__TRY(exchange_buffers(be));
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_LU_STEPS, dt, "ps_getrf_step", &k));
    /* a row per work-item on GPUs; on CPU devices (one work-item per group) chunks of 256 */
    long group_rows = st->step_wg > 1 ? st->step_wg : 256;
    long groups = ((long)m + group_rows - 1) / group_rows;
    if (groups > PS_CL_STEP_GROUPS_MAX) groups = PS_CL_STEP_GROUPS_MAX;
    int chunk = (int)(((long)m + groups - 1) / groups);
    groups = ((long)m + chunk - 1) / chunk; /* no work-group without rows */
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv, inf = (cl_mem)info;
    cl_mem cand = st->step_cand, cand_row = st->step_cand_row;
    cl_ulong off = a.off, poff = ipiv_off;
    size_t local = (size_t)st->step_wg, items = (size_t)groups * local;
    for (int j = -1; j < n; j++) {
        const size_t sizes[] = {sizeof m,       sizeof n,        sizeof j,    sizeof chunk,
                                sizeof buf,     sizeof off,      sizeof a.ld, sizeof piv,
                                sizeof poff,    sizeof row_base, sizeof inf,  sizeof cand,
                                sizeof cand_row};
        const void *const values[] = {&m,   &n,    &j,        &chunk, &buf,  &off,     &a.ld,
                                      &piv, &poff, &row_base, &inf,   &cand, &cand_row};
        PS__TRY(ps_cl_launch(be, k, "ps_getrf_step", 13, sizes, values, 1, &items, &local));
    }
    return PS_SUCCESS;
}
