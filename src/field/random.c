#include "field/random.h"

g16_status g16__fr_random(g16_fr *r, g16__rng *rng)
{
    uint64_t l[4];
    do {
        g16_status st = g16__rng_bytes(rng, l, sizeof l);
        if (st != G16_OK)
            return st;
        l[3] &= (1ULL << 63) - 1; /* 255 bits: acceptance probability r/2^255 ≈ 0.9 */
    } while (g16__fr_from_limbs(r, l) != 0);
    return G16_OK;
}

g16_status g16__fr_random_nonzero(g16_fr *r, g16__rng *rng)
{
    g16_status st;
    do {
        st = g16__fr_random(r, rng);
    } while (st == G16_OK && g16__fr_is_zero(r));
    return st;
}

g16_status g16__fp_random(g16_fp *r, g16__rng *rng)
{
    uint64_t l[6];
    do {
        g16_status st = g16__rng_bytes(rng, l, sizeof l);
        if (st != G16_OK)
            return st;
        l[5] &= (1ULL << 61) - 1; /* 381 bits */
    } while (g16__fp_from_limbs(r, l) != 0);
    return G16_OK;
}
