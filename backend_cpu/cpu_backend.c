/*
 * The CPU backend: buffers are host allocations, BLAS entries call CBLAS (OpenBLAS), laswp
 * calls OpenBLAS's LAPACK, and the custom kernels are the plain loops of cpu_kernels.c, which
 * are the test oracle for the other backends' kernels.
 */
#include "cpu_internal.h"
#include "../core/base/select.h"
#include "../core/base/size_rules.h"

#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cpu_model_name(char *out, size_t size) {
    snprintf(out, size, "host CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        const char *colon = strchr(line, ':');
        if (!colon) break;
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        snprintf(out, size, "%s", colon);
        out[strcspn(out, "\n")] = '\0';
        break;
    }
    fclose(f);
}

static ps_status cpu_open(ps__backend *be, const char *device_spec) {
    if (device_spec && strcmp(device_spec, "0") != 0)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                "PORTSOLVE_DEVICE='%s': the cpu backend has one device, 0",
                                device_spec);
    char model[192];
    cpu_model_name(model, sizeof model);
    snprintf(be->device_name, sizeof be->device_name, "%s (OpenBLAS, %d threads)", model,
             openblas_get_num_threads());
    be->has_double = 1;
    be->impl = NULL;
    return PS_SUCCESS;
}

static void cpu_close(ps__backend *be) {
    (void)be;
}

static ps_status cpu_sync(ps__backend *be) {
    (void)be;
    return PS_SUCCESS;
}

static ps_status cpu_alloc(ps__backend *be, size_t bytes, void **buf) {
    /* 64-byte alignment keeps vector loads aligned for the kernels and OpenBLAS. */
    size_t rounded = (bytes + 63) / 64 * 64;
    *buf = aligned_alloc(64, rounded ? rounded : 64);
    if (!*buf)
        return ps__backend_fail(be, PS_ERR_OUT_OF_MEMORY,
                                "cpu backend: allocation of %zu bytes failed", bytes);
    return PS_SUCCESS;
}

static void cpu_free(ps__backend *be, void *buf) {
    (void)be;
    free(buf);
}

/* Copies a rows x cols column-major block between two host arrays. */
static void copy_block(size_t es, int rows, int cols, const void *src, int lds, void *dst,
                       int ldd) {
    if (rows <= 0 || cols <= 0) return;
    if (lds == rows && ldd == rows) {
        memmove(dst, src, es * (size_t)rows * (size_t)cols);
        return;
    }
    for (int j = 0; j < cols; j++)
        memmove((char *)dst + es * (size_t)j * (size_t)ldd,
                (const char *)src + es * (size_t)j * (size_t)lds, es * (size_t)rows);
}

static ps_status cpu_upload(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host,
                            int ldh, ps__mat dst) {
    (void)be;
    size_t es = ps__dtype_size(dt);
    copy_block(es, rows, cols, host, ldh, (char *)dst.buf + es * dst.off, dst.ld);
    return PS_SUCCESS;
}

static ps_status cpu_download(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                              void *host, int ldh) {
    (void)be;
    size_t es = ps__dtype_size(dt);
    copy_block(es, rows, cols, (const char *)src.buf + es * src.off, src.ld, host, ldh);
    return PS_SUCCESS;
}

static ps_status cpu_copy2d(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                            ps__mat dst) {
    (void)be;
    size_t es = ps__dtype_size(dt);
    copy_block(es, rows, cols, (const char *)src.buf + es * src.off, src.ld,
               (char *)dst.buf + es * dst.off, dst.ld);
    return PS_SUCCESS;
}

static void *cpu_queue(ps__backend *be) {
    (void)be;
    return NULL;
}

/* Measured on the 2-core development machine (docs/PERFORMANCE.md): wide LU blocks keep the
 * trailing gemm's inner dimension large, the recursive panel keeps them cheap to factor; the
 * stripe kernel's plain loops favour short stripes. */
static const ps__size_rule cpu_sizes[] = {
    {PS__ALGO_LU, PS__ANY_DTYPE, 0, 128},
    {PS__ALGO_LU, PS__ANY_DTYPE, 1024, 256},
    {PS__ALGO_GJ, PS__ANY_DTYPE, 0, 128},
    {PS__ALGO_GJ_STRIPE, PS__ANY_DTYPE, 0, 64},
};

static int cpu_block_size(ps__backend *be, ps__algo algo, ps__dtype dt, int n) {
    (void)be;
    return ps__size_rule_find(cpu_sizes, sizeof cpu_sizes / sizeof cpu_sizes[0], algo, dt, n);
}

/* Host memory is this backend's memory: the drivers work in the caller's arrays directly. */
static ps_status cpu_host_alias(ps__backend *be, void *host, void **buf) {
    (void)be;
    *buf = host;
    return PS_SUCCESS;
}

static void cpu_list_devices(char *buf, size_t size) {
    char model[192];
    cpu_model_name(model, sizeof model);
    snprintf(buf, size, "0: %s (OpenBLAS, %d threads), double precision: yes\n", model,
             openblas_get_num_threads());
}

static const ps__backend_ops cpu_ops = {
    .abi_version = PS__BACKEND_ABI_VERSION,
    .struct_size = sizeof(ps__backend_ops),
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .sync = cpu_sync,
    .queue = cpu_queue,
    .alloc = cpu_alloc,
    .free = cpu_free,
    .upload = cpu_upload,
    .download = cpu_download,
    .copy2d = cpu_copy2d,
    .copy = ps__cpu_copy,
    .swap = ps__cpu_swap,
    .scal = ps__cpu_scal,
    .axpy = ps__cpu_axpy,
    .dot = ps__cpu_dot,
    .nrm2 = ps__cpu_nrm2,
    .iamax = ps__cpu_iamax,
    .gemv = ps__cpu_gemv,
    .ger = ps__cpu_ger,
    .trsv = ps__cpu_trsv,
    .gemm = ps__cpu_gemm,
    .syrk = ps__cpu_syrk,
    .trsm = ps__cpu_trsm,
    .fill = ps__cpu_fill,
    .read_elements = ps__cpu_read_elements,
    .laswp = ps__cpu_laswp,
    .block_size = cpu_block_size,
    .host_alias = cpu_host_alias,
    .list_devices = cpu_list_devices,
    .axpby = ps__cpu_axpby,
    .vmul = ps__cpu_vmul,
    .trmm = ps__cpu_trmm,
    .colswp = ps__cpu_colswp,
    .convert = ps__cpu_convert,
    .norm_inf = ps__cpu_norm_inf,
    .permute_rows = ps__cpu_permute_rows,
    .scatter_rows = ps__cpu_scatter_rows,
    .transpose = ps__cpu_transpose,
    .transpose_square = ps__cpu_transpose_square,
    .family = {[PS__FAMILY_LU] = &ps__cpu_lu_kernels.header,
               [PS__FAMILY_CHOL] = &ps__cpu_chol_kernels.header,
               [PS__FAMILY_WZ] = &ps__cpu_wz_kernels.header,
               [PS__FAMILY_GJ] = &ps__cpu_gj_kernels.header,
               [PS__FAMILY_REFINE] = &ps__cpu_refine_kernels.header},
};

const ps__backend_ops *ps__cpu_backend_ops(void) {
    return &cpu_ops;
}
