/*
 * Where GMRES-IR's Arnoldi steps come from (docs/PERFORMANCE.md): one dlatms matrix
 * (mode 3, singular values spread geometrically; DMAX 1) refined by the same FGMRES-IR in double
 * (restart 30, inner tolerance 1e-6, LAPACK dsgesv's stopping test, classical steps until one does
 * not halve the residual) with float factors of several origins:
 *   - sgetrf on the matrix rounded to float (a float LU, as ps_dsgesv computes in its float modes);
 *   - dgetrf, each factor entry then rounded to float (float storage, double arithmetic);
 *   - a blocked LU (blocked_lu below) in float, with its trailing matrix in double, with a double
 *     LU of the first n/32, n/16, n/8, n/4 or n/2 columns before a float LU of the rest, and
 *     with every product of the float factors exact (dgemm);
 *   - with a fifth argument float-solves: classical refinement solving in float arithmetic
 *     (as ps_dsgesv's classical steps do) with a double LU rounded, a head of n/8 or n/16, and
 *     sgetrf.
 *   - with a fifth argument float-operator: GMRES's inner products with A made
 *     with A rounded to float (half the bytes of each Arnoldi step's product; the outer residual
 *     stays A's in double), and with A's own, each at inner tolerances 1e-6, 1e-3 and 1e-2;
 *     last, the float operator at 1e-2 moving to A's and 1e-6 after an outer step that contracts
 *     the residual less than 50x (ps_dsgesv's rule with PORTSOLVE_IR_FLOAT_OPERATOR). The factors
 * are blocked_lu's in float, the trailing matrix rounded after every update to BITS significant
 * bits (a sixth argument; 24, float, by default): factors as poor as n = 32768's at a small n,
 * where sgetrf's are good enough for classical refinement. (Random relative noise of up to 1e-4 on
 * sgetrf's factors was not: n = 1024, cond 1e6 still took 5-7 classical steps.)
 *   - with a fifth argument tournament: the same blocked float LU (BITS likewise)
 *     with partial pivoting, then with tournament pivoting (CALU) in its panels, leaves of 64,
 *     256 and 1024 rows and of CHUNK (a seventh argument). A CPU experiment on LAPACKE,
 * tmglib and OpenBLAS, built with the tests (not run by CTest):
 *   BUILD/tools/experiments/ir_factor_accuracy N COND [SEED [NB [float-solves | float-operator
 * [BITS] | tournament [BITS [CHUNK]]]]]
 */
#include <lapacke.h>
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <float.h>
static int n;
static float *F;
static int *piv;
static double *A;
static const double *Aop; /* the matrix of GMRES's inner products: A, or A rounded to float */
static double inner_tol = 1e-6;
static double
    switch_contraction;        /* float operator: back to A after an outer step contracting less */
static const double *A_own;    /* A itself, for that switch */
static int trailing_bits = 24; /* blocked_lu's trailing matrix, once rounded: significant bits */
static double to_bits(double v) {
    if (trailing_bits >= 24 || v == 0 || !isfinite(v)) return (double)(float)v;
    int e;
    double f = frexp(v, &e);
    return ldexp(rint(ldexp(f, trailing_bits)), e - trailing_bits);
}
static void precond(const double *v, double *z) { /* z = (P L U)^-1 v, float factors, in double */
    memcpy(z, v, sizeof(double) * n);
    for (int i = 0; i < n; i++) {
        int p = piv[i] - 1;
        if (p != i) {
            double t = z[i];
            z[i] = z[p];
            z[p] = t;
        }
    }
    for (int j = 0; j < n; j++) {
        double xj = z[j];
        const float *c = F + (size_t)j * n;
        for (int i = j + 1; i < n; i++) z[i] -= (double)c[i] * xj;
    }
    for (int j = n - 1; j >= 0; j--) {
        const float *c = F + (size_t)j * n;
        z[j] /= (double)c[j];
        double xj = z[j];
        for (int i = 0; i < j; i++) z[i] -= (double)c[i] * xj;
    }
}
/* With float_classical, classical refinement solves in float arithmetic (sgetrs), as ps_dsgesv's
 * classical steps do; GMRES-IR's preconditioner stays in double. */
