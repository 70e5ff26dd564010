/*
 * Optimal ate pairing on BLS12-381: see pairing.h.
 *
 * Miller loop. G2 lives on the M-type twist E': y² = x³ + 4ξ, untwisted into E(Fp12) by
 * (x, y) ↦ (x·w⁻², y·w⁻³). The line through points of E' evaluated at P = (xP, yP) ∈ E(Fp),
 * multiplied by w³ and by an Fp2 factor (both vanish under the final exponentiation, since
 * w⁶ ∈ Fp2 and (p¹² − 1)/r is a multiple of p⁴ − 1), is
 *     ell0 + ell1·xP·v + ell2·yP·v·w,
 * i.e. it occupies the Fp2 slots 0, 1 and 4 of Fp12 (g16__fp12_mul_by_014). The running point
 * T is kept in homogeneous projective coordinates (x = X/Z, y = Y/Z), so no inversions.
 * The loop runs over the bits of |x| = 0xd201000000010000 (63 doublings, 5 additions = 68
 * lines) and conjugates at the end because x < 0.
 *
 * Final exponentiation: the hard part uses 3·(p⁴ − p² + 1)/r = (x − 1)²·(x + p)·(x² + p² − 1) + 3
 * (Hayashida–Hayasaka–Teruya), so the result is f^(3(p¹² − 1)/r). This is the value blst,
 * zkcrypto and @noble/curves return (their chains compute the same exponent); since 3 ∤ r it is
 * a pairing as good as f^((p¹² − 1)/r), and the tests check it against a plain exponentiation.
 *
 * Timing: constant-time in the points, including whether they are infinity (infinity pairs run
 * the same code with their lines replaced by 1 through conditional moves).
 */
#include "curve/pairing.h"

#include <string.h>

#define BLS_X_ABS 0xd201000000010000ULL
#define MILLER_TOP_BIT 63
/* Pairs handled together by the unprepared multi-Miller loop (their running points on the stack). */
#define MILLER_CHUNK 8

typedef struct {
    g16_fp2 x, y, z;
} proj2; /* homogeneous projective point of E' (the Miller loop's own representation) */

/* r = 12·ξ·a = 3·b'·a for the twist's b' = 4ξ */
static void fp2_mul_by_3b(g16_fp2 *r, const g16_fp2 *a)
{
    g16_fp2 t, t3;
    g16__fp2_mul_by_nonresidue(&t, a);
    g16__fp2_dbl(&t3, &t);
    g16__fp2_add(&t3, &t3, &t);
    g16__fp2_dbl(&t3, &t3);
    g16__fp2_dbl(r, &t3);
}

/*
 * T = 2T and the tangent line at T. With A = XY/2, B = Y², C = Z², E = 3b'C, F = 3E,
 * G = (B + F)/2, H = 2YZ = (Y + Z)² − B − C:
 *   X' = A(B − F), Y' = G² − 3E², Z' = BH;
 * the tangent (scaled by −2YZ) is (E − B) + 3X²·xP·v − H·yP·vw.
 */
static void dbl_step(g16_fp2 ell[3], proj2 *t)
{
    g16_fp2 a, b, c, e, f, g, h, j;
    g16__fp2_mul(&a, &t->x, &t->y);
    g16__fp2_half(&a, &a);
    g16__fp2_sqr(&b, &t->y);
    g16__fp2_sqr(&c, &t->z);
    fp2_mul_by_3b(&e, &c);
    g16__fp2_dbl(&f, &e);
    g16__fp2_add(&f, &f, &e);
    g16__fp2_add(&g, &b, &f);
    g16__fp2_half(&g, &g);
    g16__fp2_add(&h, &t->y, &t->z);
    g16__fp2_sqr(&h, &h);
    g16__fp2_sub(&h, &h, &b);
    g16__fp2_sub(&h, &h, &c);
    g16__fp2_sqr(&j, &t->x);

    g16__fp2_sub(&ell[0], &e, &b);
    g16__fp2_dbl(&ell[1], &j);
    g16__fp2_add(&ell[1], &ell[1], &j);
    g16__fp2_neg(&ell[2], &h);

    g16__fp2_sub(&t->x, &b, &f);
    g16__fp2_mul(&t->x, &t->x, &a);
    g16__fp2_sqr(&g, &g);
    g16__fp2_sqr(&e, &e);
    g16__fp2_dbl(&j, &e);
    g16__fp2_add(&e, &e, &j);
    g16__fp2_sub(&t->y, &g, &e);
    g16__fp2_mul(&t->z, &b, &h);
}

