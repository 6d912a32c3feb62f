/*
 * Portable defaults of the iterative solvers' entries, built from the BLAS entries: every
 * reduction comes back to the host, as the solvers did before these entries existed. A backend
 * whose queue runs apart from the host (CUDA) replaces them with kernels that keep the scalars
 * on the device, so the host can read them a step late.
 */
#include "backend_defaults_iter.h"

#include <math.h>

ps_status ps__default_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src) {
    (void)be, (void)dt, (void)slot, (void)count, (void)src;
    return PS_SUCCESS; /* fetch_wait reads src, which the caller promised not to change */
}

ps_status ps__default_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                                 void *host) {
    (void)slot;
    ps__mat m = {src.buf, src.off, count > 0 ? count : 1};
    return be->ops->download(be, dt, count, 1, m, host, count > 0 ? count : 1);
}

/* The scalar block between the device (dt) and host doubles. */
static ps_status read_block(ps__backend *be, ps__dtype dt, ps__vec blk, double *s) {
    ps__scalar raw[PS__CG_SCALARS];
    ps__mat m = {blk.buf, blk.off, PS__CG_SCALARS};
    PS__TRY(be->ops->download(be, dt, PS__CG_SCALARS, 1, m, raw, PS__CG_SCALARS));
    ps__values_to_double(dt, raw, PS__CG_SCALARS, s);
    return PS_SUCCESS;
}

static ps_status write_block(ps__backend *be, ps__dtype dt, const double *s, ps__vec blk) {
    ps__scalar raw[PS__CG_SCALARS];
    ps__values_from_double(dt, s, PS__CG_SCALARS, raw);
    ps__mat m = {blk.buf, blk.off, PS__CG_SCALARS};
    return be->ops->upload(be, dt, PS__CG_SCALARS, 1, raw, PS__CG_SCALARS, m);
}

static ps_status dot(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y, double *out) {
    ps__scalar v;
    PS__TRY(be->ops->dot(be, dt, n, x, y, &v));
    *out = ps__scalar_value(dt, v);
    return PS_SUCCESS;
}

/* The step itself (without the fetch). */
static ps_status cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v, ps__vec in,
                         ps__vec out, double stop_rr) {
    double s[PS__CG_SCALARS], pq;
    PS__TRY(read_block(be, dt, in, s));
    if (s[PS__CG_SAVE] != 0) PS__TRY(be->ops->copy(be, dt, n, v->x, v->xbest));
    s[PS__CG_SAVE] = 0;
    if (s[PS__CG_STOP] != 0) return write_block(be, dt, s, out);
    PS__TRY(dot(be, dt, n, v->p, v->q, &pq));
    if (!(pq > 0)) {
        s[PS__CG_PQ] = pq;
        s[PS__CG_STOP] = PS__CG_STOP_PQ;
        return write_block(be, dt, s, out);
    }
    double alpha = s[PS__CG_RZ] / pq, rz_new, rr;
    ps__scalar a = ps__scalar_of(dt, alpha), minus_a = ps__scalar_of(dt, -alpha);
    PS__TRY(be->ops->axpy(be, dt, n, &a, v->p, v->x));
    PS__TRY(be->ops->axpy(be, dt, n, &minus_a, v->q, v->r));
    PS__TRY(dot(be, dt, n, v->r, v->r, &rr));
    if (v->dinv.buf) {
        PS__TRY(be->ops->copy(be, dt, n, v->r, v->z));
        PS__TRY(be->ops->vmul(be, dt, n, v->dinv, v->z));
        PS__TRY(dot(be, dt, n, v->r, v->z, &rz_new));
    } else {
        rz_new = rr;
    }
    ps__scalar one = ps__scalar_of(dt, 1.0), beta = ps__scalar_of(dt, rz_new / s[PS__CG_RZ]);
    PS__TRY(be->ops->axpby(be, dt, n, &one, v->dinv.buf ? v->z : v->r, &beta, v->p));
    ps__cg_finish(s, rz_new, rr, pq, stop_rr);
    return write_block(be, dt, s, out);
}

ps_status ps__default_cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v,
                              ps__vec in, ps__vec out, double stop_rr, int fetch_slot) {
    PS__TRY(cg_step(be, dt, n, v, in, out, stop_rr));
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, PS__CG_SCALARS, out);
}

ps_status ps__default_orthonormalize(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v,
                                     ps__vec w, ps__vec col, int fetch_slot) {
    ps__scalar nrm;
    PS__TRY(ps__orthonormalize_project(be, dt, n, k, v, w, col));
    PS__TRY(be->ops->nrm2(be, dt, n, w, &nrm));
    double h = ps__scalar_value(dt, nrm);
    if (h > 0 && isfinite(h)) {
        ps__scalar inv = ps__scalar_of(dt, 1 / h);
        PS__TRY(be->ops->scal(be, dt, n, &inv, w));
    }
    ps__mat m = {col.buf, col.off + 2 * (size_t)k, 1};
    PS__TRY(be->ops->upload(be, dt, 1, 1, &nrm, 1, m));
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, 2 * k + 1, col);
}
