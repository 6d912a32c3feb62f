// Row interchanges (LAPACK dlaswp) on the device.
//
// Applying the swaps one after the other, a thread per column, costs one dependent global load
// per interchange: about 0.5 us each on an H100, so 0.25 ms for a 512-pivot block row whatever
// the number of columns, on LU's critical path. Here each block first turns the interchanges
// into the permutation they amount to (in shared memory, in O(log K) parallel steps), then moves
// every affected row of a batch of columns at once: all loads, one barrier, all stores.
//
// The permutation, for getrf's pivots (position P_t = k1 + t is swapped with row q_t >= P_t):
// position P_t is final after step t (later steps swap only rows at or below their own
// position), and receives what row q_t held just before step t. Row q_t was last written by the
// latest step s < t with q_s = q_t (M(t)), which put there what position P_s held before step
// s, call it g(s); if there is no such step it still holds its own row. g(s) is P_s's own row
// unless an earlier step L(s) wrote P_s (q_{L(s)} = P_s), in which case g(s) = g(L(s)): chains
// resolved by pointer jumping. Rows below the positions that were swapped in end with g(s) of
// the last step s that chose them. Pivot lists without q_t >= P_t (WZ's) take the sequential
// loop. Backward application (getrs with a transpose) is the inverse permutation.
#include "cuda_internal.h"

namespace {

constexpr int kChunk = 256; // interchanges per launch; one per thread
constexpr int kBatch = 8;   // columns moved per pass
// Columns per block (at least): few, so that a narrow laswp (the recursive LU panel's, 32..256
// columns) still spreads over many blocks, each one pass of loads and stores. 8 against 64 before:
// dgesv 2-4% faster at n = 16384 on an H100, the look-ahead lane's laswp time 19 -> 6 ms.
constexpr int kColumns = 8;

template <typename T>
__device__ void swap_sequentially(T *a, int lda, int c0, int c1, int k1, int count, const int *q,
                                  int forward) {
    for (int c = c0 + (int)threadIdx.x; c < c1; c += blockDim.x) {
        T *col = a + (size_t)c * lda;
        for (int t = 0; t < count; t++) {
            int s = forward ? t : count - 1 - t, k = k1 + s, p = q[s];
            if (p != k) {
                T tmp = col[k];
                col[k] = col[p];
                col[p] = tmp;
            }
        }
    }
}

template <typename T>
__global__ void __launch_bounds__(kChunk)
    laswp_kernel(int ncols, T *a, int lda, int k1, int count, const int *ipiv, int forward) {
    __shared__ int q[kChunk], next[kChunk], root[kChunk], last_write[kChunk];
    __shared__ int dst[2 * kChunk], src[2 * kChunk];
    __shared__ int moves, sequential;
    const int t = threadIdx.x, k2 = k1 + count;
    const int per_block = max(kColumns, (ncols + gridDim.x - 1) / gridDim.x);
    const int c0 = blockIdx.x * per_block, c1 = min(ncols, c0 + per_block);
    if (t == 0) moves = sequential = 0;
    __syncthreads();
    if (t < count) {
        q[t] = ipiv[t];
        if (q[t] < k1 + t) sequential = 1;
    }
    __syncthreads();
    if (sequential) {
        swap_sequentially(a, lda, c0, c1, k1, count, q, forward);
        return;
    }
    if (t < count) { // L(t) and M(t): the latest earlier steps that chose row P_t, row q_t
        int position = k1 + t, L = -1, M = -1;
        for (int s = t - 1; s >= 0 && (L < 0 || M < 0); s--) {
            if (L < 0 && q[s] == position) L = s;
            if (M < 0 && q[s] == q[t]) M = s;
        }
        next[t] = L;
        root[t] = position;
        last_write[t] = M;
    }
    __syncthreads();
    for (int round = 0; (1 << round) < kChunk; round++) { // root[t] becomes g(t)
        int r = 0, n = -1;
        bool jump = t < count && next[t] >= 0;
        if (jump) {
            r = root[next[t]];
            n = next[next[t]];
        }
        __syncthreads();
        if (jump) {
            root[t] = r;
            next[t] = n;
        }
        __syncthreads();
    }
    if (t < count) {
        int position = k1 + t, from = last_write[t] >= 0 ? root[last_write[t]] : q[t];
        if (from != position) {
            int e = atomicAdd(&moves, 1);
            dst[e] = position;
            src[e] = from;
        }
        if (q[t] >= k2) { // a row below the positions: its final content, from its last chooser
            bool last = true;
            for (int u = t + 1; u < count && last; u++) last = q[u] != q[t];
            if (last && root[t] != q[t]) {
                int e = atomicAdd(&moves, 1);
                dst[e] = q[t];
                src[e] = root[t];
            }
        }
    }
    __syncthreads();
    const int total = moves;
    const int *to = forward ? dst : src, *from = forward ? src : dst;
    for (int c = c0; c < c1; c += kBatch) {
        T v[2][kBatch];
        for (int h = 0; h < 2; h++) {
            int e = t + h * kChunk;
            if (e < total)
                for (int b = 0; b < kBatch; b++)
                    if (c + b < c1) v[h][b] = a[from[e] + (size_t)(c + b) * lda];
        }
        __syncthreads();
        for (int h = 0; h < 2; h++) {
            int e = t + h * kChunk;
            if (e < total)
                for (int b = 0; b < kBatch; b++)
                    if (c + b < c1) a[to[e] + (size_t)(c + b) * lda] = v[h][b];
        } // the next batch's columns are others: no barrier needed before its loads
    }
}

template <typename T>
cudaError_t launch(cudaStream_t s, int ncols, T *a, int lda, int k1, int k2, const int *ipiv,
                   int forward) {
    int blocks = (ncols + kColumns - 1) / kColumns;
    if (blocks > 512) blocks = 512;
    // chunks of kChunk interchanges, in the order the interchanges apply
    int chunks = (k2 - k1 + kChunk - 1) / kChunk;
    for (int i = 0; i < chunks; i++) {
        int c = forward ? i : chunks - 1 - i, first = k1 + c * kChunk;
        int count = min(kChunk, k2 - first);
        laswp_kernel<T>
            <<<blocks, kChunk, 0, s>>>(ncols, a, lda, first, count, ipiv + c * kChunk, forward);
        cudaError_t err = cudaGetLastError();
        if (err) return err;
    }
    return cudaSuccess;
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_laswp(cudaStream_t s, int dbl, int ncols, void *a, int lda,
                                            int k1, int k2, const int *ipiv, int forward) {
    if (ncols <= 0 || k2 <= k1) return cudaSuccess;
    return dbl ? launch(s, ncols, static_cast<double *>(a), lda, k1, k2, ipiv, forward)
               : launch(s, ncols, static_cast<float *>(a), lda, k1, k2, ipiv, forward);
}
