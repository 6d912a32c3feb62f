/*
 * portsolve's distributed layer (libportsolve_mpi): dense LU and Cholesky over MPI on
 * ScaLAPACK's 2D block-cyclic layout, each rank computing its local steps on its own portsolve
 * context (any backend). Link with -lportsolve_mpi and MPI; the single-node library does not
 * depend on MPI.
 *
 * Matrices are described as in ScaLAPACK: desc[9] = {DTYPE = 1, CTXT (ignored: the grid says
 * which processes), M, N, MB, NB, RSRC, CSRC, LLD}, the local array column-major with leading
 * dimension LLD on every rank. (ia, ja) names the first element of the submatrix a call works
 * on, 1-based. As in ScaLAPACK, A and B's rows start on a block boundary (ia - 1 and ib - 1
 * multiples of MB, ja - 1 of NB; others are PS_ERR_INVALID_ARGUMENT with ScaLAPACK's info), and
 * B's rows lie on the same process rows as A's; B's columns may start inside a block when they
 * end in it (past it: PS_ERR_NOT_SUPPORTED). Square blocks (MB = NB) are required for A. Pivots are
 * ScaLAPACK's: ipiv[i] on a rank is the 1-based global row of the whole matrix that local row i was
 * interchanged with (LOCr(M) + MB entries, the same on every rank of a process row; a submatrix's
 * are those of its local rows).
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
 * devices the backend has. Collective; nprow * npcol must equal comm's size (a shape or
 * out that is bad on any rank is PS_ERR_INVALID_ARGUMENT on every rank). */
PS_API ps_status ps_grid_create(ps_grid **out, MPI_Comm comm, int nprow, int npcol,
                                const ps_context_options *opts);
/* Releases the grid, its context and what its calls kept for the next ones (on the MPI
 * transport a page-locked exchange buffer of up to 64 MiB). */
PS_API void ps_grid_destroy(ps_grid *grid);
/* This rank's place in the grid. */
PS_API ps_status ps_grid_coords(const ps_grid *grid, int *myrow, int *mycol);
/* This rank's backend ("cpu", "cuda", "opencl") and device, as ps_context_backend_name and
 * ps_context_device_name say them. */
PS_API const char *ps_grid_backend_name(const ps_grid *grid);
PS_API const char *ps_grid_device_name(const ps_grid *grid);
/* Which transport carries the exchanges of device data between ranks: "nccl" (CUDA devices, one
 * per rank, when libnccl.so.2 loads) or "mpi" (through host memory); dist_transport in
 * PORTSOLVE_TUNING forces "mpi". */
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
 * PS_ERR_NOT_SPD with info when the leading minor of order info is not; the columns before that
 * minor's block are then factored, the rest unspecified. */
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

/*
 * Distributed matrices kept on the grid's devices: upload once, factor once, solve many times.
 * desc lays the matrix out as above (CTXT ignored; LLD is that of the host local arrays upload
 * and download take); the device copy is packed. Every call is collective over the matrix's grid,
 * reports through it (ps_grid_last_error, ps_grid_last_info) and returns the same status on
 * every rank; pivots are ScaLAPACK's, as above. The precision is the matrix's.
 */
typedef struct ps_dist_matrix ps_dist_matrix;
PS_API ps_status ps_dist_matrix_create(ps_grid *grid, ps_dtype dtype, const int desc[9],
                                       ps_dist_matrix **out);
PS_API void ps_dist_matrix_destroy(ps_dist_matrix *m);
PS_API ps_status ps_dist_matrix_upload(ps_dist_matrix *m, const void *a);
PS_API ps_status ps_dist_matrix_download(const ps_dist_matrix *m, void *a);
PS_API ps_grid *ps_dist_matrix_grid(const ps_dist_matrix *m);
/* As ps_p?getrf, ps_p?getrs (trans 'N' or 'T') and ps_p?gesv on the whole matrices; B on A's
 * grid, in A's precision, its rows distributed as A's. */
PS_API ps_status ps_dist_getrf(ps_dist_matrix *A, int *ipiv);
PS_API ps_status ps_dist_getrs(char trans, const ps_dist_matrix *A, const int *ipiv,
                               ps_dist_matrix *B);
PS_API ps_status ps_dist_gesv(ps_dist_matrix *A, int *ipiv, ps_dist_matrix *B);
/* As ps_p?potrf, ps_p?potrs and ps_p?posv. */
PS_API ps_status ps_dist_potrf(char uplo, ps_dist_matrix *A);
PS_API ps_status ps_dist_potrs(char uplo, const ps_dist_matrix *A, ps_dist_matrix *B);
PS_API ps_status ps_dist_posv(char uplo, ps_dist_matrix *A, ps_dist_matrix *B);

#ifdef __cplusplus
}
#endif

#endif
