/*
 * upload and download between host arrays and views. Large transfers of ordinary (pageable)
 * host memory go through two page-locked staging blocks (cl_host.c), double-buffered: the host
 * copies one block's columns while the device reads or writes the other by DMA, as the CUDA
 * backend does. Small transfers, and host memory that is itself page-locked (host_alloc's), go
 * directly.
 */
#include "cl_internal.h"

#include <string.h>

/* Staging block size, and the transfer size from which staging pays for its extra copy. */
#define PS_CL_STAGE_BYTES ((size_t)4 << 20)
#define PS_CL_STAGE_MIN   ((size_t)1 << 20)

void ps_cl_rect_of(ps__mat v, size_t es, size_t origin[3], size_t *pitch) {
    size_t ld = (size_t)(v.ld > 0 ? v.ld : 1);
    origin[0] = (v.off % ld) * es;
    origin[1] = v.off / ld;
    origin[2] = 0;
    *pitch = ld * es;
}

/* Queues a transfer between a host array (leading dimension ldh) and a view: a rectangle for all
 * columns but the last, and a plain contiguous transfer for the last one, whose event (the
 * transfer's end, the queue being in-order) goes to *done when done is not NULL. NVIDIA's OpenCL
 * rejects a rectangle whose last row (here: column) does not have a full pitch of buffer after
 * its start (stricter than the specification's bound), which a view ending near the end of its
 * buffer (the diagonal read as a 1 x n view with ld = lda + 1, a corner element) runs into. */
static cl_int enqueue(cl_command_queue q, int to_device, size_t es, int rows, int cols, void *host,
                      int ldh, ps__mat view, cl_bool blocking, cl_event *done) {
    size_t origin[3], pitch;
    cl_mem m = (cl_mem)view.buf;
    cl_int err = CL_SUCCESS;
    if (cols > 1) {
        size_t host_origin[3] = {0, 0, 0}, region[3] = {(size_t)rows * es, (size_t)cols - 1, 1};
        ps_cl_rect_of(view, es, origin, &pitch);
        err = to_device
                  ? clEnqueueWriteBufferRect(q, m, blocking, origin, host_origin, region, pitch, 0,
                                             (size_t)ldh * es, 0, host, 0, NULL, NULL)
                  : clEnqueueReadBufferRect(q, m, blocking, origin, host_origin, region, pitch, 0,
                                            (size_t)ldh * es, 0, host, 0, NULL, NULL);
    }
    if (err != CL_SUCCESS) return err;
    size_t last = (size_t)(cols - 1);
    size_t offset = (view.off + last * (size_t)view.ld) * es, bytes = (size_t)rows * es;
    char *h = (char *)host + last * (size_t)ldh * es;
    return to_device ? clEnqueueWriteBuffer(q, m, blocking, offset, bytes, h, 0, NULL, done)
                     : clEnqueueReadBuffer(q, m, blocking, offset, bytes, h, 0, NULL, done);
}

cl_int ps_cl_settle(cl_event *ev) {
    if (!*ev) return CL_SUCCESS;
    cl_int err = clWaitForEvents(1, ev);
    clReleaseEvent(*ev);
    *ev = NULL;
    return err;
}

/* ps_cl_settle keeping the first error in *err. */
static void settle(cl_event *ev, cl_int *err) {
    cl_int e = ps_cl_settle(ev);
    if (*err == CL_SUCCESS) *err = e;
}

/* Column block i (cc columns of rows each) between the host array and staging block b. */
static void copy_block(char *stage, char *host, size_t colbytes, size_t ldh_bytes, int c0, int n,
                       int to_stage) {
    for (int j = 0; j < n; j++) {
        char *h = host + (size_t)(c0 + j) * ldh_bytes, *s = stage + (size_t)j * colbytes;
        if (to_stage)
            memcpy(s, h, colbytes);
        else
            memcpy(h, s, colbytes);
    }
}

