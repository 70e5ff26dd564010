/* G2 = E'(Fp2): y² = x³ + 4(u + 1), the sextic twist. See g2.h for the representation; the
 * arithmetic shared with G1 is instantiated from curve_internal.h, this file adds the
 * constants, the endomorphism ψ and the subgroup test. */
#include "curve/g2.h"

#define FE g16_fp2
#define FE_(op) g16__fp2_##op
#define PT g16_p2
#define PTA g16_p2_affine
#define PT_(name) g16__p2_##name

/* b = 4·(u + 1) = 4ξ. */
static void curve_mul_by_b(g16_fp2 *r, const g16_fp2 *a)
{
    g16__fp2_mul_by_nonresidue(r, a);
    g16__fp2_dbl(r, r);
    g16__fp2_dbl(r, r);
}

#include "curve/curve_internal.h"

/* Montgomery forms of the zcash / IETF generator:
 *   x = 0x024aa2b2...c121bdb8 + 0x13e02b60...5d042b7e·u
 *   y = 0x0ce5d527...08b82801 + 0x0606c4a0...f05f79be·u
 * tests check the curve equation, r·G = O and the standard compressed encoding. */
const g16_p2_affine g16__p2_generator_affine = {
    {{{0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL, 0x9894999d1a3caee9ULL,
       0x6f67b7631863366bULL, 0x058191924350bcd7ULL}},
     {{0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL, 0x1b1ab6cc8541b367ULL,
       0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL}}},
    {{{0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL, 0xbbefb5e96e0d495fULL,
       0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL}},
     {{0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL, 0x79495c4ec93da33aULL,
       0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL}}},
};

/* ψ = twist⁻¹ ∘ Frobenius ∘ twist on E': ψ(x, y) = (cx·x̄, cy·ȳ) with x̄ the Fp2 conjugate (the
 * p-power Frobenius), cx = 1/ξ^((p−1)/3) and cy = 1/ξ^((p−1)/2), ξ = u + 1. cx is purely
 * imaginary. test_curve recomputes both from ξ and checks ψ(P) = x·P on G2. */
static const g16_fp2 psi_cx = {
    {{0}},
    {{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
      0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
};
static const g16_fp2 psi_cy = {
    {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
      0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
    {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
      0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
};

static const uint64_t bls_x_abs = 0xd201000000010000ULL; /* x = −0xd201000000010000 */

/* In Jacobian form conj(X)/conj(Z)² = conj(X/Z²), so conjugating Z carries the Frobenius over. */
void g16__p2_psi(g16_p2 *r, const g16_p2 *a)
{
    g16_fp2 t;
    g16__fp2_conj(&t, &a->x);
    g16__fp2_mul(&r->x, &t, &psi_cx);
    g16__fp2_conj(&t, &a->y);
    g16__fp2_mul(&r->y, &t, &psi_cy);
    g16__fp2_conj(&r->z, &a->z);
}

/* Scott (ePrint 2021/1130, proof completed in 2022/352): on BLS12-381, Q ∈ G2 iff ψ(Q) = x·Q.
 * One multiplication by the 64-bit |x| instead of one by the 255-bit r. */
int g16__p2_in_subgroup(const g16_p2 *a)
{
    g16_p2 t, s;
    pt_mul_public_ct(&t, a, &bls_x_abs, 64);
    g16__p2_neg(&t, &t);
    g16__p2_psi(&s, a);
    return g16__p2_eq(&s, &t);
}

int g16__p2_affine_in_subgroup(const g16_p2_affine *a)
{
    g16_p2 p;
    g16__p2_from_affine(&p, a);
    return g16__p2_in_subgroup(&p);
}
