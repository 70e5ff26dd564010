/* circom and snarkjs files (tests/data/snarkjs, made by tools/snarkjs/make_fixtures.sh with
 * circom2 0.2.23 and snarkjs 0.7.6): .r1cs, .wtns and .zkey readers; proving from a zkey and
 * verifying with the key snarkjs exported (and snarkjs's own proof with g16); g16's JSON writers
 * reproduce snarkjs's files byte for byte; the quotient H
 * against a naive computation with roots from GMP; refusals of other curves and protocols,
 * truncated and corrupted files, wrong witnesses; the test powers-of-tau writer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "compat/iden3.h"
#include "compat/ptau.h"
#include "compat/snarkjs.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fr.h"
#include "groth16/zkey.h"

#define OK(expr) assert_int_equal((expr), G16_OK)

typedef tu_blob blob;

/* A snarkjs fixture from tests/data/snarkjs. */
static blob load(const char *name)
{
    char rel[256];
    snprintf(rel, sizeof rel, "snarkjs/%s", name);
    return tu_load_data(rel);
}

static void read_wtns(const char *name, g16_fr **w, size_t *n)
{
    blob b = load(name);
    g16_error err = {0};
    if (g16__wtns_read(w, n, b.buf, b.len, name, &err) != G16_OK)
        fail_msg("%s", err.msg);
    free(b.buf);
}

static void read_zkey(const char *name, g16__zkey *zk, unsigned flags)
{
    blob b = load(name);
    g16_error err = {0};
    if (g16__zkey_read(zk, b.buf, b.len, flags, name, &err) != G16_OK)
        fail_msg("%s", err.msg);
    free(b.buf);
}

static void test_r1cs_and_witness(void **state)
{
    (void)state;
    static const char *const names[] = {"mul", "mimc"};
    for (int c = 0; c < 2; c++) {
        char n1[64], n2[64];
        snprintf(n1, sizeof n1, "%s.r1cs", names[c]);
        snprintf(n2, sizeof n2, "%s.wtns", names[c]);
        blob b = load(n1);
        g16__r1cs_file r;
        g16_error err = {0};
        OK(g16__r1cs_file_read(&r, b.buf, b.len, n1, &err));
        g16_fr *w;
        size_t n;
        uint64_t bad;
        read_wtns(n2, &w, &n);
        assert_int_equal(n, r.n_wires);
        assert_true(g16__fr_is_one(&w[0]));
        OK(g16__r1cs_file_check(&r, w, n, &bad, &err));
        if (c == 0) { /* mul: 3 public inputs, 2 outputs; 5 constraints */
            assert_int_equal(g16__r1cs_file_n_public(&r), 5);
            assert_int_equal(r.n_constraints, 5);
        } else {
            assert_int_equal(r.n_constraints, 300);
        }
        /* change one private value: the first constraint that uses it fails */
        size_t k = n - 1 - (size_t)(tu_rand64() % (n - 1 - g16__r1cs_file_n_public(&r)));
        uint64_t first = UINT64_MAX;
        for (uint64_t i = 0; i < r.n_constraints && first == UINT64_MAX; i++)
            for (int m = 0; m < 3; m++)
                for (uint64_t t = r.rp[m][i]; t < r.rp[m][i + 1]; t++)
                    if (r.wire[m][t] == k && first == UINT64_MAX)
                        first = i;
        g16__fr_add(&w[k], &w[k], &g16__fr_one);
        g16_status st = g16__r1cs_file_check(&r, w, n, &bad, &err);
        if (first != UINT64_MAX) {
            assert_int_equal(st, G16_ERR_UNSATISFIED);
            assert_true(bad <= first);
            assert_non_null(strstr(err.msg, "is not satisfied"));
        }
        g16__fr_sub(&w[k], &w[k], &g16__fr_one);
        g16__fr_add(&w[0], &w[0], &g16__fr_one);
        assert_int_equal(g16__r1cs_file_check(&r, w, n, &bad, &err), G16_ERR_UNSATISFIED);
        assert_non_null(strstr(err.msg, "ONE"));
        assert_int_equal(g16__r1cs_file_check(&r, w, n - 1, &bad, &err), G16_ERR_SIZE_MISMATCH);
        free(w);
        g16__r1cs_file_free(&r);
        free(b.buf);
    }
}

