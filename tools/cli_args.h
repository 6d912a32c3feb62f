/* The command line of `portsolve solve`. */
#ifndef PS_CLI_ARGS_H
#define PS_CLI_ARGS_H

#include "cli_system.h"

typedef struct cli_solve_args {
    cli_system_spec sys;
    const char *backend, *solution;
    /* the iterative methods' settings; given: whether one was on the command line */
    double tol;
    int max_iter, restart, precond, given_iter_option;
} cli_solve_args;

enum { CLI_ARGS_BAD = 0, CLI_ARGS_OK = 1, CLI_ARGS_HELP = 2 };

/* Parses argv[2..] (argv[1] is "solve") into a: CLI_ARGS_OK, CLI_ARGS_HELP for --help, or
 * CLI_ARGS_BAD after saying why on stderr. The strings of a point into argv. */
int cli_parse_solve_args(int argc, char **argv, cli_solve_args *a);

#endif
