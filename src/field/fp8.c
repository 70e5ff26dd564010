/*
 * Fp8 (fp8.h): eight-lane Montgomery multiplication in radix 2^52, AVX-512 IFMA and portable C.
 *
 * Algorithm (both back ends, limb for limb): CIOS over the 8 limbs of b. The accumulator
 * T0..T8 holds unnormalized 64-bit sums of 52-bit pieces:
 *   round i:  T_j += lo52(a_j·b_i), T_(j+1) += hi52(a_j·b_i)        (j = 0..7)
 *             m = lo52(T0·n0), n0 = -p^(-1) mod 2^52 (only T0's low 52 bits matter)
 *             T_j += lo52(m·p_j), T_(j+1) += hi52(m·p_j)  -> T0 ≡ 0 mod 2^52
 *             T1 += T0 >> 52, shift down one limb.
 * A limb position receives at most 4 pieces < 2^52 per round plus a small carry, for at most 8
 * rounds before it leaves T0: < 2^57, so the 64-bit lanes never overflow and no carry has to be
 * propagated inside the loop (that is what makes IFMA pay: no carry chains across limbs).
 * Bound: a, b < p and p² < p·2^416, so the result (a·b + M·p)/2^416 < 2p; one carry
 * normalization pass and one conditional subtraction of p (borrow mask, blend) end it.
 *
 * Why IFMA: a 512-bit VPMADD52 does eight 52x52 products; one Fp8 multiplication is 264 of them
 * for eight Fp products, where the scalar MULX code needs 8 x 72 MULX plus twice as many ADCX/ADOX
 * on two flag chains. Intrinsics rather than assembly: no flags or carry chains are involved and
 * the compiler allocates the 17 accumulators and constants to the 32 ZMM registers; the function
 * carries a target attribute, so the rest of the library needs no AVX-512 flags.
 */
#include "fp8.h"

#include <string.h>

#define M52 0xfffffffffffffULL

/* n0 = -p^(-1) mod 2^52, 2^448 mod p and 2^384 mod p in 52-bit limbs (p: g16__fp8_p52 in fp8.h;
 * tests/test_fp8.c recomputes them with GMP). */
static const uint64_t fp8_n0 = 0x3fffcfffcfffdULL;
static const uint64_t fp8_c448[8] = {0x7fde37dba9366ULL, 0x4e27525bc342bULL, 0x1f5b1e9778489ULL,
                                     0xb872b2b91b9dcULL, 0xb206f497dfcafULL, 0x4137cc89a9b0bULL,
                                     0xd9d20d7e39959ULL, 0x411cULL};
static const uint64_t fp8_c384[8] = {0x900000002fffdULL, 0xbc40c0002760ULL, 0x3c758baebf400ULL,
                                     0x57455f4898575ULL, 0xd77ce58537052ULL, 0x71a97a256ec6ULL,
                                     0xec3fa80e4935cULL, 0x15f65ULL};

/* ---- portable back end: the same steps, one lane at a time ---- */

void g16__fp8_mul_portable(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
    uint64_t out[8][8];
    for (int k = 0; k < 8; k++) {
        uint64_t t[9] = {0};
        for (int i = 0; i < 8; i++) {
            uint64_t bi = b->l[i][k];
            for (int j = 0; j < 8; j++) {
                unsigned __int128 pr = (unsigned __int128)a->l[j][k] * bi;
                t[j] += (uint64_t)pr & M52;
                t[j + 1] += (uint64_t)(pr >> 52) & M52;
            }
            uint64_t m = (t[0] * fp8_n0) & M52;
            for (int j = 0; j < 8; j++) {
                unsigned __int128 pr = (unsigned __int128)m * g16__fp8_p52[j];
                t[j] += (uint64_t)pr & M52;
                t[j + 1] += (uint64_t)(pr >> 52) & M52;
            }
            t[1] += t[0] >> 52;
            memmove(t, t + 1, 8 * sizeof t[0]);
            t[8] = 0;
        }
        for (int j = 0; j < 7; j++) {
            t[j + 1] += t[j] >> 52;
            t[j] &= M52;
        }
        /* t < 2p: subtract p, keep t when that borrows (mask select) */
        uint64_t d[8], borrow = 0;
        for (int j = 0; j < 8; j++) {
            uint64_t x = t[j] - g16__fp8_p52[j] - borrow;
            borrow = x >> 63;
            d[j] = x & M52;
        }
        uint64_t keep_t = 0 - borrow;
        for (int j = 0; j < 8; j++)
            out[j][k] = (t[j] & keep_t) | (d[j] & ~keep_t);
    }
    memcpy(r->l, out, sizeof out);
}

