/*
 * portsolve's distributed layer (libportsolve_mpi): dense LU and Cholesky over MPI on
 * ScaLAPACK's 2D block-cyclic layout, each rank computing its local steps on its own portsolve
 * context (any backend). Link with -lportsolve_mpi and MPI; the single-node library does not
 * depend on MPI.
 *
 * Matrices are described as in ScaLAPACK: desc[9] = {DTYPE = 1, CTXT (ignored: the grid says
 * which processes), M, N, MB, NB, RSRC, CSRC, LLD}, the local array column-major with leading
 * dimension LLD on every rank; ia = ja = 1 (the whole matrix). Square blocks (MB = NB) are
 * required for A. Pivots are ScaLAPACK's: ipiv[i] on a rank is the 1-based global row that local
 * row i was interchanged with (LOCr(M) + MB entries, the same on every rank of a process row).
 *
 * Every call is collective over the grid and returns the same status on every rank; its message
 * is ps_grid_last_error, and LAPACK's info (the first zero pivot of LU, the order of the first
 * minor that is not positive definite) is ps_grid_last_info, on every rank.
 */
#ifndef PORTSOLVE_MPI_H
#define PORTSOLVE_MPI_H

#include "portsolve.h"

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ps_grid ps_grid;

/* A nprow x npcol process grid over comm (row-major rank order, as BLACS's default), each rank
 * with a context made from opts (NULL: the environment). With PORTSOLVE_DEVICE unset and no
 * device in opts, a rank takes the device of its rank among the ranks of its node, modulo the
 * devices the backend has. Collective; nprow * npcol must equal comm's size. */
PS_API ps_status ps_grid_create(ps_grid **out, MPI_Comm comm, int nprow, int npcol,
                                const ps_context_options *opts);
PS_API void ps_grid_destroy(ps_grid *grid);
/* This rank's place in the grid. */
PS_API ps_status ps_grid_coords(const ps_grid *grid, int *myrow, int *mycol);
/* This rank's backend ("cpu", "cuda", "opencl") and device, as ps_context_backend_name and
 * ps_context_device_name say them. */
PS_API const char *ps_grid_backend_name(const ps_grid *grid);
PS_API const char *ps_grid_device_name(const ps_grid *grid);
/* Which transport carries the exchanges between ranks ("mpi"). */
PS_API const char *ps_grid_transport(const ps_grid *grid);
PS_API const char *ps_grid_last_error(const ps_grid *grid);
PS_API int ps_grid_last_info(const ps_grid *grid);

/* ScaLAPACK's NUMROC: the local rows (or columns) of n, in blocks of nb, on process iproc. */
PS_API int ps_numroc(int n, int nb, int iproc, int isrcproc, int nprocs);

/* LU with partial pivoting, A = P L U (pdgetrf). PS_ERR_SINGULAR with info when a pivot is
 * exactly zero; the factors are complete, as LAPACK's. */
PS_API ps_status ps_pdgetrf(ps_grid *grid, int m, int n, double *a, int ia, int ja,
                            const int desca[9], int *ipiv);
PS_API ps_status ps_psgetrf(ps_grid *grid, int m, int n, float *a, int ia, int ja,
                            const int desca[9], int *ipiv);
/* Solves op(A) X = B with getrf's factors; trans 'N' or 'T'. B's rows are distributed as A's
 * (MB_B = MB_A, RSRC_B = RSRC_A). */
PS_API ps_status ps_pdgetrs(ps_grid *grid, char trans, int n, int nrhs, const double *a, int ia,
                            int ja, const int desca[9], const int *ipiv, double *b, int ib, int jb,
                            const int descb[9]);
PS_API ps_status ps_psgetrs(ps_grid *grid, char trans, int n, int nrhs, const float *a, int ia,
                            int ja, const int desca[9], const int *ipiv, float *b, int ib, int jb,
                            const int descb[9]);
PS_API ps_status ps_pdgesv(ps_grid *grid, int n, int nrhs, double *a, int ia, int ja,
                           const int desca[9], int *ipiv, double *b, int ib, int jb,
                           const int descb[9]);
PS_API ps_status ps_psgesv(ps_grid *grid, int n, int nrhs, float *a, int ia, int ja,
                           const int desca[9], int *ipiv, float *b, int ib, int jb,
                           const int descb[9]);

/* Cholesky, A = L L^T (uplo 'L') or U^T U ('U') (pdpotrf); the other triangle is not referenced.
 * PS_ERR_NOT_SPD with info when the leading minor of order info is not. */
PS_API ps_status ps_pdpotrf(ps_grid *grid, char uplo, int n, double *a, int ia, int ja,
                            const int desca[9]);
PS_API ps_status ps_pspotrf(ps_grid *grid, char uplo, int n, float *a, int ia, int ja,
                            const int desca[9]);
PS_API ps_status ps_pdpotrs(ps_grid *grid, char uplo, int n, int nrhs, const double *a, int ia,
                            int ja, const int desca[9], double *b, int ib, int jb,
                            const int descb[9]);
PS_API ps_status ps_pspotrs(ps_grid *grid, char uplo, int n, int nrhs, const float *a, int ia,
                            int ja, const int desca[9], float *b, int ib, int jb,
                            const int descb[9]);
PS_API ps_status ps_pdposv(ps_grid *grid, char uplo, int n, int nrhs, double *a, int ia, int ja,
                           const int desca[9], double *b, int ib, int jb, const int descb[9]);
PS_API ps_status ps_psposv(ps_grid *grid, char uplo, int n, int nrhs, float *a, int ia, int ja,
                           const int desca[9], float *b, int ib, int jb, const int descb[9]);

#ifdef __cplusplus
}
#endif

#endif
