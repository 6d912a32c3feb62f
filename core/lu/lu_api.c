/* LU on device matrices (the ps_mat_* level) and the host drivers ps_?getrf/getrs/gesv. */
#include "base/check.h"
#include "base/float_split.h"
#include "lu/lu.h"
#include "base/matrix.h"
#include "base/staging.h"

#include <stdint.h>

/* Turns a nonzero device info into PS_ERR_SINGULAR with the index. */
static ps_status singular(ps_context *ctx, const char *fn, int info) {
    ctx->last_info = info;
    return ps__fail(ctx, PS_ERR_SINGULAR,
                    "%s: U(%d,%d) is exactly zero, so the matrix is singular (info=%d)", fn, info,
                    info, info);
}

/* A float factorization's big GEMMs in the split mode, from the order lu_float_split or the
 * backend gives (base/float_split.h). */
static void split_begin(ps_context *ctx, ps__dtype dt, int n, int *split) {
    ps__float_split_begin(ctx, PS__ALGO_LU_FLOAT_SPLIT, ctx->tuning.lu_float_split, dt, n, split);
}

/* ---- device matrices ---- */

/* ps__getrf of the device matrix A, through an aligned copy where lu_copy or the backend says
 * so, in the float split mode where it applies. */
static ps_status factor(ps__scratch *s, ps_matrix *A, void *ipiv, void *info) {
    ps__mat a = ps__matrix_view(A);
    int copied = 0, split;
    split_begin(s->ctx, A->dt, A->rows > A->cols ? A->rows : A->cols, &split);
    ps_status st = PS_SUCCESS;
    if (A->rows == A->cols && ps__aligned_copy_wanted(s->ctx, PS__ALGO_LU_COPY,
                                                      s->ctx->tuning.lu_copy, A->dt, A->rows, a))
        st = ps__getrf_in_copy(s, A->dt, A->rows, a, ipiv, info, &copied);
    if (!st && !copied) st = ps__getrf(s->ctx, A->dt, A->rows, A->cols, a, ipiv, info);
    return ps__float_split_end(s->ctx, split, st);
}

/* ps__getrf of a host driver's staged copy, in the float split mode where it applies. */
static ps_status factor_staged(ps_context *ctx, ps__dtype dt, int m, int n, ps__mat a, void *ipiv,
                               void *info) {
    int split;
    split_begin(ctx, dt, m > n ? m : n, &split);
    return ps__float_split_end(ctx, split, ps__getrf(ctx, dt, m, n, a, ipiv, info));
}

ps_status ps_mat_getrf(ps_context *ctx, ps_matrix *A, int *ipiv) {
    static const char fn[] = "ps_mat_getrf";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_matrix(ctx, A, 2, fn, "A"));
    int k = A->rows < A->cols ? A->rows : A->cols;
    if (!ipiv && k > 0) return ps__bad_arg(ctx, 3, "%s: ipiv is NULL", fn);

    ps__scratch s = ps__scratch_begin(ctx);
    void *dev_ipiv, *dev_info;
    int info = 0;
    ps_status st = ps__scratch_dev(&s, (size_t)k * sizeof(int32_t), &dev_ipiv);
    if (!st) st = ps__scratch_dev(&s, sizeof(int32_t), &dev_info);
    if (!st) st = factor(&s, A, dev_ipiv, dev_info);
    if (!st) st = ps__read_info(ctx, dev_info, &info);
    if (!st) st = ps__download_pivots(ctx, k, dev_ipiv, ipiv);
    ps__scratch_end(&s);
    if (!st && info > 0) st = singular(ctx, fn, info);
    return st;
}

ps_status ps_mat_getrs(ps_context *ctx, char trans, const ps_matrix *LU, const int *ipiv,
                       ps_matrix *B) {
    static const char fn[] = "ps_mat_getrs";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps__trans t;
    PS__TRY(ps__parse_trans(ctx, trans, &t, fn, 2));
    PS__TRY(ps__check_square_matrix(ctx, LU, 3, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, LU, B, 5, fn));
    int n = LU->rows;
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 4, "%s: ipiv is NULL", fn);
    PS__TRY(ps__check_pivots(ctx, n, ipiv, fn, 4));

    ps__scratch s = ps__scratch_begin(ctx);
    void *dev_ipiv;
    ps_status st = ps__upload_pivots(&s, n, ipiv, &dev_ipiv);
    if (!st)
        st = ps__getrs(ctx, LU->dt, t, n, B->cols, ps__matrix_view(LU), dev_ipiv,
                       ps__matrix_view(B));
    ps__scratch_end(&s);
    return st;
}

