/* Routing of libportsolve_lapack's calls: one portsolve context per thread, created by the first
 * call of an order that portsolve could serve and destroyed when the thread (or the process)
 * ends; calls below the routing order go straight to the host LAPACK without one. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "lapack_route.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* No backend's measured crossover is below this order, so smaller calls never need a context
 * unless PORTSOLVE_LAPACK_MIN_N asks for them (docs/LAPACK.md). */
#define FIRST_ROUTED_ORDER 256
#define NEVER              INT_MAX

static struct {
    int min_n; /* PORTSOLVE_LAPACK_MIN_N, or -1: the backend's crossover */
    int verbose;
    void *fallback; /* PORTSOLVE_LAPACK_FALLBACK's handle, or NULL: RTLD_NEXT */
} config = {-1, 0, NULL};
static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static pthread_key_t context_key;

typedef struct thread_state {
    ps_context *ctx;
    int tried;    /* context creation was attempted (and failed when ctx is NULL) */
    int min_n[2]; /* routing order per dtype (PS_FLOAT, PS_DOUBLE) */
} thread_state;
static __thread thread_state state;

static void destroy_context(void *ctx) {
    ps_context_destroy(ctx);
}

/* The exiting main thread's context (thread-specific destructors do not run for it). */
static void destroy_at_exit(void) {
    if (state.ctx) {
        pthread_setspecific(context_key, NULL);
        ps_context_destroy(state.ctx);
        state.ctx = NULL;
    }
}

static void register_exit(void) {
    atexit(destroy_at_exit);
}

static void read_config(void) {
    pthread_key_create(&context_key, destroy_context);
    const char *v = getenv("PORTSOLVE_LAPACK_VERBOSE");
    config.verbose = v && *v && *v != '0';
    v = getenv("PORTSOLVE_LAPACK_MIN_N");
    if (v && *v) {
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (end == v || *end || errno || n < 0 || n > INT_MAX)
            fprintf(stderr,
                    "portsolve_lapack: PORTSOLVE_LAPACK_MIN_N='%s' is not an order from 0 up; "
                    "using the backend's crossover\n",
                    v);
        else
            config.min_n = (int)n;
    }
    v = getenv("PORTSOLVE_LAPACK_FALLBACK");
    if (v && *v) {
        config.fallback = dlopen(v, RTLD_NOW | RTLD_LOCAL);
        if (!config.fallback) {
            fprintf(stderr, "portsolve_lapack: PORTSOLVE_LAPACK_FALLBACK: %s\n", dlerror());
            exit(EXIT_FAILURE);
        }
    }
}

/* The order from which calls in dtype go to ctx: the user's, or one past the library's host
 * crossover (where the device starts to win); never on a backend that computes on the CPU,
 * whose crossover is 0: the host LAPACK is the same work without the checks and copies. */
static int routing_order(ps_context *ctx, ps_dtype dtype) {
    if (config.min_n >= 0) return config.min_n;
    int crossover = ps_context_host_crossover(ctx, dtype);
    return crossover > 0 ? crossover + 1 : NEVER;
}

static void create_context(void) {
    state.tried = 1;
    ps_context *ctx = NULL;
    if (ps_context_create(&ctx, NULL) != PS_SUCCESS) {
        if (config.verbose)
            fprintf(stderr,
                    "portsolve_lapack: no portsolve context (%s); every call goes to the "
                    "host LAPACK\n",
                    ps_last_create_error());
        return;
    }
    /* an order the user gave decides alone: the device serves every routed call */
    if (config.min_n >= 0) ps_context_set_host_crossover(ctx, 0);
    state.min_n[PS_FLOAT] = routing_order(ctx, PS_FLOAT);
    state.min_n[PS_DOUBLE] = routing_order(ctx, PS_DOUBLE);
    state.ctx = ctx;
    pthread_setspecific(context_key, ctx);
    /* registered after the backend's runtime has registered its own exit handlers (CUDA's), so
     * that this one runs first, while the runtime can still release the context */
    static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
    pthread_once(&exit_once, register_exit);
    if (config.verbose)
        fprintf(stderr, "portsolve_lapack: %s (%s), routing orders from %d (float), %d (double)\n",
                ps_context_backend_name(ctx), ps_context_device_name(ctx), state.min_n[PS_FLOAT],
                state.min_n[PS_DOUBLE]);
}

ps_context *ps__lapack_route(ps_dtype dtype, int n) {
    pthread_once(&config_once, read_config);
    if (!state.tried) {
        int first = config.min_n >= 0 ? config.min_n : FIRST_ROUTED_ORDER;
        if (n < first) return NULL;
        create_context();
    }
    if (!state.ctx || n < state.min_n[dtype]) return NULL;
    return state.ctx;
}

void *ps__lapack_host(const char *name) {
    pthread_once(&config_once, read_config);
    void *f = dlsym(config.fallback ? config.fallback : RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr,
                "portsolve_lapack: no host LAPACK provides %s; link one after "
                "libportsolve_lapack or name it in PORTSOLVE_LAPACK_FALLBACK\n",
                name);
        exit(EXIT_FAILURE);
    }
    return f;
}

double ps__lapack_now(void) {
    pthread_once(&config_once, read_config);
    if (!config.verbose) return 0;
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void ps__lapack_log(const char *routine, int m, int n, int nrhs, ps_context *ctx, const char *why,
                    double start) {
    if (!config.verbose) return;
    double seconds = ps__lapack_now() - start;
    if (ctx)
        fprintf(stderr, "portsolve_lapack: %s m=%d n=%d nrhs=%d on portsolve %s %.6f s\n", routine,
                m, n, nrhs, ps_context_backend_name(ctx), seconds);
    else
        fprintf(stderr, "portsolve_lapack: %s m=%d n=%d nrhs=%d on host LAPACK%s%s %.6f s\n",
                routine, m, n, nrhs, why ? " after portsolve: " : "", why ? why : "", seconds);
}

extern void xerbla_(const char *srname, const int *info, size_t len);

void ps__lapack_xerbla(const char *routine, int arg) {
    size_t len = 0;
    while (routine[len]) len++;
    xerbla_(routine, &arg, len);
}
