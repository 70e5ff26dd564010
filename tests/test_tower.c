/*
 * Fp6 and Fp12 towers: field laws on random elements, inverses, the sparse products against
 * full products, the Frobenius maps against exponentiation by p, p², p³ (GMP computes the
 * exponents), cyclotomic squaring and exponentiation by x against the generic ones, and the
 * 576-byte encoding.
 */
#include "testutil.h"

#include <string.h>

#include "field/fp12.h"

static void rand_fp6(g16_fp6 *r)
{
    tu_rand_fp2(&r->c0);
    tu_rand_fp2(&r->c1);
    tu_rand_fp2(&r->c2);
}

static void rand_fp12(g16_fp12 *r)
{
    rand_fp6(&r->c0);
    rand_fp6(&r->c1);
}

/* z as little-endian 64-bit limbs; returns the limb count (cap must be large enough). */
static size_t mpz_to_limbs(uint64_t *l, size_t cap, const mpz_t z)
{
    size_t count = 0;
    memset(l, 0, cap * sizeof *l);
    assert_true(mpz_sizeinbase(z, 2) <= cap * 64);
    mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
    return count;
}

static void limbs_to_mpz(mpz_t z, const uint64_t *l, size_t n) { mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l); }

/* a random value of the wide domain: high half < p, low half anything */
static void rand_wide(g16__fp_wide *t)
{
    g16_fp h;
    tu_rand_fp(&h);
    for (int i = 0; i < 6; i++)
        t->l[i] = tu_rand64();
    memcpy(t->l + 6, h.l, sizeof h.l); /* any value < p works as raw limbs */
}

/* Wide products and Montgomery reduction, portable and MULX, against GMP on raw limbs:
 * operands up to 2p − 1 (the unreduced sums the tower feeds them), reductions of values up to
 * p·2^384 − 1. Then the wide-domain add/sub modulo p·2^384. */
static void test_wide_and_redc(void **state)
{
    (void)state;
    mpz_t p, pr, za, zb, zt, want, got, rinv;
    mpz_inits(p, pr, za, zb, zt, want, got, rinv, NULL);
    tu_mpz_p(p);
    mpz_mul_2exp(pr, p, 384);
    mpz_set_ui(rinv, 1);
    mpz_mul_2exp(rinv, rinv, 384);
    mpz_invert(rinv, rinv, p);
    for (int it = 0; it < tu_iters(2000); it++) {
        g16_fp a, b, x, y;
        tu_rand_fp(&a);
        tu_rand_fp(&b);
        tu_rand_fp(&x);
        tu_rand_fp(&y);
        if (it & 1)
            g16__fp_add_nr(&a, &a, &x); /* < 2p */
        if (it & 2)
            g16__fp_sub_nr(&b, &b, &y); /* b + p − y < 2p */
        if (it == 0) { /* 2p − 2: the largest sum of two reduced values */
            g16_fp pm1;
            memcpy(pm1.l, g16__fp_modulus, sizeof pm1.l);
            pm1.l[0] -= 1;
            g16__fp_add_nr(&a, &pm1, &pm1);
            b = a;
        }
        limbs_to_mpz(za, a.l, 6);
        limbs_to_mpz(zb, b.l, 6);
        mpz_mul(want, za, zb);
        g16__fp_wide w1, w2;
        g16__fp_mul_wide_portable(&w1, &a, &b);
        g16__fp_mul_wide(&w2, &a, &b);
        limbs_to_mpz(got, w1.l, 12);
        assert_int_equal(mpz_cmp(got, want), 0);
        assert_memory_equal(w1.l, w2.l, sizeof w1.l);

        g16__fp_wide t;
        rand_wide(&t);
        if (it == 1) { /* the largest input: p·2^384 − 1 */
            mpz_sub_ui(zt, pr, 1);
            memset(t.l, 0, sizeof t.l);
            mpz_export(t.l, NULL, -1, sizeof(uint64_t), 0, 0, zt);
        }
        if (it == 2)
            memset(t.l, 0, sizeof t.l);
        limbs_to_mpz(zt, t.l, 12);
        assert_true(mpz_cmp(zt, pr) < 0);
        mpz_mul(want, zt, rinv);
        mpz_mod(want, want, p);
        g16_fp r1, r2;
        g16__fp_redc_portable(&r1, &t);
        g16__fp_redc(&r2, &t);
        limbs_to_mpz(got, r1.l, 6);
        assert_int_equal(mpz_cmp(got, want), 0);
        assert_memory_equal(r1.l, r2.l, sizeof r1.l);

        /* both coefficients at once (the interleaved MULX reduction when available) */
        g16__fp2_wide t2;
        g16_fp2 rr;
        t2.c0 = t;
        rand_wide(&t2.c1);
        if (it == 1 || it == 2)
            t2.c1 = t; /* the edge values (largest input, zero) in the second slot too */
        g16__fp2_redc(&rr, &t2);
        assert_memory_equal(rr.c0.l, r1.l, sizeof r1.l);
        g16__fp_redc_portable(&r1, &t2.c1);
        assert_memory_equal(rr.c1.l, r1.l, sizeof r1.l);

        /* wide add/sub modulo p·2^384 */
        g16__fp_wide u, s;
        mpz_t zu;
        mpz_init(zu);
        rand_wide(&u);
        limbs_to_mpz(zu, u.l, 12);
        g16__fpw_add(&s, &t, &u);
        mpz_add(want, zt, zu);
        mpz_mod(want, want, pr);
        limbs_to_mpz(got, s.l, 12);
        assert_int_equal(mpz_cmp(got, want), 0);
        g16__fpw_sub(&s, &t, &u);
        mpz_sub(want, zt, zu);
        mpz_mod(want, want, pr);
        limbs_to_mpz(got, s.l, 12);
        assert_int_equal(mpz_cmp(got, want), 0);
        mpz_clear(zu);
    }
    mpz_clears(p, pr, za, zb, zt, want, got, rinv, NULL);
}