/* Proves with fixed r, s; the proof verifies with the vk snarkjs exported, and snarkjs's proof
 * verifies with the vk g16 read from the zkey; changed public values are refused. */
static void prove_and_cross_verify(const char *name)
{
    char path[64];
    g16__zkey zk;
    g16_fr *w;
    size_t n;
    g16_error err = {0};
    snprintf(path, sizeof path, "%s.zkey", name);
    read_zkey(path, &zk, 0);
    snprintf(path, sizeof path, "%s.wtns", name);
    read_wtns(path, &w, &n);
    snprintf(path, sizeof path, "%s_vk.json", name);
    blob vkj = load(path);
    g16_vk *svk = NULL;
    OK(g16__snarkjs_vk_read(&svk, (char *)vkj.buf, vkj.len, path, &err));
    /* the verifying key snarkjs exported is the one in the zkey */
    assert_true(g16__p1_affine_eq(&svk->alpha_g1, &zk.vk.alpha_g1));
    assert_true(g16__p2_affine_eq(&svk->beta_g2, &zk.vk.beta_g2));
    assert_true(g16__p2_affine_eq(&svk->gamma_g2, &zk.vk.gamma_g2));
    assert_true(g16__p2_affine_eq(&svk->delta_g2, &zk.vk.delta_g2));
    assert_int_equal(svk->n_ic, zk.vk.n_ic);
    for (uint64_t i = 0; i < svk->n_ic; i++)
        assert_true(g16__p1_affine_eq(&svk->ic[i], &zk.vk.ic[i]));
    /* the sections without their infinity points: the bitmaps count the kept points */
    for (int k = 0; k < 4; k++) {
        uint64_t nbits = k == G16__ZK_C ? zk.n_vars - zk.n_public - 1 : zk.n_vars, set = 0;
        for (uint64_t i = 0; i < nbits; i++)
            set += zk.dens[k][i / 64] >> (i % 64) & 1;
        assert_int_equal(set, zk.n_pts[k]);
        assert_true(zk.n_pts[k] > 0 && zk.n_pts[k] <= nbits);
    }
    assert_true(zk.n_pts[G16__ZK_B2] < zk.n_vars); /* some wire is absent from B in both circuits */
    g16_pvk *pvk;
    OK(g16_pvk_create(&pvk, svk, &err));
    g16_proof p1, p2;
    g16_fr r, s;
    tu_rand_fr(&r);
    tu_rand_fr(&s);
    g16_prove_opts po = {.r = &r, .s = &s};
    OK(g16__zkey_prove(&p1, &zk, w, n, &po, &err));
    OK(g16__zkey_prove(&p2, &zk, w, n, &po, &err));
    assert_memory_equal(&p1, &p2, sizeof p1); /* fixed r, s: deterministic */
    OK(g16_verify(pvk, &p1, w + 1, zk.n_public, &err));
    g16_fr *pub = malloc((zk.n_public + 1) * sizeof *pub);
    memcpy(pub, w + 1, zk.n_public * sizeof *pub);
    size_t j = (size_t)(tu_rand64() % zk.n_public);
    g16__fr_add(&pub[j], &pub[j], &g16__fr_one);
    assert_int_equal(g16_verify(pvk, &p1, pub, zk.n_public, &err), G16_ERR_VERIFY_FAILED);
    assert_int_equal(g16_verify(pvk, &p1, w + 1, zk.n_public - 1, &err), G16_ERR_SIZE_MISMATCH);
    /* snarkjs's proof and public values */
    snprintf(path, sizeof path, "%s_proof.json", name);
    blob pj = load(path);
    snprintf(path, sizeof path, "%s_public.json", name);
    blob uj = load(path);
    g16_proof sp;
    g16_fr *spub;
    size_t ns;
    OK(g16__snarkjs_proof_read(&sp, (char *)pj.buf, pj.len, "proof.json", &err));
    OK(g16__snarkjs_public_read(&spub, &ns, (char *)uj.buf, uj.len, "public.json", &err));
    assert_int_equal(ns, zk.n_public);
    for (size_t i = 0; i < ns; i++) /* snarkjs's public values are the witness's */
        assert_true(g16__fr_eq(&spub[i], &w[1 + i]));
    OK(g16_verify(pvk, &sp, spub, ns, &err));
    /* g16 writes snarkjs's three files byte for byte */
    char *t = g16__snarkjs_vk_json(&zk.vk);
    assert_int_equal(strlen(t), vkj.len);
    assert_memory_equal(t, vkj.buf, vkj.len);
    free(t);
    t = g16__snarkjs_proof_json(&sp);
    assert_int_equal(strlen(t), pj.len);
    assert_memory_equal(t, pj.buf, pj.len);
    free(t);
    t = g16__snarkjs_public_json(spub, ns);
    assert_int_equal(strlen(t), uj.len);
    assert_memory_equal(t, uj.buf, uj.len);
    free(t);
    g16__fr_sub(&spub[0], &spub[0], &g16__fr_one);
    assert_int_equal(g16_verify(pvk, &sp, spub, ns, &err), G16_ERR_VERIFY_FAILED);
    /* a witness that does not satisfy the circuit: the self-check refuses the proof */
    g16__fr_add(&w[n - 1], &w[n - 1], &g16__fr_one);
    assert_int_equal(g16__zkey_prove(&p2, &zk, w, n, &po, &err), G16_ERR_VERIFY_FAILED);
    assert_non_null(strstr(err.msg, "does not verify"));
    g16__fr_sub(&w[n - 1], &w[n - 1], &g16__fr_one);
    assert_int_equal(g16__zkey_prove(&p2, &zk, w, n - 1, &po, &err), G16_ERR_SIZE_MISMATCH);
    assert_non_null(strstr(err.msg, "wires"));
    g16__fr_add(&w[0], &w[0], &g16__fr_one);
    assert_int_equal(g16__zkey_prove(&p2, &zk, w, n, &po, &err), G16_ERR_ARG);
    free(spub);
    free(pj.buf);
    free(uj.buf);
    free(pub);
    free(vkj.buf);
    free(w);
    g16_pvk_destroy(pvk);
    g16_vk_destroy(svk);
    g16__zkey_free(&zk);
}

