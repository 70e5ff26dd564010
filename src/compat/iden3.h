/*
 * The iden3 binary files of circom and snarkjs: the section container, .r1cs (circuits) and
 * .wtns (witnesses); the .zkey reader is in zkey.c (declared here too). Layouts (all integers
 * little-endian):
 *
 *   container: magic (4 bytes: "r1cs", "wtns", "zkey", "ptau"), u32 version, u32 section count,
 *              then per section u32 type, u64 byte size, the bytes. Sections may come in any
 *              order; each one a reader needs must appear exactly once.
 *   .r1cs (version 1): section 1 header = u32 n8, prime (n8 bytes), u32 wires, u32 public
 *              outputs, u32 public inputs, u32 private inputs, u64 labels, u32 constraints;
 *              section 2 = per constraint three linear combinations A, B, C, each u32 term count
 *              then terms (u32 wire, n8-byte coefficient, canonical); section 3 = wire → label
 *              map (u64 per wire, not needed here); sections 4/5 (custom gates: PLONK only).
 *              Wire 0 is the constant ONE; wires 1 .. outputs + public inputs are the public ones.
 *   .wtns (version <= 2): section 1 = u32 n8, prime, u32 count; section 2 = count values of n8
 *              bytes (canonical, not Montgomery), in wire order (value 0 is 1).
 *   .zkey (Groth16): see zkey.c.
 * A file whose prime is not BLS12-381's is refused with G16_ERR_UNSUPPORTED and a message naming
 * the curve the prime belongs to (circom's --prime names: bn128, bls12377, goldilocks, ...).
 *
 * Every reader works on a whole file in memory (borrowed for the call; nothing points into it
 * afterwards), checks every count against the bytes present before allocating, and reports
 * G16_ERR_TRUNCATED / G16_ERR_FORMAT / G16_ERR_SCALAR_RANGE with the file, the section and the
 * byte offset. Values become Montgomery g16_fr.
 */
#ifndef G16_COMPAT_IDEN3_H
#define G16_COMPAT_IDEN3_H

#include <stddef.h>
#include <stdint.h>

#include "g16.h"
#include "groth16/zkey.h"

typedef struct {
    uint32_t type;
    uint64_t offset, size; /* of the section's bytes in the file */
} g16__binsec;

typedef struct {
    const uint8_t *buf;
    size_t len;
    const char *what; /* file name for messages */
    uint32_t version, nsec;
    g16__binsec *sec; /* owned */
} g16__binfile;

/* Reads the container header and section table (sections must lie inside the file). */
g16_status g16__binfile_open(g16__binfile *bf, const uint8_t *buf, size_t len, const char magic[4],
                             uint32_t max_version, const char *what, g16_error *err);
void g16__binfile_close(g16__binfile *bf);
/* Number of sections of a type. */
uint32_t g16__binfile_count(const g16__binfile *bf, uint32_t type);
/* The single section of a type (name used in messages): G16_ERR_FORMAT when missing or repeated. */
g16_status g16__binfile_section(const g16__binfile *bf, uint32_t type, const char *name, const g16__binsec **out,
                                g16_error *err);

/* Which field a little-endian prime of n8 bytes is: "BLS12-381 scalar field (r)", "BN254 scalar
 * field (circom's default prime bn128)", ..., or NULL when unknown. */
const char *g16__prime_name(const uint8_t *le, uint32_t n8);
/* G16_OK when the prime is BLS12-381's r (fr = 1) or p (fr = 0); else G16_ERR_UNSUPPORTED with a
 * message naming the field found (where: "header (section 1)"). */
g16_status g16__check_prime(const uint8_t *le, uint32_t n8, int fr, const char *what, const char *where,
                            g16_error *err);

/* A circom circuit. Constraints in CSR form per matrix (0 = A, 1 = B, 2 = C): row i's terms are
 * wire[m][k], coeff[m][k] for rp[m][i] <= k < rp[m][i + 1], in file order. */
typedef struct {
    uint64_t n_wires, n_outputs, n_pub_inputs, n_prv_inputs, n_labels, n_constraints;
    uint64_t *rp[3];
    uint32_t *wire[3];
    g16_fr *coeff[3];
} g16__r1cs_file;

g16_status g16__r1cs_file_read(g16__r1cs_file *out, const uint8_t *buf, size_t len, const char *what,
                               g16_error *err);
void g16__r1cs_file_free(g16__r1cs_file *r);
/* Public values of the circuit (outputs then public inputs; ONE not counted). */
static inline uint64_t g16__r1cs_file_n_public(const g16__r1cs_file *r) { return r->n_outputs + r->n_pub_inputs; }
/* Checks a full witness (w[0] = 1, wire order): G16_OK, G16_ERR_SIZE_MISMATCH (w_len != wires),
 * G16_ERR_UNSATISFIED naming the first failing constraint (*bad_row = its index, or
 * UINT64_MAX when w[0] != 1). Runs on all threads. */
g16_status g16__r1cs_file_check(const g16__r1cs_file *r, const g16_fr *w, size_t w_len, uint64_t *bad_row,
                                g16_error *err);

/* A witness: *w = a new array of *n values (caller frees). */
g16_status g16__wtns_read(g16_fr **w, size_t *n, const uint8_t *buf, size_t len, const char *what,
                          g16_error *err);
/* Writes a witness file (version 2) for w[0..n). */
g16_status g16__wtns_write(const char *path, const g16_fr *w, size_t n, g16_error *err);

/* A Groth16 zkey into zk (released with g16__zkey_free). flags: G16_PARAMS_UNCHECKED skips the
 * subgroup checks of the proving points (A, B1, B2, C, H); the verifying-key points (alpha, beta,
 * gamma, delta, IC) are always checked in full. Other zkeys (PLONK, FFLONK, other curves) are
 * refused with a message naming them. */
g16_status g16__zkey_read(g16__zkey *zk, const uint8_t *buf, size_t len, unsigned flags, const char *what,
                          g16_error *err);

/* A whole file mapped read-only (empty files give buf = NULL, len = 0). */
typedef struct {
    const uint8_t *buf;
    size_t len;
} g16__mapped;
g16_status g16__map_file(g16__mapped *m, const char *path, g16_error *err);
void g16__unmap_file(g16__mapped *m);

#endif /* G16_COMPAT_IDEN3_H */
