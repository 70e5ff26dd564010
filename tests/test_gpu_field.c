/* GPU field arithmetic (gpu/field.cuh, gpu/field_inv.cuh) against the CPU field, bit for bit.
 *
 * Host part (runs everywhere): the constants against the CPU's; the very source the kernels use,
 * compiled for the host with each PTX carry instruction emulated, on random inputs and edge
 * values (0, 1, -1, values near the modulus), for Fr (both reductions) and Fp (the product, the
 * rolled product, the dedicated squaring, the double-width product and its separate reduction);
 * the NTT's lazy Fr operations (values below 2r); the emulation's single carry flag; the variable-time inversion on raw edge limbs (small
 * values, m - k, powers of two and their neighbours, halves of m, long runs of equal bits) and
 * random elements, against the CPU's safegcd inversion and checked by a CPU product.
 * Device part (skipped without a CUDA device): mul, sqr, add, sub, neg, inv kernels on 2^16
 * random elements plus the edge values, and the benchmark kernels' own replay checks (product and
 * inversion chains) on a short run. */
#include "testutil.h"

#include <fenv.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/fp.h"
#include "field/fr.h"
#include "gpu/field.cuh"
#include "gpu/field_f64.cuh"
#include "gpu/field_inv.cuh"
#include "gpu/gpu.h"

/* ---------------------------------------------------------------- constants */

static void test_constants(void **state)
{
    (void)state;
    const uint32_t rm[8] = G16_GFR_MODULUS, r1[8] = G16_GFR_ONE;
    const uint32_t pm[12] = G16_GFP_MODULUS, p1[12] = G16_GFP_ONE;
    const uint32_t r2[8] = G16_GFR_R2, p2[12] = G16_GFP_R2;
    /* the 32-bit limbs are the 64-bit ones read from memory: same bits (little-endian host) */
    assert_memory_equal(rm, g16__fr_modulus, sizeof rm);
    assert_memory_equal(r1, &g16__fr_one, sizeof r1);
    assert_memory_equal(pm, g16__fp_modulus, sizeof pm);
    assert_memory_equal(p1, &g16__fp_one, sizeof p1);
    assert_memory_equal(r2, &g16__fr_r2, sizeof r2);
    assert_memory_equal(p2, &g16__fp_r2, sizeof p2);
    assert_int_equal(G16_GFR_N0, (uint32_t)g16__fr_n0);
    assert_int_equal(G16_GFP_N0, (uint32_t)g16__fp_n0);
    /* n0 really is -m^-1 mod 2^32 */
    assert_int_equal((uint32_t)(rm[0] * G16_GFR_N0), 0xffffffffu);
    assert_int_equal((uint32_t)(pm[0] * G16_GFP_N0), 0xffffffffu);
    /* the Fr-specific reduction relies on these limbs */
    assert_int_equal(rm[0], 1u);
    assert_int_equal(rm[1], 0xffffffffu);
    assert_int_equal(G16_GFR_N0, 0xffffffffu);
    /* both moduli leave the top bit free (2m < 2^(32N): no carry out of additions) */
    assert_true(rm[7] < 0x80000000u && pm[11] < 0x80000000u);
}

/* ---------------------------------------------------------------- inputs */

/* Random elements with every eighth one an edge value: 0, 1, -1, 2, m-2 in Montgomery form, R^2. */
static void edge_fr(g16_fr *x, int which)
{
    g16_fr one = g16__fr_one;
    switch (which % 6) {
    case 0: g16__fr_set_zero(x); break;
    case 1: *x = one; break;
    case 2: g16__fr_neg(x, &one); break;
    case 3: g16__fr_add(x, &one, &one); break;
    case 4: g16__fr_add(x, &one, &one); g16__fr_neg(x, x); break;
    default: *x = g16__fr_r2; break;
    }
}

static void edge_fp(g16_fp *x, int which)
{
    g16_fp one = g16__fp_one;
    switch (which % 6) {
    case 0: g16__fp_set_zero(x); break;
    case 1: *x = one; break;
    case 2: g16__fp_neg(x, &one); break;
    case 3: g16__fp_add(x, &one, &one); break;
    case 4: g16__fp_add(x, &one, &one); g16__fp_neg(x, x); break;
    default: *x = g16__fp_r2; break;
    }
}

static void gen_fr(g16_fr *x, size_t i)
{
    if (i % 8 == 7)
        edge_fr(x, (int)(i / 8));
    else
        tu_rand_fr(x);
}

static void gen_fp(g16_fp *x, size_t i)
{
    if (i % 8 == 7)
        edge_fp(x, (int)(i / 8));
    else
        tu_rand_fp(x);
}

/* CPU reference of op. */
static void cpu_fr(int op, g16_fr *r, const g16_fr *a, const g16_fr *b)
{
    switch (op) {
    case G16__GPU_OP_MUL:
    case G16__GPU_OP_MUL_F64: g16__fr_mul(r, a, b); break;
    case G16__GPU_OP_SQR: g16__fr_sqr(r, a); break;
    case G16__GPU_OP_ADD: g16__fr_add(r, a, b); break;
    case G16__GPU_OP_SUB: g16__fr_sub(r, a, b); break;
    case G16__GPU_OP_INV: g16__fr_inv_var(r, a); break;
    default: g16__fr_neg(r, a); break;
    }
}

