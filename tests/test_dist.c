/*
 * The distributed layer (libportsolve_mpi) under mpirun with 4 ranks: LU and Cholesky with their
 * solves on grids 1x1, 1x4, 2x2 and 4x1, blocks of 1, 7 and 64, orders that are not multiples of
 * the block, both precisions, local arrays with LLD above their rows, judged as LAPACK's
 * testers judge (residual and factorization ratios below 30 against the gathered matrix); a
 * singular matrix and one that is not positive definite give LAPACK's info on every rank; a bad
 * descriptor on one rank is the same status and message on every rank; the device-resident
 * matrices (ps_dist_matrix) factored once and solved with twice, every driver of theirs, and
 * their argument checks.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "checks.h"
#include "base/context.h" /* the allocation failure hook and the live-buffer count */
#include "dist.h"
#include "portsolve_mpi.h"
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info, size_t);

/* The global index of local index l on process p (block-cyclic, blocks of nb from src). */
static int global_of(int l, int nb, int p, int src, int np) {
    return (l / nb * np + (p - src + np) % np) * nb + l % nb;
}

typedef struct {
    ps_grid *grid;
    MPI_Comm comm; /* the grid's ranks: the world, or this rank alone for 1 x 1 */
    int nprow, npcol, myrow, mycol, rank, size;
} grid_t;

/* A distributed m x n matrix of dt: its descriptor and this rank's local array. */
typedef struct {
    int desc[9], lrows, lcols;
    void *local;
} dmat;

/* ps_p?getrs of the precision dt: the n x nrhs system at (ia, ia) of a, right-hand sides at
 * (ia, jb) of b. */
static ps_status getrs_of(const grid_t *g, ps_dtype dt, char trans, int n, int nrhs, dmat *a,
                          int ia, const int *ipiv, dmat *b, int jb) {
    return dt == PS_DOUBLE ? ps_pdgetrs(g->grid, trans, n, nrhs, a->local, ia, ia, a->desc, ipiv,
                                        b->local, ia, jb, b->desc)
                           : ps_psgetrs(g->grid, trans, n, nrhs, a->local, ia, ia, a->desc, ipiv,
                                        b->local, ia, jb, b->desc);
}

static dmat distribute(const grid_t *g, ps_dtype dt, const double *global, int m, int n, int nb,
                       int rsrc, int csrc) {
    dmat d;
    d.lrows = ps_numroc(m, nb, g->myrow, rsrc, g->nprow);
    d.lcols = ps_numroc(n, nb, g->mycol, csrc, g->npcol);
    int lld = d.lrows + 3; /* above the rows: LLD is honoured */
    int desc[9] = {1, 0, m, n, nb, nb, rsrc, csrc, lld};
    memcpy(d.desc, desc, sizeof desc);
    d.local = calloc((size_t)lld * (size_t)(d.lcols + 1), ps_test_esize(dt));
    for (int j = 0; j < d.lcols; j++)
        for (int i = 0; i < d.lrows; i++) {
            int gi = global_of(i, nb, g->myrow, rsrc, g->nprow);
            int gj = global_of(j, nb, g->mycol, csrc, g->npcol);
            ps_test_set(dt, d.local, lld, i, j, global[gi + (size_t)gj * m]);
        }
    return d;
}

/* The whole matrix from every rank's part, on every rank. */
static double *collect(const grid_t *g, ps_dtype dt, const dmat *d, MPI_Comm comm) {
    int m = d->desc[2], n = d->desc[3], nb = d->desc[4];
    double *out = calloc((size_t)m * n + 1, sizeof *out);
    for (int j = 0; j < d->lcols; j++)
        for (int i = 0; i < d->lrows; i++) {
            int gi = global_of(i, nb, g->myrow, d->desc[6], g->nprow);
            int gj = global_of(j, nb, g->mycol, d->desc[7], g->npcol);
            out[gi + (size_t)gj * m] = ps_test_get(dt, d->local, d->desc[8], i, j);
        }
    MPI_Allreduce(MPI_IN_PLACE, out, m * n, MPI_DOUBLE, MPI_SUM, comm);
    return out;
}

static double norm1(const double *a, int m, int n) {
    double best = 0;
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < m; i++) s += fabs(a[i + (size_t)j * m]);
        if (s > best) best = s;
    }
    return best;
}

/* ||B - op(A) X||_1 / (||A||_1 ||X||_1 n eps). */
static double residual_ratio(const double *a, const double *b, const double *x, int n, int nrhs,
                             int trans, double eps) {
    double *r = malloc(sizeof *r * (size_t)n * nrhs + 1);
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) {
            double s = b[i + (size_t)c * n];
            for (int k = 0; k < n; k++)
                s -= (trans ? a[k + (size_t)i * n] : a[i + (size_t)k * n]) * x[k + (size_t)c * n];
            r[i + (size_t)c * n] = s;
        }
    double num = norm1(r, n, nrhs), den = norm1(a, n, n) * norm1(x, n, nrhs) * n * eps;
    free(r);
    return den > 0 ? num / den : num;
}

static double *random_global(int m, int n) {
    double *a = malloc(sizeof *a * (size_t)m * n + 1);
    for (size_t i = 0; i < (size_t)m * n; i++) a[i] = 2 * ps_test_rand() - 1;
    return a;
}

static double *test_matrix(ps_dtype dt, int n, char sym) {
    double *a = malloc(sizeof *a * (size_t)n * n + 1);
    CHECK(ps_test_latms_d(n, 1e3, sym, a, n) == 0, "dlatms");
    if (dt == PS_FLOAT)
        for (size_t i = 0; i < (size_t)n * n; i++) a[i] = (float)a[i];
    return a;
}

