/* The CUDA references, on the portsolve context's stream (same device, same run):
 *   cusolver:    cusolverDn?getrf + ?getrs on the same system. At the host level its time
 *                includes the plain cudaMemcpy transfers a user would write (A and B up, B
 *                down); at the device level only the factor and solve.
 *                For --method chol: cusolverDn?potrf + ?potrs.
 *   cusolver-contract: the same, also downloading A's factors and the pivots, as ?gesv's
 *                contract asks (and portsolve's host drivers do).
 *   cusolver-pinned: the contract's transfers from and to arrays the user already keeps in
 *                page-locked memory (cudaMallocHost; the copies into them are not timed).
 *   cublas-gemm: cuBLAS GEMM of order n (rate only: 2 n^3 flops). */
#include "bench_refs.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cusolverDn.h>
#include <portsolve_cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int n, nrhs, single;
    void *a, *b, *c, *work;
    int *ipiv, *info;
    void *pinned_a, *pinned_b; /* cusolver-pinned's host arrays */
    int *pinned_ipiv;
    cusolverDnHandle_t solver;
    cublasHandle_t blas;
} cache;

void bench_cuda_release(void) {
    cudaFree(cache.a), cudaFree(cache.b), cudaFree(cache.c), cudaFree(cache.work);
    cudaFree(cache.ipiv), cudaFree(cache.info);
    cudaFreeHost(cache.pinned_a), cudaFreeHost(cache.pinned_b), cudaFreeHost(cache.pinned_ipiv);
    cache.pinned_a = cache.pinned_b = NULL;
    cache.pinned_ipiv = NULL;
    if (cache.solver) cusolverDnDestroy(cache.solver);
    if (cache.blas) cublasDestroy(cache.blas);
    cache.a = cache.b = cache.c = cache.work = NULL;
    cache.ipiv = cache.info = NULL;
    cache.solver = NULL, cache.blas = NULL;
    cache.n = 0;
}

/* Device buffers and handles for order n on the context's stream. */
static int prepare(ps_context *ctx, const bench_problem *p, int want_c) {
    cudaStream_t s = ps_context_cuda_stream(ctx);
    size_t es = p->single ? sizeof(float) : sizeof(double), nn = (size_t)p->n * p->n;
    if (cache.n != p->n || cache.nrhs != p->nrhs || cache.single != p->single ||
        (want_c && !cache.c)) {
        bench_cuda_release();
        if (cusolverDnCreate(&cache.solver) || cublasCreate(&cache.blas)) return 1;
        int lwork = 0, lwork_chol = 0;
        if (p->single) {
            cusolverDnSgetrf_bufferSize(cache.solver, p->n, p->n, NULL, p->n, &lwork);
            cusolverDnSpotrf_bufferSize(cache.solver, CUBLAS_FILL_MODE_LOWER, p->n, NULL, p->n,
                                        &lwork_chol);
        } else {
            cusolverDnDgetrf_bufferSize(cache.solver, p->n, p->n, NULL, p->n, &lwork);
            cusolverDnDpotrf_bufferSize(cache.solver, CUBLAS_FILL_MODE_LOWER, p->n, NULL, p->n,
                                        &lwork_chol);
        }
        if (lwork_chol > lwork) lwork = lwork_chol;
        if (cudaMalloc(&cache.a, nn * es) || cudaMalloc(&cache.b, (size_t)p->n * p->nrhs * es) ||
            (want_c && cudaMalloc(&cache.c, nn * es)) ||
            cudaMalloc(&cache.work, (size_t)(lwork > 0 ? lwork : 1) * es) ||
            cudaMalloc((void **)&cache.ipiv, sizeof(int) * (size_t)p->n) ||
            cudaMalloc((void **)&cache.info, sizeof(int))) {
            fprintf(stderr, "portsolve-bench: cudaMalloc for the reference failed\n");
            bench_cuda_release();
            return 1;
        }
        cache.n = p->n, cache.nrhs = p->nrhs, cache.single = p->single;
    }
    return cusolverDnSetStream(cache.solver, s) != CUSOLVER_STATUS_SUCCESS ||
           cublasSetStream(cache.blas, s) != CUBLAS_STATUS_SUCCESS;
}

/* How the host-level reference moves its data. */
enum { PLAIN, CONTRACT, PINNED };

