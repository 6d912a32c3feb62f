/* Factor once on the device, then solve for right-hand sides that arrive one at a time, without
 * moving A again: the device-matrix level of portsolve (ps_matrix, ps_mat_getrf/getrs). */
#include <portsolve.h>
#include <stdio.h>
#include <stdlib.h>

#define N 500

/* Prints the failure and returns 1 (a helper for this example's error paths). */
static int report(ps_context *ctx, const char *what, ps_status st) {
    fprintf(stderr, "%s: %s: %s\n", what, ps_status_string(st), ps_context_last_error(ctx));
    return 1;
}

int main(void) {
    ps_context *ctx;
    if (ps_context_create(&ctx, NULL) != PS_SUCCESS) { /* PORTSOLVE_BACKEND picks the backend */
        fprintf(stderr, "no backend: %s\n", ps_last_create_error());
        return 1;
    }
    /* A = a random matrix plus N on the diagonal (well conditioned), column-major */
    double *A = malloc(sizeof(double) * N * N), b[N], x[N];
    int ipiv[N], rc = 0;
    if (!A) {
        ps_context_destroy(ctx);
        return 1;
    }
    srand(1);
    for (int j = 0; j < N; j++)
        for (int i = 0; i < N; i++) A[i + j * N] = (i == j ? N : 0) + (double)rand() / RAND_MAX;

    ps_matrix *dA = NULL, *db = NULL;
    ps_status st = ps_matrix_create(ctx, PS_DOUBLE, N, N, 0, &dA);
    if (!st) st = ps_matrix_create(ctx, PS_DOUBLE, N, 1, 0, &db);
    if (!st) st = ps_matrix_upload(dA, A, N);
    if (!st) st = ps_mat_getrf(ctx, dA, ipiv); /* dA now holds L and U; ipiv is on the host */
    if (st) rc = report(ctx, "factor", st);

    /* Three right-hand sides, each b = A * (k, k, ..., k), so x should be all k. */
    for (int k = 1; k <= 3 && !rc; k++) {
        for (int i = 0; i < N; i++) {
            b[i] = 0;
            for (int j = 0; j < N; j++) b[i] += A[i + j * N] * k;
        }
        st = ps_matrix_upload(db, b, N); /* only the N entries of b travel */
        if (!st) st = ps_mat_getrs(ctx, 'N', dA, ipiv, db);
        if (!st) st = ps_matrix_download(db, x, N);
        if (st) {
            rc = report(ctx, "solve", st);
            break;
        }
        double err = 0; /* max |x_i - k| */
        for (int i = 0; i < N; i++) {
            double d = x[i] > k ? x[i] - k : k - x[i];
            err = d > err ? d : err;
        }
        printf("rhs %d on %s: x[0] = %.15g, max |x - %d| = %.2g\n", k, ps_context_backend_name(ctx),
               x[0], k, err);
        if (!(err < 1e-10)) rc = 1;
    }
    ps_matrix_destroy(db); /* destroy accepts NULL */
    ps_matrix_destroy(dA);
    ps_context_destroy(ctx);
    free(A);
    return rc;
}
