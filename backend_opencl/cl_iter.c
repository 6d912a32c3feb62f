/* The OpenCL backend's conjugate-gradient step and GMRES's orthonormalize on the kernels of
 * kernels_cl/iter.cl: launches on the in-order queue and no transfer, so the solvers' host loops
 * (one step behind the device, core/iter/iter_krylov.c and core/iter/iter_gmres.c) wait once per
 * iteration, for the block they fetch (cl_fetch.c), instead of once per dot product or norm, as the
 * portable defaults built from CLBlast calls do. GMRES's projections are kernels of their own
 * too: CLBlast's transposed gemv reads each column with one work-item. */
#include "cl_internal.h"
#include "../core/iter/cg_scalars.h"
#include "../core/iter/orthonormalize.h"

#include <string.h>

/* Work-items per group and the most groups (kernels_cl/iter.cl: PS_CG_LOCAL; the work buffer
 * holds PS_CL_ITER_WORK elements). */
#define PS_CL_CG_LOCAL 64

static ps_status launch(ps__backend *be, ps__dtype dt, const char *name, int nargs,
                        const size_t *sizes, const void *const *values, size_t groups) {
    cl_kernel k;
    PS__TRY(ps_cl_kernel(be, PS_CL_ITER, dt, name, &k));
    size_t items = groups * PS_CL_CG_LOCAL, local = PS_CL_CG_LOCAL;
    return ps_cl_launch(be, k, name, nargs, sizes, values, 1, &items, &local);
}

ps_status ps_cl_cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v, ps__vec in,
                        ps__vec out, double stop_rr, int last, int fetch_slot) {
    cl_mem work = ps_cl(be)->iter_work;
    int groups = n / PS_CL_CG_LOCAL + 1;
    if (groups > PS_CL_CG_GROUPS) groups = PS_CL_CG_GROUPS;
    int has_dinv = v->dinv.buf != NULL;
    cl_mem inb = (cl_mem)in.buf, outb = (cl_mem)out.buf, xb = (cl_mem)v->x.buf,
           rb = (cl_mem)v->r.buf, ub = (cl_mem)(has_dinv ? v->u.buf : v->r.buf),
           wb = (cl_mem)v->w.buf, pb = (cl_mem)v->p.buf, sb = (cl_mem)v->s.buf,
           xbb = (cl_mem)v->xbest.buf, db = (cl_mem)(has_dinv ? v->dinv.buf : v->r.buf);
    cl_ulong ino = in.off, oo = out.off, xo = v->x.off, ro = v->r.off,
             uo = has_dinv ? v->u.off : v->r.off, wo = v->w.off, po = v->p.off, so = v->s.off,
             xbo = v->xbest.off, dio = has_dinv ? v->dinv.off : v->r.off;
    /* xbest may be absent when no iterate improves on BEST; the kernel then never writes it */
    if (!xbb) xbb = xb, xbo = xo;
    double stop_d = stop_rr;
    float stop_f = (float)stop_rr;
    const void *stop_p = dt == PS__DOUBLE ? (const void *)&stop_d : (const void *)&stop_f;
    size_t stop_size = dt == PS__DOUBLE ? sizeof stop_d : sizeof stop_f, m = sizeof(cl_mem),
           u = sizeof(cl_ulong), i = sizeof(int);
    {
        const size_t sizes[] = {i, i, m, u, m, u, m, u, m, u, m};
        const void *const values[] = {&n,  &has_dinv, &inb, &ino, &rb,  &ro,
                                      &ub, &uo,       &wb,  &wo,  &work};
        PS__TRY(launch(be, dt, "ps_cg_dots", 11, sizes, values, (size_t)groups));
    }
    {
        const size_t sizes[] = {i, i, i, stop_size, m, u, m, u, m};
        const void *const values[] = {&groups, &has_dinv, &last, stop_p, &inb,
                                      &ino,    &outb,     &oo,   &work};
        PS__TRY(launch(be, dt, "ps_cg_scalars", 9, sizes, values, 1));
    }
    {
        const size_t sizes[] = {i, i, m, u, m, u, m, u, m, u, m, u, m, u, m, u, m, u, m};
        const void *const values[] = {&n,  &has_dinv, &xb, &xo, &xbb, &xbo, &rb, &ro,  &ub,  &uo,
                                      &wb, &wo,       &pb, &po, &sb,  &so,  &db, &dio, &work};
        PS__TRY(launch(be, dt, "ps_cg_update", 19, sizes, values, (size_t)groups));
    }
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, PS__CG_SCALARS, out);
}

/* The two classical Gram-Schmidt passes of orthonormalize on the kernels of kernels_cl/iter.cl
 * (k <= PS_CL_ORTH_MAX_K, n > 0): h = v' w into col, then w -= v h, twice. */
