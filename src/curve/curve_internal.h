/*
 * Generic short-Weierstrass (a = 0) point arithmetic in Jacobian coordinates, written once
 * and instantiated twice: g1.c over Fp and g2.c over Fp2. Not a normal header: each
 * including file defines, before the #include,
 *
 *   FE          the coordinate field type (g16_fp / g16_fp2)
 *   FE_(op)     pastes the field prefix: FE_(mul) -> g16__fp_mul / g16__fp2_mul
 *   PT, PTA     the Jacobian / affine point types (g16_p1 / g16_p1_affine)
 *   PT_(name)   pastes the point prefix: PT_(add) -> g16__p1_add
 *   static void curve_mul_by_b(FE *r, const FE *a);   r = b·a for the curve constant b
 *
 * and gets the definitions of every function common to g1.h and g2.h (everything but the
 * subgroup checks and the endomorphisms), plus static helpers for the including file:
 * pt_mul_public_ct (constant-time in the point, the scalar public) and ct_lookup.
 *
 * Representation (see g1.h): Jacobian (X, Y, Z) means (X/Z², Y/Z³); Z = 0 is infinity,
 * whatever X and Y hold. Affine infinity is (0, 0). Every function writes its output
 * only after reading all of its inputs, so outputs may alias inputs.
 *
 * Formulas: Bernstein–Lange Explicit-Formulas Database, a = 0 Jacobian: dbl-2009-l
 * (3M + 4S variant), add-1998-cmo-2 (12M + 4S), madd-2004-hmv (8M + 3S). Squaring costs as
 * much as multiplying in the field code, so these forms cost the same multiplications as the
 * better-known dbl-2009-l / add-2007-bl / madd-2007-bl and about half their additions
 * (fp_add 7 ns, fp_mul 59 ns with MULX on the dev machine: ~50 ns of a 0.7 µs mixed
 * addition). The complete (constant-time) additions evaluate the generic formula and the
 * doubling and pick the right result with conditional moves, so no input (P = Q, P = −Q,
 * infinity) takes a different path. The curves have no points of order 2 (odd cofactors),
 * so doubling a finite point never yields Y = 0 and the formulas never divide by zero in
 * disguise.
 */
#ifndef G16_CURVE_INTERNAL_H
#define G16_CURVE_INTERNAL_H
#else
#error "curve_internal.h is a template: include it once per translation unit"
#endif

#include <string.h>

/* ---- basic predicates and conversions ---- */

void PT_(set_infinity)(PT *r)
{
    FE_(set_one)(&r->x);
    FE_(set_one)(&r->y);
    FE_(set_zero)(&r->z);
}

int PT_(is_infinity)(const PT *a) { return FE_(is_zero)(&a->z); }

int PT_(affine_is_infinity)(const PTA *a) { return FE_(is_zero)(&a->x) & FE_(is_zero)(&a->y); }

void PT_(generator)(PT *r) { PT_(from_affine)(r, &PT_(generator_affine)); }

void PT_(from_affine)(PT *r, const PTA *a)
{
    FE zero;
    int inf = PT_(affine_is_infinity)(a);
    FE_(set_zero)(&zero);
    r->x = a->x;
    r->y = a->y;
    FE_(set_one)(&r->z);
    FE_(cmov)(&r->z, &zero, inf);
}

/* The inverse of Z = 0 is 0, so infinity lands on (0, 0) with no special case. */
void PT_(to_affine)(PTA *r, const PT *a)
{
    FE zi, zi2, zi3;
    FE_(inv)(&zi, &a->z);
    FE_(sqr)(&zi2, &zi);
    FE_(mul)(&zi3, &zi2, &zi);
    FE_(mul)(&r->x, &a->x, &zi2);
    FE_(mul)(&r->y, &a->y, &zi3);
}

/* Montgomery's trick. Pass 1 stores the running product of the Z's (Z = 0 replaced by 1)
 * in r[i].x, which pass 2 reads (r[i-1].x) before it overwrites r[i]. Hence r and a must
 * not overlap. Infinity entries are masked with conditional moves, not branches. */
