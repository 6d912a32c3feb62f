/* cuSOLVERMg getrf + getrs for portsolve-bench-dist (bench_cusolvermg.h), loaded at run time so
 * that the benchmark runs where the library is missing. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench_cusolvermg.h"

#include <cuda_runtime_api.h>
#include <cusolverMg.h>
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_DEVICES 16

static struct {
    cusolverStatus_t (*create)(cusolverMgHandle_t *);
    cusolverStatus_t (*destroy)(cusolverMgHandle_t);
    cusolverStatus_t (*select)(cusolverMgHandle_t, int, int *);
    cusolverStatus_t (*grid)(cudaLibMgGrid_t *, int32_t, int32_t, const int32_t *,
                             cusolverMgGridMapping_t);
    cusolverStatus_t (*destroy_grid)(cudaLibMgGrid_t);
    cusolverStatus_t (*desc)(cudaLibMgMatrixDesc_t *, int64_t, int64_t, int64_t, int64_t,
                             cudaDataType, const cudaLibMgGrid_t);
    cusolverStatus_t (*destroy_desc)(cudaLibMgMatrixDesc_t);
    cusolverStatus_t (*getrf_size)(cusolverMgHandle_t, int, int, void **, int, int,
                                   cudaLibMgMatrixDesc_t, int **, cudaDataType, int64_t *);
    cusolverStatus_t (*getrf)(cusolverMgHandle_t, int, int, void **, int, int,
                              cudaLibMgMatrixDesc_t, int **, cudaDataType, void **, int64_t, int *);
    cusolverStatus_t (*getrs_size)(cusolverMgHandle_t, cublasOperation_t, int, int, void **, int,
                                   int, cudaLibMgMatrixDesc_t, int **, void **, int, int,
                                   cudaLibMgMatrixDesc_t, cudaDataType, int64_t *);
    cusolverStatus_t (*getrs)(cusolverMgHandle_t, cublasOperation_t, int, int, void **, int, int,
                              cudaLibMgMatrixDesc_t, int **, void **, int, int,
                              cudaLibMgMatrixDesc_t, cudaDataType, void **, int64_t, int *);
} mg;

static int load(char *msg, size_t size) {
    void *h = dlopen("libcusolverMg.so", RTLD_NOW | RTLD_LOCAL);
    for (int v = 13; !h && v >= 11; v--) {
        char name[64];
        snprintf(name, sizeof name, "libcusolverMg.so.%d", v);
        h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    }
    if (!h) {
        snprintf(msg, size, "libcusolverMg.so does not load");
        return 0;
    }
    static const char *names[] = {"cusolverMgCreate",
                                  "cusolverMgDestroy",
                                  "cusolverMgDeviceSelect",
                                  "cusolverMgCreateDeviceGrid",
                                  "cusolverMgDestroyGrid",
                                  "cusolverMgCreateMatrixDesc",
                                  "cusolverMgDestroyMatrixDesc",
                                  "cusolverMgGetrf_bufferSize",
                                  "cusolverMgGetrf",
                                  "cusolverMgGetrs_bufferSize",
                                  "cusolverMgGetrs"};
    void **slots = (void **)&mg;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!(slots[i] = dlsym(h, names[i]))) {
            snprintf(msg, size, "libcusolverMg.so has no %s", names[i]);
            return 0;
        }
    return 1;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Every device's part of an n x cols matrix in column blocks of nb dealt round-robin: device d
 * holds blocks d, d + ndev, ... one after the other (leading dimension n). */
typedef struct {
    void *part[MAX_DEVICES];
    int cols[MAX_DEVICES];
} parts;

static int fill(int dbl, int n, int cols, int nb, int ndev, double (*val)(int, int, void *),
                void *arg, parts *p, int upload) {
    size_t es = dbl ? sizeof(double) : sizeof(float);
    void *col = malloc((size_t)n * es);
    if (!col) return 0;
    for (int d = 0; d < ndev; d++) p->cols[d] = 0;
    for (int j = 0; j < cols; j++) {
        int d = j / nb % ndev, local = j / nb / ndev * nb + j % nb;
        if (local + 1 > p->cols[d]) p->cols[d] = local + 1;
        if (!upload) continue;
        for (int i = 0; i < n; i++) {
            double v = val(i, j, arg);
            if (dbl)
                ((double *)col)[i] = v;
            else
                ((float *)col)[i] = (float)v;
        }
        cudaSetDevice(d);
        if (cudaMemcpy((char *)p->part[d] + (size_t)local * n * es, col, (size_t)n * es,
                       cudaMemcpyHostToDevice) != cudaSuccess) {
            free(col);
            return 0;
        }
    }
    free(col);
    return 1;
}

typedef struct {
    double (*a)(int, int, void *);
    double (*b)(int, void *);
    void *arg;
} source;
static source src;
static double b_as_matrix(int i, int j, void *arg) {
    (void)j;
    return src.b(i, arg);
}

