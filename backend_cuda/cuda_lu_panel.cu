// The LU leaf on the whole GPU: unblocked LU with partial pivoting of an m x n panel by a
// cooperative grid, each block holding its slice of the panel's rows in shared memory from the
// first column to the last.
//
// Why this shape: a leaf column's work is tiny (a rank-1 update of m x n/2 elements), so its
// cost is latency: the grid-wide exchange that picks the pivot, and any global-memory access
// that depends on it. The first cooperative kernel updated the panel in global memory and spent
// about 8.5 us per column on an H100 whatever m was (docs/PERFORMANCE.md), mostly dependent
// global loads and stores inside the update loop. Here the update, the pivot search and the
// swaps touch only shared memory; per column the only global traffic is the exchange: every block
// publishes its best candidate (value, row, and the row's n values) and the owner of row j
// publishes row j; every block then reduces the candidates the same way (the first largest
// |a(i,j)| wins, as LAPACK's dgetf2), reads the winning row and row j, and the owners of rows j
// and p swap them in their tiles. Rows are only ever written by their owner. Column j + 1 is
// updated and its exchange published before the rest of column j's update, which then runs
// while the exchange travels (4.7 instead of 6.3 us per column at m = 16384). The exchange needs
// no grid-wide barrier (see ll_put); the launch is cooperative so that all blocks are resident
// while they wait for each other.
#include "cuda_coop.cuh"
#include "cuda_device.cuh"

