/*
 * MSM (src/msm) against the naive Σ k_i·P_i of the curve layer (g16__pN_mul_var, add_var).
 *
 * The naive sums are computed once per random input set as prefix sums, so every prefix
 * length n (0, 1, 2, 3, 2^k ± 1, ...) is checked for the price of the longest one.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "msm/msm.h"
#include "msm/msm_internal.h"
#include "msm/msm_g1_fp8.h"

/* ---------------- MSM paths ---------------- */

/* G1 has two bucket-accumulation paths: scalar Fp and eight Fp8 lanes (src/msm/msm_g1_fp8.h).
 * With G16_MSM_FP8 unset, every G1 MSM checked in this file runs on both (the lanes forced with
 * G16_MSM_FP8=1: the portable Fp8 code on a CPU without IFMA) and they must give the same bits;
 * with it set, only the path it names runs (G16_MSM_FP8=0 test_msm: the scalar path alone). */
static g16_status p1_msm_paths(g16_p1 *r, const g16_p1_affine *b, const g16_fr *k, size_t n,
                               const g16__msm_opts *o, g16_error *e)
{
    const char *env = getenv("G16_MSM_FP8");
    if (env && *env)
        return g16__p1_msm_var(r, b, k, n, o, e);
    g16_p1 r0;
    setenv("G16_MSM_FP8", "1", 1);
    g16_status st = g16__p1_msm_var(r, b, k, n, o, e);
    setenv("G16_MSM_FP8", "0", 1);
    g16_status st0 = g16__p1_msm_var(&r0, b, k, n, o, e);
    unsetenv("G16_MSM_FP8");
    assert_int_equal(st, st0);
    if (st == G16_OK)
        assert_memory_equal(r, &r0, sizeof r0);
    return st;
}

static g16_status p2_msm_paths(g16_p2 *r, const g16_p2_affine *b, const g16_fr *k, size_t n,
                               const g16__msm_opts *o, g16_error *e)
{
    return g16__p2_msm_var(r, b, k, n, o, e);
}

/* ---------------- group-generic helpers (G1 and G2 through macros) ---------------- */

#define DEFINE_HELPERS(P, AFF, JAC)                                                                              \
    /* n random points of the subgroup: a few random multiples of the generator, then sums */                \
    static void P##_rand_points(AFF *out, size_t n)                                                          \
    {                                                                                                        \
        JAC g, q[4], acc;                                                                                    \
        JAC *tmp = malloc((n ? n : 1) * sizeof *tmp);                                                        \
        assert_non_null(tmp);                                                                                \
        g16__##P##_generator(&g);                                                                            \
        for (int i = 0; i < 4; i++) {                                                                        \
            g16_fr k;                                                                                        \
            tu_rand_fr(&k);                                                                                  \
            g16__##P##_mul_var(&q[i], &g, &k);                                                               \
        }                                                                                                    \
        g16__##P##_mul_var(&acc, &g, &(g16_fr){{tu_rand64(), tu_rand64(), 0, 0}});                            \
        for (size_t i = 0; i < n; i++) {                                                                     \
            g16__##P##_add_var(&acc, &acc, &q[tu_rand64() % 4]);                                             \
            if (tu_rand64() % 8 == 0)                                                                        \
                g16__##P##_dbl(&acc, &acc);                                                                  \
            tmp[i] = acc;                                                                                    \
        }                                                                                                    \
        g16__##P##_batch_to_affine(out, tmp, n);                                                             \
        free(tmp);                                                                                           \
    }                                                                                                        \
    /* pre[i] = Σ_{j<i} k_j·P_j for i <= n */                                                                \
    static void P##_naive_prefix(JAC *pre, const AFF *b, const g16_fr *k, size_t n)                          \
    {                                                                                                        \
        g16__##P##_set_infinity(&pre[0]);                                                                    \
        for (size_t i = 0; i < n; i++) {                                                                     \
            JAC t;                                                                                           \
            g16__##P##_from_affine(&t, &b[i]);                                                               \
            g16__##P##_mul_var(&t, &t, &k[i]);                                                               \
            g16__##P##_add_var(&pre[i + 1], &pre[i], &t);                                                    \
        }                                                                                                    \
    }                                                                                                        \
    /* the MSM output is normalized: Z = 1 unless infinity */                                                \
    static void P##_check(const JAC *got, const JAC *want)                                                   \
    {                                                                                                        \
        assert_true(g16__##P##_eq(got, want));                                                               \
        if (!g16__##P##_is_infinity(got)) {                                                                  \
            JAC one;                                                                                         \
            g16__##P##_from_affine(&one, &(AFF){got->x, got->y});                                            \
            assert_memory_equal(&one.z, &got->z, sizeof got->z);                                             \
        }                                                                                                    \
    }                                                                                                        \
    static void P##_msm_ok(JAC *r, const AFF *b, const g16_fr *k, size_t n, const g16__msm_opts *o)          \
    {                                                                                                        \
        g16_error e = {0};                                                                                   \
        g16_status st = P##_msm_paths(r, b, k, n, o, &e);                                                    \
        if (st != G16_OK)                                                                                    \
            fail_msg("msm n=%zu: %s (%s)", n, g16_strerror(st), e.msg);                                      \
    }

DEFINE_HELPERS(p1, g16_p1_affine, g16_p1)
DEFINE_HELPERS(p2, g16_p2_affine, g16_p2)

static void fr_from_u64_signed(g16_fr *r, int64_t v)
{
    g16__fr_from_u64(r, (uint64_t)(v < 0 ? -v : v));
    if (v < 0)
        g16__fr_neg(r, r);
}

/* Scalars of the Filecoin mix: zeros, ones, random and (rarely) small or r−1. */
static void rand_scalars_mixed(g16_fr *k, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u = tu_rand64() % 100;
        if (u < 35)
            g16__fr_set_zero(&k[i]);
        else if (u < 70)
            g16__fr_set_one(&k[i]);
        else if (u < 75)
            fr_from_u64_signed(&k[i], (int64_t)(tu_rand64() % 64) - 32);
        else
            tu_rand_fr(&k[i]);
    }
}

