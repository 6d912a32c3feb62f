/* The CUDA backend's BLAS entries on cuBLAS (v2 API, column-major, host pointer mode; the
 * handle is bound to the context's stream). Offsets become pointer arithmetic here. */
#include "cuda_internal.h"
#include "../core/base/trsm_recursive.h"

#define H(be) (ps_cuda(be)->blas)
#define DP(v) ((double *)ps_cuda_ptr(PS__DOUBLE, (v).buf, (v).off))
#define SP(v) ((float *)ps_cuda_ptr(PS__FLOAT, (v).buf, (v).off))

static cublasOperation_t op(ps__trans t) {
    return t == PS__TRANS ? CUBLAS_OP_T : CUBLAS_OP_N;
}
static cublasFillMode_t fill(ps__uplo u) {
    return u == PS__LOWER ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
}
static cublasSideMode_t side_of(ps__side s) {
    return s == PS__RIGHT ? CUBLAS_SIDE_RIGHT : CUBLAS_SIDE_LEFT;
}
static cublasDiagType_t diag_of(ps__diag d) {
    return d == PS__UNIT ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT;
}

static ps_status check(ps__backend *be, cublasStatus_t st, const char *what) {
    return st == CUBLAS_STATUS_SUCCESS ? PS_SUCCESS : ps_cublas_fail(be, st, what);
}

ps_status ps_cuda_copy(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDcopy(H(be), n, DP(x), x.inc, DP(y), y.inc)
                                  : cublasScopy(H(be), n, SP(x), x.inc, SP(y), y.inc),
                 "cublas copy");
}

ps_status ps_cuda_swap(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDswap(H(be), n, DP(x), x.inc, DP(y), y.inc)
                                  : cublasSswap(H(be), n, SP(x), x.inc, SP(y), y.inc),
                 "cublas swap");
}

ps_status ps_cuda_scal(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDscal(H(be), n, &alpha->d, DP(x), x.inc)
                                  : cublasSscal(H(be), n, &alpha->s, SP(x), x.inc),
                 "cublas scal");
}

ps_status ps_cuda_axpy(ps__backend *be, ps__dtype dt, int n, const ps__scalar *alpha, ps__vec x,
                       ps__vec y) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDaxpy(H(be), n, &alpha->d, DP(x), x.inc, DP(y), y.inc)
                                  : cublasSaxpy(H(be), n, &alpha->s, SP(x), x.inc, SP(y), y.inc),
                 "cublas axpy");
}

ps_status ps_cuda_dot(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__vec y,
                      ps__scalar *result) {
    *result = ps__scalar_of(dt, 0.0);
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDdot(H(be), n, DP(x), x.inc, DP(y), y.inc, &result->d)
                                  : cublasSdot(H(be), n, SP(x), x.inc, SP(y), y.inc, &result->s),
                 "cublas dot");
}

ps_status ps_cuda_nrm2(ps__backend *be, ps__dtype dt, int n, ps__vec x, ps__scalar *result) {
    *result = ps__scalar_of(dt, 0.0);
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDnrm2(H(be), n, DP(x), x.inc, &result->d)
                                  : cublasSnrm2(H(be), n, SP(x), x.inc, &result->s),
                 "cublas nrm2");
}

ps_status ps_cuda_iamax(ps__backend *be, ps__dtype dt, int n, ps__vec x, int *result) {
    *result = -1;
    if (n <= 0) return PS_SUCCESS;
    int one_based = 0;
    PS__TRY(check(be,
                  dt == PS__DOUBLE ? cublasIdamax(H(be), n, DP(x), x.inc, &one_based)
                                   : cublasIsamax(H(be), n, SP(x), x.inc, &one_based),
                  "cublas iamax"));
    *result = one_based - 1;
    return PS_SUCCESS;
}

/* gemv; triangle (PS_CUDA_GEMV_LOWER / _UPPER, m = n, no transpose): a's entries outside it are
 * zero, and our kernel skips them (cuBLAS reads the square). */
