/*
 * NTT over Fr: see ntt.h.
 *
 * Two in-place radix-2 kernels share one twiddle table tw[j] = ω^j (j < n/2):
 *   DIF (Gentleman-Sande): natural order in, bit-reversed order out;
 *   DIT (Cooley-Tukey):    bit-reversed order in, natural order out.
 * A stage of butterflies pairing x[p] and x[p+h] inside blocks of 2h uses the (2h)-th roots
 * ω^(j·n/2h), j = p mod 2h. Inverse transforms use ω^-e = -ω^(n/2 - e) (ω^(n/2) = -1), read from
 * the same table with the sign folded into the add/sub, so no second table is needed.
 *
 * Pairing DIF for the first transform with DIT for the second leaves no permutation in the middle
 * of a round trip: groth16_h needs one bit-reversal (at the very end) instead of six. Scaling of
 * coefficients held in bit-reversed order by g^i uses the split i = rev(p) (see scale_range).
 *
 * Memory: the multiplications are cheap enough (MULX) that a stage streaming the whole array from
 * DRAM is bandwidth-bound, so a transform touches the array only a few times:
 *   - block phase: the array splits into blocks of 2^mb elements (mb <= BLOCK_LOG, 512 KiB, an
 *     L2's worth) that run their stages independently, depth-first, in cache. Scalings and, for
 *     a DIF^-1 followed by a DIT, both transforms are fused into the same visit of each block;
 *   - column passes: the k - mb stages above the blocks run in passes of up to COL_MAX stages.
 *     A pass over super-blocks of 2^a elements gathers, for COL_B consecutive offsets i0, the
 *     2^s elements i0 + t·2^(a-s) of each column into a contiguous buffer (no power-of-two cache
 *     set conflicts), runs s stages there and writes it back: s stages for one array visit.
 * Threads: blocks and column batches are independent work items for g16__parallel_for; blocks get
 * smaller (down to 2^LEAF_LOG) until there are 4 per thread. The split never changes the result.
 */
#include "poly/ntt.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/error.h"
#include "util/threads.h"
#include "util/trace.h"

/* Blocks up to 2^LEAF_LOG elements (32 KiB, an L1) run their stages breadth-first. */
#define LEAF_LOG 10
#define LEAF ((size_t)1 << LEAF_LOG)
/* Default block size in the block phase: 2^14 elements = 512 KiB. */
#define BLOCK_LOG 14
/* Column passes: at most 2^COL_MAX rows of COL_B elements in the buffer (2^7 · 8 · 32 B = 32 KiB). */
#define COL_MAX 7
#define COL_B 8
/* Elements per chunk of an elementwise pass: about 0.1 ms of work. */
#define ELEM_GRAIN ((size_t)1 << 12)
/* Bit-reversal tiles are 2^BR_Q x 2^BR_Q elements (runs of 2^BR_Q contiguous elements). */
#define BR_Q 4
/* Small shift tables have 2^MAX_LO_BITS entries. */
#define MAX_LO_BITS 10

g16__ntt_tuning g16__ntt_tune = {BLOCK_LOG, COL_MAX};

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

/* The twiddles of a stage with butterflies at distance h: ω_2h^j = base[j·step] for j < h.
 * Stages with h <= d->sm_max read the stage-major table (consecutive j are adjacent: every line
 * and page fetched is used fully); the few top stages read tw with a small stride (step <= 32). */
typedef struct {
    const g16_fr *base;
    size_t step, h;
} twv_t;

static twv_t stage_tw(const g16__ntt_domain *d, size_t h)
{
    twv_t v;
    if (h <= d->sm_max) {
        v.base = d->tw_sm + h;
        v.step = 1;
    } else {
        v.base = d->tw;
        v.step = d->n / 2 / h;
    }
    v.h = h;
    return v;
}

