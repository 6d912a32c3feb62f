/* Argument and input checks shared by the drivers. */
#ifndef PS_CORE_CHECK_H
#define PS_CORE_CHECK_H

#include "context.h"

/* PS_ERR_NON_FINITE naming the first NaN/Inf element of the rows x cols host array. */
ps_status ps__check_finite(ps_context *ctx, ps__dtype dt, int rows, int cols, const void *a,
                           int lda, const char *fn, const char *name, int pos);
/* The same over the uplo triangle of an n x n array (the part a symmetric routine reads). */
ps_status ps__check_finite_triangle(ps_context *ctx, ps__dtype dt, ps__uplo uplo, int n,
                                    const void *a, int lda, const char *fn, const char *name,
                                    int pos);
/* LAPACK's checks of an array argument (position pos) and its leading dimension (pos + 1): a
 * NULL array when it holds elements (`used`), and ld below max(1, rows), where `dim` names rows
 * in the message ('n', 'm'). The messages read "fn: A is NULL", "fn: lda=0 is less than
 * max(1,n=3)". */
ps_status ps__check_array(ps_context *ctx, const char *fn, char name, const void *a, int used,
                          int ld, char dim, int rows, int pos);
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
