/* GPU MSM benchmark: G1 at 2^16 .. 2^g1_max and G2 at 2^16 .. 2^g2_max (every other power of
 * two up to 2^24, then every power), random scalars and Filecoin-like scalars (35% zero, 35% one, 30% random), bases resident
 * on the device (generated there), scalars from page-locked host memory.
 * Usage: bench_gpu_msm [g1_max_log (26)] [g2_max_log (25: the range of issue 5)] [markdown output file]
 *
 * Time: wall clock of g16__gpu_msm_run_p1/p2 for one scalar set (upload, classification with
 * its count download, Pippenger, result download and normalization), median of 3 runs after
 * a warm-up run that allocates the scratch memory. Phases: CUDA events of one more run (msm_gpu.h;
 * from 2^23 points, or with G16_BENCH_UPLOAD_CHUNKS=k (1: one piece) above 2^18 points, the
 * scalars cross PCIe in up to 8 (k) chunks, "upload" is then the first chunk's and "classify,
 * ones" the rest of the upload with each chunk's classification and ones' sums).
 * Checks at every size and kind: linearity, MSM(a) + MSM(b) = MSM(a + b) on the device; at 2^16
 * (and 2^20 in G1) the Filecoin-like result against the CPU MSM on the downloaded bases.
 *
 * Floor: the multiply-adds of the XYZZ algorithm at 588 IMAD per Fp product and 1.67e13 IMAD/s
 * (measured on this card model): per non-trivial scalar and window one mixed addition (8M+2S:
 * 10 Fp products in G1, 28 in G2 with 3-product Fp2 multiplications), per scalar one a mixed
 * addition, per bucket two general additions (12M+2S: 14 / 40) in the reduction. The memory
 * floor (each scalar and base read once at 4.3 TB/s) is far below it. sppark's figures were
 * measured on the same card model (bases resident, scalars from the host). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/msm_core.cuh"
#include "gpu/msm_gpu.h"
#include "msm/msm.h"

#define IMAD_PER_S 1.67e13
#define MEM_BYTES_PER_S 4.3e12
#define IMAD_PER_FP_MUL 588.0

static void die(const char *what, const g16_error *err)
{
    fprintf(stderr, "bench_gpu_msm: %s: %s\n", what, err ? err->msg : "");
    exit(1);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform below r (rejection on 255-bit values), taken as the Montgomery form of a scalar. */
static void rand_fr(g16_fr *k)
{
    for (;;) {
        for (int i = 0; i < 4; i++)
            k->l[i] = rng();
        k->l[3] &= 0x7fffffffffffffffull;
        for (int i = 3; i >= 0; i--) {
            if (k->l[i] != g16__fr_modulus[i]) {
                if (k->l[i] < g16__fr_modulus[i])
                    return;
                break;
            }
        }
    }
}

static void fill(g16_fr *k, size_t n, int filecoin)
{
    for (size_t i = 0; i < n; i++) {
        unsigned r = filecoin ? (unsigned)(rng() % 100) : 99;
        if (r < 35)
            g16__fr_set_zero(&k[i]);
        else if (r < 70)
            g16__fr_set_one(&k[i]);
        else
            rand_fr(&k[i]);
    }
}

typedef struct {
    const char *group;
    int kind; /* 0 random, 1 filecoin */
    unsigned log_n;
    double sppark_ms;
} ref;

static const ref refs[] = {{"G1", 0, 20, 23.5}, {"G1", 0, 22, 58.5}, {"G1", 0, 24, 178},  {"G1", 0, 26, 622},
                           {"G1", 1, 26, 371},  {"G2", 0, 20, 50},   {"G2", 0, 22, 143},  {"G2", 0, 24, 479},
                           {"G2", 1, 24, 231}};

static double sppark(int g2, int kind, unsigned log_n)
{
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++)
        if (refs[i].group[1] == (g2 ? '2' : '1') && refs[i].kind == kind && refs[i].log_n == log_n)
            return refs[i].sppark_ms;
    return 0;
}

