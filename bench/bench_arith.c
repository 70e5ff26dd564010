/*
 * bench_arith: single-thread timings of field, curve and pairing operations.
 *
 *   bench_arith [--quick] [FILTER...]
 *
 * Prints one row per operation, "operation | ns/op | ops | min ns/op": the median over several
 * timed runs (CLOCK_MONOTONIC) of the time per operation, the number of operations in one run,
 * and the fastest run (on a shared machine the minimum is the steadier figure). Each row is
 * warmed up and calibrated first so that a run lasts about 0.1 s (0.01 s with --quick).
 * FILTER arguments keep only rows whose name contains one of them (e.g. `fp_mul g1`).
 *
 * Operations are chained (each result feeds the next call) so the figures are latencies, the way
 * a pairing or a scalar multiplication uses them; results end in a volatile sink so that nothing
 * is optimized away. Inputs are random (seeded, so runs repeat).
 *
 * The row calib_mulx times one independent 64x64->128-bit MULX (x86-64 with BMI2 only): the
 * multiplier's throughput bounds Fp and Fr multiplication, and on a shared VM it moves with the
 * host's load, so it is printed to put the other rows in context.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/pairing.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fp2.h"
#include "field/fr.h"
#include "field/random.h"

#define NSCALARS 64

/* Inputs (set up once) and chained state; the state is global so no call can be elided. */
static struct {
    g16_fp fa, fb;
    g16_fr ra, rb;
    g16_fp2 f2a, f2b;
    g16_fp12 f12a, f12b;
    g16_fr k[NSCALARS];
    g16_p1 p1a, p1b;
    g16_p1_affine p1aff[3];
    g16_p2 p2a, p2b;
    g16_p2_affine p2aff[3];
} in;

static volatile uint64_t sink;

typedef void (*bench_fn)(long n);

/* ---- field ---- */

static void b_fp_add(long n)
{
    for (long i = 0; i < n; i++)
        g16__fp_add(&in.fa, &in.fa, &in.fb);
}
static void b_fp_mul(long n)
{
    for (long i = 0; i < n; i++)
        g16__fp_mul(&in.fa, &in.fa, &in.fb);
}
static void b_fp_sqr(long n)
{
    for (long i = 0; i < n; i++)
        g16__fp_sqr(&in.fa, &in.fa);
}
static void b_fp_mul_portable(long n)
{
    g16__fp_force_portable(1);
    b_fp_mul(n);
    g16__fp_force_portable(0);
}
static void b_fp_sqr_portable(long n)
{
    g16__fp_force_portable(1);
    b_fp_sqr(n);
    g16__fp_force_portable(0);
}
/* inv(0) = 0 would freeze the chain on zero; adding b keeps the input random. */
static void b_fp_inv(long n)
{
    for (long i = 0; i < n; i++) {
        g16__fp_inv(&in.fa, &in.fa);
        g16__fp_add(&in.fa, &in.fa, &in.fb);
    }
}
static void b_fp_inv_var(long n)
{
    for (long i = 0; i < n; i++) {
        g16__fp_inv_var(&in.fa, &in.fa);
        g16__fp_add(&in.fa, &in.fa, &in.fb);
    }
}
static void b_fp_sqrt(long n)
{
    int ok = 0;
    for (long i = 0; i < n; i++) {
        ok += g16__fp_sqrt(&in.fa, &in.fa);
        g16__fp_add(&in.fa, &in.fa, &in.fb);
    }
    sink += (uint64_t)ok;
}
static void b_fr_mul(long n)
{
    for (long i = 0; i < n; i++)
        g16__fr_mul(&in.ra, &in.ra, &in.rb);
}
static void b_fr_sqr(long n)
{
    for (long i = 0; i < n; i++)
        g16__fr_sqr(&in.ra, &in.ra);
}
static void b_fr_mul_portable(long n)
{
    g16__fr_force_portable(1);
    b_fr_mul(n);
    g16__fr_force_portable(0);
}
static void b_fr_inv(long n)
{
    for (long i = 0; i < n; i++) {
        g16__fr_inv(&in.ra, &in.ra);
        g16__fr_add(&in.ra, &in.ra, &in.rb);
    }
}
static void b_fr_inv_var(long n)
{
    for (long i = 0; i < n; i++) {
        g16__fr_inv_var(&in.ra, &in.ra);
        g16__fr_add(&in.ra, &in.ra, &in.rb);
    }
}
static void b_fp2_mul(long n)
{
    for (long i = 0; i < n; i++)
        g16__fp2_mul(&in.f2a, &in.f2a, &in.f2b);
}
static void b_fp2_sqr(long n)
{
    for (long i = 0; i < n; i++)
        g16__fp2_sqr(&in.f2a, &in.f2a);
}
static void b_fp12_mul(long n)
{
    for (long i = 0; i < n; i++)
        g16__fp12_mul(&in.f12a, &in.f12a, &in.f12b);
}
static void b_fp12_sqr(long n)
{
    for (long i = 0; i < n; i++)
        g16__fp12_sqr(&in.f12a, &in.f12a);
}

