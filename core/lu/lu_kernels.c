/* Portable defaults of the LU kernel family (lu_kernels.h), from the base entries: obviously
 * right over fast (each pivot is read back to the host); tests run them against every backend's
 * own kernels. */
#include "lu/lu_kernels.h"

#include <stddef.h>
#include <stdint.h>

/* Sets info[0] = value unless an earlier zero pivot already set it. */
static ps_status record_zero_pivot(ps__backend *be, void *info, int value) {
    int32_t cur;
    ps__mat im = {info, 0, 1};
    PS__TRY(be->ops->download(be, PS__INT32, 1, 1, im, &cur, 1));
    if (cur != 0) return PS_SUCCESS;
    int32_t v = value;
    return be->ops->upload(be, PS__INT32, 1, 1, &v, 1, im);
}

static ps_status default_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a,
                                     void *ipiv, size_t ipiv_off, int row_base, void *info) {
    for (int i = 0; i < n && i < m; i++) {
        int p;
        PS__TRY(be->ops->iamax(be, dt, m - i, ps__mat_col(a, i, i), &p));
        p += i;
        int32_t piv = row_base + p;
        ps__mat pm = {ipiv, ipiv_off + (size_t)i, 1};
        PS__TRY(be->ops->upload(be, PS__INT32, 1, 1, &piv, 1, pm));
        ps__scalar pv;
        ps__mat pa = ps__mat_at(a, p, i);
        PS__TRY(be->ops->read_elements(be, dt, pa.buf, 1, &pa.off, &pv));
        double pivot = ps__scalar_value(dt, pv);
        if (pivot != 0.0) {
            if (p != i)
                PS__TRY(be->ops->swap(be, dt, n, ps__mat_row(a, i, 0), ps__mat_row(a, p, 0)));
            ps__scalar r = ps__scalar_of(dt, 1.0 / pivot);
            PS__TRY(be->ops->scal(be, dt, m - i - 1, &r, ps__mat_col(a, i + 1, i)));
        } else {
            PS__TRY(record_zero_pivot(be, info, row_base + i + 1));
        }
        if (i + 1 < n) {
            ps__scalar minus_one = ps__scalar_of(dt, -1.0);
            PS__TRY(be->ops->ger(be, dt, m - i - 1, n - i - 1, &minus_one, ps__mat_col(a, i + 1, i),
                                 ps__mat_row(a, i, i + 1), ps__mat_at(a, i + 1, i + 1)));
        }
    }
    return PS_SUCCESS;
}

static int default_panel_width(ps__backend *be, ps__dtype dt, int m) {
    (void)be, (void)dt, (void)m;
    return 8;
}

static const ps__lu_kernels defaults = {
    .header = {PS__LU_KERNELS_ABI, sizeof(ps__lu_kernels)},
    .getrf_panel = default_getrf_panel,
    .panel_width = default_panel_width,
};

_Static_assert(offsetof(ps__lu_kernels, getrf_panel) == sizeof(ps__family_header),
               "a family table is its header, then function pointers");

const ps__lu_kernels *ps__lu_kernels_defaults(void) {
    return &defaults;
}
