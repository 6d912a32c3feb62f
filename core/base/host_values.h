/* Elements of either precision in host memory, read and written as doubles: the host side of
 * small transfers and of the portable defaults. Header only. */
#ifndef PS_CORE_HOST_VALUES_H
#define PS_CORE_HOST_VALUES_H

#include "backend.h"

/* Host element i of a column of either precision. */
static inline double ps__host_at(ps__dtype dt, const void *col, size_t i) {
    return dt == PS__DOUBLE ? ((const double *)col)[i] : (double)((const float *)col)[i];
}
/* Stores v (already rounded to dt) as element i of a host column of either precision. */
static inline void ps__host_store(ps__dtype dt, void *col, size_t i, double v) {
    if (dt == PS__DOUBLE)
        ((double *)col)[i] = v;
    else
        ((float *)col)[i] = (float)v;
}

/* count elements of dt (float or double) at raw as doubles into out, and doubles into raw
 * rounded to dt: the host side of small transfers. */
static inline void ps__values_to_double(ps__dtype dt, const void *raw, size_t count, double *out) {
    for (size_t i = 0; i < count; i++)
        out[i] = dt == PS__DOUBLE ? ((const double *)raw)[i] : (double)((const float *)raw)[i];
}
static inline void ps__values_from_double(ps__dtype dt, const double *v, size_t count, void *raw) {
    for (size_t i = 0; i < count; i++) {
        if (dt == PS__DOUBLE)
            ((double *)raw)[i] = v[i];
        else
            ((float *)raw)[i] = (float)v[i];
    }
}

#endif
