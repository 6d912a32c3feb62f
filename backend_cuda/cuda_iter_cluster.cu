// GMRES's orthonormalize for short vectors on one thread-block cluster (Hopper and later: up to
// 16 blocks on as many SMs, each able to read the others' shared memory). A reduction then costs
// a cluster barrier and a few distributed-shared-memory reads, where the grid-wide kernel
// (cuda_iter_kernels.cu) pays a round trip through global memory and a grid-wide sync. At the
// short lengths where the product itself takes 10-70 us (n = 2000-5000) those costs were a large
// part of each Arnoldi step (docs/PERFORMANCE.md, sessions 20 and 24).
//
// Each block takes a contiguous slice of the rows: it keeps its slice of w in shared memory for
// the whole call and, when it fits, its slice of V too, so V is read from global memory once
// instead of four times (two products and two updates).
#include "cuda_iter_common.cuh"

namespace {

constexpr int kThreads = PS_CUDA_CLUSTER_THREADS;
constexpr int kWarps = kThreads / 32;
// Shared memory a block may use for its slices of w and V (the rest of the SM's 227 KB holds
// the static arrays).
constexpr size_t kSliceBytes = 192 << 10;

#ifdef PS_CUDA_HAS_CLUSTERS
__device__ double warp_sum(double v) {
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}
#endif

#ifdef PS_CUDA_HAS_CLUSTERS
// One classical Gram-Schmidt pass on the block's slice ws (rows values) against the slice of V
// at vs (leading dimension ldvs, in shared or global memory), h = V' w then w -= V h, h rounded
// to T and the same in every block. part: this block's k products (k + 1 with sq), read by
// every block through distributed shared memory. sq, when given: ||w||^2 before the update, in
// the same reduction (the second pass's, so that the norm needs no reduction of its own).
template <typename T>
__device__ void cluster_cgs_pass(cg::cluster_group &cluster, int rows, int k, const T *vs,
                                 size_t ldvs, T *ws, double *part, double *h, double *sq) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int dots = sq ? k + 1 : k;            // column k: w itself
    for (int c = warp; c < dots; c += kWarps) { // a warp per column, its lanes down the rows
        const T *vc = c < k ? vs + (size_t)c * ldvs : ws;
        double s = 0;
        for (int i = lane; i < rows; i += 32) s += (double)vc[i] * (double)ws[i];
        s = warp_sum(s);
        if (lane == 0) part[c] = s;
    }
    cluster.sync();
    for (int c = warp; c < dots; c += kWarps) { // every block sums all blocks' products
        const double s = cluster_combine<sum_op>(cluster, part + c, lane);
        if (lane == 0) {
            if (c < k)
                h[c] = (double)(T)s;
            else
                *sq = s;
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        double s = 0;
        for (int c = 0; c < k; c++) s += (double)vs[i + (size_t)c * ldvs] * h[c];
        ws[i] = (T)((double)ws[i] - s);
    }
    __syncthreads();
}
#endif

// GMRES's orthonormalize (core/backend.h) on one cluster; rows_cap: rows per block (the
// slices' length). Dynamic shared memory: the slice of w, then, when cache_v, the slice of V.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    orthonormalize_cluster_kernel(int n, int k, const T *v, int ldv, T *w, T *col, T *host_out,
                                  int rows_cap, int cache_v) {
#ifdef PS_CUDA_HAS_CLUSTERS
    cg::cluster_group cluster = cg::this_cluster();
    extern __shared__ double dyn[]; // double-aligned
    __shared__ double sh[kWarps], bcast[1], slots[3], sq[1];
    __shared__ double part1[PS_CUDA_ORTH_MAX_K], part2[PS_CUDA_ORTH_MAX_K + 1];
    __shared__ double h1[PS_CUDA_ORTH_MAX_K], h2[PS_CUDA_ORTH_MAX_K];
    const int row0 = (int)cluster.block_rank() * rows_cap;
    const int rows = n - row0 < 0 ? 0 : n - row0 < rows_cap ? n - row0 : rows_cap;
    T *ws = (T *)dyn;
    T *cache = cache_v ? ws + ((rows_cap + 1) & ~1) : nullptr; // double-aligned after ws
    const T *vs = v + row0;
    size_t ldvs = (size_t)ldv;
    if (cache) { // every load in flight at once, not a warp's column at a time
        for (int e = threadIdx.x; e < rows * k; e += blockDim.x) {
            const int c = e / rows, i = e - c * rows;
            cache[(size_t)c * rows_cap + i] = vs[i + (size_t)c * ldvs];
        }
        vs = cache;
        ldvs = (size_t)rows_cap;
    }
    // Launched as a programmatic dependent of the kernel before it (the product into w), this
    // block may have started while that kernel was still running: v is not its output
    // (core/backend.h), w is, so wait for it only now.
    ps_cuda_grid_dependency_wait();
    ps_cuda_launch_dependents(); // the next product may load its matrix while this runs
    for (int i = threadIdx.x; i < rows; i += blockDim.x) ws[i] = w[row0 + i];
    __syncthreads();
    if (k > 0) {
        cluster_cgs_pass(cluster, rows, k, vs, ldvs, ws, part1, h1, nullptr);
        cluster_cgs_pass(cluster, rows, k, vs, ldvs, ws, part2, h2, sq);
    }
    cluster_reducer red(slots, sh, bcast);
    // The norm after the second pass without a reduction of its own: ||w - V h2||^2 = ||w||^2 -
    // ||h2||^2 for the orthonormal V, accurate to a few units of the data's precision while the
    // second pass removes at most half of ||w||^2 (it removes rounding-sized parts: after the
    // first pass w is orthogonal to V up to rounding). Otherwise, and for k = 0 or a sum of
    // squares outside double's safe range, normalize's own reductions. Every block decides
    // alike: the reduced values are the same in all of them.
    double removed = 0;
    for (int c = 0; c < k; c++) removed += h2[c] * h2[c];
    T hn;
    if (k > 0 && sq[0] >= 0x1p-960 && sq[0] <= 0x1p960 && removed <= 0.5 * sq[0]) {
        hn = (T)sqrt(sq[0] - removed);
        if (hn > T(0) && (double)hn - (double)hn == 0) {
            const T inv = (T)(1.0 / (double)hn);
            for (int i = threadIdx.x; i < rows; i += blockDim.x) ws[i] *= inv;
        }
    } else {
        hn = normalize<T, kWarps>(red, threadIdx.x, blockDim.x, rows, ws);
    }
    for (int i = threadIdx.x; i < rows; i += blockDim.x) w[row0 + i] = ws[i];
    if (cluster.block_rank() == 0) put_column(k, h1, h2, hn, col, host_out);
    red.finish(); // the other blocks may still be reading this block's part and slots
#else
    (void)n, (void)k, (void)v, (void)ldv, (void)w, (void)col, (void)host_out, (void)rows_cap,
        (void)cache_v;
    __trap();
#endif
}

