/*
 * BLAKE2b (RFC 7693), unkeyed, digest length 1..64 bytes. Filecoin's parameter manifest
 * identifies each parameter file by the first 32 hex digits of its BLAKE2b-512 digest;
 * `g16 inspect` prints the same value. Caller-allocated state; no resources held.
 */
#ifndef G16_UTIL_BLAKE2B_H
#define G16_UTIL_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t h[8];
    uint64_t t[2];
    uint8_t buf[128];
    size_t buflen;
    size_t outlen;
} g16__blake2b;

/* outlen in 1..64; returns -1 otherwise. */
int g16__blake2b_init(g16__blake2b *s, size_t outlen);
void g16__blake2b_update(g16__blake2b *s, const void *data, size_t len);
void g16__blake2b_final(g16__blake2b *s, uint8_t *out);

#endif
