/* The CPU backend's BLAS entries: each picks the S or D CBLAS routine by dtype. */
#include "cpu_internal.h"

#include <cblas.h>

#define DV(v) PS__CPU_PTR(double, (v).buf, (v).off)
#define SV(v) PS__CPU_PTR(float, (v).buf, (v).off)

static enum CBLAS_TRANSPOSE cb_trans(ps__trans t) {
    return t == PS__TRANS ? CblasTrans : CblasNoTrans;
}
static enum CBLAS_UPLO cb_uplo(ps__uplo u) {
    return u == PS__LOWER ? CblasLower : CblasUpper;
}
static enum CBLAS_SIDE cb_side(ps__side s) {
    return s == PS__RIGHT ? CblasRight : CblasLeft;
}
static enum CBLAS_DIAG cb_diag(ps__diag d) {
    return d == PS__UNIT ? CblasUnit : CblasNonUnit;
}

ps_status ps__cpu_copy(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    (void)be;
    if (dt == PS__DOUBLE)
        cblas_dcopy(n, DV(x), x.inc, DV(y), y.inc);
    else
        cblas_scopy(n, SV(x), x.inc, SV(y), y.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_swap(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    (void)be;
    if (dt == PS__DOUBLE)
        cblas_dswap(n, DV(x), x.inc, DV(y), y.inc);
    else
        cblas_sswap(n, SV(x), x.inc, SV(y), y.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_scal(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x) {
    (void)be;
    if (dt == PS__DOUBLE)
        cblas_dscal(n, alpha->d, DV(x), x.inc);
    else
        cblas_sscal(n, alpha->s, SV(x), x.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_axpy(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                       ps__vec y) {
    (void)be;
    if (dt == PS__DOUBLE)
        cblas_daxpy(n, alpha->d, DV(x), x.inc, DV(y), y.inc);
    else
        cblas_saxpy(n, alpha->s, SV(x), x.inc, SV(y), y.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_dot(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y,
                      ps__scalar *result) {
    (void)be;
    if (dt == PS__DOUBLE)
        result->d = cblas_ddot(n, DV(x), x.inc, DV(y), y.inc);
    else
        result->s = cblas_sdot(n, SV(x), x.inc, SV(y), y.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_nrm2(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__scalar *result) {
    (void)be;
    if (dt == PS__DOUBLE)
        result->d = cblas_dnrm2(n, DV(x), x.inc);
    else
        result->s = cblas_snrm2(n, SV(x), x.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_iamax(ps__backend *be, ps__dtype dt, int n, ps__vec x, int *result) {
    (void)be;
    if (n <= 0) {
        *result = -1;
        return PS_SUCCESS;
    }
    *result =
        (int)(dt == PS__DOUBLE ? cblas_idamax(n, DV(x), x.inc) : cblas_isamax(n, SV(x), x.inc));
    return PS_SUCCESS;
}

ps_status ps__cpu_gemv(ps__backend *be, ps__dtype dt, ps__trans trans, int m, int n,
                       const ps__scalar *alpha, ps__mat a, ps__vec x, const ps__scalar *beta,
                       ps__vec y) {
    (void)be;
    if (dt == PS__DOUBLE)
        cblas_dgemv(CblasColMajor, cb_trans(trans), m, n, alpha->d, DV(a), a.ld, DV(x), x.inc,
                    beta->d, DV(y), y.inc);
    else
        cblas_sgemv(CblasColMajor, cb_trans(trans), m, n, alpha->s, SV(a), a.ld, SV(x), x.inc,
                    beta->s, SV(y), y.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_ger(ps__backend *be, ps__dtype dt, int m, int n, const ps__scalar *alpha,
                      ps__vec x, ps__vec y, ps__mat a) {
    (void)be;
    if (dt == PS__DOUBLE)
        cblas_dger(CblasColMajor, m, n, alpha->d, DV(x), x.inc, DV(y), y.inc, DV(a), a.ld);
    else
        cblas_sger(CblasColMajor, m, n, alpha->s, SV(x), x.inc, SV(y), y.inc, SV(a), a.ld);
    return PS_SUCCESS;
}

ps_status ps__cpu_trsv(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, ps__diag diag,
                       int n, ps__mat a, ps__vec x) {
    (void)be;
    if (dt == PS__DOUBLE)
        cblas_dtrsv(CblasColMajor, cb_uplo(uplo), cb_trans(trans), cb_diag(diag), n, DV(a), a.ld,
                    DV(x), x.inc);
    else
        cblas_strsv(CblasColMajor, cb_uplo(uplo), cb_trans(trans), cb_diag(diag), n, SV(a), a.ld,
                    SV(x), x.inc);
    return PS_SUCCESS;
}

ps_status ps__cpu_gemm(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m, int n,
                       int k, const ps__scalar *alpha, ps__mat a, ps__mat b, const ps__scalar *beta,
                       ps__mat c) {
    (void)be;
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    if (dt == PS__DOUBLE)
        cblas_dgemm(CblasColMajor, cb_trans(ta), cb_trans(tb), m, n, k, alpha->d, DV(a), a.ld,
                    DV(b), b.ld, beta->d, DV(c), c.ld);
    else
        cblas_sgemm(CblasColMajor, cb_trans(ta), cb_trans(tb), m, n, k, alpha->s, SV(a), a.ld,
                    SV(b), b.ld, beta->s, SV(c), c.ld);
    return PS_SUCCESS;
}

ps_status ps__cpu_syrk(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, int n, int k,
                       const ps__scalar *alpha, ps__mat a, const ps__scalar *beta, ps__mat c) {
    (void)be;
    if (n <= 0) return PS_SUCCESS;
    if (dt == PS__DOUBLE)
        cblas_dsyrk(CblasColMajor, cb_uplo(uplo), cb_trans(trans), n, k, alpha->d, DV(a), a.ld,
                    beta->d, DV(c), c.ld);
    else
        cblas_ssyrk(CblasColMajor, cb_uplo(uplo), cb_trans(trans), n, k, alpha->s, SV(a), a.ld,
                    beta->s, SV(c), c.ld);
    return PS_SUCCESS;
}

ps_status ps__cpu_trsm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b) {
    (void)be;
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    if (dt == PS__DOUBLE)
        cblas_dtrsm(CblasColMajor, cb_side(side), cb_uplo(uplo), cb_trans(trans), cb_diag(diag), m,
                    n, alpha->d, DV(a), a.ld, DV(b), b.ld);
    else
        cblas_strsm(CblasColMajor, cb_side(side), cb_uplo(uplo), cb_trans(trans), cb_diag(diag), m,
                    n, alpha->s, SV(a), a.ld, SV(b), b.ld);
    return PS_SUCCESS;
}
