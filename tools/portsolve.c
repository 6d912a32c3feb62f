/*
 * portsolve: the command-line program.
 *   portsolve info
 *   portsolve solve --method lu|wz [--backend B] [--n N | --matrix A.mtx [--rhs B.mtx]]
 *                   [--precision s|d] [--nrhs K] [--seed S] [--solution X.mtx]
 */
#define _POSIX_C_SOURCE 200809L
#include "mmio.h"
#include "portsolve.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static void usage(FILE *f) {
    fprintf(f, "usage: portsolve info\n"
               "       portsolve solve --method lu|wz [--backend auto|cpu|cuda|opencl]\n"
               "                       [--n N | --matrix A.mtx [--rhs B.mtx]] [--nrhs K]\n"
               "                       [--precision s|d] [--seed S] [--solution X.mtx]\n"
               "Without --backend the environment decides (PORTSOLVE_BACKEND, default auto).\n");
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

typedef struct {
    const char *method, *backend, *matrix, *rhs, *solution;
    int n, nrhs, single;
    unsigned long seed;
} solve_args;

static int parse_int(const char *s, int lo, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (*end || v < lo || v > 1000000) return 0;
    *out = (int)v;
    return 1;
}

static int parse_solve_args(int argc, char **argv, solve_args *a) {
    memset(a, 0, sizeof *a);
    a->method = "lu";
    a->n = -1;
    a->nrhs = 1;
    a->seed = (unsigned long)time(NULL);
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "portsolve solve: %s needs a value\n", k);
            return 0;
        }
        i++;
        if (!strcmp(k, "--method"))
            a->method = v;
        else if (!strcmp(k, "--backend"))
            a->backend = v;
        else if (!strcmp(k, "--matrix"))
            a->matrix = v;
        else if (!strcmp(k, "--rhs"))
            a->rhs = v;
        else if (!strcmp(k, "--solution"))
            a->solution = v;
        else if (!strcmp(k, "--seed"))
            a->seed = strtoul(v, NULL, 10);
        else if (!strcmp(k, "--n")) {
            if (!parse_int(v, 0, &a->n)) {
                fprintf(stderr, "portsolve solve: --n '%s' is not an order from 0 to 1000000\n", v);
                return 0;
            }
        } else if (!strcmp(k, "--nrhs")) {
            if (!parse_int(v, 1, &a->nrhs)) {
                fprintf(stderr, "portsolve solve: --nrhs '%s' is not a count from 1\n", v);
                return 0;
            }
        } else if (!strcmp(k, "--precision")) {
            if (strcmp(v, "s") && strcmp(v, "d")) {
                fprintf(stderr, "portsolve solve: --precision '%s' is neither s nor d\n", v);
                return 0;
            }
            a->single = v[0] == 's';
        } else {
            fprintf(stderr, "portsolve solve: unknown option '%s'\n", k);
            return 0;
        }
    }
    if (strcasecmp(a->method, "lu") != 0 && strcasecmp(a->method, "wz") != 0) {
        fprintf(stderr, "portsolve solve: --method '%s' is not available (methods: lu, wz)\n",
                a->method);
        return 0;
    }
    if ((a->n >= 0) == (a->matrix != NULL)) {
        fprintf(stderr, "portsolve solve: give exactly one of --n and --matrix\n");
        return 0;
    }
    if (a->rhs && !a->matrix) {
        fprintf(stderr, "portsolve solve: --rhs needs --matrix\n");
        return 0;
    }
    return 1;
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

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* max_j ||b_j - A x_j||_1 / (||A||_1 ||x_j||_1 n eps), A and b in double. */
static double scaled_residual(int n, int nrhs, const double *A, const double *B, const double *X,
                              double eps) {
    double anorm = 0, worst = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < n; i++) s += fabs(A[i + (size_t)j * n]);
        anorm = fmax(anorm, s);
    }
    double *r = malloc(sizeof *r * (size_t)(n > 0 ? n : 1));
    for (int c = 0; c < nrhs; c++) {
        const double *x = X + (size_t)c * n;
        double xnorm = 0, rnorm = 0;
        for (int i = 0; i < n; i++) r[i] = B[i + (size_t)c * n];
        for (int k = 0; k < n; k++) {
            xnorm += fabs(x[k]);
            for (int i = 0; i < n; i++) r[i] -= A[i + (size_t)k * n] * x[k];
        }
        for (int i = 0; i < n; i++) rnorm += fabs(r[i]);
        double q = anorm > 0 && xnorm > 0 ? rnorm / (anorm * xnorm * n * eps) : rnorm;
        if (!(q <= worst)) worst = q;
    }
    free(r);
    return worst;
}

