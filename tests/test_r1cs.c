/* Constraint systems: building, compiled CSR contents and densities, domain size and its limit,
 * A·w / B·w / C·w against a naive evaluation, thread-count independence, witness checking. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "util/threads.h"

static g16_fr fr_u64(uint64_t v)
{
    g16_fr r;
    g16__fr_from_u64(&r, v);
    return r;
}

static g16_fr fr_neg_u64(uint64_t v)
{
    g16_fr r = fr_u64(v);
    g16__fr_neg(&r, &r);
    return r;
}

#define OK(expr) assert_int_equal((expr), G16_OK)

/* ---- the hand circuit ----
 * inputs ONE (col 0), x (col 1); aux a b c d e f g (cols 2..8), allocated interleaved with x.
 *   0: a · b = c
 *   1: (x + 2a + a) · 1 = d          (a merged to 3a)
 *   2: (b − b) · a = 0               (A empties: the terms cancel)
 *   3: (5c + 7·ONE + a) · 1 = e      (terms given out of order)
 *   4: x · x = f
 *   5: (c − a) · 1 = g               (coefficient −1)
 *   6, 7: input constraints
 * witness x=3 a=2 b=5 c=10 d=9 e=59 f=9 g=8. */
typedef struct {
    g16_cs *cs;
    g16_var x, a, b, c, d, e, f, g;
} hand;

static void hand_build(hand *h, unsigned flags)
{
    g16_lc *la, *lb, *lc;
    OK(g16_lc_create(&la));
    OK(g16_lc_create(&lb));
    OK(g16_lc_create(&lc));
    OK(g16_cs_create(&h->cs, flags));
    g16_fr v;
    v = fr_u64(2), OK(g16_cs_alloc_aux(h->cs, &v, &h->a, NULL));
    v = fr_u64(3), OK(g16_cs_alloc_input(h->cs, &v, &h->x, NULL));
    v = fr_u64(5), OK(g16_cs_alloc_aux(h->cs, &v, &h->b, NULL));
    v = fr_u64(10), OK(g16_cs_alloc_aux(h->cs, &v, &h->c, NULL));
    v = fr_u64(9), OK(g16_cs_alloc_aux(h->cs, &v, &h->d, NULL));
    v = fr_u64(59), OK(g16_cs_alloc_aux(h->cs, &v, &h->e, NULL));
    v = fr_u64(9), OK(g16_cs_alloc_aux(h->cs, &v, &h->f, NULL));
    v = fr_u64(8), OK(g16_cs_alloc_aux(h->cs, &v, &h->g, NULL));
    assert_int_equal(h->x, 1);
    assert_int_equal(h->a, G16_VAR_AUX | 0);
    assert_int_equal(h->g, G16_VAR_AUX | 6);

    g16_fr two = fr_u64(2), five = fr_u64(5), seven = fr_u64(7);
    OK(g16_lc_add(la, h->a, NULL));
    OK(g16_lc_add(lb, h->b, NULL));
    OK(g16_lc_add(lc, h->c, NULL));
    OK(g16_cs_enforce(h->cs, la, lb, lc, NULL));

    g16_lc_clear(la), g16_lc_clear(lb), g16_lc_clear(lc);
    OK(g16_lc_add(la, h->x, NULL));
    OK(g16_lc_add(la, h->a, &two));
    OK(g16_lc_add(la, h->a, NULL));
    OK(g16_lc_add(lb, G16_VAR_ONE, NULL));
    OK(g16_lc_add(lc, h->d, NULL));
    OK(g16_cs_enforce(h->cs, la, lb, lc, NULL));

    g16_lc_clear(la), g16_lc_clear(lb);
    OK(g16_lc_add(la, h->b, NULL));
    OK(g16_lc_sub(la, h->b, NULL));
    OK(g16_lc_add(lb, h->a, NULL));
    OK(g16_cs_enforce(h->cs, la, lb, NULL, NULL));

    g16_lc_clear(la), g16_lc_clear(lb), g16_lc_clear(lc);
    OK(g16_lc_add(la, h->c, &five));
    OK(g16_lc_add(la, G16_VAR_ONE, &seven));
    OK(g16_lc_add(la, h->a, NULL));
    OK(g16_lc_add(lb, G16_VAR_ONE, NULL));
    OK(g16_lc_add(lc, h->e, NULL));
    OK(g16_cs_enforce(h->cs, la, lb, lc, NULL));

    g16_lc_clear(la), g16_lc_clear(lb), g16_lc_clear(lc);
    OK(g16_lc_add(la, h->x, NULL));
    OK(g16_lc_add(lb, h->x, NULL));
    OK(g16_lc_add(lc, h->f, NULL));
    OK(g16_cs_enforce(h->cs, la, lb, lc, NULL));

    g16_lc_clear(la), g16_lc_clear(lb), g16_lc_clear(lc);
    OK(g16_lc_add(la, h->c, NULL));
    OK(g16_lc_sub(la, h->a, NULL));
    OK(g16_lc_add(lb, G16_VAR_ONE, NULL));
    OK(g16_lc_add(lc, h->g, NULL));
    OK(g16_cs_enforce(h->cs, la, lb, lc, NULL));

    g16_lc_destroy(la);
    g16_lc_destroy(lb);
    g16_lc_destroy(lc);
}

