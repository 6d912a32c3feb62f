/* Blocked LU on backend views (internal; the public entries are in lu_api.c). */
#ifndef PS_CORE_LU_H
#define PS_CORE_LU_H

#include "base/check.h"
#include "base/context.h"
#include "base/tview.h"

#include <stdint.h>

/*
 * Factors the m x n view a in place, A = P*L*U. ipiv: device int32 buffer of min(m,n) entries
 * (0-based row indices); info: device int32 buffer of one entry, set to 0 here and to the 1-based
 * index of the first exactly zero pivot, if any. The factorization always runs to the end.
 */
ps_status ps__getrf(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv, void *info);
/* What ps__getrf_progress reports to: columns_final(arg, a, cols), on the context's own queue
 * (lane 0) after the work that makes the leading cols x cols block of the factors final (later
 * row interchanges only move rows below it), with the matrix as the factorization then holds it
 * (a.t: stored transposed, core/lu/lu.c); cols grows by a block column a call. What it queues runs
 * among the factorization's own work and must not write the matrix.
 *
 * columns_arrive, where not NULL, lets the matrix arrive while it is factored (the host drivers'
 * uploads, core/lu/lu_overlap.c): the factorization asks it, on lane 0 before the first panel
 * (step 0) and before each step's trailing update, for the leading columns it may now work on;
 * it sets *have to at least need (at most n) and orders lane 0's work after their arrival.
 * Columns that join at step j are first brought up to date with the steps before it (their row
 * interchanges, U = L11^-1 A above row j and the update below), so the factors are the same.
 * Such a factorization keeps the matrix as it stands (never transposed). From the step at
 * column left_kept on (0: never), the row interchanges leave the columns [0, left_kept) as they
 * are: a caller that has read them applies those interchanges itself (every column must have
 * arrived by then). */
typedef struct ps__lu_progress {
    ps_status (*columns_final)(void *arg, ps__tview a, int cols);
    void *arg;
    ps_status (*columns_arrive)(void *arg, int j, int need, int *have);
    int left_kept;
    /* where not NULL, the factorization's device workspace comes from it and goes back with it,
     * not when the factorization returns (a release waits for the device: CUDA's cudaFree, which
     * holds up the other host threads' CUDA calls too) */
    ps__scratch *scratch;
} ps__lu_progress;
/* ps__getrf of the n x n view a, reporting to progress (NULL: as ps__getrf) as it goes where it
 * factors by blocks on the device; not on the host panels' path, nor once it has finished. With
 * given_transposed, a holds the matrix's transpose, as the factorization would have put it
 * (ps__getrf_holds_transposed must be true for n and dt); the factors come back as ps__getrf's. */
ps_status ps__getrf_progress(ps_context *ctx, ps__dtype dt, int n, ps__mat a, void *ipiv,
                             void *info, const ps__lu_progress *progress, int given_transposed);
/* Whether ps__getrf_progress of an n x n matrix in dt transposes it in place before it factors it
 * (LU's transposed layout), so that a caller writing the matrix anyway may write it transposed. */
int ps__getrf_holds_transposed(ps_context *ctx, ps__dtype dt, int n);
/*
 * ps__getrf of the n x n view a with each column's pivot searched within a window of rows below
 * the diagonal (PS__LU_WINDOW_BLOCKS block rows, core/lu/lu.c) instead of the whole column: the
 * panel's partial-pivoting LU covers only the window, the rows below get L21 = A21 U11^-1 by a
 * triangular solve, and the entries of L below the window are not bounded by 1. Stable only with
 * high probability, on a matrix randomized first (the refinement's RBT factorization,
 * core/refine/refine.c). Pivots and info as ps__getrf (every pivot within its window); ps__getrs
 * solves with the factors.
 */
ps_status ps__getrf_window(ps_context *ctx, ps__dtype dt, int n, ps__mat a, void *ipiv, void *info);
/* A host driver's LU call (ps_?getrf of a square matrix, ps_?gesv), checked: the caller's
 * arrays, and how their contents are checked for NaN and Inf. nrhs = 0: no solve. */
typedef struct ps__lu_host_call {
    const char *fn;
    int n, nrhs;
    void *a;
    int lda;
    int *ipiv; /* 1-based, as LAPACK's */
    void *b;
    int ldb;
    ps__finite_check check_a, check_b;
} ps__lu_host_call;
/* The order from which host LU overlaps its transfers with the work: lu_overlap, else
 * the backend's measured choice (block_size of PS__ALGO_LU_OVERLAP); 0: never. */
