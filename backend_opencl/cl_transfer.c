/*
 * upload and download between host arrays and views, as blocking rectangle transfers on the
 * context's queue. Large transfers of pageable memory go to the driver as they are: NVIDIA's
 * OpenCL stages them itself, and faster than two page-locked blocks of ours did (about 5% on an
 * H100's host-level dgesv, whatever the block size). On CPU devices a staging copy is pure
 * overhead.
 * Memory from host_alloc (cl_host.c) is page-locked and moves by DMA; core's staging
 * (core/base/staging.c) queues such transfers without waiting (upload_async, download_async), one
 * event per slot, on a queue of their own, so that they run beside the work; transfer_order's
 * marks (markers, and barriers that wait for the other queue's marker) keep each queue behind
 * what it reads, as CUDA's transfer stream.
 */
#include "cl_internal.h"

void ps_cl_rect_of(ps__mat v, size_t es, size_t origin[3], size_t *pitch) {
    size_t ld = (size_t)(v.ld > 0 ? v.ld : 1);
    origin[0] = (v.off % ld) * es;
    origin[1] = v.off / ld;
    origin[2] = 0;
    *pitch = ld * es;
}

/* A transfer between a host array (leading dimension ldh) and a view: a rectangle for all
 * columns but the last, and a plain contiguous transfer for the last one. NVIDIA's OpenCL
 * rejects a rectangle whose last row (here: column) does not have a full pitch of buffer after
 * its start (stricter than the specification's bound), which a view ending near the end of its
 * buffer (the diagonal read as a 1 x n view with ld = lda + 1, a corner element) runs into.
 * done = NULL: blocking, on the context's queue; otherwise queued on the transfer queue, and *done
 * is the event of its last command (the queue is in order, so the last one ends after the
 * first). */
static ps_status transfer(ps__backend *be, int to_device, ps__dtype dt, int rows, int cols,
                          void *host, int ldh, ps__mat view, cl_event *done) {
    if (rows <= 0 || cols <= 0) return PS_SUCCESS;
    size_t es = ps__dtype_size(dt), origin[3], pitch;
    cl_command_queue q = done ? ps_cl(be)->transfers : ps_cl(be)->queue;
    cl_mem m = (cl_mem)view.buf;
    cl_bool blocking = done ? CL_FALSE : CL_TRUE;
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
    if (err == CL_SUCCESS) {
        size_t last = (size_t)(cols - 1);
        size_t offset = (view.off + last * (size_t)view.ld) * es, bytes = (size_t)rows * es;
        char *h = (char *)host + last * (size_t)ldh * es;
        err = to_device ? clEnqueueWriteBuffer(q, m, blocking, offset, bytes, h, 0, NULL, done)
                        : clEnqueueReadBuffer(q, m, blocking, offset, bytes, h, 0, NULL, done);
    }
    if (err != CL_SUCCESS) {
        /* a queued rectangle may still read or write host, which the caller frees or reuses */
        if (done && cols > 1) clFinish(q);
        return ps_cl_fail(be, err,
                          to_device ? "clEnqueueWrite (upload)" : "clEnqueueRead (download)");
    }
    return PS_SUCCESS;
}

ps_status ps_cl_upload(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host, int ldh,
                       ps__mat dst) {
    return transfer(be, 1, dt, rows, cols, (void *)host, ldh, dst, NULL);
}

ps_status ps_cl_download(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src, void *host,
                         int ldh) {
    return transfer(be, 0, dt, rows, cols, host, ldh, src, NULL);
}

ps_status ps_cl_transfer_wait(ps__backend *be, int slot) {
    ps_cl_state *st = ps_cl(be);
    if (slot < 0 || slot >= PS__TRANSFER_SLOTS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "opencl: transfer slot %d", slot);
    cl_event e = st->transferred[slot];
    if (!e) return PS_SUCCESS;
    st->transferred[slot] = NULL;
    cl_int err = clWaitForEvents(1, &e);
    clReleaseEvent(e);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clWaitForEvents (transfer)");
    return PS_SUCCESS;
}

