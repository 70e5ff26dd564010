/*
 * Background freeing: hand a large buffer to a thread that frees it, so the caller never waits
 * on munmap / free / cudaFreeHost (the founding lesson of g16: ~37 GB freed synchronously in
 * destructors cost 10 s that no phase timer saw).
 *
 * Model: one lazily started thread ("g16-bgfree", trace role DETACHED) consumes a bounded FIFO
 * of G16__BGFREE_QUEUE_CAP entries; each free runs inside a span "free:<label>" on that thread
 * (numeric argument and metric "bytes" = the size). When the queue is full, the thread cannot
 * be started, or the process is shutting down, the buffer is freed inline on the caller's
 * thread (same span name there, so the cost stays visible): a buffer is never lost and nothing
 * aborts.
 *
 * Cost: a hand-off is a lock, a copy and a condition-variable signal (12-40 us measured on a
 * shared 2-core VM, mostly the wake-up); meant for buffers of MiB and up, whose free costs ms.
 * The thread runs SCHED_BATCH, so waking it never preempts the caller.
 *
 * Ownership: g16__free_async takes ownership of p; the caller must not touch it afterwards.
 * The label is copied (up to 31 bytes). free_fn(p, bytes) is called exactly once, on the
 * background thread or inline; it must be thread-safe. A NULL free_fn means free(p).
 *
 * Shutdown: an exit handler drains the queue and joins the thread (every queued buffer is freed,
 * so leak checkers stay quiet); after it, frees are inline. After fork() the child restarts the
 * thread on demand and still frees what was queued before the fork.
 * All functions are thread-safe.
 */
#ifndef G16_UTIL_BGFREE_H
#define G16_UTIL_BGFREE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define G16__BGFREE_QUEUE_CAP 1024

typedef void (*g16__free_fn)(void *p, size_t bytes);

/* Queues p (NULL: no-op) for freeing with free_fn(p, bytes) on the background thread. */
void g16__free_async(void *p, size_t bytes, const char *label, g16__free_fn free_fn);

/* Blocks until every buffer queued before the call has been freed. Must not be called from a
 * free function (it would wait for itself). */
void g16__free_async_wait(void);

/* Frees everything queued, then stops and joins the thread; a later g16__free_async starts a
 * new one (except after process exit began, when frees become inline). */
void g16__free_async_shutdown(void);

typedef struct {
    uint64_t queued_count, queued_bytes;       /* handed to the background thread */
    uint64_t freed_count, freed_bytes;         /* freed by the background thread */
    uint64_t inline_count, inline_bytes;       /* freed on the caller's thread (fallback) */
    uint64_t pending_bytes, peak_pending_bytes; /* queued and not yet freed (memory still held) */
} g16__bgfree_stats;

/* A consistent copy of the counters (cumulative since process start). */
void g16__bgfree_get_stats(g16__bgfree_stats *out);

/* Ready-made free functions: free(p) and munmap(p, bytes). */
void g16__free_fn_libc(void *p, size_t bytes);
void g16__free_fn_munmap(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* G16_UTIL_BGFREE_H */
