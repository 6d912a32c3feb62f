/* The host crossover: small host-driver calls on a GPU backend run on the CPU path, in the
 * context's CPU companion, because transfers and kernel launches would cost more than the work
 * (MAGMA and oneMKL do the same). The orders are the backend's measured defaults
 * (be.host_crossover), or the caller's. */
#include "base/context.h"

#include <string.h>

#define MAX_CROSSOVER 1000000

/* Whether the backend already works in host memory (the CPU backend's host_alias takes any
 * pointer): there is no host path to cross over to. */
static int works_in_host_memory(const ps_context *ctx) {
    void *alias;
    ps__backend *be = (ps__backend *)&ctx->be;
    return be->ops->host_alias(be, (void *)ctx, &alias) == PS_SUCCESS;
}

static int crossover_order(const ps_context *ctx, ps__dtype dt) {
    if (ctx->tuning.host_crossover >= 0) return ctx->tuning.host_crossover;
    return ctx->be.host_crossover[dt == PS__DOUBLE ? PS__DOUBLE : PS__FLOAT];
}

int ps__crossover(ps_context *ctx, ps__dtype dt, int n, ps_context **host) {
    if (n <= 0 || n > crossover_order(ctx, dt) || works_in_host_memory(ctx)) return 0;
    char saved[PS__ERROR_SIZE];
    memcpy(saved, ctx->last_error, sizeof saved);
    if (ps__context_host(ctx, host) != PS_SUCCESS) { /* then the device runs it */
        memcpy(ctx->last_error, saved, sizeof saved);
        return 0;
    }
    return 1;
}

ps_status ps__crossed(ps_context *ctx, ps_context *host, ps_status st) {
    memcpy(ctx->last_error, host->last_error, sizeof ctx->last_error);
    ctx->last_info = host->last_info;
    ctx->last_on_host = 1;
    return st;
}

ps_status ps_context_set_host_crossover(ps_context *ctx, int n) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    if (n < -1 || n > MAX_CROSSOVER)
        return ps__bad_arg(ctx, 2,
                           "ps_context_set_host_crossover: n=%d is not -1 or an order "
                           "from 0 to %d",
                           n, MAX_CROSSOVER);
    ctx->tuning.host_crossover = n;
    return PS_SUCCESS;
}

int ps_context_host_crossover(const ps_context *ctx, ps_dtype dtype) {
    if (!ctx) return 0;
    if (works_in_host_memory(ctx)) return 0;
    return crossover_order(ctx, dtype == PS_DOUBLE ? PS__DOUBLE : PS__FLOAT);
}

int ps_context_last_call_on_host(const ps_context *ctx) {
    return ctx ? ctx->last_on_host : 0;
}
