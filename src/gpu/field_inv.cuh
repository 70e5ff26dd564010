/*
 * Variable-time inversion in Fp and Fr on the GPU (and, compiled for the host, in the tests):
 * Bernstein–Yang divsteps ("safegcd", eprint 2019/266) in the variable-time form that skips runs
 * of zero bits, like the CPU's src/field/inv_var.h, but on 32-bit words: 30 divsteps per batch,
 * so the batch's matrix entries fit int32_t and the full-width updates are 32x32->64-bit
 * multiply-adds (one IMAD.WIDE each), the GPU's native width.
 *
 * Interface: gfp_inv_var(r, a) / gfr_inv_var(r, a): a = x·R mod m (Montgomery form, a < m)
 * gives r = x^(-1)·R mod m, fully reduced (the same bits as g16__fp_inv_var / g16__fr_inv_var);
 * a = 0 gives 0. r may alias a. The running time depends on a (public data only: MSM points,
 * benchmark inputs), and the threads of a warp wait for their slowest lane.
 *
 * Representation ("s30"): a signed integer as L = N + 1 little-endian int32_t limbs of 30 bits
 * (N = 32-bit limbs of the modulus: 12 for p, 8 for r): limbs 0..L-2 lie in [0, 2^30), the top
 * limb carries the sign. 30·L bits (390 for p, 270 for r) hold every value used (magnitudes
 * below 2m) and every N-limb input.
 *
 * Algorithm (as inv_var.h, with 2^30 for 2^62): from (δ, f, g) = (1, m, a), batches of 30
 * divsteps on the low word of f and g (s30_divsteps_var) give a matrix T with rows |u| + |v| <=
 * 2^30, |q| + |r| <= 2^30 and 2^30·(f', g') = T·(f, g); T is applied to f, g (exact division)
 * and to d, e (division by 2^30 modulo m), with f·C ≡ d·a and g·C ≡ e·a (mod m), d = 0 and
 * e = C = R^2 mod m at the start, so d ends as ±x^(-1)·R with no product afterwards. d and e stay
 * in (-2m, m). f and g keep all L limbs (no shrinking as on the CPU): fixed-length loops unroll
 * and keep the limbs in registers, where a shrinking length would index them (local memory).
 * tests/test_gpu_field.c checks the result against GMP-checked CPU inversion on random and edge
 * inputs, on the host and on the device.
 * Why a second copy of inv_var.h's steps rather than one source for both: the word sizes differ
 * (30-bit limbs in int32_t with int64_t sums here, 62-bit limbs in int64_t with __int128 sums
 * there, the CPU's native widths), and so do the loops (fixed length here for the registers; the
 * CPU shrinks f and g as they lose limbs). The steps, bounds and invariants are the same.
 */
#ifndef G16_GPU_FIELD_INV_CUH
#define G16_GPU_FIELD_INV_CUH

#include "gpu/field.cuh"

#define S30_MASK 0x3fffffffu
#define S30_MAX_L (G16_GFP_LIMBS + 1)

/* R^2 mod m in 32-bit limbs (the CPU's g16__fp_r2 / g16__fr_r2; test_gpu_field compares). */
#define G16_GFP_R2                                                                                        \
    {0x1c341746u, 0xf4df1f34u, 0x09d104f1u, 0x0a76e6a6u, 0x4c95b6d5u, 0x8de5476cu,                       \
     0x939d83c0u, 0x67eb88a9u, 0xb519952du, 0x9a793e85u, 0x92cae3aau, 0x11988fe5u}
#define G16_GFR_R2                                                                                        \
    {0xf3f29c6du, 0xc999e990u, 0x87925c23u, 0x2b6cedcbu, 0x7254398fu, 0x05d31496u, 0x9f59ff11u, 0x0748d9d9u}

/* Transition matrix of 30 divsteps: 2^30·f' = u·f + v·g, 2^30·g' = q·f + r·g. */
typedef struct {
    int32_t u, v, q, r;
} s30_mat;

/* 30 divsteps on the low bits of f and g (f odd) from η = eta (η = -δ); returns the new η. After
 * s steps 2^s·f_s = u·f + v·g and 2^s·g_s = q·f + r·g; z zeros shifted out of g scale the f row by
 * 2^z instead of dividing the g row. The same steps as s62_divsteps_var (inv_var.h). */
