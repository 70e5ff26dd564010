/*
 * G1 batch-affine bucket additions in Fp8 lanes (msm_g1_fp8.h has the representation and the
 * contract). Per entry, as msm_tmpl.h's acc_run_batch:
 *   forward:   gathers x_B, y_B, x_P, y_P (y_P negated when the entry subtracts);
 *              den = x_P − x_B (2·y_B when doubling, 1 when cancelling),
 *              num = y_P − y_B (3·x_B² when doubling), prefix = running product of the lane's
 *              earlier denominators; all kept per group (lane_group) for the backward pass
 *   one inversion of the eight lane products
 *   backward:  1/den = inv·prefix, inv ·= den; λ = num/den;
 *              x3 = λ² − (x_B + x_P), y3 = λ(x_B − x3) − y_B; scattered back
 * The rare cases (x_P = x_B) are found per lane in the forward pass and patched lane by lane;
 * the common path has no per-lane branches. Keeping the group's coordinates instead of gathering
 * them again in the backward pass measured ~10% faster per addition (G1 2^16, one thread, cycles
 * per entry relative to the inversion's in the same run).
 */
#include "msm/msm_g1_fp8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"

#define M52 0xfffffffffffffULL

enum { L_ADD, L_DBL, L_INF };

/* What the backward pass needs of a group, written by the forward pass (which gathers every
 * coordinate once: the backward pass then reads this sequentially instead of gathering again). */
typedef struct {
    g16__fp8 prefix; /* product of the lane's earlier denominators; lazy (< 2p) on the AVX-512 path */
    g16__fp8 den;    /* x_P − x_B (2·y_B doubling, 1 cancelling); lazy (< 2p) on the AVX-512 path */
    g16__fp8 num;    /* y_P − y_B with y_P negated for subtraction (3·x_B² doubling); lazy (<= 2p) */
    g16__fp8 sx;     /* x_B + x_P (AVX-512 path: the limb sums, < 2^53, not normalized) */
    g16__fp8 bx, by;
} lane_group;

struct g16__p1_lanes {
    g16__p1_aff52 pad_bk, pad_pt; /* an unused lane adds (1, 0) to (0, 0): denominator 1 */
    g16__p1_aff52 sink[8];        /* where unused and cancelled lanes scatter to */
    g16__fp52 one;
    g16__p1_aff52 *bk;      /* nb slots (g16__alloc_large: mapped from 256 KiB, util/alloc.h) */
    size_t nb;
    lane_group *grp;        /* per group of eight entries (g16__alloc_large) */
    uint8_t *special;       /* per group: lanes whose entry is not a plain addition */
    uint8_t *kind;          /* per entry: L_ADD, L_DBL, L_INF */
    g16__p1_lane_entry *fold; /* g16__p1_lanes_fold's batch (cap entries) */
    size_t cap;
    int avx512;             /* gathers/scatters straight to the AVX-512 transposes (IFMA implies it) */
};

int g16__p1_lanes_wanted(void)
{
    const char *v = getenv("G16_MSM_FP8");
    if (v && *v)
        return strcmp(v, "0") != 0;
    return g16__fp8_have_ifma();
}

/* aligned_alloc wants a size that is a multiple of the alignment */
static void *alloc64(size_t n) { return aligned_alloc(64, (n + 63) / 64 * 64 + 64); }

g16__p1_lanes *g16__p1_lanes_create(size_t nb, size_t cap)
{
    size_t ng = (cap + 7) / 8;
    g16__p1_lanes *L = alloc64(sizeof *L);
    if (!L)
        return NULL;
    memset(L, 0, sizeof *L);
    L->cap = cap;
    L->nb = nb ? nb : 1;
    L->bk = L->nb <= SIZE_MAX / sizeof *L->bk ? g16__alloc_large(L->nb * sizeof *L->bk) : NULL;
    L->grp = g16__alloc_large(ng * sizeof *L->grp);
    L->special = malloc(ng);
    L->kind = malloc(ng * 8);
    L->fold = malloc(cap * sizeof *L->fold);
    if (!L->bk || !L->grp || !L->special || !L->kind || !L->fold) {
        g16__p1_lanes_destroy(L);
        return NULL;
    }
    g16__fp52_from_fp(&L->one, &g16__fp_one);
    L->pad_pt.x = L->one;
    L->avx512 = g16__fp8_have_ifma();
    return L;
}

