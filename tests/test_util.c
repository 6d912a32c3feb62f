#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

int ps_test_failures;
int ps_test_checks;

static const char *backend_name = "cpu";
static const char *case_name;
static uint64_t rng_state;

/* libtmglib's generators (Fortran; hidden string lengths last). */
extern void dlatms_(const int *m, const int *n, const char *dist, int *iseed, const char *sym,
                    double *d, const int *mode, const double *cond, const double *dmax,
                    const int *kl, const int *ku, const char *pack, double *a, const int *lda,
                    double *work, int *info, size_t dist_len, size_t sym_len, size_t pack_len);
extern void slatms_(const int *m, const int *n, const char *dist, int *iseed, const char *sym,
                    float *d, const int *mode, const float *cond, const float *dmax, const int *kl,
                    const int *ku, const char *pack, float *a, const int *lda, float *work,
                    int *info, size_t dist_len, size_t sym_len, size_t pack_len);

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
    }
    const char *s = getenv("PORTSOLVE_TEST_SEED");
    uint64_t seed = s && *s ? strtoull(s, NULL, 10) : (uint64_t)time(NULL) ^ (uint64_t)clock();
    rng_state = seed;
    printf("backend %s, seed %llu (replay with PORTSOLVE_TEST_SEED=%llu)\n", backend_name,
           (unsigned long long)seed, (unsigned long long)seed);
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

int ps_test_latms_s(int n, double cond, char sym, float *a, int lda) {
    if (n == 0) return 0;
    int iseed[4], mode = 3, kl = n - 1, ku = n - 1, info = 0;
    float dmax = 1.0f, fcond = (float)cond;
    float *d = malloc(sizeof(float) * (size_t)n);
    float *work = malloc(sizeof(float) * 3 * (size_t)n);
    ps_test_iseed(iseed);
    char dist = sym == 'P' ? 'S' : 'U', pack = 'N';
    slatms_(&n, &n, &dist, iseed, &sym, d, &mode, &fcond, &dmax, &kl, &ku, &pack, a, &lda, work,
            &info, 1, 1, 1);
    free(d);
    free(work);
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
