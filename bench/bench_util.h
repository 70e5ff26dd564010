/* Helpers shared by the bench programs (header only: CMake builds one executable per bench_*.c). */
#ifndef G16_BENCH_UTIL_H
#define G16_BENCH_UTIL_H

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

#endif /* G16_BENCH_UTIL_H */
