/*
 * Tracing: see trace.h. Recording side first (per-thread buffers), then the analysis that the
 * report, the query and the JSON writer share (snapshot -> parents -> coverage -> name paths).
 */
#define _GNU_SOURCE
#include "util/trace.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

unsigned g16__trace_flags;

#define CHUNK_SHIFT 9
#define CHUNK_RECS (1u << CHUNK_SHIFT)
#define SLOT_SHIFT 40 /* handle = slot << 40 | (record number + 1) */
#define IDX_MASK ((UINT64_C(1) << SLOT_SHIFT) - 1)
#define NAME_MAX_LEN 32
#define MAX_WARNINGS 10

enum { REC_HAS_N = 1, REC_AUTOCLOSED = 2, REC_OPEN = 4 };

typedef struct {
    const char *name;
    int64_t t0, t1; /* ns since the trace epoch; t1 < 0 while open */
    int32_t parent; /* index of the parent in the same buffer; -1 for none */
    uint16_t flags;
    uint16_t nmetric;
    uint64_t n;
    char detail[G16__TRACE_DETAIL_MAX];
    const char *mkey[G16__TRACE_METRICS];
    uint64_t mval[G16__TRACE_METRICS];
} rec;

/* One per thread that ever recorded a span; lives in the registry list until a reset finds its
 * thread dead. `mu` guards everything below it; the owner thread is its only writer outside
 * resets, so the lock is uncontended except while a report copies the records. */
typedef struct tbuf {
    struct tbuf *next; /* registry list (guarded by reg_mu) */
    pthread_mutex_t mu;
    uint64_t slot; /* registration number, part of every handle */
    uint64_t base; /* records discarded by resets before index 0 */
    rec **chunks;
    size_t nchunks, cap_chunks;
    uint32_t count, depth;
    int32_t stack[G16__TRACE_MAX_DEPTH]; /* open spans, innermost last */
    long tid;
    int role, alive;
    char name[NAME_MAX_LEN];
} tbuf;

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static tbuf *reg_head;
static uint64_t reg_next_slot = 1;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static pthread_key_t exit_key;
static int exit_key_ok;
static _Thread_local tbuf *tl_tb;
static _Thread_local char tl_name[NAME_MAX_LEN];
static _Thread_local int tl_role;
static int64_t epoch_mono_ns, epoch_real_ns;
static uint64_t n_errors, n_dropped, n_warned;
static char exit_json_path[4096];
static int forked_child; /* set in a child of fork(): records and locks there are stale */

static int64_t clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC) - epoch_mono_ns; }

static long os_tid(void) { return (long)syscall(SYS_gettid); }

static void warn(const char *fmt, const char *a, const char *b)
{
    __atomic_fetch_add(&n_errors, 1, __ATOMIC_RELAXED);
    if (__atomic_fetch_add(&n_warned, 1, __ATOMIC_RELAXED) < MAX_WARNINGS) {
        fputs("g16 trace: ", stderr);
        fprintf(stderr, fmt, a ? a : "?", b ? b : "?");
        fputc('\n', stderr);
    }
}

static rec *rec_at(tbuf *tb, uint32_t i) { return &tb->chunks[i >> CHUNK_SHIFT][i & (CHUNK_RECS - 1)]; }

/* ---------------------------------------------------------------- recording */

static void close_open(tbuf *tb, uint32_t down_to, int64_t t)
{
    while (tb->depth > down_to) {
        rec *r = rec_at(tb, (uint32_t)tb->stack[--tb->depth]);
        r->t1 = t;
        r->flags |= REC_AUTOCLOSED;
    }
}

/* Thread exit (pthread key destructor): spans left open are closed as autoclosed. */
static void on_thread_exit(void *p)
{
    tbuf *tb = p;
    char name[NAME_MAX_LEN];
    pthread_mutex_lock(&tb->mu);
    uint32_t open = tb->depth;
    const char *inner = open ? rec_at(tb, (uint32_t)tb->stack[open - 1])->name : NULL;
    memcpy(name, tb->name, sizeof name);
    close_open(tb, 0, now_ns());
    tb->alive = 0; /* from here a reset may free tb */
    pthread_mutex_unlock(&tb->mu);
    tl_tb = NULL;
    if (open)
        warn("thread %s exited with span '%s' (and any parents) still open", name, inner);
}

static void make_key(void) { exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0; }

static tbuf *get_tbuf(void)
{
    if (tl_tb)
        return tl_tb;
    pthread_once(&key_once, make_key);
    tbuf *tb = calloc(1, sizeof *tb);
    if (!tb || pthread_mutex_init(&tb->mu, NULL) != 0) {
        free(tb);
        return NULL;
    }
    tb->tid = os_tid();
    tb->alive = 1;
    int main_thread = tb->tid == (long)getpid();
    tb->role = tl_role != G16__TRACE_DEFAULT ? tl_role : main_thread ? G16__TRACE_DRIVER : G16__TRACE_WORKER;
    if (tl_name[0])
        memcpy(tb->name, tl_name, sizeof tb->name);
    else if (main_thread)
        snprintf(tb->name, sizeof tb->name, "main");
    else if (pthread_getname_np(pthread_self(), tb->name, sizeof tb->name) != 0 || !tb->name[0])
        snprintf(tb->name, sizeof tb->name, "thread-%ld", tb->tid);
    pthread_mutex_lock(&reg_mu);
    tb->slot = reg_next_slot++;
    tb->next = reg_head;
    reg_head = tb;
    pthread_mutex_unlock(&reg_mu);
    if (exit_key_ok)
        pthread_setspecific(exit_key, tb);
    tl_tb = tb;
    return tb;
}

