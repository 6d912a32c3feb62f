/*
 * The OpenCL backend: a runtime-loaded module (libportsolve_opencl.so). BLAS entries call
 * CLBlast; fills, laswp and the LU panel are OpenCL C kernels from kernels_cl/, embedded at
 * build time. Every OpenCL and CLBlast return code is checked.
 */
#include "cl_internal.h"
#include "../core/base/size_rules.h"

#include <CL/cl_ext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV /* cl_nv_device_attribute_query */
#define CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV 0x4000
#endif

const char *ps_cl_error_name(cl_int err) {
#define PS_CL_ERR(e)                                                                               \
    { e, #e }
    static const struct {
        cl_int code;
        const char *name;
    } names[] = {
        PS_CL_ERR(CL_DEVICE_NOT_FOUND),
        PS_CL_ERR(CL_DEVICE_NOT_AVAILABLE),
        PS_CL_ERR(CL_COMPILER_NOT_AVAILABLE),
        PS_CL_ERR(CL_MEM_OBJECT_ALLOCATION_FAILURE),
        PS_CL_ERR(CL_OUT_OF_RESOURCES),
        PS_CL_ERR(CL_OUT_OF_HOST_MEMORY),
        PS_CL_ERR(CL_BUILD_PROGRAM_FAILURE),
        PS_CL_ERR(CL_INVALID_VALUE),
        PS_CL_ERR(CL_INVALID_DEVICE),
        PS_CL_ERR(CL_INVALID_CONTEXT),
        PS_CL_ERR(CL_INVALID_COMMAND_QUEUE),
        PS_CL_ERR(CL_INVALID_MEM_OBJECT),
        PS_CL_ERR(CL_INVALID_BINARY),
        PS_CL_ERR(CL_INVALID_BUILD_OPTIONS),
        PS_CL_ERR(CL_INVALID_PROGRAM),
        PS_CL_ERR(CL_INVALID_KERNEL_NAME),
        PS_CL_ERR(CL_INVALID_KERNEL_ARGS),
        PS_CL_ERR(CL_INVALID_WORK_GROUP_SIZE),
        PS_CL_ERR(CL_INVALID_WORK_ITEM_SIZE),
        PS_CL_ERR(CL_INVALID_BUFFER_SIZE),
        PS_CL_ERR(CL_INVALID_OPERATION),
        PS_CL_ERR(CL_INVALID_ARG_VALUE),
        PS_CL_ERR(CL_INVALID_ARG_SIZE),
        PS_CL_ERR(CL_INVALID_GLOBAL_WORK_SIZE),
        PS_CL_ERR(CL_MISALIGNED_SUB_BUFFER_OFFSET),
        {-1024, "CLBlast: not implemented"},
        {-2046, "CLBlast: invalid local memory usage"},
        {-2047, "CLBlast: no half precision"},
        {-2048, "CLBlast: no double precision"},
    };
#undef PS_CL_ERR
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].code == err) return names[i].name;
    return err <= -1000 ? "CLBlast error (see clblast.h StatusCode)" : "OpenCL error";
}

ps_status ps_cl_fail(ps__backend *be, cl_int err, const char *what) {
    ps_status st = (err == CL_MEM_OBJECT_ALLOCATION_FAILURE || err == CL_OUT_OF_RESOURCES ||
                    err == CL_INVALID_BUFFER_SIZE)
                       ? PS_ERR_OUT_OF_MEMORY
                   : err == -2048 ? PS_ERR_NO_DOUBLE
                                  : PS_ERR_BACKEND;
    return ps__backend_fail(be, st, "opencl: %s failed: %s (%d) on %s", what, ps_cl_error_name(err),
                            (int)err, be->device_name);
}

/* The column-step LU leaf's work-group size and the rows from which it is used on GPUs. */
#define STEP_WG_GPU   128
#define STEP_ROWS_GPU 2048

