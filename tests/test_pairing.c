/*
 * Optimal ate pairing: known answers from @noble/curves, the final exponentiation against a plain
 * exponentiation by 3(p¹² − 1)/r, bilinearity, e^r = 1, non-degeneracy, e(−P, Q) = e(P, Q)⁻¹,
 * infinity, multi-pairing = product of pairings, prepared = unprepared.
 */
#include "testutil.h"

#include <string.h>

#include "curve/pairing.h"

/* Known answers produced with @noble/curves 2.4.0 (bls12_381.pairing, Fp12.toBytes). */
static const char *const gen_p[2] = {
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
    "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1"};
static const char *const gen_q[4] = {
    "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e",
    "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801",
    "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"};
static const char *const gen_e =
    "1250ebd871fc0a92a7b2d83168d0d727272d441befa15c503dd8e90ce98db3e7b6d194f60839c508a84305aaca1789b6"
    "089a1c5b46e5110b86750ec6a532348868a84045483c92b7af5af689452eafabf1a8943e50439f1d59882a98eaa0170f"
    "1368bb445c7c2d209703f239689ce34c0378a68e72a6b3b216da0e22a5031b54ddff57309396b38c881c4c849ec23e87"
    "193502b86edb8857c273fa075a50512937e0794e1e65a7617c90d8bd66065b1fffe51d7a579973b1315021ec3c19934f"
    "01b2f522473d171391125ba84dc4007cfbf2f8da752f7c74185203fcca589ac719c34dffbbaad8431dad1c1fb597aaa5"
    "018107154f25a764bd3c79937a45b84546da634b8f6be14a8061e55cceba478b23f7dacaa35c8ca78beae9624045b4b6"
    "19f26337d205fb469cd6bd15c3d5a04dc88784fbb3d0b2dbdea54d43b2b73f2cbb12d58386a8703e0f948226e47ee89d"
    "06fba23eb7c5af0d9f80940ca771b6ffd5857baaf222eb95a7d2809d61bfe02e1bfd1b68ff02f0b8102ae1c2d5d5ab1a"
    "11b8b424cd48bf38fcef68083b0b0ec5c81a93b330ee1a677d0d15ff7b984e8978ef48881e32fac91b93b47333e2ba57"
    "03350f55a7aefcd3c31b4fcb6ce5771cc6a0e9786ab5973320c806ad360829107ba810c5a09ffdd9be2291a0c25a99a2"
    "04c581234d086a9902249b64728ffd21a189e87935a954051c7cdba7b3872629a4fafc05066245cb9108f0242d0fe3ef"
    "0f41e58663bf08cf068672cbd01a7ec73baca4d72ca93544deff686bfd6df543d48eaa24afe47e1efde449383b676631";
/* P = 123456789·G1, Q = 987654321·G2 */
#define SCALAR_A 123456789ULL
#define SCALAR_B 987654321ULL
static const char *const ab_p[2] = {
    "0f95b8218cbee2f4fa48e6b6f1df4e8ee46fee73c270dba395dad523d10c9b35295ccfc92cf0a9db8a065e16dafbfaad",
    "198a99c756b5a6e9f5917aa7c3e7f6191a38b1f0f348f6be14a15814c15ce2417ade0a03dc5595abac997da5f5fc5338"};
static const char *const ab_q[4] = {
    "02c931fb630414ad1478e24421893a7bf7911091e0713f58f507b8277b22ed70f4b7b87b90b2ed2f676d22b46692aaf5",
    "129cbccb70f3799eeb03645ea19a393af6f8c79b6ce446302ff8e075570bb0e08d3d11a57a56829285abc1b9eb51ea43",
    "08e52d75c884318215b27577e84ae378de5538e3f8cf895132d81060f3d7cb57ca5914b8b9cda268c37c9a43a1095128",
    "137c5b28f506f5d4a4017401a890ce1abc0943ed4cc5d33e4d150db666cc4bceddfdc760abee2b683b36b5646e8d268f"};
