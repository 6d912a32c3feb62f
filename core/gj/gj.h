/* Matrix inversion (getri, the blocked Gauss-Jordan inverse) and the striped Gauss-Jordan
 * solver on backend views. Internal to core; the public entries are in gj_api.c. */
#ifndef PS_CORE_GJ_H
#define PS_CORE_GJ_H

#include "base/context.h"

/*
 * Inverse from getrf's factors in place (LAPACK dgetri): inv(U) by a blocked triangular
 * inversion, then inv(A) inv(L) = inv(U) solved block column by block column from the right,
 * then the column interchanges undone. ipiv: getrf's 0-based device pivots. The diagonal of U
 * must have no exact zero (the caller checks). nb: block size.
 */
ps_status ps__getri(ps_context *ctx, ps__dtype dt, int n, ps__mat a, const void *ipiv, int nb);

/* Where the blocked Gauss-Jordan inverse factors its panels (ps_gj_variant). */
typedef enum ps__gj_where {
    PS__GJ_DEVICE = 0,
    PS__GJ_HYBRID = 1,
    PS__GJ_CONCURRENT = 2
} ps__gj_where;

/*
 * Inverse of the n x n view in by blocked Gauss-Jordan elimination with partial pivoting
 * (core/gj/gj.c), block size nb, computed in the n x n view work (which may be in) and written to
 * out (which may be in or work) on success. ipiv: device int32 scratch of n entries. *info: 0,
 * or the 1-based column whose pivot was exactly zero; out is then left as it was unless it is
 * work (work is garbage). in is overwritten when it is work, else read only.
 */
ps_status ps__gjinv(ps_context *ctx, ps__dtype dt, int n, ps__mat in, ps__mat work, ps__mat out,
                    int nb, ps__gj_where where, void *ipiv, int *info);

/*
 * Solves A X = B (n x nrhs) by the striped Gauss-Jordan algorithm with stripes of s rows
 * (core/gj/gjsv.c): on exit b holds X and a the forward pass's row echelon form (P A = L U, L's
 * multipliers below the diagonal). ipiv: device int32 scratch of n entries. *info as gjinv.
 */
ps_status ps__gjsv(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat a, ps__mat b, int s,
                   void *ipiv, int *info);

/* The block size of gjinv and the stripe height of gjsv for order n (options, environment,
 * the backend's measured choice, in that order). */
int ps__gj_block_size(ps_context *ctx, ps__dtype dt, int n);
int ps__gj_stripe_size(ps_context *ctx, ps__dtype dt, int n);

#endif
