/*
 * Known-answer tests against @noble/curves 2.4.0, an independent BLS12-381 implementation:
 * every record of tests/data/noble_vectors.txt (written by tools/vectors/gen.mjs, whose
 * header documents the format) is checked byte for byte against g16 — scalar
 * multiplication, addition, doubling, point encodings and decodings, the exact status of
 * each invalid encoding, pairings and multi-pairings, and Fp / Fr / Fp2 arithmetic.
 *
 * The file is found through G16_TEST_DATA (CMake sets it to tests/data), else relative
 * paths. A missing file, a malformed record, an unknown type or zero records of any
 * expected type fails the test: it never passes vacuously. Disagreements are printed
 * with the record's line number, the operation, and the expected and actual bytes.
 */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/pairing.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fp2.h"
#include "field/fr.h"

/* ------------------------------------------------------------------ the vector file */

#define MAX_KEYS 16

typedef struct {
    const char *key, *val;
} kv;

typedef struct {
    int line; /* line of the type= key, for messages */
    const char *type;
    int nkv;
    kv kv[MAX_KEYS];
} record;

static const char *const TYPES[] = {
    "g1_mul", "g2_mul", "g1_add", "g2_add", "g1_dbl",        "g2_dbl", "g1_decode", "g2_decode",
    "g1_invalid", "g2_invalid", "pairing", "multi_pairing", "fp", "fr", "fp2",
};
#define NTYPES (sizeof TYPES / sizeof TYPES[0])

static char *file_text;
static record *recs;
static size_t nrecs;
static size_t type_count[NTYPES];
static int failures; /* disagreements found by the current test */

static int type_index(const char *t)
{
    for (size_t i = 0; i < NTYPES; i++)
        if (strcmp(TYPES[i], t) == 0)
            return (int)i;
    return -1;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long len;
    if (!f)
        return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0)
        goto cleanup;
    buf = malloc((size_t)len + 1);
    if (!buf)
        goto cleanup;
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        buf = NULL;
        goto cleanup;
    }
    buf[len] = 0;
cleanup:
    fclose(f);
    return buf;
}

static char *open_vectors(void)
{
    static const char *const fallbacks[] = {"tests/data/noble_vectors.txt", "../tests/data/noble_vectors.txt",
                                            "../../tests/data/noble_vectors.txt"};
    char path[4096];
    const char *dir = getenv("G16_TEST_DATA");
    char *text;
    if (dir && *dir) {
        snprintf(path, sizeof path, "%s/noble_vectors.txt", dir);
        text = read_file(path);
        fprintf(stderr, "noble_kat: %s %s\n", text ? "reading" : "cannot read", path);
        if (text)
            return text;
    }
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++) {
        text = read_file(fallbacks[i]);
        if (text) {
            fprintf(stderr, "noble_kat: reading %s\n", fallbacks[i]);
            return text;
        }
    }
    return NULL;
}

/* Splits the text in place into records; returns 0, or -1 (after printing why). */
static int parse_vectors(char *text)
{
    size_t cap = 0;
    record *cur = NULL;
    int line = 0;
    for (char *s = text; *s;) {
        char *nl = strchr(s, '\n');
        char *next = nl ? nl + 1 : s + strlen(s);
        if (nl)
            *nl = 0;
        line++;
        if (*s == '#') {
            /* comment */
        } else if (*s == 0) {
            cur = NULL;
        } else {
            char *eq = strchr(s, '=');
            if (!eq) {
                fprintf(stderr, "noble_kat: line %d: expected key=value\n", line);
                return -1;
            }
            *eq = 0;
            if (!cur) {
                if (strcmp(s, "type") != 0) {
                    fprintf(stderr, "noble_kat: line %d: a record must start with type=\n", line);
                    return -1;
                }
                if (nrecs == cap) {
                    cap = cap ? 2 * cap : 256;
                    record *grown = realloc(recs, cap * sizeof *recs);
                    if (!grown)
                        return -1;
                    recs = grown;
                }
                cur = &recs[nrecs++];
                memset(cur, 0, sizeof *cur);
                cur->line = line;
                cur->type = eq + 1;
            }
            if (cur->nkv == MAX_KEYS) {
                fprintf(stderr, "noble_kat: line %d: more than %d keys in a record\n", line, MAX_KEYS);
                return -1;
            }
            cur->kv[cur->nkv].key = s;
            cur->kv[cur->nkv].val = eq + 1;
            cur->nkv++;
        }
        s = next;
    }
    return 0;
}

/* ------------------------------------------------------------------ reporting helpers */

static void fail_at(const record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_at(const record *r, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "MISMATCH line %d (%s): ", r->line, r->type);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    failures++;
}

static const char *get(const record *r, const char *key)
{
    for (int i = 0; i < r->nkv; i++)
        if (strcmp(r->kv[i].key, key) == 0)
            return r->kv[i].val;
    fail_at(r, "missing key %s", key);
    return NULL;
}