void g16__p1_lanes_destroy(g16__p1_lanes *L)
{
    if (!L)
        return;
    g16__free_large(L->bk, L->nb * sizeof *L->bk);
    g16__free_large(L->grp, (L->cap + 7) / 8 * sizeof *L->grp);
    free(L->special);
    free(L->kind);
    free(L->fold);
    free(L);
}

void g16__p1_aff52_from(g16__p1_aff52 *r, const g16_p1_affine *a)
{
    g16__fp52_from_fp(&r->x, &a->x);
    g16__fp52_from_fp(&r->y, &a->y);
}

void g16__p1_aff52_from8(g16__p1_aff52 *const r[8], const g16_p1_affine *const a[8])
{
    g16_fp c[8];
    g16__fp52 *d[8];
    g16__fp8 v;
    for (int k = 0; k < 8; k++) {
        c[k] = a[k]->x;
        d[k] = &r[k]->x;
    }
    g16__fp8_from_fp(&v, c);
    g16__fp8_scatter(d, &v);
    for (int k = 0; k < 8; k++) {
        c[k] = a[k]->y;
        d[k] = &r[k]->y;
    }
    g16__fp8_from_fp(&v, c);
    g16__fp8_scatter(d, &v);
}

/* r = −a mod p on 52-bit limbs (−0 = 0). */
static void fp52_neg(g16__fp52 *r, const g16__fp52 *a)
{
    uint64_t d[8], borrow = 0, any = 0;
    for (int j = 0; j < 8; j++) {
        uint64_t t = g16__fp8_p52[j] - a->l[j] - borrow;
        borrow = t >> 63;
        d[j] = t & M52;
        any |= a->l[j];
    }
    uint64_t keep = 0 - (uint64_t)(any != 0);
    for (int j = 0; j < 8; j++)
        r->l[j] = d[j] & keep;
}

static int fp52_is_zero(const g16__fp52 *a)
{
    uint64_t any = 0;
    for (int j = 0; j < 8; j++)
        any |= a->l[j];
    return any == 0;
}

void g16__p1_lanes_fill(g16__p1_lanes *L, size_t slot, const g16__p1_aff52 *q, int neg)
{
    g16__p1_aff52 *b = &L->bk[slot];
    b->x = q->x;
    if (neg)
        fp52_neg(&b->y, &q->y);
    else
        b->y = q->y;
}

void g16__p1_lanes_bucket(g16_p1_affine *r, const g16__p1_lanes *L, size_t slot)
{
    g16__fp52_to_fp(&r->x, &L->bk[slot].x);
    g16__fp52_to_fp(&r->y, &L->bk[slot].y);
}

/* ---------------- lane helpers ---------------- */

/* Lanes of r named in mask := the lanes of a. */
static void lane_select(g16__fp8 *r, const g16__fp8 *a, unsigned mask)
{
    uint64_t sel[8];
    for (int k = 0; k < 8; k++)
        sel[k] = 0 - (uint64_t)((mask >> k) & 1);
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 8; k++)
            r->l[j][k] = (a->l[j][k] & sel[k]) | (r->l[j][k] & ~sel[k]);
}

/* Mask of the lanes of a that are zero. */
static unsigned lane_zeros(const g16__fp8 *a)
{
    uint64_t any[8] = {0};
    unsigned z = 0;
    for (int j = 0; j < 8; j++)
        for (int k = 0; k < 8; k++)
            any[k] |= a->l[j][k];
    for (int k = 0; k < 8; k++)
        z |= (unsigned)(any[k] == 0) << k;
    return z;
}

/* Bucket and point of each lane of group g (the padding pair beyond m). */
static void group_points(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, size_t g,
                         g16__p1_aff52 *bk[8], const g16__p1_aff52 *pt[8])
{
    for (size_t k = 0; k < 8; k++) {
        size_t j = 8 * g + k;
        bk[k] = j < m ? &L->bk[e[j].b] : &L->pad_bk;
        pt[k] = j < m ? e[j].q : &L->pad_pt;
    }
}

