// The WZ leaf on the whole GPU: the step-order WZ panel (core/backend.h, wz_panel) of an m x w
// panel by a cooperative grid, each block holding its slice of the panel's rows in shared memory
// from the first step to the last, as the LU leaf does (cuda_lu_panel.cu explains the shape).
//
// A WZ step picks two pivot rows one after the other: r0 the row of largest |a(i,t0)|, then r1
// the row maximizing the corner determinant with r0, which needs r0's values. So a step has two
// grid-wide exchanges, A (column t0) and B (the determinant), for two columns: one per column,
// as in LU. In each, every block publishes its best candidate with that row's w values and the
// owner of the target row (t0 or t1) publishes that row; every block then reduces the candidates
// in the same order, reads the winner and the target row, and the two owners swap them in their
// tiles. After the corner step the next step's first column is updated and exchange A of the
// next step published (the published rows computed as the pending update will compute them,
// bitwise), and the rest of the update runs while that exchange travels.
#include "cuda_coop.cuh"
#include "cuda_device.cuh"

namespace {

// a(i,j) - (w0 z0 + w1 z1), the same operations wherever it is computed
template <typename T> __device__ __forceinline__ T wz_update(T x, T w0, T w1, T z0, T z1) {
    return fma(-w1, z1, fma(-w0, z0, x));
}

// Dynamic shared memory: the tile (per x w, column-major, ld = per), then four rows of w: the
// chosen pivot rows of exchanges A and B (the new rows t0 and t1) and the target rows' values
// before the swaps (which the owners of the chosen rows take). Exchange words (scratch) as in
// the LU leaf: candidates [2][blocks], candidate rows [2][blocks][w], target row [2][w], by the
// parity of the exchange index (A of step s is 2s, B is 2s + 1). A block overwrites exchange e's
// slot (publishing e + 2) only after reading every block's candidate of e + 1, which each block
// publishes only after it has finished reading e; so every block publishes a candidate in every
// exchange, an empty one without pivoting (a first version skipped them there and deadlocked).
// One block per SM is how it is launched; saying so lets ptxas use the registers it needs
// (capped at 64 it spilled in double).
template <typename T>
__global__ void __launch_bounds__(PS_CUDA_COOP_THREADS, 1)
    wz_panel_coop_kernel(int m, int w, T *a, int lda, T *zsub, int zinc, int *ipiv, int row_base,
                         int *info, int pivoting, unsigned epoch, ll_word *cand, ll_word *cand_rows,
                         ll_word *target_rows) {
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
    T *row0 = tile + (size_t)per * w; // new row t0 (exchange A's winner)
    T *row1 = row0 + w;               // new row t1 (exchange B's winner)
    T *old0 = row1 + w;               // row t0 before the swap
    T *old1 = old0 + w;               // row t1 before the swap
#define TILE(i, k) tile[(i) + (size_t)(k)*per]

    for (int k = 0; k < w; k++)
        for (int i = tid; i < rows; i += blockDim.x) TILE(i, k) = a[r0 + i + (size_t)k * lda];
    __syncthreads();

    // Publishes this block's part of exchange e: its candidate (the first largest score over its
    // rows >= first, scores from score(i), skipped without pivoting), that row, and row target if
    // it owns it. pending (exchange A after a step with an elimination): columns > target still
    // wait for the step's update through w0 = TILE(., c0), w1 = TILE(., c1) and z0, z1.
    auto publish = [&](int e, int first, int target, auto score, bool pending, int c0, int c1,
                       const T *z0, const T *z1) {
        const int buf = e & 1;
        const unsigned flag = epoch << PS_CUDA_COOP_COLUMN_BITS | (unsigned)(e + 1);
        // Without pivoting a block still publishes an empty candidate: every block publishing
        // in every exchange is what keeps the double buffer safe (the kernel's comment).
        T bv = -1;
        int bi = m;
        if (pivoting)
            for (int i = max(r0, first) - r0 + tid; i < rows; i += blockDim.x) {
                T v = score(i);
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
        const bool own = target >= r0 && target < r0 + rows;
        ll_word *my_row = cand_rows + ((size_t)buf * blocks + b) * w * W;
        ll_word *tw = target_rows + (size_t)buf * w * W;
        for (int k = tid; k < w; k += blockDim.x) {
            const bool later = pending && k > target;
            if (mine < m) {
                int i = mine - r0;
                T v = later ? wz_update(TILE(i, k), TILE(i, c0), TILE(i, c1), z0[k], z1[k])
                            : TILE(i, k);
                ll_put_value(my_row + k * W, v, flag);
            }
            if (own) {
                int i = target - r0;
                T v = later ? wz_update(TILE(i, k), TILE(i, c0), TILE(i, c1), z0[k], z1[k])
                            : TILE(i, k);
                ll_put_value(tw + k * W, v, flag);
            }
        }
    };

    // Reads exchange e: the chosen row (target when no block has a candidate) into chosen and the
    // target row into old, and swaps the two in the owners' tiles. Returns the chosen row; ends
    // past a barrier.
    auto receive = [&](int e, int target, T *chosen, T *old) {
        const int buf = e & 1;
        const unsigned flag = epoch << PS_CUDA_COOP_COLUMN_BITS | (unsigned)(e + 1);
        // no candidate (no pivoting, or every score NaN): no interchange
        const int r = take_candidates<T>(cand + (size_t)buf * blocks * C, blocks, flag, m, warp_val,
                                         warp_row);
        if (r >= 0) chosen_row = r < m ? r : target;
        __syncthreads();
        const int p = chosen_row;
        const ll_word *tw = target_rows + (size_t)buf * w * W;
        const ll_word *pw = p == target ? tw : cand_rows + ((size_t)buf * blocks + p / per) * w * W;
        for (int k = tid; k < w; k += blockDim.x) {
            ll_word x[2 * W];
            ll_read<W>(pw + k * W, tw + k * W, flag, x);
            chosen[k] = ll_value<T>(x);
            old[k] = ll_value<T>(x + W);
        }
        __syncthreads();
        if (p != target) {
            const bool own_t = target >= r0 && target < r0 + rows;
            const bool own_p = p >= r0 && p < r0 + rows;
            for (int k = tid; k < w; k += blockDim.x) {
                if (own_t) TILE(target - r0, k) = chosen[k];
                if (own_p) TILE(p - r0, k) = old[k];
            }
        }
        __syncthreads();
        return p;
    };

    auto abs_col = [&](int c) { return [=](int i) { return fabs(TILE(i, c)); }; };
    publish(0, 0, 0, abs_col(0), false, 0, 0, nullptr, nullptr);
    for (int s = 0; 2 * s < w; s++) {
        const int t0 = 2 * s, t1 = t0 + 1, step = row_base / 2 + s + 1;
        const int p = receive(2 * s, t0, row0, old0);
        if (t1 == w) { // the middle 1 x 1 step: rows below divided by the pivot
            const T pivot = row0[t0];
            const bool ok = fabs(pivot) >= ps_cuda_safe_min<T>::value();
            for (int i = max(r0, t1) - r0 + tid; i < rows; i += blockDim.x)
                TILE(i, t0) = ok ? TILE(i, t0) / pivot : T(0);
            if (b == 0 && tid == 0) {
                ipiv[t0] = row_base + p;
                if (!ok && info[0] == 0) info[0] = step;
            }
            break;
        }
        T u0 = row0[t0], u1 = row0[t1];
        ps_cuda_wz_scaled_row(u0, u1);
        publish(
            2 * s + 1, t1, t1, [=](int i) { return fabs(u0 * TILE(i, t1) - u1 * TILE(i, t0)); },
            false, 0, 0, nullptr, nullptr);
        const int q = receive(2 * s + 1, t1, row1, old1);

        // the corner; Gaussian elimination of C^T with partial pivoting (core/wz/wz_corner.h)
        const T c00 = row0[t0], c01 = row0[t1], c10 = row1[t0], c11 = row1[t1];
        const bool swap = fabs(c01) > fabs(c00);
        const T cq = swap ? c01 : c00, cs = swap ? c11 : c10;
        const T cl = (swap ? c00 : c01) / cq, cu = (swap ? c10 : c11) - cl * cs;
        const bool ok =
            fabs(cq) >= ps_cuda_safe_min<T>::value() && fabs(cu) >= ps_cuda_safe_min<T>::value();
        if (b == 0 && tid == 0) {
            ipiv[t0] = row_base + p;
            ipiv[t1] = row_base + q;
            zsub[(size_t)s * zinc] = c10;
            if (!ok && info[0] == 0) info[0] = step;
        }
        if (t1 >= r0 && t1 < r0 + rows && tid == 0) TILE(t1 - r0, t0) = 0;
        const int i0 = max(r0, t1 + 1) - r0;
        for (int i = i0 + tid; i < rows; i += blockDim.x) {
            T x0 = TILE(i, t0), x1 = TILE(i, t1);
            T ra = swap ? x1 : x0, rb = swap ? x0 : x1;
            T w1 = ok ? (rb - cl * ra) / cu : T(0);
            TILE(i, t0) = ok ? (ra - cs * w1) / cq : T(0);
            TILE(i, t1) = w1;
        }
        __syncthreads();
        const int next = t1 + 1; // the next step's first column
        if (next < w) {
            // column next first, so the next exchange starts before the rest of the update
            if (ok)
                for (int i = i0 + tid; i < rows; i += blockDim.x)
                    TILE(i, next) =
                        wz_update(TILE(i, next), TILE(i, t0), TILE(i, t1), row0[next], row1[next]);
            __syncthreads();
            publish(2 * s + 2, next, next, abs_col(next), ok, t0, t1, row0, row1);
            __syncthreads(); // the published rows were read from the tile before it changes
            if (ok)
                for (int k = next + 1 + warp; k < w; k += kWarps) {
                    const T z0 = row0[k], z1 = row1[k];
                    for (int i = i0 + lane; i < rows; i += 32)
                        TILE(i, k) = wz_update(TILE(i, k), TILE(i, t0), TILE(i, t1), z0, z1);
                }
            __syncthreads();
        }
    }

    for (int k = 0; k < w; k++)
        for (int i = tid; i < rows; i += blockDim.x) a[r0 + i + (size_t)k * lda] = TILE(i, k);
#undef TILE
}

template <typename T> size_t shared_bytes(int per, int w) {
    return ((size_t)per * w + 4 * (size_t)w) * sizeof(T);
}

} // namespace

extern "C" cudaError_t ps_cuda_wz_panel_coop_init(const ps_cuda_coop_panel *cp) {
    int per_sm = 0;
    cudaError_t err =
        cudaFuncSetAttribute(wz_panel_coop_kernel<double>,
                             cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cp->max_shared);
    if (!err)
        err =
            cudaFuncSetAttribute(wz_panel_coop_kernel<float>,
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, (int)cp->max_shared);
    if (!err)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, wz_panel_coop_kernel<double>,
                                                            PS_CUDA_COOP_THREADS, cp->max_shared);
    if (!err && per_sm < 1) err = cudaErrorInvalidConfiguration;
    return err;
}

