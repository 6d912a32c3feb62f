/*
 * portsolve-bench-gj: matrix inversion and the striped Gauss-Jordan solver beside the vendor
 * references, in one run (the inversion paper's Figures 2 and 3):
 *
 *   portsolve-bench-gj --backend cuda|opencl|cpu --sizes 1024,...,16384 [--precision d|s]
 *                      [--nbs 32,64,...,1024] [--stripes 64,128,256] [--hybrid-max N]
 *                      [--accuracy-max N] [--repeats R] [--csv F] [--plot F]
 *
 * Per order n, device level (matrices uploaded before the clock starts): getrf+getri; gjinv in
 * each variant at each block size of --nbs (hybrid and concurrent up to --hybrid-max); gjsv
 * (one right-hand side) at each stripe height; the references: cuSOLVER getrf+getrs(A, I) and
 * getrf+getrs (dgesv) on CUDA, LAPACKE getrf+getri and gesv on the CPU (OpenCL has no vendor
 * inversion: its rows are portsolve's alone). Median of R runs after one warm-up. The table
 * shows each method's best block size; the CSV has every one. GFLOP/s counts 2 n^3 for an
 * inverse and 2/3 n^3 + 2 n^2 for a solve. Accuracy of the best gjinv, up to --accuracy-max:
 * ||I - A inv(A)||_1 / (n ||A||_1 ||inv(A)||_1 eps).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "bench_refs.h"

#include <cblas.h>
#include <float.h>
#include <lapacke.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GETRI, GJ_DEVICE, GJ_HYBRID, GJ_CONCURRENT, GJSV, REF_INV, REF_SOLVE, NMETHODS };
static const char *const names[NMETHODS] = {"getrf+getri",      "gjinv-device", "gjinv-hybrid",
                                            "gjinv-concurrent", "gjsv",         "ref-inverse",
                                            "ref-solve"};

typedef struct {
    const char *backend, *csv, *plot;
    int sizes[32], nsizes, nbs[16], nnbs, stripes[16], nstripes;
    int repeats, single, hybrid_max, accuracy_max;
    int host; /* --level host: the host drivers on host arrays, transfers timed */
} options;

static int parse(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->repeats = 3;
    o->hybrid_max = 8192;
    o->accuracy_max = 2048;
    const bench_arg args[] = {
        BENCH_ARG_STRING("--backend", &o->backend),
        BENCH_ARG_STRING("--csv", &o->csv),
        BENCH_ARG_STRING("--plot", &o->plot),
        BENCH_ARG_INT("--repeats", &o->repeats, 1, 15),
        BENCH_ARG_INT("--hybrid-max", &o->hybrid_max, 0, 1 << 30),
        BENCH_ARG_INT("--accuracy-max", &o->accuracy_max, 0, 1 << 30),
        BENCH_ARG_CHOICE("--precision", &o->single, "d|s"),
        BENCH_ARG_CHOICE("--level", &o->host, "device|host"),
        BENCH_ARG_INTS("--sizes", o->sizes, 32, &o->nsizes, 1),
        BENCH_ARG_INTS("--nbs", o->nbs, 16, &o->nnbs, 0),             /* 0: the automatic choice */
        BENCH_ARG_INTS("--stripes", o->stripes, 16, &o->nstripes, 0), /* likewise */
    };
    if (!bench_parse_args("portsolve-bench-gj", argc, argv, args, sizeof args / sizeof args[0]))
        return 0;
    if (!o->nsizes) o->nsizes = bench_int_list("256,512,1024,2048", o->sizes, 32, 1);
    if (!o->nnbs) o->nnbs = bench_int_list("0", o->nbs, 16, 0);
    if (!o->nstripes) o->nstripes = bench_int_list("0", o->stripes, 16, 0);
    return 1;
}

/* The host level: the host driver of method m on a fresh copy of A0 (and B0) in host memory,
 * the whole call timed (checks, transfers, work). X gets the result when not NULL. */
