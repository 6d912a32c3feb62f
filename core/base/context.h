/* The context: one open backend plus the per-call error state. Internal. */
#ifndef PS_CORE_CONTEXT_H
#define PS_CORE_CONTEXT_H

#include "backend.h"
#include "base/tuning.h"

#include <stdatomic.h>
#include <stdint.h>

#define PS__ERROR_SIZE 1024

/* How LU computes its block rows of U (core/lu/lu.c). */
typedef enum ps__lu_block_row {
    PS__LU_BLOCK_ROW_AUTO = 0, /* the backend's choice (block_size of PS__ALGO_LU_INVERSE) */
    PS__LU_BLOCK_ROW_TRSM = 1,
    PS__LU_BLOCK_ROW_INVERSE = 2
} ps__lu_block_row;

/* How gjinv's device variant and LU hold the matrix while they work on it (core/base/tview.h). */
typedef enum ps__layout {
    PS__LAYOUT_AUTO = 0,      /* the backend's choice (block_size of PS__ALGO_*_TRANSPOSED) */
    PS__LAYOUT_ROWS = 1,      /* as given: row interchanges move scattered rows */
    PS__LAYOUT_TRANSPOSED = 2 /* transposed: row interchanges move contiguous columns */
} ps__layout;

/* Where LU factors its panels (core/lu/lu.c, core/lu/lu_hybrid.c). */
typedef enum ps__lu_panel_where {
    PS__LU_PANEL_DEVICE = 0,
    PS__LU_PANEL_HOST = 1
} ps__lu_panel_where;

struct ps_context {
    /* the thread inside a public call on this context (0: none) and its nesting depth */
    _Atomic(uintptr_t) owner;
    int depth;
    ps__backend be;
    ps__backend_ops ops;      /* the completed table be.ops points to */
    void *module;             /* dlopen handle of a backend module, NULL for cpu */
    int lu_block_size;        /* 0: automatic (options.lu_block_size, else tuning.lu_nb) */
    ps__tuning tuning;        /* the knobs (core/base/tuning.def); be.tuning points here */
    struct ps_context *host;  /* a CPU context for the hybrid variants, created on first use */
    ps_refine_options refine; /* set by ps_context_set_refine_options, when refine_set */
    int refine_set; /* 0: the tuning's ir_* knobs and the defaults (core/refine/refine_api.c) */
    ps_refine_result refine_result; /* what the last dsgesv did */
    int last_on_host;               /* the last host driver ran on the CPU by the crossover */
    void *ring[PS__TRANSFER_SLOTS]; /* the host drivers' page-locked staging buffers */
    size_t ring_bytes;              /* their size (0: none yet; core/base/staging.c) */
    int ring_held;                  /* set while a transfer thread uses the ring: no regrowth */
    char last_error[PS__ERROR_SIZE];
    int last_info;
    /* Resource accounting: live device buffers, and a test hook that makes the n-th next
     * allocation (device or host staging) fail; 0 disables it. */
    long live_buffers;
    long live_host_blocks;
    int fail_alloc_countdown;
    size_t test_device_free; /* test hook: the device memory ps__workspace_fits sees; 0: real */
    int test_late_joins; /* test hook: the overlapped host LU takes each piece only once it must */
};

/* Starts a public call: clears the error and info. */
void ps__begin(ps_context *ctx);

/* A public call's claim on its context (PS__BEGIN): one thread at a time; the thread that holds
 * it may nest calls, and the outermost claim makes the context's device the thread's current one
 * (the backend's activate). A call from a second thread while one runs is refused with
 * PS_ERR_CONTEXT_BUSY, leaving the context (and its message) to the running call. The claim
 * ends when the calling function returns (the cleanup attribute of gcc and clang). */
typedef struct ps__claim {
    ps_context *ctx;
    int held;
} ps__claim;
ps__claim ps__enter(ps_context *ctx);
void ps__leave(ps__claim *claim);
#define PS__BEGIN(c_)                                                                              \
    ps__claim ps__claim_ __attribute__((cleanup(ps__leave))) = ps__enter(c_);                      \
    if (!ps__claim_.held) return PS_ERR_CONTEXT_BUSY;                                              \
    ps__begin(c_)