/* LU: gesv, the factorization's ratio ||P A - L U|| / (||A|| n eps), and getrs with 'T'. */
static void check_lu(const grid_t *g, ps_dtype dt, int n, int nb, int nrhs, int rsrc, int csrc) {
    MPI_Comm comm = g->comm;
    double eps = ps_test_eps(dt), *a0 = test_matrix(dt, n, 'N'), *b0 = random_global(n, nrhs);
    dmat a = distribute(g, dt, a0, n, n, nb, rsrc, csrc),
         b = distribute(g, dt, b0, n, nrhs, nb, rsrc, 0);
    int *ipiv = calloc((size_t)a.lrows + nb, sizeof *ipiv);
    ps_status st =
        dt == PS_DOUBLE
            ? ps_pdgesv(g->grid, n, nrhs, a.local, 1, 1, a.desc, ipiv, b.local, 1, 1, b.desc)
            : ps_psgesv(g->grid, n, nrhs, a.local, 1, 1, a.desc, ipiv, b.local, 1, 1, b.desc);
    CHECK(st == PS_SUCCESS, "gesv n=%d nb=%d grid %dx%d: %s (%s)", n, nb, g->nprow, g->npcol,
          ps_status_string(st), ps_grid_last_error(g->grid));
    double *x = collect(g, dt, &b, comm), *lu = collect(g, dt, &a, comm);
    double ratio = residual_ratio(a0, b0, x, n, nrhs, 0, eps);
    CHECK(ratio < PS_TEST_THRESHOLD, "gesv n=%d nb=%d grid %dx%d %s: residual ratio %g", n, nb,
          g->nprow, g->npcol, dt == PS_DOUBLE ? "d" : "s", ratio);
    /* the pivots of every row, from the ranks of process column 0 */
    int *piv = calloc((size_t)n + 1, sizeof *piv);
    if (g->mycol == 0)
        for (int l = 0; l < a.lrows; l++) piv[global_of(l, nb, g->myrow, rsrc, g->nprow)] = ipiv[l];
    MPI_Allreduce(MPI_IN_PLACE, piv, n, MPI_INT, MPI_SUM, comm);
    /* P A (the interchanges applied in order) against L U */
    double *pa = malloc(sizeof *pa * (size_t)n * n + 1), worst = 0;
    memcpy(pa, a0, sizeof *pa * (size_t)n * n);
    for (int i = 0; i < n; i++) {
        CHECK(piv[i] >= i + 1 && piv[i] <= n, "pivot %d = %d", i, piv[i]);
        if (piv[i] < i + 1 || piv[i] > n) break;
        for (int j = 0; j < n; j++) {
            double t = pa[i + (size_t)j * n];
            pa[i + (size_t)j * n] = pa[piv[i] - 1 + (size_t)j * n];
            pa[piv[i] - 1 + (size_t)j * n] = t;
        }
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int k = 0; k <= (i < j ? i : j); k++)
                s += (k == i ? 1.0 : lu[i + (size_t)k * n]) * lu[k + (size_t)j * n];
            double e = fabs(pa[i + (size_t)j * n] - s);
            if (e > worst) worst = e;
        }
    double fact = n ? worst / (norm1(a0, n, n) * n * eps) : 0;
    CHECK(fact < PS_TEST_THRESHOLD, "getrf n=%d nb=%d: factorization ratio %g", n, nb, fact);
    /* A^T X = B with the same factors */
    dmat bt = distribute(g, dt, b0, n, nrhs, nb, rsrc, 0);
    st = getrs_of(g, dt, 'T', n, nrhs, &a, 1, ipiv, &bt, 1);
    CHECK(st == PS_SUCCESS, "getrs T: %s", ps_grid_last_error(g->grid));
    double *xt = collect(g, dt, &bt, comm);
    ratio = residual_ratio(a0, b0, xt, n, nrhs, 1, eps);
    CHECK(ratio < PS_TEST_THRESHOLD, "getrs T n=%d nb=%d: residual ratio %g", n, nb, ratio);
    free(a0), free(b0), free(a.local), free(b.local), free(bt.local), free(ipiv), free(x);
    free(lu), free(xt), free(piv), free(pa);
}

/* Cholesky: posv with uplo, its residual, the factorization's ratio ||A - L L^T|| / (||A|| n eps)
 * (U^T U for 'U') from the factor the caller's array holds, and the other triangle left as it
 * was. */
static void check_chol(const grid_t *g, ps_dtype dt, char uplo, int n, int nb, int nrhs) {
    MPI_Comm comm = g->comm;
    double eps = ps_test_eps(dt), *a0 = test_matrix(dt, n, 'P'), *b0 = random_global(n, nrhs);
    /* the triangle that must not be read holds NaN */
    double *given = malloc(sizeof *given * (size_t)n * n + 1);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            given[i + (size_t)j * n] = (uplo == 'L' ? i < j : i > j) ? NAN : a0[i + (size_t)j * n];
    dmat a = distribute(g, dt, given, n, n, nb, 0, 0), b = distribute(g, dt, b0, n, nrhs, nb, 0, 0);
    ps_status st =
        dt == PS_DOUBLE
            ? ps_pdposv(g->grid, uplo, n, nrhs, a.local, 1, 1, a.desc, b.local, 1, 1, b.desc)
            : ps_psposv(g->grid, uplo, n, nrhs, a.local, 1, 1, a.desc, b.local, 1, 1, b.desc);
    CHECK(st == PS_SUCCESS, "posv %c n=%d nb=%d grid %dx%d: %s", uplo, n, nb, g->nprow, g->npcol,
          ps_grid_last_error(g->grid));
    double *x = collect(g, dt, &b, comm), *f = collect(g, dt, &a, comm);
    double ratio = residual_ratio(a0, b0, x, n, nrhs, 0, eps);
    CHECK(ratio < PS_TEST_THRESHOLD, "posv %c n=%d nb=%d grid %dx%d %s: residual ratio %g", uplo, n,
          nb, g->nprow, g->npcol, dt == PS_DOUBLE ? "d" : "s", ratio);
    double worst = 0;
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++) { /* (L L^T)(i, j) = (U^T U)(j, i), the lower triangle */
            double t = 0;
            for (int k = 0; k <= j; k++)
                t += uplo == 'L' ? f[i + (size_t)k * n] * f[j + (size_t)k * n]
                                 : f[k + (size_t)i * n] * f[k + (size_t)j * n];
            double e = fabs(a0[i + (size_t)j * n] - t);
            if (!(e <= worst)) worst = e; /* NaN too */
        }
    double fact = n ? worst / (norm1(a0, n, n) * n * eps) : 0;
    CHECK(fact < PS_TEST_THRESHOLD, "potrf %c n=%d nb=%d grid %dx%d: factorization ratio %g", uplo,
          n, nb, g->nprow, g->npcol, fact);
    int untouched = 1;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            if ((uplo == 'L' ? i < j : i > j) && !isnan(f[i + (size_t)j * n])) untouched = 0;
    CHECK(untouched, "posv %c n=%d: the other triangle was written", uplo, n);
    free(a0), free(b0), free(given), free(a.local), free(b.local), free(x), free(f);
}

/* g (big x cols) with the n x cols block src at (off, 0) (cols == big: at (off, off)); the rest
 * random. */
static double *embed(const double *src, int n, int cols, int off, int big) {
    double *g = random_global(big, cols);
    int c0 = cols == big ? off : 0;
    for (int j = 0; j < (cols == big ? n : cols); j++)
        for (int i = 0; i < n; i++) g[off + i + (size_t)(c0 + j) * big] = src[i + (size_t)j * n];
    return g;
}

/* Whether got and was agree outside the n x cols block at (off, c0) of a big-row matrix. */
static int same_outside(const double *got, const double *was, int big, int cols, int off, int c0,
                        int n, int w) {
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < big; i++)
            if (!(i >= off && i < off + n && j >= c0 && j < c0 + w) &&
                got[i + (size_t)j * big] != was[i + (size_t)j * big])
                return 0;
    return 1;
}

