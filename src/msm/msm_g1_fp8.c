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

#include <stdlib.h>
#include <string.h>

#define M52 0xfffffffffffffULL

enum { L_ADD, L_DBL, L_INF };

/* p in 52-bit limbs (the table of fp8.c; a wrong limb breaks every negative-digit test). */
static const uint64_t p52[8] = {0xeffffffffaaabULL, 0xfeb153ffffb9fULL, 0x6b0f6241eabffULL, 0x12bf6730d2a0fULL,
                                0x764774b84f385ULL, 0x1ba7b6434bacdULL, 0x1ea397fe69a4bULL, 0x1a011ULL};

/* What the backward pass needs of a group, written by the forward pass (which gathers every
 * coordinate once: the backward pass then reads this sequentially instead of gathering again). */
typedef struct {
    g16__fp8 prefix; /* product of the lane's earlier denominators */
    g16__fp8 den;    /* x_P − x_B (2·y_B doubling, 1 cancelling) */
    g16__fp8 num;    /* y_P − y_B with y_P negated for subtraction (3·x_B² doubling) */
    g16__fp8 sx;     /* x_B + x_P */
    g16__fp8 bx, by;
} lane_group;

struct g16__p1_lanes {
    g16__p1_aff52 pad_bk, pad_pt; /* an unused lane adds (1, 0) to (0, 0): denominator 1 */
    g16__p1_aff52 sink[8];        /* where unused and cancelled lanes scatter to */
    g16__fp52 one;
    g16__p1_aff52 *bk;
    lane_group *grp;        /* per group of eight entries */
    uint8_t *special;       /* per group: lanes whose entry is not a plain addition */
    uint8_t *kind;          /* per entry: L_ADD, L_DBL, L_INF */
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
    L->bk = alloc64(nb * sizeof *L->bk);
    L->grp = alloc64(ng * sizeof *L->grp);
    L->special = malloc(ng);
    L->kind = malloc(ng * 8);
    if (!L->bk || !L->grp || !L->special || !L->kind) {
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
    free(L->bk);
    free(L->grp);
    free(L->special);
    free(L->kind);
    free(L);
}

void g16__p1_aff52_from(g16__p1_aff52 *r, const g16_p1_affine *a)
{
    g16__fp52_from_fp(&r->x, &a->x);
    g16__fp52_from_fp(&r->y, &a->y);
}

/* r = −a mod p on 52-bit limbs (−0 = 0). */
static void fp52_neg(g16__fp52 *r, const g16__fp52 *a)
{
    uint64_t d[8], borrow = 0, any = 0;
    for (int j = 0; j < 8; j++) {
        uint64_t t = p52[j] - a->l[j] - borrow;
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
    for (size_t k = 0; k < 8; k++) {
        size_t j = 8 * g + k;
        int live = j < m && L->kind[j] != L_INF;
        if (j < m && !live)
            filled[e[j].b] = 0;
        g16__p1_aff52 *b = live ? &L->bk[e[j].b] : &L->sink[k];
        wx[k] = &b->x;
        wy[k] = &b->y;
    }
    lanes_scatter(L, wx, &x3);
    lanes_scatter(L, wy, &t);
}

void g16__p1_lanes_batch(g16__p1_lanes *L, const g16__p1_lane_entry *e, size_t m, uint8_t *filled)
{
    g16__fp8 acc, inv;
    if (m == 0)
        return;
    batch_forward(L, e, m, &acc);
    invert_lanes(&inv, &acc);
    for (size_t g = (m + 7) / 8; g-- > 0;)
        group_backward(L, e, m, g, &inv, filled);
}
