/*
 * Page-locked host memory for blocks uploaded and downloaded every step (core's host panels):
 * a buffer made with CL_MEM_ALLOC_HOST_PTR and mapped once. NVIDIA's OpenCL (like its CUDA)
 * moves pageable memory through a staging copy in the driver, and pinned memory by DMA at the
 * bus's rate; on CPU devices (POCL) it is plain memory. Where the driver refuses such a buffer,
 * the block is plain malloc memory, which every transfer still accepts.
 */
#include "cl_internal.h"

#include <stdlib.h>

struct ps_cl_host_block {
    void *ptr;
    cl_mem mem; /* NULL: ptr is malloc'd */
    struct ps_cl_host_block *next;
};

ps_status ps_cl_host_alloc(ps__backend *be, size_t bytes, void **ptr) {
    ps_cl_state *st = ps_cl(be);
    *ptr = NULL;
    if (bytes == 0) bytes = 1;
    struct ps_cl_host_block *b = calloc(1, sizeof *b);
    if (!b) return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "opencl: out of host memory");
    cl_int err;
    b->mem =
        clCreateBuffer(st->context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes, NULL, &err);
    if (err == CL_SUCCESS) {
        b->ptr = clEnqueueMapBuffer(st->queue, b->mem, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                    bytes, 0, NULL, NULL, &err);
        if (err != CL_SUCCESS) {
            clReleaseMemObject(b->mem);
            b->mem = NULL;
            b->ptr = NULL;
        }
    } else {
        b->mem = NULL;
    }
    if (!b->ptr) b->ptr = malloc(bytes); /* the driver would not pin it: plain memory */
    if (!b->ptr) {
        free(b);
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY,
                                "opencl: host transfer block of %zu bytes failed", bytes);
    }
    pthread_mutex_lock(&st->lock);
    b->next = st->host_blocks;
    st->host_blocks = b;
    pthread_mutex_unlock(&st->lock);
    *ptr = b->ptr;
    return PS_SUCCESS;
}

/* Unmaps and releases one block (core waits for the transfers that use a block first). */
static void release_block(ps_cl_state *st, struct ps_cl_host_block *b) {
    if (b->mem) {
        clEnqueueUnmapMemObject(st->queue, b->mem, b->ptr, 0, NULL, NULL);
        clReleaseMemObject(b->mem);
    } else {
        free(b->ptr);
    }
    free(b);
}

void ps_cl_host_free(ps__backend *be, void *ptr) {
    ps_cl_state *st = ps_cl(be);
    struct ps_cl_host_block *b = NULL;
    if (!ptr) return;
    pthread_mutex_lock(&st->lock);
    for (struct ps_cl_host_block **p = &st->host_blocks; *p; p = &(*p)->next)
        if ((*p)->ptr == ptr) {
            b = *p;
            *p = b->next;
            break;
        }
    pthread_mutex_unlock(&st->lock);
    if (b) release_block(st, b);
}

void ps_cl_release_host_blocks(ps_cl_state *st) {
    while (st->host_blocks) {
        struct ps_cl_host_block *b = st->host_blocks;
        st->host_blocks = b->next;
        release_block(st, b);
    }
}
