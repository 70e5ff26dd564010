/*
 * Groth16 proving from a snarkjs zkey: rows → a, b, c → H on the odd coset → five MSMs →
 * assembly with the secret r, s → self-verification. See zkey.h for the differences from
 * bellman's prover (prove.c) and the formulas.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "field/random.h"
#include "groth16/zkey.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/threads.h"
#include "util/trace.h"

void g16__zkey_root_generator(g16_fr *g) { g16__fr_from_u64(g, 5); }

static void free_pts(void *p, uint64_t n, size_t size)
{
    if (p)
        g16__free_large(p, (n ? n : 1) * size);
}

void g16__zkey_free(g16__zkey *zk)
{
    if (!zk)
        return;
    uint64_t n_priv = zk->n_vars > zk->n_public ? zk->n_vars - zk->n_public - 1 : 0;
    free_pts(zk->vk.ic, zk->vk.n_ic, sizeof(g16_p1_affine));
    for (int m = 0; m < 2; m++) {
        free_pts(zk->rp[m], zk->n + 1, sizeof(uint64_t));
        free_pts(zk->col[m], zk->nnz[m], sizeof(uint32_t));
        free_pts(zk->coeff[m], zk->nnz[m], sizeof(g16_fr));
    }
    free_pts(zk->a, zk->n_vars, sizeof(g16_p1_affine));
    free_pts(zk->b1, zk->n_vars, sizeof(g16_p1_affine));
    free_pts(zk->b2, zk->n_vars, sizeof(g16_p2_affine));
    free_pts(zk->c, n_priv, sizeof(g16_p1_affine));
    free_pts(zk->h, zk->n, sizeof(g16_p1_affine));
    for (int k = 0; k < 4; k++)
        free(zk->dens[k]);
    memset(zk, 0, sizeof *zk);
}

/* ---------------------------------------------------------------- a, b, c */

typedef struct {
    const g16__zkey *zk;
    const g16_fr *w;
    g16_fr *a, *b, *c;
} rows_job;

static void row_dot(g16_fr *out, const g16__zkey *zk, int m, uint64_t i, const g16_fr *w)
{
    g16_fr acc, t;
    g16__fr_set_zero(&acc);
    for (uint64_t k = zk->rp[m][i]; k < zk->rp[m][i + 1]; k++) {
        g16__fr_mul(&t, &zk->coeff[m][k], &w[zk->col[m][k]]);
        g16__fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

static void rows_range(void *ctx, size_t begin, size_t end)
{
    rows_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        row_dot(&j->a[i], j->zk, 0, i, j->w);
        row_dot(&j->b[i], j->zk, 1, i, j->w);
        g16__fr_mul(&j->c[i], &j->a[i], &j->b[i]);
    }
}

typedef struct {
    g16_fr *a;
    const g16_fr *b, *c;
} join_job;

static void join_range(void *ctx, size_t begin, size_t end)
{
    join_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        g16__fr_mul(&j->a[i], &j->a[i], &j->b[i]);
        g16__fr_sub(&j->a[i], &j->a[i], &j->c[i]);
    }
}

/* The odd-coset domain: size n, roots from 5, shift ω_2n. */
static g16_status odd_domain(g16__ntt_domain **d, unsigned log_n, g16_error *err)
{
    g16_fr gen, shift;
    g16__zkey_root_generator(&gen);
    if (g16__fr_root_of_unity_from(&shift, &gen, log_n + 1) != 0)
        return g16__error(err, G16_ERR_UNSUPPORTED, "zkey: domain 2^%u is too large", log_n);
    return g16__ntt_domain_create(d, log_n, &gen, &shift, err);
}

/* a <- H scalars; b and c are scratch. All three hold n elements. */
static g16_status compute_h(g16_fr *a, g16_fr *b, g16_fr *c, const g16__zkey *zk, const g16_fr *w, g16_error *err)
{
    g16__ntt_domain *d = NULL;
    g16_status st = odd_domain(&d, zk->log_n, err);
    if (st != G16_OK)
        return st;
    g16__span sp = g16__span_begin_n("rows", zk->n);
    rows_job rj = {zk, w, a, b, c};
    g16__parallel_for(zk->n, 1024, rows_range, &rj);
    g16__span_end(sp);
    sp = g16__span_begin_n("ntt.h_odd", zk->n);
    g16_fr *v[3] = {a, b, c};
    for (int k = 0; k < 3; k++) {
        g16__ntt_inverse(d, v[k]);
        g16__ntt_coset_forward(d, v[k]);
    }
    join_job jj = {a, b, c};
    g16__parallel_for(zk->n, 4096, join_range, &jj);
    g16__span_end(sp);
    g16__ntt_domain_destroy(d);
    return G16_OK;
}

typedef struct {
    g16_fr *a, *b, *c;
    size_t bytes;
} abc;

/* a, b, c in one allocation: after the H step b and c are the G1 MSMs' scratch (run_msms). */
static g16_status abc_alloc(abc *x, uint64_t n, g16_error *err)
{
    x->bytes = n * sizeof(g16_fr);
    if (n > SIZE_MAX / (3 * sizeof(g16_fr)) || !(x->a = g16__alloc_large(3 * x->bytes)))
        return g16__error(err, G16_ERR_NOMEM, "zkey prove: 3 x %zu bytes for a, b, c", x->bytes);
    x->b = x->a + n;
    x->c = x->b + n;
    return G16_OK;
}

static void abc_free(abc *x) { g16__free_large(x->a, 3 * x->bytes); }

