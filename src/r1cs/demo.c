/*
 * Built-in demo circuits (g16.h, g16_demo_circuit): realistic shapes and witness value
 * distributions for tests and benchmarks, deterministic from a seed, built through the public
 * cs/lc API. Exact row counts: user constraints = num_constraints − num_inputs.
 *
 * "bits" block (449 rows, 449 aux), repeated; most witness values are 0 or 1:
 *   x (random Fr) decomposed into b_0..b_254: b_i·(1 − b_i) = 0 each, (Σ 2^i b_i)·1 = x;
 *   lo = b_0..63, hi = b_64..127, z = b_128..191:
 *     and_i: lo_i·hi_i = and_i;  t_i = lo_i XOR hi_i: (2 lo_i)·hi_i = lo_i + hi_i − t_i;
 *     u_i = t_i XOR z_i: (2 t_i)·z_i = t_i + z_i − u_i;  word: (Σ 2^i u_i)·1 = word.
 *   The words of blocks 0..3 are the public inputs (when there are fewer blocks, extra packing
 *   rows of block 0's u bits define the rest); leftover rows are boolean rows on fresh bits.
 * "field" chain: public x_0; three steps out of four x' = x·y + c (y a fresh random aux,
 *   c one of 64 random round constants): x·y = x' − c·1; every fourth x' = x + 3·y_prev + c:
 *   (x + 3 y_prev + c·1)·1 = x'; finally x_last·1 = out (public).
 */
#include <stdlib.h>

#include "field/fr.h"
#include "field/random.h"
#include "r1cs/r1cs.h"
#include "util/error.h"

#define BITS_BLOCK 449
#define BITS_INPUTS 4
#define FIELD_CONSTANTS 64
#define DEMO_MIN 512

#define TRY(expr)                                                                                                  \
    do {                                                                                                           \
        if ((st = (expr)) != G16_OK)                                                                               \
            goto cleanup;                                                                                          \
    } while (0)

typedef struct {
    g16_cs *cs;
    g16_lc *a, *b, *c;
    g16__rng rng;
    g16_fr zero, one, two, three, pow2[255];
    int oom; /* an lc append failed: the next enforce reports it */
    g16_error *err;
} demo;

static g16_status demo_init(demo *d, uint64_t seed, g16_error *err)
{
    d->err = err;
    g16__rng_init_seeded(&d->rng, seed);
    g16__fr_set_zero(&d->zero);
    g16__fr_set_one(&d->one);
    g16__fr_from_u64(&d->two, 2);
    g16__fr_from_u64(&d->three, 3);
    d->pow2[0] = d->one;
    for (int i = 1; i < 255; i++)
        g16__fr_dbl(&d->pow2[i], &d->pow2[i - 1]);
    if (g16_cs_create(&d->cs, G16_CS_WITNESS) || g16_lc_create(&d->a) || g16_lc_create(&d->b) ||
        g16_lc_create(&d->c))
        return g16__error(err, G16_ERR_NOMEM, "demo: out of memory");
    return G16_OK;
}

static void demo_free(demo *d)
{
    g16_lc_destroy(d->a);
    g16_lc_destroy(d->b);
    g16_lc_destroy(d->c);
    g16_cs_destroy(d->cs);
}

static void clear3(demo *d)
{
    g16_lc_clear(d->a);
    g16_lc_clear(d->b);
    g16_lc_clear(d->c);
}

static g16_status aux(demo *d, const g16_fr *v, g16_var *out) { return g16_cs_alloc_aux(d->cs, v, out, d->err); }

/* lc += coeff·v / lc −= coeff·v (coeff NULL: 1), remembering an allocation failure. */
static void add(demo *d, g16_lc *lc, g16_var v, const g16_fr *coeff) { d->oom |= g16_lc_add(lc, v, coeff) != G16_OK; }
static void sub(demo *d, g16_lc *lc, g16_var v, const g16_fr *coeff) { d->oom |= g16_lc_sub(lc, v, coeff) != G16_OK; }

static g16_status enforce(demo *d)
{
    if (d->oom)
        return g16__error(d->err, G16_ERR_NOMEM, "demo: out of memory building a linear combination");
    return g16_cs_enforce(d->cs, d->a, d->b, d->c, d->err);
}

