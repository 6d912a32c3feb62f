/* LAPACK's LU routines (?gesv, ?getrf, ?getrs, ?getri) with LAPACK's Fortran ABI: arguments
 * checked as LAPACK does (xerbla with its argument numbers), valid calls routed to portsolve or
 * to the host LAPACK, and any call portsolve hands back (non-finite input, out of memory, a
 * solution beyond the range) finished by the host LAPACK, so the caller gets LAPACK's answer. */
#include "lapack_route.h"

#include <stddef.h>

/* The arguments are checked in LAPACK's order; the first bad one is the error exit. */
#define BAD(cond, pos)                                                                             \
    do {                                                                                           \
        if (!*info && (cond)) *info = -(pos);                                                      \
    } while (0)

#define LU_ROUTINES(p, P, T, DT)                                                                   \
    typedef void (*p##gesv_fn)(const int *, const int *, T *, const int *, int *, T *,             \
                               const int *, int *);                                                \
    typedef void (*p##getrf_fn)(const int *, const int *, T *, const int *, int *, int *);         \
    typedef void (*p##getrs_fn)(const char *, const int *, const int *, const T *, const int *,    \
                                const int *, T *, const int *, int *, size_t);                     \
    typedef void (*p##getri_fn)(const int *, T *, const int *, const int *, T *, const int *,      \
                                int *);                                                            \
                                                                                                   \
    PS_LAPACK_EXPORT void p##gesv_(const int *n, const int *nrhs, T *a, const int *lda, int *ipiv, \
                                   T *b, const int *ldb, int *info) {                              \
        *info = 0;                                                                                 \
        BAD(*n < 0, 1);                                                                            \
        BAD(*nrhs < 0, 2);                                                                         \
        BAD(*lda < ps__lapack_max1(*n), 4);                                                        \
        BAD(*ldb < ps__lapack_max1(*n), 7);                                                        \
        if (*info) return ps__lapack_xerbla(P "GESV", -*info);                                     \
        double start = ps__lapack_now();                                                           \
        ps_context *ctx = ps__lapack_route(DT, *n);                                                \
        const char *why = NULL;                                                                    \
        if (ctx) {                                                                                 \
            ps_status st = ps_##p##gesv(ctx, *n, *nrhs, a, *lda, ipiv, b, *ldb);                   \
            if (st == PS_SUCCESS || st == PS_ERR_SINGULAR) {                                       \
                *info = st ? ps_context_last_info(ctx) : 0;                                        \
                return ps__lapack_log(P "GESV", *n, *n, *nrhs, ctx, NULL, start);                  \
            }                                                                                      \
            why = ps_context_last_error(ctx);                                                      \
            if (st == PS_ERR_RESULT_NOT_FINITE) { /* A and ipiv hold the factors */                \
                ((p##getrs_fn)ps__lapack_host(#p "getrs_"))("N", n, nrhs, a, lda, ipiv, b, ldb,    \
                                                            info, 1);                              \
                return ps__lapack_log(P "GESV", *n, *n, *nrhs, NULL, why, start);                  \
            }                                                                                      \
        }                                                                                          \
        ((p##gesv_fn)ps__lapack_host(#p "gesv_"))(n, nrhs, a, lda, ipiv, b, ldb, info);            \
        ps__lapack_log(P "GESV", *n, *n, *nrhs, NULL, why, start);                                 \
    }                                                                                              \
                                                                                                   \
    PS_LAPACK_EXPORT void p##getrf_(const int *m, const int *n, T *a, const int *lda, int *ipiv,   \
                                    int *info) {                                                   \
        *info = 0;                                                                                 \
        BAD(*m < 0, 1);                                                                            \
        BAD(*n < 0, 2);                                                                            \
        BAD(*lda < ps__lapack_max1(*m), 4);                                                        \
        if (*info) return ps__lapack_xerbla(P "GETRF", -*info);                                    \
        double start = ps__lapack_now();                                                           \
        ps_context *ctx = ps__lapack_route(DT, *m > *n ? *m : *n);                                 \
        const char *why = NULL;                                                                    \
        if (ctx) {                                                                                 \
            ps_status st = ps_##p##getrf(ctx, *m, *n, a, *lda, ipiv);                              \
            if (st == PS_SUCCESS || st == PS_ERR_SINGULAR) {                                       \
                *info = st ? ps_context_last_info(ctx) : 0;                                        \
                return ps__lapack_log(P "GETRF", *m, *n, 0, ctx, NULL, start);                     \
            }                                                                                      \
            why = ps_context_last_error(ctx);                                                      \
        }                                                                                          \
        ((p##getrf_fn)ps__lapack_host(#p "getrf_"))(m, n, a, lda, ipiv, info);                     \
        ps__lapack_log(P "GETRF", *m, *n, 0, NULL, why, start);                                    \
    }                                                                                              \
                                                                                                   \
    PS_LAPACK_EXPORT void p##getrs_(const char *trans, const int *n, const int *nrhs, const T *a,  \
                                    const int *lda, const int *ipiv, T *b, const int *ldb,         \
                                    int *info, size_t trans_len) {                                 \
        (void)trans_len;                                                                           \
        *info = 0;                                                                                 \
        BAD(!ps__lapack_is(trans, 'N') && !ps__lapack_is(trans, 'T') &&                            \
                !ps__lapack_is(trans, 'C'),                                                        \
            1);                                                                                    \
        BAD(*n < 0, 2);                                                                            \
        BAD(*nrhs < 0, 3);                                                                         \
        BAD(*lda < ps__lapack_max1(*n), 5);                                                        \
        BAD(*ldb < ps__lapack_max1(*n), 8);                                                        \
        if (*info) return ps__lapack_xerbla(P "GETRS", -*info);                                    \
        double start = ps__lapack_now();                                                           \
        ps_context *ctx = ps__lapack_route(DT, *n);                                                \
        const char *why = NULL;                                                                    \
        if (ctx) {                                                                                 \
            ps_status st = ps_##p##getrs(ctx, *trans, *n, *nrhs, a, *lda, ipiv, b, *ldb);          \
            if (st == PS_SUCCESS)                                                                  \
                return ps__lapack_log(P "GETRS", *n, *n, *nrhs, ctx, NULL, start);                 \
            why = ps_context_last_error(ctx);                                                      \
        }                                                                                          \
        ((p##getrs_fn)ps__lapack_host(#p "getrs_"))(trans, n, nrhs, a, lda, ipiv, b, ldb, info,    \
                                                    1);                                            \
        ps__lapack_log(P "GETRS", *n, *n, *nrhs, NULL, why, start);                                \
    }                                                                                              \
                                                                                                   \
    PS_LAPACK_EXPORT void p##getri_(const int *n, T *a, const int *lda, const int *ipiv, T *work,  \
                                    const int *lwork, int *info) {                                 \
        *info = 0;                                                                                 \
        BAD(*n < 0, 1);                                                                            \
        BAD(*lda < ps__lapack_max1(*n), 3);                                                        \
        BAD(*lwork < ps__lapack_max1(*n) && *lwork != -1, 6);                                      \
        if (*info) return ps__lapack_xerbla(P "GETRI", -*info);                                    \
        double start = ps__lapack_now();                                                           \
        /* a workspace query gets the host LAPACK's answer, which any call can use */              \
        ps_context *ctx = *lwork == -1 ? NULL : ps__lapack_route(DT, *n);                          \
        const char *why = NULL;                                                                    \
        if (ctx) {                                                                                 \
            ps_status st = ps_##p##getri(ctx, *n, a, *lda, ipiv);                                  \
            if (st == PS_SUCCESS || st == PS_ERR_SINGULAR) {                                       \
                *info = st ? ps_context_last_info(ctx) : 0;                                        \
                if (*n > 0) work[0] = (T)*n;                                                       \
                return ps__lapack_log(P "GETRI", *n, *n, 0, ctx, NULL, start);                     \
            }                                                                                      \
            why = ps_context_last_error(ctx);                                                      \
        }                                                                                          \
        ((p##getri_fn)ps__lapack_host(#p "getri_"))(n, a, lda, ipiv, work, lwork, info);           \
        if (*lwork != -1) ps__lapack_log(P "GETRI", *n, *n, 0, NULL, why, start);                  \
    }

LU_ROUTINES(s, "S", float, PS_FLOAT)
LU_ROUTINES(d, "D", double, PS_DOUBLE)
