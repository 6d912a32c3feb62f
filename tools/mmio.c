#define _POSIX_C_SOURCE 200809L /* getline, fdopen */
#include "mmio.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    FILE *f;
    const char *path;
    int line;
    char *buf; /* the current line, whole (getline), however long */
    size_t cap;
    char *err;
    size_t err_size;
} reader;

/* Reads the next line into r->buf; 0 at end of file. */
static int read_line(reader *r) {
    return getline(&r->buf, &r->cap, r->f) >= 0;
}

__attribute__((format(printf, 2, 3))) static int fail(reader *r, const char *fmt, ...) {
    int n = snprintf(r->err, r->err_size, "%s:%d: ", r->path, r->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->err_size) vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
    va_end(ap);
    return 1;
}

/* Next line that is neither a comment nor blank; NULL at end of file. */
static char *next_data_line(reader *r) {
    while (read_line(r)) {
        r->line++;
        char *p = r->buf;
        while (isspace((unsigned char)*p)) p++;
        if (*p && *p != '%') return p;
    }
    return NULL;
}

/* Parses up to max numbers separated by blanks; returns how many, -1 on a malformed token. */
static int parse_numbers(const char *p, double *vals, int max) {
    int n = 0;
    for (;;) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) return n;
        if (n == max) return -1;
        char *end;
        errno = 0;
        vals[n] = strtod(p, &end);
        if (end == p || (*end && !isspace((unsigned char)*end))) return -1;
        n++;
        p = end;
    }
}

static int as_index(double v, int limit, int *out) {
    if (!(v >= 1 && v <= limit) || v != floor(v)) return 0; /* NaN fails the first test */
    *out = (int)v - 1;
    return 1;
}

/* Opens path for reading when it is a regular file: a FIFO or a device would block or never
 * end, and a directory has no lines. */
static FILE *open_regular(const char *path, char *err, size_t err_size) {
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat s;
    if (fstat(fd, &s) != 0 || !S_ISREG(s.st_mode)) {
        snprintf(err, err_size, "%s: not a regular file", path);
        close(fd);
        return NULL;
    }
    int flags = fcntl(fd, F_GETFL);
    if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "r");
    if (!f) {
        snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
        close(fd);
    }
    return f;
}

/* The bytes of physical memory, or 0 when unknown. */
static double physical_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 0;
}

int mm_read_dense(const char *path, mm_dense *out, char *err, size_t err_size) {
    return mm_read_dense_within(path, 0, out, err, err_size);
}

