/* Shared by portsolve-bench-ir's files. */
#ifndef PS_BENCH_IR_H
#define PS_BENCH_IR_H

#include "bench_refs.h"

/* Uniform in [-1, 1) from a xorshift state. */
static inline double bench_ir_uniform(unsigned long long *state) {
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    return (double)(*state >> 11) / 9007199254740992.0 * 2 - 1;
}

#ifdef PORTSOLVE_BENCH_CUDA
/* A = Q1 diag(sigma) Q2^T into host A (n x n), sigma geometric from 1 to 1/cond (dlatms mode 3),
 * built on the GPU; the Q are kept for the next call of the same order. 0: ok. */
int bench_ir_cuda_randsvd(ps_context *ctx, int n, double cond, unsigned seed, double *A);
/* cusolverDnIRSXgesv (classical then GMRES refinement, lowest precision `lowest`) on A x = B
 * (one right-hand side), transfers untimed; X gets the solution, niters cuSOLVER's count
 * (negative when it fell back). 0: ok. */
int bench_ir_cuda_irs(ps_context *ctx, int n, const double *A, const double *B, double *X,
                      ps_lowprec lowest, double *seconds, int *niters);
void bench_ir_cuda_release(void);
#endif

#endif
