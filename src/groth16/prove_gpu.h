/*
 * The GPU side of the Groth16 prover: one worker's device state (a CUDA context on one device,
 * the NTT domain of the circuit, and the five queries' bases as resident GPU MSM handles) and
 * the two steps the GPU takes from the CPU prover: the H step and the five MSMs.
 *
 * Results are the same group elements as the CPU's (the GPU MSM is bit-identical to the CPU MSM
 * after normalization, the NTT bit-identical to the CPU NTT), so a proof is byte for byte the
 * CPU backend's for the same r and s.
 *
 * Memory: g16__gpu_prover_create allocates the H step's three vectors (96 B per constraint, kept:
 * H stays on the device for msm.h; two, 64 B per constraint, when three do not fit: c is then
 * uploaded into b's vector once the coset evaluations' product a·b is formed, with no device
 * SpMV, row check or prefetch; G16_GPU_H_SLOTS=2 forces it, for tests), the witness (32 B per variable: uploaded once per proof, the
 * l query's scalars, and the source of the a and b queries' scalars, which are compacted on the
 * device into the H step's b and c once H is computed), the density bitmaps, and uploads the h, l,
 * a, b_g1 and b_g2 queries once (96 B per G1 point, 192 B per G2 point) when they fit beside them
 * with an MSM's scratch. That scratch is the whole largest query's when it fits (G1 2^27: ~36.4
 * GB); else each resident MSM runs in pieces of a power of two of points (views of the query,
 * g16__gpu_msm_view, the results summed on the host), the largest whose scratch fits, down to
 * 2^20 points: on an 80 GB card a 2^27 circuit's queries (~47 GB for Filecoin's) stay resident in
 * pieces instead of crossing PCIe with every proof (G16_GPU_PIECE=N forces pieces of N points, a
 * multiple of 32, for tests). Where the memory left once the prover's buffers are allocated holds
 * each query's whole run in passes of fewer windows (msm_gpu.h, windows_per_pass), those replace
 * the pieces (G16_GPU_PASSES=0: not; 2^27 on an H100 80GB: passes of 2 windows, msm.h 905 instead
 * of 1023 ms per circuit). The SpMV's matrices and the prefetch's spare set (below) take memory
 * from the pieces only within limits: the matrices when the pieces stay at least half as large,
 * the spare set when they stay as large. When not even the smallest pieces fit beside all five,
 * some queries stay resident and the others are streamed ("partial": the set of the most bytes
 * among l, a, b_g1, b_g2, whose mostly 0/1 scalars leave their MSMs bound by the upload, then h
 * when it fits too; streamed chunks of at least 2^24 points; the resident runs whole and the
 * streamed chunks' runs in passes of fewer windows where one pass does not fit, which lets more
 * stay resident (G16_GPU_PASSES=0: the resident runs in pieces, the chunks in one pass; 2^27 on an
 * H100 as a 48 GB card: b_g1 and b_g2 resident instead of b_g2 alone, 2.19-2.27 s per proof
 * instead of 2.41-2.42); no SpMV on the device, no spare set (the a slot, below, where the last
 * witness queries are resident); G16_GPU_RESIDENT names the set, for tests, or turns the plan
 * off). When none fit
 * ("streaming") each MSM uploads its query in chunks whose bases (twice: the next chunk's upload
 * overlaps) and MSM scratch fit in the free memory, b_g2's of half as many points as the G1
 * queries'; a chunk's run goes in passes of fewer windows where that lets the chunks grow (their
 * size by a modelled cost, never below the largest whose runs fit in one pass; G16_GPU_PASSES=0:
 * that one, in one pass; G16_GPU_CHUNK=N points overrides, G16_GPU_STREAM=1 forces streaming; both
 * for tests), runs each chunk and sums
 * the parts on the host, so a card smaller than the parameters still proves (slower: the queries
 * cross PCIe once per proof, the witness queries once per two proofs where their MSMs run in
 * pairs, g16__gpu_prover_msms_next). There the queries' host memory is page-locked for the prover's
 * life (G16_GPU_PIN_QUERIES=0: not), and each chunk is uploaded by a thread of its own while the
 * previous chunk's MSM runs (G16_GPU_STREAM_OVERLAP=0: not); on the H200 at 2^25 with 2^23-point
 * chunks that took a proof from 2.1-2.9 s to 0.92-0.94 s (resident: ~0.77 s; bench/RESULTS.md).
 * g16__gpu_prover_resident reports the mode. An MSM's scratch memory comes from the device's
 * stream-ordered pool and goes back there when the MSM returns (no wait; the pool keeps it for the
 * next MSM; the resident and prefetch decisions count the largest MSM's with
 * g16__gpu_msm_scratch_bytes). Too little memory even for the H step's vectors and one chunk:
 * G16_ERR_NOMEM stating needed and free bytes.
 *
 * Prefetch of the next circuit's a, b, c (resident mode only, when a second set of the H step's
 * vectors, 96 B per constraint, still fits beside the largest MSM's scratch; G16_GPU_PREFETCH=0
 * turns it off): g16__gpu_prover_prefetch enqueues the copies of a later circuit's a, b, c into
 * that spare set on the side stream, so that they cross PCIe while the current circuit's MSMs run
 * (at 2^26 the H step took ~287 ms per proof against ~153 ms for its NTTs alone, bench/RESULTS.md:
 * ~130 ms of each ~1.15 s proof went to the three synchronous uploads, the GPU idle);
 * g16__gpu_prover_h given the same three host pointers then waits for those copies instead of
 * uploading, and the two sets swap roles. The host vectors of a prefetch must stay unchanged and
 * allocated until g16__gpu_prover_h has used them or g16__gpu_prover_release_host /
 * g16__gpu_prover_prefetch_cancel has forgotten them (with page-locked vectors the copies are truly
 * asynchronous: the DMA reads them later). Measured on the H200 (bench/RESULTS.md, 2026-12-03):
 * the uploads' ~110 ms per 2^26 proof left the GPU stage (msm.h grows by ~30 ms beside the
 * copies); at 2^27 the spare set fits beside the queries.
 *
 * Ownership: the prover borrows params and r1cs (they must outlive it) and owns its device state.
 * One thread at a time per prover (g16__gpu_prover_prefetch_early excepted); provers on different devices (or the same device) may run at
 * once from different threads.
 */
