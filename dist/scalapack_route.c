/*
 * libportsolve_scalapack.so: ScaLAPACK's LU and Cholesky drivers (pdgesv_ pdgetrf_ pdgetrs_
 * pdposv_ pdpotrf_ pdpotrs_ and the ps ones), for LD_PRELOAD into a ScaLAPACK program or linking
 * ahead of -lscalapack. A call runs on libportsolve_mpi on a grid made once per BLACS context;
 * a call it refuses (an argument ScaLAPACK would report, right-hand sides from inside a block of
 * columns past its end, a failure such as running out of device memory) goes to the next
 * library's routine, which then does what ScaLAPACK does (pxerbla and its info included). Every
 * rank of the grid takes the same way, because libportsolve_mpi's verdicts are agreed on by all
 * of them.
 *
 * Calls made by ScaLAPACK itself (its refinement and condition estimates, p?gerfs, p?porfs,
 * p?lacon's solves) stay with ScaLAPACK: those protocols let the grid's processes run out of
 * step, one process column a call ahead of another, which BLACS's buffered sends allow and
 * libportsolve_mpi's collective calls do not (they would wait for each other forever).
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "portsolve_mpi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* BLACS, from the program's ScaLAPACK, looked up at run time. */
typedef void (*gridinfo_fn)(int, int *, int *, int *, int *);
typedef void (*get_fn)(int, int, int *);
typedef MPI_Comm (*sys_handle_fn)(int);
typedef int (*pnum_fn)(int, int, int);
static struct {
    gridinfo_fn gridinfo;
    get_fn get;
    sys_handle_fn sys_handle;
    pnum_fn pnum;
} blacs;

static int find_blacs(void) {
    if (blacs.gridinfo) return 1;
    blacs.get = (get_fn)dlsym(RTLD_DEFAULT, "Cblacs_get");
    blacs.sys_handle = (sys_handle_fn)dlsym(RTLD_DEFAULT, "Cblacs2sys_handle");
    blacs.pnum = (pnum_fn)dlsym(RTLD_DEFAULT, "Cblacs_pnum");
    gridinfo_fn info = (gridinfo_fn)dlsym(RTLD_DEFAULT, "Cblacs_gridinfo");
    if (!blacs.get || !blacs.sys_handle || !blacs.pnum || !info) return 0;
    blacs.gridinfo = info;
    return 1;
}

/* The grids made so far, one per BLACS context and layout. They live as long as the process:
 * freeing one would be collective over ranks that may have moved on. */
#define MAX_GRIDS 32
typedef struct {
    int ctxt, nprow, npcol, myrow, mycol;
    int *ranks;
    ps_grid *grid;
} known_grid;
static known_grid grids[MAX_GRIDS];
static int ngrids;

/* The grid of BLACS context ctxt, made on first use; NULL when this rank is outside it or it
 * cannot be made (the caller then falls back, on every rank of the context alike). */
static ps_grid *grid_of(int ctxt) {
    if (!find_blacs()) return NULL;
    int nprow, npcol, myrow, mycol;
    blacs.gridinfo(ctxt, &nprow, &npcol, &myrow, &mycol);
    if (myrow < 0 || mycol < 0 || nprow < 1 || npcol < 1) return NULL;
    int n = nprow * npcol, *ranks = malloc((size_t)n * sizeof *ranks);
    if (!ranks) return NULL;
    for (int r = 0; r < nprow; r++)
        for (int c = 0; c < npcol; c++) ranks[r * npcol + c] = blacs.pnum(ctxt, r, c);
    for (int i = 0; i < ngrids; i++) {
        known_grid *k = &grids[i];
        if (k->ctxt == ctxt && k->nprow == nprow && k->npcol == npcol && k->myrow == myrow &&
            k->mycol == mycol && !memcmp(k->ranks, ranks, (size_t)n * sizeof *ranks)) {
            free(ranks);
            return k->grid;
        }
    }
    /* the same on every rank of the context: no grid past the table's end */
    if (ngrids == MAX_GRIDS) {
        free(ranks);
        return NULL;
    }
    int sys_ctxt;
    blacs.get(ctxt, 10, &sys_ctxt); /* the system context ctxt was made from */
    MPI_Comm sys = blacs.sys_handle(sys_ctxt), comm = MPI_COMM_NULL;
    MPI_Group all, members;
    MPI_Comm_group(sys, &all);
    MPI_Group_incl(all, n, ranks, &members);
    MPI_Comm_create_group(sys, members, ctxt & 0x7fff, &comm);
    MPI_Group_free(&members);
    MPI_Group_free(&all);
    ps_grid *grid = NULL;
    if (comm != MPI_COMM_NULL) {
        if (ps_grid_create(&grid, comm, nprow, npcol, NULL) != PS_SUCCESS) grid = NULL;
        MPI_Comm_free(&comm);
    }
    grids[ngrids++] = (known_grid){ctxt, nprow, npcol, myrow, mycol, ranks, grid};
    return grid;
}

