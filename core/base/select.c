/*
 * Backend selection. The CPU backend is compiled into libportsolve; cuda and opencl are shared
 * modules (libportsolve_<name>.so) opened with dlopen, so that libportsolve loads on a machine
 * without CUDA or OpenCL. Modules are searched in $PORTSOLVE_BACKEND_PATH, then next to
 * libportsolve itself, then by the dynamic loader's own search. Modules are opened with
 * RTLD_NODELETE: the vendor runtimes they pull in (the CUDA runtime, cuBLAS, CLBlast, ICD
 * drivers) do not support being unloaded, and unloading them would also turn their one-time
 * allocations into apparent leaks.
 */
#define _GNU_SOURCE /* dladdr */
#include "base/select.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef PS_BUILT_BACKENDS
#define PS_BUILT_BACKENDS "cpu"
#endif

static const char *const accepted = "auto, cpu, cuda, opencl";

const char *ps_built_backends(void) {
    return PS_BUILT_BACKENDS;
}

ps_status ps_backend_kind_from_name(const char *name, ps_backend_kind *kind) {
    static const struct {
        const char *name;
        ps_backend_kind kind;
    } names[] = {{"auto", PS_BACKEND_AUTO},
                 {"cpu", PS_BACKEND_CPU},
                 {"cuda", PS_BACKEND_CUDA},
                 {"opencl", PS_BACKEND_OPENCL}};
    if (!name || !kind) return PS_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(name, names[i].name) == 0) {
            *kind = names[i].kind;
            return PS_SUCCESS;
        }
    return PS_ERR_UNKNOWN_BACKEND;
}

ps_status ps__backend_kind_from_env(ps_backend_kind *kind, char *msg, size_t msg_size) {
    const char *s = getenv("PORTSOLVE_BACKEND");
    *kind = PS_BACKEND_AUTO;
    if (!s || !*s) return PS_SUCCESS;
    if (ps_backend_kind_from_name(s, kind) == PS_SUCCESS) return PS_SUCCESS;
    snprintf(msg, msg_size, "PORTSOLVE_BACKEND='%s' is not a backend; accepted values: %s", s,
             accepted);
    return PS_ERR_UNKNOWN_BACKEND;
}

static int built_with(const char *name) {
    const char *list = PS_BUILT_BACKENDS;
    size_t len = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
        if ((p == list || p[-1] == ',') && (p[len] == ',' || p[len] == '\0')) return 1;
    return 0;
}

/* Appends a formatted reason to msg (reasons of several attempts are joined with "; "). */
__attribute__((format(printf, 3, 4))) static void add_reason(char *msg, size_t size,
                                                             const char *fmt, ...) {
    size_t used = strlen(msg);
    if (used + 3 >= size) return;
    if (used) {
        memcpy(msg + used, "; ", 3);
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + used, size - used, fmt, ap);
    va_end(ap);
}

/* Directory of the loaded libportsolve, for finding modules installed next to it. */
static int own_directory(char *dir, size_t size) {
    Dl_info info;
    if (!dladdr((void *)&ps__backend_open, &info) || !info.dli_fname) return 0;
    const char *slash = strrchr(info.dli_fname, '/');
    if (!slash) return 0;
    size_t len = (size_t)(slash - info.dli_fname);
    if (len + 1 > size) return 0;
    memcpy(dir, info.dli_fname, len);
    dir[len] = '\0';
    return 1;
}

static void *open_module(const char *name, char *why, size_t why_size) {
    char file[64], path[4096];
    snprintf(file, sizeof file, "libportsolve_%s.so", name);
    why[0] = '\0';
    const char *env_dir = getenv("PORTSOLVE_BACKEND_PATH");
    char own[4000];
    const char *dirs[2] = {env_dir && *env_dir ? env_dir : NULL,
                           own_directory(own, sizeof own) ? own : NULL};
    for (int i = 0; i < 2; i++) {
        if (!dirs[i]) continue;
        snprintf(path, sizeof path, "%s/%s", dirs[i], file);
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (h) return h;
        const char *e = dlerror();
        /* A module that exists but fails to load says why (a missing vendor library). */
        add_reason(why, why_size, "%s", e ? e : path);
    }
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (h) return h;
    const char *e = dlerror();
    add_reason(why, why_size, "%s", e ? e : file);
    return NULL;
}