/* Decodes exactly n bytes of hex under key; 0 on success. */
static int hex_of(const record *r, const char *key, uint8_t *out, size_t n)
{
    const char *v = get(r, key);
    if (!v)
        return -1;
    if (tu_hex_decode(out, n, v) != (long)n) {
        fail_at(r, "key %s: expected %zu bytes of hex", key, n);
        return -1;
    }
    return 0;
}

/* Compares got with the hex under key. */
static void expect_hex(const record *r, const char *key, const char *what, const uint8_t *got, size_t n)
{
    uint8_t want[G16__FP12_BYTES];
    char hw[2 * G16__FP12_BYTES + 1], hg[2 * G16__FP12_BYTES + 1];
    if (n > sizeof want || hex_of(r, key, want, n) != 0)
        return;
    if (memcmp(want, got, n) == 0)
        return;
    tu_hex_encode(hw, want, n);
    tu_hex_encode(hg, got, n);
    fail_at(r, "%s (key %s)\n  expected %s\n  got      %s", what, key, hw, hg);
}

static void expect_status(const record *r, const char *what, g16_status want, g16_status got)
{
    if (want != got)
        fail_at(r, "%s: expected status %d (%s), got %d (%s)", what, (int)want, g16_strerror(want), (int)got,
                g16_strerror(got));
}

static void expect_true(const record *r, const char *what, int cond)
{
    if (!cond)
        fail_at(r, "%s", what);
}

/* ------------------------------------------------------------------ G1 / G2 behind one table */

typedef union {
    g16_p1 p1;
    g16_p2 p2;
} jac;
typedef union {
    g16_p1_affine p1;
    g16_p2_affine p2;
} aff;

typedef struct {
    const char *name;
    size_t clen, ulen;
    g16_status (*uncompress)(aff *, const uint8_t *);
    g16_status (*deserialize)(aff *, const uint8_t *);
    g16_status (*uncompress_unchecked)(aff *, const uint8_t *);
    g16_status (*deserialize_unchecked)(aff *, const uint8_t *);
    void (*compress)(uint8_t *, const aff *);
    void (*serialize)(uint8_t *, const aff *);
    void (*generator)(jac *);
    void (*from_affine)(jac *, const aff *);
    void (*to_affine)(aff *, const jac *);
    void (*add)(jac *, const jac *, const jac *);
    void (*add_var)(jac *, const jac *, const jac *);
    void (*add_affine)(jac *, const jac *, const aff *);
    void (*add_affine_var)(jac *, const jac *, const aff *);
    void (*dbl)(jac *, const jac *);
    void (*mul)(jac *, const jac *, const g16_fr *);
    void (*mul_var)(jac *, const jac *, const g16_fr *);
    void (*mul_limbs_var)(jac *, const jac *, const uint64_t *, size_t);
    int (*on_curve)(const aff *);
    int (*in_subgroup)(const aff *);
    int (*is_infinity)(const aff *);
    void (*batch_to_affine)(aff *, const jac *, size_t); /* n <= MAX_BATCH */
} curve_ops;

#define MAX_BATCH 64

#define WRAP_CURVE(P, PT, PTA)                                                                                        \
    static g16_status P##_uncompress(aff *r, const uint8_t *in) { return g16_##P##_affine_uncompress(&r->P, in); }    \
    static g16_status P##_deserialize(aff *r, const uint8_t *in)                                                      \
    {                                                                                                                 \
        return g16_##P##_affine_deserialize(&r->P, in);                                                               \
    }                                                                                                                 \
    static g16_status P##_uncompress_unchecked(aff *r, const uint8_t *in)                                             \
    {                                                                                                                 \
        return g16_##P##_affine_uncompress_unchecked(&r->P, in);                                                      \
    }                                                                                                                 \
    static g16_status P##_deserialize_unchecked(aff *r, const uint8_t *in)                                            \
    {                                                                                                                 \
        return g16_##P##_affine_deserialize_unchecked(&r->P, in);                                                     \
    }                                                                                                                 \
    static void P##_compress(uint8_t *o, const aff *a) { g16_##P##_affine_compress(o, &a->P); }                       \
    static void P##_serialize(uint8_t *o, const aff *a) { g16_##P##_affine_serialize(o, &a->P); }                     \
    static void P##_generator(jac *r) { g16__##P##_generator(&r->P); }                                                \
    static void P##_from_affine(jac *r, const aff *a) { g16__##P##_from_affine(&r->P, &a->P); }                       \
    static void P##_to_affine(aff *r, const jac *a) { g16__##P##_to_affine(&r->P, &a->P); }                           \
    static void P##_add(jac *r, const jac *a, const jac *b) { g16__##P##_add(&r->P, &a->P, &b->P); }                  \
    static void P##_add_var(jac *r, const jac *a, const jac *b) { g16__##P##_add_var(&r->P, &a->P, &b->P); }          \
    static void P##_add_affine(jac *r, const jac *a, const aff *b)                                                    \
    {                                                                                                                 \
        g16__##P##_add_affine(&r->P, &a->P, &b->P);                                                                   \
    }                                                                                                                 \
    static void P##_add_affine_var(jac *r, const jac *a, const aff *b)                                                \
    {                                                                                                                 \
        g16__##P##_add_affine_var(&r->P, &a->P, &b->P);                                                               \
    }                                                                                                                 \
    static void P##_dbl(jac *r, const jac *a) { g16__##P##_dbl(&r->P, &a->P); }                                       \
    static void P##_mul(jac *r, const jac *a, const g16_fr *k) { g16__##P##_mul(&r->P, &a->P, k); }                   \
    static void P##_mul_var(jac *r, const jac *a, const g16_fr *k) { g16__##P##_mul_var(&r->P, &a->P, k); }           \
    static void P##_mul_limbs_var(jac *r, const jac *a, const uint64_t *k, size_t nbits)                              \
    {                                                                                                                 \
        g16__##P##_mul_limbs_var(&r->P, &a->P, k, nbits);                                                             \
    }                                                                                                                 \
    static int P##_on_curve(const aff *a) { return g16__##P##_affine_on_curve(&a->P); }                               \
    static int P##_in_subgroup(const aff *a) { return g16__##P##_affine_in_subgroup(&a->P); }                         \
    static int P##_is_infinity(const aff *a) { return g16__##P##_affine_is_infinity(&a->P); }                         \
    static void P##_batch_to_affine(aff *r, const jac *a, size_t n)                                                   \
    {                                                                                                                 \
        static PT t[MAX_BATCH];                                                                                       \
        static PTA u[MAX_BATCH];                                                                                      \
        for (size_t i = 0; i < n; i++)                                                                                \
            t[i] = a[i].P;                                                                                            \
        g16__##P##_batch_to_affine(u, t, n);                                                                          \
        for (size_t i = 0; i < n; i++)                                                                                \
            r[i].P = u[i];                                                                                            \
    }

