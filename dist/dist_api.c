/* The public distributed drivers: ScaLAPACK's argument checks, agreed on by every rank, then the
 * local arrays to the device, the algorithm, and the results back. */
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Checks a descriptor of argument position pos (ScaLAPACK numbers the descriptor's fields
 * 1..9, and reports -(100 pos + field)) for an m x n matrix starting at (ia, ja). */
ps_status ps__dist_check_desc(ps_grid *g, const int *desc, int pos, int m, int n, int ia, int ja,
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

ps_status ps__dist_bad_arg(ps_grid *g, int pos, const char *what) {
    g->last_info = -pos;
    return ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT, "argument %d: %s", pos, what);
}

/* The local checks, then every rank's verdict: the first failing rank's on all. The rank's
 * device becomes the thread's current one, as for a call on its context. */
ps_status ps__dist_begin(ps_grid *g, ps_status local) {
    g->ctx->be.ops->activate(&g->ctx->be);
    ps_status st = ps__dist_agree(g, local);
    if (st == PS_SUCCESS) {
        g->last_error[0] = '\0';
        return st;
    }
    return st;
}

/* The line dist_verbose asks for, from the grid's first rank. */
void ps__dist_report(ps_grid *g, const char *routine, ps__dtype dt, int m, int n, int nb) {
    if (!g->ctx->tuning.dist_verbose || g->rank != 0) return;
    fprintf(stderr, "portsolve_mpi: %s%s m=%d n=%d nb=%d grid %dx%d on %s via %s\n",
            dt == PS__DOUBLE ? "PD" : "PS", routine, m, n, nb, g->nprow, g->npcol,
            ps_context_backend_name(g->ctx), g->transport);
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
        st = ps__dist_bad_arg(g, 2, "m < 0");
    else if (n < 0)
        st = ps__dist_bad_arg(g, 3, "n < 0");
    else
        st = ps__dist_check_desc(g, desca, 7, m, n, ia, ja, a, 1);
    if (st == PS_SUCCESS && !ipiv && ps_numroc(m, desca[4], g->myrow, desca[6], g->nprow) > 0)
        st = ps__dist_bad_arg(g, 8, "ipiv is NULL");
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || m == 0 || n == 0) return st;
    ps__dist_report(g, "GETRF", dt, m, n, desca[4]);
    int desc[9];
    restrict_desc(desca, m, n, desc);
    ps__dist_mat d;
    /* an allocation that failed on another rank still leaves this rank's to release */
    st = ps__dist_agree(g, ps__dist_alloc(g, dt, desc, &d));
    if (st == PS_SUCCESS) st = ps__dist_lu_factor(g, &d, a, desca[8], ipiv, NULL);
    ps__dist_release(g, &d);
    return st;
}

/* getrs after the checks: A and B to the devices, the solve, B back. */
static ps_status getrs(ps_grid *g, ps__dtype dt, ps__trans trans, int n, int nrhs, const void *a,
                       const int *desca, const int *ipiv, void *b, const int *descb) {
    int da[9], db[9];
    ps__dist_report(g, trans == PS__NOTRANS ? "GETRS N" : "GETRS T", dt, n, nrhs, desca[4]);
    restrict_desc(desca, n, n, da);
    restrict_desc(descb, n, nrhs, db);
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    ps_status st = ps__dist_upload(g, dt, da, a, &A);
    if (st == PS_SUCCESS) st = ps__dist_upload(g, dt, db, b, &B);
    st = ps__dist_agree(g, st);
    if (st == PS_SUCCESS) st = ps__dist_lu_solve(g, trans, &A, ipiv, 9, &B);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &B, b, descb[8]));
    ps__dist_release(g, &A);
    ps__dist_release(g, &B);
    return st;
}

static ps_status check_rhs(ps_grid *g, int n, int nrhs, const int *desca, const int *descb,
                           const void *b, int ib, int jb, int pos) {
    ps_status st = ps__dist_check_desc(g, descb, pos, n, nrhs, ib, jb, b, 0);
    return st == PS_SUCCESS ? ps__dist_check_rows(g, desca, descb, pos) : st;
}

