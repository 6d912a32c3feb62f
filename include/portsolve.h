/*
 * portsolve: portable dense linear-system solvers (CUDA, OpenCL, CPU).
 *
 * Conventions
 * - Every call returns a ps_status; PS_SUCCESS is 0.
 * - After a failed call, ps_context_last_error() gives a sentence naming the argument, its value
 *   and the reason (or the vendor's code and text), and ps_context_last_info() gives the
 *   LAPACK-style info: for PS_ERR_SINGULAR the 1-based index i such that U(i,i) is exactly zero;
 *   for PS_ERR_INVALID_ARGUMENT minus the 1-based position of the bad argument (context = 1).
 *   A successful call sets info to 0 and the message to "".
 * - Arguments (and, for host drivers, NaN/Inf in the inputs) are checked before any work. A call
 *   that fails leaves the caller's arrays as they were, leaks nothing and leaves the context
 *   usable. The one exception is LAPACK's: a factorization that finds the matrix singular
 *   (PS_ERR_SINGULAR) still completes and returns its factors and pivots, with info the index
 *   of the first zero pivot; the right-hand sides of a solve are then left as they were.
 * - Matrices are column-major. Pivot vectors are 1-based as in LAPACK.
 * - A context is used by one thread at a time; separate contexts may run in separate threads.
 *   A call from a second thread while a call on the context runs returns PS_ERR_CONTEXT_BUSY
 *   and does nothing (no message: the context's error belongs to the running call).
 */
#ifndef PORTSOLVE_H
#define PORTSOLVE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#if defined(PORTSOLVE_BUILDING)
#define PS_API __declspec(dllexport)
#else
#define PS_API __declspec(dllimport)
#endif
#else
#define PS_API __attribute__((visibility("default")))
#endif

#define PS_VERSION_MAJOR 0
#define PS_VERSION_MINOR 1
#define PS_VERSION_PATCH 0

/* Library version as "major.minor.patch" (of the library loaded, not of this header). */
PS_API const char *ps_version(void);

/*
 * Status codes, grouped by range:
 *   1xx invalid argument, 2xx resources, 3xx backend, 4xx numerical.
 * X(name, value, description) is expanded for the enum and for ps_status_string().
 */
#define PS_STATUS_LIST(X)                                                                          \
    X(PS_SUCCESS, 0, "success")                                                                    \
    X(PS_ERR_INVALID_ARGUMENT, 100, "invalid argument")                                            \
    X(PS_ERR_UNKNOWN_BACKEND, 101, "unknown backend name")                                         \
    X(PS_ERR_CONTEXT_MISMATCH, 102, "matrix belongs to another context")                           \
    X(PS_ERR_DTYPE_MISMATCH, 103, "matrices of different precision")                               \
    X(PS_ERR_CONTEXT_BUSY, 104, "context in use by a call from another thread")                    \
    X(PS_ERR_OUT_OF_HOST_MEMORY, 200, "out of host memory")                                        \
    X(PS_ERR_OUT_OF_MEMORY, 201, "out of device memory")                                           \
    X(PS_ERR_BACKEND_UNAVAILABLE, 300, "backend not available")                                    \
    X(PS_ERR_NO_DOUBLE, 301, "device has no double precision")                                     \
    X(PS_ERR_BACKEND, 302, "backend or vendor library error")                                      \
    X(PS_ERR_NOT_SUPPORTED, 303, "operation not supported by this backend")                        \
    X(PS_ERR_SINGULAR, 400, "matrix is singular")                                                  \
    X(PS_ERR_NOT_SPD, 401, "matrix is not symmetric positive definite")                            \
    X(PS_ERR_WZ_BREAKDOWN, 402, "WZ factorization broke down")                                     \
    X(PS_ERR_NO_CONVERGENCE, 403, "iteration did not converge")                                    \
    X(PS_ERR_NON_FINITE, 404, "input contains NaN or Inf")                                         \
    X(PS_ERR_BREAKDOWN, 405, "iterative method broke down")                                        \
    X(PS_ERR_ZERO_DIAGONAL, 406, "zero on the diagonal")                                           \
    X(PS_ERR_RESULT_NOT_FINITE, 407, "the computed solution contains NaN or Inf")

typedef enum ps_status {
#define PS_STATUS_ENUM_ENTRY(name, value, text) name = value,
    PS_STATUS_LIST(PS_STATUS_ENUM_ENTRY)
#undef PS_STATUS_ENUM_ENTRY
} ps_status;

/* The backends this installation was built with, comma-separated ("cpu,opencl"). Whether one
 * works on this machine is for ps_context_create to say. */
PS_API const char *ps_built_backends(void);

