/* Gram-Schmidt's projection, shared by orthonormalize's portable default and the backends that
 * replace only its normalization (header only, for the modules). */
#ifndef PS_CORE_ITER_ORTHONORMALIZE_H
#define PS_CORE_ITER_ORTHONORMALIZE_H

#include "../backend.h"

/* The projection half of orthonormalize (classical Gram-Schmidt twice by four gemv calls:
 * col[0 .. k) = h1, col[k .. 2k) = h2, w orthogonalized), shared by the portable default and the
 * backends that only replace the normalization; inline for the runtime-loaded modules. */
static inline ps_status ps__orthonormalize_project(ps__backend *be, ps__dtype dt, int n, int k,
                                                   ps__mat v, ps__vec w, ps__vec col) {
    ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0),
               minus_one = ps__scalar_of(dt, -1.0);
    if (n == 0 && k > 0) { /* empty projections are 0 (BLAS gemv would not write them) */
        ps__mat h = {col.buf, col.off, 1};
        PS__TRY(be->ops->fill(be, dt, 1, 2 * k, &zero, h));
    }
    for (int pass = 0; pass < 2 && k > 0 && n > 0; pass++) {
        ps__vec h = ps__vec_at(col, (size_t)pass * (size_t)k);
        PS__TRY(be->ops->gemv(be, dt, PS__TRANS, n, k, &one, v, w, &zero, h));
        PS__TRY(be->ops->gemv(be, dt, PS__NOTRANS, n, k, &minus_one, v, h, &one, w));
    }
    return PS_SUCCESS;
}

#endif
