/* NTT over Fr: against a naive O(n^2) DFT built from the same roots, round trips, linearity, the
 * Groth16 quotient (checked at a random point against A·B - C = H·(X^n - 1)), thread-count
 * independence, and domain argument errors. Generators 7 (bellman) and 5 (snarkjs). */
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "poly/ntt.h"
#include "util/threads.h"

static g16_fr *fr_array(size_t n)
{
    g16_fr *p = malloc((n ? n : 1) * sizeof *p);
    assert_non_null(p);
    return p;
}

static void rand_vec(g16_fr *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tu_rand_fr(&x[i]);
}

static void assert_vec_eq(const g16_fr *x, const g16_fr *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!g16__fr_eq(&x[i], &y[i]))
            fail_msg("element %zu of %zu differs", i, n);
}

/* Horner: Σ c[j]·t^j. */
static void poly_eval(g16_fr *r, const g16_fr *c, size_t n, const g16_fr *t)
{
    g16_fr acc;
    g16__fr_set_zero(&acc);
    for (size_t j = n; j-- > 0;) {
        g16__fr_mul(&acc, &acc, t);
        g16__fr_add(&acc, &acc, &c[j]);
    }
    *r = acc;
}

/* out[i] = Σ_j in[j]·(shift·w^i)^j. */
static void naive_dft(g16_fr *out, const g16_fr *in, size_t n, const g16_fr *w, const g16_fr *shift)
{
    g16_fr pt = *shift;
    for (size_t i = 0; i < n; i++) {
        poly_eval(&out[i], in, n, &pt);
        g16__fr_mul(&pt, &pt, w);
    }
}

static void fr_u64(g16_fr *r, uint64_t v) { g16__fr_from_u64(r, v); }

static g16__ntt_domain *make_domain(unsigned k, uint64_t gen, const g16_fr *shift)
{
    g16_fr g;
    fr_u64(&g, gen);
    g16__ntt_domain *d = NULL;
    g16_error err = {0, ""};
    g16_status st = g16__ntt_domain_create(&d, k, &g, shift, &err);
    if (st != G16_OK)
        fail_msg("domain 2^%u gen %llu: %s", k, (unsigned long long)gen, err.msg);
    return d;
}

/* All four transforms of one domain against the naive DFT with roots computed here. */
static void check_naive(unsigned k, uint64_t gen, const g16_fr *shift_opt)
{
    size_t n = (size_t)1 << k;
    g16__ntt_domain *d = make_domain(k, gen, shift_opt);
    g16_fr g, w, w_inv, one, ninv, shift, shift_inv;
    fr_u64(&g, gen);
    assert_int_equal(g16__fr_root_of_unity_from(&w, &g, k), 0);
    g16__fr_inv(&w_inv, &w);
    g16__fr_set_one(&one);
    fr_u64(&ninv, n);
    g16__fr_inv(&ninv, &ninv);
    shift = shift_opt ? *shift_opt : g;
    g16__fr_inv(&shift_inv, &shift);
    assert_true(g16__fr_eq(&d->omega, &w));

    g16_fr *x = fr_array(n), *y = fr_array(n), *want = fr_array(n);
    rand_vec(x, n);

    memcpy(y, x, n * sizeof *y); /* forward */
    g16__ntt_forward(d, y);
    naive_dft(want, x, n, &w, &one);
    assert_vec_eq(y, want, n);

    memcpy(y, x, n * sizeof *y); /* inverse: n^-1·Σ x_i ω^-ij */
    g16__ntt_inverse(d, y);
    naive_dft(want, x, n, &w_inv, &one);
    for (size_t j = 0; j < n; j++)
        g16__fr_mul(&want[j], &want[j], &ninv);
    assert_vec_eq(y, want, n);

    memcpy(y, x, n * sizeof *y); /* coset forward: values at shift·ω^i */
    g16__ntt_coset_forward(d, y);
    naive_dft(want, x, n, &w, &shift);
    assert_vec_eq(y, want, n);

    memcpy(y, x, n * sizeof *y); /* coset inverse: coef_j = n^-1·shift^-j·Σ x_i ω^-ij */
    g16__ntt_coset_inverse(d, y);
    naive_dft(want, x, n, &w_inv, &one);
    g16_fr sp = ninv;
    for (size_t j = 0; j < n; j++) {
        g16__fr_mul(&want[j], &want[j], &sp);
        g16__fr_mul(&sp, &sp, &shift_inv);
    }
    assert_vec_eq(y, want, n);

    free(x);
    free(y);
    free(want);
    g16__ntt_domain_destroy(d);
}

