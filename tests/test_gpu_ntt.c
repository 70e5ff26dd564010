/* GPU NTT against the CPU NTT (poly/ntt.h), element for element.
 *
 * Host part (runs everywhere): the kernels' phase functions (gpu/ntt_core.cuh) executed on the
 * host thread by thread and barrier by barrier, with the launch sequences the device runs, for
 * every transform kind and the Groth16 H step, at sizes 2^0 .. 2^13, with the default pass split
 * and with forced small passes and small direct tables (so that 3- and 4-pass plans and the
 * two-level factor path run at small sizes too).
 * Device part (skipped without a CUDA device): the real kernels at sizes 1, 2, 2^k up to 2^20
 * (G16_GPU_TEST_MAX_LOG raises it, e.g. 24 on the benchmark machine), batched, generators 7 and
 * 5 with shifts, the H step, and the error paths (bad size, bad generator, no device). */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/ntt_core.cuh"
#include "gpu/ntt_tables.h"
#include "poly/ntt.h"

/* ---------------------------------------------------------------- host simulation of the kernels */

#define SIM_THREADS 96 /* not a power of two: the per-thread loops must not care */

static void sim_pass(const ntt_pass *p, uint32_t blk, uint32_t v, g16_u4 *sm)
{
    uint32_t T = SIM_THREADS;
    for (uint32_t t = 0; t < T; t++)
        ntt_phase_load(p, blk, v, t, T, sm);
    /* the stage schedule of ntt_pass_kernel (ntt.cu): groups of ntt_group(p, stages left) */
    if (p->kind == G16_PASS_DIF || p->kind == G16_PASS_DIF_DIT) {
        for (uint32_t u = p->s; u > 0;) {
            uint32_t g = ntt_group(p, u);
            for (uint32_t t = 0; t < T; t++) {
                if (g == 3)
                    ntt_phase_dif3(p, u - 1, t, T, sm);
                else if (g == 2)
                    ntt_phase_dif2(p, u - 1, t, T, sm);
                else
                    ntt_phase_dif(p, u - 1, t, T, sm);
            }
            u -= g;
        }
    }
    if (p->kind == G16_PASS_DIF_DIT)
        for (uint32_t t = 0; t < T; t++)
            ntt_phase_mid(p, blk, t, T, sm);
    if (p->kind == G16_PASS_DIT || p->kind == G16_PASS_DIF_DIT) {
        for (uint32_t u = 0; u < p->s;) {
            uint32_t g = ntt_group(p, p->s - u);
            for (uint32_t t = 0; t < T; t++) {
                if (g == 3)
                    ntt_phase_dit3(p, u + 2, t, T, sm);
                else if (g == 2)
                    ntt_phase_dit2(p, u + 1, t, T, sm);
                else
                    ntt_phase_dit(p, u, t, T, sm);
            }
            u += g;
        }
    }
    for (uint32_t t = 0; t < T; t++)
        ntt_phase_store(p, blk, v, t, T, sm);
}

static void sim_bitrev(const ntt_pass *p, uint32_t blk, uint32_t v, g16_u4 *sm)
{
    uint32_t T = 256; /* the small kernel needs n <= threads */
    if (!ntt_br_tiled(p->log_n)) {
        for (uint32_t t = 0; t < T; t++)
            ntt_phase_br_small(p, v, t);
        return;
    }
    int work = 0;
    for (uint32_t t = 0; t < T; t++)
        work = ntt_phase_br_load(p, blk, v, t, T, sm);
    if (work)
        for (uint32_t t = 0; t < T; t++)
            ntt_phase_br_store(p, blk, v, t, T, sm);
}

static void sim_run(const ntt_launch *L, uint32_t count)
{
    g16_u4 *sm = malloc(2 * ((size_t)1 << G16_NTT_ELEMS_LOG) * sizeof *sm);
    assert_non_null(sm);
    for (uint32_t q = 0; q < count; q++) {
        assert_true(L[q].nvec >= 1 && L[q].nvec <= G16_NTT_MAX_VEC);
        for (uint32_t v = 0; v < L[q].nvec; v++)
            for (uint32_t b = 0; b < L[q].blocks; b++) {
                if (L[q].type == G16_LAUNCH_PASS)
                    sim_pass(&L[q].p, b, v, sm);
                else
                    sim_bitrev(&L[q].p, b, v, sm);
            }
    }
    free(sm);
}

