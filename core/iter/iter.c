/*
 * The iterative solvers' driver and shared helpers. Every method runs on the backend: vectors
 * live in one device workspace, matrix-vector products are gemv on the caller's A, and only the
 * scalars a method needs (dot products, norms) come back to the host; CG and GMRES read theirs
 * one iteration late (fetch_start / fetch_wait), so the device does not wait for the host. The
 * driver checks the true residual b - A x when a method says it converged (recursive residuals
 * drift in finite precision) and restarts the method from there if the true residual is not yet
 * small enough.
 */
#include "iter/iter_impl.h"
#include "base/host_values.h"
#include "iter/iter_kernels.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A method that claims convergence while the true residual is still above tol is restarted
 * from its iterate at most this often. */
#define PS__ITER_MAX_RESTARTS 4

int ps__iter_vectors(ps_iter_method method, int n, int restart, int flexible, int *extra) {
    *extra = 0;
    switch (method) {
    case PS_ITER_JACOBI:
    case PS_ITER_GAUSS_SEIDEL:
        return 1; /* r */
    case PS_ITER_CG:
        /* the step's two scalar blocks, then two calls' worth for cg_steps */
        *extra = (2 + 2 * PS__CG_STEPS_PER_CALL) * PS__CG_SCALARS;
        return 5; /* r, u, w, p, s */
    case PS_ITER_BICGSTAB:
        return 7; /* r, rhat, p, v, phat, shat, t */
    case PS_ITER_GMRES: {
        int m = restart < n ? restart : n;
        /* the restart's residual norm, then per Arnoldi step its Gram-Schmidt coefficients and
         * norm (2m + 3 elements, read a step late), then the least-squares solution */
        *extra = 1 + m * (2 * m + 3) + m;
        return flexible ? 2 * m + 2 /* and Z (m columns) */ : m + 2; /* V (m + 1 columns), z */
    }
    }
    return 0;
}

ps_status ps__iter_matvec(ps__solver *s, ps__vec x, ps__vec y) {
    ps__scalar one = ps__scalar_of(s->dt, 1.0), zero = ps__scalar_of(s->dt, 0.0);
    return s->ops->gemv(s->be, s->dt, PS__NOTRANS, s->n, s->n, &one, s->a, x, &zero, y);
}

ps_status ps__iter_residual(ps__solver *s, ps__vec x, ps__vec r) {
    ps__scalar one = ps__scalar_of(s->dt, 1.0), minus_one = ps__scalar_of(s->dt, -1.0);
    PS__TRY(s->ops->copy(s->be, s->dt, s->n, s->b, r));
    return s->ops->gemv(s->be, s->dt, PS__NOTRANS, s->n, s->n, &minus_one, s->a, x, &one, r);
}

ps_status ps__iter_start_residual(ps__solver *s, ps__vec r) {
    if (!s->rstart_valid) return ps__iter_residual(s, s->x, r);
    s->rstart_valid = 0;
    return ps__iter_copy(s, s->rstart, r);
}

ps_status ps__iter_dot(ps__solver *s, ps__vec x, ps__vec y, double *out) {
    ps__scalar v;
    PS__TRY(s->ops->dot(s->be, s->dt, s->n, x, y, &v));
    *out = ps__scalar_value(s->dt, v);
    return PS_SUCCESS;
}

ps_status ps__iter_nrm2(ps__solver *s, ps__vec x, double *out) {
    ps__scalar v;
    PS__TRY(s->ops->nrm2(s->be, s->dt, s->n, x, &v));
    *out = ps__scalar_value(s->dt, v);
    return PS_SUCCESS;
}

ps_status ps__iter_axpy(ps__solver *s, double alpha, ps__vec x, ps__vec y) {
    ps__scalar a = ps__scalar_of(s->dt, alpha);
    return s->ops->axpy(s->be, s->dt, s->n, &a, x, y);
}

ps_status ps__iter_scal(ps__solver *s, double alpha, ps__vec x) {
    ps__scalar a = ps__scalar_of(s->dt, alpha);
    return s->ops->scal(s->be, s->dt, s->n, &a, x);
}

ps_status ps__iter_copy(ps__solver *s, ps__vec x, ps__vec y) {
    return s->ops->copy(s->be, s->dt, s->n, x, y);
}

