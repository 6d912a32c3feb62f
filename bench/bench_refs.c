#define _POSIX_C_SOURCE 200809L
#include "bench_refs.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t es(const bench_problem *p) {
    return p->single ? sizeof(float) : sizeof(double);
}

int bench_problem_make(bench_problem *p, int chol, int single, int n, int nrhs, unsigned seed) {
    memset(p, 0, sizeof *p);
    p->chol = chol, p->single = single, p->n = n, p->nrhs = nrhs;
    size_t na = (size_t)n * n, nb = (size_t)n * nrhs;
    p->A0 = malloc(na * es(p)), p->A = malloc(na * es(p));
    p->B0 = malloc(nb * es(p)), p->B = malloc(nb * es(p));
    p->ipiv = malloc(sizeof(int) * (size_t)n);
    if (!p->A0 || !p->A || !p->B0 || !p->B || !p->ipiv) {
        bench_problem_free(p);
        return 1;
    }
    srand(seed);
    for (size_t i = 0; i < na + nb; i++) {
        double v = 2.0 * rand() / RAND_MAX - 1.0;
        void *dst = i < na ? p->A0 : p->B0;
        size_t k = i < na ? i : i - na;
        if (single)
            ((float *)dst)[k] = (float)v;
        else
            ((double *)dst)[k] = v;
    }
    if (chol) /* A = (A + A^T) / 2 + n I */
        for (int j = 0; j < n; j++)
            for (int i = j; i < n; i++) {
                size_t ij = (size_t)i + (size_t)j * n, ji = (size_t)j + (size_t)i * n;
                if (single) {
                    float *a = p->A0, v = (a[ij] + a[ji]) / 2 + (i == j ? (float)n : 0.0f);
                    a[ij] = a[ji] = v;
                } else {
                    double *a = p->A0, v = (a[ij] + a[ji]) / 2 + (i == j ? n : 0.0);
                    a[ij] = a[ji] = v;
                }
            }
    return 0;
}

void bench_problem_reset(bench_problem *p) {
    memcpy(p->A, p->A0, (size_t)p->n * p->n * es(p));
    memcpy(p->B, p->B0, (size_t)p->n * p->nrhs * es(p));
}

double bench_problem_residual(const bench_problem *p) {
    int n = p->n;
    double *A = malloc(sizeof(double) * (size_t)n * n), *r = malloc(sizeof(double) * n),
           *x = malloc(sizeof(double) * n);
    for (size_t i = 0; i < (size_t)n * n; i++)
        A[i] = p->single ? ((float *)p->A0)[i] : ((double *)p->A0)[i];
    double anorm = 0, worst = 0, eps = p->single ? 0x1.0p-24 : 0x1.0p-53;
    for (int j = 0; j < n; j++) anorm = fmax(anorm, cblas_dasum(n, A + (size_t)j * n, 1));
    for (int c = 0; c < p->nrhs; c++) {
        for (int i = 0; i < n; i++) {
            size_t k = (size_t)c * n + i;
            r[i] = p->single ? ((float *)p->B0)[k] : ((double *)p->B0)[k];
            x[i] = p->single ? ((float *)p->B)[k] : ((double *)p->B)[k];
        }
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, A, n, x, 1, 1.0, r, 1);
        double q = cblas_dasum(n, r, 1) / (anorm * cblas_dasum(n, x, 1) * n * eps);
        if (!(q <= worst)) worst = q;
    }
    free(A), free(r), free(x);
    return worst;
}

void bench_problem_free(bench_problem *p) {
    free(p->A0), free(p->A), free(p->B0), free(p->B), free(p->ipiv);
    memset(p, 0, sizeof *p);
}

int bench_int_list(const char *text, int *out, int max, int min_value) {
    int count = 0;
    const char *s = text;
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < min_value || v > 1 << 30 || count == max || (*end && *end != ','))
            return -1;
        out[count++] = (int)v;
        s = *end ? end + 1 : end;
        if (*end && !*s) return -1; /* a trailing comma */
    }
    return count > 0 ? count : -1;
}

double bench_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *times, int count) {
    qsort(times, (size_t)count, sizeof *times, cmp_double);
    return times[count / 2];
}

int bench_open_context(const char *prog, const char *backend, ps_context **ctx) {
    ps_context_options co = ps_context_options_default();
    if (ps_backend_kind_from_name(backend, &co.backend)) {
        fprintf(stderr, "%s: --backend '%s' is not a backend\n", prog, backend);
        return 2;
    }
    if (ps_context_create(ctx, &co)) {
        fprintf(stderr, "%s: %s\n", prog, ps_last_create_error());
        return 1;
    }
    return 0;
}

double bench_lu_flops(int n, int nrhs) {
    return 2.0 / 3.0 * n * (double)n * n + 2.0 * n * (double)n * nrhs;
}

double bench_chol_flops(int n, int nrhs) {
    return 1.0 / 3.0 * n * (double)n * n + 2.0 * n * (double)n * nrhs;
}

