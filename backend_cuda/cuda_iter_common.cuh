// What the iterative solvers' two launch shapes share: a grid of blocks that meets at grid-wide
// syncs (cuda_iter_kernels.cu) and one thread-block cluster whose blocks read each other's
// shared memory (cuda_iter_cluster.cu). The normalization is written once against a reducer,
// which sums the blocks' values in a fixed order (per block, then over the blocks by one warp),
// so a launch is deterministic for a given grid or cluster.
#ifndef PS_BACKEND_CUDA_ITER_COMMON_CUH
#define PS_BACKEND_CUDA_ITER_COMMON_CUH

#include "cuda_device.cuh"
#include "cuda_internal.h"
#include "../core/iter/cg_scalars.h"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

struct sum_op {
    static __device__ double init() { return 0; }
    static __device__ double apply(double a, double b) { return a + b; }
};
struct max_op {
    static __device__ double init() { return 0; }
    static __device__ double apply(double a, double b) { return fmax(a, b); }
};

// The combination of v over a warp's lanes, in lane 0 (the order is fixed: halves, then
// quarters, ...).
template <typename Op = sum_op> __device__ __forceinline__ double warp_combine(double v) {
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, off));
    return v;
}

// The block's combination of v (Warps warps), in thread 0; callable again right away. The
// warps' values are combined by the first warp, in a fixed order. sh: Warps doubles.
template <typename Op, int Warps> __device__ double block_reduce(double v, double *sh) {
    v = warp_combine<Op>(v);
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    double s = Op::init();
    if (threadIdx.x < 32) {
        if ((int)threadIdx.x < Warps) s = sh[threadIdx.x];
        s = warp_combine<Op>(s);
    }
    __syncthreads();
    return s;
}

// The block's combinations of v[0 .. K) at once (one barrier pair for all), in thread 0's
// out[0 .. K), in the same order as block_reduce. sh: K * Warps doubles.
template <typename Op, int K, int Warps>
__device__ void block_reduce_n(const double *v, double *out, double *sh) {
    for (int k = 0; k < K; k++) {
        double x = warp_combine<Op>(v[k]);
        if ((threadIdx.x & 31) == 0) sh[k * Warps + (threadIdx.x >> 5)] = x;
    }
    __syncthreads();
    if (threadIdx.x < 32)
        for (int k = 0; k < K; k++) {
            out[k] = warp_combine<Op>((int)threadIdx.x < Warps ? sh[k * Warps + threadIdx.x]
                                                               : Op::init());
        }
    __syncthreads();
}

// Reductions over a (cooperative) grid: each block publishes its values to partial, the grid
// syncs, and every block combines all blocks' partials. Each reduction takes the next K *
// gridDim.x doubles of partial, so none overwrites another a slow block may still be reading.
// A grid of one block (no cooperative launch) never syncs the grid.
struct grid_reducer {
    cg::grid_group grid;
    double *partial, *sh, *bcast; // sh: K doubles per warp; bcast: K doubles
    int used;

    __device__ grid_reducer(double *partial_, double *sh_, double *bcast_)
        : grid(cg::this_grid()), partial(partial_), sh(sh_), bcast(bcast_), used(0) {}

    // v[0 .. K) becomes the combination of every block's v (the same in every thread).
    template <typename Op, int K, int Warps> __device__ void reduce(double *v) {
        const int g = gridDim.x;
        double *mine = partial + (size_t)used * g;
        used += K;
        double b[K];
        block_reduce_n<Op, K, Warps>(v, b, sh);
        if (threadIdx.x == 0)
            for (int k = 0; k < K; k++) {
                if (g > 1)
                    mine[k * g + blockIdx.x] = b[k];
                else // one block: the block's value is the grid's
                    bcast[k] = b[k];
            }
        if (g > 1) {
            grid.sync();
            if (threadIdx.x < 32) {
                for (int k = 0; k < K; k++) {
                    double s = Op::init();
                    for (int b = threadIdx.x; b < g; b += 32)
                        s = Op::apply(s, __ldcg(mine + k * g + b));
                    s = warp_combine<Op>(s);
                    if (threadIdx.x == 0) bcast[k] = s;
                }
            }
        }
        __syncthreads();
        for (int k = 0; k < K; k++) v[k] = bcast[k];
        __syncthreads();
    }
    // Before a block leaves after a reduction: nothing to wait for (partials live in global
    // memory).
    __device__ void finish() {}
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define PS_CUDA_HAS_CLUSTERS 1
// The combination of the value at p in every block's shared memory (p: an address in this
// block's), in lane 0 of the calling warp: lane r reads block r's, all in flight at once (one
// after another, each remote read's latency would add up), then the warp combines them in a
// fixed order. At most 32 blocks.
template <typename Op>
__device__ double cluster_combine(cg::cluster_group &cluster, double *p, int lane) {
    double s = (unsigned)lane < cluster.num_blocks() ? *cluster.map_shared_rank(p, (unsigned)lane)
                                                     : Op::init();
    return warp_combine<Op>(s);
}

// Reductions over one thread-block cluster: each block's values go to its own slots in shared
// memory, the cluster meets at its barrier, and every block combines all blocks' slots through
// distributed shared memory (cluster_combine). Each reduction takes the next K slots (none is
// rewritten in a launch), and finish() keeps a block's slots alive until every block has read
// them.
struct cluster_reducer {
    double *slots, *sh, *bcast; // slots: every reduction's K values, in shared memory
    int used;

