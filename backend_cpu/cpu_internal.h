/* Internal to the CPU backend: the entries cpu_backend.c puts in its table. */
#ifndef PS_BACKEND_CPU_INTERNAL_H
#define PS_BACKEND_CPU_INTERNAL_H

#include "../core/backend.h"
#include "../core/chol/chol_kernels.h"
#include "../core/gj/gj_kernels.h"
#include "../core/lu/lu_kernels.h"
#include "../core/refine/refine_kernels.h"
#include "../core/wz/wz_kernels.h"

/* Typed host pointers to a view's first element. */
#define PS__CPU_PTR(type, buf, off) ((type *)(buf) + (off))

ps_status ps__cpu_copy(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);
ps_status ps__cpu_swap(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);
ps_status ps__cpu_scal(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x);
ps_status ps__cpu_axpy(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                       ps__vec y);
ps_status ps__cpu_dot(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y,
                      ps__scalar *result);
ps_status ps__cpu_nrm2(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__scalar *result);
ps_status ps__cpu_iamax(ps__backend *be, ps__dtype dt, int n, ps__vec x, int *result);
ps_status ps__cpu_gemv(ps__backend *be, ps__dtype dt, ps__trans trans, int m, int n,
                       const ps__scalar *alpha, ps__mat a, ps__vec x, const ps__scalar *beta,
                       ps__vec y);
ps_status ps__cpu_ger(ps__backend *be, ps__dtype dt, int m, int n, const ps__scalar *alpha,
                      ps__vec x, ps__vec y, ps__mat a);
ps_status ps__cpu_trsv(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, ps__diag diag,
                       int n, ps__mat a, ps__vec x);
ps_status ps__cpu_gemm(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m, int n,
                       int k, const ps__scalar *alpha, ps__mat a, ps__mat b, const ps__scalar *beta,
                       ps__mat c);
ps_status ps__cpu_syrk(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, int n, int k,
                       const ps__scalar *alpha, ps__mat a, const ps__scalar *beta, ps__mat c);
ps_status ps__cpu_trsm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b);

ps_status ps__cpu_fill(ps__backend *be, ps__dtype dt, int rows, int cols, const ps__scalar *value,
                       ps__mat a);
ps_status ps__cpu_read_elements(ps__backend *be, ps__dtype dt, const void *buf, int count,
                                const size_t *offsets, void *out);
ps_status ps__cpu_laswp(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                        const void *ipiv, size_t ipiv_off, int forward);
ps_status ps__cpu_permute_rows(ps__backend *be, ps__dtype dt, int rows, int cols, const void *perm,
                               size_t perm_off, ps__mat src, ps__mat dst);
ps_status ps__cpu_scatter_rows(ps__backend *be, ps__dtype dt, int rows, int cols, const void *idx,
                               size_t idx_off, ps__mat src, ps__mat dst);
/* the widest panel ps__cpu_getrf_panel factors by its plain loop; wider ones go to OpenBLAS */
#define PS__CPU_LOOP_PANEL 16

ps_status ps__cpu_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                              size_t ipiv_off, int row_base, void *info);
ps_status ps__cpu_potrf_panel(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                              void *info, int index_base);
ps_status ps__cpu_axpby(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                        const ps__scalar *beta, ps__vec y);
ps_status ps__cpu_vmul(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y);

ps_status ps__cpu_wz_corner(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a, ps__vec work,
                            void *ipiv, void *info, int pivoting);
ps_status ps__cpu_wz_panel(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                           void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting);
ps_status ps__cpu_wz_reorder(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                             int to_steps, ps__mat src, ps__mat dst, ps__vec zsub);
ps_status ps__cpu_wz_zsolve(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z,
                            ps__vec zsub, ps__mat x);

ps_status ps__cpu_trmm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b);
ps_status ps__cpu_transpose_square(ps__backend *be, ps__dtype dt, int n, ps__mat a);
ps_status ps__cpu_transpose(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                            ps__mat dst);
ps_status ps__cpu_colswp(ps__backend *be, ps__dtype dt, int nrows, ps__mat a, int k1, int k2,
                         const void *ipiv, size_t ipiv_off, int forward);
ps_status ps__cpu_gj_stripe_update(ps__backend *be, ps__dtype dt, int m, int ncols, int s,
                                   ps__mat ji, ps__mat ik, ps__mat jk);

ps_status ps__cpu_convert(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                          double alpha, ps__mat src, ps__mat dst, void *info);
ps_status ps__cpu_convert_transposed(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows,
                                     int cols, double alpha, ps__mat src, ps__mat dst, void *info);
ps_status ps__cpu_trsv_mixed(ps__backend *be, ps__uplo uplo, ps__diag diag, int n, ps__mat a,
                             ps__vec x);
ps_status ps__cpu_gemv_mixed(ps__backend *be, int m, int k, double alpha, ps__mat a, ps__vec x,
                             ps__vec y);
ps_status ps__cpu_norm_inf(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a,
                           double *result);
ps_status ps__cpu_butterfly(ps__backend *be, ps__dtype src_dt, ps__dtype dst_dt, int rows, int cols,
                            double alpha, const void *left, const void *right, ps__mat src,
                            ps__mat dst, void *info);

/* The kernel families this backend fills (cpu_lu.c, cpu_chol.c, cpu_wz.c, cpu_gj.c,
 * cpu_refine.c). */
extern const ps__lu_kernels ps__cpu_lu_kernels;
extern const ps__chol_kernels ps__cpu_chol_kernels;
extern const ps__wz_kernels ps__cpu_wz_kernels;
extern const ps__gj_kernels ps__cpu_gj_kernels;
extern const ps__refine_kernels ps__cpu_refine_kernels;

#endif
