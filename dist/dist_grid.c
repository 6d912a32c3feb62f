/* The process grid, the block-cyclic index arithmetic and the agreement on a status. */
#include "dist.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ps_numroc(int n, int nb, int iproc, int isrcproc, int nprocs) {
    if (n <= 0 || nb <= 0 || nprocs <= 0) return 0;
    int dist = (nprocs + iproc - isrcproc) % nprocs;
    int blocks = n / nb, count = blocks / nprocs * nb, extra = blocks % nprocs;
    if (dist < extra) return count + nb;
    if (dist == extra) return count + n % nb;
    return count;
}

int ps__cyclic_below(const ps__cyclic *d, int g, int p) {
    return ps_numroc(g, d->nb, p, d->src, d->np);
}
int ps__cyclic_owner(const ps__cyclic *d, int g) {
    return (d->src + g / d->nb) % d->np;
}
int ps__cyclic_local(const ps__cyclic *d, int g) {
    return g / (d->nb * d->np) * d->nb + g % d->nb;
}
int ps__cyclic_global(const ps__cyclic *d, int l, int p) {
    return (l / d->nb * d->np + (p - d->src + d->np) % d->np) * d->nb + l % d->nb;
}

ps_status ps__dist_fail(ps_grid *g, ps_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->last_error, sizeof g->last_error, fmt, ap);
    va_end(ap);
    return st;
}

ps_status ps__dist_failed(ps_grid *g, ps_status st) {
    if (st == PS_SUCCESS) return st;
    return ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
}

ps_status ps__dist_agree(ps_grid *g, ps_status st) {
    int size, mine = st != PS_SUCCESS ? g->rank : g->nprow * g->npcol, first;
    MPI_Comm_size(g->all, &size);
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, g->all);
    if (first >= size) return PS_SUCCESS;
    int code = (int)st;
    MPI_Bcast(&code, 1, MPI_INT, first, g->all);
    MPI_Bcast(&g->last_info, 1, MPI_INT, first, g->all);
    MPI_Bcast(g->last_error, (int)sizeof g->last_error, MPI_CHAR, first, g->all);
    g->last_error[sizeof g->last_error - 1] = '\0';
    return (ps_status)code;
}

void ps__dist_note(ps__dist_steps *s, ps_status st) {
    if (st != PS_SUCCESS && s->st == PS_SUCCESS)
        s->st =
            ps__dist_fail(s->g, st, "rank %d: %s", s->g->rank, ps_context_last_error(s->g->ctx));
}

void ps__dist_keep(ps__dist_steps *s, ps_status st) {
    if (s->st == PS_SUCCESS) s->st = st;
}

ps_status ps__dist_first_info(ps__dist_steps *s, void *info, int *first) {
    ps__backend *be = &s->g->ctx->be;
    int32_t mine = 0;
    if (s->st == PS_SUCCESS)
        ps__dist_note(s, be->ops->download(be, PS__INT32, 1, 1, (ps__mat){info, 0, 1}, &mine, 1));
    ps_status st = ps__dist_agree(s->g, s->st);
    if (st != PS_SUCCESS) return st;
    int v = mine > 0 ? mine : INT_MAX, least;
    MPI_Allreduce(&v, &least, 1, MPI_INT, MPI_MIN, s->g->all);
    if (least != INT_MAX && !*first) *first = least;
    return PS_SUCCESS;
}

void ps__dist_use_lane(ps__dist_steps *s, int lane) {
    ps__backend *be = &s->g->ctx->be;
    if (s->lanes > 1) ps__dist_note(s, be->ops->use_lane(be, lane)), s->lane = lane;
}

void ps__dist_lane_wait(ps__dist_steps *s, int waiter, int signaller) {
    ps__backend *be = &s->g->ctx->be;
    if (s->lanes > 1) ps__dist_note(s, be->ops->lane_wait(be, waiter, signaller));
}

void ps__dist_steps_done(ps__dist_steps *s, int k) {
    if (s->done && s->st == PS_SUCCESS) s->done(s->done_arg, k);
}

void ps__dist_lanes_join(ps__dist_steps *s) {
    ps__backend *be = &s->g->ctx->be;
    ps__dist_lane_wait(s, 0, 1);
    ps__dist_lane_wait(s, 1, 0);
    ps__dist_use_lane(s, 0);
    if (s->lanes > 1) ps__dist_note(s, be->ops->lanes_join(be)); /* also after a failure */
}

