// The iterative solvers' fused kernels: one conjugate-gradient step after q = A p, and GMRES's
// Arnoldi orthonormalization (CGS2 and the norm). Each is one cooperative launch (cg_step on
// short vectors: one block) whose reductions end in a grid-wide sync, so the scalars they need
// (alpha, beta, the norm) are formed on the device and the host never waits in the middle of an
// iteration. Reductions accumulate in double and are summed in a fixed order (per block, then the
// blocks' partials by one warp), so a launch is deterministic for a given grid.
#include "cuda_iter_common.cuh"

#include <cfloat>

namespace {

constexpr int kThreads = PS_CUDA_ITER_THREADS;
constexpr int kWarps = kThreads / 32;

// One CG step as core/backend.h defines cg_step (Chronopoulos and Gear's form: one reduction of
// three values), over this thread's elements first, first + stride, ... u and r may be the same
// vector (then dinv is null and u is never written). host_out: the fetch slot's mapped host
// memory, or null.
template <typename T, int Warps, typename Reducer>
__device__ void cg_step_body(Reducer &red, int first, int stride, int n, const cg_vectors<T> &v,
                             const T *in, T *out, double stop_rr, int last, T *host_out) {
    double sc[PS__CG_SCALARS];
    for (int k = 0; k < PS__CG_SCALARS; k++) sc[k] = in[k];
    if (sc[PS__CG_STOP] != 0) { // no reduction taken: nothing for red.finish to wait for
        if (first == 0) put_scalars(sc, out, host_out);
        return;
    }
    double acc[3] = {0, 0, 0}; // (r, r), (r, u), (w, u)
    for (int i = first; i < n; i += stride) {
        const double ri = v.r[i];
        cg_dots(acc, ri, v.dinv ? (double)v.u[i] : ri, v.w[i]);
    }
    red.template reduce<sum_op, 3, Warps>(acc);
    const cg_decision<T> d = cg_decide<T>(sc, acc, v.dinv != nullptr, stop_rr, last);
    for (int i = first; i < n; i += stride) {
        const T xi = v.x[i];
        if (d.save) v.xbest[i] = xi;
        if (d.update)
            cg_update(v, d, i, xi, v.r[i], v.dinv ? v.u[i] : v.r[i], v.w[i], v.p[i], v.s[i]);
    }
    if (first == 0) put_scalars(sc, out, host_out);
    red.finish();
}

// One CG step on a grid of blocks (Threads each). partial: 3 * gridDim.x doubles.
template <typename T, int Threads>
__global__ void __launch_bounds__(Threads)
    cg_step_kernel(int n, ps_cuda_cg_ptrs ptrs, const T *in, T *out, double stop_rr, int last,
                   double *partial, T *host_out) {
    constexpr int Warps = Threads / 32;
    __shared__ double sh[3 * Warps], bcast[3];
    ps_cuda_grid_dependency_wait(); // w is the product just before (one block: launched early)
    // the next product may now load its matrix while this step runs (not before: it would take
    // SMs the product just before still needs)
    ps_cuda_launch_dependents();
    grid_reducer red(partial, sh, bcast);
    const cg_vectors<T> v(ptrs);
    cg_step_body<T, Warps>(red, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x, n, v,
                           in, out, stop_rr, last, host_out);
}

// The same step on one block of Threads for n <= E * Threads, each thread's elements held in
// registers: everything but w is loaded before the wait, while the product ahead of this
// launched-early step still runs (those vectors were final before the product started; see
// cuda_device.cuh), so after the product ends the step waits for w and one reduction only. The
// arithmetic is cg_step_body's, element for element.
template <typename T, int Threads, int E>
__global__ void __launch_bounds__(Threads)
    cg_step_held_kernel(int n, ps_cuda_cg_ptrs ptrs, const T *in, T *out, double stop_rr, int last,
                        double *partial, T *host_out) {
    constexpr int Warps = Threads / 32;
    __shared__ double sh[3 * Warps], bcast[3];
    const cg_vectors<T> v(ptrs);
    const bool pre = v.dinv != nullptr;
    T x[E], r[E], u[E], p[E], s[E];
    for (int k = 0; k < E; k++) {
        const int i = threadIdx.x + k * Threads;
        if (i >= n) continue;
        x[k] = v.x[i], r[k] = v.r[i], u[k] = pre ? v.u[i] : r[k], p[k] = v.p[i], s[k] = v.s[i];
    }
    double sc[PS__CG_SCALARS];
    for (int k = 0; k < PS__CG_SCALARS; k++) sc[k] = in[k];
    ps_cuda_grid_dependency_wait();
    ps_cuda_launch_dependents();
    if (sc[PS__CG_STOP] != 0) {
        if (threadIdx.x == 0) put_scalars(sc, out, host_out);
        return;
    }
    T w[E];
    double acc[3] = {0, 0, 0}; // (r, r), (r, u), (w, u)
    for (int k = 0; k < E; k++) {
        const int i = threadIdx.x + k * Threads;
        if (i >= n) continue;
        w[k] = v.w[i];
        cg_dots(acc, r[k], u[k], w[k]);
    }
    grid_reducer red(partial, sh, bcast); // one block: no grid sync
    red.template reduce<sum_op, 3, Warps>(acc);
    const cg_decision<T> d = cg_decide<T>(sc, acc, pre, stop_rr, last);
    for (int k = 0; k < E; k++) {
        const int i = threadIdx.x + k * Threads;
        if (i >= n) continue;
        if (d.save) v.xbest[i] = x[k];
        if (d.update) cg_update(v, d, i, x[k], r[k], u[k], w[k], p[k], s[k]);
    }
    if (threadIdx.x == 0) put_scalars(sc, out, host_out);
}

// Block sums of cnt (<= kChunk) values at once, into partial[u * gridDim.x + blockIdx.x].
constexpr int kChunk = 8;
__device__ void block_publish(const double *acc, int cnt, double *partial, double *sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int u = 0; u < kChunk; u++) {
        const double v = warp_combine(acc[u]);
        if (lane == 0) sh[warp * kChunk + u] = v;
    }
    __syncthreads();
    if ((int)threadIdx.x < cnt) {
        double s = 0;
        for (int w = 0; w < kWarps; w++) s += sh[w * kChunk + threadIdx.x];
        partial[threadIdx.x * gridDim.x + blockIdx.x] = s;
    }
    __syncthreads();
}

