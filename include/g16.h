/*
 * g16 — a Groth16 proving engine for BLS12-381.
 *
 * Public API. Everything here is prefixed g16_ / G16_; internal symbols use g16__.
 *
 * Value types (g16_fp, g16_fr, g16_p1, ...) are plain structs that the caller
 * allocates (on the stack or anywhere); no function keeps a pointer to them.
 *
 * Representations and invariants:
 *   g16_fp      element of GF(p), p the 381-bit BLS12-381 base prime: 6 little-endian
 *               64-bit limbs in Montgomery form (a·2^384 mod p), always fully reduced (< p).
 *   g16_fr      element of GF(r), r the 255-bit group order: 4 little-endian 64-bit
 *               limbs in Montgomery form (a·2^256 mod r), always fully reduced (< r).
 *   g16_fp2     c0 + c1·u with u² = −1.
 *   g16_fp6     c0 + c1·v + c2·v² over Fp2 with v³ = u + 1.
 *   g16_fp12    c0 + c1·w over Fp6 with w² = v.
 *   g16_p1_affine / g16_p2_affine
 *               affine point; the point at infinity is x = y = 0 (never on the curve,
 *               since b ≠ 0, so the encoding is unambiguous).
 *   g16_p1 / g16_p2
 *               Jacobian point (x/z², y/z³); z = 0 is the point at infinity.
 *
 * Errors: functions that can fail return g16_status (G16_OK = 0); g16_strerror
 * gives a fixed English message for every code. The library never aborts.
 */
#ifndef G16_H
#define G16_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define G16_VERSION_STRING "0.1.0"

typedef enum {
    G16_OK = 0,
    G16_ERR_NOMEM,              /* an allocation failed */
    G16_ERR_ARG,                /* invalid argument (NULL, bad size, bad option) */
    G16_ERR_IO,                 /* a read or write of a file failed */
    G16_ERR_INTERNAL,           /* an internal consistency check failed: a bug */
    /* decoding of field elements and points */
    G16_ERR_ENCODING_LENGTH,    /* input has the wrong number of bytes */
    G16_ERR_ENCODING_FLAGS,     /* flag bits are inconsistent with the encoding */
    G16_ERR_INFINITY_NONCANONICAL, /* infinity flag set but other bits non-zero */
    G16_ERR_COORD_RANGE,        /* a coordinate is >= p */
    G16_ERR_NOT_ON_CURVE,       /* the point does not satisfy the curve equation (or x has no y) */
    G16_ERR_NOT_IN_SUBGROUP,    /* the point is on the curve but outside the prime-order subgroup */
    G16_ERR_SCALAR_RANGE,       /* a scalar field element is >= r */
    /* files, circuits, proofs */
    G16_ERR_TRUNCATED,          /* a file or buffer ends before a section it must contain */
    G16_ERR_FORMAT,             /* a file or buffer is malformed (bad magic, version, count, tag) */
    G16_ERR_SIZE_MISMATCH,      /* sizes or counts do not match (witness length, query length, domain) */
    G16_ERR_UNSATISFIED,        /* the witness does not satisfy a constraint */
    G16_ERR_VERIFY_FAILED,      /* a proof did not verify */
    G16_ERR_UNSUPPORTED,        /* valid request this build or machine cannot serve */
    G16_ERR_NO_DEVICE,          /* a GPU was required and none is available */
    G16_ERR_DEVICE,             /* a GPU (CUDA) call failed */
    G16__STATUS_COUNT
} g16_status;

/* Fixed, static message for a status code (never NULL; unknown codes get a generic text). */
const char *g16_strerror(g16_status status);

/* Detail of a failure, filled by functions that take a `g16_error *err` (which may be NULL):
 * the status and one line of text naming what failed and where (section, byte offset,
 * constraint index, CUDA call@file:line). Caller-allocated. */
typedef struct {
    g16_status status;
    char msg[512]; /* (512: a device-memory plan's refusal lists its items) */
} g16_error;

/* Library version, e.g. "0.1.0". */
const char *g16_version(void);