static int float_classical;
static void precond_float(const double *v, double *z) {
    float *t = malloc(sizeof(float) * n);
    for (int i = 0; i < n; i++) t[i] = (float)v[i];
    LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, 1, F, n, piv, t, n);
    for (int i = 0; i < n; i++) z[i] = t[i];
    free(t);
}
static double nrm(const double *x) {
    return cblas_dnrm2(n, x, 1);
}
/* FGMRES(m) on A d = r from 0 to rel tol, at most maxit steps; returns steps */
static int fgmres(const double *r, double *d, int m, double tol, int maxit) {
    double *V = malloc(sizeof(double) * (size_t)n * (m + 1)),
           *Z = malloc(sizeof(double) * (size_t)n * m);
    double *H = calloc((size_t)(m + 1) * m, sizeof(double)), cs[256], sn[256], g[257], y[256];
    memset(d, 0, sizeof(double) * n);
    double beta0 = nrm(r);
    int steps = 0;
    double *res = malloc(sizeof(double) * n);
    memcpy(res, r, sizeof(double) * n);
    while (steps < maxit) {
        double beta = nrm(res);
        if (beta <= tol * beta0) break;
        for (int i = 0; i < n; i++) V[i] = res[i] / beta;
        memset(g, 0, sizeof g);
        g[0] = beta;
        int j;
        for (j = 0; j < m && steps < maxit; j++) {
            steps++;
            precond(V + (size_t)j * n, Z + (size_t)j * n);
            double *w = V + (size_t)(j + 1) * n;
            cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, 1.0, Aop, n, Z + (size_t)j * n, 1, 0.0,
                        w, 1);
            for (int pass = 0; pass < 2; pass++)
                for (int i = 0; i <= j; i++) {
                    double h = cblas_ddot(n, w, 1, V + (size_t)i * n, 1);
                    H[i + j * (m + 1)] += h;
                    cblas_daxpy(n, -h, V + (size_t)i * n, 1, w, 1);
                }
            double hn = nrm(w);
            H[j + 1 + j * (m + 1)] = hn;
            cblas_dscal(n, 1 / hn, w, 1);
            for (int i = 0; i < j; i++) {
                double a = H[i + j * (m + 1)], b = H[i + 1 + j * (m + 1)];
                H[i + j * (m + 1)] = cs[i] * a + sn[i] * b;
                H[i + 1 + j * (m + 1)] = -sn[i] * a + cs[i] * b;
            }
            double a = H[j + j * (m + 1)], b = H[j + 1 + j * (m + 1)], t = hypot(a, b);
            cs[j] = a / t;
            sn[j] = b / t;
            H[j + j * (m + 1)] = t;
            H[j + 1 + j * (m + 1)] = 0;
            g[j + 1] = -sn[j] * g[j];
            g[j] = cs[j] * g[j];
            if (fabs(g[j + 1]) <= tol * beta0) {
                j++;
                break;
            }
        }
        for (int i = j - 1; i >= 0; i--) {
            double s = g[i];
            for (int k = i + 1; k < j; k++) s -= H[i + k * (m + 1)] * y[k];
            y[i] = s / H[i + i * (m + 1)];
        }
        for (int i = 0; i < j; i++) cblas_daxpy(n, y[i], Z + (size_t)i * n, 1, d, 1);
        memcpy(res, r, sizeof(double) * n);
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, Aop, n, d, 1, 1.0, res, 1);
        memset(H, 0, sizeof(double) * (m + 1) * m);
    }
    free(V);
    free(Z);
    free(H);
    free(res);
    return steps;
}
static void refine(const char *what, const double *b, double anrm) {
    double *x = malloc(sizeof(double) * n), *r = malloc(sizeof(double) * n),
           *d = malloc(sizeof(double) * n);
    if (float_classical)
        precond_float(b, x);
    else
        precond(b, x);
    int classical = 0, arnoldi = 0, outer = 0;
    double worst_prev = INFINITY;
    int gm = 0;
    for (int it = 0; it < 60; it++) {
        memcpy(r, b, sizeof(double) * n);
        cblas_dgemv(CblasColMajor, CblasNoTrans, n, n, -1.0, A, n, x, 1, 1.0, r, 1);
        double rn = fabs(r[cblas_idamax(n, r, 1)]), xn = fabs(x[cblas_idamax(n, x, 1)]);
        double ratio = rn / (xn * anrm * DBL_EPSILON * sqrt((double)n));
        if (ratio < 1) {
            printf("%-22s converged: %d classical + %d Arnoldi (%d outer)\n", what, classical,
                   arnoldi, outer);
            goto out;
        }
        if (!gm && rn > 0.5 * worst_prev) gm = 1; /* classical stalls: GMRES-IR */
        if (gm && outer > 0 && switch_contraction > 0 && Aop != A_own &&
            rn > switch_contraction * worst_prev) {
            Aop = A_own;
            inner_tol = 1e-6; /* and the default tolerance with it */
        }
        worst_prev = rn;
        if (!gm) {
            if (float_classical)
                precond_float(r, d);
            else
                precond(r, d);
            classical++;
        } else {
            arnoldi += fgmres(r, d, 30, inner_tol, 30);
            outer++;
        }
        cblas_daxpy(n, 1.0, d, 1, x, 1);
    }
    printf("%-22s not converged: %d classical + %d Arnoldi\n", what, classical, arnoldi);
out:
    free(x);
    free(r);
    free(d);
}

