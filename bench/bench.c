/*
 * portsolve-bench: times portsolve next to the reference a user would otherwise pick, in the
 * same run, on the same inputs, and reports the ratio.
 *
 *   portsolve-bench --method lu|chol --sizes 1024,2048,4096 [--backend cpu|opencl|auto]
 *                   [--level host|device] [--precision d|s] [--reference NAME]
 *                   [--nrhs K] [--repeats R] [--csv out.csv] [--plot out.png]
 *                   [--ld aligned|n]
 *
 * Each measurement: one warm-up call of each, then R calls of each, interleaved (alternating
 * which goes first) so drift in the machine's speed hits both alike; the median is reported.
 * Inputs are restored before each call, outside the timed region. ratio = portsolve GFLOP/s /
 * reference GFLOP/s, so above 1 means portsolve is faster; for a reference that solves the same
 * system (LAPACKE on the CPU) that is reference time / portsolve time. --level host (default)
 * times ps_?gesv whole (checks, transfers, factor, solve); --level device times ps_mat_gesv on
 * matrices already on the device, made by ps_matrix_create with ld 0 (aligned columns) or, with
 * --ld n, with ld = n as a caller's own buffer often has.
 */
#define _POSIX_C_SOURCE 200809L
#include "bench_args.h"
#include "bench_refs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define MAX_SIZES 32

typedef struct {
    const char *backend, *csv, *plot, *reference;
    int sizes[MAX_SIZES], nsizes, nrhs, repeats, single, device_level, chol, ld_n;
} options;

typedef struct {
    int n;
    double ps_time, ref_time, ps_res, ref_res; /* ref_res < 0: the reference solves nothing */
    double ps_gflops, ref_gflops, ratio;
    const char *ref_name;
} row;

static int parse(int argc, char **argv, options *o) {
    memset(o, 0, sizeof *o);
    o->backend = "cpu";
    o->nrhs = 1;
    o->repeats = 5;
    const bench_arg args[] = {
        BENCH_ARG_CHOICE("--method", &o->chol, "lu|chol"),
        BENCH_ARG_STRING("--backend", &o->backend),
        BENCH_ARG_STRING("--reference", &o->reference),
        BENCH_ARG_STRING("--csv", &o->csv),
        BENCH_ARG_STRING("--plot", &o->plot),
        BENCH_ARG_INT("--nrhs", &o->nrhs, 1, 1 << 20),
        BENCH_ARG_INT("--repeats", &o->repeats, 1, 1000),
        BENCH_ARG_CHOICE("--level", &o->device_level, "host|device"),
        BENCH_ARG_CHOICE("--precision", &o->single, "d|s"),
        BENCH_ARG_CHOICE("--ld", &o->ld_n, "aligned|n"),
        BENCH_ARG_INTS("--sizes", o->sizes, MAX_SIZES, &o->nsizes, 1),
    };
    if (!bench_parse_args("portsolve-bench", argc, argv, args, sizeof args / sizeof args[0]))
        return 0;
    if (o->nsizes == 0) {
        static const int default_sizes[] = {1024, 2048, 4096};
        memcpy(o->sizes, default_sizes, sizeof default_sizes);
        o->nsizes = 3;
    }
    return 1;
}

static int open_backend(const char *name, ps_context **ctx) {
    ps_context_options o = ps_context_options_default();
    if (ps_backend_kind_from_name(name, &o.backend) != PS_SUCCESS) {
        fprintf(stderr, "portsolve-bench: --backend '%s': accepted auto, cpu, cuda, opencl\n",
                name);
        return 0;
    }
    ps_status st = ps_context_create(ctx, &o);
    if (st) {
        fprintf(stderr, "portsolve-bench: backend %s: %s\n", name, ps_last_create_error());
        return 0;
    }
    return 1;
}