static int run_cusolver_mode(ps_context *ctx, bench_problem *p, int device_level, int mode,
                             double *seconds) {
    if (prepare(ctx, p, 0)) return 1;
    cudaStream_t s = ps_context_cuda_stream(ctx);
    size_t es = p->single ? sizeof(float) : sizeof(double);
    size_t abytes = (size_t)p->n * p->n * es, bbytes = (size_t)p->n * p->nrhs * es;
    size_t pbytes = sizeof(int) * (size_t)p->n;
    int n = p->n, nrhs = p->nrhs, rc = 0;
    void *ha = p->A, *hb = p->B;
    int *hipiv = p->ipiv;
    if (mode == PINNED && !device_level) { /* the user's arrays live in pinned memory */
        if (!cache.pinned_a &&
            (cudaMallocHost(&cache.pinned_a, abytes) || cudaMallocHost(&cache.pinned_b, bbytes) ||
             cudaMallocHost((void **)&cache.pinned_ipiv, pbytes))) {
            fprintf(stderr, "portsolve-bench: cudaMallocHost for the reference failed\n");
            return 1;
        }
        memcpy(cache.pinned_a, p->A, abytes);
        memcpy(cache.pinned_b, p->B, bbytes);
        ha = cache.pinned_a, hb = cache.pinned_b, hipiv = cache.pinned_ipiv;
    }
    double t0 = bench_now();
    if (device_level) { /* transfers untimed */
        rc |= cudaMemcpy(cache.a, p->A, abytes, cudaMemcpyHostToDevice) != cudaSuccess;
        rc |= cudaMemcpy(cache.b, p->B, bbytes, cudaMemcpyHostToDevice) != cudaSuccess;
        rc |= cudaStreamSynchronize(s) != cudaSuccess;
        t0 = bench_now();
    } else {
        rc |= cudaMemcpyAsync(cache.a, ha, abytes, cudaMemcpyHostToDevice, s) != cudaSuccess;
        rc |= cudaMemcpyAsync(cache.b, hb, bbytes, cudaMemcpyHostToDevice, s) != cudaSuccess;
    }
    cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
    int lwork = 0;
    if (p->chol && p->single)
        cusolverDnSpotrf_bufferSize(cache.solver, lo, n, cache.a, n, &lwork);
    else if (p->chol)
        cusolverDnDpotrf_bufferSize(cache.solver, lo, n, cache.a, n, &lwork);
    if (p->chol && p->single) {
        rc |= cusolverDnSpotrf(cache.solver, lo, n, cache.a, n, cache.work, lwork, cache.info) != 0;
        rc |= cusolverDnSpotrs(cache.solver, lo, n, nrhs, cache.a, n, cache.b, n, cache.info) != 0;
    } else if (p->chol) {
        rc |= cusolverDnDpotrf(cache.solver, lo, n, cache.a, n, cache.work, lwork, cache.info) != 0;
        rc |= cusolverDnDpotrs(cache.solver, lo, n, nrhs, cache.a, n, cache.b, n, cache.info) != 0;
    } else if (p->single) {
        rc |= cusolverDnSgetrf(cache.solver, n, n, cache.a, n, cache.work, cache.ipiv,
                               cache.info) != 0;
        rc |= cusolverDnSgetrs(cache.solver, CUBLAS_OP_N, n, nrhs, cache.a, n, cache.ipiv, cache.b,
                               n, cache.info) != 0;
    } else {
        rc |= cusolverDnDgetrf(cache.solver, n, n, cache.a, n, cache.work, cache.ipiv,
                               cache.info) != 0;
        rc |= cusolverDnDgetrs(cache.solver, CUBLAS_OP_N, n, nrhs, cache.a, n, cache.ipiv, cache.b,
                               n, cache.info) != 0;
    }
    if (!device_level) {
        rc |= cudaMemcpyAsync(hb, cache.b, bbytes, cudaMemcpyDeviceToHost, s) != cudaSuccess;
        if (mode != PLAIN) {
            rc |= cudaMemcpyAsync(ha, cache.a, abytes, cudaMemcpyDeviceToHost, s) != cudaSuccess;
            if (!p->chol)
                rc |= cudaMemcpyAsync(hipiv, cache.ipiv, pbytes, cudaMemcpyDeviceToHost, s) !=
                      cudaSuccess;
        }
    }
    rc |= cudaStreamSynchronize(s) != cudaSuccess;
    *seconds = bench_now() - t0;
    if (device_level)
        rc |= cudaMemcpy(p->B, cache.b, bbytes, cudaMemcpyDeviceToHost) != cudaSuccess;
    else if (hb != p->B)
        memcpy(p->B, hb, bbytes);
    int info = 0;
    cudaMemcpy(&info, cache.info, sizeof info, cudaMemcpyDeviceToHost);
    return rc || info != 0;
}

static int run_cusolver(const bench_ref *self, ps_context *ctx, bench_problem *p, int device_level,
                        double *seconds) {
    (void)self;
    return run_cusolver_mode(ctx, p, device_level, PLAIN, seconds);
}
static int run_cusolver_contract(const bench_ref *self, ps_context *ctx, bench_problem *p,
                                 int device_level, double *seconds) {
    (void)self;
    return run_cusolver_mode(ctx, p, device_level, CONTRACT, seconds);
}
static int run_cusolver_pinned(const bench_ref *self, ps_context *ctx, bench_problem *p,
                               int device_level, double *seconds) {
    (void)self;
    return run_cusolver_mode(ctx, p, device_level, PINNED, seconds);
}

