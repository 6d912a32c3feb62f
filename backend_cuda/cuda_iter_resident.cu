// GMRES's Arnoldi steps with the matrix resident on the chip (cuda_resident.cuh): one
// cooperative kernel runs several steps (product, CGS2, normalization) back to back. A step costs
// its two grid-wide syncs (the two passes' reductions; the second also carries the first pass's
// result, from which the next product is formed) and a little arithmetic: about 10 us at n =
// 2000 on an H100 or H200. The step-by-step path (a product, then orthonormalize's cluster
// kernel) paid the product's 9-10 us of L2 reads and 5-7 us of Gram-Schmidt after it, which kept
// GMRES at about 0.7 of cuBLAS DGEMV's bandwidth there (docs/PERFORMANCE.md). The
// init below sets up CG's resident kernels (cuda_cg_resident.cu) too.
#include "cuda_resident.cuh"

namespace {

constexpr int kMaxK = PS_CUDA_RESIDENT_MAX_K;
// Doubles of one step's reductions per block: the two passes (k + 1 values each: the first's
// carries the cancel flag) and at most three for the explicit norm.
constexpr int kStepSums = 2 * kMaxK + 6;

// mine[c] = sum over the block's rows of vs(:, c) .* w for c < k, and mine[k] = ||w||^2 when
// with_sq: 16 threads per column, all columns at once.
template <typename T>
__device__ __forceinline__ void block_dots(int rows, int k, const T *vs, int ldvs, const double *w,
                                           bool with_sq, double *mine) {
    const int dots = with_sq ? k + 1 : k, q = threadIdx.x & 15;
    for (int base = 0; base < dots; base += kThreads / 16) {
        const int c = base + (int)(threadIdx.x >> 4);
        double s = 0;
        if (c < dots && q < rows) s = (c < k ? (double)vs[(size_t)c * ldvs + q] : w[q]) * w[q];
        for (int off = 8; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
        if (q == 0 && c < dots) mine[c] = s;
    }
    __syncthreads();
}

// out[r] = (in[r] - sum_c basis(r, c) h[c]) * scale for the block's rows, r < rows, c < k, the
// result rounded to T: a warp per row.
template <typename T, typename B>
__device__ __forceinline__ void block_update(int rows, int k, const B *basis, int ldb,
                                             const double *h, const double *in, double scale,
                                             double *out) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int r = warp; r < rows; r += kWarps) {
        double s = 0;
        for (int c = lane; c < k; c += 32) s += (double)basis[(size_t)c * ldb + r] * h[c];
        s = warp_combine(s);
        if (lane == 0) out[r] = (double)(T)((in[r] - s) * scale);
    }
    __syncthreads();
}

// ||w|| over the grid's rows (the block's rows values at w) by explicit reductions, as normalize
// takes it (scaled_norm): region holds three doubles per block, sh a double per warp, bcast
// one. Every block must call it.
__device__ double grid_norm(int rows, const double *w, double *region, double *sh, double *bcast) {
    grid_reducer red(region, sh, bcast);
    return scaled_norm<kWarps>(red, (int)threadIdx.x, kThreads, rows, w);
}

// The start of a cycle (core/backend.h, arnoldi_restart), before step 0, in one or two grid
// syncs: x += dinv .* (V y) for the block's rows (V still the last cycle's basis), a sync when
// there was an update (x complete), r = b - A x for the block's rows out to r_global, its norm
// (grid_norm's sync also completes r), then v_0 = r / beta into the slice and V, and step 0's
// product A (dinv .* v_0) as A (dinv .* r) / beta, from the r every block now reads whole.
// Writes beta at beta_out (and beta_host) from block 0; returns false, every block alike, when
// beta is not positive and finite (v_0 then holds r, as orthonormalize leaves it).
template <typename T>
__device__ __forceinline__ bool
restart_cycle(cg::grid_group &grid, int n, int rows, int row0, const T (&ra)[kRegRows][kCols],
              const T *sa, int sld, const T *dinv, T *v, int ldv,
              const ps_cuda_resident_restart &restart, T *r_global, double *region, T (&x)[kCols],
              double *warp_rows, double *tot, double *r, double *ax, T *sv, T *beta_out,
              T *beta_host, double *z) {
    const int t = threadIdx.x, warp = t >> 5;
    T *xg = (T *)restart.x;
    if (restart.y.ky > 0) { // a warp per row, as gmres_update_x's kernel
        for (int q = warp; q < rows; q += kWarps)
            update_x_row((size_t)(row0 + q), (const T *)v, ldv, restart.y, dinv, xg);
        grid.sync();
    }
    load_x(n, (const T *)xg, (const T *)nullptr, x);
    block_product(n, rows, ra, sa, sld, x, warp_rows, ax);
    if (t < rows) {
        const T ri = (T)(((const T *)restart.b)[row0 + t] - (T)ax[t]);
        r[t] = ri;
        __stcg(r_global + row0 + t, ri);
    }
    __syncthreads();
    const T beta = (T)grid_norm(rows, r, region, warp_rows, tot);
    if (blockIdx.x == 0 && t == 0) {
        *beta_out = beta;
        if (beta_host) *beta_host = beta;
    }
    const bool scale = beta > T(0) && (double)beta - (double)beta == 0;
    const double inv = scale ? (double)(T)(1.0 / (double)beta) : 1.0;
    if (t < rows) {
        const T vi = scale ? (T)(r[t] * inv) : (T)r[t];
        sv[t] = vi;
        __stcg(v + (size_t)(row0 + t), vi);
    }
    if (!scale) return false;
    load_x(n, (const T *)r_global, dinv, x);
    block_product(n, rows, ra, sa, sld, x, warp_rows, ax);
    if (t < rows) z[t] = (double)(T)(ax[t] * inv);
    __syncthreads();
    return true;
}

