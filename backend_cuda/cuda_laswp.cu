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
//
// The same permutation moves columns (the vtable's colswp for a step's interchanges, which
// gjinv's transposed layout applies at every step, core/gj/gj.c): then each move is a contiguous
// run of a column, and the block's threads take 8 consecutive rows of 32 moves at a time, so
// every load and store covers whole 32-byte sectors.
#include "cuda_internal.h"

namespace {

constexpr int kChunk = 256; // interchanges per launch; one per thread
constexpr int kBatch = 8;   // columns moved per pass
// Columns per block (at least): few, so that a narrow laswp (the recursive LU panel's, 32..256
// columns) still spreads over many blocks, each one pass of loads and stores. 8 against 64 before:
// dgesv 2-4% faster at n = 16384 on an H100, the look-ahead lane's laswp time 19 -> 6 ms.
constexpr int kColumns = 8;

// The interchanges one after the other, a thread per line [c0, c1): a column of a when rows are
// interchanged (line stride lda, element stride 1), a row when columns are (1, lda).
template <typename T>
__device__ void swap_sequentially(T *a, size_t line, size_t elem, int c0, int c1, int k1, int count,
                                  const int *q, int forward) {
    for (int c = c0 + (int)threadIdx.x; c < c1; c += blockDim.x) {
        T *v = a + (size_t)c * line;
        for (int t = 0; t < count; t++) {
            int s = forward ? t : count - 1 - t, k = k1 + s, p = q[s];
            if (p != k) {
                T tmp = v[k * elem];
                v[k * elem] = v[p * elem];
                v[p * elem] = tmp;
            }
        }
    }
}

// Moves of one chunk of interchanges, in shared memory: what the block moves, and whether the
// pivots need the sequential loop instead.
struct Plan {
    int q[kChunk], next[kChunk], root[kChunk], last_write[kChunk];
    int dst[2 * kChunk], src[2 * kChunk];
    int moves, sequential;
};

// Fills the plan of the count interchanges at positions k1.. (pivots ipiv) with the block's
// threads; every thread returns after the plan is complete.
__device__ void plan_moves(Plan &p, int k1, int count, const int *ipiv) {
    const int t = threadIdx.x, k2 = k1 + count;
    if (t == 0) p.moves = p.sequential = 0;
    __syncthreads();
    if (t < count) {
        p.q[t] = ipiv[t];
        if (p.q[t] < k1 + t) p.sequential = 1;
    }
    __syncthreads();
    if (p.sequential) return;
    if (t < count) { // L(t) and M(t): the latest earlier steps that chose row P_t, row q_t
        int position = k1 + t, L = -1, M = -1;
        for (int s = t - 1; s >= 0 && (L < 0 || M < 0); s--) {
            if (L < 0 && p.q[s] == position) L = s;
            if (M < 0 && p.q[s] == p.q[t]) M = s;
        }
        p.next[t] = L;
        p.root[t] = position;
        p.last_write[t] = M;
    }
    __syncthreads();
    for (int round = 0; (1 << round) < kChunk; round++) { // root[t] becomes g(t)
        int r = 0, n = -1;
        bool jump = t < count && p.next[t] >= 0;
        if (jump) {
            r = p.root[p.next[t]];
            n = p.next[p.next[t]];
        }
        __syncthreads();
        if (jump) {
            p.root[t] = r;
            p.next[t] = n;
        }
        __syncthreads();
    }
    if (t < count) {
        int position = k1 + t, from = p.last_write[t] >= 0 ? p.root[p.last_write[t]] : p.q[t];
        if (from != position) {
            int e = atomicAdd(&p.moves, 1);
            p.dst[e] = position;
            p.src[e] = from;
        }
        if (p.q[t] >= k2) { // a row below the positions: its final content, from its last chooser
            bool last = true;
            for (int u = t + 1; u < count && last; u++) last = p.q[u] != p.q[t];
            if (last && p.root[t] != p.q[t]) {
                int e = atomicAdd(&p.moves, 1);
                p.dst[e] = p.q[t];
                p.src[e] = p.root[t];
            }
        }
    }
    __syncthreads();
}

template <typename T>
__global__ void __launch_bounds__(kChunk)
    laswp_kernel(int ncols, T *a, int lda, int k1, int count, const int *ipiv, int forward) {
    __shared__ Plan p;
    const int t = threadIdx.x;
    const int per_block = max(kColumns, (ncols + gridDim.x - 1) / gridDim.x);
    const int c0 = blockIdx.x * per_block, c1 = min(ncols, c0 + per_block);
    plan_moves(p, k1, count, ipiv);
    if (p.sequential) {
        swap_sequentially(a, (size_t)lda, 1, c0, c1, k1, count, p.q, forward);
        return;
    }
    const int total = p.moves;
    const int *to = forward ? p.dst : p.src, *from = forward ? p.src : p.dst;
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

// The column form: columns k and ipiv[k] of the nrows x ? matrix a swap, all rows. Rows of a
// block, 8 at a time: thread t moves row (t mod 8) of the moves t / 8, t / 8 + 32, ... (a chunk
// has at most 2 kChunk moves: 16 per thread, held in registers between one barrier).
constexpr int kColRows = 8;
constexpr int kColMoves = kChunk / kColRows;          // moves side by side in one pass
constexpr int kColPerThread = 2 * kChunk / kColMoves; // 16

template <typename T>
__global__ void __launch_bounds__(kChunk)
    colswp_kernel(int nrows, T *a, int lda, int k1, int count, const int *ipiv, int forward) {
    __shared__ Plan p;
    const int t = threadIdx.x;
    int per_block = (nrows + gridDim.x - 1) / gridDim.x;
    per_block = (max(per_block, 4 * kColRows) + kColRows - 1) / kColRows * kColRows;
    const int r0 = blockIdx.x * per_block, r1 = min(nrows, r0 + per_block);
    plan_moves(p, k1, count, ipiv);
    if (p.sequential) {
        swap_sequentially(a, 1, (size_t)lda, r0, r1, k1, count, p.q, forward);
        return;
    }
    const int total = p.moves;
    const int *to = forward ? p.dst : p.src, *from = forward ? p.src : p.dst;
    const int lane_row = t % kColRows, first = t / kColRows;
    for (int r = r0 + lane_row; r - lane_row < r1; r += kColRows) {
        T v[kColPerThread];
        for (int h = 0; h < kColPerThread; h++) {
            int e = first + h * kColMoves;
            if (e < total && r < r1) v[h] = a[r + (size_t)from[e] * lda];
        }
        __syncthreads();
        for (int h = 0; h < kColPerThread; h++) {
            int e = first + h * kColMoves;
            if (e < total && r < r1) a[r + (size_t)to[e] * lda] = v[h];
        } // the next pass's rows are others: no barrier needed before its loads
    }
}

template <typename T>
cudaError_t launch(cudaStream_t s, int ncols, T *a, int lda, int k1, int k2, const int *ipiv,
                   int forward, int columns) {
    int blocks =
        columns ? (ncols + 4 * kColRows - 1) / (4 * kColRows) : (ncols + kColumns - 1) / kColumns;
    if (blocks > 512) blocks = 512;
    // chunks of kChunk interchanges, in the order the interchanges apply
    int chunks = (k2 - k1 + kChunk - 1) / kChunk;
    for (int i = 0; i < chunks; i++) {
        int c = forward ? i : chunks - 1 - i, first = k1 + c * kChunk;
        int count = min(kChunk, k2 - first);
        if (columns)
            colswp_kernel<T>
                <<<blocks, kChunk, 0, s>>>(ncols, a, lda, first, count, ipiv + c * kChunk, forward);
        else
            laswp_kernel<T>
                <<<blocks, kChunk, 0, s>>>(ncols, a, lda, first, count, ipiv + c * kChunk, forward);
        cudaError_t err = cudaGetLastError();
        if (err) return err;
    }
    return cudaSuccess;
}

// A gather (dst(i, j) = src(idx[i], j)) or a scatter (dst(idx[i], j) = src(i, j) where idx[i]
// >= 0): a thread per element of the view with consecutive rows, consecutive threads on
// consecutive rows of a column, so that its side is contiguous and the other as scattered as
// the indices.
template <typename T, bool Scatter>
__global__ void rows_by_index_kernel(int rows, int cols, const int *idx, const T *src, int lds,
                                     T *dst, int ldd) {
    size_t total = (size_t)rows * (size_t)cols;
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total;
         e += (size_t)gridDim.x * blockDim.x) {
        int i = (int)(e % (size_t)rows), j = (int)(e / (size_t)rows), r = idx[i];
        if (!Scatter)
            dst[i + (size_t)j * ldd] = src[r + (size_t)j * lds];
        else if (r >= 0)
            dst[r + (size_t)j * ldd] = src[i + (size_t)j * lds];
    }
}

template <typename T>
void launch_rows_by_index(cudaStream_t s, bool scatter, unsigned blocks, int rows, int cols,
                          const int *idx, const void *src, int lds, void *dst, int ldd) {
    auto kernel = scatter ? rows_by_index_kernel<T, true> : rows_by_index_kernel<T, false>;
    kernel<<<blocks, 256, 0, s>>>(rows, cols, idx, static_cast<const T *>(src), lds,
                                  static_cast<T *>(dst), ldd);
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_rows_by_index(cudaStream_t s, int dbl, int scatter, int rows,
                                                    int cols, const int *idx, const void *src,
                                                    int lds, void *dst, int ldd) {
    if (rows <= 0 || cols <= 0) return cudaSuccess;
    size_t total = (size_t)rows * (size_t)cols, blocks = (total + 255) / 256;
    if (blocks > 4096) blocks = 4096;
    if (dbl)
        launch_rows_by_index<double>(s, scatter, (unsigned)blocks, rows, cols, idx, src, lds, dst,
                                     ldd);
    else
        launch_rows_by_index<float>(s, scatter, (unsigned)blocks, rows, cols, idx, src, lds, dst,
                                    ldd);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_laswp(cudaStream_t s, int dbl, int ncols, void *a, int lda,
                                            int k1, int k2, const int *ipiv, int forward) {
    if (ncols <= 0 || k2 <= k1) return cudaSuccess;
    return dbl ? launch(s, ncols, static_cast<double *>(a), lda, k1, k2, ipiv, forward, 0)
               : launch(s, ncols, static_cast<float *>(a), lda, k1, k2, ipiv, forward, 0);
}

extern "C" cudaError_t ps_cuda_launch_colswp_steps(cudaStream_t s, int dbl, int nrows, void *a,
                                                   int lda, int k1, int k2, const int *ipiv,
                                                   int forward) {
    if (nrows <= 0 || k2 <= k1) return cudaSuccess;
    return dbl ? launch(s, nrows, static_cast<double *>(a), lda, k1, k2, ipiv, forward, 1)
               : launch(s, nrows, static_cast<float *>(a), lda, k1, k2, ipiv, forward, 1);
}
