/*
 * Montgomery products of Fp and Fr on the FP64 pipe (double-precision FMA), an experiment against
 * the integer (IMAD) products of gpu/field.cuh: same conventions (CUDA device code and plain C11 on
 * the host, G16_HD / G16_UNROLL from field.cuh).
 *
 * Verdict, measured (H200, bench_gpu_ntt's multiplication tables, bench/RESULTS.md fifteenth
 * session): not used by the NTT or the MSM. Fp 24.8-24.9 G products/s against 24.5-24.6 for the
 * IMAD product (1.01x; the SASS counts predicted 1.53x: 384 FP64 ops and 768 instructions per
 * product); Fr 62.0-62.2 against 53.8 (1.15x, predicted 1.40x). More resident blocks (fewer
 * registers) are slower, and one IMAD chain beside one FP64 chain in each thread gives 23.8-24.1 G/s
 * in all: the two pipes do not add up. The G1 MSM goal needs ~1.7x from the product.
 *
 * Representation: an element is N limbs of S bits, little-endian, each an exact integer below 2^S
 * held in a double.
 *   gfp64: N = 8, S = 48 (384 bits), Montgomery form with R = 2^384: the same integer as gfp, so
 *          gfp <-> gfp64 is bit repacking (32-bit limbs to 48-bit ones).
 *   gfr64: N = 5, S = 52 (260 bits), Montgomery form with R = 2^260 (gfr has 2^256): gfr64 holds
 *          x·2^260 mod r where gfr holds x·2^256, and the conversions multiply by 2^4 or 2^-4 mod r
 *          (one gfr64 product by a constant each way), so gfr -> gfr64 -> product -> gfr gives the
 *          gfr product's bits.
 * Invariant (lazy): inputs and outputs below 2m (m the modulus), not necessarily reduced. The
 * product (ab + qm)/R < (4m² + Rm)/R = m(1 + 4m/R) < 2m because 4p < 2^384 and 4r < 2^260: no final
 * subtraction. gfp_from_gfp64 / gfr_from_gfr64 return the canonical (< m) integer form.
 *
 * Limb product (a, b < 2^S, ab < 2^2S), three FP64 operations, with C1 = 2^(S+52), C2 = C1 + 2^52:
 *   hi  = fma_rz(a, b, C1)  = C1 + H·2^(S): the exact sum lies in [2^(S+52), 2^(S+53)) whose ulp is
 *         2^S, and rounding toward zero truncates, so H = floor(ab / 2^S) < 2^S.
 *   sub = C2 − hi = 2^52 − H·2^S: a multiple of 2^S below 2^(2S) in magnitude (C2 itself is a
 *         multiple of the ulp 2^S at C1): representable, so exact in any rounding mode.
 *   lo  = fma(a, b, sub) = 2^52 + L with L = ab mod 2^S: an integer in [2^52, 2^53): exact.
 * Read as uint64 (IEEE layout), hi = bits(C1) + H and lo = bits(2^52) + L: the integer values sit
 * in the mantissa fields above a constant pattern. Column sums add these patterns with wrapping
 * 64-bit integer adds; each column starts at minus its known total bias (term counts × patterns,
 * mod 2^64), so once all its terms are in it holds the true sum. Both patterns are multiples of
 * 2^52, so the low S bits of a partial column sum are already the true ones (what the reduction's
 * q needs before the column is complete).
 *
 * Bounds (true column sums, no 2^64 wrap): column k gets at most N lo and N hi terms from a·b and
 * as many from q·m, each below 2^S, plus the carry from column k-1: Fp 32·2^48 + carry < 2^54,
 * Fr 20·2^52 + carry < 2^58 (the carry is below 2^(64-S) at most): far below 2^64.
 *
 * Reduction (CIOS order): row i adds a·b_i, then q = (column i)·n0 mod 2^S (n0 = −m^-1 mod 2^S,
 * 64-bit integer multiply on the otherwise idle IMAD pipe), converted to a double by OR-ing it into
 * the mantissa of 2^52 and subtracting 2^52 (exact), adds q·m (of q·m0 only the high part: its low
 * part would only zero column i's low bits, so the carry is derived instead), and carries column i
 * (complete) into column i+1. After N rows the result is columns N..2N-1, carried into S-bit limbs
 * and converted back to doubles the same way.
 *
 * Rounding: the device uses __fma_rz for hi and plain (exact) operations elsewhere. The host
 * (tests) uses C fma() and the caller must have set fesetround(FE_TOWARDZERO) and compiled with
 * -frounding-math: the host code exercises the real IEEE semantics, not an emulation.
 * FP64 operations per product: 3 per limb product except 1 for each q·m0 (6N² − 2N), one DADD per
 * q and per result limb (2N): 6N² in all, Fp 384 (248 DFMA + 136 DADD), Fr 150 (95 + 55).
 */
