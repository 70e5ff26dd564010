/* Fp2 arithmetic: see fp2.h. */
#include "fp2.h"

#include <string.h>

const g16_fp2 g16__fp2_one = {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                                0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
                              {{0}}};

static const uint64_t fp_p_minus_3_div_4[6] = {0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL,
                                               0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL,
                                               0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};
static const uint64_t fp_p_minus_1_div_2[6] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
                                               0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
                                               0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

void g16__fp2_add(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b)
{
    g16__fp_add(&r->c0, &a->c0, &b->c0);
    g16__fp_add(&r->c1, &a->c1, &b->c1);
}

void g16__fp2_sub(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b)
{
    g16__fp_sub(&r->c0, &a->c0, &b->c0);
    g16__fp_sub(&r->c1, &a->c1, &b->c1);
}

void g16__fp2_neg(g16_fp2 *r, const g16_fp2 *a)
{
    g16__fp_neg(&r->c0, &a->c0);
    g16__fp_neg(&r->c1, &a->c1);
}

void g16__fp2_dbl(g16_fp2 *r, const g16_fp2 *a)
{
    g16__fp_dbl(&r->c0, &a->c0);
    g16__fp_dbl(&r->c1, &a->c1);
}

void g16__fp2_conj(g16_fp2 *r, const g16_fp2 *a)
{
    r->c0 = a->c0;
    g16__fp_neg(&r->c1, &a->c1);
}

/* Karatsuba: 3 Fp multiplications. */
void g16__fp2_mul(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b)
{
    g16_fp t0, t1, s0, s1;
    g16__fp_mul(&t0, &a->c0, &b->c0);
    g16__fp_mul(&t1, &a->c1, &b->c1);
    g16__fp_add(&s0, &a->c0, &a->c1);
    g16__fp_add(&s1, &b->c0, &b->c1);
    g16__fp_mul(&s0, &s0, &s1);
    g16__fp_sub(&r->c0, &t0, &t1);
    g16__fp_sub(&s0, &s0, &t0);
    g16__fp_sub(&r->c1, &s0, &t1);
}

/* (c0 + c1 u)² = (c0 + c1)(c0 − c1) + 2 c0 c1 u: 2 Fp multiplications. */
void g16__fp2_sqr(g16_fp2 *r, const g16_fp2 *a)
{
    g16_fp s, d, m;
    g16__fp_add(&s, &a->c0, &a->c1);
    g16__fp_sub(&d, &a->c0, &a->c1);
    g16__fp_mul(&m, &a->c0, &a->c1);
    g16__fp_mul(&r->c0, &s, &d);
    g16__fp_dbl(&r->c1, &m);
}

void g16__fp2_mul_fp(g16_fp2 *r, const g16_fp2 *a, const g16_fp *b)
{
    g16__fp_mul(&r->c0, &a->c0, b);
    g16__fp_mul(&r->c1, &a->c1, b);
}

/* (c0 + c1 u)(1 + u) = (c0 − c1) + (c0 + c1) u */
void g16__fp2_mul_by_nonresidue(g16_fp2 *r, const g16_fp2 *a)
{
    g16_fp t;
    g16__fp_sub(&t, &a->c0, &a->c1);
    g16__fp_add(&r->c1, &a->c0, &a->c1);
    r->c0 = t;
}

