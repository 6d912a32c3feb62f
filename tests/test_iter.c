/*
 * The iterative solvers on the backend given by --backend, both precisions: CG on symmetric
 * positive definite matrices (dlatms), Jacobi and Gauss-Seidel on diagonally dominant ones,
 * BiCGSTAB and GMRES(m) on nonsymmetric ones, each with and without the Jacobi preconditioner
 * where it applies. Each must reach tol (1e-10 double, 1e-5 float) with the residual of the
 * returned x recomputed here in double; the iteration counts must match the CPU backend's on
 * the same input within a small tolerance. Also: cases that cannot converge, breakdowns, zero
 * diagonals, b = 0, orders 0..3, lda > n, the residual history and the device-matrix level.
 */
#include "checks.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef enum { SPD, DOMINANT, NONSYMMETRIC } kind;

static ps_context *cpu_ctx; /* the reference for iteration counts */

static double tol_of(ps_dtype dt) {
    return dt == PS_DOUBLE ? 1e-10 : 1e-5;
}

/* A test matrix of the kind: SPD from dlatms (cond 1e2), strictly diagonally dominant (Jacobi's
 * iteration matrix has norm <= 1/2), or nonsymmetric with eigenvalues clustered around 2
 * (random / sqrt(n) + 2 I). Rows are scaled by scale^i when scale != 1 (a badly scaled
 * matrix for the preconditioner). */
static void *test_matrix(ps_dtype dt, kind k, int n, int lda, double scale) {
    void *a = ps_test_random_array(dt, lda, n);
    if (k == SPD && n > 0) {
        int info = dt == PS_DOUBLE ? ps_test_latms_d(n, 1e2, 'P', a, lda)
                                   : ps_test_latms_s(n, 1e2, 'P', a, lda);
        CHECK(info == 0, "latms %d", info);
    }
    for (int i = 0; i < n; i++) {
        if (k == DOMINANT) {
            double off = 0;
            for (int j = 0; j < n; j++)
                if (j != i) off += fabs(ps_test_get(dt, a, lda, i, j));
            ps_test_set(dt, a, lda, i, i, (ps_test_rand() < 0 ? -1 : 1) * (2 * off + 1));
        } else if (k == NONSYMMETRIC) {
            for (int j = 0; j < n; j++)
                ps_test_set(dt, a, lda, i, j,
                            ps_test_get(dt, a, lda, i, j) / sqrt((double)n) + (i == j ? 2 : 0));
        }
    }
    if (scale != 1) /* D A D keeps symmetry and definiteness */
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++)
                ps_test_set(dt, a, lda, i, j,
                            ps_test_get(dt, a, lda, i, j) * pow(scale, i % 3) * pow(scale, j % 3));
    return a;
}

/* ||b - A x||_2 / ||b||_2 in double. */
static double host_rel_residual(ps_dtype dt, int n, const void *A, int lda, const void *b,
                                const void *x) {
    double rr = 0, bb = 0;
    for (int i = 0; i < n; i++) {
        double r = ps_test_get(dt, b, n, i, 0);
        for (int j = 0; j < n; j++)
            r -= ps_test_get(dt, A, lda, i, j) * ps_test_get(dt, x, n, j, 0);
        rr += r * r;
        bb += ps_test_get(dt, b, n, i, 0) * ps_test_get(dt, b, n, i, 0);
    }
    return bb > 0 ? sqrt(rr / bb) : sqrt(rr);
}

static ps_status solve(ps_context *ctx, ps_iter_method m, ps_dtype dt, int n, const void *A,
                       int lda, const void *b, void *x, const ps_iter_options *o,
                       ps_iter_result *r) {
    typedef ps_status (*dfn)(ps_context *, int, const double *, int, const double *, double *,
                             const ps_iter_options *, ps_iter_result *);
    typedef ps_status (*sfn)(ps_context *, int, const float *, int, const float *, float *,
                             const ps_iter_options *, ps_iter_result *);
    static const dfn d[] = {ps_djacobi, ps_dgs, ps_dcg, ps_dbicgstab, ps_dgmres};
    static const sfn s[] = {ps_sjacobi, ps_sgs, ps_scg, ps_sbicgstab, ps_sgmres};
    return dt == PS_DOUBLE ? d[m](ctx, n, A, lda, b, x, o, r) : s[m](ctx, n, A, lda, b, x, o, r);
}

