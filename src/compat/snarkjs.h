/*
 * snarkjs's JSON files for Groth16 on BLS12-381 (snarkjs 0.7.x), written and read:
 *
 *   verification_key.json  {"protocol": "groth16", "curve": "bls12381", "nPublic": k,
 *                           "vk_alpha_1": G1, "vk_beta_2": G2, "vk_gamma_2": G2, "vk_delta_2": G2,
 *                           "IC": [G1 × (k + 1)]}
 *   proof.json             {"pi_a": G1, "pi_b": G2, "pi_c": G1, "protocol": "groth16", "curve": "bls12381"}
 *   public.json            ["x1", ..., "xk"]
 *
 * Points are projective with decimal-string coordinates (canonical values, no leading zeros):
 * G1 = [x, y, z], G2 = [[x.c0, x.c1], [y.c0, y.c1], [z.c0, z.c1]]. The writers emit affine
 * points (z = "1" / ["1", "0"]) and infinity as snarkjs does ([0, 1, 0]). The readers accept
 * exactly those two forms (any other z is refused) and check every point: coordinates below p,
 * on the curve, in the prime-order subgroup. The vk also carries vk_alphabeta_12 = e(alpha, beta)
 * in Fp12 (six Fp2 pairs, snarkjs's tower, which is g16's), as snarkjs's zkey export writes it, so
 * the whole file is byte for byte what `snarkjs zkey export verificationkey` writes; snarkjs's
 * verifier does not read it, and g16's reader checks it only when present (it must equal the
 * pairing). Unknown keys are ignored. "protocol" must be "groth16" and "curve" must name BLS12-381 (compared as snarkjs
 * does: case and punctuation ignored, so "bls12381", "BLS12-381"); other values are refused with
 * a message naming them. Public inputs are decimal strings (or JSON integers) below r.
 *
 * The verifying key read here has no beta_g1 and delta_g1 (snarkjs's file lacks them; they are
 * set to infinity): it verifies, it cannot be saved as bellman parameters.
 *
 * Errors: G16_ERR_FORMAT for JSON and shape problems, the point statuses (G16_ERR_COORD_RANGE,
 * G16_ERR_NOT_ON_CURVE, G16_ERR_NOT_IN_SUBGROUP), G16_ERR_SCALAR_RANGE for an input >= r,
 * G16_ERR_SIZE_MISMATCH for nPublic != len(IC) − 1; err->msg names the file and the JSON path
 * ("verification_key.json: IC[2][1]: ...").
 */
#ifndef G16_COMPAT_SNARKJS_H
#define G16_COMPAT_SNARKJS_H

#include <stddef.h>

#include "compat/json.h"
#include "g16.h"

/* Decimal text of canonical field values: at most 116 digits for Fp, 78 for Fr, plus NUL. */
#define G16__DEC_MAX 120
void g16__fp_to_decimal(char out[G16__DEC_MAX], const g16_fp *a);
void g16__fr_to_decimal(char out[G16__DEC_MAX], const g16_fr *a);
/* Parses decimal digits (no sign, no leading zeros, not empty) into an element; G16_ERR_FORMAT
 * for bad text, G16_ERR_COORD_RANGE (Fp) / G16_ERR_SCALAR_RANGE (Fr) for a value >= the modulus. */
g16_status g16__fp_from_decimal(g16_fp *out, const char *s, size_t len);
g16_status g16__fr_from_decimal(g16_fr *out, const char *s, size_t len);

/* Writers: NUL-terminated JSON text (caller frees), NULL when out of memory. */
char *g16__snarkjs_vk_json(const g16_vk *vk);
char *g16__snarkjs_proof_json(const g16_proof *proof);
char *g16__snarkjs_public_json(const g16_fr *inputs, size_t n_inputs);

/* Readers over text[0..len); what names the file in messages. */
g16_status g16__snarkjs_vk_read(g16_vk **out, const char *text, size_t len, const char *what, g16_error *err);
g16_status g16__snarkjs_proof_read(g16_proof *out, const char *text, size_t len, const char *what, g16_error *err);
/* *inputs: a new array of *n_inputs values (caller frees; NULL when there are none). */
g16_status g16__snarkjs_public_read(g16_fr **inputs, size_t *n_inputs, const char *text, size_t len,
                                   const char *what, g16_error *err);

/* 1 when a snarkjs "curve" value names BLS12-381 (letters and digits only, case ignored). */
int g16__snarkjs_curve_is_bls12381(const char *name);

#endif /* G16_COMPAT_SNARKJS_H */
