// The iterative solvers' fused kernels: one conjugate-gradient step after q = A p, and GMRES's
// normalization of a new basis vector. Each is one cooperative launch whose reductions end in a
// grid-wide sync, so the scalars they need (alpha, beta, the norm) are formed on the device and
// the host never waits in the middle of an iteration. Reductions accumulate in double and are
// summed in a fixed order (per block, then the blocks' partials by one warp), so a launch is
// deterministic for a given grid.
#include "cuda_internal.h"

#include <cfloat>
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = PS_CUDA_ITER_THREADS;
constexpr int kWarps = kThreads / 32;

struct sum_op {
    static __device__ double init() { return 0; }
    static __device__ double apply(double a, double b) { return a + b; }
};
struct max_op {
    static __device__ double init() { return 0; }
    static __device__ double apply(double a, double b) { return fmax(a, b); }
};

// The block's combination of v, in thread 0; callable again right away.
template <typename Op> __device__ double block_reduce(double v, double *sh) {
    for (int off = 16; off > 0; off >>= 1) v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, off));
    if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = v;
    __syncthreads();
    double s = Op::init();
    if (threadIdx.x == 0)
        for (int w = 0; w < kWarps; w++) s = Op::apply(s, sh[w]);
    __syncthreads();
    return s;
}

// Publishes the block's values (K of them), syncs the grid, and returns in v the combination of
// all blocks' (the same in every thread of every block). partial holds K * gridDim.x doubles;
// each call needs its own partial area.
template <typename Op, int K>
__device__ void grid_reduce(cg::grid_group &grid, double *v, double *partial, double *sh,
                            double *bcast) {
    const int g = gridDim.x;
    for (int k = 0; k < K; k++) {
        double b = block_reduce<Op>(v[k], sh);
        if (threadIdx.x == 0) partial[k * g + blockIdx.x] = b;
    }
    if (g > 1)
        grid.sync();
    else // the one-block launch without cooperative launch support
        __syncthreads();
    if (threadIdx.x < 32) {
        for (int k = 0; k < K; k++) {
            double s = Op::init();
            for (int b = threadIdx.x; b < g; b += 32) s = Op::apply(s, __ldcg(partial + k * g + b));
            for (int off = 16; off > 0; off >>= 1)
                s = Op::apply(s, __shfl_down_sync(0xffffffffu, s, off));
            if (threadIdx.x == 0) bcast[k] = s;
        }
    }
    __syncthreads();
    for (int k = 0; k < K; k++) v[k] = bcast[k];
    __syncthreads();
}
template <typename Op>
__device__ double grid_reduce1(cg::grid_group &grid, double v, double *partial, double *sh,
                               double *bcast) {
    grid_reduce<Op, 1>(grid, &v, partial, sh, bcast);
    return v;
}

// The step's scalars to out and, when the host is fetching them, to its mapped memory too.
template <typename T> __device__ void put_scalars(const T *s, T *out, T *host_out) {
    for (int k = 0; k < PS__CG_SCALARS; k++) {
        out[k] = s[k];
        if (host_out) host_out[k] = s[k];
    }
}

// One CG step as core/backend.h defines cg_step. partial: 3 * gridDim.x doubles. z and r may be
// the same vector (then dinv is null and z is never written). host_out: the fetch slot's mapped
// host memory, or null.
template <typename T>
__global__ void __launch_bounds__(kThreads)
    cg_step_kernel(int n, T *x, T *r, T *z, T *p, const T *q, const T *dinv, T *xbest, const T *in,
                   T *out, double stop_rr, double *partial, T *host_out) {
    cg::grid_group grid = cg::this_grid();
    __shared__ double sh[kWarps], bcast[2];
    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    T sc[PS__CG_SCALARS];
    for (int k = 0; k < PS__CG_SCALARS; k++) sc[k] = in[k];
    const double rz = sc[PS__CG_RZ];
    // each thread owns elements first, first + stride, ... in every loop below
    if (sc[PS__CG_SAVE] != T(0))
        for (int i = first; i < n; i += stride) xbest[i] = x[i];
    sc[PS__CG_SAVE] = 0;
    if (sc[PS__CG_STOP] != T(0)) {
        if (first == 0) put_scalars(sc, out, host_out);
        return;
    }
    double acc = 0;
    for (int i = first; i < n; i += stride) acc += (double)p[i] * (double)q[i];
    const T pq = (T)grid_reduce1<sum_op>(grid, acc, partial, sh, bcast);
    if (!(pq > T(0))) { // every block sees the same pq and leaves here
        if (first == 0) {
            sc[PS__CG_PQ] = pq;
            sc[PS__CG_STOP] = T(PS__CG_STOP_PQ);
            put_scalars(sc, out, host_out);
        }
        return;
    }
    const T alpha = (T)(rz / (double)pq);
    double acc2[2] = {0, 0}; // (r, z), (r, r)
    for (int i = first; i < n; i += stride) {
        x[i] += alpha * p[i];
        const T ri = r[i] - alpha * q[i];
        r[i] = ri;
        T zi = ri;
        if (dinv) {
            zi = dinv[i] * ri;
            z[i] = zi;
        }
        acc2[0] += (double)ri * (double)zi;
        acc2[1] += (double)ri * (double)ri;
    }
    grid_reduce<sum_op, 2>(grid, acc2, partial + gridDim.x, sh, bcast);
    const T rz_new = (T)acc2[0], rr = dinv ? (T)acc2[1] : rz_new;
    const T beta = (T)((double)rz_new / rz);
    for (int i = first; i < n; i += stride) p[i] = (dinv ? z[i] : r[i]) + beta * p[i];
    if (first == 0) {
        const T best = sc[PS__CG_BEST];
        const double rrd = rr;
        sc[PS__CG_RZ] = rz_new;
        sc[PS__CG_RR] = rr;
        sc[PS__CG_PQ] = pq;
        sc[PS__CG_BEST] = rr < best ? rr : best;
        sc[PS__CG_SAVE] = T(rr < best ? 1 : 0);
        sc[PS__CG_STOP] = T(rrd <= stop_rr      ? PS__CG_STOP_CONVERGED
                            : !(rrd - rrd == 0) ? PS__CG_STOP_NOT_FINITE
                            : rz_new == T(0)    ? PS__CG_STOP_RZ
                                                : 0);
        put_scalars(sc, out, host_out);
    }
}

