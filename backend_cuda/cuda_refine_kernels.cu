// The mixed-precision refinement kernels: precision conversion with LAPACK dlag2s's overflow
// test, the random butterfly transformation, and the infinity norm (row sums by column chunks,
// then a NaN-propagating maximum).
#include "cuda_internal.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace {

template <typename S, typename D>
__global__ void convert_kernel(int rows, int cols, double alpha, const S *src, int lds, D *dst,
                               int ldd, int *info) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    bool bad = false;
    for (int j = blockIdx.y; j < cols; j += gridDim.y) {
        D v = static_cast<D>(alpha * static_cast<double>(src[i + (size_t)j * lds]));
        bad |= !isfinite(v); // beyond the narrow type's range rounds to Inf; NaN stays NaN
        dst[i + (size_t)j * ldd] = v;
    }
    if (bad) *info = 1; // a benign race: every writer writes 1
}

// The vtable's convert_transposed: a 32 x 32 tile of src a block, through shared memory, so that
// both its reads (down src's columns) and its writes (down dst's) are whole sectors.
template <typename S, typename D>
__global__ void convert_transposed_kernel(int rows, int cols, double alpha, const S *src, int lds,
                                          D *dst, int ldd, int *info) {
    __shared__ D tile[32][33]; // [src column][src row]; 33 keeps both passes conflict-free
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i0 = blockIdx.x * 32, col_tiles = (cols + 31) / 32;
    bool bad = false;
    for (int jt = blockIdx.y; jt < col_tiles; jt += gridDim.y) {
        const int j0 = jt * 32;
        for (int c = ty; c < 32; c += 8) {
            int i = i0 + tx, j = j0 + c;
            if (i < rows && j < cols) {
                D v = static_cast<D>(alpha * static_cast<double>(src[i + (size_t)j * lds]));
                bad |= !isfinite(v); // as convert_kernel
                tile[c][tx] = v;
            }
        }
        __syncthreads();
        for (int r = ty; r < 32; r += 8) { // dst(j, i) = tile[j - j0][i - i0]
            int i = i0 + r, j = j0 + tx;
            if (i < rows && j < cols) dst[j + (size_t)i * ldd] = tile[tx][r];
        }
        __syncthreads(); // the tile is read before the next one is written
    }
    if (bad) *info = 1;
}

// The butterfly entry (core/refine/refine_kernels.h; ps__butterfly_orbit in core/refine/butterfly.h
// is the definition this restates). Slot s of a dimension of order n with q orbits: orbit s's four
// indices, or one index beyond them.
__device__ __forceinline__ int butterfly_slot(int q, int s, int idx[4]) {
    if (s >= q) {
        idx[0] = 4 * q + (s - q);
        return 1;
    }
#pragma unroll
    for (int a = 0; a < 4; a++) idx[a] = s + a * q;
    return 4;
}

__device__ __forceinline__ void butterfly_pair(bool transposed, double wa, double wb, double &xa,
                                               double &xb) {
    constexpr double kHalf = 0.70710678118654752440; // sqrt(1/2)
    double a = xa, b = xb;
    if (transposed) {
        xa = wa * (a + b) * kHalf;
        xb = wb * (a - b) * kHalf;
    } else {
        xa = (wa * a + wb * b) * kHalf;
        xb = (wa * a - wb * b) * kHalf;
    }
}

// x = T x (transposed: T^T x) on orbit p of the butterfly of order n, q = n / 4.
__device__ __forceinline__ void butterfly_orbit(const double *w, int n, int q, int p,
                                                bool transposed, double &x0, double &x1, double &x2,
                                                double &x3) {
    const double *u = w + p, *v = w + n + p;
    if (!transposed) {
        butterfly_pair(false, u[0], u[2 * q], x0, x2);
        butterfly_pair(false, u[q], u[3 * q], x1, x3);
        butterfly_pair(false, v[0], v[q], x0, x1);
        butterfly_pair(false, v[2 * q], v[3 * q], x2, x3);
    } else {
        butterfly_pair(true, v[0], v[q], x0, x1);
        butterfly_pair(true, v[2 * q], v[3 * q], x2, x3);
        butterfly_pair(true, u[0], u[2 * q], x0, x2);
        butterfly_pair(true, u[q], u[3 * q], x1, x3);
    }
}

