/*
 * Variable-time inversion (g16__fp_inv_var, g16__fr_inv_var: safegcd, src/field/inv_var.h)
 * against GMP and against the constant-time Fermat inversion.
 *
 * The algorithm works on the raw Montgomery limbs A = x·R mod m, so the inputs are chosen as raw
 * limbs and GMP computes the expected raw output A^(-1)·R^2 mod m (= x^(-1)·R) from them, without
 * any g16 conversion. Inputs: uniform random limbs; raw edge values (1, 2, small values, m-1, m-2,
 * (m±1)/2, powers of two, 2^k - 1, m - 2^k, long runs of zero and one bits, sparse and dense
 * words); the same kinds of values as canonical x (raw limbs x·R mod m from GMP). Each input
 * checks: the exact limbs against GMP (so the output is fully reduced), in-place use, a·a^(-1) = 1
 * with g16's multiplication, and (for all edge values and every 16th random one) equality with
 * the Fermat inversion. 0 must give 0. G16_TEST_ITERS scales the random count.
 *
 * A second test runs the header's steps (divsteps, f/g update, d/e update) batch by batch on
 * random and edge inputs and checks the invariants the header states, with GMP: matrix rows
 * |u| + |v|, |q| + |r| <= 2^62, |f|, |g| <= m, f odd, d, e in (-2m, m) with limbs in range,
 * f·R^2 ≡ d·A and g·R^2 ≡ e·A (mod m), and the batch count within the Bernstein–Yang bound.
 * A violated bound would show in the results only for rare inputs; here it shows at once.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "field/fp.h"
#include "field/fr.h"
#include "field/inv_var.h"

#define MAXN 6

typedef struct {
    const char *name;
    size_t n;
    unsigned bits;
    const uint64_t *mod;
    void (*inv_var)(uint64_t *r, const uint64_t *a);
    void (*inv)(uint64_t *r, const uint64_t *a);
    void (*mul)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    const uint64_t *one; /* R mod m */
} field;

/* fp_inv_var_l, fp_inv_l, fp_mul_l (and fr_*): the field's functions on bare limbs. */
#define DEFINE_LIMB_WRAPPERS(F, T)                                                                  \
    static void F##_inv_var_l(uint64_t *r, const uint64_t *a)                                        \
    {                                                                                                \
        T x, y;                                                                                      \
        memcpy(x.l, a, sizeof x.l);                                                                  \
        g16__##F##_inv_var(&y, &x);                                                                  \
        memcpy(r, y.l, sizeof y.l);                                                                  \
    }                                                                                                \
    static void F##_inv_l(uint64_t *r, const uint64_t *a)                                            \
    {                                                                                                \
        T x, y;                                                                                      \
        memcpy(x.l, a, sizeof x.l);                                                                  \
        g16__##F##_inv(&y, &x);                                                                      \
        memcpy(r, y.l, sizeof y.l);                                                                  \
    }                                                                                                \
    static void F##_mul_l(uint64_t *r, const uint64_t *a, const uint64_t *b)                         \
    {                                                                                                \
        T x, y, z;                                                                                   \
        memcpy(x.l, a, sizeof x.l);                                                                  \
        memcpy(y.l, b, sizeof y.l);                                                                  \
        g16__##F##_mul(&z, &x, &y);                                                                  \
        memcpy(r, z.l, sizeof z.l);                                                                  \
    }
DEFINE_LIMB_WRAPPERS(fp, g16_fp)
DEFINE_LIMB_WRAPPERS(fr, g16_fr)

static const field FP = {"fp", 6, 381, g16__fp_modulus, fp_inv_var_l, fp_inv_l, fp_mul_l, g16__fp_one.l};
static const field FR = {"fr", 4, 255, g16__fr_modulus, fr_inv_var_l, fr_inv_l, fr_mul_l, g16__fr_one.l};

static void to_mpz(mpz_t z, const uint64_t *l, size_t n) { mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l); }

static void from_mpz(uint64_t *l, size_t n, const mpz_t z)
{
    size_t count = 0;
    assert_true(mpz_sgn(z) >= 0 && mpz_sizeinbase(z, 2) <= 64 * n);
    memset(l, 0, n * sizeof(uint64_t));
    mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
}

typedef struct {
    const field *f;
    mpz_t m, R, r2; /* m, R = 2^(64n), R^2 mod m */
    mpz_t a, want, t;
    long checked, fermat;
} ctx;