/* ---- curves ---- */

static void b_g1_add(long n)
{
    for (long i = 0; i < n; i++)
        g16__p1_add(&in.p1a, &in.p1a, &in.p1b);
}
static void b_g1_add_var(long n)
{
    for (long i = 0; i < n; i++)
        g16__p1_add_var(&in.p1a, &in.p1a, &in.p1b);
}
static void b_g1_add_mixed(long n)
{
    for (long i = 0; i < n; i++)
        g16__p1_add_affine(&in.p1a, &in.p1a, &in.p1aff[0]);
}
static void b_g1_add_mixed_var(long n)
{
    for (long i = 0; i < n; i++)
        g16__p1_add_affine_var(&in.p1a, &in.p1a, &in.p1aff[0]);
}
static void b_g1_dbl(long n)
{
    for (long i = 0; i < n; i++)
        g16__p1_dbl(&in.p1a, &in.p1a);
}
static void b_g1_mul(long n)
{
    for (long i = 0; i < n; i++)
        g16__p1_mul(&in.p1a, &in.p1a, &in.k[i % NSCALARS]);
}
static void b_g1_mul_var(long n)
{
    for (long i = 0; i < n; i++)
        g16__p1_mul_var(&in.p1a, &in.p1a, &in.k[i % NSCALARS]);
}
static void b_g2_add(long n)
{
    for (long i = 0; i < n; i++)
        g16__p2_add(&in.p2a, &in.p2a, &in.p2b);
}
static void b_g2_add_var(long n)
{
    for (long i = 0; i < n; i++)
        g16__p2_add_var(&in.p2a, &in.p2a, &in.p2b);
}
static void b_g2_add_mixed(long n)
{
    for (long i = 0; i < n; i++)
        g16__p2_add_affine(&in.p2a, &in.p2a, &in.p2aff[0]);
}
static void b_g2_add_mixed_var(long n)
{
    for (long i = 0; i < n; i++)
        g16__p2_add_affine_var(&in.p2a, &in.p2a, &in.p2aff[0]);
}
static void b_g2_dbl(long n)
{
    for (long i = 0; i < n; i++)
        g16__p2_dbl(&in.p2a, &in.p2a);
}
static void b_g2_mul(long n)
{
    for (long i = 0; i < n; i++)
        g16__p2_mul(&in.p2a, &in.p2a, &in.k[i % NSCALARS]);
}
static void b_g2_mul_var(long n)
{
    for (long i = 0; i < n; i++)
        g16__p2_mul_var(&in.p2a, &in.p2a, &in.k[i % NSCALARS]);
}

/* ---- pairing ---- (inputs cannot be chained; the outputs are folded into the sink) */

static void b_miller_loop(long n)
{
    for (long i = 0; i < n; i++) {
        g16__miller_loop(&in.f12a, &in.p1aff[i % 3], &in.p2aff[i % 3]);
        sink += in.f12a.c0.c0.c0.l[0];
    }
}
static void b_final_exp(long n)
{
    for (long i = 0; i < n; i++)
        g16__final_exp(&in.f12b, &in.f12b);
}
static void b_pairing(long n)
{
    for (long i = 0; i < n; i++) {
        g16__pairing(&in.f12a, &in.p1aff[i % 3], &in.p2aff[i % 3]);
        sink += in.f12a.c0.c0.c0.l[0];
    }
}
static void b_pairing3(long n)
{
    for (long i = 0; i < n; i++) {
        g16__multi_pairing(&in.f12a, in.p1aff, in.p2aff, 3);
        sink += in.f12a.c0.c0.c0.l[0];
    }
}

