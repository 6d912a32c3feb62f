// y = alpha A x + beta y for short columns (m <= PS_CUDA_GEMV_MAX_ROWS) and contiguous vectors.
//
// cuBLAS's DGEMV gives an n = 2000 matrix 63 blocks on an H100's 132 SMs (32 rows each): 13 us,
// 2.2-2.4 TB/s, and the iterative solvers read that matrix every iteration. Here a block is a
// 32-row tile of A (a lane a row, so every load is a coalesced 256-byte column segment, 8 in
// flight per lane), its warps splitting the columns, in one of two shapes:
// - fewer tiles than half the SMs: blocks of 8 warps on a slice of the columns each, as many
//   slices as keep the grid within four blocks per SM (what fits at 64 registers a thread; with
//   the slices rounded up, a few blocks ran in a second wave: 29.4 against 24.8 us at n = 3000
//   on an H200). The slices' sums meet in a per-lane scratch: the last block of a row tile to
//   finish (a ticket per tile) adds them in slice order, so the result does not depend on which
//   block finished when.
// - up to one tile per SM: one block of 32 warps per tile, all the columns, no slices to meet:
//   one wave, without the tickets' fence, atomic and reads of the slices' sums at the end.
//
// Measured on an H100 (docs/PERFORMANCE.md), per CG iteration (this product and
// cg_step): n = 2000 20.4 -> 17 us; but from n = 3000 on cuBLAS's kernel was faster, so it took
// up to 2048 rows. With the launch ahead (below) and the shapes above (H200, GB/s
// per product over DGEMV's): GMRES 0.68 -> 0.75 at 3000 and 0.78 -> 0.90 at 4096, CG 0.80 at
// 3000 either way and 0.86 -> 0.93 at 4096; so it takes columns up to 32 rows per SM (one wave of
// the second shape: 4224 on 132 SMs; cuda_backend.c).
//
// On a matrix the caller holds constant (hold_matrix: the iterative solvers' A) the kernel is
// launched ahead: as a programmatic dependent of the step kernel before it, each lane loads its
// first kAhead elements of A while that kernel still runs and waits for it only to read x. The
// sums are taken in the same order either way.
//
// On such a matrix larger than the L2 cache, a fixed share of its lines (about half the L2's
// size; the fraction, `keep`, is chosen by the caller) is loaded with the L2 eviction priority
// evict_last and the rest with evict_first, so that share stays in L2 from one product to the
// next instead of every line being evicted before its next use (the cyclic access defeats
// LRU). H100, repeated products, n = 2500 / 3000 / 4096: 24.2 / 31.3 / 49.9 us with plain loads,
// 17.9 / 25.4 / 43.5 with 20-28 MB kept, cuBLAS DGEMV 20.0 / 27.6 / 47.9 (docs/PERFORMANCE.md).
// Without a set-aside of persisting L2 lines the hint still works; the priority
// outlives the kernel, so the caller's release of the held matrix puts it back to normal
// (ps_cuda_launch_l2_normal).
#include "cuda_device.cuh"
#include "cuda_internal.h"

