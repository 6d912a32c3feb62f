/* Distributed matrices that stay on the devices (ps_dist_matrix): uploaded once, factored once,
 * solved with many times; the drivers' checks and steps are the host-array API's. */
#include "dist.h"

#include <stdlib.h>
#include <string.h>

struct ps_dist_matrix {
    ps_grid *grid;
    int desc[9];
    ps__dist_mat d;
};

ps_status ps_dist_matrix_create(ps_grid *g, ps_dtype dtype, const int desc[9],
                                ps_dist_matrix **out) {
    if (!g) return PS_ERR_INVALID_ARGUMENT;
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    if (!out)
        st = ps__dist_bad_arg(g, 4, "out is NULL");
    else if (dtype != PS_DOUBLE && dtype != PS_FLOAT)
        st = ps__dist_bad_arg(g, 2, "dtype is neither PS_DOUBLE nor PS_FLOAT");
    else /* the local array is on the device: desc stands in for it */
        st = ps__dist_check_desc(g, desc, 3, desc && desc[2] > 0 ? desc[2] : 0,
                                 desc && desc[3] > 0 ? desc[3] : 0, 1, 1, desc, 0);
    if (out) *out = NULL;
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS) return st;
    ps_dist_matrix *m = calloc(1, sizeof *m);
    st = m ? ps__dist_alloc(g, (ps__dtype)dtype, desc, &m->d)
           : ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory");
    st = ps__dist_agree(g, st);
    if (st != PS_SUCCESS) {
        if (m) ps__dist_release(g, &m->d);
        free(m);
        return st;
    }
    m->grid = g;
    memcpy(m->desc, desc, sizeof m->desc);
    *out = m;
    return PS_SUCCESS;
}

void ps_dist_matrix_destroy(ps_dist_matrix *m) {
    if (!m) return;
    ps__dist_release(m->grid, &m->d);
    free(m);
}

/* Both directions: the local array a checked and agreed on, then the transfer. */
static ps_status transfer(const ps_dist_matrix *m, void *a, int up) {
    if (!m) return PS_ERR_INVALID_ARGUMENT;
    ps_grid *g = m->grid;
    g->last_info = 0;
    ps_status st = !a && m->d.lrows > 0 && m->d.lcols > 0
                       ? ps__dist_bad_arg(g, 2, "the local array is NULL")
                       : PS_SUCCESS;
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS) return st;
    /* put writes the device copy, which the matrix owns */
    st = up ? ps__dist_put(g, (ps__dist_mat *)&m->d, a, m->desc[8])
            : ps__dist_download(g, &m->d, a, m->desc[8]);
    return ps__dist_agree(g, st);
}

ps_status ps_dist_matrix_upload(ps_dist_matrix *m, const void *a) {
    return transfer(m, (void *)a, 1);
}

ps_status ps_dist_matrix_download(const ps_dist_matrix *m, void *a) {
    return transfer(m, a, 0);
}

ps_grid *ps_dist_matrix_grid(const ps_dist_matrix *m) {
    return m ? m->grid : NULL;
}

/* A square matrix with square blocks (argument pos). */
static ps_status check_square(ps_grid *g, const ps_dist_matrix *a, int pos) {
    if (!a) return ps__dist_bad_arg(g, pos, "the matrix is NULL");
    if (a->desc[2] != a->desc[3]) return ps__dist_bad_arg(g, pos, "the matrix is not square");
    if (a->desc[4] != a->desc[5]) return ps__dist_bad_arg(g, pos, "MB and NB must be equal");
    return PS_SUCCESS;
}

/* B (argument pos) on A's grid, in A's precision, with A's order of rows distributed as A's. */
static ps_status check_rhs(ps_grid *g, const ps_dist_matrix *a, const ps_dist_matrix *b, int pos) {
    if (!b) return ps__dist_bad_arg(g, pos, "B is NULL");
    if (b->grid != g)
        return ps__dist_fail(g, PS_ERR_CONTEXT_MISMATCH, "argument %d: B is on another grid", pos);
    if (b->d.dt != a->d.dt)
        return ps__dist_fail(g, PS_ERR_DTYPE_MISMATCH, "argument %d: B's precision is not A's",
                             pos);
    if (b->desc[2] != a->desc[2]) return ps__dist_bad_arg(g, pos, "B's rows are not A's order");
    ps_status st = ps__dist_check_rows(g, a->desc, b->desc, pos);
    if (st != PS_SUCCESS) g->last_info = -pos; /* as for B's other faults */
    return st;
}

static ps_status pivots_given(ps_grid *g, const ps_dist_matrix *a, const int *ipiv, int pos) {
    if (!ipiv && a->d.lrows > 0) return ps__dist_bad_arg(g, pos, "ipiv is NULL");
    return PS_SUCCESS;
}

ps_status ps_dist_getrf(ps_dist_matrix *a, int *ipiv) {
    if (!a) return PS_ERR_INVALID_ARGUMENT;
    ps_grid *g = a->grid;
    g->last_info = 0;
    ps_status st = pivots_given(g, a, ipiv, 2);
    int empty = a->d.r.n == 0 || a->d.c.n == 0;
    if (st == PS_SUCCESS && !empty && a->desc[4] != a->desc[5])
        st = ps__dist_bad_arg(g, 1, "MB and NB must be equal");
    /* one agreement on every check, so that a rank whose descriptor differs cannot leave the
     * others waiting */
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || empty) return st;
    ps__dist_report(g, "GETRF (device)", a->d.dt, a->d.r.n, a->d.c.n, a->desc[4]);
    return ps__dist_lu_factor(g, &a->d, NULL, 0, ipiv, NULL);
}