/* Fp2 products (lazy reduction) against coefficient-wise formulas in Fp, in both back ends. */
static void test_fp2_mul_backends(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        g16__fp2_force_portable(mode);
        for (int it = 0; it < tu_iters(1000); it++) {
            g16_fp2 a, b, r, s;
            g16_fp t0, t1;
            tu_rand_fp2(&a);
            tu_rand_fp2(&b);
            g16__fp2_mul(&r, &a, &b); /* (a0b0 − a1b1) + (a0b1 + a1b0)u */
            g16__fp_mul(&t0, &a.c0, &b.c0);
            g16__fp_mul(&t1, &a.c1, &b.c1);
            g16__fp_sub(&s.c0, &t0, &t1);
            g16__fp_mul(&t0, &a.c0, &b.c1);
            g16__fp_mul(&t1, &a.c1, &b.c0);
            g16__fp_add(&s.c1, &t0, &t1);
            assert_true(g16__fp2_eq(&r, &s));
            g16__fp2_sqr(&r, &a);
            g16__fp2_mul(&s, &a, &a);
            assert_true(g16__fp2_eq(&r, &s));
            r = a; /* aliasing */
            g16__fp2_mul(&r, &r, &b);
            g16__fp2_mul(&s, &a, &b);
            assert_true(g16__fp2_eq(&r, &s));
        }
    }
    g16__fp2_force_portable(0);
}

static void fp6_from_fp2(g16_fp6 *r, const g16_fp2 *c0, const g16_fp2 *c1, const g16_fp2 *c2)
{
    r->c0 = *c0;
    r->c1 = *c1;
    r->c2 = *c2;
}