static int run_device_level(ps_context *ctx, bench_problem *p, double *seconds) {
    ps_dtype dt = p->single ? PS_FLOAT : PS_DOUBLE;
    ps_matrix *A = NULL, *B = NULL;
    int ld = p->ld_n ? p->n : 0;
    int rc = ps_matrix_create(ctx, dt, p->n, p->n, ld, &A) ||
             ps_matrix_create(ctx, dt, p->n, p->nrhs, ld, &B) || ps_matrix_upload(A, p->A, p->n) ||
             ps_matrix_upload(B, p->B, p->n) || ps_context_synchronize(ctx);
    if (!rc) {
        double t0 = bench_now();
        rc = (p->chol ? ps_mat_posv(ctx, 'L', A, B) : ps_mat_gesv(ctx, A, p->ipiv, B)) ||
             ps_context_synchronize(ctx);
        *seconds = bench_now() - t0;
    }
    if (!rc) rc = ps_matrix_download(B, p->B, p->n) != PS_SUCCESS;
    ps_matrix_destroy(A);
    ps_matrix_destroy(B);
    return rc;
}

int bench_run_portsolve(ps_context *ctx, bench_problem *p, int device_level, double *seconds) {
    if (device_level) return run_device_level(ctx, p, seconds);
    double t0 = bench_now();
    ps_status st;
    if (p->chol)
        st = p->single ? ps_sposv(ctx, 'L', p->n, p->nrhs, p->A, p->n, p->B, p->n)
                       : ps_dposv(ctx, 'L', p->n, p->nrhs, p->A, p->n, p->B, p->n);
    else
        st = p->single ? ps_sgesv(ctx, p->n, p->nrhs, p->A, p->n, p->ipiv, p->B, p->n)
                       : ps_dgesv(ctx, p->n, p->nrhs, p->A, p->n, p->ipiv, p->B, p->n);
    *seconds = bench_now() - t0;
    return st != PS_SUCCESS;
}

static int run_lapacke(const bench_ref *self, ps_context *ctx, bench_problem *p, int device_level,
                       double *seconds) {
    (void)self, (void)ctx, (void)device_level;
    double t0 = bench_now();
    int info;
    if (p->chol)
        info = p->single
                   ? LAPACKE_sposv(LAPACK_COL_MAJOR, 'L', p->n, p->nrhs, p->A, p->n, p->B, p->n)
                   : LAPACKE_dposv(LAPACK_COL_MAJOR, 'L', p->n, p->nrhs, p->A, p->n, p->B, p->n);
    else
        info =
            p->single
                ? LAPACKE_sgesv(LAPACK_COL_MAJOR, p->n, p->nrhs, p->A, p->n, p->ipiv, p->B, p->n)
                : LAPACKE_dgesv(LAPACK_COL_MAJOR, p->n, p->nrhs, p->A, p->n, p->ipiv, p->B, p->n);
    *seconds = bench_now() - t0;
    return info != 0;
}

/* The same host driver on a CPU-backend context of its own: what a small call costs without a
 * device (the measure of the host crossover). */
static ps_context *cpu_ctx;
static int run_cpu_backend(const bench_ref *self, ps_context *ctx, bench_problem *p,
                           int device_level, double *seconds) {
    (void)self, (void)ctx;
    if (!cpu_ctx) {
        ps_context_options o = ps_context_options_default();
        o.backend = PS_BACKEND_CPU;
        if (ps_context_create(&cpu_ctx, &o)) return 1;
    }
    return bench_run_portsolve(cpu_ctx, p, device_level, seconds);
}

static const bench_ref lapacke_ref = {"LAPACKE_gesv (OpenBLAS)", 1, bench_lu_flops, run_lapacke};
static const bench_ref cpu_backend_ref = {"portsolve cpu backend", 1, bench_lu_flops,
                                          run_cpu_backend};
static const bench_ref cpu_backend_chol_ref = {"portsolve cpu backend", 1, bench_chol_flops,
                                               run_cpu_backend};
static const bench_ref lapacke_chol_ref = {"LAPACKE_posv (OpenBLAS)", 1, bench_chol_flops,
                                           run_lapacke};

const bench_ref *bench_reference_for(const char *backend, const char *name, int chol) {
    if (name && strcmp(name, "cpu-backend") == 0)
        return chol ? &cpu_backend_chol_ref : &cpu_backend_ref;
    if (strcmp(backend, "cpu") == 0)
        return !name || strcmp(name, "lapacke") == 0 ? (chol ? &lapacke_chol_ref : &lapacke_ref)
                                                     : NULL;
#ifdef PORTSOLVE_BENCH_OPENCL
    if (strcmp(backend, "opencl") == 0)
        return !name || strcmp(name, "clblast-gemm") == 0 ? bench_opencl_gemm_ref() : NULL;
#endif
#ifdef PORTSOLVE_BENCH_CUDA
    if (strcmp(backend, "cuda") == 0) return bench_cuda_ref(name, chol);
#endif
    return NULL;
}

void bench_refs_release(void) {
    ps_context_destroy(cpu_ctx);
    cpu_ctx = NULL;
#ifdef PORTSOLVE_BENCH_OPENCL
    bench_opencl_release();
#endif
#ifdef PORTSOLVE_BENCH_CUDA
    bench_cuda_release();
#endif
}