static void test_prove_mul(void **state)
{
    (void)state;
    prove_and_cross_verify("mul");
}

static void test_prove_mimc(void **state)
{
    (void)state;
    prove_and_cross_verify("mimc");
}

/* H against a naive computation: A, B, C from the rows (C = A·B per row), interpolated with a
 * naive inverse DFT and evaluated by Horner at ω_2n^(2i+1), the roots taken from GMP as powers
 * of 5. */
static void naive_h(void **state, const char *name)
{
    (void)state;
    char path[64];
    g16__zkey zk;
    g16_fr *w;
    size_t nw;
    snprintf(path, sizeof path, "%s.zkey", name);
    read_zkey(path, &zk, G16_PARAMS_UNCHECKED);
    snprintf(path, sizeof path, "%s.wtns", name);
    read_wtns(path, &w, &nw);
    size_t n = zk.n;
    mpz_t z, rr, e;
    mpz_inits(z, rr, e, NULL);
    tu_mpz_r(rr);
    mpz_sub_ui(e, rr, 1);
    mpz_tdiv_q_ui(e, e, 2 * n);
    mpz_set_ui(z, 5);
    mpz_powm(z, z, e, rr); /* ω_2n */
    g16_fr w2n, wn, wn_inv, n_inv;
    tu_fr_from_mpz(&w2n, z);
    g16__fr_sqr(&wn, &w2n);
    g16__fr_inv(&wn_inv, &wn);
    g16__fr_from_u64(&n_inv, n);
    g16__fr_inv(&n_inv, &n_inv);
    g16_fr *ev[3], *co[3];
    for (int k = 0; k < 3; k++) {
        ev[k] = calloc(n, sizeof(g16_fr));
        co[k] = calloc(n, sizeof(g16_fr));
    }
    for (size_t i = 0; i < n; i++) {
        for (int m = 0; m < 2; m++)
            for (uint64_t t = zk.rp[m][i]; t < zk.rp[m][i + 1]; t++) {
                g16_fr x;
                g16__fr_mul(&x, &zk.coeff[m][t], &w[zk.col[m][t]]);
                g16__fr_add(&ev[m][i], &ev[m][i], &x);
            }
        g16__fr_mul(&ev[2][i], &ev[0][i], &ev[1][i]);
    }
    /* coefficients: co[j] = 1/n Σ_i ev[i] ω^(-ij) */
    for (int k = 0; k < 3; k++)
        for (size_t j = 0; j < n; j++) {
            g16_fr acc, step, pw, t;
            g16__fr_set_zero(&acc);
            g16__fr_set_one(&pw);
            uint64_t ej[1] = {j};
            g16__fr_pow(&step, &wn_inv, ej, 1);
            for (size_t i = 0; i < n; i++) {
                g16__fr_mul(&t, &ev[k][i], &pw);
                g16__fr_add(&acc, &acc, &t);
                g16__fr_mul(&pw, &pw, &step);
            }
            g16__fr_mul(&co[k][j], &acc, &n_inv);
        }
    g16_fr *h = malloc(n * sizeof *h);
    OK(g16__zkey_h(h, &zk, w, NULL));
    g16_fr x = w2n;
    for (size_t i = 0; i < n; i++) {
        g16_fr v[3], want;
        for (int k = 0; k < 3; k++) {
            g16__fr_set_zero(&v[k]);
            for (size_t j = n; j-- > 0;) {
                g16__fr_mul(&v[k], &v[k], &x);
                g16__fr_add(&v[k], &v[k], &co[k][j]);
            }
        }
        g16__fr_mul(&want, &v[0], &v[1]);
        g16__fr_sub(&want, &want, &v[2]);
        if (!g16__fr_eq(&want, &h[i]))
            fail_msg("%s: H[%zu] differs from the naive value", name, i);
        g16__fr_mul(&x, &x, &wn); /* next odd point */
    }
    for (int k = 0; k < 3; k++) {
        free(ev[k]);
        free(co[k]);
    }
    free(h);
    free(w);
    mpz_clears(z, rr, e, NULL);
    g16__zkey_free(&zk);
}

