/* The OpenCL backend's BLAS entries on CLBlast (column-major, offsets in elements). CLBlast
 * rejects zero dimensions that BLAS accepts (k = 0 in gemm means C = beta C), so those cases are
 * handled here. Results of reductions go through a small device scratch buffer. trsm is our own
 * (cl_trsm.c) and iamax a kernel of ours (cl_kernels.c): see there why. */
#include "cl_internal.h"

#include <clblast_c.h>

#define Q(be)  (&ps_cl(be)->queue)
#define MEM(v) ((cl_mem)(v).buf)
#define EV(be) ps_cl_event(be, __func__) /* NULL unless profiling (cl_profile.c) */

static CLBlastTranspose tr(ps__trans t) {
    return t == PS__TRANS ? CLBlastTransposeYes : CLBlastTransposeNo;
}
static CLBlastTriangle tri(ps__uplo u) {
    return u == PS__LOWER ? CLBlastTriangleLower : CLBlastTriangleUpper;
}
static const CLBlastLayout COL = CLBlastLayoutColMajor;

static ps_status check(ps__backend *be, CLBlastStatusCode code, const char *what) {
    if (code == CLBlastSuccess) return PS_SUCCESS;
    return ps_cl_fail(be, (cl_int)code, what);
}

static ps_status read_scratch(ps__backend *be, size_t bytes, void *out) {
    PS_CL_TRY(be,
              clEnqueueReadBuffer(ps_cl(be)->queue, ps_cl(be)->scratch, CL_TRUE, 0, bytes, out, 0,
                                  NULL, NULL),
              "clEnqueueReadBuffer (scalar result)");
    return PS_SUCCESS;
}

ps_status ps_cl_copy(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE
                     ? CLBlastDcopy(n, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be))
                     : CLBlastScopy(n, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be)),
                 "CLBlast copy");
}

ps_status ps_cl_swap(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE
                     ? CLBlastDswap(n, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be))
                     : CLBlastSswap(n, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be)),
                 "CLBlast swap");
}

ps_status ps_cl_scal(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? CLBlastDscal(n, alpha->d, MEM(x), x.off, x.inc, Q(be), EV(be))
                                  : CLBlastSscal(n, alpha->s, MEM(x), x.off, x.inc, Q(be), EV(be)),
                 "CLBlast scal");
}

ps_status ps_cl_axpy(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                     ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    return check(
        be,
        dt == PS__DOUBLE
            ? CLBlastDaxpy(n, alpha->d, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be))
            : CLBlastSaxpy(n, alpha->s, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be)),
        "CLBlast axpy");
}

ps_status ps_cl_dot(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y,
                    ps__scalar *result) {
    *result = ps__scalar_of(dt, 0.0);
    if (n <= 0) return PS_SUCCESS;
    cl_mem s = ps_cl(be)->scratch;
    PS__TRY(
        check(be,
              dt == PS__DOUBLE
                  ? CLBlastDdot(n, s, 0, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be))
                  : CLBlastSdot(n, s, 0, MEM(x), x.off, x.inc, MEM(y), y.off, y.inc, Q(be), EV(be)),
              "CLBlast dot"));
    return read_scratch(be, ps__dtype_size(dt), result);
}

ps_status ps_cl_nrm2(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__scalar *result) {
    *result = ps__scalar_of(dt, 0.0);
    if (n <= 0) return PS_SUCCESS;
    cl_mem s = ps_cl(be)->scratch;
    PS__TRY(check(be,
                  dt == PS__DOUBLE ? CLBlastDnrm2(n, s, 0, MEM(x), x.off, x.inc, Q(be), EV(be))
                                   : CLBlastSnrm2(n, s, 0, MEM(x), x.off, x.inc, Q(be), EV(be)),
                  "CLBlast nrm2"));
    return read_scratch(be, ps__dtype_size(dt), result);
}

