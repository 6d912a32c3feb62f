/* The public distributed drivers: ScaLAPACK's argument checks, agreed on by every rank, then the
 * local arrays to the device, the algorithm, and the results back. */
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks a descriptor of argument position pos (ScaLAPACK numbers the descriptor's fields
 * 1..9, and reports -(100 pos + field)) for an m x n matrix starting at (ia, ja). */
static ps_status check_desc(ps_grid *g, const int *desc, int pos, int m, int n, int ia, int ja,
                            const void *local, int square_blocks) {
    static const char *field[] = {"", "DTYPE", "CTXT", "M", "N", "MB", "NB", "RSRC", "CSRC", "LLD"};
    int bad = 0;
    if (!desc)
        return g->last_info = -pos,
               ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT, "argument %d: descriptor is NULL", pos);
    if (desc[0] != 1)
        bad = 1;
    else if (desc[2] < 0)
        bad = 3;
    else if (desc[3] < 0)
        bad = 4;
    else if (desc[4] < 1)
        bad = 5;
    else if (desc[5] < 1)
        bad = 6;
    else if (desc[6] < 0 || desc[6] >= g->nprow)
        bad = 7;
    else if (desc[7] < 0 || desc[7] >= g->npcol)
        bad = 8;
    else if (desc[8] < 1 || desc[8] < ps_numroc(desc[2], desc[4], g->myrow, desc[6], g->nprow))
        bad = 9;
    else if (square_blocks && desc[4] != desc[5])
        bad = 6;
    if (bad)
        return g->last_info = -(100 * pos + bad),
               ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT,
                             "argument %d: descriptor field %d (%s) = %d is invalid%s", pos, bad,
                             field[bad], desc[bad - 1],
                             bad == 6 && square_blocks ? " (MB and NB must be equal)" : "");
    if (ia != 1 || ja != 1)
        return ps__dist_fail(g, PS_ERR_NOT_SUPPORTED,
                             "argument %d: only whole matrices (ia = ja = 1) are supported, got "
                             "ia = %d, ja = %d",
                             pos - 2, ia, ja);
    if (m > desc[2] || n > desc[3])
        return g->last_info = -(100 * pos + (m > desc[2] ? 3 : 4)),
               ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT,
                             "argument %d: a %d x %d matrix does not fit the descriptor's %d x %d",
                             pos, m, n, desc[2], desc[3]);
    if (!local && ps_numroc(m, desc[4], g->myrow, desc[6], g->nprow) > 0 &&
        ps_numroc(n, desc[5], g->mycol, desc[7], g->npcol) > 0)
        return g->last_info = -(pos - 3), ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT,
                                                        "argument %d: rank %d's local array is "
                                                        "NULL",
                                                        pos - 3, g->rank);
    return PS_SUCCESS;
}

static ps_status bad_arg(ps_grid *g, int pos, const char *what) {
    g->last_info = -pos;
    return ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT, "argument %d: %s", pos, what);
}

/* The local checks, then every rank's verdict: the first failing rank's on all. */
static ps_status begin(ps_grid *g, ps_status local) {
    ps_status st = ps__dist_agree(g, local);
    if (st == PS_SUCCESS) {
        g->last_error[0] = '\0';
        return st;
    }
    return st;
}

/* The line dist_verbose asks for, from the grid's first rank. */
static void report(ps_grid *g, const char *routine, ps__dtype dt, int m, int n, int nb) {
    if (!g->ctx->tuning.dist_verbose || g->rank != 0) return;
    fprintf(stderr, "portsolve_mpi: %s%s m=%d n=%d nb=%d grid %dx%d on %s\n",
            dt == PS__DOUBLE ? "PD" : "PS", routine, m, n, nb, g->nprow, g->npcol,
            ps_context_backend_name(g->ctx));
}

/* The sizes of desc restricted to the leading m x n part. */
static void restrict_desc(const int *desc, int m, int n, int out[9]) {
    memcpy(out, desc, 9 * sizeof *out);
    out[2] = m, out[3] = n;
}

