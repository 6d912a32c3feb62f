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

// dst = src on the lower (or upper) triangle of n x n, the diagonal included.
template <typename T>
__global__ void copy_triangle_kernel(int n, int lower, const T *src, int lds, T *dst, int ldd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n && (lower ? i >= j : i <= j))
        dst[i + (size_t)j * ldd] = src[i + (size_t)j * lds];
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

// Cholesky of a tall panel (the potrf_tall entry; potrf_panel is its m = n case): the leading
// n x n block (n <= PS_CUDA_POTRF_MAX) is factored, and the m - n rows below it are solved,
// L21 = A21 L11^-T, in one launch. Every thread block factors the small diagonal block itself
// (the same code on the same data, so every copy is bitwise the same), then solves
// POTRF_SOLVE_ROWS rows of its own. The diagonal block is written back by the block that counts
// itself last on `arrivals` after loading it, so no block can read it already overwritten
// (blocks may start late, e.g. behind a concurrent GEMM); that block also resets the counter
// for the next launch. Fusing them matters because the blocked factorization has one of these
// per 64 columns on its critical path, where the former pair (a one-block kernel, then cuBLAS
// trsm) cost about 100 us; redundant factoring costs no time, the blocks run side by side.
//
// The diagonal block is factored by blocks of 16 columns (potrf_diag_blocked): one warp
// factors each 16 x 16 diagonal block with shuffles, so a column step costs no block barrier.
// (The column-by-column forms before it: the block in shared memory, one row per thread, two
// barriers per step: about 48 us per 64 x 64 block; in 4 x 4 register tiles, one barrier per
// step: about 38 us; one warp over the whole block with no barrier: 134 us. docs/PERFORMANCE.md
// has the measurements.)
// The solve gives each row four threads of one warp (solve_row_parts), the row loaded before the
// factorization so that its latency hides behind it. (The first version gave each thread a whole
// row, so a 4096-row panel ran as 16 blocks of 256 rows on 16 SMs, each row a 64-step dependent
// chain: 80 us for the launch; with 64 rows per block, 63 us; with the blocked diagonal block
// and the predicate-free solve, 28 us.)
// The upper case is the transpose: element (r, c) of L is a(c, r). A nonzero info on entry (an
// earlier block failed) makes the kernel do nothing; a failure here stops before the solve.
#define POTRF_THREADS    256                               // threads per block
#define POTRF_PARTS      4                                 // threads per row in the solve
#define POTRF_SOLVE_ROWS (POTRF_THREADS / POTRF_PARTS)     // rows solved per block
#define POTRF_PER_PART   (PS_CUDA_POTRF_MAX / POTRF_PARTS) // a solve thread's columns
// Row x (columns c0 + 4 i + part, i < COLS / 4, in the registers of the four threads `part` of
// a row) solved against the COLS x COLS lower triangle L at (c0, c0) of s: x = x L^-T, with
// rdiag holding 1 / L(j, j). Column c is final once its owner scales it; a shuffle hands it to
// the other three, and each updates its later columns with L's entries from shared memory (the
// four threads read four consecutive words: no bank conflict). Every thread of the warp must
// take part. c and i are compile-time indices after unrolling, so x stays in registers.
template <int COLS, typename T>
__device__ __forceinline__ void solve_row_parts(T (&x)[COLS / POTRF_PARTS], int part, const T *s,
                                                const T *rdiag, int c0) {
    constexpr int W = PS_CUDA_POTRF_MAX, P = POTRF_PARTS;
#pragma unroll
    for (int c = 0; c < COLS; c++) {
        const int owner = c % P, idx = c / P;
        if (part == owner) x[idx] *= rdiag[c0 + c];
        T xc = __shfl_sync(0xffffffffu, x[idx], owner, P);
        // Column P idx + part is later than c only for part > owner; every later i is.
        if (part > owner) x[idx] -= xc * s[(c0 + P * idx + part) + (c0 + c) * W];
#pragma unroll
        for (int i = idx + 1; i < COLS / P; i++) x[i] -= xc * s[(c0 + P * i + part) + (c0 + c) * W];
    }
}

#define POTRF_STEP 16 // columns per step of the diagonal block's blocked factorization

// Step c0 of potrf_diag_blocked: one warp factors the POTRF_STEP x POTRF_STEP diagonal block
// D = s(c0.., c0..), lane i holding row c0 + i in registers; column k's entries travel by
// shuffle, so the 16 column steps need no barrier. Returns the first column (relative to c0)
// whose pivot is not positive, or -1; past it the values are meaningless.
template <typename T> __device__ int potrf_step_diagonal(int c0, T *s, T *rdiag) {
    constexpr int W = PS_CUDA_POTRF_MAX, B = POTRF_STEP;
    const int i = threadIdx.x; // lanes B..31 take part in the shuffles only
    T v[B];
#pragma unroll
    for (int j = 0; j < B; j++) v[j] = i < B && j <= i ? s[(c0 + i) + (c0 + j) * W] : T(0);
    int fail = -1;
#pragma unroll
    for (int k = 0; k < B; k++) {
        T d = __shfl_sync(0xffffffffu, v[k], k);
        if (!(d > 0) && fail < 0) fail = k;
        T rinv = rsqrt(d); // no division on the chain
        if (i == k) v[k] = d * rinv;
        if (i > k) v[k] *= rinv;
        if (i == 0) rdiag[c0 + k] = rinv;
#pragma unroll
        for (int j = k + 1; j < B; j++) {
            T ljk = __shfl_sync(0xffffffffu, v[k], j);
            if (i >= j) v[j] -= v[k] * ljk;
        }
    }
    if (i < B) {
#pragma unroll
        for (int j = 0; j < B; j++)
            if (j <= i) s[(c0 + i) + (c0 + j) * W] = v[j];
    }
    return fail;
}

