/* Context lifecycle, per-call error state and counted allocations. */
#include "base/context.h"
#include "base/staging.h"
#include "base/select.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local char create_error[PS__ERROR_SIZE];

const char *ps_version(void) {
#define PS__STR2(x) #x
#define PS__STR(x)  PS__STR2(x)
    return PS__STR(PS_VERSION_MAJOR) "." PS__STR(PS_VERSION_MINOR) "." PS__STR(PS_VERSION_PATCH);
}

const char *ps_status_string(ps_status status) {
    switch (status) {
#define PS__STATUS_CASE(name, value, text)                                                         \
    case name:                                                                                     \
        return text;
        PS_STATUS_LIST(PS__STATUS_CASE)
#undef PS__STATUS_CASE
    }
    return "unknown status";
}

ps_context_options ps_context_options_default(void) {
    ps_context_options o;
    memset(&o, 0, sizeof o);
    o.backend = PS_BACKEND_FROM_ENV;
    return o;
}

const char *ps_last_create_error(void) {
    return create_error;
}

int ps__name_is(const char *name, const char *given) {
    while (*name && *given && tolower((unsigned char)*given) == *name) name++, given++;
    return !*name && !*given;
}

const char *ps__enum_to_name(const ps__enum_name *table, size_t count, int value,
                             const char *fallback) {
    for (size_t i = 0; i < count; i++)
        if (table[i].value == value) return table[i].name;
    return fallback;
}

ps_status ps__enum_from_name(const ps__enum_name *table, size_t count, const char *given,
                             int *value) {
    for (size_t i = 0; given && i < count; i++)
        if (ps__name_is(table[i].name, given)) {
            *value = table[i].value;
            return PS_SUCCESS;
        }
    return PS_ERR_INVALID_ARGUMENT;
}

/* Allocates a context and opens its backend as req says. */
static ps_status create_context(ps_context **out, ps_backend_kind kind, int nb,
                                const ps__open_request *req) {
    ps_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx) {
        snprintf(create_error, sizeof create_error, "ps_context_create: out of host memory");
        return PS_ERR_OUT_OF_HOST_MEMORY;
    }
    atomic_init(&ctx->owner, 0);
    ps_status st = ps__tuning_read(&ctx->tuning, create_error, sizeof create_error);
    if (st) {
        free(ctx);
        return st;
    }
    ctx->lu_block_size = nb > 0 ? nb : ctx->tuning.lu_nb;
    ctx->be.tuning = &ctx->tuning;
    ctx->be.err = ctx->last_error;
    ctx->be.err_size = sizeof ctx->last_error;
    st = ps__backend_open(ctx, kind, req);
    if (st) {
        snprintf(create_error, sizeof create_error, "%s", ctx->last_error);
        free(ctx);
        return st;
    }
    ctx->last_error[0] = '\0';
    *out = ctx;
    return PS_SUCCESS;
}