#ifndef G16_GROTH16_PROVE_GPU_H
#define G16_GROTH16_PROVE_GPU_H

#include "g16.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"

/* The five query sums of one proof. */
typedef struct {
    g16_p1 h, l, a, b1;
    g16_p2 b2;
} g16__query_sums;

typedef struct g16__gpu_prover g16__gpu_prover;

/* Opens CUDA device `device` (an index after CUDA_VISIBLE_DEVICES) for a worker and prepares it
 * for circuits shaped like r with parameters p. Errors: G16_ERR_NO_DEVICE, G16_ERR_DEVICE,
 * G16_ERR_NOMEM (not even the H step fits). *out is NULL on failure. */
g16_status g16__gpu_prover_create(g16__gpu_prover **out, int device, const struct g16_params *p,
                                  const struct g16_r1cs *r, g16_error *err);
void g16__gpu_prover_destroy(g16__gpu_prover *gp); /* NULL is a no-op */
/* The same for a worker that shares its device with workers created before it: its plans leave
 * `withheld` bytes of the free memory to them, the sum of their g16__gpu_prover_transient_bytes
 * (their MSMs' scratch and streamed chunks are allocated while they prove, so the free memory
 * this worker sees does not show them yet). */
g16_status g16__gpu_prover_create_shared(g16__gpu_prover **out, int device, size_t withheld,
                                         const struct g16_params *p, const struct g16_r1cs *r, g16_error *err);
/* The most device memory the worker allocates while it proves beyond what it holds between
 * proofs: its largest resident MSM run's scratch, or its streamed chunks' (bases and scratch), or
 * in the partial plan a resident run beside two chunks' bases; 0 for NULL. */
