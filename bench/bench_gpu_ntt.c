/* GPU benchmark: Fr / Fp multiplication and inversion throughput and the NTT (forward, inverse, coset forward,
 * Groth16 H step) at 2^min_log .. 2^max_log on device-resident vectors, with correctness checks.
 * Usage: bench_gpu_ntt [max_log (27)] [min_log (16)] [markdown output file]
 *
 * Times are CUDA-event medians over several runs of one operation on one buffer (inputs stay
 * random: each run transforms the previous output). Checks: the multiplication and inversion
 * kernels replay three threads' chains on the CPU (inside g16__gpu_mul_bench); every NTT size runs a forward +
 * inverse round trip on the device and compares all n elements with the input, and, up to 2^22,
 * compares forward output element 1 with a CPU Horner evaluation at ω.
 *
 * Floors: multiplication: 1.67e13 IMAD/s (measured on this card model) over the IMAD count of one
 * multiplication (Fp 588, Fr 224 with the special reduction, 264 generic). NTT: the larger of
 * (n/2)·log2(n) Fr multiplications at the measured Fr rate and one read + one write of the vector
 * at 4.3 TB/s (the device-to-device copy rate measured on this card model); the H step: 6 such
 * transforms (bellman's sequence takes 7: poly/ntt.h) plus its scaling and pointwise
 * multiplications; the column "H / (6 fwd)" compares it with six forward transforms. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "poly/ntt.h"

#define IMAD_PER_S 1.67e13
#define MEM_BYTES_PER_S 4.3e12

static void die(const char *what, const g16_error *err)
{
    fprintf(stderr, "bench_gpu_ntt: %s: %s\n", what, err->msg);
    exit(1);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static uint64_t rng = 0x853c49e6748fea9bULL;
static uint64_t next64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void rand_fr(g16_fr *x)
{
    uint64_t l[4];
    do {
        for (int j = 0; j < 4; j++)
            l[j] = next64();
        l[3] &= 0x7fffffffffffffffULL;
    } while (g16__fr_from_limbs(x, l) != 0);
}

/* ---------------------------------------------------------------- multiplication */

static double fr_rate, fp_rate; /* measured multiplications per second (Fr: special reduction) */

/* The FP64-pipe products (gpu/field_f64.cuh: bench fields 5 Fp, 6 Fr) against this run's integer
 * products; FP64 ops per product (DFMA + DADD, field_f64.cuh's count, 6N²): Fp 384, Fr 150. */
static void bench_mul_f64(g16__gpu *g)
{
    static const char *name[2] = {"Fp (f64 limbs, 8 x 48 bits)", "Fr (f64 limbs, 5 x 52 bits)"};
    static const double fp64_ops[2] = {384, 150};
    bench_emit("\n| field | FP64 ops / mul | G mul/s (median of 5) | ratio to the IMAD product |\n");
    bench_emit("|---|---|---|---|\n");
    for (int q = 0; q < 2; q++) {
        double r[5];
        g16_error err = {0, ""};
        for (int i = 0; i < 5; i++) {
            uint32_t check;
            if (g16__gpu_mul_bench(g, 5 + q, q == 0 ? 1024 : 2048, &r[i], &check, &err) != G16_OK)
                die("mul bench (FP64)", &err);
        }
        double m = median(r, 5), imad_rate = q == 0 ? fp_rate : fr_rate;
        bench_emit("| %s | %.0f | %.2f | %.2f |\n", name[q], fp64_ops[q], m / 1e9, m / imad_rate);
    }
}

static void bench_mul(g16__gpu *g)
{
    static const char *name[3] = {"Fr (special reduction)", "Fp", "Fr (generic reduction)"};
    static const double imad[3] = {224, 588, 264};
    static const int order[3] = {0, 2, 1};
    bench_emit("\n### Field multiplication throughput\n\n");
    bench_emit("| field | IMAD / mul | G mul/s (median of 5) | ceiling G mul/s | ratio to ceiling |\n");
    bench_emit("|---|---|---|---|---|\n");
    for (int q = 0; q < 3; q++) {
        int f = order[q];
        double r[5];
        g16_error err = {0, ""};
        for (int i = 0; i < 5; i++) {
            uint32_t check;
            if (g16__gpu_mul_bench(g, f, f == 1 ? 1024 : 2048, &r[i], &check, &err) != G16_OK)
                die("mul bench", &err);
        }
        double m = median(r, 5), ceil = IMAD_PER_S / imad[f];
        if (f == 0)
            fr_rate = m;
        if (f == 1)
            fp_rate = m;
        bench_emit("| %s | %.0f | %.2f | %.2f | %.2f |\n", name[f], imad[f], m / 1e9, ceil / 1e9, m / ceil);
    }
    bench_mul_f64(g);
}

