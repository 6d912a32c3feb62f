/* Cholesky on backend views (internal; the public entries are in chol_api.c). */
#ifndef PS_CORE_CHOL_H
#define PS_CORE_CHOL_H

#include "base/context.h"

/* Factors the n x n view a in place (the uplo triangle). info: a device int32 buffer, set to 0
 * here and to the 1-based order of the first leading minor that is not positive definite. */
ps_status ps__potrf(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a, void *info);
/* ps__potrf's recursive factorization on its own, queued on the current lane, info not reset:
 * once info holds a failure every later leaf does nothing, and the first failure sets it to
 * index_base plus the order of the minor (the distributed layer's diagonal blocks). */
ps_status ps__potrf_recursive(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                              void *info, int index_base);
/* ps__potrf of the n x n view a through an aligned copy, diag(A, I) of order
 * ps__aligned_order(n) with columns of ps__device_ld: only a's uplo triangle is copied, each way
 * (its other triangle is neither read nor written); *copied 0 (and nothing done, no message
 * left) where the device lacks the memory for the copy. */
ps_status ps__potrf_in_copy(ps__scratch *s, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                            void *info, int *copied);
/* Solves A X = B (n x nrhs) with ps__potrf's factor. */
ps_status ps__potrs(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n, int nrhs, ps__mat a,
                    ps__mat b);

#endif
