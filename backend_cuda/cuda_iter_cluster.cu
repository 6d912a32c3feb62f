// GMRES's orthonormalize for short vectors on one thread-block cluster (Hopper and later: up to
// 16 blocks on as many SMs, each able to reach the others' shared memory). A reduction then costs
// a cluster barrier and a few distributed-shared-memory accesses, where the grid-wide kernel
// (cuda_iter_kernels.cu) pays a round trip through global memory and a grid-wide sync. At the
// short lengths where the product itself takes 10-70 us (n = 2000-5000) those costs were a large
// part of each Arnoldi step (docs/PERFORMANCE.md). The blocks' products go
// out by remote stores into every block's inbox and V's slice comes in by bulk copies (each
// call had grown by 0.2-0.3 us per column of V, now 0.1-0.2; GMRES at n = 5000 on an
// H200 0.82 -> 0.85 of DGEMV's bandwidth per product); the stores are asynchronous and counted
// on the receiver's mbarrier, so a block waits for its own inbox instead of a cluster barrier
// (GMRES 2000-2185 -> 2294-2434 GB/s per product at n = 2000, 3381-3448 ->
// 3725-3821 at 3000, +3-5% at 5000-7000, H200).
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
constexpr size_t kSliceBytes = 188 << 10;
// Columns of a block's inbox of products: k projections and ||w||^2.
constexpr int kInboxCols = PS_CUDA_ORTH_MAX_K + 1;

#ifdef PS_CUDA_HAS_CLUSTERS
// The slice of V by the tensor memory accelerator (bulk copies, one per column, completing on an
// mbarrier) instead of a load and a store per element and thread: where the product before this
// kernel is cuBLAS's, which cannot let it start early, that load is on the step's path (n = 5000
// on an H200: 16.5 -> 14.4 us per call at k = 35; docs/PERFORMANCE.md).
__device__ unsigned smem_addr(const void *p) {
    return (unsigned)__cvta_generic_to_shared(p);
}

// An mbarrier expecting one arrival per phase (and the bytes it is told of), visible to the
// cluster and to the bulk copies.
__device__ void barrier_init(unsigned long long *bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// Arrives on bar expecting bytes in all, then queues cols copies of bytes_col bytes each from
// src (column stride ld_bytes) to dst (column stride dst_bytes). One thread.
__device__ void bulk_copy_columns(unsigned long long *bar, void *dst, size_t dst_bytes,
                                  const void *src, size_t ld_bytes, unsigned bytes_col, int cols) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                 "r"(bytes_col * (unsigned)cols)
                 : "memory");
    for (int c = 0; c < cols; c++)
        asm volatile(
            "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], "
            "%2, [%3];" ::"r"(smem_addr((char *)dst + (size_t)c * dst_bytes)),
            "l"((const char *)src + (size_t)c * ld_bytes), "r"(bytes_col), "r"(smem_addr(bar))
            : "memory");
}

// Waits for phase 0 of bar, with the data that completed it visible: the bulk copies' and the
// other blocks' asynchronous stores (hence the cluster scope).
__device__ void barrier_wait(unsigned long long *bar) {
    unsigned done = 0;
    while (!done)
        asm volatile("{\n .reg .pred p;\n"
                     " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0;\n"
                     " selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(smem_addr(bar))
                     : "memory");
}

// Stores v into block rank's copy of *local (shared memory), counting its 8 bytes on that
// block's copy of *bar: the receiver learns the data has come from its own mbarrier, with no
// cluster barrier.
__device__ void push_async(const double *local, const unsigned long long *bar, unsigned rank,
                           double v) {
    unsigned dst, dst_bar;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(dst)
                 : "r"(smem_addr(local)), "r"(rank));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(dst_bar)
                 : "r"(smem_addr(bar)), "r"(rank));
    asm volatile(
        "st.async.shared::cluster.mbarrier::complete_tx::bytes.f64 [%0], %1, [%2];" ::"r"(dst),
        "d"(v), "r"(dst_bar)
        : "memory");
}
#endif

