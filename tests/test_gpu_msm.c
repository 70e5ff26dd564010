/* GPU MSM (src/gpu/msm*) against the CPU MSM (msm/msm.h), bit for bit after normalization.
 *
 * Host part (runs everywhere): the kernels' per-thread phase functions (gpu/msm_core.cuh) run
 * thread by thread on the host, with qsort in place of CUB's radix sort, at small sizes with
 * forced windows, few threads and short carry ranges (so that buckets split over many threads
 * and several carry levels run), on random inputs and on the edge cases below, in G1 and G2.
 * Device part (skipped without a CUDA device): the real kernels at n = 1, 2, 3, 2^k ± 1 up to
 * 2^20 in G1 and G2 (G16_GPU_TEST_MAX_LOG changes it), the edge cases (zero and
 * one scalars, all scalars equal, repeated bases, bases at infinity, P and −P, scalars −1 and
 * 2^k − 1, the Filecoin mix), forced small windows and thread counts, a batch of scalar sets
 * over resident bases, device-generated random bases, and the argument errors. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/msm_core.cuh"
#include "gpu/msm_gpu.h"
#include "msm/msm.h"

/* ---------------------------------------------------------------- the two groups */

typedef struct {
    int g2;
    const char *name;
    size_t aff_sz, jac_sz, xyzz_sz;
    void (*rand_points)(void *out, size_t n);
    void (*neg_aff)(void *r, const void *a);
    g16_status (*cpu)(void *r, const void *bases, const g16_fr *k, size_t n);
    void (*to_jac)(void *out, const void *xyzz);
    int (*aff_is_inf)(const void *a);
    void (*acc)(const msm_level *lv, uint64_t t);
    void (*acc_aff)(const msm_level *lv, uint64_t t);
    void (*tree_round)(const msm_tree *tr, uint64_t t);
    void (*tree_final)(const msm_tree *tr, uint64_t i);
    void (*reduce)(const msm_plan *pl, const void *b, void *out, uint64_t t);
    void (*sum)(const void *in, void *out, uint64_t seglen, uint32_t G, uint64_t t);
    void (*ones)(const uint32_t *bits, uint64_t nwords, uint32_t Q, const void *bases, void *out, uint64_t t);
    void (*fin)(uint32_t nwin, uint32_t c, const void *W, const void *ones, void *out);
    g16_status (*create)(g16__gpu_msm **m, g16__gpu *g, const void *bases, size_t n, g16_error *err);
    g16_status (*create_random)(g16__gpu_msm **m, g16__gpu *g, size_t n, uint64_t seed, g16_error *err);
    g16_status (*run)(g16__gpu_msm *m, void *out, const g16_fr *k, size_t nsets, const g16__gpu_msm_opts *o,
                      g16_error *err);
    g16_status (*oneshot)(g16__gpu *g, void *out, const void *bases, const g16_fr *k, size_t n, g16_error *err);
} grp;