/*
 * T = T + Q (Q affine) and the line through them. With θ = Y − yQ·Z, λ = X − xQ·Z,
 * D = λ², E = λ·D, F = Z·θ², G = X·D, H = E + F − 2G:
 *   X' = λH, Y' = θ(G − H) − Y·E, Z' = Z·E;
 * the line (scaled by λ) is (θ·xQ − λ·yQ) − θ·xP·v + λ·yP·vw.
 */
static void add_step(g16_fp2 ell[3], proj2 *t, const g16_p2_affine *q)
{
    g16_fp2 theta, lambda, d, e, f, g, h, s;
    g16__fp2_mul(&theta, &q->y, &t->z);
    g16__fp2_sub(&theta, &t->y, &theta);
    g16__fp2_mul(&lambda, &q->x, &t->z);
    g16__fp2_sub(&lambda, &t->x, &lambda);
    g16__fp2_sqr(&d, &lambda);
    g16__fp2_mul(&e, &lambda, &d);
    g16__fp2_sqr(&f, &theta);
    g16__fp2_mul(&f, &f, &t->z);
    g16__fp2_mul(&g, &t->x, &d);
    g16__fp2_add(&h, &e, &f);
    g16__fp2_sub(&h, &h, &g);
    g16__fp2_sub(&h, &h, &g);

    g16__fp2_mul(&t->x, &lambda, &h);
    g16__fp2_mul(&t->z, &t->z, &e);
    g16__fp2_mul(&e, &e, &t->y);
    g16__fp2_sub(&s, &g, &h);
    g16__fp2_mul(&s, &s, &theta);
    g16__fp2_sub(&t->y, &s, &e);

    g16__fp2_mul(&ell[0], &theta, &q->x);
    g16__fp2_mul(&s, &lambda, &q->y);
    g16__fp2_sub(&ell[0], &ell[0], &s);
    g16__fp2_neg(&ell[1], &theta);
    ell[2] = lambda;
}

/* f = f·line(P); when skip = 1 (an infinity pair) the line is replaced by 1. */
static void line_mul(g16_fp12 *f, const g16_fp2 ell[3], const g16_p1_affine *p, int skip)
{
    g16_fp2 o0 = ell[0], o1, o4;
    g16__fp2_mul_fp(&o1, &ell[1], &p->x);
    g16__fp2_mul_fp(&o4, &ell[2], &p->y);
    g16_fp2 zero;
    g16__fp2_set_zero(&zero);
    g16__fp2_cmov(&o0, &g16__fp2_one, skip);
    g16__fp2_cmov(&o1, &zero, skip);
    g16__fp2_cmov(&o4, &zero, skip);
    g16__fp12_mul_by_014(f, f, &o0, &o1, &o4);
}

static void proj2_from_affine(proj2 *t, const g16_p2_affine *q)
{
    t->x = q->x;
    t->y = q->y;
    g16__fp2_set_one(&t->z);
}

/* Infinity is encoded x = y = 0 (include/g16.h); checked here directly so that the pairing
 * does not depend on the group-law code. */
static int p1_affine_is_zero(const g16_p1_affine *p) { return g16__fp_is_zero(&p->x) & g16__fp_is_zero(&p->y); }
static int p2_affine_is_zero(const g16_p2_affine *q) { return g16__fp2_is_zero(&q->x) & g16__fp2_is_zero(&q->y); }

static int pair_is_trivial(const g16_p1_affine *p, const g16_p2_affine *q)
{
    return p1_affine_is_zero(p) | p2_affine_is_zero(q);
}

/* f = Π_{i<n} miller_loop(p[i], q[i]) for n <= MILLER_CHUNK, sharing the squarings of f. */
static void miller_chunk(g16_fp12 *f, const g16_p1_affine *p, const g16_p2_affine *q, size_t n)
{
    proj2 t[MILLER_CHUNK];
    int skip[MILLER_CHUNK];
    g16_fp2 ell[3];
    for (size_t i = 0; i < n; i++) {
        proj2_from_affine(&t[i], &q[i]);
        skip[i] = pair_is_trivial(&p[i], &q[i]);
    }
    g16__fp12_set_one(f);
    for (int bit = MILLER_TOP_BIT - 1; bit >= 0; bit--) {
        if (bit != MILLER_TOP_BIT - 1)
            g16__fp12_sqr(f, f); /* f = 1 before the first step */
        for (size_t i = 0; i < n; i++) {
            dbl_step(ell, &t[i]);
            line_mul(f, ell, &p[i], skip[i]);
        }
        if ((BLS_X_ABS >> bit) & 1) {
            for (size_t i = 0; i < n; i++) {
                add_step(ell, &t[i], &q[i]);
                line_mul(f, ell, &p[i], skip[i]);
            }
        }
    }
}

