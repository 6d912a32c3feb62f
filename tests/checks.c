#include "checks.h"
#include "test_util.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>

double ps_check_solve_ratio(ps_dtype dt, char trans, int n, int nrhs, const void *A, int lda,
                            const void *X, int ldx, const void *B, int ldb) {
    if (n == 0 || nrhs == 0) return 0;
    int t = trans == 'T' || trans == 't' || trans == 'C' || trans == 'c';
    double anorm = 0; /* ||op(A)||_1 */
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += fabs(t ? ps_test_get(dt, A, lda, j, i) : ps_test_get(dt, A, lda, i, j));
        if (s > anorm) anorm = s;
    }
    double worst = 0, eps = ps_test_eps(dt);
    for (int c = 0; c < nrhs; c++) {
        double rnorm = 0, xnorm = 0;
        for (int i = 0; i < n; i++) {
            double r = ps_test_get(dt, B, ldb, i, c);
            for (int k = 0; k < n; k++)
                r -= (t ? ps_test_get(dt, A, lda, k, i) : ps_test_get(dt, A, lda, i, k)) *
                     ps_test_get(dt, X, ldx, k, c);
            rnorm += fabs(r);
            xnorm += fabs(ps_test_get(dt, X, ldx, i, c));
        }
        double ratio;
        if (anorm == 0 || xnorm == 0)
            ratio = rnorm == 0 ? 0 : 1 / eps;
        else
            ratio = rnorm / anorm / xnorm / n / eps;
        if (!(ratio <= worst)) worst = ratio; /* NaN propagates as a failure */
    }
    return worst;
}

double ps_check_lu_ratio(ps_dtype dt, int m, int n, const void *A, int lda, const void *LU,
                         int ldlu, const int *ipiv) {
    if (m == 0 || n == 0) return 0;
    int k = m < n ? m : n;
    double *L = calloc((size_t)m * k, sizeof *L), *U = calloc((size_t)k * n, sizeof *U);
    double *PA = malloc(sizeof *PA * (size_t)m * n);
    for (int j = 0; j < k; j++)
        for (int i = 0; i < m; i++)
            L[i + (size_t)j * m] = i == j ? 1.0 : i > j ? ps_test_get(dt, LU, ldlu, i, j) : 0.0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i <= j && i < k; i++)
            U[i + (size_t)j * k] = ps_test_get(dt, LU, ldlu, i, j);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) PA[i + (size_t)j * m] = ps_test_get(dt, A, lda, i, j);
    for (int i = 0; i < k; i++) { /* apply the interchanges in order: PA = P^T A */
        int p = ipiv[i] - 1;
        if (p < 0 || p >= m) {
            free(L), free(U), free(PA);
            return INFINITY;
        }
        if (p != i) cblas_dswap(n, PA + i, m, PA + p, m);
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, -1.0, L, m, U, k, 1.0, PA, m);
    double resid = ps_test_norm1(PS_DOUBLE, m, n, PA, m);
    double anorm = ps_test_norm1(dt, m, n, A, lda);
    free(L), free(U), free(PA);
    if (anorm == 0) return resid == 0 ? 0 : 1 / ps_test_eps(dt);
    return resid / anorm / (m > n ? m : n) / ps_test_eps(dt);
}

double ps_check_forward_ratio(ps_dtype dt, int n, int nrhs, const void *x, int ldx,
                              const void *xtrue, int ldt, double cond) {
    double worst = 0;
    for (int j = 0; j < nrhs; j++) {
        double d = 0, t = 0;
        for (int i = 0; i < n; i++) {
            d = fmax(d, fabs(ps_test_get(dt, x, ldx, i, j) - ps_test_get(dt, xtrue, ldt, i, j)));
            t = fmax(t, fabs(ps_test_get(dt, xtrue, ldt, i, j)));
        }
        double q = t > 0 ? d / (t * cond * n * ps_test_eps(dt)) : d;
        if (!(q <= worst)) worst = q;
    }
    return worst;
}

