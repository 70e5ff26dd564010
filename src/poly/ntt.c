/*
 * NTT over Fr: see ntt.h.
 *
 * Two in-place radix-2 kernels share one twiddle table tw[j] = ω^j (j < n/2):
 *   DIF (Gentleman-Sande): natural order in, bit-reversed order out;
 *   DIT (Cooley-Tukey):    bit-reversed order in, natural order out.
 * A stage of butterflies pairing x[j] and x[j+h] inside blocks of 2h uses the (2h)-th roots
 * ω^(j·s), s = n/(2h). Inverse transforms use ω^-(j·s) = -ω^(n/2 - j·s) (ω^(n/2) = -1), read from
 * the same table with the sign folded into the add/sub, so no second table is needed.
 *
 * Pairing DIF for the first transform with DIT for the second leaves no permutation in the middle
 * of a round trip: groth16_h needs one bit-reversal (at the very end) instead of seven. Scaling of
 * coefficients held in bit-reversed order by g^i uses the split i = rev(p) (see scale_rev).
 *
 * Cache and threads: a stage touching the whole array is run across the pool (parallel_for over
 * its butterflies) only for the top stages, until there are at least 4 blocks per thread; the
 * blocks then run independently, each depth-first (one stage over the block, then each half),
 * so that once a block fits in cache every remaining stage runs out of cache. Below LEAF elements
 * the stages run breadth-first.
 */
#include "poly/ntt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/threads.h"

/* Blocks up to this many elements (32 KiB) run their stages breadth-first. */
#define LEAF ((size_t)1 << 10)
/* Butterflies per parallel chunk of a top stage, elements per chunk of a scaling pass:
 * around 0.1 ms of work, far above the cost of handing out a chunk. */
#define STAGE_GRAIN ((size_t)1 << 10)
#define SCALE_GRAIN ((size_t)1 << 11)
/* Bit-reversal tiles are 2^BR_Q x 2^BR_Q elements (runs of 2^BR_Q contiguous elements). */
#define BR_Q 4
/* Small shift tables have 2^MAX_LO_BITS entries. */
#define MAX_LO_BITS 10

/* ---------------------------------------------------------------- helpers */

/* The low `bits` bits of x, reversed. */
static size_t rev_bits(size_t x, unsigned bits)
{
    if (bits == 0)
        return 0;
    uint64_t v = x;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = __builtin_bswap64(v);
    return (size_t)(v >> (64 - bits));
}

/* r = a^e for a public exponent (variable time in e only). */
static void pow_u64_var(g16_fr *r, const g16_fr *a, uint64_t e)
{
    g16_fr acc = g16__fr_one, base = *a;
    while (e) {
        if (e & 1)
            g16__fr_mul(&acc, &acc, &base);
        e >>= 1;
        if (e)
            g16__fr_sqr(&base, &base);
    }
    *r = acc;
}

/* ---------------------------------------------------------------- butterflies */

/* DIF butterflies j in [j0, j1) of one block: (x[j], x[j+h]) <- (x[j] + x[j+h], (x[j] - x[j+h])·w_j)
 * with w_j = ω^(j·s) (forward) or ω^-(j·s) (inverse); half = n/2. */
static void dif_span(g16_fr *x, size_t h, size_t j0, size_t j1, const g16_fr *tw, size_t s, size_t half, int inv)
{
    g16_fr d;
    if (j0 == 0 && j1 > 0) { /* w = 1 */
        g16__fr_sub(&d, &x[0], &x[h]);
        g16__fr_add(&x[0], &x[0], &x[h]);
        x[h] = d;
        j0 = 1;
    }
    if (!inv) {
        for (size_t j = j0; j < j1; j++) {
            g16__fr_sub(&d, &x[j], &x[j + h]);
            g16__fr_add(&x[j], &x[j], &x[j + h]);
            g16__fr_mul(&x[j + h], &d, &tw[j * s]);
        }
    } else {
        for (size_t j = j0; j < j1; j++) { /* (a - b)·(-ω^(half - js)) = (b - a)·ω^(half - js) */
            g16__fr_sub(&d, &x[j + h], &x[j]);
            g16__fr_add(&x[j], &x[j], &x[j + h]);
            g16__fr_mul(&x[j + h], &d, &tw[half - j * s]);
        }
    }
}

