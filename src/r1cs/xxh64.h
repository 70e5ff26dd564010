/*
 * XXH64 (seed 0), the checksum of the r1cs file format: fast (about one multiply per 8 bytes)
 * and checkable with the standard xxhsum tool. It detects accidental corruption only; it is not
 * a cryptographic hash. Written from the published algorithm description; the test vectors in
 * tests/test_r1cs_io.c come from libxxhash 0.8.1.
 *
 * Streaming state: g16__xxh64_init, then g16__xxh64_update any number of times (any split of the
 * input gives the same digest), then g16__xxh64_digest (does not modify the state).
 */
#ifndef G16_R1CS_XXH64_H
#define G16_R1CS_XXH64_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t v[4];     /* the four lane accumulators */
    uint64_t total;    /* bytes consumed */
    uint8_t buf[32];   /* a partial 32-byte stripe */
    size_t buf_len;
} g16__xxh64_state;

void g16__xxh64_init(g16__xxh64_state *s);
void g16__xxh64_update(g16__xxh64_state *s, const void *data, size_t len);
uint64_t g16__xxh64_digest(const g16__xxh64_state *s);
/* One-shot convenience. */
uint64_t g16__xxh64(const void *data, size_t len);

#endif