/* Buckets are scattered over a task's slots and bases over the input: the forward pass (the only
 * one that reads them) fetches the four lines of each entry some groups ahead. The prototype ran
 * 190-195 ns per addition without prefetching, 162 with one group ahead
 * (/work/notes/cpu_fp_results.md); here 1, 2, 4, 8 and 16 groups ahead measured within this VM's
 * noise of each other (G1 2^16, one thread). */
#define PREFETCH_GROUPS 8

static void prefetch_group(const g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, size_t g)
{
    for (size_t j = 8 * g; j < 8 * g + 8 && j < m; j++) {
        const g16__p1_aff52 *b = &L->bk[e[j].b];
        __builtin_prefetch(&b->x, 1);
        __builtin_prefetch(&b->y, 1);
        __builtin_prefetch(&e[j].q->x);
        __builtin_prefetch(&e[j].q->y);
    }
}

/* Gathers and scatters: fp8.h's transposes, the AVX-512 ones called directly when the CPU has
 * them (one dispatch per accumulator instead of one per call). */
static void lanes_gather(const g16__p1_lanes *L, g16__fp8 *r, const g16__fp52 *const e[8])
{
    if (L->avx512)
        g16__fp8_gather_avx512(r, e);
    else
        g16__fp8_gather(r, e);
}

static void lanes_scatter(const g16__p1_lanes *L, g16__fp52 *const e[8], const g16__fp8 *r)
{
    if (L->avx512)
        g16__fp8_scatter_avx512(e, r);
    else
        g16__fp8_scatter(e, r);
}

/* Coordinate x (y = 0) or y of eight points into lanes. */
static void gather_coord(const g16__p1_lanes *L, g16__fp8 *r, const g16__p1_aff52 *const pts[8], int y)
{
    const g16__fp52 *c[8];
    for (int k = 0; k < 8; k++)
        c[k] = y ? &pts[k]->y : &pts[k]->x;
    lanes_gather(L, r, c);
}

/* ---------------- the batch ---------------- */

/* Lanes with x_P = x_B (mask zero): the same point doubles (unless y = 0), the opposite one
 * cancels, as in acc_run_batch. Sets their kinds and denominators (2·y_B, or 1). */
static void classify_special(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t g, unsigned zero,
                             g16__p1_aff52 *const bk[8], const g16__p1_aff52 *const pt[8], lane_group *G)
{
    unsigned dbl = 0, inf = 0;
    for (int k = 0; k < 8; k++) {
        if (!((zero >> k) & 1))
            continue;
        size_t j = 8 * g + (size_t)k;
        g16__fp52 py;
        if (e[j].neg)
            fp52_neg(&py, &pt[k]->y);
        else
            py = pt[k]->y;
        int same = memcmp(&py, &bk[k]->y, sizeof py) == 0 && !fp52_is_zero(&bk[k]->y);
        L->kind[j] = same ? L_DBL : L_INF;
        if (same)
            dbl |= 1u << k;
        else
            inf |= 1u << k;
    }
    if (dbl) {
        g16__fp8 t, s;
        g16__fp8_dbl(&t, &G->by);
        lane_select(&G->den, &t, dbl);
        g16__fp8_sqr(&s, &G->bx);
        g16__fp8_dbl(&t, &s);
        g16__fp8_add(&t, &t, &s);
        lane_select(&G->num, &t, dbl);
    }
    if (inf) {
        const g16__fp52 *one[8];
        g16__fp8 o;
        for (int k = 0; k < 8; k++)
            one[k] = &L->one;
        lanes_gather(L, &o, one);
        lane_select(&G->den, &o, inf);
    }
    L->special[g] = (uint8_t)(dbl | inf);
}