/* Milliseconds of the IMAD floor for n scalars of which m non-trivial and `ones` equal to one. */
static double floor_ms(int g2, uint64_t m, uint64_t ones)
{
    double madd = g2 ? 28 : 10, add = g2 ? 40 : 14, muls = madd * (double)ones;
    if (m > 0) {
        unsigned c = msm_window_for(m), nwin = (256 + c - 1) / c;
        muls += madd * (double)nwin * (double)m + 2 * add * (double)nwin * (double)(1u << (c - 1));
    }
    return muls * IMAD_PER_FP_MUL / IMAD_PER_S * 1e3;
}

typedef struct {
    g16__gpu *g;
    g16_fr *A, *B; /* page-locked, max n each */
} bench;

/* G16_BENCH_UPLOAD_CHUNKS=k: every run with opts.upload_chunks = k; G16_BENCH_WINDOW=c: every
 * run with opts.window = c (msm_gpu.h; 0: automatic) */
static unsigned upload_chunks, window, wpp;

static g16_status run(g16__gpu_msm *m, int g2, void *out, const g16_fr *k, const g16__gpu_msm_opts *o,
                      g16_error *err)
{
    g16__gpu_msm_opts oo;
    if (o)
        oo = *o;
    else
        memset(&oo, 0, sizeof oo);
    oo.upload_chunks = upload_chunks;
    if (window)
        oo.window = window;
    oo.windows_per_pass = wpp;
    return g2 ? g16__gpu_msm_run_p2(m, out, k, 1, &oo, err) : g16__gpu_msm_run_p1(m, out, k, 1, &oo, err);
}

/* out3 == out1 + out2 */
static int linear_ok(int g2, const void *r1, const void *r2, const void *r3)
{
    if (g2) {
        g16_p2 s;
        g16__p2_add_var(&s, r1, r2);
        return g16__p2_eq(&s, r3);
    }
    g16_p1 s;
    g16__p1_add_var(&s, r1, r2);
    return g16__p1_eq(&s, r3);
}

static void cpu_check(bench *b, g16__gpu_msm *m, int g2, size_t n, const void *gpu_res)
{
    g16_error err = {0, ""};
    size_t asz = g2 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine);
    void *bases = malloc(n * asz);
    char want[sizeof(g16_p2)];
    if (!bases)
        die("host bases", NULL);
    if (g16__gpu_msm_download_bases(m, bases, 0, n, &err) != G16_OK)
        die("download bases", &err);
    double t0 = now_ms();
    g16_status st = g2 ? g16__p2_msm_var((g16_p2 *)want, bases, b->A, n, NULL, &err)
                       : g16__p1_msm_var((g16_p1 *)want, bases, b->A, n, NULL, &err);
    if (st != G16_OK)
        die("cpu msm", &err);
    if (memcmp(want, gpu_res, g2 ? sizeof(g16_p2) : sizeof(g16_p1)) != 0) {
        fprintf(stderr, "bench_gpu_msm: G%d n = %zu: GPU result differs from the CPU MSM\n", g2 + 1, n);
        exit(1);
    }
    printf("  check: G%d 2^%u Filecoin-like equals the CPU MSM (CPU %.0f ms)\n", g2 + 1, (unsigned)__builtin_ctzll(n),
           now_ms() - t0);
    free(bases);
}

