/*
 * The backend contract: the only interface the algorithms in core/ are written against.
 *
 * Memory is (buffer, element offset, leading dimension or increment): an OpenCL cl_mem cannot be
 * offset by pointer arithmetic, so buffers are opaque handles (host pointer, device pointer,
 * cl_mem). Every operation takes the dtype; scalars travel by host pointer (ps__scalar) unless an
 * entry says otherwise; increments are positive.
 *
 * ps__backend_ops is what every backend gives: lifecycle, memory and transfers, queues and lanes,
 * the BLAS and BLAS-like helpers. An algorithm's fused kernels form a kernel family declared next
 * to it (core/lu/lu_kernels.h, ...), with its own ABI version; a backend points family[] at the
 * families it accelerates. Core copies a module's table (exported under
 * PS__BACKEND_ENTRY_SYMBOL), checks its ABI and required entries, and fills what it left NULL from
 * the portable defaults (core/base/backend_defaults.c; each family on first use,
 * core/base/family.c). docs/EXTENDING.md walks through a backend and a family. Internal header;
 * it includes no vendor header.
 */
#ifndef PS_CORE_BACKEND_H
#define PS_CORE_BACKEND_H

#include "portsolve.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define PS__BACKEND_ABI_VERSION  10 /* 10: release_cached */
#define PS__BACKEND_ENTRY_SYMBOL "ps_backend_module_v1"

/* Element types a backend buffer can hold. The first two equal ps_dtype. */
typedef enum ps__dtype { PS__FLOAT = PS_FLOAT, PS__DOUBLE = PS_DOUBLE, PS__INT32 = 2 } ps__dtype;

static inline size_t ps__dtype_size(ps__dtype dt) {
    return dt == PS__DOUBLE ? sizeof(double) : sizeof(float); /* int32 is 4 bytes, as float */
}

/* A scalar of either precision, passed by host pointer; the member read is the dtype's. */
typedef union ps__scalar {
    float s;
    double d;
} ps__scalar;

static inline ps__scalar ps__scalar_of(ps__dtype dt, double v) {
    ps__scalar x;
    if (dt == PS__DOUBLE)
        x.d = v;
    else
        x.s = (float)v;
    return x;
}
static inline double ps__scalar_value(ps__dtype dt, ps__scalar x) {
    return dt == PS__DOUBLE ? x.d : (double)x.s;
}
/* A column-major matrix view: element (i,j) is at buf[off + i + j*ld]. */
typedef struct ps__mat {
    void *buf;
    size_t off;
    int ld;
} ps__mat;

/* A strided vector view: element i is at buf[off + i*inc], inc > 0. */
typedef struct ps__vec {
    void *buf;
    size_t off;
    int inc;
} ps__vec;

static inline ps__mat ps__mat_at(ps__mat a, int i, int j) {
    a.off += (size_t)i + (size_t)j * (size_t)a.ld;
    return a;
}

/* The view in which column k of a whole matrix is panel's column 0 (a panel buffer holding
 * columns k.. of it). Columns left of k are never addressed; the unsigned offset arithmetic
 * wraps back exactly. */
static inline ps__mat ps__mat_global_columns(ps__mat panel, int k) {
    panel.off -= (size_t)k * (size_t)panel.ld;
    return panel;
}
/* Column j of a from row i down, as a vector. */
static inline ps__vec ps__mat_col(ps__mat a, int i, int j) {
    ps__vec v = {a.buf, a.off + (size_t)i + (size_t)j * (size_t)a.ld, 1};
    return v;
}
/* Row i of a from column j right, as a vector. */
static inline ps__vec ps__mat_row(ps__mat a, int i, int j) {
    ps__vec v = {a.buf, a.off + (size_t)i + (size_t)j * (size_t)a.ld, a.ld};
    return v;
}
static inline ps__vec ps__vec_at(ps__vec x, int i) {
    x.off += (size_t)i * (size_t)x.inc;
    return x;
}

