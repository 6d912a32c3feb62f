/*
 * portsolve-bench-panel: where LU's time goes on a backend. Times ps_mat_getrf at the device
 * level on m x w matrices factored as one panel (block size = w), for each leaf width, and on
 * square matrices for each (block size, leaf width), so the panel's cost can be set against the
 * whole factorization's. A tuning tool for backend authors; no reference, no ratio.
 *
 *   portsolve-bench-panel [--backend cuda] [--precision d|s] [--rows 16384,32768]
 *       [--widths 16,64,256,512] [--leaves 8,16,32,64] [--square 16384] [--nbs 256,512]
 *       [--repeats 3]
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "bench_args.h"
#include "bench_refs.h"
#include "portsolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16

typedef struct panel_run {
    const char *backend;
    const char *tuning; /* PORTSOLVE_TUNING as the program found it (NULL: unset) */
    int single, repeats;
} panel_run;

/* Median seconds of ps_mat_getrf on a fresh copy of host (rows x cols) with block size nb and
 * leaf width leaf (0: the backend's); < 0 on failure. */
static double time_getrf(const panel_run *r, const void *host, int rows, int cols, int nb,
                         int leaf) {
    /* the caller's knobs, then the leaf width (the later of two settings wins) */
    char text[512];
    const char *user = r->tuning ? r->tuning : "";
    if (leaf > 0)
        snprintf(text, sizeof text, "%s%slu_panel_width=%d", user, *user ? "," : "", leaf);
    else
        snprintf(text, sizeof text, "%s", user);
    setenv("PORTSOLVE_TUNING", text, 1);
    ps_context_options o = ps_context_options_default();
    if (ps_backend_kind_from_name(r->backend, &o.backend) != PS_SUCCESS) return -1;
    o.lu_block_size = nb;
    ps_context *ctx = NULL;
    if (ps_context_create(&ctx, &o) != PS_SUCCESS) {
        fprintf(stderr, "context: %s\n", ps_last_create_error());
        return -1;
    }
    ps_matrix *A = NULL;
    int *ipiv = malloc(sizeof(int) * (size_t)(rows < cols ? rows : cols) + 1);
    double times[64], result = -1;
    int count = r->repeats < 64 ? r->repeats : 64;
    if (ipiv && ps_matrix_create(ctx, r->single ? PS_FLOAT : PS_DOUBLE, rows, cols, rows, &A) ==
                    PS_SUCCESS) {
        int ok = 1;
        for (int t = -1; t < count && ok; t++) { /* t = -1: the warm-up */
            ok = ps_matrix_upload(A, host, rows) == PS_SUCCESS &&
                 ps_context_synchronize(ctx) == PS_SUCCESS;
            double t0 = bench_now();
            ok = ok && ps_mat_getrf(ctx, A, ipiv) == PS_SUCCESS &&
                 ps_context_synchronize(ctx) == PS_SUCCESS;
            if (t >= 0) times[t] = bench_now() - t0;
        }
        if (ok)
            result = bench_median(times, count);
        else
            fprintf(stderr, "getrf %dx%d: %s\n", rows, cols, ps_context_last_error(ctx));
    }
    ps_matrix_destroy(A);
    free(ipiv);
    ps_context_destroy(ctx);
    return result;
}

static void *random_matrix(int single, int rows, int cols) {
    size_t count = (size_t)rows * cols;
    void *a = malloc(count * (single ? sizeof(float) : sizeof(double)));
    if (!a) return NULL;
    unsigned long long s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < count; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double v = (double)(s >> 11) / 9007199254740992.0 * 2 - 1;
        if (single)
            ((float *)a)[i] = (float)v;
        else
            ((double *)a)[i] = v;
    }
    return a;
}

int main(int argc, char **argv) {
    const char *given = getenv("PORTSOLVE_TUNING");
    char *tuning = given ? strdup(given) : NULL; /* time_getrf resets the variable */
    panel_run r = {"cuda", tuning, 0, 3};
    int rows[MAX_LIST] = {16384}, widths[MAX_LIST] = {16, 64, 256, 512},
        leaves[MAX_LIST] = {8, 16, 32, 64}, square[MAX_LIST] = {0}, nbs[MAX_LIST] = {256, 512};
    int nrows = 1, nwidths = 4, nleaves = 4, nsquare = 0, nnbs = 2;
    const bench_arg args[] = {
        BENCH_ARG_STRING("--backend", &r.backend),
        BENCH_ARG_CHOICE("--precision", &r.single, "d|s"),
        BENCH_ARG_INT("--repeats", &r.repeats, 1, 1000),
        BENCH_ARG_INTS("--rows", rows, MAX_LIST, &nrows, 1),
        BENCH_ARG_INTS("--widths", widths, MAX_LIST, &nwidths, 1),
        BENCH_ARG_INTS("--leaves", leaves, MAX_LIST, &nleaves, 1),
        BENCH_ARG_INTS("--square", square, MAX_LIST, &nsquare, 1),
        BENCH_ARG_INTS("--nbs", nbs, MAX_LIST, &nnbs, 1),
    };
    if (!bench_parse_args("portsolve-bench-panel", argc, argv, args,
                          sizeof args / sizeof args[0])) {
        free(tuning);
        return 2;
    }
    printf("# one panel: ps_mat_getrf on m x w with block size w (seconds, median of %d)\n",
           r.repeats);
    printf("%8s %6s %6s %12s %12s\n", "m", "w", "leaf", "seconds", "us/column");
    for (int a = 0; a < nrows; a++)
        for (int b = 0; b < nwidths; b++) {
            void *host = random_matrix(r.single, rows[a], widths[b]);
            for (int c = 0; c < nleaves && host; c++) {
                if (leaves[c] > widths[b]) continue;
                double s = time_getrf(&r, host, rows[a], widths[b], widths[b], leaves[c]);
                printf("%8d %6d %6d %12.6f %12.2f\n", rows[a], widths[b], leaves[c], s,
                       s * 1e6 / widths[b]);
            }
            free(host);
        }
    if (nsquare > 0) {
        printf("# whole factorization: ps_mat_getrf on n x n\n");
        printf("%8s %6s %6s %12s %12s\n", "n", "nb", "leaf", "seconds", "TFLOP/s");
    }
    for (int a = 0; a < nsquare; a++) {
        void *host = random_matrix(r.single, square[a], square[a]);
        for (int b = 0; b < nnbs && host; b++)
            for (int c = 0; c < nleaves; c++) {
                double n = square[a];
                double s = time_getrf(&r, host, square[a], square[a], nbs[b], leaves[c]);
                printf("%8d %6d %6d %12.6f %12.2f\n", square[a], nbs[b], leaves[c], s,
                       2.0 / 3.0 * n * n * n / s * 1e-12);
            }
        free(host);
    }
    free(tuning);
    return 0;
}
