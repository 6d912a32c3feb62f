/* The WZ kernel family: the fused kernels of the WZ factorization (core/wz/wz.c, which explains
 * the layouts) that a backend may fill. The defaults are in wz_kernels.c. */
#ifndef PS_CORE_WZ_KERNELS_H
#define PS_CORE_WZ_KERNELS_H

#include "../backend.h"

#define PS__WZ_KERNELS_ABI 1

typedef struct ps__wz_kernels {
    ps__family_header header; /* PS__WZ_KERNELS_ABI, sizeof(ps__wz_kernels) */

    /*
     * WZ factorization (core/wz/wz.c explains the layouts). A step eliminates with the 2 x 2
     * "corner" of two pivot rows r0, r1 and two columns c0, c1: every other active row i gets
     * [w0 w1] = [a(i,c0) a(i,c1)] C^-1, C = [a(r0,c0) a(r0,c1); a(r1,c0) a(r1,c1)], stored in
     * a(i,c0), a(i,c1). With pivoting, r0 first takes the active row of largest |a(i,c0)| (the
     * first such) and then r1 the remaining active row maximizing |det C| (the first such). W
     * comes from Gaussian elimination of C^T with partial pivoting (core/wz/wz_corner.h); a step
     * one of whose two pivots is below the precision's smallest normal number (0, NaN
     * included) fails: its W entries are set to 0 (no elimination, so nothing overflows later) and
     * its 1-based step number goes to info[0] unless info[0] is already nonzero. ipiv and info are
     * int32 buffers.
     *
     * Natural layout, one step k of an n x n matrix a (the papers' vector form): rows and
     * columns k and k2 = n-1-k, active rows k..k2; pivot rows are swapped across all n columns
     * and recorded as ipiv[k], ipiv[k2] (0-based: the row swapped with row k, then the one
     * swapped with row k2); W goes to rows k+1..k2-1 of columns k and k2; the inner matrix is
     * left for the caller's rank-1 updates. k = k2 (odd n) only checks a(k,k). work: n
     * elements the implementation may use.
     */
    ps_status (*wz_corner)(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a, ps__vec work,
                           void *ipiv, void *info, int pivoting);
    /*
     * Step-order layout (the blocked form): the m x w panel a (m >= w) whose step s has pivot
     * rows and columns 2s and 2s+1; active rows are 2s..m-1; swaps stay within the w columns
     * and are recorded LAPACK-style, ipiv[ipiv_off + t] = row_base + (panel row swapped with
     * row t), for t = 2s then 2s+1; the other panel columns right of the step are updated. The
     * corner's lower-left entry a(2s+1, 2s) moves to zsub[s] (a vector view) and 0 is left in its
     * place, so the panel's lower triangle is exactly the unit lower factor. An odd w ends with
     * a 1 x 1 step on column w-1 (pivot a(w-1,w-1), partial pivoting, rows below divided by
     * it). Step numbers in info are row_base / 2 + s + 1 (row_base is even).
     */
    ps_status (*wz_panel)(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                          void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting);
    /* Widest panel (even) wz_panel handles well; core splits wider panels recursively. */
    int (*wz_panel_width)(ps__backend *be, ps__dtype dt, int m);
    /*
     * Moves between the natural and the step order of an order-n matrix: step-order position t
     * holds natural index t/2 (t even) or n-1-(t-1)/2 (t odd). to_steps: dst(t,u) =
     * src(nat(t), nat(u)) when square (ncols = n, columns permuted too), else dst(t,j) =
     * src(nat(t), j) over ncols columns; back: the inverse. Square moves of factors (zsub.buf
     * not NULL) also carry the corners' lower-left entries: to_steps stores src(n-1-s, s) in
     * zsub[s] and 0 at dst(2s+1, 2s); back puts zsub[s] at dst(n-1-s, s). src and dst do not
     * overlap.
     */
    ps_status (*wz_reorder)(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                            int to_steps, ps__mat src, ps__mat dst, ps__vec zsub);
    /*
     * Solves Z X = X for one nb x nb diagonal block of a step-order Z factor: the upper
     * triangle of z with the corners' lower-left entries zsub[s] at (2s+1, 2s) (2 x 2 diagonal
     * blocks; odd nb ends with a 1 x 1 block). x is nb x nrhs.
     */
    ps_status (*wz_zsolve)(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z, ps__vec zsub,
                           ps__mat x);
} ps__wz_kernels;

const ps__wz_kernels *ps__wz_kernels_defaults(void);
static inline const ps__wz_kernels *ps__wz(ps__backend *be) {
    return (const ps__wz_kernels *)ps__family(be, PS__FAMILY_WZ,
                                              &ps__wz_kernels_defaults()->header);
}

#endif