/* Numerators of group g: y_P − y_B, with y_P negated in the lanes whose entry subtracts. */
static void group_numerators(const g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, size_t g,
                             const g16__p1_aff52 *const pt[8], lane_group *G)
{
    g16__fp8 py, t;
    unsigned neg = 0;
    for (size_t k = 0; k < 8 && 8 * g + k < m; k++)
        neg |= (unsigned)(e[8 * g + k].neg != 0) << k;
    gather_coord(L, &py, pt, 1);
    if (neg) {
        g16__fp8_neg(&t, &py);
        lane_select(&py, &t, neg);
    }
    g16__fp8_sub(&G->num, &py, &G->by);
}

/* Forward pass: every coordinate of group g gathered once into L->grp[g], denominators and
 * numerators (the rare x_P = x_B lanes patched), lane prefix products; *acc = each lane's full
 * product. */
static void batch_forward(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, g16__fp8 *acc)
{
    size_t ng = (m + 7) / 8;
    const g16__fp52 *one[8];
    for (int k = 0; k < 8; k++)
        one[k] = &L->one;
    lanes_gather(L, acc, one);
    memset(L->kind, L_ADD, ng * 8);
    for (size_t g = 0; g < ng; g++) {
        g16__p1_aff52 *bk[8];
        const g16__p1_aff52 *pt[8];
        lane_group *G = &L->grp[g];
        g16__fp8 px;
        if (g + PREFETCH_GROUPS < ng)
            prefetch_group(L, e, m, g + PREFETCH_GROUPS);
        group_points(L, e, m, g, bk, pt);
        gather_coord(L, &G->bx, (const g16__p1_aff52 *const *)bk, 0);
        gather_coord(L, &G->by, (const g16__p1_aff52 *const *)bk, 1);
        gather_coord(L, &px, pt, 0);
        g16__fp8_sub(&G->den, &px, &G->bx);
        g16__fp8_add(&G->sx, &px, &G->bx); /* x_P = x_B when doubling */
        group_numerators(L, e, m, g, pt, G);
        L->special[g] = 0;
        unsigned zero = lane_zeros(&G->den); /* padding lanes have x_P − x_B = 1 */
        if (zero)
            classify_special(L, e, g, zero, bk, pt, G);
        G->prefix = *acc;
        g16__fp8_mul(acc, acc, &G->den);
    }
}

/* inv := 1 / acc per lane: the eight lanes by Montgomery's trick around one scalar inversion. */
static void invert_lanes(g16__fp8 *inv, const g16__fp8 *acc)
{
    g16_fp l[8], pre[8], a = g16__fp_one, ia;
    g16__fp8_to_fp(l, acc);
    for (int k = 0; k < 8; k++) {
        pre[k] = a;
        g16__fp_mul(&a, &a, &l[k]);
    }
    g16__fp_inv_var(&ia, &a);
    for (int k = 8; k-- > 0;) {
        g16_fp t;
        g16__fp_mul(&t, &ia, &pre[k]);
        g16__fp_mul(&ia, &ia, &l[k]);
        l[k] = t;
    }
    g16__fp8_from_fp(inv, l);
}

/* Where the backward pass of group g writes each lane's x3, y3: its bucket, or a sink for the
 * padding lanes and the cancelled entries (whose buckets are emptied here). */
static void backward_targets(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, size_t g, uint8_t *filled,
                             g16__fp52 *wx[8], g16__fp52 *wy[8])
{
    for (size_t k = 0; k < 8; k++) {
        size_t j = 8 * g + k;
        int live = j < m && L->kind[j] != L_INF;
        if (j < m && !live)
            filled[e[j].b] = 0;
        g16__p1_aff52 *b = live ? &L->bk[e[j].b] : &L->sink[k];
        wx[k] = &b->x;
        wy[k] = &b->y;
    }
}

/* Backward pass over group g: the new buckets, written back; cancelled buckets emptied. */
static void group_backward(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, size_t g, g16__fp8 *inv,
                           uint8_t *filled)
{
    const lane_group *G = &L->grp[g];
    g16__fp8 dinv, lam, x3, t;
    g16__fp8_mul(&dinv, inv, &G->prefix);
    g16__fp8_mul(inv, inv, &G->den);
    g16__fp8_mul(&lam, &G->num, &dinv);
    g16__fp8_sqr(&x3, &lam);
    g16__fp8_sub(&x3, &x3, &G->sx);
    g16__fp8_sub(&t, &G->bx, &x3);
    g16__fp8_mul(&t, &lam, &t);
    g16__fp8_sub(&t, &t, &G->by);
    g16__fp52 *wx[8], *wy[8];
    backward_targets(L, e, m, g, filled, wx, wy);
    lanes_scatter(L, wx, &x3);
    lanes_scatter(L, wy, &t);
}

