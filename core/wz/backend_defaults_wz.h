/* The portable defaults of the WZ vtable entries (backend_defaults_wz.c). Internal to core. */
#ifndef PS_CORE_BACKEND_DEFAULTS_WZ_H
#define PS_CORE_BACKEND_DEFAULTS_WZ_H

#include "backend.h"

ps_status ps__default_wz_corner(ps__backend *be, ps__dtype dt, int n, int k, ps__mat a,
                                ps__vec work, void *ipiv, void *info, int pivoting);
ps_status ps__default_wz_panel(ps__backend *be, ps__dtype dt, int m, int w, ps__mat a, ps__vec zsub,
                               void *ipiv, size_t ipiv_off, int row_base, void *info, int pivoting);
int ps__default_wz_panel_width(ps__backend *be, ps__dtype dt, int m);
ps_status ps__default_wz_reorder(ps__backend *be, ps__dtype dt, int n, int ncols, int square,
                                 int to_steps, ps__mat src, ps__mat dst, ps__vec zsub);
ps_status ps__default_wz_zsolve(ps__backend *be, ps__dtype dt, int nb, int nrhs, ps__mat z,
                                ps__vec zsub, ps__mat x);

#endif