/* ---------------- Booth digits ---------------- */

static void test_booth_digits(void **state)
{
    (void)state;
    mpz_t k, sum, t, rr;
    mpz_inits(k, sum, t, rr, NULL);
    tu_mpz_r(rr);
    for (int it = 0; it < tu_iters(300); it++) {
        g16_fr f;
        uint64_t l[4];
        tu_rand_fr(&f);
        if (it == 0)
            g16__fr_set_zero(&f);
        if (it == 1)
            g16__fr_set_one(&f);
        if (it == 2)
            g16__fr_neg(&f, &g16__fr_one); /* r − 1 */
        g16__fr_to_limbs(l, &f);
        tu_fr_to_mpz(k, &f);
        for (unsigned c = 1; c <= 20; c++) {
            unsigned nwin = (256 + c - 1) / c;
            mpz_set_ui(sum, 0);
            for (unsigned w = nwin; w-- > 0;) {
                int64_t d = g16__msm_booth_digit(l, w, c);
                assert_true(d <= (1LL << (c - 1)) && d >= -(1LL << (c - 1)));
                mpz_mul_2exp(sum, sum, c);
                if (d >= 0)
                    mpz_add_ui(sum, sum, (unsigned long)d);
                else
                    mpz_sub_ui(sum, sum, (unsigned long)-d);
            }
            assert_int_equal(mpz_cmp(sum, k), 0);
        }
    }
    mpz_clears(k, sum, t, rr, NULL);
}

/* ---------------- random inputs, all prefix lengths ---------------- */

static const size_t prefix_lengths[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 127, 129,
                                        255, 257, 511, 513, 1023, 1025, 2047, 2049, 4095, 4097};

static void run_prefixes_p1(size_t nmax, int mixed)
{
    g16_p1_affine *b = malloc(nmax * sizeof *b);
    g16_fr *k = malloc(nmax * sizeof *k);
    g16_p1 *pre = malloc((nmax + 1) * sizeof *pre);
    assert_true(b && k && pre);
    p1_rand_points(b, nmax);
    if (mixed)
        rand_scalars_mixed(k, nmax);
    else
        for (size_t i = 0; i < nmax; i++)
            tu_rand_fr(&k[i]);
    p1_naive_prefix(pre, b, k, nmax);
    for (size_t i = 0; i < sizeof prefix_lengths / sizeof *prefix_lengths; i++) {
        size_t n = prefix_lengths[i];
        if (n > nmax)
            break;
        g16_p1 r;
        p1_msm_ok(&r, b, k, n, NULL);
        p1_check(&r, &pre[n]);
        if (n > 1025)
            continue; /* the other configurations are exercised enough below */
        g16__msm_opts o = {.nthreads = 1};
        p1_msm_ok(&r, b, k, n, &o);
        p1_check(&r, &pre[n]);
        o.nthreads = 3;
        o.accum = G16__MSM_ACCUM_AFFINE; /* also for the small n that default to XYZZ */
        p1_msm_ok(&r, b, k, n, &o);
        p1_check(&r, &pre[n]);
    }
    free(b);
    free(k);
    free(pre);
}

static void test_p1_random(void **state)
{
    (void)state;
    run_prefixes_p1(2049, 0);
}

static void test_p1_filecoin_mix(void **state)
{
    (void)state;
    run_prefixes_p1(4097, 1);
}

/* Every window size up to 11 (larger ones cost seconds of bucket reduction here) and both
 * accumulation modes on one input, batch sizes down to 2. */
static void test_p1_windows_and_modes(void **state)
{
    (void)state;
    size_t n = 300;
    g16_p1_affine b[300];
    g16_fr k[300];
    g16_p1 pre[301], r;
    p1_rand_points(b, n);
    rand_scalars_mixed(k, n);
    for (size_t i = 0; i < n; i += 2)
        tu_rand_fr(&k[i]);
    p1_naive_prefix(pre, b, k, n);
    for (unsigned c = 1; c <= 11; c++) {
        for (int accum = 1; accum <= 2; accum++) {
            g16__msm_opts o = {.nthreads = 1, .window = c, .accum = accum, .batch = (unsigned)(2 + c % 5)};
            p1_msm_ok(&r, b, k, n, &o);
            p1_check(&r, &pre[n]);
        }
    }
}

/* ---------------- edge cases ---------------- */

/* The MSM under several configurations (default; one thread with tiny batches, so that
 * pending lists and overflow buckets fill up; XYZZ buckets on two threads) against want. */
