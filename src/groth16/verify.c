/*
 * Groth16 verification: prepared keys, single and batch verification.
 *
 * A proof (A, B, C) for public inputs x (x_0 = 1) is valid when
 *     e(A, B) = e(alpha, beta) · e(Σ x_j·IC_j, gamma) · e(C, delta),
 * checked as final_exp(ML(A, B) · ML(acc, −gamma) · ML(C, −delta)) = e(alpha, beta).
 * Batch (weights z_i, 128-bit, from the OS CSPRNG):
 *     Π_i ML(z_i·A_i, B_i) · ML(Σ z_i·acc_i, −gamma) · ML(Σ z_i·C_i, −delta) · ML(−(Σ z_i)·alpha, beta) = 1
 * after the final exponentiation: count + 3 Miller loops and one final exponentiation.
 */
#include <stdlib.h>
#include <string.h>

#include "groth16/groth16.h"
#include "field/random.h"
#include "util/error.h"
#include "util/trace.h"

void g16_pvk_destroy(g16_pvk *pvk)
{
    if (!pvk)
        return;
    free(pvk->ic);
    free(pvk);
}

g16_status g16_pvk_create(g16_pvk **out, const g16_vk *vk, g16_error *err)
{
    g16_status st = G16_OK;
    g16_pvk *pvk = NULL;
    if (!out || !vk || vk->n_ic == 0) {
        st = g16__error(err, G16_ERR_ARG, "g16_pvk_create: missing verifying key");
        goto cleanup;
    }
    pvk = calloc(1, sizeof *pvk);
    if (pvk)
        pvk->ic = malloc(vk->n_ic * sizeof *pvk->ic);
    if (!pvk || !pvk->ic) {
        st = g16__error(err, G16_ERR_NOMEM, "g16_pvk_create: %llu IC points", (unsigned long long)vk->n_ic);
        goto cleanup;
    }
    memcpy(pvk->ic, vk->ic, vk->n_ic * sizeof *pvk->ic);
    pvk->n_ic = vk->n_ic;
    pvk->alpha_g1 = vk->alpha_g1;
    g16__pairing(&pvk->alpha_beta, &vk->alpha_g1, &vk->beta_g2);
    g16_p2_affine neg;
    g16__p2_affine_neg(&neg, &vk->gamma_g2);
    g16__p2_prepare(&pvk->neg_gamma, &neg);
    g16__p2_affine_neg(&neg, &vk->delta_g2);
    g16__p2_prepare(&pvk->neg_delta, &neg);
    g16__p2_prepare(&pvk->beta, &vk->beta_g2);
    *out = pvk;
    pvk = NULL;
cleanup:
    g16_pvk_destroy(pvk);
    return st;
}

/* acc = IC_0 + Σ_j inputs[j]·IC_{j+1} */
static void ic_combination(g16_p1 *acc, const g16_p1_affine *ic, const g16_fr *inputs, size_t n_inputs)
{
    g16__p1_from_affine(acc, &ic[0]);
    for (size_t j = 0; j < n_inputs; j++) {
        g16_p1 t;
        g16__p1_from_affine(&t, &ic[j + 1]);
        g16__p1_mul_var(&t, &t, &inputs[j]);
        g16__p1_add_var(acc, acc, &t);
    }
}

static g16_status check_inputs(const g16_pvk *pvk, size_t n_inputs, g16_error *err)
{
    if (n_inputs + 1 != pvk->n_ic)
        return g16__error(err, G16_ERR_SIZE_MISMATCH,
                          "verify: %zu public inputs given, the verifying key expects %llu", n_inputs,
                          (unsigned long long)(pvk->n_ic - 1));
    return G16_OK;
}

g16_status g16__verify_with(const g16_pvk *pvk, const g16_proof *proof, const g16_fr *inputs, size_t n_inputs,
                            g16_error *err)
{
    g16_status st = check_inputs(pvk, n_inputs, err);
    if (st != G16_OK)
        return st;
    g16__span span = g16__span_begin("verify");
    g16_p1 acc;
    g16_p1_affine p[3];
    g16__p2_prepared prep_b;
    const g16__p2_prepared *q[3] = {&prep_b, &pvk->neg_gamma, &pvk->neg_delta};
    ic_combination(&acc, pvk->ic, inputs, n_inputs);
    p[0] = proof->a;
    g16__p1_to_affine(&p[1], &acc);
    p[2] = proof->c;
    g16__p2_prepare(&prep_b, &proof->b);
    g16_fp12 f;
    g16__miller_loop_prepared_n(&f, p, q, 3);
    g16__final_exp(&f, &f);
    if (!g16__fp12_eq(&f, &pvk->alpha_beta))
        st = g16__error(err, G16_ERR_VERIFY_FAILED, "verify: pairing equation does not hold");
    g16__span_end(span);
    return st;
}

g16_status g16_verify(const g16_pvk *pvk, const g16_proof *proof, const g16_fr *inputs, size_t n_inputs,
                      g16_error *err)
{
    if (!pvk || !proof || (n_inputs && !inputs))
        return g16__error(err, G16_ERR_ARG, "g16_verify: NULL argument");
    return g16__verify_with(pvk, proof, inputs, n_inputs, err);
}