/* Additive operations, one lane at a time (limbs < 2^52, values < p in and out). */
static void fp8_add_portable(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
    for (int k = 0; k < 8; k++) {
        uint64_t s[8], d[8], c = 0, borrow = 0;
        for (int j = 0; j < 8; j++) {
            s[j] = a->l[j][k] + b->l[j][k] + c;
            c = s[j] >> 52;
            s[j] &= M52;
        }
        for (int j = 0; j < 8; j++) { /* a + b < 2p: subtract p unless that borrows */
            uint64_t x = s[j] - g16__fp8_p52[j] - borrow;
            borrow = x >> 63;
            d[j] = x & M52;
        }
        uint64_t keep_s = 0 - borrow;
        for (int j = 0; j < 8; j++)
            r->l[j][k] = (s[j] & keep_s) | (d[j] & ~keep_s);
    }
}

static void fp8_sub_portable(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
    for (int k = 0; k < 8; k++) {
        uint64_t d[8], borrow = 0, c = 0;
        for (int j = 0; j < 8; j++) {
            uint64_t x = a->l[j][k] - b->l[j][k] - borrow;
            borrow = x >> 63;
            d[j] = x & M52;
        }
        uint64_t add_p = 0 - borrow; /* a < b: the difference wrapped, add p back */
        for (int j = 0; j < 8; j++) {
            uint64_t y = d[j] + (g16__fp8_p52[j] & add_p) + c;
            c = y >> 52;
            r->l[j][k] = y & M52;
        }
    }
}

static void fp8_neg_portable(g16__fp8 *r, const g16__fp8 *a)
{
    for (int k = 0; k < 8; k++) {
        uint64_t d[8], borrow = 0, any = 0;
        for (int j = 0; j < 8; j++) {
            uint64_t x = g16__fp8_p52[j] - a->l[j][k] - borrow;
            borrow = x >> 63;
            d[j] = x & M52;
            any |= a->l[j][k];
        }
        uint64_t keep = 0 - (uint64_t)(any != 0); /* -0 = 0, not p */
        for (int j = 0; j < 8; j++)
            r->l[j][k] = d[j] & keep;
    }
}

/* ---- AVX-512 IFMA back end ---- */

static int fp8_use_ifma;
static int fp8_cpu_ifma;

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(G16_NO_ASM)
#include <cpuid.h>
#include <immintrin.h>

/* The constructor runs at load time, before any thread exists; the flags are only read later. */
__attribute__((constructor)) static void fp8_detect_cpu(void)
{
    unsigned a, b, c, d;
    int ok = 0;
    if (__get_cpuid_max(0, 0) >= 7) {
        __cpuid(1, a, b, c, d);
        int osxsave = (c >> 27) & 1;
        __cpuid_count(7, 0, a, b, c, d);
        /* EBX bit 16: AVX512F, bit 21: AVX512IFMA */
        if (osxsave && ((b >> 16) & 1) && ((b >> 21) & 1)) {
            unsigned lo, hi;
            __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
            (void)hi;
            /* XCR0: SSE (1), AVX (2), opmask (5), ZMM_Hi256 (6), Hi16_ZMM (7) state enabled */
            ok = (lo & 0xe6) == 0xe6;
        }
    }
    fp8_cpu_ifma = ok;
    fp8_use_ifma = ok;
}

/* acc + lo52/hi52(b·(*a)) with *a read from memory by the instruction (a limb row of an
 * operand): in g16__fp8_mul2_ifma the two operands' 16 rows in registers made it spill. */
__attribute__((target("avx512f,avx512ifma"))) static inline __m512i fp8_madd_lo_m(__m512i acc, __m512i b, const uint64_t *a)
{
    __asm__("vpmadd52luq %2, %1, %0" : "+v"(acc) : "v"(b), "m"(*(const uint64_t(*)[8])a));
    return acc;
}

