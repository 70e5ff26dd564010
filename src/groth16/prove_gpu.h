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
 * H stays on the device for msm.h), the witness (32 B per variable: uploaded once per proof, the
 * l query's scalars, and the source of the a and b queries' scalars, which are compacted on the
 * device into the H step's b and c once H is computed), the density bitmaps, and uploads the h, l, a, b_g1 and b_g2 queries once (96 B per
 * G1 point, 192 B per G2 point) when they fit beside them with an MSM's scratch; otherwise
 * ("streaming") each MSM uploads its query in chunks sized to half the free memory (G16_GPU_CHUNK=N
 * points overrides, G16_GPU_STREAM=1 forces streaming; both for tests), runs each chunk and sums
 * the parts on the host, so a card smaller than the parameters still proves (slower: the queries
 * cross PCIe once per proof, not overlapped with the work yet). g16__gpu_prover_resident reports
 * the mode. An MSM's scratch memory is freed when the MSM returns. Too little memory even for the
 * H step's vectors and one chunk: G16_ERR_NOMEM stating needed and free bytes.
 *
 * Ownership: the prover borrows params and r1cs (they must outlive it) and owns its device state.
 * One thread at a time per prover; provers on different devices (or the same device) may run at
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

/* 1 when the five queries are resident on the device, 0 in streaming mode. */
int g16__gpu_prover_resident(const g16__gpu_prover *gp);
/* One line for the backend notice: "gpu 0 (NVIDIA H200), queries resident". */
void g16__gpu_prover_describe(const g16__gpu_prover *gp, char *buf, size_t len);

/* The H step from host vectors a, b, c of r->n elements (as g16__ntt_groth16_h): copied to the
 * worker's device vectors and transformed there; H stays on the device for the next
 * g16__gpu_prover_msms (the host vectors are only read). w, when not NULL, is the witness that
 * the next g16__gpu_prover_msms will be given: it is uploaded while the NTTs run (span
 * gpu.upload_witness inside the H step). g16__gpu_prover_h_download copies that H to the host
 * (r->n elements; for tests). */
g16_status g16__gpu_prover_h(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                             const g16_fr *w, g16_error *err);
g16_status g16__gpu_prover_h_download(g16__gpu_prover *gp, g16_fr *h, g16_error *err);

/* The five MSMs of one proof, after g16__gpu_prover_h: witness w (num_inputs + num_aux values,
 * host memory, uploaded once: by the H step when it was given the same w, else here, span
 * gpu.upload_witness); the h query's scalars are the H on the
 * device (consumed: the next call needs a new H step); the a and b queries' scalars are compacted
 * on the device (spans gpu.compact_a, gpu.compact_b). Each MSM is a trace span (msm.h.gpu, ...). */
g16_status g16__gpu_prover_msms(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16_error *err);

/* Scalars of the a and b queries in the parameters' order (bellman's density filtering):
 * a: w[0 .. num_inputs) then the aux values whose A-density bit is set (returns the count);
 * b: the input values with their B-density bit, then the aux values with theirs. On all threads;
 * (size_t)-1 when the small scratch for the block offsets cannot be allocated. The host
 * reference of the worker's device compaction (tests/test_gpu_prove.c compares the two). */
size_t g16__prove_a_scalars(g16_fr *out, const struct g16_r1cs *r, const g16_fr *w);
size_t g16__prove_b_scalars(g16_fr *out, const struct g16_r1cs *r, const g16_fr *w);

#endif /* G16_GROTH16_PROVE_GPU_H */
