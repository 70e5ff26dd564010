/* BLAKE2b against RFC 7693's example and OpenSSL's BLAKE2b-512 (an independent implementation). */
#include "testutil.h"

#include <openssl/evp.h>
#include <string.h>

#include "util/blake2b.h"

static void test_rfc7693_abc(void **state)
{
    (void)state;
    static const char want[] = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                               "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923";
    g16__blake2b s;
    uint8_t out[64];
    char hex[129];
    assert_int_equal(g16__blake2b_init(&s, 64), 0);
    g16__blake2b_update(&s, "abc", 3);
    g16__blake2b_final(&s, out);
    tu_hex_encode(hex, out, 64);
    assert_string_equal(hex, want);
    assert_int_equal(g16__blake2b_init(&s, 0), -1);
    assert_int_equal(g16__blake2b_init(&s, 65), -1);
}

static void test_against_openssl(void **state)
{
    (void)state;
    static uint8_t data[4096];
    tu_rand_bytes(data, sizeof data);
    size_t lens[] = {0, 1, 127, 128, 129, 255, 256, 257, 1000, 4096};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint8_t want[64], got[64];
        unsigned wl = 0;
        EVP_Digest(data, lens[i], want, &wl, EVP_blake2b512(), NULL);
        assert_int_equal(wl, 64);
        /* feed in irregular pieces to exercise the buffering */
        g16__blake2b s;
        g16__blake2b_init(&s, 64);
        size_t off = 0, step = 1;
        while (off < lens[i]) {
            size_t k = lens[i] - off < step ? lens[i] - off : step;
            g16__blake2b_update(&s, data + off, k);
            off += k;
            step = step * 3 + 1;
        }
        g16__blake2b_final(&s, got);
        assert_memory_equal(got, want, 64);
    }
}

int main(void)
{
    tu_seed("test_blake2b");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc7693_abc),
        cmocka_unit_test(test_against_openssl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
