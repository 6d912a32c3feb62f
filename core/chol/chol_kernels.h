/* The Cholesky kernel family: the fused kernels of the blocked and recursive Cholesky
 * (core/chol/chol.c) that a backend may fill. The defaults are in chol_kernels.c. */
#ifndef PS_CORE_CHOL_KERNELS_H
#define PS_CORE_CHOL_KERNELS_H

#include "../backend.h"

#define PS__CHOL_KERNELS_ABI 1

typedef struct ps__chol_kernels {
    ps__family_header header; /* PS__CHOL_KERNELS_ABI, sizeof(ps__chol_kernels) */
    /* Unblocked Cholesky of the n x n view a (n <= potrf_width) in place, A = L L^T (uplo lower,
     * the lower triangle is read and written) or A = U^T U (upper). Does nothing when info[0] is
     * nonzero on entry (an earlier block failed). When the pivot of column j is not positive (or
     * NaN), sets info[0] = index_base + j + 1 and stops there, leaving a(j,j) as updated so far
     * (LAPACK dpotf2). info is an int32 buffer. */
    ps_status (*potrf_panel)(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                             void *info, int index_base);
    /* Widest diagonal block potrf_panel takes (core recurses above it). */
    int (*potrf_width)(ps__backend *be, ps__dtype dt);
    /* The blocked factorization's leaf, a tall panel: the leading n x n block of the m x n view
     * a (m >= n, n <= potrf_width) is factored as potrf_panel does, and the m - n rows below it
     * become A21 L11^-T; upper: a is the n x m view, and the columns right of U11 become U11^-T
     * A12. After a failure (info set here or on entry) the part below is unspecified. The default
     * is potrf_panel and one trsm; a GPU backend fuses the two into one launch. */
    ps_status (*potrf_tall)(ps__backend *be, ps__dtype dt, ps__uplo uplo, int m, int n, ps__mat a,
                            void *info, int index_base);
} ps__chol_kernels;

const ps__chol_kernels *ps__chol_kernels_defaults(void);
/* Whether a leading minor has failed, where the info word lies in host memory (the CPU
 * backend): the factorization then stops there, as LAPACK's, and leaves the rest of the
 * triangle as the steps so far made it. On a device the word is not read inside the
 * factorization; what steps past a failure leave is then unspecified. */
int ps__chol_failed_on_host(ps__backend *be, void *info);
static inline const ps__chol_kernels *ps__chol(ps__backend *be) {
    return (const ps__chol_kernels *)ps__family(be, PS__FAMILY_CHOL,
                                                &ps__chol_kernels_defaults()->header);
}

#endif