static void p1_check_all(const g16_p1_affine *b, const g16_fr *k, size_t n, const g16_p1 *want)
{
    const g16__msm_opts opts[] = {
        {0},
        {.nthreads = 1, .accum = G16__MSM_ACCUM_AFFINE, .batch = 6, .window = 6},
        {.nthreads = 2, .accum = G16__MSM_ACCUM_XYZZ},
    };
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        g16_p1 r;
        p1_msm_ok(&r, b, k, n, &opts[i]);
        p1_check(&r, want);
    }
}

/* want = c·Σ P_i (an oracle for "all scalars equal" that needs one multiplication) */
static void p1_scaled_sum(g16_p1 *want, const g16_p1_affine *b, size_t n, const g16_fr *c)
{
    g16_p1 t;
    g16__p1_set_infinity(want);
    for (size_t i = 0; i < n; i++) {
        g16__p1_from_affine(&t, &b[i]);
        g16__p1_add_var(want, want, &t);
    }
    g16__p1_mul_var(want, want, c);
}

static void test_p1_edge_cases(void **state)
{
    (void)state;
    enum { N = 500 };
    g16_p1_affine *b = malloc(N * sizeof *b), *b2 = malloc(N * sizeof *b2);
    g16_fr *k = malloc(N * sizeof *k);
    g16_p1 *pre = malloc((N + 1) * sizeof *pre);
    assert_true(b && b2 && k && pre);
    g16_p1 want, inf;
    g16_fr c, minus1;
    g16__p1_set_infinity(&inf);
    g16__fr_neg(&minus1, &g16__fr_one);
    p1_rand_points(b, N);

    /* all scalars zero; all one */
    memset(k, 0, N * sizeof *k);
    p1_check_all(b, k, N, &inf);
    for (size_t i = 0; i < N; i++)
        g16__fr_set_one(&k[i]);
    p1_scaled_sum(&want, b, N, &g16__fr_one);
    p1_check_all(b, k, N, &want);

    /* all scalars equal (random, small, r − 1): every window piles into one bucket */
    for (int v = 0; v < 3; v++) {
        if (v == 0)
            tu_rand_fr(&c);
        else if (v == 1)
            g16__fr_from_u64(&c, 3);
        else
            c = minus1;
        for (size_t i = 0; i < N; i++)
            k[i] = c;
        p1_scaled_sum(&want, b, N, &c);
        p1_check_all(b, k, N, &want);
    }

    /* one base repeated with one scalar: bucket additions double (P + P), then add */
    tu_rand_fr(&c);
    for (size_t i = 0; i < N; i++) {
        b2[i] = b[0];
        k[i] = c;
    }
    p1_scaled_sum(&want, b2, N, &c);
    p1_check_all(b2, k, N, &want);

    /* P and −P with equal scalars in the same batch: buckets cancel to infinity, then refill */
    for (size_t i = 0; i < N; i++) {
        b2[i] = b[i / 4];
        if (i % 2)
            g16__p1_affine_neg(&b2[i], &b2[i]);
        if (i % 4 == 0)
            tu_rand_fr(&k[i]);
        else
            k[i] = k[i - i % 4];
    }
    p1_check_all(b2, k, N, &inf);

    /* scalar r − 1 against scalar 1 on the same base: the sum is infinity */
    b2[0] = b[3];
    b2[1] = b[3];
    k[0] = minus1;
    g16__fr_set_one(&k[1]);
    p1_check_all(b2, k, 2, &inf);

    /* naive oracle from here on: repeated bases with random scalars, bases at infinity
     * (with all kinds of scalars) scattered, few distinct scalars (many equal buckets) */
    for (int v = 0; v < 3; v++) {
        g16_fr few[3];
        for (int i = 0; i < 3; i++)
            tu_rand_fr(&few[i]);
        for (size_t i = 0; i < N; i++) {
            b2[i] = v == 0 ? b[tu_rand64() % 5] : b[i];
            if (v == 2)
                k[i] = few[tu_rand64() % 3];
        }
        if (v == 0)
            for (size_t i = 0; i < N; i++)
                tu_rand_fr(&k[i]);
        if (v == 1) {
            rand_scalars_mixed(k, N);
            for (size_t i = 0; i < N; i += 1 + tu_rand64() % 7)
                memset(&b2[i], 0, sizeof b2[i]);
        }
        p1_naive_prefix(pre, b2, k, N);
        p1_check_all(b2, k, N, &pre[N]);
    }
    free(b);
    free(b2);
    free(k);
    free(pre);
}

/* The bits of the result do not depend on the thread count (nor on the window). */
static void test_p1_threads_identical(void **state)
{
    (void)state;
    enum { N = 3000 };
    g16_p1_affine *b = malloc(N * sizeof *b);
    g16_fr *k = malloc(N * sizeof *k);
    assert_true(b && k);
    p1_rand_points(b, N);
    rand_scalars_mixed(k, N);
    g16_p1 r1, r;
    g16__msm_opts o = {.nthreads = 1};
    p1_msm_ok(&r1, b, k, N, &o);
    const int counts[] = {2, 3, 4, 7, 16, 0};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++) {
        o.nthreads = counts[i];
        p1_msm_ok(&r, b, k, N, &o);
        assert_memory_equal(&r, &r1, sizeof r);
    }
    o = (g16__msm_opts){.nthreads = 2, .window = 5};
    p1_msm_ok(&r, b, k, N, &o);
    assert_memory_equal(&r, &r1, sizeof r);
    free(b);
    free(k);
}

