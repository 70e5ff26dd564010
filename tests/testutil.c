#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/fp.h"
#include "field/fr.h"

static uint64_t s[4];

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t tu_seed(const char *test_name)
{
    uint64_t seed;
    const char *env = getenv("G16_SEED");
    if (env && *env) {
        seed = strtoull(env, NULL, 0);
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec;
    }
    fprintf(stderr, "%s: seed %llu (replay with G16_SEED=%llu)\n", test_name, (unsigned long long)seed,
            (unsigned long long)seed);
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        s[i] = splitmix(&x);
    return seed;
}

uint64_t tu_rand64(void)
{
    uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

void tu_rand_bytes(uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)tu_rand64();
}

void tu_rand_fp(g16_fp *r)
{
    uint64_t l[6];
    do {
        for (int i = 0; i < 6; i++)
            l[i] = tu_rand64();
        l[5] &= (1ULL << 61) - 1; /* 381 bits */
    } while (g16__fp_from_limbs(r, l) != 0);
}

void tu_rand_fr(g16_fr *r)
{
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++)
            l[i] = tu_rand64();
        l[3] &= (1ULL << 63) - 1; /* 255 bits */
    } while (g16__fr_from_limbs(r, l) != 0);
}

void tu_rand_fp2(g16_fp2 *r)
{
    tu_rand_fp(&r->c0);
    tu_rand_fp(&r->c1);
}

static void limbs_to_mpz(mpz_t z, const uint64_t *l, size_t n) { mpz_import(z, n, -1, sizeof(uint64_t), 0, 0, l); }

static void mpz_to_limbs(uint64_t *l, size_t n, const mpz_t z)
{
    size_t count = 0;
    memset(l, 0, n * sizeof(uint64_t));
    mpz_export(l, &count, -1, sizeof(uint64_t), 0, 0, z);
}

void tu_mpz_p(mpz_t z) { limbs_to_mpz(z, g16__fp_modulus, 6); }
void tu_mpz_r(mpz_t z) { limbs_to_mpz(z, g16__fr_modulus, 4); }

void tu_fp_to_mpz(mpz_t z, const g16_fp *a)
{
    uint64_t l[6];
    g16__fp_to_limbs(l, a);
    limbs_to_mpz(z, l, 6);
}

void tu_fp_from_mpz(g16_fp *r, const mpz_t z)
{
    mpz_t t, p;
    uint64_t l[6];
    mpz_inits(t, p, NULL);
    tu_mpz_p(p);
    mpz_mod(t, z, p);
    mpz_to_limbs(l, 6, t);
    g16__fp_from_limbs(r, l);
    mpz_clears(t, p, NULL);
}

void tu_fr_to_mpz(mpz_t z, const g16_fr *a)
{
    uint64_t l[4];
    g16__fr_to_limbs(l, a);
    limbs_to_mpz(z, l, 4);
}

void tu_fr_from_mpz(g16_fr *r, const mpz_t z)
{
    mpz_t t, m;
    uint64_t l[4];
    mpz_inits(t, m, NULL);
    tu_mpz_r(m);
    mpz_mod(t, z, m);
    mpz_to_limbs(l, 4, t);
    g16__fr_from_limbs(r, l);
    mpz_clears(t, m, NULL);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

long tu_hex_decode(uint8_t *out, size_t cap, const char *hex)
{
    size_t len = strlen(hex);
    if (len % 2 || len / 2 > cap)
        return -1;
    for (size_t i = 0; i < len / 2; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return (long)(len / 2);
}

void tu_hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = 0;
}

int tu_iters(int dflt)
{
    const char *env = getenv("G16_TEST_ITERS");
    int v = env ? atoi(env) : 0;
    return v > 0 ? v : dflt;
}

tu_blob tu_load_data(const char *rel)
{
    char path[4096];
    const char *dir = getenv("G16_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "tests/data", rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (set G16_TEST_DATA to tests/data)", path);
    tu_blob b = {NULL, 0};
    fseek(f, 0, SEEK_END);
    b.len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    b.buf = malloc(b.len + 1);
    assert_non_null(b.buf);
    assert_int_equal(fread(b.buf, 1, b.len, f), b.len);
    b.buf[b.len] = 0;
    fclose(f);
    return b;
}
