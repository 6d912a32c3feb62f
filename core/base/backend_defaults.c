/*
 * Portable defaults for the optional base entries (backend.h), built only from the required
 * entries, and the completion of a backend's table. A new backend can start with the required
 * entries alone and replace these one by one with native code; tests run each default against
 * the CPU oracle, so they stay correct. The kernel families keep their defaults next to their
 * algorithms (core/lu/lu_kernels.c, ...).
 */
#include "backend.h"
#include "base/select.h"
#include "base/blas_defaults.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static ps_status default_fill(ps__backend *be, ps__dtype dt, int rows, int cols,
                              const ps__scalar *value, ps__mat a) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    size_t es = ps__dtype_size(dt);
    unsigned char *col = malloc((size_t)rows * es);
    if (!col) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "fill: out of host memory");
    for (int i = 0; i < rows; i++) memcpy(col + (size_t)i * es, value, es);
    ps_status st = PS_SUCCESS;
    for (int j = 0; j < cols && st == PS_SUCCESS; j++)
        st = be->ops->upload(be, dt, rows, 1, col, rows, ps__mat_at(a, 0, j));
    free(col);
    return st;
}

static ps_status default_read_elements(ps__backend *be, ps__dtype dt, const void *buf, int count,
                                       const size_t *offsets, void *out) {
    size_t es = ps__dtype_size(dt);
    for (int i = 0; i < count; i++) {
        ps__mat one = {(void *)buf, offsets[i], 1};
        PS__TRY(be->ops->download(be, dt, 1, 1, one, (unsigned char *)out + i * es, 1));
    }
    return PS_SUCCESS;
}

static ps_status default_laswp(ps__backend *be, ps__dtype dt, int ncols, ps__mat a, int k1, int k2,
                               const void *ipiv, size_t ipiv_off, int forward) {
    if (k2 <= k1 || ncols <= 0) return PS_SUCCESS;
    int count = k2 - k1;
    int32_t *piv = malloc((size_t)count * sizeof *piv);
    if (!piv) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "laswp: out of host memory");
    ps__mat pm = {(void *)ipiv, ipiv_off, count};
    ps_status st = be->ops->download(be, PS__INT32, count, 1, pm, piv, count);
    for (int t = 0; t < count && st == PS_SUCCESS; t++) {
        int k = forward ? k1 + t : k2 - 1 - t;
        int p = piv[k - k1];
        if (p != k) st = be->ops->swap(be, dt, ncols, ps__mat_row(a, k, 0), ps__mat_row(a, p, 0));
    }
    free(piv);
    return st;
}

/* One row copy per row, the indices read on the host: the gather (dst row i from src row
 * idx[i]) or the scatter (dst row idx[i] from src row i, where idx[i] >= 0). */
static ps_status rows_by_index(ps__backend *be, ps__dtype dt, int scatter, int rows, int cols,
                               const void *idx, size_t idx_off, ps__mat src, ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    int32_t *host = malloc((size_t)rows * sizeof *host);
    if (!host)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "%s: out of host memory",
                                scatter ? "scatter_rows" : "permute_rows");
    ps__mat im = {(void *)idx, idx_off, rows};
    ps_status st = be->ops->download(be, PS__INT32, rows, 1, im, host, rows);
    for (int i = 0; i < rows && st == PS_SUCCESS; i++)
        if (!scatter)
            st = be->ops->copy2d(be, dt, 1, cols, ps__mat_at(src, host[i], 0),
                                 ps__mat_at(dst, i, 0));
        else if (host[i] >= 0)
            st = be->ops->copy2d(be, dt, 1, cols, ps__mat_at(src, i, 0),
                                 ps__mat_at(dst, host[i], 0));
    free(host);
    return st;
}

static ps_status default_permute_rows(ps__backend *be, ps__dtype dt, int rows, int cols,
                                      const void *perm, size_t perm_off, ps__mat src, ps__mat dst) {
    return rows_by_index(be, dt, 0, rows, cols, perm, perm_off, src, dst);
}

static ps_status default_scatter_rows(ps__backend *be, ps__dtype dt, int rows, int cols,
                                      const void *idx, size_t idx_off, ps__mat src, ps__mat dst) {
    return rows_by_index(be, dt, 1, rows, cols, idx, idx_off, src, dst);
}

static ps_status default_axpby(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha,
                               ps__vec x, const ps__scalar *beta, ps__vec y) {
    PS__TRY(be->ops->scal(be, dt, n, beta, y));
    return be->ops->axpy(be, dt, n, alpha, x, y);
}

/* Through the host: the vectors are read and y written back once. */
static ps_status default_vmul(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    double *hx = malloc(2 * (size_t)n * sizeof *hx), *hy = hx + n;
    if (!hx) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "vmul: out of host memory");
    /* A strided vector is a 1 x n matrix with leading dimension inc. */
    ps__mat xm = {x.buf, x.off, x.inc}, ym = {y.buf, y.off, y.inc};
    ps_status st = be->ops->download(be, dt, 1, n, xm, hx, 1);
    if (!st) st = be->ops->download(be, dt, 1, n, ym, hy, 1);
    if (!st) {
        if (dt == PS__DOUBLE)
            for (int i = 0; i < n; i++) hy[i] *= hx[i];
        else
            for (int i = 0; i < n; i++) ((float *)hy)[i] *= ((const float *)hx)[i];
        st = be->ops->upload(be, dt, 1, n, hy, 1, ym);
    }
    free(hx);
    return st;
}

