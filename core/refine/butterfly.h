/* The butterfly entry of the refinement's kernel family (refine_kernels.h) defined on the host:
 * the default, the CPU backend and the tests' oracle share it. */
#ifndef PS_CORE_REFINE_BUTTERFLY_H
#define PS_CORE_REFINE_BUTTERFLY_H

#include <math.h>

#define PS__SQRT_HALF 0.70710678118654752440

/* The number of orbits of a butterfly of order n (n / 4, none without one) and the slots a
 * dimension splits into: the orbits, then one slot per index beyond them. */
static inline int ps__butterfly_orbits(int n, const void *w) {
    return w ? n / 4 : 0;
}
static inline int ps__butterfly_slots(int n, const void *w) {
    return n - 3 * ps__butterfly_orbits(n, w);
}
/* The indices of slot s (count returned: 4 for an orbit, else 1). */
static inline int ps__butterfly_slot(int n, const void *w, int s, int index[4]) {
    int q = ps__butterfly_orbits(n, w);
    if (s >= q) {
        index[0] = 4 * q + (s - q);
        return 1;
    }
    for (int a = 0; a < 4; a++) index[a] = s + a * q;
    return 4;
}

/* x = T x on orbit p of the butterfly of order n with host weights w (transposed: x = T^T x,
 * which is how T acts on a row from the right). */
static inline void ps__butterfly_orbit(const double *w, int n, int p, int transposed, double x[4]) {
    int q = n / 4;
    const double *u = w + p, *v = w + n + p; /* level 0 and level 1 at the orbit's first index */
    /* pairs in application order: level 0 first for T, level 1 first for T^T */
    static const int pairs[2][2][2] = {{{0, 2}, {1, 3}}, {{0, 1}, {2, 3}}};
    for (int step = 0; step < 2; step++) {
        int level = transposed ? 1 - step : step;
        const double *wl = level ? v : u;
        for (int k = 0; k < 2; k++) {
            int a = pairs[level][k][0], b = pairs[level][k][1];
            double wa = wl[a * q], wb = wl[b * q];
            double xa = x[a], xb = x[b];
            if (transposed) {
                x[a] = wa * (xa + xb) * PS__SQRT_HALF;
                x[b] = wb * (xa - xb) * PS__SQRT_HALF;
            } else {
                x[a] = (wa * xa + wb * xb) * PS__SQRT_HALF;
                x[b] = (wa * xa - wb * xb) * PS__SQRT_HALF;
            }
        }
    }
}

/* One block of the butterfly entry: the values x[a][b] = alpha src(rows[a], cols[b]) (nr x nc,
 * each 4 or 1) transformed in place, T_left on each column when nr = 4 (row slot p) and T_right
 * on each row when nc = 4 (column slot q). */
static inline void ps__butterfly_block(const double *left, int rows, int p, int nr,
                                       const double *right, int cols, int q, int nc,
                                       double x[4][4]) {
    if (nr == 4)
        for (int b = 0; b < nc; b++) {
            double c[4] = {x[0][b], x[1][b], x[2][b], x[3][b]};
            ps__butterfly_orbit(left, rows, p, 0, c);
            for (int a = 0; a < 4; a++) x[a][b] = c[a];
        }
    if (nc == 4)
        for (int a = 0; a < nr; a++) ps__butterfly_orbit(right, cols, q, 1, x[a]);
}

#endif