int mm_read_dense_within(const char *path, double max_bytes, mm_dense *out, char *err,
                         size_t err_size) {
    reader r = {NULL, path, 0, NULL, 0, err, err_size};
    out->rows = out->cols = 0;
    out->values = NULL;
    r.f = open_regular(path, err, err_size);
    if (!r.f) return 1;
    int rc = 1;
    double *a = NULL;
    char object[32], format[32], field[32], symmetry[32];
    if (!read_line(&r)) {
        fail(&r, "empty file");
        goto done;
    }
    r.line = 1;
    if (sscanf(r.buf, "%%%%MatrixMarket %31s %31s %31s %31s", object, format, field, symmetry) !=
        4) {
        fail(&r, "expected the header '%%%%MatrixMarket matrix <format> <field> <symmetry>'");
        goto done;
    }
    if (strcasecmp(object, "matrix") != 0) {
        fail(&r, "object '%s' is not supported (only 'matrix')", object);
        goto done;
    }
    int coordinate = strcasecmp(format, "coordinate") == 0;
    if (!coordinate && strcasecmp(format, "array") != 0) {
        fail(&r, "format '%s' is neither 'coordinate' nor 'array'", format);
        goto done;
    }
    if (strcasecmp(field, "real") != 0 && strcasecmp(field, "integer") != 0 &&
        strcasecmp(field, "double") != 0) {
        fail(&r, "field '%s' is not supported (real or integer)", field);
        goto done;
    }
    int sym = 0; /* 0 general, 1 symmetric, -1 skew-symmetric */
    if (strcasecmp(symmetry, "symmetric") == 0)
        sym = 1;
    else if (strcasecmp(symmetry, "skew-symmetric") == 0)
        sym = -1;
    else if (strcasecmp(symmetry, "general") != 0) {
        fail(&r, "symmetry '%s' is not supported (general, symmetric, skew-symmetric)", symmetry);
        goto done;
    }

    char *p = next_data_line(&r);
    if (!p) {
        fail(&r, "missing the size line");
        goto done;
    }
    double size[3];
    int want = coordinate ? 3 : 2, got = parse_numbers(p, size, 3);
    int rows, cols;
    if (got != want || !as_index(size[0], 1 << 30, &rows) || !as_index(size[1], 1 << 30, &cols)) {
        fail(&r, "expected the size line '%s', found '%.60s'",
             coordinate ? "rows cols entries" : "rows cols", strtok(p, "\n"));
        goto done;
    }
    rows++, cols++;
    if (sym && rows != cols) {
        fail(&r, "a %s matrix must be square, not %d x %d", symmetry, rows, cols);
        goto done;
    }
    /* the dense matrix, and the solver's copy of it: refuse before allocating what this machine
     * cannot hold, with the numbers */
    double need = 2.0 * rows * (double)cols * sizeof *a;
    double have = max_bytes > 0 ? max_bytes : physical_memory();
    if (have > 0 && need > have) {
        fail(&r, "a dense %d x %d matrix and its working copy need %.3g GB; %s %.3g GB", rows, cols,
             need / 1e9, max_bytes > 0 ? "the limit is" : "this machine has", have / 1e9);
        goto done;
    }
    a = calloc((size_t)rows * (size_t)cols, sizeof *a);
    if (!a) {
        fail(&r, "out of memory for a %d x %d matrix", rows, cols);
        goto done;
    }
    if (coordinate) {
        if (!(size[2] >= 0 && size[2] <= 1e18) || size[2] != floor(size[2])) {
            fail(&r, "the entry count '%g' is not a non-negative integer", size[2]);
            goto done;
        }
        long entries = (long)size[2];
        for (long e = 0; e < entries; e++) {
            if (!(p = next_data_line(&r))) {
                fail(&r, "file ends after %ld of %ld entries", e, entries);
                goto done;
            }
            double v[3];
            int i, j;
            if (parse_numbers(p, v, 3) != 3) {
                fail(&r, "expected 'row col value'");
                goto done;
            }
            if (!as_index(v[0], rows, &i) || !as_index(v[1], cols, &j)) {
                fail(&r, "index (%g, %g) is outside the %d x %d matrix", v[0], v[1], rows, cols);
                goto done;
            }
            if (sym && i < j) {
                fail(&r, "entry (%d, %d) is above the diagonal of a %s matrix", i + 1, j + 1,
                     symmetry);
                goto done;
            }
            if (sym == -1 && i == j) {
                fail(&r, "a skew-symmetric matrix has no diagonal entry (%d, %d)", i + 1, j + 1);
                goto done;
            }
            a[i + (size_t)j * rows] += v[2]; /* duplicates add up */
            if (sym && i != j) a[j + (size_t)i * rows] += sym * v[2];
        }
    } else {
        /* column-major; symmetric files hold the lower triangle only */
        for (int j = 0; j < cols; j++)
            for (int i = sym ? j + (sym < 0) : 0; i < rows; i++) {
                if (!(p = next_data_line(&r))) {
                    fail(&r, "file ends before element (%d, %d)", i + 1, j + 1);
                    goto done;
                }
                double v;
                if (parse_numbers(p, &v, 1) != 1) {
                    fail(&r, "expected one value for element (%d, %d)", i + 1, j + 1);
                    goto done;
                }
                a[i + (size_t)j * rows] = v;
                if (sym && i != j) a[j + (size_t)i * rows] = sym * v;
            }
    }
    if ((p = next_data_line(&r))) {
        fail(&r, "unexpected data after the last entry");
        goto done;
    }
    out->rows = rows;
    out->cols = cols;
    out->values = a;
    a = NULL;
    rc = 0;
done:
    free(a);
    free(r.buf);
    fclose(r.f);
    return rc;
}

int mm_write_dense(const char *path, int rows, int cols, const double *values, int ld) {
    FILE *f = fopen(path, "w");
    if (!f) return 1;
    fprintf(f, "%%%%MatrixMarket matrix array real general\n%d %d\n", rows, cols);
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) fprintf(f, "%.17g\n", values[i + (size_t)j * ld]);
    return fclose(f) != 0;
}
