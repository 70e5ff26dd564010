/*
 * Tracing: timed spans, per thread, with an "unaccounted time" report.
 *
 * Why: g16 exists because a 10 s gap between what the GPU timed and what the caller timed
 * turned out to be destructors freeing ~37 GB synchronously. So every phase is a span, and
 * wall time that no child span explains is reported, never hidden.
 *
 * A span is one timed interval on one thread: a name (a string with static storage duration:
 * the pointer is kept, not copied), CLOCK_MONOTONIC begin and end in ns, the parent span on
 * the same thread (spans nest per thread, strictly: a stack), and optionally a numeric argument
 * (e.g. n), a short detail string (copied, truncated to G16__TRACE_DETAIL_MAX - 1 bytes) and up
 * to G16__TRACE_METRICS metrics (key, summed uint64 value: bytes, counts).
 *
 *     g16__span s = g16__span_begin_n("msm.g1", n);
 *     ...
 *     g16__span_metric("bytes", nbytes);   // attaches to the innermost open span of this thread
 *     g16__span_end(s);
 *
 * Handles: a g16__span names (thread, record). g16__span_end checks that it is the innermost
 * open span of the calling thread. If not, the call is an error (G16_ERR_ARG, counted in
 * g16__trace_error_count, a one-line warning on stderr for the first few) but never a crash:
 * ending an outer span closes the inner ones still open (marked "autoclosed"); ending a span
 * twice, or on another thread, changes nothing. Handle 0 is "not recorded" (tracing off, or the
 * record was dropped) and ending it is a no-op.
 *
 * Cost when off: g16__span_begin/_end/_metric are inline and do one relaxed load of a global
 * flag (begin, metric) or one compare with 0 (end) and a predictable branch; nothing is
 * allocated, no clock is read (test_trace: ~5 ns per begin+end pair, loop and assert included).
 * Cost when on: per call one clock_gettime (vDSO) and one lock/unlock of a mutex owned by the
 * calling thread's buffer (uncontended except while a report is being taken): there is no
 * global lock on the hot path (test_trace: 130-370 ns per pair on a busy 2-core VM whose
 * clock_gettime alone costs 70 ns). Spans are for phases and chunks, not inner loops. Records go to per-thread chunked buffers (at most
 * G16__TRACE_MAX_RECORDS per thread; beyond that records are dropped and counted).
 *
 * Threads: any thread may open spans. A thread has a role (g16__trace_thread):
 *   DRIVER   — the main thread by default; its spans are never adopted by other threads.
 *   WORKER   — every other thread by default (pool threads). A span that begins on a worker
 *              with no open span on that thread is placed, in the report, under the innermost
 *              span of a DRIVER thread whose interval contains it: e.g. a "prove" span on the
 *              main thread gets the "msm.chunk" spans of the pool as children.
 *   DETACHED — neither adopts nor is adopted (the background-free thread: its frees are not
 *              part of the caller's work, and must not hide the caller's unaccounted time).
 * A non-main thread that drives work (a server's request thread, a per-GPU thread that calls
 * g16__parallel_for) should declare itself DRIVER, or the pool's spans will not be placed under
 * its spans and its phases will show the parallel time as unaccounted (visible, never hidden).
 *
 * Report (g16__trace_report): spans aggregated by name path (root/child/...), with count,
 * total (sum of instance durations), self (total minus the time of children on the same thread)
 * and unaccounted (for spans that have children: the part of each instance's interval that the
 * union of its children's intervals — same-thread and adopted ones — does not cover). A path is
 * flagged "!!" when unaccounted > 5% of its total and > 1 ms. With G16__TRACE_GAPS the report
 * also lists, per thread, the wall time between its top-level spans that no span covers.
 *
 * Enabling: environment, read once at load: G16_TRACE=1 (record; print the tree to stderr at
 * exit), G16_TRACE=gaps (also the gaps), G16_TRACE_FILE=path (record; write Chrome trace-event
 * JSON at exit, "%p" in path becomes the pid; Perfetto and chrome://tracing open it).
 * Programmatic: g16__trace_enable. All functions here are thread-safe. g16__trace_reset discards
 * every record, including open spans (their later ends are ignored, without error).
 * fork(): the child stops tracing (its copy of the buffers may hold locks of threads that do not
 * exist there; span ends become no-ops, reports and queries return G16_ERR_UNSUPPORTED) and
 * prints nothing at exit; the parent is unaffected.
 */
#ifndef G16_UTIL_TRACE_H
#define G16_UTIL_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "g16.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint64_t g16__span; /* 0 = not recorded */

#define G16__TRACE_DETAIL_MAX 24
#define G16__TRACE_METRICS 8
#define G16__TRACE_MAX_DEPTH 128
#define G16__TRACE_MAX_RECORDS (1u << 18) /* ~48 MiB of 192-byte records per thread */

/* Flags for g16__trace_enable and g16__trace_report_ex. */
enum {
    G16__TRACE_RECORD = 1u,       /* record spans (0 = off) */
    G16__TRACE_TREE_AT_EXIT = 2u, /* print the tree to stderr at exit */
    G16__TRACE_GAPS = 4u,         /* report: add per-thread gaps between top-level spans */
};

