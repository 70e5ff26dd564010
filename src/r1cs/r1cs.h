/*
 * Constraint systems: internal representation shared by cs.c (building), eval.c (A·w, B·w, C·w
 * and the witness check), io.c (the file format), demo.c (built-in circuits) and, later, the
 * groth16 layer (setup transposes the CSR matrices; the prover reads the density bitmaps).
 * The public contract and the bellman rules it follows are in include/g16.h, section
 * "constraint systems (r1cs)".
 *
 * Compiled form (g16_r1cs), immutable once built:
 *   - columns: c < num_inputs is input c (c = 0 the constant ONE), c = num_inputs + j is aux j;
 *     the full witness w is indexed by column.
 *   - rows: num_constraints = the circuit's constraints followed by one input constraint per input
 *     (row num_constraints - num_inputs + k is input_k · 0 = 0: A row {(k, 1)}, B and C empty).
 *   - each matrix in CSR form: row i's entries are e[rp(i) .. rp(i+1)), columns strictly
 *     increasing, no zero coefficient. rp is 32-bit when the matrix has at most UINT32_MAX
 *     entries (4 bytes a row instead of 8), else 64-bit; exactly one of rp32/rp64 is set.
 *   - an entry is (column, coefficient id), 8 bytes. Coefficients live once in a shared
 *     dictionary coeffs[]: id 0 is 1 and id 1 is −1 (both computed without a multiplication),
 *     other ids any nonzero value (real circuits repeat few distinct coefficients: powers of two
 *     for bit packing, round constants, ±1).
 *   - density bitmaps (see g16.h): bit i of word i/64, LSB first, unused high bits zero.
 *   - every aux column appears in at least one matrix (bellman's setup needs it).
 *
 * Building form (g16_cs): the same entry layout, but the column holds the raw g16_var handle
 * (aux bit set for aux variables) and the row pointers are 64-bit, because num_inputs is only
 * known at finalize. Sorting by handle sorts inputs before aux, so remapping keeps the order.
 */
#ifndef G16_R1CS_R1CS_H
#define G16_R1CS_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"

#define G16__R1CS_MAX_LOG_N 28 /* the largest NTT domain (poly layer) */
#define G16__CID_ONE 0u
#define G16__CID_MINUS_ONE 1u

typedef struct {
    uint32_t col; /* column (compiled) or g16_var handle (building) */
    uint32_t cid; /* coefficient id into the dictionary */
} g16__r1cs_entry;

typedef struct {
    uint64_t nnz;
    uint32_t *rp32; /* num_constraints + 1 row pointers, when nnz <= UINT32_MAX */
    uint64_t *rp64; /* otherwise */
    g16__r1cs_entry *e;
} g16__csr;

static inline uint64_t g16__csr_rp(const g16__csr *m, uint64_t i) { return m->rp32 ? m->rp32[i] : m->rp64[i]; }

/* The entry at position *k of m: returns its column, sets *cid, advances *k past it. Code outside
 * src/r1cs should walk rows only this way,
 *     for (uint64_t k = g16__csr_rp(m, i), end = g16__csr_rp(m, i + 1); k < end;) {
 *         uint32_t cid, col = g16__csr_next(m, &k, &cid); ...
 *     }
 * and never index e[] itself: the entries are about to be packed into 32-bit words (±1 entries
 * one word, others two: 28% less memory on the demo circuits), which changes e[] but not this. */
static inline uint32_t g16__csr_next(const g16__csr *m, uint64_t *k, uint32_t *cid)
{
    const g16__r1cs_entry *e = &m->e[(*k)++];
    *cid = e->cid;
    return e->col;
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

/* Building matrix: 64-bit row pointers (constraints + 1 of them), entries with raw handles. */
typedef struct {
    uint64_t *rp;
    g16__r1cs_entry *e;
    uint64_t nnz, e_cap;
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

/* Scans the entries of A, B, C (e[k], nnz[k]) and sets the density bitmaps (zeroed, sized as in
 * struct g16_r1cs) and their popcounts. raw: columns are g16_var handles (building form), else
 * compiled columns. used: a zeroed scratch bitmap of num_aux bits. Returns the first aux index
 * that occurs in no matrix, or UINT64_MAX when every aux occurs. */
uint64_t g16__r1cs_scan_density(g16__r1cs_entry *const e[3], const uint64_t nnz[3], uint64_t num_inputs,
                                uint64_t num_aux, int raw, uint64_t *const density[3], uint64_t count[3],
                                uint64_t *used);

/* Allocates r->density (three zeroed bitmaps; num_inputs and num_aux must be set). */
g16_status g16__r1cs_alloc_density(struct g16_r1cs *r);

/* Heap bytes of a compiled form. */
uint64_t g16__r1cs_memory(const struct g16_r1cs *r);

/* Tests only: lowers the domain limit of a cs (to exercise the 2^28 refusal cheaply). */
void g16__cs_set_max_log_n(g16_cs *cs, unsigned max_log_n);

#endif /* G16_R1CS_R1CS_H */
