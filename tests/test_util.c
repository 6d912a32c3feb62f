#include "test_util.h"
#include "base/context.h"
#include "base/tuning.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int ps_test_failures;
int ps_test_checks;

static const char *backend_name = "cpu";
static const char *run_tuning = ""; /* --tuning */
static const char *case_name;
static uint64_t rng_state;

/* libtmglib's generators (Fortran; hidden string lengths last). */
extern void dlatms_(const int *m, const int *n, const char *dist, int *iseed, const char *sym,
                    double *d, const int *mode, const double *cond, const double *dmax,
                    const int *kl, const int *ku, const char *pack, double *a, const int *lda,
                    double *work, int *info, size_t dist_len, size_t sym_len, size_t pack_len);

static uint64_t next_u64(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double ps_test_rand(void) {
    return (double)(next_u64() >> 11) * 0x1.0p-52 - 1.0;
}
int ps_test_rand_int(int n) {
    return (int)(next_u64() % (uint64_t)n);
}

void ps_test_iseed(int iseed[4]) {
    for (int i = 0; i < 4; i++) iseed[i] = ps_test_rand_int(4096);
    iseed[3] |= 1;
}

void ps_test_init(int argc, char **argv) {
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--backend") == 0)
            backend_name = argv[++i];
        else if (strcmp(argv[i], "--case") == 0)
            case_name = argv[++i];
        else if (strcmp(argv[i], "--tuning") == 0)
            run_tuning = argv[++i];
    }
    ps_test_tuning(NULL);
    const char *s = getenv("PORTSOLVE_TEST_SEED");
    uint64_t seed = s && *s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)clock();
    rng_state = seed;
    printf("backend %s, seed %llu (replay with PORTSOLVE_TEST_SEED=%llu)\n", backend_name,
           (unsigned long long)seed, (unsigned long long)seed);
}

void ps_test_tuning(const char *extra) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s%s", run_tuning, *run_tuning && extra ? "," : "",
             extra ? extra : "");
    ps__tuning_for_tests(text);
}

const char *ps_test_backend_name(void) {
    return backend_name;
}
const char *ps_test_case(void) {
    return case_name;
}

ps_backend_kind ps_test_backend_kind(void) {
    ps_backend_kind kind;
    if (ps_backend_kind_from_name(backend_name, &kind) != PS_SUCCESS || kind == PS_BACKEND_AUTO) {
        fprintf(stderr, "unknown test backend '%s'\n", backend_name);
        exit(2);
    }
    return kind;
}

ps_context *ps_test_context(int lu_block_size) {
    ps_context_options o = ps_context_options_default();
    o.backend = ps_test_backend_kind();
    o.lu_block_size = lu_block_size;
    ps_context *ctx = NULL;
    ps_status st = ps_context_create(&ctx, &o);
    if (st != PS_SUCCESS) {
        fprintf(stderr, "FAIL: backend %s cannot run this test: %s: %s\n", backend_name,
                ps_status_string(st), ps_last_create_error());
        exit(1);
    }
    /* the tests judge the backend itself: no small call may cross over to the CPU path */
    ps_context_set_host_crossover(ctx, 0);
    return ctx;
}

int ps_test_finish(const char *name) {
    if (ps_test_checks == 0) {
        fprintf(stderr, "FAIL: %s made no checks\n", name);
        return 1;
    }
    printf("%s on %s: %d checks, %d failed\n", name, backend_name, ps_test_checks,
           ps_test_failures);
    return ps_test_failures ? 1 : 0;
}

int ps_test_latms_d(int n, double cond, char sym, double *a, int lda) {
    if (n == 0) return 0;
    int iseed[4], mode = 3, kl = n - 1, ku = n - 1, info = 0;
    double dmax = 1.0;
    double *d = malloc(sizeof(double) * (size_t)n);
    double *work = malloc(sizeof(double) * 3 * (size_t)n);
    ps_test_iseed(iseed);
    char dist = sym == 'P' ? 'S' : 'U', pack = 'N';
    dlatms_(&n, &n, &dist, iseed, &sym, d, &mode, &cond, &dmax, &kl, &ku, &pack, a, &lda, work,
            &info, 1, 1, 1);
    free(d);
    free(work);
    return info;
}