/* Variable-time inversion (gpu/field_inv.cuh), chains x <- x^(-1) + y on every thread; its cost
 * in products is the product rate above over the inversion rate. */
static void bench_inv(g16__gpu *g)
{
    bench_emit("\n### Field inversion throughput (safegcd, 30 divsteps per batch, variable time)\n\n");
    bench_emit("| field | M inv/s (median of 5) | products per inversion (same time) |\n|---|---|---|\n");
    for (int f = 3; f <= 4; f++) {
        double r[5];
        g16_error err = {0, ""};
        for (int i = 0; i < 5; i++) {
            uint32_t check;
            if (g16__gpu_mul_bench(g, f, 16, &r[i], &check, &err) != G16_OK)
                die("inv bench", &err);
        }
        double m = median(r, 5), mul = f == 3 ? fr_rate : fp_rate;
        bench_emit("| %s | %.1f | %.1f |\n", f == 3 ? "Fr" : "Fp", m / 1e6, mul / m);
    }
}

/* ---------------------------------------------------------------- NTT */

/* Fills device vector dev (n elements) with random values through a pinned staging buffer. */
static void fill_device(g16__gpu *g, g16_fr *dev, size_t n, g16_fr *stage, size_t stage_n)
{
    g16_error err = {0, ""};
    for (size_t i = 0; i < stage_n; i++)
        rand_fr(&stage[i]);
    for (size_t off = 0; off < n; off += stage_n) {
        size_t m = n - off < stage_n ? n - off : stage_n;
        if (g16__gpu_upload(g, dev + off, stage, m * sizeof(g16_fr), &err) != G16_OK)
            die("upload", &err);
        if (g16__gpu_sync(g, &err) != G16_OK)
            die("sync", &err);
        rand_fr(&stage[(off / stage_n) % stage_n]); /* vary the chunks a little */
    }
}

typedef enum { T_FWD, T_INV, T_COSET, T_H } timed_op;

/* Median ms of op with `threads` per pass block, `radix` stages per shared-memory round trip (the
 * H step's fused pass: `fused`, 0 = radix, else fused if the variant allows it), uniform stage
 * order (uni) or plain; the domain is left at those settings. */
static double time_op(g16__gpu *g, g16__gpu_ntt *d, timed_op op, g16_fr *x, g16_fr *b, g16_fr *c, int reps,
                      unsigned threads, unsigned radix, int uni, unsigned fused)
{
    double t[32];
    g16_error err = {0, ""};
    if (reps > 32)
        reps = 32;
    if (g16__gpu_ntt_set_threads(d, threads) != G16_OK || g16__gpu_ntt_set_radix(d, radix) != G16_OK)
        return 0;
    if (g16__gpu_ntt_set_radix_fused(d, fused) != G16_OK)
        g16__gpu_ntt_set_radix_fused(d, 0);
    g16__gpu_ntt_set_uniform(d, uni);
    for (int r = -1; r < reps; r++) { /* r = -1: warm-up */
        g16_status st = g16__gpu_timer_start(g, &err);
        g16_fr *xs[1] = {x};
        if (st == G16_OK) {
            switch (op) {
            case T_FWD: st = g16__gpu_ntt_device(d, G16__GPU_NTT_FORWARD, xs, 1, &err); break;
            case T_INV: st = g16__gpu_ntt_device(d, G16__GPU_NTT_INVERSE, xs, 1, &err); break;
            case T_COSET: st = g16__gpu_ntt_device(d, G16__GPU_NTT_COSET_FORWARD, xs, 1, &err); break;
            default: st = g16__gpu_ntt_groth16_h_device(d, x, b, c, &err); break;
            }
        }
        double ms = 0;
        if (st == G16_OK)
            st = g16__gpu_timer_stop(g, &ms, &err);
        if (st != G16_OK)
            die("ntt", &err);
        if (r >= 0)
            t[r] = ms;
    }
    return median(t, reps);
}

