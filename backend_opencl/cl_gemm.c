/* GEMM on the operands in place (kernels_cl/gemm.cl), for the products CLBlast would copy. */
#include "cl_internal.h"

/* The kernel's work-group shape and block of C (PS_GEMM_DX, PS_GEMM_DY, PS_GEMM_BM, PS_GEMM_BN
 * there). Blocks of 128 x 128 by 16 x 16 work-items, 8 x 8 elements each: other shapes measured
 * no faster on the H100 (docs/PERFORMANCE.md). */
#define OWN_GEMM_DX 16
#define OWN_GEMM_DY 16
#define OWN_GEMM_BM 128
#define OWN_GEMM_BN 128
/* The tensor-core kernel's (PS_DMMA_BM, PS_DMMA_BN, PS_DMMA_THREADS there). */
#define DMMA_BM      128
#define DMMA_BN      64
#define DMMA_THREADS 256

/* On GPUs (own_gemm 1) untransposed products of at least this many multiply-adds, the size from
 * which CLBlast leaves its direct kernel for the padded one that copies C (cl_blas.c); every
 * untransposed product with own_gemm 2. */
#define OWN_GEMM_FROM (256.0 * 256.0 * 256.0)

int ps_cl_own_gemm_takes(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m, int n,
                         int k) {
    ps_cl_state *st = ps_cl(be);
    if (ta != PS__NOTRANS || tb != PS__NOTRANS || st->own_gemm == 0) return 0;
    if (st->own_gemm == 2) return 1;
    return st->gpu && dt == PS__DOUBLE && (double)m * n * k >= OWN_GEMM_FROM;
}

ps_status ps_cl_own_gemm(ps__backend *be, ps__dtype dt, int m, int n, int k,
                         const ps__scalar *alpha, ps__mat a, ps__mat b, const ps__scalar *beta,
                         ps__mat c) {
    ps_cl_state *st = ps_cl(be);
    int dmma = dt == PS__DOUBLE && st->dmma;
    const char *name = dmma ? "ps_gemm_nn_dmma" : "ps_gemm_nn";
    cl_kernel kern;
    PS__TRY(ps_cl_kernel(be, PS_CL_GEMM, dt, name, &kern));
    cl_mem ab = (cl_mem)a.buf, bb = (cl_mem)b.buf, cb = (cl_mem)c.buf;
    cl_ulong ao = a.off, bo = b.off, co = c.off;
    size_t real_size = dt == PS__DOUBLE ? sizeof(double) : sizeof(float);
    const void *alpha_v = dt == PS__DOUBLE ? (const void *)&alpha->d : (const void *)&alpha->s;
    const void *beta_v = dt == PS__DOUBLE ? (const void *)&beta->d : (const void *)&beta->s;
    const size_t sizes[] = {sizeof m,    sizeof n,  sizeof k,    real_size,  real_size,
                            sizeof ab,   sizeof ao, sizeof a.ld, sizeof bb,  sizeof bo,
                            sizeof b.ld, sizeof cb, sizeof co,   sizeof c.ld};
    const void *const values[] = {&m,    &n,  &k,  alpha_v, beta_v, &ab, &ao,
                                  &a.ld, &bb, &bo, &b.ld,   &cb,    &co, &c.ld};
    size_t global[2] = {(size_t)((m + OWN_GEMM_BM - 1) / OWN_GEMM_BM) * OWN_GEMM_DX,
                        (size_t)((n + OWN_GEMM_BN - 1) / OWN_GEMM_BN) * OWN_GEMM_DY};
    size_t local[2] = {OWN_GEMM_DX, OWN_GEMM_DY};
    if (dmma) {
        global[0] = (size_t)((m + DMMA_BM - 1) / DMMA_BM) * DMMA_THREADS;
        global[1] = (size_t)((n + DMMA_BN - 1) / DMMA_BN);
        local[0] = DMMA_THREADS, local[1] = 1;
    }
    return ps_cl_launch(be, kern, name, 14, sizes, values, 2, global, local);
}
