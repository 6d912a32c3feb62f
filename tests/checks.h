/* LAPACK-style accuracy ratios (after LAPACK's testing routines dget01/dget02), computed in
 * double for both precisions with the data's own epsilon. Below 30 passes, as in LAPACK. */
#ifndef PS_TEST_CHECKS_H
#define PS_TEST_CHECKS_H

#include "portsolve.h"

#define PS_TEST_THRESHOLD 30.0

/* max_j ||b_j - op(A) x_j||_1 / (||op(A)||_1 ||x_j||_1 n eps); 0 when n or nrhs is 0. */
double ps_check_solve_ratio(ps_dtype dt, char trans, int n, int nrhs, const void *A, int lda,
                            const void *X, int ldx, const void *B, int ldb);
/* ||P A - L U||_1 / (||A||_1 max(m,n) eps) for getrf's output LU (m x n) and 1-based ipiv. */
double ps_check_lu_ratio(ps_dtype dt, int m, int n, const void *A, int lda, const void *LU,
                         int ldlu, const int *ipiv);
/* ||x - y||_1 / ||y||_1 over an n x nrhs block. */
double ps_check_rel_diff(ps_dtype dt, int n, int nrhs, const void *x, int ldx, const void *y,
                         int ldy);

#endif
