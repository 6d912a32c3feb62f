/* Fuzz target: the Matrix Market reader (tools/mmio.c) on any bytes, written to a scratch file
 * (the reader takes regular files by path). Built with libFuzzer by scripts/fuzz.sh, and with
 * replay.c as a plain program that runs the corpus and the regressions in CTest. */
#define _POSIX_C_SOURCE 200809L
#include "mmio.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "/tmp/portsolve-fuzz-mmio-%ld.mtx", (long)getpid());
    }
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
    mm_dense m = {0, 0, NULL};
    char err[256];
    /* matrices up to 64 MB, so that a declared size cannot exhaust the fuzzer's memory */
    if (mm_read_dense_within(path, 64e6, &m, err, sizeof err) == 0) {
        if (m.rows < 0 || m.cols < 0 || (m.rows > 0 && m.cols > 0 && !m.values)) abort();
        free(m.values);
    }
    remove(path);
    return 0;
}