#ifndef G16_GPU_FIELD_F64_CUH
#define G16_GPU_FIELD_F64_CUH

#include <stdint.h>
#include <string.h>
#if !defined(__CUDA_ARCH__)
#include <math.h>
#endif

#include "gpu/field.cuh"

#define G16_F64P_LIMBS 8
#define G16_F64R_LIMBS 5
#define G16_F64_MAX_LIMBS 8

typedef struct {
    double l[G16_F64P_LIMBS];
} gfp64;
typedef struct {
    double l[G16_F64R_LIMBS];
} gfr64;

/* p in 48-bit limbs, −p^-1 mod 2^48 */
#define G16_F64P_MODULUS                                                                                  \
    {(double)0xffffffffaaabULL, (double)0xb153ffffb9feULL, (double)0xf6241eabfffeULL,                    \
     (double)0x6730d2a0f6b0ULL, (double)0x4b84f38512bfULL, (double)0x434bacd76477ULL,                    \
     (double)0xe69a4b1ba7b6ULL, (double)0x1a0111ea397fULL}
#define G16_F64P_N0 0xfffcfffcfffdULL
/* r in 52-bit limbs, −r^-1 mod 2^52 */
#define G16_F64R_MODULUS                                                                                  \
    {(double)0xfffff00000001ULL, (double)0x2fffe5bfefffULL, (double)0x9a1d80553bda4ULL,                   \
     (double)0x7d483339d8080ULL, (double)0x73eda753299dULL}
#define G16_F64R_N0 0xffffeffffffffULL
/* 2^264 mod r (gfr -> gfr64: times 2^264·2^-260 = 2^4) and 2^256 mod r (gfr64 -> gfr: times 2^-4) */
#define G16_F64R_TO                                                                                       \
    {(double)0x234fffffdcbULL, (double)0x61039ef635000ULL, (double)0xdce3c3e2e7505ULL,                    \
     (double)0x7fa6f1563642bULL, (double)0x247db575276aULL}
#define G16_F64R_FROM                                                                                     \
    {(double)0x1fffffffeULL, (double)0xfa00034802000ULL, (double)0xcbc4ff55884b7ULL,                      \
     (double)0x56f998c4fefeULL, (double)0x1824b159acc5ULL}

#define G16_F64_TWO52 4503599627370496.0          /* 2^52 */
#define G16_F64_LO_BIAS 0x4330000000000000ULL     /* bits of 2^52 */
#define G16_F64_HI_BIAS(S) ((uint64_t)(1023 + (S) + 52) << 52) /* bits of 2^(S+52) */

/* ---------------------------------------------------------------- primitives */

