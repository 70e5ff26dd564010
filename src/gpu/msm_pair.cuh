/*
 * G2's level-0 accumulation by thread pairs (device code only; included by msm_core.cuh).
 *
 * Why: the G2 level-0 kernel holds an XYZZ point (8 Fp values) and a base (4) per thread, takes
 * 255 registers, spills, keeps its point operations' operands on the stack and fits 2 blocks per SM;
 * it runs at 1.6x its multiply-add floor where G1's runs at 1.4x (bench/RESULTS.md).
 *
 * Representation: lanes 2k and 2k + 1 of a warp are a pair that runs one level-0 thread of
 * msm_curve.cuh (acc0_thread, instantiated here over the type gfp2h). The even lane holds the
 * real coefficient c0, the odd lane the coefficient c1 of every Fp2 value of that thread
 * (Montgomery form, reduced, as gfp): half a point per lane. Sums, differences and negations
 * are per coefficient; products exchange the other coefficients by shuffles. Both lanes run the
 * same control flow: every branch depends on the keys (the same for both) or on a test combined
 * over both coefficients (gfp2h_is_zero), so the shuffles always find their partner (the
 * shuffle mask is the pair's two lanes). Memory: a lane reads and writes its own coefficient of
 * each Fp2 value of the g2 arrays (same layout as the single-thread kernel); the even lane writes
 * the keys (MSM_LEAD).
 */
#if defined(G16_PTX)

typedef struct {
    gfp c; /* c0 on an even lane, c1 on an odd lane */
} gfp2h;

__device__ __forceinline__ uint32_t pair_odd(void) { return threadIdx.x & 1u; }
__device__ __forceinline__ uint32_t pair_other(uint32_t v)
{
    return __shfl_xor_sync(3u << (threadIdx.x & 30u), v, 1);
}
__device__ __forceinline__ void gfp_pair_other(gfp *r, const gfp *a)
{
    G16_UNROLL
    for (int j = 0; j < 12; j++)
        r->l[j] = pair_other(a->l[j]);
}
/* r = odd ? b : a, by masks (both lanes run the same instructions) */
__device__ __forceinline__ void gfp_pair_pick(gfp *r, const gfp *a, const gfp *b)
{
    uint32_t m = 0u - pair_odd();
    G16_UNROLL
    for (int j = 0; j < 12; j++)
        r->l[j] = (a->l[j] & ~m) | (b->l[j] & m);
}

G16_HD void gfp2h_add(gfp2h *r, const gfp2h *a, const gfp2h *b) { gfp_add(&r->c, &a->c, &b->c); }
G16_HD void gfp2h_sub(gfp2h *r, const gfp2h *a, const gfp2h *b) { gfp_sub(&r->c, &a->c, &b->c); }
G16_HD void gfp2h_neg(gfp2h *r, const gfp2h *a) { gfp_neg(&r->c, &a->c); }
G16_HD void gfp2h_set_zero(gfp2h *r) { gfp_set_zero(&r->c); }
G16_HD void gfp2h_set_one(gfp2h *r)
{
    gfp one, zero;
    gfp_set_one(&one);
    gfp_set_zero(&zero);
    gfp_pair_pick(&r->c, &one, &zero);
}
/* Both coefficients zero: the same answer on both lanes. */
G16_HD int gfp2h_is_zero(const gfp2h *a)
{
    uint32_t z = (uint32_t)gfp_is_zero(&a->c);
    return (int)(z & pair_other(z));
}

/* This lane's coefficient of a·b: c0 = a0·b0 − a1·b1 (even lane), c1 = a1·b0 + a0·b1 (odd lane),
 * as x·y ± z·w with x = own a, z = other a and (y, w) = (own b, other b) on the even lane,
 * (other b, own b) on the odd one. Two double-width products and one reduction per lane (2·288 +
 * 300 multiply-adds; the pair: 1752, as the single thread's Karatsuba with three Montgomery
 * products, 1764). The even lane negates t2 (two's complement of the 768-bit value, by one chain
 * that subtracts the mask), so both lanes add: even t1 − t2, plus p² when that is negative (no
 * carry out), below p²; odd t1 + t2 < 2p². Both below p·2^384 as mont32_redc_wide needs. By
 * value, not inlined: one copy of the code per kernel (the instruction cache; msm_core.cuh,
 * gfp_mul_roll). */