double ps_check_chol_ratio(ps_dtype dt, char uplo, int n, const void *A, int lda, const void *F,
                           int ldf) {
    if (n == 0) return 0;
    int lower = uplo == 'L' || uplo == 'l';
    /* G: the factor as a lower triangle (L, or U^T), so that A = G G^T. */
    double *G = calloc((size_t)n * n, sizeof *G), *R = malloc(sizeof *R * (size_t)n * n);
    for (int j = 0; j < n; j++)
        for (int i = j; i < n; i++)
            G[i + (size_t)j * n] =
                lower ? ps_test_get(dt, F, ldf, i, j) : ps_test_get(dt, F, ldf, j, i);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) R[i + (size_t)j * n] = ps_test_get(dt, A, lda, i, j);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, n, n, -1.0, G, n, G, n, 1.0, R, n);
    double rnorm = 0, anorm = ps_test_norm1(dt, n, n, A, lda);
    for (int j = 0; j < n; j++) {
        double s = 0;
        for (int i = 0; i < n; i++) s += fabs(R[i + (size_t)j * n]);
        if (!(s <= rnorm)) rnorm = s;
    }
    free(G), free(R);
    if (anorm == 0) return rnorm == 0 ? 0 : 1 / ps_test_eps(dt);
    return rnorm / anorm / n / ps_test_eps(dt);
}

double ps_check_wz_ratio(ps_dtype dt, int n, const void *A, int lda, const void *F, int ldf,
                         const int *ipiv) {
    if (n == 0) return 0;
    double *W = calloc((size_t)n * n, sizeof *W), *Z = calloc((size_t)n * n, sizeof *Z);
    double *PA = malloc(sizeof *PA * (size_t)n * n);
    /* The packing is a partition: (i,j) is Z's when column j's step is not before row i's. */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            int si = i < n - 1 - i ? i : n - 1 - i, sj = j < n - 1 - j ? j : n - 1 - j;
            double v = ps_test_get(dt, F, ldf, i, j);
            if (sj >= si)
                Z[i + (size_t)j * n] = v;
            else
                W[i + (size_t)j * n] = v;
            if (i == j) W[i + (size_t)j * n] = 1.0;
            PA[i + (size_t)j * n] = ps_test_get(dt, A, lda, i, j);
        }
    for (int k = 0; 2 * k <= n - 1; k++) { /* interchanges in step order: row k, then row k2 */
        int rows[2] = {k, n - 1 - k};
        for (int r = 0; r < (rows[0] == rows[1] ? 1 : 2); r++) {
            int p = ipiv[rows[r]] - 1;
            if (p < 0 || p >= n) {
                free(W), free(Z), free(PA);
                return INFINITY;
            }
            if (p != rows[r]) cblas_dswap(n, PA + rows[r], n, PA + p, n);
        }
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, -1.0, W, n, Z, n, 1.0, PA, n);
    double resid = ps_test_norm1(PS_DOUBLE, n, n, PA, n);
    double anorm = ps_test_norm1(dt, n, n, A, lda);
    free(W), free(Z), free(PA);
    if (anorm == 0) return resid == 0 ? 0 : 1 / ps_test_eps(dt);
    return resid / anorm / n / ps_test_eps(dt);
}

double ps_check_inverse_ratio(ps_dtype dt, int n, const void *A, int lda, const void *X, int ldx) {
    if (n == 0) return 0;
    double *a = malloc(sizeof *a * (size_t)n * n), *x = malloc(sizeof *x * (size_t)n * n);
    double *r = malloc(sizeof *r * (size_t)n * n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            a[i + (size_t)j * n] = ps_test_get(dt, A, lda, i, j);
            x[i + (size_t)j * n] = ps_test_get(dt, X, ldx, i, j);
            r[i + (size_t)j * n] = i == j ? 1.0 : 0.0;
        }
    /* R = I - A X in double: the data's rounding is the only error measured */
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, -1.0, a, n, x, n, 1.0, r, n);
    double rnorm = ps_test_norm1(PS_DOUBLE, n, n, r, n),
           anorm = ps_test_norm1(PS_DOUBLE, n, n, a, n);
    double xnorm = ps_test_norm1(PS_DOUBLE, n, n, x, n);
    free(a), free(x), free(r);
    double eps = ps_test_eps(dt);
    if (anorm == 0 || xnorm == 0) return rnorm == 0 ? 0 : 1 / eps;
    double ratio = rnorm / anorm / xnorm / n / eps;
    return ratio == ratio ? ratio : INFINITY; /* NaN fails */
}