/* C = beta C on the rows x cols view (only the uplo triangle when tri_only). */
static ps_status scale_matrix(ps__backend *be, ps__dtype dt, int rows, int cols,
                              const ps__scalar *beta, ps__mat c, int tri_only, ps__uplo uplo) {
    if (ps__scalar_value(dt, *beta) == 1.0) return PS_SUCCESS;
    for (int j = 0; j < cols; j++) {
        int i0 = tri_only && uplo == PS__LOWER ? j : 0;
        int i1 = tri_only && uplo == PS__UPPER ? j + 1 : rows;
        if (i1 > i0) PS__TRY(ps_cl_scal(be, dt, i1 - i0, beta, ps__mat_col(c, i0, j)));
    }
    return PS_SUCCESS;
}

/* BLAS semantics: with beta = 0 the output is not read (it may hold NaN or garbage), but
 * CLBlast computes beta * y, so the output is cleared first. */
static ps_status clear_if_beta_zero(ps__backend *be, ps__dtype dt, const ps__scalar *beta, int rows,
                                    int cols, ps__mat c) {
    if (ps__scalar_value(dt, *beta) != 0) return PS_SUCCESS;
    ps__scalar zero = ps__scalar_of(dt, 0.0);
    return ps_cl_fill(be, dt, rows, cols, &zero, c);
}

ps_status ps_cl_gemv(ps__backend *be, ps__dtype dt, ps__trans trans, int m, int n,
                     const ps__scalar *alpha, ps__mat a, ps__vec x, const ps__scalar *beta,
                     ps__vec y) {
    if (m <= 0 || n <= 0) return PS_SUCCESS; /* BLAS: y untouched, even for beta != 1 */
    if (ps__scalar_value(dt, *alpha) == 0) { /* BLAS: A and x not read, y = beta y */
        int len = trans == PS__NOTRANS ? m : n;
        ps__mat ym = {y.buf, y.off, y.inc};
        if (ps__scalar_value(dt, *beta) == 0) return clear_if_beta_zero(be, dt, beta, 1, len, ym);
        return ps_cl_scal(be, dt, len, beta, y);
    }
    if (ps_cl_own_gemv_takes(be, trans, x, y))
        return ps_cl_own_gemv(be, dt, m, n, alpha, a, x, beta, y);
    ps__mat ym = {y.buf, y.off, y.inc}; /* y as a 1 x len matrix */
    PS__TRY(clear_if_beta_zero(be, dt, beta, 1, trans == PS__NOTRANS ? m : n, ym));
    return check(be,
                 dt == PS__DOUBLE
                     ? CLBlastDgemv(COL, tr(trans), m, n, alpha->d, MEM(a), a.off, a.ld, MEM(x),
                                    x.off, x.inc, beta->d, MEM(y), y.off, y.inc, Q(be), EV(be))
                     : CLBlastSgemv(COL, tr(trans), m, n, alpha->s, MEM(a), a.off, a.ld, MEM(x),
                                    x.off, x.inc, beta->s, MEM(y), y.off, y.inc, Q(be), EV(be)),
                 "CLBlast gemv");
}

ps_status ps_cl_ger(ps__backend *be, ps__dtype dt, int m, int n, const ps__scalar *alpha, ps__vec x,
                    ps__vec y, ps__mat a) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? CLBlastDger(COL, m, n, alpha->d, MEM(x), x.off, x.inc, MEM(y),
                                                y.off, y.inc, MEM(a), a.off, a.ld, Q(be), EV(be))
                                  : CLBlastSger(COL, m, n, alpha->s, MEM(x), x.off, x.inc, MEM(y),
                                                y.off, y.inc, MEM(a), a.off, a.ld, Q(be), EV(be)),
                 "CLBlast ger");
}

/*
 * CLBlast's GEMM pads and transposes its operands into a workspace. Left to itself it creates
 * that buffer per call and releases it on return, and NVIDIA's OpenCL makes the release wait for
 * the kernels that use it: every large GEMM then blocked the host until it finished (LU with host
 * panels spent a quarter of its time queueing its updates), so nothing behind it could be
 * prepared meanwhile. The backend keeps one workspace instead, grown to the largest call so far
 * and given back when the context synchronizes (cl_sync) or closes; the queue is in order, so
 * calls never use it at the same time. Without memory for it, CLBlast allocates its own.
 */
#define PS_CL_GEMM_DIRECT_BELOW (256.0 * 256.0 * 256.0)

