/* The portable defaults of the mixed-precision refinement entries (backend_defaults_ir.c).
 * Internal to core. */
#ifndef PS_CORE_BACKEND_DEFAULTS_IR_H
#define PS_CORE_BACKEND_DEFAULTS_IR_H

#include "backend.h"

ps_status ps__default_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                              int cols, double alpha, ps__mat src, ps__mat dst, void *info);
ps_status ps__default_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                               double *result);
ps_status ps__default_set_float_compute(ps__backend *be, ps__float_compute mode);

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
