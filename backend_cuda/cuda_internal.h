/* Internal to the CUDA backend. */
#ifndef PS_BACKEND_CUDA_INTERNAL_H
#define PS_BACKEND_CUDA_INTERNAL_H

#include "../core/backend.h"
#include "../core/chol/chol_kernels.h"
#include "../core/gj/gj_kernels.h"
#include "../core/iter/iter_kernels.h"
#include "../core/lu/lu_kernels.h"
#include "../core/peer/peer_kernels.h"
#include "../core/refine/refine_kernels.h"
#include "../core/wz/wz_kernels.h"
#include "../core/base/tuning.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

/* Bytes of each of the two pinned staging buffers host transfers go through. */
#define PS_CUDA_STAGING_BYTES ((size_t)32 << 20)
/* Host drivers up to these orders run on the CPU path (cuda_backend.c). */
#define PS_CUDA_HOST_CROSSOVER_FLOAT  640
#define PS_CUDA_HOST_CROSSOVER_DOUBLE 384

/* The cooperative LU leaf (cuda_lu_panel.cu): a grid of at most one block per SM, each block
 * holding its slice of the panel's rows in shared memory. It fits when that slice does. */
#define PS_CUDA_COOP_THREADS   256
#define PS_CUDA_COOP_MAX_WIDTH 256 /* widest leaf; sizes the exchange scratch */
#define PS_CUDA_LU_LEAF        64  /* default leaf width (lu_panel_width overrides) */
#define PS_CUDA_WZ_LEAF        64  /* the WZ leaf's (wz_panel_width overrides) */
/* Rows per block the grid is sized for (fewer blocks when m is small; cuda_panel_rows
 * overrides both). LU's leaf: 32, which gives panels of fewer than about 8000 rows more blocks
 * than 64 did (H200: dgesv 2-4% faster at n = 4096-8192, sgesv 1-3%, equal at
 * 16384-32768; the RBT window's 1536-row leaf made fp16x3-rbt 4-5% faster at 16384 and 32768).
 * 64 had likewise beaten 128: dgesv / sgesv 5% faster at n = 8192 and 1-2% at 16384 on an
 * H100 and an H200, the RBT window 5% faster. The WZ leaf: 128 on the shared device,
 * where 64 made blocked WZ at 16384 3% slower (H100, docs/PERFORMANCE.md), and 64 on
 * split lanes (ps_cuda_wz_coop_rows), where it was 1-3% faster. */
#define PS_CUDA_LU_COOP_ROWS       32
#define PS_CUDA_WZ_COOP_ROWS       128
#define PS_CUDA_WZ_COOP_ROWS_SPLIT 64
typedef struct ps_cuda_coop_panel {
    int max_blocks;     /* co-resident blocks (one per SM); 0: no cooperative launch */
    size_t max_shared;  /* dynamic shared memory a block may use */
    int rows_per_block; /* 0: the leaf's default (PS_CUDA_LU_COOP_ROWS, PS_CUDA_WZ_COOP_ROWS) */
} ps_cuda_coop_panel;
/* The iterative solvers' cooperative kernels (cuda_iter_kernels.cu): PS_CUDA_ITER_THREADS
 * threads per block, at most PS_CUDA_ITER_BLOCKS_PER_SM blocks per SM. */
#define PS_CUDA_ITER_THREADS       256
#define PS_CUDA_ITER_BLOCKS_PER_SM 2
/* GMRES's orthonormalize for short vectors on one cluster (cuda_iter_cluster.cu) of at most
 * PS_CUDA_CLUSTER_MAX_BLOCKS blocks of PS_CUDA_CLUSTER_THREADS threads. */
#define PS_CUDA_CLUSTER_THREADS    1024
#define PS_CUDA_CLUSTER_MAX_BLOCKS 16
/* Vectors up to this length take the cluster form by default (cuda_cluster_max_n
 * overrides, up to 2^17, where a block's slice of w still fits its shared memory; 0 turns them
 * off). */
#define PS_CUDA_CLUSTER_MAX_N 8192
typedef struct ps_cuda_iter_limits {
    int max_blocks;     /* co-resident blocks of every iteration kernel; 0: not available */
    int cluster_blocks; /* blocks of orthonormalize's one cluster; 0: no cluster launch */
    int cluster_max_n;  /* the longest vectors the cluster form takes */
    int early;          /* cuda_iter_early: >= 1 launches cg_step's one block and
                         * orthonormalize's cluster as programmatic dependents of the product
                         * before them; 2 also the short-column gemv on a held matrix (Hopper) */
} ps_cuda_iter_limits;
/* GMRES's Arnoldi steps with the matrix resident on the chip (cuda_iter_resident.cu): one
 * cooperative block of PS_CUDA_RESIDENT_THREADS threads per SM, each holding at most
 * PS_CUDA_RESIDENT_MAX_ROWS rows of a matrix of order at most PS_CUDA_RESIDENT_MAX_N, against at
 * most PS_CUDA_RESIDENT_MAX_K columns of V. */