static int run_host(ps_context *ctx, const options *o, int m, int param, int n, const void *A0,
                    const void *B0, void *X, double *seconds) {
    size_t es = o->single ? sizeof(float) : sizeof(double);
    void *A = malloc(es * (size_t)n * n), *B = malloc(es * (size_t)n);
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    memcpy(A, A0, es * (size_t)n * n);
    memcpy(B, B0, es * (size_t)n);
    ps_gj_options g = {m == GJ_HYBRID       ? PS_GJ_HYBRID
                       : m == GJ_CONCURRENT ? PS_GJ_CONCURRENT
                                            : PS_GJ_DEVICE,
                       m == GJSV ? 0 : param, m == GJSV ? param : 0};
    ps_status st = ps_context_set_gj_options(ctx, &g);
    double t0 = bench_now();
    if (!st && m == GETRI) {
        st = o->single ? ps_sgetrf(ctx, n, n, A, n, ipiv) : ps_dgetrf(ctx, n, n, A, n, ipiv);
        if (!st) st = o->single ? ps_sgetri(ctx, n, A, n, ipiv) : ps_dgetri(ctx, n, A, n, ipiv);
    } else if (!st && m == GJSV) {
        st = o->single ? ps_sgjsv(ctx, n, 1, A, n, B, n) : ps_dgjsv(ctx, n, 1, A, n, B, n);
    } else if (!st) {
        st = o->single ? ps_sgjinv(ctx, n, A, n) : ps_dgjinv(ctx, n, A, n);
    }
    *seconds = bench_now() - t0;
    if (!st && X) memcpy(X, m == GJSV ? B : A, es * (size_t)n * (m == GJSV ? 1 : n));
    if (st)
        fprintf(stderr, "portsolve-bench-gj: host %s n=%d param=%d: %s\n", names[m], n, param,
                ps_context_last_error(ctx));
    free(A), free(B), free(ipiv);
    return st != PS_SUCCESS;
}

/* One timed run of method m (block size or stripe `param`) on a fresh upload of A0. X gets the
 * result when not NULL. */
static int run_portsolve(ps_context *ctx, const options *o, int m, int param, int n, const void *A0,
                         const void *B0, void *X, double *seconds) {
    if (o->host) return run_host(ctx, o, m, param, n, A0, B0, X, seconds);
    ps_dtype dt = o->single ? PS_FLOAT : PS_DOUBLE;
    ps_matrix *A = NULL, *B = NULL;
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    ps_status st = ps_matrix_create(ctx, dt, n, n, n, &A);
    if (!st && m == GJSV) st = ps_matrix_create(ctx, dt, n, 1, n, &B);
    if (!st) st = ps_matrix_upload(A, A0, n);
    if (!st && B) st = ps_matrix_upload(B, B0, n);
    ps_gj_options g = {m == GJ_HYBRID       ? PS_GJ_HYBRID
                       : m == GJ_CONCURRENT ? PS_GJ_CONCURRENT
                                            : PS_GJ_DEVICE,
                       m == GJSV ? 0 : param, m == GJSV ? param : 0};
    if (!st) st = ps_context_set_gj_options(ctx, &g);
    if (!st) st = ps_context_synchronize(ctx);
    double t0 = bench_now();
    if (!st && m == GETRI) {
        st = ps_mat_getrf(ctx, A, ipiv);
        if (!st) st = ps_mat_getri(ctx, A, ipiv);
    } else if (!st && m == GJSV) {
        st = ps_mat_gjsv(ctx, A, B);
    } else if (!st) {
        st = ps_mat_gjinv(ctx, A);
    }
    if (!st) st = ps_context_synchronize(ctx);
    *seconds = bench_now() - t0;
    if (!st && X) st = m == GJSV ? ps_matrix_download(B, X, n) : ps_matrix_download(A, X, n);
    if (st)
        fprintf(stderr, "portsolve-bench-gj: %s n=%d param=%d: %s\n", names[m], n, param,
                ps_context_last_error(ctx));
    ps_matrix_destroy(A), ps_matrix_destroy(B);
    free(ipiv);
    return st != PS_SUCCESS;
}

/* LAPACKE getrf + getri (the CPU's inversion reference). */
static int run_lapacke_inverse(const options *o, int n, const void *A0, double *seconds) {
    size_t es = o->single ? sizeof(float) : sizeof(double);
    void *A = malloc(es * (size_t)n * n);
    int *ipiv = malloc(sizeof(int) * (size_t)n), info;
    memcpy(A, A0, es * (size_t)n * n);
    double t0 = bench_now();
    if (o->single) {
        info = LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, A, n, ipiv);
        if (!info) info = LAPACKE_sgetri(LAPACK_COL_MAJOR, n, A, n, ipiv);
    } else {
        info = LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, A, n, ipiv);
        if (!info) info = LAPACKE_dgetri(LAPACK_COL_MAJOR, n, A, n, ipiv);
    }
    *seconds = bench_now() - t0;
    free(A), free(ipiv);
    return info != 0;
}

