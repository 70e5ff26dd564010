/*
 * Fp: the BLS12-381 base field, p = 0x1a0111ea...ffffaaab (381 bits, p ≡ 3 mod 4).
 *
 * Representation: g16_fp (include/g16.h), 6 little-endian 64-bit limbs holding a·R mod p,
 * R = 2^384 (Montgomery form). Invariant: every element is fully reduced (< p); all
 * functions require reduced inputs and produce reduced outputs. Outputs may alias inputs.
 *
 * Timing: everything is constant-time except functions named _var, whose running
 * time depends on the value (use them only on public data). Exponentiation takes the
 * exponent as public data (time depends on its bits, never on the base).
 *
 * Multiplication and squaring pick at run time (CPUID, once at load) between the
 * x86-64 MULX/ADCX/ADOX path (fp_x86.c) and the portable unsigned __int128 path;
 * both are exported so the tests can check them against each other.
 */
#ifndef G16_FIELD_FP_H
#define G16_FIELD_FP_H

#include "g16.h"

#define G16__FP_LIMBS 6
#define G16__FP_BYTES 48
#define G16__FP_BITS 381

extern const uint64_t g16__fp_modulus[6]; /* p, canonical limbs */
extern const uint64_t g16__fp_n0;          /* -p^(-1) mod 2^64 */
extern const g16_fp g16__fp_one;           /* 1 in Montgomery form (R mod p) */
extern const g16_fp g16__fp_r2;            /* R^2 mod p (converts into Montgomery form) */

void g16__fp_add(g16_fp *r, const g16_fp *a, const g16_fp *b);
void g16__fp_sub(g16_fp *r, const g16_fp *a, const g16_fp *b);
void g16__fp_neg(g16_fp *r, const g16_fp *a);
void g16__fp_dbl(g16_fp *r, const g16_fp *a);
void g16__fp_mul(g16_fp *r, const g16_fp *a, const g16_fp *b);
void g16__fp_sqr(g16_fp *r, const g16_fp *a);

/* The two multiplication back ends (g16__fp_mul/sqr dispatch to one of them). */
void g16__fp_mul_portable(g16_fp *r, const g16_fp *a, const g16_fp *b);
void g16__fp_sqr_portable(g16_fp *r, const g16_fp *a);
/* 1 when the MULX/ADX path is compiled in and this CPU supports it. */
int g16__fp_have_mulx(void);
/* Forces the portable path (on = 1) or restores the CPUID choice (on = 0); for tests and benchmarks. */
void g16__fp_force_portable(int on);
#if defined(__x86_64__)
void g16__fp_mul_mulx(g16_fp *r, const g16_fp *a, const g16_fp *b);
void g16__fp_sqr_mulx(g16_fp *r, const g16_fp *a);
/* Addition, subtraction and negation in x86-64 assembly (baseline instructions: used whenever
 * the assembly is compiled in, no CPUID test); g16__fp_add/sub/neg/dbl call them. */
void g16__fp_add_x86(g16_fp *r, const g16_fp *a, const g16_fp *b);
void g16__fp_sub_x86(g16_fp *r, const g16_fp *a, const g16_fp *b);
void g16__fp_neg_x86(g16_fp *r, const g16_fp *a);
#endif

void g16__fp_set_zero(g16_fp *r);
void g16__fp_set_one(g16_fp *r);
void g16__fp_from_u64(g16_fp *r, uint64_t v);
int g16__fp_is_zero(const g16_fp *a);              /* 1 or 0, constant-time */
int g16__fp_is_one(const g16_fp *a);
int g16__fp_eq(const g16_fp *a, const g16_fp *b);   /* 1 or 0, constant-time */
void g16__fp_cmov(g16_fp *r, const g16_fp *a, int flag); /* r = flag ? a : r, flag 0/1 */

/* r = a^e, e given as nlimbs little-endian 64-bit limbs (public). */
void g16__fp_pow(g16_fp *r, const g16_fp *a, const uint64_t *e, size_t nlimbs);
/* r = a^(-1) (0 maps to 0): constant-time via Fermat's little theorem. */
void g16__fp_inv(g16_fp *r, const g16_fp *a);
/* r = a^(-1) (0 maps to 0): variable-time safegcd (Bernstein–Yang divsteps, inv_var.h). */
void g16__fp_inv_var(g16_fp *r, const g16_fp *a);
/* Square root: returns 1 and sets r to a root when a is a square; otherwise returns 0 and r is
 * some reduced element (callers must check the result). Constant-time: a^((p+1)/4). */
int g16__fp_sqrt(g16_fp *r, const g16_fp *a);
/* Legendre symbol (a|p): 0 for a = 0, 1 for a non-zero square, -1 otherwise. */
int g16__fp_legendre(const g16_fp *a);

/* Canonical (non-Montgomery) limbs. from_* return 0 on success, -1 when the value is >= p (r untouched). */
int g16__fp_from_limbs(g16_fp *r, const uint64_t l[6]);
void g16__fp_to_limbs(uint64_t l[6], const g16_fp *a);
/* Canonical 48-byte encodings, big- and little-endian. */
int g16__fp_from_be_bytes(g16_fp *r, const uint8_t in[48]);
void g16__fp_to_be_bytes(uint8_t out[48], const g16_fp *a);
int g16__fp_from_le_bytes(g16_fp *r, const uint8_t in[48]);
void g16__fp_to_le_bytes(uint8_t out[48], const g16_fp *a);

/* 1 when the canonical value of a is > (p-1)/2 (the zcash "sign" of y). */
int g16__fp_is_lexmax(const g16_fp *a);

#endif /* G16_FIELD_FP_H */
