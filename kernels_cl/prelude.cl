/* The prelude of every program in kernels_cl/: backend_opencl/cl_program.c compiles it as the
 * first string of each family's source. One source serves both precisions: -DPS_DOUBLE selects
 * double. real is the element type; PS_SAFE_MIN the smallest normal number (LAPACK's sfmin), a
 * pivot below which counts as zero. */
#ifdef PS_DOUBLE
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
#define PS_SAFE_MIN DBL_MIN
#else
typedef float real;
#define PS_SAFE_MIN FLT_MIN
#endif
