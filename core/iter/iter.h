/* Iterative solvers on backend views (internal; the public entries are in iter_api.c). */
#ifndef PS_CORE_ITER_H
#define PS_CORE_ITER_H

#include "base/context.h"

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
 * mixed-precision refinement passes its low-precision LU solve (GMRES-IR). GMRES-IR's corrections
 * start from x = 0 and are judged by the caller's own residual, so it may also set x_zero (x is
 * zero on entry: its residual is b, and no product forms it), estimate_ends (the solve ends on the
 * method's residual estimate: no product forms the true residual after it, and the result's
 * rel_residual and converged are the estimate's) and enough (a relative residual, above o->tol, at
 * which the solve may already stop). seed_z, where its buffer is set (GMRES only, from x = 0): the
 * first Arnoldi step's preconditioned vector is given, with seed_az = A seed_z, instead of made by
 * a preconditioner application and a product (flexible GMRES takes any z_j with its product;
 * GMRES-IR passes its last classical correction and the change of residual it made). */
typedef struct ps__precond {
    ps_status (*apply)(void *arg, ps__vec v, ps__vec z);
    void *arg;
    int x_zero;
    int estimate_ends;
    double enough;
    ps__vec seed_z, seed_az;
} ps__precond;
/* ps__iter_solve with the preconditioner pc (NULL: as o->precond says). */
ps_status ps__iter_solve_precond(ps_context *ctx, const char *fn, ps_iter_method method,
                                 ps__dtype dt, int n, ps__mat a, ps__vec b, ps__vec x,
                                 const ps_iter_options *o, ps_iter_result *res,
                                 const ps__precond *pc);

#endif
