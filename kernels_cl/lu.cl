/*
 * LU kernels for both precisions: -DPS_DOUBLE selects double, -DPS_WG=<power of two> the
 * work-group size of the panel kernel. Offsets are in elements; pivots are 0-based int32.
 */

/*
 * Unblocked LU with partial pivoting of an m x n panel (m >= n, n small) by ONE work-group
 * of PS_WG work-items (1 on CPU devices), so the whole panel is factored on the device in one
 * launch: no host round trip per column. Every barrier is reached by the whole work-group. Per
 * column: a work-group reduction finds the first largest |a(i,j)|, the rows are swapped across the
 * panel, the column is scaled and the rank-1 update applied. Matches LAPACK dgetf2 (and the CPU
 * oracle), including its handling of tiny and zero pivots.
 */
__kernel __attribute__((reqd_work_group_size(PS_WG, 1, 1))) void
ps_getrf_panel(int m, int n, __global real *a, ulong off, int lda, __global int *ipiv,
               ulong ipiv_off, int row_base, __global int *info) {
    __local real best_val[PS_WG];
    __local int best_row[PS_WG];
    int lid = get_local_id(0);
    __global real *base = a + off;
    __global int *piv = ipiv + ipiv_off;
    int steps = min(m, n);
    for (int j = 0; j < steps; j++) {
        __global real *col = base + (ulong)j * (ulong)lda;
        real bv = -1;
        int bi = m;
        for (int i = j + lid; i < m; i += PS_WG) {
            real v = fabs(col[i]);
            if (v > bv) {
                bv = v;
                bi = i;
            }
        }
        best_val[lid] = bv;
        best_row[lid] = bi;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int s = PS_WG / 2; s > 0; s >>= 1) {
            if (lid < s) {
                real v2 = best_val[lid + s];
                int i2 = best_row[lid + s];
                if (v2 > best_val[lid] || (v2 == best_val[lid] && i2 < best_row[lid])) {
                    best_val[lid] = v2;
                    best_row[lid] = i2;
                }
            }
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        /* Work-item 0 publishes the pivot row and value through local memory. */
        if (lid == 0) {
            int p0 = best_row[0];
            best_val[0] = base[p0 + (ulong)j * (ulong)lda];
            piv[j] = row_base + p0;
        }
        barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
        int p = best_row[0];
        real pivot = best_val[0];
        if (pivot != 0 && p != j)
            for (int k = lid; k < n; k += PS_WG) {
                __global real *ck = base + (ulong)k * (ulong)lda;
                real t = ck[j];
                ck[j] = ck[p];
                ck[p] = t;
            }
        barrier(CLK_GLOBAL_MEM_FENCE);
        if (pivot == 0 && lid == 0 && info[0] == 0) info[0] = row_base + j + 1;
        /* Scaling and update in one pass over the rows below (each work-item its own rows; row
         * j of the columns to the right is only read): a zero pivot leaves the column unscaled,
         * as LAPACK does, and still updates with it. */
        int by_reciprocal = fabs(pivot) >= PS_SAFE_MIN;
        real r = by_reciprocal ? 1 / pivot : 1;
        for (int i = j + 1 + lid; i < m; i += PS_WG) {
            real l = col[i];
            if (pivot != 0) l = by_reciprocal ? l * r : l / pivot;
            col[i] = l;
            for (int k = j + 1; k < n; k++) {
                __global real *ck = base + (ulong)k * (ulong)lda;
                ck[i] -= l * ck[j];
            }
        }
        barrier(CLK_GLOBAL_MEM_FENCE);
    }
}

/*
 * LAPACK laswp for getrf's pivots (row k1 + t swapped with row q_t >= k1 + t, count <=
 * PS_PERM_CHUNK of them) as the permutation they amount to, in PS_STEP_WG work-items per
 * work-group, each work-group moving the rows of its own columns (backend_cuda/cuda_laswp.cu does
 * the same; its comment derives the permutation). Applying the swaps one after the other, a
 * work-item per column, costs a dependent round trip per interchange. Here the work-group computes
 * where each affected row's content comes from (in local memory, pointer jumping), then moves a few
 * columns at a time: every load into local memory, a barrier, every store. A pivot list with
 * some q_t < k1 + t (WZ's) falls back to the swaps in order. forward 0 applies the inverse.
 * columns 1: the same interchanges of columns instead (colswp of a step's list: gjinv's transposed
 * layout), each work-group moving its own rows of them, PS_PERM_BATCH rows at a time, the
 * work-items along the rows of a column so that the accesses are contiguous.
 */