static ps_status project(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v, ps__vec w,
                         ps__vec col, int groups) {
    cl_mem part = ps_cl(be)->orth_part, vb = (cl_mem)v.buf, wb = (cl_mem)w.buf,
           cb = (cl_mem)col.buf;
    cl_ulong vo = v.off, wo = w.off;
    int ldv = v.ld;
    size_t m = sizeof(cl_mem), u = sizeof(cl_ulong), i = sizeof(int);
    for (int pass = 0; pass < 2; pass++) {
        cl_ulong ho = col.off + (size_t)pass * (size_t)k;
        {
            const size_t sizes[] = {i, i, m, u, i, m, u, m};
            const void *const values[] = {&n, &k, &vb, &vo, &ldv, &wb, &wo, &part};
            PS__TRY(launch(be, dt, "ps_orth_dots", 8, sizes, values, (size_t)groups));
        }
        {
            const size_t sizes[] = {i, i, m, m, u};
            const void *const values[] = {&k, &groups, &part, &cb, &ho};
            PS__TRY(launch(be, dt, "ps_orth_sum", 5, sizes, values, 1));
        }
        {
            const size_t sizes[] = {i, i, m, u, i, m, u, m, u};
            const void *const values[] = {&n, &k, &vb, &vo, &ldv, &wb, &wo, &cb, &ho};
            PS__TRY(launch(be, dt, "ps_orth_update", 9, sizes, values, (size_t)groups));
        }
    }
    return PS_SUCCESS;
}

/* CGS2 by project (or, beyond PS_CL_ORTH_MAX_K columns, the default's four CLBlast gemv calls),
 * then the norm and the division on the device: the default reads the norm back to divide on
 * the host, a wait per Arnoldi step. */
ps_status ps_cl_orthonormalize(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v, ps__vec w,
                               ps__vec col, int fetch_slot) {
    int groups = n / PS_CL_CG_LOCAL + 1;
    if (groups > PS_CL_CG_GROUPS) groups = PS_CL_CG_GROUPS;
    if (n > 0 && k > 0 && k <= PS_CL_ORTH_MAX_K)
        PS__TRY(project(be, dt, n, k, v, w, col, groups));
    else
        PS__TRY(ps__orthonormalize_project(be, dt, n, k, v, w, col));
    cl_mem work = ps_cl(be)->iter_work, wb = (cl_mem)w.buf, cb = (cl_mem)col.buf;
    cl_ulong wo = w.off, co = col.off + 2 * (size_t)k;
    size_t m = sizeof(cl_mem), u = sizeof(cl_ulong), i = sizeof(int);
    {
        const size_t sizes[] = {i, m, u, m};
        const void *const values[] = {&n, &wb, &wo, &work};
        PS__TRY(launch(be, dt, "ps_orth_partial", 4, sizes, values, (size_t)groups));
    }
    {
        const size_t sizes[] = {i, m, u, m};
        const void *const values[] = {&groups, &cb, &co, &work};
        PS__TRY(launch(be, dt, "ps_orth_norm", 4, sizes, values, 1));
    }
    {
        const size_t sizes[] = {i, m, u, m, u};
        const void *const values[] = {&n, &wb, &wo, &cb, &co};
        PS__TRY(launch(be, dt, "ps_orth_scale", 5, sizes, values, (size_t)groups));
    }
    if (fetch_slot < 0) return PS_SUCCESS;
    return be->ops->fetch_start(be, dt, fetch_slot, 2 * k + 1, col);
}

/* One kernel with y in its arguments (kernels_cl/iter.cl): the default leaves GMRES to upload y,
 * a blocking transfer that waits for the queue to drain. */
ps_status ps_cl_gmres_update_x(ps__backend *be, ps__dtype dt, int n, ps__mat v, int ky,
                               const double *y, ps__vec dinv, ps__vec x) {
    if (ky < 0 || ky > PS_CL_UPDATE_MAX_K || x.inc != 1 || (dinv.buf && dinv.inc != 1))
        return PS_ERR_NOT_SUPPORTED;
    if (n <= 0 || ky == 0) return PS_SUCCESS;
    union {
        double d[PS_CL_UPDATE_MAX_K];
        float f[PS_CL_UPDATE_MAX_K];
    } hy;
    memset(&hy, 0, sizeof hy);
    for (int c = 0; c < ky; c++) {
        if (dt == PS__DOUBLE)
            hy.d[c] = y[c];
        else
            hy.f[c] = (float)y[c];
    }
    int groups = n / PS_CL_CG_LOCAL + 1;
    if (groups > PS_CL_CG_GROUPS) groups = PS_CL_CG_GROUPS;
    int has_dinv = dinv.buf != NULL, ldv = v.ld;
    cl_mem vb = (cl_mem)v.buf, xb = (cl_mem)x.buf, db = (cl_mem)(has_dinv ? dinv.buf : x.buf);
    cl_ulong vo = v.off, xo = x.off, dio = has_dinv ? dinv.off : x.off;
    size_t m = sizeof(cl_mem), u = sizeof(cl_ulong), i = sizeof(int),
           ys = (size_t)PS_CL_UPDATE_MAX_K * ps__dtype_size(dt);
    const size_t sizes[] = {i, i, m, u, i, i, m, u, m, u, ys};
    const void *const values[] = {&n, &ky, &vb, &vo, &ldv, &has_dinv, &db, &dio, &xb, &xo, &hy};
    return launch(be, dt, "ps_gmres_update_x", 11, sizes, values, (size_t)groups);
}

const ps__iter_kernels ps_cl_iter_kernels = {
    .header = {PS__ITER_KERNELS_ABI, sizeof(ps__iter_kernels)},
    .cg_step = ps_cl_cg_step,
    .orthonormalize = ps_cl_orthonormalize,
    .gmres_update_x = ps_cl_gmres_update_x,
};
