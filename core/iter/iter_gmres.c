/*
 * Restarted GMRES(m) (Saad & Schultz 1986), right-preconditioned so the minimized residual is
 * that of A x = b. Arnoldi runs on the device with classical Gram-Schmidt applied twice
 * (CGS2, the backend's orthonormalize: two passes of all projections at once instead of j
 * dependent dot/axpy pairs, and as orthogonal as modified Gram-Schmidt in practice); the Hessenberg
 * matrix, its Givens rotations and the small triangular solve live on the host, in double for both
 * precisions. Per step the host reads the 2(j+1) projection coefficients and the new vector's norm
 * (the division stays on the device), a step late: the Arnoldi process does not depend on the
 * rotations, so step j + 1 is queued before the host waits for step j's column, and the device
 * never waits for the host. A step queued past the end of the cycle is simply not used.
 *
 * With a caller's preconditioner (GMRES-IR's low-precision LU solve) the GMRES is flexible
 * (Saad 1993): each z_j = M^-1 v_j is kept and x += Z y. Plain right preconditioning forms
 * x += M^-1 (V y) in a second application, which equals Z y only when M^-1 is applied exactly;
 * a float LU solve on a matrix with kappa u_low near 1 is off by O(1) relative, so that x could
 * have a residual many times the one GMRES minimized (measured: 126x b at cond 1e8). Z y has
 * the residual the Arnoldi relation says, up to double rounding.
 *
 * A backend with a fused path for several steps (arnoldi_steps; CUDA keeps a short matrix in
 * its SMs for a whole launch) gets a cycle's steps as one call. The host reads the columns of
 * its first PS__ARNOLDI_CHECKPOINT steps as soon as the backend delivers them (CUDA: while the
 * call goes on), so that a solve that converges there stops the rest with arnoldi_cancel and
 * does not pay for a whole cycle. (Earlier the first cycle was two calls, 8 steps and
 * the rest, for the same reason: a launch more, which reloaded the matrix into the SMs.)
 *
 * On the fused path a cycle starts with one arnoldi_restart call: the last cycle's x += V y
 * (deferred to here, y passed from the host), the residual, its norm and v_0, and the first
 * steps. The host then learns beta with those steps' columns. On CUDA this took the upload of y
 * (which waits for the device) and five kernels out of every restart (docs/PERFORMANCE.md).
 * Elsewhere x's update is gmres_update_x's, y again passed from the host, where the
 * backend has it.
 */
#include "iter/iter_impl.h"
#include "base/host_values.h"
#include "iter/iter_kernels.h"

#include <math.h>
#include <stdlib.h>

/* The longest cycle whose steps may go to arnoldi_steps (the host keeps all its columns). */
#define PS__GMRES_FUSED_MAX_M 128

typedef struct {
    int m;
    double *H;       /* (m + 1) x m Hessenberg, column-major, rotated in place */
    double *cs, *sn; /* Givens rotations */
    double *g;       /* rotated right-hand side beta e1 */
    double *y;       /* least-squares solution */
    double *coefs;   /* a step's column: 2 (j + 1) Gram-Schmidt coefficients and the norm; with
                      * fused steps, a cycle's columns, 2 m + 3 apart */
    void *coef;      /* the same (or y) in the data's precision, for transfers */
    int fused;       /* coefs holds a whole cycle: arnoldi_steps may be tried */
    int pending;     /* x += V(:, 0 .. pending) y is still to be made, by the next cycle's
                      * arnoldi_restart (or by update_x, when that declines) */
} host_state;

#define H_(i, j) h->H[(size_t)(i) + (size_t)(j) * (size_t)(h->m + 1)]

/* Rotates column j of H by the previous rotations, makes the new one that zeroes H(j+1, j),
 * and applies it to g. */