static double gemm_flops(int n, int nrhs) {
    (void)nrhs;
    return 2.0 * n * (double)n * n;
}

static int run_gemm(const bench_ref *self, ps_context *ctx, bench_problem *p, int device_level,
                    double *seconds) {
    (void)self, (void)device_level;
    if (prepare(ctx, p, 1)) return 1;
    size_t es = p->single ? sizeof(float) : sizeof(double), bytes = (size_t)p->n * p->n * es;
    /* random operands (the problem's matrix), never zeros */
    if (cudaMemcpy(cache.a, p->A0, bytes, cudaMemcpyHostToDevice) ||
        cudaMemcpy(cache.c, p->A0, bytes, cudaMemcpyHostToDevice))
        return 1;
    int n = p->n;
    double one = 1, half = 0.5;
    float onef = 1, halff = 0.5f;
    double t0 = bench_now();
    cublasStatus_t st = p->single ? cublasSgemm(cache.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n,
                                                &onef, cache.a, n, cache.a, n, &halff, cache.c, n)
                                  : cublasDgemm(cache.blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                                cache.a, n, cache.a, n, &half, cache.c, n);
    cudaError_t err = cudaStreamSynchronize(ps_context_cuda_stream(ctx));
    *seconds = bench_now() - t0;
    return st != CUBLAS_STATUS_SUCCESS || err != cudaSuccess;
}

static const bench_ref cusolver_ref = {"cuSOLVER getrf+getrs", 1, bench_lu_flops, run_cusolver};
static const bench_ref cusolver_chol_ref = {"cuSOLVER potrf+potrs", 1, bench_chol_flops,
                                            run_cusolver};
static const bench_ref gemm_ref = {"cuBLAS GEMM rate", 0, gemm_flops, run_gemm};
static const bench_ref contract_ref = {"cuSOLVER getrf+getrs with A and ipiv downloaded", 1,
                                       bench_lu_flops, run_cusolver_contract};
static const bench_ref contract_chol_ref = {"cuSOLVER potrf+potrs with A downloaded", 1,
                                            bench_chol_flops, run_cusolver_contract};
static const bench_ref pinned_ref = {"cuSOLVER getrf+getrs from pinned arrays", 1, bench_lu_flops,
                                     run_cusolver_pinned};
static const bench_ref pinned_chol_ref = {"cuSOLVER potrf+potrs from pinned arrays", 1,
                                          bench_chol_flops, run_cusolver_pinned};

const bench_ref *bench_cuda_ref(const char *name, int chol) {
    if (!name || strcmp(name, "cusolver") == 0) return chol ? &cusolver_chol_ref : &cusolver_ref;
    if (strcmp(name, "cusolver-contract") == 0) return chol ? &contract_chol_ref : &contract_ref;
    if (strcmp(name, "cusolver-pinned") == 0) return chol ? &pinned_chol_ref : &pinned_ref;
    if (strcmp(name, "cublas-gemm") == 0) return &gemm_ref;
    return NULL;
}

double bench_cuda_gemv_seconds(ps_context *ctx, int single, int n, const void *A) {
    cudaStream_t s = ps_context_cuda_stream(ctx);
    size_t es = single ? sizeof(float) : sizeof(double), nn = (size_t)n * n;
    void *a = NULL, *x = NULL, *y = NULL;
    cublasHandle_t h = NULL;
    double best = -1;
    if (cudaMalloc(&a, nn * es) || cudaMalloc(&x, (size_t)n * es) ||
        cudaMalloc(&y, (size_t)n * es) || cublasCreate(&h) || cublasSetStream(h, s) ||
        cudaMemcpy(a, A, nn * es, cudaMemcpyHostToDevice) ||
        cudaMemcpy(x, A, (size_t)n * es, cudaMemcpyHostToDevice))
        goto done;
    double one = 1, zero = 0;
    float onef = 1, zerof = 0;
    for (int rep = 0; rep < 3; rep++) { /* best of 3 batches of 20 calls */
        cudaStreamSynchronize(s);
        double t0 = bench_now();
        for (int i = 0; i < 20; i++) {
            cublasStatus_t st =
                single ? cublasSgemv(h, CUBLAS_OP_N, n, n, &onef, a, n, x, 1, &zerof, y, 1)
                       : cublasDgemv(h, CUBLAS_OP_N, n, n, &one, a, n, x, 1, &zero, y, 1);
            if (st != CUBLAS_STATUS_SUCCESS) goto done;
        }
        if (cudaStreamSynchronize(s) != cudaSuccess) goto done;
        double t = (bench_now() - t0) / 20;
        if (best < 0 || t < best) best = t;
    }
done:
    if (h) cublasDestroy(h);
    cudaFree(a), cudaFree(x), cudaFree(y);
    return best;
}
