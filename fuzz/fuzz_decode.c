/*
 * libFuzzer target for the point decoders (src/curve/encode.c).
 *
 * Every input is fed, zero-padded to 192 bytes, to all eight decoders (G1/G2, compressed /
 * uncompressed, checked / _unchecked). Properties checked, beyond "never crashes":
 *   - a decoder returns OK or one of the decoding statuses, and leaves the output untouched
 *     on failure;
 *   - an accepted encoding is canonical: re-encoding the point gives the same bytes;
 *   - the point is on the curve; the checked decoders' points are in the subgroup;
 *   - checked and _unchecked agree: they differ only by G16_ERR_NOT_IN_SUBGROUP;
 *   - the compressed and uncompressed forms of an accepted point decode to the same point.
 * Random bytes almost never hit a valid point, so when the first byte is 0xff the next 32
 * bytes are a scalar k (16 bytes keep the multiplications cheap) and the next two a byte patch
 * (offset, xor) applied to the four encodings of k·G: the success paths and the near-miss
 * errors get exercised too.
 *
 * Build and run (clang):
 *   CC=clang cmake -S . -B build-fuzz -DG16_FUZZ=ON -DG16_TESTS=OFF && cmake --build build-fuzz -j2
 *   build-fuzz/fuzz_decode -max_total_time=60 build-fuzz/corpus-decode
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c)                                                                                               \
    do {                                                                                                       \
        if (!(c))                                                                                              \
            abort();                                                                                           \
    } while (0)

static int is_decode_status(g16_status st)
{
    return st == G16_OK || st == G16_ERR_ENCODING_FLAGS || st == G16_ERR_INFINITY_NONCANONICAL ||
           st == G16_ERR_COORD_RANGE || st == G16_ERR_NOT_ON_CURVE || st == G16_ERR_NOT_IN_SUBGROUP;
}

static int all_bytes(const void *p, size_t n, uint8_t v)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return 0;
    return 1;
}

/* Checked and unchecked decoding of one G1 encoding; returns 1 when the unchecked one accepts. */
static int check_p1(const uint8_t *in, int compressed, g16_p1_affine *out)
{
    g16_p1_affine a, b;
    uint8_t again[96];
    size_t len = compressed ? 48 : 96;
    memset(&a, 0xa5, sizeof a);
    memset(&b, 0xa5, sizeof b);
    g16_status sa = compressed ? g16_p1_affine_uncompress(&a, in) : g16_p1_affine_deserialize(&a, in);
    g16_status sb = compressed ? g16_p1_affine_uncompress_unchecked(&b, in) : g16_p1_affine_deserialize_unchecked(&b, in);
    CHECK(is_decode_status(sa) && is_decode_status(sb));
    CHECK(sb != G16_ERR_NOT_IN_SUBGROUP);
    CHECK(sa == sb || (sa == G16_ERR_NOT_IN_SUBGROUP && sb == G16_OK));
    if (sa != G16_OK)
        CHECK(all_bytes(&a, sizeof a, 0xa5));
    if (sb != G16_OK) {
        CHECK(all_bytes(&b, sizeof b, 0xa5));
        return 0;
    }
    CHECK(g16__p1_affine_on_curve(&b));
    CHECK(g16__p1_affine_in_subgroup(&b) == (sa == G16_OK));
    if (sa == G16_OK)
        CHECK(g16__p1_affine_eq(&a, &b));
    if (compressed)
        g16_p1_affine_compress(again, &b);
    else
        g16_p1_affine_serialize(again, &b);
    CHECK(memcmp(again, in, len) == 0);
    *out = b;
    return 1;
}