int ps__lu_overlap_from(ps_context *ctx, ps__dtype dt);
/* Where a host LU of order n overlapped with its transfers splits off its left part [0, f), the
 * columns that go down before the factorization ends (core/lu/lu_overlap.c), or 0 when it is
 * not overlapped: below the order, on backends that work in host memory, on the host panels'
 * path, or with fewer than four blocks. */
int ps__lu_overlap_split(ps_context *ctx, ps__dtype dt, int n);
/* The host LU of c, its left part [0, f) as ps__lu_overlap_split says, its transfers overlapped
 * with the work (core/lu/lu_overlap.c). On success A holds the factors and ipiv the pivots, *info
 * the first zero pivot's column (0: none) and, with a solve, *result PS_ERR_RESULT_NOT_FINITE
 * where the solution is not finite; B gets the solution when both are 0. A refused input leaves
 * the caller's arrays as they were; a device fault during the work may have written rows of A. */
ps_status ps__lu_overlapped(ps__scratch *s, ps__dtype dt, const ps__lu_host_call *c, int f,
                            int *info, ps_status *result);
/* Rows [first, end) of the cols columns of the host array a reordered as the interchanges of
 * rows k and ipiv[k] - base for k = first .. last - 1 (each ipiv[k] - base in [k, end)) reorder
 * them: composed into one permutation, then each column gathered through a buffer, the columns
 * spread over threads; rows no interchange moves are left alone. from: end - first ints; buffers:
 * threads buffers of end - first elements. For drivers that download factors before the later
 * interchanges reach them. */
void ps__lu_host_interchanges(ps__dtype dt, int cols, void *a, int lda, const int *ipiv, int base,
                              int first, int last, int end, int *from, char *buffers, int threads);
/* The threads ps__lu_host_interchanges may use (OpenMP's maximum; 1 without OpenMP). */
int ps__lu_host_threads(void);
/* The first n device pivots (int32) of src copied to dst. */
ps_status ps__copy_pivots(ps_context *ctx, int n, const void *src, void *dst);
/* ps__getrf of the n x n view a through an aligned copy, diag(A, I) of order ps__aligned_order(n)
 * with columns of ps__device_ld, the factors and pivots then copied back; *copied 0 (and nothing
 * done, no message left) where the device lacks the memory for the copy. */
ps_status ps__getrf_in_copy(ps__scratch *s, ps__dtype dt, int n, ps__mat a, void *ipiv, void *info,
                            int *copied);
/* Solves op(A) X = B (n x nrhs) with ps__getrf's factors and its device pivots. */
ps_status ps__getrs(ps_context *ctx, ps__dtype dt, ps__trans trans, int n, int nrhs, ps__mat a,
                    const void *ipiv, ps__mat b);
/* perm (an int32 device vector of n) = the row permutation getrf's device pivots ipiv amount to:
 * row i of P^T B is row perm[i] of B. Reads the pivots on the host once (a synchronization). */
ps_status ps__pivots_to_perm(ps_context *ctx, int n, const void *ipiv, void *perm);
/* dst = (LU)^-1 P^T src (n x nrhs), ps__getrs's NOTRANS solve with the pivots given as
 * ps__pivots_to_perm's permutation: one gather (permute_rows) instead of the interchanges a chunk
 * after another, for callers that solve with one factorization many times. src and dst do not
 * overlap; src is left as it was. */
ps_status ps__getrs_perm(ps_context *ctx, ps__dtype dt, int n, int nrhs, ps__mat a,
                         const void *perm, ps__mat src, ps__mat dst);
/*
 * What the blocked right-looking factorization (ps__blocked_factor) is instantiated with: LU,
 * or WZ in its step order (core/wz/wz.c), which is the same algorithm with two-column steps.
 */
typedef struct ps__factor_kind {
    int align; /* recursive splits fall on multiples of this many columns */
    /* Factors columns j..j+n-1 (rows j..m-1) of the whole matrix view a without blocking. */
    ps_status (*leaf)(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, int j, void *ipiv,
                      void *info, const struct ps__factor_kind *kind);
    int (*leaf_width)(ps_context *ctx, ps__dtype dt, int m);
    ps__vec zsub;  /* WZ: where the corners' lower-left entries go */
    int pivoting;  /* WZ: 0 for the unpivoted algorithm */
    ps__algo algo; /* PS__ALGO_LU or PS__ALGO_WZ */
} ps__factor_kind;

/* Blocked factorization of the m x n view a with block size nb (a multiple of kind->align),
 * with look-ahead on backends with two lanes. Pivots as ps__getrf; info is not reset. */