ps_status ps_context_create(ps_context **out, const ps_context_options *opts) {
    create_error[0] = '\0';
    if (!out) {
        snprintf(create_error, sizeof create_error, "ps_context_create: out is NULL");
        return PS_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    ps_context_options o = opts ? *opts : ps_context_options_default();

    ps_backend_kind kind = o.backend;
    ps_status st;
    if (kind == PS_BACKEND_FROM_ENV) {
        st = ps__backend_kind_from_env(&kind, create_error, sizeof create_error);
        if (st) return st;
    } else if (kind < PS_BACKEND_AUTO || kind > PS_BACKEND_OPENCL) {
        snprintf(create_error, sizeof create_error,
                 "ps_context_create: options.backend=%d is not a ps_backend_kind", (int)kind);
        return PS_ERR_UNKNOWN_BACKEND;
    }
    const char *device = o.device ? o.device : getenv("PORTSOLVE_DEVICE");
    if (device && !*device) device = NULL;
    int nb = o.lu_block_size;
    if (nb < 0) {
        snprintf(create_error, sizeof create_error,
                 "ps_context_create: options.lu_block_size=%d is negative", nb);
        return PS_ERR_INVALID_ARGUMENT;
    }
    ps__open_request req = {device, 0, NULL, NULL};
    return create_context(out, kind, nb, &req);
}

ps_status ps_context_create_native(ps_context **out, ps_backend_kind kind, void *native_context,
                                   void *native_queue) {
    create_error[0] = '\0';
    if (!out) {
        snprintf(create_error, sizeof create_error, "ps_context_create_native: out is NULL");
        return PS_ERR_INVALID_ARGUMENT;
    }
    *out = NULL;
    if (kind != PS_BACKEND_CUDA && kind != PS_BACKEND_OPENCL) {
        snprintf(create_error, sizeof create_error,
                 "ps_context_create_native: kind=%d is neither PS_BACKEND_CUDA nor "
                 "PS_BACKEND_OPENCL",
                 (int)kind);
        return PS_ERR_INVALID_ARGUMENT;
    }
    ps__open_request req = {NULL, 1, native_context, native_queue};
    return create_context(out, kind, 0, &req);
}

void *ps_context_native_queue(const ps_context *ctx) {
    return ctx ? ctx->be.ops->queue((ps__backend *)&ctx->be) : NULL;
}

void ps_context_destroy(ps_context *ctx) {
    if (!ctx) return;
    ps_context_destroy(ctx->host);
    ps__staging_release(ctx);
    ps__backend_close(ctx);
    free(ctx);
}

const char *ps_context_backend_name(const ps_context *ctx) {
    return ctx ? ctx->be.ops->name : "(no context)";
}
const char *ps_context_device_name(const ps_context *ctx) {
    return ctx ? ctx->be.device_name : "(no context)";
}
const char *ps_context_last_error(const ps_context *ctx) {
    return ctx ? ctx->last_error : "(no context)";
}
int ps_context_last_info(const ps_context *ctx) {
    return ctx ? ctx->last_info : 0;
}

ps_status ps_context_synchronize(ps_context *ctx) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    return ctx->be.ops->sync(&ctx->be);
}

ps_status ps_context_release_memory(ps_context *ctx) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ctx->be.ops->sync(&ctx->be));
    ps__staging_release(ctx);
    return ctx->be.ops->release_cached(&ctx->be);
}

ps_status ps__context_host(ps_context *ctx, ps_context **host) {
    if (!ctx->host) {
        ps__open_request req = {NULL, 0, NULL, NULL};
        ps_status st = create_context(&ctx->host, PS_BACKEND_CPU, ctx->lu_block_size, &req);
        if (st)
            return ps__fail(ctx, st, "could not open the CPU backend for the host panels: %s",
                            create_error);
    }
    *host = ctx->host;
    return PS_SUCCESS;
}

/* A distinct address per thread, its identity in ps_context.owner. */
static _Thread_local char thread_tag;

ps__claim ps__enter(ps_context *ctx) {
    uintptr_t me = (uintptr_t)&thread_tag, none = 0;
    if (atomic_load(&ctx->owner) == me) { /* a nested call of the same thread */
        ctx->depth++;
        return (ps__claim){ctx, 1};
    }
    if (!atomic_compare_exchange_strong(&ctx->owner, &none, me)) return (ps__claim){ctx, 0};
    ctx->depth = 1;
    ctx->be.ops->activate(&ctx->be);
    return (ps__claim){ctx, 1};
}

void ps__leave(ps__claim *claim) {
    if (claim->held && --claim->ctx->depth == 0) atomic_store(&claim->ctx->owner, 0);
}

void ps__begin(ps_context *ctx) {
    ctx->last_error[0] = '\0';
    ctx->last_info = 0;
    ctx->last_on_host = 0;
}

ps_status ps__fail(ps_context *ctx, ps_status status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
    return status;
}

ps_status ps__bad_arg(ps_context *ctx, int pos, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->last_error, sizeof ctx->last_error, fmt, ap);
    va_end(ap);
    ctx->last_info = -pos;
    return PS_ERR_INVALID_ARGUMENT;
}

/* The failure hook: true when this allocation is the one chosen to fail. */
static int injected_failure(ps_context *ctx) {
    if (ctx->fail_alloc_countdown <= 0) return 0;
    return --ctx->fail_alloc_countdown == 0;
}

void ps__context_fail_nth_alloc(ps_context *ctx, int n) {
    ctx->fail_alloc_countdown = n;
}

