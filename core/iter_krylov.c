/*
 * Conjugate gradients and BiCGSTAB, each with the optional Jacobi preconditioner M = diag(A).
 * Per iteration: CG one gemv, two or three reductions (dot/nrm2, the only host reads) and
 * fused vector updates; BiCGSTAB two gemv and five reductions. The direction updates use the
 * backend's fused axpby kernel.
 */
#include "iter_impl.h"

#include <math.h>

/* Preconditioned CG (Saad, Algorithm 9.1). Without a preconditioner z is r itself and the
 * one dot product (r, r) gives both the norm and rho. */
ps_status ps__iter_cg(ps__solver *s) {
    ps__vec r = ps__solver_vec(s, 0), zbuf = ps__solver_vec(s, 1), p = ps__solver_vec(s, 2),
            q = ps__solver_vec(s, 3), z;
    double rz;
    PS__TRY(ps__iter_residual(s, s->x, r));
    PS__TRY(ps__iter_precond(s, r, zbuf, &z));
    PS__TRY(ps__iter_copy(s, z, p));
    PS__TRY(ps__iter_dot(s, r, z, &rz));
    for (;;) {
        double pq;
        PS__TRY(ps__iter_matvec(s, p, q));
        PS__TRY(ps__iter_dot(s, p, q, &pq));
        if (!(pq > 0)) return ps__iter_breakdown(s, "p'Ap = %.3g: A is not positive definite", pq);
        double alpha = rz / pq;
        PS__TRY(ps__iter_axpy(s, alpha, p, s->x));
        PS__TRY(ps__iter_axpy(s, -alpha, q, r));
        double nr, rz_new;
        if (s->precond || s->pc) {
            PS__TRY(ps__iter_nrm2(s, r, &nr));
            PS__TRY(ps__iter_precond(s, r, zbuf, &z));
            PS__TRY(ps__iter_dot(s, r, z, &rz_new));
        } else {
            PS__TRY(ps__iter_dot(s, r, r, &rz_new));
            nr = sqrt(rz_new > 0 ? rz_new : 0);
        }
        int done;
        PS__TRY(ps__iter_step(s, nr / s->bnorm, &done));
        if (done) return PS_SUCCESS;
        if (rz_new == 0) return ps__iter_breakdown(s, "r'z = 0 with r nonzero");
        ps__scalar one = ps__scalar_of(s->dt, 1.0), beta = ps__scalar_of(s->dt, rz_new / rz);
        PS__TRY(s->ops->axpby(s->be, s->dt, s->n, &one, z, &beta, p)); /* p = z + beta p */
        rz = rz_new;
    }
}

/* BiCGSTAB (van der Vorst 1992; Saad, Algorithm 7.7), right-preconditioned: the iterate and
 * the residual are those of A x = b itself. */
ps_status ps__iter_bicgstab(ps__solver *s) {
    ps__vec r = ps__solver_vec(s, 0), rhat = ps__solver_vec(s, 1), p = ps__solver_vec(s, 2),
            v = ps__solver_vec(s, 3), phat_buf = ps__solver_vec(s, 4),
            shat_buf = ps__solver_vec(s, 5), t = ps__solver_vec(s, 6), phat, shat;
    double rho = 1, alpha = 1, omega = 1;
    PS__TRY(ps__iter_residual(s, s->x, r));
    PS__TRY(ps__iter_copy(s, r, rhat));
    for (int first = 1;; first = 0) {
        double rho_new;
        PS__TRY(ps__iter_dot(s, rhat, r, &rho_new));
        if (rho_new == 0) return ps__iter_breakdown(s, "rho = (r0, r) = 0");
        if (first) {
            PS__TRY(ps__iter_copy(s, r, p));
        } else { /* p = r + beta (p - omega v) */
            ps__scalar one = ps__scalar_of(s->dt, 1.0);
            ps__scalar beta = ps__scalar_of(s->dt, (rho_new / rho) * (alpha / omega));
            PS__TRY(ps__iter_axpy(s, -omega, v, p));
            PS__TRY(s->ops->axpby(s->be, s->dt, s->n, &one, r, &beta, p));
        }
        rho = rho_new;
        PS__TRY(ps__iter_precond(s, p, phat_buf, &phat));
        PS__TRY(ps__iter_matvec(s, phat, v));
        double rv;
        PS__TRY(ps__iter_dot(s, rhat, v, &rv));
        if (rv == 0) return ps__iter_breakdown(s, "(r0, A p) = 0");
        alpha = rho / rv;
        PS__TRY(ps__iter_axpy(s, -alpha, v, r)); /* r is now s = r - alpha v */
        double ns;
        PS__TRY(ps__iter_nrm2(s, r, &ns));
        if (ns / s->bnorm <= s->o->tol) { /* the half step already converged */
            int done;
            PS__TRY(ps__iter_axpy(s, alpha, phat, s->x));
            return ps__iter_step(s, ns / s->bnorm, &done);
        }
        PS__TRY(ps__iter_precond(s, r, shat_buf, &shat));
        PS__TRY(ps__iter_matvec(s, shat, t));
        double tt, ts;
        PS__TRY(ps__iter_dot(s, t, t, &tt));
        PS__TRY(ps__iter_dot(s, t, r, &ts));
        omega = tt > 0 ? ts / tt : 0;
        PS__TRY(ps__iter_axpy(s, alpha, phat, s->x));
        PS__TRY(ps__iter_axpy(s, omega, shat, s->x));
        PS__TRY(ps__iter_axpy(s, -omega, t, r));
        double nr;
        int done;
        PS__TRY(ps__iter_nrm2(s, r, &nr));
        PS__TRY(ps__iter_step(s, nr / s->bnorm, &done));
        if (done) return PS_SUCCESS;
        if (omega == 0) return ps__iter_breakdown(s, "omega = (t, s) / (t, t) = 0");
    }
}
