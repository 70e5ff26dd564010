/*
 * G1 and G2 arithmetic: group laws against an independent affine (chord-and-tangent) oracle,
 * complete vs branching additions, scalar multiplication (constant-time vs windowed vs naive
 * double-and-add), batch affine conversion, curve and subgroup tests (endomorphism test vs
 * r·P = O on points with and without cofactor components), generators and constants.
 *
 * The generic part is written once and compiled twice: this file includes itself with
 * CURVE_TEST_BODY defined, once with the G1 macros and once with the G2 macros.
 */
#ifndef CURVE_TEST_BODY

#include <string.h>

#include "testutil.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"

/* r as limbs, h1 (G1 cofactor), h2 (G2 cofactor), |x|, and r − 1, all little-endian. */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                    0x73eda753299d7d48ULL};
static const uint64_t H1_LIMBS[2] = {0x8c00aaab0000aaabULL, 0x396c8c005555e156ULL};
static const uint64_t H2_LIMBS[8] = {0xcf1c38e31c7238e5ULL, 0x1616ec6e786f0c70ULL, 0x21537e293a6691aeULL,
                                     0xa628f1cb4d9e82efULL, 0xa68a205b2e5a7ddfULL, 0xcd91de4547085abaULL,
                                     0x091d50792876a202ULL, 0x05d543a95414e7f1ULL};
static const uint64_t X_ABS = 0xd201000000010000ULL;

/* k as an Fr element from a small integer (reduced mod r when negative). */
static void fr_from_i64(g16_fr *r, int64_t v)
{
    g16__fr_from_u64(r, (uint64_t)(v < 0 ? -v : v));
    if (v < 0)
        g16__fr_neg(r, r);
}

/* q = a / d for a little-endian integer a of n limbs; returns the remainder. */
static uint64_t limbs_div_small(uint64_t *q, const uint64_t *a, size_t n, uint64_t d)
{
    unsigned __int128 rem = 0;
    for (size_t i = n; i-- > 0;) {
        unsigned __int128 cur = (rem << 64) | a[i];
        q[i] = (uint64_t)(cur / d);
        rem = cur % d;
    }
    return (uint64_t)rem;
}

/* q = a with every factor ℓ removed (the cofactor without its ℓ-primary part). */
static void limbs_remove_prime(uint64_t *q, const uint64_t *a, size_t n, uint64_t l)
{
    uint64_t t[8];
    memcpy(q, a, n * sizeof *q);
    while (limbs_div_small(t, q, n, l) == 0)
        memcpy(q, t, n * sizeof *q);
}

/* ---------------- G1 instantiation ---------------- */
#define CURVE_TEST_BODY 1
#define FE g16_fp
#define FE_(op) g16__fp_##op
#define FE_RAND tu_rand_fp
#define PT g16_p1
#define PTA g16_p1_affine
#define PT_(name) g16__p1_##name
#define T_(name) g1_##name
static void g1_curve_b(g16_fp *b) { g16__fp_from_u64(b, 4); }
#include "test_curve.c"
#undef FE
#undef FE_
#undef FE_RAND
#undef PT
#undef PTA
#undef PT_
#undef T_

/* ---------------- G2 instantiation ---------------- */
#define FE g16_fp2
#define FE_(op) g16__fp2_##op
#define FE_RAND tu_rand_fp2
#define PT g16_p2
#define PTA g16_p2_affine
#define PT_(name) g16__p2_##name
#define T_(name) g2_##name
static void g2_curve_b(g16_fp2 *b)
{
    g16__fp_from_u64(&b->c0, 4);
    g16__fp_from_u64(&b->c1, 4);
}
#include "test_curve.c"

/* ---------------- group-specific tests ---------------- */

static void check_fp_hex(const g16_fp *a, const char *hex)
{
    uint8_t be[48];
    char got[97];
    g16__fp_to_be_bytes(be, a);
    tu_hex_encode(got, be, 48);
    assert_string_equal(got, hex);
}