/* x/2 mod p: add p when x is odd (masked, constant-time), then shift; x + p < 2^382 fits. */
static void fp_half(g16_fp *r, const g16_fp *a)
{
    uint64_t mask = 0 - (a->l[0] & 1), t[6], carry = 0;
    for (int i = 0; i < 6; i++) {
        unsigned __int128 s = (unsigned __int128)a->l[i] + (g16__fp_modulus[i] & mask) + carry;
        t[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    for (int i = 0; i < 5; i++)
        r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
    r->l[5] = t[5] >> 1;
}

void g16__fp2_half(g16_fp2 *r, const g16_fp2 *a)
{
    fp_half(&r->c0, &a->c0);
    fp_half(&r->c1, &a->c1);
}

void g16__fp2_set_zero(g16_fp2 *r) { memset(r, 0, sizeof *r); }
void g16__fp2_set_one(g16_fp2 *r) { *r = g16__fp2_one; }
int g16__fp2_is_zero(const g16_fp2 *a) { return g16__fp_is_zero(&a->c0) & g16__fp_is_zero(&a->c1); }
int g16__fp2_is_one(const g16_fp2 *a) { return g16__fp_is_one(&a->c0) & g16__fp_is_zero(&a->c1); }
int g16__fp2_eq(const g16_fp2 *a, const g16_fp2 *b)
{
    return g16__fp_eq(&a->c0, &b->c0) & g16__fp_eq(&a->c1, &b->c1);
}

void g16__fp2_cmov(g16_fp2 *r, const g16_fp2 *a, int flag)
{
    g16__fp_cmov(&r->c0, &a->c0, flag);
    g16__fp_cmov(&r->c1, &a->c1, flag);
}

void g16__fp2_pow(g16_fp2 *r, const g16_fp2 *a, const uint64_t *e, size_t nlimbs)
{
    g16_fp2 acc = g16__fp2_one, base = *a;
    for (size_t i = nlimbs * 64; i-- > 0;) {
        g16__fp2_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1)
            g16__fp2_mul(&acc, &acc, &base);
    }
    *r = acc;
}

/* 1/(c0 + c1 u) = (c0 − c1 u)/(c0² + c1²) */
static void fp2_inv_with(g16_fp2 *r, const g16_fp2 *a, void (*fp_inv)(g16_fp *, const g16_fp *))
{
    g16_fp t0, t1;
    g16__fp_sqr(&t0, &a->c0);
    g16__fp_sqr(&t1, &a->c1);
    g16__fp_add(&t0, &t0, &t1);
    fp_inv(&t0, &t0);
    g16__fp_mul(&r->c0, &a->c0, &t0);
    g16__fp_mul(&t1, &a->c1, &t0);
    g16__fp_neg(&r->c1, &t1);
}

void g16__fp2_inv(g16_fp2 *r, const g16_fp2 *a) { fp2_inv_with(r, a, g16__fp_inv); }
void g16__fp2_inv_var(g16_fp2 *r, const g16_fp2 *a) { fp2_inv_with(r, a, g16__fp_inv_var); }

int g16__fp2_sqrt(g16_fp2 *r, const g16_fp2 *a)
{
    g16_fp2 a1, alpha, x0, b, minus_one, x_u, check;
    g16__fp2_pow(&a1, a, fp_p_minus_3_div_4, 6);
    g16__fp2_mul(&x0, &a1, a);     /* a^((p+1)/4) */
    g16__fp2_mul(&alpha, &a1, &x0); /* a^((p-1)/2) */
    /* alpha = −1: the root is u·x0 */
    g16__fp2_neg(&minus_one, &g16__fp2_one);
    g16__fp_neg(&x_u.c0, &x0.c1);
    x_u.c1 = x0.c0;
    /* otherwise: (1 + alpha)^((p-1)/2) · x0 */
    g16__fp2_add(&b, &alpha, &g16__fp2_one);
    g16__fp2_pow(&b, &b, fp_p_minus_1_div_2, 6);
    g16__fp2_mul(&b, &b, &x0);
    g16__fp2_cmov(&b, &x_u, g16__fp2_eq(&alpha, &minus_one));
    g16__fp2_sqr(&check, &b);
    *r = b;
    return g16__fp2_eq(&check, a);
}

int g16__fp2_is_lexmax(const g16_fp2 *a)
{
    int c1_zero = g16__fp_is_zero(&a->c1);
    return c1_zero ? g16__fp_is_lexmax(&a->c0) : g16__fp_is_lexmax(&a->c1);
}
