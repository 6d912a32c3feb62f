// Accuracy and speed of FP16X3 products (float accuracy from FP16 tensor cores, as the CUDA
// backend's split3_gemm) by the order of the three parts along k, against SGEMM: the LU's
// trailing update shape (k = 768). Tensor cores accumulate in float but do not round each sum to
// nearest (Fasi et al. 2021 on V100/A100; Khattak and Mikaitis 2025 on H100): where the small
// parts (hi lo, lo hi) come after hi hi, each of their k/16 steps truncates the big sum again.
//
// An experiment, built with the tests where the CUDA backend is (not run by CTest):
//   BUILD/tools/experiments/fp16x3_order [m n k]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <vector>

#include "experiment_check.cuh"

namespace {

// One part of x (col-major rows x cols, ld rows) into dst at column offset (A: parts side by side
// along k = columns) or row offset (B: parts stacked along k = rows, ld 3k or 4k): lo is
// (x - hi) 2^11, hi is x rounded to FP16 times scale.
__global__ void part_kernel(int rows, int cols, const float *x, __half *dst, int ldd, int is_lo,
                            float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i >= rows) return;
    float v = x[i + (size_t)j * rows];
    __half hi = __float2half_rn(v);
    float hf = __half2float(hi);
    dst[i + (size_t)j * ldd] =
        is_lo ? __float2half_rn((v - hf) * 2048.0f * scale) : __float2half_rn(hf * scale);
}

// The TF32X3 parts (as split_tf32_kernel): hi is x truncated to TF32, lo = x - hi.
__global__ void part_tf32_kernel(int rows, int cols, const float *x, float *dst, int ldd,
                                 int is_lo) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (i >= rows) return;
    float v = x[i + (size_t)j * rows];
    float hi = __uint_as_float(__float_as_uint(v) & 0xffffe000u);
    dst[i + (size_t)j * ldd] = is_lo ? v - hi : hi;
}

__global__ void to_double(size_t count, const float *x, double *y) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < count) y[i] = x[i];
}

struct part {
    int lo;
    float scale;
};
struct mode {
    const char *name;
    int parts;
    part a[4], b[4];
    int split_at; // > 0: parts [0, split_at) in one GEMM, the rest in a second (beta 1)
};

// every product is 2^11 times its own (alpha 2^-11 undoes it); lo lo gets 2^-11 on one side
const mode modes[] = {
    {"hi-first (before s49)", 3, {{0, 64}, {0, 1}, {1, 1}}, {{0, 32}, {1, 1}, {0, 1}}, 0},
    {"lo-first (library)", 3, {{1, 1}, {0, 1}, {0, 64}}, {{0, 1}, {1, 1}, {0, 32}}, 0},
    {"lo-first, two GEMMs", 3, {{1, 1}, {0, 1}, {0, 64}}, {{0, 1}, {1, 1}, {0, 32}}, 2},
    {"lo-first + lo lo",
     4,
     {{1, 0x1p-11f}, {1, 1}, {0, 1}, {0, 64}},
     {{1, 1}, {0, 1}, {1, 1}, {0, 32}},
     0},
};

} // namespace