size_t g16__gpu_prover_transient_bytes(const g16__gpu_prover *gp);

/* 1 when the five queries are resident on the device, 0 when some or all are streamed. */
int g16__gpu_prover_resident(const g16__gpu_prover *gp);
/* One line for the backend notice: "gpu 0 (NVIDIA H200), queries resident". */
void g16__gpu_prover_describe(const g16__gpu_prover *gp, char *buf, size_t len);

/* The H step from host vectors a, b, c of r->n elements (as g16__ntt_groth16_h): copied to the
 * worker's device vectors (span gpu.upload_abc, synchronous), or, when a prefetch of exactly these
 * three pointers is pending, taken from the spare set once its copies are done (span
 * gpu.wait_prefetch), and transformed there. Without a prefetch or the row check on the device
 * (G16_GPU_H_OVERLAP=0 turns this off), one input at a time: a copied (span gpu.upload_a,
 * synchronous), then b's and c's copies overlap the previous input's transforms; there, with
 * g16__gpu_prover_set_c_from_ab on, c is not read at all (it may be NULL: g16__gpu_prover_forms_c)
 * and H is the one for c = a·b. H stays on the device for the next
 * g16__gpu_prover_msms (the host vectors are only read). w, when not NULL, is the witness that
 * the next g16__gpu_prover_msms will be given: it is uploaded while the NTTs run (span
 * gpu.upload_witness inside the H step). Where the h query is resident, with G16_GPU_W_LATE
 * (default 1; 0: the step waits for it), that copy may still run when the step returns, under
 * msm.h: it is waited for before the witness MSMs read it (span gpu.wait_witness), and before
 * g16__gpu_prover_msm_h, _drop_h, _release_host or the next H step return; w stays unchanged and
 * allocated until then (g16__gpu_prover_w_late_count counts those steps). g16__gpu_prover_h_download copies that
 * H to the host (r->n elements; for tests).
 *
 * With the matrices on the device (g16__gpu_prover_spmv, or for one step g16__gpu_prover_spmv_first),
 * a = b = c = NULL computes a, b, c there from w (uploaded first, synchronously: span
 * gpu.upload_witness) or, with w = NULL too, from the witness the last g16__gpu_prover_msms_w left
 * on the device (G16_ERR_ARG when there is none, or when neither route is open); span gpu.spmv.
 * The host vectors are not needed at all. */
g16_status g16__gpu_prover_h(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                             const g16_fr *w, g16_error *err);
g16_status g16__gpu_prover_h_download(g16__gpu_prover *gp, g16_fr *h, g16_error *err);

/* Called by g16__gpu_prover_msms before its first MSM and between the MSMs, when the device is
 * idle; e.g. to prefetch the next circuit's a, b, c once they are ready. A status other than
 * G16_OK ends the MSMs with it (err filled by the callback). */
typedef g16_status (*g16__gpu_poll_fn)(void *ctx, g16_error *err);

/* The five MSMs of one proof, after g16__gpu_prover_h: witness w (num_inputs + num_aux values,
 * host memory, uploaded once: by the H step when it was given the same w, else here, span
 * gpu.upload_witness); the h query's scalars are the H on the
 * device (consumed: the next call needs a new H step); the a and b queries' scalars are compacted
 * on the device (spans gpu.compact_a, gpu.compact_b). Each MSM is a trace span (msm.h.gpu, ...).
 * poll (may be NULL) is called with poll_ctx before the first MSM and after each but the last. */
g16_status g16__gpu_prover_msms(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16__gpu_poll_fn poll,
                                void *poll_ctx, g16_error *err);

