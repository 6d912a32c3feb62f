/* Iterative solvers on backend views (internal; the public entries are in iter_api.c). */
#ifndef PS_CORE_ITER_H
#define PS_CORE_ITER_H

#include "context.h"

/*
 * Solves A x = b (A n x n, b and x vectors) with method, starting from x, under validated
 * options o. Fills res and returns PS_SUCCESS when the true relative residual of the returned x
 * is at most o->tol; otherwise PS_ERR_NO_CONVERGENCE, PS_ERR_BREAKDOWN or PS_ERR_ZERO_DIAGONAL
 * with the message and info set (x is then the best iterate; for a zero diagonal, unchanged).
 */
ps_status ps__iter_solve(ps_context *ctx, const char *fn, ps_iter_method method, ps__dtype dt,
                         int n, ps__mat a, ps__vec b, ps__vec x, const ps_iter_options *o,
                         ps_iter_result *res);

/* A preconditioner given by the caller instead of o->precond: z = M^-1 v (z may be v). The
 * mixed-precision refinement passes its low-precision LU solve (GMRES-IR). a_float, where its
 * buffer is set (double solves only): A rounded to float, n x n, which the method's products
 * with A and its residuals then read instead of a, each product and sum in double (the
 * backend's gemv_mixed): half the bytes a step, for a system that is A's only to float's
 * accuracy (GMRES-IR's optional cheaper operator). a_lo, where its buffer is set too: the low
 * parts of A's split in six bytes an entry (the backend's split_double, binary16, A = a_float +
 * 2^-lo_shift a_lo to about 2^-35 relative), read with a_float by the backend's gemv_split:
 * three quarters of a double product's bytes, for a system that is A's to that accuracy.
 * GMRES-IR's corrections start from x = 0 and are judged by the caller's own residual, so it
 * may also set x_zero (x is zero on entry: its residual is b, and no product forms it),
 * estimate_ends (the solve ends on the method's residual estimate: no product forms the true
 * residual after it, and the result's rel_residual and converged are the estimate's) and enough
 * (a relative residual, above o->tol, at which the solve may already stop). seed_z, where its
 * buffer is set (GMRES only, from x = 0): the first Arnoldi step's preconditioned vector is given,
 * with seed_az = A seed_z, instead of made by a preconditioner application and a product (flexible
 * GMRES takes any z_j with its product; GMRES-IR passes its last classical correction and the
 * change of residual it made). check, where set (GMRES with this preconditioner): called when the
 * estimate first meets the stop (tol or enough), with the iterate t that stop would return and
 * the estimate; it sets *accept (GMRES ends there, as it would have) or else *enough, a smaller
 * stop GMRES goes on to within its cycle (GMRES-IR's optional check of its own test). */
typedef struct ps__precond {
    ps_status (*apply)(void *arg, ps__vec v, ps__vec z);
    void *arg;
    ps__mat a_float;
    ps__mat a_lo;
    int lo_shift;
    int x_zero;
    int estimate_ends;
    double enough;
    ps__vec seed_z, seed_az;
    ps_status (*check)(void *arg, ps__vec t, double estimate, int *accept, double *enough);
} ps__precond;
/* ps__iter_solve with the preconditioner pc (NULL: as o->precond says). */
ps_status ps__iter_solve_precond(ps_context *ctx, const char *fn, ps_iter_method method,
                                 ps__dtype dt, int n, ps__mat a, ps__vec b, ps__vec x,
                                 const ps_iter_options *o, ps_iter_result *res,
                                 const ps__precond *pc);

#endif