static g16_status random_weight(g16_fr *z, g16__rng *rng)
{
    uint64_t l[4] = {0, 0, 0, 0};
    g16_status st;
    do {
        st = g16__rng_bytes(rng, l, 16); /* 128-bit weights: soundness error 2^-128 */
    } while (st == G16_OK && (l[0] | l[1]) == 0);
    if (st == G16_OK)
        g16__fr_from_limbs(z, l);
    return st;
}

g16_status g16_verify_batch(const g16_pvk *pvk, const g16_proof *proofs, const g16_fr *const *inputs,
                            size_t n_inputs, size_t count, g16_error *err)
{
    g16_status st = G16_OK;
    g16_p1_affine *p = NULL;
    g16__p2_prepared *prep = NULL;
    const g16__p2_prepared **q = NULL;
    g16__span span = g16__span_begin_n("verify.batch", count);
    if (!pvk || (count && (!proofs || !inputs))) {
        st = g16__error(err, G16_ERR_ARG, "g16_verify_batch: NULL argument");
        goto cleanup;
    }
    if ((st = check_inputs(pvk, n_inputs, err)) != G16_OK || count == 0)
        goto cleanup;
    p = malloc((count + 3) * sizeof *p);
    prep = malloc(count * sizeof *prep);
    q = malloc((count + 3) * sizeof *q);
    if (!p || !prep || !q) {
        st = g16__error(err, G16_ERR_NOMEM, "g16_verify_batch: %zu proofs", count);
        goto cleanup;
    }
    g16__rng rng;
    g16__rng_init_os(&rng);
    g16_fr zsum;
    g16_p1 acc_ic, acc_c;
    g16__fr_set_zero(&zsum);
    g16__p1_set_infinity(&acc_ic);
    g16__p1_set_infinity(&acc_c);
    for (size_t i = 0; i < count; i++) {
        g16_fr z;
        g16_p1 t, ic;
        if ((st = random_weight(&z, &rng)) != G16_OK) {
            g16__error(err, st, "g16_verify_batch: the OS random generator failed");
            goto cleanup;
        }
        g16__fr_add(&zsum, &zsum, &z);
        g16__p1_from_affine(&t, &proofs[i].a);
        g16__p1_mul_var(&t, &t, &z);
        g16__p1_to_affine(&p[i], &t);
        g16__p2_prepare(&prep[i], &proofs[i].b);
        q[i] = &prep[i];
        ic_combination(&ic, pvk->ic, inputs[i], n_inputs);
        g16__p1_mul_var(&ic, &ic, &z);
        g16__p1_add_var(&acc_ic, &acc_ic, &ic);
        g16__p1_from_affine(&t, &proofs[i].c);
        g16__p1_mul_var(&t, &t, &z);
        g16__p1_add_var(&acc_c, &acc_c, &t);
    }
    g16_p1 alpha;
    g16__p1_from_affine(&alpha, &pvk->alpha_g1);
    g16__fr_neg(&zsum, &zsum);
    g16__p1_mul_var(&alpha, &alpha, &zsum);
    g16__p1_to_affine(&p[count], &acc_ic);
    g16__p1_to_affine(&p[count + 1], &acc_c);
    g16__p1_to_affine(&p[count + 2], &alpha);
    q[count] = &pvk->neg_gamma;
    q[count + 1] = &pvk->neg_delta;
    q[count + 2] = &pvk->beta;
    g16_fp12 f;
    g16__miller_loop_prepared_n(&f, p, q, count + 3);
    g16__final_exp(&f, &f);
    if (!g16__fp12_is_one(&f))
        st = g16__error(err, G16_ERR_VERIFY_FAILED, "verify: batch of %zu proofs does not verify", count);
cleanup:
    free(p);
    free(prep);
    free(q);
    g16__span_end(span);
    return st;
}

void g16_proof_write(uint8_t out[G16_PROOF_BYTES], const g16_proof *proof)
{
    g16_p1_affine_compress(out, &proof->a);
    g16_p2_affine_compress(out + 48, &proof->b);
    g16_p1_affine_compress(out + 144, &proof->c);
}

g16_status g16_proof_read(g16_proof *proof, const uint8_t in[G16_PROOF_BYTES], g16_error *err)
{
    g16_proof t;
    g16_status st;
    if ((st = g16_p1_affine_uncompress(&t.a, in)) != G16_OK)
        return g16__error(err, st, "proof: A (bytes 0..47): %s", g16_strerror(st));
    if ((st = g16_p2_affine_uncompress(&t.b, in + 48)) != G16_OK)
        return g16__error(err, st, "proof: B (bytes 48..143): %s", g16_strerror(st));
    if ((st = g16_p1_affine_uncompress(&t.c, in + 144)) != G16_OK)
        return g16__error(err, st, "proof: C (bytes 144..191): %s", g16_strerror(st));
    *proof = t;
    return G16_OK;
}
