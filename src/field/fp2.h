/*
 * Fp2 = Fp[u]/(u² + 1): elements c0 + c1·u (g16_fp2), each coefficient an Fp element in
 * Montgomery form, fully reduced. Outputs may alias inputs. Constant-time except _var.
 *
 * The tower above it uses the non-residue ξ = u + 1 (Fp6 = Fp2[v]/(v³ − ξ)).
 */
#ifndef G16_FIELD_FP2_H
#define G16_FIELD_FP2_H

#include "fp.h"

extern const g16_fp2 g16__fp2_one;

void g16__fp2_add(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b);
void g16__fp2_sub(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b);
void g16__fp2_neg(g16_fp2 *r, const g16_fp2 *a);
void g16__fp2_dbl(g16_fp2 *r, const g16_fp2 *a);
void g16__fp2_conj(g16_fp2 *r, const g16_fp2 *a); /* c0 − c1·u; also the Frobenius map a^p */
void g16__fp2_mul(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b);
void g16__fp2_sqr(g16_fp2 *r, const g16_fp2 *a);
void g16__fp2_mul_fp(g16_fp2 *r, const g16_fp2 *a, const g16_fp *b);
void g16__fp2_mul_by_nonresidue(g16_fp2 *r, const g16_fp2 *a); /* r = a·(u + 1) */
void g16__fp2_half(g16_fp2 *r, const g16_fp2 *a);               /* r = a/2 */

void g16__fp2_set_zero(g16_fp2 *r);
void g16__fp2_set_one(g16_fp2 *r);
int g16__fp2_is_zero(const g16_fp2 *a);
int g16__fp2_is_one(const g16_fp2 *a);
int g16__fp2_eq(const g16_fp2 *a, const g16_fp2 *b);
void g16__fp2_cmov(g16_fp2 *r, const g16_fp2 *a, int flag);

void g16__fp2_pow(g16_fp2 *r, const g16_fp2 *a, const uint64_t *e, size_t nlimbs); /* e public */
void g16__fp2_inv(g16_fp2 *r, const g16_fp2 *a);     /* 0 -> 0, constant-time */
void g16__fp2_inv_var(g16_fp2 *r, const g16_fp2 *a); /* 0 -> 0 */
/* Square root (p ≡ 3 mod 4 algorithm of Adj and Rodríguez-Henríquez): returns 1 and sets r
 * to a root when a is a square, else returns 0 (r then holds an unspecified reduced value). */
int g16__fp2_sqrt(g16_fp2 *r, const g16_fp2 *a);

/* zcash sign of an Fp2 y: compare c1 first, c0 when c1 = 0; 1 when "larger" than −y. */
int g16__fp2_is_lexmax(const g16_fp2 *a);

#endif /* G16_FIELD_FP2_H */
