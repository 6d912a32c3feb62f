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

/* Copies src into dst, checking the header and the required entries, and fills the optional
 * entries src leaves NULL (or lacks, for an older struct_size) with the defaults. On failure
 * writes the reason into msg and returns PS_ERR_BACKEND_UNAVAILABLE. */
ps_status ps__backend_ops_complete(ps__backend_ops *dst, const ps__backend_ops *src, char *msg,
                                   size_t msg_size);
/* The portable defaults, exposed so tests can run them against each backend's own entries. */
const ps__backend_ops *ps__backend_defaults(void);
/* The built-in CPU backend's table. */
const ps__backend_ops *ps__cpu_backend_ops(void);

#endif
