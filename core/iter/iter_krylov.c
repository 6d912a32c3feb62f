/*
 * Conjugate gradients and BiCGSTAB, each with the optional Jacobi preconditioner M = diag(A).
 * Per iteration: CG one gemv and one fused step kernel (cg_step) whose scalars stay on the
 * device; BiCGSTAB two gemv and five reductions read by the host, with the direction updates in
 * the backend's fused axpby kernel.
 */
#include "iter/iter_impl.h"
#include "iter/iter_kernels.h"

#include <math.h>

/* Enqueues CG step t: w = A u, then the step kernel from scalar block t % 2 into (t + 1) % 2,
 * whose values the host will fetch through slot (t + 1) % 2. last: the step measures only. */
static ps_status cg_enqueue(ps__solver *s, const ps__cg_vectors *v, const ps__vec *blk, int t,
                            int last, double stop_rr) {
    int out = (t + 1) % 2;
    PS__TRY(ps__iter_matvec(s, v->u, v->w));
    return ps__iter(s->be)->cg_step(s->be, s->dt, s->n, v, blk[t % 2], blk[out], stop_rr, last,
                                    out);
}

/* Step t's scalar block as the host reads it: the iteration's bookkeeping, and *end when the
 * solve ends at this step (tol met, max_iter, a breakdown or divergence). */
static ps_status cg_take_step(ps__solver *s, int t, const double *sc, int *end) {
    int stop = (int)sc[PS__CG_STOP], done = 0;
    *end = 1;
    if (t > 0) {
        /* rr is a sum of squares: NaN or Inf only when the iteration diverged */
        PS__TRY(ps__iter_step_met(s, sqrt(sc[PS__CG_RR]) / s->bnorm, stop == PS__CG_STOP_CONVERGED,
                                  &done));
    } else if (stop == PS__CG_STOP_CONVERGED) { /* the recursive residual of the start */
        s->end = PS__ITER_TOL_MET;
        return PS_SUCCESS;
    }
    if (done) return PS_SUCCESS;
    if (stop == PS__CG_STOP_PQ)
        return ps__iter_breakdown(s, "p'Ap = %.3g: A is not positive definite", sc[PS__CG_DENOM]);
    if (stop == PS__CG_STOP_RZ) return ps__iter_breakdown(s, "r'z = 0 with r nonzero");
    if (stop != 0) { /* not finite at the start: as a diverged iteration */
        s->end = PS__ITER_DIVERGED;
        return PS_SUCCESS;
    }
    *end = 0;
    return PS_SUCCESS;
}

/* Steps t0 .. budget one call at a time (a gemv and cg_step each), step t0 from blk[t0 % 2]. */
static ps_status cg_by_steps(ps__solver *s, const ps__cg_vectors *v, const ps__vec *blk, int t0,
                             int budget, double stop_rr) {
    double sc[PS__CG_SCALARS];
    ps__scalar raw[PS__CG_SCALARS];
    int queued = t0, taken = t0;
    PS__TRY(cg_enqueue(s, v, blk, queued, queued == budget, stop_rr));
    queued++;
    for (;;) {
        if (queued <= budget) {
            PS__TRY(cg_enqueue(s, v, blk, queued, queued == budget, stop_rr));
            queued++;
        }
        int t = taken++, slot = taken % 2, end;
        PS__TRY(ps__iter_fetch(s, slot, PS__CG_SCALARS, blk[slot], raw, sc));
        PS__TRY(cg_take_step(s, t, sc, &end));
        if (end) return PS_SUCCESS;
    }
}

/* The blocks of cg_steps call c (PS__CG_STEPS_PER_CALL of them, after the two of cg_by_steps;
 * calls alternate between two regions). */
static ps__vec cg_call_blocks(ps__solver *s, int c) {
    return ps__vec_at(s->extra, (size_t)(2 + (c % 2) * PS__CG_STEPS_PER_CALL) * PS__CG_SCALARS);
}

/* Queues cg_steps call c: steps t0 .. t0 + *count - 1 from the block in, fetched through slot
 * c % 2. PS_ERR_NOT_SUPPORTED when the backend has no fused path for them (nothing queued). */
static ps_status cg_steps_call(ps__solver *s, const ps__cg_vectors *v, ps__vec in, int c, int t0,
                               int budget, double stop_rr, int *count) {
    *count = budget + 1 - t0 < PS__CG_STEPS_PER_CALL ? budget + 1 - t0 : PS__CG_STEPS_PER_CALL;
    return ps__iter(s->be)->cg_steps(s->be, s->dt, s->n, s->a, v, in, cg_call_blocks(s, c), *count,
                                     stop_rr, budget - t0, c % 2);
}

/* Steps 0 .. budget by cg_steps calls, each queued before the host reads the scalars of the one
 * before; the device ends a call at the step that stops the iteration, and a call queued past
 * it copies the stopped block. *handled = 0 when the backend declined the first call (nothing
 * queued); a later call declined goes on step by step from there. */
