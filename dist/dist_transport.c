/* How ranks exchange device data: the backend's peer transport (NCCL between CUDA devices), or
 * MPI through host memory. The choice is made once per grid and agreed on by every rank. */
#include "dist.h"
#include "peer/peer_kernels.h"

#include <stdlib.h>
#include <string.h>

/* Room for "host/device" (MPI_MAX_PROCESSOR_NAME is 256 in Open MPI and MPICH). */
#define KEY_BYTES (MPI_MAX_PROCESSOR_NAME + 64)

/* Whether every rank has the transport and no two ranks of a host share a device (which NCCL
 * refuses). Collective. */
static int peers_possible(ps_grid *g) {
    ps__backend *be = &g->ctx->be;
    const ps__peer_kernels *peer = ps__peer(be);
    int size = g->nprow * g->npcol, ok = 0, all_ok = 0, len = 0;
    char *keys = calloc((size_t)size + 1, KEY_BYTES),
         *mine = keys ? keys + (size_t)size * KEY_BYTES : NULL;
    if (mine && g->ctx->tuning.dist_transport == 0 && peer->name(be)) {
        MPI_Get_processor_name(mine, &len);
        mine[len] = '/';
        ok = peer->device_key(be, mine + len + 1, KEY_BYTES - (size_t)len - 1) == PS_SUCCESS;
    }
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->all);
    if (all_ok) {
        MPI_Allgather(mine, KEY_BYTES, MPI_CHAR, keys, KEY_BYTES, MPI_CHAR, g->all);
        for (int i = 0; i < size && all_ok; i++)
            for (int j = i + 1; j < size && all_ok; j++)
                all_ok = strncmp(keys + (size_t)i * KEY_BYTES, keys + (size_t)j * KEY_BYTES,
                                 KEY_BYTES) != 0;
    }
    free(keys);
    return all_ok;
}

/* The peer group of comm's ranks (none for one rank); every rank of comm gets the same verdict. */
static int open_group(ps_grid *g, MPI_Comm comm, void **group) {
    ps__backend *be = &g->ctx->be;
    const ps__peer_kernels *peer = ps__peer(be);
    int size, me;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    *group = NULL;
    if (size == 1) return 1;
    struct {
        int ok;
        char id[PS__PEER_ID_BYTES];
    } made = {0, {0}};
    if (me == 0) made.ok = peer->group_id(be, made.id) == PS_SUCCESS;
    MPI_Bcast(&made, (int)sizeof made, MPI_BYTE, 0, comm);
    return made.ok && peer->group_open(be, made.id, size, me, group) == PS_SUCCESS;
}

void ps__dist_transport_open(ps_grid *g) {
    g->transport = "mpi";
    if (!peers_possible(g)) return;
    int ok = open_group(g, g->row, &g->peer_row);
    ok = open_group(g, g->col, &g->peer_col) && ok;
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, g->all);
    if (all_ok) {
        g->transport = ps__peer(&g->ctx->be)->name(&g->ctx->be);
        return;
    }
    ps__dist_transport_close(g);
}

void ps__dist_transport_close(ps_grid *g) {
    const ps__peer_kernels *peer = ps__peer(&g->ctx->be);
    if (g->peer_row) peer->group_close(&g->ctx->be, g->peer_row);
    if (g->peer_col) peer->group_close(&g->ctx->be, g->peer_col);
    g->peer_row = g->peer_col = NULL;
    g->transport = "mpi";
}

int ps__dist_peers(const ps_grid *g) {
    return strcmp(g->transport, "mpi") != 0;
}

/* The longest column a host broadcast of a vector is cut into. */
#define VBCAST_ROWS (1 << 30)

ps_status ps__dist_vbcast(ps_grid *g, ps__dist_line line, int root, ps__dtype dt, void *buf,
                          size_t off, size_t count, int lane) {
    ps__backend *be = &g->ctx->be;
    MPI_Comm comm = line == PS__DIST_ROW ? g->row : g->col;
    int size, me;
    MPI_Comm_size(comm, &size);
    if (size == 1 || count == 0) return PS_SUCCESS;
    MPI_Comm_rank(comm, &me);
    ps_status st = PS_SUCCESS;
    if (ps__dist_peers(g)) {
        st = ps__peer(be)->bcast(be, line == PS__DIST_ROW ? g->peer_row : g->peer_col, dt, buf, off,
                                 count, root);
    } else {
        /* host transfers go on lane 0, as columns of at most VBCAST_ROWS (which go in pieces the
         * stage holds), their row counts being ints */
        if (lane) st = be->ops->lane_wait(be, 0, 1);
        for (size_t done = 0; done < count;) {
            int rows = count - done < VBCAST_ROWS ? (int)(count - done) : VBCAST_ROWS;
            ps__mat v = {buf, off + done, rows};
            ps_status x = ps__dist_bcast_host(g, comm, root, dt, rows, 1, v, v);
            if (st == PS_SUCCESS) st = x;
            done += (size_t)rows;
        }
        if (lane && st == PS_SUCCESS) st = be->ops->lane_wait(be, 1, 0);
    }
    if (st != PS_SUCCESS) return ps__dist_failed(g, st);
    return PS_SUCCESS;
}