// Steps j0 .. j1 - 1 (core/backend.h, arnoldi_steps). Each step takes two grid syncs: the first
// pass's products, then the second pass's together with the first pass's result w1, which every
// block reads whole to form A w1 from its rows; the next step's product A v_{j+1} is then
// (A w1 - sum_c h2_c A v_c) / norm, from the products A v_c this block kept for its rows. Since
// the second pass removes only rounding-sized parts (h2 of the order of u ||w1||), that differs
// from a product of v_{j+1} by O(u^2): the step's result is CGS2's to rounding, for a sync fewer
// (the new vector's broadcast). When the second pass removes more (the norm then comes from
// explicit reductions too), the step broadcasts v_{j+1} and multiplies it, as the step-by-step
// path does. Dynamic shared memory: the slice's rows past the first kRegRows (smem_rows of them,
// leading dimension sld), the slice of V (rows_cap x (j1 + 1)), then the block's rows of the
// products A v_c (rows_cap x (j1 + 1), double). With restart.x set (j0 = 0), the launch first
// starts the cycle (restart_cycle) and writes the residual's norm at col[-1] and host_out[-1].
template <typename T>
__global__ void __launch_bounds__(kThreads, 1)
    arnoldi_resident_kernel(int n, const T *a, int lda, const T *dinv, T *v, int ldv, int j0,
                            int j1, T *col, int col_stride, T *host_out, int rows_cap,
                            int smem_rows, int sld, double *partial, T *w1_global,
                            const volatile int *cancel, int generation, volatile int *mark,
                            const ps_cuda_resident_restart restart) {
    cg::grid_group grid = cg::this_grid();
    extern __shared__ __align__(16) double dyn[];
    __shared__ double warp_rows[kMaxRows * kWarps];
    __shared__ double mine[kMaxK + 2], tot[kMaxK + 2], h1[kMaxK + 1], h2[kMaxK + 1];
    __shared__ double z[kMaxRows], w1[kMaxRows], w2[kMaxRows], y[kMaxRows], removed_sq[1];
    double *av = dyn; // A v_c for the block's rows, column c at av + c * rows_cap
    T *sa = (T *)(dyn + (size_t)rows_cap * (j1 + 1));
    T *sv = sa + (size_t)smem_rows * sld;
    const int t = threadIdx.x, row0 = (int)blockIdx.x * rows_cap, g = gridDim.x;
    const int rows = n - row0 < 0 ? 0 : n - row0 < rows_cap ? n - row0 : rows_cap;

    // The slice: the first kRegRows rows into registers, the rest into shared memory (a column's
    // rows are contiguous in A, so consecutive threads take consecutive rows of a column).
    T ra[kRegRows][kCols];
    load_register_rows(n, rows, a + row0, lda, ra);
    const int srows = rows > kRegRows ? rows - kRegRows : 0;
    load_slice(srows, n, a + row0 + kRegRows, lda, sa, sld, true);
    const bool restarting = restart.x != nullptr;
    if (!restarting) load_slice(rows, j0 + 1, v + row0, ldv, sv, rows_cap, false);
    __syncthreads();

    // The product each step starts with: of v_j0 (complete: the launch before wrote it), or
    // the restart's; then by the recurrence from A w1, or of v_{j+1} after its broadcast.
    T x[kCols];
    if (restarting) {
        if (!restart_cycle<T>(grid, n, rows, row0, ra, sa, sld, dinv, v, ldv, restart, w1_global,
                              partial + (size_t)kStepSums * g, x, warp_rows, tot, w1, y, sv,
                              col - 1, host_out ? host_out - 1 : nullptr, z))
            return;
    } else {
        load_x(n, v + (size_t)j0 * ldv, dinv, x);
        block_product(n, rows, ra, sa, sld, x, warp_rows, z);
    }
    // arnoldi_cancel's flag as block 0's thread 0 read it a step before (consumed a step after
    // it is issued, so its latency is hidden), shared through the first pass's sums
    int cancelled = 0;
    for (int j = j0; j < j1; j++) {
        const int k = j + 1;
        const bool more = k < j1; // a step after this one
        double *region = partial + (size_t)((j - j0) & 1) * kStepSums * g;
        if (t < rows) av[(size_t)j * rows_cap + t] = z[t];
        // first pass: h1 = V' z, w1 = z - V h1; h1[k]: whether to stop
        if (t == 0) mine[k] = blockIdx.x == 0 && cancelled ? 1.0 : 0.0;
        block_dots(rows, k, sv, rows_cap, z, false, mine);
        grid_publish(mine, k + 1, region);
        grid.sync();
        grid_gather<sum_op, T>(region, k + 1, h1, k);
        __syncthreads();
        if (h1[k] != 0) break; // every block alike; nothing of this step is written
        block_update<T>(rows, k, sv, rows_cap, h1, z, 1.0, w1);
        // second pass with ||w1||^2, and w1 out for every block's next product
        block_dots(rows, k, sv, rows_cap, w1, true, mine);
        grid_publish(mine, k + 1, region + (size_t)(k + 1) * g);
        if (t < rows) __stcg(w1_global + row0 + t, (T)w1[t]);
        grid.sync();
        // w1 for the next product, on its way while the sums are gathered and v_{j+1} formed
        // (unused when the step broadcasts v_{j+1} instead)
        if (more) fetch_x(n, w1_global, x);
        grid_gather<sum_op, T>(region + (size_t)(k + 1) * g, k + 1, h2, k); // h2[k]: ||w1||^2
        __syncthreads();
        warp_sum_squares(h2, k, removed_sq); // ||h2||^2
        __syncthreads();
        const double sq = h2[k], removed = removed_sq[0];
        // The norm as orthonormalize takes it (cuda_iter_cluster.cu): from the second pass's
        // reduction while that pass removes at most half of ||w1||^2, else explicitly. The
        // next product by the recurrence only while the pass removes rounding-sized parts (h2
        // below 2^-20 of ||w1||: A v_c's rounding then enters at 2^-20 u).
        const bool from_sq = sq >= 0x1p-960 && sq <= 0x1p960 && removed <= 0.5 * sq;
        block_update<T>(rows, k, sv, rows_cap, h2, w1, 1.0, w2); // w2 = w1 - V h2
        T hn;
        if (from_sq)
            hn = (T)sqrt(sq - removed);
        else
            hn = (T)grid_norm(rows, w2, region + (size_t)(2 * k + 2) * g, warp_rows, tot);
        const bool scale = hn > T(0) && (double)hn - (double)hn == 0;
        const double inv = scale ? (double)(T)(1.0 / (double)hn) : 1.0;
        if (t < rows) {
            const T vi = (T)(w2[t] * inv);
            sv[(size_t)k * rows_cap + t] = vi;
            __stcg(v + (size_t)(row0 + t) + (size_t)k * ldv, vi);
        }
        if (blockIdx.x == 0) {
            T *cj = col + (size_t)(j - j0) * col_stride;
            T *hj = host_out ? host_out + (size_t)(j - j0) * col_stride : nullptr;
            put_column(k, h1, h2, hn, cj, hj);
        }
        if (blockIdx.x == 0 && t == 0 && cancel) cancelled = *cancel >= generation;
        if (blockIdx.x == 0 && mark && k - j0 == PS__ARNOLDI_CHECKPOINT) {
            // the columns so far (and beta) final in the host's memory: after the block's
            // writes, one system-wide fence, then the launch's generation
            __syncthreads();
            if (t == 0) {
                __threadfence_system();
                *mark = generation;
            }
        }
        if (!scale || !more) break; // every block alike: the reduced values are the same in all
        if (from_sq && removed <= 0x1p-40 * sq) { // z = A v_{j+1} = (A w1 - A V h2) / norm
            scale_x(n, dinv, x);
            block_product(n, rows, ra, sa, sld, x, warp_rows, y);
            block_update<T>(rows, k, av, rows_cap, h2, y, 1.0 / (double)hn, z);
        } else { // v_{j+1} complete in every block, then its product
            grid.sync();
            load_x(n, v + (size_t)k * ldv, dinv, x);
            block_product(n, rows, ra, sa, sld, x, warp_rows, z);
        }
    }
}

