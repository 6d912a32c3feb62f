/*
 * Triangular solves with the float factors of an LU, in double, by diagonal blocks inverted once
 * (internal; GMRES-IR's preconditioner, core/refine/refine.c).
 *
 * trsv_mixed solves block row after block row: a chain of n / 128 dependent steps, each a few
 * microseconds of waiting for the step before, which at n = 32768 takes about three times what
 * reading the factors takes. GMRES-IR applies the same factors some 60 times, so here the diagonal
 * blocks of order nb are inverted once, in double (the float entries widened, the inverse by
 * dtrsm on the identity), and each solve is then n / nb steps of two products that spread over
 * the whole device: x_b = T_bb^-1 x_b (dgemv), and the rest of x less the block column times x_b
 * (gemv_mixed, the float entries read once). The chain shrinks from n / 128 steps to n / nb.
 *
 * The inverse's rounding, eps cond(T_bb) relative, sits far below the float factors' own error;
 * were a diagonal block's condition to near 1 / eps the preconditioner would degrade, and
 * refinement's outer test, which is A's own in double, would see it.
 */
#ifndef PS_CORE_TRSV_BLOCKED_H
#define PS_CORE_TRSV_BLOCKED_H

#include "backend.h"
#include "base/context.h"
#include "base/tview.h"

typedef struct ps__trsv_blocked {
    int n, nb, blocks;
    int ready;      /* the blocks inverted so far (in order); the solves need all of them */
    ps__mat inv[2]; /* double nb x (blocks nb): block b's inverse at columns b nb.., ld nb; [0]: the
                     * unit lower triangle's, [1]: the upper's */
    ps__mat widened; /* nb x nb doubles: a diagonal block widened, the trsm's triangle */
} ps__trsv_blocked;

/* Whether the context's backend has gemv_mixed (asked by a call with m = k = 0; a refusal leaves
 * no message behind). */
int ps__gemv_mixed_offered(ps_context *ctx);

/* The order of the diagonal blocks for an n x n factorization on this context: ir_trsv_block
 * where set, else the backend's block_size(PS__ALGO_TRSV_BLOCKED); 0 means not by blocks
 * (also where the backend lacks gemv_mixed, or n is too small to have two blocks). */
int ps__trsv_blocked_order(ps_context *ctx, int n);

/* Takes from s the device memory for the inverses of the diagonal blocks of order nb of an n x n
 * LU's factors, none inverted yet. */
ps_status ps__trsv_blocked_open(ps__scratch *s, int n, int nb, ps__trsv_blocked *t);

/* Inverts, in order, the diagonal blocks not yet inverted that lie wholly within the leading
 * cols x cols block of lu, the float LU factors (unit lower L and upper U in one array, as getrf
 * leaves them; lu.t: stored transposed, as LU's transposed layout holds them while it factors).
 * That block must be final, as ps__getrf_progress reports it (core/refine/refine.c inverts as the
 * factorization goes). flag: a device int32 for convert's overflow test, set only by a NaN or
 * Inf in the factors (and never read here). */
ps_status ps__trsv_blocked_invert(ps_context *ctx, ps__trsv_blocked *t, ps__tview lu, int cols,
                                  void *flag);

/* ps__trsv_blocked_open, then every block inverted (lu as is). */
ps_status ps__trsv_blocked_make(ps__scratch *s, int n, int nb, ps__mat lu, void *flag,
                                ps__trsv_blocked *t);

/* x = T^-1 b, T the unit lower (uplo PS__LOWER) or upper (PS__UPPER) triangle of lu, b and x
 * double vectors that do not overlap, every operation in double; b is overwritten. (Out of place,
 * so that each block's product with its inverse writes x_b straight from b_b.) */
ps_status ps__trsv_blocked_solve(ps_context *ctx, const ps__trsv_blocked *t, ps__uplo uplo,
                                 ps__mat lu, ps__vec b, ps__vec x);

#endif