/* DIF butterflies on count pairs (lo[i], hi[i]) with twiddle exponents j = j0 + i (< h):
 * (a, b) <- (a + b, (a - b)·ω_2h^±j). Inverse twiddles: ω_2h^-j = -ω_2h^(h-j) (ω_2h^h = -1), so
 * the sign goes into the subtraction. j = 0 (twiddle 1) is done without a multiplication. */
static void dif_rows(g16_fr *lo, g16_fr *hi, size_t count, size_t j0, const twv_t *w, int inv)
{
    g16_fr d;
    size_t i = 0;
    if (j0 == 0 && count > 0) {
        g16__fr_sub(&d, &lo[0], &hi[0]);
        g16__fr_add(&lo[0], &lo[0], &hi[0]);
        hi[0] = d;
        i = 1;
    }
    const size_t step = w->step;
    if (!inv) {
        const g16_fr *t = w->base + j0 * step;
        for (; i < count; i++) {
            g16__fr_sub(&d, &lo[i], &hi[i]);
            g16__fr_add(&lo[i], &lo[i], &hi[i]);
            g16__fr_mul(&hi[i], &d, &t[i * step]);
        }
    } else {
        const g16_fr *t = w->base + (w->h - j0) * step;
        for (; i < count; i++) {
            g16__fr_sub(&d, &hi[i], &lo[i]);
            g16__fr_add(&lo[i], &lo[i], &hi[i]);
            g16__fr_mul(&hi[i], &d, t - i * step);
        }
    }
}

/* DIT butterflies: t = b·ω_2h^±j; (a, b) <- (a + t, a - t). */
static void dit_rows(g16_fr *lo, g16_fr *hi, size_t count, size_t j0, const twv_t *w, int inv)
{
    g16_fr t;
    size_t i = 0;
    if (j0 == 0 && count > 0) {
        t = hi[0];
        g16__fr_sub(&hi[0], &lo[0], &t);
        g16__fr_add(&lo[0], &lo[0], &t);
        i = 1;
    }
    const size_t step = w->step;
    if (!inv) {
        const g16_fr *tw = w->base + j0 * step;
        for (; i < count; i++) {
            g16__fr_mul(&t, &hi[i], &tw[i * step]);
            g16__fr_sub(&hi[i], &lo[i], &t);
            g16__fr_add(&lo[i], &lo[i], &t);
        }
    } else { /* t = -b·ω_2h^(h-j): the signs swap */
        const g16_fr *tw = w->base + (w->h - j0) * step;
        for (; i < count; i++) {
            g16__fr_mul(&t, &hi[i], tw - i * step);
            g16__fr_add(&hi[i], &lo[i], &t);
            g16__fr_sub(&lo[i], &lo[i], &t);
        }
    }
}

/* All butterflies of one block of 2h elements. */
static void dif_span(g16_fr *x, const twv_t *w, int inv) { dif_rows(x, x + w->h, w->h, 0, w, inv); }
static void dit_span(g16_fr *x, const twv_t *w, int inv) { dit_rows(x, x + w->h, w->h, 0, w, inv); }

/* ---------------------------------------------------------------- serial block transforms */

/* DIF of one block of m elements (natural -> bit-reversed): depth-first above LEAF. */
static void dif_block(const g16__ntt_domain *d, g16_fr *x, size_t m, int inv)
{
    if (m > LEAF) {
        twv_t w = stage_tw(d, m / 2);
        dif_span(x, &w, inv);
        dif_block(d, x, m / 2, inv);
        dif_block(d, x + m / 2, m / 2, inv);
        return;
    }
    for (size_t h = m / 2; h >= 1; h /= 2) {
        twv_t w = stage_tw(d, h);
        for (size_t b = 0; b < m; b += 2 * h)
            dif_span(x + b, &w, inv);
    }
}

/* DIT of one block of m elements (bit-reversed -> natural). */
static void dit_block(const g16__ntt_domain *d, g16_fr *x, size_t m, int inv)
{
    if (m > LEAF) {
        dit_block(d, x, m / 2, inv);
        dit_block(d, x + m / 2, m / 2, inv);
        twv_t w = stage_tw(d, m / 2);
        dit_span(x, &w, inv);
        return;
    }
    for (size_t h = 1; h < m; h *= 2) {
        twv_t w = stage_tw(d, h);
        for (size_t b = 0; b < m; b += 2 * h)
            dit_span(x + b, &w, inv);
    }
}