/* A larger MSM split into point ranges and several ranges of ones (as on a many-core machine):
 * against an XYZZ-bucket, other-window run on one thread, and the ones alone against Σ P_i. */
static void test_p1_large_split(void **state)
{
    (void)state;
    enum { N = 40000 };
    g16_p1_affine *b = malloc(N * sizeof *b);
    g16_fr *k = malloc(N * sizeof *k);
    assert_true(b && k);
    p1_rand_points(b, N);
    for (size_t i = 0; i < N; i++) {
        uint64_t u = tu_rand64() % 10;
        if (u < 6)
            g16__fr_set_one(&k[i]);
        else if (u < 7)
            g16__fr_set_zero(&k[i]);
        else
            tu_rand_fr(&k[i]);
    }
    g16_p1 r8, r1, want, t;
    g16__msm_opts o8 = {.nthreads = 8}, o1 = {.nthreads = 1, .accum = G16__MSM_ACCUM_XYZZ, .window = 9};
    p1_msm_ok(&r8, b, k, N, &o8);
    p1_msm_ok(&r1, b, k, N, &o1);
    p1_check(&r8, &r1);
    assert_memory_equal(&r8, &r1, sizeof r8);
    g16__msm_opts o3 = {.nthreads = 3, .lane_slice = 7000}; /* lane path: 4 parts of ones, 2 of others */
    p1_msm_ok(&r8, b, k, N, &o3);
    assert_memory_equal(&r8, &r1, sizeof r8);
    for (size_t i = 0; i < N; i++)
        g16__fr_set_one(&k[i]);
    g16__p1_set_infinity(&want);
    for (size_t i = 0; i < N; i++) {
        g16__p1_from_affine(&t, &b[i]);
        g16__p1_add_var(&want, &want, &t);
    }
    g16__msm_opts o4 = {.nthreads = 4};
    p1_msm_ok(&r8, b, k, N, &o4);
    p1_check(&r8, &want);
    free(b);
    free(k);
}

/* Full-size batches on the lane path: 8192 points from 16 bases and their negatives with three
 * scalar values, so that most groups of eight lanes mix additions, doublings (P = B) and
 * cancellations (P = −B); batch 1000 leaves a partial last group. Oracle: Σ_v c_v·(Σ_{k_i = c_v} P_i),
 * and both paths must agree (p1_msm_paths). Then 2^14 random points, the paths against each other. */
static void test_p1_lane_batches(void **state)
{
    (void)state;
    enum { N = 8192, NPOOL = 16 };
    g16_p1_affine *b = malloc(N * sizeof *b), pool[NPOOL];
    g16_fr *k = malloc(N * sizeof *k), few[3];
    assert_true(b && k);
    p1_rand_points(pool, NPOOL);
    tu_rand_fr(&few[0]);
    g16__fr_from_u64(&few[1], 5);
    g16__fr_neg(&few[2], &g16__fr_one);
    g16_p1 sum[3], want, t, r;
    for (int v = 0; v < 3; v++)
        g16__p1_set_infinity(&sum[v]);
    for (size_t i = 0; i < N; i++) {
        size_t v = tu_rand64() % 3;
        b[i] = pool[tu_rand64() % NPOOL];
        if (tu_rand64() % 2)
            g16__p1_affine_neg(&b[i], &b[i]);
        k[i] = few[v];
        g16__p1_from_affine(&t, &b[i]);
        g16__p1_add_var(&sum[v], &sum[v], &t);
    }
    g16__p1_set_infinity(&want);
    for (int v = 0; v < 3; v++) {
        g16__p1_mul_var(&t, &sum[v], &few[v]);
        g16__p1_add_var(&want, &want, &t);
    }
    /* lane_slice: the lane path in parts (9 and 3), each converting only its own bases */
    const g16__msm_opts opts[] = {{0},
                                  {.nthreads = 1},
                                  {.nthreads = 1, .batch = 1000, .window = 9},
                                  {.nthreads = 1, .lane_slice = 1000},
                                  {.nthreads = 1, .scalar_reduce = 1},
                                  {.nthreads = 2, .lane_slice = 3000}};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        p1_msm_ok(&r, b, k, N, &opts[i]);
        p1_check(&r, &want);
    }
    free(b);
    free(k);
    size_t n = (size_t)1 << 14;
    b = malloc(n * sizeof *b);
    k = malloc(n * sizeof *k);
    assert_true(b && k);
    p1_rand_points(b, n);
    for (size_t i = 0; i < n; i++)
        tu_rand_fr(&k[i]);
    g16__msm_opts o1 = {.nthreads = 1};
    p1_msm_ok(&r, b, k, n, &o1);
    free(b);
    free(k);
}

