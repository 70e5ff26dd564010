/*
 * The x86-64 MULX/ADX multiplication paths (fp_x86.c, fr_x86.c) against the portable code and
 * GMP: random inputs, skewed limb patterns, edge values, outputs forced onto both sides of the
 * final conditional subtraction, and aliasing. The assembly addition, subtraction, negation and
 * doubling (behind g16__fp_add etc.) are checked against GMP on the same inputs. When the CPU lacks BMI2/ADX (or the build has
 * G16_ASM=OFF) the dispatch is the portable code: the checks still run against GMP and pass.
 *
 * Inputs and expected values are raw Montgomery limbs: the expected product of limbs a and b
 * is a·b·2^(-64n) mod m, computed by GMP without any g16 conversion function.
 */
#include "testutil.h"

#include <stdio.h>
#include <string.h>

#include "field/fp.h"
#include "field/fr.h"

#define MAXN 6

/* A field as these tests see it: limbs in, limbs out, so Fp and Fr share every check.
 * mul/sqr go through the run-time dispatch (MULX when available and not forced off). */
typedef struct {
    const char *name;
    size_t n;
    const uint64_t *mod;
    void (*mul)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*mul_portable)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sqr)(uint64_t *r, const uint64_t *a);
    void (*sqr_portable)(uint64_t *r, const uint64_t *a);
    int (*have_mulx)(void);
    void (*force_portable)(int on);
    void (*add)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*sub)(uint64_t *r, const uint64_t *a, const uint64_t *b);
    void (*neg)(uint64_t *r, const uint64_t *a);
    void (*dbl)(uint64_t *r, const uint64_t *a);
} field;

#define WRAP(F, T, N)                                                                                      \
    static void F##_w(uint64_t *r, const uint64_t *a, const uint64_t *b)                                   \
    {                                                                                                      \
        T x, y, z;                                                                                         \
        memcpy(x.l, a, N * 8);                                                                             \
        memcpy(y.l, b, N * 8);                                                                             \
        F(&z, &x, &y);                                                                                     \
        memcpy(r, z.l, N * 8);                                                                             \
    }
#define WRAP1(F, T, N)                                                                                     \
    static void F##_w(uint64_t *r, const uint64_t *a)                                                      \
    {                                                                                                      \
        T x, z;                                                                                            \
        memcpy(x.l, a, N * 8);                                                                             \
        F(&z, &x);                                                                                         \
        memcpy(r, z.l, N * 8);                                                                             \
    }
WRAP(g16__fp_mul, g16_fp, 6)
WRAP(g16__fp_mul_portable, g16_fp, 6)
WRAP1(g16__fp_sqr, g16_fp, 6)
WRAP1(g16__fp_sqr_portable, g16_fp, 6)
WRAP(g16__fr_mul, g16_fr, 4)
WRAP(g16__fr_mul_portable, g16_fr, 4)
WRAP1(g16__fr_sqr, g16_fr, 4)
WRAP1(g16__fr_sqr_portable, g16_fr, 4)
WRAP(g16__fp_add, g16_fp, 6)
WRAP(g16__fp_sub, g16_fp, 6)
WRAP1(g16__fp_neg, g16_fp, 6)
WRAP1(g16__fp_dbl, g16_fp, 6)
WRAP(g16__fr_add, g16_fr, 4)
WRAP(g16__fr_sub, g16_fr, 4)
WRAP1(g16__fr_neg, g16_fr, 4)
WRAP1(g16__fr_dbl, g16_fr, 4)

static const field FP = {"fp",
                         6,
                         g16__fp_modulus,
                         g16__fp_mul_w,
                         g16__fp_mul_portable_w,
                         g16__fp_sqr_w,
                         g16__fp_sqr_portable_w,
                         g16__fp_have_mulx,
                         g16__fp_force_portable,
                         g16__fp_add_w,
                         g16__fp_sub_w,
                         g16__fp_neg_w,
                         g16__fp_dbl_w};
static const field FR = {"fr",
                         4,
                         g16__fr_modulus,
                         g16__fr_mul_w,
                         g16__fr_mul_portable_w,
                         g16__fr_sqr_w,
                         g16__fr_sqr_portable_w,
                         g16__fr_have_mulx,
                         g16__fr_force_portable,
                         g16__fr_add_w,
                         g16__fr_sub_w,
                         g16__fr_neg_w,
                         g16__fr_dbl_w};

static void to_mpz(mpz_t z, const uint64_t *l, size_t n) { mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l); }