/* Witness MSMs in pairs. Where some witness query is streamed, each of its chunks crosses PCIe
 * once per proof; run over two circuits' witnesses, once per two. g16__gpu_prover_pairs is 1 when
 * the prover does that: some witness query streamed, and the second witness plus both circuits'
 * compacted a / b scalars fit in the H step's three vectors, which are free between msm.h and the
 * next H step (no device memory of their own; G16_GPU_PAIR=0 turns it off; the a slot is then
 * off). g16__gpu_prover_msms_next is g16__gpu_prover_msms whose witness MSMs, when the prover pairs,
 * also run over the next circuit's witness, which it asks for with next(ctx, wait, &out2, &st2):
 * that witness (host memory, page-locked for speed, unchanged until the call returns), setting
 * out2 (where that circuit's l, a, b1, b2 go) and st2 (the status of its MSMs, written before the
 * call returns: on failure out2 holds nothing); or NULL for none. First, before msm.h, with wait =
 * 0: NULL then also means "not ready yet" (nothing taken), and a witness returned crosses PCIe
 * during msm.h (where the second witness fits clear of H: counted by
 * g16__gpu_prover_w2_side_count); else once msm.h is done, with wait = 1 (a witness is uploaded
 * then, the device idle). The next circuit's proof then takes g16__gpu_prover_h with w = NULL and
 * g16__gpu_prover_msm_h, as after g16__gpu_prover_msms_w. poll is called as by
 * g16__gpu_prover_msms, with the same ctx. The second witness crosses PCIe once more (span
 * gpu.upload_witness2, the wait for a copy during msm.h gpu.wait_witness2; 4.3 GB at 2^27),
 * against the streamed witness queries' chunks saved. g16__gpu_prover_paired_count: pairs run. */
typedef const g16_fr *(*g16__gpu_next_fn)(void *ctx, int wait, g16__query_sums **out2, g16_status **st2);
int g16__gpu_prover_pairs(const g16__gpu_prover *gp);
g16_status g16__gpu_prover_msms_next(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16__gpu_poll_fn poll,
                                     g16__gpu_next_fn next, void *ctx, g16_error *err);
uint64_t g16__gpu_prover_paired_count(const g16__gpu_prover *gp);
uint64_t g16__gpu_prover_w2_side_count(const g16__gpu_prover *gp);

/* The four witness MSMs (l, a, b_g1, b_g2) of a proof ahead of its H step, into out->l, a, b1, b2:
 * for the pipeline's GPU stage while it waits for the circuit's a, b, c (at the start of a batch
 * the first circuit's SpMV leaves the GPU idle: ~470 ms at 2^26 on the H200's host). Uploads w
 * (synchronous: page-locked for speed). Not between g16__gpu_prover_h and its MSMs (G16_ERR_ARG:
 * the compacted scalars take the H step's b and c). The proof then takes g16__gpu_prover_h with
 * w = NULL and g16__gpu_prover_msm_h (out->h: msm.h alone, poll before it). Meant for resident
 * queries: streamed ones would be taken out of the order the chunk-upload thread expects (each
 * mismatch costs a synchronous chunk upload), so the pipeline does not use it there by default. */
g16_status g16__gpu_prover_msms_w(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16_error *err);
g16_status g16__gpu_prover_msm_h(g16__gpu_prover *gp, g16_p1 *out, g16__gpu_poll_fn poll, void *poll_ctx,
                                 g16_error *err);
/* How many circuits' witness MSMs ran early (msms_w: one per call, msms_w2: two; for tests and
 * benchmarks). */
uint64_t g16__gpu_prover_early_count(const g16__gpu_prover *gp);
/* g16__gpu_prover_msms_w for two circuits at once where the prover pairs (else, or with w2 NULL,
 * for w alone): their witness MSMs ahead of both H steps (at a batch's start the pipeline copies
 * the first two witnesses before the first SpMV). Counted as two early circuits and one pair. The
 * second circuit's H step then also takes w = NULL. */
g16_status g16__gpu_prover_msms_w2(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16__query_sums *out2,
                                   const g16_fr *w2, g16_error *err);
