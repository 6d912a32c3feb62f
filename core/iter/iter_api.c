/* The iterative solvers' public entries: options, the device-matrix level and the host drivers. */
#include "base/check.h"
#include "iter/iter.h"
#include "base/matrix.h"
#include "base/staging.h"

#include <math.h>

ps_iter_options ps_iter_options_default(void) {
    ps_iter_options o = {1e-8, 1000, 35, PS_PRECOND_NONE, NULL, 0};
    return o;
}

static const ps__enum_name method_names[] = {{"jacobi", PS_ITER_JACOBI},
                                             {"gauss-seidel", PS_ITER_GAUSS_SEIDEL},
                                             {"cg", PS_ITER_CG},
                                             {"bicgstab", PS_ITER_BICGSTAB},
                                             {"gmres", PS_ITER_GMRES}};

const char *ps_iter_method_name(ps_iter_method method) {
    return ps__enum_to_name(method_names, PS__COUNT(method_names), (int)method, NULL);
}

/* Checks the method and the options (argument position pos); NULL options are the defaults. */
static ps_status check_options(ps_context *ctx, const char *fn, ps_iter_method method,
                               const ps_iter_options *opts, int pos, ps_iter_options *out) {
    if (!ps_iter_method_name(method))
        return ps__bad_arg(ctx, 2, "%s: method=%d is not a ps_iter_method", fn, (int)method);
    *out = opts ? *opts : ps_iter_options_default();
    if (!(out->tol >= 0) || !isfinite(out->tol))
        return ps__bad_arg(ctx, pos, "%s: opts->tol=%g is not a finite number >= 0", fn, out->tol);
    if (out->max_iter < 0)
        return ps__bad_arg(ctx, pos, "%s: opts->max_iter=%d is negative", fn, out->max_iter);
    if (out->restart < 1)
        return ps__bad_arg(ctx, pos, "%s: opts->restart=%d is less than 1", fn, out->restart);
    if (out->precond != PS_PRECOND_NONE && out->precond != PS_PRECOND_JACOBI)
        return ps__bad_arg(ctx, pos, "%s: opts->precond=%d is not a ps_precond", fn,
                           (int)out->precond);
    if (out->history_capacity < 0 || (out->history_capacity > 0 && !out->history))
        return ps__bad_arg(ctx, pos, "%s: opts->history_capacity=%d needs a history array", fn,
                           out->history_capacity);
    return PS_SUCCESS;
}

static ps_status check_vector(ps_context *ctx, const ps_matrix *v, const ps_matrix *A, int pos,
                              const char *fn, const char *name) {
    PS__TRY(ps__check_matrix(ctx, v, pos, fn, name));
    if (v->rows != A->rows || v->cols != 1)
        return ps__bad_arg(ctx, pos, "%s: %s is %d x %d, not %d x 1", fn, name, v->rows, v->cols,
                           A->rows);
    if (v->dt != A->dt) {
        ps__bad_arg(ctx, pos, "%s: A and %s differ in precision", fn, name);
        return PS_ERR_DTYPE_MISMATCH;
    }
    return PS_SUCCESS;
}

ps_status ps_mat_iter_solve(ps_context *ctx, ps_iter_method method, const ps_matrix *A,
                            const ps_matrix *b, ps_matrix *x, const ps_iter_options *opts,
                            ps_iter_result *res) {
    static const char fn[] = "ps_mat_iter_solve";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_iter_options o;
    PS__TRY(check_options(ctx, fn, method, opts, 6, &o));
    PS__TRY(ps__check_matrix(ctx, A, 3, fn, "A"));
    if (A->rows != A->cols)
        return ps__bad_arg(ctx, 3, "%s: A is %d x %d, not square", fn, A->rows, A->cols);
    PS__TRY(check_vector(ctx, b, A, 4, fn, "b"));
    PS__TRY(check_vector(ctx, x, A, 5, fn, "x"));
    ps_iter_result local;
    ps__mat av = ps__matrix_view(A);
    ps__vec bv = {b->buf, b->off, 1}, xv = {x->buf, x->off, 1};
    return ps__iter_solve(ctx, fn, method, A->dt, A->rows, av, bv, xv, &o, res ? res : &local);
}

