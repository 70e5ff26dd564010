/*
 * The GPU MSM's arithmetic and per-thread phases, in the C subset shared by CUDA C++ and C11
 * (like field.cuh): the kernels in msm.cu call these functions once per thread, and
 * tests/test_gpu_msm.c runs the same functions thread by thread on the host, with a plain sort
 * in place of CUB's, so the whole algorithm is checked against the CPU MSM on any machine.
 *
 * Representation: gfp2 = c0 + c1·u with u² = −1 (the bits of g16_fp2); points as in
 * msm_curve.cuh (g1_aff / g2_aff are the bits of g16_p1_affine / g16_p2_affine). Scalars enter
 * as g16_fr bits (Montgomery form) and are made canonical (one Montgomery product by 1) before
 * their digits are taken; like the CPU, a scalar is "zero" / "one" when its Montgomery limbs are
 * those of 0 / 1, and a base at infinity makes its scalar count as zero.
 *
 * Algorithm (signed-digit Pippenger, XYZZ buckets):
 *  1. classify: per scalar, zero (skipped), one (a bit in the ones bitmap), or other (flag);
 *     the others' indices are compacted (m of them).
 *  2. digits: each other scalar gives nwin = ceil(256/c) Booth digits d (|d| <= 2^(c-1)), as
 *     the CPU's g16__msm_booth_digit; entry (key, val) per window: key = w·B + |d| − 1 with
 *     B = 2^(c−1) buckets per window, val = base index | sign << 31; d = 0 gives key = sent
 *     (= nwin·B, above every bucket). N = nwin·m entries, sorted by key (CUB radix sort on
 *     key_bits bits: bucket runs, sentinels last). With passes (msm_plan_make_pass), steps 2-4
 *     run once per group of windows, w above counting from the pass's first window; step 6
 *     takes the window sums of every pass.
 *  3. accumulation levels (acc_thread): level 0 gives each thread `per` consecutive sorted
 *     entries; it sums each run of equal keys into an XYZZ accumulator with mixed additions.
 *     A run wholly inside the range is stored into its bucket; a run that began in an earlier
 *     range (the thread's first run, "head") or goes on into the next ("tail") is left in the
 *     thread's slots 2t / 2t+1 instead, each slot with its key. Unused slots hold infinity, with
 *     the key of the thread's first / last run, so slot keys never decrease. Level l + 1 runs
 *     the same function over the 2T slots of level l (general additions; a run wholly inside a
 *     range is added into its bucket when it is not infinity): a bucket written at level 0 only
 *     ever sees infinity in later slots, a bucket split over threads gets the sum of its parts.
 *     Each level divides the slot count by per/2; the last level has one thread. Runs of any
 *     length (all scalars equal) cost O(log) levels, never a long serial chain.
 *     Alternative level 0 (plan K > 1, off by default: slower on the H200, see msm.cu): each
 *     thread runs K level-0 ranges as lanes in lock-step with affine accumulators, the K slopes of
 *     a round sharing one inversion (acc0_aff_thread); same ranges, slots and buckets.
 *  4. reduction (reduce_thread): window w's sum Σ_j j·bucket_j splits into TR segments of L
 *     buckets; each thread does running sums over its segment and adds (s·L)·(segment total);
 *     sum_thread then adds the TR results of each window in groups of 8 until one is left.
 *  5. ones (ones_thread): the bases of the set bits of the ones bitmap, summed per range of
 *     bitmap words, then in groups of 8 to one point.
 *  6. final_thread: Horner over the window sums (c doublings between windows), plus the ones.
 * The result leaves the device in XYZZ form and is normalized on the host (one inversion).
 */
#ifndef G16_GPU_MSM_CORE_CUH
#define G16_GPU_MSM_CORE_CUH

#include <stdint.h>

#include "gpu/field.cuh"
#include "gpu/field_inv.cuh"

/* ---------------------------------------------------------------- small helpers */

/* Point operations and Fp2 products are real functions (not inlined) in device code: inlined,
 * every kernel would carry tens of thousands of instructions per call site and nvcc would take
 * many minutes per file; as calls, their operands pass through the (L1-cached) stack, a few
 * percent of the several thousand multiply-adds each call does. */
#if defined(__CUDACC__)
#define G16_NI static __host__ __device__ __noinline__
#else
#define G16_NI static inline
#endif

G16_HD int gfp_is_zero(const gfp *a)
{
    uint32_t z = 0;
    G16_UNROLL
    for (int j = 0; j < G16_GFP_LIMBS; j++)
        z |= a->l[j];
    return z == 0;
}

G16_HD void gfp_set_zero(gfp *r)
{
    G16_UNROLL
    for (int j = 0; j < G16_GFP_LIMBS; j++)
        r->l[j] = 0;
}

/* SplitMix64's finalizer: the hash of the random bases and of the accumulation benchmark. */
G16_HD uint64_t msm_splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Base index of addition (t, j, s) of the accumulation benchmark (msm_gpu.h, g16__gpu_msm_ab_bench;
 * s = MSM_AB_INIT: the start value of affine accumulator j); mask + 1 is a power of two. */
#define MSM_AB_INIT 0xffffffffu
G16_HD uint32_t msm_ab_index(uint64_t t, uint32_t j, uint32_t s, uint32_t mask)
{
    return (uint32_t)msm_splitmix(msm_splitmix(t) ^ ((uint64_t)s << 8 | j)) & mask;
}

