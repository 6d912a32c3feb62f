// y += alpha A x with A float and x, y double, every product and sum in double (the vtable's
// gemv_mixed: the off-diagonal products of GMRES-IR's blocked triangular solves,
// core/refine/trsv_blocked.c). cuBLAS has no such mixed product: SGEMV would accumulate in float,
// which loses what the preconditioner's double arithmetic is for, and DGEMV would need the factors
// widened, twice the bytes.
//
// A block is a tile of rows, four a lane (one 16-byte load per column, so a warp reads 512
// contiguous bytes of a column) where the columns are aligned, else one a lane (a 128-byte
// segment); its warps split the columns (warp w takes w, w + W, ...), eight loads in flight per
// lane, and their partial sums meet in shared memory, added in warp order, so the result does not
// depend on timing. Two ways to fill the device:
// - Slices (Hopper's thread-block clusters): the tile's columns are cut into up to eight slices,
//   a block each, one cluster per tile; the slices' sums meet in the first block's through
//   distributed shared memory, added in slice order. Tiles times slices is chosen to be about
//   three blocks an SM, whatever the rows (measured per shape; a
//   trace, H200, n = 32768, blocks of 2048, had put whole-column tiles at 3.2 TB/s, in 1.5-2
//   waves).
// - Without clusters: whole columns a block, the warps per block chosen so that the grid fills
//   the device (about 64 warps per SM) whether the panel is tall or short.
//
#include <cooperative_groups.h>
#include <cstdint>

#include "cuda_device.cuh"
#include "cuda_internal.h"

namespace cg = cooperative_groups;

