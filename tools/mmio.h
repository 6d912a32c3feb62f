/* A reader for Matrix Market files (https://math.nist.gov/MatrixMarket/formats.html):
 * "matrix coordinate|array real|integer general|symmetric|skew-symmetric", into a dense
 * column-major double array. Malformed files are reported with the file name and line number. */
#ifndef PS_TOOLS_MMIO_H
#define PS_TOOLS_MMIO_H

#include <stddef.h>

typedef struct mm_dense {
    int rows, cols;
    double *values; /* rows x cols, column-major, leading dimension rows; caller frees */
} mm_dense;

/* Returns 0 on success; otherwise nonzero with a "file:line: reason" message in err. */
int mm_read_dense(const char *path, mm_dense *out, char *err, size_t err_size);
/* As mm_read_dense, refusing a matrix that with its working copy needs more than max_bytes
 * (0: the machine's physical memory). */
int mm_read_dense_within(const char *path, double max_bytes, mm_dense *out, char *err,
                         size_t err_size);
/* Writes a rows x cols array in Matrix Market array format. Returns 0 on success. */
int mm_write_dense(const char *path, int rows, int cols, const double *values, int ld);

#endif