/* A fresh record slot at the end of tb (caller holds tb->mu), or NULL when full. */
static rec *append(tbuf *tb)
{
    if (tb->count >= G16__TRACE_MAX_RECORDS)
        return NULL;
    if (tb->count == tb->nchunks * CHUNK_RECS) {
        if (tb->nchunks == tb->cap_chunks) {
            size_t cap = tb->cap_chunks ? 2 * tb->cap_chunks : 8;
            rec **c = realloc(tb->chunks, cap * sizeof *c);
            if (!c)
                return NULL;
            tb->chunks = c;
            tb->cap_chunks = cap;
        }
        rec *chunk = malloc(CHUNK_RECS * sizeof *chunk);
        if (!chunk)
            return NULL;
        tb->chunks[tb->nchunks++] = chunk;
    }
    return rec_at(tb, tb->count++);
}

g16__span g16__span_begin_slow(const char *name, int has_n, uint64_t n, const char *detail)
{
    tbuf *tb = get_tbuf();
    g16__span h = 0;
    if (!tb)
        goto drop;
    pthread_mutex_lock(&tb->mu);
    rec *r = tb->depth < G16__TRACE_MAX_DEPTH ? append(tb) : NULL;
    if (r) {
        memset(r, 0, sizeof *r);
        r->name = name ? name : "(null)";
        r->parent = tb->depth ? tb->stack[tb->depth - 1] : -1;
        r->flags = has_n ? REC_HAS_N : 0;
        r->n = n;
        if (detail)
            snprintf(r->detail, sizeof r->detail, "%s", detail);
        r->t1 = -1;
        uint32_t idx = tb->count - 1;
        tb->stack[tb->depth++] = (int32_t)idx;
        h = tb->slot << SLOT_SHIFT | (tb->base + idx + 1);
        r->t0 = now_ns(); /* last, so that the bookkeeping above is not inside the span */
    }
    pthread_mutex_unlock(&tb->mu);
    if (h)
        return h;
drop:
    __atomic_fetch_add(&n_dropped, 1, __ATOMIC_RELAXED);
    return 0;
}

g16_status g16__span_end_slow(g16__span s)
{
    int64_t t = now_ns(); /* first, so that the bookkeeping below is not inside the span */
    tbuf *tb = tl_tb;
    if (forked_child) /* a lock copied from the parent may be held forever */
        return G16_OK;
    if (!tb || (s >> SLOT_SHIFT) != tb->slot) {
        warn("span ended on a thread (%s) other than the one that began it%s", tb ? tb->name : "unnamed", "");
        return G16_ERR_ARG;
    }
    uint64_t num = (s & IDX_MASK) - 1;
    pthread_mutex_lock(&tb->mu);
    if (num < tb->base) { /* discarded by a reset: ignored by design */
        pthread_mutex_unlock(&tb->mu);
        return G16_OK;
    }
    int32_t idx = (int32_t)(num - tb->base);
    uint32_t d = tb->depth;
    while (d > 0 && tb->stack[d - 1] != idx)
        d--;
    if (d == 0) {
        const char *nm = (uint64_t)idx < tb->count ? rec_at(tb, (uint32_t)idx)->name : "?";
        pthread_mutex_unlock(&tb->mu);
        warn("span '%s' ended but it is not open on thread %s (ended twice?)", nm, tb->name);
        return G16_ERR_ARG;
    }
    const char *inner = d < tb->depth ? rec_at(tb, (uint32_t)tb->stack[tb->depth - 1])->name : NULL;
    const char *outer = rec_at(tb, (uint32_t)idx)->name;
    close_open(tb, d - 1, t);
    rec_at(tb, (uint32_t)idx)->flags &= (uint16_t)~REC_AUTOCLOSED;
    pthread_mutex_unlock(&tb->mu);
    if (inner) {
        warn("span '%s' ended while '%s' was still open inside it (closed it too)", outer, inner);
        return G16_ERR_ARG;
    }
    return G16_OK;
}

void g16__span_metric_slow(const char *key, uint64_t value)
{
    tbuf *tb = tl_tb;
    if (!tb || !key)
        return;
    pthread_mutex_lock(&tb->mu);
    if (tb->depth) {
        rec *r = rec_at(tb, (uint32_t)tb->stack[tb->depth - 1]);
        unsigned i = 0;
        while (i < r->nmetric && r->mkey[i] != key && strcmp(r->mkey[i], key) != 0)
            i++;
        if (i < r->nmetric) {
            r->mval[i] += value;
        } else if (i < G16__TRACE_METRICS) {
            r->mkey[i] = key;
            r->mval[i] = value;
            r->nmetric++;
        }
    }
    pthread_mutex_unlock(&tb->mu);
}

void g16__trace_enable(unsigned flags) { __atomic_store_n(&g16__trace_flags, flags, __ATOMIC_RELAXED); }