// A thread per row slot and column slot (the y dimension strides over column slots): its up to
// 4 x 4 elements are read, transformed on both sides and written, so in place is safe.
// Consecutive threads take consecutive row slots, so each of the 16 loads is coalesced.
template <typename S, typename D>
__global__ void butterfly_kernel(int rows, int cols, double alpha, const double *left, int qr,
                                 const double *right, int qc, const S *src, int lds, D *dst,
                                 int ldd, int *info) {
    int rs = blockIdx.x * blockDim.x + threadIdx.x;
    if (rs >= rows - 3 * qr) return;
    int ri[4], nr = butterfly_slot(qr, rs, ri);
    bool bad = false;
    for (int cs = blockIdx.y; cs < cols - 3 * qc; cs += gridDim.y) {
        int ci[4], nc = butterfly_slot(qc, cs, ci);
        double x[4][4];
#pragma unroll
        for (int b = 0; b < 4; b++)
#pragma unroll
            for (int a = 0; a < 4; a++)
                x[a][b] = a < nr && b < nc
                              ? alpha * static_cast<double>(src[ri[a] + (size_t)ci[b] * lds])
                              : 0.0;
        if (nr == 4)
#pragma unroll
            for (int b = 0; b < 4; b++)
                butterfly_orbit(left, rows, qr, rs, false, x[0][b], x[1][b], x[2][b], x[3][b]);
        if (nc == 4)
#pragma unroll
            for (int a = 0; a < 4; a++)
                butterfly_orbit(right, cols, qc, cs, true, x[a][0], x[a][1], x[a][2], x[a][3]);
#pragma unroll
        for (int b = 0; b < 4; b++)
#pragma unroll
            for (int a = 0; a < 4; a++)
                if (a < nr && b < nc) {
                    D v = static_cast<D>(x[a][b]);
                    bad |= !isfinite(v);
                    dst[ri[a] + (size_t)ci[b] * ldd] = v;
                }
    }
    if (bad) *info = 1; // a benign race: every writer writes 1
}

// sums[i] += sum_{j in this block's column chunk} |a(i,j)|.
template <typename T>
__global__ void row_sums_kernel(int rows, int cols, int chunk, const T *a, int lda, double *sums) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    int j0 = blockIdx.y * chunk, j1 = min(cols, j0 + chunk);
    double s = 0;
    for (int j = j0; j < j1; j++) s += fabs(static_cast<double>(a[i + (size_t)j * lda]));
    if (gridDim.y == 1)
        sums[i] = s;
    else
        atomicAdd(&sums[i], s);
}

// out = max_i sums[i], NaN if any is NaN: non-negative doubles and positive NaNs order as their
// bit patterns do, so the maximum of the bits is the answer.
__global__ void max_kernel(int n, const double *sums, unsigned long long *out) {
    __shared__ unsigned long long best[256];
    unsigned long long m = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(fabs(sums[i])));
        m = b > m ? b : m;
    }
    best[threadIdx.x] = m;
    __syncthreads();
    for (int w = blockDim.x / 2; w > 0; w /= 2) {
        if (threadIdx.x < w && best[threadIdx.x + w] > best[threadIdx.x])
            best[threadIdx.x] = best[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = best[0];
}

// dst = src rounded to half or bfloat16 (the tensor-core operands of the FP16/BF16 GEMM modes).
template <typename H>
__global__ void to_half_kernel(int rows, int cols, const float *src, int lds, H *dst, int ldd);
template <>
__global__ void to_half_kernel<__half>(int rows, int cols, const float *src, int lds, __half *dst,
                                       int ldd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    for (int j = blockIdx.y; j < cols; j += gridDim.y)
        dst[i + (size_t)j * ldd] = __float2half_rn(src[i + (size_t)j * lds]);
}
template <>
__global__ void to_half_kernel<__nv_bfloat16>(int rows, int cols, const float *src, int lds,
                                              __nv_bfloat16 *dst, int ldd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    for (int j = blockIdx.y; j < cols; j += gridDim.y)
        dst[i + (size_t)j * ldd] = __float2bfloat16_rn(src[i + (size_t)j * lds]);
}

// x rounded to nearest TF32 (10 explicit significand bits, ties away from zero), so that the
// GEMM's own truncation to TF32 leaves it alone.
__device__ inline float round_tf32(float x) {
    unsigned u;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(u) : "f"(x));
    return __uint_as_float(u);
}