typedef enum {
    G16__TRACE_DEFAULT = 0, /* DRIVER for the main thread, WORKER otherwise */
    G16__TRACE_DRIVER,
    G16__TRACE_WORKER,
    G16__TRACE_DETACHED,
} g16__trace_role;

/* The enable flags; read by the inline fast paths. Written only through g16__trace_enable. */
extern unsigned g16__trace_flags;

g16__span g16__span_begin_slow(const char *name, int has_n, uint64_t n, const char *detail);
g16_status g16__span_end_slow(g16__span s);
void g16__span_metric_slow(const char *key, uint64_t value);

static inline int g16__trace_enabled(void)
{
    return __builtin_expect(__atomic_load_n(&g16__trace_flags, __ATOMIC_RELAXED) & G16__TRACE_RECORD, 0) != 0;
}

/* Opens a span named `name` (static storage) on the calling thread. */
static inline g16__span g16__span_begin(const char *name)
{
    if (!g16__trace_enabled())
        return 0;
    return g16__span_begin_slow(name, 0, 0, NULL);
}

/* Same, with a numeric argument (a size n, a chunk index). */
static inline g16__span g16__span_begin_n(const char *name, uint64_t n)
{
    if (!g16__trace_enabled())
        return 0;
    return g16__span_begin_slow(name, 1, n, NULL);
}

/* Same, with a short detail string (copied; may be NULL). */
static inline g16__span g16__span_begin_detail(const char *name, const char *detail)
{
    if (!g16__trace_enabled())
        return 0;
    return g16__span_begin_slow(name, 0, 0, detail);
}

/* Closes s. G16_OK, or G16_ERR_ARG when s is not the innermost open span of this thread
 * (see "Handles" above). */
static inline g16_status g16__span_end(g16__span s)
{
    if (__builtin_expect(s == 0, 1))
        return G16_OK;
    return g16__span_end_slow(s);
}

/* Adds value to metric `key` (static storage) of the innermost open span of this thread
 * (no-op when there is none, or when the span already has G16__TRACE_METRICS other keys). */
static inline void g16__span_metric(const char *key, uint64_t value)
{
    if (!g16__trace_enabled())
        return;
    g16__span_metric_slow(key, value);
}

/* Sets the flags (G16__TRACE_RECORD | G16__TRACE_TREE_AT_EXIT | G16__TRACE_GAPS); 0 = off.
 * Spans open when recording stops still end normally. */
void g16__trace_enable(unsigned flags);

/* Names the calling thread in reports (copied, up to 31 bytes; NULL keeps the name) and sets
 * its role. Cheap and allocation-free; may be called while tracing is off. */
void g16__trace_thread(const char *name, g16__trace_role role);

/* Discards all records (see the header note on open spans) and the error counters. */
void g16__trace_reset(void);

/* Prints the tree (and with G16__TRACE_GAPS in opts, the gaps) to f. G16_ERR_NOMEM, G16_ERR_IO. */
g16_status g16__trace_report(FILE *f);
g16_status g16__trace_report_ex(FILE *f, unsigned opts);

/* Writes Chrome trace-event JSON ({"traceEvents":[...]}: one "X" event per span, thread_name
 * metadata, the realtime anchor in otherData). G16_ERR_ARG (NULL path), G16_ERR_IO, G16_ERR_NOMEM. */
g16_status g16__trace_write_json(const char *path);

/* Aggregate of one name path, for tests and callers that print their own phase times. */
typedef struct {
    uint64_t count;          /* instances */
    int64_t total_ns;        /* sum of instance durations */
    int64_t self_ns;         /* total minus same-thread children */
    int64_t unaccounted_ns;  /* not covered by the union of children (any thread) */
    int has_children;        /* some instance has a child (only then can it be flagged) */
    int flagged;             /* unaccounted > 5% of total and > 1 ms, with children */
    unsigned threads;        /* distinct threads that ran instances (exact below 64) */
    uint64_t open;           /* instances still open at the query (counted up to now) */
    const char *metric_key[G16__TRACE_METRICS];
    uint64_t metric_sum[G16__TRACE_METRICS];
} g16__trace_stat;

/* Looks up a path such as "prove/msm.g1" ('/'-separated names from a root). G16_OK, or
 * G16_ERR_ARG when no span has that path, G16_ERR_NOMEM. */
g16_status g16__trace_query(const char *path, g16__trace_stat *out);

/* Total wall time in ns between top-level spans of threads named `thread_name` that no span
 * covers (-1 if no such thread recorded spans). */
int64_t g16__trace_gap_ns(const char *thread_name);

/* Records currently held (all threads, open ones included) and API misuse seen since reset. */
uint64_t g16__trace_record_count(void);
uint64_t g16__trace_error_count(void);
uint64_t g16__trace_dropped_count(void);

/* A stable copy of prefix + s for dynamic span names (e.g. "free:" + label): the same string
 * gives the same pointer; at most 256 distinct names (then "(too many names)"). */
const char *g16__trace_intern(const char *prefix, const char *s);

#ifdef __cplusplus
}
#endif
#endif /* G16_UTIL_TRACE_H */
