/*
 * portsolve-bench-iter: the iterative solvers, in the layout of Oancea, Andrei and Dragoescu's
 * Tables 1-4: each solver's time on a backend next to the same code on the CPU backend with
 * OpenBLAS on one thread, as a speedup, in one run.
 *
 *   portsolve-bench-iter --backend cuda --sizes 2000,5000,10000 [--precision d|s]
 *                        [--methods jacobi,gs,cg,bicgstab,gmres] [--tol 1e-4] [--restart 35]
 *                        [--cpu-max N] [--csv out.csv]
 *
 * The system is symmetric and strictly diagonally dominant with a positive diagonal (so every
 * method converges: Jacobi and Gauss-Seidel by dominance, CG by definiteness), b random, x0 = 0.
 * The backend is timed at the device level (A, b, x already uploaded), the CPU reference through
 * the host driver (which works in place). Above --cpu-max (default 10000) the single-thread
 * reference is skipped. For CG and GMRES the achieved bandwidth of the matrix reads is
 * es n^2 bytes per matrix-vector product over the time per product, twice: over the whole
 * solve, taking the products as iterations + 2 (the initial and the final true residual), and
 * per product inside the iteration ("GB/s mv"), from two more solves cut at ITER_SHORT and
 * ITER_SHORT + restart iterations (their time difference over the products between: one per
 * iteration, and for GMRES, whose span is one whole restart cycle, the restart's residual too;
 * everything a solve does once cancels). The cut solves run on a second matrix, diag(1..n)
 * stored dense (the same bytes per product), on which both methods converge slowly enough that
 * tens of iterations neither converge nor underflow, even in float; the table's matrix
 * converges in a few, and the first iterations of a solve measured apart from the rest. On CUDA
 * both bandwidths are shown beside cuBLAS ?gemv's own at the same n.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "bench_refs.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZES 16
/* The shorter cut solve of the per-iteration measurement (the longer adds a restart length). */
#define ITER_SHORT 5

enum { NMETHODS = 5 };
static const char *const method_names[NMETHODS] = {"jacobi", "gs", "cg", "bicgstab", "gmres"};

static void *make_matrix(int single, int n, unsigned seed) {
    size_t es = single ? sizeof(float) : sizeof(double);
    double *a = malloc(sizeof(double) * (size_t)n * n);
    void *out = malloc(es * (size_t)n * n);
    if (!a || !out) {
        free(a), free(out);
        return NULL;
    }
    srand(seed);
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++)
            a[i + (size_t)j * n] = a[j + (size_t)i * n] = 2.0 * rand() / RAND_MAX - 1.0;
    for (int i = 0; i < n; i++) {
        double off = 0;
        for (int j = 0; j < n; j++)
            if (j != i)
                off += a[i + (size_t)j * n] < 0 ? -a[i + (size_t)j * n] : a[i + (size_t)j * n];
        a[i + (size_t)i * n] = 1.25 * off;
    }
    for (size_t k = 0; k < (size_t)n * n; k++)
        if (single)
            ((float *)out)[k] = (float)a[k];
        else
            ((double *)out)[k] = a[k];
    free(a);
    return out;
}

static ps_status host_solve(ps_context *ctx, int single, int m, int n, const void *A, const void *b,
                            void *x, const ps_iter_options *o, ps_iter_result *r) {
    typedef ps_status (*d_fn)(ps_context *, int, const double *, int, const double *, double *,
                              const ps_iter_options *, ps_iter_result *);
    typedef ps_status (*s_fn)(ps_context *, int, const float *, int, const float *, float *,
                              const ps_iter_options *, ps_iter_result *);
    static const d_fn d[] = {ps_djacobi, ps_dgs, ps_dcg, ps_dbicgstab, ps_dgmres};
    static const s_fn s[] = {ps_sjacobi, ps_sgs, ps_scg, ps_sbicgstab, ps_sgmres};
    return single ? s[m](ctx, n, A, n, b, x, o, r) : d[m](ctx, n, A, n, b, x, o, r);
}

/* Best of 3 seconds of a device-level solve of method m stopped after exactly k iterations
 * (tol 0, so only max_iter ends it), from x = 0; -1 when it stopped otherwise. */
static double cut_solve_seconds(ps_context *ctx, int m, ps_matrix *dA, ps_matrix *db, ps_matrix *dx,
                                const void *zeros, int n, int restart, int k) {
    ps_iter_options o = ps_iter_options_default();
    o.tol = 0, o.restart = restart, o.max_iter = k;
    double best = -1;
    for (int rep = 0; rep < 3; rep++) {
        ps_iter_result r;
        if (ps_matrix_upload(dx, zeros, n) || ps_context_synchronize(ctx)) return -1;
        double t0 = bench_now();
        ps_status st = ps_mat_iter_solve(ctx, (ps_iter_method)m, dA, db, dx, &o, &r);
        ps_context_synchronize(ctx);
        double t = bench_now() - t0;
        if (st != PS_ERR_NO_CONVERGENCE || r.iterations != k) return -1;
        if (best < 0 || t < best) best = t;
    }
    return best;
}

