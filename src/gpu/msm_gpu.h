/*
 * Multi-scalar multiplication on the GPU, G1 and G2: r = Σ k_i·P_i, the same function as the CPU
 * MSM (msm/msm.h, g16__p1_msm_var / g16__p2_msm_var) and the same bits after normalization.
 *
 * Inputs (host arrays, borrowed for the call only):
 *   bases    affine points with the CPU MSM's conventions (infinity = (0, 0), contributes
 *            nothing; on the curve, not checked; repeated or opposite bases allowed).
 *   scalars  g16_fr in Montgomery form, fully reduced (the g16_fr invariant). Zero scalars are
 *            skipped, scalars equal to one are summed without buckets, the rest go through
 *            Pippenger (src/gpu/msm_core.cuh describes the algorithm).
 * Output: normalized Jacobian (Z = 1, or the curve layer's infinity (1, 1, 0)), bit-identical to
 * the CPU MSM's result. Written only on success.
 *
 * Resident bases (g16__gpu_msm): the bases are copied to the device once (or generated there,
 * for benchmarks) and any number of scalar sets run over them; nsets sets in one call are
 * processed one after the other on the context's stream, reusing the scratch memory, with one
 * synchronization per set (to size the Pippenger part by its count of non-trivial scalars).
 * A g16__gpu_msm belongs to one g16__gpu context and is used by one thread at a time.
 *
 * Memory (device), for n bases and m non-trivial scalars with window c (nwin = ceil(256/c)):
 * bases n·96 B (G1) / n·192 B (G2), plus per run: scalars n·32 B (host scalars only: device
 * scalars are read in place), about 9 B·n for the
 * classification, 16·nwin·m B for the sorted digit entries (two key and two value arrays) and
 * CUB's temporary space, nwin·2^(c−1) XYZZ buckets (192 B / 384 B each), and small per-thread
 * arrays; with the batch-affine level 0 (opts.lanes > 1, off by default) also K lanes per level-0
 * thread of 272 B (G1) / 512 B (G2) each, plus their carry slots (four XYZZ points per lane); with
 * the tree accumulation (opts.tree, off by default) a slice of affine points (96 B / 192 B each)
 * and 8 B per bucket. The
 * plan is checked before any allocation
 * (G16_ERR_NOMEM with needed and free bytes).
 * About 16.5 GiB for a G1 MSM of 2^26 random scalars with window 20, ~19 GiB with the automatic 22
 * (g16__gpu_msm_scratch_bytes bounds it). The scratch memory is allocated by the first
 * run and kept with the handle for the next ones (grown when a run needs more), and freed by
 * g16__gpu_msm_destroy.
 *
 * Limits: n <= 2^31 − 1 (G16_ERR_UNSUPPORTED beyond). Errors: G16_ERR_ARG (NULL pointers, bad
 * options), G16_ERR_NOMEM, G16_ERR_DEVICE / G16_ERR_NO_DEVICE (gpu.h). Timing: variable-time.
 */
#ifndef G16_GPU_MSM_GPU_H
#define G16_GPU_MSM_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"
#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define G16__GPU_MSM_MAX_POINTS 0x7fffffffULL

/* Phases timed when opts->phase_ms is set (milliseconds on the device, summed over the sets). */
typedef enum {
    G16__GPU_MSM_PH_UPLOAD = 0, /* scalars to the device (opts.upload_chunks: the first chunk) */
    G16__GPU_MSM_PH_CLASSIFY,   /* zero / one / other and the ones' partial sums (with upload_chunks:
                                 * per chunk as it arrives, the rest of the upload overlapping);
                                 * compaction of the others, count download */
    G16__GPU_MSM_PH_ONES,       /* the ones' partial sums added to one point */
    G16__GPU_MSM_PH_DIGITS,     /* canonical scalars and signed digits */
    G16__GPU_MSM_PH_SORT,       /* radix sort of the (bucket, point) entries */
    G16__GPU_MSM_PH_ACCUM,      /* bucket accumulation (all levels) */
    G16__GPU_MSM_PH_REDUCE,     /* bucket reduction and window sums */
    G16__GPU_MSM_PH_FINAL,      /* window combination and result download */
    G16__GPU_MSM_PH_COUNT
} g16__gpu_msm_phase;