#define PS_CUDA_RESIDENT_THREADS    512
#define PS_CUDA_RESIDENT_MAX_N      2048
#define PS_CUDA_RESIDENT_MAX_ROWS   16
#define PS_CUDA_RESIDENT_MAX_K      64
#define PS_CUDA_RESIDENT_MAX_BLOCKS 160
typedef struct ps_cuda_resident_limits {
    int blocks;        /* blocks of the grid (the SMs); 0: no resident path */
    size_t max_shared; /* dynamic shared memory a block may take */
} ps_cuda_resident_limits;
/* GMRES's y for x += dinv .* (V(:, 0 .. ky) y) (gmres_update_x, arnoldi_restart), passed to a
 * kernel by value so that the host's y needs no upload (which would wait for the device). */
#define PS_CUDA_UPDATE_MAX_K 64
typedef struct ps_cuda_host_y {
    int ky;
    double y[PS_CUDA_UPDATE_MAX_K];
} ps_cuda_host_y;
/* A launch that starts a GMRES cycle (arnoldi_restart): x += dinv .* (V y), r = b - A x, its norm
 * and v_0 before step 0. */
typedef struct ps_cuda_resident_restart {
    const void *b;
    void *x;
    ps_cuda_host_y y;
} ps_cuda_resident_restart;
/* Bytes of each pinned buffer fetch_start copies into. */
#define PS_CUDA_FETCH_BYTES ((size_t)64 << 10)
/* Look-ahead on disjoint SMs (cuda_partition.c): two green contexts, lane 0's (the rest of the
 * device) and lane 1's (the panel's), each with a stream that runs only on its SMs. */
typedef struct ps_cuda_partition {
    int sms[2];             /* SMs of each part; sms[1] == 0: none made */
    void *green[2];         /* CUgreenCtx */
    cudaStream_t stream[2]; /* created in the green contexts, lane 1's at the highest priority */
} ps_cuda_partition;
typedef struct ps_cuda_state {
    int device;
    int sms;                   /* the device's multiprocessors */
    cudaStream_t stream;       /* lane 0: the context's stream (the caller's when borrowed) */
    int borrowed;              /* the stream belongs to the caller: never destroyed */
    cudaStream_t lane[2];      /* lane[0] = stream; lane[1] is ours, for LU look-ahead */
    cublasHandle_t handles[2]; /* one cuBLAS handle per lane (workspaces must not be shared) */
    cudaEvent_t lane_done[2];
    int cur;                 /* the lane operations go to */
    cublasHandle_t blas;     /* handles[cur] */
    cudaStream_t cur_stream; /* ps_cuda_lane_stream(st, cur) */
    cudaMemPool_t pool;      /* the operations' own workspaces (ps_cuda_malloc_async); NULL: none */
    ps_cuda_partition part;  /* made on the first split that asks for it */
    int split;               /* between lanes_split and lanes_join, on the partition */
    int panel_sms_request;   /* cuda_panel_sms; -1: unset (the measured default) */
    int partition_failed;    /* green contexts failed once: the default no longer splits */
    int split_below;         /* LU splits with fewer columns than this left; -1: unset */
    void *scratch;           /* 64 device bytes for small results */
    int *potrf_arrivals;     /* potrf_tall's block counter; zero between launches */
    int potrf_max_blocks;    /* potrf_tall's co-resident blocks (its grid's cap) */
    void *staging[2];        /* pinned host buffers, PS_CUDA_STAGING_BYTES each */
    cudaEvent_t staged[2];
    cudaEvent_t transferred[PS__TRANSFER_SLOTS]; /* upload_async / download_async's slots */
    cudaStream_t transfers;                      /* their stream, beside the compute */
    cudaEvent_t marks[PS__TRANSFER_MARKS];       /* transfer_order's marks */
    int panel_threads;                           /* block size of the one-block panel kernel */
    ps_cuda_coop_panel coop;                     /* the cooperative LU leaf's limits */
    void *coop_scratch;               /* its candidate exchange area; NULL: not available */
    unsigned coop_epoch;              /* the last launch's epoch (exchange flags) */
    int wz_coop;                      /* the cooperative WZ leaf is available */
    int fp64_tensor_cores;            /* sm_80 or later: the stripe kernel runs DMMA */
    int tensor_cores_32f;             /* sm_80 or later: TF32, FP16 and BF16 float GEMM modes */
    ps__float_compute float_compute;  /* how float gemm computes (set_float_compute) */
    ps_cuda_iter_limits iter;         /* the iteration kernels' grid */
    ps_cuda_resident_limits resident; /* the resident Arnoldi steps' (blocks 0: none) */
    double *resident_partial;         /* their reductions' scratch */
    int *resident_cancel_dev;         /* arnoldi_cancel's flag: the last generation cancelled */
    int *resident_cancel_host;        /* its pinned source */
    cudaStream_t cancel_stream;       /* the flag's copies (they run beside the kernel) */
    int resident_generation;          /* the last launch's */
    /* hold_matrix's view (held_rows 0: none): gemv on it may be launched ahead */
    const void *held_ptr;
    int held_rows, held_cols, held_ld;
    ps__dtype held_dt;
    int held_in_l2;         /* a product gave the held matrix's lines the evict_last priority */
    int read_only_matrices; /* read_only_matrices' hint: gemv and gemv_mixed may launch ahead */
    size_t gemv_l2_keep;    /* bytes of L2 a held matrix's products keep it in (0: none) */
    double *iter_partial;   /* their per-block partial sums, (2 PS_CUDA_ORTH_MAX_K + 3) per block */
    void *gemv_partial[2];  /* per lane: the short-column gemv's slice sums (cuda_gemv.cu) */
    unsigned *gemv_tickets[2]; /* per lane: its tickets, one per row tile, zero between launches */
    unsigned *trsv_sync[2];    /* per lane: trsv_mixed's ticket and count, zero between launches */
    int trsv_rows;             /* trsv_mixed's rows per block row (cuda_trsv_rows) */
    int gemv_mixed_slices;     /* gemv_mixed's most column slices a row tile (knob; 1: none) */
    int gemv_max_rows;         /* the longest columns the short-column gemv takes (knob) */
    int gemv_held_max_rows;    /* the same on the held matrix */
    void *fetch_host[PS__FETCH_SLOTS]; /* pinned and mapped, PS_CUDA_FETCH_BYTES each */
    void *fetch_dev[PS__FETCH_SLOTS];  /* the same memory as kernels address it */
    cudaEvent_t fetch_done[PS__FETCH_SLOTS];
    const void *fetch_src[PS__FETCH_SLOTS]; /* what the slot's copy reads; NULL: no copy */
    size_t fetch_bytes[PS__FETCH_SLOTS];
    /* A prefix of the slot's values a kernel marks final before it ends (the resident Arnoldi
     * steps: PS__ARNOLDI_CHECKPOINT steps' columns): mark_host[slot] reaches mark_gen[slot]
     * then, for mark_bytes[slot] bytes (0: no such prefix). Pinned and mapped. */
    int *mark_host, *mark_dev;
    int mark_gen[PS__FETCH_SLOTS];
    size_t mark_bytes[PS__FETCH_SLOTS];
} ps_cuda_state;

