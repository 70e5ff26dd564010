/*
 * Fr and Fp arithmetic for the GPU, in the C subset shared by CUDA C++ and C11: the same source
 * compiles into the kernels (nvcc, PTX carry chains) and into host tests (gcc, where each PTX
 * instruction is emulated), so the algorithm is checked against the CPU field on any machine.
 *
 * Representation: gfr = 8 and gfp = 12 little-endian 32-bit limbs in Montgomery form with
 * R = 2^256 and 2^384: the very bits of g16_fr / g16_fp (include/g16.h) read as 32-bit words.
 * Invariant: fully reduced (< modulus) in and out. Outputs may alias inputs. Every function is
 * constant-time (straight-line code, selects instead of branches).
 *
 * Multiplication (Montgomery, CIOS order, radix 2^32): row i adds a·b_i and q·m (q = t·n0 from
 * the merged low digit t) and drops one digit. The partial sums live in two digit arrays, E and O,
 * so that every PTX carry chain (mad.lo.cc / madc.hi.cc) covers disjoint digits: E takes the
 * products of the even-indexed limbs (lo at position j, hi at j+1, j even: one chain over N digits),
 * O those of the odd-indexed limbs (positions j+1, j+2). Per row the low digit is merged
 * (t = E[i] + O[i], its carry entering O's next chain), E's chain carries go to a fresh slot
 * E[i+N], and O's chains have no carry out (the partial sum stays below W^(N+i+1) because
 * 2m < W^N, W = 2^32). Cost: 4N² + N IMAD (588 for Fp, 264 for Fr) plus ~3N adds.
 * Fr's modulus ends in the 32-bit limbs 1, 2^32 − 1 with n0 = 2^32 − 1, so q = −t and the first
 * two limbs of q·r are t-derived adds (fr_mul): 224 IMAD.
 *
 * Constants: written here in 32-bit limbs (macros, so that they become instruction immediates),
 * and checked against the CPU's g16__fr_modulus / g16__fp_modulus / _one / _n0 by
 * tests/test_gpu_field.c.
 */
#ifndef G16_GPU_FIELD_CUH
#define G16_GPU_FIELD_CUH

#include <stdint.h>

#if defined(__CUDACC__)
#define G16_HD static __host__ __device__ __forceinline__
#else
#define G16_HD static inline
#endif
#if defined(__CUDA_ARCH__)
#define G16_UNROLL _Pragma("unroll")
#else
#define G16_UNROLL
#endif

#if defined(__CUDA_ARCH__)
#define G16_PTX 1 /* compiling device code: real carry-chain instructions */
#endif

#define G16_GFR_LIMBS 8
#define G16_GFP_LIMBS 12

typedef struct {
    uint32_t l[G16_GFR_LIMBS];
} gfr;
typedef struct {
    uint32_t l[G16_GFP_LIMBS];
} gfp;

/* r (canonical), -r^-1 mod 2^32, R mod r */
#define G16_GFR_MODULUS                                                                                   \
    {0x00000001u, 0xffffffffu, 0xfffe5bfeu, 0x53bda402u, 0x09a1d805u, 0x3339d808u, 0x299d7d48u, 0x73eda753u}
#define G16_GFR_N0 0xffffffffu
#define G16_GFR_ONE                                                                                       \
    {0xfffffffeu, 0x00000001u, 0x00034802u, 0x5884b7fau, 0xecbc4ff5u, 0x998c4fefu, 0xacc5056fu, 0x1824b159u}
/* p (canonical), -p^-1 mod 2^32, R mod p */
#define G16_GFP_MODULUS                                                                                   \
    {0xffffaaabu, 0xb9feffffu, 0xb153ffffu, 0x1eabfffeu, 0xf6b0f624u, 0x6730d2a0u,                       \
     0xf38512bfu, 0x64774b84u, 0x434bacd7u, 0x4b1ba7b6u, 0x397fe69au, 0x1a0111eau}
#define G16_GFP_N0 0xfffcfffdu
#define G16_GFP_ONE                                                                                       \
    {0x0002fffdu, 0x76090000u, 0xc40c0002u, 0xebf4000bu, 0x53c758bau, 0x5f489857u,                       \
     0x70525745u, 0x77ce5853u, 0xa256ec6du, 0x5c071a97u, 0xfa80e493u, 0x15f65ec3u}

