/*
 * Fp6 = Fp2[v]/(v³ − ξ), ξ = u + 1: elements c0 + c1·v + c2·v² (g16_fp6), each coefficient a
 * reduced Fp2 element in Montgomery form. This is the tower of blst, zkcrypto and @noble/curves.
 *
 * Invariants: inputs and outputs fully reduced; outputs may alias inputs.
 * Timing: constant-time (no function here branches on values).
 */
#ifndef G16_FIELD_FP6_H
#define G16_FIELD_FP6_H

#include "fp2.h"

extern const g16_fp6 g16__fp6_one;

void g16__fp6_add(g16_fp6 *r, const g16_fp6 *a, const g16_fp6 *b);
void g16__fp6_sub(g16_fp6 *r, const g16_fp6 *a, const g16_fp6 *b);
void g16__fp6_neg(g16_fp6 *r, const g16_fp6 *a);
void g16__fp6_dbl(g16_fp6 *r, const g16_fp6 *a);
void g16__fp6_mul(g16_fp6 *r, const g16_fp6 *a, const g16_fp6 *b);
void g16__fp6_sqr(g16_fp6 *r, const g16_fp6 *a);
void g16__fp6_inv(g16_fp6 *r, const g16_fp6 *a); /* 0 -> 0 */
void g16__fp6_mul_fp2(g16_fp6 *r, const g16_fp6 *a, const g16_fp2 *b);

/* r = a·v (v³ = ξ): (c0, c1, c2) -> (ξ·c2, c0, c1). Used by Fp12, where w² = v. */
void g16__fp6_mul_by_nonresidue(g16_fp6 *r, const g16_fp6 *a);
/* Sparse products for the Miller loop's lines: r = a·(b0 + b1·v) and r = a·(b1·v). */
void g16__fp6_mul_by_01(g16_fp6 *r, const g16_fp6 *a, const g16_fp2 *b0, const g16_fp2 *b1);
void g16__fp6_mul_by_1(g16_fp6 *r, const g16_fp6 *a, const g16_fp2 *b1);

/* r = a^(p^k) for k in {1, 2, 3} (other k: r = a^(p^(k mod 6)) by composition is the caller's job). */
void g16__fp6_frobenius(g16_fp6 *r, const g16_fp6 *a, int k);

/*
 * Lazy reduction (see fp2.h's wide values): products left as double-length coefficients
 * (each < p·2^384), combined with modular wide additions, reduced once per output coefficient.
 */
typedef struct { g16__fp2_wide c0, c1, c2; } g16__fp6_wide;

void g16__fp6_mul_wide(g16__fp6_wide *r, const g16_fp6 *a, const g16_fp6 *b);
void g16__fp6_mul_by_01_wide(g16__fp6_wide *r, const g16_fp6 *a, const g16_fp2 *b0, const g16_fp2 *b1);
void g16__fp6_mul_by_1_wide(g16__fp6_wide *r, const g16_fp6 *a, const g16_fp2 *b1);
void g16__fp6_redc(g16_fp6 *r, const g16__fp6_wide *t);

static inline void g16__fp6w_add(g16__fp6_wide *r, const g16__fp6_wide *a, const g16__fp6_wide *b)
{
    g16__fp2w_add(&r->c0, &a->c0, &b->c0);
    g16__fp2w_add(&r->c1, &a->c1, &b->c1);
    g16__fp2w_add(&r->c2, &a->c2, &b->c2);
}

static inline void g16__fp6w_sub(g16__fp6_wide *r, const g16__fp6_wide *a, const g16__fp6_wide *b)
{
    g16__fp2w_sub(&r->c0, &a->c0, &b->c0);
    g16__fp2w_sub(&r->c1, &a->c1, &b->c1);
    g16__fp2w_sub(&r->c2, &a->c2, &b->c2);
}

/* r = a + b·v (the Fp12 reduction w² = v applied to a wide product); r must not alias b. */
static inline void g16__fp6w_add_mul_by_v(g16__fp6_wide *r, const g16__fp6_wide *a, const g16__fp6_wide *b)
{
    g16__fp2_wide t;
    g16__fp2w_mul_by_nonresidue(&t, &b->c2);
    g16__fp2w_add(&r->c0, &a->c0, &t);
    g16__fp2w_add(&r->c1, &a->c1, &b->c0);
    g16__fp2w_add(&r->c2, &a->c2, &b->c1);
}

/* r = a − b·v; r must not alias b. */
static inline void g16__fp6w_sub_mul_by_v(g16__fp6_wide *r, const g16__fp6_wide *a, const g16__fp6_wide *b)
{
    g16__fp2_wide t;
    g16__fp2w_mul_by_nonresidue(&t, &b->c2);
    g16__fp2w_sub(&r->c0, &a->c0, &t);
    g16__fp2w_sub(&r->c1, &a->c1, &b->c0);
    g16__fp2w_sub(&r->c2, &a->c2, &b->c1);
}

void g16__fp6_set_zero(g16_fp6 *r);
void g16__fp6_set_one(g16_fp6 *r);
int g16__fp6_is_zero(const g16_fp6 *a);
int g16__fp6_is_one(const g16_fp6 *a);
int g16__fp6_eq(const g16_fp6 *a, const g16_fp6 *b);
void g16__fp6_cmov(g16_fp6 *r, const g16_fp6 *a, int flag);

#endif /* G16_FIELD_FP6_H */