/* Tournament pivoting (CALU; Grigori, Demmel and Xiang): the kb pivot rows of the m x kb panel
 * P (ld ldp) chosen by a reduction tree. Each chunk of `chunk` rows picks kb candidates by
 * partial pivoting on its own rows, then pairs of candidate sets are merged by partial pivoting
 * on their kb + kb original rows, until kb rows are left, in the order the last merge pivoted
 * them. Returns those rows' indices (0-based, into P) in win. */
static int tournament_chunk = 0; /* rows a leaf of the tree; 0: partial pivoting (dgetrf) */
static void select_rows(const double *P, int ldp, int m, int kb, int *rows, int count, int *out,
                        int *nout) {
    /* partial pivoting on the listed rows of P; out = the first min(kb, count) pivot rows */
    double *T = malloc(sizeof(double) * (size_t)count * kb);
    int *ip = malloc(sizeof(int) * (count < kb ? count : kb)), *idx = malloc(sizeof(int) * count);
    for (int j = 0; j < kb; j++)
        for (int i = 0; i < count; i++) T[i + (size_t)j * count] = P[rows[i] + (size_t)j * ldp];
    for (int i = 0; i < count; i++) idx[i] = rows[i];
    int r = count < kb ? count : kb;
    LAPACKE_dgetrf(LAPACK_COL_MAJOR, count, kb, T, count, ip);
    for (int i = 0; i < r; i++) {
        int p = ip[i] - 1, t = idx[i];
        idx[i] = idx[p];
        idx[p] = t;
    }
    for (int i = 0; i < r; i++) out[i] = idx[i];
    *nout = r;
    (void)m;
    free(T), free(ip), free(idx);
}
static void tournament(const double *P, int ldp, int m, int kb, int *win) {
    int sets = (m + tournament_chunk - 1) / tournament_chunk;
    int *cand = malloc(sizeof(int) * (size_t)sets * kb), *size = malloc(sizeof(int) * sets);
    int *rows = malloc(sizeof(int) * (size_t)(m > 2 * kb ? m : 2 * kb));
    for (int c = 0; c < sets; c++) {
        int r0 = c * tournament_chunk, cnt = m - r0 < tournament_chunk ? m - r0 : tournament_chunk;
        for (int i = 0; i < cnt; i++) rows[i] = r0 + i;
        select_rows(P, ldp, m, kb, rows, cnt, cand + (size_t)c * kb, &size[c]);
    }
    while (sets > 1) {
        int next = 0;
        for (int c = 0; c < sets; c += 2) {
            int cnt = 0;
            for (int q = c; q < c + 2 && q < sets; q++)
                for (int i = 0; i < size[q]; i++) rows[cnt++] = cand[(size_t)q * kb + i];
            select_rows(P, ldp, m, kb, rows, cnt, cand + (size_t)next * kb, &size[next]);
            next++;
        }
        sets = next;
    }
    for (int i = 0; i < kb; i++) win[i] = cand[i];
    free(cand), free(size), free(rows);
}