/* The generator coordinates against the published canonical values. */
static void test_generator_coordinates(void **state)
{
    (void)state;
    check_fp_hex(&g16__p1_generator_affine.x, "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb");
    check_fp_hex(&g16__p1_generator_affine.y, "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1");
    check_fp_hex(&g16__p2_generator_affine.x.c0, "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    check_fp_hex(&g16__p2_generator_affine.x.c1, "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e");
    check_fp_hex(&g16__p2_generator_affine.y.c0, "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801");
    check_fp_hex(&g16__p2_generator_affine.y.c1, "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be");
}

/* −x² mod r and x mod r as Fr elements: the eigenvalues of σ on G1 and ψ on G2. */
static void eigenvalues(g16_fr *minus_x2, g16_fr *x)
{
    g16_fr xa;
    g16__fr_from_u64(&xa, X_ABS);
    g16__fr_neg(x, &xa);
    g16__fr_sqr(minus_x2, &xa);
    g16__fr_neg(minus_x2, minus_x2);
}

/* σ: β is a primitive cube root of unity, and σ(P) = −x²·P on G1 but not on other points. */
static void test_g1_sigma(void **state)
{
    (void)state;
    g16_p1 g, s, t;
    g16_fr lam, xr, k;
    eigenvalues(&lam, &xr);
    /* σ(1, 1, 1) = (β, 1, 1) exposes β */
    g16__fp_set_one(&t.x);
    g16__fp_set_one(&t.y);
    g16__fp_set_one(&t.z);
    g16__p1_sigma(&s, &t);
    g16_fp beta = s.x, b3;
    assert_false(g16__fp_is_one(&beta));
    g16__fp_sqr(&b3, &beta);
    g16__fp_mul(&b3, &b3, &beta);
    assert_true(g16__fp_is_one(&b3));
    g16__p1_generator(&g);
    for (int it = 0; it < tu_iters(8); it++) {
        g16_p1 p;
        tu_rand_fr(&k);
        g16__p1_mul_var(&p, &g, &k);
        g16__p1_sigma(&s, &p);
        g16__p1_mul_var(&t, &p, &lam);
        assert_true(g16__p1_eq(&s, &t));
        assert_true(g16__p1_on_curve(&s));
        /* σ(σ(σ(P))) = P */
        g16__p1_sigma(&t, &s);
        g16__p1_sigma(&t, &t);
        assert_true(g16__p1_eq(&t, &p));
    }
}

/* ψ: its constants recomputed from ξ = u + 1, and ψ(Q) = x·Q on G2. */
static void test_g2_psi(void **state)
{
    (void)state;
    static const uint64_t p_minus_1_div_3[6] = {0x9354ffffffffe38eULL, 0x0a395554e5c6aaaaULL, 0xcd104635a790520cULL,
                                                0xcc27c3d6fbd7063fULL, 0x190937e76bc3e447ULL, 0x08ab05f8bdd54cdeULL};
    static const uint64_t p_minus_1_div_2[6] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,
                                                0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};
    g16_fp2 xi, e3, e2, one_z;
    g16_p2 unit, img;
    g16__fp2_set_one(&xi);
    g16__fp2_mul_by_nonresidue(&xi, &xi); /* 1 + u */
    g16__fp2_pow(&e3, &xi, p_minus_1_div_3, 6);
    g16__fp2_pow(&e2, &xi, p_minus_1_div_2, 6);
    /* ψ(1, 1, 1) = (cx, cy, 1) exposes the constants. */
    g16__fp2_set_one(&unit.x);
    g16__fp2_set_one(&unit.y);
    g16__fp2_set_one(&unit.z);
    g16__p2_psi(&img, &unit);
    g16__fp2_mul(&e3, &e3, &img.x);
    g16__fp2_mul(&e2, &e2, &img.y);
    assert_true(g16__fp2_is_one(&e3));
    assert_true(g16__fp2_is_one(&e2));
    g16__fp2_set_one(&one_z);
    assert_true(g16__fp2_eq(&img.z, &one_z));

    g16_fr lam, xr, k;
    eigenvalues(&lam, &xr);
    g16_p2 g, q, s, t;
    g16__p2_generator(&g);
    for (int it = 0; it < tu_iters(6); it++) {
        tu_rand_fr(&k);
        g16__p2_mul_var(&q, &g, &k);
        g16__p2_psi(&s, &q);
        g16__p2_mul_var(&t, &q, &xr);
        assert_true(g16__p2_eq(&s, &t));
        assert_true(g16__p2_on_curve(&s));
    }
}

/* G1 points of small order: (0, ±2) has order 3; (h1/ℓ^e)·r·R has order a power of ℓ (or is O)
 * for each prime power ℓ^e ‖ h1. None is in G1, nor is its sum with a point of G1. */