ps_status ps_dist_getrs(char trans, const ps_dist_matrix *a, const int *ipiv, ps_dist_matrix *b) {
    if (!a) return PS_ERR_INVALID_ARGUMENT;
    ps_grid *g = a->grid;
    g->last_info = 0;
    ps_status st = PS_SUCCESS;
    if (!trans || !strchr("NnTtCc", trans)) st = ps__dist_bad_arg(g, 1, "trans must be 'N' or 'T'");
    if (st == PS_SUCCESS) st = check_square(g, a, 2);
    if (st == PS_SUCCESS) st = pivots_given(g, a, ipiv, 3);
    if (st == PS_SUCCESS) st = check_rhs(g, a, b, 4);
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || a->d.r.n == 0 || b->d.c.n == 0) return st;
    ps__trans t = trans == 'N' || trans == 'n' ? PS__NOTRANS : PS__TRANS;
    ps__dist_report(g, "GETRS (device)", a->d.dt, a->d.r.n, b->d.c.n, a->desc[4]);
    return ps__dist_lu_solve(g, t, &a->d, ipiv, 3, &b->d);
}

ps_status ps_dist_gesv(ps_dist_matrix *a, int *ipiv, ps_dist_matrix *b) {
    if (!a) return PS_ERR_INVALID_ARGUMENT;
    ps_grid *g = a->grid;
    g->last_info = 0;
    ps_status st = check_square(g, a, 1);
    if (st == PS_SUCCESS) st = pivots_given(g, a, ipiv, 2);
    if (st == PS_SUCCESS) st = check_rhs(g, a, b, 3);
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || a->d.r.n == 0) return st;
    ps__dist_report(g, "GESV (device)", a->d.dt, a->d.r.n, b->d.c.n, a->desc[4]);
    st = ps__dist_lu_factor(g, &a->d, NULL, 0, ipiv, NULL);
    if (st != PS_SUCCESS || b->d.c.n == 0) return st;
    return ps__dist_lu_solve(g, PS__NOTRANS, &a->d, ipiv, 2, &b->d);
}

static ps_status check_uplo(ps_grid *g, char uplo) {
    return uplo && strchr("LlUu", uplo) ? PS_SUCCESS
                                        : ps__dist_bad_arg(g, 1, "uplo must be 'L' or 'U'");
}

/* potrs's and posv's checks, on this rank. */
static ps_status check_chol_solve(ps_grid *g, char uplo, const ps_dist_matrix *a,
                                  const ps_dist_matrix *b) {
    ps_status st = check_uplo(g, uplo);
    if (st == PS_SUCCESS) st = check_square(g, a, 2);
    return st == PS_SUCCESS ? check_rhs(g, a, b, 3) : st;
}

ps_status ps_dist_potrf(char uplo, ps_dist_matrix *a) {
    if (!a) return PS_ERR_INVALID_ARGUMENT;
    ps_grid *g = a->grid;
    g->last_info = 0;
    ps_status st = check_uplo(g, uplo);
    if (st == PS_SUCCESS) st = check_square(g, a, 2);
    st = ps__dist_begin(g, st);
    if (st != PS_SUCCESS || a->d.r.n == 0) return st;
    ps__dist_report(g, "POTRF (device)", a->d.dt, a->d.r.n, a->d.r.n, a->desc[4]);
    return ps__dist_chol_factor(g, uplo, &a->d, NULL, 0);
}

ps_status ps_dist_potrs(char uplo, const ps_dist_matrix *a, ps_dist_matrix *b) {
    if (!a) return PS_ERR_INVALID_ARGUMENT;
    ps_grid *g = a->grid;
    g->last_info = 0;
    ps_status st = ps__dist_begin(g, check_chol_solve(g, uplo, a, b));
    if (st != PS_SUCCESS || a->d.r.n == 0 || b->d.c.n == 0) return st;
    ps__dist_report(g, "POTRS (device)", a->d.dt, a->d.r.n, b->d.c.n, a->desc[4]);
    return ps__dist_chol_solve(g, uplo, &a->d, &b->d);
}

ps_status ps_dist_posv(char uplo, ps_dist_matrix *a, ps_dist_matrix *b) {
    if (!a) return PS_ERR_INVALID_ARGUMENT;
    ps_grid *g = a->grid;
    g->last_info = 0;
    ps_status st = ps__dist_begin(g, check_chol_solve(g, uplo, a, b));
    if (st != PS_SUCCESS || a->d.r.n == 0) return st;
    ps__dist_report(g, "POSV (device)", a->d.dt, a->d.r.n, b->d.c.n, a->desc[4]);
    st = ps__dist_chol_factor(g, uplo, &a->d, NULL, 0);
    if (st != PS_SUCCESS || b->d.c.n == 0) return st;
    return ps__dist_chol_solve(g, uplo, &a->d, &b->d);
}
