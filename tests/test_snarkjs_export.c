/* Parameters written by `snarkjs zkey export bellman` (tests/data/snarkjs/mul_bellman.params,
 * exported from mul.zkey by tools/snarkjs/make_fixtures.sh with snarkjs 0.7.6): the loader's
 * snarkjs mode (points at infinity as zero bytes in a/b dropped, bellman's filtered layout, the
 * same points as the zkey's), the circom circuit built as bellman builds circuits, proofs equal to
 * the zkey prover's with the same r and s and valid under snarkjs's verifying key; the domain
 * generator matters; bad input: truncation at every length (section and offset named), query
 * sizes that are neither dense nor filtered, infinity where it must not be, b_g1/b_g2 disagreeing,
 * bellman mode refusing the file with a hint, saving refused, an unconstrained circom wire. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "compat/circom_r1cs.h"
#include "compat/iden3.h"
#include "compat/snarkjs.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "groth16/groth16.h"
#include "groth16/zkey.h"

#define OK(expr)                                                                                                 \
    do {                                                                                                         \
        g16_status st_ = (expr);                                                                                 \
        if (st_ != G16_OK)                                                                                       \
            fail_msg("%s: %s (%s)", #expr, g16_strerror(st_), err.msg);                                          \
    } while (0)

/* Byte offsets in mul_bellman.params (10 wires, 5 public, 5 constraints: domain 16). */
enum {
    AT_DELTA_G2 = 672,
    AT_IC = 868,      /* 6 points */
    AT_H = 1448,      /* 15 */
    AT_L = 2892,      /* 4 */
    AT_A_COUNT = 3276,
    AT_A = 3280,      /* 10: .......000 (wire 7, 8, 9 not in A) */
    AT_B1 = 4244,     /* 10: 000000..00 */
    AT_B2_COUNT = 5204,
    AT_B2 = 5208,     /* 10 G2 points */
    END_B2 = 7128,    /* then the MPC trailer: 64 + 4 + one contribution of 544 bytes */
    FILE_LEN = 7740,
};

typedef tu_blob blob;

/* A snarkjs fixture from tests/data/snarkjs. */
static blob load(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "snarkjs/%s", name);
    return tu_load_data(rel);
}

static blob copy(const blob *b)
{
    blob c = {malloc(b->len), b->len};
    memcpy(c.buf, b->buf, b->len);
    return c;
}

static void be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* Loading b must fail with status want and a message containing each of the needles. */
static void expect_load_error(const blob *b, unsigned flags, g16_status want, const char *n1, const char *n2)
{
    g16_params *p = NULL;
    g16_error err = {0};
    g16_status st = g16_params_load_buffer(&p, b->buf, b->len, flags, &err);
    if (st != want || (n1 && !strstr(err.msg, n1)) || (n2 && !strstr(err.msg, n2)))
        fail_msg("status %s, message '%s'; expected %s with '%s' and '%s'", g16_strerror(st), err.msg,
                 g16_strerror(want), n1, n2 ? n2 : "");
    assert_null(p);
}

static g16_params *load_params(const blob *b, unsigned flags)
{
    g16_params *p = NULL;
    g16_error err = {0};
    OK(g16_params_load_buffer(&p, b->buf, b->len, flags, &err));
    return p;
}

static g16_r1cs *circom_r1cs(const char *name)
{
    blob b = load(name);
    g16__r1cs_file f;
    g16_r1cs *r = NULL;
    g16_error err = {0};
    OK(g16__r1cs_file_read(&f, b.buf, b.len, name, &err));
    OK(g16__r1cs_from_circom(&r, &f, &err));
    g16__r1cs_file_free(&f);
    free(b.buf);
    return r;
}

static void read_wtns(const char *name, g16_fr **w, size_t *n)
{
    blob b = load(name);
    g16_error err = {0};
    OK(g16__wtns_read(w, n, b.buf, b.len, name, &err));
    free(b.buf);
}

