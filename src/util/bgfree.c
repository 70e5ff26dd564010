/* Background freeing: see bgfree.h. One mutex guards the queue and counters; it is never held
 * while a buffer is being freed, so callers only ever wait for a few queue operations. */
#define _GNU_SOURCE
#include "util/bgfree.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "util/trace.h"

#define LABEL_LEN 32

typedef struct {
    void *p;
    size_t bytes;
    g16__free_fn fn;
    uint64_t ticket; /* position in the queueing order, for g16__free_async_wait */
    char label[LABEL_LEN];
} item;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv_work = PTHREAD_COND_INITIALIZER, cv_done = PTHREAD_COND_INITIALIZER;
static item queue[G16__BGFREE_QUEUE_CAP];
static size_t q_head, q_len;
static uint64_t enq_seq, done_seq;
static int running, stopping, exiting, hooks_done;
static pthread_t worker;
static g16__bgfree_stats stats;

void g16__free_fn_libc(void *p, size_t bytes)
{
    (void)bytes;
    free(p);
}

void g16__free_fn_munmap(void *p, size_t bytes) { munmap(p, bytes); }

/* Frees one buffer inside a "free:<label>" span on the calling thread. */
static void free_one(const item *it)
{
    g16__span s = 0;
    if (g16__trace_enabled()) {
        s = g16__span_begin_n(g16__trace_intern("free:", it->label), it->bytes);
        g16__span_metric("bytes", it->bytes);
    }
    it->fn(it->p, it->bytes);
    g16__span_end(s);
}

static void *worker_main(void *arg)
{
    (void)arg;
    g16__trace_thread("g16-bgfree", G16__TRACE_DETACHED);
    pthread_setname_np(pthread_self(), "g16-bgfree");
#ifdef SCHED_BATCH
    /* no wake-up preemption: on a busy machine, waking this thread must not push the caller
     * off its CPU (seen: a 1 GiB hand-off costing the caller 8.6 ms, the munmap, instead of
     * ~20 us). Its fair share of CPU time is unchanged. */
    struct sched_param sp = {0};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &sp);