__attribute__((target("avx512f,avx512ifma"))) static inline __m512i fp8_madd_hi_m(__m512i acc, __m512i b, const uint64_t *a)
{
    __asm__("vpmadd52huq %2, %1, %0" : "+v"(acc) : "v"(b), "m"(*(const uint64_t(*)[8])a));
    return acc;
}

/* Clang 14 cannot honour an unroll request on the loop that uses fp8_bcast below (a warning,
 * an error under -Werror) and unrolls it unasked; GCC needs the request. */
#if defined(__clang__)
#define FP8_GCC_UNROLL8
#else
#define FP8_GCC_UNROLL8 _Pragma("GCC unroll 8")
#endif

/* A broadcast load kept out of the register allocator's hands: in g16__fp8_mul2_ifma, p's eight
 * limbs held in registers made the two products' accumulators spill. */
__attribute__((target("avx512f"))) static inline __m512i fp8_bcast(const uint64_t *c)
{
    __m512i r;
    __asm__("vpbroadcastq %1, %0" : "=v"(r) : "m"(*c));
    return r;
}

/* Reduction round i of the column sums lo[] + hi[] (g16__fp8_mul_ifma's scheme, shared with the
 * squaring): m_i from column i plus the carry *c in, the carry of column i out through *c, and
 * m_i·p's pieces into lo[i + 1 ..] / hi[i + 1 ..]. */
__attribute__((target("avx512f,avx512ifma"), always_inline)) static inline void fp8_round(__m512i *lo, __m512i *hi,
                                                                                        int i, __m512i *c)
{
    const __m512i z = _mm512_setzero_si512();
    const __m512i mask = _mm512_set1_epi64((long long)M52);
    __m512i s = _mm512_add_epi64(_mm512_add_epi64(lo[i], hi[i]), *c);
    __m512i m = _mm512_madd52lo_epu64(z, s, _mm512_set1_epi64((long long)fp8_n0));
    *c = _mm512_srli_epi64(_mm512_add_epi64(s, mask), 52); /* ceil(s / 2^52) */
    hi[i + 1] = _mm512_madd52hi_epu64(hi[i + 1], m, fp8_bcast(&g16__fp8_p52[0]));
    _Pragma("GCC unroll 8") for (int j = 1; j < 8; j++)
    {
        __m512i pj = fp8_bcast(&g16__fp8_p52[j]);
        lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], m, pj);
        hi[i + j + 1] = _mm512_madd52hi_epu64(hi[i + j + 1], m, pj);
    }
}

/* The end of a product after its 8 rounds: V = columns 8..15 (+ the carry c of column 7) into r,
 * normalized; canonical unless lazy (V and V − p normalized by two independent chains, the
 * non-negative one kept; lazy: V < 2p as it is). */
__attribute__((target("avx512f,avx512ifma"), always_inline)) static inline void
fp8_finish(g16__fp8 *r, const __m512i *lo, const __m512i *hi, __m512i c, int lazy)
{
    const __m512i z = _mm512_setzero_si512();
    const __m512i mask = _mm512_set1_epi64((long long)M52);
    __m512i v[8], w[8], cv = z, cw = z;
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
    {
        v[j] = _mm512_add_epi64(lo[8 + j], hi[8 + j]);
        if (j == 0)
            v[j] = _mm512_add_epi64(v[j], c);
        w[j] = _mm512_sub_epi64(v[j], _mm512_set1_epi64((long long)g16__fp8_p52[j]));
    }
    if (lazy) {
        _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        {
            __m512i x = _mm512_add_epi64(v[j], cv);
            cv = _mm512_srai_epi64(x, 52);
            _mm512_storeu_si512((void *)r->l[j], _mm512_and_si512(x, mask));
        }
        return;
    }
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
    {
        __m512i x = _mm512_add_epi64(v[j], cv), y = _mm512_add_epi64(w[j], cw);
        cv = _mm512_srai_epi64(x, 52);
        cw = _mm512_srai_epi64(y, 52);
        v[j] = _mm512_and_si512(x, mask);
        w[j] = _mm512_and_si512(y, mask);
    }
    __mmask8 neg = _mm512_cmplt_epi64_mask(cw, z); /* V < p: keep V */
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        _mm512_storeu_si512((void *)r->l[j], _mm512_mask_blend_epi64(neg, w[j], v[j]));
}