ps_status ps__dev_alloc(ps_context *ctx, size_t bytes, void **buf) {
    *buf = NULL;
    if (injected_failure(ctx))
        return ps__fail(ctx, PS_ERR_OUT_OF_MEMORY,
                        "device allocation of %zu bytes failed (injected by a test)", bytes);
    /* Never ask for 0 bytes: some runtimes return NULL for it, and NULL is "no buffer" here. */
    ps_status st = ctx->be.ops->alloc(&ctx->be, bytes ? bytes : sizeof(double), buf);
    if (st == PS_SUCCESS) ctx->live_buffers++;
    return st;
}

void ps__dev_free(ps_context *ctx, void *buf) {
    if (!buf) return;
    ctx->be.ops->free(&ctx->be, buf);
    ctx->live_buffers--;
}

ps_status ps__host_alloc(ps_context *ctx, size_t bytes, void **ptr) {
    *ptr = NULL;
    if (injected_failure(ctx))
        return ps__fail(ctx, PS_ERR_OUT_OF_HOST_MEMORY,
                        "host allocation of %zu bytes failed (injected by a test)", bytes);
    *ptr = malloc(bytes ? bytes : 1);
    if (!*ptr)
        return ps__fail(ctx, PS_ERR_OUT_OF_HOST_MEMORY, "host allocation of %zu bytes failed",
                        bytes);
    ctx->live_host_blocks++;
    return PS_SUCCESS;
}

void ps__host_free(ps_context *ctx, void *ptr) {
    if (!ptr) return;
    free(ptr);
    ctx->live_host_blocks--;
}

ps_status ps__scratch_dev(ps__scratch *s, size_t bytes, void **buf) {
    if (s->ndev == (int)(sizeof s->dev / sizeof s->dev[0]))
        return ps__fail(s->ctx, PS_ERR_OUT_OF_HOST_MEMORY, "internal: too many scratch buffers");
    ps_status st = ps__dev_alloc(s->ctx, bytes, buf);
    if (st == PS_SUCCESS) s->dev[s->ndev++] = *buf;
    return st;
}

ps_status ps__scratch_host(ps__scratch *s, size_t bytes, void **ptr) {
    if (s->nhost == (int)(sizeof s->host / sizeof s->host[0]))
        return ps__fail(s->ctx, PS_ERR_OUT_OF_HOST_MEMORY, "internal: too many scratch blocks");
    ps_status st = ps__host_alloc(s->ctx, bytes, ptr);
    if (st == PS_SUCCESS) s->host[s->nhost++] = *ptr;
    return st;
}

ps_status ps__transfer_alloc(ps_context *ctx, size_t bytes, void **ptr) {
    *ptr = NULL;
    if (injected_failure(ctx))
        return ps__fail(ctx, PS_ERR_OUT_OF_HOST_MEMORY,
                        "host transfer block of %zu bytes failed (injected by a test)", bytes);
    PS__TRY(ctx->be.ops->host_alloc(&ctx->be, bytes, ptr));
    ctx->live_host_blocks++;
    return PS_SUCCESS;
}

void ps__transfer_free(ps_context *ctx, void *ptr) {
    if (!ptr) return;
    ctx->be.ops->host_free(&ctx->be, ptr);
    ctx->live_host_blocks--;
}

ps_status ps__scratch_transfer(ps__scratch *s, size_t bytes, void **ptr) {
    *ptr = NULL;
    if (s->ntransfer == (int)(sizeof s->transfer / sizeof s->transfer[0]))
        return ps__fail(s->ctx, PS_ERR_OUT_OF_HOST_MEMORY, "internal: too many transfer blocks");
    PS__TRY(ps__transfer_alloc(s->ctx, bytes, ptr));
    s->transfer[s->ntransfer++] = *ptr;
    return PS_SUCCESS;
}

void ps__scratch_end(ps__scratch *s) {
    while (s->ntransfer > 0) ps__transfer_free(s->ctx, s->transfer[--s->ntransfer]);
    while (s->ndev > 0) ps__dev_free(s->ctx, s->dev[--s->ndev]);
    while (s->nhost > 0) ps__host_free(s->ctx, s->host[--s->nhost]);
}
