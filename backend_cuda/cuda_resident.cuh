// What the kernels with a matrix resident on the chip share (cuda_iter_resident.cu: GMRES's
// Arnoldi steps; cuda_cg_resident.cu: CG's steps): one cooperative block per SM holds its slice of
// A's rows for a whole launch, so a product reads no matrix from L2 or HBM at all; a step costs
// its grid-wide syncs and a little arithmetic. At n = 2000 in double the 32 MB matrix fits the
// 132 SMs of an H100 or H200 (about 200 KB of shared memory and 32 KB of registers each).
//
// Block b takes rows [b rows_cap, (b + 1) rows_cap): the first kRegRows in registers (thread t
// holding columns t, t + kThreads, ...), the rest in shared memory, row-major. The products
// need no reduction across blocks (each block owns whole rows); the dot products do. Every
// reduction sums the blocks' values in a fixed order, the same in every block, so all blocks
// take the same decisions and the result does not depend on timing.
#ifndef PS_BACKEND_CUDA_RESIDENT_CUH
#define PS_BACKEND_CUDA_RESIDENT_CUH

#include "cuda_iter_common.cuh"

namespace {

constexpr int kThreads = PS_CUDA_RESIDENT_THREADS;
constexpr int kWarps = kThreads / 32;
constexpr int kCols = PS_CUDA_RESIDENT_MAX_N / kThreads; // columns of A a thread holds
constexpr int kRegRows = 4;                              // rows of a slice in registers
constexpr int kMaxRows = PS_CUDA_RESIDENT_MAX_ROWS;
static_assert(kCols * kThreads == PS_CUDA_RESIDENT_MAX_N, "a thread's columns cover the order");

// One halving of warp_total_rows: lanes whose bit Half * 2 is set keep the upper Half values
// and receive them from the partner lane, which keeps the lower ones.
template <int Half> __device__ __forceinline__ void halve_rows(double (&acc)[kMaxRows]) {
    const bool upper = threadIdx.x & (2 * Half);
#pragma unroll
    for (int i = 0; i < Half; i++) {
        // values first, then selects (a select of the elements' addresses would put acc in
        // local memory)
        const double lo = acc[i], hi = acc[i + Half];
        const double keep = upper ? hi : lo, give = upper ? lo : hi;
        acc[i] = keep + __shfl_xor_sync(0xffffffffu, give, 2 * Half);
    }
}

// The sums over a warp's lanes of kMaxRows values each, in 16 shuffles instead of 5 per value
// (each exchange halves the values a lane carries): afterwards lanes 2r and 2r + 1 hold row r's.
__device__ __forceinline__ double warp_total_rows(double (&acc)[kMaxRows]) {
    static_assert(kMaxRows == 16, "the halvings below are written for 16 rows");
    halve_rows<8>(acc);
    halve_rows<4>(acc);
    halve_rows<2>(acc);
    halve_rows<1>(acc);
    return acc[0] + __shfl_xor_sync(0xffffffffu, acc[0], 1);
}

// The values every block published to region (region[c * gridDim.x + b], c < cols) combined
// over the blocks into out[c], in a fixed order, the same in every block. A warp takes
// kGatherCols values a round (c, c + kWarps, ...), every load of a round in flight before it
// sums: up to 48 values in one round of loads, the first `rounded` of them rounded to T (the
// projections, as orthonormalize rounds them). The loads are predicated, not branched around:
// an earlier form that chose between a load and a constant per element measured 4 us for one
// value on an H100, against 0.7 us for this one (docs/PERFORMANCE.md).
constexpr int kGatherCols = 3;
template <typename Op, typename T = double>
__device__ __forceinline__ void grid_gather(const double *region, int cols, double *out,
                                            int rounded = 0) {
    const int g = gridDim.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    constexpr int kPerLane = (PS_CUDA_RESIDENT_MAX_BLOCKS + 31) / 32;
    for (int c0 = warp; c0 < cols; c0 += kGatherCols * kWarps) {
        double got[kGatherCols][kPerLane];
#pragma unroll
        for (int r = 0; r < kGatherCols; r++) {
            const int c = c0 + r * kWarps;
            const double *rc = region + (size_t)c * g;
#pragma unroll
            for (int i = 0; i < kPerLane; i++) {
                const int blk = lane + 32 * i;
                got[r][i] = blk < g && c < cols ? __ldcg(rc + blk) : Op::init();
            }
        }
#pragma unroll
        for (int r = 0; r < kGatherCols; r++) {
            double s = got[r][0];
#pragma unroll
            for (int i = 1; i < kPerLane; i++) s = Op::apply(s, got[r][i]);
            s = warp_combine<Op>(s);
            const int c = c0 + r * kWarps;
            if (lane == 0 && c < cols) out[c] = c < rounded ? (double)(T)s : s;
        }
    }
}

// This block's value mine[c] to its place in region, for c < cols.
__device__ __forceinline__ void grid_publish(const double *mine, int cols, double *region) {
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        __stcg(region + (size_t)c * gridDim.x + blockIdx.x, mine[c]);
}

// A thread's elements of x for the product (columns t, t + kThreads, ...), read from global
// memory (complete before the call: after a grid sync or a launch boundary), times dinv when
// given (rounded to T, as vmul does).
template <typename T>
__device__ __forceinline__ void load_x(int n, const T *x_global, const T *dinv, T (&x)[kCols]) {
#pragma unroll
    for (int i = 0; i < kCols; i++) {
        const int c = (int)threadIdx.x + i * kThreads;
        T xi = T(0);
        if (c < n) {
            xi = __ldcg(x_global + c);
            if (dinv) xi = xi * dinv[c];
        }
        x[i] = xi;
    }
}

// load_x in two parts, so that the loads can be in flight while other work goes on: the raw
// elements first (nothing waits for them here), then, where x is used, times dinv.
template <typename T>
__device__ __forceinline__ void fetch_x(int n, const T *x_global, T (&x)[kCols]) {
#pragma unroll
    for (int i = 0; i < kCols; i++) {
        const int c = (int)threadIdx.x + i * kThreads;
        x[i] = c < n ? __ldcg(x_global + c) : T(0);
    }
}

template <typename T> __device__ __forceinline__ void scale_x(int n, const T *dinv, T (&x)[kCols]) {
    if (!dinv) return;
#pragma unroll
    for (int i = 0; i < kCols; i++) {
        const int c = (int)threadIdx.x + i * kThreads;
        if (c < n) x[i] = x[i] * dinv[c];
    }
}

// The block's rows of the product A x (rows values into y, rounded to T), x from load_x. ra: the
// registers' rows; sa: the rest, leading dimension sld. warp_rows: kMaxRows x kWarps doubles.
template <typename T>
__device__ __forceinline__ void block_product(int n, int rows, const T (&ra)[kRegRows][kCols],
                                              const T *sa, int sld, const T (&x)[kCols],
                                              double *warp_rows, double *y) {
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    double acc[kMaxRows];
#pragma unroll
    for (int q = 0; q < kMaxRows; q++) {
        double s = 0;
        if (q < kRegRows) {
#pragma unroll
            for (int i = 0; i < kCols; i++) s += (double)ra[q < kRegRows ? q : 0][i] * (double)x[i];
        } else if (q < rows) { // the same in every thread of the block
            const T *row = sa + (size_t)(q - kRegRows) * sld;
#pragma unroll
            for (int i = 0; i < kCols; i++) {
                const int c = t + i * kThreads;
                if (c < n) s += (double)row[c] * (double)x[i];
            }
        }
        acc[q] = s;
    }
    const double mine = warp_total_rows(acc);
    if ((lane & 1) == 0) warp_rows[(lane >> 1) * kWarps + warp] = mine;
    __syncthreads();
    if (t < 32) { // lane pair 2r, 2r + 1 sums row r's warps, half each
        const int r = t >> 1;
        double s = 0;
        for (int w = t & 1; w < kWarps; w += 2) s += warp_rows[r * kWarps + w];
        s += __shfl_xor_sync(0xffffffffu, s, 1);
        if ((t & 1) == 0 && r < rows) y[r] = (double)(T)s;
    }
    __syncthreads();
}

// The first kRegRows of a block's rows rows of A (at a, leading dimension lda) into registers:
// thread t's columns t, t + kThreads, ... (zeros past the rows and the order).
template <typename T>
__device__ __forceinline__ void load_register_rows(int n, int rows, const T *a, int lda,
                                                   T (&ra)[kRegRows][kCols]) {
#pragma unroll
    for (int r = 0; r < kRegRows; r++)
#pragma unroll
        for (int i = 0; i < kCols; i++) {
            const int c = (int)threadIdx.x + i * kThreads;
            ra[r][i] = r < rows && c < n ? a[(size_t)r + (size_t)c * lda] : T(0);
        }
}

// The rows x cols block at src (leading dimension lds) into shared memory at dst: row-major
// (dst[q * ldd + c]) or column-major (dst[c * ldd + q]). Consecutive threads read consecutive
// rows of a column (contiguous in src), kLoadBatch loads in flight per thread before any store:
// a load and its store per iteration kept one load in flight, and the launch's load of A's
// slice took most of its time.
constexpr int kLoadBatch = 8;
template <typename T>
__device__ __forceinline__ void load_slice(int rows, int cols, const T *src, int lds, T *dst,
                                           int ldd, bool row_major) {
    const int total = rows * cols;
    for (int e0 = (int)threadIdx.x; e0 < total; e0 += kThreads * kLoadBatch) {
        T got[kLoadBatch];
#pragma unroll
        for (int u = 0; u < kLoadBatch; u++) {
            const int e = e0 + u * kThreads, c = e / rows, q = e - c * rows;
            got[u] = e < total ? src[(size_t)q + (size_t)c * lds] : T(0);
        }
#pragma unroll
        for (int u = 0; u < kLoadBatch; u++) {
            const int e = e0 + u * kThreads, c = e / rows, q = e - c * rows;
            if (e < total) dst[row_major ? (size_t)q * ldd + c : (size_t)c * ldd + q] = got[u];
        }
    }
}

// Dynamic shared memory of a slice's rows past the registers' (n columns, leading dimension
// n | 1), in elements of elem bytes.
__host__ __device__ inline size_t resident_slice_bytes(size_t elem, int n, int rows_cap) {
    const int smem_rows = rows_cap > kRegRows ? rows_cap - kRegRows : 0;
    return (size_t)smem_rows * (size_t)(n | 1) * elem;
}

} // namespace

#endif
