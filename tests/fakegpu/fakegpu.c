/* The fake GPU (see fakegpu.h): the CUDA backend's entry points on host memory, for tests. */
#define _GNU_SOURCE /* posix_memalign, clock_gettime */
#include "fakegpu.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/msm_gpu.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/error.h"

#define FK_MAX_DEV 8
#define FK_POISON 0xa5

/* ---------------------------------------------------------------- bookkeeping */

enum { REC_DEV = 1, REC_COUNTED, REC_HOST, REC_REG, REC_OBJ };

typedef struct rec {
    struct rec *next;
    int kind, dev;
    unsigned char *p; /* NULL for REC_COUNTED */
    size_t bytes;
    const char *what;
} rec;

static pthread_mutex_t fk_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fk_once = PTHREAD_ONCE_INIT;
static rec *fk_recs;
static size_t fk_used[FK_MAX_DEV], fk_peak[FK_MAX_DEV];
static uint64_t fk_calls, fk_fail;
static uint64_t fk_allocs, fk_fail_alloc; /* allocation calls; the one refused as out of memory */
static const char *fk_fail_named; /* allocations named so are refused as out of memory */
static size_t fk_held; /* side copies held back, all contexts (atomic) */
static int fk_sticky;                      /* an injected failure breaks every later call */
static uint64_t fk_broken;                 /* the call that broke them (0: none) */
static size_t fk_opens[FK_MAX_DEV];        /* contexts opened per device */
static int fk_ndev = 1;
static size_t fk_card = (size_t)16 << 30;

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fakegpu: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    abort();
}

/* bytes with an optional K, M or G suffix; 0 when malformed */
static size_t parse_bytes(const char *s)
{
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    if ((*end == 'K' || *end == 'M' || *end == 'G') && end[1] == 0) {
        unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
        v = v > (~0ULL >> shift) ? ~0ULL : v << shift;
        end++;
    }
    return *end ? 0 : (size_t)v;
}

static void fk_init(void)
{
    const char *s = getenv("G16_FAKE_GPUS");
    if (s && *s) {
        int n = atoi(s);
        if (n < 0 || n > FK_MAX_DEV)
            die("G16_FAKE_GPUS='%s': expected 0 to %d", s, FK_MAX_DEV);
        fk_ndev = n;
    }
    s = getenv("G16_FAKE_GPU_MEM");
    if (s && *s && !(fk_card = parse_bytes(s)))
        die("G16_FAKE_GPU_MEM='%s': expected a byte count with an optional K, M or G", s);
    s = getenv("G16_FAKE_GPU_FAIL");
    if (s && *s)
        fk_fail = strtoull(s, NULL, 10);
}

/* Every fallible entry point starts here: counts the call and injects the chosen failure. */
static g16_status fk_call(const char *expr, g16_error *err)
{
    pthread_once(&fk_once, fk_init);
    pthread_mutex_lock(&fk_mu);
    uint64_t k = ++fk_calls, a = 0, broken = fk_broken;
    int hit = fk_fail && k == fk_fail;
    if (!strncmp(expr, "cudaMalloc", 10) || !strncmp(expr, "cudaHostAlloc", 13))
        a = ++fk_allocs;
    int full = fk_fail_alloc && a == fk_fail_alloc;
    if (hit && fk_sticky)
        fk_broken = k;
    pthread_mutex_unlock(&fk_mu);
    if (broken)
        return g16__error(err, G16_ERR_DEVICE, "%s@%s:%d: cudaErrorIllegalAddress (sticky since the injected failure "
                          "at call %llu)", expr, __FILE__, __LINE__, (unsigned long long)broken);
    if (full)
        return g16__error(err, G16_ERR_NOMEM, "%s@%s:%d: out of device memory (injected failure, allocation %llu)",
                          expr, __FILE__, __LINE__, (unsigned long long)a);
    if (hit)
        return g16__error(err, G16_ERR_DEVICE, "%s@%s:%d: cudaErrorLaunchFailure (injected failure, call %llu)", expr,
                          __FILE__, __LINE__, (unsigned long long)k);
    return G16_OK;
}

void g16__fake_gpu_fail_alloc_named(const char *prefix)
{
    pthread_once(&fk_once, fk_init);
    pthread_mutex_lock(&fk_mu);
    fk_fail_named = prefix;
    pthread_mutex_unlock(&fk_mu);
}

void g16__fake_gpu_fail_alloc_at(uint64_t k)
{
    pthread_once(&fk_once, fk_init);
    pthread_mutex_lock(&fk_mu);
    fk_fail_alloc = k;
    fk_allocs = 0;
    pthread_mutex_unlock(&fk_mu);
}

/* The hooks' reads: a counter, or a per-device counter (0 for a device out of range), under fk_mu. */
static uint64_t locked_read(const uint64_t *v)
{
    pthread_mutex_lock(&fk_mu);
    uint64_t k = *v;
    pthread_mutex_unlock(&fk_mu);
    return k;
}

static size_t locked_read_dev(const size_t *per_dev, int dev)
{
    pthread_mutex_lock(&fk_mu);
    size_t k = dev >= 0 && dev < FK_MAX_DEV ? per_dev[dev] : 0;
    pthread_mutex_unlock(&fk_mu);
    return k;
}

uint64_t g16__fake_gpu_allocs(void) { return locked_read(&fk_allocs); }

unsigned g16__fake_gpu_opens(int dev) { return (unsigned)locked_read_dev(fk_opens, dev); }

void g16__fake_gpu_sticky(int on)
{
    pthread_once(&fk_once, fk_init);
    pthread_mutex_lock(&fk_mu);
    fk_sticky = on;
    pthread_mutex_unlock(&fk_mu);
}

void g16__fake_gpu_fail_at(uint64_t k)
{
    pthread_once(&fk_once, fk_init);
    pthread_mutex_lock(&fk_mu);
    fk_fail = k;
    fk_calls = 0;
    fk_broken = 0;
    pthread_mutex_unlock(&fk_mu);
}

uint64_t g16__fake_gpu_calls(void) { return locked_read(&fk_calls); }

size_t g16__fake_gpu_used(int dev) { return locked_read_dev(fk_used, dev); }

size_t g16__fake_gpu_peak(int dev) { return locked_read_dev(fk_peak, dev); }

void g16__fake_gpu_peak_reset(int dev)
{
    pthread_mutex_lock(&fk_mu);
    if (dev >= 0 && dev < FK_MAX_DEV)
        fk_peak[dev] = fk_used[dev];
    pthread_mutex_unlock(&fk_mu);
}

size_t g16__fake_gpu_held(void) { return __atomic_load_n(&fk_held, __ATOMIC_RELAXED); }

size_t g16__fake_gpu_live(void)
{
    size_t n = 0;
    pthread_mutex_lock(&fk_mu);
    for (rec *r = fk_recs; r; r = r->next)
        n++;
    pthread_mutex_unlock(&fk_mu);
    return n;
}

void g16__fake_gpu_dump(FILE *f)
{
    static const char *const kinds[] = {"?", "device buffer", "device scratch (counted)", "page-locked host buffer",
                                        "host registration", "object"};
    pthread_mutex_lock(&fk_mu);
    for (rec *r = fk_recs; r; r = r->next)
        fprintf(f, "  live: %s '%s' of %zu bytes (device %d)\n", kinds[r->kind], r->what ? r->what : "?", r->bytes,
                r->dev);
    pthread_mutex_unlock(&fk_mu);
}