static inline ps_cuda_state *ps_cuda(ps__backend *be) {
    return (ps_cuda_state *)be->impl;
}

/* A workspace of bytes for work on stream s, from the context's pool (the device's where it has
 * none); release it with cudaFreeAsync on the same stream. */
static inline cudaError_t ps_cuda_malloc_async(const ps_cuda_state *st, void **p, size_t bytes,
                                               cudaStream_t s) {
    return st->pool ? cudaMallocFromPoolAsync(p, bytes, st->pool, s) : cudaMallocAsync(p, bytes, s);
}

/* The stream of lane i: the partition's while split. */
static inline cudaStream_t ps_cuda_lane_stream(const ps_cuda_state *st, int i) {
    return st->split ? st->part.stream[i] : st->lane[i];
}

/* The SMs work on the current lane may occupy: co-resident grids (the cooperative leaves,
 * potrf_tall) are capped by it. */
static inline int ps_cuda_lane_sms(const ps_cuda_state *st) {
    return st->split ? st->part.sms[st->cur] : st->sms;
}

/* The cooperative leaves' limits on the current lane. */
static inline ps_cuda_coop_panel ps_cuda_lane_coop(const ps_cuda_state *st) {
    ps_cuda_coop_panel cp = st->coop;
    int sms = ps_cuda_lane_sms(st);
    if (cp.max_blocks > sms) cp.max_blocks = sms;
    return cp;
}

/* The WZ leaf's default rows per block on the current lanes. */
static inline int ps_cuda_wz_coop_rows(const ps_cuda_state *st) {
    return st->split ? PS_CUDA_WZ_COOP_ROWS_SPLIT : PS_CUDA_WZ_COOP_ROWS;
}

/* LU and WZ split their lanes for the last this many columns by default (cuda_partition.c says
 * why; FP16X3's float LU from the start). */
#define PS_CUDA_SPLIT_BELOW 24576
/* Splitting and joining the lanes (the lanes_split and lanes_join entries), and the partition's
 * release (cuda_partition.c). */
ps_status ps_cuda_lanes_split(ps__backend *be, ps__algo algo, ps__dtype dt, int n, int *split);
ps_status ps_cuda_lanes_join(ps__backend *be);
void ps_cuda_partition_release(ps_cuda_state *st);

ps_status ps_cuda_fail(ps__backend *be, cudaError_t err, const char *what);
ps_status ps_cublas_fail(ps__backend *be, cublasStatus_t st, const char *what);
/* The next cooperative leaf launch's epoch (clears the exchange words when epochs wrap). */
ps_status ps_cuda_coop_next_epoch(ps__backend *be);
#define PS_CUDA_TRY(be, call, what)                                                                \
    do {                                                                                           \
        cudaError_t ps_cuda_err_ = (call);                                                         \
        if (ps_cuda_err_ != cudaSuccess) return ps_cuda_fail((be), ps_cuda_err_, (what));          \
    } while (0)