namespace {

constexpr int kUnroll = 8;
constexpr int kSliceWarps = 8;     // warps of a block when the columns are sliced
constexpr int kBlocksPerSm = 4;    // of kSliceWarps each, at 64 registers a thread
constexpr int kMinSliceCols = 256; // a warp's share of a slice at least 32 columns

// Vec consecutive rows of column col from row0 on, as floats: one 16-byte load where the tile is
// whole (the caller guarantees the alignment), else one guarded load a row.
template <int Vec>
__device__ __forceinline__ void load_rows(const float *__restrict__ col, int row0, int m,
                                          float (&out)[Vec]) {
    if constexpr (Vec == 4) {
        if (row0 + 4 <= m) {
            float4 v = __ldg(reinterpret_cast<const float4 *>(col + row0));
            out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
            return;
        }
    }
#pragma unroll
    for (int r = 0; r < Vec; r++) out[r] = row0 + r < m ? __ldg(col + row0 + r) : 0.f;
}

// A block: a tile of 32 Vec rows (a lane Vec consecutive rows) and the columns of its slice, split
// among its warps (warp w takes the slice's columns w, w + Warps, ...). Sliced: the grid is
// `slices` blocks a tile, launched as clusters of `slices` (block b is slice b % slices of tile
// b / slices, its cluster rank).
//
// Ahead (sliced only; launched as a programmatic dependent of the kernel before it, on a matrix no
// queued work writes): each warp loads its first group of columns, then waits for that kernel
// before it reads x or y. The sums are taken in the same order either way.
template <int Warps, int Vec, bool Sliced, bool Ahead = false>
__global__ void __launch_bounds__(Warps * 32, Sliced ? kBlocksPerSm : 1)
    gemv_mixed_kernel(int m, int k, int slices, double alpha, const float *__restrict__ a,
                      size_t lda, const double *__restrict__ x, size_t incx, double *__restrict__ y,
                      size_t incy) {
    static_assert(Sliced || !Ahead, "launched ahead only as clusters of slices");
    constexpr int Unroll = kUnroll;
    __shared__ double part[Warps][32 * Vec];
    __shared__ double slice_sum[Sliced ? 32 * Vec : 1];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int tile = Sliced ? blockIdx.x / slices : blockIdx.x;
    const int slice = Sliced ? blockIdx.x % slices : 0;
    const int per_slice = (k + slices - 1) / slices, c0 = slice * per_slice;
    const int c1 = min(k, c0 + per_slice);
    const int row0 = (tile * 32 + lane) * Vec;
    double acc[Vec];
#pragma unroll
    for (int r = 0; r < Vec; r++) acc[r] = 0;
    int j = c0 + warp;
    bool first = true;
    if constexpr (Ahead)
        if (j + (Unroll - 1) * Warps >= c1) { // no whole group to load first
            ps_cuda_grid_dependency_wait();
            ps_cuda_launch_dependents();
            first = false;
        }
    for (; j + (Unroll - 1) * Warps < c1; j += Unroll * Warps) {
        float v[Unroll][Vec];
        double xv[Unroll];
#pragma unroll
        for (int u = 0; u < Unroll; u++)
            load_rows<Vec>(a + (size_t)(j + u * Warps) * lda, row0, m, v[u]);
        if (Ahead && first) { // x (and y) may be the kernel before's
            ps_cuda_grid_dependency_wait();
            // only now may the next kernel start: what it reads ahead was final before this one
            ps_cuda_launch_dependents();
            first = false;
        }
#pragma unroll
        for (int u = 0; u < Unroll; u++) xv[u] = __ldg(x + (size_t)(j + u * Warps) * incx);
#pragma unroll
        for (int u = 0; u < Unroll; u++)
#pragma unroll
            for (int r = 0; r < Vec; r++) acc[r] = fma((double)v[u][r], xv[u], acc[r]);
    }
    for (; j < c1; j += Warps) {
        float v[Vec];
        load_rows<Vec>(a + (size_t)j * lda, row0, m, v);
        double xj = __ldg(x + (size_t)j * incx);
#pragma unroll
        for (int r = 0; r < Vec; r++) acc[r] = fma((double)v[r], xj, acc[r]);
    }
#pragma unroll
    for (int r = 0; r < Vec; r++) part[warp][lane * Vec + r] = acc[r];
    __syncthreads();
    // the tile's rows, a thread each, summed over the warps in order
    const int tile_row0 = tile * 32 * Vec;
    if constexpr (!Sliced) {
        for (int t = threadIdx.x; t < 32 * Vec; t += Warps * 32) {
            int row = tile_row0 + t;
            if (row >= m) break;
            double sum = 0;
#pragma unroll
            for (int w = 0; w < Warps; w++) sum += part[w][t];
            y[(size_t)row * incy] += alpha * sum;
        }
    } else {
#if __CUDA_ARCH__ >= 900
        for (int t = threadIdx.x; t < 32 * Vec; t += Warps * 32) {
            double sum = 0;
#pragma unroll
            for (int w = 0; w < Warps; w++) sum += part[w][t];
            slice_sum[t] = sum;
        }
        cg::cluster_group cluster = cg::this_cluster();
        cluster.sync(); // every slice's sums are in its block's shared memory
        if (cluster.block_rank() == 0)
            for (int t = threadIdx.x; t < 32 * Vec; t += Warps * 32) {
                int row = tile_row0 + t;
                if (row >= m) break;
                double sum = 0;
                for (int q = 0; q < slices; q++) sum += cluster.map_shared_rank(slice_sum, q)[t];
                y[(size_t)row * incy] += alpha * sum;
            }
        cluster.sync(); // no block leaves while the first still reads its shared memory
#endif
    }
}

// One call's operands.
struct Product {
    int m, k;
    double alpha;
    const float *a;
    size_t lda;
    const double *x;
    size_t incx;
    double *y;
    size_t incy;
};

template <int Warps, int Vec> cudaError_t launch(cudaStream_t s, const Product &p) {
    int tiles = (p.m + 32 * Vec - 1) / (32 * Vec);
    gemv_mixed_kernel<Warps, Vec, false>
        <<<tiles, Warps * 32, 0, s>>>(p.m, p.k, 1, p.alpha, p.a, p.lda, p.x, p.incx, p.y, p.incy);
    return cudaGetLastError();
}

template <int Vec> cudaError_t launch_filled(cudaStream_t s, int sms, const Product &p) {
    int tiles = (p.m + 32 * Vec - 1) / (32 * Vec), want = 64 * sms; /* warps that fill the device */
    if (tiles * 4 >= want) return launch<4, Vec>(s, p);
    if (tiles * 8 >= want) return launch<8, Vec>(s, p);
    if (tiles * 16 >= want) return launch<16, Vec>(s, p);
    return launch<32, Vec>(s, p);
}

template <int Vec>
cudaError_t launch_sliced(cudaStream_t s, int tiles, int slices, bool ahead, const Product &p) {
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[2];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)slices;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    attr[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[1].val.programmaticStreamSerializationAllowed = 1;
    config.gridDim = dim3((unsigned)(tiles * slices));
    config.blockDim = dim3(kSliceWarps * 32);
    config.stream = s;
    config.attrs = attr;
    config.numAttrs = ahead ? 2 : 1;
    auto kernel = ahead ? gemv_mixed_kernel<kSliceWarps, Vec, true, true>
                        : gemv_mixed_kernel<kSliceWarps, Vec, true, false>;
    return cudaLaunchKernelEx(&config, kernel, p.m, p.k, slices, p.alpha, p.a, p.lda, p.x, p.incx,
                              p.y, p.incy);
}

cudaError_t launch_product(cudaStream_t s, int sms, int max_slices, bool ahead, const Product &p) {
    if (p.m <= 0 || p.k <= 0) return cudaSuccess;
    int aligned = ((uintptr_t)p.a & 15) == 0 && p.lda % 4 == 0;
    int most = p.k / kMinSliceCols; // slices of at least 32 columns a warp
    if (most > max_slices) most = max_slices;
    if (most >= 2) {
        // four rows a lane where the columns are aligned, and slices enough for about three
        // blocks an SM (at least two): on an H200 at k = 2048, m = 2048 / 4096 /
        // 6144 took 7.7 / 10.4 / 14.4 us in eight slices of four rows a lane against 10.8 /
        // 18.1 / 21.8 us with a row a lane and four to eight, and m = 12288 29.3 us in four
        // slices against 35.5 in eight; m = 30720, two slices, 62.8 us (four: 66.2)
        const int vec = aligned ? 4 : 1;
        const int tiles = (p.m + 32 * vec - 1) / (32 * vec);
        int slices = 3 * sms / tiles;
        if (slices > most) slices = most;
        if (slices < 2) slices = 2;
        return vec == 4 ? launch_sliced<4>(s, tiles, slices, ahead, p)
                        : launch_sliced<1>(s, tiles, slices, ahead, p);
    }
    /* four rows a lane (one 16-byte load a column) where the columns are 16-byte aligned and
     * there are rows enough for half the device's warps in tiles of 128 rows; else a row a lane */
    if (aligned && (p.m + 127) / 128 * 32 * 2 >= 64 * sms) return launch_filled<4>(s, sms, p);
    return launch_filled<1>(s, sms, p);
}

} // namespace