/* Sets the error message (printf-style) and returns status. */
ps_status ps__fail(ps_context *ctx, ps_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Rejects argument number pos (1-based, for info) with a message. */
ps_status ps__bad_arg(ps_context *ctx, int pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Passes through a backend status; the backend already wrote the message. */
static inline ps_status ps__backend_status(ps_context *ctx, ps_status st) {
    (void)ctx;
    return st;
}

/* A size or threshold a tuning knob may set: the knob where set (>= 0), else the backend's
 * block_size for algo (core/backend.h says what each means). */
static inline int ps__tuned_size(ps_context *ctx, int knob, ps__algo algo, ps__dtype dt, int n) {
    return knob >= 0 ? knob : ctx->be.ops->block_size(&ctx->be, algo, dt, n);
}

/* Device buffers and host staging blocks, counted and subject to the failure hook. */
ps_status ps__dev_alloc(ps_context *ctx, size_t bytes, void **buf);
void ps__dev_free(ps_context *ctx, void *buf);
ps_status ps__host_alloc(ps_context *ctx, size_t bytes, void **ptr);
void ps__host_free(ps_context *ctx, void *ptr);
/* The same for the backend's host_alloc memory, which its transfers move fastest. */
ps_status ps__transfer_alloc(ps_context *ctx, size_t bytes, void **ptr);
void ps__transfer_free(ps_context *ctx, void *ptr);

/* *bytes = count1 * count2 * size; 0 when the product does not fit in a size_t (a wrapped size
 * would allocate too little and let the work run past it). */
static inline int ps__bytes_of(size_t count1, size_t count2, size_t size, size_t *bytes) {
    if (count2 && count1 > (size_t)-1 / count2) return 0;
    size_t count = count1 * count2;
    if (size && count > (size_t)-1 / size) return 0;
    *bytes = count * size;
    return 1;
}

/* Allocations of one call, released together on every exit path. */
typedef struct ps__scratch {
    ps_context *ctx;
    void *dev[12];
    void *host[8];
    void *transfer[2]; /* the backend's host_alloc */
    int ndev, nhost, ntransfer;
} ps__scratch;

static inline ps__scratch ps__scratch_begin(ps_context *ctx) {
    ps__scratch s = {ctx, {0}, {0}, {0}, 0, 0, 0};
    return s;
}
ps_status ps__scratch_dev(ps__scratch *s, size_t bytes, void **buf);
ps_status ps__scratch_host(ps__scratch *s, size_t bytes, void **ptr);
/* Host memory from the backend's host_alloc (page-locked where it can), for blocks uploaded and
 * downloaded every step; counted with the host blocks. */
ps_status ps__scratch_transfer(ps__scratch *s, size_t bytes, void **ptr);
void ps__scratch_end(ps__scratch *s);

/* Whether given spells the lower-case name, in any case (option and variant names). */
int ps__name_is(const char *name, const char *given);
/* A public enum's names, one entry per value, for its *_name and *_from_name functions. */
typedef struct ps__enum_name {
    const char *name; /* lower case */
    int value;
} ps__enum_name;
#define PS__COUNT(table) (sizeof(table) / sizeof((table)[0]))
/* The name of value in the count entries of table, or fallback when none has it. */
const char *ps__enum_to_name(const ps__enum_name *table, size_t count, int value,
                             const char *fallback);
/* *value = the entry given spells (any case): PS_SUCCESS; otherwise (given NULL included)
 * PS_ERR_INVALID_ARGUMENT and *value unchanged. */
ps_status ps__enum_from_name(const ps__enum_name *table, size_t count, const char *given,
                             int *value);

/* The context's CPU companion, which factors panels on the host for the hybrid variants; created
 * on first use and destroyed with ctx. */
ps_status ps__context_host(ps_context *ctx, ps_context **host);

/* Whether a host driver of order n in dt runs on the CPU (the crossover); then *host is the
 * context's CPU companion. */
int ps__crossover(ps_context *ctx, ps__dtype dt, int n, ps_context **host);
/* The status of a call the companion ran, with its message and info copied into ctx. */
ps_status ps__crossed(ps_context *ctx, ps_context *host, ps_status st);

/* Test hook: the n-th next allocation fails (n >= 1); 0 turns it off. */
void ps__context_fail_nth_alloc(ps_context *ctx, int n);
/* A host driver's estimate, before it starts: PS_ERR_OUT_OF_MEMORY (naming fn) when its arrays,
 * elements of dt on the device, and a reserve for the vendor libraries' workspaces clearly do
 * not fit in the device memory that is free (core/base/workspace.c). Backends that work in host
 * memory pass: the caller's arrays are the work. */
ps_status ps__workspace_fits(ps_context *ctx, const char *fn, ps__dtype dt, double elements);

#endif
