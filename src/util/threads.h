/*
 * The shared worker pool behind every parallel part of g16 (NTT, MSM, sparse matrix-vector
 * products, parameter checking).
 *
 * Model: one process-wide pool of nthreads - 1 detached worker threads, started lazily on first
 * use (pthread_once). g16__parallel_for splits an index range into chunks and runs them on the
 * workers and on the calling thread together; it returns when every chunk has finished.
 *
 * Invariants and guarantees:
 *   - Every index in [0, n) is passed to fn exactly once. Each chunk is at least `grain` long
 *     (only when n < grain is the single chunk shorter). The split is not fixed: it depends on
 *     the thread count and on timing, so fn must give results that do not depend on it (disjoint
 *     writes, or per-index outputs combined afterwards).
 *   - Calls made from inside fn (on a worker or on the calling thread) run inline, on the thread
 *     that makes them: nesting never deadlocks and never oversubscribes.
 *   - Top-level calls from several threads at once are serialized (one job on the pool at a time);
 *     each caller waits for the previous job, then gets the whole pool. fn must therefore not
 *     wait for another thread's g16__parallel_for.
 *   - Nothing here allocates, and a worker that cannot be created just means fewer workers: no
 *     failure can abort a call; at worst everything runs inline.
 *   - After fork() the child has no workers and runs every call inline.
 *   - Workers block all signals (so that signal handling stays with the application threads) and
 *     sleep on a condition variable between jobs; they are detached and hold no heap memory, so
 *     process exit needs no shutdown and leak checkers report nothing.
 *
 * Thread count: the CPUs this process may run on (sched_getaffinity, else the online CPUs);
 * the environment variable G16_THREADS=N (1 <= N <= 1024) overrides it at pool start. 1 means
 * every call runs inline and no thread is started.
 */
#ifndef G16_UTIL_THREADS_H
#define G16_UTIL_THREADS_H

#include <stddef.h>

#define G16__THREADS_MAX 1024

/* Threads a g16__parallel_for made from this thread may use (pool workers + the caller): the pool
 * size, capped by this thread's limit (g16__threads_set_limit). Always >= 1. Starts the pool. */
int g16__nthreads(void);

/* Caps the threads used by g16__parallel_for calls made from the calling thread (a per-thread
 * setting, for tests and benchmarks that compare thread counts): max >= 1 caps, 0 removes the
 * cap. Returns the previous setting (0 = none). Negative values are treated as 0. */
int g16__threads_set_limit(int max);

/* Runs fn(ctx, begin, end) over chunks covering [0, n) (see the guarantees above) and returns
 * when all are done. n == 0 calls nothing; grain 0 counts as 1. Runs inline (one call
 * fn(ctx, 0, n)) when n <= grain, when one thread is available, or when nested. */
void g16__parallel_for(size_t n, size_t grain, void (*fn)(void *ctx, size_t begin, size_t end), void *ctx);

#endif /* G16_UTIL_THREADS_H */