static g16_vk *snarkjs_vk(const char *name)
{
    blob b = load(name);
    g16_vk *vk = NULL;
    g16_error err = {0};
    OK(g16__snarkjs_vk_read(&vk, (char *)b.buf, b.len, name, &err));
    free(b.buf);
    return vk;
}

static void assert_proofs_equal(const g16_proof *x, const g16_proof *y)
{
    uint8_t a[G16_PROOF_BYTES], b[G16_PROOF_BYTES];
    g16_proof_write(a, x);
    g16_proof_write(b, y);
    assert_memory_equal(a, b, sizeof a);
}

/* The export's points are the zkey's; the circuit built from the .r1cs has the zkey's shape. */
static void test_layout(void **state)
{
    (void)state;
    blob b = load("mul_bellman.params");
    assert_int_equal(b.len, FILE_LEN);
    g16_params *p = load_params(&b, G16__PARAMS_SNARKJS); /* every check, subgroups included */
    g16_params_info info;
    g16_params_get_info(p, &info);
    assert_int_equal(info.n_ic, 6);
    assert_int_equal(info.n_h, 15);
    assert_int_equal(info.n_l, 4);
    assert_int_equal(info.n_a, 7);
    assert_int_equal(info.n_b_g1, 2);
    assert_int_equal(info.n_b_g2, 2);
    assert_int_equal(p->file_n_a, 10);
    assert_int_equal(p->file_n_b, 10);
    assert_int_equal(p->origin, G16__ORIGIN_SNARKJS);
    g16_fr five;
    g16__fr_from_u64(&five, 5);
    assert_memory_equal(g16__params_root_generator(p), &five, sizeof five);

    blob zb = load("mul.zkey");
    g16__zkey zk;
    g16_error err = {0};
    OK(g16__zkey_read(&zk, zb.buf, zb.len, 0, "mul.zkey", &err));
    const struct g16_vk *v = &p->vk;
    assert_true(g16__p1_affine_eq(&v->alpha_g1, &zk.vk.alpha_g1) && g16__p1_affine_eq(&v->beta_g1, &zk.vk.beta_g1));
    assert_true(g16__p1_affine_eq(&v->delta_g1, &zk.vk.delta_g1) && g16__p2_affine_eq(&v->beta_g2, &zk.vk.beta_g2));
    assert_true(g16__p2_affine_eq(&v->gamma_g2, &zk.vk.gamma_g2) && g16__p2_affine_eq(&v->delta_g2, &zk.vk.delta_g2));
    assert_int_equal(v->n_ic, zk.vk.n_ic);
    for (uint64_t i = 0; i < v->n_ic; i++)
        assert_true(g16__p1_affine_eq(&v->ic[i], &zk.vk.ic[i]));
    /* a, b without infinity = the zkey's sections without infinity (same order); l = C */
    assert_int_equal(p->n_a, zk.n_pts[G16__ZK_A]);
    assert_int_equal(p->n_b_g1, zk.n_pts[G16__ZK_B1]);
    assert_int_equal(p->n_l, zk.n_pts[G16__ZK_C]);
    for (uint64_t i = 0; i < p->n_a; i++)
        assert_true(g16__p1_affine_eq(&p->a[i], &zk.a[i]));
    for (uint64_t i = 0; i < p->n_b_g1; i++)
        assert_true(g16__p1_affine_eq(&p->b_g1[i], &zk.b1[i]) && g16__p2_affine_eq(&p->b_g2[i], &zk.b2[i]));
    for (uint64_t i = 0; i < p->n_l; i++)
        assert_true(g16__p1_affine_eq(&p->l[i], &zk.c[i]));

    g16_r1cs *r = circom_r1cs("mul.r1cs");
    g16_r1cs_info ri;
    g16_r1cs_get_info(r, &ri);
    assert_int_equal(ri.num_inputs, zk.n_public + 1);
    assert_int_equal(ri.num_inputs + ri.num_aux, zk.n_vars);
    assert_int_equal(ri.domain_size, zk.n);
    assert_int_equal(ri.num_inputs + ri.density[G16_DENSITY_A_AUX], p->n_a);
    assert_int_equal(ri.density[G16_DENSITY_B_INPUT] + ri.density[G16_DENSITY_B_AUX], p->n_b_g1);
    g16_fr *w;
    size_t n;
    read_wtns("mul.wtns", &w, &n);
    OK(g16_r1cs_check(r, w, n, &err)); /* the .wtns is the full witness as it is */

    free(w);
    g16_r1cs_destroy(r);
    g16__zkey_free(&zk);
    free(zb.buf);
    g16_params_destroy(p);
    free(b.buf);
}

