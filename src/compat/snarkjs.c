/*
 * snarkjs JSON files: see snarkjs.h. The layout written is snarkjs's own (one-space indentation,
 * the keys in its order), so that a diff against a snarkjs file shows only the numbers.
 */
#include "compat/snarkjs.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/pairing.h"
#include "field/fp.h"
#include "field/fr.h"
#include "groth16/groth16.h"
#include "util/alloc.h"
#include "util/error.h"

#define TEN19 10000000000000000000ULL

/* ---------------------------------------------------------------- decimal text */

/* Canonical limbs (n <= 6, little-endian) to decimal. */
static void limbs_to_decimal(char *out, const uint64_t *in, size_t n)
{
    uint64_t l[6], chunks[8];
    size_t nc = 0;
    memcpy(l, in, n * sizeof *l);
    for (;;) {
        int zero = 1;
        unsigned __int128 rem = 0;
        for (size_t i = n; i-- > 0;) {
            unsigned __int128 cur = rem << 64 | l[i];
            l[i] = (uint64_t)(cur / TEN19);
            rem = cur % TEN19;
            zero &= l[i] == 0;
        }
        chunks[nc++] = (uint64_t)rem;
        if (zero)
            break;
    }
    int k = sprintf(out, "%llu", (unsigned long long)chunks[nc - 1]);
    for (size_t i = nc - 1; i-- > 0;)
        k += sprintf(out + k, "%019llu", (unsigned long long)chunks[i]);
}

void g16__fp_to_decimal(char out[G16__DEC_MAX], const g16_fp *a)
{
    uint64_t l[6];
    g16__fp_to_limbs(l, a);
    limbs_to_decimal(out, l, 6);
}

void g16__fr_to_decimal(char out[G16__DEC_MAX], const g16_fr *a)
{
    uint64_t l[4];
    g16__fr_to_limbs(l, a);
    limbs_to_decimal(out, l, 4);
}

/* Decimal digits to n canonical limbs: 0, -1 for bad text, -2 when the value needs more than n
 * limbs (then certainly above any modulus of n limbs). */
static int limbs_from_decimal(uint64_t *l, size_t n, const char *s, size_t len)
{
    if (len == 0 || (len > 1 && s[0] == '0'))
        return -1;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return -1;
    if (len > G16__DEC_MAX - 1)
        return -2;
    memset(l, 0, n * sizeof *l);
    for (size_t pos = 0; pos < len;) {
        size_t k = len - pos < 19 ? len - pos : 19;
        uint64_t chunk = 0, scale = 1;
        for (size_t i = 0; i < k; i++, pos++) {
            chunk = chunk * 10 + (uint64_t)(s[pos] - '0');
            scale *= 10;
        }
        unsigned __int128 carry = chunk;
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 cur = (unsigned __int128)l[i] * scale + carry;
            l[i] = (uint64_t)cur;
            carry = cur >> 64;
        }
        if (carry)
            return -2;
    }
    return 0;
}

g16_status g16__fp_from_decimal(g16_fp *out, const char *s, size_t len)
{
    uint64_t l[6];
    int rc = limbs_from_decimal(l, 6, s, len);
    if (rc == -1)
        return G16_ERR_FORMAT;
    if (rc == -2 || g16__fp_from_limbs(out, l) != 0)
        return G16_ERR_COORD_RANGE;
    return G16_OK;
}

g16_status g16__fr_from_decimal(g16_fr *out, const char *s, size_t len)
{
    uint64_t l[4];
    int rc = limbs_from_decimal(l, 4, s, len);
    if (rc == -1)
        return G16_ERR_FORMAT;
    if (rc == -2 || g16__fr_from_limbs(out, l) != 0)
        return G16_ERR_SCALAR_RANGE;
    return G16_OK;
}

/* ---------------------------------------------------------------- writing */

static void put_fp(g16__jbuf *b, const g16_fp *a, const char *indent, int last)
{
    char d[G16__DEC_MAX];
    g16__fp_to_decimal(d, a);
    g16__jbuf_printf(b, "%s\"%s\"%s\n", indent, d, last ? "" : ",");
}