static ps_status getrs_checked(ps_grid *g, ps__dtype dt, char trans, int n, int nrhs, const void *a,
                               int ia, int ja, const int *desca, const int *ipiv, void *b, int ib,
                               int jb, const int *descb) {
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    ps__trans t = trans == 'N' || trans == 'n' ? PS__NOTRANS : PS__TRANS;
    if (!strchr("NnTtCc", trans) || !trans)
        st = ps__dist_bad_arg(g, 2, "trans must be 'N' or 'T'");
    else if (n < 0)
        st = ps__dist_bad_arg(g, 3, "n < 0");
    else if (nrhs < 0)
        st = ps__dist_bad_arg(g, 4, "nrhs < 0");
    else
        st = ps__dist_check_desc(g, desca, 8, n, n, ia, ja, a, 1);
    if (st == PS_SUCCESS) st = check_rhs(g, n, nrhs, desca, descb, b, ib, jb, 13);
    if (st == PS_SUCCESS && !ipiv && ps_numroc(n, desca[4], g->myrow, desca[6], g->nprow) > 0)
        st = ps__dist_bad_arg(g, 9, "ipiv is NULL");
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || n == 0 || nrhs == 0) return st;
    return getrs(g, dt, t, n, nrhs, a, desca, ipiv, b, descb);
}

static ps__uplo uplo_of(char uplo) {
    return uplo == 'L' || uplo == 'l' ? PS__LOWER : PS__UPPER;
}

/* Cholesky's A up (its triangle) into d, newly allocated, which the caller releases also after a
 * failure. */
static ps_status upload_triangle(ps_grid *g, ps__dtype dt, const int desc[9], char uplo,
                                 const void *a, ps__dist_mat *d) {
    ps_status st = ps__dist_alloc(g, dt, desc, d);
    return st == PS_SUCCESS ? ps__dist_put_triangle(g, d, uplo_of(uplo), a, desc[8]) : st;
}

static ps_status potrf(ps_grid *g, ps__dtype dt, char uplo, int n, void *a, int ia, int ja,
                       const int *desca) {
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    if (!uplo || !strchr("LlUu", uplo))
        st = ps__dist_bad_arg(g, 2, "uplo must be 'L' or 'U'");
    else if (n < 0)
        st = ps__dist_bad_arg(g, 3, "n < 0");
    else
        st = ps__dist_check_desc(g, desca, 7, n, n, ia, ja, a, 1);
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || n == 0) return st;
    ps__dist_report(g, uplo == 'L' || uplo == 'l' ? "POTRF L" : "POTRF U", dt, n, n, desca[4]);
    int desc[9];
    restrict_desc(desca, n, n, desc);
    ps__dist_mat d;
    /* an allocation that failed on another rank still leaves this rank's to release */
    st = ps__dist_agree(g, ps__dist_alloc(g, dt, desc, &d));
    if (st == PS_SUCCESS) st = ps__dist_chol_factor(g, uplo, &d, a, desca[8]);
    ps__dist_release(g, &d);
    return st;
}

/* potrs's and posv's argument checks, on this rank. */
static ps_status check_potrs(ps_grid *g, char uplo, int n, int nrhs, const void *a, int ia, int ja,
                             const int *desca, const void *b, int ib, int jb, const int *descb) {
    if (!uplo || !strchr("LlUu", uplo)) return ps__dist_bad_arg(g, 2, "uplo must be 'L' or 'U'");
    if (n < 0) return ps__dist_bad_arg(g, 3, "n < 0");
    if (nrhs < 0) return ps__dist_bad_arg(g, 4, "nrhs < 0");
    ps_status st = ps__dist_check_desc(g, desca, 8, n, n, ia, ja, a, 1);
    return st == PS_SUCCESS ? check_rhs(g, n, nrhs, desca, descb, b, ib, jb, 12) : st;
}

