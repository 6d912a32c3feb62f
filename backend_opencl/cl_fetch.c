/*
 * Reading device values a step late (fetch_start / fetch_wait, core/backend.h): fetch_start
 * queues a non-blocking read of the values into page-locked host memory right behind the step
 * that wrote them, and fetch_wait waits for that read only. The default reads in fetch_wait,
 * behind whatever the host queued since (the next step, on the in-order queue), so the host
 * waited for step t + 1 before it could queue step t + 2 and the device idled meanwhile.
 */
#include "cl_internal.h"

#include <string.h>

/* Waits for *ev (when set), releases it and clears it. */
static cl_int settle(cl_event *ev) {
    if (!*ev) return CL_SUCCESS;
    cl_int err = clWaitForEvents(1, ev);
    clReleaseEvent(*ev);
    *ev = NULL;
    return err;
}

/* The slot's host block holds at least bytes (a larger one replaces it; none is pending). */
static ps_status reserve(ps__backend *be, ps_cl_fetch *f, size_t bytes) {
    if (f->capacity >= bytes) return PS_SUCCESS;
    if (f->host) ps_cl_host_free(be, f->host);
    f->host = NULL;
    f->capacity = 0;
    size_t want = bytes < 256 ? 256 : bytes;
    PS__TRY(ps_cl_host_alloc(be, want, &f->host));
    f->capacity = want;
    return PS_SUCCESS;
}

ps_status ps_cl_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src) {
    ps_cl_fetch *f = &ps_cl(be)->fetch[slot];
    size_t es = ps__dtype_size(dt), bytes = (size_t)(count > 0 ? count : 0) * es;
    PS_CL_TRY(be, settle(&f->pending), "clWaitForEvents (an earlier fetch)");
    f->src = NULL;
    if (bytes == 0) return PS_SUCCESS;
    PS__TRY(reserve(be, f, bytes));
    PS_CL_TRY(be,
              clEnqueueReadBuffer(ps_cl(be)->queue, (cl_mem)src.buf, CL_FALSE, src.off * es, bytes,
                                  f->host, 0, NULL, &f->pending),
              "clEnqueueReadBuffer (fetch_start)");
    f->src = src.buf, f->off = src.off, f->bytes = bytes;
    return PS_SUCCESS;
}

ps_status ps_cl_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                           void *host) {
    ps_cl_fetch *f = &ps_cl(be)->fetch[slot];
    size_t es = ps__dtype_size(dt), bytes = (size_t)(count > 0 ? count : 0) * es;
    int started = f->src == src.buf && f->off == src.off && f->bytes == bytes && f->pending;
    PS_CL_TRY(be, settle(&f->pending), "clWaitForEvents (fetch_wait)");
    if (started) {
        f->src = NULL;
        memcpy(host, f->host, bytes);
        return PS_SUCCESS;
    }
    f->src = NULL;
    if (bytes == 0) return PS_SUCCESS;
    ps__mat m = {src.buf, src.off, count}; /* no fetch_start for it: read it now */
    return be->ops->download(be, dt, count, 1, m, host, count);
}

void ps_cl_release_fetches(ps_cl_state *st) {
    for (int s = 0; s < PS__FETCH_SLOTS; s++) {
        settle(&st->fetch[s].pending); /* its host block goes with the others */
        st->fetch[s] = (ps_cl_fetch){0};
    }
}