/* A G1 point as the value of key (NULL inside an array), at one-space indentation depth. */
static void put_g1(g16__jbuf *b, const char *key, const g16_p1_affine *p, const char *ind, int last)
{
    char inner[16];
    snprintf(inner, sizeof inner, "%s ", ind);
    if (key)
        g16__jbuf_printf(b, "%s\"%s\": [\n", ind, key);
    else
        g16__jbuf_printf(b, "%s[\n", ind);
    if (g16__p1_affine_is_infinity(p)) {
        g16__jbuf_printf(b, "%s\"0\",\n%s\"1\",\n%s\"0\"\n", inner, inner, inner);
    } else {
        put_fp(b, &p->x, inner, 0);
        put_fp(b, &p->y, inner, 0);
        g16__jbuf_printf(b, "%s\"1\"\n", inner);
    }
    g16__jbuf_printf(b, "%s]%s\n", ind, last ? "" : ",");
}

static void put_fp2(g16__jbuf *b, const g16_fp2 *a, const char *ind, int last)
{
    char inner[16];
    snprintf(inner, sizeof inner, "%s ", ind);
    g16__jbuf_printf(b, "%s[\n", ind);
    put_fp(b, &a->c0, inner, 0);
    put_fp(b, &a->c1, inner, 1);
    g16__jbuf_printf(b, "%s]%s\n", ind, last ? "" : ",");
}

static void put_g2(g16__jbuf *b, const char *key, const g16_p2_affine *p, const char *ind, int last)
{
    char inner[16], in2[16];
    snprintf(inner, sizeof inner, "%s ", ind);
    snprintf(in2, sizeof in2, "%s  ", ind);
    g16__jbuf_printf(b, "%s\"%s\": [\n", ind, key);
    g16_fp2 x = p->x, y = p->y, z;
    memset(&z, 0, sizeof z);
    if (g16__p2_affine_is_infinity(p)) {
        memset(&x, 0, sizeof x);
        memset(&y, 0, sizeof y);
        y.c0 = g16__fp_one;
    } else {
        z.c0 = g16__fp_one;
    }
    put_fp2(b, &x, inner, 0);
    put_fp2(b, &y, inner, 0);
    put_fp2(b, &z, inner, 1);
    g16__jbuf_printf(b, "%s]%s\n", ind, last ? "" : ",");
}

/* The six Fp2 coefficients of an Fp12 in snarkjs's order: [[c0.c0, c0.c1, c0.c2], [c1.c0, ...]]
 * (ffjavascript builds the same tower: v^3 = u + 1, w^2 = v). */
static const g16_fp2 *fp12_coeff(const g16_fp12 *e, int i, int j)
{
    const g16_fp6 *h = i ? &e->c1 : &e->c0;
    return j == 0 ? &h->c0 : j == 1 ? &h->c1 : &h->c2;
}

static void put_fp12(g16__jbuf *b, const char *key, const g16_fp12 *e)
{
    g16__jbuf_printf(b, " \"%s\": [\n", key);
    for (int i = 0; i < 2; i++) {
        g16__jbuf_puts(b, "  [\n");
        for (int j = 0; j < 3; j++)
            put_fp2(b, fp12_coeff(e, i, j), "   ", j == 2);
        g16__jbuf_printf(b, "  ]%s\n", i ? "" : ",");
    }
    g16__jbuf_puts(b, " ],\n");
}

char *g16__snarkjs_vk_json(const g16_vk *vk)
{
    g16_fp12 ab;
    g16__pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
    g16__jbuf b = {0};
    g16__jbuf_printf(&b, "{\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\",\n \"nPublic\": %llu,\n",
                     (unsigned long long)(vk->n_ic - 1));
    put_g1(&b, "vk_alpha_1", &vk->alpha_g1, " ", 0);
    put_g2(&b, "vk_beta_2", &vk->beta_g2, " ", 0);
    put_g2(&b, "vk_gamma_2", &vk->gamma_g2, " ", 0);
    put_g2(&b, "vk_delta_2", &vk->delta_g2, " ", 0);
    put_fp12(&b, "vk_alphabeta_12", &ab);
    g16__jbuf_puts(&b, " \"IC\": [\n");
    for (uint64_t i = 0; i < vk->n_ic; i++)
        put_g1(&b, NULL, &vk->ic[i], "  ", i + 1 == vk->n_ic);
    g16__jbuf_puts(&b, " ]\n}"); /* no final newline, as snarkjs writes it */
    return g16__jbuf_take(&b);
}