typedef struct {
    int n;
    uint32_t col[4];
    int64_t coeff[4]; /* small signed integers */
} want_row;

static void check_row(const g16_r1cs *r, g16_matrix m, uint64_t row, const want_row *w)
{
    uint32_t cols[8];
    g16_fr coeffs[8];
    size_t len;
    OK(g16_r1cs_row(r, m, row, cols, coeffs, 8, &len));
    assert_int_equal(len, w->n);
    for (int i = 0; i < w->n; i++) {
        assert_int_equal(cols[i], w->col[i]);
        g16_fr want = w->coeff[i] < 0 ? fr_neg_u64((uint64_t)-w->coeff[i]) : fr_u64((uint64_t)w->coeff[i]);
        assert_true(g16__fr_eq(&coeffs[i], &want));
    }
}

static void test_hand_csr(void **state)
{
    (void)state;
    hand h;
    hand_build(&h, G16_CS_WITNESS);
    assert_int_equal(g16_cs_num_inputs(h.cs), 2);
    assert_int_equal(g16_cs_num_aux(h.cs), 7);
    assert_int_equal(g16_cs_num_constraints(h.cs), 6);
    g16_r1cs *r;
    g16_error err;
    OK(g16_cs_finalize(h.cs, &r, &err));

    g16_r1cs_info info;
    g16_r1cs_get_info(r, &info);
    assert_int_equal(info.num_inputs, 2);
    assert_int_equal(info.num_aux, 7);
    assert_int_equal(info.num_constraints, 8);
    assert_int_equal(info.domain_size, 8);
    assert_int_equal(info.log_domain_size, 3);
    assert_int_equal(info.nnz[0], 1 + 2 + 0 + 3 + 1 + 2 + 2);
    assert_int_equal(info.nnz[1], 6);
    assert_int_equal(info.nnz[2], 5);
    assert_int_equal(info.num_coeffs, 5); /* 1, −1, 3, 7, 5 */

    static const want_row A[8] = {{1, {2}, {1}},       {2, {1, 2}, {1, 3}}, {0, {0}, {0}}, {3, {0, 2, 4}, {7, 1, 5}},
                                  {1, {1}, {1}},       {2, {2, 4}, {-1, 1}}, {1, {0}, {1}}, {1, {1}, {1}}};
    static const want_row B[8] = {{1, {3}, {1}}, {1, {0}, {1}}, {1, {2}, {1}}, {1, {0}, {1}},
                                  {1, {1}, {1}}, {1, {0}, {1}}, {0, {0}, {0}}, {0, {0}, {0}}};
    static const want_row C[8] = {{1, {4}, {1}}, {1, {5}, {1}}, {0, {0}, {0}}, {1, {6}, {1}},
                                  {1, {7}, {1}}, {1, {8}, {1}}, {0, {0}, {0}}, {0, {0}, {0}}};
    for (uint64_t i = 0; i < 8; i++) {
        check_row(r, G16_MATRIX_A, i, &A[i]);
        check_row(r, G16_MATRIX_B, i, &B[i]);
        check_row(r, G16_MATRIX_C, i, &C[i]);
    }
    size_t len;
    assert_int_equal(g16_r1cs_row(r, G16_MATRIX_A, 8, NULL, NULL, 0, &len), G16_ERR_ARG);
    OK(g16_r1cs_row(r, G16_MATRIX_A, 3, NULL, NULL, 0, &len)); /* length only */
    assert_int_equal(len, 3);

    /* densities: A aux = {a, c}; B inputs = {ONE, x}; B aux = {a, b} */
    uint64_t nbits;
    const uint64_t *d = g16_r1cs_density(r, G16_DENSITY_A_AUX, &nbits);
    assert_int_equal(nbits, 7);
    assert_int_equal(d[0], 0x5);
    d = g16_r1cs_density(r, G16_DENSITY_B_INPUT, &nbits);
    assert_int_equal(nbits, 2);
    assert_int_equal(d[0], 0x3);
    d = g16_r1cs_density(r, G16_DENSITY_B_AUX, &nbits);
    assert_int_equal(nbits, 7);
    assert_int_equal(d[0], 0x3);
    assert_int_equal(info.density[G16_DENSITY_A_AUX], 2);
    assert_int_equal(info.density[G16_DENSITY_B_INPUT], 2);
    assert_int_equal(info.density[G16_DENSITY_B_AUX], 2);
    assert_true(info.memory_bytes > 0);

    /* the witness is kept after finalize; the cs takes nothing more */
    g16_fr w[9];
    OK(g16_cs_witness(h.cs, w, 9, NULL));
    static const uint64_t wv[9] = {1, 3, 2, 5, 10, 9, 59, 9, 8};
    for (int i = 0; i < 9; i++) {
        g16_fr want = fr_u64(wv[i]);
        assert_true(g16__fr_eq(&w[i], &want));
    }
    g16_var v;
    assert_int_equal(g16_cs_alloc_aux(h.cs, &w[0], &v, &err), G16_ERR_ARG);
    assert_int_equal(g16_cs_enforce(h.cs, NULL, NULL, NULL, &err), G16_ERR_ARG);
    g16_r1cs *r2;
    assert_int_equal(g16_cs_finalize(h.cs, &r2, &err), G16_ERR_ARG);
    g16_fr got;
    OK(g16_cs_value(h.cs, h.e, &got));
    assert_true(g16__fr_eq(&got, &w[6]));
    assert_int_equal(g16_cs_value(h.cs, G16_VAR_AUX | 7, &got), G16_ERR_ARG);

    OK(g16_r1cs_check(r, w, 9, &err));
    g16_r1cs_destroy(r);
    g16_cs_destroy(h.cs);
}