static ps_status potrs(ps_grid *g, ps__dtype dt, char uplo, int n, int nrhs, const void *a, int ia,
                       int ja, const int *desca, void *b, int ib, int jb, const int *descb) {
    g->last_info = 0;
    ps_status st =
        ps__dist_begin(g, check_potrs(g, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb));
    if (st != PS_SUCCESS || n == 0 || nrhs == 0) return st;
    ps__dist_report(g, uplo == 'L' || uplo == 'l' ? "POTRS L" : "POTRS U", dt, n, nrhs, desca[4]);
    int da[9], db[9];
    restrict_desc(desca, n, n, da);
    restrict_desc(descb, n, nrhs, db);
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    st = upload_triangle(g, dt, da, uplo, a, &A);
    if (st == PS_SUCCESS) st = ps__dist_upload(g, dt, db, b, &B);
    st = ps__dist_agree(g, st);
    if (st == PS_SUCCESS) st = ps__dist_chol_solve(g, uplo, &A, &B);
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

/* A and B to the devices once, the factorization, A and the pivots back, then unless it failed
 * or found a zero pivot the solve and B back. */
static ps_status factor_and_solve(ps_grid *g, ps__dtype dt, int lu, char uplo, int n, int nrhs,
                                  void *a, const int *desca, int *ipiv, void *b, const int *descb) {
    ps__dist_report(g,
                    lu                           ? "GESV"
                    : uplo == 'L' || uplo == 'l' ? "POSV L"
                                                 : "POSV U",
                    dt, n, nrhs, desca[4]);
    int da[9], db[9];
    restrict_desc(desca, n, n, da);
    restrict_desc(descb, n, nrhs, db);
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    /* the factorizations move A themselves, beside their work */
    ps_status st = ps__dist_alloc(g, dt, da, &A);
    if (st == PS_SUCCESS && nrhs > 0) st = ps__dist_upload(g, dt, db, b, &B);
    st = ps__dist_agree(g, st);
    if (st != PS_SUCCESS) {
        ps__dist_release(g, &A);
        ps__dist_release(g, &B);
        return st;
    }
    st = lu ? ps__dist_lu_factor(g, &A, a, desca[8], ipiv, NULL)
            : ps__dist_chol_factor(g, uplo, &A, a, desca[8]);
    if (st == PS_SUCCESS && nrhs > 0) {
        st = lu ? ps__dist_lu_solve(g, PS__NOTRANS, &A, ipiv, 0, &B)
                : ps__dist_chol_solve(g, uplo, &A, &B);
        if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &B, b, descb[8]));
    }
    ps__dist_release(g, &A);
    ps__dist_release(g, &B);
    return st;
}

/* gesv: the checks of both, then getrf and, unless it failed or found a zero pivot, getrs. */
static ps_status gesv(ps_grid *g, ps__dtype dt, int n, int nrhs, void *a, int ia, int ja,
                      const int *desca, int *ipiv, void *b, int ib, int jb, const int *descb) {
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    if (n < 0)
        st = ps__dist_bad_arg(g, 2, "n < 0");
    else if (nrhs < 0)
        st = ps__dist_bad_arg(g, 3, "nrhs < 0");
    else
        st = ps__dist_check_desc(g, desca, 7, n, n, ia, ja, a, 1);
    if (st == PS_SUCCESS) st = check_rhs(g, n, nrhs, desca, descb, b, ib, jb, 12);
    if (st == PS_SUCCESS && !ipiv && ps_numroc(n, desca[4], g->myrow, desca[6], g->nprow) > 0)
        st = ps__dist_bad_arg(g, 8, "ipiv is NULL");
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || n == 0) return st;
    return factor_and_solve(g, dt, 1, 'N', n, nrhs, a, desca, ipiv, b, descb);
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
    ps_status st =
        ps__dist_begin(g, check_potrs(g, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb));
    if (st != PS_SUCCESS || n == 0) return st;
    return factor_and_solve(g, dt, 0, uplo, n, nrhs, a, desca, NULL, b, descb);
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
