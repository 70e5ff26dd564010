/*
 * Fr and Fp arithmetic for the GPU, in the C subset shared by CUDA C++ and C11: the same source
 * compiles into the kernels (nvcc, PTX carry chains) and into host tests (gcc, where each PTX
 * instruction is emulated), so the algorithm is checked against the CPU field on any machine.
 *
 * Representation: gfr = 8 and gfp = 12 little-endian 32-bit limbs in Montgomery form with
 * R = 2^256 and 2^384: the very bits of g16_fr / g16_fp (include/g16.h) read as 32-bit words.
 * Invariant: fully reduced (< modulus) in and out, except the gfr_*_lazy functions (the NTT's
 * butterflies: values below 2r, see there). Outputs may alias inputs. Every function is
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
 * Squaring: gfp_sqr / gfr_sqr are the product a·a. A dedicated Fp squaring (gfp_sqr_cols,
 * mont32_sqr: the full square by columns, each cross product once and doubled, N(N−1) + 2N IMAD,
 * then the row reduction, 2N² + N, on the low half; 456 IMAD against 588) measured slower in the
 * MSM, see gfp_sqr_cols.
 * Inversion: variable time, in gpu/field_inv.cuh.
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
#define G16_NOUNROLL _Pragma("unroll 1")
#else
#define G16_UNROLL
#define G16_NOUNROLL
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
/* p² in 24 limbs: added to a difference of double-width products to keep it non-negative */
#define G16_GFP_MODULUS_SQ                                                                                \
    {0x1c718e39u, 0x26aa0000u, 0x76382eabu, 0x7ced6b1du, 0x62113cfdu, 0x162c3383u, 0x3e71b743u,          \
     0x66bf91edu, 0x7091a049u, 0x292e85a8u, 0x86185c7bu, 0x1d68619cu, 0x0978ef01u, 0xf5314933u,          \
     0x16ddca6eu, 0x50a62cfdu, 0x349e8bd0u, 0x66e59e49u, 0x0e7046b4u, 0xe2dc90e5u, 0xa22f25e9u,          \
     0x4bd278eau, 0xb8c35fc7u, 0x02a437a4u}

/* ---------------------------------------------------------------- carry-chain primitives
 * Each mirrors one PTX instruction. The `g16_cf` argument names the chain for the reader; both the
 * device (the hardware flag, asm volatile keeping the order) and the host emulation (one flag per
 * thread) have a single carry flag, so chains must not interleave: the host tests catch it.
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
/* The emulated flag is one per thread, as the hardware's: two chains interleaved in the source
 * read each other's carries here too, as they would on the device (the g16_cf arguments only name
 * the chain). Which kind (1 add, 2 sub) set it is recorded; a flag from the other kind reads
 * inverted. */