/* Seconds per matrix-vector product: the difference of two cut solves over the products between
 * them, one per iteration and, for GMRES, the restart's residual (the span holds one restart). */
static double seconds_per_product(ps_context *ctx, int m, ps_matrix *dA, ps_matrix *db,
                                  ps_matrix *dx, const void *zeros, int n, int restart) {
    int longer = ITER_SHORT + restart, products = restart + (m == PS_ITER_GMRES ? 1 : 0);
    double t1 = cut_solve_seconds(ctx, m, dA, db, dx, zeros, n, restart, ITER_SHORT);
    double t2 = cut_solve_seconds(ctx, m, dA, db, dx, zeros, n, restart, longer);
    if (t1 < 0 || t2 <= t1) return -1;
    return (t2 - t1) / products;
}

/* The cut solves' matrix diag(1..n), dense, on the device (NULL on failure). */
static ps_matrix *slow_matrix(ps_context *ctx, int single, int n) {
    size_t es = single ? sizeof(float) : sizeof(double);
    void *a = calloc((size_t)n * n, es);
    ps_matrix *d = NULL;
    if (!a) return NULL;
    for (int i = 0; i < n; i++) {
        size_t k = (size_t)i * n + (size_t)i;
        if (single)
            ((float *)a)[k] = (float)(i + 1);
        else
            ((double *)a)[k] = i + 1;
    }
    if (ps_matrix_create(ctx, single ? PS_FLOAT : PS_DOUBLE, n, n, 0, &d) ||
        ps_matrix_upload(d, a, n)) {
        ps_matrix_destroy(d);
        d = NULL;
    }
    free(a);
    return d;
}

