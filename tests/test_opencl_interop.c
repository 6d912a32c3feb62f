/*
 * OpenCL interop (portsolve_cl.h): a context on the caller's cl_context and queue, matrices
 * over the caller's cl_mem at an offset, a solve through them, and the caller's objects left
 * alive and unreleased afterwards. Also the refusals: a queue of another context, an
 * out-of-order queue, NULL handles.
 */
#define CL_TARGET_OPENCL_VERSION 120
#include "checks.h"
#include "test_util.h"

#include <CL/cl.h>
#include <portsolve_cl.h>
#include <stdlib.h>
#include <string.h>

static cl_uint refcount(cl_command_queue q) {
    cl_uint n = 0;
    clGetCommandQueueInfo(q, CL_QUEUE_REFERENCE_COUNT, sizeof n, &n, NULL);
    return n;
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (err == CL_SUCCESS) err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "FAIL: no OpenCL device for the interop test (%d)\n", err);
        return 1;
    }
    cl_context clctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err == CL_SUCCESS, "clCreateContext %d", err);
    cl_command_queue queue = clCreateCommandQueue(clctx, device, 0, &err);
    CHECK(err == CL_SUCCESS, "clCreateCommandQueue %d", err);
    cl_uint refs_before = refcount(queue);

    ps_context *ctx = NULL;
    CHECK_STATUS(ps_context_create_cl(&ctx, clctx, queue), PS_SUCCESS);
    if (!ctx) return ps_test_finish("test_opencl_interop");
    CHECK(ps_context_cl_queue(ctx) == queue, "the context runs on the caller's queue");
    CHECK(strcmp(ps_context_backend_name(ctx), "opencl") == 0, "backend name");

    /* A, B in one caller buffer: A at element offset 5 (lda = n + 2), B after it. */
    enum { n = 70, lda = n + 2, nrhs = 2 };
    size_t a_off = 5, b_off = a_off + (size_t)lda * n + 3;
    size_t total = b_off + (size_t)n * nrhs;
    double *A0 = malloc(sizeof(double) * lda * n), *B0 = malloc(sizeof(double) * n * nrhs);
    double *X = malloc(sizeof(double) * n * nrhs);
    ps_test_latms_d(n, 1e5, 'N', A0, lda);
    for (int i = 0; i < n * nrhs; i++) B0[i] = ps_test_rand();
    cl_mem buf = clCreateBuffer(clctx, CL_MEM_READ_WRITE, total * sizeof(double), NULL, &err);
    CHECK(err == CL_SUCCESS, "clCreateBuffer %d", err);
    clEnqueueWriteBuffer(queue, buf, CL_TRUE, a_off * sizeof(double), sizeof(double) * lda * n, A0,
                         0, NULL, NULL);
    clEnqueueWriteBuffer(queue, buf, CL_TRUE, b_off * sizeof(double), sizeof(double) * n * nrhs, B0,
                         0, NULL, NULL);
    ps_matrix *A = NULL, *B = NULL;
    CHECK_STATUS(ps_matrix_wrap_cl(ctx, PS_DOUBLE, n, n, lda, buf, a_off, &A), PS_SUCCESS);
    CHECK_STATUS(ps_matrix_wrap_cl(ctx, PS_DOUBLE, n, nrhs, n, buf, b_off, &B), PS_SUCCESS);
    int ipiv[n];
    CHECK_STATUS(ps_mat_gesv(ctx, A, ipiv, B), PS_SUCCESS);
    clEnqueueReadBuffer(queue, buf, CL_TRUE, b_off * sizeof(double), sizeof(double) * n * nrhs, X,
                        0, NULL, NULL);
    double r = ps_check_solve_ratio(PS_DOUBLE, 'N', n, nrhs, A0, lda, X, n, B0, n);
    CHECK(r < PS_TEST_THRESHOLD, "solve through wrapped cl_mem: residual ratio %g", r);
    ps_matrix *refused = A; /* a refused wrap sets its out to NULL */
    CHECK_STATUS(ps_matrix_wrap_cl(ctx, PS_DOUBLE, n, n, n - 1, buf, 0, &refused),
                 PS_ERR_INVALID_ARGUMENT);
    CHECK(refused == NULL, "a refused wrap leaves its out NULL");
    ps_matrix_destroy(A);
    ps_matrix_destroy(B);
    ps_context_destroy(ctx);

    /* The caller's objects survive and still work. The library never releases them, so the
     * count cannot have dropped (CLBlast or the driver may hold references of their own). */
    clFinish(queue);
    CHECK(refcount(queue) >= refs_before, "queue reference count %u, was %u", refcount(queue),
          refs_before);
    double probe = 0;
    err = clEnqueueReadBuffer(queue, buf, CL_TRUE, 0, sizeof probe, &probe, 0, NULL, NULL);
    CHECK(err == CL_SUCCESS, "the caller's queue and buffer still work (%d)", err);

    /* Refusals: NULL handles, and a queue that belongs to another context. */
    CHECK_STATUS(ps_context_create_cl(&ctx, NULL, queue), PS_ERR_INVALID_ARGUMENT);
    cl_context other = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK_STATUS(ps_context_create_cl(&ctx, other, queue), PS_ERR_INVALID_ARGUMENT);
    CHECK(ctx == NULL && strstr(ps_last_create_error(), "does not belong"), "%s",
          ps_last_create_error());
    CHECK_STATUS(ps_context_create_native(&ctx, PS_BACKEND_CPU, clctx, queue),
                 PS_ERR_INVALID_ARGUMENT);
    /* POCL and NVIDIA's OpenCL both offer out-of-order queues: failing to make one fails here */
    cl_command_queue ooo =
        clCreateCommandQueue(clctx, device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    CHECK(err == CL_SUCCESS, "clCreateCommandQueue (out-of-order) %d", err);
    if (err == CL_SUCCESS) {
        CHECK_STATUS(ps_context_create_cl(&ctx, clctx, ooo), PS_ERR_INVALID_ARGUMENT);
        CHECK(ctx == NULL && strstr(ps_last_create_error(), "out-of-order"), "%s",
              ps_last_create_error());
        clReleaseCommandQueue(ooo);
    }
    clReleaseContext(other);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(queue);
    clReleaseContext(clctx);
    free(A0), free(B0), free(X);
    return ps_test_finish("test_opencl_interop");
}
