/*
 * Fp8: eight independent Fp elements ("lanes") multiplied together with AVX-512 IFMA
 * (VPMADD52LUQ/VPMADD52HUQ: eight 52x52-bit products per instruction), for batch code whose
 * multiplications are independent across elements (batch-affine MSM additions, batch inversion
 * split into lanes).
 *
 * Representation: g16__fp8.l[j][k] is limb j (bits 52j .. 52j+51) of lane k: 8 limbs of 52 bits
 * (416 bits) per lane, limb-major so that one 64-byte row holds one limb of all eight lanes.
 * A lane holds x·2^416 mod p (Montgomery form with R8 = 2^416, not the scalar code's 2^384).
 * Invariant: every limb < 2^52 and every lane's value < p (fully reduced). Outputs may alias
 * inputs. Constant-time: no branch or address depends on the values.
 *
 * Conversions to and from g16_fp (Montgomery form with R = 2^384) repack the limbs and multiply by
 * a constant (2^448 mod p in, 2^384 mod p out), so each costs one Fp8 multiplication.
 *
 * g16__fp8_mul picks at run time (CPUID and XGETBV, once at load) between the IFMA code and a
 * portable C version of the same algorithm (identical limbs out); both are exported for the tests.
 * The portable version exists for correctness only (about 250 ns per lane, several times slower
 * than eight scalar MULX products): batch code should take an Fp8 path only when
 * g16__fp8_have_ifma() says so, and keep its scalar path otherwise.
 * Measured on the 2-core dev VM (Sapphire Rapids-class Xeon, 2026-12-02): 10-12 ns per lane
 * against 37-45 ns for one scalar MULX multiplication in the same run.
 */
#ifndef G16_FIELD_FP8_H
#define G16_FIELD_FP8_H

#include "fp.h"

#define G16__FP8_LANES 8
#define G16__FP8_LIMBS 8

typedef struct {
    _Alignas(64) uint64_t l[G16__FP8_LIMBS][G16__FP8_LANES];
} g16__fp8;

/* r = a·b·2^(-416) mod p per lane (the Montgomery product for R8 = 2^416), fully reduced.
 * The inputs need limbs < 2^52 but not values < p: the result before the final subtraction is
 * < a·b/2^416 + p, so a·b < p·2^416 suffices (e.g. both < 4p, or both < 2^398; p > 2^380).
 * The lazy register helpers below (g16__fp8v_*) rely on this. */
