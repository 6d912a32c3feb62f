/*
 * The CPU backend's custom kernels for one precision: included by cpu_kernels.c with REAL
 * (float or double), SUFFIX (s or d) and SAFE_MIN (the smallest x whose 1/x does not overflow)
 * defined. Plain loops: these are the oracle the other backends are tested against.
 */
#define PS__CAT2(a, b) a##b
#define PS__CAT(a, b)  PS__CAT2(a, b)
#define FN(name)       PS__CAT(PS__CAT(name, _), SUFFIX)

static void FN(fill)(int rows, int cols, REAL value, REAL *a, int lda) {
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) a[i + (size_t)j * lda] = value;
}

static void FN(swap_rows)(int ncols, REAL *a, int lda, int r1, int r2) {
    for (int j = 0; j < ncols; j++) {
        REAL t = a[r1 + (size_t)j * lda];
        a[r1 + (size_t)j * lda] = a[r2 + (size_t)j * lda];
        a[r2 + (size_t)j * lda] = t;
    }
}

/* LAPACK dgetf2's right-looking loop, including its treatment of tiny and zero pivots. */
static void FN(getrf_panel)(int m, int n, REAL *a, int lda, int32_t *ipiv, int row_base,
                            int32_t *info) {
    for (int j = 0; j < n && j < m; j++) {
        REAL *col = a + (size_t)j * lda;
        int p = j;
        REAL best = col[j] < 0 ? -col[j] : col[j];
        for (int i = j + 1; i < m; i++) {
            REAL v = col[i] < 0 ? -col[i] : col[i];
            if (v > best) { /* the first largest, as BLAS i?amax */
                best = v;
                p = i;
            }
        }
        ipiv[j] = row_base + p;
        if (col[p] != 0) {
            if (p != j) FN(swap_rows)(n, a, lda, j, p);
            REAL pivot = col[j];
            if ((pivot < 0 ? -pivot : pivot) >= SAFE_MIN) {
                REAL r = 1 / pivot;
                for (int i = j + 1; i < m; i++) col[i] *= r;
            } else {
                for (int i = j + 1; i < m; i++) col[i] /= pivot;
            }
        } else if (*info == 0) {
            *info = row_base + j + 1;
        }
        for (int k = j + 1; k < n; k++) {
            REAL *ck = a + (size_t)k * lda;
            REAL f = ck[j];
            if (f == 0) continue;
            for (int i = j + 1; i < m; i++) ck[i] -= col[i] * f;
        }
    }
}

/* Right-looking unblocked Cholesky (lower: A = L L^T; upper: A = U^T U), stopping at the first
 * pivot that is not positive, as LAPACK dpotf2. */
static void FN(potrf_panel)(int lower, int n, REAL *a, int lda, int32_t *info, int index_base) {
    if (*info != 0) return;
#define A_(i, j) a[(size_t)(i) + (size_t)(j) * (size_t)lda]
    for (int j = 0; j < n; j++) {
        REAL d = A_(j, j);
        if (!(d > 0)) {
            *info = index_base + j + 1;
            return;
        }
        REAL s = (REAL)sqrt((double)d);
        A_(j, j) = s;
        for (int i = j + 1; i < n; i++) {
            if (lower)
                A_(i, j) /= s;
            else
                A_(j, i) /= s;
        }
        for (int k = j + 1; k < n; k++)
            for (int i = k; i < n; i++) {
                if (lower)
                    A_(i, k) -= A_(i, j) * A_(k, j);
                else
                    A_(k, i) -= A_(j, k) * A_(j, i);
            }
    }
#undef A_
}

static void FN(axpby)(int n, REAL alpha, const REAL *x, int incx, REAL beta, REAL *y, int incy) {
    for (int i = 0; i < n; i++)
        y[(size_t)i * incy] = alpha * x[(size_t)i * incx] + beta * y[(size_t)i * incy];
}

static void FN(vmul)(int n, const REAL *x, int incx, REAL *y, int incy) {
    for (int i = 0; i < n; i++) y[(size_t)i * incy] *= x[(size_t)i * incx];
}

#undef FN
#undef PS__CAT
#undef PS__CAT2
