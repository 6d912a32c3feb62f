/*
 * Context creation and backend selection (core behaviour, no algorithm): PORTSOLVE_BACKEND
 * parsing, unknown values, unavailable backends with their reason, options over environment,
 * lu_nb, lu_block_row, lu_panel, lu_layout,
 * ir_trsv_block, ir_gmres_tol, ir_early_inverses and
 * PORTSOLVE_DEVICE
 * checks, status strings, the vtable completion rules (missing required entries, ABI version,
 * older tables receiving defaults), the device activation at each public call, and the NaN/Inf
 * scan of the host drivers' inputs (every special value at every place of short arrays, both
 * precisions, with and without the copy it runs in).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "checks.h"
#include "base/check.h"
#include "base/context.h"
#include "base/select.h"
#include "chol/chol_kernels.h"
#include "gj/gj_kernels.h"
#include "iter/iter_kernels.h"
#include "lu/lu.h"
#include "lu/lu_kernels.h"
#include "peer/peer_kernels.h"
#include "refine/refine_kernels.h"
#include "wz/wz_kernels.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

static void test_env_backend(void) {
    ps_context *ctx = NULL;
    static const char *const cpu_spellings[] = {"cpu", "CPU", "Cpu"};
    for (int i = 0; i < 3; i++) {
        setenv("PORTSOLVE_BACKEND", cpu_spellings[i], 1);
        CHECK_STATUS(ps_context_create(&ctx, NULL), PS_SUCCESS);
        CHECK(ctx && strcmp(ps_context_backend_name(ctx), "cpu") == 0, "%s -> cpu",
              cpu_spellings[i]);
        CHECK(ctx && strlen(ps_context_device_name(ctx)) > 0, "device name");
        ps_context_destroy(ctx);
        ctx = NULL;
    }
    /* auto resolves to a working backend; without GPU modules it is the CPU */
    setenv("PORTSOLVE_BACKEND", "AUTO", 1);
    CHECK_STATUS(ps_context_create(&ctx, NULL), PS_SUCCESS);
    const char *built = ps_built_backends();
    if (ctx && strcmp(built, "cpu") == 0)
        CHECK(strcmp(ps_context_backend_name(ctx), "cpu") == 0, "auto without GPU modules -> cpu");
    ps_context_destroy(ctx);
    ctx = NULL;
    unsetenv("PORTSOLVE_BACKEND");
    CHECK_STATUS(ps_context_create(&ctx, NULL), PS_SUCCESS);
    ps_context_destroy(ctx);
    ctx = NULL;

    /* unknown names are refused, listing the accepted values */
    static const char *const bad[] = {"gpu", "cuda2", "opencl ", "cpux"};
    for (int i = 0; i < 4; i++) {
        setenv("PORTSOLVE_BACKEND", bad[i], 1);
        CHECK_STATUS(ps_context_create(&ctx, NULL), PS_ERR_UNKNOWN_BACKEND);
        CHECK(ctx == NULL, "no context on failure");
        const char *msg = ps_last_create_error();
        CHECK(strstr(msg, bad[i]) && strstr(msg, "auto, cpu, cuda, opencl"),
              "message names the value and the accepted ones: %s", msg);
        printf("  PORTSOLVE_BACKEND='%s' -> %s\n", bad[i], msg);
    }
    ps_backend_kind k = PS_BACKEND_FROM_ENV;
    CHECK(ps_backend_kind_from_name("OpenCL", &k) == PS_SUCCESS && k == PS_BACKEND_OPENCL,
          "OpenCL parses");
    CHECK_STATUS(ps_backend_kind_from_name("metal", &k), PS_ERR_UNKNOWN_BACKEND);
    CHECK_STATUS(ps_backend_kind_from_name(NULL, &k), PS_ERR_INVALID_ARGUMENT);
    /* options override the environment */
    ps_context_options o = ps_context_options_default();
    o.backend = PS_BACKEND_CPU;
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
    ps_context_destroy(ctx);
    ctx = NULL;
    o.backend = (ps_backend_kind)42;
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_UNKNOWN_BACKEND);
    unsetenv("PORTSOLVE_BACKEND");
    CHECK_STATUS(ps_context_create(NULL, NULL), PS_ERR_INVALID_ARGUMENT);
    /* interop: no out, and a kind that has no native objects, each with its reason */
    CHECK_STATUS(ps_context_create_native(NULL, PS_BACKEND_OPENCL, NULL, NULL),
                 PS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ps_last_create_error(), "out is NULL"), "reason: %s", ps_last_create_error());
    ctx = (ps_context *)&o; /* a refused create sets out to NULL */
    CHECK_STATUS(ps_context_create_native(&ctx, PS_BACKEND_CPU, NULL, NULL),
                 PS_ERR_INVALID_ARGUMENT);
    CHECK(!ctx && strstr(ps_last_create_error(), "neither PS_BACKEND_CUDA"), "reason: %s",
          ps_last_create_error());
}

