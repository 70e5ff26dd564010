/*
 * Large-buffer allocation: mmap for big buffers (page-aligned, 2 MiB-aligned from 2 MiB up, with
 * MADV_HUGEPAGE advice where the kernel has it), posix_memalign for small ones.
 *
 * Invariants: every non-NULL result is at least 64-byte aligned (a cache line, and enough for
 * any vector load); a buffer from g16__alloc_large is released with g16__free_large(p, bytes)
 * given the SAME byte count (it picks munmap or free from the size, like the allocator did).
 * Mapped memory is not touched here, so the first write decides its NUMA node (a length reused from
 * the thread's cache, G16__ALLOC_CACHE_MAX, stays where that thread first wrote it).
 * Failure (0 bytes, size overflow, out of memory) returns NULL; nothing here aborts.
 * Thread-safe (a buffer may be freed on another thread than the one that allocated it).
 * g16__free_large has the signature of a g16__free_async free function, so a big buffer can be
 * handed to the background freeing thread (bgfree.h).
 */
#ifndef G16_UTIL_ALLOC_H
#define G16_UTIL_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From this size up, buffers are mapped rather than taken from the heap (256 KiB). Mapped buffers
 * go back to the system when freed whatever glibc's own threshold has become: glibc raises it (up
 * to 32 MiB) after a program frees a chunk it had mapped, and then keeps up to twice that in its
 * heaps; the MSM's per-task buckets (0.5-1 MiB each, allocated and freed per window task) piled up
 * there: ~9 MB more peak RSS in a 2^17 CPU proof with a 1 MiB threshold (session 5,
 * bench/RESULTS.md). */
#define G16__ALLOC_MMAP_MIN ((size_t)256 << 10)

/* Freed mappings up to this size are kept per thread (4 at most) for the next buffer of the same
 * length: without that, mapping each window task's buckets afresh cost ~7,500 page faults per
 * one-thread G1 2^16 MSM (3x the heap's count; session 5). Kept mappings are unmapped when their
 * slot is needed and when the thread exits. */
#define G16__ALLOC_CACHE_MAX ((size_t)8 << 20)

/* Uninitialised buffer of `bytes` (mapped ones read as zero). NULL on failure. */
void *g16__alloc_large(size_t bytes);

/* Zeroed buffer of count * size bytes (overflow-checked). NULL on failure. */
void *g16__alloc_large_zero(size_t count, size_t size);

/* Releases a buffer of g16__alloc_large / _zero (byte count as allocated: count * size for
 * _zero). NULL is a no-op. */
void g16__free_large(void *p, size_t bytes);

/* Zeroes secrets (r, s, toxic waste) in a way the compiler cannot drop as a dead store before
 * free or return. */
void g16__secure_zero(void *p, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif /* G16_UTIL_ALLOC_H */
