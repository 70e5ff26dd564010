/*
 * bench_msm: multi-scalar multiplication timings (src/msm), G1 and G2.
 *
 *   bench_msm [MAXLOG [G2MAXLOG]]        table: sizes 2^10 .. 2^MAXLOG (default 20; G2 to 18)
 *   bench_msm --sweep LOGN [G1|G2]       window/accumulation sweep at one size, one thread
 *
 * Table rows: group, log2 n, scalar kind, window c, ms per MSM with all threads (wall clock)
 * and with one (nthreads = 1: everything on the calling thread; wall clock and process CPU
 * time, which a shared machine disturbs less). Scalar kinds:
 *   random     uniform in Fr (full size)
 *   filecoin   35% zeros, 35% ones, 30% uniform (the mix of a Filecoin witness)
 * Each figure is the minimum over RUNS timed runs (1 run from 2^18 points up). Inputs are
 * seeded, so runs repeat. Bases are random subgroup points: a few random multiples of the
 * generator, then a chain of additions (cheap to make, uniform enough for timing).
 *
 * A calibration line first and last: one chained Fp multiplication (ns, CPU time). The MSM is
 * bound by it (about three quarters of its time), so on a shared VM whose neighbours slow the
 * multiplier down, MSM times should be read relative to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fr.h"
#include "field/random.h"
#include "msm/msm.h"
#include "util/threads.h"

#define RUNS 3

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

static void die(const char *what)
{
    fprintf(stderr, "bench_msm: %s\n", what);
    exit(1);
}

/* ---- inputs ---- */

#define DEFINE_BASES(P, AFF, JAC)                                                                        \
    static AFF *P##_bases(size_t n, g16__rng *rng)                                                   \
    {                                                                                                \
        AFF *out = malloc(n * sizeof *out);                                                          \
        JAC *tmp = malloc(n * sizeof *tmp);                                                          \
        JAC g, q[8], acc;                                                                            \
        if (!out || !tmp)                                                                            \
            die("out of memory");                                                                    \
        g16__##P##_generator(&g);                                                                    \
        for (int i = 0; i < 8; i++) {                                                                \
            g16_fr k;                                                                                \
            g16__fr_random(&k, rng);                                                                 \
            g16__##P##_mul_var(&q[i], &g, &k);                                                       \
        }                                                                                            \
        acc = q[7];                                                                                  \
        for (size_t i = 0; i < n; i++) {                                                             \
            uint64_t r;                                                                              \
            g16__rng_bytes(rng, &r, sizeof r);                                                       \
            g16__##P##_add_var(&acc, &acc, &q[r % 7]);                                               \
            tmp[i] = acc;                                                                            \
        }                                                                                            \
        g16__##P##_batch_to_affine(out, tmp, n);                                                     \
        free(tmp);                                                                                   \
        return out;                                                                                  \
    }

DEFINE_BASES(p1, g16_p1_affine, g16_p1)
DEFINE_BASES(p2, g16_p2_affine, g16_p2)

static g16_fr *make_scalars(size_t n, int filecoin, g16__rng *rng)
{
    g16_fr *k = malloc(n * sizeof *k);
    if (!k)
        die("out of memory");
    for (size_t i = 0; i < n; i++) {
        uint64_t r = 0;
        if (filecoin)
            g16__rng_bytes(rng, &r, sizeof r);
        r %= 100;
        if (filecoin && r < 35)
            g16__fr_set_zero(&k[i]);
        else if (filecoin && r < 70)
            g16__fr_set_one(&k[i]);
        else
            g16__fr_random(&k[i], rng);
    }
    return k;
}

/* ---- timing ---- */

typedef struct {
    int g2;
    const void *bases;
    const g16_fr *k;
    size_t n;
} job;

/* Best of `runs`: wall ms into *wall, CPU ms into *cpu (either may be NULL). */
static void time_msm(const job *j, const g16__msm_opts *o, int runs, double *wall, double *cpu)
{
    double best_w = 1e30, best_c = 1e30;
    for (int r = 0; r < runs; r++) {
        g16_error e = {0};
        g16_status st;
        double t = now_s(), c = cpu_s();
        if (j->g2) {
            g16_p2 out;
            st = g16__p2_msm_var(&out, j->bases, j->k, j->n, o, &e);
            sink ^= out.x.c0.l[0];
        } else {
            g16_p1 out;
            st = g16__p1_msm_var(&out, j->bases, j->k, j->n, o, &e);
            sink ^= out.x.l[0];
        }
        t = now_s() - t;
        c = cpu_s() - c;
        if (st != G16_OK) {
            fprintf(stderr, "bench_msm: msm failed: %s\n", e.msg);
            exit(1);
        }
        if (t < best_w)
            best_w = t;
        if (c < best_c)
            best_c = c;
    }
    if (wall)
        *wall = best_w * 1e3;
    if (cpu)
        *cpu = best_c * 1e3;
}

/* ns per chained Fp multiplication (CPU time, best of 5 runs of 10^5). */
static double calib_fp_mul(void)
{
    g16_fp a = g16__fp_one, b = g16__fp_r2;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        double c = cpu_s();
        for (int i = 0; i < 100000; i++)
            g16__fp_mul(&a, &a, &b);
        c = cpu_s() - c;
        if (c < best)
            best = c;
    }
    sink ^= a.l[0];
    return best / 100000 * 1e9;
}