/* The same with the second witness asked for once w has crossed PCIe, next(ctx, 1, &out2, &st2)
 * as for g16__gpu_prover_msms_next (asked only where the prover pairs; NULL: w alone, as
 * g16__gpu_prover_msms_w), so that the caller's copy of it into page-locked memory may run during
 * w's upload (the pipeline's batch start, where the pairs added ~70-85 ms of waiting at 2^27:
 * bench/RESULTS.md, twenty-sixth and twenty-seventh sessions). */
g16_status g16__gpu_prover_msms_w_next(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w,
                                       g16__gpu_next_fn next, void *ctx, g16_error *err);

/* The witness check on the device (G16_GPU_CHECK=1 when the prover is created; off by default
 * until measured): each g16__gpu_prover_h first tests a_i·b_i = c_i for the r1cs's rows on the
 * device (~1 ms, against ~200 ms per 2^26 circuit for the CPU's pass on 16 cores) and
 * g16__gpu_prover_check_first_bad then gives the first failing row (UINT64_MAX: none) for
 * g16__r1cs_row_verdict; the caller checks the witness's length and w[0] itself
 * (g16__r1cs_check_witness). g16__gpu_prover_checks says whether it is on. A caller that ends the
 * proof at a failing row calls g16__gpu_prover_drop_h: the H step's result is forgotten (the MSMs
 * then refuse with G16_ERR_ARG, g16__gpu_prover_msms_w is allowed again), so that the next proof
 * (its early witness MSMs) is not refused as if an H step still waited for its MSMs. A caller
 * that ignores the verdict (G16_PROVE_NO_CHECK) proves on, as the CPU does: the proof then fails
 * self-verification. prove.c also calls it when a GPU proof fails anywhere after its H step
 * (the worker must not keep an H, or an early witness, that no later call will take). */
int g16__gpu_prover_checks(const g16__gpu_prover *gp);
uint64_t g16__gpu_prover_check_first_bad(const g16__gpu_prover *gp);
void g16__gpu_prover_drop_h(g16__gpu_prover *gp);

/* A·w, B·w, C·w on the device (G16_GPU_SPMV, default 1: when the queries are resident and the
 * three matrices and their coefficients fit beside them, the largest MSM's scratch kept free; 0:
 * never). Then the pipeline's CPU stage only copies the witness into its page-locked slot and
 * checks its length and w[0]; the prefetch copies the next witness instead of a, b, c and the rows are
 * checked on the device (g16__gpu_prover_checks is 1). At 2^27 this replaces ~0.7 s of SpMV on 16
 * host cores and the 12 GB a/b/c upload per circuit; the matrices take ~5 bytes per entry plus 4
 * (or 8) per row. 1 when on. */
int g16__gpu_prover_spmv(const g16__gpu_prover *gp);

/* A·w, B·w, C·w on the device for one circuit at a time, where the matrices do not stay there
 * (G16_GPU_SPMV 1 or "first"; "resident" and 0 turn it off): with all five queries resident and
 * three H vectors, when the matrices and their dictionary fit in the largest MSM's scratch, which
 * the plan keeps free and which no MSM holds between proofs. g16__gpu_prover_h given a = b = c =
 * NULL then stages the matrices there (scratch memory from the device's pool; from their host
 * memory, page-locked for the prover's life), computes a, b, c from w (or from the witness the
 * last g16__gpu_prover_msms_w left) and checks the rows on the device: the caller takes the
 * verdict from g16__gpu_prover_check_first_bad, as with G16_GPU_CHECK=1, and need not have
 * checked them; the matrices go back to the pool when the step returns. For the pipeline's first
 * circuit of a batch, whose SpMV on the CPU the GPU would wait for (~0.5 s of a single 2^27
 * proof's 2.04 s on an H100 80GB, where the resident matrices cost the MSMs their passes:
 * bench/RESULTS.md, thirty-second session); every later circuit's SpMV runs on the CPU under the
 * previous circuit's MSMs. g16__gpu_prover_spmv_first is 1 when the route is open;
 * g16__gpu_prover_spmv_stage stages the matrices ahead of the step (copies enqueued on the stream,
 * so that they cross PCIe while the caller still prepares the witness; a no-op when the route is
 * closed or they are staged already); g16__gpu_prover_spmv_unstage gives staged matrices back
 * unused (stream-ordered, never waits). Memory: the staged matrices take the place of the MSM
 * scratch the plan counted, so nothing else may allocate scratch between the staging and the H
 * step (g16__gpu_prover_msms_w would: stage after it). */
