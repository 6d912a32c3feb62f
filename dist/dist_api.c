/* The public distributed drivers: ScaLAPACK's argument checks, agreed on by every rank, then the
 * local arrays to the device, the algorithm, and the results back. */
#include "dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The descriptor of the m x n submatrix at (ia, ja) of desc's matrix as a matrix of its own
 * (ia - 1 a multiple of MB, as ps__dist_check_desc requires, and ja - 1 of NB or the submatrix
 * within one block of columns): RSRC and CSRC those of the block holding (ia, ja), LLD desc's. */
static void sub_desc(const ps_grid *g, const int *desc, int ia, int ja, int m, int n, int sub[9]) {
    memcpy(sub, desc, 9 * sizeof *sub);
    sub[2] = m, sub[3] = n;
    sub[6] = (desc[6] + (ia - 1) / desc[4]) % g->nprow;
    sub[7] = (desc[7] + (ja - 1) / desc[5]) % g->npcol;
}

/* This rank's local rows above global row ia: where the submatrix's rows start in the local
 * array, and (ScaLAPACK's rule) where its entries of ipiv start. */
static int rows_above(const ps_grid *g, const int *desc, int ia) {
    return ps_numroc(ia - 1, desc[4], g->myrow, desc[6], g->nprow);
}

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
    if (ia < 1 || ja < 1)
        return g->last_info = -(pos - (ia < 1 ? 2 : 1)),
               ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT, "argument %d: %s = %d is below 1",
                             pos - (ia < 1 ? 2 : 1), ia < 1 ? "ia" : "ja", ia < 1 ? ia : ja);
    if ((long long)ia - 1 + m > desc[2] || (long long)ja - 1 + n > desc[3])
        return g->last_info = -(100 * pos + ((long long)ia - 1 + m > desc[2] ? 3 : 4)),
               ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT,
                             "argument %d: a %d x %d matrix at (%d, %d) does not fit the "
                             "descriptor's %d x %d",
                             pos, m, n, ia, ja, desc[2], desc[3]);
    /* ScaLAPACK's p?getrf, p?getrs, p?gesv and the Cholesky ones refuse A, and B's rows, that
     * start inside a block (info: ia's or ib's position, then ja's); B's columns may, and are
     * taken here when they end in that block */
    int row_off = (ia - 1) % desc[4], col_off = (ja - 1) % desc[5];
    if (row_off || (square_blocks && col_off))
        return g->last_info = -(pos - (row_off ? 2 : 1)),
               ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT,
                             "argument %d: the submatrix's first %s, %d, is inside a block (its "
                             "index - 1 must be a multiple of %s = %d, as ScaLAPACK requires)",
                             pos - (row_off ? 2 : 1), row_off ? "row" : "column", row_off ? ia : ja,
                             row_off ? "MB" : "NB", row_off ? desc[4] : desc[5]);
    if (col_off && col_off + n > desc[5])
        return ps__dist_fail(g, PS_ERR_NOT_SUPPORTED,
                             "argument %d: right-hand sides that start inside a block of columns "
                             "(column %d) must end in it (%d columns from there, NB = %d)",
                             pos - 1, ja, n, desc[5]);
    int sub[9];
    sub_desc(g, desc, ia, ja, m, n, sub);
    if (!local && ps_numroc(m, sub[4], g->myrow, sub[6], g->nprow) > 0 &&
        ps_numroc(n, sub[5], g->mycol, sub[7], g->npcol) > 0)
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
    g->stage_asked = 0, g->swaps_asked = 0;
    ps_status st = ps__dist_agree(g, local);
    if (st == PS_SUCCESS) g->last_error[0] = '\0';
    return st;
}

/* The line dist_verbose asks for, from the grid's first rank. */
void ps__dist_report(ps_grid *g, const char *routine, ps__dtype dt, int m, int n, int nb) {
    if (!g->ctx->tuning.dist_verbose || g->rank != 0) return;
    fprintf(stderr, "portsolve_mpi: %s%s m=%d n=%d nb=%d grid %dx%d on %s via %s\n",
            dt == PS__DOUBLE ? "PD" : "PS", routine, m, n, nb, g->nprow, g->npcol,
            ps_context_backend_name(g->ctx), g->transport);
}

/* An operand as the drivers use it: the m x n submatrix at (i, j) as a matrix of its own. */
typedef struct operand {
    int desc[9];
    void *local;
} operand;

static operand operand_of(const ps_grid *g, ps__dtype dt, const int *desc, int i, int j, int m,
                          int n, const void *local) {
    operand o;
    sub_desc(g, desc, i, j, m, n, o.desc);
    size_t rows = (size_t)rows_above(g, desc, i);
    size_t cols = (size_t)ps_numroc(j - 1, desc[5], g->mycol, desc[7], g->npcol);
    o.local = local ? (char *)local + (rows + cols * (size_t)desc[8]) * ps__dtype_size(dt) : NULL;
    return o;
}

