/* The worker pool: coverage (every index once), chunk sizes, nesting, concurrent callers,
 * per-thread limits, fork. Runs with G16_THREADS=4 unless the environment sets it, so that the
 * pool has real workers even on a small machine. */
#include "testutil.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/threads.h"

typedef struct {
    size_t n, grain;
    atomic_uint *hits;        /* per index: how many times fn saw it */
    atomic_ullong sum;        /* sum of indices */
    atomic_uint calls;        /* chunks */
    atomic_uint short_chunks; /* chunks below min(grain, n) */
    atomic_uint empty_chunks;
    atomic_uint off_thread;   /* chunks that ran on a thread other than the caller */
    pthread_t caller;
    unsigned sleep_us;
} cover_ctx;

static void cover_fn(void *vctx, size_t begin, size_t end)
{
    cover_ctx *c = vctx;
    size_t min = c->grain < c->n ? c->grain : c->n;
    atomic_fetch_add(&c->calls, 1);
    if (end <= begin)
        atomic_fetch_add(&c->empty_chunks, 1);
    if (end - begin < min)
        atomic_fetch_add(&c->short_chunks, 1);
    if (!pthread_equal(pthread_self(), c->caller))
        atomic_fetch_add(&c->off_thread, 1);
    unsigned long long s = 0;
    for (size_t i = begin; i < end && i < c->n; i++) {
        atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
        s += i;
    }
    atomic_fetch_add(&c->sum, s);
    if (c->sleep_us)
        usleep(c->sleep_us);
}

/* Runs one parallel_for over [0, n) and checks every index was seen once; returns the chunk count. */
static unsigned check_cover(size_t n, size_t grain, unsigned sleep_us, unsigned *off_thread)
{
    cover_ctx c;
    memset(&c, 0, sizeof c);
    c.n = n;
    c.grain = grain;
    c.caller = pthread_self();
    c.sleep_us = sleep_us;
    c.hits = calloc(n ? n : 1, sizeof *c.hits);
    assert_non_null(c.hits);
    g16__parallel_for(n, grain, cover_fn, &c);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(atomic_load(&c.hits[i]), 1);
    unsigned long long want = n ? (unsigned long long)n * (n - 1) / 2 : 0;
    assert_true(atomic_load(&c.sum) == want);
    assert_int_equal(atomic_load(&c.short_chunks), 0);
    assert_int_equal(atomic_load(&c.empty_chunks), 0);
    if (n == 0)
        assert_int_equal(atomic_load(&c.calls), 0);
    if (n > 0 && n <= (grain ? grain : 1))
        assert_int_equal(atomic_load(&c.calls), 1); /* inline, one call */
    if (off_thread)
        *off_thread = atomic_load(&c.off_thread);
    free(c.hits);
    return atomic_load(&c.calls);
}

static void test_sizes(void **state)
{
    (void)state;
    assert_true(g16__nthreads() >= 1);
    /* fixed edge cases: empty, one, below grain, equal to grain, not a multiple of grain, grain 0 */
    check_cover(0, 16, 0, NULL);
    check_cover(0, 0, 0, NULL);
    check_cover(1, 16, 0, NULL);
    check_cover(1, 0, 0, NULL);
    check_cover(15, 16, 0, NULL);
    check_cover(16, 16, 0, NULL);
    check_cover(17, 16, 0, NULL);
    check_cover(1000, 7, 0, NULL);
    check_cover(100000, 1, 0, NULL);
    check_cover(12345, 0, 0, NULL);
    for (int it = 0; it < tu_iters(200); it++) {
        size_t n = tu_rand64() % 20000;
        size_t grain = tu_rand64() % 3000;
        check_cover(n, grain, 0, NULL);
    }
}

/* With real workers and slow chunks, some chunk must run off the calling thread (retries absorb a
 * scheduler that keeps the workers asleep for a while). */
static void test_uses_workers(void **state)
{
    (void)state;
    if (g16__nthreads() < 2) {
        skip();
        return;
    }
    unsigned off = 0;
    for (int attempt = 0; attempt < 20 && off == 0; attempt++) {
        unsigned chunks = check_cover(64, 1, 2000, &off);
        assert_true(chunks >= 2);
    }
    assert_true(off > 0);
}