static void test_g1_small_torsion(void **state)
{
    (void)state;
    static const uint64_t primes[] = {3, 11, 10177, 859267, 52437899};
    g16_p1_affine t3;
    g16_p1 p, q, g, r;
    g16__fp_set_zero(&t3.x);
    g16__fp_from_u64(&t3.y, 2);
    assert_true(g16__p1_affine_on_curve(&t3));
    assert_false(g16__p1_affine_in_subgroup(&t3));
    g16__p1_from_affine(&p, &t3);
    g16__p1_dbl(&q, &p);
    g16__p1_add(&q, &q, &p);
    assert_true(g16__p1_is_infinity(&q)); /* order 3 */
    g16__p1_generator(&g);
    g16__p1_add(&q, &p, &g);
    assert_false(g16__p1_in_subgroup(&q));

    int found = 0;
    for (size_t i = 0; i < sizeof primes / sizeof primes[0]; i++) {
        for (int tries = 0; tries < 4; tries++) {
            g16_p1_affine a;
            uint64_t cof[2];
            g1_rand_curve_point(&a);
            g16__p1_from_affine(&p, &a);
            limbs_remove_prime(cof, H1_LIMBS, 2, primes[i]);
            g16__p1_mul_limbs_var(&q, &p, cof, 128);
            g16__p1_mul_limbs_var(&r, &q, R_LIMBS, 255); /* kill the G1 part */
            if (g16__p1_is_infinity(&r))
                continue;
            found++;
            assert_false(g16__p1_in_subgroup(&r));
            g16__p1_add(&q, &r, &g);
            assert_false(g16__p1_in_subgroup(&q));
            break;
        }
    }
    assert_true(found >= 4);
}

/* Same for G2: (h2/ℓ^e)·r·R for each prime ℓ | h2, the small ones and the 446-bit one. */
static void test_g2_small_torsion(void **state)
{
    (void)state;
    static const uint64_t primes[] = {13, 23, 2713, 11953, 262069};
    g16_p2 p, q, g, r;
    g16__p2_generator(&g);
    int found = 0;
    for (size_t i = 0; i <= sizeof primes / sizeof primes[0]; i++) {
        uint64_t cof[8], big[8] = {0};
        if (i < sizeof primes / sizeof primes[0]) {
            limbs_remove_prime(cof, H2_LIMBS, 8, primes[i]);
        } else {
            /* h2 / q for the large prime q is 13²·23²·2713·11953·262069 */
            big[0] = 13ULL * 13 * 23 * 23 * 2713 * 11953;
            unsigned __int128 m = (unsigned __int128)big[0] * 262069;
            big[0] = (uint64_t)m;
            big[1] = (uint64_t)(m >> 64);
            memcpy(cof, big, sizeof cof);
        }
        for (int tries = 0; tries < 4; tries++) {
            g16_p2_affine a;
            g2_rand_curve_point(&a);
            g16__p2_from_affine(&p, &a);
            g16__p2_mul_limbs_var(&q, &p, cof, 512);
            g16__p2_mul_limbs_var(&r, &q, R_LIMBS, 255);
            if (g16__p2_is_infinity(&r))
                continue;
            found++;
            assert_false(g16__p2_in_subgroup(&r));
            g16__p2_add(&q, &r, &g);
            assert_false(g16__p2_in_subgroup(&q));
            break;
        }
    }
    assert_true(found >= 5);
}

int main(void)
{
    tu_seed("test_curve");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_coordinates),
        cmocka_unit_test(g1_test_generator),
        cmocka_unit_test(g2_test_generator),
        cmocka_unit_test(g1_test_group_laws),
        cmocka_unit_test(g2_test_group_laws),
        cmocka_unit_test(g1_test_infinity),
        cmocka_unit_test(g2_test_infinity),
        cmocka_unit_test(g1_test_on_curve),
        cmocka_unit_test(g2_test_on_curve),
        cmocka_unit_test(g1_test_scalar_mul),
        cmocka_unit_test(g2_test_scalar_mul),
        cmocka_unit_test(g1_test_scalar_mul_any_point),
        cmocka_unit_test(g2_test_scalar_mul_any_point),
        cmocka_unit_test(g1_test_mul_limbs),
        cmocka_unit_test(g2_test_mul_limbs),
        cmocka_unit_test(g1_test_batch_to_affine),
        cmocka_unit_test(g2_test_batch_to_affine),
        cmocka_unit_test(g1_test_subgroup),
        cmocka_unit_test(g2_test_subgroup),
        cmocka_unit_test(test_g1_sigma),
        cmocka_unit_test(test_g2_psi),
        cmocka_unit_test(test_g1_small_torsion),
        cmocka_unit_test(test_g2_small_torsion),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* CURVE_TEST_BODY: the generic tests, instantiated per group by the macros above */

