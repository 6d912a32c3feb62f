/* OpenCL interop for portsolve: include after <CL/cl.h> (or <CL/opencl.h>). */
#ifndef PORTSOLVE_CL_H
#define PORTSOLVE_CL_H

#include "portsolve.h"

#include <CL/cl.h>

/* A context on the caller's OpenCL context and queue (same device). Both are borrowed: the
 * library never releases them, and the caller keeps them alive until ps_context_destroy. The
 * queue must be in-order (an out-of-order queue is refused with PS_ERR_INVALID_ARGUMENT). */
static inline ps_status ps_context_create_cl(ps_context **out, cl_context context,
                                             cl_command_queue queue) {
    return ps_context_create_native(out, PS_BACKEND_OPENCL, (void *)context, (void *)queue);
}

/* A rows x cols matrix (leading dimension ld) over the caller's cl_mem, starting `offset`
 * elements in. The buffer must belong to the context's cl_context; it is not released. */
static inline ps_status ps_matrix_wrap_cl(ps_context *ctx, ps_dtype dtype, int rows, int cols,
                                          int ld, cl_mem buffer, size_t offset, ps_matrix **out) {
    return ps_matrix_wrap_native(ctx, dtype, rows, cols, ld, (void *)buffer, offset, out);
}

/* The command queue the context runs on (the caller's, for a borrowed context). */
static inline cl_command_queue ps_context_cl_queue(const ps_context *ctx) {
    return (cl_command_queue)ps_context_native_queue(ctx);
}

#endif
