/* MSM parts that do not depend on the group: scalar classification, plan, task running. */
#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "msm/msm_g1_fp8.h"
#include "msm/msm_internal.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/threads.h"

/* Scalars per classification chunk: large enough that the per-chunk bookkeeping is noise,
 * small enough to spread over the threads. */
#define PREP_CHUNK ((size_t)1 << 14)

typedef struct {
    const g16_fr *scalars;
    size_t nscalars;
    const uint64_t *density;
    int inplace; /* scalars are converted to canonical limbs where they lie (pass 1) */
    size_t nchunks;
    /* per chunk: counts in pass 1, then exclusive prefix sums (start offsets) for pass 2 */
    size_t *nothers, *nones, *nbits;
    g16__msm_prep *p;
} prep_ctx;

static int density_bit(const uint64_t *density, size_t i)
{
    return density == NULL || ((density[i / 64] >> (i % 64)) & 1);
}

/* 0, 1 or 2 (other) for a canonical scalar (in-place prep) */
static int canonical_kind(const uint64_t l[4])
{
    if (l[1] | l[2] | l[3])
        return 2;
    return l[0] > 1 ? 2 : (int)l[0];
}

/* 0, 1 or 2 (other) for scalar i: a Montgomery element, or canonical limbs after pass 1 in place */
static int scalar_kind(const prep_ctx *x, size_t i)
{
    const g16_fr *k = &x->scalars[i];
    if (x->inplace)
        return canonical_kind(k->l);
    return g16__fr_is_zero(k) ? 0 : g16__fr_is_one(k) ? 1 : 2;
}

static void prep_count(void *vctx, size_t begin, size_t end)
{
    prep_ctx *x = vctx;
    for (size_t ch = begin; ch < end; ch++) {
        size_t lo = ch * PREP_CHUNK, hi = lo + PREP_CHUNK < x->nscalars ? lo + PREP_CHUNK : x->nscalars;
        size_t no = 0, n1 = 0, nb = 0;
        for (size_t i = lo; i < hi; i++) {
            if (!density_bit(x->density, i))
                continue;
            nb++;
            if (x->inplace) {
                /* the caller's array is ours: Montgomery form -> canonical limbs, same 32 bytes */
                g16_fr *k = (g16_fr *)&x->scalars[i];
                uint64_t l[4];
                g16__fr_to_limbs(l, k);
                memcpy(k->l, l, sizeof l);
            }
            int kind = scalar_kind(x, i);
            n1 += kind == 1;
            no += kind == 2;
        }
        x->nothers[ch] = no;
        x->nones[ch] = n1;
        x->nbits[ch] = nb;
    }
}

static void prep_fill(void *vctx, size_t begin, size_t end)
{
    prep_ctx *x = vctx;
    g16__msm_prep *p = x->p;
    for (size_t ch = begin; ch < end; ch++) {
        size_t lo = ch * PREP_CHUNK, hi = lo + PREP_CHUNK < x->nscalars ? lo + PREP_CHUNK : x->nscalars;
        size_t no = x->nothers[ch], n1 = x->nones[ch], base = x->nbits[ch];
        for (size_t i = lo; i < hi; i++) {
            if (!density_bit(x->density, i))
                continue;
            int kind = scalar_kind(x, i);
            if (kind == 1) {
                p->ones[n1++] = (uint32_t)base;
            } else if (kind == 2) {
                if (!x->inplace)
                    g16__fr_to_limbs(p->scal[no], &x->scalars[i]);
                p->oidx[no++] = (uint32_t)base;
            }
            base++;
        }
    }
}

/* The three lists come from g16__alloc_large (mapped from 256 KiB: util/alloc.h says why), with at
 * least one element each. */
static size_t at_least_1(size_t n) { return n ? n : 1; }

void g16__msm_prep_free(g16__msm_prep *p)
{
    if (!p->by_base)
        g16__free_large(p->scal, at_least_1(p->nothers) * sizeof *p->scal);
    g16__free_large(p->oidx, at_least_1(p->nothers) * sizeof *p->oidx);
    g16__free_large(p->ones, at_least_1(p->nones) * sizeof *p->ones);
    memset(p, 0, sizeof *p);
}