typedef enum ps__trans { PS__NOTRANS = 0, PS__TRANS = 1 } ps__trans;
typedef enum ps__uplo { PS__UPPER = 0, PS__LOWER = 1 } ps__uplo;
typedef enum ps__side { PS__LEFT = 0, PS__RIGHT = 1 } ps__side;
typedef enum ps__diag { PS__NONUNIT = 0, PS__UNIT = 1 } ps__diag;

/* What a block_size question is about: a block size, or the order from which a variant is used
 * (0: never). The file named says what each means. */
typedef enum ps__algo {
    PS__ALGO_LU = 0,               /* core/lu/lu.c */
    PS__ALGO_WZ = 1,               /* core/wz/wz.c */
    PS__ALGO_GJ = 2,               /* gjinv, core/gj/gj.c */
    PS__ALGO_GJ_STRIPE = 3,        /* gjsv's stripe height, core/gj/gjsv.c */
    PS__ALGO_CHOL = 4,             /* 0: the recursive Cholesky, core/chol/chol.c */
    PS__ALGO_LU_INVERSE = 5,       /* from: U's block rows as inv(L11) A12, core/lu/lu.c */
    PS__ALGO_GJ_TRANSPOSED = 6,    /* from: gjinv holds the matrix transposed, core/gj/gj.c */
    PS__ALGO_GETRI = 7,            /* 0: LU's, core/gj/getri.c */
    PS__ALGO_LU_TRANSPOSED = 8,    /* from: LU holds a square matrix transposed, core/lu/lu.c */
    PS__ALGO_TRSV_BLOCKED = 9,     /* GMRES-IR's inverted diagonal blocks, trsv_blocked.c */
    PS__ALGO_LU_OVERLAP = 10,      /* from: host LU overlapped with its transfers, lu_overlap.c */
    PS__ALGO_LU_COPY = 11,         /* from: device LU in an aligned copy, core/lu/lu_copy.c */
    PS__ALGO_CHOL_COPY = 12,       /* from: device Cholesky in an aligned copy, chol_copy.c */
    PS__ALGO_LU_FLOAT_SPLIT = 13,  /* from: float LU's updates in TF32X3, base/float_split.c */
    PS__ALGO_CHOL_FLOAT_SPLIT = 14 /* from: float Cholesky's, the same */
} ps__algo;

/* How float gemm computes (set_float_compute): in float, or on inputs rounded to a tensor-core
 * format, accumulated in float; numbered as ps_lowprec. The split modes must add their two small
 * products before the big one where the accumulator truncates (backend_cuda/cuda_blas.c). */
typedef enum ps__float_compute {
    PS__COMPUTE_FP32 = 0,
    PS__COMPUTE_TF32 = 1,
    PS__COMPUTE_FP16 = 2,
    PS__COMPUTE_BF16 = 3,
    PS__COMPUTE_TF32X3 = 4, /* three TF32 products on split operands: about float's accuracy */
    PS__COMPUTE_FP16X3 = 5  /* the same on FP16, the parts scaled into its range (operands of
                             * magnitude up to about 1000) */
} ps__float_compute;

/* The kernel families (ops.family[] and ps__backend.family[] are indexed by these). */
typedef enum ps__family_id {
    PS__FAMILY_LU = 0,     /* core/lu/lu_kernels.h */
    PS__FAMILY_CHOL = 1,   /* core/chol/chol_kernels.h */
    PS__FAMILY_WZ = 2,     /* core/wz/wz_kernels.h */
    PS__FAMILY_GJ = 3,     /* core/gj/gj_kernels.h */
    PS__FAMILY_ITER = 4,   /* core/iter/iter_kernels.h */
    PS__FAMILY_REFINE = 5, /* core/refine/refine_kernels.h */
    PS__FAMILY_PEER = 6,   /* core/peer/peer_kernels.h */
    PS__FAMILIES = 7
} ps__family_id;

/* Every family table starts with this header, then function pointers only. A shorter table
 * (older struct_size) gets the defaults for the newer entries; another abi_version, the defaults
 * for the whole family. */
typedef struct ps__family_header {
    int abi_version;
    size_t struct_size;
} ps__family_header;

typedef struct ps__backend_ops ps__backend_ops;

/* One open backend: the completed table, the backend's state, and where it writes the reason
 * of a failure. Owned by a ps_context. */
