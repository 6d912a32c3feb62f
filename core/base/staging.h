/* Host arrays as the backend sees them, for the host drivers: an alias of the caller's memory
 * (backends that address host memory, the CPU) or a copy staged through a device buffer.
 *
 * Staging copies on several threads into a ring of page-locked buffers (the backend's
 * host_alloc), checking for NaN and Inf in the same pass, while the device moves the previous
 * buffer (upload_async); downloads run the other way round. Nothing is written to the caller's
 * arrays by stage_in, so a refused input leaves them as they were. */
#ifndef PS_CORE_STAGING_H
#define PS_CORE_STAGING_H

#include "base/check.h"
#include "base/context.h"

typedef struct ps__staged {
    ps__mat dev;
    int aliased; /* dev is the caller's memory: nothing to copy back */
    int moved;   /* what a copy moves either way: PS__SHAPE_ALL, or a triangle */
} ps__staged;

/* Makes rows x cols of host (leading dimension ldh) available to the backend. may_alias = 0
 * asks for a copy even where the backend could alias the caller's memory (an output the caller
 * must see changed only on success); a copy's device buffer is released with the scratch.
 * check (NULL: none) refuses NaN and Inf with PS_ERR_NON_FINITE, found during the copy. */
ps_status ps__stage_in(ps__scratch *s, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                       int may_alias, const ps__finite_check *check, ps__staged *out);
/* The transfer marks (transfer_order) the staging functions use: to follow earlier work, and
 * to hold later work behind their uploads. The others are free for drivers that order their
 * own transfers. */
#define PS__MARK_STAGING 0
#define PS__MARK_STAGED  1
/* Transfers queued from now on follow all work queued before (PS__MARK_STAGING). */
ps_status ps__transfers_after_work(ps_context *ctx);
/* Work queued from now on follows all transfers queued before, through mark. */
ps_status ps__work_after_transfers(ps_context *ctx, int mark);

/* For drivers that order their transfers themselves (core/lu/lu_overlap.c): columns col0 .. col0 +
 * cols - 1 of the host array into the same columns of dst, through the ring, checked as
 * ps__stage_in checks, after what the last PS__ORDER_TRANSFERS_AFTER named; the work that reads
 * them must be ordered behind them (PS__ORDER_WORK_AFTER). And the rows x cols view src to the
 * host array, after what the last PS__ORDER_TRANSFERS_AFTER named; finished when it returns. */
ps_status ps__stage_columns_in(ps_context *ctx, ps__dtype dt, int rows, int col0, int cols,
                               const void *host, int ldh, const ps__finite_check *check,
                               ps__mat dst);
ps_status ps__stage_block_out(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat src,
                              void *host, int ldh);
/* ps__stage_in of the n x n array whose triangle check->shape (PS__LOWER or PS__UPPER) is all
 * the work reads and writes: where it is copied, only that triangle travels (with the diagonal
 * squares of the copy's blocks), both ways; the other triangle of the copy is undefined and the
 * caller's is never written (Cholesky's host drivers). A copy is of order np >= n, diag(A, I)
 * (ps__pad_identity); where the caller's array is used in place (out->aliased), of order n. */
ps_status ps__stage_triangle_in(ps__scratch *s, ps__dtype dt, int n, int np, const void *host,
                                int ldh, int may_alias, const ps__finite_check *check,
                                ps__staged *out);
/* Copies a staged array back to the host (nothing to do when aliased). */
ps_status ps__stage_out(ps_context *ctx, ps__dtype dt, int rows, int cols, const ps__staged *in,
                        void *host, int ldh);
/* The same after only the work queued before the last ps__transfers_after_work, so that it runs
 * beside the work queued since, which must not write the array (a solve with the factors being
 * copied). */
ps_status ps__stage_out_beside(ps_context *ctx, ps__dtype dt, int rows, int cols,
                               const ps__staged *in, void *host, int ldh);
/* PS_ERR_NON_FINITE naming the first NaN/Inf of the rows x cols host array (a scan on several
 * threads), for inputs that are not staged. */
ps_status ps__check_finite(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *a,
                           int lda, const ps__finite_check *check);
