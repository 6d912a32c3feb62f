/* OpenCL device enumeration: a flat index over all platforms' devices, or "platform:device". */
#include "cl_internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES   64

typedef struct {
    cl_platform_id platform;
    cl_device_id device;
    int platform_index, device_index;
} device_entry;

/* Contexts created at once in several threads enumerate one after another: the ICD loader
 * reads its vendor files on the first call, and ocl-icd 2.3.1 (Debian 12's) does so without
 * a lock: a thread calling during another's first call found no platform at all (test_threads
 * on POCL: 3 of 4 contexts failed). */
static pthread_mutex_t enumerate_lock = PTHREAD_MUTEX_INITIALIZER;

/* Every device of every platform, in platform order. Returns the count. */
static int enumerate_locked(device_entry *out, int max) {
    cl_platform_id platforms[MAX_PLATFORMS];
    cl_uint np = 0;
    if (clGetPlatformIDs(MAX_PLATFORMS, platforms, &np) != CL_SUCCESS) return 0;
    int count = 0;
    for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
        cl_device_id devices[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, devices, &nd) !=
            CL_SUCCESS)
            continue;
        for (cl_uint d = 0; d < nd && d < MAX_DEVICES && count < max; d++)
            out[count++] = (device_entry){platforms[p], devices[d], (int)p, (int)d};
    }
    return count;
}

static int enumerate(device_entry *out, int max) {
    pthread_mutex_lock(&enumerate_lock);
    int count = enumerate_locked(out, max);
    pthread_mutex_unlock(&enumerate_lock);
    return count;
}

static int has_fp64(cl_device_id d) {
    cl_device_fp_config cfg = 0;
    clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof cfg, &cfg, NULL);
    return cfg != 0;
}

static int is_gpu(cl_device_id d) {
    cl_device_type t = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, NULL);
    return (t & CL_DEVICE_TYPE_GPU) != 0;
}

static void describe(const device_entry *e, int flat, char *buf, size_t size) {
    char name[256] = "?", platform[256] = "?";
    clGetDeviceInfo(e->device, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetPlatformInfo(e->platform, CL_PLATFORM_NAME, sizeof platform, platform, NULL);
    snprintf(buf, size, "%d (%d:%d): %s [%s, %s], double precision: %s", flat, e->platform_index,
             e->device_index, name, platform, is_gpu(e->device) ? "GPU" : "not a GPU",
             has_fp64(e->device) ? "yes" : "no");
}

void ps_cl_list_devices(char *buf, size_t size) {
    device_entry all[MAX_DEVICES];
    int n = enumerate(all, MAX_DEVICES);
    buf[0] = '\0';
    if (n == 0) {
        snprintf(buf, size, "no OpenCL platform or device found\n");
        return;
    }
    for (int i = 0; i < n; i++) {
        size_t used = strlen(buf);
        if (used + 2 >= size) break;
        describe(&all[i], i, buf + used, size - used - 1);
        strcat(buf, "\n");
    }
}

ps_status ps_cl_select_device(ps__backend *be, const char *spec, cl_platform_id *platform,
                              cl_device_id *device) {
    device_entry all[MAX_DEVICES];
    int n = enumerate(all, MAX_DEVICES);
    if (n == 0)
        return ps__backend_fail(be, PS_ERR_BACKEND_UNAVAILABLE,
                                "opencl: no OpenCL platform or device found (is an ICD, such as "
                                "pocl-opencl-icd or the NVIDIA driver, installed?)");
    int pick = -1;
    if (!spec || strcmp(spec, "gpu") == 0) {
        /* The first GPU; without a spec any device will do, with "gpu" (auto) only a GPU. */
        for (int i = 0; i < n && pick < 0; i++)
            if (is_gpu(all[i].device)) pick = i;
        if (pick < 0 && !spec) pick = 0;
        if (pick < 0)
            return ps__backend_fail(be, PS_ERR_BACKEND_UNAVAILABLE,
                                    "opencl: no OpenCL GPU among the %d device(s)", n);
    } else {
        char *end;
        long a = strtol(spec, &end, 10);
        if (end != spec && *end == ':') {
            char *end2;
            long b = strtol(end + 1, &end2, 10);
            for (int i = 0; i < n && *end2 == '\0'; i++)
                if (all[i].platform_index == a && all[i].device_index == b) pick = i;
        } else if (end != spec && *end == '\0' && a >= 0 && a < n) {
            pick = (int)a;
        }
        if (pick < 0) {
            char list[2048];
            ps_cl_list_devices(list, sizeof list);
            return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT,
                                    "PORTSOLVE_DEVICE='%s' names no OpenCL device (give a flat "
                                    "index or platform:device); the devices are:\n%s",
                                    spec, list);
        }
    }
    *platform = all[pick].platform;
    *device = all[pick].device;
    return PS_SUCCESS;
}