static int check_p2(const uint8_t *in, int compressed, g16_p2_affine *out)
{
    g16_p2_affine a, b;
    uint8_t again[192];
    size_t len = compressed ? 96 : 192;
    memset(&a, 0xa5, sizeof a);
    memset(&b, 0xa5, sizeof b);
    g16_status sa = compressed ? g16_p2_affine_uncompress(&a, in) : g16_p2_affine_deserialize(&a, in);
    g16_status sb = compressed ? g16_p2_affine_uncompress_unchecked(&b, in) : g16_p2_affine_deserialize_unchecked(&b, in);
    CHECK(is_decode_status(sa) && is_decode_status(sb));
    CHECK(sb != G16_ERR_NOT_IN_SUBGROUP);
    CHECK(sa == sb || (sa == G16_ERR_NOT_IN_SUBGROUP && sb == G16_OK));
    if (sa != G16_OK)
        CHECK(all_bytes(&a, sizeof a, 0xa5));
    if (sb != G16_OK) {
        CHECK(all_bytes(&b, sizeof b, 0xa5));
        return 0;
    }
    CHECK(g16__p2_affine_on_curve(&b));
    CHECK(g16__p2_affine_in_subgroup(&b) == (sa == G16_OK));
    if (sa == G16_OK)
        CHECK(g16__p2_affine_eq(&a, &b));
    if (compressed)
        g16_p2_affine_compress(again, &b);
    else
        g16_p2_affine_serialize(again, &b);
    CHECK(memcmp(again, in, len) == 0);
    *out = b;
    return 1;
}

/* An accepted point's other form must decode to the same point. */
static void cross_p1(const g16_p1_affine *p, int from_compressed)
{
    uint8_t buf[96];
    g16_p1_affine q;
    if (from_compressed)
        g16_p1_affine_serialize(buf, p);
    else
        g16_p1_affine_compress(buf, p);
    CHECK(check_p1(buf, !from_compressed, &q));
    CHECK(g16__p1_affine_eq(&q, p));
}

static void cross_p2(const g16_p2_affine *p, int from_compressed)
{
    uint8_t buf[192];
    g16_p2_affine q;
    if (from_compressed)
        g16_p2_affine_serialize(buf, p);
    else
        g16_p2_affine_compress(buf, p);
    CHECK(check_p2(buf, !from_compressed, &q));
    CHECK(g16__p2_affine_eq(&q, p));
}

static void run_all(const uint8_t buf[192])
{
    g16_p1_affine p1;
    g16_p2_affine p2;
    for (int compressed = 0; compressed <= 1; compressed++) {
        if (check_p1(buf, compressed, &p1))
            cross_p1(&p1, compressed);
        if (check_p2(buf, compressed, &p2))
            cross_p2(&p2, compressed);
    }
}

/* Encodings of k·G (k from the input) with one byte patched. */
static void structured(const uint8_t *data, size_t size)
{
    uint8_t kb[16] = {0}, enc[4][192];
    uint64_t k[2] = {0};
    memcpy(kb, data, size < 16 ? size : 16);
    for (int i = 0; i < 16; i++)
        k[i / 8] |= (uint64_t)kb[i] << (8 * (i % 8));
    g16_p1 g1, p1;
    g16_p2 g2, p2;
    g16_p1_affine a1;
    g16_p2_affine a2;
    g16__p1_generator(&g1);
    g16__p2_generator(&g2);
    g16__p1_mul_limbs_var(&p1, &g1, k, 128);
    g16__p2_mul_limbs_var(&p2, &g2, k, 128);
    g16__p1_to_affine(&a1, &p1);
    g16__p2_to_affine(&a2, &p2);
    memset(enc, 0, sizeof enc);
    g16_p1_affine_compress(enc[0], &a1);
    g16_p1_affine_serialize(enc[1], &a1);
    g16_p2_affine_compress(enc[2], &a2);
    g16_p2_affine_serialize(enc[3], &a2);
    size_t off = 0;
    uint8_t x = 0;
    if (size > 17) {
        off = data[16] % 192;
        x = data[17];
    }
    for (int i = 0; i < 4; i++) {
        enc[i][off] ^= x;
        g16_p1_affine q1;
        g16_p2_affine q2;
        int ok;
        switch (i) {
        case 0:
        case 1:
            ok = check_p1(enc[i], i == 0, &q1);
            CHECK(ok || x != 0);
            if (ok && x == 0)
                CHECK(g16__p1_affine_eq(&q1, &a1));
            break;
        default:
            ok = check_p2(enc[i], i == 2, &q2);
            CHECK(ok || x != 0);
            if (ok && x == 0)
                CHECK(g16__p2_affine_eq(&q2, &a2));
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 1 && data[0] == 0xff) {
        structured(data + 1, size - 1);
        return 0;
    }
    uint8_t buf[192] = {0};
    memcpy(buf, data, size < sizeof buf ? size : sizeof buf);
    run_all(buf);
    return 0;
}