/* ---------------------------------------------------------------- helpers */

static g16_fr *fr_array(size_t n)
{
    g16_fr *p = malloc((n ? n : 1) * sizeof *p);
    assert_non_null(p);
    return p;
}

static void rand_vec(g16_fr *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tu_rand_fr(&x[i]);
}

static void assert_vec_eq(const g16_fr *x, const g16_fr *y, size_t n, const char *what, unsigned k)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(&x[i], &y[i], sizeof x[i]) != 0)
            fail_msg("%s 2^%u: element %zu of %zu differs from the CPU", what, k, i, n);
}

static void cpu_transform(const g16__ntt_domain *d, int kind, g16_fr *x)
{
    switch (kind) {
    case G16__GPU_NTT_FORWARD: g16__ntt_forward(d, x); break;
    case G16__GPU_NTT_INVERSE: g16__ntt_inverse(d, x); break;
    case G16__GPU_NTT_COSET_FORWARD: g16__ntt_coset_forward(d, x); break;
    default: g16__ntt_coset_inverse(d, x); break;
    }
}

static const char *kind_name[] = {"forward", "inverse", "coset forward", "coset inverse"};

typedef struct {
    uint64_t gen;     /* root generator */
    int shift;        /* 0: the generator; 1: a random shift */
} gen_case;

/* The H step's per-input plans (ntt_plan_h_in, ntt_plan_h_mul, then ntt_plan_h_c on c in a vector of
 * its own; or, c2 given, in two vectors: c2 copied into b's vector first) run in the simulation; H
 * into a. */
static void sim_plan_h_one(const ntt_tables *tb, g16_fr *a, g16_fr *b, g16_fr *c, const g16_fr *c2, unsigned k)
{
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    size_t n = (size_t)1 << k;
    uint32_t cnt = ntt_plan_h_in(tb, (gfr *)(void *)a, L);
    assert_true(cnt <= G16_NTT_MAX_LAUNCHES);
    sim_run(L, cnt);
    cnt = ntt_plan_h_mul(tb, (gfr *)(void *)a, (gfr *)(void *)b, L);
    assert_true(cnt <= G16_NTT_MAX_LAUNCHES);
    sim_run(L, cnt);
    if (c2) {
        memcpy(b, c2, n * sizeof *b);
        c = b;
    }
    cnt = ntt_plan_h_c(tb, (gfr *)(void *)a, (gfr *)(void *)c, L);
    assert_true(cnt <= G16_NTT_MAX_LAUNCHES);
    sim_run(L, cnt);
}

/* One size and generator on the host simulation: all four kinds (two vectors in one batch) and
 * the H step, against the CPU. split_b / tmax / elems_log 0 = defaults. */
