/*
 * Groth16 proving in snarkjs's form (a circom circuit's .zkey), next to bellman's in prove.c.
 *
 * The two forms differ in the key's layout and in the quotient:
 *   - the witness w has n_vars values in circom's wire order: w[0] = 1, w[1 .. n_public] the public
 *     values, then the private ones. A, B1, B2 hold one point per wire (infinity where a wire has
 *     no term: no density filtering); C holds one per private wire (the bellman L query); IC one
 *     per public wire and ONE.
 *   - the QAP rows are the coefficient section of the zkey: A and B only (snarkjs sets c = a·b
 *     row by row); rows nConstraints .. nConstraints + n_public are the input rows (A = wire k).
 *   - H: the domain <ω> has size n and ω comes from the generator 5 (snarkjs's ffjavascript takes
 *     the smallest quadratic non-residue; bellman uses 7). The zkey's H points are the Lagrange
 *     basis of the domain of size 2n at the odd points ω_2n^(2i+1), divided by δ; so the scalars
 *     are the values of A·B − C at those points: a, b, c to coefficients (inverse NTT), then to
 *     the coset ω_2n·<ω> (coset NTT), then h_i = a_i·b_i − c_i. No division by Z: the points carry
 *     it. Six transforms of size n (bellman's H takes seven).
 *   - then  A = α + Σ w_j·A_j + r·δ,  B = β + Σ w_j·B2_j + s·δ (and B1 in G1),
 *           C = Σ_private w_j·C_j + Σ h_i·H_i + s·A + r·B1 − r·s·δ,  as in bellman.
 *
 * Representation (g16__zkey, filled by compat/zkey.c, immutable afterwards, shareable by threads):
 * points in the curve layer's affine form (infinity = (0, 0)); rows in CSR form per matrix
 * (0 = A, 1 = B) with Montgomery coefficients; large arrays from g16__alloc_large.
 * Invariants: n = 2^log_n, log_n <= 28; n_public + 1 <= n_vars; every column < n_vars; the vk
 * points are on the curve and in the subgroups; vk.n_ic = n_public + 1.
 */
#ifndef G16_GROTH16_ZKEY_H
#define G16_GROTH16_ZKEY_H

#include <stdint.h>

#include "g16.h"
#include "groth16/groth16.h"

typedef struct {
    struct g16_vk vk; /* alpha_g1, beta_g1, delta_g1, beta_g2, gamma_g2, delta_g2, ic (owned) */
    uint64_t n_vars, n_public;
    uint64_t n;
    unsigned log_n;
    uint64_t nnz[2];
    uint64_t *rp[2];   /* n + 1 offsets each */
    uint32_t *col[2];  /* nnz[m] wires */
    g16_fr *coeff[2];  /* nnz[m] coefficients */
    /* The A, B1, B2 and C sections without their points at infinity (a wire absent from a
     * matrix has infinity there: in circom circuits most wires are absent from B). pts[k] holds
     * n_pts[k] points, those of the wires whose bit is set in dens[k] (bit i of word i/64; over
     * n_vars wires for A, B1, B2 and over the n_vars − n_public − 1 private wires for C), in wire
     * order: the density form of msm.h. The arrays keep their allocated size (one point per wire). */
    g16_p1_affine *a, *b1, *c; /* k = 0, 1, 3 */
    g16_p2_affine *b2;         /* k = 2 */
    uint64_t *dens[4];
    uint64_t n_pts[4];
    g16_p1_affine *h;          /* n points */
} g16__zkey;

enum { G16__ZK_A = 0, G16__ZK_B1 = 1, G16__ZK_B2 = 2, G16__ZK_C = 3 };

/* Releases everything zk owns and zeroes it (a zeroed struct is fine; NULL is a no-op). */
void g16__zkey_free(g16__zkey *zk);

/* The generator snarkjs derives its roots of unity from (5, Montgomery form). */
void g16__zkey_root_generator(g16_fr *g);

/* One proof from a full witness (w_len = n_vars, w[0] = 1: G16_ERR_SIZE_MISMATCH / G16_ERR_ARG
 * otherwise). opts as for g16_prove: flags G16_PROVE_NO_VERIFY (skip the check against the key's
 * own verifying key; on by default, G16_ERR_VERIFY_FAILED: typically a witness that does not
 * satisfy the circuit) and fixed r, s (opts->r[0], opts->s[0]) for tests. G16_PROVE_NO_CHECK has
 * no meaning here (the zkey has no C matrix to check against). Nothing is written on error. */
g16_status g16__zkey_prove(g16_proof *proof, const g16__zkey *zk, const g16_fr *w, size_t w_len,
                           const g16_prove_opts *opts, g16_error *err);

/* The quotient scalars alone (tests): h[i] = (A·B − C)(ω_2n^(2i+1)) for i < n, from the rows
 * of zk and w. h has zk->n elements. */
g16_status g16__zkey_h(g16_fr *h, const g16__zkey *zk, const g16_fr *w, g16_error *err);

#endif /* G16_GROTH16_ZKEY_H */
