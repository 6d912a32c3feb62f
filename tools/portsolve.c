/*
 * portsolve: the command-line program.
 *   portsolve info
 *   portsolve solve [--method M] [--backend B] [--n N | --matrix A.mtx [--rhs B.mtx]]
 *                   [--precision s|d] [--nrhs K] [--seed S] [--solution X.mtx]
 *                   [--tol T] [--max-iter K] [--restart M] [--precond none|jacobi]
 * M is any of the library's solvers (cli_methods.c); the last four options are the iterative
 * methods'.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_args.h"
#include "cli_methods.h"
#include "cli_system.h"
#include "mmio.h"
#include "portsolve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void usage(FILE *f) {
    fprintf(
        f,
        "usage: portsolve info\n"
        "       portsolve solve [--method M] [--backend auto|cpu|cuda|opencl]\n"
        "                       [--n N | --matrix A.mtx [--rhs B.mtx]] [--nrhs K]\n"
        "                       [--precision s|d] [--seed S] [--solution X.mtx]\n"
        "                       [--tol T] [--max-iter K] [--restart M] [--precond none|jacobi]\n"
        "M is one of %s (default lu).\n"
        "Without --backend the environment decides (PORTSOLVE_BACKEND, default auto).\n"
        "With --n the system is random; for chol and the iterative methods strictly\n"
        "diagonally dominant (symmetric for chol and cg). Without --rhs, b = A * ones. The\n"
        "iterative methods start from x = 0 and stop at the relative residual --tol\n"
        "(default 1e-8 in double, 1e-4 in single).\n",
        cli_method_names());
}

static int cmd_info(void) {
    printf("portsolve %s\nbuilt backends: %s\n", ps_version(), ps_built_backends());
    static const struct {
        const char *name;
        ps_backend_kind kind;
    } kinds[] = {{"cuda", PS_BACKEND_CUDA}, {"opencl", PS_BACKEND_OPENCL}, {"cpu", PS_BACKEND_CPU}};
    for (size_t i = 0; i < 3; i++) {
        ps_context_options o = ps_context_options_default();
        o.backend = kinds[i].kind;
        ps_context *ctx = NULL;
        ps_status st = ps_context_create(&ctx, &o);
        if (st == PS_SUCCESS)
            printf("  %-7s loads: device %s\n", kinds[i].name, ps_context_device_name(ctx));
        else
            printf("  %-7s does not load: %s\n", kinds[i].name, ps_last_create_error());
        ps_context_destroy(ctx);
        char devices[4096];
        if (ps_backend_devices(kinds[i].kind, devices, sizeof devices) != PS_SUCCESS) continue;
        for (char *line = strtok(devices, "\n"); line; line = strtok(NULL, "\n"))
            printf("          device %s\n", line);
    }
    ps_context *ctx = NULL;
    if (ps_context_create(&ctx, NULL) == PS_SUCCESS)
        printf("the environment selects: %s (%s)\n", ps_context_backend_name(ctx),
               ps_context_device_name(ctx));
    else
        printf("the environment selects nothing that works: %s\n", ps_last_create_error());
    ps_context_destroy(ctx);
    return 0;
}

static int open_context(const char *backend, ps_context **ctx) {
    ps_context_options o = ps_context_options_default();
    if (backend && ps_backend_kind_from_name(backend, &o.backend) != PS_SUCCESS) {
        fprintf(stderr,
                "portsolve: --backend '%s' is not a backend; accepted: auto, cpu, cuda, opencl\n",
                backend);
        return 0;
    }
    ps_status st = ps_context_create(ctx, &o);
    if (st != PS_SUCCESS) {
        fprintf(stderr, "portsolve: no backend: %s: %s\n", ps_status_string(st),
                ps_last_create_error());
        return 0;
    }
    return 1;
}

static int cmd_solve(int argc, char **argv) {
    cli_solve_args a;
    int parsed = cli_parse_solve_args(argc, argv, &a);
    if (parsed == CLI_ARGS_HELP) {
        usage(stdout);
        return 0;
    }
    if (parsed != CLI_ARGS_OK) {
        usage(stderr);
        return 2;
    }
    const cli_method *m = a.sys.method;
    int n, nrhs;
    double *A, *B;
    if (!cli_load_system(&a.sys, &n, &nrhs, &A, &B)) return 1;
    ps_context *ctx = NULL;
    double *X = malloc(sizeof *X * ((size_t)n * (size_t)nrhs + 1));
    if (!X) fprintf(stderr, "portsolve: out of memory for the solution\n");
    if (!X || !open_context(a.backend, &ctx)) {
        free(A), free(B), free(X);
        return 1;
    }
    cli_iter it = {ps_iter_options_default(), {0, 0, 0, 0}};
    it.opts.tol = a.tol;
    it.opts.max_iter = a.max_iter;
    it.opts.restart = a.restart;
    it.opts.precond = a.precond ? PS_PRECOND_JACOBI : PS_PRECOND_NONE;
    int refine_iter = 0;
    char p = a.sys.single ? 's' : 'd';
    double secs;
    ps_status st = cli_run(ctx, m, a.sys.single, n, nrhs, A, B, X, &it, &refine_iter, &secs);

    int rc = 0;
    printf("backend    %s\ndevice     %s\nmethod     %s (%c%s)\nn          %d\nnrhs       %d\n",
           ps_context_backend_name(ctx), ps_context_device_name(ctx), m->name, p, m->driver, n,
           nrhs);
    if (ps_context_last_call_on_host(ctx))
        printf("ran on     the CPU path: host drivers up to n = %d cross over (%s)\n",
               ps_context_host_crossover(ctx, a.sys.single ? PS_FLOAT : PS_DOUBLE),
               "PORTSOLVE_HOST_CROSSOVER=0 keeps them on the device");
    if (st != PS_SUCCESS) {
        printf("status     %s: %s\n", ps_status_string(st), ps_context_last_error(ctx));
        if (m->iterative && (st == PS_ERR_NO_CONVERGENCE || st == PS_ERR_BREAKDOWN))
            printf("iterations %d (relative residual %.3g, tol %.3g)\n", it.res.iterations,
                   it.res.rel_residual, a.tol);
        rc = 1;
    } else {
        printf("time       %.6f s (the whole %c%s call: checks, transfers, %s)\n", secs, p,
               m->driver, m->iterative ? "iterations" : "factor, solve");
        if (m->flops_n3 > 0) {
            double flops = m->flops_n3 * n * (double)n * n + 2.0 * n * (double)n * nrhs;
            printf("GFLOP/s    %.2f (%.3g n^3 + 2 n^2 nrhs flops)\n",
                   secs > 0 ? flops / secs * 1e-9 : 0.0, m->flops_n3);
        }
        if (m->double_only) {
            ps_refine_result r = ps_context_refine_result(ctx);
            printf("refinement %d (%s: %d classical steps, %d GMRES-IR steps, factored in %s)\n",
                   refine_iter, ps_refine_path_name(r.path), r.classical_steps, r.gmres_iterations,
                   ps_lowprec_name(r.precision));
        }
        if (m->iterative) {
            double res = cli_residual(n, 1, A, B, X, 0, 1);
            printf("iterations %d\n", it.res.iterations);
            printf("residual   %.3g  (||b-Ax||_2 / ||b||_2; at most tol = %.3g passes)\n", res,
                   a.tol);
            /* recomputed here in double: allow the rounding of the solver's own in float */
            if (!(res <= a.tol * (a.sys.single ? 1.5 : 1.05))) rc = 1;
        } else {
            double eps = a.sys.single ? 0x1.0p-24 : 0x1.0p-53;
            double res = cli_residual(n, nrhs, A, B, X, eps, 0);
            printf("residual   %.3g  (||b-Ax||_1 / (||A||_1 ||x||_1 n eps); below 30 passes)\n",
                   res);
            if (!(res < 30)) rc = 1;
        }
        if (a.solution && mm_write_dense(a.solution, n, nrhs, X, n > 0 ? n : 1)) {
            fprintf(stderr, "portsolve: cannot write %s\n", a.solution);
            rc = 1;
        }
    }
    ps_context_destroy(ctx);
    free(A), free(B), free(X);
    return rc;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "info")) return cmd_info();
    if (!strcmp(argv[1], "solve")) return cmd_solve(argc, argv);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "portsolve: unknown command '%s'\n", argv[1]);
    usage(stderr);
    return 2;
}