/* A static English description of a status ("unknown status" for values not in the list). */
PS_API const char *ps_status_string(ps_status status);

/* ------------------------------------------------------------------------------------------ */
/* Context                                                                                    */

typedef struct ps_context ps_context;

typedef enum ps_backend_kind {
    PS_BACKEND_FROM_ENV = 0, /* take PORTSOLVE_BACKEND (default auto) */
    PS_BACKEND_AUTO,         /* first that works of: CUDA GPU, OpenCL GPU, CPU */
    PS_BACKEND_CPU,
    PS_BACKEND_CUDA,
    PS_BACKEND_OPENCL
} ps_backend_kind;

typedef struct ps_context_options {
    ps_backend_kind backend; /* PS_BACKEND_FROM_ENV: PORTSOLVE_BACKEND */
    const char *device;      /* NULL: PORTSOLVE_DEVICE; "N" or (OpenCL) "P:D" */
    int lu_block_size;       /* 0: PORTSOLVE_TUNING lu_nb, else per backend and n */
} ps_context_options;

/* Parses a backend name as PORTSOLVE_BACKEND does ("auto", "cpu", "cuda", "opencl", any case).
 * Returns PS_ERR_UNKNOWN_BACKEND for anything else. */
PS_API ps_status ps_backend_kind_from_name(const char *name, ps_backend_kind *kind);

/* Options that take everything from the environment (same as passing NULL). */
PS_API ps_context_options ps_context_options_default(void);

/*
 * Creates a context on the backend chosen by opts (NULL: the environment variables
 * PORTSOLVE_BACKEND=auto|cpu|cuda|opencl, case-insensitive, and PORTSOLVE_DEVICE).
 * On failure *out is NULL; the reason is in the returned status, and because there is no
 * context to ask, ps_last_create_error() gives the message.
 */
PS_API ps_status ps_context_create(ps_context **out, const ps_context_options *opts);
/* The message of the calling thread's most recent failed ps_context_create. */
PS_API const char *ps_last_create_error(void);
PS_API void ps_context_destroy(ps_context *ctx);
/* "cpu", "cuda" or "opencl". */
PS_API const char *ps_context_backend_name(const ps_context *ctx);
PS_API const char *ps_context_device_name(const ps_context *ctx);
PS_API const char *ps_context_last_error(const ps_context *ctx);
/* LAPACK-style info of the last call on ctx (see the conventions above). */
PS_API int ps_context_last_info(const ps_context *ctx);
/* Blocks until all work queued on the context's device has finished. */
PS_API ps_status ps_context_synchronize(ps_context *ctx);
/* Waits for the context's work and gives back the memory it keeps between calls so that the next
 * call starts sooner: the host drivers' page-locked staging buffers (host memory, up to 128 MiB)
 * and, on CUDA, the unused part of the context's memory pool (the workspaces of the tensor-core
 * GEMMs and LU by pieces, up to a quarter of the device). For an application that needs that
 * memory itself between calls; device matrices (ps_matrix) stay, and later calls allocate again. */
PS_API ps_status ps_context_release_memory(ps_context *ctx);
/* Writes the devices of a backend kind (cpu, cuda or opencl), one per line with their index,
 * name and double-precision support, into buf; on failure buf says why. */
PS_API ps_status ps_backend_devices(ps_backend_kind kind, char *buf, size_t size);

/* Interop, untyped (portsolve_cl.h and portsolve_cuda.h give typed versions):
 * a context on the caller's native context and queue (OpenCL: cl_context + cl_command_queue;
 * CUDA: NULL + cudaStream_t), borrowed and never released by the library; */
PS_API ps_status ps_context_create_native(ps_context **out, ps_backend_kind kind,
                                          void *native_context, void *native_queue);
/* the context's queue (cl_command_queue, cudaStream_t; NULL on the CPU). */
PS_API void *ps_context_native_queue(const ps_context *ctx);

/* ------------------------------------------------------------------------------------------ */
/* Device-resident matrices: factor once, solve many times without re-uploading.               */

typedef enum ps_dtype { PS_FLOAT = 0, PS_DOUBLE = 1 } ps_dtype;

typedef struct ps_matrix ps_matrix;

/* A rows x cols matrix on ctx's device, leading dimension ld (0: rows, rounded up to a multiple
 * of 32 above 32 rows, so that each column starts aligned; ps_matrix_ld tells). Contents
 * undefined. */
PS_API ps_status ps_matrix_create(ps_context *ctx, ps_dtype dtype, int rows, int cols, int ld,
                                  ps_matrix **out);
