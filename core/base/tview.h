/*
 * Blocks of a matrix that may be stored transposed (internal; gjinv's and LU's transposed
 * layouts, core/gj/gj.c and core/lu/lu.c).
 *
 * Holding a matrix transposed turns each row interchange of an elimination into the interchange
 * of two contiguous columns, where a row of a column-major matrix has one element per memory
 * sector. The algorithm and its pivoting rule stay the same, only the storage differs (the BLAS
 * calls see transposed operands, so their sums may round in another order). A ps__tview is a
 * block as the algorithm sees it together with how it is stored, and the helpers below turn each
 * operation on views into the one on storage: a product C = A B on a transposed C is
 * C^T = B^T A^T, a solve from the left becomes one from the right, and row interchanges become
 * column interchanges.
 */
#ifndef PS_CORE_TVIEW_H
#define PS_CORE_TVIEW_H

#include "backend.h"

typedef struct ps__tview {
    ps__mat m;
    int t; /* 1: element (i, j) of the block is element (j, i) of m */
} ps__tview;

/* The block of v from its element (i, j) on. */
static inline ps__tview ps__tview_at(ps__tview v, int i, int j) {
    v.m = v.t ? ps__mat_at(v.m, j, i) : ps__mat_at(v.m, i, j);
    return v;
}

static inline ps__tview ps__tview_as_is(ps__mat m) {
    return (ps__tview){m, 0};
}

/* c = alpha a b + beta c, c m x n, k the inner dimension. */
ps_status ps__gemm_tv(ps__backend *be, ps__dtype dt, int m, int n, int k, const ps__scalar *alpha,
                      ps__tview a, ps__tview b, const ps__scalar *beta, ps__tview c);
/* The trsm entry's solve op(A) X = alpha B (side left) or X op(A) = alpha B (right), with the
 * triangle's uplo and diag as the algorithm sees them, on the m x n view b. */
ps_status ps__trsm_tv(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                      ps__diag diag, int m, int n, const ps__scalar *alpha, ps__tview a,
                      ps__tview b);
/* dst = src, rows x cols views that do not overlap. */
ps_status ps__copy_tv(ps__backend *be, ps__dtype dt, int rows, int cols, ps__tview src,
                      ps__tview dst);
/* The row interchanges k..k+b-1 (getrf's pivots, entry k of ipiv at element k) on the ncols
 * columns of the view a. */
ps_status ps__swap_rows_tv(ps__backend *be, ps__dtype dt, int ncols, ps__tview a, int k, int b,
                           const void *ipiv);
/* Transposes the n x n view a in place: by the backend's transpose_square where it offers it
 * (each entry read and written once), else by strips of w columns, which move each off-diagonal
 * entry three times; work holds w x n elements. */
ps_status ps__transpose_in_place(ps__backend *be, ps__dtype dt, int n, ps__mat a, void *work,
                                 int w);
/* The same by strips alone (the fallback; tested by itself). */
ps_status ps__transpose_in_place_by_strips(ps__backend *be, ps__dtype dt, int n, ps__mat a,
                                           void *work, int w);

#endif
