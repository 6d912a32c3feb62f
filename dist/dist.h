/* The distributed layer's internals: the grid, ScaLAPACK's block-cyclic index arithmetic and
 * the exchanges the factorizations share. */
#ifndef PS_DIST_H
#define PS_DIST_H

#include "portsolve_mpi.h"

#include "base/context.h"

#include <stddef.h>

/* Host buffers that grow and stay with the grid: the exchanges' staging and the interchanges'
 * lists. A driver reserves what its steps need before it starts (and agrees on it), so that a
 * step never fails for host memory halfway through a collective. */
typedef struct ps__dist_buf {
    void *p;
    size_t bytes;
} ps__dist_buf;

/* The device scratch of the solves, by slot (ps__dist_scratch). */
enum {
    PS__DIST_SWAP,      /* the interchanges' rows and lists */
    PS__DIST_TRSM_DIAG, /* ps__dist_trsm: the diagonal block, b's block, T's block column, */
    PS__DIST_TRSM_B,
    PS__DIST_TRSM_T,
    PS__DIST_TRSM_ROW, /* op = T: a block row of T, and one process's part of it */
    PS__DIST_TRSM_PART,
    PS__DIST_COLS_X, /* ps__dist_trsm_cols: the replica of b, and x_k over the product */
    PS__DIST_COLS_PACK,
    PS__DIST_SCRATCH_SLOTS
};

struct ps_grid {
    MPI_Comm all, row, col; /* the grid; this rank's process row; its process column */
    int nprow, npcol, myrow, mycol, rank;
    ps_context *ctx;
    const char *transport;     /* "mpi", or the peer transport's name (dist_transport.c) */
    void *peer_row, *peer_col; /* the peer groups of the process row and column (NULL: none) */
    char last_error[PS__ERROR_SIZE];
    int last_info;
    int host_threads;   /* this rank's share of its node's cores for host copies (dist_grid.c) */
    ps__dist_buf stage; /* the exchanges' host copy on the MPI transport: the backend's
                           page-locked memory, which its transfers move in place */
    size_t stage_piece; /* the most it holds: PS__DIST_STAGE_BYTES, or the tests' dist_stage_kib
                           (the same on every rank) */
    size_t stage_asked; /* the most the running call's drivers reserved, up to stage_piece */
    ps__dist_buf swaps; /* ps__dist_swap_rows's index lists (ps__dist_reserve_swaps) */
    int swaps_asked;    /* the most interchanges the running call's drivers reserved for */
    long reserve_underruns; /* exchanges that found the stage or the swap lists smaller than
                               their drivers must reserve before the first exchange, so that
                               they would grow, and might fail on one rank only, in the middle
                               of the exchanges (the tests want none) */
    void *scratch[PS__DIST_SCRATCH_SLOTS]; /* device, kept until ps__dist_scratch_release */
    size_t scratch_bytes[PS__DIST_SCRATCH_SLOTS];
};

/* One dimension of a block-cyclic distribution: n indices in blocks of nb over np processes,
 * the first block on src; me is this rank's process in that dimension. */
typedef struct ps__cyclic {
    int n, nb, np, src, me;
} ps__cyclic;

/* Local indices on process p of the global indices below g (ScaLAPACK's NUMROC of g). */
int ps__cyclic_below(const ps__cyclic *d, int g, int p);
/* The process holding global index g, and g's local index there. */
int ps__cyclic_owner(const ps__cyclic *d, int g);
int ps__cyclic_local(const ps__cyclic *d, int g);
/* The global index of local index l on process p. */
int ps__cyclic_global(const ps__cyclic *d, int l, int p);

/* A local array on the device: the rank's part of a distributed matrix. */
typedef struct ps__dist_mat {
    ps__dtype dt;
    ps__cyclic r, c; /* rows over the process rows, columns over the process columns */
    int lrows, lcols;
    ps__mat m; /* device view, leading dimension max(1, lrows) */
} ps__dist_mat;

/* A device local array for desc's layout (uninitialised; release frees it); put uploads the
 * host local array a (leading dimension lld) into it, download the other way; upload is alloc
 * and put. */
ps_status ps__dist_alloc(ps_grid *g, ps__dtype dt, const int desc[9], ps__dist_mat *d);
ps_status ps__dist_put(ps_grid *g, ps__dist_mat *d, const void *a, int lld);
ps_status ps__dist_upload(ps_grid *g, ps__dtype dt, const int desc[9], const void *a,
                          ps__dist_mat *d);