// Cholesky of the W x W lower triangle in shared memory (the matrix padded with the identity,
// so every step is full), by blocks of POTRF_STEP columns: the diagonal block by one warp
// (potrf_step_diagonal), the rows below it in the block solved against it (solve_row_parts), then
// the trailing triangle updated with the solved rows (a 4 x 4 register tile per thread). Three
// block barriers per 16 columns, where the column-by-column form needed one per column and its cost
// was those 64 dependent steps. Leaves L in s and 1 / L(j, j) in rdiag; returns the first column (<
// n) whose pivot is not positive, or -1, the same value in every thread.
template <typename T> __device__ int potrf_diag_blocked(int n, T *s, T *rdiag, int *fail_col) {
    constexpr int W = PS_CUDA_POTRF_MAX, B = POTRF_STEP;
    const int tid = threadIdx.x;
    for (int c0 = 0; c0 < n; c0 += B) {
        if (tid < 32) {
            int fail = potrf_step_diagonal(c0, s, rdiag);
            if (tid == 0) *fail_col = fail < 0 ? -1 : c0 + fail;
        }
        __syncthreads(); // D factored, fail_col written
        const int failed = *fail_col;
        if (failed >= 0) return failed; // the same for every thread
        const int below = W - c0 - B;   // rows of the block below D
        {
            // Four threads per row, as in the solve of the rows below the block.
            const int r = c0 + B + tid / POTRF_PARTS, part = tid % POTRF_PARTS;
            T x[B / POTRF_PARTS];
#pragma unroll
            for (int i = 0; i < B / POTRF_PARTS; i++)
                x[i] = r < W ? s[r + (c0 + POTRF_PARTS * i + part) * W] : T(0);
            solve_row_parts<B>(x, part, s, rdiag, c0);
            if (r < W) {
#pragma unroll
                for (int i = 0; i < B / POTRF_PARTS; i++)
                    s[r + (c0 + POTRF_PARTS * i + part) * W] = x[i];
            }
        }
        __syncthreads(); // the rows below D solved
        const int tiles = below / 4, t = tid;
        if (t < tiles * tiles && t / tiles <= t % tiles) {
            const int r0 = c0 + B + 4 * (t % tiles), q0 = c0 + B + 4 * (t / tiles);
            T acc[4][4];
#pragma unroll
            for (int a = 0; a < 4; a++)
#pragma unroll
                for (int b = 0; b < 4; b++) acc[a][b] = s[(r0 + a) + (q0 + b) * W];
#pragma unroll
            for (int k = 0; k < B; k++) {
                T xr[4], xq[4];
#pragma unroll
                for (int a = 0; a < 4; a++) {
                    xr[a] = s[(r0 + a) + (c0 + k) * W];
                    xq[a] = s[(q0 + a) + (c0 + k) * W];
                }
#pragma unroll
                for (int a = 0; a < 4; a++)
#pragma unroll
                    for (int b = 0; b < 4; b++) acc[a][b] -= xr[a] * xq[b];
            }
            // Entries above the diagonal (in tiles on it) are written too, and never read.
#pragma unroll
            for (int a = 0; a < 4; a++)
#pragma unroll
                for (int b = 0; b < 4; b++) s[(r0 + a) + (q0 + b) * W] = acc[a][b];
        }
        __syncthreads(); // the trailing triangle updated
    }
    return -1;
}

// Columns 4 i + part of row `row` of the rows below the diagonal block (zeros past m).
template <typename T>
__device__ __forceinline__ void load_solve_row(int lower, int m, int n, const T *a, int lda,
                                               int row, int part, T (&xr)[POTRF_PER_PART]) {
#pragma unroll
    for (int i = 0; i < POTRF_PER_PART; i++) {
        int c = POTRF_PARTS * i + part;
        xr[i] =
            row < m && c < n ? (lower ? a[row + (size_t)c * lda] : a[c + (size_t)row * lda]) : T(0);
    }
}