/* Forward then inverse on the device must give the input back; up to 2^22 also forward[1] = X(ω). */
static void check_roundtrip(g16__gpu *g, g16__gpu_ntt *d, g16_fr *x, size_t n, unsigned k)
{
    g16_error err = {0, ""};
    g16_fr *h0 = malloc(n * sizeof *h0), *h1 = malloc(n * sizeof *h1);
    if (!h0 || !h1) {
        fprintf(stderr, "bench_gpu_ntt: host memory for the check at 2^%u\n", k);
        exit(1);
    }
    g16_fr *xs[1] = {x};
    if (g16__gpu_download(g, h0, x, n * sizeof *h0, &err) != G16_OK ||
        g16__gpu_ntt_device(d, G16__GPU_NTT_FORWARD, xs, 1, &err) != G16_OK ||
        g16__gpu_download(g, h1, x, n * sizeof *h1, &err) != G16_OK ||
        g16__gpu_ntt_device(d, G16__GPU_NTT_INVERSE, xs, 1, &err) != G16_OK || g16__gpu_sync(g, &err) != G16_OK)
        die("round trip", &err);
    if (k <= 22 && n > 1) { /* forward[1] = Σ x_j ω^j */
        g16_fr w, acc, gen;
        g16__fr_from_u64(&gen, 7);
        g16__fr_root_of_unity_from(&w, &gen, k);
        g16__fr_set_zero(&acc);
        for (size_t j = n; j-- > 0;) {
            g16__fr_mul(&acc, &acc, &w);
            g16__fr_add(&acc, &acc, &h0[j]);
        }
        if (!g16__fr_eq(&acc, &h1[1])) {
            fprintf(stderr, "bench_gpu_ntt: 2^%u forward[1] differs from the CPU Horner value\n", k);
            exit(1);
        }
    }
    if (g16__gpu_download(g, h1, x, n * sizeof *h1, &err) != G16_OK || g16__gpu_sync(g, &err) != G16_OK)
        die("download", &err);
    if (memcmp(h0, h1, n * sizeof *h0) != 0) {
        fprintf(stderr, "bench_gpu_ntt: 2^%u round trip does not give the input back\n", k);
        exit(1);
    }
    free(h0);
    free(h1);
}

/* Per-launch times of the forward transform and the H step (one run each, after the timed ones). */
static void profile(g16__gpu *g, g16__gpu_ntt *d, g16_fr *x, g16_fr *b, g16_fr *c, unsigned k, int with_h)
{
    double ms[32];
    char what[32][64];
    size_t cnt = 0;
    g16_error err = {0, ""};
    for (int h = 0; h <= with_h; h++) {
        g16__gpu_ntt_kind kind = h ? G16__GPU_NTT_KIND_COUNT : G16__GPU_NTT_FORWARD;
        if (g16__gpu_ntt_profile(d, kind, x, b, c, ms, what, 32, &cnt, &err) != G16_OK)
            die("profile", &err);
        printf("profile 2^%u %s:\n", k, h ? "H step" : "forward");
        for (size_t q = 0; q < cnt; q++)
            printf("  %7.3f ms  %s\n", ms[q], what[q]);
    }
    (void)g;
}

/* The forward variants timed (threads, stages per round trip, uniform stage order). */
#define NVAR 8
static const unsigned var_thr[NVAR] = {256, 128, 128, 128, 256, 256, 128, 512};
static const unsigned var_r[NVAR] = {1, 1, 2, 3, 2, 3, 2, 1};
static const int var_uni[NVAR] = {1, 1, 1, 1, 1, 1, 0, 1};

