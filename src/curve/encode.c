/*
 * Point encodings (include/g16.h): the zcash / bellman / blst / @noble/curves format.
 *
 * A coordinate is 48 big-endian bytes of its canonical value; an Fp2 coordinate is c1 then
 * c0. The top three bits of the first byte are flags (the value is < 2^381, so they are
 * free): 0x80 compressed, 0x40 infinity, 0x20 sign (compressed only: y is the
 * lexicographically larger of ±y). Infinity is the flag byte followed by zeros only:
 * 0xc0 00.. compressed, 0x40 00.. uncompressed.
 *
 * Decoding checks, in order, each with its own status (the same acceptance as blst and
 * zkcrypto's bls12_381; those report fewer distinct errors):
 *   flags      G16_ERR_ENCODING_FLAGS: compressed bit wrong for the function, sign bit on
 *              an uncompressed encoding, sign bit together with infinity;
 *   infinity   G16_ERR_INFINITY_NONCANONICAL: infinity bit with any other bit set;
 *   range      G16_ERR_COORD_RANGE: a coordinate (flags stripped) is >= p;
 *   curve      G16_ERR_NOT_ON_CURVE: x³ + b has no square root, or (x, y) misses the curve
 *              (all-zero coordinates without the infinity bit included: (0, 0) is not a point);
 *   subgroup   G16_ERR_NOT_IN_SUBGROUP (skipped by the _unchecked variants).
 * Outputs are written only on success. Encoded points are public: the code may branch.
 */
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "g16.h"

#define FLAG_COMPRESSED 0x80
#define FLAG_INFINITY 0x40
#define FLAG_SIGN 0x20
#define FLAG_BITS 0xe0

static int bytes_are_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* Validates the flag byte of an encoding of len bytes; on success *infinity says whether it
 * is the (canonical) point at infinity. */
static g16_status parse_flags(int *infinity, const uint8_t *in, size_t len, int compressed)
{
    uint8_t f = in[0];
    int c = (f & FLAG_COMPRESSED) != 0, i = (f & FLAG_INFINITY) != 0, s = (f & FLAG_SIGN) != 0;
    if (c != compressed || (s && (!compressed || i)))
        return G16_ERR_ENCODING_FLAGS;
    *infinity = i;
    if (i && ((f & ~FLAG_BITS) != 0 || !bytes_are_zero(in + 1, len - 1)))
        return G16_ERR_INFINITY_NONCANONICAL;
    return G16_OK;
}

/* A coordinate from 48 bytes; strip_flags clears the top three bits first (first field of
 * an encoding). */
static g16_status fp_read(g16_fp *r, const uint8_t in[48], int strip_flags)
{
    uint8_t b[48];
    memcpy(b, in, sizeof b);
    if (strip_flags)
        b[0] &= (uint8_t)~FLAG_BITS;
    return g16__fp_from_be_bytes(r, b) == 0 ? G16_OK : G16_ERR_COORD_RANGE;
}

static g16_status fp2_read(g16_fp2 *r, const uint8_t in[96], int strip_flags)
{
    g16_fp2 t;
    if (fp_read(&t.c1, in, strip_flags) != G16_OK || fp_read(&t.c0, in + 48, 0) != G16_OK)
        return G16_ERR_COORD_RANGE;
    *r = t;
    return G16_OK;
}

static void fp2_write(uint8_t out[96], const g16_fp2 *a)
{
    g16__fp_to_be_bytes(out, &a->c1);
    g16__fp_to_be_bytes(out + 48, &a->c0);
}

/* ---------------- G1 ---------------- */