void PT_(batch_to_affine)(PTA *r, const PT *a, size_t n)
{
    if (n == 0)
        return;
    FE acc, inv, zi, zi2, zi3, z;
    FE_(set_one)(&acc);
    for (size_t i = 0; i < n; i++) {
        z = a[i].z;
        FE_(cmov)(&z, &FE_(one), FE_(is_zero)(&z));
        FE_(mul)(&acc, &acc, &z);
        r[i].x = acc;
    }
    FE_(inv)(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        int inf = FE_(is_zero)(&a[i].z);
        z = a[i].z;
        FE_(cmov)(&z, &FE_(one), inf);
        if (i > 0)
            FE_(mul)(&zi, &inv, &r[i - 1].x); /* 1/Z_i */
        else
            zi = inv;
        FE_(mul)(&inv, &inv, &z); /* now 1/(Z_0 ... Z_{i-1}) */
        FE_(sqr)(&zi2, &zi);
        FE_(mul)(&zi3, &zi2, &zi);
        FE_(mul)(&r[i].x, &a[i].x, &zi2);
        FE_(mul)(&r[i].y, &a[i].y, &zi3);
        FE_(set_zero)(&z);
        FE_(cmov)(&r[i].x, &z, inf);
        FE_(cmov)(&r[i].y, &z, inf);
    }
}

void PT_(neg)(PT *r, const PT *a)
{
    r->x = a->x;
    FE_(neg)(&r->y, &a->y);
    r->z = a->z;
}

void PT_(affine_neg)(PTA *r, const PTA *a)
{
    r->x = a->x;
    FE_(neg)(&r->y, &a->y); /* −0 = 0: infinity stays (0, 0) */
}

/* X1·Z2² = X2·Z1² and Y1·Z2³ = Y2·Z1³, or both at infinity. */
int PT_(eq)(const PT *a, const PT *b)
{
    FE z1z1, z2z2, u1, u2, s1, s2;
    int ia = PT_(is_infinity)(a), ib = PT_(is_infinity)(b);
    FE_(sqr)(&z1z1, &a->z);
    FE_(sqr)(&z2z2, &b->z);
    FE_(mul)(&u1, &a->x, &z2z2);
    FE_(mul)(&u2, &b->x, &z1z1);
    FE_(mul)(&s1, &a->y, &b->z);
    FE_(mul)(&s1, &s1, &z2z2);
    FE_(mul)(&s2, &b->y, &a->z);
    FE_(mul)(&s2, &s2, &z1z1);
    int same = FE_(eq)(&u1, &u2) & FE_(eq)(&s1, &s2);
    return (ia & ib) | (((ia | ib) ^ 1) & same);
}

int PT_(affine_eq)(const PTA *a, const PTA *b) { return FE_(eq)(&a->x, &b->x) & FE_(eq)(&a->y, &b->y); }

static void pt_cmov(PT *r, const PT *a, int flag)
{
    FE_(cmov)(&r->x, &a->x, flag);
    FE_(cmov)(&r->y, &a->y, flag);
    FE_(cmov)(&r->z, &a->z, flag);
}

/* ---- doubling and addition ---- */

/* dbl-2009-l with D = 4·X·B computed directly (3M + 4S). Z = 0 gives Z3 = 2·Y·Z = 0:
 * infinity doubles to infinity. */
void PT_(dbl)(PT *r, const PT *a)
{
    FE A, B, C, D, E, F, t;
    FE_(sqr)(&A, &a->x);
    FE_(sqr)(&B, &a->y);
    FE_(sqr)(&C, &B);
    FE_(mul)(&D, &a->x, &B); /* one M instead of (X+B)² − A − C: fewer additions */
    FE_(dbl)(&D, &D);
    FE_(dbl)(&D, &D); /* D = 4·X·Y² */
    FE_(dbl)(&E, &A);
    FE_(add)(&E, &E, &A); /* E = 3·X² */
    FE_(sqr)(&F, &E);
    FE_(mul)(&r->z, &a->y, &a->z); /* last read of a->z; a->x, a->y are not needed below */
    FE_(dbl)(&r->z, &r->z);
    FE_(dbl)(&t, &D);
    FE_(sub)(&r->x, &F, &t);
    FE_(sub)(&t, &D, &r->x);
    FE_(mul)(&t, &t, &E);
    FE_(dbl)(&C, &C);
    FE_(dbl)(&C, &C);
    FE_(dbl)(&C, &C); /* 8·Y⁴ */
    FE_(sub)(&r->y, &t, &C);
}

