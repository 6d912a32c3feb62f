/*
 * The 2 x 2 corner arithmetic every WZ implementation shares (backends mirror it in their own
 * language): Gaussian elimination of C^T = [c00 c10; c01 c11] with partial pivoting, i.e. of the
 * corner C with column pivoting. The factorization divides by q and u to form W, the Z solve by
 * the same q and u, so a corner accepted by the factorization (|q|, |u| >= the safe minimum)
 * never makes the solve divide by less. Rounded to the dtype after every operation, so the
 * float results are those of float arithmetic.
 */
#ifndef PS_CORE_WZ_CORNER_H
#define PS_CORE_WZ_CORNER_H

#include "backend.h"

#include <math.h>

typedef struct ps__wz_pivot {
    int swap;    /* |c01| > |c00|: the pivot is c01 */
    double q, s; /* the pivot row of C^T: (c00, c10) or (c01, c11) */
    double l, u; /* multiplier and the second pivot */
} ps__wz_pivot;

static inline double ps__wz_round(ps__dtype dt, double v) {
    return dt == PS__DOUBLE ? v : (double)(float)v;
}

static inline ps__wz_pivot ps__wz_corner_pivot(ps__dtype dt, double c00, double c01, double c10,
                                               double c11) {
    ps__wz_pivot p;
    p.swap = fabs(c01) > fabs(c00);
    p.q = p.swap ? c01 : c00;
    p.s = p.swap ? c11 : c10;
    p.l = ps__wz_round(dt, (p.swap ? c00 : c01) / p.q);
    p.u = ps__wz_round(dt, (p.swap ? c10 : c11) - ps__wz_round(dt, p.l * p.s));
    return p;
}

/* C x = r: y0' = r0/q, y1 = (r1 - s y0')/u, y0 = y0' - l y1, x = (y0, y1), swapped back. */
static inline void ps__wz_corner_solve(ps__dtype dt, const ps__wz_pivot *p, double r0, double r1,
                                       double *x0, double *x1) {
    double y0 = ps__wz_round(dt, r0 / p->q);
    double y1 = ps__wz_round(dt, ps__wz_round(dt, r1 - ps__wz_round(dt, p->s * y0)) / p->u);
    y0 = ps__wz_round(dt, y0 - ps__wz_round(dt, p->l * y1));
    *x0 = p->swap ? y1 : y0;
    *x1 = p->swap ? y0 : y1;
}

#endif
