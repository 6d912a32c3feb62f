/* Backend selection: PORTSOLVE_BACKEND parsing, the built-in CPU backend, runtime modules. */
#ifndef PS_CORE_SELECT_H
#define PS_CORE_SELECT_H

#include "base/context.h"

/* Parses PORTSOLVE_BACKEND (unset or empty: auto). */
ps_status ps__backend_kind_from_env(ps_backend_kind *kind, char *msg, size_t msg_size);
/* What to open a backend on: a device spec (NULL: the backend's default), or, when borrowed,
 * the caller's native context and queue. */
typedef struct ps__open_request {
    const char *device;
    int borrowed;
    void *native_context, *native_queue;
} ps__open_request;

/* Opens the backend of the given kind (auto: the first that works) into ctx->be. On failure
 * ctx->last_error says why. */
ps_status ps__backend_open(ps_context *ctx, ps_backend_kind kind, const ps__open_request *req);
void ps__backend_close(ps_context *ctx);

#endif