/* Intermediate values of the addition shared by the complete and the branching versions. */
typedef struct {
    FE u1, s1, h, rr; /* h = U2 − U1, rr = S2 − S1 */
} add_pre;

static void add_prepare(add_pre *p, const PT *a, const PT *b)
{
    FE z1z1, z2z2, u2, s2;
    FE_(sqr)(&z1z1, &a->z);
    FE_(sqr)(&z2z2, &b->z);
    FE_(mul)(&p->u1, &a->x, &z2z2);
    FE_(mul)(&u2, &b->x, &z1z1);
    FE_(mul)(&p->s1, &a->y, &b->z);
    FE_(mul)(&p->s1, &p->s1, &z2z2);
    FE_(mul)(&s2, &b->y, &a->z);
    FE_(mul)(&s2, &s2, &z1z1);
    FE_(sub)(&p->h, &u2, &p->u1);
    FE_(sub)(&p->rr, &s2, &p->s1);
}

/* With Z3 = Z1·Z2·H: X3 = R² − H³ − 2·U1·H², Y3 = R·(U1·H² − X3) − S1·H³. Correct when
 * a ≠ ±b and neither is infinity; a = −b gives H = 0, hence Z3 = 0 (infinity), also correct.
 * The multiplications-only form of Z3 saves the additions of add-2007-bl, which cost
 * about a third of a multiplication each in this field code. */
static void add_finish(PT *r, const add_pre *p, const FE *z1, const FE *z2)
{
    FE hh, hhh, v, t, x3, y3;
    FE_(sqr)(&hh, &p->h);
    FE_(mul)(&hhh, &hh, &p->h);
    FE_(mul)(&v, &p->u1, &hh);
    FE_(sqr)(&x3, &p->rr);
    FE_(sub)(&x3, &x3, &hhh);
    FE_(dbl)(&t, &v);
    FE_(sub)(&x3, &x3, &t);
    FE_(sub)(&t, &v, &x3);
    FE_(mul)(&t, &t, &p->rr);
    FE_(mul)(&y3, &p->s1, &hhh);
    FE_(sub)(&y3, &t, &y3);
    FE_(mul)(&t, z1, z2);
    FE_(mul)(&r->z, &t, &p->h);
    r->x = x3;
    r->y = y3;
}

void PT_(add)(PT *r, const PT *a, const PT *b)
{
    add_pre p;
    PT sum, twice;
    int ia = PT_(is_infinity)(a), ib = PT_(is_infinity)(b);
    add_prepare(&p, a, b);
    int same = FE_(is_zero)(&p.h) & FE_(is_zero)(&p.rr) & ((ia | ib) ^ 1);
    add_finish(&sum, &p, &a->z, &b->z);
    PT_(dbl)(&twice, a);
    pt_cmov(&sum, &twice, same);
    pt_cmov(&sum, b, ia);
    pt_cmov(&sum, a, ib);
    *r = sum;
}

