// The CUDA backend's Gauss-Jordan and inversion kernels: column interchanges (cycle rotations), and
// the striped solver's tile update jk -= ji ik (ji m x s, ik s x ncols), a blocked rank-s kernel.
// Every JK tile of every stripe is independent, so one launch updates all the stripes at once.
// Double precision on sm_80 and later runs on the FP64 tensor cores (DMMA, mma.sync m8n8k4);
// float, and double on older GPUs, on a register-tiled kernel of plain FMAs.
#include "cuda_internal.h"

namespace {

// Column interchanges as cycle rotations (the plan: cuda_colswp.c). A thread per row; blockIdx.y
// strides over the saved columns, then over the list's segments. Moves go in groups of 8: all
// loads, then all stores, which keeps the list's order (an entry's source is a later entry's
// destination, or a saved value) and puts 8 loads in flight per thread.
template <typename T>
__global__ void colswp_save_kernel(int nrows, const T *a, int lda, int nsave, const int *saved,
                                   T *values) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    for (int q = blockIdx.y; q < nsave; q += gridDim.y)
        values[(size_t)q * nrows + i] = a[i + (size_t)saved[q] * lda];
}

constexpr int kColswpGroup = 8;

template <typename T>
__global__ void colswp_move_kernel(int nrows, T *a, int lda, int nseg, const int *dst,
                                   const int *src, const int *seg, const T *values) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    for (int g = blockIdx.y; g < nseg; g += gridDim.y) {
        const int e1 = seg[g + 1];
        T kept = T(0); // the old first column of the whole cycle being rotated
        for (int e = seg[g]; e < e1; e += kColswpGroup) {
            T v[kColswpGroup];
            int to[kColswpGroup];
#pragma unroll
            for (int u = 0; u < kColswpGroup; u++) {
                if (e + u >= e1) break;
                int d = dst[e + u], s = src[e + u];
                if (d < 0) { // a whole cycle starts: keep what its first column holds
                    d = -d - 1;
                    kept = a[i + (size_t)d * lda];
                }
                to[u] = d;
                v[u] = s >= 0    ? a[i + (size_t)s * lda]
                       : s == -1 ? kept
                                 : values[(size_t)(-2 - s) * nrows + i];
            }
#pragma unroll
            for (int u = 0; u < kColswpGroup; u++)
                if (e + u < e1) a[i + (size_t)to[u] * lda] = v[u];
        }
    }
}

template <typename T>
cudaError_t launch_colswp(cudaStream_t st, int nrows, T *a, int lda, int nseg, int nsave,
                          const int *dst, const int *src, const int *seg, const int *saved,
                          void *values) {
    dim3 block(256);
    unsigned rows = (unsigned)((nrows + 255) / 256);
    if (nsave > 0) {
        colswp_save_kernel<T>
            <<<dim3(rows, (unsigned)(nsave < 65535 ? nsave : 65535)), block, 0, st>>>(
                nrows, a, lda, nsave, saved, static_cast<T *>(values));
        cudaError_t err = cudaGetLastError();
        if (err) return err;
    }
    colswp_move_kernel<T><<<dim3(rows, (unsigned)(nseg < 65535 ? nseg : 65535)), block, 0, st>>>(
        nrows, a, lda, nseg, dst, src, seg, static_cast<const T *>(values));
    return cudaGetLastError();
}

constexpr int TILE = 64, CHUNK = 16;
constexpr int DMMA_BM = 128, DMMA_BN = 64; // the DMMA kernel's block tile (measured below)

// Stages the 64 x 16 block of ji at (i0, p0) and the 16 x 64 block of ik at (p0, j0) in shared
// memory (k-major: a_s[p][i], b_s[p][j]), zeros beyond the edges; `threads` threads cooperate.
template <typename T, int PAD>
__device__ void stage(int m, int ncols, int s, const T *ji, int ldji, const T *ik, int ldik, int i0,
                      int j0, int p0, T (*a_s)[TILE + PAD], T (*b_s)[TILE + PAD], int tid,
                      int threads) {
    for (int e = tid; e < TILE * CHUNK; e += threads) {
        int r = e % TILE, c = e / TILE; // consecutive threads read consecutive rows of ji
        int gi = i0 + r, gp = p0 + c;
        a_s[c][r] = gi < m && gp < s ? ji[gi + (size_t)gp * ldji] : T(0);
        int br = e % CHUNK, bc = e / CHUNK; // and consecutive rows of ik
        int gq = p0 + br, gj = j0 + bc;
        b_s[br][bc] = gq < s && gj < ncols ? ik[gq + (size_t)gj * ldik] : T(0);
    }
}

