/*
 * Fp8 (src/field/fp8.c): the eight-lane IFMA multiplication and its portable twin against the
 * scalar Fp multiplication and GMP. Lanes get random elements, edge values (0, 1, p-1, p-2,
 * values just below p, R mod p) and mixes of both; the IFMA and portable back ends must give the
 * same limbs, every lane must equal g16__fp_mul (g16__fp_add, _sub, _neg, _dbl) of its inputs,
 * conversions must match GMP, and outputs may alias inputs. Without AVX-512 IFMA (or with G16_ASM=OFF) only the portable back end
 * runs (and the test says so).
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "field/fp.h"
#include "field/fp8.h"

#define NEDGE 8

/* Edge elements by canonical value: 0, 1, p-1, p-2, p-2^64, p-2^200, 2^380, R mod p. */
static void edge_fp(g16_fp *r, int i)
{
    mpz_t z, p;
    mpz_inits(z, p, NULL);
    tu_mpz_p(p);
    switch (i) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_sub_ui(z, p, 1); break;
    case 3: mpz_sub_ui(z, p, 2); break;
    case 4: mpz_ui_pow_ui(z, 2, 64); mpz_sub(z, p, z); break;
    case 5: mpz_ui_pow_ui(z, 2, 200); mpz_sub(z, p, z); break;
    case 6: mpz_ui_pow_ui(z, 2, 380); break;
    default: mpz_ui_pow_ui(z, 2, 384); mpz_mod(z, z, p); break;
    }
    tu_fp_from_mpz(r, z);
    mpz_clears(z, p, NULL);
}

/* Lane k of a: kind 0 random, 1 edge values, 2 random lanes mixed with edge lanes. */
static void fill_lanes(g16_fp a[8], int kind, int round)
{
    for (int k = 0; k < 8; k++) {
        if (kind == 1 || (kind == 2 && (tu_rand64() & 1)))
            edge_fp(&a[k], (int)((k + round) % NEDGE));
        else
            tu_rand_fp(&a[k]);
    }
}

/* 52-bit limbs of lane k as an mpz. */
static void lane_to_mpz(mpz_t z, const g16__fp8 *v, int k)
{
    mpz_set_ui(z, 0);
    for (int j = 7; j >= 0; j--) {
        mpz_mul_2exp(z, z, 52);
        mpz_add_ui(z, z, v->l[j][k]);
    }
}

static void check_limbs_52(const g16__fp8 *v)
{
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 8; k++)
            assert_true(v->l[j][k] < (1ULL << 52));
}

/* from_fp against GMP: lane k must hold x·2^416 mod p, fully reduced; to_fp must undo it. */
static void test_fp8_convert(void **state)
{
    (void)state;
    mpz_t p, x, want, got;
    mpz_inits(p, x, want, got, NULL);
    tu_mpz_p(p);
    int iters = tu_iters(200);
    for (int it = 0; it < iters; it++) {
        g16_fp a[8], back[8];
        g16__fp8 v;
        fill_lanes(a, it % 3, it);
        g16__fp8_from_fp(&v, a);
        check_limbs_52(&v);
        for (int k = 0; k < 8; k++) {
            tu_fp_to_mpz(x, &a[k]);
            mpz_mul_2exp(want, x, 416);
            mpz_mod(want, want, p);
            lane_to_mpz(got, &v, k);
            assert_int_equal(mpz_cmp(got, want), 0);
        }
        g16__fp8_to_fp(back, &v);
        assert_memory_equal(back, a, sizeof a);
    }
    mpz_clears(p, x, want, got, NULL);
}

/* One product checked every way: back ends agree limb for limb, lanes equal the scalar product,
 * and aliasing r = a, r = b gives the same result. */