/* The n x n block of a big x big matrix at (off, off). */
static double *block_of(const double *g, int big, int off, int n) {
    double *b = malloc(sizeof *b * (size_t)n * n + 1);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) b[i + (size_t)j * n] = g[off + i + (size_t)(off + j) * big];
    return b;
}

/* A submatrix at (off + 1, off + 1), off two blocks, of a larger matrix, and the right-hand sides
 * from row off + 1: gesv, getrs with 'T' and posv on it alone, ScaLAPACK's pivots (counting from
 * the whole matrix's first row), nothing outside it written; right-hand sides from inside a block
 * of columns solved; A, or B's rows, starting inside a block refused with ScaLAPACK's info. */
static void check_submatrix(const grid_t *g, ps_dtype dt, int n, int nb) {
    MPI_Comm comm = g->comm;
    int off = 2 * nb, big = off + n + nb + 2, nrhs = 2, at = off + 1;
    double eps = ps_test_eps(dt), *a0 = test_matrix(dt, n, 'N'), *s0 = test_matrix(dt, n, 'P');
    double *b0 = random_global(n, nrhs);
    double *ga = embed(a0, n, big, off, big), *gs = embed(s0, n, big, off, big);
    double *gb = embed(b0, n, nrhs, off, big);
    for (size_t i = 0; dt == PS_FLOAT && i < (size_t)big * big; i++) /* as they will be stored */
        ga[i] = (float)ga[i], gs[i] = (float)gs[i];
    for (size_t i = 0; dt == PS_FLOAT && i < (size_t)big * nrhs; i++) gb[i] = (float)gb[i];
    dmat a = distribute(g, dt, ga, big, big, nb, 0, 0),
         b = distribute(g, dt, gb, big, nrhs, nb, 0, 0);
    int *ipiv = calloc((size_t)a.lrows + nb, sizeof *ipiv);
    ps_status st =
        dt == PS_DOUBLE
            ? ps_pdgesv(g->grid, n, nrhs, a.local, at, at, a.desc, ipiv, b.local, at, 1, b.desc)
            : ps_psgesv(g->grid, n, nrhs, a.local, at, at, a.desc, ipiv, b.local, at, 1, b.desc);
    CHECK(st == PS_SUCCESS, "gesv of the submatrix at %d, n=%d nb=%d: %s", at, n, nb,
          ps_grid_last_error(g->grid));
    double *xa = collect(g, dt, &b, comm), *fa = collect(g, dt, &a, comm);
    double *x = malloc(sizeof *x * (size_t)n * nrhs + 1);
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) x[i + (size_t)c * n] = xa[off + i + (size_t)c * big];
    double ratio = residual_ratio(a0, b0, x, n, nrhs, 0, eps);
    CHECK(ratio < PS_TEST_THRESHOLD, "gesv of the submatrix n=%d nb=%d: residual ratio %g", n, nb,
          ratio);
    CHECK(same_outside(fa, ga, big, big, off, off, n, n) &&
              same_outside(xa, gb, big, nrhs, off, 0, n, nrhs),
          "gesv of the submatrix n=%d nb=%d wrote outside it", n, nb);
    int bad = 0; /* the pivots of the submatrix's rows, in the whole matrix's rows */
    for (int l = 0; l < a.lrows; l++) {
        int gi = global_of(l, nb, g->myrow, 0, g->nprow);
        if (gi >= off && gi < off + n) bad |= ipiv[l] < gi + 1 || ipiv[l] > off + n;
    }
    CHECK(!bad, "gesv of the submatrix n=%d nb=%d: pivots outside rows %d..%d", n, nb, at, off + n);
    dmat bt = distribute(g, dt, gb, big, nrhs, nb, 0, 0);
    st = getrs_of(g, dt, 'T', n, nrhs, &a, at, ipiv, &bt, 1);
    double *xt = collect(g, dt, &bt, comm);
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) x[i + (size_t)c * n] = xt[off + i + (size_t)c * big];
    ratio = residual_ratio(a0, b0, x, n, nrhs, 1, eps);
    CHECK(st == PS_SUCCESS && ratio < PS_TEST_THRESHOLD,
          "getrs T of the submatrix n=%d nb=%d: %s, residual ratio %g", n, nb,
          ps_grid_last_error(g->grid), ratio);
    /* Cholesky of the same place */
    dmat s = distribute(g, dt, gs, big, big, nb, 0, 0),
         bs = distribute(g, dt, gb, big, nrhs, nb, 0, 0);
    st = dt == PS_DOUBLE
             ? ps_pdposv(g->grid, 'L', n, nrhs, s.local, at, at, s.desc, bs.local, at, 1, bs.desc)
             : ps_psposv(g->grid, 'L', n, nrhs, s.local, at, at, s.desc, bs.local, at, 1, bs.desc);
    double *xs = collect(g, dt, &bs, comm), *fs = collect(g, dt, &s, comm);
    for (int c = 0; c < nrhs; c++)
        for (int i = 0; i < n; i++) x[i + (size_t)c * n] = xs[off + i + (size_t)c * big];
    double *sub = block_of(gs, big, off, n);
    ratio = residual_ratio(sub, b0, x, n, nrhs, 0, eps);
    CHECK(st == PS_SUCCESS && ratio < PS_TEST_THRESHOLD &&
              same_outside(fs, gs, big, big, off, off, n, n),
          "posv L of the submatrix n=%d nb=%d: %s, residual ratio %g", n, nb,
          ps_grid_last_error(g->grid), ratio);
    /* right-hand sides from column 2 of a wider B, inside its first block of columns (as
     * ScaLAPACK allows), solved with gesv's factors; column 1 and the rest stay as they were */
    int wide = nb + 1;
    double *gw = malloc(sizeof *gw * (size_t)big * wide);
    for (size_t i = 0; i < (size_t)big * wide; i++) gw[i] = dt == PS_FLOAT ? 0.25f : 0.25;
    memcpy(gw + big, gb, sizeof *gw * (size_t)big * nrhs);
    dmat w = distribute(g, dt, gw, big, wide, nb, 0, 0);
    if (nb > nrhs) {
        st = getrs_of(g, dt, 'N', n, nrhs, &a, at, ipiv, &w, 2);
        double *xw = collect(g, dt, &w, comm);
        for (int c = 0; c < nrhs; c++)
            for (int i = 0; i < n; i++) x[i + (size_t)c * n] = xw[off + i + (size_t)(c + 1) * big];
        ratio = residual_ratio(a0, b0, x, n, nrhs, 0, eps);
        CHECK(st == PS_SUCCESS && ratio < PS_TEST_THRESHOLD &&
                  same_outside(xw, gw, big, wide, off, 1, n, nrhs),
              "getrs with B from column 2, n=%d nb=%d: %s, residual ratio %g", n, nb,
              ps_grid_last_error(g->grid), ratio);
        free(xw);
    }
    if (nb > 1) { /* starts inside a block, on every rank: refused as ScaLAPACK refuses them */
        st = ps_pdgesv(g->grid, n, nrhs, a.local, at + 1, at + 1, a.desc, ipiv, b.local, at + 1, 1,
                       b.desc);
        CHECK(st == PS_ERR_INVALID_ARGUMENT && ps_grid_last_info(g->grid) == -5,
              "A inside a block: %s, info %d (ia is argument 5)", ps_status_string(st),
              ps_grid_last_info(g->grid));
        st = ps_pdgetrs(g->grid, 'N', n, nrhs, a.local, at, at, a.desc, ipiv, b.local, at + 1, 1,
                        b.desc);
        CHECK(st == PS_ERR_INVALID_ARGUMENT && ps_grid_last_info(g->grid) == -11,
              "B's rows inside a block: %s, info %d (ib is argument 11)", ps_status_string(st),
              ps_grid_last_info(g->grid));
        st = ps_pdgetrs(g->grid, 'N', n, nb, a.local, at, at, a.desc, ipiv, w.local, at, 2, w.desc);
        CHECK(st == PS_ERR_NOT_SUPPORTED, "B's columns from inside a block past its end: %s, '%s'",
              ps_status_string(st), ps_grid_last_error(g->grid));
    }
    free(gw), free(w.local);
    free(a0), free(s0), free(b0), free(ga), free(gs), free(gb), free(a.local), free(b.local);
    free(ipiv), free(xa), free(fa), free(x), free(bt.local), free(xt), free(s.local);
    free(bs.local), free(xs), free(fs), free(sub);
}

