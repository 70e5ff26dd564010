/*
 * Point encodings: known answers (k·G for a few k, computed by an independent Python
 * big-integer implementation of the curve and the zcash format; the generators match the
 * published encodings), round trips of random points, and every decoding error path with a
 * crafted input, checking the distinct status and that the output is left untouched.
 */
#include <string.h>

#include "testutil.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"

/* k (hex), k·G1 compressed, uncompressed, k·G2 compressed, uncompressed. */
static const struct {
    const char *k, *g1c, *g1u, *g2c, *g2u;
} KAT[] = {
    {"1",
     "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
     "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
     "08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1",
     "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
     "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
     "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
     "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
     "0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1da1aaa9075ff05f79be"
     "0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc3baca289e193548608b82801"},
    {"2",
     "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e",
     "0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529bf0f4e"
     "166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd1bba86881979749d28",
     "aa4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"
     "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053",
     "0a4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178288c47c33577"
     "1638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0bf3611b78c952aacab827a053"
     "0f6d4552fa65dd2638b361543f887136a43253d9c66c411697003f7a13c308f5422e1aa0a59c8967acdefd8b6e36ccf3"
     "0468fb440d82b0630aeb8dca2b5256789a66da69bf91009cbfe6bd221e47aa8ae88dece9764bf3bd999d95d71e4c9899"},
    {"3",
     "89ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224",
     "09ece308f9d1f0131765212deca99697b112d61f9be9a5f1f3780a51335b3ff981747a0b2ca2179b96d2c0c9024e5224"
     "032b80d3a6f5b09f8a84623389c5f80ca69a0cddabc3097f9d9c27310fd43be6e745256c634af45ca3473b0590ae30d1",
     "89380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc"
     "122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae",
     "09380275bbc8e5dcea7dc4dd7e0550ff2ac480905396eda55062650f8d251c96eb480673937cc6d9d6a44aaa56ca66dc"
     "122915c824a0857e2ee414a3dccb23ae691ae54329781315a0c75df1c04d6d7a50a030fc866f09d516020ef82324afae"
     "08f239ba329b3967fe48d718a36cfe5f62a7e42e0bf1c1ed714150a166bfbd6bcf6b3b58b975b9edea56d53f23a0e849"
     "0b21da7955969e61010c7a1abc1a6f0136961d1e3b20b1a7326ac738fef5c721479dfd948b52fdf2455e44813ecfd892"},
    {"73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000",
     "b7f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb",
     "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb"
     "114d1d6855d545a8aa7d76c8cf2e21f267816aef1db507c96655b9d5caac42364e6f38ba0ecb751bad54dcd6b939c2ca",
     "b3e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
     "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8",
     "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d042b7e"
     "024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8"
     "13fa4d4a0ad8b1ce186ed5061789213d993923066dddaf1040bc3ff59f825c78df74f2d75467e25e0f55f8a00fa030ed"
     "0d1b3cc2c7027888be51d9ef691d77bcb679afda66c73f17f9ee3837a55024f78c71363275a75d75d86bab79f74782aa"},
    {"1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90a",
     "807ca8b448cc094c231b3066df8a806c8b167f145133ef9b802f899553b7a795aaa267d8ef8bde098ecbdff385553ae1",
     "007ca8b448cc094c231b3066df8a806c8b167f145133ef9b802f899553b7a795aaa267d8ef8bde098ecbdff385553ae1"
     "08c9c94383364157c9fc94a0164cf5c1f44076359cb71f2addf98bb6ca8583fd92ab215e71597b6169ebedb33645ad1e",
     "a3f599164665610ba412515544e6e946a82b7ad3469c814951a7a558dbd551f9cdbbb596276254d7299fe5e2a5bf54f0"
     "14223bd3699da5342f9da8ca72881bc4101a853d6b7a88c0dc16c7956f5a46849613a958cdaca8210153b2123d526b63",
     "03f599164665610ba412515544e6e946a82b7ad3469c814951a7a558dbd551f9cdbbb596276254d7299fe5e2a5bf54f0"
     "14223bd3699da5342f9da8ca72881bc4101a853d6b7a88c0dc16c7956f5a46849613a958cdaca8210153b2123d526b63"
     "0d2940fbeee82198bf2335f26b2f5bf498998e09914eeeda39d4fe18eb42c0016e60691dbde6f481d742d71ec92c3920"
     "022aee52b2ef620efc4b11367cc1c0b495c97071e06937f5c5b17f63f20f9414bb48ec577bd255a5f3ddadf19922038d"},
};

