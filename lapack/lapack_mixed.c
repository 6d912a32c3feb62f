/* LAPACK's mixed-precision drivers dsgesv and dsposv with LAPACK's Fortran ABI, routed to
 * ps_dsgesv and ps_dsposv (float factorization, double refinement, fallback to double). WORK and
 * SWORK are LAPACK's workspaces; portsolve keeps its own. */
#include "lapack_route.h"

#include <stddef.h>

#define BAD(cond, pos)                                                                             \
    do {                                                                                           \
        if (!*info && (cond)) *info = -(pos);                                                      \
    } while (0)

typedef void (*dsgesv_fn)(const int *, const int *, double *, const int *, int *, const double *,
                          const int *, double *, const int *, double *, float *, int *, int *);
typedef void (*dsposv_fn)(const char *, const int *, const int *, double *, const int *,
                          const double *, const int *, double *, const int *, double *, float *,
                          int *, int *, size_t);
typedef void (*dgetrs_fn)(const char *, const int *, const int *, const double *, const int *,
                          const int *, double *, const int *, int *, size_t);
typedef void (*dpotrs_fn)(const char *, const int *, const int *, const double *, const int *,
                          double *, const int *, int *, size_t);

static void copy_b_to_x(int n, int nrhs, const double *b, int ldb, double *x, int ldx) {
    for (int j = 0; j < nrhs; j++)
        for (int i = 0; i < n; i++) x[i + (size_t)j * ldx] = b[i + (size_t)j * ldb];
}

/* After a fallback whose solution was not finite, A holds the double factors: X = B and the
 * host LAPACK's solve with them, as LAPACK's own fallback does. Returns 1 when that applied. */
static int finish_fallback(ps_context *ctx, ps_status st, const char *uplo, const int *n,
                           const int *nrhs, const double *a, const int *lda, const int *ipiv,
                           const double *b, const int *ldb, double *x, const int *ldx, int *iter,
                           int *info) {
    ps_refine_result res = ps_context_refine_result(ctx);
    if (st != PS_ERR_RESULT_NOT_FINITE || res.path != PS_REFINE_FALLBACK) return 0;
    copy_b_to_x(*n, *nrhs, b, *ldb, x, *ldx);
    if (uplo)
        ((dpotrs_fn)ps__lapack_host("dpotrs_"))(uplo, n, nrhs, a, lda, x, ldx, info, 1);
    else
        ((dgetrs_fn)ps__lapack_host("dgetrs_"))("N", n, nrhs, a, lda, ipiv, x, ldx, info, 1);
    *iter = res.iter;
    return 1;
}

PS_LAPACK_EXPORT void dsgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv,
                              const double *b, const int *ldb, double *x, const int *ldx,
                              double *work, float *swork, int *iter, int *info) {
    *info = 0;
    BAD(*n < 0, 1);
    BAD(*nrhs < 0, 2);
    BAD(*lda < ps__lapack_max1(*n), 4);
    BAD(*ldb < ps__lapack_max1(*n), 7);
    BAD(*ldx < ps__lapack_max1(*n), 9);
    if (*info) return ps__lapack_xerbla("DSGESV", -*info);
    double start = ps__lapack_now();
    ps_context *ctx = ps__lapack_route(PS_DOUBLE, *n);
    const char *why = NULL;
    if (ctx) {
        ps_status st = ps_dsgesv(ctx, *n, *nrhs, a, *lda, ipiv, b, *ldb, x, *ldx, iter);
        if (st == PS_SUCCESS || st == PS_ERR_SINGULAR) {
            *info = st ? ps_context_last_info(ctx) : 0;
            return ps__lapack_log("DSGESV", *n, *n, *nrhs, ctx, NULL, start);
        }
        why = ps_context_last_error(ctx);
        if (finish_fallback(ctx, st, NULL, n, nrhs, a, lda, ipiv, b, ldb, x, ldx, iter, info))
            return ps__lapack_log("DSGESV", *n, *n, *nrhs, NULL, why, start);
    }
    ((dsgesv_fn)ps__lapack_host("dsgesv_"))(n, nrhs, a, lda, ipiv, b, ldb, x, ldx, work, swork,
                                            iter, info);
    ps__lapack_log("DSGESV", *n, *n, *nrhs, NULL, why, start);
}

PS_LAPACK_EXPORT void dsposv_(const char *uplo, const int *n, const int *nrhs, double *a,
                              const int *lda, const double *b, const int *ldb, double *x,
                              const int *ldx, double *work, float *swork, int *iter, int *info,
                              size_t uplo_len) {
    (void)uplo_len;
    *info = 0;
    BAD(!ps__lapack_is(uplo, 'U') && !ps__lapack_is(uplo, 'L'), 1);
    BAD(*n < 0, 2);
    BAD(*nrhs < 0, 3);
    BAD(*lda < ps__lapack_max1(*n), 5);
    BAD(*ldb < ps__lapack_max1(*n), 7);
    BAD(*ldx < ps__lapack_max1(*n), 9);
    if (*info) return ps__lapack_xerbla("DSPOSV", -*info);
    double start = ps__lapack_now();
    ps_context *ctx = ps__lapack_route(PS_DOUBLE, *n);
    const char *why = NULL;
    if (ctx) {
        ps_status st = ps_dsposv(ctx, *uplo, *n, *nrhs, a, *lda, b, *ldb, x, *ldx, iter);
        if (st == PS_SUCCESS || st == PS_ERR_NOT_SPD) {
            *info = st ? ps_context_last_info(ctx) : 0;
            return ps__lapack_log("DSPOSV", *n, *n, *nrhs, ctx, NULL, start);
        }
        why = ps_context_last_error(ctx);
        if (finish_fallback(ctx, st, uplo, n, nrhs, a, lda, NULL, b, ldb, x, ldx, iter, info))
            return ps__lapack_log("DSPOSV", *n, *n, *nrhs, NULL, why, start);
    }
    ((dsposv_fn)ps__lapack_host("dsposv_"))(uplo, n, nrhs, a, lda, b, ldb, x, ldx, work, swork,
                                            iter, info, 1);
    ps__lapack_log("DSPOSV", *n, *n, *nrhs, NULL, why, start);
}
