// x = A^-1 x for a float triangle and a double vector, every operation in double (the vtable's
// trsv_mixed): the GMRES-IR preconditioner's two solves with the low-precision LU factors.
//
// Why a kernel of its own: cuBLAS has no mixed-precision trsv, and its dtrsv on the factors
// widened to double read 8.6 GB per pair of solves at n = 32768 (4.3 ms on an H200, two thirds
// of an Arnoldi step; docs/PERFORMANCE.md), besides the widened copy itself.
//
// The scheme: one launch, one thread block of 4 NB threads per block row of NB rows (NB = 128 by
// default, cuda_trsv_rows), taken in the solve's order (top down for lower, bottom up
// for upper) by a ticket drawn at the block's start, so that every block row a block waits for
// belongs to a block already running, whatever the scheduler does. Block row p:
//  1. inverts its diagonal block T in double (registers and shared memory) and loads
//     A(p, p - 1), the product that will be on the chain;
//  2. adds up A(p, q) x_q for the earlier q as their x become final (a count of finished block
//     rows, published with release and read with acquire), kBatch at a time while its turn is
//     far and one at a time near it, so that it is caught up when the chain reaches it;
//  3. when x_{p-1} is final: x_p = T^-1 (b_p - sum_q A(p, q) x_q), written, and the count
//     advanced.
// The chain from one block row to the next is thus a wait, the preloaded product and one with
// the inverse (2.5-3 us on an H200); a substitution (some 70 cycles an unknown, an earlier
// one-launch trsv) is never on it. The inverse is of the float entries, in double: its rounding,
// about eps cond(T), stays far below the float factors' own (2^-24 of each entry) for any
// diagonal block whose condition is under 1e8, and it only applies a preconditioner. The last
// block row's block sets the ticket and the count back to zero for the next launch.
#include "cuda_internal.h"

#include <cuda/atomic>

namespace {

// Threads per row of a block row: each takes a quarter of every block's columns.
constexpr int kGroups = 4;
// Earlier block rows a block waits for before it reads their part of its rows, while its own turn
// is more than two such batches away (and the time between its polls then). Fewer, larger reads
// by the blocks whose turn is far leave the chain's own reads less to queue behind (batches of 32
// to 64 measured about 5% faster than 4 or 8 on an H200).
constexpr int kBatch = 32;
constexpr unsigned kFarPollNs = 2000;

// The block row at position p of the solve's order.
__device__ __forceinline__ int block_at(bool upper, int blocks, int p) {
    return upper ? blocks - 1 - p : p;
}

// out[e] = value(idx) for this thread's e-th index idx of a walk by kThreads over 0 .. count - 1
// (0 past count): the shape of every pass over a distance's entries in diagonal_inverse.
template <int kThreads, int kOut, typename Value>
__device__ __forceinline__ void per_entry(double (&out)[kOut], int count, Value value) {
#pragma unroll
    for (int e = 0; e < kOut; e++) {
        const int idx = threadIdx.x + e * kThreads;
        out[e] = idx < count ? value(idx) : 0.0;
    }
}

// inv = T^-1 for the rows x rows diagonal block T of a (at d, leading dimension lda), in double,
// row-major with stride NB + 1, the identity beyond rows. T = U D, D its diagonal (I when unit)
// and U unit triangular (T's columns divided by their diagonal entry), so T^-1 = D^-1 U^-1. T is
// first copied to shared memory (tile, stride NB + 1; zero beyond rows, so that U is the
// identity there) in one pass with all its loads in flight. U^-1 = X by 32 x 32 blocks:
//  1. each diagonal block X_aa = U_aa^-1 by one warp, a column a lane in registers, with no
//     barrier (the elimination's multipliers are the same for every lane: broadcast reads);
//  2. the blocks off the diagonal by their distance d from it, all blocks of one distance at
//     once: X_ab = -X_aa S with S = sum over the blocks c between of U_ac X_cb (lower: b <= c
//     < a; upper: a < c <= b), each a 32 x 32 product over every thread, four barriers a
//     distance;
// then the rows scaled by D^-1. About 40 us for NB = 128 on an H200, on the chain for the blocks
// that start first. (Eliminating row by row over the whole block, a barrier per row, took 73-79
// us; storing the inverse in shared memory and reading T from global memory step by step, 130.)
template <int NB, bool upper>
__device__ void diagonal_inverse(bool unit, const float *d, size_t lda, int rows, double *inv,
                                 float *tile, double *rdiag) {
    constexpr int kStride = NB + 1, kSub = NB / 32, kThreads = NB * kGroups;
    // the most entries of one distance's blocks a thread computes (distance 1: kSub - 1 blocks)
    constexpr int kOut = ((kSub - 1) * 1024 + kThreads - 1) / kThreads;
    const int c = threadIdx.x % NB, g = threadIdx.x / NB;
    for (int k = g; k < NB; k += kGroups) // column k of T, row c: a warp reads 32 rows
        tile[c * kStride + k] = c < rows && k < rows ? d[c + (size_t)k * lda] : 0.0f;
    __syncthreads();
    if (g == 0) rdiag[c] = unit || c >= rows ? 1.0 : 1.0 / (double)tile[c * kStride + c];
    __syncthreads();
    // U(i, k) for i != k on the side of the diagonal the triangle has
    auto u = [&](int i, int k) { return (double)tile[i * kStride + k] * rdiag[k]; };

    // 1. the diagonal blocks, warp a for block a
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp < kSub) {
        const int o = warp * 32;
        double y[32]; // column `lane` of X_aa
#pragma unroll
        for (int i = 0; i < 32; i++) y[i] = i == lane ? 1.0 : 0.0;
#pragma unroll
        for (int s = 0; s < 32; s++) {
            const int k = upper ? 31 - s : s;
#pragma unroll
            for (int i = upper ? 0 : k + 1; i < (upper ? k : 32); i++)
                y[i] -= u(o + i, o + k) * y[k];
        }
#pragma unroll
        for (int i = 0; i < 32; i++) inv[(o + i) * kStride + o + lane] = y[i];
    }
    __syncthreads();

