/* The OpenCL reference: CLBlast's own GEMM rate at order n, on the portsolve context's queue
 * (same device, same run). Its time is one n x n x n GEMM, its work 2 n^3. */
#define CL_TARGET_OPENCL_VERSION 120
#include "bench_refs.h"

#include <CL/cl.h>
#include <clblast_c.h>
#include <portsolve_cl.h>
#include <stdio.h>
#include <stdlib.h>

static double gemm_flops(int n, int nrhs) {
    (void)nrhs;
    return 2.0 * n * (double)n * n;
}

/* Buffers for the current order, kept across repeats. */
static struct {
    int n, single;
    cl_mem a, b, c;
} cache;

static void release_cache(void) {
    if (cache.a) clReleaseMemObject(cache.a);
    if (cache.b) clReleaseMemObject(cache.b);
    if (cache.c) clReleaseMemObject(cache.c);
    cache.a = cache.b = cache.c = NULL;
}

static int run_gemm(const bench_ref *self, ps_context *ctx, bench_problem *p, int device_level,
                    double *seconds) {
    (void)self, (void)device_level;
    cl_command_queue q = ps_context_cl_queue(ctx);
    cl_context clctx;
    if (clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof clctx, &clctx, NULL) != CL_SUCCESS)
        return 1;
    size_t es = p->single ? sizeof(float) : sizeof(double), bytes = es * (size_t)p->n * p->n;
    if (cache.n != p->n || cache.single != p->single || !cache.a) {
        release_cache();
        cl_int e1, e2, e3;
        cache.a = clCreateBuffer(clctx, CL_MEM_READ_WRITE, bytes, NULL, &e1);
        cache.b = clCreateBuffer(clctx, CL_MEM_READ_WRITE, bytes, NULL, &e2);
        cache.c = clCreateBuffer(clctx, CL_MEM_READ_WRITE, bytes, NULL, &e3);
        if (e1 || e2 || e3) {
            fprintf(stderr, "portsolve-bench: GEMM buffers of %zu bytes: %d %d %d\n", bytes, e1, e2,
                    e3);
            release_cache();
            return 1;
        }
        cache.n = p->n, cache.single = p->single;
        /* random operands (the problem's matrix), never zeros */
        if (clEnqueueWriteBuffer(q, cache.a, CL_TRUE, 0, bytes, p->A0, 0, NULL, NULL) ||
            clEnqueueWriteBuffer(q, cache.b, CL_TRUE, 0, bytes, p->A0, 0, NULL, NULL) ||
            clEnqueueWriteBuffer(q, cache.c, CL_TRUE, 0, bytes, p->A0, 0, NULL, NULL))
            return 1;
    }
    size_t n = (size_t)p->n;
    double t0 = bench_now();
    CLBlastStatusCode st =
        p->single
            ? CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                           1.0f, cache.a, 0, n, cache.b, 0, n, 0.5f, cache.c, 0, n, &q, NULL)
            : CLBlastDgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                           1.0, cache.a, 0, n, cache.b, 0, n, 0.5, cache.c, 0, n, &q, NULL);
    cl_int fin = clFinish(q);
    *seconds = bench_now() - t0;
    if (st != CLBlastSuccess || fin != CL_SUCCESS) {
        fprintf(stderr, "portsolve-bench: CLBlast GEMM failed: %d / %d\n", (int)st, fin);
        return 1;
    }
    return 0;
}

static const bench_ref gemm_ref = {"CLBlast GEMM rate", 0, gemm_flops, run_gemm};

const bench_ref *bench_opencl_gemm_ref(void) {
    return &gemm_ref;
}

void bench_opencl_release(void) {
    release_cache();
}