#if G16__FP8_HAVE_X86
/* The batch on AVX-512 IFMA: the same steps with the coordinates in registers (fp8.h's
 * g16__fp8v helpers inlined, their carry chains overlapping) and lazy operands where a
 * difference only feeds a product: den = x_P − x_B + p, num = ±y_P − y_B (+ p or 2p), t = x_B −
 * x3 + p, one carry chain each; x_P = x_B is found by comparing limbs. The products that only
 * feed products are lazy too (< 2p: the prefix chain, its inverses 1/den and the running inverse,
 * λ; their final subtraction of p skipped); λ² and λ(x_B − x3) are canonical, so buckets get
 * canonical x3, y3 and the limbs are those of the portable code. The prefix products are written
 * in place (no copies). */
#define LANES_AVX512 __attribute__((target("avx512f,avx512ifma")))

LANES_AVX512 static void batch_forward_avx512(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m,
                                              g16__fp8 *acc)
{
    size_t ng = (m + 7) / 8;
    const g16__fp52 *one[8];
    for (int k = 0; k < 8; k++)
        one[k] = &L->one;
    g16__fp8_gather_avx512(&L->grp[0].prefix, one);
    memset(L->kind, L_ADD, ng * 8);
    for (size_t g = 0; g < ng; g++) {
        g16__p1_aff52 *bk[8];
        const g16__p1_aff52 *pt[8];
        const g16__fp52 *c[8];
        lane_group *G = &L->grp[g];
        g16__fp8v bx, by, px, py, r;
        unsigned neg = 0;
        if (g + PREFETCH_GROUPS < ng)
            prefetch_group(L, e, m, g + PREFETCH_GROUPS);
        group_points(L, e, m, g, bk, pt);
        for (size_t k = 0; k < 8 && 8 * g + k < m; k++)
            neg |= (unsigned)(e[8 * g + k].neg != 0) << k;
        for (int k = 0; k < 8; k++)
            c[k] = &bk[k]->x;
        g16__fp8v_gather(&bx, c);
        for (int k = 0; k < 8; k++)
            c[k] = &bk[k]->y;
        g16__fp8v_gather(&by, c);
        for (int k = 0; k < 8; k++)
            c[k] = &pt[k]->x;
        g16__fp8v_gather(&px, c);
        for (int k = 0; k < 8; k++)
            c[k] = &pt[k]->y;
        g16__fp8v_gather(&py, c);
        unsigned zero = g16__fp8v_eq(&px, &bx); /* padding lanes: x_P = 1, x_B = 0 */
        g16__fp8v_sub_lazy(&r, &px, &bx);
        g16__fp8v_store(&G->den, &r);
        _Pragma("GCC unroll 8") for (int j = 0; j < 8; j++) r.v[j] = _mm512_add_epi64(px.v[j], bx.v[j]);
        g16__fp8v_store(&G->sx, &r);
        g16__fp8v_negsub_lazy(&r, &py, &by, neg); /* ±y_P − y_B */
        g16__fp8v_store(&G->num, &r);
        g16__fp8v_store(&G->bx, &bx);
        g16__fp8v_store(&G->by, &by);
        L->special[g] = 0;
        if (zero)
            classify_special(L, e, g, zero, bk, pt, G);
        g16__fp8_mul_lazy_ifma(g + 1 < ng ? &L->grp[g + 1].prefix : acc, &G->prefix, &G->den);
    }
}