static uint64_t rand64(demo *d)
{
    uint64_t x;
    g16__rng_bytes(&d->rng, &x, sizeof x); /* seeded: cannot fail */
    return x;
}

/* A fresh boolean aux with value bit, and its row b·(1 − b) = 0. */
static g16_status boolean(demo *d, int bit, g16_var *out)
{
    g16_status st = aux(d, bit ? &d->one : &d->zero, out);
    if (st)
        return st;
    clear3(d);
    add(d, d->a, *out, NULL);
    add(d, d->b, G16_VAR_ONE, NULL);
    sub(d, d->b, *out, NULL);
    return enforce(d);
}

/* (Σ 2^i bits_i)·1 = target. */
static g16_status pack(demo *d, const g16_var *bits, int n, g16_var target)
{
    clear3(d);
    for (int i = 0; i < n; i++)
        add(d, d->a, bits[i], &d->pow2[i]);
    add(d, d->b, G16_VAR_ONE, NULL);
    add(d, d->c, target, NULL);
    return enforce(d);
}

/* out = p XOR q for bits p, q (values pv, qv): (2p)·q = p + q − out. */
static g16_status xor_bits(demo *d, g16_var p, int pv, g16_var q, int qv, g16_var *out)
{
    g16_status st = aux(d, (pv ^ qv) ? &d->one : &d->zero, out);
    if (st)
        return st;
    clear3(d);
    add(d, d->a, p, &d->two);
    add(d, d->b, q, NULL);
    add(d, d->c, p, NULL);
    add(d, d->c, q, NULL);
    sub(d, d->c, *out, NULL);
    return enforce(d);
}

/* One 449-row block; u_out (64 handles) and word_value (may be NULL) receive its packed u bits. */
static g16_status bits_block(demo *d, int public_word, g16_var *u_out, uint64_t *word_value)
{
    g16_status st;
    g16_fr x;
    g16_var xv, b[255], t[64], u[64], w;
    int bv[255], tv[64];
    uint64_t limbs[4], word = 0;
    TRY(g16__fr_random(&x, &d->rng));
    TRY(aux(d, &x, &xv));
    g16__fr_to_limbs(limbs, &x);
    for (int i = 0; i < 255; i++) {
        bv[i] = (int)(limbs[i / 64] >> (i % 64)) & 1;
        TRY(boolean(d, bv[i], &b[i]));
    }
    TRY(pack(d, b, 255, xv));
    for (int i = 0; i < 64; i++) { /* AND of lo and hi */
        g16_var and_v;
        TRY(aux(d, (bv[i] & bv[64 + i]) ? &d->one : &d->zero, &and_v));
        clear3(d);
        add(d, d->a, b[i], NULL);
        add(d, d->b, b[64 + i], NULL);
        add(d, d->c, and_v, NULL);
        TRY(enforce(d));
    }
    for (int i = 0; i < 64; i++) {
        tv[i] = bv[i] ^ bv[64 + i];
        TRY(xor_bits(d, b[i], bv[i], b[64 + i], bv[64 + i], &t[i]));
    }
    for (int i = 0; i < 64; i++) {
        int uv = tv[i] ^ bv[128 + i];
        word |= (uint64_t)uv << i;
        TRY(xor_bits(d, t[i], tv[i], b[128 + i], bv[128 + i], &u[i]));
    }
    g16_fr wv;
    g16__fr_from_u64(&wv, word);
    TRY(public_word ? g16_cs_alloc_input(d->cs, &wv, &w, d->err) : aux(d, &wv, &w));
    TRY(pack(d, u, 64, w));
    if (u_out)
        for (int i = 0; i < 64; i++)
            u_out[i] = u[i];
    if (word_value)
        *word_value = word;
cleanup:
    return st;
}

