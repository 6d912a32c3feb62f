/* ps_dsgesv's A moved to the device beside the low-precision LU (core/refine/refine_staged.c). */
#ifndef PS_CORE_REFINE_STAGED_H
#define PS_CORE_REFINE_STAGED_H

#include "base/staging.h"
#include "refine/refine.h"

typedef struct ps__refine_staging ps__refine_staging;

/* Starts moving the n x n host array a (leading dimension lda) into the device view dev in
 * pieces, each checked as check says, on a second host thread, and sets *source for ps__dsgesv
 * to take them as they arrive. *out is for ps__refine_staging_end, which every start that
 * succeeded must meet. */
ps_status ps__refine_staging_start(ps__scratch *s, int n, const double *a, int lda,
                                   const ps__finite_check *check, ps__mat dev,
                                   ps__refine_staging **out, ps__refine_source *source);
/* Waits for the staging to end after the work that took it returned st; returns st, or the
 * staging's own failure (a NaN or Inf found in A), which comes first. NULL: returns st. */
ps_status ps__refine_staging_end(ps__refine_staging *g, ps_status st);

#endif