#if defined(__cplusplus)
static thread_local g16_cf g16__cf_hw;
#else
static _Thread_local g16_cf g16__cf_hw;
#endif
G16_HD uint32_t cf_get(uint32_t kind) { return g16__cf_hw.k == kind ? g16__cf_hw.c : 1u - g16__cf_hw.c; }
G16_HD void cf_set(uint32_t c, uint32_t kind) { g16__cf_hw.c = c; g16__cf_hw.k = kind; }
G16_HD uint32_t add_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a + b; (void)f; cf_set((uint32_t)(t >> 32), 1); return (uint32_t)t; }
G16_HD uint32_t addc_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a + b + cf_get(1); (void)f; cf_set((uint32_t)(t >> 32), 1); return (uint32_t)t; }
G16_HD uint32_t addc(uint32_t a, uint32_t b, g16_cf *f) { (void)f; return a + b + cf_get(1); }
G16_HD uint32_t sub_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a - b; (void)f; cf_set((uint32_t)(t >> 63), 2); return (uint32_t)t; }
G16_HD uint32_t subc_cc(uint32_t a, uint32_t b, g16_cf *f) { uint64_t t = (uint64_t)a - b - cf_get(2); (void)f; cf_set((uint32_t)(t >> 63), 2); return (uint32_t)t; }
G16_HD uint32_t subc(uint32_t a, uint32_t b, g16_cf *f) { (void)f; return a - b - cf_get(2); }
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
/* Trailing zero bits of x != 0. */
G16_HD int ctz32(uint32_t x)
{
#if defined(G16_PTX)
    return __ffs((int)x) - 1;
#else
    return __builtin_ctz(x);
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
/* E += q·m_even from digit i (digit i holds t, with q·m0 + t ≡ 0: it becomes 0); the carry goes to
 * the fresh digit E[i+N]. */
G16_HD void mont32_reduce_even(uint32_t *E, uint32_t t, uint32_t q, const uint32_t *m, int i, int N)
{
    g16_cf f = {0, 0};
    (void)mad_lo_cc(m[0], q, t, &f);
    E[i + 1] = madc_hi_cc(m[0], q, E[i + 1], &f);
    G16_UNROLL
    for (int j = 2; j < N; j += 2) {
        E[i + j] = madc_lo_cc(m[j], q, E[i + j], &f);
        E[i + j + 1] = madc_hi_cc(m[j], q, E[i + j + 1], &f);
    }
    E[i + N] = addc(E[i + N], 0, &f);
}

/* O += q·m_odd from digit i+1; the carry chain starts fresh, or (cont) continues the one in g,
 * which the caller's previous instruction left in the carry flag. cont is a constant at every
 * call. The last digit O[i+N] takes the chain's final carry. */
G16_HD void mont32_reduce_odd(uint32_t *O, uint32_t q, const uint32_t *m, int i, int N, g16_cf *g, int cont)
{
    O[i + 1] = cont ? madc_lo_cc(m[1], q, O[i + 1], g) : mad_lo_cc(m[1], q, O[i + 1], g);
    O[i + 2] = madc_hi_cc(m[1], q, O[i + 2], g);
    G16_UNROLL
    for (int j = 3; j < N - 1; j += 2) {
        O[i + j] = madc_lo_cc(m[j], q, O[i + j], g);
        O[i + j + 1] = madc_hi_cc(m[j], q, O[i + j + 1], g);
    }
    O[i + N - 1] = madc_lo_cc(m[N - 1], q, O[i + N - 1], g);
    O[i + N] = madc_hi(m[N - 1], q, O[i + N], g);
}

G16_HD void mont32_reduce_row(uint32_t *E, uint32_t *O, uint32_t t, const uint32_t *m, uint32_t n0, int i, int N)
{
    uint32_t q = mul_lo(t, n0);
    mont32_reduce_even(E, t, q, m, i, N);
    g16_cf g = {0, 0};
    mont32_reduce_odd(O, q, m, i, N, &g, 0);
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

/* The end of a product: r = (E + O) − m if that is >= m, else E + O (N digits each; the sum is
 * below 2m); with lazy, r = E + O (a constant at every call). */
G16_HD void mont32_merge_reduce(uint32_t *r, const uint32_t *E, const uint32_t *O, const uint32_t *m, int N,
                                int lazy)
{
    g16_cf f = {0, 0};
    uint32_t s[G16_MONT_MAX];
    s[0] = add_cc(E[0], O[0], &f);
    G16_UNROLL
    for (int j = 1; j < N - 1; j++)
        s[j] = addc_cc(E[j], O[j], &f);
    s[N - 1] = addc(E[N - 1], O[N - 1], &f);
    if (!lazy) {
        mont32_final_sub(r, s, m, N);
        return;
    }
    G16_UNROLL
    for (int j = 0; j < N; j++)
        r[j] = s[j];
}

/* r = a·b·2^(-32N) mod m. special_r selects mont32_reduce_row_r (only for Fr's modulus). lazy
 * skips the final subtraction: r < a·b/2^(32N) + m, and a must then be below m (the row loop runs
 * over b's limbs; the partial sums stay below (a + m)·2^(32(i+1)), within the digit arrays only
 * when a + m < 2^(32N)), b may be anything below 2^(32N). Both flags are constants at every call. */
G16_HD void mont32_mul(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, uint32_t n0, int N,
                       int special_r, int lazy)
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
    mont32_merge_reduce(r, E + N, O + N, m, N, lazy);
}

/* The full square T[0..2N-1] = a² by columns (product scanning): each column's cross products
 * a_i·a_j (i < j) summed once into a 3-digit accumulator, doubled, plus a_(k/2)² in even columns:
 * N(N-1)/2 + N multiply pairs instead of the product's N². A column sum stays below 2^69. */
G16_HD void mont32_sqr_wide(uint32_t *T, const uint32_t *a, int N)
{
    uint32_t t0 = 0, t1 = 0, t2 = 0; /* the carry of the columns below */
    G16_UNROLL
    for (int k = 0; k < 2 * N - 1; k++) {
        uint32_t s0 = 0, s1 = 0, s2 = 0;
        G16_UNROLL
        for (int i = k < N ? 0 : k - N + 1; i < k - i; i++) {
            g16_cf f = {0, 0};
            s0 = mad_lo_cc(a[i], a[k - i], s0, &f);
            s1 = madc_hi_cc(a[i], a[k - i], s1, &f);
            s2 = addc(s2, 0, &f);
        }
        s2 = (s2 << 1) | (s1 >> 31);
        s1 = (s1 << 1) | (s0 >> 31);
        s0 <<= 1;
        g16_cf f = {0, 0};
        if (k % 2 == 0) {
            s0 = mad_lo_cc(a[k / 2], a[k / 2], s0, &f);
            s1 = madc_hi_cc(a[k / 2], a[k / 2], s1, &f);
            s2 = addc(s2, 0, &f);
        }
        g16_cf g = {0, 0};
        T[k] = add_cc(t0, s0, &g);
        t0 = addc_cc(t1, s1, &g);
        t1 = addc(t2, s2, &g);
        t2 = 0;
    }
    T[2 * N - 1] = t0;
}

/* mont32_reduce_row for a digit i not yet merged: t = E[i] + O[i] (the carry goes into O's chain),
 * q = t·n0, then E += q·m_even from digit i, O += q·m_odd from digit i+1, each chain ending in a
 * fresh digit as in mont32_mul. */
G16_HD void mont32_reduce_merge(uint32_t *E, uint32_t *O, const uint32_t *m, uint32_t n0, int i, int N)
{
    g16_cf g = {0, 0};
    uint32_t t = add_cc(E[i], O[i], &g);
    uint32_t q = mul_lo(t, n0);
    mont32_reduce_odd(O, q, m, i, N, &g, 1);
    mont32_reduce_even(E, t, q, m, i, N);
}

/* r = T·2^(-32N) mod m for a double-width T[0..2N-1] < m·2^(32N) (generic modulus): the low half
 * reduced row by row as in mont32_mul (digits from N on start at zero, so every chain ends in a
 * fresh digit), then the high half added: T + Σ q_i·m·2^(32i) < m·2^(32N) + m·2^(32N), so the
 * result is below 2m before the final subtraction. 2N² + N multiply-adds (300 for 12 limbs). */
G16_HD void mont32_redc_wide(uint32_t *r, const uint32_t *T, const uint32_t *m, uint32_t n0, int N)
{
    uint32_t E[2 * G16_MONT_MAX + 1], O[2 * G16_MONT_MAX + 1], s[G16_MONT_MAX];
    G16_UNROLL
    for (int j = 0; j <= 2 * N; j++) {
        E[j] = j < N ? T[j] : 0;
        O[j] = 0;
    }
    G16_UNROLL
    for (int i = 0; i < N; i++)
        mont32_reduce_merge(E, O, m, n0, i, N);
    g16_cf f = {0, 0}, g = {0, 0};
    s[0] = add_cc(E[N], O[N], &f);
    G16_UNROLL
    for (int j = 1; j < N; j++)
        s[j] = addc_cc(E[N + j], O[N + j], &f);
    s[0] = add_cc(s[0], T[N], &g);
    G16_UNROLL
    for (int j = 1; j < N; j++)
        s[j] = addc_cc(s[j], T[N + j], &g);
    mont32_final_sub(r, s, m, N);
}

/* r = a²·2^(-32N) mod m (generic modulus): the full square, then mont32_redc_wide (a² < m²).
 * 456 multiply-adds for 12 limbs against the product's 588 (66 + 12 pairs for the square against
 * 144). */
G16_HD void mont32_sqr(uint32_t *r, const uint32_t *a, const uint32_t *m, uint32_t n0, int N)
{
    uint32_t T[2 * G16_MONT_MAX];
    mont32_sqr_wide(T, a, N);
    mont32_redc_wide(r, T, m, n0, N);
}

/* The plain product T[0..2N-1] = a·b (no reduction; a, b any N-limb values): mont32_mul's product
 * rows without its reduction rows, each merged digit i final as soon as row i is done. 2N²
 * multiply-adds. With mont32_redc_wide it splits a Montgomery product in two, so that sums and
 * differences of products can be reduced once (gfp2_mul_lazy). */
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
    T[2 * N - 1] = addc(E[2 * N - 1], O[2 * N - 1], &f); /* the product is below 2^(64N) */
}