static ps_status getrf(ps_grid *g, ps__dtype dt, int m, int n, void *a, int ia, int ja,
                       const int *desca, int *ipiv) {
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    if (m < 0)
        st = bad_arg(g, 2, "m < 0");
    else if (n < 0)
        st = bad_arg(g, 3, "n < 0");
    else
        st = check_desc(g, desca, 7, m, n, ia, ja, a, 1);
    if (st == PS_SUCCESS && !ipiv && ps_numroc(m, desca[4], g->myrow, desca[6], g->nprow) > 0)
        st = bad_arg(g, 8, "ipiv is NULL");
    st = begin(g, st);
    if (st != PS_SUCCESS || m == 0 || n == 0) return st;
    report(g, "GETRF", dt, m, n, desca[4]);
    int desc[9], info = 0, kmax = m < n ? m : n;
    restrict_desc(desca, m, n, desc);
    ps__dist_mat d;
    int *piv = malloc((size_t)(kmax > 0 ? kmax : 1) * sizeof *piv);
    st = piv ? ps__dist_upload(g, dt, desc, a, &d)
             : ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    st = ps__dist_agree(g, st);
    if (st == PS_SUCCESS) st = ps__dist_getrf(g, &d, piv, &info);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &d, a, desca[8]));
    if (st == PS_SUCCESS) {
        int rows = ps_numroc(kmax, desca[4], g->myrow, desca[6], g->nprow);
        for (int l = 0; l < rows; l++) ipiv[l] = piv[ps__cyclic_global(&d.r, l, g->myrow)] + 1;
        if (info) {
            g->last_info = info;
            st = ps__dist_fail(g, PS_ERR_SINGULAR, "U(%d,%d) is exactly zero", info, info);
        }
    }
    if (piv) ps__dist_release(g, &d);
    free(piv);
    return st;
}

/* getrf's interchanges piv[0..n) on all of b, block by block, forwards or backwards; every
 * rank takes part in every exchange, also after a failure, and the caller agrees once. */
static ps_status swap_all(ps_grid *g, const ps__dist_mat *b, const int *piv, int backwards,
                          ps__dist_buf *stage) {
    int n = b->r.n, nb = b->r.nb, blocks = (n + nb - 1) / nb;
    ps_status st = PS_SUCCESS;
    for (int s = 0; s < blocks; s++) {
        int k = (backwards ? blocks - 1 - s : s) * nb;
        ps_status x = ps__dist_swap_rows(g, b, k, n - k < nb ? n - k : nb, piv + k, 0, b->lcols,
                                         backwards, stage);
        if (st == PS_SUCCESS) st = x;
    }
    return st;
}

/* getrs after the checks: the interchanges on b, then the two triangles (or their transposes
 * and the interchanges backwards). */
static ps_status getrs(ps_grid *g, ps__dtype dt, ps__trans trans, int n, int nrhs, const void *a,
                       const int *desca, const int *ipiv, void *b, const int *descb) {
    int da[9], db[9];
    report(g, trans == PS__NOTRANS ? "GETRS N" : "GETRS T", dt, n, nrhs, desca[4]);
    restrict_desc(desca, n, n, da);
    restrict_desc(descb, n, nrhs, db);
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    ps_status st = ps__dist_upload(g, dt, da, a, &A);
    if (st == PS_SUCCESS) st = ps__dist_upload(g, dt, db, b, &B);
    /* every rank of a process column gets the pivots of all n rows */
    int *piv = malloc((size_t)(2 * n + 2 * g->nprow) * sizeof *piv);
    if (!piv && st == PS_SUCCESS) st = ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of memory");
    st = ps__dist_agree(g, st);
    if (st == PS_SUCCESS) {
        int *recv = piv + n, *counts = piv + 2 * n, *displs = counts + g->nprow, off = 0;
        for (int p = 0; p < g->nprow; p++) {
            counts[p] = ps__cyclic_below(&A.r, n, p), displs[p] = off, off += counts[p];
        }
        MPI_Allgatherv(ipiv, counts[g->myrow], MPI_INT, recv, counts, displs, MPI_INT, g->col);
        for (int p = 0; p < g->nprow; p++)
            for (int l = 0; l < counts[p]; l++)
                piv[ps__cyclic_global(&A.r, l, p)] = recv[displs[p] + l] - 1;
        int bad = 0;
        for (int i = 0; i < n; i++) bad |= piv[i] < i || piv[i] >= n;
        if (bad) st = ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT, "argument 9: ipiv is not getrf's");
        st = ps__dist_agree(g, st);
    }
    ps__dist_buf stage = {0};
    if (st == PS_SUCCESS && trans == PS__NOTRANS) {
        st = ps__dist_agree(g, swap_all(g, &B, piv, 0, &stage));
        if (st == PS_SUCCESS) st = ps__dist_trsm(g, &A, PS__LOWER, PS__NOTRANS, PS__UNIT, &B);
        if (st == PS_SUCCESS) st = ps__dist_trsm(g, &A, PS__UPPER, PS__NOTRANS, PS__NONUNIT, &B);
    } else if (st == PS_SUCCESS) {
        st = ps__dist_trsm(g, &A, PS__UPPER, PS__TRANS, PS__NONUNIT, &B);
        if (st == PS_SUCCESS) st = ps__dist_trsm(g, &A, PS__LOWER, PS__TRANS, PS__UNIT, &B);
        if (st == PS_SUCCESS) st = ps__dist_agree(g, swap_all(g, &B, piv, 1, &stage));
    }
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &B, b, descb[8]));
    ps__dist_release(g, &A);
    ps__dist_release(g, &B);
    free(stage.p);
    free(piv);
    return st;
}