/* ---------------------------------------------------------------- carry-chain primitives
 * Each mirrors one PTX instruction. `cf` is the carry flag of the host emulation; device code
 * ignores it (the hardware flag is used, and asm volatile keeps the chain in order).
 * A chain is either additions or subtractions: the hardware's flag after sub.cc is not a borrow
 * that addc would add (seen on the H200: a sub.cc feeding addc gave wrong Fr products), so the
 * emulation records which kind set the flag and inverts it when the other kind reads it, which
 * makes any mixed chain fail the host tests. */

typedef struct {
    uint32_t c; /* carry (after an add) or borrow (after a sub) */
    uint32_t k; /* 0: none yet, 1: set by an add, 2: by a sub */
} g16_cf;

#if defined(G16_PTX)
#define G16_ASM3(op, r, a, b) asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b))
#define G16_ASM4(op, r, a, b, c) asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c))
G16_HD uint32_t add_cc(uint32_t a, uint32_t b, g16_cf *f) { uint32_t r; (void)f; G16_ASM3("add.cc.u32", r, a, b); return r; }
G16_HD uint32_t addc_cc(uint32_t a, uint32_t b, g16_cf *f) { uint32_t r; (void)f; G16_ASM3("addc.cc.u32", r, a, b); return r; }
G16_HD uint32_t addc(uint32_t a, uint32_t b, g16_cf *f) { uint32_t r; (void)f; G16_ASM3("addc.u32", r, a, b); return r; }
G16_HD uint32_t sub_cc(uint32_t a, uint32_t b, g16_cf *f) { uint32_t r; (void)f; G16_ASM3("sub.cc.u32", r, a, b); return r; }
G16_HD uint32_t subc_cc(uint32_t a, uint32_t b, g16_cf *f) { uint32_t r; (void)f; G16_ASM3("subc.cc.u32", r, a, b); return r; }
G16_HD uint32_t subc(uint32_t a, uint32_t b, g16_cf *f) { uint32_t r; (void)f; G16_ASM3("subc.u32", r, a, b); return r; }
G16_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { uint32_t r; (void)f; G16_ASM4("mad.lo.cc.u32", r, a, b, c); return r; }
G16_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { uint32_t r; (void)f; G16_ASM4("madc.lo.cc.u32", r, a, b, c); return r; }
G16_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { uint32_t r; (void)f; G16_ASM4("madc.hi.cc.u32", r, a, b, c); return r; }
G16_HD uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { uint32_t r; (void)f; G16_ASM4("madc.hi.u32", r, a, b, c); return r; }
#else
/* The flag as the reading kind (1 add, 2 sub) sees it; a flag from the other kind reads inverted. */
G16_HD uint32_t cf_get(const g16_cf *f, uint32_t kind) { return f->k == kind ? f->c : 1u - f->c; }
G16_HD uint32_t add_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a + b; f->c = (uint32_t)(t >> 32); f->k = 1; return (uint32_t)t; }
G16_HD uint32_t addc_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a + b + cf_get(f, 1); f->c = (uint32_t)(t >> 32); f->k = 1; return (uint32_t)t; }
G16_HD uint32_t addc(uint32_t a, uint32_t b, g16_cf *f) { return a + b + cf_get(f, 1); }
G16_HD uint32_t sub_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a - b; f->c = (uint32_t)(t >> 63); f->k = 2; return (uint32_t)t; }
G16_HD uint32_t subc_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a - b - cf_get(f, 2); f->c = (uint32_t)(t >> 63); f->k = 2; return (uint32_t)t; }
G16_HD uint32_t subc(uint32_t a, uint32_t b, g16_cf *f) { return a - b - cf_get(f, 2); }
G16_HD uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { return add_cc(a * b, c, f); }
G16_HD uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { return addc_cc(a * b, c, f); }
G16_HD uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { return addc_cc((uint32_t)(((uint64_t)a * b) >> 32), c, f); }
G16_HD uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c, g16_cf *f) { return addc((uint32_t)(((uint64_t)a * b) >> 32), c, f); }
#endif