/* The device-resident API's argument checks, the same status on every rank: no out, a dtype
 * that is none, a NULL local array where the rank holds some of the matrix, a NULL matrix, and
 * blocks that are not square for the factorizations. */
static void check_resident_refusals(const grid_t *g, ps_dtype dt, dmat a, ps_dist_matrix *A,
                                    ps_dist_matrix *B) {
    int ipiv[1];
    CHECK(ps_dist_matrix_create(g->grid, dt, a.desc, NULL) == PS_ERR_INVALID_ARGUMENT &&
              strstr(ps_grid_last_error(g->grid), "out is NULL"),
          "create without out: '%s'", ps_grid_last_error(g->grid));
    ps_dist_matrix *none = A;
    CHECK(ps_dist_matrix_create(g->grid, (ps_dtype)7, a.desc, &none) == PS_ERR_INVALID_ARGUMENT &&
              !none && ps_grid_last_info(g->grid) == -2,
          "create of dtype 7: '%s', info %d", ps_grid_last_error(g->grid),
          ps_grid_last_info(g->grid));
    int some = a.lrows > 0 && a.lcols > 0; /* some rank holds part of the matrix */
    MPI_Allreduce(MPI_IN_PLACE, &some, 1, MPI_INT, MPI_MAX, g->comm);
    if (some) { /* refused on every rank, also those that hold nothing */
        CHECK(ps_dist_matrix_upload(A, NULL) == PS_ERR_INVALID_ARGUMENT,
              "upload from NULL accepted");
        CHECK(ps_dist_matrix_download(A, NULL) == PS_ERR_INVALID_ARGUMENT,
              "download into NULL accepted");
    }
    CHECK(ps_dist_gesv(NULL, ipiv, B) == PS_ERR_INVALID_ARGUMENT &&
              ps_dist_potrf('L', NULL) == PS_ERR_INVALID_ARGUMENT &&
              ps_dist_potrs('L', NULL, B) == PS_ERR_INVALID_ARGUMENT,
          "a NULL matrix accepted");
    CHECK(ps_dist_potrf('X', A) == PS_ERR_INVALID_ARGUMENT, "potrf with uplo 'X' accepted");
    int wide[9];
    memcpy(wide, a.desc, sizeof wide);
    wide[5] = a.desc[4] + 1; /* NB = MB + 1 */
    ps_dist_matrix *W = NULL;
    ps_status st = ps_dist_matrix_create(g->grid, dt, wide, &W);
    CHECK(st == PS_SUCCESS, "blocks of %d x %d: %s", wide[4], wide[5], ps_grid_last_error(g->grid));
    if (st == PS_SUCCESS && wide[2] > 0) {
        int *piv = calloc((size_t)a.lrows + 1, sizeof *piv);
        CHECK(ps_dist_getrf(W, piv) == PS_ERR_INVALID_ARGUMENT &&
                  strstr(ps_grid_last_error(g->grid), "MB and NB"),
              "getrf on blocks of %d x %d: '%s'", wide[4], wide[5], ps_grid_last_error(g->grid));
        CHECK(ps_dist_gesv(W, piv, B) == PS_ERR_INVALID_ARGUMENT &&
                  ps_dist_potrf('L', W) == PS_ERR_INVALID_ARGUMENT,
              "gesv or potrf on blocks of %d x %d accepted", wide[4], wide[5]);
        free(piv);
    }
    ps_dist_matrix_destroy(W);
}

/* The device-resident matrices: A uploaded once and factored once, then solved with twice (N and
 * T) and the solutions downloaded; Cholesky the same; a right-hand side of another precision is
 * refused on every rank, and so is a bad descriptor. */
