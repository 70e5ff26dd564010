/* A·w, B·w, C·w and the witness check: parallel sparse matrix–vector products over rows. */
#include <stdatomic.h>
#include <stdio.h>

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "util/error.h"
#include "util/threads.h"

/* Rows per task: a row costs ~10–100 ns, so 4096 rows keep scheduling overhead well under 1%
 * while still splitting a 2^16-row circuit over 16 threads. */
#define ROW_GRAIN 4096

/* <row i of m, w>. Coefficients 1 and −1 (the common case, packed without an id) cost one
 * add/sub; the branch depends only on the circuit, never on w. */
static inline void row_dot(g16_fr *out, const g16__csr *m, const g16_fr *coeffs, const g16_fr *w, uint64_t i)
{
    const uint32_t *p = m->w;
    uint64_t k = g16__csr_rp(m, i), hi = g16__csr_rp(m, i + 1);
    g16_fr acc, t;
    g16__fr_set_zero(&acc);
    while (k < hi) {
        uint32_t x = p[k++];
        const g16_fr *v = &w[x & G16__W_COL];
        if (!(x & (G16__W_MINUS | G16__W_ID))) {
            g16__fr_add(&acc, &acc, v);
        } else if (x & G16__W_MINUS) {
            g16__fr_sub(&acc, &acc, v);
        } else {
            g16__fr_mul(&t, v, &coeffs[p[k++]]);
            g16__fr_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

typedef struct {
    const g16_r1cs *r;
    const g16_fr *w;
    g16_fr *out[3];
} eval_ctx;

static void eval_rows(void *vctx, size_t begin, size_t end)
{
    const eval_ctx *ctx = vctx;
    const g16_r1cs *r = ctx->r;
    for (int k = 0; k < 3; k++) {
        g16_fr *out = ctx->out[k];
        if (!out)
            continue;
        for (size_t i = begin; i < end; i++) {
            if (i < r->num_constraints)
                row_dot(&out[i], &r->mat[k], r->coeffs, ctx->w, i);
            else
                g16__fr_set_zero(&out[i]);
        }
    }
}

static g16_status check_witness_len(const g16_r1cs *r, size_t w_len, g16_error *err)
{
    uint64_t want = r->num_inputs + r->num_aux;
    if (w_len != want)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "r1cs: witness has %zu elements, the circuit needs %llu (%llu inputs + %llu aux)",
                          w_len, (unsigned long long)want, (unsigned long long)r->num_inputs,
                          (unsigned long long)r->num_aux);
    return G16_OK;
}

g16_status g16_r1cs_eval(const g16_r1cs *r, const g16_fr *w, size_t w_len, g16_fr *a, g16_fr *b, g16_fr *c,
                         size_t n, g16_error *err)
{
    if (!r || !w)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    g16_status st = check_witness_len(r, w_len, err);
    if (st)
        return st;
    if (n != r->n)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "r1cs: output vectors have %zu elements, the domain has %llu", n,
                          (unsigned long long)r->n);
    eval_ctx ctx = {r, w, {a, b, c}};
    g16__parallel_for(n, ROW_GRAIN, eval_rows, &ctx);
    return G16_OK;
}

typedef struct {
    const g16_r1cs *r;
    const g16_fr *w;
    const g16_fr *abc[3]; /* g16__r1cs_check_evals: A·w, B·w, C·w */
    _Atomic uint64_t first_bad; /* UINT64_MAX: none found yet */
} check_ctx;

static void check_rows(void *vctx, size_t begin, size_t end)
{
    check_ctx *ctx = vctx;
    const g16_r1cs *r = ctx->r;
    for (size_t i = begin; i < end; i++) {
        /* a row past an already found failure cannot be the first one */
        if (i >= atomic_load_explicit(&ctx->first_bad, memory_order_relaxed))
            return;
        g16_fr av, bv, cv;
        row_dot(&av, &r->mat[G16_MATRIX_A], r->coeffs, ctx->w, i);
        row_dot(&bv, &r->mat[G16_MATRIX_B], r->coeffs, ctx->w, i);
        row_dot(&cv, &r->mat[G16_MATRIX_C], r->coeffs, ctx->w, i);
        g16__fr_mul(&av, &av, &bv);
        if (!g16__fr_eq(&av, &cv)) {
            uint64_t cur = atomic_load_explicit(&ctx->first_bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak(&ctx->first_bad, &cur, (uint64_t)i)) {
            }
            return;
        }
    }
}

/* The same test on rows already evaluated: a_i·b_i = c_i, one product per row (c NULL: c_i is
 * row i of C times w, computed here). */
static void check_eval_rows(void *vctx, size_t begin, size_t end)
{
    check_ctx *ctx = vctx;
    const g16_fr *a = ctx->abc[0], *b = ctx->abc[1], *c = ctx->abc[2];
    for (size_t i = begin; i < end; i++) {
        if (i >= atomic_load_explicit(&ctx->first_bad, memory_order_relaxed))
            return;
        g16_fr ab, cv;
        g16__fr_mul(&ab, &a[i], &b[i]);
        if (c)
            cv = c[i];
        else
            row_dot(&cv, &ctx->r->mat[G16_MATRIX_C], ctx->r->coeffs, ctx->w, i);
        if (!g16__fr_eq(&ab, &cv)) {
            uint64_t cur = atomic_load_explicit(&ctx->first_bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak(&ctx->first_bad, &cur, (uint64_t)i)) {
            }
            return;
        }
    }
}

g16_status g16__r1cs_row_verdict(const g16_r1cs *r, uint64_t bad, g16_error *err)
{
    if (bad == UINT64_MAX)
        return G16_OK;
    uint64_t user = r->num_constraints - r->num_inputs;
    if (bad < user)
        return g16__error(err, G16_ERR_UNSATISFIED, "r1cs: constraint %llu is not satisfied", (unsigned long long)bad);
    return g16__error(err, G16_ERR_INTERNAL, "r1cs: input constraint %llu (row %llu) is not satisfied",
                      (unsigned long long)(bad - user), (unsigned long long)bad);
}

/* The verdict of a check run: OK, or the first failing row named as g16_r1cs_check does. */
static g16_status check_verdict(const g16_r1cs *r, check_ctx *ctx, g16_error *err)
{
    return g16__r1cs_row_verdict(r, atomic_load(&ctx->first_bad), err);
}

static g16_status check_start(const g16_r1cs *r, const g16_fr *w, size_t w_len, g16_error *err)
{
    if (!r || !w)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    g16_status st = check_witness_len(r, w_len, err);
    if (st)
        return st;
    if (!g16__fr_is_one(&w[0]))
        return g16__error(err, G16_ERR_UNSATISFIED, "r1cs: witness[0], the constant ONE, is not 1");
    return G16_OK;
}

g16_status g16__r1cs_check_witness(const g16_r1cs *r, const g16_fr *w, size_t w_len, g16_error *err)
{
    return check_start(r, w, w_len, err);
}

g16_status g16_r1cs_check(const g16_r1cs *r, const g16_fr *w, size_t w_len, g16_error *err)
{
    g16_status st = check_start(r, w, w_len, err);
    if (st)
        return st;
    check_ctx ctx = {r, w, {NULL, NULL, NULL}, UINT64_MAX};
    g16__parallel_for((size_t)r->num_constraints, ROW_GRAIN, check_rows, &ctx);
    return check_verdict(r, &ctx, err);
}

g16_status g16__r1cs_check_evals(const g16_r1cs *r, const g16_fr *w, size_t w_len, const g16_fr *a,
                                 const g16_fr *b, const g16_fr *c, g16_error *err)
{
    if (!a || !b)
        return g16__error(err, G16_ERR_ARG, "r1cs: NULL argument");
    g16_status st = check_start(r, w, w_len, err);
    if (st)
        return st;
    check_ctx ctx = {r, w, {a, b, c}, UINT64_MAX};
    /* a row is one product here instead of three sparse dot products: larger tasks (with c NULL
     * one dot product more, as in g16_r1cs_eval) */
    g16__parallel_for((size_t)r->num_constraints, c ? 8 * ROW_GRAIN : ROW_GRAIN, check_eval_rows, &ctx);
    return check_verdict(r, &ctx, err);
}
