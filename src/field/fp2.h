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

/*
 * Additive operations are static inline (here rather than in fp2.c): the towers above
 * (Fp6, Fp12, the Miller loop, G2) execute several of them per multiplication, and as
 * out-of-line calls through the generic loops of mont.h they cost about as much as a third
 * of an Fp multiplication each (measured: 25-45 ns vs 66 ns for a MULX product).
 * g16__fpi_*: the same for one Fp coefficient (6 limbs, fully reduced in and out).
 */
/* Complete unrolling keeps the limbs in registers and the carry in the flags (-O2 alone does
 * not unroll these loops). */
#define G16__UNROLL _Pragma("GCC unroll 12")
#if defined(__x86_64__)
#include <immintrin.h>
#define G16__ADC(c, a, b, out) ((c) = _addcarry_u64((c), (a), (b), (unsigned long long *)(out)))
#define G16__SBB(c, a, b, out) ((c) = _subborrow_u64((c), (a), (b), (unsigned long long *)(out)))
#else
#define G16__ADC(c, a, b, out)                                                                         \
    do {                                                                                               \
        unsigned __int128 s_ = (unsigned __int128)(a) + (b) + (c);                                     \
        *(out) = (uint64_t)s_;                                                                         \
        (c) = (unsigned char)(s_ >> 64);                                                               \
    } while (0)
#define G16__SBB(c, a, b, out)                                                                         \
    do {                                                                                               \
        unsigned __int128 s_ = (unsigned __int128)(a) - (b) - (c);                                     \
        *(out) = (uint64_t)s_;                                                                         \
        (c) = (unsigned char)((s_ >> 64) & 1);                                                         \
    } while (0)
#endif

static inline void g16__fpi_add(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    /* t = a + b < 2p; d = t − p; add p back when that went negative (borrow without a carry
     * out of t). Written as three carry chains rather than a select: GCC turns a masked select
     * into SSE code whose store-forwarding stalls cost more than the whole addition. */
    uint64_t t[6], d[6];
    unsigned char c = 0, bw = 0, c2 = 0;
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c, a->l[i], b->l[i], &t[i]);
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__SBB(bw, t[i], g16__fp_modulus[i], &d[i]);
    uint64_t mask = 0 - (uint64_t)(bw & (c ^ 1));
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c2, d[i], g16__fp_modulus[i] & mask, &r->l[i]);
}

static inline void g16__fpi_sub(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    uint64_t t[6];
    unsigned char bw = 0, c = 0;
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__SBB(bw, a->l[i], b->l[i], &t[i]);
    uint64_t mask = 0 - (uint64_t)bw; /* add p back after a borrow */
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c, t[i], g16__fp_modulus[i] & mask, &r->l[i]);
}

static inline void g16__fpi_dbl(g16_fp *r, const g16_fp *a) { g16__fpi_add(r, a, a); }

static inline void g16__fpi_neg(g16_fp *r, const g16_fp *a)
{
    uint64_t nz = a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5];
    uint64_t mask = 0 - (uint64_t)(nz != 0); /* −0 = 0, not p */
    unsigned char bw = 0;
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__SBB(bw, g16__fp_modulus[i] & mask, a->l[i], &r->l[i]);
}

/* Sums without reduction, for operands of wide products (inputs < p, results < 2p < 2^382). */
static inline void g16__fp_add_nr(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    unsigned char c = 0;
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c, a->l[i], b->l[i], &r->l[i]);
}

/* a + p − b */
static inline void g16__fp_sub_nr(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    uint64_t t[6];
    unsigned char c = 0, bw = 0;
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c, a->l[i], g16__fp_modulus[i], &t[i]);
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__SBB(bw, t[i], b->l[i], &r->l[i]);
}

/*
 * Wide (double-length) values for lazy reduction: g16__fp_wide is a 768-bit integer T in 12
 * little-endian limbs standing for T·2^(−384) mod p (so the product of two Montgomery-form
 * values is the wide form of their product). g16__fp_redc needs T < p·2^384, which holds for a
 * product of two values < 2p (4p < 2^384) and is kept by g16__fpw_add/sub, which work modulo
 * p·2^384 (the high half stays < p). g16__fpw_sub_nr is the plain difference, for callers that
 * know it does not go negative.
 */
typedef struct { uint64_t l[12]; } g16__fp_wide;
typedef struct { g16__fp_wide c0, c1; } g16__fp2_wide;

void g16__fp_mul_wide(g16__fp_wide *r, const g16_fp *a, const g16_fp *b); /* a, b < 2^384 */
void g16__fp_redc(g16_fp *r, const g16__fp_wide *t);                      /* fully reduced out */
void g16__fp_mul_wide_portable(g16__fp_wide *r, const g16_fp *a, const g16_fp *b);
void g16__fp_redc_portable(g16_fp *r, const g16__fp_wide *t);
#if defined(__x86_64__)
void g16__fp_mul_wide_mulx(g16__fp_wide *r, const g16_fp *a, const g16_fp *b);
void g16__fp_redc_mulx(g16_fp *r, const g16__fp_wide *t);
#endif
/* 1 when the MULX versions above are compiled in and the CPU has BMI2 + ADX. */
int g16__fp2_have_mulx(void);
/* Forces the portable wide products (on = 1) or restores the CPUID choice; tests, benchmarks. */
void g16__fp2_force_portable(int on);