static void from_mpz(uint64_t *l, size_t n, const mpz_t z)
{
    size_t count = 0;
    assert_true(mpz_sizeinbase(z, 2) <= 64 * n);
    memset(l, 0, n * sizeof(uint64_t));
    mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
}

/* GMP view of a field: modulus m, R = 2^(64n), R^(-1) mod m, -m^(-1) mod R. */
typedef struct {
    mpz_t m, R, rinv, minv_neg;
} oracle;

static void oracle_init(oracle *o, const field *f)
{
    mpz_inits(o->m, o->R, o->rinv, o->minv_neg, NULL);
    to_mpz(o->m, f->mod, f->n);
    mpz_set_ui(o->R, 1);
    mpz_mul_2exp(o->R, o->R, 64 * f->n);
    assert_true(mpz_invert(o->rinv, o->R, o->m));
    assert_true(mpz_invert(o->minv_neg, o->m, o->R));
    mpz_sub(o->minv_neg, o->R, o->minv_neg);
}

static void oracle_clear(oracle *o) { mpz_clears(o->m, o->R, o->rinv, o->minv_neg, NULL); }

/* want = a·b·R^(-1) mod m. Also returns 1 when the Montgomery value before the final subtraction,
 * U = (a·b + M·m)/R with M = -a·b·m^(-1) mod R (the unique M < R that any word-by-word
 * reduction accumulates), is >= m, i.e. when the subtraction must fire. */
static int oracle_mont(const oracle *o, mpz_t want, const mpz_t a, const mpz_t b)
{
    mpz_t ab, M, U;
    mpz_inits(ab, M, U, NULL);
    mpz_mul(ab, a, b);
    mpz_mul(M, ab, o->minv_neg);
    mpz_mod(M, M, o->R);
    mpz_addmul(ab, M, o->m);
    assert_true(mpz_divisible_p(ab, o->R));
    mpz_divexact(U, ab, o->R);
    int fires = mpz_cmp(U, o->m) >= 0;
    mpz_set(want, U);
    if (fires)
        mpz_sub(want, want, o->m);
    assert_true(mpz_cmp(want, o->m) < 0); /* U < 2m: one subtraction is enough */
    mpz_clears(ab, M, U, NULL);
    return fires;
}

typedef struct {
    long checked, fired;
} stats;

static void assert_limbs_equal(const uint64_t *got, const uint64_t *want, size_t n, const char *what,
                               const uint64_t *a, const uint64_t *b)
{
    if (memcmp(got, want, n * sizeof(uint64_t)) == 0)
        return;
    fprintf(stderr, "%s mismatch\n  a =", what);
    for (size_t i = n; i-- > 0;)
        fprintf(stderr, " %016llx", (unsigned long long)a[i]);
    fprintf(stderr, "\n  b =");
    for (size_t i = n; i-- > 0;)
        fprintf(stderr, " %016llx", (unsigned long long)b[i]);
    fprintf(stderr, "\n  got  =");
    for (size_t i = n; i-- > 0;)
        fprintf(stderr, " %016llx", (unsigned long long)got[i]);
    fprintf(stderr, "\n  want =");
    for (size_t i = n; i-- > 0;)
        fprintf(stderr, " %016llx", (unsigned long long)want[i]);
    fprintf(stderr, "\n");
    fail();
}

/* a + b, a - b, -a, 2a on the limbs (Montgomery form is linear, so these are plain mod m). */
static void check_linear(const field *f, const oracle *o, const uint64_t *a, const uint64_t *b, const mpz_t za,
                         const mpz_t zb)
{
    uint64_t got[MAXN], want[MAXN];
    mpz_t zw;
    mpz_init(zw);
    mpz_add(zw, za, zb);
    mpz_mod(zw, zw, o->m);
    from_mpz(want, f->n, zw);
    f->add(got, a, b);
    assert_limbs_equal(got, want, f->n, "add", a, b);
    mpz_sub(zw, za, zb);
    mpz_mod(zw, zw, o->m);
    from_mpz(want, f->n, zw);
    f->sub(got, a, b);
    assert_limbs_equal(got, want, f->n, "sub", a, b);
    mpz_neg(zw, za);
    mpz_mod(zw, zw, o->m);
    from_mpz(want, f->n, zw);
    f->neg(got, a);
    assert_limbs_equal(got, want, f->n, "neg", a, a);
    mpz_mul_2exp(zw, za, 1);
    mpz_mod(zw, zw, o->m);
    from_mpz(want, f->n, zw);
    f->dbl(got, a);
    assert_limbs_equal(got, want, f->n, "dbl", a, a);
    mpz_clear(zw);
}

