/* Fuzz target: `portsolve solve`'s argument parser (tools/cli_args.c). The input is split at
 * newlines into at most 32 arguments after "portsolve solve". (Its messages go to stderr, which
 * scripts/fuzz.sh closes with libFuzzer's -close_fd_mask.) */
#include "cli_args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = malloc(size + 1), *argv[34] = {"portsolve", "solve"};
    if (!text) abort();
    memcpy(text, data, size);
    text[size] = 0;
    int argc = 2;
    for (char *p = text; argc < 34;) {
        argv[argc++] = p;
        char *nl = strchr(p, '\n');
        if (!nl) break;
        *nl = 0;
        p = nl + 1;
    }
    cli_solve_args a;
    int rc = cli_parse_solve_args(argc, argv, &a);
    if (rc == CLI_ARGS_OK && (!a.sys.method || (a.sys.n < 0) == (a.sys.matrix == NULL))) abort();
    free(text);
    return 0;
}
