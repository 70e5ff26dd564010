/*
 * Groth16 setup (bellman's generator): parameters for a finalized circuit from toxic waste
 * tau, alpha, beta, gamma, delta.
 *
 * With L_q the Lagrange basis of the domain (size N, root ω) and A_j(τ) = Σ_q A[q][j]·L_q(τ):
 *   ic_k  = (β·A_k(τ) + α·B_k(τ) + C_k(τ)) / γ · G1        for inputs k
 *   l_j   = (β·A_j(τ) + α·B_j(τ) + C_j(τ)) / δ · G1        for aux j
 *   a     = A_k(τ)·G1 for every input, then A_j(τ)·G1 for the aux in the A density
 *   b_g1, b_g2 = B(τ)·G1, B(τ)·G2 for the inputs, then the aux, in the B densities
 *   h_i   = τ^i·(τ^N − 1)/δ · G1                            for i < N − 1
 * L_q(τ) = (τ^N − 1)/N · ω^q / (τ − ω^q), evaluated for the m rows with one inversion.
 */
#include <stdlib.h>
#include <string.h>

#include "field/random.h"
#include "groth16/fixed_base.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/trace.h"

typedef struct {
    g16_fr tau, alpha, beta, gamma, delta;
} toxic_waste;

/* lag[q] = L_q(τ) for q < m; z = τ^N − 1. Fails (G16_ERR_INTERNAL) when τ is in the domain. */
static g16_status lagrange_at_tau(g16_fr *lag, uint64_t m, const struct g16_r1cs *r, const g16_fr *tau, g16_fr *z)
{
    g16_fr omega, w, n_inv, acc, inv;
    g16__fr_root_of_unity(&omega, r->log_n);
    g16__fr_from_u64(&n_inv, r->n);
    g16__fr_inv(&n_inv, &n_inv);
    uint64_t e[1] = {r->n};
    g16__fr_pow(z, tau, e, 1);
    g16__fr_sub(z, z, &g16__fr_one);
    if (g16__fr_is_zero(z))
        return G16_ERR_INTERNAL;
    /* lag[q] = τ − ω^q, and the prefix products for one shared inversion */
    g16_fr *prefix = malloc((m ? m : 1) * sizeof *prefix);
    if (!prefix)
        return G16_ERR_NOMEM;
    w = g16__fr_one;
    acc = g16__fr_one;
    for (uint64_t q = 0; q < m; q++) {
        g16__fr_sub(&lag[q], tau, &w);
        prefix[q] = acc;
        g16__fr_mul(&acc, &acc, &lag[q]);
        g16__fr_mul(&w, &w, &omega);
    }
    g16__fr_inv(&inv, &acc);
    g16_fr scale;
    g16__fr_mul(&scale, z, &n_inv);
    /* walk back: inv = 1/Π_{k<=q}(τ − ω^k) */
    g16_fr omega_inv, wq;
    g16__fr_inv(&omega_inv, &omega);
    uint64_t em[1] = {m};
    g16__fr_pow(&wq, &omega, em, 1);
    for (uint64_t q = m; q-- > 0;) {
        g16_fr d = lag[q], t;
        g16__fr_mul(&wq, &wq, &omega_inv); /* ω^q */
        g16__fr_mul(&t, &inv, &prefix[q]); /* 1/(τ − ω^q) */
        g16__fr_mul(&inv, &inv, &d);
        g16__fr_mul(&t, &t, &wq);
        g16__fr_mul(&lag[q], &t, &scale);
    }
    free(prefix);
    return G16_OK;
}

/* out[col] += coeff·lag[row] over every entry of matrix mat. */
static void column_eval(g16_fr *out, const struct g16_r1cs *r, int mat, const g16_fr *lag)
{
    const g16__csr *csr = &r->mat[mat];
    for (uint64_t q = 0; q < r->num_constraints; q++) {
        for (uint64_t k = g16__csr_rp(csr, q), end = g16__csr_rp(csr, q + 1); k < end;) {
            uint32_t cid, col = g16__csr_next(csr, &k, &cid);
            g16_fr t;
            if (cid == G16__CID_ONE)
                g16__fr_add(&out[col], &out[col], &lag[q]);
            else if (cid == G16__CID_MINUS_ONE)
                g16__fr_sub(&out[col], &out[col], &lag[q]);
            else {
                g16__fr_mul(&t, &r->coeffs[cid], &lag[q]);
                g16__fr_add(&out[col], &out[col], &t);
            }
        }
    }
}

static int bit_set(const uint64_t *bm, uint64_t i) { return (int)((bm[i / 64] >> (i % 64)) & 1); }

