/* Triangular solves by recursive halving into GEMMs (core/trsm_recursive.c). */
#ifndef PS_CORE_TRSM_RECURSIVE_H
#define PS_CORE_TRSM_RECURSIVE_H

#include "context.h"

/* The backend's trsm (no transposition) on the same arguments, with the triangle halved until
 * its order is at most leaf (leaf < 1: not at all) and the coupling blocks done by GEMM. */
ps_status ps__trsm_recursive(ps_context *ctx, ps__dtype dt, ps__side side, ps__uplo uplo,
                             ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a,
                             ps__mat b, int leaf);

#endif