static const char *kind_name(ps_backend_kind kind) {
    return kind == PS_BACKEND_CUDA ? "cuda" : kind == PS_BACKEND_OPENCL ? "opencl" : "cpu";
}

/* Loads and completes the table of backend `name`: built in for cpu, else from its module,
 * whose handle goes to *module. On failure msg says why. */
static ps_status load_backend(const char *name, ps__backend_ops *ops, void **module, char *msg,
                              size_t msg_size) {
    *module = NULL;
    if (strcmp(name, "cpu") == 0)
        return ps__backend_ops_complete(ops, ps__cpu_backend_ops(), msg, msg_size);
    if (!built_with(name) && !getenv("PORTSOLVE_BACKEND_PATH")) {
        snprintf(msg, msg_size,
                 "the %s backend is not built into this portsolve (built: %s); configure with "
                 "-DPORTSOLVE_WITH_%s=ON",
                 name, PS_BUILT_BACKENDS, strcmp(name, "cuda") == 0 ? "CUDA" : "OPENCL");
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    char why[2048];
    void *h = open_module(name, why, sizeof why);
    if (!h) {
        snprintf(msg, msg_size, "cannot load the %s backend module: %s", name, why);
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    ps__backend_entry_fn entry;
    *(void **)&entry = dlsym(h, PS__BACKEND_ENTRY_SYMBOL);
    ps_status st = PS_ERR_BACKEND_UNAVAILABLE;
    if (!entry)
        snprintf(msg, msg_size, "the %s module has no entry point %s", name,
                 PS__BACKEND_ENTRY_SYMBOL);
    else
        st = ps__backend_ops_complete(ops, entry(), msg, msg_size);
    if (st) {
        dlclose(h);
        return st;
    }
    *module = h;
    return PS_SUCCESS;
}

/* Opens backend `name` into ctx: on the device spec (gpu_only: auto mode, where only a GPU
 * qualifies; the module reads that from the spec "gpu"), or on the caller's native handles. */
static ps_status open_named(ps_context *ctx, const char *name, const ps__open_request *req,
                            int gpu_only) {
    void *module;
    PS__TRY(load_backend(name, &ctx->ops, &module, ctx->last_error, sizeof ctx->last_error));
    ctx->be.ops = &ctx->ops;
    ctx->be.buffers_are_addresses = 0; /* not what a backend tried before this one said */
    ps_status st;
    if (req->borrowed)
        st = ctx->ops.open_borrowed(&ctx->be, req->native_context, req->native_queue);
    else
        st = ctx->ops.open(&ctx->be, gpu_only && !req->device ? "gpu" : req->device);
    if (st) {
        if (module) dlclose(module);
        return st;
    }
    ctx->module = module;
    return PS_SUCCESS;
}

ps_status ps__backend_open(ps_context *ctx, ps_backend_kind kind, const ps__open_request *req) {
    if (kind != PS_BACKEND_AUTO) return open_named(ctx, kind_name(kind), req, 0);
    /* Only backends this build has are tried; the CPU backend always works. */
    static const char *const gpu_order[] = {"cuda", "opencl"};
    for (size_t i = 0; i < 2; i++) {
        if (!built_with(gpu_order[i])) continue;
        if (open_named(ctx, gpu_order[i], req, 1) == PS_SUCCESS) return PS_SUCCESS;
    }
    ctx->last_error[0] = '\0';
    return open_named(ctx, "cpu", req, 0);
}

void ps__backend_close(ps_context *ctx) {
    ps__families_release(&ctx->be);
    if (ctx->be.ops && ctx->be.ops->close) ctx->be.ops->close(&ctx->be);
    if (ctx->module) dlclose(ctx->module);
    ctx->module = NULL;
}

ps_status ps_backend_devices(ps_backend_kind kind, char *buf, size_t size) {
    if (!buf || size == 0) return PS_ERR_INVALID_ARGUMENT;
    if (kind < PS_BACKEND_CPU || kind > PS_BACKEND_OPENCL) {
        snprintf(buf, size, "ps_backend_devices: kind=%d is not cpu, cuda or opencl", (int)kind);
        return PS_ERR_UNKNOWN_BACKEND;
    }
    ps__backend_ops ops;
    void *module;
    ps_status st = load_backend(kind_name(kind), &ops, &module, buf, size);
    if (st) return st;
    ops.list_devices(buf, size);
    if (module) dlclose(module);
    return PS_SUCCESS;
}