/* The Fp products of the point arithmetic in the hot loops (the level-0 accumulation, the ones,
 * the general addition of the reduction and the carry levels): by default (G16_MSM_MUL_CALL_G1 /
 * _G2 = 1) calls of one fully unrolled product per kernel with operands and result passed by
 * value (in registers: no stack traffic, unlike the pointer calls of the point functions);
 * otherwise inline, with the row loop rolled U rows per trip (field.cuh,
 * mont32_mul_rolled; U = 0 unrolls fully). Inline, ten products per mixed addition (G2: 28) are
 * more code than the SM's instruction caches hold (profile of the level-0 accumulation, G1 2^22:
 * a third of the stall cycles waiting for instructions). Measured on the H200, accumulate phase
 * of bench_gpu_msm 24 22 (RESULTS.md, session of 2026-12-03): G1 2^24 random 119.3 ms rolled
 * (U = 2) -> 108.8 by value, 2^22 37.4 -> 34.1; G2 2^20 34.5 (U = 6) -> 31.1, 2^22 118.9 -> 114.1.
 * Earlier (rolled against unrolled inline, bench_gpu_msm 24 22, U = 0 / 2 / 3 / 6): G1 2^24
 * random 161.3 / 153.7 / 155.7 / 157.0 ms, G2 2^22 random 165.6 / 157.0 / 151.8 / 142.6 ms. */
#ifndef G16_MSM_MUL_CALL_G1
#define G16_MSM_MUL_CALL_G1 1
#endif
#ifndef G16_MSM_MUL_CALL_G2
#define G16_MSM_MUL_CALL_G2 1
#endif
#ifndef G16_MSM_MUL_ROLL_G1
#define G16_MSM_MUL_ROLL_G1 2
#endif
#ifndef G16_MSM_MUL_ROLL_G2
#define G16_MSM_MUL_ROLL_G2 6
#endif
#if defined(G16_PTX)
static __device__ __noinline__ gfp gfp_mul_val(gfp a, gfp b)
{
    gfp r;
    gfp_mul(&r, &a, &b);
    return r;
}
#endif
/* r = a·b: by value through gfp_mul_val when call (device code only: the host simulation takes
 * the inline path below, same value), else rolled U rows per trip (U = 0: unrolled). */
G16_HD void gfp_mul_roll(gfp *r, const gfp *a, const gfp *b, int call, int U)
{
#if defined(G16_PTX)
    if (call) {
        *r = gfp_mul_val(*a, *b);
        return;
    }
#else
    (void)call;
#endif
    if (U > 0)
        gfp_mul_rolled(r, a, b, U);
    else
        gfp_mul(r, a, b);
}
G16_HD void gfp_mul_inl(gfp *r, const gfp *a, const gfp *b)
{
    gfp_mul_roll(r, a, b, G16_MSM_MUL_CALL_G1, G16_MSM_MUL_ROLL_G1);
}
/* Squares in G1's hot loops (two of the mixed addition's ten products): the product a·a by
 * default; G16_MSM_SQR_G1 = 1 takes the dedicated squaring (field.cuh, gfp_sqr_cols: 78 multiply
 * pairs against 144), by value on the device. Measured slower (same H200 job, bench_gpu_msm 24 0,
 * accumulate phase): G1 2^24 random 116.4 ms -> 128.3, 2^22 36.3 -> 40.1, 2^24 Filecoin-like
 * 40.9 -> 45.2. */
#ifndef G16_MSM_SQR_G1
#define G16_MSM_SQR_G1 0
#endif
#if defined(G16_PTX) && G16_MSM_SQR_G1
static __device__ __noinline__ gfp gfp_sqr_val(gfp a)
{
    gfp r;
    gfp_sqr_cols(&r, &a);
    return r;
}
#endif
G16_HD void gfp_sqr_inl(gfp *r, const gfp *a)
{
#if G16_MSM_SQR_G1
#if defined(G16_PTX)
    if (G16_MSM_MUL_CALL_G1) {
        *r = gfp_sqr_val(*a);
        return;
    }
#endif
    gfp_sqr_cols(r, a);
#else
    gfp_mul_inl(r, a, a);
#endif
}
G16_HD void gfp_mul_inl2(gfp *r, const gfp *a, const gfp *b)
{
    gfp_mul_roll(r, a, b, G16_MSM_MUL_CALL_G2, G16_MSM_MUL_ROLL_G2);
}

/* ---------------------------------------------------------------- Fp2 = Fp[u]/(u² + 1) */

#ifndef G16_MSM_FP2_LAZY
#define G16_MSM_FP2_LAZY 0 /* see gfp2_mul_inl: measured slower */
#endif

typedef struct {
    gfp c0, c1;
} gfp2;

