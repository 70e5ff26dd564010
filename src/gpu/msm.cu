/* The GPU MSM (see msm_gpu.h for the interface, msm_core.cuh for the algorithm): kernels that
 * call the per-thread phases of msm_core.cuh, CUB for the compaction and the radix sort, and the
 * host orchestration with its memory plan. */
#include <stdlib.h>
#include <string.h>

#include <cub/cub.cuh>

#include "gpu/field_inv.cuh"
#include "gpu/gpu_internal.cuh"
#include "gpu/msm_core.cuh"
#include "gpu/msm_gpu.h"

#define TPB 128         /* threads per block of every kernel */
/* Lanes per thread of the batch-affine level 0 by default (1: XYZZ level 0). Off: on the H200 the
 * batch-affine level 0 was slower than the XYZZ one at every size (bench_gpu_msm 24 22, accumulate
 * phase, bench/RESULTS.md "Session of 2026-12-03 (seventh)"): G1 2^24 random 108.7 ms XYZZ, 112.0
 * with 32 lanes, 116.2 with 64; G1 2^24 Filecoin-like 38.1 / 43.8; G2 2^22 random 114.1 / 117.2
 * (16 lanes). Its 6 products per addition save less than its lane state costs: about 1 KB of
 * device-memory traffic per addition (lane, sums, slopes, products), where XYZZ keeps a run's
 * accumulator in registers. */
#ifndef G16_MSM_LANES_G1
#define G16_MSM_LANES_G1 1
#endif
#ifndef G16_MSM_LANES_G2
#define G16_MSM_LANES_G2 1
#endif
/* Tree accumulation (msm_core.cuh) by default: log2 of the slice in entries (0: the XYZZ levels);
 * G16_MSM_TREE_G1 / _G2 in the environment override, G16_MSM_TREE_K the batch (at most
 * MSM_TREE_KMAX). Off: on the H200 (bench_gpu_msm 26 24, accumulate phase, RESULTS.md "twelfth and
 * thirteenth") G1 is 1.3x slower than the XYZZ levels (2^26 random 518 against 395 ms, slices of
 * 2^25), G2 1-2% faster at 2^24 (365 against 368) for 3.2 GB more scratch, 10-30% at 2^16-2^20. */
#ifndef G16_MSM_TREE_G1
#define G16_MSM_TREE_G1 0
#endif
#ifndef G16_MSM_TREE_G2
#define G16_MSM_TREE_G2 0
#endif
#define G16_MSM_TREE_K_G1 32
#define G16_MSM_TREE_K_G2 16
#define RANDOM_TABLE 48 /* random bases: sums over subsets of this many points */
#define MSM_WALL (256 / 2 + 1) /* window sums of a run, at most (c = 2: 128 windows) */

/* Buffers of a run that depend on n only (allocated at the first run, kept with the handle). scal:
 * the host scalars' copy, allocated by the first run with host scalars only (scal_mem): device
 * scalars are read where they are (the prover's H alone is 4.3 GB at 2^27). */
typedef struct {
    gfr *scal;
    uint8_t *flags;
    uint32_t *iota, *others, *ones_bits;
    int64_t *count;
    void *ones_a, *ones_b; /* ones partials, ping-pong */
    void *wall;            /* the window sums of a run in passes, gathered (MSM_WALL windows) */
    void *sel_tmp;
    size_t sel_bytes;
    /* the ones' sums: T threads of Q bitmap words each; one piece (one wave of threads) or,
     * for a chunked upload, Qc words per thread (a wave per chunk); ones_a / ones_b hold
     * max(T, Tc) partial sums */
    uint64_t ones_T, ones_Tc;
    uint32_t ones_Q, ones_Qc;
} fixed_bufs;

/* Buffers of the Pippenger part (depend on the plan; grown when a plan needs more). */
typedef struct {
    uint32_t *k0, *k1, *v0, *v1;
    void *sort_tmp;
    size_t sort_bytes;
    void *buckets;
    uint32_t *sk0, *sk1;
    void *sp0, *sp1;
    void *red0, *red1;
    void *lacc, *lpre, *lden, *lanes; /* batch-affine level 0: K·TL lanes */
    void *tscr;             /* tree accumulation: a slice's affine points */
    uint32_t *tboff, *tbend; /* tree accumulation: per key, first entry and end */
    msm_tree_info *tinfo;    /* then the slices' longest pieces (uint32) */
    /* what was allocated for (a later plan fits when it needs no more) */
    uint64_t N, nbuckets, slots, nred, nlanes, ntree, nkeys, nslices;
} pip_bufs;

struct g16__gpu_msm {
    g16__gpu *g;
    int g2;
    size_t n;
    void *bases;          /* device: n affine points */
    uint32_t *inf_bits;   /* device: bit i = base i is infinity */
    int view;             /* bases and inf_bits belong to another handle (g16__gpu_msm_view) */
    uint64_t threads_acc; /* resident threads of the level-0 kernel (one full wave) */
    uint64_t threads_red; /* threads aimed at in the bucket reduction */
    int acc0_blocks;      /* G1: which k_acc0 (3 or 4 blocks per SM); G2: 2 */
    uint64_t threads_aff; /* resident threads of the batch-affine level-0 kernel */
    uint32_t lanes;       /* lanes per batch-affine level-0 thread (1: XYZZ level 0 only) */
    uint32_t tree_log;    /* tree accumulation's slice, log2 (0: off) */
    int widen;            /* sparse sets' passes widened (widen_passes; G16_MSM_WIDEN=0: not, for A/B) */
    uint32_t tree_k;      /* tree accumulation's batch, at most */
    uint64_t threads_tree; /* resident threads of the tree rounds' kernel */
    /* scratch of the runs: NULL until the first run */
    void *fixed_mem, *pip_mem, *res, *scal_mem;
    size_t res_cap; /* results res holds */
    fixed_bufs f;
    pip_bufs p;
};

/* ---------------------------------------------------------------- kernels */

static __device__ __forceinline__ uint64_t gtid(void) { return blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; }

static unsigned blocks_for(uint64_t threads) { return (unsigned)((threads + TPB - 1) / TPB); }

template <int G2> struct grp;
template <> struct grp<0> {
    typedef g1_aff aff;
    typedef g1_xyzz xyzz;
};
template <> struct grp<1> {
    typedef g2_aff aff;
    typedef g2_xyzz xyzz;
};

template <int G2> __global__ static void __launch_bounds__(TPB) k_inf_bits(const void *bases, uint64_t n, uint32_t *bits)
{
    uint64_t i = gtid();
    int inf = 0;
    if (i < n) {
        if constexpr (G2)
            inf = g2_aff_is_inf((const g2_aff *)bases + i);
        else
            inf = g1_aff_is_inf((const g1_aff *)bases + i);
    }
    unsigned b = __ballot_sync(0xffffffffu, inf);
    if ((threadIdx.x & 31) == 0 && i < n)
        bits[i / 32] = b;
}

/* Classification: the ones bitmap (a word per warp), the others' flags. The grid covers whole
 * warps past n (they vote 0). */
/* Scalars [i0, n) (i0 a multiple of 32: a warp's ballot is one bitmap word). */
__global__ static void __launch_bounds__(TPB) k_classify(const gfr *scal, const uint32_t *inf_bits, uint64_t i0,
                                                         uint64_t n, uint32_t *ones_bits, uint8_t *flags)
{
    uint64_t i = i0 + gtid();
    int cls = i < n ? msm_classify(scal, inf_bits, i) : 0;
    unsigned b = __ballot_sync(0xffffffffu, cls == 1);
    if ((threadIdx.x & 31) == 0 && i < n)
        ones_bits[i / 32] = b;
    if (i < n)
        flags[i] = (uint8_t)(cls == 2);
}

__global__ static void __launch_bounds__(TPB) k_iota(uint32_t *x, uint64_t n)
{
    uint64_t i = gtid();
    if (i < n)
        x[i] = (uint32_t)i;
}

__global__ static void __launch_bounds__(TPB) k_digits(msm_plan p, const gfr *scal, const uint32_t *others,
                                                       uint32_t *keys, uint32_t *vals)
{
    uint64_t j = gtid();
    if (j < p.m)
        msm_digits_thread(&p, scal, others, keys, vals, j);
}

/* Level 0 of the accumulation: the hot loop, with the mixed addition inline (registers, no
 * stack). MINB blocks per SM cap the registers per thread at 65536 / (MINB·TPB): G1 at 3 blocks
 * takes 168 registers with no spill, at 4 blocks 128 with a few spilled words (more warps to hide
 * the multiply-add latency; G16_MSM_ACC0_BLOCKS=4 picks it, for measurements); G2 needs 255
 * (2 blocks; at 3 it would spill kilobytes per addition). */
template <int G2, int MINB> __global__ static void __launch_bounds__(TPB, MINB) k_acc0(msm_level lv, uint64_t T)
{
    uint64_t t = gtid();
    if (t >= T)
        return;
    msm_level l = lv;
    if constexpr (G2)
        g2_acc0_thread(&l, t);
    else
        g1_acc0_thread(&l, t);
}

/* Batch-affine level 0 (plan K > 1; msm_curve.cuh, acc0_aff_thread). G1 at 3 blocks per SM
 * (168 registers; unbounded, ptxas takes 174 and only 2 blocks fit), G2 at 2. */
template <int G2>
__global__ static void __launch_bounds__(TPB, G2 ? 2 : 3) k_acc0_aff(msm_level lv, uint64_t T)
{
    uint64_t t = gtid();
    if (t >= T)
        return;
    msm_level l = lv;
    if constexpr (G2)
        g2_acc0_aff_thread(&l, t);
    else
        g1_acc0_aff_thread(&l, t);
}

/* Carry levels (general additions as calls). */
template <int G2> __global__ static void __launch_bounds__(TPB) k_accn(msm_level lv, uint64_t T)
{
    uint64_t t = gtid();
    if (t >= T)
        return;
    msm_level l = lv;
    if constexpr (G2)
        g2_accn_thread(&l, t);
    else
        g1_accn_thread(&l, t);
}

