/*
 * The GPU backend: the C interface to the CUDA code in src/gpu (the .cu files), or to the stub that a
 * build without CUDA compiles instead, src/gpu/gpu_stub.c).
 *
 * Representation: field elements on the device have exactly the host layout and bits of g16_fr
 * and g16_fp (Montgomery form with R = 2^256 / 2^384, fully reduced); the CUDA code reads them
 * as 8 / 12 little-endian 32-bit limbs, which on a little-endian host is the same memory as the
 * 4 / 6 64-bit limbs. A `g16_fr *` documented as a device pointer points into device memory and
 * must not be dereferenced on the host.
 *
 * Contexts: a g16__gpu is one device and one CUDA stream. Everything enqueued through one
 * context runs in order on its stream. A context is used by one thread at a time (several
 * contexts, one per thread or per device, may run at once). Functions that take device pointers
 * only enqueue work (they check the launch and return); results are ready after g16__gpu_sync.
 * Functions that take host arrays copy, compute and synchronize before returning.
 *
 * Errors: every function that can fail returns g16_status and fills the optional g16_error with
 * the detail. A failing CUDA call gives G16_ERR_DEVICE with "call@file:line: cudaErrorName
 * (text)"; no device (no GPU, no driver, or a build without CUDA) gives G16_ERR_NO_DEVICE; a
 * memory plan that does not fit gives G16_ERR_NOMEM with the needed and free bytes. Nothing here
 * aborts. After an error in a kernel (G16_ERR_DEVICE from g16__gpu_sync) the CUDA context may be
 * unusable: close the g16__gpu and open a new one.
 *
 * Where the next parts plug in (the MSM, the prover): they take a g16__gpu, plan their memory
 * with g16__gpu_plan_*, allocate with g16__gpu_alloc, enqueue kernels on the context's stream
 * (src/gpu/gpu_internal.cuh: g16__gpu_stream, G16_CU / G16_CU_LAUNCH), and add their entry
 * points here and a G16_ERR_NO_DEVICE version of each to gpu_stub.c. The CUDA field arithmetic
 * is in src/gpu/field.cuh (Fr and Fp, host-testable).
 */
#ifndef G16_GPU_GPU_H
#define G16_GPU_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- devices and contexts */

/* 1 when this build has the CUDA backend compiled in, 0 for the stub. */
int g16__gpu_compiled(void);

/* Number of CUDA devices usable by this process (respects CUDA_VISIBLE_DEVICES); 0 when there
 * is none, no driver, or no CUDA backend. Never fails. */
int g16__gpu_device_count(void);

typedef struct g16__gpu g16__gpu;

typedef struct {
    int device;              /* the index passed to g16__gpu_open */
    char name[256];          /* e.g. "NVIDIA H200" */
    int cc_major, cc_minor;  /* compute capability */
    int sm_count;            /* multiprocessors */
    int clock_khz;           /* SM clock (0 when the runtime does not report it) */
    size_t total_bytes;      /* device memory */
    size_t l2_bytes;
    size_t smem_block_optin; /* shared memory a block may use after opting in */
} g16__gpu_info;

/* Opens device `device` (0 .. count-1) with a new stream and checks that this build's kernels
 * run on it. *out is NULL on failure. G16_ERR_NO_DEVICE when there is no such device.
 * G16_GPU_MEM_LIMIT=<bytes>[K|M|G] (read here; G16_ERR_ARG when malformed) makes the context see
 * a card of that many bytes: g16__gpu_mem_info reports it as the total and the free memory as the
 * limit less what is in use on the device, and allocations beyond that free memory are refused
 * (G16_ERR_NOMEM), as on the smaller card. For tests and measurements of the plans that smaller
 * cards take (e.g. an 80 GB card's on the H200). */
g16_status g16__gpu_open(g16__gpu **out, int device, g16_error *err);
/* Waits for the stream, frees the context's own resources. NULL is a no-op. Device buffers
 * allocated through the context must have been freed before. */
void g16__gpu_close(g16__gpu *g);
void g16__gpu_get_info(const g16__gpu *g, g16__gpu_info *info);

/* Waits for everything enqueued on the context's stream and its side stream; reports a kernel
 * failure. _main waits for the stream alone (a side-stream copy, e.g. a prefetch issued from
 * another thread, may still run: a span around kernels then times the kernels only). */
g16_status g16__gpu_sync(g16__gpu *g, g16_error *err);
g16_status g16__gpu_sync_main(g16__gpu *g, g16_error *err);

/* Events around enqueued work: start records now; stop records, waits, and gives the milliseconds
 * between the two on the device (for benchmarks). */