static int default_block_size(ps__backend *be, ps__algo algo, ps__dtype dt, int n) {
    (void)be, (void)algo, (void)dt, (void)n;
    return 0;
}

static ps_status default_host_alias(ps__backend *be, void *host, void **buf) {
    (void)be, (void)host;
    *buf = NULL;
    return PS_ERR_NOT_SUPPORTED;
}

static void default_list_devices(char *buf, size_t size) {
    snprintf(buf, size, "0: default\n");
}

static ps_status default_open_borrowed(ps__backend *be, void *native_context, void *native_queue) {
    (void)native_context, (void)native_queue;
    return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED,
                            "this backend cannot run on a caller's context or queue");
}

static int default_lanes(ps__backend *be) {
    (void)be;
    return 1;
}

static ps_status default_use_lane(ps__backend *be, int lane) {
    (void)be, (void)lane;
    return PS_SUCCESS;
}

static ps_status default_lane_wait(ps__backend *be, int waiter, int signaller) {
    (void)be, (void)waiter, (void)signaller;
    return PS_SUCCESS;
}

static ps_status default_lanes_split(ps__backend *be, ps__algo algo, ps__dtype dt, int n,
                                     int *split) {
    (void)be, (void)algo, (void)dt, (void)n;
    *split = 0;
    return PS_SUCCESS;
}

static ps_status default_host_alloc(ps__backend *be, size_t bytes, void **ptr) {
    *ptr = malloc(bytes ? bytes : 1);
    if (!*ptr)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY,
                                "host allocation of %zu bytes failed", bytes);
    return PS_SUCCESS;
}

static void default_host_free(ps__backend *be, void *ptr) {
    (void)be;
    free(ptr);
}

static ps_status default_upload_async(ps__backend *be, ps__dtype dt, int rows, int cols,
                                      const void *host, int ldh, ps__mat dst, int slot) {
    (void)slot;
    return be->ops->upload(be, dt, rows, cols, host, ldh, dst);
}

static ps_status default_download_async(ps__backend *be, ps__dtype dt, int rows, int cols,
                                        ps__mat src, void *host, int ldh, int slot) {
    (void)slot;
    return be->ops->download(be, dt, rows, cols, src, host, ldh);
}

static ps_status default_transfer_wait(ps__backend *be, int slot) {
    (void)be, (void)slot;
    return PS_SUCCESS;
}

/* Transfers in order with the work: nothing to order. */
static ps_status default_transfer_order(ps__backend *be, ps__transfer_order order, int mark) {
    (void)be, (void)order, (void)mark;
    return PS_SUCCESS;
}

static ps_status default_device_memory(ps__backend *be, size_t *free_bytes, size_t *total_bytes) {
    (void)be, (void)free_bytes, (void)total_bytes;
    return PS_ERR_NOT_SUPPORTED;
}

/* Refused: the caller transposes by strips through its work buffer (ps__transpose_in_place). */
static ps_status default_transpose_square(ps__backend *be, ps__dtype dt, int n, ps__mat a) {
    (void)dt, (void)n, (void)a;
    return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED, "transpose_square: not offered");
}

static ps_status default_copy_triangle(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n,
                                       ps__mat src, ps__mat dst) {
    for (int j = 0; j < n; j++) {
        int i0 = uplo == PS__LOWER ? j : 0, rows = uplo == PS__LOWER ? n - j : j + 1;
        PS__TRY(be->ops->copy2d(be, dt, rows, 1, ps__mat_at(src, i0, j), ps__mat_at(dst, i0, j)));
    }
    return PS_SUCCESS;
}

static ps_status default_lanes_join(ps__backend *be) {
    (void)be;
    return PS_SUCCESS;
}

static void default_activate(ps__backend *be) {
    (void)be;
}

static void *default_queue(ps__backend *be) {
    (void)be;
    return NULL;
}

static ps_status default_release_cached(ps__backend *be) {
    (void)be;
    return PS_SUCCESS;
}