/* XYZZ (x = X/ZZ, y = Y/ZZZ; ZZ = 0 infinity) as a Jacobian point with Z = 1. */
static void p1_from_xyzz(g16_p1 *r, const g16__p1_xyzz *a)
{
    g16_fp i;
    if (g16__fp_is_zero(&a->zz)) {
        g16__p1_set_infinity(r);
        return;
    }
    g16__fp_inv_var(&i, &a->zz);
    g16__fp_mul(&r->x, &a->x, &i);
    g16__fp_inv_var(&i, &a->zzz);
    g16__fp_mul(&r->y, &a->y, &i);
    r->z = g16__fp_one;
}

/* g16__p1_lanes_reduce against Jacobian sums: eight runs of up to 40 logical buckets (1 to 3 slots
 * each, some empty) drawn from {P, −P, 2P, −2P, 3P} for one point P, so that the running sums
 * meet every special case of the lane formulas again and again: the sum equal to the bucket
 * (doubling), opposite to it (infinity), the total equal or opposite to the sum, an infinite
 * sum or total in some lanes only; then random points (the plain case). Oracle: sum = Σ B_i,
 * tot = Σ (i + 1)·B_i by Jacobian additions. */
static void test_p1_lanes_reduce(void **state)
{
    (void)state;
    enum { MAXN = 40, MAXPER = 3, ROUNDS = 60 };
    g16_p1_affine pool[5], rnd[16];
    g16_p1 t;
    p1_rand_points(&pool[0], 1);
    g16__p1_from_affine(&t, &pool[0]);
    g16__p1_dbl(&t, &t);
    g16__p1_to_affine(&pool[2], &t);
    g16__p1_add_affine_var(&t, &t, &pool[0]);
    g16__p1_to_affine(&pool[4], &t);
    g16__p1_affine_neg(&pool[1], &pool[0]);
    g16__p1_affine_neg(&pool[3], &pool[2]);
    p1_rand_points(rnd, 16);
    size_t nb = 8 * MAXN * MAXPER;
    g16__p1_lanes *L = g16__p1_lanes_create(nb, 64);
    uint8_t *filled = calloc(nb, 1);
    assert_true(L && filled);
    for (int round = 0; round < ROUNDS; round++) {
        int plain = round >= ROUNDS - 10; /* the last rounds: random points, all distinct */
        g16__p1_lane_seg seg[8];
        g16_p1 want_sum[8], want_tot[8];
        memset(filled, 0, nb);
        for (size_t k = 0; k < 8; k++) {
            seg[k].n = (size_t)(round % 7) == k ? 0 : 1 + tu_rand64() % MAXN; /* one unused lane now and then */
            seg[k].per = 1 + tu_rand64() % MAXPER;
            seg[k].slot0 = k * MAXN * MAXPER;
            g16__p1_set_infinity(&want_sum[k]);
            g16__p1_set_infinity(&want_tot[k]);
            for (size_t i = seg[k].n; i-- > 0;) {
                for (size_t l = 0; l < seg[k].per; l++) {
                    if (tu_rand64() % 4 == 0)
                        continue; /* an empty slot */
                    size_t slot = seg[k].slot0 + i * seg[k].per + l;
                    const g16_p1_affine *q = plain ? &rnd[tu_rand64() % 16] : &pool[tu_rand64() % 5];
                    g16__p1_aff52 q52;
                    g16__p1_aff52_from(&q52, q);
                    g16__p1_lanes_fill(L, slot, &q52, 0);
                    filled[slot] = 1;
                    g16__p1_add_affine_var(&want_sum[k], &want_sum[k], q);
                }
                g16__p1_add_var(&want_tot[k], &want_tot[k], &want_sum[k]);
            }
        }
        g16__p1_xyzz sum[8], tot[8];
        memset(sum, 0xa5, sizeof sum); /* poison */
        memset(tot, 0xa5, sizeof tot);
        g16__p1_lanes_reduce(L, seg, filled, sum, tot);
        for (int k = 0; k < 8; k++) {
            g16_p1 got;
            p1_from_xyzz(&got, &sum[k]);
            if (!g16__p1_eq(&got, &want_sum[k]))
                fail_msg("round %d lane %d: sum differs", round, k);
            p1_from_xyzz(&got, &tot[k]);
            if (!g16__p1_eq(&got, &want_tot[k]))
                fail_msg("round %d lane %d: weighted sum differs", round, k);
        }
    }
    g16__p1_lanes_destroy(L);
    free(filled);
}

/* ---------------- density bitmaps ---------------- */

/* Index of the first byte of buf[0, len) that is not `byte`, or len. */
static size_t first_not(const uint8_t *buf, size_t len, uint8_t byte)
{
    size_t i = 0;
    while (i < len && buf[i] == byte)
        i++;
    return i;
}

/* msm_consume_var (scalars converted where they lie) and opts->scratch (the lane copy of the bases
 * in the caller's memory, parts sized to fit it): the same bits as the plain call, on scalars
 * mixing zeros, ones, small and random values and bases with infinity and repeats. 34000 mostly
 * random scalars: more non-trivial ones than a scratch of G16__MSM_SCRATCH_MIN lane points holds,
 * so that scratch makes two parts. */
