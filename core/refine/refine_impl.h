/* The state of one mixed-precision solve (core/refine/refine.c: refinement;
 * core/refine/refine_low.c: the low-precision factorization), shared by those two files only. */
#ifndef PS_CORE_REFINE_IMPL_H
#define PS_CORE_REFINE_IMPL_H

#include "refine/refine.h"
#include "refine/trsv_blocked.h"

typedef struct refine {
    ps_context *ctx;
    ps__backend *be;
    const ps__backend_ops *ops;
    const char *fn;
    int n, nrhs;
    ps__mat a, b, x;
    int nf;     /* the low-precision LU's order: diag(A, I) of ps__aligned_order(n) */
    ps__mat af; /* the low-precision factors, n x n float (nf x nf while the LU runs) */
    ps__mat r;  /* double n x nrhs: residuals, then corrections */
    ps__mat rf; /* float n x nrhs: the right-hand sides of the low-precision solves */
    ps__mat rp; /* float n x nrhs: the same with the pivots' permutation applied */
    ps__mat dv; /* double n: GMRES-IR's preconditioner's transformed vector */
    ps__mat d;  /* double n x nrhs: GMRES-IR's corrections */
    /* With GMRES-IR and one right-hand side: each classical step's correction goes to z_last and
     * the residual it started from stays in r_prev (the two swap with r), so that GMRES-IR can
     * start from the step before the last with that step as its first Arnoldi step (seeded) */
    ps__mat z_last, r_prev;
    double prev_rnrm, prev_xnrm; /* the norms of that step before the last */
    int seeded;                  /* z_last and r_prev hold such a step */
    ps__mat ad; /* GMRES-IR: the low-precision factors widened to double (NULL: not made) */
    int mixed;  /* GMRES-IR: the backend solves with the float factors in double (trsv_mixed) */
    ps__trsv_blocked blocked; /* GMRES-IR: the same by inverted diagonal blocks (nb 0: not) */
    ps__scratch *scratch;     /* the call's allocations */
    void *ipiv;               /* device pivots */
    void *perm;               /* device int32 n: the pivots as the permutation they amount to */
    void *flag;               /* device int32: getrf's info, convert's overflow */
    void *inv_flag;           /* device int32: convert's overflow for the inverses made early */
    double scale;  /* what A and every right-hand side are multiplied by before narrowing */
    void *rbt[2];  /* RBT: device weights of L and of R (2n doubles each); NULL: no RBT */
    double anrm;   /* ||A||_inf */
    double cte;    /* LAPACK's test, kept with a margin (ps__refine_tolerance) */
    double *rnrm;  /* host, per column: ||r_j||_inf */
    double *xnrm;  /* host, per column: ||x_j||_inf */
    double worst;  /* max_j ||r_j|| / ||x_j|| of the last residual (NaN when not finite) */
    int converged; /* every column passes the test */
} refine;

/* dst = narrow(scale * L src R) (float n x cols; L = I without RBT, R = I unless right is given:
 * the matrix's own transformation); with transposed (no RBT), dst = narrow(scale src^T), cols x n.
 * With overflow, *overflow says whether a value did not fit (a device flag read back: one
 * synchronization); without, nothing is checked. */
ps_status ps__refine_narrow(refine *w, int cols, ps__mat src, ps__mat dst, const void *right,
                            int transposed, int *overflow);
/* A's scaling, narrowing and low-precision LU (with RBT or not, inverting GMRES-IR's diagonal
 * blocks while it runs where that pays); *code: LAPACK's reason to fall back (-2, -3) or 0. */
ps_status ps__refine_factor_low(refine *w, const ps_refine_options *o, int *code);

#endif
