/*
 * The GPU NTT's algorithm, in the C subset shared by CUDA and C11 (like field.cuh): the kernels
 * in ntt.cu are thin wrappers around the phase functions here, and tests/test_gpu_ntt.c runs the
 * same phases on the host (thread by thread, barrier by barrier) against poly/ntt.h, so that the
 * index and twiddle arithmetic is checked on any machine.
 *
 * Transform structure (n = 2^k, k <= 28). A DIF transform (natural order in, bit-reversed out)
 * runs its k radix-2 stages in P passes over global memory, top bits first; a DIT transform
 * (bit-reversed in, natural out) runs them bottom bits first. A pass covers the index bits
 * [lo_bit, lo_bit + s): it splits the vector into lines of 2^s elements at stride 2^lo_bit (one
 * line per value of the other bits), and a block loads G lines (G·2^s = 2^e elements, e = 11 or
 * 10 by the kernel variant: 64 or 32 KiB of shared memory), runs the s stages in shared memory and
 * stores them back. The stages go in groups of 1, 2 or 3 per shared-memory round trip (ntt_group,
 * p->radix), each thread holding 2, 4 or 8 elements of a group in registers; with p->uni the
 * early stages take the warp-uniform order of ntt_group_pos, which skips the twiddles equal to 1.
 *
 * Twiddles. Global DIF/DIT stage h = 2^(lo_bit+u) multiplies by ω^(j·n/2h), j = i mod h =
 * (m mod 2^u)·2^lo_bit + lo (m: position in the line, lo: the line's low index bits). That is
 * ω_{2^(u+1)}^(m mod 2^u) (the line's own size-2^s transform: table w_small, stage u's roots
 * contiguous at 2^u + (m mod 2^u), so a warp's threads read neighbouring entries) times a factor that
 * depends only on lo and u. Those factors are common to both inputs of every later butterfly of
 * the pass, so they commute out: a DIF pass multiplies output m by ω_{2^(lo_bit+s)}^(lo·rev_s(m))
 * at the store, a DIT pass input m by the same at the load (one multiplication per element, for
 * passes with lo_bit > 0 only). The factor comes from w_direct (roots of order 2^t, t = min(k,
 * 19): exact for every pass but the top one when k > 19) times, for the top pass, w_lo (ω^j,
 * j < 2^(k-t)). Stage u = 0 has no twiddle at all.
 *
 * Pass split: P = 1 for k <= e, else 1 + ceil((k-e)/(e-1)) passes of nearly equal size (bottom pass
 * <= e bits, the others <= e-1): 2^27 = 9 + 9 + 9 bits for both e, 2^28 = 9 + 9 + 10. At most 4.
 *
 * Fused work (no extra pass over memory): scalings by c0 or by s0·X^idx (two-level tables hi/lo,
 * idx the element's natural or bit-reversed index) at a pass's load or store or in the middle of a
 * DIF→DIT pass; the bit reversal inside the pass when one line is the whole vector (P = 1); the
 * Groth16 H step's pointwise a·b at the store of b's last pass and its subtraction of c's scaled
 * coefficients at the store of c's (six transforms, ntt_plan_h). Larger bit reversals are a
 * separate in-place tiled kernel (pairs of 16×16 tiles swapped through shared memory).
 *
 * Arithmetic: values inside a pass are lazy (below 2r, G16_NTT_LAZY); global memory holds them
 * canonical.
 *
 * The launch sequences (ntt_plan_*) are built here too, so the host simulation runs exactly what
 * the device runs.
 */
#ifndef G16_GPU_NTT_CORE_CUH
#define G16_GPU_NTT_CORE_CUH

#include <stdint.h>
#include <string.h>

#include "gpu/field.cuh"
#include "gpu/ntt_tables.h"

#define G16_NTT_MAX_LOG 28
#define G16_NTT_SMAX 11       /* stages in one pass at most; w_small has 2^SMAX entries */
#define G16_NTT_SUPPER 10     /* stages of a pass with lo_bit > 0 at most */
#define G16_NTT_ELEMS_LOG 11  /* elements per block at most (64 KiB of shared memory) */
#define G16_NTT_TMAX 19       /* w_direct holds roots of order 2^min(k, TMAX) */
#define G16_NTT_MAX_VEC 8     /* vectors per launch */
#define G16_NTT_MAX_PASSES 4
#define G16_NTT_MAX_LAUNCHES 24
#define G16_NTT_BR_Q 4        /* bit-reversal tiles are 2^Q x 2^Q */
#define G16_NTT_BR_CAP (2u << (2 * G16_NTT_BR_Q)) /* elements in a bit-reversal block */

/* scale modes */
#define G16_SCALE_NONE 0u
#define G16_SCALE_CONST 1u /* x *= c0 */
#define G16_SCALE_POW 2u   /* x *= hi[idx >> bits] · lo[idx & (2^bits - 1)], idx = i or rev_k(i) */

/* pass kinds */
#define G16_PASS_DIF 0u
#define G16_PASS_DIT 1u
#define G16_PASS_DIF_DIT 2u /* inverse DIF, mid scale, forward DIT on the same lines (lo_bit = 0) */
#define G16_LAUNCH_PASS 0u
#define G16_LAUNCH_BITREV 1u

/* host-only helpers (launch plans) */
#define G16_HOST static inline

/* scale-table sets of a domain */
#define G16_SC_COSET_FWD 0 /* s0 = 1, X = g */
#define G16_SC_COSET_INV 1 /* s0 = n^-1, X = g^-1 */
#define G16_SC_H_IN 2      /* s0 = n^-1, X = g (coefficients -> coset) */
#define G16_SC_H_OUT 3     /* s0 = n^-1·(g^n - 1)^-1, X = g^-1 */
#define G16_SC_SETS 4

#if defined(__CUDACC__)
typedef uint4 g16_u4;
#else
typedef struct {
    uint32_t x, y, z, w;
} g16_u4;
#endif

typedef struct {
    uint32_t mode, rev, bits;
    const gfr *hi, *lo;
    gfr c0;
} ntt_scale;

/* ntt_pass.abc: how a pass of the H step folds its output o into abc_a: b's coset values into
 * a's as a·b, c's scaled coefficients out of H (ntt_plan_h). */
#define G16_ABC_NONE 0
#define G16_ABC_MUL 2 /* a[i] <- a[i]·o */
#define G16_ABC_SUB 3 /* a[i] <- a[i] - o */