static g16_status prepare(g16__msm_prep *p, const g16_fr *scalars, size_t nscalars, const uint64_t *density,
                          int inplace, size_t nbases, int nthreads, g16_error *err)
{
    g16_status st = G16_OK;
    prep_ctx x = {scalars, nscalars, density, inplace, (nscalars + PREP_CHUNK - 1) / PREP_CHUNK, NULL, NULL, NULL, p};
    memset(p, 0, sizeof *p);
    size_t nc = x.nchunks ? x.nchunks : 1;
    x.nothers = malloc(nc * sizeof(size_t));
    x.nones = malloc(nc * sizeof(size_t));
    x.nbits = malloc(nc * sizeof(size_t));
    if (!x.nothers || !x.nones || !x.nbits) {
        st = g16__error(err, G16_ERR_NOMEM, "msm: classification counters (%zu chunks)", nc);
        goto cleanup;
    }
    g16__msm_run(nthreads, x.nchunks, prep_count, &x);
    size_t to = 0, t1 = 0, tb = 0;
    for (size_t ch = 0; ch < x.nchunks; ch++) {
        size_t o = x.nothers[ch], n1 = x.nones[ch], b = x.nbits[ch];
        x.nothers[ch] = to;
        x.nones[ch] = t1;
        x.nbits[ch] = tb;
        to += o;
        t1 += n1;
        tb += b;
    }
    if (tb != nbases) {
        st = g16__error(err, G16_ERR_SIZE_MISMATCH, "msm: %zu bases but the density bitmap selects %zu of %zu scalars",
                        nbases, tb, nscalars);
        goto cleanup;
    }
    p->nothers = to;
    p->nones = t1;
    p->by_base = inplace;
    p->scal = inplace ? (uint64_t(*)[4])(void *)scalars : g16__alloc_large(at_least_1(to) * sizeof *p->scal);
    p->oidx = g16__alloc_large(at_least_1(to) * sizeof *p->oidx);
    p->ones = g16__alloc_large(at_least_1(t1) * sizeof *p->ones);
    if (!p->scal || !p->oidx || !p->ones) {
        st = g16__error(err, G16_ERR_NOMEM, "msm: prepared scalars (%zu non-trivial, %zu ones)", to, t1);
        g16__msm_prep_free(p);
        goto cleanup;
    }
    g16__msm_run(nthreads, x.nchunks, prep_fill, &x);
cleanup:
    free(x.nothers);
    free(x.nones);
    free(x.nbits);
    return st;
}

g16_status g16__msm_prepare(g16__msm_prep *p, const g16_fr *scalars, size_t nscalars, const uint64_t *density,
                            size_t nbases, int nthreads, g16_error *err)
{
    return prepare(p, scalars, nscalars, density, 0, nbases, nthreads, err);
}

g16_status g16__msm_prepare_inplace(g16__msm_prep *p, g16_fr *scalars, size_t n, int nthreads, g16_error *err)
{
    return prepare(p, scalars, n, NULL, 1, n, nthreads, err);
}

g16_status g16__msm_check_opts(const g16__msm_opts *opts, int *nthreads, g16_error *err)
{
    int t = opts ? opts->nthreads : 0;
    if (opts) {
        if (opts->nthreads < 0)
            return g16__error(err, G16_ERR_ARG, "msm: nthreads %d < 0", opts->nthreads);
        if (opts->window > 20)
            return g16__error(err, G16_ERR_ARG, "msm: window %u > 20", opts->window);
        if (opts->accum != 0 && opts->accum != G16__MSM_ACCUM_XYZZ && opts->accum != G16__MSM_ACCUM_AFFINE)
            return g16__error(err, G16_ERR_ARG, "msm: unknown accumulation mode %d", opts->accum);
        if (opts->batch != 0 && (opts->batch < 2 || opts->batch > (1u << 16)))
            return g16__error(err, G16_ERR_ARG, "msm: batch %u outside [2, 65536]", opts->batch);
        if ((opts->scratch == NULL) != (opts->scratch_bytes == 0))
            return g16__error(err, G16_ERR_ARG, "msm: scratch %p with %zu bytes", opts->scratch, opts->scratch_bytes);
    }
    if (t == 0)
        t = g16__nthreads();
    *nthreads = t < 1 ? 1 : t;
    return G16_OK;
}