/* The panel's factorization by tournament pivoting: the winners swapped to the top (their
 * interchanges into p, 1-based as dgetrf's), the top block factored without pivoting (the last
 * merge's own order), the rows below by L21 = A21 U11^-1. */
static void tournament_panel(double *P, int ldp, int m, int kb, int *p) {
    int *win = malloc(sizeof(int) * kb), *order = malloc(sizeof(int) * m),
        *where = malloc(sizeof(int) * m);
    tournament(P, ldp, m, kb, win);
    for (int i = 0; i < m; i++) order[i] = where[i] = i;
    for (int i = 0; i < kb; i++) { /* row win[i] (an original index) into position i */
        int at = where[win[i]];
        p[i] = at + 1;
        int a = order[i], b = order[at];
        order[i] = b, order[at] = a;
        where[b] = i, where[a] = at;
    }
    LAPACKE_dlaswp(LAPACK_COL_MAJOR, kb, P, ldp, 1, kb, p, 1);
    for (int j = 0; j < kb; j++) /* unpivoted LU of the top block */
        for (int i = j + 1; i < kb; i++) {
            double l = P[i + (size_t)j * ldp] /= P[j + (size_t)j * ldp];
            for (int c = j + 1; c < kb; c++) P[i + (size_t)c * ldp] -= l * P[j + (size_t)c * ldp];
        }
    if (m > kb)
        cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, m - kb, kb,
                    1.0, P, ldp, P + kb, ldp);
    free(win), free(order), free(where);
}

/* Blocked right-looking LU, nb columns a panel, into F (float) and piv. Panels by dgetrf in double
 * on the trailing matrix, the factors rounded to float as they are made. The updates of the block
 * steps that start before column exact_until multiply the float factors exactly (dgemm, products
 * accumulated in double); the later ones in float (sgemm). With double_trail the trailing matrix
 * stays in double throughout; without, it is rounded to float from exact_until on (a double LU
 * of the first columns, then a float LU of the rest). */