/* Every public enum's name parses back to its value, in any case; a value outside the enum is
 * "unknown" (NULL for the iterative methods, which the solvers use as their check), and a name
 * that is not one, or NULL, is refused with the output left alone. */
static void test_enum_names(void) {
    char upper[32];
#define ROUND_TRIP(type, first, last, name_fn, parse_fn)                                           \
    for (int v = first; v <= last; v++) {                                                          \
        const char *name = name_fn((type)v);                                                       \
        size_t len = strlen(name);                                                                 \
        for (size_t c = 0; c <= len && c < sizeof upper; c++) upper[c] = (char)toupper(name[c]);   \
        type got = (type)-1;                                                                       \
        CHECK(parse_fn(upper, &got) == PS_SUCCESS && (int)got == v, #parse_fn "(%s) gave %d",      \
              upper, (int)got);                                                                    \
    }                                                                                              \
    {                                                                                              \
        type kept = (type)first;                                                                   \
        CHECK(!strcmp(name_fn((type)(last + 1)), "unknown"), #name_fn " of %d", last + 1);         \
        CHECK_STATUS(parse_fn("no-such-name", &kept), PS_ERR_INVALID_ARGUMENT);                    \
        CHECK_STATUS(parse_fn(NULL, &kept), PS_ERR_INVALID_ARGUMENT);                              \
        CHECK((int)kept == first, #parse_fn " wrote its output on a failure");                     \
    }
    ROUND_TRIP(ps_lowprec, PS_LOWPREC_FLOAT, PS_LOWPREC_FP16X3, ps_lowprec_name,
               ps_lowprec_from_name)
    ROUND_TRIP(ps_refine_factor, PS_REFINE_PARTIAL_PIVOTING, PS_REFINE_RBT, ps_refine_factor_name,
               ps_refine_factor_from_name)
    ROUND_TRIP(ps_gj_variant, PS_GJ_DEVICE, PS_GJ_CONCURRENT, ps_gj_variant_name,
               ps_gj_variant_from_name)
    ROUND_TRIP(ps_wz_variant, PS_WZ_BLOCKED, PS_WZ_VECTOR_HOST, ps_wz_variant_name,
               ps_wz_variant_from_name)
#undef ROUND_TRIP
    CHECK(!strcmp(ps_refine_path_name(PS_REFINE_FALLBACK), "fallback") &&
              !strcmp(ps_refine_path_name((ps_refine_path)99), "unknown"),
          "refine path names");
    CHECK(!strcmp(ps_iter_method_name(PS_ITER_GAUSS_SEIDEL), "gauss-seidel") &&
              ps_iter_method_name((ps_iter_method)99) == NULL,
          "iterative method names");
}

/* A backend this build lacks, or whose module, runtime or device is missing here, must be
 * refused with PS_ERR_BACKEND_UNAVAILABLE and the reason, never replaced silently. */
static void test_unavailable_backends(void) {
    static const char *const names[] = {"cuda", "opencl"};
    for (int i = 0; i < 2; i++) {
        ps_context *ctx = NULL;
        setenv("PORTSOLVE_BACKEND", names[i], 1);
        ps_status st = ps_context_create(&ctx, NULL);
        if (strstr(ps_built_backends(), names[i]) && st == PS_SUCCESS) {
            CHECK(strcmp(ps_context_backend_name(ctx), names[i]) == 0, "asked %s, got %s", names[i],
                  ps_context_backend_name(ctx));
            ps_context_destroy(ctx);
            continue; /* it works on this machine; its own label tests it */
        }
        CHECK(st == PS_ERR_BACKEND_UNAVAILABLE, "%s: %s", names[i], ps_status_string(st));
        CHECK(ctx == NULL, "no context");
        CHECK(strstr(ps_last_create_error(), names[i]) != NULL, "reason names the backend: %s",
              ps_last_create_error());
        printf("  PORTSOLVE_BACKEND=%s -> %s\n", names[i], ps_last_create_error());
    }
    /* a module that cannot be found: the loader's reason is passed on */
    setenv("PORTSOLVE_BACKEND_PATH", "/nonexistent-portsolve-modules", 1);
    for (int i = 0; i < 2; i++) {
        if (!strstr(ps_built_backends(), names[i])) continue;
        ps_context *ctx = NULL;
        setenv("PORTSOLVE_BACKEND", names[i], 1);
        ps_status st = ps_context_create(&ctx, NULL);
        if (st == PS_SUCCESS) { /* found through the loader's own path: nothing to refuse */
            ps_context_destroy(ctx);
            continue;
        }
        CHECK(st == PS_ERR_BACKEND_UNAVAILABLE &&
                  strstr(ps_last_create_error(), "cannot load the") &&
                  strstr(ps_last_create_error(), "/nonexistent-portsolve-modules"),
              "missing module: %s: %s", ps_status_string(st), ps_last_create_error());
        printf("  module missing -> %s\n", ps_last_create_error());
    }
    unsetenv("PORTSOLVE_BACKEND_PATH");
    unsetenv("PORTSOLVE_BACKEND");
}

/* An environment variable's value, kept so that a check can set it and give it back (a run may
 * set it for the other tests). */
static char *keep_env(const char *name) {
    const char *was = getenv(name);
    return was ? strdup(was) : NULL;
}

static void restore_env(const char *name, char *kept) {
    if (kept)
        setenv(name, kept, 1);
    else
        unsetenv(name);
    free(kept);
}

/* PORTSOLVE_TUNING="key=value" ("" for value: the variable empty, so the knob is unset). */
static void set_tuning(const char *key, const char *value) {
    char text[128];
    snprintf(text, sizeof text, "%s=%s", key, value);
    setenv("PORTSOLVE_TUNING", *value ? text : "", 1);
}

/* A numeric knob read when a context is created: each bad value is refused naming the key, each
 * good one gives its wanted value (read by got). */
static void check_number_knob(const ps_context_options *o, const char *key, const char *const *bad,
                              int nbad, const char *const *good, const double *want, int ngood,
                              double (*got)(const ps_context *)) {
    ps_context *ctx = NULL;
    for (int i = 0; i < nbad; i++) {
        set_tuning(key, bad[i]);
        CHECK_STATUS(ps_context_create(&ctx, o), PS_ERR_INVALID_ARGUMENT);
        CHECK(strstr(ps_last_create_error(), key) &&
                  strstr(ps_last_create_error(), "PORTSOLVE_TUNING"),
              "%s", ps_last_create_error());
    }
    for (int i = 0; i < ngood; i++) {
        set_tuning(key, good[i]);
        CHECK_STATUS(ps_context_create(&ctx, o), PS_SUCCESS);
        CHECK(ctx && got(ctx) == want[i], "%s='%s' gave %g, want %g", key, good[i],
              ctx ? got(ctx) : -2.0, want[i]);
        ps_context_destroy(ctx);
    }
}
static double trsv_block_of(const ps_context *c) {
    return c->tuning.ir_trsv_block;
}
static double gmres_tol_of(const ps_context *c) {
    return c->tuning.ir_gmres_tol;
}
static double early_inverses_of(const ps_context *c) {
    return c->tuning.ir_early_inverses;
}
static double wz_nb_of(const ps_context *c) {
    return c->tuning.wz_nb;
}

/* PORTSOLVE_TUNING's syntax and the public variables, through the parser. */
static void test_tuning_parser(void) {
    ps__tuning t;
    char msg[2048];
    CHECK_STATUS(ps__tuning_apply(&t, "test", "lu_nb=64,,lu_layout=Transposed,ir_gmres_tol=1e-3",
                                  msg, sizeof msg),
                 PS_SUCCESS);
    CHECK(t.lu_nb == 64 && t.lu_layout == PS__LAYOUT_TRANSPOSED && t.ir_gmres_tol == 1e-3,
          "several keys at once: %d %d %g", t.lu_nb, t.lu_layout, t.ir_gmres_tol);
    static const char *const bad[] = {
        "lu_nb",  "lu_nb=", "=3", "no_such_knob=1", "LU_NB=64", "lu_nb=64 ", "cuda_trsv_rows=96",
        "wz_nb=7"};
    for (int i = 0; i < 8; i++) {
        CHECK_STATUS(ps__tuning_apply(&t, "test", bad[i], msg, sizeof msg),
                     PS_ERR_INVALID_ARGUMENT);
        CHECK(strncmp(msg, "test: ", 6) == 0, "'%s': %s", bad[i], msg);
    }
    CHECK(strstr(msg, "multiple of 2"), "wz_nb's rule stated: %s", msg);
    /* every row of the table takes the ends of its range and each of its words, and refuses
     * what lies past them */
    size_t count;
    const ps__knob *knobs = ps__knobs(&count);
    for (size_t i = 0; i < count; i++) {
        const ps__knob *k = &knobs[i];
        char text[160];
        if (k->kind == PS__KNOB_INT || k->kind == PS__KNOB_REAL) {
            for (int end = 0; end < 2; end++) {
                snprintf(text, sizeof text, "%s=%.17g", k->key, end ? k->hi : k->lo);
                CHECK_STATUS(ps__tuning_apply(&t, "test", text, msg, sizeof msg), PS_SUCCESS);
                double got = k->kind == PS__KNOB_INT ? *(int *)((char *)&t + k->offset)
                                                     : *(double *)((char *)&t + k->offset);
                CHECK(got == (end ? k->hi : k->lo), "%s: got %g", text, got);
                snprintf(text, sizeof text, "%s=%.17g", k->key,
                         end ? k->hi * 2 + 1 : k->lo - 1 - fabs(k->lo));
                CHECK_STATUS(ps__tuning_apply(&t, "test", text, msg, sizeof msg),
                             PS_ERR_INVALID_ARGUMENT);
            }
        } else if (k->kind == PS__KNOB_WORD) {
            int index = 0;
            for (const char *w = k->words; *w; index++) {
                size_t len = strcspn(w, "|");
                snprintf(text, sizeof text, "%s=%.*s", k->key, (int)len, w);
                CHECK_STATUS(ps__tuning_apply(&t, "test", text, msg, sizeof msg), PS_SUCCESS);
                CHECK(*(int *)((char *)&t + k->offset) == index, "%s gave %d", text,
                      *(int *)((char *)&t + k->offset));
                w += len + (w[len] == '|');
            }
            snprintf(text, sizeof text, "%s=none-of-these", k->key);
            CHECK_STATUS(ps__tuning_apply(&t, "test", text, msg, sizeof msg),
                         PS_ERR_INVALID_ARGUMENT);
        } else {
            snprintf(text, sizeof text, "%s=/tmp/file", k->key);
            CHECK_STATUS(ps__tuning_apply(&t, "test", text, msg, sizeof msg), PS_SUCCESS);
            CHECK(strcmp((char *)&t + k->offset, "/tmp/file") == 0, "%s", text);
        }
    }
    CHECK(count >= 40, "the table has %zu rows", count);
    ps__tuning_defaults(&t);
    CHECK(t.host_crossover == -1 && t.wz_pivoting == 1 && t.lu_overlap == -1 &&
              t.cl_profile[0] == '\0',
          "unset values");
    /* a public variable names itself; PORTSOLVE_TUNING comes after it and wins */
    char *kept_pub = keep_env("PORTSOLVE_GJ_VARIANT"), *kept = keep_env("PORTSOLVE_TUNING");
    setenv("PORTSOLVE_GJ_VARIANT", "sideways", 1);
    unsetenv("PORTSOLVE_TUNING");
    CHECK_STATUS(ps__tuning_read(&t, msg, sizeof msg), PS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(msg, "PORTSOLVE_GJ_VARIANT='sideways'") && strstr(msg, "concurrent"), "%s", msg);
    setenv("PORTSOLVE_GJ_VARIANT", "Hybrid", 1);
    CHECK_STATUS(ps__tuning_read(&t, msg, sizeof msg), PS_SUCCESS);
    CHECK(t.gj_variant == PS_GJ_HYBRID, "PORTSOLVE_GJ_VARIANT=Hybrid");
    setenv("PORTSOLVE_TUNING", "gj_variant=concurrent", 1);
    CHECK_STATUS(ps__tuning_read(&t, msg, sizeof msg), PS_SUCCESS);
    CHECK(t.gj_variant == PS_GJ_CONCURRENT, "PORTSOLVE_TUNING after the public variable");
    restore_env("PORTSOLVE_GJ_VARIANT", kept_pub);
    restore_env("PORTSOLVE_TUNING", kept);
}

static void test_env_tuning(void) {
    ps_context *ctx = NULL;
    ps_context_options o = ps_context_options_default();
    o.backend = PS_BACKEND_CPU;
    char *kept = keep_env("PORTSOLVE_TUNING");
    static const char *const bad_nb[] = {"0", "-4", "12x", "99999"};
    for (int i = 0; i < 4; i++) {
        set_tuning("lu_nb", bad_nb[i]);
        CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);
        CHECK(strstr(ps_last_create_error(), "lu_nb"), "%s", ps_last_create_error());
    }
    set_tuning("lu_nb", "48");
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
    CHECK(ctx && ctx->lu_block_size == 48, "lu_nb=48 taken");
    ps_context_destroy(ctx);
    o.lu_block_size = 16; /* the option wins over the environment */
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
    CHECK(ctx && ctx->lu_block_size == 16, "option over environment");
    ps_context_destroy(ctx);
    o.lu_block_size = -1;
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);

    /* LU's choice knobs: a bad value is refused naming the key; good ones (any case) set the
     * context's choice */
    o.lu_block_size = 0;
    static const char *const knobs[][4] = {{"lu_block_row", "gemm", "Inverse", "trsm"},
                                           {"lu_panel", "cpu", "HOST", "device"},
                                           {"lu_layout", "columns", "Transposed", "rows"}};
    static const int wanted[][2] = {{PS__LU_BLOCK_ROW_INVERSE, PS__LU_BLOCK_ROW_TRSM},
                                    {PS__LU_PANEL_HOST, PS__LU_PANEL_DEVICE},
                                    {PS__LAYOUT_TRANSPOSED, PS__LAYOUT_ROWS}};
    for (int i = 0; i < 3; i++) {
        set_tuning(knobs[i][0], knobs[i][1]);
        CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);
        CHECK(strstr(ps_last_create_error(), knobs[i][0]), "%s", ps_last_create_error());
        for (int g = 2; g < 4; g++) {
            set_tuning(knobs[i][0], knobs[i][g]);
            CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
            int got = !ctx     ? -1
                      : i == 0 ? ctx->tuning.lu_block_row
                      : i == 1 ? ctx->tuning.lu_panel
                               : ctx->tuning.lu_layout;
            int want = wanted[i][g - 2];
            CHECK(got == want, "%s=%s gave %d, want %d", knobs[i][0], knobs[i][g], got, want);
            ps_context_destroy(ctx);
        }
    }

    /* GMRES-IR's blocked solves: unset is the backend's choice (-1), 0 none, else the order */
    static const char *const bad_block[] = {"-1", "blocks", "12x", "70000"};
    static const char *const good_block[] = {"", "0", "512"};
    static const double want_block[] = {-1, 0, 512};
    check_number_knob(&o, "ir_trsv_block", bad_block, 4, good_block, want_block, 3, trsv_block_of);
    /* GMRES-IR's inner tolerance: unset is the default (0), else a number in [1e-14, 0.1] */
    static const char *const bad_tol[] = {"0", "-1e-3", "tight", "1e-3x", "0.5", "1e-20"};
    static const char *const good_tol[] = {"", "1e-2", "0.1"};
    static const double want_tol[] = {0, 1e-2, 0.1};
    check_number_knob(&o, "ir_gmres_tol", bad_tol, 6, good_tol, want_tol, 3, gmres_tol_of);
    static const char *const good_op[] = {"", "0", "1"};
    /* GMRES-IR's blocks inverted while the LU runs: unset is the backend's choice (-1), else 0
     * or 1 */
    static const char *const bad_early[] = {"2", "auto", "-1"};
    static const double want_early[] = {-1, 0, 1};
    check_number_knob(&o, "ir_early_inverses", bad_early, 3, good_op, want_early, 3,
                      early_inverses_of);
    /* WZ's block size: even, 2..4096 */
    static const char *const bad_wz[] = {"7", "0", "4098"};
    static const char *const good_wz[] = {"", "2", "96"};
    static const double want_wz[] = {0, 2, 96};
    check_number_knob(&o, "wz_nb", bad_wz, 3, good_wz, want_wz, 3, wz_nb_of);
    restore_env("PORTSOLVE_TUNING", kept);

    setenv("PORTSOLVE_DEVICE", "3", 1);
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_ERR_INVALID_ARGUMENT);
    CHECK(strstr(ps_last_create_error(), "PORTSOLVE_DEVICE"), "%s", ps_last_create_error());
    setenv("PORTSOLVE_DEVICE", "0", 1);
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
    ps_context_destroy(ctx);
    unsetenv("PORTSOLVE_DEVICE");
}

