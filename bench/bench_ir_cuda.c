/* The CUDA side of portsolve-bench-ir: test matrices of prescribed condition generated on the GPU
 * (A = Q1 diag(sigma) Q2^T with Q the orthogonal factor of a uniform random matrix, as dlatms
 * makes them on the host, where order 32768 would take hours), and cuSOLVER's
 * cusolverDnIRSXgesv as the mixed-precision reference, on the portsolve context's stream. */
#include "bench_ir.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <math.h>
#include <portsolve_cuda.h>
#include <stdio.h>
#include <stdlib.h>

/* Q1 and Q2 of the last order, kept across condition numbers. */
static struct {
    int n;
    double *q1, *q2;
} orth;

static void release_orth(void) {
    cudaFree(orth.q1), cudaFree(orth.q2);
    orth.q1 = orth.q2 = NULL;
    orth.n = 0;
}

/* An orthogonal n x n matrix: the Q of a random matrix's QR. */
static int random_orthogonal(cusolverDnHandle_t h, int n, unsigned long long seed, double **q) {
    size_t nn = (size_t)n * n;
    double *host = malloc(nn * sizeof(double)), *tau = NULL, *work = NULL;
    int *info = NULL, lwork = 0, lwork2 = 0, rc = host == NULL;
    for (size_t i = 0; !rc && i < nn; i++) host[i] = bench_ir_uniform(&seed);
    rc = rc || cudaMalloc((void **)q, nn * sizeof(double)) ||
         cudaMalloc((void **)&tau, (size_t)n * sizeof(double)) ||
         cudaMalloc((void **)&info, sizeof(int)) ||
         cudaMemcpy(*q, host, nn * sizeof(double), cudaMemcpyHostToDevice);
    rc = rc || cusolverDnDgeqrf_bufferSize(h, n, n, *q, n, &lwork) ||
         cusolverDnDorgqr_bufferSize(h, n, n, n, *q, n, tau, &lwork2);
    if (lwork2 > lwork) lwork = lwork2;
    rc = rc || cudaMalloc((void **)&work, (size_t)(lwork > 0 ? lwork : 1) * sizeof(double));
    rc = rc || cusolverDnDgeqrf(h, n, n, *q, n, tau, work, lwork, info) ||
         cusolverDnDorgqr(h, n, n, n, *q, n, tau, work, lwork, info) || cudaDeviceSynchronize();
    cudaFree(tau), cudaFree(work), cudaFree(info);
    free(host);
    return rc;
}

int bench_ir_cuda_randsvd(ps_context *ctx, int n, double cond, unsigned seed, double *A) {
    cudaStream_t s = ps_context_cuda_stream(ctx);
    cusolverDnHandle_t sh = NULL;
    cublasHandle_t bh = NULL;
    double *w = NULL, *sigma = NULL, *host_sigma = malloc(sizeof(double) * (size_t)n);
    size_t nn = (size_t)n * n;
    int rc = host_sigma == NULL || cusolverDnCreate(&sh) || cublasCreate(&bh) ||
             cusolverDnSetStream(sh, s) || cublasSetStream(bh, s);
    if (!rc && orth.n != n) {
        release_orth();
        rc = random_orthogonal(sh, n, 1000u + seed, &orth.q1) ||
             random_orthogonal(sh, n, 2000u + seed, &orth.q2);
        orth.n = rc ? 0 : n;
    }
    for (int i = 0; !rc && i < n; i++) host_sigma[i] = n > 1 ? pow(cond, -(double)i / (n - 1)) : 1;
    rc = rc || cudaMalloc((void **)&w, nn * sizeof(double)) ||
         cudaMalloc((void **)&sigma, (size_t)n * sizeof(double)) ||
         cudaMemcpy(sigma, host_sigma, (size_t)n * sizeof(double), cudaMemcpyHostToDevice);
    double one = 1, zero = 0;
    /* w = Q1 diag(sigma), then A = w Q2^T */
    rc = rc || cublasDdgmm(bh, CUBLAS_SIDE_RIGHT, n, n, orth.q1, n, sigma, 1, w, n);
    double *a = NULL;
    rc = rc || cudaMalloc((void **)&a, nn * sizeof(double));
    rc = rc ||
         cublasDgemm(bh, CUBLAS_OP_N, CUBLAS_OP_T, n, n, n, &one, w, n, orth.q2, n, &zero, a, n);
    rc = rc || cudaStreamSynchronize(s) ||
         cudaMemcpy(A, a, nn * sizeof(double), cudaMemcpyDeviceToHost);
    cudaFree(a), cudaFree(w), cudaFree(sigma);
    free(host_sigma);
    if (sh) cusolverDnDestroy(sh);
    if (bh) cublasDestroy(bh);
    if (rc) fprintf(stderr, "portsolve-bench-ir: generating the matrix on the GPU failed\n");
    return rc;
}