int main(int argc, char **argv) {
    int m = argc > 3 ? atoi(argv[1]) : 4096, n = argc > 3 ? atoi(argv[2]) : 4096,
        k = argc > 3 ? atoi(argv[3]) : 768;
    cublasHandle_t h;
    CB(cublasCreate(&h));
    size_t na = (size_t)m * k, nb = (size_t)k * n, nc = (size_t)m * n;
    std::vector<float> ha(na), hb(nb);
    srand(49);
    for (auto &v : ha) v = 2.0f * rand() / RAND_MAX - 1.0f;
    for (auto &v : hb) v = 2.0f * rand() / RAND_MAX - 1.0f;
    float *a, *b, *c;
    double *ad, *bd, *cd;
    __half *pa, *pb;
    float *ta, *tb;
    CK(cudaMalloc(&ta, 3 * na * 4));
    CK(cudaMalloc(&tb, 3 * nb * 4));
    CK(cudaMalloc(&a, na * 4));
    CK(cudaMalloc(&b, nb * 4));
    CK(cudaMalloc(&c, nc * 4));
    CK(cudaMalloc(&ad, na * 8));
    CK(cudaMalloc(&bd, nb * 8));
    CK(cudaMalloc(&cd, nc * 8));
    CK(cudaMalloc(&pa, 4 * na * 2));
    CK(cudaMalloc(&pb, 4 * nb * 2));
    CK(cudaMemcpy(a, ha.data(), na * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), nb * 4, cudaMemcpyHostToDevice));
    to_double<<<(na + 255) / 256, 256>>>(na, a, ad);
    to_double<<<(nb + 255) / 256, 256>>>(nb, b, bd);
    double one = 1, zero = 0;
    CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, ad, m, bd, k, &zero, cd, m));
    std::vector<double> ref(nc);
    std::vector<float> got(nc);
    CK(cudaMemcpy(ref.data(), cd, nc * 8, cudaMemcpyDeviceToHost));
    double ref2 = 0;
    for (double r : ref) ref2 += r * r;
    double ref_rms = sqrt(ref2 / nc);
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    printf("m %d n %d k %d, operands uniform(-1, 1); errors relative to rms(A B) %.3g\n", m, n, k,
           ref_rms);
    printf("%-26s %12s %12s %12s %10s\n", "mode", "rms error", "mean toward0", "max error",
           "GEMM ms");
    const int nmodes = (int)(sizeof modes / sizeof modes[0]);
    for (int md = -1; md < nmodes + 2; md++) {
        float fone = 1, fzero = 0, alpha = 0x1p-11f;
        auto run = [&]() {
            if (md < 0) {
                CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fone, a, m, b, k, &fzero, c,
                               m));
                return;
            }
            if (md >= nmodes) { // TF32X3: hi-first [Ahi Ahi Alo], else lo-first [Alo Ahi Ahi]
                int lofirst = md == nmodes + 1;
                for (int p = 0; p < 3; p++) {
                    int alo = lofirst ? p == 0 : p == 2, blo = p == 1;
                    part_tf32_kernel<<<dim3((m + 255) / 256, k), 256>>>(
                        m, k, a, ta + (size_t)p * na, m, alo);
                    part_tf32_kernel<<<dim3((k + 255) / 256, n), 256>>>(k, n, b, tb + (size_t)p * k,
                                                                        3 * k, blo);
                }
                CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, 3 * k, &fone, ta, CUDA_R_32F, m,
                                tb, CUDA_R_32F, 3 * k, &fzero, c, CUDA_R_32F, m,
                                CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
                return;
            }
            const mode &o = modes[md];
            int P = o.parts;
            for (int p = 0; p < P; p++) {
                part_kernel<<<dim3((m + 255) / 256, k), 256>>>(m, k, a, pa + (size_t)p * na, m,
                                                               o.a[p].lo, o.a[p].scale);
                part_kernel<<<dim3((k + 255) / 256, n), 256>>>(k, n, b, pb + (size_t)p * k, P * k,
                                                               o.b[p].lo, o.b[p].scale);
            }
            if (o.split_at == 0) {
                CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, P * k, &alpha, pa, CUDA_R_16F, m,
                                pb, CUDA_R_16F, P * k, &fzero, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
            } else {
                int s = o.split_at;
                CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, s * k, &alpha, pa, CUDA_R_16F, m,
                                pb, CUDA_R_16F, P * k, &fzero, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
                CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, (P - s) * k, &alpha,
                                pa + (size_t)s * na, CUDA_R_16F, m, pb + (size_t)s * k, CUDA_R_16F,
                                P * k, &fone, c, CUDA_R_32F, m, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));
            }
        };
        run();
        CK(cudaDeviceSynchronize());
        CK(cudaEventRecord(e0));
        for (int r = 0; r < 5; r++) run();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        CK(cudaMemcpy(got.data(), c, nc * 4, cudaMemcpyDeviceToHost));
        double s2 = 0, toward = 0, worst = 0;
        for (size_t i = 0; i < nc; i++) {
            double e = got[i] - ref[i];
            s2 += e * e;
            toward += ref[i] > 0 ? -e : e; // positive: got is nearer zero than ref
            worst = fmax(worst, fabs(e));
        }
        const char *name = md < 0             ? "SGEMM"
                           : md == nmodes     ? "TF32X3 hi-first (before)"
                           : md == nmodes + 1 ? "TF32X3 lo-first (library)"
                                              : modes[md].name;
        printf("%-26s %12.3e %12.3e %12.3e %10.3f\n", name, sqrt(s2 / nc) / ref_rms,
               toward / nc / ref_rms, worst / ref_rms, ms / 5);
    }
    return 0;
}