static void test_status_strings(void) {
    CHECK(strcmp(ps_status_string(PS_SUCCESS), "success") == 0, "success");
    CHECK(strcmp(ps_status_string(PS_ERR_SINGULAR), "matrix is singular") == 0, "singular");
    CHECK(strcmp(ps_status_string((ps_status)12345), "unknown status") == 0, "unknown");
    CHECK(strcmp(ps_version(), "0.1.0") == 0 || strlen(ps_version()) >= 5, "version %s",
          ps_version());
    ps_context_destroy(NULL);
    CHECK(strcmp(ps_context_last_error(NULL), "(no context)") == 0, "NULL context message");
}

static void test_ops_completion(void) {
    char msg[256];
    ps__backend_ops full, table = *ps__cpu_backend_ops();
    CHECK_STATUS(ps__backend_ops_complete(&full, &table, msg, sizeof msg), PS_SUCCESS);

    table.gemm = NULL;
    CHECK_STATUS(ps__backend_ops_complete(&full, &table, msg, sizeof msg),
                 PS_ERR_BACKEND_UNAVAILABLE);
    CHECK(strstr(msg, "'gemm'") != NULL, "names the missing entry: %s", msg);

    table = *ps__cpu_backend_ops();
    table.abi_version = PS__BACKEND_ABI_VERSION + 1;
    CHECK_STATUS(ps__backend_ops_complete(&full, &table, msg, sizeof msg),
                 PS_ERR_BACKEND_UNAVAILABLE);
    CHECK(strstr(msg, "ABI") != NULL, "ABI message: %s", msg);

    /* a table built before the optional entries existed gets every one of them by default */
    table = *ps__cpu_backend_ops();
    table.struct_size = offsetof(ps__backend_ops, queue);
    CHECK_STATUS(ps__backend_ops_complete(&full, &table, msg, sizeof msg), PS_SUCCESS);
    const ps__backend_ops *d = ps__backend_defaults();
    CHECK(full.fill == d->fill && full.laswp == d->laswp &&
              full.read_elements == d->read_elements && full.block_size == d->block_size &&
              full.family[PS__FAMILY_LU] == NULL,
          "defaults filled for a short table");
    CHECK(full.gemm == ps__cpu_backend_ops()->gemm, "required entries kept");
    /* every function slot between the header and the families is set: a new optional entry
     * without a default would leave one NULL here */
    for (size_t off = offsetof(ps__backend_ops, open); off < offsetof(ps__backend_ops, family);
         off += sizeof(void *)) {
        void (*fn)(void);
        memcpy(&fn, (const char *)&full + off, sizeof fn);
        CHECK(fn != NULL, "vtable slot at byte %zu has no default", off);
    }
    CHECK_STATUS(ps__backend_ops_complete(&full, NULL, msg, sizeof msg),
                 PS_ERR_BACKEND_UNAVAILABLE);
}

