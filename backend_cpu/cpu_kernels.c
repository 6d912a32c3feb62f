/* The CPU backend's custom and LAPACK-like entries, as plain loops for both precisions. */
#define _GNU_SOURCE /* dladdr, RTLD_NOLOAD */
#include "cpu_internal.h"

#include <cblas.h>
#include <dlfcn.h>
#include <pthread.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define PS_CPU_TEMPLATE "cpu_kernels_real.h"
#include "cpu_instantiate.h"

#define DM(m) PS__CPU_PTR(double, (m).buf, (m).off)
#define SM(m) PS__CPU_PTR(float, (m).buf, (m).off)

ps_status ps__cpu_fill(ps__backend *be, ps__dtype dt, int rows, int cols, const ps__scalar *value,
                       ps__mat a) {
    (void)be;
    if (dt == PS__DOUBLE)
        fill_d(rows, cols, value->d, DM(a), a.ld);
    else
        fill_s(rows, cols, value->s, SM(a), a.ld);
    return PS_SUCCESS;
}

ps_status ps__cpu_read_elements(ps__backend *be, ps__dtype dt, const void *buf, int count,
                                const size_t *offsets, void *out) {
    (void)be;
    size_t es = ps__dtype_size(dt);
    for (int i = 0; i < count; i++)
        memcpy((char *)out + (size_t)i * es, (const char *)buf + offsets[i] * es, es);
    return PS_SUCCESS;
}

/* OpenBLAS's LAPACK dlaswp/slaswp (threaded, blocked over columns), with the 0-based
 * relative pivots of the vtable turned into LAPACK's 1-based pivots indexed by row. */
extern void dlaswp_(const int *n, double *a, const int *lda, const int *k1, const int *k2,
                    const int *ipiv, const int *incx);
extern void slaswp_(const int *n, float *a, const int *lda, const int *k1, const int *k2,
                    const int *ipiv, const int *incx);

ps_status ps__cpu_laswp(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                        const void *ipiv, size_t ipiv_off, int forward) {
    if (ncols <= 0 || k2 <= k1) return PS_SUCCESS;
    const int32_t *piv = (const int32_t *)ipiv + ipiv_off;
    int *lapack_piv = malloc(sizeof(int) * (size_t)k2);
    if (!lapack_piv)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "laswp: out of host memory");
    for (int k = k1; k < k2; k++) lapack_piv[k] = piv[k - k1] + 1;
    int f_k1 = k1 + 1, f_k2 = k2, incx = forward ? 1 : -1;
    if (dt == PS__DOUBLE)
        dlaswp_(&ncols, DM(a), &a.ld, &f_k1, &f_k2, lapack_piv, &incx);
    else
        slaswp_(&ncols, SM(a), &a.ld, &f_k1, &f_k2, lapack_piv, &incx);
    free(lapack_piv);
    return PS_SUCCESS;
}

/* The gather (dst(i) = src(idx[i])) or the scatter (dst(idx[i]) = src(i), idx[i] >= 0) of rows,
 * by typed element copies (a memcpy of the element size a call each was the distributed row
 * interchanges' largest cost after GEMM). */
#define PS__ROWS_BY_INDEX(name, T)                                                                 \
    static void name(int scatter, int rows, int cols, const int32_t *idx, ps__mat src,             \
                     ps__mat dst) {                                                                \
        for (int j = 0; j < cols; j++) {                                                           \
            const T *from = (const T *)src.buf + src.off + (size_t)j * (size_t)src.ld;             \
            T *to = (T *)dst.buf + dst.off + (size_t)j * (size_t)dst.ld;                           \
            if (!scatter)                                                                          \
                for (int i = 0; i < rows; i++) to[i] = from[idx[i]];                               \
            else                                                                                   \
                for (int i = 0; i < rows; i++)                                                     \
                    if (idx[i] >= 0) to[idx[i]] = from[i];                                         \
        }                                                                                          \
    }
PS__ROWS_BY_INDEX(rows_by_index_d, double)
PS__ROWS_BY_INDEX(rows_by_index_s, float)
#undef PS__ROWS_BY_INDEX

static void rows_by_index(ps__dtype dt, int scatter, int rows, int cols, const int32_t *idx,
                          ps__mat src, ps__mat dst) {
    if (dt == PS__DOUBLE)
        rows_by_index_d(scatter, rows, cols, idx, src, dst);
    else
        rows_by_index_s(scatter, rows, cols, idx, src, dst);
}

ps_status ps__cpu_permute_rows(ps__backend *be, ps__dtype dt, int rows, int cols, const void *perm,
                               size_t perm_off, ps__mat src, ps__mat dst) {
    (void)be;
    rows_by_index(dt, 0, rows, cols, (const int32_t *)perm + perm_off, src, dst);
    return PS_SUCCESS;
}