/* A reference on a bench_problem: the solve (nrhs 1) or, with B = I, the inverse. */
static int run_ref(ps_context *ctx, const options *o, int m, int n, const void *A0,
                   double *seconds) {
    const char *be = ps_context_backend_name(ctx);
    if (m == REF_INV && !strcmp(be, "cpu")) return run_lapacke_inverse(o, n, A0, seconds);
    const bench_ref *ref = bench_reference_for(be, NULL, 0);
    if (!ref || !ref->solves || (m == REF_INV && strcmp(be, "cuda"))) return -1;
    bench_problem p;
    if (bench_problem_make(&p, 0, o->single, n, m == REF_INV ? n : 1, 7)) return 1;
    size_t es = o->single ? sizeof(float) : sizeof(double);
    memcpy(p.A0, A0, es * (size_t)n * n);
    if (m == REF_INV) { /* getrs(A, I) */
        memset(p.B0, 0, es * (size_t)n * n);
        for (int i = 0; i < n; i++) {
            if (o->single)
                ((float *)p.B0)[i + (size_t)i * n] = 1;
            else
                ((double *)p.B0)[i + (size_t)i * n] = 1;
        }
    }
    bench_problem_reset(&p);
    int rc = ref->run(ref, ctx, &p, !o->host, seconds); /* host: its plain transfers timed */
    bench_problem_free(&p);
    return rc;
}

