/* Inversion and Gauss-Jordan kernels for both precisions (-DPS_DOUBLE selects double). */

/* Column interchanges: one work-item per row applies every interchange of that row in order
 * (forward, or reversed when forward is 0). Column k is swapped with column ipiv[k - k1]. */
__kernel void ps_colswp(int nrows, __global real *a, ulong off, int lda, int k1, int k2,
                        __global const int *ipiv, ulong ipiv_off, int forward) {
    int i = get_global_id(0);
    if (i >= nrows) return;
    __global real *row = a + off + (ulong)i;
    __global const int *piv = ipiv + ipiv_off;
    for (int t = 0; t < k2 - k1; t++) {
        int k = forward ? k1 + t : k2 - 1 - t;
        int p = piv[k - k1];
        if (p != k) {
            real tmp = row[(ulong)k * (ulong)lda];
            row[(ulong)k * (ulong)lda] = row[(ulong)p * (ulong)lda];
            row[(ulong)p * (ulong)lda] = tmp;
        }
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
