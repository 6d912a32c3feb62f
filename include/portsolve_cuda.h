/* CUDA interop for portsolve: include after <cuda_runtime_api.h>. */
#ifndef PORTSOLVE_CUDA_H
#define PORTSOLVE_CUDA_H

#include "portsolve.h"

#include <cuda_runtime_api.h>

/* A context on the caller's stream, on the device current when this is called. The stream is
 * borrowed: the library never destroys it; keep it alive until ps_context_destroy. */
static inline ps_status ps_context_create_cuda(ps_context **out, cudaStream_t stream) {
    return ps_context_create_native(out, PS_BACKEND_CUDA, NULL, (void *)stream);
}

/* A rows x cols matrix (leading dimension ld) over the caller's device memory; not freed. */
static inline ps_status ps_matrix_wrap_cuda(ps_context *ctx, ps_dtype dtype, int rows, int cols,
                                            int ld, void *device_ptr, ps_matrix **out) {
    return ps_matrix_wrap_native(ctx, dtype, rows, cols, ld, device_ptr, 0, out);
}

/* The stream the context runs on (the caller's, for a borrowed context). */
static inline cudaStream_t ps_context_cuda_stream(const ps_context *ctx) {
    return (cudaStream_t)ps_context_native_queue(ctx);
}

#endif
