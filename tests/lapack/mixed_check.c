/* dsgesv_ and dsposv_ through libportsolve_lapack (run preloaded, every call routed) where
 * portsolve does not finish the call itself, against the host LAPACK's own routines on the same
 * input (found through dlopen, past the preload): a NaN in A (refused, then handed to the host
 * LAPACK on the untouched arrays) and a double solution beyond double's range after the fallback
 * (the host LAPACK's solve with portsolve's double factors). INFO, ITER, A, IPIV and X must be the
 * host LAPACK's, NaN for NaN. run_mixed.sh also checks the log for the hand-overs. */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

typedef void dsgesv_t(const int *, const int *, double *, const int *, int *, const double *,
                      const int *, double *, const int *, double *, float *, int *, int *);
typedef void dsposv_t(const char *, const int *, const int *, double *, const int *, const double *,
                      const int *, double *, const int *, double *, float *, int *, int *, size_t);
extern dsgesv_t dsgesv_;
extern dsposv_t dsposv_;

enum { N = 6 }; /* above 4, where portsolve falls back at once (iter -31; portsolve.h) */

static int same(const double *x, const double *y, int count) {
    for (int i = 0; i < count; i++)
        if (!(x[i] == y[i] || (isnan(x[i]) && isnan(y[i])))) return 0;
    return 1;
}

/* One system through both: the routed call, then the host LAPACK's on copies of the input. */
static int compare(const char *what, int spd, const double *a0, const double *b0, dsgesv_t *host_ge,
                   dsposv_t *host_po) {
    static const int n = N, one = 1;
    double a[2][N * N], x[2][N], work[N];
    float swork[N * (N + 1)];
    int ipiv[2][N] = {{0}}, iter[2] = {0, 0}, info[2] = {-99, -99};
    for (int k = 0; k < 2; k++) {
        memcpy(a[k], a0, sizeof a[k]);
        memset(x[k], 0, sizeof x[k]);
        if (spd)
            (k ? host_po : dsposv_)("L", &n, &one, a[k], &n, b0, &n, x[k], &n, work, swork,
                                    &iter[k], &info[k], 1);
        else
            (k ? host_ge : dsgesv_)(&n, &one, a[k], &n, ipiv[k], b0, &n, x[k], &n, work, swork,
                                    &iter[k], &info[k]);
    }
    int ok = info[0] == info[1] && iter[0] == iter[1] && same(a[0], a[1], N * N) &&
             same(x[0], x[1], N) && memcmp(ipiv[0], ipiv[1], sizeof ipiv[0]) == 0;
    printf("%s %s: info %d / %d, iter %d / %d, x[0] %g / %g: %s\n", spd ? "dsposv" : "dsgesv", what,
           info[0], info[1], iter[0], iter[1], x[0][0], x[1][0], ok ? "same" : "DIFFERENT");
    return ok;
}

int main(void) {
    void *lapack = dlopen("liblapack.so.3", RTLD_NOW | RTLD_LOCAL);
    dsgesv_t *host_ge = lapack ? (dsgesv_t *)dlsym(lapack, "dsgesv_") : NULL;
    dsposv_t *host_po = lapack ? (dsposv_t *)dlsym(lapack, "dsposv_") : NULL;
    if (!host_ge || !host_po || host_ge == dsgesv_ || host_po == dsposv_) {
        fprintf(stderr, "FAIL: the host LAPACK's dsgesv_/dsposv_ not found past the preload\n");
        return 1;
    }
    /* diag(4) + 1 beside the diagonal, SPD, but for a NaN; and diag(1e-300, 1, ...): 1e-300 is
     * 0 in float (the low-precision factorization fails: ITER -3), and the double solution's
     * first entry 1e10 / 1e-300 overflows */
    double nan_a[N * N] = {0}, tiny[N * N] = {0}, b[N], big_b[N];
    for (int i = 0; i < N; i++) {
        nan_a[i + i * N] = 4, tiny[i + i * N] = i ? 1 : 1e-300;
        if (i) nan_a[i + (i - 1) * N] = nan_a[i - 1 + i * N] = 1;
        b[i] = 1 + i, big_b[i] = i ? 1 : 1e10;
    }
    nan_a[2 + 2 * N] = NAN;
    int ok = 1;
    for (int spd = 0; spd < 2; spd++) {
        ok &= compare("NaN in A", spd, nan_a, b, host_ge, host_po);
        ok &= compare("solution beyond range", spd, tiny, big_b, host_ge, host_po);
    }
    puts(ok ? "all the same as the host LAPACK" : "FAILED");
    return ok ? 0 : 1;
}