/* "constraint N is not satisfied" -> N */
static long failing_index(const g16_error *err)
{
    const char *p = strstr(err->msg, "constraint ");
    assert_non_null(p);
    return strtol(p + strlen("constraint "), NULL, 10);
}

static void test_hand_check(void **state)
{
    (void)state;
    hand h;
    hand_build(&h, G16_CS_WITNESS);
    g16_r1cs *r;
    g16_error err;
    OK(g16_cs_finalize(h.cs, &r, &err));
    g16_fr w[9];
    OK(g16_cs_witness(h.cs, w, 9, NULL));
    assert_int_equal(g16_cs_witness(h.cs, w, 8, &err), G16_ERR_SIZE_MISMATCH);
    OK(g16_r1cs_check(r, w, 9, &err));

    /* column -> first row that fails when only that column is off by one */
    static const struct {
        int col;
        long row;
    } cases[] = {{1, 1}, {2, 0}, {3, 0}, {4, 0}, {5, 1}, {6, 3}, {7, 4}, {8, 5}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        g16_fr saved = w[cases[i].col], one = fr_u64(1);
        g16__fr_add(&w[cases[i].col], &w[cases[i].col], &one);
        memset(&err, 0, sizeof err);
        assert_int_equal(g16_r1cs_check(r, w, 9, &err), G16_ERR_UNSATISFIED);
        assert_int_equal(err.status, G16_ERR_UNSATISFIED);
        assert_int_equal(failing_index(&err), cases[i].row);
        w[cases[i].col] = saved;
    }
    g16_fr saved = w[0];
    w[0] = fr_u64(2);
    assert_int_equal(g16_r1cs_check(r, w, 9, &err), G16_ERR_UNSATISFIED);
    assert_non_null(strstr(err.msg, "ONE"));
    w[0] = saved;
    assert_int_equal(g16_r1cs_check(r, w, 8, &err), G16_ERR_SIZE_MISMATCH);
    assert_int_equal(g16_r1cs_check(r, w, 10, &err), G16_ERR_SIZE_MISMATCH);
    g16_fr out[8];
    assert_int_equal(g16_r1cs_eval(r, w, 9, out, NULL, NULL, 7, &err), G16_ERR_SIZE_MISMATCH);
    assert_int_equal(g16_r1cs_eval(r, w, 8, out, NULL, NULL, 8, &err), G16_ERR_SIZE_MISMATCH);
    g16_r1cs_destroy(r);
    g16_cs_destroy(h.cs);
}

static void test_build_errors(void **state)
{
    (void)state;
    g16_cs *cs;
    g16_lc *lc;
    g16_error err;
    g16_var a, b;
    OK(g16_lc_create(&lc));

    /* a cs without values ignores them; one with values needs them */
    OK(g16_cs_create(&cs, 0));
    OK(g16_cs_alloc_aux(cs, NULL, &a, &err));
    g16_fr v;
    assert_int_equal(g16_cs_value(cs, a, &v), G16_ERR_ARG);
    assert_int_equal(g16_cs_witness(cs, &v, 1, &err), G16_ERR_ARG);
    /* unknown variables leave the cs unchanged */
    OK(g16_lc_add(lc, G16_VAR_AUX | 1, NULL));
    assert_int_equal(g16_cs_enforce(cs, lc, NULL, NULL, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "aux variable 1"));
    g16_lc_clear(lc);
    OK(g16_lc_add(lc, 5, NULL));
    g16_lc *l17;
    g16_fr c17 = fr_u64(17);
    OK(g16_lc_create(&l17));
    OK(g16_lc_add(l17, a, &c17)); /* valid, with a new coefficient: must not reach the dictionary */
    assert_int_equal(g16_cs_enforce(cs, l17, lc, NULL, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "lc B"));
    g16_lc_destroy(l17);
    assert_int_equal(g16_cs_num_constraints(cs), 0);
    /* unconstrained aux: refused, cs unchanged, fine once constrained */
    g16_r1cs *r;
    OK(g16_cs_alloc_aux(cs, NULL, &b, &err));
    g16_lc_clear(lc);
    OK(g16_lc_add(lc, a, NULL));
    OK(g16_cs_enforce(cs, lc, lc, NULL, &err));
    assert_int_equal(g16_cs_finalize(cs, &r, &err), G16_ERR_ARG);
    assert_null(r);
    assert_non_null(strstr(err.msg, "aux variable 1 "));
    g16_lc_clear(lc);
    OK(g16_lc_add(lc, b, NULL));
    OK(g16_lc_sub(lc, b, NULL)); /* cancels: b still unconstrained */
    OK(g16_cs_enforce(cs, NULL, NULL, lc, &err));
    assert_int_equal(g16_cs_finalize(cs, &r, &err), G16_ERR_ARG);
    OK(g16_lc_add(lc, b, NULL));
    OK(g16_cs_enforce(cs, NULL, NULL, lc, &err));
    OK(g16_cs_finalize(cs, &r, &err));
    g16_r1cs_info info;
    g16_r1cs_get_info(r, &info);
    assert_int_equal(info.num_constraints, 4);
    assert_int_equal(info.nnz[2], 1);
    assert_int_equal(info.num_coeffs, 2); /* 1 and −1 only: the refused 17 left no trace */
    g16_r1cs_destroy(r);
    g16_cs_destroy(cs);

    OK(g16_cs_create(&cs, G16_CS_WITNESS));
    assert_int_equal(g16_cs_alloc_aux(cs, NULL, &a, &err), G16_ERR_ARG);
    g16_cs_destroy(cs);
    assert_int_equal(g16_cs_create(&cs, 2), G16_ERR_ARG);
    assert_null(cs);
    g16_cs_destroy(NULL);
    g16_lc_destroy(NULL);
    g16_r1cs_destroy(NULL);
    g16_lc_destroy(lc);
}