#define PS_PERM_CHUNK 256 /* PS_CL_PERM_CHUNK in backend_opencl/cl_kernels.c */
#define PS_PERM_BATCH 4   /* columns moved per pass (local memory: 26 KB in double) */
#define PS_PERM_LOADS 8   /* rows a work-item loads at once */
__kernel __attribute__((reqd_work_group_size(PS_STEP_WG, 1, 1))) void
ps_laswp_perm(int ncols, int per_group, __global real *a, ulong off, int lda, int k1, int count,
              __global const int *ipiv, ulong ipiv_off, int forward, int columns) {
    __local int q[PS_PERM_CHUNK], last_write[PS_PERM_CHUNK];
    __local int next[2][PS_PERM_CHUNK], root[2][PS_PERM_CHUNK];
    __local int dst[2 * PS_PERM_CHUNK], src[2 * PS_PERM_CHUNK];
    __local real staged[2 * PS_PERM_CHUNK * PS_PERM_BATCH];
    __local int moves, sequential;
    const int lid = get_local_id(0), k2 = k1 + count;
    const int c0 = get_group_id(0) * per_group, c1 = min(ncols, c0 + per_group);
    __global real *base = a + off;
    if (lid == 0) moves = sequential = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int t = lid; t < count; t += PS_STEP_WG) {
        q[t] = ipiv[ipiv_off + t];
        if (q[t] < k1 + t) sequential = 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (sequential) { /* c: a column of a (rows interchanged), or a row (columns interchanged) */
        size_t line = columns ? 1 : (size_t)lda, elem = columns ? (size_t)lda : 1;
        for (int c = c0 + lid; c < c1; c += PS_STEP_WG) {
            __global real *v = base + (size_t)c * line;
            for (int u = 0; u < count; u++) {
                int s = forward ? u : count - 1 - u, k = k1 + s, p = q[s];
                if (p != k) {
                    real tmp = v[k * elem];
                    v[k * elem] = v[p * elem];
                    v[p * elem] = tmp;
                }
            }
        }
        return;
    }
    /* L(t) and M(t): the latest earlier steps that chose row k1 + t, and row q_t */
    for (int t = lid; t < count; t += PS_STEP_WG) {
        int position = k1 + t, l = -1, m = -1;
        for (int s = t - 1; s >= 0 && (l < 0 || m < 0); s--) {
            if (l < 0 && q[s] == position) l = s;
            if (m < 0 && q[s] == q[t]) m = s;
        }
        next[0][t] = l;
        root[0][t] = position;
        last_write[t] = m;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int cur = 0; /* root[t] becomes g(t): double-buffered so any work-group size works */
    for (int round = 0; (1 << round) < PS_PERM_CHUNK; round++) {
        for (int t = lid; t < count; t += PS_STEP_WG) {
            int nx = next[cur][t];
            root[cur ^ 1][t] = nx >= 0 ? root[cur][nx] : root[cur][t];
            next[cur ^ 1][t] = nx >= 0 ? next[cur][nx] : -1;
        }
        cur ^= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int t = lid; t < count; t += PS_STEP_WG) {
        int position = k1 + t, from = last_write[t] >= 0 ? root[cur][last_write[t]] : q[t];
        if (from != position) {
            int e = atomic_inc(&moves);
            dst[e] = position;
            src[e] = from;
        }
        if (q[t] >= k2) { /* a row below the positions: its final content, from its last chooser */
            int last = 1;
            for (int u = t + 1; u < count && last; u++) last = q[u] != q[t];
            if (last && root[cur][t] != q[t]) {
                int e = atomic_inc(&moves);
                dst[e] = q[t];
                src[e] = root[cur][t];
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const int total = moves;
    __local const int *to = forward ? dst : src, *from = forward ? src : dst;
    for (int c = c0; c < c1; c += PS_PERM_BATCH) {
        int width = min(PS_PERM_BATCH, c1 - c);
        /* several loads before their local stores, as in forward_lower_block (trsm.cl) */
        for (int e0 = lid; e0 < total * width; e0 += PS_STEP_WG * PS_PERM_LOADS) {
            real v[PS_PERM_LOADS];
#pragma unroll
            for (int u = 0; u < PS_PERM_LOADS; u++) {
                int e = e0 + u * PS_STEP_WG;
                if (e < total * width)
                    v[u] = columns ? base[c + e % width + (size_t)from[e / width] * lda]
                                   : base[from[e % total] + (size_t)(c + e / total) * lda];
            }
#pragma unroll
            for (int u = 0; u < PS_PERM_LOADS; u++) {
                int e = e0 + u * PS_STEP_WG;
                if (e < total * width) staged[e] = v[u];
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int e = lid; e < total * width; e += PS_STEP_WG)
            if (columns)
                base[c + e % width + (size_t)to[e / width] * lda] = staged[e];
            else
                base[to[e % total] + (size_t)(c + e / total) * lda] = staged[e];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