/* Generated in double and rounded: with two OpenBLAS 0.3.21 threads, slatms itself was seen to
 * return NaN after some call histories (not with one thread, not under valgrind), so the float
 * test matrices do not depend on it. Rounding moves the condition number by O(cond * eps). */
int ps_test_latms_s(int n, double cond, char sym, float *a, int lda) {
    if (n == 0) return 0;
    double *d = malloc(sizeof(double) * (size_t)n * (size_t)n);
    int info = ps_test_latms_d(n, cond, sym, d, n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) a[i + (size_t)j * lda] = (float)d[i + (size_t)j * n];
    free(d);
    return info;
}

double ps_test_eps(ps_dtype dt) {
    return dt == PS_DOUBLE ? 0x1.0p-53 : 0x1.0p-24;
}

double ps_test_norm1(ps_dtype dt, int m, int n, const void *a, int lda) {
    double best = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < m; i++) s += fabs(ps_test_get(dt, a, lda, i, j));
        if (s > best) best = s;
    }
    return best;
}

size_t ps_test_esize(ps_dtype dt) {
    return dt == PS_DOUBLE ? sizeof(double) : sizeof(float);
}

/* A host array of ld x cols with every element (padding included) random. */
void *ps_test_random_array(ps_dtype dt, int ld, int cols) {
    size_t count = (size_t)(ld > 0 ? ld : 1) * (size_t)(cols > 0 ? cols : 1);
    void *a = malloc(count * ps_test_esize(dt));
    for (size_t i = 0; i < count; i++) ps_test_set(dt, a, 1, (int)i, 0, ps_test_rand());
    return a;
}

void *ps_test_clone(ps_dtype dt, const void *a, int ld, int cols) {
    size_t bytes = (size_t)(ld > 0 ? ld : 1) * (size_t)(cols > 0 ? cols : 1) * ps_test_esize(dt);
    void *c = malloc(bytes);
    memcpy(c, a, bytes);
    return c;
}

/* True when rows rows..ld-1 of every column are as in the original (padding untouched). */
int ps_test_padding_intact(ps_dtype dt, int rows, int ld, int cols, const void *a,
                           const void *orig) {
    for (int j = 0; j < cols; j++)
        for (int i = rows; i < ld; i++)
            if (ps_test_get(dt, a, ld, i, j) != ps_test_get(dt, orig, ld, i, j)) return 0;
    return 1;
}

/* B = op(A) * X for a random X, so the true solution is known. */
void *ps_test_rhs_for(ps_dtype dt, char trans, int n, int nrhs, const void *A, int lda,
                      const void *X, int ldx, int ldb) {
    void *b = ps_test_random_array(dt, ldb, nrhs);
    int t = trans != 'N';
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += (t ? ps_test_get(dt, A, lda, k, i) : ps_test_get(dt, A, lda, i, k)) *
                     ps_test_get(dt, X, ldx, k, c);
            ps_test_set(dt, b, ldb, i, c, s);
        }
    return b;
}

static int two_lanes(ps__backend *be) {
    (void)be;
    return 2;
}

void ps_test_two_lanes(ps_context *ctx) {
    ctx->ops.lanes = two_lanes;
}

int ps_test_has_float_split(ps_context *ctx) {
    ps__backend *be = &ctx->be;
    int has = be->ops->set_float_compute(be, PS__COMPUTE_TF32X3) == PS_SUCCESS;
    return be->ops->set_float_compute(be, PS__COMPUTE_FP32) == PS_SUCCESS ? has : -1;
}
