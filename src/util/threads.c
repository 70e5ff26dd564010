/*
 * Worker pool: see threads.h.
 *
 * One job at a time lives on the stack of the thread that called g16__parallel_for; pool.job
 * points to it while it accepts helpers. Chunks are claimed with an atomic counter. A worker
 * "joins" a job under pool.mu (active++), so the caller, after claiming no more chunks, closes the
 * job (pool.job = NULL) and waits only for the workers that joined; a worker that wakes late sees
 * no job and goes back to sleep, so a slow-to-wake worker never delays the caller.
 */
#define _GNU_SOURCE
#include "util/threads.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* Chunks per thread: a few per thread lets fast threads take over from threads that were
 * descheduled (this is shared hardware) without making chunks too small. */
#define CHUNKS_PER_THREAD 4

typedef struct {
    void (*fn)(void *ctx, size_t begin, size_t end);
    void *ctx;
    size_t n, chunk, nchunks;
    int max_helpers; /* workers allowed to join (the caller's thread limit - 1) */
    atomic_size_t next;
} job_t;

static struct {
    pthread_mutex_t mu;       /* guards job, gen, joined, active */
    pthread_cond_t work_cv;   /* workers: a new job was posted */
    pthread_cond_t done_cv;   /* caller: active dropped to 0 */
    pthread_mutex_t submit;   /* serializes top-level callers */
    job_t *job;
    unsigned long gen;
    int joined, active;
    int nworkers; /* fixed after start (0 in a forked child) */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER,
          PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;

/* Nonzero while this thread runs chunks (worker threads: always): nested calls go inline. */
static _Thread_local int in_job;
/* This thread's cap on threads per call (0: none). */
static _Thread_local int thread_limit;

static void run_chunks(job_t *j)
{
    for (;;) {
        size_t c = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        if (c >= j->nchunks)
            return;
        size_t begin = c * j->chunk;
        size_t end = c + 1 == j->nchunks ? j->n : begin + j->chunk;
        j->fn(j->ctx, begin, end);
    }
}

static void *worker_main(void *arg)
{
    (void)arg;
    in_job = 1;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (pool.gen == seen)
            pthread_cond_wait(&pool.work_cv, &pool.mu);
        seen = pool.gen;
        job_t *j = pool.job;
        if (!j || pool.joined >= j->max_helpers)
            continue;
        pool.joined++;
        pool.active++;
        pthread_mutex_unlock(&pool.mu);
        run_chunks(j);
        pthread_mutex_lock(&pool.mu);
        if (--pool.active == 0)
            pthread_cond_signal(&pool.done_cv);
    }
    return NULL;
}

/* G16_THREADS when it is a plain integer in [1, G16__THREADS_MAX], else 0. */
static int env_threads(void)
{
    const char *s = getenv("G16_THREADS");
    if (!s || !*s)
        return 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < 1 || v > G16__THREADS_MAX)
        return 0;
    return (int)v;
}

static int cpu_count(void)
{
    cpu_set_t set;
    long n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n < 1)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        n = 1;
    return n > G16__THREADS_MAX ? G16__THREADS_MAX : (int)n;
}

static void after_fork_child(void)
{
    /* The workers did not survive the fork, and pool.mu may have been copied locked. */
    pool.nworkers = 0;
}

static void pool_start(void)
{
    int want = env_threads();
    if (want == 0)
        want = cpu_count();
    pthread_attr_t attr;
    if (want < 2 || pthread_attr_init(&attr) != 0)
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the workers inherit a fully blocked mask */
    int started = 0;
    for (int i = 0; i < want - 1; i++) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker_main, NULL) != 0)
            break; /* fewer workers; still correct */
        started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    pool.nworkers = started;
    pthread_atfork(NULL, NULL, after_fork_child);
}

int g16__nthreads(void)
{
    pthread_once(&pool_once, pool_start);
    int t = pool.nworkers + 1;
    if (thread_limit > 0 && thread_limit < t)
        t = thread_limit;
    return t;
}

int g16__threads_set_limit(int max)
{
    int old = thread_limit;
    thread_limit = max > 0 ? max : 0;
    return old;
}

/* Wakes up to `helpers` sleeping workers for the job just posted. */
static void wake_workers(int helpers)
{
    if (helpers >= pool.nworkers) {
        pthread_cond_broadcast(&pool.work_cv);
        return;
    }
    for (int i = 0; i < helpers; i++)
        pthread_cond_signal(&pool.work_cv);
}

void g16__parallel_for(size_t n, size_t grain, void (*fn)(void *ctx, size_t begin, size_t end), void *ctx)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    int threads = in_job ? 1 : g16__nthreads();
    if (threads < 2 || n <= grain) {
        fn(ctx, 0, n);
        return;
    }
    size_t chunk = n / ((size_t)threads * CHUNKS_PER_THREAD);
    if (chunk < grain)
        chunk = grain;
    size_t nchunks = n / chunk; /* the last chunk takes the remainder, so none is below grain */
    if (nchunks < 2) {
        fn(ctx, 0, n);
        return;
    }
    int helpers = nchunks - 1 < (size_t)(threads - 1) ? (int)(nchunks - 1) : threads - 1;
    job_t j = {fn, ctx, n, chunk, nchunks, helpers, 0};

    pthread_mutex_lock(&pool.submit);
    pthread_mutex_lock(&pool.mu);
    pool.job = &j;
    pool.joined = 0;
    pool.gen++;
    wake_workers(helpers);
    pthread_mutex_unlock(&pool.mu);

    in_job = 1;
    run_chunks(&j);
    in_job = 0;

    pthread_mutex_lock(&pool.mu);
    pool.job = NULL; /* no more joins; wait for the workers still running a chunk */
    while (pool.active > 0)
        pthread_cond_wait(&pool.done_cv, &pool.mu);
    pthread_mutex_unlock(&pool.mu);
    pthread_mutex_unlock(&pool.submit);
}