static void test_domain(void **state)
{
    (void)state;
    static const struct {
        uint64_t m, n;
        unsigned log_n;
    } cases[] = {{0, 1, 0}, {1, 1, 0}, {2, 2, 1}, {3, 4, 2}, {4, 4, 2}, {5, 8, 3}, {1023, 1024, 10},
                 {1024, 1024, 10}, {1025, 2048, 11}, {(1u << 28) - 1, 1u << 28, 28}, {1u << 28, 1u << 28, 28}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t n;
        unsigned log_n;
        assert_int_equal(g16__r1cs_domain(cases[i].m, G16__R1CS_MAX_LOG_N, &n, &log_n), 0);
        assert_int_equal(n, cases[i].n);
        assert_int_equal(log_n, cases[i].log_n);
    }
    uint64_t n = 7;
    unsigned log_n = 7;
    assert_int_equal(g16__r1cs_domain(((uint64_t)1 << 28) + 1, G16__R1CS_MAX_LOG_N, &n, &log_n), -1);
    assert_int_equal(g16__r1cs_domain(UINT64_MAX, G16__R1CS_MAX_LOG_N, &n, &log_n), -1);
    assert_int_equal(n, 7);

    /* the refusal through the API, with the limit lowered to 2^3 to stay small */
    g16_cs *cs;
    g16_error err;
    g16_var x, a;
    g16_lc *lc;
    OK(g16_lc_create(&lc));
    OK(g16_cs_create(&cs, 0));
    g16__cs_set_max_log_n(cs, 3);
    OK(g16_cs_alloc_input(cs, NULL, &x, &err));
    OK(g16_cs_alloc_aux(cs, NULL, &a, &err));
    OK(g16_lc_add(lc, a, NULL));
    for (int i = 0; i < 6; i++) /* 6 constraints + 2 inputs = 8 rows */
        OK(g16_cs_enforce(cs, lc, lc, lc, &err));
    assert_int_equal(g16_cs_enforce(cs, lc, lc, lc, &err), G16_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "2^3"));
    assert_int_equal(g16_cs_alloc_input(cs, NULL, &x, &err), G16_ERR_UNSUPPORTED);
    assert_int_equal(g16_cs_num_constraints(cs), 6);
    /* finalize refuses too when the limit drops below what was built, leaving cs unchanged */
    g16_r1cs *r;
    g16__cs_set_max_log_n(cs, 2);
    assert_int_equal(g16_cs_finalize(cs, &r, &err), G16_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "6 constraints + 2 input constraints"));
    g16__cs_set_max_log_n(cs, G16__R1CS_MAX_LOG_N);
    OK(g16_cs_finalize(cs, &r, &err));
    g16_r1cs_info info;
    g16_r1cs_get_info(r, &info);
    assert_int_equal(info.num_constraints, 8);
    assert_int_equal(info.domain_size, 8);
    g16_r1cs_destroy(r);
    g16_cs_destroy(cs);
    g16_lc_destroy(lc);
}

/* ---- random circuits against a naive evaluation ---- */

typedef struct {
    size_t len;
    g16_var var[12];
    g16_fr coeff[12];
} raw_lc;

static void rand_coeff(g16_fr *c)
{
    switch (tu_rand64() % 6) {
    case 0:
        g16__fr_set_zero(c);
        break;
    case 1:
    case 2:
        g16__fr_set_one(c);
        break;
    case 3:
        *c = fr_neg_u64(1);
        break;
    case 4:
        *c = fr_u64(tu_rand64() % 5); /* few distinct values: dictionary hits */
        break;
    default:
        tu_rand_fr(c);
    }
}

static g16_var rand_var(uint64_t ni, uint64_t na)
{
    uint64_t k = tu_rand64() % (ni + na);
    return k < ni ? (g16_var)k : (G16_VAR_AUX | (g16_var)(k - ni));
}

static uint64_t col_of(g16_var v, uint64_t ni) { return (v & G16_VAR_AUX) ? ni + (v & ~G16_VAR_AUX) : v; }

typedef struct {
    uint64_t ni, na, nc;
    raw_lc *lcs; /* 3 per constraint */
    g16_r1cs *r;
    g16_fr *w; /* random (unsatisfying) witness */
} rand_circuit;