/* The next library's definition of a routine (the real ScaLAPACK). */
static void *next(const char *name) {
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        fprintf(stderr, "libportsolve_scalapack: no %s after this library: link ScaLAPACK\n", name);
        abort();
    }
    return fn;
}

/* Whether the code at caller belongs to the library that defines name after this one (the
 * program's ScaLAPACK): then the call is ScaLAPACK's own and goes to it. */
static int from_scalapack(const void *caller, const char *name) {
    Dl_info at, real;
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn || !dladdr(caller, &at) || !dladdr(fn, &real)) return 0;
    return at.dli_fbase == real.dli_fbase;
}

/* info for a status libportsolve_mpi returned, or 1 when the call goes to ScaLAPACK. */
static int served(ps_grid *grid, ps_status st, int *info) {
    if (st == PS_SUCCESS) return *info = 0, 1;
    if (st == PS_ERR_SINGULAR || st == PS_ERR_NOT_SPD) return *info = ps_grid_last_info(grid), 1;
    return 0;
}

/* The grid a routine's call runs on, or NULL when it goes to ScaLAPACK (called by ScaLAPACK,
 * no descriptor, or no grid). A macro, so that the return address is the routine's caller. */
#define ROUTED(name, desca)                                                                        \
    ((desca) && !from_scalapack(__builtin_return_address(0), name) ? grid_of((desca)[1]) : NULL)