/* The canonical big-endian bytes of p. */
static const char P_HEX[] = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";

#define SENTINEL 0x5a

static void hex(uint8_t *out, size_t n, const char *h) { assert_int_equal(tu_hex_decode(out, n, h), (long)n); }

static void fr_from_hex(g16_fr *k, const char *h)
{
    uint8_t be[32] = {0};
    size_t len = strlen(h);
    char pad[65];
    memset(pad, '0', 64 - len);
    memcpy(pad + 64 - len, h, len + 1);
    hex(be, 32, pad);
    assert_int_equal(g16__fr_from_be_bytes(k, be), 0);
}

static int all_bytes(const void *p, size_t n, uint8_t v)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return 0;
    return 1;
}

typedef g16_status (*p1_dec)(g16_p1_affine *, const uint8_t *);
typedef g16_status (*p2_dec)(g16_p2_affine *, const uint8_t *);

/* Decodes with f and checks the status; on failure the output must still hold the sentinel. */
static void expect1(p1_dec f, const uint8_t *in, g16_status want, g16_p1_affine *out)
{
    g16_p1_affine o;
    memset(&o, SENTINEL, sizeof o);
    g16_status st = f(&o, in);
    assert_string_equal(g16_strerror(st), g16_strerror(want));
    assert_int_equal(st, want);
    if (st != G16_OK)
        assert_true(all_bytes(&o, sizeof o, SENTINEL));
    if (out)
        *out = o;
}

static void expect2(p2_dec f, const uint8_t *in, g16_status want, g16_p2_affine *out)
{
    g16_p2_affine o;
    memset(&o, SENTINEL, sizeof o);
    g16_status st = f(&o, in);
    assert_string_equal(g16_strerror(st), g16_strerror(want));
    assert_int_equal(st, want);
    if (st != G16_OK)
        assert_true(all_bytes(&o, sizeof o, SENTINEL));
    if (out)
        *out = o;
}

static void rand_p1(g16_p1_affine *a)
{
    g16_fr k;
    g16_p1 g, p;
    tu_rand_fr(&k);
    g16__p1_generator(&g);
    g16__p1_mul_var(&p, &g, &k);
    g16__p1_to_affine(a, &p);
}

static void rand_p2(g16_p2_affine *a)
{
    g16_fr k;
    g16_p2 g, p;
    tu_rand_fr(&k);
    g16__p2_generator(&g);
    g16__p2_mul_var(&p, &g, &k);
    g16__p2_to_affine(a, &p);
}

/* A curve point outside the subgroup (random x, y by square root, no cofactor clearing). */
static void rand_p1_outside(g16_p1_affine *a)
{
    g16_fp rhs, four;
    g16__fp_from_u64(&four, 4);
    do {
        do {
            tu_rand_fp(&a->x);
            g16__fp_sqr(&rhs, &a->x);
            g16__fp_mul(&rhs, &rhs, &a->x);
            g16__fp_add(&rhs, &rhs, &four);
        } while (!g16__fp_sqrt(&a->y, &rhs));
    } while (g16__p1_affine_in_subgroup(a));
}

static void rand_p2_outside(g16_p2_affine *a)
{
    g16_fp2 rhs, b;
    g16__fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    do {
        do {
            tu_rand_fp2(&a->x);
            g16__fp2_sqr(&rhs, &a->x);
            g16__fp2_mul(&rhs, &rhs, &a->x);
            g16__fp2_add(&rhs, &rhs, &b);
        } while (!g16__fp2_sqrt(&a->y, &rhs));
    } while (g16__p2_affine_in_subgroup(a));
}

/* ---- known answers ---- */

