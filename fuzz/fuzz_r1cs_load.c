/*
 * libFuzzer target for the r1cs loader (g16_r1cs_load_buffer, src/r1cs/io.c).
 *
 * Properties checked, beyond "never crashes, leaks or reads out of bounds":
 *   - the status is OK, TRUNCATED, FORMAT, UNSUPPORTED or NOMEM, err->status agrees, and every
 *     TRUNCATED / FORMAT / UNSUPPORTED message names a section and a byte offset;
 *   - on failure *out is NULL;
 *   - an accepted input is canonical: saving it back gives exactly the input bytes;
 *   - an accepted circuit can be evaluated and checked against a witness without crashing.
 * Random bytes rarely pass the header and never the checksum, so:
 *   - every raw input is also tried with its last 8 bytes replaced by the right checksum;
 *   - an input starting with 0xff is a recipe: the next bytes build a small circuit through the
 *     public API, which is serialized, patched with (offset, xor) byte triples from the rest of
 *     the input, optionally truncated, re-checksummed, and loaded — this reaches the row-length,
 *     entry, input-constraint and unconstrained-variable checks.
 *
 * Build and run (clang):
 *   CC=clang cmake -S . -B build-fuzz -DG16_FUZZ=ON -DG16_TESTS=OFF && cmake --build build-fuzz -j2
 *   build-fuzz/fuzz_r1cs_load -max_total_time=60 build-fuzz/corpus-r1cs
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "g16.h"
#include "r1cs/xxh64.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                                               \
    do {                                                                                                       \
        if (!(c))                                                                                              \
            abort();                                                                                           \
    } while (0)

static void exercise(const g16_r1cs *r)
{
    g16_r1cs_info info;
    g16_r1cs_get_info(r, &info);
    size_t nw = (size_t)(info.num_inputs + info.num_aux), n = (size_t)info.domain_size;
    g16_fr *w = malloc(nw * sizeof *w), *a = malloc(n * sizeof *a);
    CHECK(w && a);
    for (size_t i = 0; i < nw; i++)
        g16__fr_from_u64(&w[i], i == 0 ? 1 : i * 0x9e3779b97f4a7c15ULL);
    g16_error err;
    CHECK(g16_r1cs_eval(r, w, nw, a, NULL, NULL, n, &err) == G16_OK);
    g16_status st = g16_r1cs_check(r, w, nw, &err);
    CHECK(st == G16_OK || st == G16_ERR_UNSATISFIED);
    free(w);
    free(a);
}

static void load_one(const uint8_t *buf, size_t len)
{
    g16_r1cs *r = (g16_r1cs *)&r; /* must be overwritten */
    g16_error err;
    memset(&err, 0, sizeof err);
    g16_status st = g16_r1cs_load_buffer(&r, buf, len, &err);
    CHECK(st == G16_OK || st == G16_ERR_TRUNCATED || st == G16_ERR_FORMAT || st == G16_ERR_UNSUPPORTED ||
          st == G16_ERR_NOMEM);
    if (st != G16_OK) {
        CHECK(r == NULL);
        CHECK(err.status == st);
        if (st != G16_ERR_NOMEM)
            CHECK(strstr(err.msg, "r1cs: section '") == err.msg && strstr(err.msg, "' at byte "));
        return;
    }
    CHECK(g16_r1cs_serialized_size(r) == len);
    uint8_t *again = malloc(len ? len : 1);
    CHECK(again);
    CHECK(g16_r1cs_save_buffer(r, again, len, &err) == G16_OK);
    CHECK(memcmp(again, buf, len) == 0);
    free(again);
    exercise(r);
    g16_r1cs_destroy(r);
}

static void load_with_fixed_checksum(const uint8_t *data, size_t size)
{
    if (size < 8)
        return;
    uint8_t *buf = malloc(size);
    CHECK(buf);
    memcpy(buf, data, size);
    uint64_t h = g16__xxh64(buf, size - 8);
    for (int i = 0; i < 8; i++)
        buf[size - 8 + i] = (uint8_t)(h >> (8 * i));
    load_one(buf, size);
    free(buf);
}

typedef struct {
    const uint8_t *p;
    size_t n, i;
} cursor;

static unsigned next(cursor *c) { return c->i < c->n ? c->p[c->i++] : 0; }

/* A small circuit from recipe bytes; every aux ends up constrained (a last row holds them all). */
static g16_r1cs *recipe_circuit(cursor *c)
{
    g16_cs *cs = NULL;
    g16_lc *lc[3] = {NULL, NULL, NULL};
    g16_r1cs *r = NULL;
    unsigned ni = 1 + next(c) % 4, na = 1 + next(c) % 8, nc = next(c) % 12;
    if (g16_cs_create(&cs, 0) != G16_OK)
        goto cleanup;
    for (int k = 0; k < 3; k++)
        if (g16_lc_create(&lc[k]) != G16_OK)
            goto cleanup;
    for (unsigned i = 1; i < ni; i++) {
        g16_var v;
        CHECK(g16_cs_alloc_input(cs, NULL, &v, NULL) == G16_OK);
    }
    for (unsigned i = 0; i < na; i++) {
        g16_var v;
        CHECK(g16_cs_alloc_aux(cs, NULL, &v, NULL) == G16_OK);
    }
    for (unsigned i = 0; i <= nc; i++) {
        for (int k = 0; k < 3; k++) {
            g16_lc_clear(lc[k]);
            unsigned len = i == nc ? (k == 2 ? na : 0) : next(c) % 4;
            for (unsigned t = 0; t < len; t++) {
                unsigned x = i == nc ? ni + t : next(c) % (ni + na);
                g16_var v = x < ni ? (g16_var)x : (G16_VAR_AUX | (g16_var)(x - ni));
                g16_fr coeff;
                unsigned sel = i == nc ? 0 : next(c);
                g16__fr_from_u64(&coeff, sel % 3 == 0 ? 1 : sel);
                if (sel % 5 == 1)
                    g16__fr_neg(&coeff, &coeff);
                CHECK(g16_lc_add(lc[k], v, &coeff) == G16_OK);
            }
        }
        CHECK(g16_cs_enforce(cs, lc[0], lc[1], lc[2], NULL) == G16_OK);
    }
    if (g16_cs_finalize(cs, &r, NULL) != G16_OK)
        r = NULL;
cleanup:
    for (int k = 0; k < 3; k++)
        g16_lc_destroy(lc[k]);
    g16_cs_destroy(cs);
    return r;
}

static void recipe(const uint8_t *data, size_t size)
{
    cursor c = {data, size, 0};
    g16_r1cs *r = recipe_circuit(&c);
    if (!r)
        return;
    size_t len = (size_t)g16_r1cs_serialized_size(r);
    uint8_t *buf = malloc(len);
    CHECK(buf);
    CHECK(g16_r1cs_save_buffer(r, buf, len, NULL) == G16_OK);
    g16_r1cs_destroy(r);
    unsigned flags = next(&c);
    while (c.i + 3 <= c.n) {
        unsigned off = next(&c) << 8;
        off |= next(&c);
        buf[off % len] ^= (uint8_t)next(&c);
    }
    size_t cut = (flags & 2) ? (size_t)(flags >> 2) % len : len;
    if (flags & 1)
        load_with_fixed_checksum(buf, cut);
    else
        load_one(buf, cut);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 0 && data[0] == 0xff) {
        recipe(data + 1, size - 1);
        return 0;
    }
    load_one(data, size);
    load_with_fixed_checksum(data, size);
    return 0;
}