static cl_mem gemm_workspace(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m,
                             int n, int k, ps__mat a, ps__mat b, ps__mat c) {
    ps_cl_state *st = ps_cl(be);
    /* Asking for the size looks up CLBlast's tuning database on the host every time, and the LU
     * panel's recursion makes thousands of small products; those usually run CLBlast's direct
     * kernel, which needs no workspace (on POCL every product up to 520 x 500 x 480 did), and
     * where one does not, CLBlast makes its own workspace as it did before. */
    if ((double)m * n * k < PS_CL_GEMM_DIRECT_BELOW) return NULL;
    size_t bytes = 0;
    CLBlastStatusCode code =
        dt == PS__DOUBLE ? CLBlastDGemmTempBufferSize(COL, tr(ta), tr(tb), m, n, k, a.off, a.ld,
                                                      b.off, b.ld, c.off, c.ld, Q(be), &bytes)
                         : CLBlastSGemmTempBufferSize(COL, tr(ta), tr(tb), m, n, k, a.off, a.ld,
                                                      b.off, b.ld, c.off, c.ld, Q(be), &bytes);
    if (code != CLBlastSuccess || bytes == 0) return NULL;
    if (bytes > st->gemm_temp_bytes) {
        cl_int err;
        cl_mem grown = clCreateBuffer(st->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (err != CL_SUCCESS) return NULL;
        if (st->gemm_temp) clReleaseMemObject(st->gemm_temp);
        st->gemm_temp = grown;
        st->gemm_temp_bytes = bytes;
    }
    return st->gemm_temp;
}

ps_status ps_cl_gemm(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m, int n, int k,
                     const ps__scalar *alpha, ps__mat a, ps__mat b, const ps__scalar *beta,
                     ps__mat c) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    /* BLAS: with alpha = 0 (or k = 0) neither A nor B is read, and C = beta C, so C = 0 for
     * beta = 0 whatever C held; CLBlast and the own kernel would multiply NaN in A or B by 0 */
    if (k <= 0 || ps__scalar_value(dt, *alpha) == 0) {
        if (ps__scalar_value(dt, *beta) == 0) return clear_if_beta_zero(be, dt, beta, m, n, c);
        return scale_matrix(be, dt, m, n, beta, c, 0, PS__UPPER);
    }
    if (ps_cl_own_gemm_takes(be, dt, ta, tb, m, n, k))
        return ps_cl_own_gemm(be, dt, m, n, k, alpha, a, b, beta, c);
    PS__TRY(clear_if_beta_zero(be, dt, beta, m, n, c));
    /* without a workspace of ours (NULL), CLBlast makes its own */
    cl_mem temp = gemm_workspace(be, dt, ta, tb, m, n, k, a, b, c);
    CLBlastStatusCode code =
        dt == PS__DOUBLE
            ? CLBlastDgemmWithTempBuffer(COL, tr(ta), tr(tb), m, n, k, alpha->d, MEM(a), a.off,
                                         a.ld, MEM(b), b.off, b.ld, beta->d, MEM(c), c.off, c.ld,
                                         Q(be), EV(be), temp)
            : CLBlastSgemmWithTempBuffer(COL, tr(ta), tr(tb), m, n, k, alpha->s, MEM(a), a.off,
                                         a.ld, MEM(b), b.off, b.ld, beta->s, MEM(c), c.off, c.ld,
                                         Q(be), EV(be), temp);
    return check(be, code, "CLBlast gemm");
}

ps_status ps_cl_syrk(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, int n, int k,
                     const ps__scalar *alpha, ps__mat a, const ps__scalar *beta, ps__mat c) {
    if (n <= 0) return PS_SUCCESS;
    if (k <= 0) return scale_matrix(be, dt, n, n, beta, c, 1, uplo);
    return check(be,
                 dt == PS__DOUBLE
                     ? CLBlastDsyrk(COL, tri(uplo), tr(trans), n, k, alpha->d, MEM(a), a.off, a.ld,
                                    beta->d, MEM(c), c.off, c.ld, Q(be), EV(be))
                     : CLBlastSsyrk(COL, tri(uplo), tr(trans), n, k, alpha->s, MEM(a), a.off, a.ld,
                                    beta->s, MEM(c), c.off, c.ld, Q(be), EV(be)),
                 "CLBlast syrk");
}
