/* Host side of the GPU MSM shared by the CUDA and the stub builds: normalization of the XYZZ
 * result the device returns (see msm_gpu.h). */
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp2.h"
#include "field/fr.h"
#include "gpu/msm_core.cuh"
#include "gpu/msm_gpu.h"

size_t g16__gpu_msm_scratch_bytes_opts(size_t n, int g2, int device_scalars, unsigned wpp)
{
    uint32_t c = msm_window_for(n), nwin = (256 + c - 1) / c, w = wpp && wpp < nwin ? wpp : nwin;
    size_t xyzz = g2 ? 384 : 192, per_point = (device_scalars ? 9 : 41) + 16 * (size_t)w;
    return n * per_point + (size_t)w * ((size_t)1 << (c - 1)) * xyzz + ((size_t)256 << 20);
}

size_t g16__gpu_msm_scratch_bytes(size_t n, int g2) { return g16__gpu_msm_scratch_bytes_opts(n, g2, 0, 0); }

unsigned g16__gpu_msm_windows(size_t n)
{
    uint32_t c = msm_window_for(n);
    return (256 + c - 1) / c;
}

double g16__gpu_msm_run_adds(size_t n) { return n ? msm_window_cost(n, msm_window_for(n)) : 0; }

/* x = X/ZZ, y = Y/ZZZ with one inversion of ZZ·ZZZ; ZZ = 0 is infinity. Affine coordinates are
 * unique, so the bits equal the CPU MSM's normalized output. */
void g16__gpu_msm_xyzz_to_p1(g16_p1 *out, const void *xyzz)
{
    g16_fp c[4], d, inv;
    memcpy(c, xyzz, sizeof c);
    if (g16__fp_is_zero(&c[2])) {
        g16__p1_set_infinity(out);
        return;
    }
    g16__fp_mul(&d, &c[2], &c[3]);
    g16__fp_inv_var(&inv, &d);
    g16__fp_mul(&d, &inv, &c[3]); /* 1/ZZ */
    g16__fp_mul(&out->x, &c[0], &d);
    g16__fp_mul(&d, &inv, &c[2]); /* 1/ZZZ */
    g16__fp_mul(&out->y, &c[1], &d);
    g16__fp_set_one(&out->z);
}

void g16__gpu_msm_xyzz_to_p2(g16_p2 *out, const void *xyzz)
{
    g16_fp2 c[4], d, inv;
    memcpy(c, xyzz, sizeof c);
    if (g16__fp2_is_zero(&c[2])) {
        g16__p2_set_infinity(out);
        return;
    }
    g16__fp2_mul(&d, &c[2], &c[3]);
    g16__fp2_inv_var(&inv, &d);
    g16__fp2_mul(&d, &inv, &c[3]);
    g16__fp2_mul(&out->x, &c[0], &d);
    g16__fp2_mul(&d, &inv, &c[2]);
    g16__fp2_mul(&out->y, &c[1], &d);
    g16__fp2_set_one(&out->z);
}

static uint64_t splitmix_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void g16__gpu_msm_random_table(void *out, int g2, size_t count, uint64_t seed)
{
    uint64_t state = seed;
    for (size_t j = 0; j < count; j++) {
        g16_fr k, t;
        g16__fr_from_u64(&k, splitmix_next(&state));
        for (int i = 0; i < 3; i++) { /* a product of 64-bit values: a full-size scalar */
            g16__fr_from_u64(&t, splitmix_next(&state) | 1);
            g16__fr_mul(&k, &k, &t);
        }
        if (g2) {
            g16_p2 p;
            g16__p2_generator(&p);
            g16__p2_mul_var(&p, &p, &k);
            g16__p2_to_affine((g16_p2_affine *)out + j, &p);
        } else {
            g16_p1 p;
            g16__p1_generator(&p);
            g16__p1_mul_var(&p, &p, &k);
            g16__p1_to_affine((g16_p1_affine *)out + j, &p);
        }
    }
}