char *g16__snarkjs_proof_json(const g16_proof *proof)
{
    g16__jbuf b = {0};
    g16__jbuf_puts(&b, "{\n");
    put_g1(&b, "pi_a", &proof->a, " ", 0);
    put_g2(&b, "pi_b", &proof->b, " ", 0);
    put_g1(&b, "pi_c", &proof->c, " ", 0);
    g16__jbuf_puts(&b, " \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}");
    return g16__jbuf_take(&b);
}

char *g16__snarkjs_public_json(const g16_fr *inputs, size_t n_inputs)
{
    g16__jbuf b = {0};
    g16__jbuf_puts(&b, n_inputs ? "[\n" : "[");
    for (size_t i = 0; i < n_inputs; i++) {
        char d[G16__DEC_MAX];
        g16__fr_to_decimal(d, &inputs[i]);
        g16__jbuf_printf(&b, " \"%s\"%s\n", d, i + 1 < n_inputs ? "," : "");
    }
    g16__jbuf_puts(&b, "]");
    return g16__jbuf_take(&b);
}

/* ---------------------------------------------------------------- reading */

typedef struct {
    const char *what;
    const char *text;
    size_t len;
    g16_error *err;
} ctx;

static g16_status bad(const ctx *c, const g16__json *at, g16_status st, const char *path, const char *why)
{
    size_t line = 0, col = 0;
    if (at)
        g16__json_line_col(c->text, c->len, at->offset, &line, &col);
    if (at)
        return g16__error(c->err, st, "%s: %s (line %zu): %s", c->what, path, line, why);
    return g16__error(c->err, st, "%s: %s: %s", c->what, path, why);
}

/* A decimal value: a string of digits or a JSON integer. */
static g16_status read_decimal(const ctx *c, const g16__json *v, const char *path, int fr, void *out)
{
    if (!v)
        return bad(c, NULL, G16_ERR_FORMAT, path, "missing");
    if (v->type != G16__JSON_STRING && v->type != G16__JSON_NUMBER) {
        char why[96];
        snprintf(why, sizeof why, "expected a decimal string, found %s", g16__json_type_name(v->type));
        return bad(c, v, G16_ERR_FORMAT, path, why);
    }
    g16_status st = fr ? g16__fr_from_decimal(out, v->str, v->len) : g16__fp_from_decimal(out, v->str, v->len);
    if (st == G16_ERR_FORMAT)
        return bad(c, v, st, path, "not a canonical decimal number (digits only, no sign, no leading zeros)");
    if (st != G16_OK)
        return bad(c, v, st, path, fr ? "the value is not below the group order r" : "the coordinate is not below p");
    return G16_OK;
}

static g16_status want_array(const ctx *c, const g16__json *v, size_t n, const char *path)
{
    if (!v)
        return bad(c, NULL, G16_ERR_FORMAT, path, "missing");
    if (v->type != G16__JSON_ARRAY || v->len != n) {
        char why[96];
        if (v->type == G16__JSON_ARRAY)
            snprintf(why, sizeof why, "expected an array of %zu elements, found %zu", n, v->len);
        else
            snprintf(why, sizeof why, "expected an array of %zu elements, found %s", n, g16__json_type_name(v->type));
        return bad(c, v, G16_ERR_FORMAT, path, why);
    }
    return G16_OK;
}

static g16_status read_fp2(const ctx *c, const g16__json *v, const char *path, g16_fp2 *out)
{
    char sub[112]; /* path (< 96) + "[i]" */
    g16_status st = want_array(c, v, 2, path);
    for (int i = 0; st == G16_OK && i < 2; i++) {
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        st = read_decimal(c, g16__json_at(v, (size_t)i), sub, 0, i ? &out->c1 : &out->c0);
    }
    return st;
}

