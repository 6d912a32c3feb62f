/* The drivers' steps on matrices already on the devices, shared by the host-array API
 * (dist_api.c) and the device-resident one (dist_matrix.c): the factorizations with LAPACK's
 * info turned into a status, ScaLAPACK's pivots, and the solves. */
#include "dist_staged.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

ps_status ps__dist_check_rows(ps_grid *g, const int *desca, const int *descb, int pos) {
    if (descb[4] == desca[4] && descb[6] == desca[6]) return PS_SUCCESS;
    return ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT,
                         "argument %d: B's rows must be distributed as A's (MB %d and RSRC %d, "
                         "got %d and %d)",
                         pos, desca[4], desca[6], descb[4], descb[6]);
}

/* ps__dist_getrf, the host local array host (NULL: none) put into a first and the factors
 * brought back into it (also a singular matrix's), beside the work where ps__dist_staged_split
 * allows. */
static ps_status getrf_from(ps_grid *g, ps__dist_mat *a, void *host, int lld, int *piv, int *info) {
    if (!host) return ps__dist_getrf(g, a, piv, info);
    int f = ps__dist_staged_split(g, a, a->r.n < a->c.n ? a->r.n : a->c.n);
    if (f > 0) return ps__dist_getrf_staged(g, a, host, lld, f, piv, info);
    ps_status st = ps__dist_agree(g, ps__dist_put(g, a, host, lld));
    if (st == PS_SUCCESS) st = ps__dist_getrf(g, a, piv, info);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_download(g, a, host, lld));
    return st;
}

