/* G1 = E(Fp): y² = x³ + 4. See g1.h for the representation; the arithmetic shared with G2
 * is instantiated from curve_internal.h, this file adds the constants and the subgroup test. */
#include "curve/g1.h"

#define FE g16_fp
#define FE_(op) g16__fp_##op
#define PT g16_p1
#define PTA g16_p1_affine
#define PT_(name) g16__p1_##name

/* b = 4: two doublings instead of a multiplication. */
static void curve_mul_by_b(g16_fp *r, const g16_fp *a)
{
    g16__fp_dbl(r, a);
    g16__fp_dbl(r, r);
}

#include "curve/curve_internal.h"

/* Montgomery forms of x = 0x17f1d3a7...db22c6bb, y = 0x08b3f481...46c5e7e1 (zcash / IETF
 * draft-irtf-cfrg-pairing-friendly-curves); tests check the curve equation, r·G = O and the
 * standard compressed encoding 97f1d3a7...db22c6bb. */
const g16_p1_affine g16__p1_generator_affine = {
    {{0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL, 0xf0ae6acdf3d0e747ULL,
      0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL}},
    {{0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL, 0x51ac582950405194ULL,
      0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL}},
};

/* β: the primitive cube root of unity 0x5f19672fdf76ce51...2e01fffffffefffe (Montgomery form)
 * for which σ(x, y) = (β·x, y) acts on G1 as multiplication by −x² (mod r); the other root,
 * β², acts as x² − 1. Derived as g^((p−1)/3); test_curve checks β³ = 1 and the eigenvalue. */
static const g16_fp p1_beta = {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
                                0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}};

/* |x| for the BLS parameter x = −0xd201000000010000. */
static const uint64_t bls_x_abs = 0xd201000000010000ULL;

void g16__p1_sigma(g16_p1 *r, const g16_p1 *a)
{
    g16__fp_mul(&r->x, &a->x, &p1_beta); /* x/Z² scales by β when X does */
    r->y = a->y;
    r->z = a->z;
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly
 * curves" (ePrint 2021/1130): on BLS12-381, P ∈ G1 iff σ(P) = −x²·P. Two multiplications
 * by the 64-bit |x| (about 128 doublings) instead of one by the 255-bit r. */
int g16__p1_in_subgroup(const g16_p1 *a)
{
    g16_p1 t, s;
    pt_mul_public_ct(&t, a, &bls_x_abs, 64);
    pt_mul_public_ct(&t, &t, &bls_x_abs, 64);
    g16__p1_neg(&t, &t);
    g16__p1_sigma(&s, a);
    return g16__p1_eq(&s, &t);
}

int g16__p1_affine_in_subgroup(const g16_p1_affine *a)
{
    g16_p1 p;
    g16__p1_from_affine(&p, a);
    return g16__p1_in_subgroup(&p);
}