static g16_status build_bits(demo *d, uint64_t user)
{
    g16_status st = G16_OK;
    uint64_t nb = user / BITS_BLOCK, extra;
    for (;; nb--) {
        extra = nb < BITS_INPUTS ? BITS_INPUTS - nb : 0;
        if (nb * BITS_BLOCK + extra <= user)
            break;
    }
    g16_var u0[64];
    uint64_t word0 = 0;
    for (uint64_t k = 0; k < nb; k++)
        TRY(bits_block(d, k < BITS_INPUTS, k == 0 ? u0 : NULL, k == 0 ? &word0 : NULL));
    for (uint64_t j = 0; j < extra; j++) {
        g16_fr wv;
        g16_var w;
        g16__fr_from_u64(&wv, word0);
        TRY(g16_cs_alloc_input(d->cs, &wv, &w, d->err));
        TRY(pack(d, u0, 64, w));
    }
    uint64_t bits = 0;
    for (uint64_t i = nb * BITS_BLOCK + extra; i < user; i++) {
        if ((i & 63) == 0 || i == nb * BITS_BLOCK + extra)
            bits = rand64(d);
        g16_var v;
        TRY(boolean(d, (int)((bits >> (i & 63)) & 1), &v));
    }
cleanup:
    return st;
}

static g16_status build_field(demo *d, uint64_t user)
{
    g16_status st;
    g16_fr c[FIELD_CONSTANTS], x, y = d->zero, xn, t;
    g16_var xv, yv = G16_VAR_ONE, xnv, out;
    for (int i = 0; i < FIELD_CONSTANTS; i++)
        TRY(g16__fr_random(&c[i], &d->rng));
    TRY(g16__fr_random(&x, &d->rng));
    TRY(g16_cs_alloc_input(d->cs, &x, &xv, d->err));
    for (uint64_t i = 0; i + 1 < user; i++) {
        const g16_fr *ci = &c[i % FIELD_CONSTANTS];
        clear3(d);
        if (i % 4 == 3) { /* x' = x + 3·y_prev + c */
            g16__fr_mul(&t, &y, &d->three);
            g16__fr_add(&xn, &x, &t);
            g16__fr_add(&xn, &xn, ci);
            TRY(aux(d, &xn, &xnv));
            add(d, d->a, xv, NULL);
            add(d, d->a, yv, &d->three);
            add(d, d->a, G16_VAR_ONE, ci);
            add(d, d->b, G16_VAR_ONE, NULL);
            add(d, d->c, xnv, NULL);
        } else { /* x' = x·y + c */
            TRY(g16__fr_random(&y, &d->rng));
            TRY(aux(d, &y, &yv));
            g16__fr_mul(&xn, &x, &y);
            g16__fr_add(&xn, &xn, ci);
            TRY(aux(d, &xn, &xnv));
            add(d, d->a, xv, NULL);
            add(d, d->b, yv, NULL);
            add(d, d->c, xnv, NULL);
            sub(d, d->c, G16_VAR_ONE, ci);
        }
        TRY(enforce(d));
        x = xn;
        xv = xnv;
    }
    TRY(g16_cs_alloc_input(d->cs, &x, &out, d->err));
    clear3(d);
    add(d, d->a, xv, NULL);
    add(d, d->b, G16_VAR_ONE, NULL);
    add(d, d->c, out, NULL);
    TRY(enforce(d));
cleanup:
    return st;
}

g16_status g16_demo_circuit(g16_cs **out, g16_demo_kind kind, uint64_t num_constraints, uint64_t seed,
                            g16_error *err)
{
    g16_status st;
    demo d = {0};
    if (!out)
        return g16__error(err, G16_ERR_ARG, "demo: NULL argument");
    *out = NULL;
    if (kind != G16_DEMO_BITS && kind != G16_DEMO_FIELD)
        return g16__error(err, G16_ERR_ARG, "demo: unknown circuit kind %d", (int)kind);
    if (num_constraints < DEMO_MIN || num_constraints > ((uint64_t)1 << G16__R1CS_MAX_LOG_N))
        return g16__error(err, G16_ERR_ARG, "demo: %llu constraints, the demo circuits take %d .. 2^%d",
                          (unsigned long long)num_constraints, DEMO_MIN, G16__R1CS_MAX_LOG_N);
    TRY(demo_init(&d, seed, err));
    if (kind == G16_DEMO_BITS)
        TRY(build_bits(&d, num_constraints - 1 - BITS_INPUTS));
    else
        TRY(build_field(&d, num_constraints - 3));
    *out = d.cs;
    d.cs = NULL;
cleanup:
    demo_free(&d);
    return st;
}
