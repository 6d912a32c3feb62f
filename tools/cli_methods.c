/* The command-line program's solvers: one table, and one call per driver and precision. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "cli_methods.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

enum { LU, WZ, CHOL, GJ, IR, JACOBI, GS, CG, BICGSTAB, GMRES, METHODS };

static const cli_method methods[METHODS] = {
    [LU] = {"lu", "gesv", 0, 0, 0, 0, 2.0 / 3},
    [WZ] = {"wz", "wzsv", 0, 0, 0, 0, 2.0 / 3},
    [CHOL] = {"chol", "posv", 0, 1, 1, 0, 1.0 / 3},
    [GJ] = {"gj", "gjsv", 0, 0, 0, 0, 1.0},
    [IR] = {"ir", "sgesv", 0, 0, 0, 1, 2.0 / 3},
    [JACOBI] = {"jacobi", "jacobi", 1, 0, 1, 0, 0},
    [GS] = {"gs", "gs", 1, 0, 1, 0, 0},
    [CG] = {"cg", "cg", 1, 1, 1, 0, 0},
    [BICGSTAB] = {"bicgstab", "bicgstab", 1, 0, 1, 0, 0},
    [GMRES] = {"gmres", "gmres", 1, 0, 1, 0, 0},
};

const cli_method *cli_find_method(const char *name) {
    for (int i = 0; i < METHODS; i++)
        if (strcasecmp(name, methods[i].name) == 0) return &methods[i];
    return NULL;
}

const char *cli_method_names(void) {
    return "lu, wz, chol, gj, ir, jacobi, gs, cg, bicgstab, gmres";
}

/* The driver call alone, on prepared arrays: X holds B (direct methods) or x0 = 0. */
static ps_status call_double(ps_context *ctx, int id, int n, int nrhs, double *A, const double *B,
                             double *X, int *ipiv, cli_iter *it, int *refine_iter) {
    int ld = n > 0 ? n : 1;
    const ps_iter_options *o = &it->opts;
    switch (id) {
    case LU:
        return ps_dgesv(ctx, n, nrhs, A, ld, ipiv, X, ld);
    case WZ:
        return ps_dwzsv(ctx, n, nrhs, A, ld, ipiv, X, ld);
    case CHOL:
        return ps_dposv(ctx, 'L', n, nrhs, A, ld, X, ld);
    case GJ:
        return ps_dgjsv(ctx, n, nrhs, A, ld, X, ld);
    case IR:
        return ps_dsgesv(ctx, n, nrhs, A, ld, ipiv, B, ld, X, ld, refine_iter);
    case JACOBI:
        return ps_djacobi(ctx, n, A, ld, B, X, o, &it->res);
    case GS:
        return ps_dgs(ctx, n, A, ld, B, X, o, &it->res);
    case CG:
        return ps_dcg(ctx, n, A, ld, B, X, o, &it->res);
    case BICGSTAB:
        return ps_dbicgstab(ctx, n, A, ld, B, X, o, &it->res);
    default:
        return ps_dgmres(ctx, n, A, ld, B, X, o, &it->res);
    }
}

static ps_status call_single(ps_context *ctx, int id, int n, int nrhs, float *A, const float *B,
                             float *X, int *ipiv, cli_iter *it) {
    int ld = n > 0 ? n : 1;
    const ps_iter_options *o = &it->opts;
    switch (id) {
    case LU:
        return ps_sgesv(ctx, n, nrhs, A, ld, ipiv, X, ld);
    case WZ:
        return ps_swzsv(ctx, n, nrhs, A, ld, ipiv, X, ld);
    case CHOL:
        return ps_sposv(ctx, 'L', n, nrhs, A, ld, X, ld);
    case GJ:
        return ps_sgjsv(ctx, n, nrhs, A, ld, X, ld);
    case JACOBI:
        return ps_sjacobi(ctx, n, A, ld, B, X, o, &it->res);
    case GS:
        return ps_sgs(ctx, n, A, ld, B, X, o, &it->res);
    case CG:
        return ps_scg(ctx, n, A, ld, B, X, o, &it->res);
    case BICGSTAB:
        return ps_sbicgstab(ctx, n, A, ld, B, X, o, &it->res);
    default:
        return ps_sgmres(ctx, n, A, ld, B, X, o, &it->res);
    }
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

ps_status cli_run(ps_context *ctx, const cli_method *m, int single, int n, int nrhs,
                  const double *A, const double *B, double *X, cli_iter *it, int *refine_iter,
                  double *seconds) {
    int id = (int)(m - methods);
    size_t nn = (size_t)n * (size_t)n, nb = (size_t)n * (size_t)nrhs;
    int *ipiv = malloc(sizeof *ipiv * (size_t)(n + 1));
    ps_status st = PS_ERR_OUT_OF_HOST_MEMORY;
    double t0 = 0;
    *seconds = 0;
    if (!single) {
        double *Ad = malloc(sizeof *Ad * (nn + 1));
        if (ipiv && Ad) {
            memcpy(Ad, A, sizeof *Ad * nn);
            if (m->iterative)
                memset(X, 0, sizeof *X * (size_t)n); /* x0 = 0 */
            else if (id != IR)
                memcpy(X, B, sizeof *X * nb); /* the drivers overwrite B with X */
            t0 = now_seconds();
            st = call_double(ctx, id, n, nrhs, Ad, B, X, ipiv, it, refine_iter);
            *seconds = now_seconds() - t0;
        }
        free(Ad);
    } else {
        float *Af = malloc(sizeof *Af * (nn + 1)), *Bf = malloc(sizeof *Bf * (nb + 1)),
              *Xf = calloc(nb + 1, sizeof *Xf);
        if (ipiv && Af && Bf && Xf) {
            for (size_t i = 0; i < nn; i++) Af[i] = (float)A[i];
            for (size_t i = 0; i < nb; i++) Bf[i] = (float)B[i];
            if (!m->iterative) memcpy(Xf, Bf, sizeof *Xf * nb);
            t0 = now_seconds();
            st = call_single(ctx, id, n, nrhs, Af, Bf, Xf, ipiv, it);
            *seconds = now_seconds() - t0;
            if (st == PS_SUCCESS)
                for (size_t i = 0; i < nb; i++) X[i] = Xf[i];
        }
        free(Af), free(Bf), free(Xf);
    }
    free(ipiv);
    return st;
}