G16_HD void gfp2_add(gfp2 *r, const gfp2 *a, const gfp2 *b)
{
    gfp_add(&r->c0, &a->c0, &b->c0);
    gfp_add(&r->c1, &a->c1, &b->c1);
}
G16_HD void gfp2_sub(gfp2 *r, const gfp2 *a, const gfp2 *b)
{
    gfp_sub(&r->c0, &a->c0, &b->c0);
    gfp_sub(&r->c1, &a->c1, &b->c1);
}
G16_HD void gfp2_neg(gfp2 *r, const gfp2 *a)
{
    gfp_neg(&r->c0, &a->c0);
    gfp_neg(&r->c1, &a->c1);
}
/* Karatsuba with 3 Montgomery products (3 reductions): the default (G16_MSM_FP2_LAZY = 0). */
G16_HD void gfp2_mul_3red(gfp2 *r, const gfp2 *a, const gfp2 *b)
{
    gfp t0, t1, t2, sa, sb;
    gfp_mul_inl2(&t0, &a->c0, &b->c0);
    gfp_mul_inl2(&t1, &a->c1, &b->c1);
    gfp_add(&sa, &a->c0, &a->c1);
    gfp_add(&sb, &b->c0, &b->c1);
    gfp_mul_inl2(&t2, &sa, &sb);
    gfp_sub(&r->c0, &t0, &t1);
    gfp_sub(&t2, &t2, &t0);
    gfp_sub(&r->c1, &t2, &t1);
}
/* (a0 + a1 u)² = (a0 + a1)(a0 − a1) + 2 a0 a1 u: 2 Fp products. */
G16_HD void gfp2_sqr_inl(gfp2 *r, const gfp2 *a)
{
    gfp s, d, t;
    gfp_add(&s, &a->c0, &a->c1);
    gfp_sub(&d, &a->c0, &a->c1);
    gfp_mul_inl2(&t, &a->c0, &a->c1);
    gfp_mul_inl2(&r->c0, &s, &d);
    gfp_add(&r->c1, &t, &t);
}
/* Karatsuba with 3 plain double-width products and one Montgomery reduction per coefficient:
 * c0 = a0·b0 − a1·b1 (+ p² when negative: below p²), c1 = (a0 + a1)(b0 + b1) − a0·b0 − a1·b1
 * (= a0·b1 + a1·b0 < 2p²), each below p·2^384 as mont32_redc_wide needs; a0 + a1 and b0 + b1 stay
 * unreduced (< 2p < 2^382). 3·288 + 2·300 = 1464 multiply-adds against gfp2_mul_3red's
 * 3·588 = 1764. The same (canonical) value as gfp2_mul_3red. r may alias a or b. */
G16_HD void gfp2_mul_lazy(gfp2 *r, const gfp2 *a, const gfp2 *b)
{
    const uint32_t m[12] = G16_GFP_MODULUS, p2[24] = G16_GFP_MODULUS_SQ;
    uint32_t t0[24], t1[24], t2[24], sa[12], sb[12];
    gfp r0;
    g16_cf f = {0, 0}, g = {0, 0}, h = {0, 0}, k = {0, 0}, e = {0, 0}, d = {0, 0};
    /* one carry chain at a time: the device has a single flag (field.cuh). The order keeps few
     * double-width values live at once (the callers hold points in registers across the call). */
    mont32_mul_wide(t0, a->c0.l, b->c0.l, 12);
    mont32_mul_wide(t1, a->c1.l, b->c1.l, 12);
    /* t2 = t0 + t1 (what c1 subtracts), t0 = t0 − t1 + (p² if that borrows) */
    t2[0] = add_cc(t0[0], t1[0], &h);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t2[j] = addc_cc(t0[j], t1[j], &h);
    t0[0] = sub_cc(t0[0], t1[0], &k);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t0[j] = subc_cc(t0[j], t1[j], &k);
    uint32_t mask = subc(0, 0, &k);
    t0[0] = add_cc(t0[0], p2[0] & mask, &e);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t0[j] = addc_cc(t0[j], p2[j] & mask, &e);
    mont32_redc_wide(r0.l, t0, m, G16_GFP_N0, 12);
    sa[0] = add_cc(a->c0.l[0], a->c1.l[0], &f);
    G16_UNROLL
    for (int j = 1; j < 12; j++)
        sa[j] = addc_cc(a->c0.l[j], a->c1.l[j], &f);
    sb[0] = add_cc(b->c0.l[0], b->c1.l[0], &g);
    G16_UNROLL
    for (int j = 1; j < 12; j++)
        sb[j] = addc_cc(b->c0.l[j], b->c1.l[j], &g);
    mont32_mul_wide(t1, sa, sb, 12);
    t1[0] = sub_cc(t1[0], t2[0], &d);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t1[j] = subc_cc(t1[j], t2[j], &d);
    mont32_redc_wide(r->c1.l, t1, m, G16_GFP_N0, 12);
    r->c0 = r0;
}
#if defined(G16_PTX) && (G16_MSM_FP2_LAZY & 1)
static __device__ __noinline__ gfp2 gfp2_mul_val(gfp2 a, gfp2 b)
{
    gfp2 r;
    gfp2_mul_lazy(&r, &a, &b);
    return r;
}
#endif
/* The Fp2 products of the point arithmetic. G16_MSM_FP2_LAZY is a mask: 1 = the lazy form in the
 * level-0 mixed addition (gfp2_mul_inl, by value on the device), 2 = in the calls (gfp2_mul: the
 * general addition, doubling, ones, final); the other products take gfp2_mul_3red, the default
 * (mask 0). The lazy form has 17% fewer multiply-adds but needs its three double-width values
 * live at once: ptxas gave the level-0 kernel 4-5x the spills (128 -> 576-608 bytes at 255
 * registers) and k_reduce<1> / k_sum<1> / k_accn<1> a block fewer per SM. Measured slower on the
 * H200 (bench_gpu_msm 0 24, same job, two runs each, RESULTS.md session of 2026-12-03 (ninth)):
 * G2 2^24 random accumulate 367.1 ms (mask 0) / 438.9 (mask 3) / 463.7 (mask 1), reduce 38.4 /
 * 54.5 / 38.5. */