ps_status ps__dist_lu_factor(ps_grid *g, ps__dist_mat *a, void *host, int lld, int *ipiv,
                             int *info_out) {
    int kmax = a->r.n < a->c.n ? a->r.n : a->c.n, info = 0;
    int *piv = malloc((size_t)(kmax > 0 ? kmax : 1) * sizeof *piv);
    ps_status st = ps__dist_agree(
        g, piv ? PS_SUCCESS : ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory"));
    if (st == PS_SUCCESS) st = getrf_from(g, a, host, lld, piv, &info);
    if (st == PS_SUCCESS) {
        /* ScaLAPACK's: local row l was interchanged with global row ipiv[l] (1-based) */
        int rows = ps__cyclic_below(&a->r, kmax, g->myrow);
        for (int l = 0; l < rows; l++) ipiv[l] = piv[ps__cyclic_global(&a->r, l, g->myrow)] + 1;
        if (info) {
            g->last_info = info;
            st = ps__dist_fail(g, PS_ERR_SINGULAR, "U(%d,%d) is exactly zero", info, info);
        }
    }
    if (info_out) *info_out = info;
    free(piv);
    return st;
}

/* The interchanges' device scratch from the grid's slot (one process row: the n pivots, none
 * where this rank has no columns of b; else the rows that move and their lists, with the
 * exchange buffer and the host lists). Agreed. */
static ps_status take_swap(ps_grid *g, const ps__dist_mat *b, void **dev) {
    int n = b->r.n, nb = b->r.nb;
    size_t es = ps__dtype_size(b->dt), cols = b->lcols > 0 ? (size_t)b->lcols : 1;
    ps_status st = PS_SUCCESS;
    *dev = NULL;
    if (g->nprow > 1) {
        st = ps__dist_reserve_stage(g, (size_t)2 * (size_t)nb * cols * es);
        if (st == PS_SUCCESS) st = ps__dist_reserve_swaps(g, nb);
        if (st == PS_SUCCESS)
            st =
                ps__dist_failed(g, ps__dist_scratch(g, PS__DIST_SWAP,
                                                    (size_t)4 * (size_t)nb * (cols + 1) * es, dev));
    } else if (n > 0 && b->lcols > 0) {
        st = ps__dist_failed(g,
                             ps__dist_scratch(g, PS__DIST_SWAP, (size_t)n * sizeof(int32_t), dev));
    }
    return ps__dist_agree(g, st);
}

/* getrf's interchanges piv[0..n) on all of b, block by block, forwards or backwards; every
 * rank takes part in every exchange, also after a failure, and the caller agrees once. On one
 * process row every row is local: one laswp on the device. */
static ps_status swap_all(ps_grid *g, const ps__dist_mat *b, const int *piv, int backwards) {
    int n = b->r.n, nb = b->r.nb, blocks = (n + nb - 1) / nb;
    void *dev;
    ps_status st = take_swap(g, b, &dev);
    if (g->nprow == 1) {
        ps__backend *be = &g->ctx->be;
        if (st != PS_SUCCESS || !dev) return st;
        st = be->ops->upload(be, PS__INT32, n, 1, piv, n, (ps__mat){dev, 0, n});
        if (st == PS_SUCCESS)
            st = be->ops->laswp(be, b->dt, b->lcols, b->m, 0, n, dev, 0, !backwards);
        return ps__dist_failed(g, st);
    }
    for (int s = 0; s < blocks && st == PS_SUCCESS; s++) {
        int k = (backwards ? blocks - 1 - s : s) * nb;
        ps_status x = ps__dist_swap_rows(g, b, k, n - k < nb ? n - k : nb, piv + k, 0, b->lcols, 0,
                                         0, backwards, dev);
        if (st == PS_SUCCESS) st = x;
    }
    return st;
}

/* The 0-based global pivots of all n rows on every rank, from ScaLAPACK's local ones (argument
 * pos), checked to be getrf's. Collective. */
static ps_status pivots_in(ps_grid *g, const ps__dist_mat *a, const int *ipiv, int pos, int *piv) {
    int n = a->r.n;
    int *recv = malloc((size_t)(n + 2 * g->nprow) * sizeof *recv);
    ps_status st = ps__dist_agree(
        g, recv ? PS_SUCCESS : ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory"));
    if (st != PS_SUCCESS) {
        free(recv);
        return st;
    }
    int *counts = recv + n, *displs = counts + g->nprow, off = 0;
    for (int p = 0; p < g->nprow; p++) {
        counts[p] = ps__cyclic_below(&a->r, n, p), displs[p] = off, off += counts[p];
    }
    MPI_Allgatherv(ipiv, counts[g->myrow], MPI_INT, recv, counts, displs, MPI_INT, g->col);
    for (int p = 0; p < g->nprow; p++)
        for (int l = 0; l < counts[p]; l++)
            piv[ps__cyclic_global(&a->r, l, p)] = recv[displs[p] + l] - 1;
    int bad = 0;
    for (int i = 0; i < n; i++) bad |= piv[i] < i || piv[i] >= n;
    if (bad) {
        g->last_info = -pos;
        st = ps__dist_fail(g, PS_ERR_INVALID_ARGUMENT, "argument %d: ipiv is not getrf's", pos);
    }
    free(recv);
    return ps__dist_agree(g, st);
}

ps_status ps__dist_lu_solve(ps_grid *g, ps__trans trans, const ps__dist_mat *a, const int *ipiv,
                            int pos, ps__dist_mat *b) {
    int n = a->r.n;
    int *piv = malloc((size_t)(n > 0 ? n : 1) * sizeof *piv);
    ps_status st = ps__dist_agree(
        g, piv ? PS_SUCCESS : ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory"));
    if (st == PS_SUCCESS) st = pivots_in(g, a, ipiv, pos, piv);
    if (st == PS_SUCCESS && trans == PS__NOTRANS) {
        st = ps__dist_agree(g, swap_all(g, b, piv, 0));
        if (st == PS_SUCCESS) st = ps__dist_trsm(g, a, PS__LOWER, PS__NOTRANS, PS__UNIT, b);
        if (st == PS_SUCCESS) st = ps__dist_trsm(g, a, PS__UPPER, PS__NOTRANS, PS__NONUNIT, b);
    } else if (st == PS_SUCCESS) {
        st = ps__dist_trsm(g, a, PS__UPPER, PS__TRANS, PS__NONUNIT, b);
        if (st == PS_SUCCESS) st = ps__dist_trsm(g, a, PS__LOWER, PS__TRANS, PS__UNIT, b);
        if (st == PS_SUCCESS) st = ps__dist_agree(g, swap_all(g, b, piv, 1));
    }
    free(piv);
    ps__dist_scratch_release(g);
    return st;
}

static ps__uplo uplo_of(char uplo) {
    return uplo == 'L' || uplo == 'l' ? PS__LOWER : PS__UPPER;
}

/* ps__dist_potrf, the triangle of the host local array host (NULL: none) put into a first and the
 * factor brought back into it (also one that is not positive definite), beside the work where
 * ps__dist_staged_split allows. */
static ps_status potrf_from(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, void *host, int lld,
                            int *info) {
    if (!host) return ps__dist_potrf(g, a, uplo, info);
    int f = ps__dist_staged_split(g, a, a->r.n);
    if (f > 0 && g->nprow > 1) return ps__dist_potrf_grid_staged(g, a, uplo, host, lld, f, info);
    if (f > 0 && uplo == PS__LOWER) {
        /* the lower triangle's columns shorten to the right: its left part holding half of it,
         * n (1 - 1/sqrt 2) columns, in whole blocks */
        int nb = a->c.nb, half = (int)(0.29289 * a->r.n) / nb * nb;
        return ps__dist_potrf_staged(g, a, host, lld, half > nb ? half : nb, info);
    }
    if (f > 0) return ps__dist_potrf_upper_staged(g, a, host, lld, f, info);
    ps_status st = ps__dist_agree(g, ps__dist_put_triangle(g, a, uplo, host, lld));
    if (st == PS_SUCCESS) st = ps__dist_potrf(g, a, uplo, info);
    if (st == PS_SUCCESS) st = ps__dist_agree(g, ps__dist_get_triangle(g, a, uplo, host, lld));
    return st;
}

ps_status ps__dist_chol_factor(ps_grid *g, char uplo, ps__dist_mat *a, void *host, int lld) {
    int info = 0;
    ps_status st = potrf_from(g, a, uplo_of(uplo), host, lld, &info);
    if (st == PS_SUCCESS && info) {
        g->last_info = info;
        st = ps__dist_fail(g, PS_ERR_NOT_SPD,
                           "the leading minor of order %d is not positive definite", info);
    }
    return st;
}

ps_status ps__dist_chol_solve(ps_grid *g, char uplo, const ps__dist_mat *a, ps__dist_mat *b) {
    ps__uplo u = uplo_of(uplo);
    ps__trans first = u == PS__LOWER ? PS__NOTRANS : PS__TRANS;
    ps_status st = ps__dist_trsm(g, a, u, first, PS__NONUNIT, b);
    if (st == PS_SUCCESS)
        st = ps__dist_trsm(g, a, u, first ? PS__NOTRANS : PS__TRANS, PS__NONUNIT, b);
    ps__dist_scratch_release(g);
    return st;
}

ps_status ps__dist_solve_reserve(ps_grid *g, int lu, const ps__dist_mat *a, const ps__dist_mat *b) {
    void *dev;
    /* potrs solves with T and T^T whichever the triangle */
    ps_status st = lu ? take_swap(g, b, &dev) : PS_SUCCESS;
    if (st == PS_SUCCESS) st = ps__dist_trsm_reserve(g, a, PS__NOTRANS, b);
    if (st == PS_SUCCESS && !lu) st = ps__dist_trsm_reserve(g, a, PS__TRANS, b);
    return st;
}