/* Fills the device description and capabilities after the device is known. */
static ps_status finish_open(ps__backend *be, ps_cl_state *st) {
    char name[256] = "?", version[128] = "?", driver[128] = "?", platform[128] = "?";
    clGetDeviceInfo(st->device, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetDeviceInfo(st->device, CL_DEVICE_VERSION, sizeof version, version, NULL);
    clGetDeviceInfo(st->device, CL_DRIVER_VERSION, sizeof driver, driver, NULL);
    clGetPlatformInfo(st->platform, CL_PLATFORM_NAME, sizeof platform, platform, NULL);
    /* the description may be cut (a name of 256 bytes, say); the cache key below may not */
    snprintf(be->device_name, sizeof be->device_name, "%.120s (%.64s, %.60s)", name, platform,
             version);
    snprintf(st->device_key, sizeof st->device_key, "%s|%s|%s|%s", platform, name, version, driver);
    cl_device_fp_config fp64 = 0;
    clGetDeviceInfo(st->device, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
    be->has_double = fp64 != 0;
    size_t max_wg = 1;
    clGetDeviceInfo(st->device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof max_wg, &max_wg, NULL);
    /* The panel kernel runs as one work-group: as wide as the device allows on GPUs, a single
     * work-item on CPU devices. On a GPU its passes over the column are latency-bound, one load
     * per work-item in flight, so the widest work-group measured fastest (H100). POCL 3.1's pthread
     * device vectorizes a work-group across work-items and, in the column loops of this kernel,
     * issued unmasked gathers for work-items past the loop bound, reading outside the buffer
     * (segfaults with 16 and 256 work-items); one work-item is also what a CPU runs this sequential
     * kernel fastest with. */
    cl_device_type type = 0;
    clGetDeviceInfo(st->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    int wanted = (type & CL_DEVICE_TYPE_GPU) ? 1024 : 1;
    st->panel_wg = 1;
    while (st->panel_wg * 2 <= wanted && (size_t)st->panel_wg * 2 <= max_wg) st->panel_wg *= 2;
    /* Tall leaves take one launch per column over every compute unit instead (cl_lu_steps.c):
     * on GPUs from STEP_ROWS_GPU rows, a row per work-item; on CPU devices, where POCL's
     * work-group vectorization is avoided as above, one work-item per work-group and chunks of
     * 256 rows, from 512 rows, which also keeps both kernels under test there. */
    int gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    st->gpu = gpu;
    /* Host drivers up to these orders run on the CPU path (core/base/crossover.c; measured on an
     * H200 with NVIDIA's OpenCL, docs/PERFORMANCE.md). A CPU device is the host already. */
    be->host_crossover[PS__FLOAT] = gpu ? PS_CL_HOST_CROSSOVER_FLOAT : 0;
    be->host_crossover[PS__DOUBLE] = gpu ? PS_CL_HOST_CROSSOVER_DOUBLE : 0;
    st->nvidia = strstr(platform, "NVIDIA") != NULL;
    st->step_wg = 1;
    while (gpu && st->step_wg * 2 <= STEP_WG_GPU && (size_t)st->step_wg * 2 <= max_wg)
        st->step_wg *= 2;
    st->step_rows = ps__knob_or(be->tuning->cl_step_rows, gpu ? STEP_ROWS_GPU : 512);
    /* The steps of a leaf in one launch, its work-groups waiting on each other's published rows
     * (kernels_cl/lu_steps.cl), instead of a launch per column: by default where the fence that
     * needs is known (NVIDIA's PTX; CPU devices). */
    st->step_resident = ps__knob_or(be->tuning->cl_step_resident, st->nvidia || !gpu);
    st->own_gemm = ps__knob_or(be->tuning->cl_own_gemm, 1);
    st->own_gemv = ps__knob_or(be->tuning->cl_own_gemv, 1);
    /* 0 turns trsv_mixed off: refinement then widens the factors, the path of a backend
     * without the entry (tests) */
    st->trsv_mixed = ps__knob_or(be->tuning->cl_trsv_mixed, 1);
    /* NVIDIA's FP64 tensor cores through PTX (kernels_cl/gemm.cl) from compute capability 8.0,
     * its 16 x 8 x 4 shape from 9.0; cl_tensor_cores=0 keeps the portable kernel. */
    int tensor_cores = ps__knob_or(be->tuning->cl_tensor_cores, 1);
    char extensions[4096] = "";
    clGetDeviceInfo(st->device, CL_DEVICE_EXTENSIONS, sizeof extensions, extensions, NULL);
    cl_uint cc_major = 0;
    if (st->nvidia && tensor_cores && strstr(extensions, "cl_nv_device_attribute_query") &&
        clGetDeviceInfo(st->device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof cc_major,
                        &cc_major, NULL) == CL_SUCCESS)
        st->dmma = cc_major >= 9 ? 2 : cc_major >= 8 ? 1 : 0;
    /* That launch has a work-group per compute unit; cl_step_groups asks for more
     * (tests: more than can run side by side, so the poll has to turn some away). */
    cl_uint units = 1;
    clGetDeviceInfo(st->device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, NULL);
    st->compute_units = units < 1 ? 1 : units > 4096 ? 4096 : (int)units;
    int unit_groups =
        st->compute_units > PS_CL_STEP_GROUPS_MAX ? PS_CL_STEP_GROUPS_MAX : st->compute_units;
    st->step_parts = ps__knob_or(be->tuning->cl_step_groups, unit_groups);
    cl_int err;
    st->scratch = clCreateBuffer(st->context, CL_MEM_READ_WRITE, 64, NULL, &err);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (scratch)");
    st->iter_work = clCreateBuffer(st->context, CL_MEM_READ_WRITE, sizeof(double) * PS_CL_ITER_WORK,
                                   NULL, &err);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (cg_step work)");
    st->orth_part = clCreateBuffer(st->context, CL_MEM_READ_WRITE,
                                   sizeof(double) * PS_CL_ORTH_MAX_K * PS_CL_CG_GROUPS, NULL, &err);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateBuffer (orthonormalize work)");
    return ps_cl_open_transfers(be, st);
}

static void release_state(ps_cl_state *st) {
    if (!st) return;
    ps_cl_profile_close(st);
    ps_cl_release_fetches(st);
    ps_cl_release_transfers(st);
    ps_cl_release_host_blocks(st);
    ps_cl_release_programs(st);
    if (st->scratch) clReleaseMemObject(st->scratch);
    if (st->iter_work) clReleaseMemObject(st->iter_work);
    if (st->orth_part) clReleaseMemObject(st->orth_part);
    if (st->gemv_part) clReleaseMemObject(st->gemv_part);
    if (st->gemm_temp) clReleaseMemObject(st->gemm_temp);
    if (st->step_cand) clReleaseMemObject(st->step_cand);
    if (st->step_cand_row) clReleaseMemObject(st->step_cand_row);
    if (st->step_sync) clReleaseMemObject(st->step_sync);
    if (!st->borrowed) {
        if (st->queue) clReleaseCommandQueue(st->queue);
        if (st->context) clReleaseContext(st->context);
    }
    free(st);
}

/* Ends an open: on success so far, the rest of the set-up; the state becomes the backend's, or
 * is released on any failure. */
static ps_status adopt(ps__backend *be, ps_cl_state *st, ps_status s) {
    if (s == PS_SUCCESS) s = finish_open(be, st);
    if (s != PS_SUCCESS) {
        release_state(st);
        return s;
    }
    be->impl = st;
    return PS_SUCCESS;
}

static ps_status cl_open(ps__backend *be, const char *device_spec) {
    ps_cl_state *st = calloc(1, sizeof *st);
    if (!st) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
    ps_status s = ps_cl_select_device(be, device_spec, &st->platform, &st->device);
    cl_int err = CL_SUCCESS;
    if (s == PS_SUCCESS) {
        cl_context_properties props[] = {CL_CONTEXT_PLATFORM, (cl_context_properties)st->platform,
                                         0};
        st->context = clCreateContext(props, 1, &st->device, NULL, NULL, &err);
        if (err != CL_SUCCESS) s = ps_cl_fail(be, err, "clCreateContext");
    }
    if (s == PS_SUCCESS) {
        cl_command_queue_properties props =
            ps_cl_profile_open(be, st) ? CL_QUEUE_PROFILING_ENABLE : 0;
        st->queue = clCreateCommandQueue(st->context, st->device, props, &err);
        if (err != CL_SUCCESS) s = ps_cl_fail(be, err, "clCreateCommandQueue");
    }
    return adopt(be, st, s);
}

static ps_status cl_open_borrowed(ps__backend *be, void *native_context, void *native_queue) {
    if (!native_context || !native_queue)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                "opencl: the caller's cl_context and cl_command_queue are needed");
    ps_cl_state *st = calloc(1, sizeof *st);
    if (!st) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
    st->borrowed = 1;
    st->context = (cl_context)native_context;
    st->queue = (cl_command_queue)native_queue;
    cl_context queue_context = NULL;
    cl_command_queue_properties props = 0;
    cl_int err = clGetCommandQueueInfo(st->queue, CL_QUEUE_CONTEXT, sizeof queue_context,
                                       &queue_context, NULL);
    if (err == CL_SUCCESS)
        err = clGetCommandQueueInfo(st->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    if (err == CL_SUCCESS)
        err =
            clGetCommandQueueInfo(st->queue, CL_QUEUE_DEVICE, sizeof st->device, &st->device, NULL);
    if (err == CL_SUCCESS)
        err = clGetDeviceInfo(st->device, CL_DEVICE_PLATFORM, sizeof st->platform, &st->platform,
                              NULL);
    ps_status s = PS_SUCCESS;
    if (err != CL_SUCCESS)
        s = ps_cl_fail(be, err, "querying the caller's command queue");
    else if (queue_context != st->context)
        s = ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                             "opencl: the command queue does not belong to the given context");
    else if (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE)
        /* every algorithm orders its work by the queue: its steps carry no events */
        s = ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                             "opencl: the command queue is out-of-order; portsolve needs an "
                             "in-order queue (it orders its steps by the queue, not by events)");
    return adopt(be, st, s);
}

static void cl_close(ps__backend *be) {
    ps_cl_state *st = ps_cl(be);
    if (st && st->queue) clFinish(st->queue); /* the transfer queue finishes in its release */
    release_state(st);
    be->impl = NULL;
}

static ps_status cl_sync(ps__backend *be) {
    ps_cl_state *st = ps_cl(be);
    PS_CL_TRY(be, clFinish(st->transfers), "clFinish (transfers)");
    PS_CL_TRY(be, clFinish(st->queue), "clFinish");
    ps_cl_profile_flush(st);
    /* nothing uses the GEMM workspace now: give it back (it can be as large as the largest
     * product's operands) rather than hold it between the caller's calls */
    if (st->gemm_temp) clReleaseMemObject(st->gemm_temp);
    st->gemm_temp = NULL;
    st->gemm_temp_bytes = 0;
    return PS_SUCCESS;
}

static void *cl_queue(ps__backend *be) {
    return ps_cl(be)->queue;
}

static ps_status cl_alloc(ps__backend *be, size_t bytes, void **buf) {
    cl_int err;
    /* larger than the whole device: some drivers (NVIDIA's) accept the buffer and fail later */
    cl_ulong global = 0;
    if (clGetDeviceInfo(ps_cl(be)->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global,
                        NULL) == CL_SUCCESS &&
        global > 0 && bytes > global)
        return ps__backend_fail(be, PS_ERR_OUT_OF_MEMORY,
                                "opencl: a buffer of %zu bytes is larger than the %llu bytes of %s",
                                bytes, (unsigned long long)global, be->device_name);
    cl_mem m = clCreateBuffer(ps_cl(be)->context, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (err != CL_SUCCESS) {
        ps_status s = ps_cl_fail(be, err, "clCreateBuffer");
        return s == PS_ERR_BACKEND ? PS_ERR_OUT_OF_MEMORY : s;
    }
    *buf = m;
    return PS_SUCCESS;
}

/* OpenCL tells the device's size, not what is free. */
static ps_status cl_device_memory(ps__backend *be, size_t *free_bytes, size_t *total_bytes) {
    cl_ulong global = 0;
    cl_int err =
        clGetDeviceInfo(ps_cl(be)->device, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clGetDeviceInfo (global memory)");
    *free_bytes = *total_bytes = global > SIZE_MAX ? SIZE_MAX : (size_t)global;
    return PS_SUCCESS;
}

static void cl_free(ps__backend *be, void *buf) {
    (void)be;
    if (buf) clReleaseMemObject((cl_mem)buf);
}

/* A rectangle for all columns but the last and a contiguous copy for the last one, as the
 * transfers do (cl_transfer.c): NVIDIA's OpenCL rejects a rectangle whose last column lacks a
 * full pitch of buffer after its start, which a view ending near the end of its buffer (a row
 * of the last columns: permute_rows's default) runs into. */
static ps_status cl_copy2d(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                           ps__mat dst) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    cl_command_queue q = ps_cl(be)->queue;
    size_t es = ps__dtype_size(dt), so[3], dO[3], sp, dp;
    if (cols > 1) {
        size_t region[3] = {(size_t)rows * es, (size_t)cols - 1, 1};
        ps_cl_rect_of(src, es, so, &sp);
        ps_cl_rect_of(dst, es, dO, &dp);
        PS_CL_TRY(be,
                  clEnqueueCopyBufferRect(q, (cl_mem)src.buf, (cl_mem)dst.buf, so, dO, region, sp,
                                          0, dp, 0, 0, NULL, NULL),
                  "clEnqueueCopyBufferRect");
    }
    size_t last = (size_t)(cols - 1);
    PS_CL_TRY(be,
              clEnqueueCopyBuffer(
                  q, (cl_mem)src.buf, (cl_mem)dst.buf, (src.off + last * (size_t)src.ld) * es,
                  (dst.off + last * (size_t)dst.ld) * es, (size_t)rows * es, 0, NULL, NULL),
              "clEnqueueCopyBuffer");
    return PS_SUCCESS;
}

static ps_status cl_read_elements(ps__backend *be, ps__dtype dt, const void *buf, int count,
                                  const size_t *offsets, void *out) {
    size_t es = ps__dtype_size(dt);
    for (int i = 0; i < count; i++)
        PS_CL_TRY(be,
                  clEnqueueReadBuffer(ps_cl(be)->queue, (cl_mem)buf, CL_FALSE, offsets[i] * es, es,
                                      (char *)out + (size_t)i * es, 0, NULL, NULL),
                  "clEnqueueReadBuffer (read_elements)");
    PS_CL_TRY(be, clFinish(ps_cl(be)->queue), "clFinish (read_elements)");
    return PS_SUCCESS;
}

/* Block sizes and thresholds on GPUs (measured with NVIDIA's OpenCL on an H100 and an H200,
 * docs/PERFORMANCE.md) and on CPU devices, which keep the triangular solves. */
static const ps__size_rule cl_gpu_sizes[] = {
    {PS__ALGO_LU, PS__ANY_DTYPE, 0, 256},
    /* block rows by inverses (core/lu/lu.c, core/gj/gj.c), from this order */
    {PS__ALGO_LU_INVERSE, PS__ANY_DTYPE, 0, 8192},
    /* GMRES-IR's preconditioner by inverted diagonal blocks of this order
     * (core/refine/trsv_blocked.c), where trsv_mixed takes a launch per 64 rows */
    {PS__ALGO_TRSV_BLOCKED, PS__ANY_DTYPE, 8192, 2048},
};
static const ps__size_rule cl_cpu_sizes[] = {
    {PS__ALGO_LU, PS__ANY_DTYPE, 0, 256},
};

static int cl_block_size(ps__backend *be, ps__algo algo, ps__dtype dt, int n) {
    if (ps_cl(be)->gpu)
        return ps__size_rule_find(cl_gpu_sizes, sizeof cl_gpu_sizes / sizeof cl_gpu_sizes[0], algo,
                                  dt, n);
    return ps__size_rule_find(cl_cpu_sizes, sizeof cl_cpu_sizes / sizeof cl_cpu_sizes[0], algo, dt,
                              n);
}

static const ps__backend_ops cl_ops = {
    .abi_version = PS__BACKEND_ABI_VERSION,
    .struct_size = sizeof(ps__backend_ops),
    .name = "opencl",
    .open = cl_open,
    .close = cl_close,
    .sync = cl_sync,
    .queue = cl_queue,
    .alloc = cl_alloc,
    .free = cl_free,
    .upload = ps_cl_upload,
    .download = ps_cl_download,
    .copy2d = cl_copy2d,
    .copy = ps_cl_copy,
    .swap = ps_cl_swap,
    .scal = ps_cl_scal,
    .axpy = ps_cl_axpy,
    .dot = ps_cl_dot,
    .nrm2 = ps_cl_nrm2,
    .iamax = ps_cl_iamax,
    .gemv = ps_cl_gemv,
    .ger = ps_cl_ger,
    .trsv = ps_cl_trsv,
    .gemm = ps_cl_gemm,
    .syrk = ps_cl_syrk,
    .trsm = ps_cl_trsm,
    .trmm = ps_cl_trmm,
    .colswp = ps_cl_colswp,
    .transpose = ps_cl_transpose,
    .convert = ps_cl_convert,
    .norm_inf = ps_cl_norm_inf,
    .fetch_start = ps_cl_fetch_start,
    .fetch_wait = ps_cl_fetch_wait,
    .host_alloc = ps_cl_host_alloc,
    .host_free = ps_cl_host_free,
    .upload_async = ps_cl_upload_async,
    .download_async = ps_cl_download_async,
    .transfer_wait = ps_cl_transfer_wait,
    .transfer_order = ps_cl_transfer_order,
    .device_memory = cl_device_memory,
    .fill = ps_cl_fill,
    .read_elements = cl_read_elements,
    .laswp = ps_cl_laswp,
    .permute_rows = ps_cl_permute_rows,
    .scatter_rows = ps_cl_scatter_rows,
    .axpby = ps_cl_axpby,
    .vmul = ps_cl_vmul,
    .block_size = cl_block_size,
    .list_devices = ps_cl_list_devices,
    .open_borrowed = cl_open_borrowed,
    .family = {[PS__FAMILY_LU] = &ps_cl_lu_kernels.header,
               [PS__FAMILY_CHOL] = &ps_cl_chol_kernels.header,
               [PS__FAMILY_WZ] = &ps_cl_wz_kernels.header,
               [PS__FAMILY_GJ] = &ps_cl_gj_kernels.header,
               [PS__FAMILY_ITER] = &ps_cl_iter_kernels.header,
               [PS__FAMILY_REFINE] = &ps_cl_refine_kernels.header},
};

/* The module's one exported symbol. */
__attribute__((visibility("default"))) const ps__backend_ops *ps_backend_module_v1(void) {
    return &cl_ops;
}