int bench_ir_cuda_irs(ps_context *ctx, int n, const double *A, const double *B, double *X,
                      ps_lowprec lowest, double *seconds, int *niters) {
    static const cusolverPrecType_t prec[] = {CUSOLVER_R_32F, CUSOLVER_R_TF32, CUSOLVER_R_16F,
                                              CUSOLVER_R_16BF};
    /* TF32X3 and FP16X3 have no cuSOLVER counterpart: no reference */
    if ((size_t)lowest >= sizeof prec / sizeof prec[0]) return -1;
    cudaStream_t s = ps_context_cuda_stream(ctx);
    cusolverDnHandle_t h = NULL;
    cusolverDnIRSParams_t params = NULL;
    cusolverDnIRSInfos_t infos = NULL;
    size_t nn = (size_t)n * n, lwork = 0;
    double *a = NULL, *b = NULL, *x = NULL;
    void *work = NULL;
    int *info = NULL, rc;
    rc = cusolverDnCreate(&h) || cusolverDnSetStream(h, s) || cusolverDnIRSParamsCreate(&params) ||
         cusolverDnIRSInfosCreate(&infos) ||
         cusolverDnIRSParamsSetSolverPrecisions(params, CUSOLVER_R_64F, prec[lowest]) ||
         cusolverDnIRSParamsSetRefinementSolver(params, CUSOLVER_IRS_REFINE_CLASSICAL_GMRES) ||
         cusolverDnIRSXgesv_bufferSize(h, params, n, 1, &lwork);
    rc = rc || cudaMalloc((void **)&a, nn * sizeof(double)) ||
         cudaMalloc((void **)&b, (size_t)n * sizeof(double)) ||
         cudaMalloc((void **)&x, (size_t)n * sizeof(double)) || cudaMalloc(&work, lwork) ||
         cudaMalloc((void **)&info, sizeof(int)) ||
         cudaMemcpy(a, A, nn * sizeof(double), cudaMemcpyHostToDevice) ||
         cudaMemcpy(b, B, (size_t)n * sizeof(double), cudaMemcpyHostToDevice) ||
         cudaStreamSynchronize(s);
    double t0 = bench_now();
    rc = rc ||
         cusolverDnIRSXgesv(h, params, infos, n, 1, a, n, b, n, x, n, work, lwork, niters, info) ||
         cudaStreamSynchronize(s);
    *seconds = bench_now() - t0;
    int hinfo = 0;
    rc = rc || cudaMemcpy(&hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost) ||
         cudaMemcpy(X, x, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost) || hinfo != 0;
    cudaFree(a), cudaFree(b), cudaFree(x), cudaFree(work), cudaFree(info);
    if (infos) cusolverDnIRSInfosDestroy(infos);
    if (params) cusolverDnIRSParamsDestroy(params);
    if (h) cusolverDnDestroy(h);
    if (rc) fprintf(stderr, "portsolve-bench-ir: cusolverDnIRSXgesv failed\n");
    return rc;
}

void bench_ir_cuda_release(void) {
    release_orth();
}