static void bench_ntt(g16__gpu *g, unsigned min_log, unsigned max_log)
{
    size_t stage_n = (size_t)1 << 20;
    g16_fr *stage = NULL;
    g16_error err = {0, ""};
    if (g16__gpu_host_alloc((void **)&stage, stage_n * sizeof *stage, &err) != G16_OK)
        die("pinned staging buffer", &err);
    bench_emit("\n### NTT on the device (ms, median)\n\n");
    bench_emit("Forward in the pass-kernel variants of ntt.cu (threads per pass block, stages per shared-memory "
               "round trip: one = r2, pairs = r4, triples = r8; u = uniform stage order, p = plain; defaults: "
               "256 r2 u below 2^19, 128 r4 u from 2^19); inverse, coset forward and H with the best forward "
               "variant of that size; H with its fused DIF+DIT pass one stage per round trip (the default) and "
               "with that pass in the variant's own grouping.\n\n");
    bench_emit("| log n |");
    for (int v = 0; v < NVAR; v++)
        bench_emit(" fwd %u r%u %s |", var_thr[v], 1u << var_r[v], var_uni[v] ? "u" : "p");
    bench_emit(" best | inverse | coset fwd | H step | H, fused pass grouped | floor fwd | best fwd / floor | "
               "H / (6 fwd) | check |\n|---|");
    for (int v = 0; v < NVAR + 9; v++)
        bench_emit("---|");
    bench_emit("\n");
    for (unsigned k = min_log; k <= max_log; k++) {
        size_t n = (size_t)1 << k, bytes = n * sizeof(g16_fr);
        g16_fr gen;
        g16__fr_from_u64(&gen, 7);
        g16__gpu_ntt *d = NULL;
        if (g16__gpu_ntt_create(&d, g, k, &gen, NULL, &err) != G16_OK)
            die("domain", &err);
        g16_fr *x = NULL, *b = NULL, *c = NULL;
        g16__gpu_plan plan;
        g16__gpu_plan_init(&plan);
        g16__gpu_plan_add(&plan, "a, b, c", 3 * bytes);
        int with_h = g16__gpu_plan_check(g, &plan, &err) == G16_OK;
        if (g16__gpu_alloc(g, (void **)&x, bytes, "x", &err) != G16_OK)
            die("alloc", &err);
        if (with_h && (g16__gpu_alloc(g, (void **)&b, bytes, "b", &err) != G16_OK ||
                       g16__gpu_alloc(g, (void **)&c, bytes, "c", &err) != G16_OK))
            die("alloc", &err);
        fill_device(g, x, n, stage, stage_n);
        check_roundtrip(g, d, x, n, k);
        int reps = k <= 20 ? 21 : k <= 24 ? 11 : 5;
        double fv[NVAR], fwd = 1e30;
        int best = 0;
        for (int v = 0; v < NVAR; v++) {
            fv[v] = time_op(g, d, T_FWD, x, NULL, NULL, reps, var_thr[v], var_r[v], var_uni[v], 1);
            if (fv[v] < fwd)
                fwd = fv[v], best = v;
        }
        double inv = time_op(g, d, T_INV, x, NULL, NULL, reps, var_thr[best], var_r[best], var_uni[best], 1);
        double cos = time_op(g, d, T_COSET, x, NULL, NULL, reps, var_thr[best], var_r[best], var_uni[best], 1);
        double h = 0, h_same = 0;
        if (with_h) {
            fill_device(g, b, n, stage, stage_n);
            fill_device(g, c, n, stage, stage_n);
            h_same = time_op(g, d, T_H, x, b, c, reps, var_thr[best], var_r[best], var_uni[best], 0);
            h = time_op(g, d, T_H, x, b, c, reps, var_thr[best], var_r[best], var_uni[best], 1);
        }
        double mul_floor = (double)n / 2 * k / fr_rate * 1e3, mem_floor = 2.0 * (double)bytes / MEM_BYTES_PER_S * 1e3;
        double floor = mul_floor > mem_floor ? mul_floor : mem_floor;
        bench_emit("| %u |", k);
        for (int v = 0; v < NVAR; v++)
            bench_emit(" %.3f |", fv[v]);
        bench_emit(" %u r%u %s | %.3f | %.3f | %s%.3f | %.3f | %.3f | %.2f | %.2f | ok |\n", var_thr[best],
                   1u << var_r[best], var_uni[best] ? "u" : "p", inv, cos, with_h ? "" : "(no memory) ", h, h_same,
                   floor, fwd / floor, with_h ? h / (6 * fwd) : 0.0);
        if (k == max_log || k == 24 || k == 20) {
            printf("profiles below: the best variant, %u threads r%u %s\n", var_thr[best], 1u << var_r[best],
                   var_uni[best] ? "uniform" : "plain");
            profile(g, d, x, b, c, k, with_h);
        }
        g16__gpu_free(g, x);
        g16__gpu_free(g, b);
        g16__gpu_free(g, c);
        g16__gpu_ntt_destroy(d);
    }
    g16__gpu_host_free(stage);
}

int main(int argc, char **argv)
{
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 27, min_log = argc > 2 ? (unsigned)atoi(argv[2]) : 16;
    if (argc > 3) {
        *bench_md() = fopen(argv[3], "w");
        if (!*bench_md())
            perror(argv[3]);
    }
    if (max_log > 28)
        max_log = 28;
    g16__gpu *g = NULL;
    g16_error err = {0, ""};
    g16_status st = g16__gpu_open(&g, 0, &err);
    if (st != G16_OK) {
        printf("bench_gpu_ntt: %s (%s)\n", err.msg, g16_strerror(st));
        return st == G16_ERR_NO_DEVICE ? 0 : 1;
    }
    g16__gpu_info info;
    g16__gpu_get_info(g, &info);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    bench_emit("## bench_gpu_ntt %u %u — %s, sm_%d%d, %d SMs, %d MHz, %.1f GiB — %s\n", max_log, min_log, info.name,
               info.cc_major, info.cc_minor, info.sm_count, info.clock_khz / 1000, (double)info.total_bytes / (1 << 30),
               date);
    bench_mul(g);
    bench_inv(g);
    bench_ntt(g, min_log, max_log);
    g16__gpu_close(g);
    if (*bench_md())
        fclose(*bench_md());
    return 0;
}
