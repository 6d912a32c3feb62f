/*
 * portsolve-bench-dist: distributed LU (ps_pdgesv) or Cholesky (ps_pdposv) on an nprow x npcol
 * grid of MPI ranks, beside ScaLAPACK's pdgesv / pdposv on the same ranks and the same data, and
 * beside the same call on one rank (the parallel efficiency), and beside the single-device
 * factorization (ps_mat_getrf / ps_mat_potrf on rank 0's device, the matrix already there: the
 * rate the distributed call is meant to multiply). Run it under mpirun; rank 0 prints the table
 * and writes the CSV. Times are the slowest rank's, best of --repeats.
 */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "bench_args.h"
#include "portsolve_mpi.h"
#ifdef PORTSOLVE_BENCH_CUSOLVERMG
#include "bench_cusolvermg.h"
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef PORTSOLVE_BENCH_SCALAPACK
extern void Cblacs_get(int ctxt, int what, int *val);
extern void Cblacs_gridinit(int *ctxt, const char *order, int nprow, int npcol);
extern void Cblacs_gridexit(int ctxt);
extern void pdgesv_(const int *n, const int *nrhs, double *a, const int *ia, const int *ja,
                    const int *desca, int *ipiv, double *b, const int *ib, const int *jb,
                    const int *descb, int *info);
extern void psgesv_(const int *n, const int *nrhs, float *a, const int *ia, const int *ja,
                    const int *desca, int *ipiv, float *b, const int *ib, const int *jb,
                    const int *descb, int *info);
extern void pdposv_(const char *uplo, const int *n, const int *nrhs, double *a, const int *ia,
                    const int *ja, const int *desca, double *b, const int *ib, const int *jb,
                    const int *descb, int *info, size_t);
extern void psposv_(const char *uplo, const int *n, const int *nrhs, float *a, const int *ia,
                    const int *ja, const int *desca, float *b, const int *ib, const int *jb,
                    const int *descb, int *info, size_t);
#endif

typedef struct {
    int method, dbl, nb, nprow, npcol, repeats, reference;
    char uplo; /* Cholesky's triangle */
} setup;

/* A pseudo-random entry of the global matrix in [-1, 1), the same on every rank; symmetric and
 * diagonally dominant for Cholesky. */
static double entry(uint64_t i, uint64_t j, int n, int spd) {
    if (spd && i < j) {
        uint64_t t = i;
        i = j, j = t;
    }
    uint64_t x = (i * 0x9E3779B97F4A7C15ull) ^ (j + 0x632BE59BD9B4E019ull);
    x ^= x >> 31, x *= 0xBF58476D1CE4E5B9ull, x ^= x >> 27, x *= 0x94D049BB133111EBull,
        x ^= x >> 31;
    double v = (double)(x >> 11) / 9007199254740992.0 * 2 - 1;
    return spd && i == j ? v + n : v;
}

typedef struct {
    int desc[9], lrows, lcols;
    size_t bytes;
    void *a, *saved; /* saved: NULL where a copy would not fit (restore then regenerates) */
    int myrow, mycol, spd, order, offset, nb, nprow, npcol, dbl;
} local;

/* Entry (ii, jj) of the local array. */
static double local_value(const local *l, int ii, int jj) {
    int gi = (ii / l->nb * l->nprow + l->myrow) * l->nb + ii % l->nb;
    int gj = (jj / l->nb * l->npcol + l->mycol) * l->nb + jj % l->nb;
    return entry((uint64_t)gi, (uint64_t)gj + (uint64_t)l->offset, l->order, l->spd);
}

/* The local array as made: from the copy, or made again. */
static void restore(local *l) {
    if (l->saved) {
        memcpy(l->a, l->saved, l->bytes);
        return;
    }
    int lld = l->desc[8];
#pragma omp parallel for schedule(static)
    for (int jj = 0; jj < l->lcols; jj++)
        for (int ii = 0; ii < l->lrows; ii++) {
            double v = local_value(l, ii, jj);
            if (l->dbl)
                ((double *)l->a)[ii + (size_t)jj * lld] = v;
            else
                ((float *)l->a)[ii + (size_t)jj * lld] = (float)v;
        }
}