// The launch of one cluster of `blocks` blocks of kThreads, `shared` bytes of dynamic shared
// memory each; early: as a programmatic dependent of the kernel before it. (Not to be copied:
// config points at attr.)
struct cluster_launch {
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[2];

    cluster_launch(int blocks, size_t shared, int early, cudaStream_t s) {
        attr[0].id = cudaLaunchAttributeClusterDimension;
        attr[0].val.clusterDim.x = (unsigned)blocks;
        attr[0].val.clusterDim.y = 1;
        attr[0].val.clusterDim.z = 1;
        attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        attr[1].val.programmaticStreamSerializationAllowed = 1;
        config.gridDim = dim3((unsigned)blocks);
        config.blockDim = dim3(kThreads);
        config.dynamicSmemBytes = shared;
        config.stream = s;
        config.attrs = attr;
        config.numAttrs = early ? 2 : 1;
    }
    cluster_launch(const cluster_launch &) = delete;
};

const void *cluster_kernels[] = {(const void *)orthonormalize_cluster_kernel<double>,
                                 (const void *)orthonormalize_cluster_kernel<float>};

} // namespace

extern "C" cudaError_t ps_cuda_iter_cluster_init(int device, ps_cuda_iter_limits *out) {
    out->cluster_blocks = 0;
    int can = 0, major = 0;
    cudaError_t err = cudaDeviceGetAttribute(&can, cudaDevAttrClusterLaunch, device);
    if (!err) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (err || !can || major < 9) return err;
    for (const void *kernel : cluster_kernels) { // built for this device, not an older one?
        cudaFuncAttributes fa;
        err = cudaFuncGetAttributes(&fa, kernel);
        if (err) return err;
        if (fa.binaryVersion < 90 && fa.ptxVersion < 90) return cudaSuccess;
        // a device that refuses the sizes asked for keeps the cooperative-grid forms
        if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) ||
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 (int)kSliceBytes)) {
            cudaGetLastError();
            return cudaSuccess;
        }
    }
    // the largest cluster every kernel can run (16 on an H100 where the non-portable size is
    // allowed, else 8), with the largest dynamic shared memory orthonormalize asks for
    for (int blocks = PS_CUDA_CLUSTER_MAX_BLOCKS; blocks >= 2; blocks /= 2) {
        int fits = 1;
        for (const void *kernel : cluster_kernels) {
            cluster_launch l(blocks, kSliceBytes, 0, 0);
            int clusters = 0;
            if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &l.config) != cudaSuccess ||
                clusters < 1)
                fits = 0;
        }
        cudaGetLastError(); // a size the device refuses is not an error here
        if (fits) {
            out->cluster_blocks = blocks;
            return cudaSuccess;
        }
    }
    return cudaSuccess;
}

extern "C" cudaError_t ps_cuda_launch_orthonormalize_cluster(cudaStream_t s, int dbl,
                                                             const ps_cuda_iter_limits *lim, int n,
                                                             int k, const void *v, int ldv, void *w,
                                                             void *col, void *host_out) {
    const int blocks = lim->cluster_blocks;
    const size_t elem = dbl ? sizeof(double) : sizeof(float);
    int rows_cap = (n + blocks - 1) / blocks;
    if (rows_cap < 1) rows_cap = 1;
    const size_t w_bytes = (size_t)((rows_cap + 1) & ~1) * elem;
    if (w_bytes > kSliceBytes) return cudaErrorInvalidValue; // the caller keeps n in range
    int cache_v = w_bytes + (size_t)rows_cap * (size_t)k * elem <= kSliceBytes;
    const size_t shared = w_bytes + (cache_v ? (size_t)rows_cap * (size_t)k * elem : 0);
    void *args[] = {&n, &k, &v, &ldv, &w, &col, &host_out, &rows_cap, &cache_v};
    cluster_launch l(blocks, shared, lim->early, s);
    return cudaLaunchKernelExC(&l.config, dbl ? cluster_kernels[0] : cluster_kernels[1], args);
}
