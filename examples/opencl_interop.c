/* portsolve inside an OpenCL application: the application owns the context, the queue and the
 * buffers; portsolve runs on that queue, over those buffers, and releases none of them. Here A
 * and b share one cl_mem (b after A), as they might in an application's own memory pool. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <portsolve_cl.h>
#include <stdio.h>
#include <stdlib.h>

#define N 200

/* Exits with the failing call's name and code: this example has nothing to clean up that the
 * process's end does not. */
static void check_cl(cl_int err, const char *what) {
    if (err != CL_SUCCESS) {
        fprintf(stderr, "%s failed: %d\n", what, err);
        exit(1);
    }
}

int main(void) {
    /* the application's OpenCL objects: the first device of the first platform */
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    check_cl(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
    check_cl(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    cl_context clctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    check_cl(err, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(clctx, device, 0, &err); /* in-order */
    check_cl(err, "clCreateCommandQueue");

    /* A (N x N, diagonally dominant) and b = A * ones in one buffer: A first, b after it */
    double *A = malloc(sizeof(double) * N * N), b[N], x[N];
    if (!A) return 1;
    srand(3);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) A[i + j * N] = (i == j ? N : 0) + (double)rand() / RAND_MAX;
    for (int i = 0; i < N; i++) {
        b[i] = 0;
        for (int j = 0; j < N; j++) b[i] += A[i + j * N];
    }
    size_t b_offset = (size_t)N * N; /* in elements */
    cl_mem buf =
        clCreateBuffer(clctx, CL_MEM_READ_WRITE, sizeof(double) * (b_offset + N), NULL, &err);
    check_cl(err, "clCreateBuffer");
    check_cl(clEnqueueWriteBuffer(queue, buf, CL_TRUE, 0, sizeof(double) * N * N, A, 0, NULL, NULL),
             "clEnqueueWriteBuffer A");
    check_cl(clEnqueueWriteBuffer(queue, buf, CL_TRUE, sizeof(double) * b_offset,
                                  sizeof(double) * N, b, 0, NULL, NULL),
             "clEnqueueWriteBuffer b");

    /* portsolve on the application's queue, over the application's buffer */
    ps_context *ctx = NULL;
    ps_matrix *dA = NULL, *db = NULL;
    int ipiv[N];
    ps_status st = ps_context_create_cl(&ctx, clctx, queue);
    if (st) {
        fprintf(stderr, "ps_context_create_cl: %s: %s\n", ps_status_string(st),
                ps_last_create_error());
        return 1;
    }
    st = ps_matrix_wrap_cl(ctx, PS_DOUBLE, N, N, N, buf, 0, &dA);
    if (!st) st = ps_matrix_wrap_cl(ctx, PS_DOUBLE, N, 1, N, buf, b_offset, &db);
    if (!st) st = ps_mat_gesv(ctx, dA, ipiv, db); /* x overwrites b inside buf */
    if (st) fprintf(stderr, "solve: %s: %s\n", ps_status_string(st), ps_context_last_error(ctx));
    ps_matrix_destroy(db); /* the wrappers go; buf stays the application's */
    ps_matrix_destroy(dA);
    ps_context_destroy(ctx);
    if (st) return 1;

    /* the queue is in order, so this read comes after portsolve's work */
    check_cl(clEnqueueReadBuffer(queue, buf, CL_TRUE, sizeof(double) * b_offset, sizeof(double) * N,
                                 x, 0, NULL, NULL),
             "clEnqueueReadBuffer");
    double err_max = 0;
    for (int i = 0; i < N; i++) {
        double d = x[i] > 1 ? x[i] - 1 : 1 - x[i];
        err_max = d > err_max ? d : err_max;
    }
    printf("opencl interop: x[0] = %.15g, max |x - 1| = %.2g\n", x[0], err_max);
    check_cl(clReleaseMemObject(buf), "clReleaseMemObject");
    check_cl(clReleaseCommandQueue(queue), "clReleaseCommandQueue");
    check_cl(clReleaseContext(clctx), "clReleaseContext");
    free(A);
    return err_max < 1e-10 ? 0 : 1;
}