static void check_resident(const grid_t *g, ps_dtype dt, int n, int nb) {
    MPI_Comm comm = g->comm;
    double eps = ps_test_eps(dt), *a0 = test_matrix(dt, n, 'N'), *s0 = test_matrix(dt, n, 'P');
    double *b0 = random_global(n, 2);
    dmat a = distribute(g, dt, a0, n, n, nb, 0, 0), b = distribute(g, dt, b0, n, 2, nb, 0, 0);
    dmat s = distribute(g, dt, s0, n, n, nb, 0, 0);
    ps_dist_matrix *A = NULL, *B = NULL, *S = NULL, *other = NULL;
    ps_status st = ps_dist_matrix_create(g->grid, dt, a.desc, &A);
    if (st == PS_SUCCESS) st = ps_dist_matrix_create(g->grid, dt, b.desc, &B);
    if (st == PS_SUCCESS) st = ps_dist_matrix_create(g->grid, dt, s.desc, &S);
    if (st == PS_SUCCESS) st = ps_dist_matrix_upload(A, a.local);
    if (st == PS_SUCCESS) st = ps_dist_matrix_upload(S, s.local);
    CHECK(st == PS_SUCCESS && ps_dist_matrix_grid(A) == g->grid, "resident n=%d: %s", n,
          ps_grid_last_error(g->grid));
    int *ipiv = calloc((size_t)a.lrows + nb, sizeof *ipiv);
    if (st == PS_SUCCESS) st = ps_dist_getrf(A, ipiv);
    CHECK(st == PS_SUCCESS, "resident getrf n=%d nb=%d: %s", n, nb, ps_grid_last_error(g->grid));
    for (int t = 0; t < 2 && st == PS_SUCCESS; t++) {
        st = ps_dist_matrix_upload(B, b.local);
        if (st == PS_SUCCESS) st = ps_dist_getrs(t ? 'T' : 'N', A, ipiv, B);
        if (st == PS_SUCCESS) st = ps_dist_matrix_download(B, b.local);
        CHECK(st == PS_SUCCESS, "resident getrs %c: %s", t ? 'T' : 'N',
              ps_grid_last_error(g->grid));
        double *x = collect(g, dt, &b, comm);
        double ratio = residual_ratio(a0, b0, x, n, 2, t, eps);
        CHECK(ratio < PS_TEST_THRESHOLD, "resident getrs %c n=%d nb=%d grid %dx%d: ratio %g",
              t ? 'T' : 'N', n, nb, g->nprow, g->npcol, ratio);
        free(x);
        free(b.local);
        b = distribute(g, dt, b0, n, 2, nb, 0, 0);
    }
    if (st == PS_SUCCESS) st = ps_dist_matrix_upload(B, b.local);
    if (st == PS_SUCCESS) st = ps_dist_posv('L', S, B);
    if (st == PS_SUCCESS) st = ps_dist_matrix_download(B, b.local);
    CHECK(st == PS_SUCCESS, "resident posv n=%d: %s", n, ps_grid_last_error(g->grid));
    double *x = collect(g, dt, &b, comm);
    double ratio = residual_ratio(s0, b0, x, n, 2, 0, eps);
    CHECK(ratio < PS_TEST_THRESHOLD, "resident posv n=%d nb=%d: ratio %g", n, nb, ratio);
    free(x);
    /* gesv on A uploaded again, and potrf then potrs with U on S uploaded again */
    for (int chol = 0; chol < 2; chol++) {
        free(b.local);
        b = distribute(g, dt, b0, n, 2, nb, 0, 0);
        st = ps_dist_matrix_upload(chol ? S : A, chol ? s.local : a.local);
        if (st == PS_SUCCESS) st = ps_dist_matrix_upload(B, b.local);
        if (st == PS_SUCCESS) st = chol ? ps_dist_potrf('U', S) : ps_dist_gesv(A, ipiv, B);
        if (st == PS_SUCCESS && chol) st = ps_dist_potrs('U', S, B);
        if (st == PS_SUCCESS) st = ps_dist_matrix_download(B, b.local);
        CHECK(st == PS_SUCCESS, "resident %s n=%d: %s", chol ? "potrf + potrs U" : "gesv", n,
              ps_grid_last_error(g->grid));
        x = collect(g, dt, &b, comm);
        ratio = residual_ratio(chol ? s0 : a0, b0, x, n, 2, 0, eps);
        CHECK(ratio < PS_TEST_THRESHOLD, "resident %s n=%d nb=%d: ratio %g",
              chol ? "potrf + potrs U" : "gesv", n, nb, ratio);
        free(x);
    }
    x = NULL;
    /* B in the other precision: refused everywhere, nothing computed */
    st = ps_dist_matrix_create(g->grid, dt == PS_DOUBLE ? PS_FLOAT : PS_DOUBLE, b.desc, &other);
    CHECK(st == PS_SUCCESS, "the other precision's B: %s", ps_grid_last_error(g->grid));
    if (st == PS_SUCCESS)
        CHECK(ps_dist_getrs('N', A, ipiv, other) == PS_ERR_DTYPE_MISMATCH,
              "B of another precision accepted");
    /* B's rows in blocks of another size: refused everywhere with B's position as info */
    dmat other_mb = distribute(g, dt, b0, n, 2, nb + 1, 0, 0);
    ps_dist_matrix *B_mb = NULL;
    st = ps_dist_matrix_create(g->grid, dt, other_mb.desc, &B_mb);
    if (st == PS_SUCCESS) st = ps_dist_getrs('N', A, ipiv, B_mb);
    CHECK(st == PS_ERR_INVALID_ARGUMENT && ps_grid_last_info(g->grid) == -4,
          "B in blocks of %d against A's %d: %s, info %d", nb + 1, nb, ps_status_string(st),
          ps_grid_last_info(g->grid));
    ps_dist_matrix_destroy(B_mb), free(other_mb.local);
    int bad[9];
    memcpy(bad, a.desc, sizeof bad);
    bad[4] = g->rank == g->size - 1 ? 0 : bad[4]; /* MB = 0 on the last rank only */
    ps_dist_matrix *never = NULL;
    st = ps_dist_matrix_create(g->grid, dt, bad, &never);
    CHECK(st == PS_ERR_INVALID_ARGUMENT && !never, "a bad descriptor on one rank: %s",
          ps_status_string(st));
    check_resident_refusals(g, dt, a, A, B);
    ps_dist_matrix_destroy(other), ps_dist_matrix_destroy(A), ps_dist_matrix_destroy(B);
    ps_dist_matrix_destroy(S);
    free(a0), free(s0), free(b0), free(a.local), free(b.local), free(s.local), free(ipiv), free(x);
}

/* A zero column gives getrf's info from LAPACK on every rank; a matrix whose leading minor of
 * some order is not positive gives potrf's. */
static void check_failures(const grid_t *g, int n, int nb) {
    double *a0 = test_matrix(PS_DOUBLE, n, 'N');
    int zero = n / 2;
    for (int i = 0; i < n; i++) a0[i + (size_t)zero * n] = 0;
    double *ref = malloc(sizeof *ref * (size_t)n * n);
    memcpy(ref, a0, sizeof *ref * (size_t)n * n);
    int *rp = malloc(sizeof *rp * (size_t)n), info = 0;
    dgetrf_(&n, &n, ref, &n, rp, &info);
    dmat a = distribute(g, PS_DOUBLE, a0, n, n, nb, 0, 0);
    int *ipiv = calloc((size_t)a.lrows + nb, sizeof *ipiv);
    ps_status st = ps_pdgetrf(g->grid, n, n, a.local, 1, 1, a.desc, ipiv);
    CHECK(st == PS_ERR_SINGULAR && ps_grid_last_info(g->grid) == info && info > 0,
          "singular: %s, info %d, LAPACK's %d", ps_status_string(st), ps_grid_last_info(g->grid),
          info);
    free(a.local), free(ipiv), free(rp);

    double *s = test_matrix(PS_DOUBLE, n, 'P');
    int bad = n - 2 > 0 ? n - 2 : 0;
    s[bad + (size_t)bad * n] = -1;
    memcpy(ref, s, sizeof *ref * (size_t)n * n);
    dpotrf_("L", &n, ref, &n, &info, 1);
    for (int u = 0; u < 2; u++) { /* the same minor fails in either triangle */
        dmat p = distribute(g, PS_DOUBLE, s, n, n, nb, 0, 0);
        st = ps_pdpotrf(g->grid, u ? 'U' : 'L', n, p.local, 1, 1, p.desc);
        CHECK(st == PS_ERR_NOT_SPD && ps_grid_last_info(g->grid) == info && info > 0,
              "not SPD (%c): %s, info %d, LAPACK's %d", u ? 'U' : 'L', ps_status_string(st),
              ps_grid_last_info(g->grid), info);
        free(p.local);
    }
    free(s), free(a0), free(ref);
}

