/*
 * The stationary methods, as full-vector sweeps on the device (the papers' formulation):
 *   Jacobi:        x_{k+1} = x_k + D^-1 (b - A x_k)
 *   Gauss-Seidel:  x_{k+1} = (D + L)^-1 (b - U x_k) = x_k + (D + L)^-1 (b - A x_k)
 * The second form of Gauss-Seidel needs only A itself: one gemv for the residual (whose norm is
 * also the convergence test, so it costs nothing extra) and one triangular solve with the lower
 * triangle of A, which is D + L. No host loop over rows.
 */
#include "iter/iter_impl.h"

/* One loop for both: correct x by the method's splitting of r = b - A x, then form the new
 * residual, whose norm is the convergence test. */
static ps_status sweep(ps__solver *s, int gauss_seidel) {
    ps__vec r = ps__solver_vec(s, 0);
    PS__TRY(ps__iter_start_residual(s, r));
    for (;;) {
        if (gauss_seidel)
            PS__TRY(s->ops->trsv(s->be, s->dt, PS__LOWER, PS__NOTRANS, PS__NONUNIT, s->n, s->a, r));
        else
            PS__TRY(s->ops->vmul(s->be, s->dt, s->n, s->dinv, r));
        PS__TRY(ps__iter_axpy(s, 1.0, r, s->x));
        PS__TRY(ps__iter_residual(s, s->x, r));
        double nr;
        int done;
        PS__TRY(ps__iter_nrm2(s, r, &nr));
        PS__TRY(ps__iter_step(s, nr / s->bnorm, &done));
        if (done) return PS_SUCCESS;
    }
}

ps_status ps__iter_jacobi(ps__solver *s) {
    return sweep(s, 0);
}

ps_status ps__iter_gauss_seidel(ps__solver *s) {
    return sweep(s, 1);
}