// col[count - 1] = ||w||_2, then w /= it when positive and finite; block 0 copies col to the
// fetch slot's mapped host memory (host_out, or null). The sum of squares is taken directly (in
// double, which cannot overflow for float data); only when it leaves the safe range of double
// does a second, scaled pass run (max |w_i|, then sum (w_i / max)^2).
template <typename T>
__global__ void __launch_bounds__(kThreads)
    normalize_kernel(int n, T *w, T *col, int count, double *partial, T *host_out) {
    cg::grid_group grid = cg::this_grid();
    __shared__ double sh[kWarps], bcast[1];
    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const int g = gridDim.x;
    double acc = 0;
    for (int i = first; i < n; i += stride) acc += (double)w[i] * (double)w[i];
    const double ss = grid_reduce1<sum_op>(grid, acc, partial, sh, bcast);
    double nrm;
    if (ss >= 0x1p-960 && ss <= 0x1p960) {
        nrm = sqrt(ss);
    } else { // underflow, overflow, zero, or NaN: scale by the largest magnitude
        double mx = 0;
        for (int i = first; i < n; i += stride) {
            double v = fabs((double)w[i]);
            mx = v > mx ? v : mx;
        }
        mx = grid_reduce1<max_op>(grid, mx, partial + g, sh, bcast);
        if (!(mx > 0) || !(mx - mx == 0) || ss != ss) {
            nrm = ss != ss ? ss : mx; // zero, Inf, NaN
        } else {
            double acc2 = 0;
            for (int i = first; i < n; i += stride) {
                double v = (double)w[i] / mx;
                acc2 += v * v;
            }
            nrm = mx * sqrt(grid_reduce1<sum_op>(grid, acc2, partial + 2 * g, sh, bcast));
        }
    }
    const T h = (T)nrm;
    if (h > T(0) && (double)h - (double)h == 0) {
        const T inv = (T)(1.0 / (double)h);
        for (int i = first; i < n; i += stride) w[i] *= inv;
    }
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0) col[count - 1] = h;
        if (host_out)
            for (int i = threadIdx.x; i < count; i += blockDim.x)
                host_out[i] = i == count - 1 ? h : col[i];
    }
}

int grid_for(const ps_cuda_iter_limits *lim, int n) {
    int blocks = (n + kThreads - 1) / kThreads;
    return blocks < 1 || lim->max_blocks < 1 ? 1
           : blocks > lim->max_blocks        ? lim->max_blocks
                                             : blocks;
}

// A grid of one block needs no cooperative launch (the kernels then sync the block only).
cudaError_t launch(const void *kernel, int blocks, void **args, cudaStream_t s) {
    if (blocks == 1) return cudaLaunchKernel(kernel, dim3(1), dim3(kThreads), args, 0, s);
    return cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(kThreads), args, 0, s);
}

} // namespace

extern "C" cudaError_t ps_cuda_iter_init(int device, ps_cuda_iter_limits *out) {
    int sms = 0, per = 0, least = 1 << 30;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    const void *kernels[] = {
        (const void *)cg_step_kernel<double>, (const void *)cg_step_kernel<float>,
        (const void *)normalize_kernel<double>, (const void *)normalize_kernel<float>};
    for (int k = 0; k < 4 && !err; k++) {
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per, kernels[k], kThreads, 0);
        if (per < least) least = per;
    }
    if (err) return err;
    // a few blocks per SM hide the vector loads' latency; more only lengthen the partial sums
    if (least > PS_CUDA_ITER_BLOCKS_PER_SM) least = PS_CUDA_ITER_BLOCKS_PER_SM;
    out->max_blocks = least * sms;
    return cudaSuccess;
}

extern "C" cudaError_t
ps_cuda_launch_cg_step(cudaStream_t s, int dbl, const ps_cuda_iter_limits *lim, int n, void *x,
                       void *r, void *z, void *p, const void *q, const void *dinv, void *xbest,
                       const void *in, void *out, double stop_rr, double *partial, void *host_out) {
    void *args[] = {&n,     &x,  &r,   &z,       &p,       &q,       &dinv,
                    &xbest, &in, &out, &stop_rr, &partial, &host_out};
    const void *kernel =
        dbl ? (const void *)cg_step_kernel<double> : (const void *)cg_step_kernel<float>;
    return launch(kernel, grid_for(lim, n), args, s);
}

extern "C" cudaError_t ps_cuda_launch_normalize(cudaStream_t s, int dbl,
                                                const ps_cuda_iter_limits *lim, int n, void *w,
                                                void *col, int count, double *partial,
                                                void *host_out) {
    void *args[] = {&n, &w, &col, &count, &partial, &host_out};
    const void *kernel =
        dbl ? (const void *)normalize_kernel<double> : (const void *)normalize_kernel<float>;
    return launch(kernel, grid_for(lim, n), args, s);
}