double ps_bench_cusolvermg(int dbl, int n, int nb, int ndev, int repeats,
                           double (*a)(int i, int j, void *arg), double (*b)(int i, void *arg),
                           void *arg, int *residual_ok, char *msg, size_t size) {
    *residual_ok = 0;
    int count = 0, caller = 0;
    if (!load(msg, size)) return NAN;
    /* the caller's current device comes back at the end: its handles and streams are bound to it */
    cudaGetDevice(&caller);
    if (cudaGetDeviceCount(&count) != cudaSuccess || count < ndev || ndev > MAX_DEVICES) {
        snprintf(msg, size, "%d devices asked, %d there", ndev, count);
        return NAN;
    }
    src = (source){a, b, arg};
    size_t es = dbl ? sizeof(double) : sizeof(float);
    cudaDataType type = dbl ? CUDA_R_64F : CUDA_R_32F;
    int devices[MAX_DEVICES];
    for (int d = 0; d < ndev; d++) {
        devices[d] = d;
        cudaSetDevice(d);
        for (int e = 0; e < ndev; e++)
            if (e != d) cudaDeviceEnablePeerAccess(e, 0); /* already enabled is fine */
    }
    cudaGetLastError();
    cusolverMgHandle_t h = NULL;
    cudaLibMgGrid_t grid = NULL;
    cudaLibMgMatrixDesc_t da = NULL, db = NULL;
    parts A = {{0}, {0}}, B = {{0}, {0}}, P = {{0}, {0}};
    void *work[MAX_DEVICES] = {0};
    double best = INFINITY;
    int ok = mg.create(&h) == CUSOLVER_STATUS_SUCCESS && mg.select(h, ndev, devices) == 0 &&
             mg.grid(&grid, 1, ndev, devices, CUDALIBMG_GRID_MAPPING_COL_MAJOR) == 0 &&
             mg.desc(&da, n, n, n, nb, type, grid) == 0 &&
             mg.desc(&db, n, 1, n, nb, type, grid) == 0;
    fill(dbl, n, n, nb, ndev, a, arg, &A, 0);
    fill(dbl, n, 1, nb, ndev, b_as_matrix, arg, &B, 0);
    for (int d = 0; d < ndev && ok; d++) {
        cudaSetDevice(d);
        int ca = A.cols[d] > 0 ? A.cols[d] : 1, cb = B.cols[d] > 0 ? B.cols[d] : 1;
        ok = cudaMalloc(&A.part[d], (size_t)n * ca * es) == cudaSuccess &&
             cudaMalloc(&B.part[d], (size_t)n * cb * es) == cudaSuccess &&
             cudaMalloc(&P.part[d], (size_t)ca * sizeof(int)) == cudaSuccess;
    }
    int64_t lf = 0, ls = 0;
    if (ok)
        ok = mg.getrf_size(h, n, n, A.part, 1, 1, da, (int **)P.part, type, &lf) == 0 &&
             mg.getrs_size(h, CUBLAS_OP_N, n, 1, A.part, 1, 1, da, (int **)P.part, B.part, 1, 1, db,
                           type, &ls) == 0;
    int64_t lwork = lf > ls ? lf : ls;
    for (int d = 0; d < ndev && ok; d++) {
        cudaSetDevice(d);
        ok = cudaMalloc(&work[d], (size_t)(lwork > 0 ? lwork : 1) * es) == cudaSuccess;
    }
    if (!ok) snprintf(msg, size, "cuSOLVERMg setup failed (memory or library)");
    for (int r = 0; r < repeats + 1 && ok; r++) {
        ok = fill(dbl, n, n, nb, ndev, a, arg, &A, 1) &&
             fill(dbl, n, 1, nb, ndev, b_as_matrix, arg, &B, 1);
        for (int d = 0; d < ndev; d++) cudaSetDevice(d), cudaDeviceSynchronize();
        double t0 = now();
        int info = 0;
        ok = ok &&
             mg.getrf(h, n, n, A.part, 1, 1, da, (int **)P.part, type, work, lwork, &info) == 0 &&
             info == 0 &&
             mg.getrs(h, CUBLAS_OP_N, n, 1, A.part, 1, 1, da, (int **)P.part, B.part, 1, 1, db,
                      type, work, lwork, &info) == 0 &&
             info == 0;
        for (int d = 0; d < ndev; d++) cudaSetDevice(d), cudaDeviceSynchronize();
        double t = now() - t0;
        if (!ok) snprintf(msg, size, "cuSOLVERMg getrf/getrs failed (info %d)", info);
        if (r > 0 && t < best) best = t;
    }
    if (ok && n <= 16384) {
        /* LAPACK's residual ratio in 1-norms, on the host; x is on device 0 (one column block) */
        double *x = malloc((size_t)n * sizeof *x), *r = calloc((size_t)n, sizeof *r);
        void *xs = malloc((size_t)n * es);
        double anorm = 0, xnorm = 0, rnorm = 0;
        cudaSetDevice(0);
        if (x && r && xs &&
            cudaMemcpy(xs, B.part[0], (size_t)n * es, cudaMemcpyDeviceToHost) == 0) {
            for (int i = 0; i < n; i++) x[i] = dbl ? ((double *)xs)[i] : ((float *)xs)[i];
            for (int j = 0; j < n; j++) {
                double colsum = 0;
                for (int i = 0; i < n; i++) {
                    double v = a(i, j, arg);
                    r[i] += v * x[j], colsum += fabs(v);
                }
                if (colsum > anorm) anorm = colsum;
                xnorm += fabs(x[j]);
            }
            for (int i = 0; i < n; i++) rnorm += fabs(b(i, arg) - r[i]);
            double eps = dbl ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
            *residual_ok = rnorm / (anorm * xnorm * n * eps) < 30 ? 1 : 0;
        }
        free(x), free(r), free(xs);
    } else if (ok) {
        *residual_ok = -1; /* the host check would take longer than the benchmark */
    }
    for (int d = 0; d < ndev; d++) {
        cudaSetDevice(d);
        cudaFree(A.part[d]), cudaFree(B.part[d]), cudaFree(P.part[d]), cudaFree(work[d]);
    }
    if (da) mg.destroy_desc(da);
    if (db) mg.destroy_desc(db);
    if (grid) mg.destroy_grid(grid);
    if (h) mg.destroy(h);
    cudaSetDevice(caller);
    return ok ? best : NAN;
}
