/* Portable defaults of the Cholesky kernel family (chol_kernels.h), from the base entries:
 * column by column with each pivot read back to the host. */
#include "chol/chol_kernels.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>

/* Cholesky column by column (left-looking, LAPACK dpotf2): each pivot is read back to the host. */
static ps_status default_potrf_panel(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                                     void *info, int index_base) {
    int32_t cur;
    ps__mat im = {info, 0, 1};
    PS__TRY(be->ops->download(be, PS__INT32, 1, 1, im, &cur, 1));
    if (cur != 0) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    int lower = uplo == PS__LOWER;
    for (int j = 0; j < n; j++) {
        /* The computed part of row j (lower) or column j (upper), left of / above the pivot. */
        ps__vec done = lower ? ps__mat_row(a, j, 0) : ps__mat_col(a, 0, j);
        ps__scalar sq = ps__scalar_of(dt, 0.0), ajj;
        if (j > 0) PS__TRY(be->ops->dot(be, dt, j, done, done, &sq));
        ps__mat pa = ps__mat_at(a, j, j);
        PS__TRY(be->ops->read_elements(be, dt, pa.buf, 1, &pa.off, &ajj));
        double d = ps__scalar_value(dt, ajj) - ps__scalar_value(dt, sq);
        if (!(d > 0)) {
            ps__scalar dv = ps__scalar_of(dt, d);
            PS__TRY(be->ops->upload(be, dt, 1, 1, &dv, 1, pa));
            int32_t v = index_base + j + 1;
            return be->ops->upload(be, PS__INT32, 1, 1, &v, 1, im);
        }
        ps__scalar s = ps__scalar_of(dt, sqrt(d)), r = ps__scalar_of(dt, 1.0 / sqrt(d));
        PS__TRY(be->ops->upload(be, dt, 1, 1, &s, 1, pa));
        if (j + 1 == n) break;
        /* The rest of column j (lower) or row j (upper): subtract the computed part, scale. */
        ps__vec rest = lower ? ps__mat_col(a, j + 1, j) : ps__mat_row(a, j, j + 1);
        if (j > 0) {
            if (lower)
                PS__TRY(be->ops->gemv(be, dt, PS__NOTRANS, n - j - 1, j, &minus_one,
                                      ps__mat_at(a, j + 1, 0), done, &one, rest));
            else
                PS__TRY(be->ops->gemv(be, dt, PS__TRANS, j, n - j - 1, &minus_one,
                                      ps__mat_at(a, 0, j + 1), done, &one, rest));
        }
        PS__TRY(be->ops->scal(be, dt, n - j - 1, &r, rest));
    }
    return PS_SUCCESS;
}

int ps__chol_failed_on_host(ps__backend *be, void *info) {
    void *word;
    return be->ops->host_alias(be, info, &word) == PS_SUCCESS && *(const int32_t *)word != 0;
}

static ps_status default_potrf_tall(ps__backend *be, ps__dtype dt, ps__uplo uplo, int m, int n,
                                    ps__mat a, void *info, int index_base) {
    PS__TRY(ps__chol(be)->potrf_panel(be, dt, uplo, n, a, info, index_base));
    if (m <= n || ps__chol_failed_on_host(be, info)) return PS_SUCCESS;
    ps__scalar one = ps__scalar_of(dt, 1.0);
    if (uplo == PS__LOWER)
        return be->ops->trsm(be, dt, PS__RIGHT, PS__LOWER, PS__TRANS, PS__NONUNIT, m - n, n, &one,
                             a, ps__mat_at(a, n, 0));
    return be->ops->trsm(be, dt, PS__LEFT, PS__UPPER, PS__TRANS, PS__NONUNIT, n, m - n, &one, a,
                         ps__mat_at(a, 0, n));
}

static int default_potrf_width(ps__backend *be, ps__dtype dt) {
    (void)be, (void)dt;
    return 16;
}

static const ps__chol_kernels defaults = {
    .header = {PS__CHOL_KERNELS_ABI, sizeof(ps__chol_kernels)},
    .potrf_panel = default_potrf_panel,
    .potrf_width = default_potrf_width,
    .potrf_tall = default_potrf_tall,
};

_Static_assert(offsetof(ps__chol_kernels, potrf_panel) == sizeof(ps__family_header),
               "a family table is its header, then function pointers");

const ps__chol_kernels *ps__chol_kernels_defaults(void) {
    return &defaults;
}