WRAP_CURVE(p1, g16_p1, g16_p1_affine)
WRAP_CURVE(p2, g16_p2, g16_p2_affine)

#define CURVE_OPS(P, NAME, CLEN)                                                                                      \
    {                                                                                                                 \
        NAME, CLEN, 2 * (CLEN), P##_uncompress, P##_deserialize, P##_uncompress_unchecked,                            \
            P##_deserialize_unchecked, P##_compress, P##_serialize, P##_generator, P##_from_affine,                   \
            P##_to_affine, P##_add, P##_add_var, P##_add_affine, P##_add_affine_var, P##_dbl, P##_mul,                \
            P##_mul_var, P##_mul_limbs_var, P##_on_curve, P##_in_subgroup, P##_is_infinity,                           \
            P##_batch_to_affine                                                                                       \
    }

static const curve_ops G1_OPS = CURVE_OPS(p1, "g1", 48);
static const curve_ops G2_OPS = CURVE_OPS(p2, "g2", 96);

#define MAX_ENC 192

static int is_type(const record *r, const curve_ops *c, const char *suffix)
{
    char t[32];
    snprintf(t, sizeof t, "%s_%s", c->name, suffix);
    return strcmp(r->type, t) == 0;
}

/* Checks that a Jacobian result encodes to the record's compressed / uncompressed values. */
static void expect_point(const record *r, const curve_ops *c, const char *what, const jac *p)
{
    aff a;
    uint8_t buf[MAX_ENC];
    char msg[96];
    c->to_affine(&a, p);
    c->compress(buf, &a);
    snprintf(msg, sizeof msg, "%s, compressed", what);
    expect_hex(r, "compressed", msg, buf, c->clen);
    c->serialize(buf, &a);
    snprintf(msg, sizeof msg, "%s, uncompressed", what);
    expect_hex(r, "uncompressed", msg, buf, c->ulen);
}

/* Decodes a valid encoding (compressed or uncompressed by its length) with the checked and
 * unchecked decoders; both must succeed with the same point. Returns 0 and sets *out. */
static int decode_valid(const record *r, const curve_ops *c, const char *key, aff *out)
{
    uint8_t enc[MAX_ENC], buf[MAX_ENC];
    const char *v = get(r, key);
    long n;
    aff u;
    if (!v)
        return -1;
    n = tu_hex_decode(enc, sizeof enc, v);
    if (n != (long)c->clen && n != (long)c->ulen) {
        fail_at(r, "key %s: bad encoding length %ld", key, n);
        return -1;
    }
    int comp = n == (long)c->clen;
    g16_status st = comp ? c->uncompress(out, enc) : c->deserialize(out, enc);
    g16_status su = comp ? c->uncompress_unchecked(&u, enc) : c->deserialize_unchecked(&u, enc);
    expect_status(r, comp ? "uncompress of a valid encoding" : "deserialize of a valid encoding", G16_OK, st);
    expect_status(r, "unchecked decoder on a valid encoding", G16_OK, su);
    if (st != G16_OK || su != G16_OK)
        return -1;
    /* decoding then encoding in the same form gives the input back */
    (comp ? c->compress : c->serialize)(buf, out);
    if (memcmp(buf, enc, (size_t)n) != 0)
        fail_at(r, "key %s: decode then encode does not give the input back", key);
    (comp ? c->compress : c->serialize)(buf, &u);
    if (memcmp(buf, enc, (size_t)n) != 0)
        fail_at(r, "key %s: unchecked decode then encode does not give the input back", key);
    expect_true(r, "decoded point is on the curve", c->on_curve(out));
    expect_true(r, "decoded point is in the subgroup", c->in_subgroup(out));
    return 0;
}

