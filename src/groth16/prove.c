/*
 * Groth16 proving on the CPU, as bellman's prover computes it (same H, same query layout), so
 * that with the same r and s the proof is bit-identical to bellman's.
 *
 * Per circuit: check the witness; a, b, c = A·w, B·w, C·w; H = (a·b − c)/Z through 7 NTTs;
 * MSMs over the h, l, a, b_g1, b_g2 queries (density bitmaps select the a/b scalars); then
 *   A = α + Σa + r·δ,  B = β + Σb_g2 + s·δ,  C = s·A + r·(β + Σb_g1 + s·δ) − r·s·δ + Σh + Σl.
 * The assembly uses constant-time curve operations: r and s are the secrets of the proof.
 * Every proof is verified against the parameters' own verifying key before it is returned.
 * Backends (g16_prove_opts.backend / G16_BACKEND): the CPU always; the GPU takes the H step.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/random.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"
#include "util/alloc.h"
#include "util/bgfree.h"
#include "util/error.h"
#include "util/trace.h"

static g16_status check_shapes(const struct g16_params *p, const struct g16_r1cs *r, g16_error *err)
{
    uint64_t want_a = r->num_inputs + r->density_count[G16__DENS_A_AUX];
    uint64_t want_b = r->density_count[G16__DENS_B_INPUT] + r->density_count[G16__DENS_B_AUX];
    const char *what = NULL;
    uint64_t have = 0, want = 0;
    if (p->vk.n_ic != r->num_inputs)
        what = "ic", have = p->vk.n_ic, want = r->num_inputs;
    else if (p->n_h != r->n - 1)
        what = "h", have = p->n_h, want = r->n - 1;
    else if (p->n_l != r->num_aux)
        what = "l", have = p->n_l, want = r->num_aux;
    else if (p->n_a != want_a)
        what = "a", have = p->n_a, want = want_a;
    else if (p->n_b_g1 != want_b)
        what = "b_g1", have = p->n_b_g1, want = want_b;
    else if (p->n_b_g2 != want_b)
        what = "b_g2", have = p->n_b_g2, want = want_b;
    if (!what)
        return G16_OK;
    return g16__error(err, G16_ERR_SIZE_MISMATCH,
                      "parameters do not match the circuit: %s query has %llu points, the circuit needs %llu", what,
                      (unsigned long long)have, (unsigned long long)want);
}

typedef struct {
    g16_p1 h, l, a, b1;
    g16_p2 b2;
} msm_results;

static g16_status run_msms(msm_results *m, const struct g16_params *p, const struct g16_r1cs *r, const g16_fr *w,
                           const g16_fr *h, g16_error *err)
{
    g16_status st;
    uint64_t ni = r->num_inputs, na = r->num_aux;
    uint64_t nb_in = r->density_count[G16__DENS_B_INPUT];
    g16_p1 t1;
    g16_p2 t2;
    g16__span sp = g16__span_begin_n("msm.h", p->n_h);
    st = g16__p1_msm_var(&m->h, p->h, h, p->n_h, NULL, err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.l", p->n_l);
    st = g16__p1_msm_var(&m->l, p->l, w + ni, na, NULL, err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.a", p->n_a);
    st = g16__p1_msm_var(&m->a, p->a, w, ni, NULL, err);
    if (st == G16_OK)
        st = g16__p1_msm_density_var(&t1, p->a + ni, p->n_a - ni, w + ni, na, r->density[G16__DENS_A_AUX], NULL,
                                     err);
    if (st == G16_OK)
        g16__p1_add_var(&m->a, &m->a, &t1);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.b_g1", p->n_b_g1);
    st = g16__p1_msm_density_var(&m->b1, p->b_g1, nb_in, w, ni, r->density[G16__DENS_B_INPUT], NULL, err);
    if (st == G16_OK)
        st = g16__p1_msm_density_var(&t1, p->b_g1 + nb_in, p->n_b_g1 - nb_in, w + ni, na,
                                     r->density[G16__DENS_B_AUX], NULL, err);
    if (st == G16_OK)
        g16__p1_add_var(&m->b1, &m->b1, &t1);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.b_g2", p->n_b_g2);
    st = g16__p2_msm_density_var(&m->b2, p->b_g2, nb_in, w, ni, r->density[G16__DENS_B_INPUT], NULL, err);
    if (st == G16_OK)
        st = g16__p2_msm_density_var(&t2, p->b_g2 + nb_in, p->n_b_g2 - nb_in, w + ni, na,
                                     r->density[G16__DENS_B_AUX], NULL, err);
    if (st == G16_OK)
        g16__p2_add_var(&m->b2, &m->b2, &t2);
    g16__span_end(sp);
    return st;
}

void g16__groth16_assemble(g16_proof *proof, const struct g16_vk *vk, const g16_p1 *sum_a, const g16_p1 *sum_b1,
                           const g16_p2 *sum_b2, const g16_p1 *sum_c, const g16_fr *r, const g16_fr *s)
{
    g16__span sp = g16__span_begin("prove.assemble");
    g16_p1 a, b1, c, t, delta1;
    g16_p2 b2, u;
    g16_fr rs;
    g16__p1_from_affine(&delta1, &vk->delta_g1);
    /* A = α + Σa + r·δ */
    g16__p1_mul(&t, &delta1, r);
    g16__p1_add(&a, sum_a, &t);
    g16__p1_add_affine(&a, &a, &vk->alpha_g1);
    /* B = β + Σb + s·δ, in G2 and in G1 */
    g16__p2_from_affine(&u, &vk->delta_g2);
    g16__p2_mul(&u, &u, s);
    g16__p2_add(&b2, sum_b2, &u);
    g16__p2_add_affine(&b2, &b2, &vk->beta_g2);
    g16__p1_mul(&t, &delta1, s);
    g16__p1_add(&b1, sum_b1, &t);
    g16__p1_add_affine(&b1, &b1, &vk->beta_g1);
    /* C = s·A + r·B1 − r·s·δ + Σc */
    g16__p1_mul(&c, &a, s);
    g16__p1_mul(&t, &b1, r);
    g16__p1_add(&c, &c, &t);
    g16__fr_mul(&rs, r, s);
    g16__p1_mul(&t, &delta1, &rs);
    g16__p1_neg(&t, &t);
    g16__p1_add(&c, &c, &t);
    g16__p1_add(&c, &c, sum_c);
    g16__p1_to_affine(&proof->a, &a);
    g16__p2_to_affine(&proof->b, &b2);
    g16__p1_to_affine(&proof->c, &c);
    memset(&rs, 0, sizeof rs);
    g16__span_end(sp);
}

