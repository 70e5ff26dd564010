/*
 * Constraint systems: internal representation shared by cs.c (building), eval.c (A·w, B·w, C·w
 * and the witness check), io.c (the file format), demo.c (built-in circuits) and, later, the
 * groth16 layer (setup transposes the CSR matrices; the prover reads the density bitmaps).
 * The public contract and the bellman rules it follows are in include/g16.h, section
 * "constraint systems (r1cs)".
 *
 * Compiled form (g16_r1cs), immutable once built:
 *   - columns: c < num_inputs is input c (c = 0 the constant ONE), c = num_inputs + j is aux j;
 *     the full witness w is indexed by column. num_inputs + num_aux <= 2^30 − 1.
 *   - rows: num_constraints = the circuit's constraints followed by one input constraint per input
 *     (row num_constraints - num_inputs + k is input_k · 0 = 0: A row {(k, 1)}, B and C empty).
 *   - each matrix in CSR form over 32-bit words: row i is w[rp(i) .. rp(i+1)), a sequence of
 *     entries in strictly increasing column order, none with a zero coefficient. An entry is one
 *     word, column in bits 0..29 and its coefficient kind in bits 30..31: 0 = coefficient 1,
 *     1 = coefficient −1, 2 = the next word is a coefficient id (3 never occurs). 77% of the
 *     entries of the "bits" demo and 71% of the "field" demo are ±1, so this costs 4.9 and 5.2
 *     bytes per entry where fixed (column, id) pairs would cost 8.
 *   - rp holds word offsets: 32-bit when the matrix has at most UINT32_MAX words (4 bytes a row
 *     instead of 8), else 64-bit; exactly one of rp32/rp64 is set.
 *   - coefficient ids index a dictionary coeffs[] shared by A, B, C: id 0 is 1, id 1 is −1,
 *     others any nonzero value (real circuits repeat few distinct coefficients: powers of two for
 *     bit packing, round constants).
 *   - density bitmaps (see g16.h): bit i of word i/64, LSB first, unused high bits zero.
 *   - every aux column appears in at least one matrix (bellman's setup needs it).
 *
 * Building form (g16_cs): per matrix 64-bit row pointers and fixed pairs of uint32 (raw g16_var
 * handle with the aux bit, coefficient id), because num_inputs is known only at finalize.
 * Sorting by handle sorts inputs before aux, so the remap to columns keeps the order; finalize
 * packs the pairs into words in place (a packed entry never needs more room than its pair).
 */
#ifndef G16_R1CS_R1CS_H
#define G16_R1CS_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"

#define G16__R1CS_MAX_LOG_N 28 /* the largest NTT domain (poly layer) */
#define G16__CID_ONE 0u
#define G16__CID_MINUS_ONE 1u

#define G16__W_COL 0x3FFFFFFFu   /* column bits of a packed entry word */
#define G16__W_MINUS 0x40000000u /* kind 1: coefficient −1 */
#define G16__W_ID 0x80000000u    /* kind 2: coefficient id in the next word */
#define G16__R1CS_MAX_VARS ((uint64_t)G16__W_COL) /* num_inputs + num_aux <= 2^30 − 1 */

typedef struct {
    uint64_t nnz;    /* entries */
    uint64_t nwords; /* nnz + the entries with a coefficient id */
    uint32_t *rp32;  /* num_constraints + 1 word offsets, when nwords <= UINT32_MAX */
    uint64_t *rp64;  /* otherwise */
    uint32_t *w;
} g16__csr;

static inline uint64_t g16__csr_rp(const g16__csr *m, uint64_t i) { return m->rp32 ? m->rp32[i] : m->rp64[i]; }

/* The entry at word *k of m: returns its column, sets *cid, advances *k past it (1 or 2 words).
 * Code outside src/r1cs walks rows only this way, never decoding w[] itself:
 *     for (uint64_t k = g16__csr_rp(m, i), end = g16__csr_rp(m, i + 1); k < end;) {
 *         uint32_t cid, col = g16__csr_next(m, &k, &cid); ...
 *     } */
static inline uint32_t g16__csr_next(const g16__csr *m, uint64_t *k, uint32_t *cid)
{
    const uint32_t *w = m->w;
    uint32_t x = w[(*k)++];
    uint32_t kind = x >> 30;
    *cid = kind == 2 ? w[(*k)++] : kind;
    return x & G16__W_COL;
}

/* Packs (col, cid) at w[*k], advancing *k by 1 or 2 words. */
static inline void g16__csr_put(uint32_t *w, uint64_t *k, uint32_t col, uint32_t cid)
{
    if (cid <= G16__CID_MINUS_ONE) {
        w[(*k)++] = col | (cid << 30);
    } else {
        w[(*k)++] = col | G16__W_ID;
        w[(*k)++] = cid;
    }
}