void g16__miller_loop_n(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q, size_t n)
{
    g16_fp12 acc, f;
    g16__fp12_set_one(&acc);
    for (size_t i = 0; i < n; i += MILLER_CHUNK) {
        size_t m = n - i < MILLER_CHUNK ? n - i : MILLER_CHUNK;
        miller_chunk(&f, p + i, q + i, m);
        if (i == 0)
            acc = f;
        else
            g16__fp12_mul(&acc, &acc, &f);
    }
    g16__fp12_conj(r, &acc); /* x < 0 */
}

void g16__miller_loop(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q)
{
    g16__miller_loop_n(r, p, q, 1);
}

void g16__p2_prepare(g16__p2_prepared *out, const g16_p2_affine *q)
{
    proj2 t;
    size_t k = 0;
    proj2_from_affine(&t, q);
    for (int bit = MILLER_TOP_BIT - 1; bit >= 0; bit--) {
        dbl_step(out->ell[k++], &t);
        if ((BLS_X_ABS >> bit) & 1)
            add_step(out->ell[k++], &t, q);
    }
    out->infinity = p2_affine_is_zero(q);
}

void g16__miller_loop_prepared_n(g16_fp12 *r, const g16_p1_affine *p, const g16__p2_prepared *const *q, size_t n)
{
    g16_fp12 f;
    size_t k = 0;
    g16__fp12_set_one(&f);
    for (int bit = MILLER_TOP_BIT - 1; bit >= 0; bit--) {
        size_t lines = 1 + ((BLS_X_ABS >> bit) & 1);
        if (bit != MILLER_TOP_BIT - 1)
            g16__fp12_sqr(&f, &f);
        for (size_t l = 0; l < lines; l++, k++)
            for (size_t i = 0; i < n; i++)
                line_mul(&f, q[i]->ell[k], &p[i], q[i]->infinity | p1_affine_is_zero(&p[i]));
    }
    g16__fp12_conj(r, &f);
}

/* Easy part: f^((p⁶ − 1)(p² + 1)), which lands in the cyclotomic subgroup. */
static void final_exp_easy(g16_fp12 *r, const g16_fp12 *f)
{
    g16_fp12 t, inv;
    g16__fp12_inv(&inv, f);
    g16__fp12_conj(&t, f);
    g16__fp12_mul(&t, &t, &inv);
    g16__fp12_frobenius(r, &t, 2);
    g16__fp12_mul(r, r, &t);
}

/* m^((x − 1)²(x + p)(x² + p² − 1) + 3) for cyclotomic m, with 5 exponentiations by x. */
static void final_exp_hard(g16_fp12 *r, const g16_fp12 *m)
{
    g16_fp12 a, b, c;
    g16__fp12_cyclotomic_exp_x(&a, m); /* a = m^(x − 1) */
    g16__fp12_conj(&b, m);
    g16__fp12_mul(&a, &a, &b);
    g16__fp12_cyclotomic_exp_x(&b, &a); /* b = a^(x − 1) = m^((x − 1)²) */
    g16__fp12_conj(&a, &a);
    g16__fp12_mul(&b, &b, &a);
    g16__fp12_cyclotomic_exp_x(&c, &b); /* c = b^(x + p) */
    g16__fp12_frobenius(&b, &b, 1);
    g16__fp12_mul(&c, &c, &b);
    g16__fp12_cyclotomic_exp_x(&a, &c); /* a = c^(x² + p² − 1) */
    g16__fp12_cyclotomic_exp_x(&a, &a);
    g16__fp12_frobenius(&b, &c, 2);
    g16__fp12_mul(&a, &a, &b);
    g16__fp12_conj(&c, &c);
    g16__fp12_mul(&a, &a, &c);
    g16__fp12_cyclotomic_sqr(&b, m); /* · m³ */
    g16__fp12_mul(&b, &b, m);
    g16__fp12_mul(r, &a, &b);
}

void g16__final_exp(g16_fp12 *r, const g16_fp12 *f)
{
    g16_fp12 m;
    final_exp_easy(&m, f);
    final_exp_hard(r, &m);
}

void g16__pairing(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q)
{
    g16_fp12 f;
    g16__miller_loop_n(&f, p, q, 1);
    g16__final_exp(r, &f);
}

void g16__multi_pairing(g16_fp12 *r, const g16_p1_affine *p, const g16_p2_affine *q, size_t n)
{
    g16_fp12 f;
    g16__miller_loop_n(&f, p, q, n);
    g16__final_exp(r, &f);
}