static void test_limit(void **state)
{
    (void)state;
    int before = g16__nthreads();
    assert_int_equal(g16__threads_set_limit(1), 0);
    assert_int_equal(g16__nthreads(), 1);
    unsigned off = 0;
    assert_int_equal(check_cover(5000, 1, 0, &off), 1); /* inline: one call, on this thread */
    assert_int_equal(off, 0);
    assert_int_equal(g16__threads_set_limit(2), 1);
    assert_int_equal(g16__nthreads(), before < 2 ? before : 2);
    check_cover(5000, 1, 0, NULL);
    assert_int_equal(g16__threads_set_limit(-5), 2);
    assert_int_equal(g16__threads_set_limit(0), 0);
    assert_int_equal(g16__nthreads(), before);
}

typedef struct {
    size_t outer;
    atomic_ullong total;
    atomic_uint nested_off_thread; /* inner chunks that ran on another thread than their outer chunk */
} nest_ctx;

typedef struct {
    nest_ctx *outer;
    pthread_t thread;
    atomic_ullong sum;
} inner_ctx;

static void inner_fn(void *vctx, size_t begin, size_t end)
{
    inner_ctx *c = vctx;
    if (!pthread_equal(pthread_self(), c->thread))
        atomic_fetch_add(&c->outer->nested_off_thread, 1);
    unsigned long long s = 0;
    for (size_t i = begin; i < end; i++)
        s += i + 1;
    atomic_fetch_add(&c->sum, s);
}

static void outer_fn(void *vctx, size_t begin, size_t end)
{
    nest_ctx *c = vctx;
    for (size_t i = begin; i < end; i++) {
        inner_ctx in = {c, pthread_self(), 0};
        size_t m = 1000 + i;
        g16__parallel_for(m, 10, inner_fn, &in);
        assert_true(atomic_load(&in.sum) == (unsigned long long)m * (m + 1) / 2);
        atomic_fetch_add(&c->total, atomic_load(&in.sum));
    }
}

static void test_nested(void **state)
{
    (void)state;
    nest_ctx c = {64, 0, 0};
    g16__parallel_for(c.outer, 1, outer_fn, &c);
    unsigned long long want = 0;
    for (size_t i = 0; i < c.outer; i++)
        want += (unsigned long long)(1000 + i) * (1001 + i) / 2;
    assert_true(atomic_load(&c.total) == want);
    assert_int_equal(atomic_load(&c.nested_off_thread), 0);
}

typedef struct {
    uint64_t seed;
    int failures;
} conc_arg;

static void sum_fn(void *vctx, size_t begin, size_t end)
{
    atomic_ullong *acc = vctx;
    unsigned long long s = 0;
    for (size_t i = begin; i < end; i++)
        s += i * 3 + 1;
    atomic_fetch_add(acc, s);
}

static void *conc_main(void *varg)
{
    conc_arg *a = varg;
    uint64_t x = a->seed;
    for (int it = 0; it < 300; it++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        size_t n = (size_t)(x >> 40) % 50000, grain = (size_t)(x >> 20) % 500;
        atomic_ullong acc = 0;
        g16__parallel_for(n, grain, sum_fn, &acc);
        unsigned long long want = n ? (unsigned long long)n * (n - 1) / 2 * 3 + n : 0;
        if (atomic_load(&acc) != want)
            a->failures++;
    }
    return NULL;
}

static void test_concurrent_callers(void **state)
{
    (void)state;
    enum { NT = 4 };
    pthread_t t[NT];
    conc_arg args[NT];
    for (int i = 0; i < NT; i++) {
        args[i].seed = tu_rand64();
        args[i].failures = 0;
        assert_int_equal(pthread_create(&t[i], NULL, conc_main, &args[i]), 0);
    }
    conc_arg mine = {tu_rand64(), 0};
    conc_main(&mine); /* the main thread competes too */
    for (int i = 0; i < NT; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(args[i].failures, 0);
    }
    assert_int_equal(mine.failures, 0);
}

/* A forked child has no workers: its calls must still complete (inline). */
static void test_fork(void **state)
{
    (void)state;
    check_cover(10000, 10, 0, NULL); /* the pool is running in the parent */
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        atomic_ullong acc = 0;
        g16__parallel_for(100000, 10, sum_fn, &acc);
        unsigned long long want = 100000ULL * 99999 / 2 * 3 + 100000;
        _exit(atomic_load(&acc) == want && g16__nthreads() == 1 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
    setenv("G16_THREADS", "4", 0); /* keep an explicit setting from the environment */
    tu_seed("test_threads");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sizes),       cmocka_unit_test(test_uses_workers),
        cmocka_unit_test(test_limit),       cmocka_unit_test(test_nested),
        cmocka_unit_test(test_concurrent_callers), cmocka_unit_test(test_fork),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