static const char *const ab_e =
    "0352260f20ab80b16ba4dcdaa504244ee3900f164432d3ddde14c7573ed5b8fe3e49c23f8da3a7ea47dba99b6b1a3800"
    "10cfdf715aaed3a781b4cefbb626362a454c132901e60640170538b6a2bd5038b07cb74f2cd30a6a7d7132ff85bf4efe"
    "198e1086de2b9e1d39341561db7da97b5cf5c555058a1f9cddb5ae562312ab5a9c3345b423b01ef2d6bf7b284ebd1887"
    "05ec1f9e3bf56fa230d373d5ad19569212291fb35fba262e0d81a81f9f4c06037299e8c8d961be1e96371925a2ab3bb7"
    "122419859dacb25bc6455f10842103423f11bc7da46e7e63960ff90b746d2351878355c08b6f0b20f05d78abc01ec777"
    "0d7de0a903f15a0189e4acb4c507aea4e585cb4026793ff44e07530e12258fd05fa73b241c7c1e8207bbca8dcaf2f180"
    "031ce0b59f7737c80023ba872cf47f31ec020f1b96e58d6d850fc71c77d4a46d0a0b79d842fd36c440765efb6682fc14"
    "067410d4663fd68219063269bf00f387ec68ab682dea7757b9a5b1d9c7c67f3fffac2b13980075f9b1785574c774a378"
    "04e40a02a2de82211aa966b7900d9a1dcf237f753b4127a8f9f627fe91c6777373fb7076e2d21bfc61fb14f304b4b8b8"
    "1710582cd65fb72566efcff1389d799dee52cb5b7a45ca5a637d4a67cd7a9f27996f4a2747551a2f2dfcd5c972179dc4"
    "0ec136f443d8cae454c01fa4595c9628ca45580218891031f4b80f2a81c0ab1dec8da7cb8d92d53627f53691abba42da"
    "0d2342da60e2fbd3ae35ff54d29662281284987bba6894810367cfcf2d7ec4b99ad14d022f32093f29e9c0b1ea249242";

static void fp_from_hex(g16_fp *r, const char *hex)
{
    uint8_t b[48];
    assert_int_equal(tu_hex_decode(b, sizeof b, hex), 48);
    assert_int_equal(g16__fp_from_be_bytes(r, b), 0);
}

static void p1_from_hex(g16_p1_affine *p, const char *const h[2])
{
    fp_from_hex(&p->x, h[0]);
    fp_from_hex(&p->y, h[1]);
}

static void p2_from_hex(g16_p2_affine *q, const char *const h[4])
{
    fp_from_hex(&q->x.c0, h[0]);
    fp_from_hex(&q->x.c1, h[1]);
    fp_from_hex(&q->y.c0, h[2]);
    fp_from_hex(&q->y.c1, h[3]);
}

static void fp12_from_hex(g16_fp12 *r, const char *hex)
{
    uint8_t b[576];
    assert_int_equal(tu_hex_decode(b, sizeof b, hex), 576);
    assert_int_equal(g16__fp12_from_be_bytes(r, b), 0);
}

static void rand_fp12(g16_fp12 *r)
{
    tu_rand_fp2(&r->c0.c0);
    tu_rand_fp2(&r->c0.c1);
    tu_rand_fp2(&r->c0.c2);
    tu_rand_fp2(&r->c1.c0);
    tu_rand_fp2(&r->c1.c1);
    tu_rand_fp2(&r->c1.c2);
}

static size_t mpz_to_limbs(uint64_t *l, size_t cap, const mpz_t z)
{
    size_t count = 0;
    memset(l, 0, cap * sizeof *l);
    assert_true(mpz_sizeinbase(z, 2) <= cap * 64);
    mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
    return count;
}

static void pow_mpz(g16_fp12 *r, const g16_fp12 *a, const mpz_t e)
{
    uint64_t l[80];
    size_t n = mpz_to_limbs(l, 80, e);
    g16__fp12_pow(r, a, l, n);
}