typedef struct ps__backend {
    const ps__backend_ops *ops;
    void *impl;            /* the backend's state (queue/stream, handles, workspaces) */
    char device_name[256]; /* set by open */
    int has_double;        /* set by open: device computes in double precision */
    char *err;             /* failure message buffer, err_size bytes (owned by the context) */
    size_t err_size;
    /* set by open, measured per device kind: host drivers of order up to host_crossover[dt]
     * (PS__FLOAT, PS__DOUBLE) run on the CPU path, where transfers and launches would cost more
     * than the work (core/base/crossover.c); 0: never */
    int host_crossover[2];
    /* the context's knobs (core/base/tuning.def), set before open; read-only for the backend */
    const struct ps__tuning *tuning;
    /* core's completed family tables, made on first use (core/base/family.c); not the
     * backend's to touch */
    const ps__family_header *family[PS__FAMILIES];
    /* set by open: a buffer handle is the device address of its first byte (CUDA), so a caller's
     * buffer must be aligned to its elements; 0 (a backend built before it): not checked. Last,
     * so that the fields before it keep their places for such a backend. */
    int buffers_are_addresses;
} ps__backend;

/* Slots of upload_async / download_async / transfer_wait. */
#define PS__TRANSFER_SLOTS 4
/* Marks of transfer_order. */
#define PS__TRANSFER_MARKS 24
/* transfer_order's orders. MARK_WORK and MARK_TRANSFERS name the point lane 0's work, or the
 * transfers queued so far, have reached (replacing what the mark named before); TRANSFERS_AFTER
 * makes the transfers queued from now on wait for a mark's point (and for nothing queued after
 * it), WORK_AFTER lane 0's work queued from now on. Two host threads may order on the same mark
 * at once (a staged driver's work thread marks while its transfer thread waits). */
typedef enum ps__transfer_order {
    PS__ORDER_MARK_WORK = 0,
    PS__ORDER_MARK_TRANSFERS = 1,
    PS__ORDER_TRANSFERS_AFTER = 2,
    PS__ORDER_WORK_AFTER = 3
} ps__transfer_order;
/* Slots of fetch_start / fetch_wait. */
#define PS__FETCH_SLOTS 2

struct ps__backend_ops {
    int abi_version;    /* PS__BACKEND_ABI_VERSION the backend was built against */
    size_t struct_size; /* sizeof(ps__backend_ops) the backend was built against */
    const char *name;   /* "cpu", "cuda", "opencl" */

    /* ---- Required. ---- */
    /* Lifecycle: open sets be->impl, be->device_name, be->has_double. device_spec may be NULL. */
    ps_status (*open)(ps__backend *be, const char *device_spec);
    void (*close)(ps__backend *be);
    /* Blocks until queued work is done; returns the first asynchronous error. */
    ps_status (*sync)(ps__backend *be);