LANES_AVX512 static void group_backward_avx512(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, size_t g,
                                               g16__fp8 *inv, uint8_t *filled)
{
    const lane_group *G = &L->grp[g];
    g16__fp8 dinv, lam, t;
    g16__fp8v a, b, d, x3, y3;
    g16__fp8_mul2_lazy_ifma(&dinv, inv, &G->prefix, inv, inv, &G->den); /* independent: one pass */
    g16__fp8_mul_lazy_ifma(&lam, &G->num, &dinv);
    g16__fp8_sqr_ifma(&t, &lam);
    g16__fp8v_load(&a, &t);
    g16__fp8v_load(&b, &G->sx);
    g16__fp8v_sub_limbs(&d, &a, &b);
    g16__fp8v_reduce3(&x3, &d); /* λ² − (x_B + x_P) in (−2p, p) */
    g16__fp8v_load(&b, &G->bx);
    g16__fp8v_sub_lazy(&a, &b, &x3);
    g16__fp8v_store(&t, &a);
    g16__fp8_mul_ifma(&t, &lam, &t);
    g16__fp8v_load(&a, &t);
    g16__fp8v_load(&b, &G->by);
    g16__fp8v_sub(&y3, &a, &b);
    g16__fp52 *wx[8], *wy[8];
    backward_targets(L, e, m, g, filled, wx, wy);
    g16__fp8v_scatter(wx, &x3);
    g16__fp8v_scatter(wy, &y3);
}
#endif

void g16__p1_lanes_batch(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, uint8_t *filled)
{
    g16__fp8 acc, inv;
    if (m == 0)
        return;
#if G16__FP8_HAVE_X86
    if (L->avx512) {
        batch_forward_avx512(L, e, m, &acc);
        invert_lanes(&inv, &acc);
        for (size_t g = (m + 7) / 8; g-- > 0;)
            group_backward_avx512(L, e, m, g, &inv, filled);
        return;
    }
#endif
    batch_forward(L, e, m, &acc);
    invert_lanes(&inv, &acc);
    for (size_t g = (m + 7) / 8; g-- > 0;)
        group_backward(L, e, m, g, &inv, filled);
}

void g16__p1_lanes_fold(g16__p1_lanes *L, size_t slot0, size_t n, size_t per, uint8_t *filled)
{
    g16__p1_lane_entry *e = L->fold;
    for (size_t step = 1; step < per; step *= 2) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            for (size_t l = 0; l + step < per; l += 2 * step) {
                size_t dst = slot0 + i * per + l, src = dst + step;
                if (!filled[src])
                    continue;
                filled[src] = 0; /* its point stays in place until the batch has read it */
                if (!filled[dst]) {
                    L->bk[dst] = L->bk[src];
                    filled[dst] = 1;
                    continue;
                }
                e[m].b = (uint32_t)dst;
                e[m].neg = 0;
                e[m].p = NULL;
                e[m].q = &L->bk[src];
                if (++m == L->cap) {
                    g16__p1_lanes_batch(L, e, m, filled);
                    m = 0;
                }
            }
        }
        g16__p1_lanes_batch(L, e, m, filled);
    }
}

/* ---------------- the bucket reduction ---------------- */

/* XYZZ points in lanes (msm_tmpl.h's representation: x = X/ZZ, y = Y/ZZZ, ZZ = 0 is infinity). */
typedef struct {
    g16__fp8 x, y, zz, zzz;
} xyzz8;

static void xyzz8_select(xyzz8 *r, const xyzz8 *a, unsigned mask)
{
    if (!mask)
        return;
    lane_select(&r->x, &a->x, mask);
    lane_select(&r->y, &a->y, mask);
    lane_select(&r->zz, &a->zz, mask);
    lane_select(&r->zzz, &a->zzz, mask);
}