static void test_vs_naive(void **state)
{
    (void)state;
    for (unsigned k = 0; k <= 8; k++) {
        check_naive(k, 7, NULL);
        check_naive(k, 5, NULL);
        /* snarkjs's shape: roots from 5, coset shifted by a primitive 2n-th root */
        g16_fr five, w2n;
        fr_u64(&five, 5);
        g16__fr_root_of_unity_from(&w2n, &five, k + 1);
        check_naive(k, 5, &w2n);
        /* an arbitrary shift (nonzero, shift^n != 1 with overwhelming probability) */
        g16_fr s;
        tu_rand_fr(&s);
        check_naive(k, 7, &s);
    }
}

static void check_roundtrip(unsigned k, uint64_t gen)
{
    size_t n = (size_t)1 << k;
    g16__ntt_domain *d = make_domain(k, gen, NULL);
    g16_fr *x = fr_array(n), *y = fr_array(n);
    rand_vec(x, n);
    memcpy(y, x, n * sizeof *y);
    g16__ntt_forward(d, y);
    assert_false(g16__fr_eq(&y[n / 2], &x[n / 2]) && g16__fr_eq(&y[1], &x[1])); /* it did something */
    g16__ntt_inverse(d, y);
    assert_vec_eq(y, x, n);
    g16__ntt_inverse(d, y);
    g16__ntt_forward(d, y);
    assert_vec_eq(y, x, n);
    g16__ntt_coset_forward(d, y);
    g16__ntt_coset_inverse(d, y);
    assert_vec_eq(y, x, n);
    /* one spot check of the coset transform at a large size against Horner */
    g16__ntt_coset_forward(d, y);
    size_t i = tu_rand64() % n;
    g16_fr pt, v;
    uint64_t e = i;
    g16__fr_pow(&pt, &d->omega, &e, 1);
    g16__fr_mul(&pt, &pt, &d->g);
    poly_eval(&v, x, n, &pt);
    assert_true(g16__fr_eq(&v, &y[i]));
    free(x);
    free(y);
    g16__ntt_domain_destroy(d);
}

static void test_roundtrip(void **state)
{
    (void)state;
    for (unsigned k = 9; k <= 16; k++)
        check_roundtrip(k, k % 2 ? 7 : 5);
}

/* One large size: forward then inverse. 2^20 costs ~11 M multiplications per transform, so the
 * sanitizer build (several times slower) uses 2^18 to stay within the time budget. */
#if defined(__SANITIZE_ADDRESS__)
#define LARGE_LOG 18
#else
#define LARGE_LOG 20
#endif
static void test_roundtrip_large(void **state)
{
    (void)state;
    size_t n = (size_t)1 << LARGE_LOG;
    g16__ntt_domain *d = make_domain(LARGE_LOG, 7, NULL);
    g16_fr *x = fr_array(n), *y = fr_array(n);
    rand_vec(x, n);
    memcpy(y, x, n * sizeof *y);
    g16__ntt_forward(d, y);
    g16_fr v; /* spot check: y[1] = X(ω) */
    poly_eval(&v, x, n, &d->omega);
    assert_true(g16__fr_eq(&v, &y[1]));
    g16__ntt_inverse(d, y);
    assert_vec_eq(y, x, n);
    free(x);
    free(y);
    g16__ntt_domain_destroy(d);
}

static void test_linearity(void **state)
{
    (void)state;
    unsigned k = 12;
    size_t n = (size_t)1 << k;
    g16__ntt_domain *d = make_domain(k, 7, NULL);
    g16_fr *x = fr_array(n), *y = fr_array(n), *z = fr_array(n), al, be, t;
    for (int op = 0; op < 3; op++) {
        rand_vec(x, n);
        rand_vec(y, n);
        tu_rand_fr(&al);
        tu_rand_fr(&be);
        for (size_t i = 0; i < n; i++) {
            g16__fr_mul(&z[i], &x[i], &al);
            g16__fr_mul(&t, &y[i], &be);
            g16__fr_add(&z[i], &z[i], &t);
        }
        void (*f)(const g16__ntt_domain *, g16_fr *) =
            op == 0 ? g16__ntt_forward : op == 1 ? g16__ntt_inverse : g16__ntt_coset_forward;
        f(d, x);
        f(d, y);
        f(d, z);
        for (size_t i = 0; i < n; i++) {
            g16__fr_mul(&x[i], &x[i], &al);
            g16__fr_mul(&t, &y[i], &be);
            g16__fr_add(&x[i], &x[i], &t);
        }
        assert_vec_eq(z, x, n);
    }
    free(x);
    free(y);
    free(z);
    g16__ntt_domain_destroy(d);
}

