/*
 * Mixed-precision iterative refinement (LAPACK dsgesv; Carson and Higham 2018; Haidar et al.
 * 2018), written once against the vtable.
 *
 * Steps 1 and 2 are in refine_low.c.
 * 1. ||A||_inf on the device; A narrowed to a float copy (scaled by a power of two below
 *    1/||A||_inf for FP16, whose range ends at 65504, so that every |a(i,j)| <= 1 and the LU's
 *    entries stay within a growth factor of 1; for FP16X3 the float copy is then scaled to
 *    max |a(i,j)| in [1/2, 1)). Overflow is LAPACK's ITER = -2.
 * 2. The float LU of the copy, its GEMMs in the requested compute mode (float, or TF32/FP16/BF16
 *    tensor cores: set_float_compute); for n not a multiple of 8, the LU of diag(copy, I) of
 *    the next such order, whose GEMMs then all have aligned sides. An exactly zero pivot is
 *    ITER = -3.
 * 3. x0 = (LU)^-1 b, then classical refinement in double: r = b - A x (double GEMV/GEMM on the
 *    caller's A), d = (LU)^-1 r in float, x += d, while each step at least halves the largest
 *    ||r_j||_inf / ||x_j||_inf. A column is done when ||r_j||_inf <= ||x_j||_inf tol
 *    (ps__refine_tolerance: LAPACK's test with a margin). Norms come from norm_inf, which
 *    propagates NaN, so a diverged iterate can never pass the test.
 * 4. When classical refinement stalls (two steps in a row slower than 1/2, or one without
 *    progress: kappa(A) u_low is near 1), GMRES-IR: the same outer steps, but each correction
 *    equation A d = r solved by flexible GMRES in double, right-preconditioned by the
 *    low-precision LU factors applied in double, until the outer test would pass or to a
 *    relative residual of 1e-12 (ir_gmres_tol, a tuning knob, sets another). GMRES needs
 *    the preconditioned operator's spectrum clustered, not its distance from I below 1, so it
 *    converges for condition numbers far past 1/u_low, where one LU solve per step does not.
 *    The outer test stays LAPACK's (GMRES's own 2-norm tolerance cannot express it: the test
 *    sits at the rounding floor of the residual).
 * 5. Otherwise the double LU of A in place and its solve (dgesv), ITER = -31 (LAPACK's).
 *
 * With the RBT factorization, step 2 factors L A R instead (L, R random butterflies of depth 2,
 * applied while narrowing) with each pivot searched within a window of two block rows
 * (ps__getrf_window), and every low-precision solve becomes d = R (LU)^-1 L r. Only the
 * preconditioner changes: residuals, the test and the fallback are A's own.
 */
#include "refine/refine_impl.h"