static const ps__backend_ops defaults = {
    .abi_version = PS__BACKEND_ABI_VERSION,
    .struct_size = sizeof(ps__backend_ops),
    .name = "defaults",
    .queue = default_queue,
    .fill = default_fill,
    .read_elements = default_read_elements,
    .laswp = default_laswp,
    .block_size = default_block_size,
    .host_alias = default_host_alias,
    .list_devices = default_list_devices,
    .open_borrowed = default_open_borrowed,
    .lanes = default_lanes,
    .use_lane = default_use_lane,
    .lane_wait = default_lane_wait,
    .axpby = default_axpby,
    .vmul = default_vmul,
    .trmm = ps__default_trmm,
    .colswp = ps__default_colswp,
    .convert = ps__default_convert,
    .norm_inf = ps__default_norm_inf,
    .fetch_start = ps__default_fetch_start,
    .fetch_wait = ps__default_fetch_wait,
    .set_float_compute = ps__default_set_float_compute,
    .lanes_split = default_lanes_split,
    .lanes_join = default_lanes_join,
    .activate = default_activate,
    .host_alloc = default_host_alloc,
    .host_free = default_host_free,
    .transpose = ps__default_transpose,
    .permute_rows = default_permute_rows,
    .scatter_rows = default_scatter_rows,
    .transpose_square = default_transpose_square,
    .copy_triangle = default_copy_triangle,
    .upload_async = default_upload_async,
    .download_async = default_download_async,
    .transfer_wait = default_transfer_wait,
    .transfer_order = default_transfer_order,
    .device_memory = default_device_memory,
    .release_cached = default_release_cached,
};

const ps__backend_ops *ps__backend_defaults(void) {
    return &defaults;
}

/* The entries by offset, so that checking and defaulting are loops over tables. */
typedef void (*ps__fnptr)(void);
typedef struct {
    size_t offset;
    const char *name;
} entry_info;
#define PS__ENTRY(e)                                                                               \
    { offsetof(ps__backend_ops, e), #e }
static const entry_info required[] = {
    PS__ENTRY(open),   PS__ENTRY(close),    PS__ENTRY(sync),   PS__ENTRY(alloc), PS__ENTRY(free),
    PS__ENTRY(upload), PS__ENTRY(download), PS__ENTRY(copy2d), PS__ENTRY(copy),  PS__ENTRY(swap),
    PS__ENTRY(scal),   PS__ENTRY(axpy),     PS__ENTRY(dot),    PS__ENTRY(nrm2),  PS__ENTRY(iamax),
    PS__ENTRY(gemv),   PS__ENTRY(ger),      PS__ENTRY(trsv),   PS__ENTRY(gemm),  PS__ENTRY(syrk),
    PS__ENTRY(trsm),
};
static const entry_info optional[] = {
    PS__ENTRY(queue),         PS__ENTRY(fill),
    PS__ENTRY(read_elements), PS__ENTRY(laswp),
    PS__ENTRY(block_size),    PS__ENTRY(host_alias),
    PS__ENTRY(list_devices),  PS__ENTRY(open_borrowed),
    PS__ENTRY(lanes),         PS__ENTRY(use_lane),
    PS__ENTRY(lane_wait),     PS__ENTRY(axpby),
    PS__ENTRY(vmul),          PS__ENTRY(trmm),
    PS__ENTRY(colswp),        PS__ENTRY(convert),
    PS__ENTRY(norm_inf),      PS__ENTRY(set_float_compute),
    PS__ENTRY(lanes_split),   PS__ENTRY(lanes_join),
    PS__ENTRY(host_alloc),    PS__ENTRY(host_free),
    PS__ENTRY(transpose),     PS__ENTRY(permute_rows),
    PS__ENTRY(scatter_rows),  PS__ENTRY(transpose_square),
    PS__ENTRY(fetch_start),   PS__ENTRY(fetch_wait),
    PS__ENTRY(upload_async),  PS__ENTRY(download_async),
    PS__ENTRY(transfer_wait), PS__ENTRY(transfer_order),
    PS__ENTRY(device_memory), PS__ENTRY(activate),
    PS__ENTRY(copy_triangle), PS__ENTRY(release_cached),
};
#undef PS__ENTRY

static int entry_at(const ps__backend_ops *ops, size_t offset) {
    ps__fnptr fn;
    memcpy(&fn, (const char *)ops + offset, sizeof fn);
    return fn != NULL;
}

ps_status ps__backend_ops_complete(ps__backend_ops *dst, const ps__backend_ops *src, char *msg,
                                   size_t msg_size) {
    memset(dst, 0, sizeof *dst);
    if (!src) {
        snprintf(msg, msg_size, "the backend module returned no table");
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    size_t required_end = offsetof(ps__backend_ops, queue);
    if (src->abi_version != PS__BACKEND_ABI_VERSION || src->struct_size < required_end) {
        snprintf(msg, msg_size,
                 "the %s backend was built for vtable ABI %d (size %zu); this library has ABI %d",
                 src->name ? src->name : "unnamed", src->abi_version, src->struct_size,
                 PS__BACKEND_ABI_VERSION);
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    memcpy(dst, src, src->struct_size < sizeof *dst ? src->struct_size : sizeof *dst);
    dst->struct_size = sizeof *dst;

    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++) {
        if (entry_at(dst, required[i].offset)) continue;
        snprintf(msg, msg_size, "the %s backend lacks the required vtable entry '%s'",
                 src->name ? src->name : "unnamed", required[i].name);
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    if (!dst->name) {
        snprintf(msg, msg_size, "a backend module's table has no name");
        return PS_ERR_BACKEND_UNAVAILABLE;
    }
    for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
        if (!entry_at(dst, optional[i].offset))
            memcpy((char *)dst + optional[i].offset, (const char *)&defaults + optional[i].offset,
                   sizeof(ps__fnptr));
    return PS_SUCCESS;
}
