/*
 * Groth16 internals shared by params.c (file formats), setup.c, prove.c and verify.c.
 * The public contract is the Groth16 section of include/g16.h.
 *
 * Representation: every point is decoded once into the curve layer's affine form (Montgomery
 * coordinates, infinity = (0, 0)); the parameter arrays are single large allocations
 * (g16__alloc_large) so that g16_params_destroy can hand them to the background freer.
 * Invariants once a g16_params exists: all points are on the curve (and, unless loaded with
 * G16_PARAMS_UNCHECKED, in the subgroup); query points are never infinity (bellman refuses them;
 * a snarkjs export's points at infinity in a, b_g1, b_g2 are dropped at load, see below);
 * vk.n_ic >= 1. The a, b_g1, b_g2 queries are always in bellman's density-filtered layout, so
 * the provers (CPU and GPU) read every parameter set the same way.
 *
 * Origin: parameters from bellman's files and g16_setup have origin 0 (calloc's zero) and were
 * made over bellman's evaluation domain (roots of unity from 7). Parameters loaded with
 * G16__PARAMS_SNARKJS from `snarkjs zkey export bellman` have origin G16__ORIGIN_SNARKJS: their
 * A, B and L points are Lagrange polynomials of snarkjs's domain (roots from 5), so the prover
 * must compute the H scalars over that domain (g16__params_root_generator); they cannot be saved
 * in bellman's format (which has no field to say so).
 */
#ifndef G16_GROTH16_GROTH16_H
#define G16_GROTH16_GROTH16_H

#include "curve/pairing.h"
#include "g16.h"

struct g16_vk {
    g16_p1_affine alpha_g1, beta_g1, delta_g1;
    g16_p2_affine beta_g2, gamma_g2, delta_g2;
    uint64_t n_ic;
    g16_p1_affine *ic; /* owned: n_ic points (g16__alloc_large) */
};

struct g16_params {
    struct g16_vk vk;
    uint64_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    g16_p1_affine *h, *l, *a, *b_g1; /* owned (g16__alloc_large), exactly n_* points each */
    g16_p2_affine *b_g2;
    int origin;            /* 0: bellman / g16_setup; G16__ORIGIN_SNARKJS: a snarkjs export */
    g16_fr root_gen;       /* G16__ORIGIN_SNARKJS only: snarkjs's domain generator (5) */
    uint64_t file_n_a;     /* G16__ORIGIN_SNARKJS only: a points in the file, infinity included */
    uint64_t file_n_b;     /* G16__ORIGIN_SNARKJS only: b_g1 (= b_g2) points in the file, likewise */
};

/* Loading flag (internal, with g16_params_load / _buffer): the file was written by `snarkjs zkey
 * export bellman` (format and rules in params.c). Not in g16.h while only the command line uses it. */
#define G16__PARAMS_SNARKJS 0x100u
#define G16__ORIGIN_SNARKJS 1

/* The generator of the roots of unity the parameters were made with: &g16__fr_generator (7) for
 * bellman's, &p->root_gen (5) for snarkjs exports. The H step must use this domain. */
const g16_fr *g16__params_root_generator(const struct g16_params *p);

struct g16_pvk {
    g16_fp12 alpha_beta; /* e(alpha_g1, beta_g2) */
    g16_p1_affine alpha_g1;
    g16__p2_prepared neg_gamma, neg_delta, beta; /* beta: for batch verification */
    uint64_t n_ic;
    g16_p1_affine *ic; /* owned copy */
};

/* Byte sizes of the encodings. */
#define G16__G1_UNCOMPRESSED 96
#define G16__G2_UNCOMPRESSED 192
/* vk prefix: 3 G1 + 3 G2 + the IC count (the IC points follow). */
#define G16__VK_FIXED_BYTES (3 * G16__G1_UNCOMPRESSED + 3 * G16__G2_UNCOMPRESSED + 4)

/* Serialized size of a vk with n_ic IC points, and of whole parameters. */
uint64_t g16__vk_serialized_size(uint64_t n_ic);
uint64_t g16__params_serialized_size(const struct g16_params *p);

/* Allocates the point arrays of p for the counts already stored in it (zeroed: infinity). */
g16_status g16__params_alloc(struct g16_params *p, g16_error *err);

/* The vk check of the prover: e(A, B) = e(alpha, beta) e(IC(inputs), gamma) e(C, delta). */
g16_status g16__verify_with(const struct g16_pvk *pvk, const g16_proof *proof, const g16_fr *inputs,
                            size_t n_inputs, g16_error *err);

/* The proof from the query sums and the secret randomizers, constant-time in r and s:
 *   A = α + sum_a + r·δ,  B = β + sum_b2 + s·δ,  C = s·A + r·(β + sum_b1 + s·δ) − r·s·δ + sum_c,
 * where sum_c holds every term of C that does not involve r or s (bellman: H + L; snarkjs: C + H). */
void g16__groth16_assemble(g16_proof *proof, const struct g16_vk *vk, const g16_p1 *sum_a, const g16_p1 *sum_b1,
                           const g16_p2 *sum_b2, const g16_p1 *sum_c, const g16_fr *r, const g16_fr *s);

/* "g16: backend <what>" on stderr when `what` differs from the last line said (prove.c; thread-safe):
 * a process that creates its provers for one circuit says its backend once, one whose provers'
 * plans differ (other circuits, other cards under G16_GPU_MEM_LIMIT) says each plan. */
void g16__backend_notice(const char *what);

#endif /* G16_GROTH16_GROTH16_H */