static int cmd_solve(int argc, char **argv) {
    solve_args a;
    if (!parse_solve_args(argc, argv, &a)) {
        usage(stderr);
        return 2;
    }
    char err[512];
    int n, nrhs = a.nrhs;
    double *A = NULL, *B = NULL;
    if (a.matrix) {
        mm_dense m;
        if (mm_read_dense(a.matrix, &m, err, sizeof err)) {
            fprintf(stderr, "portsolve: %s\n", err);
            return 1;
        }
        if (m.rows != m.cols) {
            fprintf(stderr, "portsolve: %s is %d x %d; solving needs a square matrix\n", a.matrix,
                    m.rows, m.cols);
            free(m.values);
            return 1;
        }
        n = m.rows;
        A = m.values;
        if (a.rhs) {
            mm_dense b;
            if (mm_read_dense(a.rhs, &b, err, sizeof err)) {
                fprintf(stderr, "portsolve: %s\n", err);
                free(A);
                return 1;
            }
            if (b.rows != n) {
                fprintf(stderr, "portsolve: %s has %d rows, the matrix has %d\n", a.rhs, b.rows, n);
                free(A), free(b.values);
                return 1;
            }
            nrhs = b.cols;
            B = b.values;
        }
    } else {
        n = a.n;
        srand((unsigned)a.seed);
        A = malloc(sizeof *A * (size_t)n * (size_t)n + 1);
        for (size_t i = 0; i < (size_t)n * (size_t)n; i++) A[i] = 2.0 * rand() / RAND_MAX - 1.0;
    }
    if (!B) { /* b = A * ones, so the exact solution is all ones */
        B = calloc((size_t)n * (size_t)nrhs + 1, sizeof *B);
        for (int c = 0; c < nrhs; c++)
            for (int k = 0; k < n; k++)
                for (int i = 0; i < n; i++) B[i + (size_t)c * n] += A[i + (size_t)k * n];
    }
    ps_context *ctx = NULL;
    if (!open_context(a.backend, &ctx)) {
        free(A), free(B);
        return 1;
    }
    size_t nn = (size_t)n * (size_t)n, nb = (size_t)n * (size_t)nrhs;
    int *ipiv = malloc(sizeof *ipiv * (size_t)(n + 1));
    double *X = malloc(sizeof *X * (nb + 1));
    ps_status st;
    double t0, t1;
    int wz = strcasecmp(a.method, "wz") == 0;
    const char *driver = wz ? "wzsv" : "gesv";
    if (a.single) {
        float *Af = malloc(sizeof *Af * (nn + 1)), *Bf = malloc(sizeof *Bf * (nb + 1));
        for (size_t i = 0; i < nn; i++) Af[i] = (float)A[i];
        for (size_t i = 0; i < nb; i++) Bf[i] = (float)B[i];
        t0 = now_seconds();
        st = wz ? ps_swzsv(ctx, n, nrhs, Af, n > 0 ? n : 1, ipiv, Bf, n > 0 ? n : 1)
                : ps_sgesv(ctx, n, nrhs, Af, n > 0 ? n : 1, ipiv, Bf, n > 0 ? n : 1);
        t1 = now_seconds();
        for (size_t i = 0; i < nb; i++) X[i] = Bf[i];
        free(Af), free(Bf);
    } else {
        double *Ad = malloc(sizeof *Ad * (nn + 1));
        memcpy(Ad, A, sizeof *Ad * nn);
        memcpy(X, B, sizeof *X * nb);
        t0 = now_seconds();
        st = wz ? ps_dwzsv(ctx, n, nrhs, Ad, n > 0 ? n : 1, ipiv, X, n > 0 ? n : 1)
                : ps_dgesv(ctx, n, nrhs, Ad, n > 0 ? n : 1, ipiv, X, n > 0 ? n : 1);
        t1 = now_seconds();
        free(Ad);
    }
    int rc = 0;
    printf("backend    %s\ndevice     %s\nmethod     %s (%c%s)\nn          %d\nnrhs       %d\n",
           ps_context_backend_name(ctx), ps_context_device_name(ctx), wz ? "wz" : "lu",
           a.single ? 's' : 'd', driver, n, nrhs);
    if (st != PS_SUCCESS) {
        printf("status     %s: %s\n", ps_status_string(st), ps_context_last_error(ctx));
        rc = 1;
    } else {
        double secs = t1 - t0, flops = 2.0 / 3.0 * n * (double)n * n + 2.0 * n * (double)n * nrhs;
        double eps = a.single ? 0x1.0p-24 : 0x1.0p-53;
        double res = scaled_residual(n, nrhs, A, B, X, eps);
        printf("time       %.6f s (the whole %c%s call: checks, transfers, factor, solve)\n", secs,
               a.single ? 's' : 'd', driver);
        printf("GFLOP/s    %.2f\n", secs > 0 ? flops / secs * 1e-9 : 0.0);
        printf("residual   %.3g  (||b-Ax||_1 / (||A||_1 ||x||_1 n eps); below 30 passes)\n", res);
        if (!(res < 30)) rc = 1;
        if (a.solution && mm_write_dense(a.solution, n, nrhs, X, n > 0 ? n : 1)) {
            fprintf(stderr, "portsolve: cannot write %s\n", a.solution);
            rc = 1;
        }
    }
    ps_context_destroy(ctx);
    free(A), free(B), free(X), free(ipiv);
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
