/* The portable defaults of the inversion and Gauss-Jordan vtable entries
 * (backend_defaults_gj.c). Internal to core. */
#ifndef PS_CORE_BACKEND_DEFAULTS_GJ_H
#define PS_CORE_BACKEND_DEFAULTS_GJ_H

#include "backend.h"

ps_status ps__default_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo,
                           ps__trans trans, ps__diag diag, int m, int n, const ps__scalar *alpha,
                           ps__mat a, ps__mat b);
ps_status ps__default_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                             const void *ipiv, size_t ipiv_off, int forward);
ps_status ps__default_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                                ps__mat dst);
ps_status ps__default_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                       ps__mat ji, ps__mat ik, ps__mat jk);

#endif