static ps_status fake_getrf_panel(ps__backend *be, ps__dtype dt, int m, int n, ps__mat a,
                                  void *ipiv, size_t ipiv_off, int row_base, void *info) {
    (void)be, (void)dt, (void)m, (void)n, (void)a, (void)ipiv, (void)ipiv_off, (void)row_base,
        (void)info;
    return PS_SUCCESS;
}
static int fake_panel_width(ps__backend *be, ps__dtype dt, int m) {
    (void)be, (void)dt, (void)m;
    return 5;
}

/* A kernel family is the module's entries where it has them and its ABI matches, the defaults
 * elsewhere: NULL entries, entries past a shorter struct_size, a whole table of another ABI or
 * no table at all. Completed once, released with the backend. */
static void test_family_completion(void) {
    const ps__lu_kernels *d = ps__lu_kernels_defaults();
    ps__lu_kernels own = {{PS__LU_KERNELS_ABI, sizeof own}, fake_getrf_panel, NULL};
    ps__backend_ops ops = *ps__cpu_backend_ops();
    ps__backend fake = {0};
    fake.ops = &ops;
    ops.family[PS__FAMILY_LU] = &own.header;
    const ps__lu_kernels *t = ps__lu(&fake);
    CHECK(t->getrf_panel == fake_getrf_panel && t->panel_width == d->panel_width,
          "own entry kept, NULL entry defaulted");
    CHECK(ps__lu(&fake) == t, "the family is completed once");
    ps__families_release(&fake);
    CHECK(fake.family[PS__FAMILY_LU] == NULL, "released");

    own.panel_width = fake_panel_width;
    own.header.struct_size = offsetof(ps__lu_kernels, panel_width);
    t = ps__lu(&fake);
    CHECK(t->getrf_panel == fake_getrf_panel && t->panel_width == d->panel_width,
          "an entry past a shorter table is defaulted");
    ps__families_release(&fake);

    own.header.struct_size = sizeof own;
    t = ps__lu(&fake);
    CHECK(t->panel_width == fake_panel_width, "full table kept");
    ps__families_release(&fake);

    own.header.abi_version = PS__LU_KERNELS_ABI + 1;
    t = ps__lu(&fake);
    CHECK(t->getrf_panel == d->getrf_panel && t->panel_width == d->panel_width,
          "a table of another ABI is replaced by the defaults");
    ps__families_release(&fake);

    ops.family[PS__FAMILY_LU] = NULL;
    t = ps__lu(&fake);
    CHECK(t->getrf_panel == d->getrf_panel, "no table: the defaults");
    ps__families_release(&fake);

    /* every family of the CPU backend completes with every slot set */
    ops = *ps__cpu_backend_ops();
    const ps__family_header *tables[] = {&ps__lu(&fake)->header,   &ps__chol(&fake)->header,
                                         &ps__wz(&fake)->header,   &ps__gj(&fake)->header,
                                         &ps__iter(&fake)->header, &ps__refine(&fake)->header,
                                         &ps__peer(&fake)->header};
    for (size_t f = 0; f < sizeof tables / sizeof tables[0]; f++)
        for (size_t off = sizeof(ps__family_header); off < tables[f]->struct_size;
             off += sizeof(void *)) {
            void (*fn)(void);
            memcpy(&fn, (const char *)tables[f] + off, sizeof fn);
            CHECK(fn != NULL, "family %zu slot at byte %zu has no default", f, off);
        }
    CHECK(ps__peer(&fake)->name(&fake) == NULL, "the CPU backend has no device transport");
    ps__families_release(&fake);
}