static g16_status read_g1(const ctx *c, const g16__json *v, const char *path, g16_p1_affine *out)
{
    char sub[96];
    g16_fp co[3];
    g16_status st = want_array(c, v, 3, path);
    for (int i = 0; st == G16_OK && i < 3; i++) {
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        st = read_decimal(c, g16__json_at(v, (size_t)i), sub, 0, &co[i]);
    }
    if (st != G16_OK)
        return st;
    if (g16__fp_is_zero(&co[2])) {
        if (!g16__fp_is_zero(&co[0]) || !g16__fp_is_one(&co[1]))
            return bad(c, v, G16_ERR_FORMAT, path, "z = 0 is infinity, written [\"0\", \"1\", \"0\"]");
        memset(out, 0, sizeof *out);
        return G16_OK;
    }
    if (!g16__fp_is_one(&co[2]))
        return bad(c, v, G16_ERR_FORMAT, path, "z must be \"1\" (affine) or \"0\" (infinity)");
    g16_p1_affine p = {co[0], co[1]};
    if (g16__p1_affine_is_infinity(&p) || !g16__p1_affine_on_curve(&p))
        return bad(c, v, G16_ERR_NOT_ON_CURVE, path, "the point is not on the BLS12-381 G1 curve");
    if (!g16__p1_affine_in_subgroup(&p))
        return bad(c, v, G16_ERR_NOT_IN_SUBGROUP, path, "the point is not in the prime-order subgroup of G1");
    *out = p;
    return G16_OK;
}

static g16_status read_g2(const ctx *c, const g16__json *v, const char *path, g16_p2_affine *out)
{
    char sub[96];
    g16_fp2 co[3];
    g16_status st = want_array(c, v, 3, path);
    for (int i = 0; st == G16_OK && i < 3; i++) {
        snprintf(sub, sizeof sub, "%s[%d]", path, i);
        st = read_fp2(c, g16__json_at(v, (size_t)i), sub, &co[i]);
    }
    if (st != G16_OK)
        return st;
    int z_zero = g16__fp_is_zero(&co[2].c0) && g16__fp_is_zero(&co[2].c1);
    int z_one = g16__fp_is_one(&co[2].c0) && g16__fp_is_zero(&co[2].c1);
    if (z_zero) {
        if (!g16__fp_is_zero(&co[0].c0) || !g16__fp_is_zero(&co[0].c1) || !g16__fp_is_one(&co[1].c0) ||
            !g16__fp_is_zero(&co[1].c1))
            return bad(c, v, G16_ERR_FORMAT, path, "z = 0 is infinity, written [[\"0\",\"0\"],[\"1\",\"0\"],[\"0\",\"0\"]]");
        memset(out, 0, sizeof *out);
        return G16_OK;
    }
    if (!z_one)
        return bad(c, v, G16_ERR_FORMAT, path, "z must be [\"1\", \"0\"] (affine) or [\"0\", \"0\"] (infinity)");
    g16_p2_affine p = {co[0], co[1]};
    if (g16__p2_affine_is_infinity(&p) || !g16__p2_affine_on_curve(&p))
        return bad(c, v, G16_ERR_NOT_ON_CURVE, path, "the point is not on the BLS12-381 G2 curve");
    if (!g16__p2_affine_in_subgroup(&p))
        return bad(c, v, G16_ERR_NOT_IN_SUBGROUP, path, "the point is not in the prime-order subgroup of G2");
    *out = p;
    return G16_OK;
}

int g16__snarkjs_curve_is_bls12381(const char *name)
{
    char norm[32];
    size_t k = 0;
    for (const char *s = name; *s; s++)
        if (isalnum((unsigned char)*s)) {
            if (k + 1 >= sizeof norm)
                return 0;
            norm[k++] = (char)toupper((unsigned char)*s);
        }
    norm[k] = 0;
    return !strcmp(norm, "BLS12381");
}

/* "protocol" and "curve" members: required (required = 1) or checked only when present. */
static g16_status check_protocol_curve(const ctx *c, const g16__json *root, int required)
{
    const g16__json *proto = g16__json_get(root, "protocol"), *curve = g16__json_get(root, "curve");
    char why[160];
    if (!proto && required)
        return bad(c, root, G16_ERR_FORMAT, "protocol", "missing (snarkjs writes \"groth16\")");
    if (proto && (proto->type != G16__JSON_STRING || strcmp(proto->str, "groth16"))) {
        snprintf(why, sizeof why, "the protocol is %.60s%s%s; g16 handles groth16 only",
                 proto->type == G16__JSON_STRING ? "\"" : "a JSON ",
                 proto->type == G16__JSON_STRING ? proto->str : g16__json_type_name(proto->type),
                 proto->type == G16__JSON_STRING ? "\"" : "");
        return bad(c, proto, G16_ERR_UNSUPPORTED, "protocol", why);
    }
    if (!curve && required)
        return bad(c, root, G16_ERR_FORMAT, "curve", "missing (snarkjs writes \"bls12381\")");
    if (curve && (curve->type != G16__JSON_STRING || !g16__snarkjs_curve_is_bls12381(curve->str))) {
        snprintf(why, sizeof why, "the curve is %.60s%s%s; g16 handles BLS12-381 (\"bls12381\") only",
                 curve->type == G16__JSON_STRING ? "\"" : "a JSON ",
                 curve->type == G16__JSON_STRING ? curve->str : g16__json_type_name(curve->type),
                 curve->type == G16__JSON_STRING ? "\"" : "");
        return bad(c, curve, G16_ERR_UNSUPPORTED, "curve", why);
    }
    return G16_OK;
}