#define PS_CUBLAS_TRY(be, call, what)                                                              \
    do {                                                                                           \
        cublasStatus_t ps_cublas_st_ = (call);                                                     \
        if (ps_cublas_st_ != CUBLAS_STATUS_SUCCESS)                                                \
            return ps_cublas_fail((be), ps_cublas_st_, (what));                                    \
    } while (0)

/* Element pointers of views. */
static inline void *ps_cuda_ptr(ps__dtype dt, void *buf, size_t off) {
    return (char *)buf + off * ps__dtype_size(dt);
}

/* Kernel launchers (cuda_kernels.cu); each returns the launch's error. */
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t ps_cuda_launch_fill(cudaStream_t s, int dbl, int rows, int cols, const void *value,
                                void *a, int lda);
cudaError_t ps_cuda_launch_copy_triangle(cudaStream_t s, int dbl, int lower, int n, const void *src,
                                         int lds, void *dst, int ldd);
cudaError_t ps_cuda_launch_laswp(cudaStream_t s, int dbl, int ncols, void *a, int lda, int k1,
                                 int k2, const int *ipiv, int forward);
/* x = A^-1 x, A a float triangle, x double, in double (the vtable's trsv_mixed,
 * cuda_trsv_mixed.cu): rows_per_block 64 or 128; sync, two words that are zero between launches
 * on one stream. The init sets the kernels' shared memory limits. */
#define PS_CUDA_TRSV_ROWS 128
cudaError_t ps_cuda_trsv_mixed_init(void);
cudaError_t ps_cuda_launch_trsv_mixed(cudaStream_t s, int rows_per_block, int upper, int unit,
                                      int n, const float *a, int lda, double *x, int incx,
                                      unsigned *sync);
/* y += alpha A x, A float (m x k), x and y double, in double (the vtable's gemv_mixed,
 * cuda_gemv_mixed.cu); sms: the multiprocessors the launch may fill;
 * max_slices: the most blocks (a thread-block cluster) a row tile's columns may be cut among, 1 for
 * whole columns a block. The init gives the device's most: PS_CUDA_GEMV_MIXED_MAX_SLICES where
 * clusters run, else 1. ahead: launched as a programmatic dependent of the kernel before it, which
 * must not write A (read_only_matrices); only the sliced form is. */
#define PS_CUDA_GEMV_MIXED_MAX_SLICES 8
cudaError_t ps_cuda_gemv_mixed_init(int device, int *max_slices);
cudaError_t ps_cuda_launch_gemv_mixed(cudaStream_t s, int sms, int max_slices, int m, int k,
                                      double alpha, const float *a, int lda, const double *x,
                                      int incx, double *y, int incy, int ahead);
/* dst(i, j) = src(idx[i], j), a gather (the vtable's permute_rows), or with scatter set
 * dst(idx[i], j) = src(i, j) where idx[i] >= 0 (scatter_rows). */
cudaError_t ps_cuda_launch_rows_by_index(cudaStream_t s, int dbl, int scatter, int rows, int cols,
                                         const int *idx, const void *src, int lds, void *dst,
                                         int ldd);
/* Column interchanges by the same permutation kernel (colswp of a short list, all on the device;
 * the columns' rows are contiguous). */
cudaError_t ps_cuda_launch_colswp_steps(cudaStream_t s, int dbl, int nrows, void *a, int lda,
                                        int k1, int k2, const int *ipiv, int forward);
/* Longest interchange list colswp applies with it; longer ones are planned on the host. */
#define PS_CUDA_COLSWP_ON_DEVICE 1024
cudaError_t ps_cuda_launch_getrf_panel(cudaStream_t s, int dbl, int threads, int m, int n, void *a,
                                       int lda, int *ipiv, int row_base, int *info);
/* Exchange flags carry the column in their low bits and the launch's epoch above them. */
#define PS_CUDA_COOP_COLUMN_BITS 9
#define PS_CUDA_COOP_EPOCHS      (1u << (32 - PS_CUDA_COOP_COLUMN_BITS))
static inline size_t ps_cuda_coop_scratch_bytes(int blocks) { /* 64-bit words, 2 per double */
    return 8 * (2 * (size_t)blocks * 3 + 2 * (size_t)blocks * PS_CUDA_COOP_MAX_WIDTH * 2 +
                2 * PS_CUDA_COOP_MAX_WIDTH * 2);
}
cudaError_t ps_cuda_coop_panel_init(int device, ps_cuda_coop_panel *out);
/* Blocks for an m x n leaf, 0 when it does not fit; the widest leaf that fits for m rows.
 * rows_of_n: the rows of n elements a block keeps beside its slice (PS_CUDA_LU_ROWS_OF_N for
 * the LU leaf, PS_CUDA_WZ_ROWS_OF_N for the WZ leaf); default_rows: the leaf's rows per block
 * when cp sets none. */