g16_status g16__gpu_timer_start(g16__gpu *g, g16_error *err);
g16_status g16__gpu_timer_stop(g16__gpu *g, double *ms, g16_error *err);

/* ---------------------------------------------------------------- memory */

/* Free and total device memory; free includes the scratch pool's idle bytes (which an allocation
 * gets back, see g16__gpu_scratch_alloc). */
g16_status g16__gpu_mem_info(g16__gpu *g, size_t *free_bytes, size_t *total_bytes, g16_error *err);

/* A memory plan: the device buffers a piece of work needs, computed before any allocation so
 * that a card that is too small gives one clear error instead of a failure half-way. */
#define G16__GPU_PLAN_MAX 16
typedef struct {
    size_t n;
    struct {
        const char *what; /* static text, e.g. "vectors a, b, c" */
        size_t bytes;
    } item[G16__GPU_PLAN_MAX];
} g16__gpu_plan;

void g16__gpu_plan_init(g16__gpu_plan *p);
/* Adds an item (items past G16__GPU_PLAN_MAX are merged into the last one). */
void g16__gpu_plan_add(g16__gpu_plan *p, const char *what, size_t bytes);
size_t g16__gpu_plan_total(const g16__gpu_plan *p);
/* Writes "X MiB (what A MiB + what B MiB ...)" into buf (always NUL-terminated). */
void g16__gpu_plan_format(const g16__gpu_plan *p, char *buf, size_t len);
/* G16_OK when the plan fits in free device memory less a reserve (G16__GPU_RESERVE bytes, for
 * the CUDA runtime and fragmentation); otherwise G16_ERR_NOMEM stating needed and free bytes. */
#define G16__GPU_RESERVE ((size_t)256 << 20)
g16_status g16__gpu_plan_check(g16__gpu *g, const g16__gpu_plan *p, g16_error *err);

/* Device buffers (cudaMalloc; aligned to at least 256 bytes). `what` names the buffer in errors;
 * no memory gives G16_ERR_NOMEM (after the scratch pool's idle memory was given back). */
g16_status g16__gpu_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err);
void g16__gpu_free(g16__gpu *g, void *dev); /* NULL is a no-op; waits for the device first */
/* Scratch buffers, stream-ordered on the context's stream (cudaMallocFromPoolAsync from the
 * device's pool, shared by its contexts; plain cudaMalloc / cudaFree on a device without memory
 * pools): usable by work enqueued on the stream after the call;
 * g16__gpu_scratch_free returns at once and the memory goes back to the pool when the stream gets
 * there, for the next scratch allocation to take without the driver. For buffers that come and go
 * with each run (the MSM's); g16__gpu_mem_info counts the pool's idle bytes as free. */
g16_status g16__gpu_scratch_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err);
void g16__gpu_scratch_free(g16__gpu *g, void *dev); /* NULL is a no-op; never waits */
/* Page-locked host memory (fast, asynchronous copies). */
g16_status g16__gpu_host_alloc(void **host, size_t bytes, g16_error *err);
void g16__gpu_host_free(void *host);
/* Page-locks existing host memory [host, host + bytes) for the device's DMA (cudaHostRegister,
 * read-only: copies from it run at the bus's speed and asynchronously, where pageable memory is
 * staged through the driver). The range is widened to whole pages, so it must be the only user
 * of its first and last pages (a large malloc or mmap is). *token := the address to pass to
 * g16__gpu_host_unregister (NULL for bytes = 0). An error leaves nothing registered. */
g16_status g16__gpu_host_register(void **token, const void *host, size_t bytes, g16_error *err);
void g16__gpu_host_unregister(void *token); /* NULL is a no-op */
/* Copies enqueued on the stream (asynchronous for page-locked host memory). */
g16_status g16__gpu_upload(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err);
g16_status g16__gpu_download(g16__gpu *g, void *host, const void *dev, size_t bytes, g16_error *err);
/* An upload on the context's side stream, so that it overlaps the kernels already enqueued on the
 * main stream (from page-locked memory it returns at once; from pageable memory the host waits
 * for the copy, the kernels run meanwhile). Work enqueued on the main stream afterwards waits for
 * the copy; g16__gpu_sync waits for both streams. */
g16_status g16__gpu_upload_side(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err);
/* The same upload on the side stream, but the main stream does not wait for it: the caller orders
 * it with an event (below) before anything reads dev, and keeps host unchanged (and allocated)
 * until then. For copies that overlap work on the main stream which does not touch dev. */