/* C(τ) for the polynomial of degree < n with values c[i] at ω^i (barycentric Lagrange form):
 * C(τ) = (τ^n - 1)/n · Σ c_i·ω^i/(τ - ω^i). τ must not be in the domain. */
static void interp_eval(g16_fr *r, const g16_fr *c, const g16__ntt_domain *d, const g16_fr *tau)
{
    g16_fr acc, wi = g16__fr_one, t, zt;
    g16__fr_set_zero(&acc);
    for (size_t i = 0; i < d->n; i++) {
        g16__fr_sub(&t, tau, &wi);
        g16__fr_inv_var(&t, &t);
        g16__fr_mul(&t, &t, &wi);
        g16__fr_mul(&t, &t, &c[i]);
        g16__fr_add(&acc, &acc, &t);
        g16__fr_mul(&wi, &wi, &d->omega);
    }
    zt = *tau;
    for (unsigned i = 0; i < d->log_n; i++)
        g16__fr_sqr(&zt, &zt);
    g16__fr_sub(&zt, &zt, &g16__fr_one);
    g16__fr_mul(&acc, &acc, &zt);
    g16__fr_mul(r, &acc, &d->n_inv);
}

/* Satisfied case: c = a·b on the domain, so A·B - C vanishes on <ω> and H = (A·B - C)/Z exactly. */
static void check_h(unsigned k, uint64_t gen)
{
    size_t n = (size_t)1 << k;
    g16__ntt_domain *d = make_domain(k, gen, NULL);
    g16_fr *A = fr_array(n), *B = fr_array(n), *a = fr_array(n), *b = fr_array(n), *c = fr_array(n);
    rand_vec(A, n);
    rand_vec(B, n);
    if (k <= 8) {
        g16_fr one = g16__fr_one;
        naive_dft(a, A, n, &d->omega, &one);
        naive_dft(b, B, n, &d->omega, &one);
    } else {
        memcpy(a, A, n * sizeof *a);
        memcpy(b, B, n * sizeof *b);
        g16__ntt_forward(d, a);
        g16__ntt_forward(d, b);
    }
    for (size_t i = 0; i < n; i++)
        g16__fr_mul(&c[i], &a[i], &b[i]);
    g16_fr tau, va, vb, vc, vh, zt, lhs, rhs;
    tu_rand_fr(&tau);
    interp_eval(&vc, c, d, &tau);

    g16__ntt_groth16_h(d, a, b, c);

    assert_true(g16__fr_is_zero(&a[n - 1])); /* deg H <= n - 2 */
    poly_eval(&va, A, n, &tau);
    poly_eval(&vb, B, n, &tau);
    poly_eval(&vh, a, n, &tau);
    zt = tau;
    for (unsigned i = 0; i < k; i++)
        g16__fr_sqr(&zt, &zt);
    g16__fr_sub(&zt, &zt, &g16__fr_one);
    g16__fr_mul(&lhs, &va, &vb);
    g16__fr_sub(&lhs, &lhs, &vc);
    g16__fr_mul(&rhs, &vh, &zt);
    assert_true(g16__fr_eq(&lhs, &rhs));
    if (k >= 2) /* a nonzero quotient for random A, B (overwhelming probability) */
        assert_false(g16__fr_is_zero(&vh));
    free(A);
    free(B);
    free(a);
    free(b);
    free(c);
    g16__ntt_domain_destroy(d);
}

static void test_groth16_h(void **state)
{
    (void)state;
    static const unsigned ks[] = {0, 1, 2, 3, 5, 8, 10, 12};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        check_h(ks[i], 7);
        check_h(ks[i], 5);
    }
}

/* Unsatisfied input: the step still returns H with H(gω^i)·(g^n - 1) = a_i·b_i - c_i on the coset. */
static void test_groth16_h_unsatisfied(void **state)
{
    (void)state;
    unsigned k = 6;
    size_t n = (size_t)1 << k;
    g16__ntt_domain *d = make_domain(k, 7, NULL);
    g16_fr *a = fr_array(n), *b = fr_array(n), *c = fr_array(n), *ca = fr_array(n), *cb = fr_array(n),
           *cc = fr_array(n);
    rand_vec(a, n);
    rand_vec(b, n);
    rand_vec(c, n);
    memcpy(ca, a, n * sizeof *a); /* reference: coset values through the public transforms */
    memcpy(cb, b, n * sizeof *b);
    memcpy(cc, c, n * sizeof *c);
    g16__ntt_inverse(d, ca);
    g16__ntt_inverse(d, cb);
    g16__ntt_inverse(d, cc);
    g16__ntt_coset_forward(d, ca);
    g16__ntt_coset_forward(d, cb);
    g16__ntt_coset_forward(d, cc);
    g16__ntt_groth16_h(d, a, b, c);
    g16_fr pt = d->g, vh, lhs, rhs;
    for (size_t i = 0; i < n; i++) {
        poly_eval(&vh, a, n, &pt);
        g16__fr_mul(&rhs, &vh, &d->z_coset);
        g16__fr_mul(&lhs, &ca[i], &cb[i]);
        g16__fr_sub(&lhs, &lhs, &cc[i]);
        assert_true(g16__fr_eq(&lhs, &rhs));
        g16__fr_mul(&pt, &pt, &d->omega);
    }
    free(a);
    free(b);
    free(c);
    free(ca);
    free(cb);
    free(cc);
    g16__ntt_domain_destroy(d);
}