#define PS_CUDA_LU_ROWS_OF_N 2
#define PS_CUDA_WZ_ROWS_OF_N 4
int ps_cuda_coop_panel_blocks(const ps_cuda_coop_panel *cp, int dbl, int m, int n, int rows_of_n,
                              int default_rows);
int ps_cuda_coop_panel_max_width(const ps_cuda_coop_panel *cp, int dbl, int m, int rows_of_n,
                                 int default_rows);
cudaError_t ps_cuda_launch_getrf_panel_coop(cudaStream_t s, int dbl, int blocks, int m, int n,
                                            void *a, int lda, int *ipiv, int row_base, int *info,
                                            unsigned epoch, void *scratch);
/* The Cholesky tall-panel kernel: the n x n diagonal block (n <= PS_CUDA_POTRF_MAX) in shared
 * memory, the m - n rows below solved in the same launch. arrivals: a device int, zero before
 * and after (the blocks count themselves on it). max_blocks: the grid's cap (every block
 * factors the diagonal block, so the grid should fit at once; ps_cuda_potrf_max_blocks). */
#define PS_CUDA_POTRF_MAX 64
cudaError_t ps_cuda_launch_potrf_tall(cudaStream_t s, int dbl, int lower, int m, int n, void *a,
                                      int lda, int *info, int index_base, int *arrivals,
                                      int max_blocks);
/* The co-resident blocks of the tall-panel kernel on the device (0 when unknown). */
cudaError_t ps_cuda_potrf_max_blocks(int device, int *out);
cudaError_t ps_cuda_launch_axpby(cudaStream_t s, int dbl, int n, const void *alpha, const void *x,
                                 int incx, const void *beta, void *y, int incy);
cudaError_t ps_cuda_launch_vmul(cudaStream_t s, int dbl, int n, const void *x, int incx, void *y,
                                int incy);
/* The WZ kernels (cuda_wz_kernels.cu): corner step and panel by one block of `threads`. */
cudaError_t ps_cuda_launch_wz_corner(cudaStream_t s, int dbl, int threads, int n, int k, void *a,
                                     int lda, int *ipiv, int *info, int pivoting);
/* The cooperative WZ leaf (cuda_wz_panel.cu), on the LU leaf's grid, scratch and epochs; init
 * prepares it once the LU leaf's limits are known (an error: the one-block kernel only). */
cudaError_t ps_cuda_wz_panel_coop_init(const ps_cuda_coop_panel *cp);
cudaError_t ps_cuda_launch_wz_panel_coop(cudaStream_t s, int dbl, int blocks, int m, int w, void *a,
                                         int lda, void *zsub, int zinc, int *ipiv, int row_base,
                                         int *info, int pivoting, unsigned epoch, void *scratch);
cudaError_t ps_cuda_launch_wz_panel(cudaStream_t s, int dbl, int threads, int m, int w, void *a,
                                    int lda, void *zsub, int zinc, int *ipiv, int row_base,
                                    int *info, int pivoting);
cudaError_t ps_cuda_launch_wz_reorder(cudaStream_t s, int dbl, int n, int ncols, int square,
                                      int to_steps, const void *src, int lds, void *dst, int ldd,
                                      void *zsub, int zinc);
cudaError_t ps_cuda_launch_wz_zsolve(cudaStream_t s, int dbl, int nb, int nrhs, const void *a,
                                     int lda, const void *zsub, int zinc, void *x, int ldx);
/* The Gauss-Jordan kernels (cuda_gj_kernels.cu). */
/* Column interchanges as planned by cuda_colswp.c: saves the first columns of cut cycles
 * (saved[nsave]) into values (nsave x nrows), then rotates the nseg segments of the cycle list
 * (entries dst[e] <- src[e], segment g = entries seg[g]..seg[g+1]). */
cudaError_t ps_cuda_launch_colswp(cudaStream_t s, int dbl, int nrows, void *a, int lda, int entries,
                                  int nseg, int nsave, const int *dst, const int *src,
                                  const int *seg, const int *saved, void *values);
/* a = a^T in place for the n x n matrix a (the vtable's transpose_square). */
cudaError_t ps_cuda_launch_transpose_square(cudaStream_t s, int dbl, int n, void *a, int lda);
cudaError_t ps_cuda_launch_stripe_update(cudaStream_t s, int dbl, int tensor_cores, int m,
                                         int ncols, int sdim, const void *ji, int ldji,
                                         const void *ik, int ldik, void *jk, int ldjk);
/* The mixed-precision kernels (cuda_refine_kernels.cu). norm_inf: sums holds rows doubles, out one
 * word that receives the norm's bits. */
cudaError_t ps_cuda_launch_butterfly(cudaStream_t s, int src_dbl, int dst_dbl, int rows, int cols,
                                     double alpha, const double *left, const double *right,
                                     const void *src, int lds, void *dst, int ldd, int *info);
cudaError_t ps_cuda_launch_convert(cudaStream_t s, int src_dbl, int dst_dbl, int rows, int cols,
                                   double alpha, const void *src, int lds, void *dst, int ldd,
                                   int *info);