// One pass of classical Gram-Schmidt: h = V' w (into shared h, rounded to T, the same in every
// block), then w -= V h on this thread's rows. partial: k * gridDim.x doubles.
template <typename T>
__device__ void cgs_pass(cg::grid_group &grid, int n, int k, const T *v, int ldv, T *w,
                         double *partial, double *sh, double *h) {
    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const int g = gridDim.x;
    for (int c0 = 0; c0 < k; c0 += kChunk) {
        const int cnt = k - c0 < kChunk ? k - c0 : kChunk;
        double acc[kChunk] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int i = first; i < n; i += stride) {
            const double wi = w[i];
            for (int u = 0; u < kChunk; u++)
                if (u < cnt) acc[u] += (double)v[i + (size_t)(c0 + u) * ldv] * wi;
        }
        block_publish(acc, cnt, partial + (size_t)c0 * g, sh);
    }
    if (g > 1)
        grid.sync();
    else
        __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int c = warp; c < k; c += kWarps) { // a warp per coefficient, in a fixed order
        double s = 0;
        for (int b = lane; b < g; b += 32) s += __ldcg(partial + (size_t)c * g + b);
        s = warp_combine(s);
        if (lane == 0) h[c] = (double)(T)s;
    }
    __syncthreads();
    for (int i = first; i < n; i += stride) {
        double s = 0;
        for (int c = 0; c < k; c++) s += (double)v[i + (size_t)c * ldv] * h[c];
        w[i] = (T)((double)w[i] - s);
    }
}

