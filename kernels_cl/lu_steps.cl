/*
 * The LU leaf spread over every compute unit, by column steps (-DPS_STEP_WG=<power of two>
 * work-items per work-group; 1 on CPU devices).
 *
 * ps_getrf_panel in lu.cl factors a leaf with one work-group, so one compute unit streams the
 * whole leaf for each column. Here the m x n leaf's rows are cut into chunks of `chunk` rows (a
 * multiple of PS_STEP_WG), dealt round-robin to the work-groups that take part ("parts"), and
 * step j (j = 0..n-1) takes column j's step on every chunk at once. What a step needs from the
 * other work-groups travels through a small exchange buffer, in two sets written and read
 * alternately:
 *   - each part's pivot candidate for the next column: its row index (cand_row, -1 when it has
 *     none) and that row's n values (cand, row q of the set);
 *   - the values of the next column's diagonal row (cand, row `parts` of the set), written by
 *     the part that owns it.
 * Step j reduces the candidates to the pivot row p (the first largest |a(i,j)|, as idamax and
 * lu.cl choose it), so every part knows the pivot row and the old row j without reading rows
 * another part may be rewriting in the same step. The owner of row j writes the pivot row there,
 * the owner of row p writes the old row j there; every row below j is scaled and updated; then
 * each part finds its candidate for column j + 1 and publishes it. Step -1 only publishes the
 * candidates for column 0. Every row is read and written only by the work-item that owns it
 * (row i: chunk i / chunk, work-item i % PS_STEP_WG), so rows need no synchronization; only the
 * exchange buffer crosses work-groups.
 *
 * Each row of the exchange buffer has a ready flag that its writer sets, after the row, to the
 * column it is for (plus one); step j waits for the flags of column j. That is all the
 * synchronization between work-groups, so the steps of a whole leaf can run in one launch
 * (one launch per step also works: its flags are set by the launches before). A part writes a
 * set for column j + 1 only after it has read the set for column j, so when it rewrites the set
 * of column j - 1 every part has finished reading it. Waiting on another work-group needs that
 * work-group to run, and OpenCL 1.2 promises nothing about work-groups running side by side, so
 * a launch of several steps first finds out which work-groups do (the occupancy discovery of
 * Sorensen et al., "Portable inter-workgroup barrier synchronisation for GPUs", OOPSLA 2016):
 * each work-group joins a poll while it is open, waits a bounded time for the others, then
 * closes it; a work-group that arrives after the close has no part and leaves. The parts all
 * ran before the poll closed, so none waits on a work-group that cannot be scheduled; how many
 * there are changes only the work per part, never the arithmetic.
 *
 * The arithmetic is lu.cl's (and LAPACK dgetf2's): a pivot of magnitude at least PS_SAFE_MIN
 * scales by its reciprocal, a smaller one divides, a zero pivot leaves the column unscaled,
 * sets info and still updates with it. Row swaps cover the leaf's n columns.
 */
#define PS_STEP_MAX_N 64 /* PS_CL_STEP_MAX_N in backend_opencl/cl_internal.h */
#define PS_STEP_BATCH 32 /* elements of a row loaded before any is stored */

/* The synchronization words, zeroed by the host before each leaf: the poll, then per set of
 * the exchange buffer a ready flag per row (PS_SYNC_FLAGS + set * PS_SYNC_SET + row), which
 * holds c + 1 once the row for column c is published. */
#define PS_SYNC_POLL   0 /* work-groups that joined, | PS_SYNC_CLOSED once closed */
#define PS_SYNC_FLAGS  1
#define PS_SYNC_SET    1025       /* PS_CL_STEP_GROUPS_MAX + 1 */
#define PS_SYNC_CLOSED 0x40000000 /* above any count of work-groups */
#define PS_JOIN_SPINS  (1 << 15)  /* polls of the count while waiting for the others */

/* A fence that orders this work-item's global memory accesses for the whole device, between a
 * row and its flag and between seeing a flag and reading its row. NVIDIA's OpenCL compiles
 * mem_fence(CLK_GLOBAL_MEM_FENCE) to membar.cta (seen in its PTX), which orders them for the
 * work-group only, so there the kernel says membar.gl itself (PS_NV_PTX: the host found NVIDIA's
 * platform). */