#include "base/check.h"
#include "base/staging.h"
#include "iter/iter.h"
#include "lu/lu.h"
#include "refine/trsv_blocked.h"
#include "refine/refine_kernels.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A classical step that does not reduce the residual-to-solution ratio by this factor is slow
 * (refinement contracts by about kappa(A) u_low per step); two slow steps in a row, or one that
 * does not reduce it at all, mean classical refinement has stalled. One slow step alone does
 * not: with kappa u_low near 1/2 the rate scatters around the factor from step to step, while a
 * GMRES-IR step costs more than a classical one (on an H100 at n = 32768 about 12 ms against
 * 7.5: the widened factors' double triangular solves). */
#define PS__REFINE_STALL 0.5
/* GMRES-IR solves each correction equation until the outer test would pass
 * (PS__REFINE_ENOUGH_SHARE), or at the latest to this relative residual, near what double
 * products with A can attain; ir_gmres_tol sets another. */
#define PS__REFINE_GMRES_TOL 1e-12
/* GMRES-IR's GMRES stops once its residual estimate, relative to r's, is at
 * most this share of the contraction that would pass LAPACK's test, ||x||_inf cte / ||r||_inf: one
 * outer step then takes the Arnoldi steps the test asks for and no more (each costs a double GEMV
 * and a preconditioner solve). The estimate is GMRES's, in the
 * 2-norm, and x changes by d: the share stands for both. At n = 32768, cond 1e6 (fp16x3, H200),
 * ||x||_inf fell 2.7x in the first outer step, and 1 and 0.5 missed the test by 2.2x and 1.3x,
 * which cost an outer step (a GEMV and a GMRES restart) to save a step or two; 0.25 met it in one
 * (docs/IR.md). Where it is not enough the outer test fails and the next outer step goes on. */
#define PS__REFINE_ENOUGH_SHARE 0.25

/* dst = R src, widened to double (src float), or in place in double (R = I without RBT). */
static ps_status widen(refine *w, ps__dtype src_dt, int cols, ps__mat src, ps__mat dst) {
    if (w->rbt[0])
        return ps__refine(w->be)->butterfly(w->be, src_dt, PS__DOUBLE, w->n, cols, 1.0, w->rbt[1],
                                            NULL, src, dst, w->flag);
    if (src_dt == PS__DOUBLE) return PS_SUCCESS;
    return w->ops->convert(w->be, src_dt, PS__DOUBLE, w->n, cols, 1.0, src, dst, w->flag);
}

/* The test on every column from the norms in rnrm and xnrm: converged and worst. */
static void judge(refine *w) {
    w->converged = 1;
    w->worst = 0;
    for (int j = 0; j < w->nrhs; j++) {
        if (!(w->rnrm[j] <= w->xnrm[j] * w->cte)) w->converged = 0; /* NaN fails */
        double ratio = w->rnrm[j] == 0 ? 0 : w->rnrm[j] / w->xnrm[j];
        if (isnan(ratio) || isinf(ratio) || isnan(w->worst))
            w->worst = NAN;
        else if (ratio > w->worst)
            w->worst = ratio;
    }
}

/* r = b - A x over every column of the n x nrhs x (w->x, or the step before the last) into r,
 * with the per-column norms and the test. */
static ps_status residual_of(refine *w, ps__mat x, ps__mat r) {
    ps__backend *be = w->be;
    const ps__backend_ops *ops = w->ops;
    int n = w->n;
    ps__scalar one = ps__scalar_of(PS__DOUBLE, 1.0), minus = ps__scalar_of(PS__DOUBLE, -1.0);
    PS__TRY(ops->copy2d(be, PS__DOUBLE, n, w->nrhs, w->b, r));
    if (w->nrhs == 1)
        PS__TRY(ops->gemv(be, PS__DOUBLE, PS__NOTRANS, n, n, &minus, w->a, ps__mat_col(x, 0, 0),
                          &one, ps__mat_col(r, 0, 0)));
    else
        PS__TRY(ops->gemm(be, PS__DOUBLE, PS__NOTRANS, PS__NOTRANS, n, w->nrhs, n, &minus, w->a, x,
                          &one, r));
    for (int j = 0; j < w->nrhs; j++) {
        PS__TRY(ops->norm_inf(be, PS__DOUBLE, n, 1, ps__mat_at(r, 0, j), &w->rnrm[j]));
        PS__TRY(ops->norm_inf(be, PS__DOUBLE, n, 1, ps__mat_at(x, 0, j), &w->xnrm[j]));
    }
    judge(w);
    return PS_SUCCESS;
}

static ps_status residual(refine *w) {
    return residual_of(w, w->x, w->r);
}

/* dst = (LU)^-1 (scale * src) over cols columns, in the low precision, widened to double in dst
 * (which may be src). overflow as narrow; after an overflow dst is not written. */
static ps_status low_solve(refine *w, int cols, ps__mat src, ps__mat dst, int *overflow) {
    PS__TRY(ps__refine_narrow(w, cols, src, w->rf, NULL, 0, overflow));
    if (overflow && *overflow) return PS_SUCCESS;
    PS__TRY(ps__getrs_perm(w->ctx, PS__FLOAT, w->n, cols, w->af, w->perm, w->rf, w->rp));
    return widen(w, PS__FLOAT, cols, w->rp, dst);
}

/* z = (LU)^-1 P^T dv in double with the float factors themselves (the backend's trsv_mixed). */
static ps_status mixed_solve(refine *w, ps__mat zm) {
    ps__vec z = {zm.buf, zm.off, 1};
    PS__TRY(w->ops->permute_rows(w->be, PS__DOUBLE, w->n, 1, w->perm, 0, w->dv, zm));
    if (w->blocked.nb) { /* z -> dv by L, dv -> z by U */
        ps__vec dv = {w->dv.buf, w->dv.off, 1};
        PS__TRY(ps__trsv_blocked_solve(w->ctx, &w->blocked, PS__LOWER, w->af, z, dv));
        return ps__trsv_blocked_solve(w->ctx, &w->blocked, PS__UPPER, w->af, dv, z);
    }
    PS__TRY(ps__refine(w->be)->trsv_mixed(w->be, PS__LOWER, PS__UNIT, w->n, w->af, z));
    return ps__refine(w->be)->trsv_mixed(w->be, PS__UPPER, PS__NONUNIT, w->n, w->af, z);
}

/* The GMRES-IR preconditioner: z = R (LU)^-1 L (scale v) in double, with the float factors
 * (trsv_mixed) or with them widened to double; without either, in the low precision,
 * unchecked, so an Arnoldi step costs no synchronization here: a value beyond float's range
 * narrows to Inf, which makes the iterate non-finite, fails the test and leads to the
 * fallback. */
static ps_status precondition(void *arg, ps__vec v, ps__vec z) {
    refine *w = arg;
    ps__mat vm = {v.buf, v.off, w->n}, zm = {z.buf, z.off, w->n};
    if (!w->ad.buf && !w->mixed && !w->blocked.nb) return low_solve(w, 1, vm, zm, NULL);
    /* dv = L (scale v), then z = (LU)^-1 P^T dv; v (a GMRES basis vector) is left as it was */
    if (w->rbt[0])
        PS__TRY(ps__refine(w->be)->butterfly(w->be, PS__DOUBLE, PS__DOUBLE, w->n, 1, w->scale,
                                             w->rbt[0], NULL, vm, w->dv, w->flag));
    else
        PS__TRY(
            w->ops->convert(w->be, PS__DOUBLE, PS__DOUBLE, w->n, 1, w->scale, vm, w->dv, w->flag));
    if (w->mixed || w->blocked.nb)
        PS__TRY(mixed_solve(w, zm));
    else
        PS__TRY(ps__getrs_perm(w->ctx, PS__DOUBLE, w->n, 1, w->ad, w->perm, w->dv, zm));
    return widen(w, PS__DOUBLE, 1, zm, zm);
}

/* dst = (LU)^-1 (scale * src) for classical refinement: where GMRES-IR's inverted diagonal
 * blocks were made while the LU ran (early_inverses) and there is one right-hand side, by
 * GMRES-IR's own preconditioner (the float factors in double arithmetic, a gemv a block); else in
 * the low precision (low_solve), whose solve of several columns is one trsm. The blocked solve
 * reads the float factors and the inverses once, where the float trsv pair read the factors at
 * half the memory's rate (measured about 2.4x faster a solve on an H200, docs/IR.md). Its double
 * vectors need no narrowing, so only low_solve sets *overflow. */
static ps_status classical_solve(refine *w, ps__mat src, ps__mat dst, int *overflow) {
    if (!w->blocked.nb || w->nrhs != 1) return low_solve(w, w->nrhs, src, dst, overflow);
    return precondition(w, ps__mat_col(src, 0, 0), ps__mat_col(dst, 0, 0));
}

/* Classical refinement from x0 = (LU)^-1 b. Ends converged, stalled (when GMRES may take over),
 * after max_iter steps, or on overflow (*overflow). Where z_last is set, each step keeps its
 * correction there and the residual it started from in r_prev (w->seeded), for GMRES-IR. */
static ps_status classical(refine *w, const ps_refine_options *o, ps_refine_result *res,
                           int *overflow) {
    PS__TRY(classical_solve(w, w->b, w->x, overflow));
    if (*overflow) return PS_SUCCESS;
    PS__TRY(residual(w));
    ps__scalar one = ps__scalar_of(PS__DOUBLE, 1.0);
    int slow = 0; /* consecutive slow steps */
    while (!w->converged && res->classical_steps < o->max_iter) {
        double before = w->worst;
        ps__mat d = w->z_last.buf ? w->z_last : w->r;
        PS__TRY(classical_solve(w, w->r, d, overflow));
        if (*overflow) return PS_SUCCESS;
        for (int j = 0; j < w->nrhs; j++)
            PS__TRY(w->ops->axpy(w->be, PS__DOUBLE, w->n, &one, ps__mat_col(d, 0, j),
                                 ps__mat_col(w->x, 0, j)));
        res->classical_steps++;
        if (w->z_last.buf) { /* r (this step's start) becomes r_prev; the new residual goes to r */
            ps__mat t = w->r;
            w->r = w->r_prev, w->r_prev = t;
            w->prev_rnrm = w->rnrm[0], w->prev_xnrm = w->xnrm[0];
            w->seeded = 1;
        }
        PS__TRY(residual(w));
        slow = w->worst <= PS__REFINE_STALL * before ? 0 : slow + 1;
        if (o->gmres && slow > 0 && (slow == 2 || !(w->worst < before))) break; /* stalled */
    }
    return PS_SUCCESS;
}

/* Device memory the solve can go on without: *buf NULL, and no message left behind, where there is
 * none; any other failure is returned. */
static ps_status optional_dev(refine *w, size_t bytes, void **buf) {
    ps_status st = ps__scratch_dev(w->scratch, bytes, buf);
    if (st != PS_ERR_OUT_OF_MEMORY) return st;
    *buf = NULL;
    w->ctx->last_error[0] = '\0';
    return PS_SUCCESS;
}

/* The GMRES-IR preconditioner's factors in double: the float factors as they are where the
 * backend solves with them in double (trsv_mixed, asked by a call with n = 0), else widened to
 * double in w->ad. The factors' rounding is the preconditioner's point; applying them in float
 * as well adds an error of kappa(A) u_low relative to each z = M^-1 v, which near kappa u_low
 * = 1 is the size of z itself: GMRES then needs far more steps and sometimes stalls (measured at
 * cond 1e8 in float, n = 200: 1447 Arnoldi steps in the first outer steps of 41 matrices, one
 * matrix in some 400 falling back, against 1001 steps and none with the double solve). Carson and
 * Higham's analysis likewise applies the preconditioner in the working precision or higher. Without
 * the device memory (n^2 doubles) the preconditioner stays in the low precision. */
static ps_status factors_in_double(refine *w) {
    if (w->blocked.nb) return PS_SUCCESS; /* inverted while the LU ran (early_inverses) */
    /* by inverted diagonal blocks where the backend asks for them (core/refine/trsv_blocked.c);
     * without the memory for the inverses, as below */
    int nb = ps__trsv_blocked_order(w->ctx, w->n);
    if (nb > 0) {
        ps_status st = ps__trsv_blocked_make(w->scratch, w->n, nb, w->af, w->flag, &w->blocked);
        if (st == PS_SUCCESS) return PS_SUCCESS;
        w->blocked.nb = 0;
        if (st != PS_ERR_OUT_OF_MEMORY) return st;
        w->ctx->last_error[0] = '\0';
    }
    ps__vec none = {w->d.buf, 0, 1};
    ps_status probe = ps__refine(w->be)->trsv_mixed(w->be, PS__LOWER, PS__UNIT, 0, w->af, none);
    if (probe == PS_SUCCESS) {
        w->mixed = 1;
        return PS_SUCCESS;
    }
    if (probe != PS_ERR_NOT_SUPPORTED) return probe;
    PS__TRY(optional_dev(w, (size_t)w->n * (size_t)w->n * sizeof(double), &w->ad.buf));
    if (!w->ad.buf) return PS_SUCCESS;
    return w->ops->convert(w->be, PS__FLOAT, PS__DOUBLE, w->n, w->n, 1.0, w->af, w->ad, w->flag);
}

/* GMRES-IR starts from the iterate before the last classical step, with that step as its first
 * Arnoldi step (flexible GMRES takes any z_0 with its product A z_0): z_0 is the step's correction
 * d and A z_0 = r_prev - r_last, the change its residuals show, so the step's solve and product
 * are not made again, and GMRES's first iterate is at least as good as the step's (it minimizes
 * over multiples of d, 1 included). At n = 32768, cond 1e6 (fp16x3, H200) the step made the
 * residual worse, 8.8e-6 against 6.3e-6 relative to ||x||. The difference of the two residuals is
 * A d up to their rounding and x's, about eps ||A|| ||x||, below LAPACK's test by sqrt(n). With
 * one right-hand side only (with more, a column that passed at the last step would be undone). */
static ps_status seed_first_step(refine *w, ps__precond *pc) {
    int seeded = w->seeded;
    w->seeded = 0;
    if (!seeded) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(PS__DOUBLE, 1.0), minus = ps__scalar_of(PS__DOUBLE, -1.0);
    ps__vec d = ps__mat_col(w->z_last, 0, 0), r_last = ps__mat_col(w->r, 0, 0);
    ps__vec r_prev = ps__mat_col(w->r_prev, 0, 0);
    PS__TRY(w->ops->axpy(w->be, PS__DOUBLE, w->n, &minus, d, ps__mat_col(w->x, 0, 0)));
    PS__TRY(w->ops->axpby(w->be, PS__DOUBLE, w->n, &one, r_prev, &minus, r_last)); /* A d */
    pc->seed_z = d, pc->seed_az = r_last;
    ps__mat t = w->r; /* GMRES solves from r_prev */
    w->r = w->r_prev, w->r_prev = t;
    w->rnrm[0] = w->prev_rnrm, w->xnrm[0] = w->prev_xnrm;
    judge(w);
    return PS_SUCCESS;
}

/* GMRES-IR: outer steps x += d, r = b - A x as in classical refinement, but each column's
 * correction equation A d = r (columns that have not passed the test) solved by GMRES from
 * d = 0 until the outer test would pass (PS__REFINE_ENOUGH_SHARE) or to a relative residual
 * PS__REFINE_GMRES_TOL (or the context's ir_gmres_tol), right-preconditioned by the
 * low-precision LU, with at most max(max_iter, restart) Arnoldi steps: at least one whole cycle,
 * since a cycle's last steps converge as fast as its first and a restart loses the Krylov space
 * (n = 32768, cond 1e6, fp16x3: 57 steps in one cycle of 60, against 30 + 30 in cycles of 30;
 * the residual GMRES starts from is the outer step's, so no product forms it again, and its end
 * is judged by the outer test, so no product checks GMRES's estimate either). GMRES never
 * increases the residual of A d = r, so a correction from an unconverged GMRES is still taken. Ends
 * when the test passes, after max_iter outer steps, or when an outer step stalls as a classical one
 * would. */
static ps_status gmres_ir(refine *w, const ps_refine_options *o, ps_refine_result *res) {
    /* each correction starts from d = 0, and the outer test judges it by its own residual */
    ps__vec none = {NULL, 0, 1};
    ps__precond pc = {.apply = precondition,
                      .arg = w,
                      .x_zero = 1,
                      .estimate_ends = 1,
                      .seed_z = none,
                      .seed_az = none};
    ps_iter_options io = ps_iter_options_default();
    io.max_iter = o->max_iter > o->restart ? o->max_iter : o->restart;
    io.restart = o->restart;
    ps__scalar zero = ps__scalar_of(PS__DOUBLE, 0.0), one = ps__scalar_of(PS__DOUBLE, 1.0);
    PS__TRY(factors_in_double(w));
    PS__TRY(seed_first_step(w, &pc));
    for (int outer = 0; outer < o->max_iter && !w->converged; outer++) {
        double before = w->worst;
        io.tol =
            w->ctx->tuning.ir_gmres_tol > 0 ? w->ctx->tuning.ir_gmres_tol : PS__REFINE_GMRES_TOL;
        for (int j = 0; j < w->nrhs; j++) {
            if (w->rnrm[j] <= w->xnrm[j] * w->cte) continue;
            ps__vec dj = ps__mat_col(w->d, 0, j);
            PS__TRY(w->ops->fill(w->be, PS__DOUBLE, w->n, 1, &zero, ps__mat_at(w->d, 0, j)));
            /* stop where the outer test would pass (NaN: never) */
            pc.enough = PS__REFINE_ENOUGH_SHARE * w->xnrm[j] * w->cte / w->rnrm[j];
            ps_iter_result ir;
            ps_status st = ps__iter_solve_precond(w->ctx, w->fn, PS_ITER_GMRES, PS__DOUBLE, w->n,
                                                  w->a, ps__mat_col(w->r, 0, j), dj, &io, &ir, &pc);
            /* the seeded step reused the last classical step's solve and product */
            res->gmres_iterations += ir.iterations - (pc.seed_z.buf && ir.iterations > 0);
            pc.seed_z.buf = pc.seed_az.buf = NULL;
            /* Not converging is judged by the outer test; anything else is a real failure. */
            if (st != PS_SUCCESS && st != PS_ERR_NO_CONVERGENCE && st != PS_ERR_BREAKDOWN)
                return st;
            w->ctx->last_error[0] = '\0';
            w->ctx->last_info = 0;
            PS__TRY(w->ops->axpy(w->be, PS__DOUBLE, w->n, &one, dj, ps__mat_col(w->x, 0, j)));
        }
        PS__TRY(residual(w));
        if (!(w->worst <= PS__REFINE_STALL * before)) break;
    }
    return PS_SUCCESS;
}

/* dgesv on A in place, the fallback. */
static ps_status fallback(refine *w, ps_refine_result *res, int code) {
    ps_context *ctx = w->ctx;
    res->path = PS_REFINE_FALLBACK;
    res->iter = code;
    res->backward_error = NAN;
    int info;
    PS__TRY(ps__getrf(ctx, PS__DOUBLE, w->n, w->n, w->a, w->ipiv, w->flag));
    PS__TRY(ps__read_info(ctx, w->flag, &info));
    if (info > 0) {
        ctx->last_info = info;
        return ps__fail(ctx, PS_ERR_SINGULAR,
                        "%s: U(%d,%d) of the double factorization is exactly zero, so the matrix "
                        "is singular (info=%d; the %s factorization had failed first, iter=%d)",
                        w->fn, info, info, info, ps_lowprec_name(res->precision), code);
    }
    if (w->nrhs == 0) return PS_SUCCESS;
    PS__TRY(w->ops->copy2d(w->be, PS__DOUBLE, w->n, w->nrhs, w->b, w->x));
    return ps__getrs(ctx, PS__DOUBLE, PS__NOTRANS, w->n, w->nrhs, w->a, w->ipiv, w->x);
}

static ps_status solve(refine *w, const ps_refine_options *o, ps_refine_result *res) {
    int code, overflow = 0;
    if (!(w->cte > 0)) return fallback(w, res, PS_REFINE_NOT_CONVERGED); /* nothing to certify */
    PS__TRY(ps__refine_factor_low(w, o, &code));
    if (code) return fallback(w, res, code);
    if (w->nrhs == 0) return PS_SUCCESS; /* LAPACK still factors: ipiv is defined */
    /* Every solve from here on moves its rows in one gather: laswp would apply the n interchanges
     * a chunk after another, a launch per chunk, costing as much as the residual's product. */
    PS__TRY(ps__pivots_to_perm(w->ctx, w->n, w->ipiv, w->perm));
    PS__TRY(classical(w, o, res, &overflow));
    if (overflow) return fallback(w, res, PS_REFINE_OVERFLOW);
    res->path = PS_REFINE_CLASSICAL;
    if (!w->converged && o->gmres) {
        PS__TRY(gmres_ir(w, o, res));
        res->path = PS_REFINE_GMRES;
    }
    if (!w->converged) return fallback(w, res, PS_REFINE_NOT_CONVERGED);
    res->iter = res->classical_steps + res->gmres_iterations;
    res->backward_error = w->anrm > 0 ? w->worst / w->anrm : 0;
    return PS_SUCCESS;
}

ps_status ps__dsgesv(ps_context *ctx, const char *fn, int n, int nrhs, ps__mat a, void *ipiv,
                     ps__mat b, ps__mat x, const ps_refine_options *o, ps_refine_result *res) {
    *res = (ps_refine_result){PS_REFINE_NONE, o->precision, o->factorization, 0, 0, 0, 0.0};
    if (n == 0) return PS_SUCCESS;
    refine w = {0};
    w.ctx = ctx, w.be = &ctx->be, w.ops = ctx->be.ops, w.fn = fn;
    w.n = n, w.nrhs = nrhs, w.a = a, w.b = b, w.x = x, w.ipiv = ipiv;
    w.ad = (ps__mat){NULL, 0, n};

    /* Refuse a precision the backend lacks before any work. */
    PS__TRY(w.ops->set_float_compute(w.be, (ps__float_compute)o->precision));
    PS__TRY(w.ops->set_float_compute(w.be, PS__COMPUTE_FP32));
    PS__TRY(w.ops->norm_inf(w.be, PS__DOUBLE, n, n, a, &w.anrm));
    if (!isfinite(w.anrm))
        return ps__fail(ctx, PS_ERR_NON_FINITE, "%s: A holds NaN or Inf (||A||_inf = %g)", fn,
                        w.anrm);
    w.cte = ps__refine_tolerance(w.anrm, n);
    w.scale = 1;
    if (o->precision == PS_LOWPREC_FP16 && w.anrm > 0) {
        int e;
        frexp(w.anrm, &e); /* anrm < 2^e */
        w.scale = ldexp(1.0, -e);
    }

    ps__scratch s = ps__scratch_begin(ctx);
    w.scratch = &s;
    w.nf = ps__aligned_order(n);
    size_t nr = (size_t)n * (size_t)(nrhs > 0 ? nrhs : 1);
    w.r = (ps__mat){NULL, 0, n};
    w.rf = (ps__mat){NULL, 0, n};
    w.d = (ps__mat){NULL, 0, n};
    ps_status st = ps__scratch_matrix(&s, PS__FLOAT, w.nf, w.nf, &w.af);
    if (!st) st = ps__scratch_dev(&s, nr * sizeof(double), &w.r.buf);
    if (!st) st = ps__scratch_dev(&s, 2 * nr * sizeof(float), &w.rf.buf); /* rf, then rp */
    w.rp = (ps__mat){w.rf.buf, nr, n};
    if (!st) st = ps__scratch_dev(&s, (size_t)n * sizeof(int32_t), &w.perm);
    int keep = o->gmres && nrhs == 1; /* z_last and r_prev, for GMRES-IR's seeded first step */
    if (!st && o->gmres)              /* d, then dv, then z_last and r_prev */
        st = ps__scratch_dev(&s, ((keep ? 3 : 1) * nr + (size_t)n) * sizeof(double), &w.d.buf);
    w.dv = (ps__mat){w.d.buf, nr, n};
    w.z_last = (ps__mat){keep ? w.d.buf : NULL, nr + (size_t)n, n};
    w.r_prev = (ps__mat){w.d.buf, 2 * nr + (size_t)n, n};
    if (!st) st = ps__scratch_dev(&s, sizeof(int32_t), &w.flag);
    if (!st) st = ps__scratch_host(&s, 2 * nr / (size_t)n * sizeof(double), (void **)&w.rnrm);
    w.xnrm = w.rnrm + nr / (size_t)n;
    if (!st) st = solve(&w, o, res);
    ps__scratch_end(&s);
    return st;
}
