/* Mixed-precision iterative refinement on backend views (internal; the public entries are in
 * refine_api.c). */
#ifndef PS_CORE_REFINE_H
#define PS_CORE_REFINE_H

#include "base/context.h"

#include <float.h>
#include <math.h>

/* The refinement test (LAPACK's): a column is done when its computed ||r||_inf <= ||x||_inf tol.
 * LAPACK's tol is ||A||_inf eps sqrt(n); a residual formed in another order (LAPACK's testers
 * recompute it) differs from the computed one by about a unit of eps ||A|| ||x||, so a claim
 * keeps PS__REFINE_ROUNDING such units below the threshold. At n <= 4 the tolerance is not
 * positive: no claim can be made, and the solve falls back to double at once. */
#define PS__REFINE_ROUNDING 2.0
static inline double ps__refine_tolerance(double anrm, int n) {
    return anrm * (DBL_EPSILON / 2) * (sqrt((double)n) - PS__REFINE_ROUNDING);
}

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

/* The refinement options in force on ctx: those ps_context_set_refine_options set, else the
 * defaults with the tuning's ir_precision, ir_factor and ir_gmres. */
ps_refine_options ps__refine_options(const ps_context *ctx);

#endif