#define LU_ROUTINES(P, T)                                                                          \
    typedef void (*P##getrf_fn)(const int *, const int *, T *, const int *, const int *,           \
                                const int *, int *, int *);                                        \
    void P##getrf_(const int *m, const int *n, T *a, const int *ia, const int *ja,                 \
                   const int *desca, int *ipiv, int *info) {                                       \
        ps_grid *grid = ROUTED(#P "getrf_", desca);                                                \
        if (grid && served(grid, ps_##P##getrf(grid, *m, *n, a, *ia, *ja, desca, ipiv), info))     \
            return;                                                                                \
        ((P##getrf_fn)next(#P "getrf_"))(m, n, a, ia, ja, desca, ipiv, info);                      \
    }                                                                                              \
    typedef void (*P##getrs_fn)(const char *, const int *, const int *, const T *, const int *,    \
                                const int *, const int *, const int *, T *, const int *,           \
                                const int *, const int *, int *, size_t);                          \
    void P##getrs_(const char *trans, const int *n, const int *nrhs, const T *a, const int *ia,    \
                   const int *ja, const int *desca, const int *ipiv, T *b, const int *ib,          \
                   const int *jb, const int *descb, int *info, size_t len) {                       \
        ps_grid *grid = ROUTED(#P "getrs_", desca);                                                \
        if (grid && (*trans == 'N' || *trans == 'n' || *trans == 'T' || *trans == 't') &&          \
            served(grid,                                                                           \
                   ps_##P##getrs(grid, *trans, *n, *nrhs, a, *ia, *ja, desca, ipiv, b, *ib, *jb,   \
                                 descb),                                                           \
                   info))                                                                          \
            return;                                                                                \
        ((P##getrs_fn)next(#P "getrs_"))(trans, n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb, \
                                         info, len);                                               \
    }                                                                                              \
    typedef void (*P##gesv_fn)(const int *, const int *, T *, const int *, const int *,            \
                               const int *, int *, T *, const int *, const int *, const int *,     \
                               int *);                                                             \
    void P##gesv_(const int *n, const int *nrhs, T *a, const int *ia, const int *ja,               \
                  const int *desca, int *ipiv, T *b, const int *ib, const int *jb,                 \
                  const int *descb, int *info) {                                                   \
        ps_grid *grid = ROUTED(#P "gesv_", desca);                                                 \
        if (grid &&                                                                                \
            served(grid,                                                                           \
                   ps_##P##gesv(grid, *n, *nrhs, a, *ia, *ja, desca, ipiv, b, *ib, *jb, descb),    \
                   info))                                                                          \
            return;                                                                                \
        ((P##gesv_fn)next(#P "gesv_"))(n, nrhs, a, ia, ja, desca, ipiv, b, ib, jb, descb, info);   \
    }

#define CHOL_ROUTINES(P, T)                                                                        \
    typedef void (*P##potrf_fn)(const char *, const int *, T *, const int *, const int *,          \
                                const int *, int *, size_t);                                       \
    void P##potrf_(const char *uplo, const int *n, T *a, const int *ia, const int *ja,             \
                   const int *desca, int *info, size_t len) {                                      \
        ps_grid *grid = ROUTED(#P "potrf_", desca);                                                \
        if (grid && served(grid, ps_##P##potrf(grid, *uplo, *n, a, *ia, *ja, desca), info))        \
            return;                                                                                \
        ((P##potrf_fn)next(#P "potrf_"))(uplo, n, a, ia, ja, desca, info, len);                    \
    }                                                                                              \
    typedef void (*P##potrs_fn)(const char *, const int *, const int *, const T *, const int *,    \
                                const int *, const int *, T *, const int *, const int *,           \
                                const int *, int *, size_t);                                       \
    void P##potrs_(const char *uplo, const int *n, const int *nrhs, const T *a, const int *ia,     \
                   const int *ja, const int *desca, T *b, const int *ib, const int *jb,            \
                   const int *descb, int *info, size_t len) {                                      \
        ps_grid *grid = ROUTED(#P "potrs_", desca);                                                \
        if (grid &&                                                                                \
            served(grid,                                                                           \
                   ps_##P##potrs(grid, *uplo, *n, *nrhs, a, *ia, *ja, desca, b, *ib, *jb, descb),  \
                   info))                                                                          \
            return;                                                                                \
        ((P##potrs_fn)next(#P "potrs_"))(uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, info,  \
                                         len);                                                     \
    }                                                                                              \
    typedef void (*P##posv_fn)(const char *, const int *, const int *, T *, const int *,           \
                               const int *, const int *, T *, const int *, const int *,            \
                               const int *, int *, size_t);                                        \
    void P##posv_(const char *uplo, const int *n, const int *nrhs, T *a, const int *ia,            \
                  const int *ja, const int *desca, T *b, const int *ib, const int *jb,             \
                  const int *descb, int *info, size_t len) {                                       \
        ps_grid *grid = ROUTED(#P "posv_", desca);                                                 \
        if (grid &&                                                                                \
            served(grid,                                                                           \
                   ps_##P##posv(grid, *uplo, *n, *nrhs, a, *ia, *ja, desca, b, *ib, *jb, descb),   \
                   info))                                                                          \
            return;                                                                                \
        ((P##posv_fn)next(#P "posv_"))(uplo, n, nrhs, a, ia, ja, desca, b, ib, jb, descb, info,    \
                                       len);                                                       \
    }

LU_ROUTINES(pd, double)
LU_ROUTINES(ps, float)
CHOL_ROUTINES(pd, double)
CHOL_ROUTINES(ps, float)
