/* The float factorizations' trailing updates in the backend's float-accurate split mode. */
#include "base/float_split.h"

void ps__float_split_begin(ps_context *ctx, ps__algo algo, int knob, ps__dtype dt, int n,
                           int *split) {
    ps__backend *be = &ctx->be;
    int from = ps__tuned_size(ctx, knob, algo, dt, 0);
    *split = 0;
    if (dt != PS__FLOAT || from <= 0 || n < from) return;
    if (be->ops->set_float_compute(be, PS__COMPUTE_TF32X3) == PS_SUCCESS)
        *split = 1;
    else
        ctx->last_error[0] = '\0'; /* a backend without the mode factors in float */
}

ps_status ps__float_split_end(ps_context *ctx, int split, ps_status st) {
    ps_status reset = split ? ctx->be.ops->set_float_compute(&ctx->be, PS__COMPUTE_FP32) : 0;
    return st ? st : reset;
}