/* Times one size: returns 0 on success. */
static int measure(ps_context *ctx, const options *o, const bench_ref *ref, int n, row *out) {
    bench_problem p;
    if (bench_problem_make(&p, o->chol, o->single, n, o->nrhs, 1000u + (unsigned)n)) return 1;
    p.ld_n = o->ld_n;
    double *tp = malloc(sizeof(double) * (size_t)o->repeats);
    double *tr = malloc(sizeof(double) * (size_t)o->repeats);
    int rc = 0;
    out->ref_res = -1;
    for (int r = -1; r < o->repeats && !rc; r++) { /* r = -1: warm-up */
        /* Alternate which goes first, so neither always inherits the other's warm caches. */
        for (int turn = 0; turn < 2 && !rc; turn++) {
            int ours = (turn == 0) == (r % 2 == 0);
            bench_problem_reset(&p); /* fresh inputs, not timed */
            double t = 0;
            rc = ours ? bench_run_portsolve(ctx, &p, o->device_level, &t)
                      : ref->run(ref, ctx, &p, o->device_level, &t);
            if (rc) {
                if (!ours) fprintf(stderr, "portsolve-bench: %s failed at n=%d\n", ref->name, n);
                break;
            }
            if (r >= 0) (ours ? tp : tr)[r] = t;
            if (r == o->repeats - 1 && (ours || ref->solves))
                *(ours ? &out->ps_res : &out->ref_res) = bench_problem_residual(&p);
        }
    }
    if (!rc) {
        out->n = n;
        out->ps_time = bench_median(tp, o->repeats);
        out->ref_time = bench_median(tr, o->repeats);
        out->ref_name = ref->name;
        out->ps_gflops =
            (o->chol ? bench_chol_flops : bench_lu_flops)(n, o->nrhs) / out->ps_time * 1e-9;
        out->ref_gflops = ref->flops(n, o->nrhs) / out->ref_time * 1e-9;
        out->ratio = out->ps_gflops / out->ref_gflops;
    }
    free(tp), free(tr);
    bench_problem_free(&p);
    return rc;
}

static int write_plot(const options *o, const row *rows, int count, const char *device) {
    FILE *g = popen("gnuplot", "w");
    if (!g) {
        fprintf(stderr, "portsolve-bench: cannot run gnuplot (install gnuplot-nox)\n");
        return 1;
    }
    fprintf(g, "set terminal pngcairo size 1200,500 noenhanced\nset output '%s'\n", o->plot);
    fprintf(g, "set multiplot layout 1,2 title '%c%s on %s: %s'\n", o->single ? 's' : 'd',
            o->chol ? "posv" : "gesv", o->backend, device);
    fprintf(g,
            "set grid\nset key left top\nset xlabel 'n'\nset logscale y\nset ylabel 'seconds'\n");
    fprintf(g, "plot '-' with linespoints title 'portsolve', '-' with linespoints title '%s'\n",
            rows[0].ref_name);
    for (int i = 0; i < count; i++) fprintf(g, "%d %g\n", rows[i].n, rows[i].ps_time);
    fprintf(g, "e\n");
    for (int i = 0; i < count; i++) fprintf(g, "%d %g\n", rows[i].n, rows[i].ref_time);
    fprintf(g, "e\nunset logscale y\nset ylabel 'GFLOP/s'\nset yrange [0:*]\n");
    fprintf(g, "plot '-' with linespoints title 'portsolve', '-' with linespoints title '%s'\n",
            rows[0].ref_name);
    for (int i = 0; i < count; i++) fprintf(g, "%d %g\n", rows[i].n, rows[i].ps_gflops);
    fprintf(g, "e\n");
    for (int i = 0; i < count; i++) fprintf(g, "%d %g\n", rows[i].n, rows[i].ref_gflops);
    fprintf(g, "e\nunset multiplot\n");
    int rc = pclose(g);
    if (rc != 0) fprintf(stderr, "portsolve-bench: gnuplot failed (%d)\n", rc);
    return rc != 0;
}

