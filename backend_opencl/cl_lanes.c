/*
 * Look-ahead lanes for the OpenCL backend (core/lookahead.c): a second in-order queue on the
 * same device. use_lane points the backend's current queue at a lane; lane_wait orders one
 * lane behind everything queued on the other (a marker there, a barrier waiting for it here).
 * Each lane keeps its own CLBlast GEMM workspace, so products queued on both at once do not
 * share one. With PORTSOLVE_CL_LANES=1 (or on a caller's borrowed queue) there is one lane.
 * Lane 0 is the context's own queue, where transfers and everything outside look-ahead go.
 */
#include "cl_internal.h"

ps_status ps_cl_lanes_open(ps__backend *be, ps_cl_state *st) {
    st->lane_queue[0] = st->queue;
    st->nlanes = 1;
    int wanted;
    PS__TRY(ps__backend_int_knob(be, "opencl", "PORTSOLVE_CL_LANES", 1, 2, 2, &wanted));
    PS__TRY(ps__backend_int_knob(be, "opencl", "PORTSOLVE_CL_GEMM_CHUNK", 0, 1 << 30, 0,
                                 &st->gemm_chunk));
    if (wanted < 2 || st->borrowed) return PS_SUCCESS;
    cl_command_queue_properties props = 0;
    clGetCommandQueueInfo(st->queue, CL_QUEUE_PROPERTIES, sizeof props, &props, NULL);
    cl_int err;
    st->lane_queue[1] = clCreateCommandQueue(st->context, st->device, props, &err);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clCreateCommandQueue (lane 1)");
    st->nlanes = 2;
    return PS_SUCCESS;
}

void ps_cl_lanes_release(ps_cl_state *st) {
    if (st->lane_queue[1]) clReleaseCommandQueue(st->lane_queue[1]);
    st->lane_queue[1] = NULL;
    if (st->lane_queue[0]) st->queue = st->lane_queue[0]; /* the queue the state owns */
}

ps_status ps_cl_lanes_finish(ps__backend *be) {
    ps_cl_state *st = ps_cl(be);
    if (st->lane_queue[1]) PS_CL_TRY(be, clFinish(st->lane_queue[1]), "clFinish (lane 1)");
    return PS_SUCCESS;
}

int ps_cl_lanes(ps__backend *be) {
    return ps_cl(be)->nlanes;
}

ps_status ps_cl_use_lane(ps__backend *be, int lane) {
    ps_cl_state *st = ps_cl(be);
    if (lane < 0 || lane >= st->nlanes)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "opencl: no lane %d (%d lanes)", lane,
                                st->nlanes);
    st->lane = lane;
    st->queue = st->lane_queue[lane];
    return PS_SUCCESS;
}

ps_status ps_cl_lane_wait(ps__backend *be, int waiter, int signaller) {
    ps_cl_state *st = ps_cl(be);
    if (waiter == signaller || st->nlanes < 2) return PS_SUCCESS;
    if (waiter < 0 || waiter >= st->nlanes || signaller < 0 || signaller >= st->nlanes)
        return ps__backend_fail(be, PS_ERR_INVALID_ARGUMENT, "opencl: no lanes %d, %d", waiter,
                                signaller);
    cl_event marker;
    PS_CL_TRY(be, clEnqueueMarkerWithWaitList(st->lane_queue[signaller], 0, NULL, &marker),
              "clEnqueueMarkerWithWaitList");
    cl_int err = clEnqueueBarrierWithWaitList(st->lane_queue[waiter], 1, &marker, NULL);
    clReleaseEvent(marker);
    if (err != CL_SUCCESS) return ps_cl_fail(be, err, "clEnqueueBarrierWithWaitList");
    /* NVIDIA's driver batches commands per queue: without a flush the marker may not reach the
     * device before the barrier that waits for it */
    PS_CL_TRY(be, clFlush(st->lane_queue[signaller]), "clFlush");
    return PS_SUCCESS;
}
