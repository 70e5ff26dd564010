/*
 * The MSM for one group, written once over a field: included by msm_g1.c (Fp, G1) and
 * msm_g2.c (Fp2, G2) after they define
 *   FE                  field element type; FE_ONE: an expression of type const FE * for 1
 *   fe_add fe_sub fe_dbl fe_neg fe_mul fe_sqr fe_inv_var   (the field's API)
 *   AFF, JAC            affine and Jacobian point types; jac_set_inf(JAC *)
 *   MSM_G2              0 or 1; MSM_NAME(x): the public function name for x (msm_var, ...)
 *   MSM_SPAN            trace span name prefix ("msm.g1"): spans MSM_SPAN, .classify, .lanes
 *                       (the lane path's conversion), .windows (one per window task, n = task
 *                       index), .ones, .combine
 *   MSM_LANES           optional, G1 only: 1 adds the Fp8 lane path (msm_g1_fp8.h): when
 *                       g16__p1_lanes_wanted(), the bases are converted to the lane format once
 *                       per MSM, and affine accumulators keep their buckets and run their batches
 *                       there (same bucket contents, bit for bit; overflow stays scalar XYZZ).
 *
 * Point representations used inside (both variable-time, for public data):
 *   affine buckets      (x, y) with a per-bucket "filled" flag (an empty bucket is infinity).
 *   XYZZ                (X, Y, ZZ, ZZZ) with x = X/ZZ, y = Y/ZZZ and ZZ³ = ZZZ²; ZZ = 0 is
 *                       infinity. Formulas of Cohen–Miyaji–Ono as listed in the Explicit-Formulas
 *                       Database (add-2008-s, madd-2008-s, dbl-2008-s-1), with the a = 0 curve:
 *                       general add 12M+2S, mixed add 8M+2S, doubling 6M+3S (roughly).
 *
 * Batched affine addition: bucket B += P for up to `batch` distinct buckets at once. λ needs
 * 1/(x_P − x_B) (or 1/(2y_B) when doubling); the denominators are multiplied together, the
 * product is inverted once, and each inverse is recovered from the prefix products
 * (Montgomery's trick): 3M per addition plus the shared inversion, then λ, x3 = λ² − x_B − x_P,
 * y3 = λ(x_B − x3) − y_B: 5M+1S per addition against 8M+2S for a mixed XYZZ addition.
 * A point whose bucket is already in the current batch waits for the next batch (pending
 * list); if it collides again it is added into a per-bucket XYZZ overflow accumulator, so a
 * pathological input (all scalars equal) costs at most the XYZZ price, never one batch per point.
 */

#include <stdlib.h>
#include <string.h>

#include "msm/msm_internal.h"
#include "util/alloc.h"
#include "util/error.h"
#include "util/trace.h"

#ifndef MSM_LANES
#define MSM_LANES 0
#endif
#if MSM_LANES
typedef g16__p1_aff52 lane_pt;
#else
typedef char lane_pt; /* no lane path: lane_pt pointers are always NULL */
#endif

typedef struct {
    FE x, y, zz, zzz;
} xyzz;

/* Variable-time tests on the limbs: elements are fully reduced, so zero is all-zero limbs and
 * equal elements have equal limbs. Cheaper than the constant-time calls on the hot path. */
static inline int fe_is_zero_var(const FE *a)
{
    const uint64_t *l = (const uint64_t *)a;
    for (size_t i = 0; i < sizeof(FE) / sizeof(uint64_t); i++)
        if (l[i])
            return 0;
    return 1;
}

static inline int fe_eq_var(const FE *a, const FE *b) { return memcmp(a, b, sizeof(FE)) == 0; }

/* ---------------- XYZZ arithmetic (variable-time) ---------------- */

static void xyzz_set_inf(xyzz *r) { memset(r, 0, sizeof *r); }
static int xyzz_is_inf(const xyzz *a) { return fe_is_zero_var(&a->zz); }

static void xyzz_from_affine(xyzz *r, const AFF *p, int neg)
{
    r->x = p->x;
    if (neg)
        fe_neg(&r->y, &p->y);
    else
        r->y = p->y;
    r->zz = *FE_ONE;
    r->zzz = *FE_ONE;
}

static void xyzz_dbl(xyzz *r, const xyzz *a)
{
    FE u, v, w, s, m, t;
    if (xyzz_is_inf(a) || fe_is_zero_var(&a->y)) {
        xyzz_set_inf(r);
        return;
    }
    fe_dbl(&u, &a->y);       /* U = 2Y */
    fe_sqr(&v, &u);          /* V = U² */
    fe_mul(&w, &u, &v);      /* W = U·V */
    fe_mul(&s, &a->x, &v);   /* S = X·V */
    fe_sqr(&m, &a->x);
    fe_dbl(&t, &m);
    fe_add(&m, &m, &t);      /* M = 3X² (a = 0) */
    fe_mul(&r->zz, &a->zz, &v);
    fe_mul(&r->zzz, &a->zzz, &w);
    fe_sqr(&t, &m);
    fe_sub(&t, &t, &s);
    fe_sub(&t, &t, &s);      /* X3 = M² − 2S */
    fe_sub(&s, &s, &t);
    fe_mul(&s, &m, &s);      /* M(S − X3) */
    fe_mul(&w, &w, &a->y);
    fe_sub(&r->y, &s, &w);   /* Y3 = M(S − X3) − W·Y */
    r->x = t;
}