static void rand_circuit_build(rand_circuit *rc, uint64_t ni, uint64_t na, uint64_t nc)
{
    g16_cs *cs;
    g16_lc *lc[3];
    g16_error err;
    rc->ni = ni, rc->na = na, rc->nc = nc + 1;
    rc->lcs = calloc(3 * rc->nc, sizeof(raw_lc));
    rc->w = malloc((ni + na) * sizeof(g16_fr));
    assert_non_null(rc->lcs);
    assert_non_null(rc->w);
    for (int k = 0; k < 3; k++)
        OK(g16_lc_create(&lc[k]));
    OK(g16_cs_create(&cs, 0));
    for (uint64_t i = 1; i < ni; i++) {
        g16_var v;
        OK(g16_cs_alloc_input(cs, NULL, &v, &err));
    }
    for (uint64_t i = 0; i < na; i++) {
        g16_var v;
        OK(g16_cs_alloc_aux(cs, NULL, &v, &err));
    }
    for (uint64_t i = 0; i < rc->nc; i++) {
        for (int k = 0; k < 3; k++) {
            raw_lc *l = &rc->lcs[3 * i + k];
            g16_lc_clear(lc[k]);
            if (i + 1 == rc->nc) { /* the last row holds every aux in C so that none is unconstrained */
                if (k == 2)
                    for (uint64_t j = 0; j < na; j++)
                        OK(g16_lc_add(lc[k], G16_VAR_AUX | (g16_var)j, NULL));
                continue;
            }
            l->len = tu_rand64() % 12;
            for (size_t t = 0; t < l->len; t++) {
                /* repeat earlier variables now and then to exercise merging */
                l->var[t] = (t > 0 && tu_rand64() % 4 == 0) ? l->var[tu_rand64() % t] : rand_var(ni, na);
                rand_coeff(&l->coeff[t]);
                OK(g16_lc_add(lc[k], l->var[t], &l->coeff[t]));
            }
        }
        OK(g16_cs_enforce(cs, lc[0], lc[1], lc[2], &err));
    }
    OK(g16_cs_finalize(cs, &rc->r, &err));
    g16__fr_set_one(&rc->w[0]);
    for (uint64_t i = 1; i < ni + na; i++)
        tu_rand_fr(&rc->w[i]);
    g16_cs_destroy(cs);
    for (int k = 0; k < 3; k++)
        g16_lc_destroy(lc[k]);
}

static void rand_circuit_free(rand_circuit *rc)
{
    free(rc->lcs);
    free(rc->w);
    g16_r1cs_destroy(rc->r);
}

static g16_fr naive_dot(const raw_lc *l, const g16_fr *w, uint64_t ni)
{
    g16_fr acc, t;
    g16__fr_set_zero(&acc);
    for (size_t i = 0; i < l->len; i++) {
        g16__fr_mul(&t, &w[col_of(l->var[i], ni)], &l->coeff[i]);
        g16__fr_add(&acc, &acc, &t);
    }
    return acc;
}

/* The merged coefficient of column col in lc l. */
static g16_fr merged(const raw_lc *l, uint64_t col, uint64_t ni)
{
    g16_fr acc;
    g16__fr_set_zero(&acc);
    for (size_t i = 0; i < l->len; i++)
        if (col_of(l->var[i], ni) == col)
            g16__fr_add(&acc, &acc, &l->coeff[i]);
    return acc;
}