/* ---------------------------------------------------------------- scalings */

enum { SCALE_NONE, SCALE_CONST, SCALE_G, SCALE_G_INV };

/* x[p] *= s0·X^rev(p) for positions p in [p0, p1) of an array in bit-reversed order, X = g
 * (SCALE_G) or g^-1 (SCALE_G_INV), or x[p] *= s0 (SCALE_CONST). With b = lo_bits and
 * p = hi·2^b + lo: rev(p) = rev_b(lo)·2^(k-b) + rev_(k-b)(hi), so
 * X^rev(p) = X^rev(hi) · (X^(2^(k-b)))^rev(lo) = X^rev(hi) · shift_lo[rev(lo)]:
 * one power per 2^b elements, then two multiplications per element. */
static void scale_range(const g16__ntt_domain *d, g16_fr *x, size_t p0, size_t p1, int kind, const g16_fr *s0)
{
    if (kind == SCALE_CONST) {
        for (size_t p = p0; p < p1; p++)
            g16__fr_mul(&x[p], &x[p], s0);
        return;
    }
    unsigned k = d->log_n, b = d->lo_bits;
    const g16_fr *base = kind == SCALE_G ? &d->g : &d->g_inv;
    const g16_fr *lo_tab = kind == SCALE_G ? d->shift_lo : d->shift_inv_lo;
    size_t mask = ((size_t)1 << b) - 1;
    for (size_t p = p0; p < p1;) {
        size_t hi = p >> b, end = (hi + 1) << b;
        if (end > p1)
            end = p1;
        g16_fr f, t;
        pow_u64_var(&f, base, rev_bits(hi, k - b));
        g16__fr_mul(&f, &f, s0);
        for (; p < end; p++) {
            g16__fr_mul(&t, &f, &lo_tab[rev_bits(p & mask, b)]);
            g16__fr_mul(&x[p], &x[p], &t);
        }
    }
}

/* ---------------------------------------------------------------- plan */

typedef struct {
    unsigned mb;    /* blocks of 2^mb elements */
    unsigned npass; /* column passes above the blocks */
    unsigned s[G16__NTT_MAX_LOG]; /* stages per pass, top pass first */
} plan_t;

static void make_plan(plan_t *p, unsigned k)
{
    unsigned block_log = g16__ntt_tune.block_log, col_max = g16__ntt_tune.col_max;
    if (block_log < 1)
        block_log = 1;
    if (col_max < 1 || col_max > COL_MAX)
        col_max = COL_MAX;
    size_t threads = (size_t)g16__nthreads();
    size_t want = threads > 1 ? 4 * threads : 1;
    unsigned mb = k < block_log ? k : block_log;
    while (mb > LEAF_LOG && ((size_t)1 << (k - mb)) < want)
        mb--;
    unsigned top = k - mb;
    p->mb = mb;
    p->npass = (top + col_max - 1) / col_max;
    for (unsigned i = 0; i < p->npass; i++) /* as even as possible */
        p->s[i] = top / p->npass + (i < top % p->npass);
}

/* ---------------------------------------------------------------- column passes */

typedef struct {
    const g16__ntt_domain *d;
    g16_fr *x;
    unsigned a, s; /* super-blocks of 2^a elements, s stages: the top s (DIF) or the last s (DIT) */
    int dit, inv;
    size_t bw, nbatch; /* columns per batch, batches per super-block */
} col_ctx;