G16_HD uint64_t f64_bits(double x)
{
#if defined(__CUDA_ARCH__)
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

G16_HD double f64_of_bits(uint64_t u)
{
#if defined(__CUDA_ARCH__)
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

/* a·b + c rounded toward zero (the host relies on the caller's FE_TOWARDZERO). */
G16_HD double f64_fma_rz(double a, double b, double c)
{
#if defined(__CUDA_ARCH__)
    return __fma_rz(a, b, c);
#else
    return fma(a, b, c);
#endif
}

/* a·b + c where the result is exact (any rounding mode gives it). */
G16_HD double f64_fma_exact(double a, double b, double c)
{
#if defined(__CUDA_ARCH__)
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
}

/* The integer x < 2^52 as a double: 2^52 + x by its bit pattern, minus 2^52 (both exact). */
G16_HD double f64_of_u52(uint64_t x) { return f64_of_bits(x | G16_F64_LO_BIAS) - G16_F64_TWO52; }

/* Adds the limb product a·b into columns lo (its low S bits) and hi (the rest), as biased patterns. */
G16_HD void f64_mac(uint64_t *lo, uint64_t *hi, double a, double b, int S)
{
    /* C1 = 2^(S+52); C2 = C1 + 2^52 = C1 plus 2^(52−S) ulps (C1's mantissa field is zero) */
    const double c1 = f64_of_bits(G16_F64_HI_BIAS(S)), c2 = f64_of_bits(G16_F64_HI_BIAS(S) + ((uint64_t)1 << (52 - S)));
    double h = f64_fma_rz(a, b, c1);
    double l = f64_fma_exact(a, b, c2 - h);
    *hi += f64_bits(h);
    *lo += f64_bits(l);
}

/* Number of pairs (i, j), 0 <= i, j < N, with i + j = k. */
G16_HD uint64_t f64_pairs(int k, int N)
{
    if (k < 0 || k > 2 * N - 2)
        return 0;
    return (uint64_t)(k < N ? k + 1 : 2 * N - 1 - k);
}

/* Minus the bias column k collects (mod 2^64): a lo pattern per pair of a·b and of q·m summing to
 * k, except q_k·m_0's (never added, see f64_mont_mul), a hi pattern per pair summing to k − 1. */
G16_HD uint64_t f64_col_init(int k, int N, int S)
{
    uint64_t lo = 2 * f64_pairs(k, N) - (k < N ? 1 : 0), hi = 2 * f64_pairs(k - 1, N);
    return (uint64_t)0 - (lo * G16_F64_LO_BIAS + hi * G16_F64_HI_BIAS(S));
}

/* ---------------------------------------------------------------- generic product */

/* r = a·b·2^(-S·N) mod m, below 2m, for a, b < 2m (see the top comment for the bound). Outputs may
 * alias inputs. */
G16_HD void f64_mont_mul(double *r, const double *a, const double *b, const double *m, uint64_t n0, int N, int S)
{
    const uint64_t mask = ((uint64_t)1 << S) - 1;
    uint64_t col[2 * G16_F64_MAX_LIMBS];
    G16_UNROLL
    for (int k = 0; k < 2 * N; k++)
        col[k] = f64_col_init(k, N, S);
    G16_UNROLL
    for (int i = 0; i < N; i++) {
        G16_UNROLL
        for (int j = 0; j < N; j++)
            f64_mac(&col[i + j], &col[i + j + 1], a[j], b[i], S);
        /* column i has all its a·b terms; its low S bits are exact (biases are multiples of 2^52) */
        double q = f64_of_u52((col[i] * n0) & mask);
        /* q·m0 = H0·2^S + L0 with L0 ≡ −column i (mod 2^S): only H0 is computed (one FMA, not
         * three); column i plus L0 would be a multiple of 2^S, so its carry is column i's high
         * part plus one when its low S bits are nonzero. Column i is otherwise complete here. */
        col[i + 1] += f64_bits(f64_fma_rz(q, m[0], f64_of_bits(G16_F64_HI_BIAS(S))));
        G16_UNROLL
        for (int j = 1; j < N; j++)
            f64_mac(&col[i + j], &col[i + j + 1], q, m[j], S);
        col[i + 1] += (col[i] >> S) + (uint64_t)((col[i] & mask) != 0);
    }
    G16_UNROLL
    for (int k = N; k < 2 * N; k++) {
        if (k > N)
            col[k] += col[k - 1] >> S;
        r[k - N] = f64_of_u52(col[k] & mask);
    }
}

/* ---------------------------------------------------------------- repacking */

/* 32-bit limbs w[0..nw) -> S-bit integer limbs d[0..nd) (the value must fit in S·nd bits). */
G16_HD void f64_unpack32(uint64_t *d, const uint32_t *w, int nw, int nd, int S)
{
    G16_UNROLL
    for (int k = 0; k < nd; k++) {
        int bit = k * S, q = bit / 32, s = bit % 32;
        uint64_t x = 0;
        G16_UNROLL
        for (int t = 0; t < 3; t++) /* word q + t holds bits from 32t − s on: those below S count */
            if (q + t < nw && (t == 0 || 32 * t - s < S))
                x |= t == 0 ? (uint64_t)w[q] >> s : (uint64_t)w[q + t] << (32 * t - s);
        d[k] = x & (((uint64_t)1 << S) - 1);
    }
}

/* S-bit limbs d[0..nd) -> 32-bit limbs w[0..nw) (the value must fit in 32·nw bits). */
G16_HD void f64_pack32(uint32_t *w, const uint64_t *d, int nw, int nd, int S)
{
    G16_UNROLL
    for (int q = 0; q < nw; q++)
        w[q] = 0;
    G16_UNROLL
    for (int k = 0; k < nd; k++) {
        int bit = k * S, q = bit / 32, s = bit % 32;
        G16_UNROLL
        for (int t = 0; t < 3; t++) /* word q + t takes the limb's bits from 32t − s on, if any */
            if (q + t < nw && (t == 0 || 32 * t - s < S))
                w[q + t] |= (uint32_t)(t == 0 ? d[k] << s : d[k] >> (32 * t - s));
    }
}

G16_HD void f64_from_words(double *x, const uint32_t *w, int nw, int N, int S)
{
    uint64_t d[G16_F64_MAX_LIMBS];
    f64_unpack32(d, w, nw, N, S);
    G16_UNROLL
    for (int k = 0; k < N; k++)
        x[k] = f64_of_u52(d[k]);
}

/* Limb doubles (exact integers below 2^52) to 32-bit words; the value must fit in nw words. */
G16_HD void f64_to_words(uint32_t *w, const double *x, int nw, int N, int S)
{
    uint64_t d[G16_F64_MAX_LIMBS];
    G16_UNROLL
    for (int k = 0; k < N; k++)
        d[k] = f64_bits(x[k] + G16_F64_TWO52) - G16_F64_LO_BIAS; /* exact: x[k] < 2^52 */
    f64_pack32(w, d, nw, N, S);
}

/* ---------------------------------------------------------------- Fp */

G16_HD void gfp64_mul(gfp64 *r, const gfp64 *a, const gfp64 *b)
{
    const double m[G16_F64P_LIMBS] = G16_F64P_MODULUS;
    f64_mont_mul(r->l, a->l, b->l, m, G16_F64P_N0, G16_F64P_LIMBS, 48);
}

/* Any gfp (< 2^384 as an integer; a reduced one is < p) as the same Montgomery integer. */
G16_HD void gfp64_from_gfp(gfp64 *r, const gfp *a) { f64_from_words(r->l, a->l, G16_GFP_LIMBS, G16_F64P_LIMBS, 48); }

/* x < 2p -> the canonical gfp (x mod p). */
G16_HD void gfp_from_gfp64(gfp *r, const gfp64 *x)
{
    const uint32_t m[G16_GFP_LIMBS] = G16_GFP_MODULUS;
    uint32_t t[G16_GFP_LIMBS];
    f64_to_words(t, x->l, G16_GFP_LIMBS, G16_F64P_LIMBS, 48);
    mont32_final_sub(r->l, t, m, G16_GFP_LIMBS);
}

/* ---------------------------------------------------------------- Fr */

G16_HD void gfr64_mul(gfr64 *r, const gfr64 *a, const gfr64 *b)
{
    const double m[G16_F64R_LIMBS] = G16_F64R_MODULUS;
    f64_mont_mul(r->l, a->l, b->l, m, G16_F64R_N0, G16_F64R_LIMBS, 52);
}

/* gfr (x·2^256 mod r, reduced) -> gfr64 (x·2^260 mod r, below 2r): repacked, times 2^264·2^-260. */
G16_HD void gfr64_from_gfr(gfr64 *r, const gfr *a)
{
    const gfr64 to = {G16_F64R_TO};
    f64_from_words(r->l, a->l, G16_GFR_LIMBS, G16_F64R_LIMBS, 52);
    gfr64_mul(r, r, &to);
}

/* gfr64 (below 2r) -> the canonical gfr: times 2^256·2^-260, repacked, reduced below r. */
G16_HD void gfr_from_gfr64(gfr *r, const gfr64 *x)
{
    const gfr64 from = {G16_F64R_FROM};
    const uint32_t m[G16_GFR_LIMBS] = G16_GFR_MODULUS;
    gfr64 y;
    uint32_t t[G16_GFR_LIMBS];
    gfr64_mul(&y, x, &from);
    f64_to_words(t, y.l, G16_GFR_LIMBS, G16_F64R_LIMBS, 52);
    mont32_final_sub(r->l, t, m, G16_GFR_LIMBS);
}

#endif /* G16_GPU_FIELD_F64_CUH */