void g16__fp2_mul_wide(g16__fp2_wide *r, const g16_fp2 *a, const g16_fp2 *b); /* both < p·2^384 */
void g16__fp2_sqr_wide(g16__fp2_wide *r, const g16_fp2 *a);
void g16__fp2_redc(g16_fp2 *r, const g16__fp2_wide *t);

static inline void g16__fpw_sub_nr(g16__fp_wide *r, const g16__fp_wide *a, const g16__fp_wide *b)
{
    unsigned char bw = 0;
    G16__UNROLL for (int i = 0; i < 12; i++)
        G16__SBB(bw, a->l[i], b->l[i], &r->l[i]);
}

static inline void g16__fpw_add(g16__fp_wide *r, const g16__fp_wide *a, const g16__fp_wide *b)
{
    /* low half written as it is computed (limb i of a and b is read before limb i of r is
     * written, so r may alias them); the high half goes through t for the correction by p */
    uint64_t t[6], d[6];
    unsigned char c = 0, bw = 0, c2 = 0;
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c, a->l[i], b->l[i], &r->l[i]);
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c, a->l[6 + i], b->l[6 + i], &t[i]);
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__SBB(bw, t[i], g16__fp_modulus[i], &d[i]);
    uint64_t mask = 0 - (uint64_t)bw; /* high half < 2p < 2^382: never a carry out of t */
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c2, d[i], g16__fp_modulus[i] & mask, &r->l[6 + i]);
}

static inline void g16__fpw_sub(g16__fp_wide *r, const g16__fp_wide *a, const g16__fp_wide *b)
{
    uint64_t t[6];
    unsigned char bw = 0, c = 0;
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__SBB(bw, a->l[i], b->l[i], &r->l[i]);
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__SBB(bw, a->l[6 + i], b->l[6 + i], &t[i]);
    uint64_t mask = 0 - (uint64_t)bw; /* negative: add p·2^384 */
    G16__UNROLL for (int i = 0; i < 6; i++)
        G16__ADC(c, t[i], g16__fp_modulus[i] & mask, &r->l[6 + i]);
}

static inline void g16__fp2w_add(g16__fp2_wide *r, const g16__fp2_wide *a, const g16__fp2_wide *b)
{
    g16__fpw_add(&r->c0, &a->c0, &b->c0);
    g16__fpw_add(&r->c1, &a->c1, &b->c1);
}

static inline void g16__fp2w_sub(g16__fp2_wide *r, const g16__fp2_wide *a, const g16__fp2_wide *b)
{
    g16__fpw_sub(&r->c0, &a->c0, &b->c0);
    g16__fpw_sub(&r->c1, &a->c1, &b->c1);
}

/* r = a·(u + 1) in the wide domain */
static inline void g16__fp2w_mul_by_nonresidue(g16__fp2_wide *r, const g16__fp2_wide *a)
{
    g16__fp_wide t;
    g16__fpw_sub(&t, &a->c0, &a->c1);
    g16__fpw_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

static inline void g16__fp2_add(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b)
{
    g16__fpi_add(&r->c0, &a->c0, &b->c0);
    g16__fpi_add(&r->c1, &a->c1, &b->c1);
}

static inline void g16__fp2_sub(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b)
{
    g16__fpi_sub(&r->c0, &a->c0, &b->c0);
    g16__fpi_sub(&r->c1, &a->c1, &b->c1);
}

static inline void g16__fp2_neg(g16_fp2 *r, const g16_fp2 *a)
{
    g16__fpi_neg(&r->c0, &a->c0);
    g16__fpi_neg(&r->c1, &a->c1);
}

static inline void g16__fp2_dbl(g16_fp2 *r, const g16_fp2 *a)
{
    g16__fpi_add(&r->c0, &a->c0, &a->c0);
    g16__fpi_add(&r->c1, &a->c1, &a->c1);
}

/* c0 − c1·u; also the Frobenius map a^p */
static inline void g16__fp2_conj(g16_fp2 *r, const g16_fp2 *a)
{
    r->c0 = a->c0;
    g16__fpi_neg(&r->c1, &a->c1);
}

/* r = a·(u + 1) = (c0 − c1) + (c0 + c1)·u */
static inline void g16__fp2_mul_by_nonresidue(g16_fp2 *r, const g16_fp2 *a)
{
    g16_fp t;
    g16__fpi_sub(&t, &a->c0, &a->c1);
    g16__fpi_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

void g16__fp2_mul(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b);
void g16__fp2_sqr(g16_fp2 *r, const g16_fp2 *a);
void g16__fp2_mul_fp(g16_fp2 *r, const g16_fp2 *a, const g16_fp *b);
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
