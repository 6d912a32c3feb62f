/* The portable defaults of the BLAS-like base entries (blas_defaults.c), for
 * backend_defaults.c's table, and the conversion of one element that they share with the CPU
 * backend. Internal to core. */
#ifndef PS_CORE_BLAS_DEFAULTS_H
#define PS_CORE_BLAS_DEFAULTS_H

#include "backend.h"
#include "base/host_values.h"

#include <stddef.h>

ps_status ps__default_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo,
                           ps__trans trans, ps__diag diag, int m, int n, const ps__scalar *alpha,
                           ps__mat a, ps__mat b);
ps_status ps__default_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                             const void *ipiv, size_t ipiv_off, int forward);
ps_status ps__default_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                                ps__mat dst);
ps_status ps__default_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                              int cols, double alpha, ps__mat src, ps__mat dst, void *info);
ps_status ps__default_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                               double *result);
ps_status ps__default_set_float_compute(ps__backend *be, ps__float_compute mode);
ps_status ps__default_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src);
ps_status ps__default_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                                 void *host);

/* The conversion of one host element as the convert entry defines it: *overflow set when the
 * result is not finite. Shared by the default and the CPU backend. */
static inline double ps__convert_value(ps__dtype dst_dt, double alpha, double v, int *overflow) {
    double x = alpha * v;
    if (dst_dt == PS__FLOAT) {
        float f = (float)x;
        if (!(f - f == 0)) *overflow = 1; /* Inf or NaN: beyond FLT_MAX, or not finite */
        return f;
    }
    if (!(x - x == 0)) *overflow = 1;
    return x;
}

#endif