static void givens(host_state *h, int j) {
    for (int i = 0; i < j; i++) {
        double t = h->cs[i] * H_(i, j) + h->sn[i] * H_(i + 1, j);
        H_(i + 1, j) = -h->sn[i] * H_(i, j) + h->cs[i] * H_(i + 1, j);
        H_(i, j) = t;
    }
    double a = H_(j, j), b = H_(j + 1, j), r = hypot(a, b);
    h->cs[j] = r > 0 ? a / r : 1;
    h->sn[j] = r > 0 ? b / r : 0;
    H_(j, j) = r;
    H_(j + 1, j) = 0;
    h->g[j + 1] = -h->sn[j] * h->g[j];
    h->g[j] = h->cs[j] * h->g[j];
}

/* y = H(0:k, 0:k) \ g(0:k); a zero on the diagonal (an exactly singular H, only when A is
 * singular) drops that direction. */
static void back_substitute(host_state *h, int k) {
    for (int i = k - 1; i >= 0; i--) {
        double t = h->g[i];
        for (int c = i + 1; c < k; c++) t -= H_(i, c) * h->y[c];
        h->y[i] = H_(i, i) != 0 ? t / H_(i, i) : 0;
    }
}

/* The preconditioned vectors Z of flexible GMRES (after V and z), or a view with no buffer. */
static ps__mat flexible_z(ps__solver *s, int m) {
    ps__mat Z = {NULL, 0, (int)s->stride};
    if (s->pc) Z = (ps__mat){s->work, (size_t)(m + 2) * s->stride, (int)s->stride};
    return Z;
}

/* The device's h: the restart's residual norm, then the cycle's columns (step j's: h1 (j + 1),
 * h2 (j + 1), the norm), 2 m + 3 apart as arnoldi_restart writes them, then y for update_x. */
static ps__vec restart_norm(ps__solver *s) {
    return s->extra;
}

static ps__vec step_column(ps__solver *s, int m, int j) {
    return ps__vec_at(s->extra, 1 + (size_t)j * (size_t)(2 * m + 3));
}

static ps__vec least_squares_y(ps__solver *s, int m) {
    return step_column(s, m, m); /* just past the m columns */
}

/* x += M^-1 V(:, 0:k) y, or x += Z(:, 0:k) y when flexible: by gmres_update_x, y passed from the
 * host, where the backend has it (CUDA and OpenCL: a kernel with y in its arguments), else by
 * uploading y, which waits for the device, and a product. */
static ps_status update_x(ps__solver *s, host_state *h, ps__mat V, int k, ps__vec z) {
    ps__vec x = s->x;
    ps__mat Z = flexible_z(s, h->m);
    ps__vec dinv = {NULL, 0, 1};
    if (!Z.buf && s->precond) dinv = s->dinv;
    ps_status st =
        ps__iter(s->be)->gmres_update_x(s->be, s->dt, s->n, Z.buf ? Z : V, k, h->y, dinv, x);
    if (st != PS_ERR_NOT_SUPPORTED) return st;
    ps__values_from_double(s->dt, h->y, (size_t)k, h->coef);
    ps__vec y = least_squares_y(s, h->m);
    ps__mat dst = {y.buf, y.off, k};
    PS__TRY(s->ops->upload(s->be, s->dt, k, 1, h->coef, k, dst));
    ps__scalar one = ps__scalar_of(s->dt, 1.0), zero = ps__scalar_of(s->dt, 0.0);
    if (Z.buf) return s->ops->gemv(s->be, s->dt, PS__NOTRANS, s->n, k, &one, Z, y, &one, x);
    PS__TRY(s->ops->gemv(s->be, s->dt, PS__NOTRANS, s->n, k, &one, V, y, &zero, z));
    if (s->precond) PS__TRY(s->ops->vmul(s->be, s->dt, s->n, s->dinv, z));
    return ps__iter_axpy(s, 1.0, z, x);
}

/* Queues Arnoldi step j: w = A M^-1 v_j orthogonalized against V(:, 0:j) by CGS2 and
 * normalized into v_{j+1} (orthonormalize), and the start of its column's trip to the host
 * through slot j % 2: H(:, j) = h1 + h2 and H(j+1, j) the norm. Flexible: M^-1 v_j into Z(:, j),
 * or, for the solve's first step, the caller's seed z_0 and its product (ps__precond). */
