/* The benchmark programs' command lines: each program describes its options in a table, and one
 * strict parser reads them, so a mistyped value stops the run with a message instead of
 * measuring something else (a GPU run is too short to repeat). */
#ifndef PS_BENCH_ARGS_H
#define PS_BENCH_ARGS_H

#include <stddef.h>

typedef enum bench_arg_kind {
    BENCH_STRING,      /* out: const char **, any text */
    BENCH_INT,         /* out: int *, an integer from lo to hi */
    BENCH_DOUBLE,      /* out: double *, a number from lo to hi */
    BENCH_INT_LIST,    /* out: int[cap], comma-separated integers, each at least lo */
    BENCH_DOUBLE_LIST, /* out: double[cap], comma-separated numbers, each from lo to hi */
    BENCH_CHOICE,      /* out: int *, the index of the value among choices ("d|s") */
    BENCH_CHOICE_SET   /* out: int *, a bit per choice named in a comma-separated list */
} bench_arg_kind;

typedef struct bench_arg {
    const char *name; /* "--sizes" */
    bench_arg_kind kind;
    void *out;
    double lo, hi;       /* BENCH_INT, BENCH_DOUBLE, BENCH_DOUBLE_LIST: the range; lists: lo */
    int cap;             /* lists: the capacity of out */
    int *count;          /* lists: the number of values read */
    const char *choices; /* BENCH_CHOICE, BENCH_CHOICE_SET: the accepted values, '|'-separated */
} bench_arg;

/* The table's rows, by kind. */
#define BENCH_ARG_STRING(n, p)                                                                     \
    { .name = n, .kind = BENCH_STRING, .out = p }
#define BENCH_ARG_INT(n, p, least, most)                                                           \
    { .name = n, .kind = BENCH_INT, .out = p, .lo = least, .hi = most }
#define BENCH_ARG_DOUBLE(n, p, least, most)                                                        \
    { .name = n, .kind = BENCH_DOUBLE, .out = p, .lo = least, .hi = most }
#define BENCH_ARG_INTS(n, array, capacity, counter, least)                                         \
    {                                                                                              \
        .name = n, .kind = BENCH_INT_LIST, .out = array, .cap = capacity, .count = counter,        \
        .lo = least                                                                                \
    }
#define BENCH_ARG_DOUBLES(n, array, capacity, counter, least, most)                                \
    {                                                                                              \
        .name = n, .kind = BENCH_DOUBLE_LIST, .out = array, .cap = capacity, .count = counter,     \
        .lo = least, .hi = most                                                                    \
    }
#define BENCH_ARG_CHOICE(n, p, among)                                                              \
    { .name = n, .kind = BENCH_CHOICE, .out = p, .choices = among }
#define BENCH_ARG_CHOICE_SET(n, p, among)                                                          \
    { .name = n, .kind = BENCH_CHOICE_SET, .out = p, .choices = among }

/* Reads argv[1..argc) as "--name value" pairs against args[0..nargs). Returns 1, or 0 after
 * saying on stderr, prefixed by prog, which option or value is wrong and what it accepts. Options
 * not given keep what out held. */
int bench_parse_args(const char *prog, int argc, char **argv, const bench_arg *args, size_t nargs);

#endif