static ps_status staged(ps__backend *be, int to_device, size_t es, int rows, int cols, char *host,
                        int ldh, ps__mat view) {
    ps_cl_state *st = ps_cl(be);
    size_t colbytes = (size_t)rows * es, ldh_bytes = (size_t)ldh * es;
    int cc = (int)(PS_CL_STAGE_BYTES / colbytes), blocks = (cols + cc - 1) / cc;
    cl_event ev[2] = {NULL, NULL};
    cl_int err = CL_SUCCESS;
    if (to_device) {
        for (int i = 0; i < blocks && err == CL_SUCCESS; i++) {
            int b = i % 2, c0 = i * cc, n = cols - c0 < cc ? cols - c0 : cc;
            settle(&ev[b], &err); /* the block's previous write has read it */
            if (err != CL_SUCCESS) break;
            copy_block(st->stage[b], host, colbytes, ldh_bytes, c0, n, 1);
            err = enqueue(st->queue, 1, es, rows, n, st->stage[b], rows, ps__mat_at(view, 0, c0),
                          CL_FALSE, &ev[b]);
        }
    } else {
        /* the read of block i + 1 is queued before block i is copied out */
        err = enqueue(st->queue, 0, es, rows, cols < cc ? cols : cc, st->stage[0], rows, view,
                      CL_FALSE, &ev[0]);
        for (int i = 0; i < blocks && err == CL_SUCCESS; i++) {
            int b = i % 2, c0 = i * cc, n = cols - c0 < cc ? cols - c0 : cc, c1 = c0 + cc;
            if (i + 1 < blocks)
                err =
                    enqueue(st->queue, 0, es, rows, cols - c1 < cc ? cols - c1 : cc,
                            st->stage[1 - b], rows, ps__mat_at(view, 0, c1), CL_FALSE, &ev[1 - b]);
            settle(&ev[b], &err);
            if (err == CL_SUCCESS) copy_block(st->stage[b], host, colbytes, ldh_bytes, c0, n, 0);
        }
    }
    settle(&ev[0], &err);
    settle(&ev[1], &err);
    if (err != CL_SUCCESS)
        return ps_cl_fail(be, err,
                          to_device ? "clEnqueueWrite (staged upload)"
                                    : "clEnqueueRead (staged "
                                      "download)");
    return PS_SUCCESS;
}

static ps_status transfer(ps__backend *be, int to_device, ps__dtype dt, int rows, int cols,
                          void *host, int ldh, ps__mat view) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    size_t es = ps__dtype_size(dt), colbytes = (size_t)rows * es;
    size_t span = ((size_t)(cols - 1) * (size_t)ldh + (size_t)rows) * es;
    ps_cl_state *st = ps_cl(be);
    if (colbytes * (size_t)cols >= PS_CL_STAGE_MIN && colbytes <= PS_CL_STAGE_BYTES &&
        !ps_cl_is_host_block(st, host, span)) {
        /* the staging blocks, made on first use; without them the transfer goes directly */
        for (int b = 0; b < 2; b++)
            if (!st->stage[b] && ps_cl_host_alloc(be, PS_CL_STAGE_BYTES, &st->stage[b])) break;
        if (st->stage[0] && st->stage[1])
            return staged(be, to_device, es, rows, cols, host, ldh, view);
    }
    cl_int err = enqueue(st->queue, to_device, es, rows, cols, host, ldh, view, CL_TRUE, NULL);
    if (err != CL_SUCCESS)
        return ps_cl_fail(be, err,
                          to_device ? "clEnqueueWrite (upload)" : "clEnqueueRead (download)");
    return PS_SUCCESS;
}

ps_status ps_cl_upload(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                       ps__mat dst) {
    return transfer(be, 1, dt, rows, cols, (void *)host, ldh, dst);
}

ps_status ps_cl_download(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src, void *host,
                         int ldh) {
    return transfer(be, 0, dt, rows, cols, host, ldh, src);
}
