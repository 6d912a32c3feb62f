/* libportsolve_lapack: LAPACK's Fortran symbols routed to portsolve. This part decides where a
 * call runs (a portsolve context of the calling thread, or the host LAPACK the process would have
 * used), finds the host LAPACK's symbols, and writes the verbose log. */
#ifndef PS_LAPACK_ROUTE_H
#define PS_LAPACK_ROUTE_H

#include "portsolve.h"

#include <stddef.h>

/* The LAPACK symbols this library exports (everything else is hidden). */
#define PS_LAPACK_EXPORT __attribute__((visibility("default")))

/* The calling thread's context when a call of order n in dtype should run on portsolve, NULL when
 * it goes to the host LAPACK (below the routing order, or no context could be created). */
ps_context *ps__lapack_route(ps_dtype dtype, int n);
/* The host LAPACK's function of that name (never this library's): the one the dynamic linker
 * finds next, or PORTSOLVE_LAPACK_FALLBACK's. Exits with a message when there is none. */
void *ps__lapack_host(const char *name);
/* The call's start time, for ps__lapack_log. */
double ps__lapack_now(void);
/* One line to stderr when PORTSOLVE_LAPACK_VERBOSE=1: routine, sizes, where it ran (ctx NULL:
 * the host LAPACK; why: NULL, or the reason portsolve handed it back), seconds since start. */
void ps__lapack_log(const char *routine, int m, int n, int nrhs, ps_context *ctx, const char *why,
                    double start);
/* LAPACK's error exit: the caller's xerbla_ with the routine's name and argument number. */
void ps__lapack_xerbla(const char *routine, int arg);

/* Whether a LAPACK character argument is c (LAPACK's lsame: either case). */
static inline int ps__lapack_is(const char *arg, char c) {
    char a = *arg;
    if (a >= 'a' && a <= 'z') a = (char)(a - 'a' + 'A');
    return a == c;
}
static inline int ps__lapack_max1(int v) {
    return v > 1 ? v : 1;
}

#endif