ps_status ps__iter_precond(ps__solver *s, ps__vec v, ps__vec z, ps__vec *out) {
    if (s->pc) {
        *out = z;
        return s->pc->apply(s->pc->arg, v, z);
    }
    if (!s->precond) {
        *out = v;
        return PS_SUCCESS;
    }
    PS__TRY(ps__iter_copy(s, v, z));
    *out = z;
    return s->ops->vmul(s->be, s->dt, s->n, s->dinv, z);
}

/* Counts an iteration (see ps__iter_step); met: the tol test's verdict; copy_best: keep the
 * best iterate in xbest here. */
static ps_status record_step(ps__solver *s, double rel, int met, int copy_best, int *done) {
    const ps_iter_options *o = s->o;
    ps_iter_result *res = s->res;
    s->iterations++;
    s->last_rel = rel;
    if (res->history_length < o->history_capacity) o->history[res->history_length++] = rel;
    if (s->xbest.buf) {
        s->x_is_best = rel < s->best;
        if (s->x_is_best) {
            s->best = rel;
            if (copy_best) PS__TRY(ps__iter_copy(s, s->x, s->xbest));
        }
    }
    *done = 1;
    if (!isfinite(rel))
        s->end = PS__ITER_DIVERGED;
    else if (met)
        s->end = PS__ITER_TOL_MET;
    else if (s->iterations >= o->max_iter)
        s->end = PS__ITER_MAX_ITER;
    else
        *done = 0;
    return PS_SUCCESS;
}

ps_status ps__iter_step(ps__solver *s, double rel, int *done) {
    return record_step(s, rel, rel <= s->tol, 1, done);
}

ps_status ps__iter_step_met(ps__solver *s, double rel, int met, int *done) {
    return record_step(s, rel, met, 0, done);
}

ps_status ps__iter_upload_scalars(ps__solver *s, const double *v, int count, ps__vec dst) {
    ps__scalar raw[PS__CG_SCALARS];
    if (count > PS__CG_SCALARS) return PS_ERR_INVALID_ARGUMENT;
    ps__values_from_double(s->dt, v, (size_t)count, raw);
    ps__mat m = {dst.buf, dst.off, count};
    return s->ops->upload(s->be, s->dt, count, 1, raw, count, m);
}

ps_status ps__iter_fetch(ps__solver *s, int slot, int count, ps__vec src, void *raw, double *out) {
    PS__TRY(s->ops->fetch_wait(s->be, s->dt, slot, count, src, raw));
    ps__values_to_double(s->dt, raw, (size_t)count, out);
    return PS_SUCCESS;
}

ps_status ps__iter_breakdown(ps__solver *s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->why, sizeof s->why, fmt, ap);
    va_end(ap);
    s->end = PS__ITER_BREAKDOWN;
    return PS_SUCCESS;
}

/* Reads diag(A) (one strided read before the iteration), rejects a zero on it, and stores its
 * inverse in s->dinv. */
static ps_status setup_diagonal(ps__solver *s, ps__scratch *scratch, const char *fn) {
    int n = s->n;
    double *d;
    PS__TRY(ps__scratch_host(scratch, (size_t)n * sizeof *d, (void **)&d));
    ps__mat diag = {s->a.buf, s->a.off, s->a.ld + 1}; /* a 1 x n view of the diagonal */
    PS__TRY(s->ops->download(s->be, s->dt, 1, n, diag, d, 1));
    float *f = (float *)d;
    for (int i = 0; i < n; i++) {
        double v = s->dt == PS__DOUBLE ? d[i] : (double)f[i];
        if (v == 0) {
            s->ctx->last_info = i + 1;
            return ps__fail(s->ctx, PS_ERR_ZERO_DIAGONAL,
                            "%s: A(%d,%d) is zero, so the Jacobi/Gauss-Seidel step is undefined",
                            fn, i + 1, i + 1);
        }
        if (s->dt == PS__DOUBLE)
            d[i] = 1 / v;
        else
            f[i] = (float)(1 / v);
    }
    ps__mat dst = {s->dinv.buf, s->dinv.off, n};
    return s->ops->upload(s->be, s->dt, n, 1, d, n, dst);
}

static ps_status run_method(ps_iter_method method, ps__solver *s) {
    switch (method) {
    case PS_ITER_JACOBI:
        return ps__iter_jacobi(s);
    case PS_ITER_GAUSS_SEIDEL:
        return ps__iter_gauss_seidel(s);
    case PS_ITER_CG:
        return ps__iter_cg(s);
    case PS_ITER_BICGSTAB:
        return ps__iter_bicgstab(s);
    case PS_ITER_GMRES:
        return ps__iter_gmres(s);
    }
    return PS_ERR_INVALID_ARGUMENT;
}