/* r = a·b·2^(-416) (the carry of a finished column taken from its own limbs, see below). The
 * same Montgomery product as the portable code (the same m_i, so the same value, < 2p before the
 * final subtraction), scheduled for latency: the CIOS loop above (until 2026-12-03) chained four
 * VPMADD52 per accumulator and round and the reduction's m_i through the carry of column i, so
 * one product took ~107 ns against ~41 ns of VPMADD52 throughput (264 of them at ~0.155 ns).
 * Here:
 *   - column k has two accumulators, lo[k] (the lo52 pieces) and hi[k] (the hi52 pieces): each
 *     takes two VPMADD52 per round instead of four;
 *   - row i + 1 of a·b is issued before reduction round i, so that column i + 1's product
 *     pieces are in before round i's reduction pieces arrive (the m chain waits only on those);
 *   - round i's carry into column i + 1 is read off column i before the reduction: with
 *     s = column i's sum, s + lo52(m_i·p_0) ≡ 0 mod 2^52 and both are below 2^52 in their low
 *     limb, so the carry is (s >> 52) + (s mod 2^52 != 0) = (s + 2^52 − 1) >> 52; lo52(m_i·p_0)
 *     itself is never added.
 * Column sums stay < 2^58 (at most 16 product and 16 reduction pieces < 2^52, plus carries).
 * The end: V = Σ columns 8..15 normalized and V − p normalized, two independent carry chains,
 * the non-negative one kept. */
__attribute__((target("avx512f,avx512ifma"), always_inline)) static inline void
fp8_mul_ifma(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b, int lazy)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i lo[17], hi[17], bi, c = z;
    _Pragma("GCC unroll 17") for (int j = 0; j < 17; j++) lo[j] = hi[j] = z;
    /* row 0 of the product */
    bi = _mm512_loadu_si512((const void *)b->l[0]);
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
    {
        lo[j] = fp8_madd_lo_m(lo[j], bi, a->l[j]);
        hi[j + 1] = fp8_madd_hi_m(hi[j + 1], bi, a->l[j]);
    }
    FP8_GCC_UNROLL8 for (int i = 0; i < 8; i++)
    {
        if (i + 1 < 8) { /* row i + 1 */
            bi = _mm512_loadu_si512((const void *)b->l[i + 1]);
            _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
            {
                lo[i + 1 + j] = fp8_madd_lo_m(lo[i + 1 + j], bi, a->l[j]);
                hi[i + 2 + j] = fp8_madd_hi_m(hi[i + 2 + j], bi, a->l[j]);
            }
        }
        fp8_round(lo, hi, i, &c); /* column i is complete */
    }
    fp8_finish(r, lo, hi, c, lazy);
}

__attribute__((target("avx512f,avx512ifma"))) void g16__fp8_mul_ifma(g16__fp8 *r, const g16__fp8 *a,
                                                                     const g16__fp8 *b)
{
    fp8_mul_ifma(r, a, b, 0);
}

/* The final subtraction of p is a fifth of the product's non-VPMADD52 vector work, and those
 * share the two ports with the VPMADD52: without it a product measured 80-88 ns against 95-101
 * (build-rel/ab/kb.c, 2026-12-03). */
__attribute__((target("avx512f,avx512ifma"))) void g16__fp8_mul_lazy_ifma(g16__fp8 *r, const g16__fp8 *a,
                                                                          const g16__fp8 *b)
{
    fp8_mul_ifma(r, a, b, 1);
}

/* Two independent products in one pass: r0 = a0·b0, r1 = a1·b1, g16__fp8_mul_ifma's steps
 * interleaved. One product does not fill the two VPMADD52 ports of this CPU (measured 0.24 ns
 * per VPMADD52 with independent accumulators, 1.8 ns dependent: ~264 of them would take ~65 ns,
 * the product takes ~107) and the next product rarely overlaps it (its ~470 instructions fill
 * the out-of-order window); two chains side by side: ~88-92 ns per product (2026-12-02, 2-core
 * dev VM). The operands' rows are memory operands of the VPMADD52 and p is broadcast per use,
 * or the 18 accumulators and 16 rows spill. Outputs may alias any input (all loads come before
 * the stores). */