static ps_status cg_by_calls(ps__solver *s, const ps__cg_vectors *v, const ps__vec *blk, int budget,
                             double stop_rr, int *handled) {
    double sc[PS__CG_STEPS_PER_CALL * PS__CG_SCALARS];
    ps__scalar raw[PS__CG_STEPS_PER_CALL * PS__CG_SCALARS];
    int count[2], t0 = 0, next;
    ps_status st = cg_steps_call(s, v, blk[0], 0, 0, budget, stop_rr, &count[0]);
    *handled = st != PS_ERR_NOT_SUPPORTED;
    if (!*handled) return PS_SUCCESS;
    PS__TRY(st);
    next = count[0];
    for (int c = 0;; c++) {
        const int cur = c % 2;
        ps__vec blocks = cg_call_blocks(s, c);
        ps__vec last_block = ps__vec_at(blocks, (size_t)(count[cur] - 1) * PS__CG_SCALARS);
        int declined = 0;
        if (next <= budget) {
            st = cg_steps_call(s, v, last_block, c + 1, next, budget, stop_rr, &count[1 - cur]);
            declined = st == PS_ERR_NOT_SUPPORTED;
            if (!declined) PS__TRY(st);
        }
        PS__TRY(ps__iter_fetch(s, cur, count[cur] * PS__CG_SCALARS, blocks, raw, sc));
        for (int i = 0; i < count[cur]; i++) {
            int end;
            PS__TRY(cg_take_step(s, t0 + i, sc + (size_t)i * PS__CG_SCALARS, &end));
            if (end) return PS_SUCCESS;
        }
        t0 += count[cur];
        if (declined) { /* the rest step by step, from the last block */
            PS__TRY(s->ops->copy(s->be, s->dt, PS__CG_SCALARS, last_block, blk[t0 % 2]));
            return cg_by_steps(s, v, blk, t0, budget, stop_rr);
        }
        if (next > budget) return PS_SUCCESS; /* not reached: step budget ends the solve */
        next += count[1 - cur];
    }
}

/* Preconditioned CG (Saad, Algorithm 9.1) in Chronopoulos and Gear's form (1989): the step after
 * w = A u takes (r, u), (w, u) and (r, r) together and carries s = A p by a recurrence, so an
 * iteration is one gemv and one cg_step with a single reduction phase, whose scalars stay on
 * the device. Step t measures x_t (its residual norm, the best iterate, the stop tests) and then
 * forms x_{t+1}; step 0 measures the initial guess. The host runs one step behind the device,
 * reading step t's scalars while step t + 1 is queued, so the device never waits for the host.
 * A step queued past the end finds the stop flag its predecessor set and changes nothing, and
 * the step that reaches max_iter measures without updating, so every backend takes the same
 * iterations as a host-driven loop would. A backend with a fused path for several steps
 * (cg_steps; CUDA keeps a matrix that fits its SMs there for a whole call) gets them
 * PS__CG_STEPS_PER_CALL at a time, one call behind in the same way. */
ps_status ps__iter_cg(ps__solver *s) {
    if (s->pc)
        return ps__fail(s->ctx, PS_ERR_NOT_SUPPORTED, "CG takes the Jacobi preconditioner only");
    ps__vec r = ps__solver_vec(s, 0), ubuf = ps__solver_vec(s, 1), w = ps__solver_vec(s, 2),
            p = ps__solver_vec(s, 3), sv = ps__solver_vec(s, 4), u;
    ps__vec blk[2] = {s->extra, ps__vec_at(s->extra, PS__CG_SCALARS)};
    PS__TRY(ps__iter_start_residual(s, r));
    PS__TRY(ps__iter_precond(s, r, ubuf, &u));
    ps__cg_vectors v = {s->x, r, u, w, p, sv, {NULL, 0, 1}, s->xbest};
    if (s->precond) v.dinv = s->dinv;
    double sc[PS__CG_SCALARS] = {0};
    double best = s->best * s->bnorm;
    sc[PS__CG_BEST] = best * best;
    PS__TRY(ps__iter_upload_scalars(s, sc, PS__CG_SCALARS, blk[0]));
    double stop = s->tol * s->bnorm, stop_rr = stop * stop;

    /* steps 0 .. budget: step t > 0 measures iteration t, the last one without updating */
    const int budget = s->o->max_iter - s->iterations;
    int handled;
    PS__TRY(cg_by_calls(s, &v, blk, budget, stop_rr, &handled));
    if (handled) return PS_SUCCESS;
    return cg_by_steps(s, &v, blk, 0, budget, stop_rr);
}

/* BiCGSTAB (van der Vorst 1992; Saad, Algorithm 7.7), right-preconditioned: the iterate and
 * the residual are those of A x = b itself. */
ps_status ps__iter_bicgstab(ps__solver *s) {
    ps__vec r = ps__solver_vec(s, 0), rhat = ps__solver_vec(s, 1), p = ps__solver_vec(s, 2),
            v = ps__solver_vec(s, 3), phat_buf = ps__solver_vec(s, 4),
            shat_buf = ps__solver_vec(s, 5), t = ps__solver_vec(s, 6), phat, shat;
    double rho = 1, alpha = 1, omega = 1;
    PS__TRY(ps__iter_start_residual(s, r));
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
        if (ns / s->bnorm <= s->tol) { /* the half step already converged */
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
