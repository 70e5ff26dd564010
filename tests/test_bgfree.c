/* Background freeing and large-buffer allocation: every buffer freed exactly once, on the
 * background thread unless the queue is full; counters; spans; the caller's cost of handing
 * over a 1 GiB mapping versus unmapping it itself (printed, not asserted). */
#define _GNU_SOURCE
#include "testutil.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include "util/alloc.h"
#include "util/bgfree.h"
#include "util/trace.h"

static int64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Buffers carry their id in the first word; the free function counts per id and per thread. */
#define MAX_BUFS 8192
static unsigned freed_times[MAX_BUFS];
static pthread_t caller;
static uint64_t on_caller, on_other;
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_closed, gate_entered;

static void count_free(void *p, size_t bytes)
{
    (void)bytes;
    size_t id = *(size_t *)p;
    __atomic_fetch_add(&freed_times[id], 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(pthread_equal(pthread_self(), caller) ? &on_caller : &on_other, 1, __ATOMIC_RELAXED);
    free(p);
}

/* Like count_free, but buffer 0 blocks until the test opens the gate. */
static void gated_free(void *p, size_t bytes)
{
    if (*(size_t *)p == 0) {
        pthread_mutex_lock(&gate_mu);
        gate_entered = 1;
        pthread_cond_broadcast(&gate_cv);
        while (gate_closed)
            pthread_cond_wait(&gate_cv, &gate_mu);
        pthread_mutex_unlock(&gate_mu);
    }
    count_free(p, bytes);
}

static void *new_buf(size_t id, size_t bytes)
{
    size_t *p = malloc(bytes < sizeof id ? sizeof id : bytes);
    assert_non_null(p);
    *p = id;
    return p;
}

static void reset_counts(void)
{
    memset(freed_times, 0, sizeof freed_times);
    on_caller = on_other = 0;
    caller = pthread_self();
}

static void test_many(void **state)
{
    (void)state;
    reset_counts();
    size_t n = (size_t)tu_iters(3000);
    if (n > MAX_BUFS)
        n = MAX_BUFS;
    g16__bgfree_stats s0, s1;
    g16__bgfree_get_stats(&s0);
    uint64_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        size_t b = 8 + tu_rand64() % 4096;
        bytes += b;
        g16__free_async(new_buf(i, b), b, "many", count_free);
    }
    g16__free_async_wait();
    g16__bgfree_get_stats(&s1);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(freed_times[i], 1);
    uint64_t queued = s1.queued_count - s0.queued_count, inl = s1.inline_count - s0.inline_count;
    fprintf(stderr, "%zu buffers: %llu queued, %llu inline (queue full)\n", n, (unsigned long long)queued,
            (unsigned long long)inl);
    assert_int_equal(queued + inl, n);
    assert_int_equal(s1.queued_bytes - s0.queued_bytes + s1.inline_bytes - s0.inline_bytes, bytes);
    assert_int_equal(s1.freed_count - s0.freed_count, queued);
    assert_int_equal(s1.pending_bytes, 0);
    assert_int_equal(on_other, queued); /* the queued ones were freed on another thread */
    assert_int_equal(on_caller, inl);
    assert_true(queued > 0);
    assert_true(s1.peak_pending_bytes > 0);
}

static void test_overflow_inline(void **state)
{
    (void)state;
    reset_counts();
    size_t extra = 50, n = G16__BGFREE_QUEUE_CAP + 1 + extra;
    g16__bgfree_stats s0, s1;
    g16__bgfree_get_stats(&s0);
    gate_closed = 1;
    gate_entered = 0;
    g16__free_async(new_buf(0, 8), 8, "gate", gated_free);
    pthread_mutex_lock(&gate_mu); /* buffer 0 is now out of the queue, blocking the thread */
    while (!gate_entered)
        pthread_cond_wait(&gate_cv, &gate_mu);
    pthread_mutex_unlock(&gate_mu);
    for (size_t i = 1; i < n; i++)
        g16__free_async(new_buf(i, 8), 8, "gate", gated_free);
    g16__bgfree_get_stats(&s1);
    assert_int_equal(s1.inline_count - s0.inline_count, extra);
    assert_int_equal(on_caller, extra); /* freed before g16__free_async returned */
    assert_int_equal(s1.pending_bytes - s0.pending_bytes, 8 * (G16__BGFREE_QUEUE_CAP + 1));
    pthread_mutex_lock(&gate_mu);
    gate_closed = 0;
    pthread_cond_broadcast(&gate_cv);
    pthread_mutex_unlock(&gate_mu);
    g16__free_async_wait();
    for (size_t i = 0; i < n; i++)
        assert_int_equal(freed_times[i], 1);
    assert_int_equal(on_other, G16__BGFREE_QUEUE_CAP + 1);
}

static void test_spans(void **state)
{
    (void)state;
    g16__trace_enable(G16__TRACE_RECORD);
    g16__trace_reset();
    g16__span outer = g16__span_begin("caller");
    uint64_t bytes = 0;
    for (int i = 0; i < 10; i++) {
        size_t b = 100 + (size_t)i;
        bytes += b;
        g16__free_async(malloc(b), b, "traced", NULL); /* NULL free_fn: free() */
    }
    g16__free_async_wait();
    g16__span_end(outer);
    g16__trace_stat st, none;
    assert_int_equal(g16__trace_query("free:traced", &st), G16_OK);
    assert_int_equal(st.count, 10);
    assert_int_equal(st.threads, 1);
    assert_string_equal(st.metric_key[0], "bytes");
    assert_int_equal(st.metric_sum[0], bytes);
    /* a detached thread: its frees are never counted as the caller's work */
    assert_int_equal(g16__trace_query("caller/free:traced", &none), G16_ERR_ARG);
    assert_true(g16__trace_gap_ns("g16-bgfree") >= 0);
    g16__trace_enable(0);
    g16__trace_reset();
}

