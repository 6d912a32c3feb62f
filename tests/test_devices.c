/*
 * Contexts on two devices of one backend, used in turn from one thread: each call makes its
 * context's device the thread's current one (the backend's activate), so a context keeps working
 * after another was created or used on the other device. Host drivers and device matrices on
 * both, interleaved, judged by LAPACK's residual ratio. Needs two devices: with fewer it exits 77,
 * which CTest reports as skipped.
 */
#include "checks.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N      301
#define ROUNDS 3

static int device_count(ps_backend_kind kind) {
    char list[4096];
    if (ps_backend_devices(kind, list, sizeof list) != PS_SUCCESS) return 0;
    int lines = 0;
    for (const char *p = list; *p; p++) lines += *p == '\n';
    return lines;
}

static ps_context *open_on(ps_backend_kind kind, const char *device) {
    ps_context_options o = ps_context_options_default();
    o.backend = kind;
    o.device = device;
    ps_context *ctx = NULL;
    ps_status st = ps_context_create(&ctx, &o);
    CHECK(st == PS_SUCCESS, "a context on device %s: %s (%s)", device, ps_status_string(st),
          ps_last_create_error());
    return st == PS_SUCCESS ? ctx : NULL;
}

/* ps_dgesv on ctx with host arrays. */
static void host_solve(ps_context *ctx, const char *which, const double *A0, const double *B0) {
    double *A = malloc(sizeof(double) * N * N), *B = malloc(sizeof(double) * N);
    int *ipiv = malloc(sizeof(int) * N);
    CHECK(A && B && ipiv, "out of memory");
    if (A && B && ipiv) {
        memcpy(A, A0, sizeof(double) * N * N), memcpy(B, B0, sizeof(double) * N);
        ps_status st = ps_dgesv(ctx, N, 1, A, N, ipiv, B, N);
        CHECK(st == PS_SUCCESS, "dgesv on %s: %s", which, ps_context_last_error(ctx));
        if (st == PS_SUCCESS) {
            double r = ps_check_solve_ratio(PS_DOUBLE, 'N', N, 1, A0, N, B, N, B0, N);
            CHECK(r < PS_TEST_THRESHOLD, "dgesv on %s: residual ratio %g", which, r);
        }
    }
    free(A), free(B), free(ipiv);
}

/* ps_mat_gesv on matrices kept on ctx's device. */
static void device_solve(ps_context *ctx, const char *which, const double *A0, const double *B0) {
    ps_matrix *A = NULL, *B = NULL;
    int *ipiv = malloc(sizeof(int) * N);
    double *x = malloc(sizeof(double) * N);
    ps_status st = ipiv && x ? PS_SUCCESS : PS_ERR_OUT_OF_HOST_MEMORY;
    if (st == PS_SUCCESS) st = ps_matrix_create(ctx, PS_DOUBLE, N, N, N, &A);
    if (st == PS_SUCCESS) st = ps_matrix_create(ctx, PS_DOUBLE, N, 1, N, &B);
    if (st == PS_SUCCESS) st = ps_matrix_upload(A, A0, N);
    if (st == PS_SUCCESS) st = ps_matrix_upload(B, B0, N);
    if (st == PS_SUCCESS) st = ps_mat_gesv(ctx, A, ipiv, B);
    if (st == PS_SUCCESS) st = ps_matrix_download(B, x, N);
    CHECK(st == PS_SUCCESS, "device-level gesv on %s: %s", which, ps_context_last_error(ctx));
    if (st == PS_SUCCESS) {
        double r = ps_check_solve_ratio(PS_DOUBLE, 'N', N, 1, A0, N, x, N, B0, N);
        CHECK(r < PS_TEST_THRESHOLD, "device-level gesv on %s: residual ratio %g", which, r);
    }
    ps_matrix_destroy(A), ps_matrix_destroy(B);
    free(ipiv), free(x);
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    ps_backend_kind kind = ps_test_backend_kind();
    int devices = device_count(kind);
    if (devices < 2) {
        printf("test_devices on %s: %d device(s), two needed: skipped\n", ps_test_backend_name(),
               devices);
        return 77;
    }
    double *A0 = ps_test_random_array(PS_DOUBLE, N, N), *B0 = ps_test_random_array(PS_DOUBLE, N, 1);
    CHECK(A0 && B0, "out of memory");
    CHECK(A0 && ps_test_latms_d(N, 1e4, 'N', A0, N) == 0, "latms");
    ps_context *first = open_on(kind, "0");
    /* a matrix made on the first device before the second context exists, used after */
    ps_matrix *kept = NULL;
    if (first && A0) CHECK_STATUS(ps_matrix_create(first, PS_DOUBLE, N, N, N, &kept), PS_SUCCESS);
    ps_context *second = open_on(kind, "1");
    for (int r = 0; r < ROUNDS && first && second && A0 && B0; r++) {
        host_solve(first, "device 0", A0, B0);
        device_solve(second, "device 1", A0, B0);
        device_solve(first, "device 0", A0, B0);
        host_solve(second, "device 1", A0, B0);
    }
    if (kept) {
        CHECK_STATUS(ps_matrix_upload(kept, A0, N), PS_SUCCESS);
        ps_matrix_destroy(kept);
    }
    /* the first context outlives the second */
    ps_context_destroy(second);
    if (first && A0 && B0) host_solve(first, "device 0 after the other's end", A0, B0);
    ps_context_destroy(first);
    free(A0), free(B0);
    return ps_test_finish("test_devices");
}