static ps_status arnoldi_enqueue(ps__solver *s, int m, ps__mat V, int j, ps__vec zbuf) {
    ps__vec vj = ps__mat_col(V, 0, j), w = ps__mat_col(V, 0, j + 1), z;
    ps__mat Z = flexible_z(s, m);
    if (Z.buf) zbuf = ps__mat_col(Z, 0, j);
    if (Z.buf && j == 0 && s->iterations == 0 && s->pc->seed_z.buf) {
        PS__TRY(ps__iter_copy(s, s->pc->seed_z, zbuf));
        PS__TRY(ps__iter_copy(s, s->pc->seed_az, w));
        return ps__iter(s->be)->orthonormalize(s->be, s->dt, s->n, j + 1, V, w,
                                               step_column(s, m, j), j % 2);
    }
    PS__TRY(ps__iter_precond(s, vj, zbuf, &z));
    PS__TRY(ps__iter_matvec(s, z, w));
    return ps__iter(s->be)->orthonormalize(s->be, s->dt, s->n, j + 1, V, w, step_column(s, m, j),
                                           j % 2);
}

/* Queues steps lo .. hi - 1 as one backend call (arnoldi_steps), their columns fetched through
 * slot; PS_ERR_NOT_SUPPORTED when the backend has no such path for them (nothing queued). */
static ps_status steps_enqueue(ps__solver *s, int m, ps__mat V, int lo, int hi, int slot) {
    ps__vec dinv = {NULL, 0, 1};
    if (s->precond) dinv = s->dinv;
    return ps__iter(s->be)->arnoldi_steps(s->be, s->dt, s->n, s->a, dinv, V, lo, hi,
                                          step_column(s, m, lo), 2 * m + 3, slot);
}

/* Steps j's column into H, its rotation, and the iteration's bookkeeping; *stop on a breakdown
 * (the Krylov space holds the solution: hn = 0) or a norm that is not finite. */
static ps_status take_column(ps__solver *s, host_state *h, int j, const double *coefs, int *done,
                             int *stop) {
    for (int i = 0; i <= j; i++) H_(i, j) = coefs[i] + coefs[j + 1 + i];
    double hn = coefs[2 * j + 2];
    H_(j + 1, j) = hn;
    givens(h, j);
    PS__TRY(ps__iter_step(s, fabs(h->g[j + 1]) / s->bnorm, done));
    *stop = hn == 0 || !isfinite(hn);
    return PS_SUCCESS;
}

/* The restart's residual norm beta: whether it ends the solve (not finite: diverged; within
 * tol: x from the last cycle is good enough), else g = beta e1 for the cycle. */
static int restart_ends_solve(ps__solver *s, host_state *h, double beta) {
    if (!isfinite(beta)) {
        s->end = PS__ITER_DIVERGED;
        return 1;
    }
    s->last_rel = beta / s->bnorm;
    if (beta / s->bnorm <= s->tol) {
        s->end = PS__ITER_TOL_MET;
        return 1;
    }
    for (int i = 0; i <= h->m; i++) h->g[i] = 0;
    h->g[0] = beta;
    return 0;
}

/* The cycle's steps 0 .. limit - 1, queued as one fused call fetched through slot 0 (by
 * arnoldi_restart when with_beta: its fetch starts with the restart's norm, which is checked
 * first): the first PS__ARNOLDI_CHECKPOINT steps' columns as soon as the backend delivers them
 * (CUDA: while the call goes on), so that a solve that converges there cancels the rest
 * (arnoldi_cancel), then the others. Returns the steps taken in *k (0 with *done when the norm
 * ended the solve). */
