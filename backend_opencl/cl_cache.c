/*
 * The on-disk cache of compiled OpenCL programs, which trusts nothing it did not write.
 *
 * A device binary may hold native code (POCL's do), so a file another user planted, or one
 * truncated or damaged, must never reach the OpenCL runtime:
 * - the folder is used only when it is a directory owned by this user and not writable by group
 *   or others (it is created 0700); otherwise the cache is off for the process and the reason is
 *   written to stderr once;
 * - a file is opened without following links and without blocking (a FIFO cannot hang the
 *   caller), and used only when it is a regular file owned by this user, not writable by others;
 * - each file starts with a header: magic, format version, the key it was built for, the payload's
 *   length and its SHA-256, all checked before the payload is handed to the runtime;
 * - a file is written under a temporary name (mkstemp, mode 0600) and renamed into place, so a
 *   bad file is replaced atomically by the rebuilt program and readers never see half a file.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC          "PSCLBIN\n"
#define FORMAT_VERSION 1u
#define MAX_PAYLOAD    ((uint64_t)1 << 30)

typedef struct header {
    char magic[8];
    uint32_t version, reserved;
    uint64_t key;
    uint64_t length;
    unsigned char sha256[32];
} header;

/* ---- SHA-256 (FIPS 180-4) ---- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, int n) {
    return (x >> n) | (x << (32 - n));
}

static void sha_block(uint32_t h[8], const unsigned char *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 =
            k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
        uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

void ps_cl_sha256(const void *data, size_t len, unsigned char out[32]) {
    uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                     0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    const unsigned char *p = data;
    size_t whole = len / 64 * 64;
    for (size_t i = 0; i < whole; i += 64) sha_block(h, p + i);
    unsigned char tail[128] = {0};
    size_t rest = len - whole, padded = rest < 56 ? 64 : 128;
    memcpy(tail, p + whole, rest);
    tail[rest] = 0x80;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++) tail[padded - 1 - i] = (unsigned char)(bits >> (8 * i));
    for (size_t i = 0; i < padded; i += 64) sha_block(h, tail + i);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
}

/* ---- the folder ---- */

static void refuse_once(const char *dir, const char *why) {
    static int told;
    if (__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED)) return;
    fprintf(stderr, "portsolve: the OpenCL kernel cache is off: %s %s\n", dir, why);
}

/* Whether fd is something this user owns and only this user may write. */
static int owned_and_private(const struct stat *s) {
    return s->st_uid == geteuid() && (s->st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

int ps_cl_cache_dir(char *dir, size_t size) {
    const char *env = getenv("PORTSOLVE_CACHE_DIR");
    if (env && *env)
        snprintf(dir, size, "%s", env);
    else if ((env = getenv("XDG_CACHE_HOME")) && *env)
        snprintf(dir, size, "%s/portsolve", env);
    else if ((env = getenv("HOME")) && *env)
        snprintf(dir, size, "%s/.cache/portsolve", env);
    else
        return 0;
    for (char *p = dir + 1; *p; p++) { /* mkdir -p; the parents are the user's own business */
        if (*p != '/') continue;
        *p = '\0';
        mkdir(dir, 0700);
        *p = '/';
    }
    if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
        refuse_once(dir, "cannot be created");
        return 0;
    }
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat s;
    int ok = fd >= 0 && fstat(fd, &s) == 0 && S_ISDIR(s.st_mode);
    if (fd >= 0) close(fd);
    if (!ok) {
        refuse_once(dir, "is not a directory (or is a symbolic link)");
        return 0;
    }
    if (!owned_and_private(&s)) {
        refuse_once(dir, "is not owned by this user or is writable by group or others");
        return 0;
    }
    return 1;
}

/* ---- files ---- */

unsigned char *ps_cl_cache_read(const char *path, uint64_t key, size_t *len) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return NULL;
    struct stat s;
    header hd;
    unsigned char *payload = NULL;
    if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode) || !owned_and_private(&s) ||
        (uint64_t)s.st_size < sizeof hd || read(fd, &hd, sizeof hd) != (ssize_t)sizeof hd)
        goto done;
    if (memcmp(hd.magic, MAGIC, 8) != 0 || hd.version != FORMAT_VERSION || hd.key != key ||
        hd.length == 0 || hd.length > MAX_PAYLOAD || hd.length != (uint64_t)s.st_size - sizeof hd)
        goto done;
    payload = malloc((size_t)hd.length);
    if (!payload) goto done;
    size_t got = 0;
    while (got < hd.length) {
        ssize_t r = read(fd, payload + got, (size_t)hd.length - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    unsigned char sum[32];
    if (got == hd.length) ps_cl_sha256(payload, got, sum);
    if (got != hd.length || memcmp(sum, hd.sha256, 32) != 0) {
        free(payload);
        payload = NULL;
        goto done;
    }
    *len = got;
done:
    close(fd);
    return payload;
}

void ps_cl_cache_write(const char *path, uint64_t key, const unsigned char *payload, size_t len) {
    header hd;
    memset(&hd, 0, sizeof hd);
    memcpy(hd.magic, MAGIC, 8);
    hd.version = FORMAT_VERSION;
    hd.key = key;
    hd.length = len;
    ps_cl_sha256(payload, len, hd.sha256);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp); /* 0600, a name of its own: concurrent writers never share a file */
    if (fd < 0) return;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        remove(tmp);
        return;
    }
    int ok = fwrite(&hd, sizeof hd, 1, f) == 1 && fwrite(payload, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) remove(tmp);
}