static ps_status gemv(ps__backend *be, ps__dtype dt, ps__trans trans, int m, int n,
                      const ps__scalar *alpha, ps__mat a, ps__vec x, const ps__scalar *beta,
                      ps__vec y, int triangle) {
    if (m <= 0 || n <= 0) return PS_SUCCESS; /* BLAS: y untouched, even for beta != 1 */
    if (ps__scalar_value(dt, *alpha) == 0) { /* BLAS: A and x not read, y = beta y */
        int len = trans == PS__NOTRANS ? m : n;
        if (ps__scalar_value(dt, *beta) != 0) return ps_cuda_scal(be, dt, len, beta, y);
        ps__mat ym = {y.buf, y.off, y.inc};
        return be->ops->fill(be, dt, 1, len, beta, ym);
    }
    /* short columns, many of them (the iterative solvers' products up to n = 32 per SM, or 8192
     * on their held matrix): our kernel, which spreads them over the whole GPU, loads a held
     * matrix (or any, between read_only_matrices' calls) ahead and keeps a share of a held one in
     * L2 (cuda_gemv.cu) */
    ps_cuda_state *st = ps_cuda(be);
    const void *ap = ps_cuda_ptr(dt, a.buf, a.off);
    int held = st->held_rows > 0 && ap == st->held_ptr && dt == st->held_dt &&
               a.ld == st->held_ld && m <= st->held_rows && n <= st->held_cols;
    if (trans == PS__NOTRANS && m <= (held ? st->gemv_held_max_rows : st->gemv_max_rows) &&
        n >= PS_CUDA_GEMV_MIN_COLS && x.inc == 1 && y.inc == 1) {
        int dbl = dt == PS__DOUBLE;
        int ahead = (held || st->read_only_matrices) && st->iter.early >= 2;
        /* a held matrix too large for L2 keeps a fixed share of it there */
        double bytes = (double)m * (double)n * (double)(dbl ? sizeof(double) : sizeof(float));
        float keep = 0;
        if (held && bytes * 10 > (double)st->gemv_l2_keep * PS_CUDA_GEMV_L2_KEEP_ABOVE &&
            st->gemv_l2_keep > 0) {
            keep = (float)((double)st->gemv_l2_keep / bytes);
            st->held_in_l2 = 1;
        }
        PS_CUDA_TRY(be,
                    ps_cuda_launch_gemv_n(st->cur_stream, dbl, ps_cuda_lane_sms(st), m, n,
                                          dbl ? (const void *)&alpha->d : (const void *)&alpha->s,
                                          ap, a.ld, ps_cuda_ptr(dt, x.buf, x.off),
                                          dbl ? (const void *)&beta->d : (const void *)&beta->s,
                                          ps_cuda_ptr(dt, y.buf, y.off), st->gemv_partial[st->cur],
                                          st->gemv_tickets[st->cur], ahead, keep, triangle),
                    "gemv kernel");
        return PS_SUCCESS;
    }
    return check(be,
                 dt == PS__DOUBLE ? cublasDgemv(H(be), op(trans), m, n, &alpha->d, DP(a), a.ld,
                                                DP(x), x.inc, &beta->d, DP(y), y.inc)
                                  : cublasSgemv(H(be), op(trans), m, n, &alpha->s, SP(a), a.ld,
                                                SP(x), x.inc, &beta->s, SP(y), y.inc),
                 "cublas gemv");
}

ps_status ps_cuda_gemv(ps__backend *be, ps__dtype dt, ps__trans trans, int m, int n,
                       const ps__scalar *alpha, ps__mat a, ps__vec x, const ps__scalar *beta,
                       ps__vec y) {
    return gemv(be, dt, trans, m, n, alpha, a, x, beta, y, PS_CUDA_GEMV_FULL);
}

/* GMRES-IR's inverted diagonal blocks (at n = 32768, 2048 x 2048 in double): half the bytes. */
ps_status ps_cuda_gemv_triangle(ps__backend *be, ps__dtype dt, ps__uplo uplo, int n,
                                const ps__scalar *alpha, ps__mat a, ps__vec x,
                                const ps__scalar *beta, ps__vec y) {
    return gemv(be, dt, PS__NOTRANS, n, n, alpha, a, x, beta, y,
                uplo == PS__LOWER ? PS_CUDA_GEMV_LOWER : PS_CUDA_GEMV_UPPER);
}

ps_status ps_cuda_ger(ps__backend *be, ps__dtype dt, int m, int n, const ps__scalar *alpha,
                      ps__vec x, ps__vec y, ps__mat a) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE
                     ? cublasDger(H(be), m, n, &alpha->d, DP(x), x.inc, DP(y), y.inc, DP(a), a.ld)
                     : cublasSger(H(be), m, n, &alpha->s, SP(x), x.inc, SP(y), y.inc, SP(a), a.ld),
                 "cublas ger");
}