typedef struct {
    gfr *x[G16_NTT_MAX_VEC]; /* vector v = blockIdx.y */
    gfr *abc_a;              /* abc != 0: this pass's output folded into a (G16_ABC_*); x[v] is not written */
    uint32_t log_n, lo_bit, s, log_g;
    uint32_t kind, inverse, store_bitrev, abc;
    uint32_t radix;  /* stages per shared-memory round trip: 0 or 1, 2 (ntt_phase_dif2 / dit2), 3 (dif3 / dit3) */
    uint32_t uni;    /* warp-uniform twiddles in the early stages, swizzled shared memory (ntt_group_pos) */
    uint32_t log_t;
    const gfr *w_small_dif, *w_small_dit; /* for DIF stages, for DIT stages */
    const gfr *w_direct, *w_lo;           /* pass factors (the DIF's roots; DIT's for a DIT pass) */
    ntt_scale load, mid, store;
} ntt_pass;

typedef struct {
    uint32_t type, nvec, blocks;
    ntt_pass p; /* for BITREV: x[], log_n, store (idx = destination) */
} ntt_launch;

/* Pointers to a domain's tables (device memory on the device, host memory in the simulation). */
typedef struct {
    uint32_t log_n, log_t, sc_bits;
    const gfr *w_small[2]; /* [0] forward, [1] inverse: stage u's ω_{2^(u+1)}^(±j) at 2^u + j */
    const gfr *w_direct[2];
    const gfr *w_lo[2];
    const gfr *sc_hi[G16_SC_SETS], *sc_lo[G16_SC_SETS];
    gfr n_inv;
    gfr h_c0;           /* n^-1·(g^n - 1)^-1 (ntt_plan_h_c) */
    uint32_t split_b;   /* 0, or a smaller bottom-pass size (tests) */
    uint32_t radix;     /* ntt_pass.radix */
    uint32_t radix_dd;  /* ntt_pass.radix of the fused DIF_DIT passes (0: radix) */
    uint32_t uni;       /* ntt_pass.uni */
    uint32_t elems_log; /* 0 (= G16_NTT_ELEMS_LOG), or fewer elements per block (kernel variants) */
} ntt_tables;

/* Table pointers for tables laid out as h describes, starting at base (device or host memory). */
G16_HOST void ntt_tables_init(ntt_tables *tb, const g16__gpu_ntt_host_tables *h, const gfr *base)
{
    memset(tb, 0, sizeof *tb);
    tb->log_n = h->log_n;
    tb->log_t = h->log_t;
    tb->sc_bits = h->sc_bits;
    for (int d = 0; d < 2; d++) {
        tb->w_small[d] = base + h->small[d];
        tb->w_direct[d] = base + h->direct[d];
        tb->w_lo[d] = base + h->lo[d];
    }
    for (int q = 0; q < G16_SC_SETS; q++) {
        tb->sc_hi[q] = base + h->sc_hi[q];
        tb->sc_lo[q] = base + h->sc_lo[q];
    }
    memcpy(&tb->n_inv, &h->n_inv, sizeof tb->n_inv);
    memcpy(&tb->h_c0, &h->h_c0, sizeof tb->h_c0);
}

/* Butterfly arithmetic. G16_NTT_LAZY (default 1): values inside a pass stay below 2r (field.cuh,
 * gfr_*_lazy: the twiddle products skip their final subtraction; sums and differences are taken
 * modulo 2r); the pass's scale and factor products take the lazy value as their row operand and
 * return it canonical, and the store makes every value canonical again, so global memory only ever
 * holds values below r. 0: every operation reduced (the earlier code, for measurements). */
#ifndef G16_NTT_LAZY
#define G16_NTT_LAZY 1
#endif
#if G16_NTT_LAZY
#define NTT_ADD gfr_add_lazy
#define NTT_SUB gfr_sub_lazy
#define NTT_MULW gfr_mul_lazy
#else
#define NTT_ADD gfr_add
#define NTT_SUB gfr_sub
#define NTT_MULW gfr_mul
#endif

/* ---------------------------------------------------------------- small helpers */

G16_HD uint32_t ntt_rev(uint32_t x, uint32_t bits)
{
    if (bits == 0)
        return 0;
#if defined(G16_PTX)
    return __brev(x) >> (32 - bits);
#else
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    x = ((x >> 8) & 0x00ff00ffu) | ((x & 0x00ff00ffu) << 8);
    x = (x >> 16) | (x << 16);
    return x >> (32 - bits);
#endif
}

/* Global memory: an element as two 16-byte vectors (device) / memcpy (host, no aliasing games). */
G16_HD gfr ntt_ld(const gfr *p)
{
    gfr r;
#if defined(G16_PTX)
    const uint4 *q = (const uint4 *)p;
    uint4 a = q[0], b = q[1];
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
#else
    memcpy(&r, p, sizeof r);
#endif
    return r;
}

/* Read-only tables (through the non-coherent cache on the device). */
G16_HD gfr ntt_ld_tab(const gfr *p)
{
#if defined(G16_PTX)
    gfr r;
    const uint4 *q = (const uint4 *)p;
    uint4 a = __ldg(q), b = __ldg(q + 1);
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
    return r;
#else
    return ntt_ld(p);
#endif
}

G16_HD void ntt_st(gfr *p, const gfr *v)
{
#if defined(G16_PTX)
    uint4 *q = (uint4 *)p;
    q[0] = make_uint4(v->l[0], v->l[1], v->l[2], v->l[3]);
    q[1] = make_uint4(v->l[4], v->l[5], v->l[6], v->l[7]);
#else
    memcpy(p, v, sizeof *v);
#endif
}

/* Shared memory: element e's two halves at sm[e] and sm[cap + e] (cap = elements per block), so
 * that consecutive elements are consecutive 16-byte words (no bank conflicts). */
G16_HD gfr ntt_sget(const g16_u4 *sm, uint32_t cap, uint32_t e)
{
    gfr r;
    g16_u4 a = sm[e], b = sm[cap + e];
    r.l[0] = a.x; r.l[1] = a.y; r.l[2] = a.z; r.l[3] = a.w;
    r.l[4] = b.x; r.l[5] = b.y; r.l[6] = b.z; r.l[7] = b.w;
    return r;
}

