// The CUDA backend's custom kernels (fill, the one-block LU panel, the Cholesky block, the fused
// vector updates), both precisions.
#include "cuda_device.cuh"
#include "cuda_internal.h"

namespace {

// Block-wide argmax of (best_val[tid], best_row[tid]) into element 0: the largest value wins,
// ties go to the smaller row, as BLAS i?amax and LAPACK's pivot choice do.
template <typename T> __device__ void block_argmax(T *best_val, int *best_row) {
    int tid = threadIdx.x;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            T v2 = best_val[tid + s];
            int i2 = best_row[tid + s];
            if (v2 > best_val[tid] || (v2 == best_val[tid] && i2 < best_row[tid])) {
                best_val[tid] = v2;
                best_row[tid] = i2;
            }
        }
        __syncthreads();
    }
}

// Block-wide argmax of |col[i]| over rows [from, to) into best_val[0], best_row[0] (row `none`
// when the range is empty; no value ties with the -1 that stands for it).
template <typename T>
__device__ void block_argmax_rows(const T *col, int from, int to, int none, T *best_val,
                                  int *best_row) {
    T bv = -1;
    int bi = none;
    for (int i = from + (int)threadIdx.x; i < to; i += blockDim.x) {
        T v = fabs(col[i]);
        if (v > bv) {
            bv = v;
            bi = i;
        }
    }
    best_val[threadIdx.x] = bv;
    best_row[threadIdx.x] = bi;
    block_argmax(best_val, best_row);
}

template <typename T> __global__ void fill_kernel(int rows, int cols, T value, T *a, int lda) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < rows && j < cols) a[i + (size_t)j * lda] = value;
}

// Unblocked LU with partial pivoting of an m x n panel by one thread block, so the panel is
// factored on the device in one launch with no host round trip per column. Matches LAPACK
// dgetf2 and the CPU oracle (first largest |a(i,j)| wins; tiny pivots divide, zero pivots are
// recorded in info and their column left unscaled).
template <typename T>
__global__ void getrf_panel_kernel(int m, int n, T *a, int lda, int *ipiv, int row_base,
                                   int *info) {
    extern __shared__ unsigned char shared_raw[];
    T *best_val = reinterpret_cast<T *>(shared_raw);
    int *best_row = reinterpret_cast<int *>(best_val + blockDim.x);
    __shared__ T pivot_value;
    __shared__ int pivot_row;
    int tid = threadIdx.x, nt = blockDim.x;
    int steps = m < n ? m : n;
    for (int j = 0; j < steps; j++) {
        T *col = a + (size_t)j * lda;
        block_argmax_rows(col, j, m, m, best_val, best_row);
        if (tid == 0) {
            pivot_row = best_row[0];
            pivot_value = col[pivot_row];
            ipiv[j] = row_base + pivot_row;
        }
        __syncthreads();
        int p = pivot_row;
        T pivot = pivot_value;
        if (pivot != 0 && p != j)
            for (int k = tid; k < n; k += nt) {
                T *ck = a + (size_t)k * lda;
                T t = ck[j];
                ck[j] = ck[p];
                ck[p] = t;
            }
        __syncthreads();
        if (pivot != 0) {
            if (fabs(pivot) >= ps_cuda_safe_min<T>::value()) {
                T r = 1 / pivot;
                for (int i = j + 1 + tid; i < m; i += nt) col[i] *= r;
            } else {
                for (int i = j + 1 + tid; i < m; i += nt) col[i] /= pivot;
            }
        } else if (tid == 0 && info[0] == 0) {
            info[0] = row_base + j + 1;
        }
        __syncthreads();
        for (int i = j + 1 + tid; i < m; i += nt) {
            T l = col[i];
            for (int k = j + 1; k < n; k++) {
                T *ck = a + (size_t)k * lda;
                ck[i] -= l * ck[j];
            }
        }
        __syncthreads();
    }
}