/* ---- helpers ---- */

static void T_(rhs)(FE *r, const FE *x)
{
    FE b;
    T_(curve_b)(&b);
    FE_(sqr)(r, x);
    FE_(mul)(r, r, x);
    FE_(add)(r, r, &b);
}

/* A uniformly random point of the whole curve (no cofactor clearing), either sign of y. */
static void T_(rand_curve_point)(PTA *a)
{
    FE x, y, rhs;
    do {
        FE_RAND(&x);
        T_(rhs)(&rhs, &x);
    } while (!FE_(sqrt)(&y, &rhs));
    if (tu_rand64() & 1)
        FE_(neg)(&y, &y);
    a->x = x;
    a->y = y;
}

/* Same Jacobian point with a random Z: exercises representations other than Z = 1. */
static void T_(rescale)(PT *p)
{
    FE l, l2, l3;
    do
        FE_RAND(&l);
    while (FE_(is_zero)(&l));
    FE_(sqr)(&l2, &l);
    FE_(mul)(&l3, &l2, &l);
    FE_(mul)(&p->x, &p->x, &l2);
    FE_(mul)(&p->y, &p->y, &l3);
    FE_(mul)(&p->z, &p->z, &l);
}

static void T_(rand_subgroup_point)(PT *p)
{
    g16_fr k;
    PT g;
    tu_rand_fr(&k);
    PT_(generator)(&g);
    PT_(mul_var)(p, &g, &k);
    T_(rescale)(p);
}

static void T_(rand_any_point)(PT *p)
{
    PTA a;
    T_(rand_curve_point)(&a);
    PT_(from_affine)(p, &a);
    T_(rescale)(p);
}