/* Checks mul(a, b) on both paths against GMP, sqr(a) when a == b, and the linear operations. */
static void check_mul(const field *f, const oracle *o, stats *st, const uint64_t *a, const uint64_t *b)
{
    uint64_t fast[MAXN], port[MAXN], want[MAXN];
    mpz_t za, zb, zw;
    mpz_inits(za, zb, zw, NULL);
    to_mpz(za, a, f->n);
    to_mpz(zb, b, f->n);
    st->fired += oracle_mont(o, zw, za, zb);
    st->checked++;
    from_mpz(want, f->n, zw);
    f->mul(fast, a, b);
    f->mul_portable(port, a, b);
    assert_limbs_equal(port, want, f->n, "portable mul", a, b);
    assert_limbs_equal(fast, want, f->n, "dispatched (MULX) mul", a, b);
    if (memcmp(a, b, f->n * sizeof(uint64_t)) == 0) {
        f->sqr(fast, a);
        f->sqr_portable(port, a);
        assert_limbs_equal(port, want, f->n, "portable sqr", a, a);
        assert_limbs_equal(fast, want, f->n, "dispatched (MULX) sqr", a, a);
    }
    check_linear(f, o, a, b, za, zb);
    mpz_clears(za, zb, zw, NULL);
}

/* 1 when the little-endian limbs a are below b. */
static int limbs_lt(const uint64_t *a, const uint64_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* a < m with limbs drawn from patterns that stress carry chains: all-ones, zero, the modulus
 * limb and its neighbours, single bits, or uniform. Rejection keeps it below m. */
static void rand_skewed(const field *f, uint64_t *a)
{
    do {
        for (size_t i = 0; i < f->n; i++) {
            uint64_t r = tu_rand64();
            switch (r % 8) {
            case 0: a[i] = ~0ULL; break;
            case 1: a[i] = 0; break;
            case 2: a[i] = f->mod[i]; break;
            case 3: a[i] = f->mod[i] - 1; break;
            case 4: a[i] = f->mod[i] + 1; break;
            case 5: a[i] = 1ULL << (r >> 58); break;
            default: a[i] = tu_rand64(); break;
            }
        }
    } while (!limbs_lt(a, f->mod, f->n));
}

static void rand_uniform(const field *f, uint64_t *a)
{
    unsigned top = 64 - (unsigned)__builtin_clzll(f->mod[f->n - 1]);
    do {
        for (size_t i = 0; i < f->n; i++)
            a[i] = tu_rand64();
        a[f->n - 1] &= (top == 64) ? ~0ULL : (1ULL << top) - 1;
    } while (!limbs_lt(a, f->mod, f->n));
}

static void announce(const field *f)
{
    if (!f->have_mulx())
        printf("%s: MULX/ADX path unavailable (CPU lacks BMI2/ADX, or G16_ASM=OFF): "
               "checking the portable path against GMP only\n",
               f->name);
}

static void run_random(const field *f)
{
    oracle o;
    stats st = {0, 0};
    oracle_init(&o, f);
    announce(f);
    f->force_portable(0);
    for (int it = 0; it < tu_iters(20000); it++) {
        uint64_t a[MAXN], b[MAXN];
        if (it & 1) {
            rand_uniform(f, a);
            rand_uniform(f, b);
        } else {
            rand_skewed(f, a);
            rand_skewed(f, b);
        }
        check_mul(f, &o, &st, a, b);
        check_mul(f, &o, &st, a, a);
    }
    /* the final subtraction must have been exercised both ways (it fires for a few percent of
     * products, so only a run of some size can insist) */
    if (st.checked >= 4000)
        assert_true(st.fired > 0 && st.fired < st.checked);
    oracle_clear(&o);
}

/* Edge values: 0, 1, 2, m-1, m-2, R mod m, R^2 mod m, (m±1)/2, 2^(64k), 2^(64k)-1, all-ones
 * limbs under a top limb just below m's, and m's own limbs with the top one decremented. */
static size_t edge_values(const field *f, const oracle *o, uint64_t (*e)[MAXN])
{
    size_t k = 0, n = f->n;
    mpz_t z;
    mpz_init(z);
    const long small[] = {0, 1, 2, -1, -2};
    for (size_t i = 0; i < sizeof small / sizeof small[0]; i++) {
        mpz_set_si(z, small[i]);
        mpz_mod(z, z, o->m);
        from_mpz(e[k++], n, z);
    }
    mpz_mod(z, o->R, o->m);
    from_mpz(e[k++], n, z);
    mpz_mul(z, z, z);
    mpz_mod(z, z, o->m);
    from_mpz(e[k++], n, z);
    mpz_sub_ui(z, o->m, 1);
    mpz_fdiv_q_2exp(z, z, 1);
    from_mpz(e[k++], n, z);
    mpz_add_ui(z, z, 1);
    from_mpz(e[k++], n, z);
    for (size_t j = 1; j < n; j++) {
        memset(e[k], 0, sizeof e[k]);
        e[k++][j] = 1; /* 2^(64j) */
        memset(e[k], 0, sizeof e[k]);
        for (size_t i = 0; i < j; i++)
            e[k][i] = ~0ULL; /* 2^(64j) - 1 */
        k++;
    }
    for (size_t i = 0; i < n; i++)
        e[k][i] = ~0ULL;
    e[k++][n - 1] = f->mod[n - 1] - 1;
    memcpy(e[k], f->mod, n * sizeof(uint64_t));
    e[k++][n - 1] -= 1;
    memset(e[k], 0, sizeof e[k]);
    e[k++][n - 1] = f->mod[n - 1] - 1;
    mpz_clear(z);
    return k;
}

static void run_edges(const field *f)
{
    oracle o;
    stats st = {0, 0};
    uint64_t e[32][MAXN];
    oracle_init(&o, f);
    f->force_portable(0);
    size_t k = edge_values(f, &o, e);
    for (size_t i = 0; i < k; i++) {
        assert_true(limbs_lt(e[i], f->mod, f->n));
        for (size_t j = 0; j < k; j++)
            check_mul(f, &o, &st, e[i], e[j]);
    }
    oracle_clear(&o);
}

/* Products whose result is chosen: b = c·R·a^(-1), so mul(a, b) = c. For c = m-1 the value
 * before the final subtraction is m-1 itself (the largest one that is kept); for small c it is
 * sometimes c + m (the subtraction fires at the boundary c + m >= m). Squares likewise, with
 * a = sqrt(c·R) when c·R is a square. */
static void run_boundary(const field *f)
{
    oracle o;
    stats st = {0, 0}, st_small = {0, 0};
    mpz_t za, zb, zc, t;
    oracle_init(&o, f);
    mpz_inits(za, zb, zc, t, NULL);
    f->force_portable(0);
    const long targets[] = {-1, -2, -3, 1, 2, 3};
    const int iters = 500; /* fixed: the assertions below need a few hundred tries per target */
    for (size_t ti = 0; ti < sizeof targets / sizeof targets[0]; ti++) {
        mpz_set_si(zc, targets[ti]);
        mpz_mod(zc, zc, o.m);
        for (int it = 0; it < iters; it++) {
            uint64_t a[MAXN], b[MAXN];
            rand_uniform(f, a);
            to_mpz(za, a, f->n);
            if (mpz_sgn(za) == 0)
                continue;
            assert_true(mpz_invert(t, za, o.m));
            mpz_mul(zb, zc, o.R);
            mpz_mul(zb, zb, t);
            mpz_mod(zb, zb, o.m);
            from_mpz(b, f->n, zb);
            check_mul(f, &o, targets[ti] > 0 ? &st_small : &st, a, b);
        }
        /* squares hitting c: a² = c·R (mod m) when c·R is a square; m ≡ 3 mod 4 (Fp) gives the
         * root as (c·R)^((m+1)/4). Fr (r ≡ 1 mod 4) only gets the products above. */
        mpz_mul(t, zc, o.R);
        mpz_mod(t, t, o.m);
        if (mpz_fdiv_ui(o.m, 4) == 3 && mpz_legendre(t, o.m) == 1) {
            uint64_t a[MAXN];
            mpz_add_ui(za, o.m, 1);
            mpz_fdiv_q_2exp(za, za, 2);
            mpz_powm(za, t, za, o.m);
            from_mpz(a, f->n, za);
            check_mul(f, &o, targets[ti] > 0 ? &st_small : &st, a, a);
            mpz_sub(za, o.m, za);
            from_mpz(a, f->n, za);
            check_mul(f, &o, targets[ti] > 0 ? &st_small : &st, a, a);
        }
    }
    /* c = m-1, m-2, m-3 never need the subtraction; small c must have needed it sometimes */
    assert_int_equal(st.fired, 0);
    assert_true(st_small.fired > 0);
    mpz_clears(za, zb, zc, t, NULL);
    oracle_clear(&o);
}

/* Outputs aliasing inputs (r = a, r = b, r = a = b) on the dispatched path. */
static void run_alias_fp(void)
{
    g16__fp_force_portable(0);
    for (int it = 0; it < tu_iters(20000) / 20 + 1; it++) {
        g16_fp a, b, want, r;
        tu_rand_fp(&a);
        tu_rand_fp(&b);
        g16__fp_mul_portable(&want, &a, &b);
        r = a;
        g16__fp_mul(&r, &r, &b);
        assert_memory_equal(&r, &want, sizeof r);
        r = b;
        g16__fp_mul(&r, &a, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fp_mul_portable(&want, &a, &a);
        r = a;
        g16__fp_mul(&r, &r, &r);
        assert_memory_equal(&r, &want, sizeof r);
        r = a;
        g16__fp_sqr(&r, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fp_sub(&want, &a, &b);
        r = a;
        g16__fp_sub(&r, &r, &b);
        assert_memory_equal(&r, &want, sizeof r);
        r = b;
        g16__fp_sub(&r, &a, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fp_add(&want, &a, &b);
        r = b;
        g16__fp_add(&r, &a, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fp_neg(&want, &a);
        r = a;
        g16__fp_neg(&r, &r);
        assert_memory_equal(&r, &want, sizeof r);
    }
}

static void run_alias_fr(void)
{
    g16__fr_force_portable(0);
    for (int it = 0; it < tu_iters(20000) / 20 + 1; it++) {
        g16_fr a, b, want, r;
        tu_rand_fr(&a);
        tu_rand_fr(&b);
        g16__fr_mul_portable(&want, &a, &b);
        r = a;
        g16__fr_mul(&r, &r, &b);
        assert_memory_equal(&r, &want, sizeof r);
        r = b;
        g16__fr_mul(&r, &a, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fr_mul_portable(&want, &a, &a);
        r = a;
        g16__fr_mul(&r, &r, &r);
        assert_memory_equal(&r, &want, sizeof r);
        r = a;
        g16__fr_sqr(&r, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fr_sub(&want, &a, &b);
        r = a;
        g16__fr_sub(&r, &r, &b);
        assert_memory_equal(&r, &want, sizeof r);
        r = b;
        g16__fr_sub(&r, &a, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fr_add(&want, &a, &b);
        r = b;
        g16__fr_add(&r, &a, &r);
        assert_memory_equal(&r, &want, sizeof r);
        g16__fr_neg(&want, &a);
        r = a;
        g16__fr_neg(&r, &r);
        assert_memory_equal(&r, &want, sizeof r);
    }
}

/* force_portable(1) must really switch the dispatch (the benchmarks and the tests rely on
 * it), and force_portable(0) must restore the CPUID choice. Long chains of dependent
 * multiplications on both settings must agree. */
static void run_force(const field *f)
{
    uint64_t x[MAXN], y[MAXN], a[MAXN], b[MAXN];
    rand_uniform(f, a);
    rand_uniform(f, b);
    memcpy(x, a, sizeof x);
    memcpy(y, a, sizeof y);
    f->force_portable(1);
    for (int i = 0; i < 1000; i++) {
        f->mul(x, x, b);
        f->sqr(x, x);
    }
    f->force_portable(0);
    for (int i = 0; i < 1000; i++) {
        f->mul(y, y, b);
        f->sqr(y, y);
    }
    assert_memory_equal(x, y, f->n * sizeof(uint64_t));
    assert_false(memcmp(x, a, f->n * sizeof(uint64_t)) == 0);
}

static void test_fp_random(void **state)
{
    (void)state;
    run_random(&FP);
}
static void test_fp_edges(void **state)
{
    (void)state;
    run_edges(&FP);
}
static void test_fp_boundary(void **state)
{
    (void)state;
    run_boundary(&FP);
}
static void test_fp_alias(void **state)
{
    (void)state;
    run_alias_fp();
}
static void test_fp_force(void **state)
{
    (void)state;
    run_force(&FP);
}
static void test_fr_random(void **state)
{
    (void)state;
    run_random(&FR);
}
static void test_fr_edges(void **state)
{
    (void)state;
    run_edges(&FR);
}
static void test_fr_boundary(void **state)
{
    (void)state;
    run_boundary(&FR);
}
static void test_fr_alias(void **state)
{
    (void)state;
    run_alias_fr();
}
static void test_fr_force(void **state)
{
    (void)state;
    run_force(&FR);
}

int main(void)
{
    tu_seed("test_field_paths");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp_random), cmocka_unit_test(test_fp_edges), cmocka_unit_test(test_fp_boundary),
        cmocka_unit_test(test_fp_alias),  cmocka_unit_test(test_fp_force), cmocka_unit_test(test_fr_random),
        cmocka_unit_test(test_fr_edges),  cmocka_unit_test(test_fr_boundary), cmocka_unit_test(test_fr_alias),
        cmocka_unit_test(test_fr_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
