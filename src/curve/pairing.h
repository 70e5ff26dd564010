/*
 * The optimal ate pairing e: G1 × G2 → GT ⊂ Fp12*, BLS12-381 parameter x = −0xd201000000010000.
 *
 * e(P, Q) = final_exp(miller_loop(P, Q)). Inputs are affine points in their subgroups
 * (not checked here: decoding checks them); infinity in either argument gives 1.
 * Multi-pairings multiply the Miller loops and do one final exponentiation.
 * A G2 point can be prepared once (its line coefficients precomputed) when it is
 * paired many times, as a verifying key's β, γ, δ are.
 *
 * Value: e(P, Q) = f^(3(p¹² − 1)/r) with f the Miller loop (conjugated since x < 0), the value
 * blst, zkcrypto/bls12_381 and @noble/curves return (their hard parts compute 3(p⁴ − p² + 1)/r);
 * it is the cube of the textbook reduced pairing, still a non-degenerate bilinear map (3 ∤ r).
 * g16__fp12_to_be_bytes gives the byte layout of the test vectors.
 *
 * Timing: constant-time in the points, including which of them are infinity (an infinity
 * pair runs the same code with its lines replaced by 1 through conditional moves); the time
 * depends only on n. The Miller-loop values are meaningful only after g16__final_exp.
 * Nothing here allocates; g16__p2_prepared is about 19.6 KiB (caller-allocated).
 */
#ifndef G16_CURVE_PAIRING_H
#define G16_CURVE_PAIRING_H

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp12.h"

/* Line coefficients of the Miller loop for one G2 point (68 = 63 doublings + 5 additions for |x|). */
#define G16__PAIRING_LINES 68
typedef struct {
    g16_fp2 ell[G16__PAIRING_LINES][3];
    int infinity;
} g16__p2_prepared;

void g16__p2_prepare(g16__p2_prepared *out, const g16_p2_affine *q);

void g16__miller_loop(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q);
/* r = Π miller_loop(p[i], q[i]) */
void g16__miller_loop_n(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q, size_t n);
void g16__miller_loop_prepared_n(g16_fp12 *r, const g16_p1_affine *p, const g16__p2_prepared *const *q, size_t n);
void g16__final_exp(g16_fp12 *r, const g16_fp12 *f);

void g16__pairing(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q);
void g16__multi_pairing(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q, size_t n);

#endif /* G16_CURVE_PAIRING_H */
