/* The host drivers' memory estimate before they start (see ps__workspace_fits in context.h). */
#include "base/context.h"

/* Room left beside a driver's arrays for the vendor libraries' own workspaces (cuBLAS takes a
 * few MiB a handle, CLBlast a temporary copy of a GEMM's blocks). */
#define LIBRARY_RESERVE ((double)(16 << 20))

static double gib(double bytes) {
    return bytes / (double)(1 << 30);
}

ps_status ps__workspace_fits(ps_context *ctx, const char *fn, ps__dtype dt, double elements) {
    ps__backend *be = &ctx->be;
    void *alias;
    size_t free_bytes = 0, total_bytes = 0;
    if (be->ops->host_alias(be, ctx, &alias) == PS_SUCCESS) return PS_SUCCESS;
    if (ctx->test_device_free) {
        free_bytes = total_bytes = ctx->test_device_free;
    } else if (be->ops->device_memory(be, &free_bytes, &total_bytes) != PS_SUCCESS) {
        ctx->last_error[0] = '\0'; /* unknown: the allocations will tell */
        return PS_SUCCESS;
    }
    double need = elements * (double)ps__dtype_size(dt);
    if (need + LIBRARY_RESERVE <= (double)free_bytes) return PS_SUCCESS;
    return ps__fail(ctx, PS_ERR_OUT_OF_MEMORY,
                    "%s: its arrays need %.2f GiB of device memory, and %s has %.2f GiB free "
                    "(of %.2f GiB)",
                    fn, gib(need), be->device_name, gib((double)free_bytes),
                    gib((double)total_bytes));
}
