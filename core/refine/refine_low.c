/* Mixed-precision refinement's low-precision side (core/refine/refine.c has the refinement): A
 * scaled and narrowed to float (through the random butterflies with RBT), its LU in the requested
 * compute mode, and GMRES-IR's inverted diagonal blocks made while that LU runs. */
#include "refine/refine_impl.h"

#include "base/check.h"
#include "base/staging.h"
#include "lu/lu.h"
#include "refine/refine_kernels.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* The butterflies' weights, 2n each, from a fixed seed: the transformation only has to be
 * independent of A, and a fixed one makes every solve reproducible. Each weight is
 * exp(r / 10), r uniform in [-1/2, 1/2) (Baboulin et al.; MAGMA's dgesv_rbt). */
static ps_status rbt_weights(refine *w) {
    int count = 2 * w->n;
    double *weights; /* both sides' at once: an upload may still read its source after it returns */
    PS__TRY(ps__scratch_host(w->scratch, 2 * (size_t)count * sizeof(double), (void **)&weights));
    uint64_t state = 0x9e3779b97f4a7c15u;
    for (int side = 0; side < 2; side++) {
        double *host = weights + (size_t)side * (size_t)count;
        for (int i = 0; i < count; i++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17; /* xorshift64 */
            double r = (double)(state >> 11) * 0x1p-53 - 0.5;
            host[i] = exp(r / 10);
        }
        PS__TRY(ps__scratch_dev(w->scratch, (size_t)count * sizeof(double), &w->rbt[side]));
        ps__mat dev = {w->rbt[side], 0, count};
        PS__TRY(w->ops->upload(w->be, PS__DOUBLE, count, 1, host, count, dev));
    }
    return PS_SUCCESS;
}

/* refine_impl.h says what it does. */
ps_status ps__refine_narrow(refine *w, int cols, ps__mat src, ps__mat dst, const void *right,
                            int transposed, int *overflow) {
    if (overflow) PS__TRY(ps__zero_info(w->ctx, w->flag));
    if (transposed)
        PS__TRY(ps__refine(w->be)->convert_transposed(w->be, PS__DOUBLE, PS__FLOAT, w->n, cols,
                                                      w->scale, src, dst, w->flag));
    else if (w->rbt[0])
        PS__TRY(ps__refine(w->be)->butterfly(w->be, PS__DOUBLE, PS__FLOAT, w->n, cols, w->scale,
                                             w->rbt[0], right, src, dst, w->flag));
    else
        PS__TRY(
            w->ops->convert(w->be, PS__DOUBLE, PS__FLOAT, w->n, cols, w->scale, src, dst, w->flag));
    return overflow ? ps__read_info(w->ctx, w->flag, overflow) : PS_SUCCESS;
}

/* max |m(i,j)| of the n x n matrix m of dt: one iamax a chunk of columns, the chunk read in
 * place where m.ld = n and otherwise first copied into a contiguous buffer of at most
 * CONTIGUOUS_BYTES (an iamax over the padding between columns would read what is there). */
#define CONTIGUOUS_BYTES ((size_t)64 << 20)
static ps_status max_abs(refine *w, ps__dtype dt, ps__mat m, double *amax) {
    int n = w->n, cols = INT_MAX / n; /* columns per iamax call: its count is an int */
    size_t es = ps__dtype_size(dt);
    void *contiguous = NULL;
    if (m.ld != n) {
        size_t fit = CONTIGUOUS_BYTES / ((size_t)n * es);
        if (fit < (size_t)cols) cols = fit > 0 ? (int)fit : 1;
        PS__TRY(ps__scratch_dev(w->scratch, (size_t)cols * (size_t)n * es, &contiguous));
    }
    *amax = 0;
    for (int c0 = 0; c0 < n; c0 += cols) {
        int cw = n - c0 < cols ? n - c0 : cols, at;
        ps__vec chunk = {m.buf, m.off + (size_t)c0 * (size_t)n, 1};
        if (contiguous) {
            PS__TRY(w->ops->copy2d(w->be, dt, n, cw, ps__mat_at(m, 0, c0),
                                   (ps__mat){contiguous, 0, n}));
            chunk = (ps__vec){contiguous, 0, 1};
        }
        PS__TRY(w->ops->iamax(w->be, dt, cw * n, chunk, &at));
        size_t off = chunk.off + (size_t)at;
        double v;
        if (dt == PS__DOUBLE) {
            PS__TRY(w->ops->read_elements(w->be, dt, chunk.buf, 1, &off, &v));
        } else {
            float f;
            PS__TRY(w->ops->read_elements(w->be, dt, chunk.buf, 1, &off, &f));
            v = f;
        }
        if (fabs(v) > *amax) *amax = fabs(v);
    }
    return PS_SUCCESS;
}

/* FP16X3 holds its operands' parts in FP16 (largest 65504, and the GEMM scales them by up to
 * 2^6): the narrowed matrix is multiplied by the power of two that brings max |a(i,j)| into
 * [1/2, 1). This also keeps a dense matrix's typical entries far above FP16's subnormals, where
 * the scaling by ||A||_inf of the FP16 mode would put them near 1/n and leave them few
 * significant bits. Exact; every right-hand side is multiplied alike, so it cancels. Here:
 * w->scale = the power of two that takes amax into [1/2, 1) (1 for amax 0). */
static void unit_max_scale(refine *w, double amax) {
    if (amax == 0) return;
    int e;
    frexp(amax, &e);        /* 2^(e-1) <= amax < 2^e */
    if (e < -100) e = -100; /* the scale stays a float (such a copy has underflowed anyway) */
    w->scale = ldexp(1.0, -e);
}

/* FP16X3's scaling from A itself, before it is narrowed (the narrowing then applies it): one
 * iamax over the double matrix, held with lda = n, where scale_to_unit_max reads the float copy
 * and then scales it, a pass more. Rounding to float may take max |a| up to 1 exactly, which
 * FP16X3's range allows. *overflow where an entry is beyond float's range, as the narrowing
 * would have found (LAPACK's dlag2s test). */
static ps_status scale_from_a(refine *w, int *overflow) {
    double amax;
    PS__TRY(max_abs(w, PS__DOUBLE, w->a, &amax));
    *overflow = amax > FLT_MAX;
    if (!*overflow) unit_max_scale(w, amax);
    return PS_SUCCESS;
}

/* FP16X3's scaling of the narrowed copy itself: its iamax, then its scal (the flow where A is not
 * narrowed straight into the LU's layout). */
static ps_status scale_to_unit_max(refine *w) {
    int n = w->n, ld = w->af.ld, cols = INT_MAX / ld; /* as max_abs */
    double amax;
    PS__TRY(max_abs(w, PS__FLOAT, w->af, &amax));
    if (amax == 0) return PS_SUCCESS;
    unit_max_scale(w, amax);
    ps__scalar s = ps__scalar_of(PS__FLOAT, w->scale);
    for (int c0 = 0; c0 < n; c0 += cols) { /* the padding between columns scaled alike */
        int cw = n - c0 < cols ? n - c0 : cols;
        ps__vec chunk = {w->af.buf, w->af.off + (size_t)c0 * (size_t)ld, 1};
        PS__TRY(w->ops->scal(w->be, PS__FLOAT, (cw - 1) * ld + n, &s, chunk));
    }
    return PS_SUCCESS;
}

/* The progress of the LU (ps__getrf_progress): from half its columns on, where its trailing
 * updates have shrunk enough to leave their lane idle while the panel's lane works, the next
 * diagonal block it has finished, inverted (one a step, so that no step's share holds the next
 * panel back). Inverting every block as soon as it was final cost the LU as much time as the
 * inverses took. */
static ps_status invert_finished(void *arg, ps__tview a, int cols) {
    refine *w = arg;
    if (cols > w->n) cols = w->n; /* the identity's columns need none */
    if (2 * (size_t)cols < (size_t)w->n) return PS_SUCCESS;
    int next = (w->blocked.ready + 1) * w->blocked.nb; /* the next block's end */
    return ps__trsv_blocked_invert(w->ctx, &w->blocked, a, next < cols ? next : cols, w->inv_flag);
}

/* Whether GMRES-IR's diagonal blocks (core/refine/trsv_blocked.c) are inverted while the LU runs,
 * as it finishes them (invert_finished), rather than after classical refinement has stalled; *early
 * = 1 with their memory taken (a shortage only answers no). On a backend with two lanes the
 * inverses then run in time the LU's update lane would spend waiting for the panel's: on an H200 at
 * n = 32768 (fp16x3) that lane idled some 95 of the LU's 276 ms, the inverses after the LU had
 * taken 28-31 ms, and early they took 20-25 ms off the solve at cond 1e6 and nothing measurable
 * from it at cond 1e2, where classical refinement converges and they go unused. ir_early_inverses:
 * 0 never, 1 on every backend, unset on those with two lanes. */
static ps_status early_inverses(refine *w, const ps_refine_options *o, int *early) {
    *early = 0;
    int lanes = w->ops->lanes(w->be);
    int want =
        w->ctx->tuning.ir_early_inverses >= 0 ? w->ctx->tuning.ir_early_inverses : lanes >= 2;
    if (!want || !o->gmres || w->rbt[0]) return PS_SUCCESS;
    int nb = ps__trsv_blocked_order(w->ctx, w->n);
    if (nb <= 0) return PS_SUCCESS;
    ps_status st = ps__scratch_dev(w->scratch, sizeof(int32_t), &w->inv_flag);
    if (!st) st = ps__trsv_blocked_open(w->scratch, w->n, nb, &w->blocked);
    if (st == PS_ERR_OUT_OF_MEMORY) {
        w->ctx->last_error[0] = '\0';
        return PS_SUCCESS;
    }
    PS__TRY(st);
    *early = 1;
    return PS_SUCCESS;
}

/* Whether A is narrowed straight into the transposed layout the LU holds it in while it factors
 * it (ps__getrf_holds_transposed; CUDA from n = 16384 in float): one pass over A where narrowing,
 * FP16X3's iamax and scaling of the float copy and the LU's in-place transpose took four (about
 * half the time from ||A||_inf to the LU's first panel on an H200). Not with RBT
 * (its LU keeps the row layout), not where the backend lacks convert_transposed, and not for FP16X3
 * with lda > n: its scaling then comes from the float copy, where scale_from_a would copy A's
 * columns into a contiguous buffer first (max_abs), a path not measured against it. */
static int narrow_transposed(refine *w, const ps_refine_options *o) {
    if (w->rbt[0] || !ps__getrf_holds_transposed(w->ctx, PS__FLOAT, w->nf)) return 0;
    if (o->precision == PS_LOWPREC_FP16X3 && w->a.ld != w->n) return 0;
    ps__mat none = {NULL, 0, 1};
    if (ps__refine(w->be)->convert_transposed(w->be, PS__DOUBLE, PS__FLOAT, 0, 0, 1.0, none, none,
                                              NULL) == PS_SUCCESS)
        return 1;
    w->ctx->last_error[0] = '\0'; /* a refusal is an answer here */
    return 0;
}

/* The low-precision LU of scale * A (RBT: of scale * L A R, pivoting within a window) into
 * w->af, as the LU of diag(that, I) of order nf; *code < 0 when it cannot be used. */
ps_status ps__refine_factor_low(refine *w, const ps_refine_options *o, int *code) {
    int overflow = 0, info = 0;
    *code = 0;
    if (o->factorization == PS_REFINE_RBT) PS__TRY(rbt_weights(w));
    int fp16x3 = o->precision == PS_LOWPREC_FP16X3, transposed = narrow_transposed(w, o);
    /* FP16X3's scale: from A before narrowing where it is narrowed transposed, else from the
     * float copy after */
    if (transposed && fp16x3) PS__TRY(scale_from_a(w, &overflow));
    if (!overflow)
        PS__TRY(ps__refine_narrow(w, w->n, w->a, w->af, w->rbt[1], transposed, &overflow));
    if (!overflow && fp16x3 && !transposed) PS__TRY(scale_to_unit_max(w));
    if (overflow) {
        *code = PS_REFINE_OVERFLOW;
        return PS_SUCCESS;
    }
    /* diag(A, I)^T = diag(A^T, I): the same in either layout */
    PS__TRY(ps__pad_identity(w->ctx, PS__FLOAT, w->n, w->nf, w->af));
    void *ipiv = w->ipiv; /* the identity's pivots beyond A's go to a buffer of their own */
    if (w->nf > w->n) PS__TRY(ps__scratch_dev(w->scratch, (size_t)w->nf * sizeof(int32_t), &ipiv));
    int early;
    PS__TRY(early_inverses(w, o, &early));
    ps__lu_progress progress = {.columns_final = invert_finished, .arg = w};
    PS__TRY(w->ops->set_float_compute(w->be, (ps__float_compute)o->precision));
    ps_status st = w->rbt[0] ? ps__getrf_window(w->ctx, PS__FLOAT, w->nf, w->af, ipiv, w->flag)
                             : ps__getrf_progress(w->ctx, PS__FLOAT, w->nf, w->af, ipiv, w->flag,
                                                  early ? &progress : NULL, transposed);
    /* Back to plain float GEMMs whatever happened, so later float work is unaffected. */
    ps_status reset = w->ops->set_float_compute(w->be, PS__COMPUTE_FP32);
    if (st == PS_SUCCESS) st = reset;
    if (st == PS_SUCCESS && ipiv != w->ipiv) /* A's pivots: all within its rows */
        st = ps__copy_pivots(w->ctx, w->n, ipiv, w->ipiv);
    if (st == PS_SUCCESS) st = ps__read_info(w->ctx, w->flag, &info);
    if (st == PS_SUCCESS && info > 0) *code = PS_REFINE_LOW_SINGULAR;
    /* the blocks the LU's progress did not reach (all of them where it reports none) */
    if (st == PS_SUCCESS && early && !*code)
        st =
            ps__trsv_blocked_invert(w->ctx, &w->blocked, ps__tview_as_is(w->af), w->n, w->inv_flag);
    return st;
}