static void col_stages(const col_ctx *c, g16_fr buf[][COL_B], size_t i0)
{
    const size_t rows = (size_t)1 << c->s, stride = (size_t)1 << (c->a - c->s), bw = c->bw;
    const int dit = c->dit, inv = c->inv;
    for (size_t u = 0; u < c->s; u++) {
        /* DIF runs the halves top-down, DIT bottom-up; ht = half distance in rows */
        size_t ht = dit ? (size_t)1 << u : rows >> (u + 1);
        twv_t w = stage_tw(c->d, ht * stride);
        for (size_t g = 0; g < rows; g += 2 * ht) {
            for (size_t tl = 0; tl < ht; tl++) {
                /* exponent of column 0 = its position inside the 2h block */
                if (dit)
                    dit_rows(buf[g + tl], buf[g + tl + ht], bw, i0 + tl * stride, &w, inv);
                else
                    dif_rows(buf[g + tl], buf[g + tl + ht], bw, i0 + tl * stride, &w, inv);
            }
        }
    }
}

static void col_task(void *vctx, size_t begin, size_t end)
{
    const col_ctx *c = vctx;
    g16_fr buf[(size_t)1 << COL_MAX][COL_B];
    size_t rows = (size_t)1 << c->s, stride = (size_t)1 << (c->a - c->s);
    for (size_t item = begin; item < end; item++) {
        size_t sb = item / c->nbatch, i0 = (item % c->nbatch) * c->bw;
        g16_fr *x = c->x + (sb << c->a) + i0;
        for (size_t t = 0; t < rows; t++)
            memcpy(buf[t], x + t * stride, c->bw * sizeof(g16_fr));
        col_stages(c, buf, i0);
        for (size_t t = 0; t < rows; t++)
            memcpy(x + t * stride, buf[t], c->bw * sizeof(g16_fr));
    }
}

static void col_pass(const g16__ntt_domain *d, g16_fr *x, unsigned a, unsigned s, int dit, int inv)
{
    size_t stride = (size_t)1 << (a - s);
    col_ctx c = {d, x, a, s, dit, inv, stride < COL_B ? stride : COL_B, 0};
    c.nbatch = stride / c.bw;
    g16__parallel_for((d->n >> a) * c.nbatch, 1, col_task, &c);
}

/* The top k - mb stages of a DIF: passes from the whole array down to the blocks. */
static void dif_top(const g16__ntt_domain *d, g16_fr *x, const plan_t *p, int inv)
{
    unsigned a = d->log_n;
    for (unsigned i = 0; i < p->npass; i++) {
        col_pass(d, x, a, p->s[i], 0, inv);
        a -= p->s[i];
    }
}

/* The last k - mb stages of a DIT: passes from the blocks up to the whole array. */
static void dit_top(const g16__ntt_domain *d, g16_fr *x, const plan_t *p, int inv)
{
    unsigned a = p->mb;
    for (unsigned i = p->npass; i-- > 0;) {
        a += p->s[i];
        col_pass(d, x, a, p->s[i], 1, inv);
    }
}

/* ---------------------------------------------------------------- block phase */

/* What to do to each block, in this order: DIF, scaling, DIT. */
typedef struct {
    const g16__ntt_domain *d;
    g16_fr *x;
    unsigned mb;
    int dif, dif_inv;
    int scale;
    g16_fr s0;
    int dit, dit_inv;
} block_ctx;

static void block_task(void *vctx, size_t begin, size_t end)
{
    const block_ctx *c = vctx;
    size_t m = (size_t)1 << c->mb;
    for (size_t blk = begin; blk < end; blk++) {
        g16_fr *x = c->x + blk * m;
        if (c->dif)
            dif_block(c->d, x, m, c->dif_inv);
        if (c->scale != SCALE_NONE)
            scale_range(c->d, c->x, blk * m, blk * m + m, c->scale, &c->s0);
        if (c->dit)
            dit_block(c->d, x, m, c->dit_inv);
    }
}

static void run_blocks(block_ctx *c) { g16__parallel_for(c->d->n >> c->mb, 1, block_task, c); }

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

/* ---------------------------------------------------------------- public transforms */