/* r += (neg ? −p : p), p affine and not infinity. */
static void xyzz_madd(xyzz *r, const AFF *p, int neg)
{
    FE u2, s2, pp, ppp, q, t, py;
    if (xyzz_is_inf(r)) {
        xyzz_from_affine(r, p, neg);
        return;
    }
    if (neg)
        fe_neg(&py, &p->y);
    else
        py = p->y;
    fe_mul(&u2, &p->x, &r->zz);
    fe_mul(&s2, &py, &r->zzz);
    fe_sub(&u2, &u2, &r->x); /* P = U2 − X1 */
    fe_sub(&s2, &s2, &r->y); /* R = S2 − Y1 */
    if (fe_is_zero_var(&u2)) {
        if (fe_is_zero_var(&s2)) {
            xyzz a;
            xyzz_from_affine(&a, p, neg);
            xyzz_dbl(r, &a);
        } else {
            xyzz_set_inf(r);
        }
        return;
    }
    fe_sqr(&pp, &u2);
    fe_mul(&ppp, &pp, &u2);
    fe_mul(&q, &r->x, &pp);
    fe_mul(&r->zz, &r->zz, &pp);
    fe_mul(&r->zzz, &r->zzz, &ppp);
    fe_sqr(&t, &s2);
    fe_sub(&t, &t, &ppp);
    fe_sub(&t, &t, &q);
    fe_sub(&t, &t, &q);      /* X3 = R² − PPP − 2Q */
    fe_sub(&q, &q, &t);
    fe_mul(&q, &s2, &q);     /* R(Q − X3) */
    fe_mul(&ppp, &r->y, &ppp);
    fe_sub(&r->y, &q, &ppp); /* Y3 = R(Q − X3) − Y1·PPP */
    r->x = t;
}

/* r += b (general addition). */
static void xyzz_add(xyzz *r, const xyzz *b)
{
    FE u1, u2, s1, s2, pp, ppp, q, t;
    if (xyzz_is_inf(b))
        return;
    if (xyzz_is_inf(r)) {
        *r = *b;
        return;
    }
    fe_mul(&u1, &r->x, &b->zz);
    fe_mul(&u2, &b->x, &r->zz);
    fe_mul(&s1, &r->y, &b->zzz);
    fe_mul(&s2, &b->y, &r->zzz);
    fe_sub(&u2, &u2, &u1); /* P */
    fe_sub(&s2, &s2, &s1); /* R */
    if (fe_is_zero_var(&u2)) {
        if (fe_is_zero_var(&s2))
            xyzz_dbl(r, r);
        else
            xyzz_set_inf(r);
        return;
    }
    fe_sqr(&pp, &u2);
    fe_mul(&ppp, &pp, &u2);
    fe_mul(&q, &u1, &pp);
    fe_mul(&r->zz, &r->zz, &b->zz);
    fe_mul(&r->zz, &r->zz, &pp);
    fe_mul(&r->zzz, &r->zzz, &b->zzz);
    fe_mul(&r->zzz, &r->zzz, &ppp);
    fe_sqr(&t, &s2);
    fe_sub(&t, &t, &ppp);
    fe_sub(&t, &t, &q);
    fe_sub(&t, &t, &q);
    fe_sub(&q, &q, &t);
    fe_mul(&q, &s2, &q);
    fe_mul(&ppp, &s1, &ppp);
    fe_sub(&r->y, &q, &ppp);
    r->x = t;
}

/* out = a as a Jacobian point with Z = 1 (or the curve layer's infinity): one inversion. */
static void xyzz_to_jac_normalized(JAC *out, const xyzz *a)
{
    FE d, inv;
    if (xyzz_is_inf(a)) {
        jac_set_inf(out);
        return;
    }
    fe_mul(&d, &a->zz, &a->zzz);
    fe_inv_var(&inv, &d);             /* 1/(ZZ·ZZZ) */
    fe_mul(&d, &inv, &a->zzz);        /* 1/ZZ */
    fe_mul(&out->x, &a->x, &d);
    fe_mul(&d, &inv, &a->zz);         /* 1/ZZZ */
    fe_mul(&out->y, &a->y, &d);
    out->z = *FE_ONE;
}

static int aff_is_inf(const AFF *p) { return fe_is_zero_var(&p->x) && fe_is_zero_var(&p->y); }

/* ---------------- bucket accumulation ---------------- */


#if MSM_LANES
typedef g16__p1_lane_entry entry; /* the fields below, plus the point in the lane format */
#else
typedef struct {
    uint32_t b;   /* physical bucket (slot) */
    uint32_t neg; /* add −P instead of P */
    const AFF *p;
} entry;
#endif

enum { K_ADD, K_DBL, K_INF };

#ifndef PREFETCH_AHEAD
#define PREFETCH_AHEAD 8
#endif

/* One accumulator serves a group of windows (their buckets side by side, one shared batch, so
 * that a small MSM still fills large batches) or the ones. Buckets are "logical" (one per digit
 * value) and each has `lanes` physical slots used in turn: a window with few digit values (the
 * narrow top window, the single bucket of the ones) still fills a batch with distinct slots.
 * Slot of logical bucket b, lane l of window w: slot0(w) + b·lanes(w) + l. */
typedef struct {
    size_t slot0, turn0;  /* first physical slot, first lane counter */
    size_t nlogical, lanes;
} acc_win;

typedef struct {
    size_t nb;          /* physical buckets, all windows */
    size_t nwin;
    acc_win *win;
    uint32_t *turn;     /* next lane of each logical bucket */
    int affine;         /* accumulation mode */
    AFF *bk;            /* affine buckets (NULL on the lane path) */
#if MSM_LANES
    g16__p1_lanes *ln;  /* lane path: the affine buckets and batch scratch live here */
#endif
    uint8_t *filled;
    uint32_t *stamp;    /* batch number in which the bucket is scheduled */
    uint32_t cur;       /* current batch number (starts at 1; stamps start at 0) */
    xyzz *ovf;          /* XYZZ buckets: overflow (affine mode) or the buckets (XYZZ mode); lazy */
    entry *batch, *pend, *retry;
    uint8_t *kind;
    FE *prefix, *den;   /* per batch entry: product of the earlier denominators; own denominator */
    size_t nbatch, npend, cap, pcap;
    int nomem;
} acc_state;

static void acc_push(acc_state *s, const entry *e, int retried);
static void acc_push_fields(acc_state *s, uint32_t b, uint32_t neg, const AFF *p, const lane_pt *q);

static void acc_free(acc_state *s)
{
    free(s->win);
    g16__free_large(s->bk, s->nb * sizeof *s->bk);
    free(s->turn);
    free(s->filled);
    free(s->stamp);
    g16__free_large(s->ovf, s->nb * sizeof *s->ovf);
    free(s->batch);
    free(s->pend);
    free(s->retry);
    free(s->kind);
    free(s->prefix);
    free(s->den);
#if MSM_LANES
    g16__p1_lanes_destroy(s->ln);
#endif
}

