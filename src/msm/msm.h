/*
 * Multi-scalar multiplication on the CPU: r = Σ k_i·P_i over G1 or G2 (Pippenger). Also the
 * oracle for the GPU MSM.
 *
 * Inputs (all borrowed, read-only, never retained after the call):
 *   bases    affine points (g16_p1_affine / g16_p2_affine); the point at infinity (0, 0) is
 *            allowed and contributes nothing. Bases must be on the curve (not checked here: the
 *            parameter decoder checks them once); any of them may be equal or opposite.
 *   scalars  g16_fr in Montgomery form, the representation of Groth16 witness values, so the
 *            prover passes its assignment as it is. Each is converted to its canonical value
 *            (one Fr Montgomery reduction per scalar) in a classification pass.
 *   density  optional bitmap (bellman's DensityTracker) over the nscalars scalars: bit i is
 *            bit (i % 64) of word density[i / 64] (the bit order of bellman's BitVec). Only
 *            scalars whose bit is set have a base: base j pairs with the scalar of the j-th set
 *            bit, so nbases must equal the number of set bits among the first nscalars (bits
 *            beyond nscalars are ignored).
 * Output: r is written only on success. It is normalized (Z = 1, or the curve layer's infinity
 * encoding), so the same inputs give the same bits whatever the thread count, window or batch.
 *
 * Algorithm:
 *   1. classification (parallel): zero scalars are dropped, scalars equal to one are listed
 *      (their bases are summed directly, without buckets), the others converted to canonical
 *      form; bases at infinity are skipped when they are read.
 *   2. Pippenger over the others with signed (Booth) digits of c bits: ceil(256/c) windows of
 *      2^(c-1) buckets. c comes from a measured table by the number of non-trivial scalars
 *      (msm_common.c). Buckets are accumulated in affine coordinates with batched additions
 *      (one inversion per batch, Montgomery's trick: 5M+1S per addition, against 8M+2S for XYZZ;
 *      measured 1.43x faster at 2^16, bench/RESULTS.md), then reduced by running sums in XYZZ
 *      coordinates; windows are combined by c doublings each. Small tasks (fewer than
 *      G16__MSM_AFFINE_MIN additions) accumulate in XYZZ directly.
 *   3. Tasks: groups of windows (a group shares batches, so small MSMs still fill them) × ranges
 *      of points, plus ranges of the ones, run through g16__parallel_for; per-task results are
 *      added in a fixed order.
 * Details and invariants: msm_tmpl.h.
 *
 * Memory: 36 bytes per non-trivial scalar and 4 per scalar equal to one (the classification; 4
 * and 4 for msm_consume_var, which converts the caller's scalars where they lie),
 * plus per running task its buckets (at most ~256 KiB for small windows, 2^(c-1) affine points
 * for large ones: 1.5 MiB in G1 at c = 15) and a batch (≤ 1024 entries, ~120 B each in G1).
 * G1 on a CPU with AVX-512 IFMA (the Fp8 lane path, msm_g1_fp8.h; G16_MSM_FP8=0 turns it off):
 * the batch additions and the running-sum reduction run eight at a time in Fp8 lanes (the
 * reduction cut into runs of buckets so that the lanes are full; the XYZZ overflow is first
 * folded into the affine buckets by one more batch). Memory: 128 bytes more per non-trivial
 * scalar (its base in the lane format, for the call; at most G16__MSM_LANE_SLICE at a time: 8 MiB;
 * none when opts->scratch holds them), 512 KiB per ones task (its bases are converted in blocks,
 * each read once), and buckets of 128 bytes instead of 96.
 *
 * Threads: calls g16__parallel_for (so it may run inside a pool job: nested calls run inline).
 * opts->nthreads = k caps this thread's pool use at k for the call (g16__threads_set_limit) and
 * plans the split for k; 1 runs everything on the calling thread.
 *
 * Timing: variable time (_var): the running time depends on the scalars and bases. MSM inputs
 * are public to the prover (the secret randomizers r, s are applied elsewhere).
 *
 * Limits and errors: n < 2^32 − 1 points (G16_ERR_UNSUPPORTED beyond). G16_ERR_ARG for NULL
 * pointers (r always; bases and scalars when their count is non-zero) or a bad option,
 * G16_ERR_SIZE_MISMATCH when nbases does not match the density bitmap (or nscalars without
 * one), G16_ERR_NOMEM when an allocation fails. Nothing is written to r on error.
 *
 * Tracing: spans msm.g1 / msm.g2 (n = nscalars; metrics nontrivial, ones) with children
 * .classify, .windows (one per window task), .ones, .combine.
 */
#ifndef G16_MSM_MSM_H
#define G16_MSM_MSM_H

