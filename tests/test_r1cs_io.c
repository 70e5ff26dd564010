/* The r1cs file format: XXH64 against libxxhash answers, byte-identical save/load round trips
 * (buffer and file), and every load error path with its section name and byte offset. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "r1cs/xxh64.h"

#define OK(expr) assert_int_equal((expr), G16_OK)

/* XXH64(seed 0) of bytes 0, 1, 2, ... n−1 and of a few strings, as printed by libxxhash 0.8.1
 * (XXH64 through Python ctypes) on this machine. */
static void test_xxh64_vectors(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        uint64_t h;
    } seq[] = {{32, 0xcbf59c5116ff32b4ULL}, {33, 0x0c535d1acafb8eadULL}, {39, 0x00a396ef1679a859ULL},
               {200, 0x50dc1079b99e879cULL}};
    static const struct {
        const char *s;
        uint64_t h;
    } str[] = {{"", 0xef46db3751d8e999ULL},
               {"a", 0xd24ec4f1a98c6e5bULL},
               {"abc", 0x44bc2cf5ad770999ULL},
               {"abcdefghijklmnopqrstuvwxyz12345", 0x467605901b01d6f6ULL}};
    uint8_t buf[256];
    for (int i = 0; i < 256; i++)
        buf[i] = (uint8_t)i;
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        assert_true(g16__xxh64(buf, seq[i].n) == seq[i].h);
    for (size_t i = 0; i < sizeof str / sizeof str[0]; i++)
        assert_true(g16__xxh64(str[i].s, strlen(str[i].s)) == str[i].h);
    /* streaming in random pieces gives the one-shot digest */
    for (int it = 0; it < tu_iters(200); it++) {
        size_t n = tu_rand64() % 256;
        tu_rand_bytes(buf, n);
        g16__xxh64_state s;
        g16__xxh64_init(&s);
        for (size_t pos = 0; pos < n;) {
            size_t k = tu_rand64() % (n - pos + 1);
            g16__xxh64_update(&s, buf + pos, k);
            pos += k;
        }
        assert_true(g16__xxh64_digest(&s) == g16__xxh64(buf, n));
    }
}

/* The hand circuit of test_r1cs.c in small: inputs ONE, x; aux a, b, c, d.
 *   a·b = c;  (x + 3a)·1 = d;  (c − a)·5 = d·2 is not needed to be satisfied here. */
static g16_r1cs *small_circuit(void)
{
    g16_cs *cs;
    g16_lc *l[3];
    g16_var x, a, b, c, d;
    g16_r1cs *r;
    for (int k = 0; k < 3; k++)
        OK(g16_lc_create(&l[k]));
    OK(g16_cs_create(&cs, 0));
    OK(g16_cs_alloc_input(cs, NULL, &x, NULL));
    OK(g16_cs_alloc_aux(cs, NULL, &a, NULL));
    OK(g16_cs_alloc_aux(cs, NULL, &b, NULL));
    OK(g16_cs_alloc_aux(cs, NULL, &c, NULL));
    OK(g16_cs_alloc_aux(cs, NULL, &d, NULL));
    g16_fr three, five, two;
    g16__fr_from_u64(&three, 3);
    g16__fr_from_u64(&five, 5);
    g16__fr_from_u64(&two, 2);
    OK(g16_lc_add(l[0], a, NULL));
    OK(g16_lc_add(l[1], b, NULL));
    OK(g16_lc_add(l[2], c, NULL));
    OK(g16_cs_enforce(cs, l[0], l[1], l[2], NULL));
    for (int k = 0; k < 3; k++)
        g16_lc_clear(l[k]);
    OK(g16_lc_add(l[0], x, NULL));
    OK(g16_lc_add(l[0], a, &three));
    OK(g16_lc_add(l[1], G16_VAR_ONE, NULL));
    OK(g16_lc_add(l[2], d, NULL));
    OK(g16_cs_enforce(cs, l[0], l[1], l[2], NULL));
    for (int k = 0; k < 3; k++)
        g16_lc_clear(l[k]);
    OK(g16_lc_add(l[0], c, NULL));
    OK(g16_lc_sub(l[0], a, NULL));
    OK(g16_lc_add(l[1], G16_VAR_ONE, &five));
    OK(g16_lc_add(l[2], d, &two));
    OK(g16_cs_enforce(cs, l[0], l[1], l[2], NULL));
    OK(g16_cs_finalize(cs, &r, NULL));
    g16_cs_destroy(cs);
    for (int k = 0; k < 3; k++)
        g16_lc_destroy(l[k]);
    return r;
}