#define DEFINE_GROUP(P, AFF, JAC, G)                                                                             \
    static void P##_rand_points(void *vout, size_t n)                                                            \
    {                                                                                                            \
        AFF *out = vout;                                                                                         \
        JAC g, q[4], acc;                                                                                        \
        JAC *tmp = malloc((n ? n : 1) * sizeof *tmp);                                                            \
        assert_non_null(tmp);                                                                                    \
        g16__##P##_generator(&g);                                                                                \
        for (int i = 0; i < 4; i++) {                                                                            \
            g16_fr k;                                                                                            \
            tu_rand_fr(&k);                                                                                      \
            g16__##P##_mul_var(&q[i], &g, &k);                                                                   \
        }                                                                                                        \
        g16_fr k0;                                                                                               \
        tu_rand_fr(&k0);                                                                                         \
        g16__##P##_mul_var(&acc, &g, &k0);                                                                       \
        for (size_t i = 0; i < n; i++) {                                                                         \
            g16__##P##_add_var(&acc, &acc, &q[tu_rand64() % 4]);                                                 \
            if (tu_rand64() % 8 == 0)                                                                            \
                g16__##P##_dbl(&acc, &acc);                                                                      \
            tmp[i] = acc;                                                                                        \
        }                                                                                                        \
        g16__##P##_batch_to_affine(out, tmp, n);                                                                 \
        free(tmp);                                                                                               \
    }                                                                                                            \
    static void P##_neg_aff(void *r, const void *a) { g16__##P##_affine_neg(r, a); }                             \
    static g16_status P##_cpu(void *r, const void *b, const g16_fr *k, size_t n)                                 \
    {                                                                                                            \
        return g16__##P##_msm_var(r, b, k, n, NULL, NULL);                                                       \
    }                                                                                                            \
    static void P##_to_jac(void *out, const void *x) { g16__gpu_msm_xyzz_to_##P(out, x); }                       \
    static int P##_aff_is_inf(const void *a) { return g16__##P##_affine_is_infinity(a); }                        \
    static void P##_acc(const msm_level *lv, uint64_t t) { G##_acc_thread(lv, t); }                              \
    static void P##_acc_aff(const msm_level *lv, uint64_t t) { G##_acc0_aff_thread(lv, t); }                     \
    static void P##_tree_round(const msm_tree *tr, uint64_t t) { G##_tree_round_thread(tr, t); }                 \
    static void P##_tree_final(const msm_tree *tr, uint64_t i) { G##_tree_final_thread(tr, i); }                 \
    static void P##_reduce(const msm_plan *pl, const void *b, void *o, uint64_t t) { G##_reduce_thread(pl, b, o, t); } \
    static void P##_sum(const void *in, void *o, uint64_t s, uint32_t gr, uint64_t t) { G##_sum_thread(in, o, s, gr, t); } \
    static void P##_ones(const uint32_t *bits, uint64_t nw, uint32_t Q, const void *b, void *o, uint64_t t)      \
    {                                                                                                            \
        /* both loops, without and with the prefetch: the same additions in the same order */                  \
        G##_xyzz plain;                                                                                          \
        G##_ones_thread(bits, nw, Q, b, o, t, 0);                                                                \
        plain = ((G##_xyzz *)o)[t];                                                                              \
        G##_ones_thread(bits, nw, Q, b, o, t, 1);                                                                \
        if (memcmp(&plain, (G##_xyzz *)o + t, sizeof plain) != 0)                                                \
            fail_msg("%s ones thread %llu: the prefetching loop differs", #G, (unsigned long long)t);           \
    }                                                                                                            \
    static void P##_fin(uint32_t nwin, uint32_t c, const void *W, const void *ones, void *o)                     \
    {                                                                                                            \
        G##_final_thread(nwin, c, W, ones, o);                                                                   \
    }                                                                                                            \
    static g16_status P##_create(g16__gpu_msm **m, g16__gpu *g, const void *b, size_t n, g16_error *e)           \
    {                                                                                                            \
        return g16__gpu_msm_create_##P(m, g, b, n, e);                                                           \
    }                                                                                                            \
    static g16_status P##_create_random(g16__gpu_msm **m, g16__gpu *g, size_t n, uint64_t s, g16_error *e)       \
    {                                                                                                            \
        return g16__gpu_msm_create_random_##P(m, g, n, s, e);                                                   \
    }                                                                                                            \
    static g16_status P##_run(g16__gpu_msm *m, void *o, const g16_fr *k, size_t ns, const g16__gpu_msm_opts *op, \
                              g16_error *e)                                                                      \
    {                                                                                                            \
        return g16__gpu_msm_run_##P(m, o, k, ns, op, e);                                                         \
    }                                                                                                            \
    static g16_status P##_oneshot(g16__gpu *g, void *o, const void *b, const g16_fr *k, size_t n, g16_error *e)  \
    {                                                                                                            \
        return g16__gpu_##P##_msm(g, o, b, k, n, e);                                                             \
    }

DEFINE_GROUP(p1, g16_p1_affine, g16_p1, g1)
DEFINE_GROUP(p2, g16_p2_affine, g16_p2, g2)

#define GROUP_ENTRY(P, AFF, JAC, G, g2v, nm)                                                                     \
    {g2v,          nm,        sizeof(AFF), sizeof(JAC), sizeof(G##_xyzz), P##_rand_points, P##_neg_aff, P##_cpu, \
     P##_to_jac,   P##_aff_is_inf, P##_acc,   P##_acc_aff, P##_tree_round, P##_tree_final, P##_reduce,  P##_sum,          P##_ones,        P##_fin,     P##_create, \
     P##_create_random, P##_run, P##_oneshot}

static const grp groups[2] = {GROUP_ENTRY(p1, g16_p1_affine, g16_p1, g1, 0, "G1"),
                              GROUP_ENTRY(p2, g16_p2_affine, g16_p2, g2, 1, "G2")};

/* ---------------------------------------------------------------- inputs */

typedef enum {
    IN_RANDOM = 0,
    IN_ZERO,        /* all scalars zero */
    IN_ONE,         /* all scalars one */
    IN_EQUAL,       /* all scalars the same random value */
    IN_REPEATED,    /* three distinct bases, repeated */
    IN_INFINITY,    /* every third base at infinity */
    IN_OPPOSITE,    /* pairs P, −P with equal scalars, and with random ones */
    IN_EXTREME,     /* −1, 2^k − 1, small and random scalars mixed */
    IN_FILECOIN,    /* 35% zero, 35% one, 30% random */
    IN_COUNT
} input_kind;

static const char *const input_name[IN_COUNT] = {"random",      "zero scalars", "one scalars",
                                                  "equal scalars", "repeated bases", "bases at infinity",
                                                  "P and -P",    "extreme scalars", "filecoin mix"};

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    assert_non_null(p);
    return p;
}

/* 2^k − 1 (k <= 255) as a Montgomery-form Fr element */
static void fr_pow2_minus1(g16_fr *r, unsigned k)
{
    g16_fr two, acc;
    g16__fr_from_u64(&two, 2);
    g16__fr_set_one(&acc);
    for (unsigned i = 0; i < k; i++)
        g16__fr_mul(&acc, &acc, &two);
    g16_fr one;
    g16__fr_set_one(&one);
    g16__fr_sub(r, &acc, &one);
}

/* Fills bases (n, fresh random points unless kind needs a pattern) and scalars. */
static void make_input(const grp *G, input_kind kind, void *bases, g16_fr *k, size_t n)
{
    char *b = bases;
    size_t a = G->aff_sz;
    G->rand_points(bases, n);
    for (size_t i = 0; i < n; i++)
        tu_rand_fr(&k[i]);
    switch (kind) {
    case IN_ZERO:
        for (size_t i = 0; i < n; i++)
            g16__fr_set_zero(&k[i]);
        break;
    case IN_ONE:
        for (size_t i = 0; i < n; i++)
            g16__fr_set_one(&k[i]);
        break;
    case IN_EQUAL:
        for (size_t i = 1; i < n; i++)
            k[i] = k[0];
        break;
    case IN_REPEATED:
        for (size_t i = 3; i < n; i++)
            memcpy(b + i * a, b + (i % 3) * a, a);
        for (size_t i = 0; i < n; i += 2) /* equal scalars on equal bases: doublings in buckets */
            k[i] = k[0];
        break;
    case IN_INFINITY:
        for (size_t i = 0; i < n; i += 3)
            memset(b + i * a, 0, a);
        for (size_t i = 1; i < n; i += 6)
            g16__fr_set_one(&k[i]);
        break;
    case IN_OPPOSITE:
        for (size_t i = 1; i < n; i += 2) {
            G->neg_aff(b + i * a, b + (i - 1) * a);
            if (i % 4 == 1)
                k[i] = k[i - 1];
        }
        break;
    case IN_EXTREME:
        for (size_t i = 0; i < n; i++) {
            switch (i % 6) {
            case 0: g16__fr_set_one(&k[i]); g16__fr_neg(&k[i], &k[i]); break; /* r − 1 */
            case 1: fr_pow2_minus1(&k[i], (unsigned)(tu_rand64() % 256)); break;
            case 2: g16__fr_from_u64(&k[i], tu_rand64() % 5); break;
            case 3: g16__fr_from_u64(&k[i], tu_rand64()); break;
            default: break;
            }
        }
        break;
    case IN_FILECOIN:
        for (size_t i = 0; i < n; i++) {
            unsigned r = (unsigned)(tu_rand64() % 100);
            if (r < 35)
                g16__fr_set_zero(&k[i]);
            else if (r < 70)
                g16__fr_set_one(&k[i]);
        }
        break;
    default:
        break;
    }
}

static void expect_same(const grp *G, const void *got, const void *want, const char *what, size_t n,
                        input_kind kind, unsigned c)
{
    if (memcmp(got, want, G->jac_sz) != 0)
        fail_msg("%s %s n = %zu (%s, window %u): differs from the CPU MSM", G->name, what, n, input_name[kind], c);
}

/* ---------------------------------------------------------------- host simulation */

typedef struct {
    uint32_t k, v;
    uint64_t pos;
} entry;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->k != y->k)
        return x->k < y->k ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static void sim_sum_to_one(const grp *G, void **a, void **b, uint64_t nseg, uint64_t seglen)
{
    while (seglen > 1) {
        uint64_t outlen = (seglen + MSM_SUM_GROUP - 1) / MSM_SUM_GROUP;
        for (uint64_t t = 0; t < nseg * outlen; t++)
            G->sum(*a, *b, seglen, MSM_SUM_GROUP, t);
        void *x = *a;
        *a = *b;
        *b = x;
        seglen = outlen;
    }
}

static unsigned sim_aff_runs; /* simulated runs whose level 0 was batch-affine */
static unsigned sim_passes;   /* simulated passes that were not a run's only one */
static unsigned sim_tree_runs; /* simulated runs with the tree accumulation */
static unsigned sim_tree_cut;  /* ... of which a run crossed a slice's edge */

/* The tree accumulation of msm.cu (tree_accumulate) over the sorted entries, thread by thread; the
 * threads of a round in reverse order (the device's order is any: a thread reading what another
 * writes in the same round would show here), the slice's scratch poisoned before each slice. */
static void sim_tree(const grp *G, const msm_plan *pl, const uint32_t *keys, const uint32_t *vals, const void *bases,
                     void *buckets, uint64_t wave)
{
    uint32_t *boff = calloc(pl->sent, 4), *bend = calloc(pl->sent, 4);
    void *scr = xmalloc(pl->tree * G->aff_sz);
    msm_tree_info info;
    msm_tree tr;
    assert_true(boff && bend);
    memset(&info, 0, sizeof info);
    for (uint64_t i = 0; i < pl->N; i++)
        msm_tree_offsets_thread(keys, pl->N, pl->sent, boff, bend, &info, i);
    uint64_t nsl = (pl->N + pl->tree - 1) / pl->tree;
    uint32_t *slmax = calloc(nsl, 4);
    assert_non_null(slmax);
    for (uint32_t k = 0; k < pl->sent; k++)
        for (uint64_t q = 0; bend[k] > boff[k] && q < nsl; q++)
            if (msm_tree_piece(boff[k], bend[k], pl->tree, q) > slmax[q])
                slmax[q] = msm_tree_piece(boff[k], bend[k], pl->tree, q);
    memset(&tr, 0, sizeof tr);
    tr.keys = keys;
    tr.vals = vals;
    tr.bases = bases;
    tr.boff = boff;
    tr.bend = bend;
    tr.scr = scr;
    tr.buckets = buckets;
    for (uint64_t s0 = 0; s0 < info.nreal; s0 += pl->tree) {
        uint64_t n = info.nreal - s0 < pl->tree ? info.nreal - s0 : pl->tree;
        uint32_t R = msm_tree_rounds(slmax[s0 / pl->tree]);
        memset(scr, 0x5a, pl->tree * G->aff_sz);
        tr.s0 = s0;
        tr.s1 = s0 + n;
        if (s0 > 0 && keys[s0 - 1] == keys[s0])
            sim_tree_cut++;
        for (uint32_t r = 0; r < R; r++) {
            tr.r = r;
            tr.K = msm_tree_k(n, r, wave, pl->tree_k);
            assert_true(tr.K >= MSM_TREE_KMIN && tr.K <= pl->tree_k);
            for (uint64_t t = msm_tree_threads(n, r, tr.K); t-- > 0;)
                G->tree_round(&tr, t);
        }
        for (uint64_t i = tr.s0; i < tr.s1; i++)
            G->tree_final(&tr, i);
    }
    sim_tree_runs++;
    free(slmax);
    free(boff);
    free(bend);
    free(scr);
}

/* The device pipeline of msm.cu, thread by thread (lanes > 1: the batch-affine level 0 when the
 * plan takes it, with threads0 its thread count too). Returns the number of carry levels run. */
static unsigned sim_msm(const grp *G, void *out, const void *bases, const g16_fr *scal, size_t n, uint32_t c,
                        uint64_t threads0, uint64_t tred, uint32_t per, uint32_t onesQ, int final_host,
                        uint32_t lanes, uint64_t tree_slice, uint32_t tree_k, uint32_t wpp)
{
    size_t words = (n + 31) / 32, xs = G->xyzz_sz;
    unsigned levels = 0;
    uint32_t *inf_bits = calloc(words + 1, 4), *ones_bits = calloc(words + 1, 4), *others = xmalloc(n * 4);
    assert_true(inf_bits && ones_bits);
    for (size_t i = 0; i < n; i++)
        if (G->aff_is_inf((const char *)bases + i * G->aff_sz))
            inf_bits[i / 32] |= 1u << (i % 32);
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int cls = msm_classify((const gfr *)(const void *)scal, inf_bits, i);
        if (cls == 1)
            ones_bits[i / 32] |= 1u << (i % 32);
        else if (cls == 2)
            others[m++] = (uint32_t)i;
    }
    uint64_t T1 = words ? (words + onesQ - 1) / onesQ : 1;
    void *oa = calloc(T1, xs), *ob = calloc(T1, xs);
    assert_true(oa && ob);
    for (uint64_t t = 0; t < T1; t++)
        G->ones(ones_bits, words, onesQ, bases, oa, t);
    sim_sum_to_one(G, &oa, &ob, 1, T1);
    msm_plan pl;
    memset(&pl, 0, sizeof pl);
    void *W = NULL, *ra = NULL, *rb = NULL, *buckets = NULL, *sp0 = NULL, *sp1 = NULL;
    uint32_t *keys = NULL, *vals = NULL, *sk0 = NULL, *sk1 = NULL;
    char wall[(256 / 2 + 1) * sizeof(g16_fp) * 8]; /* the passes' window sums (as msm.cu's f->wall) */
/* a pass's buffers, freed after each pass of several and at the end */
#define SIM_FREE_PASS()                                                                                            \
    do {                                                                                                           \
        free(keys), free(vals), free(buckets), free(sk0), free(sk1), free(sp0), free(sp1), free(ra), free(rb);     \
        keys = vals = sk0 = sk1 = NULL;                                                                            \
        buckets = sp0 = sp1 = ra = rb = NULL;                                                                      \
    } while (0)
    uint32_t w0 = 0, c_pass = c;
    while (m > 0) { /* one pass per trip: windows [w0, w0 + pl.nwin) */
        msm_plan_make_pass(&pl, m, c_pass, w0, wpp, threads0, tred, per, lanes, threads0);
        c_pass = pl.c;
        msm_plan_tree(&pl, tree_slice, tree_k);
        keys = xmalloc(pl.N * 4);
        vals = xmalloc(pl.N * 4);
        for (uint64_t j = 0; j < m; j++)
            msm_digits_thread(&pl, (const gfr *)(const void *)scal, others, keys, vals, j);
        entry *e = xmalloc(pl.N * sizeof *e);
        for (uint64_t i = 0; i < pl.N; i++) {
            e[i].k = keys[i];
            e[i].v = vals[i];
            e[i].pos = i;
            assert_true(keys[i] <= pl.sent && keys[i] < (1u << pl.key_bits));
        }
        qsort(e, pl.N, sizeof *e, entry_cmp);
        for (uint64_t i = 0; i < pl.N; i++) {
            keys[i] = e[i].k;
            vals[i] = e[i].v;
        }
        free(e);
        buckets = calloc((size_t)pl.nwin * pl.B, xs);
        uint64_t slots = 2 * pl.T0 + 2;
        sk0 = xmalloc(slots * 4);
        sk1 = xmalloc(slots * 4);
        sp0 = xmalloc(slots * xs);
        sp1 = xmalloc(slots * xs);
        assert_non_null(buckets);
        msm_level lv;
        memset(&lv, 0, sizeof lv);
        lv.n = pl.N;
        lv.per = pl.per0;
        lv.sent = pl.sent;
        lv.keys = keys;
        lv.vals = vals;
        lv.bases = bases;
        lv.buckets = buckets;
        lv.okeys = sk0;
        lv.opts = sp0;
        if (pl.tree) {
            sim_tree(G, &pl, keys, vals, bases, buckets, threads0);
            goto reduce;
        }
        if (pl.K > 1) {
            uint64_t nl = (uint64_t)pl.K * pl.TL;
            lv.K = pl.K;
            lv.T0 = pl.T0;
            lv.TL = pl.TL;
            lv.lacc = xmalloc(nl * G->aff_sz);
            lv.lpre = xmalloc(nl * G->aff_sz / 2);
            lv.lden = xmalloc(nl * G->aff_sz);
            lv.lanes = xmalloc(nl * sizeof(msm_lane));
            memset(lv.lpre, 0x5a, nl * G->aff_sz / 2); /* poison: read only where written */
            memset(lv.lden, 0x5a, nl * G->aff_sz);
            for (uint64_t t = 0; t < pl.TL; t++)
                G->acc_aff(&lv, t);
            free(lv.lacc);
            free(lv.lpre);
            free(lv.lden);
            free(lv.lanes);
            lv.K = 0;
            sim_aff_runs++;
        } else {
            for (uint64_t t = 0; t < pl.T0; t++)
                G->acc(&lv, t);
        }
        uint64_t S = 2 * pl.T0, T = pl.T0;
        while (T > 1) {
            T = (S + pl.per - 1) / pl.per;
            lv.n = S;
            lv.per = pl.per;
            lv.keys = lv.okeys;
            lv.vals = NULL;
            lv.bases = NULL;
            lv.in = lv.opts;
            lv.okeys = lv.okeys == sk0 ? sk1 : sk0;
            lv.opts = lv.opts == sp0 ? sp1 : sp0;
            for (uint64_t t = 0; t < T; t++)
                G->acc(&lv, t);
            S = 2 * T;
            levels++;
        }
    reduce:
        ra = xmalloc((size_t)pl.nwin * pl.TR * xs);
        rb = xmalloc((size_t)pl.nwin * pl.TR * xs);
        for (uint64_t t = 0; t < (uint64_t)pl.nwin * pl.TR; t++)
            G->reduce(&pl, buckets, ra, t);
        sim_sum_to_one(G, &ra, &rb, pl.nwin, pl.TR);
        W = ra;
        if (pl.nwin == pl.nwin_all)
            break;
        memcpy(wall + (size_t)pl.w0 * xs, W, (size_t)pl.nwin * xs);
        W = wall;
        w0 = pl.w0 + pl.nwin;
        sim_passes++;
        SIM_FREE_PASS();
        if (w0 >= pl.nwin_all)
            break;
    }
    void *res = xmalloc(xs);
    if (final_host)
        g16__gpu_msm_final_host(res, G->g2, m ? pl.nwin_all : 0, pl.c, W, oa);
    else
        G->fin(m ? pl.nwin_all : 0, pl.c, W, oa, res);
    G->to_jac(out, res);
    free(res);
    free(inf_bits);
    free(ones_bits);
    free(others);
    free(oa);
    free(ob);
    SIM_FREE_PASS();
    return levels;
}
#undef SIM_FREE_PASS

/* One input on the simulation with the (window, threads, carry range) shapes of the mask. */
static void sim_case(const grp *G, input_kind kind, size_t n, unsigned mask)
{
    static const struct {
        uint32_t c;
        uint64_t threads0, tred;
        uint32_t per, onesQ, lanes;
        uint64_t tree;
        uint32_t tree_k, wpp;
    } shapes[] = {{0, 1000, 1000, 16, 1, 1, 0, 0, 0}, {2, 7, 5, 4, 2, 1, 0, 0, 0},  {3, 3, 64, 5, 1, 1, 0, 0, 0},
                  {5, 50, 3, 4, 3, 1, 0, 0, 0},       {6, 13, 2, 6, 1, 1, 0, 0, 0}, {3, 2, 7, 4, 1, 4, 0, 0, 0},
                  {4, 1, 5, 5, 2, 7, 0, 0, 0},        {6, 1, 3, 4, 1, 2, 0, 0, 0},
                  /* tree accumulation: one slice; slices of 7 entries, 4 per batch; 16 and 5 */
                  {0, 1000, 1000, 16, 1, 1, 1u << 30, 32, 0}, {3, 5, 7, 4, 2, 1, 7, 4, 0}, {5, 2, 3, 4, 1, 1, 16, 5, 0},
                  /* passes: of 1 window (the automatic c), of 5 (c = 5: 52 windows, the last pass 2), of 3
                   * with the batch-affine level 0, of 2 with the tree */
                  {0, 7, 5, 4, 1, 1, 0, 0, 1}, {5, 13, 3, 4, 2, 1, 0, 0, 5}, {4, 1, 5, 5, 1, 7, 0, 0, 3},
                  {3, 5, 7, 4, 2, 1, 7, 4, 2}};
    void *bases = xmalloc(n * G->aff_sz);
    g16_fr *k = xmalloc(n * sizeof *k);
    char want[sizeof(g16_p2)], got[sizeof(g16_p2)];
    make_input(G, kind, bases, k, n);
    assert_int_equal(G->cpu(want, bases, k, n), G16_OK);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
        if (!((mask >> s) & 1))
            continue;
        if (shapes[s].c == 2 && n > (G->g2 ? 3 : 16))
            continue; /* 128 windows on the host: slow, and the small sizes cover them */
        sim_msm(G, got, bases, k, n, shapes[s].c, shapes[s].threads0, shapes[s].tred, shapes[s].per,
                shapes[s].onesQ, (int)(s % 2), shapes[s].lanes, shapes[s].tree, shapes[s].tree_k, shapes[s].wpp);
        expect_same(G, got, want, "simulation", n, kind, shapes[s].c);
    }
    free(bases);
    free(k);
}

/* The Fp2 products of the point arithmetic (msm_core.cuh, host compile): the lazy form (one
 * reduction per coefficient) and the three-reduction Karatsuba against the CPU's g16__fp2_mul, on
 * random pairs and on every pair of edge coefficients (0, 1, −1, p − 1 raw...), where a0·b0 − a1·b1
 * borrows and where it does not; and with the output aliasing an input. */
static void fp2_edge(g16_fp2 *x, int which)
{
    g16_fp one = g16__fp_one, v[5];
    g16__fp_set_zero(&v[0]);
    v[1] = one;
    g16__fp_neg(&v[2], &one);
    memset(&v[3], 0, sizeof v[3]);
    v[3].l[0] = 1; /* the raw value 1 (2^-384 in Montgomery form) */
    memcpy(&v[4], g16__fp_modulus, sizeof v[4]);
    v[4].l[0] -= 1; /* raw p − 1 */
    x->c0 = v[which % 5];
    x->c1 = v[(which / 5) % 5];
}

static void test_host_fp2(void **state)
{
    (void)state;
    int iters = tu_iters(4000);
    for (int i = 0; i < iters + 625; i++) {
        g16_fp2 a, b, want;
        if (i < 625) {
            fp2_edge(&a, i % 25);
            fp2_edge(&b, i / 25);
        } else {
            tu_rand_fp(&a.c0);
            tu_rand_fp(&a.c1);
            tu_rand_fp(&b.c0);
            tu_rand_fp(&b.c1);
        }
        g16__fp2_mul(&want, &a, &b);
        gfp2 x, y, z;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        gfp2_mul_lazy(&z, &x, &y);
        if (memcmp(&z, &want, sizeof z) != 0)
            fail_msg("lazy Fp2 product differs from the CPU at case %d", i);
        gfp2_mul_3red(&z, &x, &y);
        if (memcmp(&z, &want, sizeof z) != 0)
            fail_msg("Fp2 product (3 reductions) differs from the CPU at case %d", i);
        gfp2_mul_lazy(&x, &x, &y); /* aliasing */
        assert_memory_equal(&x, &want, sizeof x);
        memcpy(&x, &a, sizeof x);
        gfp2_mul_lazy(&y, &x, &y);
        assert_memory_equal(&y, &want, sizeof y);
    }
}

static void test_sim_random(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 3, 5, 33, 100};
    for (int g = 0; g < 2; g++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            if (g == 1 && sizes[i] > 33)
                continue;
            sim_case(&groups[g], IN_RANDOM, sizes[i], g ? 0x368b : 0x7fff);
        }
    printf("  %u simulated runs with the batch-affine level 0, %u with the tree accumulation (%u with a run "
           "cut by a slice), %u passes of runs in several\n", sim_aff_runs, sim_tree_runs, sim_tree_cut, sim_passes);
    assert_true(sim_aff_runs > 0 && sim_tree_runs > 0 && sim_tree_cut > 0 && sim_passes > 0);
}

static void test_sim_edges(void **state)
{
    (void)state;
    for (int g = 0; g < 2; g++)
        for (int kind = 1; kind < IN_COUNT; kind++)
            sim_case(&groups[g], (input_kind)kind, g ? 16 : 48,
                     (g ? 0x09u << (kind % 2) : 0x0du << (kind % 2)) | (0x20u << (kind % 3)) |
                         (0x100u << (kind % 3)) | (0x800u << (kind % 4)));
}

/* The carry levels really run: one bucket holding everything (equal scalars) over many threads. */
static void test_sim_levels(void **state)
{
    (void)state;
    const grp *G = &groups[0];
    size_t n = 200;
    void *bases = xmalloc(n * G->aff_sz);
    g16_fr *k = xmalloc(n * sizeof *k);
    g16_p1 want, got;
    make_input(G, IN_EQUAL, bases, k, n);
    assert_int_equal(G->cpu(&want, bases, k, n), G16_OK);
    unsigned lv = sim_msm(G, &got, bases, k, n, 10, 100, 4, 4, 1, 0, 1, 0, 0, 0);
    expect_same(G, &got, &want, "simulation (levels)", n, IN_EQUAL, 10);
    printf("  equal scalars, n = %zu, 100 threads: %u carry levels\n", n, lv);
    assert_true(lv >= 3);
    /* the same with the batch-affine level 0: 4 threads of 8 lanes, every lane inside one run */
    unsigned runs = sim_aff_runs;
    lv = sim_msm(G, &got, bases, k, n, 4, 4, 4, 4, 1, 0, 8, 0, 0, 0);
    expect_same(G, &got, &want, "simulation (levels, affine)", n, IN_EQUAL, 4);
    assert_true(sim_aff_runs == runs + 1 && lv >= 2);
    /* the tree accumulation: runs of 200 entries cut into slices of 64 (6 rounds each),
     * and one slice holding them whole */
    runs = sim_tree_runs;
    unsigned cut = sim_tree_cut;
    sim_msm(G, &got, bases, k, n, 10, 100, 4, 4, 1, 0, 1, 64, 6, 0);
    expect_same(G, &got, &want, "simulation (tree, slices of 64)", n, IN_EQUAL, 10);
    sim_msm(G, &got, bases, k, n, 10, 3, 4, 4, 1, 0, 1, 1024, 32, 0);
    expect_same(G, &got, &want, "simulation (tree, one slice)", n, IN_EQUAL, 10);
    assert_true(sim_tree_runs == runs + 2 && sim_tree_cut > cut);
    free(bases);
    free(k);
}

/* The chunked upload's arithmetic (msm_core.cuh: msm_ones_shape, msm_up_chunks, msm_up_chunk), on
 * random and edge sizes: the chunks tile [0, n) in at most k pieces of at least MSM_UP_CHUNK_MIN
 * points (but the last), each boundary a whole number of bitmap words and of ones threads; the
 * chunks' thread ranges tile [0, T); every word a thread reads lies in its chunk; T threads of Q
 * words cover the bitmap; the default count (msm_up_chunks_asked) at its threshold. */
static void test_up_chunks(void **state)
{
    (void)state;
    static const uint64_t edge_n[] = {1, 31, 32, 33, (1u << 18) - 1, 1u << 18, (1u << 18) + 1, (1u << 19) + 77,
                                      (3u << 18) + 77, 1u << 24, (1u << 26) + 5, 1ull << 27};
    unsigned edges = (unsigned)(sizeof edge_n / sizeof edge_n[0]);
    for (int it = 0; it < tu_iters(2000); it++) {
        uint8_t rb[16];
        tu_rand_bytes(rb, sizeof rb);
        uint64_t r64 = 0;
        memcpy(&r64, rb, 8);
        uint64_t n = (unsigned)it < edges ? edge_n[it] : 1 + r64 % ((1ull << (10 + rb[8] % 18)));
        uint64_t threads = 1 + (uint64_t)rb[9] * 400 + rb[10], words = (n + 31) / 32, len = 0;
        unsigned k = 2 + rb[11] % (MSM_UP_CHUNKS - 1);
        uint32_t Q = 0, Q1 = 0;
        uint64_t T = 0, T1 = 0;
        msm_ones_shape(words, threads, 1, &Q1, &T1);
        msm_ones_shape(words, threads, MSM_UP_CHUNKS, &Q, &T);
        assert_true(Q >= 1 && Q <= Q1 && (uint64_t)Q * T >= words && T1 <= T);
        unsigned nch = msm_up_chunks(n, k, Q, &len);
        assert_true(nch >= 1 && nch <= k && len % (32ull * Q) == 0 && len >= MSM_UP_CHUNK_MIN);
        uint64_t next_i = 0, next_t = 0;
        for (unsigned j = 0; j < nch; j++) {
            uint64_t i0, i1, t0, t1;
            msm_up_chunk(n, j, nch, len, Q, T, &i0, &i1, &t0, &t1);
            if (i0 != next_i || t0 != next_t || i1 <= i0 || t1 < t0 || (j + 1 < nch && i1 - i0 != len))
                fail_msg("n = %llu, k = %u, Q = %u: chunk %u of %u is [%llu, %llu), threads [%llu, %llu)",
                         (unsigned long long)n, k, Q, j, nch, (unsigned long long)i0, (unsigned long long)i1,
                         (unsigned long long)t0, (unsigned long long)t1);
            for (uint64_t t = t0; t < t1; t += (t1 - t0 > 64 ? (t1 - t0) / 64 : 1)) {
                uint64_t w0 = t * Q, w1 = (t + 1) * Q < words ? (t + 1) * Q : words;
                if (w0 < w1 && (w0 < i0 / 32 || w1 > (i1 + 31) / 32))
                    fail_msg("n = %llu: thread %llu reads words [%llu, %llu) outside chunk %u", (unsigned long long)n,
                             (unsigned long long)t, (unsigned long long)w0, (unsigned long long)w1, j);
            }
            if (t1 > t0) {
                uint64_t t = t1 - 1, w0 = t * Q, w1 = (t + 1) * Q < words ? (t + 1) * Q : words;
                assert_true(w0 >= w1 || (w0 >= i0 / 32 && w1 <= (i1 + 31) / 32));
            }
            next_i = i1;
            next_t = t1;
        }
        assert_true(next_i == n && next_t == T);
    }
    /* the default: 8 chunks from 2^23 host scalars, one piece below and for device scalars; an
     * explicit count is kept */
    assert_int_equal(msm_up_chunks_asked(MSM_UP_AUTO_MIN - 1, 0, 0), 1);
    assert_int_equal(msm_up_chunks_asked(MSM_UP_AUTO_MIN, 0, 0), MSM_UP_CHUNKS);
    assert_int_equal(msm_up_chunks_asked(1ull << 27, 0, 1), 1);
    assert_int_equal(msm_up_chunks_asked(1ull << 27, 1, 0), 1);
    assert_int_equal(msm_up_chunks_asked(1000, 3, 0), 3);
    assert_true(MSM_UP_AUTO_MIN / MSM_UP_CHUNKS >= MSM_UP_CHUNK_MIN);
}

/* The tree accumulation's shape arithmetic (msm_core.cuh), on random and edge values: a run's pieces
 * over the slices add up to the run; the rounds are the fewest that halve the longest piece to one
 * entry (at least 1); a round's batch stays in [KMIN, kmax] and its threads' ranges (at most
 * MSM_TREE_SPAN_MAX entries, a whole number of pair strides until the cap) cover the slice; the
 * plan turns it off when the offsets would not fit 32 bits. */
static void test_tree_shape(void **state)
{
    (void)state;
    for (int it = 0; it < 2000; it++) {
        uint64_t slice = 1 + tu_rand64() % (it % 2 ? 64 : 1u << 20), b = tu_rand64() % (1u << 22);
        uint64_t e = b + 1 + tu_rand64() % (it % 3 ? 300 : 1u << 21), sum = 0;
        for (uint64_t q = b / slice; q <= (e - 1) / slice; q++) {
            uint32_t piece = msm_tree_piece(b, e, slice, q);
            assert_true(piece >= 1 && piece <= slice);
            sum += piece;
        }
        assert_int_equal(sum, e - b);
        assert_int_equal(msm_tree_piece(b, e, slice, (e - 1) / slice + 1), 0);
        if (b / slice > 0)
            assert_int_equal(msm_tree_piece(b, e, slice, b / slice - 1), 0);
        uint64_t len = e - b;
        uint32_t R = msm_tree_rounds(len);
        assert_true(R >= 1 && ((uint64_t)1 << R) >= len && (R == 1 || ((uint64_t)1 << (R - 1)) < len));
        uint64_t n = 1 + tu_rand64() % (1u << 26), wave = 1 + tu_rand64() % 100000;
        uint32_t kmax = MSM_TREE_KMIN + (uint32_t)(tu_rand64() % (MSM_TREE_KMAX - MSM_TREE_KMIN + 1));
        for (uint32_t r = 0; r < 30; r++) {
            uint32_t K = msm_tree_k(n, r, wave, kmax);
            uint64_t span = msm_tree_span(r, K), T = msm_tree_threads(n, r, K);
            assert_true(K >= MSM_TREE_KMIN && K <= kmax);
            assert_true(span >= 2 && span <= MSM_TREE_SPAN_MAX);
            if (((uint64_t)K << (r + 1)) <= MSM_TREE_SPAN_MAX)
                assert_int_equal(span, (uint64_t)K << (r + 1));
            assert_true(T * span >= n && (T - 1) * span < n);
        }
    }
    assert_int_equal(msm_tree_rounds(1), 1);
    assert_int_equal(msm_tree_rounds(2), 1);
    assert_int_equal(msm_tree_rounds(3), 2);
    assert_int_equal(msm_tree_rounds(1u << 20), 20);
    assert_int_equal(msm_tree_rounds((1u << 20) + 1), 21);
    msm_plan p;
    msm_plan_make(&p, 1000, 0, 100, 100, 0, 1, 0);
    msm_plan_tree(&p, 64, 100);
    assert_true(p.tree == 64 && p.tree_k == MSM_TREE_KMAX);
    msm_plan_tree(&p, 1ull << 40, 1);
    assert_true(p.tree == p.N && p.tree_k == MSM_TREE_KMIN);
    msm_plan_tree(&p, 0, 8);
    assert_int_equal(p.tree, 0);
    msm_plan_make(&p, 400000000, 22, 100, 100, 0, 1, 0); /* 12·4e8 entries: past 32-bit offsets */
    msm_plan_tree(&p, 1u << 25, 32);
    assert_int_equal(p.tree, 0);
}

/* Booth digits against the CPU's definition, and the plan's invariants. */
static void test_digits_plan(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(200); it++) {
        g16_fr a;
        gfr k;
        uint64_t l[4];
        tu_rand_fr(&a);
        if (it % 4 == 0)
            g16__fr_neg(&a, &a);
        msm_scalar_canonical(&k, (const gfr *)(const void *)&a);
        g16__fr_to_limbs(l, &a);
        assert_memory_equal(l, k.l, 32);
        for (uint32_t c = 2; c <= MSM_MAX_WINDOW; c++) {
            uint32_t nwin = (256 + c - 1) / c;
            /* Σ d_w 2^(wc) = k, checked with GMP */
            mpz_t acc, t, want;
            mpz_inits(acc, t, want, NULL);
            for (uint32_t w = nwin; w-- > 0;) {
                int32_t d = msm_booth_digit(&k, w, c);
                assert_true(d >= -(1 << (c - 1)) && d <= (1 << (c - 1)));
                mpz_mul_2exp(acc, acc, c);
                if (d >= 0)
                    mpz_add_ui(acc, acc, (unsigned long)d);
                else
                    mpz_sub_ui(acc, acc, (unsigned long)-d);
            }
            tu_fr_to_mpz(want, &a);
            if (mpz_cmp(acc, want) != 0)
                fail_msg("digits of window %u do not sum to the scalar", c);
            mpz_clears(acc, t, want, NULL);
        }
    }
    {
        /* the largest window, asked for: 12 windows of 2^21 buckets, keys below 2^25 */
        msm_plan p;
        msm_plan_make(&p, 1ull << 26, MSM_MAX_WINDOW, 50000, 100000, 0, 1, 0);
        assert_true(p.c == 22 && p.nwin == 12 && p.B == 1u << 21 && p.sent == 12u << 21 && p.key_bits == 25);
        assert_true(p.L * p.TR == p.B && p.T0 * p.per0 >= p.N);
    }
    {
        /* the automatic window never shrinks as the scalars grow; the largest Filecoin H query
         * (2^27 random scalars) takes the largest window, 2^24 the 20 measured best there */
        uint32_t prev = 2;
        for (unsigned e = 0; e <= 31; e++) {
            uint32_t c = msm_window_for(1ull << e);
            assert_true(c >= prev && c <= MSM_AUTO_MAX_WINDOW);
            prev = c;
        }
        assert_int_equal(msm_window_for(1ull << 24), 20);
        assert_int_equal(msm_window_for(1ull << 27), MSM_MAX_WINDOW);
        /* where the automatic window exceeds MSM_LEAN_WINDOW, up to 2^27 scalars, the lean plan
         * needs less memory (msm.cu, plan_and_ensure falls back to it; from 2^28 the 13th
         * window's entries outweigh the larger window's buckets), and the scratch bound covers
         * the automatic plan's entries, buckets and per-scalar arrays */
        for (unsigned e = 10; e <= 31; e++) {
            uint64_t n = 1ull << e;
            for (int g2 = 0; g2 < 2; g2++) {
                msm_plan a, l;
                uint64_t xs = g2 ? 384 : 192;
                msm_plan_make(&a, n, 0, 50000, 100000, 0, 1, 0);
                msm_plan_make(&l, n, MSM_LEAN_WINDOW, 50000, 100000, 0, 1, 0);
                uint64_t need_a = a.N * 16 + (uint64_t)a.nwin * a.B * xs + n * 41;
                uint64_t need_l = l.N * 16 + (uint64_t)l.nwin * l.B * xs + n * 41;
                if (a.c > MSM_LEAN_WINDOW && e <= 27)
                    assert_true(need_l < need_a);
                assert_true(g16__gpu_msm_scratch_bytes(n, g2) >= need_a);
            }
        }
    }
    static const uint64_t ms[] = {1, 2, 100, 1 << 16, 1 << 20, 1 << 24, 1ull << 26, 1ull << 27};
    for (size_t i = 0; i < sizeof ms / sizeof ms[0]; i++) {
        msm_plan p;
        msm_plan_make(&p, ms[i], 0, 50000, 100000, 0, 1, 0);
        assert_true(p.K == 1 && p.TL == p.T0);
        assert_true(p.c >= 2 && p.c <= MSM_AUTO_MAX_WINDOW);
        assert_true((uint64_t)p.nwin * p.c >= 256);
        assert_true(p.sent < (1u << p.key_bits));
        assert_true(p.T0 * p.per0 >= p.N && (p.T0 - 1) * p.per0 < p.N);
        assert_true(p.L * p.TR == p.B);
        /* at least c buckets per reduction thread (or the whole window) */
        assert_true(p.L >= p.c || p.L == p.B);
        printf("  m = %llu: window %u, %u windows, %llu level-0 threads of %llu entries, reduction %u x %u\n",
               (unsigned long long)ms[i], p.c, p.nwin, (unsigned long long)p.T0, (unsigned long long)p.per0,
               p.nwin * p.TR, p.L);
        /* batch-affine level 0: lanes only with MSM_AFF_MIN_PER entries each, all entries covered */
        msm_plan a;
        msm_plan_make(&a, ms[i], 0, 50000, 100000, 0, 32, 40000);
        assert_true(a.c == p.c && a.N == p.N);
        if (a.K > 1) {
            assert_true(a.K == 32 && a.per0 >= MSM_AFF_MIN_PER);
            assert_true(a.T0 * a.per0 >= a.N && (a.T0 - 1) * a.per0 < a.N);
            assert_true(a.TL * a.K >= a.T0 && (a.TL - 1) * a.K < a.T0 && a.TL <= 40000);
        } else {
            assert_true(a.per0 == p.per0 && a.T0 == p.T0 && a.N < (uint64_t)MSM_AFF_MIN_PER * 32 * 40000);
        }
        if (ms[i] >= (1u << 24))
            assert_true(a.K == 32);
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
    return v > 26 ? 26 : v;
}

/* GPU (resident bases, optional opts) against the CPU on one input. */
static void dev_check(g16__gpu *g, const grp *G, const void *bases, const g16_fr *k, size_t n, input_kind kind,
                      const g16__gpu_msm_opts *o)
{
    g16__gpu_msm *m = NULL;
    g16_error err = {0, ""};
    char want[sizeof(g16_p2)], got[sizeof(g16_p2)];
    assert_int_equal(G->cpu(want, bases, k, n), G16_OK);
    if (G->create(&m, g, bases, n, &err) != G16_OK)
        fail_msg("%s create n = %zu: %s", G->name, n, err.msg);
    memset(got, 0xa5, sizeof got);
    if (G->run(m, got, k, 1, o, &err) != G16_OK)
        fail_msg("%s run n = %zu (%s): %s", G->name, n, input_name[kind], err.msg);
    expect_same(G, got, want, "device", n, kind, o ? o->window : 0);
    g16__gpu_msm_destroy(m);
}

static void test_dev_sizes(void **state)
{
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    unsigned max = dev_max_log();
    g16_error err = {0, ""};
    for (int gi = 0; gi < 2; gi++) {
        const grp *G = &groups[gi];
        unsigned gmax = max;
        size_t nmax = ((size_t)1 << gmax) + 1;
        /* bases from the device's generator (downloaded; checked on the curve by sampling),
         * random scalars, every size a prefix */
        g16__gpu_msm *rm = NULL;
        if (G->create_random(&rm, g, nmax, tu_rand64(), &err) != G16_OK)
            fail_msg("%s random bases: %s", G->name, err.msg);
        char *bases = xmalloc(nmax * G->aff_sz);
        if (g16__gpu_msm_download_bases(rm, bases, 0, nmax, &err) != G16_OK)
            fail_msg("download: %s", err.msg);
        g16__gpu_msm_destroy(rm);
        for (size_t i = 0; i < nmax; i += 1 + nmax / 64) {
            if (gi ? !g16__p2_affine_on_curve((const g16_p2_affine *)bases + i) ||
                         !g16__p2_affine_in_subgroup((const g16_p2_affine *)bases + i)
                   : !g16__p1_affine_on_curve((const g16_p1_affine *)bases + i) ||
                         !g16__p1_affine_in_subgroup((const g16_p1_affine *)bases + i))
                fail_msg("%s device random base %zu is not in the subgroup", G->name, i);
        }
        g16_fr *k = xmalloc(nmax * sizeof *k);
        for (size_t i = 0; i < nmax; i++)
            tu_rand_fr(&k[i]);
        dev_check(g, G, bases, k, 1, IN_RANDOM, NULL);
        dev_check(g, G, bases, k, 2, IN_RANDOM, NULL);
        dev_check(g, G, bases, k, 3, IN_RANDOM, NULL);
        for (unsigned e = 2; e <= gmax; e++) {
            size_t p = (size_t)1 << e;
            dev_check(g, G, bases, k, p - 1, IN_RANDOM, NULL);
            dev_check(g, G, bases, k, p, IN_RANDOM, NULL);
            dev_check(g, G, bases, k, p + 1, IN_RANDOM, NULL);
        }
        /* the largest size with the level 0 forced each way: batch-affine with 32 lanes in 1000
         * threads, and XYZZ */
        g16__gpu_msm_opts o;
        memset(&o, 0, sizeof o);
        o.threads0 = 1000;
        o.lanes = 32;
        dev_check(g, G, bases, k, nmax, IN_RANDOM, &o);
        o.lanes = 1;
        dev_check(g, G, bases, k, nmax, IN_RANDOM, &o);
        /* and with the tree accumulation, in one slice and in slices of 2^16 entries */
        memset(&o, 0, sizeof o);
        o.tree = 31;
        for (unsigned e = 0; e <= gmax; e += e < 4 ? 1 : 3)
            dev_check(g, G, bases, k, ((size_t)1 << e) + e % 2, IN_RANDOM, &o);
        o.tree = 16;
        dev_check(g, G, bases, k, nmax, IN_RANDOM, &o);
        printf("  device %s: n = 1, 2, 3, 2^k +- 1 up to 2^%u agree with the CPU (2^%u + 1 also with either level 0 "
               "and the tree accumulation)\n",
               G->name, gmax, gmax);
        free(bases);
        free(k);
    }
    g16__gpu_close(g);
}

static void test_dev_edges(void **state)
{
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    for (int gi = 0; gi < 2; gi++) {
        const grp *G = &groups[gi];
        size_t cap = (size_t)1 << dev_max_log(), n = gi ? 3000 : 20000;
        n = n < cap ? n : cap; /* small under compute-sanitizer (G16_GPU_TEST_MAX_LOG) */
        void *bases = xmalloc(n * G->aff_sz);
        g16_fr *k = xmalloc(n * sizeof *k);
        for (int kind = 0; kind < IN_COUNT; kind++) {
            make_input(G, (input_kind)kind, bases, k, n);
            dev_check(g, G, bases, k, n, (input_kind)kind, NULL);
            /* small windows, few level-0 threads and short carry ranges: buckets split over
             * threads and several carry levels on the device too */
            g16__gpu_msm_opts o;
            memset(&o, 0, sizeof o);
            o.window = 2 + (unsigned)(kind % 6);
            o.threads0 = 1 + (uint64_t)kind * 37;
            o.carry_per = 4 + (unsigned)(kind % 3);
            o.final_device = kind % 2;
            dev_check(g, G, bases, k, n, (input_kind)kind, &o);
            /* the same shapes with the batch-affine level 0 (each special case through the lanes) */
            o.lanes = 2 + (unsigned)(kind % 7);
            dev_check(g, G, bases, k, n, (input_kind)kind, &o);
            /* the tree accumulation: slices of 2^6..2^10 entries (runs cut by slices), 4..32 per batch;
             * then the automatic window in one slice */
            o.lanes = 1;
            o.tree = 6 + (unsigned)(kind % 5);
            o.tree_k = 4 + (unsigned)(kind * 7 % 29);
            dev_check(g, G, bases, k, n, (input_kind)kind, &o);
            memset(&o, 0, sizeof o);
            o.tree = 31;
            dev_check(g, G, bases, k, n, (input_kind)kind, &o);
        }
        printf("  device %s: edge cases at n = %zu agree with the CPU (automatic and forced small shapes)\n",
               G->name, n);
        free(bases);
        free(k);
    }
    g16__gpu_close(g);
}

/* The automatic window 22 (2^26 scalars) and its fallback to MSM_LEAN_WINDOW when its buffers do
 * not fit (msm.cu, plan_and_ensure). Large (2^26 G1 points, ~25 GB of device memory), so only
 * with G16_GPU_TEST_BIG=1. With window 20 forced, the run's scratch sized for 20 is measured as
 * in use; a buffer then takes all the free memory but 512 MB and the scratch is released, so
 * that the automatic run finds room for window 20's buffers and not for 22's (~2.4 GB more):
 * without the fallback it fails with G16_ERR_NOMEM. Its result must equal window 20's, and
 * window 22's once the buffer is gone (no CPU oracle at this size: the smaller sizes test the
 * windows against the CPU; here the three runs must agree bit for bit). */
static void test_dev_lean_fallback(void **state)
{
    (void)state;
    if (!getenv("G16_GPU_TEST_BIG") || strcmp(getenv("G16_GPU_TEST_BIG"), "1") != 0) {
        printf("  skipped: set G16_GPU_TEST_BIG=1 (2^26 G1 points, ~25 GB of device memory)\n");
        skip();
    }
    g16__gpu *g = dev_open_or_skip();
    g16_error err = {0, ""};
    const grp *G = &groups[0];
    size_t n = (size_t)1 << 26, free1 = 0, total = 0;
    g16_fr *k = xmalloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++)
        tu_rand_fr(&k[i]);
    g16__gpu_msm *m = NULL;
    if (G->create_random(&m, g, n, tu_rand64(), &err) != G16_OK)
        fail_msg("random bases: %s", err.msg);
    char r20[sizeof(g16_p1)], rauto[sizeof(g16_p1)], r22[sizeof(g16_p1)];
    g16__gpu_msm_opts o;
    memset(&o, 0, sizeof o);
    o.window = MSM_LEAN_WINDOW;
    memset(r20, 0xa5, sizeof r20);
    if (G->run(m, r20, k, 1, &o, &err) != G16_OK)
        fail_msg("window %u: %s", MSM_LEAN_WINDOW, err.msg);
    assert_int_equal(msm_window_for(n), MSM_MAX_WINDOW);
    assert_int_equal(g16__gpu_mem_info(g, &free1, &total, &err), G16_OK);
    void *hog = NULL;
    if (free1 < ((size_t)1 << 30))
        fail_msg("only %zu bytes free beside window 20's scratch", free1);
    size_t hog_bytes = free1 - ((size_t)512 << 20);
    if (g16__gpu_alloc(g, &hog, hog_bytes, "test: all but 512 MB", &err) != G16_OK)
        fail_msg("hog of %zu bytes: %s", hog_bytes, err.msg);
    g16__gpu_msm_release_scratch(m);
    memset(rauto, 0x5a, sizeof rauto);
    if (G->run(m, rauto, k, 1, NULL, &err) != G16_OK)
        fail_msg("automatic window with %zu bytes taken: %s", hog_bytes, err.msg);
    assert_memory_equal(rauto, r20, sizeof r20);
    g16__gpu_free(g, hog);
    g16__gpu_msm_release_scratch(m);
    memset(r22, 0x3c, sizeof r22);
    if (G->run(m, r22, k, 1, NULL, &err) != G16_OK)
        fail_msg("automatic window: %s", err.msg);
    assert_memory_equal(r22, r20, sizeof r20);
    printf("  device G1 2^26 random: window 20 = automatic (22) with all but 512 MB taken (fell back to 20) = "
           "automatic (22)\n");
    g16__gpu_msm_destroy(m);
    free(k);
    g16__gpu_close(g);
}

/* opts.upload_chunks: host scalars above 2^18 points cross PCIe in chunks (msm.cu,
 * classify_ones: each chunk is classified and its ones summed behind its upload, the last chunk
 * shorter). Against the CPU: two sets in one call in up to 8 chunks with the final on the device
 * (nothing synchronizes the sets then, so the second set's upload must wait for the first set's
 * reads of the scalar buffer), each set alone in up to 3 chunks and in one piece, the same
 * scalars from device memory, and with the largest window; more than 8 chunks or a window above
 * 22 refused. */
static void test_dev_chunked_upload(void **state)
{
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    g16_error err = {0, ""};
    for (int gi = 0; gi < 2; gi++) {
        const grp *G = &groups[gi];
        size_t n = gi ? ((size_t)3 << 17) + 3 : ((size_t)3 << 18) + 77;
        if (dev_max_log() < 18)
            n = (size_t)1 << dev_max_log(); /* under compute-sanitizer: one piece */
        void *bases = xmalloc(n * G->aff_sz);
        g16_fr *k = xmalloc(2 * n * sizeof *k);
        make_input(G, IN_FILECOIN, bases, k, n);
        for (size_t i = n; i < 2 * n; i++)
            tu_rand_fr(&k[i]);
        char want[2][sizeof(g16_p2)], got[2 * sizeof(g16_p2)], one[sizeof(g16_p2)];
        for (int s = 0; s < 2; s++)
            assert_int_equal(G->cpu(want[s], bases, k + s * n, n), G16_OK);
        g16__gpu_msm *m = NULL;
        if (G->create(&m, g, bases, n, &err) != G16_OK)
            fail_msg("%s create n = %zu: %s", G->name, n, err.msg);
        g16__gpu_msm_opts o;
        memset(&o, 0, sizeof o);
        o.final_device = 1;
        o.upload_chunks = 8;
        memset(got, 0xa5, sizeof got);
        if (G->run(m, got, k, 2, &o, &err) != G16_OK)
            fail_msg("%s chunked batch: %s", G->name, err.msg);
        for (int s = 0; s < 2; s++) {
            expect_same(G, got + s * G->jac_sz, want[s], "chunked upload, batch of 2", n,
                        s ? IN_RANDOM : IN_FILECOIN, 0);
            for (unsigned ch = 1; ch <= 3; ch += 2) {
                memset(&o, 0, sizeof o);
                o.upload_chunks = ch;
                memset(one, 0x5a, sizeof one);
                if (G->run(m, one, k + s * n, 1, &o, &err) != G16_OK)
                    fail_msg("%s in up to %u chunk(s): %s", G->name, ch, err.msg);
                expect_same(G, one, want[s], ch > 1 ? "chunked upload" : "upload in one piece", n,
                            s ? IN_RANDOM : IN_FILECOIN, 0);
            }
        }
        if (dev_max_log() >= 18) {
            /* the largest window (opts only; 4x the buckets of the automatic maximum) */
            memset(&o, 0, sizeof o);
            o.window = MSM_MAX_WINDOW;
            memset(one, 0x5a, sizeof one);
            if (G->run(m, one, k, 1, &o, &err) != G16_OK)
                fail_msg("%s window %u: %s", G->name, MSM_MAX_WINDOW, err.msg);
            expect_same(G, one, want[0], "largest window", n, IN_FILECOIN, MSM_MAX_WINDOW);
        }
        memset(&o, 0, sizeof o);
        o.upload_chunks = 9;
        assert_int_equal(G->run(m, one, k, 1, &o, &err), G16_ERR_ARG);
        o.upload_chunks = 0;
        o.window = MSM_MAX_WINDOW + 1;
        assert_int_equal(G->run(m, one, k, 1, &o, &err), G16_ERR_ARG);
        void *dk = NULL;
        memset(&o, 0, sizeof o);
        o.device_scalars = 1;
        assert_int_equal(g16__gpu_alloc(g, &dk, n * sizeof(g16_fr), "test scalars", &err), G16_OK);
        assert_int_equal(g16__gpu_upload(g, dk, k, n * sizeof(g16_fr), &err), G16_OK);
        memset(one, 0x5a, sizeof one);
        if (G->run(m, one, dk, 1, &o, &err) != G16_OK)
            fail_msg("%s device scalars: %s", G->name, err.msg);
        g16__gpu_free(g, dk);
        expect_same(G, one, want[0], "device scalars", n, IN_FILECOIN, 0);
        printf("  device %s: n = %zu, host scalars in chunks (batch of 2, alone) = in one piece = device scalars "
               "= window 22 = CPU\n",
               G->name, n);
        g16__gpu_msm_destroy(m);
        free(bases);
        free(k);
    }
    g16__gpu_close(g);
}

/* nsets scalar sets in one call over resident bases = one call per set = the CPU; the one-shot
 * entry point; timings and counts reported. */
static void test_dev_batch(void **state)
{
/* result s of a batch: the results are g16_p1 or g16_p2 values back to back */
#define RES(buf, s) ((buf) + (s) * G->jac_sz)
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    g16_error err = {0, ""};
    for (int gi = 0; gi < 2; gi++) {
        const grp *G = &groups[gi];
        size_t cap = (size_t)1 << dev_max_log(), n = gi ? 5000 : 40000, nsets = 3;
        n = n < cap ? n : cap;
        void *bases = xmalloc(n * G->aff_sz);
        g16_fr *k = xmalloc(nsets * n * sizeof *k);
        make_input(G, IN_FILECOIN, bases, k, n);
        for (size_t i = n; i < nsets * n; i++)
            tu_rand_fr(&k[i]);
        for (size_t i = 2 * n; i < 3 * n; i += 3)
            g16__fr_set_zero(&k[i]);
        char got[3 * sizeof(g16_p2)], got_dev[3 * sizeof(g16_p2)], want[sizeof(g16_p2)];
        g16__gpu_msm *m = NULL;
        double ph[G16__GPU_MSM_PH_COUNT] = {0};
        uint64_t others[3] = {0};
        g16__gpu_msm_opts o;
        memset(&o, 0, sizeof o);
        o.phase_ms = ph;
        o.nothers = others;
        assert_int_equal(G->create(&m, g, bases, n, &err), G16_OK);
        assert_int_equal(g16__gpu_msm_size(m), n);
        if (G->run(m, got, k, nsets, &o, &err) != G16_OK)
            fail_msg("%s batch: %s", G->name, err.msg);
        {
            /* every set against the CPU and against a one-set run on the same handle, all
             * reported before failing (which set, and whether a batch position matters) */
            int bad = 0;
            for (size_t s = 0; s < nsets; s++) {
                char one[sizeof(g16_p2)];
                assert_int_equal(G->cpu(want, bases, k + s * n, n), G16_OK);
                if (G->run(m, one, k + s * n, 1, NULL, &err) != G16_OK)
                    fail_msg("%s single set %zu: %s", G->name, s, err.msg);
                int b_ok = memcmp(RES(got, s), want, G->jac_sz) == 0, s_ok = memcmp(one, want, G->jac_sz) == 0;
                printf("  device %s batch set %zu (%s, %llu others): batch %s, alone %s\n", G->name, s,
                       s ? "random" : "filecoin", (unsigned long long)others[s], b_ok ? "ok" : "DIFFERS",
                       s_ok ? "ok" : "DIFFERS");
                bad |= !b_ok || !s_ok;
            }
            if (bad)
                fail_msg("%s batch n = %zu: differs from the CPU MSM", G->name, n);
        }
        assert_true(others[0] > n / 5 && others[0] < n / 2 && others[1] == n);
        memset(&o, 0, sizeof o);
        o.final_device = 1;
        if (G->run(m, got_dev, k, nsets, &o, &err) != G16_OK)
            fail_msg("%s batch (device final): %s", G->name, err.msg);
        for (size_t s = 0; s < nsets; s++)
            expect_same(G, RES(got_dev, s), RES(got, s), "batch (device final)", n, IN_RANDOM, 0);
        {
            /* scalars already on the device (the prover's H): the same result as from the host */
            void *dk = NULL;
            char dres[sizeof(g16_p2)];
            g16__gpu_msm_opts od;
            memset(&od, 0, sizeof od);
            od.device_scalars = 1;
            assert_int_equal(g16__gpu_alloc(g, &dk, n * sizeof(g16_fr), "test scalars", &err), G16_OK);
            assert_int_equal(g16__gpu_upload(g, dk, k + n, n * sizeof(g16_fr), &err), G16_OK);
            if (G->run(m, dres, dk, 1, &od, &err) != G16_OK)
                fail_msg("%s device scalars: %s", G->name, err.msg);
            g16__gpu_free(g, dk);
            expect_same(G, dres, RES(got, 1), "device scalars", n, IN_RANDOM, 0);
        }
        {
            /* in passes of 1, 2 and 5 windows (device scalars read in place, as the prover runs
             * them), and the batch in passes of 3 with its phases timed: the same results */
            void *dk = NULL;
            char dres[sizeof(g16_p2)], pres[3 * sizeof(g16_p2)];
            double pph[G16__GPU_MSM_PH_COUNT] = {0};
            static const unsigned wpps[] = {1, 2, 5};
            g16__gpu_msm_opts op;
            assert_int_equal(g16__gpu_alloc(g, &dk, n * sizeof(g16_fr), "test scalars", &err), G16_OK);
            assert_int_equal(g16__gpu_upload(g, dk, k + n, n * sizeof(g16_fr), &err), G16_OK);
            for (size_t i = 0; i < sizeof wpps / sizeof wpps[0]; i++) {
                memset(&op, 0, sizeof op);
                op.device_scalars = 1;
                op.windows_per_pass = wpps[i];
                memset(dres, 0x5a, sizeof dres);
                if (G->run(m, dres, dk, 1, &op, &err) != G16_OK)
                    fail_msg("%s passes of %u windows: %s", G->name, wpps[i], err.msg);
                expect_same(G, dres, RES(got, 1), "passes (device scalars)", n, IN_RANDOM, 0);
            }
            g16__gpu_free(g, dk);
            memset(&op, 0, sizeof op);
            unsigned np[3] = {99, 99, 99};
            op.windows_per_pass = 3;
            op.phase_ms = pph;
            op.npasses = np;
            memset(pres, 0x5a, sizeof pres);
            if (G->run(m, pres, k, nsets, &op, &err) != G16_OK)
                fail_msg("%s batch in passes of 3: %s", G->name, err.msg);
            for (size_t s = 0; s < nsets; s++)
                expect_same(G, RES(pres, s), RES(got, s), "batch in passes of 3", n, IN_RANDOM, 0);
            /* the random set in passes of 3 windows; the Filecoin-like one (~30% non-trivial) in
             * wider passes, as wide as the handle's buffers hold (msm.cu, widen_passes; here still
             * those of the one-pass runs above), fewer of them; the set with a third of zeros no
             * more than the random one */
            unsigned p_rand = (g16__gpu_msm_windows(n) + 2) / 3, p_fil = (g16__gpu_msm_windows(others[0]) + 2) / 3;
            printf("  device %s batch in passes of 3: %u passes (filecoin, %llu others; %u unwidened), %u (random), "
                   "%u (a third zeros)\n", G->name, np[0], (unsigned long long)others[0], p_fil, np[1], np[2]);
            assert_int_equal(np[1], p_rand);
            assert_true(np[0] >= 1 && np[0] < p_fil);
            assert_true(np[2] >= 1 && np[2] <= p_rand);
            assert_true(pph[G16__GPU_MSM_PH_SORT] > 0 && pph[G16__GPU_MSM_PH_ACCUM] > 0 &&
                        pph[G16__GPU_MSM_PH_REDUCE] > 0);
            printf("  device %s: passes of 1, 2, 5 windows (device scalars) and a batch in passes of 3 = one pass; "
                   "sort %.2f, accumulate %.2f, reduce %.2f ms (batch, in passes)\n", G->name,
                   pph[G16__GPU_MSM_PH_SORT], pph[G16__GPU_MSM_PH_ACCUM], pph[G16__GPU_MSM_PH_REDUCE]);
        }
        if (G->oneshot(g, RES(got, 0), bases, k + n, n, &err) != G16_OK)
            fail_msg("%s one-shot: %s", G->name, err.msg);
        expect_same(G, RES(got, 0), RES(got, 1), "one-shot", n, IN_RANDOM, 0);
        /* the wrong group and bad options are refused, and nothing is written */
        memset(RES(got, 2), 0x5a, sizeof(g16_p2));
        assert_int_equal(groups[1 - gi].run(m, RES(got, 2), k, 1, NULL, &err), G16_ERR_ARG);
        o.window = 1;
        assert_int_equal(G->run(m, RES(got, 2), k, 1, &o, &err), G16_ERR_ARG);
        o.window = 0;
        o.carry_per = 3;
        assert_int_equal(G->run(m, RES(got, 2), k, 1, &o, &err), G16_ERR_ARG);
        for (size_t i = 0; i < sizeof(g16_p2); i++)
            assert_int_equal((unsigned char)RES(got, 2)[i], 0x5a);
        printf("  device %s batch of 3 x %zu: upload %.2f, classify %.2f, ones %.2f, digits %.2f, sort %.2f, "
               "accumulate %.2f, reduce %.2f, final %.2f ms\n",
               G->name, n, ph[0], ph[1], ph[2], ph[3], ph[4], ph[5], ph[6], ph[7]);
        g16__gpu_msm_destroy(m);
        /* n = 0 gives infinity */
        assert_int_equal(G->create(&m, g, NULL, 0, &err), G16_OK);
        assert_int_equal(G->run(m, RES(got, 0), NULL, 1, NULL, &err), G16_OK);
        assert_int_equal(G->cpu(want, bases, k, 0), G16_OK);
        expect_same(G, RES(got, 0), want, "empty", 0, IN_RANDOM, 0);
        g16__gpu_msm_destroy(m);
        free(bases);
        free(k);
    }
    g16__gpu_close(g);
}

static void test_no_device_paths(void **state)
{
    (void)state;
    g16_error err = {0, ""};
    g16__gpu_msm *m = (g16__gpu_msm *)(uintptr_t)1;
    g16_p1 r;
    /* a NULL context is refused (G16_ERR_ARG with CUDA, G16_ERR_NO_DEVICE in the stub build) */
    g16_status st = g16__gpu_msm_create_p1(&m, NULL, NULL, 0, &err);
    assert_true(st == G16_ERR_ARG || st == G16_ERR_NO_DEVICE);
    assert_null(m);
    st = g16__gpu_p1_msm(NULL, &r, NULL, NULL, 0, &err);
    assert_true(st == G16_ERR_ARG || st == G16_ERR_NO_DEVICE);
    g16__gpu_msm_destroy(NULL);
    assert_int_equal(g16__gpu_msm_size(NULL), 0);
    if (g16__gpu_device_count() > 0)
        return;
    g16__gpu *g = NULL;
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_ERR_NO_DEVICE);
    printf("  no device: %s\n", err.msg);
}

int main(void)
{
    tu_seed("test_gpu_msm");
    /* G16_TEST_FILTER=name (a cmocka pattern): only those tests, e.g. test_dev_lean_fallback alone */
    if (getenv("G16_TEST_FILTER"))
        cmocka_set_test_filter(getenv("G16_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digits_plan), cmocka_unit_test(test_tree_shape), cmocka_unit_test(test_up_chunks), cmocka_unit_test(test_host_fp2), cmocka_unit_test(test_sim_random), cmocka_unit_test(test_sim_edges),
        cmocka_unit_test(test_sim_levels),  cmocka_unit_test(test_no_device_paths), cmocka_unit_test(test_dev_edges),
        cmocka_unit_test(test_dev_chunked_upload),
        cmocka_unit_test(test_dev_batch),   cmocka_unit_test(test_dev_sizes), cmocka_unit_test(test_dev_lean_fallback),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