static void test_known_answers(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof KAT / sizeof KAT[0]; i++) {
        g16_fr k;
        g16_p1 g1, p1;
        g16_p2 g2, p2;
        g16_p1_affine a1, d1;
        g16_p2_affine a2, d2;
        uint8_t c1[48], u1[96], c2[96], u2[192], want[192];
        fr_from_hex(&k, KAT[i].k);
        g16__p1_generator(&g1);
        g16__p2_generator(&g2);
        g16__p1_mul(&p1, &g1, &k);
        g16__p2_mul(&p2, &g2, &k);
        g16__p1_to_affine(&a1, &p1);
        g16__p2_to_affine(&a2, &p2);

        g16_p1_affine_compress(c1, &a1);
        hex(want, 48, KAT[i].g1c);
        assert_memory_equal(c1, want, 48);
        expect1(g16_p1_affine_uncompress, want, G16_OK, &d1);
        assert_true(g16__p1_affine_eq(&d1, &a1));

        g16_p1_affine_serialize(u1, &a1);
        hex(want, 96, KAT[i].g1u);
        assert_memory_equal(u1, want, 96);
        expect1(g16_p1_affine_deserialize, want, G16_OK, &d1);
        assert_true(g16__p1_affine_eq(&d1, &a1));

        g16_p2_affine_compress(c2, &a2);
        hex(want, 96, KAT[i].g2c);
        assert_memory_equal(c2, want, 96);
        expect2(g16_p2_affine_uncompress, want, G16_OK, &d2);
        assert_true(g16__p2_affine_eq(&d2, &a2));

        g16_p2_affine_serialize(u2, &a2);
        hex(want, 192, KAT[i].g2u);
        assert_memory_equal(u2, want, 192);
        expect2(g16_p2_affine_deserialize, want, G16_OK, &d2);
        assert_true(g16__p2_affine_eq(&d2, &a2));
    }
}

/* Infinity encodes as the flag byte and zeros, and decodes back to (0, 0). */
static void test_infinity(void **state)
{
    (void)state;
    g16_p1_affine o1, d1;
    g16_p2_affine o2, d2;
    uint8_t buf[192], want[192];
    memset(&o1, 0, sizeof o1);
    memset(&o2, 0, sizeof o2);
    memset(want, 0, sizeof want);
    want[0] = 0xc0;
    g16_p1_affine_compress(buf, &o1);
    assert_memory_equal(buf, want, 48);
    expect1(g16_p1_affine_uncompress, buf, G16_OK, &d1);
    assert_true(g16__p1_affine_is_infinity(&d1));
    expect1(g16_p1_affine_uncompress_unchecked, buf, G16_OK, &d1);
    assert_true(g16__p1_affine_is_infinity(&d1));
    g16_p2_affine_compress(buf, &o2);
    assert_memory_equal(buf, want, 96);
    expect2(g16_p2_affine_uncompress, buf, G16_OK, &d2);
    assert_true(g16__p2_affine_is_infinity(&d2));
    want[0] = 0x40;
    g16_p1_affine_serialize(buf, &o1);
    assert_memory_equal(buf, want, 96);
    expect1(g16_p1_affine_deserialize, buf, G16_OK, &d1);
    assert_true(g16__p1_affine_is_infinity(&d1));
    g16_p2_affine_serialize(buf, &o2);
    assert_memory_equal(buf, want, 192);
    expect2(g16_p2_affine_deserialize, buf, G16_OK, &d2);
    assert_true(g16__p2_affine_is_infinity(&d2));
    expect2(g16_p2_affine_deserialize_unchecked, buf, G16_OK, &d2);
    assert_true(g16__p2_affine_is_infinity(&d2));
}

/* ---- round trips ---- */

static void test_round_trip_g1(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(40); it++) {
        g16_p1_affine a, n, d;
        uint8_t c[48], cn[48], u[96], again[96];
        rand_p1(&a);
        g16__p1_affine_neg(&n, &a);
        g16_p1_affine_compress(c, &a);
        g16_p1_affine_compress(cn, &n);
        assert_true(c[0] & 0x80);
        assert_false(c[0] & 0x40);
        assert_int_equal((c[0] >> 5) & 1, g16__fp_is_lexmax(&a.y));
        /* ±P differ in the sign bit only */
        assert_int_equal(c[0] ^ cn[0], 0x20);
        assert_memory_equal(c + 1, cn + 1, 47);
        expect1(g16_p1_affine_uncompress, c, G16_OK, &d);
        assert_true(g16__p1_affine_eq(&d, &a));
        expect1(g16_p1_affine_uncompress, cn, G16_OK, &d);
        assert_true(g16__p1_affine_eq(&d, &n));
        expect1(g16_p1_affine_uncompress_unchecked, c, G16_OK, &d);
        assert_true(g16__p1_affine_eq(&d, &a));
        g16_p1_affine_compress(again, &d);
        assert_memory_equal(again, c, 48);

        g16_p1_affine_serialize(u, &a);
        assert_false(u[0] & 0xe0);
        expect1(g16_p1_affine_deserialize, u, G16_OK, &d);
        assert_true(g16__p1_affine_eq(&d, &a));
        expect1(g16_p1_affine_deserialize_unchecked, u, G16_OK, &d);
        g16_p1_affine_serialize(again, &d);
        assert_memory_equal(again, u, 96);
        assert_int_equal(u[0] | 0x80 | (c[0] & 0x20), c[0]); /* same x bytes */
        assert_memory_equal(u + 1, c + 1, 47);
    }
}

