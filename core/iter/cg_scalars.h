/* The conjugate-gradient step's scalar part, one definition for the portable default
 * (core/iter/iter_kernels.c) and the backends' kernels (header only, for the modules and
 * CUDA device code). */
#ifndef PS_CORE_ITER_CG_SCALARS_H
#define PS_CORE_ITER_CG_SCALARS_H

/* The conjugate-gradient step's scalar block, by element. */
enum {
    PS__CG_GAMMA = 0, /* (r, u) of the last step */
    PS__CG_RR,        /* (r, r): the residual of the iterate the last step measured */
    PS__CG_DENOM,     /* (p, A p) of the last step's update */
    PS__CG_BEST,      /* the smallest rr of an iterate so far */
    PS__CG_ALPHA,     /* the last step's alpha; 0 before the first update */
    PS__CG_STOP,      /* why the iteration stopped (PS__CG_STOP_*), 0 while it runs */
    PS__CG_SCALARS
};
enum { PS__CG_STOP_CONVERGED = 1, PS__CG_STOP_PQ, PS__CG_STOP_NOT_FINITE, PS__CG_STOP_RZ };
#ifdef __CUDACC__
#define PS__HOST_DEVICE __host__ __device__
#else
#define PS__HOST_DEVICE
#endif
/* The scalar part of a conjugate-gradient step as cg_step defines it: from the block s (in, and
 * out on return) and the step's dot products gamma = (r, u), delta = (w, u), rr = (r, r), each
 * already rounded to the data's precision, sets the block and returns whether the vectors are
 * to be updated, with *alpha and *beta (beta 0 on the first update: p = u, s = w), and whether
 * x is the best iterate so far (*save). single: the data are float (alpha, beta and the
 * denominator are rounded to it). One definition for the portable default and the kernels. */
static inline PS__HOST_DEVICE double ps__cg_round(int single, double v) {
    return single ? (double)(float)v : v;
}
static inline PS__HOST_DEVICE int ps__cg_scalars(double *s, double gamma, double delta, double rr,
                                                 double stop_rr, int last, int single,
                                                 double *alpha, double *beta, int *save) {
    *save = rr < s[PS__CG_BEST];
    if (*save) s[PS__CG_BEST] = rr;
    const double alpha_old = s[PS__CG_ALPHA], gamma_old = s[PS__CG_GAMMA];
    s[PS__CG_GAMMA] = gamma;
    s[PS__CG_RR] = rr;
    s[PS__CG_STOP] = rr <= stop_rr     ? PS__CG_STOP_CONVERGED
                     : !(rr - rr == 0) ? PS__CG_STOP_NOT_FINITE
                     : gamma == 0      ? PS__CG_STOP_RZ
                                       : 0;
    if (s[PS__CG_STOP] != 0 || last) return 0;
    /* (p, A p) = (u, w) + beta (u, A p_old) and (u, A p_old) = -gamma / alpha_old, since r is
     * M^-1-orthogonal to r_old and A p_old = (r_old - r) / alpha_old (Chronopoulos and Gear) */
    *beta = alpha_old != 0 ? ps__cg_round(single, gamma / gamma_old) : 0;
    const double denom =
        alpha_old != 0 ? ps__cg_round(single, delta - *beta * gamma / alpha_old) : delta;
    s[PS__CG_DENOM] = denom;
    if (!(denom > 0)) {
        s[PS__CG_STOP] = PS__CG_STOP_PQ;
        return 0;
    }
    *alpha = ps__cg_round(single, gamma / denom);
    s[PS__CG_ALPHA] = *alpha;
    return 1;
}
#endif