/* ---- value types (see the representation notes above) ---- */
typedef struct { uint64_t l[6]; } g16_fp;
typedef struct { uint64_t l[4]; } g16_fr;
typedef struct { g16_fp c0, c1; } g16_fp2;
typedef struct { g16_fp2 c0, c1, c2; } g16_fp6;
typedef struct { g16_fp6 c0, c1; } g16_fp12;

typedef struct { g16_fp x, y; } g16_p1_affine;
typedef struct { g16_fp x, y, z; } g16_p1;
typedef struct { g16_fp2 x, y; } g16_p2_affine;
typedef struct { g16_fp2 x, y, z; } g16_p2;

/* ---- point encodings (zcash / bellman / blst / @noble/curves format) ----
 * Compressed G1 is 48 bytes, uncompressed 96; G2 is 96 / 192 with each Fp2
 * coordinate written c1 then c0. The first byte carries flags: 0x80 compressed,
 * 0x40 infinity, 0x20 sign of y (compressed only: set when y is the
 * lexicographically larger of ±y).
 *
 * The decoders check lengths, flags, canonical infinity, coordinate range, the
 * curve equation and subgroup membership, each failure with its own status.
 * The _unchecked variants skip only the subgroup check. Outputs are written only
 * on success. */
void g16_p1_affine_compress(uint8_t out[48], const g16_p1_affine *in);
void g16_p1_affine_serialize(uint8_t out[96], const g16_p1_affine *in);
g16_status g16_p1_affine_uncompress(g16_p1_affine *out, const uint8_t in[48]);
g16_status g16_p1_affine_deserialize(g16_p1_affine *out, const uint8_t in[96]);
g16_status g16_p1_affine_uncompress_unchecked(g16_p1_affine *out, const uint8_t in[48]);
g16_status g16_p1_affine_deserialize_unchecked(g16_p1_affine *out, const uint8_t in[96]);

void g16_p2_affine_compress(uint8_t out[96], const g16_p2_affine *in);
void g16_p2_affine_serialize(uint8_t out[192], const g16_p2_affine *in);
g16_status g16_p2_affine_uncompress(g16_p2_affine *out, const uint8_t in[96]);
g16_status g16_p2_affine_deserialize(g16_p2_affine *out, const uint8_t in[192]);
g16_status g16_p2_affine_uncompress_unchecked(g16_p2_affine *out, const uint8_t in[96]);
g16_status g16_p2_affine_deserialize_unchecked(g16_p2_affine *out, const uint8_t in[192]);

