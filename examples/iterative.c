/* GMRES(m) with the Jacobi preconditioner on a dense nonsymmetric system: the options, the
 * residual history, and what a solve that stops short reports. */
#include <portsolve.h>
#include <stdio.h>
#include <stdlib.h>

#define N 400

int main(void) {
    ps_context *ctx;
    if (ps_context_create(&ctx, NULL) != PS_SUCCESS) {
        fprintf(stderr, "no backend: %s\n", ps_last_create_error());
        return 1;
    }
    /* A convection-diffusion-like matrix: 4 on the diagonal, -1.5 and -0.5 beside it, and a
     * little random coupling everywhere, with rows scaled 1..10 (the preconditioner undoes it) */
    double *A = malloc(sizeof(double) * N * N), b[N], x[N];
    if (!A) {
        ps_context_destroy(ctx);
        return 1;
    }
    srand(2);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) {
            double a = 0.002 * rand() / RAND_MAX;
            if (i == j) a += 4;
            if (i == j + 1) a -= 1.5;
            if (j == i + 1) a -= 0.5;
            A[i + j * N] = a * (1 + 9.0 * i / N);
        }
    for (int i = 0; i < N; i++) b[i] = 1, x[i] = 0; /* x holds the initial guess */

    double history[200];
    ps_iter_options opts = ps_iter_options_default();
    opts.tol = 1e-10;    /* ||b - A x|| / ||b|| */
    opts.max_iter = 200; /* Arnoldi steps in all */
    opts.restart = 20;   /* GMRES(20) */
    opts.precond = PS_PRECOND_JACOBI;
    opts.history = history; /* the relative residual after every step */
    opts.history_capacity = 200;
    ps_iter_result res;
    ps_status st = ps_dgmres(ctx, N, A, N, b, x, &opts, &res);
    if (st == PS_SUCCESS) {
        printf("gmres on %s: %d iterations, true relative residual %.2g\n",
               ps_context_backend_name(ctx), res.iterations, res.rel_residual);
        for (int k = 0; k < res.history_length; k += 5)
            printf("  after %3d: %.2e\n", k + 1, history[k]);
    } else {
        /* PS_ERR_NO_CONVERGENCE and PS_ERR_BREAKDOWN still leave the best iterate in x */
        fprintf(stderr, "%s: %s (best residual %.2g after %d iterations)\n", ps_status_string(st),
                ps_context_last_error(ctx), res.rel_residual, res.iterations);
    }

    /* The same system with too few iterations allowed: reported, never silently accepted. */
    for (int i = 0; i < N; i++) x[i] = 0;
    opts.max_iter = 3;
    opts.history = NULL, opts.history_capacity = 0;
    ps_status short_st = ps_dgmres(ctx, N, A, N, b, x, &opts, &res);
    printf("with max_iter = 3: %s, relative residual %.2g\n", ps_status_string(short_st),
           res.rel_residual);

    ps_context_destroy(ctx);
    free(A);
    return st == PS_SUCCESS && short_st == PS_ERR_NO_CONVERGENCE ? 0 : 1;
}