/* g16_prove with the export gives the zkey prover's proof (same r, s), valid under snarkjs's key. */
static void test_prove(void **state)
{
    (void)state;
    blob b = load("mul_bellman.params");
    g16_params *p = load_params(&b, G16__PARAMS_SNARKJS | G16_PARAMS_UNCHECKED);
    g16_r1cs *r = circom_r1cs("mul.r1cs");
    g16_vk *svk = snarkjs_vk("mul_vk.json");
    g16_pvk *pvk = NULL;
    g16_fr *w;
    size_t n;
    g16_error err = {0};
    read_wtns("mul.wtns", &w, &n);
    OK(g16_pvk_create(&pvk, svk, &err));
    blob zb = load("mul.zkey");
    g16__zkey zk;
    OK(g16__zkey_read(&zk, zb.buf, zb.len, G16_PARAMS_UNCHECKED, "mul.zkey", &err));
    for (int it = 0; it < 3; it++) {
        g16_fr rr, ss;
        tu_rand_fr(&rr);
        tu_rand_fr(&ss);
        g16_prove_opts po = {.r = &rr, .s = &ss, .backend = "cpu"};
        g16_proof p1, p2;
        const g16_fr *ws[1] = {w};
        OK(g16_prove(&p1, p, r, ws, 1, &po, &err));
        OK(g16__zkey_prove(&p2, &zk, w, n, &po, &err));
        assert_proofs_equal(&p1, &p2);
        OK(g16_verify(pvk, &p1, w + 1, g16_vk_num_inputs(svk) - 1, &err));
        g16_fr *pub = malloc(5 * sizeof *pub);
        memcpy(pub, w + 1, 5 * sizeof *pub);
        size_t j = (size_t)(tu_rand64() % 5);
        g16__fr_add(&pub[j], &pub[j], &g16__fr_one);
        assert_int_equal(g16_verify(pvk, &p1, pub, 5, &err), G16_ERR_VERIFY_FAILED);
        free(pub);
    }
    /* bellman's domain (roots from 7) instead of snarkjs's gives a proof that does not verify:
     * the prover's self-check refuses it, and without that check it is invalid */
    p->origin = 0;
    g16_proof bad;
    const g16_fr *ws[1] = {w};
    assert_int_equal(g16_prove(&bad, p, r, ws, 1, &(g16_prove_opts){.backend = "cpu"}, &err), G16_ERR_VERIFY_FAILED);
    OK(g16_prove(&bad, p, r, ws, 1, &(g16_prove_opts){.flags = G16_PROVE_NO_VERIFY, .backend = "cpu"}, &err));
    assert_int_equal(g16_verify(pvk, &bad, w + 1, 5, &err), G16_ERR_VERIFY_FAILED);
    p->origin = G16__ORIGIN_SNARKJS;
    /* the vk of the export is the vk snarkjs exports as JSON */
    g16_pvk *own = NULL;
    g16_proof good;
    OK(g16_prove(&good, p, r, ws, 1, &(g16_prove_opts){.backend = "cpu"}, &err));
    OK(g16_pvk_create(&own, g16_params_vk(p), &err));
    OK(g16_verify(own, &good, w + 1, 5, &err));
    OK(g16_verify(pvk, &good, w + 1, 5, &err));
    /* a witness that does not satisfy the circuit: the failing constraint is named */
    g16__fr_add(&w[n - 1], &w[n - 1], &g16__fr_one);
    assert_int_equal(g16_prove(&bad, p, r, ws, 1, &(g16_prove_opts){.backend = "cpu"}, &err), G16_ERR_UNSATISFIED);

    g16_pvk_destroy(own);
    g16__zkey_free(&zk);
    free(zb.buf);
    free(w);
    g16_pvk_destroy(pvk);
    g16_vk_destroy(svk);
    g16_r1cs_destroy(r);
    g16_params_destroy(p);
    free(b.buf);
}

