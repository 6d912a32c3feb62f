/*
 * WZ kernels for both precisions (-DPS_DOUBLE selects double, -DPS_WG the work-group size of
 * the one-work-group kernels). Layouts and rules: the wz_* entries of core/backend.h; the
 * arithmetic mirrors the CPU oracle (backend_cpu/cpu_wz_real.h) and core/wz/wz_corner.h.
 */

#define A_(i, j) a[(ulong)(i) + (ulong)(j) * (ulong)lda]

/* Work-group argmax of v over (value, row) pairs: the largest value, ties to the smaller row;
 * every work-item gets the winning row. */
static int wg_argmax(real bv, int bi, __local real *val, __local int *row) {
    int lid = get_local_id(0);
    val[lid] = bv;
    row[lid] = bi;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = PS_WG / 2; s > 0; s >>= 1) {
        if (lid < s) {
            real v2 = val[lid + s];
            int i2 = row[lid + s];
            if (v2 > val[lid] || (v2 == val[lid] && i2 < row[lid])) {
                val[lid] = v2;
                row[lid] = i2;
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    int r = row[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

static void swap_rows(__global real *a, int lda, int ncols, int r1, int r2) {
    if (r1 == r2) return;
    for (int j = get_local_id(0); j < ncols; j += PS_WG) {
        real t = A_(r1, j);
        A_(r1, j) = A_(r2, j);
        A_(r2, j) = t;
    }
}

/* Pivot rows of a step: row lo takes the first largest |a(i,c0)| of [lo, hi), then row r1 the
 * first row of [lo+1, hi) maximizing |a(lo,c0) a(i,c1) - a(lo,c1) a(i,c0)|; swaps over ncols. */
static void pick_rows(__global real *a, int lda, int lo, int hi, int r1, int c0, int c1, int ncols,
                      __local real *val, __local int *row, int *p_out, int *q_out) {
    real bv = -1;
    int bi = hi;
    for (int i = lo + get_local_id(0); i < hi; i += PS_WG)
        if (fabs(A_(i, c0)) > bv) {
            bv = fabs(A_(i, c0));
            bi = i;
        }
    int p = wg_argmax(bv, bi, val, row);
    if (p == hi) p = lo; /* every |a(i,c0)| NaN: no interchange, as the oracle */
    swap_rows(a, lda, ncols, lo, p);
    barrier(CLK_GLOBAL_MEM_FENCE);
    /* the pivot row scaled by a power of two to at most 1/2 in magnitude, exactly, so that the
     * products neither overflow nor underflow (the CPU oracle does the same) */
    real u0 = A_(lo, c0), u1 = A_(lo, c1), m = fmax(fabs(u0), fabs(u1));
    int e = 0;
    if (m > 0 && isfinite(m)) frexp(m, &e);
    u0 = ldexp(u0, -e - 1), u1 = ldexp(u1, -e - 1);
    bv = -1;
    bi = hi;
    for (int i = lo + 1 + get_local_id(0); i < hi; i += PS_WG) {
        real d = fabs(u0 * A_(i, c1) - u1 * A_(i, c0));
        if (d > bv) {
            bv = d;
            bi = i;
        }
    }
    int q = wg_argmax(bv, bi, val, row);
    if (q == hi) q = lo + 1; /* every determinant NaN: the oracle's default partner */
    swap_rows(a, lda, ncols, r1, q);
    barrier(CLK_GLOBAL_MEM_FENCE);
    *p_out = p;
    *q_out = q;
}

/* [w0 w1] C = [a(i,c0) a(i,c1)] for rows [e0, e1) by elimination of C^T with partial pivoting;
 * a singular corner (a pivot below the safe minimum) zeroes them instead and returns 0. */
static int eliminate(__global real *a, int lda, int e0, int e1, int c0, int c1, real c00, real c01,
                     real c10, real c11) {
    int swap = fabs(c01) > fabs(c00);
    real q = swap ? c01 : c00, s = swap ? c11 : c10;
    real l = (swap ? c00 : c01) / q, u = (swap ? c10 : c11) - l * s;
    int ok = fabs(q) >= PS_SAFE_MIN && fabs(u) >= PS_SAFE_MIN;
    for (int i = e0 + get_local_id(0); i < e1; i += PS_WG) {
        if (!ok) {
            A_(i, c0) = 0;
            A_(i, c1) = 0;
            continue;
        }
        real x0 = A_(i, c0), x1 = A_(i, c1);
        real ra = swap ? x1 : x0, rb = swap ? x0 : x1;
        real w1 = (rb - l * ra) / u;
        A_(i, c0) = (ra - s * w1) / q;
        A_(i, c1) = w1;
    }
    return ok;
}

__kernel __attribute__((reqd_work_group_size(PS_WG, 1, 1))) void
ps_wz_corner(int n, int k, __global real *base, ulong off, int lda, __global int *ipiv,
             __global int *info, int pivoting) {
    __local real val[PS_WG];
    __local int row[PS_WG];
    __global real *a = base + off;
    int lid = get_local_id(0), k2 = n - 1 - k;
    if (k == k2) {
        if (lid == 0) {
            ipiv[k] = k;
            if (!(fabs(A_(k, k)) >= PS_SAFE_MIN) && info[0] == 0) info[0] = k + 1;
        }
        return;
    }
    int p = k, q = k2;
    if (pivoting) pick_rows(a, lda, k, k2 + 1, k2, k, k2, n, val, row, &p, &q);
    if (lid == 0) {
        ipiv[k] = p;
        ipiv[k2] = q;
    }
    if (!eliminate(a, lda, k + 1, k2, k, k2, A_(k, k), A_(k, k2), A_(k2, k), A_(k2, k2)) &&
        lid == 0 && info[0] == 0)
        info[0] = k + 1;
}

__kernel __attribute__((reqd_work_group_size(PS_WG, 1, 1))) void
ps_wz_panel(int m, int w, __global real *base, ulong off, int lda, __global real *zsub, ulong zoff,
            int zinc, __global int *ipiv, ulong ipiv_off, int row_base, __global int *info,
            int pivoting) {
    __local real val[PS_WG];
    __local int row[PS_WG];
    __global real *a = base + off;
    __global int *piv = ipiv + ipiv_off;
    int lid = get_local_id(0);
    for (int s = 0; 2 * s < w; s++) {
        int t0 = 2 * s, t1 = t0 + 1, step = row_base / 2 + s + 1;
        if (t1 == w) { /* the middle 1 x 1 step */
            int p = t0;
            if (pivoting) {
                real bv = -1;
                int bi = m;
                for (int i = t0 + lid; i < m; i += PS_WG)
                    if (fabs(A_(i, t0)) > bv) {
                        bv = fabs(A_(i, t0));
                        bi = i;
                    }
                p = wg_argmax(bv, bi, val, row);
                if (p == m) p = t0; /* an all-NaN column */
                swap_rows(a, lda, w, t0, p);
                barrier(CLK_GLOBAL_MEM_FENCE);
            }
            real pv = A_(t0, t0);
            int ok = fabs(pv) >= PS_SAFE_MIN;
            for (int i = t1 + lid; i < m; i += PS_WG) A_(i, t0) = ok ? A_(i, t0) / pv : 0;
            if (lid == 0) {
                piv[t0] = row_base + p;
                if (!ok && info[0] == 0) info[0] = step;
            }
            barrier(CLK_GLOBAL_MEM_FENCE);
            continue;
        }
        int p = t0, q = t1;
        if (pivoting) pick_rows(a, lda, t0, m, t1, t0, t1, w, val, row, &p, &q);
        real c00 = A_(t0, t0), c01 = A_(t0, t1), c10 = A_(t1, t0), c11 = A_(t1, t1);
        barrier(CLK_GLOBAL_MEM_FENCE); /* every work-item has read the corner */
        if (lid == 0) {
            piv[t0] = row_base + p;
            piv[t1] = row_base + q;
            zsub[zoff + (ulong)s * (ulong)zinc] = c10;
            A_(t1, t0) = 0;
        }
        int ok = eliminate(a, lda, t1 + 1, m, t0, t1, c00, c01, c10, c11);
        if (!ok && lid == 0 && info[0] == 0) info[0] = step;
        if (ok)
            for (int i = t1 + 1 + lid; i < m; i += PS_WG) {
                real w0 = A_(i, t0), w1 = A_(i, t1);
                for (int j = t1 + 1; j < w; j++) A_(i, j) -= w0 * A_(t0, j) + w1 * A_(t1, j);
            }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

static int nat_of(int n, int t) {
    return t % 2 == 0 ? t / 2 : n - 1 - (t - 1) / 2;
}
static int pos_of(int n, int r) {
    return 2 * r <= n - 1 ? 2 * r : 2 * (n - 1 - r) + 1;
}

/* One work-item per destination element (a gather either way). */
__kernel void ps_wz_reorder(int n, int ncols, int square, int to_steps, __global const real *src,
                            ulong soff, int lds, __global real *dst, ulong doff, int ldd,
                            __global real *zsub, ulong zoff, int zinc, int has_zsub) {
    int i = get_global_id(0), j = get_global_id(1);
    if (i >= n || j >= ncols) return;
    int si = to_steps ? nat_of(n, i) : pos_of(n, i);
    int sj = !square ? j : to_steps ? nat_of(n, j) : pos_of(n, j);
    real v = src[soff + (ulong)si + (ulong)sj * (ulong)lds];
    if (square && has_zsub) {
        /* the corner's lower-left entry: step order (2s+1, 2s), natural (n-1-s, s) */
        int t = to_steps ? i : si, u = to_steps ? j : sj;
        if (t % 2 == 1 && u == t - 1) {
            __global real *z = zsub + zoff + (ulong)(u / 2) * (ulong)zinc;
            if (to_steps) {
                *z = v;
                v = 0;
            } else {
                v = *z;
            }
        }
    }
    dst[doff + (ulong)i + (ulong)j * (ulong)ldd] = v;
}

/* One work-item per right-hand side: the oracle's 2 x 2 block back substitution. */
__kernel void ps_wz_zsolve(int nb, int nrhs, __global const real *base, ulong off, int lda,
                           __global const real *zsub, ulong zoff, int zinc, __global real *x,
                           ulong xoff, int ldx) {
    int c = get_global_id(0);
    if (c >= nrhs) return;
    __global const real *a = base + off;
    __global real *xc = x + xoff + (ulong)c * (ulong)ldx;
    int t = nb;
    if (nb % 2) {
        t = nb - 1;
        xc[t] /= A_(t, t);
    }
    while (t > 0) {
        int t0 = t - 2, t1 = t - 1;
        real r0 = xc[t0], r1 = xc[t1];
        for (int j = t; j < nb; j++) {
            r0 -= A_(t0, j) * xc[j];
            r1 -= A_(t1, j) * xc[j];
        }
        real u00 = A_(t0, t0), u01 = A_(t0, t1), u10 = zsub[zoff + (ulong)(t0 / 2) * (ulong)zinc],
             u11 = A_(t1, t1);
        int swap = fabs(u01) > fabs(u00);
        real q = swap ? u01 : u00, s = swap ? u11 : u10;
        real l = (swap ? u00 : u01) / q, u = (swap ? u10 : u11) - l * s;
        real y0 = r0 / q, y1 = (r1 - s * y0) / u;
        y0 = y0 - l * y1;
        xc[t0] = swap ? y1 : y0;
        xc[t1] = swap ? y0 : y1;
        t = t0;
    }
}
