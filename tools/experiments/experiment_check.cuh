// The experiments' checks of CUDA and cuBLAS calls: an experiment stops at the first failure,
// saying where.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_) {                                                                                  \
            printf("%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));                      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CB(x)                                                                                      \
    do {                                                                                           \
        cublasStatus_t s_ = (x);                                                                   \
        if (s_) {                                                                                  \
            printf("%s:%d cublas %d\n", __FILE__, __LINE__, (int)s_);                              \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