G16_HD uint32_t mul_lo(uint32_t a, uint32_t b) { return a * b; }
G16_HD uint32_t mul_hi(uint32_t a, uint32_t b)
{
#if defined(G16_PTX)
    return __umulhi(a, b);
#else
    return (uint32_t)(((uint64_t)a * b) >> 32);
#endif
}

/* ---------------------------------------------------------------- generic N-limb code */

#define G16_MONT_MAX 12

/* r = t − m if t >= m else t (t < 2m, no carry-out beyond N limbs since 2m < 2^(32N)). */
G16_HD void mont32_final_sub(uint32_t *r, const uint32_t *t, const uint32_t *m, int N)
{
    g16_cf f = {0, 0};
    uint32_t d[G16_MONT_MAX];
    d[0] = sub_cc(t[0], m[0], &f);
    G16_UNROLL
    for (int j = 1; j < N; j++)
        d[j] = subc_cc(t[j], m[j], &f);
    uint32_t keep_t = subc(0, 0, &f); /* 0 - borrow: all ones when t < m */
    G16_UNROLL
    for (int j = 0; j < N; j++)
        r[j] = (t[j] & keep_t) | (d[j] & ~keep_t);
}

G16_HD void mont32_add(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, int N)
{
    g16_cf f = {0, 0};
    uint32_t t[G16_MONT_MAX];
    t[0] = add_cc(a[0], b[0], &f);
    G16_UNROLL
    for (int j = 1; j < N - 1; j++)
        t[j] = addc_cc(a[j], b[j], &f);
    t[N - 1] = addc(a[N - 1], b[N - 1], &f); /* a + b < 2m < 2^(32N): no carry out */
    mont32_final_sub(r, t, m, N);
}

G16_HD void mont32_sub(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, int N)
{
    g16_cf f = {0, 0};
    uint32_t t[G16_MONT_MAX];
    t[0] = sub_cc(a[0], b[0], &f);
    G16_UNROLL
    for (int j = 1; j < N; j++)
        t[j] = subc_cc(a[j], b[j], &f);
    uint32_t mask = subc(0, 0, &f); /* 0 - borrow: all ones when a < b, add m back */
    r[0] = add_cc(t[0], m[0] & mask, &f);
    G16_UNROLL
    for (int j = 1; j < N - 1; j++)
        r[j] = addc_cc(t[j], m[j] & mask, &f);
    r[N - 1] = addc(t[N - 1], m[N - 1] & mask, &f);
}

/* r = −a (0 stays 0). */
G16_HD void mont32_neg(uint32_t *r, const uint32_t *a, const uint32_t *m, int N)
{
    uint32_t nz = 0;
    G16_UNROLL
    for (int j = 0; j < N; j++)
        nz |= a[j];
    uint32_t mask = 0u - (uint32_t)(nz != 0);
    g16_cf f = {0, 0};
    uint32_t t[G16_MONT_MAX];
    t[0] = sub_cc(m[0], a[0], &f);
    G16_UNROLL
    for (int j = 1; j < N - 1; j++)
        t[j] = subc_cc(m[j], a[j], &f);
    t[N - 1] = subc(m[N - 1], a[N - 1], &f);
    G16_UNROLL
    for (int j = 0; j < N; j++)
        r[j] = t[j] & mask;
}

/* Row 0 of the product: E[0..N-1] = even limbs of a times b0, O[1..N] = odd limbs (no carries:
 * the digit pairs are disjoint). */
G16_HD void mont32_row0(uint32_t *E, uint32_t *O, const uint32_t *a, uint32_t b0, int N)
{
    G16_UNROLL
    for (int j = 0; j < N; j += 2) {
        E[j] = mul_lo(a[j], b0);
        E[j + 1] = mul_hi(a[j], b0);
        O[j + 1] = mul_lo(a[j + 1], b0);
        O[j + 2] = mul_hi(a[j + 1], b0);
    }
    E[N] = 0;
}