/* ---- constraint systems (r1cs) ----
 * A rank-1 constraint system over Fr, built and compiled exactly as bellman/bellperson do it
 * (Filecoin's circuits are bellperson circuits), so that its matrices and densities match the
 * parameter files bellman's setup writes.
 *
 * Variables: g16_var is a handle. Input (public) variable k is the value k; auxiliary (private)
 * variable j is G16_VAR_AUX | j. Input 0 is the constant ONE (G16_VAR_ONE), allocated by
 * g16_cs_create with value 1. Inputs and aux variables may be allocated in any interleaving;
 * each kind is numbered in its own allocation order (at most 2^30 − 1 variables in all).
 *
 * Full witness w (bellman's input_assignment followed by aux_assignment): w[k] = input k for
 * k < num_inputs (w[0] = 1), w[num_inputs + j] = aux j; length num_inputs + num_aux. Column c
 * of the compiled matrices multiplies w[c].
 *
 * Constraints: enforce(a, b, c) states <a,w>·<b,w> = <c,w>. Each linear combination is
 * normalized when enforced, as bellperson's LinearCombination does: terms ordered by column
 * (inputs first), repeated variables merged by adding coefficients, zero coefficients dropped.
 *
 * Finalize (what bellman's prover and generator both do after synthesis): one constraint
 * input_k · 0 = 0 is appended per input k, in input order (A row {(k, 1)}, B and C empty), so
 * every input is in the A query. Rows m = constraints + num_inputs; the evaluation domain is
 * N = the smallest power of two >= m. N > 2^28 (the largest NTT) is refused with
 * G16_ERR_UNSUPPORTED. Every aux variable must occur in some row of A, B or C (bellman's setup
 * refuses unconstrained variables: their L-query point would be infinity); finalize reports the
 * first one that does not with G16_ERR_ARG.
 *
 * Evaluations (bellman's a, b, c vectors): a_i = <A_i, w> for i < m and a_i = 0 for m <= i < N;
 * b and c likewise.
 *
 * Densities (bellman's DensityTracker; an aux or input "occurs" in a matrix when it has a
 * nonzero coefficient in one of its rows after normalization — bellperson skips zero terms):
 *   A query: every input is dense; aux j is dense iff it occurs in A       (a_aux_density)
 *   B query: input k is dense iff it occurs in B                            (b_input_density)
 *            aux j is dense iff it occurs in B                              (b_aux_density)
 *   C has no density (the L query covers every aux, IC every input).
 * So a bellman parameter file for this circuit holds: ic = num_inputs, l = num_aux, h = N − 1,
 * a = num_inputs + |a_aux_density|, b_g1 = b_g2 = |b_input_density| + |b_aux_density| points
 * (bellman's setup drops the A/B points at infinity: exactly the non-dense columns, except with
 * negligible probability over tau). Bitmaps: bit i in word i/64, least significant bit first.
 *
 * Memory of the compiled form: per row 4 bytes in each of A, B, C (12; 8 each past 2^32 words
 * in one matrix); per nonzero entry 4 bytes when its coefficient is 1 or −1 (flagged in the
 * 32-bit column word, no multiplication at evaluation) and 8 otherwise (plus a 32-bit id into a
 * shared coefficient dictionary); 32 bytes per distinct coefficient; 3 bits per variable.
 * Measured (g16_r1cs_info.memory_bytes / m, demo circuits at m = 2^20): "bits" 33.3 bytes per
 * constraint (4.28 entries a row, 77% of them ±1), "field" 34.4 (4.25, 71%); fixed 8-byte
 * entries would take 46.5 and 46.4.
 *
 * Ownership: g16_cs, g16_lc and g16_r1cs are created and destroyed by the functions below
 * (destroy accepts NULL). None is thread-safe while being modified; a g16_r1cs is immutable and
 * may be read from many threads at once. Functions copy values in; none keeps a caller pointer.
 */
typedef uint32_t g16_var;
#define G16_VAR_ONE ((g16_var)0)
#define G16_VAR_AUX ((g16_var)0x80000000u)

typedef struct g16_cs g16_cs;
typedef struct g16_lc g16_lc;
typedef struct g16_r1cs g16_r1cs;

/* g16_cs_create flags */
#define G16_CS_WITNESS 1u /* record a value for every variable (alloc must then give one) */

g16_status g16_cs_create(g16_cs **out, unsigned flags);
void g16_cs_destroy(g16_cs *cs);
/* Allocate a variable. value: required (copied) with G16_CS_WITNESS, ignored without. */
g16_status g16_cs_alloc_input(g16_cs *cs, const g16_fr *value, g16_var *out, g16_error *err);
g16_status g16_cs_alloc_aux(g16_cs *cs, const g16_fr *value, g16_var *out, g16_error *err);
/* The recorded value of v (G16_CS_WITNESS only; G16_ERR_ARG for an unknown variable). */
g16_status g16_cs_value(const g16_cs *cs, g16_var v, g16_fr *out);
/* Adds <a,w>·<b,w> = <c,w>. NULL stands for the empty (zero) combination. The lcs are only read.
 * G16_ERR_ARG for a variable not allocated yet (the cs is then unchanged), G16_ERR_UNSUPPORTED
 * once constraints + inputs exceed 2^28. */
