// Bandwidth of the CUDA backend's gemv_mixed (y += A x, A float, x and y double) against
// variants, on GMRES-IR's shapes: the blocked triangular solves' column blocks (m rows, 2048
// columns, m = 30720 down to 2048) and the float operator's square product.
//
// An experiment, built with the tests where the CUDA backend is (not run by CTest):
//   BUILD/tools/experiments/gemv_mixed_bw
#include "../../backend_cuda/cuda_gemv_mixed.cu"

#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <vector>

#include "experiment_check.cuh"

namespace {

// Tall tiles: a block of Warps warps stacked over Warps * 128 rows (four a lane, a 16-byte load
// per column), every warp running all of its slice's columns: a block reads Warps * 512
// contiguous bytes of each column. Slices of the columns meet through a cluster as in the
// library's kernel.
template <int Warps>
__global__ void __launch_bounds__(Warps * 32)
    tall_kernel(int m, int k, int slices, double alpha, const float *__restrict__ a, size_t lda,
                const double *__restrict__ x, double *__restrict__ y) {
    __shared__ double slice_sum[Warps * 128];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int tile = blockIdx.x / slices, slice = blockIdx.x % slices;
    const int per_slice = (k + slices - 1) / slices, c0 = slice * per_slice;
    const int c1 = min(k, c0 + per_slice);
    const int row0 = tile * Warps * 128 + warp * 128 + lane * 4;
    double acc[4] = {0, 0, 0, 0};
    int j = c0;
    for (; j + kUnroll <= c1; j += kUnroll) {
        float v[kUnroll][4];
        double xv[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; u++) load_rows<4>(a + (size_t)(j + u) * lda, row0, m, v[u]);
#pragma unroll
        for (int u = 0; u < kUnroll; u++) xv[u] = __ldg(x + j + u);
#pragma unroll
        for (int u = 0; u < kUnroll; u++)
#pragma unroll
            for (int r = 0; r < 4; r++) acc[r] = fma((double)v[u][r], xv[u], acc[r]);
    }
    for (; j < c1; j++) {
        float v[4];
        load_rows<4>(a + (size_t)j * lda, row0, m, v);
        double xj = __ldg(x + j);
#pragma unroll
        for (int r = 0; r < 4; r++) acc[r] = fma((double)v[r], xj, acc[r]);
    }
    if (slices == 1) {
        for (int r = 0; r < 4; r++)
            if (row0 + r < m) y[row0 + r] += alpha * acc[r];
        return;
    }
    for (int r = 0; r < 4; r++) slice_sum[warp * 128 + lane * 4 + r] = acc[r];
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    if (cluster.block_rank() == 0)
        for (int t = threadIdx.x; t < Warps * 128; t += Warps * 32) {
            int row = tile * Warps * 128 + t;
            if (row >= m) break;
            double sum = 0;
            for (int q = 0; q < slices; q++) sum += cluster.map_shared_rank(slice_sum, q)[t];
            y[row] += alpha * sum;
        }
    cluster.sync();
}

template <int Warps>
void launch_tall(cudaStream_t s, int sms, int per_sm, int m, int k, const float *a, int lda,
                 const double *x, double *y) {
    int tiles = (m + Warps * 128 - 1) / (Warps * 128);
    int slices = per_sm * sms / tiles;
    if (slices > 8) slices = 8;
    if (slices > k / 64) slices = k / 64;
    if (slices < 1) slices = 1;
    cudaLaunchConfig_t config = {};
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)slices;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.gridDim = dim3((unsigned)(tiles * slices));
    config.blockDim = dim3(Warps * 32);
    config.stream = s;
    config.attrs = attr;
    config.numAttrs = 1;
    size_t ldas = (size_t)lda;
    CK(cudaLaunchKernelEx(&config, tall_kernel<Warps>, m, k, slices, -1.0, a, ldas, x, y));
}

} // namespace