static ps_status check_rhs(ps_grid *g, int n, int nrhs, const int *desca, const int *descb,
                           const void *b, int ib, int jb, int pos) {
    ps_status st = check_desc(g, descb, pos, n, nrhs, ib, jb, b, 0);
    if (st == PS_SUCCESS && (descb[4] != desca[4] || descb[6] != desca[6]))
        st = ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT,
                           "argument %d: B's rows must be distributed as A's (MB %d and RSRC %d, "
                           "got %d and %d)",
                           pos, desca[4], desca[6], descb[4], descb[6]);
    return st;
}

static ps_status getrs_checked(ps_grid *g, ps__dtype dt, char trans, int n, int nrhs, const void *a,
                               int ia, int ja, const int *desca, const int *ipiv, void *b, int ib,
                               int jb, const int *descb) {
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    ps__trans t = trans == 'N' || trans == 'n' ? PS__NOTRANS : PS__TRANS;
    if (!strchr("NnTtCc", trans) || !trans)
        st = bad_arg(g, 2, "trans must be 'N' or 'T'");
    else if (n < 0)
        st = bad_arg(g, 3, "n < 0");
    else if (nrhs < 0)
        st = bad_arg(g, 4, "nrhs < 0");
    else
        st = check_desc(g, desca, 8, n, n, ia, ja, a, 1);
    if (st == PS_SUCCESS) st = check_rhs(g, n, nrhs, desca, descb, b, ib, jb, 13);
    if (st == PS_SUCCESS && !ipiv && ps_numroc(n, desca[4], g->myrow, desca[6], g->nprow) > 0)
        st = bad_arg(g, 9, "ipiv is NULL");
    st = begin(g, st);
    if (st != PS_SUCCESS || n == 0 || nrhs == 0) return st;
    return getrs(g, dt, t, n, nrhs, a, desca, ipiv, b, descb);
}

static ps_status potrf(ps_grid *g, ps__dtype dt, char uplo, int n, void *a, int ia, int ja,
                       const int *desca) {
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    if (!uplo || !strchr("LlUu", uplo))
        st = bad_arg(g, 2, "uplo must be 'L' or 'U'");
    else if (n < 0)
        st = bad_arg(g, 3, "n < 0");
    else
        st = check_desc(g, desca, 7, n, n, ia, ja, a, 1);
    st = begin(g, st);
    if (st != PS_SUCCESS || n == 0) return st;
    report(g, uplo == 'L' || uplo == 'l' ? "POTRF L" : "POTRF U", dt, n, n, desca[4]);
    int desc[9], info = 0;
    restrict_desc(desca, n, n, desc);
    ps__dist_mat d;
    st = ps__dist_agree(g, ps__dist_upload(g, dt, desc, a, &d));
    if (st != PS_SUCCESS) return st;
    st = ps__dist_potrf(g, &d, uplo == 'L' || uplo == 'l' ? PS__LOWER : PS__UPPER, &info);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &d, a, desca[8]));
    if (st == PS_SUCCESS && info) {
        g->last_info = info;
        st = ps__dist_fail(g, PS_ERR_NOT_SPD,
                           "the leading minor of order %d is not positive definite", info);
    }
    ps__dist_release(g, &d);
    return st;
}