/* Solves from x = 0 (or a random guess), checks the true residual, the result fields, the
 * history, and the iteration count against the CPU backend. */
static void check_converges(ps_context *ctx, ps_iter_method m, ps_dtype dt, kind k, int n, int lda,
                            ps_precond pc, double scale, int restart) {
    const char *name = ps_iter_method_name(m);
    void *A = test_matrix(dt, k, n, lda, scale);
    void *b = ps_test_random_array(dt, n > 0 ? n : 1, 1);
    void *x0 = ps_test_random_array(dt, n > 0 ? n : 1, 1);
    void *x = ps_test_clone(dt, x0, n > 0 ? n : 1, 1);
    double hist[4000];
    ps_iter_options o = ps_iter_options_default();
    o.tol = tol_of(dt);
    o.max_iter = 3000;
    o.precond = pc;
    o.restart = restart;
    o.history = hist;
    o.history_capacity = 4000;
    ps_iter_result r;
    ps_status st = solve(ctx, m, dt, n, A, lda, b, x, &o, &r);
    CHECK(st == PS_SUCCESS, "%s %c n=%d precond=%d: %s: %s", name, dt == PS_DOUBLE ? 'd' : 's', n,
          (int)pc, ps_status_string(st), ps_context_last_error(ctx));
    double rel = host_rel_residual(dt, n, A, lda, b, x);
    /* The solver's residual is computed in the data's precision: allow its rounding. */
    double slack = dt == PS_DOUBLE ? 1.05 : 1.5;
    CHECK(rel <= o.tol * slack, "%s %c n=%d: true residual %g > tol %g (reported %g, %d its)", name,
          dt == PS_DOUBLE ? 'd' : 's', n, rel, o.tol, r.rel_residual, r.iterations);
    CHECK(r.converged && r.rel_residual <= o.tol, "%s result: converged=%d rel=%g", name,
          r.converged, r.rel_residual);
    CHECK(fabs(r.rel_residual - rel) <= 0.5 * o.tol + 0.5 * rel, "%s reported %g, true %g", name,
          r.rel_residual, rel);
    CHECK(r.history_length == (r.iterations < 4000 ? r.iterations : 4000),
          "%s history length %d for %d iterations", name, r.history_length, r.iterations);
    if (n > 0 && r.iterations > 0)
        CHECK(r.iterations <= 3000 && hist[r.history_length - 1] <= o.tol * slack,
              "%s: last history entry %g", name, hist[r.history_length - 1]);

    /* The same problem on the CPU backend takes about as many iterations. */
    if (cpu_ctx != ctx && n > 0) {
        void *xc = ps_test_clone(dt, x0, n, 1);
        ps_iter_result rc;
        o.history = NULL, o.history_capacity = 0;
        ps_status sc = solve(cpu_ctx, m, dt, n, A, lda, b, xc, &o, &rc);
        CHECK(sc == PS_SUCCESS, "cpu %s: %s", name, ps_context_last_error(cpu_ctx));
        int allowed = 2 + rc.iterations / 10;
        /* CG and GMRES end within n steps in exact arithmetic; steps past n are rounding's (a
         * float CG at n = 2, cond 1e2, where u cond is about tol, took 2 on CUDA, 5 on the CPU),
         * so counts are compared up to n + 1 */
        int mine = r.iterations, cpus = rc.iterations;
        if (m == PS_ITER_CG || m == PS_ITER_GMRES) {
            mine = mine < n + 1 ? mine : n + 1;
            cpus = cpus < n + 1 ? cpus : n + 1;
        }
        CHECK(abs(mine - cpus) <= allowed, "%s %c n=%d: %d iterations here, %d on the cpu backend",
              name, dt == PS_DOUBLE ? 'd' : 's', n, r.iterations, rc.iterations);
        free(xc);
    }
    free(A), free(b), free(x0), free(x);
}

