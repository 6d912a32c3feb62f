/* Device buffers with host mirrors, shared by the vtable test programs: every entry is run on
 * the backend and compared, whole buffer at once, with naive loops on the mirror. */
#ifndef PS_TESTS_VTABLE_HARNESS_H
#define PS_TESTS_VTABLE_HARNESS_H

#include "checks.h"
#include "base/context.h"
#include "base/select.h"
#include "chol/chol_kernels.h"
#include "gj/gj_kernels.h"
#include "iter/iter_kernels.h"
#include "lu/lu_kernels.h"
#include "refine/refine_kernels.h"
#include "test_util.h"
#include "wz/wz_kernels.h"

/* The CPU backend's own table of kernel family fam (lu, chol, ...): the oracle. */
#define CPU_FAMILY(fam)                                                                            \
    ((const ps__##fam##_kernels *)ps__cpu_backend_ops()->family[test_family_##fam])
enum {
    test_family_lu = PS__FAMILY_LU,
    test_family_chol = PS__FAMILY_CHOL,
    test_family_wz = PS__FAMILY_WZ,
    test_family_gj = PS__FAMILY_GJ,
    test_family_refine = PS__FAMILY_REFINE
};
/* The table of family fam that the tests run: the portable defaults when defaults is nonzero,
 * else the backend's completed one. */
#define FAMILY(fam, defaults) ((defaults) ? ps__##fam##_kernels_defaults() : ps__##fam(be))

/* The backend under test and its context (set by main). */
extern ps__backend *be;
extern ps_context *ctx_under_test;

/* A device buffer and its host mirror, values held as double (rounded to the dtype). */
typedef struct {
    ps__dtype dt;
    int count;
    double *host;
    void *dev;
} tbuf;

/* A random view shape: offset 0..5, ld = rows + 0..3. */
typedef struct {
    int rows, cols, ld;
    size_t off;
} shape;
#define AT(b, s, i, j) ((b).host[(s).off + (size_t)(i) + (size_t)(j) * (size_t)(s).ld])

double round_to(ps__dtype dt, double v);
/* Uploads the mirror; a float buffer's mirror is rounded to float first, so it keeps what the
 * device holds. */
void upload_all(tbuf *b);
tbuf tb_random(ps__dtype dt, int count);
void tb_free(tbuf *b);
double *tb_download(const tbuf *b);
double eps_of(ps__dtype dt);
int expect_buffer(const char *what, const tbuf *b, const double *expected, const double *mag,
                  double tol);
double *copy_of(const tbuf *b);
shape random_shape(int rows, int cols);
/* The oracle's (op(A) op(B))(i, j) over inner dimension k from the host mirrors, in double;
 * *mag gets sum |op(A)(i,p) op(B)(p,j)|, the scale of its rounding error. */
double oracle_dot(const tbuf *a, shape sa, ps__trans ta, const tbuf *b, shape sb, ps__trans tb,
                  int i, int j, int k, double *mag);
int shape_count(shape s);
ps__mat view(const tbuf *b, shape s);
ps__vec vview(const tbuf *b, size_t off, int inc);
const char *dtname(ps__dtype dt);
tbuf int_buffer(int count, const int *values);
/* The host mirror in the buffer's own precision (malloc'd), for running the CPU oracle on it. */
void *tb_native_copy(const tbuf *b);
static inline double native_at(ps__dtype dt, const void *h, size_t e) {
    return dt == PS__DOUBLE ? ((const double *)h)[e] : (double)((const float *)h)[e];
}

/* For the factorization kernels' backward-error checks: whether ga (count elements) holds a0's
 * values everywhere outside the m x n view s; and P a0, the view's m x n elements of a0 (ld m,
 * malloc'd) with rows t and piv[t] interchanged for t = 0..steps-1 in that order, or NULL when
 * some piv[t] is not in [t, m). */
int outside_view_kept(shape s, int m, int n, const double *a0, const double *ga, int count);
double *rows_interchanged(shape s, int m, int n, const double *a0, const int *piv, int steps);

/* Column j of the matrix a panel's step k chose its pivot from, rebuilt in double from the
 * backend's own factors: r[i] = (P a0)(i, j) - sum_{p<k} L(i, p) U(p, j) for rows i >= k (pa:
 * P a0, ld m; ga: the factored buffer, view s, multipliers below the diagonal and U on and
 * above it), and mag[i] = |P a0(i, j)| + sum_{p<k} |L(i, p)||U(p, j)|, the scale of the rounding
 * by which the backend's own column differs. Rows below k are left as they are. */
void reduced_column(shape s, int m, const double *pa, const double *ga, int k, int j, double *r,
                    double *mag);
/* Whether metric[k] is the largest of metric[k .. m) up to the rounding a k-step elimination
 * leaves in it (slack: each value's scale): where two rows' metrics differ by rounding, a
 * backend may pick either, so its pivots are judged by this, not against the oracle's. */
int pivot_is_largest(ps__dtype dt, int m, int k, const double *metric, const double *slack);

/* The vtable tests' main: opens the backend of --backend (setting be), runs per_dtype for double
 * and then float, reports as name and returns the exit status (nonzero on a failure or when no
 * check ran). */
int vtable_main(int argc, char **argv, const char *name, void (*per_dtype)(ps__dtype dt));

#endif