/* A bad descriptor on one rank only: every rank returns the same status and message. */
static void check_bad_arguments(const grid_t *g) {
    int n = 20, nb = 4;
    double *a0 = test_matrix(PS_DOUBLE, n, 'N');
    dmat a = distribute(g, PS_DOUBLE, a0, n, n, nb, 0, 0);
    int *ipiv = calloc((size_t)a.lrows + nb, sizeof *ipiv);
    static const struct { int field, value; } cases[] = {{0, 2}, {4, 0}, {6, 9}, {8, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int desc[9];
        memcpy(desc, a.desc, sizeof desc);
        if (g->rank == g->size - 1) desc[cases[c].field] = cases[c].value;
        ps_status st = ps_pdgetrf(g->grid, n, n, a.local, 1, 1, desc, ipiv);
        char msg[1024], first[1024];
        snprintf(msg, sizeof msg, "%s", ps_grid_last_error(g->grid));
        memcpy(first, msg, sizeof msg);
        MPI_Bcast(first, sizeof first, MPI_CHAR, 0, g->comm);
        int info = ps_grid_last_info(g->grid), info0 = info;
        MPI_Bcast(&info0, 1, MPI_INT, 0, g->comm);
        CHECK(st == PS_ERR_INVALID_ARGUMENT && !strcmp(msg, first) && info == info0 &&
                  info == -(700 + cases[c].field + 1),
              "bad desc field %d: %s, info %d, '%s' (rank 0: '%s')", cases[c].field + 1,
              ps_status_string(st), info, msg, first);
    }
    CHECK(ps_pdgetrf(g->grid, n - 1, n, a.local, 2, 1, a.desc, ipiv) == PS_ERR_INVALID_ARGUMENT &&
              ps_grid_last_info(g->grid) == -5,
          "ia = 2, inside a block, is refused with info -5: %d", ps_grid_last_info(g->grid));
    CHECK(ps_pdpotrf(g->grid, 'L', n - 1, a.local, 1, 2, a.desc) == PS_ERR_INVALID_ARGUMENT &&
              ps_grid_last_info(g->grid) == -6,
          "ja = 2, inside a block, is refused with info -6: %d", ps_grid_last_info(g->grid));
    CHECK(ps_pdgetrf(g->grid, n, n, a.local, 0, 1, a.desc, ipiv) == PS_ERR_INVALID_ARGUMENT &&
              ps_grid_last_info(g->grid) == -5,
          "ia = 0 (argument 5) is refused with info -5: %d", ps_grid_last_info(g->grid));
    CHECK(ps_pdgetrf(g->grid, n, n, a.local, nb + 1, 1, a.desc, ipiv) == PS_ERR_INVALID_ARGUMENT &&
              ps_grid_last_info(g->grid) == -703,
          "a matrix that overruns the descriptor is refused with info -703: %d",
          ps_grid_last_info(g->grid));
    CHECK(ps_pdpotrf(g->grid, 'X', n, a.local, 1, 1, a.desc) == PS_ERR_INVALID_ARGUMENT &&
              ps_grid_last_info(g->grid) == -2,
          "uplo 'X' is refused");
    CHECK(ps_pdgetrf(NULL, n, n, a.local, 1, 1, a.desc, ipiv) == PS_ERR_INVALID_ARGUMENT,
          "no grid");
    /* a grid shape that does not fit, on the last rank only: refused everywhere, nobody waits */
    ps_grid *never = (ps_grid *)&never;
    ps_status st = ps_grid_create(&never, g->comm, g->rank == g->size - 1 ? g->nprow + 1 : g->nprow,
                                  g->npcol, NULL);
    CHECK(st == PS_ERR_INVALID_ARGUMENT && !never, "a bad grid shape on one rank: %s",
          ps_status_string(st));
    /* B's rows distributed otherwise than A's: ScaLAPACK's info, B's MB (argument 12, field 6)
     * or ib's process row (argument 10) */
    double *b0 = random_global(n, 1);
    dmat wide = distribute(g, PS_DOUBLE, b0, n, 1, nb + 1, 0, 0);
    ps_status st_mb =
        ps_pdgesv(g->grid, n, 1, a.local, 1, 1, a.desc, ipiv, wide.local, 1, 1, wide.desc);
    CHECK(st_mb == PS_ERR_INVALID_ARGUMENT && ps_grid_last_info(g->grid) == -1206,
          "B with MB = %d against A's %d: %s, info %d", nb + 1, nb, ps_status_string(st_mb),
          ps_grid_last_info(g->grid));
    if (g->nprow > 1) {
        dmat moved = distribute(g, PS_DOUBLE, b0, n, 1, nb, 1, 0);
        ps_status st_row =
            ps_pdgesv(g->grid, n, 1, a.local, 1, 1, a.desc, ipiv, moved.local, 1, 1, moved.desc);
        CHECK(st_row == PS_ERR_INVALID_ARGUMENT && ps_grid_last_info(g->grid) == -10,
              "B's first row on another process row: %s, info %d", ps_status_string(st_row),
              ps_grid_last_info(g->grid));
        free(moved.local);
    }
    /* the scalar arguments, numbered as ScaLAPACK numbers them: refused with that info on every
     * rank, also where only the last rank passes the bad value */
    dmat rhs = distribute(g, PS_DOUBLE, b0, n, 1, nb, 0, 0);
    int last = g->rank == g->size - 1, bad_n = last ? -1 : n;
#define REFUSED(call, want_info)                                                                   \
    do {                                                                                           \
        ps_status st_ = (call);                                                                    \
        CHECK(st_ == PS_ERR_INVALID_ARGUMENT && ps_grid_last_info(g->grid) == (want_info),         \
              "%s: %s, info %d, expected %d", #call, ps_status_string(st_),                        \
              ps_grid_last_info(g->grid), want_info);                                              \
    } while (0)
    REFUSED(ps_pdgetrf(g->grid, -1, n, a.local, 1, 1, a.desc, ipiv), -2);
    REFUSED(ps_pdgetrf(g->grid, n, bad_n, a.local, 1, 1, a.desc, ipiv), -3);
    REFUSED(ps_pdgetrf(g->grid, n, n, a.local, 1, 1, a.desc, NULL), -8);
    REFUSED(ps_pdgetrs(g->grid, 'X', n, 1, a.local, 1, 1, a.desc, ipiv, rhs.local, 1, 1, rhs.desc),
            -2);
    REFUSED(
        ps_pdgetrs(g->grid, 'N', bad_n, 1, a.local, 1, 1, a.desc, ipiv, rhs.local, 1, 1, rhs.desc),
        -3);
    REFUSED(ps_pdgetrs(g->grid, 'T', n, -1, a.local, 1, 1, a.desc, ipiv, rhs.local, 1, 1, rhs.desc),
            -4);
    REFUSED(ps_pdgetrs(g->grid, 'N', n, 1, a.local, 1, 1, a.desc, NULL, rhs.local, 1, 1, rhs.desc),
            -9);
    REFUSED(ps_pdgesv(g->grid, bad_n, 1, a.local, 1, 1, a.desc, ipiv, rhs.local, 1, 1, rhs.desc),
            -2);
    REFUSED(ps_pdgesv(g->grid, n, -1, a.local, 1, 1, a.desc, ipiv, rhs.local, 1, 1, rhs.desc), -3);
    REFUSED(ps_pdgesv(g->grid, n, 1, a.local, 1, 1, a.desc, NULL, rhs.local, 1, 1, rhs.desc), -8);
    REFUSED(ps_pdpotrf(g->grid, 'L', bad_n, a.local, 1, 1, a.desc), -3);
    REFUSED(ps_pdpotrs(g->grid, 'X', n, 1, a.local, 1, 1, a.desc, rhs.local, 1, 1, rhs.desc), -2);
    REFUSED(ps_pdpotrs(g->grid, 'U', bad_n, 1, a.local, 1, 1, a.desc, rhs.local, 1, 1, rhs.desc),
            -3);
    REFUSED(ps_pdposv(g->grid, 'L', n, -1, a.local, 1, 1, a.desc, rhs.local, 1, 1, rhs.desc), -4);
#undef REFUSED
    free(rhs.local);
    free(wide.local), free(b0);
    free(a.local), free(ipiv), free(a0);
}

/* A device allocation that fails on one rank, at each of the first allocations of a gesv: the
 * same status on every rank, the caller's arrays as they were, and no device buffer left. */
static void check_out_of_memory(const grid_t *g) {
    int n = 20, nb = 4;
    ps_context *ctx = g->grid->ctx; /* the grid's own context (dist/dist.h) */
    long live = ctx->live_buffers;
    double *a0 = test_matrix(PS_DOUBLE, n, 'N'), *b0 = random_global(n, 2);
    dmat a = distribute(g, PS_DOUBLE, a0, n, n, nb, 0, 0),
         b = distribute(g, PS_DOUBLE, b0, n, 2, nb, 0, 0);
    size_t abytes = (size_t)a.desc[8] * (a.lcols + 1) * sizeof(double);
    size_t bbytes = (size_t)b.desc[8] * (b.lcols + 1) * sizeof(double);
    void *acopy = malloc(abytes), *bcopy = malloc(bbytes);
    memcpy(acopy, a.local, abytes), memcpy(bcopy, b.local, bbytes);
    int *ipiv = calloc((size_t)a.lrows + nb, sizeof *ipiv);
    for (int nth = 1; nth <= 3; nth++) {
        if (g->rank == g->size - 1) ps__context_fail_nth_alloc(ctx, nth);
        ps_status st = ps_pdgesv(g->grid, n, 2, a.local, 1, 1, a.desc, ipiv, b.local, 1, 1, b.desc);
        ps__context_fail_nth_alloc(ctx, 0);
        CHECK(st == PS_ERR_OUT_OF_MEMORY, "allocation %d failing on rank %d: %s (%s)", nth,
              g->size - 1, ps_status_string(st), ps_grid_last_error(g->grid));
        CHECK(!memcmp(acopy, a.local, abytes) && !memcmp(bcopy, b.local, bbytes),
              "allocation %d failing: the arrays were changed", nth);
        CHECK(ctx->live_buffers == live, "allocation %d failing: %ld device buffers left", nth,
              ctx->live_buffers - live);
    }
    /* getrf and potrf alone, their first two allocations */
    for (int nth = 1; nth <= 2; nth++)
        for (int chol = 0; chol < 2; chol++) {
            if (g->rank == g->size - 1) ps__context_fail_nth_alloc(ctx, nth);
            ps_status st = chol ? ps_pdpotrf(g->grid, 'L', n, a.local, 1, 1, a.desc)
                                : ps_pdgetrf(g->grid, n, n, a.local, 1, 1, a.desc, ipiv);
            ps__context_fail_nth_alloc(ctx, 0);
            CHECK(st == PS_ERR_OUT_OF_MEMORY && !memcmp(acopy, a.local, abytes) &&
                      ctx->live_buffers == live,
                  "%s, allocation %d failing: %s, %ld device buffers left",
                  chol ? "potrf" : "getrf", nth, ps_status_string(st), ctx->live_buffers - live);
        }
    CHECK(ps_pdgesv(g->grid, n, 2, a.local, 1, 1, a.desc, ipiv, b.local, 1, 1, b.desc) ==
                  PS_SUCCESS &&
              ctx->live_buffers == live,
          "gesv after the failures: %s", ps_grid_last_error(g->grid));
    free(a0), free(b0), free(a.local), free(b.local), free(acopy), free(bcopy), free(ipiv);
}

/* Every allocation of a gesv failing in turn on the last rank of a new grid (whose exchange
 * buffer is not there yet), until none is left to fail: every rank returns the same status, the
 * arrays are as they were (also where the solve's scratch fails, which is taken before the
 * factors go back) and no device buffer is left; on the MPI transport the exchange buffer's
 * failure is among them (PS_ERR_OUT_OF_HOST_MEMORY). */
static void check_each_allocation_failing(const grid_t *g) {
    int mpi = g->size > 1 && !strcmp(ps_grid_transport(g->grid), "mpi");
    grid_t f = *g;
    ps_context_options o = ps_context_options_default();
    o.backend = ps_test_backend_kind();
    ps_status st = ps_grid_create(&f.grid, g->comm, g->nprow, g->npcol, &o);
    CHECK(st == PS_SUCCESS, "a second grid: %s", ps_status_string(st));
    if (st != PS_SUCCESS) return;
    int n = 20, nb = 4, host_failures = 0, solved = 0;
    ps_context *ctx = f.grid->ctx;
    long live = ctx->live_buffers;
    double *a0 = test_matrix(PS_DOUBLE, n, 'N'), *b0 = random_global(n, 2);
    dmat a = distribute(&f, PS_DOUBLE, a0, n, n, nb, 0, 0),
         b = distribute(&f, PS_DOUBLE, b0, n, 2, nb, 0, 0);
    size_t abytes = (size_t)a.desc[8] * (a.lcols + 1) * sizeof(double);
    size_t bbytes = (size_t)b.desc[8] * (b.lcols + 1) * sizeof(double);
    void *acopy = malloc(abytes), *bcopy = malloc(bbytes);
    memcpy(acopy, a.local, abytes), memcpy(bcopy, b.local, bbytes);
    int *ipiv = calloc((size_t)a.lrows + nb, sizeof *ipiv);
    for (int nth = 1; nth <= 60 && !solved; nth++) {
        if (f.rank == f.size - 1) ps__context_fail_nth_alloc(ctx, nth);
        st = ps_pdgesv(f.grid, n, 2, a.local, 1, 1, a.desc, ipiv, b.local, 1, 1, b.desc);
        ps__context_fail_nth_alloc(ctx, 0);
        int code = (int)st, lo, hi;
        MPI_Allreduce(&code, &lo, 1, MPI_INT, MPI_MIN, f.comm);
        MPI_Allreduce(&code, &hi, 1, MPI_INT, MPI_MAX, f.comm);
        CHECK(lo == hi, "allocation %d failing on rank %d: statuses %d to %d across the ranks", nth,
              f.size - 1, lo, hi);
        CHECK(ctx->live_buffers == live, "allocation %d failing: %ld device buffers left", nth,
              ctx->live_buffers - live);
        if (st == PS_SUCCESS) { /* past every allocation */
            solved = 1;
            continue;
        }
        CHECK(st == PS_ERR_OUT_OF_MEMORY || st == PS_ERR_OUT_OF_HOST_MEMORY,
              "allocation %d failing: %s (%s)", nth, ps_status_string(st),
              ps_grid_last_error(f.grid));
        CHECK(!memcmp(acopy, a.local, abytes) && !memcmp(bcopy, b.local, bbytes),
              "allocation %d failing: the arrays were changed", nth);
        host_failures += st == PS_ERR_OUT_OF_HOST_MEMORY;
    }
    CHECK(solved, "a gesv that still fails with its first 60 allocations passing");
    CHECK(host_failures > 0 || !mpi, "no allocation of the exchange buffer failed");
    CHECK(f.grid->reserve_underruns == 0, "%ld exchanges found their reserve too small",
          f.grid->reserve_underruns);
    free(a0), free(b0), free(a.local), free(b.local), free(acopy), free(bcopy), free(ipiv);
    ps_grid_destroy(f.grid);
}

static void run_grid(MPI_Comm comm, int nprow, int npcol) {
    grid_t g = {NULL, comm, nprow, npcol, 0, 0, 0, 1};
    MPI_Comm_rank(comm, &g.rank);
    MPI_Comm_size(comm, &g.size);
    ps_context_options o = ps_context_options_default();
    o.backend = ps_test_backend_kind();
    ps_status st = ps_grid_create(&g.grid, comm, nprow, npcol, &o);
    CHECK(st == PS_SUCCESS, "grid %dx%d: %s", nprow, npcol, ps_status_string(st));
    if (st != PS_SUCCESS) return;
    ps_grid_coords(g.grid, &g.myrow, &g.mycol);
    /* NCCL only between CUDA devices, one rank each */
    const char *transport = ps_grid_transport(g.grid);
    CHECK(!strcmp(transport, "mpi") ||
              (!strcmp(transport, "nccl") && !strcmp(ps_test_backend_name(), "cuda")),
          "transport %s", transport);
    CHECK(!strcmp(ps_grid_backend_name(g.grid), ps_test_backend_name()), "backend %s",
          ps_grid_backend_name(g.grid));
    static const int nbs[] = {1, 7, 64};
    static const int orders[] = {0, 1, 3, 37, 130};
    for (int dti = 0; dti < 2; dti++) {
        ps_dtype dt = dti ? PS_FLOAT : PS_DOUBLE;
        for (size_t b = 0; b < sizeof nbs / sizeof nbs[0]; b++)
            for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
                int n = orders[o], nb = nbs[b];
                if (nb == 1 && n > 37)
                    continue; /* a block a column: the step count, not new paths */
                check_lu(&g, dt, n, nb, o % 2 ? 3 : 1, nprow > 1 ? 1 : 0,
                         npcol > 1 ? npcol - 1 : 0);
                check_chol(&g, dt, o % 2 ? 'U' : 'L', n, nb, 2);
                check_chol(&g, dt, o % 2 ? 'L' : 'U', n, nb, 1);
            }
    }
    check_submatrix(&g, PS_DOUBLE, 37, 7);
    check_submatrix(&g, PS_FLOAT, 130, 64);
    check_resident(&g, PS_DOUBLE, 37, 7);
    check_resident(&g, PS_FLOAT, 130, 64);
    check_failures(&g, 37, 7);
    check_bad_arguments(&g);
    check_out_of_memory(&g);
    check_each_allocation_failing(&g);
    /* every driver reserved the MPI transport's stage for its largest piece, and the swap lists
     * for its most interchanges, before its first exchange (dist/dist_comm.c) */
    CHECK(g.grid->reserve_underruns == 0, "grid %dx%d: %ld exchanges found their reserve too small",
          nprow, npcol, g.grid->reserve_underruns);
    ps_grid_destroy(g.grid);
}

