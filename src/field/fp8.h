/*
 * Fp8: eight independent Fp elements ("lanes") multiplied together with AVX-512 IFMA
 * (VPMADD52LUQ/VPMADD52HUQ: eight 52x52-bit products per instruction), for batch code whose
 * multiplications are independent across elements (batch-affine MSM additions, batch inversion
 * split into lanes).
 *
 * Representation: g16__fp8.l[j][k] is limb j (bits 52j .. 52j+51) of lane k: 8 limbs of 52 bits
 * (416 bits) per lane, limb-major so that one 64-byte row holds one limb of all eight lanes.
 * A lane holds x·2^416 mod p (Montgomery form with R8 = 2^416, not the scalar code's 2^384).
 * Invariant: every limb < 2^52 and every lane's value < p (fully reduced). Outputs may alias
 * inputs. Constant-time: no branch or address depends on the values.
 *
 * Conversions to and from g16_fp (Montgomery form with R = 2^384) repack the limbs and multiply by
 * a constant (2^448 mod p in, 2^384 mod p out), so each costs one Fp8 multiplication.
 *
 * g16__fp8_mul picks at run time (CPUID and XGETBV, once at load) between the IFMA code and a
 * portable C version of the same algorithm (identical limbs out); both are exported for the tests.
 * The portable version exists for correctness only (about 250 ns per lane, several times slower
 * than eight scalar MULX products): batch code should take an Fp8 path only when
 * g16__fp8_have_ifma() says so, and keep its scalar path otherwise.
 * Measured on the 2-core dev VM (Sapphire Rapids-class Xeon, 2026-12-02): 10-12 ns per lane
 * against 37-45 ns for one scalar MULX multiplication in the same run.
 */
#ifndef G16_FIELD_FP8_H
#define G16_FIELD_FP8_H

#include "fp.h"

#define G16__FP8_LANES 8
#define G16__FP8_LIMBS 8

typedef struct {
    _Alignas(64) uint64_t l[G16__FP8_LIMBS][G16__FP8_LANES];
} g16__fp8;

/* r = a·b·2^(-416) mod p per lane (the Montgomery product for R8 = 2^416). */
void g16__fp8_mul(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
void g16__fp8_sqr(g16__fp8 *r, const g16__fp8 *a);

/* Additive operations per lane (the Montgomery scaling commutes with them). The AVX-512 code
 * (AVX512F, used when the IFMA multiplication is) and the portable code give the same limbs. */
void g16__fp8_add(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
void g16__fp8_sub(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
void g16__fp8_neg(g16__fp8 *r, const g16__fp8 *a);
void g16__fp8_dbl(g16__fp8 *r, const g16__fp8 *a);

/* Lane k of r <- a[k] (and back). */
void g16__fp8_from_fp(g16__fp8 *r, const g16_fp a[G16__FP8_LANES]);
void g16__fp8_to_fp(g16_fp a[G16__FP8_LANES], const g16__fp8 *r);

/* One element in the lane format (8 limbs of 52 bits, x·2^416 mod p, < p), for data that feeds
 * Fp8 lanes many times (MSM bases and buckets): convert once (a scalar Montgomery product each way),
 * then move lanes in and out with transposes only. gather/scatter: lane k <-> *e[k]; in scatter
 * the pointers must be distinct (or the lanes equal). */
typedef struct {
    uint64_t l[G16__FP8_LIMBS];
} g16__fp52;
void g16__fp52_from_fp(g16__fp52 *r, const g16_fp *a);
void g16__fp52_to_fp(g16_fp *r, const g16__fp52 *a);
void g16__fp8_gather(g16__fp8 *r, const g16__fp52 *const e[G16__FP8_LANES]);
void g16__fp8_scatter(g16__fp52 *const e[G16__FP8_LANES], const g16__fp8 *a);
/* The AVX-512 transposes behind those two, without the dispatch (hot loops that checked
 * g16__fp8_have_ifma() once: a call less per gather, ~10% of the G1 lane MSM). Only valid when
 * g16__fp8_have_ifma(); elsewhere they forward to the portable loops. */
void g16__fp8_gather_avx512(g16__fp8 *r, const g16__fp52 *const e[G16__FP8_LANES]);
void g16__fp8_scatter_avx512(g16__fp52 *const e[G16__FP8_LANES], const g16__fp8 *a);

/* The two back ends of g16__fp8_mul. */
void g16__fp8_mul_portable(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b);
#if defined(__x86_64__)
void g16__fp8_mul_ifma(g16__fp8 *r, const g16__fp8 *a, const g16__fp8 *b); /* only if have_ifma */
#endif
/* 1 when the IFMA code is compiled in, the CPU has AVX512F + AVX512IFMA and the OS saves ZMM state. */
int g16__fp8_have_ifma(void);
/* Forces the portable code for every Fp8 operation (on = 1) or restores the CPUID choice (on = 0);
 * tests and benchmarks. */
void g16__fp8_force_portable(int on);

#endif /* G16_FIELD_FP8_H */