static g16_status parse_object(g16__json_doc *doc, const ctx *c)
{
    g16_status st = g16__json_parse(doc, c->text, c->len, c->what, c->err);
    if (st == G16_OK && doc->root->type != G16__JSON_OBJECT) {
        char why[64];
        snprintf(why, sizeof why, "expected a JSON object, found %s", g16__json_type_name(doc->root->type));
        st = bad(c, doc->root, G16_ERR_FORMAT, "the top level", why);
        g16__json_free(doc);
    }
    return st;
}

/* nPublic as a non-negative integer (JSON number or decimal string). */
static g16_status read_count(const ctx *c, const g16__json *v, const char *path, uint64_t *out)
{
    if (!v)
        return bad(c, NULL, G16_ERR_FORMAT, path, "missing");
    if ((v->type != G16__JSON_NUMBER && v->type != G16__JSON_STRING) || v->len == 0 || v->len > 9 ||
        (v->len > 1 && v->str[0] == '0'))
        return bad(c, v, G16_ERR_FORMAT, path, "expected a non-negative integer below 10^9");
    uint64_t n = 0;
    for (size_t i = 0; i < v->len; i++) {
        if (v->str[i] < '0' || v->str[i] > '9')
            return bad(c, v, G16_ERR_FORMAT, path, "expected a non-negative integer below 10^9");
        n = n * 10 + (uint64_t)(v->str[i] - '0');
    }
    *out = n;
    return G16_OK;
}

/* vk_alphabeta_12 is optional (snarkjs's verifier does not read it); when present it must be
 * e(vk_alpha_1, vk_beta_2), so that a key edited by hand is not half-trusted. */
static g16_status check_alphabeta(const ctx *c, const g16__json *v, const struct g16_vk *vk)
{
    if (!v)
        return G16_OK;
    g16_status st = want_array(c, v, 2, "vk_alphabeta_12");
    g16_fp12 want;
    g16__pairing(&want, &vk->alpha_g1, &vk->beta_g2);
    for (int i = 0; st == G16_OK && i < 2; i++) {
        char path[48];
        snprintf(path, sizeof path, "vk_alphabeta_12[%d]", i);
        const g16__json *h = g16__json_at(v, (size_t)i);
        st = want_array(c, h, 3, path);
        for (int j = 0; st == G16_OK && j < 3; j++) {
            g16_fp2 got;
            snprintf(path, sizeof path, "vk_alphabeta_12[%d][%d]", i, j);
            st = read_fp2(c, g16__json_at(h, (size_t)j), path, &got);
            const g16_fp2 *w = fp12_coeff(&want, i, j);
            if (st == G16_OK && (!g16__fp_eq(&got.c0, &w->c0) || !g16__fp_eq(&got.c1, &w->c1)))
                st = bad(c, v, G16_ERR_FORMAT, "vk_alphabeta_12", "does not equal e(vk_alpha_1, vk_beta_2)");
        }
    }
    return st;
}