template <typename T>
__global__ void __launch_bounds__(POTRF_THREADS, 2)
    potrf_tall_kernel(int lower, int m, int n, T *a, int lda, int *info, int index_base,
                      int *arrivals) {
    constexpr int W = PS_CUDA_POTRF_MAX;
    __shared__ T s[W * W];   // L11, column-major with leading dimension W
    __shared__ T rdiag[W];   // 1 / L(j, j)
    __shared__ int fail_col; // first column whose pivot is not positive, or -1
    __shared__ int last;     // this block loaded the diagonal block last
    // Every block reads info before any block can write it (only the last to arrive does).
    if (*info != 0) return;
    int tid = threadIdx.x;
    // The block padded to W x W with the identity, so the blocked factorization needs no bounds.
    for (int e = tid; e < W * W; e += blockDim.x) {
        int r = e % W, c = e / W;
        if (r < c) continue;
        s[r + c * W] =
            r < n && c < n ? (lower ? a[r + (size_t)c * lda] : a[c + (size_t)r * lda]) : T(r == c);
    }
    if (tid < W) rdiag[tid] = T(1); // the padding's; the factorization sets the first n
    // This thread's part of its first solve row, in flight during the factorization.
    const int part = tid % POTRF_PARTS;
    T xr[POTRF_PER_PART];
    load_solve_row(lower, m, n, a, lda, n + (int)blockIdx.x * POTRF_SOLVE_ROWS + tid / POTRF_PARTS,
                   part, xr);
    __syncthreads(); // the block's loads of the diagonal block are done
    if (tid == 0) last = atomicAdd(arrivals, 1) == (int)gridDim.x - 1;
    const int failed = potrf_diag_blocked(n, s, rdiag, &fail_col);
    __syncthreads(); // `last` is visible (also after an early exit of the loop)
    if (last) {
        if (tid == 0) *arrivals = 0;
        for (int e = tid; e < n * n; e += blockDim.x) {
            int r = e % n, c = e / n;
            if (r < c) continue;
            if (lower)
                a[r + (size_t)c * lda] = s[r + c * W];
            else
                a[c + (size_t)r * lda] = s[r + c * W];
        }
        if (tid == 0 && failed >= 0) *info = index_base + failed + 1;
    }
    if (failed >= 0) return;
    // Blocks of POTRF_SOLVE_ROWS rows, strided by the grid (capped at what is co-resident, so
    // that the redundant factorization is not paid in a second wave); the loop condition is the
    // same for the whole block, so every thread of a warp takes part in the shuffles, rows past
    // m included (their results are not stored). c is a compile-time index after unrolling, so
    // xr stays in registers.
    for (int first = (int)blockIdx.x * POTRF_SOLVE_ROWS; n + first < m;
         first += (int)gridDim.x * POTRF_SOLVE_ROWS) {
        const int row = n + first + tid / POTRF_PARTS;
        if (first != (int)blockIdx.x * POTRF_SOLVE_ROWS)
            load_solve_row(lower, m, n, a, lda, row, part, xr);
        // All W columns, whatever n: past n the padding (identity in s, zeros in xr and ones
        // in rdiag) keeps them zero.
        solve_row_parts<W>(xr, part, s, rdiag, 0);
        if (row >= m) continue;
#pragma unroll
        for (int i = 0; i < POTRF_PER_PART; i++) {
            int c = POTRF_PARTS * i + part;
            if (c < n) {
                if (lower)
                    a[row + (size_t)c * lda] = xr[i];
                else
                    a[c + (size_t)row * lda] = xr[i];
            }
        }
    }
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

extern "C" cudaError_t ps_cuda_launch_copy_triangle(cudaStream_t s, int dbl, int lower, int n,
                                                    const void *src, int lds, void *dst, int ldd) {
    dim3 block(32, 8);
    if (dbl)
        copy_triangle_kernel<double><<<grid2d(n, n, block), block, 0, s>>>(
            n, lower, static_cast<const double *>(src), lds, static_cast<double *>(dst), ldd);
    else
        copy_triangle_kernel<float><<<grid2d(n, n, block), block, 0, s>>>(
            n, lower, static_cast<const float *>(src), lds, static_cast<float *>(dst), ldd);
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

extern "C" cudaError_t ps_cuda_launch_potrf_tall(cudaStream_t s, int dbl, int lower, int m, int n,
                                                 void *a, int lda, int *info, int index_base,
                                                 int *arrivals, int max_blocks) {
    if (n <= 0 || n > PS_CUDA_POTRF_MAX || m < n) return cudaErrorInvalidValue;
    long long wanted = m > n ? ((long long)m - n + POTRF_SOLVE_ROWS - 1) / POTRF_SOLVE_ROWS : 1;
    int blocks = (int)(max_blocks > 0 && wanted > max_blocks ? max_blocks : wanted);
    if (dbl)
        potrf_tall_kernel<double><<<blocks, POTRF_THREADS, 0, s>>>(
            lower, m, n, static_cast<double *>(a), lda, info, index_base, arrivals);
    else
        potrf_tall_kernel<float><<<blocks, POTRF_THREADS, 0, s>>>(
            lower, m, n, static_cast<float *>(a), lda, info, index_base, arrivals);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_potrf_max_blocks(int device, int *out) {
    int sms = 0, per_double = 0, per_float = 0;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (!err)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_double, potrf_tall_kernel<double>,
                                                            POTRF_THREADS, 0);
    if (!err)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_float, potrf_tall_kernel<float>,
                                                            POTRF_THREADS, 0);
    *out = err ? 0 : sms * (per_double < per_float ? per_double : per_float);
    return err;
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
