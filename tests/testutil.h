/*
 * Test helpers: a seeded PRNG (xoshiro256**) whose seed is printed at start so any
 * failure can be replayed with G16_SEED=<seed>, random field elements, GMP conversions.
 */
#ifndef G16_TESTUTIL_H
#define G16_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <gmp.h>

#include "g16.h"

/* Seeds the PRNG from G16_SEED or the clock and prints "seed: N" to stderr. Call once in main. */
uint64_t tu_seed(const char *test_name);
uint64_t tu_rand64(void);
void tu_rand_bytes(uint8_t *buf, size_t n);

/* Uniform random elements (rejection sampling on canonical limbs). */
void tu_rand_fp(g16_fp *r);
void tu_rand_fr(g16_fr *r);
void tu_rand_fp2(g16_fp2 *r);

/* Canonical value <-> mpz. */
void tu_fp_to_mpz(mpz_t z, const g16_fp *a);
void tu_fp_from_mpz(g16_fp *r, const mpz_t z); /* z reduced mod p first */
void tu_fr_to_mpz(mpz_t z, const g16_fr *a);
void tu_fr_from_mpz(g16_fr *r, const mpz_t z);
void tu_mpz_p(mpz_t z); /* the base prime p */
void tu_mpz_r(mpz_t z); /* the group order r */

/* Hex helpers: parse/print lowercase hex byte strings (no 0x). parse returns byte count or -1. */
long tu_hex_decode(uint8_t *out, size_t cap, const char *hex);
void tu_hex_encode(char *out, const uint8_t *in, size_t n);

/* A whole test-data file, NUL-terminated (len excludes the NUL; free buf). rel is relative to
 * G16_TEST_DATA (CMake sets it to tests/data), else to tests/data; a missing file fails the test. */
typedef struct {
    uint8_t *buf;
    size_t len;
} tu_blob;
tu_blob tu_load_data(const char *rel);

/* Number of iterations for randomized tests: G16_TEST_ITERS overrides the default. */
int tu_iters(int dflt);

#endif
