/*
 * portsolve-bench-ir: mixed-precision refinement (ps_mat_dsgesv) beside double LU and the vendor
 * references, in one run:
 *
 *   portsolve-bench-ir --backend cuda|opencl|cpu --sizes 4096,...,32768 [--conds 1e2,1e4,1e6]
 *                      [--precisions float,tf32,fp16,bf16,tf32x3,fp16x3[-rbt],...] [--repeats R]
 *                      [--csv F]
 *                      [--references yes|no] [--restart M] [--max-iter K]
 *                      [--level device|host]
 *
 * Per order n and condition number: A = Q1 diag(sigma) Q2^T with sigma geometric from 1 to
 * 1/cond (dlatms mode 3; built on the GPU for CUDA, with LAPACKE on the host otherwise), b
 * uniform in [-1, 1). Device level (matrices uploaded before the clock starts), one right-hand
 * side, median of R runs after one warm-up:
 *   ps-dgesv           portsolve's double LU solve (ps_mat_gesv)
 *   ps-<p>             ps_mat_dsgesv with the lower precision p (p-rbt: the RBT
 *                      factorization, PS_REFINE_RBT; no reference runs for these)
 *   ref-dgesv          cuSOLVER dgetrf+dgetrs (CUDA) or LAPACKE_dgesv (CPU)
 *   ref-ir-<p>         cusolverDnIRSXgesv, classical then GMRES refinement (CUDA), or
 *                      LAPACKE_dsgesv (CPU, float only)
 * For each: seconds, the time relative to ref-dgesv (ps-dgesv where there is no reference), the
 * refinement steps and path (for ps-<p> also its classical and GMRES steps, counted even when it
 * fell back), and the backward error ||b - A x||_inf / (||A||_inf ||x||_inf)
 * recomputed on the host from the returned x (LAPACK's test passes below sqrt(n) 2^-53).
 * --level host times the host drivers instead (ps_dgesv, ps_dsgesv on host arrays: transfers
 * included) beside cuSOLVER dgetrf+dgetrs with the plain transfers a user would write (the
 * ref-ir rows are left out there: cuSOLVER's IRS has no host interface).
 * --restart and --max-iter set ps_refine_options' restart and max_iter (GMRES-IR's m, and the
 * refinement steps and Arnoldi steps per correction; defaults 30 and 30).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "bench_ir.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PS_DGESV, PS_IR, REF_DGESV, REF_IR };
#define MAX_PREC 8

typedef struct {
    const char *backend, *csv;
    int sizes[16], nsizes, repeats;
    double conds[8];
    int nconds;
    ps_lowprec precs[MAX_PREC];
    ps_refine_factor factors[MAX_PREC];
    int nprecs;
    int references;        /* run the vendor references (--references no: portsolve only) */
    int restart, max_iter; /* ps_refine_options' (0: the default) */
    int host_level;        /* --level host: the host drivers, transfers timed */
} options;

static int parse(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->backend = "auto";
    o->repeats = 3;
    int no_references = 0;
    const char *precs = "float";
    const bench_arg args[] = {
        BENCH_ARG_STRING("--backend", &o->backend),
        BENCH_ARG_STRING("--csv", &o->csv),
        BENCH_ARG_INT("--repeats", &o->repeats, 1, 15),
        BENCH_ARG_INTS("--sizes", o->sizes, 16, &o->nsizes, 1),
        BENCH_ARG_DOUBLES("--conds", o->conds, 8, &o->nconds, 1, 1e300),
        BENCH_ARG_STRING("--precisions", &precs),
        BENCH_ARG_INT("--restart", &o->restart, 1, 1 << 20),
        BENCH_ARG_INT("--max-iter", &o->max_iter, 1, 1 << 20),
        BENCH_ARG_CHOICE("--references", &no_references, "yes|no"),
        BENCH_ARG_CHOICE("--level", &o->host_level, "device|host"),
    };
    if (!bench_parse_args("portsolve-bench-ir", argc, argv, args, sizeof args / sizeof args[0]))
        return 0;
    o->references = !no_references;
    if (!o->nsizes) o->nsizes = bench_int_list("1024,2048", o->sizes, 16, 1);
    if (!o->nconds) {
        static const double def[] = {1e2, 1e4, 1e6};
        memcpy(o->conds, def, sizeof def);
        o->nconds = 3;
    }
    /* --precisions: a comma-separated list of lower precisions, each with an optional
     * -partial or -rbt (the factorization's pivoting) */
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", precs);
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (o->nprecs == MAX_PREC) {
            fprintf(stderr, "portsolve-bench-ir: more than %d --precisions\n", MAX_PREC);
            return 0;
        }
        char *dash = strchr(t, '-');
        o->factors[o->nprecs] = PS_REFINE_PARTIAL_PIVOTING;
        if (dash) {
            *dash = '\0';
            if (ps_refine_factor_from_name(dash + 1, &o->factors[o->nprecs])) {
                fprintf(stderr, "portsolve-bench-ir: '-%s' is not -rbt or -partial\n", dash + 1);
                return 0;
            }
        }
        if (ps_lowprec_from_name(t, &o->precs[o->nprecs])) {
            fprintf(stderr,
                    "portsolve-bench-ir: '%s' is not float, tf32, fp16, bf16, tf32x3 or fp16x3\n",
                    t);
            return 0;
        }
        o->nprecs++;
    }
    if (o->nprecs == 0) {
        fprintf(stderr, "portsolve-bench-ir: --precisions '%s' names none\n", precs);
        return 0;
    }
    return 1;
}