/* This rank's part of an m x n matrix of entries (the right-hand side's columns offset so that
 * they differ from A's), with a copy to restore it from when that takes at most a quarter of
 * the host's memory. */
static local make_local(const setup *s, int myrow, int mycol, int m, int n, int spd, int order) {
    local l;
    l.lrows = ps_numroc(m, s->nb, myrow, 0, s->nprow);
    l.lcols = ps_numroc(n, s->nb, mycol, 0, s->npcol);
    int lld = l.lrows > 1 ? l.lrows : 1;
    int d[9] = {1, 0, m, n, s->nb, s->nb, 0, 0, lld};
    memcpy(l.desc, d, sizeof d);
    size_t es = s->dbl ? sizeof(double) : sizeof(float);
    l.bytes = (size_t)lld * (size_t)(l.lcols > 0 ? l.lcols : 1) * es;
    l.myrow = myrow, l.mycol = mycol, l.spd = spd, l.order = order,
    l.offset = n == order ? 0 : 7919;
    l.nb = s->nb, l.nprow = s->nprow, l.npcol = s->npcol, l.dbl = s->dbl;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    int copy = pages <= 0 || page <= 0 || l.bytes <= (size_t)pages * (size_t)page / 4;
    l.a = malloc(l.bytes), l.saved = NULL;
    restore(&l);
    if (copy) l.saved = malloc(l.bytes), memcpy(l.saved, l.a, l.bytes);
    return l;
}

/* LAPACK's residual ratio ||b - A x||_1 / (||A||_1 ||x||_1 n eps) of the distributed solution x
 * (in b->a; A and b as saved), from every rank's part: x assembled on every rank, each rank's
 * columns of A times it, summed. The same on every rank. */