/*
 * Window size by the number n of non-trivial scalars. Cost per window ≈ n bucket additions
 * (≈ 7 field-multiplication times each, affine) + 2^(c-1) · 2 XYZZ additions (≈ 13 each) for
 * the running sums, times ceil(256/c) windows; caches move the optimum down for large c.
 * Measured (bench_msm --sweep, one thread, CPU time, 2-core AMD EPYC 7001 VM; ms by c, best *):
 *   G1 2^6:  c4 3.1*  c5 3.1   c6 3.3            2^8:  c5 8.8   c6 7.7*  c7 7.8
 *   G1 2^10: c6 26.6  c7 23.1* c8 23.1  c9 25.0  2^12: c8 78.7  c9 73.1* c10 74.2
 *   G1 2^13: c9 128.7 c10 122.5* c11 126.1       2^14: c9 265.6 c10 242.1* c11 243.8
 *   G1 2^15: c11 442  c12 427*  c13 441           2^16: c12 840  c13 790*  c14 824
 *   G1 2^18: c13 2822 c14 2714* c15 2931          2^20: c14 10728 c15 10218* c16 11173
 *   G2 2^10: c7 59.8* c8 60.2   2^12: c9 182.6*   2^14: c10 646 c11 644*   2^16: c13 2077*
 * G2 follows the same table (its optimum is within noise of G1's). Beyond 2^21 the values
 * are extrapolated, not measured.
 */
static const struct {
    size_t max_n;
    unsigned c;
} window_table[] = {
    {3, 2},         {11, 3},        {45, 4},         {180, 5},         {360, 6},        {1024, 7},
    {1448, 8},      {5792, 9},      {23170, 10},     {46340, 12},      {185363, 13},    {741455, 14},
    {2965820, 15},  {11863283, 16}, {(size_t)-1, 17},
};

/*
 * The G1 lane path (msm_g1_fp8.h) adds about 2.5x faster while the XYZZ bucket reduction costs
 * the same, so it takes windows 2 bits smaller (a quarter of the buckets) from c = 12 up, and
 * larger batches (LANES_MAX_BATCH). Measured A/B in one process, one thread, lane path
 * (2026-12-02): G1 2^16 c13/b1024 -> c11/b2048 1.17-1.24x, c10/b2048 1.20-1.22x, c12/b512
 * 0.92-1.03x; G1 2^18 c14/auto -> c12/b2048 1.17-1.18x, c13/b2048 0.93x.
 */
#define LANES_WINDOW_FROM 12
#define LANES_WINDOW_LESS 2
/* Batches of up to 1024 since the lane batch's products got faster and the running sums fold the
 * slots first (2026-12-03, alternated, thread CPU ms, G1 one thread, min / median): 2^16 2048 ->
 * 1024 175.2 / 225.2 -> 164.4 / 206.4 (30 MSMs each) and 212.0 / 247.8 -> 202.9 / 227.2 (24);
 * 2^14 89.0 / 93.4 -> 83.6 / 85.3; 2^18 905 / 969 -> 844 / 963. Four slots per bucket at 1024
 * (acc_init) measured 219.3 / 236.2: the smaller batch keeps buckets and batch scratch in L2. */
#define LANES_MAX_BATCH 1024
/* Windows per task on the lane path: up to 4096 logical buckets (1 MiB of lane-format buckets at
 * two slots each), at most 4 windows: fewer tasks read the bases (8 MiB in the lane format at
 * 2^16), fewer times. Alternated, one thread, min / median ms (2026-12-03): 2^16 (c = 11) 2 -> 4
 * windows 220.6 / 257.8 -> 209.7 / 240.8 (24 MSMs each), 189.6 / 239.4 -> 187.7 / 227.9 (24),
 * 231.1 / 257.3 -> 217.1 / 258.0 (20), 200.3 / 225.1 -> 202.6 / 223.5 (24): a few per cent, at
 * the noise's edge; 2^17 (c = 11) 414.9 / 438.6 vs 416.4 / 444.5 (10); 2^18 (c = 12) 1 -> 2
 * windows 847 / 913 -> 844 / 868 (6); 2^14 (c = 10) 5 vs 3 windows 53.3 / 73.1 vs 53.5 / 72.6,
 * 8 windows 57.8 / 80.7 (25); as built, 5 -> 4 windows 69.1 / 70.9 -> 67.2 / 70.6 (20). */
#define LANES_GROUP_BUCKETS 4096
#define LANES_GROUP_WINDOWS 4

static unsigned window_for_path(size_t n, int g2, int lanes)
{
    size_t i = 0;
    (void)g2;
    while (n > window_table[i].max_n)
        i++;
    unsigned c = window_table[i].c;
    return lanes && c >= LANES_WINDOW_FROM ? c - LANES_WINDOW_LESS : c;
}

unsigned g16__msm_window_for(size_t n, int g2) { return window_for_path(n, g2, !g2 && g16__p1_lanes_wanted()); }

/* Affine buckets one window task may use (so they stay in a core's L2 cache), and the largest
 * automatic batch (one inversion per batch; its share per addition is small by then). */
