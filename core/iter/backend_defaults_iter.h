/* The portable defaults of the iterative solvers' entries (backend_defaults_iter.c). Internal to
 * core. */
#ifndef PS_CORE_BACKEND_DEFAULTS_ITER_H
#define PS_CORE_BACKEND_DEFAULTS_ITER_H

#include "backend.h"

ps_status ps__default_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src);
ps_status ps__default_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                                 void *host);
ps_status ps__default_cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v,
                              ps__vec in, ps__vec out, double stop_rr, int last, int fetch_slot);
ps_status ps__default_orthonormalize(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v,
                                     ps__vec w, ps__vec col, int fetch_slot);
ps_status ps__default_arnoldi_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                    ps__mat v, int j0, int j1, ps__vec col, int col_stride,
                                    int fetch_slot);
ps_status ps__default_arnoldi_restart(ps__backend *be, ps__dtype dt, int n, ps__mat a, ps__vec dinv,
                                      ps__vec b, ps__vec x, ps__mat v, int ky, const double *y,
                                      int j1, ps__vec out, int col_stride, int fetch_slot);
ps_status ps__default_gmres_update_x(ps__backend *be, ps__dtype dt, int n, ps__mat v, int ky,
                                     const double *y, ps__vec dinv, ps__vec x);
ps_status ps__default_cg_steps(ps__backend *be, ps__dtype dt, int n, ps__mat a,
                               const ps__cg_vectors *v, ps__vec in, ps__vec out, int count,
                               double stop_rr, int last, int fetch_slot);

#endif