static void rec_add(rec *r)
{
    pthread_mutex_lock(&fk_mu);
    r->next = fk_recs;
    fk_recs = r;
    if (r->kind == REC_DEV || r->kind == REC_COUNTED) {
        fk_used[r->dev] += r->bytes;
        if (fk_used[r->dev] > fk_peak[r->dev])
            fk_peak[r->dev] = fk_used[r->dev];
    }
    pthread_mutex_unlock(&fk_mu);
}

/* Unlinks the record of kind `kind` whose address is p (or the record r itself when p is NULL). */
static rec *rec_take(int kind, const void *p, rec *r0, const char *what)
{
    pthread_mutex_lock(&fk_mu);
    rec **pp = &fk_recs;
    while (*pp && !((*pp)->kind == kind && (r0 ? *pp == r0 : (*pp)->p == p)))
        pp = &(*pp)->next;
    rec *r = *pp;
    if (r) {
        *pp = r->next;
        if (kind == REC_DEV || kind == REC_COUNTED)
            fk_used[r->dev] -= r->bytes;
    }
    pthread_mutex_unlock(&fk_mu);
    if (!r)
        die("%s of %p: not a live %s", what, p ? p : (const void *)r0,
            kind == REC_DEV    ? "device buffer"
            : kind == REC_HOST ? "page-locked host buffer"
            : kind == REC_REG  ? "registration"
            : kind == REC_OBJ  ? "object"
                               : "scratch count");
    return r;
}

/* Contexts, events, NTT domains, MSM handles and compactors: records of kind REC_OBJ keyed by
 * their address, so that one left behind is named. */
static void obj_add(void *obj, const char *what)
{
    rec *r = calloc(1, sizeof *r);
    if (!r)
        die("out of host memory");
    r->kind = REC_OBJ;
    r->dev = -1;
    r->p = obj;
    r->what = what;
    rec_add(r);
}

static void obj_del(void *obj, const char *what) { free(rec_take(REC_OBJ, obj, NULL, what)); }

/* The live device buffer of dev that holds [p, p + bytes), or NULL. */
static rec *rec_find(int dev, const void *p, size_t bytes)
{
    rec *found = NULL;
    pthread_mutex_lock(&fk_mu);
    for (rec *r = fk_recs; r; r = r->next) {
        if (r->kind != REC_DEV || r->dev != dev || (const unsigned char *)p < r->p)
            continue;
        size_t off = (size_t)((const unsigned char *)p - r->p);
        if (off <= r->bytes && bytes <= r->bytes - off) {
            found = r;
            break;
        }
    }
    pthread_mutex_unlock(&fk_mu);
    return found;
}

/* ---------------------------------------------------------------- contexts and streams */

typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    size_t bytes;
    uint64_t seq;
} pend;

struct g16__gpu {
    int dev;
    size_t mem_limit;
    g16__gpu_info info;
    pthread_mutex_t mu; /* the side stream: pending copies, sequence numbers */
    pend *pending;
    size_t npend, cap;
    uint64_t side_seq;
    pend *inflight; /* device ranges of main-stream work since the host last waited for it */
    size_t ninfl, capinfl;
    double t0;
};

struct g16__gpu_event {
    g16__gpu *g;
    uint64_t mark;
    int recorded;
    int timed;  /* _create_timed: t_ms is the host's clock when it was recorded (the fake's streams
                 * run their work at once or at the next sync, so this is only an order of events) */
    double t_ms;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Runs the held-back side copies with sequence numbers up to `upto`, in order. */
static void flush(g16__gpu *g, uint64_t upto)
{
    pthread_mutex_lock(&g->mu);
    size_t k = 0;
    for (size_t i = 0; i < g->npend; i++) {
        if (g->pending[i].seq <= upto) {
            memcpy(g->pending[i].dst, g->pending[i].src, g->pending[i].bytes);
            __atomic_fetch_sub(&fk_held, 1, __ATOMIC_RELAXED);
        } else
            g->pending[k++] = g->pending[i];
    }
    g->npend = k;
    pthread_mutex_unlock(&g->mu);
}

static void flush_all(g16__gpu *g) { flush(g, UINT64_MAX); }

/* The host waited for the main stream: its work is done. */
static void main_done(g16__gpu *g)
{
    pthread_mutex_lock(&g->mu);
    g->ninfl = 0;
    pthread_mutex_unlock(&g->mu);
}

/* Appends to a pend array (g->mu held); 0 when out of memory. */
static int pend_push(pend **a, size_t *n, size_t *cap, pend x)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 16;
        pend *q = realloc(*a, c * sizeof *q);
        if (!q)
            return 0;
        *a = q;
        *cap = c;
    }
    (*a)[(*n)++] = x;
    return 1;
}

/* A side-stream copy into [p, p + bytes): nothing orders it after the main-stream work enqueued
 * since the host last waited for that stream, so it must not touch that work's ranges. */
static void side_after_main(g16__gpu *g, const void *p, size_t bytes, const char *what)
{
    pthread_mutex_lock(&g->mu);
    for (size_t i = 0; i < g->ninfl; i++) {
        const pend *q = &g->inflight[i];
        if ((const unsigned char *)p < q->dst + q->bytes && q->dst < (const unsigned char *)p + bytes)
            die("%s: side-stream copy into [%p, +%zu), which main-stream work enqueued before it (and not waited "
                "for) uses at [%p, +%zu): a race on the real device", what, p, bytes, (void *)q->dst, q->bytes);
    }
    pthread_mutex_unlock(&g->mu);
}

/* A device range used by `what`: inside one live buffer of g's device; for main-stream work
 * (main = 1), not the target of a side copy that has not been ordered yet. */
static void need_range(g16__gpu *g, const void *p, size_t bytes, const char *what, int main)
{
    rec *r;
    if (bytes == 0)
        return;
    if (!(r = rec_find(g->dev, p, bytes)))
        die("%s: device range [%p, +%zu) is not inside one live buffer of device %d", what, p, bytes, g->dev);
    if (!main)
        return;
    pthread_mutex_lock(&g->mu);
    if (!pend_push(&g->inflight, &g->ninfl, &g->capinfl, (pend){(unsigned char *)(uintptr_t)p, NULL, bytes, 0}))
        die("out of host memory");
    for (size_t i = 0; i < g->npend; i++) {
        const pend *q = &g->pending[i];
        if ((const unsigned char *)p < q->dst + q->bytes && q->dst < (const unsigned char *)p + bytes)
            die("%s: device range [%p, +%zu) of buffer '%s' is the target of side-stream copy %llu (of %zu held "
                "back; from host %p) not yet waited for: a race on the real device", what, p, bytes,
                r->what ? r->what : "?", (unsigned long long)q->seq, g->npend, (const void *)q->src);
    }
    pthread_mutex_unlock(&g->mu);
}

static void poison(void *p, size_t bytes) { memset(p, FK_POISON, bytes); }

int g16__gpu_compiled(void) { return 1; }

int g16__gpu_device_count(void)
{
    pthread_once(&fk_once, fk_init);
    return fk_ndev;
}