static uint8_t *serialize(const g16_r1cs *r, size_t *len)
{
    *len = (size_t)g16_r1cs_serialized_size(r);
    uint8_t *buf = malloc(*len);
    assert_non_null(buf);
    OK(g16_r1cs_save_buffer(r, buf, *len, NULL));
    return buf;
}

/* Offsets of the sections, from the header of a valid file. */
enum { S_HEADER, S_COEFFS, S_A_LEN, S_A_ENT, S_B_LEN, S_B_ENT, S_C_LEN, S_C_ENT, S_CHECKSUM, S_COUNT };
static const char *const NAMES[S_COUNT] = {"header",    "coeffs",    "A.lengths", "A.entries", "B.lengths",
                                           "B.entries", "C.lengths", "C.entries", "checksum"};

static uint64_t rd64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void wr64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void sections(const uint8_t *buf, uint64_t off[S_COUNT + 1])
{
    uint64_t m = rd64(buf + 32), nc = rd64(buf + 48);
    uint64_t size[S_COUNT] = {80, 32 * nc};
    for (int k = 0; k < 3; k++) {
        size[S_A_LEN + 2 * k] = 4 * m;
        size[S_A_ENT + 2 * k] = 8 * rd64(buf + 56 + 8 * k);
    }
    size[S_CHECKSUM] = 8;
    off[0] = 0;
    for (int s = 0; s < S_COUNT; s++)
        off[s + 1] = off[s] + size[s];
}

static void fix_checksum(uint8_t *buf, size_t len) { wr64(buf + len - 8, g16__xxh64(buf, len - 8)); }

/* Loads buf and expects status st with "section '<name>' at byte <at>" in the message. */
static void expect_error(const uint8_t *buf, size_t len, g16_status st, const char *name, uint64_t at)
{
    g16_r1cs *r = (g16_r1cs *)1;
    g16_error err;
    memset(&err, 0, sizeof err);
    g16_status got = g16_r1cs_load_buffer(&r, buf, len, &err);
    char want[96];
    snprintf(want, sizeof want, "section '%s' at byte %llu:", name, (unsigned long long)at);
    if (got != st || !strstr(err.msg, want))
        fprintf(stderr, "expected status %d with \"%s\", got %d: %s\n", st, want, got, err.msg);
    assert_int_equal(got, st);
    assert_int_equal(err.status, st);
    assert_non_null(strstr(err.msg, want));
    assert_null(r);
}

static void check_same(const g16_r1cs *x, const g16_r1cs *y)
{
    g16_r1cs_info a, b;
    g16_r1cs_get_info(x, &a);
    g16_r1cs_get_info(y, &b);
    assert_memory_equal(&a, &b, sizeof a);
    for (int k = 0; k < 3; k++) {
        uint64_t na, nb;
        const uint64_t *da = g16_r1cs_density(x, (g16_density)k, &na), *db = g16_r1cs_density(y, (g16_density)k, &nb);
        assert_int_equal(na, nb);
        assert_memory_equal(da, db, (na + 7) / 8);
    }
}

static void roundtrip(const g16_r1cs *r)
{
    size_t len, len2;
    uint8_t *buf = serialize(r, &len);
    g16_r1cs *r2;
    g16_error err;
    OK(g16_r1cs_load_buffer(&r2, buf, len, &err));
    check_same(r, r2);
    uint8_t *buf2 = serialize(r2, &len2);
    assert_int_equal(len, len2);
    assert_memory_equal(buf, buf2, len);

    /* through a file: the same bytes, and the same circuit back */
    char path[] = "/tmp/g16_r1cs_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    OK(g16_r1cs_save(r, path, &err));
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *fbuf = malloc(len + 1);
    assert_int_equal(fread(fbuf, 1, len + 1, f), len);
    fclose(f);
    assert_memory_equal(fbuf, buf, len);
    g16_r1cs *r3;
    OK(g16_r1cs_load(&r3, path, &err));
    check_same(r, r3);
    /* a truncated file reports like a truncated buffer */
    assert_int_equal(truncate(path, (off_t)(len - 3)), 0);
    g16_r1cs *r4;
    assert_int_equal(g16_r1cs_load(&r4, path, &err), G16_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "section 'checksum'"));
    unlink(path);
    free(fbuf);
    free(buf);
    free(buf2);
    g16_r1cs_destroy(r2);
    g16_r1cs_destroy(r3);
}

