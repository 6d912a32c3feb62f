/* The OpenCL backend's inversion and Gauss-Jordan entries: trmm on CLBlast, and the kernels of
 * kernels_cl/gj.cl (column interchanges, the striped solver's tile update). */
#include "cl_internal.h"

#include <clblast_c.h>

ps_status ps_cl_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                     ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    CLBlastSide sd = side == PS__RIGHT ? CLBlastSideRight : CLBlastSideLeft;
    CLBlastTriangle tri = uplo == PS__LOWER ? CLBlastTriangleLower : CLBlastTriangleUpper;
    CLBlastTranspose tr = trans == PS__TRANS ? CLBlastTransposeYes : CLBlastTransposeNo;
    CLBlastDiagonal dg = diag == PS__UNIT ? CLBlastDiagonalUnit : CLBlastDiagonalNonUnit;
    cl_command_queue *q = &ps_cl(be)->queue;
    CLBlastStatusCode code =
        dt == PS__DOUBLE
            ? CLBlastDtrmm(CLBlastLayoutColMajor, sd, tri, tr, dg, m, n, alpha->d, (cl_mem)a.buf,
                           a.off, a.ld, (cl_mem)b.buf, b.off, b.ld, q, NULL)
            : CLBlastStrmm(CLBlastLayoutColMajor, sd, tri, tr, dg, m, n, alpha->s, (cl_mem)a.buf,
                           a.off, a.ld, (cl_mem)b.buf, b.off, b.ld, q, NULL);
    if (code == CLBlastSuccess) return PS_SUCCESS;
    return ps_cl_fail(be, (cl_int)code, "CLBlast trmm");
}

ps_status ps_cl_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                       const void *ipiv, size_t ipiv_off, int forward) {
    if (nrows <= 0 || k2 <= k1) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_GJ, dt, "ps_colswp", &k));
    cl_mem buf = (cl_mem)a.buf, piv = (cl_mem)ipiv;
    cl_ulong off = a.off, poff = ipiv_off;
    const size_t sizes[] = {sizeof nrows, sizeof buf, sizeof off,  sizeof a.ld,   sizeof k1,
                            sizeof k2,    sizeof piv, sizeof poff, sizeof forward};
    const void *const values[] = {&nrows, &buf, &off, &a.ld, &k1, &k2, &piv, &poff, &forward};
    size_t local = 64, items = (size_t)nrows;
    return ps_cl_launch(be, k, "ps_colswp", 9, sizes, values, 1, &items, &local);
}

ps_status ps_cl_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s, ps__mat ji,
                                 ps__mat ik, ps__mat jk) {
    if (m <= 0 || ncols <= 0 || s <= 0) return PS_SUCCESS;
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_GJ, dt, "ps_gj_stripe_update", &k));
    cl_mem jib = (cl_mem)ji.buf, ikb = (cl_mem)ik.buf, jkb = (cl_mem)jk.buf;
    cl_ulong jio = ji.off, iko = ik.off, jko = jk.off;
    const size_t sizes[] = {sizeof m,     sizeof ncols, sizeof s,   sizeof jib,
                            sizeof jio,   sizeof ji.ld, sizeof ikb, sizeof iko,
                            sizeof ik.ld, sizeof jkb,   sizeof jko, sizeof jk.ld};
    const void *const values[] = {&m,   &ncols, &s,     &jib, &jio, &ji.ld,
                                  &ikb, &iko,   &ik.ld, &jkb, &jko, &jk.ld};
    /* one 16 x 16 work-group per 64 x 64 block of jk */
    const size_t items[2] = {(size_t)(m + 63) / 64 * 16, (size_t)(ncols + 63) / 64 * 16};
    const size_t local[2] = {16, 16};
    return ps_cl_launch(be, k, "ps_gj_stripe_update", 12, sizes, values, 2, items, local);
}