/* Tree accumulation (msm_core.cuh): the runs' offsets, the longest run, the rounds, the stores. */
__global__ static void __launch_bounds__(TPB) k_tree_offsets(const uint32_t *keys, uint64_t n, uint32_t sent,
                                                             uint32_t *boff, uint32_t *bend, msm_tree_info *info)
{
    uint64_t i = gtid();
    if (i < n)
        msm_tree_offsets_thread(keys, n, sent, boff, bend, info, i);
}

/* Per slice, its longest piece of a run (slmax zeroed): a warp's keys mostly start in one slice,
 * so lanes are grouped by it and each group's leader does one atomic; a run over several slices
 * (long) does one per slice. */
__global__ static void __launch_bounds__(TPB) k_tree_maxlen(const uint32_t *boff, const uint32_t *bend, uint32_t nkeys,
                                                            uint64_t slice, uint32_t *slmax)
{
    uint64_t k = gtid();
    uint32_t b = 0, e = 0;
    if (k < nkeys) {
        b = boff[k];
        e = bend[k];
    }
    unsigned long long q = b / slice;
    int spans = e > b && (e - 1) / slice != q;
    uint32_t len = e > b && !spans ? e - b : 0;
    unsigned peers = __match_any_sync(0xffffffffu, q);
    uint32_t mx = __reduce_max_sync(peers, len);
    if ((threadIdx.x & 31) == (unsigned)(__ffs(peers) - 1) && mx)
        atomicMax(&slmax[q], mx);
    if (spans)
        for (uint64_t r = q; r <= (e - 1) / slice; r++)
            atomicMax(&slmax[r], msm_tree_piece(b, e, slice, r));
}

/* G1 at 3 blocks per SM (168 registers), G2 at 2, as the level-0 kernels. */
template <int G2> __global__ static void __launch_bounds__(TPB, G2 ? 2 : 3) k_tree_round(msm_tree tr, uint64_t T)
{
    uint64_t t = gtid();
    if (t >= T)
        return;
    if constexpr (G2)
        g2_tree_round_thread(&tr, t);
    else
        g1_tree_round_thread(&tr, t);
}

template <int G2> __global__ static void __launch_bounds__(TPB) k_tree_final(msm_tree tr)
{
    uint64_t i = tr.s0 + gtid();
    if (i >= tr.s1)
        return;
    if constexpr (G2)
        g2_tree_final_thread(&tr, i);
    else
        g1_tree_final_thread(&tr, i);
}

template <int G2> __global__ static void __launch_bounds__(TPB) k_reduce(msm_plan p, const void *buckets, void *out)
{
    uint64_t t = gtid();
    if (t >= (uint64_t)p.nwin * p.TR)
        return;
    if constexpr (G2)
        g2_reduce_thread(&p, buckets, out, t);
    else
        g1_reduce_thread(&p, buckets, out, t);
}

template <int G2> __global__ static void __launch_bounds__(TPB) k_sum(const void *in, void *out, uint64_t seglen,
                                                                      uint64_t T)
{
    uint64_t t = gtid();
    if (t >= T)
        return;
    if constexpr (G2)
        g2_sum_thread(in, out, seglen, MSM_SUM_GROUP, t);
    else
        g1_sum_thread(in, out, seglen, MSM_SUM_GROUP, t);
}

/* The ones' sums: the mixed addition inline, as k_acc0 (G1: 3 blocks per SM, G2: 2).
 * G16_MSM_ONES_PF = 1 (the default) prefetches the next base into L2 before the current addition
 * (msm_curve.cuh, ones_thread): the ones phase of bench_gpu_msm 24 24 on the H200, same job, two
 * runs each, G1 2^24 Filecoin-like 5.40 -> 4.33 ms, G2 18.39 -> 14.70 ms (-20%). */
#ifndef G16_MSM_ONES_PF
#define G16_MSM_ONES_PF 1
#endif
template <int G2> __global__ static void __launch_bounds__(TPB, G2 ? 2 : 3)
    k_ones(const uint32_t *bits, uint64_t nwords, uint32_t Q, const void *bases, void *out, uint64_t t0, uint64_t T)
{
    uint64_t t = t0 + gtid(); /* threads [t0, T) */
    if (t >= T)
        return;
    if constexpr (G2)
        g2_ones_thread(bits, nwords, Q, bases, out, t, G16_MSM_ONES_PF);
    else
        g1_ones_thread(bits, nwords, Q, bases, out, t, G16_MSM_ONES_PF);
}

template <int G2> __global__ static void k_final(uint32_t nwin, uint32_t c, const void *W, const void *ones, void *out)
{
    if (gtid() != 0)
        return;
    if constexpr (G2)
        g2_final_thread(nwin, c, W, ones, out);
    else
        g1_final_thread(nwin, c, W, ones, out);
}

/* ---------------------------------------------------------------- random bases (benchmarks) */

/* Base i = Σ table[j] over the set bits j < RANDOM_TABLE of a hash of (seed, i), made affine. */
template <int G2> __global__ static void __launch_bounds__(TPB) k_random(const void *table, uint64_t seed, void *out,
                                                                         uint64_t n)
{
    typedef typename grp<G2>::aff aff;
    typedef typename grp<G2>::xyzz xyzz;
    uint64_t i = gtid();
    if (i >= n)
        return;
    uint64_t h = msm_splitmix(seed ^ msm_splitmix(i)) & ((1ull << RANDOM_TABLE) - 1);
    xyzz acc;
    aff r;
    if constexpr (G2) {
        g2_set_inf(&acc);
        for (int j = 0; j < RANDOM_TABLE; j++)
            if ((h >> j) & 1)
                g2_madd_inl(&acc, (const aff *)table + j, 0);
        if (g2_is_inf(&acc)) {
            gfp2_set_zero(&r.x);
            gfp2_set_zero(&r.y);
        } else {
            gfp2 d, inv;
            gfp2_mul(&d, &acc.zz, &acc.zzz);
            gfp2_inv_var(&inv, &d);
            gfp2_mul(&d, &inv, &acc.zzz);
            gfp2_mul(&r.x, &acc.x, &d);
            gfp2_mul(&d, &inv, &acc.zz);
            gfp2_mul(&r.y, &acc.y, &d);
        }
    } else {
        g1_set_inf(&acc);
        for (int j = 0; j < RANDOM_TABLE; j++)
            if ((h >> j) & 1)
                g1_madd_inl(&acc, (const aff *)table + j, 0);
        if (g1_is_inf(&acc)) {
            gfp_set_zero(&r.x);
            gfp_set_zero(&r.y);
        } else {
            gfp d, inv;
            gfp_mul(&d, &acc.zz, &acc.zzz);
            gfp_inv_var(&inv, &d);
            gfp_mul(&d, &inv, &acc.zzz);
            gfp_mul(&r.x, &acc.x, &d);
            gfp_mul(&d, &inv, &acc.zz);
            gfp_mul(&r.y, &acc.y, &d);
        }
    }
    ((aff *)out)[i] = r;
}

/* ---------------------------------------------------------------- accumulation benchmark */

__global__ static void __launch_bounds__(TPB) k_ab_init(const g1_aff *bases, uint32_t mask, g1_aff *acc, uint32_t K,
                                                        uint64_t T)
{
    uint64_t t = gtid();
    if (t >= T)
        return;
    for (uint32_t j = 0; j < K; j++)
        acc[j * T + t] = bases[msm_ab_index(t, j, MSM_AB_INIT, mask)];
}

/*
 * Affine accumulation with a batch inversion per thread: each round adds one base into each of the
 * thread's K affine accumulators (acc[j·T + t], in device memory, as bucket state would be),
 * with one gfp_inv_var for the K slopes (Montgomery's trick; the running products stay in local
 * memory): 6 products per addition (1 running product, 2 to unwind, λ, λ², y3) + the inversion
 * over K. No special cases: P = ±A (probability ~2^-380 for these random points) is not
 * handled; the host replay would show it.
 */
__global__ static void __launch_bounds__(TPB) k_ab_affine(const g1_aff *bases, uint32_t mask, g1_aff *acc, uint32_t K,
                                                          uint32_t steps)
{
    uint64_t t = gtid(), T = gridDim.x * (uint64_t)blockDim.x;
    gfp pre[G16__GPU_AB_KMAX];
    for (uint32_t s = 0; s < steps; s++) {
        gfp run, inv;
#pragma unroll 1
        for (uint32_t j = 0; j < K; j++) {
            gfp px = bases[msm_ab_index(t, j, s, mask)].x, ax = acc[j * T + t].x, dx;
            gfp_sub(&dx, &px, &ax);
            if (j == 0)
                run = dx;
            else
                gfp_mul_inl(&run, &run, &dx);
            pre[j] = run;
        }
        gfp_inv_var(&inv, &run);
#pragma unroll 1
        for (uint32_t j = K; j-- > 0;) {
            g1_aff p = bases[msm_ab_index(t, j, s, mask)], a = acc[j * T + t], r;
            gfp dx, il, lam, u;
            gfp_sub(&dx, &p.x, &a.x);
            if (j > 0) {
                gfp_mul_inl(&il, &inv, &pre[j - 1]); /* 1/dx_j */
                gfp_mul_inl(&inv, &inv, &dx);        /* 1/(dx_0 ··· dx_(j-1)) */
            } else {
                il = inv;
            }
            gfp_sub(&u, &p.y, &a.y);
            gfp_mul_inl(&lam, &u, &il);
            gfp_sqr_inl(&r.x, &lam);
            gfp_sub(&r.x, &r.x, &a.x);
            gfp_sub(&r.x, &r.x, &p.x);
            gfp_sub(&u, &a.x, &r.x);
            gfp_mul_inl(&r.y, &lam, &u);
            gfp_sub(&r.y, &r.y, &a.y);
            acc[j * T + t] = r;
        }
    }
}