G16_HD int32_t s30_divsteps_var(int32_t eta, uint32_t f, uint32_t g, s30_mat *t)
{
    uint32_t u = 1, v = 0, q = 0, r = 1;
    int left = 30; /* steps left; the low `left` bits of f and g are exact */
    for (;;) {
        int z = ctz32(g | (0xffffffffu << left)); /* never more zeros than steps left */
        g >>= z;
        u <<= z;
        v <<= z;
        eta -= z;
        left -= z;
        if (left == 0)
            break;
        uint32_t ng, x;
        if (eta < 0) { /* δ > 0: (f, g) = (g, -f); the add below then makes g - f */
            eta = -eta;
            ng = f;
            x = f, f = g, g = 0u - x;
            x = u, u = q, q = 0u - x;
            x = v, v = r, r = 0u - x;
        } else {
            ng = 0u - g;
        }
        /* η >= 0: the next η + 1 steps cannot swap; clear min(η + 1, left, 5) low bits of g at
         * once with w = -g·f^(-1) mod 2^k, f^(-1) mod 32 = (3f) xor 2 */
        uint32_t w = ng * ((3u * f) ^ 2u);
        w &= (2u << (eta < 4 ? eta : 4)) - 1u;
        w &= 0xffffffffu >> (32 - left);
        g += w * f;
        q += w * u;
        r += w * v;
    }
    t->u = (int32_t)u;
    t->v = (int32_t)v;
    t->q = (int32_t)q;
    t->r = (int32_t)r;
    return eta;
}

/* (f, g) = T·(f, g) / 2^30 on L limbs (exact: the low 30 bits of both sums are zero). */
G16_HD void s30_update_fg(int32_t *f, int32_t *g, const s30_mat *t, int L)
{
    int64_t cf = (int64_t)t->u * f[0] + (int64_t)t->v * g[0];
    int64_t cg = (int64_t)t->q * f[0] + (int64_t)t->r * g[0];
    cf >>= 30;
    cg >>= 30;
    G16_UNROLL
    for (int k = 1; k < L; k++) {
        cf += (int64_t)t->u * f[k] + (int64_t)t->v * g[k];
        cg += (int64_t)t->q * f[k] + (int64_t)t->r * g[k];
        f[k - 1] = (int32_t)((uint32_t)cf & S30_MASK);
        g[k - 1] = (int32_t)((uint32_t)cg & S30_MASK);
        cf >>= 30;
        cg >>= 30;
    }
    f[L - 1] = (int32_t)cf;
    g[L - 1] = (int32_t)cg;
}

/*
 * (d, e) = T·(d, e) / 2^30 mod m on L limbs, d, e in (-2m, m) before and after; minv =
 * m^(-1) mod 2^30. Per row: add m·(u if d < 0) + m·(v if e < 0), moving d and e into (-m, m),
 * then subtract w·m, w < 2^30, making the low 30 bits zero, and shift. Sums stay below 2^62:
 * |u·d_k + v·e_k| <= 2^60 and |m_k·md| < 2^61.
 */
G16_HD void s30_update_de(int32_t *d, int32_t *e, const s30_mat *t, const int32_t *m30, uint32_t minv, int L)
{
    int32_t sd = d[L - 1] >> 31, se = e[L - 1] >> 31; /* -1 when negative */
    int32_t md = (t->u & sd) + (t->v & se), me = (t->q & sd) + (t->r & se);
    int64_t cd = (int64_t)t->u * d[0] + (int64_t)t->v * e[0];
    int64_t ce = (int64_t)t->q * d[0] + (int64_t)t->r * e[0];
    /* w ≡ (cd + md·m0)·minv ≡ cd·minv + md (mod 2^30) */
    md -= (int32_t)((minv * (uint32_t)cd + (uint32_t)md) & S30_MASK);
    me -= (int32_t)((minv * (uint32_t)ce + (uint32_t)me) & S30_MASK);
    cd += (int64_t)m30[0] * md;
    ce += (int64_t)m30[0] * me;
    cd >>= 30; /* the low 30 bits are zero */
    ce >>= 30;
    G16_UNROLL
    for (int k = 1; k < L; k++) {
        cd += (int64_t)t->u * d[k] + (int64_t)t->v * e[k] + (int64_t)m30[k] * md;
        ce += (int64_t)t->q * d[k] + (int64_t)t->r * e[k] + (int64_t)m30[k] * me;
        d[k - 1] = (int32_t)((uint32_t)cd & S30_MASK);
        e[k - 1] = (int32_t)((uint32_t)ce & S30_MASK);
        cd >>= 30;
        ce >>= 30;
    }
    d[L - 1] = (int32_t)cd;
    e[L - 1] = (int32_t)ce;
}

