/* The benchmark programs' strict command-line parser (bench_args.h). */
#include "bench_args.h"
#include "bench_refs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The number in text (all of it), or 0 when text is not one. */
static int read_number(const char *text, double *out) {
    char *end;
    *out = strtod(text, &end);
    return end != text && *end == '\0' && isfinite(*out);
}

static int in_range(const bench_arg *a, double v) {
    return v >= a->lo && v <= a->hi;
}

/* Reads a comma-separated list of numbers into a's array; the count, or -1. (Integer lists are
 * bench_int_list's.) */
static int read_doubles(const bench_arg *a, const char *text) {
    char buf[1024];
    if (strlen(text) >= sizeof buf) return -1;
    memcpy(buf, text, strlen(text) + 1);
    int count = 0;
    for (char *s = buf;;) {
        char *comma = strchr(s, ',');
        if (comma) *comma = '\0';
        double v;
        if (count == a->cap || !read_number(s, &v) || !in_range(a, v)) return -1;
        ((double *)a->out)[count++] = v;
        if (!comma) return count;
        s = comma + 1;
    }
}

/* The index of value (its first len characters) among a's '|'-separated choices, or -1. */
static int read_choice(const bench_arg *a, const char *value, size_t len) {
    const char *c = a->choices;
    for (int index = 0; *c; index++) {
        size_t n = strcspn(c, "|");
        if (n == len && strncmp(c, value, n) == 0) return index;
        c += n + (c[n] == '|');
    }
    return -1;
}

/* Reads value into a; 0 (after saying why) when it is not what a accepts. */
static int read_value(const char *prog, const bench_arg *a, const char *value) {
    double v;
    int index;
    switch (a->kind) {
    case BENCH_STRING:
        *(const char **)a->out = value;
        return 1;
    case BENCH_INT:
        if (read_number(value, &v) && v == floor(v) && in_range(a, v)) {
            *(int *)a->out = (int)v;
            return 1;
        }
        fprintf(stderr, "%s: %s '%s' is not an integer from %.0f to %.0f\n", prog, a->name, value,
                a->lo, a->hi);
        return 0;
    case BENCH_DOUBLE:
        if (read_number(value, &v) && in_range(a, v)) {
            *(double *)a->out = v;
            return 1;
        }
        fprintf(stderr, "%s: %s '%s' is not a number from %g to %g\n", prog, a->name, value, a->lo,
                a->hi);
        return 0;
    case BENCH_INT_LIST:
    case BENCH_DOUBLE_LIST:
        index = a->kind == BENCH_INT_LIST ? bench_int_list(value, a->out, a->cap, (int)a->lo)
                                          : read_doubles(a, value);
        if (index > 0) {
            *a->count = index;
            return 1;
        }
        if (a->kind == BENCH_INT_LIST)
            fprintf(stderr,
                    "%s: %s '%s' is not a list of at most %d integers, each at least %.0f\n", prog,
                    a->name, value, a->cap, a->lo);
        else
            fprintf(stderr, "%s: %s '%s' is not a list of at most %d numbers from %g to %g\n", prog,
                    a->name, value, a->cap, a->lo, a->hi);
        return 0;
    case BENCH_CHOICE:
        if ((index = read_choice(a, value, strlen(value))) >= 0) {
            *(int *)a->out = index;
            return 1;
        }
        fprintf(stderr, "%s: %s '%s' is not one of %s\n", prog, a->name, value, a->choices);
        return 0;
    case BENCH_CHOICE_SET: {
        int set = 0;
        for (const char *s = value;; s++) {
            size_t len = strcspn(s, ",");
            if ((index = read_choice(a, s, len)) < 0) {
                fprintf(stderr, "%s: %s '%s' is not a comma-separated list of %s\n", prog, a->name,
                        value, a->choices);
                return 0;
            }
            set |= 1 << index;
            s += len;
            if (!*s) break;
        }
        *(int *)a->out = set;
        return 1;
    }
    }
    return 0;
}

/* --help: each option with what it takes. */
static void print_usage(const char *prog, const bench_arg *args, size_t nargs) {
    printf("usage: %s [option value]...\noptions:\n", prog);
    for (size_t k = 0; k < nargs; k++) {
        const bench_arg *a = &args[k];
        printf("  %-16s ", a->name);
        switch (a->kind) {
        case BENCH_STRING:
            printf("text\n");
            break;
        case BENCH_INT:
            printf("an integer from %.0f to %.0f\n", a->lo, a->hi);
            break;
        case BENCH_DOUBLE:
            printf("a number from %g to %g\n", a->lo, a->hi);
            break;
        case BENCH_INT_LIST:
            printf("comma-separated integers, each at least %.0f\n", a->lo);
            break;
        case BENCH_DOUBLE_LIST:
            printf("comma-separated numbers from %g to %g\n", a->lo, a->hi);
            break;
        case BENCH_CHOICE:
            printf("one of %s\n", a->choices);
            break;
        case BENCH_CHOICE_SET:
            printf("a comma-separated set of %s\n", a->choices);
            break;
        }
    }
}

int bench_parse_args(const char *prog, int argc, char **argv, const bench_arg *args, size_t nargs) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            print_usage(prog, args, nargs);
            exit(0);
        }
    for (int i = 1; i < argc; i += 2) {
        const bench_arg *a = NULL;
        for (size_t k = 0; k < nargs && !a; k++)
            if (strcmp(argv[i], args[k].name) == 0) a = &args[k];
        if (!a) {
            fprintf(stderr, "%s: unknown option %s; the options are", prog, argv[i]);
            for (size_t k = 0; k < nargs; k++) fprintf(stderr, " %s", args[k].name);
            fputc('\n', stderr);
            return 0;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: %s needs a value\n", prog, argv[i]);
            return 0;
        }
        if (!read_value(prog, a, argv[i + 1])) return 0;
    }
    return 1;
}
