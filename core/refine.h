/* Mixed-precision iterative refinement on backend views (internal; the public entries are in
 * refine_api.c). */
#ifndef PS_CORE_REFINE_H
#define PS_CORE_REFINE_H

#include "context.h"

/*
 * Solves A X = B (double views; A n x n, B and X n x nrhs, B and X not overlapping) as LAPACK's
 * dsgesv does, under validated options o: the low-precision LU of A, then refinement in double
 * (classical, then GMRES-IR when it stalls), else the double LU of A in place. ipiv: device
 * int32 buffer of n entries (0-based), the pivots of whichever factorization X came from.
 * Fills res. PS_SUCCESS whenever X was computed (res->iter says how); PS_ERR_SINGULAR with
 * ctx->last_info when the double fallback meets an exactly zero pivot; PS_ERR_NON_FINITE when A
 * holds NaN/Inf; PS_ERR_NOT_SUPPORTED when the backend lacks o->precision.
 */
ps_status ps__dsgesv(ps_context *ctx, const char *fn, int n, int nrhs, ps__mat a, void *ipiv,
                     ps__mat b, ps__mat x, const ps_refine_options *o, ps_refine_result *res);

#endif
