/* The float factorizations' trailing updates in the backend's float-accurate split mode. */
#ifndef PS_CORE_FLOAT_SPLIT_H
#define PS_CORE_FLOAT_SPLIT_H

#include "base/context.h"

/* A float factorization of order n (LU: PS__ALGO_LU_FLOAT_SPLIT with the lu_float_split knob;
 * Cholesky: PS__ALGO_CHOL_FLOAT_SPLIT with chol_float_split) computes its big GEMMs in the
 * backend's float-accurate split mode (TF32X3: three TF32 tensor-core products on operands split
 * as hi + lo) from the order the knob, else the backend, gives. begin sets the mode where it
 * applies and the backend has it, and says so in *split; end sets float back after the work is
 * queued and returns st, or the reset's own failure. Refinement chooses its modes itself and
 * does not come here. */
void ps__float_split_begin(ps_context *ctx, ps__algo algo, int knob, ps__dtype dt, int n,
                           int *split);
ps_status ps__float_split_end(ps_context *ctx, int split, ps_status st);

#endif
