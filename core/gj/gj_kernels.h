/* The Gauss-Jordan kernel family: the fused kernel of the striped Gauss-Jordan solver
 * (core/gj/gjsv.c) that a backend may fill. The defaults are in gj_kernels.c. */
#ifndef PS_CORE_GJ_KERNELS_H
#define PS_CORE_GJ_KERNELS_H

#include "../backend.h"

#define PS__GJ_KERNELS_ABI 1

typedef struct ps__gj_kernels {
    ps__family_header header; /* PS__GJ_KERNELS_ABI, sizeof(ps__gj_kernels) */
    /* The stripes' tile update jk -= ji ik, where ji (m x s) stacks the JI tiles of every stripe
     * being updated, ik (s x ncols) is the pivot stripe's IK tile and jk (m x ncols) the JK
     * tiles. One call updates all those stripes at once (their tiles are independent); s is the
     * stripe height (at most 1024). */
    ps_status (*gj_stripe_update)(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                  ps__mat ji, ps__mat ik, ps__mat jk);
} ps__gj_kernels;

const ps__gj_kernels *ps__gj_kernels_defaults(void);
static inline const ps__gj_kernels *ps__gj(ps__backend *be) {
    return (const ps__gj_kernels *)ps__family(be, PS__FAMILY_GJ,
                                              &ps__gj_kernels_defaults()->header);
}

#endif
