/*
 * Backend selection. The CPU backend is compiled into libportsolve; cuda and opencl are shared
 * modules (libportsolve_<name>.so) opened with dlopen, so that libportsolve loads on a machine
 * without CUDA or OpenCL. Modules are searched in $PORTSOLVE_BACKEND_PATH, then next to
 * libportsolve itself, then by the dynamic loader's own search.
 */
#define _GNU_SOURCE /* dladdr */
#include "select.h"

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

static int parse_kind(const char *s, ps_backend_kind *kind) {
    static const struct {
        const char *name;
        ps_backend_kind kind;
    } names[] = {{"auto", PS_BACKEND_AUTO},
                 {"cpu", PS_BACKEND_CPU},
                 {"cuda", PS_BACKEND_CUDA},
                 {"opencl", PS_BACKEND_OPENCL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcasecmp(s, names[i].name) == 0) {
            *kind = names[i].kind;
            return 1;
        }
    return 0;
}

ps_status ps__backend_kind_from_env(ps_backend_kind *kind, char *msg, size_t msg_size) {
    const char *s = getenv("PORTSOLVE_BACKEND");
    *kind = PS_BACKEND_AUTO;
    if (!s || !*s) return PS_SUCCESS;
    if (parse_kind(s, kind)) return PS_SUCCESS;
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
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (h) return h;
        const char *e = dlerror();
        /* A module that exists but fails to load says why (a missing vendor library). */
        add_reason(why, why_size, "%s", e ? e : path);
    }
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (h) return h;
    const char *e = dlerror();
    add_reason(why, why_size, "%s", e ? e : file);
    return NULL;
}

static ps_status open_builtin_cpu(ps_context *ctx, const char *device) {
    ps_status st = ps__backend_ops_complete(&ctx->ops, ps__cpu_backend_ops(), ctx->last_error,
                                            sizeof ctx->last_error);
    if (st) return st;
    ctx->be.ops = &ctx->ops;
    return ctx->ops.open(&ctx->be, device);
}

/* Opens module `name`; require_gpu is passed to the module through the device spec "gpu". */
static ps_status open_module_backend(ps_context *ctx, const char *name, const char *device,
                                     int auto_mode) {
    char why[2048];
    if (!built_with(name) && !getenv("PORTSOLVE_BACKEND_PATH")) {
        return ps__fail(ctx, PS_ERR_BACKEND_UNAVAILABLE,
                        "the %s backend is not built into this portsolve (built: %s); configure "
                        "with -DPORTSOLVE_WITH_%s=ON",
                        name, PS_BUILT_BACKENDS, strcmp(name, "cuda") == 0 ? "CUDA" : "OPENCL");
    }
    void *h = open_module(name, why, sizeof why);
    if (!h)
        return ps__fail(ctx, PS_ERR_BACKEND_UNAVAILABLE, "cannot load the %s backend module: %s",
                        name, why);
    ps__backend_entry_fn entry;
    *(void **)&entry = dlsym(h, PS__BACKEND_ENTRY_SYMBOL);
    if (!entry) {
        dlclose(h);
        return ps__fail(ctx, PS_ERR_BACKEND_UNAVAILABLE, "the %s module has no entry point %s",
                        name, PS__BACKEND_ENTRY_SYMBOL);
    }
    ps_status st =
        ps__backend_ops_complete(&ctx->ops, entry(), ctx->last_error, sizeof ctx->last_error);
    if (st == PS_SUCCESS) {
        ctx->be.ops = &ctx->ops;
        /* In auto mode only a GPU qualifies; the module reads this from the spec. */
        st = ctx->ops.open(&ctx->be, auto_mode && !device ? "gpu" : device);
    }
    if (st) {
        dlclose(h);
        return st;
    }
    ctx->module = h;
    return PS_SUCCESS;
}

ps_status ps__backend_open(ps_context *ctx, ps_backend_kind kind, const char *device) {
    switch (kind) {
    case PS_BACKEND_CPU:
        return open_builtin_cpu(ctx, device);
    case PS_BACKEND_CUDA:
        return open_module_backend(ctx, "cuda", device, 0);
    case PS_BACKEND_OPENCL:
        return open_module_backend(ctx, "opencl", device, 0);
    case PS_BACKEND_AUTO:
    default: {
        /* Only backends this build has are tried; the CPU backend always works. */
        static const char *const gpu_order[] = {"cuda", "opencl"};
        for (size_t i = 0; i < 2; i++) {
            if (!built_with(gpu_order[i])) continue;
            if (open_module_backend(ctx, gpu_order[i], device, 1) == PS_SUCCESS) return PS_SUCCESS;
        }
        ctx->last_error[0] = '\0';
        return open_builtin_cpu(ctx, device);
    }
    }
}

void ps__backend_close(ps_context *ctx) {
    if (ctx->be.ops && ctx->be.ops->close) ctx->be.ops->close(&ctx->be);
    if (ctx->module) dlclose(ctx->module);
    ctx->module = NULL;
}
