/* Host arrays as the backend sees them, for the host drivers: an alias of the caller's memory
 * (backends that address host memory, the CPU) or a copy staged through a device buffer. */
#ifndef PS_CORE_STAGING_H
#define PS_CORE_STAGING_H

#include "context.h"

typedef struct ps__staged {
    ps__mat dev;
    int aliased; /* dev is the caller's memory: nothing to copy back */
} ps__staged;

/* Makes rows x cols of host (leading dimension ldh) available to the backend. may_alias = 0
 * asks for a copy even where the backend could alias the caller's memory (an output the caller
 * must see changed only on success); a copy's device buffer is released with the scratch. */
ps_status ps__stage_in(ps__scratch *s, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                       int may_alias, ps__staged *out);
/* Copies a staged array back to the host (nothing to do when aliased). */
ps_status ps__stage_out(ps_context *ctx, ps__dtype dt, int rows, int cols, const ps__staged *in,
                        void *host, int ldh);

/* The checks every host driver makes on the context before any work: double precision on the
 * device when dt is double. */
ps_status ps__check_dtype_supported(ps_context *ctx, ps__dtype dt, const char *fn);

static inline int ps__max1(int v) {
    return v > 1 ? v : 1;
}

#endif