#if MSM_LANES
/* Windows with at most this many slots per logical bucket reduce in lanes (a narrow top window
 * has more: it stays scalar, its buckets are few). */
#define LANES_REDUCE_MAX_SLOTS 4
#endif

/* nlogical[w]: digit values of each of the nwin windows; cap: batch size; lanes: affine buckets
 * on the lane path (MSM_LANES only). */
static int acc_init(acc_state *s, const size_t *nlogical, size_t nwin, int affine, size_t cap, int lanes)
{
    memset(s, 0, sizeof *s);
    s->nwin = nwin;
    s->affine = affine;
    s->cur = 1;
    if (!(s->win = calloc(nwin, sizeof *s->win)))
        return 0;
    size_t share = (cap + nwin - 1) / nwin, nturn = 0;
    for (size_t w = 0; w < nwin; w++) {
        acc_win *aw = &s->win[w];
        aw->nlogical = nlogical[w];
        aw->lanes = 1;
        /* enough lanes that the window's share of a batch rarely meets a slot twice */
        while (affine && aw->nlogical * aw->lanes < 2 * share)
            aw->lanes *= 2;
#if MSM_LANES
        /* Lane path: twice that where the window still reduces in lanes: fewer points meet
         * their slot in the running batch (pending list) twice (XYZZ overflow). G1 2^16, c = 11,
         * one thread, alternated, min / median ms: batches of 2048, two -> four slots (pending
         * 16% -> 1.6% of the additions, overflow 1% -> 0.01%): 223 / 262 -> 215 / 245; batches
         * of 1024 (LANES_MAX_BATCH now), one -> two slots: 273.8 / 352.2 -> 203.4 / 260.1. */
        if (affine && lanes && aw->lanes * 2 <= LANES_REDUCE_MAX_SLOTS)
            aw->lanes *= 2;
#endif
        aw->slot0 = s->nb;
        aw->turn0 = nturn;
        s->nb += aw->nlogical * aw->lanes;
        nturn += aw->nlogical;
    }
    if (!(s->turn = calloc(nturn ? nturn : 1, sizeof *s->turn)))
        return 0;
    if (!affine)
        return (s->ovf = g16__alloc_large_zero(s->nb, sizeof *s->ovf)) != NULL;
    s->cap = cap;
    s->pcap = cap / 2; /* < cap, so re-adding the pending list never fills a batch by itself */
    s->filled = calloc(s->nb, 1);
    s->stamp = calloc(s->nb, sizeof *s->stamp);
    s->batch = malloc(cap * sizeof *s->batch);
    s->pend = malloc((s->pcap + 1) * sizeof *s->pend);
    s->retry = malloc((s->pcap + 1) * sizeof *s->retry);
    if (!s->filled || !s->stamp || !s->batch || !s->pend || !s->retry)
        return 0;
#if MSM_LANES
    if (lanes)
        return (s->ln = g16__p1_lanes_create(s->nb, cap)) != NULL;
#else
    (void)lanes;
#endif
    s->bk = s->nb <= SIZE_MAX / sizeof *s->bk ? g16__alloc_large(s->nb * sizeof *s->bk) : NULL;
    s->kind = malloc(cap);
    s->prefix = malloc(cap * sizeof *s->prefix);
    s->den = malloc(cap * sizeof *s->den);
    return s->bk && s->kind && s->prefix && s->den;
}

/* Physical slot for the next point of logical bucket b of window w (the window's slots in turn). */
static inline uint32_t acc_slot(acc_state *s, size_t w, size_t b)
{
    const acc_win *aw = &s->win[w];
    size_t slot = aw->slot0 + b * aw->lanes;
    if (aw->lanes > 1)
        slot += s->turn[aw->turn0 + b]++ & (aw->lanes - 1);
    return (uint32_t)slot;
}

/* Adds ±p to logical bucket b of window w (q: p in the lane format, on the lane path). The
 * entry goes to acc_push_fields in registers: building it on the stack for an out-of-line
 * acc_push made the 16-byte copy into the batch load across two 4-byte stores (a failed store
 * forward), the hottest spot of acc_push in perf (G1 2^16, one thread). */
static inline void acc_add(acc_state *s, size_t w, size_t b, const AFF *p, const lane_pt *q, int neg)
{
    acc_push_fields(s, acc_slot(s, w, b), (uint32_t)neg, p, q);
}

static void acc_overflow(acc_state *s, const entry *e)
{
    if (!s->ovf) {
        s->ovf = g16__alloc_large_zero(s->nb, sizeof *s->ovf);
        if (!s->ovf) {
            s->nomem = 1;
            return;
        }
    }
    xyzz_madd(&s->ovf[e->b], e->p, (int)e->neg);
}

/* The batch: every scheduled bucket is filled and appears once. */
static void acc_run_batch(acc_state *s)
{
    FE acc = *FE_ONE, inv, num, dinv, lam, t, py;
    size_t m = s->nbatch;
#if MSM_LANES
    if (s->ln) {
        g16__p1_lanes_batch(s->ln, s->batch, m, s->filled);
        s->nbatch = 0;
        s->cur++;
        return;
    }
#endif
    for (size_t j = 0; j < m; j++) {
        const entry *e = &s->batch[j];
        const AFF *a = &s->bk[e->b];
        FE *den = &s->den[j];
        /* buckets are scattered over up to megabytes: fetch a few entries ahead */
        if (j + PREFETCH_AHEAD < m)
            __builtin_prefetch(&s->bk[s->batch[j + PREFETCH_AHEAD].b]);
        fe_sub(den, &e->p->x, &a->x);
        s->kind[j] = K_ADD;
        if (fe_is_zero_var(den)) {
            if (e->neg)
                fe_neg(&py, &e->p->y);
            else
                py = e->p->y;
            /* same x: P = B doubles (unless y = 0, a 2-torsion point), P = −B cancels */
            if (fe_eq_var(&py, &a->y) && !fe_is_zero_var(&a->y)) {
                s->kind[j] = K_DBL;
                fe_dbl(den, &a->y);
            } else {
                s->kind[j] = K_INF;
                continue;
            }
        }
        s->prefix[j] = acc;
        fe_mul(&acc, &acc, den);
    }
    fe_inv_var(&inv, &acc);
    for (size_t j = m; j-- > 0;) {
        const entry *e = &s->batch[j];
        AFF *a = &s->bk[e->b];
        if (j >= PREFETCH_AHEAD)
            __builtin_prefetch(&s->bk[s->batch[j - PREFETCH_AHEAD].b], 1);
        int flip = 0; /* λ was computed for −P: y3 = −λ(x3 − x_B) − y_B */
        if (s->kind[j] == K_INF) {
            s->filled[e->b] = 0;
            continue;
        }
        if (s->kind[j] == K_ADD) {
            flip = (int)e->neg;
            if (flip)
                fe_add(&num, &e->p->y, &a->y); /* −(y_(−P) − y_B) */
            else
                fe_sub(&num, &e->p->y, &a->y);
        } else {
            fe_sqr(&t, &a->x);
            fe_dbl(&num, &t);
            fe_add(&num, &num, &t);
        }
        fe_mul(&dinv, &inv, &s->prefix[j]);
        fe_mul(&inv, &inv, &s->den[j]);
        fe_mul(&lam, &num, &dinv);
        fe_sqr(&t, &lam);
        fe_sub(&t, &t, &a->x);
        fe_sub(&t, &t, &e->p->x); /* x3 = λ² − x_B − x_P (x_P = x_B when doubling) */
        if (flip)
            fe_sub(&num, &t, &a->x);
        else
            fe_sub(&num, &a->x, &t);
        fe_mul(&num, &lam, &num);
        fe_sub(&a->y, &num, &a->y); /* y3 = λ(x_B − x3) − y_B */
        a->x = t;
    }
    s->nbatch = 0;
    s->cur++;
}