/* Independent oracle: affine chord-and-tangent addition with field inversions. */
static void T_(oracle_add)(PTA *r, const PTA *a, const PTA *b)
{
    FE lam, num, den, t;
    if (PT_(affine_is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (PT_(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (FE_(eq)(&a->x, &b->x)) {
        FE_(add)(&t, &a->y, &b->y);
        if (FE_(is_zero)(&t)) {
            memset(r, 0, sizeof *r);
            return;
        }
        FE_(sqr)(&num, &a->x);
        FE_(add)(&t, &num, &num);
        FE_(add)(&num, &t, &num); /* 3x² */
        FE_(add)(&den, &a->y, &a->y);
    } else {
        FE_(sub)(&num, &b->y, &a->y);
        FE_(sub)(&den, &b->x, &a->x);
    }
    FE_(inv_var)(&den, &den);
    FE_(mul)(&lam, &num, &den);
    PTA out;
    FE_(sqr)(&out.x, &lam);
    FE_(sub)(&out.x, &out.x, &a->x);
    FE_(sub)(&out.x, &out.x, &b->x);
    FE_(sub)(&t, &a->x, &out.x);
    FE_(mul)(&t, &t, &lam);
    FE_(sub)(&out.y, &t, &a->y);
    *r = out;
}

/* Naive double-and-add with the oracle, k given as little-endian limbs. */
static void T_(oracle_mul)(PTA *r, const PTA *a, const uint64_t *k, size_t nbits)
{
    PTA acc;
    memset(&acc, 0, sizeof acc);
    for (size_t i = nbits; i-- > 0;) {
        T_(oracle_add)(&acc, &acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1)
            T_(oracle_add)(&acc, &acc, a);
    }
    *r = acc;
}

/* Jacobian point equals affine point. */
static int T_(eq_affine)(const PT *p, const PTA *a)
{
    PT q;
    PT_(from_affine)(&q, a);
    return PT_(eq)(p, &q);
}

/* ---- tests ---- */

static void T_(test_generator)(void **state)
{
    (void)state;
    PT g, t;
    PT_(generator)(&g);
    assert_true(PT_(affine_on_curve)(&PT_(generator_affine)));
    assert_true(PT_(on_curve)(&g));
    assert_false(PT_(is_infinity)(&g));
    PT_(mul_limbs_var)(&t, &g, R_LIMBS, 255);
    assert_true(PT_(is_infinity)(&t));
    assert_true(PT_(in_subgroup)(&g));
    /* r·G = O also by the constant-time path: (r − 1)·G + G */
    g16_fr k;
    fr_from_i64(&k, -1);
    PT_(mul)(&t, &g, &k);
    PT_(add)(&t, &t, &g);
    assert_true(PT_(is_infinity)(&t));
}

/* Additions against the affine oracle and each other, on subgroup and non-subgroup points. */
static void T_(test_group_laws)(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(40); it++) {
        PT a, b, c, s1, s2, t1, t2;
        PTA aa, ba, ca, sa, want;
        if (it % 2) {
            T_(rand_subgroup_point)(&a);
            T_(rand_subgroup_point)(&b);
            T_(rand_subgroup_point)(&c);
        } else {
            T_(rand_any_point)(&a);
            T_(rand_any_point)(&b);
            T_(rand_any_point)(&c);
        }
        PT_(to_affine)(&aa, &a);
        PT_(to_affine)(&ba, &b);
        PT_(to_affine)(&ca, &c);
        assert_true(PT_(affine_on_curve)(&aa));

        /* a + b against the oracle, by all four additions */
        T_(oracle_add)(&want, &aa, &ba);
        PT_(add)(&s1, &a, &b);
        assert_true(T_(eq_affine)(&s1, &want));
        PT_(add_var)(&s1, &a, &b);
        assert_true(T_(eq_affine)(&s1, &want));
        PT_(add_affine)(&s1, &a, &ba);
        assert_true(T_(eq_affine)(&s1, &want));
        PT_(add_affine_var)(&s1, &a, &ba);
        assert_true(T_(eq_affine)(&s1, &want));
        assert_true(PT_(on_curve)(&s1));
        PT_(to_affine)(&sa, &s1);
        assert_true(PT_(affine_eq)(&sa, &want));

        /* commutativity and associativity */
        PT_(add)(&s2, &b, &a);
        assert_true(PT_(eq)(&s1, &s2));
        PT_(add)(&t1, &s1, &c);
        PT_(add)(&t2, &b, &c);
        PT_(add)(&t2, &a, &t2);
        assert_true(PT_(eq)(&t1, &t2));
        PT_(add_var)(&t2, &c, &s2);
        assert_true(PT_(eq)(&t1, &t2));

        /* doubling: dbl = oracle = P + P by every addition (the doubling case of add) */
        T_(oracle_add)(&want, &aa, &aa);
        PT_(dbl)(&s1, &a);
        assert_true(T_(eq_affine)(&s1, &want));
        PT a2 = a; /* same point, different Z */
        T_(rescale)(&a2);
        PT_(add)(&s2, &a, &a2);
        assert_true(PT_(eq)(&s1, &s2));
        PT_(add_var)(&s2, &a2, &a);
        assert_true(PT_(eq)(&s1, &s2));
        PT_(add_affine)(&s2, &a, &aa);
        assert_true(PT_(eq)(&s1, &s2));
        PT_(add_affine_var)(&s2, &a, &aa);
        assert_true(PT_(eq)(&s1, &s2));

        /* P + (−P) = O by every addition; neg twice is the identity */
        PT na;
        PTA naa;
        PT_(neg)(&na, &a);
        PT_(affine_neg)(&naa, &aa);
        T_(rescale)(&na);
        PT_(add)(&s1, &a, &na);
        assert_true(PT_(is_infinity)(&s1));
        PT_(add_var)(&s1, &na, &a);
        assert_true(PT_(is_infinity)(&s1));
        PT_(add_affine)(&s1, &a, &naa);
        assert_true(PT_(is_infinity)(&s1));
        PT_(add_affine_var)(&s1, &a, &naa);
        assert_true(PT_(is_infinity)(&s1));
        PT_(neg)(&na, &na);
        assert_true(PT_(eq)(&na, &a));
        assert_false(PT_(eq)(&a, &b));

        /* outputs aliasing inputs */
        PT x = a;
        PT_(add)(&x, &x, &b);
        PT_(add)(&s1, &a, &b);
        assert_true(PT_(eq)(&x, &s1));
        x = b;
        PT_(add_var)(&x, &a, &x);
        assert_true(PT_(eq)(&x, &s1));
        x = a;
        PT_(add_affine_var)(&x, &x, &ba);
        assert_true(PT_(eq)(&x, &s1));
        x = a;
        PT_(dbl)(&x, &x);
        PT_(dbl)(&s1, &a);
        assert_true(PT_(eq)(&x, &s1));
    }
}

/* Infinity in every position of every operation. */
static void T_(test_infinity)(void **state)
{
    (void)state;
    PT o, o2, p, r;
    PTA oa, pa, ra;
    PT_(set_infinity)(&o);
    assert_true(PT_(is_infinity)(&o));
    assert_true(PT_(on_curve)(&o));
    assert_true(PT_(in_subgroup)(&o));
    /* a different Z = 0 representation */
    T_(rand_any_point)(&o2);
    FE_(set_zero)(&o2.z);
    assert_true(PT_(eq)(&o, &o2));
    assert_true(PT_(on_curve)(&o2));
    memset(&oa, 0, sizeof oa);
    assert_true(PT_(affine_is_infinity)(&oa));
    assert_true(PT_(affine_on_curve)(&oa));
    assert_true(PT_(affine_in_subgroup)(&oa));

    for (int it = 0; it < tu_iters(6); it++) {
        if (it % 2)
            T_(rand_subgroup_point)(&p);
        else
            T_(rand_any_point)(&p);
        PT_(to_affine)(&pa, &p);
        assert_false(PT_(eq)(&p, &o2));
        assert_false(PT_(eq)(&o2, &p));
        PT_(add)(&r, &o2, &p);
        assert_true(PT_(eq)(&r, &p));
        PT_(add)(&r, &p, &o2);
        assert_true(PT_(eq)(&r, &p));
        PT_(add_var)(&r, &o2, &p);
        assert_true(PT_(eq)(&r, &p));
        PT_(add_var)(&r, &p, &o2);
        assert_true(PT_(eq)(&r, &p));
        PT_(add_affine)(&r, &o2, &pa);
        assert_true(PT_(eq)(&r, &p));
        PT_(add_affine)(&r, &p, &oa);
        assert_true(PT_(eq)(&r, &p));
        PT_(add_affine_var)(&r, &o2, &pa);
        assert_true(PT_(eq)(&r, &p));
        PT_(add_affine_var)(&r, &p, &oa);
        assert_true(PT_(eq)(&r, &p));
    }
    PT_(add)(&r, &o, &o2);
    assert_true(PT_(is_infinity)(&r));
    PT_(add_var)(&r, &o, &o2);
    assert_true(PT_(is_infinity)(&r));
    PT_(add_affine)(&r, &o2, &oa);
    assert_true(PT_(is_infinity)(&r));
    PT_(add_affine_var)(&r, &o2, &oa);
    assert_true(PT_(is_infinity)(&r));
    PT_(dbl)(&r, &o2);
    assert_true(PT_(is_infinity)(&r));
    PT_(neg)(&r, &o2);
    assert_true(PT_(is_infinity)(&r));
    PT_(to_affine)(&ra, &o2);
    assert_true(PT_(affine_is_infinity)(&ra));
    PT_(affine_neg)(&ra, &oa);
    assert_true(PT_(affine_is_infinity)(&ra));
    PT_(from_affine)(&r, &oa);
    assert_true(PT_(is_infinity)(&r));
    g16_fr k;
    tu_rand_fr(&k);
    PT_(mul)(&r, &o2, &k);
    assert_true(PT_(is_infinity)(&r));
    PT_(mul_var)(&r, &o2, &k);
    assert_true(PT_(is_infinity)(&r));
}

static void T_(test_on_curve)(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(40); it++) {
        PT p;
        PTA a;
        T_(rand_any_point)(&p);
        assert_true(PT_(on_curve)(&p));
        PT_(to_affine)(&a, &p);
        assert_true(PT_(affine_on_curve)(&a));
        /* perturb y: the result is on the curve only if it is −y, never for y + 1 */
        FE_(add)(&a.y, &a.y, &FE_(one));
        assert_false(PT_(affine_on_curve)(&a));
        FE_(add)(&p.x, &p.x, &p.z);
        assert_false(PT_(on_curve)(&p));
        /* random (x, y) are almost never on the curve */
        FE_RAND(&a.x);
        FE_RAND(&a.y);
        FE rhs, lhs;
        T_(rhs)(&rhs, &a.x);
        FE_(sqr)(&lhs, &a.y);
        assert_int_equal(PT_(affine_on_curve)(&a), FE_(eq)(&lhs, &rhs));
    }
    /* (0, y) with y ≠ 0 encodes no infinity and is on the curve only if y² = b */
    PTA z;
    memset(&z, 0, sizeof z);
    FE_(set_one)(&z.y);
    assert_false(PT_(affine_on_curve)(&z));
}

/* CT vs windowed vs naive oracle, special scalars, linearity. */
static void T_(test_scalar_mul)(void **state)
{
    (void)state;
    PT g, p, r1, r2, r3;
    PTA pa, want;
    g16_fr k, k2, ks;
    uint64_t kl[4];
    PT_(generator)(&g);
    for (int it = 0; it < tu_iters(10); it++) {
        T_(rand_subgroup_point)(&p);
        PT_(to_affine)(&pa, &p);
        tu_rand_fr(&k);
        if (it == 1) /* a scalar with a long run of zero windows */
            g16__fr_from_u64(&k, 0x10000000001ULL);
        PT_(mul)(&r1, &p, &k);
        PT_(mul_var)(&r2, &p, &k);
        assert_true(PT_(eq)(&r1, &r2));
        if (it < 3) {
            g16__fr_to_limbs(kl, &k);
            T_(oracle_mul)(&want, &pa, kl, 256);
            assert_true(T_(eq_affine)(&r1, &want));
        }
        /* (k + k2)·P = k·P + k2·P and (k·k2)·P = k·(k2·P) */
        tu_rand_fr(&k2);
        PT_(mul_var)(&r3, &p, &k2);
        PT_(add)(&r3, &r3, &r1);
        g16__fr_add(&ks, &k, &k2);
        PT_(mul)(&r2, &p, &ks);
        assert_true(PT_(eq)(&r2, &r3));
        g16__fr_mul(&ks, &k, &k2);
        PT_(mul_var)(&r2, &p, &ks);
        PT_(mul_var)(&r3, &p, &k2);
        PT_(mul)(&r3, &r3, &k);
        assert_true(PT_(eq)(&r2, &r3));
        /* aliasing */
        r3 = p;
        PT_(mul)(&r3, &r3, &k);
        assert_true(PT_(eq)(&r3, &r1));
    }
    /* k = 0, 1, 2, 3, r − 1, r − 2 */
    T_(rand_subgroup_point)(&p);
    static const int64_t small[] = {0, 1, 2, 3, 16, 17, -1, -2};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        PT want_p, t;
        fr_from_i64(&k, small[i]);
        int64_t m = small[i] < 0 ? -small[i] : small[i];
        PT_(set_infinity)(&want_p);
        for (int64_t j = 0; j < m; j++)
            PT_(add_var)(&want_p, &want_p, &p);
        if (small[i] < 0)
            PT_(neg)(&want_p, &want_p);
        PT_(mul)(&t, &p, &k);
        assert_true(PT_(eq)(&t, &want_p));
        PT_(mul_var)(&t, &p, &k);
        assert_true(PT_(eq)(&t, &want_p));
    }
}

/* On arbitrary curve points (not in the subgroup) k·P is still an integer multiple: all three
 * multiplications agree, and the CT one meets the doubling / inverse cases of its additions
 * (a point of small order repeats itself in the window table). */
static void T_(test_scalar_mul_any_point)(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(4); it++) {
        PT p, r1, r2, r3;
        PTA pa, want;
        g16_fr k;
        uint64_t kl[4];
        T_(rand_any_point)(&p);
        PT_(to_affine)(&pa, &p);
        tu_rand_fr(&k);
        g16__fr_to_limbs(kl, &k);
        PT_(mul)(&r1, &p, &k);
        PT_(mul_var)(&r2, &p, &k);
        PT_(mul_limbs_var)(&r3, &p, kl, 256);
        assert_true(PT_(eq)(&r1, &r2));
        assert_true(PT_(eq)(&r1, &r3));
        if (it == 0) {
            T_(oracle_mul)(&want, &pa, kl, 256);
            assert_true(T_(eq_affine)(&r1, &want));
        }
    }
}

