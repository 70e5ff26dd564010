/*
 * Randomness. Secrets (toxic waste in setup, the prover's r and s, batch-verification
 * weights) come from the OS CSPRNG (getrandom). A seeded deterministic generator
 * (xoshiro256**, NOT cryptographic) exists only so that tests and benchmarks replay.
 *
 * g16__rng is a caller-allocated value; it owns no resources. Not thread-safe: use one per thread.
 */
#ifndef G16_UTIL_RANDOM_H
#define G16_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"

typedef struct {
    int deterministic; /* 0: every request reads the OS CSPRNG */
    uint64_t s[4];
} g16__rng;

void g16__rng_init_os(g16__rng *rng);
void g16__rng_init_seeded(g16__rng *rng, uint64_t seed); /* tests and benchmarks only */
/* Fills buf; G16_ERR_IO when the OS generator fails (never returns partial randomness as success). */
g16_status g16__rng_bytes(g16__rng *rng, void *buf, size_t n);
/* Reads the OS CSPRNG directly. */
g16_status g16__random_bytes_os(void *buf, size_t n);

#endif
