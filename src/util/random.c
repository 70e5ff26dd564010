#include "util/random.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>

g16_status g16__random_bytes_os(void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return G16_ERR_IO;
        }
        p += got;
        n -= (size_t)got;
    }
    return G16_OK;
}

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static uint64_t rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t xoshiro_next(uint64_t s[4])
{
    uint64_t result = rotl64(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

void g16__rng_init_os(g16__rng *rng) { memset(rng, 0, sizeof *rng); }

void g16__rng_init_seeded(g16__rng *rng, uint64_t seed)
{
    rng->deterministic = 1;
    for (int i = 0; i < 4; i++)
        rng->s[i] = splitmix64(&seed);
}

g16_status g16__rng_bytes(g16__rng *rng, void *buf, size_t n)
{
    if (!rng->deterministic)
        return g16__random_bytes_os(buf, n);
    uint8_t *p = buf;
    while (n > 0) {
        uint64_t w = xoshiro_next(rng->s);
        size_t k = n < 8 ? n : 8;
        memcpy(p, &w, k);
        p += k;
        n -= k;
    }
    return G16_OK;
}
