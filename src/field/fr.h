/*
 * Fr: the BLS12-381 scalar field, r = 0x73eda753...00000001 (255 bits), the order of G1 and G2.
 *
 * Representation: g16_fr (include/g16.h), 4 little-endian 64-bit limbs holding a·R mod r,
 * R = 2^256 (Montgomery form). Invariant: fully reduced (< r) in and out. Outputs may alias inputs.
 * Constant-time except functions named _var. Exponents are public.
 *
 * r − 1 = 2^32 · t with t odd (2-adicity 32). The multiplicative generator used for
 * cosets is 7, as in bellman and Filecoin (snarkjs builds its roots from 5; both are
 * quadratic non-residues, so either generates the 2^32-torsion through g^t).
 */
#ifndef G16_FIELD_FR_H
#define G16_FIELD_FR_H

#include "g16.h"

#define G16__FR_LIMBS 4
#define G16__FR_BYTES 32
#define G16__FR_BITS 255
#define G16__FR_TWO_ADICITY 32

extern const uint64_t g16__fr_modulus[4];
extern const uint64_t g16__fr_n0;
extern const g16_fr g16__fr_one;
extern const g16_fr g16__fr_r2;
extern const g16_fr g16__fr_generator; /* 7, Montgomery form */

void g16__fr_add(g16_fr *r, const g16_fr *a, const g16_fr *b);
void g16__fr_sub(g16_fr *r, const g16_fr *a, const g16_fr *b);
void g16__fr_neg(g16_fr *r, const g16_fr *a);
void g16__fr_dbl(g16_fr *r, const g16_fr *a);
void g16__fr_mul(g16_fr *r, const g16_fr *a, const g16_fr *b);
void g16__fr_sqr(g16_fr *r, const g16_fr *a);

/* As for Fp, multiplication and squaring pick at load time (CPUID) between the x86-64
 * MULX/ADCX/ADOX path (fr_x86.c) and the portable path; both are exported for the tests. */
void g16__fr_mul_portable(g16_fr *r, const g16_fr *a, const g16_fr *b);
void g16__fr_sqr_portable(g16_fr *r, const g16_fr *a);
/* 1 when the MULX/ADX path is compiled in and this CPU supports it. */
int g16__fr_have_mulx(void);
/* Forces the portable path (on = 1) or restores the CPUID choice (on = 0); for tests and benchmarks. */
void g16__fr_force_portable(int on);
#if defined(__x86_64__)
void g16__fr_mul_mulx(g16_fr *r, const g16_fr *a, const g16_fr *b);
void g16__fr_sqr_mulx(g16_fr *r, const g16_fr *a);
/* Addition, subtraction and negation in x86-64 assembly (baseline instructions, no CPUID test);
 * g16__fr_add/sub/neg/dbl call them whenever the assembly is compiled in. */
void g16__fr_add_x86(g16_fr *r, const g16_fr *a, const g16_fr *b);
void g16__fr_sub_x86(g16_fr *r, const g16_fr *a, const g16_fr *b);
void g16__fr_neg_x86(g16_fr *r, const g16_fr *a);
#endif

void g16__fr_set_zero(g16_fr *r);
void g16__fr_set_one(g16_fr *r);
void g16__fr_from_u64(g16_fr *r, uint64_t v);
int g16__fr_is_zero(const g16_fr *a);
int g16__fr_is_one(const g16_fr *a);
int g16__fr_eq(const g16_fr *a, const g16_fr *b);
void g16__fr_cmov(g16_fr *r, const g16_fr *a, int flag);

void g16__fr_pow(g16_fr *r, const g16_fr *a, const uint64_t *e, size_t nlimbs);
void g16__fr_inv(g16_fr *r, const g16_fr *a);     /* constant-time (Fermat); 0 -> 0 */
void g16__fr_inv_var(g16_fr *r, const g16_fr *a); /* variable-time safegcd (inv_var.h); 0 -> 0 */

/* A primitive 2^log_n-th root of unity derived from generator g (Montgomery form, a quadratic
 * non-residue): g^((r-1)/2^log_n). Returns -1 (r untouched) when log_n > 32. */
int g16__fr_root_of_unity_from(g16_fr *r, const g16_fr *g, unsigned log_n);
/* Same with the default generator 7. */
int g16__fr_root_of_unity(g16_fr *r, unsigned log_n);

/* Canonical (non-Montgomery) limbs and 32-byte encodings. from_* return 0, or -1 when >= r. */
int g16__fr_from_limbs(g16_fr *r, const uint64_t l[4]);
void g16__fr_to_limbs(uint64_t l[4], const g16_fr *a);
int g16__fr_from_be_bytes(g16_fr *r, const uint8_t in[32]);
void g16__fr_to_be_bytes(uint8_t out[32], const g16_fr *a);
int g16__fr_from_le_bytes(g16_fr *r, const uint8_t in[32]);
void g16__fr_to_le_bytes(uint8_t out[32], const g16_fr *a);

#endif /* G16_FIELD_FR_H */
