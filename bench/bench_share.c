/*
 * portsolve-bench-share: how much of a host-level ps_dgesv is spent outside the device-level
 * solve of the same system. Per round, in one process on one context: the matrix up and down
 * (ps_matrix_upload / ps_matrix_download), ps_dgesv on host arrays, and the uploaded system
 * solved at the device level (ps_mat_gesv, its pivots and solution read back; the uploads not
 * timed). The share is 1 - device time / host time; the first round of a process pays for fresh
 * host pages and kernel loading, so the summary line is the median of the rounds after it.
 *   portsolve-bench-share [--backend NAME] [--sizes N,...] [--rounds R] [--csv FILE]
 */
#include "bench_args.h"
#include "bench_refs.h"

#include <portsolve.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    const char *backend, *csv;
    int sizes[32], nsizes, rounds;
} options;

typedef struct round_times {
    double up, down, host, device;
} round_times;

static int parse(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->rounds = 4;
    const bench_arg args[] = {
        BENCH_ARG_STRING("--backend", &o->backend),
        BENCH_ARG_STRING("--csv", &o->csv),
        BENCH_ARG_INT("--rounds", &o->rounds, 2, 20),
        BENCH_ARG_INTS("--sizes", o->sizes, 32, &o->nsizes, 1),
    };
    if (!bench_parse_args("portsolve-bench-share", argc, argv, args, sizeof args / sizeof args[0]))
        return 0;
    if (o->nsizes == 0) o->sizes[0] = 16384, o->nsizes = 1;
    return 1;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Runs the rounds of one order; returns 0 on success. */
static int measure(ps_context *ctx, int n, int rounds, round_times *t) {
    size_t count = (size_t)n * (size_t)n;
    double *a = malloc(count * sizeof *a), *a0 = malloc(count * sizeof *a);
    double *b = malloc((size_t)n * sizeof *b), *b0 = malloc((size_t)n * sizeof *b);
    int *ipiv = malloc((size_t)n * sizeof *ipiv);
    ps_matrix *m = NULL, *mb = NULL;
    int rc = !a || !a0 || !b || !b0 || !ipiv;
    if (!rc)
        rc = ps_matrix_create(ctx, PS_DOUBLE, n, n, n, &m) ||
             ps_matrix_create(ctx, PS_DOUBLE, n, 1, n, &mb);
    if (!rc) { /* diagonally dominant: no pivot is ever small */
        srand(1);
        for (size_t i = 0; i < count; i++) a0[i] = rand() / (double)RAND_MAX - 0.5;
        for (int i = 0; i < n; i++) a0[(size_t)i * n + i] += n, b0[i] = 1;
    }
    for (int r = 0; r < rounds && !rc; r++) {
        double t0 = bench_now();
        rc = ps_matrix_upload(m, a0, n);
        double t1 = bench_now();
        if (!rc) rc = ps_matrix_download(m, a, n);
        double t2 = bench_now();
        memcpy(a, a0, count * sizeof *a), memcpy(b, b0, (size_t)n * sizeof *b);
        double t3 = bench_now();
        if (!rc) rc = ps_dgesv(ctx, n, 1, a, n, ipiv, b, n);
        double t4 = bench_now();
        if (!rc) rc = ps_matrix_upload(m, a0, n) || ps_matrix_upload(mb, b0, n);
        double t5 = bench_now();
        if (!rc) rc = ps_mat_gesv(ctx, m, ipiv, mb) || ps_matrix_download(mb, b, n);
        double t6 = bench_now();
        t[r] = (round_times){t1 - t0, t2 - t1, t4 - t3, t6 - t5};
    }
    if (rc) fprintf(stderr, "portsolve-bench-share: n = %d: %s\n", n, ps_context_last_error(ctx));
    ps_matrix_destroy(mb), ps_matrix_destroy(m);
    free(a), free(a0), free(b), free(b0), free(ipiv);
    return rc;
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) return 2;
    ps_context *ctx;
    int open_rc = bench_open_context("portsolve-bench-share", o.backend, &ctx);
    if (open_rc) return open_rc;
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (o.csv && !csv) {
        fprintf(stderr, "portsolve-bench-share: cannot write %s\n", o.csv);
        ps_context_destroy(ctx);
        return 1;
    }
    if (csv) fprintf(csv, "backend,device,n,round,up_s,down_s,host_s,device_s,outside\n");
    printf("# backend %s, device %s; double, one right-hand side\n", ps_context_backend_name(ctx),
           ps_context_device_name(ctx));
    printf("# outside = 1 - device / host: the host call's share spent outside the device solve\n");
    printf("      n  round      up s    down s    host s  device s  outside\n");
    int rc = 0;
    round_times *t = malloc((size_t)o.rounds * sizeof *t);
    double *share = malloc((size_t)o.rounds * sizeof *share);
    for (int s = 0; s < o.nsizes && !rc && t && share; s++) {
        int n = o.sizes[s];
        rc = measure(ctx, n, o.rounds, t);
        for (int r = 0; r < o.rounds && !rc; r++) {
            share[r] = 1 - t[r].device / t[r].host;
            printf("%7d %6d %9.4f %9.4f %9.4f %9.4f %7.1f%%\n", n, r + 1, t[r].up, t[r].down,
                   t[r].host, t[r].device, 100 * share[r]);
            if (csv)
                fprintf(csv, "%s,%s,%d,%d,%.6f,%.6f,%.6f,%.6f,%.4f\n", ps_context_backend_name(ctx),
                        ps_context_device_name(ctx), n, r + 1, t[r].up, t[r].down, t[r].host,
                        t[r].device, share[r]);
        }
        if (!rc) {
            qsort(share + 1, (size_t)o.rounds - 1, sizeof *share, by_value);
            int k = o.rounds - 1;
            double median = k % 2 ? share[1 + k / 2] : (share[k / 2] + share[1 + k / 2]) / 2;
            printf("# n = %d: median outside share of rounds 2 to %d: %.1f%%\n", n, o.rounds,
                   100 * median);
        }
    }
    if (!t || !share) rc = 1;
    free(t), free(share);
    if (csv) fclose(csv);
    ps_context_destroy(ctx);
    return rc ? 1 : 0;
}