/* The true relative residual ||b - A x|| / ||b|| of x, through the scratch vector r. */
static ps_status true_residual(ps__solver *s, ps__vec x, ps__vec r, double *rel) {
    double nr;
    PS__TRY(ps__iter_residual(s, x, r));
    PS__TRY(ps__iter_nrm2(s, r, &nr));
    *rel = nr / s->bnorm;
    return PS_SUCCESS;
}

/* Sets the status, message and info of a finished solve. */
static ps_status report(ps__solver *s, const char *fn, ps_iter_method method) {
    ps_iter_result *res = s->res;
    const char *name = ps_iter_method_name(method);
    if (res->converged) return PS_SUCCESS;
    s->ctx->last_info = res->iterations;
    switch (s->end) {
    case PS__ITER_BREAKDOWN:
        return ps__fail(s->ctx, PS_ERR_BREAKDOWN,
                        "%s: %s broke down after %d iterations (%s); relative residual %.3g", fn,
                        name, res->iterations, s->why, res->rel_residual);
    case PS__ITER_DIVERGED:
        return ps__fail(s->ctx, PS_ERR_NO_CONVERGENCE,
                        "%s: %s diverged (the residual became NaN or Inf) after %d iterations; the "
                        "best iterate's relative residual is %.3g",
                        fn, name, res->iterations, res->rel_residual);
    default:
        return ps__fail(s->ctx, PS_ERR_NO_CONVERGENCE,
                        "%s: %s did not reach tol=%.3g in %d iterations (max_iter=%d); relative "
                        "residual %.3g",
                        fn, name, s->o->tol, res->iterations, s->o->max_iter, res->rel_residual);
    }
}

ps_status ps__iter_solve(ps_context *ctx, const char *fn, ps_iter_method method, ps__dtype dt,
                         int n, ps__mat a, ps__vec b, ps__vec x, const ps_iter_options *o,
                         ps_iter_result *res) {
    return ps__iter_solve_precond(ctx, fn, method, dt, n, a, b, x, o, res, NULL);
}

/* b is solved scaled when max |b_i| lies outside [2^-E, 2^E) for this E. */
#define PS__ITER_SCALE_EXP 100

