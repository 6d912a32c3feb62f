/* Inversion and Gauss-Jordan kernels for both precisions (-DPS_DOUBLE selects double). */

/* Column interchanges as cycle rotations (the plan, made on the host: core/base/colswp_plan.h).
 * words: dst[entries], src[entries], seg[nseg + 1], saved[nsave]. ps_colswp_save copies the
 * saved columns into values (nsave x nrows); ps_colswp_move rotates segment get_global_id(1) of
 * the cycle list for row get_global_id(0), 8 entries at a time (all loads, then all stores,
 * which keeps the list's order). */
__kernel void ps_colswp_save(int nrows, __global const real *a, ulong off, int lda,
                             __global const int *words, int entries, int nseg, int nsave,
                             __global real *values) {
    int i = get_global_id(0), q = get_global_id(1);
    if (i >= nrows || q >= nsave) return;
    __global const int *saved = words + 2 * entries + nseg + 1;
    values[(ulong)q * (ulong)nrows + (ulong)i] = a[off + (ulong)i + (ulong)saved[q] * (ulong)lda];
}

#define PS_COLSWP_GROUP 8
__kernel void ps_colswp_move(int nrows, __global real *a, ulong off, int lda,
                             __global const int *words, int entries, int nseg,
                             __global const real *values) {
    int i = get_global_id(0), g = get_global_id(1);
    if (i >= nrows || g >= nseg) return;
    __global const int *dst = words, *src = words + entries, *seg = words + 2 * entries;
    __global real *row = a + off + (ulong)i;
    const int e1 = seg[g + 1];
    real kept = 0; /* the old first column of the whole cycle being rotated */
    for (int e = seg[g]; e < e1; e += PS_COLSWP_GROUP) {
        real v[PS_COLSWP_GROUP];
        int to[PS_COLSWP_GROUP];
        for (int u = 0; u < PS_COLSWP_GROUP && e + u < e1; u++) {
            int d = dst[e + u], s = src[e + u];
            if (d < 0) {
                d = -d - 1;
                kept = row[(ulong)d * (ulong)lda];
            }
            to[u] = d;
            v[u] = s >= 0    ? row[(ulong)s * (ulong)lda]
                   : s == -1 ? kept
                             : values[(ulong)(-2 - s) * (ulong)nrows + (ulong)i];
        }
        for (int u = 0; u < PS_COLSWP_GROUP && e + u < e1; u++)
            row[(ulong)to[u] * (ulong)lda] = v[u];
    }
}

/*
 * The striped Gauss-Jordan tile update jk -= ji ik (ji m x s, ik s x ncols): a blocked rank-s
 * kernel. A 16 x 16 work-group computes a 64 x 64 block of jk, each work-item 4 x 4 elements
 * strided by 16 (so neighbours touch neighbouring rows), stepping through s in chunks of 16
 * staged in local memory. All JK tiles of all stripes are independent: one launch covers them.
 */
#define PS_GJ_TILE  64
#define PS_GJ_CHUNK 16
__kernel __attribute__((reqd_work_group_size(16, 16, 1))) void
ps_gj_stripe_update(int m, int ncols, int s, __global const real *ji, ulong ji_off, int ldji,
                    __global const real *ik, ulong ik_off, int ldik, __global real *jk,
                    ulong jk_off, int ldjk) {
    __local real a_tile[PS_GJ_CHUNK][PS_GJ_TILE];
    __local real b_tile[PS_GJ_CHUNK][PS_GJ_TILE];
    int tx = get_local_id(0), ty = get_local_id(1);
    int i0 = get_group_id(0) * PS_GJ_TILE, j0 = get_group_id(1) * PS_GJ_TILE;
    int lin = ty * 16 + tx;
    real acc[4][4];
    for (int u = 0; u < 4; u++)
        for (int v = 0; v < 4; v++) acc[u][v] = 0;
    for (int p0 = 0; p0 < s; p0 += PS_GJ_CHUNK) {
        /* 1024 elements of each tile, 4 per work-item; zeros beyond the edges */
        for (int q = 0; q < 4; q++) {
            int e = lin + q * 256;
            int r = e % PS_GJ_TILE, c = e / PS_GJ_TILE; /* a: row r of the block, chunk column c */
            int gi = i0 + r, gp = p0 + c;
            a_tile[c][r] = gi < m && gp < s ? ji[ji_off + gi + (ulong)gp * (ulong)ldji] : (real)0;
            int br = e % PS_GJ_CHUNK, bc = e / PS_GJ_CHUNK; /* b: chunk row br, column bc */
            int gq = p0 + br, gj = j0 + bc;
            b_tile[br][bc] =
                gq < s && gj < ncols ? ik[ik_off + gq + (ulong)gj * (ulong)ldik] : (real)0;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int p = 0; p < PS_GJ_CHUNK; p++) {
            real av[4], bv[4];
            for (int u = 0; u < 4; u++) av[u] = a_tile[p][tx + 16 * u];
            for (int v = 0; v < 4; v++) bv[v] = b_tile[p][ty + 16 * v];
            for (int u = 0; u < 4; u++)
                for (int v = 0; v < 4; v++) acc[u][v] = fma(av[u], bv[v], acc[u][v]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    for (int v = 0; v < 4; v++) {
        int gj = j0 + ty + 16 * v;
        if (gj >= ncols) continue;
        for (int u = 0; u < 4; u++) {
            int gi = i0 + tx + 16 * u;
            if (gi < m) jk[jk_off + gi + (ulong)gj * (ulong)ldjk] -= acc[u][v];
        }
    }
}