// Plain FMAs: 16 x 16 threads, each 4 x 4 elements of the 64 x 64 block, strided by 16.
template <typename T>
__global__ void __launch_bounds__(256)
    stripe_update_fma(int m, int ncols, int s, const T *ji, int ldji, const T *ik, int ldik, T *jk,
                      int ldjk) {
    __shared__ T a_s[CHUNK][TILE + 1], b_s[CHUNK][TILE + 1];
    int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 16 + tx;
    int i0 = blockIdx.x * TILE, j0 = blockIdx.y * TILE;
    T acc[4][4] = {};
    for (int p0 = 0; p0 < s; p0 += CHUNK) {
        stage<T, 1>(m, ncols, s, ji, ldji, ik, ldik, i0, j0, p0, a_s, b_s, tid, 256);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < CHUNK; p++) {
            T av[4], bv[4];
#pragma unroll
            for (int u = 0; u < 4; u++) av[u] = a_s[p][tx + 16 * u];
#pragma unroll
            for (int v = 0; v < 4; v++) bv[v] = b_s[p][ty + 16 * v];
#pragma unroll
            for (int u = 0; u < 4; u++)
#pragma unroll
                for (int v = 0; v < 4; v++) acc[u][v] = fma(av[u], bv[v], acc[u][v]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int v = 0; v < 4; v++) {
        int gj = j0 + ty + 16 * v;
        if (gj >= ncols) continue;
#pragma unroll
        for (int u = 0; u < 4; u++) {
            int gi = i0 + tx + 16 * u;
            if (gi < m) jk[gi + (size_t)gj * ldjk] -= acc[u][v];
        }
    }
}

// FP64 tensor cores: a BM x BN block of WM x 32 warp tiles, each as (WM / 8) x 4 tiles of the
// 8 x 8 x 4 DMMA (pairs of them as one 16 x 8 x 4 DMMA on sm_90). Fragments (PTX ISA, mma.m8n8k4
// .f64): with g = lane / 4 and t = lane % 4, A holds a(g, t), B holds b(t, g), C holds c(g, 2t) and
// c(g, 2t + 1). Pipelined: the next 16-wide chunk of ji and ik is loaded into registers while the
// current one is multiplied out of shared memory (rows padded by 4 doubles: the fragment loads are
// free of bank conflicts). 128 x 64 blocks of 32 x 32 warp tiles (8 warps, two blocks per SM)
// measured best on an H100 among block and warp-tile shapes, unpipelined and cp.async variants;
// sm_90's m16n8k4 on those tiles then took a further 14% off gjsv.
template <int BM, int BN, int WM>
__global__ void __launch_bounds__(BM / WM * BN / 32 * 32)
    stripe_update_dmma(int m, int ncols, int s, const double *ji, int ldji, const double *ik,
                       int ldik, double *jk, int ldjk) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    constexpr int THREADS = BM / WM * BN / 32 * 32, PAD = 4, UM = WM / 8;
    constexpr int A_PER = BM * CHUNK / THREADS, B_PER = CHUNK * BN / THREADS;
    static_assert(THREADS % BM == 0 && THREADS % CHUNK == 0, "chunk loads map to threads");
    __shared__ double a_s[CHUNK][BM + PAD], b_s[CHUNK][BN + PAD];
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int g = lane / 4, t = lane % 4;
    const int wi = (warp % (BM / WM)) * WM, wj = (warp / (BM / WM)) * 32;
    const int i0 = blockIdx.x * BM, j0 = blockIdx.y * BN;
    // this thread's elements of a chunk: a rows ar, columns ac + k * (THREADS / BM); b rows br,
    // columns bc + k * (THREADS / CHUNK)
    const int ar = tid % BM, ac = tid / BM, br = tid % CHUNK, bc = tid / CHUNK;
    const bool a_in = i0 + ar < m;
    double ra[A_PER], rb[B_PER];
    auto load = [&](int p0) {
#pragma unroll
        for (int k = 0; k < A_PER; k++) {
            int p = p0 + ac + k * (THREADS / BM);
            ra[k] = a_in && p < s ? ji[i0 + ar + (size_t)p * ldji] : 0.0;
        }
#pragma unroll
        for (int k = 0; k < B_PER; k++) {
            int j = j0 + bc + k * (THREADS / CHUNK), p = p0 + br;
            rb[k] = j < ncols && p < s ? ik[p + (size_t)j * ldik] : 0.0;
        }
    };
    double acc[UM][4][2] = {};
    load(0);
    for (int p0 = 0; p0 < s; p0 += CHUNK) {
#pragma unroll
        for (int k = 0; k < A_PER; k++) a_s[ac + k * (THREADS / BM)][ar] = ra[k];
#pragma unroll
        for (int k = 0; k < B_PER; k++) b_s[br][bc + k * (THREADS / CHUNK)] = rb[k];
        __syncthreads();
        if (p0 + CHUNK < s) load(p0 + CHUNK);
#pragma unroll
        for (int k = 0; k < CHUNK; k += 4) {
            double af[UM], bf[4];
#pragma unroll
            for (int u = 0; u < UM; u++) af[u] = a_s[k + t][wi + 8 * u + g];
#pragma unroll
            for (int v = 0; v < 4; v++) bf[v] = b_s[k + t][wj + 8 * v + g];
#if __CUDA_ARCH__ >= 900
                // sm_90's m16n8k4, half the instructions: A holds rows g and g + 8 (the m8n8k4
                // tiles u and u + 1), C likewise, B as before
#pragma unroll
            for (int u = 0; u < UM; u += 2)
#pragma unroll
                for (int v = 0; v < 4; v++)
                    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 "
                                 "{%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                                 : "+d"(acc[u][v][0]), "+d"(acc[u][v][1]), "+d"(acc[u + 1][v][0]),
                                   "+d"(acc[u + 1][v][1])
                                 : "d"(af[u]), "d"(af[u + 1]), "d"(bf[v]));
#else
#pragma unroll
            for (int u = 0; u < UM; u++)
#pragma unroll
                for (int v = 0; v < 4; v++)
                    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, "
                                 "{%3}, {%0,%1};"
                                 : "+d"(acc[u][v][0]), "+d"(acc[u][v][1])
                                 : "d"(af[u]), "d"(bf[v]));
#endif
        }
        __syncthreads();
    }
