/* Portable default of the Gauss-Jordan kernel family (gj_kernels.h). */
#include "gj/gj_kernels.h"

#include <stddef.h>

static ps_status default_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                          ps__mat ji, ps__mat ik, ps__mat jk) {
    if (m <= 0 || ncols <= 0 || s <= 0) return PS_SUCCESS;
    ps__scalar minus = ps__scalar_of(dt, -1.0), one = ps__scalar_of(dt, 1.0);
    return be->ops->gemm(be, dt, PS__NOTRANS, PS__NOTRANS, m, ncols, s, &minus, ji, ik, &one, jk);
}

static const ps__gj_kernels defaults = {
    .header = {PS__GJ_KERNELS_ABI, sizeof(ps__gj_kernels)},
    .gj_stripe_update = default_gj_stripe_update,
};

_Static_assert(offsetof(ps__gj_kernels, gj_stripe_update) == sizeof(ps__family_header),
               "a family table is its header, then function pointers");

const ps__gj_kernels *ps__gj_kernels_defaults(void) {
    return &defaults;
}
