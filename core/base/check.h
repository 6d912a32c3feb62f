/* Argument and input checks shared by the drivers. */
#ifndef PS_CORE_CHECK_H
#define PS_CORE_CHECK_H

#include "base/context.h"

/* The part of an array a finite check reads: all of it, or the triangle of a symmetric routine
 * (PS__UPPER, PS__LOWER). */
enum { PS__SHAPE_ALL = -1 };
/* A host input that must hold no NaN or Inf in its shape's part; a failure names fn, the array
 * and its argument position (LAPACK's info = -pos). */
typedef struct ps__finite_check {
    const char *fn;
    const char *name;
    int pos;
    int shape; /* PS__SHAPE_ALL, PS__UPPER or PS__LOWER */
} ps__finite_check;

/* The rows [*first, *end) of column j that shape reads, of rows rows. */
static inline void ps__shape_rows(int shape, int rows, int j, int *first, int *end) {
    *first = shape == PS__LOWER ? j : 0;
    *end = shape == PS__UPPER ? (j + 1 < rows ? j + 1 : rows) : rows;
    if (*first > *end) *first = *end;
}
/* 1 when some of the count contiguous elements is NaN or Inf (exponent bits all ones; integer
 * tests OR-reduced, so the loop vectorizes and costs about one read of the data). */
int ps__range_nonfinite(ps__dtype dt, const void *a, size_t count);
/* The same test while copying the count elements from src to dst (not overlapping) in one pass. */
int ps__copy_nonfinite(ps__dtype dt, void *restrict dst, const void *restrict src, size_t count);
/* PS_ERR_NON_FINITE naming the first NaN/Inf in columns col0 .. col0 + cols - 1 of the host
 * array a (leading dimension lda), or PS_SUCCESS when there is none. */
ps_status ps__report_nonfinite(ps_context *ctx, ps__dtype dt, const ps__finite_check *check,
                               int rows, int col0, int cols, const void *a, int lda);
/* LAPACK's checks of an array argument (position pos) and its leading dimension (pos + 1): a
 * NULL array when it holds elements (`used`), and ld below max(1, rows), where `dim` names rows
 * in the message ('n', 'm'). The messages read "fn: A is NULL", "fn: lda=0 is less than
 * max(1,n=3)". */
ps_status ps__check_array(ps_context *ctx, const char *fn, char name, const void *a, int used,
                          int ld, char dim, int rows, int pos);
/* Refuses (argument pos, LAPACK's info -pos) an output array b that shares memory with array a:
 * a is rows x acols with leading dimension lda, b rows x bcols with ldb, elements of es bytes.
 * The drivers read a while they write b, so a shared element would be read after it changed. */
ps_status ps__check_separate(ps_context *ctx, const char *fn, const void *a, char aname, int lda,
                             int acols, const void *b, char bname, int ldb, int bcols, int rows,
                             size_t es, int pos);
/* Parses an uplo character ('L' or 'U', either case). */
ps_status ps__parse_uplo(ps_context *ctx, char c, ps__uplo *uplo, const char *fn, int pos);
/* Checks a 1-based LAPACK pivot vector of n entries for a matrix of order n. */
ps_status ps__check_pivots(ps_context *ctx, int n, const int *ipiv, const char *fn, int pos);
/* Parses a trans character ('N', 'T', 'C', either case). */
ps_status ps__parse_trans(ps_context *ctx, char c, ps__trans *trans, const char *fn, int pos);

/* Uploads 1-based host pivots as 0-based int32 device pivots (into a scratch buffer). */
ps_status ps__upload_pivots(ps__scratch *s, int n, const int *ipiv, void **dev_ipiv);
/* Downloads 0-based device pivots into a 1-based host vector. */
ps_status ps__download_pivots(ps_context *ctx, int n, const void *dev_ipiv, int *ipiv);
/* Reads the device info word of a factorization. */
ps_status ps__read_info(ps_context *ctx, const void *dev_info, int *info);

#endif
