/*
 * The backend vtable: the only interface the algorithms in core/ are written against.
 *
 * Memory is addressed as (buffer, element offset, leading dimension or increment), because an
 * OpenCL cl_mem cannot be offset with pointer arithmetic; buffers are opaque handles (a host
 * pointer on the CPU, a device pointer on CUDA, a cl_mem on OpenCL). Every operation takes the
 * dtype and the backend picks the S or D vendor call. Scalars travel by host pointer
 * (ps__scalar) unless an entry says otherwise. Increments are positive.
 *
 * Backends are compiled into libportsolve (cpu) or are runtime-loaded modules (cuda, opencl)
 * exporting PS__BACKEND_ENTRY_SYMBOL. Core copies the module's table, checks its ABI version and
 * that every required entry is set, and fills the optional entries (custom kernels and a few
 * helpers) that the module left NULL from the portable defaults in backend_defaults.c, which are
 * built from the required entries. New entries go at the end; a module built against an older,
 * shorter table reports its struct_size and gets defaults for the newer entries.
 *
 * This header is internal (core and backends); it includes no vendor header.
 */
#ifndef PS_CORE_BACKEND_H
#define PS_CORE_BACKEND_H

#include "portsolve.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define PS__BACKEND_ABI_VERSION  4 /* 4: ps__backend.tuning */
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
/* count elements of dt (float or double) at raw as doubles into out, and doubles into raw
 * rounded to dt: the host side of small transfers. */
static inline void ps__values_to_double(ps__dtype dt, const void *raw, size_t count, double *out) {
    for (size_t i = 0; i < count; i++)
        out[i] = dt == PS__DOUBLE ? ((const double *)raw)[i] : (double)((const float *)raw)[i];
}
static inline void ps__values_from_double(ps__dtype dt, const double *v, size_t count, void *raw) {
    for (size_t i = 0; i < count; i++) {
        if (dt == PS__DOUBLE)
            ((double *)raw)[i] = v[i];
        else
            ((float *)raw)[i] = (float)v[i];
    }
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

/* Which algorithm a tuning question is about (block_size entry). */
typedef enum ps__algo {
    PS__ALGO_LU = 0,
    PS__ALGO_WZ = 1,
    PS__ALGO_GJ = 2,            /* blocked Gauss-Jordan inversion (gjinv) */
    PS__ALGO_GJ_STRIPE = 3,     /* stripe height of the striped Gauss-Jordan solver (gjsv) */
    PS__ALGO_CHOL = 4,          /* block size of the blocked Cholesky; 0: the recursive one */
    PS__ALGO_LU_INVERSE = 5,    /* LU computes its block rows of U as inv(L11) A12 (a GEMM)
                                 * instead of by trsm from this order on; 0: never (core/lu/lu.c) */
    PS__ALGO_GJ_TRANSPOSED = 6, /* gjinv's device variant holds the matrix transposed from this
                                 * order on, so that its row interchanges move contiguous
                                 * columns; 0: never (core/gj/gj.c) */
    PS__ALGO_GETRI = 7, /* block size of getri's inversion from LU factors (core/gj/getri.c);
                         * 0: LU's */
    PS__ALGO_LU_TRANSPOSED = 8, /* LU of a square matrix holds it transposed from this order on
                                 * (core/lu/lu.c); 0: never */
    PS__ALGO_TRSV_BLOCKED = 9,  /* GMRES-IR's preconditioner solves with the float factors by
                                 * diagonal blocks of this order, inverted once, instead of by
                                 * trsv_mixed (core/refine/trsv_blocked.c); 0: never */
    PS__ALGO_LU_OVERLAP = 10    /* host LU drivers factor in two halves, their transfers
                                 * overlapped with the work, from this order on
                                 * (core/lu/lu_overlap.c); 0: never */
} ps__algo;

/* How float gemm computes (the set_float_compute entry): in float, or with its inputs rounded to
 * a tensor-core format and the products accumulated in float. Numbered as ps_lowprec. A backend
 * offering the split modes must sum their two small products before the big one where its
 * accumulator truncates (tensor cores do): in the other order FP16X3's error was 8x float's, not
 * 1.9x (backend_cuda/cuda_blas.c; test_vtable_ir checks it against the backend's float gemm). */
typedef enum ps__float_compute {
    PS__COMPUTE_FP32 = 0,
    PS__COMPUTE_TF32 = 1,
    PS__COMPUTE_FP16 = 2,
    PS__COMPUTE_BF16 = 3,
    PS__COMPUTE_TF32X3 = 4, /* three TF32 products on split operands: about float's accuracy */
    PS__COMPUTE_FP16X3 = 5  /* the same on FP16, the parts scaled into its range (operands of
                             * magnitude up to about 1000) */
} ps__float_compute;

typedef struct ps__backend_ops ps__backend_ops;

/*
 * One open backend: the completed table, the backend's own state, and where it writes the
 * reason of a failure. Owned by a ps_context.
 */
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
} ps__backend;

/* The conjugate-gradient step's vectors (cg_step): w = A u on entry, s carries A p; u.buf may
 * equal r.buf (no preconditioner, dinv.buf NULL). */