static void sim_check(unsigned k, const gen_case *gc, uint32_t split_b, unsigned tmax, uint32_t radix,
                      uint32_t elems_log, uint32_t uni)
{
    size_t n = (size_t)1 << k;
    g16_fr gen, shift;
    g16__fr_from_u64(&gen, gc->gen);
    tu_rand_fr(&shift);
    const g16_fr *sh = gc->shift ? &shift : NULL;
    g16__ntt_domain *d = NULL;
    g16_error err = {0, ""};
    if (g16__ntt_domain_create(&d, k, &gen, sh, &err) != G16_OK)
        fail_msg("cpu domain: %s", err.msg);
    g16__gpu_ntt_host_tables ht;
    if (g16__gpu_ntt_tables_build_ex(&ht, k, &gen, sh, tmax, &err) != G16_OK)
        fail_msg("gpu tables: %s", err.msg);
    ntt_tables tb;
    ntt_tables_init(&tb, &ht, (const gfr *)(const void *)ht.buf);
    tb.split_b = split_b;
    tb.radix = radix;
    tb.radix_dd = (k + radix) % 4; /* the fused DIF_DIT pass: 0 (= radix) or 1 to 3 */
    tb.elems_log = elems_log;
    tb.uni = uni;

    g16_fr *x0 = fr_array(n), *x1 = fr_array(n), *y0 = fr_array(n), *y1 = fr_array(n), *c = fr_array(n);
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    for (int kind = 0; kind < G16__GPU_NTT_KIND_COUNT; kind++) {
        rand_vec(x0, n);
        rand_vec(x1, n);
        memcpy(y0, x0, n * sizeof *y0);
        memcpy(y1, x1, n * sizeof *y1);
        gfr *xs[2] = {(gfr *)(void *)x0, (gfr *)(void *)x1};
        uint32_t cnt = ntt_plan_transform(&tb, (uint32_t)kind, xs, 2, L);
        assert_true(cnt <= G16_NTT_MAX_LAUNCHES);
        sim_run(L, cnt);
        cpu_transform(d, kind, y0);
        cpu_transform(d, kind, y1);
        assert_vec_eq(x0, y0, n, kind_name[kind], k);
        assert_vec_eq(x1, y1, n, kind_name[kind], k);
    }
    /* H step: a, b random, c = a·b on most points and random on a few (any input must agree) */
    rand_vec(x0, n);
    rand_vec(x1, n);
    for (size_t i = 0; i < n; i++)
        g16__fr_mul(&c[i], &x0[i], &x1[i]);
    tu_rand_fr(&c[n / 3]);
    memcpy(y0, x0, n * sizeof *y0);
    memcpy(y1, x1, n * sizeof *y1);
    g16_fr *yc = fr_array(n);
    memcpy(yc, c, n * sizeof *yc);
    /* the two-vector form first, on copies (b's vector then takes c) */
    g16_fr *a2 = fr_array(n), *b2 = fr_array(n);
    memcpy(a2, x0, n * sizeof *a2);
    memcpy(b2, x1, n * sizeof *b2);
    uint32_t cnt = ntt_plan_h_ab(&tb, (gfr *)(void *)a2, (gfr *)(void *)b2, L);
    assert_true(cnt <= G16_NTT_MAX_LAUNCHES);
    sim_run(L, cnt);
    memcpy(b2, c, n * sizeof *b2);
    cnt = ntt_plan_h_c(&tb, (gfr *)(void *)a2, (gfr *)(void *)b2, L);
    assert_true(cnt <= G16_NTT_MAX_LAUNCHES);
    sim_run(L, cnt);
    /* one input at a time (the copies overlapped), three vectors and two, on copies */
    g16_fr *a1 = fr_array(n), *b1 = fr_array(n), *c1 = fr_array(n), *a3 = fr_array(n), *b3 = fr_array(n);
    memcpy(a1, x0, n * sizeof *a1);
    memcpy(b1, x1, n * sizeof *b1);
    memcpy(c1, c, n * sizeof *c1);
    memcpy(a3, x0, n * sizeof *a3);
    memcpy(b3, x1, n * sizeof *b3);
    sim_plan_h_one(&tb, a1, b1, c1, NULL, k);
    sim_plan_h_one(&tb, a3, b3, NULL, c, k);
    cnt = ntt_plan_h(&tb, (gfr *)(void *)x0, (gfr *)(void *)x1, (gfr *)(void *)c, L);
    assert_true(cnt <= G16_NTT_MAX_LAUNCHES);
    sim_run(L, cnt);
    g16__ntt_groth16_h(d, y0, y1, yc);
    assert_vec_eq(x0, y0, n, "groth16 H", k);
    assert_vec_eq(a2, y0, n, "groth16 H in two vectors", k);
    assert_vec_eq(a1, y0, n, "groth16 H one input at a time", k);
    assert_vec_eq(a3, y0, n, "groth16 H in two vectors, one input at a time", k);
    free(a1);
    free(b1);
    free(c1);
    free(a3);
    free(b3);
    free(a2);
    free(b2);

    free(x0);
    free(x1);
    free(y0);
    free(y1);
    free(c);
    free(yc);
    g16__gpu_ntt_tables_free(&ht);
    g16__ntt_domain_destroy(d);
}

static const gen_case gens[] = {{7, 0}, {5, 0}, {7, 1}};

static void test_sim_default_split(void **state)
{
    (void)state;
    for (unsigned k = 0; k <= 12; k++)
        sim_check(k, &gens[k % 3], 0, 0, 1 + k % 3, 0, (k / 3) % 2);
    sim_check(13, &gens[1], 0, 0, 2, 0, 1);
    sim_check(13, &gens[2], 0, 0, 3, 0, 1);
    sim_check(13, &gens[0], 0, 0, 1, 0, 0);
}

