/*
 * G2: points of the twist E'(Fp2): y² = x³ + 4(u + 1), and its prime-order subgroup (order r).
 *
 * Representation: g16_p2 (Jacobian: x = X/Z², y = Y/Z³; Z = 0 is infinity) and
 * g16_p2_affine (x, y; infinity is x = y = 0). Coordinates are Fp2 elements (fp2.h).
 * Inputs must be points on the curve unless a function says otherwise; outputs may alias inputs.
 *
 * Timing: functions without _var are constant-time in the point and scalar values
 * (complete formulas through conditional moves), so they may take secrets (the
 * prover's r and s). _var functions branch on values: public data only.
 */
#ifndef G16_CURVE_G2_H
#define G16_CURVE_G2_H

#include "field/fp2.h"
#include "field/fr.h"

extern const g16_p2_affine g16__p2_generator_affine; /* the standard generator (zcash / IETF) */

void g16__p2_generator(g16_p2 *r);
void g16__p2_set_infinity(g16_p2 *r);
int g16__p2_is_infinity(const g16_p2 *a);
int g16__p2_affine_is_infinity(const g16_p2_affine *a);

void g16__p2_from_affine(g16_p2 *r, const g16_p2_affine *a);
void g16__p2_to_affine(g16_p2_affine *r, const g16_p2 *a);
/* n conversions with one field inversion (Montgomery's trick); infinity maps to (0, 0).
 * r and a must not overlap (r is used as scratch space). */
void g16__p2_batch_to_affine(g16_p2_affine *r, const g16_p2 *a, size_t n);

void g16__p2_add(g16_p2 *r, const g16_p2 *a, const g16_p2 *b);                /* complete */
void g16__p2_add_affine(g16_p2 *r, const g16_p2 *a, const g16_p2_affine *b);  /* mixed, complete */
void g16__p2_add_var(g16_p2 *r, const g16_p2 *a, const g16_p2 *b);            /* branches: faster */
void g16__p2_add_affine_var(g16_p2 *r, const g16_p2 *a, const g16_p2_affine *b);
void g16__p2_dbl(g16_p2 *r, const g16_p2 *a);
void g16__p2_neg(g16_p2 *r, const g16_p2 *a);
void g16__p2_affine_neg(g16_p2_affine *r, const g16_p2_affine *a);
int g16__p2_eq(const g16_p2 *a, const g16_p2 *b); /* projective equality (different Z allowed) */
int g16__p2_affine_eq(const g16_p2_affine *a, const g16_p2_affine *b);

/* r = k·a for a scalar of Fr (Montgomery form): constant-time / windowed variable-time. */
void g16__p2_mul(g16_p2 *r, const g16_p2 *a, const g16_fr *k);
void g16__p2_mul_var(g16_p2 *r, const g16_p2 *a, const g16_fr *k);
/* r = k·a for a public integer k of nbits bits in little-endian 64-bit limbs (any size,
 * e.g. cofactors or r itself). Variable-time. */
void g16__p2_mul_limbs_var(g16_p2 *r, const g16_p2 *a, const uint64_t *k, size_t nbits);

int g16__p2_on_curve(const g16_p2 *a);                /* infinity counts as on the curve */
int g16__p2_affine_on_curve(const g16_p2_affine *a);
/* Subgroup membership by the endomorphism test (ψ(P) = x·P), much faster than r·P = O;
 * the point must be on the curve. Infinity is in the subgroup. */
int g16__p2_in_subgroup(const g16_p2 *a);
int g16__p2_affine_in_subgroup(const g16_p2_affine *a);
/* ψ = twist⁻¹ ∘ Frobenius ∘ twist, an endomorphism of E'(Fp2) that acts on G2 as multiplication
 * by x (≡ p mod r). */
void g16__p2_psi(g16_p2 *r, const g16_p2 *a);

#endif /* G16_CURVE_G2_H */
