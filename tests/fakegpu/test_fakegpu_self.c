/* The fake GPU's own checks (tests/fakegpu/fakegpu.h), so that a test passing against it means
 * something: each misuse it claims to catch is made in a child process, which must abort with
 * the fake's message; the memory model (poison, limits, counts), the held-back side copies and
 * the failure injection behave as documented; its kernels give the CPU's values. */
#include "testutil.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakegpu.h"
#include "curve/g1.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/msm_gpu.h"
#include "msm/msm.h"
#include "poly/ntt.h"

typedef void (*misuse_fn)(g16__gpu *g, g16_fr *d1, g16_fr *d2);

/* Runs fn in a child (stderr to a pipe) and expects an abort whose message contains `want`. */
static void expect_abort(misuse_fn fn, const char *want)
{
    int fd[2];
    char buf[2048] = "";
    assert_int_equal(pipe(fd), 0);
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        g16__gpu *g = NULL;
        void *d1 = NULL, *d2 = NULL;
        dup2(fd[1], 2);
        close(fd[0]);
        if (g16__gpu_open(&g, 0, NULL) != G16_OK || g16__gpu_alloc(g, &d1, 64 * sizeof(g16_fr), "one", NULL) ||
            g16__gpu_alloc(g, &d2, 64 * sizeof(g16_fr), "two", NULL))
            _exit(3);
        fn(g, d1, d2);
        _exit(0); /* not caught */
    }
    close(fd[1]);
    size_t got = 0;
    ssize_t k;
    while (got + 1 < sizeof buf && (k = read(fd[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)k;
    buf[got] = 0;
    close(fd[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT || !strstr(buf, want))
        fail_msg("expected an abort saying '%s'; status %#x, stderr: %s", want, status, buf);
}

static g16_fr host[128];

static void past_end(g16__gpu *g, g16_fr *d1, g16_fr *d2)
{
    (void)d2;
    (void)g16__gpu_upload(g, d1 + 1, host, 64 * sizeof(g16_fr), NULL);
}

static void host_pointer(g16__gpu *g, g16_fr *d1, g16_fr *d2)
{
    (void)d1, (void)d2;
    (void)g16__gpu_download(g, host, host + 64, sizeof(g16_fr), NULL);
}

static void after_free(g16__gpu *g, g16_fr *d1, g16_fr *d2)
{
    (void)d2;
    g16__gpu_free(g, d1);
    (void)g16__gpu_upload(g, d1, host, sizeof(g16_fr), NULL);
}

static void double_free(g16__gpu *g, g16_fr *d1, g16_fr *d2)
{
    (void)d2;
    g16__gpu_free(g, d1);
    g16__gpu_free(g, d1);
}

/* a main-stream read of a range whose held-back side copy was never ordered */
static void read_before_event(g16__gpu *g, g16_fr *d1, g16_fr *d2)
{
    (void)g16__gpu_upload_side_nowait(g, d1, host, 64 * sizeof(g16_fr), NULL);
    (void)g16__gpu_copy(g, d2, d1 + 8, 8 * sizeof(g16_fr), NULL);
}

/* a side copy into a range that main-stream work enqueued before it still uses */
static void side_over_main(g16__gpu *g, g16_fr *d1, g16_fr *d2)
{
    (void)g16__gpu_copy(g, d2, d1, 8 * sizeof(g16_fr), NULL);
    (void)g16__gpu_upload_side_nowait(g, d2 + 4, host, 8 * sizeof(g16_fr), NULL);
}

static void overlapping_copy(g16__gpu *g, g16_fr *d1, g16_fr *d2)
{
    (void)d2;
    (void)g16__gpu_copy(g, d1 + 1, d1, 8 * sizeof(g16_fr), NULL);
}

static void test_misuse_aborts(void **state)
{
    (void)state;
    expect_abort(past_end, "is not inside one live buffer");
    expect_abort(host_pointer, "is not inside one live buffer");
    expect_abort(after_free, "is not inside one live buffer");
    expect_abort(double_free, "not a live device buffer");
    expect_abort(read_before_event, "not yet waited for");
    expect_abort(side_over_main, "which main-stream work enqueued before it");
    expect_abort(overlapping_copy, "overlapping ranges");
    printf("  past the end, host pointers, use after free, double free, unordered side copies both ways, "
           "overlapping copies: each aborts with the fake's message\n");
}

/* Held-back side copies land at the event that orders them (not before), or at a whole sync;
 * ordered, the main stream reads them without complaint. New buffers are poisoned. */
static void test_side_copies_and_poison(void **state)
{
    (void)state;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_event *ev = NULL;
    void *d = NULL;
    g16_fr src[4], back[4];
    for (int i = 0; i < 4; i++)
        tu_rand_fr(&src[i]);
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    assert_int_equal(g16__gpu_event_create(&ev, g, &err), G16_OK);
    assert_int_equal(g16__gpu_alloc(g, &d, sizeof src, "d", &err), G16_OK);
    for (size_t i = 0; i < sizeof src; i++)
        assert_int_equal(((unsigned char *)d)[i], 0xa5);
    assert_int_equal(g16__gpu_upload_side_nowait(g, d, src, 2 * sizeof(g16_fr), &err), G16_OK);
    assert_int_equal(g16__gpu_event_record_side(ev, &err), G16_OK);
    assert_int_equal(g16__gpu_upload_side_nowait(g, (g16_fr *)d + 2, src + 2, 2 * sizeof(g16_fr), &err), G16_OK);
    assert_int_equal(((unsigned char *)d)[0], 0xa5); /* held back */
    assert_int_equal(g16__gpu_event_sync(ev, &err), G16_OK);
    assert_memory_equal(d, src, 2 * sizeof(g16_fr));                     /* the first, ordered */
    assert_int_equal(((unsigned char *)d)[2 * sizeof(g16_fr)], 0xa5); /* the second, not yet */
    assert_int_equal(g16__gpu_sync(g, &err), G16_OK);
    assert_int_equal(g16__gpu_download(g, back, d, sizeof back, &err), G16_OK);
    assert_memory_equal(back, src, sizeof src);
    g16__gpu_free(g, d);
    g16__gpu_event_destroy(ev);
    g16__gpu_close(g);
    assert_int_equal(g16__fake_gpu_live(), 0);
}

/* The card's size and G16_GPU_MEM_LIMIT: refusals state bytes; counts return to zero; the k-th
 * call fails once with the call named. */
static void test_memory_and_failures(void **state)
{
    (void)state;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    void *a = NULL, *b = NULL;
    size_t f0, t0, f1, t1;
    setenv("G16_GPU_MEM_LIMIT", "1M", 1);
    assert_int_equal(g16__gpu_open(&g, 1, &err), G16_OK);
    unsetenv("G16_GPU_MEM_LIMIT");
    assert_int_equal(g16__gpu_mem_info(g, &f0, &t0, &err), G16_OK);
    assert_int_equal(t0, (size_t)1 << 20);
    assert_int_equal(g16__gpu_alloc(g, &a, 700 << 10, "a", &err), G16_OK);
    assert_int_equal(g16__gpu_mem_info(g, &f1, &t1, &err), G16_OK);
    assert_int_equal(f0 - f1, 700 << 10);
    assert_int_equal(g16__fake_gpu_used(1), 700 << 10);
    assert_int_equal(g16__gpu_alloc(g, &b, 400 << 10, "b", &err), G16_ERR_NOMEM);
    assert_null(b);
    assert_non_null(strstr(err.msg, "out of device memory"));
    g16__gpu_free(g, a);
    assert_int_equal(g16__fake_gpu_used(1), 0);
    g16__gpu *g2 = NULL;
    assert_int_equal(g16__gpu_open(&g2, 2, &err), G16_ERR_NO_DEVICE);
    assert_null(g2);
    g16__fake_gpu_fail_at(3);
    assert_int_equal(g16__gpu_sync(g, &err), G16_OK);
    assert_int_equal(g16__gpu_sync(g, &err), G16_OK);
    assert_int_equal(g16__gpu_sync_main(g, &err), G16_ERR_DEVICE);
    assert_non_null(strstr(err.msg, "cudaStreamSynchronize"));
    assert_non_null(strstr(err.msg, "injected failure"));
    assert_int_equal(g16__gpu_sync_main(g, &err), G16_OK);
    assert_int_equal(g16__fake_gpu_calls(), 4);
    g16__fake_gpu_fail_at(0);
    g16__gpu_close(g);
    assert_int_equal(g16__fake_gpu_live(), 0);
}

/* The kernels: the H step's pieces give g16__ntt_groth16_h's H and poison their scratch; the MSM
 * gives the CPU MSM's point, normalized. */
static void test_kernels_match_cpu(void **state)
{
    (void)state;
    enum { LOG = 6, N = 1 << LOG };
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_ntt *d = NULL;
    g16__ntt_domain *cpu = NULL;
    g16_fr *dv = NULL, a[N], b[N], c[N], h[N];
    for (int i = 0; i < N; i++) {
        tu_rand_fr(&a[i]);
        tu_rand_fr(&b[i]);
        tu_rand_fr(&c[i]);
    }
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    assert_int_equal(g16__gpu_ntt_create(&d, g, LOG, &g16__fr_generator, NULL, &err), G16_OK);
    assert_int_equal(g16__ntt_domain_create(&cpu, LOG, &g16__fr_generator, NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_alloc(g, (void **)&dv, 3 * N * sizeof(g16_fr), "abc", &err), G16_OK);
    assert_int_equal(g16__gpu_upload(g, dv, a, sizeof a, &err), G16_OK);
    assert_int_equal(g16__gpu_upload(g, dv + N, b, sizeof b, &err), G16_OK);
    assert_int_equal(g16__gpu_upload(g, dv + 2 * N, c, sizeof c, &err), G16_OK);
    assert_int_equal(g16__gpu_ntt_h_in(d, dv, &err), G16_OK);
    assert_int_equal(g16__gpu_ntt_h_mul(d, dv, dv + N, &err), G16_OK);
    assert_int_equal(((unsigned char *)(dv + N))[5], 0xa5); /* b: scratch */
    assert_int_equal(g16__gpu_ntt_h_c(d, dv, dv + 2 * N, &err), G16_OK);
    assert_int_equal(g16__gpu_download(g, h, dv, sizeof h, &err), G16_OK);
    g16__ntt_groth16_h(cpu, a, b, c);
    assert_memory_equal(h, a, sizeof h);

    g16_p1_affine bases[N];
    g16__gpu_msm_random_table(bases, 0, N, tu_rand64());
    g16__gpu_msm *m = NULL;
    g16_p1 got, want;
    g16_p1_affine wa;
    uint64_t others = 0;
    g16__gpu_msm_opts o = {.nothers = &others};
    g16__fr_from_u64(&b[0], 0);
    g16__fr_from_u64(&b[1], 1);
    assert_int_equal(g16__gpu_msm_create_p1(&m, g, bases, N, &err), G16_OK);
    assert_int_equal(g16__gpu_msm_run_p1(m, &got, b, 1, &o, &err), G16_OK);
    assert_int_equal(g16__p1_msm_var(&want, bases, b, N, NULL, &err), G16_OK);
    g16__p1_to_affine(&wa, &want);
    g16__p1_from_affine(&want, &wa);
    assert_memory_equal(&got, &want, sizeof got);
    assert_int_equal(others, N - 2);
    g16__gpu_msm_destroy(m);
    g16__ntt_domain_destroy(cpu);
    g16__gpu_ntt_destroy(d);
    g16__gpu_free(g, dv);
    g16__gpu_close(g);
    assert_int_equal(g16__fake_gpu_live(), 0);
}

int main(void)
{
    tu_seed("test_fakegpu_self");
    setenv("G16_FAKE_GPUS", "2", 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_misuse_aborts),
        cmocka_unit_test(test_side_copies_and_poison),
        cmocka_unit_test(test_memory_and_failures),
        cmocka_unit_test(test_kernels_match_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