G16_HD void ntt_sput(g16_u4 *sm, uint32_t cap, uint32_t e, const gfr *v)
{
    g16_u4 a, b;
    a.x = v->l[0]; a.y = v->l[1]; a.z = v->l[2]; a.w = v->l[3];
    b.x = v->l[4]; b.y = v->l[5]; b.z = v->l[6]; b.w = v->l[7];
    sm[e] = a;
    sm[cap + e] = b;
}

/* A pass's shared memory with p->uni: element e at e ^ (((e >> 3) ^ (e >> 6)) & 7), a bijection on
 * every block size (bits 3 and up stay). It makes the uniform stages of ntt_group_pos free of bank
 * conflicts: their 8 neighbouring threads (one phase of a 16-byte access) differ in 3 consecutive
 * bits among bits 2 to 8 of a line, which land on 8 different 16-byte columns; 8 neighbouring
 * elements of a line (the plain stages) stay 8 columns. The global load and store with
 * interleaved lines keep 2-way conflicts (ncu: ~18% of the shared-memory wavefronts of the 2^24
 * pass in pairs): a swizzle that also folds the line bits (9e40682) removed them but cost more
 * integer instructions than it saved, in the busiest pipe (2^27 forward 3.9% slower against the
 * plain order, same run of 2026-12-03 13:24 UTC). */
G16_HD uint32_t ntt_sw(const ntt_pass *p, uint32_t e) { return p->uni ? e ^ (((e >> 3) ^ (e >> 6)) & 7u) : e; }

G16_HD gfr ntt_pget(const ntt_pass *p, const g16_u4 *sm, uint32_t cap, uint32_t e)
{
    return ntt_sget(sm, cap, ntt_sw(p, e));
}

G16_HD void ntt_pput(const ntt_pass *p, g16_u4 *sm, uint32_t cap, uint32_t e, const gfr *v)
{
    ntt_sput(sm, cap, ntt_sw(p, e), v);
}

/* x *= the scale for global index i. */
G16_HD void ntt_apply_scale(const ntt_scale *sc, uint32_t log_n, uint32_t i, gfr *x)
{
    if (sc->mode == G16_SCALE_CONST) {
        gfr_mul(x, &sc->c0, x);
    } else if (sc->mode == G16_SCALE_POW) {
        uint32_t idx = sc->rev ? ntt_rev(i, log_n) : i;
        gfr h = ntt_ld_tab(&sc->hi[idx >> sc->bits]);
        gfr l = ntt_ld_tab(&sc->lo[idx & ((1u << sc->bits) - 1)]);
        gfr_mul(&h, &h, &l);
        gfr_mul(x, &h, x);
    }
}

/* The pass factor ω_{2^(lo_bit+s)}^(lo·r) as a power of ω_n: E = lo·r·2^(k-lo_bit-s). */
G16_HD void ntt_apply_factor(const ntt_pass *p, uint32_t lo, uint32_t r, gfr *x)
{
    uint32_t k = p->log_n, b = k - p->log_t;
    uint32_t E = (lo * r) << (k - p->lo_bit - p->s);
    gfr w = ntt_ld_tab(&p->w_direct[E >> b]);
    if (p->lo_bit + p->s > p->log_t) { /* only the top pass when k > TMAX */
        gfr v = ntt_ld_tab(&p->w_lo[E & ((1u << b) - 1)]);
        gfr_mul(&w, &w, &v);
    }
    gfr_mul(x, &w, x);
}

/* ---------------------------------------------------------------- pass geometry */

G16_HD uint32_t ntt_elems(const ntt_pass *p) { return 1u << (p->s + p->log_g); }

/* Element number l of the block (l < 2^(s+log_g)) -> line c and position m. Consecutive l are
 * consecutive addresses where possible: across lines when lines are interleaved (lo_bit >=
 * log_g > 0), along a line otherwise. */
G16_HD void ntt_elem(const ntt_pass *p, uint32_t l, uint32_t *c, uint32_t *m)
{
    if (p->lo_bit >= p->log_g && p->lo_bit > 0) {
        *c = l & ((1u << p->log_g) - 1);
        *m = l >> p->log_g;
    } else {
        *m = l & ((1u << p->s) - 1);
        *c = l >> p->s;
    }
}

/* Line c of block `blk`: its low bits lo and the global index of its element 0. */
G16_HD uint32_t ntt_line(const ntt_pass *p, uint32_t blk, uint32_t c, uint32_t *lo)
{
    uint32_t q = (blk << p->log_g) + c;
    *lo = q & ((1u << p->lo_bit) - 1);
    uint32_t hi = q >> p->lo_bit;
    return (hi << (p->lo_bit + p->s)) | *lo;
}

/* ---------------------------------------------------------------- pass phases */

/* Phase 1: global -> shared, with the load scale and the DIT pass factor. */
G16_HD void ntt_phase_load(const ntt_pass *p, uint32_t blk, uint32_t v, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    const gfr *x = p->x[v];
    uint32_t E = ntt_elems(p);
    for (uint32_t l = t; l < E; l += nthr) {
        uint32_t c, m, lo;
        ntt_elem(p, l, &c, &m);
        uint32_t i = ntt_line(p, blk, c, &lo) + (m << p->lo_bit);
        gfr a = ntt_ld(&x[i]);
        ntt_apply_scale(&p->load, p->log_n, i, &a);
        if (p->kind == G16_PASS_DIT && p->lo_bit > 0)
            ntt_apply_factor(p, lo, ntt_rev(m, p->s), &a);
        ntt_pput(p, sm, E, (c << p->s) + m, &a);
    }
}

/* Stage u's butterflies with the uniform order: p->uni, u >= 1, and at least 8 values of hi and
 * 32 of (hi, c) for one value of low (so the 32 threads of a warp share low). */
G16_HD int ntt_uni_stage(const ntt_pass *p, uint32_t u)
{
    uint32_t hb = p->s - 1 - u; /* bits of hi (u < s) */
    return p->uni && u >= 1 && hb >= 3 && hb + p->log_g >= 5;
}

/* Group β of g stages u, u-1, .., u-g+1 (g = 1, 2, 3; u >= g-1): the 2^g positions e0 + i·2^(u+1-g)
 * (i < 2^g) of line c, e0 = hi·2^(u+1) + low with low < 2^(u+1-g); stage v's twiddles are
 * ω_{2^(v+1)}^(low + i·2^(u+1-g)) (small index 2^v + that exponent). Plain order: low fastest,
 * then hi, then c (neighbouring threads read neighbouring elements and twiddles). Uniform order
 * (ntt_uni_stage): hi fastest, then c, then low, so that a warp's groups share their twiddles
 * (broadcast loads) and whole warps have low = 0, where the twiddles with i = 0 are 1 and are
 * skipped (ntt_bfly_mul: stage u's 2^-u share of products for g = 1, over stages 1 to 4 0.94 of a
 * stage, 12% of a 9-stage pass's butterfly products); the swizzle of ntt_sw keeps its accesses
 * free of bank conflicts. */