// Unblocked Cholesky of an n x n diagonal block (n <= PS_CUDA_POTRF_MAX) by one thread block in
// shared memory: right-looking, one column per step, the same operations in the same order as
// the CPU oracle. The upper case is factored as the lower factor of its transpose. A nonzero
// info on entry (an earlier block failed) makes the kernel do nothing.
template <typename T>
__global__ void potrf_panel_kernel(int lower, int n, T *a, int lda, int *info, int index_base) {
    extern __shared__ unsigned char shared_raw[];
    T *s = reinterpret_cast<T *>(shared_raw);
    __shared__ int failed;
    if (*info != 0) return; // the same value for every thread
    int tid = threadIdx.x, nt = blockDim.x;
    for (int e = tid; e < n * n; e += nt) {
        int i = e % n, j = e / n;
        if (i >= j) s[e] = lower ? a[i + (size_t)j * lda] : a[j + (size_t)i * lda];
    }
    if (tid == 0) failed = -1;
    __syncthreads();
    for (int j = 0; j < n; j++) {
        T d = s[j + j * n];
        if (!(d > 0)) { // every thread read the same d: a uniform exit
            if (tid == 0) failed = j;
            break;
        }
        T r = sqrt(d);
        __syncthreads(); // all have read d
        if (tid == 0) s[j + j * n] = r;
        for (int i = j + 1 + tid; i < n; i += nt) s[i + j * n] /= r;
        __syncthreads();
        int m = n - j - 1;
        for (int e = tid; e < m * m; e += nt) {
            int i = j + 1 + e % m, k = j + 1 + e / m;
            if (i >= k) s[i + k * n] -= s[i + j * n] * s[k + j * n];
        }
        __syncthreads();
    }
    __syncthreads();
    for (int e = tid; e < n * n; e += nt) {
        int i = e % n, j = e / n;
        if (i >= j) {
            if (lower)
                a[i + (size_t)j * lda] = s[e];
            else
                a[j + (size_t)i * lda] = s[e];
        }
    }
    if (tid == 0 && failed >= 0) *info = index_base + failed + 1;
}

template <typename T>
__global__ void axpby_kernel(int n, T alpha, const T *x, int incx, T beta, T *y, int incy) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[(size_t)i * incy] = alpha * x[(size_t)i * incx] + beta * y[(size_t)i * incy];
}

template <typename T> __global__ void vmul_kernel(int n, const T *x, int incx, T *y, int incy) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[(size_t)i * incy] *= x[(size_t)i * incx];
}

dim3 grid2d(int rows, int cols, dim3 block) {
    return dim3((rows + block.x - 1) / block.x, (cols + block.y - 1) / block.y);
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_fill(cudaStream_t s, int dbl, int rows, int cols,
                                           const void *value, void *a, int lda) {
    dim3 block(32, 8);
    if (dbl)
        fill_kernel<double><<<grid2d(rows, cols, block), block, 0, s>>>(
            rows, cols, *static_cast<const double *>(value), static_cast<double *>(a), lda);
    else
        fill_kernel<float><<<grid2d(rows, cols, block), block, 0, s>>>(
            rows, cols, *static_cast<const float *>(value), static_cast<float *>(a), lda);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_getrf_panel(cudaStream_t s, int dbl, int threads, int m,
                                                  int n, void *a, int lda, int *ipiv, int row_base,
                                                  int *info) {
    size_t shared = (size_t)threads * ((dbl ? sizeof(double) : sizeof(float)) + sizeof(int));
    if (dbl)
        getrf_panel_kernel<double>
            <<<1, threads, shared, s>>>(m, n, static_cast<double *>(a), lda, ipiv, row_base, info);
    else
        getrf_panel_kernel<float>
            <<<1, threads, shared, s>>>(m, n, static_cast<float *>(a), lda, ipiv, row_base, info);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_potrf_panel(cudaStream_t s, int dbl, int lower, int n,
                                                  void *a, int lda, int *info, int index_base) {
    if (n > PS_CUDA_POTRF_MAX) return cudaErrorInvalidValue;
    size_t shared = (size_t)n * n * (dbl ? sizeof(double) : sizeof(float));
    if (dbl)
        potrf_panel_kernel<double>
            <<<1, 256, shared, s>>>(lower, n, static_cast<double *>(a), lda, info, index_base);
    else
        potrf_panel_kernel<float>
            <<<1, 256, shared, s>>>(lower, n, static_cast<float *>(a), lda, info, index_base);
    return cudaGetLastError();
}

static int vector_blocks(int n) {
    int blocks = (n + 255) / 256;
    return blocks < 1024 ? (blocks > 0 ? blocks : 1) : 1024;
}

extern "C" cudaError_t ps_cuda_launch_axpby(cudaStream_t s, int dbl, int n, const void *alpha,
                                            const void *x, int incx, const void *beta, void *y,
                                            int incy) {
    if (dbl)
        axpby_kernel<double><<<vector_blocks(n), 256, 0, s>>>(
            n, *static_cast<const double *>(alpha), static_cast<const double *>(x), incx,
            *static_cast<const double *>(beta), static_cast<double *>(y), incy);
    else
        axpby_kernel<float><<<vector_blocks(n), 256, 0, s>>>(
            n, *static_cast<const float *>(alpha), static_cast<const float *>(x), incx,
            *static_cast<const float *>(beta), static_cast<float *>(y), incy);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_vmul(cudaStream_t s, int dbl, int n, const void *x, int incx,
                                           void *y, int incy) {
    if (dbl)
        vmul_kernel<double><<<vector_blocks(n), 256, 0, s>>>(n, static_cast<const double *>(x),
                                                             incx, static_cast<double *>(y), incy);
    else
        vmul_kernel<float><<<vector_blocks(n), 256, 0, s>>>(n, static_cast<const float *>(x), incx,
                                                            static_cast<float *>(y), incy);
    return cudaGetLastError();
}
