/* Cholesky on device matrices (ps_mat_potrf/potrs/posv) and the host drivers ps_?potrf/potrs/posv.
 */
#include "base/check.h"
#include "base/float_split.h"
#include "chol/chol.h"
#include "base/matrix.h"
#include "base/staging.h"

#include <stdint.h>

/* Turns a nonzero device info into PS_ERR_NOT_SPD with the order of the failing minor. */
static ps_status not_spd(ps_context *ctx, const char *fn, int info) {
    ctx->last_info = info;
    return ps__fail(ctx, PS_ERR_NOT_SPD,
                    "%s: the leading minor of order %d is not positive definite (info=%d)", fn,
                    info, info);
}

/* A float factorization's big GEMMs in the split mode, from the order chol_float_split or the
 * backend gives (base/float_split.h). */
static void split_begin(ps_context *ctx, ps__dtype dt, int n, int *split) {
    ps__float_split_begin(ctx, PS__ALGO_CHOL_FLOAT_SPLIT, ctx->tuning.chol_float_split, dt, n,
                          split);
}

/* ---- device matrices ---- */

/* Factors A (and solves for B when B is not NULL and A is positive definite). */
static ps_status mat_factor_solve(ps_context *ctx, const char *fn, ps__uplo uplo, ps_matrix *A,
                                  ps_matrix *B) {
    ps__scratch s = ps__scratch_begin(ctx);
    void *dev_info;
    int info = 0;
    int n = A->rows;
    ps__mat a = ps__matrix_view(A);
    int copied = 0, split;
    ps_status st = ps__scratch_dev(&s, sizeof(int32_t), &dev_info);
    split_begin(ctx, A->dt, n, &split);
    if (!st && ps__aligned_copy_wanted(ctx, PS__ALGO_CHOL_COPY, ctx->tuning.chol_copy, A->dt, n, a))
        st = ps__potrf_in_copy(&s, A->dt, uplo, n, a, dev_info, &copied);
    if (!st && !copied) st = ps__potrf(ctx, A->dt, uplo, n, a, dev_info);
    st = ps__float_split_end(ctx, split, st);
    if (!st) st = ps__read_info(ctx, dev_info, &info);
    if (!st && info == 0 && B)
        st = ps__potrs(ctx, A->dt, uplo, n, B->cols, ps__matrix_view(A), ps__matrix_view(B));
    ps__scratch_end(&s);
    if (!st && info > 0) st = not_spd(ctx, fn, info);
    return st;
}

ps_status ps_mat_potrf(ps_context *ctx, char uplo, ps_matrix *A) {
    static const char fn[] = "ps_mat_potrf";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps__uplo u;
    PS__TRY(ps__parse_uplo(ctx, uplo, &u, fn, 2));
    PS__TRY(ps__check_square_matrix(ctx, A, 3, fn));
    return mat_factor_solve(ctx, fn, u, A, NULL);
}

ps_status ps_mat_potrs(ps_context *ctx, char uplo, const ps_matrix *A, ps_matrix *B) {
    static const char fn[] = "ps_mat_potrs";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps__uplo u;
    PS__TRY(ps__parse_uplo(ctx, uplo, &u, fn, 2));
    PS__TRY(ps__check_square_matrix(ctx, A, 3, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, A, B, 4, fn));
    return ps__potrs(ctx, A->dt, u, A->rows, B->cols, ps__matrix_view(A), ps__matrix_view(B));
}

ps_status ps_mat_posv(ps_context *ctx, char uplo, ps_matrix *A, ps_matrix *B) {
    static const char fn[] = "ps_mat_posv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps__uplo u;
    PS__TRY(ps__parse_uplo(ctx, uplo, &u, fn, 2));
    PS__TRY(ps__check_square_matrix(ctx, A, 3, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, A, B, 4, fn));
    return mat_factor_solve(ctx, fn, u, A, B);
}

/* ---- host drivers ---- */

/* Checks of the arguments shared by potrf, potrs and posv (positions as in posv; potrf has no
 * nrhs or B, and passes nrhs = 0, B = NULL, ldb = 1, has_rhs = 0). */
static ps_status check_host_args(ps_context *ctx, ps__dtype dt, const char *fn, char uplo, int n,
                                 int nrhs, const void *A, int lda, const void *B, int ldb,
                                 int has_rhs, ps__uplo *u) {
    int shift = has_rhs ? 1 : 0; /* potrf's A is argument 4, posv's 5 */
    PS__TRY(ps__parse_uplo(ctx, uplo, u, fn, 2));
    if (n < 0) return ps__bad_arg(ctx, 3, "%s: n=%d is negative", fn, n);
    if (has_rhs && nrhs < 0) return ps__bad_arg(ctx, 4, "%s: nrhs=%d is negative", fn, nrhs);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 4 + shift));
    if (has_rhs) {
        PS__TRY(ps__check_array(ctx, fn, 'B', B, n > 0 && nrhs > 0, ldb, 'n', n, 7));
        PS__TRY(ps__check_separate(ctx, fn, A, 'A', lda, n, B, 'B', ldb, nrhs, n,
                                   ps__dtype_size(dt), 7));
    }
    return ps__check_dtype_supported(ctx, dt, fn);
}

