/*
 * `g16 selftest`: arithmetic self-checks on random inputs (seed printed, G16_SEED replays)
 * and a small timing table. Every check has an independent reference: algebraic
 * identities, the portable field path against the MULX one, encodings against decoding,
 * and the known encodings of the standard generators.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/pairing.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fr.h"
#include "field/random.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("  [%s] %s\n", ok ? " ok " : "FAIL", what);
    if (!ok)
        failures++;
}

static int hex_eq(const uint8_t *bytes, size_t n, const char *hex)
{
    char buf[2 * 192 + 1];
    for (size_t i = 0; i < n; i++)
        snprintf(buf + 2 * i, 3, "%02x", bytes[i]);
    return strcmp(buf, hex) == 0;
}

static void check_fields(g16__rng *rng)
{
    int inv_ok = 1, sqrt_ok = 1, paths_ok = 1;
    for (int i = 0; i < 200; i++) {
        g16_fp a, b, t, u;
        g16__fp_random(&a, rng);
        g16__fp_random(&b, rng);
        g16__fp_inv(&t, &a);
        g16__fp_mul(&t, &t, &a);
        g16__fp_inv_var(&u, &a);
        g16__fp_mul(&u, &u, &a);
        inv_ok &= g16__fp_is_one(&t) & g16__fp_is_one(&u);
        g16__fp_sqr(&t, &a);
        sqrt_ok &= g16__fp_sqrt(&u, &t);
        g16__fp_sqr(&u, &u);
        sqrt_ok &= g16__fp_eq(&u, &t);
        g16__fp_mul(&t, &a, &b);
        g16__fp_mul_portable(&u, &a, &b);
        paths_ok &= g16__fp_eq(&t, &u);
    }
    check(inv_ok, "Fp inverse (constant-time and _var): a * a^-1 = 1");
    check(sqrt_ok, "Fp square root of squares");
    check(paths_ok, g16__fp_have_mulx() ? "Fp multiplication: MULX/ADX path = portable path"
                                        : "Fp multiplication (portable path; no MULX/ADX on this CPU)");
    g16_fr w;
    g16__fr_root_of_unity(&w, 32);
    for (int i = 0; i < 31; i++)
        g16__fr_sqr(&w, &w);
    g16_fr minus_one;
    g16__fr_neg(&minus_one, &g16__fr_one);
    check(g16__fr_eq(&w, &minus_one), "Fr: 2^32-th root of unity is primitive");
}

static void check_groups(g16__rng *rng)
{
    uint8_t c1[48], c2[96];
    g16_p1_affine ga1 = g16__p1_generator_affine, d1;
    g16_p2_affine ga2 = g16__p2_generator_affine, d2;
    g16_p1_affine_compress(c1, &ga1);
    g16_p2_affine_compress(c2, &ga2);
    check(hex_eq(c1, 48, "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"),
          "G1 generator encodes to the standard compressed bytes");
    check(hex_eq(c2, 96, "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
                         "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"),
          "G2 generator encodes to the standard compressed bytes");
    check(g16_p1_affine_uncompress(&d1, c1) == G16_OK && g16__p1_affine_eq(&d1, &ga1), "G1 decode(encode(G)) = G");
    check(g16_p2_affine_uncompress(&d2, c2) == G16_OK && g16__p2_affine_eq(&d2, &ga2), "G2 decode(encode(G)) = G");

    g16_p1 g1, o1;
    g16_p2 g2, o2;
    g16__p1_generator(&g1);
    g16__p2_generator(&g2);
    g16__p1_mul_limbs_var(&o1, &g1, g16__fr_modulus, 256);
    g16__p2_mul_limbs_var(&o2, &g2, g16__fr_modulus, 256);
    check(g16__p1_is_infinity(&o1) && g16__p2_is_infinity(&o2), "r * G = O in G1 and G2");

    g16_fr a, b, ab;
    g16__fr_random(&a, rng);
    g16__fr_random(&b, rng);
    g16__fr_add(&ab, &a, &b);
    g16_p1 pa, pb, pab, s1;
    g16__p1_mul(&pa, &g1, &a);
    g16__p1_mul_var(&pb, &g1, &b);
    g16__p1_mul(&pab, &g1, &ab);
    g16__p1_add(&s1, &pa, &pb);
    check(g16__p1_eq(&s1, &pab), "G1: aG + bG = (a+b)G (constant-time and _var multiplication)");
    g16_p2 qa, qb, qab, s2;
    g16__p2_mul(&qa, &g2, &a);
    g16__p2_mul_var(&qb, &g2, &b);
    g16__p2_mul(&qab, &g2, &ab);
    g16__p2_add(&s2, &qa, &qb);
    check(g16__p2_eq(&s2, &qab), "G2: aG + bG = (a+b)G (constant-time and _var multiplication)");
    check(g16__p1_in_subgroup(&pa) && g16__p2_in_subgroup(&qa), "random multiples of G pass the subgroup checks");


}

static void check_pairing(g16__rng *rng)
{
    g16_fr a, b, ab;
    g16__fr_random_nonzero(&a, rng);
    g16__fr_random_nonzero(&b, rng);
    g16__fr_mul(&ab, &a, &b);
    g16_p1 g1, pa, pab;
    g16_p2 g2, qb;
    g16__p1_generator(&g1);
    g16__p2_generator(&g2);
    g16__p1_mul_var(&pa, &g1, &a);
    g16__p1_mul_var(&pab, &g1, &ab);
    g16__p2_mul_var(&qb, &g2, &b);
    g16_p1_affine aa, aab;
    g16_p2_affine bq;
    g16__p1_to_affine(&aa, &pa);
    g16__p1_to_affine(&aab, &pab);
    g16__p2_to_affine(&bq, &qb);
    g16_fp12 e1, e2, e0;
    g16__pairing(&e1, &aa, &bq);
    g16__pairing(&e2, &aab, &g16__p2_generator_affine);
    g16__pairing(&e0, &g16__p1_generator_affine, &g16__p2_generator_affine);
    check(g16__fp12_eq(&e1, &e2), "pairing bilinearity: e(aP, bQ) = e(abP, Q)");
    check(!g16__fp12_is_one(&e0), "pairing non-degeneracy: e(G1, G2) != 1");
    g16_p1_affine ps[2] = {aa, aab};
    g16_p2_affine qs[2] = {bq, g16__p2_generator_affine};
    g16__p1_affine_neg(&ps[1], &ps[1]);
    g16_fp12 m;
    g16__multi_pairing(&m, ps, qs, 2);
    check(g16__fp12_is_one(&m), "multi-pairing: e(aP, bQ) * e(-abP, Q) = 1");
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define TIME_OP(label, iters, body)                                                                              \
    do {                                                                                                         \
        double t0_ = now_ns();                                                                                   \
        for (long i_ = 0; i_ < (iters); i_++) {                                                                  \
            body;                                                                                                \
        }                                                                                                        \
        double per_ = (now_ns() - t0_) / (iters);                                                                \
        if (per_ >= 1e6)                                                                                         \
            printf("  %-28s %10.3f ms\n", label, per_ / 1e6);                                                    \
        else if (per_ >= 1e3)                                                                                    \
            printf("  %-28s %10.3f us\n", label, per_ / 1e3);                                                    \
        else                                                                                                     \
            printf("  %-28s %10.1f ns\n", label, per_);                                                          \
    } while (0)

static void timing_table(g16__rng *rng)
{
    g16_fp a, b;
    g16_fr x, y, k;
    g16__fp_random(&a, rng);
    g16__fp_random(&b, rng);
    g16__fr_random(&x, rng);
    g16__fr_random(&y, rng);
    g16__fr_random(&k, rng);
    g16_p1 p1;
    g16_p2 p2;
    g16__p1_generator(&p1);
    g16__p2_generator(&p2);
    g16_p1_affine q1 = g16__p1_generator_affine;
    g16_p2_affine q2 = g16__p2_generator_affine;
    g16__p1_mul_var(&p1, &p1, &k);
    g16__p2_mul_var(&p2, &p2, &k);
    g16_fp12 e;

    printf("\ntiming (one thread; this machine is noisy: compare ratios within a run)\n");
    TIME_OP("fp_mul", 200000, g16__fp_mul(&a, &a, &b));
    TIME_OP("fr_mul", 200000, g16__fr_mul(&x, &x, &y));
    TIME_OP("fp_inv_var", 2000, g16__fp_inv_var(&a, &a));
    TIME_OP("g1 mixed add", 50000, g16__p1_add_affine_var(&p1, &p1, &q1));
    TIME_OP("g2 mixed add", 20000, g16__p2_add_affine_var(&p2, &p2, &q2));
    TIME_OP("g1 scalar mul (_var)", 200, g16__p1_mul_var(&p1, &p1, &k));
    TIME_OP("g2 scalar mul (_var)", 100, g16__p2_mul_var(&p2, &p2, &k));
    TIME_OP("pairing", 20, g16__pairing(&e, &q1, &q2));
    volatile uint64_t sink = a.l[0] ^ x.l[0] ^ p1.x.l[0] ^ p2.x.c0.l[0] ^ e.c0.c0.c0.l[0];
    (void)sink;
}

int g16__app_selftest(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    uint64_t seed;
    const char *env = getenv("G16_SEED");
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else if (g16__random_bytes_os(&seed, sizeof seed) != G16_OK) {
        seed = (uint64_t)time(NULL);
    }
    g16__rng rng;
    g16__rng_init_seeded(&rng, seed);
    printf("g16 %s selftest (seed %llu; replay with G16_SEED=%llu)\n", g16_version(), (unsigned long long)seed,
           (unsigned long long)seed);
    printf("Fp multiplication: %s\n", g16__fp_have_mulx() ? "x86-64 MULX/ADX" : "portable (unsigned __int128)");
    check_fields(&rng);
    check_groups(&rng);
    check_pairing(&rng);
    if (failures) {
        printf("selftest: %d check(s) FAILED\n", failures);
        return 1;
    }
    timing_table(&rng);
    printf("\nselftest: all checks passed\n");
    return 0;
}