static void test_roundtrip(void **state)
{
    (void)state;
    g16_r1cs *r = small_circuit();
    roundtrip(r);
    g16_r1cs_destroy(r);
    for (int kind = 0; kind < 2; kind++) {
        g16_cs *cs;
        g16_error err;
        OK(g16_demo_circuit(&cs, (g16_demo_kind)kind, 4096 + tu_rand64() % 4096, tu_rand64(), &err));
        OK(g16_cs_finalize(cs, &r, &err));
        roundtrip(r);
        g16_r1cs_destroy(r);
        g16_cs_destroy(cs);
    }
}

static void test_truncation(void **state)
{
    (void)state;
    g16_r1cs *r = small_circuit();
    size_t len;
    uint8_t *buf = serialize(r, &len);
    uint64_t off[S_COUNT + 1];
    sections(buf, off);
    assert_int_equal(off[S_COUNT], len);
    for (size_t cut = 0; cut < len; cut++) { /* every boundary and every point in between */
        int s = 0;
        while (off[s + 1] <= cut)
            s++;
        expect_error(buf, cut, G16_ERR_TRUNCATED, NAMES[s], cut);
    }
    g16_r1cs *r2;
    OK(g16_r1cs_load_buffer(&r2, buf, len, NULL));
    g16_r1cs_destroy(r2);
    /* one byte too many */
    uint8_t *more = malloc(len + 1);
    memcpy(more, buf, len);
    more[len] = 0;
    expect_error(more, len + 1, G16_ERR_FORMAT, "checksum", len);
    free(more);
    assert_int_equal(g16_r1cs_load_buffer(&r2, NULL, 0, NULL), G16_ERR_TRUNCATED);
    free(buf);
    g16_r1cs_destroy(r);
}

/* Applies edit to a copy of the valid file (checksum fixed when fix), expects the error. */
typedef void (*edit_fn)(uint8_t *buf, const uint64_t *off);

static void corrupt(const uint8_t *valid, size_t len, edit_fn edit, int fix, g16_status st, int sec, uint64_t rel)
{
    uint8_t *buf = malloc(len);
    memcpy(buf, valid, len);
    uint64_t off[S_COUNT + 1];
    sections(valid, off);
    edit(buf, off);
    if (fix)
        fix_checksum(buf, len);
    expect_error(buf, len, st, NAMES[sec], off[sec] + rel);
    free(buf);
}