G16_HD void ntt_group_pos(const ntt_pass *p, uint32_t beta, uint32_t u, uint32_t g, uint32_t *e0, uint32_t *low)
{
    uint32_t c, hi;
    if (ntt_uni_stage(p, u)) {
        uint32_t hb = p->s - 1 - u;
        hi = beta & ((1u << hb) - 1);
        c = (beta >> hb) & ((1u << p->log_g) - 1);
        *low = beta >> (hb + p->log_g);
    } else {
        uint32_t jj = beta & ((1u << (p->s - g)) - 1);
        c = beta >> (p->s - g);
        *low = jj & ((1u << (u + 1 - g)) - 1);
        hi = jj >> (u + 1 - g);
    }
    *e0 = (c << p->s) + ((hi << (u + 1)) | *low);
}

/* Butterfly β of stage u (a group of one): positions ea and eb = ea + 2^u, small twiddle index j. */
G16_HD void ntt_bfly_pos(const ntt_pass *p, uint32_t beta, uint32_t u, uint32_t *ea, uint32_t *eb, uint32_t *j)
{
    uint32_t low;
    ntt_group_pos(p, beta, u, 1, ea, &low);
    *eb = *ea + (1u << u);
    *j = (1u << u) + low;
}

/* Stages per shared-memory round trip for the next group, `left` stages to go: p->radix (0 = 1)
 * or fewer. The kernel (ntt.cu) and the host simulation follow this same schedule. */
G16_HD uint32_t ntt_group(const ntt_pass *p, uint32_t left)
{
    uint32_t r = p->radix ? p->radix : 1;
    return r < left ? r : left;
}

/* Whether stage u's butterfly with twiddle index j multiplies: never at u = 0 (all twiddles 1);
 * with p->uni not at low = 0 either (twiddle 1: the product would give d back, since every value
 * is reduced). */
G16_HD int ntt_bfly_mul(const ntt_pass *p, uint32_t u, uint32_t j) { return p->uni ? j != (1u << u) : u > 0; }

/* One DIF stage u: (a, b) <- (a + b, (a - b)·w). */
G16_HD void ntt_phase_dif(const ntt_pass *p, uint32_t u, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    uint32_t nb = ntt_elems(p) >> 1;
    for (uint32_t beta = t; beta < nb; beta += nthr) {
        uint32_t ea, eb, j;
        ntt_bfly_pos(p, beta, u, &ea, &eb, &j);
        gfr a = ntt_pget(p, sm, 2 * nb, ea), b = ntt_pget(p, sm, 2 * nb, eb), d;
        NTT_SUB(&d, &a, &b);
        NTT_ADD(&a, &a, &b);
        if (ntt_bfly_mul(p, u, j)) {
            gfr w = ntt_ld_tab(&p->w_small_dif[j]);
            NTT_MULW(&d, &w, &d);
        }
        ntt_pput(p, sm, 2 * nb, ea, &a);
        ntt_pput(p, sm, 2 * nb, eb, &d);
    }
}

/* One DIT stage u: t = b·w; (a, b) <- (a + t, a - t). */
G16_HD void ntt_phase_dit(const ntt_pass *p, uint32_t u, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    uint32_t nb = ntt_elems(p) >> 1;
    for (uint32_t beta = t; beta < nb; beta += nthr) {
        uint32_t ea, eb, j;
        ntt_bfly_pos(p, beta, u, &ea, &eb, &j);
        gfr a = ntt_pget(p, sm, 2 * nb, ea), b = ntt_pget(p, sm, 2 * nb, eb), d;
        if (ntt_bfly_mul(p, u, j)) {
            gfr w = ntt_ld_tab(&p->w_small_dit[j]);
            NTT_MULW(&b, &w, &b);
        }
        NTT_SUB(&d, &a, &b);
        NTT_ADD(&a, &a, &b);
        ntt_pput(p, sm, 2 * nb, ea, &a);
        ntt_pput(p, sm, 2 * nb, eb, &d);
    }
}

G16_HD void ntt_dif_bfly(gfr *a, gfr *b, const gfr *tw, uint32_t j, int mul)
{
    gfr d;
    NTT_SUB(&d, a, b);
    NTT_ADD(a, a, b);
    if (mul) {
        gfr w = ntt_ld_tab(&tw[j]);
        NTT_MULW(&d, &w, &d);
    }
    *b = d;
}

G16_HD void ntt_dit_bfly(gfr *a, gfr *b, const gfr *tw, uint32_t j, int mul)
{
    gfr d;
    if (mul) {
        gfr w = ntt_ld_tab(&tw[j]);
        NTT_MULW(b, &w, b);
    }
    NTT_SUB(&d, a, b);
    NTT_ADD(a, a, b);
    *b = d;
}

/* DIF stages u and u-1 (u >= 1) in one round trip. Stage u pairs (0,2) and (1,3) with the roots
 * ω_{2^(u+1)}^low and ^(low + 2^(u-1)); stage u-1 pairs (0,1) and (2,3), both with ω_{2^u}^low.
 * At low = 0 three of the four roots are 1 (skipped with p->uni, warp-uniform in its order). */
G16_HD void ntt_phase_dif2(const ntt_pass *p, uint32_t u, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    uint32_t nq = ntt_elems(p) >> 2, cap = ntt_elems(p), h = 1u << (u - 1);
    for (uint32_t beta = t; beta < nq; beta += nthr) {
        uint32_t e0, low;
        ntt_group_pos(p, beta, u, 2, &e0, &low);
        gfr x0 = ntt_pget(p, sm, cap, e0), x1 = ntt_pget(p, sm, cap, e0 + h);
        gfr x2 = ntt_pget(p, sm, cap, e0 + 2 * h), x3 = ntt_pget(p, sm, cap, e0 + 3 * h);
        ntt_dif_bfly(&x0, &x2, p->w_small_dif, 2 * h + low, ntt_bfly_mul(p, u, 2 * h + low));
        ntt_dif_bfly(&x1, &x3, p->w_small_dif, 3 * h + low, 1);
        ntt_dif_bfly(&x0, &x1, p->w_small_dif, h + low, ntt_bfly_mul(p, u - 1, h + low));
        ntt_dif_bfly(&x2, &x3, p->w_small_dif, h + low, ntt_bfly_mul(p, u - 1, h + low));
        ntt_pput(p, sm, cap, e0, &x0);
        ntt_pput(p, sm, cap, e0 + h, &x1);
        ntt_pput(p, sm, cap, e0 + 2 * h, &x2);
        ntt_pput(p, sm, cap, e0 + 3 * h, &x3);
    }
}