static void test_p1_consume_and_scratch(void **state)
{
    (void)state;
    enum { N = 34000 };
    g16_p1_affine *b = malloc(N * sizeof *b);
    g16_fr *k = malloc(N * sizeof *k), *kc = malloc(N * sizeof *kc);
    assert_true(b && k && kc);
    p1_rand_points(b, N);
    size_t nother = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t u = tu_rand64() % 100;
        if (u == 0)
            g16__fr_set_zero(&k[i]);
        else if (u == 1)
            g16__fr_set_one(&k[i]);
        else if (u == 2)
            fr_from_u64_signed(&k[i], (int64_t)(tu_rand64() % 64) - 32);
        else
            tu_rand_fr(&k[i]);
        if (u == 3)
            memset(&b[i], 0, sizeof b[i]); /* infinity */
        else if (u == 4 && i)
            b[i] = b[i - 1];
        nother += !g16__fr_is_zero(&k[i]) && !g16__fr_is_one(&k[i]);
    }
    assert_true(nother > G16__MSM_SCRATCH_MIN);
    g16_p1 want, r;
    g16__msm_opts o0 = {.nthreads = 2};
    p1_msm_ok(&want, b, k, N, &o0);

    /* consume: every path (lanes and scalar), one thread and two */
    for (int fp8 = 0; fp8 < 2; fp8++) {
        for (int nt = 1; nt <= 2; nt++) {
            g16_error e = {0};
            g16__msm_opts o = {.nthreads = nt};
            memcpy(kc, k, N * sizeof *k);
            setenv("G16_MSM_FP8", fp8 ? "1" : "0", 1);
            assert_int_equal(g16__p1_msm_consume_var(&r, b, kc, N, &o, &e), G16_OK);
            unsetenv("G16_MSM_FP8");
            assert_memory_equal(&r, &want, sizeof r);
        }
    }

    /* scratch: too small (unused, untouched), then exactly G16__MSM_SCRATCH_MIN lane points behind a
     * misaligned start (two parts), then room for all (one part); then with consume */
    size_t lane = sizeof(g16__p1_aff52), room = G16__MSM_SCRATCH_MIN * lane + 63, big = N * lane + 64;
    uint8_t *buf = malloc(big);
    assert_non_null(buf);
    const struct {
        size_t off, bytes;
        int used;
    } cases[] = {{1, 100, 0}, {1, room, 1}, {0, big, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        memset(buf, 0xa5, big);
        g16__msm_opts o = {.nthreads = 2, .scratch = buf + cases[c].off, .scratch_bytes = cases[c].bytes};
        p1_msm_ok(&r, b, k, N, &o);
        assert_memory_equal(&r, &want, sizeof r);
        size_t untouched = first_not(buf, big, 0xa5);
        if (cases[c].used && g16__p1_lanes_wanted())
            assert_true(untouched < cases[c].off + cases[c].bytes);
        if (!cases[c].used)
            assert_int_equal(untouched, big);
    }
    g16_error e = {0};
    g16__msm_opts o = {.scratch = buf + 1, .scratch_bytes = room};
    memcpy(kc, k, N * sizeof *k);
    assert_int_equal(g16__p1_msm_consume_var(&r, b, kc, N, &o, &e), G16_OK);
    assert_memory_equal(&r, &want, sizeof r);

    /* G2: consume against the plain call on a short mixed prefix */
    enum { N2 = 700 };
    g16_p2_affine *b2 = malloc(N2 * sizeof *b2);
    assert_non_null(b2);
    p2_rand_points(b2, N2);
    rand_scalars_mixed(k, N2);
    memcpy(kc, k, N2 * sizeof *k);
    g16_p2 w2, r2;
    p2_msm_ok(&w2, b2, k, N2, NULL);
    assert_int_equal(g16__p2_msm_consume_var(&r2, b2, kc, N2, NULL, &e), G16_OK);
    assert_memory_equal(&r2, &w2, sizeof r2);
    free(b2);
    free(buf);
    free(b);
    free(k);
    free(kc);
}

/* The ones on the lane path convert their bases in blocks (ONES_LANE_BLOCK = 4096 in msm_tmpl.h),
 * drained between blocks: 40000 ones (and 1000 random scalars) over one and several tasks, with bases at infinity and
 * repeated and negated bases (doublings and cancellations inside a block), against the plain sum.
 * Batches of 5000 (larger than a block) fail unless each block is drained before the next is
 * converted over it (checked by removing the drain). */
static void test_p1_ones_blocks(void **state)
{
    (void)state;
    enum { N = 41000, NOTHER = 1000 };
    g16_p1_affine *b = malloc(N * sizeof *b);
    g16_fr *k = malloc(N * sizeof *k);
    assert_true(b && k);
    p1_rand_points(b, N);
    g16_p1 want, r, t;
    g16__p1_set_infinity(&want);
    for (size_t i = 0; i < N; i++) {
        uint64_t u = tu_rand64() % 50;
        if (u == 0)
            memset(&b[i], 0, sizeof b[i]);
        else if (u == 1 && i)
            b[i] = b[i - 1];
        else if (u == 2 && i)
            g16__p1_affine_neg(&b[i], &b[i - 1]);
        g16__p1_from_affine(&t, &b[i]);
        if (i < NOTHER) { /* some non-trivial scalars: the plan accumulates in affine form then */
            tu_rand_fr(&k[i]);
            g16__p1_mul_var(&t, &t, &k[i]);
        } else {
            g16__fr_set_one(&k[i]);
        }
        g16__p1_add_var(&want, &want, &t);
    }
    const g16__msm_opts opts[] = {
        {.nthreads = 1}, {.nthreads = 3}, {.nthreads = 1, .batch = 1000}, {.nthreads = 1, .batch = 5000}};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        p1_msm_ok(&r, b, k, N, &opts[i]);
        p1_check(&r, &want);
    }
    free(b);
    free(k);
}