/* E[i..i+N-1] += even limbs of a times bi; E[i+N] = the carry (a fresh digit). */
G16_HD void mont32_row_even(uint32_t *E, const uint32_t *a, uint32_t bi, int i, int N)
{
    g16_cf f = {0, 0};
    E[i] = mad_lo_cc(a[0], bi, E[i], &f);
    E[i + 1] = madc_hi_cc(a[0], bi, E[i + 1], &f);
    G16_UNROLL
    for (int j = 2; j < N; j += 2) {
        E[i + j] = madc_lo_cc(a[j], bi, E[i + j], &f);
        E[i + j + 1] = madc_hi_cc(a[j], bi, E[i + j + 1], &f);
    }
    E[i + N] = addc(0, 0, &f);
}

/* Merges digit i (t = E[i] + O[i]) and adds the odd limbs of a times bi into O[i+1..i+N] with
 * the merge carry as carry-in; O[i+N] is a fresh digit. Returns t. */
G16_HD uint32_t mont32_row_odd(uint32_t *E, uint32_t *O, const uint32_t *a, uint32_t bi, int i, int N)
{
    g16_cf f = {0, 0};
    uint32_t t = add_cc(E[i], O[i], &f);
    G16_UNROLL
    for (int j = 1; j < N - 1; j += 2) {
        O[i + j] = madc_lo_cc(a[j], bi, O[i + j], &f);
        O[i + j + 1] = madc_hi_cc(a[j], bi, O[i + j + 1], &f);
    }
    O[i + N - 1] = madc_lo_cc(a[N - 1], bi, O[i + N - 1], &f);
    O[i + N] = madc_hi(a[N - 1], bi, 0, &f);
    return t;
}

/* Reduction of row i with q = t·n0 (generic modulus): E += q·m_even from digit i (digit i is t,
 * the merged value, and becomes 0), O += q·m_odd from digit i+1. */
G16_HD void mont32_reduce_row(uint32_t *E, uint32_t *O, uint32_t t, const uint32_t *m, uint32_t n0, int i, int N)
{
    g16_cf f = {0, 0};
    uint32_t q = mul_lo(t, n0);
    (void)mad_lo_cc(m[0], q, t, &f);
    E[i + 1] = madc_hi_cc(m[0], q, E[i + 1], &f);
    G16_UNROLL
    for (int j = 2; j < N; j += 2) {
        E[i + j] = madc_lo_cc(m[j], q, E[i + j], &f);
        E[i + j + 1] = madc_hi_cc(m[j], q, E[i + j + 1], &f);
    }
    E[i + N] = addc(E[i + N], 0, &f);
    g16_cf g = {0, 0};
    O[i + 1] = mad_lo_cc(m[1], q, O[i + 1], &g);
    O[i + 2] = madc_hi_cc(m[1], q, O[i + 2], &g);
    G16_UNROLL
    for (int j = 3; j < N - 1; j += 2) {
        O[i + j] = madc_lo_cc(m[j], q, O[i + j], &g);
        O[i + j + 1] = madc_hi_cc(m[j], q, O[i + j + 1], &g);
    }
    O[i + N - 1] = madc_lo_cc(m[N - 1], q, O[i + N - 1], &g);
    O[i + N] = madc_hi(m[N - 1], q, O[i + N], &g);
}

/* The same for a modulus with m[0] = 1, m[1] = 2^32 − 1 and n0 = 2^32 − 1 (Fr): q = −t,
 * t + lo(q·1) = 0 with carry (t != 0), hi(q·1) = 0, lo(q·m1) = t, hi(q·m1) = q − (t != 0). */
G16_HD void mont32_reduce_row_r(uint32_t *E, uint32_t *O, uint32_t t, const uint32_t *m, int i, int N)
{
    g16_cf f = {0, 0};
    uint32_t q = 0u - t;
    (void)add_cc(t, q, &f); /* digit i: t + lo(q·1) = 0, carry (t != 0) */
    E[i + 1] = addc_cc(E[i + 1], 0, &f);
    G16_UNROLL
    for (int j = 2; j < N; j += 2) {
        E[i + j] = madc_lo_cc(m[j], q, E[i + j], &f);
        E[i + j + 1] = madc_hi_cc(m[j], q, E[i + j + 1], &f);
    }
    E[i + N] = addc(E[i + N], 0, &f);
    g16_cf g = {0, 0};
    (void)sub_cc(0, t, &g);
    uint32_t h1 = subc(q, 0, &g);
    O[i + 1] = add_cc(O[i + 1], t, &g);
    O[i + 2] = addc_cc(O[i + 2], h1, &g);
    G16_UNROLL
    for (int j = 3; j < N - 1; j += 2) {
        O[i + j] = madc_lo_cc(m[j], q, O[i + j], &g);
        O[i + j + 1] = madc_hi_cc(m[j], q, O[i + j + 1], &g);
    }
    O[i + N - 1] = madc_lo_cc(m[N - 1], q, O[i + N - 1], &g);
    O[i + N] = madc_hi(m[N - 1], q, O[i + N], &g);
}