typedef struct {
    g16_fr *a, *b, *c;
    size_t bytes;
} h_buffers;

static void free_h_buffers(h_buffers *hb)
{
    if (hb->a)
        g16__free_async(hb->a, hb->bytes, "prove.a", g16__free_large);
    if (hb->b)
        g16__free_async(hb->b, hb->bytes, "prove.b", g16__free_large);
    if (hb->c)
        g16__free_async(hb->c, hb->bytes, "prove.c", g16__free_large);
}

/* Where the H step runs. The GPU backend currently takes the NTTs (the H step); the MSMs run on
 * the CPU until the GPU MSM is wired in. */
typedef struct {
    g16__gpu *gpu;
    g16__gpu_ntt *ntt;
} backend;

static void backend_close(backend *be)
{
    g16__gpu_ntt_destroy(be->ntt);
    g16__gpu_close(be->gpu);
    memset(be, 0, sizeof *be);
}

static void backend_notice(const char *what)
{
    static int said; /* one line per process is enough */
    if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
        fprintf(stderr, "g16: backend %s\n", what);
}

static g16_status backend_open(backend *be, const char *choice, unsigned log_n, g16_error *err)
{
    memset(be, 0, sizeof *be);
    if (!choice)
        choice = getenv("G16_BACKEND");
    if (!choice || !*choice)
        choice = "auto";
    if (!strcmp(choice, "cpu"))
        return G16_OK;
    int want_gpu = !strcmp(choice, "gpu");
    if (!want_gpu && strcmp(choice, "auto") != 0)
        return g16__error(err, G16_ERR_ARG, "backend '%s': expected cpu, gpu or auto", choice);
    if (g16__gpu_device_count() == 0) {
        if (want_gpu)
            return g16__error(err, G16_ERR_NO_DEVICE, "backend gpu: %s",
                              g16__gpu_compiled() ? "no CUDA device is visible" : "this build has no CUDA backend");
        backend_notice("auto: cpu (no CUDA device)");
        return G16_OK;
    }
    g16_status st = g16__gpu_open(&be->gpu, 0, err);
    if (st == G16_OK)
        st = g16__gpu_ntt_create(&be->ntt, be->gpu, log_n, &g16__fr_generator, NULL, err);
    if (st != G16_OK) {
        backend_close(be);
        return st;
    }
    g16__gpu_info info;
    g16__gpu_get_info(be->gpu, &info);
    char line[sizeof info.name + 64];
    snprintf(line, sizeof line, "%s: gpu 0 (%s) for the NTTs, cpu for the MSMs", want_gpu ? "gpu" : "auto",
             info.name);
    backend_notice(line);
    return G16_OK;
}