ps_status ps__dist_download(ps_grid *g, const ps__dist_mat *d, void *a, int lld);
/* ps__upload (up) or ps__download of a rows x cols block between host (leading dimension ld) and
 * the view v, its host copies on the rank's share of its node's cores (ps_grid.host_threads). */
ps_status ps__dist_move(ps_grid *g, int up, ps__dtype dt, int rows, int cols, void *host, int ld,
                        ps__mat v);
void ps__dist_release(ps_grid *g, ps__dist_mat *d);
/* put and download of uplo's triangle of a square matrix only, its diagonal blocks whole (on the
 * device the other triangle is left undefined; in the host array it is not written). */
ps_status ps__dist_put_triangle(ps_grid *g, ps__dist_mat *d, ps__uplo uplo, const void *a, int lld);
ps_status ps__dist_get_triangle(ps_grid *g, const ps__dist_mat *d, ps__uplo uplo, void *a, int lld);
/* Local rows [*r0, *r0 + *rows) of the local block column from c (w columns) that hold uplo's
 * triangle of a square matrix, its diagonal blocks whole. */
void ps__dist_triangle_rows(const ps__dist_mat *d, ps__uplo uplo, int c, int w, int *r0, int *rows);

/* Makes a local status global: every rank returns the first failing rank's status, with its
 * message in grid->last_error. */