/* Blocks of 2^10 elements (the 128- and 256-thread kernel variants): passes of at most 10 stages,
 * so 2^11 and up take one more pass than with 2^11 (2^11: 6 + 5, 2^13: 5 + 4 + 4). */
static void test_sim_small_blocks(void **state)
{
    (void)state;
    for (unsigned k = 8; k <= 13; k++)
        for (uint32_t r = 1; r <= 3; r++)
            sim_check(k, &gens[(k + r) % 3], 0, 0, r, 10, (k + r) % 2);
}

/* Forced 4-bit bottom passes (3-bit upper ones) and roots of order <= 2^5 in the direct table:
 * 2^9 .. 2^12 run in 3 or 4 passes, every upper pass uses factors, the top one the two-level
 * path; smaller sizes cover P = 1 and 2 with the same forcing. Stages one by one and in pairs
 * (odd and even stage counts). */
static void test_sim_forced_split(void **state)
{
    (void)state;
    for (unsigned k = 1; k <= 12; k++) /* passes of 3 and 4 stages: odd and even counts for both */
        sim_check(k, &gens[(k + 1) % 3], 4, 5, 1 + k % 3, k % 3 == 0 ? 10 : 0, (k / 2) % 2);
    sim_check(12, &gens[0], 4, 5, 2, 0, 1);
    sim_check(11, &gens[2], 4, 5, 3, 0, 0);
}

/* The stage orders of ntt_group_pos on every pass shape: each stage (group of 1 to 3 stages)
 * touches every element of the block once; the uniform stages give a warp (32 aligned groups)
 * one set of twiddles and 8 aligned ones 8 different 16-byte columns of the swizzled shared
 * memory (no bank conflicts) in each access, and they run for stages 1 to 4 of the 9- and
 * 10-stage passes of the large sizes; so does the global load and store along a line. */
static void test_stage_orders(void **state)
{
    (void)state;
    static uint8_t seen[1u << G16_NTT_ELEMS_LOG];
    for (uint32_t uni = 0; uni <= 1; uni++)
        for (uint32_t s = 1; s <= G16_NTT_SMAX; s++)
            for (uint32_t lg = 0; s + lg <= G16_NTT_ELEMS_LOG; lg++) {
                ntt_pass p;
                memset(&p, 0, sizeof p);
                p.s = s;
                p.log_g = lg;
                p.uni = uni;
                uint32_t E = ntt_elems(&p), nb = E / 2, uni_stages = 0;
                for (uint32_t u = 0; u < s; u++) {
                    memset(seen, 0, E);
                    int un = ntt_uni_stage(&p, u);
                    uni_stages += (uint32_t)un;
                    for (uint32_t beta = 0; beta < nb; beta++) {
                        uint32_t ea, eb, j, ea0, eb0, j0;
                        ntt_bfly_pos(&p, beta, u, &ea, &eb, &j);
                        assert_true(ea < E && eb < E && j >= (1u << u) && j < (2u << u));
                        seen[ea]++;
                        seen[eb]++;
                        assert_true(ntt_sw(&p, ea) < E);
                        if (!un)
                            continue;
                        ntt_bfly_pos(&p, beta & ~31u, u, &ea0, &eb0, &j0);
                        assert_int_equal(j, j0);
                        uint32_t cols = 0, colsb = 0;
                        for (uint32_t q = beta & ~7u; q < (beta & ~7u) + 8; q++) {
                            ntt_bfly_pos(&p, q, u, &ea0, &eb0, &j0);
                            cols |= 1u << (ntt_sw(&p, ea0) & 7);
                            colsb |= 1u << (ntt_sw(&p, eb0) & 7);
                        }
                        assert_int_equal(cols, 0xff);
                        assert_int_equal(colsb, 0xff);
                    }
                    for (uint32_t e = 0; e < E; e++)
                        assert_int_equal(seen[e], 1);
                    /* the swizzle is a bijection on the block */
                    memset(seen, 0, E);
                    for (uint32_t e = 0; e < E; e++)
                        seen[ntt_sw(&p, e)]++;
                    for (uint32_t e = 0; e < E; e++)
                        assert_int_equal(seen[e], 1);
                }
                /* groups of g = 2, 3 stages (top stage u >= g-1) cover the block once; uniform
                 * ones as above, in each of their 2^g accesses */
                for (uint32_t g = 2; g <= 3; g++)
                    for (uint32_t u = g - 1; u < s; u++) {
                        memset(seen, 0, E);
                        int un = ntt_uni_stage(&p, u);
                        uint32_t q = 1u << (u + 1 - g);
                        for (uint32_t beta = 0; beta < E >> g; beta++) {
                            uint32_t e0, low, e00, low0;
                            ntt_group_pos(&p, beta, u, g, &e0, &low);
                            assert_true(low < q && e0 + ((1u << g) - 1) * q < E);
                            for (uint32_t i = 0; i < (1u << g); i++)
                                seen[e0 + i * q]++;
                            if (!un)
                                continue;
                            ntt_group_pos(&p, beta & ~31u, u, g, &e00, &low0);
                            assert_int_equal(low, low0);
                            for (uint32_t i = 0; i < (1u << g); i++) {
                                uint32_t cols = 0;
                                for (uint32_t b8 = beta & ~7u; b8 < (beta & ~7u) + 8; b8++) {
                                    ntt_group_pos(&p, b8, u, g, &e00, &low0);
                                    cols |= 1u << (ntt_sw(&p, e00 + i * q) & 7);
                                }
                                assert_int_equal(cols, 0xff);
                            }
                        }
                        for (uint32_t e = 0; e < E; e++)
                            assert_int_equal(seen[e], 1);
                    }
                /* the global load and store: 8 neighbouring elements of one line (lines not
                 * interleaved) take 8 columns */
                for (uint32_t l0 = 0; l0 < E && uni && s >= 3; l0 += 8) {
                    uint32_t cols = 0;
                    for (uint32_t l = l0; l < l0 + 8; l++) {
                        uint32_t c, m;
                        ntt_elem(&p, l, &c, &m);
                        cols |= 1u << (ntt_sw(&p, (c << s) + m) & 7);
                    }
                    assert_int_equal(cols, 0xff);
                }
                if (uni && (s == 9 || s == 10) && s + lg >= 10)
                    assert_true(uni_stages >= 4);
                if (!uni)
                    assert_int_equal(uni_stages, 0);
            }
}

