/* cuSOLVERMg (one process driving several GPUs) as portsolve-bench-dist's multi-GPU reference. */
#ifndef PS_BENCH_CUSOLVERMG_H
#define PS_BENCH_CUSOLVERMG_H

#include <stddef.h>

/* getrf then getrs (one right-hand side) of the n x n matrix a(i, j, arg) with right-hand side
 * b(i, arg), in double or single precision, on CUDA devices 0 .. ndev - 1 in column blocks of nb
 * (cuSOLVERMg's 1D block-cyclic layout), the matrix already on the devices: the seconds of the
 * two calls, the best of repeats after a warm-up. *residual_ok says whether the solution passes
 * ||b - A x||_1 / (||A||_1 ||x||_1 n eps) < 30, checked on the host up to n = 16384 (-1 above:
 * not checked). NAN, with the reason in msg,
 * where it cannot run (no libcusolverMg.so, too few devices, a failure). */
double ps_bench_cusolvermg(int dbl, int n, int nb, int ndev, int repeats,
                           double (*a)(int i, int j, void *arg), double (*b)(int i, void *arg),
                           void *arg, int *residual_ok, char *msg, size_t size);

#endif