ps_status ps__blocked_factor(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                             void *info, int nb, const ps__factor_kind *kind);
/* The recursive LU panel of ps__getrf on its own: factors columns j..j+w-1, rows j..m-1 of the
 * whole-matrix view a, swapping rows within those columns only; pivots (absolute 0-based rows)
 * go to ipiv[j..j+w-1], the first exactly zero pivot's 1-based column to info (if unset). */
ps_status ps__lu_panel(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w, void *ipiv,
                       void *info);
/* Applies the factored panel j (jb wide, pivots in ipiv) to the columns [c0, c0 + cw) of the
 * m-row view a: its row swaps, the block row of U (trsm) and the update of the rows below. */
ps_status ps__lu_update(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int jb, int c0,
                        int cw, void *ipiv);
/* Whether block rows of U are formed as inv(L11) times the block (a GEMM) instead of by trsm,
 * for an order-k factorization in blocks of nb: lu_block_row, else the backend's
 * measured choice (block_size(PS__ALGO_LU_INVERSE)). LU's and gjinv's block rows. */
int ps__use_l_inverse(ps_context *ctx, ps__dtype dt, int k, int nb);
/* The workspace of block rows by inv(L11): inv(L11) of the last two block steps (nb x nb each,
 * by the step's parity: the look-ahead lane forms the next one while the other lane still uses
 * the current one) and the product before it goes back (nb x n, by column, so the lanes'
 * disjoint columns never share it). LU's and gjinv's. */
typedef struct ps__l_inverse {
    int nb;
    void *linv[2];
    void *product;
} ps__l_inverse;
/* Takes the buffers from s for blocks of nb and n columns. */
ps_status ps__l_inverse_open(ps__scratch *s, ps__dtype dt, int nb, int n, ps__l_inverse *inv);
/* inv(L11) of step j (column j, jb wide) into its slot; l: the unit lower jb x jb block. */
ps_status ps__l_inverse_form(ps_context *ctx, ps__dtype dt, const ps__l_inverse *inv, int j, int jb,
                             ps__mat l);
/* Step j's slot (nb x nb; its leading jb x jb once formed). */
ps__mat ps__l_inverse_of(const ps__l_inverse *inv, int j);
/* The product workspace's slot of the matrix columns [c0, c0 + cw): nb x cw as is, or, for a
 * matrix stored transposed, stored transposed too (cw x nb at rows c0.. of an n x nb array), so
 * that gjinv's big products read it as the A of C = A B. */
ps__tview ps__l_inverse_product_tv(const ps__l_inverse *inv, int c0, int transposed, int n);
/* block (jb x cw, at columns [c0, c0 + cw) of an n-column matrix) = inv(L11 of step j) block, by a
 * GEMM through the product workspace (stored as block is). */
ps_status ps__l_inverse_apply(ps_context *ctx, ps__dtype dt, const ps__l_inverse *inv, int j,
                              int jb, int c0, int cw, ps__tview block, int n);
/* A panel factored on the host CPU (core/lu/lu_hybrid.c; LU's and gjinv's hybrid variants): a
 * CPU-backend context, an m x nb host buffer holding rows at their absolute positions (column 0
 * is the panel's first), the pivots (absolute rows) and the first zero pivot's 1-based column. */
typedef struct ps__host_panel {
    ps_context *host;
    ps__mat panel;
    int32_t *ipiv;
    int32_t info;
} ps__host_panel;
/* Opens the CPU context and takes the buffers (for k pivots) from s. */
ps_status ps__host_panel_open(ps_context *ctx, ps__scratch *s, ps__dtype dt, int m, int nb, int k,
                              ps__host_panel *hp);
/* Columns [j, j + w), rows [j, m) of a into the host buffer (blocking: after the queued work). */
ps_status ps__host_panel_download(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w,
                                  ps__host_panel *hp);
/* LU with partial pivoting of the downloaded panel j, on the host. */
ps_status ps__host_panel_factor(ps__dtype dt, int m, int j, int w, ps__host_panel *hp);
/* The host-factored panel j back into a, its pivots into the device buffer ipiv. */
ps_status ps__host_panel_upload(ps_context *ctx, ps__dtype dt, int m, ps__mat a, int j, int w,
                                void *ipiv, const ps__host_panel *hp);
/* ps__getrf with every panel factored on the host CPU (core/lu/lu_hybrid.c), nb wide. */
ps_status ps__getrf_hybrid(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                           void *info, int nb);
/* Sets a device info word to 0. */
ps_status ps__zero_info(ps_context *ctx, void *info);
/* The block size ps__getrf uses for an m x n matrix. */
int ps__lu_block_size(ps_context *ctx, ps__dtype dt, int m, int n);

#endif