static g16_status check_witness(const g16__zkey *zk, const g16_fr *w, size_t w_len, g16_error *err)
{
    if (!zk || !w)
        return g16__error(err, G16_ERR_ARG, "zkey prove: NULL argument");
    if (w_len != zk->n_vars)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "the witness has %zu values, the zkey's circuit has %llu wires",
                          w_len, (unsigned long long)zk->n_vars);
    if (!g16__fr_is_one(&w[0]))
        return g16__error(err, G16_ERR_ARG, "witness value 0 must be 1 (the constant ONE wire)");
    return G16_OK;
}

g16_status g16__zkey_h(g16_fr *h, const g16__zkey *zk, const g16_fr *w, g16_error *err)
{
    abc x = {0};
    g16_status st = check_witness(zk, w, zk ? zk->n_vars : 0, err);
    if (st == G16_OK && (st = abc_alloc(&x, zk->n, err)) == G16_OK &&
        (st = compute_h(x.a, x.b, x.c, zk, w, err)) == G16_OK)
        memcpy(h, x.a, zk->n * sizeof *h);
    abc_free(&x);
    return st;
}

/* ---------------------------------------------------------------- MSMs and assembly */

typedef struct {
    g16_p1 a, b1, c, h;
    g16_p2 b2;
} sums;

/* The wire sections go through the density form: only the wires with a point are multiplied. */
/* h is consumed (its MSM converts it in place); the G1 MSMs may use the scratch_bytes at scratch for
 * their lane copies of the bases (prove.c's run_msms says why). */
static g16_status run_msms(sums *s, const g16__zkey *zk, const g16_fr *w, g16_fr *h, void *scratch,
                           size_t scratch_bytes, g16_error *err)
{
    g16__msm_opts o = {0}, *opts = &o;
    o.scratch = scratch;
    o.scratch_bytes = scratch_bytes;
    g16_status st;
    uint64_t priv = zk->n_public + 1;
    const uint64_t *const *d = (const uint64_t *const *)zk->dens;
    g16__span sp = g16__span_begin_n("msm.a", zk->n_pts[G16__ZK_A]);
    st = g16__p1_msm_density_var(&s->a, zk->a, zk->n_pts[G16__ZK_A], w, zk->n_vars, d[G16__ZK_A], opts, err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.b_g1", zk->n_pts[G16__ZK_B1]);
    st = g16__p1_msm_density_var(&s->b1, zk->b1, zk->n_pts[G16__ZK_B1], w, zk->n_vars, d[G16__ZK_B1], opts, err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.b_g2", zk->n_pts[G16__ZK_B2]);
    st = g16__p2_msm_density_var(&s->b2, zk->b2, zk->n_pts[G16__ZK_B2], w, zk->n_vars, d[G16__ZK_B2], NULL, err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.c", zk->n_pts[G16__ZK_C]);
    st = g16__p1_msm_density_var(&s->c, zk->c, zk->n_pts[G16__ZK_C], w + priv, zk->n_vars - priv, d[G16__ZK_C], opts,
                                 err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.h", zk->n);
    st = g16__p1_msm_consume_var(&s->h, zk->h, h, zk->n, opts, err);
    g16__span_end(sp);
    return st;
}

g16_status g16__zkey_prove(g16_proof *proof, const g16__zkey *zk, const g16_fr *w, size_t w_len,
                           const g16_prove_opts *opts, g16_error *err)
{
    abc x = {0};
    g16_pvk *pvk = NULL;
    g16_fr r, s;
    sums m;
    g16_proof out;
    unsigned flags = opts ? opts->flags : 0;
    g16__span span = g16__span_begin_n("prove.zkey", zk ? zk->n : 0);
    g16_status st = check_witness(zk, w, w_len, err);
    if (st != G16_OK || !proof) {
        if (st == G16_OK)
            st = g16__error(err, G16_ERR_ARG, "zkey prove: NULL proof");
        goto cleanup;
    }
    if (!(flags & G16_PROVE_NO_VERIFY) && (st = g16_pvk_create(&pvk, &zk->vk, err)) != G16_OK)
        goto cleanup;
    if ((st = abc_alloc(&x, zk->n, err)) != G16_OK || (st = compute_h(x.a, x.b, x.c, zk, w, err)) != G16_OK ||
        (st = run_msms(&m, zk, w, x.a, x.b, 2 * x.bytes, err)) != G16_OK)
        goto cleanup;
    if (opts && opts->r && opts->s) {
        r = opts->r[0];
        s = opts->s[0];
    } else {
        g16__rng rng;
        g16__rng_init_os(&rng);
        if ((st = g16__fr_random(&r, &rng)) != G16_OK || (st = g16__fr_random(&s, &rng)) != G16_OK) {
            g16__error(err, st, "zkey prove: the OS random generator failed");
            goto cleanup;
        }
    }
    g16__span sp = g16__span_begin("prove.assemble");
    g16_p1 sum_c;
    g16__p1_add(&sum_c, &m.c, &m.h);
    g16__groth16_assemble(&out, &zk->vk, &m.a, &m.b1, &m.b2, &sum_c, &r, &s);
    g16__span_end(sp);
    memset(&r, 0, sizeof r);
    memset(&s, 0, sizeof s);
    if (pvk && g16__verify_with(pvk, &out, w + 1, zk->n_public, err) != G16_OK) {
        st = g16__error(err, G16_ERR_VERIFY_FAILED,
                        "the proof does not verify against the zkey's verifying key (refusing to return it): "
                        "the witness does not satisfy the circuit, or the zkey is inconsistent");
        goto cleanup;
    }
    *proof = out;
cleanup:
    abc_free(&x);
    g16_pvk_destroy(pvk);
    g16__span_end(span);
    return st;
}