__attribute__((target("avx512f,avx512ifma"), always_inline)) static inline void
fp8_mul2_ifma(g16__fp8 *r0, const g16__fp8 *a0, const g16__fp8 *b0, g16__fp8 *r1, const g16__fp8 *a1,
              const g16__fp8 *b1, int lazy)
{
    const __m512i z = _mm512_setzero_si512();
    const __m512i mask = _mm512_set1_epi64((long long)M52);
    const __m512i n0 = _mm512_set1_epi64((long long)fp8_n0);
    __m512i x[8], y[8], t[9], u[9];
    _Pragma("GCC unroll 9") for (int j = 0; j < 9; j++) t[j] = u[j] = z;
    FP8_GCC_UNROLL8 for (int i = 0; i < 8; i++)
    {
        __m512i bi = _mm512_loadu_si512((const void *)b0->l[i]);
        __m512i ci = _mm512_loadu_si512((const void *)b1->l[i]);
        _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        {
            t[j] = fp8_madd_lo_m(t[j], bi, a0->l[j]);
            u[j] = fp8_madd_lo_m(u[j], ci, a1->l[j]);
            t[j + 1] = fp8_madd_hi_m(t[j + 1], bi, a0->l[j]);
            u[j + 1] = fp8_madd_hi_m(u[j + 1], ci, a1->l[j]);
        }
        __m512i m = _mm512_madd52lo_epu64(z, t[0], n0);
        __m512i n = _mm512_madd52lo_epu64(z, u[0], n0);
        FP8_GCC_UNROLL8 for (int j = 0; j < 8; j++)
        {
            __m512i pj = fp8_bcast(&g16__fp8_p52[j]);
            t[j] = _mm512_madd52lo_epu64(t[j], m, pj);
            u[j] = _mm512_madd52lo_epu64(u[j], n, pj);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, pj);
            u[j + 1] = _mm512_madd52hi_epu64(u[j + 1], n, pj);
        }
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
        u[1] = _mm512_add_epi64(u[1], _mm512_srli_epi64(u[0], 52));
        _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        {
            t[j] = t[j + 1];
            u[j] = u[j + 1];
        }
        t[8] = u[8] = z;
    }
    _Pragma("GCC unroll 7") for (int j = 0; j < 7; j++)
    {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        u[j + 1] = _mm512_add_epi64(u[j + 1], _mm512_srli_epi64(u[j], 52));
        t[j] = _mm512_and_si512(t[j], mask);
        u[j] = _mm512_and_si512(u[j], mask);
    }
    if (lazy) { /* < 2p, normalized */
        _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        {
            _mm512_storeu_si512((void *)r0->l[j], t[j]);
            _mm512_storeu_si512((void *)r1->l[j], u[j]);
        }
        return;
    }
    __m512i bt = z, bu = z;
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
    {
        __m512i pj = _mm512_set1_epi64((long long)g16__fp8_p52[j]);
        x[j] = _mm512_sub_epi64(_mm512_sub_epi64(t[j], pj), bt);
        y[j] = _mm512_sub_epi64(_mm512_sub_epi64(u[j], pj), bu);
        bt = _mm512_srli_epi64(x[j], 63);
        bu = _mm512_srli_epi64(y[j], 63);
        x[j] = _mm512_and_si512(x[j], mask);
        y[j] = _mm512_and_si512(y[j], mask);
    }
    __mmask8 kt = _mm512_cmpneq_epi64_mask(bt, z), ku = _mm512_cmpneq_epi64_mask(bu, z);
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
    {
        _mm512_storeu_si512((void *)r0->l[j], _mm512_mask_blend_epi64(kt, x[j], t[j]));
        _mm512_storeu_si512((void *)r1->l[j], _mm512_mask_blend_epi64(ku, y[j], u[j]));
    }
}

__attribute__((target("avx512f,avx512ifma"))) void g16__fp8_mul2_ifma(g16__fp8 *r0, const g16__fp8 *a0,
                                                                      const g16__fp8 *b0, g16__fp8 *r1,
                                                                      const g16__fp8 *a1, const g16__fp8 *b1)
{
    fp8_mul2_ifma(r0, a0, b0, r1, a1, b1, 0);
}