void ps__dist_catch_up(ps__dist_steps *s, void *w, int f, int nb, int c0, int c1,
                       void (*send)(void *w, int k), void (*use)(void *w, int k, int c0, int c1)) {
    ps__dist_use_lane(s, 1);
    if (send && f > 0) send(w, 0);
    for (int k = 0; k < f; k += nb) {
        s->st = ps__dist_agree(s->g, s->st);
        if (s->st != PS_SUCCESS) break;
        ps__dist_lane_wait(s, 0, 1); /* panel k has arrived */
        ps__dist_lane_wait(s, 1, 0); /* panel k - 1's buffer is free again */
        if (send && k + nb < f) {
            ps__dist_use_lane(s, 1);
            send(w, k + nb);
        }
        ps__dist_use_lane(s, 0);
        use(w, k, c0, c1);
    }
    ps__dist_lanes_join(s);
}

void ps__dist_bcast_bytes(void *buf, size_t bytes, int root, MPI_Comm comm) {
    const size_t piece = (size_t)1 << 30;
    for (size_t at = 0; at < bytes; at += piece)
        MPI_Bcast((char *)buf + at, (int)(bytes - at < piece ? bytes - at : piece), MPI_BYTE, root,
                  comm);
}

ps_status ps__dist_reserve_stage(ps_grid *g, size_t bytes) {
    if (bytes > g->stage_piece) bytes = g->stage_piece;
    if (bytes > g->stage_asked) g->stage_asked = bytes;
    if (ps__dist_peers(g)) return PS_SUCCESS; /* the exchanges go device to device */
    if (bytes <= g->stage.bytes) return PS_SUCCESS;
    ps__transfer_free(g->ctx, g->stage.p); /* what it held is not needed again */
    g->stage.p = NULL, g->stage.bytes = 0;
    ps_status st = ps__transfer_alloc(g->ctx, bytes, &g->stage.p);
    if (st != PS_SUCCESS)
        return ps__dist_fail(g, st, "rank %d: %s", g->rank, ps_context_last_error(g->ctx));
    g->stage.bytes = bytes;
    return PS_SUCCESS;
}

ps_status ps__dist_scratch(ps_grid *g, int slot, size_t bytes, void **buf) {
    if (g->scratch[slot] && g->scratch_bytes[slot] >= bytes) {
        *buf = g->scratch[slot];
        return PS_SUCCESS;
    }
    if (g->scratch[slot]) ps__dev_free(g->ctx, g->scratch[slot]);
    g->scratch[slot] = NULL, g->scratch_bytes[slot] = 0;
    PS__TRY(ps__dev_alloc(g->ctx, bytes, buf));
    g->scratch[slot] = *buf, g->scratch_bytes[slot] = bytes;
    return PS_SUCCESS;
}

void ps__dist_scratch_release(ps_grid *g) {
    for (int i = 0; i < PS__DIST_SCRATCH_SLOTS; i++)
        if (g->scratch[i]) {
            ps__dev_free(g->ctx, g->scratch[i]);
            g->scratch[i] = NULL, g->scratch_bytes[i] = 0;
        }
}

ps_status ps__dist_reserve_swaps(ps_grid *g, int count) {
    if (count > g->swaps_asked) g->swaps_asked = count;
    size_t bytes = (size_t)(12 * count + 4 * g->nprow) * sizeof(int);
    if (bytes <= g->swaps.bytes) return PS_SUCCESS;
    void *p = realloc(g->swaps.p, bytes);
    if (!p)
        return ps__dist_fail(g, PS_ERR_OUT_OF_HOST_MEMORY, "out of host memory (%zu bytes)", bytes);
    g->swaps.p = p, g->swaps.bytes = bytes;
    return PS_SUCCESS;
}

/* This rank's rank among the ranks of its node, and how many there are. */
static int node_rank(MPI_Comm comm, int *ranks) {
    MPI_Comm node;
    int r = 0;
    *ranks = 1;
    if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return 0;
    MPI_Comm_rank(node, &r);
    MPI_Comm_size(node, ranks);
    MPI_Comm_free(&node);
    return r;
}

/* The threads a rank's host copies use: its share of the node's cores, so that the ranks of a
 * node do not oversubscribe it; OMP_NUM_THREADS, where set, as given. */
static int host_threads(int node_ranks) {
#ifdef _OPENMP
    if (getenv("OMP_NUM_THREADS")) return omp_get_max_threads();
    int t = omp_get_num_procs() / (node_ranks > 0 ? node_ranks : 1);
    return t > 1 ? t : 1;
#else
    (void)node_ranks;
    return 1;
#endif
}

/* The number of devices a backend lists ("index: name" lines), at least 1. */
static int device_count(ps_backend_kind kind) {
    char list[4096];
    if (ps_backend_devices(kind, list, sizeof list) != PS_SUCCESS) return 1;
    int lines = 0;
    for (const char *p = list; *p; p++) lines += *p == '\n';
    return lines > 0 ? lines : 1;
}