g16_status g16_cs_enforce(g16_cs *cs, const g16_lc *a, const g16_lc *b, const g16_lc *c, g16_error *err);
uint64_t g16_cs_num_inputs(const g16_cs *cs); /* including ONE */
uint64_t g16_cs_num_aux(const g16_cs *cs);
uint64_t g16_cs_num_constraints(const g16_cs *cs); /* enforced so far (no input constraints) */
/* Appends the input constraints and compiles the matrices into a new g16_r1cs (*out, owned by
 * the caller), moving the matrix memory out of cs. Afterwards cs accepts no more alloc, enforce
 * or finalize but still serves g16_cs_value / g16_cs_witness. On a G16_ERR_ARG /
 * G16_ERR_UNSUPPORTED failure cs is unchanged. */
g16_status g16_cs_finalize(g16_cs *cs, g16_r1cs **out, g16_error *err);
/* Copies the full witness (layout above) into w, w_len = num_inputs + num_aux
 * (G16_ERR_SIZE_MISMATCH otherwise; G16_ERR_ARG without G16_CS_WITNESS). */
g16_status g16_cs_witness(const g16_cs *cs, g16_fr *w, size_t w_len, g16_error *err);

/* Linear combinations: an unordered list of (variable, coefficient) terms; normalized at enforce. */
g16_status g16_lc_create(g16_lc **out);
void g16_lc_destroy(g16_lc *lc);
void g16_lc_clear(g16_lc *lc); /* keeps the memory for reuse */
/* lc += coeff·v (coeff NULL means 1). */
g16_status g16_lc_add(g16_lc *lc, g16_var v, const g16_fr *coeff);
/* lc −= coeff·v (coeff NULL means 1). */
g16_status g16_lc_sub(g16_lc *lc, g16_var v, const g16_fr *coeff);
/* lc += scale·other (scale NULL means 1; other may be lc itself). */
g16_status g16_lc_add_lc(g16_lc *lc, const g16_lc *other, const g16_fr *scale);

typedef enum { G16_MATRIX_A = 0, G16_MATRIX_B = 1, G16_MATRIX_C = 2 } g16_matrix;
typedef enum { G16_DENSITY_A_AUX = 0, G16_DENSITY_B_INPUT = 1, G16_DENSITY_B_AUX = 2 } g16_density;

typedef struct {
    uint64_t num_inputs;      /* including ONE */
    uint64_t num_aux;
    uint64_t num_constraints; /* rows m, the input constraints included */
    uint64_t domain_size;     /* N = 2^log_domain_size >= m */
    uint32_t log_domain_size;
    uint64_t nnz[3];          /* nonzero entries of A, B, C */
    uint64_t num_coeffs;      /* distinct coefficients in the dictionary (1 and −1 included) */
    uint64_t density[3];      /* dense counts, indexed by g16_density */
    uint64_t memory_bytes;    /* heap bytes held by the compiled form */
} g16_r1cs_info;

void g16_r1cs_destroy(g16_r1cs *r);
void g16_r1cs_get_info(const g16_r1cs *r, g16_r1cs_info *info);
/* Row `row` of matrix m: up to cap (column, coefficient) pairs in column order into cols/coeffs
 * (either may be NULL when cap is 0); *len = the row's full length. G16_ERR_ARG for a row >= m. */
g16_status g16_r1cs_row(const g16_r1cs *r, g16_matrix m, uint64_t row, uint32_t *cols, g16_fr *coeffs, size_t cap,
                        size_t *len);
/* A density bitmap (owned by r, valid until g16_r1cs_destroy); *nbits its length in bits. */
const uint64_t *g16_r1cs_density(const g16_r1cs *r, g16_density which, uint64_t *nbits);
/* a = A·w, b = B·w, c = C·w, each of n = domain_size elements (rows >= m zero), computed on all
 * threads. Any of a, b, c may be NULL (not computed). w_len must be num_inputs + num_aux and
 * n the domain size (G16_ERR_SIZE_MISMATCH). Time depends only on the circuit, not on w. */
g16_status g16_r1cs_eval(const g16_r1cs *r, const g16_fr *w, size_t w_len, g16_fr *a, g16_fr *b, g16_fr *c,
                         size_t n, g16_error *err);
/* G16_OK when w satisfies every row; G16_ERR_UNSATISFIED naming the first failing row (or
 * w[0] != 1); G16_ERR_SIZE_MISMATCH for a wrong w_len. */
