// Device-side helpers shared by the CUDA backend's kernels.
#ifndef PS_BACKEND_CUDA_DEVICE_CUH
#define PS_BACKEND_CUDA_DEVICE_CUH

#include <cfloat>

// The smallest normal number (LAPACK's sfmin): a pivot below it is divided by, not inverted,
// since its reciprocal would overflow.
template <typename T> struct ps_cuda_safe_min;
template <> struct ps_cuda_safe_min<double> {
    static __device__ double value() { return DBL_MIN; }
};
template <> struct ps_cuda_safe_min<float> {
    static __device__ float value() { return FLT_MIN; }
};

#endif