int main(int argc, char **argv) {
    int world_rank, world_size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    /* one seed for every rank, so that they build the same global matrices */
    unsigned long long seed = 0;
    const char *given = getenv("PORTSOLVE_TEST_SEED");
    if (world_rank == 0)
        seed = given && *given ? strtoull(given, NULL, 10) : (unsigned long long)time(NULL);
    MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
    char text[32];
    snprintf(text, sizeof text, "%llu", seed);
    setenv("PORTSOLVE_TEST_SEED", text, 1);
    ps_test_init(argc, argv);
    const char *shape = ps_test_case();
    int nprow = world_size, npcol = 1;
    if (shape && sscanf(shape, "%dx%d", &nprow, &npcol) != 2) nprow = world_size, npcol = 1;
    if (nprow == 1 && npcol == 1) {
        run_grid(MPI_COMM_SELF, 1, 1); /* every rank a grid of its own, side by side */
    } else if (nprow * npcol == world_size) {
        run_grid(MPI_COMM_WORLD, nprow, npcol);
    } else {
        CHECK(0, "grid %dx%d does not match %d ranks", nprow, npcol, world_size);
    }
    int failures = ps_test_failures, all;
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int rc = ps_test_finish("test_dist");
    MPI_Finalize();
    return all ? 1 : rc;
}
