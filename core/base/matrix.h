/* ps_matrix internals. */
#ifndef PS_CORE_MATRIX_H
#define PS_CORE_MATRIX_H

#include "base/context.h"

struct ps_matrix {
    ps_context *ctx;
    ps__dtype dt;
    int rows, cols, ld;
    void *buf;  /* backend buffer */
    size_t off; /* element offset of (0,0) in buf */
    int owns;   /* 0 for a wrapped caller buffer, which destroy leaves alone */
};

static inline ps__mat ps__matrix_view(const ps_matrix *m) {
    ps__mat v = {m->buf, m->off, m->ld};
    return v;
}

/* Checks that m is usable on ctx as argument number pos named name. */
ps_status ps__check_matrix(ps_context *ctx, const ps_matrix *m, int pos, const char *fn,
                           const char *name);

/* A (argument pos) is usable and square. */
ps_status ps__check_square_matrix(ps_context *ctx, const ps_matrix *A, int pos, const char *fn);
/* B (argument pos) is usable, has A's rows and A's dtype (PS_ERR_DTYPE_MISMATCH otherwise). */
ps_status ps__check_rhs_matrix(ps_context *ctx, const ps_matrix *A, const ps_matrix *B, int pos,
                               const char *fn);

/* Sets the b x b view eye to the identity (zeros, then ones on its diagonal, a 1 x b view of
 * stride ld + 1). */
ps_status ps__fill_identity(ps_context *ctx, ps__dtype dt, int b, ps__mat eye);

#endif