static void test_h_mul(void **state) { naive_h(state, "mul"); }
static void test_h_mimc(void **state) { naive_h(state, "mimc"); }

static void expect(g16_status st, g16_status want, const g16_error *err, const char *needle)
{
    if (st != want || (needle && !strstr(err->msg, needle)))
        fail_msg("status %d (want %d), message '%s' (want '%s')", st, want, err->msg, needle ? needle : "");
}

static void test_other_curves_and_protocols(void **state)
{
    (void)state;
    g16_error err = {0};
    g16__zkey zk;
    g16__r1cs_file r;
    g16_fr *w;
    size_t n;
    blob b = load("mul_bn128.zkey");
    expect(g16__zkey_read(&zk, b.buf, b.len, 0, "bn.zkey", &err), G16_ERR_UNSUPPORTED, &err,
           "BN254's scalar field (circom's default prime, bn128)");
    free(b.buf);
    b = load("mul_bn128.r1cs");
    expect(g16__r1cs_file_read(&r, b.buf, b.len, "bn.r1cs", &err), G16_ERR_UNSUPPORTED, &err, "compile the circuit with circom --prime bls12381");
    free(b.buf);
    b = load("mul_bn128.wtns");
    expect(g16__wtns_read(&w, &n, b.buf, b.len, "bn.wtns", &err), G16_ERR_UNSUPPORTED, &err, "BN254");
    free(b.buf);
    b = load("mul_plonk.zkey");
    expect(g16__zkey_read(&zk, b.buf, b.len, 0, "plonk.zkey", &err), G16_ERR_UNSUPPORTED, &err,
           "a PLONK zkey (protocol 2); g16 proves Groth16 only");
    free(b.buf);
    /* the other names, through the prime table */
    static const struct {
        const char *hex; /* big-endian */
        const char *needle;
    } other[] = {{"ffffffff00000001", "Goldilocks"},
                 {"12ab655e9a2ca55660b44d1e5c37b00159aa76fed00000010a11800000000001", "BLS12-377"},
                 {"40000000000000000000000000000000224698fc094cf91b992d30ed00000001", "Pallas"},
                 {"40000000000000000000000000000000224698fc0994a8dd8c46eb2100000001", "Vesta"},
                 {"ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", "secq256r1"},
                 {"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000003", "unknown 32-byte prime"}};
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++) {
        uint8_t le[32] = {0};
        size_t nh = strlen(other[i].hex), nb = (nh + 1) / 2;
        for (size_t k = 0; k < nb; k++) {
            unsigned v;
            sscanf(other[i].hex + nh - 2 * k - 2, "%2x", &v);
            le[k] = (uint8_t)v;
        }
        uint32_t n8 = nb <= 8 ? 8 : 32;
        expect(g16__check_prime(le, n8, 1, "f", "header", &err), G16_ERR_UNSUPPORTED, &err, other[i].needle);
    }
}

