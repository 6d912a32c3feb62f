// The grid-wide exchange the cooperative panel kernels (the LU leaf in cuda_lu_panel.cu, the WZ
// leaf in cuda_wz_panel.cu) pick their pivots with: warp and block argmax, and 64-bit words that
// carry 32 bits of payload each with a flag, so a reader needs neither a fence nor a grid barrier.
#ifndef PS_BACKEND_CUDA_COOP_CUH
#define PS_BACKEND_CUDA_COOP_CUH

#include "cuda_internal.h"

namespace {

// Warp-wide argmax of (v, r): the largest v wins, ties go to the smaller row; lane 0 holds it.
template <typename T> __device__ void warp_argmax(T &v, int &r) {
    for (int off = 16; off > 0; off >>= 1) {
        T v2 = __shfl_down_sync(0xffffffffu, v, off);
        int r2 = __shfl_down_sync(0xffffffffu, r, off);
        if (v2 > v || (v2 == v && r2 < r)) {
            v = v2;
            r = r2;
        }
    }
}

constexpr int kWarps = PS_CUDA_COOP_THREADS / 32;

// Block-wide argmax of (v, r) (rows `none` stand for no candidate) through the warps' partial
// results; true in warp 0, whose lane 0 then holds the block's. Ends with warp 0 past a barrier
// the other warps have also passed.
template <typename T>
__device__ bool block_argmax(T &v, int &r, int none, T *warp_val, int *warp_row) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    warp_argmax(v, r);
    if (lane == 0) {
        warp_val[warp] = v;
        warp_row[warp] = r;
    }
    __syncthreads();
    if (warp != 0) return false;
    v = lane < kWarps ? warp_val[lane] : T(-1);
    r = lane < kWarps ? warp_row[lane] : none;
    warp_argmax(v, r);
    return true;
}

// The exchange between blocks carries every 32 bits of payload in one 64-bit word with a flag
// (NCCL's "LL" protocol): a reader spins until the word holds the flag it expects, so neither a
// memory fence nor a grid-wide barrier orders the data, and one L2 round trip delivers it. The
// flag is epoch << PS_CUDA_COOP_COLUMN_BITS | (column + 1), the epoch counting launches, so words
// left by earlier columns or launches never match (the backend clears them when epochs wrap).
typedef unsigned long long ll_word;
template <typename T> constexpr int kWords = sizeof(T) / 4; // words per element

__device__ __forceinline__ void ll_put(ll_word *w, unsigned payload, unsigned flag) {
    *reinterpret_cast<volatile ll_word *>(w) = (ll_word)payload << 32 | flag;
}
__device__ __forceinline__ ll_word ll_load(const ll_word *w) {
    return *reinterpret_cast<const volatile ll_word *>(w);
}
__device__ __forceinline__ void ll_put_value(ll_word *w, double v, unsigned flag) {
    unsigned long long bits = (unsigned long long)__double_as_longlong(v);
    ll_put(w, (unsigned)(bits >> 32), flag);
    ll_put(w + 1, (unsigned)bits, flag);
}
__device__ __forceinline__ void ll_put_value(ll_word *w, float v, unsigned flag) {
    ll_put(w, __float_as_uint(v), flag);
}
__device__ __forceinline__ unsigned ll_payload(ll_word x) {
    return (unsigned)(x >> 32);
}
template <typename T> __device__ T ll_value(const ll_word *x);
template <> __device__ __forceinline__ double ll_value<double>(const ll_word *x) {
    return __longlong_as_double((long long)(x[0] >> 32 << 32 | x[1] >> 32));
}
template <> __device__ __forceinline__ float ll_value<float>(const ll_word *x) {
    return __uint_as_float(ll_payload(x[0]));
}
// Loads count words from each of two places (b may be null) in one pass, again until every word
// carries flag: the loads of a pass are independent, so a pass costs one round trip. (Spinning
// on one word at a time serializes the round trips; measured twice as slow as a grid sync.)
template <int N>
__device__ __forceinline__ void ll_read(const ll_word *a, const ll_word *b, unsigned flag,
                                        ll_word *out) {
    bool ready;
    do {
        ready = true;
        for (int i = 0; i < N; i++) {
            out[i] = ll_load(a + i);
            if (b) out[N + i] = ll_load(b + i);
        }
        for (int i = 0; i < N; i++)
            ready = ready && (unsigned)out[i] == flag && (!b || (unsigned)out[N + i] == flag);
    } while (!ready);
}

// A block's pivot candidate: the block-wide argmax of (v, r) published as the block's C = words
// + 1 exchange words at slot (the value, then the row). True in the one thread that wrote them
// (lane 0 of warp 0), whose (v, r) then hold the block's candidate.
template <typename T>
__device__ __forceinline__ bool put_candidate(T &v, int &r, int none, ll_word *slot, unsigned flag,
                                              T *warp_val, int *warp_row) {
    if (!block_argmax(v, r, none, warp_val, warp_row) || (threadIdx.x & 31) != 0) return false;
    ll_put_value(slot, v, flag);
    ll_put(slot + kWords<T>, (unsigned)r, flag);
    return true;
}

// The winner of an exchange, reduced by every block in the same order: thread c reads block c's
// candidate (blocks <= the block's threads). Lane 0 of warp 0 gets the winning row (none when no
// block had a candidate), every other thread -1.
template <typename T>
__device__ __forceinline__ int take_candidates(const ll_word *slots, int blocks, unsigned flag,
                                               int none, T *warp_val, int *warp_row) {
    constexpr int C = kWords<T> + 1;
    T v = -1;
    int r = none;
    if ((int)threadIdx.x < blocks) {
        ll_word x[C];
        ll_read<C>(slots + (size_t)threadIdx.x * C, nullptr, flag, x);
        v = ll_value<T>(x);
        r = (int)ll_payload(x[kWords<T>]);
    }
    return block_argmax(v, r, none, warp_val, warp_row) && (threadIdx.x & 31) == 0 ? r : -1;
}

} // namespace

#endif