ps_status ps_mat_gesv(ps_context *ctx, ps_matrix *A, int *ipiv, ps_matrix *B) {
    static const char fn[] = "ps_mat_gesv";
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    PS__TRY(ps__check_square_matrix(ctx, A, 2, fn));
    PS__TRY(ps__check_rhs_matrix(ctx, A, B, 4, fn));
    int n = A->rows;
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 3, "%s: ipiv is NULL", fn);

    ps__scratch s = ps__scratch_begin(ctx);
    void *dev_ipiv, *dev_info;
    int info = 0;
    ps_status st = ps__scratch_dev(&s, (size_t)n * sizeof(int32_t), &dev_ipiv);
    if (!st) st = ps__scratch_dev(&s, sizeof(int32_t), &dev_info);
    if (!st) st = factor(&s, A, dev_ipiv, dev_info);
    if (!st) st = ps__read_info(ctx, dev_info, &info);
    if (!st) st = ps__download_pivots(ctx, n, dev_ipiv, ipiv);
    if (!st && info == 0)
        st = ps__getrs(ctx, A->dt, PS__NOTRANS, n, B->cols, ps__matrix_view(A), dev_ipiv,
                       ps__matrix_view(B));
    ps__scratch_end(&s);
    if (!st && info > 0) st = singular(ctx, fn, info);
    return st;
}

/* ---- host drivers: check everything, then work in the caller's arrays (backends that
 * address host memory) or stage through device buffers; results are written back only when
 * the call succeeds, or, as in LAPACK, the factors when the matrix is singular. ---- */

/* A host LU by ps__lu_overlapped (split at column h), with the drivers' statuses. */
static ps_status overlapped(ps_context *ctx, ps__dtype dt, const ps__lu_host_call *call, int h) {
    ps__scratch s = ps__scratch_begin(ctx);
    int info = 0, split;
    ps_status result = PS_SUCCESS;
    split_begin(ctx, dt, call->n, &split);
    ps_status st = ps__lu_overlapped(&s, dt, call, h, &info, &result);
    st = ps__float_split_end(ctx, split, st);
    ps__scratch_end(&s);
    if (!st && info > 0) st = singular(ctx, call->fn, info);
    return st ? st : result;
}

static ps_status host_getrf(ps_context *ctx, ps__dtype dt, const char *fn, int m, int n, void *A,
                            int lda, int *ipiv) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_context *cpu;
    if (ps__crossover(ctx, dt, m > n ? m : n, &cpu))
        return ps__crossed(ctx, cpu, host_getrf(cpu, dt, fn, m, n, A, lda, ipiv));
    int k = m < n ? m : n;
    if (m < 0) return ps__bad_arg(ctx, 2, "%s: m=%d is negative", fn, m);
    if (n < 0) return ps__bad_arg(ctx, 3, "%s: n=%d is negative", fn, n);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, k > 0, lda, 'm', m, 4));
    if (!ipiv && k > 0) return ps__bad_arg(ctx, 6, "%s: ipiv is NULL", fn);
    PS__TRY(ps__check_dtype_supported(ctx, dt, fn));
    if (k == 0) return PS_SUCCESS;
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)m * n));
    ps__finite_check check_a = {fn, "A", 4, PS__SHAPE_ALL};
    int h = m == n ? ps__lu_overlap_split(ctx, dt, n) : 0;
    if (h > 0)
        return overlapped(
            ctx, dt, &(ps__lu_host_call){fn, n, 0, A, lda, ipiv, NULL, 1, check_a, check_a}, h);

    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a;
    void *dev_ipiv, *dev_info;
    int info = 0;
    ps_status st = ps__scratch_dev(&s, (size_t)k * sizeof(int32_t), &dev_ipiv);
    if (!st) st = ps__scratch_dev(&s, sizeof(int32_t), &dev_info);
    if (!st) st = ps__stage_in(&s, dt, m, n, A, lda, 1, &check_a, &a);
    if (!st) st = factor_staged(ctx, dt, m, n, a.dev, dev_ipiv, dev_info);
    if (!st) st = ps__read_info(ctx, dev_info, &info);
    if (!st) st = ps__stage_out(ctx, dt, m, n, &a, A, lda);
    if (!st) st = ps__download_pivots(ctx, k, dev_ipiv, ipiv);
    ps__scratch_end(&s);
    if (!st && info > 0) st = singular(ctx, fn, info);
    return st;
}

