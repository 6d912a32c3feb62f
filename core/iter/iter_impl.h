/*
 * Shared machinery of the iterative solvers: the solver state, vector helpers over the backend
 * table, residual bookkeeping. Internal to iter*.c.
 */
#ifndef PS_CORE_ITER_IMPL_H
#define PS_CORE_ITER_IMPL_H

#include "iter/cg_scalars.h"
#include "iter/iter.h"

/* How a method's own loop ended; the driver then checks the true residual. */
typedef enum ps__iter_end {
    PS__ITER_TOL_MET = 0, /* the method's residual estimate reached tol */
    PS__ITER_MAX_ITER,    /* max_iter iterations done */
    PS__ITER_BREAKDOWN,   /* a zero divisor; s->why says which */
    PS__ITER_DIVERGED     /* the residual became NaN or Inf */
} ps__iter_end;

typedef struct ps__solver {
    ps_context *ctx;
    ps__backend *be;
    const ps__backend_ops *ops;
    ps__dtype dt;
    int n;
    ps__mat a;
    ps__vec b, x;
    const ps_iter_options *o;
    ps_iter_result *res;
    double bnorm;          /* ||b||_2, > 0 */
    double tol;            /* the relative residual that ends the solve: o->tol, or the caller's
                            * larger ps__precond enough */
    int precond;           /* apply dinv as the preconditioner */
    const ps__precond *pc; /* the caller's preconditioner instead (NULL: none) */
    ps__vec dinv;          /* 1 / diag(A), set up when a method or the preconditioner needs it */
    ps__vec xbest;
    double best;     /* relative residual estimate of xbest */
    double last_rel; /* the latest relative residual: the driver's, or the method's estimate */
    int x_is_best;   /* x is the iterate in xbest (its last recorded step was the best so far) */
    ps__vec rstart;  /* b - A x for x at the method's entry, while rstart_valid (the driver's) */
    int rstart_valid;
    void *work;    /* the device workspace the vectors are carved from */
    size_t stride; /* elements between vectors (n rounded up, for aligned access) */
    ps__vec extra; /* the method's extra elements after the vectors (GMRES: h) */
    int iterations;
    ps__iter_end end; /* set by the method when it returns PS_SUCCESS */
    char why[160];    /* the breakdown's cause */
} ps__solver;

/* Vector number k of the workspace (k < the count the method asked for). */
static inline ps__vec ps__solver_vec(ps__solver *s, int k) {
    ps__vec v = {s->work, (size_t)k * s->stride, 1};
    return v;
}

/* Conjugate-gradient steps per cg_steps call (the backend may end a call early, at the step
 * that stops the iteration). */
#define PS__CG_STEPS_PER_CALL 32

/* Vector workspace each method needs (vectors of n) and extra elements (GMRES's h); flexible:
 * GMRES keeps its preconditioned vectors (a caller's preconditioner, see iter_gmres.c). */
int ps__iter_vectors(ps_iter_method method, int n, int restart, int flexible, int *extra);

/* y = b - A x. */
ps_status ps__iter_residual(ps__solver *s, ps__vec x, ps__vec r);
/* r = b - A x for s->x at the method's entry: the driver's true residual when it still holds
 * (once per entry, before x changes), else a product. */
ps_status ps__iter_start_residual(ps__solver *s, ps__vec r);
/* y = A x. */
ps_status ps__iter_matvec(ps__solver *s, ps__vec x, ps__vec y);
ps_status ps__iter_dot(ps__solver *s, ps__vec x, ps__vec y, double *out);
ps_status ps__iter_nrm2(ps__solver *s, ps__vec x, double *out);
ps_status ps__iter_axpy(ps__solver *s, double alpha, ps__vec x, ps__vec y);
ps_status ps__iter_scal(ps__solver *s, double alpha, ps__vec x);
ps_status ps__iter_copy(ps__solver *s, ps__vec x, ps__vec y);
/* z = M^-1 v: the caller's or the Jacobi preconditioner into z, or z = v (returned as *out)
 * without one. */
ps_status ps__iter_precond(ps__solver *s, ps__vec v, ps__vec z, ps__vec *out);
/* Counts one iteration whose relative residual (estimate) is rel: appends it to the history
 * and keeps x as the best iterate when it improves (when xbest is set). Sets *done when the
 * loop must end (tol met, max_iter reached, or rel not finite) and s->end to why. */
ps_status ps__iter_step(ps__solver *s, double rel, int *done);
/* The same with the tol test decided by the caller (met), for methods whose stop decision was
 * taken on the device; the best iterate is then the method's business (s->best is updated). */
ps_status ps__iter_step_met(ps__solver *s, double rel, int met, int *done);
/* Host doubles to count elements of the data's precision at the device vector dst. */
ps_status ps__iter_upload_scalars(ps__solver *s, const double *v, int count, ps__vec dst);
/* fetch_wait of count elements of src through slot, as host doubles into out; raw holds count
 * elements of the data's precision. */
ps_status ps__iter_fetch(ps__solver *s, int slot, int count, ps__vec src, void *raw, double *out);
/* Records a breakdown (printf-style cause) and ends the loop. */
ps_status ps__iter_breakdown(ps__solver *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The methods: run from s->x until their loop ends; PS_SUCCESS unless the backend failed, with
 * s->end saying how the loop ended. On entry the residual of x is above tol and max_iter > 0. */
ps_status ps__iter_jacobi(ps__solver *s);
ps_status ps__iter_gauss_seidel(ps__solver *s);
ps_status ps__iter_cg(ps__solver *s);
ps_status ps__iter_bicgstab(ps__solver *s);
ps_status ps__iter_gmres(ps__solver *s);

#endif
