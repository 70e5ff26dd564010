/*
 * The prover's peak memory (issue 3's promise: no more than the parameter file plus 256 bytes per
 * constraint). Each measurement is a fresh process (peak RSS only grows): one child sets up the
 * 'bits' demo circuit (mostly 0/1 witness values, as Filecoin's) and saves its parameters, another
 * loads them and proves one circuit with self-verification and reports getrusage's peak RSS.
 *
 * Checked at 2^15 and 2^17 constraints (domain just filled, as bench_prove), on the default MSM
 * path and on the scalar one (G16_MSM_FP8=0; the G1 lane path is only taken with AVX-512 IFMA):
 *   - per constraint: (excess(2^17) − excess(2^15)) / (m17 − m15) <= 256, where excess = peak RSS −
 *     parameter file (measured ~185 B on the session-5 dev VM);
 *   - in all: excess(m) <= 256·m + FIXED_ALLOWANCE (the process's fixed share: binary, libraries,
 *     thread stacks, the MSM tasks' buckets: ~10 MB measured).
 * Skipped under AddressSanitizer (its shadow memory and quarantine are not the prover's).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define PER_CONSTRAINT 256.0
#define FIXED_ALLOWANCE (12.0 * 1024 * 1024)

static int build(uint64_t m, uint64_t seed, g16_r1cs **r, g16_fr **w)
{
    g16_cs *cs;
    g16_error err = {0};
    if (g16_demo_circuit(&cs, G16_DEMO_BITS, m, seed, &err) || g16_cs_finalize(cs, r, &err)) {
        fprintf(stderr, "circuit: %s\n", err.msg);
        return -1;
    }
    if (w) {
        size_t n = g16_cs_num_inputs(cs) + g16_cs_num_aux(cs);
        *w = malloc(n * sizeof **w);
        if (!*w || g16_cs_witness(cs, *w, n, &err)) {
            fprintf(stderr, "witness: %s\n", err.msg);
            return -1;
        }
    }
    g16_cs_destroy(cs);
    return 0;
}

/* Child: set up and save (prove == 0) or load and prove (prove == 1; writes the peak in KiB to fd). */
static int child(uint64_t m, const char *path, int prove, int fd)
{
    g16_r1cs *r;
    g16_fr *w = NULL;
    g16_params *p;
    g16_error err = {0};
    if (!prove) {
        g16_setup_opts so = {1, 42};
        if (build(m, 1, &r, NULL) || g16_setup(&p, r, &so, &err) || g16_params_save(p, path, &err)) {
            fprintf(stderr, "setup: %s\n", err.msg);
            return 1;
        }
        return 0;
    }
    g16_proof proof;
    if (build(m, 7, &r, &w) || g16_params_load(&p, path, G16_PARAMS_UNCHECKED, &err)) {
        fprintf(stderr, "load: %s\n", err.msg);
        return 1;
    }
    const g16_fr *ws[1] = {w};
    if (g16_prove(&proof, p, r, ws, 1, NULL, &err)) {
        fprintf(stderr, "prove: %s\n", err.msg);
        return 1;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    long kib = ru.ru_maxrss;
    return write(fd, &kib, sizeof kib) == (ssize_t)sizeof kib ? 0 : 1;
}

/* Runs child() in a fresh process; returns the peak RSS in bytes of a proving child (0 for setup). */
static double in_child(uint64_t m, const char *path, int prove)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        _exit(child(m, path, prove, fds[1]));
    }
    close(fds[1]);
    long kib = 0;
    ssize_t got = prove ? read(fds[0], &kib, sizeof kib) : 0;
    close(fds[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    if (prove)
        assert_int_equal(got, (ssize_t)sizeof kib);
    return (double)kib * 1024.0;
}

/* The two circuits' parameter files, set up once for both tests. */
static const uint64_t sizes[2] = {(1u << 15) - 64, (1u << 17) - 64};
static char paths[2][64];
static double file_bytes[2];

static int setup_files(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++) {
        snprintf(paths[i], sizeof paths[i], "/tmp/g16_test_memory_%d_%d.params", (int)getpid(), i);
        in_child(sizes[i], paths[i], 0);
        struct stat st;
        if (stat(paths[i], &st))
            return -1;
        file_bytes[i] = (double)st.st_size;
    }
    return 0;
}

static int remove_files(void **state)
{
    (void)state;
    for (int i = 0; i < 2; i++)
        unlink(paths[i]);
    return 0;
}

/* Peak RSS minus the parameter file, for circuit i. */
static double excess(int i)
{
    double peak = in_child(sizes[i], paths[i], 1), e = peak - file_bytes[i];
    printf("  m = %llu: peak %.1f MiB, parameter file %.1f MiB, excess %.0f B/constraint\n",
           (unsigned long long)sizes[i], peak / 1048576.0, file_bytes[i] / 1048576.0, e / (double)sizes[i]);
    return e;
}

static void check_path(const char *fp8)
{
    if (fp8)
        setenv("G16_MSM_FP8", fp8, 1);
    printf("G16_MSM_FP8=%s\n", fp8 ? fp8 : "(unset)");
    double e0 = excess(0), e1 = excess(1);
    unsetenv("G16_MSM_FP8");
    double slope = (e1 - e0) / (double)(sizes[1] - sizes[0]);
    printf("  per constraint between them: %.0f B (at most %.0f)\n", slope, PER_CONSTRAINT);
    assert_true(slope <= PER_CONSTRAINT);
    assert_true(e0 <= PER_CONSTRAINT * (double)sizes[0] + FIXED_ALLOWANCE);
    assert_true(e1 <= PER_CONSTRAINT * (double)sizes[1] + FIXED_ALLOWANCE);
}

static void test_peak_default_path(void **state)
{
    (void)state;
    check_path(NULL);
}

static void test_peak_scalar_path(void **state)
{
    (void)state;
    check_path("0");
}

int main(void)
{
    tu_seed("test_memory");
    if (UNDER_ASAN) {
        printf("test_memory: skipped under AddressSanitizer (its shadow memory is not the prover's)\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_default_path),
        cmocka_unit_test(test_peak_scalar_path),
    };
    return cmocka_run_group_tests(tests, setup_files, remove_files);
}