/* The split itself: sizes within limits, bottom pass the largest, at most 4 passes up to 2^28. */
static void test_split(void **state)
{
    (void)state;
    for (uint32_t k = 0; k <= G16_NTT_MAX_LOG; k++) {
        ntt_tables tb;
        memset(&tb, 0, sizeof tb);
        tb.log_n = k;
        uint32_t s[G16_NTT_MAX_PASSES], P = ntt_split(&tb, s), sum = 0;
        assert_true(P >= 1 && P <= G16_NTT_MAX_PASSES);
        for (uint32_t q = 0; q < P; q++) {
            sum += s[q];
            assert_true(s[q] <= (q + 1 == P ? G16_NTT_SMAX : G16_NTT_SUPPER));
        }
        assert_int_equal(sum, k);
        tb.elems_log = 10; /* 2^10 elements per block: at most 10 and 9 stages */
        P = ntt_split(&tb, s);
        sum = 0;
        for (uint32_t q = 0; q < P; q++) {
            sum += s[q];
            assert_true(s[q] <= (q + 1 == P ? 10u : 9u));
        }
        assert_int_equal(sum, k);
        assert_true(P <= G16_NTT_MAX_PASSES);
        if (k == 27)
            assert_int_equal(P, 3); /* 9 + 9 + 9 as with 2^11 */
    }
}

/* ---------------------------------------------------------------- device */

static g16__gpu *dev_open_or_skip(void)
{
    g16__gpu *g = NULL;
    g16_error err = {0, ""};
    g16_status st = g16__gpu_open(&g, 0, &err);
    if (st == G16_ERR_NO_DEVICE) {
        printf("no CUDA device: skipped (%s)\n", err.msg);
        skip();
    }
    if (st != G16_OK)
        fail_msg("gpu open: %s: %s", g16_strerror(st), err.msg);
    return g;
}

static unsigned dev_max_log(void)
{
    const char *s = getenv("G16_GPU_TEST_MAX_LOG");
    unsigned v = s ? (unsigned)atoi(s) : 20;
    return v > G16_NTT_MAX_LOG ? G16_NTT_MAX_LOG : v;
}