static void e_magic(uint8_t *b, const uint64_t *o) { (void)o, b[3] ^= 1; }
static void e_version(uint8_t *b, const uint64_t *o) { (void)o, wr32(b + 8, 2); }
static void e_flags(uint8_t *b, const uint64_t *o) { (void)o, wr32(b + 12, 1); }
static void e_inputs0(uint8_t *b, const uint64_t *o) { (void)o, wr64(b + 16, 0); }
static void e_aux_huge(uint8_t *b, const uint64_t *o) { (void)o, wr64(b + 24, UINT32_MAX); }
static void e_aux_many(uint8_t *b, const uint64_t *o) { (void)o, wr64(b + 24, 1000); }
static void e_rows_few(uint8_t *b, const uint64_t *o) { (void)o, wr64(b + 32, 1); }
static void e_rows_big(uint8_t *b, const uint64_t *o) { (void)o, wr64(b + 32, ((uint64_t)1 << 28) + 1); }
static void e_logn(uint8_t *b, const uint64_t *o) { (void)o, wr32(b + 40, 5); }
static void e_reserved(uint8_t *b, const uint64_t *o) { (void)o, b[47] = 0x80; }
static void e_ncoeffs(uint8_t *b, const uint64_t *o) { (void)o, wr64(b + 48, 1); }
static void e_nnz_a(uint8_t *b, const uint64_t *o) { (void)o, wr64(b + 56, 1); }
static void e_nnz_b(uint8_t *b, const uint64_t *o) { (void)o, b[64]++; }
/* r itself, little-endian, as coefficient 2 */
static void e_coeff_r(uint8_t *b, const uint64_t *o)
{
    static const uint64_t r[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                  0x73eda753299d7d48ULL};
    for (int i = 0; i < 4; i++)
        wr64(b + o[S_COEFFS] + 64 + 8 * i, r[i]);
}
static void e_coeff_ff(uint8_t *b, const uint64_t *o) { memset(b + o[S_COEFFS] + 64, 0xff, 32); }
static void e_coeff_zero(uint8_t *b, const uint64_t *o) { memset(b + o[S_COEFFS] + 64, 0, 32); }
static void e_coeff_one(uint8_t *b, const uint64_t *o) { b[o[S_COEFFS]] = 2; } /* id 0 must be 1 */
static void e_coeff_minus(uint8_t *b, const uint64_t *o) { b[o[S_COEFFS] + 32] ^= 2; } /* id 1 must be −1 */
static void e_coeff_value(uint8_t *b, const uint64_t *o) { b[o[S_COEFFS] + 64] ^= 1; } /* still valid */
static void e_len_big(uint8_t *b, const uint64_t *o) { wr32(b + o[S_B_LEN] + 4, 1000); }
static void e_len_over(uint8_t *b, const uint64_t *o) { b[o[S_A_LEN]]++; } /* row 0 one longer */
static void e_len_under(uint8_t *b, const uint64_t *o) { b[o[S_C_LEN]]--; } /* row 0 one shorter */
static void e_col_range(uint8_t *b, const uint64_t *o) { wr32(b + o[S_A_ENT] + 8, 6); } /* 6 variables */
static void e_col_order(uint8_t *b, const uint64_t *o) /* A row 1 is {(1,1),(2,3)}: swap */
{
    uint8_t t[8];
    memcpy(t, b + o[S_A_ENT] + 8, 8);
    memcpy(b + o[S_A_ENT] + 8, b + o[S_A_ENT] + 16, 8);
    memcpy(b + o[S_A_ENT] + 16, t, 8);
}
static void e_col_dup(uint8_t *b, const uint64_t *o) { wr32(b + o[S_A_ENT] + 16, 1); } /* (1),(1) */
static void e_cid(uint8_t *b, const uint64_t *o) { wr32(b + o[S_C_ENT] + 4, 5); } /* 5 coefficients? */
static void e_checksum(uint8_t *b, const uint64_t *o) { b[o[S_CHECKSUM] + 7] ^= 0x40; }
static void e_input_row(uint8_t *b, const uint64_t *o) /* last A entry: input_1 with id 1 (−1) */
{
    wr32(b + o[S_A_ENT + 1] - 4, 1);
}
static void e_input_row_b(uint8_t *b, const uint64_t *o) /* a B entry in the last row: lengths shift */
{
    /* B rows: {b}, {ONE}, {ONE}, {}, {} -> {b}, {ONE}, {}, {}, {ONE} */
    wr32(b + o[S_B_LEN] + 8, 0);
    wr32(b + o[S_B_LEN] + 16, 1);
}
static void e_unconstrained(uint8_t *b, const uint64_t *o) /* b (column 3) only in B row 0: rename to a */
{
    wr32(b + o[S_B_ENT], 2);
}