#ifdef PS_NV_PTX
#define PS_DEVICE_FENCE() __asm__ __volatile__("membar.gl;" ::: "memory")
#else
#define PS_DEVICE_FENCE() mem_fence(CLK_GLOBAL_MEM_FENCE)
#endif

/* The better of two pivot candidates: larger magnitude, then the lower row (first maximum). */
static int better(real v, int i, real v_best, int i_best) {
    return i >= 0 && (i_best < 0 || v > v_best || (v == v_best && i < i_best));
}

/* Loads row[k * lda] for k = k0 .. k0 + PS_STEP_BATCH - 1 below n into x. */
static void load_batch(real *x, __global const real *row, int lda, int k0, int n) {
#pragma unroll
    for (int t = 0; t < PS_STEP_BATCH; t++)
        if (k0 + t < n) x[t] = row[(size_t)(k0 + t) * lda];
}

/* Copies the n values of row (stride lda) to out, loads before stores (see the update). */
static void copy_row(volatile __global real *out, __global const real *row, int lda, int n) {
    for (int k0 = 0; k0 < n; k0 += PS_STEP_BATCH) {
        real x[PS_STEP_BATCH];
        load_batch(x, row, lda, k0, n);
#pragma unroll
        for (int t = 0; t < PS_STEP_BATCH; t++)
            if (k0 + t < n) out[k0 + t] = x[t];
    }
}