static void acc_flush(acc_state *s)
{
    acc_run_batch(s);
    /* the waiting points get one more chance, in the new batch */
    entry *r = s->pend;
    size_t nr = s->npend;
    s->pend = s->retry;
    s->retry = r;
    s->npend = 0;
    for (size_t i = 0; i < nr; i++)
        acc_push(s, &r[i], 1);
}

static void acc_push(acc_state *s, const entry *e, int retried)
{
    if (!s->affine) {
        xyzz_madd(&s->ovf[e->b], e->p, (int)e->neg);
        return;
    }
    uint32_t b = e->b;
    if (!s->filled[b] && s->stamp[b] != s->cur) {
        s->filled[b] = 1;
#if MSM_LANES
        if (s->ln) {
            g16__p1_lanes_fill(s->ln, b, e->q, (int)e->neg);
            return;
        }
#endif
        s->bk[b].x = e->p->x;
        if (e->neg)
            fe_neg(&s->bk[b].y, &e->p->y);
        else
            s->bk[b].y = e->p->y;
        return;
    }
    if (s->stamp[b] == s->cur) {
        if (!retried && s->npend < s->pcap)
            s->pend[s->npend++] = *e;
        else
            acc_overflow(s, e);
        return;
    }
    s->stamp[b] = s->cur;
    s->batch[s->nbatch++] = *e;
    if (s->nbatch == s->cap)
        acc_flush(s);
}

/* acc_push of a new entry (never retried), inlined into the loops that make entries: the common
 * case (a filled slot not yet in this batch) appends to the batch here, field by field. */
static inline void acc_push_fields(acc_state *s, uint32_t b, uint32_t neg, const AFF *p, const lane_pt *q)
{
    if (s->affine && s->filled[b] && s->stamp[b] != s->cur) {
        entry *e = &s->batch[s->nbatch++];
        s->stamp[b] = s->cur;
        e->b = b;
        e->neg = neg;
        e->p = p;
#if MSM_LANES
        e->q = q;
#else
        (void)q;
#endif
        if (s->nbatch == s->cap)
            acc_flush(s);
        return;
    }
#if MSM_LANES
    entry e = {b, neg, p, q};
#else
    (void)q;
    entry e = {b, neg, p};
#endif
    acc_push(s, &e, 0);
}

static void acc_finish(acc_state *s)
{
    if (!s->affine)
        return;
    while (s->nbatch || s->npend)
        acc_flush(s);
}

#if MSM_LANES
/* Lane path: the XYZZ overflow buckets (points that met their slot in two batches running: ~1% of
 * the additions, but in ~27% of the slots at 2^16, c = 11) added into their affine slots by one
 * more round of batches, so that the reduction (acc_reduce_lanes) sees affine slots only. Each
 * overflow point is made affine (one shared inversion) and pushed once: the slots are distinct,
 * so no point waits or overflows again. Leaves s->ovf in place when out of memory (the scalar
 * reduction then reads it). */
static void acc_fold_overflow(acc_state *s)
{
    size_t k = 0, n = 0;
    if (!s->ovf)
        return;
    for (size_t i = 0; i < s->nb; i++)
        k += !xyzz_is_inf(&s->ovf[i]);
    AFF *a = malloc((k ? k : 1) * sizeof *a);
    FE *pre = malloc((k ? k : 1) * sizeof *pre);
    uint32_t *slot = malloc((k ? k : 1) * sizeof *slot);
    lane_pt *q = aligned_alloc(64, (k ? k : 1) * sizeof *q);
    if (!a || !pre || !slot || !q)
        goto cleanup;
    FE acc = *FE_ONE, inv, d;
    for (size_t i = 0; i < s->nb; i++) {
        if (xyzz_is_inf(&s->ovf[i]))
            continue;
        slot[n] = (uint32_t)i;
        pre[n++] = acc;
        fe_mul(&d, &s->ovf[i].zz, &s->ovf[i].zzz);
        fe_mul(&acc, &acc, &d);
    }
    fe_inv_var(&inv, &acc); /* 1/Π(ZZ·ZZZ) */
    for (size_t j = n; j-- > 0;) {
        const xyzz *o = &s->ovf[slot[j]];
        FE di, t;
        fe_mul(&di, &inv, &pre[j]); /* 1/(ZZ·ZZZ) */
        fe_mul(&d, &o->zz, &o->zzz);
        fe_mul(&inv, &inv, &d);
        fe_mul(&t, &di, &o->zzz); /* 1/ZZ */
        fe_mul(&a[j].x, &o->x, &t);
        fe_mul(&t, &di, &o->zz); /* 1/ZZZ */
        fe_mul(&a[j].y, &o->y, &t);
        g16__p1_aff52_from(&q[j], &a[j]);
    }
    g16__free_large(s->ovf, s->nb * sizeof *s->ovf);
    s->ovf = NULL;
    for (size_t j = 0; j < n; j++) {
        entry e = {slot[j], 0, &a[j], &q[j]};
        acc_push(s, &e, 1);
    }
    acc_finish(s); /* runs the batches while a and q are alive */
cleanup:
    free(a);
    free(pre);
    free(slot);
    free(q);
}
#endif

