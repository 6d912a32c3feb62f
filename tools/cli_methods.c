/* The command-line program's solvers: one table, and one call per driver and precision. */
#include "cli_methods.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

static ps_status run_double(ps_context *ctx, int id, int n, int nrhs, double *A, const double *B,
                            double *X, int *ipiv, cli_iter *it, int *refine_iter) {
    int ld = n > 0 ? n : 1;
    if (id != IR) memcpy(X, B, sizeof *X * (size_t)n * (size_t)nrhs);
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
    }
    memset(X, 0, sizeof *X * (size_t)n); /* the iterative methods start from x0 = 0 */
    switch (id) {
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

static ps_status run_single(ps_context *ctx, int id, int n, int nrhs, float *A, const float *B,
                            float *X, int *ipiv, cli_iter *it) {
    int ld = n > 0 ? n : 1;
    memcpy(X, B, sizeof *X * (size_t)n * (size_t)nrhs);
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
    }
    memset(X, 0, sizeof *X * (size_t)n);
    switch (id) {
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

ps_status cli_run(ps_context *ctx, const cli_method *m, int single, int n, int nrhs,
                  const double *A, const double *B, double *X, cli_iter *it, int *refine_iter) {
    int id = (int)(m - methods);
    size_t nn = (size_t)n * (size_t)n, nb = (size_t)n * (size_t)nrhs;
    int *ipiv = malloc(sizeof *ipiv * (size_t)(n + 1));
    ps_status st = PS_ERR_OUT_OF_HOST_MEMORY;
    if (!single) {
        double *Ad = malloc(sizeof *Ad * (nn + 1));
        if (ipiv && Ad) {
            memcpy(Ad, A, sizeof *Ad * nn);
            st = run_double(ctx, id, n, nrhs, Ad, B, X, ipiv, it, refine_iter);
        }
        free(Ad);
    } else {
        float *Af = malloc(sizeof *Af * (nn + 1)), *Bf = malloc(sizeof *Bf * (nb + 1)),
              *Xf = malloc(sizeof *Xf * (nb + 1));
        if (ipiv && Af && Bf && Xf) {
            for (size_t i = 0; i < nn; i++) Af[i] = (float)A[i];
            for (size_t i = 0; i < nb; i++) Bf[i] = (float)B[i];
            st = run_single(ctx, id, n, nrhs, Af, Bf, Xf, ipiv, it);
            if (st == PS_SUCCESS)
                for (size_t i = 0; i < nb; i++) X[i] = Xf[i];
        }
        free(Af), free(Bf), free(Xf);
    }
    free(ipiv);
    return st;
}