/* DIT butterflies j in [j0, j1) of one block: t = x[j+h]·w_j; (x[j], x[j+h]) <- (x[j] + t, x[j] - t). */
static void dit_span(g16_fr *x, size_t h, size_t j0, size_t j1, const g16_fr *tw, size_t s, size_t half, int inv)
{
    g16_fr t;
    if (j0 == 0 && j1 > 0) {
        t = x[h];
        g16__fr_sub(&x[h], &x[0], &t);
        g16__fr_add(&x[0], &x[0], &t);
        j0 = 1;
    }
    if (!inv) {
        for (size_t j = j0; j < j1; j++) {
            g16__fr_mul(&t, &x[j + h], &tw[j * s]);
            g16__fr_sub(&x[j + h], &x[j], &t);
            g16__fr_add(&x[j], &x[j], &t);
        }
    } else {
        for (size_t j = j0; j < j1; j++) { /* w = -ω^(half - js): the signs swap */
            g16__fr_mul(&t, &x[j + h], &tw[half - j * s]);
            g16__fr_add(&x[j + h], &x[j], &t);
            g16__fr_sub(&x[j], &x[j], &t);
        }
    }
}

/* ---------------------------------------------------------------- serial block transforms */

/* DIF of one block of m elements (natural -> bit-reversed). */
static void dif_block(const g16__ntt_domain *d, g16_fr *x, size_t m, int inv)
{
    size_t half = d->n / 2;
    if (m > LEAF) {
        dif_span(x, m / 2, 0, m / 2, d->tw, half / (m / 2), half, inv);
        dif_block(d, x, m / 2, inv);
        dif_block(d, x + m / 2, m / 2, inv);
        return;
    }
    for (size_t h = m / 2; h >= 1; h /= 2)
        for (size_t b = 0; b < m; b += 2 * h)
            dif_span(x + b, h, 0, h, d->tw, half / h, half, inv);
}

/* DIT of one block of m elements (bit-reversed -> natural). */
static void dit_block(const g16__ntt_domain *d, g16_fr *x, size_t m, int inv)
{
    size_t half = d->n / 2;
    if (m > LEAF) {
        dit_block(d, x, m / 2, inv);
        dit_block(d, x + m / 2, m / 2, inv);
        dit_span(x, m / 2, 0, m / 2, d->tw, half / (m / 2), half, inv);
        return;
    }
    for (size_t h = 1; h < m; h *= 2)
        for (size_t b = 0; b < m; b += 2 * h)
            dit_span(x + b, h, 0, h, d->tw, half / h, half, inv);
}

/* ---------------------------------------------------------------- parallel drivers */

typedef struct {
    const g16__ntt_domain *d;
    g16_fr *x;
    size_t h; /* stage: butterflies at distance h; or block size m for block tasks */
    int inv;
} pass_ctx;

/* Butterflies [begin, end) of a stage over the whole array (index i = block·h + j). */
static void stage_task(void *vctx, size_t begin, size_t end, int dit)
{
    pass_ctx *c = vctx;
    size_t h = c->h, half = c->d->n / 2, s = half / h;
    while (begin < end) {
        size_t blk = begin / h, j0 = begin % h;
        size_t j1 = j0 + (end - begin) < h ? j0 + (end - begin) : h;
        g16_fr *x = c->x + blk * 2 * h;
        if (dit)
            dit_span(x, h, j0, j1, c->d->tw, s, half, c->inv);
        else
            dif_span(x, h, j0, j1, c->d->tw, s, half, c->inv);
        begin += j1 - j0;
    }
}

static void dif_stage_task(void *vctx, size_t begin, size_t end) { stage_task(vctx, begin, end, 0); }
static void dit_stage_task(void *vctx, size_t begin, size_t end) { stage_task(vctx, begin, end, 1); }

static void dif_block_task(void *vctx, size_t begin, size_t end)
{
    pass_ctx *c = vctx;
    for (size_t b = begin; b < end; b++)
        dif_block(c->d, c->x + b * c->h, c->h, c->inv);
}

static void dit_block_task(void *vctx, size_t begin, size_t end)
{
    pass_ctx *c = vctx;
    for (size_t b = begin; b < end; b++)
        dit_block(c->d, c->x + b * c->h, c->h, c->inv);
}

/* Size of the independent blocks: halve from n until there are 4 blocks per thread (or LEAF). */
static size_t block_size(size_t n)
{
    size_t threads = (size_t)g16__nthreads();
    size_t want = threads > 1 ? 4 * threads : 1;
    size_t m = n;
    while (n / m < want && m > LEAF)
        m /= 2;
    return m;
}