/* A = Q1 diag(sigma) Q2^T on the host (LAPACKE QR of uniform random matrices). */
static int host_randsvd(int n, double cond, unsigned seed, double *A) {
    size_t nn = (size_t)n * n;
    double *q1 = malloc(nn * sizeof(double)), *q2 = malloc(nn * sizeof(double));
    double *tau = malloc((size_t)n * sizeof(double));
    int rc = !q1 || !q2 || !tau;
    unsigned long long state = 0x9E3779B97F4A7C15ull ^ seed;
    for (size_t i = 0; !rc && i < nn; i++)
        q1[i] = bench_ir_uniform(&state), q2[i] = bench_ir_uniform(&state);
    for (int k = 0; k < 2 && !rc; k++) {
        double *q = k ? q2 : q1;
        rc = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, n, n, q, n, tau) ||
             LAPACKE_dorgqr(LAPACK_COL_MAJOR, n, n, n, q, n, tau);
    }
    for (int j = 0; j < n && !rc; j++)
        cblas_dscal(n, n > 1 ? pow(cond, -(double)j / (n - 1)) : 1, q1 + (size_t)j * n, 1);
    if (!rc)
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, 1, q1, n, q2, n, 0, A, n);
    free(q1), free(q2), free(tau);
    return rc;
}

static double backward_error(int n, const double *A, double anrm, const double *b,
                             const double *x) {
    double *r = malloc(sizeof(double) * (size_t)n);
    memcpy(r, b, sizeof(double) * (size_t)n);
    cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1, A, n, x, 1, 1, r, 1);
    double rn = fabs(r[cblas_idamax(n, r, 1)]), xn = fabs(x[cblas_idamax(n, x, 1)]);
    free(r);
    return rn / (anrm * xn);
}

/* One timed portsolve run: double LU (method PS_DGESV) or dsgesv in precision p. */
static int run_portsolve(ps_context *ctx, const options *opt, int method, ps_lowprec p,
                         ps_refine_factor f, int n, const double *A0, const double *B0, double *X,
                         double *seconds, int *iter, ps_refine_result *res) {
    ps_matrix *A = NULL, *B = NULL, *Xm = NULL;
    int *ipiv = malloc(sizeof(int) * (size_t)n);
    ps_refine_options o = ps_refine_options_default();
    o.precision = p;
    o.factorization = f;
    if (opt->restart) o.restart = opt->restart;
    if (opt->max_iter) o.max_iter = opt->max_iter;
    ps_status st;
    if (opt->host_level) { /* the host drivers on copies of the inputs, made before the clock */
        double *Ah = malloc(sizeof(double) * (size_t)n * n), *Bh = malloc(sizeof(double) * n);
        st = Ah && Bh && ipiv ? ps_context_set_refine_options(ctx, &o) : PS_ERR_OUT_OF_HOST_MEMORY;
        if (!st) {
            memcpy(Ah, A0, sizeof(double) * (size_t)n * n);
            memcpy(Bh, B0, sizeof(double) * n);
        }
        double t0 = bench_now();
        *iter = 0;
        if (!st)
            st = method == PS_DGESV ? ps_dgesv(ctx, n, 1, Ah, n, ipiv, Bh, n)
                                    : ps_dsgesv(ctx, n, 1, Ah, n, ipiv, Bh, n, X, n, iter);
        *seconds = bench_now() - t0;
        *res = ps_context_refine_result(ctx);
        if (!st && method == PS_DGESV) memcpy(X, Bh, sizeof(double) * n);
        if (st)
            fprintf(stderr, "portsolve-bench-ir: host %s n=%d: %s\n",
                    method == PS_DGESV ? "dgesv" : ps_lowprec_name(p), n,
                    ps_context_last_error(ctx));
        free(Ah), free(Bh), free(ipiv);
        return st != PS_SUCCESS;
    }
    st = ps_matrix_create(ctx, PS_DOUBLE, n, n, n, &A);
    if (!st) st = ps_matrix_create(ctx, PS_DOUBLE, n, 1, n, &B);
    if (!st) st = ps_matrix_create(ctx, PS_DOUBLE, n, 1, n, &Xm);
    if (!st) st = ps_matrix_upload(A, A0, n);
    if (!st) st = ps_matrix_upload(B, B0, n);
    if (!st) st = ps_context_set_refine_options(ctx, &o);
    if (!st) st = ps_context_synchronize(ctx);
    double t0 = bench_now();
    *iter = 0;
    if (!st)
        st = method == PS_DGESV ? ps_mat_gesv(ctx, A, ipiv, B)
                                : ps_mat_dsgesv(ctx, A, ipiv, B, Xm, iter);
    if (!st) st = ps_context_synchronize(ctx);
    *seconds = bench_now() - t0;
    *res = ps_context_refine_result(ctx);
    if (!st) st = ps_matrix_download(method == PS_DGESV ? B : Xm, X, n);
    if (st)
        fprintf(stderr, "portsolve-bench-ir: %s n=%d: %s\n",
                method == PS_DGESV ? "dgesv" : ps_lowprec_name(p), n, ps_context_last_error(ctx));
    ps_matrix_destroy(A), ps_matrix_destroy(B), ps_matrix_destroy(Xm);
    free(ipiv);
    return st != PS_SUCCESS;
}