/* Every prefix of a file: refused with a truncation or format error, never accepted. */
static void test_truncation(void **state)
{
    (void)state;
    static const char *const files[] = {"mul.zkey", "mul.r1cs", "mul.wtns"};
    for (int f = 0; f < 3; f++) {
        blob b = load(files[f]);
        for (size_t len = 0; len < b.len; len++) {
            uint8_t *cut = malloc(len ? len : 1); /* a fresh buffer: ASan sees any read past len */
            memcpy(cut, b.buf, len);
            g16_error err = {0};
            g16_status st;
            if (f == 0) {
                g16__zkey zk;
                st = g16__zkey_read(&zk, cut, len, 0, "t.zkey", &err);
            } else if (f == 1) {
                g16__r1cs_file r;
                st = g16__r1cs_file_read(&r, cut, len, "t.r1cs", &err);
            } else {
                g16_fr *w;
                size_t n;
                st = g16__wtns_read(&w, &n, cut, len, "t.wtns", &err);
            }
            if (st != G16_ERR_TRUNCATED && st != G16_ERR_FORMAT)
                fail_msg("%s cut at %zu: status %d (%s)", files[f], len, st, err.msg);
            assert_non_null(strstr(err.msg, "t.")); /* the file is named */
            free(cut);
        }
        free(b.buf);
    }
}

static uint32_t get32(const uint8_t *b) { return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24; }
static void put32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
}

/* Byte offset of the first section of a type in an iden3 file. */
static size_t section_at(const blob *b, uint32_t type)
{
    size_t off = 12;
    for (uint32_t i = 0; i < get32(b->buf + 8); i++) {
        uint64_t size = get32(b->buf + off + 4) | (uint64_t)get32(b->buf + off + 8) << 32;
        if (get32(b->buf + off) == type)
            return off + 12;
        off += 12 + size;
    }
    fail_msg("no section %u", type);
    return 0;
}

static int is_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