ps_status ps_cuda_trsv(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, ps__diag diag,
                       int n, ps__mat a, ps__vec x) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDtrsv(H(be), fill(uplo), op(trans), diag_of(diag), n,
                                                DP(a), a.ld, DP(x), x.inc)
                                  : cublasStrsv(H(be), fill(uplo), op(trans), diag_of(diag), n,
                                                SP(a), a.ld, SP(x), x.inc),
                 "cublas trsv");
}

/* Float products with fewer rows or columns than this run in float in the TF32 modes, and
 * than PS_CUDA_FP16X3_MIN in FP16X3 (ps_cuda_gemm says why). */
#define PS_CUDA_LOWPREC_MIN 512
#define PS_CUDA_FP16X3_MIN  128

/* A failed tensor-core GEMM, named with its shape and where it ran (which lane, and whether on
 * the split lanes' partition), since such failures depend on both. */
static ps_status gemm_fail(ps__backend *be, cublasStatus_t cs, const char *mode, int m, int n,
                           int k) {
    const ps_cuda_state *st = ps_cuda(be);
    char what[128];
    snprintf(what, sizeof what, "cublasGemmEx (%s, m=%d n=%d k=%d, lane %d%s)", mode, m, n, k,
             st->cur, st->split ? ", split" : "");
    return ps_cublas_fail(be, cs, what);
}

/* The FP16/BF16 modes: the operands rounded to half or bfloat16 in stream-ordered buffers of
 * the current lane, then a GEMM on those with float accumulation and a float C. (cuBLAS's
 * CUBLAS_COMPUTE_32F_FAST_16F/16BF on float operands only permit such rounding; measured, they
 * computed exactly as FAST_TF32.) */