/* The same additions into one XYZZ accumulator per thread, kept in registers (as the level-0
 * kernel keeps a bucket's run): the current algorithm's cost per addition. */
__global__ static void __launch_bounds__(TPB) k_ab_xyzz(const g1_aff *bases, uint32_t mask, g1_xyzz *out, uint32_t K,
                                                        uint32_t steps)
{
    uint64_t t = gtid();
    g1_xyzz acc;
    g1_set_inf(&acc);
    for (uint32_t s = 0; s < steps; s++)
#pragma unroll 1
        for (uint32_t j = 0; j < K; j++)
            g1_madd_inl(&acc, bases + msm_ab_index(t, j, s, mask), 0);
    out[t] = acc;
}

/* Resident threads of one full wave of kernel k (TPB per block). */
static g16_status full_wave(const g16__gpu *g, const void *k, uint64_t *threads, g16_error *err)
{
    g16_status st = G16_OK;
    int nb = 0;
    G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k, TPB, 0));
    *threads = (uint64_t)(nb < 1 ? 1 : nb) * TPB * (uint64_t)g->info.sm_count;
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_msm_ab_bench(g16__gpu_msm *m, g16__gpu_ab_bench *b, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu *g;
    cudaStream_t s;
    void *dacc = NULL, *dx = NULL;
    uint32_t mask = 1;
    uint64_t Ta = 0, Tx = 0;
    float ms = 0;
    if (!m || !b || m->g2 || b->K < 1 || b->K > G16__GPU_AB_KMAX || b->steps < 1 || m->n < 2)
        return g16__error(err, G16_ERR_ARG, "gpu msm ab bench: needs a G1 handle of >= 2 bases, 1 <= K <= %d",
                          G16__GPU_AB_KMAX);
    g = m->g;
    s = g16__gpu_stream(g);
    while ((uint64_t)mask * 2 <= m->n && mask < (1u << 30))
        mask *= 2;
    mask -= 1;
    st = full_wave(g, (const void *)k_ab_affine, &Ta, err);
    if (st == G16_OK)
        st = full_wave(g, (const void *)k_ab_xyzz, &Tx, err);
    if (st != G16_OK)
        goto cleanup;
    {
        cudaFuncAttributes a;
        size_t cur = 0;
        G16_CU(cudaFuncGetAttributes(&a, (const void *)k_ab_affine));
        G16_CU(cudaDeviceGetLimit(&cur, cudaLimitStackSize));
        if (cur < a.localSizeBytes)
            G16_CU(cudaDeviceSetLimit(cudaLimitStackSize, a.localSizeBytes));
    }
    st = g16__gpu_alloc(g, &dacc, Ta * b->K * sizeof(g1_aff), "ab bench accumulators", err);
    if (st == G16_OK)
        st = g16__gpu_alloc(g, &dx, Tx * sizeof(g1_xyzz), "ab bench xyzz", err);
    if (st != G16_OK)
        goto cleanup;
    G16_CU_LAUNCH(k_ab_init<<<blocks_for(Ta), TPB, 0, s>>>((const g1_aff *)m->bases, mask, (g1_aff *)dacc, b->K, Ta));
    G16_CU(cudaEventRecord(g->ev_start, s));
    G16_CU_LAUNCH(k_ab_affine<<<blocks_for(Ta), TPB, 0, s>>>((const g1_aff *)m->bases, mask, (g1_aff *)dacc, b->K,
                                                            b->steps));
    G16_CU(cudaEventRecord(g->ev_stop, s));
    G16_CU(cudaEventSynchronize(g->ev_stop));
    G16_CU(cudaEventElapsedTime(&ms, g->ev_start, g->ev_stop));
    b->aff_per_s = (double)Ta * b->K * b->steps / (ms * 1e-3);
    G16_CU(cudaEventRecord(g->ev_start, s));
    G16_CU_LAUNCH(k_ab_xyzz<<<blocks_for(Tx), TPB, 0, s>>>((const g1_aff *)m->bases, mask, (g1_xyzz *)dx, b->K,
                                                          b->steps));
    G16_CU(cudaEventRecord(g->ev_stop, s));
    G16_CU(cudaEventSynchronize(g->ev_stop));
    G16_CU(cudaEventElapsedTime(&ms, g->ev_start, g->ev_stop));
    b->xyzz_per_s = (double)Tx * b->K * b->steps / (ms * 1e-3);
    b->threads_aff = Ta;
    b->threads_xyzz = Tx;
    b->mask = mask;
    /* the checked threads' results: K affine accumulators, one XYZZ point each */
    for (int q = 0; q < 3; q++) {
        uint64_t ta = q == 0 ? 0 : q == 1 ? Ta / 2 : Ta - 1, tx = q == 0 ? 0 : q == 1 ? Tx / 2 : Tx - 1;
        b->check_t_aff[q] = ta;
        b->check_t_xyzz[q] = tx;
        for (uint32_t j = 0; j < b->K; j++)
            G16_CU(cudaMemcpyAsync(&b->aff[q][j], (const g1_aff *)dacc + j * Ta + ta, sizeof(g1_aff),
                                   cudaMemcpyDeviceToHost, s));
        G16_CU(cudaMemcpyAsync(b->xyzz[q], (const g1_xyzz *)dx + tx, sizeof(g1_xyzz), cudaMemcpyDeviceToHost, s));
    }
    G16_CU(cudaStreamSynchronize(s));
cleanup:
    g16__gpu_free(g, dacc);
    g16__gpu_free(g, dx);
    return st;
}

/* ---------------------------------------------------------------- handles */

static size_t aff_size(int g2) { return g2 ? sizeof(g2_aff) : sizeof(g1_aff); }
static size_t xyzz_size(int g2) { return g2 ? sizeof(g2_xyzz) : sizeof(g1_xyzz); }

/* The point operations are calls with their operands on the stack (msm_core.cuh): make sure the
 * context's per-thread stack holds the deepest of our kernels (G2: about 2.5 KB). */
static g16_status stack_limit(g16_error *err)
{
    g16_status st = G16_OK;
    size_t need = 0, cur = 0;
    const void *kernels[] = {(const void *)k_acc0<1, 2>, (const void *)k_accn<1>,    (const void *)k_reduce<1>,
                             (const void *)k_sum<1>,     (const void *)k_ones<1>,    (const void *)k_final<1>,
                             (const void *)k_random<1>,  (const void *)k_acc0<0, 3>, (const void *)k_acc0<0, 4>,
                             (const void *)k_acc0_aff<0>, (const void *)k_acc0_aff<1>,
                             (const void *)k_reduce<0>,  (const void *)k_tree_round<0>,
                             (const void *)k_tree_round<1>, (const void *)k_tree_final<0>,
                             (const void *)k_tree_final<1>};
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        cudaFuncAttributes a;
        G16_CU(cudaFuncGetAttributes(&a, kernels[i]));
        if (a.localSizeBytes > need)
            need = a.localSizeBytes;
    }
    G16_CU(cudaDeviceGetLimit(&cur, cudaLimitStackSize));
    if (cur < need)
        G16_CU(cudaDeviceSetLimit(cudaLimitStackSize, need));
cleanup:
    return st;
}

static g16_status occupancy(g16__gpu_msm *m, g16_error *err)
{
    g16_status st = G16_OK;
    int nb = 0;
    st = stack_limit(err);
    if (st != G16_OK)
        goto cleanup;
    if (m->g2) {
        m->acc0_blocks = 2;
        G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_acc0<1, 2>, TPB, 0));
    } else {
        const char *e = getenv("G16_MSM_ACC0_BLOCKS");
        m->acc0_blocks = e && strcmp(e, "4") == 0 ? 4 : 3;
        if (m->acc0_blocks == 4)
            G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_acc0<0, 4>, TPB, 0));
        else
            G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_acc0<0, 3>, TPB, 0));
    }
    if (nb < 1)
        nb = 1;
    m->threads_acc = (uint64_t)nb * TPB * (uint64_t)m->g->info.sm_count;
    m->threads_red = 2 * m->threads_acc;
    if (m->g2)
        G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_acc0_aff<1>, TPB, 0));
    else
        G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_acc0_aff<0>, TPB, 0));
    m->threads_aff = (uint64_t)(nb < 1 ? 1 : nb) * TPB * (uint64_t)m->g->info.sm_count;
    {
        const char *e = getenv("G16_MSM_WIDEN");
        m->widen = !(e && !strcmp(e, "0"));
    }
    {
        /* lanes per batch-affine level-0 thread: G16_MSM_LANES_G1 / _G2 (1 = the XYZZ level 0) */
        const char *e = getenv(m->g2 ? "G16_MSM_LANES_G2" : "G16_MSM_LANES_G1");
        long v = e ? strtol(e, NULL, 10) : (m->g2 ? G16_MSM_LANES_G2 : G16_MSM_LANES_G1);
        m->lanes = v < 1 ? 1 : v > (long)MSM_AFF_KMAX ? MSM_AFF_KMAX : (uint32_t)v;
    }
    {
        const char *e = getenv(m->g2 ? "G16_MSM_TREE_G2" : "G16_MSM_TREE_G1"), *ek = getenv("G16_MSM_TREE_K");
        long v = e ? strtol(e, NULL, 10) : (m->g2 ? G16_MSM_TREE_G2 : G16_MSM_TREE_G1);
        long k = ek ? strtol(ek, NULL, 10) : (m->g2 ? G16_MSM_TREE_K_G2 : G16_MSM_TREE_K_G1);
        m->tree_log = v < 2 || v > 31 ? 0 : (uint32_t)v;
        m->tree_k = k < (long)MSM_TREE_KMIN ? MSM_TREE_KMIN : k > (long)MSM_TREE_KMAX ? MSM_TREE_KMAX : (uint32_t)k;
        if (m->g2)
            G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_tree_round<1>, TPB, 0));
        else
            G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, k_tree_round<0>, TPB, 0));
        m->threads_tree = (uint64_t)(nb < 1 ? 1 : nb) * TPB * (uint64_t)m->g->info.sm_count;
    }
