/* The CPU backend's custom and LAPACK-like entries, as plain loops for both precisions. */
#include "cpu_internal.h"

#include <float.h>
#include <stdint.h>
#include <string.h>

#define REAL double
#define SUFFIX d
#define SAFE_MIN DBL_MIN
#include "cpu_kernels_real.h"
#undef REAL
#undef SUFFIX
#undef SAFE_MIN

#define REAL float
#define SUFFIX s
#define SAFE_MIN FLT_MIN
#include "cpu_kernels_real.h"
#undef REAL
#undef SUFFIX
#undef SAFE_MIN

#define DM(m) PS__CPU_PTR(double, (m).buf, (m).off)
#define SM(m) PS__CPU_PTR(float, (m).buf, (m).off)

ps_status ps__cpu_fill(ps__backend *be, ps__dtype dt, int rows, int cols,
                       const ps__scalar *value, ps__mat a) {
    (void)be;
    if (dt == PS__DOUBLE) fill_d(rows, cols, value->d, DM(a), a.ld);
    else fill_s(rows, cols, value->s, SM(a), a.ld);
    return PS_SUCCESS;
}

ps_status ps__cpu_read_elements(ps__backend *be, ps__dtype dt, const void *buf, int count,
                                const size_t *offsets, void *out) {
    (void)be;
    size_t es = ps__dtype_size(dt);
    for (int i = 0; i < count; i++)
        memcpy((char *)out + (size_t)i * es, (const char *)buf + offsets[i] * es, es);
    return PS_SUCCESS;
}

ps_status ps__cpu_laswp(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                        const void *ipiv, size_t ipiv_off, int forward) {
    (void)be;
    const int32_t *piv = (const int32_t *)ipiv + ipiv_off;
    if (dt == PS__DOUBLE) laswp_d(ncols, DM(a), a.ld, k1, k2, piv, forward);
    else laswp_s(ncols, SM(a), a.ld, k1, k2, piv, forward);
    return PS_SUCCESS;
}

ps_status ps__cpu_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                              size_t ipiv_off, int row_base, void *info) {
    (void)be;
    int32_t *piv = (int32_t *)ipiv + ipiv_off;
    if (dt == PS__DOUBLE) getrf_panel_d(m, n, DM(a), a.ld, piv, row_base, info);
    else getrf_panel_s(m, n, SM(a), a.ld, piv, row_base, info);
    return PS_SUCCESS;
}