/* The work-group's best of (bv, bi) over its work-items, in red_v / red_i[0]. */
static void reduce_best(__local real *red_v, __local int *red_i, __local int *red_g, real bv,
                        int bi, int bg, int lid) {
    red_v[lid] = bv, red_i[lid] = bi, red_g[lid] = bg;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int s = PS_STEP_WG / 2; s > 0; s >>= 1) {
        if (lid < s && better(red_v[lid + s], red_i[lid + s], red_v[lid], red_i[lid]))
            red_v[lid] = red_v[lid + s], red_i[lid] = red_i[lid + s], red_g[lid] = red_g[lid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* Whether row i belongs to this part. */
static int part_owns(int i, int chunk, int part, int parts) {
    return (i / chunk) % parts == part;
}

/* This work-item's first row at or below c in the chunk starting at r0. */
static int first_row(int r0, int c, int lid) {
    int i = r0 + lid;
    return i >= c ? i : i + (c - i + PS_STEP_WG - 1) / PS_STEP_WG * PS_STEP_WG;
}

/* Step j of the leaf for this part's chunks (see the top of the file). */
static void column_step(int m, int n, int j, int chunk, int part, int parts, __global real *base,
                        int lda, __global int *ipiv, int row_base, __global int *info,
                        volatile __global real *cand, volatile __global int *cand_row,
                        volatile __global int *sync, __local real *urow, __local real *drow,
                        __local real *red_v, __local int *red_i, __local int *red_g) {
    const int lid = get_local_id(0), c = j + 1, nchunks = (m + chunk - 1) / chunk;
    /* set s holds rows 0..parts of n values, then parts candidate indices */
    volatile __global const real *in = cand + (size_t)(j & 1) * (size_t)(parts + 1) * (size_t)n;
    volatile __global const int *in_row = cand_row + (size_t)(j & 1) * (size_t)parts;
    volatile __global real *out = cand + (size_t)((j + 1) & 1) * (size_t)(parts + 1) * (size_t)n;
    volatile __global int *out_row = cand_row + (size_t)((j + 1) & 1) * (size_t)parts;
    volatile __global int *in_ready = sync + PS_SYNC_FLAGS + (j & 1) * PS_SYNC_SET;
    volatile __global int *out_ready = sync + PS_SYNC_FLAGS + ((j + 1) & 1) * PS_SYNC_SET;
    /* This work-item's candidate for column c: cv, ci (-1: none; NaN never counts). */
    real cv = 0;
    int ci = -1;

    if (j < 0) { /* step -1: column 0's candidates only */
        for (int ch = part; ch < nchunks; ch += parts)
            for (int i = ch * chunk + lid; i < min(m, (ch + 1) * chunk); i += PS_STEP_WG) {
                real v = fabs(base[i]);
                if (!isnan(v) && better(v, i, cv, ci)) cv = v, ci = i;
            }
    } else {
        /* The first row's first batch is loaded before the pivot is known, to overlap. */
        int i_first = m;
        for (int ch = part; ch < nchunks && i_first >= m; ch += parts) {
            int i = first_row(ch * chunk, c, lid);
            if (i < min(m, (ch + 1) * chunk)) i_first = i;
        }
        real l0 = 0, x0[PS_STEP_BATCH];
        if (i_first < m) {
            l0 = base[i_first + (size_t)j * lda];
            load_batch(x0, base + i_first, lda, j + 1, n);
        }
        /* Wait until every part's candidate and the diagonal row for column j are published
         * (the parts all run side by side, so each gets there). A part publishes for column
         * j + 1 only after reading these, so a set is never rewritten while it is read. */
        if (lid <= parts) {
            for (int h = lid; h <= parts; h += PS_STEP_WG)
                while (in_ready[h] != j + 1) {
                }
            /* The rows read after the work-group barrier below are ordered after the flags by
             * this fence and the barrier (PTX fences are cumulative), as in CUDA's grid sync. */
            PS_DEVICE_FENCE();
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        /* The pivot: the best of the published candidates (every part the same). */
        real bv = 0;
        int bi = -1, bg = -1;
        for (int h = lid; h < parts; h += PS_STEP_WG) {
            int i = in_row[h];
            real v = fabs(in[(size_t)h * n + j]); /* loaded whatever i, to overlap */
            if (better(v, i, bv, bi)) bv = v, bi = i, bg = h;
        }
        reduce_best(red_v, red_i, red_g, bv, bi, bg, lid);
        /* No candidate at all (only NaN below the diagonal): row j stays, as idamax keeps it.
         * A zero pivot moves nothing either; row j itself is then the U row. */
        int p = red_i[0] >= 0 ? red_i[0] : j, slot = red_g[0];
        volatile __global const real *diag = in + (size_t)parts * n;
        volatile __global const real *prow = slot >= 0 ? in + (size_t)slot * n : diag;
        int swap = prow[j] != 0 && p != j;
        for (int k = lid; k < n; k += PS_STEP_WG) {
            drow[k] = diag[k];
            urow[k] = swap ? prow[k] : diag[k];
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        real pivot = urow[j];
        if (part == 0 && lid == 0) {
            ipiv[j] = row_base + (swap ? p : j);
            if (pivot == 0 && info[0] == 0) info[0] = row_base + j + 1;
        }
        if (swap && part_owns(j, chunk, part, parts))
            for (int k = lid; k < n; k += PS_STEP_WG) base[j + (size_t)k * lda] = urow[k];
        int by_reciprocal = fabs(pivot) >= PS_SAFE_MIN;
        real r = by_reciprocal ? 1 / pivot : 1;
        for (int ch = part; ch < nchunks; ch += parts) {
            int r1 = min(m, (ch + 1) * chunk);
            for (int i = first_row(ch * chunk, c, lid); i < r1; i += PS_STEP_WG) {
                __global real *row = base + i;
                int moved = swap && i == p; /* row p receives the old row j */
                if (moved)
                    for (int k = 0; k < j; k++) row[(size_t)k * lda] = drow[k];
                real l = i == i_first ? l0 : row[(size_t)j * lda];
                if (moved) l = drow[j];
                /* A batch's loads all go before its stores: the compiler cannot tell that they
                 * do not alias, and a round trip per element made a step 11 us long on the
                 * H100. */
                for (int k0 = j + 1; k0 < n || k0 == j + 1; k0 += PS_STEP_BATCH) {
                    real x[PS_STEP_BATCH];
                    if (i == i_first && k0 == j + 1) {
#pragma unroll
                        for (int t = 0; t < PS_STEP_BATCH; t++) x[t] = x0[t];
                    } else {
                        load_batch(x, row, lda, k0, n);
                    }
                    if (moved)
#pragma unroll
                        for (int t = 0; t < PS_STEP_BATCH; t++)
                            if (k0 + t < n) x[t] = drow[k0 + t];
                    if (k0 == j + 1) {
                        if (pivot != 0) l = by_reciprocal ? l * r : l / pivot;
                        row[(size_t)j * lda] = l;
                    }
#pragma unroll
                    for (int t = 0; t < PS_STEP_BATCH; t++)
                        if (k0 + t < n) {
                            real v = x[t] - l * urow[k0 + t];
                            row[(size_t)(k0 + t) * lda] = v;
                            if (k0 + t == c && !isnan(fabs(v)) && better(fabs(v), i, cv, ci))
                                cv = fabs(v), ci = i;
                        }
                }
            }
        }
    }

    /* Publish this part's candidate for column c, and row c if it is ours: each copied by the
     * work-item that owns the row. */
    if (c >= n) return;
    reduce_best(red_v, red_i, red_g, cv, ci, 0, lid);
    int best = red_i[0];
    if (lid == 0) out_row[part] = best;
    if (best >= 0 && best % PS_STEP_WG == lid)
        copy_row(out + (size_t)part * n, base + best, lda, n);
    if (c < m && part_owns(c, chunk, part, parts) && c % PS_STEP_WG == lid) {
        copy_row(out + (size_t)parts * n, base + c, lda, n);
        PS_DEVICE_FENCE(); /* the row before its flag */
        out_ready[parts] = c + 1;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (lid == 0) {
        PS_DEVICE_FENCE(); /* the part's candidate row and index before its flag */
        out_ready[part] = c + 1;
    }
}

/* Joins the poll (work-item 0 of each work-group): the part's index, or -1 when the poll had
 * closed; *parts is then the final number of parts. */
static int join_poll(volatile __global int *sync, int expected, int *parts) {
    int seen = sync[PS_SYNC_POLL], part = -1;
    while (!(seen & PS_SYNC_CLOSED)) {
        int prev = atomic_cmpxchg(&sync[PS_SYNC_POLL], seen, seen + 1);
        if (prev == seen) {
            part = seen;
            break;
        }
        seen = prev;
    }
    if (part < 0) return -1;
    for (int spin = 0; spin < PS_JOIN_SPINS; spin++)
        if ((sync[PS_SYNC_POLL] & ~PS_SYNC_CLOSED) >= expected) break;
    /* Once closed the count no longer changes, so the value before this close is final. */
    *parts = atomic_or(&sync[PS_SYNC_POLL], PS_SYNC_CLOSED) & ~PS_SYNC_CLOSED;
    return part;
}

/* Steps j_first..j_last of the leaf. One step per launch: every work-group is a part. Several:
 * the work-groups that run side by side are the parts (join_poll). ipiv is already offset to
 * the leaf's first column. */
__kernel __attribute__((reqd_work_group_size(PS_STEP_WG, 1, 1))) void
ps_getrf_steps(int m, int n, int j_first, int j_last, int chunk, __global real *a, ulong off,
               int lda, __global int *ipiv, ulong ipiv_off, int row_base, __global int *info,
               __global real *cand, __global int *cand_row, __global int *sync) {
    __local real urow[PS_STEP_MAX_N]; /* the pivot row, row j after the swap */
    __local real drow[PS_STEP_MAX_N]; /* row j before the swap */
    __local real red_v[PS_STEP_WG];
    __local int red_i[PS_STEP_WG], red_g[PS_STEP_WG];
    __local int joined[2];
    const int lid = get_local_id(0);
    int part = get_group_id(0), parts = get_num_groups(0);
    if (j_last > j_first) {
        if (lid == 0) {
            int p = 0;
            joined[0] = join_poll(sync, parts, &p);
            joined[1] = p;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        part = joined[0], parts = joined[1];
        if (part < 0) return; /* the whole work-group: it has no part */
    }
    for (int j = j_first; j <= j_last; j++)
        column_step(m, n, j, chunk, part, parts, a + off, lda, ipiv + ipiv_off, row_base, info,
                    cand, cand_row, sync, urow, drow, red_v, red_i, red_g);
}