cleanup:
    return st;
}

/* Allocates the handle and its device bases (not filled) and the infinity bitmap. */
static g16_status msm_alloc(g16__gpu_msm **out, g16__gpu *g, int g2, size_t n, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_msm *m = NULL;
    g16__gpu_plan plan;
    size_t words = (n + 31) / 32;
    *out = NULL;
    if (!g)
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL context");
    if (n > G16__GPU_MSM_MAX_POINTS)
        return g16__error(err, G16_ERR_UNSUPPORTED, "gpu msm: %zu bases (at most 2^31 - 1)", n);
    m = (g16__gpu_msm *)calloc(1, sizeof *m);
    if (!m)
        return g16__error(err, G16_ERR_NOMEM, "gpu msm: handle");
    m->g = g;
    m->g2 = g2;
    m->n = n;
    g16__gpu_plan_init(&plan);
    g16__gpu_plan_add(&plan, "MSM bases", n * aff_size(g2));
    g16__gpu_plan_add(&plan, "MSM base infinity bitmap", words * 4);
    st = g16__gpu_plan_check(g, &plan, err);
    if (st != G16_OK)
        goto cleanup;
    st = g16__gpu_alloc(g, &m->bases, n * aff_size(g2), "MSM bases", err);
    if (st != G16_OK)
        goto cleanup;
    st = g16__gpu_alloc(g, (void **)&m->inf_bits, words * 4, "MSM base infinity bitmap", err);
    if (st != G16_OK)
        goto cleanup;
    st = occupancy(m, err);
    if (st != G16_OK)
        goto cleanup;
    *out = m;
    m = NULL;
cleanup:
    g16__gpu_msm_destroy(m);
    return st;
}

static g16_status msm_finish_bases(g16__gpu_msm *m, int side, g16_error *err)
{
    g16_status st = G16_OK;
    cudaStream_t s = side ? g16__gpu_side_stream(m->g) : g16__gpu_stream(m->g);
    if (m->n == 0)
        return G16_OK;
    if (m->g2)
        G16_CU_LAUNCH(k_inf_bits<1><<<blocks_for(m->n), TPB, 0, s>>>(m->bases, m->n, m->inf_bits));
    else
        G16_CU_LAUNCH(k_inf_bits<0><<<blocks_for(m->n), TPB, 0, s>>>(m->bases, m->n, m->inf_bits));
    G16_CU(cudaStreamSynchronize(s));
cleanup:
    return st;
}

/* side: the copy and the bitmap kernel go through the side stream, and only it is waited for
 * (g16__gpu_msm_create_side). */
static g16_status msm_create(g16__gpu_msm **out, g16__gpu *g, int g2, const void *bases, size_t n, int side,
                             g16_error *err)
{
    g16_status st;
    g16__gpu_msm *m = NULL;
    if (!out)
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL output pointer");
    *out = NULL;
    if (!bases && n > 0)
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL bases with n = %zu", n);
    st = msm_alloc(&m, g, g2, n, err);
    if (st != G16_OK)
        goto cleanup;
    if (n > 0) {
        st = side ? g16__gpu_upload_side_nowait(g, m->bases, bases, n * aff_size(g2), err)
                  : g16__gpu_upload(g, m->bases, bases, n * aff_size(g2), err);
        if (st != G16_OK)
            goto cleanup;
    }
    st = msm_finish_bases(m, side, err);
    if (st != G16_OK)
        goto cleanup;
    *out = m;
    m = NULL;
cleanup:
    g16__gpu_msm_destroy(m);
    return st;
}

extern "C" g16_status g16__gpu_msm_create_p1(g16__gpu_msm **out, g16__gpu *g, const g16_p1_affine *bases, size_t n,
                                             g16_error *err)
{
    return msm_create(out, g, 0, bases, n, 0, err);
}

extern "C" g16_status g16__gpu_msm_create_p2(g16__gpu_msm **out, g16__gpu *g, const g16_p2_affine *bases, size_t n,
                                             g16_error *err)
{
    return msm_create(out, g, 1, bases, n, 0, err);
}

extern "C" g16_status g16__gpu_msm_create_side(g16__gpu_msm **out, g16__gpu *g, int g2, const void *bases, size_t n,
                                               g16_error *err)
{
    return msm_create(out, g, g2, bases, n, 1, err);
}

static g16_status msm_create_random(g16__gpu_msm **out, g16__gpu *g, int g2, size_t n, uint64_t seed, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_msm *m = NULL;
    void *dtable = NULL;
    g16_p2_affine table[RANDOM_TABLE]; /* the larger type; G1 uses the front */
    cudaStream_t s;
    if (!out)
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL output pointer");
    *out = NULL;
    st = msm_alloc(&m, g, g2, n, err);
    if (st != G16_OK)
        goto cleanup;
    s = g16__gpu_stream(g);
    g16__gpu_msm_random_table(table, g2, RANDOM_TABLE, seed);
    st = g16__gpu_alloc(g, &dtable, RANDOM_TABLE * aff_size(g2), "random base table", err);
    if (st != G16_OK)
        goto cleanup;
    G16_CU(cudaMemcpyAsync(dtable, table, RANDOM_TABLE * aff_size(g2), cudaMemcpyHostToDevice, s));
    G16_CU(cudaStreamSynchronize(s)); /* table is on this stack frame */
    if (n > 0) {
        if (g2)
            G16_CU_LAUNCH(k_random<1><<<blocks_for(n), TPB, 0, s>>>(dtable, seed, m->bases, n));
        else
            G16_CU_LAUNCH(k_random<0><<<blocks_for(n), TPB, 0, s>>>(dtable, seed, m->bases, n));
    }
    st = msm_finish_bases(m, 0, err);
    if (st != G16_OK)
        goto cleanup;
    *out = m;
    m = NULL;
cleanup:
    g16__gpu_free(g, dtable);
    g16__gpu_msm_destroy(m);
    return st;
}

extern "C" g16_status g16__gpu_msm_create_random_p1(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed,
                                                    g16_error *err)
{
    return msm_create_random(out, g, 0, n, seed, err);
}

extern "C" g16_status g16__gpu_msm_create_random_p2(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed,
                                                    g16_error *err)
{
    return msm_create_random(out, g, 1, n, seed, err);
}

extern "C" g16_status g16__gpu_msm_view(g16__gpu_msm **out, g16__gpu_msm *m, size_t first, size_t count,
                                        g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_msm *v = NULL;
    if (!out)
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL output pointer");
    *out = NULL;
    /* the infinity bitmap is addressed by whole 32-bit words: a view starts on one */
    if (!m || first % 32 || first > m->n || count > m->n - first)
        return g16__error(err, G16_ERR_ARG, "gpu msm: bad view [%zu, +%zu) of %zu bases (the first a multiple of 32)",
                          first, count, m ? m->n : 0);
    v = (g16__gpu_msm *)calloc(1, sizeof *v);
    if (!v)
        return g16__error(err, G16_ERR_NOMEM, "gpu msm: view handle");
    v->g = m->g;
    v->g2 = m->g2;
    v->n = count;
    v->bases = (char *)m->bases + first * aff_size(m->g2);
    v->inf_bits = m->inf_bits + first / 32;
    v->view = 1;
    st = occupancy(v, err);
    if (st != G16_OK)
        goto cleanup;
    *out = v;
    v = NULL;
cleanup:
    g16__gpu_msm_destroy(v);
    return st;
}

extern "C" g16_status g16__gpu_msm_download_bases(g16__gpu_msm *m, void *host, size_t first, size_t count,
                                                  g16_error *err)
{
    g16_status st = G16_OK;
    if (!m || (!host && count > 0) || first > m->n || count > m->n - first)
        return g16__error(err, G16_ERR_ARG, "gpu msm: bad base range [%zu, +%zu)", first, count);
    if (count == 0)
        return G16_OK;
    st = g16__gpu_download(m->g, host, (const char *)m->bases + first * aff_size(m->g2), count * aff_size(m->g2),
                           err);
    if (st != G16_OK)
        return st;
    return g16__gpu_sync(m->g, err);
}

extern "C" void g16__gpu_msm_release_scratch(g16__gpu_msm *m)
{
    if (!m)
        return;
    g16__gpu_scratch_free(m->g, m->fixed_mem);
    g16__gpu_scratch_free(m->g, m->pip_mem);
    g16__gpu_scratch_free(m->g, m->res);
    g16__gpu_scratch_free(m->g, m->scal_mem);
    m->fixed_mem = m->pip_mem = m->res = m->scal_mem = NULL;
    m->res_cap = 0;
    memset(&m->f, 0, sizeof m->f);
    memset(&m->p, 0, sizeof m->p);
}

extern "C" void g16__gpu_msm_destroy(g16__gpu_msm *m)
{
    if (!m)
        return;
    if (!m->view) {
        g16__gpu_free(m->g, m->bases);
        g16__gpu_free(m->g, m->inf_bits);
    }
    g16__gpu_scratch_free(m->g, m->fixed_mem);
    g16__gpu_scratch_free(m->g, m->pip_mem);
    g16__gpu_scratch_free(m->g, m->res);
    g16__gpu_scratch_free(m->g, m->scal_mem);
    free(m);
}

extern "C" size_t g16__gpu_msm_size(const g16__gpu_msm *m) { return m ? m->n : 0; }

/* ---------------------------------------------------------------- scratch memory */

#define ALIGN_UP(x) (((x) + 255) & ~(size_t)255)

/* Host scalars of MSM_UP_AUTO_MIN points and more (or as opts.upload_chunks says) are uploaded in
 * up to MSM_UP_CHUNKS chunks (msm_core.cuh, msm_up_chunks) on the side stream; each chunk is
 * classified and its scalars equal to one summed as soon as it has arrived, while the next chunks
 * cross PCIe. Its first form (the ones' threads of one wave split over the chunks: 1/8 wave per
 * chunk) made the H200's ones phase ~5x longer (G2 2^24 Filecoin-like 181.9 -> 223.7 ms), hence a
 * wave per chunk (ones_Qc): Filecoin-like G1 2^26 202.0 -> 191.7 ms. */