static void cpu_fp(int op, g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    switch (op) {
    case G16__GPU_OP_MUL:
    case G16__GPU_OP_MUL_F64: g16__fp_mul(r, a, b); break;
    case G16__GPU_OP_SQR: g16__fp_sqr(r, a); break;
    case G16__GPU_OP_ADD: g16__fp_add(r, a, b); break;
    case G16__GPU_OP_SUB: g16__fp_sub(r, a, b); break;
    case G16__GPU_OP_INV: g16__fp_inv_var(r, a); break;
    default: g16__fp_neg(r, a); break;
    }
}

static const char *op_name[] = {"mul", "sqr", "add", "sub", "neg", "inv", "mul_f64"};

/* ---------------------------------------------------------------- host emulation */

/* The FP64 products need rounding toward zero on the host (gpu/field_f64.cuh): set it and check
 * that it takes effect (each operand below is volatile, so nothing is folded at compile time). */
static void rz_begin(void)
{
    assert_int_equal(fesetround(FE_TOWARDZERO), 0);
    assert_int_equal(fegetround(), FE_TOWARDZERO);
    volatile double one = 1.0, tiny = 0x1.8p-53, x = 1.75, y = 1.0 + 0x1p-52, zero = 0.0;
    assert_true(one + tiny == 1.0);                    /* nearest would give 1 + 2^-52 */
    assert_true(fma(x, y, zero) == 1.75 + 0x1p-52);    /* 1.75 + 1.75 ulp: nearest gives + 2 ulp */
}

static void rz_end(void) { assert_int_equal(fesetround(FE_TONEAREST), 0); }

/* The device's MUL_F64 op on the host: converted in, the FP64 product, converted back. */
static void emu_fr_f64(gfr *r, const gfr *a, const gfr *b)
{
    gfr64 x, y;
    rz_begin();
    gfr64_from_gfr(&x, a);
    gfr64_from_gfr(&y, b);
    gfr64_mul(&x, &x, &y);
    gfr_from_gfr64(r, &x);
    rz_end();
}

static void emu_fp_f64(gfp *r, const gfp *a, const gfp *b)
{
    gfp64 x, y;
    rz_begin();
    gfp64_from_gfp(&x, a);
    gfp64_from_gfp(&y, b);
    gfp64_mul(&x, &x, &y);
    gfp_from_gfp64(r, &x);
    rz_end();
}

static void emu_fr(int op, gfr *r, const gfr *a, const gfr *b)
{
    switch (op) {
    case G16__GPU_OP_MUL: gfr_mul(r, a, b); break;
    case G16__GPU_OP_SQR: gfr_sqr(r, a); break;
    case G16__GPU_OP_ADD: gfr_add(r, a, b); break;
    case G16__GPU_OP_SUB: gfr_sub(r, a, b); break;
    case G16__GPU_OP_INV: gfr_inv_var(r, a); break;
    case G16__GPU_OP_MUL_F64: emu_fr_f64(r, a, b); break;
    default: gfr_neg(r, a); break;
    }
}

static void emu_fp(int op, gfp *r, const gfp *a, const gfp *b)
{
    switch (op) {
    case G16__GPU_OP_MUL: gfp_mul(r, a, b); break;
    case G16__GPU_OP_SQR: gfp_sqr_cols(r, a); break; /* as the device op */
    case G16__GPU_OP_ADD: gfp_add(r, a, b); break;
    case G16__GPU_OP_SUB: gfp_sub(r, a, b); break;
    case G16__GPU_OP_INV: gfp_inv_var(r, a); break;
    case G16__GPU_OP_MUL_F64: emu_fp_f64(r, a, b); break;
    default: gfp_neg(r, a); break;
    }
}

static void test_host_fr(void **state)
{
    (void)state;
    int iters = tu_iters(20000);
    for (int i = 0; i < iters; i++) {
        g16_fr a, b, want;
        gen_fr(&a, (size_t)i);
        gen_fr(&b, (size_t)i * 5 + 3);
        gfr x, y, z;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        for (int op = 0; op < G16__GPU_OP_COUNT; op++) {
            cpu_fr(op, &want, &a, &b);
            emu_fr(op, &z, &x, &y);
            if (memcmp(&z, &want, sizeof z) != 0)
                fail_msg("fr %s differs from the CPU at iteration %d", op_name[op], i);
        }
        g16__fr_mul(&want, &a, &b);
        gfr_mul_generic(&z, &x, &y);
        if (memcmp(&z, &want, sizeof z) != 0)
            fail_msg("fr mul (generic reduction) differs from the CPU at iteration %d", i);
        gfr_mul(&x, &x, &y); /* aliasing: output = first input */
        assert_memory_equal(&x, &want, sizeof x);
    }
}

