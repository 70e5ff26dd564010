/*
 * G1: points of E(Fp): y² = x³ + 4, and its prime-order subgroup (order r, cofactor h1).
 *
 * Representation: g16_p1 (Jacobian: x = X/Z², y = Y/Z³; Z = 0 is infinity) and
 * g16_p1_affine (x, y; infinity is x = y = 0). Coordinates are Fp elements (fp.h).
 * Inputs must be points on the curve unless a function says otherwise; outputs may alias inputs.
 *
 * Timing: functions without _var are constant-time in the point and scalar values
 * (complete formulas through conditional moves), so they may take secrets (the
 * prover's r and s). _var functions branch on values: public data only.
 */
#ifndef G16_CURVE_G1_H
#define G16_CURVE_G1_H

#include "field/fp.h"
#include "field/fr.h"

extern const g16_p1_affine g16__p1_generator_affine; /* the standard generator (zcash / IETF) */

void g16__p1_generator(g16_p1 *r);
void g16__p1_set_infinity(g16_p1 *r);
int g16__p1_is_infinity(const g16_p1 *a);
int g16__p1_affine_is_infinity(const g16_p1_affine *a);

void g16__p1_from_affine(g16_p1 *r, const g16_p1_affine *a);
void g16__p1_to_affine(g16_p1_affine *r, const g16_p1 *a);
/* n conversions with one field inversion (Montgomery's trick); infinity maps to (0, 0).
 * r and a must not overlap (r is used as scratch space). */
void g16__p1_batch_to_affine(g16_p1_affine *r, const g16_p1 *a, size_t n);

void g16__p1_add(g16_p1 *r, const g16_p1 *a, const g16_p1 *b);                /* complete */
void g16__p1_add_affine(g16_p1 *r, const g16_p1 *a, const g16_p1_affine *b);  /* mixed, complete */
void g16__p1_add_var(g16_p1 *r, const g16_p1 *a, const g16_p1 *b);            /* branches: faster */
void g16__p1_add_affine_var(g16_p1 *r, const g16_p1 *a, const g16_p1_affine *b);
void g16__p1_dbl(g16_p1 *r, const g16_p1 *a);
void g16__p1_neg(g16_p1 *r, const g16_p1 *a);
void g16__p1_affine_neg(g16_p1_affine *r, const g16_p1_affine *a);
int g16__p1_eq(const g16_p1 *a, const g16_p1 *b); /* projective equality (different Z allowed) */
int g16__p1_affine_eq(const g16_p1_affine *a, const g16_p1_affine *b);

/* r = k·a for a scalar of Fr (Montgomery form): constant-time / windowed variable-time. */
void g16__p1_mul(g16_p1 *r, const g16_p1 *a, const g16_fr *k);
void g16__p1_mul_var(g16_p1 *r, const g16_p1 *a, const g16_fr *k);
/* r = k·a for a public integer k of nbits bits in little-endian 64-bit limbs (any size,
 * e.g. cofactors or r itself). Variable-time. */
void g16__p1_mul_limbs_var(g16_p1 *r, const g16_p1 *a, const uint64_t *k, size_t nbits);

int g16__p1_on_curve(const g16_p1 *a);                /* infinity counts as on the curve */
int g16__p1_affine_on_curve(const g16_p1_affine *a);
/* Subgroup membership by the endomorphism test (σ(P) = −x²·P), ~2× faster than r·P = O;
 * the point must be on the curve. Infinity is in the subgroup. */
int g16__p1_in_subgroup(const g16_p1 *a);
int g16__p1_affine_in_subgroup(const g16_p1_affine *a);
/* σ(x, y) = (β·x, y), β a primitive cube root of unity in Fp chosen so that σ acts on G1 as
 * multiplication by −x² (mod r). */
void g16__p1_sigma(g16_p1 *r, const g16_p1 *a);

#endif /* G16_CURVE_G1_H */