static ps_status fused_steps(ps__solver *s, host_state *h, int limit, int with_beta, int *done,
                             int *k) {
    int m = h->m, stride = 2 * m + 3, lead = with_beta ? 1 : 0, lo = 0;
    ps__vec from = lead ? restart_norm(s) : step_column(s, m, 0);
    *k = 0;
    while (lo < limit) {
        int hi = lo == 0 && limit > PS__ARNOLDI_CHECKPOINT ? PS__ARNOLDI_CHECKPOINT : limit;
        PS__TRY(ps__iter_fetch(s, 0, lead + hi * stride, from, h->coef, h->coefs));
        if (lo == 0 && lead && restart_ends_solve(s, h, h->coefs[0])) {
            if (hi < limit) ps__iter(s->be)->arnoldi_cancel(s->be);
            *done = 1;
            return PS_SUCCESS;
        }
        for (int j = lo; j < hi; j++) {
            int stop;
            const double *coefs = h->coefs + lead + (size_t)j * (size_t)stride;
            PS__TRY(take_column(s, h, j, coefs, done, &stop));
            *k = j + 1;
            if (*done || stop) {
                if (hi < limit)
                    ps__iter(s->be)->arnoldi_cancel(s->be); /* the steps still to come */
                return PS_SUCCESS;
            }
        }
        lo = hi;
    }
    return PS_SUCCESS;
}

/* The end of a cycle of k steps: y, then x += V y now, or by the next cycle's arnoldi_restart
 * when there will be a next cycle (CUDA makes the update, the residual and, where the matrix
 * fits its SMs, the first steps one launch: 25 us less per restart at n = 2000 on an H200 than
 * separate calls). A backend that declines gets update_x at the next cycle's start. */
static ps_status end_cycle(ps__solver *s, host_state *h, ps__mat V, int k, ps__vec zbuf, int done) {
    back_substitute(h, k);
    if (!done && !s->pc && s->iterations < s->o->max_iter) {
        h->pending = k;
        return PS_SUCCESS;
    }
    return update_x(s, h, V, k, zbuf);
}

/* arnoldi_restart with the pending update, the residual's norm and the columns of steps
 * 0 .. j1 - 1 fetched through slot 0, as fused_steps reads them. */
static ps_status restart_call(ps__solver *s, host_state *h, ps__mat V, int j1) {
    ps__vec dinv = {NULL, 0, 1};
    if (s->precond) dinv = s->dinv;
    return ps__iter(s->be)->arnoldi_restart(s->be, s->dt, s->n, s->a, dinv, s->b, s->x, V,
                                            h->pending, h->y, j1, restart_norm(s), 2 * h->m + 3, 0);
}

/* One restart cycle from x (after the last cycle's pending update): at most m Arnoldi steps,
 * then the update of x. */
