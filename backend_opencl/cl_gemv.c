/* y = alpha A x + beta y, A not transposed and x, y contiguous, by two kernels of
 * kernels_cl/blas.cl instead of CLBlast's gemv: on NVIDIA's OpenCL (H100) CLBlast's took 122 us
 * for an n = 2000 matrix, 262 GB/s, and every iteration of the iterative solvers is one such
 * product (docs/PERFORMANCE.md).
 *   ps_gemv_n_part: work-groups of PS_GEMV_ROWS rows times a slice of the columns, each
 *                   work-item a row and every PS_GEMV_PARTS-th column of the slice (so each
 *                   load is a coalesced run of rows), the parts summed in the group into
 *                   part[slice * m + row];
 *   ps_gemv_n_sum:  y = alpha (the slices' sums, in slice order) + beta y, y not read when
 *                   beta = 0 (BLAS).
 * The slices' count gives about four work-groups per compute unit. */
#include "cl_internal.h"

/* kernels_cl/blas.cl's PS_GEMV_ROWS and PS_GEMV_PARTS */
#define GEMV_ROWS       64
#define GEMV_PARTS      4
#define GEMV_MAX_SLICES 16

int ps_cl_own_gemv_takes(ps__backend *be, ps__trans trans, ps__vec x, ps__vec y) {
    ps_cl_state *st = ps_cl(be);
    if (trans != PS__NOTRANS || x.inc != 1 || y.inc != 1 || st->own_gemv == 0) return 0;
    return st->own_gemv == 2 || st->gpu;
}

/* part: at least `elements` elements of the largest dtype, kept across calls. */
static ps_status part_buffer(ps__backend *be, size_t elements, cl_mem *out) {
    ps_cl_state *st = ps_cl(be);
    size_t bytes = elements * sizeof(double);
    if (bytes > st->gemv_part_bytes) {
        cl_int err;
        cl_mem grown = clCreateBuffer(st->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (gemv partial sums)");
        if (st->gemv_part) clReleaseMemObject(st->gemv_part);
        st->gemv_part = grown;
        st->gemv_part_bytes = bytes;
    }
    *out = st->gemv_part;
    return PS_SUCCESS;
}

ps_status ps_cl_own_gemv(ps__backend *be, ps__dtype dt, int m, int n, const ps__scalar *alpha,
                         ps__mat a, ps__vec x, const ps__scalar *beta, ps__vec y) {
    ps_cl_state *st = ps_cl(be);
    int tiles = (m + GEMV_ROWS - 1) / GEMV_ROWS;
    int slices = (4 * st->compute_units + tiles - 1) / tiles;
    int most = n / (GEMV_PARTS * 32); /* each work-item at least 32 columns */
    if (slices > most) slices = most;
    if (slices > GEMV_MAX_SLICES) slices = GEMV_MAX_SLICES;
    if (slices < 1) slices = 1;
    int per_slice = (n + slices - 1) / slices;
    cl_mem part;
    PS__TRY(part_buffer(be, (size_t)slices * (size_t)m, &part));
    cl_kernel kern;
    cl_mem ab = (cl_mem)a.buf, xb = (cl_mem)x.buf, yb = (cl_mem)y.buf;
    cl_ulong ao = a.off, xo = x.off, yo = y.off;
    size_t i = sizeof(int), mm = sizeof(cl_mem), u = sizeof(cl_ulong);
    {
        PS__TRY(ps_cl_kernel(be, PS_CL_BLAS, dt, "ps_gemv_n_part", &kern));
        const size_t sizes[] = {i, i, i, mm, u, i, mm, u, mm};
        const void *const values[] = {&m, &n, &per_slice, &ab, &ao, &a.ld, &xb, &xo, &part};
        size_t global[2] = {(size_t)tiles * GEMV_ROWS, (size_t)slices * GEMV_PARTS};
        size_t local[2] = {GEMV_ROWS, GEMV_PARTS};
        PS__TRY(ps_cl_launch(be, kern, "ps_gemv_n_part", 9, sizes, values, 2, global, local));
    }
    size_t rs = dt == PS__DOUBLE ? sizeof(double) : sizeof(float);
    const void *al = dt == PS__DOUBLE ? (const void *)&alpha->d : (const void *)&alpha->s;
    const void *bt = dt == PS__DOUBLE ? (const void *)&beta->d : (const void *)&beta->s;
    PS__TRY(ps_cl_kernel(be, PS_CL_BLAS, dt, "ps_gemv_n_sum", &kern));
    const size_t sizes[] = {i, i, rs, rs, mm, mm, u};
    const void *const values[] = {&m, &slices, al, bt, &part, &yb, &yo};
    size_t global = (size_t)tiles * GEMV_ROWS, local = GEMV_ROWS;
    return ps_cl_launch(be, kern, "ps_gemv_n_sum", 7, sizes, values, 1, &global, &local);
}
