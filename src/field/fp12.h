/*
 * Fp12 = Fp6[w]/(w² − v): elements c0 + c1·w (g16_fp12) with c0, c1 ∈ Fp6 (fp6.h), so
 * w⁶ = ξ = u + 1. Over Fp2 the basis is 1, v, v², w, v·w, v²·w = w⁰, w², w⁴, w¹, w³, w⁵.
 *
 * Invariants: inputs and outputs fully reduced (every Fp coefficient < p, Montgomery form);
 * outputs may alias inputs. Timing: constant-time except where an exponent is named public.
 *
 * The pairing's values live in the cyclotomic subgroup G_Φ12 = {a : a^(p⁴ − p² + 1) = 1};
 * the _cyclotomic functions are correct only there (anything raised to (p⁶ − 1)(p² + 1) is).
 */
#ifndef G16_FIELD_FP12_H
#define G16_FIELD_FP12_H

#include "fp6.h"

#define G16__FP12_BYTES 576

extern const g16_fp12 g16__fp12_one;

void g16__fp12_add(g16_fp12 *r, const g16_fp12 *a, const g16_fp12 *b);
void g16__fp12_sub(g16_fp12 *r, const g16_fp12 *a, const g16_fp12 *b);
void g16__fp12_neg(g16_fp12 *r, const g16_fp12 *a);
void g16__fp12_mul(g16_fp12 *r, const g16_fp12 *a, const g16_fp12 *b);
void g16__fp12_sqr(g16_fp12 *r, const g16_fp12 *a);
void g16__fp12_inv(g16_fp12 *r, const g16_fp12 *a); /* 0 -> 0 */
/* c0 − c1·w: the p⁶-power Frobenius; the inverse for elements of the cyclotomic subgroup. */
void g16__fp12_conj(g16_fp12 *r, const g16_fp12 *a);
/* r = a^(p^k) for k in {1, 2, 3}. */
void g16__fp12_frobenius(g16_fp12 *r, const g16_fp12 *a, int k);

/* r = a·(o0 + o1·v + o4·v·w): a Miller-loop line for the M-type twist (coefficients 0, 1, 4
 * in the Fp2 basis 1, v, v², w, vw, v²w). 13 Fp2 multiplications instead of 18. */
void g16__fp12_mul_by_014(g16_fp12 *r, const g16_fp12 *a, const g16_fp2 *o0, const g16_fp2 *o1,
                          const g16_fp2 *o4);

/* Granger–Scott squaring: a² for a in the cyclotomic subgroup only (9 Fp2 squarings). */
void g16__fp12_cyclotomic_sqr(g16_fp12 *r, const g16_fp12 *a);
/* r = a^x for the (negative) BLS parameter x = −0xd201000000010000, a cyclotomic. */
void g16__fp12_cyclotomic_exp_x(g16_fp12 *r, const g16_fp12 *a);

/* r = a^e, e given as nlimbs little-endian 64-bit limbs (public: time depends on e). */
void g16__fp12_pow(g16_fp12 *r, const g16_fp12 *a, const uint64_t *e, size_t nlimbs);

void g16__fp12_set_zero(g16_fp12 *r);
void g16__fp12_set_one(g16_fp12 *r);
int g16__fp12_is_zero(const g16_fp12 *a);
int g16__fp12_is_one(const g16_fp12 *a);
int g16__fp12_eq(const g16_fp12 *a, const g16_fp12 *b);
void g16__fp12_cmov(g16_fp12 *r, const g16_fp12 *a, int flag);

/* 12 canonical 48-byte big-endian Fp values in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, c0.c1.c1,
 * c0.c2.c0, c0.c2.c1, c1.c0.c0, ..., c1.c2.c1 (the order of @noble/curves' Fp12.toBytes).
 * from_be_bytes returns 0, or −1 when a coefficient is >= p (r is then untouched). */
void g16__fp12_to_be_bytes(uint8_t out[576], const g16_fp12 *a);
int g16__fp12_from_be_bytes(g16_fp12 *r, const uint8_t in[576]);

#endif /* G16_FIELD_FP12_H */
