/* NTT benchmark: forward, inverse and the Groth16 H step at 2^12 .. 2^max_log, ms per operation.
 * Usage: bench_ntt [max_log (default 22)] [threads (default: all, G16_THREADS)]
 * Prints a markdown table. Wall-clock ms per operation; "fwd CPU" is the CPU time of all threads
 * for one forward transform; "mul floor" is (n/2)·log2(n) Fr multiplications at the measured
 * fr_mul cost (CPU time, best of 7); "CPU/floor" is their ratio: the cost of everything that is
 * not a multiplication (add/sub, memory, permutation, threads), measured in CPU time so that a
 * shared machine disturbs it less than the wall-clock columns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/fr.h"
#include "poly/ntt.h"
#include "util/threads.h"

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double now_s(void) { return clock_s(CLOCK_MONOTONIC); }
static double cpu_s(void) { return clock_s(CLOCK_PROCESS_CPUTIME_ID); }

/* Throughput of g16__fr_mul on 8 independent chains, ns per multiplication: the best of 7 runs
 * (the machine is shared, so the minimum is the least disturbed). */
static double fr_mul_ns(void)
{
    g16_fr x[8], y = g16__fr_generator;
    for (int i = 0; i < 8; i++)
        g16__fr_from_u64(&x[i], (uint64_t)i + 2);
    long reps = 1 << 16;
    double best = 1e9;
    for (int run = 0; run < 7; run++) {
        double t0 = cpu_s();
        for (long r = 0; r < reps; r++)
            for (int i = 0; i < 8; i++)
                g16__fr_mul(&x[i], &x[i], &y);
        double t = (cpu_s() - t0) / (double)(reps * 8) * 1e9;
        if (t < best)
            best = t;
    }
    volatile uint64_t sink = x[0].l[0] ^ x[7].l[3];
    (void)sink;
    return best;
}

static void fill(g16_fr *x, size_t n, uint64_t seed)
{
    for (size_t i = 0; i < n; i++)
        g16__fr_from_u64(&x[i], seed + i * 0x9e3779b97f4a7c15ULL);
}

typedef enum { OP_FWD, OP_INV, OP_H } op_t;

/* Wall-clock milliseconds per op (and CPU ms of all threads in *cpu_ms when non-NULL): repeats
 * until 0.3 s have passed (at least once). */
static double time_op(const g16__ntt_domain *d, op_t op, g16_fr *a, g16_fr *b, g16_fr *c, double *cpu_ms)
{
    int reps = 0;
    double total = 0, cpu = 0;
    do {
        fill(a, d->n, 1);
        if (op == OP_H) {
            fill(b, d->n, 2);
            fill(c, d->n, 3);
        }
        double t0 = now_s(), c0 = cpu_s();
        if (op == OP_FWD)
            g16__ntt_forward(d, a);
        else if (op == OP_INV)
            g16__ntt_inverse(d, a);
        else
            g16__ntt_groth16_h(d, a, b, c);
        total += now_s() - t0;
        cpu += cpu_s() - c0;
        reps++;
    } while (total < 0.3);
    if (cpu_ms)
        *cpu_ms = cpu / reps * 1e3;
    return total / reps * 1e3;
}

int main(int argc, char **argv)
{
    int max_log = argc > 1 ? atoi(argv[1]) : 22;
    if (max_log < 12 || max_log > G16__NTT_MAX_LOG) {
        fprintf(stderr, "usage: %s [max_log in 12..%d] [threads]\n", argv[0], G16__NTT_MAX_LOG);
        return 2;
    }
    if (argc > 2)
        g16__threads_set_limit(atoi(argv[2]));
    int threads = g16__nthreads();
    double mul = fr_mul_ns();
    printf("threads: %d, fr_mul: %.1f ns\n\n", threads, mul);
    printf("| log n | forward ms | inverse ms | H step ms | fwd CPU ms | mul floor ms | CPU/floor |\n");
    printf("|---|---|---|---|---|---|---|\n");
    size_t nmax = (size_t)1 << max_log;
    g16_fr *a = malloc(nmax * sizeof *a), *b = malloc(nmax * sizeof *b), *c = malloc(nmax * sizeof *c);
    if (!a || !b || !c) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int k = 12; k <= max_log; k++) {
        g16__ntt_domain *d = NULL;
        g16_error err;
        if (g16__ntt_domain_create(&d, (unsigned)k, &g16__fr_generator, NULL, &err) != G16_OK) {
            fprintf(stderr, "domain 2^%d: %s\n", k, err.msg);
            return 1;
        }
        double fcpu;
        double f = time_op(d, OP_FWD, a, b, c, &fcpu), i = time_op(d, OP_INV, a, b, c, NULL);
        double h = time_op(d, OP_H, a, b, c, NULL);
        double floor_ms = (double)d->n / 2 * k * mul * 1e-6;
        printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", k, f, i, h, fcpu, floor_ms, fcpu / floor_ms);
        fflush(stdout);
        g16__ntt_domain_destroy(d);
    }
    free(a);
    free(b);
    free(c);
    return 0;
}