static double inverse_accuracy(const options *o, int n, const void *A0, const void *X) {
    double *a = malloc(sizeof(double) * (size_t)n * n), *x = malloc(sizeof(double) * (size_t)n * n);
    double *r = calloc((size_t)n * n, sizeof(double));
    for (size_t e = 0; e < (size_t)n * n; e++) {
        a[e] = o->single ? ((const float *)A0)[e] : ((const double *)A0)[e];
        x[e] = o->single ? ((const float *)X)[e] : ((const double *)X)[e];
    }
    for (int i = 0; i < n; i++) r[i + (size_t)i * n] = 1;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, -1, a, n, x, n, 1, r, n);
    double nr = 0, na = 0, nx = 0;
    for (int j = 0; j < n; j++) {
        double sr = 0, sa = 0, sx = 0;
        for (int i = 0; i < n; i++) {
            sr += fabs(r[i + (size_t)j * n]);
            sa += fabs(a[i + (size_t)j * n]);
            sx += fabs(x[i + (size_t)j * n]);
        }
        nr = fmax(nr, sr), na = fmax(na, sa), nx = fmax(nx, sx);
    }
    free(a), free(x), free(r);
    return nr / (n * na * nx * (o->single ? FLT_EPSILON / 2 : DBL_EPSILON / 2));
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) return 2;
    ps_context *ctx;
    int open_rc = bench_open_context("portsolve-bench-gj", o.backend, &ctx);
    if (open_rc) return open_rc;
    const char *device = ps_context_device_name(ctx);
    char p = o.single ? 's' : 'd';
    printf("portsolve-bench-gj: %c precision, %s level, on %s (%s)\n", p,
           o.host ? "host" : "device", ps_context_backend_name(ctx), device);
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (csv) fprintf(csv, "backend,device,precision,n,method,param,seconds,gflops\n");
    printf("%7s %-17s %6s %10s %9s %8s\n", "n", "method", "nb/s", "seconds", "GFLOP/s", "vs ref");
    double best[32][NMETHODS];
    int best_param[32][NMETHODS], rc = 0;
    size_t es = o.single ? sizeof(float) : sizeof(double);
    for (int si = 0; si < o.nsizes && !rc; si++) {
        int n = o.sizes[si];
        void *A0 = malloc(es * (size_t)n * n), *B0 = malloc(es * (size_t)n), *X = NULL;
        unsigned long long state = 88172645463325252ull + (unsigned)n;
        for (size_t e = 0; e < (size_t)n * n + (size_t)n; e++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            double v = (double)(state >> 11) / 9007199254740992.0 * 2 - 1;
            void *dst = e < (size_t)n * n ? A0 : B0;
            size_t at = e < (size_t)n * n ? e : e - (size_t)n * n;
            if (o.single)
                ((float *)dst)[at] = (float)v;
            else
                ((double *)dst)[at] = v;
        }
        for (int m = 0; m < NMETHODS && !rc; m++) {
            best[si][m] = NAN;
            best_param[si][m] = 0;
            int np = m == GJSV ? o.nstripes : m >= GJ_DEVICE && m <= GJ_CONCURRENT ? o.nnbs : 1;
            if ((m == GJ_HYBRID || m == GJ_CONCURRENT) && n > o.hybrid_max) continue;
            for (int q = 0; q < np && !rc; q++) {
                int param = m == GJSV                              ? o.stripes[q]
                            : m >= GJ_DEVICE && m <= GJ_CONCURRENT ? o.nbs[q]
                                                                   : 0;
                double times[16];
                int r;
                for (r = -1; r < o.repeats && !rc; r++) {
                    double t;
                    int e = m >= REF_INV ? run_ref(ctx, &o, m, n, A0, &t)
                                         : run_portsolve(ctx, &o, m, param, n, A0, B0, NULL, &t);
                    if (e < 0) break; /* no such reference here */
                    rc = e;
                    if (r >= 0) times[r] = t;
                }
                if (r < o.repeats || rc) continue;
                double t = bench_median(times, o.repeats);
                double flops =
                    m == GJSV || m == REF_SOLVE ? bench_lu_flops(n, 1) : 2.0 * n * (double)n * n;
                if (csv)
                    fprintf(csv, "%s,\"%s\",%c,%d,%s,%d,%.6g,%.6g\n", ps_context_backend_name(ctx),
                            device, p, n, names[m], param, t, flops / t * 1e-9);
                if (isnan(best[si][m]) || t < best[si][m]) {
                    best[si][m] = t;
                    best_param[si][m] = param;
                }
            }
        }
        for (int m = 0; m < NMETHODS && !rc; m++) {
            if (isnan(best[si][m])) continue;
            int solve = m == GJSV || m == REF_SOLVE;
            double flops = solve ? bench_lu_flops(n, 1) : 2.0 * n * (double)n * n;
            double ref = best[si][solve ? REF_SOLVE : REF_INV];
            printf("%7d %-17s %6d %10.4f %9.1f", n, names[m], best_param[si][m], best[si][m],
                   flops / best[si][m] * 1e-9);
            if (!isnan(ref) && m < REF_INV)
                printf(" %7.2fx\n", best[si][m] / ref);
            else
                printf("\n");
        }
        if (!rc && n <= o.accuracy_max) { /* the best device gjinv, once more, kept */
            X = malloc(es * (size_t)n * n);
            double t;
            rc = run_portsolve(ctx, &o, GJ_DEVICE, best_param[si][GJ_DEVICE], n, A0, B0, X, &t);
            if (!rc)
                printf("%7d gjinv accuracy ||I - A inv(A)|| / (n ||A|| ||inv(A)|| eps) = %.3g\n", n,
                       inverse_accuracy(&o, n, A0, X));
            free(X);
        }
        free(A0), free(B0);
    }
    if (csv) fclose(csv);
    printf("\nsummary (%c, %s): time / reference time, best block size or stripe\n", p,
           ps_context_backend_name(ctx));
    printf("%7s %12s %12s %12s %12s %12s\n", "n", "getri/ref", "gjinv-dev", "gjinv-hyb",
           "gjinv-conc", "gjsv/gesv");
    for (int si = 0; si < o.nsizes && !rc; si++) {
        printf("%7d", o.sizes[si]);
        const int ms[5] = {GETRI, GJ_DEVICE, GJ_HYBRID, GJ_CONCURRENT, GJSV};
        for (int k = 0; k < 5; k++) {
            double ref = best[si][ms[k] == GJSV ? REF_SOLVE : REF_INV];
            if (isnan(ref) || isnan(best[si][ms[k]]))
                printf(" %12s", "-");
            else
                printf("  %5.2f (%4d)", best[si][ms[k]] / ref, best_param[si][ms[k]]);
        }
        printf("\n");
    }
    fflush(stdout);
    if (!rc && o.plot) {
        signal(SIGPIPE, SIG_IGN); /* no gnuplot: the writes fail instead of killing us */
        FILE *g = popen("gnuplot", "w");
        if (g) {
            fprintf(g, "set terminal pngcairo size 1000,450 noenhanced\nset output '%s'\n", o.plot);
            fprintf(g, "set multiplot layout 1,2 title '%c inversion and GJ solve on %s: %s'\n", p,
                    ps_context_backend_name(ctx), device);
            fprintf(g, "set grid\nset key left top\nset xlabel 'n'\nset logscale x 2\n");
            for (int panel = 0; panel < 2; panel++) {
                fprintf(g, "set ylabel 'GFLOP/s'\nset title '%s'\nplot",
                        panel ? "solve" : "inverse");
                int first = 1;
                for (int m = 0; m < NMETHODS; m++) {
                    int solve = m == GJSV || m == REF_SOLVE;
                    if (solve != panel) continue;
                    fprintf(g, "%s '-' with linespoints title '%s'", first ? "" : ",", names[m]);
                    first = 0;
                }
                fprintf(g, "\n");
                for (int m = 0; m < NMETHODS; m++) {
                    int solve = m == GJSV || m == REF_SOLVE;
                    if (solve != panel) continue;
                    for (int si = 0; si < o.nsizes; si++)
                        if (!isnan(best[si][m])) {
                            int n = o.sizes[si];
                            double f = solve ? bench_lu_flops(n, 1) : 2.0 * n * (double)n * n;
                            fprintf(g, "%d %g\n", n, f / best[si][m] * 1e-9);
                        }
                    fprintf(g, "e\n");
                }
            }
            fprintf(g, "unset multiplot\n");
            if (pclose(g)) fprintf(stderr, "portsolve-bench-gj: gnuplot failed\n");
        }
    }
    bench_refs_release();
    ps_context_destroy(ctx);
    return rc;
}