__attribute__((target("avx512f,avx512ifma"))) void g16__fp8_mul2_lazy_ifma(g16__fp8 *r0, const g16__fp8 *a0,
                                                                           const g16__fp8 *b0, g16__fp8 *r1,
                                                                           const g16__fp8 *a1, const g16__fp8 *b1)
{
    fp8_mul2_ifma(r0, a0, b0, r1, a1, b1, 1);
}

/* Squaring: the full product first (operand scanning: the 28 cross products once, the sums
 * doubled, then the 8 squares), then 8 Montgomery rounds as in g16__fp8_mul_ifma (its column
 * carry, hi52 pieces apart): 200 VPMADD52 instead of 264. Column sums stay < 2^57 before the
 * reduction (8 cross pieces < 2^52, doubled, plus 2 square pieces) and < 2^58 after it. Same output as
 * g16__fp8_mul_ifma(r, a, a): both are the canonical a²·2^(-416) mod p. */
__attribute__((target("avx512f,avx512ifma"))) void g16__fp8_sqr_ifma(g16__fp8 *r, const g16__fp8 *a)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i av[8], t[16];
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++) av[j] = _mm512_loadu_si512((const void *)a->l[j]);
    _Pragma("GCC unroll 16") for (int j = 0; j < 16; j++) t[j] = z;
    _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++)
    {
        _Pragma("GCC unroll 8") for (int j = i + 1; j < 8; j++)
        {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], av[i], av[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], av[i], av[j]);
        }
    }
    _Pragma("GCC unroll 16") for (int j = 1; j < 16; j++) t[j] = _mm512_add_epi64(t[j], t[j]);
    _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++)
    {
        t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], av[i], av[i]);
        t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], av[i], av[i]);
    }
    /* reduction as in g16__fp8_mul_ifma: the hi52 pieces in their own accumulators h, the carry
     * of column i read off it (lo52(m·p0) never added), V and V − p normalized side by side */
    __m512i h[17], c = z;
    _Pragma("GCC unroll 17") for (int j = 0; j < 17; j++) h[j] = z;
    _Pragma("GCC unroll 8") for (int i = 0; i < 8; i++) fp8_round(t, h, i, &c);
    fp8_finish(r, t, h, c, 0);
}

/* Additive operations: AVX512F only (implied by IFMA), eight lanes per instruction, fp8.h's
 * register helpers: the candidates (V and V + p) normalized by independent carry chains, the
 * canonical one picked by a mask blend. */
__attribute__((target("avx512f"))) static void fp8_add_avx512(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
    g16__fp8v x, y, d;
    g16__fp8v_load(&x, a);
    g16__fp8v_load(&y, b);
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++) /* a + b - p in (-p, p) */
        d.v[j] = _mm512_sub_epi64(_mm512_add_epi64(x.v[j], y.v[j]), _mm512_set1_epi64((long long)g16__fp8_p52[j]));
    g16__fp8v_reduce2(&x, &d);
    g16__fp8v_store(r, &x);
}

__attribute__((target("avx512f"))) static void fp8_sub_avx512(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
    g16__fp8v x, y;
    g16__fp8v_load(&x, a);
    g16__fp8v_load(&y, b);
    g16__fp8v_sub(&x, &x, &y);
    g16__fp8v_store(r, &x);
}

__attribute__((target("avx512f"))) static void fp8_neg_avx512(g16__fp8 *r, const g16__fp8 *a)
{
    g16__fp8v x, d;
    g16__fp8v_load(&x, a);
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++) /* -a in (-p, 0]: -0 stays 0 */
        d.v[j] = _mm512_sub_epi64(_mm512_setzero_si512(), x.v[j]);
    g16__fp8v_reduce2(&x, &d);
    g16__fp8v_store(r, &x);
}
/* Gathers and scatters (g16__fp8_gather / _scatter) are 8x8 transposes of 64-bit words: in
 * registers, eight row loads, 24 shuffles and eight row stores. Word by word they took 69 ns per
 * gather against ~15 ns per lane of an Fp8 product, 16% of the G1 lane MSM's time (a helper's
 * measurement, 2026-12-02). AVX512F only; used whenever the IFMA back end is. The transpose is
 * fp8.h's g16__fp8v_transpose (shared with the register-level helpers). */