/* LU through the defaults-only table (the generic panel, laswp and fill built from BLAS calls),
 * so a new backend that implements only the required entries is known to work. */
static void test_lu_on_defaults(void) {
    ps_context_options o = ps_context_options_default();
    o.backend = PS_BACKEND_CPU;
    o.lu_block_size = 8;
    ps_context *ctx = NULL;
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
    if (!ctx) return;
    const ps__backend_ops *d = ps__backend_defaults();
    ctx->ops.laswp = d->laswp;
    ctx->ops.family[PS__FAMILY_LU] = NULL; /* the LU family's defaults */
    ps__families_release(&ctx->be);
    enum { n = 37, lda = 40 };
    double A[lda * n], A0[lda * n], b[n], b0[n];
    int ipiv[n];
    ps_test_latms_d(n, 1e3, 'N', A, lda);
    for (int i = 0; i < n; i++) b[i] = b0[i] = ps_test_rand();
    memcpy(A0, A, sizeof A);
    CHECK_STATUS(ps_dgesv(ctx, n, 1, A, lda, ipiv, b, n), PS_SUCCESS);
    double worst = 0; /* |b - A x| / (|A| |x|) per row, loosely */
    for (int i = 0; i < n; i++) {
        double r = b0[i], m = 0;
        for (int k = 0; k < n; k++) {
            r -= A0[i + k * lda] * b[k];
            m += __builtin_fabs(A0[i + k * lda] * b[k]);
        }
        double q = __builtin_fabs(r) / (m * n * 0x1.0p-53);
        if (q > worst) worst = q;
    }
    CHECK(worst < 30, "LU on the default kernels: residual ratio %g", worst);
    ps_context_destroy(ctx);
}