/* Affine bucket slot i (converted into *t on the lane path). */
static const AFF *acc_bucket_affine(AFF *t, const acc_state *s, size_t i)
{
#if MSM_LANES
    if (s->ln) {
        g16__p1_lanes_bucket(t, s->ln, i);
        return t;
    }
#endif
    (void)t;
    return &s->bk[i];
}

/* Content of logical bucket b of window w (its lanes, affine part plus overflow) into sum. */
static void acc_bucket_into(xyzz *sum, const acc_state *s, size_t w, size_t b)
{
    const acc_win *aw = &s->win[w];
    size_t lo = aw->slot0 + b * aw->lanes;
    for (size_t i = lo; i < lo + aw->lanes; i++) {
        if (s->affine && s->filled[i]) {
            AFF t;
            xyzz_madd(sum, acc_bucket_affine(&t, s, i), 0);
        }
        if (s->ovf)
            xyzz_add(sum, &s->ovf[i]);
    }
}

/* out = Σ_b (b + 1)·bucket_b of window w, by running sums from the top bucket down. */
static void acc_reduce_weighted(xyzz *out, const acc_state *s, size_t w)
{
    xyzz sum, tot;
    xyzz_set_inf(&sum);
    xyzz_set_inf(&tot);
    for (size_t b = s->win[w].nlogical; b-- > 0;) {
        acc_bucket_into(&sum, s, w, b);
        xyzz_add(&tot, &sum);
    }
    *out = tot;
}

#if MSM_LANES
/* r = k·a for a small k (double and add). */
static void xyzz_mul_small(xyzz *r, const xyzz *a, size_t k)
{
    xyzz acc;
    xyzz_set_inf(&acc);
    for (int i = 63; i >= 0; i--) {
        xyzz_dbl(&acc, &acc);
        if ((k >> i) & 1)
            xyzz_add(&acc, a);
    }
    *r = acc;
}

_Static_assert(sizeof(xyzz) == sizeof(g16__p1_xyzz), "msm_g1_fp8.h's XYZZ is msm_tmpl.h's");

/* The runs of one lane pass (k of them) into their windows: out[w] += tot + lo·sum, the weights
 * of a run that starts lo buckets up. */
static void lanes_pass(const acc_state *s, g16__p1_lane_seg *seg, const size_t *segw, const size_t *seglo, int k,
                       xyzz *out, size_t stride)
{
    g16__p1_xyzz sum[8], tot[8];
    for (int i = k; i < 8; i++)
        seg[i].n = 0;
    g16__p1_lanes_reduce(s->ln, seg, s->filled, sum, tot);
    for (int i = 0; i < k; i++) {
        xyzz r, m;
        memcpy(&r, &tot[i], sizeof r);
        if (seglo[i]) {
            memcpy(&m, &sum[i], sizeof m);
            xyzz_mul_small(&m, &m, seglo[i]);
            xyzz_add(&r, &m);
        }
        xyzz_add(&out[segw[i] * stride], &r);
    }
}

/* acc_reduce_weighted of every window of s in Fp8 lanes: the windows are cut into runs of equal
 * length so that the passes fill all eight lanes (a task holds two windows at 2^16, c = 11). */
static void acc_reduce_lanes(const acc_state *s, xyzz *out, size_t stride)
{
    size_t total = 0, nel = 0, segw[8], seglo[8];
    g16__p1_lane_seg seg[8];
    int k = 0;
    for (size_t w = 0; w < s->nwin; w++) {
        if (s->win[w].lanes <= LANES_REDUCE_MAX_SLOTS) {
            total += s->win[w].nlogical;
            nel++;
            xyzz_set_inf(&out[w * stride]);
        } else {
            acc_reduce_weighted(&out[w * stride], s, w);
        }
    }
    for (size_t w = 0; w < s->nwin; w++)
        if (s->win[w].lanes > 1 && s->win[w].lanes <= LANES_REDUCE_MAX_SLOTS)
            g16__p1_lanes_fold(s->ln, s->win[w].slot0, s->win[w].nlogical, s->win[w].lanes, s->filled);
    size_t passes = (nel + 7) / 8, len = passes ? (total + 8 * passes - 1) / (8 * passes) : 0;
    for (size_t w = 0; w < s->nwin && len; w++) {
        const acc_win *aw = &s->win[w];
        for (size_t lo = 0; aw->lanes <= LANES_REDUCE_MAX_SLOTS && lo < aw->nlogical; lo += len) {
            seg[k].slot0 = aw->slot0 + lo * aw->lanes;
            seg[k].n = aw->nlogical - lo < len ? aw->nlogical - lo : len;
            seg[k].per = aw->lanes;
            segw[k] = w;
            seglo[k] = lo;
            if (++k == 8) {
                lanes_pass(s, seg, segw, seglo, k, out, stride);
                k = 0;
            }
        }
    }
    if (k)
        lanes_pass(s, seg, segw, seglo, k, out, stride);
}
#endif

/* Every window w of s into out[w·stride] (acc_reduce_weighted), in lanes when `lanes` and s keeps
 * its buckets there (the overflow folded in first). */
static void acc_reduce_all(acc_state *s, xyzz *out, size_t stride, int lanes)
{
#if MSM_LANES
    if (lanes && s->ln && s->affine) {
        acc_fold_overflow(s);
        if (!s->ovf && !s->nomem) {
            acc_reduce_lanes(s, out, stride);
            return;
        }
    }
#else
    (void)lanes;
#endif
    for (size_t w = 0; w < s->nwin; w++)
        acc_reduce_weighted(&out[w * stride], s, w);
}

/* ---------------- tasks ---------------- */

