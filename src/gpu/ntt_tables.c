/* GPU NTT tables, built on the host: see ntt_tables.h. */
#include "gpu/ntt_tables.h"
#include "gpu/gpu.h"

#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "util/error.h"
#include "util/threads.h"

#define SMAX 11
#define TMAX 19
#define MAX_LOG 28

static unsigned log_t_of(unsigned log_n, unsigned tmax) { return log_n < tmax ? log_n : tmax; }

size_t g16__gpu_ntt_tables_elems(unsigned log_n)
{
    unsigned t = log_t_of(log_n, TMAX), b = log_n / 2;
    size_t small = (size_t)1 << SMAX, direct = (size_t)1 << t, lo = (size_t)1 << (log_n - t);
    size_t sc = ((size_t)1 << (log_n - b)) + ((size_t)1 << b);
    return 2 * (small + direct + lo) + G16__GPU_NTT_SETS * sc;
}

size_t g16__gpu_ntt_table_bytes(unsigned log_n)
{
    return log_n > MAX_LOG ? 0 : g16__gpu_ntt_tables_elems(log_n) * sizeof(g16_fr);
}

typedef struct {
    g16_fr *t;
    g16_fr s0, w;
} powers_ctx;

/* t[j] = s0·w^j: each chunk starts from its own power, so the result does not depend on the split. */
static void powers_task(void *vctx, size_t begin, size_t end)
{
    powers_ctx *c = vctx;
    uint64_t e = begin;
    g16__fr_pow(&c->t[begin], &c->w, &e, 1);
    g16__fr_mul(&c->t[begin], &c->t[begin], &c->s0);
    for (size_t j = begin + 1; j < end; j++)
        g16__fr_mul(&c->t[j], &c->t[j - 1], &c->w);
}

static void fill_powers(g16_fr *t, size_t count, const g16_fr *s0, const g16_fr *w)
{
    powers_ctx c = {t, *s0, *w};
    g16__parallel_for(count, 1u << 12, powers_task, &c);
}

static void pow2k(g16_fr *r, const g16_fr *a, unsigned k) /* r = a^(2^k) */
{
    *r = *a;
    for (unsigned i = 0; i < k; i++)
        g16__fr_sqr(r, r);
}

static g16_status check_params(unsigned log_n, const g16_fr *gen, const g16_fr *shift, g16_fr *z, g16_error *err)
{
    g16_fr t, minus_one;
    if (log_n > MAX_LOG)
        return g16__error(err, G16_ERR_ARG, "gpu ntt: domain 2^%u exceeds the maximum 2^%d", log_n, MAX_LOG);
    g16__fr_neg(&minus_one, &g16__fr_one);
    g16__fr_root_of_unity_from(&t, gen, 1);
    if (!g16__fr_eq(&t, &minus_one))
        return g16__error(err, G16_ERR_ARG, "gpu ntt: the root generator is a quadratic residue");
    if (g16__fr_is_zero(shift))
        return g16__error(err, G16_ERR_ARG, "gpu ntt: the coset shift is zero");
    pow2k(&t, shift, log_n);
    g16__fr_sub(z, &t, &g16__fr_one);
    if (g16__fr_is_zero(z))
        return g16__error(err, G16_ERR_ARG, "gpu ntt: the coset shift g has g^n = 1 (n = 2^%u)", log_n);
    return G16_OK;
}

/* Offsets of the layout in ntt_tables.h. */
static void layout(g16__gpu_ntt_host_tables *t, unsigned log_n, unsigned tmax)
{
    size_t off = 0, small = (size_t)1 << SMAX;
    t->log_n = log_n;
    t->log_t = log_t_of(log_n, tmax);
    t->sc_bits = log_n / 2;
    for (int d = 0; d < 2; d++) {
        t->small[d] = off;
        off += small;
        t->direct[d] = off;
        off += (size_t)1 << t->log_t;
        t->lo[d] = off;
        off += (size_t)1 << (log_n - t->log_t);
    }
    for (int s = 0; s < G16__GPU_NTT_SETS; s++) {
        t->sc_hi[s] = off;
        off += (size_t)1 << (log_n - t->sc_bits);
        t->sc_lo[s] = off;
        off += (size_t)1 << t->sc_bits;
    }
    t->total = off;
}

