/*
 * Number-theoretic transforms over Fr on power-of-two domains, and the Groth16 quotient step.
 *
 * Representation: a polynomial or a vector of evaluations is an array of n = 2^k g16_fr values
 * (Montgomery form, fully reduced, as everywhere); the transforms work in place on it.
 *   - coefficients: x[i] is the coefficient of X^i (natural order);
 *   - evaluations:  x[i] is the value at ω^i (or at g·ω^i on the coset), natural order too.
 * No function here reorders its output: every public transform is natural order in and out.
 *
 * Domain (g16__ntt_domain): the multiplicative subgroup <ω> of size n = 2^k, 0 <= k <= 28, with
 *   ω = root_generator^((r-1)/n)   (g16__fr_root_of_unity_from: bellman and Filecoin use the
 *                                    generator 7 = g16__fr_generator, snarkjs builds its roots from 5)
 *   and a coset shift g (bellman: g = the same generator 7). The coset is g·<ω>; the vanishing
 *   polynomial Z(X) = X^n - 1 takes the single value g^n - 1 on it.
 * The root generator must be a quadratic non-residue (then ω is a primitive n-th root for every
 * k <= 32); the shift must be nonzero with g^n != 1 (so that Z does not vanish on the coset).
 * After create, a domain is immutable: any number of threads may use it at once. It owns its
 * tables: a twiddle table of max(n/2, 1) elements (16·n bytes: 16 MiB at 2^20, 4 GiB at 2^28),
 * a stage-major copy of the twiddles of the smaller stages (max(2^14, n/64) elements at most)
 * and two 2^min(k,10)-element tables of powers of g and g^-1.
 *
 * Transforms are in place on arrays of exactly d->n elements (caller-owned; not kept). Work is
 * spread over the worker pool (util/threads.h); results do not depend on the thread count.
 * All of it is constant-time in the data (the sequence of field operations and memory accesses
 * depends only on n), so the arrays may hold secret witness values.
 *
 * Cost, in Fr multiplications (the dominant operation): forward (n/2)·log n (less the trivial
 * twiddles); inverse adds n (the 1/n scaling); the coset forms add 2n. groth16_h does the work of
 * 6 transforms and about 8n scalings (bellman's sequence: 7 and 9n; see g16__ntt_groth16_h).
 * Memory traffic: a transform reads and writes the array about 2 + ceil((log n - 14)/7) times (one
 * more for the natural-order permutation), see ntt.c.
 */
#ifndef G16_POLY_NTT_H
#define G16_POLY_NTT_H

#include <stddef.h>

#include "field/fr.h"
#include "g16.h"

#define G16__NTT_MAX_LOG 28

typedef struct {
    unsigned log_n;      /* k */
    size_t n;            /* 2^k */
    g16_fr omega;        /* primitive n-th root of unity */
    g16_fr omega_inv;    /* ω^-1 */
    g16_fr n_inv;        /* n^-1 */
    g16_fr root_gen;     /* the generator ω was derived from */
    g16_fr g;            /* coset shift */
    g16_fr g_inv;        /* g^-1 */
    g16_fr z_coset;      /* g^n - 1: Z(X) = X^n - 1 on every point of the coset */
    g16_fr z_coset_inv;  /* (g^n - 1)^-1 */
    /* private to ntt.c */
    g16_fr *tw;          /* tw[j] = ω^j, j < max(n/2, 1) (huge-page backed when large) */
    g16_fr *tw_sm;       /* stage-major: tw_sm[h + j] = ω_2h^j for h = 1, 2, 4, .., sm_max, j < h */
    size_t sm_max;
    size_t tw_bytes, tw_sm_bytes;
    unsigned lo_bits;    /* b = min(k, 10) */
    g16_fr *shift_lo;    /* (g^(2^(k-b)))^u, u < 2^b */
    g16_fr *shift_inv_lo;/* (g^-(2^(k-b)))^u, u < 2^b */
} g16__ntt_domain;

/* Shape of the computation (see ntt.c): blocks of up to 2^block_log elements run in cache; the
 * stages above them run in passes of at most col_max (1..7) stages. The results never depend on
 * it. Defaults {14, 7}. For tests and tuning only: change it only while no transform runs. */
typedef struct {
    unsigned block_log, col_max;
} g16__ntt_tuning;
extern g16__ntt_tuning g16__ntt_tune;

/* Smallest k with 2^k >= min_n (min_n = 0 or 1 gives 0), or -1 when that exceeds 2^28. */
int g16__ntt_log_size(size_t min_n);

/* Creates the domain of size 2^log_n. root_generator: the non-residue the roots come from (e.g.
 * &g16__fr_generator). coset_shift: the coset generator g, or NULL for g = root_generator.
 * On success *out owns a new domain (release with g16__ntt_domain_destroy). Errors:
 * G16_ERR_ARG (NULL out or generator, log_n > 28, generator a residue, shift zero or g^n = 1),
 * G16_ERR_NOMEM. *out is NULL on failure. */
g16_status g16__ntt_domain_create(g16__ntt_domain **out, unsigned log_n, const g16_fr *root_generator,
                                  const g16_fr *coset_shift, g16_error *err);
/* Frees d and its tables; NULL is a no-op. */
void g16__ntt_domain_destroy(g16__ntt_domain *d);

/* Coefficients -> evaluations: x[i] <- Σ_j x[j]·ω^(ij). */
void g16__ntt_forward(const g16__ntt_domain *d, g16_fr *x);
/* Evaluations -> coefficients: x[j] <- n^-1·Σ_i x[i]·ω^(-ij). */
void g16__ntt_inverse(const g16__ntt_domain *d, g16_fr *x);
/* Coefficients -> evaluations on the coset: x[i] <- Σ_j x[j]·(g·ω^i)^j. */
void g16__ntt_coset_forward(const g16__ntt_domain *d, g16_fr *x);
/* Evaluations on the coset -> coefficients (inverse of g16__ntt_coset_forward). */
void g16__ntt_coset_inverse(const g16__ntt_domain *d, g16_fr *x);

/*
 * The Groth16 quotient, bit for bit bellman's. In: a, b, c = evaluations over <ω> (natural order)
 * of the polynomials A, B, C (for a satisfied R1CS, c[i] = a[i]·b[i]). bellman computes
 *   a, b, c <- coefficients (inverse NTT);  <- evaluations on the coset g·<ω>;
 *   a[i] <- (a[i]·b[i] - c[i])·(g^n - 1)^-1;  a <- coefficients (inverse coset NTT),
 * so that a holds H with A·B - C = H·(X^n - 1) on the coset values; when c = a·b pointwise on
 * <ω>, deg H <= n - 2 and a[n-1] = 0 (the prover uses a[0..n-2]). The inverse coset NTT is
 * linear and takes C's coset evaluations back to C's coefficients, so this function computes the
 * same H without them: a, b to coset evaluations, a <- inverse coset NTT of a·b, minus the inverse
 * NTT of c, times (g^n - 1)^-1 (six transforms). b and c are overwritten with scratch. The three
 * arrays must not overlap.
 */
void g16__ntt_groth16_h(const g16__ntt_domain *d, g16_fr *a, g16_fr *b, g16_fr *c);

#endif /* G16_POLY_NTT_H */