/* A matrix over a device buffer the caller owns (a cl_mem, a CUDA device pointer) starting
 * `offset` elements in; ps_matrix_destroy leaves the buffer alone. Not for the cpu backend. A CUDA
 * pointer not aligned to the elements is refused (info -6). */
PS_API ps_status ps_matrix_wrap_native(ps_context *ctx, ps_dtype dtype, int rows, int cols, int ld,
                                       void *buffer, size_t offset, ps_matrix **out);
PS_API void ps_matrix_destroy(ps_matrix *m);
/* Copies a host rows x cols column-major array with leading dimension ldh into / out of m. */
PS_API ps_status ps_matrix_upload(ps_matrix *m, const void *host, int ldh);
/* ps_matrix_upload refusing NaN and Inf as the host drivers do (PS_ERR_NON_FINITE, the first one's
 * row and column in the message), checked in the copy's own pass on the device backends; after
 * a refusal m's contents are undefined. */
PS_API ps_status ps_matrix_upload_finite(ps_matrix *m, const void *host, int ldh);
PS_API ps_status ps_matrix_download(const ps_matrix *m, void *host, int ldh);
PS_API int ps_matrix_rows(const ps_matrix *m);
PS_API int ps_matrix_cols(const ps_matrix *m);
PS_API int ps_matrix_ld(const ps_matrix *m);
PS_API ps_dtype ps_matrix_dtype(const ps_matrix *m);

/* LU with partial pivoting on device matrices, A = P*L*U. ipiv: host, min(m,n) entries, 1-based.
 * On PS_ERR_SINGULAR A holds the completed factorization (as LAPACK's getrf) and the info is the
 * index of the first exactly zero U(i,i). A large square double matrix whose order is not a
 * multiple of 8 or whose columns do not start 16-byte aligned is factored in an aligned copy
 * (one more matrix of device memory while the call runs, where there is that much; docs/API.md,
 * "Aligned copies"). */
PS_API ps_status ps_mat_getrf(ps_context *ctx, ps_matrix *A, int *ipiv);
/* Solves op(A) X = B with getrf's factors; trans 'N', 'T' or 'C' (= 'T' for real data). */
PS_API ps_status ps_mat_getrs(ps_context *ctx, char trans, const ps_matrix *LU, const int *ipiv,
                              ps_matrix *B);
/* getrf then getrs; on PS_ERR_SINGULAR A holds the factors and B is untouched. */
PS_API ps_status ps_mat_gesv(ps_context *ctx, ps_matrix *A, int *ipiv, ps_matrix *B);

/* ------------------------------------------------------------------------------------------ */
/*
 * LAPACK-style host drivers on column-major host arrays. On backends with their own memory the
 * arrays are staged through the device (copied on several threads into page-locked buffers,
 * checked for NaN/Inf in the same pass, moved while the next block is copied); the CPU backend
 * factors in them directly.
 * - On PS_ERR_SINGULAR, A and ipiv hold the completed factorization and B is untouched (as in
 *   LAPACK); on every other failure A, ipiv and B are left as they were.
 * - A solution that comes out NaN or Inf from finite inputs (beyond the precision's range, or
 *   pivots below the safe minimum) is PS_ERR_RESULT_NOT_FINITE, never success: B (and X) are
 *   left as they were; gesv and posv (and dsgesv/dsposv after a fallback, with iter) return
 *   A's factors and ipiv as on a singular matrix, so that getrs/potrs with them gives LAPACK's
 *   answer; other solvers may leave A factored where the backend factors in the caller's
 *   array (the CPU).
 * - Results are written back only once the factorization has completed (gesv and posv copy
 *   A's factors back while the solve with them runs; LU by pieces, docs/API.md, copies finished
 *   rows while the rest is factored), so a device fault in the middle of a call (PS_ERR_BACKEND)
 *   leaves the arrays as they were, except when it comes once the copy back has begun: then A,
 *   ipiv or B may be partly written and must be treated as undefined.
 * - An output array that shares memory with an input is refused (PS_ERR_INVALID_ARGUMENT).
 *
 * Host crossover: on a GPU backend, the LU (getrf/getrs/gesv, getri) and Cholesky
 * (potrf/potrs/posv) host drivers of order at most a measured crossover run on the CPU path
 * instead (OpenBLAS/LAPACK in the process), where transfers and launches would cost more than
 * the work. PORTSOLVE_HOST_CROSSOVER=n (0: never) or the call below overrides the measured
 * orders.
 */

/* Host drivers of order up to n run on the CPU from now on (0: never); n = -1 returns to the
 * backend's measured orders. PORTSOLVE_HOST_CROSSOVER sets n when the context is created. */
