// CG's steps (core/backend.h, cg_steps) with the matrix resident on the chip
// (cuda_resident.cuh): one cooperative launch runs up to the call's count of steps, each a
// product and cg_step, without reading the matrix from L2 or HBM. At n = 2000 on an H200 a step
// took 8 us against 10.5 for a product kernel and a step kernel (docs/PERFORMANCE.md).
#include "cuda_resident.cuh"

namespace {

// Step i: w = A u for the block's rows from the u every block reads whole, the three dot
// products over the block's rows, one grid-wide reduction, the step's decision (cg_decide, the
// same in every block from the same sums), the block's rows updated as cg_step updates them,
// then a grid sync so that the next step reads the new u whole: two syncs a step.
// Each thread < rows owns one row's elements of x, r, u, p, s (read at the step's start, in
// flight during the product). A call whose input block has stopped copies it and loads nothing;
// a step that stops fills the later blocks with its own and ends the launch.
template <typename T>
__global__ void __launch_bounds__(kThreads, 1)
    cg_resident_kernel(int n, const T *a, int lda, ps_cuda_cg_ptrs ptrs, const T *in, T *out,
                       int count, double stop_rr, int last, T *host_out, int rows_cap,
                       int smem_rows, int sld, double *partial) {
    cg::grid_group grid = cg::this_grid();
    extern __shared__ __align__(16) double dyn[];
    __shared__ double warp_rows[kMaxRows * kWarps];
    __shared__ double mine[4], tot[4], w[kMaxRows];
    T *sa = (T *)dyn;
    const int t = threadIdx.x, row0 = (int)blockIdx.x * rows_cap;
    const int rows = n - row0 < 0 ? 0 : n - row0 < rows_cap ? n - row0 : rows_cap;
    const cg_vectors<T> v(ptrs);
    const bool pre = v.dinv != nullptr;
    double sc[PS__CG_SCALARS];
    for (int k = 0; k < PS__CG_SCALARS; k++) sc[k] = in[k];
    int i0 = 0;
    if (sc[PS__CG_STOP] == 0) {
        const int srows = rows > kRegRows ? rows - kRegRows : 0;
        load_slice(srows, n, a + row0 + kRegRows, lda, sa, sld, true);
        T ra[kRegRows][kCols];
        load_register_rows(n, rows, a + row0, lda, ra);
        T x[kCols];
        fetch_x(n, v.u, x); // u is complete: the launch before wrote it
        __syncthreads();
        const int q = row0 + t; // this thread's row while t < rows
        for (int i = 0; i < count; i++) {
            T xq = 0, rq = 0, uq = 0, pq = 0, sq = 0;
            if (t < rows) {
                xq = __ldcg(v.x + q), rq = __ldcg(v.r + q), pq = __ldcg(v.p + q);
                sq = __ldcg(v.s + q), uq = pre ? __ldcg(v.u + q) : rq;
            }
            block_product(n, rows, ra, sa, sld, x, warp_rows, w);
            // (r, r), (r, u), (w, u) over the block's rows, in warp 0 (rows <= 32)
            if (t < 32) {
                double acc[3] = {0, 0, 0};
                if (t < rows) cg_dots(acc, rq, uq, (T)w[t]);
                for (int k = 0; k < 3; k++) {
                    const double s = warp_combine(acc[k]);
                    if (t == 0) mine[k] = s;
                }
            }
            __syncthreads();
            grid_publish(mine, 3, partial);
            grid.sync();
            grid_gather<sum_op>(partial, 3, tot);
            __syncthreads();
            const cg_decision<T> d = cg_decide<T>(sc, tot, pre, stop_rr, i == last);
            if (t < rows) {
                if (d.save) v.xbest[q] = xq;
                if (d.update) cg_update(v, d, q, xq, rq, uq, (T)w[t], pq, sq);
            }
            if (blockIdx.x == 0 && t == 0)
                put_scalars(sc, out + (size_t)i * PS__CG_SCALARS,
                            host_out ? host_out + (size_t)i * PS__CG_SCALARS : nullptr);
            i0 = i + 1;
            if (sc[PS__CG_STOP] != 0 || i0 == count) break; // every block alike
            grid.sync(); // u complete (and the sums read: partial is free again)
            fetch_x(n, v.u, x);
        }
    }
    // the steps after a stop copy its block (cg_step's rule)
    if (blockIdx.x == 0 && t == 0)
        for (int i = i0; i < count; i++)
            put_scalars(sc, out + (size_t)i * PS__CG_SCALARS,
                        host_out ? host_out + (size_t)i * PS__CG_SCALARS : nullptr);
}

const void *cg_kernels[] = {(const void *)cg_resident_kernel<double>,
                            (const void *)cg_resident_kernel<float>};

} // namespace

// Dynamic shared memory of a launch: the slice's rows past the registers'.
static size_t cg_resident_shared(int dbl, int n, int rows_cap) {
    return resident_slice_bytes(dbl ? sizeof(double) : sizeof(float), n, rows_cap);
}

extern "C" const void *ps_cuda_cg_resident_kernel(int dbl) {
    return cg_kernels[dbl ? 0 : 1];
}

extern "C" int ps_cuda_resident_cg_fits(const ps_cuda_resident_limits *lim, int dbl, int n) {
    if (lim->blocks < 1 || n < 1 || n > PS_CUDA_RESIDENT_MAX_N) return 0;
    const int rows_cap = (n + lim->blocks - 1) / lim->blocks;
    return rows_cap <= PS_CUDA_RESIDENT_MAX_ROWS &&
           cg_resident_shared(dbl, n, rows_cap) <= lim->max_shared;
}

extern "C" cudaError_t
ps_cuda_launch_cg_resident(cudaStream_t s, int dbl, const ps_cuda_resident_limits *lim, int n,
                           const void *a, int lda, ps_cuda_cg_ptrs v, const void *in, void *out,
                           int count, double stop_rr, int last, void *host_out, double *partial) {
    if (count < 1 || !ps_cuda_resident_cg_fits(lim, dbl, n)) return cudaErrorInvalidValue;
    int rows_cap = (n + lim->blocks - 1) / lim->blocks;
    int smem_rows = rows_cap > kRegRows ? rows_cap - kRegRows : 0;
    int sld = n | 1; // odd: a column's rows fall in different banks when loaded
    const int blocks = (n + rows_cap - 1) / rows_cap;
    void *args[] = {&n,       &a,    &lda,      &v,        &in,        &out, &count,
                    &stop_rr, &last, &host_out, &rows_cap, &smem_rows, &sld, &partial};
    return cudaLaunchCooperativeKernel(cg_kernels[dbl ? 0 : 1], dim3((unsigned)blocks),
                                       dim3(kThreads), args, cg_resident_shared(dbl, n, rows_cap),
                                       s);
}