namespace {

constexpr int kSliceWarps = 8, kTileWarps = 32, kRows = 32, kUnroll = 8, kAhead = 16;

// The L2 policy that keeps the share `keep` of the lines loaded with it (see above).
__device__ __forceinline__ unsigned long long keep_policy(float keep) {
    unsigned long long pol = 0;
#if __CUDA_ARCH__ >= 800
    asm volatile("createpolicy.fractional.L2::evict_last.L2::evict_first.b64 %0, %1;"
                 : "=l"(pol)
                 : "f"(keep));
#else
    (void)keep;
#endif
    return pol;
}

// An element of A: with Keep, under the L2 policy pol.
template <bool Keep, typename T>
__device__ __forceinline__ T load_a(const T *p, unsigned long long pol) {
#if __CUDA_ARCH__ >= 800
    if constexpr (Keep) {
        T v;
        if constexpr (sizeof(T) == sizeof(double))
            asm volatile("ld.global.L2::cache_hint.f64 %0, [%1], %2;" : "=d"(v) : "l"(p), "l"(pol));
        else
            asm volatile("ld.global.L2::cache_hint.f32 %0, [%1], %2;" : "=f"(v) : "l"(p), "l"(pol));
        return v;
    }
#endif
    (void)pol;
    return *p;
}

template <typename T, bool Ahead, bool Keep, int kWarps>
__global__ void __launch_bounds__(kWarps * 32)
    gemv_n_kernel(int m, int n, T alpha, const T *a, int lda, const T *x, T beta, T *y, T *partial,
                  unsigned *tickets, float keep, int triangle) {
    __shared__ T sums[kWarps][kRows];
    const unsigned long long pol = Keep ? keep_policy(keep) : 0;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row = blockIdx.x * kRows + lane, slices = gridDim.y;
    const int per_slice = (n + slices - 1) / slices, c0 = blockIdx.y * per_slice;
    const int c1 = min(n, c0 + per_slice);
    const int per_warp = (c1 - c0 + kWarps - 1) / kWarps;
    int w0 = c0 + warp * per_warp, w1 = min(c1, w0 + per_warp);
    // a triangle's tile reads only the columns that meet it (the rest are zeros, see
    // ps_cuda_launch_gemv_n): up to its last row (lower), from its first (upper)
    if (triangle == PS_CUDA_GEMV_LOWER) w1 = min(w1, (int)blockIdx.x * kRows + kRows);
    if (triangle == PS_CUDA_GEMV_UPPER) w0 = max(w0, (int)blockIdx.x * kRows);
    T acc = 0;
    int c = w0;
    if (Ahead) { // the first kAhead columns' elements before the wait, summed in the same order
        T av[kAhead];
#pragma unroll
        for (int u = 0; u < kAhead; u++)
            av[u] =
                row < m && w0 + u < w1 ? load_a<Keep>(a + row + (size_t)(w0 + u) * lda, pol) : T(0);
        ps_cuda_grid_dependency_wait(); // x (and y, partial, tickets) may be the last kernel's
        // Only now may the next kernel start: everything before this one has finished, so what
        // that kernel reads ahead (the rule is: not this kernel's output) is final.
        ps_cuda_launch_dependents();
#pragma unroll
        for (int u = 0; u < kAhead; u++)
            if (w0 + u < w1) acc += av[u] * x[w0 + u];
        c = w0 + kAhead;
    }
    if (row < m) {
        const T *ar = a + row;
        for (; c + kUnroll <= w1; c += kUnroll) {
            T av[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; u++) av[u] = load_a<Keep>(ar + (size_t)(c + u) * lda, pol);
#pragma unroll
            for (int u = 0; u < kUnroll; u++) acc += av[u] * x[c + u];
        }
        for (; c < w1; c++) acc += load_a<Keep>(ar + (size_t)c * lda, pol) * x[c];
    }
    sums[warp][lane] = acc;
    __syncthreads();
    if (warp != 0) return;
    T s = 0;
    for (int w = 0; w < kWarps; w++) s += sums[w][lane];
    if (slices == 1) {
        if (row < m) y[row] = beta == T(0) ? alpha * s : alpha * s + beta * y[row];
        return;
    }
    if (row < m) partial[(size_t)blockIdx.y * m + row] = s;
    __threadfence(); // this slice's sums are visible before its ticket is
    __syncwarp();
    unsigned ticket = 0;
    if (lane == 0) ticket = atomicAdd(tickets + blockIdx.x, 1u);
    ticket = __shfl_sync(0xffffffffu, ticket, 0);
    if (ticket != (unsigned)slices - 1) return;
    __threadfence();
    if (row < m) { // the last slice of this row tile: all slices' sums, in slice order
        T t = 0;
        for (int q = 0; q < slices; q++) t += __ldcg(partial + (size_t)q * m + row);
        y[row] = beta == T(0) ? alpha * t : alpha * t + beta * y[row];
    }
    if (lane == 0) tickets[blockIdx.x] = 0; // ready for the next launch on this lane
}

// The kernel for a shape, launched ahead or not, with the L2 policy or not.
template <typename T, bool Ahead, bool Keep>
void (*pick(bool tile_blocks))(int, int, T, const T *, int, const T *, T, T *, T *, unsigned *,
                               float, int) {
    return tile_blocks ? gemv_n_kernel<T, Ahead, Keep, kTileWarps>
                       : gemv_n_kernel<T, Ahead, Keep, kSliceWarps>;
}

template <typename T>
cudaError_t launch(cudaStream_t s, int sms, int m, int n, T alpha, const T *a, int lda, const T *x,
                   T beta, T *y, void *partial, unsigned *tickets, int ahead, float keep,
                   int triangle) {
    const int tiles = (m + kRows - 1) / kRows;
    const bool tile_blocks = 2 * tiles >= sms && tiles <= sms; // the second shape (see above)
    int slices = 1;
    if (!tile_blocks) {
        // at most four blocks per SM, each warp at least 32 columns
        slices = 4 * sms / tiles;
        const int most = n / (kSliceWarps * 32);
        if (slices > most) slices = most;
        if (slices > PS_CUDA_GEMV_MAX_SLICES) slices = PS_CUDA_GEMV_MAX_SLICES;
        if (slices < 1) slices = 1;
    }
    const dim3 grid((unsigned)tiles, (unsigned)slices);
    const int threads = (tile_blocks ? kTileWarps : kSliceWarps) * 32;
    T *part = static_cast<T *>(partial);
    const bool kept = keep > 0;
    auto kernel =
        ahead ? (kept ? pick<T, true, true>(tile_blocks) : pick<T, true, false>(tile_blocks))
              : (kept ? pick<T, false, true>(tile_blocks) : pick<T, false, false>(tile_blocks));
    if (!ahead) {
        kernel<<<grid, threads, 0, s>>>(m, n, alpha, a, lda, x, beta, y, part, tickets, keep,
                                        triangle);
        return cudaGetLastError();
    }
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    config.gridDim = grid;
    config.blockDim = dim3(threads);
    config.stream = s;
    config.attrs = attr;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, kernel, m, n, alpha, a, lda, x, beta, y, part, tickets, keep,
                              triangle);
}

