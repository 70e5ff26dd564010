/*
 * Variable-time modular inversion by Bernstein–Yang divsteps ("safegcd", eprint 2019/266, in
 * the variable-time form that skips runs of zero bits), generic over the number n of 64-bit
 * limbs of the modulus (n <= G16__MONT_MAX_LIMBS), shared by Fp (n = 6) and Fr (n = 4).
 *
 * Interface: mont_inv_var(r, a, m, n0, r2, n): a = x·R mod m (Montgomery form, R = 2^(64n),
 * a < m, m an odd prime) gives r = x^(-1)·R mod m, fully reduced; a = 0 gives 0. r2 = R^2 mod m,
 * n0 = -m^(-1) mod 2^64 (the Montgomery constant). r may alias a. The running time depends on a:
 * public data only.
 *
 * Representation ("s62"): a signed integer as L = n + 1 little-endian int64_t limbs of 62 bits;
 * limbs 0..L-2 lie in [0, 2^62), the top limb carries the sign (value = Σ limb_k·2^(62k)).
 * 62·(n+1) bits hold every value used here (magnitudes below 2m): 434 bits for p, 310 for r.
 *
 * Algorithm. One divstep maps (δ, f, g), f odd, to
 *     (1 - δ, g, (g - f)/2) if δ > 0 and g odd,  (1 + δ, f, (g + f)/2) if g odd,  (1 + δ, f, g/2);
 * from (1, m, a) the steps reach g = 0 with f = ±gcd(m, a) = ±1. The first k steps depend only on
 * δ and the low k bits of f and g, so they are taken 62 at a time on one 64-bit word of each
 * (s62_divsteps_var), giving a 2x2 integer matrix T with 2^62·(f', g') = T·(f, g) whose rows
 * satisfy |u| + |v| <= 2^62 and |q| + |r| <= 2^62. T is then applied to the full-width f and g
 * (exact division by 2^62, s62_update_fg) and to coefficients d, e kept with f·C ≡ d·a and
 * g·C ≡ e·a (mod m) (division by 2^62 modulo m, s62_update_de). Starting from d = 0 and
 * e = C = R^2 mod m, the end gives d ≡ ±R^2·a^(-1) = ±x^(-1)·R: the Montgomery correction is
 * folded into the start value, there is no multiplication afterwards.
 * Inside a batch (η = -δ): the trailing zeros of g are shifted out at once (count trailing
 * zeros); then, when η >= 0, the next η + 1 steps cannot swap, and together they add w·f to g for
 * the one w < 2^k that clears the low k bits of g: w = -g·f^(-1) mod 2^k, at most 5 bits at a
 * time (f^(-1) mod 32 = (3f) xor 2). Matrix entries are computed as uint64_t (wrapping, and no
 * shift of a negative value); their true values fit in int64_t by the row bound.
 * Invariants across batches: |f|, |g| <= m (no divstep increases max(|f|, |g|)), so f and g
 * shrink and the loop drops their top limb once both are 0 or -1; d and e stay in (-2m, m): adding
 * m to a negative one moves it into (-m, m), then u·d + v·e lies in (-2^62·m, 2^62·m), and the
 * multiple w·m (0 <= w < 2^62, from m^(-1) mod 2^62 = -n0) subtracted to make it divisible by 2^62
 * keeps the quotient in (-2m, m). tests/test_inv.c checks all of these with GMP batch by batch.
 *
 * Why this algorithm: the binary extended Euclid it replaces spent a full n-limb shift, compare or
 * subtraction on f, g and on the coefficients (halved modulo m) for every single bit; here a bit
 * costs a few single-word operations, and the full-width work (about 70 64x64->128-bit products
 * for Fp) comes once per 62 bits. An inversion takes 13.0 batches for Fp and 9.0 for Fr on
 * average (test_inv), about 16 loop iterations each; the iterations form one dependency chain
 * (count zeros, shift, two multiplications), which is what the time is spent on.
 * Measured (bench_arith, 2-core dev VM, old and new builds alternated 10 times; bench/RESULTS.md,
 * "CPU: variable-time inversion (safegcd)"): Fp 3.3-4.1 µs per call (fastest run; run medians
 * 3.7-4.3) against 34-45 µs (38-47) for the binary Euclid, Fr 2.1-2.7 µs (2.3-2.8) against
 * 16-20 µs (19-22): 8-11x. The Fermat inversions take ~37 µs (Fp) and ~12 µs (Fr) there.
 * Applying T to d and e after the next batch's divsteps instead of before them measured 7-8%
 * faster (the processor overlaps that update with the divsteps' dependency chain); interleaving it
 * limb by limb into the divstep loop, or BMI2 shifts, measured no further gain.
 */
#ifndef G16_FIELD_INV_VAR_H
#define G16_FIELD_INV_VAR_H

#include "mont.h"

typedef __int128 g16__i128;

