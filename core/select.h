/* Backend selection: PORTSOLVE_BACKEND parsing, the built-in CPU backend, runtime modules. */
#ifndef PS_CORE_SELECT_H
#define PS_CORE_SELECT_H

#include "context.h"

/* Parses PORTSOLVE_BACKEND (unset or empty: auto). */
ps_status ps__backend_kind_from_env(ps_backend_kind *kind, char *msg, size_t msg_size);
/* Opens the backend of the given kind (auto: the first that works) into ctx->be. On failure
 * ctx->last_error says why, for every backend tried. */
ps_status ps__backend_open(ps_context *ctx, ps_backend_kind kind, const char *device);
void ps__backend_close(ps_context *ctx);

#endif