void g16__trace_thread(const char *name, g16__trace_role role)
{
    if (!name && (int)role == tl_role) /* cheap enough to call before every parallel job */
        return;
    if (name)
        snprintf(tl_name, sizeof tl_name, "%s", name);
    tl_role = (int)role;
    tbuf *tb = tl_tb;
    if (tb) {
        pthread_mutex_lock(&tb->mu);
        if (name)
            memcpy(tb->name, tl_name, sizeof tb->name);
        if (role != G16__TRACE_DEFAULT)
            tb->role = (int)role;
        pthread_mutex_unlock(&tb->mu);
    }
}

static void tbuf_clear(tbuf *tb)
{
    for (size_t i = 0; i < tb->nchunks; i++)
        free(tb->chunks[i]);
    free(tb->chunks);
    tb->chunks = NULL;
    tb->nchunks = tb->cap_chunks = 0;
    tb->base += tb->count;
    tb->count = tb->depth = 0;
}

void g16__trace_reset(void)
{
    if (forked_child)
        return;
    pthread_mutex_lock(&reg_mu);
    for (tbuf **pp = &reg_head; *pp;) {
        tbuf *tb = *pp;
        pthread_mutex_lock(&tb->mu);
        tbuf_clear(tb);
        int dead = !tb->alive;
        pthread_mutex_unlock(&tb->mu);
        if (dead) { /* its thread is gone: nobody else can reach it */
            *pp = tb->next;
            pthread_mutex_destroy(&tb->mu);
            free(tb);
        } else {
            pp = &tb->next;
        }
    }
    __atomic_store_n(&n_errors, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&n_dropped, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&n_warned, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&reg_mu);
}

uint64_t g16__trace_record_count(void)
{
    uint64_t n = 0;
    if (forked_child)
        return 0;
    pthread_mutex_lock(&reg_mu);
    for (tbuf *tb = reg_head; tb; tb = tb->next) {
        pthread_mutex_lock(&tb->mu);
        n += tb->count;
        pthread_mutex_unlock(&tb->mu);
    }
    pthread_mutex_unlock(&reg_mu);
    return n;
}

uint64_t g16__trace_error_count(void) { return __atomic_load_n(&n_errors, __ATOMIC_RELAXED); }
uint64_t g16__trace_dropped_count(void) { return __atomic_load_n(&n_dropped, __ATOMIC_RELAXED); }

#define INTERN_MAX 256
#define INTERN_LEN 64
static pthread_mutex_t intern_mu = PTHREAD_MUTEX_INITIALIZER;
static char intern_tab[INTERN_MAX][INTERN_LEN];
static int intern_n;

const char *g16__trace_intern(const char *prefix, const char *s)
{
    char want[INTERN_LEN];
    snprintf(want, sizeof want, "%s%s", prefix ? prefix : "", s ? s : "");
    const char *out = "(too many names)";
    pthread_mutex_lock(&intern_mu);
    int i = 0;
    while (i < intern_n && strcmp(intern_tab[i], want) != 0)
        i++;
    if (i < intern_n) {
        out = intern_tab[i];
    } else if (intern_n < INTERN_MAX) {
        memcpy(intern_tab[intern_n], want, sizeof want);
        out = intern_tab[intern_n++];
    }
    pthread_mutex_unlock(&intern_mu);
    return out;
}

/* ---------------------------------------------------------------- analysis */

typedef struct {
    long tid;
    int role;
    char name[NAME_MAX_LEN];
    size_t off, n; /* its records are snap.r[off .. off+n) in start order */
} sthread;

typedef struct {
    int64_t t0, t1;
    size_t idx;
} kid;

typedef struct {
    const char *name;
    int32_t parent, first_child, last_child, next_sibling;
    uint64_t count, open;
    int64_t total, self, unacc;
    int has_children, has_n;
    uint64_t thread_mask, nmin, nmax;
    const char *mkey[G16__TRACE_METRICS];
    uint64_t msum[G16__TRACE_METRICS];
} node;

typedef struct {
    rec *r;
    size_t n, cap;
    sthread *th;
    size_t nth;
    size_t *thr;      /* thread of each record */
    int64_t *parent;  /* same-thread or adopted parent; -1 for roots */
    size_t *koff;     /* children of record i: kids[koff[i] .. koff[i+1]) sorted by t0 */
    kid *kids;
    node *nodes;
    size_t nnodes, capnodes;
    int64_t now;
} analysis;

static void an_free(analysis *an)
{
    free(an->r);
    free(an->th);
    free(an->thr);
    free(an->parent);
    free(an->koff);
    free(an->kids);
    free(an->nodes);
    memset(an, 0, sizeof *an);
}

/* Copies one buffer into the snapshot (caller holds tb->mu). Open spans end "now". */
static g16_status snap_thread(analysis *an, tbuf *tb)
{
    if (an->n + tb->count > an->cap) {
        size_t cap = an->cap ? an->cap : 1024;
        while (cap < an->n + tb->count)
            cap *= 2;
        rec *r = realloc(an->r, cap * sizeof *r);
        if (!r)
            return G16_ERR_NOMEM;
        an->r = r;
        an->cap = cap;
    }
    sthread *st = &an->th[an->nth++];
    st->tid = tb->tid;
    st->role = tb->role;
    memcpy(st->name, tb->name, sizeof st->name);
    st->off = an->n;
    st->n = tb->count;
    for (uint32_t i = 0; i < tb->count; i++) {
        rec *r = &an->r[an->n++];
        *r = *rec_at(tb, i);
        if (r->t1 < 0) {
            r->t1 = an->now > r->t0 ? an->now : r->t0;
            r->flags |= REC_OPEN;
        }
    }
    return G16_OK;
}

