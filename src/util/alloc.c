/* Large-buffer allocation: see alloc.h. */
#define _GNU_SOURCE
#include "util/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_ALIGN ((size_t)2 << 20)

static size_t page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096;
}

static size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

/* Maps `len` bytes (a multiple of the page size). From 2 MiB up, maps 2 MiB more and trims both
 * ends so the buffer starts on a 2 MiB boundary: only aligned 2 MiB ranges can become huge pages. */
static void *map_aligned(size_t len)
{
    size_t extra = len >= HUGE_ALIGN ? HUGE_ALIGN : 0;
    if (len > SIZE_MAX - extra)
        return NULL;
    uint8_t *raw = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    uint8_t *p = raw;
    if (extra) {
        size_t head = (HUGE_ALIGN - (uintptr_t)raw % HUGE_ALIGN) % HUGE_ALIGN;
        p = raw + head;
        if (head)
            munmap(raw, head);
        if (extra - head)
            munmap(p + len, extra - head);
#ifdef MADV_HUGEPAGE
        madvise(p, len, MADV_HUGEPAGE); /* advice only: failure (no THP) changes nothing */
#endif
    }
    return p;
}

void *g16__alloc_large(size_t bytes)
{
    if (bytes == 0 || bytes > (size_t)PTRDIFF_MAX)
        return NULL;
    if (bytes >= G16__ALLOC_MMAP_MIN)
        return map_aligned(round_up(bytes, page_size()));
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}

void *g16__alloc_large_zero(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    void *p = g16__alloc_large(bytes);
    if (p && bytes < G16__ALLOC_MMAP_MIN) /* fresh anonymous mappings are already zero */
        memset(p, 0, bytes);
    return p;
}

void g16__free_large(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes >= G16__ALLOC_MMAP_MIN)
        munmap(p, round_up(bytes, page_size()));
    else
        free(p);
}

/* memset through a volatile function pointer: the compiler cannot prove what it calls, so it
 * cannot remove the store as dead. */
static void *(*volatile secure_memset)(void *, int, size_t) = memset;

void g16__secure_zero(void *p, size_t bytes)
{
    if (p && bytes)
        secure_memset(p, 0, bytes);
}