static void dif(const g16__ntt_domain *d, g16_fr *x, int inv)
{
    size_t n = d->n, m = block_size(n);
    pass_ctx c = {d, x, 0, inv};
    for (size_t h = n / 2; h >= m; h /= 2) {
        c.h = h;
        g16__parallel_for(n / 2, STAGE_GRAIN, dif_stage_task, &c);
    }
    c.h = m;
    g16__parallel_for(n / m, 1, dif_block_task, &c);
}

static void dit(const g16__ntt_domain *d, g16_fr *x, int inv)
{
    size_t n = d->n, m = block_size(n);
    pass_ctx c = {d, x, m, inv};
    g16__parallel_for(n / m, 1, dit_block_task, &c);
    for (size_t h = m; h < n; h *= 2) {
        c.h = h;
        g16__parallel_for(n / 2, STAGE_GRAIN, dit_stage_task, &c);
    }
}

/* ---------------------------------------------------------------- bit reversal */

typedef struct {
    g16_fr *x;
    unsigned k;
} bitrev_ctx;

static void swap_fr(g16_fr *a, g16_fr *b)
{
    g16_fr t = *a;
    *a = *b;
    *b = t;
}

/* Index i = (a, m, c) with a, c of BR_Q bits maps to (rev c, rev m, rev a): tile m (2^BR_Q runs
 * of 2^BR_Q contiguous elements) swaps with tile rev(m) as a whole, so every cache line is used
 * fully. Task m handles the pair {m, rev m} when m <= rev m, so tasks never share elements. */
static void bitrev_task(void *vctx, size_t begin, size_t end)
{
    bitrev_ctx *c = vctx;
    unsigned k = c->k, mid = k - 2 * BR_Q;
    size_t q = (size_t)1 << BR_Q;
    for (size_t m = begin; m < end; m++) {
        size_t mr = rev_bits(m, mid);
        if (mr < m)
            continue;
        for (size_t a = 0; a < q; a++) {
            for (size_t cc = 0; cc < q; cc++) {
                size_t i = (a << (k - BR_Q)) | (m << BR_Q) | cc;
                size_t j = (rev_bits(cc, BR_Q) << (k - BR_Q)) | (mr << BR_Q) | rev_bits(a, BR_Q);
                if (mr > m || i < j)
                    swap_fr(&c->x[i], &c->x[j]);
            }
        }
    }
}

static void bitrev(g16_fr *x, unsigned k)
{
    if (k < 2 * BR_Q + 2) {
        size_t n = (size_t)1 << k;
        for (size_t i = 0; i < n; i++) {
            size_t j = rev_bits(i, k);
            if (i < j)
                swap_fr(&x[i], &x[j]);
        }
        return;
    }
    bitrev_ctx c = {x, k};
    g16__parallel_for((size_t)1 << (k - 2 * BR_Q), 16, bitrev_task, &c);
}

/* ---------------------------------------------------------------- scalings */

typedef struct {
    const g16__ntt_domain *d;
    g16_fr *x;
    g16_fr s0;          /* constant factor */
    const g16_fr *base; /* g or g^-1 */
    const g16_fr *lo;   /* d->shift_lo or d->shift_inv_lo */
} scale_ctx;

/* x[p] <- x[p]·s0·X^rev(p) for p in blocks [begin, end) of 2^b elements, X = g or g^-1.
 * With p = hi·2^b + lo: rev(p) = rev_b(lo)·2^(k-b) + rev_(k-b)(hi), so
 * X^rev(p) = X^rev(hi) · (X^(2^(k-b)))^rev(lo) = X^rev(hi) · table[rev(lo)]. */
static void scale_rev_task(void *vctx, size_t begin, size_t end)
{
    scale_ctx *c = vctx;
    unsigned k = c->d->log_n, b = c->d->lo_bits;
    size_t run = (size_t)1 << b;
    for (size_t hi = begin; hi < end; hi++) {
        g16_fr f;
        pow_u64_var(&f, c->base, rev_bits(hi, k - b));
        g16__fr_mul(&f, &f, &c->s0);
        g16_fr *x = c->x + hi * run;
        for (size_t lo = 0; lo < run; lo++) {
            g16_fr t;
            g16__fr_mul(&t, &f, &c->lo[rev_bits(lo, b)]);
            g16__fr_mul(&x[lo], &x[lo], &t);
        }
    }
}

