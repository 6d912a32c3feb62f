/* The benchmark's problems and its vendor references (one per backend). */
#ifndef PS_BENCH_REFS_H
#define PS_BENCH_REFS_H

#include "portsolve.h"

/* A dense system with its pristine copy; work arrays are refreshed before each timed call. */
typedef struct bench_problem {
    int single, n, nrhs;
    int chol;      /* 1: a symmetric positive definite system solved by Cholesky (posv) */
    void *A0, *B0; /* pristine inputs */
    void *A, *B;   /* work copies handed to the solver */
    int *ipiv;
    int ld_n; /* the device level's matrices with ld = n (else ps_matrix_create's aligned ld) */
} bench_problem;

/* Random A (chol: symmetric, + n I, so positive definite) and B in [-1, 1). */
int bench_problem_make(bench_problem *p, int chol, int single, int n, int nrhs, unsigned seed);
void bench_problem_reset(bench_problem *p); /* copies A0/B0 into A/B */
/* max_j ||b_j - A x_j||_1 / (||A||_1 ||x_j||_1 n eps) for the solution now in B. */
double bench_problem_residual(const bench_problem *p);
void bench_problem_free(bench_problem *p);

/* LU solve flops, 2/3 n^3 + 2 n^2 nrhs (what GFLOP/s of a solve count); Cholesky's,
 * 1/3 n^3 + 2 n^2 nrhs. */
double bench_lu_flops(int n, int nrhs);
double bench_chol_flops(int n, int nrhs);

/* Solves p with portsolve and reports the seconds of the part that counts: at the host level
 * ps_?gesv whole (checks, transfers, factor, solve); at the device level ps_mat_gesv on
 * matrices already uploaded (transfers untimed). The solution is left in p->B. 0: ok. */
int bench_run_portsolve(ps_context *ctx, bench_problem *p, int device_level, double *seconds);

typedef struct bench_ref bench_ref;
struct bench_ref {
    const char *name;
    int solves;                       /* 1: solves p (residual meaningful); 0: a rate only */
    double (*flops)(int n, int nrhs); /* the work its time is divided into */
    /* device_level: the portsolve side is timed without transfers; a reference that solves
     * the same system does likewise. */
    int (*run)(const bench_ref *self, ps_context *ctx, bench_problem *p, int device_level,
               double *seconds);
};
/* The reference `name` (NULL: the backend's default) for a backend: cpu: "lapacke" (LAPACKE
 * ?gesv on OpenBLAS); opencl: "clblast-gemm" (CLBlast's GEMM rate on the context's queue);
 * cuda: "cusolver" (cusolverDn ?getrf + ?getrs), "cusolver-contract" (also downloading A and
 * the pivots), "cusolver-pinned" (the user's arrays in page-locked memory) or "cublas-gemm";
 * every backend: "cpu-backend" (the same driver on the CPU backend). NULL when there is none. */
const bench_ref *bench_reference_for(const char *backend, const char *name, int chol);
/* Releases what the references keep between repeats (device buffers); call before the
 * context goes. */
void bench_refs_release(void);
#ifdef PORTSOLVE_BENCH_OPENCL
const bench_ref *bench_opencl_gemm_ref(void);
void bench_opencl_release(void);
#endif
#ifdef PORTSOLVE_BENCH_CUDA
const bench_ref *bench_cuda_ref(const char *name, int chol);
void bench_cuda_release(void);
/* Seconds of one cuBLAS ?gemv of order n on the context's stream (best of 3 x 20 calls); < 0 on
 * failure. */
double bench_cuda_gemv_seconds(ps_context *ctx, int single, int n, const void *A);
#endif

double bench_now(void);
/* Parses a comma-separated list of integers, each at least min_value, into out[0..max).
 * Returns the count, or -1 when the text is empty, malformed, or longer than max. */
int bench_int_list(const char *text, int *out, int max, int min_value);
/* Sorts times[0..count) ascending and returns the median. */
double bench_median(double *times, int count);
/* Opens a context on the backend named by --backend ("auto", "cpu", ...); on failure prints why,
 * prefixed by prog, and returns the exit code (2: not a backend name, 1: it did not open). */
int bench_open_context(const char *prog, const char *backend, ps_context **ctx);

#endif