typedef struct {
    g16__gpu_msm *m;
    g16__gpu *g;
    cudaStream_t s;
    fixed_bufs *f;
    pip_bufs *p;
    cudaEvent_t ev[G16__GPU_MSM_PH_COUNT + 1];
    int timing;
    /* host scalars: chunk j's upload on the side stream records up[j]; set_start on the stream
     * keeps a set's uploads behind the previous set's reads of the scalar buffer */
    cudaEvent_t up[MSM_UP_CHUNKS], set_start;
    unsigned up_nch;  /* chunks of a set's upload (1: one copy on the stream) */
    uint64_t up_len;  /* points per chunk (msm_up_chunks) */
    const gfr *scal;  /* the set's scalars on the device: f->scal (host scalars), or the caller's */
} run_ctx;

static uint64_t slots_for(const msm_plan *pl) { return 2 * pl->T0 + 2; }

/* Lanes of the batch-affine level 0 for a run: the options' (1 forces the XYZZ level 0), else the
 * handle's default. */
static uint32_t lanes_for(const g16__gpu_msm *m, const g16__gpu_msm_opts *o)
{
    return o && o->lanes ? o->lanes : m->lanes;
}

/* Carves `count` buffers of the given sizes out of one scratch allocation (the device's pool:
 * stream-ordered, so a handle's scratch freed after its run is the next handle's without a
 * cudaFree / cudaMalloc pair). */
static g16_status arena(g16__gpu *g, void **mem, void **ptrs[], const size_t sizes[], const char *const what[],
                        int count, const char *name, g16_error *err)
{
    g16__gpu_plan plan;
    size_t total = 0;
    g16_status st;
    g16__gpu_plan_init(&plan);
    for (int i = 0; i < count; i++) {
        g16__gpu_plan_add(&plan, what[i], ALIGN_UP(sizes[i]));
        total += ALIGN_UP(sizes[i]);
    }
    st = g16__gpu_plan_check(g, &plan, err);
    if (st != G16_OK)
        return st;
    st = g16__gpu_scratch_alloc(g, mem, total, name, err);
    if (st != G16_OK)
        return st;
    char *p = (char *)*mem;
    for (int i = 0; i < count; i++) {
        *ptrs[i] = p;
        p += ALIGN_UP(sizes[i]);
    }
    return G16_OK;
}

static g16_status fixed_alloc(run_ctx *x, size_t nsets, int host_scalars, g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = x->m->n, words = (n + 31) / 32, xs = xyzz_size(x->m->g2);
    fixed_bufs *f = x->f;
    if (host_scalars && !x->m->scal_mem) {
        size_t sizes[] = {n * sizeof(gfr)};
        void **ptrs[] = {(void **)&f->scal};
        const char *const what[] = {"MSM scalars"};
        st = arena(x->g, &x->m->scal_mem, ptrs, sizes, what, 1, "MSM scalars", err);
        if (st != G16_OK)
            goto cleanup;
    }
    if (nsets > x->m->res_cap) {
        g16__gpu_scratch_free(x->g, x->m->res);
        x->m->res = NULL;
        x->m->res_cap = 0;
        st = g16__gpu_scratch_alloc(x->g, &x->m->res, nsets * xs, "MSM results", err);
        if (st != G16_OK)
            goto cleanup;
        x->m->res_cap = nsets;
    }
    if (x->m->fixed_mem)
        return G16_OK;
    msm_ones_shape(words, x->m->threads_acc, 1, &f->ones_Q, &f->ones_T);
    msm_ones_shape(words, x->m->threads_acc, MSM_UP_CHUNKS, &f->ones_Qc, &f->ones_Tc);
    f->sel_bytes = 0;
    G16_CU(cub::DeviceSelect::Flagged(NULL, f->sel_bytes, (const uint32_t *)NULL, (const uint8_t *)NULL,
                                      (uint32_t *)NULL, (int64_t *)NULL, (int64_t)n, x->s));
    {
        size_t sizes[] = {n, n * 4, n * 4, words * 4, 16, f->ones_Tc * xs, f->ones_Tc * xs, MSM_WALL * xs,
                          f->sel_bytes};
        void **ptrs[] = {(void **)&f->flags, (void **)&f->iota, (void **)&f->others, (void **)&f->ones_bits,
                         (void **)&f->count, &f->ones_a, &f->ones_b, &f->wall, &f->sel_tmp};
        const char *const what[] = {"MSM scalar flags", "MSM index sequence", "MSM other indices", "MSM ones bitmap",
                                    "MSM count", "MSM ones partial sums", "MSM ones partial sums",
                                    "MSM window sums", "MSM compaction scratch"};
        st = arena(x->g, &x->m->fixed_mem, ptrs, sizes, what, 9, "MSM scratch", err);
        if (st != G16_OK)
            goto cleanup;
    }
    if (n > 0)
        G16_CU_LAUNCH(k_iota<<<blocks_for(n), TPB, 0, x->s>>>(f->iota, n));
cleanup:
    return st;
}

/* Pippenger buffer sizes: entries, buckets, carry slots, reduction partial sums, lanes, sort bytes. */
typedef struct {
    uint64_t N, nb, slots, nred, nl, nt, nk, nsl; /* tree: slice points, keys, slices */
    size_t sort_bytes;
} pip_sizes;

/* Replaces the Pippenger buffers by buffers of sizes z (one arena). */
static g16_status pip_alloc(run_ctx *x, const pip_sizes *z, g16_error *err)
{
    g16_status st = G16_OK;
    pip_bufs *p = x->p;
    size_t xs = xyzz_size(x->m->g2), fs = x->m->g2 ? sizeof(gfp2) : sizeof(gfp);
    g16__gpu_scratch_free(x->g, x->m->pip_mem);
    x->m->pip_mem = NULL;
    memset(p, 0, sizeof *p);
    {
        size_t sizes[] = {z->N * 4,         z->N * 4,         z->N * 4,   z->N * 4,   z->sort_bytes,
                          z->nb * xs,       z->slots * 4,     z->slots * 4, z->slots * xs, z->slots * xs,
                          z->nred * xs,     z->nred * xs,     z->nl * aff_size(x->m->g2), z->nl * fs,
                          2 * z->nl * fs,   z->nl * sizeof(msm_lane), z->nt * aff_size(x->m->g2),
                          z->nk * 4,        z->nk * 4,        z->nk ? sizeof(msm_tree_info) + z->nsl * 4 : 0};
        void **ptrs[] = {(void **)&p->k0, (void **)&p->k1, (void **)&p->v0, (void **)&p->v1, &p->sort_tmp,
                         &p->buckets, (void **)&p->sk0, (void **)&p->sk1, &p->sp0, &p->sp1, &p->red0, &p->red1,
                         &p->lacc, &p->lpre, &p->lden, &p->lanes, &p->tscr, (void **)&p->tboff,
                         (void **)&p->tbend, (void **)&p->tinfo};
        const char *const what[] = {"MSM digit keys", "MSM digit keys (sort)", "MSM digit values",
                                    "MSM digit values (sort)", "MSM sort scratch", "MSM buckets",
                                    "MSM carry keys", "MSM carry keys", "MSM carry points", "MSM carry points",
                                    "MSM window partial sums", "MSM window partial sums",
                                    "MSM affine lane sums", "MSM affine lane products", "MSM affine lane slopes",
                                    "MSM affine lanes", "MSM tree slice points", "MSM tree run starts",
                                    "MSM tree run ends", "MSM tree info"};
        st = arena(x->g, &x->m->pip_mem, ptrs, sizes, what, 20, "MSM Pippenger scratch", err);
        if (st != G16_OK)
            goto cleanup;
    }
    p->sort_bytes = z->sort_bytes;
    p->N = z->N;
    p->nbuckets = z->nb;
    p->slots = z->slots;
    p->nred = z->nred;
    p->nlanes = z->nl;
    p->ntree = z->nt;
    p->nkeys = z->nk;
    p->nslices = z->nsl;
cleanup:
    return st;
}

/* The Pippenger buffer sizes of plan pl (the sort's temporary bytes from CUB). */
static g16_status pip_sizes_for(run_ctx *x, const msm_plan *pl, pip_sizes *z, g16_error *err)
{
    g16_status st = G16_OK;
    z->N = pl->N;
    z->nb = (uint64_t)pl->nwin * pl->B;
    z->slots = slots_for(pl);
    z->nred = (uint64_t)pl->nwin * pl->TR;
    z->nl = pl->K > 1 ? (uint64_t)pl->K * pl->TL : 0;
    z->nt = pl->tree;
    z->nk = pl->tree ? (uint64_t)pl->sent : 0;
    z->nsl = pl->tree ? msm_div_up(pl->N, pl->tree) : 0;
    z->sort_bytes = 0;
    {
        cub::DoubleBuffer<uint32_t> dk(NULL, NULL), dv(NULL, NULL);
        G16_CU(cub::DeviceRadixSort::SortPairs(NULL, z->sort_bytes, dk, dv, (uint64_t)pl->N, 0, (int)pl->key_bits,
                                               x->s));
    }
cleanup:
    return st;
}

/* The Pippenger buffers allocated now hold sizes z. */
static int pip_holds(const run_ctx *x, const pip_sizes *z)
{
    const pip_bufs *p = x->p;
    return x->m->pip_mem && z->N <= p->N && z->nb <= p->nbuckets && z->slots <= p->slots && z->nred <= p->nred &&
           z->nl <= p->nlanes && z->nt <= p->ntree && z->nk <= p->nkeys && z->nsl <= p->nslices &&
           z->sort_bytes <= p->sort_bytes;
}

/* Makes sure the Pippenger buffers hold plan pl. When they are too small they grow to the larger
 * of the old and the new sizes: a handle sees plans of two shapes (all n scalars up front, then
 * the non-trivial count, whose window may be smaller and its reduction threads more), and
 * replacing one by the other reallocated on every run (cudaFree waits for the device: 2.4 ms of
 * G1 2^24 Filecoin-like's 72 ms on the H200). If the larger buffers do not fit, pl's own sizes. */