ps_status ps__iter_solve_precond(ps_context *ctx, const char *fn, ps_iter_method method,
                                 ps__dtype dt, int n, ps__mat a, ps__vec b, ps__vec x,
                                 const ps_iter_options *o, ps_iter_result *res,
                                 const ps__precond *pc) {
    memset(res, 0, sizeof *res);
    if (n == 0) {
        res->converged = 1;
        return PS_SUCCESS;
    }
    ps__solver s = {0};
    s.ctx = ctx, s.be = &ctx->be, s.ops = ctx->be.ops, s.dt = dt, s.n = n, s.a = a, s.b = b;
    s.x = x, s.o = o, s.res = res, s.tol = o->tol;
    if (pc && pc->enough > s.tol) s.tol = pc->enough; /* NaN leaves o->tol */
    if (pc && pc->seed_z.buf && method != PS_ITER_GMRES)
        return ps__fail(ctx, PS_ERR_INVALID_ARGUMENT, "%s: a seeded first step serves GMRES only",
                        fn);
    /* max |b_i| (norm_inf of the column: no sum, so neither overflow nor underflow) */
    double bmax = 0;
    PS__TRY(s.ops->norm_inf(s.be, dt, n, 1, (ps__mat){b.buf, b.off, n}, &bmax));
    if (bmax == 0) { /* x = 0 solves it exactly */
        ps__scalar zero = ps__scalar_of(dt, 0.0);
        ps__mat xm = {x.buf, x.off, x.inc};
        PS__TRY(s.ops->fill(s.be, dt, 1, n, &zero, xm));
        res->converged = 1;
        return PS_SUCCESS;
    }

    int stationary = method == PS_ITER_JACOBI || method == PS_ITER_GAUSS_SEIDEL;
    s.pc = stationary ? NULL : pc;
    s.precond = !stationary && !pc && o->precond == PS_PRECOND_JACOBI;
    int extra, nv = ps__iter_vectors(method, n, o->restart, s.pc != NULL, &extra);
    s.stride = ((size_t)n + 31) / 32 * 32;
    size_t elements = ((size_t)nv + 4) * s.stride + (size_t)extra;

    ps__scratch scratch = ps__scratch_begin(ctx);
    ps_status st = ps__scratch_dev(&scratch, elements * ps__dtype_size(dt), &s.work);
    s.dinv = ps__solver_vec(&s, nv);
    ps__vec rtrue = ps__solver_vec(&s, nv + 2);
    s.extra = (ps__vec){s.work, ((size_t)nv + 4) * s.stride, 1};
    if (method != PS_ITER_GMRES) s.xbest = ps__solver_vec(&s, nv + 1); /* GMRES's x only improves */
    /* Gauss-Seidel divides by the diagonal in its triangular solve: it needs only the check. */
    if (!st && (stationary || s.precond)) st = setup_diagonal(&s, &scratch, fn);
    /* A right-hand side far from 1 in size is solved scaled: b (a copy) and x by a power of two
     * that brings max |b_i| to [1, 2), exactly, so that the dot products and norms the methods
     * decide by neither overflow nor underflow; x is scaled back at the end. A caller's
     * preconditioner (GMRES-IR) works on residuals of its own scale and is left alone. */
    int e = 0;
    frexp(bmax, &e);
    double unscale = 1;
    if (!st && !pc && (e < -PS__ITER_SCALE_EXP || e > PS__ITER_SCALE_EXP)) {
        ps__scalar down = ps__scalar_of(dt, ldexp(1.0, 1 - e));
        ps__vec bs = ps__solver_vec(&s, nv + 3);
        st = ps__iter_copy(&s, b, bs);
        if (!st) st = s.ops->scal(s.be, dt, n, &down, bs);
        if (!st) st = s.ops->scal(s.be, dt, n, &down, x);
        if (!st) s.b = b = bs, unscale = ldexp(1.0, e - 1);
    }
    if (!st) st = ps__iter_nrm2(&s, b, &s.bnorm);

    /* x's residual: b itself where the caller promises x = 0 (no product) */
    double rel = 1;
    if (!st)
        st = pc && pc->x_zero ? ps__iter_copy(&s, b, rtrue) : true_residual(&s, x, rtrue, &rel);
    s.best = s.last_rel = rel;
    s.x_is_best = 1;
    s.rstart = rtrue;
    if (!st && s.xbest.buf) st = ps__iter_copy(&s, x, s.xbest);
    s.end = rel <= s.tol ? PS__ITER_TOL_MET : PS__ITER_MAX_ITER;
    /* A stays as it is for the whole loop: the backend may read it ahead of the work queued
     * before each product */
    int held = !st && rel > s.tol && o->max_iter > 0;
    if (held) st = ps__iter(s.be)->hold_matrix(s.be, dt, n, n, a);
    const int estimate_ends = pc && pc->estimate_ends;
    for (int restart = 0; !st && rel > s.tol && s.iterations < o->max_iter; restart++) {
        s.rstart_valid = 1; /* rtrue is b - A x */
        st = run_method(method, &s);
        if (!st && estimate_ends) {
            rel = s.last_rel;
            break;
        }
        if (!st) st = true_residual(&s, x, rtrue, &rel);
        if (st || s.end != PS__ITER_TOL_MET || restart == PS__ITER_MAX_RESTARTS) break;
    }
    if (held) {
        ps__mat none = {NULL, 0, 1};
        ps_status released = ps__iter(s.be)->hold_matrix(s.be, dt, 0, 0, none);
        if (!st) st = released;
    }
    /* Not converged: hand back the best iterate seen, judged by its true residual (unless x is
     * that iterate). */
    if (!st && !(rel <= s.tol) && s.xbest.buf && !s.x_is_best && !(rel <= s.best)) {
        double best_rel;
        st = true_residual(&s, s.xbest, rtrue, &best_rel);
        if (!st && !(best_rel >= rel)) { /* also taken when rel is NaN */
            st = ps__iter_copy(&s, s.xbest, x);
            rel = best_rel;
        }
    }
    if (unscale != 1) { /* x back to the caller's scale, on every path */
        ps__scalar up = ps__scalar_of(dt, unscale);
        ps_status scaled = s.ops->scal(s.be, dt, n, &up, x);
        if (!st) st = scaled;
    }
    ps__scratch_end(&scratch);
    if (st) return st;
    res->iterations = s.iterations;
    res->rel_residual = rel;
    res->converged = rel <= s.tol;
    if (!res->converged && s.end == PS__ITER_TOL_MET) s.end = PS__ITER_MAX_ITER;
    return report(&s, fn, method);
}
