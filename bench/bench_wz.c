/*
 * portsolve-bench-wz: WZ factorization beside this library's LU on the same backend, in one
 * run, as the WZ papers report it (Bylina & Bylina, Figures 6, 7 and 9):
 *
 *   portsolve-bench-wz --backend cuda|opencl|cpu --sizes 128,...,8192 [--precision d|s]
 *                      [--level device|host] [--vector-max N] [--accuracy-max N] [--repeats R]
 *                      [--csv F] [--plot F]
 *
 * Per order n, device level (matrices already on the device, factorization only): ps_mat_getrf,
 * ps_mat_wztrf blocked, and up to --vector-max the papers' vector form with the device corner
 * kernel (vector) and as published (vector-host). Host level: the host drivers ps_?getrf and
 * ps_?wztrf on host arrays instead, their transfers timed with them (the call a user makes). One
 * warm-up, then the median of R runs, variants interleaved. GFLOP/s counts the papers' WZ
 * operations, 2/3 n^3 - 1/2 n^2 + 11/6 n - 7 (LU: 2/3 n^3); accuracy is theirs, -log10(||PA -
 * WZ||_F / (n ||A||_F)), up to --accuracy-max (W*Z is formed on the host). Inputs are uniform
 * random in [-1, 1).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "bench_refs.h"

#include <cblas.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LU, BLOCKED, VECTOR, VECTOR_HOST, NALGS };
static const char *const alg_names[NALGS] = {"lu", "wz-blocked", "wz-vector", "wz-vector-host"};

typedef struct {
    const char *backend, *csv, *plot;
    int sizes[32], nsizes, repeats, single, vector_max, accuracy_max, host;
} options;

static double wz_flops(double n) {
    return 2.0 / 3 * n * n * n - 0.5 * n * n + 11.0 / 6 * n - 7;
}

static int parse(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->repeats = 3;
    o->vector_max = 8192;
    o->accuracy_max = 4096;
    const bench_arg args[] = {
        BENCH_ARG_STRING("--backend", &o->backend),
        BENCH_ARG_STRING("--csv", &o->csv),
        BENCH_ARG_STRING("--plot", &o->plot),
        BENCH_ARG_INT("--repeats", &o->repeats, 1, 16),
        BENCH_ARG_INT("--vector-max", &o->vector_max, 0, 1 << 30),
        BENCH_ARG_INT("--accuracy-max", &o->accuracy_max, 0, 1 << 30),
        BENCH_ARG_CHOICE("--precision", &o->single, "d|s"),
        BENCH_ARG_CHOICE("--level", &o->host, "device|host"),
        BENCH_ARG_INTS("--sizes", o->sizes, 32, &o->nsizes, 1),
    };
    if (!bench_parse_args("portsolve-bench-wz", argc, argv, args, sizeof args / sizeof args[0]))
        return 0;
    if (o->nsizes == 0) {
        static const int def[] = {128, 256, 512, 1024, 2048, 4096};
        memcpy(o->sizes, def, sizeof def);
        o->nsizes = 6;
    }
    return 1;
}

/* -log10(||PA - WZ||_F / (n ||A||_F)) from the packed factors (host, double). */
static double accuracy(int n, const double *A, const double *F, const int *ipiv) {
    double *W = calloc((size_t)n * n, sizeof *W), *Z = calloc((size_t)n * n, sizeof *Z);
    double *PA = malloc(sizeof *PA * (size_t)n * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int si = i < n - 1 - i ? i : n - 1 - i, sj = j < n - 1 - j ? j : n - 1 - j;
            size_t e = (size_t)i + (size_t)j * n;
            (sj >= si ? Z : W)[e] = F[e];
            if (i == j) W[e] = 1;
            PA[e] = A[e];
        }
    for (int k = 0; 2 * k <= n - 1; k++) {
        int rows[2] = {k, n - 1 - k};
        for (int r = 0; r < (rows[0] == rows[1] ? 1 : 2); r++)
            if (ipiv[rows[r]] - 1 != rows[r])
                cblas_dswap(n, PA + rows[r], n, PA + ipiv[rows[r]] - 1, n);
    }
    double anorm = 0;
    for (size_t e = 0; e < (size_t)n * n; e++) anorm += A[e] * A[e];
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, -1.0, W, n, Z, n, 1.0, PA, n);
    double r = 0;
    for (size_t e = 0; e < (size_t)n * n; e++) r += PA[e] * PA[e];
    free(W), free(Z), free(PA);
    return -log10(sqrt(r) / (n * sqrt(anorm)));
}