// GMRES's orthonormalize (core/backend.h) for k <= PS_CUDA_ORTH_MAX_K: two CGS passes and the
// normalization, three grid-wide syncs in all; block 0 writes the column, and copies it to the
// fetch slot's mapped host memory (host_out, or null). partial: (2k + 3) * gridDim.x doubles.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    orthonormalize_kernel(int n, int k, const T *v, int ldv, T *w, T *col, double *partial,
                          T *host_out) {
    cg::grid_group grid = cg::this_grid();
    __shared__ double sh[kWarps * kChunk], bcast[1], h1[PS_CUDA_ORTH_MAX_K], h2[PS_CUDA_ORTH_MAX_K];
    const size_t g = gridDim.x;
    if (k > 0) {
        cgs_pass(grid, n, k, v, ldv, w, partial, sh, h1);
        cgs_pass(grid, n, k, v, ldv, w, partial + (size_t)k * g, sh, h2);
    }
    grid_reducer red(partial + 2 * (size_t)k * g, sh, bcast);
    const T hn = normalize<T, kWarps>(red, blockIdx.x * blockDim.x + threadIdx.x,
                                      gridDim.x * blockDim.x, n, w);
    if (blockIdx.x == 0) put_column(k, h1, h2, hn, col, host_out);
}

// Vectors up to this length take cg_step as one block of kSmallThreads: no grid-wide sync (two
// per step otherwise), at the price of one SM's bandwidth for the vector passes. H100, per CG
// iteration's matrix-read bandwidth over DGEMV's (docs/PERFORMANCE.md): n = 2000
// 0.60-0.62 -> 0.63, 3000 0.72-0.76 -> 0.79-0.80, 5000 0.88-0.89 -> 0.89-0.90.
constexpr int kSmallThreads = 1024;
constexpr int kSmallCgMax = 6144;
// Up to these lengths the one block holds its elements in registers (cg_step_held_kernel),
// loaded while the product before it still runs: two per thread up to 2048, three up to 3072 (64
// registers, no spill; four spill in double). With two only, CG at n = 3000 read the matrix at
// 0.81 of DGEMV's bandwidth per product on an H100, with three at 0.96 (docs/PERFORMANCE.md).
constexpr int kHeldCgMax2 = 2 * kSmallThreads, kHeldCgMax3 = 3 * kSmallThreads;

int grid_for(const ps_cuda_iter_limits *lim, int n) {
    int blocks = (n + kThreads - 1) / kThreads;
    return blocks < 1 || lim->max_blocks < 1 ? 1
           : blocks > lim->max_blocks        ? lim->max_blocks
                                             : blocks;
}

// A grid of one block needs no cooperative launch (the kernels then sync the block only).
cudaError_t launch(const void *kernel, int blocks, void **args, cudaStream_t s) {
    if (blocks == 1) return cudaLaunchKernel(kernel, dim3(1), dim3(kThreads), args, 0, s);
    return cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(kThreads), args, 0, s);
}

} // namespace

extern "C" cudaError_t ps_cuda_iter_init(int device, ps_cuda_iter_limits *out) {
    int sms = 0, per = 0, least = 1 << 30;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const void *kernels[] = {(const void *)cg_step_kernel<double, kThreads>,
                             (const void *)cg_step_kernel<float, kThreads>,
                             (const void *)orthonormalize_kernel<double>,
                             (const void *)orthonormalize_kernel<float>};
    for (int k = 0; k < 4 && !err; k++) {
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernels[k], kThreads, 0);
        if (per < least) least = per;
    }
    if (err) return err;
    // a few blocks per SM hide the vector loads' latency; more only lengthen the partial sums
    if (least > PS_CUDA_ITER_BLOCKS_PER_SM) least = PS_CUDA_ITER_BLOCKS_PER_SM;
    out->max_blocks = least * sms;
    return cudaSuccess;
}

