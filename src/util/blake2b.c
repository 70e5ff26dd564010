/* BLAKE2b compression and streaming interface, written from RFC 7693. */
#include "util/blake2b.h"

#include <string.h>

static const uint64_t blake2b_iv[8] = {0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
                                       0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
                                       0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL};

static const uint8_t sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4}, {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13}, {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11}, {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5}, {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static uint64_t rotr64(uint64_t x, unsigned n) { return (x >> n) | (x << (64 - n)); }

static uint64_t load64_le(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

#define G(a, b, c, d, x, y)                                                                                      \
    do {                                                                                                         \
        v[a] = v[a] + v[b] + (x);                                                                                \
        v[d] = rotr64(v[d] ^ v[a], 32);                                                                          \
        v[c] = v[c] + v[d];                                                                                      \
        v[b] = rotr64(v[b] ^ v[c], 24);                                                                          \
        v[a] = v[a] + v[b] + (y);                                                                                \
        v[d] = rotr64(v[d] ^ v[a], 16);                                                                          \
        v[c] = v[c] + v[d];                                                                                      \
        v[b] = rotr64(v[b] ^ v[c], 63);                                                                          \
    } while (0)

static void compress(g16__blake2b *s, const uint8_t block[128], int last)
{
    uint64_t v[16], m[16];
    for (int i = 0; i < 16; i++)
        m[i] = load64_le(block + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = blake2b_iv[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last)
        v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const uint8_t *sg = sigma[r];
        G(0, 4, 8, 12, m[sg[0]], m[sg[1]]);
        G(1, 5, 9, 13, m[sg[2]], m[sg[3]]);
        G(2, 6, 10, 14, m[sg[4]], m[sg[5]]);
        G(3, 7, 11, 15, m[sg[6]], m[sg[7]]);
        G(0, 5, 10, 15, m[sg[8]], m[sg[9]]);
        G(1, 6, 11, 12, m[sg[10]], m[sg[11]]);
        G(2, 7, 8, 13, m[sg[12]], m[sg[13]]);
        G(3, 4, 9, 14, m[sg[14]], m[sg[15]]);
    }
    for (int i = 0; i < 8; i++)
        s->h[i] ^= v[i] ^ v[i + 8];
}

int g16__blake2b_init(g16__blake2b *s, size_t outlen)
{
    if (outlen == 0 || outlen > 64)
        return -1;
    memset(s, 0, sizeof *s);
    memcpy(s->h, blake2b_iv, sizeof s->h);
    s->h[0] ^= 0x01010000ULL ^ (uint64_t)outlen; /* depth 1, fanout 1, no key */
    s->outlen = outlen;
    return 0;
}

static void add_counter(g16__blake2b *s, uint64_t n)
{
    s->t[0] += n;
    if (s->t[0] < n)
        s->t[1]++;
}

void g16__blake2b_update(g16__blake2b *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    while (len > 0) {
        /* a full buffer is compressed only once more input arrives: the last block is special */
        if (s->buflen == 128) {
            add_counter(s, 128);
            compress(s, s->buf, 0);
            s->buflen = 0;
        }
        size_t k = 128 - s->buflen < len ? 128 - s->buflen : len;
        memcpy(s->buf + s->buflen, p, k);
        s->buflen += k;
        p += k;
        len -= k;
    }
}

void g16__blake2b_final(g16__blake2b *s, uint8_t *out)
{
    add_counter(s, s->buflen);
    memset(s->buf + s->buflen, 0, 128 - s->buflen);
    compress(s, s->buf, 1);
    for (size_t i = 0; i < s->outlen; i++)
        out[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
}