static void test_host_fp(void **state)
{
    (void)state;
    int iters = tu_iters(10000);
    for (int i = 0; i < iters; i++) {
        g16_fp a, b, want;
        gen_fp(&a, (size_t)i);
        gen_fp(&b, (size_t)i * 3 + 1);
        gfp x, y, z;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        for (int op = 0; op < G16__GPU_OP_COUNT; op++) {
            cpu_fp(op, &want, &a, &b);
            emu_fp(op, &z, &x, &y);
            if (memcmp(&z, &want, sizeof z) != 0)
                fail_msg("fp %s differs from the CPU at iteration %d", op_name[op], i);
        }
        g16__fp_mul(&want, &a, &b);
        static const int rolls[] = {1, 2, 3, 4, 6, 12};
        for (size_t k = 0; k < sizeof rolls / sizeof rolls[0]; k++) {
            gfp_mul_rolled(&z, &x, &y, rolls[k]);
            if (memcmp(&z, &want, sizeof z) != 0)
                fail_msg("fp mul rolled by %d rows differs from the CPU at iteration %d", rolls[k], i);
        }
        gfp_mul_rolled(&x, &x, &y, 3); /* aliasing: output = first input */
        assert_memory_equal(&x, &want, sizeof x);
    }
}

/* All pairs of edge values (the random loop meets each only with random partners). */
static void test_host_edges(void **state)
{
    (void)state;
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            g16_fr a, b, want;
            edge_fr(&a, i);
            edge_fr(&b, j);
            g16_fp c, d, wantp;
            edge_fp(&c, i);
            edge_fp(&d, j);
            gfr x, y, z;
            gfp u, v, w;
            memcpy(&x, &a, sizeof x);
            memcpy(&y, &b, sizeof y);
            memcpy(&u, &c, sizeof u);
            memcpy(&v, &d, sizeof v);
            for (int op = 0; op < G16__GPU_OP_COUNT; op++) {
                cpu_fr(op, &want, &a, &b);
                emu_fr(op, &z, &x, &y);
                assert_memory_equal(&z, &want, sizeof z);
                cpu_fp(op, &wantp, &c, &d);
                emu_fp(op, &w, &u, &v);
                assert_memory_equal(&w, &wantp, sizeof w);
            }
            g16__fp_mul(&wantp, &c, &d);
            for (int roll = 1; roll <= 12; roll++) {
                if (12 % roll)
                    continue;
                gfp_mul_rolled(&w, &u, &v, roll);
                assert_memory_equal(&w, &wantp, sizeof w);
            }
        }
}

/* The split Montgomery product (mont32_mul_wide, then mont32_redc_wide: what the lazy Fp2 product
 * is made of) against the CPU product, on random and edge pairs; the double-width product itself
 * against a schoolbook product in 64-bit arithmetic; and the p² constant. */
static void wide_ref(uint32_t *T, const uint32_t *a, const uint32_t *b, int N)
{
    memset(T, 0, (size_t)(2 * N) * 4);
    for (int i = 0; i < N; i++) {
        uint64_t c = 0;
        for (int j = 0; j < N; j++) {
            uint64_t t = (uint64_t)a[i] * b[j] + T[i + j] + c;
            T[i + j] = (uint32_t)t;
            c = t >> 32;
        }
        T[i + N] = (uint32_t)c;
    }
}

static void test_host_wide(void **state)
{
    (void)state;
    const uint32_t pm[12] = G16_GFP_MODULUS, p2[24] = G16_GFP_MODULUS_SQ;
    uint32_t T[24], W[24];
    mont32_mul_wide(T, pm, pm, 12);
    assert_memory_equal(T, p2, sizeof T);
    const uint32_t ones[12] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu,
                               0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    mont32_mul_wide(T, ones, ones, 12); /* (2^384 − 1)²: every carry path at its largest */
    wide_ref(W, ones, ones, 12);
    assert_memory_equal(T, W, sizeof T);
    int iters = tu_iters(10000);
    for (int i = 0; i < iters; i++) {
        g16_fp a, b, want;
        gen_fp(&a, (size_t)i);
        gen_fp(&b, (size_t)i * 5 + 3);
        uint32_t x[12], y[12];
        gfp z;
        memcpy(x, &a, sizeof x);
        memcpy(y, &b, sizeof y);
        mont32_mul_wide(T, x, y, 12);
        wide_ref(W, x, y, 12);
        if (memcmp(T, W, sizeof T) != 0)
            fail_msg("double-width product differs from the schoolbook one at iteration %d", i);
        mont32_redc_wide(z.l, T, pm, G16_GFP_N0, 12);
        g16__fp_mul(&want, &a, &b);
        if (memcmp(&z, &want, sizeof z) != 0)
            fail_msg("wide product + reduction differs from the CPU product at iteration %d", i);
    }
}

/* x + r (x < r): the same residue as x, in the upper half of the lazy range [0, 2r). */
static void fr_plus_r(gfr *y, const gfr *x)
{
    const uint32_t m[8] = G16_GFR_MODULUS;
    uint64_t c = 0;
    for (int j = 0; j < 8; j++) {
        c += (uint64_t)x->l[j] + m[j];
        y->l[j] = (uint32_t)c;
        c >>= 32;
    }
    assert_int_equal(c, 0);
}

/* below 2r */
static int fr_lazy_ok(const gfr *x)
{
    const uint32_t m2[8] = G16_GFR_MODULUS_2;
    for (int j = 7; j >= 0; j--)
        if (x->l[j] != m2[j])
            return x->l[j] < m2[j];
    return 0;
}

/* The NTT's lazy Fr operations (values below 2r): on canonical and on +r forms of random and edge
 * values (r − 1 + r = 2r − 1 is the largest), each result below 2r and, made canonical, equal to
 * the CPU's; the twiddle operand of the product canonical, as the NTT calls it. */