/* Blocking transfers between a host array and a view (ps_matrix_upload / download): through
 * the ring on backends with their own memory, a plain copy where device memory is host memory;
 * the upload has reached the device when it returns. */
ps_status ps__upload(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                     ps__mat dst);
/* ps__upload refusing NaN and Inf as check says (ps_matrix_upload_finite), inside the copy's own
 * pass (the ring's, or the copy into host memory); after a refusal dst holds part of the array. */
ps_status ps__upload_finite(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *host,
                            int ldh, const ps__finite_check *check, ps__mat dst);
ps_status ps__download(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat src, void *host,
                       int ldh);
/* PS_ERR_RESULT_NOT_FINITE when the rows x cols solution x (a staged copy, before it is written
 * back) holds NaN or Inf: the inputs were finite, so the solution is beyond the precision's
 * range or a pivot was below the safe minimum. One device pass (norm_inf); a row's sum over
 * several right-hand sides that overflows counts as not finite too. */
ps_status ps__check_solution(ps_context *ctx, ps__dtype dt, int rows, int cols, ps__mat x,
                             const char *fn);
/* For drivers whose transfers run on a thread of their own: sizes the ring for transfers of up
 * to `bytes` on the calling thread and keeps it at that size until ps__staging_unhold, so that
 * the transfer thread never allocates, nor writes the context's error message, beside the work
 * thread. Without a ring (its allocation failed) the transfers go unstaged. */
void ps__staging_hold(ps_context *ctx, size_t bytes);
void ps__staging_unhold(ps_context *ctx);
/* Waits for the ring's transfers and releases it (context destruction). */
void ps__staging_release(ps_context *ctx);

/* The checks every host driver makes on the context before any work: double precision on the
 * device when dt is double. */
ps_status ps__check_dtype_supported(ps_context *ctx, ps__dtype dt, const char *fn);

static inline int ps__max1(int v) {
    return v > 1 ? v : 1;
}

/* The leading dimension of a device copy of `rows` rows that the library allocates itself:
 * above 32 rows, rows rounded up to a multiple of 32 elements, so that every column starts at
 * least 128-byte aligned. cuBLAS's GEMMs take slower kernels for other columns: on an H200 a
 * dgesv of order 32767 took 30% longer than one of 32768 with ld = n. */
static inline int ps__device_ld(int rows) {
    if (rows <= 32 || rows > 0x7fffffe0) return ps__max1(rows);
    return (rows + 31) / 32 * 32;
}

/* A rows x cols device work array of dt with ps__device_ld(rows) for leading dimension, released
 * with the scratch; PS_ERR_OUT_OF_MEMORY where it does not fit. */
ps_status ps__scratch_matrix(ps__scratch *s, ps__dtype dt, int rows, int cols, ps__mat *m);

/* Whether the device factorization algo (PS__ALGO_LU_COPY, PS__ALGO_CHOL_COPY) of the n x n view
 * a runs in an aligned copy: from the order the tuning knob names (>= 0), else the backend's
 * (block_size of algo; 0: never), when n is not a multiple of 8 or a's columns do not start
 * 16-byte aligned (ld or offset times the element size not a multiple of 16: an odd ld in
 * double). */
int ps__aligned_copy_wanted(ps_context *ctx, ps__algo algo, int knob, ps__dtype dt, int n,
                            ps__mat a);

/* The leading n x n part of the device matrix w (np x np) made diag(A, I): zeros beside and below
 * it, ones on the rest of the diagonal. */
ps_status ps__pad_identity(ps_context *ctx, ps__dtype dt, int n, int np, ps__mat w);

/* The order of an aligned copy of an n x n matrix that pads it to diag(A, I): n rounded up to a
 * multiple of 8. Its LU (or Cholesky) has diag(L, I) and diag(U, I) for factors, with A's own
 * pivots, and every GEMM of it has sides that are multiples of 8: cuBLAS's tensor-core GEMMs take
 * slower (and, split, less accurate) kernels for other sides (docs/IR.md). */
static inline int ps__aligned_order(int n) {
    return n % 8 && n < 0x7ffffff0 ? n + 8 - n % 8 : n;
}

#endif