/* DIT stages u-1 and u (u >= 1) in one round trip (the mirror of ntt_phase_dif2). */
G16_HD void ntt_phase_dit2(const ntt_pass *p, uint32_t u, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    uint32_t nq = ntt_elems(p) >> 2, cap = ntt_elems(p), h = 1u << (u - 1);
    for (uint32_t beta = t; beta < nq; beta += nthr) {
        uint32_t e0, low;
        ntt_group_pos(p, beta, u, 2, &e0, &low);
        gfr x0 = ntt_pget(p, sm, cap, e0), x1 = ntt_pget(p, sm, cap, e0 + h);
        gfr x2 = ntt_pget(p, sm, cap, e0 + 2 * h), x3 = ntt_pget(p, sm, cap, e0 + 3 * h);
        ntt_dit_bfly(&x0, &x1, p->w_small_dit, h + low, ntt_bfly_mul(p, u - 1, h + low));
        ntt_dit_bfly(&x2, &x3, p->w_small_dit, h + low, ntt_bfly_mul(p, u - 1, h + low));
        ntt_dit_bfly(&x0, &x2, p->w_small_dit, 2 * h + low, ntt_bfly_mul(p, u, 2 * h + low));
        ntt_dit_bfly(&x1, &x3, p->w_small_dit, 3 * h + low, 1);
        ntt_pput(p, sm, cap, e0, &x0);
        ntt_pput(p, sm, cap, e0 + h, &x1);
        ntt_pput(p, sm, cap, e0 + 2 * h, &x2);
        ntt_pput(p, sm, cap, e0 + 3 * h, &x3);
    }
}

/* Level v (0 .. g-1) of a group of g stages on x[i] = position e0 + i·q, q = 2^(u+1-g)
 * (ntt_group_pos): stage u - v, pairs (i, i + d) with d = 2^(g-1-v), twiddle index
 * d·q + low + (i mod d)·q (ω_{2^(u-v+1)}^(low + (i mod d)·q)). At low = 0 the twiddles with
 * i mod d = 0 are 1 (skipped with p->uni): 7 of 12 for g = 3. */
G16_HD void ntt_group_level(const ntt_pass *p, gfr *x, const gfr *tw, uint32_t u, uint32_t g, uint32_t q,
                            uint32_t low, uint32_t v, int dit)
{
    uint32_t d = 1u << (g - 1 - v);
    G16_UNROLL
    for (uint32_t i = 0; i < (1u << g); i++) {
        if (i & d)
            continue;
        uint32_t j = d * q + low + (i & (d - 1)) * q;
        if (dit)
            ntt_dit_bfly(&x[i], &x[i + d], tw, j, ntt_bfly_mul(p, u - v, j));
        else
            ntt_dif_bfly(&x[i], &x[i + d], tw, j, ntt_bfly_mul(p, u - v, j));
    }
}

/* Stages u, u-1, .., u-g+1 (u >= g-1) in one shared-memory round trip: DIF from the top stage
 * down, DIT (dit != 0, its roots) from the bottom stage up. g and dit are constants at every call,
 * so the loops unroll and x stays in registers. Used for triples; the pairs keep their own code
 * above (through this function ptxas spilled 32-52 bytes in the pairs kernel instead of 8). */
G16_HD void ntt_phase_group(const ntt_pass *p, uint32_t u, uint32_t g, int dit, uint32_t t, uint32_t nthr,
                            g16_u4 *sm)
{
    uint32_t ng = ntt_elems(p) >> g, cap = ntt_elems(p), q = 1u << (u + 1 - g);
    const gfr *tw = dit ? p->w_small_dit : p->w_small_dif;
    for (uint32_t beta = t; beta < ng; beta += nthr) {
        uint32_t e0, low;
        gfr x[8];
        ntt_group_pos(p, beta, u, g, &e0, &low);
        G16_UNROLL
        for (uint32_t i = 0; i < (1u << g); i++)
            x[i] = ntt_pget(p, sm, cap, e0 + i * q);
        G16_UNROLL
        for (uint32_t v = 0; v < g; v++)
            ntt_group_level(p, x, tw, u, g, q, low, dit ? g - 1 - v : v, dit);
        G16_UNROLL
        for (uint32_t i = 0; i < (1u << g); i++)
            ntt_pput(p, sm, cap, e0 + i * q, &x[i]);
    }
}

/* Stages in triples (u >= 2): DIF from stage u down, DIT up to stage u. */
G16_HD void ntt_phase_dif3(const ntt_pass *p, uint32_t u, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    ntt_phase_group(p, u, 3, 0, t, nthr, sm);
}

G16_HD void ntt_phase_dit3(const ntt_pass *p, uint32_t u, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    ntt_phase_group(p, u, 3, 1, t, nthr, sm);
}

/* The middle scale of a DIF_DIT pass (lo_bit = 0: element m of line c is global index base + m). */
G16_HD void ntt_phase_mid(const ntt_pass *p, uint32_t blk, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    uint32_t E = ntt_elems(p);
    for (uint32_t l = t; l < E; l += nthr) {
        uint32_t c, m, lo;
        ntt_elem(p, l, &c, &m);
        uint32_t i = ntt_line(p, blk, c, &lo) + (m << p->lo_bit);
        gfr a = ntt_pget(p, sm, E, (c << p->s) + m);
        ntt_apply_scale(&p->mid, p->log_n, i, &a);
        ntt_pput(p, sm, E, (c << p->s) + m, &a);
    }
}

/* Last phase: shared -> global, with the DIF pass factor, the in-line bit reversal, the store
 * scale (by the destination index) and the Groth16 pointwise step. */
