/* The strict JSON reader (accepted and refused documents, limits, mutation robustness), decimal
 * text of field elements against GMP, and the snarkjs JSON files: round trips of vk, proof and
 * public values, snarkjs's own files, and every refusal (protocol, curve, counts, point forms,
 * off-curve and off-subgroup points, values out of range). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "compat/json.h"
#include "compat/snarkjs.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/pairing.h"
#include "field/fp.h"
#include "field/fr.h"
#include "groth16/groth16.h"
#include "util/alloc.h"

#define OK(expr) assert_int_equal((expr), G16_OK)

static g16_status parse(g16__json_doc *d, const char *s, g16_error *err)
{
    return g16__json_parse(d, s, strlen(s), "t.json", err);
}

static void test_json_accept(void **state)
{
    (void)state;
    g16__json_doc d;
    g16_error err;
    OK(parse(&d, " {\"a\": [1, -2.5e+3, 0, 0.25, true, false, null], \"b\": {\"c\": \"x\\ny\\u00e9\\ud83d\\ude00\"},"
                 " \"\": \"\", \"d\": []}\r\n\t", &err));
    const g16__json *a = g16__json_get(d.root, "a"), *b = g16__json_get(d.root, "b");
    assert_int_equal(d.root->len, 4);
    assert_int_equal(a->type, G16__JSON_ARRAY);
    assert_int_equal(a->len, 7);
    assert_string_equal(g16__json_at(a, 1)->str, "-2.5e+3");
    assert_int_equal(g16__json_at(a, 4)->type, G16__JSON_TRUE);
    assert_int_equal(g16__json_at(a, 6)->type, G16__JSON_NULL);
    assert_null(g16__json_at(a, 7));
    const g16__json *c = g16__json_get(b, "c");
    assert_string_equal(c->str, "x\ny\xc3\xa9\xf0\x9f\x98\x80");
    assert_int_equal(c->len, 9);
    assert_string_equal(g16__json_get(d.root, "")->str, "");
    assert_int_equal(g16__json_get(d.root, "d")->len, 0);
    assert_null(g16__json_get(d.root, "zz"));
    assert_null(g16__json_get(a, "a")); /* not an object */
    g16__json_free(&d);
    /* scalars at the top level, raw UTF-8, escapes of every kind */
    OK(parse(&d, "7", &err));
    assert_string_equal(d.root->str, "7");
    g16__json_free(&d);
    OK(parse(&d, "\"\xe2\x82\xac \\\" \\\\ \\/ \\b \\f \\r \\t\"", &err));
    assert_string_equal(d.root->str, "\xe2\x82\xac \" \\ / \b \f \r \t");
    g16__json_free(&d);
    /* nesting up to the limit */
    char deep[2 * G16__JSON_MAX_DEPTH + 1];
    for (int i = 0; i < G16__JSON_MAX_DEPTH; i++)
        deep[i] = '[', deep[2 * G16__JSON_MAX_DEPTH - 1 - i] = ']';
    deep[2 * G16__JSON_MAX_DEPTH] = 0;
    OK(parse(&d, deep, &err));
    g16__json_free(&d);
    /* text need not be terminated: only len bytes are read */
    OK(g16__json_parse(&d, "[1]xyz", 3, "t", &err));
    g16__json_free(&d);
}