/* Host driver: A and b are read where they are (aliased on the CPU) or staged; x is worked on
 * in a copy and written back only when the solve produced an iterate (success, no convergence,
 * breakdown), so any other failure leaves it as it was. */
static ps_status host_solve(ps_context *ctx, ps_iter_method method, ps__dtype dt, const char *fn,
                            int n, const void *A, int lda, const void *b, void *x,
                            const ps_iter_options *opts, ps_iter_result *res) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_iter_result local;
    if (!res) res = &local;
    ps_iter_options o;
    PS__TRY(check_options(ctx, fn, method, opts, 8, &o));
    if (n < 0) return ps__bad_arg(ctx, 2, "%s: n=%d is negative", fn, n);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 3));
    if (!b && n > 0) return ps__bad_arg(ctx, 5, "%s: b is NULL", fn);
    if (!x && n > 0) return ps__bad_arg(ctx, 6, "%s: x is NULL", fn);
    PS__TRY(ps__check_dtype_supported(ctx, dt, fn));

    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + 8.0 * n));
    ps__finite_check check_a = {fn, "A", 3, PS__SHAPE_ALL}, check_b = {fn, "b", 5, PS__SHAPE_ALL},
                     check_x = {fn, "x", 6, PS__SHAPE_ALL};
    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, bs, xs;
    ps_status st = ps__stage_in(&s, dt, n, n, A, lda, 1, &check_a, &a);
    if (!st) st = ps__stage_in(&s, dt, n, 1, b, ps__max1(n), 1, &check_b, &bs);
    if (!st) st = ps__stage_in(&s, dt, n, 1, x, ps__max1(n), 0, &check_x, &xs);
    if (!st) {
        ps__vec bv = {bs.dev.buf, bs.dev.off, 1}, xv = {xs.dev.buf, xs.dev.off, 1};
        st = ps__iter_solve(ctx, fn, method, dt, n, a.dev, bv, xv, &o, res);
        int has_iterate = st == PS_SUCCESS || st == PS_ERR_NO_CONVERGENCE || st == PS_ERR_BREAKDOWN;
        if (has_iterate) {
            /* Keep the solver's status and message unless the copy back fails. */
            ps_status out = ps__stage_out(ctx, dt, n, 1, &xs, x, ps__max1(n));
            if (out) st = out;
        }
    }
    ps__scratch_end(&s);
    return st;
}

#define PS__ITER_HOST(name, method, T, dt)                                                         \
    ps_status name(ps_context *ctx, int n, const T *A, int lda, const T *b, T *x,                  \
                   const ps_iter_options *opts, ps_iter_result *res) {                             \
        return host_solve(ctx, method, dt, #name, n, A, lda, b, x, opts, res);                     \
    }
PS__ITER_HOST(ps_sjacobi, PS_ITER_JACOBI, float, PS__FLOAT)
PS__ITER_HOST(ps_djacobi, PS_ITER_JACOBI, double, PS__DOUBLE)
PS__ITER_HOST(ps_sgs, PS_ITER_GAUSS_SEIDEL, float, PS__FLOAT)
PS__ITER_HOST(ps_dgs, PS_ITER_GAUSS_SEIDEL, double, PS__DOUBLE)
PS__ITER_HOST(ps_scg, PS_ITER_CG, float, PS__FLOAT)
PS__ITER_HOST(ps_dcg, PS_ITER_CG, double, PS__DOUBLE)
PS__ITER_HOST(ps_sbicgstab, PS_ITER_BICGSTAB, float, PS__FLOAT)
PS__ITER_HOST(ps_dbicgstab, PS_ITER_BICGSTAB, double, PS__DOUBLE)
PS__ITER_HOST(ps_sgmres, PS_ITER_GMRES, float, PS__FLOAT)
PS__ITER_HOST(ps_dgmres, PS_ITER_GMRES, double, PS__DOUBLE)
