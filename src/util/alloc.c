/* Large-buffer allocation: see alloc.h. */
#define _GNU_SOURCE
#include "util/alloc.h"

#include <pthread.h>
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

/* Per-thread cache of freed mappings up to G16__ALLOC_CACHE_MAX: a thread that frees one and
 * maps the same length again (the MSM's window tasks, one after another on a pool thread) gets it
 * back without a new mapping's page faults. At most CACHE_SLOTS per thread; all are unmapped when
 * the thread asks for a length it does not hold (the work changed shape: keeping them would only
 * add to the peak) and when the thread exits. */
#define CACHE_SLOTS 4

typedef struct {
    void *p[CACHE_SLOTS];
    size_t len[CACHE_SLOTS];
} map_cache;

static _Thread_local map_cache tl_cache;
static _Thread_local int tl_cache_keyed; /* the exit destructor knows this thread's cache */
static _Thread_local int tl_maps;        /* this thread has mapped a cacheable length (it may again) */
static pthread_key_t cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;
static int cache_key_ok;

static void cache_drain(void *arg)
{
    map_cache *c = arg;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (c->p[i])
            munmap(c->p[i], c->len[i]);
        c->p[i] = NULL;
    }
}

static void make_cache_key(void) { cache_key_ok = pthread_key_create(&cache_key, cache_drain) == 0; }

/* A cached mapping of exactly len bytes, or NULL. */
static void *cache_take(size_t len)
{
    map_cache *c = &tl_cache;
    for (int i = 0; i < CACHE_SLOTS; i++) {
        if (c->p[i] && c->len[i] == len) {
            void *p = c->p[i];
            c->p[i] = NULL;
            return p;
        }
    }
    return NULL;
}

/* Keeps the mapping p of len bytes in this thread's cache (evicting the oldest slot when full). */
static void cache_put(void *p, size_t len)
{
    map_cache *c = &tl_cache;
    if (!tl_maps) { /* a thread that only frees (the background freer) would keep them for nothing */
        munmap(p, len);
        return;
    }
    if (!tl_cache_keyed) {
        pthread_once(&cache_once, make_cache_key);
        if (!cache_key_ok || pthread_setspecific(cache_key, c)) {
            munmap(p, len);
            return;
        }
        tl_cache_keyed = 1;
    }
    int slot = 0;
    while (slot < CACHE_SLOTS && c->p[slot])
        slot++;
    if (slot == CACHE_SLOTS) {
        munmap(c->p[0], c->len[0]);
        memmove(&c->p[0], &c->p[1], (CACHE_SLOTS - 1) * sizeof c->p[0]);
        memmove(&c->len[0], &c->len[1], (CACHE_SLOTS - 1) * sizeof c->len[0]);
        slot = CACHE_SLOTS - 1;
    }
    c->p[slot] = p;
    c->len[slot] = len;
}

/* Buffer of `bytes`; *fresh = 1 when it is a new mapping (reads as zero). */
static void *alloc_large(size_t bytes, int *fresh)
{
    *fresh = 0;
    if (bytes == 0 || bytes > (size_t)PTRDIFF_MAX)
        return NULL;
    if (bytes >= G16__ALLOC_MMAP_MIN) {
        size_t len = round_up(bytes, page_size());
        void *p = NULL;
        if (len <= G16__ALLOC_CACHE_MAX) {
            tl_maps = 1;
            p = cache_take(len);
            if (!p) /* a new shape of work: what the thread kept is for the old one */
                cache_drain(&tl_cache);
        }
        if (p)
            return p;
        *fresh = 1;
        return map_aligned(len);
    }
    void *p = NULL;
    return posix_memalign(&p, 64, bytes) == 0 ? p : NULL;
}

void *g16__alloc_large(size_t bytes)
{
    int fresh;
    return alloc_large(bytes, &fresh);
}

void *g16__alloc_large_zero(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        return NULL;
    size_t bytes = count * size;
    int fresh;
    void *p = alloc_large(bytes, &fresh);
    if (p && !fresh) /* fresh anonymous mappings are already zero */
        memset(p, 0, bytes);
    return p;
}

void g16__free_large(void *p, size_t bytes)
{
    if (!p)
        return;
    if (bytes < G16__ALLOC_MMAP_MIN) {
        free(p);
        return;
    }
    size_t len = round_up(bytes, page_size());
    if (len <= G16__ALLOC_CACHE_MAX)
        cache_put(p, len);
    else
        munmap(p, len);
}

/* memset through a volatile function pointer: the compiler cannot prove what it calls, so it
 * cannot remove the store as dead. */
static void *(*volatile secure_memset)(void *, int, size_t) = memset;

void g16__secure_zero(void *p, size_t bytes)
{
    if (p && bytes)
        secure_memset(p, 0, bytes);
}
