/* Host-array factorizations of one process row with their transfers beside the work
 * (dist_staged.c), for LU (dist_getrf_staged.c) and Cholesky (dist_potrf_cols.c,
 * dist_potrf_cols_upper.c). */
#ifndef PS_DIST_STAGED_H
#define PS_DIST_STAGED_H

#include "dist.h"

/* A factorization run in parts: its steps on the panels [k0, k1), whose updates stop at the
 * global column the last catch_up named; catch_up(w, f, g1) brings the columns from there up to
 * g1 up to date with the panels [0, f) (f = 0: only sets where the updates stop). */
typedef struct ps__dist_parts {
    void *w;
    ps__dist_steps *s;
    void (*steps)(void *w, int k0, int k1);
    void (*catch_up)(void *w, int f, int g1);
    int triangle; /* only uplo's triangle moves (Cholesky); else whole columns */
    ps__uplo uplo;
    int top; /* the right half's rows above the split go down after its catch-up (LU, upper
                Cholesky) */
    /* What goes down behind the last steps as they make it final (s->done): the rows below the
     * split, block row by block row, in every column (LU, whose last steps interchange rows of
     * every column, so that only the left half's rows above the split go down early; upper
     * Cholesky); or (by_columns) the rest's block columns (lower Cholesky). */
    int by_columns;
} ps__dist_parts;

/* Where the staged factorization of a, with kmax panels, splits into its left half [0, f) and
 * the rest, or -1 where the host array goes up and down whole: backends that work in host
 * memory, orders below the lu_overlap tuning's (core/lu/lu_overlap.c), too few blocks.
 * Collective; the same on every rank. */
int ps__dist_staged_split(ps_grid *g, const ps__dist_mat *a, int kmax);

/* Runs p's parts on a (allocated, its steps reserved) while a second host thread moves the host
 * local array host (leading dimension lld): up in three pieces of global columns (the left half
 * [0, f) in two, then the rest; f = 0: all in the last), each piece's panels factored once it has
 * arrived and the earlier panels have been caught up with; down the left half (by rows: its rows
 * above f) once its panels are done, then (p->top) the rest's rows above f once it is caught up,
 * then the rest as the last steps make it final (p->by_columns). The caller's array is written only
 * once every rank has all of it on its device. Returns with the transfers finished; the status is
 * p->s's, not yet agreed. */
ps_status ps__dist_staged_run(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f,
                              const ps__dist_parts *p);

/* The staged factorizations of the host local array host (leading dimension lld) through a,
 * allocated to its layout; f: ps__dist_staged_split's. LU (dist_getrf_staged.c; grids of several
 * process rows dist_getrf.c): on success a and host hold the factors (a's as ps__dist_getrf
 * leaves them), piv and info as ps__dist_getrf's. Cholesky (dist_potrf_cols.c,
 * dist_potrf_cols_upper.c; grids of several process rows dist_potrf.c, either triangle): the
 * factor in both, info as ps__dist_potrf's. */
ps_status ps__dist_getrf_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f, int *piv,
                                int *info);
ps_status ps__dist_getrf_grid_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f,
                                     int *piv, int *info);
ps_status ps__dist_potrf_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f, int *info);
ps_status ps__dist_potrf_upper_staged(ps_grid *g, ps__dist_mat *a, void *host, int lld, int f,
                                      int *info);
ps_status ps__dist_potrf_grid_staged(ps_grid *g, ps__dist_mat *a, ps__uplo uplo, void *host,
                                     int lld, int f, int *info);

#endif