typedef struct ps__cg_vectors {
    ps__vec x, r, u, w, p, s, dinv, xbest;
} ps__cg_vectors;
/* Slots of upload_async / download_async / transfer_wait. */
#define PS__TRANSFER_SLOTS 4
/* Marks of transfer_order. */
#define PS__TRANSFER_MARKS 16
/* transfer_order's orders. MARK_WORK and MARK_TRANSFERS name the point the context's queue, or
 * the transfers queued so far, have reached (replacing what the mark named before);
 * TRANSFERS_AFTER makes the transfers queued from now on wait for a mark's point (and for nothing
 * queued after it), WORK_AFTER the work queued from now on. */
typedef enum ps__transfer_order {
    PS__ORDER_MARK_WORK = 0,
    PS__ORDER_MARK_TRANSFERS = 1,
    PS__ORDER_TRANSFERS_AFTER = 2,
    PS__ORDER_WORK_AFTER = 3
} ps__transfer_order;
/* Slots of fetch_start / fetch_wait. */
#define PS__FETCH_SLOTS 2
/* Steps of an arnoldi_steps or arnoldi_restart call whose columns fetch_wait may deliver before
 * the call has finished (a prefix of its fetch; see arnoldi_steps). */
#define PS__ARNOLDI_CHECKPOINT 8

struct ps__backend_ops {
    /* Table header. */
    int abi_version;    /* PS__BACKEND_ABI_VERSION the backend was built against */
    size_t struct_size; /* sizeof(ps__backend_ops) the backend was built against */
    const char *name;   /* "cpu", "cuda", "opencl" */

    /* Lifecycle: open sets be->impl, be->device_name, be->has_double. device_spec may be NULL. */
    ps_status (*open)(ps__backend *be, const char *device_spec);
    void (*close)(ps__backend *be);
    /* Blocks until queued work is done; returns the first asynchronous error. */
    ps_status (*sync)(ps__backend *be);
    /* The native queue/stream the backend runs on (cudaStream_t, cl_command_queue, NULL). */
    void *(*queue)(ps__backend *be);

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

    /* ---- Optional entries: NULL means "use the portable default" (backend_defaults.c). ---- */

    /* Sets every element of the rows x cols view to *value. */
    ps_status (*fill)(ps__backend *be, ps__dtype dt, int rows, int cols, const ps__scalar *value,
                      ps__mat a);
    /* Reads count single elements at the given element offsets of buf into host out[]
     * (the WZ corners, a pivot), without downloading whole matrices. */
    ps_status (*read_elements)(ps__backend *be, ps__dtype dt, const void *buf, int count,
                               const size_t *offsets, void *out);
    /* LAPACK laswp on the ncols columns of a: for k = k1..k2-1 (forward, or k2-1..k1 when
     * forward is 0) swap rows k and ipiv[k] of a, where ipiv is an int32 vector (buffer ipiv at
     * element offset ipiv_off holds entry k1) of 0-based row indices of a. */
    ps_status (*laswp)(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                       const void *ipiv, size_t ipiv_off, int forward);
    /* Custom kernel: unblocked LU with partial pivoting of the m x n panel a (m >= n).
     * Row swaps are applied across the panel's n columns only. Writes, for i < n,
     * ipiv[ipiv_off + i] = row_base + (0-based panel row chosen as pivot i); and, when the pivot
     * of column i is exactly zero (that column is then left unscaled, as LAPACK does) and
     * info[0] is 0, info[0] = row_base + i + 1. ipiv and info are int32 buffers. */
    ps_status (*getrf_panel)(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                             size_t ipiv_off, int row_base, void *info);
    /* Tuning: the block size for algo at order n (0: core's default). */
    int (*block_size)(ps__backend *be, ps__algo algo, ps__dtype dt, int n);
    /* Widest panel getrf_panel handles well; wider panels are split recursively by core. */
    int (*panel_width)(ps__backend *be, ps__dtype dt, int m);
    /* Sets *buf to a handle through which this backend reads and writes the host memory at
     * host in place (the CPU backend: the pointer itself). The handle needs no release and is
     * valid while that memory lives. PS_ERR_NOT_SUPPORTED when the backend cannot (the
     * default), in which case the host drivers stage through device buffers. */
    ps_status (*host_alias)(ps__backend *be, void *host, void **buf);
    /* Writes the backend's devices, one per line ("index: name, ..."), into buf; needs no open
     * backend (for `portsolve info`). */
    void (*list_devices)(char *buf, size_t size);
    /* Opens on a queue the caller owns (OpenCL: cl_context + cl_command_queue; CUDA: the
     * device of a cudaStream_t, context NULL). Borrowed: close never releases them.
     * PS_ERR_NOT_SUPPORTED by default. */
    ps_status (*open_borrowed)(ps__backend *be, void *native_context, void *native_queue);
    /* Concurrency for look-ahead: the backend offers lanes() in-order lanes (streams, queues;
     * 1 by default). use_lane(k) sends the following operations to lane k (0 is the context's
     * own queue, where host transfers also go; 1 carries latency-critical work such as the LU
     * panel, and backends should run it at higher priority); lane_wait(w, s) makes lane w wait
     * for all work queued so far on lane s. sync waits for every lane. */
    int (*lanes)(ps__backend *be);
    ps_status (*use_lane)(ps__backend *be, int lane);
    ps_status (*lane_wait)(ps__backend *be, int waiter, int signaller);
    /* Custom kernel: unblocked Cholesky of the n x n view a (n <= potrf_width) in place, A = L L^T
     * (uplo lower, the lower triangle is read and written) or A = U^T U (upper). Does nothing when
     * info[0] is nonzero on entry (an earlier block failed). When the pivot of column j is not
     * positive (or NaN), sets info[0] = index_base + j + 1 and stops there, leaving a(j,j) as
     * updated so far (LAPACK dpotf2). info is an int32 buffer. */
    ps_status (*potrf_panel)(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                             void *info, int index_base);
    /* Widest diagonal block potrf_panel takes (core recurses above it). */
    int (*potrf_width)(ps__backend *be, ps__dtype dt);
    /* Fused vector update y = alpha x + beta y (the iterative solvers' direction updates). */
    ps_status (*axpby)(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                       const ps__scalar *beta, ps__vec y);
    /* Elementwise product y_i = x_i y_i (the Jacobi iteration and preconditioner). */
    ps_status (*vmul)(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);