static void blocked_lu(int nb, int exact_until, int double_trail) {
    double *W = malloc(sizeof(double) * (size_t)n * n);
    memcpy(W, A, sizeof(double) * (size_t)n * n);
    float *Lf = malloc(sizeof(float) * (size_t)n * nb),
          *Uf = malloc(sizeof(float) * (size_t)nb * n), *Cf = malloc(sizeof(float) * (size_t)n * n);
    double *Ld = malloc(sizeof(double) * (size_t)n * nb),
           *Ud = malloc(sizeof(double) * (size_t)nb * n);
    int rounded = 0; /* the trailing matrix is now held in float */
    for (int k = 0; k < n; k += nb) {
        int kb = n - k < nb ? n - k : nb, m = n - k, rest = n - k - kb, exact = k < exact_until;
        if (!exact && !double_trail && !rounded) {
            for (int j = k; j < n; j++)
                for (int i = k; i < n; i++) W[i + (size_t)j * n] = (float)W[i + (size_t)j * n];
            rounded = 1;
        }
        int *p = piv + k;
        if (tournament_chunk > 0)
            tournament_panel(W + k + (size_t)k * n, n, m, kb, p);
        else
            LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, kb, W + k + (size_t)k * n, n, p);
        for (int j = 0; j < kb; j++)
            for (int i = 0; i < m; i++) {
                double *e = W + k + i + (size_t)(k + j) * n;
                *e = (float)*e;
            }
        for (int i = 0; i < kb; i++) p[i] += k;
        LAPACKE_dlaswp(LAPACK_COL_MAJOR, k, W, n, k + 1, k + kb, piv, 1);
        if (rest <= 0) continue;
        LAPACKE_dlaswp(LAPACK_COL_MAJOR, rest, W + (size_t)(k + kb) * n, n, k + 1, k + kb, piv, 1);
        /* U12 = L11^-1 A12 in double with the float L11, rounded to float */
        cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, kb, rest, 1.0,
                    W + k + (size_t)k * n, n, W + k + (size_t)(k + kb) * n, n);
        for (int j = 0; j < rest; j++)
            for (int i = 0; i < kb; i++) {
                double *e = W + k + i + (size_t)(k + kb + j) * n;
                *e = (float)*e;
            }
        double *A22 = W + k + kb + (size_t)(k + kb) * n;
        for (int j = 0; j < kb; j++)
            for (int i = 0; i < rest; i++) {
                Lf[i + (size_t)j * rest] = (float)W[k + kb + i + (size_t)(k + j) * n];
                Ld[i + (size_t)j * rest] = Lf[i + (size_t)j * rest];
            }
        for (int j = 0; j < rest; j++)
            for (int i = 0; i < kb; i++) {
                Uf[i + (size_t)j * kb] = (float)W[k + i + (size_t)(k + kb + j) * n];
                Ud[i + (size_t)j * kb] = Uf[i + (size_t)j * kb];
            }
        if (exact) {
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rest, rest, kb, -1.0, Ld, rest,
                        Ud, kb, 1.0, A22, n);
            continue;
        }
        cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rest, rest, kb, 1.0f, Lf, rest, Uf,
                    kb, 0.0f, Cf, rest);
        for (int j = 0; j < rest; j++)
            for (int i = 0; i < rest; i++) {
                double *e = A22 + i + (size_t)j * n, v = *e - (double)Cf[i + (size_t)j * rest];
                *e = rounded ? to_bits(v) : v;
            }
    }
    for (size_t i = 0; i < (size_t)n * n; i++) F[i] = (float)W[i];
    free(W), free(Lf), free(Uf), free(Cf), free(Ld), free(Ud);
}