/* The same product as mont32_mul with the row loop rolled: U rows (U divides N) per trip of a
 * loop that is not unrolled, on digit windows e, o that slide down U digits per trip (e[k] is
 * E[base + k] of mont32_mul; row k of a trip is mont32_mul's row base + k, and row 0 on zeroed
 * windows is mont32_row0). Why: fully unrolled, a 12-limb product is ~700 instructions, and the
 * MSM's mixed addition inlines ten of them (G2: 28), more code than the SM's instruction caches
 * hold (profile of the level-0 accumulation, G1 2^22: a third of the stall cycles waiting for
 * instructions). Rolled, each product site is U rows plus the slide (2N + N − U register moves
 * per trip), which the multiply-add pipe's half rate leaves issue slots for. */
G16_HD void mont32_mul_rolled(uint32_t *r, const uint32_t *a, const uint32_t *b, const uint32_t *m, uint32_t n0,
                              int N, int U)
{
    uint32_t e[2 * G16_MONT_MAX + 1], o[2 * G16_MONT_MAX + 1], bb[G16_MONT_MAX];
    G16_UNROLL
    for (int j = 0; j < N; j++) {
        e[j] = 0;
        o[j] = 0;
        bb[j] = b[j];
    }
    G16_NOUNROLL
    for (int base = 0; base < N; base += U) {
        G16_UNROLL
        for (int k = 0; k < U; k++) {
            mont32_row_even(e, a, bb[k], k, N);
            uint32_t t = mont32_row_odd(e, o, a, bb[k], k, N);
            mont32_reduce_row(e, o, t, m, n0, k, N);
        }
        G16_UNROLL
        for (int j = 0; j < N; j++) {
            e[j] = e[j + U];
            o[j] = o[j + U];
        }
        G16_UNROLL
        for (int j = 0; j + U < N; j++)
            bb[j] = bb[j + U];
    }
    mont32_merge_reduce(r, e, o, m, N, 0);
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
/* The Fr product with mont32_mul's flags (constants at every call). */
G16_HD void gfr_mul_flags(gfr *r, const gfr *a, const gfr *b, int special_r, int lazy)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    gfr t;
    mont32_mul(t.l, a->l, b->l, m, G16_GFR_N0, 8, special_r, lazy);
    *r = t;
}
/* Fr multiplication with the special-modulus reduction (224 IMAD). */
G16_HD void gfr_mul(gfr *r, const gfr *a, const gfr *b) { gfr_mul_flags(r, a, b, 1, 0); }
/* The same product through the generic reduction (for tests of both paths). */
G16_HD void gfr_mul_generic(gfr *r, const gfr *a, const gfr *b) { gfr_mul_flags(r, a, b, 0, 0); }
G16_HD void gfr_sqr(gfr *r, const gfr *a) { gfr_mul(r, a, a); }
G16_HD void gfr_set_one(gfr *r)
{
    const uint32_t one[8] = G16_GFR_ONE;
    G16_UNROLL
    for (int j = 0; j < 8; j++)
        r->l[j] = one[j];
}