/* Without the snarkjs flag the zero-byte points are refused, naming the export. */
static void test_bellman_mode_refuses(void **state)
{
    (void)state;
    blob b = load("mul_bellman.params");
    expect_load_error(&b, 0, G16_ERR_FORMAT, "a: point 7 at byte 3952: all-zero bytes", "snarkjs zkey export bellman");
    expect_load_error(&b, G16_PARAMS_UNCHECKED, G16_ERR_FORMAT, "a: point 7 at byte 3952", "--wtns");
    free(b.buf);
}

/* Every truncation before the end of b_g2 fails naming a section and the byte; the trailer is optional. */
static void test_truncation(void **state)
{
    (void)state;
    blob b = load("mul_bellman.params");
    static const char *const sections[] = {"vk.", "h:", "l:", "a:", "b_g1:", "b_g2:"};
    for (size_t len = 0; len < END_B2; len++) {
        blob t = {b.buf, len};
        g16_params *p = NULL;
        g16_error err = {0};
        assert_int_equal(g16_params_load_buffer(&p, t.buf, len, G16__PARAMS_SNARKJS | G16_PARAMS_UNCHECKED, &err),
                         G16_ERR_TRUNCATED);
        int named = 0;
        for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++)
            named |= strncmp(err.msg, sections[k], strlen(sections[k])) == 0;
        if (!named || !strstr(err.msg, "byte"))
            fail_msg("length %zu: '%s'", len, err.msg);
    }
    blob t = {b.buf, 7000};
    expect_load_error(&t, G16__PARAMS_SNARKJS, G16_ERR_TRUNCATED,
                      "b_g2: 10 points of 192 bytes from byte 5208 need 1920 bytes; the file ends at byte 7000", NULL);
    t.len = AT_B2_COUNT + 2;
    expect_load_error(&t, G16__PARAMS_SNARKJS, G16_ERR_TRUNCATED, "b_g2: count at byte 5204: file ends at byte 5206",
                      NULL);
    t.len = AT_H + 100;
    expect_load_error(&t, G16__PARAMS_SNARKJS, G16_ERR_TRUNCATED, "h: 15 points of 96 bytes from byte 1448", NULL);
    for (size_t len = END_B2; len <= FILE_LEN; len += 97) {
        blob ok = {b.buf, len};
        g16_params_destroy(load_params(&ok, G16__PARAMS_SNARKJS | G16_PARAMS_UNCHECKED));
    }
    free(b.buf);
}