g16_status g16__gpu_upload_side_nowait(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err);
/* Device-to-device copy, enqueued on the stream. */
g16_status g16__gpu_copy(g16__gpu *g, void *dst, const void *src, size_t bytes, g16_error *err);

/* A mark in a context's side stream: g16__gpu_event_record_side places it after the work enqueued
 * there so far; g16__gpu_event_sync makes the host wait until that work is done (at once when the
 * event was never recorded). An event belongs to one context; destroy it before closing the
 * context (NULL is a no-op). */
typedef struct g16__gpu_event g16__gpu_event;

g16_status g16__gpu_event_create(g16__gpu_event **out, g16__gpu *g, g16_error *err);
void g16__gpu_event_destroy(g16__gpu_event *e);
g16_status g16__gpu_event_record_side(g16__gpu_event *e, g16_error *err);
g16_status g16__gpu_event_sync(g16__gpu_event *e, g16_error *err);
/* Timestamps, for profiles of work that overlaps (what each stream did between two marks): an
 * event of _create_timed may also be recorded on the main stream (_record_main); once both are
 * done (after a sync), g16__gpu_event_ms gives the device time from one to the other in ms
 * (negative when `to` came first). Events of g16__gpu_event_create are not timed (their _ms is an
 * error). */
g16_status g16__gpu_event_create_timed(g16__gpu_event **out, g16__gpu *g, g16_error *err);
g16_status g16__gpu_event_record_main(g16__gpu_event *e, g16_error *err);
g16_status g16__gpu_event_ms(const g16__gpu_event *from, const g16__gpu_event *to, float *ms, g16_error *err);

/* ---------------------------------------------------------------- density compaction */

/* Gathers the elements of a device vector whose bit is set in a device bitmap (the prover's a and
 * b query scalars, filtered by the circuit's density bitmaps as bellman does): out[0..k) = src[i]
 * for the set bits i < n of bits, in increasing i; k = the number of those bits (bits at n and
 * above are ignored). A compactor holds the scratch for vectors of up to max_n elements
 * (g16__gpu_compactor_bytes(max_n) device bytes: 8 B per 64 elements and CUB's scan scratch) and
 * belongs to one context. g16__gpu_compact enqueues on the context's stream and reads k back, so
 * it returns synchronized; out must not overlap src; both are device vectors of g16_fr.
 * G16_ERR_SIZE_MISMATCH when n > max_n; max_n < 2^32 − 64 (G16_ERR_UNSUPPORTED). */
typedef struct g16__gpu_compactor g16__gpu_compactor;

size_t g16__gpu_compactor_bytes(size_t max_n);
g16_status g16__gpu_compactor_create(g16__gpu_compactor **out, g16__gpu *g, size_t max_n, g16_error *err);
void g16__gpu_compactor_destroy(g16__gpu_compactor *c); /* NULL is a no-op */
g16_status g16__gpu_compact(g16__gpu_compactor *c, g16_fr *out, const g16_fr *src, size_t n, const uint64_t *bits,
                            size_t *count, g16_error *err);

/* ---------------------------------------------------------------- field arithmetic */

typedef enum {
    G16__GPU_OP_MUL = 0, /* out = a·b */
    G16__GPU_OP_SQR,     /* out = a² (Fp: the dedicated squaring, gfp_sqr_cols) */
    G16__GPU_OP_ADD,     /* out = a + b */
    G16__GPU_OP_SUB,     /* out = a − b */
    G16__GPU_OP_NEG,     /* out = −a */
    G16__GPU_OP_INV,     /* out = a^(-1), 0 -> 0 (variable time, gpu/field_inv.cuh) */
    G16__GPU_OP_MUL_F64, /* out = a·b through the FP64-pipe product (gpu/field_f64.cuh) */
    G16__GPU_OP_COUNT
} g16__gpu_op;

/* Element-wise op on host arrays of n elements (b unused by SQR, NEG and INV; out may alias a or b):
 * copies to the device, runs one kernel, copies back. For tests: checks the CUDA arithmetic
 * against the CPU element for element. */
g16_status g16__gpu_fr_op(g16__gpu *g, g16__gpu_op op, g16_fr *out, const g16_fr *a, const g16_fr *b, size_t n,
                          g16_error *err);
g16_status g16__gpu_fp_op(g16__gpu *g, g16__gpu_op op, g16_fp *out, const g16_fp *a, const g16_fp *b, size_t n,
                          g16_error *err);