static void test_round_trip_g2(void **state)
{
    (void)state;
    for (int it = 0; it < tu_iters(20); it++) {
        g16_p2_affine a, n, d;
        uint8_t c[96], cn[96], u[192], again[192];
        rand_p2(&a);
        g16__p2_affine_neg(&n, &a);
        g16_p2_affine_compress(c, &a);
        g16_p2_affine_compress(cn, &n);
        assert_int_equal((c[0] >> 5) & 1, g16__fp2_is_lexmax(&a.y));
        assert_int_equal(c[0] ^ cn[0], 0x20);
        assert_memory_equal(c + 1, cn + 1, 95);
        /* c1 first: bytes 48..95 are x.c0 */
        uint8_t c0[48];
        g16__fp_to_be_bytes(c0, &a.x.c0);
        assert_memory_equal(c + 48, c0, 48);
        expect2(g16_p2_affine_uncompress, c, G16_OK, &d);
        assert_true(g16__p2_affine_eq(&d, &a));
        expect2(g16_p2_affine_uncompress, cn, G16_OK, &d);
        assert_true(g16__p2_affine_eq(&d, &n));
        expect2(g16_p2_affine_uncompress_unchecked, c, G16_OK, &d);
        g16_p2_affine_compress(again, &d);
        assert_memory_equal(again, c, 96);

        g16_p2_affine_serialize(u, &a);
        assert_false(u[0] & 0xe0);
        expect2(g16_p2_affine_deserialize, u, G16_OK, &d);
        assert_true(g16__p2_affine_eq(&d, &a));
        expect2(g16_p2_affine_deserialize_unchecked, u, G16_OK, &d);
        g16_p2_affine_serialize(again, &d);
        assert_memory_equal(again, u, 192);
        assert_memory_equal(u + 1, c + 1, 95);
    }
}

/* ---- error paths, G1 ---- */