// Puts the L2 lines of bytes at p back to the normal eviction priority (a no-op for lines not
// in L2).
__global__ void l2_normal_kernel(const char *p, size_t bytes) {
    const size_t step = (size_t)gridDim.x * blockDim.x * 128;
    for (size_t off = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 128; off < bytes;
         off += step) {
#if __CUDA_ARCH__ >= 800
        asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p + off) : "memory");
#endif
    }
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_gemv_n(cudaStream_t s, int dbl, int sms, int m, int n,
                                             const void *alpha, const void *a, int lda,
                                             const void *x, const void *beta, void *y,
                                             void *partial, unsigned *tickets, int ahead,
                                             float keep, int triangle) {
    if (dbl)
        return launch(s, sms, m, n, *static_cast<const double *>(alpha),
                      static_cast<const double *>(a), lda, static_cast<const double *>(x),
                      *static_cast<const double *>(beta), static_cast<double *>(y), partial,
                      tickets, ahead, keep, triangle);
    return launch(s, sms, m, n, *static_cast<const float *>(alpha), static_cast<const float *>(a),
                  lda, static_cast<const float *>(x), *static_cast<const float *>(beta),
                  static_cast<float *>(y), partial, tickets, ahead, keep, triangle);
}

extern "C" cudaError_t ps_cuda_launch_l2_normal(cudaStream_t s, int sms, const void *p,
                                                size_t bytes) {
    if (bytes == 0) return cudaSuccess;
    // whole 128-byte lines, from the one p lies in
    const size_t lead = (size_t)p & 127;
    l2_normal_kernel<<<(unsigned)(2 * sms), 256, 0, s>>>((const char *)p - lead, bytes + lead);
    return cudaGetLastError();
}