#include "g16.h"

/* Tuning knobs for tests and benchmarks; pass NULL for the defaults (all zero). */
typedef struct {
    int nthreads;    /* 0: g16__nthreads(); 1: everything on the calling thread; k: at most k */
    unsigned window; /* 0: from the table by the number of non-trivial scalars; else c in [1, 20] */
    int accum;       /* bucket accumulation: 0 automatic, G16__MSM_ACCUM_XYZZ, G16__MSM_ACCUM_AFFINE */
    unsigned batch;  /* 0: automatic; else the affine batch size, in [2, 65536] */
    size_t lane_slice; /* G1 lane path: 0: G16__MSM_LANE_SLICE; else at most this many bases converted
                        * at once (the MSM runs in parts, each summed on its own) */
    int scalar_reduce; /* G1 lane path: 1 sums the buckets with the scalar XYZZ code instead of in
                        * lanes (A/B benchmarks and tests) */
    void *scratch;        /* G1 lane path: memory the call may use for its copy of the bases (borrowed,
                           * contents destroyed; the prover lends its dead b, c vectors). When it holds
                           * at least G16__MSM_SCRATCH_MIN lane points, parts are sized to fit it */
    size_t scratch_bytes;
} g16__msm_opts;

/* The G1 lane path converts the bases of at most this many non-trivial scalars (and as many ones)
 * at a time: 2 x 8 MiB. Parts of 2^16 cost no measurable time against one part (G1, one thread,
 * alternated in one process on the dev VM, 2026-12-02 21:17 UTC, min of 3: 2^20 5574 vs 5594 ms,
 * 2^18 1334 vs 1389, 2^17 723 vs 722; scalar path 10083 / 2735 / 1309), and they keep the copy
 * from adding up to 128 bytes per constraint to the prover's peak memory (2^20 bits demo: 241
 * against 355 B/constraint with 2^20-point parts; target 256). */
#ifndef G16__MSM_LANE_SLICE
#define G16__MSM_LANE_SLICE ((size_t)1 << 16)
#endif

/* Lane points (128 bytes) below which a scratch does not set the part size: parts of 2^15 still
 * cost little against one part (see bench/RESULTS.md, session 5), smaller ones did (2^14: ~15%
 * at 2^17). */
#define G16__MSM_SCRATCH_MIN ((size_t)1 << 15)

#define G16__MSM_ACCUM_XYZZ 1   /* mixed XYZZ additions into projective buckets */
#define G16__MSM_ACCUM_AFFINE 2 /* batched affine additions with a shared inversion */

#define G16__MSM_MAX_POINTS 0xffffffffULL /* n must be below this */

/* r = Σ_{i<n} scalars[i]·bases[i]. n = 0 gives infinity. */
g16_status g16__p1_msm_var(g16_p1 *r, const g16_p1_affine *bases, const g16_fr *scalars, size_t n,
                           const g16__msm_opts *opts, g16_error *err);
g16_status g16__p2_msm_var(g16_p2 *r, const g16_p2_affine *bases, const g16_fr *scalars, size_t n,
                           const g16__msm_opts *opts, g16_error *err);

/* The same as g16__p1_msm_var / g16__p2_msm_var, consuming the scalars: they are converted to
 * canonical form where they lie instead of into a 36-byte-per-scalar copy (the prover's H
 * coefficients are dead after their MSM). On return, success or not, their contents are
 * unspecified. */
g16_status g16__p1_msm_consume_var(g16_p1 *r, const g16_p1_affine *bases, g16_fr *scalars, size_t n,
                                   const g16__msm_opts *opts, g16_error *err);
g16_status g16__p2_msm_consume_var(g16_p2 *r, const g16_p2_affine *bases, g16_fr *scalars, size_t n,
                                   const g16__msm_opts *opts, g16_error *err);

/* r = Σ_j bases[j]·scalars[i_j] where i_j is the index of the j-th set bit of density
 * (density may be NULL: then nbases must equal nscalars and this is the plain MSM). */
g16_status g16__p1_msm_density_var(g16_p1 *r, const g16_p1_affine *bases, size_t nbases, const g16_fr *scalars,
                                   size_t nscalars, const uint64_t *density, const g16__msm_opts *opts,
                                   g16_error *err);
g16_status g16__p2_msm_density_var(g16_p2 *r, const g16_p2_affine *bases, size_t nbases, const g16_fr *scalars,
                                   size_t nscalars, const uint64_t *density, const g16__msm_opts *opts,
                                   g16_error *err);

/* Window size c the automatic choice uses for n non-trivial scalars (exposed for the benchmark). */
unsigned g16__msm_window_for(size_t n, int g2);

#endif /* G16_MSM_MSM_H */
