/* The solvers `portsolve solve --method` offers, and the one call that runs any of them. */
#ifndef PS_CLI_METHODS_H
#define PS_CLI_METHODS_H

#include "portsolve.h"

typedef struct cli_method {
    const char *name;   /* --method */
    const char *driver; /* the host driver it calls, without the precision letter */
    int iterative;      /* one right-hand side, solved to --tol from x0 = 0 */
    int symmetric;      /* needs a symmetric positive definite A */
    int dominant;       /* random systems for it are made strictly diagonally dominant */
    int double_only;    /* dsgesv: double in and out (it factors in a lower precision) */
    double flops_n3;    /* the factorization's flops / n^3, for GFLOP/s (0: none printed) */
} cli_method;

/* The method called name (any case), or NULL. */
const cli_method *cli_find_method(const char *name);
/* "lu, wz, ...", for messages. */
const char *cli_method_names(void);

/* The iterative methods' settings and what they reported. */
typedef struct cli_iter {
    ps_iter_options opts;
    ps_iter_result res;
} cli_iter;

/* Solves A X = B with method m in single or double precision: A n x n and B n x nrhs,
 * column-major with leading dimension n, are not changed (the drivers work on copies); X
 * (n x nrhs) receives the solution. it: the iterative methods' options in, result out.
 * refine_iter: dsgesv's iter. seconds: the driver call's, without the copies and conversions
 * around it. A host allocation that fails is PS_ERR_OUT_OF_HOST_MEMORY. */
ps_status cli_run(ps_context *ctx, const cli_method *m, int single, int n, int nrhs,
                  const double *A, const double *B, double *X, cli_iter *it, int *refine_iter,
                  double *seconds);

#endif
