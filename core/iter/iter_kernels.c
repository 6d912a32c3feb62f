/*
 * Portable defaults of the iterative solvers' entries, built from the BLAS entries: every
 * reduction comes back to the host, as the solvers did before these entries existed. A backend
 * whose queue runs apart from the host (CUDA) replaces them with kernels that keep the scalars
 * on the device, so the host can read them a step late.
 */
#include "iter/iter_kernels.h"
#include "base/host_values.h"
#include "iter/cg_scalars.h"
#include "iter/orthonormalize.h"
#include "base/tuning.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

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
                         ps__vec out, double stop_rr, int last) {
    double s[PS__CG_SCALARS], gamma, delta, rr, alpha = 0, beta = 0;
    PS__TRY(read_block(be, dt, in, s));
    if (s[PS__CG_STOP] != 0) return write_block(be, dt, s, out);
    int preconditioned = v->dinv.buf != NULL, first = s[PS__CG_ALPHA] == 0, save;
    PS__TRY(dot(be, dt, n, v->r, v->r, &rr));
    if (preconditioned)
        PS__TRY(dot(be, dt, n, v->r, v->u, &gamma));
    else
        gamma = rr;
    PS__TRY(dot(be, dt, n, v->w, v->u, &delta));
    int update =
        ps__cg_scalars(s, gamma, delta, rr, stop_rr, last, dt == PS__FLOAT, &alpha, &beta, &save);
    if (save) PS__TRY(be->ops->copy(be, dt, n, v->x, v->xbest));
    if (update) {
        if (first) { /* p and s may hold anything, NaN included */
            PS__TRY(be->ops->copy(be, dt, n, v->u, v->p));
            PS__TRY(be->ops->copy(be, dt, n, v->w, v->s));
        } else {
            ps__scalar one = ps__scalar_of(dt, 1.0), b = ps__scalar_of(dt, beta);
            PS__TRY(be->ops->axpby(be, dt, n, &one, v->u, &b, v->p));
            PS__TRY(be->ops->axpby(be, dt, n, &one, v->w, &b, v->s));
        }
        ps__scalar a = ps__scalar_of(dt, alpha), minus_a = ps__scalar_of(dt, -alpha);
        PS__TRY(be->ops->axpy(be, dt, n, &a, v->p, v->x));
        PS__TRY(be->ops->axpy(be, dt, n, &minus_a, v->s, v->r));
        if (preconditioned) {
            PS__TRY(be->ops->copy(be, dt, n, v->r, v->u));
            PS__TRY(be->ops->vmul(be, dt, n, v->dinv, v->u));
        }
    }
    return write_block(be, dt, s, out);
}

static ps_status default_cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v,
                                 ps__vec in, ps__vec out, double stop_rr, int last,
                                 int fetch_slot) {
    PS__TRY(cg_step(be, dt, n, v, in, out, stop_rr, last));
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, PS__CG_SCALARS, out);
}

static ps_status default_orthonormalize(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v,
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

/* A product and orthonormalize per step (the backend's own entries), each step's norm read back
 * so that nothing is written after a breakdown. Only when tuning arnoldi_composed=1 asks
 * for it, so that tests can run GMRES's path for fused steps on backends that have none;
 * otherwise, and with dinv (the product would need a vector apart from its result),
 * PS_ERR_NOT_SUPPORTED: per-step calls cost the same without the waste of steps queued past
 * convergence. */
static ps_status default_arnoldi_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a,
                                       ps__vec dinv, ps__mat v, int j0, int j1, ps__vec col,
                                       int col_stride, int fetch_slot) {
    if (!be->tuning->arnoldi_composed || dinv.buf) return PS_ERR_NOT_SUPPORTED;
    ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0);
    for (int j = j0; j < j1; j++) {
        ps__vec vj = {v.buf, v.off + (size_t)j * (size_t)v.ld, 1};
        ps__vec w = {v.buf, v.off + (size_t)(j + 1) * (size_t)v.ld, 1};
        ps__vec cj = ps__vec_at(col, (size_t)(j - j0) * (size_t)col_stride);
        PS__TRY(be->ops->gemv(be, dt, PS__NOTRANS, n, n, &one, a, vj, &zero, w));
        PS__TRY(ps__iter(be)->orthonormalize(be, dt, n, j + 1, v, w, cj, -1));
        ps__scalar raw;
        ps__mat hm = {cj.buf, cj.off + 2 * (size_t)(j + 1), 1};
        PS__TRY(be->ops->download(be, dt, 1, 1, hm, &raw, 1));
        double h = ps__scalar_value(dt, raw);
        if (!(h > 0 && isfinite(h))) break;
    }
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, (j1 - j0) * col_stride, col);
}

/* x += V y by an axpy per column (y's elements as the axpys' scalars, so nothing waits for the
 * device). Only when tuning arnoldi_composed=1 asks for it and without dinv, as
 * arnoldi_steps: otherwise GMRES's own upload, gemv and axpy take fewer calls. */