/* The references; -1 when the backend has none of this kind (or precision). */
static int run_reference(ps_context *ctx, const options *opt, int method, ps_lowprec p, int n,
                         const double *A0, const double *B0, double *X, double *seconds,
                         int *iter) {
    const char *be = ps_context_backend_name(ctx);
    *iter = 0;
    if (opt->host_level && method != REF_DGESV) return -1;
    if (method == REF_DGESV) {
        const bench_ref *ref = bench_reference_for(be, NULL, 0);
        if (!ref || !ref->solves) return -1;
        bench_problem pr = {0, n, 1, 0, (void *)A0, (void *)B0, NULL, X, NULL, 0};
        int cpu = !strcmp(be, "cpu"); /* LAPACKE factors in place: give it a copy */
        pr.A = cpu ? malloc(sizeof(double) * (size_t)n * n) : (void *)A0;
        pr.ipiv = malloc(sizeof(int) * (size_t)n);
        if (cpu) memcpy(pr.A, A0, sizeof(double) * (size_t)n * n);
        memcpy(X, B0, sizeof(double) * (size_t)n);
        int rc = ref->run(ref, ctx, &pr, !opt->host_level, seconds);
        if (cpu) free(pr.A);
        free(pr.ipiv);
        return rc;
    }
    if (!strcmp(be, "cpu")) {
        if (p != PS_LOWPREC_FLOAT) return -1;
        double *A = malloc(sizeof(double) * (size_t)n * n);
        int *ipiv = malloc(sizeof(int) * (size_t)n);
        memcpy(A, A0, sizeof(double) * (size_t)n * n);
        double t0 = bench_now();
        int info = LAPACKE_dsgesv(LAPACK_COL_MAJOR, n, 1, A, n, ipiv, (double *)B0, n, X, n, iter);
        *seconds = bench_now() - t0;
        free(A), free(ipiv);
        return info != 0;
    }
#ifdef PORTSOLVE_BENCH_CUDA
    if (!strcmp(be, "cuda")) return bench_ir_cuda_irs(ctx, n, A0, B0, X, p, seconds, iter);
#endif
    return -1;
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) return 2;
    ps_context *ctx;
    int open_rc = bench_open_context("portsolve-bench-ir", o.backend, &ctx);
    if (open_rc) return open_rc;
    const char *backend = ps_context_backend_name(ctx), *device = ps_context_device_name(ctx);
    printf("portsolve-bench-ir: %s level, one right-hand side, on %s (%s)\n",
           o.host_level ? "host" : "device", backend, device);
    FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
    if (csv)
        fprintf(csv, "backend,device,n,cond,method,seconds,ratio,iter,path,backward_error,"
                     "classical_steps,gmres_steps\n");
    printf("%6s %6s %-14s %9s %7s %5s %-9s %7s %10s\n", "n", "cond", "method", "seconds", "ratio",
           "iter", "path", "c+g", "bwd err");
    char summary[4096] = "";
    size_t used = 0;
    int rc = 0;
    for (int si = 0; si < o.nsizes && !rc; si++) {
        int n = o.sizes[si];
        double *A0 = malloc(sizeof(double) * (size_t)n * n), *B0 = malloc(sizeof(double) * n);
        double *X = malloc(sizeof(double) * n);
        unsigned long long state = 0x2545F4914F6CDD1Dull + (unsigned)n;
        for (int i = 0; i < n; i++) B0[i] = bench_ir_uniform(&state);
        for (int ci = 0; ci < o.nconds && !rc; ci++) {
            double cond = o.conds[ci];
#ifdef PORTSOLVE_BENCH_CUDA
            rc = !strcmp(backend, "cuda") ? bench_ir_cuda_randsvd(ctx, n, cond, 7, A0)
                                          : host_randsvd(n, cond, 7, A0);
#else
            rc = host_randsvd(n, cond, 7, A0);
#endif
            if (rc) break;
            double anrm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'I', n, n, A0, n);
            double base = NAN; /* ref-dgesv, else ps-dgesv */
            used += (size_t)snprintf(summary + used, sizeof summary - used, "%6d %6.0e", n, cond);
            static const int order[] = {REF_DGESV, PS_DGESV, PS_IR, REF_IR};
            for (int mi = 0; mi < 4 && !rc; mi++) {
                int m = order[mi];
                int np = m == PS_IR || m == REF_IR ? o.nprecs : 1;
                if (!o.references && (m == REF_DGESV || m == REF_IR)) continue;
                for (int q = 0; q < np && !rc; q++) {
                    ps_lowprec p = o.precs[q];
                    ps_refine_factor f = o.factors[q];
                    if (m == REF_IR && f != PS_REFINE_PARTIAL_PIVOTING) continue;
                    double times[16], t = 0;
                    int r, iter = 0, e = 0;
                    ps_refine_result res = {0};
                    for (r = -1; r < o.repeats; r++) {
                        e = m == PS_DGESV || m == PS_IR
                                ? run_portsolve(ctx, &o, m, p, f, n, A0, B0, X, &t, &iter, &res)
                                : run_reference(ctx, &o, m, p, n, A0, B0, X, &t, &iter);
                        if (e) break;
                        if (r >= 0) times[r] = t;
                    }
                    if (e < 0) continue; /* no such reference here */
                    static const char *const prefix[] = {"ps-dgesv", "ps-", "ref-dgesv", "ref-ir-"};
                    char name[32];
                    snprintf(name, sizeof name, "%s%s%s", prefix[m],
                             m == PS_IR || m == REF_IR ? ps_lowprec_name(p) : "",
                             m == PS_IR && f == PS_REFINE_RBT ? "-rbt" : "");
                    if (e) {
                        printf("%6d %6.0e %-14s failed\n", n, cond, name);
                        continue; /* a failing reference does not stop the others */
                    }
                    t = bench_median(times, o.repeats);
                    if (m == REF_DGESV || (m == PS_DGESV && isnan(base))) base = t;
                    double bwd = backward_error(n, A0, anrm, B0, X), ratio = t / base;
                    const char *path = m == PS_IR ? ps_refine_path_name(res.path) : "-";
                    char steps[24] = "-";
                    if (m == PS_IR)
                        snprintf(steps, sizeof steps, "%d+%d", res.classical_steps,
                                 res.gmres_iterations);
                    printf("%6d %6.0e %-14s %9.4f %7.2f %5d %-9s %7s %10.2e\n", n, cond, name, t,
                           ratio, iter, path, steps, bwd);
                    if (csv)
                        fprintf(csv, "%s,\"%s\",%d,%g,%s,%.6g,%.4g,%d,%s,%.3g,%d,%d\n", backend,
                                device, n, cond, name, t, ratio, iter, path, bwd,
                                m == PS_IR ? res.classical_steps : 0,
                                m == PS_IR ? res.gmres_iterations : 0);
                    used += (size_t)snprintf(summary + used, sizeof summary - used, "  %s %.2f",
                                             name, ratio);
                    if (used >= sizeof summary) used = sizeof summary - 1;
                }
            }
            used += (size_t)snprintf(summary + used, sizeof summary - used, "\n");
            if (used >= sizeof summary) used = sizeof summary - 1;
            fflush(stdout);
        }
        free(A0), free(B0), free(X);
    }
    if (csv) fclose(csv);
    printf("\nsummary (%s): time / %s time (LAPACK's test: bwd err below sqrt(n) 1.1e-16)\n%s",
           backend, o.references && strcmp(backend, "opencl") ? "ref-dgesv" : "ps-dgesv", summary);
#ifdef PORTSOLVE_BENCH_CUDA
    bench_ir_cuda_release();
#endif
    bench_refs_release();
    ps_context_destroy(ctx);
    return rc;
}