    /*
     * WZ factorization (core/wz/wz.c explains the layouts). A step eliminates with the 2 x 2
     * "corner" of two pivot rows r0, r1 and two columns c0, c1: every other active row i gets
     * [w0 w1] = [a(i,c0) a(i,c1)] C^-1, C = [a(r0,c0) a(r0,c1); a(r1,c0) a(r1,c1)], stored in
     * a(i,c0), a(i,c1). With pivoting, r0 first takes the active row of largest |a(i,c0)| (the
     * first such) and then r1 the remaining active row maximizing |det C| (the first such). W
     * comes from Gaussian elimination of C^T with partial pivoting (core/wz/wz_corner.h); a step
     * one of whose two pivots is below the precision's smallest normal number (0, NaN
     * included) fails: its W entries are set to 0 (no elimination, so nothing overflows later) and
     * its 1-based step number goes to info[0] unless info[0] is already nonzero. ipiv and info are
     * int32 buffers.
     *
     * Natural layout, one step k of an n x n matrix a (the papers' vector form): rows and
     * columns k and k2 = n-1-k, active rows k..k2; pivot rows are swapped across all n columns
     * and recorded as ipiv[k], ipiv[k2] (0-based: the row swapped with row k, then the one
     * swapped with row k2); W goes to rows k+1..k2-1 of columns k and k2; the inner matrix is
     * left for the caller's rank-1 updates. k = k2 (odd n) only checks a(k,k). work: n
     * elements the implementation may use.
     */
    ps_status (*wz_corner)(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a, ps__vec work,
                           void *ipiv, void *info, int pivoting);
    /*
     * Step-order layout (the blocked form): the m x w panel a (m >= w) whose step s has pivot
     * rows and columns 2s and 2s+1; active rows are 2s..m-1; swaps stay within the w columns
     * and are recorded LAPACK-style, ipiv[ipiv_off + t] = row_base + (panel row swapped with
     * row t), for t = 2s then 2s+1; the other panel columns right of the step are updated. The
     * corner's lower-left entry a(2s+1, 2s) moves to zsub[s] (a vector view) and 0 is left in its
     * place, so the panel's lower triangle is exactly the unit lower factor. An odd w ends with
     * a 1 x 1 step on column w-1 (pivot a(w-1,w-1), partial pivoting, rows below divided by
     * it). Step numbers in info are row_base / 2 + s + 1 (row_base is even).
     */
    ps_status (*wz_panel)(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                          void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting);
    /* Widest panel (even) wz_panel handles well; core splits wider panels recursively. */
    int (*wz_panel_width)(ps__backend *be, ps__dtype dt, int m);
    /*
     * Moves between the natural and the step order of an order-n matrix: step-order position t
     * holds natural index t/2 (t even) or n-1-(t-1)/2 (t odd). to_steps: dst(t,u) =
     * src(nat(t), nat(u)) when square (ncols = n, columns permuted too), else dst(t,j) =
     * src(nat(t), j) over ncols columns; back: the inverse. Square moves of factors (zsub.buf
     * not NULL) also carry the corners' lower-left entries: to_steps stores src(n-1-s, s) in
     * zsub[s] and 0 at dst(2s+1, 2s); back puts zsub[s] at dst(n-1-s, s). src and dst do not
     * overlap.
     */
    ps_status (*wz_reorder)(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                            int to_steps, ps__mat src, ps__mat dst, ps__vec zsub);
    /*
     * Solves Z X = X for one nb x nb diagonal block of a step-order Z factor: the upper
     * triangle of z with the corners' lower-left entries zsub[s] at (2s+1, 2s) (2 x 2 diagonal
     * blocks; odd nb ends with a 1 x 1 block). x is nb x nrhs.
     */
    ps_status (*wz_zsolve)(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z, ps__vec zsub,
                           ps__mat x);