static g16_status draw_toxic_waste(toxic_waste *tw, g16__rng *rng)
{
    g16_fr *all[5] = {&tw->tau, &tw->alpha, &tw->beta, &tw->gamma, &tw->delta};
    for (int i = 0; i < 5; i++) {
        g16_status st = g16__fr_random_nonzero(all[i], rng);
        if (st != G16_OK)
            return st;
    }
    return G16_OK;
}

typedef struct {
    g16_fr *at, *bt, *ct; /* per column */
    g16_fr *sa, *sb, *sic, *sl, *sh; /* scalars of each query */
} setup_scalars;

/* Builds the scalar of every query point; G16_ERR_INTERNAL when a dense column evaluates to 0
 * at τ (probability ~N/r; the caller draws new toxic waste). */
static g16_status query_scalars(setup_scalars *s, const struct g16_r1cs *r, struct g16_params *p,
                                const toxic_waste *tw, const g16_fr *lag, const g16_fr *z)
{
    uint64_t ni = r->num_inputs, na = r->num_aux;
    column_eval(s->at, r, 0, lag);
    column_eval(s->bt, r, 1, lag);
    column_eval(s->ct, r, 2, lag);
    g16_fr gamma_inv, delta_inv;
    g16__fr_inv(&gamma_inv, &tw->gamma);
    g16__fr_inv(&delta_inv, &tw->delta);
    uint64_t ia = 0, ib = 0;
    for (uint64_t c = 0; c < ni + na; c++) {
        g16_fr t, u;
        g16__fr_mul(&t, &tw->beta, &s->at[c]);
        g16__fr_mul(&u, &tw->alpha, &s->bt[c]);
        g16__fr_add(&t, &t, &u);
        g16__fr_add(&t, &t, &s->ct[c]);
        if (c < ni)
            g16__fr_mul(&s->sic[c], &t, &gamma_inv);
        else
            g16__fr_mul(&s->sl[c - ni], &t, &delta_inv);
        int in_a = c < ni || bit_set(r->density[G16__DENS_A_AUX], c - ni);
        int in_b = c < ni ? bit_set(r->density[G16__DENS_B_INPUT], c) : bit_set(r->density[G16__DENS_B_AUX], c - ni);
        if ((in_a && g16__fr_is_zero(&s->at[c])) || (in_b && g16__fr_is_zero(&s->bt[c])))
            return G16_ERR_INTERNAL;
        if (in_a)
            s->sa[ia++] = s->at[c];
        if (in_b)
            s->sb[ib++] = s->bt[c];
    }
    if (ia != p->n_a || ib != p->n_b_g1)
        return G16_ERR_INTERNAL;
    g16_fr t;
    g16__fr_mul(&t, z, &delta_inv);
    for (uint64_t i = 0; i < p->n_h; i++) {
        s->sh[i] = t;
        g16__fr_mul(&t, &t, &tw->tau);
    }
    return G16_OK;
}

static g16_status compute_points(struct g16_params *p, const setup_scalars *s, const toxic_waste *tw)
{
    g16_status st;
    g16_p1 t1;
    g16_p2 t2;
    struct g16_vk *vk = &p->vk;
    const g16_p1_affine *g1 = &g16__p1_generator_affine;
    const g16_p2_affine *g2 = &g16__p2_generator_affine;
    g16__p1_generator(&t1);
    g16__p1_mul(&t1, &t1, &tw->alpha);
    g16__p1_to_affine(&vk->alpha_g1, &t1);
    g16__p1_generator(&t1);
    g16__p1_mul(&t1, &t1, &tw->beta);
    g16__p1_to_affine(&vk->beta_g1, &t1);
    g16__p1_generator(&t1);
    g16__p1_mul(&t1, &t1, &tw->delta);
    g16__p1_to_affine(&vk->delta_g1, &t1);
    g16__p2_generator(&t2);
    g16__p2_mul(&t2, &t2, &tw->beta);
    g16__p2_to_affine(&vk->beta_g2, &t2);
    g16__p2_generator(&t2);
    g16__p2_mul(&t2, &t2, &tw->gamma);
    g16__p2_to_affine(&vk->gamma_g2, &t2);
    g16__p2_generator(&t2);
    g16__p2_mul(&t2, &t2, &tw->delta);
    g16__p2_to_affine(&vk->delta_g2, &t2);
    g16__span sp = g16__span_begin_n("setup.g1_queries", p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1);
    if ((st = g16__p1_fixed_base_mul(vk->ic, g1, s->sic, vk->n_ic)) != G16_OK ||
        (st = g16__p1_fixed_base_mul(p->h, g1, s->sh, p->n_h)) != G16_OK ||
        (st = g16__p1_fixed_base_mul(p->l, g1, s->sl, p->n_l)) != G16_OK ||
        (st = g16__p1_fixed_base_mul(p->a, g1, s->sa, p->n_a)) != G16_OK ||
        (st = g16__p1_fixed_base_mul(p->b_g1, g1, s->sb, p->n_b_g1)) != G16_OK) {
        g16__span_end(sp);
        return st;
    }
    g16__span_end(sp);
    sp = g16__span_begin_n("setup.g2_queries", p->n_b_g2);
    st = g16__p2_fixed_base_mul(p->b_g2, g2, s->sb, p->n_b_g2);
    g16__span_end(sp);
    return st;
}