/* d = s·d + c·m, s = ±1, c in {0, 1}; limbs carried back into range. */
G16_HD void s30_negate_add(int32_t *d, int32_t s, int32_t c, const int32_t *m30, int L)
{
    int64_t carry = 0;
    G16_UNROLL
    for (int k = 0; k + 1 < L; k++) {
        int64_t x = (int64_t)s * d[k] + (int64_t)c * m30[k] + carry;
        d[k] = (int32_t)((uint32_t)x & S30_MASK);
        carry = x >> 30;
    }
    d[L - 1] = (int32_t)((int64_t)s * d[L - 1] + (int64_t)c * m30[L - 1] + carry);
}

/* N 32-bit limbs to N + 1 s30 limbs. */
G16_HD void s30_from_u32(int32_t *d, const uint32_t *a, int N)
{
    G16_UNROLL
    for (int k = 0; k <= N; k++) {
        int bit = 30 * k, i = bit / 32, off = bit % 32;
        uint32_t x = a[i] >> off;
        if (off > 2 && i + 1 < N)
            x |= a[i + 1] << (32 - off);
        d[k] = (int32_t)(x & S30_MASK);
    }
}

/* N + 1 non-negative s30 limbs (value < 2^(32N)) to N 32-bit limbs. */
G16_HD void s30_to_u32(uint32_t *r, const int32_t *d, int N)
{
    uint64_t acc = 0;
    int bits = 0, k = 0;
    G16_UNROLL
    for (int i = 0; i < N; i++) {
        if (bits < 32) {
            acc |= (uint64_t)(uint32_t)d[k++] << bits;
            bits += 30;
        }
        if (bits < 32) { /* never twice in a row: 30 + 30 >= 32 */
            acc |= (uint64_t)(uint32_t)d[k++] << bits;
            bits += 30;
        }
        r[i] = (uint32_t)acc;
        acc >>= 32;
        bits -= 32;
    }
}

/* The inversion on N limbs (see the header); m, n0 = -m^(-1) mod 2^32 and r2 = R^2 mod m. */
G16_HD void s30_inv_var(uint32_t *r, const uint32_t *a, const uint32_t *m, uint32_t n0, const uint32_t *r2, int N)
{
    const int L = N + 1;
    int32_t f[S30_MAX_L], g[S30_MAX_L], d[S30_MAX_L], e[S30_MAX_L], m30[S30_MAX_L];
    uint32_t z = 0;
    s30_mat t, prev;
    for (int k = 0; k < N; k++)
        z |= a[k];
    if (z == 0) {
        for (int k = 0; k < N; k++)
            r[k] = 0;
        return;
    }
    s30_from_u32(m30, m, N);
    s30_from_u32(g, a, N);
    s30_from_u32(e, r2, N);
    G16_UNROLL
    for (int k = 0; k < L; k++) {
        f[k] = m30[k];
        d[k] = 0;
    }
    const uint32_t minv = (0u - n0) & S30_MASK; /* n0 = -m^(-1) mod 2^32 */
    int32_t eta = -1;                            /* δ = 1 */
    eta = s30_divsteps_var(eta, (uint32_t)f[0], (uint32_t)g[0], &t);
    for (;;) {
        s30_update_fg(f, g, &t, L);
        prev = t;
        uint32_t gz = 0;
        G16_UNROLL
        for (int k = 0; k < L; k++)
            gz |= (uint32_t)g[k];
        if (gz == 0)
            break;
        eta = s30_divsteps_var(eta, (uint32_t)f[0], (uint32_t)g[0], &t);
        s30_update_de(d, e, &prev, m30, minv, L); /* lags one batch, as on the CPU */
    }
    s30_update_de(d, e, &prev, m30, minv, L);
    /* f = ±1 and d ≡ f·R^2·a^(-1): bring d from (-2m, m) to [0, m) with the sign of f */
    if (d[L - 1] < 0)
        s30_negate_add(d, 1, 1, m30, L);
    if (f[L - 1] < 0)
        s30_negate_add(d, -1, 0, m30, L);
    if (d[L - 1] < 0)
        s30_negate_add(d, 1, 1, m30, L);
    s30_to_u32(r, d, N);
}

G16_HD void gfp_inv_var(gfp *r, const gfp *a)
{
    const uint32_t m[G16_GFP_LIMBS] = G16_GFP_MODULUS, r2[G16_GFP_LIMBS] = G16_GFP_R2;
    s30_inv_var(r->l, a->l, m, G16_GFP_N0, r2, G16_GFP_LIMBS);
}

G16_HD void gfr_inv_var(gfr *r, const gfr *a)
{
    const uint32_t m[G16_GFR_LIMBS] = G16_GFR_MODULUS, r2[G16_GFR_LIMBS] = G16_GFR_R2;
    s30_inv_var(r->l, a->l, m, G16_GFR_N0, r2, G16_GFR_LIMBS);
}

#endif /* G16_GPU_FIELD_INV_CUH */