static void check_mul(const g16_fp a[8], const g16_fp b[8])
{
    g16__fp8 va, vb, r_port, r, t;
    g16_fp got[8];
    g16__fp8_from_fp(&va, a);
    g16__fp8_from_fp(&vb, b);

    g16__fp8_mul_portable(&r_port, &va, &vb);
    check_limbs_52(&r_port);
#if defined(__x86_64__)
    if (g16__fp8_have_ifma()) {
        g16__fp8_mul_ifma(&r, &va, &vb);
        assert_memory_equal(&r, &r_port, sizeof r);
    }
#endif
    g16__fp8_mul(&r, &va, &vb); /* dispatch */
    assert_memory_equal(&r, &r_port, sizeof r);

    g16__fp8_to_fp(got, &r);
    for (int k = 0; k < 8; k++) {
        g16_fp want;
        g16__fp_mul(&want, &a[k], &b[k]);
        assert_memory_equal(&got[k], &want, sizeof want);
    }

    t = va;
    g16__fp8_mul(&t, &t, &vb); /* r = a */
    assert_memory_equal(&t, &r, sizeof t);
    t = vb;
    g16__fp8_mul(&t, &va, &t); /* r = b */
    assert_memory_equal(&t, &r, sizeof t);
    g16__fp8_mul_portable(&r_port, &va, &va);
    t = va;
    g16__fp8_sqr(&t, &t); /* r = a = b */
    assert_memory_equal(&t, &r_port, sizeof t);
#if defined(__x86_64__)
    if (g16__fp8_have_ifma()) {
        g16__fp8 u = vb;
        t = va;
        g16__fp8_mul2_ifma(&t, &t, &vb, &u, &va, &u); /* both outputs alias an input */
        assert_memory_equal(&t, &r, sizeof t);
        assert_memory_equal(&u, &r, sizeof u);
        g16__fp8_mul2_ifma(&t, &va, &va, &u, &vb, &va);
        assert_memory_equal(&u, &r, sizeof u);
        g16__fp8_mul_portable(&r_port, &va, &va);
        assert_memory_equal(&t, &r_port, sizeof t);
        g16__fp8_sqr_ifma(&t, &vb);
        g16__fp8_mul_portable(&r_port, &vb, &vb);
        assert_memory_equal(&t, &r_port, sizeof t);
    }
#endif
}

/* check(a, b) on random lanes (it-th pair: a seeded it, b seeded it·bm + ba), then on every pair
 * of edge values in every lane position. */
static void over_inputs(void (*check)(const g16_fp a[8], const g16_fp b[8]), int bm, int ba)
{
    int iters = tu_iters(500);
    for (int it = 0; it < iters; it++) {
        g16_fp a[8], b[8];
        fill_lanes(a, it % 3, it);
        fill_lanes(b, (it / 3) % 3, it * bm + ba);
        check(a, b);
    }
    for (int i = 0; i < NEDGE; i++) {
        g16_fp a[8], b[8];
        for (int k = 0; k < 8; k++) {
            edge_fp(&a[k], i);
            edge_fp(&b[k], k);
        }
        check(a, b);
    }
}

static void test_fp8_mul(void **state)
{
    (void)state;
    if (!g16__fp8_have_ifma())
        fprintf(stderr, "test_fp8: no AVX-512 IFMA here (or G16_ASM=OFF): portable back end only\n");
    over_inputs(check_mul, 7, 1);
}

/* Additive operations: both back ends (via the dispatch switch) give the same limbs, lanes equal
 * the scalar g16__fp_add/sub/neg/dbl, and r may alias a or b. */
static void check_additive(const g16_fp a[8], const g16_fp b[8])
{
    g16__fp8 va, vb, r[4], rp[4], t;
    g16_fp got[8], want;
    g16__fp8_from_fp(&va, a);
    g16__fp8_from_fp(&vb, b);
    g16__fp8_add(&r[0], &va, &vb);
    g16__fp8_sub(&r[1], &va, &vb);
    g16__fp8_neg(&r[2], &va);
    g16__fp8_dbl(&r[3], &va);
    g16__fp8_force_portable(1);
    g16__fp8_add(&rp[0], &va, &vb);
    g16__fp8_sub(&rp[1], &va, &vb);
    g16__fp8_neg(&rp[2], &va);
    g16__fp8_dbl(&rp[3], &va);
    g16__fp8_force_portable(0);
    assert_memory_equal(r, rp, sizeof r);
    for (int op = 0; op < 4; op++) {
        check_limbs_52(&r[op]);
        g16__fp8_to_fp(got, &r[op]);
        for (int k = 0; k < 8; k++) {
            switch (op) {
            case 0: g16__fp_add(&want, &a[k], &b[k]); break;
            case 1: g16__fp_sub(&want, &a[k], &b[k]); break;
            case 2: g16__fp_neg(&want, &a[k]); break;
            default: g16__fp_dbl(&want, &a[k]); break;
            }
            assert_memory_equal(&got[k], &want, sizeof want);
        }
    }
    t = va;
    g16__fp8_add(&t, &t, &vb);
    assert_memory_equal(&t, &r[0], sizeof t);
    t = vb;
    g16__fp8_sub(&t, &va, &t);
    assert_memory_equal(&t, &r[1], sizeof t);
    t = va;
    g16__fp8_neg(&t, &t);
    assert_memory_equal(&t, &r[2], sizeof t);
}

static void test_fp8_additive(void **state)
{
    (void)state;
    over_inputs(check_additive, 5, 2);
}