static g16_status pip_ensure(run_ctx *x, const msm_plan *pl, g16_error *err)
{
    g16_status st = G16_OK;
    pip_bufs *p = x->p;
    pip_sizes z;
    if ((st = pip_sizes_for(x, pl, &z, err)) != G16_OK || pip_holds(x, &z))
        return st;
    if (x->m->pip_mem) {
        pip_sizes u = z;
        u.N = z.N > p->N ? z.N : p->N;
        u.nb = z.nb > p->nbuckets ? z.nb : p->nbuckets;
        u.slots = z.slots > p->slots ? z.slots : p->slots;
        u.nred = z.nred > p->nred ? z.nred : p->nred;
        u.nl = z.nl > p->nlanes ? z.nl : p->nlanes;
        u.nt = z.nt > p->ntree ? z.nt : p->ntree;
        u.nk = z.nk > p->nkeys ? z.nk : p->nkeys;
        u.nsl = z.nsl > p->nslices ? z.nsl : p->nslices;
        u.sort_bytes = z.sort_bytes > p->sort_bytes ? z.sort_bytes : p->sort_bytes;
        st = pip_alloc(x, &u, err);
        if (st != G16_ERR_NOMEM)
            goto cleanup;
    }
    st = pip_alloc(x, &z, err);
cleanup:
    return st;
}

/* The plan of a run's pass from window w0 over count non-trivial scalars in passes of wpp windows
 * (0: one pass; window c, 0: the options' window, or the automatic one), with the options' level-0
 * and tree settings. */
static void plan_make(const run_ctx *x, msm_plan *pl, uint64_t count, const g16__gpu_msm_opts *o, uint32_t c,
                      uint32_t w0, uint32_t wpp)
{
    const g16__gpu_msm *m = x->m;
    uint64_t t0 = o && o->threads0 ? o->threads0 : m->threads_acc, taff = o && o->threads0 ? o->threads0 : m->threads_aff;
    uint32_t carry = o ? o->carry_per : 0, lanes = lanes_for(m, o);
    uint32_t tlog = o && o->tree ? (o->tree == 1 ? 0 : o->tree) : m->tree_log;
    uint32_t tk = o && o->tree_k ? o->tree_k : m->tree_k;
    msm_plan_make_pass(pl, count, c, w0, wpp, t0, m->threads_red, carry, lanes, taff);
    msm_plan_tree(pl, tlog ? (uint64_t)1 << tlog : 0, tk);
}

/* The plan of a run's pass from window w0 over count non-trivial scalars (window c_pass, the one
 * the first pass took; 0 for the first: the options' window, or the automatic one), in passes of
 * wpp windows, with its Pippenger buffers. An automatic window above MSM_LEAN_WINDOW takes more
 * memory than MSM_LEAN_WINDOW up to 2^27 scalars (12·2^21 buckets against 13·2^19: about 264
 * against 228 B per scalar at 2^26, 228 against 218 at 2^27), so when its buffers do not fit the run
 * tries MSM_LEAN_WINDOW, as it ran before the automatic choice reached 22. */
static g16_status plan_and_ensure(run_ctx *x, msm_plan *pl, uint64_t count, const g16__gpu_msm_opts *o,
                                  uint32_t c_pass, uint32_t w0, uint32_t wpp, g16_error *err)
{
    uint32_t c = c_pass ? c_pass : o ? o->window : 0;
    plan_make(x, pl, count, o, c, w0, wpp);
    g16_status st = pip_ensure(x, pl, err);
    if (st == G16_ERR_NOMEM && c == 0 && pl->c > MSM_LEAN_WINDOW) {
        plan_make(x, pl, count, o, MSM_LEAN_WINDOW, w0, wpp);
        st = pip_ensure(x, pl, err);
    }
    return st;
}

/* A set in passes (opts.windows_per_pass) whose non-trivial scalars are fewer than the points (a
 * witness: mostly 0 and 1): its passes as wide as the Pippenger buffers allocated now hold (the
 * run's up-front plan, every scalar non-trivial, or an earlier set's), so that fewer passes pay
 * their fixed cost (~2.5 ms each on an H100, bench/RESULTS.md, twenty-second session) with no
 * more memory than the caller's bound (g16__gpu_msm_scratch_bytes_opts). *wpp: the set's windows
 * per pass (0: one pass). */
static g16_status widen_passes(run_ctx *x, uint64_t count, const g16__gpu_msm_opts *o, uint32_t *wpp,
                               g16_error *err)
{
    g16_status st = G16_OK;
    *wpp = o ? o->windows_per_pass : 0;
    if (!*wpp || count >= x->m->n || !x->m->pip_mem || !x->m->widen)
        return G16_OK;
    uint32_t c = o->window ? o->window : msm_window_for(count), nwin = (256 + c - 1) / c;
    for (uint32_t w = nwin; w > *wpp; w--) {
        msm_plan pl;
        pip_sizes z;
        plan_make(x, &pl, count, o, c, 0, w);
        if ((st = pip_sizes_for(x, &pl, &z, err)) != G16_OK)
            return st;
        if (pip_holds(x, &z)) {
            *wpp = w >= nwin ? 0 : w;
            return G16_OK;
        }
    }
    return G16_OK;
}

static g16_status mark(run_ctx *x, int phase, g16_error *err)
{
    g16_status st = G16_OK;
    if (x->timing)
        G16_CU(cudaEventRecord(x->ev[phase], x->s));
cleanup:
    return st;
}

/* Adds the times of phases [from, to) (their events recorded, ev[to] after them) to ms. */
static g16_status add_times(run_ctx *x, double *ms, int from, int to, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaEventSynchronize(x->ev[to]));
    for (int ph = from; ph < to; ph++) {
        float f = 0;
        G16_CU(cudaEventElapsedTime(&f, x->ev[ph], x->ev[ph + 1]));
        ms[ph] += f;
    }
cleanup:
    return st;
}

/* ---------------------------------------------------------------- one scalar set */

template <int G2> static g16_status launch_sum_to_one(run_ctx *x, void **a, void **b, uint64_t nseg, uint64_t seglen,
                                                      g16_error *err)
{
    g16_status st = G16_OK;
    while (seglen > 1) {
        uint64_t outlen = msm_div_up(seglen, MSM_SUM_GROUP), T = nseg * outlen;
        G16_CU_LAUNCH(k_sum<G2><<<blocks_for(T), TPB, 0, x->s>>>(*a, *b, seglen, T));
        void *t = *a;
        *a = *b;
        *b = t;
        seglen = outlen;
    }
cleanup:
    return st;
}

/* The tree accumulation (msm_core.cuh) of the sorted entries into the zeroed buckets: the runs'
 * offsets and each slice's longest piece of a run (one small download: the slices' round counts),
 * then per slice its rounds and the runs' stores. */
template <int G2> static g16_status tree_accumulate(run_ctx *x, const msm_plan *pl, const uint32_t *keys,
                                                   const uint32_t *vals, g16_error *err)
{
    g16_status st = G16_OK;
    pip_bufs *p = x->p;
    msm_tree_info info;
    msm_tree tr;
    uint64_t nsl = msm_div_up(pl->N, pl->tree);
    uint32_t *slmax = (uint32_t *)(p->tinfo + 1), *hmax = (uint32_t *)malloc(nsl * 4);
    if (!hmax) {
        st = g16__error(err, G16_ERR_NOMEM, "gpu msm: tree slice lengths (%llu slices)", (unsigned long long)nsl);
        goto cleanup;
    }
    G16_CU(cudaMemsetAsync(p->tboff, 0, (size_t)pl->sent * 4, x->s));
    G16_CU(cudaMemsetAsync(p->tbend, 0, (size_t)pl->sent * 4, x->s));
    G16_CU(cudaMemsetAsync(p->tinfo, 0, sizeof(msm_tree_info) + nsl * 4, x->s));
    G16_CU_LAUNCH(k_tree_offsets<<<blocks_for(pl->N), TPB, 0, x->s>>>(keys, pl->N, pl->sent, p->tboff, p->tbend,
                                                                     p->tinfo));
    G16_CU_LAUNCH(k_tree_maxlen<<<blocks_for(pl->sent), TPB, 0, x->s>>>(p->tboff, p->tbend, pl->sent, pl->tree,
                                                                        slmax));
    G16_CU(cudaMemcpyAsync(&info, p->tinfo, sizeof info, cudaMemcpyDeviceToHost, x->s));
    G16_CU(cudaMemcpyAsync(hmax, slmax, nsl * 4, cudaMemcpyDeviceToHost, x->s));
    G16_CU(cudaStreamSynchronize(x->s));
    memset(&tr, 0, sizeof tr);
    tr.keys = keys;
    tr.vals = vals;
    tr.bases = x->m->bases;
    tr.boff = p->tboff;
    tr.bend = p->tbend;
    tr.scr = p->tscr;
    tr.buckets = p->buckets;
    for (uint64_t s0 = 0; s0 < info.nreal; s0 += pl->tree) {
        uint64_t n = info.nreal - s0 < pl->tree ? info.nreal - s0 : pl->tree;
        uint32_t R = msm_tree_rounds(hmax[s0 / pl->tree]);
        tr.s0 = s0;
        tr.s1 = s0 + n;
        for (uint32_t r = 0; r < R; r++) {
            tr.r = r;
            tr.K = msm_tree_k(n, r, x->m->threads_tree, pl->tree_k);
            uint64_t T = msm_tree_threads(n, r, tr.K);
            G16_CU_LAUNCH(k_tree_round<G2><<<blocks_for(T), TPB, 0, x->s>>>(tr, T));
        }
        G16_CU_LAUNCH(k_tree_final<G2><<<blocks_for(n), TPB, 0, x->s>>>(tr));
    }
cleanup:
    free(hmax);
    return st;
}