static void test_fp6_laws(void **state)
{
    (void)state;
    g16_fp2 zero, xi;
    g16__fp2_set_zero(&zero);
    g16__fp2_mul_by_nonresidue(&xi, &g16__fp2_one);
    g16_fp6 v;
    fp6_from_fp2(&v, &zero, &g16__fp2_one, &zero);
    /* v³ = ξ */
    g16_fp6 v3, want;
    g16__fp6_mul(&v3, &v, &v);
    g16__fp6_mul(&v3, &v3, &v);
    fp6_from_fp2(&want, &xi, &zero, &zero);
    assert_true(g16__fp6_eq(&v3, &want));

    for (int it = 0; it < tu_iters(300); it++) {
        g16_fp6 a, b, c, x, y, t;
        rand_fp6(&a);
        rand_fp6(&b);
        rand_fp6(&c);
        g16__fp6_mul(&x, &a, &b);
        g16__fp6_mul(&y, &b, &a);
        assert_true(g16__fp6_eq(&x, &y));
        g16__fp6_mul(&x, &x, &c); /* (ab)c = a(bc) */
        g16__fp6_mul(&t, &b, &c);
        g16__fp6_mul(&y, &a, &t);
        assert_true(g16__fp6_eq(&x, &y));
        g16__fp6_add(&t, &b, &c); /* a(b + c) = ab + ac */
        g16__fp6_mul(&x, &a, &t);
        g16__fp6_mul(&y, &a, &b);
        g16__fp6_mul(&t, &a, &c);
        g16__fp6_add(&y, &y, &t);
        assert_true(g16__fp6_eq(&x, &y));
        g16__fp6_sub(&t, &a, &b); /* (a − b) + b = a, −a + a = 0, 2a = a + a */
        g16__fp6_add(&t, &t, &b);
        assert_true(g16__fp6_eq(&t, &a));
        g16__fp6_neg(&t, &a);
        g16__fp6_add(&t, &t, &a);
        assert_true(g16__fp6_is_zero(&t));
        g16__fp6_dbl(&x, &a);
        g16__fp6_add(&y, &a, &a);
        assert_true(g16__fp6_eq(&x, &y));

        g16__fp6_sqr(&x, &a);
        g16__fp6_mul(&y, &a, &a);
        assert_true(g16__fp6_eq(&x, &y));
        g16__fp6_inv(&x, &a);
        g16__fp6_mul(&y, &x, &a);
        assert_true(g16__fp6_is_one(&y));

        g16__fp6_mul_by_nonresidue(&x, &a);
        g16__fp6_mul(&y, &a, &v);
        assert_true(g16__fp6_eq(&x, &y));
        g16__fp6_mul_fp2(&x, &a, &b.c0);
        fp6_from_fp2(&t, &b.c0, &zero, &zero);
        g16__fp6_mul(&y, &a, &t);
        assert_true(g16__fp6_eq(&x, &y));
        g16__fp6_mul_by_01(&x, &a, &b.c0, &b.c1);
        fp6_from_fp2(&t, &b.c0, &b.c1, &zero);
        g16__fp6_mul(&y, &a, &t);
        assert_true(g16__fp6_eq(&x, &y));
        g16__fp6_mul_by_1(&x, &a, &b.c1);
        fp6_from_fp2(&t, &zero, &b.c1, &zero);
        g16__fp6_mul(&y, &a, &t);
        assert_true(g16__fp6_eq(&x, &y));

        t = a;
        g16__fp6_cmov(&t, &b, 0);
        assert_true(g16__fp6_eq(&t, &a));
        g16__fp6_cmov(&t, &b, 1);
        assert_true(g16__fp6_eq(&t, &b));
    }
    g16_fp6 z, r;
    g16__fp6_set_zero(&z);
    g16__fp6_inv(&r, &z);
    assert_true(g16__fp6_is_zero(&r));
}