static void test_host_lazy_fr(void **state)
{
    (void)state;
    int iters = tu_iters(20000);
    for (int i = 0; i < iters; i++) {
        g16_fr a, b, want;
        gen_fr(&a, (size_t)i);
        gen_fr(&b, (size_t)i * 7 + 5);
        gfr x, y, xl, yl, z;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        fr_plus_r(&xl, &x);
        fr_plus_r(&yl, &y);
        const gfr *xs[2] = {&x, &xl}, *ys[2] = {&y, &yl};
        for (int u = 0; u < 2; u++)
            for (int v = 0; v < 2; v++) {
                gfr_add_lazy(&z, xs[u], ys[v]);
                assert_true(fr_lazy_ok(&z));
                gfr_reduce_lazy(&z, &z);
                g16__fr_add(&want, &a, &b);
                if (memcmp(&z, &want, sizeof z) != 0)
                    fail_msg("lazy add (%d, %d) differs from the CPU at iteration %d", u, v, i);
                gfr_sub_lazy(&z, xs[u], ys[v]);
                assert_true(fr_lazy_ok(&z));
                gfr_reduce_lazy(&z, &z);
                g16__fr_sub(&want, &a, &b);
                if (memcmp(&z, &want, sizeof z) != 0)
                    fail_msg("lazy sub (%d, %d) differs from the CPU at iteration %d", u, v, i);
            }
        g16__fr_mul(&want, &a, &b);
        for (int v = 0; v < 2; v++) {
            gfr_mul_lazy(&z, &x, ys[v]);
            assert_true(fr_lazy_ok(&z));
            gfr_reduce_lazy(&z, &z);
            if (memcmp(&z, &want, sizeof z) != 0)
                fail_msg("lazy mul (b form %d) differs from the CPU at iteration %d", v, i);
            gfr_mul(&z, &x, ys[v]); /* a lazy row operand, reduced product: canonical */
            if (memcmp(&z, &want, sizeof z) != 0)
                fail_msg("mul with a lazy row operand (%d) differs from the CPU at iteration %d", v, i);
        }
    }
}

/* The host emulation has one carry flag, as the device: two chains interleaved in the source read
 * each other's carries (here chain B's add_cc clears the carry chain A left), so such code fails the
 * host tests instead of only the device. */
static void test_host_single_flag(void **state)
{
    (void)state;
    g16_cf fa = {0, 0}, fb = {0, 0};
    uint32_t a0 = add_cc(0xffffffffu, 1, &fa); /* A: carry 1 */
    uint32_t b0 = add_cc(1, 1, &fb);           /* B: carry 0, overwrites A's */
    uint32_t a1 = addc(0, 0, &fa);             /* reads B's carry */
    assert_int_equal(a0, 0);
    assert_int_equal(b0, 2);
    assert_int_equal(a1, 0);
    uint32_t a2 = add_cc(0xffffffffu, 1, &fa);
    assert_int_equal(a2, 0);
    assert_int_equal(addc(0, 0, &fa), 1); /* the same chain uninterrupted keeps its carry */
}

/* Raw limb values x < m that stress the inversion's batches: small values, m - small, halves of
 * m, powers of two and their neighbours, long runs of equal bits. */
static void raw_edge(uint32_t *x, const uint32_t *m, int N, int mbits, int which)
{
    memset(x, 0, (size_t)N * 4);
    int k = which / 8, bit = k % (mbits - 1); /* 2^bit < m */
    switch (which % 8) {
    case 0: x[0] = (uint32_t)k + 1; break;                 /* 1, 2, 3, ... */
    case 1: /* m - 1 - k */
        memcpy(x, m, (size_t)N * 4);
        for (int j = 0, borrow = k + 1; j < N && borrow; j++) {
            uint64_t t = (uint64_t)x[j] - (uint32_t)borrow;
            x[j] = (uint32_t)t;
            borrow = (int)(t >> 63);
        }
        break;
    case 2: x[bit / 32] = 1u << (bit % 32); break;          /* 2^bit */
    case 3: /* 2^bit - 1 */
        for (int j = 0; j < bit; j++)
            x[j / 32] |= 1u << (j % 32);
        if (bit == 0)
            x[0] = 1;
        break;
    case 4: /* (m >> 1) and (m >> 1) + 1 */
        for (int j = 0; j < N; j++)
            x[j] = (m[j] >> 1) | (j + 1 < N ? m[j + 1] << 31 : 0);
        x[0] += (uint32_t)(k & 1);
        break;
    case 5: /* m with low bits cleared: m - (m mod 2^bit) */
        memcpy(x, m, (size_t)N * 4);
        for (int j = 0; j < bit || j == 0; j++) /* bit 0 always: m itself is not < m */
            x[j / 32] &= ~(1u << (j % 32));
        break;
    case 6: /* alternating words */
        for (int j = 0; j < N; j++)
            x[j] = (j + k) & 1 ? 0xffffffffu : 0;
        x[N - 1] &= m[N - 1] >> 1;
        break;
    default: /* one word set below the top */
        x[k % (N - 1)] = 0xffffffffu;
        break;
    }
}

/* The inversion (host compile of gpu/field_inv.cuh) against the CPU's safegcd inversion (itself
 * checked against GMP by test_inv) on raw edge limbs and random elements; every result also times
 * its input must give one (the CPU product, no inversion involved). */
