/* Small test harness shared by the test programs: checks, backend choice, LAPACK test matrices. */
#ifndef PS_TEST_UTIL_H
#define PS_TEST_UTIL_H

#include "portsolve.h"

#include <stddef.h>
#include <stdio.h>

extern int ps_test_failures;
extern int ps_test_checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        ps_test_checks++;                                                                          \
        if (!(cond)) {                                                                             \
            ps_test_failures++;                                                                    \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond);               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_STATUS(expr, expected)                                                               \
    do {                                                                                           \
        ps_status got_ = (expr);                                                                   \
        CHECK(got_ == (expected), "%s returned %s (%d), expected %s", #expr,                       \
              ps_status_string(got_), (int)got_, ps_status_string(expected));                      \
    } while (0)

/* Parses "--backend NAME" (default cpu), "--case NAME" and "--tuning KEY=VALUE,..." (knobs for
 * every context the test creates, core/base/tuning.def); seeds the generator from
 * PORTSOLVE_TEST_SEED or the clock and prints the seed so a failure can be replayed. */
void ps_test_init(int argc, char **argv);
const char *ps_test_backend_name(void);
/* The contexts created from now on take the run's --tuning and then extra ("key=value,...";
 * NULL: the run's alone). */
void ps_test_tuning(const char *extra);
const char *ps_test_case(void); /* NULL when no --case was given */
ps_backend_kind ps_test_backend_kind(void);
/* Creates a context on the test's backend; a backend that cannot open fails the test. */
ps_context *ps_test_context(int lu_block_size);
/* Makes ctx claim two lanes, so that the look-ahead schedules only backends with two lanes (CUDA)
 * take run on any backend; its lanes are one queue, in order, so what is checked is the
 * schedules' split of the work, not their synchronization. */
void ps_test_two_lanes(ps_context *ctx);
/* Whether ctx's backend has the float split mode TF32X3 (the backend left in float, as found;
 * -1 when it cannot be set back). */
int ps_test_has_float_split(ps_context *ctx);
/* Prints a summary and returns the process exit code; a test that checked nothing fails. */
int ps_test_finish(const char *name);

/* Uniform random numbers in [-1, 1) and integers in [0, n). */
double ps_test_rand(void);
int ps_test_rand_int(int n);
/* Four seeds for LAPACK's generators (each in 0..4095, the last odd). */
void ps_test_iseed(int iseed[4]);

/* A dense n x n matrix with singular values spread geometrically from 1 to 1/cond, random
 * singular vectors (libtmglib's dlatms/slatms, mode 3), stored with leading dimension lda.
 * sym: 'N' nonsymmetric, 'P' symmetric positive definite. Returns 0 on success. */
int ps_test_latms_d(int n, double cond, char sym, double *a, int lda);
int ps_test_latms_s(int n, double cond, char sym, float *a, int lda);

/* Machine epsilon as LAPACK's dlamch('E') (relative rounding unit). */
double ps_test_eps(ps_dtype dt);

/* Element (i,j) of a column-major array of either precision, as double. */
static inline double ps_test_get(ps_dtype dt, const void *a, int lda, int i, int j) {
    size_t k = (size_t)i + (size_t)j * (size_t)lda;
    return dt == PS_DOUBLE ? ((const double *)a)[k] : (double)((const float *)a)[k];
}
static inline void ps_test_set(ps_dtype dt, void *a, int lda, int i, int j, double v) {
    size_t k = (size_t)i + (size_t)j * (size_t)lda;
    if (dt == PS_DOUBLE)
        ((double *)a)[k] = v;
    else
        ((float *)a)[k] = (float)v;
}
/* 1-norm (max column sum) of an m x n array. */
double ps_test_norm1(ps_dtype dt, int m, int n, const void *a, int lda);

/* Bytes per element. */
size_t ps_test_esize(ps_dtype dt);
/* A host array of ld x cols with every element (padding included) random. */
void *ps_test_random_array(ps_dtype dt, int ld, int cols);
void *ps_test_clone(ps_dtype dt, const void *a, int ld, int cols);
/* True when rows rows..ld-1 of every column are as in the original (padding untouched). */
int ps_test_padding_intact(ps_dtype dt, int rows, int ld, int cols, const void *a,
                           const void *orig);
/* B = op(A) * X (trans 'N' or 'T') in a new random array of leading dimension ldb. */
void *ps_test_rhs_for(ps_dtype dt, char trans, int n, int nrhs, const void *A, int lda,
                      const void *X, int ldx, int ldb);

#endif