static void test_random_vs_naive(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(6); it++) {
        rand_circuit rc;
        uint64_t ni = 1 + tu_rand64() % 6, na = 1 + tu_rand64() % 40, nc = tu_rand64() % 300;
        rand_circuit_build(&rc, ni, na, nc);
        g16_r1cs_info info;
        g16_r1cs_get_info(rc.r, &info);
        uint64_t m = rc.nc + ni;
        assert_int_equal(info.num_constraints, m);
        uint64_t n = 1;
        while (n < m)
            n *= 2;
        assert_int_equal(info.domain_size, n);

        g16_fr *out[3];
        for (int k = 0; k < 3; k++) {
            out[k] = malloc(n * sizeof(g16_fr));
            assert_non_null(out[k]);
            memset(out[k], 0xab, n * sizeof(g16_fr)); /* the padding must be overwritten */
        }
        g16_error err;
        OK(g16_r1cs_eval(rc.r, rc.w, ni + na, out[0], out[1], out[2], n, &err));
        for (uint64_t i = 0; i < n; i++) {
            for (int k = 0; k < 3; k++) {
                g16_fr want;
                if (i < rc.nc)
                    want = naive_dot(&rc.lcs[3 * i + k], rc.w, ni);
                else if (i < m && k == 0)
                    want = rc.w[i - rc.nc]; /* input constraint: input_k in A */
                else
                    g16__fr_set_zero(&want);
                if (i + 1 == rc.nc && k == 2) { /* the all-aux row */
                    g16__fr_set_zero(&want);
                    for (uint64_t j = 0; j < na; j++)
                        g16__fr_add(&want, &want, &rc.w[ni + j]);
                }
                assert_true(g16__fr_eq(&out[k][i], &want));
            }
        }
        /* each row is normalized: strictly increasing columns, no zero coefficient, and the
         * merged coefficients of the raw terms */
        uint32_t cols[64];
        g16_fr coeffs[64];
        for (uint64_t i = 0; i + 1 < rc.nc; i++) {
            for (int k = 0; k < 3; k++) {
                size_t len;
                OK(g16_r1cs_row(rc.r, (g16_matrix)k, i, cols, coeffs, 64, &len));
                for (size_t j = 0; j < len; j++) {
                    if (j > 0)
                        assert_true(cols[j] > cols[j - 1]);
                    assert_false(g16__fr_is_zero(&coeffs[j]));
                    g16_fr want = merged(&rc.lcs[3 * i + k], cols[j], ni);
                    assert_true(g16__fr_eq(&coeffs[j], &want));
                }
                size_t want_len = 0;
                for (uint64_t c = 0; c < ni + na; c++) {
                    g16_fr mc = merged(&rc.lcs[3 * i + k], c, ni);
                    want_len += !g16__fr_is_zero(&mc);
                }
                assert_int_equal(len, want_len);
            }
        }
        /* densities from the merged coefficients */
        uint64_t dens_count[3] = {0, 0, 0};
        for (uint64_t c = 0; c < ni + na; c++) {
            int in_a = 0, in_b = 0;
            for (uint64_t i = 0; i + 1 < rc.nc; i++) {
                g16_fr ma = merged(&rc.lcs[3 * i], c, ni), mb = merged(&rc.lcs[3 * i + 1], c, ni);
                in_a |= !g16__fr_is_zero(&ma);
                in_b |= !g16__fr_is_zero(&mb);
            }
            uint64_t nbits;
            if (c < ni) {
                const uint64_t *d = g16_r1cs_density(rc.r, G16_DENSITY_B_INPUT, &nbits);
                assert_int_equal(nbits, ni);
                assert_int_equal((d[c / 64] >> (c % 64)) & 1, in_b);
                dens_count[G16_DENSITY_B_INPUT] += in_b;
            } else {
                uint64_t j = c - ni;
                const uint64_t *da = g16_r1cs_density(rc.r, G16_DENSITY_A_AUX, &nbits);
                const uint64_t *db = g16_r1cs_density(rc.r, G16_DENSITY_B_AUX, &nbits);
                assert_int_equal(nbits, na);
                assert_int_equal((da[j / 64] >> (j % 64)) & 1, in_a);
                assert_int_equal((db[j / 64] >> (j % 64)) & 1, in_b);
                dens_count[G16_DENSITY_A_AUX] += in_a;
                dens_count[G16_DENSITY_B_AUX] += in_b;
            }
        }
        for (int k = 0; k < 3; k++)
            assert_int_equal(info.density[k], dens_count[k]);
        for (int k = 0; k < 3; k++)
            free(out[k]);
        rand_circuit_free(&rc);
    }
}

/* The demo circuit's evaluation and check give identical results on 1 thread and on all. */
static void test_threads_identical(void **state)
{
    (void)state;
    g16_cs *cs;
    g16_r1cs *r;
    g16_error err;
    uint64_t m = 1u << 15;
    OK(g16_demo_circuit(&cs, G16_DEMO_FIELD, m, tu_rand64(), &err));
    OK(g16_cs_finalize(cs, &r, &err));
    size_t nw = (size_t)(g16_cs_num_inputs(cs) + g16_cs_num_aux(cs));
    g16_fr *w = malloc(nw * sizeof(g16_fr));
    g16_fr *out[2][3];
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 3; k++)
            assert_non_null(out[t][k] = malloc(m * sizeof(g16_fr)));
    OK(g16_cs_witness(cs, w, nw, &err));
    size_t bad = 1 + tu_rand64() % (nw - 1);
    tu_rand_fr(&w[bad]); /* make it fail somewhere, so the first-failure search is exercised */
    char msg[2][256];
    for (int t = 0; t < 2; t++) {
        int prev = g16__threads_set_limit(t == 0 ? 1 : 0);
        OK(g16_r1cs_eval(r, w, nw, out[t][0], out[t][1], out[t][2], m, &err));
        assert_int_equal(g16_r1cs_check(r, w, nw, &err), G16_ERR_UNSATISFIED);
        strcpy(msg[t], err.msg);
        g16__threads_set_limit(prev);
    }
    for (int k = 0; k < 3; k++)
        assert_memory_equal(out[0][k], out[1][k], m * sizeof(g16_fr));
    assert_string_equal(msg[0], msg[1]);
    /* the reported row is the first i with a_i·b_i != c_i */
    uint64_t first = UINT64_MAX;
    for (uint64_t i = 0; i < m && first == UINT64_MAX; i++) {
        g16_fr ab;
        g16__fr_mul(&ab, &out[0][0][i], &out[0][1][i]);
        if (!g16__fr_eq(&ab, &out[0][2][i]))
            first = i;
    }
    assert_int_equal(failing_index(&err), first);
    fprintf(stderr, "threads: %d, first failing row %llu\n", g16__nthreads(), (unsigned long long)first);
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 3; k++)
            free(out[t][k]);
    free(w);
    g16_r1cs_destroy(r);
    g16_cs_destroy(cs);
}

/* The check on evaluated rows (what the prover runs) gives g16_r1cs_check's status and message:
 * satisfied, one bad aux value (several seeds: the first failing row moves), w[0] != 1, and the
 * argument errors; both demo kinds. */
