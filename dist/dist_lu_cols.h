/* The steps of LU on a grid of one process row (dist_getrf_cols.c), for the plain driver and the
 * one that moves the host array beside the work (dist_getrf_staged.c). */
#ifndef PS_DIST_LU_COLS_H
#define PS_DIST_LU_COLS_H

#include "dist.h"

typedef struct ps__cols_lu {
    ps__dist_steps s; /* the first failure, and the lanes: 2 with look-ahead */
    ps__dist_mat *a;
    int kmax, nb;
    int upto;          /* the local columns right of a panel that the steps update stop here */
    void *ipiv, *info; /* device int32: kmax pivots (0-based global rows); the first zero pivot */
    void *pan[2];      /* device: the broadcast panels, by step parity */
} ps__cols_lu;

/* Reserves what the steps need (agreed: every rank returns the same status). */
ps_status ps__cols_lu_open(ps__cols_lu *w, ps_grid *g, ps__dist_mat *a);
/* The steps for the panels [k0, k1) (k0, k1 multiples of nb, or kmax). */
void ps__cols_lu_steps(ps__cols_lu *w, int k0, int k1);
/* Brings the local columns from upto to those below the global column g1 up to date with the
 * panels [0, f), already factored: their interchanges, U's block rows and the updates below
 * them; upto becomes their end. */
void ps__cols_lu_catch_up(ps__cols_lu *w, int f, int g1);
/* The pivots (0-based global rows) and the first zero pivot to every rank, the status agreed;
 * releases what open reserved. */
ps_status ps__cols_lu_close(ps__cols_lu *w, int *piv, int *info);

#endif