static void test_host_inv(void **state)
{
    (void)state;
    const uint32_t pm[12] = G16_GFP_MODULUS, rm[8] = G16_GFR_MODULUS;
    int iters = tu_iters(4000);
    for (int i = 0; i < 8 * 400 + iters; i++) {
        g16_fp a, want, prod;
        g16_fr b, wantr, prodr;
        gfp x, z;
        gfr y, w;
        if (i < 8 * 400) {
            raw_edge((uint32_t *)&a, pm, 12, 381, i);
            raw_edge((uint32_t *)&b, rm, 8, 255, i);
        } else {
            tu_rand_fp(&a);
            tu_rand_fr(&b);
        }
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        gfp_inv_var(&z, &x);
        gfr_inv_var(&w, &y);
        g16__fp_inv_var(&want, &a);
        g16__fr_inv_var(&wantr, &b);
        if (memcmp(&z, &want, sizeof z) != 0)
            fail_msg("fp inv differs from the CPU at input %d", i);
        if (memcmp(&w, &wantr, sizeof w) != 0)
            fail_msg("fr inv differs from the CPU at input %d", i);
        g16__fp_mul(&prod, &a, &want);
        g16__fr_mul(&prodr, &b, &wantr);
        assert_memory_equal(&prod, &g16__fp_one, sizeof prod);
        assert_memory_equal(&prodr, &g16__fr_one, sizeof prodr);
        gfp_inv_var(&x, &x); /* aliasing */
        assert_memory_equal(&x, &want, sizeof x);
    }
}

/* ---------------------------------------------------------------- FP64-pipe products */

/* The FP64 products (gpu/field_f64.cuh, real IEEE operations under FE_TOWARDZERO) against GMP:
 * for integers a, b < 2m in limb form, the result must be valid limbs (exact integers below 2^S),
 * below 2m, and ≡ a·b·2^(-S·N) mod m; made canonical by the conversion back, it must equal the
 * GMP value. Random operands below 2m (from the printed seed) and every pair of edge operands. */
typedef struct {
    int N, S;
    void (*mul)(double *r, const double *a, const double *b);
    mpz_t m, rinv; /* the modulus, 2^(-S·N) mod m */
} f64_field;

static void f64p_mul_limbs(double *r, const double *a, const double *b)
{
    gfp64 x, y, z;
    memcpy(x.l, a, sizeof x.l);
    memcpy(y.l, b, sizeof y.l);
    gfp64_mul(&z, &x, &y);
    memcpy(r, z.l, sizeof z.l);
}

static void f64r_mul_limbs(double *r, const double *a, const double *b)
{
    gfr64 x, y, z;
    memcpy(x.l, a, sizeof x.l);
    memcpy(y.l, b, sizeof y.l);
    gfr64_mul(&z, &x, &y);
    memcpy(r, z.l, sizeof z.l);
}

static void f64_field_init(f64_field *F, int fp)
{
    F->N = fp ? G16_F64P_LIMBS : G16_F64R_LIMBS;
    F->S = fp ? 48 : 52;
    F->mul = fp ? f64p_mul_limbs : f64r_mul_limbs;
    mpz_inits(F->m, F->rinv, NULL);
    if (fp)
        tu_mpz_p(F->m);
    else
        tu_mpz_r(F->m);
    mpz_setbit(F->rinv, (mp_bitcnt_t)(F->N * F->S));
    assert_true(mpz_invert(F->rinv, F->rinv, F->m));
}

static void f64_field_clear(f64_field *F) { mpz_clears(F->m, F->rinv, NULL); }

/* Limbs -> integer; fails unless every limb is an exact integer in [0, 2^S). */
static void f64_to_mpz(mpz_t z, const double *x, const f64_field *F)
{
    mpz_set_ui(z, 0);
    for (int k = F->N - 1; k >= 0; k--) {
        if (!(x[k] >= 0 && x[k] < ldexp(1.0, F->S) && x[k] == floor(x[k])))
            fail_msg("limb %d = %.17g is not an integer in [0, 2^%d)", k, x[k], F->S);
        mpz_mul_2exp(z, z, (mp_bitcnt_t)F->S);
        mpz_add_ui(z, z, (unsigned long)x[k]);
    }
}

static void f64_from_mpz(double *x, const mpz_t z, const f64_field *F)
{
    mpz_t t;
    mpz_init(t);
    for (int k = 0; k < F->N; k++) {
        mpz_fdiv_q_2exp(t, z, (mp_bitcnt_t)(k * F->S));
        mpz_fdiv_r_2exp(t, t, (mp_bitcnt_t)F->S);
        x[k] = (double)mpz_get_ui(t);
    }
    mpz_clear(t);
}

/* Edge operands (integers below 2m): 0, 1, R mod m, m − 1, m, 2m − 1, and the largest values whose
 * limbs below the top one are all 2^S − 1 (top limb that of 2m − 1, minus one). */