#pragma unroll
    for (int u = 0; u < UM; u++) {
        int gi = i0 + wi + 8 * u + g;
        if (gi >= m) continue;
#pragma unroll
        for (int v = 0; v < 4; v++)
#pragma unroll
            for (int h = 0; h < 2; h++) {
                int gj = j0 + wj + 8 * v + 2 * t + h;
                if (gj < ncols) jk[gi + (size_t)gj * ldjk] -= acc[u][v][h];
            }
    }
#else
    // built for a GPU without FP64 tensor cores (the launcher does not pick this kernel there):
    // still correct, one element per thread at a time
    int i0 = blockIdx.x * BM, j0 = blockIdx.y * BN;
    for (int e = threadIdx.x; e < BM * BN; e += blockDim.x) {
        int gi = i0 + e % BM, gj = j0 + e / BM;
        if (gi >= m || gj >= ncols) continue;
        double sum = 0;
        for (int p = 0; p < s; p++) sum += ji[gi + (size_t)p * ldji] * ik[p + (size_t)gj * ldik];
        jk[gi + (size_t)gj * ldjk] -= sum;
    }
#endif
}

// The vtable's transpose_square: a = a^T in place, a block a pair of 32 x 32 tiles (I, J) and
// (J, I), I <= J, both read into shared memory before either is written, so no block reads
// what another writes; blocks below the diagonal (blockIdx.y > blockIdx.x) leave at once. Reads
// and writes go down columns, whole sectors; [column][row] tiles padded to 33 keep both
// conflict-free.
template <typename T> __global__ void transpose_square_kernel(int n, T *a, int lda) {
    const int ti = blockIdx.y, tj = blockIdx.x;
    if (ti > tj) return;
    __shared__ T upper[32][33], lower[32][33]; // tile (I, J) and tile (J, I), [col][row]
    const int tx = threadIdx.x, ty = threadIdx.y, i0 = ti * 32, j0 = tj * 32;
    for (int c = ty; c < 32; c += 8) {
        if (i0 + tx < n && j0 + c < n) upper[c][tx] = a[(i0 + tx) + (size_t)(j0 + c) * lda];
        if (ti != tj && j0 + tx < n && i0 + c < n)
            lower[c][tx] = a[(j0 + tx) + (size_t)(i0 + c) * lda];
    }
    __syncthreads();
    for (int c = ty; c < 32; c += 8) {
        // a(j0 + tx, i0 + c) = old a(i0 + c, j0 + tx); a(i0 + tx, j0 + c) = old a(j0 + c, i0 + tx)
        if (j0 + tx < n && i0 + c < n) a[(j0 + tx) + (size_t)(i0 + c) * lda] = upper[tx][c];
        if (ti != tj && i0 + tx < n && j0 + c < n)
            a[(i0 + tx) + (size_t)(j0 + c) * lda] = lower[tx][c];
    }
}

} // namespace