const void *resident_kernels[] = {(const void *)arnoldi_resident_kernel<double>,
                                  (const void *)arnoldi_resident_kernel<float>};

} // namespace

extern "C" cudaError_t ps_cuda_iter_resident_init(int device, ps_cuda_resident_limits *out) {
    out->blocks = 0;
    out->max_shared = 0;
    int coop = 0, sms = 0, optin = 0;
    cudaError_t err = cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, device);
    if (!err) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (!err) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err || !coop) return err;
    // every resident kernel, CG's too: the launches share one limit (the smallest)
    const void *kernels[] = {resident_kernels[0], resident_kernels[1],
                             ps_cuda_cg_resident_kernel(1), ps_cuda_cg_resident_kernel(0)};
    for (const void *kernel : kernels) {
        cudaFuncAttributes fa;
        err = cudaFuncGetAttributes(&fa, kernel);
        if (err) return err;
        const int dyn = optin - (int)fa.sharedSizeBytes;
        if (dyn <= 0 ||
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn)) {
            cudaGetLastError(); // no resident path on this device
            return cudaSuccess;
        }
        int per_sm = 0;
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, (size_t)dyn);
        if (err) return err;
        if (per_sm < 1) return cudaSuccess;
        if (out->max_shared == 0 || (size_t)dyn < out->max_shared) out->max_shared = (size_t)dyn;
    }
    out->blocks = sms < PS_CUDA_RESIDENT_MAX_BLOCKS ? sms : PS_CUDA_RESIDENT_MAX_BLOCKS;
    return cudaSuccess;
}