static ps_status cycle(ps__solver *s, host_state *h, int *done) {
    int m = h->m;
    ps__mat V = {s->work, 0, (int)s->stride};
    ps__vec zbuf = ps__solver_vec(s, m + 1);
    ps__vec v0 = ps__mat_col(V, 0, 0);
    /* the steps this cycle may take */
    int limit = s->o->max_iter - s->iterations < m ? s->o->max_iter - s->iterations : m;
    int k = 0, queued = 1;
    *done = 0;
    /* the restart and the first steps by arnoldi_restart; else by separate calls. Not where the
     * driver has just formed the residual (rstart_valid, a run's first cycle): formed again, in
     * another rounding, its norm could fall within tol where the driver's did not, and a solve
     * the driver restarts for that would end at once every time (seen on CUDA: float, n = 40,
     * true residual 1.008e-5 against tol 1e-5, PORTSOLVE_TEST_SEED=1795736883). */
    ps_status rst = PS_ERR_NOT_SUPPORTED;
    if (!s->pc && h->fused && !s->rstart_valid) {
        rst = restart_call(s, h, V, limit);
        if (rst != PS_SUCCESS && rst != PS_ERR_NOT_SUPPORTED) return rst;
    }
    const int restarted = rst == PS_SUCCESS;
    int fused_call = restarted; /* steps 0 .. limit - 1 queued as one call */
    if (restarted) {
        h->pending = 0;
    } else {
        if (h->pending) PS__TRY(update_x(s, h, V, h->pending, zbuf));
        h->pending = 0;
        PS__TRY(ps__iter_start_residual(s, v0));
        /* beta = ||r|| and v0 = r / beta on the device (orthonormalize against no columns; r is
         * left as it is when beta is 0 or not finite), read through fetch slot 1 while step 0 is
         * already queued behind it, so the device does not idle while the host waits for beta
         * (cuBLAS's nrm2, the read and the scaling took about 35 us per restart at n = 5000 on
         * an H100). A step 0 queued for a cycle that does not run is simply not used. */
        ps__vec beta_col = restart_norm(s);
        PS__TRY(ps__iter(s->be)->orthonormalize(s->be, s->dt, s->n, 0, V, v0, beta_col, 1));
        ps_status fst =
            h->fused && !s->pc ? steps_enqueue(s, m, V, 0, limit, 0) : PS_ERR_NOT_SUPPORTED;
        if (fst != PS_SUCCESS && fst != PS_ERR_NOT_SUPPORTED) return fst;
        if (fst != PS_SUCCESS) PS__TRY(arnoldi_enqueue(s, m, V, 0, zbuf));
        double beta;
        PS__TRY(ps__iter_fetch(s, 1, 1, beta_col, h->coef, &beta));
        if (restart_ends_solve(s, h, beta)) {
            if (fst == PS_SUCCESS)
                ps__iter(s->be)->arnoldi_cancel(s->be); /* the steps queued above */
            *done = 1;
            return PS_SUCCESS;
        }
        fused_call = fst == PS_SUCCESS;
    }
    if (fused_call) { /* by arnoldi_restart's call, its fetch starts with the restart's norm */
        PS__TRY(fused_steps(s, h, limit, restarted, done, &k));
        if (*done && k == 0) return PS_SUCCESS; /* the restart's norm ended the solve */
        return end_cycle(s, h, V, k, zbuf, *done);
    }
    double *coefs = h->coefs;
    while (k < m && !*done) {
        int j = k;
        /* step j + 1 runs while the host works on step j (unused if step j ends the cycle) */
        if (queued == j + 1 && j + 1 < m && s->iterations + 2 <= s->o->max_iter) {
            PS__TRY(arnoldi_enqueue(s, m, V, j + 1, zbuf));
            queued++;
        }
        PS__TRY(ps__iter_fetch(s, j % 2, 2 * j + 3, step_column(s, m, j), h->coef, coefs));
        int stop;
        PS__TRY(take_column(s, h, j, coefs, done, &stop));
        k = j + 1;
        if (stop) break;
    }
    return end_cycle(s, h, V, k, zbuf, *done);
}

ps_status ps__iter_gmres(ps__solver *s) {
    int m = s->o->restart < s->n ? s->o->restart : s->n;
    host_state h = {m, NULL, NULL, NULL, NULL, NULL, NULL, NULL, m <= PS__GMRES_FUSED_MAX_M, 0};
    /* the elements coefs and coef hold: the columns of a cycle (or a step) after the
     * restart's norm, as arnoldi_restart fetches them */
    size_t held = 1 + (h.fused ? (size_t)m : 1) * (2 * (size_t)m + 3);
    size_t doubles = (size_t)(m + 1) * (size_t)m /* H */ + 2 * (size_t)m /* cs, sn */ +
                     2 * ((size_t)m + 1) /* g, y */ + 2 * held /* coefs, coef */;
    double *block;
    PS__TRY(ps__host_alloc(s->ctx, doubles * sizeof(double), (void **)&block));
    h.H = block;
    h.cs = h.H + (size_t)(m + 1) * (size_t)m;
    h.sn = h.cs + m;
    h.g = h.sn + m;
    h.y = h.g + (m + 1);
    h.coefs = h.y + (m + 1);
    h.coef = h.coefs + held;
    ps_status st = PS_SUCCESS;
    int done = 0;
    while (!st && !done) {
        st = cycle(s, &h, &done);
        /* A cycle ended by tol: the driver checks the true residual. Otherwise go on. */
        if (!st && !done && s->iterations >= s->o->max_iter) {
            s->end = PS__ITER_MAX_ITER;
            done = 1;
        }
    }
    ps__host_free(s->ctx, block);
    return st;
}