g16_status g16_r1cs_check(const g16_r1cs *r, const g16_fr *w, size_t w_len, g16_error *err);

/* File format "G16R1CS" version 1 (documented in src/r1cs/io.c): header, coefficient dictionary,
 * per matrix the row lengths and the entries, XXH64 checksum. Loading checks everything (counts,
 * lengths, column order and range, coefficients < r and nonzero, input constraints, unconstrained
 * aux, checksum) and reports G16_ERR_TRUNCATED / G16_ERR_FORMAT (G16_ERR_UNSUPPORTED for N >
 * 2^28) with the section name and byte offset in err->msg. A loaded r1cs saves back byte for byte. */
uint64_t g16_r1cs_serialized_size(const g16_r1cs *r);
g16_status g16_r1cs_save(const g16_r1cs *r, const char *path, g16_error *err);
/* buf_len must equal g16_r1cs_serialized_size (G16_ERR_SIZE_MISMATCH). */
g16_status g16_r1cs_save_buffer(const g16_r1cs *r, uint8_t *buf, size_t buf_len, g16_error *err);
g16_status g16_r1cs_load(g16_r1cs **out, const char *path, g16_error *err);
/* Borrows buf for the duration of the call. */
g16_status g16_r1cs_load_buffer(g16_r1cs **out, const uint8_t *buf, size_t buf_len, g16_error *err);

/* Built-in demo circuits with a satisfying witness, deterministic from the seed:
 *   G16_DEMO_BITS: boolean-heavy like Filecoin's SHA-256 gadgets: full field elements decomposed
 *     into 255 bits (b·(1−b) = 0 and a packing row), AND / XOR of 64-bit bit vectors, packed
 *     words; 4 public inputs (packed words). Witness values mostly 0 and 1.
 *   G16_DEMO_FIELD: a chain x' = x·y + c (c from 64 round constants) with linear mixing rows,
 *     full-size field values; 2 public inputs (the start and the end of the chain).
 * The result is an unfinalized cs created with G16_CS_WITNESS (caller destroys it) whose
 * finalized form has exactly num_constraints rows (input constraints included: 2^k gives a full
 * domain of 2^k). num_constraints from 512 to 2^28 (G16_ERR_ARG outside). */
typedef enum { G16_DEMO_BITS = 0, G16_DEMO_FIELD = 1 } g16_demo_kind;
g16_status g16_demo_circuit(g16_cs **out, g16_demo_kind kind, uint64_t num_constraints, uint64_t seed,
                            g16_error *err);

/* ---- Groth16 (bellman / bellperson compatible) ----
 * Parameters (the SRS) in bellman's file layout, all points uncompressed (96 / 192 bytes):
 *   vk:  alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2, u32 BE count + IC points
 *   then h, l, a, b_g1 (G1) and b_g2 (G2), each a u32 BE count followed by its points.
 * For a finalized circuit (see the r1cs section): ic = num_inputs, l = num_aux, h = N − 1,
 * a = num_inputs + |a_aux_density|, b_g1 = b_g2 = |b_input_density| + |b_aux_density|.
 * The verifying-key file is the vk prefix alone. A proof is 192 bytes: A (compressed G1) ‖
 * B (compressed G2) ‖ C (compressed G1).
 *
 * Ownership: g16_params, g16_vk and g16_pvk are created by the functions below and released with
 * their _destroy (NULL accepted). They are immutable after creation and may be shared by threads.
 * g16_params_destroy hands the large point arrays to a background thread (the caller does not
 * wait on the allocator). g16_proof is a caller-allocated value.
 */
typedef struct g16_params g16_params;
typedef struct g16_vk g16_vk;
typedef struct g16_pvk g16_pvk;

typedef struct {
    g16_p1_affine a;
    g16_p2_affine b;
    g16_p1_affine c;
} g16_proof;

#define G16_PROOF_BYTES 192
void g16_proof_write(uint8_t out[G16_PROOF_BYTES], const g16_proof *proof);
/* Decodes with every check (flags, range, curve, subgroup); status names the failing point. */
g16_status g16_proof_read(g16_proof *proof, const uint8_t in[G16_PROOF_BYTES], g16_error *err);

