/* The one parser of the knob table (core/base/tuning.def). */
#include "base/tuning.h"
#include "base/context.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PUBLIC PS__KNOB_PUBLIC
#define TUNING PS__KNOB_TUNING
#define TEST   PS__KNOB_TEST
static const ps__knob knobs[] = {
#define PS__INT(key, cls, env, lo, hi, step, unset)                                                \
    {#key,       cls, env, PS__KNOB_INT, lo, hi, unset, step, NULL, offsetof(ps__tuning, key),     \
     sizeof(int)},
#define PS__WORD(key, cls, env, words, unset)                                                      \
    {#key, cls, env, PS__KNOB_WORD, 0, 0, unset, 1, words, offsetof(ps__tuning, key), sizeof(int)},
#define PS__REAL(key, cls, env, lo, hi, unset)                                                     \
    {#key,          cls, env, PS__KNOB_REAL, lo, hi, unset, 0, NULL, offsetof(ps__tuning, key),    \
     sizeof(double)},
#define PS__TEXT(key, cls, env, size)                                                              \
    {#key, cls, env, PS__KNOB_TEXT, 0, 0, 0, 0, NULL, offsetof(ps__tuning, key), size},
#include "tuning.def"
#undef PS__INT
#undef PS__WORD
#undef PS__REAL
#undef PS__TEXT
};
#undef PUBLIC
#undef TUNING
#undef TEST

#define KNOB_COUNT (sizeof knobs / sizeof knobs[0])

static char test_override[1024];

const ps__knob *ps__knobs(size_t *count) {
    *count = KNOB_COUNT;
    return knobs;
}

void ps__tuning_for_tests(const char *text) {
    snprintf(test_override, sizeof test_override, "%s", text ? text : "");
}

void ps__tuning_defaults(ps__tuning *t) {
    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < KNOB_COUNT; i++) {
        char *field = (char *)t + knobs[i].offset;
        if (knobs[i].kind == PS__KNOB_REAL)
            *(double *)field = knobs[i].unset;
        else if (knobs[i].kind != PS__KNOB_TEXT)
            *(int *)field = (int)knobs[i].unset;
    }
}

/* The index of value (len bytes, any case) among k's words, or -1. */
static int word_index(const ps__knob *k, const char *value, size_t len) {
    const char *w = k->words;
    for (int index = 0; *w; index++) {
        size_t wlen = strcspn(w, "|");
        char given[64];
        if (len == wlen && len < sizeof given) {
            memcpy(given, value, len);
            given[len] = '\0';
            char word[64];
            memcpy(word, w, wlen);
            word[wlen] = '\0';
            if (ps__name_is(word, given)) return index;
        }
        w += wlen;
        if (*w == '|') w++;
    }
    return -1;
}

/* What k accepts, for messages. */
static void describe(const ps__knob *k, char *out, size_t size) {
    switch (k->kind) {
    case PS__KNOB_INT:
        if (k->step > 1)
            snprintf(out, size, "a multiple of %d from %.0f to %.0f", k->step, k->lo, k->hi);
        else
            snprintf(out, size, "an integer from %.0f to %.0f", k->lo, k->hi);
        break;
    case PS__KNOB_WORD: {
        int n = snprintf(out, size, "one of: ");
        for (const char *w = k->words; *w && n >= 0 && (size_t)n < size; w++)
            n += snprintf(out + n, size - (size_t)n, *w == '|' ? ", " : "%c", *w);
        break;
    }
    case PS__KNOB_REAL:
        snprintf(out, size, "a number from %g to %g", k->lo, k->hi);
        break;
    case PS__KNOB_TEXT:
        snprintf(out, size, "a string of at most %zu bytes without commas", k->size - 1);
        break;
    }
}

/* Sets k from value (len bytes). */
static ps_status set_knob(ps__tuning *t, const ps__knob *k, const char *source, const char *value,
                          size_t len, char *msg, size_t msg_size) {
    char text[600];
    char *field = (char *)t + k->offset;
    int ok = len < sizeof text;
    if (ok) {
        memcpy(text, value, len);
        text[len] = '\0';
    }
    if (ok && k->kind == PS__KNOB_WORD) {
        int index = word_index(k, value, len);
        ok = index >= 0;
        if (ok) *(int *)field = index;
    } else if (ok && k->kind == PS__KNOB_TEXT) {
        ok = len < k->size;
        if (ok) memcpy(field, text, len + 1);
    } else if (ok) {
        char *end;
        errno = 0;
        double v = k->kind == PS__KNOB_INT ? (double)strtol(text, &end, 10) : strtod(text, &end);
        ok = len > 0 && !errno && !*end && v >= k->lo && v <= k->hi &&
             (k->kind == PS__KNOB_REAL || (long)v % k->step == 0);
        if (ok && k->kind == PS__KNOB_INT) *(int *)field = (int)v;
        if (ok && k->kind == PS__KNOB_REAL) *(double *)field = v;
    }
    if (ok) return PS_SUCCESS;
    char accepted[160];
    describe(k, accepted, sizeof accepted);
    int shown = (int)(len > 64 ? 64 : len);
    if (k->env && !strcmp(source, k->env)) /* the public variable names the knob itself */
        snprintf(msg, msg_size, "%s='%.*s' is not %s", source, shown, value, accepted);
    else
        snprintf(msg, msg_size, "%s: %s='%.*s' is not %s", source, k->key, shown, value, accepted);
    return PS_ERR_INVALID_ARGUMENT;
}

static const ps__knob *find(const char *key, size_t len) {
    for (size_t i = 0; i < KNOB_COUNT; i++)
        if (strlen(knobs[i].key) == len && !strncmp(knobs[i].key, key, len)) return &knobs[i];
    return NULL;
}

ps_status ps__tuning_apply(ps__tuning *t, const char *source, const char *text, char *msg,
                           size_t msg_size) {
    const char *p = text;
    while (p && *p) {
        size_t item = strcspn(p, ",");
        const char *eq = memchr(p, '=', item);
        if (item > 0) {
            const ps__knob *k = eq ? find(p, (size_t)(eq - p)) : NULL;
            if (!k) {
                int n = snprintf(msg, msg_size,
                                 "%s: '%.*s' is not key=value with a known key;"
                                 " the keys:",
                                 source, (int)(item > 64 ? 64 : item), p);
                for (size_t i = 0; i < KNOB_COUNT && n >= 0 && (size_t)n < msg_size; i++)
                    n += snprintf(msg + n, msg_size - (size_t)n, " %s", knobs[i].key);
                return PS_ERR_INVALID_ARGUMENT;
            }
            PS__TRY(set_knob(t, k, source, eq + 1, item - (size_t)(eq + 1 - p), msg, msg_size));
        }
        p += item;
        if (*p == ',') p++;
    }
    return PS_SUCCESS;
}

ps_status ps__tuning_read(ps__tuning *t, char *msg, size_t msg_size) {
    ps__tuning_defaults(t);
    for (size_t i = 0; i < KNOB_COUNT; i++) {
        const char *v = knobs[i].env ? getenv(knobs[i].env) : NULL;
        if (v && *v) PS__TRY(set_knob(t, &knobs[i], knobs[i].env, v, strlen(v), msg, msg_size));
    }
    PS__TRY(ps__tuning_apply(t, "PORTSOLVE_TUNING", getenv("PORTSOLVE_TUNING"), msg, msg_size));
    return ps__tuning_apply(t, "ps__tuning_for_tests", test_override, msg, msg_size);
}