/* Runs that cannot reach tol: they report it, with x the best iterate. */
static void check_no_convergence(ps_context *ctx, ps_dtype dt) {
    int n = 60;
    /* CG stopped after 3 iterations (its residual need not fall: the best is at worst x0 = 0). */
    void *A = test_matrix(dt, SPD, n, n, 1), *b = ps_test_random_array(dt, n, 1);
    void *x = calloc((size_t)n, sizeof(double));
    ps_iter_options o = ps_iter_options_default();
    o.tol = tol_of(dt);
    o.max_iter = 3;
    ps_iter_result r;
    ps_status st = solve(ctx, PS_ITER_CG, dt, n, A, n, b, x, &o, &r);
    CHECK(st == PS_ERR_NO_CONVERGENCE, "cg max_iter=3: %s", ps_status_string(st));
    CHECK(r.iterations == 3 && !r.converged, "cg: %d iterations, converged %d", r.iterations,
          r.converged);
    CHECK(ps_context_last_info(ctx) == 3, "info %d", ps_context_last_info(ctx));
    double rel = host_rel_residual(dt, n, A, n, b, x);
    CHECK(rel <= 1 + 1e-6 && fabs(rel - r.rel_residual) <= 1e-3 * rel + tol_of(dt),
          "cg best iterate: residual %g, reported %g", rel, r.rel_residual);
    CHECK(strstr(ps_context_last_error(ctx), "did not reach") != NULL, "message: %s",
          ps_context_last_error(ctx));
    free(A), free(x);

    /* Jacobi on a matrix that is not diagonally dominant diverges: x is the best iterate. */
    A = test_matrix(dt, NONSYMMETRIC, n, n, 1);
    for (int i = 0; i < n; i++) ps_test_set(dt, A, n, i, i, 0.05);
    x = calloc((size_t)n, sizeof(double));
    o.max_iter = 200;
    st = solve(ctx, PS_ITER_JACOBI, dt, n, A, n, b, x, &o, &r);
    CHECK(st == PS_ERR_NO_CONVERGENCE, "diverging jacobi: %s", ps_status_string(st));
    rel = host_rel_residual(dt, n, A, n, b, x);
    CHECK(r.iterations > 0 && !r.converged && isfinite(r.rel_residual) && rel <= 1.0 + 1e-6,
          "diverging jacobi: %d iterations, reported %g, true %g (the best is x0 = 0, 1.0)",
          r.iterations, r.rel_residual, rel);
    free(A), free(b), free(x);
}

static void check_breakdowns(ps_context *ctx, ps_dtype dt) {
    /* CG on diag(1, -1) with b = (1, 1): p'Ap = 0 at the first step. */
    double Ad[4] = {1, 0, 0, -1}, bd[2] = {1, 1};
    float As[4] = {1, 0, 0, -1}, bs[2] = {1, 1};
    void *A = dt == PS_DOUBLE ? (void *)Ad : (void *)As,
         *b = dt == PS_DOUBLE ? (void *)bd : (void *)bs;
    double xd[2] = {0, 0};
    float xs[2] = {0, 0};
    void *x = dt == PS_DOUBLE ? (void *)xd : (void *)xs;
    ps_iter_result r;
    ps_status st = solve(ctx, PS_ITER_CG, dt, 2, A, 2, b, x, NULL, &r);
    CHECK(st == PS_ERR_BREAKDOWN, "cg on indefinite: %s", ps_status_string(st));
    CHECK(strstr(ps_context_last_error(ctx), "p'Ap") != NULL, "message: %s",
          ps_context_last_error(ctx));

    /* A zero on the diagonal: Jacobi, Gauss-Seidel and the Jacobi preconditioner refuse before
     * touching x. */
    int n = 5;
    void *Z = test_matrix(dt, DOMINANT, n, n, 1), *bz = ps_test_random_array(dt, n, 1);
    ps_test_set(dt, Z, n, 3, 3, 0.0);
    void *x0 = ps_test_random_array(dt, n, 1), *xz = ps_test_clone(dt, x0, n, 1);
    ps_iter_options o = ps_iter_options_default();
    o.precond = PS_PRECOND_JACOBI;
    ps_iter_method ms[] = {PS_ITER_JACOBI, PS_ITER_GAUSS_SEIDEL, PS_ITER_GMRES};
    for (int i = 0; i < 3; i++) {
        st = solve(ctx, ms[i], dt, n, Z, n, bz, xz, &o, &r);
        CHECK(st == PS_ERR_ZERO_DIAGONAL && ps_context_last_info(ctx) == 4,
              "%s on a zero diagonal: %s info %d", ps_iter_method_name(ms[i]), ps_status_string(st),
              ps_context_last_info(ctx));
        CHECK(memcmp(xz, x0, ps_test_esize(dt) * (size_t)n) == 0, "x changed on failure");
    }
    free(Z), free(bz), free(x0), free(xz);
}

