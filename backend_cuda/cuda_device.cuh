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

// Programmatic dependent launch (Hopper and later). A kernel launched with
// cudaLaunchAttributeProgrammaticStreamSerialization may start once every block of the kernel
// before it has called ps_cuda_launch_dependents (or ended); ps_cuda_grid_dependency_wait then
// waits until that kernel has finished and its writes are visible. So a dependent may read,
// before the wait, only what the kernel before it does not write; and a kernel calls
// ps_cuda_launch_dependents only after its own wait, so that what its dependent reads ahead was
// final before this kernel started (were it called earlier, a chain of early kernels could
// overlap three deep). Both are no-ops on older devices and in kernels launched the ordinary
// way.
__device__ __forceinline__ void ps_cuda_grid_dependency_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void ps_cuda_launch_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// WZ's pivot search forms |u0 a(i,c1) - u1 a(i,c0)| over rows i: (u0, u1) scaled by a power of
// two to at most 1/2 in magnitude, exactly, so that the products neither overflow nor underflow
// for entries anywhere in T's range (the CPU oracle does the same, cpu_wz_real.h).
template <typename T> __device__ __forceinline__ void ps_cuda_wz_scaled_row(T &u0, T &u1) {
    T m = fmax(fabs(u0), fabs(u1));
    int e = 0;
    if (m > T(0) && isfinite(m)) frexp(m, &e);
    u0 = ldexp(u0, -e - 1), u1 = ldexp(u1, -e - 1);
}

#endif