#ifdef PS_CUDA_HAS_CLUSTERS
// One classical Gram-Schmidt pass on the block's slice ws (rows values) against the slice of V
// at vs (leading dimension ldvs, in shared or global memory), h = V' w then w -= V h, h rounded
// to T and the same in every block. Each block sends its k products (k + 1 with sq) to every
// block's inbox (row: the sender) by asynchronous remote stores that count their bytes on the
// receiver's mbarrier bar, and sums its own inbox once its mbarrier says all have come: stores
// go out without waiting, where every block reading every block's products took a remote round
// trip per warp and column, which made each call grow by about 0.2 us per column, and no
// cluster barrier is needed (docs/PERFORMANCE.md). The sums run in the same
// order as cluster_combine's. sq, when given: ||w||^2 before the update, in the same reduction
// (the second pass's, so that the norm needs no reduction of its own).
template <typename T>
__device__ void cluster_cgs_pass(cg::cluster_group &cluster, int rows, int k, const T *vs,
                                 size_t ldvs, T *ws, double (*inbox)[kInboxCols],
                                 unsigned long long *bar, double *h, double *sq) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int dots = sq ? k + 1 : k; // column k: w itself
    const unsigned nb = cluster.num_blocks(), me = cluster.block_rank();
    if (threadIdx.x == 0) // this block's inbox is full once every block's dots have come
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)),
                     "r"((unsigned)(nb * (unsigned)dots * sizeof(double)))
                     : "memory");
    for (int c = warp; c < dots; c += kWarps) { // a warp per column, its lanes down the rows
        const T *vc = c < k ? vs + (size_t)c * ldvs : ws;
        double s = 0;
        for (int i = lane; i < rows; i += 32) s += (double)vc[i] * (double)ws[i];
        s = __shfl_sync(0xffffffffu, warp_combine(s), 0);
        if ((unsigned)lane < nb) push_async(&inbox[me][c], bar, (unsigned)lane, s);
    }
    barrier_wait(bar);
    for (int c = warp; c < dots; c += kWarps) { // this block's sum of all blocks' products
        double s = (unsigned)lane < nb ? inbox[lane][c] : 0.0;
        s = warp_combine(s);
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
    extern __shared__ __align__(16) double dyn[];
    __shared__ unsigned long long bulk_bar, inbox_bar[2];
    __shared__ double sh[kWarps], bcast[1], slots[3], sq[1], removed_sq[1];
    __shared__ double inbox1[PS_CUDA_CLUSTER_MAX_BLOCKS][kInboxCols];
    __shared__ double inbox2[PS_CUDA_CLUSTER_MAX_BLOCKS][kInboxCols];
    __shared__ double h1[PS_CUDA_ORTH_MAX_K], h2[PS_CUDA_ORTH_MAX_K];
    const int row0 = (int)cluster.block_rank() * rows_cap;
    const int rows = n - row0 < 0 ? 0 : n - row0 < rows_cap ? n - row0 : rows_cap;
    T *ws = (T *)dyn;
    T *cache = cache_v ? ws + ((rows_cap + 1) & ~1) : nullptr; // double-aligned after ws
    const T *vs = v + row0;
    size_t ldvs = (size_t)ldv;
    // Bulk copies need 16-byte alignment: V's columns and the slices (rows_cap, set by the
    // launch) are. They bring each column's first bulk_rows rows; the threads load the rest
    // (all of it without bulk copies), every load in flight at once.
    const bool bulk = cache && k > 0 && ((size_t)v & 15) == 0 &&
                      ((size_t)ldv * sizeof(T)) % 16 == 0 &&
                      ((size_t)rows_cap * sizeof(T)) % 16 == 0;
    if (cache) {
        const unsigned bytes_col = bulk ? (unsigned)((size_t)rows * sizeof(T)) & ~15u : 0;
        const int bulk_rows = (int)(bytes_col / sizeof(T)), rest = rows - bulk_rows;
        if (bulk && threadIdx.x == 0) {
            barrier_init(&bulk_bar);
            bulk_copy_columns(&bulk_bar, cache, (size_t)rows_cap * sizeof(T), vs, ldvs * sizeof(T),
                              bytes_col, bytes_col ? k : 0);
        }
        for (int e = threadIdx.x; e < rest * k; e += blockDim.x) {
            const int c = e / rest, i = bulk_rows + (e - c * rest);
            cache[(size_t)c * rows_cap + i] = vs[i + (size_t)c * ldvs];
        }
        vs = cache;
        ldvs = (size_t)rows_cap;
    }
    // The inboxes' mbarriers, ready before any block stores into them (this barrier passes
    // while the product before still runs).
    if (threadIdx.x == 0) {
        barrier_init(&inbox_bar[0]);
        barrier_init(&inbox_bar[1]);
    }
    cluster.sync();
    // Launched as a programmatic dependent of the kernel before it (the product into w), this
    // block may have started while that kernel was still running: v is not its output
    // (core/backend.h), w is, so wait for it only now.
    ps_cuda_grid_dependency_wait();
    ps_cuda_launch_dependents(); // the next product may load its matrix while this runs
    for (int i = threadIdx.x; i < rows; i += blockDim.x) ws[i] = w[row0 + i];
    __syncthreads(); // also: bulk_bar is initialized before anyone waits on it
    if (bulk) barrier_wait(&bulk_bar);
    if (k > 0) {
        cluster_cgs_pass(cluster, rows, k, vs, ldvs, ws, inbox1, &inbox_bar[0], h1, nullptr);
        cluster_cgs_pass(cluster, rows, k, vs, ldvs, ws, inbox2, &inbox_bar[1], h2, sq);
    }
    cluster_reducer red(slots, sh, bcast);
    // The norm after the second pass without a reduction of its own: ||w - V h2||^2 = ||w||^2 -
    // ||h2||^2 for the orthonormal V, accurate to a few units of the data's precision while the
    // second pass removes at most half of ||w||^2 (it removes rounding-sized parts: after the
    // first pass w is orthogonal to V up to rounding). Otherwise, and for k = 0 or a sum of
    // squares outside double's safe range, normalize's own reductions. Every block decides
    // alike: the reduced values are the same in all of them.
    warp_sum_squares(h2, k, removed_sq);
    __syncthreads();
    const double removed = removed_sq[0];
    T hn;
    const bool from_sq = k > 0 && sq[0] >= 0x1p-960 && sq[0] <= 0x1p960 && removed <= 0.5 * sq[0];
    if (from_sq) {
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
    // normalize's reductions read the other blocks' slots, so no block may leave before all have
    // read; the passes only store into other blocks, and each block waited for everything sent
    // to it, so after them alone no block's shared memory is touched once it leaves and none
    // need wait here (one cluster barrier fewer per call; docs/PERFORMANCE.md)
    if (!from_sq) red.finish();
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
    // rows per block a multiple of 16 bytes' elements, so every slice starts 16-byte aligned
    // (the bulk copies of V's slice)
    const int align = 16 / (int)elem;
    int rows_cap = (n + blocks - 1) / blocks;
    rows_cap = (rows_cap + align - 1) / align * align;
    if (rows_cap < 1) rows_cap = 1;
    const size_t w_bytes = (size_t)((rows_cap + 1) & ~1) * elem;
    if (w_bytes > kSliceBytes) return cudaErrorInvalidValue; // the caller keeps n in range
    int cache_v = w_bytes + (size_t)rows_cap * (size_t)k * elem <= kSliceBytes;
    const size_t shared = w_bytes + (cache_v ? (size_t)rows_cap * (size_t)k * elem : 0);
    void *args[] = {&n, &k, &v, &ldv, &w, &col, &host_out, &rows_cap, &cache_v};
    cluster_launch l(blocks, shared, lim->early, s);
    return cudaLaunchKernelExC(&l.config, dbl ? cluster_kernels[0] : cluster_kernels[1], args);
}