/* The look-ahead schedule of LU (taken on backends with two lanes) on the CPU backend made to
 * claim two lanes: the lanes run in order here, so this checks that the look-ahead split of the
 * work (next block column, next panel, the rest) computes the same factorization, for square,
 * tall and wide matrices and block sizes that leave partial blocks. */
static void test_lu_lookahead_schedule(void) {
    ps_context_options o = ps_context_options_default();
    o.backend = PS_BACKEND_CPU;
    o.lu_block_size = 7;
    ps_context *ctx = NULL;
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
    if (!ctx) return;
    ps_test_two_lanes(ctx);
    static const int shapes[][2] = {{40, 40}, {50, 23}, {23, 50}, {7, 7}, {8, 8}, {15, 64}};
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int m = shapes[t][0], n = shapes[t][1], lda = m + 1, k = m < n ? m : n;
        double *A0 = malloc(sizeof(double) * lda * n), *A = malloc(sizeof(double) * lda * n);
        int *ipiv = malloc(sizeof(int) * k);
        for (int i = 0; i < lda * n; i++) A0[i] = A[i] = ps_test_rand();
        CHECK_STATUS(ps_dgetrf(ctx, m, n, A, lda, ipiv), PS_SUCCESS);
        double r = ps_check_lu_ratio(PS_DOUBLE, m, n, A0, lda, A, lda, ipiv);
        CHECK(r < PS_TEST_THRESHOLD, "look-ahead getrf %dx%d: ||PA-LU|| ratio %g", m, n, r);
        free(A0), free(A), free(ipiv);
    }
    ps_context_destroy(ctx);
}