static g16_status snapshot(analysis *an)
{
    g16_status st = G16_OK;
    memset(an, 0, sizeof *an);
    if (forked_child)
        return G16_ERR_UNSUPPORTED;
    pthread_mutex_lock(&reg_mu);
    size_t nth = 0;
    for (tbuf *tb = reg_head; tb; tb = tb->next)
        nth++;
    an->th = calloc(nth ? nth : 1, sizeof *an->th);
    if (!an->th) {
        st = G16_ERR_NOMEM;
        goto cleanup;
    }
    an->now = now_ns();
    /* registry order is newest first; walk it into an array and copy oldest first */
    tbuf **order = malloc((nth ? nth : 1) * sizeof *order);
    if (!order) {
        st = G16_ERR_NOMEM;
        goto cleanup;
    }
    size_t k = nth;
    for (tbuf *tb = reg_head; tb; tb = tb->next)
        order[--k] = tb;
    for (k = 0; k < nth && st == G16_OK; k++) {
        pthread_mutex_lock(&order[k]->mu);
        if (order[k]->count)
            st = snap_thread(an, order[k]);
        pthread_mutex_unlock(&order[k]->mu);
    }
    free(order);
cleanup:
    pthread_mutex_unlock(&reg_mu);
    return st;
}

/* Innermost span of driver thread th that contains [t0, t1]: walk down its laminar tree, where
 * siblings are disjoint and in start order, so only the last one starting <= t0 can contain it. */
