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

/* The poll and the exchange rows' ready flags (kernels_cl/lu_steps.cl, PS_SYNC_*), zeroed
 * before each leaf. */
#define SYNC_WORDS (1 + 2 * (PS_CL_STEP_GROUPS_MAX + 1))
static ps_status reset_sync(ps__backend *be) {
    ps_cl_state *st = ps_cl(be);
    cl_int err;
    if (!st->step_sync) {
        st->step_sync =
            clCreateBuffer(st->context, CL_MEM_READ_WRITE, SYNC_WORDS * sizeof(cl_int), NULL, &err);
        if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (LU step sync)");
    }
    const cl_int zero = 0;
    err = clEnqueueFillBuffer(st->queue, st->step_sync, &zero, sizeof zero, 0,
                              SYNC_WORDS * sizeof(cl_int), 0, NULL, NULL);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clEnqueueFillBuffer (LU step sync)");
    return PS_SUCCESS;
}

/* getrf_panel's contract (core/backend.h) for m >= n, n <= PS_CL_STEP_MAX_N: the rows in chunks
 * of a work-group's rows, and either one launch for the whole leaf (st->step_resident: as many
 * work-groups as compute units, the chunks dealt among those that run side by side) or n + 1
 * launches of one work-group per chunk on the in-order queue (the first only publishes column
 * 0's candidates). The exchange buffers are the backend's: this relies on the queue running one
 * leaf at a time, as the backend's single lane does. */
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
    PS__TRY(ps_cl_kernel(be, PS_CL_LU_STEPS, dt, "ps_getrf_steps", &k));
    /* a row per work-item on GPUs; on CPU devices (one work-item per group) chunks of 256 */
    long chunk = st->step_wg > 1 ? st->step_wg : 256;
    long chunks = ((long)m + chunk - 1) / chunk;
    if (!st->step_resident && chunks > PS_CL_STEP_GROUPS_MAX) {
        /* wider chunks, still a multiple of the work-group's rows */
        long rows = ((long)m + PS_CL_STEP_GROUPS_MAX - 1) / PS_CL_STEP_GROUPS_MAX;
        chunk = (rows + chunk - 1) / chunk * chunk;
        chunks = ((long)m + chunk - 1) / chunk;
    }
    long groups = chunks;
    if (st->step_resident && groups > st->step_parts) groups = st->step_parts;
    int chunk_rows = (int)chunk;
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv, inf = (cl_mem)info;
    PS__TRY(reset_sync(be));
    cl_mem cand = st->step_cand, cand_row = st->step_cand_row, sync = st->step_sync;
    cl_ulong off = a.off, poff = ipiv_off;
    size_t local = (size_t)st->step_wg, items = (size_t)groups * local;
    int j_first = -1, j_last = st->step_resident ? n - 1 : -1;
    while (j_first < n) {
        const size_t sizes[] = {sizeof m,          sizeof n,        sizeof j_first,  sizeof j_last,
                                sizeof chunk_rows, sizeof buf,      sizeof off,      sizeof a.ld,
                                sizeof piv,        sizeof poff,     sizeof row_base, sizeof inf,
                                sizeof cand,       sizeof cand_row, sizeof sync};
        const void *const values[] = {&m,        &n,   &j_first, &j_last,   &chunk_rows,
                                      &buf,      &off, &a.ld,    &piv,      &poff,
                                      &row_base, &inf, &cand,    &cand_row, &sync};
        PS__TRY(ps_cl_launch(be, k, "ps_getrf_steps", 15, sizes, values, 1, &items, &local));
        j_first = j_last + 1;
        j_last = j_first;
    }
    return PS_SUCCESS;
}
