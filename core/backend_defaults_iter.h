/* The portable defaults of the iterative solvers' entries (backend_defaults_iter.c). Internal to
 * core. */
#ifndef PS_CORE_BACKEND_DEFAULTS_ITER_H
#define PS_CORE_BACKEND_DEFAULTS_ITER_H

#include "backend.h"

ps_status ps__default_fetch_start(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src);
ps_status ps__default_fetch_wait(ps__backend *be, ps__dtype dt, int slot, int count, ps__vec src,
                                 void *host);
ps_status ps__default_cg_step(ps__backend *be, ps__dtype dt, int n, const ps__cg_vectors *v,
                              ps__vec in, ps__vec out, double stop_rr, int fetch_slot);
ps_status ps__default_orthonormalize(ps__backend *be, ps__dtype dt, int n, int k, ps__mat v,
                                     ps__vec w, ps__vec col, int fetch_slot);

/* The end of a conjugate-gradient step as cg_step defines it, on host scalars s[PS__CG_*]
 * (rz_new and rr already rounded to the data's precision). Shared with the CPU backend. */
static inline void ps__cg_finish(double *s, double rz_new, double rr, double pq, double stop_rr) {
    s[PS__CG_RZ] = rz_new;
    s[PS__CG_RR] = rr;
    s[PS__CG_PQ] = pq;
    s[PS__CG_SAVE] = rr < s[PS__CG_BEST];
    if (rr < s[PS__CG_BEST]) s[PS__CG_BEST] = rr;
    s[PS__CG_STOP] = rr <= stop_rr     ? PS__CG_STOP_CONVERGED
                     : !(rr - rr == 0) ? PS__CG_STOP_NOT_FINITE
                     : rz_new == 0     ? PS__CG_STOP_RZ
                                       : 0;
}

#endif