/* Scalar of a record: Fr element and canonical little-endian limbs. */
static int scalar_of(const record *r, const char *key, g16_fr *k, uint64_t limbs[4])
{
    uint8_t be[32];
    if (hex_of(r, key, be, 32) != 0)
        return -1;
    if (g16__fr_from_be_bytes(k, be) != 0) {
        fail_at(r, "key %s: scalar >= r", key);
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        limbs[i] = 0;
        for (int j = 0; j < 8; j++)
            limbs[i] |= (uint64_t)be[31 - 8 * i - j] << (8 * j);
    }
    return 0;
}

static void check_mul(const record *r, const curve_ops *c)
{
    g16_fr k;
    uint64_t limbs[4];
    jac g, q;
    aff a;
    if (scalar_of(r, "k", &k, limbs) != 0)
        return;
    c->generator(&g);
    c->mul(&q, &g, &k);
    expect_point(r, c, "k*G by mul (constant-time)", &q);
    c->mul_var(&q, &g, &k);
    expect_point(r, c, "k*G by mul_var", &q);
    c->mul_limbs_var(&q, &g, limbs, 256);
    expect_point(r, c, "k*G by mul_limbs_var", &q);
    /* the expected encodings decode back to the same point */
    if (decode_valid(r, c, "compressed", &a) == 0) {
        c->from_affine(&q, &a);
        expect_point(r, c, "decode(compressed)", &q);
    }
    if (decode_valid(r, c, "uncompressed", &a) == 0) {
        c->from_affine(&q, &a);
        expect_point(r, c, "decode(uncompressed)", &q);
    }
}

static void check_add(const record *r, const curve_ops *c)
{
    aff pa, qa;
    jac p, q, s;
    if (decode_valid(r, c, "p", &pa) != 0 || decode_valid(r, c, "q", &qa) != 0)
        return;
    c->from_affine(&p, &pa);
    c->from_affine(&q, &qa);
    c->add(&s, &p, &q);
    expect_point(r, c, "add(p, q)", &s);
    c->add(&s, &q, &p);
    expect_point(r, c, "add(q, p)", &s);
    c->add_var(&s, &p, &q);
    expect_point(r, c, "add_var(p, q)", &s);
    c->add_affine(&s, &p, &qa);
    expect_point(r, c, "add_affine(p, q)", &s);
    c->add_affine_var(&s, &p, &qa);
    expect_point(r, c, "add_affine_var(p, q)", &s);
    c->add_affine(&s, &q, &pa);
    expect_point(r, c, "add_affine(q, p)", &s);
}

static void check_dbl(const record *r, const curve_ops *c)
{
    aff pa;
    jac p, d;
    if (decode_valid(r, c, "p", &pa) != 0)
        return;
    c->from_affine(&p, &pa);
    c->dbl(&d, &p);
    expect_point(r, c, "dbl(p)", &d);
    c->dbl(&d, &d); /* aliasing, and a Jacobian input with Z != 1 */
    c->add(&p, &p, &p);
    c->add(&p, &p, &p);
    aff x, y;
    uint8_t bx[MAX_ENC], by[MAX_ENC];
    c->to_affine(&x, &d);
    c->to_affine(&y, &p);
    c->compress(bx, &x);
    c->compress(by, &y);
    expect_true(r, "dbl(dbl(p)) = (p + p) + (p + p)", memcmp(bx, by, c->clen) == 0);
}

static void check_decode(const record *r, const curve_ops *c)
{
    aff a;
    jac q;
    uint8_t enc[MAX_ENC];
    if (decode_valid(r, c, "enc", &a) != 0)
        return;
    c->from_affine(&q, &a);
    expect_point(r, c, "decode(enc)", &q);
    if (hex_of(r, "compressed", enc, c->clen) == 0)
        expect_true(r, "is_infinity agrees with the encoding's infinity flag",
                    c->is_infinity(&a) == ((enc[0] & 0x40) != 0));
}

static const struct {
    const char *name;
    g16_status status;
} STATUS_NAMES[] = {
    {"ENCODING_LENGTH", G16_ERR_ENCODING_LENGTH}, {"ENCODING_FLAGS", G16_ERR_ENCODING_FLAGS},
    {"INFINITY_NONCANONICAL", G16_ERR_INFINITY_NONCANONICAL}, {"COORD_RANGE", G16_ERR_COORD_RANGE},
    {"NOT_ON_CURVE", G16_ERR_NOT_ON_CURVE}, {"NOT_IN_SUBGROUP", G16_ERR_NOT_IN_SUBGROUP},
};

