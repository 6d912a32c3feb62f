/* The peer family: collectives that move device memory directly between the devices of several
 * processes (NCCL between CUDA devices). The distributed layer (dist/) carries its exchanges on it
 * where every rank's backend has it and falls back to MPI through host memory where not. The
 * defaults (peer_kernels.c) say there is none. */
#ifndef PS_CORE_PEER_KERNELS_H
#define PS_CORE_PEER_KERNELS_H

#include "../backend.h"

#define PS__PEER_KERNELS_ABI 1
/* The largest group id (NCCL's unique id is 128 bytes). */
#define PS__PEER_ID_BYTES 128

typedef struct ps__peer_kernels {
    ps__family_header header; /* PS__PEER_KERNELS_ABI, sizeof(ps__peer_kernels) */
    /* The transport's name ("nccl"), or NULL where this context has none (not built in, or its
     * library does not load). */
    const char *(*name)(ps__backend *be);
    /* This context's device as the transport tells devices apart on one host (a PCI bus id): two
     * members of a group on one device is an error for the transport, so callers check first. */
    ps_status (*device_key)(ps__backend *be, char *key, size_t size);
    /* A new group's id, made by one member (PS__PEER_ID_BYTES bytes) and handed to the others by
     * the caller. */
    ps_status (*group_id)(ps__backend *be, void *id);
    /* Joins the group id as member rank of size; collective over the members. */
    ps_status (*group_open)(ps__backend *be, const void *id, int size, int rank, void **group);
    void (*group_close)(ps__backend *be, void *group);
    /* Broadcasts count elements of dt at element offset off of buf from member root to the same
     * place on every member, queued on the current lane (in order with the work queued there). */
    ps_status (*bcast)(ps__backend *be, void *group, ps__dtype dt, void *buf, size_t off,
                       size_t count, int root);
} ps__peer_kernels;

const ps__peer_kernels *ps__peer_kernels_defaults(void);
static inline const ps__peer_kernels *ps__peer(ps__backend *be) {
    return (const ps__peer_kernels *)ps__family(be, PS__FAMILY_PEER,
                                                &ps__peer_kernels_defaults()->header);
}

#endif