    /* Memory. alloc of 0 bytes returns a valid (possibly NULL) handle that free accepts.
     * Device out-of-memory is PS_ERR_OUT_OF_MEMORY. free may be called while queued work still
     * uses buf (core's scratch workspaces are): the memory is released behind that work (CUDA's
     * cudaFree waits for the device, OpenCL defers a released buffer until its commands end). */
    ps_status (*alloc)(ps__backend *be, size_t bytes, void **buf);
    void (*free)(ps__backend *be, void *buf);
    /* Host (rows x cols, leading dimension ldh) to device view and back. Blocking. */
    ps_status (*upload)(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host,
                        int ldh, ps__mat dst);
    ps_status (*download)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                          void *host, int ldh);
    /* dst = src for rows x cols views, which do not overlap. */
    ps_status (*copy2d)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                        ps__mat dst);

    /* BLAS level 1. dot/nrm2 return to a host scalar; iamax returns the 0-based index of the
     * first element of largest |x_i| (-1 when n = 0). */
    ps_status (*copy)(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);
    ps_status (*swap)(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);
    ps_status (*scal)(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x);
    ps_status (*axpy)(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                      ps__vec y);
    ps_status (*dot)(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y,
                     ps__scalar *result);
    ps_status (*nrm2)(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__scalar *result);
    ps_status (*iamax)(ps__backend *be, ps__dtype dt, int n, ps__vec x, int *result);
    /* BLAS level 2. */
    ps_status (*gemv)(ps__backend *be, ps__dtype dt, ps__trans trans, int m, int n,
                      const ps__scalar *alpha, ps__mat a, ps__vec x, const ps__scalar *beta,
                      ps__vec y);
    ps_status (*ger)(ps__backend *be, ps__dtype dt, int m, int n, const ps__scalar *alpha,
                     ps__vec x, ps__vec y, ps__mat a);
    ps_status (*trsv)(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, ps__diag diag,
                      int n, ps__mat a, ps__vec x);
    /* BLAS level 3. */
    ps_status (*gemm)(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m, int n,
                      int k, const ps__scalar *alpha, ps__mat a, ps__mat b, const ps__scalar *beta,
                      ps__mat c);
    ps_status (*syrk)(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, int n, int k,
                      const ps__scalar *alpha, ps__mat a, const ps__scalar *beta, ps__mat c);
    ps_status (*trsm)(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                      ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b);

    /* ---- Optional: NULL takes the portable default (core/base/backend_defaults.c). ---- */
    /* The device. queue: the native queue/stream (cudaStream_t, cl_command_queue; NULL).
     * list_devices writes the backend's devices, one per line ("index: name, ..."), and needs no
     * open backend. open_borrowed opens on a queue the caller owns (OpenCL: cl_context +
     * cl_command_queue; CUDA: the device of a cudaStream_t, context NULL), which close never
     * releases (default PS_ERR_NOT_SUPPORTED). device_memory: free and total bytes (free = total
     * where only that is known; default PS_ERR_NOT_SUPPORTED, nothing is refused ahead).
     * release_cached, after sync: gives back the memory the backend keeps between operations to
     * make the next one faster (CUDA: its memory pool's unused part; default: nothing to give).
     * block_size: the block size or from-which-order threshold for algo at order n (0: core's
     * default; backends answer from a ps__size_rule table, core/base/size_rules.h). activate
     * makes the backend's device the calling thread's current one, where the runtime keeps one
     * per thread (CUDA), at the start of each public call and of each helper thread, so that a
     * context keeps working after the application or another context chose another device
     * (default: nothing). */
    void *(*queue)(ps__backend *be);
    void (*list_devices)(char *buf, size_t size);
    ps_status (*open_borrowed)(ps__backend *be, void *native_context, void *native_queue);
    ps_status (*device_memory)(ps__backend *be, size_t *free_bytes, size_t *total_bytes);
    ps_status (*release_cached)(ps__backend *be);
    int (*block_size)(ps__backend *be, ps__algo algo, ps__dtype dt, int n);
    void (*activate)(ps__backend *be);

    /* Lanes for look-ahead: lanes() in-order lanes (streams, queues; 1 by default). use_lane(k)
     * sends the following operations to lane k (0 is the context's own queue, where the blocking
     * upload and download and transfer_order's marks of the work also go, split or not; 1 carries
     * latency-critical work such as the LU panel, at higher priority where the backend can);
     * lane_wait(w, s) makes lane w wait for all work queued so far on lane s. sync waits for every
     * lane. */
    int (*lanes)(ps__backend *be);
    ps_status (*use_lane)(ps__backend *be, int lane);
    ps_status (*lane_wait)(ps__backend *be, int waiter, int signaller);
    /* Between lanes_split and lanes_join a backend may run lanes 0 and 1 on disjoint sets of
     * compute units (CUDA: green contexts), so that lane 1's panel kernels start at once instead
     * of waiting for lane 0's big update to drain; it decides from algo, dt, its own state and n
     * (the columns left; for GJ the order) whether to split, may be called again as n shrinks,
     * and says in *split whether the lanes are split now. After a change each lane follows
     * everything queued before it on either lane and on the context's queue; after lanes_join
     * the context's queue follows both. Every lanes_split is matched by a lanes_join, also after
     * a failure. The defaults never split (core/base/lookahead.c). */
    ps_status (*lanes_split)(ps__backend *be, ps__algo algo, ps__dtype dt, int n, int *split);
    ps_status (*lanes_join)(ps__backend *be);

    /* Host memory. host_alias: a handle through which the backend reads and writes host memory
     * in place (the CPU backend: the pointer itself), needing no release (default
     * PS_ERR_NOT_SUPPORTED: the host drivers stage through device buffers). host_alloc: memory
     * that upload and download move at the bus's full speed, page-locked where the backend can
     * (OpenCL: a mapped CL_MEM_ALLOC_HOST_PTR buffer), PS_ERR_OUT_OF_HOST_MEMORY when neither
     * that nor plain memory can be had; released by host_free before close (defaults: malloc). */
    ps_status (*host_alias)(ps__backend *be, void *host, void **buf);
    ps_status (*host_alloc)(ps__backend *be, size_t bytes, void **ptr);
    void (*host_free)(ps__backend *be, void *ptr);
    /* Transfers queued without waiting (the host drivers' staging, core/base/staging.c), between
     * host_alloc memory and a view. They run in the order queued and otherwise as transfer_order
     * says (a backend may run them on a queue beside the work; CUDA does). slot
     * (0..PS__TRANSFER_SLOTS-1) then tracks the transfer; host is not touched until
     * transfer_wait(slot) returns. transfer_order (mark in 0..PS__TRANSFER_MARKS-1) lets the host
     * drivers upload later columns while the first are factored (core/lu/lu_overlap.c); its
     * default does nothing, right for backends whose transfers queue in order with the work.
     * Defaults: the blocking upload and download. */
    ps_status (*upload_async)(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host,
                              int ldh, ps__mat dst, int slot);
    ps_status (*download_async)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                                void *host, int ldh, int slot);
    ps_status (*transfer_wait)(ps__backend *be, int slot);
    ps_status (*transfer_order)(ps__backend *be, ps__transfer_order order, int mark);
    /* Reading device values a step late: fetch_start may begin moving the count elements of the
     * contiguous vector src to the host (CUDA: an asynchronous copy into pinned memory);
     * fetch_wait(slot) delivers into host what src held at fetch_start(slot), provided nothing
     * wrote src in between. slot in 0..PS__FETCH_SLOTS-1; the default reads src in fetch_wait.
     * read_elements reads count single elements at the given element offsets of buf into host
     * out[] (the WZ corners, a pivot). */
    ps_status (*fetch_start)(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src);
    ps_status (*fetch_wait)(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                            void *host);
    ps_status (*read_elements)(ps__backend *be, ps__dtype dt, const void *buf, int count,
                               const size_t *offsets, void *out);

    /* BLAS-like helpers. */
    /* Sets every element of the rows x cols view to *value. */
    ps_status (*fill)(ps__backend *be, ps__dtype dt, int rows, int cols, const ps__scalar *value,
                      ps__mat a);
    /* y = alpha x + beta y, and the elementwise y_i = x_i y_i. */
    ps_status (*axpby)(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                       const ps__scalar *beta, ps__vec y);
    ps_status (*vmul)(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);
    /* BLAS trmm, in place: b = alpha op(a) b (side left) or alpha b op(a) (side right). */
    ps_status (*trmm)(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                      ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b);
    /* LAPACK laswp on the ncols columns of a: for k = k1..k2-1 (forward, or k2-1..k1 when
     * forward is 0) swap rows k and ipiv[k] of a, where ipiv is an int32 vector (buffer ipiv at
     * element offset ipiv_off holds entry k1) of 0-based row indices of a. */
    ps_status (*laswp)(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                       const void *ipiv, size_t ipiv_off, int forward);
    /* The same for columns of the nrows x ? view a. getri and gjinv undo their row pivoting with
     * it, backwards, where a backend may read the pivots on the host and move the columns by the
     * permutation's cycles (core/base/colswp_plan.h); gjinv's transposed layout applies each
     * step's interchanges (ipiv[k] >= k, at most a block) forward inside its look-ahead, where a
     * host wait stalls the other lane, so short lists should stay on the device. */
    ps_status (*colswp)(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                        const void *ipiv, size_t ipiv_off, int forward);
    /* A gather: dst(i, j) = src(perm[i], j) for the rows x cols view dst, perm an int32 vector
     * at element perm_off of rows of the view src (which may have more rows than dst; src and
     * dst do not overlap). A pivot list turned into its permutation (ps__pivots_to_perm,
     * core/lu/lu.h) moves the rows in one pass; the distributed row interchanges pack the rows
     * they send with it. */
    ps_status (*permute_rows)(ps__backend *be, ps__dtype dt, int rows, int cols, const void *perm,
                              size_t perm_off, ps__mat src, ps__mat dst);
    /* A scatter: dst(idx[i], j) = src(i, j) for the rows x cols view src, for each i with
     * idx[i] >= 0 (int32 at element idx_off; no two alike); rows of dst not named keep their
     * values. The distributed row interchanges put the rows they receive in place with it. */
    ps_status (*scatter_rows)(ps__backend *be, ps__dtype dt, int rows, int cols, const void *idx,
                              size_t idx_off, ps__mat src, ps__mat dst);
    /* dst = src^T (rows x cols into cols x rows, not overlapping); transpose_square: a = a^T in
     * place for the n x n view (default PS_ERR_NOT_SUPPORTED: callers go by strips through a
     * work buffer; n = 0 succeeds where the backend offers it). */
    ps_status (*transpose)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                           ps__mat dst);
    ps_status (*transpose_square)(ps__backend *be, ps__dtype dt, int n, ps__mat a);
    /* dst = src on the uplo triangle of the n x n views, the diagonal included; the other
     * triangle of dst keeps its values (LAPACK lacpy with uplo; src and dst do not overlap). The
     * default copies a column at a time. */
    ps_status (*copy_triangle)(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat src,
                               ps__mat dst);
    /* dst = alpha * src rounded to dst_dt, for rows x cols views of two different buffers (float
     * or double, either way or the same); alpha is a power of two. When some alpha * src(i,j) is
     * not finite in dst_dt, sets the int32 device word info[0] to 1 (never clears it) and leaves
     * dst unspecified (LAPACK's dlag2s test). */
    ps_status (*convert)(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                         double alpha, ps__mat src, ps__mat dst, void *info);
    /* ||a||_inf of the rows x cols view (0 when empty), to the host, in double; NaN or Inf when
     * the view holds one. */
    ps_status (*norm_inf)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                          double *result);
    /* How float gemm computes from now on (PS__COMPUTE_FP32, the default, every backend has). A
     * mode the backend lacks is PS_ERR_NOT_SUPPORTED with the reason, the mode unchanged. */
    ps_status (*set_float_compute)(ps__backend *be, ps__float_compute mode);

    /* ---- Kernel families: the tables this backend fills (NULL: all defaults). ---- */
    const ps__family_header *family[PS__FAMILIES];
};