static void check_invalid(const record *r, const curve_ops *c)
{
    const char *dec = get(r, "decoder"), *sname = get(r, "status"), *noble = get(r, "noble_rejects");
    const char *note = get(r, "note");
    uint8_t enc[MAX_ENC], buf[MAX_ENC];
    g16_status want = G16_OK;
    aff out, sentinel;
    if (!dec || !sname || !noble || !*noble || !note)
        return;
    for (size_t i = 0; i < sizeof STATUS_NAMES / sizeof STATUS_NAMES[0]; i++)
        if (strcmp(STATUS_NAMES[i].name, sname) == 0)
            want = STATUS_NAMES[i].status;
    if (want == G16_OK) {
        fail_at(r, "unknown status %s", sname);
        return;
    }
    int comp = strcmp(dec, "uncompress") == 0;
    if (!comp && strcmp(dec, "deserialize") != 0) {
        fail_at(r, "unknown decoder %s", dec);
        return;
    }
    size_t n = comp ? c->clen : c->ulen;
    if (hex_of(r, "enc", enc, n) != 0)
        return;

    /* the checked decoder: exactly the expected status, output untouched */
    char what[200];
    snprintf(what, sizeof what, "%s (checked) on \"%s\"", dec, note);
    memset(&sentinel, 0xa5, sizeof sentinel);
    out = sentinel;
    g16_status got = comp ? c->uncompress(&out, enc) : c->deserialize(&out, enc);
    expect_status(r, what, want, got);
    expect_true(r, "a failing decoder leaves its output untouched", memcmp(&out, &sentinel, sizeof out) == 0);

    /* the unchecked decoder: same status, except that it accepts points outside the subgroup */
    snprintf(what, sizeof what, "%s_unchecked on \"%s\"", dec, note);
    out = sentinel;
    got = comp ? c->uncompress_unchecked(&out, enc) : c->deserialize_unchecked(&out, enc);
    if (want != G16_ERR_NOT_IN_SUBGROUP) {
        expect_status(r, what, want, got);
        expect_true(r, "a failing unchecked decoder leaves its output untouched",
                    memcmp(&out, &sentinel, sizeof out) == 0);
        return;
    }
    expect_status(r, what, G16_OK, got);
    if (got != G16_OK)
        return;
    expect_true(r, "unchecked point is on the curve", c->on_curve(&out));
    expect_true(r, "unchecked point is outside the subgroup", !c->in_subgroup(&out));
    (comp ? c->compress : c->serialize)(buf, &out);
    if (memcmp(buf, enc, n) != 0)
        fail_at(r, "unchecked decode then encode does not give the input back");
}

static void run_curve(const curve_ops *c, const char *suffix, void (*fn)(const record *, const curve_ops *))
{
    size_t seen = 0;
    failures = 0;
    for (size_t i = 0; i < nrecs; i++)
        if (is_type(&recs[i], c, suffix)) {
            fn(&recs[i], c);
            seen++;
        }
    fprintf(stderr, "noble_kat: %s_%s: %zu records, %d disagreements\n", c->name, suffix, seen, failures);
    assert_true(seen > 0);
    assert_int_equal(failures, 0);
}

/* All k·G of the *_mul records converted to affine at once (one shared inversion, with
 * infinity among them), each compared with its record. */
static void run_batch(const curve_ops *c)
{
    static jac pts[MAX_BATCH];
    static aff out[MAX_BATCH];
    const record *which[MAX_BATCH];
    size_t n = 0;
    failures = 0;
    for (size_t i = 0; i < nrecs && n < MAX_BATCH; i++) {
        g16_fr k;
        uint64_t limbs[4];
        jac g;
        if (!is_type(&recs[i], c, "mul") || scalar_of(&recs[i], "k", &k, limbs) != 0)
            continue;
        c->generator(&g);
        c->mul_var(&pts[n], &g, &k);
        which[n++] = &recs[i];
    }
    c->batch_to_affine(out, pts, n);
    for (size_t i = 0; i < n; i++) {
        uint8_t buf[MAX_ENC];
        c->compress(buf, &out[i]);
        expect_hex(which[i], "compressed", "batch_to_affine(k*G), compressed", buf, c->clen);
    }
    fprintf(stderr, "noble_kat: %s batch_to_affine: %zu points, %d disagreements\n", c->name, n, failures);
    assert_true(n > 0);
    assert_int_equal(failures, 0);
}

