/* Device buffers with host mirrors for the vtable tests (see vtable_harness.h). */
#include "vtable_harness.h"

#include <float.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

ps__backend *be;
ps_context *ctx_under_test;

double round_to(ps__dtype dt, double v) {
    return dt == PS__DOUBLE ? v : (double)(float)v;
}

void upload_all(tbuf *b) {
    size_t es = ps__dtype_size(b->dt);
    unsigned char *tmp = malloc((size_t)b->count * es);
    for (int i = 0; i < b->count; i++) {
        if (b->dt == PS__DOUBLE)
            ((double *)tmp)[i] = b->host[i];
        else if (b->dt == PS__FLOAT) /* the mirror keeps what the device holds */
            ((float *)tmp)[i] = (float)(b->host[i] = round_to(PS__FLOAT, b->host[i]));
        else
            ((int32_t *)tmp)[i] = (int32_t)b->host[i];
    }
    ps__mat v = {b->dev, 0, b->count};
    ps_status st = be->ops->upload(be, b->dt, b->count, 1, tmp, b->count, v);
    CHECK(st == PS_SUCCESS, "upload: %s", be->err);
    free(tmp);
}

tbuf tb_random(ps__dtype dt, int count) {
    tbuf b = {dt, count, malloc(sizeof(double) * (size_t)count), NULL};
    for (int i = 0; i < count; i++) b.host[i] = round_to(dt, ps_test_rand());
    ps_status st = be->ops->alloc(be, (size_t)count * ps__dtype_size(dt), &b.dev);
    CHECK(st == PS_SUCCESS, "alloc: %s", be->err);
    upload_all(&b);
    return b;
}

void tb_free(tbuf *b) {
    be->ops->free(be, b->dev);
    free(b->host);
}

double *tb_download(const tbuf *b) {
    size_t es = ps__dtype_size(b->dt);
    unsigned char *tmp = malloc((size_t)b->count * es);
    double *out = malloc(sizeof(double) * (size_t)b->count);
    ps__mat v = {b->dev, 0, b->count};
    ps_status st = be->ops->download(be, b->dt, b->count, 1, v, tmp, b->count);
    CHECK(st == PS_SUCCESS, "download: %s", be->err);
    for (int i = 0; i < b->count; i++)
        out[i] = b->dt == PS__DOUBLE  ? ((double *)tmp)[i]
                 : b->dt == PS__FLOAT ? ((float *)tmp)[i]
                                      : ((int32_t *)tmp)[i];
    free(tmp);
    return out;
}

double eps_of(ps__dtype dt) {
    return ps_test_eps((ps_dtype)dt);
}

/* Compares the whole device buffer with expected[], allowing |diff| <= tol * eps * mag[i]
 * (mag NULL or mag[i] == 0: exact). Returns 1 when all match. */
int expect_buffer(const char *what, const tbuf *b, const double *expected, const double *mag,
                  double tol) {
    double *got = tb_download(b);
    int ok = 1;
    for (int i = 0; i < b->count && ok; i++) {
        double allowed = mag ? tol * eps_of(b->dt) * mag[i] : 0;
        double diff = fabs(got[i] - expected[i]);
        if (!(diff <= allowed)) {
            CHECK(0, "%s (%s): element %d is %.17g, expected %.17g (allowed %g)", what,
                  b->dt == PS__DOUBLE ? "double" : "float", i, got[i], expected[i], allowed);
            ok = 0;
        }
    }
    if (ok) CHECK(1, "%s", what);
    free(got);
    return ok;
}

double *copy_of(const tbuf *b) {
    double *c = malloc(sizeof(double) * (size_t)b->count);
    memcpy(c, b->host, sizeof(double) * (size_t)b->count);
    return c;
}

shape random_shape(int rows, int cols) {
    shape s = {rows, cols, rows + ps_test_rand_int(4), (size_t)ps_test_rand_int(6)};
    if (s.ld < 1) s.ld = 1;
    return s;
}
double oracle_dot(const tbuf *a, shape sa, ps__trans ta, const tbuf *b, shape sb, ps__trans tb,
                  int i, int j, int k, double *mag) {
    double sum = 0, m = 0;
    for (int p = 0; p < k; p++) {
        double x = ta == PS__NOTRANS ? AT(*a, sa, i, p) : AT(*a, sa, p, i);
        double y = tb == PS__NOTRANS ? AT(*b, sb, p, j) : AT(*b, sb, j, p);
        sum += x * y;
        m += fabs(x * y);
    }
    *mag = m;
    return sum;
}