static void test_p1_density(void **state)
{
    (void)state;
    enum { NS = 1500 };
    g16_p1_affine *b = malloc(NS * sizeof *b);
    g16_fr *k = malloc(NS * sizeof *k), *kf = malloc(NS * sizeof *kf);
    uint64_t dens[(NS + 63) / 64 + 1];
    assert_true(b && k && kf);
    p1_rand_points(b, NS);
    for (int it = 0; it < 4; it++) {
        rand_scalars_mixed(k, NS);
        memset(dens, 0, sizeof dens);
        size_t nb = 0;
        for (size_t i = 0; i < NS; i++) {
            /* it 0: sparse; 1: dense; 2: all set; 3: none set */
            int bit = it == 2 ? 1 : it == 3 ? 0 : (int)(tu_rand64() % 4 < (it ? 3u : 1u));
            if (bit) {
                dens[i / 64] |= 1ULL << (i % 64);
                kf[nb++] = k[i];
            }
        }
        dens[NS / 64] |= ~0ULL << (NS % 64); /* bits beyond nscalars are ignored */
        g16_p1 r, want;
        g16_error e = {0};
        p1_msm_ok(&want, b, kf, nb, NULL);
        assert_int_equal(g16__p1_msm_density_var(&r, b, nb, k, NS, dens, NULL, &e), G16_OK);
        assert_memory_equal(&r, &want, sizeof r);
        g16__msm_opts o = {.nthreads = 1};
        assert_int_equal(g16__p1_msm_density_var(&r, b, nb, k, NS, dens, &o, &e), G16_OK);
        assert_memory_equal(&r, &want, sizeof r);
        /* wrong base count */
        g16_p1 keep = r;
        assert_int_equal(g16__p1_msm_density_var(&r, b, nb + 1, k, NS, dens, NULL, &e), G16_ERR_SIZE_MISMATCH);
        assert_int_equal(e.status, G16_ERR_SIZE_MISMATCH);
        assert_memory_equal(&r, &keep, sizeof r);
        if (nb)
            assert_int_equal(g16__p1_msm_density_var(&r, b, nb - 1, k, NS, dens, NULL, &e), G16_ERR_SIZE_MISMATCH);
    }
    /* no bitmap: the plain MSM */
    g16_p1 r, want;
    g16_error e = {0};
    p1_msm_ok(&want, b, k, NS, NULL);
    assert_int_equal(g16__p1_msm_density_var(&r, b, NS, k, NS, NULL, NULL, &e), G16_OK);
    assert_memory_equal(&r, &want, sizeof r);
    free(b);
    free(k);
    free(kf);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    g16_p1_affine b[2];
    g16_p2_affine b2[2];
    g16_fr k[2];
    g16_p1 r;
    g16_p2 r2;
    g16_error e = {0};
    p1_rand_points(b, 2);
    memset(b2, 0, sizeof b2);
    tu_rand_fr(&k[0]);
    tu_rand_fr(&k[1]);
    assert_int_equal(g16__p1_msm_var(&r, NULL, k, 2, NULL, &e), G16_ERR_ARG);
    assert_int_equal(g16__p1_msm_var(&r, b, NULL, 2, NULL, &e), G16_ERR_ARG);
    assert_int_equal(g16__p1_msm_var(NULL, b, k, 2, NULL, NULL), G16_ERR_ARG);
    assert_int_equal(g16__p2_msm_var(&r2, NULL, k, 1, NULL, &e), G16_ERR_ARG);
    g16__msm_opts o = {.window = 21};
    assert_int_equal(g16__p1_msm_var(&r, b, k, 2, &o, &e), G16_ERR_ARG);
    o = (g16__msm_opts){.accum = 3};
    assert_int_equal(g16__p1_msm_var(&r, b, k, 2, &o, &e), G16_ERR_ARG);
    o = (g16__msm_opts){.batch = 1};
    assert_int_equal(g16__p1_msm_var(&r, b, k, 2, &o, &e), G16_ERR_ARG);
    o = (g16__msm_opts){.nthreads = -1};
    assert_int_equal(g16__p1_msm_var(&r, b, k, 2, &o, &e), G16_ERR_ARG);
    o = (g16__msm_opts){.scratch_bytes = 4096}; /* bytes without memory, and memory without bytes */
    assert_int_equal(g16__p1_msm_var(&r, b, k, 2, &o, &e), G16_ERR_ARG);
    o = (g16__msm_opts){.scratch = b};
    assert_int_equal(g16__p1_msm_var(&r, b, k, 2, &o, &e), G16_ERR_ARG);
    assert_int_equal(e.status, G16_ERR_ARG);
    /* n = 0 with NULL arrays is fine and gives infinity; all bases at infinity too */
    assert_int_equal(g16__p1_msm_var(&r, NULL, NULL, 0, NULL, &e), G16_OK);
    assert_true(g16__p1_is_infinity(&r));
    assert_int_equal(g16__p2_msm_var(&r2, b2, k, 2, NULL, &e), G16_OK);
    assert_true(g16__p2_is_infinity(&r2));
}