typedef struct {
    const AFF *bases;
    const g16__msm_prep *p;
    const g16__msm_plan *pl;
    xyzz *res;         /* window w, range j at w·nchunks + j; then one per range of the ones */
    int *nomem;        /* one per task: its allocations failed */
    lane_pt *lp;       /* lane path: the others' bases in prep order; else NULL */
    int lp_owned;      /* lp was allocated here (else it is the caller's scratch) */
    uint8_t *lp_inf;   /* lane path: per conversion part, whether it met a base at infinity */
    int any_inf;       /* lane path: some base is infinity (else the tasks skip the test) */
    int lanes;         /* lane path: the ones convert their bases block by block (ones_task) */
} msm_ctx;

/* Whether base i (prep order) is infinity. On the lane path the scalar base is not read: the
 * test was ~12% of window_task's samples (a second stream of 96-byte reads, G1 2^16), and the
 * conversion already knows when no base is infinite. */
static inline int base_is_inf(const msm_ctx *x, const AFF *pt, size_t i)
{
#if MSM_LANES
    if (x->lp) {
        if (!x->any_inf)
            return 0;
        const uint64_t *l = x->lp[i].x.l, *m = x->lp[i].y.l;
        uint64_t any = 0;
        for (int k = 0; k < 8; k++)
            any |= l[k] | m[k];
        return any == 0;
    }
#else
    (void)x;
    (void)i;
#endif
    return aff_is_inf(pt);
}

static void range_of(size_t n, size_t parts, size_t j, size_t *lo, size_t *hi)
{
    *lo = n / parts * j + (j < n % parts ? j : n % parts);
    *hi = *lo + n / parts + (j < n % parts);
}

/* Windows of group g over the j-th range of the non-trivial scalars; writes res[w·nchunks + j]. */
static int window_task(msm_ctx *x, size_t g, size_t j)
{
    const g16__msm_plan *pl = x->pl;
    const g16__msm_prep *p = x->p;
    acc_state s;
    size_t lo, hi, w0, w1, nlog[256];
    int ok = 0;
    range_of(p->nothers, pl->nchunks, j, &lo, &hi);
    range_of(pl->nwin, pl->ngroups, g, &w0, &w1);
    for (size_t w = w0; w < w1; w++)
        nlog[w - w0] = g16__msm_window_buckets(pl, (unsigned)w);
    if (!acc_init(&s, nlog, w1 - w0, pl->accum == G16__MSM_ACCUM_AFFINE, pl->batch, x->lp != NULL))
        goto cleanup;
    for (size_t i = lo; i < hi; i++) {
        const AFF *pt = &x->bases[p->oidx[i]];
        const lane_pt *q = x->lp ? &x->lp[i] : NULL;
        if (base_is_inf(x, pt, i))
            continue;
        const uint64_t *k = g16__msm_prep_scalar(p, i);
        for (size_t w = w0; w < w1; w++) {
            int64_t d = g16__msm_booth_digit(k, (unsigned)w, pl->c);
            if (d != 0)
                acc_add(&s, w - w0, (size_t)((d < 0 ? -d : d) - 1), pt, q, d < 0);
        }
    }
    acc_finish(&s);
    if (s.nomem)
        goto cleanup;
    acc_reduce_all(&s, &x->res[w0 * pl->nchunks + j], pl->nchunks, pl->lane_reduce);
    ok = !s.nomem; /* the overflow's fold runs batches too */
cleanup:
    acc_free(&s);
    return ok;
}

#if MSM_LANES
/* Ones per block of ones_task's lane conversion: each base is read once, so converting it into a
 * block that the task drains (acc_finish) before the next costs the same products as the shared
 * copy without its 128 bytes per base; 4096 (512 KiB) keeps the block in L2, and the drain's
 * partial batch is one in four. */
#define ONES_LANE_BLOCK ((size_t)4096)

/* Ones [lo, hi) through the lane accumulator s, their bases converted block by block into blk. */
static void ones_lanes(msm_ctx *x, acc_state *s, size_t lo, size_t hi, lane_pt *blk)
{
    const uint32_t *idx = x->p->ones;
    int eight = g16__fp8_have_ifma();
    for (size_t b0 = lo; b0 < hi; b0 += ONES_LANE_BLOCK) {
        size_t b1 = hi - b0 < ONES_LANE_BLOCK ? hi : b0 + ONES_LANE_BLOCK, m = 0;
        for (size_t i = b0; i < b1;) {
            const AFF *a[8];
            lane_pt *r[8];
            size_t k = 0;
            /* up to eight finite bases (infinity adds nothing) */
            for (; i < b1 && k < 8; i++)
                if (!aff_is_inf(&x->bases[idx[i]])) {
                    a[k] = &x->bases[idx[i]];
                    r[k] = &blk[m + k];
                    k++;
                }
            if (k == 8 && eight)
                g16__p1_aff52_from8(r, a);
            else
                for (size_t l = 0; l < k; l++)
                    g16__p1_aff52_from(r[l], a[l]);
            for (size_t l = 0; l < k; l++)
                acc_add(s, 0, 0, a[l], r[l], 0);
            m += k;
        }
        acc_finish(s); /* no batch or pending entry points into blk any more */
    }
}
#endif

/* The j-th range of the scalars equal to one: one logical bucket (its lanes make the batches). */
static int ones_task(msm_ctx *x, size_t j, xyzz *out)
{
    const g16__msm_plan *pl = x->pl;
    const g16__msm_prep *p = x->p;
    acc_state s;
    size_t lo, hi, one = 1;
    int ok = 0;
#if MSM_LANES
    lane_pt *blk = NULL; /* the conversion block (ones_lanes) */
#endif
    range_of(p->nones, pl->nones_chunks, j, &lo, &hi);
    int affine = pl->accum == G16__MSM_ACCUM_AFFINE && hi - lo >= G16__MSM_AFFINE_MIN;
    int lanes = affine && x->lanes;
    if (!acc_init(&s, &one, 1, affine, pl->ones_batch, lanes))
        goto cleanup;
#if MSM_LANES
    if (lanes) {
        if (!(blk = g16__alloc_large(ONES_LANE_BLOCK * sizeof *blk)))
            goto cleanup;
        ones_lanes(x, &s, lo, hi, blk);
    }
#endif
    if (!lanes) {
        for (size_t i = lo; i < hi; i++) {
            const AFF *pt = &x->bases[p->ones[i]];
            if (!aff_is_inf(pt))
                acc_add(&s, 0, 0, pt, NULL, 0);
        }
    }
    acc_finish(&s);
    if (s.nomem)
        goto cleanup;
    xyzz_set_inf(out);
    acc_bucket_into(out, &s, 0, 0);
    ok = 1;
cleanup:
#if MSM_LANES
    g16__free_large(blk, ONES_LANE_BLOCK * sizeof *blk);
#endif
    acc_free(&s);
    return ok;
}