/* Tuning knobs for tests and benchmarks; NULL for the defaults (all zero). */
typedef struct {
    unsigned window;    /* 0: automatic by the number of non-trivial scalars (msm_window_for: 22 from
                         * 2^26 of them); else c in [2, 22] */
    uint64_t threads0;  /* 0: automatic; else about this many threads at accumulation level 0 */
    unsigned carry_per; /* 0: default; else entries per thread in the carry levels, >= 4 */
    double *phase_ms;   /* optional [G16__GPU_MSM_PH_COUNT], added to (caller zeroes it) */
    uint64_t *nothers;  /* optional [nsets]: non-trivial scalars per set */
    unsigned *npasses;  /* optional [nsets]: passes each set's Pippenger part took (0: no
                         * non-trivial scalar); the CUDA backend only */
    int final_device;   /* 0: the window sums are combined on the host (a chain of ~256 doublings
                         * runs far faster on a CPU core than on one GPU thread: G2 2^24 0.3 ms
                         * against 8.9 on the H200); 1: on one GPU thread */
    int device_scalars; /* 1: `scalars` is a device pointer (this handle's device; e.g. the H step's
                         * output): copied device to device, never read on the host */
    unsigned lanes;     /* 0: default; 1: XYZZ accumulation level 0; K in [2, 64]: batch-affine level 0
                         * with K lanes per thread when each lane gets >= 32 entries */
    unsigned tree;      /* accumulation: 0: default (the handle's: G16_MSM_TREE_G1 / _G2); 1: the
                         * XYZZ levels; k in [2, 31]: the tree accumulation (msm_core.cuh) in slices
                         * of 2^k entries */
    unsigned tree_k;    /* tree accumulation: additions per thread batch, at most (0: default, else
                         * [4, 32]) */
    unsigned upload_chunks; /* host scalars: 1: one copy, then the work; k in [2, 8]: up to k chunks
                             * of >= 2^18 points on the side stream, each classified and its ones
                             * summed (a wave of threads per chunk) as soon as it has arrived;
                             * 0 (default): 8 from 2^23 points, else 1 (msm_core.cuh,
                             * MSM_UP_AUTO_MIN: Filecoin-like G1 2^26 202.0 -> 191.7 ms) */
    unsigned windows_per_pass; /* 0: the Pippenger part in one pass over all windows; w > 0: in
                                * passes of at most w windows (each a digits, sort, accumulation
                                * and reduction of its own), which divides the entries' and
                                * buckets' memory by about nwin / w for one more read of the
                                * scalars per pass: how a resident query whose whole run does not
                                * fit runs over all its bases at once (the prover), instead of in
                                * pieces with a window sum each. A set with fewer non-trivial
                                * scalars than points (a witness) takes passes as wide as the
                                * buffers of the run's up-front plan (all non-trivial) hold, so
                                * the scratch stays within g16__gpu_msm_scratch_bytes_opts */
} g16__gpu_msm_opts;

typedef struct g16__gpu_msm g16__gpu_msm;

/* Copies n bases to the device. G16_ERR_ARG for NULL with n > 0; n = 0 is allowed. */
g16_status g16__gpu_msm_create_p1(g16__gpu_msm **out, g16__gpu *g, const g16_p1_affine *bases, size_t n,
                                  g16_error *err);
g16_status g16__gpu_msm_create_p2(g16__gpu_msm **out, g16__gpu *g, const g16_p2_affine *bases, size_t n,
                                  g16_error *err);
/* The same (g2 selects the group) for a host thread other than the one running this context's
 * work: the copy and the infinity bitmap go through the context's side stream and only that stream
 * is waited for, so the upload overlaps the MSMs running meanwhile (the prover's streaming mode
 * uploads the next chunk of a query this way). The handle is then used as any other. */
g16_status g16__gpu_msm_create_side(g16__gpu_msm **out, g16__gpu *g, int g2, const void *bases, size_t n,
                                    g16_error *err);
/* For benchmarks: n pseudo-random points of the subgroup generated on the device from `seed`
 * (each a sum of about 24 of 48 random multiples of the generator, converted to affine there):
 * a 2^26-point G1 set takes about a second instead of minutes on the host. */
g16_status g16__gpu_msm_create_random_p1(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed, g16_error *err);
g16_status g16__gpu_msm_create_random_p2(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed, g16_error *err);
/* A handle over bases [first, first + count) of m (first a multiple of 32, else G16_ERR_ARG): it
 * borrows m's device bases (no copy; m must outlive it) and has scratch of its own, sized by
 * count. The prover runs a resident query in pieces this way when the whole query's scratch does
 * not fit beside the bases. */
g16_status g16__gpu_msm_view(g16__gpu_msm **out, g16__gpu_msm *m, size_t first, size_t count, g16_error *err);
/* Copies bases [first, first + count) back to the host (g16_p1_affine or g16_p2_affine by group). */
g16_status g16__gpu_msm_download_bases(g16__gpu_msm *m, void *host, size_t first, size_t count, g16_error *err);
void g16__gpu_msm_destroy(g16__gpu_msm *m); /* NULL is a no-op */
/* Frees the scratch memory the runs keep with the handle (the next run allocates it again): for
 * callers that hold several handles and need the room between their runs. NULL is a no-op. */
void g16__gpu_msm_release_scratch(g16__gpu_msm *m);
size_t g16__gpu_msm_size(const g16__gpu_msm *m);

/* out[s] = Σ_i scalars[s·n + i]·bases[i] for s < nsets (G1 / G2 by the group the handle was
 * created for; G16_ERR_ARG for the other). Synchronous. */
g16_status g16__gpu_msm_run_p1(g16__gpu_msm *m, g16_p1 *out, const g16_fr *scalars, size_t nsets,
                               const g16__gpu_msm_opts *opts, g16_error *err);
