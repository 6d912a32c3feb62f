/* LAPACK calls from several threads at once through libportsolve_lapack (run preloaded, every
 * call routed): each thread solves its own systems with dgesv_ and dposv_ and checks them; with
 * the verbose log, run_threads.sh also checks that each thread got its own context. */
#define _POSIX_C_SOURCE 200809L /* rand_r */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

extern void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
                   const int *ldb, int *info);
extern void dposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *lda,
                   double *b, const int *ldb, int *info, size_t uplo_len);

enum { THREADS = 4, CALLS = 20, N = 97 };

/* Solves A x = A 1 (A diagonally dominant, symmetric for dposv) and returns max |x - 1|. */
static double solve_once(unsigned *seed, int spd) {
    static const int n = N, one = 1;
    double *a = malloc(sizeof(double) * N * N), b[N];
    int ipiv[N], info = -1;
    for (int j = 0; j < N; j++)
        for (int i = 0; i <= j; i++) {
            double v = (double)rand_r(seed) / RAND_MAX - 0.5 + (i == j ? N : 0);
            a[i + j * N] = v;
            a[j + i * N] = spd ? v : (double)rand_r(seed) / RAND_MAX - 0.5;
        }
    for (int i = 0; i < N; i++) {
        b[i] = 0;
        for (int j = 0; j < N; j++) b[i] += a[i + j * N];
    }
    if (spd)
        dposv_("L", &n, &one, a, &n, b, &n, &info, 1);
    else
        dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
    free(a);
    double err = info == 0 ? 0 : INFINITY;
    for (int i = 0; i < N; i++) err = fmax(err, fabs(b[i] - 1));
    return err;
}

static void *worker(void *arg) {
    unsigned seed = (unsigned)(size_t)arg;
    double *worst = malloc(sizeof(double));
    *worst = 0;
    for (int c = 0; c < CALLS; c++) *worst = fmax(*worst, solve_once(&seed, c % 2));
    return worst;
}

int main(void) {
    pthread_t t[THREADS];
    for (size_t k = 0; k < THREADS; k++) pthread_create(&t[k], NULL, worker, (void *)(k + 1));
    int failed = 0;
    for (int k = 0; k < THREADS; k++) {
        double *worst;
        pthread_join(t[k], (void **)&worst);
        printf("thread %d: max |x - 1| = %.3g over %d solves\n", k, *worst, CALLS);
        failed |= !(*worst < 1e-12);
        free(worst);
    }
    return failed;
}