static void test_corruption(void **state)
{
    (void)state;
    g16_r1cs *r = small_circuit();
    g16_r1cs_info info;
    g16_r1cs_get_info(r, &info);
    /* the layout the edits above assume */
    assert_int_equal(info.num_inputs, 2);
    assert_int_equal(info.num_aux, 4);
    assert_int_equal(info.num_constraints, 5);
    assert_int_equal(info.num_coeffs, 5); /* 1, −1, 3, 5, 2 */
    size_t len;
    uint8_t *v = serialize(r, &len);
    uint64_t off[S_COUNT + 1];
    sections(v, off);

    const struct {
        edit_fn edit;
        int fix;
        g16_status st;
        int sec;
        uint64_t rel;
    } cases[] = {
        {e_magic, 1, G16_ERR_FORMAT, S_HEADER, 0},
        {e_version, 1, G16_ERR_FORMAT, S_HEADER, 8},
        {e_flags, 1, G16_ERR_FORMAT, S_HEADER, 12},
        {e_inputs0, 1, G16_ERR_FORMAT, S_HEADER, 16},
        {e_aux_huge, 1, G16_ERR_FORMAT, S_HEADER, 24},
        {e_aux_many, 1, G16_ERR_FORMAT, S_HEADER, 24},
        {e_rows_few, 1, G16_ERR_FORMAT, S_HEADER, 32},
        {e_rows_big, 1, G16_ERR_UNSUPPORTED, S_HEADER, 32},
        {e_logn, 1, G16_ERR_FORMAT, S_HEADER, 40},
        {e_reserved, 1, G16_ERR_FORMAT, S_HEADER, 44},
        {e_ncoeffs, 1, G16_ERR_FORMAT, S_HEADER, 48},
        {e_nnz_a, 1, G16_ERR_FORMAT, S_HEADER, 56},
        {e_coeff_r, 1, G16_ERR_FORMAT, S_COEFFS, 64},
        {e_coeff_ff, 1, G16_ERR_FORMAT, S_COEFFS, 64},
        {e_coeff_zero, 1, G16_ERR_FORMAT, S_COEFFS, 64},
        {e_coeff_one, 1, G16_ERR_FORMAT, S_COEFFS, 0},
        {e_coeff_minus, 1, G16_ERR_FORMAT, S_COEFFS, 32},
        {e_coeff_value, 0, G16_ERR_FORMAT, S_CHECKSUM, 0},
        {e_len_big, 1, G16_ERR_FORMAT, S_B_LEN, 4},
        {e_len_over, 1, G16_ERR_FORMAT, S_A_LEN, 4 * 4}, /* sum passes nnz at the last row */
        {e_len_under, 1, G16_ERR_FORMAT, S_C_LEN, 4 * 5}, /* sum short: reported at the section end */
        {e_col_range, 1, G16_ERR_FORMAT, S_A_ENT, 8},
        {e_col_order, 1, G16_ERR_FORMAT, S_A_ENT, 16},
        {e_col_dup, 1, G16_ERR_FORMAT, S_A_ENT, 16},
        {e_cid, 1, G16_ERR_FORMAT, S_C_ENT, 0},
        {e_cid, 0, G16_ERR_FORMAT, S_C_ENT, 0}, /* structure is judged before the checksum */
        {e_checksum, 0, G16_ERR_FORMAT, S_CHECKSUM, 0},
        {e_input_row, 1, G16_ERR_FORMAT, S_A_LEN, 4 * 4},
        {e_input_row_b, 1, G16_ERR_FORMAT, S_B_LEN, 4 * 4},
        {e_unconstrained, 1, G16_ERR_FORMAT, S_C_ENT, off[S_CHECKSUM] - off[S_C_ENT]},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        fprintf(stderr, "case %zu\n", i);
        corrupt(v, len, cases[i].edit, cases[i].fix, cases[i].st, cases[i].sec, cases[i].rel);
    }
    /* nnz_B one larger: the layout grows past the input (C.entries loses its last 8 bytes...) */
    uint8_t *b = malloc(len);
    memcpy(b, v, len);
    e_nnz_b(b, off);
    g16_r1cs *r2;
    g16_error err;
    assert_int_equal(g16_r1cs_load_buffer(&r2, b, len, &err), G16_ERR_TRUNCATED);
    assert_non_null(strstr(err.msg, "section 'checksum'"));
    free(b);

    /* the loader rejects every single-byte change of the file (the checksum at least) */
    for (size_t i = 0; i < len; i++) {
        b = malloc(len);
        memcpy(b, v, len);
        b[i] ^= (uint8_t)(1 + tu_rand64() % 255);
        assert_int_not_equal(g16_r1cs_load_buffer(&r2, b, len, NULL), G16_OK);
        free(b);
    }
    free(v);
    g16_r1cs_destroy(r);
}

static void test_file_errors(void **state)
{
    (void)state;
    g16_r1cs *r = small_circuit(), *r2;
    g16_error err;
    assert_int_equal(g16_r1cs_load(&r2, "/nonexistent/dir/x.r1cs", &err), G16_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent/dir/x.r1cs"));
    assert_int_equal(g16_r1cs_save(r, "/nonexistent/dir/x.r1cs", &err), G16_ERR_IO);
    assert_int_equal(g16_r1cs_load(&r2, "/tmp", &err), G16_ERR_IO);
    uint8_t small[4];
    assert_int_equal(g16_r1cs_save_buffer(r, small, sizeof small, &err), G16_ERR_SIZE_MISMATCH);
    g16_r1cs_destroy(r);
}

int main(void)
{
    tu_seed("r1cs_io");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xxh64_vectors), cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_truncation),    cmocka_unit_test(test_corruption),
        cmocka_unit_test(test_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