static void test_check_evals(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        g16_cs *cs;
        g16_r1cs *r;
        g16_error e1, e2;
        uint64_t m = 5000;
        OK(g16_demo_circuit(&cs, kind ? G16_DEMO_FIELD : G16_DEMO_BITS, m, tu_rand64(), &e1));
        OK(g16_cs_finalize(cs, &r, &e1));
        g16_r1cs_info info;
        g16_r1cs_get_info(r, &info);
        size_t nw = (size_t)(info.num_inputs + info.num_aux), n = (size_t)info.domain_size;
        g16_fr *w = malloc(nw * sizeof(g16_fr)), *abc = malloc(3 * n * sizeof(g16_fr));
        assert_non_null(w);
        assert_non_null(abc);
        OK(g16_cs_witness(cs, w, nw, &e1));
        for (int t = 0; t < 6; t++) {
            if (t > 0 && t < 5) { /* t = 1..4: one more wrong aux value each round */
                size_t bad = (size_t)info.num_inputs + tu_rand64() % info.num_aux;
                g16_fr shift;
                tu_rand_fr(&shift);
                g16__fr_add(&w[bad], &w[bad], &shift);
            } else if (t == 5) {
                g16__fr_set_zero(&w[0]);
            }
            OK(g16_r1cs_eval(r, w, nw, abc, abc + n, abc + 2 * n, n, &e1));
            memset(&e1, 0, sizeof e1);
            memset(&e2, 0, sizeof e2);
            g16_status s1 = g16_r1cs_check(r, w, nw, &e1);
            g16_status s2 = g16__r1cs_check_evals(r, w, nw, abc, abc + n, abc + 2 * n, &e2);
            assert_int_equal(s1, s2);
            assert_string_equal(e1.msg, e2.msg);
            /* without c on the host (C·w row by row): the same; the c vector poisoned, unread */
            memset(&e2, 0, sizeof e2);
            memset(abc + 2 * n, 0x5a, n * sizeof(g16_fr));
            assert_int_equal(g16__r1cs_check_evals(r, w, nw, abc, abc + n, NULL, &e2), s1);
            assert_string_equal(e1.msg, e2.msg);
            g16_error e4;
            OK(g16_r1cs_eval(r, w, nw, NULL, NULL, abc + 2 * n, n, &e4)); /* c back for the loop below */
            /* the halves the GPU worker composes (the first failing row found on the device,
             * here by a host loop): the same status and message */
            g16_error e3;
            memset(&e3, 0, sizeof e3);
            uint64_t first_bad = UINT64_MAX;
            for (uint64_t i = 0; i < info.num_constraints && first_bad == UINT64_MAX; i++) {
                g16_fr ab;
                g16__fr_mul(&ab, &abc[i], &abc[n + i]);
                if (!g16__fr_eq(&ab, &abc[2 * n + i]))
                    first_bad = i;
            }
            g16_status s3 = g16__r1cs_check_witness(r, w, nw, &e3);
            if (s3 == G16_OK)
                s3 = g16__r1cs_row_verdict(r, first_bad, &e3);
            assert_int_equal(s1, s3);
            assert_string_equal(e1.msg, e3.msg);
            if (t == 0)
                assert_int_equal(s2, G16_OK);
            if (t == 5)
                assert_int_equal(s2, G16_ERR_UNSATISFIED);
        }
        assert_int_equal(g16__r1cs_check_evals(r, w, nw - 1, abc, abc + n, abc + 2 * n, &e2), G16_ERR_SIZE_MISMATCH);
        assert_int_equal(g16__r1cs_check_witness(r, w, nw - 1, &e2), G16_ERR_SIZE_MISMATCH);
        assert_int_equal(g16__r1cs_check_witness(r, NULL, nw, &e2), G16_ERR_ARG);
        assert_int_equal(g16__r1cs_check_evals(r, w, nw, abc, NULL, abc + 2 * n, &e2), G16_ERR_ARG);
        assert_int_equal(g16__r1cs_check_evals(r, w, nw, NULL, abc + n, NULL, &e2), G16_ERR_ARG);
        assert_int_equal(g16__r1cs_check_evals(r, NULL, nw, abc, abc + n, abc + 2 * n, &e2), G16_ERR_ARG);
        free(w);
        free(abc);
        g16_r1cs_destroy(r);
        g16_cs_destroy(cs);
    }
}

