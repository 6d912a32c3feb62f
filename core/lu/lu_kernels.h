/* The LU kernel family: the fused kernels of the blocked LU (core/lu/lu.c) that a backend may
 * fill (backend.h says how a family is completed). The defaults are in lu_kernels.c. */
#ifndef PS_CORE_LU_KERNELS_H
#define PS_CORE_LU_KERNELS_H

#include "../backend.h"

#define PS__LU_KERNELS_ABI 1

typedef struct ps__lu_kernels {
    ps__family_header header; /* PS__LU_KERNELS_ABI, sizeof(ps__lu_kernels) */
    /* Unblocked LU with partial pivoting of the m x n panel a (m >= n). Row swaps are applied
     * across the panel's n columns only. Writes, for i < n, ipiv[ipiv_off + i] = row_base +
     * (0-based panel row chosen as pivot i); and, when the pivot of column i is exactly zero
     * (that column is then left unscaled, as LAPACK does) and info[0] is 0, info[0] = row_base +
     * i + 1. ipiv and info are int32 buffers. */
    ps_status (*getrf_panel)(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                             size_t ipiv_off, int row_base, void *info);
    /* Widest panel getrf_panel handles well; wider panels are split recursively by core. */
    int (*panel_width)(ps__backend *be, ps__dtype dt, int m);
} ps__lu_kernels;

const ps__lu_kernels *ps__lu_kernels_defaults(void);
static inline const ps__lu_kernels *ps__lu(ps__backend *be) {
    return (const ps__lu_kernels *)ps__family(be, PS__FAMILY_LU,
                                              &ps__lu_kernels_defaults()->header);
}

#endif