#if G16__FP8_HAVE_X86
/* fp8.h's register helpers (AVX-512 only). Lazy results: limbs < 2^52, value < 2p (<= 2p for
 * negsub) and congruent to the canonical result; the IFMA product of lazy operands equals the
 * product of their canonical forms; canonical results (sub, reduce3) equal g16__fp8_sub chains. */
__attribute__((target("avx512f,avx512ifma"))) static void run_helpers(const g16__fp8 *va, const g16__fp8 *vb,
                                                                      unsigned neg, g16__fp8 out[5], unsigned *eq)
{
    g16__fp8v a, b, r, d;
    g16__fp8v_load(&a, va);
    g16__fp8v_load(&b, vb);
    g16__fp8v_sub_lazy(&r, &a, &b);
    g16__fp8v_store(&out[0], &r);
    g16__fp8v_negsub_lazy(&r, &a, &b, neg);
    g16__fp8v_store(&out[1], &r);
    g16__fp8v_sub(&r, &a, &b);
    g16__fp8v_store(&out[2], &r);
    for (int j = 0; j < 8; j++) /* a − (b + b), b + b as unnormalized limb sums (the MSM's x_B + x_P) */
        d.v[j] = _mm512_sub_epi64(a.v[j], _mm512_add_epi64(b.v[j], b.v[j]));
    g16__fp8v_reduce3(&r, &d);
    g16__fp8v_store(&out[3], &r);
    g16__fp8v_transpose(a.v); /* twice: the identity */
    g16__fp8v_transpose(a.v);
    g16__fp8v_store(&out[4], &a);
    *eq = g16__fp8v_eq(&a, &b);
}

static void check_lazy_lane(const g16__fp8 *v, int k, const mpz_t want, const mpz_t bound)
{
    mpz_t z, p;
    mpz_inits(z, p, NULL);
    tu_mpz_p(p);
    lane_to_mpz(z, v, k);
    assert_true(mpz_cmp(z, bound) <= 0);
    mpz_mod(z, z, p);
    assert_true(mpz_cmp(z, want) == 0);
    mpz_clears(z, p, NULL);
}

static void check_helpers(const g16_fp a[8], const g16_fp b[8])
{
    g16__fp8 va, vb, out[5], t, u, w;
    unsigned eq, neg = (unsigned)tu_rand64() & 0xffu;
    mpz_t za, zb, want, p, p2m1, p2;
    mpz_inits(za, zb, want, p, p2m1, p2, NULL);
    tu_mpz_p(p);
    mpz_mul_2exp(p2, p, 1);
    mpz_sub_ui(p2m1, p2, 1);
    g16__fp8_from_fp(&va, a);
    g16__fp8_from_fp(&vb, b);
    run_helpers(&va, &vb, neg, out, &eq);
    for (int i = 0; i < 2; i++)
        check_limbs_52(&out[i]);
    for (int k = 0; k < 8; k++) {
        lane_to_mpz(za, &va, k);
        lane_to_mpz(zb, &vb, k);
        mpz_sub(want, za, zb);
        mpz_mod(want, want, p);
        check_lazy_lane(&out[0], k, want, p2m1);
        mpz_neg(want, za);
        if (!((neg >> k) & 1))
            mpz_set(want, za);
        mpz_sub(want, want, zb);
        mpz_mod(want, want, p);
        check_lazy_lane(&out[1], k, want, p2);
        assert_int_equal((eq >> k) & 1, mpz_cmp(za, zb) == 0);
    }
    g16__fp8_sub(&t, &va, &vb);
    assert_memory_equal(&out[2], &t, sizeof t);
    g16__fp8_sub(&u, &t, &vb);
    assert_memory_equal(&out[3], &u, sizeof u);
    assert_memory_equal(&out[4], &va, sizeof va);
    /* lazy operands into the product: the canonical product of the canonical values */
    g16__fp8_neg(&w, &va);
    for (int k = 0; k < 8; k++) /* w = the canonical ±a − b */
        for (int j = 0; j < 8; j++)
            if (!((neg >> k) & 1))
                w.l[j][k] = va.l[j][k];
    g16__fp8_sub(&w, &w, &vb);
    g16__fp8_sqr_ifma(&u, &out[1]); /* the squaring, lazy input up to 2p */
    g16__fp8_mul(&t, &w, &w);
    assert_memory_equal(&u, &t, sizeof t);
    g16__fp8_mul_ifma(&u, &out[0], &out[1]);
    g16__fp8_sub(&t, &va, &vb);
    g16__fp8_mul(&t, &t, &w);
    assert_memory_equal(&u, &t, sizeof t);
    /* lazy products (< 2p, limbs < 2^52; the MSM batch chains them) of lazy operands: each lane
     * congruent to the canonical product of the same operands */
    g16__fp8 l0, l1, l2, c1, c2;
    g16__fp8_mul_lazy_ifma(&l0, &out[0], &out[1]);
    g16__fp8_mul2_lazy_ifma(&l1, &out[1], &out[1], &l2, &l0, &out[0]);
    g16__fp8_mul_ifma(&c1, &out[1], &out[1]);
    g16__fp8_mul_ifma(&c2, &u, &out[0]); /* u: the canonical out[0]·out[1] */
    check_limbs_52(&l0);
    check_limbs_52(&l1);
    check_limbs_52(&l2);
    for (int k = 0; k < 8; k++) {
        lane_to_mpz(want, &u, k);
        check_lazy_lane(&l0, k, want, p2m1);
        lane_to_mpz(want, &c1, k);
        check_lazy_lane(&l1, k, want, p2m1);
        lane_to_mpz(want, &c2, k);
        check_lazy_lane(&l2, k, want, p2m1);
    }
    mpz_clears(za, zb, want, p, p2m1, p2, NULL);
}