/* b = 0 gives x = 0; n = 0 does nothing. */
static void check_trivial(ps_context *ctx, ps_dtype dt) {
    int n = 7;
    void *A = test_matrix(dt, SPD, n, n, 1), *b = calloc((size_t)n, sizeof(double));
    void *x = ps_test_random_array(dt, n, 1);
    ps_iter_result r;
    for (int m = 0; m < 5; m++) {
        CHECK_STATUS(solve(ctx, (ps_iter_method)m, dt, n, A, n, b, x, NULL, &r), PS_SUCCESS);
        int zero = 1;
        for (int i = 0; i < n; i++) zero &= ps_test_get(dt, x, n, i, 0) == 0;
        CHECK(zero && r.iterations == 0 && r.converged, "b = 0: x not zero");
    }
    CHECK_STATUS(solve(ctx, PS_ITER_GMRES, dt, 0, NULL, 1, NULL, NULL, NULL, &r), PS_SUCCESS);
    free(A), free(b), free(x);
}

static void check_matrix_level(ps_context *ctx, ps_dtype dt) {
    int n = 90;
    void *A0 = test_matrix(dt, NONSYMMETRIC, n, n, 1), *b0 = ps_test_random_array(dt, n, 1);
    void *xh = ps_test_random_array(dt, n, 1);
    ps_matrix *A = NULL, *b = NULL, *x = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, n, n + 3, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, 1, 0, &b), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_create(ctx, dt, n, 1, 0, &x), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_upload(b, b0, n), PS_SUCCESS);
    ps_iter_options o = ps_iter_options_default();
    o.tol = tol_of(dt);
    ps_iter_method ms[] = {PS_ITER_GMRES, PS_ITER_BICGSTAB};
    for (int i = 0; i < 2; i++) {
        memset(xh, 0, ps_test_esize(dt) * (size_t)n);
        CHECK_STATUS(ps_matrix_upload(x, xh, n), PS_SUCCESS);
        ps_iter_result r;
        CHECK_STATUS(ps_mat_iter_solve(ctx, ms[i], A, b, x, &o, &r), PS_SUCCESS);
        CHECK_STATUS(ps_matrix_download(x, xh, n), PS_SUCCESS);
        double rel = host_rel_residual(dt, n, A0, n, b0, xh);
        CHECK(rel <= 1.5 * o.tol, "ps_mat_iter_solve %s: residual %g", ps_iter_method_name(ms[i]),
              rel);
    }
    /* An Inf in A (the matrix level does not scan for it): CG and GMRES stop at once, diverged
     * or broken down, instead of iterating on NaN until max_iter. */
    ps_test_set(dt, A0, n, 0, 0, INFINITY);
    CHECK_STATUS(ps_matrix_upload(A, A0, n), PS_SUCCESS);
    ps_iter_method inf_ms[] = {PS_ITER_CG, PS_ITER_GMRES};
    for (int i = 0; i < 2; i++) {
        memset(xh, 0, ps_test_esize(dt) * (size_t)n);
        CHECK_STATUS(ps_matrix_upload(x, xh, n), PS_SUCCESS);
        ps_iter_result r;
        o.max_iter = 500;
        ps_status st = ps_mat_iter_solve(ctx, inf_ms[i], A, b, x, &o, &r);
        CHECK((st == PS_ERR_NO_CONVERGENCE || st == PS_ERR_BREAKDOWN) && r.iterations <= 3 &&
                  !r.converged,
              "%s with Inf in A: %s after %d iterations", ps_iter_method_name(inf_ms[i]),
              ps_status_string(st), r.iterations);
    }
    /* a b of the wrong shape */
    CHECK_STATUS(ps_mat_iter_solve(ctx, PS_ITER_CG, A, A, x, NULL, NULL), PS_ERR_INVALID_ARGUMENT);
    ps_matrix_destroy(A), ps_matrix_destroy(b), ps_matrix_destroy(x);
    free(A0), free(b0), free(xh);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    ps_context *ctx = ps_test_context(0);
    ps_context_options co = ps_context_options_default();
    co.backend = PS_BACKEND_CPU;
    if (ps_test_backend_kind() == PS_BACKEND_CPU)
        cpu_ctx = ctx;
    else
        CHECK_STATUS(ps_context_create(&cpu_ctx, &co), PS_SUCCESS);
    static const ps_dtype dtypes[] = {PS_DOUBLE, PS_FLOAT};
    static const int orders[] = {0, 1, 2, 3, 10, 64, 200, 300, 1100};
    for (int d = 0; d < 2; d++) {
        ps_dtype dt = dtypes[d];
        for (size_t i = 0; i < sizeof orders / sizeof orders[0]; i++) {
            int n = orders[i], lda = n + (int)(i % 3);
            if (lda < 1) lda = 1;
            check_converges(ctx, PS_ITER_JACOBI, dt, DOMINANT, n, lda, PS_PRECOND_NONE, 1, 35);
            check_converges(ctx, PS_ITER_GAUSS_SEIDEL, dt, DOMINANT, n, lda, PS_PRECOND_NONE, 1,
                            35);
            check_converges(ctx, PS_ITER_CG, dt, SPD, n, lda, PS_PRECOND_NONE, 1, 35);
            check_converges(ctx, PS_ITER_BICGSTAB, dt, NONSYMMETRIC, n, lda, PS_PRECOND_NONE, 1,
                            35);
            check_converges(ctx, PS_ITER_GMRES, dt, NONSYMMETRIC, n, lda, PS_PRECOND_NONE, 1, 35);
        }
        /* Badly scaled matrices with the Jacobi preconditioner; GMRES with a short restart, with
         * a restart above n, and with one whose basis is too long for CUDA's resident steps
         * (64 columns) after a first call that fits (the cycle goes on step by step). */
        check_converges(ctx, PS_ITER_CG, dt, SPD, 150, 151, PS_PRECOND_JACOBI, 2, 35);
        check_converges(ctx, PS_ITER_BICGSTAB, dt, NONSYMMETRIC, 150, 150, PS_PRECOND_JACOBI, 2,
                        35);
        check_converges(ctx, PS_ITER_GMRES, dt, NONSYMMETRIC, 150, 152, PS_PRECOND_JACOBI, 2, 35);
        check_converges(ctx, PS_ITER_GMRES, dt, NONSYMMETRIC, 150, 150, PS_PRECOND_NONE, 1, 5);
        check_converges(ctx, PS_ITER_GMRES, dt, SPD, 40, 40, PS_PRECOND_NONE, 1, 100);
        check_converges(ctx, PS_ITER_GMRES, dt, NONSYMMETRIC, 300, 301, PS_PRECOND_NONE, 1, 100);
        check_no_convergence(ctx, dt);
        check_breakdowns(ctx, dt);
        check_trivial(ctx, dt);
        check_matrix_level(ctx, dt);
    }
    if (cpu_ctx != ctx) ps_context_destroy(cpu_ctx);
    ps_context_destroy(ctx);
    return ps_test_finish("test_iter");
}