    __device__ cluster_reducer(double *slots_, double *sh_, double *bcast_)
        : slots(slots_), sh(sh_), bcast(bcast_), used(0) {}

    template <typename Op, int K, int Warps> __device__ void reduce(double *v) {
        cg::cluster_group cluster = cg::this_cluster();
        double *mine = slots + used;
        used += K;
        for (int k = 0; k < K; k++) {
            double b = block_reduce<Op, Warps>(v[k], sh);
            if (threadIdx.x == 0) mine[k] = b;
        }
        cluster.sync();
        const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (warp < K) {
            const double s = cluster_combine<Op>(cluster, mine + warp, lane);
            if (lane == 0) bcast[warp] = s;
        }
        __syncthreads();
        for (int k = 0; k < K; k++) v[k] = bcast[k];
        __syncthreads();
    }
    __device__ void finish() { cg::this_cluster().sync(); }
};
#endif

// ||w||_2 over this thread's elements first, first + stride, ... < n (of any type), from at most
// 3 reductions of red. The sum of squares is taken directly (in double, which cannot overflow
// for float data); only when it leaves the safe range of double does a second, scaled pass run
// (max |w_i|, then sum (w_i / max)^2).
template <int Warps, typename W, typename Reducer>
__device__ double scaled_norm(Reducer &red, int first, int stride, int n, const W *w) {
    double ss = 0;
    for (int i = first; i < n; i += stride) ss += (double)w[i] * (double)w[i];
    red.template reduce<sum_op, 1, Warps>(&ss);
    if (ss >= 0x1p-960 && ss <= 0x1p960) return sqrt(ss);
    // underflow, overflow, zero, or NaN: scale by the largest magnitude
    double mx = 0;
    for (int i = first; i < n; i += stride) {
        double a = fabs((double)w[i]);
        mx = a > mx ? a : mx;
    }
    red.template reduce<max_op, 1, Warps>(&mx);
    if (!(mx > 0) || !(mx - mx == 0) || ss != ss) return ss != ss ? ss : mx; // zero, Inf, NaN
    double acc2 = 0;
    for (int i = first; i < n; i += stride) {
        double a = (double)w[i] / mx;
        acc2 += a * a;
    }
    red.template reduce<sum_op, 1, Warps>(&acc2);
    return mx * sqrt(acc2);
}

// ||w||_2 as scaled_norm takes it, and w /= it when positive and finite. Leaves red.finish to
// the caller.
template <typename T, int Warps, typename Reducer>
__device__ T normalize(Reducer &red, int first, int stride, int n, T *w) {
    const T hn = (T)scaled_norm<Warps>(red, first, stride, n, w);
    if (hn > T(0) && (double)hn - (double)hn == 0) {
        const T inv = (T)(1.0 / (double)hn);
        for (int i = first; i < n; i += stride) w[i] *= inv;
    }
    return hn;
}

// sum over c < k of h[c]^2 in warp 0, in a fixed order (lane l the columns l, l + 32, ..., then
// warp_combine), written to *out; the caller syncs the block before reading it. The resident
// kernel and the cluster's orthonormalize take ||h2||^2 this way.
__device__ __forceinline__ void warp_sum_squares(const double *h, int k, double *out) {
    if (threadIdx.x >= 32) return;
    double part = 0;
    for (int c = (int)threadIdx.x; c < k; c += 32) part += h[c] * h[c];
    part = warp_combine(part);
    if (threadIdx.x == 0) *out = part;
}

// GMRES's x[i] += dinv[i] * (V(i, 0 .. y.ky) y.y) for one row i, by a warp (every lane calls it
// with the same i): lane l sums the columns l, l + 32, ..., then warp_combine; the product is
// rounded to T before dinv and x, as gemv, vmul and axpy round. The resident kernel's restart and
// gmres_update_x's kernel both update x this way, so the two give the same x.
template <typename T>
__device__ __forceinline__ void update_x_row(size_t i, const T *v, int ldv, const ps_cuda_host_y &y,
                                             const T *dinv, T *x) {
    const int lane = threadIdx.x & 31;
    double s = 0;
    for (int c = lane; c < y.ky; c += 32) s += (double)v[i + (size_t)c * ldv] * y.y[c];
    s = warp_combine(s);
    if (lane == 0) {
        T u = (T)s;
        if (dinv) u = u * dinv[i];
        x[i] = x[i] + u;
    }
}

// CG's step (cg_step): what cuda_iter_kernels.cu's step kernels and the resident steps share.
// The step's scalars to out and, when the host is fetching them, to its mapped memory too.
template <typename T> __device__ void put_scalars(const double *s, T *out, T *host_out) {
    for (int k = 0; k < PS__CG_SCALARS; k++) {
        out[k] = (T)s[k];
        if (host_out) host_out[k] = (T)s[k];
    }
}

// cg_step's vectors, typed.
template <typename T> struct cg_vectors {
    T *x, *r, *u;
    const T *w;
    T *p, *s;
    const T *dinv;
    T *xbest;
    __device__ explicit cg_vectors(const ps_cuda_cg_ptrs &v)
        : x((T *)v.x), r((T *)v.r), u((T *)v.u), w((const T *)v.w), p((T *)v.p), s((T *)v.s),
          dinv((const T *)v.dinv), xbest((T *)v.xbest) {}
};

// What a step decides from its reduced (r, r), (r, u), (w, u) (acc, in double) and the scalar
// block sc (updated in place): ps__cg_scalars on the values rounded to T.
template <typename T> struct cg_decision {
    bool first_update; // p and s are u and w (they may hold anything before)
    int update, save;  // the vectors are updated; x is the best iterate
    T alpha, beta;
};
template <typename T>
__device__ cg_decision<T> cg_decide(double *sc, const double *acc, bool preconditioned,
                                    double stop_rr, int last) {
    const double rr = (T)acc[0], gamma = preconditioned ? (double)(T)acc[1] : rr, delta = (T)acc[2];
    cg_decision<T> d;
    d.first_update = sc[PS__CG_ALPHA] == 0;
    double alpha = 0, beta = 0;
    d.update =
        ps__cg_scalars(sc, gamma, delta, rr, stop_rr, last, sizeof(T) == 4, &alpha, &beta, &d.save);
    d.alpha = (T)alpha, d.beta = (T)beta;
    return d;
}

// Element i's terms of (r, r), (r, u), (w, u), added to acc in double.
__device__ __forceinline__ void cg_dots(double *acc, double r, double u, double w) {
    acc[0] += r * r;
    acc[1] += r * u;
    acc[2] += w * u;
}

// Element i's update from its old values: p = u + beta p, s = w + beta s, x += alpha p,
// r -= alpha s, u = dinv .* r.
template <typename T>
__device__ void cg_update(const cg_vectors<T> &v, const cg_decision<T> &d, int i, T x, T r, T u,
                          T w, T p, T s) {
    const T pi = d.first_update ? u : u + d.beta * p;
    const T si = d.first_update ? w : w + d.beta * s;
    v.p[i] = pi;
    v.s[i] = si;
    v.x[i] = x + d.alpha * pi;
    const T ri = r - d.alpha * si;
    v.r[i] = ri;
    if (v.dinv) v.u[i] = v.dinv[i] * ri;
}

// GMRES's column: h1, h2 and the norm to col and, when fetched, to the host's mapped memory.
template <typename T>
__device__ void put_column(int k, const double *h1, const double *h2, T hn, T *col, T *host_out) {
    for (int i = threadIdx.x; i <= 2 * k; i += blockDim.x) {
        const T x = i == 2 * k ? hn : i < k ? (T)h1[i] : (T)h2[i - k];
        col[i] = x;
        if (host_out) host_out[i] = x;
    }
}

} // namespace

#endif
