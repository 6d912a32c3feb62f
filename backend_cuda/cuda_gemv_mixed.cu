// y += alpha A x with A float and x, y double, every product and sum in double (the vtable's
// gemv_mixed: the off-diagonal products of GMRES-IR's blocked triangular solves,
// core/trsv_blocked.c). cuBLAS has no such mixed product: SGEMV would accumulate in float, which
// loses what the preconditioner's double arithmetic is for, and DGEMV would need the factors
// widened, twice the bytes.
//
// A block is a tile of 32 rows, a lane a row, so each load of a column is one coalesced 128-byte
// segment; its warps split the columns (warp w takes w, w + W, ...), eight loads in flight per
// lane, and their partial sums meet in shared memory, added in warp order, so the result does not
// depend on timing. The warps per block are chosen so that the grid fills the device (about 64
// warps per SM) whether the panel is tall (the first steps of a solve: 992 tiles at n = 32768)
// or short (the last: a few tiles, 32 warps each).
#include "cuda_device.cuh"
#include "cuda_internal.h"

namespace {

constexpr int kUnroll = 8;

template <int Warps>
__global__ void __launch_bounds__(Warps * 32)
    gemv_mixed_kernel(int m, int k, double alpha, const float *__restrict__ a, size_t lda,
                      const double *__restrict__ x, size_t incx, double *__restrict__ y,
                      size_t incy) {
    __shared__ double part[Warps][32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int row = blockIdx.x * 32 + lane;
    const bool live = row < m;
    const float *ar = a + (live ? row : 0);
    double acc[2] = {0, 0};
    int j = warp;
    for (; j + (kUnroll - 1) * Warps < k; j += kUnroll * Warps) {
        float v[kUnroll];
        double xv[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
            v[u] = live ? __ldg(ar + (size_t)(j + u * Warps) * lda) : 0.f;
#pragma unroll
        for (int u = 0; u < kUnroll; u++) xv[u] = __ldg(x + (size_t)(j + u * Warps) * incx);
#pragma unroll
        for (int u = 0; u < kUnroll; u++) acc[u & 1] = fma((double)v[u], xv[u], acc[u & 1]);
    }
    for (; j < k; j += Warps)
        acc[0] = fma(live ? (double)__ldg(ar + (size_t)j * lda) : 0.0, __ldg(x + (size_t)j * incx),
                     acc[0]);
    part[warp][lane] = acc[0] + acc[1];
    __syncthreads();
    if (warp == 0 && live) {
        double sum = 0;
#pragma unroll
        for (int w = 0; w < Warps; w++) sum += part[w][lane];
        y[(size_t)row * incy] += alpha * sum;
    }
}

template <int Warps>
cudaError_t launch(cudaStream_t s, int tiles, int m, int k, double alpha, const float *a, int lda,
                   const double *x, int incx, double *y, int incy) {
    gemv_mixed_kernel<Warps><<<tiles, Warps * 32, 0, s>>>(m, k, alpha, a, (size_t)lda, x,
                                                          (size_t)incx, y, (size_t)incy);
    return cudaGetLastError();
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_gemv_mixed(cudaStream_t s, int sms, int m, int k,
                                                 double alpha, const float *a, int lda,
                                                 const double *x, int incx, double *y, int incy) {
    if (m <= 0 || k <= 0) return cudaSuccess;
    int tiles = (m + 31) / 32, want = 64 * sms; /* warps that fill the device */
    if (tiles * 4 >= want) return launch<4>(s, tiles, m, k, alpha, a, lda, x, incx, y, incy);
    if (tiles * 8 >= want) return launch<8>(s, tiles, m, k, alpha, a, lda, x, incx, y, incy);
    if (tiles * 16 >= want) return launch<16>(s, tiles, m, k, alpha, a, lda, x, incx, y, incy);
    return launch<32>(s, tiles, m, k, alpha, a, lda, x, incx, y, incy);
}