static void test_shutdown_restart(void **state)
{
    (void)state;
    reset_counts();
    for (size_t i = 0; i < 100; i++)
        g16__free_async(new_buf(i, 64), 64, "shutdown", count_free);
    g16__free_async_shutdown(); /* drains and joins */
    for (size_t i = 0; i < 100; i++)
        assert_int_equal(freed_times[i], 1);
    g16__bgfree_stats s;
    g16__bgfree_get_stats(&s);
    assert_int_equal(s.pending_bytes, 0);
    g16__free_async_shutdown(); /* twice is fine */
    g16__free_async(new_buf(100, 64), 64, "restart", count_free);
    g16__free_async_wait();
    assert_int_equal(freed_times[100], 1);
    g16__free_async(NULL, 10, "null", count_free); /* no-op */
    g16__free_async_wait();
}

/* fork: the child starts its own background thread, and its exit frees what it queued */
static void test_fork(void **state)
{
    (void)state;
#ifdef __SANITIZE_THREAD__
    skip(); /* TSan cannot start threads in the child of a multi-threaded fork */
#endif
    g16__free_async(malloc(64), 64, "before-fork", NULL);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        g16__free_async(malloc(64), 64, "child", NULL);
        g16__free_async_wait();
        g16__bgfree_stats s;
        g16__bgfree_get_stats(&s);
        g16__free_async(malloc(64), 64, "child-at-exit", NULL);
        exit(s.pending_bytes == 0 ? 0 : 1);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    g16__free_async_wait();
}

static void test_alloc_large(void **state)
{
    (void)state;
    assert_null(g16__alloc_large(0));
    assert_null(g16__alloc_large(SIZE_MAX));
    assert_null(g16__alloc_large_zero(SIZE_MAX / 2, 3));
    size_t sizes[] = {1, 63, 4096, G16__ALLOC_MMAP_MIN - 1, G16__ALLOC_MMAP_MIN, (3u << 20) + 5, 0};
    sizes[6] = 1 + tu_rand64() % (8u << 20);
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t b = sizes[k];
        uint8_t *p = g16__alloc_large_zero(b, 1);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 64, 0);
        if (b >= (2u << 20))
            assert_int_equal((uintptr_t)p % (2u << 20), 0);
        for (size_t i = 0; i < b; i += 1 + i / 3)
            assert_int_equal(p[i], 0);
        assert_int_equal(p[b - 1], 0);
        uint8_t v = (uint8_t)tu_rand64();
        memset(p, v, b);
        assert_int_equal(p[b - 1], v);
        if (k % 2)
            g16__free_large(p, b);
        else
            g16__free_async(p, b, "large", g16__free_large);
    }
    g16__free_async_wait();
    g16__free_large(NULL, 123);
}

/* A mapping without huge pages: the munmap cost of ordinary 4 KiB pages. */
static void *map_small_pages(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
#ifdef MADV_NOHUGEPAGE
    madvise(p, bytes, MADV_NOHUGEPAGE);
#endif
    return p;
}

/* Caller-side time: unmapping a touched 1 GiB buffer itself versus handing it to the background
 * thread; with g16__alloc_large (huge pages where the kernel gives them) and with 4 KiB pages. */
static void test_1gib_handoff(void **state)
{
    (void)state;
    size_t mb = (size_t)tu_iters(1024);
    mb = mb > 1024 ? 1024 : mb;
    size_t bytes = mb << 20;
    for (int small = 0; small < 2; small++) {
        int64_t t_sync = 0, t_async = 0, t_wait = 0;
        for (int round = 0; round < 2; round++) {
            uint8_t *p = small ? map_small_pages(bytes) : g16__alloc_large(bytes);
            if (!p) {
                fprintf(stderr, "skipped: cannot map %zu MiB\n", mb);
                return;
            }
            memset(p, 1, bytes); /* touch every page, as a real buffer would be */
            g16__free_fn fn = small ? g16__free_fn_munmap : g16__free_large;
            int64_t t0 = mono_ns();
            if (round == 0) {
                fn(p, bytes);
                t_sync = mono_ns() - t0;
            } else {
                g16__free_async(p, bytes, "1gib", fn);
                t_async = mono_ns() - t0;
                g16__free_async_wait();
                t_wait = mono_ns() - t0;
            }
        }
        fprintf(stderr, "%zu MiB %s: munmap on the caller %.3f ms; g16__free_async %.3f us (freed after %.3f ms)\n",
                mb, small ? "4 KiB pages" : "g16__alloc_large", t_sync / 1e6, t_async / 1e3, t_wait / 1e6);
    }
}

int main(void)
{
    tu_seed("test_bgfree");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_many),
        cmocka_unit_test(test_overflow_inline),
        cmocka_unit_test(test_spans),
        cmocka_unit_test(test_shutdown_restart),
        cmocka_unit_test(test_fork),
        cmocka_unit_test(test_alloc_large),
        cmocka_unit_test(test_1gib_handoff),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    /* left queued on purpose: the exit handler must free it (leak checkers would say otherwise) */
    g16__free_async(malloc(1 << 16), 1 << 16, "at-exit", NULL);
    return rc;
}
