/* Two host threads of an overlapped host driver (core/lu/lu_overlap.c, dist/dist_staged.c): the
 * transfer thread counts the pieces it has staged, the work thread how far it has queued the
 * work (and, where the factors go down as they become final, how far they are), and either
 * waits for the other's count. */
#ifndef PS_CORE_HANDOFF_H
#define PS_CORE_HANDOFF_H

#include "portsolve.h"

#include <pthread.h>

typedef struct ps__handoff {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int staged, go;   /* pieces staged; how far the work is queued, -1: stop */
    int done;         /* how far the work queued makes the factors final */
    ps_status failed; /* the staging's first failure, which ends every wait */
} ps__handoff;

void ps__handoff_init(ps__handoff *h);
void ps__handoff_destroy(ps__handoff *h);
/* Sets *field (&h->staged or &h->go) to value; st, unless PS_SUCCESS, as the staging's failure. */
void ps__handoff_set(ps__handoff *h, int *field, int value, ps_status st);
/* *field now, without waiting. */
int ps__handoff_read(ps__handoff *h, const int *field);
/* Waits until *field reaches value: 0 then, -1 when the staging failed or the work stopped. */
int ps__handoff_wait(ps__handoff *h, const int *field, int value);
/* Waits until *field passes value: *field then, -1 when the staging failed or the work stopped. */
int ps__handoff_wait_beyond(ps__handoff *h, const int *field, int value);

#endif
