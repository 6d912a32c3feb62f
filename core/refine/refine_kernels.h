/* The refinement's kernel family: the fused and mixed-precision kernels of the mixed-precision
 * solvers (core/refine/refine.c, core/refine/trsv_blocked.c) that a backend may fill. The
 * defaults are in refine_kernels.c. */
#ifndef PS_CORE_REFINE_KERNELS_H
#define PS_CORE_REFINE_KERNELS_H

#include "../backend.h"

#define PS__REFINE_KERNELS_ABI 1

typedef struct ps__refine_kernels {
    ps__family_header header; /* PS__REFINE_KERNELS_ABI, sizeof(ps__refine_kernels) */
    /* dst = alpha * T_left src T_right, rounded to dst_dt as convert does (overflow sets info[0]
     * to 1 and leaves dst unspecified). T_left is the depth-2 butterfly of order rows given by
     * left, T_right that of order cols given by right; a NULL one is the identity. A butterfly of
     * order n is given by 2n device doubles w (level 0 in w[0..n), level 1 in w[n..2n)) and acts
     * on the first 4q indices, q = n / 4, as orbits {p, p+q, p+2q, p+3q} (p < q): level 0 pairs
     * (p, p+2q) and (p+q, p+3q), then level 1 pairs (p, p+q) and (p+2q, p+3q), each pair (a, b)
     * mapped to ((w_a x_a + w_b x_b) / sqrt 2, (w_a x_a - w_b x_b) / sqrt 2); the last n - 4q
     * indices are left as they are. ps__butterfly_orbit (butterfly.h) is the
     * definition. src and dst are the same view (in place, dst_dt = src_dt) or do not overlap. */
    ps_status (*butterfly)(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                           double alpha, const void *left, const void *right, ps__mat src,
                           ps__mat dst, void *info);
    /* x = A^-1 x for the n x n triangle (uplo, diag as trsv's; no transpose) of the FLOAT view a
     * and the DOUBLE vector x, every operation in double: the float entries are exact in double,
     * so the result is the double solve with those factors, as from a widened copy, at half the
     * bytes read and without the copy. n = 0 does nothing and succeeds where the backend has the
     * entry, so a call with n = 0 asks whether it has. */
    ps_status (*trsv_mixed)(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                            ps__vec x);
    /* y = y + alpha A x for the m x k FLOAT view a (no transpose) and DOUBLE vectors x (k) and y
     * (m), which must not overlap; each product and sum in double, so the result is dgemv's with
     * a widened copy of A. m = 0 or k = 0 leaves y as it is and succeeds where the backend has
     * the entry, so a call with m = k = 0 asks whether it has. */
    ps_status (*gemv_mixed)(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                            ps__vec y);
    /* From a call with on = 1 until one with on = 0, the matrix of every gemv and gemv_mixed call
     * is written by none of the work queued before that call (its vectors may be). A backend may
     * then let each product start loading its matrix before the work ahead of it has finished
     * (CUDA on Hopper: a programmatic dependent launch, waiting only to read x and y). A hint:
     * ignoring it is right. */
    ps_status (*read_only_matrices)(ps__backend *be, int on);
    /* dst = alpha * src^T rounded to dst_dt: src rows x cols, dst cols x rows, two buffers that
     * do not overlap; otherwise as convert (alpha a power of two; info[0] set to 1 where a value
     * is not finite in dst_dt). rows = cols = 0 succeeds where the backend offers it. */
    ps_status (*convert_transposed)(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                                    int cols, double alpha, ps__mat src, ps__mat dst, void *info);
    /* y = alpha a x + beta y for the n x n matrix a (no transpose), whose entries outside its
     * triangle uplo (diagonal included) the caller promises are zero: a backend may skip them,
     * reading half the bytes. BLAS gemv's rules otherwise (n = 0: nothing; alpha = 0: a and x
     * not read). */
    ps_status (*gemv_triangle)(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n,
                               const ps__scalar *alpha, ps__mat a, ps__vec x,
                               const ps__scalar *beta, ps__vec y);
} ps__refine_kernels;

const ps__refine_kernels *ps__refine_kernels_defaults(void);
static inline const ps__refine_kernels *ps__refine(ps__backend *be) {
    return (const ps__refine_kernels *)ps__family(be, PS__FAMILY_REFINE,
                                                  &ps__refine_kernels_defaults()->header);
}

#endif