/* Lazy Fr for the NTT's butterflies: values below 2r (2r < 2^256, 4r is not), so a product's final
 * subtraction can go: gfr_mul_lazy(r, a, b) with a < r (the twiddle) and b < 2r gives
 * r < a·b/2^256 + r < 2r·(r/2^256) + r < 1.91r. Sums and differences are reduced modulo 2r. */
#define G16_GFR_MODULUS_2                                                                                 \
    {0x00000002u, 0xfffffffeu, 0xfffcb7fdu, 0xa77b4805u, 0x1343b00au, 0x6673b010u, 0x533afa90u, 0xe7db4ea6u}

/* r = a·b·2^-256 mod r, below 2r; a < r, b < 2r. */
G16_HD void gfr_mul_lazy(gfr *r, const gfr *a, const gfr *b) { gfr_mul_flags(r, a, b, 1, 1); }
/* r = a + b mod 2r, for a, b < 2r: the sum (up to 4r) may carry out of 256 bits, so the
 * subtraction of 2r runs over a ninth digit. */
G16_HD void gfr_add_lazy(gfr *r, const gfr *a, const gfr *b)
{
    const uint32_t m2[8] = G16_GFR_MODULUS_2;
    g16_cf f = {0, 0}, g = {0, 0};
    uint32_t t[8], d[8];
    t[0] = add_cc(a->l[0], b->l[0], &f);
    G16_UNROLL
    for (int j = 1; j < 8; j++)
        t[j] = addc_cc(a->l[j], b->l[j], &f);
    uint32_t c = addc(0, 0, &f);
    d[0] = sub_cc(t[0], m2[0], &g);
    G16_UNROLL
    for (int j = 1; j < 8; j++)
        d[j] = subc_cc(t[j], m2[j], &g);
    (void)subc_cc(c, 0, &g);
    uint32_t keep_t = subc(0, 0, &g); /* all ones when (c, t) < 2r */
    G16_UNROLL
    for (int j = 0; j < 8; j++)
        r->l[j] = (t[j] & keep_t) | (d[j] & ~keep_t);
}
/* r = a − b mod 2r, for a, b < 2r. */
G16_HD void gfr_sub_lazy(gfr *r, const gfr *a, const gfr *b)
{
    const uint32_t m2[8] = G16_GFR_MODULUS_2;
    mont32_sub(r->l, a->l, b->l, m2, 8);
}
/* r = a mod r for a < 2r (canonical again). */
G16_HD void gfr_reduce_lazy(gfr *r, const gfr *a)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    mont32_final_sub(r->l, a->l, m, 8);
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
    mont32_mul(t.l, a->l, b->l, m, G16_GFP_N0, 12, 0, 0);
    *r = t;
}
G16_HD void gfp_sqr(gfp *r, const gfp *a) { gfp_mul(r, a, a); }
/* a² through the dedicated squaring (mont32_sqr); the same value as gfp_sqr. Not the default:
 * slower in the MSM on the H200 (bench/RESULTS.md, "Session of 2026-12-03 (seventh)": G1 2^24
 * random accumulate 116.4 ms with products, 128.3 with this squaring for the mixed addition's two
 * squares, same job): its column sums are chains of dependent carry adds, where the product's
 * two digit arrays keep independent chains. */
G16_HD void gfp_sqr_cols(gfp *r, const gfp *a)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    gfp t;
    mont32_sqr(t.l, a->l, m, G16_GFP_N0, 12);
    *r = t;
}
/* gfp_mul with U rows per loop trip (mont32_mul_rolled; U = 1, 2, 3, 4, 6 or 12). */
G16_HD void gfp_mul_rolled(gfp *r, const gfp *a, const gfp *b, int U)
{
    const uint32_t m[12] = G16_GFP_MODULUS;
    gfp t;
    mont32_mul_rolled(t.l, a->l, b->l, m, G16_GFP_N0, 12, U);
    *r = t;
}
G16_HD void gfp_set_one(gfp *r)
{
    const uint32_t one[12] = G16_GFP_ONE;
    G16_UNROLL
    for (int j = 0; j < 12; j++)
        r->l[j] = one[j];
}

#endif /* G16_GPU_FIELD_CUH */