G16_HD void gfp2_mul_inl(gfp2 *r, const gfp2 *a, const gfp2 *b)
{
#if G16_MSM_FP2_LAZY & 1
#if defined(G16_PTX)
    *r = gfp2_mul_val(*a, *b);
#else
    gfp2_mul_lazy(r, a, b);
#endif
#else
    gfp2_mul_3red(r, a, b);
#endif
}
G16_NI void gfp2_mul(gfp2 *r, const gfp2 *a, const gfp2 *b)
{
#if G16_MSM_FP2_LAZY & 2
    gfp2_mul_lazy(r, a, b);
#else
    gfp2_mul_3red(r, a, b);
#endif
}
G16_NI void gfp2_sqr(gfp2 *r, const gfp2 *a) { gfp2_sqr_inl(r, a); }
G16_HD int gfp2_is_zero(const gfp2 *a) { return gfp_is_zero(&a->c0) && gfp_is_zero(&a->c1); }
G16_HD void gfp2_set_zero(gfp2 *r)
{
    gfp_set_zero(&r->c0);
    gfp_set_zero(&r->c1);
}
G16_HD void gfp2_set_one(gfp2 *r)
{
    gfp_set_one(&r->c0);
    gfp_set_zero(&r->c1);
}
/* (a0 + a1·u)^(-1) = (a0 − a1·u) / (a0² + a1²) (u² = −1): one Fp inversion; 0 gives 0. */
G16_HD void gfp2_inv_var(gfp2 *r, const gfp2 *a)
{
    gfp t0, t1;
    gfp_mul_inl2(&t0, &a->c0, &a->c0);
    gfp_mul_inl2(&t1, &a->c1, &a->c1);
    gfp_add(&t0, &t0, &t1);
    gfp_inv_var(&t1, &t0);
    gfp_mul_inl2(&r->c0, &a->c0, &t1);
    gfp_mul_inl2(&t0, &a->c1, &t1);
    gfp_neg(&r->c1, &t0);
}

/* ---------------------------------------------------------------- plan */

#define MSM_MAX_WINDOW 22u /* c (opts.window); buckets per window 2^(c-1) */
/* The automatic window goes up to 22 as well: msm_window_for's cost takes it from about 2^26
 * non-trivial scalars (12 windows instead of 13). */
#define MSM_AUTO_MAX_WINDOW 22u
/* The window an automatic choice above it falls back to when its buffers do not fit (msm.cu,
 * plan_and_ensure): less memory than 22 up to 2^27 scalars (from 2^28 its 13th window's entries
 * outweigh 22's larger buckets, and the fallback only tries). */
#define MSM_LEAN_WINDOW 20u
#define MSM_CARRY_PER 16u  /* entries per thread in the carry levels (>= 4 so that they shrink) */
#define MSM_SUM_GROUP 8u
#define MSM_AFF_KMAX 64u     /* lanes per thread of the batch-affine level 0 */
#define MSM_AFF_MIN_PER 32u  /* entries per lane below which level 0 stays XYZZ */
#define MSM_TREE_KMAX 32u    /* tree accumulation: additions per thread batch, at most ... */
#define MSM_TREE_KMIN 4u     /* ... and at least (late rounds) */

typedef struct {
    uint32_t c, nwin, B;   /* window bits, windows of this pass, buckets per window (2^(c-1)) */
    uint32_t w0, nwin_all; /* this pass's first window; windows of the whole MSM, ceil(256/c) */
    uint32_t sent;         /* the sentinel key nwin·B */
    uint32_t key_bits;     /* bits the sort looks at: 2^key_bits > sent */
    uint64_t m;            /* non-trivial scalars */
    uint64_t N;            /* entries nwin·m */
    uint64_t per0, T0;     /* level 0: entries per (virtual) thread and (virtual) threads */
    uint32_t K;            /* level 0: lanes (virtual threads) per thread; 1: XYZZ, > 1: affine */
    uint64_t TL;           /* level 0: real threads, ceil(T0 / K) */
    uint32_t per;          /* carry levels: entries per thread */
    uint32_t L, TR;        /* buckets per reduction thread; reduction threads per window (B / L) */
    uint64_t tree;         /* tree accumulation: entries per slice (0: the levels above); msm_plan_tree */
    uint32_t tree_k;       /* tree accumulation: additions per thread batch, at most */
} msm_plan;

/* Window bits for m non-trivial scalars: the c in [2, MSM_AUTO_MAX_WINDOW] minimizing, in mixed
 * additions, nwin·(m·(1 + 0.0023·key_bits) + 3.5·2^(c−1)): per scalar and window one addition into
 * a bucket and its share of the sort (a radix sort's passes grow with the key bits), per bucket
 * 3.5 additions' worth of reduction. Fitted to the H200 (bench_gpu_msm 26 24 with G16_BENCH_WINDOW,
 * bench/RESULTS.md "eleventh"), G1 2^26 random, ms: window 20: accumulate 426.0 (0.488 ns per
 * addition), sort 20.1 (23 key bits), reduce 11.9 for 13·2^19 buckets; window 22: 395.9, 23.9 (25
 * bits), 38.0 for 12·2^21 buckets. G2's reduction costs 3.3-3.4 of its additions per bucket. The
 * measured calls tie at 2^26 (501.4 ms either way); the cost takes 22 from 2^26 (0.3% less), keeps
 * every choice below 2^26 as it was (the cost before, nwin·(m + 3·2^(c−1)) up to c = 20), and
 * at 2^27 expects 22 to save ~4% of the accumulation and reduction. */