void PT_(add_var)(PT *r, const PT *a, const PT *b)
{
    if (PT_(is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (PT_(is_infinity)(b)) {
        *r = *a;
        return;
    }
    add_pre p;
    add_prepare(&p, a, b);
    if (FE_(is_zero)(&p.h)) {
        if (FE_(is_zero)(&p.rr))
            PT_(dbl)(r, a);
        else
            PT_(set_infinity)(r);
        return;
    }
    FE z1 = a->z, z2 = b->z;
    add_finish(r, &p, &z1, &z2);
}

/* The same with Z2 = 1 (madd-2004-hmv: 8M + 3S, Z3 = Z1·H): returns H = U2 − X1 and
 * rr = S2 − Y1 for the caller's case analysis. */
static void madd_prepare(FE *h, FE *rr, const PT *a, const PTA *b)
{
    FE z1z1, u2, s2;
    FE_(sqr)(&z1z1, &a->z);
    FE_(mul)(&u2, &b->x, &z1z1);
    FE_(mul)(&s2, &b->y, &a->z);
    FE_(mul)(&s2, &s2, &z1z1);
    FE_(sub)(h, &u2, &a->x);
    FE_(sub)(rr, &s2, &a->y);
}

static void madd_finish(PT *r, const PT *a, const FE *h, const FE *rr)
{
    FE hh, hhh, v, t, x3, y3;
    FE_(sqr)(&hh, h);
    FE_(mul)(&hhh, &hh, h);
    FE_(mul)(&v, &a->x, &hh);
    FE_(sqr)(&x3, rr);
    FE_(sub)(&x3, &x3, &hhh);
    FE_(dbl)(&t, &v);
    FE_(sub)(&x3, &x3, &t);
    FE_(sub)(&t, &v, &x3);
    FE_(mul)(&t, &t, rr);
    FE_(mul)(&y3, &a->y, &hhh);
    FE_(sub)(&y3, &t, &y3);
    FE_(mul)(&r->z, &a->z, h); /* last read of a */
    r->x = x3;
    r->y = y3;
}

void PT_(add_affine)(PT *r, const PT *a, const PTA *b)
{
    FE h, rr;
    PT sum, twice, bj;
    int ia = PT_(is_infinity)(a), ib = PT_(affine_is_infinity)(b);
    madd_prepare(&h, &rr, a, b);
    int same = FE_(is_zero)(&h) & FE_(is_zero)(&rr) & ((ia | ib) ^ 1);
    madd_finish(&sum, a, &h, &rr);
    PT_(dbl)(&twice, a);
    PT_(from_affine)(&bj, b);
    pt_cmov(&sum, &twice, same);
    pt_cmov(&sum, &bj, ia);
    pt_cmov(&sum, a, ib);
    *r = sum;
}

void PT_(add_affine_var)(PT *r, const PT *a, const PTA *b)
{
    if (PT_(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (PT_(is_infinity)(a)) {
        PT_(from_affine)(r, b);
        return;
    }
    FE h, rr;
    madd_prepare(&h, &rr, a, b);
    if (FE_(is_zero)(&h)) {
        if (FE_(is_zero)(&rr))
            PT_(dbl)(r, a);
        else
            PT_(set_infinity)(r);
        return;
    }
    madd_finish(r, a, &h, &rr);
}

/* ---- curve equation ---- */

/* Y² = X³ + b·Z⁶ (the Jacobian form of y² = x³ + b); Z = 0 counts as on the curve. */
int PT_(on_curve)(const PT *a)
{
    FE lhs, rhs, z6;
    FE_(sqr)(&z6, &a->z);
    FE_(mul)(&z6, &z6, &a->z);
    FE_(sqr)(&z6, &z6);
    curve_mul_by_b(&z6, &z6);
    FE_(sqr)(&rhs, &a->x);
    FE_(mul)(&rhs, &rhs, &a->x);
    FE_(add)(&rhs, &rhs, &z6);
    FE_(sqr)(&lhs, &a->y);
    return FE_(eq)(&lhs, &rhs) | PT_(is_infinity)(a);
}

int PT_(affine_on_curve)(const PTA *a)
{
    FE lhs, rhs;
    FE_(sqr)(&rhs, &a->x);
    FE_(mul)(&rhs, &rhs, &a->x);
    curve_mul_by_b(&lhs, &FE_(one));
    FE_(add)(&rhs, &rhs, &lhs);
    FE_(sqr)(&lhs, &a->y);
    return FE_(eq)(&lhs, &rhs) | PT_(affine_is_infinity)(a);
}

/* ---- scalar multiplication ---- */

#define CT_WINDOW 4 /* 16-entry table: 64 windows for a 256-bit scalar */

/* r = table[idx] reading every entry, so the memory trace does not depend on idx. */
static void ct_lookup(PT *r, const PT *table, size_t n, uint64_t idx)
{
    *r = table[0];
    for (size_t j = 1; j < n; j++) {
        uint64_t d = idx ^ j;
        int hit = (int)(((d | (0 - d)) >> 63) ^ 1);
        pt_cmov(r, &table[j], hit);
    }
}

/* Fixed 4-bit windows from the top, complete additions, constant-time table reads:
 * the sequence of operations is the same for every scalar and point. */
void PT_(mul)(PT *r, const PT *a, const g16_fr *k)
{
    uint64_t l[4];
    PT table[1 << CT_WINDOW], acc, t;
    g16__fr_to_limbs(l, k);
    PT_(set_infinity)(&table[0]);
    table[1] = *a;
    for (size_t i = 2; i < (1u << CT_WINDOW); i++) {
        if (i % 2 == 0)
            PT_(dbl)(&table[i], &table[i / 2]);
        else
            PT_(add)(&table[i], &table[i - 1], a);
    }
    ct_lookup(&acc, table, 1u << CT_WINDOW, l[3] >> 60);
    for (int w = 256 / CT_WINDOW - 2; w >= 0; w--) {
        for (int j = 0; j < CT_WINDOW; j++)
            PT_(dbl)(&acc, &acc);
        unsigned bit = (unsigned)w * CT_WINDOW;
        uint64_t digit = (l[bit / 64] >> (bit % 64)) & ((1u << CT_WINDOW) - 1);
        ct_lookup(&t, table, 1u << CT_WINDOW, digit);
        PT_(add)(&acc, &acc, &t);
    }
    *r = acc;
    /* the scalar may be secret: wipe the copy through a volatile pointer the compiler keeps */
    volatile uint64_t *vl = l;
    for (size_t i = 0; i < 4; i++)
        vl[i] = 0;
}

static int limbs_bit(const uint64_t *k, size_t i) { return (int)((k[i / 64] >> (i % 64)) & 1); }

/* Left-to-right sliding window over odd multiples P, 3P, ..., (2^w − 1)P: about
 * nbits/(w + 1) additions and no recoding buffer, so any scalar length works. */
void PT_(mul_limbs_var)(PT *r, const PT *a, const uint64_t *k, size_t nbits)
{
    enum { WMAX = 5 };
    PT table[1 << (WMAX - 1)], twice, acc;
    unsigned w = nbits > 192 ? 5 : nbits > 48 ? 4 : 3;
    while (nbits > 0 && !limbs_bit(k, nbits - 1))
        nbits--;
    if (nbits == 0 || PT_(is_infinity)(a)) {
        PT_(set_infinity)(r);
        return;
    }
    table[0] = *a;
    PT_(dbl)(&twice, a);
    for (size_t j = 1; j < (1u << (w - 1)); j++)
        PT_(add_var)(&table[j], &table[j - 1], &twice);
    PT_(set_infinity)(&acc);
    int started = 0; /* skip the doublings of infinity before the first window */
    size_t i = nbits; /* bits i-1 .. 0 remain */
    while (i > 0) {
        if (!limbs_bit(k, i - 1)) {
            PT_(dbl)(&acc, &acc);
            i--;
            continue;
        }
        /* the window is bits i-1 .. lo, at most w wide, ending in a set bit */
        size_t lo = i >= w ? i - w : 0;
        while (!limbs_bit(k, lo))
            lo++;
        unsigned val = 0;
        for (size_t b = i; b-- > lo;) {
            val = (val << 1) | (unsigned)limbs_bit(k, b);
            if (started)
                PT_(dbl)(&acc, &acc);
        }
        if (started)
            PT_(add_var)(&acc, &acc, &table[val >> 1]);
        else
            acc = table[val >> 1];
        started = 1;
        i = lo;
    }
    *r = acc;
}

void PT_(mul_var)(PT *r, const PT *a, const g16_fr *k)
{
    uint64_t l[4];
    g16__fr_to_limbs(l, k);
    PT_(mul_limbs_var)(r, a, l, 256);
}

/* r = k·a for a public k, constant-time in the point: double-and-add along k's bits with
 * complete additions (used for the subgroup tests, whose points may be anything). */
static void pt_mul_public_ct(PT *r, const PT *a, const uint64_t *k, size_t nbits)
{
    PT acc;
    PT_(set_infinity)(&acc);
    for (size_t i = nbits; i-- > 0;) {
        PT_(dbl)(&acc, &acc);
        if (limbs_bit(k, i))
            PT_(add)(&acc, &acc, a);
    }
    *r = acc;
}