#endif
    pthread_mutex_lock(&mu);
    for (;;) {
        while (q_len == 0 && !stopping)
            pthread_cond_wait(&cv_work, &mu);
        if (q_len == 0)
            break; /* stopping and drained */
        item it = queue[q_head];
        q_head = (q_head + 1) % G16__BGFREE_QUEUE_CAP;
        q_len--;
        pthread_mutex_unlock(&mu);
        free_one(&it);
        pthread_mutex_lock(&mu);
        done_seq = it.ticket;
        stats.freed_count++;
        stats.freed_bytes += it.bytes;
        stats.pending_bytes -= it.bytes;
        pthread_cond_broadcast(&cv_done);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void at_exit(void)
{
    pthread_mutex_lock(&mu);
    exiting = 1;
    pthread_mutex_unlock(&mu);
    g16__free_async_shutdown();
    if (__atomic_load_n(&g16__trace_flags, __ATOMIC_RELAXED) & G16__TRACE_TREE_AT_EXIT) {
        g16__bgfree_stats s;
        g16__bgfree_get_stats(&s);
        fprintf(stderr,
                "g16 bgfree: %" PRIu64 " buffers (%.3f GiB) freed in the background, peak %.3f GiB pending; "
                "%" PRIu64 " (%.3f GiB) freed inline\n",
                s.freed_count, (double)s.freed_bytes / 1073741824.0, (double)s.peak_pending_bytes / 1073741824.0,
                s.inline_count, (double)s.inline_bytes / 1073741824.0);
    }
}

/* Fork: hold the lock across it so the child gets a consistent queue. The child has no worker
 * thread: it forgets it (a new one starts on demand and frees what was queued) and gets fresh
 * synchronization objects, since the copied condition variables still count the parent's
 * waiters (signalling them in the child was seen to hang). */
static void fork_prepare(void) { pthread_mutex_lock(&mu); }
static void fork_parent(void) { pthread_mutex_unlock(&mu); }
static void fork_child(void)
{
    running = stopping = 0;
    pthread_mutex_init(&mu, NULL);
    pthread_cond_init(&cv_work, NULL);
    pthread_cond_init(&cv_done, NULL);
}

/* Starts the worker (caller holds mu). Signals are blocked in it, so handlers run elsewhere. */
static void start_worker_locked(void)
{
    if (running || stopping || exiting)
        return;
    if (!hooks_done) {
        hooks_done = 1;
        atexit(at_exit);
        pthread_atfork(fork_prepare, fork_parent, fork_child);
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    running = pthread_create(&worker, NULL, worker_main, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void free_inline(void *p, size_t bytes, const char *label, g16__free_fn fn)
{
    item it = {.p = p, .bytes = bytes, .fn = fn};
    snprintf(it.label, sizeof it.label, "%s", label);
    free_one(&it);
}

void g16__free_async(void *p, size_t bytes, const char *label, g16__free_fn free_fn)
{
    if (!p)
        return;
    if (!free_fn)
        free_fn = g16__free_fn_libc;
    if (!label)
        label = "buffer";
    pthread_mutex_lock(&mu);
    start_worker_locked();
    if (!running || stopping || q_len == G16__BGFREE_QUEUE_CAP) {
        stats.inline_count++;
        stats.inline_bytes += bytes;
        pthread_mutex_unlock(&mu);
        free_inline(p, bytes, label, free_fn);
        return;
    }
    item *it = &queue[(q_head + q_len) % G16__BGFREE_QUEUE_CAP];
    it->p = p;
    it->bytes = bytes;
    it->fn = free_fn;
    it->ticket = ++enq_seq;
    snprintf(it->label, sizeof it->label, "%s", label);
    q_len++;
    stats.queued_count++;
    stats.queued_bytes += bytes;
    stats.pending_bytes += bytes;
    if (stats.pending_bytes > stats.peak_pending_bytes)
        stats.peak_pending_bytes = stats.pending_bytes;
    pthread_cond_signal(&cv_work);
    pthread_mutex_unlock(&mu);
}

/* Frees whatever is queued with no worker to take it (after fork, or a failed restart); caller
 * holds mu, which is released around each free. */
static void drain_inline_locked(void)
{
    while (q_len) {
        item it = queue[q_head];
        q_head = (q_head + 1) % G16__BGFREE_QUEUE_CAP;
        q_len--;
        pthread_mutex_unlock(&mu);
        free_one(&it);
        pthread_mutex_lock(&mu);
        done_seq = it.ticket;
        stats.freed_count++;
        stats.freed_bytes += it.bytes;
        stats.pending_bytes -= it.bytes;
        pthread_cond_broadcast(&cv_done);
    }
}

void g16__free_async_wait(void)
{
    pthread_mutex_lock(&mu);
    uint64_t target = enq_seq;
    while (done_seq < target) {
        if (!running) {
            start_worker_locked();
            if (!running) {
                drain_inline_locked();
                continue;
            }
        }
        pthread_cond_wait(&cv_done, &mu);
    }
    pthread_mutex_unlock(&mu);
}

void g16__free_async_shutdown(void)
{
    pthread_mutex_lock(&mu);
    if (stopping) { /* another caller is joining: just wait for the queue */
        pthread_mutex_unlock(&mu);
        g16__free_async_wait();
        return;
    }
    if (running) {
        stopping = 1;
        pthread_t t = worker;
        pthread_cond_signal(&cv_work);
        pthread_mutex_unlock(&mu);
        pthread_join(t, NULL);
        pthread_mutex_lock(&mu);
        running = stopping = 0;
    }
    drain_inline_locked();
    pthread_mutex_unlock(&mu);
}

void g16__bgfree_get_stats(g16__bgfree_stats *out)
{
    if (!out)
        return;
    pthread_mutex_lock(&mu);
    *out = stats;
    pthread_mutex_unlock(&mu);
}