/* groth16_h's six transforms against bellman's seven through the public transforms (a, b, c to
 * coset values, (a·b - c)/(g^n - 1), coset inverse), bit for bit, on any input: satisfied or not,
 * both generators, a random coset shift, sizes that take the block phase only and column passes. */
static void test_groth16_h_bellman_sequence(void **state)
{
    (void)state;
    static const unsigned ks[] = {0, 1, 4, 9, 13, 15};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        unsigned k = ks[t];
        size_t n = (size_t)1 << k;
        g16_fr shift;
        tu_rand_fr(&shift);
        g16__ntt_domain *d = make_domain(k, t % 2 ? 5 : 7, t % 3 == 2 ? &shift : NULL);
        g16_fr *a = fr_array(n), *b = fr_array(n), *c = fr_array(n), *ra = fr_array(n), *rb = fr_array(n),
               *rc = fr_array(n);
        rand_vec(a, n);
        rand_vec(b, n);
        for (size_t i = 0; i < n; i++) /* satisfied but for one point */
            g16__fr_mul(&c[i], &a[i], &b[i]);
        tu_rand_fr(&c[n / 2]);
        memcpy(ra, a, n * sizeof *a);
        memcpy(rb, b, n * sizeof *b);
        memcpy(rc, c, n * sizeof *c);
        g16_fr *v[3] = {ra, rb, rc};
        for (int j = 0; j < 3; j++) {
            g16__ntt_inverse(d, v[j]);
            g16__ntt_coset_forward(d, v[j]);
        }
        for (size_t i = 0; i < n; i++) {
            g16__fr_mul(&ra[i], &ra[i], &rb[i]);
            g16__fr_sub(&ra[i], &ra[i], &rc[i]);
            g16__fr_mul(&ra[i], &ra[i], &d->z_coset_inv);
        }
        g16__ntt_coset_inverse(d, ra);
        g16__ntt_groth16_h(d, a, b, c);
        assert_vec_eq(a, ra, n);
        free(a);
        free(b);
        free(c);
        free(ra);
        free(rb);
        free(rc);
        g16__ntt_domain_destroy(d);
    }
}

/* Other shapes (tiny blocks, several column passes of 1..7 stages) give the same results. */
static void test_tunings(void **state)
{
    (void)state;
    static const g16__ntt_tuning tunes[] = {{1, 1}, {2, 2}, {3, 3}, {4, 7}, {5, 4}, {10, 1}, {12, 5}};
    g16__ntt_tuning saved = g16__ntt_tune;
    for (size_t t = 0; t < sizeof tunes / sizeof tunes[0]; t++) {
        g16__ntt_tune = tunes[t];
        for (unsigned k = 0; k <= 8; k += 2)
            check_naive(k, k % 4 ? 5 : 7, NULL);
        check_roundtrip(13, 7);
        check_h(9, 5);
    }
    g16__ntt_tune = saved;
}

/* One thread and the whole pool must give the same bits. */
static void test_thread_counts(void **state)
{
    (void)state;
    static const unsigned ks[] = {11, 13};
    for (size_t t = 0; t < sizeof ks / sizeof ks[0]; t++) {
        unsigned k = ks[t];
        size_t n = (size_t)1 << k;
        g16__ntt_domain *d = make_domain(k, 7, NULL);
        g16_fr *x[2][3];
        for (int v = 0; v < 2; v++)
            for (int j = 0; j < 3; j++)
                x[v][j] = fr_array(n);
        for (int j = 0; j < 3; j++) {
            rand_vec(x[0][j], n);
            memcpy(x[1][j], x[0][j], n * sizeof(g16_fr));
        }
        for (int v = 0; v < 2; v++) {
            int old = g16__threads_set_limit(v == 0 ? 1 : 0);
            g16__ntt_forward(d, x[v][0]);
            g16__ntt_coset_inverse(d, x[v][0]);
            g16__ntt_inverse(d, x[v][1]);
            g16__ntt_coset_forward(d, x[v][1]);
            g16__ntt_groth16_h(d, x[v][2], x[v][0], x[v][1]);
            g16__threads_set_limit(old);
        }
        for (int j = 0; j < 3; j++)
            assert_vec_eq(x[0][j], x[1][j], n);
        for (int v = 0; v < 2; v++)
            for (int j = 0; j < 3; j++)
                free(x[v][j]);
        g16__ntt_domain_destroy(d);
    }
}

