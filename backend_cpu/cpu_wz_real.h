/*
 * The CPU backend's WZ kernels for one precision (the oracle of the other backends): included by
 * cpu_wz.c with REAL, SUFFIX and SAFE_MIN defined. The layouts and the rules they follow are
 * those of the wz_* entries in core/backend.h.
 */
#define PS__CAT2(a, b) a##b
#define PS__CAT(a, b)  PS__CAT2(a, b)
#define FN(name)       PS__CAT(PS__CAT(name, _), SUFFIX)
#define A_(i, j)       a[(size_t)(i) + (size_t)(j) * (size_t)lda]

static REAL FN(wz_abs)(REAL x) {
    return x < 0 ? -x : x;
}

static void FN(wz_swap_rows)(int c_from, int c_to, REAL *a, int lda, int r1, int r2) {
    if (r1 == r2) return;
    for (int j = c_from; j < c_to; j++) {
        REAL t = A_(r1, j);
        A_(r1, j) = A_(r2, j);
        A_(r2, j) = t;
    }
}

/* The pivot rows of a step: r0 takes the first row of [lo, hi) with the largest |a(i,c0)|
 * (swapped into row lo over columns [s0, s1)), then lo + 1.. is searched for the partner
 * maximizing |a(lo,c0) a(i,c1) - a(lo,c1) a(i,c0)|, swapped into row r1. */
static void FN(wz_pick)(REAL *a, int lda, int lo, int hi, int r1, int c0, int c1, int s0, int s1,
                        int *p_out, int *q_out) {
    int p = lo;
    REAL best = FN(wz_abs)(A_(lo, c0));
    for (int i = lo + 1; i < hi; i++)
        if (FN(wz_abs)(A_(i, c0)) > best) {
            best = FN(wz_abs)(A_(i, c0));
            p = i;
        }
    FN(wz_swap_rows)(s0, s1, a, lda, lo, p);
    /* the pivot row scaled by a power of two to at most 1/2 in magnitude, so that the products
     * below neither overflow nor underflow for entries anywhere in REAL's range */
    REAL m = FN(wz_abs)(A_(lo, c0)) > FN(wz_abs)(A_(lo, c1)) ? FN(wz_abs)(A_(lo, c0))
                                                             : FN(wz_abs)(A_(lo, c1));
    int e = 0;
    if (m > 0 && m <= (REAL)HUGE_VAL) frexp((double)m, &e);
    REAL u0 = (REAL)ldexp((double)A_(lo, c0), -e - 1), u1 = (REAL)ldexp((double)A_(lo, c1), -e - 1);
    int q = lo + 1;
    REAL bestd = -1;
    for (int i = lo + 1; i < hi; i++) {
        REAL d = FN(wz_abs)(u0 * A_(i, c1) - u1 * A_(i, c0));
        if (d > bestd) {
            bestd = d;
            q = i;
        }
    }
    FN(wz_swap_rows)(s0, s1, a, lda, r1, q);
    *p_out = p;
    *q_out = q;
}

/*
 * [w0 w1] C = [a(i,c0) a(i,c1)] for rows [e0, e1), by Gaussian elimination with partial
 * pivoting on C^T (Cramer's rule, the papers' alpha..delta, is not backward stable for an
 * ill-conditioned corner). Returns 0, eliminating nothing, when a pivot of C^T is below
 * SAFE_MIN (the corner counts as singular).
 */
static int FN(wz_eliminate)(REAL *a, int lda, int e0, int e1, int c0, int c1, REAL c00, REAL c01,
                            REAL c10, REAL c11) {
    int swap = FN(wz_abs)(c01) > FN(wz_abs)(c00);
    REAL q = swap ? c01 : c00, s = swap ? c11 : c10;
    REAL l = (swap ? c00 : c01) / q, u = (swap ? c10 : c11) - l * s;
    if (!(FN(wz_abs)(q) >= SAFE_MIN) || !(FN(wz_abs)(u) >= SAFE_MIN)) return 0;
    for (int i = e0; i < e1; i++) {
        REAL ra = swap ? A_(i, c1) : A_(i, c0), rb = swap ? A_(i, c0) : A_(i, c1);
        REAL w1 = (rb - l * ra) / u;
        A_(i, c0) = (ra - s * w1) / q;
        A_(i, c1) = w1;
    }
    return 1;
}

/* A failed step (|det| below SAFE_MIN): no elimination, its W entries are zero, so later
 * updates through them change nothing and nothing overflows. */
static void FN(wz_fail)(REAL *a, int lda, int e0, int e1, int c0, int c1, int32_t *info, int step) {
    for (int i = e0; i < e1; i++) {
        A_(i, c0) = 0;
        if (c1 >= 0) A_(i, c1) = 0;
    }
    if (*info == 0) *info = step;
}

static void FN(wz_corner)(int n, int k, REAL *a, int lda, int32_t *ipiv, int32_t *info,
                          int pivoting) {
    int k2 = n - 1 - k;
    if (k == k2) {
        ipiv[k] = k;
        if (!(FN(wz_abs)(A_(k, k)) >= SAFE_MIN)) FN(wz_fail)(a, lda, 0, 0, k, -1, info, k + 1);
        return;
    }
    int p = k, q = k2;
    if (pivoting) FN(wz_pick)(a, lda, k, k2 + 1, k2, k, k2, 0, n, &p, &q);
    ipiv[k] = p;
    ipiv[k2] = q;
    if (!FN(wz_eliminate)(a, lda, k + 1, k2, k, k2, A_(k, k), A_(k, k2), A_(k2, k), A_(k2, k2)))
        FN(wz_fail)(a, lda, k + 1, k2, k, k2, info, k + 1);
}

