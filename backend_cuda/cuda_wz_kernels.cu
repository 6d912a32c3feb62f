// The CUDA backend's WZ kernels, both precisions: the wz_* entries of core/backend.h, with the
// arithmetic of the CPU oracle (backend_cpu/cpu_wz_real.h) and core/wz/wz_corner.h.
#include "cuda_device.cuh"
#include "cuda_internal.h"

namespace {

#define A_(i, j) a[(size_t)(i) + (size_t)(j) * (size_t)lda]

// Block argmax: the largest value, ties to the smaller row; every thread gets the winning row.
template <typename T> __device__ int block_pick(T bv, int bi, T *val, int *row) {
    int tid = threadIdx.x;
    val[tid] = bv;
    row[tid] = bi;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            T v2 = val[tid + s];
            int i2 = row[tid + s];
            if (v2 > val[tid] || (v2 == val[tid] && i2 < row[tid])) {
                val[tid] = v2;
                row[tid] = i2;
            }
        }
        __syncthreads();
    }
    int r = row[0];
    __syncthreads();
    return r;
}

template <typename T> __device__ void swap_rows(T *a, int lda, int ncols, int r1, int r2) {
    if (r1 == r2) return;
    for (int j = threadIdx.x; j < ncols; j += blockDim.x) {
        T t = A_(r1, j);
        A_(r1, j) = A_(r2, j);
        A_(r2, j) = t;
    }
}

// Pivot rows (backend.h): row lo gets the first largest |a(i,c0)| of [lo, hi), then row r1 the
// first row of [lo+1, hi) maximizing |a(lo,c0) a(i,c1) - a(lo,c1) a(i,c0)|; swaps over ncols.
template <typename T>
__device__ void pick_rows(T *a, int lda, int lo, int hi, int r1, int c0, int c1, int ncols, T *val,
                          int *row, int *p_out, int *q_out) {
    T bv = -1;
    int bi = hi;
    for (int i = lo + threadIdx.x; i < hi; i += blockDim.x)
        if (fabs(A_(i, c0)) > bv) {
            bv = fabs(A_(i, c0));
            bi = i;
        }
    int p = block_pick(bv, bi, val, row);
    if (p == hi) p = lo; /* every |a(i,c0)| NaN: no interchange, as the oracle */
    swap_rows(a, lda, ncols, lo, p);
    __syncthreads();
    T u0 = A_(lo, c0), u1 = A_(lo, c1);
    ps_cuda_wz_scaled_row(u0, u1);
    bv = -1;
    bi = hi;
    for (int i = lo + 1 + threadIdx.x; i < hi; i += blockDim.x) {
        T d = fabs(u0 * A_(i, c1) - u1 * A_(i, c0));
        if (d > bv) {
            bv = d;
            bi = i;
        }
    }
    int q = block_pick(bv, bi, val, row);
    if (q == hi) q = lo + 1; /* every determinant NaN: the oracle's default partner */
    swap_rows(a, lda, ncols, r1, q);
    __syncthreads();
    *p_out = p;
    *q_out = q;
}

// [w0 w1] C = [a(i,c0) a(i,c1)] for rows [e0, e1) by elimination of C^T with partial pivoting;
// a singular corner (a pivot below the safe minimum) zeroes them instead and returns false.
template <typename T>
__device__ bool eliminate(T *a, int lda, int e0, int e1, int c0, int c1, T c00, T c01, T c10,
                          T c11) {
    bool swap = fabs(c01) > fabs(c00);
    T q = swap ? c01 : c00, s = swap ? c11 : c10;
    T l = (swap ? c00 : c01) / q, u = (swap ? c10 : c11) - l * s;
    bool ok = fabs(q) >= ps_cuda_safe_min<T>::value() && fabs(u) >= ps_cuda_safe_min<T>::value();
    for (int i = e0 + threadIdx.x; i < e1; i += blockDim.x) {
        if (!ok) {
            A_(i, c0) = 0;
            A_(i, c1) = 0;
            continue;
        }
        T x0 = A_(i, c0), x1 = A_(i, c1);
        T ra = swap ? x1 : x0, rb = swap ? x0 : x1;
        T w1 = (rb - l * ra) / u;
        A_(i, c0) = (ra - s * w1) / q;
        A_(i, c1) = w1;
    }
    return ok;
}

