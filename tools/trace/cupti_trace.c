/*
 * A kernel and copy timeline for any CUDA program, for finding where a factorization's time
 * goes when the two lanes overlap (a timer around calls serializes them; this does not).
 *
 *   TRACE_OUT=trace.csv LD_PRELOAD=build/tools/trace/libportsolve_trace.so <program> ...
 *   python3 scripts/trace_summary.py trace.csv
 *
 * Under mpirun (Open MPI's OMPI_COMM_WORLD_RANK or PMI_RANK set) each rank writes
 * TRACE_OUT.RANK: pass LD_PRELOAD and TRACE_OUT to the ranks with -x.
 *
 * Through CUPTI's activity API it records every kernel, copy and memset with its device start
 * and end times and its stream, one CSV line each: kind (K, M, S), start ns, end ns, stream,
 * grid blocks or bytes, threads per block or copy kind, name. With TRACE_API=1 also every CUDA
 * runtime call on the host (R, start ns, end ns, 0, callback id, 0, name), on the same clock:
 * where the host, not the device, sets the pace (a launch issued late after a wait). Needs
 * libcupti (the CUDA toolkit's) beside the program at run time; the timings it gives matched
 * untraced runs within noise (docs/PERFORMANCE.md).
 */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

#define TRACE_BUFFER_BYTES (8u << 20)

static FILE *trace_out;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = aligned_alloc(8, TRACE_BUFFER_BYTES);
    *size = *buffer ? TRACE_BUFFER_BYTES : 0;
    *max_records = 0;
}

static void write_record(const CUpti_Activity *rec) {
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        fprintf(trace_out, "K,%llu,%llu,%u,%u,%u,%s\n", (unsigned long long)k->start,
                (unsigned long long)k->end, k->streamId, k->gridX * k->gridY * k->gridZ,
                k->blockX * k->blockY * k->blockZ, k->name);
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        fprintf(trace_out, "M,%llu,%llu,%u,%llu,%u,copy\n", (unsigned long long)m->start,
                (unsigned long long)m->end, m->streamId, (unsigned long long)m->bytes,
                (unsigned)m->copyKind);
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME) {
        const CUpti_ActivityAPI *a = (const CUpti_ActivityAPI *)rec;
        const char *name = NULL;
        if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid, &name) != CUPTI_SUCCESS)
            name = NULL;
        fprintf(trace_out, "R,%llu,%llu,0,%u,0,%s\n", (unsigned long long)a->start,
                (unsigned long long)a->end, (unsigned)a->cbid, name ? name : "runtime");
    } else if (rec->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        fprintf(trace_out, "S,%llu,%llu,%u,%llu,0,memset\n", (unsigned long long)m->start,
                (unsigned long long)m->end, m->streamId, (unsigned long long)m->bytes);
    }
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid) {
    (void)ctx, (void)stream, (void)size;
    CUpti_Activity *rec = NULL;
    while (trace_out && cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS)
        write_record(rec);
    free(buffer);
}

static void trace_finish(void) {
    cuptiActivityFlushAll(1);
    if (trace_out) fclose(trace_out);
    trace_out = NULL;
}

/* Runs when the library is preloaded, before the program touches CUDA. */
__attribute__((constructor)) static void trace_start(void) {
    const char *path = getenv("TRACE_OUT"), *rank = getenv("OMPI_COMM_WORLD_RANK");
    char ranked[4096];
    if (!path) path = "trace.csv";
    if (!rank) rank = getenv("PMI_RANK");
    if (rank) { /* under mpirun each rank writes its own file, PATH.RANK */
        snprintf(ranked, sizeof ranked, "%s.%s", path, rank);
        path = ranked;
    }
    trace_out = fopen(path, "w");
    if (!trace_out) {
        perror("portsolve trace: TRACE_OUT");
        return;
    }
    if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS) {
        fprintf(stderr, "portsolve trace: CUPTI activity tracing could not be enabled\n");
        fclose(trace_out);
        trace_out = NULL;
        return;
    }
    const char *api = getenv("TRACE_API");
    if (api && api[0] == '1' && cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS)
        fprintf(stderr, "portsolve trace: CUPTI runtime API records could not be enabled\n");
    atexit(trace_finish);
}