/* potrs's and posv's argument checks, on this rank. */
static ps_status check_potrs(ps_grid *g, char uplo, int n, int nrhs, const void *a, int ia, int ja,
                             const int *desca, const void *b, int ib, int jb, const int *descb) {
    if (!uplo || !strchr("LlUu", uplo)) return bad_arg(g, 2, "uplo must be 'L' or 'U'");
    if (n < 0) return bad_arg(g, 3, "n < 0");
    if (nrhs < 0) return bad_arg(g, 4, "nrhs < 0");
    ps_status st = check_desc(g, desca, 8, n, n, ia, ja, a, 1);
    return st == PS_SUCCESS ? check_rhs(g, n, nrhs, desca, descb, b, ib, jb, 12) : st;
}

static ps_status potrs(ps_grid *g, ps__dtype dt, char uplo, int n, int nrhs, const void *a, int ia,
                       int ja, const int *desca, void *b, int ib, int jb, const int *descb) {
    g->last_info = 0;
    ps_status st = begin(g, check_potrs(g, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb));
    if (st != PS_SUCCESS || n == 0 || nrhs == 0) return st;
    report(g, uplo == 'L' || uplo == 'l' ? "POTRS L" : "POTRS U", dt, n, nrhs, desca[4]);
    int da[9], db[9];
    restrict_desc(desca, n, n, da);
    restrict_desc(descb, n, nrhs, db);
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    st = ps__dist_upload(g, dt, da, a, &A);
    if (st == PS_SUCCESS) st = ps__dist_upload(g, dt, db, b, &B);
    st = ps__dist_agree(g, st);
    ps__uplo u = uplo == 'L' || uplo == 'l' ? PS__LOWER : PS__UPPER;
    ps__trans first = u == PS__LOWER ? PS__NOTRANS : PS__TRANS;
    ps__trans second = u == PS__LOWER ? PS__TRANS : PS__NOTRANS;
    if (st == PS_SUCCESS) st = ps__dist_trsm(g, &A, u, first, PS__NONUNIT, &B);
    if (st == PS_SUCCESS) st = ps__dist_trsm(g, &A, u, second, PS__NONUNIT, &B);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &B, b, descb[8]));
    ps__dist_release(g, &A);
    ps__dist_release(g, &B);
    return st;
}

#define GRID_OR_FAIL(g)                                                                            \
    do {                                                                                           \
        if (!(g)) return PS_ERR_INVALID_ARGUMENT;                                                  \
    } while (0)

ps_status ps_pdgetrf(ps_grid *g, int m, int n, double *a, int ia, int ja, const int desca[9],
                     int *ipiv) {
    GRID_OR_FAIL(g);
    return getrf(g, PS__DOUBLE, m, n, a, ia, ja, desca, ipiv);
}
ps_status ps_psgetrf(ps_grid *g, int m, int n, float *a, int ia, int ja, const int desca[9],
                     int *ipiv) {
    GRID_OR_FAIL(g);
    return getrf(g, PS__FLOAT, m, n, a, ia, ja, desca, ipiv);
}
ps_status ps_pdgetrs(ps_grid *g, char trans, int n, int nrhs, const double *a, int ia, int ja,
                     const int desca[9], const int *ipiv, double *b, int ib, int jb,
                     const int descb[9]) {
    GRID_OR_FAIL(g);
    return getrs_checked(g, PS__DOUBLE, trans, n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb);
}
ps_status ps_psgetrs(ps_grid *g, char trans, int n, int nrhs, const float *a, int ia, int ja,
                     const int desca[9], const int *ipiv, float *b, int ib, int jb,
                     const int descb[9]) {
    GRID_OR_FAIL(g);
    return getrs_checked(g, PS__FLOAT, trans, n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb);
}

