// Triangular solves with a small triangle (order t <= 64) and many right-hand sides:
// X = alpha inv(T) B (left) or alpha B inv(T) (right), T not transposed.
//
// cuBLAS's dtrsm with a triangle of 128 and 16384 right-hand sides ran at about 1 TFLOP/s on an
// H100 (Gauss-Jordan inversion's solves with U11, docs/PERFORMANCE.md). Every case is
// turned into a forward substitution with a lower triangle L' held in shared memory (reversing
// the order of the unknowns where the substitution runs backwards, and transposing T on the
// right: x T = b is T^T x^T = b^T); L' is padded to the next size of 16, 32 or 64 with identity
// rows, which leave the padded unknowns at zero, and its diagonal holds reciprocals.
// Each vector being solved (a column of B on the left, a row on the right) belongs to a pair of
// threads, which hold its unknowns alternately in registers and run the substitution on it
// alone, the new unknown of each step passed within the pair by a shuffle; all threads of a warp
// read L' at the same one or two places at once. No barrier inside the substitution. Left-side
// columns are staged through shared memory so that global loads and stores stay coalesced;
// right-side rows are coalesced as they are (a warp reads 16 rows of two columns at once).
// The substitution is a chain of dependent steps with little work beside it, so a launch costs
// some 20-40 us whatever the vector count: on an H100, t = 64, 16384 columns took 27 us against
// cuBLAS's 64 (a triangle of 128, split here into two and a GEMM: cuBLAS 302 us), 16384 rows 24
// against 47 us, 8192 columns 23 against 34, 4096 columns 23 against 20, 512 columns 38 against
// 10. So the backend uses it from 8192 vectors (cuda_blas.c). Tried: a thread per vector (32 us
// for 16384 columns, 32 for 8192), and a warp per column with a lane per row (15 us for 64
// columns, 55 us for 16384).
#include "cuda_internal.h"

namespace {

constexpr int kThreads = 128; // the most threads per block (two per vector)

// L' (P x P, lower) packed by columns: column j holds rows j..P-1.
template <int P> constexpr int kPacked = P *(P + 1) / 2;
__host__ __device__ constexpr int packed_at(int P, int i, int j) {
    return j * P - j * (j - 1) / 2 + (i - j);
}

// Fills L'(i, j) = S(r(i), r(j)), S = T or T^T, r(i) = reverse ? t - 1 - i : i, identity beyond
// t, the diagonal inverted (or 1 when unit). T is read in memory order (coalesced), several
// loads in flight per thread. Ends with a barrier.
template <typename T, int P>
__device__ void load_triangle(T *ls, int transposed, int reverse, int unit, int t, const T *a,
                              int lda) {
    const int tid = threadIdx.x, threads = blockDim.x;
    for (int j = 0; j < P; j++)
        for (int i = j + tid; i < P; i += threads) ls[packed_at(P, i, j)] = i == j ? T(1) : T(0);
    __syncthreads();
    constexpr int kBatch = 16;
    for (int base = 0; base < t * t; base += threads * kBatch) {
        T val[kBatch];
        int dst[kBatch], diag[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; u++) {
            const int idx = base + u * threads + tid, p = idx % t, q = idx / t; // T(p, q)
            const int rp = reverse ? t - 1 - p : p, rq = reverse ? t - 1 - q : q;
            const int i = transposed ? rq : rp, j = transposed ? rp : rq; // L'(i, j)
            dst[u] = -1;
            diag[u] = i == j;
            if (idx < t * t && i >= j) {
                dst[u] = packed_at(P, i, j);
                val[u] = diag[u] && unit ? T(1) : a[p + (size_t)q * lda];
            }
        }
#pragma unroll
        for (int u = 0; u < kBatch; u++)
            if (dst[u] >= 0) ls[dst[u]] = diag[u] ? T(1) / val[u] : val[u];
    }
    __syncthreads();
}

// Two threads per vector (P >= t): left, a column of B, staged through shared memory
// (t x vectors of the block, padded); right, a row of B. The unknowns alternate between the pair
// (thread `half` holds 2 m + half), each step's new unknown passes to the other by a shuffle, so
// both update their half of the rows below at once.
template <typename T, int P>
__global__ void __launch_bounds__(kThreads)
    trsm_small_kernel(int left, int reverse, int unit, int t, int nvec, T alpha, const T *a,
                      int lda, T *b, int ldb) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T *ls = reinterpret_cast<T *>(smem_raw), *tile = ls + kPacked<P>;
    const int threads = blockDim.x, tid = threadIdx.x, vecs = threads / 2;
    const int v0 = blockIdx.x * vecs, vec = v0 + tid / 2, half = tid & 1;
    const int pad = vecs + 1, cols = min(vecs, nvec - v0);
    if (left) { // consecutive threads read consecutive rows; several loads in flight each
        constexpr int kBatch = 16;
        for (int base = 0; base < t * cols; base += threads * kBatch) {
            T val[kBatch];
#pragma unroll
            for (int u = 0; u < kBatch; u++) {
                const int idx = base + u * threads + tid, r = idx % t, c = idx / t;
                if (idx < t * cols) val[u] = b[r + (size_t)(v0 + c) * ldb];
            }
#pragma unroll
            for (int u = 0; u < kBatch; u++) {
                const int idx = base + u * threads + tid, r = idx % t, c = idx / t;
                if (idx < t * cols) tile[r * pad + c] = val[u];
            }
        }
    }
    load_triangle<T, P>(ls, !left, reverse, unit, t, a, lda); // ends with a barrier
    const bool active = vec < nvec;
    const int col = tid / 2, pair = (threadIdx.x & 31) & ~1;
    T x[P / 2];
#pragma unroll
    for (int m = 0; m < P / 2; m++) {
        const int i = 2 * m + half, r = reverse ? t - 1 - i : i;
        T val = T(0);
        if (active && i < t) val = left ? tile[r * pad + col] : b[vec + (size_t)r * ldb];
        x[m] = alpha * val;
    }
#pragma unroll
    for (int i = 0; i < P; i++) {
        const int m = i / 2, owner = i & 1;
        if (half == owner) x[m] *= ls[packed_at(P, i, i)];
        const T xi = __shfl_sync(0xffffffffu, x[m], pair | owner);
#pragma unroll
        for (int mm = i / 2; mm < P / 2; mm++) {
            const int k = 2 * mm + half;
            if (k > i) x[mm] -= ls[packed_at(P, k, i)] * xi;
        }
    }
    if (!left) {
        if (active) {
#pragma unroll
            for (int m = 0; m < P / 2; m++) {
                const int i = 2 * m + half;
                if (i < t) b[vec + (size_t)(reverse ? t - 1 - i : i) * ldb] = x[m];
            }
        }
        return;
    }
    if (active) {
#pragma unroll
        for (int m = 0; m < P / 2; m++) {
            const int i = 2 * m + half;
            if (i < t) tile[(reverse ? t - 1 - i : i) * pad + col] = x[m];
        }
    }
    __syncthreads();
    for (int idx = tid; idx < t * cols; idx += threads) {
        const int r = idx % t, c = idx / t;
        b[r + (size_t)(v0 + c) * ldb] = tile[r * pad + c];
    }
}

