/*
 * Multi-scalar multiplication on the CPU: r = Σ k_i·P_i over G1 or G2 (Pippenger).
 *
 * Representation of the inputs (all borrowed, read-only, never retained after the call):
 *   bases    affine points (g16_p1_affine / g16_p2_affine); the point at infinity (0, 0) is
 *            allowed and contributes nothing. Bases must be on the curve (they are not checked:
 *            the parameter-file decoder checks them once); any two of them may be equal or
 *            opposite.
 *   scalars  g16_fr in Montgomery form (the representation of Groth16 witness values, so the
 *            prover passes its assignment without a copy). Each is converted to its canonical
 *            value internally (one Fr Montgomery reduction per scalar).
 *   density  optional bitmap (bellman's DensityTracker) over the nscalars scalars: bit i is
 *            bit (i % 64) of word density[i / 64]. Only scalars whose bit is set have a base:
 *            base j pairs with the scalar of the j-th set bit, so nbases must equal the number
 *            of set bits among the first nscalars (bits beyond nscalars are ignored).
 * Output: r is written only on success; it is normalized (Z = 1, or the curve layer's infinity
 * encoding), so the same inputs give the same bits whatever the thread count or window.
 *
 * Algorithm: a classification pass drops zero scalars (and, when the bases are read, bases at
 * infinity), collects scalars equal to 1 (summed directly, no buckets) and converts the rest to
 * canonical form. The rest go through Pippenger with signed (Booth) digits of c bits:
 * ceil(256/c) windows of 2^(c-1) buckets each; buckets are accumulated in affine coordinates
 * with batched additions (one shared inversion per batch, Montgomery's trick) and reduced by
 * running sums in XYZZ coordinates; windows are combined by c doublings each. See msm_tmpl.h
 * for the window table and the measurements behind it.
 *
 * Threads: work is split into tasks (window × range of points, plus ranges of the ones) run
 * through g16__parallel_for; the split depends on the thread count, the result does not (it is
 * normalized). Memory: about 36 bytes per non-trivial scalar and 4 per scalar equal to one,
 * plus per running task 2^(c-1) affine buckets (96 B in G1, 192 B in G2) and a batch.
 *
 * Timing: variable time (_var): running time depends on the scalars and bases. MSM inputs are
 * public to the prover (the secret randomizers r, s are applied elsewhere).
 *
 * Limits: n < 2^32 points (G16_ERR_UNSUPPORTED beyond). Errors: G16_ERR_ARG for NULL pointers
 * with n > 0 or a bad option, G16_ERR_SIZE_MISMATCH when nbases does not match the density
 * bitmap, G16_ERR_NOMEM when an allocation fails. Nothing is written to r on error.
 */
#ifndef G16_MSM_MSM_H
#define G16_MSM_MSM_H

#include "g16.h"

/* Tuning knobs for tests and benchmarks; pass NULL for the defaults (all zero). */
typedef struct {
    int nthreads;   /* 0: g16__nthreads(); 1: everything on the calling thread; k: split as for k */
    unsigned window; /* 0: from the table by the number of non-trivial scalars; else c in [1, 20] */
    int accum;      /* bucket accumulation: 0 automatic, G16__MSM_ACCUM_XYZZ, G16__MSM_ACCUM_AFFINE */
    unsigned batch; /* 0: automatic; else batch size for affine accumulation, in [2, 1 << 16] */
} g16__msm_opts;

#define G16__MSM_ACCUM_XYZZ 1   /* mixed XYZZ additions into projective buckets */
#define G16__MSM_ACCUM_AFFINE 2 /* batched affine additions with a shared inversion */

#define G16__MSM_MAX_POINTS 0xffffffffULL /* n must be below this */

/* r = Σ_{i<n} scalars[i]·bases[i]. n = 0 gives infinity. */
g16_status g16__p1_msm_var(g16_p1 *r, const g16_p1_affine *bases, const g16_fr *scalars, size_t n,
                           const g16__msm_opts *opts, g16_error *err);
g16_status g16__p2_msm_var(g16_p2 *r, const g16_p2_affine *bases, const g16_fr *scalars, size_t n,
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