/* Entry point a backend module exports under PS__BACKEND_ENTRY_SYMBOL. */
typedef const ps__backend_ops *(*ps__backend_entry_fn)(void);

/* Family id's completed table: the entries of be->ops->family[id] where it has them and its
 * abi_version is the defaults', the defaults' elsewhere. Made on first use (from the context's
 * thread) and kept until ps__families_release; never NULL (without memory for the merge, the
 * defaults themselves). Each family wraps it in a typed accessor (ps__lu(be), ...). */
const ps__family_header *ps__family(ps__backend *be, ps__family_id id,
                                    const ps__family_header *defaults);
void ps__families_release(ps__backend *be);

/* Returns from the enclosing function when a backend call fails. */
#define PS__TRY(expr)                                                                              \
    do {                                                                                           \
        ps_status ps__try_status = (expr);                                                         \
        if (ps__try_status != PS_SUCCESS) return ps__try_status;                                   \
    } while (0)

/* Writes a failure message into be->err and returns status. Inline so that runtime-loaded
 * modules, which cannot see libportsolve's hidden symbols, share it. */
__attribute__((format(printf, 3, 4))) static inline ps_status
ps__backend_fail(ps__backend *be, ps_status status, const char *fmt, ...) {
    if (be->err && be->err_size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(be->err, be->err_size, fmt, ap);
        va_end(ap);
    }
    return status;
}

#endif