/* The host drivers on a copy of A0 (host level): the factors go to F when not NULL. */
static ps_status run_host(ps_context *ctx, const options *o, int alg, int n, const void *A0,
                          void *F, int *ipiv, double *seconds) {
    size_t bytes = (o->single ? sizeof(float) : sizeof(double)) * (size_t)n * n;
    void *A = F ? F : malloc(bytes);
    if (!A) return PS_ERR_OUT_OF_HOST_MEMORY;
    memcpy(A, A0, bytes);
    double t0 = bench_now();
    ps_status st;
    if (o->single)
        st = alg == LU ? ps_sgetrf(ctx, n, n, A, n, ipiv) : ps_swztrf(ctx, n, A, n, ipiv);
    else
        st = alg == LU ? ps_dgetrf(ctx, n, n, A, n, ipiv) : ps_dwztrf(ctx, n, A, n, ipiv);
    *seconds = bench_now() - t0;
    if (!F) free(A);
    return st;
}

/* One timed factorization of A0 (host) by algorithm alg; the factors go to F when not NULL. */
static int run_once(ps_context *ctx, const options *o, int alg, int n, const void *A0, void *F,
                    int *ipiv, double *seconds) {
    ps_dtype dt = o->single ? PS_FLOAT : PS_DOUBLE;
    ps_matrix *A = NULL;
    ps_status st = PS_SUCCESS;
    if (!o->host) st = ps_matrix_create(ctx, dt, n, n, 0, &A);
    if (!st && !o->host) st = ps_matrix_upload(A, A0, n);
    if (!st) st = ps_context_synchronize(ctx);
    if (!st && alg != LU) {
        ps_wz_options w = {alg == BLOCKED  ? PS_WZ_BLOCKED
                           : alg == VECTOR ? PS_WZ_VECTOR
                                           : PS_WZ_VECTOR_HOST,
                           1, 0};
        st = ps_context_set_wz_options(ctx, &w);
    }
    if (!st && o->host) {
        st = run_host(ctx, o, alg, n, A0, F, ipiv, seconds);
    } else if (!st) {
        double t0 = bench_now();
        st = alg == LU ? ps_mat_getrf(ctx, A, ipiv) : ps_mat_wztrf(ctx, A, ipiv);
        if (!st) st = ps_context_synchronize(ctx);
        *seconds = bench_now() - t0;
        if (!st && F) st = ps_matrix_download(A, F, n);
    }
    if (st)
        fprintf(stderr, "portsolve-bench-wz: %s n=%d: %s\n", alg_names[alg], n,
                ps_context_last_error(ctx));
    ps_matrix_destroy(A);
    return st != PS_SUCCESS;
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) return 2;
    ps_context *ctx;
    int open_rc = bench_open_context("portsolve-bench-wz", o.backend, &ctx);
    if (open_rc) return open_rc;
    const char *device = ps_context_device_name(ctx);
    printf("portsolve-bench-wz: %cwztrf vs %cgetrf, %s level, on %s (%s)\n", o.single ? 's' : 'd',
           o.single ? 's' : 'd', o.host ? "host" : "device", ps_context_backend_name(ctx), device);
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (csv) fprintf(csv, "backend,device,precision,n,algorithm,seconds,gflops,accuracy\n");
    printf("%7s %-15s %10s %9s %9s\n", "n", "algorithm", "seconds", "GFLOP/s", "accuracy");
    double results[32][NALGS][3]; /* seconds, GFLOP/s, accuracy (NAN when not measured) */
    int rc = 0;
    size_t es = o.single ? sizeof(float) : sizeof(double);
    for (int si = 0; si < o.nsizes && !rc; si++) {
        int n = o.sizes[si];
        void *A0 = malloc(es * (size_t)n * n), *F = malloc(es * (size_t)n * n);
        double *Ad = malloc(sizeof(double) * (size_t)n * n);
        int *ipiv = malloc(sizeof(int) * (size_t)n);
        unsigned long long state = 88172645463325252ull + (unsigned)n;
        for (size_t e = 0; e < (size_t)n * n; e++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            double v = (double)(state >> 11) / 9007199254740992.0 * 2 - 1;
            if (o.single) {
                ((float *)A0)[e] = (float)v;
                Ad[e] = (float)v;
            } else {
                ((double *)A0)[e] = v;
                Ad[e] = v;
            }
        }
        double times[NALGS][16];
        int active[NALGS];
        for (int a = 0; a < NALGS; a++) {
            active[a] = a <= BLOCKED || n <= o.vector_max;
            for (int k = 0; k < 3; k++) results[si][a][k] = NAN;
        }
        for (int r = -1; r < o.repeats && r < 16 && !rc; r++)
            for (int a = 0; a < NALGS && !rc; a++) {
                int alg = r % 2 ? NALGS - 1 - a : a; /* alternate the order */
                if (!active[alg]) continue;
                double t;
                rc = run_once(ctx, &o, alg, n, A0, NULL, ipiv, &t);
                if (r >= 0) times[alg][r] = t;
            }
        for (int a = 0; a < NALGS && !rc; a++) {
            if (!active[a]) continue;
            int reps = o.repeats < 16 ? o.repeats : 16;
            double t = bench_median(times[a], reps);
            double flops = a == LU ? 2.0 / 3 * (double)n * n * n : wz_flops(n);
            results[si][a][0] = t;
            results[si][a][1] = flops / t * 1e-9;
            if (a != LU && n <= o.accuracy_max) {
                double t2;
                rc = run_once(ctx, &o, a, n, A0, F, ipiv, &t2);
                if (!rc && o.single) {
                    double *Fd = malloc(sizeof(double) * (size_t)n * n);
                    for (size_t e = 0; e < (size_t)n * n; e++) Fd[e] = ((float *)F)[e];
                    results[si][a][2] = accuracy(n, Ad, Fd, ipiv);
                    free(Fd);
                } else if (!rc) {
                    results[si][a][2] = accuracy(n, Ad, F, ipiv);
                }
            }
            /* the accuracy column is "-" (CSV: empty) where it was not measured: LU, or n
             * above --accuracy-max */
            char acc[32] = "-", acc_csv[32] = "";
            if (!isnan(results[si][a][2])) {
                snprintf(acc, sizeof acc, "%.2f", results[si][a][2]);
                snprintf(acc_csv, sizeof acc_csv, "%.4g", results[si][a][2]);
            }
            printf("%7d %-15s %10.4f %9.1f %9s\n", n, alg_names[a], results[si][a][0],
                   results[si][a][1], acc);
            if (csv)
                fprintf(csv, "%s,\"%s\",%c,%d,%s,%.6g,%.6g,%s\n", ps_context_backend_name(ctx),
                        device, o.single ? 's' : 'd', n, alg_names[a], results[si][a][0],
                        results[si][a][1], acc_csv);
        }
        if (!rc && active[VECTOR])
            printf("%7d blocked/LU rate %.2f, blocked over vector %.1fx, over vector-host %.1fx\n",
                   n, results[si][BLOCKED][1] / results[si][LU][1],
                   results[si][VECTOR][0] / results[si][BLOCKED][0],
                   results[si][VECTOR_HOST][0] / results[si][BLOCKED][0]);
        else if (!rc)
            printf("%7d blocked/LU rate %.2f\n", n, results[si][BLOCKED][1] / results[si][LU][1]);
        free(A0), free(F), free(Ad), free(ipiv);
    }
    if (csv) fclose(csv);
    fflush(stdout);
    if (!rc && o.plot) {
        signal(SIGPIPE, SIG_IGN); /* no gnuplot: the writes fail instead of killing us */
        FILE *g = popen("gnuplot", "w");
        if (g) {
            fprintf(g, "set terminal pngcairo size 1500,450 noenhanced\nset output '%s'\n", o.plot);
            fprintf(g, "set multiplot layout 1,3 title '%cwztrf on %s: %s'\nset grid\n",
                    o.single ? 's' : 'd', ps_context_backend_name(ctx), device);
            fprintf(g, "set key left top\nset xlabel 'n'\nset logscale x 2\n");
            const char *ylabels[3] = {"seconds", "GFLOP/s", "-log10(||PA-WZ||_F/(n||A||_F))"};
            for (int k = 0; k < 3; k++) {
                fprintf(g, "set ylabel '%s'\n%s", ylabels[k],
                        k == 0 ? "set logscale y\n" : "unset logscale y\n");
                fprintf(g, "plot");
                for (int a = k == 2 ? BLOCKED : LU; a < NALGS; a++)
                    fprintf(g, "%s '-' with linespoints title '%s'",
                            a > (k == 2 ? 1 : 0) ? "," : "", alg_names[a]);
                fprintf(g, "\n");
                for (int a = k == 2 ? BLOCKED : LU; a < NALGS; a++) {
                    for (int si = 0; si < o.nsizes; si++)
                        if (!isnan(results[si][a][k]))
                            fprintf(g, "%d %g\n", o.sizes[si], results[si][a][k]);
                    fprintf(g, "e\n");
                }
            }
            fprintf(g, "unset multiplot\n");
            if (pclose(g)) fprintf(stderr, "portsolve-bench-wz: gnuplot failed\n");
        }
    }
    ps_context_destroy(ctx);
    return rc;
}