/* Queues a transfer under slot, after the slot's previous one has been waited for. */
static ps_status transfer_async(ps__backend *be, int to_device, ps__dtype dt, int rows, int cols,
                                void *host, int ldh, ps__mat view, int slot) {
    PS__TRY(ps_cl_transfer_wait(be, slot));
    PS__TRY(
        transfer(be, to_device, dt, rows, cols, host, ldh, view, &ps_cl(be)->transferred[slot]));
    if (ps_cl(be)->transferred[slot]) clFlush(ps_cl(be)->transfers); /* start it now */
    return PS_SUCCESS;
}

ps_status ps_cl_upload_async(ps__backend *be, ps__dtype dt, int rows, int cols, const void *host,
                             int ldh, ps__mat dst, int slot) {
    return transfer_async(be, 1, dt, rows, cols, (void *)host, ldh, dst, slot);
}

ps_status ps_cl_download_async(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat src,
                               void *host, int ldh, int slot) {
    return transfer_async(be, 0, dt, rows, cols, host, ldh, src, slot);
}

/* A marker on one queue, or a barrier on one queue behind the other's marker. The queue that holds
 * a marker is flushed, so that a barrier on the other one never waits for a command not yet
 * submitted. A barrier holds its own reference to the marker it waits for: the other thread may
 * replace the mark meanwhile. */
ps_status ps_cl_transfer_order(ps__backend *be, ps__transfer_order order, int mark) {
    ps_cl_state *st = ps_cl(be);
    if (mark < 0 || mark >= PS__TRANSFER_MARKS)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "opencl: transfer mark %d", mark);
    cl_int err = CL_SUCCESS;
    cl_event ev = NULL;
    if (order == PS__ORDER_MARK_WORK || order == PS__ORDER_MARK_TRANSFERS) {
        cl_command_queue q = order == PS__ORDER_MARK_WORK ? st->queue : st->transfers;
        err = clEnqueueMarkerWithWaitList(q, 0, NULL, &ev);
        if (err == CL_SUCCESS) {
            pthread_mutex_lock(&st->lock);
            cl_event old = st->marks[mark];
            st->marks[mark] = ev;
            pthread_mutex_unlock(&st->lock);
            if (old) clReleaseEvent(old);
            err = clFlush(q);
        }
    } else {
        pthread_mutex_lock(&st->lock);
        if ((ev = st->marks[mark])) clRetainEvent(ev);
        pthread_mutex_unlock(&st->lock);
        if (ev) {
            cl_command_queue q = order == PS__ORDER_TRANSFERS_AFTER ? st->transfers : st->queue;
            err = clEnqueueBarrierWithWaitList(q, 1, &ev, NULL);
            clReleaseEvent(ev);
        }
    }
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "transfer order (marker or barrier)");
    return PS_SUCCESS;
}

ps_status ps_cl_open_transfers(ps__backend *be, ps_cl_state *st) {
    cl_int err;
    if (pthread_mutex_init(&st->lock, NULL) != 0)
        return ps__backend_fail(be, PS_ERR_OUT_OF_HOST_MEMORY, "opencl: a mutex for the marks");
    st->lock_ready = 1;
    st->transfers = clCreateCommandQueue(st->context, st->device, 0, &err);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateCommandQueue (transfers)");
    return PS_SUCCESS;
}

void ps_cl_release_transfers(ps_cl_state *st) {
    for (int i = 0; i < PS__TRANSFER_SLOTS; i++)
        if (st->transferred[i]) {
            clWaitForEvents(1, &st->transferred[i]);
            clReleaseEvent(st->transferred[i]);
            st->transferred[i] = NULL;
        }
    for (int i = 0; i < PS__TRANSFER_MARKS; i++)
        if (st->marks[i]) {
            clReleaseEvent(st->marks[i]);
            st->marks[i] = NULL;
        }
    if (st->lock_ready) pthread_mutex_destroy(&st->lock);
    st->lock_ready = 0;
    if (st->transfers) {
        clFinish(st->transfers);
        clReleaseCommandQueue(st->transfers);
        st->transfers = NULL;
    }
}