#define F64_EDGES 7
static void f64_edge(mpz_t z, int which, const f64_field *F)
{
    switch (which) {
    case 0: mpz_set_ui(z, 0); break;
    case 1: mpz_set_ui(z, 1); break;
    case 2: mpz_set_ui(z, 0); mpz_setbit(z, (mp_bitcnt_t)(F->N * F->S)); mpz_mod(z, z, F->m); break;
    case 3: mpz_sub_ui(z, F->m, 1); break;
    case 4: mpz_set(z, F->m); break;
    case 5: mpz_mul_2exp(z, F->m, 1); mpz_sub_ui(z, z, 1); break;
    default: /* (top(2m − 1) − 1)·2^(S(N−1)) + 2^(S(N−1)) − 1 */
        mpz_mul_2exp(z, F->m, 1);
        mpz_sub_ui(z, z, 1);
        mpz_fdiv_q_2exp(z, z, (mp_bitcnt_t)(F->S * (F->N - 1)));
        mpz_mul_2exp(z, z, (mp_bitcnt_t)(F->S * (F->N - 1)));
        mpz_sub_ui(z, z, 1);
        break;
    }
}

static void f64_random(mpz_t z, const f64_field *F)
{
    mpz_set_ui(z, 0);
    for (int k = 0; k < 7; k++) { /* 448 bits, then mod 2m */
        mpz_mul_2exp(z, z, 64);
        mpz_add_ui(z, z, (unsigned long)tu_rand64());
    }
    mpz_t m2;
    mpz_init(m2);
    mpz_mul_2exp(m2, F->m, 1);
    mpz_mod(z, z, m2);
    mpz_clear(m2);
}

/* One product a·b (integers below 2m) checked against GMP. */
static void f64_check_one(const f64_field *F, const mpz_t a, const mpz_t b, const char *what, int i)
{
    double x[G16_F64_MAX_LIMBS], y[G16_F64_MAX_LIMBS], z[G16_F64_MAX_LIMBS];
    mpz_t got, want, m2;
    mpz_inits(got, want, m2, NULL);
    f64_from_mpz(x, a, F);
    f64_from_mpz(y, b, F);
    F->mul(z, x, y);
    f64_to_mpz(got, z, F);
    mpz_mul(want, a, b);
    mpz_mul(want, want, F->rinv);
    mpz_mod(want, want, F->m);
    mpz_mul_2exp(m2, F->m, 1);
    if (mpz_cmp(got, m2) >= 0)
        fail_msg("%s S=%d: product %d not below 2m", what, F->S, i);
    mpz_mod(got, got, F->m);
    if (mpz_cmp(got, want) != 0)
        fail_msg("%s S=%d: product %d differs from GMP", what, F->S, i);
    mpz_clears(got, want, m2, NULL);
}

static void f64_field_test(int fp)
{
    f64_field F;
    f64_field_init(&F, fp);
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    rz_begin();
    for (int i = 0; i < F64_EDGES; i++)
        for (int j = 0; j < F64_EDGES; j++) {
            f64_edge(a, i, &F);
            f64_edge(b, j, &F);
            f64_check_one(&F, a, b, "edge pair", i * F64_EDGES + j);
        }
    int iters = tu_iters(100000);
    for (int i = 0; i < iters; i++) {
        f64_random(a, &F);
        if (i % 16 == 15)
            f64_edge(b, i / 16 % F64_EDGES, &F);
        else
            f64_random(b, &F);
        f64_check_one(&F, a, b, "random", i);
    }
    rz_end();
    mpz_clears(a, b, NULL);
    f64_field_clear(&F);
}

static void test_host_f64_fp(void **state)
{
    (void)state;
    f64_field_test(1);
}

static void test_host_f64_fr(void **state)
{
    (void)state;
    f64_field_test(0);
}

/* The conversions: gfp -> gfp64 -> gfp is the identity on reduced values (and makes a lazy value
 * canonical); gfr -> gfr64 -> gfr too (through the 2^±4 products); products of converted values,
 * converted back, are the CPU products (bit for bit, so the canonical reduction is tested too). */
static void test_host_f64_convert(void **state)
{
    (void)state;
    int iters = tu_iters(20000);
    rz_begin();
    for (int i = 0; i < iters; i++) {
        g16_fp a, b, want;
        g16_fr c, d, wantr;
        gen_fp(&a, (size_t)i);
        gen_fp(&b, (size_t)i * 3 + 1);
        gen_fr(&c, (size_t)i);
        gen_fr(&d, (size_t)i * 5 + 2);
        gfp x, y, z;
        gfr u, v, w;
        gfp64 x64, y64;
        gfr64 u64, v64;
        memcpy(&x, &a, sizeof x);
        memcpy(&y, &b, sizeof y);
        memcpy(&u, &c, sizeof u);
        memcpy(&v, &d, sizeof v);
        gfp64_from_gfp(&x64, &x);
        gfp_from_gfp64(&z, &x64);
        if (memcmp(&z, &x, sizeof z) != 0)
            fail_msg("gfp -> gfp64 -> gfp is not the identity at iteration %d", i);
        gfr64_from_gfr(&u64, &u);
        gfr_from_gfr64(&w, &u64);
        if (memcmp(&w, &u, sizeof w) != 0)
            fail_msg("gfr -> gfr64 -> gfr is not the identity at iteration %d", i);
        gfp64_from_gfp(&y64, &y);
        gfp64_mul(&x64, &x64, &y64); /* aliasing */
        gfp_from_gfp64(&z, &x64);
        g16__fp_mul(&want, &a, &b);
        if (memcmp(&z, &want, sizeof z) != 0)
            fail_msg("gfp64 product differs from the CPU at iteration %d", i);
        gfr64_from_gfr(&v64, &v);
        gfr64_mul(&u64, &u64, &v64);
        gfr_from_gfr64(&w, &u64);
        g16__fr_mul(&wantr, &c, &d);
        if (memcmp(&w, &wantr, sizeof w) != 0)
            fail_msg("gfr64 product differs from the CPU at iteration %d", i);
    }
    /* a lazy value p + x (x < p, below 2p) comes back as x */
    {
        const uint32_t pm[12] = G16_GFP_MODULUS;
        g16_fp a;
        gfp x, z;
        tu_rand_fp(&a);
        memcpy(&x, &a, sizeof x);
        uint64_t c = 0;
        gfp lazy;
        for (int j = 0; j < 12; j++) {
            c += (uint64_t)x.l[j] + pm[j];
            lazy.l[j] = (uint32_t)c;
            c >>= 32;
        }
        gfp64 l64;
        gfp64_from_gfp(&l64, &lazy);
        gfp_from_gfp64(&z, &l64);
        assert_memory_equal(&z, &x, sizeof z);
    }
    rz_end();
}