g16_status g16__gpu_open(g16__gpu **out, int device, g16_error *err)
{
    g16_status st;
    if (!out)
        return g16__error(err, G16_ERR_ARG, "gpu: NULL output pointer");
    *out = NULL;
    if ((st = fk_call("cudaGetDeviceCount(&count)", err)) != G16_OK)
        return st;
    if (device < 0 || device >= fk_ndev)
        return g16__error(err, G16_ERR_NO_DEVICE, "gpu: device %d requested but %d CUDA device%s present", device,
                          fk_ndev, fk_ndev == 1 ? " is" : "s are");
    size_t limit = 0;
    const char *env = getenv("G16_GPU_MEM_LIMIT");
    if (env && *env && !(limit = parse_bytes(env)))
        return g16__error(err, G16_ERR_ARG, "G16_GPU_MEM_LIMIT='%s': expected a positive byte count, optionally with "
                          "K, M or G", env);
    g16__gpu *g = calloc(1, sizeof *g);
    if (!g)
        return g16__error(err, G16_ERR_NOMEM, "gpu: context");
    g->dev = device;
    g->mem_limit = limit;
    pthread_mutex_init(&g->mu, NULL);
    g->info.device = device;
    snprintf(g->info.name, sizeof g->info.name, "fake GPU %d (tests/fakegpu)", device);
    g->info.cc_major = 9;
    g->info.sm_count = 132;
    g->info.total_bytes = fk_card;
    g->info.l2_bytes = (size_t)50 << 20;
    g->info.smem_block_optin = 227 << 10;
    obj_add(g, "context");
    pthread_mutex_lock(&fk_mu);
    fk_opens[device]++;
    pthread_mutex_unlock(&fk_mu);
    *out = g;
    return G16_OK;
}

void g16__gpu_close(g16__gpu *g)
{
    if (!g)
        return;
    flush_all(g);
    obj_del(g, "g16__gpu_close");
    pthread_mutex_destroy(&g->mu);
    free(g->pending);
    free(g->inflight);
    free(g);
}

void g16__gpu_get_info(const g16__gpu *g, g16__gpu_info *info) { *info = g->info; }

g16_status g16__gpu_sync(g16__gpu *g, g16_error *err)
{
    g16_status st = fk_call("cudaStreamSynchronize(g->stream)", err);
    if (st == G16_OK) {
        flush_all(g);
        main_done(g);
    }
    return st;
}

g16_status g16__gpu_sync_main(g16__gpu *g, g16_error *err)
{
    g16_status st = fk_call("cudaStreamSynchronize(g->stream)", err);
    if (st == G16_OK)
        main_done(g);
    return st;
}

g16_status g16__gpu_timer_start(g16__gpu *g, g16_error *err)
{
    g16_status st = fk_call("cudaEventRecord(g->ev_start, g->stream)", err);
    if (st == G16_OK)
        g->t0 = now_ms();
    return st;
}

g16_status g16__gpu_timer_stop(g16__gpu *g, double *ms, g16_error *err)
{
    g16_status st = fk_call("cudaEventElapsedTime", err);
    *ms = st == G16_OK ? now_ms() - g->t0 : 0;
    if (st == G16_OK)
        main_done(g);
    return st;
}

/* ---------------------------------------------------------------- memory */

static void mem_info(const g16__gpu *g, size_t *f, size_t *t)
{
    pthread_mutex_lock(&fk_mu);
    size_t used = fk_used[g->dev];
    pthread_mutex_unlock(&fk_mu);
    *t = fk_card;
    *f = fk_card > used ? fk_card - used : 0;
    if (g->mem_limit && g->mem_limit < *t) { /* as gpu.cu: what is in use counts against the limit */
        *f = g->mem_limit > used ? g->mem_limit - used : 0;
        *t = g->mem_limit;
    }
}

g16_status g16__gpu_mem_info(g16__gpu *g, size_t *free_bytes, size_t *total_bytes, g16_error *err)
{
    size_t f = 0, t = 0;
    g16_status st = fk_call("cudaMemGetInfo(&f, &t)", err);
    if (st == G16_OK)
        mem_info(g, &f, &t);
    if (free_bytes)
        *free_bytes = f;
    if (total_bytes)
        *total_bytes = t;
    return st;
}

/* A record of `bytes` on g's device if they fit: with memory (REC_DEV, poisoned) or counted only. */
static g16_status take(g16__gpu *g, rec **out, size_t bytes, const char *what, int with_memory, g16_error *err)
{
    size_t f, t;
    *out = NULL;
    mem_info(g, &f, &t);
    if (bytes > f)
        return g16__error(err, G16_ERR_NOMEM, "allocating %s (%zu bytes): gpu: cudaMalloc: out of device memory (%zu "
                          "bytes free of %zu)", what ? what : "a buffer", bytes, f, t);
    rec *r = calloc(1, sizeof *r);
    if (!r)
        return g16__error(err, G16_ERR_NOMEM, "fake gpu: record");
    if (with_memory) {
        void *p = NULL;
        if (posix_memalign(&p, 256, bytes ? bytes : 1) != 0) {
            free(r);
            return g16__error(err, G16_ERR_NOMEM, "fake gpu: %zu bytes of host memory for %s", bytes,
                              what ? what : "a buffer");
        }
        poison(p, bytes);
        r->p = p;
    }
    r->kind = with_memory ? REC_DEV : REC_COUNTED;
    r->dev = g->dev;
    r->bytes = bytes;
    r->what = what;
    rec_add(r);
    *out = r;
    return G16_OK;
}

g16_status g16__gpu_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err)
{
    rec *r = NULL;
    g16_status st;
    *dev = NULL;
    pthread_mutex_lock(&fk_mu);
    const char *named = fk_fail_named;
    pthread_mutex_unlock(&fk_mu);
    if (named && what && !strncmp(what, named, strlen(named)))
        return g16__error(err, G16_ERR_NOMEM, "allocating %s (%zu bytes): gpu: cudaMalloc: out of device memory "
                          "(injected failure by name)", what, bytes);
    if ((st = fk_call("cudaMalloc", err)) != G16_OK || (st = take(g, &r, bytes, what, 1, err)) != G16_OK)
        return st;
    *dev = r->p;
    return G16_OK;
}

static void free_dev(g16__gpu *g, void *dev, const char *what)
{
    if (!dev)
        return;
    rec *r = rec_take(REC_DEV, dev, NULL, what);
    if (r->dev != g->dev)
        die("%s of %p: a buffer of device %d freed through a context of device %d", what, dev, r->dev, g->dev);
    free(r->p);
    free(r);
}

void g16__gpu_free(g16__gpu *g, void *dev)
{
    if (!dev)
        return;
    flush_all(g); /* cudaFree waits for the device */
    main_done(g);
    free_dev(g, dev, "g16__gpu_free");
}

g16_status g16__gpu_scratch_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err)
{
    return g16__gpu_alloc(g, dev, bytes, what, err);
}

void g16__gpu_scratch_free(g16__gpu *g, void *dev) { free_dev(g, dev, "g16__gpu_scratch_free"); }

g16_status g16__gpu_host_alloc(void **host, size_t bytes, g16_error *err)
{
    g16_status st;
    *host = NULL;
    if ((st = fk_call("cudaHostAlloc", err)) != G16_OK)
        return st;
    rec *r = calloc(1, sizeof *r);
    unsigned char *p = malloc(bytes ? bytes : 1);
    if (!r || !p) {
        free(r), free(p);
        return g16__error(err, G16_ERR_NOMEM, "gpu: cudaHostAlloc of %zu bytes", bytes);
    }
    poison(p, bytes);
    r->kind = REC_HOST;
    r->dev = -1;
    r->p = p;
    r->bytes = bytes;
    rec_add(r);
    *host = p;
    return G16_OK;
}