namespace {

// Dynamic shared memory: the tile (per x n, column-major, ld = per), the pivot row, row j.
// Exchange words (scratch): candidates [2][blocks] (value, row), candidate rows [2][blocks][n]
// and row j [2][n], double-buffered by column parity. A block reaches column j + 2, and so
// overwrites a column-j slot, only after reading every block's column j + 1 candidate, which
// each block publishes only after it has finished reading column j.
template <typename T>
__global__ void __launch_bounds__(PS_CUDA_COOP_THREADS)
    getrf_panel_coop_kernel(int m, int n, T *a, int lda, int *ipiv, int row_base, int *info,
                            unsigned epoch, ll_word *cand, ll_word *cand_rows, ll_word *row_j) {
    extern __shared__ __align__(16) unsigned char shared_raw[];
    __shared__ T warp_val[kWarps];
    __shared__ int warp_row[kWarps];
    __shared__ int block_best, chosen_row;
    constexpr int W = kWords<T>, C = W + 1; // words per element, per candidate
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int b = blockIdx.x, blocks = gridDim.x;
    const int per = (m + blocks - 1) / blocks, r0 = b * per;
    const int rows = max(0, min(m, r0 + per) - r0);
    T *tile = reinterpret_cast<T *>(shared_raw);
    T *prow = tile + (size_t)per * n;
    T *jrow = prow + n;

    for (int k = 0; k < n; k++)
        for (int i = tid; i < rows; i += blockDim.x)
            tile[i + k * per] = a[r0 + i + (size_t)k * lda];
    __syncthreads();

    // Publishes this block's part of column jn's exchange: its candidate (the first largest
    // |a(i,jn)| over its rows i >= jn), that row, and row jn if it owns it. With l non-null the
    // previous column's update is still pending for columns > jn: the published values are
    // computed as the update will compute them (the same fma), so every copy agrees bitwise.
    auto publish = [&](int jn, const T *l, const T *u) {
        const int buf = jn & 1;
        const unsigned flag = epoch << PS_CUDA_COOP_COLUMN_BITS | (unsigned)(jn + 1);
        const T *col = tile + (size_t)jn * per;
        T bv = -1;
        int bi = m;
        for (int i = max(r0, jn) - r0 + tid; i < rows; i += blockDim.x) {
            T v = fabs(col[i]);
            if (v > bv) {
                bv = v;
                bi = r0 + i;
            }
        }
        if (put_candidate(bv, bi, m, cand + ((size_t)buf * blocks + b) * C, flag, warp_val,
                          warp_row))
            block_best = bi;
        __syncthreads();
        const int mine = block_best;
        const bool own = jn >= r0 && jn < r0 + rows;
        ll_word *my_row = cand_rows + ((size_t)buf * blocks + b) * n * W;
        ll_word *jw = row_j + (size_t)buf * n * W;
        for (int k = tid; k < n; k += blockDim.x) {
            const T *ck = tile + (size_t)k * per;
            const bool pending = l && k > jn;
            if (mine < m) {
                int i = mine - r0;
                ll_put_value(my_row + k * W, pending ? fma(-l[i], u[k], ck[i]) : ck[i], flag);
            }
            if (own) {
                int i = jn - r0;
                ll_put_value(jw + k * W, pending ? fma(-l[i], u[k], ck[i]) : ck[i], flag);
            }
        }
    };

    const int steps = min(m, n);
    publish(0, nullptr, nullptr);
    for (int j = 0; j < steps; j++) {
        const int buf = j & 1;
        const unsigned flag = epoch << PS_CUDA_COOP_COLUMN_BITS | (unsigned)(j + 1);
        const bool own_j = j >= r0 && j < r0 + rows;
        const ll_word *jw = row_j + (size_t)buf * n * W;

        // the pivot, reduced by every block in the same order: thread c reads candidate c
        {
            const int r = take_candidates<T>(cand + (size_t)buf * blocks * C, blocks, flag, m,
                                             warp_val, warp_row);
            if (r >= 0) chosen_row = r < m ? r : j; // an all-NaN column: no interchange
        }
        __syncthreads();
        const int p = chosen_row;
        // row j's copy when p == j: after an all-NaN column no block may have a candidate
        const ll_word *pw = p == j ? jw : cand_rows + ((size_t)buf * blocks + p / per) * n * W;
        for (int k = tid; k < n; k += blockDim.x) {
            ll_word x[2 * W];
            ll_read<W>(pw + k * W, jw + k * W, flag, x);
            prow[k] = ll_value<T>(x);
            jrow[k] = ll_value<T>(x + W);
        }
        __syncthreads();
        const T pivot = prow[j];
        if (b == 0 && tid == 0) {
            ipiv[j] = row_base + p;
            if (pivot == 0 && info[0] == 0) info[0] = row_base + j + 1;
        }
        if (pivot != 0 && p != j) {
            const bool own_p = p >= r0 && p < r0 + rows;
            for (int k = tid; k < n; k += blockDim.x) {
                if (own_j) tile[(j - r0) + k * per] = prow[k];
                if (own_p) tile[(p - r0) + k * per] = jrow[k];
            }
        }
        __syncthreads();
        const int i0 = max(r0, j + 1) - r0;
        const bool update = pivot != 0; // uniform over the grid
        T *l = tile + (size_t)j * per;
        if (update) {
            const bool tiny = fabs(pivot) < ps_cuda_safe_min<T>::value();
            const T rcp = 1 / pivot;
            for (int i = i0 + tid; i < rows; i += blockDim.x)
                l[i] = tiny ? l[i] / pivot : l[i] * rcp;
        }
        __syncthreads();
        if (j + 1 < steps) {
            // column j + 1 first, so the next exchange starts before the rest of the update
            if (update) {
                T *c1 = tile + (size_t)(j + 1) * per;
                for (int i = i0 + tid; i < rows; i += blockDim.x)
                    c1[i] = fma(-l[i], prow[j + 1], c1[i]);
            }
            __syncthreads();
            publish(j + 1, update ? l : nullptr, prow);
            __syncthreads(); // the published rows were read from the tile before it changes
        }
        if (update)
            for (int k = (j + 1 < steps ? j + 2 : j + 1) + warp; k < n; k += kWarps) {
                const T u = prow[k];
                T *ck = tile + (size_t)k * per;
                for (int i = i0 + lane; i < rows; i += 32) ck[i] = fma(-l[i], u, ck[i]);
            }
        __syncthreads();
    }

    for (int k = 0; k < n; k++)
        for (int i = tid; i < rows; i += blockDim.x)
            a[r0 + i + (size_t)k * lda] = tile[i + k * per];
}

template <typename T> size_t shared_bytes(int per, int n) {
    return ((size_t)per * n + 2 * (size_t)n) * sizeof(T);
}

template <typename T> cudaError_t allow_shared(size_t bytes) {
    return cudaFuncSetAttribute(getrf_panel_coop_kernel<T>,
                                cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

} // namespace

extern "C" cudaError_t ps_cuda_coop_panel_init(int device, ps_cuda_coop_panel *out) {
    int sms = 0, optin = 0, per_sm = 0;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (!err) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    // the static part (warp candidates) and a margin stay out of the dynamic budget
    size_t dynamic = optin > 1024 ? (size_t)optin - 1024 : 0;
    if (!err) err = allow_shared<double>(dynamic);
    if (!err) err = allow_shared<float>(dynamic);
    if (!err)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, getrf_panel_coop_kernel<double>, PS_CUDA_COOP_THREADS, dynamic);
    // thread c of every block reads block c's candidate
    out->max_blocks = err || per_sm < 1 ? 0 : min(sms, PS_CUDA_COOP_THREADS);
    out->max_shared = dynamic;
    return err;
}

extern "C" int ps_cuda_coop_panel_blocks(const ps_cuda_coop_panel *cp, int dbl, int m, int n,
                                         int rows_of_n, int default_rows) {
    if (cp->max_blocks <= 0 || m <= 0 || n <= 0 || n > PS_CUDA_COOP_MAX_WIDTH) return 0;
    int rows = cp->rows_per_block > 0 ? cp->rows_per_block : default_rows;
    int blocks = (m + rows - 1) / rows;
    if (blocks > cp->max_blocks) blocks = cp->max_blocks;
    int per = (m + blocks - 1) / blocks;
    size_t need = ((size_t)per + (size_t)rows_of_n) * (size_t)n * (dbl ? 8 : 4);
    return need <= cp->max_shared ? blocks : 0;
}

extern "C" int ps_cuda_coop_panel_max_width(const ps_cuda_coop_panel *cp, int dbl, int m,
                                            int rows_of_n, int default_rows) {
    int lo = 0, hi = PS_CUDA_COOP_MAX_WIDTH; // the widest n that fits, by bisection
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (ps_cuda_coop_panel_blocks(cp, dbl, m, mid, rows_of_n, default_rows) > 0)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

extern "C" cudaError_t ps_cuda_launch_getrf_panel_coop(cudaStream_t s, int dbl, int blocks, int m,
                                                       int n, void *a, int lda, int *ipiv,
                                                       int row_base, int *info, unsigned epoch,
                                                       void *scratch) {
    if (blocks <= 0 || n > PS_CUDA_COOP_MAX_WIDTH || epoch == 0 ||
        epoch >= 1u << (32 - PS_CUDA_COOP_COLUMN_BITS))
        return cudaErrorInvalidValue;
    int per = (m + blocks - 1) / blocks, words = dbl ? 2 : 1;
    size_t shared = dbl ? shared_bytes<double>(per, n) : shared_bytes<float>(per, n);
    // scratch (ps_cuda_coop_scratch_bytes): candidates, candidate rows, row j (see the kernel)
    ll_word *cand = static_cast<ll_word *>(scratch);
    ll_word *cand_rows = cand + 2 * (size_t)blocks * (words + 1);
    ll_word *row_j = cand_rows + 2 * (size_t)blocks * n * words;
    void *args[] = {&m, &n, &a, &lda, &ipiv, &row_base, &info, &epoch, &cand, &cand_rows, &row_j};
    const void *kernel = dbl ? (const void *)getrf_panel_coop_kernel<double>
                             : (const void *)getrf_panel_coop_kernel<float>;
    return cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(PS_CUDA_COOP_THREADS), args,
                                       shared, s);
}