extern "C" cudaError_t ps_cuda_launch_cg_step(cudaStream_t s, int dbl,
                                              const ps_cuda_iter_limits *lim, int n,
                                              ps_cuda_cg_ptrs v, const void *in, void *out,
                                              double stop_rr, int last, double *partial,
                                              void *host_out) {
    void *args[] = {&n, &v, &in, &out, &stop_rr, &last, &partial, &host_out};
    if (n <= kSmallCgMax) {
        const void *kernel =
            n <= kHeldCgMax2   ? (dbl ? (const void *)cg_step_held_kernel<double, kSmallThreads, 2>
                                      : (const void *)cg_step_held_kernel<float, kSmallThreads, 2>)
            : n <= kHeldCgMax3 ? (dbl ? (const void *)cg_step_held_kernel<double, kSmallThreads, 3>
                                      : (const void *)cg_step_held_kernel<float, kSmallThreads, 3>)
                               : (dbl ? (const void *)cg_step_kernel<double, kSmallThreads>
                                      : (const void *)cg_step_kernel<float, kSmallThreads>);
        if (!lim->early) return cudaLaunchKernel(kernel, dim3(1), dim3(kSmallThreads), args, 0, s);
        // as a programmatic dependent of the product: the launch overlaps its last blocks
        cudaLaunchConfig_t config = {};
        cudaLaunchAttribute attr[1];
        attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[0].val.programmaticStreamSerializationAllowed = 1;
        config.gridDim = dim3(1);
        config.blockDim = dim3(kSmallThreads);
        config.stream = s;
        config.attrs = attr;
        config.numAttrs = 1;
        return cudaLaunchKernelExC(&config, kernel, args);
    }
    const void *kernel = dbl ? (const void *)cg_step_kernel<double, kThreads>
                             : (const void *)cg_step_kernel<float, kThreads>;
    return launch(kernel, grid_for(lim, n), args, s);
}

extern "C" cudaError_t ps_cuda_launch_orthonormalize(cudaStream_t s, int dbl,
                                                     const ps_cuda_iter_limits *lim, int n, int k,
                                                     const void *v, int ldv, void *w, void *col,
                                                     double *partial, void *host_out) {
    if (lim->cluster_blocks > 0 && n <= lim->cluster_max_n)
        return ps_cuda_launch_orthonormalize_cluster(s, dbl, lim, n, k, v, ldv, w, col, host_out);
    void *args[] = {&n, &k, &v, &ldv, &w, &col, &partial, &host_out};
    const void *kernel = dbl ? (const void *)orthonormalize_kernel<double>
                             : (const void *)orthonormalize_kernel<float>;
    return launch(kernel, grid_for(lim, n), args, s);
}

namespace {

// gmres_update_x: x += dinv .* (V(:, 0 .. y.ky) y.y), a warp a row (update_x_row), so a lane
// has one or two loads to wait for; y comes in the arguments, so that the host's y needs no
// upload (which waits for the device). A thread a row summing its ky terms one load at a time
// had cost GMRES 1.5 us a product at n = 2500 on an H100 (docs/PERFORMANCE.md).
template <typename T>
__global__ void update_x_kernel(int n, const T *v, int ldv, const T *dinv, T *x,
                                const ps_cuda_host_y y) {
    const int i = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (i < n) update_x_row((size_t)i, v, ldv, y, dinv, x);
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_update_x(cudaStream_t s, int dbl, int n, const void *v,
                                               int ldv, const void *dinv, void *x,
                                               const ps_cuda_host_y *y) {
    if (n <= 0 || y->ky <= 0) return cudaSuccess;
    const int threads = 256, rows = threads / 32, blocks = (n + rows - 1) / rows;
    if (dbl)
        update_x_kernel<double><<<blocks, threads, 0, s>>>(n, (const double *)v, ldv,
                                                           (const double *)dinv, (double *)x, *y);
    else
        update_x_kernel<float><<<blocks, threads, 0, s>>>(n, (const float *)v, ldv,
                                                          (const float *)dinv, (float *)x, *y);
    return cudaGetLastError();
}