static void test_errors_g1_compressed(void **state)
{
    (void)state;
    g16_p1_affine a, d;
    uint8_t c[48], b[48];
    rand_p1(&a);
    g16_p1_affine_compress(c, &a);
    p1_dec both[2] = {g16_p1_affine_uncompress, g16_p1_affine_uncompress_unchecked};
    for (int v = 0; v < 2; v++) {
        p1_dec f = both[v];
        /* compressed bit missing */
        memcpy(b, c, 48);
        b[0] &= 0x7f;
        expect1(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        memset(b, 0, 48);
        expect1(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        b[0] = 0x40; /* uncompressed infinity flag byte */
        expect1(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        /* sign with infinity */
        memset(b, 0, 48);
        b[0] = 0xe0;
        expect1(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        /* infinity with other bits: in the flag byte, at the end, or a whole x */
        memset(b, 0, 48);
        b[0] = 0xc1;
        expect1(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        b[0] = 0xd0;
        expect1(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        b[0] = 0xc0;
        b[47] = 1;
        expect1(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        memcpy(b, c, 48);
        b[0] = (uint8_t)((b[0] & 0x1f) | 0xc0);
        expect1(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        /* x >= p: p itself, p + 1, and the largest 381-bit value */
        hex(b, 48, P_HEX);
        b[0] |= 0x80;
        expect1(f, b, G16_ERR_COORD_RANGE, NULL);
        b[47]++;
        expect1(f, b, G16_ERR_COORD_RANGE, NULL);
        memset(b, 0xff, 48);
        b[0] = 0xbf;
        expect1(f, b, G16_ERR_COORD_RANGE, NULL);
        /* x with no y: the smallest such x from 1 up */
        g16_fp x, rhs, y, four;
        g16__fp_from_u64(&four, 4);
        for (uint64_t xv = 1;; xv++) {
            g16__fp_from_u64(&x, xv);
            g16__fp_sqr(&rhs, &x);
            g16__fp_mul(&rhs, &rhs, &x);
            g16__fp_add(&rhs, &rhs, &four);
            if (!g16__fp_sqrt(&y, &rhs))
                break;
        }
        g16__fp_to_be_bytes(b, &x);
        b[0] |= 0x80;
        expect1(f, b, G16_ERR_NOT_ON_CURVE, NULL);
        b[0] |= 0x20;
        expect1(f, b, G16_ERR_NOT_ON_CURVE, NULL);
    }
    /* on the curve, outside the subgroup: only the checked decoder refuses */
    g16_p1_affine o;
    rand_p1_outside(&o);
    g16_p1_affine_compress(b, &o);
    expect1(g16_p1_affine_uncompress, b, G16_ERR_NOT_IN_SUBGROUP, NULL);
    expect1(g16_p1_affine_uncompress_unchecked, b, G16_OK, &d);
    assert_true(g16__p1_affine_eq(&d, &o));
    /* x = 0: (0, ±2), of order 3 */
    memset(b, 0, 48);
    b[0] = 0x80;
    expect1(g16_p1_affine_uncompress, b, G16_ERR_NOT_IN_SUBGROUP, NULL);
    expect1(g16_p1_affine_uncompress_unchecked, b, G16_OK, &d);
    g16_fp two;
    g16__fp_from_u64(&two, 2);
    assert_true(g16__fp_eq(&d.y, &two));
    b[0] = 0xa0;
    expect1(g16_p1_affine_uncompress_unchecked, b, G16_OK, &d);
    g16__fp_neg(&two, &two);
    assert_true(g16__fp_eq(&d.y, &two));
}

static void test_errors_g1_uncompressed(void **state)
{
    (void)state;
    g16_p1_affine a, d;
    uint8_t u[96], b[96];
    rand_p1(&a);
    g16_p1_affine_serialize(u, &a);
    p1_dec both[2] = {g16_p1_affine_deserialize, g16_p1_affine_deserialize_unchecked};
    for (int v = 0; v < 2; v++) {
        p1_dec f = both[v];
        /* compressed bit, sign bit, sign with infinity, compressed infinity */
        static const uint8_t bad_flags[] = {0x80, 0x20, 0xa0};
        for (size_t i = 0; i < sizeof bad_flags; i++) {
            memcpy(b, u, 96);
            b[0] |= bad_flags[i];
            expect1(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        }
        static const uint8_t inf_flags[] = {0x60, 0xc0, 0xe0};
        for (size_t i = 0; i < sizeof inf_flags; i++) {
            memset(b, 0, 96);
            b[0] = inf_flags[i];
            expect1(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        }
        /* infinity with other bits */
        memset(b, 0, 96);
        b[0] = 0x41;
        expect1(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        b[0] = 0x40;
        b[95] = 1; /* in y */
        expect1(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        memcpy(b, u, 96);
        b[0] |= 0x40;
        expect1(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        /* x >= p, y >= p (y has no flag bits: its top bits count) */
        memcpy(b, u, 96);
        hex(b, 48, P_HEX);
        expect1(f, b, G16_ERR_COORD_RANGE, NULL);
        memset(b, 0xff, 48);
        b[0] = 0x1f;
        expect1(f, b, G16_ERR_COORD_RANGE, NULL);
        memcpy(b, u, 96);
        hex(b + 48, 48, P_HEX);
        expect1(f, b, G16_ERR_COORD_RANGE, NULL);
        memcpy(b, u, 96);
        b[48] |= 0x80;
        expect1(f, b, G16_ERR_COORD_RANGE, NULL);
        /* off the curve: all zeros (no infinity flag), y + 1, y = 0 */
        memset(b, 0, 96);
        expect1(f, b, G16_ERR_NOT_ON_CURVE, NULL);
        g16_p1_affine m = a;
        g16__fp_add(&m.y, &m.y, &g16__fp_one);
        g16_p1_affine_serialize(b, &m);
        expect1(f, b, G16_ERR_NOT_ON_CURVE, NULL);
        memcpy(b, u, 96);
        memset(b + 48, 0, 48);
        expect1(f, b, G16_ERR_NOT_ON_CURVE, NULL);
    }
    g16_p1_affine o;
    rand_p1_outside(&o);
    g16_p1_affine_serialize(b, &o);
    expect1(g16_p1_affine_deserialize, b, G16_ERR_NOT_IN_SUBGROUP, NULL);
    expect1(g16_p1_affine_deserialize_unchecked, b, G16_OK, &d);
    assert_true(g16__p1_affine_eq(&d, &o));
    /* (0, 2) */
    memset(b, 0, 96);
    b[95] = 2;
    expect1(g16_p1_affine_deserialize, b, G16_ERR_NOT_IN_SUBGROUP, NULL);
    expect1(g16_p1_affine_deserialize_unchecked, b, G16_OK, &d);
}

/* ---- error paths, G2 ---- */

static void test_errors_g2_compressed(void **state)
{
    (void)state;
    g16_p2_affine a, d;
    uint8_t c[96], b[96];
    rand_p2(&a);
    g16_p2_affine_compress(c, &a);
    p2_dec both[2] = {g16_p2_affine_uncompress, g16_p2_affine_uncompress_unchecked};
    for (int v = 0; v < 2; v++) {
        p2_dec f = both[v];
        memcpy(b, c, 96);
        b[0] &= 0x7f;
        expect2(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        memset(b, 0, 96);
        b[0] = 0xe0;
        expect2(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        b[0] = 0x40;
        expect2(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        memset(b, 0, 96);
        b[0] = 0xc2;
        expect2(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        b[0] = 0xc0;
        b[95] = 1; /* in x.c0 */
        expect2(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        memcpy(b, c, 96);
        b[0] = (uint8_t)((b[0] & 0x1f) | 0xc0);
        expect2(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        /* x.c1 >= p (flags stripped), x.c0 >= p (its top bits are not flags) */
        memcpy(b, c, 96);
        hex(b, 48, P_HEX);
        b[0] |= 0x80;
        expect2(f, b, G16_ERR_COORD_RANGE, NULL);
        memcpy(b, c, 96);
        hex(b + 48, 48, P_HEX);
        expect2(f, b, G16_ERR_COORD_RANGE, NULL);
        memcpy(b, c, 96);
        b[48] |= 0xe0;
        expect2(f, b, G16_ERR_COORD_RANGE, NULL);
        /* x = 0 + 0·u: 4(u + 1) is not a square, so no y */
        memset(b, 0, 96);
        b[0] = 0x80;
        expect2(f, b, G16_ERR_NOT_ON_CURVE, NULL);
        /* the smallest x = n (c1 = 0) without y */
        g16_fp2 x, rhs, y, bb;
        g16__fp_from_u64(&bb.c0, 4);
        bb.c1 = bb.c0;
        for (uint64_t xv = 1;; xv++) {
            g16__fp_from_u64(&x.c0, xv);
            g16__fp_set_zero(&x.c1);
            g16__fp2_sqr(&rhs, &x);
            g16__fp2_mul(&rhs, &rhs, &x);
            g16__fp2_add(&rhs, &rhs, &bb);
            if (!g16__fp2_sqrt(&y, &rhs))
                break;
        }
        g16__fp_to_be_bytes(b, &x.c1);
        g16__fp_to_be_bytes(b + 48, &x.c0);
        b[0] |= 0xa0;
        expect2(f, b, G16_ERR_NOT_ON_CURVE, NULL);
    }
    g16_p2_affine o;
    rand_p2_outside(&o);
    g16_p2_affine_compress(b, &o);
    expect2(g16_p2_affine_uncompress, b, G16_ERR_NOT_IN_SUBGROUP, NULL);
    expect2(g16_p2_affine_uncompress_unchecked, b, G16_OK, &d);
    assert_true(g16__p2_affine_eq(&d, &o));
}

static void test_errors_g2_uncompressed(void **state)
{
    (void)state;
    g16_p2_affine a, d;
    uint8_t u[192], b[192];
    rand_p2(&a);
    g16_p2_affine_serialize(u, &a);
    p2_dec both[2] = {g16_p2_affine_deserialize, g16_p2_affine_deserialize_unchecked};
    for (int v = 0; v < 2; v++) {
        p2_dec f = both[v];
        static const uint8_t bad_flags[] = {0x80, 0x20, 0xa0};
        for (size_t i = 0; i < sizeof bad_flags; i++) {
            memcpy(b, u, 192);
            b[0] |= bad_flags[i];
            expect2(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        }
        static const uint8_t inf_flags[] = {0x60, 0xc0, 0xe0};
        for (size_t i = 0; i < sizeof inf_flags; i++) {
            memset(b, 0, 192);
            b[0] = inf_flags[i];
            expect2(f, b, G16_ERR_ENCODING_FLAGS, NULL);
        }
        memset(b, 0, 192);
        b[0] = 0x48;
        expect2(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        b[0] = 0x40;
        b[100] = 1; /* in y.c1 */
        expect2(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        memcpy(b, u, 192);
        b[0] |= 0x40;
        expect2(f, b, G16_ERR_INFINITY_NONCANONICAL, NULL);
        /* each of the four coordinates >= p */
        for (size_t off = 0; off < 192; off += 48) {
            memcpy(b, u, 192);
            hex(b + off, 48, P_HEX);
            expect2(f, b, G16_ERR_COORD_RANGE, NULL);
            if (off > 0) {
                memcpy(b, u, 192);
                b[off] |= 0x20;
                expect2(f, b, G16_ERR_COORD_RANGE, NULL);
            }
        }
        memset(b, 0, 192);
        expect2(f, b, G16_ERR_NOT_ON_CURVE, NULL);
        g16_p2_affine m = a;
        g16__fp_add(&m.y.c1, &m.y.c1, &g16__fp_one);
        g16_p2_affine_serialize(b, &m);
        expect2(f, b, G16_ERR_NOT_ON_CURVE, NULL);
        /* x and y swapped */
        memcpy(b, u + 96, 96);
        memcpy(b + 96, u, 96);
        b[0] &= 0x1f;
        if (memcmp(b, u, 192) != 0)
            expect2(f, b, G16_ERR_NOT_ON_CURVE, NULL);
    }
    g16_p2_affine o;
    rand_p2_outside(&o);
    g16_p2_affine_serialize(b, &o);
    expect2(g16_p2_affine_deserialize, b, G16_ERR_NOT_IN_SUBGROUP, NULL);
    expect2(g16_p2_affine_deserialize_unchecked, b, G16_OK, &d);
    assert_true(g16__p2_affine_eq(&d, &o));
}

/* Random bytes: every decoder either fails cleanly or returns a point that re-encodes to the
 * same bytes (a cheap in-tree cousin of fuzz/fuzz_decode.c). */
static void test_random_bytes(void **state)
{
    (void)state;
    int ok = 0;
    for (int it = 0; it < tu_iters(300); it++) {
        uint8_t b[192], again[192];
        g16_p1_affine p1;
        g16_p2_affine p2;
        tu_rand_bytes(b, sizeof b);
        if (it % 3 == 0)
            b[0] = (uint8_t)((b[0] & 0x3f) | 0x80); /* compressed, often valid x */
        if (it % 3 == 1)
            b[0] &= 0x1f;
        if (g16_p1_affine_uncompress_unchecked(&p1, b) == G16_OK) {
            ok++;
            g16_p1_affine_compress(again, &p1);
            assert_memory_equal(again, b, 48);
        }
        if (g16_p2_affine_uncompress_unchecked(&p2, b) == G16_OK) {
            ok++;
            g16_p2_affine_compress(again, &p2);
            assert_memory_equal(again, b, 96);
        }
        assert_int_not_equal(g16_p1_affine_deserialize_unchecked(&p1, b), G16_OK);
        assert_int_not_equal(g16_p2_affine_deserialize_unchecked(&p2, b), G16_OK);
    }
    assert_true(ok > 0);
}

int main(void)
{
    tu_seed("test_encode");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_infinity),
        cmocka_unit_test(test_round_trip_g1),
        cmocka_unit_test(test_round_trip_g2),
        cmocka_unit_test(test_errors_g1_compressed),
        cmocka_unit_test(test_errors_g1_uncompressed),
        cmocka_unit_test(test_errors_g2_compressed),
        cmocka_unit_test(test_errors_g2_uncompressed),
        cmocka_unit_test(test_random_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