static void test_fp8v_helpers(void **state)
{
    (void)state;
    if (!g16__fp8_have_ifma()) {
        fprintf(stderr, "test_fp8: no AVX-512 IFMA here: register helpers not run\n");
        return;
    }
    over_inputs(check_helpers, 11, 3);
}
#else
static void test_fp8v_helpers(void **state) { (void)state; }
#endif

/* Single elements in lane format: g16__fp52_from_fp against GMP, round trip, and gather/scatter
 * agree with the eight-lane conversions. */
static void test_fp52_gather_scatter(void **state)
{
    (void)state;
    mpz_t p, x, want, got;
    mpz_inits(p, x, want, got, NULL);
    tu_mpz_p(p);
    int iters = tu_iters(200);
    for (int it = 0; it < iters; it++) {
        g16_fp a[8], back[8];
        g16__fp52 e[8], e2[8];
        const g16__fp52 *ce[8];
        g16__fp52 *pe[8];
        g16__fp8 v, w;
        fill_lanes(a, it % 3, it);
        for (int k = 0; k < 8; k++) {
            g16__fp52_from_fp(&e[k], &a[k]);
            tu_fp_to_mpz(x, &a[k]);
            mpz_mul_2exp(want, x, 416);
            mpz_mod(want, want, p);
            mpz_set_ui(got, 0);
            for (int j = 7; j >= 0; j--) {
                assert_true(e[k].l[j] < (1ULL << 52));
                mpz_mul_2exp(got, got, 52);
                mpz_add_ui(got, got, e[k].l[j]);
            }
            assert_int_equal(mpz_cmp(got, want), 0);
            g16__fp52_to_fp(&back[k], &e[k]);
            assert_memory_equal(&back[k], &a[k], sizeof back[k]);
            ce[k] = &e[7 - k]; /* lanes in reverse order: gather must follow the pointers */
            pe[k] = &e2[7 - k];
        }
        g16_fp rev[8];
        for (int k = 0; k < 8; k++)
            rev[k] = a[7 - k];
        g16__fp8_from_fp(&w, rev);
        for (int portable = 0; portable < 2; portable++) { /* the AVX-512 transposes (with IFMA) and the loops */
            g16__fp8_force_portable(portable);
            memset(&v, 0xa5, sizeof v);
            memset(e2, 0x5a, sizeof e2);
            g16__fp8_gather(&v, ce);
            assert_memory_equal(&v, &w, sizeof v);
            g16__fp8_scatter(pe, &v);
            assert_memory_equal(e2, e, sizeof e);
        }
        g16__fp8_force_portable(0);
    }
    mpz_clears(p, x, want, got, NULL);
}

/* The dispatch switch really switches, and both settings give the same answers. */
static void test_fp8_force_portable(void **state)
{
    (void)state;
    g16_fp a[8], b[8];
    g16__fp8 va, vb, r1, r2;
    fill_lanes(a, 0, 0);
    fill_lanes(b, 2, 1);
    g16__fp8_from_fp(&va, a);
    g16__fp8_from_fp(&vb, b);
    g16__fp8_force_portable(1);
    g16__fp8_mul(&r1, &va, &vb);
    g16__fp8_force_portable(0);
    g16__fp8_mul(&r2, &va, &vb);
    assert_memory_equal(&r1, &r2, sizeof r1);
}

int main(void)
{
    tu_seed("test_fp8");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp8_convert),
        cmocka_unit_test(test_fp8_mul),
        cmocka_unit_test(test_fp8_additive),
        cmocka_unit_test(test_fp8v_helpers),
        cmocka_unit_test(test_fp52_gather_scatter),
        cmocka_unit_test(test_fp8_force_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