ps_status ps__cpu_scatter_rows(ps__backend *be, ps__dtype dt, int rows, int cols, const void *idx,
                               size_t idx_off, ps__mat src, ps__mat dst) {
    (void)be;
    rows_by_index(dt, 1, rows, cols, (const int32_t *)idx + idx_off, src, dst);
    return PS_SUCCESS;
}

extern void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
extern void sgetrf_(const int *m, const int *n, float *a, const int *lda, int *ipiv, int *info);
static void (*lapack_dgetrf)(const int *, const int *, double *, const int *, int *,
                             int *) = dgetrf_;
static void (*lapack_sgetrf)(const int *, const int *, float *, const int *, int *,
                             int *) = sgetrf_;
static pthread_once_t lapack_once = PTHREAD_ONCE_INIT;

/* OpenBLAS's own ?getrf_, looked up in the library that defines cblas_dgemm rather than by the
 * global symbol: a LAPACK drop-in loaded ahead of it (libportsolve_lapack.so, LD_PRELOAD) exports
 * the same names, and the panels must not call back into it. */
static void find_lapack_getrf(void) {
    Dl_info where;
    void *lib = NULL;
    if (dladdr((void *)cblas_dgemm, &where) && where.dli_fname)
        lib = dlopen(where.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) return;
    void *d = dlsym(lib, "dgetrf_"), *f = dlsym(lib, "sgetrf_");
    if (d && f) { /* POSIX's way to turn dlsym's answer into a function pointer */
        memcpy(&lapack_dgetrf, &d, sizeof d);
        memcpy(&lapack_sgetrf, &f, sizeof f);
    }
    dlclose(lib); /* NOLOAD took a reference to a library that stays loaded */
}

_Static_assert(sizeof(int) == sizeof(int32_t), "LAPACK's pivots are written into int32 buffers");

/* Panels up to PS__CPU_LOOP_PANEL columns are factored by the plain loop (the oracle of the other
 * backends' panel kernels); wider ones by OpenBLAS's threaded recursive ?getrf, since the loop
 * streams the panel once per column through one core (on a 16-core machine the host panels of
 * an OpenCL LU of order 16384 took 2.1 s that way and 1.0 s in OpenBLAS). LAPACK's semantics are
 * the loop's: the first largest pivot, a zero pivot's column left unscaled and its index reported.
 */
ps_status ps__cpu_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                              size_t ipiv_off, int row_base, void *info) {
    (void)be;
    int32_t *piv = (int32_t *)ipiv + ipiv_off, *info_word = info;
    if (n <= PS__CPU_LOOP_PANEL) {
        if (dt == PS__DOUBLE)
            getrf_panel_d(m, n, DM(a), a.ld, piv, row_base, info_word);
        else
            getrf_panel_s(m, n, SM(a), a.ld, piv, row_base, info_word);
        return PS_SUCCESS;
    }
    int lapack_info = 0, k = m < n ? m : n;
    pthread_once(&lapack_once, find_lapack_getrf);
    if (dt == PS__DOUBLE)
        lapack_dgetrf(&m, &n, DM(a), &a.ld, (int *)piv, &lapack_info);
    else
        lapack_sgetrf(&m, &n, SM(a), &a.ld, (int *)piv, &lapack_info);
    for (int i = 0; i < k; i++) piv[i] += row_base - 1; /* 1-based relative -> 0-based absolute */
    if (lapack_info > 0 && *info_word == 0) *info_word = row_base + lapack_info;
    return PS_SUCCESS;
}

ps_status ps__cpu_potrf_panel(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n, ps__mat a,
                              void *info, int index_base) {
    (void)be;
    if (dt == PS__DOUBLE)
        potrf_panel_d(uplo == PS__LOWER, n, DM(a), a.ld, info, index_base);
    else
        potrf_panel_s(uplo == PS__LOWER, n, SM(a), a.ld, info, index_base);
    return PS_SUCCESS;
}

ps_status ps__cpu_axpby(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                        const ps__scalar *beta, ps__vec y) {
    (void)be;
    if (dt == PS__DOUBLE)
        axpby_d(n, alpha->d, DM(x), x.inc, beta->d, DM(y), y.inc);
    else
        axpby_s(n, alpha->s, SM(x), x.inc, beta->s, SM(y), y.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_vmul(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    (void)be;
    if (dt == PS__DOUBLE)
        vmul_d(n, DM(x), x.inc, DM(y), y.inc);
    else
        vmul_s(n, SM(x), x.inc, SM(y), y.inc);
    return PS_SUCCESS;
}
