/*
 * A kernel timeline for the OpenCL backend (CUPTI, which tools/trace uses on CUDA, does not see
 * NVIDIA's OpenCL). With cl_profile=<file> the backend's own queue is created with
 * profiling on, every kernel it launches and every CLBlast call gets an event, and at each
 * synchronize the events are appended to the file as tools/trace's CSV lines
 * (K,start ns,end ns,queue 0,0,0,name; scripts/trace_summary.py reads them). A CLBlast call that
 * runs several kernels reports its last one: on the in-order queue, the time from the previous
 * record's end to a record's end is what that call cost.
 */
#include "cl_internal.h"

#include <stdlib.h>

int ps_cl_profile_open(ps__backend *be, ps_cl_state *st) {
    const char *path = be->tuning->cl_profile;
    if (!path || !*path) return 0;
    st->profile = fopen(path, "a");
    return st->profile != NULL;
}

cl_event *ps_cl_event(ps__backend *be, const char *name) {
    ps_cl_state *st = ps_cl(be);
    if (!st->profile) return NULL;
    if (st->profile_count == st->profile_capacity) {
        int cap = st->profile_capacity ? 2 * st->profile_capacity : 4096;
        cl_event *events = realloc(st->profile_events, sizeof *events * (size_t)cap);
        if (!events) return NULL;
        st->profile_events = events;
        const char **names = realloc(st->profile_names, sizeof *names * (size_t)cap);
        if (!names) return NULL;
        st->profile_names = names;
        st->profile_capacity = cap;
    }
    st->profile_names[st->profile_count] = name;
    st->profile_events[st->profile_count] = NULL; /* stays NULL when the enqueue fails */
    return &st->profile_events[st->profile_count++];
}

void ps_cl_profile_flush(ps_cl_state *st) {
    if (!st->profile || st->profile_count == 0) return;
    clFinish(st->queue);
    for (int i = 0; i < st->profile_count; i++) {
        cl_event e = st->profile_events[i];
        if (!e) continue;
        cl_ulong start = 0, end = 0;
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof start, &start, NULL);
        clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof end, &end, NULL);
        fprintf(st->profile, "K,%llu,%llu,0,0,0,%s\n", (unsigned long long)start,
                (unsigned long long)end, st->profile_names[i]);
        clReleaseEvent(e);
    }
    st->profile_count = 0;
    fflush(st->profile);
}

void ps_cl_profile_close(ps_cl_state *st) {
    if (!st->profile) return;
    ps_cl_profile_flush(st);
    fclose(st->profile);
    st->profile = NULL;
    free(st->profile_events);
    free(st->profile_names);
}
