/* The command-line program's system and its residual (cli_system.h). */
#include "cli_system.h"

#include "mmio.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* The largest |v_i| into *max, and the sum of |v_i| / *max (p = 1) or of (v_i / *max)^2 (p = 2):
 * the norm is *max times it (or its square root), and neither overflows nor underflows for
 * entries anywhere in double's range. */
static double scaled_sum(const double *v, int n, int p, double *max) {
    double m = 0, s = 0;
    for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
    for (int i = 0; i < n && m > 0; i++) s += p == 1 ? fabs(v[i]) / m : (v[i] / m) * (v[i] / m);
    *max = m;
    return s;
}

double cli_residual(int n, int nrhs, const double *A, const double *B, const double *X, double eps,
                    int relative) {
    double anorm_m = 0, anorm_s = 0, worst = 0; /* ||A||_1 = anorm_m * anorm_s */
    for (int j = 0; j < n; j++) {
        double m, s = scaled_sum(A + (size_t)j * n, n, 1, &m);
        if (m * s > anorm_m * anorm_s || anorm_m == 0) anorm_m = m, anorm_s = s;
    }
    double *r = malloc(sizeof *r * (size_t)(n > 0 ? n : 1));
    if (!r) return NAN;
    for (int c = 0; c < nrhs; c++) {
        const double *x = X + (size_t)c * n, *b = B + (size_t)c * n;
        for (int i = 0; i < n; i++) r[i] = b[i];
        for (int k = 0; k < n; k++)
            for (int i = 0; i < n; i++) r[i] -= A[i + (size_t)k * n] * x[k];
        double rm, xm, bm, q;
        if (relative) {
            double rs = scaled_sum(r, n, 2, &rm), bs = scaled_sum(b, n, 2, &bm);
            q = bm > 0 ? rm / bm * sqrt(rs / bs) : rm * sqrt(rs);
        } else {
            double rs = scaled_sum(r, n, 1, &rm), xs = scaled_sum(x, n, 1, &xm);
            q = anorm_m > 0 && xm > 0 ? rm / anorm_m / xm * (rs / (anorm_s * xs)) / (n * eps)
                                      : rm * rs;
        }
        if (!(q <= worst)) worst = q;
    }
    free(r);
    return worst;
}

/* A random n x n matrix for method m (cli_load_system); NULL when out of memory. */
static double *random_matrix(const cli_method *m, int n, unsigned long seed) {
    double *A = malloc(sizeof *A * ((size_t)n * (size_t)n + 1));
    if (!A) return NULL;
    srand((unsigned)seed);
    for (size_t j = 0; j < (size_t)n; j++)
        for (size_t i = 0; i < (size_t)n; i++) {
            double v = 2.0 * rand() / RAND_MAX - 1.0;
            if (m->symmetric && i < j) v = A[j + i * n]; /* the mirror, drawn already */
            if (m->dominant && i == j) v = n;
            A[i + j * n] = v;
        }
    return A;
}

int cli_load_system(const cli_system_spec *a, int *n_out, int *nrhs_out, double **A_out,
                    double **B_out) {
    char err[512];
    int n, nrhs = a->nrhs;
    double *A = NULL, *B = NULL;
    if (a->matrix) {
        mm_dense m;
        if (mm_read_dense(a->matrix, &m, err, sizeof err)) {
            fprintf(stderr, "portsolve: %s\n", err);
            return 0;
        }
        if (m.rows != m.cols) {
            fprintf(stderr, "portsolve: %s is %d x %d; solving needs a square matrix\n", a->matrix,
                    m.rows, m.cols);
            free(m.values);
            return 0;
        }
        n = m.rows;
        A = m.values;
        for (int j = 0; a->method->symmetric && j < n; j++)
            for (int i = j + 1; i < n; i++)
                if (A[i + (size_t)j * n] != A[j + (size_t)i * n]) {
                    fprintf(stderr,
                            "portsolve: --method %s needs a symmetric matrix; in %s A(%d,%d) = %g "
                            "and A(%d,%d) = %g\n",
                            a->method->name, a->matrix, i + 1, j + 1, A[i + (size_t)j * n], j + 1,
                            i + 1, A[j + (size_t)i * n]);
                    free(A);
                    return 0;
                }
        if (a->rhs) {
            mm_dense b;
            if (mm_read_dense(a->rhs, &b, err, sizeof err)) {
                fprintf(stderr, "portsolve: %s\n", err);
                free(A);
                return 0;
            }
            if (b.rows != n || (a->method->iterative && b.cols != 1)) {
                fprintf(stderr, "portsolve: %s is %d x %d; it must be %d x %s\n", a->rhs, b.rows,
                        b.cols, n, a->method->iterative ? "1" : "k");
                free(A), free(b.values);
                return 0;
            }
            nrhs = b.cols;
            B = b.values;
        }
    } else {
        n = a->n;
        A = random_matrix(a->method, n, a->seed);
    }
    if (A && !B) {
        B = calloc((size_t)n * (size_t)nrhs + 1, sizeof *B);
        for (int c = 0; B && c < nrhs; c++)
            for (int k = 0; k < n; k++)
                for (int i = 0; i < n; i++) B[i + (size_t)c * n] += A[i + (size_t)k * n];
    }
    if (!A || !B) {
        fprintf(stderr, "portsolve: out of memory for a system of order %d\n", n);
        free(A), free(B);
        return 0;
    }
    if (a->single) /* the system solved is the rounded one, so the residual judges the solver */
        for (size_t i = 0; i < (size_t)n * (size_t)n; i++) A[i] = (float)A[i];
    for (size_t i = 0; a->single && i < (size_t)n * (size_t)nrhs; i++) B[i] = (float)B[i];
    *n_out = n, *nrhs_out = nrhs, *A_out = A, *B_out = B;
    return 1;
}