    // 2. the blocks off the diagonal, by distance. Output e of a thread is entry (i, j) of block
    // (ba, bb), the pair's pr-th of this distance; every step below walks them the same way.
    struct entry {
        int ba, bb, i, j;
    };
    auto entry_at = [](int idx, int dist) {
        const int pr = idx / 1024;
        return entry{upper ? pr : pr + dist, upper ? pr + dist : pr, idx % 1024 / 32, idx % 32};
    };
    auto store = [&](const double(&out)[kOut], int dist, int count) {
#pragma unroll
        for (int e = 0; e < kOut; e++) {
            const int idx = threadIdx.x + e * kThreads;
            if (idx >= count) continue;
            const entry x = entry_at(idx, dist);
            inv[(x.ba * 32 + x.i) * kStride + x.bb * 32 + x.j] = out[e];
        }
    };
    for (int dist = 1; dist < kSub; dist++) {
        const int count = (kSub - dist) * 1024;
        double out[kOut];
        // S for every block of this distance, into registers
        per_entry<kThreads>(out, count, [&](int idx) {
            const entry x = entry_at(idx, dist);
            const int c0 = upper ? x.ba + 1 : x.bb, c1 = upper ? x.bb : x.ba - 1; // c0 <= c <= c1
            double sum = 0;
            for (int k = c0 * 32; k < (c1 + 1) * 32; k++)
                sum += u(x.ba * 32 + x.i, k) * inv[k * kStride + x.bb * 32 + x.j];
            return sum;
        });
        __syncthreads(); // (the blocks of this distance are read nowhere above)
        store(out, dist, count);
        __syncthreads();
        // X_ab = -X_aa S, S read from where X_ab goes
        per_entry<kThreads>(out, count, [&](int idx) {
            const entry x = entry_at(idx, dist);
            double sum = 0;
#pragma unroll 8
            for (int k = 0; k < 32; k++)
                sum += inv[(x.ba * 32 + x.i) * kStride + x.ba * 32 + k] *
                       inv[(x.ba * 32 + k) * kStride + x.bb * 32 + x.j];
            return -sum;
        });
        __syncthreads();
        store(out, dist, count);
        __syncthreads();
    }
    // the other side's blocks are zero; then the rows scaled by D^-1
    for (int i = g; i < NB; i += kGroups) {
        const int bi = i / 32, bc = c / 32;
        double v = (upper ? bc < bi : bc > bi) ? 0.0 : inv[i * kStride + c];
        inv[i * kStride + c] = v * rdiag[i];
    }
    __syncthreads();
}

// Waits until the count of finished block rows reaches target. Thread 0 polls; a block whose own
// turn is still far polls every kFarPollNs, so that the blocks waiting at once do not queue on
// the count's L2 line ahead of the one block the chain waits for.
__device__ __forceinline__ unsigned
wait_done(cuda::atomic_ref<unsigned, cuda::thread_scope_device> &done, int target, bool far) {
    unsigned d;
    while ((d = done.load(cuda::memory_order_acquire)) < (unsigned)target)
        if (far) __nanosleep(kFarPollNs);
    return d;
}