/* ---- calibration: independent MULX instructions (4 per iteration) ---- */

#if defined(__x86_64__)
static void b_calib_mulx(long n)
{
    long iters = (n + 3) / 4;
    uint64_t x = 0x9e3779b97f4a7c15ULL, y = in.fa.l[0] | 1;
    __asm__ volatile("1:\n\t"
                     "mulx %1, %%r8, %%r9\n\t"
                     "mulx %1, %%r10, %%r11\n\t"
                     "mulx %1, %%r8, %%r9\n\t"
                     "mulx %1, %%r10, %%r11\n\t"
                     "dec %2\n\t"
                     "jnz 1b\n\t"
                     : "+d"(x), "+r"(y), "+r"(iters)
                     :
                     : "r8", "r9", "r10", "r11", "cc");
    sink += x + y;
}
#endif

typedef struct {
    const char *name;
    bench_fn fn;
    int needs_mulx; /* 1: only meaningful when the MULX path exists */
} row;

static const row rows[] = {
#if defined(__x86_64__)
    {"calib_mulx", b_calib_mulx, 1},
#endif
    {"fp_add", b_fp_add, 0},
    {"fp_mul", b_fp_mul, 0},
    {"fp_mul_portable", b_fp_mul_portable, 0},
    {"fp_sqr", b_fp_sqr, 0},
    {"fp_sqr_portable", b_fp_sqr_portable, 0},
    {"fp_inv", b_fp_inv, 0},
    {"fp_inv_var", b_fp_inv_var, 0},
    {"fp_sqrt", b_fp_sqrt, 0},
    {"fr_mul", b_fr_mul, 0},
    {"fr_mul_portable", b_fr_mul_portable, 0},
    {"fr_sqr", b_fr_sqr, 0},
    {"fr_inv", b_fr_inv, 0},
    {"fr_inv_var", b_fr_inv_var, 0},
    {"fp2_mul", b_fp2_mul, 0},
    {"fp2_sqr", b_fp2_sqr, 0},
    {"fp12_mul", b_fp12_mul, 0},
    {"fp12_sqr", b_fp12_sqr, 0},
    {"g1_add", b_g1_add, 0},
    {"g1_add_var", b_g1_add_var, 0},
    {"g1_add_mixed", b_g1_add_mixed, 0},
    {"g1_add_mixed_var", b_g1_add_mixed_var, 0},
    {"g1_dbl", b_g1_dbl, 0},
    {"g1_mul", b_g1_mul, 0},
    {"g1_mul_var", b_g1_mul_var, 0},
    {"g2_add", b_g2_add, 0},
    {"g2_add_var", b_g2_add_var, 0},
    {"g2_add_mixed", b_g2_add_mixed, 0},
    {"g2_add_mixed_var", b_g2_add_mixed_var, 0},
    {"g2_dbl", b_g2_dbl, 0},
    {"g2_mul", b_g2_mul, 0},
    {"g2_mul_var", b_g2_mul_var, 0},
    {"miller_loop", b_miller_loop, 0},
    {"final_exp", b_final_exp, 0},
    {"pairing", b_pairing, 0},
    {"multi_pairing_3", b_pairing3, 0},
};

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double time_run(bench_fn fn, long n)
{
    double t0 = now_ns();
    fn(n);
    return now_ns() - t0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Calibrates n so that one run takes about target_ns, then returns the median ns/op of runs runs
 * (and the fastest in *min_out). */
static double measure(bench_fn fn, double target_ns, int runs, long *n_out, double *min_out)
{
    long n = 1;
    double t = time_run(fn, n); /* also the warm-up */
    while (t < target_ns / 8 && n < (1L << 40)) {
        n *= 8;
        t = time_run(fn, n);
    }
    double per = t / (double)n;
    n = (long)(target_ns / per);
    if (n < 1)
        n = 1;
    double samples[16];
    if (runs > 16)
        runs = 16;
    for (int i = 0; i < runs; i++)
        samples[i] = time_run(fn, n) / (double)n;
    qsort(samples, (size_t)runs, sizeof samples[0], cmp_double);
    *n_out = n;
    *min_out = samples[0];
    return samples[runs / 2];
}

static void random_fp(g16_fp *r, g16__rng *rng)
{
    if (g16__fp_random(r, rng) != G16_OK)
        g16__fp_set_one(r);
}

static void random_fr(g16_fr *r, g16__rng *rng)
{
    if (g16__fr_random_nonzero(r, rng) != G16_OK)
        g16__fr_set_one(r);
}

static void setup(void)
{
    g16__rng rng;
    g16__rng_init_seeded(&rng, 20240601);
    random_fp(&in.fa, &rng);
    random_fp(&in.fb, &rng);
    random_fr(&in.ra, &rng);
    random_fr(&in.rb, &rng);
    random_fp(&in.f2a.c0, &rng);
    random_fp(&in.f2a.c1, &rng);
    random_fp(&in.f2b.c0, &rng);
    random_fp(&in.f2b.c1, &rng);
    for (int i = 0; i < NSCALARS; i++)
        random_fr(&in.k[i], &rng);

    g16_p1 g1;
    g16_p2 g2;
    g16__p1_generator(&g1);
    g16__p2_generator(&g2);
    g16__p1_mul_var(&in.p1a, &g1, &in.k[0]);
    g16__p1_mul_var(&in.p1b, &g1, &in.k[1]);
    g16__p2_mul_var(&in.p2a, &g2, &in.k[2]);
    g16__p2_mul_var(&in.p2b, &g2, &in.k[3]);
    for (int i = 0; i < 3; i++) {
        g16_p1 t1;
        g16_p2 t2;
        g16__p1_mul_var(&t1, &g1, &in.k[4 + i]);
        g16__p1_to_affine(&in.p1aff[i], &t1);
        g16__p2_mul_var(&t2, &g2, &in.k[8 + i]);
        g16__p2_to_affine(&in.p2aff[i], &t2);
    }
    /* Fp12 inputs: Miller loop outputs (generic elements of Fp12*) */
    g16__miller_loop(&in.f12a, &in.p1aff[0], &in.p2aff[0]);
    g16__miller_loop(&in.f12b, &in.p1aff[1], &in.p2aff[1]);
}

static void print_cpu(void)
{
    char line[256], model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *colon = strchr(line, ':');
                if (colon) {
                    snprintf(model, sizeof model, "%s", colon + 2);
                    model[strcspn(model, "\n")] = 0;
                }
                break;
            }
        }
        fclose(f);
    }
    printf("# cpu: %s; MULX/ADX path: %s\n", model,
           g16__fp_have_mulx() ? "yes" : "no (portable only)");
}