static ps_status host_getrs(ps_context *ctx, ps__dtype dt, const char *fn, char trans, int n,
                            int nrhs, const void *A, int lda, const int *ipiv, void *B, int ldb) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_context *cpu;
    if (ps__crossover(ctx, dt, n, &cpu))
        return ps__crossed(ctx, cpu, host_getrs(cpu, dt, fn, trans, n, nrhs, A, lda, ipiv, B, ldb));
    ps__trans t;
    PS__TRY(ps__parse_trans(ctx, trans, &t, fn, 2));
    if (n < 0) return ps__bad_arg(ctx, 3, "%s: n=%d is negative", fn, n);
    if (nrhs < 0) return ps__bad_arg(ctx, 4, "%s: nrhs=%d is negative", fn, nrhs);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 5));
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 7, "%s: ipiv is NULL", fn);
    PS__TRY(ps__check_array(ctx, fn, 'B', B, n > 0 && nrhs > 0, ldb, 'n', n, 8));
    PS__TRY(
        ps__check_separate(ctx, fn, A, 'A', lda, n, B, 'B', ldb, nrhs, n, ps__dtype_size(dt), 8));
    PS__TRY(ps__check_dtype_supported(ctx, dt, fn));
    if (n == 0 || nrhs == 0) return PS_SUCCESS;
    PS__TRY(ps__check_pivots(ctx, n, ipiv, fn, 7));
    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + (double)n * nrhs));

    ps__finite_check check_a = {fn, "A", 5, PS__SHAPE_ALL}, check_b = {fn, "B", 8, PS__SHAPE_ALL};
    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b;
    void *dev_ipiv;
    ps_status st = ps__upload_pivots(&s, n, ipiv, &dev_ipiv);
    if (!st) st = ps__stage_in(&s, dt, n, n, A, lda, 1, &check_a, &a);
    if (!st) st = ps__stage_in(&s, dt, n, nrhs, B, ldb, 0, &check_b, &b);
    if (!st) st = ps__getrs(ctx, dt, t, n, nrhs, a.dev, dev_ipiv, b.dev);
    if (!st) st = ps__check_solution(ctx, dt, n, nrhs, b.dev, fn);
    if (!st) st = ps__stage_out(ctx, dt, n, nrhs, &b, B, ldb);
    ps__scratch_end(&s);
    return st;
}