static void test_json_refuse(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "", " ", "{", "[", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "{\"a\":1 \"b\":2}", "[1 2]", "01", "-",
        "1.", ".5", "1e", "+1", "--1", "0x10", "tru", "nul", "True", "[1]]", "{} {}", "\"abc", "\"a\\x\"",
        "\"\\u12\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\u0000\"", "\"\x01\"", "\"\xff\"",
        "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\xe2\x82\"", "{\"a\":1,\"a\":2}",
        "[NaN]", "[Infinity]", "/*c*/1", "1 //c", "['a']", "\xef\xbb\xbf[1]", "{\"a\":1,\"b\":{\"c\":2,\"c\":3}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        g16__json_doc d;
        g16_error err = {0};
        g16_status st = parse(&d, bad[i], &err);
        if (st != G16_ERR_FORMAT)
            fail_msg("accepted or wrong status (%d) for case %zu", st, i);
        assert_non_null(strstr(err.msg, "t.json: invalid JSON at line 1, column"));
        assert_null(d.root);
    }
    /* one level too deep */
    char deep[2 * G16__JSON_MAX_DEPTH + 3];
    for (int i = 0; i <= G16__JSON_MAX_DEPTH; i++)
        deep[i] = '[', deep[2 * G16__JSON_MAX_DEPTH + 1 - i] = ']';
    deep[2 * G16__JSON_MAX_DEPTH + 2] = 0;
    g16__json_doc d;
    g16_error err;
    assert_int_equal(parse(&d, deep, &err), G16_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "nested"));
    /* the position: line and column of the error */
    assert_int_equal(parse(&d, "{\n  \"a\": [1,\n   2,,3]}", &err), G16_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "line 3, column 6"));
    /* a large object: the duplicate check is not quadratic and still finds the pair */
    size_t n = 20000;
    char *big = malloc(n * 16 + 16), *p = big;
    p += sprintf(p, "{");
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s\"k%zu\":%zu", i ? "," : "", i == n - 1 ? (size_t)77 : i, i);
    sprintf(p, "}");
    assert_int_equal(parse(&d, big, &err), G16_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "duplicate"));
    free(big);
}

/* Random documents mutated byte by byte: the reader never crashes, and what it accepts it
 * accepts whole (the tree is consistent). */
static void test_json_mutations(void **state)
{
    (void)state;
    const char *seed = "{\"pi_a\": [\"1\", \"2\", \"1\"], \"x\": [true, false, null, -1.5e-3, {\"y\": \"\\u00e9\"}]}";
    size_t n = strlen(seed);
    char *buf = malloc(n + 8);
    for (int it = 0; it < tu_iters(20000); it++) {
        memcpy(buf, seed, n);
        size_t len = n;
        int k = 1 + (int)(tu_rand64() % 4);
        for (int j = 0; j < k; j++) {
            uint64_t r = tu_rand64();
            size_t at = (size_t)(r >> 8) % len;
            switch (r & 3) {
            case 0: buf[at] = (char)(r >> 32); break;
            case 1: buf[at] = "{}[],:\"\\ 0-e.tfnu"[(r >> 32) % 17]; break;
            case 2: len = at + 1; break;
            default: buf[at] ^= (char)(1u << ((r >> 40) & 7)); break;
            }
        }
        g16__json_doc d;
        g16_error err = {0};
        g16_status st = g16__json_parse(&d, buf, len, "m", &err);
        assert_true(st == G16_OK || st == G16_ERR_FORMAT);
        if (st == G16_OK) {
            assert_non_null(d.root);
            g16__json_free(&d);
        } else {
            assert_true(err.msg[0] != 0);
        }
    }
    free(buf);
}

static void test_jbuf(void **state)
{
    (void)state;
    g16__jbuf b = {0};
    g16__jbuf_puts(&b, "[");
    g16__jbuf_string(&b, "a\"b\\c\n\x01");
    g16__jbuf_printf(&b, ",%d]", 42);
    char *s = g16__jbuf_take(&b);
    assert_string_equal(s, "[\"a\\\"b\\\\c\\u000a\\u0001\",42]");
    g16__json_doc d;
    OK(g16__json_parse(&d, s, strlen(s), "t", NULL));
    assert_string_equal(g16__json_at(d.root, 0)->str, "a\"b\\c\n\x01");
    g16__json_free(&d);
    free(s);
    s = g16__jbuf_take(&b); /* nothing written: an empty string */
    assert_string_equal(s, "");
    free(s);
}

/* ---------------------------------------------------------------- decimal */