void g16__ntt_forward(const g16__ntt_domain *d, g16_fr *x)
{
    plan_t p;
    make_plan(&p, d->log_n);
    dif_top(d, x, &p, 0);
    block_ctx b = {d, x, p.mb, 1, 0, SCALE_NONE, g16__fr_one, 0, 0};
    run_blocks(&b);
    bitrev(x, d->log_n);
}

void g16__ntt_inverse(const g16__ntt_domain *d, g16_fr *x)
{
    plan_t p;
    make_plan(&p, d->log_n);
    dif_top(d, x, &p, 1);
    block_ctx b = {d, x, p.mb, 1, 1, SCALE_CONST, d->n_inv, 0, 0};
    run_blocks(&b);
    bitrev(x, d->log_n);
}

void g16__ntt_coset_forward(const g16__ntt_domain *d, g16_fr *x)
{
    plan_t p;
    make_plan(&p, d->log_n);
    bitrev(x, d->log_n);
    block_ctx b = {d, x, p.mb, 0, 0, SCALE_G, g16__fr_one, 1, 0};
    run_blocks(&b);
    dit_top(d, x, &p, 0);
}

void g16__ntt_coset_inverse(const g16__ntt_domain *d, g16_fr *x)
{
    plan_t p;
    make_plan(&p, d->log_n);
    dif_top(d, x, &p, 1);
    block_ctx b = {d, x, p.mb, 1, 1, SCALE_G_INV, d->n_inv, 0, 0};
    run_blocks(&b);
    bitrev(x, d->log_n);
}

typedef struct {
    g16_fr *a;
    const g16_fr *b;
    int sub; /* 0: a <- a·b; 1: a <- a - b */
} ab_ctx;

static void ab_task(void *vctx, size_t begin, size_t end)
{
    ab_ctx *c = vctx;
    for (size_t i = begin; i < end; i++) {
        if (c->sub)
            g16__fr_sub(&c->a[i], &c->a[i], &c->b[i]);
        else
            g16__fr_mul(&c->a[i], &c->a[i], &c->b[i]);
    }
}

/* Evaluations on <ω> -> evaluations on g·<ω>, natural order, with no permutation in between:
 * DIF^-1 leaves n·coefficients in bit-reversed order, the scaling makes them g^i·coef_i, and DIT
 * takes bit-reversed input. The block phase does all three on each block while it is in cache. */
static void evals_to_coset(const g16__ntt_domain *d, const plan_t *p, g16_fr *x)
{
    dif_top(d, x, p, 1);
    block_ctx b = {d, x, p->mb, 1, 1, SCALE_G, d->n_inv, 1, 0};
    run_blocks(&b);
    dit_top(d, x, p, 0);
}

/* Six transforms where bellman runs seven (ntt.h): C's coset evaluations are never formed. The
 * coset inverse is linear, and on C's coset values it gives C's coefficients, which the plain
 * inverse of c gives too; so H = (coset_inverse(A_coset·B_coset) − inverse(c)) / (g^n − 1). */