/* One proof: witness check, a/b/c, H, MSMs, assembly, self-verification. */
static g16_status prove_one(g16_proof *proof, size_t idx, const struct g16_params *p, const struct g16_r1cs *r,
                            const g16_fr *w, const g16__ntt_domain *dom, backend *be, h_buffers *hb,
                            const g16_pvk *pvk,
                            const g16_fr *rr, const g16_fr *ss, unsigned flags, g16_error *err)
{
    g16_status st = G16_OK;
    size_t w_len = r->num_inputs + r->num_aux;
    g16__span span = g16__span_begin_n("prove.circuit", idx);
    if (!(flags & G16_PROVE_NO_CHECK)) {
        g16__span sp = g16__span_begin("r1cs.check");
        st = g16_r1cs_check(r, w, w_len, err);
        g16__span_end(sp);
        if (st != G16_OK)
            goto cleanup;
    }
    g16__span sp = g16__span_begin_n("spmv", r->num_constraints);
    st = g16_r1cs_eval(r, w, w_len, hb->a, hb->b, hb->c, r->n, err);
    g16__span_end(sp);
    if (st != G16_OK)
        goto cleanup;
    sp = g16__span_begin_n(be->ntt ? "ntt.h.gpu" : "ntt.h", r->n);
    if (be->ntt)
        st = g16__gpu_ntt_groth16_h_host(be->ntt, hb->a, hb->b, hb->c, err);
    else
        g16__ntt_groth16_h(dom, hb->a, hb->b, hb->c);
    g16__span_end(sp);
    if (st != G16_OK)
        goto cleanup;
    msm_results m;
    if ((st = run_msms(&m, p, r, w, hb->a, err)) != G16_OK)
        goto cleanup;
    g16_p1 sum_c;
    g16__p1_add(&sum_c, &m.h, &m.l);
    g16__groth16_assemble(proof, &p->vk, &m.a, &m.b1, &m.b2, &sum_c, rr, ss);
    /* The proof goes through the decoder's checks (curve, subgroup) as a verifier would read it,
     * always: parameters loaded without subgroup checks cannot make a proof with a torsion
     * component (which would leak the witness modulo the small cofactor primes) reach the caller. */
    uint8_t bytes[G16_PROOF_BYTES];
    g16_proof_write(bytes, proof);
    if ((st = g16_proof_read(proof, bytes, err)) != G16_OK)
        goto cleanup;
    if (pvk && (st = g16__verify_with(pvk, proof, w + 1, r->num_inputs - 1, err)) != G16_OK)
        g16__error(err, G16_ERR_VERIFY_FAILED, "circuit %zu: the proof does not verify (refusing to return it)", idx);
cleanup:
    if (st != G16_OK && err && strncmp(err->msg, "circuit ", 8) != 0)
        g16__error_prefix(err, "circuit %zu: ", idx);
    g16__span_end(span);
    return st;
}

g16_status g16_prove(g16_proof *proofs, const g16_params *params, const g16_r1cs *r1cs,
                     const g16_fr *const *witnesses, size_t count, const g16_prove_opts *opts, g16_error *err)
{
    g16_status st = G16_OK;
    unsigned flags = opts ? opts->flags : 0;
    g16__ntt_domain *dom = NULL;
    g16_pvk *pvk = NULL;
    g16_proof *out = NULL;
    h_buffers hb = {0};
    backend be = {0};
    g16__span span = g16__span_begin_n("prove", count);
    if (!proofs || !params || !r1cs || (count && !witnesses)) {
        st = g16__error(err, G16_ERR_ARG, "g16_prove: NULL argument");
        goto cleanup;
    }
    for (size_t i = 0; i < count; i++)
        if (!witnesses[i]) {
            st = g16__error(err, G16_ERR_ARG, "g16_prove: witness %zu is NULL", i);
            goto cleanup;
        }
    if ((st = check_shapes(params, r1cs, err)) != G16_OK || count == 0)
        goto cleanup;
    if (!(flags & G16_PROVE_NO_VERIFY) && (st = g16_pvk_create(&pvk, &params->vk, err)) != G16_OK)
        goto cleanup;
    if ((st = backend_open(&be, opts ? opts->backend : NULL, r1cs->log_n, err)) != G16_OK)
        goto cleanup;
    if (!be.ntt && (st = g16__ntt_domain_create(&dom, r1cs->log_n, &g16__fr_generator, NULL, err)) != G16_OK)
        goto cleanup;
    hb.bytes = r1cs->n * sizeof(g16_fr);
    hb.a = g16__alloc_large(hb.bytes);
    hb.b = g16__alloc_large(hb.bytes);
    hb.c = g16__alloc_large(hb.bytes);
    out = malloc(count * sizeof *out);
    if (!hb.a || !hb.b || !hb.c || !out) {
        st = g16__error(err, G16_ERR_NOMEM, "g16_prove: 3 x %zu bytes for a, b, c", hb.bytes);
        goto cleanup;
    }
    g16__rng rng;
    g16__rng_init_os(&rng);
    for (size_t i = 0; i < count; i++) {
        g16_fr rr, ss;
        if (opts && opts->r && opts->s) {
            rr = opts->r[i];
            ss = opts->s[i];
        } else if ((st = g16__fr_random(&rr, &rng)) != G16_OK || (st = g16__fr_random(&ss, &rng)) != G16_OK) {
            g16__error(err, st, "g16_prove: the OS random generator failed");
            goto cleanup;
        }
        st = prove_one(&out[i], i, params, r1cs, witnesses[i], dom, &be, &hb, pvk, &rr, &ss, flags, err);
        memset(&rr, 0, sizeof rr);
        memset(&ss, 0, sizeof ss);
        if (st != G16_OK)
            goto cleanup;
    }
    memcpy(proofs, out, count * sizeof *out);
cleanup:
    free(out);
    free_h_buffers(&hb);
    g16__ntt_domain_destroy(dom);
    backend_close(&be);
    g16_pvk_destroy(pvk);
    g16__span_end(span);
    return st;
}
