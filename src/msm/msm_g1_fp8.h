/*
 * G1 batch-affine bucket additions in eight Fp8 lanes (src/field/fp8.h, AVX-512 IFMA): the lane
 * path of msm_tmpl.h's G1 instantiation (msm_g1.c). The G2 instantiation has no lane path.
 *
 * Representation:
 *   g16__p1_aff52   an affine point (x, y), both coordinates in the g16__fp52 lane format
 *                   (x·2^416 mod p in 8 limbs of 52 bits, fully reduced: equal values have equal
 *                   limbs, zero is all-zero limbs); (0, 0) is infinity, as in g16_p1_affine.
 *                   64-byte aligned, so x and y each fill one cache line.
 *   bases           converted once per MSM (g16__p1_aff52_from: two scalar Montgomery products),
 *                   into an array owned by the MSM call (128 bytes per point).
 *   buckets         g16__p1_lanes.bk: the affine buckets of one accumulator for its whole life,
 *                   summed in lanes by g16__p1_lanes_reduce (or converted back one at a time,
 *                   g16__p1_lanes_bucket, where the scalar reduction runs).
 *
 * A batch (g16__p1_lanes_batch) is msm_tmpl.h's acc_run_batch on these buckets, with the same
 * inputs (m entries on distinct filled slots), the same per-entry cases (add; doubling when
 * P = B; infinity when P = −B, which empties the bucket) and the same results, bit for bit:
 * affine coordinates are canonical. Entry j lives in lane j mod 8 of group j / 8, so the
 * prefix-product chain of Montgomery's trick becomes eight interleaved chains (one per lane);
 * the eight lane products are inverted with one scalar inversion (Montgomery's trick over the
 * lanes: 24 products, against 8 inversions of ~25 µs each), then the backward sweep runs per
 * group. Unused lanes of the last group add a dummy point (denominator 1) and write nothing.
 *
 * Choice (g16__p1_lanes_wanted, read by the MSM on its calling thread): environment
 * G16_MSM_FP8=0 forces the scalar path, G16_MSM_FP8=1 forces the lane path (on a CPU without
 * IFMA that runs the portable Fp8 code, several times slower: for tests only); unset or empty,
 * the lane path is taken when g16__fp8_have_ifma().
 */
#ifndef G16_MSM_MSM_G1_FP8_H
#define G16_MSM_MSM_G1_FP8_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "field/fp8.h"

typedef struct {
    _Alignas(64) g16__fp52 x;
    g16__fp52 y;
} g16__p1_aff52;

/* One bucket addition of a batch (msm_tmpl.h's entry type for G1): slot b += (neg ? −P : P). */
typedef struct {
    uint32_t b;
    uint32_t neg;
    const g16_p1_affine *p;  /* the base (scalar path and XYZZ overflow) */
    const g16__p1_aff52 *q;  /* the same point in the lane format (lane path), else NULL */
} g16__p1_lane_entry;

/* Lane accumulator state: nb buckets (uninitialized: a slot is written before it is read) and
 * the scratch of batches of at most cap entries. Owned; g16__p1_lanes_destroy frees it. */
typedef struct g16__p1_lanes g16__p1_lanes;

int g16__p1_lanes_wanted(void);
g16__p1_lanes *g16__p1_lanes_create(size_t nb, size_t cap); /* NULL when out of memory */
void g16__p1_lanes_destroy(g16__p1_lanes *L);

void g16__p1_aff52_from(g16__p1_aff52 *r, const g16_p1_affine *a);
/* Eight at once in Fp8 lanes (the same limbs: both are canonical); r[k] distinct. Faster than
 * g16__p1_aff52_from only with IFMA (g16__fp8_have_ifma()). */
void g16__p1_aff52_from8(g16__p1_aff52 *const r[8], const g16_p1_affine *const a[8]);

/* Bucket slot := ±q (the first point of an empty bucket). */
void g16__p1_lanes_fill(g16__p1_lanes *L, size_t slot, const g16__p1_aff52 *q, int neg);
/* Bucket slot as a g16_p1_affine. */
void g16__p1_lanes_bucket(g16_p1_affine *r, const g16__p1_lanes *L, size_t slot);
/* Runs the batch e[0..m) (m <= cap, distinct filled slots, q set); clears filled[slot] for the
 * entries that cancel their bucket. */
void g16__p1_lanes_batch(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, uint8_t *filled);

/* Each of the n logical buckets whose slots are slot0 + i·per + l (0 <= l < per, per a power of
 * two) summed into its first slot by batch additions (log2(per) rounds, pairs of slots), the
 * other slots emptied; filled[] updated. Before g16__p1_lanes_reduce: its running sums then add
 * one affine point per logical bucket (an XYZZ mixed addition: 10 lane products for eight
 * buckets) instead of per (a batch addition: 6 lane products for eight entries). */
void g16__p1_lanes_fold(g16__p1_lanes *L, size_t slot0, size_t n, size_t per, uint8_t *filled);

/* msm_tmpl.h's XYZZ point (x = X/ZZ, y = Y/ZZZ; ZZ = 0, all zero, is infinity), same layout. */
typedef struct {
    g16_fp x, y, zz, zzz;
} g16__p1_xyzz;

/* A run of n logical buckets for g16__p1_lanes_reduce: bucket i (0 <= i < n) is the sum of the
 * affine slots slot0 + i·per + l (0 <= l < per) whose filled[] is set. n = 0: an unused lane. */
typedef struct {
    size_t slot0, n, per;
} g16__p1_lane_seg;

/* The running-sum reduction of eight runs at once (lane k = seg[k]), from the top bucket down:
 * sum[k] = Σ_i bucket_i and tot[k] = Σ_i (i + 1)·bucket_i, XYZZ additions in Fp8 lanes (10 + 14
 * lane products per bucket for eight runs, against the scalar path's 10 + 14 Fp products per
 * bucket and run). Every case of the scalar formulas (infinity, equal and opposite points) is
 * handled per lane. */
void g16__p1_lanes_reduce(const g16__p1_lanes *L, const g16__p1_lane_seg seg[8], const uint8_t *filled,
                          g16__p1_xyzz sum[8], g16__p1_xyzz tot[8]);

#endif /* G16_MSM_MSM_G1_FP8_H */