/* Scalars of any length: k·P for 0 to 640-bit k vs the oracle, nbits beyond the top set bit. */
static void T_(test_mul_limbs)(void **state)
{
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 5, 63, 64, 65, 130, 255, 256, 381, 640};
    PT p, r1;
    PTA pa, want;
    T_(rand_any_point)(&p);
    PT_(to_affine)(&pa, &p);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t k[10] = {0};
        size_t nb = sizes[i];
        for (size_t j = 0; j < (nb + 63) / 64; j++)
            k[j] = tu_rand64();
        if (nb % 64)
            k[nb / 64] &= (1ULL << (nb % 64)) - 1;
        if (nb > 0)
            k[(nb - 1) / 64] |= 1ULL << ((nb - 1) % 64); /* exactly nb bits */
        PT_(mul_limbs_var)(&r1, &p, k, nb);
        T_(oracle_mul)(&want, &pa, k, nb);
        assert_true(T_(eq_affine)(&r1, &want));
        /* a larger nbits with zero high bits changes nothing */
        PT_(mul_limbs_var)(&r1, &p, k, 640);
        assert_true(T_(eq_affine)(&r1, &want));
    }
    /* all-ones scalars stress the window boundaries */
    uint64_t ones[2] = {~0ULL, 0x7fULL};
    PT_(mul_limbs_var)(&r1, &p, ones, 71);
    T_(oracle_mul)(&want, &pa, ones, 71);
    assert_true(T_(eq_affine)(&r1, &want));
}