static void test_fp12_laws(void **state)
{
    (void)state;
    g16_fp12 w;
    g16__fp12_set_zero(&w);
    w.c1.c0 = g16__fp2_one;
    g16_fp12 w2, want;
    g16__fp12_sqr(&w2, &w); /* w² = v */
    g16__fp12_set_zero(&want);
    want.c0.c1 = g16__fp2_one;
    assert_true(g16__fp12_eq(&w2, &want));

    for (int it = 0; it < tu_iters(150); it++) {
        g16_fp12 a, b, c, x, y, t;
        rand_fp12(&a);
        rand_fp12(&b);
        rand_fp12(&c);
        g16__fp12_mul(&x, &a, &b);
        g16__fp12_mul(&y, &b, &a);
        assert_true(g16__fp12_eq(&x, &y));
        g16__fp12_mul(&x, &x, &c);
        g16__fp12_mul(&t, &b, &c);
        g16__fp12_mul(&y, &a, &t);
        assert_true(g16__fp12_eq(&x, &y));
        g16__fp12_add(&t, &b, &c);
        g16__fp12_mul(&x, &a, &t);
        g16__fp12_mul(&y, &a, &b);
        g16__fp12_mul(&t, &a, &c);
        g16__fp12_add(&y, &y, &t);
        assert_true(g16__fp12_eq(&x, &y));
        g16__fp12_sub(&t, &a, &b);
        g16__fp12_add(&t, &t, &b);
        assert_true(g16__fp12_eq(&t, &a));
        g16__fp12_neg(&t, &a);
        g16__fp12_add(&t, &t, &a);
        assert_true(g16__fp12_is_zero(&t));

        g16__fp12_sqr(&x, &a);
        g16__fp12_mul(&y, &a, &a);
        assert_true(g16__fp12_eq(&x, &y));
        g16__fp12_inv(&x, &a);
        g16__fp12_mul(&y, &x, &a);
        assert_true(g16__fp12_is_one(&y));
        assert_false(g16__fp12_is_one(&a));

        /* sparse line product against the full product with the same element */
        g16_fp2 o0, o1, o4;
        tu_rand_fp2(&o0);
        tu_rand_fp2(&o1);
        tu_rand_fp2(&o4);
        g16__fp12_set_zero(&t);
        t.c0.c0 = o0;
        t.c0.c1 = o1;
        t.c1.c1 = o4;
        g16__fp12_mul_by_014(&x, &a, &o0, &o1, &o4);
        g16__fp12_mul(&y, &a, &t);
        assert_true(g16__fp12_eq(&x, &y));

        /* conjugation is the p⁶ Frobenius: an automorphism */
        g16__fp12_mul(&t, &a, &b);
        g16__fp12_conj(&x, &t);
        g16_fp12 ca, cb;
        g16__fp12_conj(&ca, &a);
        g16__fp12_conj(&cb, &b);
        g16__fp12_mul(&y, &ca, &cb);
        assert_true(g16__fp12_eq(&x, &y));

        t = a;
        g16__fp12_cmov(&t, &b, 1);
        assert_true(g16__fp12_eq(&t, &b));
    }
}

/* a^(p^k) by exponentiation equals the Frobenius map, for Fp12 (and so for Fp6 and Fp2 inside). */
static void test_frobenius(void **state)
{
    (void)state;
    mpz_t p, e;
    mpz_inits(p, e, NULL);
    tu_mpz_p(p);
    uint64_t limbs[20];
    for (int it = 0; it < tu_iters(4); it++) {
        g16_fp12 a, x, y;
        rand_fp12(&a);
        for (int k = 1; k <= 3; k++) {
            mpz_pow_ui(e, p, (unsigned long)k);
            size_t n = mpz_to_limbs(limbs, 20, e);
            g16__fp12_pow(&x, &a, limbs, n);
            g16__fp12_frobenius(&y, &a, k);
            assert_true(g16__fp12_eq(&x, &y));
            /* the Fp6 map alone, on an element of the subfield Fp6 */
            g16_fp12 s = a;
            g16__fp6_set_zero(&s.c1);
            g16__fp12_pow(&x, &s, limbs, n);
            g16_fp6 f6;
            g16__fp6_frobenius(&f6, &a.c0, k);
            assert_true(g16__fp6_eq(&x.c0, &f6));
            assert_true(g16__fp6_is_zero(&x.c1));
        }
        /* composition: φ³ = φ∘φ², and φ applied six times is conjugation */
        g16__fp12_frobenius(&x, &a, 2);
        g16__fp12_frobenius(&x, &x, 1);
        g16__fp12_frobenius(&y, &a, 3);
        assert_true(g16__fp12_eq(&x, &y));
        g16__fp12_frobenius(&x, &y, 3);
        g16__fp12_conj(&y, &a);
        assert_true(g16__fp12_eq(&x, &y));
    }
    mpz_clears(p, e, NULL);
}

/* m = f^((p⁶ − 1)(p² + 1)) lies in the cyclotomic subgroup */
static void rand_cyclotomic(g16_fp12 *m)
{
    g16_fp12 f, inv, t;
    rand_fp12(&f);
    g16__fp12_inv(&inv, &f);
    g16__fp12_conj(&t, &f);
    g16__fp12_mul(&t, &t, &inv);
    g16__fp12_frobenius(m, &t, 2);
    g16__fp12_mul(m, m, &t);
}

