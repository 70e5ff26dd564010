/* Helpers shared by the bench programs (header only: CMake builds one executable per bench_*.c). */
#ifndef G16_BENCH_UTIL_H
#define G16_BENCH_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "util/trace.h"

/* Monotonic wall clock in seconds. */
static inline double bench_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Total milliseconds of the trace path (e.g. "prove/prove.circuit/msm.h"); 0 when no span has it. */
static inline double bench_span_ms(const char *path)
{
    g16__trace_stat st;
    return g16__trace_query(path, &st) == G16_OK ? (double)st.total_ns / 1e6 : 0;
}

/* The markdown copy of a bench's tables: bench_emit writes to stdout and, once *bench_md() is an
 * open file, to it too (both flushed, so a run cut short keeps what it printed). */
static inline FILE **bench_md(void)
{
    static FILE *f;
    return &f;
}

static inline void bench_emit(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void bench_emit(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    if (*bench_md()) {
        va_start(ap, fmt);
        vfprintf(*bench_md(), fmt, ap);
        va_end(ap);
        fflush(*bench_md());
    }
    fflush(stdout);
}

#endif /* G16_BENCH_UTIL_H */
