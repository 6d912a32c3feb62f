/*
 * OpenCL programs: built on first use and cached in memory per (family, dtype) for this
 * backend's device, and on disk as device binaries keyed by a hash of the source, the build
 * options and the device/driver, so a second process starts without compiling (which takes
 * seconds on POCL). Cache folder: $PORTSOLVE_CACHE_DIR, else $XDG_CACHE_HOME/portsolve, else
 * ~/.cache/portsolve. What the disk cache accepts is cl_cache.c's to decide; a file it refuses
 * is rebuilt and replaced.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const char ps__cl_source_prelude[]; /* compiled ahead of every family's source */
extern const char ps__cl_source_memory[];
extern const char ps__cl_source_blas[];
extern const char ps__cl_source_lu[];
extern const char ps__cl_source_chol[];
extern const char ps__cl_source_wz[];
extern const char ps__cl_source_gj[];
extern const char ps__cl_source_ir[];
extern const char ps__cl_source_iter[];
extern const char ps__cl_source_lu_steps[];
extern const char ps__cl_source_gemm[];
extern const char ps__cl_source_trsm[];

static const char *family_source(ps_cl_family f) {
    static const char *const sources[PS_CL_FAMILIES] = {
        ps__cl_source_memory,   ps__cl_source_blas, ps__cl_source_lu,  ps__cl_source_chol,
        ps__cl_source_wz,       ps__cl_source_gj,   ps__cl_source_ir,  ps__cl_source_iter,
        ps__cl_source_lu_steps, ps__cl_source_gemm, ps__cl_source_trsm};
    return sources[f];
}
static const char *family_name(ps_cl_family f) {
    static const char *const names[PS_CL_FAMILIES] = {
        "memory", "blas", "lu", "chol", "wz", "gj", "ir", "iter", "lu_steps", "gemm", "trsm"};
    return names[f];
}

static uint64_t fnv1a(uint64_t h, const char *s) {
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull; /* separator, so "ab"+"c" differs from "a"+"bc" */
}

/* A cached binary for key, built for this device (cl_cache.c has checked the file first). */
static cl_program load_binary(ps_cl_state *st, const char *path, uint64_t key,
                              const char *options) {
    size_t len = 0;
    unsigned char *bin = ps_cl_cache_read(path, key, &len);
    if (!bin) return NULL;
    const unsigned char *bins[1] = {bin};
    cl_int err, status;
    cl_program p =
        clCreateProgramWithBinary(st->context, 1, &st->device, &len, bins, &status, &err);
    free(bin);
    if (err != CL_SUCCESS || status != CL_SUCCESS) return NULL;
    if (clBuildProgram(p, 1, &st->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static void save_binary(cl_program p, const char *path, uint64_t key) {
    size_t size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    if (!bin) return;
    unsigned char *bins[1] = {bin};
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        ps_cl_cache_write(path, key, bin, size);
    free(bin);
}

static ps_status build_program(ps__backend *be, ps_cl_family family, ps__dtype dt,
                               cl_program *out) {
    ps_cl_state *st = ps_cl(be);
    char options[256];
    char dmma[32] = "";
    if (st->dmma) snprintf(dmma, sizeof dmma, "-DPS_NV_DMMA=%d ", st->dmma);
    snprintf(options, sizeof options, "%s%s%s-DPS_WG=%d -DPS_STEP_WG=%d",
             dt == PS__DOUBLE ? "-DPS_DOUBLE " : "", st->nvidia ? "-DPS_NV_PTX " : "", dmma,
             st->panel_wg, st->step_wg);
    const char *src[2] = {ps__cl_source_prelude, family_source(family)};
    uint64_t h = fnv1a(fnv1a(0xcbf29ce484222325ull, src[0]), src[1]);
    h = fnv1a(fnv1a(h, options), st->device_key);
    char dir[4000], path[4100];
    int cached = ps_cl_cache_dir(dir, sizeof dir);
    if (cached) {
        snprintf(path, sizeof path, "%s/%s-%016llx.clbin", dir, family_name(family),
                 (unsigned long long)h);
        if ((*out = load_binary(st, path, h, options))) return PS_SUCCESS;
    }
    cl_int err;
    cl_program p = clCreateProgramWithSource(st->context, 2, src, NULL, &err);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateProgramWithSource");
    err = clBuildProgram(p, 1, &st->device, options, NULL, NULL);
    if (err != CL_SUCCESS) {
        char log[3000] = "";
        clGetProgramBuildInfo(p, st->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        clReleaseProgram(p);
        return ps__backend_fail(be, PS_ERR_BACKEND,
                                "opencl: building kernels_cl/%s.cl (%s) failed (%d) on %s:\n%s",
                                family_name(family), options, (int)err, be->device_name, log);
    }
    if (cached) save_binary(p, path, h);
    *out = p;
    return PS_SUCCESS;
}

ps_status ps_cl_kernel(ps__backend *be, ps_cl_family family, ps__dtype dt, const char *name,
                       cl_kernel *kernel) {
    ps_cl_state *st = ps_cl(be);
    if (dt == PS__DOUBLE && !be->has_double)
        return ps__backend_fail(be, PS_ERR_NO_DOUBLE, "opencl: %s has no double precision",
                                be->device_name);
    for (int i = 0; i < st->nkernels; i++)
        if (st->kernels[i].dt == dt && strcmp(st->kernels[i].name, name) == 0) {
            *kernel = st->kernels[i].kernel;
            return PS_SUCCESS;
        }
    cl_program *program = &st->programs[family][dt == PS__DOUBLE];
    if (!*program) PS__TRY(build_program(be, family, dt, program));
    cl_int err;
    cl_kernel k = clCreateKernel(*program, name, &err);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, name);
    if (st->nkernels == PS_CL_KERNEL_CACHE) { /* more kernels than the cache: should not happen */
        clReleaseKernel(k);
        return ps__backend_fail(be, PS_ERR_BACKEND, "opencl: kernel cache full at %s", name);
    }
    st->kernels[st->nkernels++] = (ps_cl_cached_kernel){name, dt, k};
    *kernel = k;
    return PS_SUCCESS;
}

void ps_cl_release_programs(ps_cl_state *st) {
    for (int i = 0; i < st->nkernels; i++) clReleaseKernel(st->kernels[i].kernel);
    st->nkernels = 0;
    for (int f = 0; f < PS_CL_FAMILIES; f++)
        for (int d = 0; d < 2; d++)
            if (st->programs[f][d]) clReleaseProgram(st->programs[f][d]);
    memset(st->programs, 0, sizeof st->programs);
}
