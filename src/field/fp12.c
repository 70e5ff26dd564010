/* Fp12 arithmetic: see fp12.h. */
#include "fp12.h"

#include <string.h>

const g16_fp12 g16__fp12_one = {
    {{{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
        0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
      {{0}}},
     {{{0}}, {{0}}},
     {{{0}}, {{0}}}},
    {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

/* |x| for the BLS parameter x = −0xd201000000010000 */
#define BLS_X_ABS 0xd201000000010000ULL

/* w^(p^k) = w·ξ^((p^k − 1)/6) for k = 1, 2, 3 (Montgomery form; checked against a^p in the tests). */
static const g16_fp2 fp12_frob_w[3] = {
    {{{0x07089552b319d465ULL, 0xc6695f92b50a8313ULL, 0x97e83cccd117228fULL, 0xa35baecab2dc29eeULL,
       0x1ce393ea5daace4dULL, 0x08f2220fb0fb66ebULL}},
     {{0xb2f66aad4ce5d646ULL, 0x5842a06bfc497cecULL, 0xcf4895d42599d394ULL, 0xc11b9cba40a8e8d0ULL,
       0x2e3813cbe5a0de89ULL, 0x110eefda88847fafULL}}},
    {{{0xecfb361b798dba3aULL, 0xc100ddb891865a2cULL, 0x0ec08ff1232bda8eULL, 0xd5c13cc6f1ca4721ULL,
       0x47222a47bf7b5c04ULL, 0x0110f184e51c5f59ULL}},
     {{0}}},
    {{{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
       0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
     {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
       0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}}},
};

void g16__fp12_add(g16_fp12 *r, const g16_fp12 *a, const g16_fp12 *b)
{
    g16__fp6_add(&r->c0, &a->c0, &b->c0);
    g16__fp6_add(&r->c1, &a->c1, &b->c1);
}

void g16__fp12_sub(g16_fp12 *r, const g16_fp12 *a, const g16_fp12 *b)
{
    g16__fp6_sub(&r->c0, &a->c0, &b->c0);
    g16__fp6_sub(&r->c1, &a->c1, &b->c1);
}

void g16__fp12_neg(g16_fp12 *r, const g16_fp12 *a)
{
    g16__fp6_neg(&r->c0, &a->c0);
    g16__fp6_neg(&r->c1, &a->c1);
}

/* Karatsuba: 3 Fp6 products, kept wide and reduced once per output coefficient. */
void g16__fp12_mul(g16_fp12 *r, const g16_fp12 *a, const g16_fp12 *b)
{
    g16__fp6_wide t0, t1, s;
    g16_fp6 x, y;
    g16__fp6_mul_wide(&t0, &a->c0, &b->c0);
    g16__fp6_mul_wide(&t1, &a->c1, &b->c1);
    g16__fp6_add(&x, &a->c0, &a->c1);
    g16__fp6_add(&y, &b->c0, &b->c1);
    g16__fp6_mul_wide(&s, &x, &y);
    g16__fp6w_sub(&s, &s, &t0);
    g16__fp6w_sub(&s, &s, &t1);
    g16__fp6_redc(&r->c1, &s);
    g16__fp6w_add_mul_by_v(&t0, &t0, &t1); /* t0 + v·t1 */
    g16__fp6_redc(&r->c0, &t0);
}

/* Complex squaring: c0 = (a0 + a1)(a0 + v·a1) − t − v·t, c1 = 2t with t = a0·a1 (2 Fp6 products). */
void g16__fp12_sqr(g16_fp12 *r, const g16_fp12 *a)
{
    g16__fp6_wide t, m;
    g16_fp6 x, y;
    g16__fp6_mul_wide(&t, &a->c0, &a->c1);
    g16__fp6_add(&x, &a->c0, &a->c1);
    g16__fp6_mul_by_nonresidue(&y, &a->c1);
    g16__fp6_add(&y, &y, &a->c0);
    g16__fp6_mul_wide(&m, &x, &y);
    g16__fp6w_sub(&m, &m, &t);
    g16__fp6w_sub_mul_by_v(&m, &m, &t);
    g16__fp6_redc(&r->c0, &m);
    g16__fp6w_add(&t, &t, &t);
    g16__fp6_redc(&r->c1, &t);
}

/* 1/(a0 + a1 w) = (a0 − a1 w)/(a0² − v·a1²) */
void g16__fp12_inv(g16_fp12 *r, const g16_fp12 *a)
{
    g16_fp6 t0, t1;
    g16__fp6_sqr(&t0, &a->c0);
    g16__fp6_sqr(&t1, &a->c1);
    g16__fp6_mul_by_nonresidue(&t1, &t1);
    g16__fp6_sub(&t0, &t0, &t1);
    g16__fp6_inv(&t0, &t0);
    g16__fp6_mul(&r->c0, &a->c0, &t0);
    g16__fp6_mul(&t1, &a->c1, &t0);
    g16__fp6_neg(&r->c1, &t1);
}

void g16__fp12_conj(g16_fp12 *r, const g16_fp12 *a)
{
    r->c0 = a->c0;
    g16__fp6_neg(&r->c1, &a->c1);
}

void g16__fp12_frobenius(g16_fp12 *r, const g16_fp12 *a, int k)
{
    g16__fp6_frobenius(&r->c0, &a->c0, k);
    g16__fp6_frobenius(&r->c1, &a->c1, k);
    g16__fp6_mul_fp2(&r->c1, &r->c1, &fp12_frob_w[k - 1]);
}

/*
 * (a0 + a1 w)(L0 + L1 w) with L0 = o0 + o1 v and L1 = o4 v:
 * t0 = a0·L0, t1 = a1·L1, c0 = t0 + v·t1, c1 = (a0 + a1)(L0 + L1) − t0 − t1,
 * where L0 + L1 = o0 + (o1 + o4) v is again sparse.
 */
void g16__fp12_mul_by_014(g16_fp12 *r, const g16_fp12 *a, const g16_fp2 *o0, const g16_fp2 *o1,
                          const g16_fp2 *o4)
{
    g16__fp6_wide t0, t1, s;
    g16_fp6 x;
    g16_fp2 o14;
    g16__fp6_mul_by_01_wide(&t0, &a->c0, o0, o1);
    g16__fp6_mul_by_1_wide(&t1, &a->c1, o4);
    g16__fp2_add(&o14, o1, o4);
    g16__fp6_add(&x, &a->c0, &a->c1);
    g16__fp6_mul_by_01_wide(&s, &x, o0, &o14);
    g16__fp6w_sub(&s, &s, &t0);
    g16__fp6w_sub(&s, &s, &t1);
    g16__fp6_redc(&r->c1, &s);
    g16__fp6w_add_mul_by_v(&t0, &t0, &t1);
    g16__fp6_redc(&r->c0, &t0);
}

/* (x + y·W)² in Fp4 = Fp2[W]/(W² − ξ): sq0 = x² + ξ·y², sq1 = 2xy = (x + y)² − x² − y², from three
 * wide squares and one reduction per output coefficient. */
static void fp4_sqr(g16_fp2 *sq0, g16_fp2 *sq1, const g16_fp2 *x, const g16_fp2 *y)
{
    g16__fp2_wide x2, y2, s2, t;
    g16_fp2 s;
    g16__fp2_sqr_wide(&x2, x);
    g16__fp2_sqr_wide(&y2, y);
    g16__fp2_add(&s, x, y);
    g16__fp2_sqr_wide(&s2, &s);
    g16__fp2w_sub(&s2, &s2, &x2);
    g16__fp2w_sub(&s2, &s2, &y2);
    g16__fp2_redc(sq1, &s2);
    g16__fp2w_mul_by_nonresidue(&t, &y2);
    g16__fp2w_add(&t, &t, &x2);
    g16__fp2_redc(sq0, &t);
}

/* r = 3·t + 2·s·g, sign = +1 or −1 as 2·(t ± g) + t */
static void cyc_combine(g16_fp2 *r, const g16_fp2 *t, const g16_fp2 *g, int plus)
{
    g16_fp2 s;
    if (plus)
        g16__fp2_add(&s, t, g);
    else
        g16__fp2_sub(&s, t, g);
    g16__fp2_dbl(&s, &s);
    g16__fp2_add(r, &s, t);
}

/*
 * Granger–Scott: with W = w³ (W² = ξ) the element is A0 + A1 w + A2 w² over Fp4, A0 = g0 + g3 W,
 * A1 = g1 + g4 W, A2 = g2 + g5 W (g_i the coefficient of w^i). In the cyclotomic subgroup
 * a² = (3A0² − 2 conj A0) + (3 W A2² + 2 conj A1) w + (3 A1² − 2 conj A2) w².
 * The `plus` flags below are fixed per position (not data-dependent).
 */
void g16__fp12_cyclotomic_sqr(g16_fp12 *r, const g16_fp12 *a)
{
    g16_fp2 t0, t1, t2, t3, t4, t5;
    fp4_sqr(&t0, &t1, &a->c0.c0, &a->c1.c1); /* A0² */
    fp4_sqr(&t2, &t3, &a->c1.c0, &a->c0.c2); /* A1² */
    fp4_sqr(&t4, &t5, &a->c0.c1, &a->c1.c2); /* A2² */
    g16__fp2_mul_by_nonresidue(&t5, &t5);    /* W·A2² = ξ·t5 + t4·W */

    cyc_combine(&r->c0.c0, &t0, &a->c0.c0, 0); /* g0 */
    cyc_combine(&r->c1.c1, &t1, &a->c1.c1, 1); /* g3 */
    cyc_combine(&r->c1.c0, &t5, &a->c1.c0, 1); /* g1 */
    cyc_combine(&r->c0.c2, &t4, &a->c0.c2, 0); /* g4 */
    cyc_combine(&r->c0.c1, &t2, &a->c0.c1, 0); /* g2 */
    cyc_combine(&r->c1.c2, &t3, &a->c1.c2, 1); /* g5 */
}

void g16__fp12_cyclotomic_exp_x(g16_fp12 *r, const g16_fp12 *a)
{
    g16_fp12 z = *a;
    for (int i = 62; i >= 0; i--) {
        g16__fp12_cyclotomic_sqr(&z, &z);
        if ((BLS_X_ABS >> i) & 1)
            g16__fp12_mul(&z, &z, a);
    }
    g16__fp12_conj(r, &z); /* x < 0 */
}

void g16__fp12_pow(g16_fp12 *r, const g16_fp12 *a, const uint64_t *e, size_t nlimbs)
{
    g16_fp12 acc = g16__fp12_one, base = *a;
    int started = 0;
    for (size_t i = nlimbs * 64; i-- > 0;) {
        if (started)
            g16__fp12_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) {
            g16__fp12_mul(&acc, &acc, &base);
            started = 1;
        }
    }
    *r = acc;
}

void g16__fp12_set_zero(g16_fp12 *r) { memset(r, 0, sizeof *r); }
void g16__fp12_set_one(g16_fp12 *r) { *r = g16__fp12_one; }
int g16__fp12_is_zero(const g16_fp12 *a) { return g16__fp6_is_zero(&a->c0) & g16__fp6_is_zero(&a->c1); }
int g16__fp12_is_one(const g16_fp12 *a) { return g16__fp6_is_one(&a->c0) & g16__fp6_is_zero(&a->c1); }
int g16__fp12_eq(const g16_fp12 *a, const g16_fp12 *b)
{
    return g16__fp6_eq(&a->c0, &b->c0) & g16__fp6_eq(&a->c1, &b->c1);
}
void g16__fp12_cmov(g16_fp12 *r, const g16_fp12 *a, int flag)
{
    g16__fp6_cmov(&r->c0, &a->c0, flag);
    g16__fp6_cmov(&r->c1, &a->c1, flag);
}

/* The 12 Fp coefficients in serialization order. */
static void fp12_coeffs(g16_fp *out[12], g16_fp12 *a)
{
    g16_fp6 *h[2] = {&a->c0, &a->c1};
    for (int i = 0; i < 2; i++) {
        g16_fp2 *q[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
        for (int j = 0; j < 3; j++) {
            out[6 * i + 2 * j] = &q[j]->c0;
            out[6 * i + 2 * j + 1] = &q[j]->c1;
        }
    }
}

void g16__fp12_to_be_bytes(uint8_t out[576], const g16_fp12 *a)
{
    g16_fp12 t = *a;
    g16_fp *c[12];
    fp12_coeffs(c, &t);
    for (int i = 0; i < 12; i++)
        g16__fp_to_be_bytes(out + 48 * i, c[i]);
}

int g16__fp12_from_be_bytes(g16_fp12 *r, const uint8_t in[576])
{
    g16_fp12 t;
    g16_fp *c[12];
    fp12_coeffs(c, &t);
    for (int i = 0; i < 12; i++)
        if (g16__fp_from_be_bytes(c[i], in + 48 * i) != 0)
            return -1;
    *r = t;
    return 0;
}
