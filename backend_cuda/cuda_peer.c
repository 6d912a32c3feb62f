/* The CUDA backend's peer family: NCCL, loaded at run time (libnccl.so.2) so that the module
 * loads and works without it. The few declarations used are NCCL's stable C ABI; nothing else
 * of NCCL is needed at build time. */
#include "cuda_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

typedef int nccl_result; /* ncclResult_t: 0 is ncclSuccess */
typedef void *nccl_comm; /* ncclComm_t */
enum { nccl_uint8 = 1 }; /* ncclUint8 of ncclDataType_t */
typedef struct {
    char internal[PS__PEER_ID_BYTES];
} nccl_unique_id; /* ncclUniqueId */

static struct {
    nccl_result (*get_unique_id)(nccl_unique_id *id);
    nccl_result (*comm_init_rank)(nccl_comm *comm, int nranks, nccl_unique_id id, int rank);
    nccl_result (*comm_destroy)(nccl_comm comm);
    nccl_result (*broadcast)(const void *send, void *recv, size_t count, int type, int root,
                             nccl_comm comm, cudaStream_t stream);
    const char *(*error_string)(nccl_result r);
    int loaded;
} nccl;
static pthread_once_t nccl_once = PTHREAD_ONCE_INIT;

static void nccl_load(void) {
    void *h = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!h) return;
    *(void **)&nccl.get_unique_id = dlsym(h, "ncclGetUniqueId");
    *(void **)&nccl.comm_init_rank = dlsym(h, "ncclCommInitRank");
    *(void **)&nccl.comm_destroy = dlsym(h, "ncclCommDestroy");
    *(void **)&nccl.broadcast = dlsym(h, "ncclBroadcast");
    *(void **)&nccl.error_string = dlsym(h, "ncclGetErrorString");
    nccl.loaded = nccl.get_unique_id && nccl.comm_init_rank && nccl.comm_destroy &&
                  nccl.broadcast && nccl.error_string;
}

static int nccl_ready(void) {
    pthread_once(&nccl_once, nccl_load);
    return nccl.loaded;
}

static ps_status nccl_failed(ps__backend *be, nccl_result r, const char *what) {
    return ps__backend_fail(be, PS_ERR_BACKEND, "cuda: %s: %s", what, nccl.error_string(r));
}

static ps_status no_nccl(ps__backend *be) {
    return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED, "cuda: libnccl.so.2 does not load");
}

static const char *cuda_peer_name(ps__backend *be) {
    (void)be;
    return nccl_ready() ? "nccl" : NULL;
}

static ps_status cuda_device_key(ps__backend *be, char *key, size_t size) {
    PS_CUDA_TRY(be, cudaDeviceGetPCIBusId(key, (int)size, ps_cuda(be)->device),
                "cudaDeviceGetPCIBusId");
    return PS_SUCCESS;
}

static ps_status cuda_group_id(ps__backend *be, void *id) {
    if (!nccl_ready()) return no_nccl(be);
    nccl_unique_id u;
    nccl_result r = nccl.get_unique_id(&u);
    if (r) return nccl_failed(be, r, "ncclGetUniqueId");
    memcpy(id, &u, sizeof u);
    return PS_SUCCESS;
}

static ps_status cuda_group_open(ps__backend *be, const void *id, int size, int rank,
                                 void **group) {
    *group = NULL;
    if (!nccl_ready()) return no_nccl(be);
    PS_CUDA_TRY(be, cudaSetDevice(ps_cuda(be)->device), "cudaSetDevice");
    nccl_unique_id u;
    memcpy(&u, id, sizeof u);
    nccl_comm comm = NULL;
    nccl_result r = nccl.comm_init_rank(&comm, size, u, rank);
    if (r) return nccl_failed(be, r, "ncclCommInitRank");
    *group = comm;
    return PS_SUCCESS;
}

static void cuda_group_close(ps__backend *be, void *group) {
    (void)be;
    if (group && nccl_ready()) nccl.comm_destroy(group);
}

static ps_status cuda_peer_bcast(ps__backend *be, void *group, ps__dtype dt, void *buf, size_t off,
                                 size_t count, int root) {
    if (count == 0) return PS_SUCCESS;
    if (!nccl_ready()) return no_nccl(be);
    void *p = ps_cuda_ptr(dt, buf, off);
    nccl_result r = nccl.broadcast(p, p, count * ps__dtype_size(dt), nccl_uint8, root, group,
                                   ps_cuda(be)->cur_stream);
    if (r) return nccl_failed(be, r, "ncclBroadcast");
    return PS_SUCCESS;
}

const ps__peer_kernels ps_cuda_peer_kernels = {
    .header = {PS__PEER_KERNELS_ABI, sizeof(ps__peer_kernels)},
    .name = cuda_peer_name,
    .device_key = cuda_device_key,
    .group_id = cuda_group_id,
    .group_open = cuda_group_open,
    .group_close = cuda_group_close,
    .bcast = cuda_peer_bcast,
};