int g16__gpu_prover_spmv_first(const g16__gpu_prover *gp);
g16_status g16__gpu_prover_spmv_stage(g16__gpu_prover *gp, g16_error *err);
void g16__gpu_prover_spmv_unstage(g16__gpu_prover *gp);

/* The prefetch mode the prover was created with: G16__GPU_PF_OFF none (G16_GPU_PREFETCH=0,
 * streaming mode, or no room for the spare a, b, c and no a slot: g16__gpu_prover_prefetch is then
 * a no-op), _SPARE prefetch into the spare set, _WAIT the same, and the caller's pipeline waits for
 * the next circuit during the MSMs so that every circuit after the first is prefetched
 * (G16_GPU_PREFETCH=wait: for tests, it makes the use certain), _A the a slot below. With some
 * queries streamed there is no spare set; the a slot is taken where it applies. */
int g16__gpu_prover_prefetch_mode(const g16__gpu_prover *gp);
#define G16__GPU_PF_OFF 0
#define G16__GPU_PF_SPARE 1
#define G16__GPU_PF_WAIT 2
/* The a slot: when the spare set does not fit (or G16_GPU_PREFETCH=a), the last witness queries
 * are resident (all five queries; or in the partial plan at least b_g2, e.g. b_g1 and b_g2 on a 48
 * GB card at 2^27) and a, b, c come from the host one input at a time (G16_GPU_SPMV=0 or the
 * matrices did not fit, three H vectors, no row check on the device), g16__gpu_prover_prefetch
 * copies only the next a, into the current set's first vector, once msm.h has read the H there and
 * the MSMs left are of resident queries (its polls before: a no-op). It crosses PCIe while those
 * witness MSMs run, which need none, and the next H step starts with its transforms instead of the
 * copy (span gpu.upload_a: ~80 ms per 2^27 circuit on an H100 80GB, bench/RESULTS.md
 * "twenty-first"). No memory beyond the H step's own vectors. Where all five queries are resident
 * and the compacted a / b scalars fit in the second vector, the third is free between H steps too
 * (G16_GPU_A_SLOT3=0: not used): the slot goes there while the first holds H (and the step after
 * it leaves its H in the third, the first then taking the next copy), so it may be filled from the
 * end of an H step on: by the polls, msm.h's included, and by g16__gpu_prover_prefetch_early as
 * soon as the next circuit is ready. That serves the second circuit of a batch too, whose
 * predecessor ran its witness MSMs early (~90 ms of a synchronous upload per batch at 2^27; on an H100
 * -100 to -275 ms per batch of 3, bench/RESULTS.md "thirty-second"). */
#define G16__GPU_PF_A 3

/* The prefetch functions take the next H step's host inputs: a, b, c, or with the SpMV on the
 * device (g16__gpu_prover_spmv) the witness w (the other set is ignored and may be NULL). With the
 * SpMV the spare set is a second device witness (32 B per variable; span gpu.prefetch_w), and
 * g16__gpu_prover_h given a = b = c = NULL and the same w swaps it in instead of uploading (a
 * 2^27 witness took 91 ms on the H200 with the GPU idle, bench/RESULTS.md).
 *
 * Enqueues the copies of host vectors a, b, c (r->n elements each; page-locked for a true overlap)
 * into the spare device set on the side stream and returns (span gpu.prefetch_abc). First waits
 * for everything already enqueued on the worker's streams, so that nothing else uses the spare set
 * (between the MSMs of g16__gpu_prover_msms that wait is empty). A no-op when these three pointers
 * are already pending, or in mode 0. One prefetch is pending at a time: a new one replaces the
 * previous one (after its copies are done). A prefetch that g16__gpu_prover_h never uses is
 * harmless: it is forgotten by the next prefetch, release_host, cancel or destroy. */