int main(int argc, char **argv) {
    n = atoi(argv[1]);
    double cond = atof(argv[2]);
    int seed = argc > 3 ? atoi(argv[3]) : 1;
    A = malloc(sizeof(double) * (size_t)n * n);
    double *dd = malloc(sizeof(double) * n), *work = malloc(sizeof(double) * 3 * n);
    int iseed[4] = {seed % 4096, 7, 11, 13}, mode = 3, kl = n - 1, ku = n - 1, info;
    double dmax = 1;
    char dist = 'N', sym = 'N', pack = 'N';
    LAPACK_dlatms(&n, &n, &dist, iseed, &sym, dd, &mode, &cond, &dmax, &kl, &ku, &pack, A, &n, work,
                  &info);
    double anrm = LAPACKE_dlange(LAPACK_COL_MAJOR, 'I', n, n, A, n);
    double *b = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++) b[i] = (double)rand() / RAND_MAX - 0.5;
    F = malloc(sizeof(float) * (size_t)n * n);
    piv = malloc(sizeof(int) * n);
    for (size_t i = 0; i < (size_t)n * n; i++) F[i] = (float)A[i];
    LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, F, n, piv);
    printf("n %d cond %.0e\n", n, cond);
    Aop = A;
    if (argc > 5 && !strcmp(argv[5], "tournament")) {
        /* partial pivoting against tournament pivoting (CALU) in the same blocked float LU, its
         * trailing matrix rounded to BITS bits: leaves of CHUNK rows (a seventh argument) */
        trailing_bits = argc > 6 ? atoi(argv[6]) : 24;
        int nbt = argc > 4 ? atoi(argv[4]) : 128;
        blocked_lu(nbt, 0, 0);
        printf("blocked float LU, trailing matrix to %d bits, panels of %d\n", trailing_bits, nbt);
        refine("partial pivoting", b, anrm);
        static const int chunks[] = {0, 64, 256, 1024};
        for (int c = 0; c < 4; c++) {
            int ch = argc > 7 && c == 0 ? atoi(argv[7]) : chunks[c];
            if (ch <= 0 || ch < nbt) continue;
            tournament_chunk = ch;
            blocked_lu(nbt, 0, 0);
            char what[48];
            snprintf(what, sizeof what, "tournament, leaves %d", ch);
            refine(what, b, anrm);
        }
        return 0;
    }
    if (argc > 5 && !strcmp(argv[5], "float-operator")) {
        trailing_bits = argc > 6 ? atoi(argv[6]) : 24;
        blocked_lu(argc > 4 ? atoi(argv[4]) : 128, 0, 0);
        printf("blocked float LU, trailing matrix to %d bits\n", trailing_bits);
        double *Af = malloc(sizeof(double) * (size_t)n * n);
        for (size_t i = 0; i < (size_t)n * n; i++) Af[i] = (float)A[i];
        static const double tols[] = {1e-6, 1e-3, 1e-2};
        A_own = A;
        for (int op = 0; op < 2; op++)
            for (int t = 0; t < 3; t++) {
                char what[48];
                Aop = op ? Af : A;
                inner_tol = tols[t];
                snprintf(what, sizeof what, "%s operator, %.0e", op ? "float" : "double", tols[t]);
                refine(what, b, anrm);
            }
        /* the float operator at 1e-2, back to A (and to 1e-6) after an outer step that contracts
         * the residual less than 50x (the tolerance-limited steps contract some 100x) */
        switch_contraction = 0.02;
        Aop = Af;
        inner_tol = 1e-2;
        refine("float, back below 50x", b, anrm);
        return 0;
    }
    refine("float LU", b, anrm);
    double *D = malloc(sizeof(double) * (size_t)n * n);
    memcpy(D, A, sizeof(double) * (size_t)n * n);
    LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, D, n, piv);
    for (size_t i = 0; i < (size_t)n * n; i++) F[i] = (float)D[i];
    refine("double LU, rounded", b, anrm);
    int nb = argc > 4 ? atoi(argv[4]) : 128;
    if (argc > 5 && !strcmp(argv[5], "float-solves")) { /* the classical steps' solves in float */
        float_classical = 1;
        refine("double LU, float solve", b, anrm);
        blocked_lu(nb, n / 8, 0);
        refine("n/8, float solve", b, anrm);
        blocked_lu(nb, n / 16, 0);
        refine("n/16, float solve", b, anrm);
        for (size_t i = 0; i < (size_t)n * n; i++) F[i] = (float)A[i];
        LAPACKE_sgetrf(LAPACK_COL_MAJOR, n, n, F, n, piv);
        refine("float LU, float solve", b, anrm);
        return 0;
    }
    blocked_lu(nb, 0, 0);
    refine("blocked, float", b, anrm);
    blocked_lu(nb, 0, 1);
    refine("double trailing", b, anrm);
    blocked_lu(nb, n / 32, 0);
    refine("double to n/32, float", b, anrm);
    blocked_lu(nb, n / 16, 0);
    refine("double to n/16, float", b, anrm);
    blocked_lu(nb, n / 8, 0);
    refine("double to n/8, float", b, anrm);
    blocked_lu(nb, n / 4, 0);
    refine("double to n/4, float", b, anrm);
    blocked_lu(nb, n / 2, 0);
    refine("double to n/2, float", b, anrm);
    blocked_lu(nb, n, 1);
    refine("exact products", b, anrm);
    return 0;
}