/* ScaLAPACK keeps the pivots of the submatrix at row ia in its local rows' entries of ipiv
 * (from rows_above on), as rows of the whole matrix; the drivers count from the submatrix's
 * first row. shift_pivots adds by to those of its first kmax rows (sub: its descriptor). */
static void shift_pivots(const ps_grid *g, const int *sub, int kmax, int *piv, int by) {
    int rows = ps_numroc(kmax, sub[4], g->myrow, sub[6], g->nprow);
    if (by == 0) return;
    for (int l = 0; l < rows; l++) piv[l] += by;
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
    operand A = st == PS_SUCCESS ? operand_of(g, dt, desca, ia, ja, m, n, a) : (operand){{0}, 0};
    if (st == PS_SUCCESS && !ipiv && ps_numroc(m, A.desc[4], g->myrow, A.desc[6], g->nprow) > 0)
        st = ps__dist_bad_arg(g, 8, "ipiv is NULL");
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || m == 0 || n == 0) return st;
    ps__dist_report(g, "GETRF", dt, m, n, desca[4]);
    int *piv = ipiv ? ipiv + rows_above(g, desca, ia) : NULL;
    ps__dist_mat d;
    /* an allocation that failed on another rank still leaves this rank's to release */
    st = ps__dist_agree(g, ps__dist_alloc(g, dt, A.desc, &d));
    if (st == PS_SUCCESS) st = ps__dist_lu_factor(g, &d, A.local, desca[8], piv, NULL);
    if (st == PS_SUCCESS || st == PS_ERR_SINGULAR)
        shift_pivots(g, A.desc, m < n ? m : n, piv, ia - 1);
    ps__dist_release(g, &d);
    return st;
}

/* getrs after the checks: A and B to the devices, the solve, B back. ipiv: the submatrix's
 * local pivots, counting from row ia of the whole matrix. */
static ps_status getrs(ps_grid *g, ps__dtype dt, ps__trans trans, int n, int nrhs, operand a,
                       int ia, const int *ipiv, operand b) {
    ps__dist_report(g, trans == PS__NOTRANS ? "GETRS N" : "GETRS T", dt, n, nrhs, a.desc[4]);
    int rows = ps_numroc(n, a.desc[4], g->myrow, a.desc[6], g->nprow);
    int *own = ia > 1 ? malloc((size_t)(rows > 0 ? rows : 1) * sizeof *own) : NULL;
    ps_status st = ps__dist_agree(
        g, ia == 1 || own ? PS_SUCCESS
                          : ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory"));
    if (st != PS_SUCCESS) return st;
    if (own) { /* counting from the submatrix's first row */
        memcpy(own, ipiv, (size_t)rows * sizeof *own);
        shift_pivots(g, a.desc, n, own, 1 - ia);
    }
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    st = ps__dist_upload(g, dt, a.desc, a.local, &A);
    if (st == PS_SUCCESS) st = ps__dist_upload(g, dt, b.desc, b.local, &B);
    st = ps__dist_agree(g, st);
    if (st == PS_SUCCESS) st = ps__dist_lu_solve(g, trans, &A, own ? own : ipiv, 9, &B);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &B, b.local, b.desc[8]));
    ps__dist_release(g, &A);
    ps__dist_release(g, &B);
    free(own);
    return st;
}

/* B's descriptor (argument pos), then its rows distributed as A's. */
static ps_status check_rhs(ps_grid *g, int n, int nrhs, const int *desca, int ia, int ja,
                           const int *descb, const void *b, int ib, int jb, int pos) {
    ps_status st = ps__dist_check_desc(g, descb, pos, n, nrhs, ib, jb, b, 0);
    if (st != PS_SUCCESS) return st;
    int sa[9], sb[9];
    sub_desc(g, desca, ia, ja, n, n, sa);
    sub_desc(g, descb, ib, jb, n, nrhs, sb);
    st = ps__dist_check_rows(g, sa, sb, pos);
    /* ScaLAPACK's info: B's MB (field 6 there, as A's NB), else ib's process row */
    if (st != PS_SUCCESS) g->last_info = sb[4] != sa[4] ? -(100 * pos + 6) : -(pos - 2);
    return st;
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
    if (st == PS_SUCCESS) st = check_rhs(g, n, nrhs, desca, ia, ja, descb, b, ib, jb, 13);
    operand A = st == PS_SUCCESS ? operand_of(g, dt, desca, ia, ja, n, n, a) : (operand){{0}, 0};
    if (st == PS_SUCCESS && !ipiv && ps_numroc(n, A.desc[4], g->myrow, A.desc[6], g->nprow) > 0)
        st = ps__dist_bad_arg(g, 9, "ipiv is NULL");
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || n == 0 || nrhs == 0) return st;
    return getrs(g, dt, t, n, nrhs, A, ia, ipiv ? ipiv + rows_above(g, desca, ia) : NULL,
                 operand_of(g, dt, descb, ib, jb, n, nrhs, b));
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
    operand A = operand_of(g, dt, desca, ia, ja, n, n, a);
    ps__dist_mat d;
    /* an allocation that failed on another rank still leaves this rank's to release */
    st = ps__dist_agree(g, ps__dist_alloc(g, dt, A.desc, &d));
    if (st == PS_SUCCESS) st = ps__dist_chol_factor(g, uplo, &d, A.local, desca[8]);
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
    return st == PS_SUCCESS ? check_rhs(g, n, nrhs, desca, ia, ja, descb, b, ib, jb, 12) : st;
}