/* r = a·b·2^(-32N) mod m. special_r selects mont32_reduce_row_r (only for Fr's modulus). */
G16_HD void mont32_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, uint32_t n0, int N,
                       int special_r)
{
    uint32_t E[2 * G16_MONT_MAX + 1], O[2 * G16_MONT_MAX + 1];
    mont32_row0(E, O, a, b[0], N);
    if (special_r)
        mont32_reduce_row_r(E, O, E[0], m, 0, N);
    else
        mont32_reduce_row(E, O, E[0], m, n0, 0, N);
    G16_UNROLL
    for (int i = 1; i < N; i++) {
        mont32_row_even(E, a, b[i], i, N);
        uint32_t t = mont32_row_odd(E, O, a, b[i], i, N);
        if (special_r)
            mont32_reduce_row_r(E, O, t, m, i, N);
        else
            mont32_reduce_row(E, O, t, m, n0, i, N);
    }
    g16_cf f = {0, 0};
    uint32_t s[G16_MONT_MAX];
    s[0] = add_cc(E[N], O[N], &f);
    G16_UNROLL
    for (int j = 1; j < N - 1; j++)
        s[j] = addc_cc(E[N + j], O[N + j], &f);
    s[N - 1] = addc(E[2 * N - 1], O[2 * N - 1], &f);
    mont32_final_sub(r, s, m, N);
}

/* ---------------------------------------------------------------- Fr */

G16_HD void gfr_add(gfr *r, const gfr *a, const gfr *b)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    mont32_add(r->l, a->l, b->l, m, 8);
}
G16_HD void gfr_sub(gfr *r, const gfr *a, const gfr *b)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    mont32_sub(r->l, a->l, b->l, m, 8);
}
G16_HD void gfr_neg(gfr *r, const gfr *a)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    mont32_neg(r->l, a->l, m, 8);
}
/* Fr multiplication with the special-modulus reduction (224 IMAD). */
G16_HD void gfr_mul(gfr *r, const gfr *a, const gfr *b)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    gfr t;
    mont32_mul(t.l, a->l, b->l, m, G16_GFR_N0, 8, 1);
    *r = t;
}
/* The same product through the generic reduction (for tests of both paths). */
G16_HD void gfr_mul_generic(gfr *r, const gfr *a, const gfr *b)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    gfr t;
    mont32_mul(t.l, a->l, b->l, m, G16_GFR_N0, 8, 0);
    *r = t;
}
G16_HD void gfr_sqr(gfr *r, const gfr *a) { gfr_mul(r, a, a); }
G16_HD void gfr_set_one(gfr *r)
{
    const uint32_t one[8] = G16_GFR_ONE;
    G16_UNROLL
    for (int j = 0; j < 8; j++)
        r->l[j] = one[j];
}

/* ---------------------------------------------------------------- Fp */

