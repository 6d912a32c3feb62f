/* The overlapped host drivers' hand-over between their two threads (handoff.h). */
#include "base/handoff.h"

void ps__handoff_init(ps__handoff *h) {
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->changed, NULL);
    h->staged = h->go = h->done = 0;
    h->failed = PS_SUCCESS;
}

void ps__handoff_destroy(ps__handoff *h) {
    pthread_cond_destroy(&h->changed);
    pthread_mutex_destroy(&h->lock);
}

void ps__handoff_set(ps__handoff *h, int *field, int value, ps_status st) {
    pthread_mutex_lock(&h->lock);
    *field = value;
    if (st && !h->failed) h->failed = st;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}

int ps__handoff_read(ps__handoff *h, const int *field) {
    pthread_mutex_lock(&h->lock);
    int value = *field;
    pthread_mutex_unlock(&h->lock);
    return value;
}

int ps__handoff_wait(ps__handoff *h, const int *field, int value) {
    pthread_mutex_lock(&h->lock);
    while (*field < value && h->go >= 0 && !h->failed) pthread_cond_wait(&h->changed, &h->lock);
    int reached = *field >= value && !h->failed;
    pthread_mutex_unlock(&h->lock);
    return reached ? 0 : -1;
}

int ps__handoff_wait_beyond(ps__handoff *h, const int *field, int value) {
    pthread_mutex_lock(&h->lock);
    while (*field <= value && h->go >= 0 && !h->failed) pthread_cond_wait(&h->changed, &h->lock);
    int now = *field > value && !h->failed ? *field : -1;
    pthread_mutex_unlock(&h->lock);
    return now;
}