g16_status g16__gpu_msm_run_p2(g16__gpu_msm *m, g16_p2 *out, const g16_fr *scalars, size_t nsets,
                               const g16__gpu_msm_opts *opts, g16_error *err);

/* One-shot: copy the bases, run one set, free. */
g16_status g16__gpu_p1_msm(g16__gpu *g, g16_p1 *out, const g16_p1_affine *bases, const g16_fr *scalars, size_t n,
                           g16_error *err);
g16_status g16__gpu_p2_msm(g16__gpu *g, g16_p2 *out, const g16_p2_affine *bases, const g16_fr *scalars, size_t n,
                           g16_error *err);

/*
 * Benchmark of two ways to accumulate buckets (bench_gpu_msm; a G1 handle of n >= 2 bases): one
 * full wave of threads each adds `steps` rounds of K bases (base g16__gpu_ab_index(t, j, s, mask)
 * for thread t, accumulator j, round s; mask + 1 = the largest power of two <= n, at most 2^30)
 *   affine: into K affine accumulators per thread kept in device memory, one variable-time
 *           inversion per round for the K slopes (Montgomery's trick); accumulator j starts at
 *           base g16__gpu_ab_index(t, j, 0xffffffff, mask);
 *   xyzz:   into one XYZZ accumulator per thread kept in registers, from infinity (the mixed
 *           addition the MSM's level-0 accumulation uses).
 * Fills the rates (additions per second, device events), the thread counts, and the results of
 * three threads (first, middle, last of each kernel's grid) for a replay on the CPU.
 */
#define G16__GPU_AB_KMAX 64
typedef struct {
    uint32_t K, steps;          /* in */
    double aff_per_s, xyzz_per_s;
    uint64_t threads_aff, threads_xyzz;
    uint32_t mask;
    uint64_t check_t_aff[3], check_t_xyzz[3];
    g16_p1_affine aff[3][G16__GPU_AB_KMAX];
    uint32_t xyzz[3][48]; /* X, Y, ZZ, ZZZ as the device leaves them (g16__gpu_msm_xyzz_to_p1) */
} g16__gpu_ab_bench;
g16_status g16__gpu_msm_ab_bench(g16__gpu_msm *m, g16__gpu_ab_bench *b, g16_error *err);
uint32_t g16__gpu_ab_index(uint64_t t, uint32_t j, uint32_t s, uint32_t mask);

/* Host helpers (msm_host.c, in every build): an XYZZ point as the device leaves it (4 / 8 Fp
 * elements X, Y, ZZ, ZZZ, the bits of g16_fp) to the normalized Jacobian form described above. */
void g16__gpu_msm_xyzz_to_p1(g16_p1 *out, const void *xyzz);
void g16__gpu_msm_xyzz_to_p2(g16_p2 *out, const void *xyzz);
/* The final combination on the host (the default; g16__gpu_msm_opts.final_device = 0): out = Σ_w 2^(wc)·W[w] +
 * ones (ones may be NULL), all in the device's XYZZ layout (g2 selects the group). */
void g16__gpu_msm_final_host(void *out, int g2, uint32_t nwin, uint32_t c, const void *W, const void *ones);
/* count affine multiples k_j·G of the generator (G1: g16_p1_affine, G2: g16_p2_affine) with
 * pseudo-random full-size k_j drawn from seed: the table of the random bases. */
void g16__gpu_msm_random_table(void *out, int g2, size_t count, uint64_t seed);
/* An upper bound of the device scratch memory of one run over n bases with every scalar
 * non-trivial (the largest plan; the automatic window), host scalars, one pass: n·(41 + 16·nwin)
 * bytes (scalars, classification, the sorted digit entries), nwin·2^(c−1) XYZZ buckets (192 B in
 * G1, 384 B in G2) and 256 MiB for the arrays sized by threads and CUB's temporary space. G1 2^26:
 * ~20.7 GB (window 22); 2^27: ~36.4 GB. In msm_host.c as well. */
size_t g16__gpu_msm_scratch_bytes(size_t n, int g2);
/* The same bound for runs with device scalars (device_scalars = 1: no copy, 32 B per point less)
 * in passes of at most wpp windows (0: one pass): the entries and buckets of wpp windows. G1 2^27
 * with device scalars: one pass ~32.1 GB, passes of 2 windows ~6.6 GB, of 1 ~4.0 GB. */
size_t g16__gpu_msm_scratch_bytes_opts(size_t n, int g2, int device_scalars, unsigned wpp);
/* Windows of the automatic plan for n non-trivial scalars (ceil(256/c)): the most passes a run
 * over n points can have. */
unsigned g16__gpu_msm_windows(size_t n);
/* The cost msm_window_for minimizes, at its window, in mixed additions (~0.49 ns each for G1 on
 * the H200): a run's accumulation, sort and reduction over n random scalars, one pass. */
double g16__gpu_msm_run_adds(size_t n);

#ifdef __cplusplus
}
#endif
#endif /* G16_GPU_MSM_GPU_H */