/* threads / radix: the pass kernel's block size and stages per round trip (0: the domain's defaults);
 * uni: the stage order (-1: the default). */
static void dev_check(g16__gpu *g, unsigned k, const gen_case *gc, int with_h, unsigned threads, unsigned radix, int uni)
{
    size_t n = (size_t)1 << k;
    g16_fr gen, shift;
    g16__fr_from_u64(&gen, gc->gen);
    tu_rand_fr(&shift);
    const g16_fr *sh = gc->shift ? &shift : NULL;
    g16__ntt_domain *d = NULL;
    g16__gpu_ntt *gd = NULL;
    g16_error err = {0, ""};
    if (g16__ntt_domain_create(&d, k, &gen, sh, &err) != G16_OK)
        fail_msg("cpu domain: %s", err.msg);
    if (g16__gpu_ntt_create(&gd, g, k, &gen, sh, &err) != G16_OK)
        fail_msg("gpu domain 2^%u: %s", k, err.msg);
    if (threads)
        assert_int_equal(g16__gpu_ntt_set_threads(gd, threads), G16_OK);
    if (threads) {
        assert_int_equal(g16__gpu_ntt_set_radix(gd, radix), G16_OK);
        assert_int_equal(g16__gpu_ntt_set_radix_fused(gd, 4), G16_ERR_ARG);
        /* the fused pass in another grouping where the variant has one with its block size */
        if (g16__gpu_ntt_set_radix_fused(gd, (k + radix) % 4) != G16_OK)
            assert_int_equal(g16__gpu_ntt_set_radix_fused(gd, 0), G16_OK);
    }
    if (uni >= 0)
        g16__gpu_ntt_set_uniform(gd, uni);
    g16_fr *x0 = fr_array(n), *x1 = fr_array(n), *y0 = fr_array(n), *y1 = fr_array(n);
    for (int kind = 0; kind < G16__GPU_NTT_KIND_COUNT; kind++) {
        rand_vec(x0, n);
        rand_vec(x1, n);
        memcpy(y0, x0, n * sizeof *y0);
        memcpy(y1, x1, n * sizeof *y1);
        g16_fr *xs[2] = {x0, x1};
        if (g16__gpu_ntt_host(gd, (g16__gpu_ntt_kind)kind, xs, 2, &err) != G16_OK)
            fail_msg("gpu %s 2^%u: %s", kind_name[kind], k, err.msg);
        cpu_transform(d, kind, y0);
        cpu_transform(d, kind, y1);
        assert_vec_eq(x0, y0, n, kind_name[kind], k);
        assert_vec_eq(x1, y1, n, kind_name[kind], k);
    }
    if (with_h) {
        g16_fr *c = fr_array(n), *yc = fr_array(n);
        rand_vec(x0, n);
        rand_vec(x1, n);
        for (size_t i = 0; i < n; i++)
            g16__fr_mul(&c[i], &x0[i], &x1[i]);
        tu_rand_fr(&c[n / 2]);
        memcpy(y0, x0, n * sizeof *y0);
        memcpy(y1, x1, n * sizeof *y1);
        memcpy(yc, c, n * sizeof *yc);
        /* the two-vector form on the device: a, b uploaded, a·b, c into b's vector, H */
        g16_fr *dv = NULL, *h2 = fr_array(n);
        size_t bytes = n * sizeof(g16_fr);
        if (g16__gpu_alloc(g, (void **)&dv, 2 * bytes, "two H vectors", &err) != G16_OK ||
            g16__gpu_upload(g, dv, x0, bytes, &err) != G16_OK || g16__gpu_upload(g, dv + n, x1, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_ab(gd, dv, dv + n, &err) != G16_OK || g16__gpu_upload(g, dv + n, c, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_c(gd, dv, dv + n, &err) != G16_OK || g16__gpu_download(g, h2, dv, bytes, &err) != G16_OK ||
            g16__gpu_sync(g, &err) != G16_OK)
            fail_msg("gpu groth16 H in two vectors 2^%u: %s", k, err.msg);
        g16__gpu_free(g, dv);
        /* one input at a time, b and c copied on the side stream behind the previous transforms
         * (as the prover does with a, b, c from the host); then in two vectors the same way */
        g16_fr *h1 = fr_array(n), *h3 = fr_array(n);
        dv = NULL;
        if (g16__gpu_alloc(g, (void **)&dv, 3 * bytes, "three H vectors", &err) != G16_OK ||
            g16__gpu_upload(g, dv, x0, bytes, &err) != G16_OK || g16__gpu_ntt_h_in(gd, dv, &err) != G16_OK ||
            g16__gpu_upload_side(g, dv + n, x1, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_mul(gd, dv, dv + n, &err) != G16_OK ||
            g16__gpu_upload_side(g, dv + 2 * n, c, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_c(gd, dv, dv + 2 * n, &err) != G16_OK ||
            g16__gpu_download(g, h1, dv, bytes, &err) != G16_OK || g16__gpu_sync(g, &err) != G16_OK)
            fail_msg("gpu groth16 H one input at a time 2^%u: %s", k, err.msg);
        if (g16__gpu_upload(g, dv, x0, bytes, &err) != G16_OK || g16__gpu_ntt_h_in(gd, dv, &err) != G16_OK ||
            g16__gpu_upload_side(g, dv + n, x1, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_mul(gd, dv, dv + n, &err) != G16_OK || g16__gpu_upload(g, dv + n, c, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_c(gd, dv, dv + n, &err) != G16_OK ||
            g16__gpu_download(g, h3, dv, bytes, &err) != G16_OK || g16__gpu_sync(g, &err) != G16_OK)
            fail_msg("gpu groth16 H in two vectors, one input at a time 2^%u: %s", k, err.msg);
        /* c formed on the device as a·b (never copied; its vector poisoned first), against the
         * CPU's H for c = a·b exactly (the c above differs at one point) */
        g16_fr *h4 = fr_array(n), *ra = fr_array(n), *rb = fr_array(n), *rc = fr_array(n);
        memcpy(ra, x0, bytes);
        memcpy(rb, x1, bytes);
        for (size_t i = 0; i < n; i++)
            g16__fr_mul(&rc[i], &x0[i], &x1[i]);
        memset(h4, 0x5a, bytes);
        if (g16__gpu_upload(g, dv + 2 * n, h4, bytes, &err) != G16_OK ||
            g16__gpu_upload(g, dv, x0, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_in_keep(gd, dv, dv + 2 * n, &err) != G16_OK ||
            g16__gpu_upload_side(g, dv + n, x1, bytes, &err) != G16_OK ||
            g16__gpu_ntt_h_mul_keep(gd, dv, dv + n, dv + 2 * n, &err) != G16_OK ||
            g16__gpu_ntt_h_c(gd, dv, dv + 2 * n, &err) != G16_OK ||
            g16__gpu_download(g, h4, dv, bytes, &err) != G16_OK || g16__gpu_sync(g, &err) != G16_OK)
            fail_msg("gpu groth16 H with c formed as a·b 2^%u: %s", k, err.msg);
        g16__ntt_groth16_h(d, ra, rb, rc);
        assert_vec_eq(h4, ra, n, "groth16 H with c formed as a·b", k);
        free(h4);
        free(ra);
        free(rb);
        free(rc);
        g16__gpu_free(g, dv);
        if (g16__gpu_ntt_groth16_h_host(gd, x0, x1, c, &err) != G16_OK)
            fail_msg("gpu groth16 H 2^%u: %s", k, err.msg);
        g16__ntt_groth16_h(d, y0, y1, yc);
        assert_vec_eq(x0, y0, n, "groth16 H", k);
        assert_vec_eq(h2, y0, n, "groth16 H in two vectors", k);
        assert_vec_eq(h1, y0, n, "groth16 H one input at a time", k);
        assert_vec_eq(h3, y0, n, "groth16 H in two vectors, one input at a time", k);
        free(h1);
        free(h3);
        free(h2);
        free(c);
        free(yc);
    }
    free(x0);
    free(x1);
    free(y0);
    free(y1);
    g16__gpu_ntt_destroy(gd);
    g16__ntt_domain_destroy(d);
}

static void test_dev_sizes(void **state)
{
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    unsigned max = dev_max_log();
    for (unsigned k = 0; k <= max; k++) {
        dev_check(g, k, &gens[k % 3], k <= 24, 0, 0, -1);
        printf("  device 2^%u: forward, inverse, coset forward/inverse%s agree with the CPU\n", k,
               k <= 24 ? ", groth16 H (three and two vectors)" : "");
    }
    /* every kernel variant of ntt.cu (threads x stages per round trip x stage order) and a
     * thread count without a variant of its own (the unbounded kernel) */
    static const unsigned thr[] = {128, 256, 384, 512, 160};
    for (unsigned k = 0; k <= max && k <= 20; k += (k < 12 ? 1 : 4))
        for (unsigned q = 0; q < sizeof thr / sizeof thr[0]; q++)
            for (unsigned r = 1; r <= 3; r++)
                for (int uni = 0; uni <= 1; uni++)
                    dev_check(g, k, &gens[(k + q + r + (unsigned)uni) % 3], k <= 16, thr[q], r, uni);
    for (unsigned k = 0; k <= max && k <= 22; k += (k < 12 ? 1 : 5))
        dev_check(g, k, &gens[(k + 1) % 3], k <= 22, 0, 0, 0); /* the default variant, plain order */
    printf("  device 2^0..2^20 with every kernel variant (threads 128..512, 1 to 3 stages per round trip, "
           "plain or uniform stage order) agree with the CPU\n");
    g16__gpu_close(g);
}

static void test_dev_errors(void **state)
{
    (void)state;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    /* a device index past the last one */
    g16_status st = g16__gpu_open(&g, 1000, &err);
    assert_int_equal(st, G16_ERR_NO_DEVICE);
    assert_null(g);
    assert_true(strlen(err.msg) > 0);
    g = dev_open_or_skip();
    g16__gpu_ntt *gd = NULL;
    g16_fr gen, four;
    g16__fr_from_u64(&gen, 7);
    g16__fr_from_u64(&four, 4);
    st = g16__gpu_ntt_create(&gd, g, G16_NTT_MAX_LOG + 1, &gen, NULL, &err);
    assert_int_equal(st, G16_ERR_ARG);
    assert_null(gd);
    st = g16__gpu_ntt_create(&gd, g, 10, &four, NULL, &err); /* 4 is a square */
    assert_int_equal(st, G16_ERR_ARG);
    assert_null(gd);
    assert_int_equal(g16__gpu_ntt_create(&gd, g, 4, &gen, NULL, &err), G16_OK);
    g16_fr x[16];
    g16_fr *xs[1] = {x};
    rand_vec(x, 16);
    st = g16__gpu_ntt_host(gd, G16__GPU_NTT_KIND_COUNT, xs, 1, &err); /* bad kind */
    assert_int_equal(st, G16_ERR_ARG);
    st = g16__gpu_ntt_host(gd, G16__GPU_NTT_FORWARD, NULL, 1, &err);
    assert_int_equal(st, G16_ERR_ARG);
    /* a memory plan far beyond the card */
    g16__gpu_plan plan;
    g16__gpu_plan_init(&plan);
    g16__gpu_plan_add(&plan, "an impossible buffer", (size_t)1 << 50);
    st = g16__gpu_plan_check(g, &plan, &err);
    assert_int_equal(st, G16_ERR_NOMEM);
    printf("  plan error: %s\n", err.msg);
    g16__gpu_ntt_destroy(gd);
    g16__gpu_close(g);
}

/* Without a device (or in a stub build) every entry point says so instead of failing otherwise. */
static void test_no_device_paths(void **state)
{
    (void)state;
    if (g16__gpu_device_count() > 0)
        skip();
    g16_error err = {0, ""};
    g16__gpu *g = (g16__gpu *)(uintptr_t)1;
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_ERR_NO_DEVICE);
    assert_null(g);
    assert_int_equal(err.status, G16_ERR_NO_DEVICE);
    printf("  no device: %s\n", err.msg);
    g16__gpu_close(NULL);
    g16__gpu_ntt_destroy(NULL);
}

int main(void)
{
    tu_seed("test_gpu_ntt");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_stage_orders),
        cmocka_unit_test(test_sim_default_split),
        cmocka_unit_test(test_sim_forced_split),
        cmocka_unit_test(test_sim_small_blocks),
        cmocka_unit_test(test_no_device_paths),
        cmocka_unit_test(test_dev_errors),
        cmocka_unit_test(test_dev_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
