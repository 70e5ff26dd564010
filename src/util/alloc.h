/*
 * Large-buffer allocation: mmap for big buffers (page-aligned, 2 MiB-aligned from 2 MiB up, with
 * MADV_HUGEPAGE advice where the kernel has it), posix_memalign for small ones.
 *
 * Invariants: every non-NULL result is at least 64-byte aligned (a cache line, and enough for
 * any vector load); a buffer from g16__alloc_large is released with g16__free_large(p, bytes)
 * given the SAME byte count (it picks munmap or free from the size, like the allocator did).
 * Mapped memory is not touched here, so the first write decides its NUMA node.
 * Failure (0 bytes, size overflow, out of memory) returns NULL; nothing here aborts.
 * Thread-safe. g16__free_large has the signature of a g16__free_async free function, so a big
 * buffer can be handed to the background freeing thread (bgfree.h).
 */
#ifndef G16_UTIL_ALLOC_H
#define G16_UTIL_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* From this size up, buffers are mapped rather than taken from the heap (1 MiB). */
#define G16__ALLOC_MMAP_MIN ((size_t)1 << 20)

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