static void expect_create_error(unsigned k, const g16_fr *gen, const g16_fr *shift, g16_status want)
{
    g16__ntt_domain *d = (g16__ntt_domain *)1;
    g16_error err = {0, ""};
    assert_int_equal(g16__ntt_domain_create(&d, k, gen, shift, &err), want);
    assert_null(d);
    assert_int_equal(err.status, want);
    assert_true(strlen(err.msg) > 0);
}

static void test_domain(void **state)
{
    (void)state;
    g16_fr seven, four, zero, w;
    fr_u64(&seven, 7);
    fr_u64(&four, 4); /* a square */
    g16__fr_set_zero(&zero);
    expect_create_error(G16__NTT_MAX_LOG + 1, &seven, NULL, G16_ERR_ARG);
    expect_create_error(40, &seven, NULL, G16_ERR_ARG);
    expect_create_error(4, &four, NULL, G16_ERR_ARG);
    expect_create_error(4, &seven, &zero, G16_ERR_ARG);
    expect_create_error(4, &seven, &g16__fr_one, G16_ERR_ARG); /* 1^n = 1 */
    g16__fr_root_of_unity(&w, 3);
    expect_create_error(4, &seven, &w, G16_ERR_ARG); /* w^16 = 1 */
    expect_create_error(4, NULL, NULL, G16_ERR_ARG);
    assert_int_equal(g16__ntt_domain_create(NULL, 4, &seven, NULL, NULL), G16_ERR_ARG);
    g16__ntt_domain_destroy(NULL);

    assert_int_equal(g16__ntt_log_size(0), 0);
    assert_int_equal(g16__ntt_log_size(1), 0);
    assert_int_equal(g16__ntt_log_size(2), 1);
    assert_int_equal(g16__ntt_log_size(3), 2);
    assert_int_equal(g16__ntt_log_size(1000), 10);
    assert_int_equal(g16__ntt_log_size(1024), 10);
    assert_int_equal(g16__ntt_log_size(1025), 11);
    assert_int_equal(g16__ntt_log_size((size_t)1 << 28), 28);
    assert_int_equal(g16__ntt_log_size(((size_t)1 << 28) + 1), -1);

    for (unsigned k = 0; k <= 16; k += 4) {
        g16__ntt_domain *d = make_domain(k, 7, NULL);
        g16_fr t = d->omega, m1, nn;
        for (unsigned i = 0; i < k; i++) {
            if (i + 1 == k) {
                g16__fr_neg(&m1, &g16__fr_one);
                assert_true(g16__fr_eq(&t, &m1)); /* primitive: ω^(n/2) = -1 */
            }
            g16__fr_sqr(&t, &t);
        }
        assert_true(g16__fr_is_one(&t));
        g16__fr_mul(&t, &d->omega, &d->omega_inv);
        assert_true(g16__fr_is_one(&t));
        g16__fr_mul(&t, &d->g, &d->g_inv);
        assert_true(g16__fr_is_one(&t));
        g16__fr_mul(&t, &d->z_coset, &d->z_coset_inv);
        assert_true(g16__fr_is_one(&t));
        fr_u64(&nn, d->n);
        g16__fr_mul(&t, &nn, &d->n_inv);
        assert_true(g16__fr_is_one(&t));
        assert_true(g16__fr_eq(&d->g, &seven));
        g16__ntt_domain_destroy(d);
    }
}

int main(void)
{
    setenv("G16_THREADS", "4", 0); /* several workers even on a small machine, unless set */
    tu_seed("test_ntt");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_domain),        cmocka_unit_test(test_vs_naive),
        cmocka_unit_test(test_roundtrip),     cmocka_unit_test(test_linearity),
        cmocka_unit_test(test_groth16_h),     cmocka_unit_test(test_groth16_h_unsatisfied),
        cmocka_unit_test(test_groth16_h_bellman_sequence),
        cmocka_unit_test(test_tunings),       cmocka_unit_test(test_thread_counts), cmocka_unit_test(test_roundtrip_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