static void test_g1_batch(void **state) { (void)state; run_batch(&G1_OPS); }
static void test_g2_batch(void **state) { (void)state; run_batch(&G2_OPS); }
static void test_g1_mul(void **state) { (void)state; run_curve(&G1_OPS, "mul", check_mul); }
static void test_g2_mul(void **state) { (void)state; run_curve(&G2_OPS, "mul", check_mul); }
static void test_g1_add(void **state) { (void)state; run_curve(&G1_OPS, "add", check_add); }
static void test_g2_add(void **state) { (void)state; run_curve(&G2_OPS, "add", check_add); }
static void test_g1_dbl(void **state) { (void)state; run_curve(&G1_OPS, "dbl", check_dbl); }
static void test_g2_dbl(void **state) { (void)state; run_curve(&G2_OPS, "dbl", check_dbl); }
static void test_g1_decode(void **state) { (void)state; run_curve(&G1_OPS, "decode", check_decode); }
static void test_g2_decode(void **state) { (void)state; run_curve(&G2_OPS, "decode", check_decode); }
static void test_g1_invalid(void **state) { (void)state; run_curve(&G1_OPS, "invalid", check_invalid); }
static void test_g2_invalid(void **state) { (void)state; run_curve(&G2_OPS, "invalid", check_invalid); }

/* ------------------------------------------------------------------ pairings */

static void expect_gt(const record *r, const char *what, const g16_fp12 *e)
{
    uint8_t buf[G16__FP12_BYTES];
    g16__fp12_to_be_bytes(buf, e);
    expect_hex(r, "gt", what, buf, sizeof buf);
}

static void check_pairing(const record *r)
{
    g16_p1_affine p;
    g16_p2_affine q;
    aff a;
    g16_fp12 e, f, from_bytes;
    uint8_t gt[G16__FP12_BYTES];
    g16_fr k;
    uint64_t limbs[4];
    char gbuf[16];

    if (decode_valid(r, &G1_OPS, "g1", &a) != 0)
        return;
    p = a.p1;
    if (decode_valid(r, &G2_OPS, "g2", &a) != 0)
        return;
    q = a.p2;
    /* the points are a·G1 and b·G2 */
    const char *sk[2] = {"a", "b"};
    const curve_ops *ops[2] = {&G1_OPS, &G2_OPS};
    for (int i = 0; i < 2; i++) {
        jac g, m;
        uint8_t enc[MAX_ENC], want[MAX_ENC];
        aff ma;
        if (scalar_of(r, sk[i], &k, limbs) != 0)
            return;
        ops[i]->generator(&g);
        ops[i]->mul_var(&m, &g, &k);
        ops[i]->to_affine(&ma, &m);
        ops[i]->compress(enc, &ma);
        snprintf(gbuf, sizeof gbuf, "g%d", i + 1);
        if (hex_of(r, gbuf, want, ops[i]->clen) == 0)
            expect_true(r, i ? "g2 = b*G2" : "g1 = a*G1", memcmp(enc, want, ops[i]->clen) == 0);
    }

    g16__pairing(&e, &p, &q);
    expect_gt(r, "pairing", &e);
    g16__multi_pairing(&e, &p, &q, 1);
    expect_gt(r, "multi_pairing of one pair", &e);
    g16__miller_loop(&f, &p, &q);
    g16__final_exp(&e, &f);
    expect_gt(r, "final_exp(miller_loop)", &e);
    g16__p2_prepared *prep = malloc(sizeof *prep);
    assert_non_null(prep);
    g16__p2_prepare(prep, &q);
    const g16__p2_prepared *preps[1] = {prep};
    g16__miller_loop_prepared_n(&f, &p, preps, 1);
    g16__final_exp(&e, &f);
    expect_gt(r, "final_exp(miller_loop_prepared_n)", &e);
    free(prep);

    /* the byte form reads back to the same element */
    if (hex_of(r, "gt", gt, sizeof gt) == 0) {
        expect_true(r, "fp12_from_be_bytes accepts the expected gt", g16__fp12_from_be_bytes(&from_bytes, gt) == 0);
        g16__pairing(&e, &p, &q);
        expect_true(r, "fp12_from_be_bytes(gt) equals the pairing", g16__fp12_eq(&from_bytes, &e));
    }
}

#define MAX_PAIRS 8

