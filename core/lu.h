/* Blocked LU on backend views (internal; the public entries are in lu.c and lu_host.c). */
#ifndef PS_CORE_LU_H
#define PS_CORE_LU_H

#include "context.h"

/*
 * Factors the m x n view a in place, A = P*L*U. ipiv: device int32 buffer of min(m,n) entries
 * (0-based row indices); info: device int32 buffer of one entry, set to 0 here and to the 1-based
 * index of the first exactly zero pivot, if any. The factorization always runs to the end.
 */
ps_status ps__getrf(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv, void *info);
/* Solves op(A) X = B (n x nrhs) with ps__getrf's factors and its device pivots. */
ps_status ps__getrs(ps_context *ctx, ps__dtype dt, ps__trans trans, int n, int nrhs, ps__mat a,
                    const void *ipiv, ps__mat b);
/* The block size ps__getrf uses for an m x n matrix. */
int ps__lu_block_size(ps_context *ctx, ps__dtype dt, int m, int n);

#endif