static void ctx_init(ctx *c, const field *f)
{
    c->f = f;
    c->checked = c->fermat = 0;
    mpz_inits(c->m, c->R, c->r2, c->a, c->want, c->t, NULL);
    to_mpz(c->m, f->mod, f->n);
    mpz_setbit(c->R, 64 * (unsigned)f->n);
    mpz_mul(c->r2, c->R, c->R);
    mpz_mod(c->r2, c->r2, c->m);
}

static void ctx_clear(ctx *c) { mpz_clears(c->m, c->R, c->r2, c->a, c->want, c->t, NULL); }

static void print_limbs(const char *what, const uint64_t *l, size_t n)
{
    fprintf(stderr, "  %s = 0x", what);
    for (size_t i = n; i-- > 0;)
        fprintf(stderr, "%016llx", (unsigned long long)l[i]);
    fprintf(stderr, "\n");
}

/* All checks on one raw input A (< m). */
static void check_raw(ctx *c, const uint64_t *a, int with_fermat)
{
    const field *f = c->f;
    const size_t n = f->n;
    uint64_t got[MAXN], want[MAXN], x[MAXN], prod[MAXN];
    to_mpz(c->a, a, n);
    assert_true(mpz_cmp(c->a, c->m) < 0);
    if (mpz_sgn(c->a) == 0) {
        mpz_set_ui(c->want, 0);
    } else {
        assert_true(mpz_invert(c->want, c->a, c->m));
        mpz_mul(c->want, c->want, c->r2);
        mpz_mod(c->want, c->want, c->m);
    }
    from_mpz(want, n, c->want);

    f->inv_var(got, a);
    if (memcmp(got, want, n * sizeof(uint64_t)) != 0) {
        fprintf(stderr, "%s inv_var mismatch\n", f->name);
        print_limbs("input", a, n);
        print_limbs("got  ", got, n);
        print_limbs("want ", want, n);
        fail();
    }
    memcpy(x, a, n * sizeof(uint64_t)); /* in place */
    f->inv_var(x, x);
    assert_memory_equal(x, want, n * sizeof(uint64_t));
    if (mpz_sgn(c->a) != 0) {
        f->mul(prod, a, got);
        assert_memory_equal(prod, f->one, n * sizeof(uint64_t));
    }
    if (with_fermat) {
        f->inv(x, a);
        assert_memory_equal(x, got, n * sizeof(uint64_t));
        c->fermat++;
    }
    c->checked++;
}

/* v mod m as raw limbs, then checked; also v as canonical x (raw x·R mod m). */
static void check_value(ctx *c, const mpz_t v)
{
    uint64_t l[MAXN];
    mpz_mod(c->t, v, c->m);
    from_mpz(l, c->f->n, c->t);
    check_raw(c, l, 1);
    mpz_mul(c->t, c->t, c->R);
    mpz_mod(c->t, c->t, c->m);
    from_mpz(l, c->f->n, c->t);
    check_raw(c, l, 1);
}

/* A value of `bits` bits made of alternating runs of ones and zeros with random lengths in
 * [1, maxrun], starting with a one at the top. */
static void runs_value(mpz_t v, unsigned bits, unsigned maxrun)
{
    mpz_set_ui(v, 0);
    int bit = 1;
    for (unsigned i = bits; i > 0;) {
        unsigned len = 1 + (unsigned)(tu_rand64() % maxrun);
        if (len > i)
            len = i;
        for (unsigned k = 0; k < len; k++) {
            i--;
            if (bit)
                mpz_setbit(v, i);
        }
        bit ^= 1;
    }
}

static void run_edges(ctx *c)
{
    const unsigned bits = c->f->bits;
    mpz_t v;
    mpz_init(v);
    /* 0 and small values (0 is checked as raw 0 both times) */
    for (unsigned long k = 0; k <= 300; k++) {
        mpz_set_ui(v, k);
        check_value(c, v);
    }
    /* around m and m/2 */
    for (long k = 1; k <= 64; k++) {
        mpz_sub_ui(v, c->m, (unsigned long)k);
        check_value(c, v);
    }
    mpz_sub_ui(v, c->m, 1);
    mpz_fdiv_q_2exp(v, v, 1);
    check_value(c, v); /* (m-1)/2 */
    mpz_add_ui(v, v, 1);
    check_value(c, v); /* (m+1)/2 */
    /* powers of two, 2^k - 1, 2^k + 1, m - 2^k (all below m or reduced) */
    for (unsigned k = 0; k < bits; k++) {
        mpz_set_ui(v, 0);
        mpz_setbit(v, k);
        check_value(c, v);
        mpz_sub_ui(v, v, 1);
        if (k > 0)
            check_value(c, v);
        mpz_add_ui(v, v, 2);
        check_value(c, v);
        mpz_set_ui(v, 0);
        mpz_setbit(v, k);
        mpz_sub(v, c->m, v);
        check_value(c, v);
    }
    /* long runs of zero and one bits, at every length scale, and shorter values */
    for (int it = 0; it < 400; it++) {
        unsigned maxrun = it < 100 ? 8 : it < 200 ? 64 : it < 300 ? 200 : bits;
        unsigned len = 1 + (unsigned)(tu_rand64() % bits);
        runs_value(v, (it & 1) ? bits : len, maxrun);
        check_value(c, v);
    }
    /* sparse (a few bits) and dense (all ones but a few) words */
    for (int it = 0; it < 200; it++) {
        mpz_set_ui(v, 0);
        int nb = 1 + (int)(tu_rand64() % 4);
        for (int b = 0; b < nb; b++)
            mpz_setbit(v, (mp_bitcnt_t)(tu_rand64() % bits));
        check_value(c, v);
        mpz_sub(v, c->m, v);
        check_value(c, v);
    }
    mpz_clear(v);
}