/* Array in bit-reversed order: x[p] *= s0·g^rev(p) (inv = 0) or s0·g^-rev(p) (inv = 1). */
static void scale_rev(const g16__ntt_domain *d, g16_fr *x, const g16_fr *s0, int inv)
{
    scale_ctx c = {d, x, *s0, inv ? &d->g_inv : &d->g, inv ? d->shift_inv_lo : d->shift_lo};
    size_t blocks = d->n >> d->lo_bits, grain = SCALE_GRAIN >> d->lo_bits;
    g16__parallel_for(blocks, grain ? grain : 1, scale_rev_task, &c);
}

static void scale_const_task(void *vctx, size_t begin, size_t end)
{
    scale_ctx *c = vctx;
    for (size_t i = begin; i < end; i++)
        g16__fr_mul(&c->x[i], &c->x[i], &c->s0);
}

static void scale_const(const g16__ntt_domain *d, g16_fr *x, const g16_fr *s0)
{
    scale_ctx c = {d, x, *s0, NULL, NULL};
    g16__parallel_for(d->n, SCALE_GRAIN, scale_const_task, &c);
}

/* ---------------------------------------------------------------- public transforms */

void g16__ntt_forward(const g16__ntt_domain *d, g16_fr *x)
{
    dif(d, x, 0);
    bitrev(x, d->log_n);
}

void g16__ntt_inverse(const g16__ntt_domain *d, g16_fr *x)
{
    dif(d, x, 1);
    bitrev(x, d->log_n);
    scale_const(d, x, &d->n_inv);
}

void g16__ntt_coset_forward(const g16__ntt_domain *d, g16_fr *x)
{
    bitrev(x, d->log_n);
    scale_rev(d, x, &g16__fr_one, 0);
    dit(d, x, 0);
}

void g16__ntt_coset_inverse(const g16__ntt_domain *d, g16_fr *x)
{
    dif(d, x, 1);
    scale_rev(d, x, &d->n_inv, 1);
    bitrev(x, d->log_n);
}

typedef struct {
    g16_fr *a;
    const g16_fr *b, *c;
} abc_ctx;

static void abc_task(void *vctx, size_t begin, size_t end)
{
    abc_ctx *c = vctx;
    for (size_t i = begin; i < end; i++) {
        g16__fr_mul(&c->a[i], &c->a[i], &c->b[i]);
        g16__fr_sub(&c->a[i], &c->a[i], &c->c[i]);
    }
}

/* Evaluations on <ω> -> evaluations on g·<ω>, natural order, with no permutation in between:
 * DIF^-1 leaves n·coefficients in bit-reversed order, scale_rev makes them n^-1·n·g^i·coef_i,
 * DIT takes bit-reversed input. */
static void evals_to_coset(const g16__ntt_domain *d, g16_fr *x)
{
    dif(d, x, 1);
    scale_rev(d, x, &d->n_inv, 0);
    dit(d, x, 0);
}

void g16__ntt_groth16_h(const g16__ntt_domain *d, g16_fr *a, g16_fr *b, g16_fr *c)
{
    evals_to_coset(d, a);
    evals_to_coset(d, b);
    evals_to_coset(d, c);
    abc_ctx t = {a, b, c};
    g16__parallel_for(d->n, SCALE_GRAIN, abc_task, &t);
    /* coset inverse with 1/Z folded into the 1/n factor */
    g16_fr s;
    g16__fr_mul(&s, &d->n_inv, &d->z_coset_inv);
    dif(d, a, 1);
    scale_rev(d, a, &s, 1);
    bitrev(a, d->log_n);
}

/* ---------------------------------------------------------------- domain */

int g16__ntt_log_size(size_t min_n)
{
    for (unsigned k = 0; k <= G16__NTT_MAX_LOG; k++)
        if (((size_t)1 << k) >= min_n)
            return (int)k;
    return -1;
}

typedef struct {
    g16_fr *t;
    g16_fr w;
} powers_ctx;

/* t[j] = w^j: each chunk starts from a fresh power, so the table does not depend on the split. */
static void powers_task(void *vctx, size_t begin, size_t end)
{
    powers_ctx *c = vctx;
    pow_u64_var(&c->t[begin], &c->w, begin);
    for (size_t j = begin + 1; j < end; j++)
        g16__fr_mul(&c->t[j], &c->t[j - 1], &c->w);
}

static void fill_powers(g16_fr *t, size_t count, const g16_fr *w)
{
    powers_ctx c = {t, *w};
    g16__parallel_for(count, 1u << 12, powers_task, &c);
}