void g16__gpu_host_free(void *host)
{
    if (!host)
        return;
    rec *r = rec_take(REC_HOST, host, NULL, "g16__gpu_host_free");
    free(r->p);
    free(r);
}

g16_status g16__gpu_host_register(void **token, const void *host, size_t bytes, g16_error *err)
{
    g16_status st;
    *token = NULL;
    if ((st = fk_call("cudaHostRegister", err)) != G16_OK)
        return st;
    if (bytes == 0)
        return G16_OK;
    if (!host)
        return g16__error(err, G16_ERR_ARG, "gpu: registering NULL");
    rec *r = calloc(1, sizeof *r);
    if (!r)
        return g16__error(err, G16_ERR_NOMEM, "fake gpu: record");
    r->kind = REC_REG;
    r->dev = -1;
    r->p = (unsigned char *)(uintptr_t)host;
    r->bytes = bytes;
    rec_add(r);
    *token = r;
    return G16_OK;
}

void g16__gpu_host_unregister(void *token)
{
    if (token)
        free(rec_take(REC_REG, NULL, token, "g16__gpu_host_unregister"));
}

g16_status g16__gpu_upload(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    g16_status st = fk_call("cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->stream)", err);
    if (st != G16_OK)
        return st;
    need_range(g, dev, bytes, "g16__gpu_upload", 1);
    if (bytes)
        memcpy(dev, host, bytes);
    return G16_OK;
}

g16_status g16__gpu_download(g16__gpu *g, void *host, const void *dev, size_t bytes, g16_error *err)
{
    g16_status st = fk_call("cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, g->stream)", err);
    if (st != G16_OK)
        return st;
    need_range(g, dev, bytes, "g16__gpu_download", 1);
    if (bytes)
        memcpy(host, dev, bytes);
    return G16_OK;
}

g16_status g16__gpu_upload_side(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    g16_status st = fk_call("cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->side)", err);
    if (st != G16_OK)
        return st;
    need_range(g, dev, bytes, "g16__gpu_upload_side", 0);
    side_after_main(g, dev, bytes, "g16__gpu_upload_side");
    flush_all(g); /* the side stream's earlier copies first; the main stream waits for them all */
    if (bytes)
        memcpy(dev, host, bytes);
    return G16_OK;
}

g16_status g16__gpu_upload_side_nowait(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    g16_status st = fk_call("cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->side)", err);
    if (st != G16_OK)
        return st;
    need_range(g, dev, bytes, "g16__gpu_upload_side_nowait", 0);
    if (!bytes)
        return G16_OK;
    side_after_main(g, dev, bytes, "g16__gpu_upload_side_nowait");
    pthread_mutex_lock(&g->mu);
    int ok = pend_push(&g->pending, &g->npend, &g->cap, (pend){dev, host, bytes, g->side_seq + 1});
    g->side_seq += (uint64_t)ok;
    __atomic_fetch_add(&fk_held, (size_t)ok, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&g->mu);
    if (!ok)
        return g16__error(err, G16_ERR_NOMEM, "fake gpu: side queue");
    return G16_OK;
}

g16_status g16__gpu_copy(g16__gpu *g, void *dst, const void *src, size_t bytes, g16_error *err)
{
    g16_status st = fk_call("cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream)", err);
    if (st != G16_OK)
        return st;
    need_range(g, dst, bytes, "g16__gpu_copy (destination)", 1);
    need_range(g, src, bytes, "g16__gpu_copy (source)", 1);
    if (bytes && (const unsigned char *)src < (unsigned char *)dst + bytes &&
        (unsigned char *)dst < (const unsigned char *)src + bytes && dst != src)
        die("g16__gpu_copy: overlapping ranges [%p, +%zu) and [%p, +%zu)", dst, bytes, src, bytes);
    if (bytes)
        memmove(dst, src, bytes);
    return G16_OK;
}

g16_status g16__gpu_event_create(g16__gpu_event **out, g16__gpu *g, g16_error *err)
{
    g16_status st;
    *out = NULL;
    if ((st = fk_call("cudaEventCreateWithFlags", err)) != G16_OK)
        return st;
    g16__gpu_event *e = calloc(1, sizeof *e);
    if (!e)
        return g16__error(err, G16_ERR_NOMEM, "gpu: event");
    e->g = g;
    obj_add(e, "event");
    *out = e;
    return G16_OK;
}

void g16__gpu_event_destroy(g16__gpu_event *e)
{
    if (!e)
        return;
    obj_del(e, "g16__gpu_event_destroy");
    free(e);
}

g16_status g16__gpu_event_record_side(g16__gpu_event *e, g16_error *err)
{
    g16_status st = fk_call("cudaEventRecord(e->ev, g->side)", err);
    if (st != G16_OK)
        return st;
    pthread_mutex_lock(&e->g->mu);
    e->mark = e->g->side_seq;
    e->recorded = 1;
    e->t_ms = now_ms();
    pthread_mutex_unlock(&e->g->mu);
    return G16_OK;
}

/* (the timing calls are not counted among the fallible ones: a profile must not move the fault
 * tests' failure points) */
g16_status g16__gpu_event_create_timed(g16__gpu_event **out, g16__gpu *g, g16_error *err)
{
    g16_status st = g16__gpu_event_create(out, g, err);
    if (st == G16_OK)
        (*out)->timed = 1;
    return st;
}

g16_status g16__gpu_event_record_main(g16__gpu_event *e, g16_error *err)
{
    (void)err;
    pthread_mutex_lock(&e->g->mu);
    e->recorded = 1;
    e->t_ms = now_ms();
    pthread_mutex_unlock(&e->g->mu);
    return G16_OK;
}

g16_status g16__gpu_event_ms(const g16__gpu_event *from, const g16__gpu_event *to, float *ms, g16_error *err)
{
    *ms = 0;
    if (!from->timed || !to->timed || !from->recorded || !to->recorded)
        return g16__error(err, G16_ERR_ARG, "gpu: elapsed time between events that are not timed and recorded");
    *ms = (float)(to->t_ms - from->t_ms);
    return G16_OK;
}

g16_status g16__gpu_event_sync(g16__gpu_event *e, g16_error *err)
{
    g16_status st = fk_call("cudaEventSynchronize(e->ev)", err);
    if (st != G16_OK)
        return st;
    pthread_mutex_lock(&e->g->mu);
    uint64_t mark = e->recorded ? e->mark : 0;
    pthread_mutex_unlock(&e->g->mu);
    flush(e->g, mark);
    return G16_OK;
}

/* ---------------------------------------------------------------- compaction, checks, SpMV */

struct g16__gpu_compactor {
    g16__gpu *g;
    size_t max_n;
    rec *scratch;
};

size_t g16__gpu_compactor_bytes(size_t max_n) { return ((max_n + 63) / 64 + 1) * 8 + ((size_t)1 << 20); }