/* Points at infinity where an export never has them; b_g1 and b_g2 disagreeing; bad points. */
static void test_infinity_refused(void **state)
{
    (void)state;
    blob b = load("mul_bellman.params");
    unsigned fl = G16__PARAMS_SNARKJS | G16_PARAMS_UNCHECKED;
    struct {
        size_t at, size;
        int flag; /* 1: bellman's infinity flag instead of zero bytes */
        const char *msg1, *msg2;
    } cases[] = {
        {0, 96, 0, "vk.alpha_g1: point 0 at byte 0: the point at infinity (all-zero bytes)", "verifying key"},
        {AT_DELTA_G2, 192, 1, "vk.delta_g2: point 0 at byte 672: the point at infinity: a verifying key", NULL},
        {AT_IC + 2 * 96, 96, 0, "vk.ic: point 2 at byte 1060: the point at infinity (all-zero bytes)", "verifying key"},
        {AT_H + 3 * 96, 96, 0, "h: point 3 at byte 1736: the point at infinity (all-zero bytes)", "h query"},
        {AT_L + 96, 96, 1, "l: point 1 at byte 2988: the point at infinity", "occurs in no constraint"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        blob c = copy(&b);
        memset(c.buf + cases[k].at, 0, cases[k].size);
        if (cases[k].flag)
            c.buf[cases[k].at] = 0x40;
        expect_load_error(&c, fl, G16_ERR_FORMAT, cases[k].msg1, cases[k].msg2);
        free(c.buf);
    }
    /* b_g1 at infinity where b_g2 is not, and the reverse */
    blob c = copy(&b);
    memset(c.buf + AT_B1 + 6 * 96, 0, 96);
    expect_load_error(&c, fl, G16_ERR_FORMAT, "b_g1 point 6 (byte 4820) is at infinity but b_g2 point 6 (byte 6360) "
                      "is finite", NULL);
    memcpy(c.buf, b.buf, b.len);
    memset(c.buf + AT_B2 + 7 * 192, 0, 192);
    expect_load_error(&c, fl, G16_ERR_FORMAT, "b_g1 point 7 (byte 4916) is finite but b_g2 point 7 (byte 6552) is at "
                      "infinity", NULL);
    /* a point off the curve in a dense query is an error, not an infinity */
    memcpy(c.buf, b.buf, b.len);
    c.buf[AT_A + 95] ^= 1;
    expect_load_error(&c, fl, G16_ERR_NOT_ON_CURVE, "a: point 0 at byte 3280", NULL);
    /* a stray byte in a zero point makes it a (bad) coordinate pair, not an infinity */
    memcpy(c.buf, b.buf, b.len);
    c.buf[AT_A + 8 * 96 + 50] = 1;
    expect_load_error(&c, fl, G16_ERR_NOT_ON_CURVE, "a: point 8 at byte 4048", NULL);
    free(c.buf);
    free(b.buf);
}

/* A query count that is neither one per variable nor the filtered count; a wrong infinity pattern;
 * an export already in the filtered layout proves. */
static void test_query_sizes(void **state)
{
    (void)state;
    blob b = load("mul_bellman.params");
    g16_r1cs *r = circom_r1cs("mul.r1cs");
    g16_fr *w;
    size_t n;
    read_wtns("mul.wtns", &w, &n);
    const g16_fr *ws[1] = {w};
    g16_proof proof;
    g16_error err = {0};
    unsigned fl = G16__PARAMS_SNARKJS | G16_PARAMS_UNCHECKED;
    const g16_prove_opts *cpu = &(g16_prove_opts){.backend = "cpu"};

    /* a without its first point (a finite one): 9 points */
    blob c = {malloc(b.len), b.len - 96};
    memcpy(c.buf, b.buf, AT_A);
    be32(c.buf + AT_A_COUNT, 9);
    memcpy(c.buf + AT_A, b.buf + AT_A + 96, b.len - AT_A - 96);
    g16_params *p = load_params(&c, fl);
    assert_int_equal(g16_prove(&proof, p, r, ws, 1, cpu, &err), G16_ERR_SIZE_MISMATCH);
    if (!strstr(err.msg, "the a query of the snarkjs export has 9 points, the circuit needs 10 (one per variable, "
                         "as snarkjs writes it) or 7 (filtered by density"))
        fail_msg("%s", err.msg);
    g16_params_destroy(p);

    /* the a query already filtered (its three points at infinity removed): accepted, proves */
    c.len = b.len - 3 * 96;
    memcpy(c.buf, b.buf, AT_A + 7 * 96);
    be32(c.buf + AT_A_COUNT, 7);
    memcpy(c.buf + AT_A + 7 * 96, b.buf + AT_A + 10 * 96, b.len - AT_A - 10 * 96);
    p = load_params(&c, fl);
    OK(g16_prove(&proof, p, r, ws, 1, cpu, &err));
    g16_params_destroy(p);

    /* one per variable, but a B point at infinity where the circuit has a term */
    memcpy(c.buf, b.buf, b.len);
    c.len = b.len;
    memset(c.buf + AT_B1 + 6 * 96, 0, 96);
    memset(c.buf + AT_B2 + 6 * 192, 0, 192);
    p = load_params(&c, fl);
    assert_int_equal(p->n_b_g1, 1);
    assert_int_equal(g16_prove(&proof, p, r, ws, 1, cpu, &err), G16_ERR_SIZE_MISMATCH);
    if (!strstr(err.msg, "1 of the 10 points of the snarkjs export's b_g1 query are not at infinity, but 2 variables"))
        fail_msg("%s", err.msg);
    g16_params_destroy(p);

    free(c.buf);
    free(w);
    g16_r1cs_destroy(r);
    free(b.buf);
}

/* Such parameters cannot be written as a bellman file (nothing there would say which domain). */
static void test_save_refused(void **state)
{
    (void)state;
    blob b = load("mul_bellman.params");
    g16_params *p = load_params(&b, G16__PARAMS_SNARKJS | G16_PARAMS_UNCHECKED);
    char path[64];
    snprintf(path, sizeof path, "/tmp/g16-test-export-%d.params", (int)getpid());
    g16_error err = {0};
    assert_int_equal(g16_params_save(p, path, &err), G16_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.msg, "snarkjs's evaluation domain"));
    assert_int_equal(access(path, F_OK), -1);
    g16_params_destroy(p);
    free(b.buf);
}

