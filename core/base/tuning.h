/* The knobs of a context, as data: core/base/tuning.def lists them, one parser reads them (from the
 * public variables, PORTSOLVE_TUNING and, in tests, ps__tuning_for_tests), and the backends see
 * the result through ps__backend.tuning. Internal. */
#ifndef PS_CORE_TUNING_H
#define PS_CORE_TUNING_H

#include "portsolve.h"

#include <stddef.h>

typedef struct ps__tuning {
#define PS__INT(key, cls, env, lo, hi, step, unset) int key;
#define PS__WORD(key, cls, env, words, unset)       int key;
#define PS__REAL(key, cls, env, lo, hi, unset)      double key;
#define PS__TEXT(key, cls, env, size)               char key[size];
#include "tuning.def"
#undef PS__INT
#undef PS__WORD
#undef PS__REAL
#undef PS__TEXT
} ps__tuning;

typedef enum ps__knob_kind {
    PS__KNOB_INT,
    PS__KNOB_WORD,
    PS__KNOB_REAL,
    PS__KNOB_TEXT
} ps__knob_kind;
typedef enum ps__knob_class { PS__KNOB_PUBLIC, PS__KNOB_TUNING, PS__KNOB_TEST } ps__knob_class;

/* One row of the table. */
typedef struct ps__knob {
    const char *key;
    ps__knob_class cls;
    const char *env; /* the public variable, NULL for the others */
    ps__knob_kind kind;
    double lo, hi, unset;
    int step;
    const char *words; /* '|'-separated, PS__KNOB_WORD */
    size_t offset, size;
} ps__knob;

/* A knob whose unset value is -1, or fallback when nobody set it. */
static inline int ps__knob_or(int value, int fallback) {
    return value >= 0 ? value : fallback;
}

/* The table, count rows. */
const ps__knob *ps__knobs(size_t *count);

/* Every knob at its unset value. */
void ps__tuning_defaults(ps__tuning *t);
/* The defaults, then the public variables, PORTSOLVE_TUNING and the tests' override, in that
 * order; a bad value writes a sentence naming it into msg (PS_ERR_INVALID_ARGUMENT). */
ps_status ps__tuning_read(ps__tuning *t, char *msg, size_t msg_size);
/* Applies "key=value,key=value" (source names it in messages). */
ps_status ps__tuning_apply(ps__tuning *t, const char *source, const char *text, char *msg,
                           size_t msg_size);
/* Tests: text (as PORTSOLVE_TUNING, applied after it) for every context created from now on in
 * this process; NULL clears it. Not thread-safe: call it before creating contexts. */
void ps__tuning_for_tests(const char *text);

#endif