/* Bits of the sort keys for nwin windows of 2^(c−1) buckets: 2^bits > the sentinel nwin·2^(c−1). */
G16_HD uint32_t msm_key_bits(uint32_t nwin, uint32_t c)
{
    uint32_t bits = 1;
    while (((uint64_t)1 << bits) <= (uint64_t)nwin << (c - 1))
        bits++;
    return bits;
}

/* That cost of window c, in mixed additions. */
G16_HD double msm_window_cost(uint64_t m, uint32_t c)
{
    uint32_t nwin = (256 + c - 1) / c, key_bits = msm_key_bits(nwin, c);
    return (double)nwin * ((double)m * (1.0 + 0.0023 * key_bits) + 3.5 * (double)(1u << (c - 1)));
}

G16_HD uint32_t msm_window_for(uint64_t m)
{
    uint32_t best = 2;
    double best_cost = 0;
    for (uint32_t c = 2; c <= MSM_AUTO_MAX_WINDOW; c++) {
        double cost = msm_window_cost(m, c);
        if (c == 2 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}

G16_HD uint64_t msm_div_up(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

/* Chunked scalar upload (msm.cu, classify_ones; opts.upload_chunks): at most k chunks of at least
 * MSM_UP_CHUNK_MIN points, each a whole number of ones-thread ranges (Q bitmap words of 32 points)
 * so that every ones thread reads one chunk's words. Returns the chunk count; *len := points per
 * chunk (the last one shorter). */
#define MSM_UP_CHUNKS 8
#define MSM_UP_CHUNK_MIN ((uint64_t)1 << 18)
/* opts.upload_chunks = 0: MSM_UP_CHUNKS chunks from this many points, one piece below. On the H200
 * (bench_gpu_msm 26 24, two runs alternated in one job, bench/RESULTS.md "eleventh"): Filecoin-like
 * G1 2^26 202.0 -> 191.7 ms, G1 2^24 60.3 -> 57.4, G2 2^24 174.7 -> 169.4, G1 2^22 18.5 -> 17.7,
 * but G2 2^22 52.6 -> 53.9; random scalars unchanged within 0.3 ms (their work does not wait for the
 * classification). */
#define MSM_UP_AUTO_MIN ((uint64_t)1 << 23)

/* The chunks asked for: opts.upload_chunks (0: by n, MSM_UP_AUTO_MIN), one piece for device
 * scalars. */
G16_HD unsigned msm_up_chunks_asked(uint64_t n, unsigned opt, int device_scalars)
{
    if (device_scalars)
        return 1;
    if (opt)
        return opt;
    return n >= MSM_UP_AUTO_MIN ? MSM_UP_CHUNKS : 1;
}

G16_HD unsigned msm_up_chunks(uint64_t n, unsigned k, uint32_t Q, uint64_t *len)
{
    uint64_t unit = (uint64_t)Q * 32, per = msm_div_up(n, k ? k : 1);
    if (per < MSM_UP_CHUNK_MIN)
        per = MSM_UP_CHUNK_MIN;
    per = msm_div_up(per, unit) * unit;
    *len = per;
    return (unsigned)msm_div_up(n, per);
}

/* The ones' sums' threads: about `threads` threads (a wave) per chunk of ceil(words / chunks)
 * bitmap words: *Q words per thread, *T threads in all. */
G16_HD void msm_ones_shape(uint64_t words, uint64_t threads, unsigned chunks, uint32_t *Q, uint64_t *T)
{
    uint64_t q = msm_div_up(msm_div_up(words, chunks ? chunks : 1), threads ? threads : 1);
    *Q = q ? (uint32_t)q : 1;
    *T = words ? msm_div_up(words, *Q) : 1;
}

/* Chunk j of nch (len points each): points [*i0, *i1) and ones threads [*t0, *t1) of T threads
 * of Q words (the last chunk's threads run to T: past the bitmap they add nothing). */
G16_HD void msm_up_chunk(uint64_t n, unsigned j, unsigned nch, uint64_t len, uint32_t Q, uint64_t T, uint64_t *i0,
                         uint64_t *i1, uint64_t *t0, uint64_t *t1)
{
    *i0 = (uint64_t)j * len;
    *i1 = *i0 + len < n ? *i0 + len : n;
    *t0 = *i0 / 32 / Q;
    *t1 = j + 1 < nch ? msm_div_up(*i1, 32) / Q : T;
}

/* The plan of one pass over m > 0 non-trivial scalars: window c (0 = automatic), windows
 * [w0, w0 + wpp) of the ceil(256/c) (wpp = 0: all from w0; the last pass may have fewer), about
 * `threads0` threads at level 0 and `threads_red` in the reduction (the device's resident thread
 * counts; small values in the host tests), `per` entries per thread in the carry levels (0 =
 * default). lanes > 1 asks for the batch-affine level 0 with that many lanes (at most
 * MSM_AFF_KMAX) in about `threads_aff` threads; it is taken when each lane gets MSM_AFF_MIN_PER
 * entries or more. A pass is a whole Pippenger run over its windows (digits, sort, accumulation,
 * reduction to its window sums): passes of fewer windows divide the entries' and buckets' memory
 * (msm_gpu.h, windows_per_pass) at the cost of reading the scalars once per pass. */
G16_HD void msm_plan_make_pass(msm_plan *p, uint64_t m, uint32_t c, uint32_t w0, uint32_t wpp, uint64_t threads0,
                               uint64_t threads_red, uint32_t per, uint32_t lanes, uint64_t threads_aff)
{
    p->c = c ? c : msm_window_for(m);
    p->nwin_all = (256 + p->c - 1) / p->c;
    p->w0 = w0 < p->nwin_all ? w0 : p->nwin_all - 1;
    p->nwin = p->nwin_all - p->w0;
    if (wpp && wpp < p->nwin)
        p->nwin = wpp;
    p->B = 1u << (p->c - 1);
    p->sent = p->nwin * p->B;
    p->key_bits = msm_key_bits(p->nwin, p->c);
    p->m = m;
    p->N = (uint64_t)p->nwin * m;
    p->K = 1;
    p->per0 = 0;
    if (lanes > 1) {
        /* batch-affine level 0 only when each lane has entries enough to amortize its start and
         * end (and its two carry slots): otherwise the XYZZ level 0 below */
        uint64_t v = (threads_aff ? threads_aff : 1) * (uint64_t)(lanes > MSM_AFF_KMAX ? MSM_AFF_KMAX : lanes);
        if (msm_div_up(p->N, v) >= MSM_AFF_MIN_PER) {
            p->K = lanes > MSM_AFF_KMAX ? MSM_AFF_KMAX : lanes;
            p->per0 = msm_div_up(p->N, v);
        }
    }
    if (p->K == 1) {
        p->per0 = msm_div_up(p->N, threads0 ? threads0 : 1);
        if (p->per0 < 4)
            p->per0 = 4;
    }
    p->T0 = msm_div_up(p->N, p->per0);
    p->TL = msm_div_up(p->T0, p->K);
    p->per = per >= 4 ? per : MSM_CARRY_PER;
    uint64_t total = (uint64_t)p->nwin * p->B, want = threads_red ? threads_red : 1;
    /* at least c buckets per reduction thread: a thread's (s·L)·(segment total) costs about
     * 1.5·log2(s·L) < 1.5·c general additions, no more than its 2L running-sum additions once
     * L >= c (with L = 1, as G1 at 2^16 had: ~20 additions per bucket instead of ~3) */
    p->L = 1;
    while (p->L < p->c && p->L < p->B)
        p->L *= 2;
    while ((uint64_t)p->L < p->B && total / p->L > want)
        p->L *= 2;
    p->TR = p->B / p->L;
}

/* The plan of the whole MSM in one pass. */
G16_HD void msm_plan_make(msm_plan *p, uint64_t m, uint32_t c, uint64_t threads0, uint64_t threads_red, uint32_t per,
                          uint32_t lanes, uint64_t threads_aff)
{
    msm_plan_make_pass(p, m, c, 0, 0, threads0, threads_red, per, lanes, threads_aff);
}

/* Tree accumulation for plan p (msm_core.cuh, "tree accumulation"; called after msm_plan_make):
 * slices of up to `slice` entries (0: off), batches of up to kmax additions; off when N does not
 * fit the 32-bit offsets. */
G16_HD void msm_plan_tree(msm_plan *p, uint64_t slice, uint32_t kmax)
{
    p->tree = 0;
    p->tree_k = kmax < MSM_TREE_KMIN ? MSM_TREE_KMIN : kmax > MSM_TREE_KMAX ? MSM_TREE_KMAX : kmax;
    if (slice == 0 || p->N >= 0xffffffffull)
        return;
    p->tree = slice < p->N ? slice : p->N;
}

/* One accumulation level (see the header comment). Level 0: vals and bases set, in NULL;
 * later levels: in = the previous level's slot points, keys = its slot keys. */
typedef struct {
    uint64_t n;           /* entries */
    uint64_t per;         /* entries per thread */
    uint32_t sent;
    const uint32_t *keys;
    const uint32_t *vals; /* level 0: base index | sign << 31 */
    const void *bases;    /* level 0: affine bases */
    const void *in;       /* levels >= 1: xyzz points */
    void *buckets;        /* xyzz, nwin·B */
    uint32_t *okeys;      /* 2 slots per thread */
    void *opts;
    /* batch-affine level 0 (K > 1): T0 lanes in TL threads; lane j of thread t is virtual thread
     * t·K + j (its entries, slots and keys as acc0_thread's for that index), its state at
     * j·TL + t of each array */
    uint32_t K;
    uint64_t T0, TL;
    void *lacc;           /* affine accumulators */
    void *lpre;           /* running products of the slopes' denominators (field elements) */
    void *lden;           /* this round's denominators [0, K·TL) and numerators [K·TL, 2·K·TL) */
    struct msm_lane *lanes;
} msm_level;

/* A lane of the batch-affine level 0 between two rounds. */
typedef struct msm_lane {
    uint64_t i, end; /* next entry, end of the range */
    uint32_t cur;    /* key of the run being summed */
    uint32_t st;     /* MSM_LN_* */
    uint32_t kn, vn; /* key and value of entry i (kn = the sentinel past the range) */
} msm_lane;
#define MSM_LN_LIVE 1u   /* range not finished */
#define MSM_LN_FIRST 2u  /* no run ended yet */
#define MSM_LN_HEAD 4u   /* the first run began in an earlier range */
#define MSM_LN_INF 8u    /* the accumulator is infinity */
#define MSM_LN_ADD 16u   /* this round: chord addition, denominator x_P − x_A */
#define MSM_LN_DBL 32u   /* this round: doubling, denominator 2·y_A */
#define MSM_LN_FIRSTDEN 64u /* this round: the first lane with a denominator */

/* ---------------------------------------------------------------- tree accumulation
 *
 * Alternative to the accumulation levels (opts.tree; msm_curve.cuh, tree_round_thread): the
 * sorted entries [0, nreal) (the non-sentinel ones) are cut into slices of at most `slice`
 * entries, each summed in a scratch array of affine points by pairwise rounds. In round r the
 * live points of a run (the run of a key cut to the slice, starting at a) sit at a + j·2^r for
 * j < ceil(len / 2^r); each even j is added to j + 1 (when it exists) in place, so the run halves
 * and after ceil(log2 len) rounds its sum is at a. Round 0 reads the signed bases. All additions
 * of a round are independent: each thread takes K of them and shares one inversion (Montgomery's
 * trick): 6 products per affine addition plus the inversion's share, and no state carried by a
 * lane from round to round (what the batch-affine level 0 lost to, RESULTS.md "seventh").
 * tree_final_thread then stores each run's sum into its bucket (added to it when the run is cut
 * by the slice's edge), and the reduction is the usual one. Needs N < 2^32 (offsets are 32-bit).
 * Measured on the H200 (RESULTS.md, "twelfth and thirteenth"): G1 1.3x slower than the levels,
 * G2 on par or a little faster; off by default (msm.cu). */

typedef struct {
    const uint32_t *keys, *vals; /* the sorted entries */
    const void *bases;
    const uint32_t *boff, *bend; /* per key: first entry, one past the last (set for present keys) */
    void *scr;                   /* affine points: entry i of the slice at scr[i − s0] */
    void *buckets;               /* xyzz, per key */
    uint64_t s0, s1;             /* the slice */
    uint32_t r, K;               /* round, additions per thread batch */
} msm_tree;

/* What the offsets pass leaves for the host: the entries before the sentinels. */
typedef struct {
    unsigned long long nreal;
} msm_tree_info;

/* Entry i of n sorted entries: the first entry of a run records boff, the last bend (and nreal
 * when the sentinels or the end follow). boff and bend start zeroed. */
G16_HD void msm_tree_offsets_thread(const uint32_t *keys, uint64_t n, uint32_t sent, uint32_t *boff, uint32_t *bend,
                                    msm_tree_info *info, uint64_t i)
{
    uint32_t k = keys[i];
    if (k == sent)
        return;
    if (i == 0 || keys[i - 1] != k)
        boff[k] = (uint32_t)i;
    if (i + 1 == n || keys[i + 1] != k) {
        bend[k] = (uint32_t)(i + 1);
        if (i + 1 == n || keys[i + 1] == sent)
            info->nreal = i + 1;
    }
}

/* The entries of run [b, e) in slice q (of `slice` entries): a slice's rounds follow its longest
 * piece of a run (msm_tree_rounds), not the longest run of all: the top window's runs are long
 * (G1 2^26, window 22: 2^12 runs of ~2^14 entries, against ~32 in the other windows), and with
 * the global round count every slice ran 14 rounds, the late ones walking ~10^6 finished runs
 * (H200: G1 2^26 random accumulate 623 ms, 2^24 Filecoin-like 510 against 38 for XYZZ). */
G16_HD uint32_t msm_tree_piece(uint64_t b, uint64_t e, uint64_t slice, uint64_t q)
{
    uint64_t lo = q * slice > b ? q * slice : b, hi = (q + 1) * slice < e ? (q + 1) * slice : e;
    return hi > lo ? (uint32_t)(hi - lo) : 0;
}

/* Rounds for runs of at most maxlen entries: ceil(log2 maxlen), at least 1 (round 0 also copies
 * the runs of one entry into the scratch). */
G16_HD uint32_t msm_tree_rounds(uint64_t maxlen)
{
    uint32_t r = 1;
    while (r < 63 && ((uint64_t)1 << r) < maxlen)
        r++;
    return r;
}

/* Additions per thread batch in round r of a slice of n entries, for `wave` resident threads:
 * as many as fill one wave, between MSM_TREE_KMIN and kmax (late rounds have few additions). */
G16_HD uint32_t msm_tree_k(uint64_t n, uint32_t r, uint64_t wave, uint32_t kmax)
{
    uint64_t adds = r < 63 ? n >> (r + 1) : 0, k = adds / (wave ? wave : 1);
    if (k > kmax)
        k = kmax;
    if (k < MSM_TREE_KMIN)
        k = MSM_TREE_KMIN;
    return (uint32_t)k;
}

/* Entries a thread of round r covers: K·2^(r+1) (K additions where the runs are long enough), at
 * most MSM_TREE_SPAN_MAX: in the late rounds only the long runs have additions left, and a thread
 * walks every run of its range (3 dependent reads each) to find them; uncapped, a slice holding
 * the top window's long runs beside short ones had a few threads walk ~10^4 finished runs each,
 * round after round (H200: G1 2^18 random accumulate 12.4 ms against 3.6 for XYZZ). */
#define MSM_TREE_SPAN_MAX ((uint64_t)1 << 11)
G16_HD uint64_t msm_tree_span(uint32_t r, uint32_t K)
{
    return r + 1 >= 40 || ((uint64_t)K << (r + 1)) > MSM_TREE_SPAN_MAX ? MSM_TREE_SPAN_MAX : (uint64_t)K << (r + 1);
}

/* Threads of round r over n entries with K additions each. */
G16_HD uint64_t msm_tree_threads(uint64_t n, uint32_t r, uint32_t K) { return msm_div_up(n, msm_tree_span(r, K)); }

/* ---------------------------------------------------------------- scalars */

/* 0: skip (zero scalar or base at infinity), 1: scalar one, 2: other. inf_bits: bit i set when
 * base i is infinity (may be NULL). */
G16_HD int msm_classify(const gfr *scal, const uint32_t *inf_bits, uint64_t i)
{
    const uint32_t one[8] = G16_GFR_ONE;
    uint32_t z = 0, d1 = 0;
    G16_UNROLL
    for (int j = 0; j < 8; j++) {
        z |= scal[i].l[j];
        d1 |= scal[i].l[j] ^ one[j];
    }
    if (z == 0 || (inf_bits && ((inf_bits[i / 32] >> (i % 32)) & 1)))
        return 0;
    return d1 == 0 ? 1 : 2;
}

/* Canonical value of a Montgomery-form scalar: a·1·R^-1. */
G16_HD void msm_scalar_canonical(gfr *k, const gfr *a)
{
    gfr one_raw;
    one_raw.l[0] = 1;
    G16_UNROLL
    for (int j = 1; j < 8; j++)
        one_raw.l[j] = 0;
    gfr_mul(k, a, &one_raw);
}

/* Booth digit of window w (c bits) of the canonical k, as g16__msm_booth_digit:
 * t = bits [wc − 1, wc + c] of k (bit −1 = 0), d = ⌈t/2⌉ − 2^c·(top bit of t). */
G16_HD int32_t msm_booth_digit(const gfr *k, uint32_t w, uint32_t c)
{
    uint64_t t;
    uint32_t lo = w * c;
    uint64_t mask = (2ull << c) - 1;
    if (lo == 0) {
        t = ((uint64_t)k->l[0] << 1) & mask;
    } else {
        uint32_t pos = lo - 1, limb = pos / 32, sh = pos % 32;
        uint64_t v = limb < 8 ? k->l[limb] : 0;
        if (limb + 1 < 8)
            v |= (uint64_t)k->l[limb + 1] << 32;
        t = (v >> sh) & mask;
    }
    return (int32_t)((t + 1) >> 1) - (int32_t)((t >> c) << c);
}

/* Entries of the j-th non-trivial scalar (base index idx) in the pass's windows: keys[w·m + j],
 * vals[w·m + j] for the pass's window w (the MSM's window w0 + w). */
G16_HD void msm_digits_thread(const msm_plan *p, const gfr *scal, const uint32_t *others, uint32_t *keys,
                              uint32_t *vals, uint64_t j)
{
    uint32_t idx = others[j];
    gfr k;
    msm_scalar_canonical(&k, &scal[idx]);
    for (uint32_t w = 0; w < p->nwin; w++) {
        int32_t d = msm_booth_digit(&k, p->w0 + w, p->c);
        uint64_t e = (uint64_t)w * p->m + j;
        if (d == 0) {
            keys[e] = p->sent;
            vals[e] = idx;
        } else {
            uint32_t a = (uint32_t)(d < 0 ? -d : d);
            keys[e] = w * p->B + a - 1;
            vals[e] = idx | (d < 0 ? 0x80000000u : 0u);
        }
    }
}

/* ---------------------------------------------------------------- the two groups */

/* MSM_ADD_F(op): the products of the general addition (msm_curve.cuh, add). G1: by value
 * (mul_inl). G2: the Fp2 product as a call (gfp2_mul, by-value Fp products inside): inlining the
 * Fp2 products into add, as G1 does, raised G2's reduce kernel from 143 to 224 registers (3 to 2
 * blocks per SM) and its reduce phase at 2^24 random from 38.4 to 49.6 ms (same H200 job,
 * bench/RESULTS.md, "Session of 2026-12-03 (seventh)"). */
#define MSM_FE gfp
#define MSM_F(op) gfp_##op
#define MSM_ADD_F(op) gfp_##op##_inl
#define MSM_P(name) g1_##name
#ifndef MSM_ACC0_REGPF_G1
#define MSM_ACC0_REGPF_G1 0
#endif
#define MSM_ACC0_REGPF MSM_ACC0_REGPF_G1
#include "gpu/msm_curve.cuh"
#undef MSM_ACC0_REGPF
#undef MSM_FE
#undef MSM_F
#undef MSM_ADD_F
#undef MSM_P

#define MSM_FE gfp2
#define MSM_F(op) gfp2_##op
#define MSM_ADD_F(op) gfp2_##op
#define MSM_P(name) g2_##name
#ifndef MSM_ACC0_REGPF_G2
#define MSM_ACC0_REGPF_G2 0
#endif
#define MSM_ACC0_REGPF MSM_ACC0_REGPF_G2
#include "gpu/msm_curve.cuh"
#undef MSM_ACC0_REGPF
#undef MSM_FE
#undef MSM_F
#undef MSM_ADD_F
#undef MSM_P

#endif /* G16_GPU_MSM_CORE_CUH */
