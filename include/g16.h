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
    char msg[256];
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

#ifdef __cplusplus
}
#endif
#endif /* G16_H */