static void msm_task(void *vctx, size_t begin, size_t end)
{
    msm_ctx *x = vctx;
    const g16__msm_plan *pl = x->pl;
    size_t nwt = pl->ngroups * pl->nchunks;
    for (size_t t = begin; t < end; t++) {
        int ok;
        g16__span sp = g16__span_begin_n(t < nwt ? MSM_SPAN ".windows" : MSM_SPAN ".ones", t);
        if (t < nwt)
            ok = window_task(x, t / pl->nchunks, t % pl->nchunks);
        else
            ok = ones_task(x, t - nwt, &x->res[(size_t)pl->nwin * pl->nchunks + (t - nwt)]);
        g16__span_end(sp);
        x->nomem[t] = !ok;
    }
}

#if MSM_LANES
/* Bases per part of the conversion to the lane format (parts run in parallel). */
#define LANE_CONVERT_PART ((size_t)1 << 14)

static void lanes_convert_task(void *vctx, size_t begin, size_t end)
{
    msm_ctx *x = vctx;
    const g16__msm_prep *p = x->p;
    size_t n = p->nothers;
    size_t hi = end * LANE_CONVERT_PART < n ? end * LANE_CONVERT_PART : n;
    int eight = g16__fp8_have_ifma(); /* eight at a time: two Fp8 products instead of 16 scalar ones */
    for (size_t i = begin * LANE_CONVERT_PART; i < hi;) {
        const AFF *a[8];
        lane_pt *r[8];
        size_t k = eight && hi - i >= 8 ? 8 : 1;
        for (size_t l = 0; l < k; l++, i++) {
            a[l] = &x->bases[p->oidx[i]];
            r[l] = &x->lp[i];
            if (aff_is_inf(a[l]))
                x->lp_inf[i / LANE_CONVERT_PART] = 1;
        }
        if (k == 8)
            g16__p1_aff52_from8(r, a);
        else
            g16__p1_aff52_from(r[0], a[0]);
    }
}

/* Whether this call takes the lane path (environment and CPU, read once per call). */
static int lanes_wanted(const g16__msm_opts *opts)
{
    return g16__p1_lanes_wanted() && !(opts && opts->accum == G16__MSM_ACCUM_XYZZ);
}

/* Lane points that fit in opts' scratch (64-byte aligned inside it), at *at; 0 without one. */
static size_t scratch_lane_pts(const g16__msm_opts *opts, lane_pt **at)
{
    if (!opts || !opts->scratch)
        return 0;
    uintptr_t a = (uintptr_t)opts->scratch, b = (a + 63) & ~(uintptr_t)63;
    if (b - a >= opts->scratch_bytes)
        return 0;
    *at = (lane_pt *)b;
    return (opts->scratch_bytes - (b - a)) / sizeof(lane_pt);
}

/* The lane path (when wanted, for affine accumulation): the bases of the non-trivial scalars,
 * converted once (two scalar products per base, against one batch addition per base and window),
 * into opts' scratch when it is large enough. Without the memory, the others take the scalar path
 * (with the lane path's plan: correct, a bit slower). */
static void lanes_prepare(msm_ctx *x, const g16__msm_opts *opts, int nthreads, int lanes)
{
    size_t n = x->p->nothers;
    x->lanes = lanes && x->pl->accum == G16__MSM_ACCUM_AFFINE;
    if (!x->lanes || n == 0)
        return;
    size_t nparts = (n + LANE_CONVERT_PART - 1) / LANE_CONVERT_PART;
    lane_pt *scratch = NULL;
    if (scratch_lane_pts(opts, &scratch) >= n) {
        x->lp = scratch;
    } else {
        x->lp = g16__alloc_large(n * sizeof *x->lp);
        x->lp_owned = 1;
    }
    x->lp_inf = calloc(nparts, 1);
    if (!x->lp || !x->lp_inf) {
        if (x->lp_owned)
            g16__free_large(x->lp, n * sizeof *x->lp);
        x->lp = NULL;
        return;
    }
    g16__span sp = g16__span_begin_n(MSM_SPAN ".lanes", n);
    g16__msm_run(nthreads, nparts, lanes_convert_task, x);
    for (size_t j = 0; j < nparts; j++)
        x->any_inf |= x->lp_inf[j];
    g16__span_end(sp);
}
#else
static int lanes_wanted(const g16__msm_opts *opts)
{
    (void)opts;
    return 0;
}

static void lanes_prepare(msm_ctx *x, const g16__msm_opts *opts, int nthreads, int lanes)
{
    (void)x;
    (void)opts;
    (void)nthreads;
    (void)lanes;
}
#endif

/* Σ_w 2^(wc)·(Σ_j res[w][j]) + Σ ones. */
static void combine(xyzz *out, const msm_ctx *x)
{
    const g16__msm_plan *pl = x->pl;
    xyzz acc;
    xyzz_set_inf(&acc);
    if (pl->nchunks) {
        for (unsigned w = pl->nwin; w-- > 0;) {
            for (unsigned k = 0; k < pl->c && !xyzz_is_inf(&acc); k++)
                xyzz_dbl(&acc, &acc);
            for (size_t j = 0; j < pl->nchunks; j++)
                xyzz_add(&acc, &x->res[(size_t)w * pl->nchunks + j]);
        }
    }
    size_t nwt = (size_t)pl->nwin * pl->nchunks;
    for (size_t t = 0; t < pl->nones_chunks; t++)
        xyzz_add(&acc, &x->res[nwt + t]);
    *out = acc;
}