/* ---------------------------------------------------------------- device */

static g16__gpu *dev_open_or_skip(void)
{
    g16__gpu *g = NULL;
    g16_error err = {0, ""};
    g16_status st = g16__gpu_open(&g, 0, &err);
    if (st == G16_ERR_NO_DEVICE) {
        printf("no CUDA device: skipped (%s)\n", err.msg);
        skip();
    }
    if (st != G16_OK)
        fail_msg("gpu open: %s: %s", g16_strerror(st), err.msg);
    g16__gpu_info info;
    g16__gpu_get_info(g, &info);
    printf("  device %d: %s, sm_%d%d, %d SMs, %.1f GiB\n", info.device, info.name, info.cc_major, info.cc_minor,
           info.sm_count, (double)info.total_bytes / (1 << 30));
    return g;
}

#define DEV_N ((size_t)1 << 16)

static void test_dev_fr(void **state)
{
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    g16_fr *a = malloc(DEV_N * sizeof *a), *b = malloc(DEV_N * sizeof *b), *r = malloc(DEV_N * sizeof *r);
    assert_true(a && b && r);
    for (size_t i = 0; i < DEV_N; i++) {
        gen_fr(&a[i], i);
        gen_fr(&b[i], i * 7 + 5);
    }
    g16_error err = {0, ""};
    for (int op = 0; op < G16__GPU_OP_COUNT; op++) {
        memset(r, 0xa5, DEV_N * sizeof *r); /* poison: every element must be written */
        if (g16__gpu_fr_op(g, (g16__gpu_op)op, r, a, b, DEV_N, &err) != G16_OK)
            fail_msg("gpu fr %s: %s", op_name[op], err.msg);
        for (size_t i = 0; i < DEV_N; i++) {
            g16_fr want;
            cpu_fr(op, &want, &a[i], &b[i]);
            if (memcmp(&r[i], &want, sizeof want) != 0)
                fail_msg("gpu fr %s: element %zu differs from the CPU", op_name[op], i);
        }
    }
    assert_int_equal(g16__gpu_fr_op(g, G16__GPU_OP_COUNT, r, a, b, 1, &err), G16_ERR_ARG);
    free(a);
    free(b);
    free(r);
    g16__gpu_close(g);
}

static void test_dev_fp(void **state)
{
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    g16_fp *a = malloc(DEV_N * sizeof *a), *b = malloc(DEV_N * sizeof *b), *r = malloc(DEV_N * sizeof *r);
    assert_true(a && b && r);
    for (size_t i = 0; i < DEV_N; i++) {
        gen_fp(&a[i], i);
        gen_fp(&b[i], i * 7 + 5);
    }
    g16_error err = {0, ""};
    for (int op = 0; op < G16__GPU_OP_COUNT; op++) {
        memset(r, 0x5a, DEV_N * sizeof *r);
        if (g16__gpu_fp_op(g, (g16__gpu_op)op, r, a, b, DEV_N, &err) != G16_OK)
            fail_msg("gpu fp %s: %s", op_name[op], err.msg);
        for (size_t i = 0; i < DEV_N; i++) {
            g16_fp want;
            cpu_fp(op, &want, &a[i], &b[i]);
            if (memcmp(&r[i], &want, sizeof want) != 0)
                fail_msg("gpu fp %s: element %zu differs from the CPU", op_name[op], i);
        }
    }
    free(a);
    free(b);
    free(r);
    g16__gpu_close(g);
}

/* The throughput kernels replay three threads' chains on the CPU themselves. */
static void test_dev_bench_kernels(void **state)
{
    (void)state;
    g16__gpu *g = dev_open_or_skip();
    g16_error err = {0, ""};
    for (int field = 0; field < 7; field++) { /* 3, 4: the inversion chains; 5, 6: FP64 products */
        double per_s = 0;
        uint32_t check = 0;
        if (g16__gpu_mul_bench(g, field, 64, &per_s, &check, &err) != G16_OK)
            fail_msg("gpu mul bench field %d: %s", field, err.msg);
        assert_true(per_s > 0);
    }
    g16__gpu_close(g);
}