/* ---------------- G2 ---------------- */

static void test_p2_random_and_edges(void **state)
{
    (void)state;
    enum { N = 513 };
    g16_p2_affine *b = malloc(N * sizeof *b), *b2 = malloc(N * sizeof *b2);
    g16_fr *k = malloc(N * sizeof *k);
    g16_p2 *pre = malloc((N + 1) * sizeof *pre);
    assert_true(b && b2 && k && pre);
    p2_rand_points(b, N);
    for (int mixed = 0; mixed < 2; mixed++) {
        if (mixed)
            rand_scalars_mixed(k, N);
        else
            for (size_t i = 0; i < N; i++)
                tu_rand_fr(&k[i]);
        p2_naive_prefix(pre, b, k, N);
        for (size_t i = 0; i < sizeof prefix_lengths / sizeof *prefix_lengths && prefix_lengths[i] <= N; i++) {
            size_t n = prefix_lengths[i];
            g16_p2 r, r1;
            p2_msm_ok(&r, b, k, n, NULL);
            p2_check(&r, &pre[n]);
            g16__msm_opts o = {.nthreads = 1, .accum = G16__MSM_ACCUM_AFFINE};
            p2_msm_ok(&r1, b, k, n, &o);
            assert_memory_equal(&r, &r1, sizeof r);
        }
    }
    /* collisions, doublings, cancellations, infinity bases, r − 1; oracle: c·ΣP_c − ΣP_(r−1) */
    g16_fr c;
    g16_p2 sc, sm, t, want;
    tu_rand_fr(&c);
    g16__p2_set_infinity(&sc);
    g16__p2_set_infinity(&sm);
    for (size_t i = 0; i < N; i++) {
        b2[i] = b[i % 3];
        if (i % 2)
            g16__p2_affine_neg(&b2[i], &b2[i]);
        if (i % 11 == 0)
            memset(&b2[i], 0, sizeof b2[i]);
        g16__p2_from_affine(&t, &b2[i]);
        if (i % 5 == 0) {
            g16__fr_neg(&k[i], &g16__fr_one);
            g16__p2_add_var(&sm, &sm, &t);
        } else {
            k[i] = c;
            g16__p2_add_var(&sc, &sc, &t);
        }
    }
    g16__p2_mul_var(&sc, &sc, &c);
    g16__p2_neg(&sm, &sm);
    g16__p2_add_var(&want, &sc, &sm);
    for (int bs = 0; bs < 2; bs++) {
        g16_p2 r;
        g16__msm_opts o = {.nthreads = 2, .accum = G16__MSM_ACCUM_AFFINE, .batch = bs ? 4 : 0};
        p2_msm_ok(&r, b2, k, N, &o);
        p2_check(&r, &want);
    }
    /* one base repeated with one scalar: bucket additions double */
    for (size_t i = 0; i < N; i++) {
        b2[i] = b[1];
        k[i] = c;
    }
    g16_fr nc;
    g16__fr_from_u64(&nc, N);
    g16__fr_mul(&nc, &nc, &c);
    g16__p2_from_affine(&t, &b[1]);
    g16__p2_mul_var(&want, &t, &nc);
    for (int bs = 0; bs < 2; bs++) {
        g16_p2 r;
        g16__msm_opts o = {.nthreads = 1 + bs, .accum = bs ? G16__MSM_ACCUM_XYZZ : G16__MSM_ACCUM_AFFINE};
        p2_msm_ok(&r, b2, k, N, &o);
        p2_check(&r, &want);
    }
    /* density */
    uint64_t dens[(N + 63) / 64];
    memset(dens, 0, sizeof dens);
    size_t nb = 0;
    for (size_t i = 0; i < N; i++)
        if (tu_rand64() % 3)
            dens[i / 64] |= 1ULL << (i % 64);
    g16_p2 r;
    g16_error e = {0};
    rand_scalars_mixed(k, N);
    g16_fr *kf = malloc(N * sizeof *kf);
    assert_non_null(kf);
    for (size_t i = 0; i < N; i++)
        if ((dens[i / 64] >> (i % 64)) & 1)
            kf[nb++] = k[i];
    p2_msm_ok(&want, b, kf, nb, NULL);
    assert_int_equal(g16__p2_msm_density_var(&r, b, nb, k, N, dens, NULL, &e), G16_OK);
    assert_memory_equal(&r, &want, sizeof r);
    free(kf);
    free(b);
    free(b2);
    free(k);
    free(pre);
}

int main(void)
{
    tu_seed("test_msm");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_booth_digits),
        cmocka_unit_test(test_p1_random),
        cmocka_unit_test(test_p1_filecoin_mix),
        cmocka_unit_test(test_p1_windows_and_modes),
        cmocka_unit_test(test_p1_edge_cases),
        cmocka_unit_test(test_p1_threads_identical),
        cmocka_unit_test(test_p1_large_split),
        cmocka_unit_test(test_p1_lane_batches),
        cmocka_unit_test(test_p1_lanes_reduce),
        cmocka_unit_test(test_p1_consume_and_scratch),
        cmocka_unit_test(test_p1_ones_blocks),
        cmocka_unit_test(test_p1_density),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_p2_random_and_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