// This thread's kCols entries of row `row` in the block of columns c0 .. c0 + NB (zero beyond
// the matrix): a quarter of the block's columns, contiguous, so a warp's 32 rows of one column
// are one 128-byte line.
template <int NB>
__device__ __forceinline__ void load_row_part(const float *a, size_t lda, int row, bool live,
                                              int c0, int ncols, float (&v)[NB / kGroups]) {
    constexpr int kCols = NB / kGroups;
    const int g = threadIdx.x / NB;
#pragma unroll
    for (int k = 0; k < kCols; k++) {
        int c = g * kCols + k;
        v[k] = live && c < ncols ? __ldcs(a + row + (size_t)(c0 + c) * lda) : 0.0f;
    }
}

// acc -= the row part v times x's entries at columns c0 ..: x_q is final, written by another
// block, so it is read from L2 (__ldcg), never from a stale L1 line.
template <int NB>
__device__ __forceinline__ double subtract_product(double acc, const float (&v)[NB / kGroups],
                                                   const double *x, int incx, int c0, int ncols) {
    constexpr int kCols = NB / kGroups;
    const int g = threadIdx.x / NB;
#pragma unroll
    for (int k = 0; k < kCols; k++) {
        int c = g * kCols + k;
        double xc = c < ncols ? __ldcg(x + (size_t)(c0 + c) * incx) : 0.0;
        acc -= (double)v[k] * xc;
    }
    return acc;
}

template <int NB, bool upper>
__global__ void __launch_bounds__(NB *kGroups, NB == 64 ? 3 : 1)
    trsv_mixed_kernel(bool unit, int n, int blocks, const float *__restrict__ a, size_t lda,
                      double *x, int incx, unsigned *sync) {
    constexpr int kStride = NB + 1;
    extern __shared__ double smem[];
    double *inv = smem;                  // NB x kStride
    double *part = inv + NB * kStride;   // kGroups x NB partial sums
    double *vec = part + kGroups * NB;   // NB: the block row's right-hand side, reduced
    double *rdiag = vec + NB;            // NB: 1 / the diagonal (1: unit)
    float *tile = (float *)(rdiag + NB); // NB x kStride: the diagonal block
    __shared__ int position, available[2];

    cuda::atomic_ref<unsigned, cuda::thread_scope_device> ticket(sync[0]), done(sync[1]);
    const int r = threadIdx.x % NB, g = threadIdx.x / NB;
    if (threadIdx.x == 0) position = (int)ticket.fetch_add(1u, cuda::memory_order_relaxed);
    __syncthreads();
    const int p = position, block = block_at(upper, blocks, p);
    const int r0 = block * NB, rows = min(NB, n - r0), row = r0 + r;
    const bool live = r < rows;
    // The right-hand side's rows: no other block writes them.
    double acc = g == 0 && live ? x[(size_t)row * incx] : 0.0;

    diagonal_inverse<NB, upper>(unit, a + r0 + (size_t)r0 * lda, lda, rows, inv, tile, rdiag);
    // The product on the chain, A(p, p - 1), loaded before the block waits.
    float last[NB / kGroups];
    int last_c0 = 0, last_cols = 0;
    if (p > 0) {
        last_c0 = block_at(upper, blocks, p - 1) * NB;
        last_cols = min(NB, n - last_c0);
        load_row_part<NB>(a, lda, row, live, last_c0, last_cols, last);
    }

    // Every earlier block row but the last, as their x become final: kBatch at a time while
    // this block's turn is far (fewer polls, more loads in flight), one at a time near it, so
    // that the block is never behind when the chain reaches it.
    for (int q = 0, turn = 0; q < p - 1; turn ^= 1) {
        const bool far = p - 1 - q > 2 * kBatch;
        if (threadIdx.x == 0)
            available[turn] = min((int)wait_done(done, far ? q + kBatch : q + 1, far), p - 1);
        __syncthreads(); // (two slots: thread 0 may write the next before all have read this)
        const int end = available[turn];
        // two blocks' loads in flight at once (NB = 64; at 128 their registers would spill)
        for (; NB <= 64 && q + 1 < end; q += 2) {
            int c0 = block_at(upper, blocks, q) * NB, c1 = block_at(upper, blocks, q + 1) * NB;
            float v0[NB / kGroups], v1[NB / kGroups];
            load_row_part<NB>(a, lda, row, live, c0, min(NB, n - c0), v0);
            load_row_part<NB>(a, lda, row, live, c1, min(NB, n - c1), v1);
            acc = subtract_product<NB>(acc, v0, x, incx, c0, min(NB, n - c0));
            acc = subtract_product<NB>(acc, v1, x, incx, c1, min(NB, n - c1));
        }
        for (; q < end; q++) {
            int c0 = block_at(upper, blocks, q) * NB;
            float v[NB / kGroups];
            load_row_part<NB>(a, lda, row, live, c0, min(NB, n - c0), v);
            acc = subtract_product<NB>(acc, v, x, incx, c0, min(NB, n - c0));
        }
    }
    if (p > 0) {
        if (threadIdx.x == 0) wait_done(done, p, false);
        __syncthreads();
        // x_{p-1} to shared memory once: one L2 read an entry, where each thread reading its
        // quarter of them was 32 reads a thread on the chain
        if (g == 0) vec[r] = r < last_cols ? __ldcg(x + (size_t)(last_c0 + r) * incx) : 0.0;
        __syncthreads();
        constexpr int kCols = NB / kGroups;
        double odd = 0; // two chains of dependent additions, not one
#pragma unroll
        for (int k = 0; k < kCols; k += 2) {
            acc -= (double)last[k] * vec[g * kCols + k];
            odd -= (double)last[k + 1] * vec[g * kCols + k + 1];
        }
        acc += odd;
    }

    // x_p = T^-1 (the sums of the four column groups)
    part[g * NB + r] = acc;
    __syncthreads();
    if (g == 0) {
        double s = 0;
#pragma unroll
        for (int k = 0; k < kGroups; k++) s += part[k * NB + r];
        vec[r] = live ? s : 0.0;
    }
    __syncthreads();
    constexpr int kCols = NB / kGroups;
    double s[4] = {0, 0, 0, 0};
#pragma unroll
    for (int k = 0; k < kCols; k++)
        s[k % 4] += inv[r * kStride + g * kCols + k] * vec[g * kCols + k];
    part[g * NB + r] = (s[0] + s[1]) + (s[2] + s[3]);
    __syncthreads();
    if (g == 0 && live) {
        double v = 0;
#pragma unroll
        for (int k = 0; k < kGroups; k++) v += part[k * NB + r];
        x[(size_t)row * incx] = v;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (p == blocks - 1) { // the last: every block has taken its ticket and stopped waiting
            ticket.store(0u, cuda::memory_order_relaxed);
            done.store(0u, cuda::memory_order_relaxed);
        } else { // the release orders the block's writes of x, which the barrier ordered
                 // before it (as CUTLASS's semaphore and cooperative groups' grid sync do)
            done.store((unsigned)p + 1, cuda::memory_order_release);
        }
    }
}