static void test_cyclotomic(void **state)
{
    (void)state;
    const uint64_t x_abs = 0xd201000000010000ULL;
    for (int it = 0; it < tu_iters(50); it++) {
        g16_fp12 m, x, y, t;
        rand_cyclotomic(&m);
        /* membership: m^(p⁴) · m = m^(p²), and the inverse is the conjugate */
        g16__fp12_frobenius(&x, &m, 2);
        g16__fp12_frobenius(&y, &x, 2);
        g16__fp12_mul(&y, &y, &m);
        assert_true(g16__fp12_eq(&x, &y));
        g16__fp12_conj(&x, &m);
        g16__fp12_mul(&x, &x, &m);
        assert_true(g16__fp12_is_one(&x));

        g16__fp12_cyclotomic_sqr(&x, &m);
        g16__fp12_sqr(&y, &m);
        assert_true(g16__fp12_eq(&x, &y));
        t = m; /* aliasing */
        g16__fp12_cyclotomic_sqr(&t, &t);
        assert_true(g16__fp12_eq(&t, &y));

        if (it < 10) {
            g16__fp12_cyclotomic_exp_x(&x, &m);
            g16__fp12_pow(&y, &m, &x_abs, 1);
            g16__fp12_conj(&y, &y); /* x = −|x| */
            assert_true(g16__fp12_eq(&x, &y));
        }
    }
}

static void test_pow_small(void **state)
{
    (void)state;
    g16_fp12 a, x, y;
    rand_fp12(&a);
    uint64_t e0 = 0, e1 = 1, e5 = 5;
    g16__fp12_pow(&x, &a, &e0, 1);
    assert_true(g16__fp12_is_one(&x));
    g16__fp12_pow(&x, &a, &e1, 1);
    assert_true(g16__fp12_eq(&x, &a));
    g16__fp12_pow(&x, &a, &e5, 1);
    g16__fp12_sqr(&y, &a);
    g16__fp12_sqr(&y, &y);
    g16__fp12_mul(&y, &y, &a);
    assert_true(g16__fp12_eq(&x, &y));
}

static void test_bytes(void **state)
{
    (void)state;
    uint8_t buf[576], buf2[576];
    for (int it = 0; it < tu_iters(50); it++) {
        g16_fp12 a, b;
        rand_fp12(&a);
        g16__fp12_to_be_bytes(buf, &a);
        assert_int_equal(g16__fp12_from_be_bytes(&b, buf), 0);
        assert_true(g16__fp12_eq(&a, &b));
        g16__fp12_to_be_bytes(buf2, &b);
        assert_memory_equal(buf, buf2, sizeof buf);
    }
    /* coefficient order: the value 7 at c1.c2.c1 (the last slot), 5 at c0.c1.c0 (slot 2) */
    g16_fp12 a;
    g16__fp12_set_zero(&a);
    g16__fp_from_u64(&a.c1.c2.c1, 7);
    g16__fp_from_u64(&a.c0.c1.c0, 5);
    g16__fp12_to_be_bytes(buf, &a);
    for (size_t i = 0; i < sizeof buf; i++) {
        uint8_t want = i == 575 ? 7 : i == 2 * 48 + 47 ? 5 : 0;
        assert_int_equal(buf[i], want);
    }
    /* a coefficient equal to p is rejected and r is left untouched */
    g16_fp12 r = a, before = a;
    g16_fp pm;
    memset(buf, 0, sizeof buf);
    for (int slot = 0; slot < 12; slot += 11) {
        memset(buf, 0, sizeof buf);
        g16__fp_set_zero(&pm);
        uint8_t p_bytes[48];
        for (int i = 0; i < 6; i++)
            for (int k = 0; k < 8; k++)
                p_bytes[47 - 8 * i - k] = (uint8_t)(g16__fp_modulus[i] >> (8 * k));
        memcpy(buf + 48 * slot, p_bytes, 48);
        assert_int_equal(g16__fp12_from_be_bytes(&r, buf), -1);
        assert_true(g16__fp12_eq(&r, &before));
        p_bytes[47]--; /* p − 1 is fine */
        memcpy(buf + 48 * slot, p_bytes, 48);
        assert_int_equal(g16__fp12_from_be_bytes(&r, buf), 0);
        r = before;
    }
}

int main(void)
{
    tu_seed("test_tower");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wide_and_redc), cmocka_unit_test(test_fp2_mul_backends),
        cmocka_unit_test(test_fp6_laws),   cmocka_unit_test(test_fp12_laws), cmocka_unit_test(test_frobenius),
        cmocka_unit_test(test_cyclotomic), cmocka_unit_test(test_pow_small), cmocka_unit_test(test_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
