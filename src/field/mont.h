/*
 * Generic Montgomery arithmetic over n 64-bit limbs (n <= 6), shared by Fp (n = 6) and Fr (n = 4).
 *
 * Representation: little-endian limbs, values in Montgomery form a·2^(64n) mod m.
 * Invariant: inputs are fully reduced (< m); outputs are fully reduced.
 * Every function here is constant-time: the sequence of operations and memory
 * accesses depends only on n, never on the values.
 * Outputs may alias inputs.
 *
 * These are static inline so that each field instantiates them with a
 * compile-time n and the compiler unrolls the loops (this is the portable
 * unsigned __int128 path; x86-64 MULX/ADX code lives in fp_x86.c).
 */
#ifndef G16_FIELD_MONT_H
#define G16_FIELD_MONT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef unsigned __int128 g16__u128;

#define G16__MONT_MAX_LIMBS 6

/* r = t - m if (hi:t) >= m else t, where (hi:t) < 2m. */
static inline void mont_final_sub(uint64_t *r, const uint64_t *t, uint64_t hi, const uint64_t *m, size_t n)
{
    uint64_t d[G16__MONT_MAX_LIMBS];
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        g16__u128 x = (g16__u128)t[i] - m[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    /* keep d when the subtraction did not underflow, or when the carry-out hi absorbs it */
    uint64_t take_d = 0 - ((borrow ^ 1) | hi);
    for (size_t i = 0; i < n; i++)
        r[i] = (d[i] & take_d) | (t[i] & ~take_d);
}

static inline void mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, size_t n)
{
    uint64_t t[G16__MONT_MAX_LIMBS];
    uint64_t carry = 0;
    for (size_t i = 0; i < n; i++) {
        g16__u128 x = (g16__u128)a[i] + b[i] + carry;
        t[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
    mont_final_sub(r, t, carry, m, n);
}

static inline void mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, size_t n)
{
    uint64_t t[G16__MONT_MAX_LIMBS];
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        g16__u128 x = (g16__u128)a[i] - b[i] - borrow;
        t[i] = (uint64_t)x;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    uint64_t mask = 0 - borrow, carry = 0;
    for (size_t i = 0; i < n; i++) {
        g16__u128 x = (g16__u128)t[i] + (m[i] & mask) + carry;
        r[i] = (uint64_t)x;
        carry = (uint64_t)(x >> 64);
    }
}

/* r = -a mod m (0 stays 0). */
static inline void mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t nz = 0;
    for (size_t i = 0; i < n; i++)
        nz |= a[i];
    uint64_t mask = 0 - (uint64_t)(nz != 0);
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        g16__u128 x = (g16__u128)m[i] - a[i] - borrow;
        r[i] = (uint64_t)x & mask;
        borrow = (uint64_t)(x >> 64) & 1;
    }
}

/* CIOS Montgomery multiplication: r = a·b·2^(-64n) mod m, n0 = -m^(-1) mod 2^64. */
static inline void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *m, uint64_t n0,
                            size_t n)
{
    uint64_t t[G16__MONT_MAX_LIMBS] = {0};
    uint64_t hi = 0;
    for (size_t i = 0; i < n; i++) {
        g16__u128 acc;
        uint64_t c = 0;
        for (size_t j = 0; j < n; j++) {
            acc = (g16__u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        acc = (g16__u128)hi + c;
        uint64_t tn = (uint64_t)acc, tn1 = (uint64_t)(acc >> 64);
        uint64_t q = t[0] * n0;
        acc = (g16__u128)q * m[0] + t[0];
        c = (uint64_t)(acc >> 64);
        for (size_t j = 1; j < n; j++) {
            acc = (g16__u128)q * m[j] + t[j] + c;
            t[j - 1] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        acc = (g16__u128)tn + c;
        t[n - 1] = (uint64_t)acc;
        hi = tn1 + (uint64_t)(acc >> 64);
    }
    mont_final_sub(r, t, hi, m, n);
}

/* r = a · 2^(-64n) mod m: leaves Montgomery form (a must be < m). */
static inline void mont_reduce(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t n0, size_t n)
{
    uint64_t one[G16__MONT_MAX_LIMBS] = {1};
    mont_mul(r, a, one, m, n0, n);
}

/* 1 when a == b, 0 otherwise; constant-time. */
static inline int mont_eq(const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i] ^ b[i];
    return (int)(((d | (0 - d)) >> 63) ^ 1);
}

static inline int mont_is_zero(const uint64_t *a, size_t n)
{
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d |= a[i];
    return (int)(((d | (0 - d)) >> 63) ^ 1);
}

/* r = flag ? a : r, flag in {0,1}; constant-time. */
static inline void mont_cmov(uint64_t *r, const uint64_t *a, int flag, size_t n)
{
    uint64_t mask = 0 - (uint64_t)(flag & 1);
    for (size_t i = 0; i < n; i++)
        r[i] ^= (r[i] ^ a[i]) & mask;
}

/* 1 when the canonical little-endian limbs a are < m (constant-time). */
static inline int mont_lt(const uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        g16__u128 x = (g16__u128)a[i] - m[i] - borrow;
        borrow = (uint64_t)(x >> 64) & 1;
    }
    return (int)borrow;
}

static inline void limbs_from_be(uint64_t *l, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8; k++)
            w = (w << 8) | in[(n - 1 - i) * 8 + k];
        l[i] = w;
    }
}

static inline void limbs_to_be(uint8_t *out, const uint64_t *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 8; k++)
            out[(n - 1 - i) * 8 + k] = (uint8_t)(l[i] >> (56 - 8 * k));
}

static inline void limbs_from_le(uint64_t *l, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8; k++)
            w |= (uint64_t)in[i * 8 + k] << (8 * k);
        l[i] = w;
    }
}

static inline void limbs_to_le(uint8_t *out, const uint64_t *l, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < 8; k++)
            out[i * 8 + k] = (uint8_t)(l[i] >> (8 * k));
}

/* The variable-time inversion (safegcd) is in inv_var.h. */

#endif /* G16_FIELD_MONT_H */