g16_status g16__gpu_compactor_create(g16__gpu_compactor **out, g16__gpu *g, size_t max_n, g16_error *err)
{
    g16_status st;
    g16__gpu_compactor *c = NULL;
    *out = NULL;
    if ((st = fk_call("cudaMalloc", err)) != G16_OK)
        goto cleanup;
    if (max_n >= ((size_t)1 << 32) - 64) {
        st = g16__error(err, G16_ERR_UNSUPPORTED, "gpu compact: %zu elements (at most 2^32 - 65)", max_n);
        goto cleanup;
    }
    if (!(c = calloc(1, sizeof *c))) {
        st = g16__error(err, G16_ERR_NOMEM, "gpu compact: handle");
        goto cleanup;
    }
    c->g = g;
    c->max_n = max_n;
    if ((st = take(g, &c->scratch, g16__gpu_compactor_bytes(max_n), "compaction scratch", 0, err)) != G16_OK)
        goto cleanup;
    obj_add(c, "compactor");
    *out = c;
    c = NULL;
cleanup:
    free(c);
    return st;
}

void g16__gpu_compactor_destroy(g16__gpu_compactor *c)
{
    if (!c)
        return;
    free(rec_take(REC_COUNTED, NULL, c->scratch, "g16__gpu_compactor_destroy"));
    obj_del(c, "g16__gpu_compactor_destroy");
    free(c);
}

g16_status g16__gpu_compact(g16__gpu_compactor *c, g16_fr *out, const g16_fr *src, size_t n, const uint64_t *bits,
                            size_t *count, g16_error *err)
{
    g16_status st = fk_call("g16_compact_kernel<<<...>>>", err);
    size_t k = 0;
    *count = 0;
    if (st != G16_OK)
        return st;
    if (n > c->max_n)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "gpu compact: %zu elements, the compactor holds %zu", n,
                          c->max_n);
    need_range(c->g, src, n * sizeof *src, "g16__gpu_compact (source)", 1);
    need_range(c->g, bits, (n + 63) / 64 * 8, "g16__gpu_compact (bitmap)", 1);
    for (size_t i = 0; i < n; i++)
        k += bits[i / 64] >> (i % 64) & 1;
    need_range(c->g, out, k * sizeof *out, "g16__gpu_compact (output)", 1);
    if (k && (const void *)src < (const void *)(out + k) && (const void *)out < (const void *)(src + n))
        die("g16__gpu_compact: output overlaps the source");
    for (size_t i = 0, j = 0; i < n; i++)
        if (bits[i / 64] >> (i % 64) & 1)
            out[j++] = src[i];
    *count = k;
    main_done(c->g); /* (returns synchronized: k is read back) */
    return G16_OK;
}

g16_status g16__gpu_check_products(g16__gpu *g, const g16_fr *a, const g16_fr *b, const g16_fr *c, uint64_t rows,
                                   uint64_t *first_bad, g16_error *err)
{
    g16_status st = fk_call("g16_check_kernel<<<...>>>", err);
    if (st != G16_OK)
        return st;
    need_range(g, a, rows * sizeof *a, "g16__gpu_check_products (a)", 1);
    need_range(g, b, rows * sizeof *b, "g16__gpu_check_products (b)", 1);
    need_range(g, c, rows * sizeof *c, "g16__gpu_check_products (c)", 1);
    need_range(g, first_bad, sizeof *first_bad, "g16__gpu_check_products (result)", 1);
    *first_bad = UINT64_MAX;
    for (uint64_t i = 0; i < rows; i++) {
        g16_fr t;
        g16__fr_mul(&t, &a[i], &b[i]);
        if (memcmp(&t, &c[i], sizeof t) != 0) {
            *first_bad = i;
            break;
        }
    }
    return G16_OK;
}

/* Elements of `size` bytes from p to the end of its buffer (p must be in one). */
static size_t room(g16__gpu *g, const void *p, size_t size, const char *what)
{
    rec *r = rec_find(g->dev, p, size);
    if (!r)
        die("%s: %p is not inside a live buffer of device %d", what, p, g->dev);
    size_t n = (r->bytes - (size_t)((const unsigned char *)p - r->p)) / size;
    need_range(g, p, n * size, what, 1); /* (the race check, over the rest of the buffer) */
    return n;
}

g16_status g16__gpu_spmv(g16__gpu *g, g16_fr *out, uint64_t n_out, uint64_t rows, const uint32_t *rp32,
                         const uint64_t *rp64, const uint32_t *words, const g16_fr *coeffs, const g16_fr *w,
                         g16_error *err)
{
    g16_status st = fk_call("g16_spmv_kernel<<<...>>>", err);
    if (st != G16_OK)
        return st;
    if (!rp32 == !rp64 || rows > n_out)
        return g16__error(err, G16_ERR_ARG, "gpu spmv: exactly one row-pointer array and rows <= n_out");
    need_range(g, out, n_out * sizeof *out, "g16__gpu_spmv (out)", 1);
    if (rp32)
        need_range(g, rp32, (rows + 1) * 4, "g16__gpu_spmv (row pointers)", 1);
    else
        need_range(g, rp64, (rows + 1) * 8, "g16__gpu_spmv (row pointers)", 1);
    uint64_t end = rp32 ? rp32[rows] : rp64[rows];
    need_range(g, words, end * 4, "g16__gpu_spmv (entries)", 1);
    size_t wcap = room(g, w, sizeof *w, "g16__gpu_spmv (witness)"), ccap = 0;
    for (uint64_t i = 0; i < rows; i++) {
        uint64_t k = rp32 ? rp32[i] : rp64[i], stop = rp32 ? rp32[i + 1] : rp64[i + 1];
        g16_fr sum = {{0}}, t;
        if (k > stop || stop > end)
            die("g16__gpu_spmv: row %llu's entries [%llu, %llu) out of order or past %llu", (unsigned long long)i,
                (unsigned long long)k, (unsigned long long)stop, (unsigned long long)end);
        while (k < stop) {
            uint32_t e = words[k++], col = e & 0x3fffffffu, kind = e >> 30;
            if (col >= wcap)
                die("g16__gpu_spmv: row %llu reads column %u past the witness buffer", (unsigned long long)i, col);
            if (kind == 0) {
                g16__fr_add(&sum, &sum, &w[col]);
            } else if (kind == 1) {
                g16__fr_sub(&sum, &sum, &w[col]);
            } else if (kind == 2 && k < stop) {
                uint32_t id = words[k++];
                if (!ccap)
                    ccap = room(g, coeffs, sizeof *coeffs, "g16__gpu_spmv (coefficients)");
                if (id >= ccap || id >= 0x80000000u)
                    die("g16__gpu_spmv: row %llu names coefficient %u past the table", (unsigned long long)i, id);
                g16__fr_mul(&t, &coeffs[id], &w[col]);
                g16__fr_add(&sum, &sum, &t);
            } else {
                die("g16__gpu_spmv: row %llu has a malformed entry %#x", (unsigned long long)i, e);
            }
        }
        out[i] = sum;
    }
    memset(out + rows, 0, (size_t)(n_out - rows) * sizeof *out);
    return G16_OK;
}

/* ---------------------------------------------------------------- field arithmetic */

/* The element-wise kernels and the throughput benchmark only test the device's arithmetic
 * (test_gpu_field, bench_gpu_ntt): on the fake that would check the CPU against itself. */
g16_status g16__gpu_fr_op(g16__gpu *g, g16__gpu_op op, g16_fr *out, const g16_fr *a, const g16_fr *b, size_t n,
                          g16_error *err)
{
    (void)g, (void)op, (void)out, (void)a, (void)b, (void)n;
    return g16__error(err, G16_ERR_UNSUPPORTED, "fake gpu: no element-wise kernels");
}