static int64_t innermost_on(const analysis *an, const size_t *top, size_t ntop, const size_t *soff,
                            const size_t *skid, int64_t t0, int64_t t1)
{
    int64_t best = -1;
    const size_t *list = top;
    size_t len = ntop;
    for (;;) {
        size_t lo = 0, hi = len; /* first element with start > t0 */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (an->r[list[mid]].t0 <= t0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            return best;
        size_t j = list[lo - 1];
        if (an->r[j].t1 < t1)
            return best;
        best = (int64_t)j;
        list = skid + soff[j];
        len = soff[j + 1] - soff[j];
    }
}

/* Same-thread children lists (soff/skid, CSR) and each driver thread's top-level list. */
static g16_status same_thread_tree(analysis *an, size_t **soff_out, size_t **skid_out)
{
    size_t n = an->n;
    size_t *soff = calloc(n + 2, sizeof *soff), *skid = malloc((n ? n : 1) * sizeof *skid);
    if (!soff || !skid) {
        free(soff);
        free(skid);
        return G16_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        if (an->parent[i] >= 0)
            soff[an->parent[i] + 2]++;
    for (size_t i = 0; i < n; i++)
        soff[i + 2] += soff[i + 1];
    for (size_t i = 0; i < n; i++) /* i ascending: children stay in start order */
        if (an->parent[i] >= 0)
            skid[soff[an->parent[i] + 1]++] = i;
    *soff_out = soff;
    *skid_out = skid;
    return G16_OK;
}

/* Worker threads' top-level spans go under the innermost containing span of a driver thread;
 * among several drivers the latest-starting (then shortest) container wins. */
static g16_status adopt(analysis *an)
{
    size_t *soff = NULL, *skid = NULL, *top = NULL, *tstart = NULL, ntop = 0;
    g16_status st = same_thread_tree(an, &soff, &skid);
    if (st)
        goto cleanup;
    top = malloc((an->n ? an->n : 1) * sizeof *top);
    tstart = calloc(an->nth + 1, sizeof *tstart);
    if (!top || !tstart) {
        st = G16_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < an->nth; k++) {
        tstart[k] = ntop;
        for (size_t i = an->th[k].off; i < an->th[k].off + an->th[k].n; i++)
            if (an->parent[i] < 0)
                top[ntop++] = i;
    }
    tstart[an->nth] = ntop;
    for (size_t i = 0; i < an->n; i++) {
        if (an->parent[i] >= 0 || an->th[an->thr[i]].role != G16__TRACE_WORKER)
            continue;
        int64_t best = -1;
        for (size_t k = 0; k < an->nth; k++) {
            if (an->th[k].role != G16__TRACE_DRIVER)
                continue;
            int64_t c = innermost_on(an, top + tstart[k], tstart[k + 1] - tstart[k], soff, skid, an->r[i].t0,
                                     an->r[i].t1);
            if (c >= 0 && (best < 0 || an->r[c].t0 > an->r[best].t0 ||
                           (an->r[c].t0 == an->r[best].t0 && an->r[c].t1 < an->r[best].t1)))
                best = c;
        }
        an->parent[i] = best;
    }
cleanup:
    free(tstart);
    free(soff);
    free(skid);
    free(top);
    return st;
}

static int kid_cmp(const void *a, const void *b)
{
    const kid *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static g16_status build_children(analysis *an)
{
    size_t n = an->n;
    an->koff = calloc(n + 2, sizeof *an->koff);
    an->kids = malloc((n ? n : 1) * sizeof *an->kids);
    if (!an->koff || !an->kids)
        return G16_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        if (an->parent[i] >= 0)
            an->koff[an->parent[i] + 2]++;
    for (size_t i = 0; i < n; i++)
        an->koff[i + 2] += an->koff[i + 1];
    for (size_t i = 0; i < n; i++)
        if (an->parent[i] >= 0)
            an->kids[an->koff[an->parent[i] + 1]++] = (kid){an->r[i].t0, an->r[i].t1, i};
    for (size_t i = 0; i < n; i++)
        if (an->koff[i + 1] - an->koff[i] > 1)
            qsort(an->kids + an->koff[i], an->koff[i + 1] - an->koff[i], sizeof(kid), kid_cmp);
    return G16_OK;
}

/* Self time (minus same-thread children) and unaccounted time (minus the union of all
 * children, clipped to the span) of record i. */
static void coverage(const analysis *an, size_t i, int64_t *self, int64_t *unacc)
{
    const rec *r = &an->r[i];
    int64_t dur = r->t1 - r->t0, same = 0, covered = 0, cur_lo = 0, cur_hi = -1;
    for (size_t k = an->koff[i]; k < an->koff[i + 1]; k++) {
        const kid *c = &an->kids[k];
        if (an->thr[c->idx] == an->thr[i])
            same += c->t1 - c->t0;
        int64_t lo = c->t0 > r->t0 ? c->t0 : r->t0, hi = c->t1 < r->t1 ? c->t1 : r->t1;
        if (hi <= lo)
            continue;
        if (lo > cur_hi) { /* kids are sorted by start: a new disjoint run begins */
            if (cur_hi > cur_lo)
                covered += cur_hi - cur_lo;
            cur_lo = lo;
            cur_hi = hi;
        } else if (hi > cur_hi) {
            cur_hi = hi;
        }
    }
    if (cur_hi > cur_lo)
        covered += cur_hi - cur_lo;
    *self = dur - same;
    *unacc = dur - covered;
}

static int32_t node_child(analysis *an, int32_t parent, const char *name)
{
    int32_t c = parent < 0 ? (an->nnodes ? 0 : -1) : an->nodes[parent].first_child;
    for (; c >= 0; c = an->nodes[c].next_sibling)
        if (an->nodes[c].name == name || strcmp(an->nodes[c].name, name) == 0)
            return c;
    if (an->nnodes == an->capnodes) {
        size_t cap = an->capnodes ? 2 * an->capnodes : 64;
        node *nn = realloc(an->nodes, cap * sizeof *nn);
        if (!nn)
            return -1;
        an->nodes = nn;
        an->capnodes = cap;
    }
    int32_t id = (int32_t)an->nnodes++;
    node *nd = &an->nodes[id];
    memset(nd, 0, sizeof *nd);
    nd->name = name;
    nd->parent = parent;
    nd->first_child = nd->last_child = nd->next_sibling = -1;
    /* roots are chained as siblings of node 0 */
    int32_t prev = parent < 0 ? (id ? 0 : -1) : an->nodes[parent].last_child;
    if (parent < 0)
        while (prev >= 0 && an->nodes[prev].next_sibling >= 0)
            prev = an->nodes[prev].next_sibling;
    if (prev >= 0)
        an->nodes[prev].next_sibling = id;
    if (parent >= 0) {
        if (an->nodes[parent].first_child < 0)
            an->nodes[parent].first_child = id;
        an->nodes[parent].last_child = id;
    }
    return id;
}

static void node_add(analysis *an, int32_t id, size_t i)
{
    node *nd = &an->nodes[id];
    const rec *r = &an->r[i];
    int64_t self, unacc;
    coverage(an, i, &self, &unacc);
    nd->count++;
    nd->open += (r->flags & REC_OPEN) != 0;
    nd->total += r->t1 - r->t0;
    nd->self += self;
    nd->unacc += unacc;
    nd->has_children |= an->koff[i + 1] > an->koff[i];
    nd->thread_mask |= UINT64_C(1) << (an->thr[i] & 63);
    if (r->flags & REC_HAS_N) {
        nd->nmin = !nd->has_n || r->n < nd->nmin ? r->n : nd->nmin;
        nd->nmax = !nd->has_n || r->n > nd->nmax ? r->n : nd->nmax;
        nd->has_n = 1;
    }
    for (unsigned m = 0; m < r->nmetric; m++) {
        unsigned k = 0;
        while (k < G16__TRACE_METRICS && nd->mkey[k] && strcmp(nd->mkey[k], r->mkey[m]) != 0)
            k++;
        if (k == G16__TRACE_METRICS)
            continue;
        nd->mkey[k] = r->mkey[m];
        nd->msum[k] += r->mval[m];
    }
}

/* Depth-first over record i and its children, aggregating into name-path nodes. Recursion depth
 * is bounded by 2 * G16__TRACE_MAX_DEPTH (a driver's stack plus a worker's). */
static g16_status visit(analysis *an, size_t i, int32_t parent_node)
{
    int32_t id = node_child(an, parent_node, an->r[i].name);
    if (id < 0)
        return G16_ERR_NOMEM;
    node_add(an, id, i);
    for (size_t k = an->koff[i]; k < an->koff[i + 1]; k++) {
        g16_status st = visit(an, an->kids[k].idx, id);
        if (st)
            return st;
    }
    return G16_OK;
}

static g16_status analyze(analysis *an)
{
    g16_status st = snapshot(an);
    kid *roots = NULL;
    if (st)
        goto cleanup;
    size_t n = an->n;
    an->thr = malloc((n ? n : 1) * sizeof *an->thr);
    an->parent = malloc((n ? n : 1) * sizeof *an->parent);
    roots = malloc((n ? n : 1) * sizeof *roots);
    if (!an->thr || !an->parent || !roots) {
        st = G16_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t k = 0; k < an->nth; k++)
        for (size_t i = an->th[k].off; i < an->th[k].off + an->th[k].n; i++) {
            an->thr[i] = k;
            an->parent[i] = an->r[i].parent >= 0 ? (int64_t)an->th[k].off + an->r[i].parent : -1;
        }
    if ((st = adopt(an)) || (st = build_children(an)))
        goto cleanup;
    size_t nroots = 0;
    for (size_t i = 0; i < n; i++)
        if (an->parent[i] < 0)
            roots[nroots++] = (kid){an->r[i].t0, an->r[i].t1, i};
    qsort(roots, nroots, sizeof *roots, kid_cmp);
    for (size_t k = 0; k < nroots && !st; k++)
        st = visit(an, roots[k].idx, -1);
cleanup:
    free(roots);
    return st;
}

static int flagged(const node *nd)
{
    return nd->has_children && nd->unacc > 1000000 && nd->unacc * 20 > nd->total;
}

/* ---------------------------------------------------------------- report */

static void fmt_dur(char *buf, size_t len, int64_t ns)
{
    int64_t a = ns < 0 ? -ns : ns;
    if (a >= 1000000000)
        snprintf(buf, len, "%.3f s", (double)ns / 1e9);
    else if (a >= 1000000)
        snprintf(buf, len, "%.3f ms", (double)ns / 1e6);
    else if (a >= 1000)
        snprintf(buf, len, "%.3f us", (double)ns / 1e3);
    else
        snprintf(buf, len, "%" PRId64 " ns", ns);
}

static void fmt_metric(char *buf, size_t len, const char *key, uint64_t v)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    if (!strstr(key, "bytes") || v < 1024) {
        snprintf(buf, len, "%s=%" PRIu64, key, v);
        return;
    }
    double x = (double)v;
    unsigned u = 0;
    while (x >= 1024 && u < 4) {
        x /= 1024;
        u++;
    }
    snprintf(buf, len, "%s=%.2f %s", key, x, unit[u]);
}

static void print_node(FILE *f, const analysis *an, int32_t id, int depth)
{
    const node *nd = &an->nodes[id];
    char tot[24], self[24], un[32] = "", extra[384] = "";
    size_t e = 0;
    fmt_dur(tot, sizeof tot, nd->total);
    fmt_dur(self, sizeof self, nd->self);
    if (nd->has_children) {
        fmt_dur(un, sizeof un, nd->unacc);
        if (flagged(nd))
            strcat(un, " !!");
    }
    if (nd->has_n && e < sizeof extra)
        e += (size_t)snprintf(extra + e, sizeof extra - e,
                              nd->nmin == nd->nmax ? "  n=%" PRIu64 : "  n=%" PRIu64 "..%" PRIu64, nd->nmin, nd->nmax);
    for (unsigned m = 0; m < G16__TRACE_METRICS && nd->mkey[m] && e < sizeof extra; m++) {
        char mb[64];
        fmt_metric(mb, sizeof mb, nd->mkey[m], nd->msum[m]);
        e += (size_t)snprintf(extra + e, sizeof extra - e, "  %s", mb);
    }
    uint64_t pmask = nd->parent >= 0 ? an->nodes[nd->parent].thread_mask : 0;
    unsigned nthr = (unsigned)__builtin_popcountll(nd->thread_mask);
    if (nd->thread_mask != pmask && e < sizeof extra) {
        if (nthr == 1)
            e += (size_t)snprintf(extra + e, sizeof extra - e, "  [%s]",
                                  an->th[__builtin_ctzll(nd->thread_mask) % an->nth].name);
        else
            e += (size_t)snprintf(extra + e, sizeof extra - e, "  [%u threads]", nthr);
    }
    if (nd->open && e < sizeof extra)
        snprintf(extra + e, sizeof extra - e, "  (%" PRIu64 " still open)", nd->open);
    fprintf(f, "%12s %12s %15s %8" PRIu64 "  %*s%s%s\n", tot, self, un, nd->count, 2 * depth, "", nd->name, extra);
    for (int32_t c = nd->first_child; c >= 0; c = an->nodes[c].next_sibling)
        print_node(f, an, c, depth + 1);
}

static void print_flags(FILE *f, const analysis *an)
{
    for (size_t id = 0; id < an->nnodes; id++) {
        const node *nd = &an->nodes[id];
        if (!flagged(nd))
            continue;
        char un[24];
        fmt_dur(un, sizeof un, nd->unacc);
        fprintf(f, "!! %s unaccounted (%.1f%%) in ", un, 100.0 * (double)nd->unacc / (double)nd->total);
        const char *parts[2 * G16__TRACE_MAX_DEPTH + 2];
        int np = 0;
        for (int32_t p = (int32_t)id; p >= 0 && np < (int)(sizeof parts / sizeof *parts); p = an->nodes[p].parent)
            parts[np++] = an->nodes[p].name;
        while (np-- > 0)
            fprintf(f, "%s%s", parts[np], np ? "/" : "\n");
    }
}

/* Wall time between thread k's top-level spans that none of them covers; the largest gap too. */
static int64_t thread_gap(const analysis *an, size_t k, int64_t *largest, size_t *before, size_t *after,
                          int64_t *window, size_t *ntop)
{
    int64_t gap = 0, hi = 0;
    int any = 0;
    *largest = 0;
    *ntop = 0;
    *window = 0;
    int64_t first = 0;
    size_t prev = 0;
    for (size_t i = an->th[k].off; i < an->th[k].off + an->th[k].n; i++) {
        if (an->r[i].parent >= 0)
            continue;
        (*ntop)++;
        if (!any) {
            first = an->r[i].t0;
        } else if (an->r[i].t0 > hi) {
            int64_t g = an->r[i].t0 - hi;
            gap += g;
            if (g > *largest) {
                *largest = g;
                *before = prev;
                *after = i;
            }
        }
        if (!any || an->r[i].t1 > hi)
            hi = an->r[i].t1;
        any = 1;
        prev = i;
    }
    *window = any ? hi - first : 0;
    return gap;
}

static void print_gaps(FILE *f, const analysis *an)
{
    static const char *const role[] = {"", "driver", "worker", "detached"};
    fprintf(f, "gaps between top-level spans, per thread:\n");
    for (size_t k = 0; k < an->nth; k++) {
        int64_t largest, window;
        size_t b = 0, a = 0, ntop;
        int64_t gap = thread_gap(an, k, &largest, &b, &a, &window, &ntop);
        char g[24], w[24], l[24];
        fmt_dur(g, sizeof g, gap);
        fmt_dur(w, sizeof w, window);
        fmt_dur(l, sizeof l, largest);
        fprintf(f, "  %s (tid %ld, %s): %zu top-level spans over %s, %s uncovered", an->th[k].name, an->th[k].tid,
                role[an->th[k].role & 3], ntop, w, g);
        if (largest > 0)
            fprintf(f, "; largest %s between '%s' and '%s'", l, an->r[b].name, an->r[a].name);
        fputc('\n', f);
    }
}

g16_status g16__trace_report_ex(FILE *f, unsigned opts)
{
    analysis an;
    if (!f)
        return G16_ERR_ARG;
    g16_status st = analyze(&an);
    if (st)
        goto cleanup;
    char win[24];
    fmt_dur(win, sizeof win, an.now);
    fprintf(f, "g16 trace: %zu spans on %zu thread(s), %s since start\n", an.n, an.nth, win);
    fprintf(f, "%12s %12s %15s %8s  %s\n", "total", "self", "unaccounted", "count", "span");
    if (an.nnodes)
        for (int32_t c = 0; c >= 0; c = an.nodes[c].next_sibling)
            print_node(f, &an, c, 0);
    print_flags(f, &an);
    uint64_t errs = g16__trace_error_count(), drops = g16__trace_dropped_count();
    if (errs || drops)
        fprintf(f, "g16 trace: %" PRIu64 " span misuse errors, %" PRIu64 " records dropped\n", errs, drops);
    if (opts & G16__TRACE_GAPS)
        print_gaps(f, &an);
    if (fflush(f) != 0 || ferror(f))
        st = G16_ERR_IO;
cleanup:
    an_free(&an);
    return st;
}

g16_status g16__trace_report(FILE *f) { return g16__trace_report_ex(f, 0); }

g16_status g16__trace_query(const char *path, g16__trace_stat *out)
{
    analysis an;
    if (!path || !out)
        return G16_ERR_ARG;
    g16_status st = analyze(&an);
    if (st)
        goto cleanup;
    int32_t cur = -1;
    const char *p = path;
    for (;;) {
        size_t len = strcspn(p, "/");
        int32_t c = cur < 0 ? (an.nnodes ? 0 : -1) : an.nodes[cur].first_child;
        while (c >= 0 && !(strncmp(an.nodes[c].name, p, len) == 0 && an.nodes[c].name[len] == '\0'))
            c = an.nodes[c].next_sibling;
        if (c < 0) {
            st = G16_ERR_ARG;
            goto cleanup;
        }
        cur = c;
        if (!p[len])
            break;
        p += len + 1;
    }
    const node *nd = &an.nodes[cur];
    memset(out, 0, sizeof *out);
    out->count = nd->count;
    out->total_ns = nd->total;
    out->self_ns = nd->self;
    out->unaccounted_ns = nd->unacc;
    out->has_children = nd->has_children;
    out->flagged = flagged(nd);
    out->threads = (unsigned)__builtin_popcountll(nd->thread_mask);
    out->open = nd->open;
    for (unsigned m = 0; m < G16__TRACE_METRICS; m++) {
        out->metric_key[m] = nd->mkey[m];
        out->metric_sum[m] = nd->msum[m];
    }
cleanup:
    an_free(&an);
    return st;
}

int64_t g16__trace_gap_ns(const char *thread_name)
{
    analysis an;
    int64_t total = -1;
    memset(&an, 0, sizeof an);
    if (!thread_name || snapshot(&an) != G16_OK)
        goto cleanup;
    for (size_t k = 0; k < an.nth; k++) {
        if (strcmp(an.th[k].name, thread_name) != 0)
            continue;
        int64_t largest, window;
        size_t b, a, ntop;
        total = (total < 0 ? 0 : total) + thread_gap(&an, k, &largest, &b, &a, &window, &ntop);
    }
cleanup:
    an_free(&an);
    return total;
}

/* ---------------------------------------------------------------- JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f) /* keeps the file valid even for non-UTF-8 names */
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

static void json_us(FILE *f, int64_t ns)
{
    if (ns < 0) {
        fputc('-', f);
        ns = -ns;
    }
    fprintf(f, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static void json_event(FILE *f, const rec *r, long pid, long tid)
{
    fputs("{\"name\":", f);
    json_str(f, r->name);
    fputs(",\"cat\":\"g16\",\"ph\":\"X\",\"ts\":", f);
    json_us(f, r->t0);
    fputs(",\"dur\":", f);
    json_us(f, r->t1 - r->t0);
    fprintf(f, ",\"pid\":%ld,\"tid\":%ld,\"args\":{", pid, tid);
    const char *sep = "";
    if (r->flags & REC_HAS_N) {
        fprintf(f, "\"n\":%" PRIu64, r->n);
        sep = ",";
    }
    if (r->detail[0]) {
        fprintf(f, "%s\"detail\":", sep);
        json_str(f, r->detail);
        sep = ",";
    }
    for (unsigned m = 0; m < r->nmetric; m++) {
        fputs(sep, f);
        json_str(f, r->mkey[m]);
        fprintf(f, ":%" PRIu64, r->mval[m]);
        sep = ",";
    }
    if (r->flags & REC_OPEN) {
        fprintf(f, "%s\"open\":true", sep);
        sep = ",";
    }
    if (r->flags & REC_AUTOCLOSED)
        fprintf(f, "%s\"autoclosed\":true", sep);
    fputs("}}", f);
}

g16_status g16__trace_write_json(const char *path)
{
    analysis an;
    FILE *f = NULL;
    if (!path)
        return G16_ERR_ARG;
    g16_status st = snapshot(&an);
    if (st)
        goto cleanup;
    f = fopen(path, "w");
    if (!f) {
        st = G16_ERR_IO;
        goto cleanup;
    }
    long pid = (long)getpid();
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"g16_version\":\"%s\",\"clock\":\"CLOCK_MONOTONIC\","
               "\"ts_zero_unix_ns\":%" PRId64 "},\"traceEvents\":[\n",
            G16_VERSION_STRING, epoch_real_ns);
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":\"g16\"}}", pid,
            pid);
    for (size_t k = 0; k < an.nth; k++) {
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":", pid,
                an.th[k].tid);
        json_str(f, an.th[k].name);
        fputs("}}", f);
        for (size_t i = an.th[k].off; i < an.th[k].off + an.th[k].n; i++) {
            fputs(",\n", f);
            json_event(f, &an.r[i], pid, an.th[k].tid);
        }
    }
    fputs("\n]}\n", f);
    if (ferror(f))
        st = G16_ERR_IO;
cleanup:
    if (f && fclose(f) != 0 && st == G16_OK)
        st = G16_ERR_IO;
    an_free(&an);
    return st;
}

/* ---------------------------------------------------------------- environment, exit */

static void trace_at_exit(void)
{
    if (forked_child) /* the parent reports; a child would repeat its spans */
        return;
    unsigned fl = __atomic_load_n(&g16__trace_flags, __ATOMIC_RELAXED);
    if (fl & G16__TRACE_TREE_AT_EXIT)
        g16__trace_report_ex(stderr, fl & G16__TRACE_GAPS);
    if (exit_json_path[0]) {
        g16_status st = g16__trace_write_json(exit_json_path);
        if (st)
            fprintf(stderr, "g16 trace: cannot write %s: %s\n", exit_json_path, g16_strerror(st));
        else
            fprintf(stderr, "g16 trace: wrote %s\n", exit_json_path);
    }
}

/* G16_TRACE_FILE with "%p" replaced by the pid (several processes, one pattern). */
static void set_exit_path(const char *pat)
{
    size_t o = 0;
    for (const char *p = pat; *p && o + 1 < sizeof exit_json_path; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            int w = snprintf(exit_json_path + o, sizeof exit_json_path - o, "%ld", (long)getpid());
            o = w > 0 && (size_t)w < sizeof exit_json_path - o ? o + (size_t)w : sizeof exit_json_path - 1;
            p++;
        } else {
            exit_json_path[o++] = *p;
        }
    }
    exit_json_path[o] = '\0';
}

/* The child of a fork stops tracing: its copy of the buffers may hold locks taken by threads
 * that do not exist there. */
static void trace_fork_child(void)
{
    forked_child = 1;
    g16__trace_enable(0);
    tl_tb = NULL;
}

__attribute__((constructor)) static void trace_init(void)
{
    epoch_mono_ns = clock_ns(CLOCK_MONOTONIC);
    epoch_real_ns = clock_ns(CLOCK_REALTIME);
    unsigned fl = 0;
    const char *t = getenv("G16_TRACE"), *file = getenv("G16_TRACE_FILE");
    if (t && *t && strcmp(t, "0") != 0)
        fl |= G16__TRACE_RECORD | G16__TRACE_TREE_AT_EXIT | (strcmp(t, "gaps") == 0 ? G16__TRACE_GAPS : 0);
    if (file && *file) {
        fl |= G16__TRACE_RECORD;
        set_exit_path(file);
    }
    g16__trace_enable(fl);
    /* registered before main: runs after handlers registered later (the background free drain),
     * so their spans are in the report */
    atexit(trace_at_exit);
    pthread_atfork(NULL, NULL, trace_fork_child);
}