    /* BLAS trmm, in place: b = alpha op(a) b (side left) or alpha b op(a) (side right), a
     * triangular (m x m or n x n), b m x n. */
    ps_status (*trmm)(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                      ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b);
    /* Column interchanges of the nrows x ? view a: for k = k1..k2-1 (forward, or k2-1..k1 when
     * forward is 0) swap columns k and ipiv[k] (int32 buffer, entry k1 at element ipiv_off,
     * 0-based column indices of a). getri and the Gauss-Jordan inverse undo their row pivoting
     * with it, backwards, as their last step: a backend may read the pivots on the host (waiting
     * for its queue) and move the columns by the permutation's cycles (core/base/colswp_plan.h, as
     * the CUDA and OpenCL backends do). gjinv's transposed layout also applies each step's
     * interchanges (getrf's kind, ipiv[k] >= k, at most the block size) with it, forward, inside
     * its look-ahead: there a host wait stalls the other lane, so a backend should apply short
     * lists on the device (CUDA does up to 1024). */
    ps_status (*colswp)(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                        const void *ipiv, size_t ipiv_off, int forward);
    /*
     * Custom kernel, the striped Gauss-Jordan solver's tile update (core/gj/gjsv.c): jk -= ji ik,
     * where ji (m x s) stacks the JI tiles of every stripe being updated, ik (s x ncols) is the
     * pivot stripe's IK tile and jk (m x ncols) the JK tiles. One call updates all those stripes
     * at once (their tiles are independent); s is the stripe height (at most 1024).
     */
    ps_status (*gj_stripe_update)(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                  ps__mat ji, ps__mat ik, ps__mat jk);

