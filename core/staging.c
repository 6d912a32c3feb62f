/* Host arrays staged for the backend (see staging.h). */
#include "staging.h"

ps_status ps__stage_in(ps__scratch *s, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                       int may_alias, ps__staged *out) {
    ps_context *ctx = s->ctx;
    void *alias;
    if (may_alias && ctx->be.ops->host_alias(&ctx->be, (void *)host, &alias) == PS_SUCCESS) {
        out->dev = (ps__mat){alias, 0, ldh};
        out->aliased = 1;
        return PS_SUCCESS;
    }
    out->aliased = 0;
    out->dev = (ps__mat){NULL, 0, ps__max1(rows)};
    PS__TRY(
        ps__scratch_dev(s, (size_t)out->dev.ld * (size_t)cols * ps__dtype_size(dt), &out->dev.buf));
    if (rows == 0 || cols == 0) return PS_SUCCESS;
    return ctx->be.ops->upload(&ctx->be, dt, rows, cols, host, ldh, out->dev);
}

ps_status ps__stage_out(ps_context *ctx, ps__dtype dt, int rows, int cols, const ps__staged *in,
                        void *host, int ldh) {
    if (in->aliased || rows == 0 || cols == 0) return PS_SUCCESS;
    return ctx->be.ops->download(&ctx->be, dt, rows, cols, in->dev, host, ldh);
}

ps_status ps__check_dtype_supported(ps_context *ctx, ps__dtype dt, const char *fn) {
    if (dt == PS__DOUBLE && !ctx->be.has_double)
        return ps__fail(ctx, PS_ERR_NO_DOUBLE, "%s: device '%s' has no double precision", fn,
                        ctx->be.device_name);
    return PS_SUCCESS;
}