/* The witness check's rows on the device: enqueues, on the context's stream, *first_bad (device
 * memory) := the lowest i < rows with a[i]·b[i] != c[i] (a, b, c device vectors in Montgomery
 * form, reduced), or UINT64_MAX when there is none. One product per row, one atomic per warp
 * that finds a failing row. */
g16_status g16__gpu_check_products(g16__gpu *g, const g16_fr *a, const g16_fr *b, const g16_fr *c, uint64_t rows,
                                   uint64_t *first_bad, g16_error *err);

/* A sparse matrix times the witness on the device (the prover's A·w, B·w, C·w when the matrices
 * are resident, prove_gpu.h). The matrix is in the packed CSR form of r1cs.h, restated so that this
 * layer does not depend on it: row i's entries are the 32-bit words words[rp[i] .. rp[i + 1]); an
 * entry is one word, its column in bits 0..29 and its kind in bits 30..31: 0 coefficient 1,
 * 1 coefficient −1, 2 the next word is an index into coeffs. Exactly one of rp32 / rp64 is given
 * (rows + 1 offsets). Enqueues, on the context's stream, out[i] = the row's sum of coeff·w[col] for
 * i < rows and out[i] = 0 for rows <= i < n_out. Everything is device memory, Montgomery form,
 * reduced: out has the CPU's g16_r1cs_eval bytes. Columns and ids are trusted (a compiled r1cs
 * keeps them in range of w and coeffs); the ids must be below 2^31 (rows of more than 16 words are
 * summed by a whole warp, whose lanes find the entries' first words by that bit). */
g16_status g16__gpu_spmv(g16__gpu *g, g16_fr *out, uint64_t n_out, uint64_t rows, const uint32_t *rp32,
                         const uint64_t *rp64, const uint32_t *words, const g16_fr *coeffs, const g16_fr *w,
                         g16_error *err);

/* Multiplication throughput: every thread of a full grid runs chains of dependent
 * multiplications x <- x·y on its own values. field 0 = Fr, 1 = Fp, 2 = Fr through the generic
 * reduction; 3 = Fr, 4 = Fp inversion chains x <- x^(-1) + y; 5 = Fp, 6 = Fr through the FP64-pipe
 * products (gpu/field_f64.cuh; converted in and out around the chains: the same results as 1, 0). *per_s = multiplications (or
 * inversions) per second over the kernel (device events). *check = the XOR of every result limb (for a
 * host-side replay of a few chains by the caller, see bench_gpu_ntt.c). */
g16_status g16__gpu_mul_bench(g16__gpu *g, int field, unsigned iters, double *per_s, uint32_t *check,
                              g16_error *err);

/* ---------------------------------------------------------------- NTT over Fr */

/* A domain of size n = 2^log_n on the device: the same roots, coset shift and results as
 * g16__ntt_domain (poly/ntt.h), whose parameters it takes: ω = root_generator^((r-1)/n), coset
 * g·<ω> with g = coset_shift (NULL: the root generator). 0 <= log_n <= 28. The tables live on the
 * device (g16__gpu_ntt_table_bytes: 4.1 MiB at 2^16, 32 MiB at 2^19, 35 MiB at 2^27, 36 MiB at
 * 2^28; the CPU domain's twiddle table would be 16·n bytes, 2 GiB at 2^27). */
typedef struct g16__gpu_ntt g16__gpu_ntt;

typedef enum {
    G16__GPU_NTT_FORWARD = 0, /* as g16__ntt_forward */
    G16__GPU_NTT_INVERSE,     /* as g16__ntt_inverse */
    G16__GPU_NTT_COSET_FORWARD,
    G16__GPU_NTT_COSET_INVERSE,
    G16__GPU_NTT_KIND_COUNT
} g16__gpu_ntt_kind;

/* Device bytes of the tables of a domain of size 2^log_n (for memory plans). */
size_t g16__gpu_ntt_table_bytes(unsigned log_n);
/* Builds the tables (on the host, with the CPU field) and uploads them. Errors as
 * g16__ntt_domain_create (G16_ERR_ARG for a bad generator or size) plus device errors. */
g16_status g16__gpu_ntt_create(g16__gpu_ntt **out, g16__gpu *g, unsigned log_n, const g16_fr *root_generator,
                               const g16_fr *coset_shift, g16_error *err);
void g16__gpu_ntt_destroy(g16__gpu_ntt *d); /* NULL is a no-op */
unsigned g16__gpu_ntt_log_n(const g16__gpu_ntt *d);

/* Threads per block of the pass kernel (32..512, a multiple of 32; default 256 below 2^19, 128
 * from 2^19, see ntt.cu): a tuning knob for benchmarks. G16_ERR_ARG otherwise. */
