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

#if defined(__x86_64__) && !defined(G16_NO_ASM)
/*
 * x86-64: the modular additions as inline assembly with a CMOV select. Compiled C gives
 * either an SSE select (whose store-forwarding stalls cost more than the addition) or a
 * carry chain broken by SETC/ADD round trips; measured on the dev machine, a dependent chain
 * of Fp2 additions runs at 10.6 ns vs 17.5 ns per addition in C. The blocks use 13 general
 * registers (the pointer registers of a and b are reused once read), so they also build at -O0
 * with a frame pointer. volatile + "memory": they read and write through the pointers.
 */
static const uint64_t g16__fp_p_asm[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                          0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
#define G16__P_OPERANDS                                                                                \
    [p0] "m"(g16__fp_p_asm[0]), [p1] "m"(g16__fp_p_asm[1]), [p2] "m"(g16__fp_p_asm[2]),              \
        [p3] "m"(g16__fp_p_asm[3]), [p4] "m"(g16__fp_p_asm[4]), [p5] "m"(g16__fp_p_asm[5])
#define G16__T_OPERANDS                                                                                \
    [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),    \
        [d2] "=&r"(d2), [d3] "=&r"(d3), [d4] "=&r"(d4), [d5] "=&r"(d5), [a] "+&r"(pa), [b] "+&r"(pb)
/* d = t (d0, d1 live in the a and b registers) */
#define G16__COPY_T_TO_D                                                                               \
    "mov %[t0], %[a]\n\t"                                                                              \
    "mov %[t1], %[b]\n\t"                                                                              \
    "mov %[t2], %[d2]\n\t"                                                                             \
    "mov %[t3], %[d3]\n\t"                                                                             \
    "mov %[t4], %[d4]\n\t"                                                                             \
    "mov %[t5], %[d5]\n\t"
#define G16__CMOV_T_TO_D(cc)                                                                           \
    "cmov" cc " %[t0], %[a]\n\t"                                                                       \
    "cmov" cc " %[t1], %[b]\n\t"                                                                       \
    "cmov" cc " %[t2], %[d2]\n\t"                                                                      \
    "cmov" cc " %[t3], %[d3]\n\t"                                                                      \
    "cmov" cc " %[t4], %[d4]\n\t"                                                                      \
    "cmov" cc " %[t5], %[d5]\n\t"
#define G16__STORE_D(off)                                                                              \
    "mov %[a], " #off "+0(%[r])\n\t"                                                                   \
    "mov %[b], " #off "+8(%[r])\n\t"                                                                   \
    "mov %[d2], " #off "+16(%[r])\n\t"                                                                 \
    "mov %[d3], " #off "+24(%[r])\n\t"                                                                 \
    "mov %[d4], " #off "+32(%[r])\n\t"                                                                 \
    "mov %[d5], " #off "+40(%[r])\n\t"
#define G16__LOAD_T(off)                                                                               \
    "mov " #off "+0(%[a]), %[t0]\n\t"                                                                  \
    "mov " #off "+8(%[a]), %[t1]\n\t"                                                                  \
    "mov " #off "+16(%[a]), %[t2]\n\t"                                                                 \
    "mov " #off "+24(%[a]), %[t3]\n\t"                                                                 \
    "mov " #off "+32(%[a]), %[t4]\n\t"                                                                 \
    "mov " #off "+40(%[a]), %[t5]\n\t"
/* t ±= b at offset off; op0 is add/sub for the first limb when there is no carry in */
#define G16__OP_B(op0, op, off)                                                                        \
    op0 " " #off "+0(%[b]), %[t0]\n\t"                                                                 \
    op " " #off "+8(%[b]), %[t1]\n\t"                                                                  \
    op " " #off "+16(%[b]), %[t2]\n\t"                                                                 \
    op " " #off "+24(%[b]), %[t3]\n\t"                                                                 \
    op " " #off "+32(%[b]), %[t4]\n\t"                                                                 \
    op " " #off "+40(%[b]), %[t5]\n\t"
#define G16__D_OP_P(op0, op)                                                                           \
    op0 " %[p0], %[a]\n\t"                                                                             \
    op " %[p1], %[b]\n\t"                                                                              \
    op " %[p2], %[d2]\n\t"                                                                             \
    op " %[p3], %[d3]\n\t"                                                                             \
    op " %[p4], %[d4]\n\t"                                                                             \
    op " %[p5], %[d5]\n\t"
/* store t at offset off of r */
#define G16__STORE_T(off)                                                                              \
    "mov %[t0], " #off "+0(%[r])\n\t"                                                                  \
    "mov %[t1], " #off "+8(%[r])\n\t"                                                                  \
    "mov %[t2], " #off "+16(%[r])\n\t"                                                                 \
    "mov %[t3], " #off "+24(%[r])\n\t"                                                                 \
    "mov %[t4], " #off "+32(%[r])\n\t"                                                                 \
    "mov %[t5], " #off "+40(%[r])\n\t"

/* r = a + b mod p: t = a + b (< 2p, no carry out), d = t − p, keep t when that borrows. */
static inline void g16__fpi_add(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    uint64_t t0, t1, t2, t3, t4, t5, d2, d3, d4, d5;
    const uint64_t *pa = a->l, *pb = b->l;
    __asm__ volatile(G16__LOAD_T(0) G16__OP_B("add", "adc", 0) G16__COPY_T_TO_D G16__D_OP_P("sub", "sbb")
                         G16__CMOV_T_TO_D("c") G16__STORE_D(0)
                     : G16__T_OPERANDS
                     : [r] "r"(r->l), G16__P_OPERANDS
                     : "cc", "memory");
}

/* r = a − b mod p: t = a − b, d = t + p; the carry out of t + p equals the borrow of a − b
 * (t ≥ 2^384 − p exactly when a − b went negative), so keep t when there is no carry. */
static inline void g16__fpi_sub(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    uint64_t t0, t1, t2, t3, t4, t5, d2, d3, d4, d5;
    const uint64_t *pa = a->l, *pb = b->l;
    __asm__ volatile(G16__LOAD_T(0) G16__OP_B("sub", "sbb", 0) G16__COPY_T_TO_D G16__D_OP_P("add", "adc")
                         G16__CMOV_T_TO_D("nc") G16__STORE_D(0)
                     : G16__T_OPERANDS
                     : [r] "r"(r->l), G16__P_OPERANDS
                     : "cc", "memory");
}

/* Wide add modulo p·2^384: low halves on one chain (stored at once; r may alias a or b only
 * exactly, so r's low half is never a's or b's high half), the carry flows into the high halves,
 * whose sum (< 2p) is reduced like g16__fpi_add. */
static inline void g16__fpw_add_asm(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    uint64_t t0, t1, t2, t3, t4, t5, d2, d3, d4, d5;
    const uint64_t *pa = a, *pb = b;
    __asm__ volatile(G16__LOAD_T(0) G16__OP_B("add", "adc", 0) G16__STORE_T(0) G16__LOAD_T(48)
                         G16__OP_B("adc", "adc", 48) G16__COPY_T_TO_D G16__D_OP_P("sub", "sbb")
                             G16__CMOV_T_TO_D("c") G16__STORE_D(48)
                     : G16__T_OPERANDS
                     : [r] "r"(r), G16__P_OPERANDS
                     : "cc", "memory");
}

/* Wide subtract modulo p·2^384: as g16__fpi_sub on the high halves, borrow-in from the low. */
static inline void g16__fpw_sub_asm(uint64_t *r, const uint64_t *a, const uint64_t *b)
{
    uint64_t t0, t1, t2, t3, t4, t5, d2, d3, d4, d5;
    const uint64_t *pa = a, *pb = b;
    __asm__ volatile(G16__LOAD_T(0) G16__OP_B("sub", "sbb", 0) G16__STORE_T(0) G16__LOAD_T(48)
                         G16__OP_B("sbb", "sbb", 48) G16__COPY_T_TO_D G16__D_OP_P("add", "adc")
                             G16__CMOV_T_TO_D("nc") G16__STORE_D(48)
                     : G16__T_OPERANDS
                     : [r] "r"(r), G16__P_OPERANDS
                     : "cc", "memory");
}
#define G16__HAVE_ADD_ASM 1
#else
#define G16__HAVE_ADD_ASM 0
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

#endif

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
void g16__fp2_redc_mulx(g16_fp2 *r, const g16__fp2_wide *t); /* both coefficients, interleaved */
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

#if G16__HAVE_ADD_ASM
static inline void g16__fpw_add(g16__fp_wide *r, const g16__fp_wide *a, const g16__fp_wide *b)
{
    g16__fpw_add_asm(r->l, a->l, b->l);
}

static inline void g16__fpw_sub(g16__fp_wide *r, const g16__fp_wide *a, const g16__fp_wide *b)
{
    g16__fpw_sub_asm(r->l, a->l, b->l);
}
#else
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

#endif

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