/* r = 2a in every lane (dbl-2008-s-1 with a = 0, as msm_tmpl.h's xyzz_dbl; y = 0 gives ZZ = 0). */
static void xyzz8_dbl(xyzz8 *r, const xyzz8 *a)
{
    g16__fp8 u, v, w, s, m, t;
    g16__fp8_dbl(&u, &a->y);     /* U = 2Y */
    g16__fp8_sqr(&v, &u);        /* V = U² */
    g16__fp8_mul(&w, &u, &v);    /* W = U·V */
    g16__fp8_mul(&s, &a->x, &v); /* S = X·V */
    g16__fp8_sqr(&m, &a->x);
    g16__fp8_dbl(&t, &m);
    g16__fp8_add(&m, &m, &t); /* M = 3X² */
    g16__fp8_mul(&r->zz, &a->zz, &v);
    g16__fp8_mul(&r->zzz, &a->zzz, &w);
    g16__fp8_sqr(&t, &m);
    g16__fp8_sub(&t, &t, &s);
    g16__fp8_sub(&t, &t, &s); /* X3 = M² − 2S */
    g16__fp8_sub(&s, &s, &t);
    g16__fp8_mul(&s, &m, &s);
    g16__fp8_mul(&w, &w, &a->y);
    g16__fp8_sub(&r->y, &s, &w); /* Y3 = M(S − X3) − W·Y */
    r->x = t;
}

/* The end of an addition in every lane: from P (U2 − U1), R (S2 − S1), U1 and S1 of the first
 * operand, X3 = R² − PPP − 2Q, Y3 = R(Q − X3) − S1·PPP with Q = U1·P², PPP = P³; *pp, *ppp out. */
static void xyzz8_finish(xyzz8 *r, const g16__fp8 *p, const g16__fp8 *rr, const g16__fp8 *u1, const g16__fp8 *s1,
                         g16__fp8 *pp, g16__fp8 *ppp)
{
    g16__fp8 q, t;
    g16__fp8_sqr(pp, p);
    g16__fp8_mul(ppp, pp, p);
    g16__fp8_mul(&q, u1, pp);
    g16__fp8_sqr(&t, rr);
    g16__fp8_sub(&t, &t, ppp);
    g16__fp8_sub(&t, &t, &q);
    g16__fp8_sub(&t, &t, &q);
    g16__fp8_sub(&q, &q, &t);
    g16__fp8_mul(&q, rr, &q);
    r->x = t;
    g16__fp8_mul(&t, s1, ppp);
    g16__fp8_sub(&r->y, &q, &t);
}

/* The lanes of the equal-x case (mask pz, both operands finite): doubling where R = 0 too
 * (equal points; *twice is 2·(the point), computed by the caller only then), infinity otherwise
 * (the generic formulas already give ZZ3 = 0 there; this makes every coordinate zero, the
 * canonical infinity). */
static void xyzz8_equal_x(xyzz8 *r, unsigned pz, const g16__fp8 *rr, const xyzz8 *twice)
{
    xyzz8 zero;
    unsigned same = pz & lane_zeros(rr);
    if (same)
        xyzz8_select(r, twice, same);
    if (pz & ~same) {
        memset(&zero, 0, sizeof zero);
        xyzz8_select(r, &zero, pz & ~same);
    }
}

/* s += (px, py) in the lanes not in `none` (madd-2008-s; an infinite s takes the point). */
static void xyzz8_madd(xyzz8 *s, const g16__fp8 *px, const g16__fp8 *py, unsigned none, const g16__fp8 *one)
{
    xyzz8 n, first, twice;
    g16__fp8 p, rr, pp, ppp;
    unsigned live = ~none & 0xffu, sinf = lane_zeros(&s->zz) & live;
    g16__fp8_mul(&p, px, &s->zz);
    g16__fp8_sub(&p, &p, &s->x); /* P = U2 − X1 */
    g16__fp8_mul(&rr, py, &s->zzz);
    g16__fp8_sub(&rr, &rr, &s->y); /* R = S2 − Y1 */
    unsigned pz = lane_zeros(&p) & live & ~sinf;
    xyzz8_finish(&n, &p, &rr, &s->x, &s->y, &pp, &ppp);
    g16__fp8_mul(&n.zz, &s->zz, &pp);
    g16__fp8_mul(&n.zzz, &s->zzz, &ppp);
    if (pz) {
        xyzz8_dbl(&twice, s);
        xyzz8_equal_x(&n, pz, &rr, &twice);
    }
    if (sinf) {
        first.x = *px;
        first.y = *py;
        first.zz = *one;
        first.zzz = *one;
        xyzz8_select(&n, &first, sinf);
    }
    xyzz8_select(s, &n, live);
}