/* The MSM of the prepared scalars p (all of them, or one part on the lane path) into *out. */
static g16_status msm_part(xyzz *out, const AFF *bases, const g16__msm_prep *p, const g16__msm_opts *opts,
                           int nthreads, int lanes, g16_error *err)
{
    g16_status st = G16_OK;
    g16__msm_plan pl;
    msm_ctx x = {bases, p, &pl, NULL, NULL, NULL, 0, NULL, 0, 0};
    g16__msm_make_plan(&pl, p, opts, nthreads, MSM_G2, lanes);
    x.res = malloc(((size_t)pl.nwin * pl.nchunks + pl.nones_chunks + 1) * sizeof *x.res);
    x.nomem = calloc(pl.ntasks ? pl.ntasks : 1, sizeof *x.nomem);
    if (!x.res || !x.nomem) {
        st = g16__error(err, G16_ERR_NOMEM, "msm: %zu task results", pl.ntasks);
        goto cleanup;
    }
    lanes_prepare(&x, opts, nthreads, lanes);
    g16__msm_run(nthreads, pl.ntasks, msm_task, &x);
    for (size_t t = 0; t < pl.ntasks; t++) {
        if (x.nomem[t]) {
            st = g16__error(err, G16_ERR_NOMEM, "msm: buckets of task %zu (window %u bits, %u windows)", t, pl.c,
                            pl.wgroup);
            goto cleanup;
        }
    }
    g16__span sp = g16__span_begin(MSM_SPAN ".combine");
    combine(out, &x);
    g16__span_end(sp);
cleanup:
    free(x.res);
    free(x.nomem);
    if (x.lp_owned)
        g16__free_large(x.lp, p->nothers * sizeof *x.lp);
    free(x.lp_inf);
    return st;
}

/* Parts of the MSM: one, or on the lane path enough that each converts at most opts->lane_slice
 * non-trivial scalars' bases at a time: by default G16__MSM_LANE_SLICE, or as many as opts'
 * scratch holds when that is at least G16__MSM_SCRATCH_MIN (the copy then costs no memory). */
static size_t msm_nparts(const g16__msm_prep *p, const g16__msm_opts *opts, int lanes)
{
    size_t slice = G16__MSM_LANE_SLICE;
#if MSM_LANES
    lane_pt *at;
    size_t room = scratch_lane_pts(opts, &at);
    if (room >= G16__MSM_SCRATCH_MIN)
        slice = room;
#endif
    if (opts && opts->lane_slice)
        slice = opts->lane_slice;
    return lanes && p->nothers > slice ? (p->nothers + slice - 1) / slice : 1;
}

/* Part j of nparts of p (equal ranges of the others and of the ones). */
static void prep_part(g16__msm_prep *v, const g16__msm_prep *p, size_t nparts, size_t j)
{
    size_t lo, hi, lo1, hi1;
    range_of(p->nothers, nparts, j, &lo, &hi);
    range_of(p->nones, nparts, j, &lo1, &hi1);
    v->nothers = hi - lo;
    v->scal = p->by_base ? p->scal : p->scal + lo;
    v->oidx = p->oidx + lo;
    v->nones = hi1 - lo1;
    v->ones = p->ones + lo1;
}

/* consume: scalars may be converted in place (no density bitmap then; msm_consume_var). */
static g16_status msm_run(JAC *r, const AFF *bases, size_t nbases, const g16_fr *scalars, size_t nscalars,
                          const uint64_t *density, int consume, const g16__msm_opts *opts, g16_error *err)
{
    g16_status st;
    int nthreads, prev_limit = -1;
    g16__span span = 0;
    g16__msm_prep p;
    memset(&p, 0, sizeof p);
    if ((st = g16__msm_check_opts(opts, &nthreads, err)) != G16_OK)
        return st;
    if ((nbases && !bases) || (nscalars && !scalars) || !r)
        return g16__error(err, G16_ERR_ARG, "msm: NULL argument");
    if (nscalars >= G16__MSM_MAX_POINTS || nbases >= G16__MSM_MAX_POINTS)
        return g16__error(err, G16_ERR_UNSUPPORTED, "msm: %zu points (at most 2^32 - 2)", nscalars);
    if (!density && nbases != nscalars)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "msm: %zu bases for %zu scalars", nbases, nscalars);
    prev_limit = g16__msm_limit_threads(opts);
    span = g16__span_begin_n(MSM_SPAN, nscalars);
    g16__span sp = g16__span_begin(MSM_SPAN ".classify");
    if (consume)
        st = g16__msm_prepare_inplace(&p, (g16_fr *)scalars, nscalars, nthreads, err);
    else
        st = g16__msm_prepare(&p, scalars, nscalars, density, nbases, nthreads, err);
    g16__span_end(sp);
    if (st != G16_OK)
        goto cleanup;
    g16__span_metric("nontrivial", p.nothers);
    g16__span_metric("ones", p.nones);
    int lanes = lanes_wanted(opts);
    size_t nparts = msm_nparts(&p, opts, lanes);
    xyzz sum, part;
    xyzz_set_inf(&sum);
    for (size_t j = 0; j < nparts; j++) {
        g16__msm_prep v = p;
        if (nparts > 1)
            prep_part(&v, &p, nparts, j);
        if ((st = msm_part(&part, bases, &v, opts, nthreads, lanes, err)) != G16_OK)
            goto cleanup;
        xyzz_add(&sum, &part);
    }
    xyzz_to_jac_normalized(r, &sum);
cleanup:
    g16__span_end(span);
    g16__msm_restore_threads(prev_limit);
    g16__msm_prep_free(&p);
    return st;
}

g16_status MSM_NAME(msm_var)(JAC *r, const AFF *bases, const g16_fr *scalars, size_t n, const g16__msm_opts *opts,
                             g16_error *err)
{
    return msm_run(r, bases, n, scalars, n, NULL, 0, opts, err);
}

g16_status MSM_NAME(msm_consume_var)(JAC *r, const AFF *bases, g16_fr *scalars, size_t n, const g16__msm_opts *opts,
                                     g16_error *err)
{
    return msm_run(r, bases, n, scalars, n, NULL, 1, opts, err);
}

g16_status MSM_NAME(msm_density_var)(JAC *r, const AFF *bases, size_t nbases, const g16_fr *scalars,
                                     size_t nscalars, const uint64_t *density, const g16__msm_opts *opts,
                                     g16_error *err)
{
    return msm_run(r, bases, nbases, scalars, nscalars, density, 0, opts, err);
}