static void test_decimal(void **state)
{
    (void)state;
    mpz_t z, m;
    mpz_inits(z, m, NULL);
    char d[G16__DEC_MAX], *ref;
    for (int it = 0; it < tu_iters(500); it++) {
        g16_fp a, b;
        g16_fr x, y;
        tu_rand_fp(&a);
        tu_rand_fr(&x);
        if (it == 0)
            g16__fp_set_zero(&a), g16__fr_set_zero(&x);
        if (it == 1) { /* p - 1 and r - 1 */
            g16__fp_set_one(&a), g16__fp_neg(&a, &a);
            g16__fr_set_one(&x), g16__fr_neg(&x, &x);
        }
        g16__fp_to_decimal(d, &a);
        tu_fp_to_mpz(z, &a);
        ref = mpz_get_str(NULL, 10, z);
        assert_string_equal(d, ref);
        free(ref);
        OK(g16__fp_from_decimal(&b, d, strlen(d)));
        assert_true(g16__fp_eq(&a, &b));
        g16__fr_to_decimal(d, &x);
        tu_fr_to_mpz(z, &x);
        ref = mpz_get_str(NULL, 10, z);
        assert_string_equal(d, ref);
        free(ref);
        OK(g16__fr_from_decimal(&y, d, strlen(d)));
        assert_true(g16__fr_eq(&x, &y));
    }
    /* the moduli themselves and values above are out of range; bad text is a format error */
    g16_fp a;
    g16_fr x;
    tu_mpz_p(m);
    ref = mpz_get_str(NULL, 10, m);
    assert_int_equal(g16__fp_from_decimal(&a, ref, strlen(ref)), G16_ERR_COORD_RANGE);
    free(ref);
    tu_mpz_r(m);
    ref = mpz_get_str(NULL, 10, m);
    assert_int_equal(g16__fr_from_decimal(&x, ref, strlen(ref)), G16_ERR_SCALAR_RANGE);
    free(ref);
    mpz_ui_pow_ui(m, 10, 200);
    ref = mpz_get_str(NULL, 10, m);
    assert_int_equal(g16__fr_from_decimal(&x, ref, strlen(ref)), G16_ERR_SCALAR_RANGE);
    assert_int_equal(g16__fp_from_decimal(&a, ref, 116), G16_ERR_COORD_RANGE); /* 10^115 > p */
    OK(g16__fp_from_decimal(&a, ref, 115));                                      /* 10^114 < p */
    free(ref);
    static const char *const bad[] = {"", "-1", "+1", "01", "00", "1.0", "1e3", " 1", "0x1", "١"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(g16__fr_from_decimal(&x, bad[i], strlen(bad[i])), G16_ERR_FORMAT);
    OK(g16__fr_from_decimal(&x, "0", 1));
    assert_true(g16__fr_is_zero(&x));
    mpz_clears(z, m, NULL);
}

/* ---------------------------------------------------------------- snarkjs files */

static void rand_p1(g16_p1_affine *r)
{
    g16_p1 p;
    g16_fr k;
    tu_rand_fr(&k);
    g16__p1_generator(&p);
    g16__p1_mul_var(&p, &p, &k);
    g16__p1_to_affine(r, &p);
}

static void rand_p2(g16_p2_affine *r)
{
    g16_p2 p;
    g16_fr k;
    tu_rand_fr(&k);
    g16__p2_generator(&p);
    g16__p2_mul_var(&p, &p, &k);
    g16__p2_to_affine(r, &p);
}

static g16_vk *rand_vk(uint64_t n_ic)
{
    struct g16_vk *vk = calloc(1, sizeof *vk);
    vk->n_ic = n_ic;
    vk->ic = g16__alloc_large_zero(n_ic, sizeof *vk->ic);
    rand_p1(&vk->alpha_g1);
    rand_p2(&vk->beta_g2);
    rand_p2(&vk->gamma_g2);
    rand_p2(&vk->delta_g2);
    for (uint64_t i = 0; i < n_ic; i++)
        rand_p1(&vk->ic[i]);
    if (n_ic > 2)
        memset(&vk->ic[1], 0, sizeof vk->ic[1]); /* infinity survives the round trip */
    return vk;
}

static void assert_vk_eq(const g16_vk *a, const g16_vk *b)
{
    assert_true(g16__p1_affine_eq(&a->alpha_g1, &b->alpha_g1));
    assert_true(g16__p2_affine_eq(&a->beta_g2, &b->beta_g2));
    assert_true(g16__p2_affine_eq(&a->gamma_g2, &b->gamma_g2));
    assert_true(g16__p2_affine_eq(&a->delta_g2, &b->delta_g2));
    assert_int_equal(a->n_ic, b->n_ic);
    for (uint64_t i = 0; i < a->n_ic; i++)
        assert_true(g16__p1_affine_eq(&a->ic[i], &b->ic[i]));
}

static void test_snarkjs_roundtrip(void **state)
{
    (void)state;
    g16_error err;
    for (int it = 0; it < tu_iters(4); it++) {
        g16_vk *vk = rand_vk(1 + (uint64_t)it * 2), *back = NULL;
        char *s = g16__snarkjs_vk_json(vk);
        assert_non_null(s);
        OK(g16__snarkjs_vk_read(&back, s, strlen(s), "vk.json", &err));
        assert_vk_eq(vk, back);
        /* the writer's layout is stable: writing the read key gives the same text */
        char *s2 = g16__snarkjs_vk_json(back);
        assert_string_equal(s, s2);
        free(s);
        free(s2);
        g16_vk_destroy(vk);
        g16_vk_destroy(back);

        g16_proof p, q;
        rand_p1(&p.a);
        rand_p2(&p.b);
        rand_p1(&p.c);
        if (it == 1)
            memset(&p.b, 0, sizeof p.b); /* infinity in G2 */
        s = g16__snarkjs_proof_json(&p);
        OK(g16__snarkjs_proof_read(&q, s, strlen(s), "proof.json", &err));
        assert_true(g16__p1_affine_eq(&p.a, &q.a) && g16__p2_affine_eq(&p.b, &q.b) && g16__p1_affine_eq(&p.c, &q.c));
        free(s);

        size_t n = (size_t)it * 3, m;
        g16_fr in[16], *out = NULL;
        for (size_t i = 0; i < n; i++)
            tu_rand_fr(&in[i]);
        s = g16__snarkjs_public_json(in, n);
        OK(g16__snarkjs_public_read(&out, &m, s, strlen(s), "public.json", &err));
        assert_int_equal(m, n);
        for (size_t i = 0; i < n; i++)
            assert_true(g16__fr_eq(&in[i], &out[i]));
        free(out);
        free(s);
    }
}

/* Replaces the first occurrence of from by to in a copy of s. */
static char *replace(const char *s, const char *from, const char *to)
{
    const char *at = strstr(s, from);
    assert_non_null(at);
    size_t n = strlen(s) + strlen(to) + 1;
    char *r = malloc(n);
    snprintf(r, n, "%.*s%s%s", (int)(at - s), s, to, at + strlen(from));
    return r;
}

static void expect_vk_error(const char *text, g16_status want, const char *needle)
{
    g16_vk *vk = NULL;
    g16_error err = {0};
    g16_status st = g16__snarkjs_vk_read(&vk, text, strlen(text), "vk.json", &err);
    if (st != want || !strstr(err.msg, needle))
        fail_msg("status %d (want %d), message '%s' (want '%s')", st, want, err.msg, needle);
    assert_null(vk);
}

static void test_snarkjs_refusals(void **state)
{
    (void)state;
    g16_vk *vk = rand_vk(3);
    char *s = g16__snarkjs_vk_json(vk), *t;
    char dec[G16__DEC_MAX], bigger[G16__DEC_MAX + 4];
#define CASE(from, to, st, needle)                                                                             \
    do {                                                                                                       \
        t = replace(s, from, to);                                                                              \
        expect_vk_error(t, st, needle);                                                                        \
        free(t);                                                                                               \
    } while (0)
    CASE("\"groth16\"", "\"plonk\"", G16_ERR_UNSUPPORTED, "protocol is \"plonk\"; g16 handles groth16 only");
    CASE("\"protocol\"", "\"protocolx\"", G16_ERR_FORMAT, "protocol (line 1): missing");
    CASE("\"bls12381\"", "\"bn128\"", G16_ERR_UNSUPPORTED, "curve is \"bn128\"");
    CASE("\"bls12381\"", "7", G16_ERR_UNSUPPORTED, "curve is a JSON number");
    CASE("\"nPublic\": 2", "\"nPublic\": 3", G16_ERR_SIZE_MISMATCH, "nPublic is 3 but IC has 3 points");
    CASE("\"nPublic\": 2", "\"nPublic\": -2", G16_ERR_FORMAT, "nPublic");
    CASE("\"IC\"", "\"ICx\"", G16_ERR_FORMAT, "IC: missing");
    CASE("\"vk_gamma_2\"", "\"vk_gamma_x\"", G16_ERR_FORMAT, "vk_gamma_2: missing");
    /* point forms: z, infinity spelling, arity, element types */
    t = replace(s, "\"1\"\n ],\n \"vk_beta_2\"", "\"2\"\n ],\n \"vk_beta_2\"");
    expect_vk_error(t, G16_ERR_FORMAT, "vk_alpha_1 (line");
    expect_vk_error(t, G16_ERR_FORMAT, "z must be \"1\"");
    free(t);
    CASE("\"1\"\n ],\n \"vk_beta_2\"", "\"1\", \"1\"\n ],\n \"vk_beta_2\"", G16_ERR_FORMAT, "array of 3 elements, found 4");
    /* a JSON integer is accepted where snarkjs writes a decimal string */
    t = replace(s, "\"1\"\n ],\n \"vk_beta_2\"", "1\n ],\n \"vk_beta_2\"");
    g16_vk *vk2 = NULL;
    OK(g16__snarkjs_vk_read(&vk2, t, strlen(t), "vk.json", NULL));
    assert_vk_eq(vk, vk2);
    g16_vk_destroy(vk2);
    free(t);
    /* coordinate >= p, not on the curve, not in the subgroup */
    g16__fp_to_decimal(dec, &vk->alpha_g1.x);
    mpz_t z;
    mpz_init(z);
    tu_fp_to_mpz(z, &vk->alpha_g1.x);
    mpz_t p;
    mpz_init(p);
    tu_mpz_p(p);
    mpz_add(z, z, p);
    mpz_get_str(bigger, 10, z);
    CASE(dec, bigger, G16_ERR_COORD_RANGE, "vk_alpha_1[0] (line");
    g16_fp x1 = vk->alpha_g1.x;
    g16__fp_add(&x1, &x1, &g16__fp_one);
    char dec2[G16__DEC_MAX];
    g16__fp_to_decimal(dec2, &x1);
    CASE(dec, dec2, G16_ERR_NOT_ON_CURVE, "not on the BLS12-381 G1 curve");
    CASE(dec, "01", G16_ERR_FORMAT, "not a canonical decimal");
    /* a point of G1's curve outside the subgroup: x = 0 gives y^2 = 4, y = 2, of order 3 */
    char ic1[512];
    g16_p1_affine ic = vk->ic[2];
    char xd[G16__DEC_MAX], yd[G16__DEC_MAX];
    g16__fp_to_decimal(xd, &ic.x);
    g16__fp_to_decimal(yd, &ic.y);
    snprintf(ic1, sizeof ic1, "\"%s\",\n   \"%s\"", xd, yd);
    CASE(ic1, "\"0\",\n   \"2\"", G16_ERR_NOT_IN_SUBGROUP, "IC[2] (line");
    CASE(ic1, "\"0\",\n   \"0\"", G16_ERR_NOT_ON_CURVE, "IC[2]");
    /* infinity must be written [0, 1, 0] */
    t = replace(s, "\"0\",\n   \"1\",\n   \"0\"", "\"0\",\n   \"0\",\n   \"0\"");
    expect_vk_error(t, G16_ERR_FORMAT, "z = 0 is infinity");
    free(t);
    /* vk_alphabeta_12 must be e(alpha, beta) when present; absent is fine */
    g16_fp12 ab;
    char abd[G16__DEC_MAX];
    g16__pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
    g16__fp_to_decimal(abd, &ab.c0.c0.c0);
    t = replace(s, abd, "5");
    expect_vk_error(t, G16_ERR_FORMAT, "does not equal e(vk_alpha_1, vk_beta_2)");
    free(t);
    t = replace(s, "\"vk_alphabeta_12\"", "\"vk_alphabeta_xx\"");
    g16_vk *vk3 = NULL;
    OK(g16__snarkjs_vk_read(&vk3, t, strlen(t), "vk.json", NULL));
    g16_vk_destroy(vk3);
    free(t);
    CASE("{", "[", G16_ERR_FORMAT, "invalid JSON");
    expect_vk_error("[]", G16_ERR_FORMAT, "expected a JSON object, found array");
    /* G2: z must be [1, 0] */
    t = replace(s, "\"1\",\n   \"0\"\n  ]\n ],\n \"vk_gamma_2\"", "\"1\",\n   \"1\"\n  ]\n ],\n \"vk_gamma_2\"");
    expect_vk_error(t, G16_ERR_FORMAT, "vk_beta_2");
    free(t);
    free(s);
    mpz_clears(z, p, NULL);

    /* proof.json: protocol and curve checked when present; public.json: values below r */
    g16_proof pr;
    rand_p1(&pr.a);
    rand_p2(&pr.b);
    rand_p1(&pr.c);
    s = g16__snarkjs_proof_json(&pr);
    g16_error err = {0};
    g16_proof q;
    t = replace(s, "\"groth16\"", "\"fflonk\"");
    assert_int_equal(g16__snarkjs_proof_read(&q, t, strlen(t), "proof.json", &err), G16_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "fflonk"));
    free(t);
    t = replace(s, "\"bls12381\"", "\"BLS12-381\"");
    OK(g16__snarkjs_proof_read(&q, t, strlen(t), "proof.json", &err));
    free(t);
    t = replace(s, "\"pi_c\"", "\"pi_x\"");
    assert_int_equal(g16__snarkjs_proof_read(&q, t, strlen(t), "proof.json", &err), G16_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "pi_c: missing"));
    free(t);
    free(s);
    g16_fr *in = NULL;
    size_t n;
    const char *r_text = "[\"52435875175126190479447740508185965837690552500527637822603658699938581184513\"]";
    assert_int_equal(g16__snarkjs_public_read(&in, &n, r_text, strlen(r_text), "public.json", &err),
                     G16_ERR_SCALAR_RANGE);
    assert_non_null(strstr(err.msg, "public.json: [0]"));
    OK(g16__snarkjs_public_read(&in, &n, "[1, \"2\"]", 8, "public.json", &err));
    assert_int_equal(n, 2);
    free(in);
    assert_int_equal(g16__snarkjs_public_read(&in, &n, "[1.5]", 5, "public.json", &err), G16_ERR_FORMAT);
    assert_int_equal(g16__snarkjs_public_read(&in, &n, "{}", 2, "public.json", &err), G16_ERR_FORMAT);
    OK(g16__snarkjs_public_read(&in, &n, "[]", 2, "public.json", &err));
    assert_int_equal(n, 0);
    assert_true(g16__snarkjs_curve_is_bls12381("bls12-381") && g16__snarkjs_curve_is_bls12381("BLS12_381") &&
                !g16__snarkjs_curve_is_bls12381("bn128") && !g16__snarkjs_curve_is_bls12381("bls12377"));
    g16_vk_destroy(vk);
#undef CASE
}

int main(void)
{
    tu_seed("compat_json");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_json_accept),       cmocka_unit_test(test_json_refuse),
        cmocka_unit_test(test_json_mutations),    cmocka_unit_test(test_jbuf),
        cmocka_unit_test(test_decimal),           cmocka_unit_test(test_snarkjs_roundtrip),
        cmocka_unit_test(test_snarkjs_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