g16_status g16__gpu_prover_prefetch(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                    const g16_fr *w, g16_error *err);
/* The same from another thread than the one using the prover (the pipeline's synth thread, as
 * soon as a circuit's a, b, c are final), without waiting for any stream: enqueues only when no
 * prefetch is pending, since then the spare set is free (its last circuit finished before the
 * caller could refill the slot; a pending prefetch is the current circuit's, not taken yet, and
 * the GPU stage's polls handle the next one; the a slot: only between two H steps, into the vector
 * msm.h does not read, see G16__GPU_PF_A). At 2^26 the next slot is ready during msm.h, after
 * the first poll: a poll-only prefetch then overlapped msm.l alone and msm.l's cudaFree waited for
 * the copies (H200, 2026-12-02: upload a,b,c 544 -> 118 ms per batch of 4, msm.l 212 -> 572 ms). */
g16_status g16__gpu_prover_prefetch_early(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                          const g16_fr *w, g16_error *err);
/* The caller is about to rewrite or free host vectors a, b, c (or w): when the pending prefetch reads
 * them, waits for its copies and forgets it (so that a later g16__gpu_prover_h never takes a
 * stale copy). Cheap otherwise. */
g16_status g16__gpu_prover_release_host(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                        const g16_fr *w, g16_error *err);
/* Waits for any pending prefetch's copies and forgets it. */
g16_status g16__gpu_prover_prefetch_cancel(g16__gpu_prover *gp, g16_error *err);

/* Counts since creation: prefetches enqueued, H steps that used a prefetch, H steps that uploaded
 * a, b, c synchronously (for tests and benchmarks; any pointer may be NULL). */
void g16__gpu_prover_counts(const g16__gpu_prover *gp, uint64_t *prefetched, uint64_t *prefetch_used,
                            uint64_t *uploaded);
/* on: the caller checks the rows a_i·b_i = c_i of the circuits it gives g16__gpu_prover_h from now
 * on before their proofs count (a witness that fails gives no proof), so the H step may form c on
 * the device as a·b instead of copying it, where a, b, c come from the host one at a time (no
 * spare set, no row check on the device; G16_GPU_C_FROM_AB=0 keeps the copy). For any a, b, c
 * that are not so related the H is then that of c = a·b. Off (at creation): c is read as given and
 * H is g16__ntt_groth16_h's for any input. g16__gpu_prover_c_formed counts the H steps that did. */
void g16__gpu_prover_set_c_from_ab(g16__gpu_prover *gp, int on);
uint64_t g16__gpu_prover_c_formed(const g16__gpu_prover *gp);
uint64_t g16__gpu_prover_w_late_count(const g16__gpu_prover *gp);
/* 1 when every H step from a, b, c on the host forms c on the device while set_c_from_ab is on
 * (the path above, fixed at creation): the caller then needs no c on the host for those steps and
 * may pass c = NULL to g16__gpu_prover_h. c = NULL otherwise (or with set_c_from_ab off) is
 * refused with G16_ERR_ARG before any work. */
int g16__gpu_prover_forms_c(const g16__gpu_prover *gp);

/* Scalars of the a and b queries in the parameters' order (bellman's density filtering):
 * a: w[0 .. num_inputs) then the aux values whose A-density bit is set (returns the count);
 * b: the input values with their B-density bit, then the aux values with theirs. On all threads;
 * (size_t)-1 when the small scratch for the block offsets cannot be allocated. The host
 * reference of the worker's device compaction (tests/test_gpu_prove.c compares the two). */
size_t g16__prove_a_scalars(g16_fr *out, const struct g16_r1cs *r, const g16_fr *w);
size_t g16__prove_b_scalars(g16_fr *out, const struct g16_r1cs *r, const g16_fr *w);

#endif /* G16_GROTH16_PROVE_GPU_H */
