/*
 * CUDA interop (portsolve_cuda.h): a context on the caller's stream, matrices over the caller's
 * device memory, a solve through them, and the stream still usable after ps_context_destroy.
 * Also: device out-of-memory is PS_ERR_OUT_OF_MEMORY and leaves the context usable.
 */
#include "checks.h"
#include "test_util.h"

#include <cuda_runtime_api.h>
#include <portsolve_cuda.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    cudaStream_t stream;
    if (cudaStreamCreate(&stream) != cudaSuccess) {
        fprintf(stderr, "FAIL: no CUDA device for the interop test\n");
        return 1;
    }
    ps_context *ctx = NULL;
    CHECK_STATUS(ps_context_create_cuda(&ctx, stream), PS_SUCCESS);
    if (!ctx) return ps_test_finish("test_cuda_interop");
    CHECK(ps_context_cuda_stream(ctx) == stream, "the context runs on the caller's stream");

    enum { n = 90, lda = n + 3, nrhs = 3 };
    double *A0 = malloc(sizeof(double) * lda * n), *B0 = malloc(sizeof(double) * n * nrhs);
    double *X = malloc(sizeof(double) * n * nrhs);
    ps_test_latms_d(n, 1e6, 'N', A0, lda);
    for (int i = 0; i < n * nrhs; i++) B0[i] = ps_test_rand();
    double *dA, *dB;
    CHECK(cudaMalloc((void **)&dA, sizeof(double) * lda * n) == cudaSuccess, "cudaMalloc");
    CHECK(cudaMalloc((void **)&dB, sizeof(double) * n * nrhs) == cudaSuccess, "cudaMalloc");
    cudaMemcpy(dA, A0, sizeof(double) * lda * n, cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B0, sizeof(double) * n * nrhs, cudaMemcpyHostToDevice);
    ps_matrix *A = NULL, *B = NULL;
    CHECK_STATUS(ps_matrix_wrap_cuda(ctx, PS_DOUBLE, n, n, lda, dA, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_wrap_cuda(ctx, PS_DOUBLE, n, nrhs, n, dB, &B), PS_SUCCESS);
    int ipiv[n];
    CHECK_STATUS(ps_mat_gesv(ctx, A, ipiv, B), PS_SUCCESS);
    cudaStreamSynchronize(stream);
    cudaMemcpy(X, dB, sizeof(double) * n * nrhs, cudaMemcpyDeviceToHost);
    double r = ps_check_solve_ratio(PS_DOUBLE, 'N', n, nrhs, A0, lda, X, n, B0, n);
    CHECK(r < PS_TEST_THRESHOLD, "solve through wrapped device memory: residual ratio %g", r);
    ps_matrix_destroy(A);
    ps_matrix_destroy(B);

    /* A pointer one element in (columns no longer 16-byte aligned) solves as well; one not
     * aligned to its elements is refused before any kernel sees it, and the context goes on. */
    cudaMemcpy(dA + 1, A0, sizeof(double) * (lda * n - 1), cudaMemcpyHostToDevice);
    cudaMemcpy(dB, B0, sizeof(double) * n * nrhs, cudaMemcpyHostToDevice);
    CHECK_STATUS(ps_matrix_wrap_cuda(ctx, PS_DOUBLE, n, n, lda, dA + 1, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_wrap_cuda(ctx, PS_DOUBLE, n, nrhs, n, dB, &B), PS_SUCCESS);
    CHECK_STATUS(ps_mat_gesv(ctx, A, ipiv, B), PS_SUCCESS);
    cudaStreamSynchronize(stream);
    cudaMemcpy(X, dB, sizeof(double) * n * nrhs, cudaMemcpyDeviceToHost);
    r = ps_check_solve_ratio(PS_DOUBLE, 'N', n, nrhs, A0, lda, X, n, B0, n);
    CHECK(r < PS_TEST_THRESHOLD, "solve one element into the buffer: residual ratio %g", r);
    ps_matrix_destroy(A);
    ps_matrix_destroy(B);
    struct {
        ps_dtype dt;
        size_t bytes;
    } odd[] = {{PS_DOUBLE, 4}, {PS_DOUBLE, 1}, {PS_FLOAT, 2}};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        ps_matrix *w = A;
        CHECK_STATUS(ps_matrix_wrap_cuda(ctx, odd[i].dt, 4, 4, 4, (char *)dA + odd[i].bytes, &w),
                     PS_ERR_INVALID_ARGUMENT);
        CHECK(w == NULL && ps_context_last_info(ctx) == -6 &&
                  strstr(ps_context_last_error(ctx), "not aligned"),
              "pointer %zu bytes in: info %d, '%s'", odd[i].bytes, ps_context_last_info(ctx),
              ps_context_last_error(ctx));
    }

    /* Device out-of-memory: a matrix far larger than any GPU. */
    ps_matrix *huge = NULL;
    CHECK_STATUS(ps_matrix_create(ctx, PS_DOUBLE, 1 << 20, 1 << 20, 0, &huge),
                 PS_ERR_OUT_OF_MEMORY);
    CHECK(huge == NULL && strstr(ps_context_last_error(ctx), "cudaErrorMemoryAllocation"),
          "out-of-memory message: %s", ps_context_last_error(ctx));
    double b1[1] = {2}, a1[1] = {4};
    int p1[1];
    CHECK_STATUS(ps_dgesv(ctx, 1, 1, a1, 1, p1, b1, 1), PS_SUCCESS); /* still usable */
    CHECK(b1[0] == 0.5, "1 x 1 solve after out-of-memory: %g", b1[0]);
    ps_context_destroy(ctx);

    /* The caller's stream survives and still works. */
    CHECK(cudaMemcpyAsync(X, dB, sizeof(double), cudaMemcpyDeviceToHost, stream) == cudaSuccess &&
              cudaStreamSynchronize(stream) == cudaSuccess,
          "the caller's stream still works");
    cudaFree(dA), cudaFree(dB);
    cudaStreamDestroy(stream);
    free(A0), free(B0), free(X);
    return ps_test_finish("test_cuda_interop");
}