static double residual_ratio(const setup *s, int myrow, int mycol, int n, const local *a,
                             const local *b) {
    double *x = calloc((size_t)n + 1, sizeof *x), *y = calloc((size_t)n + 1, sizeof *y);
    double *colsum = calloc((size_t)n + 1, sizeof *colsum);
    for (int ii = 0; ii < b->lrows && b->lcols > 0; ii++) {
        int gi = (ii / s->nb * s->nprow + myrow) * s->nb + ii % s->nb;
        x[gi] = s->dbl ? ((double *)b->a)[ii] : ((float *)b->a)[ii];
    }
    MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    /* each thread sums its columns' products into its own copy of y (the reduction) */
#pragma omp parallel for schedule(static) reduction(+ : y[:n])
    for (int jj = 0; jj < a->lcols; jj++) {
        int gj = (jj / s->nb * s->npcol + mycol) * s->nb + jj % s->nb;
        for (int ii = 0; ii < a->lrows; ii++) {
            int gi = (ii / s->nb * s->nprow + myrow) * s->nb + ii % s->nb;
            double v = local_value(a, ii, jj);
            if (!s->dbl) v = (float)v;
            y[gi] += v * x[gj], colsum[gj] += fabs(v);
        }
    }
    for (int ii = 0; ii < b->lrows && b->lcols > 0; ii++) {
        int gi = (ii / s->nb * s->nprow + myrow) * s->nb + ii % s->nb;
        double v = local_value(b, ii, 0);
        y[gi] -= s->dbl ? v : (float)v;
    }
    MPI_Allreduce(MPI_IN_PLACE, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, colsum, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double rnorm = 0, anorm = 0, xnorm = 0;
    for (int i = 0; i < n; i++) {
        rnorm += fabs(y[i]), xnorm += fabs(x[i]);
        if (colsum[i] > anorm) anorm = colsum[i];
    }
    double eps = s->dbl ? 1.1102230246251565e-16 : 5.9604644775390625e-08;
    free(x), free(y), free(colsum);
    return n ? rnorm / (anorm * xnorm * n * eps) : 0;
}

/* One run of the method on grid (portsolve) or ctxt (ScaLAPACK); its time, the slowest rank's. */
static double run(const setup *s, ps_grid *grid, int ctxt, MPI_Comm comm, int n, local *a, local *b,
                  int *ipiv, int *ok) {
    restore(a), restore(b);
    int one = 1, info = 0;
    MPI_Barrier(comm);
    double t0 = MPI_Wtime();
    if (grid) {
        ps_status st;
        if (s->method == 0)
            st = s->dbl ? ps_pdgesv(grid, n, 1, a->a, 1, 1, a->desc, ipiv, b->a, 1, 1, b->desc)
                        : ps_psgesv(grid, n, 1, a->a, 1, 1, a->desc, ipiv, b->a, 1, 1, b->desc);
        else
            st = s->dbl ? ps_pdposv(grid, s->uplo, n, 1, a->a, 1, 1, a->desc, b->a, 1, 1, b->desc)
                        : ps_psposv(grid, s->uplo, n, 1, a->a, 1, 1, a->desc, b->a, 1, 1, b->desc);
        info = st != PS_SUCCESS;
        if (st != PS_SUCCESS) fprintf(stderr, "portsolve: %s\n", ps_grid_last_error(grid));
    } else {
#ifdef PORTSOLVE_BENCH_SCALAPACK
        int desca[9], descb[9];
        memcpy(desca, a->desc, sizeof desca), memcpy(descb, b->desc, sizeof descb);
        desca[1] = descb[1] = ctxt;
        if (s->method == 0) {
            if (s->dbl)
                pdgesv_(&n, &one, a->a, &one, &one, desca, ipiv, b->a, &one, &one, descb, &info);
            else
                psgesv_(&n, &one, a->a, &one, &one, desca, ipiv, b->a, &one, &one, descb, &info);
        } else {
            if (s->dbl)
                pdposv_(&s->uplo, &n, &one, a->a, &one, &one, desca, b->a, &one, &one, descb, &info,
                        1);
            else
                psposv_(&s->uplo, &n, &one, a->a, &one, &one, desca, b->a, &one, &one, descb, &info,
                        1);
        }
#else
        (void)ctxt, (void)one;
#endif
    }
    double t = MPI_Wtime() - t0, slowest;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    int bad = info != 0, any;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
    *ok = !any;
    return slowest;
}

#ifdef PORTSOLVE_BENCH_CUSOLVERMG
static double mg_a(int i, int j, void *arg) {
    return entry((uint64_t)i, (uint64_t)j, *(int *)arg, 0);
}
static double mg_b(int i, void *arg) {
    return entry((uint64_t)i, 7919, *(int *)arg, 0);
}
#endif

/* cuSOLVERMg's getrf + getrs from rank 0 on devices 0 .. ranks - 1 (the matrix already there), the
 * LU method only; NAN where it does not run. The other ranks wait. */
static double cusolvermg(const setup *s, int n, int ranks, int rank, int *ok) {
    double t = NAN;
    *ok = 1;
#ifdef PORTSOLVE_BENCH_CUSOLVERMG
    if (rank == 0 && s->method == 0) {
        char msg[256] = "";
        int checked = 0, order = n;
        t = ps_bench_cusolvermg(s->dbl, n, s->nb, ranks, s->repeats, mg_a, mg_b, &order, &checked,
                                msg, sizeof msg);
        if (isnan(t)) fprintf(stderr, "cuSOLVERMg: %s\n", msg);
        *ok = isnan(t) || checked != 0;
    }
#else
    (void)s, (void)n, (void)ranks, (void)rank;
#endif
    MPI_Bcast(ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    return t;
}

/* The device-resident call (ps_dist_gesv / ps_dist_posv on ps_dist_matrix, the solution's download
 * included, the uploads not): the slowest rank's time, best of the repeats after a warm-up. */
static double resident(const setup *s, ps_grid *grid, local *a, local *b, int *ipiv, int *ok) {
    ps_dtype dt = s->dbl ? PS_DOUBLE : PS_FLOAT;
    ps_dist_matrix *A = NULL, *B = NULL;
    ps_status st = ps_dist_matrix_create(grid, dt, a->desc, &A);
    if (st == PS_SUCCESS) st = ps_dist_matrix_create(grid, dt, b->desc, &B);
    double best = INFINITY;
    for (int r = 0; r < s->repeats + 1 && st == PS_SUCCESS; r++) {
        restore(a), restore(b);
        st = ps_dist_matrix_upload(A, a->a);
        if (st == PS_SUCCESS) st = ps_dist_matrix_upload(B, b->a);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (st == PS_SUCCESS)
            st = s->method ? ps_dist_posv(s->uplo, A, B) : ps_dist_gesv(A, ipiv, B);
        if (st == PS_SUCCESS) st = ps_dist_matrix_download(B, b->a);
        double t = MPI_Wtime() - t0, slowest;
        MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (r > 0 && slowest < best) best = slowest;
    }
    if (st != PS_SUCCESS) fprintf(stderr, "portsolve (resident): %s\n", ps_grid_last_error(grid));
    *ok = st == PS_SUCCESS;
    ps_dist_matrix_destroy(A), ps_dist_matrix_destroy(B);
    return best;
}

/* The single-device factorization of the whole matrix on rank 0 (ctx), best of the repeats after
 * a warm-up; NAN where it fails. */
static double device_level(const setup *s, ps_context *ctx, int n) {
    setup one = *s;
    one.nprow = one.npcol = 1;
    local a = make_local(&one, 0, 0, n, n, s->method == 1, n);
    ps_dtype dt = s->dbl ? PS_DOUBLE : PS_FLOAT;
    ps_matrix *m = NULL;
    int *ipiv = malloc(((size_t)n + 1) * sizeof *ipiv);
    double best = INFINITY;
    if (ipiv && ps_matrix_create(ctx, dt, n, n, 0, &m) == PS_SUCCESS)
        for (int r = 0; r < s->repeats + 1; r++) {
            if (ps_matrix_upload(m, a.a, a.desc[8]) != PS_SUCCESS ||
                ps_context_synchronize(ctx) != PS_SUCCESS)
                break;
            double t0 = MPI_Wtime();
            ps_status st = s->method ? ps_mat_potrf(ctx, s->uplo, m) : ps_mat_getrf(ctx, m, ipiv);
            if (st == PS_SUCCESS) st = ps_context_synchronize(ctx);
            double t = MPI_Wtime() - t0;
            if (st != PS_SUCCESS) break;
            if (r > 0 && t < best) best = t;
        }
    ps_matrix_destroy(m);
    free(ipiv), free(a.a), free(a.saved);
    return isinf(best) ? NAN : best;
}

static double best_of(const setup *s, ps_grid *grid, int ctxt, MPI_Comm comm, int n, local *a,
                      local *b, int *ipiv, int *ok) {
    double best = INFINITY;
    for (int r = 0; r < s->repeats + 1; r++) { /* the first run warms up */
        double t = run(s, grid, ctxt, comm, n, a, b, ipiv, ok);
        if (r > 0 && t < best) best = t;
    }
    return best;
}

/* A comment line as each measurement of a row ends, out at once: a run cut short (a time limit
 * on a shared machine) still says how far it came. */
static void progress(int rank, int n, const char *what, double seconds) {
    if (rank != 0) return;
    printf("# n = %d: %s %.4f s\n", n, what, seconds);
    fflush(stdout);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setup s = {0, 1, 64, 0, 0, 2, 1, 'L'};
    int sizes[16] = {2048}, nsizes = 1, precision = 0, upper = 0, grid_shape[2] = {0, 0},
        nshape = 0, single = 1, device = 1, mg = 0, check = 1;
    const char *backend = NULL, *csv = NULL;
    const bench_arg args[] = {
        BENCH_ARG_CHOICE("--method", &s.method, "lu|chol"),
        BENCH_ARG_CHOICE("--uplo", &upper, "L|U"),
        BENCH_ARG_STRING("--backend", &backend),
        BENCH_ARG_INTS("--sizes", sizes, 16, &nsizes, 1),
        BENCH_ARG_INT("--nb", &s.nb, 1, 4096),
        BENCH_ARG_INTS("--grid", grid_shape, 2, &nshape, 1),
        BENCH_ARG_CHOICE("--precision", &precision, "d|s"),
        BENCH_ARG_INT("--repeats", &s.repeats, 1, 20),
        BENCH_ARG_CHOICE("--reference", &s.reference, "none|scalapack"),
        BENCH_ARG_CHOICE("--single", &single, "no|yes"),
        BENCH_ARG_CHOICE("--device", &device, "no|yes"),
        BENCH_ARG_CHOICE("--cusolvermg", &mg, "no|yes"),
        BENCH_ARG_CHOICE("--check", &check, "no|yes"),
        BENCH_ARG_STRING("--csv", &csv),
    };
    if (!bench_parse_args("portsolve-bench-dist", argc, argv, args, sizeof args / sizeof args[0])) {
        MPI_Finalize();
        return 2;
    }
    s.dbl = precision == 0;
    s.uplo = upper ? 'U' : 'L';
    s.nprow = nshape == 2 ? grid_shape[0] : size, s.npcol = nshape == 2 ? grid_shape[1] : 1;
    if (s.nprow * s.npcol != size) {
        if (rank == 0)
            fprintf(stderr, "--grid %dx%d needs %d ranks, not %d\n", s.nprow, s.npcol,
                    s.nprow * s.npcol, size);
        MPI_Finalize();
        return 2;
    }
#ifndef PORTSOLVE_BENCH_SCALAPACK
    s.reference = 0;
#endif
    ps_context_options o = ps_context_options_default();
    if (backend && ps_backend_kind_from_name(backend, &o.backend) != PS_SUCCESS) {
        if (rank == 0) fprintf(stderr, "unknown backend %s\n", backend);
        MPI_Finalize();
        return 2;
    }
    ps_grid *grid = NULL, *alone = NULL;
    ps_context *ctx = NULL;
    MPI_Comm self_comm;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : MPI_UNDEFINED, 0, &self_comm);
    if (ps_grid_create(&grid, MPI_COMM_WORLD, s.nprow, s.npcol, &o) != PS_SUCCESS ||
        (rank == 0 && single && ps_grid_create(&alone, self_comm, 1, 1, &o) != PS_SUCCESS) ||
        (rank == 0 && device && ps_context_create(&ctx, &o) != PS_SUCCESS)) {
        fprintf(stderr, "rank %d: no grid\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int ctxt = -1;
#ifdef PORTSOLVE_BENCH_SCALAPACK
    if (s.reference) {
        Cblacs_get(-1, 0, &ctxt);
        Cblacs_gridinit(&ctxt, "Row-major", s.nprow, s.npcol);
    }
#endif
    int myrow, mycol;
    ps_grid_coords(grid, &myrow, &mycol);
    FILE *out = rank == 0 && csv ? fopen(csv, "w") : NULL;
    if (out)
        fprintf(out,
                "method,precision,n,nb,nprow,npcol,backend,transport,ps_s,ps_gflops,"
                "ps_gflops_per_rank,ref_s,ratio,single_s,efficiency,device_s,device_gflops,"
                "vs_device,resident_s,resident_gflops,resident_vs_device%s\n",
                mg ? ",cusolvermg_s,cusolvermg_over_resident" : "");
    if (rank == 0) {
        printf("# %s %s on %s (transport %s), grid %dx%d, nb %d; ratio = ScaLAPACK time / "
               "portsolve time;\n# efficiency = one rank's time / (ranks x time); dev = %s of the "
               "whole matrix on rank 0's device;\n# x dev = GF/s / dev GF/s; GFLOP/s counts %s\n",
               s.method ? (s.uplo == 'U' ? "posv U" : "posv L") : "gesv",
               s.dbl ? "double" : "single", ps_grid_backend_name(grid), ps_grid_transport(grid),
               s.nprow, s.npcol, s.nb, s.method ? "ps_mat_potrf" : "ps_mat_getrf",
               s.method ? "n^3/3" : "2n^3/3");
        printf("      n    ps time s    GF/s   GF/s/rank   ref time s   ratio   1-rank s   "
               "efficiency   dev s   dev GF/s   x dev   res s   res GF/s  res x dev%s\n",
               mg ? "     mg s  mg/res" : "");
    }
    for (int t = 0; t < nsizes; t++) {
        int n = sizes[t], ok = 1, ok_ref = 1, ok_one = 1;
        local a = make_local(&s, myrow, mycol, n, n, s.method == 1, n);
        local b = make_local(&s, myrow, mycol, n, 1, 0, n);
        int *ipiv = malloc(((size_t)a.lrows + s.nb) * sizeof *ipiv);
        double tp = best_of(&s, grid, -1, MPI_COMM_WORLD, n, &a, &b, ipiv, &ok);
        progress(rank, n, "the host-array call", tp);
        if (check && ok) {
            /* portsolve's solution, before the references overwrite b */
            double ratio = residual_ratio(&s, myrow, mycol, n, &a, &b);
            if (rank == 0) printf("# n = %d: residual ratio %.3g\n", n, ratio), fflush(stdout);
            ok = ratio < 30;
        }
        double tr =
            s.reference ? best_of(&s, NULL, ctxt, MPI_COMM_WORLD, n, &a, &b, ipiv, &ok_ref) : NAN;
        double t1 = NAN;
        if (single && rank == 0) {
            setup one = s;
            one.nprow = one.npcol = 1;
            local a1 = make_local(&one, 0, 0, n, n, s.method == 1, n);
            local b1 = make_local(&one, 0, 0, n, 1, 0, n);
            int *p1 = malloc(((size_t)n + s.nb) * sizeof *p1);
            t1 = best_of(&one, alone, -1, self_comm, n, &a1, &b1, p1, &ok_one);
            free(a1.a), free(a1.saved), free(b1.a), free(b1.saved), free(p1);
        }
        int ok_res = 1;
        double tres = resident(&s, grid, &a, &b, ipiv, &ok_res);
        progress(rank, n, "the device-resident call", tres);
        double td = ctx ? device_level(&s, ctx, n) : NAN;
        if (ctx) progress(rank, n, "one device", td);
        int ok_mg = 1;
        double tmg = mg ? cusolvermg(&s, n, size, rank, &ok_mg) : NAN;
        double flops = (s.method ? 1.0 / 3 : 2.0 / 3) * (double)n * n * n;
        if (rank == 0) {
            double gf = flops / tp * 1e-9, gd = flops / td * 1e-9, gr = flops / tres * 1e-9;
            printf("%7d %12.4f %7.1f %11.2f %12.4f %7.3f %10.4f %12.3f %7.4f %10.1f %7.3f %7.4f "
                   "%10.1f %9.3f",
                   n, tp, gf, gf / size, tr, tr / tp, t1, t1 / (size * tp), td, gd, gf / gd, tres,
                   gr, gr / gd);
            if (mg) printf(" %8.4f %7.3f", tmg, tmg / tres);
            printf("%s\n", ok && ok_ref && ok_one && ok_res && ok_mg ? "" : "  (a run failed)");
            if (out)
                fprintf(out,
                        "%s,%s,%d,%d,%d,%d,%s,%s,%.6f,%.3f,%.3f,%.6f,%.4f,%.6f,%.4f,%.6f,%.3f,"
                        "%.4f,%.6f,%.3f,%.4f",
                        s.method ? (s.uplo == 'U' ? "chol_u" : "chol") : "lu", s.dbl ? "d" : "s", n,
                        s.nb, s.nprow, s.npcol, ps_grid_backend_name(grid), ps_grid_transport(grid),
                        tp, gf, gf / size, tr, tr / tp, t1, t1 / (size * tp), td, gd, gf / gd, tres,
                        gr, gr / gd);
            if (out && mg) fprintf(out, ",%.6f,%.4f", tmg, tmg / tres);
            if (out) fprintf(out, "\n"), fflush(out);
            fflush(stdout);
        }
        free(a.a), free(a.saved), free(b.a), free(b.saved), free(ipiv);
        if (!ok || !ok_ref || !ok_one || !ok_res || !ok_mg) {
            MPI_Finalize();
            return 1;
        }
    }
    if (out) fclose(out);
#ifdef PORTSOLVE_BENCH_SCALAPACK
    if (s.reference) Cblacs_gridexit(ctxt);
#endif
    ps_context_destroy(ctx);
    ps_grid_destroy(alone);
    ps_grid_destroy(grid);
    if (self_comm != MPI_COMM_NULL) MPI_Comm_free(&self_comm);
    MPI_Finalize();
    return 0;
}