PS_API ps_status ps_context_set_host_crossover(ps_context *ctx, int n);
/* The order up to which host drivers in dtype run on the CPU now (0 on the CPU backend). */
PS_API int ps_context_host_crossover(const ps_context *ctx, ps_dtype dtype);
/* 1 when the last host driver called on ctx ran on the CPU by the crossover. */
PS_API int ps_context_last_call_on_host(const ps_context *ctx);

/* In float on CUDA (sm_80 on), orders from 12288 compute their trailing updates as three TF32
 * tensor-core products on split operands, about 1.4x plain float's factorization error
 * (docs/API.md, "Single-precision LU on tensor cores"; PORTSOLVE_TUNING=lu_float_split=0: in
 * float). The same holds for ps_mat_getrf and ps_mat_gesv on float matrices. */
PS_API ps_status ps_sgetrf(ps_context *ctx, int m, int n, float *A, int lda, int *ipiv);
PS_API ps_status ps_dgetrf(ps_context *ctx, int m, int n, double *A, int lda, int *ipiv);
PS_API ps_status ps_sgetrs(ps_context *ctx, char trans, int n, int nrhs, const float *A, int lda,
                           const int *ipiv, float *B, int ldb);
PS_API ps_status ps_dgetrs(ps_context *ctx, char trans, int n, int nrhs, const double *A, int lda,
                           const int *ipiv, double *B, int ldb);
PS_API ps_status ps_sgesv(ps_context *ctx, int n, int nrhs, float *A, int lda, int *ipiv, float *B,
                          int ldb);
PS_API ps_status ps_dgesv(ps_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv,
                          double *B, int ldb);

/* ------------------------------------------------------------------------------------------ */
/* Cholesky: A = L L^T (uplo 'L') or A = U^T U (uplo 'U') of a symmetric positive definite A;  */
/* only the uplo triangle is read and written. On PS_ERR_NOT_SPD the info is the order i of    */
/* the leading minor that is not positive definite; as in LAPACK, the leading (i-1) x (i-1)    */
/* block then holds its factor and B is untouched. The rest of that triangle: in the host      */
/* drivers, as LAPACK leaves it (the CPU backend stops where the factorization failed) or as   */
/* it was (backends that stage A); in a device matrix (ps_mat_*), unspecified.                 */
/* ps_mat_potrf and ps_mat_posv factor a large double matrix whose order is not a multiple of  */
/* 8 or whose columns do not start 16-byte aligned in an aligned copy of its uplo triangle     */
/* (one more matrix of device memory while the call runs, where there is that much;            */
/* docs/API.md, "Aligned copies").                                                             */

PS_API ps_status ps_mat_potrf(ps_context *ctx, char uplo, ps_matrix *A);
PS_API ps_status ps_mat_potrs(ps_context *ctx, char uplo, const ps_matrix *A, ps_matrix *B);
PS_API ps_status ps_mat_posv(ps_context *ctx, char uplo, ps_matrix *A, ps_matrix *B);

PS_API ps_status ps_spotrf(ps_context *ctx, char uplo, int n, float *A, int lda);
PS_API ps_status ps_dpotrf(ps_context *ctx, char uplo, int n, double *A, int lda);
PS_API ps_status ps_spotrs(ps_context *ctx, char uplo, int n, int nrhs, const float *A, int lda,
                           float *B, int ldb);
PS_API ps_status ps_dpotrs(ps_context *ctx, char uplo, int n, int nrhs, const double *A, int lda,
                           double *B, int ldb);
PS_API ps_status ps_sposv(ps_context *ctx, char uplo, int n, int nrhs, float *A, int lda, float *B,
                          int ldb);
PS_API ps_status ps_dposv(ps_context *ctx, char uplo, int n, int nrhs, double *A, int lda,
                          double *B, int ldb);

/* ------------------------------------------------------------------------------------------ */
/* WZ factorization P*A = W*Z (Evans & Hatzopoulos), eliminating from both ends at once: step k */
/* (k = 1..ceil(n/2), k2 = n+1-k) uses the 2 x 2 corner of rows and columns k and k2. W is unit */
/* diagonal with its other nonzeros in columns k and k2 below row k and above row k2; Z holds  */
/* rows k and k2 from column k to k2. They pack into A as L and U do in getrf. ipiv (1-based,  */
/* n entries): row i was interchanged with row ipiv[i-1], the interchanges applied in step     */
/* order (step k swaps row k with row ipiv[k-1], then row k2 with row ipiv[k2-1]), so without  */
/* pivoting ipiv[i-1] = i. Pivoting (the default) brings to row k the row of largest |a(i,k)|  */
/* and to row k2 the row that maximizes the corner determinant; it works for every nonsingular */
/* matrix. A corner is singular when a pivot of its 2 x 2 elimination (or odd n's middle      */
/* pivot) is below the smallest normal number: with pivoting the matrix is then singular       */
/* (PS_ERR_SINGULAR, factors returned as in getrf); without, PS_ERR_WZ_BREAKDOWN and A is left */
/* as it was. info is the step number k.                                                       */