template <int G2> static g16_status pippenger(run_ctx *x, const msm_plan *pl, const g16__gpu_msm_opts *o, void **W,
                                              g16_error *err)
{
    g16_status st = G16_OK;
    pip_bufs *p = x->p;
    size_t xs = xyzz_size(G2);
    (void)o;
    G16_CU_LAUNCH(k_digits<<<blocks_for(pl->m), TPB, 0, x->s>>>(*pl, x->scal, x->f->others, p->k0, p->v0));
    st = mark(x, G16__GPU_MSM_PH_SORT, err);
    if (st != G16_OK)
        goto cleanup;
    {
        cub::DoubleBuffer<uint32_t> dk(p->k0, p->k1), dv(p->v0, p->v1);
        size_t bytes = p->sort_bytes;
        G16_CU(cub::DeviceRadixSort::SortPairs(p->sort_tmp, bytes, dk, dv, (uint64_t)pl->N, 0, (int)pl->key_bits,
                                               x->s));
        st = mark(x, G16__GPU_MSM_PH_ACCUM, err);
        if (st != G16_OK)
            goto cleanup;
        G16_CU(cudaMemsetAsync(p->buckets, 0, (size_t)pl->nwin * pl->B * xs, x->s));
        if (pl->tree) {
            st = tree_accumulate<G2>(x, pl, dk.Current(), dv.Current(), err);
            if (st != G16_OK)
                goto cleanup;
            goto reduce;
        }
        msm_level lv;
        memset(&lv, 0, sizeof lv);
        lv.n = pl->N;
        lv.per = pl->per0;
        lv.sent = pl->sent;
        lv.keys = dk.Current();
        lv.vals = dv.Current();
        lv.bases = x->m->bases;
        lv.in = NULL;
        lv.buckets = p->buckets;
        lv.okeys = p->sk0;
        lv.opts = p->sp0;
        lv.K = pl->K;
        lv.T0 = pl->T0;
        lv.TL = pl->TL;
        lv.lacc = p->lacc;
        lv.lpre = p->lpre;
        lv.lden = p->lden;
        lv.lanes = (msm_lane *)p->lanes;
        if (pl->K > 1)
            G16_CU_LAUNCH(k_acc0_aff<G2><<<blocks_for(pl->TL), TPB, 0, x->s>>>(lv, pl->TL));
        else if constexpr (G2)
            G16_CU_LAUNCH(k_acc0<1, 2><<<blocks_for(pl->T0), TPB, 0, x->s>>>(lv, pl->T0));
        else if (x->m->acc0_blocks == 4)
            G16_CU_LAUNCH(k_acc0<0, 4><<<blocks_for(pl->T0), TPB, 0, x->s>>>(lv, pl->T0));
        else
            G16_CU_LAUNCH(k_acc0<0, 3><<<blocks_for(pl->T0), TPB, 0, x->s>>>(lv, pl->T0));
        uint64_t S = 2 * pl->T0, T = pl->T0;
        uint32_t *ik = p->sk0, *ok = p->sk1;
        void *ip = p->sp0, *op = p->sp1;
        while (T > 1) {
            T = msm_div_up(S, pl->per);
            lv.n = S;
            lv.per = pl->per;
            lv.keys = ik;
            lv.vals = NULL;
            lv.bases = NULL;
            lv.in = ip;
            lv.okeys = ok;
            lv.opts = op;
            G16_CU_LAUNCH(k_accn<G2><<<blocks_for(T), TPB, 0, x->s>>>(lv, T));
            S = 2 * T;
            uint32_t *tk = ik;
            ik = ok;
            ok = tk;
            void *tp = ip;
            ip = op;
            op = tp;
        }
    }
reduce:
    st = mark(x, G16__GPU_MSM_PH_REDUCE, err);
    if (st != G16_OK)
        goto cleanup;
    {
        uint64_t T = (uint64_t)pl->nwin * pl->TR;
        void *a = p->red0, *b = p->red1;
        G16_CU_LAUNCH(k_reduce<G2><<<blocks_for(T), TPB, 0, x->s>>>(*pl, p->buckets, a));
        st = launch_sum_to_one<G2>(x, &a, &b, pl->nwin, pl->TR, err);
        if (st != G16_OK)
            goto cleanup;
        *W = a;
    }
cleanup:
    return st;
}

/* The set's scalars into f->scal (device scalars: x->scal points at them), classified (ones
 * bitmap, flags of the others) and the bases of
 * the ones summed into the ones' partial sums (*T of them). Host scalars with opts.upload_chunks
 * = k > 1: chunk by chunk, each chunk's kernels on the stream behind its upload on the side
 * stream (the first chunk's upload is the upload phase; the rest overlaps the classify phase). */
template <int G2> static g16_status classify_ones(run_ctx *x, const g16_fr *scal, const g16__gpu_msm_opts *o,
                                                  uint64_t *T, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_msm *m = x->m;
    fixed_bufs *f = x->f;
    int dev = o && o->device_scalars;
    uint64_t n = m->n, words = (n + 31) / 32, len = x->up_len;
    unsigned nch = x->up_nch;
    uint32_t Q = nch > 1 ? f->ones_Qc : f->ones_Q;
    cudaStream_t side = g16__gpu_side_stream(x->g);
    *T = nch > 1 ? f->ones_Tc : f->ones_T;
    x->scal = dev ? (const gfr *)(const void *)scal : f->scal; /* (device scalars: read in place) */
    if (nch > 1) {
        /* the previous set's kernels read f->scal until the stream gets here */
        G16_CU(cudaEventRecord(x->set_start, x->s));
        G16_CU(cudaStreamWaitEvent(side, x->set_start, 0));
    }
    for (unsigned j = 0; j < nch; j++) {
        uint64_t i0, i1, t0, t1;
        msm_up_chunk(n, j, nch, len, Q, *T, &i0, &i1, &t0, &t1);
        if (nch > 1) {
            G16_CU(cudaMemcpyAsync(f->scal + i0, scal + i0, (i1 - i0) * sizeof(gfr), cudaMemcpyHostToDevice, side));
            G16_CU(cudaEventRecord(x->up[j], side));
            G16_CU(cudaStreamWaitEvent(x->s, x->up[j], 0));
        } else if (!dev) {
            G16_CU(cudaMemcpyAsync(f->scal, scal, n * sizeof(gfr), cudaMemcpyHostToDevice, x->s));
        }
        if (j == 0 && (st = mark(x, G16__GPU_MSM_PH_CLASSIFY, err)) != G16_OK)
            goto cleanup;
        G16_CU_LAUNCH(k_classify<<<blocks_for(i1 - i0), TPB, 0, x->s>>>(x->scal, m->inf_bits, i0, i1, f->ones_bits,
                                                                       f->flags));
        G16_CU_LAUNCH(k_ones<G2><<<blocks_for(t1 - t0), TPB, 0, x->s>>>(f->ones_bits, words, Q, m->bases, f->ones_a,
                                                                       t0, t1));
    }
cleanup:
    return st;
}

template <int G2> static g16_status run_set(run_ctx *x, const g16_fr *scalars, size_t set,
                                            const g16__gpu_msm_opts *o, char *hres, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_msm *m = x->m;
    fixed_bufs *f = x->f;
    size_t n = m->n, xs = xyzz_size(G2);
    int64_t count = 0;
    uint64_t ones_T = 1;
    void *W = NULL, *ones = NULL;
    int times_from = G16__GPU_MSM_PH_UPLOAD;
    msm_plan pl;
    memset(&pl, 0, sizeof pl);
    void *res = (char *)m->res + set * xs;

    st = mark(x, G16__GPU_MSM_PH_UPLOAD, err);
    if (st != G16_OK)
        goto cleanup;
    st = classify_ones<G2>(x, scalars + set * n, o, &ones_T, err);
    if (st != G16_OK)
        goto cleanup;
    {
        size_t bytes = f->sel_bytes;
        G16_CU(cub::DeviceSelect::Flagged(f->sel_tmp, bytes, (const uint32_t *)f->iota, (const uint8_t *)f->flags,
                                          f->others, f->count, (int64_t)n, x->s));
    }
    G16_CU(cudaMemcpyAsync(&count, f->count, sizeof count, cudaMemcpyDeviceToHost, x->s));
    G16_CU(cudaStreamSynchronize(x->s));
    if (o && o->nothers)
        o->nothers[set] = (uint64_t)count;
    st = mark(x, G16__GPU_MSM_PH_ONES, err);
    if (st != G16_OK)
        goto cleanup;
    {
        void *a = f->ones_a, *b = f->ones_b;
        st = launch_sum_to_one<G2>(x, &a, &b, 1, ones_T, err);
        if (st != G16_OK)
            goto cleanup;
        ones = a;
    }
    st = mark(x, G16__GPU_MSM_PH_DIGITS, err);
    if (st != G16_OK)
        goto cleanup;
    if (o && o->npasses)
        o->npasses[set] = 0;
    if (count > 0) {
        /* one pass, or passes of windows_per_pass windows (widened as the buffers allow; the first
         * pass's window for all), their window sums gathered in f->wall; with timing, each pass's
         * phases added as it ends */
        uint32_t c_pass = 0, w0 = 0, wpp = 0;
        if ((st = widen_passes(x, (uint64_t)count, o, &wpp, err)) != G16_OK)
            goto cleanup;
        for (;;) {
            st = plan_and_ensure(x, &pl, (uint64_t)count, o, c_pass, w0, wpp, err);
            if (st != G16_OK)
                goto cleanup;
            st = G2 ? pippenger<1>(x, &pl, o, &W, err) : pippenger<0>(x, &pl, o, &W, err);
            if (st != G16_OK)
                goto cleanup;
            if (o && o->npasses)
                o->npasses[set]++;
            if (pl.nwin == pl.nwin_all)
                break;
            G16_CU(cudaMemcpyAsync((char *)f->wall + (size_t)pl.w0 * xs, W, (size_t)pl.nwin * xs,
                                   cudaMemcpyDeviceToDevice, x->s));
            c_pass = pl.c;
            w0 = pl.w0 + pl.nwin;
            if (w0 >= pl.nwin_all) {
                W = f->wall;
                break;
            }
            if (x->timing) {
                if ((st = mark(x, G16__GPU_MSM_PH_FINAL, err)) != G16_OK ||
                    (st = add_times(x, o->phase_ms, times_from, G16__GPU_MSM_PH_FINAL, err)) != G16_OK)
                    goto cleanup;
                times_from = G16__GPU_MSM_PH_DIGITS;
            }
            if ((st = mark(x, G16__GPU_MSM_PH_DIGITS, err)) != G16_OK)
                goto cleanup;
        }
    } else {
        /* no Pippenger part: the phases in between take no time */
        for (int ph = G16__GPU_MSM_PH_SORT; ph <= G16__GPU_MSM_PH_REDUCE; ph++) {
            st = mark(x, ph, err);
            if (st != G16_OK)
                goto cleanup;
        }
    }
    st = mark(x, G16__GPU_MSM_PH_FINAL, err);
    if (st != G16_OK)
        goto cleanup;
    if (!(o && o->final_device)) {
        /* the window sums and the ones' sum to the host, combined there (hres + set) */
        char hw[(256 / 2 + 1) * sizeof(g2_xyzz)];
        uint32_t nwin = count > 0 ? pl.nwin_all : 0;
        if (nwin)
            G16_CU(cudaMemcpyAsync(hw, W, nwin * xs, cudaMemcpyDeviceToHost, x->s));
        G16_CU(cudaMemcpyAsync(hw + nwin * xs, ones, xs, cudaMemcpyDeviceToHost, x->s));
        G16_CU(cudaStreamSynchronize(x->s));
        g16__gpu_msm_final_host(hres + set * xs, G2, nwin, pl.c, hw, hw + nwin * xs);
    } else {
        G16_CU_LAUNCH(k_final<G2><<<1, 32, 0, x->s>>>(count > 0 ? pl.nwin_all : 0, pl.c, W, ones, res));
    }
    st = mark(x, G16__GPU_MSM_PH_COUNT, err);
    if (st == G16_OK && x->timing)
        st = add_times(x, o->phase_ms, times_from, G16__GPU_MSM_PH_COUNT, err);
cleanup:
    return st;
}