static void test_zkey_corruption(void **state)
{
    (void)state;
    g16_error err = {0};
    g16__zkey zk;
    blob b = load("mul.zkey");
    uint8_t *c = malloc(b.len);
#define RESET() memcpy(c, b.buf, b.len)
    RESET();
    c[0] = 'x';
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "not a .zkey file");
    RESET();
    put32(c + 4, 2);
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "version 2");
    size_t coef = section_at(&b, 4), a = section_at(&b, 5), hdr = section_at(&b, 2), prot = section_at(&b, 1);
    RESET();
    put32(c + prot, 7);
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "unknown protocol 7");
    RESET();
    put32(c + coef + 4, 2); /* matrix of entry 0 */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "entry 0 at byte");
    RESET();
    put32(c + coef + 4 + 44 + 8, 1000); /* signal of entry 1 */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "signal is beyond nVars");
    RESET();
    memset(c + coef + 4 + 12, 0xff, 32); /* value of entry 0 >= r */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "not below r");
    /* A point 1 off the curve (A[0] is ONE's point: not infinity in this circuit) */
    RESET();
    size_t pt = a + 96;
    while (is_zero(c + pt, 96))
        pt += 96; /* the first point from A[1] on that is not infinity */
    c[pt] ^= 1;
    expect(g16__zkey_read(&zk, c, b.len, G16_PARAMS_UNCHECKED, "t.zkey", &err), G16_ERR_NOT_ON_CURVE, &err,
           "t.zkey: A: point");
    RESET();
    memset(c + a + 48, 0xff, 48); /* A[0].y >= p */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_COORD_RANGE, &err, "A: point 0 at byte");
    /* the header's domain size */
    RESET();
    put32(c + hdr + 4 + 48 + 4 + 32 + 8, 12);
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "not a power of two");
    RESET();
    put32(c + hdr + 4 + 48 + 4 + 32 + 8, 1u << 28); /* a huge domain in a small file: refused before allocating */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_TRUNCATED, &err, "section 9 (H)");
    RESET();
    put32(c + hdr + 4 + 48 + 4 + 32, 0x7fffffff); /* a huge wire count */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_TRUNCATED, &err, "section 5 (A)");
    RESET();
    put32(c + hdr + 4 + 48 + 4 + 32 + 4, 100); /* nPublic > nVars */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "cannot hold ONE");
    RESET();
    put32(c + hdr + 4 + 48 + 4 + 32 + 4, 4); /* nPublic one less: IC has one point too many */
    expect(g16__zkey_read(&zk, c, b.len, 0, "t.zkey", &err), G16_ERR_FORMAT, &err, "section 3 (IC)");
    /* random corruption: never a crash; anything accepted is a consistent key */
    for (int it = 0; it < tu_iters(300); it++) {
        RESET();
        for (int k = 0; k < 3; k++)
            c[tu_rand64() % b.len] ^= (uint8_t)(1u << (tu_rand64() % 8));
        if (g16__zkey_read(&zk, c, b.len, G16_PARAMS_UNCHECKED, "t.zkey", &err) == G16_OK)
            g16__zkey_free(&zk);
    }
#undef RESET
    free(c);
    free(b.buf);
    /* witness file: a value >= r, a length the header does not announce */
    b = load("mul.wtns");
    c = malloc(b.len);
    memcpy(c, b.buf, b.len);
    size_t v = section_at(&b, 2);
    memset(c + v + 32, 0xff, 32);
    g16_fr *w;
    size_t n;
    expect(g16__wtns_read(&w, &n, c, b.len, "t.wtns", &err), G16_ERR_SCALAR_RANGE, &err, "value 1 at byte");
    memcpy(c, b.buf, b.len);
    put32(c + section_at(&b, 1) + 4 + 32, 11);
    expect(g16__wtns_read(&w, &n, c, b.len, "t.wtns", &err), G16_ERR_TRUNCATED, &err, "for 11 values");
    free(c);
    free(b.buf);
}

/* The test ptau: sections of the right sizes, and every Lagrange level sums to the generator
 * (Σ L_i = 1), times α and β in sections 14 and 15 (whose first powers are α·G and β·G). */