g16_status g16__snarkjs_vk_read(g16_vk **out, const char *text, size_t len, const char *what, g16_error *err)
{
    ctx c = {what ? what : "verification key", text, len, err};
    g16__json_doc doc;
    struct g16_vk *vk = NULL;
    uint64_t n_public = 0;
    g16_status st = parse_object(&doc, &c);
    if (st != G16_OK)
        return st;
    const g16__json *root = doc.root, *ic = g16__json_get(root, "IC");
    if ((st = check_protocol_curve(&c, root, 1)) != G16_OK || (st = read_count(&c, g16__json_get(root, "nPublic"),
                                                                             "nPublic", &n_public)) != G16_OK)
        goto cleanup;
    if (!ic || ic->type != G16__JSON_ARRAY || ic->len == 0) {
        st = bad(&c, ic, G16_ERR_FORMAT, "IC", ic ? "expected a non-empty array of G1 points" : "missing");
        goto cleanup;
    }
    if (ic->len != n_public + 1) {
        char why[128];
        snprintf(why, sizeof why, "nPublic is %llu but IC has %zu points (nPublic + 1 expected)",
                 (unsigned long long)n_public, ic->len);
        st = bad(&c, ic, G16_ERR_SIZE_MISMATCH, "IC", why);
        goto cleanup;
    }
    if (!(vk = calloc(1, sizeof *vk)) || !(vk->ic = g16__alloc_large_zero(ic->len, sizeof *vk->ic))) {
        st = g16__error(err, G16_ERR_NOMEM, "%s: %zu IC points", c.what, ic->len);
        goto cleanup;
    }
    vk->n_ic = ic->len;
    if ((st = read_g1(&c, g16__json_get(root, "vk_alpha_1"), "vk_alpha_1", &vk->alpha_g1)) != G16_OK ||
        (st = read_g2(&c, g16__json_get(root, "vk_beta_2"), "vk_beta_2", &vk->beta_g2)) != G16_OK ||
        (st = read_g2(&c, g16__json_get(root, "vk_gamma_2"), "vk_gamma_2", &vk->gamma_g2)) != G16_OK ||
        (st = read_g2(&c, g16__json_get(root, "vk_delta_2"), "vk_delta_2", &vk->delta_g2)) != G16_OK)
        goto cleanup;
    size_t i = 0;
    for (const g16__json *p = ic->child; p; p = p->next, i++) {
        char path[32];
        snprintf(path, sizeof path, "IC[%zu]", i);
        if ((st = read_g1(&c, p, path, &vk->ic[i])) != G16_OK)
            goto cleanup;
    }
    if ((st = check_alphabeta(&c, g16__json_get(root, "vk_alphabeta_12"), vk)) != G16_OK)
        goto cleanup;
    *out = vk;
    vk = NULL;
cleanup:
    if (vk && !vk->ic)
        free(vk);
    else
        g16_vk_destroy(vk);
    g16__json_free(&doc);
    return st;
}

g16_status g16__snarkjs_proof_read(g16_proof *out, const char *text, size_t len, const char *what, g16_error *err)
{
    ctx c = {what ? what : "proof", text, len, err};
    g16__json_doc doc;
    g16_proof p;
    g16_status st = parse_object(&doc, &c);
    if (st != G16_OK)
        return st;
    const g16__json *root = doc.root;
    if ((st = check_protocol_curve(&c, root, 0)) == G16_OK &&
        (st = read_g1(&c, g16__json_get(root, "pi_a"), "pi_a", &p.a)) == G16_OK &&
        (st = read_g2(&c, g16__json_get(root, "pi_b"), "pi_b", &p.b)) == G16_OK &&
        (st = read_g1(&c, g16__json_get(root, "pi_c"), "pi_c", &p.c)) == G16_OK)
        *out = p;
    g16__json_free(&doc);
    return st;
}

g16_status g16__snarkjs_public_read(g16_fr **inputs, size_t *n_inputs, const char *text, size_t len,
                                   const char *what, g16_error *err)
{
    ctx c = {what ? what : "public inputs", text, len, err};
    g16__json_doc doc;
    g16_fr *v = NULL;
    g16_status st = g16__json_parse(&doc, text, len, c.what, err);
    if (st != G16_OK)
        return st;
    const g16__json *root = doc.root;
    if (root->type != G16__JSON_ARRAY) {
        char why[64];
        snprintf(why, sizeof why, "expected an array of decimal strings, found %s", g16__json_type_name(root->type));
        st = bad(&c, root, G16_ERR_FORMAT, "the top level", why);
        goto cleanup;
    }
    if (root->len && !(v = malloc(root->len * sizeof *v))) {
        st = g16__error(err, G16_ERR_NOMEM, "%s: %zu inputs", c.what, root->len);
        goto cleanup;
    }
    size_t i = 0;
    for (const g16__json *e = root->child; e; e = e->next, i++) {
        char path[32];
        snprintf(path, sizeof path, "[%zu]", i);
        if ((st = read_decimal(&c, e, path, 1, &v[i])) != G16_OK)
            goto cleanup;
    }
    *inputs = v;
    *n_inputs = root->len;
    v = NULL;
cleanup:
    free(v);
    g16__json_free(&doc);
    return st;
}
