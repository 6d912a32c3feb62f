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
/* max_j ||x_j - xtrue_j||_inf / (||xtrue_j||_inf cond n eps): LAPACK's dget04 with the known
 * 2-norm condition number in place of its 1-norm estimate, and the order n that the backward
 * error bound carries (as in the residual ratio). */
double ps_check_forward_ratio(ps_dtype dt, int n, int nrhs, const void *x, int ldx,
                              const void *xtrue, int ldt, double cond);
/* ||A - F F^T||_1 / (||A||_1 n eps) for potrf's output (LAPACK dpot01): F is the lower
 * triangle L (uplo 'L') or the transpose of the upper triangle U (uplo 'U') of the array F. */
double ps_check_chol_ratio(ps_dtype dt, char uplo, int n, const void *A, int lda, const void *F,
                           int ldf);
/* ||P A - W Z||_1 / (||A||_1 n eps) for wztrf's packed output F and its 1-based ipiv (the
 * interchanges applied in step order: row k, then row n-1-k, for k = 0, 1, ...). */
double ps_check_wz_ratio(ps_dtype dt, int n, const void *A, int lda, const void *F, int ldf,
                         const int *ipiv);
/* ||I - A X||_1 / (||A||_1 ||X||_1 n eps) for a computed inverse X (LAPACK dget03). */
double ps_check_inverse_ratio(ps_dtype dt, int n, const void *A, int lda, const void *X, int ldx);
#endif