static void T_(test_batch_to_affine)(void **state)
{
    (void)state;
    enum { N = 19 };
    PT pts[N];
    PTA got[N], want;
    memset(pts, 0, sizeof pts);
    for (size_t n = 0; n <= N; n += (n < 3 ? 1 : 8)) {
        for (size_t i = 0; i < n; i++) {
            T_(rand_any_point)(&pts[i]);
            if (tu_rand64() % 4 == 0) /* infinity with random X, Y */
                FE_(set_zero)(&pts[i].z);
        }
        if (n > 0)
            FE_(set_zero)(&pts[0].z);
        memset(got, 0xa5, sizeof got);
        PT_(batch_to_affine)(got, pts, n);
        for (size_t i = 0; i < n; i++) {
            PT_(to_affine)(&want, &pts[i]);
            assert_true(PT_(affine_eq)(&got[i], &want));
            assert_int_equal(PT_(affine_is_infinity)(&got[i]), PT_(is_infinity)(&pts[i]));
        }
        for (size_t i = n; i < N; i++) /* nothing written past n */
            assert_int_equal(((const uint8_t *)&got[i])[0], 0xa5);
    }
}

/* The endomorphism test against r·P = O: random curve points (cofactor component present),
 * subgroup points, cofactor-cleared points. */