static void print_machine(void)
{
    char line[256], model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                snprintf(model, sizeof model, "%s", c + 2);
                model[strcspn(model, "\n")] = 0;
            }
            break;
        }
    }
    if (f)
        fclose(f);
    printf("cpu: %s; threads: %d; MULX: %s\n", model, g16__nthreads(), g16__fp_have_mulx() ? "yes" : "no");
    printf("calibration: fp_mul %.1f ns (chained, CPU time)\n", calib_fp_mul());
}

static void table(unsigned maxlog, unsigned g2maxlog)
{
    g16__rng rng;
    g16__rng_init_seeded(&rng, 1);
    int nt = g16__nthreads();
    printf("| group | n | scalars | window | ms (%d threads) | ms (1 thread) | CPU ms (1 thread) |\n", nt);
    printf("|---|---|---|---|---|---|---|\n");
    for (int g2 = 0; g2 < 2; g2++) {
        unsigned top = g2 ? g2maxlog : maxlog;
        if (top < 10)
            continue;
        size_t nmax = (size_t)1 << top;
        double t0 = now_s();
        const void *bases = g2 ? (const void *)p2_bases(nmax, &rng) : (const void *)p1_bases(nmax, &rng);
        fprintf(stderr, "%s: %zu bases in %.1f s\n", g2 ? "G2" : "G1", nmax, now_s() - t0);
        for (int fc = 0; fc < 2; fc++) {
            g16_fr *k = make_scalars(nmax, fc, &rng);
            for (unsigned lg = 10; lg <= top; lg++) {
                job j = {g2, bases, k, (size_t)1 << lg};
                int runs = lg >= 18 ? 1 : RUNS;
                g16__msm_opts one = {.nthreads = 1};
                double tm, t1, c1;
                time_msm(&j, NULL, runs, &tm, NULL);
                time_msm(&j, &one, runs, &t1, &c1);
                size_t nontrivial = fc ? j.n * 30 / 100 : j.n;
                printf("| %s | 2^%u | %s | %u | %.1f | %.1f | %.1f |\n", g2 ? "G2" : "G1", lg,
                       fc ? "filecoin" : "random", g16__msm_window_for(nontrivial, g2), tm, t1, c1);
                fflush(stdout);
            }
            free(k);
        }
        free((void *)bases);
    }
}

/* One thread, one size: every window c near the automatic one, both accumulation modes. */
static void sweep(unsigned lg, int g2)
{
    g16__rng rng;
    g16__rng_init_seeded(&rng, 2);
    size_t n = (size_t)1 << lg;
    const void *bases = g2 ? (const void *)p2_bases(n, &rng) : (const void *)p1_bases(n, &rng);
    g16_fr *k = make_scalars(n, 0, &rng);
    job j = {g2, bases, k, n};
    unsigned c0 = g16__msm_window_for(n, g2);
    printf("sweep %s n = 2^%u, one thread (automatic window %u)\n", g2 ? "G2" : "G1", lg, c0);
    printf("| window | batch | CPU ms affine | CPU ms xyzz |\n|---|---|---|---|\n");
    for (unsigned c = c0 > 3 ? c0 - 3 : 1; c <= c0 + 3 && c <= 20; c++) {
        g16__msm_opts oa = {.nthreads = 1, .window = c, .accum = G16__MSM_ACCUM_AFFINE};
        g16__msm_opts ox = {.nthreads = 1, .window = c, .accum = G16__MSM_ACCUM_XYZZ};
        int runs = lg >= 17 ? 1 : 2;
        double ta, tx;
        time_msm(&j, &oa, runs, NULL, &ta);
        time_msm(&j, &ox, runs, NULL, &tx);
        printf("| %u | auto | %.1f | %.1f |\n", c, ta, tx);
        fflush(stdout);
    }
    /* batch sizes at the automatic window */
    for (unsigned b = 64; b <= 4096; b *= 2) {
        g16__msm_opts oa = {.nthreads = 1, .window = c0, .accum = G16__MSM_ACCUM_AFFINE, .batch = b};
        double ta;
        time_msm(&j, &oa, lg >= 17 ? 1 : 2, NULL, &ta);
        printf("| %u | %u | %.1f | |\n", c0, b, ta);
        fflush(stdout);
    }
    free(k);
    free((void *)bases);
}

int main(int argc, char **argv)
{
    print_machine();
    if (argc >= 3 && strcmp(argv[1], "--sweep") == 0) {
        sweep((unsigned)atoi(argv[2]), argc >= 4 && strcmp(argv[3], "G2") == 0);
    } else {
        unsigned maxlog = argc >= 2 ? (unsigned)atoi(argv[1]) : 20;
        unsigned g2maxlog = argc >= 3 ? (unsigned)atoi(argv[2]) : (maxlog < 18 ? maxlog : 18);
        if (maxlog > 26 || g2maxlog > 26)
            die("sizes above 2^26 are not supported by this benchmark");
        table(maxlog, g2maxlog);
    }
    printf("calibration: fp_mul %.1f ns (chained, CPU time)\n", calib_fp_mul());
    return (int)(sink & 0);
}