/* t += s in every lane (add-2008-s; an infinite operand leaves the other). */
static void xyzz8_add(xyzz8 *t, const xyzz8 *s)
{
    xyzz8 n, twice;
    g16__fp8 u1, s1, p, rr, pp, ppp;
    unsigned sinf = lane_zeros(&s->zz), tinf = lane_zeros(&t->zz) & ~sinf;
    if (sinf == 0xffu)
        return;
    g16__fp8_mul(&u1, &t->x, &s->zz);
    g16__fp8_mul(&p, &s->x, &t->zz);
    g16__fp8_sub(&p, &p, &u1); /* P = U2 − U1 */
    g16__fp8_mul(&s1, &t->y, &s->zzz);
    g16__fp8_mul(&rr, &s->y, &t->zzz);
    g16__fp8_sub(&rr, &rr, &s1); /* R = S2 − S1 */
    unsigned pz = lane_zeros(&p) & ~sinf & ~tinf;
    xyzz8_finish(&n, &p, &rr, &u1, &s1, &pp, &ppp);
    g16__fp8_mul(&n.zz, &t->zz, &s->zz);
    g16__fp8_mul(&n.zz, &n.zz, &pp);
    g16__fp8_mul(&n.zzz, &t->zzz, &s->zzz);
    g16__fp8_mul(&n.zzz, &n.zzz, &ppp);
    if (pz) {
        xyzz8_dbl(&twice, t);
        xyzz8_equal_x(&n, pz, &rr, &twice);
    }
    xyzz8_select(&n, s, tinf);
    xyzz8_select(t, &n, ~sinf & 0xffu);
}

/* Lanes into msm_tmpl.h's scalar XYZZ (infinity canonical: all zero). */
static void xyzz8_out(g16__p1_xyzz out[8], const xyzz8 *a)
{
    g16_fp c[4][8];
    g16__fp8_to_fp(c[0], &a->x);
    g16__fp8_to_fp(c[1], &a->y);
    g16__fp8_to_fp(c[2], &a->zz);
    g16__fp8_to_fp(c[3], &a->zzz);
    unsigned inf = lane_zeros(&a->zz);
    for (int k = 0; k < 8; k++) {
        if ((inf >> k) & 1) {
            memset(&out[k], 0, sizeof out[k]);
            continue;
        }
        out[k].x = c[0][k];
        out[k].y = c[1][k];
        out[k].zz = c[2][k];
        out[k].zzz = c[3][k];
    }
}

void g16__p1_lanes_reduce(const g16__p1_lanes *L, const g16__p1_lane_seg seg[8], const uint8_t *filled,
                          g16__p1_xyzz sum[8], g16__p1_xyzz tot[8])
{
    xyzz8 s, t;
    g16__fp8 one, px, py;
    const g16__fp52 *ones[8];
    size_t top = 0, per = 0;
    for (int k = 0; k < 8; k++) {
        ones[k] = &L->one;
        if (seg[k].n > top)
            top = seg[k].n;
        if (seg[k].n && seg[k].per > per)
            per = seg[k].per;
    }
    lanes_gather(L, &one, ones);
    memset(&s, 0, sizeof s);
    memset(&t, 0, sizeof t);
    for (size_t b = top; b-- > 0;) {
        for (size_t l = 0; l < per; l++) {
            const g16__fp52 *cx[8], *cy[8];
            unsigned none = 0;
            for (int k = 0; k < 8; k++) {
                const g16__p1_aff52 *q = &L->pad_pt;
                size_t slot = seg[k].slot0 + b * seg[k].per + l;
                if (b < seg[k].n && l < seg[k].per && filled[slot])
                    q = &L->bk[slot];
                else
                    none |= 1u << k;
                cx[k] = &q->x;
                cy[k] = &q->y;
            }
            if (none != 0xffu) {
                lanes_gather(L, &px, cx);
                lanes_gather(L, &py, cy);
                xyzz8_madd(&s, &px, &py, none, &one);
            }
        }
        xyzz8_add(&t, &s);
    }
    xyzz8_out(sum, &s);
    xyzz8_out(tot, &t);
}