int main() {
    int sms = 0, max_slices = 1;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(ps_cuda_gemv_mixed_init(0, &max_slices));
    const int n = 32768;
    float *a;
    double *ad, *x, *y;
    CK(cudaMalloc(&a, (size_t)n * n * 4));
    CK(cudaMalloc(&ad, (size_t)n * 2048 * 8));
    CK(cudaMalloc(&x, n * 8));
    CK(cudaMalloc(&y, n * 8));
    std::vector<float> h(1 << 20);
    for (size_t i = 0; i < h.size(); i++) h[i] = (float)rand() / RAND_MAX - 0.5f;
    for (size_t off = 0; off < (size_t)n * n; off += h.size())
        CK(cudaMemcpy(a + off, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemset(ad, 0, (size_t)n * 2048 * 8));
    std::vector<double> hx(n);
    for (int i = 0; i < n; i++) hx[i] = (double)rand() / RAND_MAX - 0.5;
    CK(cudaMemcpy(x, hx.data(), n * 8, cudaMemcpyHostToDevice));
    { // the tall kernels against the library's, on the largest column block
        double *y2;
        CK(cudaMalloc(&y2, n * 8));
        std::vector<double> r0(n), r1(n);
        CK(cudaMemset(y, 0, n * 8));
        CK(ps_cuda_launch_gemv_mixed(0, sms, max_slices, 30720, 2048, -1.0, a, n, nullptr, 0, 0, x,
                                     1, y, 1, 0));
        CK(cudaMemcpy(r0.data(), y, n * 8, cudaMemcpyDeviceToHost));
        for (int w = 0; w < 3; w++) {
            CK(cudaMemset(y2, 0, n * 8));
            if (w == 0) launch_tall<2>(0, sms, 8, 30720, 2048, a, n, x, y2);
            if (w == 1) launch_tall<4>(0, sms, 4, 30720, 2048, a, n, x, y2);
            if (w == 2) launch_tall<8>(0, sms, 2, 30720, 2048, a, n, x, y2);
            CK(cudaMemcpy(r1.data(), y2, n * 8, cudaMemcpyDeviceToHost));
            double d = 0, mx = 0;
            for (int i = 0; i < 30720; i++) {
                d = fmax(d, fabs(r0[i] - r1[i]));
                mx = fmax(mx, fabs(r0[i]));
            }
            printf("check tall%d: max |diff| %.3g of max |y| %.3g\n", 2 << w, d, mx);
        }
        cudaFree(y2);
    }
    CK(cudaMemset(y, 0, n * 8));
    cublasHandle_t hb;
    cublasCreate(&hb);
    cudaStream_t s = 0;
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);

    struct shape {
        const char *name;
        int m, k, lda;
    } shapes[] = {{"30720x2048", 30720, 2048, n}, {"16384x2048", 16384, 2048, n},
                  {"4096x2048", 4096, 2048, n},   {"2048x2048", 2048, 2048, n},
                  {"chain 15", -1, 2048, n},      {"32768^2", n, n, n}};
    const char *names[] = {"library", "tall2", "tall4", "tall8", "tall4/2sm", "sgemv", "dgemv"};
    printf("%-11s", "shape");
    for (auto nm : names) printf(" %11s", nm);
    printf("   (TB/s of the matrix's bytes; chain: 15 calls m = 30720 .. 2048)\n");
    for (auto &sh : shapes) {
        printf("%-11s", sh.name);
        for (int v = 0; v < 7; v++) {
            if (v == 6 && sh.k > 2048) {
                printf(" %11s", "-");
                continue;
            }
            auto one = [&](int m) {
                int k = sh.k;
                double one_d = 1.0, zero = 0.0;
                float one_f = 1.0f, zero_f = 0.0f;
                switch (v) {
                case 0:
                    CK(ps_cuda_launch_gemv_mixed(s, sms, max_slices, m, k, -1.0, a, sh.lda, nullptr,
                                                 0, 0, x, 1, y, 1, 0));
                    break;
                case 1:
                    launch_tall<2>(s, sms, 8, m, k, a, sh.lda, x, y);
                    break;
                case 2:
                    launch_tall<4>(s, sms, 4, m, k, a, sh.lda, x, y);
                    break;
                case 3:
                    launch_tall<8>(s, sms, 2, m, k, a, sh.lda, x, y);
                    break;
                case 4:
                    launch_tall<4>(s, sms, 8, m, k, a, sh.lda, x, y);
                    break;
                case 5:
                    cublasSgemv(hb, CUBLAS_OP_N, m, k, &one_f, a, sh.lda, (float *)x, 1, &zero_f,
                                (float *)y, 1);
                    break;
                case 6:
                    cublasDgemv(hb, CUBLAS_OP_N, m, k, &one_d, ad, m, x, 1, &zero, y, 1);
                    break;
                }
            };
            auto run = [&]() {
                double bytes = 0;
                if (sh.m > 0) {
                    one(sh.m);
                    bytes = (double)sh.m * sh.k;
                } else
                    for (int i = 0; i < 15; i++) {
                        one(30720 - 2048 * i);
                        bytes += (double)(30720 - 2048 * i) * sh.k;
                    }
                return bytes * (v == 6 ? 8 : 4);
            };
            run();
            CK(cudaDeviceSynchronize());
            const int reps = sh.k > 2048 ? 10 : 50;
            double bytes = 0;
            cudaEventRecord(e0, s);
            for (int r = 0; r < reps; r++) bytes += run();
            cudaEventRecord(e1, s);
            CK(cudaEventSynchronize(e1));
            CK(cudaGetLastError());
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            printf(" %6.2f/%4.0f", bytes / (ms * 1e-3) / 1e12, ms * 1e3 / reps);
        }
        printf("   (TB/s / us a call)\n");
    }
    // the library's sliced kernel at chosen rows a lane and slices (16: a non-portable cluster)
    CK(cudaFuncSetAttribute(gemv_mixed_kernel<kSliceWarps, 4, true, false>,
                            cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CK(cudaFuncSetAttribute(gemv_mixed_kernel<kSliceWarps, 1, true, false>,
                            cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const int cfg[][2] = {{0, 0}, {4, 4}, {4, 8}, {4, 16}, {1, 4}, {1, 8}, {1, 16}};
    printf("\nus a call, k = 2048:  library");
    for (int c = 1; c < 7; c++) printf("   v%d/s%-2d", cfg[c][0], cfg[c][1]);
    printf("\n");
    for (int m : {2048, 4096, 6144, 8192, 12288, 16384, 30720}) {
        printf("m = %5d          ", m);
        for (int c = 0; c < 7; c++) {
            auto call = [&]() {
                if (c == 0) {
                    CK(ps_cuda_launch_gemv_mixed(s, sms, max_slices, m, 2048, -1.0, a, n, nullptr,
                                                 0, 0, x, 1, y, 1, 0));
                    return;
                }
                int vec = cfg[c][0], tiles = (m + 32 * vec - 1) / (32 * vec);
                Product p{m, 2048, -1.0, a, (size_t)n, {nullptr, 0, 0.0}, x, 1, y, 1};
                if (vec == 4)
                    CK((launch_sliced<4, false>(s, tiles, cfg[c][1], false, p)));
                else
                    CK((launch_sliced<1, false>(s, tiles, cfg[c][1], false, p)));
            };
            call();
            CK(cudaDeviceSynchronize());
            cudaEventRecord(e0, s);
            for (int r = 0; r < 100; r++) call();
            cudaEventRecord(e1, s);
            CK(cudaEventSynchronize(e1));
            float ms = 0;
            cudaEventElapsedTime(&ms, e0, e1);
            printf(" %8.1f", ms * 10);
        }
        printf("\n");
    }
    return 0;
}