static void demo_check(g16_demo_kind kind, uint64_t m)
{
    g16_cs *cs;
    g16_r1cs *r;
    g16_error err;
    OK(g16_demo_circuit(&cs, kind, m, 42 + m, &err));
    OK(g16_cs_finalize(cs, &r, &err));
    g16_r1cs_info info;
    g16_r1cs_get_info(r, &info);
    assert_int_equal(info.num_constraints, m);
    uint64_t n = 1;
    while (n < m)
        n *= 2;
    assert_int_equal(info.domain_size, n);
    assert_int_equal(info.num_inputs, kind == G16_DEMO_BITS ? 5 : 3);
    size_t nw = (size_t)(info.num_inputs + info.num_aux);
    g16_fr *w = malloc(nw * sizeof(g16_fr));
    assert_non_null(w);
    OK(g16_cs_witness(cs, w, nw, &err));
    OK(g16_r1cs_check(r, w, nw, &err));
    /* value distribution: bits mostly 0/1, field almost never */
    uint64_t small = 0;
    for (size_t i = 0; i < nw; i++)
        small += g16__fr_is_zero(&w[i]) || g16__fr_is_one(&w[i]);
    double frac = (double)small / (double)nw;
    if (kind == G16_DEMO_BITS)
        assert_true(frac > 0.9);
    else
        assert_true(frac < 0.01);
    /* one wrong aux value breaks it (a random shift: +1 would keep a filler bit 0 boolean) */
    size_t bad = (size_t)info.num_inputs + tu_rand64() % info.num_aux;
    g16_fr shift;
    tu_rand_fr(&shift);
    g16__fr_add(&w[bad], &w[bad], &shift);
    assert_int_equal(g16_r1cs_check(r, w, nw, &err), G16_ERR_UNSATISFIED);
    fprintf(stderr, "%s m=%llu: aux %llu, nnz %llu/%llu/%llu, coeffs %llu, %.1f bytes/row, 0/1 values %.3f\n",
            kind == G16_DEMO_BITS ? "bits" : "field", (unsigned long long)m, (unsigned long long)info.num_aux,
            (unsigned long long)info.nnz[0], (unsigned long long)info.nnz[1], (unsigned long long)info.nnz[2],
            (unsigned long long)info.num_coeffs, (double)info.memory_bytes / (double)m, frac);
    free(w);
    g16_r1cs_destroy(r);
    g16_cs_destroy(cs);
}

static void test_demo(void **state)
{
    (void)state;
    static const uint64_t sizes[] = {512, 1000, 1u << 10, 1u << 12, (1u << 14) - 3, 1u << 16};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        demo_check(G16_DEMO_BITS, sizes[i]);
        demo_check(G16_DEMO_FIELD, sizes[i]);
    }
    g16_cs *cs;
    g16_error err;
    assert_int_equal(g16_demo_circuit(&cs, G16_DEMO_BITS, 511, 1, &err), G16_ERR_ARG);
    assert_int_equal(g16_demo_circuit(&cs, G16_DEMO_FIELD, ((uint64_t)1 << 28) + 1, 1, &err), G16_ERR_ARG);
    assert_int_equal(g16_demo_circuit(&cs, (g16_demo_kind)7, 1024, 1, &err), G16_ERR_ARG);
}

static void test_demo_deterministic(void **state)
{
    (void)state;
    for (int kind = 0; kind < 2; kind++) {
        g16_fr *w[3];
        size_t nw[3];
        uint64_t seeds[3] = {7, 7, 8};
        for (int t = 0; t < 3; t++) {
            g16_cs *cs;
            g16_error err;
            OK(g16_demo_circuit(&cs, (g16_demo_kind)kind, 4096, seeds[t], &err));
            nw[t] = (size_t)(g16_cs_num_inputs(cs) + g16_cs_num_aux(cs));
            w[t] = malloc(nw[t] * sizeof(g16_fr));
            OK(g16_cs_witness(cs, w[t], nw[t], &err));
            g16_cs_destroy(cs);
        }
        assert_int_equal(nw[0], nw[1]);
        assert_memory_equal(w[0], w[1], nw[0] * sizeof(g16_fr));
        assert_int_equal(nw[0], nw[2]);
        assert_memory_not_equal(w[0], w[2], nw[0] * sizeof(g16_fr));
        for (int t = 0; t < 3; t++)
            free(w[t]);
    }
}

static void test_lc_ops(void **state)
{
    (void)state;
    /* add_lc with scale, self-append, sub with a coefficient, through a constraint's row */
    g16_cs *cs;
    g16_lc *l1, *l2;
    g16_error err;
    g16_var a, b;
    OK(g16_cs_create(&cs, 0));
    OK(g16_lc_create(&l1));
    OK(g16_lc_create(&l2));
    OK(g16_cs_alloc_aux(cs, NULL, &a, &err));
    OK(g16_cs_alloc_aux(cs, NULL, &b, &err));
    g16_fr three = fr_u64(3), four = fr_u64(4);
    OK(g16_lc_add(l1, a, &three)); /* 3a */
    OK(g16_lc_add_lc(l1, l1, NULL)); /* 6a */
    OK(g16_lc_sub(l2, b, &four));  /* −4b */
    OK(g16_lc_add_lc(l1, l2, &three)); /* 6a − 12b */
    OK(g16_lc_add(l1, G16_VAR_ONE, NULL));
    OK(g16_cs_enforce(cs, l1, NULL, l1, &err));
    g16_r1cs *r;
    OK(g16_cs_finalize(cs, &r, &err));
    want_row want = {3, {0, 1, 2}, {1, 6, -12}};
    check_row(r, G16_MATRIX_A, 0, &want);
    check_row(r, G16_MATRIX_C, 0, &want);
    g16_r1cs_destroy(r);
    g16_cs_destroy(cs);
    g16_lc_destroy(l1);
    g16_lc_destroy(l2);
}

int main(void)
{
    tu_seed("r1cs");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_csr),        cmocka_unit_test(test_hand_check),
        cmocka_unit_test(test_build_errors),    cmocka_unit_test(test_domain),
        cmocka_unit_test(test_lc_ops),          cmocka_unit_test(test_random_vs_naive),
        cmocka_unit_test(test_threads_identical),
        cmocka_unit_test(test_check_evals), cmocka_unit_test(test_demo),
        cmocka_unit_test(test_demo_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