typedef enum ps_wz_variant {
    PS_WZ_BLOCKED = 0,    /* default: panels of b steps, inner update by GEMM (inner dim 2b) */
    PS_WZ_VECTOR = 1,     /* the papers' vector form, corner step as a device kernel */
    PS_WZ_VECTOR_HOST = 2 /* the vector form as published: corners read back by the host */
} ps_wz_variant;

typedef struct ps_wz_options {
    ps_wz_variant variant; /* PORTSOLVE_WZ_VARIANT=blocked|vector|vector-host */
    int pivoting;          /* 1 (default) or 0; PORTSOLVE_WZ_PIVOTING */
    int block_size;        /* steps x 2 per panel, even; 0 automatic (tuning wz_nb) */
} ps_wz_options;

/* The context's WZ options (from the environment at creation) and their replacement. */
PS_API ps_wz_options ps_context_wz_options(const ps_context *ctx);
PS_API ps_status ps_context_set_wz_options(ps_context *ctx, const ps_wz_options *opts);
PS_API const char *ps_wz_variant_name(ps_wz_variant v);
/* Parses "blocked", "vector" or "vector-host" (any case). */
PS_API ps_status ps_wz_variant_from_name(const char *name, ps_wz_variant *v);

PS_API ps_status ps_mat_wztrf(ps_context *ctx, ps_matrix *A, int *ipiv);
PS_API ps_status ps_mat_wztrs(ps_context *ctx, const ps_matrix *WZ, const int *ipiv, ps_matrix *B);
PS_API ps_status ps_mat_wzsv(ps_context *ctx, ps_matrix *A, int *ipiv, ps_matrix *B);

PS_API ps_status ps_swztrf(ps_context *ctx, int n, float *A, int lda, int *ipiv);
PS_API ps_status ps_dwztrf(ps_context *ctx, int n, double *A, int lda, int *ipiv);
PS_API ps_status ps_swztrs(ps_context *ctx, int n, int nrhs, const float *A, int lda,
                           const int *ipiv, float *B, int ldb);
PS_API ps_status ps_dwztrs(ps_context *ctx, int n, int nrhs, const double *A, int lda,
                           const int *ipiv, double *B, int ldb);
PS_API ps_status ps_swzsv(ps_context *ctx, int n, int nrhs, float *A, int lda, int *ipiv, float *B,
                          int ldb);
PS_API ps_status ps_dwzsv(ps_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv,
                          double *B, int ldb);

/* ------------------------------------------------------------------------------------------ */
/* Matrix inversion and Gauss-Jordan.                                                          */
/* getri: the inverse from getrf's factors and pivots (LAPACK dgetri); a zero U(i,i) is         */
/* PS_ERR_SINGULAR with info = i and A left as it was.                                          */
/* gjinv: the inverse in place by blocked Gauss-Jordan elimination with partial pivoting        */
/* (Ezzatti, Quintana-Orti and Remon); a pivot that is exactly zero is PS_ERR_SINGULAR with     */
/* info = its column, and A is left as it was.                                                  */
/* gjsv: solves A X = B by the striped Gauss-Jordan algorithm (stripes of rows, partial         */
/* pivoting within the pivot column, several right-hand sides): B is overwritten by X and A by  */
/* the forward pass's row echelon form (U on and above the diagonal, the multipliers below, as  */
/* getrf leaves them; the interchanges are not returned). Singular: as gjinv, A and B left as   */
/* they were. All three refuse NaN/Inf input (PS_ERR_NON_FINITE) in the host drivers.          */

typedef enum ps_gj_variant {
    PS_GJ_DEVICE = 0,    /* default: everything on the backend (look-ahead on two lanes) */
    PS_GJ_HYBRID = 1,    /* panels factored on the host CPU, updates on the device */
    PS_GJ_CONCURRENT = 2 /* hybrid, with the next panel on the host during the device's update */
} ps_gj_variant;

typedef struct ps_gj_options {
    ps_gj_variant variant; /* gjinv; PORTSOLVE_GJ_VARIANT=device|hybrid|concurrent */
    int block_size;        /* gjinv block columns, 0 automatic (per backend and n; tuning gj_nb) */
    int stripe_size;       /* gjsv rows per stripe, 0 automatic, at most 1024 (tuning gj_stripe) */
} ps_gj_options;