int main(int argc, char **argv) {
    options o;
    if (!parse(argc, argv, &o)) return 2;
    ps_context *ctx;
    if (!open_backend(o.backend, &ctx)) return 1;
    const bench_ref *ref = bench_reference_for(ps_context_backend_name(ctx), o.reference, o.chol);
    if (!ref) {
        fprintf(stderr, "portsolve-bench: no reference '%s' for backend %s in this build\n",
                o.reference ? o.reference : "(default)", ps_context_backend_name(ctx));
        ps_context_destroy(ctx);
        return 1;
    }
    const char *device = ps_context_device_name(ctx);
    printf("# portsolve-bench: %c%s (%s level), nrhs %d, median of %d after a warm-up\n",
           o.single ? 's' : 'd', o.chol ? "posv" : "gesv", o.device_level ? "device" : "host",
           o.nrhs, o.repeats);
    printf("# backend %s, device %s; reference %s\n", ps_context_backend_name(ctx), device,
           ref->name);
    printf("# host crossover: %s host drivers up to n = %d run on the CPU path\n",
           o.single ? "float" : "double",
           ps_context_host_crossover(ctx, o.single ? PS_FLOAT : PS_DOUBLE));
    printf("# ratio = portsolve GFLOP/s / reference GFLOP/s (gesv 2/3 n^3, posv 1/3 n^3, + 2 n^2 "
           "nrhs);\n"
           "# for a reference that solves the same system it is reference time / portsolve time\n");
    printf("%7s %12s %10s %12s %10s %7s %11s %11s\n", "n", "ps time s", "ps GF/s", "ref time s",
           "ref GF/s", "ratio", "ps resid", "ref resid");
    row rows[MAX_SIZES];
    int count = 0, rc = 0;
    for (int i = 0; i < o.nsizes; i++) {
        if (measure(ctx, &o, ref, o.sizes[i], &rows[count])) {
            fprintf(stderr, "portsolve-bench: n=%d failed: %s\n", o.sizes[i],
                    ps_context_last_error(ctx));
            rc = 1;
            continue;
        }
        row *r = &rows[count++];
        char ref_res[16] = "-";
        if (r->ref_res >= 0) snprintf(ref_res, sizeof ref_res, "%.3g", r->ref_res);
        printf("%7d %12.5f %10.2f %12.5f %10.2f %7.3f %11.3g %11s\n", r->n, r->ps_time,
               r->ps_gflops, r->ref_time, r->ref_gflops, r->ratio, r->ps_res, ref_res);
        fflush(stdout);
        if (!(r->ps_res < 30)) rc = 1;
    }
    if (o.csv) {
        FILE *f = fopen(o.csv, "w");
        if (!f) {
            fprintf(stderr, "portsolve-bench: cannot write %s\n", o.csv);
            rc = 1;
        } else {
            fprintf(f, "method,level,backend,device,precision,n,nrhs,ps_time_s,ps_gflops,reference,"
                       "ref_time_s,ref_gflops,ratio,ps_residual,ref_residual\n");
            for (int i = 0; i < count; i++)
                fprintf(f, "%s,%s,%s,\"%s\",%c,%d,%d,%.6g,%.4g,%s,%.6g,%.4g,%.4f,%.3g,%.3g\n",
                        o.chol ? "chol" : "lu", o.device_level ? "device" : "host",
                        ps_context_backend_name(ctx), device, o.single ? 's' : 'd', rows[i].n,
                        o.nrhs, rows[i].ps_time, rows[i].ps_gflops, rows[i].ref_name,
                        rows[i].ref_time, rows[i].ref_gflops, rows[i].ratio, rows[i].ps_res,
                        rows[i].ref_res);
            fclose(f);
        }
    }
    if (o.plot && count > 0 && write_plot(&o, rows, count, device)) rc = 1;
    bench_refs_release();
    ps_context_destroy(ctx);
    return rc;
}