ps_status ps__dist_agree(ps_grid *g, ps_status st);
/* Records a failure on this rank: the message goes to grid->last_error. */
ps_status ps__dist_fail(ps_grid *g, ps_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* st, and when it is a failure of this rank's context, recorded with the context's message. */
ps_status ps__dist_failed(ps_grid *g, ps_status st);

typedef enum ps__dist_line { PS__DIST_ROW, PS__DIST_COL } ps__dist_line;

/* A driver's device steps on this rank: the first failure (after which the rank still takes
 * part in every exchange, so that no other waits for it), the lanes of its look-ahead (lanes
 * 1: everything on lane 0) and, where set, whom to tell how far the steps queued so far have
 * made the factor final (dist_staged.c sends it down behind them). */
typedef struct ps__dist_steps {
    ps_grid *g;
    int lanes, lane;
    ps_status st;
    void (*done)(void *arg, int k);
    void *done_arg;
} ps__dist_steps;
/* Records st, with the context's message, unless an earlier step failed. */
void ps__dist_note(ps__dist_steps *s, ps_status st);
/* Records st, a status of the distributed layer whose message is already the grid's, unless an
 * earlier step failed. */
void ps__dist_keep(ps__dist_steps *s, ps_status st);
/* Ends the steps: every rank's status agreed on and, on success, the least positive value of the
 * device int32 word info over the ranks (a first zero pivot, a first failing minor) into *first
 * unless that is already set. */
ps_status ps__dist_first_info(ps__dist_steps *s, void *info, int *first);
/* The backend's use_lane and lane_wait where the steps have two lanes; nothing otherwise. */
void ps__dist_use_lane(ps__dist_steps *s, int lane);
void ps__dist_lane_wait(ps__dist_steps *s, int waiter, int signaller);
/* Tells s->done, where set and no step has failed, that the work queued on both lanes so far
 * has done every step before the global index k (a multiple of the block size, or the order):
 * LU's and upper Cholesky's rows above k, lower Cholesky's columns left of k, are final. */
void ps__dist_steps_done(ps__dist_steps *s, int k);

/* Both lanes follow everything queued on either, back on the context's queue if they were split
 * (lanes_split); lane 0 current. */
void ps__dist_lanes_join(ps__dist_steps *s);
/* The staged drivers' catch-up (dist_staged.c): the local columns [c0, c1) brought up to date
 * with the factored panels [0, f) of width nb, send(w, k) (NULL: none) broadcasting panel k on
 * lane 1 a panel ahead of use(w, k, c0, c1) updating the columns with it on lane 0; an agreement
 * a panel; the lanes joined at the end. */
void ps__dist_catch_up(ps__dist_steps *s, void *w, int f, int nb, int c0, int c1,
                       void (*send)(void *w, int k), void (*use)(void *w, int k, int c0, int c1));

/* MPI_Bcast of bytes of any size (MPI counts are ints: pieces of at most 1 GiB). */
void ps__dist_bcast_bytes(void *buf, size_t bytes, int root, MPI_Comm comm);

/* Reserves the grid's host buffer for the exchanges of up to bytes a message on the MPI transport
 * (ps__dist_bcast, ps__dist_vbcast), and its host lists for ps__dist_swap_rows of up to count
 * interchanges. */
ps_status ps__dist_reserve_stage(ps_grid *g, size_t bytes);
ps_status ps__dist_reserve_swaps(ps_grid *g, int count);
/* Messages larger than the grid's stage_piece (this, unless the tests ask for less) go through
 * the stage in pieces of whole columns (or of one column, where a column is larger), so the
 * stage never holds more. */
#define PS__DIST_STAGE_BYTES ((size_t)64 << 20)

/* Process p's local indices [lo, hi) of the distributed dimension d, between a packed device
 * view (the (l - lo)-th row, or column with by_cols) and the whole one (global index g at its
 * (g - g0)-th), w wide, a run of consecutive global indices a copy: to_whole 1 places the packed
 * ones in the whole, 0 takes them back. */
ps_status ps__dist_move_runs(ps__backend *be, ps__dtype dt, const ps__cyclic *d, int p, int lo,
                             int hi, int g0, int w, int by_cols, ps__mat packed, ps__mat whole,
                             int to_whole);
/* Indices [g0, g1) of a panel w wide assembled in global order: along a process column (line
 * PS__DIST_COL: each process row's rows of it, mine being this rank's, w columns) or along a
 * process row (PS__DIST_ROW: each process column's columns, w rows), every part broadcast to the
 * line, and ranks with place set putting each at its place in the device view whole (index g at
 * g - g0). part: device scratch for the largest part. In order with the work on lane, the
 * current one (ps__dist_bcast). Collective over the line. */
ps_status ps__dist_assemble(ps_grid *g, ps__dist_line line, const ps__dist_mat *a, int g0, int g1,
                            int w, ps__mat mine, void *part, int place, ps__mat whole, int lane);
/* Applies the interchanges piv[0..count) (0-based global rows, row base + i swapped with piv[i],
 * in order, or in the reverse order) to the local columns [c0, c1) of a but those in [skip0,
 * skip1) (none where skip0 >= skip1; LU's panel, which has them already). rows_dev: device
 * scratch of at least 4 count (c1 - c0 + 1) elements (the rows that move, and the int32 lists
 * of where they come from and go), not in use on another lane. The caller reserves the host
 * lists first (ps__dist_reserve_swaps, agreed), so that no rank fails alone halfway through the
 * exchanges. Collective over the process column. */
ps_status ps__dist_swap_rows(ps_grid *g, const ps__dist_mat *a, int base, int count, const int *piv,
                             int c0, int c1, int skip0, int skip1, int reverse, void *rows_dev);
/* Broadcasts a rows x cols device view from root of the process row or column into the device
 * view dst, a workspace (the root's own copy is left where it is: src on the root; on the peer
 * transport the root's dst is written too, and the gaps between dst's columns), in order with
 * the work on lane, the current one (as ps__dist_vbcast). */
ps_status ps__dist_bcast(ps_grid *g, ps__dist_line line, int root, ps__dtype dt, int rows, int cols,
                         ps__mat src, ps__mat dst, int lane);
/* The MPI transport's part of it: rows x cols of src on root to dst on the other ranks of comm,
 * through the grid's stage, by the backend's blocking transfers (lane 0). Collective over comm;
 * every rank takes part also after a failure. */
ps_status ps__dist_bcast_host(ps_grid *g, MPI_Comm comm, int root, ps__dtype dt, int rows, int cols,
                              ps__mat src, ps__mat dst);

/* ps__dist_trsm on a grid of one process row with b in one process column, every step on the
 * devices (dist_trsm_cols.c), and whether b fits it. */
int ps__dist_trsm_cols_fits(const ps_grid *g, const ps__dist_mat *b);
ps_status ps__dist_trsm_cols(ps_grid *g, const ps__dist_mat *a, ps__uplo uplo, ps__trans trans,
                             ps__diag diag, ps__dist_mat *b);

/* Chooses the grid's transport (collective; falls back to MPI on any failure) and closes it. */
void ps__dist_transport_open(ps_grid *g);
void ps__dist_transport_close(ps_grid *g);
/* Whether the grid's exchanges of device data go through the backend's peer transport. */
int ps__dist_peers(const ps_grid *g);
/* Broadcasts count elements of dt at element offset off of device buffer buf from root (a
 * process column of the process row, or a process row of the process column) to the same place
 * on the line's other ranks, in order with the work queued on lane, the current one: on the peer
 * transport queued there, else through the grid's stage (reserved for count elements) by host
 * transfers on lane 0, lane 1 made to wait for them. */
ps_status ps__dist_vbcast(ps_grid *g, ps__dist_line line, int root, ps__dtype dt, void *buf,
                          size_t off, size_t count, int lane);

/* LU of the distributed matrix a in place; piv receives the min(m, n) interchanges as 0-based
 * global rows, *info the first zero pivot (1-based, 0: none). */
ps_status ps__dist_getrf(ps_grid *g, ps__dist_mat *a, int *piv, int *info);
/* The same on a grid of one process row, every step on the devices (dist_getrf_cols.c). */
ps_status ps__dist_getrf_cols(ps_grid *g, ps__dist_mat *a, int *piv, int *info);
/* Cholesky of a in place (uplo's triangle); *info the order of the first minor that is not
 * positive definite (0: none). */
ps_status ps__dist_potrf(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, int *info);
/* The lower and the upper one on a grid of one process row, every step on the devices
 * (dist_potrf_cols.c, dist_potrf_cols_upper.c). */
ps_status ps__dist_potrf_cols(ps_grid *g, ps__dist_mat *a, int *info);
ps_status ps__dist_potrf_cols_upper(ps_grid *g, ps__dist_mat *a, int *info);
/* b = op(T)^-1 b for the triangle uplo of the square a (unit diagonal when diag is PS__UNIT);
 * b's rows are distributed as a's. Its device scratch comes from the grid's slots; reserve
 * takes them (and the exchange buffer) without solving. Agreed. */
ps_status ps__dist_trsm(ps_grid *g, const ps__dist_mat *a, ps__uplo uplo, ps__trans trans,
                        ps__diag diag, ps__dist_mat *b);
ps_status ps__dist_trsm_reserve(ps_grid *g, const ps__dist_mat *a, ps__trans trans,
                                const ps__dist_mat *b);
ps_status ps__dist_trsm_cols_reserve(ps_grid *g, const ps__dist_mat *a, ps__trans trans,
                                     const ps__dist_mat *b);
/* Device scratch of at least bytes in slot: the one the grid keeps there when it is large
 * enough, else a new one (the old released). Not agreed. ps__dist_scratch_release frees them
 * all: the drivers call it when their call ends. */
ps_status ps__dist_scratch(ps_grid *g, int slot, size_t bytes, void **buf);
void ps__dist_scratch_release(ps_grid *g);

/* The public drivers' argument checks (dist_api.c): a descriptor of argument position pos for
 * an m x n matrix at (ia, ja) with local array local (square_blocks: MB = NB required; a
 * submatrix not starting on a block boundary: PS_ERR_NOT_SUPPORTED); a bad
 * scalar argument; the agreement on them that opens a call; the dist_verbose line. */
ps_status ps__dist_check_desc(ps_grid *g, const int *desc, int pos, int m, int n, int ia, int ja,
                              const void *local, int square_blocks);
ps_status ps__dist_bad_arg(ps_grid *g, int pos, const char *what);
ps_status ps__dist_begin(ps_grid *g, ps_status local);
void ps__dist_report(ps_grid *g, const char *routine, ps__dtype dt, int m, int n, int nb);
/* B (argument pos) has its rows distributed as A's. */
ps_status ps__dist_check_rows(ps_grid *g, const int *desca, const int *descb, int pos);

/* The drivers' steps on device matrices (dist_solve.c), collective, every status agreed:
 * LU with ScaLAPACK's local pivots in ipiv (1-based) and PS_ERR_SINGULAR with last_info when a
 * pivot is zero (*info: that column, 0: none; NULL: not wanted); the solve op(A) X = B with them
 * (checked to be getrf's: argument pos); Cholesky of uplo's triangle with PS_ERR_NOT_SPD; its
 * solve. The factorizations take the host local array host (leading dimension lld) into a,
 * allocated, and write the factors back into it (also when singular or not positive definite;
 * Cholesky's triangle only), or with host NULL factor a as it is. */
ps_status ps__dist_lu_factor(ps_grid *g, ps__dist_mat *a, void *host, int lld, int *ipiv,
                             int *info);
ps_status ps__dist_lu_solve(ps_grid *g, ps__trans trans, const ps__dist_mat *a, const int *ipiv,
                            int pos, ps__dist_mat *b);
ps_status ps__dist_chol_factor(ps_grid *g, char uplo, ps__dist_mat *a, void *host, int lld);
ps_status ps__dist_chol_solve(ps_grid *g, char uplo, const ps__dist_mat *a, ps__dist_mat *b);
/* What the solve after a factorization allocates, taken beforehand into the grid's slots (lu:
 * getrs N, else potrs), so that a failure there cannot come after the factors were written back
 * into the caller's array; the solves release the slots when they end. Agreed. */
ps_status ps__dist_solve_reserve(ps_grid *g, int lu, const ps__dist_mat *a, const ps__dist_mat *b);

#endif
