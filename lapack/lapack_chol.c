/* LAPACK's Cholesky routines (?posv, ?potrf, ?potrs) with LAPACK's Fortran ABI, routed as the LU
 * ones (lapack_lu.c). */
#include "lapack_route.h"

#include <stddef.h>

#define BAD(cond, pos)                                                                             \
    do {                                                                                           \
        if (!*info && (cond)) *info = -(pos);                                                      \
    } while (0)
#define BAD_UPLO(uplo) BAD(!ps__lapack_is(uplo, 'U') && !ps__lapack_is(uplo, 'L'), 1)

#define CHOL_ROUTINES(p, P, T, DT)                                                                 \
    typedef void (*p##potrf_fn)(const char *, const int *, T *, const int *, int *, size_t);       \
    typedef void (*p##potrs_fn)(const char *, const int *, const int *, const T *, const int *,    \
                                T *, const int *, int *, size_t);                                  \
    typedef void (*p##posv_fn)(const char *, const int *, const int *, T *, const int *, T *,      \
                               const int *, int *, size_t);                                        \
                                                                                                   \
    PS_LAPACK_EXPORT void p##posv_(const char *uplo, const int *n, const int *nrhs, T *a,          \
                                   const int *lda, T *b, const int *ldb, int *info,                \
                                   size_t uplo_len) {                                              \
        (void)uplo_len;                                                                            \
        *info = 0;                                                                                 \
        BAD_UPLO(uplo);                                                                            \
        BAD(*n < 0, 2);                                                                            \
        BAD(*nrhs < 0, 3);                                                                         \
        BAD(*lda < ps__lapack_max1(*n), 5);                                                        \
        BAD(*ldb < ps__lapack_max1(*n), 7);                                                        \
        if (*info) return ps__lapack_xerbla(P "POSV", -*info);                                     \
        double start = ps__lapack_now();                                                           \
        ps_context *ctx = ps__lapack_route(DT, *n);                                                \
        const char *why = NULL;                                                                    \
        if (ctx) {                                                                                 \
            ps_status st = ps_##p##posv(ctx, *uplo, *n, *nrhs, a, *lda, b, *ldb);                  \
            if (st == PS_SUCCESS || st == PS_ERR_NOT_SPD) {                                        \
                *info = st ? ps_context_last_info(ctx) : 0;                                        \
                return ps__lapack_log(P "POSV", *n, *n, *nrhs, ctx, NULL, start);                  \
            }                                                                                      \
            why = ps_context_last_error(ctx);                                                      \
            if (st == PS_ERR_RESULT_NOT_FINITE) { /* A holds its factor */                         \
                ((p##potrs_fn)ps__lapack_host(#p "potrs_"))(uplo, n, nrhs, a, lda, b, ldb, info,   \
                                                            1);                                    \
                return ps__lapack_log(P "POSV", *n, *n, *nrhs, NULL, why, start);                  \
            }                                                                                      \
        }                                                                                          \
        ((p##posv_fn)ps__lapack_host(#p "posv_"))(uplo, n, nrhs, a, lda, b, ldb, info, 1);         \
        ps__lapack_log(P "POSV", *n, *n, *nrhs, NULL, why, start);                                 \
    }                                                                                              \
                                                                                                   \
    PS_LAPACK_EXPORT void p##potrf_(const char *uplo, const int *n, T *a, const int *lda,          \
                                    int *info, size_t uplo_len) {                                  \
        (void)uplo_len;                                                                            \
        *info = 0;                                                                                 \
        BAD_UPLO(uplo);                                                                            \
        BAD(*n < 0, 2);                                                                            \
        BAD(*lda < ps__lapack_max1(*n), 4);                                                        \
        if (*info) return ps__lapack_xerbla(P "POTRF", -*info);                                    \
        double start = ps__lapack_now();                                                           \
        ps_context *ctx = ps__lapack_route(DT, *n);                                                \
        const char *why = NULL;                                                                    \
        if (ctx) {                                                                                 \
            ps_status st = ps_##p##potrf(ctx, *uplo, *n, a, *lda);                                 \
            if (st == PS_SUCCESS || st == PS_ERR_NOT_SPD) {                                        \
                *info = st ? ps_context_last_info(ctx) : 0;                                        \
                return ps__lapack_log(P "POTRF", *n, *n, 0, ctx, NULL, start);                     \
            }                                                                                      \
            why = ps_context_last_error(ctx);                                                      \
        }                                                                                          \
        ((p##potrf_fn)ps__lapack_host(#p "potrf_"))(uplo, n, a, lda, info, 1);                     \
        ps__lapack_log(P "POTRF", *n, *n, 0, NULL, why, start);                                    \
    }                                                                                              \
                                                                                                   \
    PS_LAPACK_EXPORT void p##potrs_(const char *uplo, const int *n, const int *nrhs, const T *a,   \
                                    const int *lda, T *b, const int *ldb, int *info,               \
                                    size_t uplo_len) {                                             \
        (void)uplo_len;                                                                            \
        *info = 0;                                                                                 \
        BAD_UPLO(uplo);                                                                            \
        BAD(*n < 0, 2);                                                                            \
        BAD(*nrhs < 0, 3);                                                                         \
        BAD(*lda < ps__lapack_max1(*n), 5);                                                        \
        BAD(*ldb < ps__lapack_max1(*n), 7);                                                        \
        if (*info) return ps__lapack_xerbla(P "POTRS", -*info);                                    \
        double start = ps__lapack_now();                                                           \
        ps_context *ctx = ps__lapack_route(DT, *n);                                                \
        const char *why = NULL;                                                                    \
        if (ctx) {                                                                                 \
            ps_status st = ps_##p##potrs(ctx, *uplo, *n, *nrhs, a, *lda, b, *ldb);                 \
            if (st == PS_SUCCESS)                                                                  \
                return ps__lapack_log(P "POTRS", *n, *n, *nrhs, ctx, NULL, start);                 \
            why = ps_context_last_error(ctx);                                                      \
        }                                                                                          \
        ((p##potrs_fn)ps__lapack_host(#p "potrs_"))(uplo, n, nrhs, a, lda, b, ldb, info, 1);       \
        ps__lapack_log(P "POTRS", *n, *n, *nrhs, NULL, why, start);                                \
    }

CHOL_ROUTINES(s, "S", float, PS_FLOAT)
CHOL_ROUTINES(d, "D", double, PS_DOUBLE)