static void check_multi_pairing(const record *r)
{
    g16_p1_affine p[MAX_PAIRS];
    g16_p2_affine q[MAX_PAIRS];
    g16__p2_prepared *prep = NULL;
    const g16__p2_prepared *preps[MAX_PAIRS];
    g16_fp12 e, f, prod;
    const char *nv = get(r, "n");
    int n = nv ? atoi(nv) : 0;
    if (n < 1 || n > MAX_PAIRS) {
        fail_at(r, "bad n");
        return;
    }
    for (int i = 0; i < n; i++) {
        char key[16];
        aff a;
        snprintf(key, sizeof key, "g1_%d", i);
        if (decode_valid(r, &G1_OPS, key, &a) != 0)
            return;
        p[i] = a.p1;
        snprintf(key, sizeof key, "g2_%d", i);
        if (decode_valid(r, &G2_OPS, key, &a) != 0)
            return;
        q[i] = a.p2;
    }
    g16__multi_pairing(&e, p, q, (size_t)n);
    expect_gt(r, "multi_pairing", &e);
    g16__miller_loop_n(&f, p, q, (size_t)n);
    g16__final_exp(&e, &f);
    expect_gt(r, "final_exp(miller_loop_n)", &e);

    prep = malloc((size_t)n * sizeof *prep);
    assert_non_null(prep);
    for (int i = 0; i < n; i++) {
        g16__p2_prepare(&prep[i], &q[i]);
        preps[i] = &prep[i];
    }
    g16__miller_loop_prepared_n(&f, p, preps, (size_t)n);
    g16__final_exp(&e, &f);
    expect_gt(r, "final_exp(miller_loop_prepared_n)", &e);
    free(prep);

    g16__fp12_set_one(&prod);
    for (int i = 0; i < n; i++) {
        g16__pairing(&e, &p[i], &q[i]);
        g16__fp12_mul(&prod, &prod, &e);
    }
    expect_gt(r, "product of single pairings", &prod);
    const char *note = NULL;
    for (int i = 0; i < r->nkv; i++)
        if (strcmp(r->kv[i].key, "note") == 0)
            note = r->kv[i].val;
    if (note && strcmp(note, "product is 1") == 0)
        expect_true(r, "product is 1", g16__fp12_is_one(&prod));
}

static void run_plain(const char *type, void (*fn)(const record *))
{
    size_t seen = 0;
    failures = 0;
    for (size_t i = 0; i < nrecs; i++)
        if (strcmp(recs[i].type, type) == 0) {
            fn(&recs[i]);
            seen++;
        }
    fprintf(stderr, "noble_kat: %s: %zu records, %d disagreements\n", type, seen, failures);
    assert_true(seen > 0);
    assert_int_equal(failures, 0);
}

static void test_pairing(void **state) { (void)state; run_plain("pairing", check_pairing); }
static void test_multi_pairing(void **state) { (void)state; run_plain("multi_pairing", check_multi_pairing); }

/* ------------------------------------------------------------------ fields */

static int fp_of(const record *r, const char *key, g16_fp *x)
{
    uint8_t b[48];
    if (hex_of(r, key, b, 48) != 0)
        return -1;
    if (g16__fp_from_be_bytes(x, b) != 0) {
        fail_at(r, "key %s: value >= p", key);
        return -1;
    }
    return 0;
}

static void expect_fp(const record *r, const char *key, const char *what, const g16_fp *x)
{
    uint8_t b[48];
    g16__fp_to_be_bytes(b, x);
    expect_hex(r, key, what, b, 48);
}

static void check_fp(const record *r)
{
    g16_fp a, b, x, y;
    const char *sq = get(r, "is_square");
    if (fp_of(r, "a", &a) != 0 || fp_of(r, "b", &b) != 0 || !sq)
        return;
    g16__fp_mul(&x, &a, &b);
    expect_fp(r, "mul", "fp_mul", &x);
    g16__fp_force_portable(1);
    g16__fp_mul(&x, &a, &b);
    expect_fp(r, "mul", "fp_mul (portable path)", &x);
    g16__fp_sqr(&x, &a);
    expect_fp(r, "sqr", "fp_sqr (portable path)", &x);
    g16__fp_force_portable(0);
    g16__fp_add(&x, &a, &b);
    expect_fp(r, "add", "fp_add", &x);
    g16__fp_sub(&x, &a, &b);
    expect_fp(r, "sub", "fp_sub", &x);
    g16__fp_sqr(&x, &a);
    expect_fp(r, "sqr", "fp_sqr", &x);
    g16__fp_inv(&x, &a);
    expect_fp(r, "inv", "fp_inv", &x);
    g16__fp_inv_var(&x, &a);
    expect_fp(r, "inv", "fp_inv_var", &x);
    int want = strcmp(sq, "1") == 0;
    int got = g16__fp_sqrt(&x, &a);
    expect_true(r, "fp_sqrt finds a root exactly when noble says a is a square", got == want);
    expect_true(r, "fp_legendre agrees with is_square", g16__fp_legendre(&a) == (want ? 1 : -1));
    if (got) {
        g16__fp_sqr(&y, &x);
        expect_true(r, "fp_sqrt(a)^2 = a", g16__fp_eq(&y, &a));
    }
}

static int fr_of(const record *r, const char *key, g16_fr *x)
{
    g16_fr k;
    uint64_t limbs[4];
    if (scalar_of(r, key, &k, limbs) != 0)
        return -1;
    *x = k;
    return 0;
}

static void expect_fr(const record *r, const char *key, const char *what, const g16_fr *x)
{
    uint8_t b[32];
    g16__fr_to_be_bytes(b, x);
    expect_hex(r, key, what, b, 32);
}