g16_status g16__gpu_ntt_set_threads(g16__gpu_ntt *d, unsigned threads);
/* Stages per shared-memory round trip: 1, 2 (pairs) or 3 (triples); a tuning knob for
 * benchmarks. G16_ERR_ARG otherwise. */
g16_status g16__gpu_ntt_set_radix(g16__gpu_ntt *d, unsigned stages);
/* The same for the Groth16 H step's fused DIF+DIT pass (0: as the others; default 1). Only radices
 * whose kernel has the main variant's elements per block; G16_ERR_ARG otherwise. Reset by
 * set_threads / set_radix when the new variant has no such kernel. */
g16_status g16__gpu_ntt_set_radix_fused(g16__gpu_ntt *d, unsigned stages);
/* Warp-uniform twiddles in the early stages with swizzled shared memory (1, the default) or the
 * plain order (0); a tuning knob for benchmarks (ntt_core.cuh, ntt_group_pos). */
void g16__gpu_ntt_set_uniform(g16__gpu_ntt *d, int on);

/* In-place transforms of `count` device vectors x[0..count-1] of n elements each (natural order
 * in and out, as the CPU). Enqueued only: g16__gpu_sync before reading. The vectors must not
 * overlap and must be 16-byte aligned (cudaMalloc / g16__gpu_alloc give 256). */
g16_status g16__gpu_ntt_device(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                               g16_error *err);
/* The Groth16 quotient on device vectors, the same function as g16__ntt_groth16_h (six transforms,
 * poly/ntt.h): on return (after sync) a holds H; b and c hold scratch. Enqueued only. */
g16_status g16__gpu_ntt_groth16_h_device(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c, g16_error *err);
/* The same in two steps, for a card that cannot hold three vectors or a c still crossing PCIe:
 * g16__gpu_ntt_h_ab takes a and b as far as they go without c (a·b's coset values through the
 * coset inverse, in a; b then holds scratch: c may be written there, after the launches in stream
 * order); g16__gpu_ntt_h_c then leaves H in a (c holds scratch). The result is bit for bit
 * g16__gpu_ntt_groth16_h_device's. Enqueued only. */
g16_status g16__gpu_ntt_h_ab(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err);
g16_status g16__gpu_ntt_h_c(g16__gpu_ntt *d, g16_fr *a, g16_fr *c, g16_error *err);
/* g16__gpu_ntt_h_ab one input at a time, so that an input's transforms overlap the next input's
 * copy: g16__gpu_ntt_h_in takes a to coset evaluations (in place), g16__gpu_ntt_h_mul takes b's,
 * folds them into a and leaves a as g16__gpu_ntt_h_ab does (b then free for c and
 * g16__gpu_ntt_h_c). Bit for bit the batched functions' results. Enqueued only. */
g16_status g16__gpu_ntt_h_in(g16__gpu_ntt *d, g16_fr *x, g16_error *err);
g16_status g16__gpu_ntt_h_mul(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err);
/* The same with c formed on the device from the inputs, for a c known to be a·b pointwise (a
 * satisfied R1CS: c_i = a_i·b_i on every row; the caller checks the rows before the result counts):
 * g16__gpu_ntt_h_in_keep copies a into keep before a's transforms, g16__gpu_ntt_h_mul_keep
 * multiplies b into keep before b's; then g16__gpu_ntt_h_c(d, a, keep) leaves H in a with no copy
 * of c at all. For any other c the H is that of c = a·b. Enqueued only. */
g16_status g16__gpu_ntt_h_in_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *keep, g16_error *err);
g16_status g16__gpu_ntt_h_mul_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *keep, g16_error *err);

/* Benchmark hook: runs the launches of `kind` on device vector x (G16__GPU_NTT_KIND_COUNT: the H
 * step on x, b, c) with an event after each, synchronizes, and writes up to `cap` launches' times
 * in ms and one-line descriptions ("pass dif s=9 lo_bit=18 blocks=..."); *count = launches. */
g16_status g16__gpu_ntt_profile(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *x, g16_fr *b, g16_fr *c,
                                double *ms, char (*what)[64], size_t cap, size_t *count, g16_error *err);

/* Host-array versions: plan the device memory (G16_ERR_NOMEM when it does not fit), copy in,
 * transform, copy out, free. Synchronous. */
g16_status g16__gpu_ntt_host(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                             g16_error *err);
g16_status g16__gpu_ntt_groth16_h_host(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c, g16_error *err);

#ifdef __cplusplus
}
#endif
#endif /* G16_GPU_GPU_H */
