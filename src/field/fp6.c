/* Fp6 arithmetic: see fp6.h. */
#include "fp6.h"

#include <string.h>

const g16_fp6 g16__fp6_one = {{{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                                 0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
                               {{0}}},
                              {{{0}}, {{0}}},
                              {{{0}}, {{0}}}};

/*
 * Frobenius: (c·v^i)^(p^k) = conj^k(c)·v^i·ξ^(i(p^k−1)/3), so coefficient i is multiplied by
 * γ_i,k = ξ^(i(p^k − 1)/3) (Montgomery form, derived with Python big integers; the tests check
 * φ(a) = a^p against exponentiation). Values: γ_1,1 = c·u, γ_2,1 ∈ Fp, γ_1,2 and γ_2,2 ∈ Fp,
 * γ_1,3 = u, γ_2,3 = −1.
 */
static const g16_fp2 fp6_frob_v[3] = {
    {{{0}},
     {{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}}},
    {{{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
       0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}},
     {{0}}},
    {{{0}},
     {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
       0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}}},
};
static const g16_fp2 fp6_frob_v2[3] = {
    {{{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
       0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
     {{0}}},
    {{{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL, 0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
       0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}},
     {{0}}},
    {{{0x43f5fffffffcaaaeULL, 0x32b7fff2ed47fffdULL, 0x07e83a49a2e99d69ULL, 0xeca8f3318332bb7aULL,
       0xef148d1ea0f4c069ULL, 0x040ab3263eff0206ULL}},
     {{0}}},
};

void g16__fp6_add(g16_fp6 *r, const g16_fp6 *a, const g16_fp6 *b)
{
    g16__fp2_add(&r->c0, &a->c0, &b->c0);
    g16__fp2_add(&r->c1, &a->c1, &b->c1);
    g16__fp2_add(&r->c2, &a->c2, &b->c2);
}

void g16__fp6_sub(g16_fp6 *r, const g16_fp6 *a, const g16_fp6 *b)
{
    g16__fp2_sub(&r->c0, &a->c0, &b->c0);
    g16__fp2_sub(&r->c1, &a->c1, &b->c1);
    g16__fp2_sub(&r->c2, &a->c2, &b->c2);
}

void g16__fp6_neg(g16_fp6 *r, const g16_fp6 *a)
{
    g16__fp2_neg(&r->c0, &a->c0);
    g16__fp2_neg(&r->c1, &a->c1);
    g16__fp2_neg(&r->c2, &a->c2);
}

void g16__fp6_dbl(g16_fp6 *r, const g16_fp6 *a)
{
    g16__fp2_dbl(&r->c0, &a->c0);
    g16__fp2_dbl(&r->c1, &a->c1);
    g16__fp2_dbl(&r->c2, &a->c2);
}

/* Karatsuba over the three coefficients: 6 Fp2 products, kept wide. */
void g16__fp6_mul_wide(g16__fp6_wide *r, const g16_fp6 *a, const g16_fp6 *b)
{
    g16__fp2_wide t0, t1, t2, m0, m1, m2, x;
    g16_fp2 s, u;
    g16__fp2_mul_wide(&t0, &a->c0, &b->c0);
    g16__fp2_mul_wide(&t1, &a->c1, &b->c1);
    g16__fp2_mul_wide(&t2, &a->c2, &b->c2);
    g16__fp2_add(&s, &a->c1, &a->c2);
    g16__fp2_add(&u, &b->c1, &b->c2);
    g16__fp2_mul_wide(&m0, &s, &u);
    g16__fp2_add(&s, &a->c0, &a->c1);
    g16__fp2_add(&u, &b->c0, &b->c1);
    g16__fp2_mul_wide(&m1, &s, &u);
    g16__fp2_add(&s, &a->c0, &a->c2);
    g16__fp2_add(&u, &b->c0, &b->c2);
    g16__fp2_mul_wide(&m2, &s, &u);

    /* c0 = ξ·(m0 − t1 − t2) + t0 */
    g16__fp2w_sub(&m0, &m0, &t1);
    g16__fp2w_sub(&m0, &m0, &t2);
    g16__fp2w_mul_by_nonresidue(&m0, &m0);
    g16__fp2w_add(&r->c0, &m0, &t0);
    /* c1 = m1 − t0 − t1 + ξ·t2 */
    g16__fp2w_sub(&m1, &m1, &t0);
    g16__fp2w_sub(&m1, &m1, &t1);
    g16__fp2w_mul_by_nonresidue(&x, &t2);
    g16__fp2w_add(&r->c1, &m1, &x);
    /* c2 = m2 − t0 − t2 + t1 */
    g16__fp2w_sub(&m2, &m2, &t0);
    g16__fp2w_sub(&m2, &m2, &t2);
    g16__fp2w_add(&r->c2, &m2, &t1);
}

void g16__fp6_redc(g16_fp6 *r, const g16__fp6_wide *t)
{
    g16__fp2_redc(&r->c0, &t->c0);
    g16__fp2_redc(&r->c1, &t->c1);
    g16__fp2_redc(&r->c2, &t->c2);
}

void g16__fp6_mul(g16_fp6 *r, const g16_fp6 *a, const g16_fp6 *b)
{
    g16__fp6_wide t;
    g16__fp6_mul_wide(&t, a, b);
    g16__fp6_redc(r, &t);
}

/* Chung–Hasan SQR2: 3 Fp2 squarings and 2 multiplications. */
void g16__fp6_sqr(g16_fp6 *r, const g16_fp6 *a)
{
    g16_fp2 s0, s1, s2, s3, s4, t;
    g16__fp2_sqr(&s0, &a->c0);
    g16__fp2_mul(&s1, &a->c0, &a->c1);
    g16__fp2_dbl(&s1, &s1);
    g16__fp2_sub(&t, &a->c0, &a->c1);
    g16__fp2_add(&t, &t, &a->c2);
    g16__fp2_sqr(&s2, &t);
    g16__fp2_mul(&s3, &a->c1, &a->c2);
    g16__fp2_dbl(&s3, &s3);
    g16__fp2_sqr(&s4, &a->c2);

    /* c2 = s1 + s2 + s3 − s0 − s4 (computed first: it reads s1 and s3 before they are reused) */
    g16__fp2_add(&t, &s1, &s2);
    g16__fp2_add(&t, &t, &s3);
    g16__fp2_sub(&t, &t, &s0);
    g16__fp2_sub(&r->c2, &t, &s4);
    /* c0 = s0 + ξ·s3, c1 = s1 + ξ·s4 */
    g16__fp2_mul_by_nonresidue(&s3, &s3);
    g16__fp2_add(&r->c0, &s0, &s3);
    g16__fp2_mul_by_nonresidue(&s4, &s4);
    g16__fp2_add(&r->c1, &s1, &s4);
}

/*
 * 1/a = (A + B·v + C·v²)/F with A = a0² − ξ·a1·a2, B = ξ·a2² − a0·a1, C = a1² − a0·a2,
 * F = a0·A + ξ·(a2·B + a1·C) ∈ Fp2 (the norm-like product that makes the numerator exact).
 */
void g16__fp6_inv(g16_fp6 *r, const g16_fp6 *a)
{
    g16_fp2 A, B, C, F, t;
    g16__fp2_sqr(&A, &a->c0);
    g16__fp2_mul(&t, &a->c1, &a->c2);
    g16__fp2_mul_by_nonresidue(&t, &t);
    g16__fp2_sub(&A, &A, &t);

    g16__fp2_sqr(&B, &a->c2);
    g16__fp2_mul_by_nonresidue(&B, &B);
    g16__fp2_mul(&t, &a->c0, &a->c1);
    g16__fp2_sub(&B, &B, &t);

    g16__fp2_sqr(&C, &a->c1);
    g16__fp2_mul(&t, &a->c0, &a->c2);
    g16__fp2_sub(&C, &C, &t);

    g16__fp2_mul(&F, &a->c2, &B);
    g16__fp2_mul(&t, &a->c1, &C);
    g16__fp2_add(&F, &F, &t);
    g16__fp2_mul_by_nonresidue(&F, &F);
    g16__fp2_mul(&t, &a->c0, &A);
    g16__fp2_add(&F, &F, &t);
    g16__fp2_inv(&F, &F);

    g16__fp2_mul(&r->c0, &A, &F);
    g16__fp2_mul(&r->c1, &B, &F);
    g16__fp2_mul(&r->c2, &C, &F);
}

void g16__fp6_mul_fp2(g16_fp6 *r, const g16_fp6 *a, const g16_fp2 *b)
{
    g16__fp2_mul(&r->c0, &a->c0, b);
    g16__fp2_mul(&r->c1, &a->c1, b);
    g16__fp2_mul(&r->c2, &a->c2, b);
}

void g16__fp6_mul_by_nonresidue(g16_fp6 *r, const g16_fp6 *a)
{
    g16_fp2 t;
    g16__fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* a·(b0 + b1·v): 5 Fp2 products (the v² coefficient of b is zero). */
void g16__fp6_mul_by_01_wide(g16__fp6_wide *r, const g16_fp6 *a, const g16_fp2 *b0, const g16_fp2 *b1)
{
    g16__fp2_wide t0, t1, m;
    g16_fp2 s, u;
    g16__fp2_mul_wide(&t0, &a->c0, b0);
    g16__fp2_mul_wide(&t1, &a->c1, b1);
    /* c0 = ξ·a2·b1 + t0 */
    g16__fp2_mul_wide(&m, &a->c2, b1);
    g16__fp2w_mul_by_nonresidue(&m, &m);
    g16__fp2w_add(&r->c0, &m, &t0);
    /* c1 = (a0 + a1)(b0 + b1) − t0 − t1 */
    g16__fp2_add(&s, &a->c0, &a->c1);
    g16__fp2_add(&u, b0, b1);
    g16__fp2_mul_wide(&m, &s, &u);
    g16__fp2w_sub(&m, &m, &t0);
    g16__fp2w_sub(&r->c1, &m, &t1);
    /* c2 = a2·b0 + t1 */
    g16__fp2_mul_wide(&m, &a->c2, b0);
    g16__fp2w_add(&r->c2, &m, &t1);
}

void g16__fp6_mul_by_01(g16_fp6 *r, const g16_fp6 *a, const g16_fp2 *b0, const g16_fp2 *b1)
{
    g16__fp6_wide t;
    g16__fp6_mul_by_01_wide(&t, a, b0, b1);
    g16__fp6_redc(r, &t);
}

/* a·b1·v = ξ·a2·b1 + a0·b1·v + a1·b1·v² */
void g16__fp6_mul_by_1_wide(g16__fp6_wide *r, const g16_fp6 *a, const g16_fp2 *b1)
{
    g16__fp2_wide m;
    g16__fp2_mul_wide(&m, &a->c2, b1);
    g16__fp2w_mul_by_nonresidue(&r->c0, &m);
    g16__fp2_mul_wide(&r->c1, &a->c0, b1);
    g16__fp2_mul_wide(&r->c2, &a->c1, b1);
}

void g16__fp6_mul_by_1(g16_fp6 *r, const g16_fp6 *a, const g16_fp2 *b1)
{
    g16__fp6_wide t;
    g16__fp6_mul_by_1_wide(&t, a, b1);
    g16__fp6_redc(r, &t);
}

void g16__fp6_frobenius(g16_fp6 *r, const g16_fp6 *a, int k)
{
    g16_fp2 c0 = a->c0, c1 = a->c1, c2 = a->c2;
    if (k & 1) { /* p^k acts on Fp2 as conjugation when k is odd */
        g16__fp2_conj(&c0, &c0);
        g16__fp2_conj(&c1, &c1);
        g16__fp2_conj(&c2, &c2);
    }
    g16__fp2_mul(&c1, &c1, &fp6_frob_v[k - 1]);
    g16__fp2_mul(&c2, &c2, &fp6_frob_v2[k - 1]);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

void g16__fp6_set_zero(g16_fp6 *r) { memset(r, 0, sizeof *r); }
void g16__fp6_set_one(g16_fp6 *r) { *r = g16__fp6_one; }
int g16__fp6_is_zero(const g16_fp6 *a)
{
    return g16__fp2_is_zero(&a->c0) & g16__fp2_is_zero(&a->c1) & g16__fp2_is_zero(&a->c2);
}
int g16__fp6_is_one(const g16_fp6 *a)
{
    return g16__fp2_is_one(&a->c0) & g16__fp2_is_zero(&a->c1) & g16__fp2_is_zero(&a->c2);
}
int g16__fp6_eq(const g16_fp6 *a, const g16_fp6 *b)
{
    return g16__fp2_eq(&a->c0, &b->c0) & g16__fp2_eq(&a->c1, &b->c1) & g16__fp2_eq(&a->c2, &b->c2);
}
void g16__fp6_cmov(g16_fp6 *r, const g16_fp6 *a, int flag)
{
    g16__fp2_cmov(&r->c0, &a->c0, flag);
    g16__fp2_cmov(&r->c1, &a->c1, flag);
    g16__fp2_cmov(&r->c2, &a->c2, flag);
}