int main(int argc, char **argv) {
    const char *backend = "auto", *csv = NULL;
    int methods = (1 << NMETHODS) - 1; /* a bit per method_names entry */
    int sizes[MAX_SIZES], nsizes = 0, single = 0, restart = 35, cpu_max = 10000;
    double tol = 1e-4;
    const bench_arg args[] = {
        BENCH_ARG_STRING("--backend", &backend),
        BENCH_ARG_STRING("--csv", &csv),
        BENCH_ARG_CHOICE_SET("--methods", &methods, "jacobi|gs|cg|bicgstab|gmres"),
        BENCH_ARG_CHOICE("--precision", &single, "d|s"),
        BENCH_ARG_DOUBLE("--tol", &tol, 1e-16, 0.5),
        BENCH_ARG_INT("--restart", &restart, 1, 1 << 20),
        BENCH_ARG_INT("--cpu-max", &cpu_max, 0, 1 << 30),
        BENCH_ARG_INTS("--sizes", sizes, MAX_SIZES, &nsizes, 1),
    };
    if (!bench_parse_args("portsolve-bench-iter", argc, argv, args, sizeof args / sizeof args[0]))
        return 2;
    if (nsizes == 0) sizes[nsizes++] = 2000;
    ps_context_options co = ps_context_options_default();
    ps_context *ctx = NULL, *cpu = NULL;
    if (ps_backend_kind_from_name(backend, &co.backend) || ps_context_create(&ctx, &co)) {
        fprintf(stderr, "portsolve-bench-iter: backend %s: %s\n", backend, ps_last_create_error());
        return 1;
    }
    co.backend = PS_BACKEND_CPU;
    if (ps_context_create(&cpu, &co)) {
        fprintf(stderr, "portsolve-bench-iter: cpu: %s\n", ps_last_create_error());
        return 1;
    }
    FILE *f = csv ? fopen(csv, "w") : NULL;
    if (f)
        fprintf(f, "method,backend,device,precision,n,iterations,time_s,cpu1_time_s,speedup,"
                   "rel_residual,gbps,gbps_per_product,gemv_gbps\n");
    printf("# portsolve-bench-iter: %c precision, tol %g, GMRES(%d); backend %s (%s) at the device "
           "level vs the cpu backend on 1 OpenBLAS thread\n",
           single ? 's' : 'd', tol, restart, ps_context_backend_name(ctx),
           ps_context_device_name(ctx));
    printf("%-9s %6s %6s %11s %11s %8s %10s %9s %9s %9s\n", "method", "n", "iters", "time s",
           "cpu1 s", "speedup", "residual", "GB/s", "GB/s mv", "gemv GB/s");
    size_t es = single ? sizeof(float) : sizeof(double);
    ps_dtype dt = single ? PS_FLOAT : PS_DOUBLE;
    int rc = 0;
    for (int si = 0; si < nsizes; si++) {
        int n = sizes[si];
        void *A = make_matrix(single, n, 7u + (unsigned)n);
        void *b = malloc(es * (size_t)n), *x = calloc((size_t)n, es);
        for (int i = 0; i < n; i++)
            if (single)
                ((float *)b)[i] = (float)(2.0 * rand() / RAND_MAX - 1.0);
            else
                ((double *)b)[i] = 2.0 * rand() / RAND_MAX - 1.0;
        double gemv_gbps = -1;
#ifdef PORTSOLVE_BENCH_CUDA
        if (!strcmp(ps_context_backend_name(ctx), "cuda")) {
            double t = bench_cuda_gemv_seconds(ctx, single, n, A);
            if (t > 0) gemv_gbps = es * (double)n * n / t * 1e-9;
        }
#endif
        ps_matrix *dA = NULL, *db = NULL, *dx = NULL, *dS = NULL;
        if (ps_matrix_create(ctx, dt, n, n, 0, &dA) || ps_matrix_create(ctx, dt, n, 1, 0, &db) ||
            ps_matrix_create(ctx, dt, n, 1, 0, &dx) || ps_matrix_upload(dA, A, n) ||
            ps_matrix_upload(db, b, n)) {
            fprintf(stderr, "portsolve-bench-iter: n=%d: %s\n", n, ps_context_last_error(ctx));
            rc = 1;
        }
        for (int m = 0; m < NMETHODS && !rc; m++) {
            if (!(methods >> m & 1)) continue;
            ps_iter_options o = ps_iter_options_default();
            o.tol = tol, o.restart = restart, o.max_iter = 5000;
            ps_iter_result r, rcpu;
            double best = -1;
            for (int rep = 0; rep < 3; rep++) { /* best of 3 (the first includes warm-up) */
                memset(x, 0, es * (size_t)n);
                ps_matrix_upload(dx, x, n);
                ps_context_synchronize(ctx);
                double t0 = bench_now();
                ps_status st = ps_mat_iter_solve(ctx, (ps_iter_method)m, dA, db, dx, &o, &r);
                if (st) { /* before the synchronize, which clears the message */
                    fprintf(stderr, "portsolve-bench-iter: %s n=%d: %s\n", method_names[m], n,
                            ps_context_last_error(ctx));
                    rc = 1;
                    break;
                }
                ps_context_synchronize(ctx);
                double t = bench_now() - t0;
                if (best < 0 || t < best) best = t;
            }
            double tcpu = -1;
            if (!rc && n <= cpu_max) {
                int threads = openblas_get_num_threads();
                openblas_set_num_threads(1);
                memset(x, 0, es * (size_t)n);
                double t0 = bench_now();
                ps_status st = host_solve(cpu, single, m, n, A, b, x, &o, &rcpu);
                tcpu = bench_now() - t0;
                openblas_set_num_threads(threads);
                if (st) tcpu = -1;
            }
            double gbps = es * (double)n * n / (best / (r.iterations + 2)) * 1e-9;
            int bw = m == PS_ITER_CG || m == PS_ITER_GMRES;
            double per_product = -1, gbps_product = -1;
            if (bw && !rc && !dS) dS = slow_matrix(ctx, single, n);
            if (bw && !rc && dS) {
                memset(x, 0, es * (size_t)n);
                per_product = seconds_per_product(ctx, m, dS, db, dx, x, n, restart);
                if (per_product > 0) gbps_product = es * (double)n * n / per_product * 1e-9;
            }
            char cpu_s[16] = "-", sp[16] = "-", bws[16] = "-", bwi[16] = "-", gs[16] = "-";
            if (tcpu > 0) snprintf(cpu_s, sizeof cpu_s, "%.4f", tcpu);
            if (tcpu > 0) snprintf(sp, sizeof sp, "%.1f", tcpu / best);
            if (bw) snprintf(bws, sizeof bws, "%.0f", gbps);
            if (gbps_product > 0) snprintf(bwi, sizeof bwi, "%.0f", gbps_product);
            if (bw && gemv_gbps > 0) snprintf(gs, sizeof gs, "%.0f", gemv_gbps);
            if (!rc)
                printf("%-9s %6d %6d %11.5f %11s %8s %10.2e %9s %9s %9s\n", method_names[m], n,
                       r.iterations, best, cpu_s, sp, r.rel_residual, bws, bwi, gs);
            if (!rc && f)
                fprintf(f, "%s,%s,\"%s\",%c,%d,%d,%.6g,%.6g,%.4g,%.3g,%.4g,%.4g,%.4g\n",
                        method_names[m], ps_context_backend_name(ctx), ps_context_device_name(ctx),
                        single ? 's' : 'd', n, r.iterations, best, tcpu,
                        tcpu > 0 ? tcpu / best : -1, r.rel_residual, bw ? gbps : -1, gbps_product,
                        gemv_gbps);
            fflush(stdout);
        }
        ps_matrix_destroy(dA), ps_matrix_destroy(db), ps_matrix_destroy(dx), ps_matrix_destroy(dS);
        free(A), free(b), free(x);
    }
    if (f) fclose(f);
    ps_context_destroy(cpu);
    ps_context_destroy(ctx);
    return rc;
}