g16_status g16__gpu_fp_op(g16__gpu *g, g16__gpu_op op, g16_fp *out, const g16_fp *a, const g16_fp *b, size_t n,
                          g16_error *err)
{
    (void)g, (void)op, (void)out, (void)a, (void)b, (void)n;
    return g16__error(err, G16_ERR_UNSUPPORTED, "fake gpu: no element-wise kernels");
}

g16_status g16__gpu_mul_bench(g16__gpu *g, int field, unsigned iters, double *per_s, uint32_t *check,
                              g16_error *err)
{
    (void)g, (void)field, (void)iters;
    if (per_s)
        *per_s = 0;
    if (check)
        *check = 0;
    return g16__error(err, G16_ERR_UNSUPPORTED, "fake gpu: no throughput benchmark");
}

/* ---------------------------------------------------------------- NTT */

struct g16__gpu_ntt {
    g16__gpu *g;
    g16__ntt_domain *d;
    rec *tables;
};

g16_status g16__gpu_ntt_create(g16__gpu_ntt **out, g16__gpu *g, unsigned log_n, const g16_fr *root_generator,
                               const g16_fr *coset_shift, g16_error *err)
{
    g16_status st;
    g16__gpu_ntt *d = NULL;
    *out = NULL;
    if ((st = fk_call("cudaMalloc", err)) != G16_OK)
        goto cleanup;
    if (!(d = calloc(1, sizeof *d))) {
        st = g16__error(err, G16_ERR_NOMEM, "gpu ntt: handle");
        goto cleanup;
    }
    d->g = g;
    if ((st = g16__ntt_domain_create(&d->d, log_n, root_generator, coset_shift, err)) != G16_OK)
        goto cleanup;
    if ((st = take(g, &d->tables, g16__gpu_ntt_table_bytes(log_n), "NTT tables", 0, err)) != G16_OK)
        goto cleanup;
    obj_add(d, "NTT domain");
    *out = d;
    d = NULL;
cleanup:
    if (d) {
        g16__ntt_domain_destroy(d->d);
        free(d);
    }
    return st;
}

void g16__gpu_ntt_destroy(g16__gpu_ntt *d)
{
    if (!d)
        return;
    free(rec_take(REC_COUNTED, NULL, d->tables, "g16__gpu_ntt_destroy"));
    g16__ntt_domain_destroy(d->d);
    obj_del(d, "g16__gpu_ntt_destroy");
    free(d);
}

unsigned g16__gpu_ntt_log_n(const g16__gpu_ntt *d) { return d->d->log_n; }

g16_status g16__gpu_ntt_set_threads(g16__gpu_ntt *d, unsigned threads)
{
    (void)d;
    return threads >= 32 && threads <= 512 && threads % 32 == 0 ? G16_OK : G16_ERR_ARG;
}

g16_status g16__gpu_ntt_set_radix(g16__gpu_ntt *d, unsigned stages)
{
    (void)d;
    return stages >= 1 && stages <= 3 ? G16_OK : G16_ERR_ARG;
}

g16_status g16__gpu_ntt_set_radix_fused(g16__gpu_ntt *d, unsigned stages)
{
    (void)d;
    return stages <= 3 ? G16_OK : G16_ERR_ARG;
}

void g16__gpu_ntt_set_uniform(g16__gpu_ntt *d, int on) { (void)d, (void)on; }

static void ntt_kind(const g16__ntt_domain *d, g16__gpu_ntt_kind kind, g16_fr *x)
{
    switch (kind) {
    case G16__GPU_NTT_FORWARD: g16__ntt_forward(d, x); break;
    case G16__GPU_NTT_INVERSE: g16__ntt_inverse(d, x); break;
    case G16__GPU_NTT_COSET_FORWARD: g16__ntt_coset_forward(d, x); break;
    default: g16__ntt_coset_inverse(d, x); break;
    }
}

static g16_status ntt_vectors(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count, int device,
                              g16_error *err)
{
    g16_status st = fk_call(device ? "g16_ntt_pass<<<...>>>" : "cudaMemcpy", err);
    if (st != G16_OK)
        return st;
    if ((unsigned)kind >= G16__GPU_NTT_KIND_COUNT)
        return g16__error(err, G16_ERR_ARG, "gpu ntt: unknown transform %d", (int)kind);
    for (size_t i = 0; i < count; i++) {
        if (device)
            need_range(d->g, x[i], d->d->n * sizeof(g16_fr), "g16__gpu_ntt_device", 1);
        for (size_t j = 0; j < i; j++)
            if (x[i] < x[j] + d->d->n && x[j] < x[i] + d->d->n)
                die("g16__gpu_ntt: vectors %zu and %zu overlap", j, i);
    }
    for (size_t i = 0; i < count; i++)
        ntt_kind(d->d, kind, x[i]);
    return G16_OK;
}

g16_status g16__gpu_ntt_device(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                               g16_error *err)
{
    return ntt_vectors(d, kind, x, count, 1, err);
}

g16_status g16__gpu_ntt_host(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                             g16_error *err)
{
    return ntt_vectors(d, kind, x, count, 0, err);
}

/* The H step's pieces on device vectors (checked, main stream); scratch outputs poisoned. */
static void h_vec(g16__gpu_ntt *d, g16_fr *x, const char *what)
{
    need_range(d->g, x, d->d->n * sizeof *x, what, 1);
}

static void h_to_coset(g16__gpu_ntt *d, g16_fr *x)
{
    g16__ntt_inverse(d->d, x);
    g16__ntt_coset_forward(d->d, x);
}

/* a <- (a - c)/Z, H's coefficients: a holds a·b's coset values through the coset inverse, c its
 * evaluations (taken to coefficients here; Z is g^n - 1 at every point of the coset) */
static void h_finish(g16__gpu_ntt *d, g16_fr *a, g16_fr *c)
{
    g16__ntt_inverse(d->d, c);
    for (size_t i = 0; i < d->d->n; i++) {
        g16__fr_sub(&a[i], &a[i], &c[i]);
        g16__fr_mul(&a[i], &a[i], &d->d->z_coset_inv);
    }
}

static void mul_pointwise(g16__gpu_ntt *d, g16_fr *a, const g16_fr *b)
{
    for (size_t i = 0; i < d->d->n; i++)
        g16__fr_mul(&a[i], &a[i], &b[i]);
}

/* a <- a·b pointwise, then through the coset inverse: the state gpu.h gives a between the H step's
 * two halves (the device's order of it is its own; nothing reads a there) */
static void h_mul_into(g16__gpu_ntt *d, g16_fr *a, const g16_fr *b)
{
    mul_pointwise(d, a, b);
    g16__ntt_coset_inverse(d->d, a);
}

g16_status g16__gpu_ntt_groth16_h_device(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c, g16_error *err)
{
    g16_status st = fk_call("g16_ntt_h<<<...>>>", err);
    if (st != G16_OK)
        return st;
    h_vec(d, a, "g16__gpu_ntt_groth16_h_device (a)");
    h_vec(d, b, "g16__gpu_ntt_groth16_h_device (b)");
    h_vec(d, c, "g16__gpu_ntt_groth16_h_device (c)");
    g16__ntt_groth16_h(d->d, a, b, c);
    poison(b, d->d->n * sizeof *b);
    poison(c, d->d->n * sizeof *c);
    return G16_OK;
}