/* The scratch pool (gpu.h): two contexts on one device share it; its idle bytes count as free;
 * memory it holds idle goes back to the driver when a plain allocation needs it (without the
 * trim-and-retry, the cudaMalloc below fails); asking for more than the device has is
 * G16_ERR_NOMEM, not a device error. */
static void test_dev_scratch_pool(void **state)
{
    (void)state;
    g16__gpu *g1 = dev_open_or_skip(), *g2 = NULL;
    g16_error err = {0, ""};
    size_t free0 = 0, free1 = 0, total = 0;
    assert_int_equal(g16__gpu_open(&g2, 0, &err), G16_OK);
    assert_int_equal(g16__gpu_mem_info(g1, &free0, &total, &err), G16_OK);
    /* a scratch buffer holds what is written into it */
    size_t n = (size_t)1 << 20;
    uint64_t *h = malloc(n * 8), *back = malloc(n * 8);
    assert_true(h && back);
    for (size_t i = 0; i < n; i++)
        h[i] = i * 0x9e3779b97f4a7c15ull + 1;
    memset(back, 0xa5, n * 8);
    void *d = NULL;
    if (g16__gpu_scratch_alloc(g1, &d, n * 8, "test scratch", &err) != G16_OK)
        fail_msg("scratch alloc: %s", err.msg);
    assert_int_equal(g16__gpu_upload(g1, d, h, n * 8, &err), G16_OK);
    assert_int_equal(g16__gpu_download(g1, back, d, n * 8, &err), G16_OK);
    assert_int_equal(g16__gpu_sync(g1, &err), G16_OK);
    assert_memory_equal(h, back, n * 8);
    g16__gpu_scratch_free(g1, d);
    /* most of the device in g1's scratch, freed: idle in the pool, still counted as free */
    size_t big = free0 / 10 * 6;
    if (g16__gpu_scratch_alloc(g1, &d, big, "test scratch (large)", &err) != G16_OK)
        fail_msg("scratch alloc of %zu bytes: %s", big, err.msg);
    g16__gpu_scratch_free(g1, d);
    assert_int_equal(g16__gpu_sync(g1, &err), G16_OK);
    assert_int_equal(g16__gpu_mem_info(g2, &free1, &total, &err), G16_OK);
    printf("  free %zu bytes before, %zu with %zu idle in the pool\n", free0, free1, big);
    assert_true(free1 + ((size_t)64 << 20) >= free0 && free1 <= free0 + ((size_t)64 << 20));
    /* a plain allocation in the other context that only fits with the pool's idle memory */
    if (g16__gpu_alloc(g2, &d, big, "test buffer (large)", &err) != G16_OK)
        fail_msg("alloc of %zu bytes beside %zu idle in the pool: %s", big, big, err.msg);
    g16__gpu_free(g2, d);
    /* more than the device has (not under compute-sanitizer, which counts each failed CUDA call
     * as an error: the sanitize job sets G16_GPU_TEST_SANITIZER) */
    if (!getenv("G16_GPU_TEST_SANITIZER")) {
        g16_status st = g16__gpu_scratch_alloc(g1, &d, total + ((size_t)1 << 30), "test scratch (too large)", &err);
        assert_int_equal(st, G16_ERR_NOMEM);
        assert_null(d);
        assert_non_null(strstr(err.msg, "out of device memory"));
        assert_non_null(strstr(err.msg, "test scratch (too large)"));
        printf("  %s\n", err.msg);
        st = g16__gpu_alloc(g2, &d, total + ((size_t)1 << 30), "test buffer (too large)", &err);
        assert_int_equal(st, G16_ERR_NOMEM);
        assert_null(d);
    } else {
        printf("  G16_GPU_TEST_SANITIZER: the allocations meant to fail left out\n");
    }
    /* both contexts still work */
    assert_int_equal(g16__gpu_scratch_alloc(g2, &d, n * 8, "test scratch", &err), G16_OK);
    g16__gpu_scratch_free(g2, d);
    assert_int_equal(g16__gpu_sync(g2, &err), G16_OK);
    g16__gpu_close(g2);
    g16__gpu_close(g1);
    /* closing the contexts gave the pool's memory back to the driver */
    assert_int_equal(g16__gpu_open(&g1, 0, &err), G16_OK);
    assert_int_equal(g16__gpu_mem_info(g1, &free1, &total, &err), G16_OK);
    assert_true(free1 + ((size_t)64 << 20) >= free0);
    g16__gpu_close(g1);
    free(h);
    free(back);
}

int main(void)
{
    tu_seed("test_gpu_field");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constants),  cmocka_unit_test(test_host_fr),  cmocka_unit_test(test_host_fp),
        cmocka_unit_test(test_host_edges), cmocka_unit_test(test_host_wide), cmocka_unit_test(test_host_single_flag),
        cmocka_unit_test(test_host_lazy_fr),
        cmocka_unit_test(test_host_f64_fp), cmocka_unit_test(test_host_f64_fr),
        cmocka_unit_test(test_host_f64_convert),
        cmocka_unit_test(test_host_inv),   cmocka_unit_test(test_dev_fr),
        cmocka_unit_test(test_dev_fp),
        cmocka_unit_test(test_dev_bench_kernels),
        cmocka_unit_test(test_dev_scratch_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