/* XYZZ (X, Y, ZZ, ZZZ) to Jacobian without an inversion: Z' = ZZ·ZZZ, X' = X·ZZ·ZZZ²,
 * Y' = Y·ZZZ⁴ (then X'/Z'² = X/ZZ and Y'/Z'³ = Y·ZZZ/ZZ³ = Y/ZZZ, as ZZ³ = ZZZ²). */
static void xyzz_to_jac1(g16_p1 *r, const g16_fp c[4])
{
    g16_fp t;
    if (g16__fp_is_zero(&c[2])) {
        g16__p1_set_infinity(r);
        return;
    }
    g16__fp_mul(&r->z, &c[2], &c[3]);
    g16__fp_sqr(&t, &c[3]);
    g16__fp_mul(&r->x, &c[0], &c[2]);
    g16__fp_mul(&r->x, &r->x, &t);
    g16__fp_sqr(&t, &t);
    g16__fp_mul(&r->y, &c[1], &t);
}

static void xyzz_to_jac2(g16_p2 *r, const g16_fp2 c[4])
{
    g16_fp2 t;
    if (g16__fp2_is_zero(&c[2])) {
        g16__p2_set_infinity(r);
        return;
    }
    g16__fp2_mul(&r->z, &c[2], &c[3]);
    g16__fp2_sqr(&t, &c[3]);
    g16__fp2_mul(&r->x, &c[0], &c[2]);
    g16__fp2_mul(&r->x, &r->x, &t);
    g16__fp2_sqr(&t, &t);
    g16__fp2_mul(&r->y, &c[1], &t);
}

/* Jacobian to XYZZ: (X, Y, Z², Z³); infinity (Z = 0) to all zero. */
static void jac1_to_xyzz(g16_fp c[4], const g16_p1 *a)
{
    if (g16__p1_is_infinity(a)) {
        memset(c, 0, 4 * sizeof c[0]);
        return;
    }
    c[0] = a->x;
    c[1] = a->y;
    g16__fp_sqr(&c[2], &a->z);
    g16__fp_mul(&c[3], &c[2], &a->z);
}

static void jac2_to_xyzz(g16_fp2 c[4], const g16_p2 *a)
{
    if (g16__p2_is_infinity(a)) {
        memset(c, 0, 4 * sizeof c[0]);
        return;
    }
    c[0] = a->x;
    c[1] = a->y;
    g16__fp2_sqr(&c[2], &a->z);
    g16__fp2_mul(&c[3], &c[2], &a->z);
}

void g16__gpu_msm_final_host(void *out, int g2, uint32_t nwin, uint32_t c, const void *W, const void *ones)
{
    if (g2) {
        const g16_fp2(*w)[4] = W;
        g16_p2 acc, t;
        g16__p2_set_infinity(&acc);
        for (uint32_t i = nwin; i-- > 0;) {
            for (uint32_t k = 0; k < c && i + 1 < nwin; k++)
                g16__p2_dbl(&acc, &acc);
            xyzz_to_jac2(&t, w[i]);
            g16__p2_add_var(&acc, &acc, &t);
        }
        if (ones) {
            xyzz_to_jac2(&t, ones);
            g16__p2_add_var(&acc, &acc, &t);
        }
        jac2_to_xyzz(out, &acc);
    } else {
        const g16_fp(*w)[4] = W;
        g16_p1 acc, t;
        g16__p1_set_infinity(&acc);
        for (uint32_t i = nwin; i-- > 0;) {
            for (uint32_t k = 0; k < c && i + 1 < nwin; k++)
                g16__p1_dbl(&acc, &acc);
            xyzz_to_jac1(&t, w[i]);
            g16__p1_add_var(&acc, &acc, &t);
        }
        if (ones) {
            xyzz_to_jac1(&t, ones);
            g16__p1_add_var(&acc, &acc, &t);
        }
        jac1_to_xyzz(out, &acc);
    }
}

uint32_t g16__gpu_ab_index(uint64_t t, uint32_t j, uint32_t s, uint32_t mask) { return msm_ab_index(t, j, s, mask); }