/* Loading flags: G16_PARAMS_UNCHECKED skips the subgroup checks (coordinates, flags and the
 * curve equation are always checked). Points at infinity in h, l, a, b_g1, b_g2 are refused
 * as bellman refuses them. */
#define G16_PARAMS_UNCHECKED 1u

typedef struct {
    uint64_t n_ic, n_h, n_l, n_a, n_b_g1, n_b_g2;
    uint64_t file_bytes; /* size of the serialized parameters */
} g16_params_info;

g16_status g16_params_load(g16_params **out, const char *path, unsigned flags, g16_error *err);
/* Borrows buf for the duration of the call. */
g16_status g16_params_load_buffer(g16_params **out, const uint8_t *buf, size_t len, unsigned flags, g16_error *err);
g16_status g16_params_save(const g16_params *params, const char *path, g16_error *err);
void g16_params_destroy(g16_params *params);
void g16_params_get_info(const g16_params *params, g16_params_info *info);
/* The verifying key inside params (borrowed: valid until g16_params_destroy). */
const g16_vk *g16_params_vk(const g16_params *params);

g16_status g16_vk_load(g16_vk **out, const char *path, g16_error *err);
g16_status g16_vk_load_buffer(g16_vk **out, const uint8_t *buf, size_t len, g16_error *err);
g16_status g16_vk_save(const g16_vk *vk, const char *path, g16_error *err);
/* A standalone copy of a verifying key (e.g. of g16_params_vk). */
g16_status g16_vk_clone(g16_vk **out, const g16_vk *vk);
void g16_vk_destroy(g16_vk *vk);
uint64_t g16_vk_num_inputs(const g16_vk *vk); /* IC points = public inputs + 1 (ONE) */

/* Prepared verifying key: e(alpha, beta) and the line coefficients of −gamma and −delta. */
g16_status g16_pvk_create(g16_pvk **out, const g16_vk *vk, g16_error *err);
void g16_pvk_destroy(g16_pvk *pvk);

/* Setup from random toxic waste (tau, alpha, beta, gamma, delta, all nonzero) drawn from the OS
 * CSPRNG; opts->seed makes it deterministic (tests only: the toxic waste is then known). */
typedef struct {
    int deterministic;
    uint64_t seed;
} g16_setup_opts;
g16_status g16_setup(g16_params **out, const g16_r1cs *r1cs, const g16_setup_opts *opts, g16_error *err);

/* Proving. A batch proves `count` witnesses of the same circuit with one parameter set (Filecoin
 * proves 10 partitions at once). witnesses[i] is a full witness (r1cs layout: ONE, inputs, aux).
 * Each witness is checked against the constraints first (G16_ERR_UNSATISFIED naming the
 * circuit and row) unless G16_PROVE_NO_CHECK, and each proof is verified with the parameters'
 * verifying key before it is returned (G16_ERR_VERIFY_FAILED) unless G16_PROVE_NO_VERIFY.
 * r and s are fresh from the OS CSPRNG unless opts->r / opts->s give `count` fixed values each
 * (tests; GPU-versus-CPU comparisons). Nothing is written to proofs on error. */
#define G16_PROVE_NO_VERIFY 1u
#define G16_PROVE_NO_CHECK 2u
/* Backend: "cpu", "gpu" (G16_ERR_NO_DEVICE when there is none) or "auto" (the GPU when one is
 * present, else the CPU; one line on stderr says which). NULL: the environment variable
 * G16_BACKEND, else "auto". With the same r and s both backends give the same proof bytes.
 * Devices (GPU backend): one worker per listed CUDA device index (after CUDA_VISIBLE_DEVICES),
 * e.g. "0,1"; an index may repeat (two workers sharing a card: each plans its device memory beside
 * the others', room for their MSMs included, so that both run at once); "all" or NULL with G16_DEVICES
 * unset: every visible device. The circuits of a batch go to whichever worker is free; at most
 * `count` workers start. A GPU worker runs the H step and the five MSMs; the parameters' queries
 * stay on its device for the whole batch when they fit (each MSM in pieces when its whole scratch
 * does not fit beside them), else they are streamed to it in chunks for each MSM. With the queries on the device and room beside them, the constraint matrices stay
 * there too and a, b, c and the witness check are computed on the GPU (G16_GPU_SPMV=0: on the
 * CPU); where they do not fit, the first circuit a worker takes in a call still is (its matrices
 * staged for it in the MSMs' scratch memory) and the others on the CPU, overlapped with the GPU work;
 * the backend line on stderr says which. */
