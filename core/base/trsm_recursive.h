/*
 * Triangular solves split recursively into GEMMs (Elmroth, Gustavson, Jonsson and Kagstrom,
 * SIAM Review 2004): op(A) X = alpha B or X op(A) = alpha B, A triangular of order t, halves of
 * A until at most leaf columns, the backend's trsm at the leaves and GEMM for the coupling
 * blocks. The arithmetic is the same substitution as a blocked trsm (no inverse is formed), so
 * it is as accurate for any triangle, ill-conditioned ones included; what changes is where the
 * flops run: all but about leaf / t of them in GEMM. cuBLAS's dtrsm with a triangle of 512 and
 * thousands of right-hand sides ran at about 4 TFLOP/s on an H100, against some 50 for DGEMM.
 *
 * Header only and on the backend alone, so that a backend module can use it too (the CUDA
 * backend's trsm splits its triangles down to its own small-triangle kernel this way).
 */
#ifndef PS_CORE_TRSM_RECURSIVE_H
#define PS_CORE_TRSM_RECURSIVE_H

#include "backend.h"

/* The split of a triangle of order t: a multiple of 32 near the middle. */
static inline int ps__trsm_split_of(int t) {
    int h = t / 2;
    return h >= 64 ? h / 32 * 32 : h;
}

/* The backend's trsm (no transposition) on the same arguments, with the triangle halved until
 * its order is at most leaf (leaf < 1: not at all) and the coupling blocks done by GEMM. */
static inline ps_status ps__trsm_recursive(ps__backend *be, ps__dtype dt, ps__side side,
                                           ps__uplo uplo, ps__diag diag, int m, int n,
                                           const ps__scalar *alpha, ps__mat a, ps__mat b,
                                           int leaf) {
    const ps__backend_ops *ops = be->ops;
    int t = side == PS__LEFT ? m : n;
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    if (t <= leaf || leaf < 1)
        return ops->trsm(be, dt, side, uplo, PS__NOTRANS, diag, m, n, alpha, a, b);
    int t1 = ps__trsm_split_of(t), t2 = t - t1;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    ps__mat a11 = a, a22 = ps__mat_at(a, t1, t1);
    /* The half solved first, the coupling block, the half solved second (with alpha folded
     * into the first solve and the update's beta). */
    if (side == PS__LEFT) {
        ps__mat b1 = b, b2 = ps__mat_at(b, t1, 0);
        if (uplo == PS__LOWER) { /* X1 = A11 \ alpha B1; B2 = alpha B2 - A21 X1; X2 = A22 \ B2 */
            PS__TRY(ps__trsm_recursive(be, dt, side, uplo, diag, t1, n, alpha, a11, b1, leaf));
            PS__TRY(ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, t2, n, t1, &minus_one,
                              ps__mat_at(a, t1, 0), b1, alpha, b2));
            return ps__trsm_recursive(be, dt, side, uplo, diag, t2, n, &one, a22, b2, leaf);
        }
        /* upper: X2 = A22 \ alpha B2; B1 = alpha B1 - A12 X2; X1 = A11 \ B1 */
        PS__TRY(ps__trsm_recursive(be, dt, side, uplo, diag, t2, n, alpha, a22, b2, leaf));
        PS__TRY(ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, t1, n, t2, &minus_one,
                          ps__mat_at(a, 0, t1), b2, alpha, b1));
        return ps__trsm_recursive(be, dt, side, uplo, diag, t1, n, &one, a11, b1, leaf);
    }
    ps__mat b1 = b, b2 = ps__mat_at(b, 0, t1);
    if (uplo == PS__UPPER) { /* X1 = alpha B1 / A11; B2 = alpha B2 - X1 A12; X2 = B2 / A22 */
        PS__TRY(ps__trsm_recursive(be, dt, side, uplo, diag, m, t1, alpha, a11, b1, leaf));
        PS__TRY(ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m, t2, t1, &minus_one, b1,
                          ps__mat_at(a, 0, t1), alpha, b2));
        return ps__trsm_recursive(be, dt, side, uplo, diag, m, t2, &one, a22, b2, leaf);
    }
    /* lower: X2 = alpha B2 / A22; B1 = alpha B1 - X2 A21; X1 = B1 / A11 */
    PS__TRY(ps__trsm_recursive(be, dt, side, uplo, diag, m, t2, alpha, a22, b2, leaf));
    PS__TRY(ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m, t1, t2, &minus_one, b2,
                      ps__mat_at(a, t1, 0), alpha, b1));
    return ps__trsm_recursive(be, dt, side, uplo, diag, m, t1, &one, a11, b1, leaf);
}

#endif