static ps_status host_gesv(ps_context *ctx, ps__dtype dt, const char *fn, int n, int nrhs, void *A,
                           int lda, int *ipiv, void *B, int ldb) {
    if (!ctx) return PS_ERR_INVALID_ARGUMENT;
    PS__BEGIN(ctx);
    ps_context *cpu;
    if (ps__crossover(ctx, dt, n, &cpu))
        return ps__crossed(ctx, cpu, host_gesv(cpu, dt, fn, n, nrhs, A, lda, ipiv, B, ldb));
    if (n < 0) return ps__bad_arg(ctx, 2, "%s: n=%d is negative", fn, n);
    if (nrhs < 0) return ps__bad_arg(ctx, 3, "%s: nrhs=%d is negative", fn, nrhs);
    PS__TRY(ps__check_array(ctx, fn, 'A', A, n > 0, lda, 'n', n, 4));
    if (!ipiv && n > 0) return ps__bad_arg(ctx, 6, "%s: ipiv is NULL", fn);
    PS__TRY(ps__check_array(ctx, fn, 'B', B, n > 0 && nrhs > 0, ldb, 'n', n, 7));
    PS__TRY(
        ps__check_separate(ctx, fn, A, 'A', lda, n, B, 'B', ldb, nrhs, n, ps__dtype_size(dt), 7));
    PS__TRY(ps__check_dtype_supported(ctx, dt, fn));
    if (n == 0) return PS_SUCCESS;

    PS__TRY(ps__workspace_fits(ctx, fn, dt, (double)n * n + (double)n * nrhs));
    ps__finite_check check_a = {fn, "A", 4, PS__SHAPE_ALL}, check_b = {fn, "B", 7, PS__SHAPE_ALL};
    int h = ps__lu_overlap_split(ctx, dt, n);
    if (h > 0)
        return overlapped(
            ctx, dt, &(ps__lu_host_call){fn, n, nrhs, A, lda, ipiv, B, ldb, check_a, check_b}, h);
    ps__scratch s = ps__scratch_begin(ctx);
    ps__staged a, b;
    void *dev_ipiv, *dev_info;
    int info = 0;
    ps_status st = ps__scratch_dev(&s, (size_t)n * sizeof(int32_t), &dev_ipiv);
    if (!st) st = ps__scratch_dev(&s, sizeof(int32_t), &dev_info);
    if (!st) st = ps__stage_in(&s, dt, n, n, A, lda, 1, &check_a, &a);
    if (!st) st = ps__stage_in(&s, dt, n, nrhs, B, ldb, 0, &check_b, &b);
    if (!st) st = factor_staged(ctx, dt, n, n, a.dev, dev_ipiv, dev_info);
    if (!st) st = ps__read_info(ctx, dev_info, &info);
    /* the factors go down while the solve that reads them runs */
    if (!st) st = ps__transfers_after_work(ctx);
    if (!st && info == 0) st = ps__getrs(ctx, dt, PS__NOTRANS, n, nrhs, a.dev, dev_ipiv, b.dev);
    if (!st) st = ps__stage_out_beside(ctx, dt, n, n, &a, A, lda);
    /* a solution that is not finite leaves B, but A and ipiv get their factors, as on a
     * singular matrix (getrs with them reproduces LAPACK's answer) */
    ps_status result = PS_SUCCESS;
    if (!st && info == 0) result = ps__check_solution(ctx, dt, n, nrhs, b.dev, fn);
    if (!st && info == 0 && !result) st = ps__stage_out(ctx, dt, n, nrhs, &b, B, ldb);
    if (!st) st = ps__download_pivots(ctx, n, dev_ipiv, ipiv);
    ps__scratch_end(&s);
    if (!st && info > 0) st = singular(ctx, fn, info);
    return st ? st : result;
}

ps_status ps_sgetrf(ps_context *ctx, int m, int n, float *A, int lda, int *ipiv) {
    return host_getrf(ctx, PS__FLOAT, "ps_sgetrf", m, n, A, lda, ipiv);
}
ps_status ps_dgetrf(ps_context *ctx, int m, int n, double *A, int lda, int *ipiv) {
    return host_getrf(ctx, PS__DOUBLE, "ps_dgetrf", m, n, A, lda, ipiv);
}
ps_status ps_sgetrs(ps_context *ctx, char trans, int n, int nrhs, const float *A, int lda,
                    const int *ipiv, float *B, int ldb) {
    return host_getrs(ctx, PS__FLOAT, "ps_sgetrs", trans, n, nrhs, A, lda, ipiv, B, ldb);
}
ps_status ps_dgetrs(ps_context *ctx, char trans, int n, int nrhs, const double *A, int lda,
                    const int *ipiv, double *B, int ldb) {
    return host_getrs(ctx, PS__DOUBLE, "ps_dgetrs", trans, n, nrhs, A, lda, ipiv, B, ldb);
}
ps_status ps_sgesv(ps_context *ctx, int n, int nrhs, float *A, int lda, int *ipiv, float *B,
                   int ldb) {
    return host_gesv(ctx, PS__FLOAT, "ps_sgesv", n, nrhs, A, lda, ipiv, B, ldb);
}
ps_status ps_dgesv(ps_context *ctx, int n, int nrhs, double *A, int lda, int *ipiv, double *B,
                   int ldb) {
    return host_gesv(ctx, PS__DOUBLE, "ps_dgesv", n, nrhs, A, lda, ipiv, B, ldb);
}