static void test_ptau(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/g16-test-%d.ptau", (int)getpid());
    g16_error err = {0};
    unsigned power = 3;
    OK(g16__ptau_write_insecure(path, power, 5, &err));
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    blob b;
    fseek(f, 0, SEEK_END);
    b.len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.buf = malloc(b.len);
    assert_int_equal(fread(b.buf, 1, b.len, f), b.len);
    fclose(f);
    unlink(path);
    g16__binfile bf;
    OK(g16__binfile_open(&bf, b.buf, b.len, "ptau", 1, "t.ptau", &err));
    assert_int_equal(bf.nsec, 11);
    size_t n = (size_t)1 << power;
    const uint64_t want[16] = {0, 60, (2 * n - 1) * 96, n * 192, n * 96, n * 96, 192, 4, 0, 0, 0, 0,
                               (4 * n - 1) * 96, (2 * n - 1) * 192, (2 * n - 1) * 96, (2 * n - 1) * 96};
    for (uint32_t t = 1; t <= 15; t++) {
        if (t >= 8 && t <= 11)
            continue;
        const g16__binsec *s;
        OK(g16__binfile_section(&bf, t, "s", &s, &err));
        assert_int_equal(s->size, want[t]);
    }
    /* sum each level in G1 (sections 12, 14, 15) and G2 (13) */
    g16_p1_affine g1s[3];
    g16_p2_affine g2;
    for (int sec = 12; sec <= 15; sec++) {
        const g16__binsec *s;
        OK(g16__binfile_section(&bf, (uint32_t)sec, "s", &s, &err));
        const uint8_t *p = b.buf + s->offset;
        unsigned top = sec == 12 ? power + 1 : power;
        int g2s = sec == 13;
        for (unsigned k = 0; k <= top; k++) {
            g16_p1 acc1;
            g16_p2 acc2;
            g16__p1_set_infinity(&acc1);
            g16__p2_set_infinity(&acc2);
            for (size_t i = 0; i < ((size_t)1 << k); i++) {
                g16_fp co[4];
                for (int c = 0; c < (g2s ? 4 : 2); c++, p += 48)
                    for (int l = 0; l < 6; l++) {
                        uint64_t v = 0;
                        for (int by = 7; by >= 0; by--)
                            v = v << 8 | p[8 * l + by];
                        co[c].l[l] = v;
                    }
                if (g2s) {
                    g16_p2_affine q = {{co[0], co[1]}, {co[2], co[3]}};
                    assert_true(g16__p2_affine_on_curve(&q));
                    g16__p2_add_affine_var(&acc2, &acc2, &q);
                } else {
                    g16_p1_affine q = {co[0], co[1]};
                    assert_true(g16__p1_affine_on_curve(&q));
                    g16__p1_add_affine_var(&acc1, &acc1, &q);
                }
            }
            if (g2s) {
                g16__p2_to_affine(&g2, &acc2);
                assert_true(g16__p2_affine_eq(&g2, &g16__p2_generator_affine));
            } else {
                g16__p1_to_affine(&g1s[sec == 12 ? 0 : sec - 13], &acc1);
                if (sec == 12)
                    assert_true(g16__p1_affine_eq(&g1s[0], &g16__p1_generator_affine));
                else { /* α·G, β·G: the first points of sections 4 and 5 */
                    const g16__binsec *s0;
                    OK(g16__binfile_section(&bf, (uint32_t)(sec - 10), "s", &s0, &err));
                    g16_p1_affine first;
                    const uint8_t *q = b.buf + s0->offset;
                    for (int c = 0; c < 2; c++)
                        for (int l = 0; l < 6; l++) {
                            uint64_t v = 0;
                            for (int by = 7; by >= 0; by--)
                                v = v << 8 | q[48 * c + 8 * l + by];
                            (c ? &first.y : &first.x)->l[l] = v;
                        }
                    assert_true(g16__p1_affine_eq(&g1s[sec - 13], &first));
                }
            }
        }
    }
    g16__binfile_close(&bf);
    free(b.buf);
    assert_int_equal(g16__ptau_write_insecure(path, 0, 1, &err), G16_ERR_ARG);
    assert_int_equal(g16__ptau_write_insecure("/nonexistent/dir/x.ptau", 2, 1, &err), G16_ERR_IO);
}

int main(void)
{
    tu_seed("compat_iden3");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_r1cs_and_witness),
        cmocka_unit_test(test_prove_mul),
        cmocka_unit_test(test_prove_mimc),
        cmocka_unit_test(test_h_mul),
        cmocka_unit_test(test_h_mimc),
        cmocka_unit_test(test_other_curves_and_protocols),
        cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_zkey_corruption),
        cmocka_unit_test(test_ptau),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