#define S62_MAX_LIMBS (G16__MONT_MAX_LIMBS + 1)
#define S62_MASK (UINT64_MAX >> 2)

/* Transition matrix of 62 divsteps: 2^62·f' = u·f + v·g, 2^62·g' = q·f + r·g. */
typedef struct {
    int64_t u, v, q, r;
} s62_mat;

/*
 * (d, e) = T·(d, e) / 2^62 mod m on L limbs, d, e in (-2m, m) before and after; m62 is m in s62,
 * minv = m^(-1) mod 2^62. Per row: add m·(u if d < 0) + m·(v if e < 0), which moves d and e into
 * (-m, m), then subtract w·m, w < 2^62, making the low 62 bits zero, and shift.
 */
static inline void s62_update_de(int64_t *d, int64_t *e, const s62_mat *t, const int64_t *m62, uint64_t minv,
                                 size_t L)
{
    int64_t sd = d[L - 1] >> 63, se = e[L - 1] >> 63; /* -1 when negative */
    int64_t md = (t->u & sd) + (t->v & se), me = (t->q & sd) + (t->r & se);
    g16__i128 cd = (g16__i128)t->u * d[0] + (g16__i128)t->v * e[0];
    g16__i128 ce = (g16__i128)t->q * d[0] + (g16__i128)t->r * e[0];
    /* w ≡ (cd + md·m0)·minv ≡ cd·minv + md (mod 2^62) */
    md -= (int64_t)((minv * (uint64_t)cd + (uint64_t)md) & S62_MASK);
    me -= (int64_t)((minv * (uint64_t)ce + (uint64_t)me) & S62_MASK);
    cd += (g16__i128)m62[0] * md;
    ce += (g16__i128)m62[0] * me;
    cd >>= 62; /* the low 62 bits are zero */
    ce >>= 62;
    for (size_t k = 1; k < L; k++) {
        cd += (g16__i128)t->u * d[k] + (g16__i128)t->v * e[k] + (g16__i128)m62[k] * md;
        ce += (g16__i128)t->q * d[k] + (g16__i128)t->r * e[k] + (g16__i128)m62[k] * me;
        d[k - 1] = (int64_t)((uint64_t)cd & S62_MASK);
        e[k - 1] = (int64_t)((uint64_t)ce & S62_MASK);
        cd >>= 62;
        ce >>= 62;
    }
    d[L - 1] = (int64_t)cd;
    e[L - 1] = (int64_t)ce;
}

/*
 * 62 divsteps on the low bits of f and g (f odd), starting from η = eta; returns the new η and
 * sets t. After s steps, 2^s·f_s = u·f + v·g and 2^s·g_s = q·f + r·g: shifting g right by z
 * steps scales the f row by 2^z instead of dividing the g row, so no division is ever needed.
 */
static inline int64_t s62_divsteps_var(int64_t eta, uint64_t f, uint64_t g, s62_mat *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1;
    int left = 62; /* steps left; the low `left` bits of f and g are exact */
    for (;;) {
        /* the bit at position `left` stops the count: never more zeros than steps left */
        int z = __builtin_ctzll(g | (UINT64_MAX << left));
        g >>= z;
        u <<= z;
        v <<= z;
        eta -= z;
        left -= z;
        if (left == 0)
            break;
        /* g is odd; ng = -g once (f, g) is settled */
        uint64_t ng;
        if (eta < 0) { /* δ > 0: (f, g) = (g, -f); the add below then makes g - f */
            uint64_t x;
            eta = -eta;
            ng = f;
            x = f, f = g, g = 0 - x;
            x = u, u = q, q = 0 - x;
            x = v, v = r, r = 0 - x;
        } else {
            ng = 0 - g;
        }
        /* η >= 0: the next η + 1 steps cannot swap; cancel min(η + 1, left, 5) low bits of g at
         * once. f^(-1) mod 32 = (3f) xor 2 costs two cheap operations on the loop's critical path;
         * the two masks depend on η and left only, so they are ready before the product. */
        uint64_t w = ng * ((3 * f) ^ 2);
        w &= (UINT64_C(2) << (eta < 4 ? eta : 4)) - 1;
        w &= UINT64_MAX >> (64 - left);
        g += w * f;
        q += w * u;
        r += w * v;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return eta;
}

/* (f, g) = T·(f, g) / 2^62 on len limbs (exact: the low 62 bits of both sums are zero). */
static inline void s62_update_fg(int64_t *f, int64_t *g, const s62_mat *t, size_t len)
{
    g16__i128 cf = (g16__i128)t->u * f[0] + (g16__i128)t->v * g[0];
    g16__i128 cg = (g16__i128)t->q * f[0] + (g16__i128)t->r * g[0];
    cf >>= 62;
    cg >>= 62;
    for (size_t k = 1; k < len; k++) {
        cf += (g16__i128)t->u * f[k] + (g16__i128)t->v * g[k];
        cg += (g16__i128)t->q * f[k] + (g16__i128)t->r * g[k];
        f[k - 1] = (int64_t)((uint64_t)cf & S62_MASK);
        g[k - 1] = (int64_t)((uint64_t)cg & S62_MASK);
        cf >>= 62;
        cg >>= 62;
    }
    f[len - 1] = (int64_t)cf;
    g[len - 1] = (int64_t)cg;
}

/* d = s·d + c·m, s = ±1, c in {0, 1}, |result| < 2^(62(L-1)+61); limbs carried back into range. */
static inline void s62_negate_add(int64_t *d, int64_t s, int64_t c, const int64_t *m62, size_t L)
{
    int64_t carry = 0;
    for (size_t k = 0; k + 1 < L; k++) {
        int64_t x = s * d[k] + c * m62[k] + carry; /* |x| < 2^63 */
        d[k] = (int64_t)((uint64_t)x & S62_MASK);
        carry = x >> 62;
    }
    d[L - 1] = s * d[L - 1] + c * m62[L - 1] + carry;
}

/* n 64-bit limbs (value < 2^(64n)) to n + 1 s62 limbs. */
static inline void s62_from_u64(int64_t *d, const uint64_t *a, size_t n)
{
    for (size_t k = 0; k <= n; k++) {
        size_t bit = 62 * k, i = bit / 64, off = bit % 64;
        uint64_t x = a[i] >> off;
        if (off > 2 && i + 1 < n)
            x |= a[i + 1] << (64 - off);
        d[k] = (int64_t)(x & S62_MASK);
    }
}

/* n + 1 non-negative s62 limbs (value < 2^(64n)) to n 64-bit limbs. */
static inline void s62_to_u64(uint64_t *r, const int64_t *d, size_t n)
{
    g16__u128 acc = 0;
    unsigned bits = 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (bits < 64) {
            acc |= (g16__u128)(uint64_t)d[k++] << bits;
            bits += 62;
        }
        r[i] = (uint64_t)acc;
        acc >>= 64;
        bits -= 64;
    }
}