G16_HD void ntt_phase_store(const ntt_pass *p, uint32_t blk, uint32_t v, uint32_t t, uint32_t nthr,
                            const g16_u4 *sm)
{
    gfr *x = p->x[v];
    uint32_t E = ntt_elems(p);
    for (uint32_t l = t; l < E; l += nthr) {
        uint32_t c, m, lo;
        ntt_elem(p, l, &c, &m);
        uint32_t base = ntt_line(p, blk, c, &lo);
        gfr a = ntt_pget(p, sm, E, (c << p->s) + m);
        if (p->kind == G16_PASS_DIF && p->lo_bit > 0)
            ntt_apply_factor(p, lo, ntt_rev(m, p->s), &a); /* canonical out */
        else if (G16_NTT_LAZY)
            gfr_reduce_lazy(&a, &a);
        uint32_t mo = p->store_bitrev ? ntt_rev(m, p->s) : m;
        uint32_t i = base + (mo << p->lo_bit);
        ntt_apply_scale(&p->store, p->log_n, i, &a);
        if (p->abc) {
            gfr av = ntt_ld(&p->abc_a[i]);
            if (p->abc == G16_ABC_MUL)
                gfr_mul(&av, &av, &a);
            else
                gfr_sub(&av, &av, &a);
            ntt_st(&p->abc_a[i], &av);
        } else {
            ntt_st(&x[i], &a);
        }
    }
}

/* ---------------------------------------------------------------- bit reversal
 * n >= 2^(2Q): index i = (a, mid, c) with a, c of Q bits maps to (rev c, rev mid, rev a); block
 * `mid` (when mid <= rev mid) swaps tile mid with tile rev(mid) through shared memory (2·2^(2Q)
 * elements). Smaller n: one block, one element pair per thread. The store scale uses the
 * destination (natural) index. */

G16_HD uint32_t ntt_br_tiled(uint32_t log_n) { return log_n >= 2 * G16_NTT_BR_Q; }

G16_HD uint32_t ntt_br_index(uint32_t log_n, uint32_t mid, uint32_t a, uint32_t c)
{
    return (a << (log_n - G16_NTT_BR_Q)) | (mid << G16_NTT_BR_Q) | c;
}

/* Returns 0 when this block has nothing to do (its pair is handled by block rev(mid)). */
G16_HD int ntt_phase_br_load(const ntt_pass *p, uint32_t blk, uint32_t v, uint32_t t, uint32_t nthr, g16_u4 *sm)
{
    const gfr *x = p->x[v];
    uint32_t k = p->log_n, mbits = k - 2 * G16_NTT_BR_Q, mr = ntt_rev(blk, mbits);
    if (mr < blk)
        return 0;
    uint32_t T = 1u << (2 * G16_NTT_BR_Q), qm = (1u << G16_NTT_BR_Q) - 1;
    uint32_t tiles = (mr == blk) ? 1 : 2;
    for (uint32_t l = t; l < tiles * T; l += nthr) {
        uint32_t tile = l >> (2 * G16_NTT_BR_Q), e = l & (T - 1);
        uint32_t a = e >> G16_NTT_BR_Q, c = e & qm;
        gfr z = ntt_ld(&x[ntt_br_index(k, tile ? mr : blk, a, c)]);
        ntt_sput(sm, G16_NTT_BR_CAP, l, &z);
    }
    return 1;
}

G16_HD void ntt_phase_br_store(const ntt_pass *p, uint32_t blk, uint32_t v, uint32_t t, uint32_t nthr,
                               const g16_u4 *sm)
{
    gfr *x = p->x[v];
    uint32_t k = p->log_n, mbits = k - 2 * G16_NTT_BR_Q, mr = ntt_rev(blk, mbits);
    uint32_t T = 1u << (2 * G16_NTT_BR_Q), qm = (1u << G16_NTT_BR_Q) - 1;
    uint32_t tiles = (mr == blk) ? 1 : 2;
    for (uint32_t l = t; l < tiles * T; l += nthr) {
        uint32_t tile = l >> (2 * G16_NTT_BR_Q), e = l & (T - 1);
        uint32_t a = e >> G16_NTT_BR_Q, c = e & qm;
        /* destination (tile, a, c) receives the source element (other tile, rev c, rev a) */
        uint32_t src_tile = (mr == blk) ? 0 : 1 - tile;
        uint32_t src = (src_tile << (2 * G16_NTT_BR_Q)) | (ntt_rev(c, G16_NTT_BR_Q) << G16_NTT_BR_Q) |
                       ntt_rev(a, G16_NTT_BR_Q);
        gfr z = ntt_sget(sm, G16_NTT_BR_CAP, src);
        uint32_t i = ntt_br_index(k, tile ? mr : blk, a, c);
        ntt_apply_scale(&p->store, k, i, &z);
        ntt_st(&x[i], &z);
    }
}

/* Small n: thread t < n handles the pair {t, rev t} when t <= rev t. */
G16_HD void ntt_phase_br_small(const ntt_pass *p, uint32_t v, uint32_t t)
{
    gfr *x = p->x[v];
    uint32_t k = p->log_n, n = 1u << k;
    if (t >= n)
        return;
    uint32_t r = ntt_rev(t, k);
    if (r < t)
        return;
    gfr a = ntt_ld(&x[t]), b = ntt_ld(&x[r]);
    ntt_apply_scale(&p->store, k, t, &b);
    if (r != t)
        ntt_apply_scale(&p->store, k, r, &a);
    ntt_st(&x[t], &b);
    if (r != t)
        ntt_st(&x[r], &a);
}

/* ---------------------------------------------------------------- launch plans */

G16_HOST uint32_t ntt_elems_log(const ntt_tables *tb) { return tb->elems_log ? tb->elems_log : G16_NTT_ELEMS_LOG; }

/* Bits per pass, top pass first (pass P-1 has lo_bit = 0). Returns P. The bottom pass takes at
 * most B bits, the others at most U = B - 1 (B = tb->split_b, 0: G16_NTT_SMAX, tests force
 * smaller; and B <= the elements per block). */
G16_HOST uint32_t ntt_split(const ntt_tables *tb, uint32_t *s)
{
    uint32_t log_n = tb->log_n, B = tb->split_b ? tb->split_b : G16_NTT_SMAX;
    if (B > ntt_elems_log(tb))
        B = ntt_elems_log(tb);
    uint32_t U = B - 1;
    uint32_t P = log_n <= B ? 1 : 1 + (log_n - B + U - 1) / U;
    uint32_t base = log_n / P, rem = log_n % P;
    for (uint32_t q = 0; q < P; q++)
        s[q] = base + (q >= P - rem ? 1 : 0);
    return P;
}