    /* ---- Mixed-precision refinement (core/refine/refine.c). ---- */
    /* dst = alpha * src rounded to dst_dt, for rows x cols views of two different buffers (dtypes
     * float or double, either way or the same). alpha is a power of two, so the scaling itself is
     * exact. When some alpha * src(i,j) is not finite in dst_dt (beyond FLT_MAX for a float
     * dst, or NaN/Inf), sets the int32 device word info[0] to 1 (never clears it) and leaves dst
     * unspecified; LAPACK's dlag2s test. */
    ps_status (*convert)(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                         double alpha, ps__mat src, ps__mat dst, void *info);
    /* ||a||_inf = max_i sum_j |a(i,j)| of the rows x cols view (0 when empty), to the host, in
     * double; NaN or Inf when the view holds one. */
    ps_status (*norm_inf)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                          double *result);
    /* How float gemm computes from now on, until set again (PS__COMPUTE_FP32, the default, is
     * what every backend offers). Other dtypes and entries are unaffected. A mode the backend
     * lacks is PS_ERR_NOT_SUPPORTED with the reason, and the mode stays as it was. */
    ps_status (*set_float_compute)(ps__backend *be, ps__float_compute mode);

    /* ---- Blocked Cholesky (core/chol/chol.c); appended, so older modules get the default. ---- */
    /* Custom kernel: Cholesky of a tall panel, the blocked factorization's leaf. The leading n x n
     * block of the m x n view a (m >= n, n <= potrf_width) is factored as potrf_panel does, and
     * the m - n rows below it become A21 L11^-T; upper: a is the n x m view, and the columns
     * right of U11 become U11^-T A12. After a failure (info set here or on entry) the part below
     * is unspecified. The default is potrf_panel and one trsm; a GPU backend fuses the two into
     * one launch. */
    ps_status (*potrf_tall)(ps__backend *be, ps__dtype dt, ps__uplo uplo, int m, int n, ps__mat a,
                            void *info, int index_base);

    /* ---- Iterative solvers without a host round trip per step (core/iter/iter_krylov.c,
     * core/iter/iter_gmres.c); appended, so older modules get the defaults. ---- */
    /* Reading device values a step late: fetch_start may begin moving the count elements of the
     * contiguous vector src to the host now (a CUDA backend: an asynchronous copy into pinned
     * memory); fetch_wait(slot) then delivers into host what src held when fetch_start(slot) was
     * called, provided nothing wrote src in between. Slots are 0..PS__FETCH_SLOTS-1; a
     * fetch_start replaces the slot's previous one. The default reads src in fetch_wait. */
    ps_status (*fetch_start)(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src);
    ps_status (*fetch_wait)(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                            void *host);
    /* Custom kernel: one step of conjugate gradients in Chronopoulos and Gear's form, after
     * w = A u: one reduction phase per iteration (three dot products at once) instead of the
     * two of Hestenes and Stiefel's. Scalars are read from the device block in and written to
     * the block out (PS__CG_SCALARS elements of dt each, distinct):
     *   if in[STOP]: nothing else; out = in.
     *   gamma = (r, u), delta = (w, u), rr = (r, r), each rounded to dt;
     *   out = in, then ps__cg_scalars(out, gamma, delta, rr, stop_rr, last): out[GAMMA] = gamma,
     *   out[RR] = rr; when rr < in[BEST]: out[BEST] = rr and xbest = x (this x, before any
     *   update); out[STOP] = CONVERGED when rr <= stop_rr, else NOT_FINITE when rr is not
     *   finite, else RZ when gamma = 0. Unless stopped or last: beta = gamma / in[GAMMA] and
     *   denom = delta - beta gamma / in[ALPHA] (the first update, in[ALPHA] = 0: beta = 0,
     *   denom = delta), out[DENOM] = denom; !(denom > 0) sets out[STOP] = PQ; else alpha =
     *   gamma / denom, out[ALPHA] = alpha, and p = u + beta p, s = w + beta s (the first
     *   update: p = u, s = w, whatever p and s held), x += alpha p, r -= alpha s, u = dinv .* r
     *   (u is r when dinv.buf is NULL).
     * last: measure x (rr, the best iterate, the stop) without updating it. A backend may read
     * every vector but w before the operation queued just before this one has finished (CUDA,
     * where CG queues the product into w there): that operation must write w alone. Then, when
     * fetch_slot >= 0, starts fetching out through that slot as fetch_start would (a backend can
     * do it from inside the kernel). Reductions may run in any order (backends differ in the
     * last bits). Vectors are contiguous (inc 1). */
    ps_status (*cg_step)(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v, ps__vec in,
                         ps__vec out, double stop_rr, int last, int fetch_slot);
    /* Custom kernel, GMRES's Arnoldi step after w = A M^-1 v_j: classical Gram-Schmidt twice
     * (CGS2) against the k columns of the n x k view v: h1 = v' w, w -= v h1, h2 = v' w,
     * w -= v h2 (each h rounded to dt before it is used); col[0 .. k) = h1, col[k .. 2k) = h2;
     * then col[2k] = ||w||_2 (rounded to dt) and w /= col[2k] when it is positive and finite.
     * The norm is specified only when v's columns are orthonormal to working precision (GMRES's
     * basis; k <= n): a backend may then take it without a reduction of its own as
     * sqrt(||w||^2 - ||h2||^2), ||w|| before the second pass, when that pass removes at most
     * half of ||w||^2 (CUDA's cluster kernel; docs/PERFORMANCE.md). Then, when
     * fetch_slot >= 0, starts fetching col[0 .. 2k] as fetch_start would. k >= 0; w and col are
     * contiguous and do not overlap v. A backend may start reading v before the
     * operation queued just before this one has finished (CUDA, where GMRES queues the product
     * into w there): that operation must not write v. */
    ps_status (*orthonormalize)(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v, ps__vec w,
                                ps__vec col, int fetch_slot);
    /* ---- Look-ahead on disjoint parts of the device (core/base/lookahead.c); appended, so older
     * modules get the defaults (no-ops). ---- */
    /* Between lanes_split and lanes_join, a backend may run lane 0 and lane 1 on disjoint sets
     * of compute units (CUDA: green contexts), so that lane 1's latency-bound panel kernels
     * start at once instead of waiting for the blocks of lane 0's big update to drain. The
     * backend decides from the algorithm, its precision dt (and the backend's own state, such
     * as how float gemm computes) and n (the columns left to factor; for GJ, whose every step
     * updates the whole matrix, the matrix order), whether to split
     * and how; *split says whether the lanes are split now. It may be called again as n
     * shrinks, and may then split, or join what it split. Ordering is kept: after a change
     * each lane follows everything queued on either lane (and on the context's queue) before
     * it; after lanes_join the context's queue follows everything either lane did. A
     * lanes_split must be matched by a lanes_join, also after a failure. */
    ps_status (*lanes_split)(ps__backend *be, ps__algo algo, ps__dtype dt, int n, int *split);
    ps_status (*lanes_join)(ps__backend *be);
    /* ---- Host memory for blocks that travel every step (the host panels of core/lu/lu_hybrid.c);
     * appended, so older modules get the defaults (malloc and free). ---- */
    /* bytes of host memory that upload and download move at the bus's full speed: page-locked
     * where the backend can (OpenCL: a mapped CL_MEM_ALLOC_HOST_PTR buffer, which NVIDIA's
     * driver transfers by DMA instead of through a bounce buffer). PS_ERR_OUT_OF_HOST_MEMORY
     * when neither that nor plain memory can be had. Released by host_free before close. */
    ps_status (*host_alloc)(ps__backend *be, size_t bytes, void **ptr);
    void (*host_free)(ps__backend *be, void *ptr);
    /* ---- Transposed copies (gjinv's transposed layout, core/gj/gj.c); appended, so older modules
     * get the default (a copy per row or column, whichever are fewer). ---- */
    /* dst = src^T for the rows x cols view src and the cols x rows view dst, which do not
     * overlap. */
    ps_status (*transpose)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                           ps__mat dst);
    /* ---- A matrix read again and again (the iterative solvers, core/iter/iter.c); appended, so
     * older modules get the default (nothing). ---- */
    /* From now until the next call, nothing writes the rows x cols view a (rows or cols 0: no
     * view; that call ends the previous one). A backend may then let gemv on a start reading a
     * before the work queued ahead of it has finished (CUDA: the product's blocks load their
     * part of a while the step kernel before them still runs, and wait only to read x), and
     * may keep part of a in a cache from one product to the next (CUDA: a share of its lines
     * at a high L2 priority, put back to normal by the call that ends the hold). */
    ps_status (*hold_matrix)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a);
    /* ---- Random butterfly transformation (the refinement's RBT factorization,
     * core/refine/refine.c); appended, so older modules get the default (host round trips, a few
     * columns at a time).
     * ---- */
    /* dst = alpha * T_left src T_right, rounded to dst_dt as convert does (overflow sets info[0]
     * to 1 and leaves dst unspecified). T_left is the depth-2 butterfly of order rows given by
     * left, T_right that of order cols given by right; a NULL one is the identity. A butterfly of
     * order n is given by 2n device doubles w (level 0 in w[0..n), level 1 in w[n..2n)) and acts
     * on the first 4q indices, q = n / 4, as orbits {p, p+q, p+2q, p+3q} (p < q): level 0 pairs
     * (p, p+2q) and (p+q, p+3q), then level 1 pairs (p, p+q) and (p+2q, p+3q), each pair (a, b)
     * mapped to ((w_a x_a + w_b x_b) / sqrt 2, (w_a x_a - w_b x_b) / sqrt 2); the last n - 4q
     * indices are left as they are. ps__butterfly_orbit (backend_defaults_ir.h) is the
     * definition. src and dst are the same view (in place, dst_dt = src_dt) or do not overlap. */
    ps_status (*butterfly)(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                           double alpha, const void *left, const void *right, ps__mat src,
                           ps__mat dst, void *info);
    /* ---- Row permutations by gathering (the refinement's solves, core/refine/refine.c); appended,
     * so older modules get the default (a copy per row). ---- */
    /* dst(i, j) = src(perm[i], j) for i < rows, j < cols, where perm (an int32 buffer, entry 0 at
     * element perm_off) holds a permutation of 0..rows-1; src and dst are rows x cols views that
     * do not overlap. laswp applies a pivot list as interchanges that may chain, a chunk of them
     * per pass; once a factorization's list has been turned into the permutation it amounts to
     * (ps__pivots_to_perm, core/lu/lu.h), every later solve moves its rows in one pass. */
    ps_status (*permute_rows)(ps__backend *be, ps__dtype dt, int rows, int cols, const void *perm,
                              size_t perm_off, ps__mat src, ps__mat dst);
    /* ---- Several Arnoldi steps in one call (core/iter/iter_gmres.c); appended, so older modules
     * get the default (PS_ERR_NOT_SUPPORTED: GMRES then queues a product and orthonormalize per
     * step; with tuning arnoldi_composed=1, for tests, those calls in a loop). ---- */
    /* Custom kernel, GMRES's Arnoldi steps j0 .. j1 - 1 (0 <= j0 < j1) on the n x n matrix a:
     * each w = A (dinv .* v_j) (dinv.buf NULL: A v_j), orthonormalized against v(:, 0 .. j] as
     * orthonormalize does (k = j + 1) into v(:, j + 1), step j's column (2 (j + 1) + 1 values)
     * at col + (j - j0) col_stride; after a step whose norm is not positive and finite nothing
     * more is written. v(:, 0 .. j0] must be orthonormal. Then, when fetch_slot >= 0, starts
     * fetching the (j1 - j0) col_stride elements at col as fetch_start would (the columns' own
     * values; the fetched copy of what lies between them is unspecified); fetch_wait may then
     * ask for a prefix first (fewer elements from the same src), and a backend may deliver the
     * columns of the first PS__ARNOLDI_CHECKPOINT steps before the call has finished (CUDA:
     * the kernel marks them final in the slot's mapped memory), so that GMRES can see
     * convergence early and cancel the rest (arnoldi_cancel). A backend may take
     * the products in another order or form (CUDA: A v_{j+1} as (A w1 - A V h2) / norm, from the
     * first pass's result w1, while the second pass removes rounding-sized parts), so results
     * agree with per-step calls to rounding, not bitwise. PS_ERR_NOT_SUPPORTED, with nothing
     * queued and no message, when the backend has no such path for these arguments (the
     * default, and CUDA past the order whose matrix fits its SMs: n <= 2048 in double on an
     * H100). dinv, v and col are contiguous columns; col does not overlap v. */
    ps_status (*arnoldi_steps)(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                               ps__mat v, int j0, int j1, ps__vec col, int col_stride,
                               int fetch_slot);
    /* Asks every arnoldi_steps call queued so far to stop soon (GMRES has converged within
     * steps already queued): a step it does not take writes nothing, and later calls are not
     * affected. A hint: a backend may take any number of the steps (the default, whose steps
     * are done by the time arnoldi_steps returns, does nothing; CUDA copies a flag into device
     * memory on a stream of its own, which the kernel reads each step, and stops within two
     * steps of seeing it). */
    void (*arnoldi_cancel)(ps__backend *be);
    /* ---- GMRES's restart and the next cycle's first steps in one call (core/iter/iter_gmres.c);
     * appended, so older modules get the default (PS_ERR_NOT_SUPPORTED: GMRES then updates x,
     * forms the residual and normalizes it by separate calls; with
     * tuning arnoldi_composed=1, for tests, those calls). ---- */
    /* Custom kernel, the start of a GMRES cycle on the n x n matrix a, in order:
     *   x += dinv .* (v(:, 0 .. ky) y) when ky > 0, as gmres_update_x makes it;
     *   r = b - A x into v(:, 0); out[0] = beta = ||r||_2 (rounded to dt);
     *   when beta is positive and finite: v(:, 0) = r / beta, then Arnoldi steps 0 .. j1 - 1 as
     *   arnoldi_steps(j0 = 0, j1) makes them, their columns at out + 1 + j col_stride.
     *   Otherwise v(:, 0) holds r and nothing more is written.
     * Then, when fetch_slot >= 0, starts fetching the 1 + j1 col_stride elements at out as
     * fetch_start would (beta and the columns; what lies between them is unspecified; a prefix
     * of beta and the first PS__ARNOLDI_CHECKPOINT columns as arnoldi_steps says). The
     * product of the first step may be formed from r's (A (dinv .* r) / beta), so results agree
     * with separate calls to rounding. PS_ERR_NOT_SUPPORTED, with nothing queued and no message,
     * when the backend has no such path for these arguments (CUDA: as arnoldi_steps). j1 >= 1
     * and ky at most v's columns; b, x, dinv, v and out are contiguous columns; out overlaps
     * none of them. */
    ps_status (*arnoldi_restart)(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                 ps__vec b, ps__vec x, ps__mat v, int ky, const double *y, int j1,
                                 ps__vec out, int col_stride, int fetch_slot);
    /* ---- GMRES's update of x with y from the host (core/iter/iter_gmres.c); appended, so older
     * modules get the default (PS_ERR_NOT_SUPPORTED: GMRES then uploads y, which waits for the
     * device, and updates x by gemv, vmul and axpy; with tuning arnoldi_composed=1, for
     * tests and without dinv, an axpy per column). ---- */
    /* Custom kernel: x += dinv .* (v(:, 0 .. ky) y) (dinv.buf NULL: x += v(:, 0 .. ky) y), y the
     * ky host doubles, read before the call returns, so the call need not wait for the device;
     * the product is rounded to dt before dinv and x, as gemv, vmul and axpy round. Nothing is
     * read or written when n or ky is 0. PS_ERR_NOT_SUPPORTED, with nothing queued and no
     * message, when the backend has no such path for these arguments (CUDA and OpenCL: ky <=
     * 64). ky at most v's columns; x and dinv are contiguous and overlap no column of v. */
    ps_status (*gmres_update_x)(ps__backend *be, ps__dtype dt, int n, ps__mat v, int ky,
                                const double *y, ps__vec dinv, ps__vec x);
    /* ---- Several conjugate-gradient steps in one call (core/iter/iter_krylov.c); appended, so
     * older modules get the default (PS_ERR_NOT_SUPPORTED: CG then queues a product and
     * cg_step per step; with tuning cg_composed=1, for tests, those calls in a loop). */
    /* Custom kernel, count >= 1 steps of CG on the n x n matrix a: step i is w = A u, then
     * cg_step from the scalar block before it (in for i = 0, else out block i - 1) into out
     * block i (blocks PS__CG_SCALARS elements apart), the step with index last measuring only
     * (last < 0 or >= count: none). A step whose input block has STOP set changes no vector
     * (cg_step's rule), so a backend may end the call at the first step that sets it, filling
     * the later blocks as those steps would (copies). Then, when fetch_slot >= 0, starts
     * fetching the count blocks as fetch_start would. The products may be formed in another
     * order than gemv's, so results agree with per-step calls to rounding, not bitwise. w is
     * scratch: what it holds afterwards is unspecified. PS_ERR_NOT_SUPPORTED, with nothing queued
     * and no message, when the backend has no such path for these arguments (the default; CUDA past
     * the order whose matrix fits its SMs, as arnoldi_steps). The vectors are as cg_step's and
     * contiguous; in and out overlap nothing else. */
    ps_status (*cg_steps)(ps__backend *be, ps__dtype dt, int n, ps__mat a, const ps__cg_vectors *v,
                          ps__vec in, ps__vec out, int count, double stop_rr, int last,
                          int fetch_slot);
    /* ---- A triangular solve with float factors in double (the GMRES-IR preconditioner,
     * core/refine/refine.c); appended, so older modules get the default (PS_ERR_NOT_SUPPORTED, with
     * nothing done and no message: refinement then widens the factors to an n x n double copy
     * and solves with the double trsm). ---- */
    /* x = A^-1 x for the n x n triangle (uplo, diag as trsv's; no transpose) of the FLOAT view a
     * and the DOUBLE vector x, every operation in double: the float entries are exact in double,
     * so the result is the double solve with those factors, as from a widened copy, at half the
     * bytes read and without the copy. n = 0 does nothing and succeeds where the backend has the
     * entry, so a call with n = 0 asks whether it has. */
    ps_status (*trsv_mixed)(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                            ps__vec x);
    /* ---- A product of float entries with double vectors, in double (the GMRES-IR
     * preconditioner's blocked triangular solves, core/refine/trsv_blocked.c); appended, so older
     * modules get the default (PS_ERR_NOT_SUPPORTED, nothing done, no message). ---- */
    /* y = y + alpha A x for the m x k FLOAT view a (no transpose) and DOUBLE vectors x (k) and y
     * (m), which must not overlap; each product and sum in double, so the result is dgemv's with
     * a widened copy of A. m = 0 or k = 0 leaves y as it is and succeeds where the backend has
     * the entry, so a call with m = k = 0 asks whether it has. */
    ps_status (*gemv_mixed)(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                            ps__vec y);
    /* ---- Chains of products on fixed matrices (GMRES-IR's blocked triangular solves,
     * core/refine/trsv_blocked.c); appended, so older modules get the default (nothing). ---- */
    /* From a call with on = 1 until one with on = 0, the matrix of every gemv and gemv_mixed call
     * is written by none of the work queued before that call (its vectors may be). A backend may
     * then let each product start loading its matrix before the work ahead of it has finished
     * (CUDA on Hopper: a programmatic dependent launch, waiting only to read x and y). A hint:
     * ignoring it is right. */
    ps_status (*read_only_matrices)(ps__backend *be, int on);
    /* ---- Narrowing straight into the transposed layout (core/refine/refine.c, for LU's transposed
     * layout, core/lu/lu.c); appended, so older modules get the default, which refuses
     * (PS_ERR_NOT_SUPPORTED): the caller then narrows and lets the LU transpose. ---- */
    /* dst = alpha * src^T rounded to dst_dt: src rows x cols, dst cols x rows, two buffers that
     * do not overlap; otherwise as convert (alpha a power of two; info[0] set to 1 where a value
     * is not finite in dst_dt). rows = cols = 0 succeeds where the backend offers it. */
    ps_status (*convert_transposed)(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                                    int cols, double alpha, ps__mat src, ps__mat dst, void *info);
    /* ---- Products with a triangle held in a square (GMRES-IR's inverted diagonal blocks,
     * core/refine/trsv_blocked.c); appended, so older modules get the default (gemv on the square).
     * ----
     */
    /* y = alpha a x + beta y for the n x n matrix a (no transpose), whose entries outside its
     * triangle uplo (diagonal included) the caller promises are zero: a backend may skip them,
     * reading half the bytes. BLAS gemv's rules otherwise (n = 0: nothing; alpha = 0: a and x
     * not read). */
    ps_status (*gemv_triangle)(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n,
                               const ps__scalar *alpha, ps__mat a, ps__vec x,
                               const ps__scalar *beta, ps__vec y);
    /* ---- A square matrix transposed where it lies (LU's transposed layout, core/lu/lu.c, and
     * gjinv's, core/gj/gj.c, through ps__transpose_in_place); appended, so older modules get the
     * default, which refuses (PS_ERR_NOT_SUPPORTED): the caller then transposes by strips
     * through a work buffer, which moves the off-diagonal entries three times. ---- */
    /* a = a^T for the n x n view a. n = 0 succeeds where the backend offers it. */
    ps_status (*transpose_square)(ps__backend *be, ps__dtype dt, int n, ps__mat a);
    /* ---- Bulk transfers queued without waiting (the host drivers' staging, core/base/staging.c);
     * appended, so older modules get the defaults (the blocking upload and download, and a wait
     * that returns at once). ---- */
    /* Queue a transfer between host memory from host_alloc (page-locked, so the device can move
     * it by DMA while the host works) and a view, and return. Transfers run in the order they
     * are queued, and otherwise as transfer_order says (a backend may run them on a queue of
     * their own beside the work; CUDA does). slot (0..PS__TRANSFER_SLOTS-1) then tracks it,
     * replacing what the slot tracked; host must not be touched until transfer_wait(slot)
     * returns. */
    ps_status (*upload_async)(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host,
                              int ldh, ps__mat dst, int slot);
    ps_status (*download_async)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                                void *host, int ldh, int slot);
    /* Blocks until the last transfer queued under slot has finished (at once when none is). */
    ps_status (*transfer_wait)(ps__backend *be, int slot);
    /* Orders transfers and work (ps__transfer_order says how; mark in
     * 0..PS__TRANSFER_MARKS-1). With it the host drivers upload the later columns of a matrix
     * while the first are factored, and download finished factors while the rest is
     * (core/lu/lu_overlap.c). The default does nothing: right for backends whose transfers are
     * queued in order with the work. */
    ps_status (*transfer_order)(ps__backend *be, ps__transfer_order order, int mark);
    /* ---- Memory known to the backend, for the host drivers' estimates before they start
     * (core/base/workspace.c); appended, so older modules get the default (PS_ERR_NOT_SUPPORTED:
     * unknown, nothing is refused ahead). ---- */
    /* The device memory free now and in all, in bytes (free = total where only that is known). */
    ps_status (*device_memory)(ps__backend *be, size_t *free_bytes, size_t *total_bytes);
};

/* Entry point a backend module exports under PS__BACKEND_ENTRY_SYMBOL. */
typedef const ps__backend_ops *(*ps__backend_entry_fn)(void);

/*
 * Copies src into dst, checking the header and the required entries, and fills the optional
 * entries src leaves NULL (or lacks, for an older struct_size) with the defaults. On failure
 * writes the reason into msg and returns PS_ERR_BACKEND_UNAVAILABLE.
 */
ps_status ps__backend_ops_complete(ps__backend_ops *dst, const ps__backend_ops *src, char *msg,
                                   size_t msg_size);
/* The portable defaults, exposed so tests can run them against each backend's own entries. */
const ps__backend_ops *ps__backend_defaults(void);

/* The built-in CPU backend's table. */
const ps__backend_ops *ps__cpu_backend_ops(void);

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