static g16_status check_opts(const g16__gpu_msm_opts *o, g16_error *err)
{
    if (!o)
        return G16_OK;
    if (o->window && (o->window < 2 || o->window > MSM_MAX_WINDOW))
        return g16__error(err, G16_ERR_ARG, "gpu msm: window %u (2..%u or 0)", o->window, MSM_MAX_WINDOW);
    if (o->carry_per && o->carry_per < 4)
        return g16__error(err, G16_ERR_ARG, "gpu msm: carry_per %u (>= 4 or 0)", o->carry_per);
    if (o->upload_chunks > MSM_UP_CHUNKS)
        return g16__error(err, G16_ERR_ARG, "gpu msm: upload_chunks %u (0..%u)", o->upload_chunks, MSM_UP_CHUNKS);
    if (o->tree > 31)
        return g16__error(err, G16_ERR_ARG, "gpu msm: tree %u (0, 1 or a slice of 2^2..2^31 entries)", o->tree);
    if (o->tree_k && (o->tree_k < MSM_TREE_KMIN || o->tree_k > MSM_TREE_KMAX))
        return g16__error(err, G16_ERR_ARG, "gpu msm: tree_k %u (%u..%u or 0)", o->tree_k, MSM_TREE_KMIN,
                          MSM_TREE_KMAX);
    return G16_OK;
}

static g16_status msm_run(g16__gpu_msm *m, int g2, void *out, const g16_fr *scalars, size_t nsets,
                          const g16__gpu_msm_opts *o, g16_error *err)
{
    g16_status st = G16_OK;
    run_ctx x;
    char *hres = NULL;
    size_t xs = xyzz_size(g2);
    memset(&x, 0, sizeof x);
    if (!m || !out || (!scalars && nsets > 0 && m->n > 0))
        return g16__error(err, G16_ERR_ARG, "gpu msm: NULL argument");
    if (m->g2 != g2)
        return g16__error(err, G16_ERR_ARG, "gpu msm: the bases are in G%d, not G%d", m->g2 + 1, g2 + 1);
    st = check_opts(o, err);
    if (st != G16_OK)
        return st;
    if (nsets == 0)
        return G16_OK;
    if (m->n == 0) {
        g2_xyzz inf; /* zero bits: infinity in either group */
        memset(&inf, 0, sizeof inf);
        for (size_t s = 0; s < nsets; s++) {
            if (g2)
                g16__gpu_msm_xyzz_to_p2((g16_p2 *)out + s, &inf);
            else
                g16__gpu_msm_xyzz_to_p1((g16_p1 *)out + s, &inf);
        }
        return G16_OK;
    }
    x.m = m;
    x.g = m->g;
    x.f = &m->f;
    x.p = &m->p;
    x.s = g16__gpu_stream(m->g);
    x.timing = o && o->phase_ms;
    hres = (char *)malloc(nsets * xs);
    if (!hres) {
        st = g16__error(err, G16_ERR_NOMEM, "gpu msm: %zu results", nsets);
        goto cleanup;
    }
    G16_CU(cudaSetDevice(m->g->device));
    if (x.timing)
        for (int i = 0; i <= G16__GPU_MSM_PH_COUNT; i++)
            G16_CU(cudaEventCreate(&x.ev[i]));
    st = fixed_alloc(&x, nsets, !(o && o->device_scalars), err);
    if (st != G16_OK)
        goto cleanup;
    x.up_nch = 1;
    x.up_len = m->n;
    {
        unsigned k = msm_up_chunks_asked(m->n, o ? o->upload_chunks : 0, o && o->device_scalars);
        if (k > 1)
            x.up_nch = msm_up_chunks(m->n, k, x.f->ones_Qc, &x.up_len);
    }
    if (x.up_nch > 1) {
        G16_CU(cudaEventCreateWithFlags(&x.set_start, cudaEventDisableTiming));
        for (int i = 0; i < MSM_UP_CHUNKS; i++)
            G16_CU(cudaEventCreateWithFlags(&x.up[i], cudaEventDisableTiming));
    }
    {
        /* the Pippenger buffers for the largest case, all scalars non-trivial, up front; when
         * they do not fit, each set allocates for its own count (fewer non-trivial scalars may
         * fit, and a set that does not gives the error) */
        msm_plan pl;
        st = plan_and_ensure(&x, &pl, m->n, o, 0, 0, o ? o->windows_per_pass : 0, err);
        if (st == G16_ERR_NOMEM)
            st = G16_OK;
        if (st != G16_OK)
            goto cleanup;
    }
    for (size_t s = 0; s < nsets; s++) {
        st = g2 ? run_set<1>(&x, scalars, s, o, hres, err) : run_set<0>(&x, scalars, s, o, hres, err);
        if (st != G16_OK)
            goto cleanup;
    }
    if (o && o->final_device) {
        G16_CU(cudaMemcpyAsync(hres, m->res, nsets * xs, cudaMemcpyDeviceToHost, x.s));
        G16_CU(cudaStreamSynchronize(x.s));
    }
    for (size_t s = 0; s < nsets; s++) {
        if (g2)
            g16__gpu_msm_xyzz_to_p2((g16_p2 *)out + s, hres + s * xs);
        else
            g16__gpu_msm_xyzz_to_p1((g16_p1 *)out + s, hres + s * xs);
    }
cleanup:
    if (st != G16_OK)
        g16__error_prefix(err, "gpu msm (G%d, n = %zu): ", g2 + 1, m->n);
    for (int i = 0; i <= G16__GPU_MSM_PH_COUNT; i++)
        if (x.ev[i])
            cudaEventDestroy(x.ev[i]);
    if (x.set_start) {
        /* after an error, chunk uploads may still read the caller's scalars: not past the return */
        if (st != G16_OK)
            (void)cudaStreamSynchronize(g16__gpu_side_stream(x.g));
        cudaEventDestroy(x.set_start);
    }
    for (int i = 0; i < MSM_UP_CHUNKS; i++)
        if (x.up[i])
            cudaEventDestroy(x.up[i]);
    free(hres);
    return st;
}

extern "C" g16_status g16__gpu_msm_run_p1(g16__gpu_msm *m, g16_p1 *out, const g16_fr *scalars, size_t nsets,
                                          const g16__gpu_msm_opts *opts, g16_error *err)
{
    return msm_run(m, 0, out, scalars, nsets, opts, err);
}

extern "C" g16_status g16__gpu_msm_run_p2(g16__gpu_msm *m, g16_p2 *out, const g16_fr *scalars, size_t nsets,
                                          const g16__gpu_msm_opts *opts, g16_error *err)
{
    return msm_run(m, 1, out, scalars, nsets, opts, err);
}

extern "C" g16_status g16__gpu_p1_msm(g16__gpu *g, g16_p1 *out, const g16_p1_affine *bases, const g16_fr *scalars,
                                      size_t n, g16_error *err)
{
    g16__gpu_msm *m = NULL;
    g16_status st = g16__gpu_msm_create_p1(&m, g, bases, n, err);
    if (st == G16_OK)
        st = g16__gpu_msm_run_p1(m, out, scalars, 1, NULL, err);
    g16__gpu_msm_destroy(m);
    return st;
}

extern "C" g16_status g16__gpu_p2_msm(g16__gpu *g, g16_p2 *out, const g16_p2_affine *bases, const g16_fr *scalars,
                                      size_t n, g16_error *err)
{
    g16__gpu_msm *m = NULL;
    g16_status st = g16__gpu_msm_create_p2(&m, g, bases, n, err);
    if (st == G16_OK)
        st = g16__gpu_msm_run_p2(m, out, scalars, 1, NULL, err);
    g16__gpu_msm_destroy(m);
    return st;
}