__attribute__((target("avx512f"))) void g16__fp8_gather_avx512(g16__fp8 *r, const g16__fp52 *const e[8])
{
    __m512i a[8];
    _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
        a[k] = _mm512_loadu_si512((const void *)e[k]->l);
    g16__fp8v_transpose(a);
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        _mm512_store_si512((void *)r->l[j], a[j]);
}

__attribute__((target("avx512f"))) void g16__fp8_scatter_avx512(g16__fp52 *const e[8], const g16__fp8 *r)
{
    __m512i a[8];
    _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++)
        a[j] = _mm512_load_si512((const void *)r->l[j]);
    g16__fp8v_transpose(a);
    _Pragma("GCC unroll 8") for (int k = 0; k < 8; k++)
        _mm512_storeu_si512((void *)e[k]->l, a[k]);
}
#define FP8_IFMA_COMPILED 1
#else
#define FP8_IFMA_COMPILED 0
#if defined(__x86_64__)
/* Keep the symbol (tests name it); never chosen by the dispatch, since have_ifma is 0. */
void g16__fp8_mul_ifma(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b) { g16__fp8_mul_portable(r, a, b); }
void g16__fp8_mul_lazy_ifma(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b) { g16__fp8_mul_portable(r, a, b); }
void g16__fp8_sqr_ifma(g16__fp8 *r, const g16__fp8 *a) { g16__fp8_mul_portable(r, a, a); }
void g16__fp8_mul2_ifma(g16__fp8 *r0, const g16__fp8 *a0, const g16__fp8 *b0, g16__fp8 *r1, const g16__fp8 *a1,
                        const g16__fp8 *b1)
{
    g16__fp8 t;
    g16__fp8_mul_portable(&t, a0, b0);
    g16__fp8_mul_portable(r1, a1, b1);
    *r0 = t;
}
void g16__fp8_mul2_lazy_ifma(g16__fp8 *r0, const g16__fp8 *a0, const g16__fp8 *b0, g16__fp8 *r1,
                             const g16__fp8 *a1, const g16__fp8 *b1)
{
    g16__fp8_mul2_ifma(r0, a0, b0, r1, a1, b1);
}
#endif
#endif

#if !FP8_IFMA_COMPILED
/* No AVX-512 code in this build: the transposes' names forward to the loops (never chosen). */
void g16__fp8_gather_avx512(g16__fp8 *r, const g16__fp52 *const e[G16__FP8_LANES]) { g16__fp8_gather(r, e); }
void g16__fp8_scatter_avx512(g16__fp52 *const e[G16__FP8_LANES], const g16__fp8 *a) { g16__fp8_scatter(e, a); }
#endif

int g16__fp8_have_ifma(void) { return fp8_cpu_ifma; }
void g16__fp8_force_portable(int on) { fp8_use_ifma = on ? 0 : fp8_cpu_ifma; }

void g16__fp8_mul(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
#if FP8_IFMA_COMPILED
    if (fp8_use_ifma) {
        g16__fp8_mul_ifma(r, a, b);
        return;
    }
#endif
    g16__fp8_mul_portable(r, a, b);
}

void g16__fp8_sqr(g16__fp8 *r, const g16__fp8 *a)
{
#if FP8_IFMA_COMPILED
    if (fp8_use_ifma) {
        g16__fp8_sqr_ifma(r, a);
        return;
    }
#endif
    g16__fp8_mul_portable(r, a, a);
}

void g16__fp8_add(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
#if FP8_IFMA_COMPILED
    if (fp8_use_ifma) {
        fp8_add_avx512(r, a, b);
        return;
    }
#endif
    fp8_add_portable(r, a, b);
}

void g16__fp8_sub(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b)
{
#if FP8_IFMA_COMPILED
    if (fp8_use_ifma) {
        fp8_sub_avx512(r, a, b);
        return;
    }
#endif
    fp8_sub_portable(r, a, b);
}

void g16__fp8_neg(g16__fp8 *r, const g16__fp8 *a)
{
#if FP8_IFMA_COMPILED
    if (fp8_use_ifma) {
        fp8_neg_avx512(r, a);
        return;
    }
#endif
    fp8_neg_portable(r, a);
}