static ps_status open_context(ps_grid *g, MPI_Comm comm, const ps_context_options *opts) {
    ps_context_options o = opts ? *opts : ps_context_options_default();
    char device[32];
    int node_ranks, me = node_rank(comm, &node_ranks);
    g->host_threads = host_threads(node_ranks);
    if (!o.device && !getenv("PORTSOLVE_DEVICE")) {
        ps_backend_kind kind = o.backend;
        if (kind == PS_BACKEND_FROM_ENV) {
            const char *name = getenv("PORTSOLVE_BACKEND");
            if (!name || ps_backend_kind_from_name(name, &kind) != PS_SUCCESS)
                kind = PS_BACKEND_AUTO;
        }
        if (kind == PS_BACKEND_CUDA || kind == PS_BACKEND_OPENCL) {
            snprintf(device, sizeof device, "%d", me % device_count(kind));
            o.device = device;
        }
    }
    ps_status st = ps_context_create(&g->ctx, &o);
    if (st != PS_SUCCESS)
        return ps__dist_fail(g, st, "rank %d: no context: %s", g->rank, ps_last_create_error());
    return PS_SUCCESS;
}

ps_status ps_grid_create(ps_grid **out, MPI_Comm comm, int nprow, int npcol,
                         const ps_context_options *opts) {
    int size = 0, rank = 0;
    if (out) *out = NULL;
    if (comm == MPI_COMM_NULL || MPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return PS_ERR_INVALID_ARGUMENT;
    MPI_Comm_rank(comm, &rank);
    /* every rank's verdict on its arguments and its memory, so that none waits for another that
     * gave up */
    int good = out && nprow >= 1 && npcol >= 1 && (long)nprow * npcol == size, all_good;
    ps_grid *g = good ? calloc(1, sizeof *g) : NULL;
    int ok = g != NULL, all_ok;
    MPI_Allreduce(&good, &all_good, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (!all_good || !all_ok) {
        free(g);
        return all_good ? PS_ERR_OUT_OF_HOST_MEMORY : PS_ERR_INVALID_ARGUMENT;
    }
    ps_status st;
    g->nprow = nprow, g->npcol = npcol, g->rank = rank;
    g->myrow = rank / npcol, g->mycol = rank % npcol;
    MPI_Comm_dup(comm, &g->all);
    MPI_Comm_split(g->all, g->myrow, g->mycol, &g->row);
    MPI_Comm_split(g->all, g->mycol, g->myrow, &g->col);
    st = ps__dist_agree(g, open_context(g, comm, opts));
    if (st != PS_SUCCESS) {
        ps_grid_destroy(g);
        return st;
    }
    ps__dist_transport_open(g);
    /* the exchanges' pieces must have the same size on every rank */
    long piece = g->ctx->tuning.dist_stage_kib > 0 ? (long)g->ctx->tuning.dist_stage_kib << 10
                                                   : (long)PS__DIST_STAGE_BYTES;
    MPI_Allreduce(MPI_IN_PLACE, &piece, 1, MPI_LONG, MPI_MIN, g->all);
    g->stage_piece = (size_t)piece;
    *out = g;
    return PS_SUCCESS;
}

void ps_grid_destroy(ps_grid *g) {
    if (!g) return;
    if (g->ctx) {
        ps__dist_scratch_release(g);
        ps__dist_transport_close(g);
        ps__transfer_free(g->ctx, g->stage.p);
    }
    ps_context_destroy(g->ctx);
    MPI_Comm_free(&g->row);
    MPI_Comm_free(&g->col);
    MPI_Comm_free(&g->all);
    free(g->swaps.p);
    free(g);
}

ps_status ps_grid_coords(const ps_grid *g, int *myrow, int *mycol) {
    if (!g || !myrow || !mycol) return PS_ERR_INVALID_ARGUMENT;
    *myrow = g->myrow, *mycol = g->mycol;
    return PS_SUCCESS;
}

const char *ps_grid_backend_name(const ps_grid *g) {
    return g ? ps_context_backend_name(g->ctx) : "(no grid)";
}

const char *ps_grid_device_name(const ps_grid *g) {
    return g ? ps_context_device_name(g->ctx) : "(no grid)";
}

const char *ps_grid_transport(const ps_grid *g) {
    return g ? g->transport : "(no grid)";
}

const char *ps_grid_last_error(const ps_grid *g) {
    return g ? g->last_error : "(no grid)";
}

int ps_grid_last_info(const ps_grid *g) {
    return g ? g->last_info : 0;
}
