/* Runs a fuzz target (LLVMFuzzerTestOneInput) once on each file named on the command line, for
 * CTest: the seed corpus and every input that ever failed (tests/fuzz/regressions). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            fprintf(stderr, "replay: cannot open %s\n", argv[i]);
            return 1;
        }
        size_t cap = 1 << 16, n = 0;
        unsigned char *buf = malloc(cap);
        size_t got;
        while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
            n += got;
            if (n == cap) buf = realloc(buf, cap *= 2);
        }
        fclose(f);
        if (!buf) return 1;
        LLVMFuzzerTestOneInput(buf, n);
        free(buf);
    }
    printf("replay: %d inputs, none failed\n", argc - 1);
    return 0;
}
