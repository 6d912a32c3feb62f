/* A plain LAPACK program, the LAPACK drop-in's benchmark: `calls` dgesv_ of order n (a random
 * diagonally dominant system, one right-hand side), timed, and the last solution checked.
 * bench/lapack_preload.sh runs it with and without libportsolve_lapack preloaded and prints the
 * ratio. Usage: portsolve-bench-lapack N CALLS */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
                   const int *ldb, int *info);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s N CALLS\n", argv[0]);
        return 2;
    }
    int n = atoi(argv[1]), calls = atoi(argv[2]), one = 1, info = 0;
    if (n < 1 || calls < 1) {
        fprintf(stderr, "N and CALLS must be positive\n");
        return 2;
    }
    size_t nn = (size_t)n * (size_t)n;
    double *a0 = malloc(nn * sizeof(double)), *a = malloc(nn * sizeof(double));
    double *b = malloc((size_t)n * sizeof(double));
    int *ipiv = malloc((size_t)n * sizeof(int));
    if (!a0 || !a || !b || !ipiv) return 1;
    srand(1);
    for (size_t k = 0; k < nn; k++) a0[k] = (double)rand() / RAND_MAX - 0.5;
    for (int i = 0; i < n; i++) a0[i + (size_t)i * n] += n; /* x = 1 solves A x = row sums */
    double seconds = 0, first = 0, best = 0;
    for (int c = 0; c < calls; c++) {
        memcpy(a, a0, nn * sizeof(double));
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < n; j++) s += a0[i + (size_t)j * n];
            b[i] = s;
        }
        double t = now();
        dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
        t = now() - t;
        seconds += t;
        if (c == 0) first = t;
        if (c == 1 || t < best) best = t;
    }
    double err = 0;
    for (int i = 0; i < n; i++) err = fmax(err, fabs(b[i] - 1));
    /* the first call may include one-time set-up (a preloaded library's context) */
    printf("dgesv_ n=%d calls=%d: %.6g s in dgesv_ (%.3g s per call; first %.3g s, best after it "
           "%.3g s), info %d, max|x-1| %.2g\n",
           n, calls, seconds, seconds / calls, first, calls > 1 ? best : first, info, err);
    free(a0), free(a), free(b), free(ipiv);
    return info != 0 || !(err < 1e-6);
}