static void run_random(ctx *c, int iters)
{
    const size_t n = c->f->n;
    const unsigned top = c->f->bits - 64 * (unsigned)(n - 1);
    uint64_t a[MAXN];
    for (int it = 0; it < iters; it++) {
        do {
            for (size_t i = 0; i < n; i++)
                a[i] = tu_rand64();
            a[n - 1] &= (UINT64_C(1) << top) - 1;
            to_mpz(c->a, a, n);
        } while (mpz_cmp(c->a, c->m) >= 0);
        check_raw(c, a, it % 16 == 0);
    }
}

static void test_field(const field *f)
{
    ctx c;
    ctx_init(&c, f);
    run_edges(&c);
    run_random(&c, tu_iters(20000));
    fprintf(stderr, "%s: %ld inputs checked against GMP, %ld against Fermat\n", f->name, c.checked, c.fermat);
    ctx_clear(&c);
}

/* value of an s62 number (limbs 0..len-2 must lie in [0, 2^62)) */
static void s62_to_mpz(mpz_t z, const int64_t *l, size_t len)
{
    mpz_set_si(z, l[len - 1]);
    for (size_t k = len - 1; k-- > 0;) {
        assert_true(l[k] >= 0 && (uint64_t)l[k] <= S62_MASK);
        mpz_mul_2exp(z, z, 62);
        mpz_add_ui(z, z, (unsigned long)l[k]);
    }
}

/* One inversion of raw A (non-zero, < m) through the header's steps with every invariant checked
 * after every batch; returns the number of batches. */