/* dst (cols x rows) = alpha src^T rounded to dst's type (the vtable's convert_transposed). */
cudaError_t ps_cuda_launch_convert_transposed(cudaStream_t s, int src_dbl, int dst_dbl, int rows,
                                              int cols, double alpha, const void *src, int lds,
                                              void *dst, int ldd, int *info);
/* dst (rows x cols, leading dimension rows) = src rounded to half (bf16 = 0) or bfloat16. */
cudaError_t ps_cuda_launch_to_half(cudaStream_t s, int bf16, int rows, int cols, const float *src,
                                   int lds, void *dst);
/* dst = three copies of src (rows x cols) split into TF32 parts, stacked down the rows
 * (by_rows: dst is 3 rows x cols) or across the columns (rows x 3 cols); copy p is the low part
 * where bit p of lo_blocks is set, the high part otherwise (cuda_refine_kernels.cu says how). */
cudaError_t ps_cuda_launch_split_tf32(cudaStream_t s, int rows, int cols, const float *src, int lds,
                                      float *dst, int by_rows, unsigned lo_blocks);
/* The same in FP16 (dst: 3 rows x cols halves): copy p is the low part times 2^11 where bit p of
 * lo_blocks is set, the high part times hi_scale[p] otherwise. */
cudaError_t ps_cuda_launch_split_fp16(cudaStream_t s, int rows, int cols, const float *src, int lds,
                                      void *dst, int by_rows, unsigned lo_blocks,
                                      const float hi_scale[3]);
/* Triangular solves with a small triangle (cuda_trsm.cu): B = alpha inv(T) B (left; T m x m)
 * or alpha B inv(T) (right; T n x n), T not transposed, of order at most PS_CUDA_TRSM_SMALL_MAX;
 * two threads per column (left) or row (right) of B. init: once per device, before any launch. */
#define PS_CUDA_TRSM_SMALL_MAX 64
cudaError_t ps_cuda_trsm_small_init(void);
cudaError_t ps_cuda_launch_trsm_small(cudaStream_t s, int dbl, int left, int upper, int unit, int m,
                                      int n, const void *alpha, const void *a, int lda, void *b,
                                      int ldb);
/* The short-column gemv (cuda_gemv.cu): y = alpha A x + beta y, A m x n (m at most
 * PS_CUDA_GEMV_MAX_ROWS), contiguous x and y; partial holds PS_CUDA_GEMV_MAX_SLICES *
 * PS_CUDA_GEMV_MAX_ROWS elements, tickets PS_CUDA_GEMV_MAX_ROWS / 32 zeros. ahead: A is not
 * written by the kernel queued before, so the launch may load it while that kernel runs.
 * gemv takes it for columns up to PS_CUDA_GEMV_ROWS_PER_SM rows per SM long (one wave of its
 * one-block-per-tile shape; measured in cuda_gemv.cu), and on a held matrix with its
 * share of L2 (below) up to PS_CUDA_GEMV_MAX_ROWS (GMRES at n = 5000 / 8000 0.85 /
 * 0.92 -> 0.90 / 0.98 of DGEMV's bandwidth on an H200, 6000-7000 within 0.03 either way);
 * cuda_gemv_max_rows sets another length for both, up to PS_CUDA_GEMV_MAX_ROWS (0:
 * never). keep > 0: load the share keep of A's L2 lines with the evict_last priority and the
 * rest with evict_first (a held matrix larger than the L2; the lines keep that priority until
 * ps_cuda_launch_l2_normal). */
#define PS_CUDA_GEMV_MAX_ROWS    8192
#define PS_CUDA_GEMV_ROWS_PER_SM 32
#define PS_CUDA_GEMV_MAX_SLICES  16
#define PS_CUDA_GEMV_MIN_COLS    256 /* narrower products (GMRES's update of x) stay cuBLAS's */
#define PS_CUDA_GEMV_FULL        0
#define PS_CUDA_GEMV_LOWER       1
#define PS_CUDA_GEMV_UPPER       2
/* triangle (PS_CUDA_GEMV_LOWER / _UPPER, m = n): A's entries outside that triangle are zero and
 * not read. */
cudaError_t ps_cuda_launch_gemv_n(cudaStream_t s, int dbl, int sms, int m, int n, const void *alpha,
                                  const void *a, int lda, const void *x, const void *beta, void *y,
                                  void *partial, unsigned *tickets, int ahead, float keep,
                                  int triangle);
/* Puts the L2 lines of the bytes at p back to the normal eviction priority. */
cudaError_t ps_cuda_launch_l2_normal(cudaStream_t s, int sms, const void *p, size_t bytes);
/* The held matrix's share of L2 a product on it keeps there (cuda_gemv_l2_keep, in
 * MiB): half of the L2 (measured, cuda_gemv.cu), taken only by a matrix larger than this many
 * tenths of it (smaller ones stay in L2 with plain loads: n = 2000 in double, 32 MB on a 50 MB
 * L2, was 2% slower with the policy). */
