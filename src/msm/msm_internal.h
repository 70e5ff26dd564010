/*
 * Internals of the MSM shared by the G1 and G2 instantiations (msm_g1.c, msm_g2.c include
 * msm_tmpl.h): the scalar classification pass, Booth digits, the work plan, task running.
 *
 * Prepared scalars (g16__msm_prep): the non-trivial scalars ("others") as canonical 4-limb
 * little-endian integers (< r) with the index of their base, and the base indices of the
 * scalars equal to one; both lists in increasing base order. Zero scalars and scalars whose
 * density bit is clear are absent. Owned by the prep (g16__msm_prep_free), except the scalars of
 * an in-place prep (by_base: the caller's array, converted where it lies and indexed by base).
 */
#ifndef G16_MSM_INTERNAL_H
#define G16_MSM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"
#include "msm/msm.h"

typedef struct {
    size_t nothers, nones;
    uint64_t (*scal)[4]; /* nothers canonical scalars; by_base: one per base, borrowed */
    uint32_t *oidx;      /* nothers base indices */
    uint32_t *ones;      /* nones base indices */
    int by_base;         /* the scalar of the i-th other is scal[oidx[i]] instead of scal[i] */
} g16__msm_prep;

/* The canonical scalar of the i-th non-trivial scalar of p. */
static inline const uint64_t *g16__msm_prep_scalar(const g16__msm_prep *p, size_t i)
{
    return p->scal[p->by_base ? p->oidx[i] : i];
}

/* Fills p from the scalars (see msm.h for density); nbases is checked against the density
 * bitmap. On error p holds nothing to free. */
g16_status g16__msm_prepare(g16__msm_prep *p, const g16_fr *scalars, size_t nscalars, const uint64_t *density,
                            size_t nbases, int nthreads, g16_error *err);
void g16__msm_prep_free(g16__msm_prep *p);

/* The same without a density bitmap and without the 32-byte copy per non-trivial scalar: the n
 * scalars are converted to canonical form where they lie (Montgomery g16_fr in, the same 32 bytes
 * as 4 canonical limbs out) and p borrows them (by_base). On error the scalars may be converted
 * in part and p holds nothing to free. */
g16_status g16__msm_prepare_inplace(g16__msm_prep *p, g16_fr *scalars, size_t n, int nthreads, g16_error *err);

/* Checks opts and returns the thread count to plan for (>= 1). */
g16_status g16__msm_check_opts(const g16__msm_opts *opts, int *nthreads, g16_error *err);

/* Below this many bucket additions per task a batch would hold too few additions to pay for
 * its inversion: such tasks accumulate in XYZZ coordinates instead. */
#define G16__MSM_AFFINE_MIN 512

/* The work split of one MSM. Tasks: ngroups groups of consecutive windows (sizes differing by
 * at most one, wgroup the largest) × nchunks ranges of the non-trivial scalars (task
 * t < ngroups·nchunks: group t / nchunks, range t % nchunks), then nones_chunks ranges of the
 * ones. Ranges split evenly: part j of n items in k parts starts at j·⌊n/k⌋ + min(j, n mod k). */
typedef struct {
    unsigned c;        /* window bits */
    unsigned nwin;     /* ceil(256 / c) */
    unsigned wgroup;   /* most windows in one task (a task's windows share its batches) */
    size_t ngroups;    /* ceil(nwin / wgroup) */
    size_t batch;      /* affine batch size of a window task (accum == AFFINE) */
    size_t ones_batch; /* affine batch size of a ones task */
    int accum;         /* G16__MSM_ACCUM_XYZZ or _AFFINE */
    int lane_reduce;   /* G1 lane path: window tasks sum their buckets in lanes (msm_g1_fp8.h) */
    size_t nchunks;    /* ranges the others are split into */
    size_t nones_chunks;
    size_t ntasks;     /* ngroups · nchunks + nones_chunks */
} g16__msm_plan;

/* lanes: the G1 Fp8 lane path will accumulate (msm_g1_fp8.h): its additions cost less against
 * the bucket reduction, so it plans smaller windows and larger batches. */
void g16__msm_make_plan(g16__msm_plan *pl, const g16__msm_prep *p, const g16__msm_opts *opts, int nthreads,
                        int g2, int lanes);

/* Number of buckets of window w (digits 1..that value occur; the top window is narrower). */
size_t g16__msm_window_buckets(const g16__msm_plan *pl, unsigned w);

/* When opts asks for k threads, caps the pool for this thread's calls at k (g16__threads_set_limit)
 * and returns the previous cap, else returns -1; g16__msm_restore_threads undoes it. */
int g16__msm_limit_threads(const g16__msm_opts *opts);
void g16__msm_restore_threads(int prev);

/* Runs fn(ctx, i, i + 1) for i < ntasks: inline when nthreads == 1, else through g16__parallel_for. */
void g16__msm_run(int nthreads, size_t ntasks, void (*fn)(void *ctx, size_t begin, size_t end), void *ctx);

/* Signed Booth digit of window w (c bits) of the canonical scalar k < 2^255:
 * d_w = v_w + b_{wc-1} − 2^c·b_{wc+c-1}, where v_w is bits [wc, wc + c) and b_j bit j;
 * Σ_w d_w·2^(wc) = k when ceil(256/c) windows are used, and |d_w| <= 2^(c-1). */
static inline int64_t g16__msm_booth_digit(const uint64_t k[4], unsigned w, unsigned c)
{
    /* t = bits [wc − 1, wc + c] (c + 1 bits; bit −1 is zero) */
    uint64_t t;
    unsigned lo = w * c;
    if (lo == 0) {
        t = (k[0] << 1) & ((2ULL << c) - 1);
    } else {
        unsigned pos = lo - 1, limb = pos / 64, sh = pos % 64;
        t = limb < 4 ? k[limb] >> sh : 0;
        if (sh + c + 1 > 64 && limb + 1 < 4)
            t |= k[limb + 1] << (64 - sh);
        t &= (2ULL << c) - 1;
    }
    return (int64_t)((t + 1) >> 1) - (int64_t)((t >> c) << c);
}

#endif /* G16_MSM_INTERNAL_H */