G16_HD void gfp_add(gfp *r, const gfp *a, const gfp *b)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    mont32_add(r->l, a->l, b->l, m, 12);
}
G16_HD void gfp_sub(gfp *r, const gfp *a, const gfp *b)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    mont32_sub(r->l, a->l, b->l, m, 12);
}
G16_HD void gfp_neg(gfp *r, const gfp *a)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    mont32_neg(r->l, a->l, m, 12);
}
G16_HD void gfp_mul(gfp *r, const gfp *a, const gfp *b)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    gfp t;
    mont32_mul(t.l, a->l, b->l, m, G16_GFP_N0, 12, 0);
    *r = t;
}
/* ---------------------------------------------------------------- Fp: wide values, lazy reduction
 * gfp_wide is a 768-bit integer T (24 little-endian limbs, the bits of the CPU's g16__fp_wide)
 * standing for T·R^-1 mod p; gfp_redc needs T < p·R. A product of two values < 2^382 (sums of two
 * reduced values, unreduced) is one, and gfp_wide_sub keeps the bound by working modulo p·R.
 * Splitting a Montgomery product into gfp_mul_wide (2N² IMAD) and gfp_redc (2N² + N) costs the
 * same as gfp_mul, so a sum or difference of products reduced once saves a reduction (300 IMAD)
 * per product it absorbs: the Karatsuba Fp2 product (3 wide products, 2 reductions instead of 3
 * full products) and the Y3 = R·(Q − X3) − Y1·PPP of the XYZZ additions (msm_core.cuh). */

typedef struct {
    uint32_t l[2 * G16_GFP_LIMBS];
} gfp_wide;

/* T = a·b (a, b < 2^384), full 2N digits: the rows of mont32_mul without the reduction. Digit i
 * is final once row i has merged it (t of mont32_row_odd); the top half is E + O at the end. */
G16_HD void mont32_mul_wide(uint32_t *T, const uint32_t *a, const uint32_t *b, int N)
{
    uint32_t E[2 * G16_MONT_MAX + 1], O[2 * G16_MONT_MAX + 1];
    mont32_row0(E, O, a, b[0], N);
    T[0] = E[0];
    G16_UNROLL
    for (int i = 1; i < N; i++) {
        mont32_row_even(E, a, b[i], i, N);
        T[i] = mont32_row_odd(E, O, a, b[i], i, N);
    }
    g16_cf f = {0, 0};
    T[N] = add_cc(E[N], O[N], &f);
    G16_UNROLL
    for (int j = N + 1; j < 2 * N - 1; j++)
        T[j] = addc_cc(E[j], O[j], &f);
    T[2 * N - 1] = addc(E[2 * N - 1], O[2 * N - 1], &f); /* a·b < W^(2N): no carry out */
}

/* T = a² (a < 2^384, N even): each cross product a_i·a_j (i < j) once, doubled, plus the squares
 * a_i²: N² + N IMAD instead of 2N². Row i adds a_i·a_(i+1+k) at digit 2i+1+k, k even into E,
 * k odd into O, each a carry chain over consecutive digits with its carry added to the digit
 * after the range. That digit is either untouched so far or holds only the previous row's carry
 * (rows alternate between ending at i+N and i+N−1), so it stays <= 2 and never carries on. */