static int run_checked(ctx *c, const uint64_t *a)
{
    const field *fd = c->f;
    const size_t n = fd->n, L = n + 1;
    int64_t f[S62_MAX_LIMBS], g[S62_MAX_LIMBS], d[S62_MAX_LIMBS] = {0}, e[S62_MAX_LIMBS], m62[S62_MAX_LIMBS];
    uint64_t r2[MAXN], n0 = 1;
    mpz_t zf, zg, zd, ze, lhs, rhs, bound;
    mpz_inits(zf, zg, zd, ze, lhs, rhs, bound, NULL);
    from_mpz(r2, n, c->r2);
    for (int i = 0; i < 6; i++) /* n0 = -m^(-1) mod 2^64 by Newton's iteration */
        n0 *= 2 - fd->mod[0] * n0;
    n0 = 0 - n0;
    s62_from_u64(m62, fd->mod, n);
    s62_from_u64(f, fd->mod, n);
    s62_from_u64(g, a, n);
    s62_from_u64(e, r2, n);
    to_mpz(c->a, a, n);
    const uint64_t minv = (0 - n0) & S62_MASK;
    assert_int_equal((minv * (uint64_t)m62[0]) & S62_MASK, 1);
    int64_t eta = -1;
    size_t len = L;
    int batches = 0;
    for (;;) {
        s62_mat t;
        assert_true(f[0] & 1);
        eta = s62_divsteps_var(eta, (uint64_t)f[0], (uint64_t)g[0], &t);
        batches++;
        /* rows: |u| + |v| <= 2^62, |q| + |r| <= 2^62 */
        mpz_set_si(lhs, t.u);
        mpz_abs(lhs, lhs);
        mpz_set_si(rhs, t.v);
        mpz_abs(rhs, rhs);
        mpz_add(lhs, lhs, rhs);
        mpz_set_ui(bound, 1);
        mpz_mul_2exp(bound, bound, 62);
        assert_true(mpz_cmp(lhs, bound) <= 0);
        mpz_set_si(lhs, t.q);
        mpz_abs(lhs, lhs);
        mpz_set_si(rhs, t.r);
        mpz_abs(rhs, rhs);
        mpz_add(lhs, lhs, rhs);
        assert_true(mpz_cmp(lhs, bound) <= 0);
        s62_update_fg(f, g, &t, len);
        s62_update_de(d, e, &t, m62, minv, L);
        s62_to_mpz(zf, f, len);
        s62_to_mpz(zg, g, len);
        s62_to_mpz(zd, d, L);
        s62_to_mpz(ze, e, L);
        /* |f|, |g| <= m; d, e in (-2m, m) */
        mpz_abs(lhs, zf);
        assert_true(mpz_cmp(lhs, c->m) <= 0);
        mpz_abs(lhs, zg);
        assert_true(mpz_cmp(lhs, c->m) <= 0);
        mpz_mul_si(bound, c->m, -2);
        assert_true(mpz_cmp(zd, bound) > 0 && mpz_cmp(zd, c->m) < 0);
        assert_true(mpz_cmp(ze, bound) > 0 && mpz_cmp(ze, c->m) < 0);
        /* f·R^2 ≡ d·A, g·R^2 ≡ e·A (mod m) */
        mpz_mul(lhs, zf, c->r2);
        mpz_mul(rhs, zd, c->a);
        mpz_sub(lhs, lhs, rhs);
        assert_true(mpz_divisible_p(lhs, c->m));
        mpz_mul(lhs, zg, c->r2);
        mpz_mul(rhs, ze, c->a);
        mpz_sub(lhs, lhs, rhs);
        assert_true(mpz_divisible_p(lhs, c->m));
        if (mpz_sgn(zg) == 0)
            break;
        /* g != 0 after 62·batches divsteps: fewer than Bernstein–Yang's (49·b + 57)/17 for b-bit
         * inputs (b >= 46) */
        assert_true(batches * 62 < (int)((49 * fd->bits + 57) / 17));
        int64_t ft = f[len - 1], gt = g[len - 1];
        if (len > 1 && ((ft ^ (ft >> 63)) | (gt ^ (gt >> 63))) == 0) {
            f[len - 2] = (int64_t)((uint64_t)f[len - 2] | ((uint64_t)ft << 62));
            g[len - 2] = (int64_t)((uint64_t)g[len - 2] | ((uint64_t)gt << 62));
            len--;
        }
    }
    assert_int_equal(mpz_cmpabs_ui(zf, 1), 0); /* f = ±1 */
    mpz_clears(zf, zg, zd, ze, lhs, rhs, bound, NULL);
    return batches;
}

static void test_invariants(void **state)
{
    (void)state;
    const field *fields[2] = {&FP, &FR};
    for (int fi = 0; fi < 2; fi++) {
        ctx c;
        ctx_init(&c, fields[fi]);
        const size_t n = c.f->n;
        const unsigned top = c.f->bits - 64 * (unsigned)(n - 1);
        uint64_t a[MAXN];
        mpz_t v;
        mpz_init(v);
        long total = 0;
        int most = 0, count = tu_iters(3000);
        for (int it = 0; it < count; it++) {
            switch (it % 4) {
            case 0: /* uniform */
                for (size_t i = 0; i < n; i++)
                    a[i] = tu_rand64();
                a[n - 1] &= (UINT64_C(1) << top) - 1;
                to_mpz(v, a, n);
                break;
            case 1: /* long runs */
                runs_value(v, c.f->bits, 1 + (unsigned)(tu_rand64() % c.f->bits));
                break;
            case 2: /* small */
                mpz_set_ui(v, 1 + tu_rand64() % 1000);
                break;
            default: /* near m, or a power of two */
                mpz_set_ui(v, 0);
                mpz_setbit(v, (mp_bitcnt_t)(tu_rand64() % c.f->bits));
                if (it & 4)
                    mpz_sub(v, c.m, v);
                break;
            }
            mpz_mod(v, v, c.m);
            if (mpz_sgn(v) == 0)
                mpz_set_ui(v, 1);
            from_mpz(a, n, v);
            int b = run_checked(&c, a);
            total += b;
            if (b > most)
                most = b;
        }
        fprintf(stderr, "%s: %d inversions, %.2f batches of 62 divsteps on average, at most %d\n", c.f->name,
                count, (double)total / count, most);
        mpz_clear(v);
        ctx_clear(&c);
    }
}

static void test_fp_inv_var(void **state)
{
    (void)state;
    test_field(&FP);
}

static void test_fr_inv_var(void **state)
{
    (void)state;
    test_field(&FR);
}

int main(void)
{
    tu_seed("test_inv");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp_inv_var),
        cmocka_unit_test(test_fr_inv_var),
        cmocka_unit_test(test_invariants),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