void g16__fp8_dbl(g16__fp8 *r, const g16__fp8 *a) { g16__fp8_add(r, a, a); }

/* A lane constant c in every lane. */
static void fp8_splat(g16__fp8 *r, const uint64_t c[8])
{
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 8; k++)
            r->l[j][k] = c[j];
}

/* 384-bit value in 6 words <-> 8 limbs of 52 bits (limb j = bits 52j .. 52j+51). */
static void fp8_split52(uint64_t o[8], const uint64_t x[6])
{
    for (int j = 0; j < 8; j++) {
        int bit = 52 * j, w = bit / 64, s = bit % 64;
        uint64_t v = x[w] >> s;
        if (s > 12 && w + 1 < 6) /* the limb straddles two words */
            v |= x[w + 1] << (64 - s);
        o[j] = v & M52;
    }
}

static void fp8_join52(uint64_t x[6], const uint64_t l[8])
{
    memset(x, 0, 6 * sizeof x[0]);
    for (int j = 0; j < 8; j++) {
        int bit = 52 * j, w = bit / 64, s = bit % 64;
        x[w] |= l[j] << s;
        if (s > 12 && w + 1 < 6)
            x[w + 1] |= l[j] >> (64 - s);
    }
}

/* x·2^384 (g16_fp limbs, repacked as 52-bit limbs) times 2^448, over 2^416: x·2^416. */
void g16__fp8_from_fp(g16__fp8 *r, const g16_fp a[G16__FP8_LANES])
{
    g16__fp8 t, c;
    for (int k = 0; k < 8; k++) {
        uint64_t l[8];
        fp8_split52(l, a[k].l);
        for (int j = 0; j < 8; j++)
            t.l[j][k] = l[j];
    }
    fp8_splat(&c, fp8_c448);
    g16__fp8_mul(r, &t, &c);
}

/* x·2^416 times 2^384, over 2^416: x·2^384, fully reduced, repacked into 64-bit limbs. */
void g16__fp8_to_fp(g16_fp a[G16__FP8_LANES], const g16__fp8 *r)
{
    g16__fp8 t, c;
    fp8_splat(&c, fp8_c384);
    g16__fp8_mul(&t, r, &c);
    for (int k = 0; k < 8; k++) {
        uint64_t l[8];
        for (int j = 0; j < 8; j++)
            l[j] = t.l[j][k];
        fp8_join52(a[k].l, l);
    }
}

/* One element: the scalar Montgomery product by 2^416 mod p (the Montgomery form of 2^32) turns
 * x·2^384 into x·2^416; by 2^352 turns it back (x·2^416·2^352/2^384 = x·2^384). */
static const g16_fp fp8_k416 = {{0x44f6480ea8e9b9afULL, 0xa96f7d65766c8fe4ULL, 0xe82efd4228b540feULL,
                                 0x6723e5f0ade53b2eULL, 0x25ff6eb6fdd4230aULL, 0x14c8ee06ef23c24aULL}};
static const g16_fp fp8_k352 = {{0, 0, 0, 0, 0, 0x0000000100000000ULL}};

void g16__fp52_from_fp(g16__fp52 *r, const g16_fp *a)
{
    g16_fp t;
    g16__fp_mul(&t, a, &fp8_k416);
    fp8_split52(r->l, t.l);
}

void g16__fp52_to_fp(g16_fp *r, const g16__fp52 *a)
{
    g16_fp t;
    fp8_join52(t.l, a->l);
    g16__fp_mul(r, &t, &fp8_k352);
}

/* 8x8 transposes of 64-bit words (portable: word by word). */
void g16__fp8_gather(g16__fp8 *r, const g16__fp52 *const e[G16__FP8_LANES])
{
#if FP8_IFMA_COMPILED
    if (fp8_use_ifma) {
        g16__fp8_gather_avx512(r, e);
        return;
    }
#endif
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 8; j++)
            r->l[j][k] = e[k]->l[j];
}

void g16__fp8_scatter(g16__fp52 *const e[G16__FP8_LANES], const g16__fp8 *a)
{
#if FP8_IFMA_COMPILED
    if (fp8_use_ifma) {
        g16__fp8_scatter_avx512(e, a);
        return;
    }
#endif
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 8; j++)
            e[k]->l[j] = a->l[j][k];
}