static ps_status default_gmres_update_x(ps__backend *be, ps__dtype dt, int n, ps__mat v, int ky,
                                        const double *y, ps__vec dinv, ps__vec x) {
    if (!be->tuning->arnoldi_composed || dinv.buf) return PS_ERR_NOT_SUPPORTED;
    for (int c = 0; c < ky && n > 0; c++) {
        ps__vec vc = {v.buf, v.off + (size_t)c * (size_t)v.ld, 1};
        ps__scalar yc = ps__scalar_of(dt, y[c]);
        PS__TRY(be->ops->axpy(be, dt, n, &yc, vc, x));
    }
    return PS_SUCCESS;
}

/* x's update as the default gmres_update_x makes it, the residual by a copy and a product, its
 * norm and v_0 by orthonormalize against no columns, then the steps as the default
 * arnoldi_steps takes them (not the backend's, which might decline after x has changed). Only
 * when tuning arnoldi_composed=1 asks for it and without dinv, as arnoldi_steps. */
static ps_status default_arnoldi_restart(ps__backend *be, ps__dtype dt, int n, ps__mat a,
                                         ps__vec dinv, ps__vec b, ps__vec x, ps__mat v, int ky,
                                         const double *y, int j1, ps__vec out, int col_stride,
                                         int fetch_slot) {
    if (!be->tuning->arnoldi_composed || dinv.buf || j1 < 1) return PS_ERR_NOT_SUPPORTED;
    PS__TRY(default_gmres_update_x(be, dt, n, v, ky, y, dinv, x));
    ps__vec r = {v.buf, v.off, 1};
    ps__scalar one = ps__scalar_of(dt, 1.0), minus_one = ps__scalar_of(dt, -1.0);
    PS__TRY(be->ops->copy(be, dt, n, b, r));
    PS__TRY(be->ops->gemv(be, dt, PS__NOTRANS, n, n, &minus_one, a, x, &one, r));
    PS__TRY(ps__iter(be)->orthonormalize(be, dt, n, 0, v, r, out, -1));
    ps__scalar raw;
    ps__mat bm = {out.buf, out.off, 1};
    PS__TRY(be->ops->download(be, dt, 1, 1, bm, &raw, 1));
    double beta = ps__scalar_value(dt, raw);
    if (beta > 0 && isfinite(beta))
        PS__TRY(default_arnoldi_steps(be, dt, n, a, dinv, v, 0, j1, ps__vec_at(out, 1), col_stride,
                                      -1));
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, 1 + j1 * col_stride, out);
}

/* A product and the backend's own cg_step per step. Only when tuning cg_composed=1 asks
 * for it, so that tests can run CG's path for fused steps on backends that have none; otherwise
 * PS_ERR_NOT_SUPPORTED: per-step calls cost the same, and CG's driver reads each step's
 * scalars a step late. */
static ps_status default_cg_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a,
                                  const ps__cg_vectors *v, ps__vec in, ps__vec out, int count,
                                  double stop_rr, int last, int fetch_slot) {
    if (!be->tuning->cg_composed || count < 1) return PS_ERR_NOT_SUPPORTED;
    ps__scalar one = ps__scalar_of(dt, 1.0), zero = ps__scalar_of(dt, 0.0);
    for (int i = 0; i < count; i++) {
        ps__vec from = i == 0 ? in : ps__vec_at(out, (size_t)(i - 1) * PS__CG_SCALARS);
        ps__vec to = ps__vec_at(out, (size_t)i * PS__CG_SCALARS);
        PS__TRY(be->ops->gemv(be, dt, PS__NOTRANS, n, n, &one, a, v->u, &zero, v->w));
        PS__TRY(ps__iter(be)->cg_step(be, dt, n, v, from, to, stop_rr, i == last, -1));
    }
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, count * PS__CG_SCALARS, out);
}

/* Nothing reads ahead: the hint needs no action. */
static ps_status default_hold_matrix(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a) {
    (void)be, (void)dt, (void)rows, (void)cols, (void)a;
    return PS_SUCCESS;
}

/* arnoldi_steps' default has finished its steps when it returns: nothing to stop. */
static void default_arnoldi_cancel(ps__backend *be) {
    (void)be;
}

static const ps__iter_kernels defaults = {
    .header = {PS__ITER_KERNELS_ABI, sizeof(ps__iter_kernels)},
    .cg_step = default_cg_step,
    .orthonormalize = default_orthonormalize,
    .hold_matrix = default_hold_matrix,
    .arnoldi_steps = default_arnoldi_steps,
    .arnoldi_cancel = default_arnoldi_cancel,
    .arnoldi_restart = default_arnoldi_restart,
    .gmres_update_x = default_gmres_update_x,
    .cg_steps = default_cg_steps,
};

_Static_assert(offsetof(ps__iter_kernels, cg_step) == sizeof(ps__family_header),
               "a family table is its header, then function pointers");

const ps__iter_kernels *ps__iter_kernels_defaults(void) {
    return &defaults;
}
