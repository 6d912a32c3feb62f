/* The command-line program's system: read from Matrix Market files or made at random for the
 * method, and the residual that judges its solution. */
#ifndef PS_CLI_SYSTEM_H
#define PS_CLI_SYSTEM_H

#include "cli_methods.h"

typedef struct cli_system_spec {
    const cli_method *method;
    const char *matrix, *rhs; /* --matrix and --rhs files, or NULL */
    int n, nrhs;              /* --n (without --matrix) and --nrhs (without --rhs) */
    int single;               /* the system is rounded to float, the precision it is solved in */
    unsigned long seed;       /* of the random system */
} cli_system_spec;

/* Loads the system (n x n A, n x nrhs B, column-major, leading dimension n; the caller frees
 * both): from the files, or random with entries in [-1, 1) and, for the methods that need it,
 * n on the diagonal (strict diagonal dominance: every iterative method converges, and the
 * symmetric matrix of chol and cg is positive definite). Without --rhs, b = A * ones. A method
 * that needs a symmetric matrix refuses a file that is not. Returns 0 after saying why on
 * stderr. */
int cli_load_system(const cli_system_spec *a, int *n_out, int *nrhs_out, double **A_out,
                    double **B_out);

/* max_j ||b_j - A x_j||_1 / (||A||_1 ||x_j||_1 n eps) (relative = 0, LAPACK's scaled
 * residual), or max_j ||b_j - A x_j||_2 / ||b_j||_2 (relative = 1), in double; NaN when out of
 * memory. */
double cli_residual(int n, int nrhs, const double *A, const double *B, const double *X, double eps,
                    int relative);

#endif