void g16__fp8_mul(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
void g16__fp8_sqr(g16__fp8 *r, const g16__fp8 *a);

/* Additive operations per lane (the Montgomery scaling commutes with them). The AVX-512 code
 * (AVX512F, used when the IFMA multiplication is) and the portable code give the same limbs. */
void g16__fp8_add(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
void g16__fp8_sub(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
void g16__fp8_neg(g16__fp8 *r, const g16__fp8 *a);
void g16__fp8_dbl(g16__fp8 *r, const g16__fp8 *a);

/* Lane k of r <- a[k] (and back). */
void g16__fp8_from_fp(g16__fp8 *r, const g16_fp a[G16__FP8_LANES]);
void g16__fp8_to_fp(g16_fp a[G16__FP8_LANES], const g16__fp8 *r);

/* One element in the lane format (8 limbs of 52 bits, x·2^416 mod p, < p), for data that feeds
 * Fp8 lanes many times (MSM bases and buckets): convert once (a scalar Montgomery product each way),
 * then move lanes in and out with transposes only. gather/scatter: lane k <-> *e[k]; in scatter
 * the pointers must be distinct (or the lanes equal). */
typedef struct {
    uint64_t l[G16__FP8_LIMBS];
} g16__fp52;
void g16__fp52_from_fp(g16__fp52 *r, const g16_fp *a);
void g16__fp52_to_fp(g16_fp *r, const g16__fp52 *a);
void g16__fp8_gather(g16__fp8 *r, const g16__fp52 *const e[G16__FP8_LANES]);
void g16__fp8_scatter(g16__fp52 *const e[G16__FP8_LANES], const g16__fp8 *a);
/* The AVX-512 transposes behind those two, without the dispatch (hot loops that checked
 * g16__fp8_have_ifma() once: a call less per gather, ~10% of the G1 lane MSM). Only valid when
 * g16__fp8_have_ifma(); elsewhere they forward to the portable loops. */
void g16__fp8_gather_avx512(g16__fp8 *r, const g16__fp52 *const e[G16__FP8_LANES]);
void g16__fp8_scatter_avx512(g16__fp52 *const e[G16__FP8_LANES], const g16__fp8 *a);

/* The two back ends of g16__fp8_mul. */
void g16__fp8_mul_portable(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
#if defined(__x86_64__)
void g16__fp8_mul_ifma(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b); /* only if have_ifma */
void g16__fp8_sqr_ifma(g16__fp8 *r, const g16__fp8 *a);                     /* the same, a = b */
/* r0 = a0·b0 and r1 = a1·b1 in one interleaved pass (independent products: ~1.6x the
 * throughput of two calls); outputs may alias any input. Only if have_ifma. */
void g16__fp8_mul2_ifma(g16__fp8 *r0, const g16__fp8 *a0, const g16__fp8 *b0, g16__fp8 *r1, const g16__fp8 *a1,
                        const g16__fp8 *b1);
/* Lazy products: the same value mod p with limbs < 2^52 but only < 2p (no final subtraction of
 * p), for a product that only feeds other products (see g16__fp8_mul's input bound: two lazy
 * operands, < 2p each, still give a·b < p·2^416). Only if have_ifma (elsewhere: canonical). */
void g16__fp8_mul_lazy_ifma(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
void g16__fp8_mul2_lazy_ifma(g16__fp8 *r0, const g16__fp8 *a0, const g16__fp8 *b0, g16__fp8 *r1,
                             const g16__fp8 *a1, const g16__fp8 *b1);
#endif
/* 1 when the IFMA code is compiled in, the CPU has AVX512F + AVX512IFMA and the OS saves ZMM state. */
int g16__fp8_have_ifma(void);
/* Forces the portable code for every Fp8 operation (on = 1) or restores the CPUID choice (on = 0);
 * tests and benchmarks. */
void g16__fp8_force_portable(int on);

/* p in 52-bit limbs (tests/test_fp8.c checks it against GMP). */
static const uint64_t g16__fp8_p52[8] = {0xeffffffffaaabULL, 0xfeb153ffffb9fULL, 0x6b0f6241eabffULL,
                                         0x12bf6730d2a0fULL, 0x764774b84f385ULL, 0x1ba7b6434bacdULL,
                                         0x1ea397fe69a4bULL, 0x1a011ULL};

/*
 * Register-level AVX-512 helpers for hot loops that keep lane elements in ZMM registers between
 * operations (msm_g1_fp8.c). g16__fp8v holds one g16__fp8 in registers: v[j] = limb j of the
 * eight lanes. Inline only: a caller must carry target("avx512f") (or a superset) and run only
 * when g16__fp8_have_ifma().
 *
 * Additive results come in two kinds:
 *   canonical   limbs < 2^52, value < p (the g16__fp8 invariant; buckets, comparisons);
 *   lazy        limbs < 2^52, value < 2p (or <= 2p where said): only as an input of
 *               g16__fp8_mul_ifma, whose output is canonical again (see its bound).
 * Signed limb sums d (|d_j| < 2^62) are normalized by g16__fp8v_carry: one shift/add carry chain
 * (arithmetic shifts, so negative limbs borrow). A canonical result of a value V in (-kp, p) is
 * picked among V, V + p, ... V + kp by their signs, the k + 1 chains being independent (they
 * overlap; the old sub ran its borrow and its add-back chains one after the other).
 */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(G16_NO_ASM)
#define G16__FP8_HAVE_X86 1
#include <immintrin.h>

#define G16__FP8V_INLINE static inline __attribute__((target("avx512f"), always_inline))

typedef struct {
    __m512i v[G16__FP8_LIMBS];
} g16__fp8v;

G16__FP8V_INLINE void g16__fp8v_load(g16__fp8v *r, const g16__fp8 *a)
{
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        r->v[j] = _mm512_loadu_si512((const void *)a->l[j]);
}

G16__FP8V_INLINE void g16__fp8v_store(g16__fp8 *r, const g16__fp8v *a)
{
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        _mm512_storeu_si512((void *)r->l[j], a->v[j]);
}

/* 8x8 transpose of 64-bit words in registers: 24 shuffles. */
G16__FP8V_INLINE void g16__fp8v_transpose(__m512i a[8])
{
    __m512i t[8], u[8];
    _Pragma("GCC unroll 8") for (int i = 0; i < 4; i++) { /* t[2i]: words 0,2,4,6 of rows 2i, 2i+1 interleaved; t[2i+1]: 1,3,5,7 */
        t[2 * i] = _mm512_unpacklo_epi64(a[2 * i], a[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_epi64(a[2 * i], a[2 * i + 1]);
    }
    _Pragma("GCC unroll 8") for (int h = 0; h < 2; h++) { /* rows 4h..4h+3: u[4h + c] holds columns c and c + 4 (c < 4) */
        const __m512i *v = t + 4 * h;
        u[4 * h + 0] = _mm512_shuffle_i64x2(v[0], v[2], 0x88);
        u[4 * h + 1] = _mm512_shuffle_i64x2(v[1], v[3], 0x88);
        u[4 * h + 2] = _mm512_shuffle_i64x2(v[0], v[2], 0xdd);
        u[4 * h + 3] = _mm512_shuffle_i64x2(v[1], v[3], 0xdd);
    }
    _Pragma("GCC unroll 8") for (int c = 0; c < 4; c++) {
        a[c] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0x88);
        a[c + 4] = _mm512_shuffle_i64x2(u[c], u[4 + c], 0xdd);
    }
}

/* Lane k <- *e[k] (g16__fp8_gather into registers). */
G16__FP8V_INLINE void g16__fp8v_gather(g16__fp8v *r, const g16__fp52 *const e[8])
{
    _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
        r->v[k] = _mm512_loadu_si512((const void *)e[k]->l);
    g16__fp8v_transpose(r->v);
}

/* *e[k] <- lane k (distinct pointers, or equal lanes). */
G16__FP8V_INLINE void g16__fp8v_scatter(g16__fp52 *const e[8], const g16__fp8v *a)
{
    __m512i t[8];
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        t[j] = a->v[j];
    g16__fp8v_transpose(t);
    _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
        _mm512_storeu_si512((void *)e[k]->l, t[k]);
}

/* r = the limbs of V + k·p, V the value of the signed limbs d (|V + k·p| < 2^416, k <= 3);
 * returns the lanes where V + k·p < 0 (their r is meaningless). */
G16__FP8V_INLINE __mmask8 g16__fp8v_carry(g16__fp8v *r, const g16__fp8v *d, unsigned k)
{
    const __m512i m52 = _mm512_set1_epi64(0xfffffffffffffLL);
    __m512i c = _mm512_setzero_si512();
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++) {
        __m512i x = d->v[j];
        if (k)
            x = _mm512_add_epi64(x, _mm512_set1_epi64((long long)(k * g16__fp8_p52[j])));
        if (j)
            x = _mm512_add_epi64(x, c);
        c = _mm512_srai_epi64(x, 52);
        r->v[j] = _mm512_and_si512(x, m52);
    }
    return _mm512_cmplt_epi64_mask(c, _mm512_setzero_si512());
}

/* d = a - b limb by limb (no carries). */
G16__FP8V_INLINE void g16__fp8v_sub_limbs(g16__fp8v *d, const g16__fp8v *a, const g16__fp8v *b)
{
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        d->v[j] = _mm512_sub_epi64(a->v[j], b->v[j]);
}

/* Canonical r from the signed limbs d of a value in (-p, p) (two chains) or (-2p, p) (three). */
G16__FP8V_INLINE void g16__fp8v_reduce2(g16__fp8v *r, const g16__fp8v *d)
{
    g16__fp8v a, b;
    __mmask8 na = g16__fp8v_carry(&a, d, 0);
    g16__fp8v_carry(&b, d, 1);
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        r->v[j] = _mm512_mask_blend_epi64(na, a.v[j], b.v[j]);
}

G16__FP8V_INLINE void g16__fp8v_reduce3(g16__fp8v *r, const g16__fp8v *d)
{
    g16__fp8v a, b, c;
    __mmask8 na = g16__fp8v_carry(&a, d, 0);
    __mmask8 nb = g16__fp8v_carry(&b, d, 1);
    g16__fp8v_carry(&c, d, 2);
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        r->v[j] = _mm512_mask_blend_epi64(na, a.v[j], _mm512_mask_blend_epi64(nb, b.v[j], c.v[j]));
}

/* Canonical a - b (a, b canonical). */
G16__FP8V_INLINE void g16__fp8v_sub(g16__fp8v *r, const g16__fp8v *a, const g16__fp8v *b)
{
    g16__fp8v d;
    g16__fp8v_sub_limbs(&d, a, b);
    g16__fp8v_reduce2(r, &d);
}

/* Lazy a - b + p, in (0, 2p) (a, b canonical): one chain. */
G16__FP8V_INLINE void g16__fp8v_sub_lazy(g16__fp8v *r, const g16__fp8v *a, const g16__fp8v *b)
{
    g16__fp8v d;
    g16__fp8v_sub_limbs(&d, a, b);
    g16__fp8v_carry(r, &d, 1);
}

/* Lazy (neg ? −a : a) − b per lane (bit k of neg: lane k negates a), a, b canonical: a − b + p or
 * −a − b + 2p, in (0, 2p]; one chain. */
G16__FP8V_INLINE void g16__fp8v_negsub_lazy(g16__fp8v *r, const g16__fp8v *a, const g16__fp8v *b, unsigned neg)
{
    g16__fp8v d;
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
    {
        __m512i p = _mm512_set1_epi64((long long)g16__fp8_p52[j]);
        __m512i s = _mm512_mask_sub_epi64(_mm512_add_epi64(a->v[j], p), (__mmask8)neg, _mm512_add_epi64(p, p), a->v[j]);
        d.v[j] = _mm512_sub_epi64(s, b->v[j]);
    }
    g16__fp8v_carry(r, &d, 0);
}

/* Lanes where a and b have equal limbs (equal values, when both are canonical). */
G16__FP8V_INLINE __mmask8 g16__fp8v_eq(const g16__fp8v *a, const g16__fp8v *b)
{
    __mmask8 e = 0xff;
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        e &= _mm512_cmpeq_epi64_mask(a->v[j], b->v[j]);
    return e;
}
#endif

#endif /* G16_FIELD_FP8_H */
