/* The 448 real sealed-sector records of Filecoin's regression file (../shared/testdata/filecoin,
 * see the README there): every 192-byte partition proof decodes with every check (flags, range,
 * curve, subgroup) and re-encodes byte for byte; the record count, the partition counts and the
 * proof lengths match porep_config. Each line is read with g16's strict JSON reader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "compat/json.h"

#define RECORDS 448

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        b[n] = 0, *len = (size_t)n;
    return b;
}

static char *open_records(size_t *len)
{
    char path[4096];
    const char *dir = getenv("G16_TEST_DATA");
    const char *rel = "shared/testdata/filecoin/seal_regression_records-v16.json";
    snprintf(path, sizeof path, "%s/../../../%s", dir && *dir ? dir : "tests/data", rel);
    char *t = read_all(path, len);
    if (!t)
        fail_msg("cannot read %s: the Filecoin records are expected at ../%s from the repository root", path, rel);
    return t;
}

/* Integer value of a JSON number node (non-negative, no fraction). */
static uint64_t num(const g16__json *v)
{
    assert_non_null(v);
    assert_int_equal(v->type, G16__JSON_NUMBER);
    char *end;
    unsigned long long x = strtoull(v->str, &end, 10);
    assert_true(*end == 0);
    return x;
}

static void test_records(void **state)
{
    (void)state;
    size_t len = 0, records = 0, proofs = 0, by_partitions[11] = {0};
    char *text = open_records(&len);
    uint8_t *bytes = malloc(10 * G16_PROOF_BYTES);
    for (char *line = text, *end; line < text + len; line = end + 1) {
        end = memchr(line, '\n', (size_t)(text + len - line));
        if (!end)
            end = text + len;
        if (end == line)
            continue;
        g16__json_doc d;
        g16_error err = {0};
        char what[32];
        snprintf(what, sizeof what, "record %zu", records);
        if (g16__json_parse(&d, line, (size_t)(end - line), what, &err) != G16_OK)
            fail_msg("%s", err.msg);
        uint64_t parts = num(g16__json_get(g16__json_get(d.root, "porep_config"), "partitions"));
        const g16__json *proof = g16__json_get(d.root, "proof");
        assert_true(parts == 1 || parts == 10);
        assert_non_null(proof);
        assert_int_equal(proof->type, G16__JSON_ARRAY);
        assert_int_equal(proof->len, parts * G16_PROOF_BYTES);
        size_t k = 0;
        for (const g16__json *b = proof->child; b; b = b->next) {
            uint64_t v = num(b);
            assert_true(v < 256);
            bytes[k++] = (uint8_t)v;
        }
        for (uint64_t i = 0; i < parts; i++) {
            const uint8_t *p = bytes + i * G16_PROOF_BYTES;
            g16_proof pr;
            uint8_t again[G16_PROOF_BYTES];
            if (g16_proof_read(&pr, p, &err) != G16_OK)
                fail_msg("record %zu, partition %llu: %s", records, (unsigned long long)i, err.msg);
            g16_proof_write(again, &pr);
            assert_memory_equal(again, p, G16_PROOF_BYTES);
            proofs++;
        }
        /* a cleared compression flag is refused (the decoders read only compressed proofs) */
        uint8_t bad[G16_PROOF_BYTES];
        memcpy(bad, bytes, sizeof bad);
        bad[(records % 3) * 48 + (records % 3 == 2 ? 48 : 0)] &= 0x7f;
        g16_proof pr;
        assert_int_not_equal(g16_proof_read(&pr, bad, &err), G16_OK);
        by_partitions[parts]++;
        records++;
        g16__json_free(&d);
    }
    fprintf(stderr, "filecoin: %zu records (%zu with 1 partition, %zu with 10), %zu proofs decoded and re-encoded\n",
            records, by_partitions[1], by_partitions[10], proofs);
    assert_int_equal(records, RECORDS);
    assert_int_equal(proofs, by_partitions[1] + 10 * by_partitions[10]);
    free(bytes);
    free(text);
}

int main(void)
{
    tu_seed("filecoin_proofs");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