static void one_size(bench *b, int g2, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    g16_error err = {0, ""};
    g16__gpu_msm *m = NULL;
    char r1[sizeof(g16_p2)], r2[sizeof(g16_p2)], r3[sizeof(g16_p2)];
    double t0 = now_ms();
    g16_status st = g2 ? g16__gpu_msm_create_random_p2(&m, b->g, n, 0x5eed0000u + log_n, &err)
                       : g16__gpu_msm_create_random_p1(&m, b->g, n, 0x5eed0000u + log_n, &err);
    if (st != G16_OK)
        die("random bases", &err);
    double gen_ms = now_ms() - t0;
    for (int kind = 0; kind < 2; kind++) {
        int reps = 3;
        double t[5], ph[G16__GPU_MSM_PH_COUNT] = {0};
        uint64_t others = 0;
        g16__gpu_msm_opts o;
        memset(&o, 0, sizeof o);
        fill(b->A, n, kind);
        uint64_t ones = 0;
        for (size_t i = 0; i < n; i++)
            ones += (uint64_t)g16__fr_is_one(&b->A[i]);
        if (run(m, g2, r1, b->A, NULL, &err) != G16_OK) /* warm-up: scratch allocation */
            die("msm", &err);
        for (int r = 0; r < reps; r++) {
            double s = now_ms();
            if (run(m, g2, r1, b->A, NULL, &err) != G16_OK)
                die("msm", &err);
            t[r] = now_ms() - s;
        }
        qsort(t, (size_t)reps, sizeof t[0], cmp_double);
        o.phase_ms = ph;
        o.nothers = &others;
        if (run(m, g2, r1, b->A, &o, &err) != G16_OK)
            die("msm (phases)", &err);
        double phh[G16__GPU_MSM_PH_COUNT] = {0}, th = now_ms();
        memset(&o, 0, sizeof o);
        o.final_device = 1;
        o.phase_ms = phh;
        if (run(m, g2, r2, b->A, &o, &err) != G16_OK)
            die("msm (device final)", &err);
        th = now_ms() - th;
        if (memcmp(r1, r2, g2 ? sizeof(g16_p2) : sizeof(g16_p1)) != 0) {
            fprintf(stderr, "bench_gpu_msm: G%d 2^%u: device final differs from the host's\n", g2 + 1, log_n);
            exit(1);
        }
        /* linearity */
        fill(b->B, n, kind);
        if (run(m, g2, r2, b->B, NULL, &err) != G16_OK)
            die("msm", &err);
        for (size_t i = 0; i < n; i++)
            g16__fr_add(&b->B[i], &b->B[i], &b->A[i]);
        if (run(m, g2, r3, b->B, NULL, &err) != G16_OK)
            die("msm", &err);
        if (!linear_ok(g2, r1, r2, r3)) {
            fprintf(stderr, "bench_gpu_msm: G%d 2^%u %s: MSM(a) + MSM(b) != MSM(a + b)\n", g2 + 1, log_n,
                    kind ? "filecoin" : "random");
            exit(1);
        }
        if (kind == 1 && (log_n == 16 || (log_n == 20 && !g2)))
            cpu_check(b, m, g2, n, r1);
        double med = t[reps / 2], fl = floor_ms(g2, others, ones);
        double mem_fl = (double)n * (32.0 + (g2 ? 192 : 96)) / MEM_BYTES_PER_S * 1e3;
        double sp = sppark(g2, kind, log_n);
        char spbuf[32] = "";
        if (sp > 0)
            snprintf(spbuf, sizeof spbuf, "%.1f (%.2fx)", sp, sp / med);
        bench_emit("| G%d | 2^%u | %s | %u | %.1f | %s | %.1f | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f | %.1f | "
                   "%.2f | %.2f | %.2f (%.1f) |\n",
                   g2 + 1, log_n, kind ? "filecoin" : "random", window ? window : msm_window_for(others), med, spbuf, fl,
                   med / (fl > mem_fl ? fl : mem_fl), ph[0], ph[1], ph[2], ph[3], ph[4], ph[5], ph[6], ph[7],
                   phh[7], th);
    }
    printf("  (bases generated on the device in %.0f ms; linearity checked)\n", gen_ms);
    g16__gpu_msm_destroy(m);
}

