/* The look-ahead loop shared by the right-looking blocked factorizations (LU and WZ in
 * core/lu/lu.c, Cholesky in core/chol/chol.c). */
#ifndef PS_CORE_LOOKAHEAD_H
#define PS_CORE_LOOKAHEAD_H

#include "base/context.h"

/* What one factorization does per block column; arg is passed back to every call. */
typedef struct ps__lookahead_steps {
    void *arg;
    /* Factors the panel of block column j, jb wide. */
    ps_status (*panel)(void *arg, int j, int jb);
    /* After panel j and before anything applies it, the part of it that is better done on lane 0
     * (on split lanes the larger part of the device) than on the panel's lane; NULL: none. */
    ps_status (*finish)(void *arg, int j, int jb);
    /* After panel j, the work it implies for the columns left of it, on lane 0 (LU's row swaps),
     * after step j's trailing update; it must touch nothing the later panels and updates read.
     * NULL: none. */
    ps_status (*left)(void *arg, int j, int jb);
    /* Applies panel j (jb wide) to the trailing columns [c0, c1). */
    ps_status (*update)(void *arg, int j, int jb, int c0, int c1);
    /* On lane 0 once step j's work there is queued, where it holds the panels back least: in
     * step j + 1, after the next block column's update (which the panel waits for), before the
     * trailing update; the last step's at the end. NULL: nothing. */
    ps_status (*done)(void *arg, int j, int jb);
    ps__algo algo; /* which factorization, and in which precision: the backend's lanes_split */
    ps__dtype dt;  /* decides from them */
} ps__lookahead_steps;

/*
 * Runs the k / nb block columns (k columns are factored; updates reach column n - 1). With two
 * or more lanes, lane 1 (the latency-critical one, higher priority on backends that have it)
 * updates just the next block column and factors the next panel while lane 0 updates the rest
 * of the trailing matrix, so the panel, which is latency-bound, hides behind the big update.
 * Per iteration: lane 0 waits for panel j (queued on lane 1 by the previous iteration, so
 * lane 0's earlier update is not held back) and finishes it, and does the left work last, after
 * its trailing update; lane 1 waits for lane 0 (whose previous update covered
 * the next block column); then both run. Lanes touch disjoint columns. With one lane every wait
 * is a no-op and the order is LAPACK's. The loop runs
 * between the backend's lanes_split and lanes_join (the lanes may then own disjoint parts of the
 * device). Returns with lane 0 current and the context's queue after everything both lanes did.
 */
ps_status ps__lookahead(ps_context *ctx, int k, int n, int nb, const ps__lookahead_steps *steps);

/* Ends work run between lanes_split and lanes_join (ps__lookahead, gjinv's look-ahead): the
 * join runs whatever st is (lanes_split's contract), after lane 0 is made current again on
 * failure; returns the first error, st's before the join's. */
ps_status ps__lanes_join_after(ps__backend *be, ps_status st);

#endif