// Dynamic shared memory of a launch: A v_c (double), the slice's rows past the registers', V.
static size_t resident_shared(int dbl, int n, int rows_cap, int cols) {
    const size_t elem = dbl ? sizeof(double) : sizeof(float);
    return (size_t)rows_cap * (size_t)(cols + 1) * sizeof(double) +
           resident_slice_bytes(elem, n, rows_cap) + (size_t)rows_cap * (size_t)(cols + 1) * elem;
}

extern "C" int ps_cuda_resident_fits(const ps_cuda_resident_limits *lim, int dbl, int n, int cols) {
    if (lim->blocks < 1 || n < 1 || n > PS_CUDA_RESIDENT_MAX_N || cols < 1 ||
        cols > PS_CUDA_RESIDENT_MAX_K)
        return 0;
    const int rows_cap = (n + lim->blocks - 1) / lim->blocks;
    return rows_cap <= PS_CUDA_RESIDENT_MAX_ROWS &&
           resident_shared(dbl, n, rows_cap, cols) <= lim->max_shared;
}

extern "C" size_t ps_cuda_resident_partial_doubles(const ps_cuda_resident_limits *lim) {
    return 2 * (size_t)kStepSums * (size_t)(lim->blocks > 0 ? lim->blocks : 1) +
           PS_CUDA_RESIDENT_MAX_N;
}

extern "C" cudaError_t
ps_cuda_launch_arnoldi_resident(cudaStream_t s, int dbl, const ps_cuda_resident_limits *lim, int n,
                                const void *a, int lda, const void *dinv, void *v, int ldv, int j0,
                                int j1, void *col, int col_stride, void *host_out, double *partial,
                                const int *cancel, int generation, int *mark,
                                const ps_cuda_resident_restart *restart) {
    if (j1 <= j0) return cudaSuccess;
    if (j0 < 0 || !ps_cuda_resident_fits(lim, dbl, n, j1) || (restart && j0 != 0))
        return cudaErrorInvalidValue;
    ps_cuda_resident_restart start = {NULL, NULL, {0, {0}}};
    if (restart) start = *restart;
    int rows_cap = (n + lim->blocks - 1) / lim->blocks;
    int smem_rows = rows_cap > kRegRows ? rows_cap - kRegRows : 0;
    int sld = n | 1; // odd: a column's rows fall in different banks when loaded
    const size_t shared = resident_shared(dbl, n, rows_cap, j1);
    const int blocks = (n + rows_cap - 1) / rows_cap;
    // the first pass's result every block reads whole, after the reductions' regions
    void *w1 = partial + 2 * (size_t)kStepSums * (size_t)lim->blocks;
    void *args[] = {&n,       &a,   &lda,        &dinv,       &v,        &ldv,       &j0,
                    &j1,      &col, &col_stride, &host_out,   &rows_cap, &smem_rows, &sld,
                    &partial, &w1,  &cancel,     &generation, &mark,     &start};
    return cudaLaunchCooperativeKernel(dbl ? resident_kernels[0] : resident_kernels[1],
                                       dim3((unsigned)blocks), dim3(kThreads), args, shared, s);
}