static inline void mont_inv_var(uint64_t *r, const uint64_t *a, const uint64_t *m, uint64_t n0,
                                const uint64_t *r2, size_t n)
{
    const size_t L = n + 1;
    int64_t f[S62_MAX_LIMBS], g[S62_MAX_LIMBS], d[S62_MAX_LIMBS] = {0}, e[S62_MAX_LIMBS];
    int64_t m62[S62_MAX_LIMBS];
    if (mont_is_zero(a, n)) {
        memset(r, 0, n * sizeof(uint64_t));
        return;
    }
    s62_from_u64(m62, m, n);
    s62_from_u64(g, a, n);
    s62_from_u64(e, r2, n);
    memcpy(f, m62, L * sizeof(int64_t));
    const uint64_t minv = (0 - n0) & S62_MASK; /* n0 = -m^(-1) mod 2^64 */
    int64_t eta = -1;                           /* δ = 1 */
    size_t len = L;                             /* limbs of f and g still in use */
    s62_mat t, prev;
    eta = s62_divsteps_var(eta, (uint64_t)f[0], (uint64_t)g[0], &t);
    for (;;) {
        s62_update_fg(f, g, &t, len);
        prev = t;
        uint64_t gz = 0;
        for (size_t k = 0; k < len; k++)
            gz |= (uint64_t)g[k];
        if (gz == 0)
            break;
        /* both top limbs only sign: fold them into the limb below, which becomes the signed top */
        int64_t ft = f[len - 1], gt = g[len - 1];
        if (len > 1 && ((ft ^ (ft >> 63)) | (gt ^ (gt >> 63))) == 0) {
            f[len - 2] = (int64_t)((uint64_t)f[len - 2] | ((uint64_t)ft << 62));
            g[len - 2] = (int64_t)((uint64_t)g[len - 2] | ((uint64_t)gt << 62));
            len--;
        }
        eta = s62_divsteps_var(eta, (uint64_t)f[0], (uint64_t)g[0], &t);
        /* d and e lag one batch behind: the next divsteps (one long dependency chain, on f and g
         * only) come first in program order and the processor runs this update alongside them
         * (7-8% faster than updating d and e before them; see the header) */
        s62_update_de(d, e, &prev, m62, minv, L);
    }
    s62_update_de(d, e, &prev, m62, minv, L);
    /* f = ±1 and d ≡ f·R^2·a^(-1): bring d from (-2m, m) to [0, m) with the sign of f */
    if (d[L - 1] < 0)
        s62_negate_add(d, 1, 1, m62, L);
    if (f[len - 1] < 0)
        s62_negate_add(d, -1, 0, m62, L);
    if (d[L - 1] < 0)
        s62_negate_add(d, 1, 1, m62, L);
    s62_to_u64(r, d, n);
}

#endif /* G16_FIELD_INV_VAR_H */