static __device__ __noinline__ gfp gfp2h_mul_val(gfp a, gfp b)
{
    const uint32_t m[12] = G16_GFP_MODULUS, p2[24] = G16_GFP_MODULUS_SQ;
    gfp ao, y, w, r;
    uint32_t t1[24], t2[24];
    g16_cf f = {0, 0}, g = {0, 0}, h = {0, 0};
    gfp_pair_other(&ao, &a);
    gfp_pair_other(&w, &b); /* other b */
    gfp_pair_pick(&y, &b, &w);
    gfp_pair_pick(&w, &w, &b);
    mont32_mul_wide(t1, a.l, y.l, 12);
    mont32_mul_wide(t2, ao.l, w.l, 12);
    uint32_t even = pair_odd() - 1u; /* all ones on the even lane */
    t2[0] = sub_cc(t2[0] ^ even, even, &f);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t2[j] = subc_cc(t2[j] ^ even, even, &f);
    t1[0] = add_cc(t1[0], t2[0], &g);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t1[j] = addc_cc(t1[j], t2[j], &g);
    uint32_t carry = addc(0, 0, &g), fix = even & (carry - 1u);
    t1[0] = add_cc(t1[0], p2[0] & fix, &h);
    G16_UNROLL
    for (int j = 1; j < 24; j++)
        t1[j] = addc_cc(t1[j], p2[j] & fix, &h);
    mont32_redc_wide(r.l, t1, m, G16_GFP_N0, 12);
    return r;
}
/* This lane's coefficient of a²: c0 = (a0 + a1)(a0 − a1), c1 = 2·a0·a1: one product per lane. */
static __device__ __noinline__ gfp gfp2h_sqr_val(gfp a)
{
    gfp ao, s, d, x, y, t, t2;
    gfp_pair_other(&ao, &a);
    gfp_add(&s, &a, &ao);
    gfp_sub(&d, &a, &ao);
    gfp_pair_pick(&x, &s, &a);
    gfp_pair_pick(&y, &d, &ao);
    gfp_mul(&t, &x, &y);
    gfp_add(&t2, &t, &t);
    gfp_pair_pick(&t, &t, &t2);
    return t;
}
G16_HD void gfp2h_mul_inl(gfp2h *r, const gfp2h *a, const gfp2h *b) { r->c = gfp2h_mul_val(a->c, b->c); }
G16_HD void gfp2h_sqr_inl(gfp2h *r, const gfp2h *a) { r->c = gfp2h_sqr_val(a->c); }
G16_HD void gfp2h_mul(gfp2h *r, const gfp2h *a, const gfp2h *b) { r->c = gfp2h_mul_val(a->c, b->c); }
G16_HD void gfp2h_sqr(gfp2h *r, const gfp2h *a) { r->c = gfp2h_sqr_val(a->c); }

/* The pair's memory accesses: this lane's coefficients of base i (a g2 affine point: x0 x1 y0
 * y1, 48 bytes each, 16-byte aligned) and of XYZZ point i (x0 x1 y0 y1 zz0 zz1 zzz0 zzz1). */
typedef struct {
    gfp2h x, y;
} g2h_aff;
typedef struct {
    gfp2h x, y, zz, zzz;
} g2h_xyzz;

__device__ __forceinline__ void gfp_ldg(gfp *r, const gfp *p)
{
    union {
        gfp a;
        uint4 v[3];
    } x;
    const uint4 *s = (const uint4 *)p;
    G16_UNROLL
    for (int j = 0; j < 3; j++)
        x.v[j] = __ldg(s + j);
    *r = x.a;
}
G16_HD void g2h_base_load(g2h_aff *r, const void *bases, uint32_t i)
{
    const gfp *b = (const gfp *)bases + 4 * (uint64_t)i + pair_odd();
    gfp_ldg(&r->x.c, b);
    gfp_ldg(&r->y.c, b + 2);
}
G16_HD void g2h_base_prefetch(const void *bases, uint32_t i)
{
    const char *c = (const char *)((const gfp *)bases + 4 * (uint64_t)i);
    /* 192 bytes: lane pair shares the six 32-byte lines */
    asm volatile("prefetch.global.L2 [%0];" ::"l"(c + 96 * pair_odd()));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(c + 96 * pair_odd() + 32));
    asm volatile("prefetch.global.L2 [%0];" ::"l"(c + 96 * pair_odd() + 64));
}
G16_HD void g2h_pt_store(void *arr, uint64_t i, const g2h_xyzz *p)
{
    gfp *d = (gfp *)arr + 8 * i + pair_odd();
    d[0] = p->x.c;
    d[2] = p->y.c;
    d[4] = p->zz.c;
    d[6] = p->zzz.c;
}
G16_HD void g2h_pt_store_inf(void *arr, uint64_t i)
{
    gfp *d = (gfp *)arr + 8 * i + pair_odd();
    for (int k = 0; k < 8; k += 2)
        gfp_set_zero(&d[k]);
}

#define MSM_HALF 1
#define MSM_FE gfp2h
#define MSM_F(op) gfp2h_##op
#define MSM_P(name) g2h_##name
#define MSM_ACC0_REGPF 0
#define MSM_LEAD (pair_odd() == 0)
#include "gpu/msm_curve.cuh"
#undef MSM_ACC0_REGPF
#undef MSM_FE
#undef MSM_F
#undef MSM_P
#undef MSM_HALF

#endif /* G16_PTX */