/* The context's Gauss-Jordan options (from the environment at creation) and their replacement.
 * On the CPU backend the three variants are one computation. */
PS_API ps_gj_options ps_context_gj_options(const ps_context *ctx);
PS_API ps_status ps_context_set_gj_options(ps_context *ctx, const ps_gj_options *opts);
PS_API const char *ps_gj_variant_name(ps_gj_variant v);
/* Parses "device", "hybrid" or "concurrent" (any case). */
PS_API ps_status ps_gj_variant_from_name(const char *name, ps_gj_variant *v);

PS_API ps_status ps_mat_getri(ps_context *ctx, ps_matrix *A, const int *ipiv);
PS_API ps_status ps_mat_gjinv(ps_context *ctx, ps_matrix *A);
PS_API ps_status ps_mat_gjsv(ps_context *ctx, ps_matrix *A, ps_matrix *B);

PS_API ps_status ps_sgetri(ps_context *ctx, int n, float *A, int lda, const int *ipiv);
PS_API ps_status ps_dgetri(ps_context *ctx, int n, double *A, int lda, const int *ipiv);
PS_API ps_status ps_sgjinv(ps_context *ctx, int n, float *A, int lda);
PS_API ps_status ps_dgjinv(ps_context *ctx, int n, double *A, int lda);
PS_API ps_status ps_sgjsv(ps_context *ctx, int n, int nrhs, float *A, int lda, float *B, int ldb);
PS_API ps_status ps_dgjsv(ps_context *ctx, int n, int nrhs, double *A, int lda, double *B, int ldb);

/* ------------------------------------------------------------------------------------------ */
/* Iterative solvers on a dense A: x holds the initial guess on entry and the solution on exit. */
/* Each iteration runs on the device; only the scalars the method needs come back to the host. */
/* Success means the true relative residual ||b - A x||_2 / ||b||_2 of the returned x is at    */
/* most tol. PS_ERR_NO_CONVERGENCE (max_iter reached, or the iteration diverged) and           */
/* PS_ERR_BREAKDOWN (a zero divisor: CG's p'Ap <= 0, BiCGSTAB's rho or omega, ...) return the  */
/* best iterate seen in x, with the result filled and info = the iterations done; a zero       */
/* diagonal (Jacobi, Gauss-Seidel, the Jacobi preconditioner) is PS_ERR_ZERO_DIAGONAL with     */
/* info = its 1-based index, before any iteration. Any other failure leaves x as it was.       */

typedef enum ps_iter_method {
    PS_ITER_JACOBI = 0,       /* x += D^-1 (b - A x) */
    PS_ITER_GAUSS_SEIDEL = 1, /* x += (D + L)^-1 (b - A x): a gemv and a triangular solve */
    PS_ITER_CG = 2,           /* conjugate gradients (Chronopoulos-Gear form): A SPD */
    PS_ITER_BICGSTAB = 3,     /* BiCGSTAB (van der Vorst) for nonsymmetric A */
    PS_ITER_GMRES = 4         /* GMRES(restart), classical Gram-Schmidt applied twice */
} ps_iter_method;

typedef enum ps_precond {
    PS_PRECOND_NONE = 0,
    PS_PRECOND_JACOBI = 1 /* M = diag(A); CG, BiCGSTAB and GMRES (right-preconditioned) */
} ps_precond;

typedef struct ps_iter_options {
    double tol;           /* relative residual to reach, ||b - A x|| / ||b|| (default 1e-8) */
    int max_iter;         /* iterations (GMRES: Arnoldi steps; Jacobi/GS: sweeps); default 1000 */
    int restart;          /* GMRES's m (default 35) */
    ps_precond precond;   /* default none; ignored by Jacobi and Gauss-Seidel */
    double *history;      /* optional: the method's relative residual after each iteration */
    int history_capacity; /* entries history can hold (0: no history) */
} ps_iter_options;

typedef struct ps_iter_result {
    int iterations;      /* iterations done */
    double rel_residual; /* ||b - A x|| / ||b|| of the returned x, recomputed at the end */
    int converged;       /* rel_residual <= tol */
    int history_length;  /* entries written to opts->history */
} ps_iter_result;

PS_API ps_iter_options ps_iter_options_default(void);
/* "jacobi", "gauss-seidel", "cg", "bicgstab", "gmres"; NULL for an unknown method. */
PS_API const char *ps_iter_method_name(ps_iter_method method);

/* On device matrices: A n x n, b and x n x 1, all of one precision. opts NULL: the defaults;
 * res may be NULL. */