static ps_status half_gemm(ps__backend *be, int bf16, ps__trans ta, ps__trans tb, int m, int n,
                           int k, const ps__scalar *alpha, ps__mat a, ps__mat b,
                           const ps__scalar *beta, ps__mat c) {
    cudaStream_t s = ps_cuda(be)->cur_stream;
    int ar = ta == PS__NOTRANS ? m : k, ac = ta == PS__NOTRANS ? k : m;
    int br = tb == PS__NOTRANS ? k : n, bc = tb == PS__NOTRANS ? n : k;
    size_t abytes = (size_t)ar * ac * 2, bbytes = (size_t)br * bc * 2;
    void *h = NULL;
    PS_CUDA_TRY(be, ps_cuda_malloc_async(ps_cuda(be), (void **)&h, abytes + bbytes + 256, s),
                "half GEMM operands");
    void *ha = h, *hb = (char *)h + (abytes + 255) / 256 * 256;
    cudaError_t e = ps_cuda_launch_to_half(s, bf16, ar, ac, SP(a), a.ld, ha);
    if (e == cudaSuccess) e = ps_cuda_launch_to_half(s, bf16, br, bc, SP(b), b.ld, hb);
    cudaDataType_t t = bf16 ? CUDA_R_16BF : CUDA_R_16F;
    cublasStatus_t cs = CUBLAS_STATUS_SUCCESS;
    if (e == cudaSuccess)
        cs = cublasGemmEx(H(be), op(ta), op(tb), m, n, k, &alpha->s, ha, t, ar, hb, t, br, &beta->s,
                          SP(c), CUDA_R_32F, c.ld, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    cudaError_t f = cudaFreeAsync(h, s);
    if (e != cudaSuccess) return ps_cuda_fail(be, e, "half GEMM operand conversion");
    if (cs != CUBLAS_STATUS_SUCCESS) return gemm_fail(be, cs, bf16 ? "BF16" : "FP16", m, n, k);
    if (f != cudaSuccess) return ps_cuda_fail(be, f, "half GEMM operands");
    return PS_SUCCESS;
}

/* The TF32X3 and FP16X3 modes (float accuracy from TF32 or FP16 tensor cores, as CUTLASS's
 * 3xTF32): with each operand split as x = hi + lo (cuda_refine_kernels.cu), op(A) op(B) ~ Alo Bhi +
 * Ahi Blo + Ahi Bhi, the dropped Alo Blo being at most 2^-22 of the product (both splits round
 * to nearest). The three products are one GEMM of inner dimension 3k on
 * [Alo Ahi Ahi] and [Bhi; Blo; Bhi], built in stream-ordered buffers of the current lane.
 * The small products come first because tensor cores do not round their float sums to nearest:
 * each k step of the accumulation truncates the running sum (Fasi et al. 2021; Khattak and
 * Mikaitis 2025), so a small product added after the big one loses up to an ulp of the big sum
 * at every step. With Ahi Bhi first (as before), the FP16X3 product of the LU's update
 * shape (k = 768, H200) was 8x less accurate than SGEMM's (rms 4.0e-6 of rms(A B), against
 * 5.0e-7), and with it last 1.9x (9.5e-7), for the same time; GMRES-IR at n = 32768, cond 1e6
 * then took 5 + 13 steps instead of 1 + 58 (docs/IR.md).
 * FP16 holds each lo as lo 2^11 (FP16's subnormals start at 2^-14, TF32's range is float's), so
 * its hi copies are scaled to match: [Alo 2^11, Ahi, Ahi 2^6] and [Bhi; Blo 2^11; Bhi 2^5] make
 * every product 2^11 times its own, which alpha 2^-11 undoes exactly (a lo 2^11 below 2^-14 is
 * subnormal, so each term keeps an absolute error of up to 2^-35 (|a| + |b|); docs/IR.md).
 * FP16 on H100 runs at twice TF32's rate; its range (65504, so |A| up to about 1000 and |B| up
 * to 2000 here) is why refinement scales the matrix to max |a(i,j)| < 1 for it
 * (core/refine/refine.c). */
typedef struct split3_mode {
    const char *name;
    size_t part_size; /* bytes per element of the parts */
    cudaDataType_t part_type;
    cublasComputeType_t compute;
    float alpha_scale;    /* undoes the parts' scaling */
    float hi_scale[2][3]; /* FP16X3: A's and B's copies of hi (split_fp16's hi_scale) */
} split3_mode;

/* Which of the three copies hold the low part: A's first, B's second (the order above). */
enum { PS_SPLIT3_A_LO = 1u, PS_SPLIT3_B_LO = 2u };

static const split3_mode split3_modes[2] = {
    {"TF32X3", sizeof(float), CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 1.0f, {{0}}},
    {"FP16X3",
     2,
     CUDA_R_16F,
     CUBLAS_COMPUTE_32F,
     0x1p-11f,
     {{1.0f, 1.0f, 64.0f}, {1.0f, 1.0f, 32.0f}}},
};

/* One operand's three parts (lo_blocks: which copies hold the low part). */
static cudaError_t split3_operand(cudaStream_t s, const split3_mode *md, int side, int rows,
                                  int cols, ps__mat x, void *dst, int by_rows, unsigned lo_blocks) {
    if (md->part_type == CUDA_R_16F)
        return ps_cuda_launch_split_fp16(s, rows, cols, SP(x), x.ld, dst, by_rows, lo_blocks,
                                         md->hi_scale[side]);
    return ps_cuda_launch_split_tf32(s, rows, cols, SP(x), x.ld, (float *)dst, by_rows, lo_blocks);
}

static ps_status split3_gemm(ps__backend *be, const split3_mode *md, ps__trans ta, ps__trans tb,
                             int m, int n, int k, const ps__scalar *alpha, ps__mat a, ps__mat b,
                             const ps__scalar *beta, ps__mat c) {
    cudaStream_t s = ps_cuda(be)->cur_stream;
    int ar = ta == PS__NOTRANS ? m : k, ac = ta == PS__NOTRANS ? k : m;
    int br = tb == PS__NOTRANS ? k : n, bc = tb == PS__NOTRANS ? n : k;
    size_t es = md->part_size, aparts = 3 * (size_t)ar * ac, bparts = 3 * (size_t)br * bc;
    size_t boff = (aparts * es + 255) / 256 * 256;
    char what[64];
    char *w = NULL;
    snprintf(what, sizeof what, "%s GEMM operands", md->name);
    cudaError_t got = ps_cuda_malloc_async(ps_cuda(be), (void **)&w, boff + bparts * es, s);
    if (got == cudaErrorMemoryAllocation) { /* no room for the parts: the product in float */
        cudaGetLastError();
        return check(be,
                     cublasSgemm(H(be), op(ta), op(tb), m, n, k, &alpha->s, SP(a), a.ld, SP(b),
                                 b.ld, &beta->s, SP(c), c.ld),
                     "cublas gemm");
    }
    PS_CUDA_TRY(be, got, what);
    /* k runs down A's columns unless A is transposed, and down B's rows unless B is. */
    int a_rows = ta != PS__NOTRANS, b_rows = tb == PS__NOTRANS;
    cudaError_t e = split3_operand(s, md, 0, ar, ac, a, w, a_rows, PS_SPLIT3_A_LO);
    if (e == cudaSuccess) e = split3_operand(s, md, 1, br, bc, b, w + boff, b_rows, PS_SPLIT3_B_LO);
    cublasStatus_t cs = CUBLAS_STATUS_SUCCESS;
    float scaled_alpha = alpha->s * md->alpha_scale;
    if (e == cudaSuccess)
        cs = cublasGemmEx(H(be), op(ta), op(tb), m, n, 3 * k, &scaled_alpha, w, md->part_type,
                          a_rows ? 3 * ar : ar, w + boff, md->part_type, b_rows ? 3 * br : br,
                          &beta->s, SP(c), CUDA_R_32F, c.ld, md->compute, CUBLAS_GEMM_DEFAULT);
    cudaError_t f = cudaFreeAsync(w, s);
    if (e != cudaSuccess) {
        snprintf(what, sizeof what, "%s operand split", md->name);
        return ps_cuda_fail(be, e, what);
    }
    if (cs != CUBLAS_STATUS_SUCCESS) return gemm_fail(be, cs, md->name, m, n, 3 * k);
    if (f != cudaSuccess) return ps_cuda_fail(be, f, what);
    return PS_SUCCESS;
}

ps_status ps_cuda_gemm(ps__backend *be, ps__dtype dt, ps__trans ta, ps__trans tb, int m, int n,
                       int k, const ps__scalar *alpha, ps__mat a, ps__mat b, const ps__scalar *beta,
                       ps__mat c) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    ps__float_compute mode = ps_cuda(be)->float_compute;
    /* The TF32 modes apply to the big products (LU's trailing update) only; those of the panel
     * (at most nb/2 wide) run in float. For TF32 this keeps cuBLAS's TF32 kernels off the split
     * panel lane, where at m = 6272, n = k = 384 on 32 SMs cublasGemmEx (FAST_TF32) failed to
     * launch (CUBLAS_STATUS_EXECUTION_FAILED, H100, CUDA 13.0). FP16X3 also takes the panel's
     * products of at least 128 x 128, whose float GEMMs were on the critical path of its split
     * lanes (about 2% faster on an H200). FP16/BF16 keep every product in their format: the same
     * limit there made refinement take more steps and longer. */
    int least = mode == PS__COMPUTE_FP16X3                               ? PS_CUDA_FP16X3_MIN
                : mode == PS__COMPUTE_TF32 || mode == PS__COMPUTE_TF32X3 ? PS_CUDA_LOWPREC_MIN
                                                                         : 0;
    if (k <= 0 || m < least || n < least) mode = PS__COMPUTE_FP32;
    if (dt == PS__FLOAT && mode == PS__COMPUTE_TF32) { /* inputs rounded to TF32 by cuBLAS */
        cublasStatus_t cs =
            cublasGemmEx(H(be), op(ta), op(tb), m, n, k, &alpha->s, SP(a), CUDA_R_32F, a.ld, SP(b),
                         CUDA_R_32F, b.ld, &beta->s, SP(c), CUDA_R_32F, c.ld,
                         CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
        return cs == CUBLAS_STATUS_SUCCESS ? PS_SUCCESS : gemm_fail(be, cs, "TF32", m, n, k);
    }
    if (dt == PS__FLOAT && (mode == PS__COMPUTE_TF32X3 || mode == PS__COMPUTE_FP16X3))
        return split3_gemm(be, &split3_modes[mode == PS__COMPUTE_FP16X3], ta, tb, m, n, k, alpha, a,
                           b, beta, c);
    if (dt == PS__FLOAT && mode != PS__COMPUTE_FP32)
        return half_gemm(be, mode == PS__COMPUTE_BF16, ta, tb, m, n, k, alpha, a, b, beta, c);
    return check(be,
                 dt == PS__DOUBLE ? cublasDgemm(H(be), op(ta), op(tb), m, n, k, &alpha->d, DP(a),
                                                a.ld, DP(b), b.ld, &beta->d, DP(c), c.ld)
                                  : cublasSgemm(H(be), op(ta), op(tb), m, n, k, &alpha->s, SP(a),
                                                a.ld, SP(b), b.ld, &beta->s, SP(c), c.ld),
                 "cublas gemm");
}

ps_status ps_cuda_syrk(ps__backend *be, ps__dtype dt, ps__uplo uplo, ps__trans trans, int n, int k,
                       const ps__scalar *alpha, ps__mat a, const ps__scalar *beta, ps__mat c) {
    if (n <= 0) return PS_SUCCESS;
    return check(be,
                 dt == PS__DOUBLE ? cublasDsyrk(H(be), fill(uplo), op(trans), n, k, &alpha->d,
                                                DP(a), a.ld, &beta->d, DP(c), c.ld)
                                  : cublasSsyrk(H(be), fill(uplo), op(trans), n, k, &alpha->s,
                                                SP(a), a.ld, &beta->s, SP(c), c.ld),
                 "cublas syrk");
}

/* Solves with triangles of order at most PS_CUDA_TRSM_OWN_MAX and at least
 * PS_CUDA_TRSM_OWN_MIN_VECTORS right-hand sides (columns on the left, rows on the right): split
 * into halves by core/base/trsm_recursive.h down to orders of PS_CUDA_TRSM_SMALL_MAX, which come
 * back here and go to our kernel (cuda_trsm.cu), the coupling blocks by GEMM. On an H100 with 16384
 * right-hand sides cuBLAS's dtrsm took 302 us for a triangle of 128 (left, upper) and 64 us for
 * one of 64, the kernel 27 us for 64; with 8192, 34 against 23 us, with 4096 20 against 23 (the
 * kernel's launch costs 20-40 us whatever the count: its substitution is a chain of dependent
 * steps), so fewer right-hand sides stay with cuBLAS. Up to 1024 covers the RBT LU's
 * L21 = A21 U11^-1 (core/lu/lu.c; 768-column blocks, the right side), which cuBLAS's strsm ran at
 * about 4 TFLOP/s. */
#define PS_CUDA_TRSM_OWN_MAX         1024
#define PS_CUDA_TRSM_OWN_MIN_VECTORS 8192

static ps_status trsm_small(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo,
                            ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a,
                            ps__mat b) {
    ps_cuda_state *st = ps_cuda(be);
    int dbl = dt == PS__DOUBLE;
    PS_CUDA_TRY(be,
                ps_cuda_launch_trsm_small(
                    st->cur_stream, dbl, side == PS__LEFT, uplo == PS__UPPER, diag == PS__UNIT, m,
                    n, dbl ? (const void *)&alpha->d : (const void *)&alpha->s,
                    ps_cuda_ptr(dt, a.buf, a.off), a.ld, ps_cuda_ptr(dt, b.buf, b.off), b.ld),
                "trsm kernel");
    return PS_SUCCESS;
}

ps_status ps_cuda_trsm(ps__backend *be, ps__dtype dt, ps__side side, ps__uplo uplo, ps__trans trans,
                       ps__diag diag, int m, int n, const ps__scalar *alpha, ps__mat a, ps__mat b) {
    if (m <= 0 || n <= 0) return PS_SUCCESS;
    int t = side == PS__LEFT ? m : n, vectors = side == PS__LEFT ? n : m;
    if (ps__scalar_value(dt, *alpha) == 0.0) { /* BLAS: B = 0, B not read (NaN included) */
        PS_CUDA_TRY(be,
                    ps_cuda_launch_fill(ps_cuda(be)->cur_stream, dt == PS__DOUBLE, m, n, alpha,
                                        ps_cuda_ptr(dt, b.buf, b.off), b.ld),
                    "fill kernel");
        return PS_SUCCESS;
    }
    if (trans == PS__NOTRANS && t <= PS_CUDA_TRSM_OWN_MAX &&
        vectors >= PS_CUDA_TRSM_OWN_MIN_VECTORS) {
        if (t <= PS_CUDA_TRSM_SMALL_MAX)
            return trsm_small(be, dt, side, uplo, diag, m, n, alpha, a, b);
        return ps__trsm_recursive(be, dt, side, uplo, diag, m, n, alpha, a, b,
                                  PS_CUDA_TRSM_SMALL_MAX);
    }
    return check(be,
                 dt == PS__DOUBLE
                     ? cublasDtrsm(H(be), side_of(side), fill(uplo), op(trans), diag_of(diag), m, n,
                                   &alpha->d, DP(a), a.ld, DP(b), b.ld)
                     : cublasStrsm(H(be), side_of(side), fill(uplo), op(trans), diag_of(diag), m, n,
                                   &alpha->s, SP(a), a.ld, SP(b), b.ld),
                 "cublas trsm");
}