/* activate runs once per public call, at its outermost claim (the driver's own nested calls do
 * not repeat it), also for a call refused for its arguments. */
static int activations;
static void count_activation(ps__backend *be) {
    (void)be;
    activations++;
}

static void test_activate_per_call(void) {
    ps_context_options o = ps_context_options_default();
    o.backend = PS_BACKEND_CPU;
    ps_context *ctx = NULL;
    CHECK_STATUS(ps_context_create(&ctx, &o), PS_SUCCESS);
    if (!ctx) return;
    ctx->ops.activate = count_activation;
    enum { n = 5 };
    double A[n * n], b[n];
    int ipiv[n];
    ps_test_latms_d(n, 10, 'N', A, n);
    for (int i = 0; i < n; i++) b[i] = ps_test_rand();
    activations = 0;
    CHECK_STATUS(ps_dgesv(ctx, n, 1, A, n, ipiv, b, n), PS_SUCCESS);
    CHECK(activations == 1, "dgesv activated the device %d times, not once", activations);
    CHECK_STATUS(ps_dgesv(ctx, n, 1, A, n - 1, ipiv, b, n), PS_ERR_INVALID_ARGUMENT);
    CHECK(activations == 2, "a refused dgesv: %d activations in all, not 2", activations);
    CHECK_STATUS(ps_context_synchronize(ctx), PS_SUCCESS);
    CHECK(activations == 3, "synchronize: %d activations in all, not 3", activations);
    ps_context_destroy(ctx);
}

/* ps__range_nonfinite and ps__copy_nonfinite: each value at each place of arrays of finite
 * values, lengths crossing the vector widths; the copy is bit for bit. */