G16_HOST ntt_scale ntt_scale_none(void)
{
    ntt_scale sc;
    memset(&sc, 0, sizeof sc);
    return sc;
}

G16_HOST ntt_scale ntt_scale_pow(const ntt_tables *tb, int set, uint32_t rev)
{
    ntt_scale sc = ntt_scale_none();
    sc.mode = G16_SCALE_POW;
    sc.rev = rev;
    sc.bits = tb->sc_bits;
    sc.hi = tb->sc_hi[set];
    sc.lo = tb->sc_lo[set];
    return sc;
}

G16_HOST ntt_scale ntt_scale_const(const gfr *c0)
{
    ntt_scale sc = ntt_scale_none();
    sc.mode = G16_SCALE_CONST;
    sc.c0 = *c0;
    return sc;
}

/* A pass over `nvec` vectors: pass q of the split, DIF or DIT or DIF_DIT, forward or inverse. */
G16_HOST ntt_launch ntt_make_pass(const ntt_tables *tb, gfr *const *x, uint32_t nvec, uint32_t q, uint32_t kind,
                                uint32_t inverse)
{
    ntt_launch L;
    memset(&L, 0, sizeof L);
    uint32_t s[G16_NTT_MAX_PASSES], k = tb->log_n;
    uint32_t P = ntt_split(tb, s), lo_bit = 0;
    for (uint32_t r = q + 1; r < P; r++)
        lo_bit += s[r];
    ntt_pass *p = &L.p;
    L.type = G16_LAUNCH_PASS;
    L.nvec = nvec;
    for (uint32_t v = 0; v < nvec; v++)
        p->x[v] = x[v];
    p->log_n = k;
    p->lo_bit = lo_bit;
    p->s = s[q];
    uint32_t lg = ntt_elems_log(tb) - p->s, lines_log = k - p->s;
    p->log_g = lg < lines_log ? lg : lines_log;
    L.blocks = 1u << (lines_log - p->log_g);
    p->kind = kind;
    p->inverse = inverse;
    p->log_t = tb->log_t;
    p->radix = (kind == G16_PASS_DIF_DIT && tb->radix_dd) ? tb->radix_dd : tb->radix;
    if (!p->radix)
        p->radix = 1;
    p->uni = tb->uni;
    uint32_t dir = (kind == G16_PASS_DIF_DIT) ? 1 : inverse; /* DIF_DIT: inverse DIF, forward DIT */
    p->w_small_dif = tb->w_small[dir];
    p->w_small_dit = tb->w_small[kind == G16_PASS_DIF_DIT ? 0 : inverse];
    p->w_direct = tb->w_direct[inverse];
    p->w_lo = tb->w_lo[inverse];
    p->load = p->mid = p->store = ntt_scale_none();
    return L;
}

G16_HOST ntt_launch ntt_make_bitrev(const ntt_tables *tb, gfr *const *x, uint32_t nvec, ntt_scale store)
{
    ntt_launch L;
    memset(&L, 0, sizeof L);
    L.type = G16_LAUNCH_BITREV;
    L.nvec = nvec;
    for (uint32_t v = 0; v < nvec; v++)
        L.p.x[v] = x[v];
    L.p.log_n = tb->log_n;
    L.p.store = store;
    L.blocks = ntt_br_tiled(tb->log_n) ? 1u << (tb->log_n - 2 * G16_NTT_BR_Q) : 1;
    return L;
}

/* DIF passes (all of them) then the bit reversal, with the store scale `fin` at the destination
 * index (and the load scale `first` at the top pass). Appends to L, returns the new count. */
G16_HOST uint32_t ntt_plan_dif_natural(const ntt_tables *tb, gfr *const *x, uint32_t nvec, uint32_t inverse,
                                     ntt_scale first, ntt_scale fin, ntt_launch *L, uint32_t cnt)
{
    uint32_t s[G16_NTT_MAX_PASSES], P = ntt_split(tb, s);
    for (uint32_t q = 0; q < P; q++) {
        ntt_launch a = ntt_make_pass(tb, x, nvec, q, G16_PASS_DIF, inverse);
        if (q == 0)
            a.p.load = first;
        if (P == 1) {
            a.p.store_bitrev = 1;
            a.p.store = fin;
        }
        L[cnt++] = a;
    }
    if (P > 1)
        L[cnt++] = ntt_make_bitrev(tb, x, nvec, fin);
    return cnt;
}

/* The launches of one transform kind (G16__GPU_NTT_* order: forward, inverse, coset forward,
 * coset inverse) on nvec vectors. Returns the count. */
G16_HOST uint32_t ntt_plan_transform(const ntt_tables *tb, uint32_t kind, gfr *const *x, uint32_t nvec, ntt_launch *L)
{
    ntt_scale none = ntt_scale_none();
    switch (kind) {
    case 0:
        return ntt_plan_dif_natural(tb, x, nvec, 0, none, none, L, 0);
    case 1:
        return ntt_plan_dif_natural(tb, x, nvec, 1, none, ntt_scale_const(&tb->n_inv), L, 0);
    case 2:
        return ntt_plan_dif_natural(tb, x, nvec, 0, ntt_scale_pow(tb, G16_SC_COSET_FWD, 0), none, L, 0);
    default:
        return ntt_plan_dif_natural(tb, x, nvec, 1, none, ntt_scale_pow(tb, G16_SC_COSET_INV, 0), L, 0);
    }
}

/* The H step's transforms of x[0..nv) (evaluations -> coset evaluations: inverse DIF passes, the
 * bottom pass fused with the n^-1·g^j scaling and the first DIT pass, forward DIT passes up to the
 * top one), the top pass of the last vector folded into a by `abc` (G16_ABC_*), the others'
 * stored. Appends to L from cnt, returns the new count. */