#define BUCKET_BUDGET ((size_t)256 << 10)
#define MAX_AUTO_BATCH 1024

void g16__msm_make_plan(g16__msm_plan *pl, const g16__msm_prep *p, const g16__msm_opts *opts, int nthreads, int g2,
                        int lanes)
{
    unsigned c = opts && opts->window ? opts->window : window_for_path(p->nothers, g2, lanes);
    size_t h = (size_t)1 << (c - 1), aff = g2 ? 192 : 96;
    size_t want = nthreads > 1 ? 2 * (size_t)nthreads : 1; /* tasks: 2 per thread evens out the load */
    pl->c = c;
    pl->nwin = (256 + c - 1) / c;

    /* Windows share a task (and its batches) while their buckets fit the budget, so that a
     * small MSM still fills large batches; but there must be enough tasks for the threads. */
    size_t g = BUCKET_BUDGET / (h * aff);
    if (lanes && !g2) {
        g = LANES_GROUP_BUCKETS / h;
        if (g > LANES_GROUP_WINDOWS)
            g = LANES_GROUP_WINDOWS;
    }
    if (g < 1)
        g = 1;
    if (want > 1 && g > (pl->nwin + want - 1) / want)
        g = (pl->nwin + want - 1) / want;
    if (g > pl->nwin)
        g = pl->nwin;
    pl->ngroups = (pl->nwin + g - 1) / g; /* groups differ in size by at most one window */
    pl->wgroup = (unsigned)((pl->nwin + pl->ngroups - 1) / pl->ngroups);

    /* Split the points too when the groups alone are too few, but never into ranges so short
     * that their bucket reductions dominate. */
    size_t nch = (want + pl->ngroups - 1) / pl->ngroups;
    size_t min_range = (size_t)1 << c;
    if (nch > 1 && p->nothers / nch < min_range)
        nch = p->nothers / min_range > 1 ? p->nothers / min_range : 1;
    pl->nchunks = p->nothers ? nch : 0;
    size_t ones_per = (size_t)1 << 14;
    size_t noc = (p->nones + ones_per - 1) / ones_per;
    if (noc > (size_t)nthreads)
        noc = (size_t)nthreads;
    pl->nones_chunks = noc;
    pl->ntasks = pl->ngroups * pl->nchunks + pl->nones_chunks;

    size_t adds = pl->nchunks ? p->nothers / pl->nchunks * pl->wgroup : 0;
    pl->accum = opts && opts->accum ? opts->accum
                                    : (adds >= G16__MSM_AFFINE_MIN ? G16__MSM_ACCUM_AFFINE : G16__MSM_ACCUM_XYZZ);
    /* each window's share of a batch at most a quarter of its buckets: few collisions (the lane
     * path: up to all of them, acc_init gives such windows more slots; measured above) */
    size_t b = (pl->nwin / pl->ngroups) * h / (lanes ? 1 : 4);
    if (b > (lanes ? LANES_MAX_BATCH : MAX_AUTO_BATCH))
        b = lanes ? LANES_MAX_BATCH : MAX_AUTO_BATCH;
    if (b < 64)
        b = 64;
    pl->batch = opts && opts->batch ? opts->batch : b;
    pl->ones_batch = opts && opts->batch ? opts->batch : MAX_AUTO_BATCH;
    pl->lane_reduce = lanes && !(opts && opts->scalar_reduce);
}

size_t g16__msm_window_buckets(const g16__msm_plan *pl, unsigned w)
{
    size_t full = (size_t)1 << (pl->c - 1);
    unsigned lo = w * pl->c;
    if (w + 1 < pl->nwin || lo >= 255)
        return w + 1 < pl->nwin ? full : 1;
    /* top window: bits [lo, 255) of a scalar < 2^255, plus the carry of the window below */
    unsigned bits = 255 - lo;
    size_t top = ((size_t)1 << bits);
    return top < full ? top : full;
}

int g16__msm_limit_threads(const g16__msm_opts *opts)
{
    if (!opts || opts->nthreads <= 0)
        return -1;
    return g16__threads_set_limit(opts->nthreads);
}

void g16__msm_restore_threads(int prev)
{
    if (prev >= 0)
        g16__threads_set_limit(prev);
}

void g16__msm_run(int nthreads, size_t ntasks, void (*fn)(void *ctx, size_t begin, size_t end), void *ctx)
{
    if (ntasks == 0)
        return;
    if (nthreads > 1)
        g16__parallel_for(ntasks, 1, fn, ctx);
    else
        fn(ctx, 0, ntasks);
}
