/* Fp, Fr and Fp2 against GMP (an independent big-integer oracle) on random inputs. */
#include "testutil.h"

#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"

#define CHECK_FP(a, z)                                                                                         \
    do {                                                                                                       \
        mpz_t got_;                                                                                            \
        mpz_init(got_);                                                                                        \
        tu_fp_to_mpz(got_, (a));                                                                               \
        assert_int_equal(mpz_cmp(got_, (z)), 0);                                                               \
        mpz_clear(got_);                                                                                       \
    } while (0)

static void test_fp_ops(void **state)
{
    (void)state;
    mpz_t p, za, zb, want;
    mpz_inits(p, za, zb, want, NULL);
    tu_mpz_p(p);
    for (int it = 0; it < tu_iters(2000); it++) {
        g16_fp a, b, r;
        tu_rand_fp(&a);
        tu_rand_fp(&b);
        if (it == 0)
            g16__fp_set_zero(&a);
        tu_fp_to_mpz(za, &a);
        tu_fp_to_mpz(zb, &b);

        g16__fp_add(&r, &a, &b);
        mpz_add(want, za, zb);
        mpz_mod(want, want, p);
        CHECK_FP(&r, want);

        g16__fp_sub(&r, &a, &b);
        mpz_sub(want, za, zb);
        mpz_mod(want, want, p);
        CHECK_FP(&r, want);

        g16__fp_neg(&r, &a);
        mpz_neg(want, za);
        mpz_mod(want, want, p);
        CHECK_FP(&r, want);

        g16__fp_mul(&r, &a, &b);
        mpz_mul(want, za, zb);
        mpz_mod(want, want, p);
        CHECK_FP(&r, want);
        g16__fp_mul_portable(&r, &a, &b);
        CHECK_FP(&r, want);

        g16__fp_sqr(&r, &a);
        mpz_mul(want, za, za);
        mpz_mod(want, want, p);
        CHECK_FP(&r, want);

        if (mpz_sgn(za) != 0) {
            mpz_invert(want, za, p);
            g16__fp_inv(&r, &a);
            CHECK_FP(&r, want);
            g16__fp_inv_var(&r, &a);
            CHECK_FP(&r, want);
        }

        int leg = mpz_legendre(za, p);
        assert_int_equal(g16__fp_legendre(&a), leg);
        int ok = g16__fp_sqrt(&r, &a);
        assert_int_equal(ok, leg >= 0);
        if (ok) {
            g16_fp sq;
            g16__fp_sqr(&sq, &r);
            assert_true(g16__fp_eq(&sq, &a));
        }
    }
    mpz_clears(p, za, zb, want, NULL);
}

static void test_fr_ops(void **state)
{
    (void)state;
    mpz_t m, za, zb, want, got;
    mpz_inits(m, za, zb, want, got, NULL);
    tu_mpz_r(m);
    for (int it = 0; it < tu_iters(2000); it++) {
        g16_fr a, b, r;
        tu_rand_fr(&a);
        tu_rand_fr(&b);
        tu_fr_to_mpz(za, &a);
        tu_fr_to_mpz(zb, &b);

        g16__fr_mul(&r, &a, &b);
        mpz_mul(want, za, zb);
        mpz_mod(want, want, m);
        tu_fr_to_mpz(got, &r);
        assert_int_equal(mpz_cmp(got, want), 0);

        g16__fr_sub(&r, &a, &b);
        mpz_sub(want, za, zb);
        mpz_mod(want, want, m);
        tu_fr_to_mpz(got, &r);
        assert_int_equal(mpz_cmp(got, want), 0);

        mpz_invert(want, za, m);
        g16__fr_inv(&r, &a);
        tu_fr_to_mpz(got, &r);
        assert_int_equal(mpz_cmp(got, want), 0);
        g16__fr_inv_var(&r, &a);
        tu_fr_to_mpz(got, &r);
        assert_int_equal(mpz_cmp(got, want), 0);
    }
    mpz_clears(m, za, zb, want, got, NULL);
}

static void test_fp2_sqrt(void **state)
{
    (void)state;
    int squares = 0, non = 0;
    for (int it = 0; it < tu_iters(200); it++) {
        g16_fp2 a, s, r, sq, inv, prod;
        tu_rand_fp2(&a);
        g16__fp2_sqr(&s, &a);
        assert_true(g16__fp2_sqrt(&r, &s));
        g16__fp2_sqr(&sq, &r);
        assert_true(g16__fp2_eq(&sq, &s));
        if (g16__fp2_sqrt(&r, &a))
            squares++;
        else
            non++;
        g16__fp2_inv(&inv, &a);
        g16__fp2_mul(&prod, &inv, &a);
        assert_true(g16__fp2_is_one(&prod));
        g16__fp2_inv_var(&inv, &a);
        g16__fp2_mul(&prod, &inv, &a);
        assert_true(g16__fp2_is_one(&prod));
    }
    /* half of Fp2 is square: a broken sqrt that always fails or always succeeds is caught */
    assert_true(squares > 0 && non > 0);
}

static void test_fr_roots(void **state)
{
    (void)state;
    for (unsigned k = 0; k <= 32; k++) {
        g16_fr w, t;
        assert_int_equal(g16__fr_root_of_unity(&w, k), 0);
        t = w;
        for (unsigned i = 0; i < k; i++)
            g16__fr_sqr(&t, &t);
        assert_true(g16__fr_is_one(&t));
        if (k > 0) {
            t = w;
            for (unsigned i = 0; i + 1 < k; i++)
                g16__fr_sqr(&t, &t);
            assert_false(g16__fr_is_one(&t)); /* primitive: w^(2^(k-1)) = -1 */
        }
    }
    g16_fr w;
    assert_int_equal(g16__fr_root_of_unity(&w, 33), -1);
}

int main(void)
{
    tu_seed("test_fp_gmp");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp_ops),
        cmocka_unit_test(test_fr_ops),
        cmocka_unit_test(test_fp2_sqrt),
        cmocka_unit_test(test_fr_roots),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