static ps_status potrs(ps_grid *g, ps__dtype dt, char uplo, int n, int nrhs, const void *a, int ia,
                       int ja, const int *desca, void *b, int ib, int jb, const int *descb) {
    g->last_info = 0;
    ps_status st =
        ps__dist_begin(g, check_potrs(g, uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb));
    if (st != PS_SUCCESS || n == 0 || nrhs == 0) return st;
    ps__dist_report(g, uplo == 'L' || uplo == 'l' ? "POTRS L" : "POTRS U", dt, n, nrhs, desca[4]);
    operand oa = operand_of(g, dt, desca, ia, ja, n, n, a),
            ob = operand_of(g, dt, descb, ib, jb, n, nrhs, b);
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    st = upload_triangle(g, dt, oa.desc, uplo, oa.local, &A);
    if (st == PS_SUCCESS) st = ps__dist_upload(g, dt, ob.desc, ob.local, &B);
    st = ps__dist_agree(g, st);
    if (st == PS_SUCCESS) st = ps__dist_chol_solve(g, uplo, &A, &B);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &B, ob.local, ob.desc[8]));
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
                                  operand a, int *ipiv, operand b) {
    ps__dist_report(g,
                    lu                           ? "GESV"
                    : uplo == 'L' || uplo == 'l' ? "POSV L"
                                                 : "POSV U",
                    dt, n, nrhs, a.desc[4]);
    ps__dist_mat A, B;
    memset(&B, 0, sizeof B);
    /* the factorizations move A themselves, beside their work */
    ps_status st = ps__dist_alloc(g, dt, a.desc, &A);
    if (st == PS_SUCCESS && nrhs > 0) st = ps__dist_upload(g, dt, b.desc, b.local, &B);
    st = ps__dist_agree(g, st);
    /* the solve's scratch before the factors go back into the caller's array */
    if (st == PS_SUCCESS && nrhs > 0) st = ps__dist_solve_reserve(g, lu, &A, &B);
    if (st != PS_SUCCESS) {
        ps__dist_scratch_release(g);
        ps__dist_release(g, &A);
        ps__dist_release(g, &B);
        return st;
    }
    st = lu ? ps__dist_lu_factor(g, &A, a.local, a.desc[8], ipiv, NULL)
            : ps__dist_chol_factor(g, uplo, &A, a.local, a.desc[8]);
    if (st == PS_SUCCESS && nrhs > 0) {
        st = lu ? ps__dist_lu_solve(g, PS__NOTRANS, &A, ipiv, 0, &B)
                : ps__dist_chol_solve(g, uplo, &A, &B);
        if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, &B, b.local, b.desc[8]));
    }
    ps__dist_scratch_release(g); /* also where the factorization failed */
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
    if (st == PS_SUCCESS) st = check_rhs(g, n, nrhs, desca, ia, ja, descb, b, ib, jb, 12);
    operand A = st == PS_SUCCESS ? operand_of(g, dt, desca, ia, ja, n, n, a) : (operand){{0}, 0};
    if (st == PS_SUCCESS && !ipiv && ps_numroc(n, A.desc[4], g->myrow, A.desc[6], g->nprow) > 0)
        st = ps__dist_bad_arg(g, 8, "ipiv is NULL");
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || n == 0) return st;
    int *piv = ipiv ? ipiv + rows_above(g, desca, ia) : NULL;
    st = factor_and_solve(g, dt, 1, 'N', n, nrhs, A, piv,
                          operand_of(g, dt, descb, ib, jb, n, nrhs, b));
    if (st == PS_SUCCESS || st == PS_ERR_SINGULAR) shift_pivots(g, A.desc, n, piv, ia - 1);
    return st;
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
    return factor_and_solve(g, dt, 0, uplo, n, nrhs, operand_of(g, dt, desca, ia, ja, n, n, a),
                            NULL, operand_of(g, dt, descb, ib, jb, n, nrhs, b));
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