static void test_known_answers(void **state)
{
    (void)state;
    g16_p1_affine p;
    g16_p2_affine q;
    g16_fp12 e, want;
    p1_from_hex(&p, gen_p);
    p2_from_hex(&q, gen_q);
    fp12_from_hex(&want, gen_e);
    g16__pairing(&e, &p, &q);
    assert_true(g16__fp12_eq(&e, &want));
    assert_false(g16__fp12_is_one(&e)); /* non-degenerate */

    p1_from_hex(&p, ab_p);
    p2_from_hex(&q, ab_q);
    fp12_from_hex(&want, ab_e);
    g16__pairing(&e, &p, &q);
    assert_true(g16__fp12_eq(&e, &want));
}

/* The final exponentiation equals f^(3(p¹² − 1)/r) on random f (also on elements that are
 * not Miller-loop outputs: the chain is an identity of exponents). */
static void test_final_exp_exponent(void **state)
{
    (void)state;
    mpz_t p, r, e;
    mpz_inits(p, r, e, NULL);
    tu_mpz_p(p);
    tu_mpz_r(r);
    mpz_pow_ui(e, p, 12);
    mpz_sub_ui(e, e, 1);
    assert_true(mpz_divisible_p(e, r));
    mpz_divexact(e, e, r);
    mpz_mul_ui(e, e, 3);
    for (int it = 0; it < tu_iters(2); it++) {
        g16_fp12 f, x, y;
        rand_fp12(&f);
        g16__final_exp(&x, &f);
        pow_mpz(&y, &f, e);
        assert_true(g16__fp12_eq(&x, &y));
    }
    mpz_clears(p, r, e, NULL);
}

static void test_bilinear_known(void **state)
{
    (void)state;
    g16_p1_affine g1, p;
    g16_p2_affine g2, q;
    g16_fp12 e, base, want;
    p1_from_hex(&g1, gen_p);
    p2_from_hex(&g2, gen_q);
    p1_from_hex(&p, ab_p);
    p2_from_hex(&q, ab_q);
    g16__pairing(&base, &g1, &g2);
    uint64_t ab[2];
    unsigned __int128 prod = (unsigned __int128)SCALAR_A * SCALAR_B;
    ab[0] = (uint64_t)prod;
    ab[1] = (uint64_t)(prod >> 64);
    g16__fp12_pow(&want, &base, ab, 2);
    g16__pairing(&e, &p, &q);
    assert_true(g16__fp12_eq(&e, &want));
    /* e(aG1, G2) = e(G1, G2)^a, e(G1, bG2) = e(G1, G2)^b */
    uint64_t a = SCALAR_A, b = SCALAR_B;
    g16__pairing(&e, &p, &g2);
    g16__fp12_pow(&want, &base, &a, 1);
    assert_true(g16__fp12_eq(&e, &want));
    g16__pairing(&e, &g1, &q);
    g16__fp12_pow(&want, &base, &b, 1);
    assert_true(g16__fp12_eq(&e, &want));

    /* e^r = 1 */
    mpz_t r;
    mpz_init(r);
    tu_mpz_r(r);
    pow_mpz(&e, &base, r);
    assert_true(g16__fp12_is_one(&e));
    mpz_clear(r);
}

static void test_infinity(void **state)
{
    (void)state;
    g16_p1_affine g1, inf1;
    g16_p2_affine g2, inf2;
    g16_fp12 e, want;
    p1_from_hex(&g1, gen_p);
    p2_from_hex(&g2, gen_q);
    memset(&inf1, 0, sizeof inf1);
    memset(&inf2, 0, sizeof inf2);
    g16__pairing(&e, &inf1, &g2);
    assert_true(g16__fp12_is_one(&e));
    g16__pairing(&e, &g1, &inf2);
    assert_true(g16__fp12_is_one(&e));
    g16__pairing(&e, &inf1, &inf2);
    assert_true(g16__fp12_is_one(&e));
    g16__multi_pairing(&e, &g1, &g2, 0);
    assert_true(g16__fp12_is_one(&e));

    /* infinity pairs inside a multi-pairing contribute 1 */
    g16_p1_affine ps[3] = {inf1, g1, g1};
    g16_p2_affine qs[3] = {g2, g2, inf2};
    g16__multi_pairing(&e, ps, qs, 3);
    g16__pairing(&want, &g1, &g2);
    assert_true(g16__fp12_eq(&e, &want));

    g16__p2_prepared prep_inf, prep_g2;
    g16__p2_prepare(&prep_inf, &inf2);
    g16__p2_prepare(&prep_g2, &g2);
    const g16__p2_prepared *pq[3] = {&prep_g2, &prep_g2, &prep_inf};
    g16_fp12 f;
    g16__miller_loop_prepared_n(&f, ps, pq, 3);
    g16__final_exp(&e, &f);
    assert_true(g16__fp12_eq(&e, &want));
}

