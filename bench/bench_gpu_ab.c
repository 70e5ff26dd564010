/* GPU benchmark: bucket accumulation in affine coordinates with one batch inversion per K
 * additions (Montgomery's trick, the variable-time GPU inversion) against the XYZZ mixed addition
 * the MSM uses now, on the same random bases and access pattern (msm_gpu.h,
 * g16__gpu_msm_ab_bench). The question it answers: how large must K be, and how fast the
 * inversion, for batch-affine buckets to beat XYZZ on this card?
 * Usage: bench_gpu_ab [log2 bases (22)] [additions per thread (2048)] [markdown output file]
 *
 * Every K runs twice (the first run warms up); each kernel is one full wave of threads. Checks: the
 * K affine accumulators and the XYZZ accumulator of three threads (first, middle, last) replayed
 * on the CPU from the downloaded bases, point for point. "products / addition" is the time of one
 * addition in Fp products at the rate bench_gpu_ntt measures (g16__gpu_mul_bench, Fp chains). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "curve/g1.h"
#include "gpu/gpu.h"
#include "gpu/msm_gpu.h"

static void die(const char *what, const g16_error *err)
{
    fprintf(stderr, "bench_gpu_ab: %s: %s\n", what, err->msg);
    exit(1);
}

/* Replays the three checked threads on the CPU; exits on a mismatch. */
static void check(const g16__gpu_ab_bench *b, const g16_p1_affine *bases)
{
    for (int q = 0; q < 3; q++) {
        for (uint32_t j = 0; j < b->K; j++) {
            g16_p1 acc;
            g16_p1_affine want;
            g16__p1_from_affine(&acc, &bases[g16__gpu_ab_index(b->check_t_aff[q], j, 0xffffffffu, b->mask)]);
            for (uint32_t s = 0; s < b->steps; s++)
                g16__p1_add_affine_var(&acc, &acc, &bases[g16__gpu_ab_index(b->check_t_aff[q], j, s, b->mask)]);
            g16__p1_to_affine(&want, &acc);
            if (!g16__p1_affine_eq(&want, &b->aff[q][j])) {
                fprintf(stderr, "bench_gpu_ab: K = %u: affine accumulator %u of thread %llu differs from the CPU\n",
                        b->K, j, (unsigned long long)b->check_t_aff[q]);
                exit(1);
            }
        }
        g16_p1 acc, got;
        g16__p1_set_infinity(&acc);
        for (uint32_t s = 0; s < b->steps; s++)
            for (uint32_t j = 0; j < b->K; j++)
                g16__p1_add_affine_var(&acc, &acc, &bases[g16__gpu_ab_index(b->check_t_xyzz[q], j, s, b->mask)]);
        g16__gpu_msm_xyzz_to_p1(&got, b->xyzz[q]);
        if (!g16__p1_eq(&acc, &got)) {
            fprintf(stderr, "bench_gpu_ab: K = %u: XYZZ accumulator of thread %llu differs from the CPU\n", b->K,
                    (unsigned long long)b->check_t_xyzz[q]);
            exit(1);
        }
    }
}

int main(int argc, char **argv)
{
    unsigned log_n = argc > 1 ? (unsigned)atoi(argv[1]) : 22, per = argc > 2 ? (unsigned)atoi(argv[2]) : 2048;
    static const uint32_t Ks[] = {4, 8, 16, 32, 64};
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_msm *m = NULL;
    g16_p1_affine *bases = NULL;
    double mul_per_s = 0;
    uint32_t chk;
    if (log_n < 1 || log_n > 30 || per < 64) {
        fprintf(stderr, "usage: bench_gpu_ab [log2 bases 1..30] [additions per thread >= 64] [out.md]\n");
        return 2;
    }
    if (argc > 3 && !(*bench_md() = fopen(argv[3], "w"))) {
        perror(argv[3]);
        return 1;
    }
    g16_status st = g16__gpu_open(&g, 0, &err);
    if (st == G16_ERR_NO_DEVICE) {
        printf("bench_gpu_ab: no CUDA device: nothing to measure (%s)\n", err.msg);
        return 0;
    }
    if (st != G16_OK)
        die("gpu open", &err);
    size_t n = (size_t)1 << log_n;
    if (g16__gpu_msm_create_random_p1(&m, g, n, 0xab0000u + log_n, &err) != G16_OK)
        die("random bases", &err);
    bases = malloc(n * sizeof *bases);
    if (!bases) {
        fprintf(stderr, "bench_gpu_ab: out of host memory\n");
        return 1;
    }
    if (g16__gpu_msm_download_bases(m, bases, 0, n, &err) != G16_OK)
        die("download bases", &err);
    if (g16__gpu_mul_bench(g, 1, 1024, &mul_per_s, &chk, &err) != G16_OK)
        die("fp mul rate", &err);
    g16__gpu_info info;
    g16__gpu_get_info(g, &info);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    bench_emit("## bench_gpu_ab %u %u — %s, %d SMs — %s\n\n", log_n, per, info.name, info.sm_count, date);
    bench_emit("Fp products: %.2f G/s. G1, 2^%u random bases, %u additions per thread.\n\n", mul_per_s / 1e9,
                     log_n, per);
    bench_emit("| K | affine threads | affine G add/s | affine products / addition | XYZZ threads | XYZZ G add/s | "
               "XYZZ products / addition | affine / XYZZ time |\n|---|---|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < sizeof Ks / sizeof Ks[0]; i++) {
        static g16__gpu_ab_bench b;
        memset(&b, 0, sizeof b);
        b.K = Ks[i];
        b.steps = per / Ks[i];
        for (int rep = 0; rep < 2; rep++)
            if (g16__gpu_msm_ab_bench(m, &b, &err) != G16_OK)
                die("ab bench", &err);
        check(&b, bases);
        bench_emit("| %u | %llu | %.3f | %.2f | %llu | %.3f | %.2f | %.2f |\n", b.K, (unsigned long long)b.threads_aff,
                   b.aff_per_s / 1e9, mul_per_s / b.aff_per_s, (unsigned long long)b.threads_xyzz, b.xyzz_per_s / 1e9,
                   mul_per_s / b.xyzz_per_s, b.xyzz_per_s / b.aff_per_s);
        fflush(stdout);
    }
    bench_emit("\nchecks: every K's affine and XYZZ accumulators of three threads equal the CPU's\n");
    free(bases);
    g16__gpu_msm_destroy(m);
    g16__gpu_close(g);
    if (*bench_md())
        fclose(*bench_md());
    return 0;
}