static void T_(test_subgroup)(void **state)
{
    (void)state;
    int outside = 0;
    for (int it = 0; it < tu_iters(12); it++) {
        PT p, t;
        T_(rand_any_point)(&p);
        PT_(mul_limbs_var)(&t, &p, R_LIMBS, 255);
        int slow = PT_(is_infinity)(&t);
        outside += !slow;
        assert_int_equal(PT_(in_subgroup)(&p), slow);
        PTA pa;
        PT_(to_affine)(&pa, &p);
        assert_int_equal(PT_(affine_in_subgroup)(&pa), slow);

        T_(rand_subgroup_point)(&p);
        assert_true(PT_(in_subgroup)(&p));
        PT_(to_affine)(&pa, &p);
        assert_true(PT_(affine_in_subgroup)(&pa));
    }
    assert_true(outside > 0);
    /* clearing the cofactor lands in the subgroup */
    for (int it = 0; it < 2; it++) {
        PT p, t;
        T_(rand_any_point)(&p);
        if (sizeof(FE) == sizeof(g16_fp))
            PT_(mul_limbs_var)(&p, &p, H1_LIMBS, 128);
        else
            PT_(mul_limbs_var)(&p, &p, H2_LIMBS, 512);
        assert_true(PT_(in_subgroup)(&p));
        PT_(mul_limbs_var)(&t, &p, R_LIMBS, 255);
        assert_true(PT_(is_infinity)(&t));
    }
}

#endif /* CURVE_TEST_BODY */