/* The circom circuit converter: wire numbering, and a private wire in no constraint. */
static void test_circom_circuit(void **state)
{
    (void)state;
    /* 5 wires: ONE, one output (1), one public input (2), private 3 and 4; 3 = 1·2 and 4 unused */
    uint64_t rp[3][2] = {{0, 1}, {0, 1}, {0, 1}};
    uint32_t wa[1] = {1}, wb[1] = {2}, wc[1] = {3};
    g16_fr one = g16__fr_one, co[1] = {one};
    g16__r1cs_file f = {.n_wires = 5, .n_outputs = 1, .n_pub_inputs = 1, .n_prv_inputs = 1, .n_constraints = 1,
                        .rp = {rp[0], rp[1], rp[2]}, .wire = {wa, wb, wc}, .coeff = {co, co, co}};
    g16_r1cs *r = NULL;
    g16_error err = {0};
    assert_int_equal(g16__r1cs_from_circom(&r, &f, &err), G16_ERR_ARG);
    if (!strstr(err.msg, "private wire 4 occurs in no constraint"))
        fail_msg("%s", err.msg);
    assert_null(r);
    /* with wire 4 in C (a zero coefficient does not count) */
    uint32_t wc2[2] = {3, 4};
    g16_fr co2[2] = {one, one};
    uint64_t rpc[2] = {0, 2};
    f.rp[2] = rpc, f.wire[2] = wc2, f.coeff[2] = co2;
    g16__fr_set_zero(&co2[1]);
    assert_int_equal(g16__r1cs_from_circom(&r, &f, &err), G16_ERR_ARG);
    co2[1] = one;
    OK(g16__r1cs_from_circom(&r, &f, &err));
    g16_r1cs_info ri;
    g16_r1cs_get_info(r, &ri);
    assert_int_equal(ri.num_inputs, 3);
    assert_int_equal(ri.num_aux, 2);
    assert_int_equal(ri.num_constraints, 1 + 3);
    /* w1 · w2 = w3 + w4 */
    g16_fr w[5];
    g16__fr_from_u64(&w[0], 1);
    g16__fr_from_u64(&w[1], 3);
    g16__fr_from_u64(&w[2], 4);
    g16__fr_from_u64(&w[3], 5);
    g16__fr_from_u64(&w[4], 7);
    OK(g16_r1cs_check(r, w, 5, &err));
    g16__fr_from_u64(&w[4], 8);
    assert_int_equal(g16_r1cs_check(r, w, 5, &err), G16_ERR_UNSATISFIED);
    g16_r1cs_destroy(r);
    /* more public wires than wires */
    f.n_outputs = 5;
    assert_int_equal(g16__r1cs_from_circom(&r, &f, &err), G16_ERR_FORMAT);
}

int main(void)
{
    tu_seed("snarkjs_export");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_prove),
        cmocka_unit_test(test_bellman_mode_refuses),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_infinity_refused),
        cmocka_unit_test(test_query_sizes),
        cmocka_unit_test(test_save_refused),
        cmocka_unit_test(test_circom_circuit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