extern "C" cudaError_t ps_cuda_launch_wz_panel_coop(cudaStream_t s, int dbl, int blocks, int m,
                                                    int w, void *a, int lda, void *zsub, int zinc,
                                                    int *ipiv, int row_base, int *info,
                                                    int pivoting, unsigned epoch, void *scratch) {
    if (blocks <= 0 || w > PS_CUDA_COOP_MAX_WIDTH || epoch == 0 ||
        epoch >= 1u << (32 - PS_CUDA_COOP_COLUMN_BITS))
        return cudaErrorInvalidValue;
    int per = (m + blocks - 1) / blocks, words = dbl ? 2 : 1;
    size_t shared = dbl ? shared_bytes<double>(per, w) : shared_bytes<float>(per, w);
    // scratch (ps_cuda_coop_scratch_bytes): candidates, candidate rows, target rows
    ll_word *cand = static_cast<ll_word *>(scratch);
    ll_word *cand_rows = cand + 2 * (size_t)blocks * (words + 1);
    ll_word *target_rows = cand_rows + 2 * (size_t)blocks * w * words;
    void *args[] = {&m,        &w,    &a,        &lda,   &zsub, &zinc,      &ipiv,
                    &row_base, &info, &pivoting, &epoch, &cand, &cand_rows, &target_rows};
    const void *kernel = dbl ? (const void *)wz_panel_coop_kernel<double>
                             : (const void *)wz_panel_coop_kernel<float>;
    return cudaLaunchCooperativeKernel(kernel, dim3(blocks), dim3(PS_CUDA_COOP_THREADS), args,
                                       shared, s);
}