PS_API ps_status ps_mat_iter_solve(ps_context *ctx, ps_iter_method method, const ps_matrix *A,
                                   const ps_matrix *b, ps_matrix *x, const ps_iter_options *opts,
                                   ps_iter_result *res);

/* Host drivers, one per method and precision (x: n entries, the initial guess). */
PS_API ps_status ps_sjacobi(ps_context *ctx, int n, const float *A, int lda, const float *b,
                            float *x, const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_djacobi(ps_context *ctx, int n, const double *A, int lda, const double *b,
                            double *x, const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_sgs(ps_context *ctx, int n, const float *A, int lda, const float *b, float *x,
                        const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_dgs(ps_context *ctx, int n, const double *A, int lda, const double *b,
                        double *x, const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_scg(ps_context *ctx, int n, const float *A, int lda, const float *b, float *x,
                        const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_dcg(ps_context *ctx, int n, const double *A, int lda, const double *b,
                        double *x, const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_sbicgstab(ps_context *ctx, int n, const float *A, int lda, const float *b,
                              float *x, const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_dbicgstab(ps_context *ctx, int n, const double *A, int lda, const double *b,
                              double *x, const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_sgmres(ps_context *ctx, int n, const float *A, int lda, const float *b,
                           float *x, const ps_iter_options *opts, ps_iter_result *res);
PS_API ps_status ps_dgmres(ps_context *ctx, int n, const double *A, int lda, const double *b,
                           double *x, const ps_iter_options *opts, ps_iter_result *res);

/* ------------------------------------------------------------------------------------------ */
/* Mixed-precision iterative refinement (LAPACK dsgesv): A is factored in a lower precision,    */
/* the solution refined in double. Refinement is classical (x += (LU)^-1 (b - A x)) while each  */
/* step at least halves the residual; when it stalls, GMRES-IR: GMRES(m) on the double system,  */
/* right-preconditioned by the low-precision factors (Carson and Higham; Haidar et al.). A      */
/* column is done when ||b - A x||_inf <= ||x||_inf ||A||_inf eps (sqrt(n) - 2), eps = 2^-53:    */
/* LAPACK's test, kept two rounding units inside its threshold so that the claim holds when the */
/* residual is recomputed in another order (as LAPACK's testers do); at n <= 4 nothing can be   */
/* claimed and it falls back at once (iter = -31).                                              */
/* iter >= 0: the refinement steps taken (classical steps plus GMRES's Arnoldi steps,           */
/* each costing one low-precision solve and one double matrix-vector product); A is unchanged  */
/* and ipiv holds the low-precision pivots. iter < 0: it fell back to double LU (A holds its    */
/* factors, ipiv its pivots, as dgesv), for one of LAPACK's reasons below. A singular double    */
/* factorization is PS_ERR_SINGULAR with info = i (the host driver leaves X untouched; A holds  */
/* the factors, as dgesv). B and X must not overlap.                                            */

#define PS_REFINE_OVERFLOW     (-2) /* A or a residual is out of the low precision's range */
#define PS_REFINE_LOW_SINGULAR (-3) /* the low-precision LU has an exactly zero pivot */
#define PS_REFINE_NOT_CONVERGED                                                                    \
    (-31) /* refinement did not meet the test in max_iter steps                                    \
             (LAPACK's -(ITERMAX + 1), whatever max_iter is) */

typedef enum ps_lowprec {
    PS_LOWPREC_FLOAT = 0,  /* the factorization in float (every backend) */
    PS_LOWPREC_TF32 = 1,   /* float storage, GEMMs on TF32 tensor cores (CUDA, sm_80+) */
    PS_LOWPREC_FP16 = 2,   /* float storage, GEMMs on FP16 tensor cores; A scaled to |a| <= 1 */
    PS_LOWPREC_BF16 = 3,   /* float storage, GEMMs on BF16 tensor cores (CUDA, sm_80+) */
    PS_LOWPREC_TF32X3 = 4, /* float storage, each large GEMM as three TF32 tensor-core products
                              on operands split into high and low parts (CUTLASS's 3xTF32):
                              about float's accuracy at tensor-core speed (CUDA, sm_80+) */
    PS_LOWPREC_FP16X3 = 5  /* as TF32X3, the three products on FP16 tensor cores (twice TF32's
                              rate on Hopper) with the parts scaled into FP16's range; A scaled
                              to max |a| <= 1 (CUDA, sm_80+) */
} ps_lowprec;

/* How the low-precision factorization pivots (docs/IR.md). */
typedef enum ps_refine_factor {
    PS_REFINE_PARTIAL_PIVOTING = 0, /* LU with partial pivoting of A, as LAPACK's dsgesv */
    PS_REFINE_RBT = 1 /* LU of L A R, L and R random butterfly transformations of depth 2
                         (Parker; Baboulin et al.), each pivot searched only within two block
                         rows below the diagonal, the rows further down solved for by a
                         triangular solve: the panel's sequential pivot search, which bounds
                         the GPU LU, covers a small window. Refinement corrects what the weaker
                         pivoting loses, and falls back as always when it cannot */
} ps_refine_factor;

typedef struct ps_refine_options {
    ps_lowprec precision; /* PORTSOLVE_IR_PRECISION=float|tf32|fp16|bf16|tf32x3|fp16x3;
                             default float */
    int max_iter;         /* refinement steps before falling back (LAPACK's ITERMAX, 30) */
    int gmres;            /* 1 (default): GMRES-IR when classical refinement stalls; 0: classical
                             only, as LAPACK (PORTSOLVE_IR_GMRES=0) */
    int restart;          /* GMRES's m for GMRES-IR (default 60) */
    ps_refine_factor factorization; /* PORTSOLVE_IR_FACTOR=partial|rbt; default partial */
} ps_refine_options;

typedef enum ps_refine_path {
    PS_REFINE_NONE = 0,      /* nothing to refine (n = 0 or nrhs = 0) */
    PS_REFINE_CLASSICAL = 1, /* met the test with classical refinement alone */
    PS_REFINE_GMRES = 2,     /* met the test after switching to GMRES-IR */
    PS_REFINE_FALLBACK = 3   /* fell back to the double factorization (iter < 0) */
} ps_refine_path;

typedef struct ps_refine_result {
    ps_refine_path path;
    ps_lowprec precision;           /* the precision the factorization ran in */
    ps_refine_factor factorization; /* how the low-precision factorization pivoted */
    int iter;                       /* as the iter argument */
    int classical_steps;            /* classical refinement steps (each right-hand side at once) */
    int gmres_iterations;           /* Arnoldi steps, summed over the right-hand sides */
    double backward_error; /* max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf) of the returned
                              X when refinement met the test; NaN after a fallback, where A
                              holds the factors (the answer is then dgesv's) */
} ps_refine_result;

PS_API ps_refine_options ps_refine_options_default(void);
/* The context's refinement options (from the environment at creation) and their replacement;
 * a precision the backend does not offer is refused by the solve (PS_ERR_NOT_SUPPORTED). */
PS_API ps_refine_options ps_context_refine_options(const ps_context *ctx);
PS_API ps_status ps_context_set_refine_options(ps_context *ctx, const ps_refine_options *opts);
/* What the context's last dsgesv did (zeroed, path NONE, before the first). */
PS_API ps_refine_result ps_context_refine_result(const ps_context *ctx);
/* "float", "tf32", "fp16", "bf16", "tf32x3", "fp16x3"; "unknown" otherwise. */
PS_API const char *ps_lowprec_name(ps_lowprec p);
PS_API ps_status ps_lowprec_from_name(const char *name, ps_lowprec *p);
/* "partial", "rbt"; "unknown" otherwise. */
PS_API const char *ps_refine_factor_name(ps_refine_factor f);
PS_API ps_status ps_refine_factor_from_name(const char *name, ps_refine_factor *f);
/* "none", "classical", "gmres", "fallback". */
PS_API const char *ps_refine_path_name(ps_refine_path p);

/* On device matrices, all double: A n x n, B and X n x nrhs. */
PS_API ps_status ps_mat_dsgesv(ps_context *ctx, ps_matrix *A, int *ipiv, const ps_matrix *B,
                               ps_matrix *X, int *iter);
PS_API ps_status ps_dsgesv(ps_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv,
                           const double *B, int ldb, double *X, int ldx, int *iter);

/* LAPACK's dsposv: A symmetric positive definite (its uplo triangle read), factored by Cholesky
 * in float, the solution refined in double by classical refinement with dsgesv's test below
 * and ITERMAX (the context's max_iter, default 30; the precision and GMRES options do not apply).
 * iter >= 0: the steps taken, A unchanged. iter < 0 (-2: A or a residual beyond float's range,
 * -3: A not positive definite in float, -31: no convergence): it fell back to the double
 * Cholesky factorization, which overwrites A's triangle as dposv's does; not positive definite
 * in double is PS_ERR_NOT_SPD with the info of dpotrf (A as ps_dposv leaves it, X untouched).
 * ps_context_refine_result reports the path (classical or fallback). */
PS_API ps_status ps_dsposv(ps_context *ctx, char uplo, int n, int nrhs, double *A, int lda,
                           const double *B, int ldb, double *X, int ldx, int *iter);

#ifdef __cplusplus
}
#endif
#endif /* PORTSOLVE_H */