static int selected(const char *name, int nfilters, char **filters)
{
    if (nfilters == 0)
        return 1;
    for (int i = 0; i < nfilters; i++)
        if (strstr(name, filters[i]))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int quick = 0, nfilters = 0;
    char **filters = calloc((size_t)argc, sizeof *filters);
    if (!filters)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            quick = 1;
        else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: %s [--quick] [FILTER...]\n", argv[0]);
            free(filters);
            return 0;
        } else
            filters[nfilters++] = argv[i];
    }
    double target = quick ? 1e7 : 1e8;
    int runs = quick ? 3 : 7;

    setup();
    print_cpu();
    printf("# median of %d runs of ~%.0f ms each, single thread, chained operations\n", runs, target / 1e6);
    printf("%-20s | %14s | %10s | %14s\n", "operation", "ns/op", "ops", "min ns/op");
    printf("%-20s-|-%14s-|-%10s-|-%14s\n", "--------------------", "--------------", "----------",
           "--------------");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!selected(rows[i].name, nfilters, filters))
            continue;
        if (rows[i].needs_mulx && !g16__fp_have_mulx())
            continue;
        long n = 0;
        double mn = 0;
        double ns = measure(rows[i].fn, target, runs, &n, &mn);
        printf("%-20s | %14.1f | %10ld | %14.1f\n", rows[i].name, ns, n, mn);
        fflush(stdout);
    }
    sink += in.fa.l[0] ^ in.ra.l[0] ^ in.f2a.c0.l[0] ^ in.f12a.c0.c0.c0.l[0] ^ in.f12b.c0.c0.c0.l[0] ^
            in.p1a.x.l[0] ^ in.p2a.x.c0.l[0];
    free(filters);
    return 0;
}
