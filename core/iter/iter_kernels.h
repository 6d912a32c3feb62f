/* The iterative solvers' kernel family: the fused kernels of CG and GMRES without a host round
 * trip per step (core/iter/iter_krylov.c, core/iter/iter_gmres.c) that a backend may fill. The
 * defaults are in iter_kernels.c. */
#ifndef PS_CORE_ITER_KERNELS_H
#define PS_CORE_ITER_KERNELS_H

#include "../backend.h"

#define PS__ITER_KERNELS_ABI 1

/* The conjugate-gradient step's vectors (cg_step): w = A u on entry, s carries A p; u.buf may
 * equal r.buf (no preconditioner, dinv.buf NULL). */
typedef struct ps__cg_vectors {
    ps__vec x, r, u, w, p, s, dinv, xbest;
} ps__cg_vectors;
/* Steps of an arnoldi_steps or arnoldi_restart call whose columns fetch_wait may deliver before
 * the call has finished (a prefix of its fetch; see arnoldi_steps). */
#define PS__ARNOLDI_CHECKPOINT 8

typedef struct ps__iter_kernels {
    ps__family_header header; /* PS__ITER_KERNELS_ABI, sizeof(ps__iter_kernels) */
    /* One step of conjugate gradients in Chronopoulos and Gear's form, after
     * w = A u: one reduction phase per iteration (three dot products at once) instead of the
     * two of Hestenes and Stiefel's. Scalars are read from the device block in and written to
     * the block out (PS__CG_SCALARS elements of dt each, distinct):
     *   if in[STOP]: nothing else; out = in.
     *   gamma = (r, u), delta = (w, u), rr = (r, r), each rounded to dt;
     *   out = in, then ps__cg_scalars(out, gamma, delta, rr, stop_rr, last): out[GAMMA] = gamma,
     *   out[RR] = rr; when rr < in[BEST]: out[BEST] = rr and xbest = x (this x, before any
     *   update); out[STOP] = CONVERGED when rr <= stop_rr, else NOT_FINITE when rr is not
     *   finite, else RZ when gamma = 0. Unless stopped or last: beta = gamma / in[GAMMA] and
     *   denom = delta - beta gamma / in[ALPHA] (the first update, in[ALPHA] = 0: beta = 0,
     *   denom = delta), out[DENOM] = denom; !(denom > 0) sets out[STOP] = PQ; else alpha =
     *   gamma / denom, out[ALPHA] = alpha, and p = u + beta p, s = w + beta s (the first
     *   update: p = u, s = w, whatever p and s held), x += alpha p, r -= alpha s, u = dinv .* r
     *   (u is r when dinv.buf is NULL).
     * last: measure x (rr, the best iterate, the stop) without updating it. A backend may read
     * every vector but w before the operation queued just before this one has finished (CUDA,
     * where CG queues the product into w there): that operation must write w alone. Then, when
     * fetch_slot >= 0, starts fetching out through that slot as fetch_start would (a backend can
     * do it from inside the kernel). Reductions may run in any order (backends differ in the
     * last bits). Vectors are contiguous (inc 1). */
    ps_status (*cg_step)(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v, ps__vec in,
                         ps__vec out, double stop_rr, int last, int fetch_slot);
    /* GMRES's Arnoldi step after w = A M^-1 v_j: classical Gram-Schmidt twice
     * (CGS2) against the k columns of the n x k view v: h1 = v' w, w -= v h1, h2 = v' w,
     * w -= v h2 (each h rounded to dt before it is used); col[0 .. k) = h1, col[k .. 2k) = h2;
     * then col[2k] = ||w||_2 (rounded to dt) and w /= col[2k] when it is positive and finite.
     * The norm is specified only when v's columns are orthonormal to working precision (GMRES's
     * basis; k <= n): a backend may then take it without a reduction of its own as
     * sqrt(||w||^2 - ||h2||^2), ||w|| before the second pass, when that pass removes at most
     * half of ||w||^2 (CUDA's cluster kernel; docs/PERFORMANCE.md). Then, when
     * fetch_slot >= 0, starts fetching col[0 .. 2k] as fetch_start would. k >= 0; w and col are
     * contiguous and do not overlap v. A backend may start reading v before the
     * operation queued just before this one has finished (CUDA, where GMRES queues the product
     * into w there): that operation must not write v. */
    ps_status (*orthonormalize)(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v, ps__vec w,
                                ps__vec col, int fetch_slot);
    /* From now until the next call, nothing writes the rows x cols view a (rows or cols 0: no
     * view; that call ends the previous one). A backend may then let gemv on a start reading a
     * before the work queued ahead of it has finished (CUDA: the product's blocks load their
     * part of a while the step kernel before them still runs, and wait only to read x), and
     * may keep part of a in a cache from one product to the next (CUDA: a share of its lines
     * at a high L2 priority, put back to normal by the call that ends the hold). */
    ps_status (*hold_matrix)(ps__backend *be, ps__dtype dt, int rows, int cols, ps__mat a);
    /* GMRES's Arnoldi steps j0 .. j1 - 1 (0 <= j0 < j1) on the n x n matrix a:
     * each w = A (dinv .* v_j) (dinv.buf NULL: A v_j), orthonormalized against v(:, 0 .. j] as
     * orthonormalize does (k = j + 1) into v(:, j + 1), step j's column (2 (j + 1) + 1 values)
     * at col + (j - j0) col_stride; after a step whose norm is not positive and finite nothing
     * more is written. v(:, 0 .. j0] must be orthonormal. Then, when fetch_slot >= 0, starts
     * fetching the (j1 - j0) col_stride elements at col as fetch_start would (the columns' own
     * values; the fetched copy of what lies between them is unspecified); fetch_wait may then
     * ask for a prefix first (fewer elements from the same src), and a backend may deliver the
     * columns of the first PS__ARNOLDI_CHECKPOINT steps before the call has finished (CUDA:
     * the kernel marks them final in the slot's mapped memory), so that GMRES can see
     * convergence early and cancel the rest (arnoldi_cancel). A backend may take
     * the products in another order or form (CUDA: A v_{j+1} as (A w1 - A V h2) / norm, from the
     * first pass's result w1, while the second pass removes rounding-sized parts), so results
     * agree with per-step calls to rounding, not bitwise. PS_ERR_NOT_SUPPORTED, with nothing
     * queued and no message, when the backend has no such path for these arguments (the
     * default, and CUDA past the order whose matrix fits its SMs: n <= 2048 in double on an
     * H100). dinv, v and col are contiguous columns; col does not overlap v. */
    ps_status (*arnoldi_steps)(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                               ps__mat v, int j0, int j1, ps__vec col, int col_stride,
                               int fetch_slot);
    /* Asks every arnoldi_steps call queued so far to stop soon (GMRES has converged within
     * steps already queued): a step it does not take writes nothing, and later calls are not
     * affected. A hint: a backend may take any number of the steps (the default, whose steps
     * are done by the time arnoldi_steps returns, does nothing; CUDA copies a flag into device
     * memory on a stream of its own, which the kernel reads each step, and stops within two
     * steps of seeing it). */
    void (*arnoldi_cancel)(ps__backend *be);
    /* The start of a GMRES cycle on the n x n matrix a, in order:
     *   x += dinv .* (v(:, 0 .. ky) y) when ky > 0, as gmres_update_x makes it;
     *   r = b - A x into v(:, 0); out[0] = beta = ||r||_2 (rounded to dt);
     *   when beta is positive and finite: v(:, 0) = r / beta, then Arnoldi steps 0 .. j1 - 1 as
     *   arnoldi_steps(j0 = 0, j1) makes them, their columns at out + 1 + j col_stride.
     *   Otherwise v(:, 0) holds r and nothing more is written.
     * Then, when fetch_slot >= 0, starts fetching the 1 + j1 col_stride elements at out as
     * fetch_start would (beta and the columns; what lies between them is unspecified; a prefix
     * of beta and the first PS__ARNOLDI_CHECKPOINT columns as arnoldi_steps says). The
     * product of the first step may be formed from r's (A (dinv .* r) / beta), so results agree
     * with separate calls to rounding. PS_ERR_NOT_SUPPORTED, with nothing queued and no message,
     * when the backend has no such path for these arguments (CUDA: as arnoldi_steps). j1 >= 1
     * and ky at most v's columns; b, x, dinv, v and out are contiguous columns; out overlaps
     * none of them. */
    ps_status (*arnoldi_restart)(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                 ps__vec b, ps__vec x, ps__mat v, int ky, const double *y, int j1,
                                 ps__vec out, int col_stride, int fetch_slot);
    /* x += dinv .* (v(:, 0 .. ky) y) (dinv.buf NULL: x += v(:, 0 .. ky) y), y the
     * ky host doubles, read before the call returns, so the call need not wait for the device;
     * the product is rounded to dt before dinv and x, as gemv, vmul and axpy round. Nothing is
     * read or written when n or ky is 0. PS_ERR_NOT_SUPPORTED, with nothing queued and no
     * message, when the backend has no such path for these arguments (CUDA and OpenCL: ky <=
     * 64). ky at most v's columns; x and dinv are contiguous and overlap no column of v. */
    ps_status (*gmres_update_x)(ps__backend *be, ps__dtype dt, int n, ps__mat v, int ky,
                                const double *y, ps__vec dinv, ps__vec x);
    /* count >= 1 steps of CG on the n x n matrix a: step i is w = A u, then
     * cg_step from the scalar block before it (in for i = 0, else out block i - 1) into out
     * block i (blocks PS__CG_SCALARS elements apart), the step with index last measuring only
     * (last < 0 or >= count: none). A step whose input block has STOP set changes no vector
     * (cg_step's rule), so a backend may end the call at the first step that sets it, filling
     * the later blocks as those steps would (copies). Then, when fetch_slot >= 0, starts
     * fetching the count blocks as fetch_start would. The products may be formed in another
     * order than gemv's, so results agree with per-step calls to rounding, not bitwise. w is
     * scratch: what it holds afterwards is unspecified. PS_ERR_NOT_SUPPORTED, with nothing queued
     * and no message, when the backend has no such path for these arguments (the default; CUDA past
     * the order whose matrix fits its SMs, as arnoldi_steps). The vectors are as cg_step's and
     * contiguous; in and out overlap nothing else. */
    ps_status (*cg_steps)(ps__backend *be, ps__dtype dt, int n, ps__mat a, const ps__cg_vectors *v,
                          ps__vec in, ps__vec out, int count, double stop_rr, int last,
                          int fetch_slot);
} ps__iter_kernels;

const ps__iter_kernels *ps__iter_kernels_defaults(void);
static inline const ps__iter_kernels *ps__iter(ps__backend *be) {
    return (const ps__iter_kernels *)ps__family(be, PS__FAMILY_ITER,
                                                &ps__iter_kernels_defaults()->header);
}

#endif