template <int NB> constexpr size_t shared_bytes() {
    return sizeof(double) * ((size_t)NB * (NB + 1) + (size_t)kGroups * NB + 2 * (size_t)NB) +
           sizeof(float) * (size_t)NB * (NB + 1);
}

} // namespace

template <int NB, bool upper> static cudaError_t allow_shared() {
    return cudaFuncSetAttribute(trsv_mixed_kernel<NB, upper>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)shared_bytes<NB>());
}

template <int NB, bool upper>
static cudaError_t launch(cudaStream_t s, bool unit, int n, const float *a, int lda, double *x,
                          int incx, unsigned *sync) {
    int blocks = (n + NB - 1) / NB;
    trsv_mixed_kernel<NB, upper><<<blocks, NB * kGroups, shared_bytes<NB>(), s>>>(
        unit, n, blocks, a, (size_t)lda, x, incx, sync);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_trsv_mixed_init(void) {
    cudaError_t e = allow_shared<64, false>();
    if (e == cudaSuccess) e = allow_shared<64, true>();
    if (e == cudaSuccess) e = allow_shared<128, false>();
    if (e == cudaSuccess) e = allow_shared<128, true>();
    return e;
}

extern "C" cudaError_t ps_cuda_launch_trsv_mixed(cudaStream_t s, int rows_per_block, int upper,
                                                 int unit, int n, const float *a, int lda,
                                                 double *x, int incx, unsigned *sync) {
    if (rows_per_block == 64)
        return upper ? launch<64, true>(s, unit != 0, n, a, lda, x, incx, sync)
                     : launch<64, false>(s, unit != 0, n, a, lda, x, incx, sync);
    return upper ? launch<128, true>(s, unit != 0, n, a, lda, x, incx, sync)
                 : launch<128, false>(s, unit != 0, n, a, lda, x, incx, sync);
}