template <typename T, int P>
cudaError_t launch_padded(cudaStream_t s, int left, int reverse, int unit, int t, int nvec, T alpha,
                          const T *a, int lda, T *b, int ldb) {
    // two threads per vector; fewer vectors per block when there are few, so that they spread
    // over the SMs; left, at most 64 vectors, which keeps a block's shared memory near 50 KB (L'
    // and the staged columns)
    const int most = kThreads / 2;
    const int vecs = nvec >= 64 * most ? most : nvec >= 2048 ? 32 : 16;
    const size_t bytes = sizeof(T) * ((size_t)kPacked<P> + (left ? (size_t)t * (vecs + 1) : 0));
    const unsigned blocks = (unsigned)((nvec + vecs - 1) / vecs);
    trsm_small_kernel<T, P>
        <<<blocks, 2 * vecs, bytes, s>>>(left, reverse, unit, t, nvec, alpha, a, lda, b, ldb);
    return cudaGetLastError();
}

// Shared memory beyond 48 KB is opt-in per kernel and device (ps_cuda_trsm_small_init): a
// 64-wide block of left-side columns in double needs 49.9 KB.
template <typename T, int P> cudaError_t allow_shared() {
    return cudaFuncSetAttribute(trsm_small_kernel<T, P>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)(sizeof(T) * (kPacked<P> + 64 * (64 + 1))));
}

template <typename T> cudaError_t allow_shared_all() {
    cudaError_t e = allow_shared<T, 16>();
    if (e == cudaSuccess) e = allow_shared<T, 32>();
    return e == cudaSuccess ? allow_shared<T, 64>() : e;
}

template <typename T>
cudaError_t launch(cudaStream_t s, int left, int upper, int unit, int m, int n, T alpha, const T *a,
                   int lda, T *b, int ldb) {
    const int t = left ? m : n, nvec = left ? n : m;
    // the substitution runs backwards for an upper triangle on the left and a lower one on the
    // right (T^T is then upper)
    const int reverse = left == upper;
    if (t <= 16)
        return launch_padded<T, 16>(s, left, reverse, unit, t, nvec, alpha, a, lda, b, ldb);
    if (t <= 32)
        return launch_padded<T, 32>(s, left, reverse, unit, t, nvec, alpha, a, lda, b, ldb);
    return launch_padded<T, 64>(s, left, reverse, unit, t, nvec, alpha, a, lda, b, ldb);
}

} // namespace

extern "C" cudaError_t ps_cuda_trsm_small_init(void) {
    cudaError_t e = allow_shared_all<double>();
    return e == cudaSuccess ? allow_shared_all<float>() : e;
}

extern "C" cudaError_t ps_cuda_launch_trsm_small(cudaStream_t s, int dbl, int left, int upper,
                                                 int unit, int m, int n, const void *alpha,
                                                 const void *a, int lda, void *b, int ldb) {
    if ((left ? m : n) > PS_CUDA_TRSM_SMALL_MAX) return cudaErrorInvalidValue;
    if (dbl)
        return launch(s, left, upper, unit, m, n, *static_cast<const double *>(alpha),
                      static_cast<const double *>(a), lda, static_cast<double *>(b), ldb);
    return launch(s, left, upper, unit, m, n, *static_cast<const float *>(alpha),
                  static_cast<const float *>(a), lda, static_cast<float *>(b), ldb);
}