#define PS_CUDA_GEMV_L2_KEEP_ABOVE 14
cudaError_t ps_cuda_launch_norm_inf(cudaStream_t s, int dbl, int rows, int cols, const void *a,
                                    int lda, double *sums, unsigned long long *out);
/* The iterative solvers' kernels (cuda_iter_kernels.cu). */
cudaError_t ps_cuda_iter_init(int device, ps_cuda_iter_limits *out);
/* cg_step's vectors as device addresses (core/backend.h, ps__cg_vectors; u may equal r, dinv
 * and xbest may be null). */
typedef struct ps_cuda_cg_ptrs {
    void *x, *r, *u, *w, *p, *s, *dinv, *xbest;
} ps_cuda_cg_ptrs;
cudaError_t ps_cuda_launch_cg_step(cudaStream_t s, int dbl, const ps_cuda_iter_limits *lim, int n,
                                   ps_cuda_cg_ptrs v, const void *in, void *out, double stop_rr,
                                   int last, double *partial, void *host_out);
cudaError_t ps_cuda_launch_cg_resident(cudaStream_t s, int dbl, const ps_cuda_resident_limits *lim,
                                       int n, const void *a, int lda, ps_cuda_cg_ptrs v,
                                       const void *in, void *out, int count, double stop_rr,
                                       int last, void *host_out, double *partial);
/* GMRES's orthonormalize for k <= PS_CUDA_ORTH_MAX_K (the projections live in shared memory). */
#define PS_CUDA_ORTH_MAX_K 128
cudaError_t ps_cuda_launch_orthonormalize(cudaStream_t s, int dbl, const ps_cuda_iter_limits *lim,
                                          int n, int k, const void *v, int ldv, void *w, void *col,
                                          double *partial, void *host_out);
/* gmres_update_x's x += dinv .* (V y) (cuda_iter_kernels.cu); dinv may be null. */
cudaError_t ps_cuda_launch_update_x(cudaStream_t s, int dbl, int n, const void *v, int ldv,
                                    const void *dinv, void *x, const ps_cuda_host_y *y);
/* The cluster form (cuda_iter_cluster.cu): init sets lim->cluster_blocks (0 where the device or
 * the build has no clusters); the launch takes n <= lim->cluster_max_n. */
cudaError_t ps_cuda_iter_cluster_init(int device, ps_cuda_iter_limits *lim);
cudaError_t ps_cuda_launch_orthonormalize_cluster(cudaStream_t s, int dbl,
                                                  const ps_cuda_iter_limits *lim, int n, int k,
                                                  const void *v, int ldv, void *w, void *col,
                                                  void *host_out);
/* The resident Arnoldi steps (cuda_iter_resident.cu): init fills lim (blocks 0 where the device
 * has no cooperative launch); fits says whether order n against cols columns of V fits the
 * chip; the launch runs steps j0 .. j1 - 1 (core/backend.h, arnoldi_steps), partial holding
 * ps_cuda_resident_partial_doubles doubles; with restart (j0 = 0) it starts the cycle first
 * (arnoldi_restart) and writes the residual's norm at col[-1] (and host_out[-1]). With mark (a
 * mapped host int, or null), block 0 writes generation there once the columns of the first
 * PS__ARNOLDI_CHECKPOINT steps (and the norm) are final in host_out. */
cudaError_t ps_cuda_iter_resident_init(int device, ps_cuda_resident_limits *lim);
int ps_cuda_resident_fits(const ps_cuda_resident_limits *lim, int dbl, int n, int cols);
size_t ps_cuda_resident_partial_doubles(const ps_cuda_resident_limits *lim);
/* CG's steps with the matrix resident the same way (cuda_cg_resident.cu; core/backend.h,
 * cg_steps): whether n fits, and count steps from the block in into out (host_out: the fetch
 * slot's mapped memory, or null); partial as the Arnoldi steps'. */
int ps_cuda_resident_cg_fits(const ps_cuda_resident_limits *lim, int dbl, int n);
/* The CG kernel of a precision, for the init's attributes (cuda_cg_resident.cu). */
const void *ps_cuda_cg_resident_kernel(int dbl);
cudaError_t ps_cuda_launch_arnoldi_resident(cudaStream_t s, int dbl,
                                            const ps_cuda_resident_limits *lim, int n,
                                            const void *a, int lda, const void *dinv, void *v,
                                            int ldv, int j0, int j1, void *col, int col_stride,
                                            void *host_out, double *partial, const int *cancel,
                                            int generation, int *mark,
                                            const ps_cuda_resident_restart *restart);
#ifdef __cplusplus
}
#endif

/* Table entries (cuda_blas.c, cuda_gj.c). */
ps_status ps_cuda_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b);
ps_status ps_cuda_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                         const void *ipiv, size_t ipiv_off, int forward);
ps_status ps_cuda_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                            ps__mat dst);
ps_status ps_cuda_transpose_square(ps__backend *be, ps__dtype dt, int n, ps__mat a);
ps_status ps_cuda_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                   ps__mat ji, ps__mat ik, ps__mat jk);
ps_status ps_cuda_butterfly(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                            double alpha, const void *left, const void *right, ps__mat src,
                            ps__mat dst, void *info);