void g16__ntt_groth16_h(const g16__ntt_domain *d, g16_fr *a, g16_fr *b, g16_fr *c)
{
    plan_t p;
    make_plan(&p, d->log_n);
    /* one span per transform pair (inverse NTT fused with the coset NTT) and per pass, so the
     * trace shows each of the 6 transforms of the H step */
    g16_fr *v[2] = {a, b};
    for (int i = 0; i < 2; i++) {
        g16__span sp = g16__span_begin_n("ntt.inverse+coset", d->n);
        evals_to_coset(d, &p, v[i]);
        g16__span_end(sp);
    }
    g16__span sp = g16__span_begin_n("ntt.ab", d->n);
    ab_ctx t = {a, b, 0};
    g16__parallel_for(d->n, ELEM_GRAIN, ab_task, &t);
    g16__span_end(sp);
    /* both inverses leave bit-reversed order, with 1/Z folded into the 1/n factor */
    sp = g16__span_begin_n("ntt.coset_inverse", d->n);
    block_ctx blk = {d, a, p.mb, 1, 1, SCALE_G_INV, d->n_inv, 0, 0};
    g16__fr_mul(&blk.s0, &d->n_inv, &d->z_coset_inv);
    dif_top(d, a, &p, 1);
    run_blocks(&blk);
    g16__span_end(sp);
    sp = g16__span_begin_n("ntt.inverse", d->n);
    block_ctx blc = {d, c, p.mb, 1, 1, SCALE_CONST, blk.s0, 0, 0};
    dif_top(d, c, &p, 1);
    run_blocks(&blc);
    g16__span_end(sp);
    sp = g16__span_begin_n("ntt.h-c", d->n);
    ab_ctx u = {a, c, 1};
    g16__parallel_for(d->n, ELEM_GRAIN, ab_task, &u);
    bitrev(a, d->log_n);
    g16__span_end(sp);
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

typedef struct {
    const g16__ntt_domain *d;
} sm_ctx;

/* tw_sm[i] for i in [begin + 1, end + 1), i = h + j with h the power of two <= i. */
static void sm_task(void *vctx, size_t begin, size_t end)
{
    const g16__ntt_domain *d = ((sm_ctx *)vctx)->d;
    for (size_t i = begin + 1; i < end + 1; i++) {
        size_t h = (size_t)1 << (63 - __builtin_clzll((unsigned long long)i));
        d->tw_sm[i] = d->tw[(i - h) * (d->n / 2 / h)];
    }
}

void g16__ntt_domain_destroy(g16__ntt_domain *d)
{
    if (!d)
        return;
    g16__free_large(d->tw, d->tw_bytes);
    g16__free_large(d->tw_sm, d->tw_sm_bytes);
    free(d->shift_lo);
    free(d->shift_inv_lo);
    free(d);
}

/* Fills the twiddle tables (d->tw and d->tw_sm allocated). */
static void domain_twiddles(g16__ntt_domain *d)
{
    fill_powers(d->tw, d->tw_bytes / sizeof(g16_fr), &d->omega);
    if (d->sm_max > 0) {
        sm_ctx c = {d};
        d->tw_sm[0] = g16__fr_one; /* unused */
        g16__parallel_for(2 * d->sm_max - 1, 1u << 12, sm_task, &c);
    }
    g16_fr step = d->g, step_inv = d->g_inv; /* g^(2^(k-b)) and its inverse */
    for (unsigned i = d->lo_bits; i < d->log_n; i++) {
        g16__fr_sqr(&step, &step);
        g16__fr_sqr(&step_inv, &step_inv);
    }
    size_t nlo = (size_t)1 << d->lo_bits;
    fill_powers(d->shift_lo, nlo, &step);
    fill_powers(d->shift_inv_lo, nlo, &step_inv);
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
    size_t half = d->n / 2, nlo = (size_t)1 << d->lo_bits;
    size_t blk_half = (size_t)1 << (BLOCK_LOG - 1);
    /* stage-major copy for every stage whose stride in tw would be >= 64 (2 KiB) */
    d->sm_max = half < blk_half ? half : blk_half;
    if (half / 64 > d->sm_max)
        d->sm_max = half / 64;
    d->tw_bytes = (half ? half : 1) * sizeof(g16_fr);
    d->tw_sm_bytes = (d->sm_max ? 2 * d->sm_max : 1) * sizeof(g16_fr);
    d->tw = g16__alloc_large(d->tw_bytes);
    d->tw_sm = g16__alloc_large(d->tw_sm_bytes);
    d->shift_lo = alloc_fr(nlo);
    d->shift_inv_lo = alloc_fr(nlo);
    if (!d->tw || !d->tw_sm || !d->shift_lo || !d->shift_inv_lo) {
        st = g16__error(err, G16_ERR_NOMEM, "ntt: twiddle tables for 2^%u (%zu bytes)", log_n,
                        d->tw_bytes + d->tw_sm_bytes + 2 * nlo * sizeof(g16_fr));
        goto cleanup;
    }
    domain_twiddles(d);
    *out = d;
    d = NULL;
cleanup:
    g16__ntt_domain_destroy(d);
    return st;
}