G16_HD void mont32_sqr_wide(uint32_t *T, const uint32_t *a, int N)
{
    uint32_t E[2 * G16_MONT_MAX + 1], O[2 * G16_MONT_MAX + 1];
    G16_UNROLL
    for (int j = 0; j < 2 * N + 1; j++) {
        E[j] = 0;
        O[j] = 0;
    }
    G16_UNROLL
    for (int i = 0; i < N - 1; i++) {
        g16_cf f = {0, 0};
        int d = 2 * i + 1, k;
        E[d] = mad_lo_cc(a[i], a[i + 1], E[d], &f);
        E[d + 1] = madc_hi_cc(a[i], a[i + 1], E[d + 1], &f);
        G16_UNROLL
        for (k = 2; i + 1 + k < N; k += 2) {
            E[d + k] = madc_lo_cc(a[i], a[i + 1 + k], E[d + k], &f);
            E[d + k + 1] = madc_hi_cc(a[i], a[i + 1 + k], E[d + k + 1], &f);
        }
        E[d + k] = addc(E[d + k], 0, &f);
        if (i + 2 < N) {
            g16_cf g = {0, 0};
            O[d + 1] = mad_lo_cc(a[i], a[i + 2], O[d + 1], &g);
            O[d + 2] = madc_hi_cc(a[i], a[i + 2], O[d + 2], &g);
            G16_UNROLL
            for (k = 3; i + 1 + k < N; k += 2) {
                O[d + k] = madc_lo_cc(a[i], a[i + 1 + k], O[d + k], &g);
                O[d + k + 1] = madc_hi_cc(a[i], a[i + 1 + k], O[d + k + 1], &g);
            }
            O[d + k] = addc(O[d + k], 0, &g);
        }
    }
    /* X = E + O (the cross sum, below W^(2N)/2, so 2X fits), then T = 2X + Σ a_i² W^(2i) */
    uint32_t X[2 * G16_MONT_MAX];
    g16_cf f = {0, 0};
    X[0] = 0;
    X[1] = E[1];
    X[2] = add_cc(E[2], O[2], &f);
    G16_UNROLL
    for (int j = 3; j < 2 * N - 1; j++)
        X[j] = addc_cc(E[j], O[j], &f);
    X[2 * N - 1] = addc(E[2 * N - 1], O[2 * N - 1], &f);
    G16_UNROLL
    for (int j = 2 * N - 1; j > 0; j--)
        X[j] = (X[j] << 1) | (X[j - 1] >> 31);
    g16_cf g = {0, 0};
    T[0] = mad_lo_cc(a[0], a[0], X[0], &g);
    T[1] = madc_hi_cc(a[0], a[0], X[1], &g);
    G16_UNROLL
    for (int i = 1; i < N - 1; i++) {
        T[2 * i] = madc_lo_cc(a[i], a[i], X[2 * i], &g);
        T[2 * i + 1] = madc_hi_cc(a[i], a[i], X[2 * i + 1], &g);
    }
    T[2 * N - 2] = madc_lo_cc(a[N - 1], a[N - 1], X[2 * N - 2], &g);
    T[2 * N - 1] = madc_hi(a[N - 1], a[N - 1], X[2 * N - 1], &g);
}

/* r = T·W^(−N) mod m for T < m·W^N (fully reduced out). The low half is reduced on its own
 * (u = (T_lo + q·m)/W^N <= m, the rows of mont32_mul with no product), then r = T_hi + u < 2m
 * and one final subtraction. Row i merges digit i (t = E[i] + O[i]) as mont32_row_odd does, its
 * carry entering O's reduction chain; t is computed once more outside the chain for q. */
G16_HD void mont32_redc_wide(uint32_t *r, const uint32_t *T, const uint32_t *m, uint32_t n0, int N)
{
    uint32_t E[2 * G16_MONT_MAX], O[2 * G16_MONT_MAX];
    G16_UNROLL
    for (int j = 0; j < N; j++) {
        E[j] = T[j];
        O[j] = 0;
    }
    G16_UNROLL
    for (int j = N; j < 2 * N; j++) {
        E[j] = 0;
        O[j] = 0;
    }
    G16_UNROLL
    for (int i = 0; i < N; i++) {
        uint32_t t = E[i] + O[i];
        uint32_t q = mul_lo(t, n0);
        g16_cf f = {0, 0};
        (void)mad_lo_cc(m[0], q, t, &f); /* digit i becomes 0, carry (t != 0) */
        E[i + 1] = madc_hi_cc(m[0], q, E[i + 1], &f);
        G16_UNROLL
        for (int j = 2; j < N; j += 2) {
            E[i + j] = madc_lo_cc(m[j], q, E[i + j], &f);
            E[i + j + 1] = madc_hi_cc(m[j], q, E[i + j + 1], &f);
        }
        E[i + N] = addc(E[i + N], 0, &f); /* digit i + N: 0 until now */
        g16_cf g = {0, 0};
        (void)add_cc(E[i], O[i], &g); /* the merge's carry into digit i + 1 */
        G16_UNROLL
        for (int j = 1; j < N - 1; j += 2) {
            O[i + j] = madc_lo_cc(m[j], q, O[i + j], &g);
            O[i + j + 1] = madc_hi_cc(m[j], q, O[i + j + 1], &g);
        }
        O[i + N - 1] = madc_lo_cc(m[N - 1], q, O[i + N - 1], &g);
        O[i + N] = madc_hi(m[N - 1], q, O[i + N], &g); /* 0 until now: no carry out */
    }
    g16_cf f = {0, 0};
    uint32_t u[G16_MONT_MAX], s[G16_MONT_MAX];
    u[0] = add_cc(E[N], O[N], &f);
    G16_UNROLL
    for (int j = 1; j < N - 1; j++)
        u[j] = addc_cc(E[N + j], O[N + j], &f);
    u[N - 1] = addc(E[2 * N - 1], O[2 * N - 1], &f);
    g16_cf g = {0, 0};
    s[0] = add_cc(u[0], T[N], &g);
    G16_UNROLL
    for (int j = 1; j < N - 1; j++)
        s[j] = addc_cc(u[j], T[N + j], &g);
    s[N - 1] = addc(u[N - 1], T[2 * N - 1], &g);
    mont32_final_sub(r, s, m, N);
}