/* Multi-pairing over more pairs than one chunk of the loop, against the product of pairings,
 * and the prepared loop against the unprepared one. */
static void test_multi_and_prepared(void **state)
{
    (void)state;
    enum { N = 11 };
    g16_p1_affine pts1[2], ps[N];
    g16_p2_affine pts2[2], qs[N];
    p1_from_hex(&pts1[0], gen_p);
    p1_from_hex(&pts1[1], ab_p);
    p2_from_hex(&pts2[0], gen_q);
    p2_from_hex(&pts2[1], ab_q);
    g16_fp12 single[2][2], want, e;
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            g16__pairing(&single[i][j], &pts1[i], &pts2[j]);
    g16__fp12_set_one(&want);
    for (int k = 0; k < N; k++) {
        int i = (int)(tu_rand64() & 1), j = (int)(tu_rand64() & 1);
        ps[k] = pts1[i];
        qs[k] = pts2[j];
        g16__fp12_mul(&want, &want, &single[i][j]);
    }
    g16__multi_pairing(&e, ps, qs, N);
    assert_true(g16__fp12_eq(&e, &want));

    g16__p2_prepared prep[2];
    g16__p2_prepare(&prep[0], &pts2[0]);
    g16__p2_prepare(&prep[1], &pts2[1]);
    const g16__p2_prepared *pq[N];
    for (int k = 0; k < N; k++)
        pq[k] = g16__fp2_eq(&qs[k].x, &pts2[0].x) ? &prep[0] : &prep[1];
    g16_fp12 f, f2;
    g16__miller_loop_prepared_n(&f, ps, pq, N);
    g16__final_exp(&e, &f);
    assert_true(g16__fp12_eq(&e, &want));
    /* the Miller loops themselves agree (same lines, same order of products) for one pair */
    g16__miller_loop_prepared_n(&f, ps, pq, 1);
    g16__miller_loop(&f2, ps, qs);
    assert_true(g16__fp12_eq(&f, &f2));
}

/* ---- with the curve layer: random scalars ---- */

static void p1_mul_gen(g16_p1_affine *r, const g16_fr *k)
{
    g16_p1 g, t;
    g16__p1_generator(&g);
    g16__p1_mul_var(&t, &g, k);
    g16__p1_to_affine(r, &t);
}

static void p2_mul_gen(g16_p2_affine *r, const g16_fr *k)
{
    g16_p2 g, t;
    g16__p2_generator(&g);
    g16__p2_mul_var(&t, &g, k);
    g16__p2_to_affine(r, &t);
}

static void pow_fr(g16_fp12 *r, const g16_fp12 *a, const g16_fr *k)
{
    uint64_t l[4];
    g16__fr_to_limbs(l, k);
    g16__fp12_pow(r, a, l, 4);
}

