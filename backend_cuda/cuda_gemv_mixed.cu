// y += alpha A x with A float and x, y double, every product and sum in double (the vtable's
// gemv_mixed: the off-diagonal products of GMRES-IR's blocked triangular solves,
// core/trsv_blocked.c). cuBLAS has no such mixed product: SGEMV would accumulate in float, which
// loses what the preconditioner's double arithmetic is for, and DGEMV would need the factors
// widened, twice the bytes.
//
// A block is a tile of rows, four a lane (one 16-byte load per column, so a warp reads 512
// contiguous bytes of a column) where the columns are aligned and the rows many, else one a lane
// (a 128-byte segment); its warps split the columns (warp w takes w, w + W, ...), eight loads in
// flight per lane, and their partial sums meet in shared memory, added in warp order, so the
// result does not depend on timing. The warps per block are chosen so that the grid fills the
// device (about 64 warps per SM) whether the panel is tall (the first steps of a solve: 992 tiles
// at n = 32768) or short (the last: a few tiles, 32 warps each).
#include <cstdint>

#include "cuda_device.cuh"
#include "cuda_internal.h"

namespace {

constexpr int kUnroll = 8;

// Vec consecutive rows of column col from row0 on, as floats: one 16-byte load where the tile is
// whole (the caller guarantees the alignment), else one guarded load a row.
template <int Vec>
__device__ __forceinline__ void load_rows(const float *__restrict__ col, int row0, int m,
                                          float (&out)[Vec]) {
    if constexpr (Vec == 4) {
        if (row0 + 4 <= m) {
            float4 v = __ldg(reinterpret_cast<const float4 *>(col + row0));
            out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
            return;
        }
    }
#pragma unroll
    for (int r = 0; r < Vec; r++) out[r] = row0 + r < m ? __ldg(col + row0 + r) : 0.f;
}

// A block: a tile of 32 Vec rows (a lane Vec consecutive rows) and all k columns, split among its
// warps (warp w takes columns w, w + Warps, ...).
template <int Warps, int Vec>
__global__ void __launch_bounds__(Warps * 32)
    gemv_mixed_kernel(int m, int k, double alpha, const float *__restrict__ a, size_t lda,
                      const double *__restrict__ x, size_t incx, double *__restrict__ y,
                      size_t incy) {
    __shared__ double part[Warps][32 * Vec];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row0 = (blockIdx.x * 32 + lane) * Vec;
    double acc[Vec];
#pragma unroll
    for (int r = 0; r < Vec; r++) acc[r] = 0;
    int j = warp;
    for (; j + (kUnroll - 1) * Warps < k; j += kUnroll * Warps) {
        float v[kUnroll][Vec];
        double xv[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            load_rows<Vec>(a + (size_t)(j + u * Warps) * lda, row0, m, v[u]);
#pragma unroll
        for (int u = 0; u < kUnroll; u++) xv[u] = __ldg(x + (size_t)(j + u * Warps) * incx);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
#pragma unroll
            for (int r = 0; r < Vec; r++) acc[r] = fma((double)v[u][r], xv[u], acc[r]);
    }
    for (; j < k; j += Warps) {
        float v[Vec];
        load_rows<Vec>(a + (size_t)j * lda, row0, m, v);
        double xj = __ldg(x + (size_t)j * incx);
#pragma unroll
        for (int r = 0; r < Vec; r++) acc[r] = fma((double)v[r], xj, acc[r]);
    }
#pragma unroll
    for (int r = 0; r < Vec; r++) part[warp][lane * Vec + r] = acc[r];
    __syncthreads();
    // the tile's rows, a thread each, summed over the warps in order
    for (int t = threadIdx.x; t < 32 * Vec; t += Warps * 32) {
        int row = blockIdx.x * 32 * Vec + t;
        if (row >= m) break;
        double sum = 0;
#pragma unroll
        for (int w = 0; w < Warps; w++) sum += part[w][t];
        y[(size_t)row * incy] += alpha * sum;
    }
}

template <int Warps, int Vec>
cudaError_t launch(cudaStream_t s, int m, int k, double alpha, const float *a, int lda,
                   const double *x, int incx, double *y, int incy) {
    int tiles = (m + 32 * Vec - 1) / (32 * Vec);
    gemv_mixed_kernel<Warps, Vec><<<tiles, Warps * 32, 0, s>>>(m, k, alpha, a, (size_t)lda, x,
                                                               (size_t)incx, y, (size_t)incy);
    return cudaGetLastError();
}

template <int Vec>
cudaError_t launch_filled(cudaStream_t s, int sms, int m, int k, double alpha, const float *a,
                          int lda, const double *x, int incx, double *y, int incy) {
    int tiles = (m + 32 * Vec - 1) / (32 * Vec), want = 64 * sms; /* warps that fill the device */
    if (tiles * 4 >= want) return launch<4, Vec>(s, m, k, alpha, a, lda, x, incx, y, incy);
    if (tiles * 8 >= want) return launch<8, Vec>(s, m, k, alpha, a, lda, x, incx, y, incy);
    if (tiles * 16 >= want) return launch<16, Vec>(s, m, k, alpha, a, lda, x, incx, y, incy);
    return launch<32, Vec>(s, m, k, alpha, a, lda, x, incx, y, incy);
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_gemv_mixed(cudaStream_t s, int sms, int m, int k,
                                                 double alpha, const float *a, int lda,
                                                 const double *x, int incx, double *y, int incy) {
    if (m <= 0 || k <= 0) return cudaSuccess;
    /* four rows a lane (one 16-byte load a column) where the columns are 16-byte aligned and
     * there are rows enough for half the device's warps in tiles of 128 rows; else a row a lane */
    int aligned = ((uintptr_t)a & 15) == 0 && lda % 4 == 0;
    if (aligned && (m + 127) / 128 * 32 * 2 >= 64 * sms)
        return launch_filled<4>(s, sms, m, k, alpha, a, lda, x, incx, y, incy);
    return launch_filled<1>(s, sms, m, k, alpha, a, lda, x, incx, y, incy);
}
