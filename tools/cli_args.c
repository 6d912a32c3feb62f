/* The command line of `portsolve solve`, parsed and checked (fuzzed by tests/fuzz). */
#define _POSIX_C_SOURCE 200809L
#include "cli_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static int parse_int(const char *s, int lo, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > 1000000) return 0;
    *out = (int)v;
    return 1;
}

int cli_parse_solve_args(int argc, char **argv, cli_solve_args *a) {
    memset(a, 0, sizeof *a);
    a->sys.method = cli_find_method("lu");
    a->sys.n = -1;
    a->sys.nrhs = 1;
    a->sys.seed = (unsigned long)time(NULL);
    a->tol = -1;
    ps_iter_options defaults = ps_iter_options_default();
    a->max_iter = defaults.max_iter;
    a->restart = defaults.restart;
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(k, "--help") || !strcmp(k, "-h")) return CLI_ARGS_HELP;
        if (!v) {
            fprintf(stderr, "portsolve solve: %s needs a value\n", k);
            return CLI_ARGS_BAD;
        }
        i++;
        char *end;
        if (!strcmp(k, "--method")) {
            if (!(a->sys.method = cli_find_method(v))) {
                fprintf(stderr, "portsolve solve: --method '%s' is not a method (methods: %s)\n", v,
                        cli_method_names());
                return CLI_ARGS_BAD;
            }
        } else if (!strcmp(k, "--backend")) {
            a->backend = v;
        } else if (!strcmp(k, "--matrix")) {
            a->sys.matrix = v;
        } else if (!strcmp(k, "--rhs")) {
            a->sys.rhs = v;
        } else if (!strcmp(k, "--solution")) {
            a->solution = v;
        } else if (!strcmp(k, "--seed")) {
            a->sys.seed = strtoul(v, &end, 10);
            if (end == v || *end) {
                fprintf(stderr, "portsolve solve: --seed '%s' is not a number\n", v);
                return CLI_ARGS_BAD;
            }
        } else if (!strcmp(k, "--n")) {
            if (!parse_int(v, 0, &a->sys.n)) {
                fprintf(stderr, "portsolve solve: --n '%s' is not an order from 0 to 1000000\n", v);
                return CLI_ARGS_BAD;
            }
        } else if (!strcmp(k, "--nrhs")) {
            if (!parse_int(v, 1, &a->sys.nrhs)) {
                fprintf(stderr, "portsolve solve: --nrhs '%s' is not a count from 1\n", v);
                return CLI_ARGS_BAD;
            }
        } else if (!strcmp(k, "--precision")) {
            if (strcmp(v, "s") && strcmp(v, "d")) {
                fprintf(stderr, "portsolve solve: --precision '%s' is neither s nor d\n", v);
                return CLI_ARGS_BAD;
            }
            a->sys.single = v[0] == 's';
        } else if (!strcmp(k, "--tol")) {
            a->tol = strtod(v, &end);
            a->given_iter_option = 1;
            if (end == v || *end || !(a->tol > 0 && a->tol < 1)) {
                fprintf(stderr, "portsolve solve: --tol '%s' is not a number in (0, 1)\n", v);
                return CLI_ARGS_BAD;
            }
        } else if (!strcmp(k, "--max-iter") || !strcmp(k, "--restart")) {
            int *out = !strcmp(k, "--max-iter") ? &a->max_iter : &a->restart;
            a->given_iter_option = 1;
            if (!parse_int(v, 1, out)) {
                fprintf(stderr, "portsolve solve: %s '%s' is not a count from 1\n", k, v);
                return CLI_ARGS_BAD;
            }
        } else if (!strcmp(k, "--precond")) {
            a->given_iter_option = 1;
            if (strcasecmp(v, "none") && strcasecmp(v, "jacobi")) {
                fprintf(stderr, "portsolve solve: --precond '%s' is neither none nor jacobi\n", v);
                return CLI_ARGS_BAD;
            }
            a->precond = strcasecmp(v, "jacobi") == 0;
        } else {
            fprintf(stderr, "portsolve solve: unknown option '%s'\n", k);
            return CLI_ARGS_BAD;
        }
    }
    const cli_method *m = a->sys.method;
    if ((a->sys.n >= 0) == (a->sys.matrix != NULL)) {
        fprintf(stderr, "portsolve solve: give exactly one of --n and --matrix\n");
        return CLI_ARGS_BAD;
    }
    if (a->sys.rhs && !a->sys.matrix) {
        fprintf(stderr, "portsolve solve: --rhs needs --matrix\n");
        return CLI_ARGS_BAD;
    }
    if (m->iterative && a->sys.nrhs != 1) {
        fprintf(stderr, "portsolve solve: --method %s solves one right-hand side, not %d\n",
                m->name, a->sys.nrhs);
        return CLI_ARGS_BAD;
    }
    if (!m->iterative && a->given_iter_option) {
        fprintf(stderr,
                "portsolve solve: --tol, --max-iter, --restart and --precond are the iterative "
                "methods' (jacobi, gs, cg, bicgstab, gmres), not %s's\n",
                m->name);
        return CLI_ARGS_BAD;
    }
    if (m->double_only && a->sys.single) {
        fprintf(stderr,
                "portsolve solve: --method %s takes and returns double (it factors in a lower "
                "precision and refines); leave out --precision s\n",
                m->name);
        return CLI_ARGS_BAD;
    }
    if (a->tol < 0) a->tol = a->sys.single ? 1e-4 : 1e-8;
    return CLI_ARGS_OK;
}