g16_status g16__gpu_ntt_h_ab(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err)
{
    g16_status st = fk_call("g16_ntt_h_ab<<<...>>>", err);
    if (st != G16_OK)
        return st;
    h_vec(d, a, "g16__gpu_ntt_h_ab (a)");
    h_vec(d, b, "g16__gpu_ntt_h_ab (b)");
    h_to_coset(d, a);
    h_to_coset(d, b);
    h_mul_into(d, a, b);
    poison(b, d->d->n * sizeof *b);
    return G16_OK;
}

g16_status g16__gpu_ntt_h_c(g16__gpu_ntt *d, g16_fr *a, g16_fr *c, g16_error *err)
{
    g16_status st = fk_call("g16_ntt_h_c<<<...>>>", err);
    if (st != G16_OK)
        return st;
    h_vec(d, a, "g16__gpu_ntt_h_c (a)");
    h_vec(d, c, "g16__gpu_ntt_h_c (c)");
    h_finish(d, a, c);
    poison(c, d->d->n * sizeof *c);
    return G16_OK;
}

g16_status g16__gpu_ntt_h_in(g16__gpu_ntt *d, g16_fr *x, g16_error *err)
{
    g16_status st = fk_call("g16_ntt_h_in<<<...>>>", err);
    if (st != G16_OK)
        return st;
    h_vec(d, x, "g16__gpu_ntt_h_in");
    h_to_coset(d, x);
    return G16_OK;
}

g16_status g16__gpu_ntt_h_mul(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err)
{
    g16_status st = fk_call("g16_ntt_h_mul<<<...>>>", err);
    if (st != G16_OK)
        return st;
    h_vec(d, a, "g16__gpu_ntt_h_mul (a)");
    h_vec(d, b, "g16__gpu_ntt_h_mul (b)");
    h_to_coset(d, b);
    h_mul_into(d, a, b);
    poison(b, d->d->n * sizeof *b);
    return G16_OK;
}

g16_status g16__gpu_ntt_h_in_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *keep, g16_error *err)
{
    g16_status st = fk_call("cudaMemcpyAsync(keep, a, DeviceToDevice)", err);
    if (st != G16_OK)
        return st;
    h_vec(d, a, "g16__gpu_ntt_h_in_keep (a)");
    h_vec(d, keep, "g16__gpu_ntt_h_in_keep (keep)");
    memcpy(keep, a, d->d->n * sizeof *keep);
    return g16__gpu_ntt_h_in(d, a, err);
}

g16_status g16__gpu_ntt_h_mul_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *keep, g16_error *err)
{
    g16_status st = fk_call("ntt_mul_into_kernel<<<...>>>", err);
    if (st != G16_OK)
        return st;
    h_vec(d, b, "g16__gpu_ntt_h_mul_keep (b)");
    h_vec(d, keep, "g16__gpu_ntt_h_mul_keep (keep)");
    mul_pointwise(d, keep, b);
    return g16__gpu_ntt_h_mul(d, a, b, err);
}

g16_status g16__gpu_ntt_profile(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *x, g16_fr *b, g16_fr *c,
                                double *ms, char (*what)[64], size_t cap, size_t *count, g16_error *err)
{
    (void)d, (void)kind, (void)x, (void)b, (void)c, (void)ms, (void)what, (void)cap;
    *count = 0;
    return g16__error(err, G16_ERR_UNSUPPORTED, "fake gpu: no launch profile");
}

g16_status g16__gpu_ntt_groth16_h_host(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c, g16_error *err)
{
    g16_status st = fk_call("cudaMemcpy", err);
    if (st == G16_OK)
        g16__ntt_groth16_h(d->d, a, b, c);
    return st;
}

/* ---------------------------------------------------------------- MSM */

struct g16__gpu_msm {
    g16__gpu *g;
    int g2, view;
    size_t n;
    unsigned char *bases; /* device buffer (a view: borrowed) */
    rec *scratch;         /* counted at g16__gpu_msm_scratch_bytes_opts (the run's), kept between runs */
};

static size_t aff_size(int g2) { return g2 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine); }

static g16_status msm_create(g16__gpu_msm **out, g16__gpu *g, int g2, const void *bases, size_t n, g16_error *err)
{
    g16_status st;
    g16__gpu_msm *m = NULL;
    void *dev = NULL;
    if (!out)
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL output pointer");
    *out = NULL;
    if (!g || (!bases && n > 0))
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL context or bases");
    if (n > G16__GPU_MSM_MAX_POINTS)
        return g16__error(err, G16_ERR_UNSUPPORTED, "gpu msm: %zu bases (at most 2^31 - 1)", n);
    if (!(m = calloc(1, sizeof *m)))
        return g16__error(err, G16_ERR_NOMEM, "gpu msm: handle");
    /* the bases and the infinity bitmap of the real backend, in one buffer */
    if ((st = g16__gpu_alloc(g, &dev, n * aff_size(g2) + (n + 31) / 32 * 4, "MSM bases", err)) != G16_OK)
        goto cleanup;
    if (n)
        memcpy(dev, bases, n * aff_size(g2));
    m->g = g;
    m->g2 = g2;
    m->n = n;
    m->bases = dev;
    dev = NULL;
    obj_add(m, "MSM handle");
    *out = m;
    m = NULL;
cleanup:
    if (dev)
        g16__gpu_free(g, dev);
    free(m);
    return st;
}

g16_status g16__gpu_msm_create_p1(g16__gpu_msm **out, g16__gpu *g, const g16_p1_affine *bases, size_t n,
                                  g16_error *err)
{
    return msm_create(out, g, 0, bases, n, err);
}

g16_status g16__gpu_msm_create_p2(g16__gpu_msm **out, g16__gpu *g, const g16_p2_affine *bases, size_t n,
                                  g16_error *err)
{
    return msm_create(out, g, 1, bases, n, err);
}

g16_status g16__gpu_msm_create_side(g16__gpu_msm **out, g16__gpu *g, int g2, const void *bases, size_t n,
                                    g16_error *err)
{
    return msm_create(out, g, g2 != 0, bases, n, err);
}

static g16_status msm_create_random(g16__gpu_msm **out, g16__gpu *g, int g2, size_t n, uint64_t seed,
                                    g16_error *err)
{
    void *t = malloc(n ? n * aff_size(g2) : 1);
    if (!t)
        return g16__error(err, G16_ERR_NOMEM, "fake gpu: random bases");
    g16__gpu_msm_random_table(t, g2, n, seed);
    g16_status st = msm_create(out, g, g2, t, n, err);
    free(t);
    return st;
}

g16_status g16__gpu_msm_create_random_p1(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed, g16_error *err)
{
    return msm_create_random(out, g, 0, n, seed, err);
}

g16_status g16__gpu_msm_create_random_p2(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed, g16_error *err)
{
    return msm_create_random(out, g, 1, n, seed, err);
}

g16_status g16__gpu_msm_view(g16__gpu_msm **out, g16__gpu_msm *m, size_t first, size_t count, g16_error *err)
{
    if (!out)
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL output pointer");
    *out = NULL;
    if (!m || first % 32 || first > m->n || count > m->n - first)
        return g16__error(err, G16_ERR_ARG, "gpu msm: bad view [%zu, +%zu) of %zu bases (the first a multiple of 32)",
                          first, count, m ? m->n : 0);
    g16__gpu_msm *v = calloc(1, sizeof *v);
    if (!v)
        return g16__error(err, G16_ERR_NOMEM, "gpu msm: view handle");
    v->g = m->g;
    v->g2 = m->g2;
    v->n = count;
    v->bases = m->bases + first * aff_size(m->g2);
    v->view = 1;
    obj_add(v, "MSM view");
    *out = v;
    return G16_OK;
}