template <typename T>
__global__ void wz_corner_kernel(int n, int k, T *a, int lda, int *ipiv, int *info, int pivoting) {
    extern __shared__ unsigned char shared_raw[];
    T *val = reinterpret_cast<T *>(shared_raw);
    int *row = reinterpret_cast<int *>(val + blockDim.x);
    int k2 = n - 1 - k;
    if (k == k2) {
        if (threadIdx.x == 0) {
            ipiv[k] = k;
            if (!(fabs(A_(k, k)) >= ps_cuda_safe_min<T>::value()) && info[0] == 0) info[0] = k + 1;
        }
        return;
    }
    int p = k, q = k2;
    if (pivoting) pick_rows(a, lda, k, k2 + 1, k2, k, k2, n, val, row, &p, &q);
    if (threadIdx.x == 0) {
        ipiv[k] = p;
        ipiv[k2] = q;
    }
    if (!eliminate(a, lda, k + 1, k2, k, k2, A_(k, k), A_(k, k2), A_(k2, k), A_(k2, k2)) &&
        threadIdx.x == 0 && info[0] == 0)
        info[0] = k + 1;
}

template <typename T>
__global__ void wz_panel_kernel(int m, int w, T *a, int lda, T *zsub, int zinc, int *ipiv,
                                int row_base, int *info, int pivoting) {
    extern __shared__ unsigned char shared_raw[];
    T *val = reinterpret_cast<T *>(shared_raw);
    int *row = reinterpret_cast<int *>(val + blockDim.x);
    int tid = threadIdx.x, nt = blockDim.x;
    for (int s = 0; 2 * s < w; s++) {
        int t0 = 2 * s, t1 = t0 + 1, step = row_base / 2 + s + 1;
        if (t1 == w) { // the middle 1 x 1 step
            int p = t0;
            if (pivoting) {
                T bv = -1;
                int bi = m;
                for (int i = t0 + tid; i < m; i += nt)
                    if (fabs(A_(i, t0)) > bv) {
                        bv = fabs(A_(i, t0));
                        bi = i;
                    }
                p = block_pick(bv, bi, val, row);
                if (p == m) p = t0; /* an all-NaN column */
                swap_rows(a, lda, w, t0, p);
                __syncthreads();
            }
            T pv = A_(t0, t0);
            bool ok = fabs(pv) >= ps_cuda_safe_min<T>::value();
            for (int i = t1 + tid; i < m; i += nt) A_(i, t0) = ok ? A_(i, t0) / pv : T(0);
            if (tid == 0) {
                ipiv[t0] = row_base + p;
                if (!ok && info[0] == 0) info[0] = step;
            }
            __syncthreads();
            continue;
        }
        int p = t0, q = t1;
        if (pivoting) pick_rows(a, lda, t0, m, t1, t0, t1, w, val, row, &p, &q);
        T c00 = A_(t0, t0), c01 = A_(t0, t1), c10 = A_(t1, t0), c11 = A_(t1, t1);
        __syncthreads(); // every thread has read the corner
        if (tid == 0) {
            ipiv[t0] = row_base + p;
            ipiv[t1] = row_base + q;
            zsub[(size_t)s * zinc] = c10;
            A_(t1, t0) = 0;
        }
        bool ok = eliminate(a, lda, t1 + 1, m, t0, t1, c00, c01, c10, c11);
        if (!ok && tid == 0 && info[0] == 0) info[0] = step;
        if (ok)
            for (int i = t1 + 1 + tid; i < m; i += nt) {
                T w0 = A_(i, t0), w1 = A_(i, t1);
                for (int j = t1 + 1; j < w; j++) A_(i, j) -= w0 * A_(t0, j) + w1 * A_(t1, j);
            }
        __syncthreads();
    }
}

__device__ int nat_of(int n, int t) {
    return t % 2 == 0 ? t / 2 : n - 1 - (t - 1) / 2;
}
__device__ int pos_of(int n, int r) {
    return 2 * r <= n - 1 ? 2 * r : 2 * (n - 1 - r) + 1;
}

// One thread per destination element (a gather either way).
template <typename T>
__global__ void wz_reorder_kernel(int n, int ncols, int square, int to_steps, const T *src, int lds,
                                  T *dst, int ldd, T *zsub, int zinc) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= n || j >= ncols) return;
    int si = to_steps ? nat_of(n, i) : pos_of(n, i);
    int sj = !square ? j : to_steps ? nat_of(n, j) : pos_of(n, j);
    T v = src[(size_t)si + (size_t)sj * lds];
    if (square && zsub) {
        // the corner's lower-left entry: step order (2s+1, 2s), natural (n-1-s, s)
        int t = to_steps ? i : si, u = to_steps ? j : sj;
        if (t % 2 == 1 && u == t - 1) {
            T *z = zsub + (size_t)(u / 2) * zinc;
            if (to_steps) {
                *z = v;
                v = 0;
            } else {
                v = *z;
            }
        }
    }
    dst[(size_t)i + (size_t)j * ldd] = v;
}