g16_status g16_setup(g16_params **out, const g16_r1cs *r1cs, const g16_setup_opts *opts, g16_error *err)
{
    g16_status st = G16_OK;
    struct g16_params *p = NULL;
    setup_scalars s = {0};
    g16_fr *lag = NULL;
    toxic_waste tw;
    g16__rng rng;
    g16__span span = g16__span_begin("setup");
    if (!out || !r1cs) {
        st = g16__error(err, G16_ERR_ARG, "g16_setup: NULL argument");
        goto cleanup;
    }
    const struct g16_r1cs *r = r1cs;
    uint64_t ncols = r->num_inputs + r->num_aux;
    p = calloc(1, sizeof *p);
    if (!p) {
        st = g16__error(err, G16_ERR_NOMEM, "g16_setup: out of memory");
        goto cleanup;
    }
    p->vk.n_ic = r->num_inputs;
    p->n_h = r->n - 1;
    p->n_l = r->num_aux;
    p->n_a = r->num_inputs + r->density_count[G16__DENS_A_AUX];
    p->n_b_g1 = p->n_b_g2 = r->density_count[G16__DENS_B_INPUT] + r->density_count[G16__DENS_B_AUX];
    if ((st = g16__params_alloc(p, err)) != G16_OK)
        goto cleanup;
    lag = malloc(r->num_constraints * sizeof *lag);
    s.at = calloc(ncols, sizeof(g16_fr));
    s.bt = calloc(ncols, sizeof(g16_fr));
    s.ct = calloc(ncols, sizeof(g16_fr));
    s.sa = malloc((p->n_a + 1) * sizeof(g16_fr));
    s.sb = malloc((p->n_b_g1 + 1) * sizeof(g16_fr));
    s.sic = malloc(p->vk.n_ic * sizeof(g16_fr));
    s.sl = malloc((p->n_l + 1) * sizeof(g16_fr));
    s.sh = malloc((p->n_h + 1) * sizeof(g16_fr));
    if (!lag || !s.at || !s.bt || !s.ct || !s.sa || !s.sb || !s.sic || !s.sl || !s.sh) {
        st = g16__error(err, G16_ERR_NOMEM, "g16_setup: scalars for %llu columns", (unsigned long long)ncols);
        goto cleanup;
    }
    if (opts && opts->deterministic)
        g16__rng_init_seeded(&rng, opts->seed);
    else
        g16__rng_init_os(&rng);
    g16__span sp = g16__span_begin("setup.scalars");
    for (int attempt = 0;; attempt++) {
        g16_fr z;
        if ((st = draw_toxic_waste(&tw, &rng)) != G16_OK) {
            g16__error(err, st, "g16_setup: the random generator failed");
            break;
        }
        memset(s.at, 0, ncols * sizeof(g16_fr));
        memset(s.bt, 0, ncols * sizeof(g16_fr));
        memset(s.ct, 0, ncols * sizeof(g16_fr));
        st = lagrange_at_tau(lag, r->num_constraints, r, &tw.tau, &z);
        if (st == G16_OK)
            st = query_scalars(&s, r, p, &tw, lag, &z);
        if (st != G16_ERR_INTERNAL || attempt == 3)
            break;
    }
    g16__span_end(sp);
    if (st != G16_OK) {
        g16__error(err, st, "g16_setup: could not evaluate the circuit at tau");
        goto cleanup;
    }
    if ((st = compute_points(p, &s, &tw)) != G16_OK) {
        g16__error(err, st, "g16_setup: computing the query points");
        goto cleanup;
    }
    *out = p;
    p = NULL;
cleanup:
    memset(&tw, 0, sizeof tw);
    memset(&rng, 0, sizeof rng);
    free(lag);
    free(s.at);
    free(s.bt);
    free(s.ct);
    free(s.sa);
    free(s.sb);
    free(s.sic);
    free(s.sl);
    free(s.sh);
    g16_params_destroy(p);
    g16__span_end(span);
    return st;
}