void g16_p1_affine_compress(uint8_t out[48], const g16_p1_affine *in)
{
    if (g16__p1_affine_is_infinity(in)) {
        memset(out, 0, 48);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    g16__fp_to_be_bytes(out, &in->x);
    out[0] |= FLAG_COMPRESSED | (g16__fp_is_lexmax(&in->y) ? FLAG_SIGN : 0);
}

void g16_p1_affine_serialize(uint8_t out[96], const g16_p1_affine *in)
{
    if (g16__p1_affine_is_infinity(in)) {
        memset(out, 0, 96);
        out[0] = FLAG_INFINITY;
        return;
    }
    g16__fp_to_be_bytes(out, &in->x);
    g16__fp_to_be_bytes(out + 48, &in->y);
}

/* y = ±sqrt(x³ + 4), the sign picked by the flag. */
static g16_status p1_recover_y(g16_p1_affine *p, int sign)
{
    g16_fp rhs, four;
    g16__fp_sqr(&rhs, &p->x);
    g16__fp_mul(&rhs, &rhs, &p->x);
    g16__fp_from_u64(&four, 4);
    g16__fp_add(&rhs, &rhs, &four);
    if (!g16__fp_sqrt(&p->y, &rhs))
        return G16_ERR_NOT_ON_CURVE;
    if (g16__fp_is_lexmax(&p->y) != sign)
        g16__fp_neg(&p->y, &p->y);
    return G16_OK;
}

static g16_status p1_decode(g16_p1_affine *out, const uint8_t *in, int compressed, int check_subgroup)
{
    g16_p1_affine p;
    int infinity = 0;
    g16_status st = parse_flags(&infinity, in, compressed ? 48 : 96, compressed);
    if (st != G16_OK)
        return st;
    if (infinity) {
        memset(out, 0, sizeof *out);
        return G16_OK;
    }
    if ((st = fp_read(&p.x, in, 1)) != G16_OK)
        return st;
    if (compressed) {
        if ((st = p1_recover_y(&p, (in[0] & FLAG_SIGN) != 0)) != G16_OK)
            return st;
    } else {
        if ((st = fp_read(&p.y, in + 48, 0)) != G16_OK)
            return st;
        /* affine_on_curve accepts (0, 0) as infinity; here it would be a forged one */
        if (g16__p1_affine_is_infinity(&p) || !g16__p1_affine_on_curve(&p))
            return G16_ERR_NOT_ON_CURVE;
    }
    if (check_subgroup && !g16__p1_affine_in_subgroup(&p))
        return G16_ERR_NOT_IN_SUBGROUP;
    *out = p;
    return G16_OK;
}

g16_status g16_p1_affine_uncompress(g16_p1_affine *out, const uint8_t in[48]) { return p1_decode(out, in, 1, 1); }
g16_status g16_p1_affine_deserialize(g16_p1_affine *out, const uint8_t in[96]) { return p1_decode(out, in, 0, 1); }
g16_status g16_p1_affine_uncompress_unchecked(g16_p1_affine *out, const uint8_t in[48])
{
    return p1_decode(out, in, 1, 0);
}
g16_status g16_p1_affine_deserialize_unchecked(g16_p1_affine *out, const uint8_t in[96])
{
    return p1_decode(out, in, 0, 0);
}

/* ---------------- G2 ---------------- */

void g16_p2_affine_compress(uint8_t out[96], const g16_p2_affine *in)
{
    if (g16__p2_affine_is_infinity(in)) {
        memset(out, 0, 96);
        out[0] = FLAG_COMPRESSED | FLAG_INFINITY;
        return;
    }
    fp2_write(out, &in->x);
    out[0] |= FLAG_COMPRESSED | (g16__fp2_is_lexmax(&in->y) ? FLAG_SIGN : 0);
}

void g16_p2_affine_serialize(uint8_t out[192], const g16_p2_affine *in)
{
    if (g16__p2_affine_is_infinity(in)) {
        memset(out, 0, 192);
        out[0] = FLAG_INFINITY;
        return;
    }
    fp2_write(out, &in->x);
    fp2_write(out + 96, &in->y);
}

/* y = ±sqrt(x³ + 4(u + 1)), the sign picked by the flag. */
static g16_status p2_recover_y(g16_p2_affine *p, int sign)
{
    g16_fp2 rhs, b;
    g16__fp2_sqr(&rhs, &p->x);
    g16__fp2_mul(&rhs, &rhs, &p->x);
    g16__fp_from_u64(&b.c0, 4);
    b.c1 = b.c0;
    g16__fp2_add(&rhs, &rhs, &b);
    if (!g16__fp2_sqrt(&p->y, &rhs))
        return G16_ERR_NOT_ON_CURVE;
    if (g16__fp2_is_lexmax(&p->y) != sign)
        g16__fp2_neg(&p->y, &p->y);
    return G16_OK;
}

static g16_status p2_decode(g16_p2_affine *out, const uint8_t *in, int compressed, int check_subgroup)
{
    g16_p2_affine p;
    int infinity = 0;
    g16_status st = parse_flags(&infinity, in, compressed ? 96 : 192, compressed);
    if (st != G16_OK)
        return st;
    if (infinity) {
        memset(out, 0, sizeof *out);
        return G16_OK;
    }
    if ((st = fp2_read(&p.x, in, 1)) != G16_OK)
        return st;
    if (compressed) {
        if ((st = p2_recover_y(&p, (in[0] & FLAG_SIGN) != 0)) != G16_OK)
            return st;
    } else {
        if ((st = fp2_read(&p.y, in + 96, 0)) != G16_OK)
            return st;
        if (g16__p2_affine_is_infinity(&p) || !g16__p2_affine_on_curve(&p))
            return G16_ERR_NOT_ON_CURVE;
    }
    if (check_subgroup && !g16__p2_affine_in_subgroup(&p))
        return G16_ERR_NOT_IN_SUBGROUP;
    *out = p;
    return G16_OK;
}

g16_status g16_p2_affine_uncompress(g16_p2_affine *out, const uint8_t in[96]) { return p2_decode(out, in, 1, 1); }
g16_status g16_p2_affine_deserialize(g16_p2_affine *out, const uint8_t in[192]) { return p2_decode(out, in, 0, 1); }
g16_status g16_p2_affine_uncompress_unchecked(g16_p2_affine *out, const uint8_t in[96])
{
    return p2_decode(out, in, 1, 0);
}
g16_status g16_p2_affine_deserialize_unchecked(g16_p2_affine *out, const uint8_t in[192])
{
    return p2_decode(out, in, 0, 0);
}
