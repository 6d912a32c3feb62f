/*
 * Blocked triangular solve for the OpenCL backend: a substitution kernel on each diagonal
 * block (kernels_cl/trsm.cl, ps_trsm_diag) and ps_cl_gemm (portsolve's GEMM or CLBlast's) for
 * the updates between blocks.
 *
 * Why not CLBlast's Xtrsm: it inverts the diagonal blocks and multiplies by the inverses,
 * which is not backward stable; on NVIDIA's OpenCL the LU solve of a cond-1e12 matrix of order
 * 5 gave a scaled residual of 39 (> 30) with it. Substitution keeps the residual at LAPACK's
 * level. Blocks of 64 keep almost all flops in GEMM.
 *
 * A single right-hand side (getrs with one vector, the refinement and GMRES-IR solves, and the
 * trsv entry, Gauss-Seidel's sweep, for which CLBlast's trsv took 0.5 s at n = 20000) takes
 * CLBlast gemv between the blocks instead of a GEMM of one column or row.
 */
#include "cl_internal.h"

#define PS_CL_TRSM_BLOCK 64 /* PS_TRSM_BLOCK in kernels_cl/trsm.cl */

/* Solves the bs x bs diagonal block t against `count` columns (left) or rows (right) of b. */
static ps_status diag_solve(ps__backend *be, ps__dtype dt, int right, int lower, int trans,
                            int unit, int bs, int count, ps__mat t, ps__mat b) {
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_TRSM, dt, "ps_trsm_diag", &k));
    cl_mem tb = (cl_mem)t.buf, bb = (cl_mem)b.buf;
    cl_ulong toff = t.off, boff = b.off;
    const size_t sizes[] = {sizeof right, sizeof lower, sizeof trans, sizeof unit,
                            sizeof bs,    sizeof count, sizeof tb,    sizeof toff,
                            sizeof t.ld,  sizeof bb,    sizeof boff,  sizeof b.ld};
    const void *const values[] = {&right, &lower, &trans, &unit, &bs,   &count,
                                  &tb,    &toff,  &t.ld,  &bb,   &boff, &b.ld};
    size_t local = PS_CL_TRSM_BLOCK, items = (size_t)count;
    return ps_cl_launch(be, k, "ps_trsm_diag", 12, sizes, values, 1, &items, &local);
}

/* b(rest) -= op(ablk) x for the update between blocks: GEMM, or gemv for a single vector,
 * where CLBlast's GEMM of one column or row is the slower call. vectors is the count of right-hand
 * sides; left: rest (rn x vectors), x (kb x vectors); right: rest (vectors x rn), x (vectors x
 * kb), op(ablk) then applied from the right. */
static ps_status update(ps__backend *be, ps__dtype dt, int right, ps__trans trans, int rn, int kb,
                        int vectors, ps__mat ablk, ps__mat x, ps__mat rest) {
    ps__scalar minus_one = ps__scalar_of(dt, -1.0), one = ps__scalar_of(dt, 1.0);
    int tr = trans == PS__TRANS;
    if (vectors == 1 && !right) /* rest -= op(ablk) x, both columns */
        return ps_cl_gemv(be, dt, trans, tr ? kb : rn, tr ? rn : kb, &minus_one, ablk,
                          (ps__vec){x.buf, x.off, 1}, &one, (ps__vec){rest.buf, rest.off, 1});
    if (vectors == 1) /* rest^T -= op(ablk)^T x^T, both rows */
        return ps_cl_gemv(be, dt, tr ? PS__NOTRANS : PS__TRANS, tr ? rn : kb, tr ? kb : rn,
                          &minus_one, ablk, (ps__vec){x.buf, x.off, x.ld}, &one,
                          (ps__vec){rest.buf, rest.off, rest.ld});
    if (!right)
        return ps_cl_gemm(be, dt, trans, PS__NOTRANS, rn, vectors, kb, &minus_one, ablk, x, &one,
                          rest);
    return ps_cl_gemm(be, dt, PS__NOTRANS, trans, vectors, rn, kb, &minus_one, x, ablk, &one, rest);
}

ps_status ps_cl_trsm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                     ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    double al = ps__scalar_value(dt, *alpha);
    if (al == 0.0) return ps_cl_fill(be, dt, m, n, alpha, b);
    if (al != 1.0) PS__TRY(ps_cl_scale2d(be, dt, m, n, alpha, b));
    int right = side == PS__RIGHT, tr = trans == PS__TRANS, unit = diag == PS__UNIT;
    int lower = (uplo == PS__LOWER) != tr; /* op(A) is lower triangular */
    int na = right ? n : m, nblocks = (na + PS_CL_TRSM_BLOCK - 1) / PS_CL_TRSM_BLOCK;
    /* Left: op(A) lower solves forward. Right (X op(A) = B): op(A) upper solves forward. */
    int forward = right ? !lower : lower;
    for (int s = 0; s < nblocks; s++) {
        int blk = forward ? s : nblocks - 1 - s;
        int k0 = blk * PS_CL_TRSM_BLOCK;
        int kb = na - k0 < PS_CL_TRSM_BLOCK ? na - k0 : PS_CL_TRSM_BLOCK;
        ps__mat t = ps__mat_at(a, k0, k0);
        if (!right) {
            ps__mat xk = ps__mat_at(b, k0, 0);
            PS__TRY(diag_solve(be, dt, 0, lower, tr, unit, kb, n, t, xk));
            /* the rows still to solve: below the block (forward) or above it (backward) */
            int r0 = forward ? k0 + kb : 0, rn = forward ? m - k0 - kb : k0;
            if (rn <= 0) continue;
            /* op(A)[r0.., k0..] = A[r0.., k0..] or, transposed, A[k0.., r0..]^T */
            ps__mat ablk = tr ? ps__mat_at(a, k0, r0) : ps__mat_at(a, r0, k0);
            PS__TRY(update(be, dt, 0, trans, rn, kb, n, ablk, xk, ps__mat_at(b, r0, 0)));
        } else {
            ps__mat xk = ps__mat_at(b, 0, k0);
            PS__TRY(diag_solve(be, dt, 1, lower, tr, unit, kb, m, t, xk));
            int c0 = forward ? k0 + kb : 0, cn = forward ? n - k0 - kb : k0;
            if (cn <= 0) continue;
            /* op(A)[k0.., c0..] = A[k0.., c0..] or, transposed, A[c0.., k0..]^T */
            ps__mat ablk = tr ? ps__mat_at(a, c0, k0) : ps__mat_at(a, k0, c0);
            PS__TRY(update(be, dt, 1, trans, cn, kb, m, ablk, xk, ps__mat_at(b, 0, c0)));
        }
    }
    return PS_SUCCESS;
}

/* One vector as the one column of a left solve (stride 1) or, any stride, the one row of a right
 * solve with op(A) transposed: x op(A)^T = b is op(A) x^T = b^T. */
ps_status ps_cl_trsv(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, ps__diag diag,
                     int n, ps__mat a, ps__vec x) {
    ps__scalar one = ps__scalar_of(dt, 1.0);
    if (x.inc == 1)
        return ps_cl_trsm(be, dt, PS__LEFT, uplo, trans, diag, n, 1, &one, a,
                          (ps__mat){x.buf, x.off, n > 1 ? n : 1});
    return ps_cl_trsm(be, dt, PS__RIGHT, uplo, trans == PS__TRANS ? PS__NOTRANS : PS__TRANS, diag,
                      1, n, &one, a, (ps__mat){x.buf, x.off, x.inc});
}