/* potrf (B NULL) or posv: on PS_ERR_NOT_SPD A gets the leading block's factor back, B stays. */
static ps_status host_factor_solve(ps_context *ctx, ps__dtype dt, const char *fn, char uplo, int n,
                                   int nrhs, void *A, int lda, void *B, int ldb, int has_rhs) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_context *cpu;
    if (ps__crossover(ctx, dt, n, &cpu))
        return ps__crossed(ctx, cpu,
                           host_factor_solve(cpu, dt, fn, uplo, n, nrhs, A, lda, B, ldb, has_rhs));
    ps__uplo u;
    PS__TRY(check_host_args(ctx, dt, fn, uplo, n, nrhs, A, lda, B, ldb, has_rhs, &u));
    if (n == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + (has_rhs ? (double)n * nrhs : 0)));

    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b = {{0}, 1, PS__SHAPE_ALL};
    void *dev_info;
    int info = 0;
    int solve = has_rhs && nrhs > 0;
    ps__finite_check check_a = {fn, "A", has_rhs ? 5 : 4, (int)u},
                     check_b = {fn, "B", 7, PS__SHAPE_ALL};
    ps_status st = ps__scratch_dev(&s, sizeof(int32_t), &dev_info);
    /* a copy is diag(A, I) of an order that is a multiple of 8 (staging.h: its GEMMs' sides);
     * the solve and the way down take its leading n x n part */
    int np = ps__aligned_order(n);
    if (!st) st = ps__stage_triangle_in(&s, dt, n, np, A, lda, 1, &check_a, &a);
    if (!st && solve) st = ps__stage_in(&s, dt, n, nrhs, B, ldb, 0, &check_b, &b);
    if (!st) {
        int split;
        split_begin(ctx, dt, n, &split);
        st = ps__float_split_end(ctx, split,
                                 ps__potrf(ctx, dt, u, a.aliased ? n : np, a.dev, dev_info));
    }
    if (!st) st = ps__read_info(ctx, dev_info, &info);
    /* the factor goes down while the solve that reads it runs */
    if (!st) st = ps__transfers_after_work(ctx);
    if (!st && info == 0 && solve) st = ps__potrs(ctx, dt, u, n, nrhs, a.dev, b.dev);
    /* not positive definite: only the leading block's factor goes back (the device's steps past
     * the failure leave unspecified values), the rest of A's triangle stays as it was */
    int done = info > 0 ? info - 1 : n;
    if (!st) st = ps__stage_out_beside(ctx, dt, done, done, &a, A, lda);
    /* a solution that is not finite leaves B, but A gets its factor (as LAPACK's) */
    ps_status result = PS_SUCCESS;
    if (!st && info == 0 && solve) result = ps__check_solution(ctx, dt, n, nrhs, b.dev, fn);
    if (!st && info == 0 && solve && !result) st = ps__stage_out(ctx, dt, n, nrhs, &b, B, ldb);
    ps__scratch_end(&s);
    if (!st && info > 0) st = not_spd(ctx, fn, info);
    return st ? st : result;
}

static ps_status host_potrs(ps_context *ctx, ps__dtype dt, const char *fn, char uplo, int n,
                            int nrhs, const void *A, int lda, void *B, int ldb) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_context *cpu;
    if (ps__crossover(ctx, dt, n, &cpu))
        return ps__crossed(ctx, cpu, host_potrs(cpu, dt, fn, uplo, n, nrhs, A, lda, B, ldb));
    ps__uplo u;
    PS__TRY(check_host_args(ctx, dt, fn, uplo, n, nrhs, A, lda, B, ldb, 1, &u));
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + (double)n * nrhs));

    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b;
    ps__finite_check check_a = {fn, "A", 5, (int)u}, check_b = {fn, "B", 7, PS__SHAPE_ALL};
    ps_status st = ps__stage_triangle_in(&s, dt, n, n, A, lda, 1, &check_a, &a);
    if (!st) st = ps__stage_in(&s, dt, n, nrhs, B, ldb, 0, &check_b, &b);
    if (!st) st = ps__potrs(ctx, dt, u, n, nrhs, a.dev, b.dev);
    if (!st) st = ps__check_solution(ctx, dt, n, nrhs, b.dev, fn);
    if (!st) st = ps__stage_out(ctx, dt, n, nrhs, &b, B, ldb);
    ps__scratch_end(&s);
    return st;
}

ps_status ps_spotrf(ps_context *ctx, char uplo, int n, float *A, int lda) {
    return host_factor_solve(ctx, PS__FLOAT, "ps_spotrf", uplo, n, 0, A, lda, NULL, 1, 0);
}
ps_status ps_dpotrf(ps_context *ctx, char uplo, int n, double *A, int lda) {
    return host_factor_solve(ctx, PS__DOUBLE, "ps_dpotrf", uplo, n, 0, A, lda, NULL, 1, 0);
}
ps_status ps_spotrs(ps_context *ctx, char uplo, int n, int nrhs, const float *A, int lda, float *B,
                    int ldb) {
    return host_potrs(ctx, PS__FLOAT, "ps_spotrs", uplo, n, nrhs, A, lda, B, ldb);
}
ps_status ps_dpotrs(ps_context *ctx, char uplo, int n, int nrhs, const double *A, int lda,
                    double *B, int ldb) {
    return host_potrs(ctx, PS__DOUBLE, "ps_dpotrs", uplo, n, nrhs, A, lda, B, ldb);
}
ps_status ps_sposv(ps_context *ctx, char uplo, int n, int nrhs, float *A, int lda, float *B,
                   int ldb) {
    return host_factor_solve(ctx, PS__FLOAT, "ps_sposv", uplo, n, nrhs, A, lda, B, ldb, 1);
}
ps_status ps_dposv(ps_context *ctx, char uplo, int n, int nrhs, double *A, int lda, double *B,
                   int ldb) {
    return host_factor_solve(ctx, PS__DOUBLE, "ps_dposv", uplo, n, nrhs, A, lda, B, ldb, 1);
}
