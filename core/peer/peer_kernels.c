/* The peer family's defaults (peer_kernels.h): no transport; the distributed layer then moves
 * device memory through the host. */
#include "peer/peer_kernels.h"

#include <stddef.h>

static const char *default_name(ps__backend *be) {
    (void)be;
    return NULL;
}

static ps_status none(ps__backend *be) {
    return ps__backend_fail(be, PS_ERR_NOT_SUPPORTED, "%s: no device-to-device transport",
                            be->ops->name);
}

static ps_status default_device_key(ps__backend *be, char *key, size_t size) {
    (void)key, (void)size;
    return none(be);
}

static ps_status default_group_id(ps__backend *be, void *id) {
    (void)id;
    return none(be);
}

static ps_status default_group_open(ps__backend *be, const void *id, int size, int rank,
                                    void **group) {
    (void)id, (void)size, (void)rank;
    *group = NULL;
    return none(be);
}

static void default_group_close(ps__backend *be, void *group) {
    (void)be, (void)group;
}

static ps_status default_bcast(ps__backend *be, void *group, ps__dtype dt, void *buf, size_t off,
                               size_t count, int root) {
    (void)group, (void)dt, (void)buf, (void)off, (void)count, (void)root;
    return none(be);
}

static const ps__peer_kernels defaults = {
    .header = {PS__PEER_KERNELS_ABI, sizeof(ps__peer_kernels)},
    .name = default_name,
    .device_key = default_device_key,
    .group_id = default_group_id,
    .group_open = default_group_open,
    .group_close = default_group_close,
    .bcast = default_bcast,
};

_Static_assert(offsetof(ps__peer_kernels, name) == sizeof(ps__family_header),
               "a family table is its header, then function pointers");

const ps__peer_kernels *ps__peer_kernels_defaults(void) {
    return &defaults;
}