extern "C" cudaError_t ps_cuda_gemv_mixed_init(int device, int *max_slices) {
    *max_slices = 1;
    int can = 0, major = 0;
    cudaError_t err = cudaDeviceGetAttribute(&can, cudaDevAttrClusterLaunch, device);
    if (!err) err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (err || !can || major < 9) return err;
    const void *kernels[] = {(const void *)gemv_mixed_kernel<kSliceWarps, 1, true>,
                             (const void *)gemv_mixed_kernel<kSliceWarps, 4, true>};
    for (const void *kernel : kernels) { // built for this device, not an older one?
        cudaFuncAttributes fa;
        err = cudaFuncGetAttributes(&fa, kernel);
        if (err) return err;
        if (fa.binaryVersion < 90 && fa.ptxVersion < 90) return cudaSuccess;
    }
    *max_slices = PS_CUDA_GEMV_MIXED_MAX_SLICES; // eight blocks: a portable cluster
    return cudaSuccess;
}

extern "C" cudaError_t ps_cuda_launch_gemv_mixed(cudaStream_t s, int sms, int max_slices, int m,
                                                 int k, double alpha, const float *a, int lda,
                                                 const double *x, int incx, double *y, int incy,
                                                 int ahead) {
    Product p = {m, k, alpha, a, (size_t)lda, x, (size_t)incx, y, (size_t)incy};
    return launch_product(s, sms, max_slices, ahead != 0, p);
}