typedef struct {
    unsigned flags;
    const g16_fr *r, *s;
    const char *backend;
    const char *devices;
    size_t max_workers; /* 0: one per listed device */
} g16_prove_opts;
g16_status g16_prove(g16_proof *proofs, const g16_params *params, const g16_r1cs *r1cs,
                     const g16_fr *const *witnesses, size_t count, const g16_prove_opts *opts, g16_error *err);

/* A prover kept between batches: g16_prover_create opens the workers once (on a GPU: the CUDA
 * context, the NTT tables, page-locked witness (and, with the SpMV on the CPU, a/b/c; a/b where the
 * device forms c = a·b, until a batch with G16_PROVE_NO_CHECK adds c) buffers, the
 * parameters' queries and the constraint matrices uploaded to the device; ~650 bytes of device
 * memory per constraint at 2^26-2^27), so that later g16_prover_prove calls pay none of it; g16_prove is create + prove +
 * destroy. create reads backend, devices and max_workers from opts (NULL: defaults); prove reads
 * flags, r and s (as g16_prove). The prover borrows params and r1cs: both must outlive it.
 * Calls on one prover are serialized (a second caller waits); provers are independent.
 * A GPU worker's MSMs take their scratch from the device's memory pool and give it back there, so
 * while a prover lives the pool keeps up to the largest MSM's scratch (~270-310 B per constraint)
 * for the next one (g16 counts it as free for its own plans; other processes do not see it).
 * g16_prover_destroy frees the device memory before it returns and hands the large host buffers
 * to the background freeing thread; NULL is a no-op. g16_prover_workers gives the number of workers (1 for the CPU backend).
 * A batch that fails (any status) leaves the prover usable for the next batch. One exception: after
 * G16_ERR_DEVICE from a kernel fault (cudaErrorIllegalAddress, cudaErrorLaunchFailure and the like,
 * named in the message), CUDA has lost that device's context for the whole process: every later
 * call on the device fails the same way, this prover's and a new one's, until the process
 * restarts; destroying the prover is still safe. */
typedef struct g16_prover g16_prover;
g16_status g16_prover_create(g16_prover **out, const g16_params *params, const g16_r1cs *r1cs,
                             const g16_prove_opts *opts, g16_error *err);
g16_status g16_prover_prove(g16_prover *prover, g16_proof *proofs, const g16_fr *const *witnesses, size_t count,
                            const g16_prove_opts *opts, g16_error *err);
size_t g16_prover_workers(const g16_prover *prover);
void g16_prover_destroy(g16_prover *prover);

/* Verification. inputs are the public inputs without the leading ONE: n_inputs = IC points − 1
 * (G16_ERR_SIZE_MISMATCH otherwise). G16_OK or G16_ERR_VERIFY_FAILED. */
g16_status g16_verify(const g16_pvk *pvk, const g16_proof *proof, const g16_fr *inputs, size_t n_inputs,
                      g16_error *err);
/* All proofs at once with a random linear combination (weights from the OS CSPRNG): one final
 * exponentiation and count + 3 Miller loops. G16_OK only when every proof verifies (except with
 * probability ~2^-128); on failure the caller can find the bad one with g16_verify. */
g16_status g16_verify_batch(const g16_pvk *pvk, const g16_proof *proofs, const g16_fr *const *inputs,
                            size_t n_inputs, size_t count, g16_error *err);


#ifdef __cplusplus
}
#endif
#endif /* G16_H */