G16_HOST uint32_t ntt_plan_h_cosets(const ntt_tables *tb, gfr *const *x, uint32_t nv, gfr *a, uint32_t abc,
                                  ntt_launch *L, uint32_t cnt)
{
    uint32_t s[G16_NTT_MAX_PASSES], P = ntt_split(tb, s);
    for (uint32_t q = 0; q + 1 < P; q++)
        L[cnt++] = ntt_make_pass(tb, x, nv, q, G16_PASS_DIF, 1);
    /* DIT passes from the bottom (q = P-1, fused with the last DIF pass) up to the top (q = 0);
     * the top one runs for the other vectors first, then for the last with the fold. */
    for (uint32_t r = 0; r < P; r++) {
        uint32_t q = P - 1 - r;
        uint32_t kind = (r == 0) ? G16_PASS_DIF_DIT : G16_PASS_DIT;
        if (q > 0 || nv > 1) {
            L[cnt] = ntt_make_pass(tb, x, q > 0 ? nv : nv - 1, q, kind, 0);
            if (r == 0)
                L[cnt].p.mid = ntt_scale_pow(tb, G16_SC_H_IN, 1);
            cnt++;
        }
        if (q > 0)
            continue;
        L[cnt] = ntt_make_pass(tb, x + nv - 1, 1, q, kind, 0);
        if (r == 0)
            L[cnt].p.mid = ntt_scale_pow(tb, G16_SC_H_IN, 1);
        L[cnt].p.abc = abc;
        L[cnt].p.abc_a = a;
        cnt++;
    }
    return cnt;
}

/* The H step without C's coset evaluations (six transforms, not bellman's seven; see
 * poly/ntt.h, g16__ntt_groth16_h): the coset inverse is linear and takes C's coset values back to
 * C's coefficients, which c's plain inverse gives too, so
 *   H = coset_inverse(A_coset·B_coset)·(g^n - 1)^-1 - inverse(c)·(g^n - 1)^-1.
 * ntt_plan_h_ab_out: a (= A_coset·B_coset) through the coset inverse's DIF passes, the scale
 * n^-1·(g^n - 1)^-1·g^-i of coefficient i at the bottom pass's store (a left in bit-reversed
 * order when there are several passes: the index scaled is the reversed position; in natural
 * order when the one pass reverses in line). Appends to L from cnt, returns the new count. */
G16_HOST uint32_t ntt_plan_h_ab_out(const ntt_tables *tb, gfr *a, ntt_launch *L, uint32_t cnt)
{
    gfr *aa[1] = {a};
    uint32_t s[G16_NTT_MAX_PASSES], P = ntt_split(tb, s);
    for (uint32_t q = 0; q < P; q++) {
        L[cnt] = ntt_make_pass(tb, aa, 1, q, G16_PASS_DIF, 1);
        if (q == P - 1) {
            L[cnt].p.store_bitrev = P == 1;
            L[cnt].p.store = ntt_scale_pow(tb, G16_SC_H_OUT, P > 1);
        }
        cnt++;
    }
    return cnt;
}

/* c through the inverse's DIF passes, its bottom pass scaled by n^-1·(g^n - 1)^-1 and subtracted
 * from a at the store (the same positions: a as ntt_plan_h_ab_out left it), then a's bit
 * reversal when there are several passes: H in a, natural order. */
G16_HOST uint32_t ntt_plan_h_c_fold(const ntt_tables *tb, gfr *a, gfr *c, ntt_launch *L, uint32_t cnt)
{
    gfr *cc[1] = {c}, *aa[1] = {a};
    uint32_t s[G16_NTT_MAX_PASSES], P = ntt_split(tb, s);
    for (uint32_t q = 0; q < P; q++) {
        L[cnt] = ntt_make_pass(tb, cc, 1, q, G16_PASS_DIF, 1);
        if (q == P - 1) {
            L[cnt].p.store_bitrev = P == 1;
            L[cnt].p.store = ntt_scale_const(&tb->h_c0);
            L[cnt].p.abc = G16_ABC_SUB;
            L[cnt].p.abc_a = a;
        }
        cnt++;
    }
    if (P > 1)
        L[cnt++] = ntt_make_bitrev(tb, aa, 1, ntt_scale_none());
    return cnt;
}

/* The Groth16 H step on three vectors: a, b to coset evaluations, a·b at the store of b's last
 * pass, a's coset inverse, then c's inverse folded in. */
G16_HOST uint32_t ntt_plan_h(const ntt_tables *tb, gfr *a, gfr *b, gfr *c, ntt_launch *L)
{
    gfr *ab[2] = {a, b};
    uint32_t cnt = ntt_plan_h_cosets(tb, ab, 2, a, G16_ABC_MUL, L, 0);
    cnt = ntt_plan_h_ab_out(tb, a, L, cnt);
    return ntt_plan_h_c_fold(tb, a, c, L, cnt);
}

/* The same in two plans with c written in between (cards that cannot hold three vectors, or c
 * still crossing PCIe): ntt_plan_h_ab takes a and b as far as they go without c (a·b through the
 * coset inverse, in a) and leaves b free; ntt_plan_h_c then takes c in any vector (b's, once
 * free) and leaves H in a. */
G16_HOST uint32_t ntt_plan_h_ab(const ntt_tables *tb, gfr *a, gfr *b, ntt_launch *L)
{
    gfr *ab[2] = {a, b};
    uint32_t cnt = ntt_plan_h_cosets(tb, ab, 2, a, G16_ABC_MUL, L, 0);
    return ntt_plan_h_ab_out(tb, a, L, cnt);
}

G16_HOST uint32_t ntt_plan_h_c(const ntt_tables *tb, gfr *a, gfr *c, ntt_launch *L)
{
    return ntt_plan_h_c_fold(tb, a, c, L, 0);
}

/* The same one vector at a time, so that each transform can start as soon as its input is on the
 * device (the next input's copy overlapping it): ntt_plan_h_in takes a to coset evaluations
 * (stored); ntt_plan_h_mul takes b's, folds them into a as a·b and runs a's coset inverse
 * (ntt_plan_h_ab's launches, one vector per launch), so that b's vector is free for c and
 * ntt_plan_h_c. Bit for bit the batched plans' results: the same passes on each vector, the folds
 * in the same operand order. */
G16_HOST uint32_t ntt_plan_h_in(const ntt_tables *tb, gfr *x, ntt_launch *L)
{
    return ntt_plan_h_cosets(tb, &x, 1, NULL, G16_ABC_NONE, L, 0);
}

G16_HOST uint32_t ntt_plan_h_mul(const ntt_tables *tb, gfr *a, gfr *b, ntt_launch *L)
{
    uint32_t cnt = ntt_plan_h_cosets(tb, &b, 1, a, G16_ABC_MUL, L, 0);
    return ntt_plan_h_ab_out(tb, a, L, cnt);
}

#endif /* G16_GPU_NTT_CORE_CUH */
