/* WZ factorization on backend views (internal; the public entries are in wz_api.c). */
#ifndef PS_CORE_WZ_H
#define PS_CORE_WZ_H

#include "base/context.h"

/* Step-order position of natural index r of an order-n matrix, and its inverse. */
static inline int ps__wz_pos(int n, int r) {
    return 2 * r <= n - 1 ? 2 * r : 2 * (n - 1 - r) + 1;
}
static inline int ps__wz_nat(int n, int t) {
    return t % 2 == 0 ? t / 2 : n - 1 - (t - 1) / 2;
}

/*
 * Blocked WZ of the order-n step-order matrix w (ps__wz_reorder'ed, corners' lower-left entries
 * in zsub, n/2 entries). ipiv: device int32, n entries, LAPACK-style in step order; info: device
 * int32 word, set to 0 here and to the first failed step's number (backend.h).
 */
ps_status ps__wztrf_steps(ps_context *ctx, ps__dtype dt, int n, ps__mat w, ps__vec zsub, void *ipiv,
                          void *info, int pivoting);
/* The papers' vector form on the natural-layout a: per step the corner step (the backend's
 * device kernel, or with host_corners the published host-driven BLAS version), then two rank-1
 * updates of the inner matrix. ipiv natural (backend.h wz_corner); work: n elements. */
ps_status ps__wztrf_vector(ps_context *ctx, ps__dtype dt, int n, ps__mat a, ps__vec work,
                           void *ipiv, void *info, int pivoting, int host_corners);
/* Solves W Z X = P B with step-order factors; b holds B's rows in step order (n x nrhs). */
ps_status ps__wztrs_steps(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat w, ps__vec zsub,
                          const void *ipiv, ps__mat b);
/* The block size of the blocked form (even). */
int ps__wz_block_size(ps_context *ctx, ps__dtype dt, int n);

#endif