g16_status g16__gpu_msm_download_bases(g16__gpu_msm *m, void *host, size_t first, size_t count, g16_error *err)
{
    g16_status st;
    if (!m || (!host && count > 0) || first > m->n || count > m->n - first)
        return g16__error(err, G16_ERR_ARG, "gpu msm: bad base range [%zu, +%zu)", first, count);
    if (count == 0)
        return G16_OK;
    st = g16__gpu_download(m->g, host, m->bases + first * aff_size(m->g2), count * aff_size(m->g2), err);
    return st == G16_OK ? g16__gpu_sync(m->g, err) : st;
}

void g16__gpu_msm_release_scratch(g16__gpu_msm *m)
{
    if (m && m->scratch) {
        free(rec_take(REC_COUNTED, NULL, m->scratch, "g16__gpu_msm_release_scratch"));
        m->scratch = NULL;
    }
}

void g16__gpu_msm_destroy(g16__gpu_msm *m)
{
    if (!m)
        return;
    g16__gpu_msm_release_scratch(m);
    if (!m->view)
        g16__gpu_free(m->g, m->bases);
    obj_del(m, "g16__gpu_msm_destroy");
    free(m);
}

size_t g16__gpu_msm_size(const g16__gpu_msm *m) { return m ? m->n : 0; }

static g16_status check_opts(const g16__gpu_msm_opts *o, g16_error *err)
{
    if (!o)
        return G16_OK;
    if ((o->window && (o->window < 2 || o->window > 22)) || (o->carry_per && o->carry_per < 4) || o->lanes > 64 ||
        o->tree > 31 || (o->tree_k && (o->tree_k < 4 || o->tree_k > 32)) || o->upload_chunks > 8)
        return g16__error(err, G16_ERR_ARG, "gpu msm: bad options (window %u, carry %u, lanes %u, tree %u / %u, "
                          "upload chunks %u)", o->window, o->carry_per, o->lanes, o->tree, o->tree_k,
                          o->upload_chunks);
    return G16_OK;
}

static g16_status msm_run(g16__gpu_msm *m, int g2, void *out, const g16_fr *scalars, size_t nsets,
                          const g16__gpu_msm_opts *opts, g16_error *err)
{
    g16_status st;
    void *res = NULL;
    size_t n = m ? m->n : 0, need;
    if (!m || !out || (!scalars && n && nsets))
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL handle, output or scalars");
    if (m->g2 != g2)
        return g16__error(err, G16_ERR_ARG, "gpu msm: a %s handle run as %s", m->g2 ? "G2" : "G1", g2 ? "G2" : "G1");
    if ((st = check_opts(opts, err)) != G16_OK)
        return st;
    need = g16__gpu_msm_scratch_bytes_opts(n, g2, opts && opts->device_scalars, opts ? opts->windows_per_pass : 0);
    if (!m->scratch || m->scratch->bytes < need) {
        g16__gpu_msm_release_scratch(m);
        if ((st = fk_call("cudaMallocFromPoolAsync", err)) != G16_OK ||
            (st = take(m->g, &m->scratch, need, "MSM scratch", 0, err)) != G16_OK) {
            g16__error_prefix(err, "gpu msm (%zu %s bases): ", n, g2 ? "G2" : "G1");
            return st;
        }
    }
    /* the kernels fail after the scratch is taken, as msm.cu's do (fixed_alloc and pip_ensure first):
     * a failed run keeps its handle's scratch */
    if ((st = fk_call("g16_msm_accumulate<<<...>>>", err)) != G16_OK)
        return st;
    if (opts && opts->device_scalars)
        need_range(m->g, scalars, nsets * n * sizeof *scalars, "g16__gpu_msm_run (device scalars)", 1);
    need_range(m->g, m->bases, n * aff_size(g2), "g16__gpu_msm_run (bases)", 1);
    if (!(res = malloc(nsets ? nsets * (g2 ? sizeof(g16_p2) : sizeof(g16_p1)) : 1)))
        return g16__error(err, G16_ERR_NOMEM, "fake gpu: results");
    for (size_t s = 0; s < nsets && st == G16_OK; s++) {
        const g16_fr *k = scalars + s * n;
        uint64_t others = 0;
        for (size_t i = 0; i < n; i++) {
            int inf = g2 ? g16__p2_affine_is_infinity((const g16_p2_affine *)m->bases + i)
                         : g16__p1_affine_is_infinity((const g16_p1_affine *)m->bases + i);
            others += !inf && !g16__fr_is_zero(&k[i]) && !g16__fr_is_one(&k[i]);
        }
        if (opts && opts->nothers)
            opts->nothers[s] = others;
        if (g2) {
            g16_p2 r;
            g16_p2_affine a;
            st = g16__p2_msm_var(&r, (const g16_p2_affine *)m->bases, k, n, NULL, err);
            g16__p2_to_affine(&a, &r);
            g16__p2_from_affine((g16_p2 *)res + s, &a);
        } else {
            g16_p1 r;
            g16_p1_affine a;
            st = g16__p1_msm_var(&r, (const g16_p1_affine *)m->bases, k, n, NULL, err);
            g16__p1_to_affine(&a, &r);
            g16__p1_from_affine((g16_p1 *)res + s, &a);
        }
    }
    if (st == G16_OK && nsets)
        memcpy(out, res, nsets * (g2 ? sizeof(g16_p2) : sizeof(g16_p1)));
    if (st == G16_OK)
        main_done(m->g); /* (synchronous) */
    free(res);
    return st;
}

g16_status g16__gpu_msm_run_p1(g16__gpu_msm *m, g16_p1 *out, const g16_fr *scalars, size_t nsets,
                               const g16__gpu_msm_opts *opts, g16_error *err)
{
    return msm_run(m, 0, out, scalars, nsets, opts, err);
}

g16_status g16__gpu_msm_run_p2(g16__gpu_msm *m, g16_p2 *out, const g16_fr *scalars, size_t nsets,
                               const g16__gpu_msm_opts *opts, g16_error *err)
{
    return msm_run(m, 1, out, scalars, nsets, opts, err);
}

static g16_status msm_once(g16__gpu *g, int g2, void *out, const void *bases, const g16_fr *scalars, size_t n,
                           g16_error *err)
{
    g16__gpu_msm *m = NULL;
    g16_status st = msm_create(&m, g, g2, bases, n, err);
    if (st == G16_OK)
        st = msm_run(m, g2, out, scalars, 1, NULL, err);
    g16__gpu_msm_destroy(m);
    return st;
}

g16_status g16__gpu_p1_msm(g16__gpu *g, g16_p1 *out, const g16_p1_affine *bases, const g16_fr *scalars, size_t n,
                           g16_error *err)
{
    return msm_once(g, 0, out, bases, scalars, n, err);
}

g16_status g16__gpu_p2_msm(g16__gpu *g, g16_p2 *out, const g16_p2_affine *bases, const g16_fr *scalars, size_t n,
                           g16_error *err)
{
    return msm_once(g, 1, out, bases, scalars, n, err);
}

g16_status g16__gpu_msm_ab_bench(g16__gpu_msm *m, g16__gpu_ab_bench *b, g16_error *err)
{
    (void)m, (void)b;
    return g16__error(err, G16_ERR_UNSUPPORTED, "fake gpu: no accumulation benchmark");
}