enum { G16__DENS_A_AUX = 0, G16__DENS_B_INPUT = 1, G16__DENS_B_AUX = 2 };

struct g16_r1cs {
    uint64_t num_inputs, num_aux, num_constraints; /* num_constraints counts the input constraints */
    uint64_t n;                                    /* domain size, 2^log_n >= num_constraints */
    unsigned log_n;
    uint64_t num_coeffs;
    g16_fr *coeffs; /* num_coeffs entries, [0] = 1, [1] = −1, none zero */
    g16__csr mat[3]; /* A, B, C */
    uint64_t *density[3]; /* indexed by G16__DENS_*; sized in bits num_aux, num_inputs, num_aux */
    uint64_t density_count[3];
};

typedef struct {
    g16_var var;
    g16_fr coeff;
} g16__term;

struct g16_lc {
    g16__term *t;
    size_t len, cap;
};

/* Building matrix: 64-bit row pointers (constraints + 1 of them, in entries), entries as pairs
 * e[2i] = g16_var handle, e[2i + 1] = coefficient id. */
typedef struct {
    uint64_t *rp;
    uint32_t *e;
    uint64_t nnz, e_cap; /* e_cap in entries */
} g16__cs_mat;

struct g16_cs {
    unsigned flags;
    int finalized;         /* no more alloc / enforce / finalize */
    unsigned max_log_n;    /* G16__R1CS_MAX_LOG_N; lowered only by tests */
    uint64_t num_inputs, num_aux, num_constraints;
    uint64_t rp_cap;       /* capacity of each mat[].rp, in row pointers */
    g16__cs_mat mat[3];
    g16_fr *in_val, *aux_val; /* with G16_CS_WITNESS only */
    uint64_t in_cap, aux_cap;
    g16_fr *coeffs;        /* dictionary, ids as in the compiled form */
    uint64_t num_coeffs, coeffs_cap;
    uint32_t *hash;        /* open addressing over coeffs (ids >= 2); 0 = empty slot */
    uint64_t hash_cap;     /* power of two, load <= 1/2 */
    g16__term *scratch;    /* normalized a, b, c of the constraint being enforced */
    uint32_t *scratch_cid;
    size_t scratch_cap;
};

/* Domain size for m rows: n = 2^log_n, the smallest power of two >= max(m, 1). Returns 0, or −1
 * when log_n would exceed max_log_n. */
int g16__r1cs_domain(uint64_t m, unsigned max_log_n, uint64_t *n, unsigned *log_n);

/* Words of a bitmap of nbits bits. */
static inline uint64_t g16__bitmap_words(uint64_t nbits) { return (nbits + 63) / 64; }

/* Density of the compiled matrices: sets r->density (bitmaps zeroed, sized as in struct
 * g16_r1cs) and r->density_count. used: a zeroed scratch bitmap of num_aux bits. Returns the
 * first aux index that occurs in no matrix, or UINT64_MAX when every aux occurs. */
uint64_t g16__r1cs_scan_density(struct g16_r1cs *r, uint64_t *used);

/* Allocates r->density (three zeroed bitmaps; num_inputs and num_aux must be set). */
g16_status g16__r1cs_alloc_density(struct g16_r1cs *r);

/* g16_r1cs_check's verdict (same statuses and messages) from rows already evaluated:
 * a, b, c = A·w, B·w, C·w as g16_r1cs_eval gives them (at least num_constraints elements each),
 * so each row costs one product, not three sparse dot products. The prover evaluates every row
 * anyway; checking its result tests the same equations (a_i·b_i = c_i for every row i, and w[0]
 * = 1) at a fraction of the cost. c may be NULL: each c_i is then computed from C and w as the
 * row is checked (a GPU worker whose device forms c as a·b keeps no c on the host; the rows must
 * hold all the same). */
g16_status g16__r1cs_check_evals(const struct g16_r1cs *r, const g16_fr *w, size_t w_len, const g16_fr *a,
                                 const g16_fr *b, const g16_fr *c, g16_error *err);

/* The two halves of that check for a caller that tests the rows elsewhere (the GPU worker, on the
 * device): the witness's length and w[0] = 1; and the verdict for the first failing row `bad`
 * (UINT64_MAX: none), with g16_r1cs_check's status and message. */
g16_status g16__r1cs_check_witness(const struct g16_r1cs *r, const g16_fr *w, size_t w_len, g16_error *err);
g16_status g16__r1cs_row_verdict(const struct g16_r1cs *r, uint64_t bad, g16_error *err);

/* Heap bytes of a compiled form. */
uint64_t g16__r1cs_memory(const struct g16_r1cs *r);

/* Tests only: lowers the domain limit of a cs (to exercise the 2^28 refusal cheaply). */
void g16__cs_set_max_log_n(g16_cs *cs, unsigned max_log_n);

#endif /* G16_R1CS_R1CS_H */