// The TF32X3 operands: x = hi + lo with hi = x rounded to TF32 (|lo| <= 2^-11 |x|) and lo = x - hi
// rounded to TF32 too (an error of at most 2^-22 |x|; truncating both gave 2^-20 and about twice
// the float LU's factor error, docs/PERFORMANCE.md). A finite x that would round to Inf (within
// 2^-11 of float's largest) is truncated instead. dst holds three copies side by side: block p
// is lo where bit p of lo_blocks is set, hi otherwise; the blocks follow each other down the rows
// (by_rows, leading dimension 3 rows) or across the columns.
__global__ void split_tf32_kernel(int rows, int cols, const float *src, int lds, float *dst,
                                  int by_rows, unsigned lo_blocks) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows) return;
    size_t ldd = by_rows ? 3 * (size_t)rows : (size_t)rows;
    size_t step = by_rows ? (size_t)rows : (size_t)rows * cols;
    for (int j = blockIdx.y; j < cols; j += gridDim.y) {
        float x = src[i + (size_t)j * lds], hi = x, lo = 0.0f; // Inf and NaN travel in hi alone
        if (isfinite(x)) {
            hi = round_tf32(x);
            if (isinf(hi)) hi = __uint_as_float(__float_as_uint(x) & 0xffffe000u);
            lo = round_tf32(x - hi);
        }
        float *d = dst + i + (size_t)j * ldd;
        for (int p = 0; p < 3; p++) d[p * step] = (lo_blocks >> p & 1u) ? lo : hi;
    }
}