static g16_fr *alloc_fr(size_t count)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, count * sizeof(g16_fr)) != 0)
        return NULL;
    return p;
}

void g16__ntt_domain_destroy(g16__ntt_domain *d)
{
    if (!d)
        return;
    free(d->tw);
    free(d->shift_lo);
    free(d->shift_inv_lo);
    free(d);
}

/* Checks the generators and fills the scalar fields of d. */
static g16_status domain_scalars(g16__ntt_domain *d, unsigned k, const g16_fr *gen, const g16_fr *shift,
                                 g16_error *err)
{
    g16_fr t, minus_one;
    g16__fr_neg(&minus_one, &g16__fr_one);
    g16__fr_root_of_unity_from(&t, gen, 1); /* gen^((r-1)/2): Euler's criterion */
    if (!g16__fr_eq(&t, &minus_one))
        return g16__error(err, G16_ERR_ARG, "ntt: the root generator is a quadratic residue (roots would not be primitive)");
    if (g16__fr_is_zero(shift))
        return g16__error(err, G16_ERR_ARG, "ntt: the coset shift is zero");
    t = *shift;
    for (unsigned i = 0; i < k; i++)
        g16__fr_sqr(&t, &t);
    g16__fr_sub(&d->z_coset, &t, &g16__fr_one);
    if (g16__fr_is_zero(&d->z_coset))
        return g16__error(err, G16_ERR_ARG, "ntt: the coset shift g has g^n = 1 (n = 2^%u): Z vanishes on the coset", k);
    d->log_n = k;
    d->n = (size_t)1 << k;
    d->root_gen = *gen;
    d->g = *shift;
    g16__fr_root_of_unity_from(&d->omega, gen, k);
    g16__fr_inv(&d->omega_inv, &d->omega);
    g16__fr_from_u64(&t, d->n);
    g16__fr_inv(&d->n_inv, &t);
    g16__fr_inv(&d->g_inv, &d->g);
    g16__fr_inv(&d->z_coset_inv, &d->z_coset);
    d->lo_bits = k < MAX_LO_BITS ? k : MAX_LO_BITS;
    return G16_OK;
}

g16_status g16__ntt_domain_create(g16__ntt_domain **out, unsigned log_n, const g16_fr *root_generator,
                                  const g16_fr *coset_shift, g16_error *err)
{
    g16_status st = G16_OK;
    g16__ntt_domain *d = NULL;
    if (out)
        *out = NULL;
    if (!out || !root_generator) {
        st = g16__error(err, G16_ERR_ARG, "ntt: NULL %s", out ? "root generator" : "output pointer");
        goto cleanup;
    }
    if (log_n > G16__NTT_MAX_LOG) {
        st = g16__error(err, G16_ERR_ARG, "ntt: domain 2^%u exceeds the maximum 2^%d", log_n, G16__NTT_MAX_LOG);
        goto cleanup;
    }
    d = calloc(1, sizeof *d);
    if (!d) {
        st = g16__error(err, G16_ERR_NOMEM, "ntt: domain struct");
        goto cleanup;
    }
    st = domain_scalars(d, log_n, root_generator, coset_shift ? coset_shift : root_generator, err);
    if (st != G16_OK)
        goto cleanup;
    size_t ntw = d->n > 1 ? d->n / 2 : 1, nlo = (size_t)1 << d->lo_bits;
    d->tw = alloc_fr(ntw);
    d->shift_lo = alloc_fr(nlo);
    d->shift_inv_lo = alloc_fr(nlo);
    if (!d->tw || !d->shift_lo || !d->shift_inv_lo) {
        st = g16__error(err, G16_ERR_NOMEM, "ntt: twiddle tables for 2^%u (%zu bytes)", log_n,
                        (ntw + 2 * nlo) * sizeof(g16_fr));
        goto cleanup;
    }
    fill_powers(d->tw, ntw, &d->omega);
    g16_fr step, step_inv; /* g^(2^(k-b)) and its inverse */
    step = d->g;
    step_inv = d->g_inv;
    for (unsigned i = d->lo_bits; i < log_n; i++) {
        g16__fr_sqr(&step, &step);
        g16__fr_sqr(&step_inv, &step_inv);
    }
    fill_powers(d->shift_lo, nlo, &step);
    fill_powers(d->shift_inv_lo, nlo, &step_inv);
    *out = d;
    d = NULL;
cleanup:
    g16__ntt_domain_destroy(d);
    return st;
}