G16_HD void gfp_mul_wide(gfp_wide *T, const gfp *a, const gfp *b) { mont32_mul_wide(T->l, a->l, b->l, 12); }
G16_HD void gfp_sqr_wide(gfp_wide *T, const gfp *a) { mont32_sqr_wide(T->l, a->l, 12); }
G16_HD void gfp_redc(gfp *r, const gfp_wide *T)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    gfp t;
    mont32_redc_wide(t.l, T->l, m, G16_GFP_N0, 12);
    *r = t;
}

/* r = a − b mod p·R (a, b < p·R): the difference, plus p·R when it is negative. */
G16_HD void gfp_wide_sub(gfp_wide *r, const gfp_wide *a, const gfp_wide *b)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    g16_cf f = {0, 0};
    uint32_t t[24];
    t[0] = sub_cc(a->l[0], b->l[0], &f);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t[j] = subc_cc(a->l[j], b->l[j], &f);
    uint32_t mask = subc(0, 0, &f); /* all ones when a < b */
    G16_UNROLL
    for (int j = 0; j < 12; j++)
        r->l[j] = t[j];
    g16_cf g = {0, 0};
    r->l[12] = add_cc(t[12], m[0] & mask, &g);
    G16_UNROLL
    for (int j = 1; j < 11; j++)
        r->l[12 + j] = addc_cc(t[12 + j], m[j] & mask, &g);
    r->l[23] = addc(t[23], m[11] & mask, &g);
}

/* r = a + b (plain; the caller knows the sum stays below p·R). */
G16_HD void gfp_wide_add(gfp_wide *r, const gfp_wide *a, const gfp_wide *b)
{
    g16_cf f = {0, 0};
    r->l[0] = add_cc(a->l[0], b->l[0], &f);
    G16_UNROLL
    for (int j = 1; j < 23; j++)
        r->l[j] = addc_cc(a->l[j], b->l[j], &f);
    r->l[23] = addc(a->l[23], b->l[23], &f);
}

/* r = a + b without reduction (a, b < p: the sum < 2p < 2^382, an operand of gfp_mul_wide). */
G16_HD void gfp_add_nr(gfp *r, const gfp *a, const gfp *b)
{
    g16_cf f = {0, 0};
    r->l[0] = add_cc(a->l[0], b->l[0], &f);
    G16_UNROLL
    for (int j = 1; j < 11; j++)
        r->l[j] = addc_cc(a->l[j], b->l[j], &f);
    r->l[11] = addc(a->l[11], b->l[11], &f);
}

/* Dedicated squaring: gfp_sqr_wide + gfp_redc, 456 IMAD instead of 588. */
G16_HD void gfp_sqr(gfp *r, const gfp *a)
{
    gfp_wide T;
    gfp_sqr_wide(&T, a);
    gfp_redc(r, &T);
}

/* r = a·b − c·d: two wide products, one reduction (876 IMAD instead of 1176). */
G16_HD void gfp_mulsub(gfp *r, const gfp *a, const gfp *b, const gfp *c, const gfp *d)
{
    gfp_wide x, y;
    gfp_mul_wide(&x, a, b);
    gfp_mul_wide(&y, c, d);
    gfp_wide_sub(&x, &x, &y);
    gfp_redc(r, &x);
}

G16_HD void gfp_set_one(gfp *r)
{
    const uint32_t one[12] = G16_GFP_ONE;
    G16_UNROLL
    for (int j = 0; j < 12; j++)
        r->l[j] = one[j];
}

#endif /* G16_GPU_FIELD_CUH */