// The FP16X3 operands: x = hi + lo with hi = x rounded to FP16 and lo = x - hi (exact in float),
// which FP16 holds as lo * 2^11 (rounded: an error of at most 2^-22 |x|) so that it stays clear
// of FP16's subnormals. dst holds three FP16 copies as split_tf32_kernel's: block p is lo * 2^11
// where bit p of lo_blocks is set, else hi * hi_scale[p], the scales chosen by the caller so
// that every product of corresponding blocks carries the same factor (the GEMM's alpha undoes
// it). Inf and NaN travel in hi alone; values beyond FP16's range become Inf there.
//
// A thread takes kSplitRows rows of a column, a block's width apart, so that each has that many
// independent loads in flight: with one a thread the loads in flight could not cover the
// memory's latency, and the split of the LU's operands ran at about 1.5 TB/s on an H200.
constexpr int kSplitRows = 4, kSplitThreads = 256;
__global__ void split_fp16_kernel(int rows, int cols, const float *src, int lds, __half *dst,
                                  int by_rows, unsigned lo_blocks, float3 hi_scale) {
    const int i0 = blockIdx.x * kSplitThreads * kSplitRows + threadIdx.x;
    size_t ldd = by_rows ? 3 * (size_t)rows : (size_t)rows;
    size_t step = by_rows ? (size_t)rows : (size_t)rows * cols;
    const float scale[3] = {hi_scale.x, hi_scale.y, hi_scale.z};
    for (int j = blockIdx.y; j < cols; j += gridDim.y) {
        float x[kSplitRows];
#pragma unroll
        for (int q = 0; q < kSplitRows; q++) {
            int i = i0 + q * kSplitThreads;
            x[q] = i < rows ? src[i + (size_t)j * lds] : 0.0f;
        }
#pragma unroll
        for (int q = 0; q < kSplitRows; q++) {
            int i = i0 + q * kSplitThreads;
            if (i >= rows) break;
            __half hi = __float2half_rn(x[q]);
            float hf = __half2float(hi);
            __half lo = __float2half_rn(isfinite(hf) ? (x[q] - hf) * 2048.0f : 0.0f);
            __half *d = dst + i + (size_t)j * ldd;
            for (int p = 0; p < 3; p++)
                d[p * step] = (lo_blocks >> p & 1u) ? lo : __float2half_rn(hf * scale[p]);
        }
    }
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_split_fp16(cudaStream_t s, int rows, int cols,
                                                 const float *src, int lds, void *dst, int by_rows,
                                                 unsigned lo_blocks, const float hi_scale[3]) {
    const int per_block = kSplitThreads * kSplitRows;
    dim3 block(kSplitThreads),
        grid((rows + per_block - 1) / per_block, cols < 65535 ? cols : 65535);
    split_fp16_kernel<<<grid, block, 0, s>>>(rows, cols, src, lds, static_cast<__half *>(dst),
                                             by_rows, lo_blocks,
                                             make_float3(hi_scale[0], hi_scale[1], hi_scale[2]));
    return cudaGetLastError();
}

template <typename S, typename D>
static cudaError_t launch_convert_transposed(cudaStream_t s, int rows, int cols, double alpha,
                                             const void *src, int lds, void *dst, int ldd,
                                             int *info) {
    const int col_tiles = (cols + 31) / 32;
    dim3 block(32, 8), grid((rows + 31) / 32, col_tiles < 65535 ? col_tiles : 65535);
    convert_transposed_kernel<S, D><<<grid, block, 0, s>>>(
        rows, cols, alpha, static_cast<const S *>(src), lds, static_cast<D *>(dst), ldd, info);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_convert_transposed(cudaStream_t s, int src_dbl, int dst_dbl,
                                                         int rows, int cols, double alpha,
                                                         const void *src, int lds, void *dst,
                                                         int ldd, int *info) {
    if (src_dbl && dst_dbl)
        return launch_convert_transposed<double, double>(s, rows, cols, alpha, src, lds, dst, ldd,
                                                         info);
    if (src_dbl)
        return launch_convert_transposed<double, float>(s, rows, cols, alpha, src, lds, dst, ldd,
                                                        info);
    if (dst_dbl)
        return launch_convert_transposed<float, double>(s, rows, cols, alpha, src, lds, dst, ldd,
                                                        info);
    return launch_convert_transposed<float, float>(s, rows, cols, alpha, src, lds, dst, ldd, info);
}

extern "C" cudaError_t ps_cuda_launch_split_tf32(cudaStream_t s, int rows, int cols,
                                                 const float *src, int lds, float *dst, int by_rows,
                                                 unsigned lo_blocks) {
    dim3 block(256), grid((rows + 255) / 256, cols < 65535 ? cols : 65535);
    split_tf32_kernel<<<grid, block, 0, s>>>(rows, cols, src, lds, dst, by_rows, lo_blocks);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_to_half(cudaStream_t s, int bf16, int rows, int cols,
                                              const float *src, int lds, void *dst) {
    dim3 block(256), grid((rows + 255) / 256, cols < 65535 ? cols : 65535);
    if (bf16)
        to_half_kernel<__nv_bfloat16>
            <<<grid, block, 0, s>>>(rows, cols, src, lds, static_cast<__nv_bfloat16 *>(dst), rows);
    else
        to_half_kernel<__half>
            <<<grid, block, 0, s>>>(rows, cols, src, lds, static_cast<__half *>(dst), rows);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_convert(cudaStream_t s, int src_dbl, int dst_dbl, int rows,
                                              int cols, double alpha, const void *src, int lds,
                                              void *dst, int ldd, int *info) {
    dim3 block(256), grid((rows + 255) / 256, cols < 65535 ? cols : 65535);
    if (src_dbl && dst_dbl)
        convert_kernel<double, double>
            <<<grid, block, 0, s>>>(rows, cols, alpha, static_cast<const double *>(src), lds,
                                    static_cast<double *>(dst), ldd, info);
    else if (src_dbl)
        convert_kernel<double, float><<<grid, block, 0, s>>>(rows, cols, alpha,
                                                             static_cast<const double *>(src), lds,
                                                             static_cast<float *>(dst), ldd, info);
    else if (dst_dbl)
        convert_kernel<float, double><<<grid, block, 0, s>>>(rows, cols, alpha,
                                                             static_cast<const float *>(src), lds,
                                                             static_cast<double *>(dst), ldd, info);
    else
        convert_kernel<float, float><<<grid, block, 0, s>>>(rows, cols, alpha,
                                                            static_cast<const float *>(src), lds,
                                                            static_cast<float *>(dst), ldd, info);
    return cudaGetLastError();
}

template <typename S, typename D>
static cudaError_t launch_butterfly(cudaStream_t s, int rows, int cols, double alpha,
                                    const double *left, const double *right, const void *src,
                                    int lds, void *dst, int ldd, int *info) {
    int qr = left ? rows / 4 : 0, qc = right ? cols / 4 : 0;
    int rslots = rows - 3 * qr, cslots = cols - 3 * qc;
    dim3 block(128), grid((rslots + 127) / 128, cslots < 65535 ? cslots : 65535);
    butterfly_kernel<S, D><<<grid, block, 0, s>>>(rows, cols, alpha, left, qr, right, qc,
                                                  static_cast<const S *>(src), lds,
                                                  static_cast<D *>(dst), ldd, info);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_butterfly(cudaStream_t s, int src_dbl, int dst_dbl, int rows,
                                                int cols, double alpha, const double *left,
                                                const double *right, const void *src, int lds,
                                                void *dst, int ldd, int *info) {
    if (src_dbl && dst_dbl)
        return launch_butterfly<double, double>(s, rows, cols, alpha, left, right, src, lds, dst,
                                                ldd, info);
    if (src_dbl)
        return launch_butterfly<double, float>(s, rows, cols, alpha, left, right, src, lds, dst,
                                               ldd, info);
    if (dst_dbl)
        return launch_butterfly<float, double>(s, rows, cols, alpha, left, right, src, lds, dst,
                                               ldd, info);
    return launch_butterfly<float, float>(s, rows, cols, alpha, left, right, src, lds, dst, ldd,
                                          info);
}

extern "C" cudaError_t ps_cuda_launch_norm_inf(cudaStream_t s, int dbl, int rows, int cols,
                                               const void *a, int lda, double *sums,
                                               unsigned long long *out) {
    // Enough column chunks to fill the GPU when there are few rows; one when rows alone do.
    int row_blocks = (rows + 255) / 256, chunks = 1;
    while (row_blocks * chunks < 1024 && cols / (chunks * 2) >= 64) chunks *= 2;
    int chunk = (cols + chunks - 1) / chunks;
    if (chunks > 1) {
        cudaError_t e = cudaMemsetAsync(sums, 0, sizeof(double) * (size_t)rows, s);
        if (e != cudaSuccess) return e;
    }
    dim3 grid(row_blocks, chunks);
    if (dbl)
        row_sums_kernel<double>
            <<<grid, 256, 0, s>>>(rows, cols, chunk, static_cast<const double *>(a), lda, sums);
    else
        row_sums_kernel<float>
            <<<grid, 256, 0, s>>>(rows, cols, chunk, static_cast<const float *>(a), lda, sums);
    max_kernel<<<1, 256, 0, s>>>(rows, sums, out);
    return cudaGetLastError();
}