int main(int argc, char **argv)
{
    unsigned g1_max = argc > 1 ? (unsigned)atoi(argv[1]) : 26, g2_max = argc > 2 ? (unsigned)atoi(argv[2]) : 25;
    g16_error err = {0, ""};
    bench b;
    memset(&b, 0, sizeof b);
    if (getenv("G16_BENCH_UPLOAD_CHUNKS"))
        upload_chunks = (unsigned)atoi(getenv("G16_BENCH_UPLOAD_CHUNKS"));
    if (getenv("G16_BENCH_WINDOW"))
        window = (unsigned)atoi(getenv("G16_BENCH_WINDOW"));
    if (getenv("G16_BENCH_WPP"))
        wpp = (unsigned)atoi(getenv("G16_BENCH_WPP"));
    if (argc > 3) {
        *bench_md() = fopen(argv[3], "w");
        if (!*bench_md()) {
            perror(argv[3]);
            return 1;
        }
    }
    g16_status st = g16__gpu_open(&b.g, 0, &err);
    if (st == G16_ERR_NO_DEVICE) {
        printf("bench_gpu_msm: no CUDA device: nothing to measure (%s)\n", err.msg);
        return 0;
    }
    if (st != G16_OK)
        die("gpu open", &err);
    g16__gpu_info info;
    g16__gpu_get_info(b.g, &info);
    unsigned max = g1_max > g2_max ? g1_max : g2_max;
    size_t nmax = (size_t)1 << max;
    if (g16__gpu_host_alloc((void **)&b.A, nmax * sizeof(g16_fr), &err) != G16_OK ||
        g16__gpu_host_alloc((void **)&b.B, nmax * sizeof(g16_fr), &err) != G16_OK)
        die("page-locked scalars", &err);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    char chunks[64];
    if (upload_chunks)
        snprintf(chunks, sizeof chunks, "%u chunk(s) at most", upload_chunks);
    else
        snprintf(chunks, sizeof chunks, "automatic chunks");
    const char *t1 = getenv("G16_MSM_TREE_G1"), *t2 = getenv("G16_MSM_TREE_G2"), *tk = getenv("G16_MSM_TREE_K");
    bench_emit("GPU MSM on %s (%d SMs, %.1f GiB), %s; times in ms; scalar upload in %s "
               "(G16_BENCH_UPLOAD_CHUNKS); window %s (G16_BENCH_WINDOW); accumulation G1 %s, G2 %s "
               "(G16_MSM_TREE_G1 / _G2: log2 of the tree's slice; 0: the XYZZ levels), tree batch %s; windows "
               "per pass %u (G16_BENCH_WPP; 0: one pass)\n\n",
               info.name, info.sm_count, (double)info.total_bytes / (1 << 30), date, chunks,
               window ? getenv("G16_BENCH_WINDOW") : "automatic", t1 ? t1 : "default", t2 ? t2 : "default",
               tk ? tk : "default", wpp);
    bench_emit("| group | n | scalars | window | time | sppark (speed-up) | IMAD floor | time / floor | upload | "
               "classify, ones | ones sum | digits | sort | accumulate | reduce | final | final on device (its run) |\n");
    bench_emit("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    /* the largest G1 size last: the others are reported even if a run is cut short */
    for (unsigned k = 16; k <= g1_max && k <= 24; k += 2)
        one_size(&b, 0, k);
    for (unsigned k = 16; k <= g2_max && k <= 24; k += 2)
        one_size(&b, 1, k);
    for (unsigned k = 25; k <= g2_max; k++) /* 2^25: the top of the G2 range */
        one_size(&b, 1, k);
    for (unsigned k = 26; k <= g1_max; k++) /* 2^26, 2^27 (the largest Filecoin circuits' H query) */
        one_size(&b, 0, k);
    g16__gpu_host_free(b.A);
    g16__gpu_host_free(b.B);
    g16__gpu_close(b.g);
    if (*bench_md())
        fclose(*bench_md());
    return 0;
}