static void test_nonfinite_scan(void) {
    static const uint64_t d_bad[] = {0x7ff0000000000000ull, 0xfff0000000000000ull,
                                     0x7ff8000000000000ull, 0x7ff0000000000001ull,
                                     0xfff8000000000001ull, 0x7fffffffffffffffull};
    static const uint64_t d_good[] = {0x7fefffffffffffffull, 0xffefffffffffffffull, 1ull,
                                      0x8000000000000000ull, 0x000fffffffffffffull, 0};
    static const uint32_t s_bad[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                     0x7f800001u, 0xffc00001u, 0x7fffffffu};
    static const uint32_t s_good[] = {0x7f7fffffu, 0xff7fffffu, 1u, 0x80000000u, 0x007fffffu, 0};
    enum { LEN = 37, VALUES = 6 };
    uint64_t d[LEN], dc[LEN];
    uint32_t f[LEN], fc[LEN];
    for (int n = 0; n <= LEN; n += n < 9 ? 1 : 7) {
        for (int v = 0; v < 2 * VALUES; v++) {
            int bad = v < VALUES;
            for (int at = 0; at < n; at++) {
                for (int i = 0; i < n; i++) d[i] = 0x3ff0000000000000ull + (uint64_t)i;
                for (int i = 0; i < n; i++) f[i] = 0x3f800000u + (uint32_t)i;
                d[at] = bad ? d_bad[v] : d_good[v - VALUES];
                f[at] = bad ? s_bad[v] : s_good[v - VALUES];
                memset(dc, 0, sizeof dc), memset(fc, 0, sizeof fc);
                CHECK(ps__range_nonfinite(PS__DOUBLE, d, (size_t)n) == bad, "n=%d value %d at %d",
                      n, v, at);
                CHECK(ps__range_nonfinite(PS__FLOAT, f, (size_t)n) == bad, "n=%d value %d at %d", n,
                      v, at);
                CHECK(ps__copy_nonfinite(PS__DOUBLE, dc, d, (size_t)n) == bad,
                      "n=%d value %d at %d", n, v, at);
                CHECK(ps__copy_nonfinite(PS__FLOAT, fc, f, (size_t)n) == bad, "n=%d value %d at %d",
                      n, v, at);
                CHECK(memcmp(dc, d, (size_t)n * sizeof *d) == 0, "n=%d value %d at %d", n, v, at);
                CHECK(memcmp(fc, f, (size_t)n * sizeof *f) == 0, "n=%d value %d at %d", n, v, at);
            }
        }
        CHECK(ps__copy_nonfinite(PS__DOUBLE, dc, d, 0) == 0, "empty copy"); /* nothing to find */
    }
}

/* ps__lu_host_interchanges against LAPACK's order (each interchange in turn): pivot sequences
 * that move no row, only rows inside the range, and random rows; both precisions, lda larger
 * than the rows, one thread and two. */
static void test_host_interchanges(void) {
    enum { ROWS = 23, COLS = 70, LDA = 29, FIRST = 3 };
    static double d[COLS * LDA], dref[COLS * LDA];
    static float f[COLS * LDA], fref[COLS * LDA];
    int ipiv[ROWS], from[ROWS];
    static char buffers[2 * ROWS * sizeof(double)];
    unsigned seed = 7;
    for (int kind = 0; kind < 4; kind++) {
        int last = kind == 3 ? FIRST : ROWS - 2; /* kind 3: no interchange at all */
        for (int k = 0; k < ROWS; k++) {
            seed = seed * 1103515245u + 12345u;
            int span = ROWS - k, r = (int)(seed >> 16) % span;
            ipiv[k] = k; /* kind 0: every row stays */
            if (kind == 1 && k >= 8 && k < 14) ipiv[k] = k + r % (14 - k); /* rows 8..13 only */
            if (kind == 2 || kind == 3) ipiv[k] = k + r;
            ipiv[k] += 1; /* one-based, as the drivers pass them */
        }
        for (int threads = 1; threads <= 2; threads++) {
            for (int i = 0; i < COLS * LDA; i++) dref[i] = d[i] = i, fref[i] = f[i] = (float)i;
            for (int k = FIRST; k < last; k++)
                for (int j = 0; j < COLS; j++) {
                    int p = ipiv[k] - 1, a = j * LDA + k, b = j * LDA + p;
                    double t = dref[a];
                    dref[a] = dref[b], dref[b] = t;
                    float s = fref[a];
                    fref[a] = fref[b], fref[b] = s;
                }
            ps__lu_host_interchanges(PS__DOUBLE, COLS, d, LDA, ipiv, 1, FIRST, last, ROWS, from,
                                     buffers, threads);
            ps__lu_host_interchanges(PS__FLOAT, COLS, f, LDA, ipiv, 1, FIRST, last, ROWS, from,
                                     buffers, threads);
            CHECK(memcmp(d, dref, sizeof d) == 0, "double, pivots of kind %d, %d threads", kind,
                  threads);
            CHECK(memcmp(f, fref, sizeof f) == 0, "float, pivots of kind %d, %d threads", kind,
                  threads);
        }
    }
}

int main(int argc, char **argv) {
    ps_test_init(argc, argv);
    test_activate_per_call();
    test_env_backend();
    test_enum_names();
    test_unavailable_backends();
    test_tuning_parser();
    test_env_tuning();
    test_status_strings();
    test_ops_completion();
    test_family_completion();
    test_lu_on_defaults();
    test_lu_lookahead_schedule();
    test_nonfinite_scan();
    test_host_interchanges();
    return ps_test_finish("test_context");
}
