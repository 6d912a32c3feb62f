/* The benchmark's problems and its vendor references (one per backend). */
#ifndef PS_BENCH_REFS_H
#define PS_BENCH_REFS_H

#include "portsolve.h"

/* A dense system with its pristine copy; work arrays are refreshed before each timed call. */
typedef struct bench_problem {
    int single, n, nrhs;
    void *A0, *B0; /* pristine inputs */
    void *A, *B;   /* work copies handed to the solver */
    int *ipiv;
} bench_problem;

int bench_problem_make(bench_problem *p, int single, int n, int nrhs, unsigned seed);
void bench_problem_reset(bench_problem *p); /* copies A0/B0 into A/B */
/* max_j ||b_j - A x_j||_1 / (||A||_1 ||x_j||_1 n eps) for the solution now in B. */
double bench_problem_residual(const bench_problem *p);
void bench_problem_free(bench_problem *p);

/* Solves p (its work copies, which the caller resets) with ps_?gesv on ctx; 0 on success. */
int bench_run_portsolve(ps_context *ctx, bench_problem *p);

typedef struct bench_ref bench_ref;
struct bench_ref {
    const char *name;
    int (*run)(const bench_ref *self, bench_problem *p); /* solves the work copies; 0: ok */
};
/* The reference for a backend name ("cpu": LAPACKE ?gesv on OpenBLAS); NULL when none. */
const bench_ref *bench_reference_for(const char *backend);

#endif