g16_status g16__gpu_ntt_tables_build(g16__gpu_ntt_host_tables *t, unsigned log_n, const g16_fr *root_generator,
                                     const g16_fr *coset_shift, g16_error *err)
{
    return g16__gpu_ntt_tables_build_ex(t, log_n, root_generator, coset_shift, TMAX, err);
}

g16_status g16__gpu_ntt_tables_build_ex(g16__gpu_ntt_host_tables *t, unsigned log_n, const g16_fr *root_generator,
                                        const g16_fr *coset_shift, unsigned tmax, g16_error *err)
{
    g16_status st = G16_OK;
    memset(t, 0, sizeof *t);
    if (!root_generator)
        return g16__error(err, G16_ERR_ARG, "gpu ntt: NULL root generator");
    const g16_fr *g = coset_shift ? coset_shift : root_generator;
    g16_fr z;
    st = check_params(log_n, root_generator, g, &z, err);
    if (st != G16_OK)
        return st;
    layout(t, log_n, tmax ? tmax : TMAX);
    t->buf = malloc(t->total * sizeof(g16_fr));
    if (!t->buf)
        return g16__error(err, G16_ERR_NOMEM, "gpu ntt: host tables for 2^%u (%zu bytes)", log_n,
                          t->total * sizeof(g16_fr));

    g16_fr w_small, w_n, w_t, inv[3], one = g16__fr_one, n_fr, g_inv, z_inv, s;
    g16__fr_root_of_unity_from(&w_small, root_generator, SMAX);
    g16__fr_root_of_unity_from(&w_n, root_generator, log_n);
    g16__fr_root_of_unity_from(&w_t, root_generator, t->log_t);
    g16__fr_inv(&inv[0], &w_small);
    g16__fr_inv(&inv[1], &w_t);
    g16__fr_inv(&inv[2], &w_n);
    const g16_fr *fw[3] = {&w_small, &w_t, &w_n};
    for (int d = 0; d < 2; d++) {
        /* per-stage layout: stage u's 2^u roots of order 2^(u+1) at 2^u (entry 0 unused: one) */
        g16_fr wu = d ? inv[0] : *fw[0];
        t->buf[t->small[d]] = one;
        for (int u = SMAX - 1; u >= 0; u--) {
            fill_powers(t->buf + t->small[d] + ((size_t)1 << u), (size_t)1 << u, &one, &wu);
            g16__fr_sqr(&wu, &wu);
        }
        fill_powers(t->buf + t->direct[d], (size_t)1 << t->log_t, &one, d ? &inv[1] : fw[1]);
        fill_powers(t->buf + t->lo[d], (size_t)1 << (log_n - t->log_t), &one, d ? &inv[2] : fw[2]);
    }

    g16__fr_from_u64(&n_fr, (uint64_t)1 << log_n);
    g16__fr_inv(&t->n_inv, &n_fr);
    g16__fr_inv(&g_inv, g);
    g16__fr_inv(&z_inv, &z);
    g16_fr s0[G16__GPU_NTT_SETS], X[G16__GPU_NTT_SETS];
    s0[0] = one;        X[0] = *g;
    s0[1] = t->n_inv;   X[1] = g_inv;
    s0[2] = t->n_inv;   X[2] = *g;
    g16__fr_mul(&s0[3], &t->n_inv, &z_inv);
    t->h_c0 = s0[3];
    X[3] = g_inv;
    for (int q = 0; q < G16__GPU_NTT_SETS; q++) {
        pow2k(&s, &X[q], t->sc_bits); /* X^(2^b): the step of the hi table */
        fill_powers(t->buf + t->sc_hi[q], (size_t)1 << (log_n - t->sc_bits), &s0[q], &s);
        fill_powers(t->buf + t->sc_lo[q], (size_t)1 << t->sc_bits, &one, &X[q]);
    }
    return G16_OK;
}

void g16__gpu_ntt_tables_free(g16__gpu_ntt_host_tables *t)
{
    if (!t)
        return;
    free(t->buf);
    t->buf = NULL;
}