static void check_fr(const record *r)
{
    g16_fr a, b, x;
    if (fr_of(r, "a", &a) != 0 || fr_of(r, "b", &b) != 0)
        return;
    g16__fr_mul(&x, &a, &b);
    expect_fr(r, "mul", "fr_mul", &x);
    g16__fr_add(&x, &a, &b);
    expect_fr(r, "add", "fr_add", &x);
    g16__fr_sub(&x, &a, &b);
    expect_fr(r, "sub", "fr_sub", &x);
    g16__fr_sqr(&x, &a);
    expect_fr(r, "sqr", "fr_sqr", &x);
    g16__fr_inv(&x, &a);
    expect_fr(r, "inv", "fr_inv", &x);
    g16__fr_inv_var(&x, &a);
    expect_fr(r, "inv", "fr_inv_var", &x);
}

/* Fp2 in the file: c1 then c0, 48 bytes each. */
static int fp2_of(const record *r, const char *key, g16_fp2 *x)
{
    uint8_t b[96];
    if (hex_of(r, key, b, 96) != 0)
        return -1;
    if (g16__fp_from_be_bytes(&x->c1, b) != 0 || g16__fp_from_be_bytes(&x->c0, b + 48) != 0) {
        fail_at(r, "key %s: coefficient >= p", key);
        return -1;
    }
    return 0;
}

static void expect_fp2(const record *r, const char *key, const char *what, const g16_fp2 *x)
{
    uint8_t b[96];
    g16__fp_to_be_bytes(b, &x->c1);
    g16__fp_to_be_bytes(b + 48, &x->c0);
    expect_hex(r, key, what, b, 96);
}

static void check_fp2(const record *r)
{
    g16_fp2 a, b, x, y;
    const char *sq = get(r, "is_square");
    if (fp2_of(r, "a", &a) != 0 || fp2_of(r, "b", &b) != 0 || !sq)
        return;
    g16__fp2_mul(&x, &a, &b);
    expect_fp2(r, "mul", "fp2_mul", &x);
    g16__fp2_sqr(&x, &a);
    expect_fp2(r, "sqr", "fp2_sqr", &x);
    g16__fp2_inv(&x, &a);
    expect_fp2(r, "inv", "fp2_inv", &x);
    g16__fp2_inv_var(&x, &a);
    expect_fp2(r, "inv", "fp2_inv_var", &x);
    int want = strcmp(sq, "1") == 0;
    int got = g16__fp2_sqrt(&x, &a);
    expect_true(r, "fp2_sqrt finds a root exactly when noble says a is a square", got == want);
    if (got) {
        g16__fp2_sqr(&y, &x);
        expect_true(r, "fp2_sqrt(a)^2 = a", g16__fp2_eq(&y, &a));
    }
}

static void test_fp(void **state) { (void)state; run_plain("fp", check_fp); }
static void test_fr(void **state) { (void)state; run_plain("fr", check_fr); }
static void test_fp2(void **state) { (void)state; run_plain("fp2", check_fp2); }

/* ------------------------------------------------------------------ main */

/* Loads and validates the vector file; prints the per-type counts. 0 when usable. */
static int load(void)
{
    file_text = open_vectors();
    if (!file_text) {
        fprintf(stderr, "noble_kat: FAIL: noble_vectors.txt not found (set G16_TEST_DATA to tests/data)\n");
        return -1;
    }
    if (parse_vectors(file_text) != 0)
        return -1;
    int ok = 1;
    for (size_t i = 0; i < nrecs; i++) {
        int t = type_index(recs[i].type);
        if (t < 0) {
            fprintf(stderr, "noble_kat: FAIL: line %d: unknown record type %s\n", recs[i].line, recs[i].type);
            ok = 0;
        } else {
            type_count[t]++;
        }
    }
    fprintf(stderr, "noble_kat: %zu records:", nrecs);
    for (size_t i = 0; i < NTYPES; i++)
        fprintf(stderr, " %s %zu%s", TYPES[i], type_count[i], i + 1 < NTYPES ? "," : "\n");
    for (size_t i = 0; i < NTYPES; i++)
        if (type_count[i] == 0) {
            fprintf(stderr, "noble_kat: FAIL: no records of type %s\n", TYPES[i]);
            ok = 0;
        }
    return ok ? 0 : -1;
}

int main(void)
{
    tu_seed("test_noble_kat"); /* the vectors are fixed; the seed is printed for uniformity */
    if (load() != 0) {
        free(recs);
        free(file_text);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fp),          cmocka_unit_test(test_fr),         cmocka_unit_test(test_fp2),
        cmocka_unit_test(test_g1_mul),      cmocka_unit_test(test_g2_mul),     cmocka_unit_test(test_g1_add),
        cmocka_unit_test(test_g1_batch),    cmocka_unit_test(test_g2_batch),
        cmocka_unit_test(test_g2_add),      cmocka_unit_test(test_g1_dbl),     cmocka_unit_test(test_g2_dbl),
        cmocka_unit_test(test_g1_decode),   cmocka_unit_test(test_g2_decode),  cmocka_unit_test(test_g1_invalid),
        cmocka_unit_test(test_g2_invalid),  cmocka_unit_test(test_pairing),    cmocka_unit_test(test_multi_pairing),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    free(recs);
    free(file_text);
    return rc;
}