// One thread per right-hand side: the oracle's 2 x 2 block back substitution.
template <typename T>
__global__ void wz_zsolve_kernel(int nb, int nrhs, const T *a, int lda, const T *zsub, int zinc,
                                 T *x, int ldx) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= nrhs) return;
    T *xc = x + (size_t)c * ldx;
    int t = nb;
    if (nb % 2) {
        t = nb - 1;
        xc[t] /= A_(t, t);
    }
    while (t > 0) {
        int t0 = t - 2, t1 = t - 1;
        T r0 = xc[t0], r1 = xc[t1];
        for (int j = t; j < nb; j++) {
            r0 -= A_(t0, j) * xc[j];
            r1 -= A_(t1, j) * xc[j];
        }
        T u00 = A_(t0, t0), u01 = A_(t0, t1), u10 = zsub[(size_t)(t0 / 2) * zinc], u11 = A_(t1, t1);
        bool swap = fabs(u01) > fabs(u00);
        T q = swap ? u01 : u00, s = swap ? u11 : u10;
        T l = (swap ? u00 : u01) / q, u = (swap ? u10 : u11) - l * s;
        T y0 = r0 / q, y1 = (r1 - s * y0) / u;
        y0 = y0 - l * y1;
        xc[t0] = swap ? y1 : y0;
        xc[t1] = swap ? y0 : y1;
        t = t0;
    }
}

#undef A_

} // namespace

extern "C" cudaError_t ps_cuda_launch_wz_corner(cudaStream_t s, int dbl, int threads, int n, int k,
                                                void *a, int lda, int *ipiv, int *info,
                                                int pivoting) {
    size_t shared = (size_t)threads * ((dbl ? sizeof(double) : sizeof(float)) + sizeof(int));
    if (dbl)
        wz_corner_kernel<double>
            <<<1, threads, shared, s>>>(n, k, static_cast<double *>(a), lda, ipiv, info, pivoting);
    else
        wz_corner_kernel<float>
            <<<1, threads, shared, s>>>(n, k, static_cast<float *>(a), lda, ipiv, info, pivoting);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_wz_panel(cudaStream_t s, int dbl, int threads, int m, int w,
                                               void *a, int lda, void *zsub, int zinc, int *ipiv,
                                               int row_base, int *info, int pivoting) {
    size_t shared = (size_t)threads * ((dbl ? sizeof(double) : sizeof(float)) + sizeof(int));
    if (dbl)
        wz_panel_kernel<double><<<1, threads, shared, s>>>(m, w, static_cast<double *>(a), lda,
                                                           static_cast<double *>(zsub), zinc, ipiv,
                                                           row_base, info, pivoting);
    else
        wz_panel_kernel<float><<<1, threads, shared, s>>>(m, w, static_cast<float *>(a), lda,
                                                          static_cast<float *>(zsub), zinc, ipiv,
                                                          row_base, info, pivoting);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_wz_reorder(cudaStream_t s, int dbl, int n, int ncols,
                                                 int square, int to_steps, const void *src, int lds,
                                                 void *dst, int ldd, void *zsub, int zinc) {
    dim3 block(32, 8), grid((n + 31) / 32, (ncols + 7) / 8);
    if (dbl)
        wz_reorder_kernel<double><<<grid, block, 0, s>>>(
            n, ncols, square, to_steps, static_cast<const double *>(src), lds,
            static_cast<double *>(dst), ldd, static_cast<double *>(zsub), zinc);
    else
        wz_reorder_kernel<float><<<grid, block, 0, s>>>(
            n, ncols, square, to_steps, static_cast<const float *>(src), lds,
            static_cast<float *>(dst), ldd, static_cast<float *>(zsub), zinc);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_wz_zsolve(cudaStream_t s, int dbl, int nb, int nrhs,
                                                const void *a, int lda, const void *zsub, int zinc,
                                                void *x, int ldx) {
    int threads = 64, blocks = (nrhs + threads - 1) / threads;
    if (dbl)
        wz_zsolve_kernel<double><<<blocks, threads, 0, s>>>(
            nb, nrhs, static_cast<const double *>(a), lda, static_cast<const double *>(zsub), zinc,
            static_cast<double *>(x), ldx);
    else
        wz_zsolve_kernel<float><<<blocks, threads, 0, s>>>(nb, nrhs, static_cast<const float *>(a),
                                                           lda, static_cast<const float *>(zsub),
                                                           zinc, static_cast<float *>(x), ldx);
    return cudaGetLastError();
}