/* gesv: the checks of both, then getrf and, unless it failed or found a zero pivot, getrs. */
static ps_status gesv(ps_grid *g, ps__dtype dt, int n, int nrhs, void *a, int ia, int ja,
                      const int *desca, int *ipiv, void *b, int ib, int jb, const int *descb) {
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    if (n < 0)
        st = bad_arg(g, 2, "n < 0");
    else if (nrhs < 0)
        st = bad_arg(g, 3, "nrhs < 0");
    else
        st = check_desc(g, desca, 7, n, n, ia, ja, a, 1);
    if (st == PS_SUCCESS) st = check_rhs(g, n, nrhs, desca, descb, b, ib, jb, 12);
    st = begin(g, st);
    if (st != PS_SUCCESS) return st;
    st = getrf(g, dt, n, n, a, ia, ja, desca, ipiv);
    if (st != PS_SUCCESS || nrhs == 0) return st;
    return getrs(g, dt, PS__NOTRANS, n, nrhs, a, desca, ipiv, b, descb);
}
ps_status ps_pdgesv(ps_grid *g, int n, int nrhs, double *a, int ia, int ja, const int desca[9],
                    int *ipiv, double *b, int ib, int jb, const int descb[9]) {
    GRID_OR_FAIL(g);
    return gesv(g, PS__DOUBLE, n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb);
}
ps_status ps_psgesv(ps_grid *g, int n, int nrhs, float *a, int ia, int ja, const int desca[9],
                    int *ipiv, float *b, int ib, int jb, const int descb[9]) {
    GRID_OR_FAIL(g);
    return gesv(g, PS__FLOAT, n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb);
}

ps_status ps_pdpotrf(ps_grid *g, char uplo, int n, double *a, int ia, int ja, const int desca[9]) {
    GRID_OR_FAIL(g);
    return potrf(g, PS__DOUBLE, uplo, n, a, ia, ja, desca);
}
ps_status ps_pspotrf(ps_grid *g, char uplo, int n, float *a, int ia, int ja, const int desca[9]) {
    GRID_OR_FAIL(g);
    return potrf(g, PS__FLOAT, uplo, n, a, ia, ja, desca);
}
ps_status ps_pdpotrs(ps_grid *g, char uplo, int n, int nrhs, const double *a, int ia, int ja,
                     const int desca[9], double *b, int ib, int jb, const int descb[9]) {
    GRID_OR_FAIL(g);
    return potrs(g, PS__DOUBLE, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb);
}
ps_status ps_pspotrs(ps_grid *g, char uplo, int n, int nrhs, const float *a, int ia, int ja,
                     const int desca[9], float *b, int ib, int jb, const int descb[9]) {
    GRID_OR_FAIL(g);
    return potrs(g, PS__FLOAT, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb);
}

/* posv: the checks of both, then potrf and, unless it failed, potrs. */
static ps_status posv(ps_grid *g, ps__dtype dt, char uplo, int n, int nrhs, void *a, int ia, int ja,
                      const int *desca, void *b, int ib, int jb, const int *descb) {
    g->last_info = 0;
    ps_status st = begin(g, check_potrs(g, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb));
    if (st != PS_SUCCESS) return st;
    st = potrf(g, dt, uplo, n, a, ia, ja, desca);
    if (st != PS_SUCCESS) return st;
    return potrs(g, dt, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb);
}
ps_status ps_pdposv(ps_grid *g, char uplo, int n, int nrhs, double *a, int ia, int ja,
                    const int desca[9], double *b, int ib, int jb, const int descb[9]) {
    GRID_OR_FAIL(g);
    return posv(g, PS__DOUBLE, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb);
}
ps_status ps_psposv(ps_grid *g, char uplo, int n, int nrhs, float *a, int ia, int ja,
                    const int desca[9], float *b, int ib, int jb, const int descb[9]) {
    GRID_OR_FAIL(g);
    return posv(g, PS__FLOAT, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb);
}