int shape_count(shape s) {
    return (int)s.off + s.ld * (s.cols > 0 ? s.cols : 1) + 1;
}
ps__mat view(const tbuf *b, shape s) {
    ps__mat m = {b->dev, s.off, s.ld};
    return m;
}
ps__vec vview(const tbuf *b, size_t off, int inc) {
    ps__vec v = {b->dev, off, inc};
    return v;
}

const char *dtname(ps__dtype dt) {
    return dt == PS__DOUBLE ? "d" : "s";
}

tbuf int_buffer(int count, const int *values) {
    tbuf b = {PS__INT32, count, malloc(sizeof(double) * (size_t)count), NULL};
    for (int i = 0; i < count; i++) b.host[i] = values[i];
    CHECK(be->ops->alloc(be, (size_t)count * 4, &b.dev) == 0, "alloc int");
    upload_all(&b);
    return b;
}

void *tb_native_copy(const tbuf *b) {
    void *h = malloc(ps__dtype_size(b->dt) * (size_t)b->count);
    for (int e = 0; e < b->count; e++)
        if (b->dt == PS__DOUBLE)
            ((double *)h)[e] = b->host[e];
        else
            ((float *)h)[e] = (float)b->host[e];
    return h;
}

int outside_view_kept(shape s, int m, int n, const double *a0, const double *ga, int count) {
    for (int e = 0; e < count; e++) {
        int in = e >= (int)s.off && (e - (int)s.off) % s.ld < m && (e - (int)s.off) / s.ld < n;
        if (!in && a0[e] != ga[e]) return 0;
    }
    return 1;
}

double *rows_interchanged(shape s, int m, int n, const double *a0, const int *piv, int steps) {
    double *pa = malloc(sizeof(double) * (size_t)m * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++)
            pa[i + (size_t)j * m] = a0[s.off + (size_t)i + (size_t)j * (size_t)s.ld];
    for (int t = 0; t < steps; t++) {
        if (piv[t] < t || piv[t] >= m) {
            free(pa);
            return NULL;
        }
        for (int j = 0; j < n; j++) {
            double v = pa[t + (size_t)j * m];
            pa[t + (size_t)j * m] = pa[piv[t] + (size_t)j * m];
            pa[piv[t] + (size_t)j * m] = v;
        }
    }
    return pa;
}

void reduced_column(shape s, int m, const double *pa, const double *ga, int k, int j, double *r,
                    double *mag) {
#define G(i, c) ga[s.off + (size_t)(i) + (size_t)(c) * (size_t)s.ld]
    for (int i = k; i < m; i++) {
        double v = pa[i + (size_t)j * m], a = fabs(v);
        for (int p = 0; p < k; p++) {
            v -= G(i, p) * G(p, j);
            a += fabs(G(i, p) * G(p, j));
        }
        r[i] = v;
        mag[i] = a;
    }
#undef G
}

int pivot_is_largest(ps__dtype dt, int m, int k, const double *metric, const double *slack) {
    int best = k;
    for (int i = k + 1; i < m; i++)
        if (metric[i] > metric[best]) best = i;
    double allowed = 4.0 * (k + 2) * eps_of(dt) * (slack[k] + slack[best]) + DBL_MIN;
    return metric[k] >= metric[best] - allowed;
}

int vtable_main(int argc, char **argv, const char *name, void (*per_dtype)(ps__dtype dt)) {
    ps_test_init(argc, argv);
    ps_context *ctx = ps_test_context(0);
    be = &ctx->be;
    ctx_under_test = ctx;
    per_dtype(PS__DOUBLE);
    per_dtype(PS__FLOAT);
    int rc = ps_test_finish(name);
    ps_context_destroy(ctx);
    be = NULL;
    ctx_under_test = NULL;
    return rc;
}