static void FN(wz_panel)(int m, int w, REAL *a, int lda, REAL *zsub, int zinc, int32_t *ipiv,
                         int row_base, int32_t *info, int pivoting) {
    for (int s = 0; 2 * s < w; s++) {
        int t0 = 2 * s, t1 = t0 + 1, step = row_base / 2 + s + 1;
        if (t1 == w) { /* the middle 1 x 1 step: partial pivoting on column t0 */
            int p = t0;
            if (pivoting)
                for (int i = t0 + 1; i < m; i++)
                    if (FN(wz_abs)(A_(i, t0)) > FN(wz_abs)(A_(p, t0))) p = i;
            FN(wz_swap_rows)(0, w, a, lda, t0, p);
            ipiv[t0] = row_base + p;
            REAL piv = A_(t0, t0);
            if (!(FN(wz_abs)(piv) >= SAFE_MIN)) {
                FN(wz_fail)(a, lda, t0 + 1, m, t0, -1, info, step);
                continue;
            }
            for (int i = t0 + 1; i < m; i++) A_(i, t0) /= piv;
            continue;
        }
        int p = t0, q = t1;
        if (pivoting) FN(wz_pick)(a, lda, t0, m, t1, t0, t1, 0, w, &p, &q);
        ipiv[t0] = row_base + p;
        ipiv[t1] = row_base + q;
        REAL c00 = A_(t0, t0), c01 = A_(t0, t1), c10 = A_(t1, t0), c11 = A_(t1, t1);
        zsub[(size_t)s * (size_t)zinc] = c10;
        A_(t1, t0) = 0;
        if (!FN(wz_eliminate)(a, lda, t1 + 1, m, t0, t1, c00, c01, c10, c11)) {
            FN(wz_fail)(a, lda, t1 + 1, m, t0, t1, info, step);
            continue;
        }
        for (int j = t1 + 1; j < w; j++) {
            REAL z0 = A_(t0, j), z1 = A_(t1, j);
            for (int i = t1 + 1; i < m; i++) A_(i, j) -= A_(i, t0) * z0 + A_(i, t1) * z1;
        }
    }
}

/* Natural position of step-order index t. */
static int FN(wz_nat)(int n, int t) {
    return t % 2 == 0 ? t / 2 : n - 1 - (t - 1) / 2;
}

static void FN(wz_reorder)(int n, int ncols, int square, int to_steps, const REAL *src, int lds,
                           REAL *dst, int ldd, REAL *zsub, int zinc) {
    for (int u = 0; u < ncols; u++) {
        int cu = square ? FN(wz_nat)(n, u) : u;
        for (int t = 0; t < n; t++) {
            int rt = FN(wz_nat)(n, t);
            if (to_steps)
                dst[t + (size_t)u * ldd] = src[rt + (size_t)cu * lds];
            else
                dst[rt + (size_t)cu * ldd] = src[t + (size_t)u * lds];
        }
    }
    if (!square || !zsub) return;
    for (int s = 0; 2 * s + 1 < n; s++) {
        if (to_steps) {
            zsub[(size_t)s * zinc] = src[(n - 1 - s) + (size_t)s * lds];
            dst[(2 * s + 1) + (size_t)(2 * s) * ldd] = 0;
        } else {
            dst[(n - 1 - s) + (size_t)s * ldd] = zsub[(size_t)s * zinc];
        }
    }
}

static void FN(wz_zsolve)(int nb, int nrhs, const REAL *a, int lda, const REAL *zsub, int zinc,
                          REAL *x, int ldx) {
    for (int c = 0; c < nrhs; c++) {
        REAL *xc = x + (size_t)c * ldx;
        int t = nb;
        if (nb % 2) {
            t = nb - 1;
            xc[t] /= A_(t, t);
        }
        while (t > 0) {
            int t0 = t - 2, t1 = t - 1;
            REAL r0 = xc[t0], r1 = xc[t1];
            for (int j = t; j < nb; j++) {
                r0 -= A_(t0, j) * xc[j];
                r1 -= A_(t1, j) * xc[j];
            }
            /* the corner C = [u00 u01; u10 u11] by elimination with column pivoting, the same
             * pivots q and u as the factorization (core/wz/wz_corner.h) */
            REAL u00 = A_(t0, t0), u01 = A_(t0, t1), u10 = zsub[(size_t)(t0 / 2) * zinc],
                 u11 = A_(t1, t1);
            int swap = FN(wz_abs)(u01) > FN(wz_abs)(u00);
            REAL q = swap ? u01 : u00, s = swap ? u11 : u10;
            REAL l = (swap ? u00 : u01) / q, u = (swap ? u10 : u11) - l * s;
            REAL y0 = r0 / q, y1 = (r1 - s * y0) / u;
            y0 = y0 - l * y1;
            xc[t0] = swap ? y1 : y0;
            xc[t1] = swap ? y0 : y1;
            t = t0;
        }
    }
}

#undef A_
#undef FN
#undef PS__CAT
#undef PS__CAT2
