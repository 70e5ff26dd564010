/* XXH64: see xxh64.h. */
#include "r1cs/xxh64.h"

#include <string.h>

static const uint64_t P1 = 0x9E3779B185EBCA87ULL;
static const uint64_t P2 = 0xC2B2AE3D27D4EB4FULL;
static const uint64_t P3 = 0x165667B19E3779F9ULL;
static const uint64_t P4 = 0x85EBCA77C2B2AE63ULL;
static const uint64_t P5 = 0x27D4EB2F165667C5ULL;

static uint64_t rotl(uint64_t x, unsigned k) { return (x << k) | (x >> (64 - k)); }

/* Little-endian loads regardless of the host byte order (memcpy compiles to one load). */
static uint64_t load64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

static uint32_t load32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t lane_round(uint64_t acc, uint64_t input)
{
    acc += input * P2;
    return rotl(acc, 31) * P1;
}

static uint64_t merge_lane(uint64_t h, uint64_t lane)
{
    h ^= lane_round(0, lane);
    return h * P1 + P4;
}

static void stripe(uint64_t v[4], const uint8_t *p)
{
    for (int i = 0; i < 4; i++)
        v[i] = lane_round(v[i], load64(p + 8 * i));
}

void g16__xxh64_init(g16__xxh64_state *s)
{
    memset(s, 0, sizeof *s);
    s->v[0] = P1 + P2;
    s->v[1] = P2;
    s->v[2] = 0;
    s->v[3] = 0 - P1;
}

void g16__xxh64_update(g16__xxh64_state *s, const void *data, size_t len)
{
    const uint8_t *p = data;
    s->total += len;
    if (s->buf_len > 0) {
        size_t take = 32 - s->buf_len < len ? 32 - s->buf_len : len;
        memcpy(s->buf + s->buf_len, p, take);
        s->buf_len += take;
        p += take;
        len -= take;
        if (s->buf_len < 32)
            return;
        stripe(s->v, s->buf);
        s->buf_len = 0;
    }
    for (; len >= 32; p += 32, len -= 32)
        stripe(s->v, p);
    memcpy(s->buf, p, len);
    s->buf_len = len;
}

uint64_t g16__xxh64_digest(const g16__xxh64_state *s)
{
    uint64_t h;
    if (s->total >= 32) {
        h = rotl(s->v[0], 1) + rotl(s->v[1], 7) + rotl(s->v[2], 12) + rotl(s->v[3], 18);
        for (int i = 0; i < 4; i++)
            h = merge_lane(h, s->v[i]);
    } else {
        h = P5; /* seed 0 */
    }
    h += s->total;
    const uint8_t *p = s->buf;
    size_t len = s->buf_len;
    for (; len >= 8; p += 8, len -= 8)
        h = rotl(h ^ lane_round(0, load64(p)), 27) * P1 + P4;
    if (len >= 4) {
        h = rotl(h ^ ((uint64_t)load32(p) * P1), 23) * P2 + P3;
        p += 4;
        len -= 4;
    }
    for (; len > 0; p++, len--)
        h = rotl(h ^ (*p * P5), 11) * P1;
    h ^= h >> 33;
    h *= P2;
    h ^= h >> 29;
    h *= P3;
    h ^= h >> 32;
    return h;
}

uint64_t g16__xxh64(const void *data, size_t len)
{
    g16__xxh64_state s;
    g16__xxh64_init(&s);
    g16__xxh64_update(&s, data, len);
    return g16__xxh64_digest(&s);
}