extern "C" cudaError_t ps_cuda_launch_transpose_square(cudaStream_t st, int dbl, int n, void *a,
                                                       int lda) {
    if (n <= 0) return cudaSuccess;
    const unsigned tiles = (unsigned)((n + 31) / 32);
    if (tiles > 65535) return cudaErrorInvalidValue; /* gridDim.y's limit: n above 2 million */
    dim3 block(32, 8), grid(tiles, tiles);
    if (dbl)
        transpose_square_kernel<double><<<grid, block, 0, st>>>(n, static_cast<double *>(a), lda);
    else
        transpose_square_kernel<float><<<grid, block, 0, st>>>(n, static_cast<float *>(a), lda);
    return cudaGetLastError();
}

extern "C" cudaError_t ps_cuda_launch_colswp(cudaStream_t st, int dbl, int nrows, void *a, int lda,
                                             int entries, int nseg, int nsave, const int *dst,
                                             const int *src, const int *seg, const int *saved,
                                             void *values) {
    if (nrows <= 0 || entries <= 0 || nseg <= 0) return cudaSuccess;
    return dbl ? launch_colswp(st, nrows, static_cast<double *>(a), lda, nseg, nsave, dst, src, seg,
                               saved, values)
               : launch_colswp(st, nrows, static_cast<float *>(a), lda, nseg, nsave, dst, src, seg,
                               saved, values);
}

extern "C" cudaError_t ps_cuda_launch_stripe_update(cudaStream_t st, int dbl, int tensor_cores,
                                                    int m, int ncols, int s, const void *ji,
                                                    int ldji, const void *ik, int ldik, void *jk,
                                                    int ldjk) {
    dim3 grid((unsigned)((m + TILE - 1) / TILE), (unsigned)((ncols + TILE - 1) / TILE));
    if (dbl && tensor_cores) {
        dim3 g((unsigned)((m + DMMA_BM - 1) / DMMA_BM),
               (unsigned)((ncols + DMMA_BN - 1) / DMMA_BN));
        stripe_update_dmma<DMMA_BM, DMMA_BN, 32><<<g, DMMA_BM / 32 * DMMA_BN / 32 * 32, 0, st>>>(
            m, ncols, s, (const double *)ji, ldji, (const double *)ik, ldik, (double *)jk, ldjk);
    } else if (dbl)
        stripe_update_fma<double><<<grid, dim3(16, 16), 0, st>>>(
            m, ncols, s, (const double *)ji, ldji, (const double *)ik, ldik, (double *)jk, ldjk);
    else
        stripe_update_fma<float><<<grid, dim3(16, 16), 0, st>>>(
            m, ncols, s, (const float *)ji, ldji, (const float *)ik, ldik, (float *)jk, ldjk);
    return cudaGetLastError();
}