ps_status ps_cuda_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                          double alpha, ps__mat src, ps__mat dst, void *info);
ps_status ps_cuda_convert_transposed(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                                     int cols, double alpha, ps__mat src, ps__mat dst, void *info);
ps_status ps_cuda_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                           double *result);
ps_status ps_cuda_set_float_compute(ps__backend *be, ps__float_compute mode);
ps_status ps_cuda_trsv_mixed(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                             ps__vec x);
ps_status ps_cuda_gemv_mixed(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                             ps__vec y);
ps_status ps_cuda_copy(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);
ps_status ps_cuda_swap(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);
ps_status ps_cuda_scal(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x);
ps_status ps_cuda_axpy(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                       ps__vec y);
ps_status ps_cuda_dot(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y,
                      ps__scalar *result);
ps_status ps_cuda_nrm2(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__scalar *result);
ps_status ps_cuda_iamax(ps__backend *be, ps__dtype dt, int n, ps__vec x, int *result);
ps_status ps_cuda_gemv(ps__backend *be, ps__dtype dt, ps__trans trans, int m, int n,
                       const ps__scalar *alpha, ps__mat a, ps__vec x, const ps__scalar *beta,
                       ps__vec y);
ps_status ps_cuda_gemv_triangle(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n,
                                const ps__scalar *alpha, ps__mat a, ps__vec x,
                                const ps__scalar *beta, ps__vec y);
ps_status ps_cuda_ger(ps__backend *be, ps__dtype dt, int m, int n, const ps__scalar *alpha,
                      ps__vec x, ps__vec y, ps__mat a);
ps_status ps_cuda_trsv(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, ps__diag diag,
                       int n, ps__mat a, ps__vec x);
ps_status ps_cuda_gemm(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m, int n,
                       int k, const ps__scalar *alpha, ps__mat a, ps__mat b, const ps__scalar *beta,
                       ps__mat c);
ps_status ps_cuda_syrk(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, int n, int k,
                       const ps__scalar *alpha, ps__mat a, const ps__scalar *beta, ps__mat c);
ps_status ps_cuda_wz_corner(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a, ps__vec work,
                            void *ipiv, void *info, int pivoting);
ps_status ps_cuda_wz_panel(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                           void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting);
ps_status ps_cuda_wz_reorder(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                             int to_steps, ps__mat src, ps__mat dst, ps__vec zsub);
ps_status ps_cuda_wz_zsolve(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z,
                            ps__vec zsub, ps__mat x);
ps_status ps_cuda_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src);
ps_status ps_cuda_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                             void *host);
ps_status ps_cuda_cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v, ps__vec in,
                          ps__vec out, double stop_rr, int last, int fetch_slot);
ps_status ps_cuda_cg_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a, const ps__cg_vectors *v,
                           ps__vec in, ps__vec out, int count, double stop_rr, int last,
                           int fetch_slot);
ps_status ps_cuda_orthonormalize(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v, ps__vec w,
                                 ps__vec col, int fetch_slot);
/* hold_matrix: remembers the view that gemv may launch ahead on. */
ps_status ps_cuda_hold_matrix(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a);
/* read_only_matrices: while on, gemv and gemv_mixed launch ahead (where iter.early allows). */
ps_status ps_cuda_read_only_matrices(ps__backend *be, int on);
ps_status ps_cuda_arnoldi_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                ps__mat v, int j0, int j1, ps__vec col, int col_stride,
                                int fetch_slot);
void ps_cuda_arnoldi_cancel(ps__backend *be);
ps_status ps_cuda_arnoldi_restart(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                  ps__vec b, ps__vec x, ps__mat v, int ky, const double *y, int j1,
                                  ps__vec out, int col_stride, int fetch_slot);
ps_status ps_cuda_gmres_update_x(ps__backend *be, ps__dtype dt, int n, ps__mat v, int ky,
                                 const double *y, ps__vec dinv, ps__vec x);
/* Sets up / releases the iteration kernels' state (cuda_iter.c), from open and close. */
ps_status ps_cuda_iter_open(ps__backend *be, ps_cuda_state *st);
void ps_cuda_iter_release(ps_cuda_state *st);
ps_status ps_cuda_trsm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b);

/* The kernel families this backend fills (cuda_lu.c, cuda_chol.c, cuda_wz.c, cuda_gj.c,
 * cuda_iter.c, cuda_refine.c). */
extern const ps__lu_kernels ps_cuda_lu_kernels;
extern const ps__chol_kernels ps_cuda_chol_kernels;
extern const ps__wz_kernels ps_cuda_wz_kernels;
extern const ps__gj_kernels ps_cuda_gj_kernels;
extern const ps__iter_kernels ps_cuda_iter_kernels;
extern const ps__refine_kernels ps_cuda_refine_kernels;
extern const ps__peer_kernels ps_cuda_peer_kernels;

#endif