/* e(aG1, bG2) = e(G1, G2)^(ab) for random a, b; e(aP, Q) = e(P, aQ); e(−P, Q) = e(P, −Q) = e(P, Q)⁻¹ */
static void test_bilinear_random(void **state)
{
    (void)state;
    g16_fp12 base, e, want, t;
    g16__pairing(&base, &g16__p1_generator_affine, &g16__p2_generator_affine);
    for (int it = 0; it < tu_iters(3); it++) {
        g16_fr a, b, ab;
        g16_p1_affine p, pn;
        g16_p2_affine q, qn;
        tu_rand_fr(&a);
        tu_rand_fr(&b);
        g16__fr_mul(&ab, &a, &b);
        p1_mul_gen(&p, &a);
        p2_mul_gen(&q, &b);
        g16__pairing(&e, &p, &q);
        pow_fr(&want, &base, &ab);
        assert_true(g16__fp12_eq(&e, &want));
        assert_false(g16__fp12_is_one(&e));

        /* e(a·G1, b·G2) = e(ab·G1, G2) = e(G1, ab·G2) */
        g16_p1_affine pab;
        g16_p2_affine qab;
        p1_mul_gen(&pab, &ab);
        p2_mul_gen(&qab, &ab);
        g16__pairing(&t, &pab, &g16__p2_generator_affine);
        assert_true(g16__fp12_eq(&t, &e));
        g16__pairing(&t, &g16__p1_generator_affine, &qab);
        assert_true(g16__fp12_eq(&t, &e));

        g16__p1_affine_neg(&pn, &p);
        g16__p2_affine_neg(&qn, &q);
        g16__pairing(&t, &pn, &q);
        g16__fp12_mul(&t, &t, &e);
        assert_true(g16__fp12_is_one(&t));
        g16__pairing(&t, &p, &qn);
        g16__fp12_inv(&want, &e);
        assert_true(g16__fp12_eq(&t, &want));

        /* e^r = 1 */
        mpz_t r;
        mpz_init(r);
        tu_mpz_r(r);
        pow_mpz(&t, &e, r);
        assert_true(g16__fp12_is_one(&t));
        mpz_clear(r);
    }
}

/* A Groth16-shaped product: e(aG1, bG2)·e(cG1, dG2)·e(−(ab + cd)G1, G2) = 1, as a multi-pairing,
 * and the same with prepared G2 points; random multi-pairings equal products of pairings. */
static void test_multi_random(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(2); it++) {
        g16_fr a, b, c, d, s, t;
        tu_rand_fr(&a);
        tu_rand_fr(&b);
        tu_rand_fr(&c);
        tu_rand_fr(&d);
        g16__fr_mul(&s, &a, &b);
        g16__fr_mul(&t, &c, &d);
        g16__fr_add(&s, &s, &t);
        g16__fr_neg(&s, &s);
        g16_p1_affine ps[3];
        g16_p2_affine qs[3];
        p1_mul_gen(&ps[0], &a);
        p2_mul_gen(&qs[0], &b);
        p1_mul_gen(&ps[1], &c);
        p2_mul_gen(&qs[1], &d);
        p1_mul_gen(&ps[2], &s);
        qs[2] = g16__p2_generator_affine;
        g16_fp12 e, f, prod, single;
        g16__multi_pairing(&e, ps, qs, 3);
        assert_true(g16__fp12_is_one(&e));

        g16__p2_prepared prep[3];
        const g16__p2_prepared *pq[3];
        for (int i = 0; i < 3; i++) {
            g16__p2_prepare(&prep[i], &qs[i]);
            pq[i] = &prep[i];
        }
        g16__miller_loop_prepared_n(&f, ps, pq, 3);
        g16__final_exp(&e, &f);
        assert_true(g16__fp12_is_one(&e));

        /* break the relation: swap one G2 point; the product is then the product of pairings */
        qs[2] = qs[0];
        g16__multi_pairing(&e, ps, qs, 3);
        assert_false(g16__fp12_is_one(&e));
        g16__fp12_set_one(&prod);
        for (int i = 0; i < 3; i++) {
            g16__pairing(&single, &ps[i], &qs[i]);
            g16__fp12_mul(&prod, &prod, &single);
        }
        assert_true(g16__fp12_eq(&e, &prod));
        g16__p2_prepare(&prep[2], &qs[2]);
        g16__miller_loop_prepared_n(&f, ps, pq, 3);
        g16__final_exp(&e, &f);
        assert_true(g16__fp12_eq(&e, &prod));
    }
}

int main(void)
{
    tu_seed("test_pairing");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),    cmocka_unit_test(test_final_exp_exponent),
        cmocka_unit_test(test_bilinear_known),   cmocka_unit_test(test_infinity),
        cmocka_unit_test(test_multi_and_prepared), cmocka_unit_test(test_bilinear_random),
        cmocka_unit_test(test_multi_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
