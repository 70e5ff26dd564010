/* The GPU NTT: kernels around the phases of ntt_core.cuh, domains, and the entry points of gpu.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.cuh"
#include "gpu/ntt_core.cuh"
#include "gpu/ntt_tables.h"

/* Pass-kernel variants, chosen by the two tuning knobs (threads per block: g16__gpu_ntt_set_threads;
 * stages per shared-memory round trip, 1 to 3: g16__gpu_ntt_set_radix). The pass kernel is bound
 * by the Fr products, and those by how many warps an SM keeps in flight to hide the carry chains'
 * latency, the shared-memory round trips and the barriers (ncu, 2^24, 128 threads one stage per
 * round trip: 24 warps per SM, limited by shared memory; an eligible warp in only 53% of the
 * cycles). A block of 2^e elements takes 2^(e+5) bytes of shared memory (227 KiB per SM: 3 blocks
 * of 2^11, 6 of 2^10), and a block's warps wait for each other at every barrier, so several
 * smaller blocks per SM hide more than one large one (the first device run: 256 threads and 2
 * blocks per SM were 15% faster than 512 threads and 1 block, at the same 16 warps per SM).
 * Registers decide the rest: each variant is its own instantiation with
 * __launch_bounds__(threads, blocks per SM), so ptxas keeps to the registers that let those
 * blocks fit (tools/gpu/ptxas_report.sh prints them):
 *   threads stages elements blocks/SM warps/SM
 *   256     1      2^10     4         32       default below 2^19
 *   256     2      2^11     3         24
 *   256     3      2^11     2         16
 *   512     1      2^11     2         32
 *   512     2      2^11     1         16
 *   128     1      2^10     6         24
 *   128     2      2^10     6         24       default from 2^19
 *   128     3      2^10     4         16
 *   384     1 / 2  2^11     2         24
 *   other multiples of 32 up to 512: 2^11 elements, no bound (the first run's kernel).
 * The elements per block change the pass plan (ntt_tables.elems_log: passes of at most 10 stages
 * for 2^10), which the host simulation checks for both sizes. */
/* Default variant by size, from the device runs of 2026-12-03 12:10-12:27 UTC (bench/RESULTS.md):
 * 128 threads with stage pairs from 2^19 (2^27: 42.5 ms against 44.9 one stage per round trip and
 * 45.4 in triples; 2^20: 0.311 against 0.319 for 256 one by one); below, 256 threads one stage
 * per round trip (2^16: 0.050 against 0.060). */
#define NTT_THREADS_DEFAULT(log_n) ((log_n) >= 19 ? 128u : 256u)
#define NTT_RADIX_DEFAULT(log_n) ((log_n) >= 19 ? 2u : 1u)
/* The H step's fused DIF_DIT pass one stage per round trip: with pairs it took 89.6 ms at 2^27
 * (3 vectors) against 82.3 one by one (two runs of 2026-12-03), while the other passes gain. */
#define NTT_RADIX_FUSED_DEFAULT 1u
/* Warp-uniform early stages (ntt_group_pos): 2^27 forward 44.8 ms against 47.6 in the plain order
 * (same run, 128 threads, one stage per round trip). */
#define NTT_UNIFORM_DEFAULT 1

typedef void (*pass_kernel_fn)(const ntt_pass);

struct g16__gpu_ntt {
    g16__gpu *g;
    unsigned log_n;
    gfr *tables;       /* device: the layout of ntt_tables.h */
    ntt_tables tb;     /* pointers into it; tb.radix and tb.elems_log follow the variant */
    unsigned threads;  /* threads per pass block */
    pass_kernel_fn kernel_r[4]; /* [radix]: the pass kernel for d->threads (NULL: other elements per block) */
};

/* One pass: load, the stages in groups of up to R per shared-memory round trip (ntt_group; each
 * group followed by a barrier), store. p.radix is R (the host simulation reads that one). */
template <unsigned R>
__device__ __forceinline__ static void ntt_pass_body(const ntt_pass &p)
{
    extern __shared__ g16_u4 sm[];
    uint32_t blk = blockIdx.x, v = blockIdx.y, t = threadIdx.x, T = blockDim.x;
    ntt_phase_load(&p, blk, v, t, T, sm);
    __syncthreads();
    /* the host simulation (tests/test_gpu_ntt.c, sim_pass) runs this same schedule */
    if (p.kind != G16_PASS_DIT) {
        for (uint32_t u = p.s; u > 0;) {
            uint32_t g = R < u ? R : u;
            if (R >= 3 && g == 3)
                ntt_phase_dif3(&p, u - 1, t, T, sm);
            else if (R >= 2 && g == 2)
                ntt_phase_dif2(&p, u - 1, t, T, sm);
            else
                ntt_phase_dif(&p, u - 1, t, T, sm);
            __syncthreads();
            u -= g;
        }
    }
    if (p.kind == G16_PASS_DIF_DIT) {
        ntt_phase_mid(&p, blk, t, T, sm);
        __syncthreads();
    }
    if (p.kind != G16_PASS_DIF) {
        for (uint32_t u = 0; u < p.s;) {
            uint32_t g = R < p.s - u ? R : p.s - u;
            if (R >= 3 && g == 3)
                ntt_phase_dit3(&p, u + 2, t, T, sm);
            else if (R >= 2 && g == 2)
                ntt_phase_dit2(&p, u + 1, t, T, sm);
            else
                ntt_phase_dit(&p, u, t, T, sm);
            __syncthreads();
            u += g;
        }
    }
    ntt_phase_store(&p, blk, v, t, T, sm);
}

template <unsigned R, unsigned THREADS, unsigned MINB>
__global__ static void __launch_bounds__(THREADS, MINB) ntt_pass_kernel(const __grid_constant__ ntt_pass p)
{
    ntt_pass_body<R>(p);
}

static const struct {
    unsigned threads, radix, elems_log, blocks_per_sm;
    pass_kernel_fn fn;
} pass_variants[] = {
    {256, 1, 10, 4, ntt_pass_kernel<1, 256, 4>},
    {256, 2, 11, 3, ntt_pass_kernel<2, 256, 3>},
    {256, 3, 11, 2, ntt_pass_kernel<3, 256, 2>},
    {512, 1, 11, 2, ntt_pass_kernel<1, 512, 2>},
    {512, 2, 11, 1, ntt_pass_kernel<2, 512, 1>},
    {128, 1, 10, 6, ntt_pass_kernel<1, 128, 6>},
    {128, 2, 10, 6, ntt_pass_kernel<2, 128, 6>},
    {128, 3, 10, 4, ntt_pass_kernel<3, 128, 4>},
    {384, 1, 11, 2, ntt_pass_kernel<1, 384, 2>},
    {384, 2, 11, 2, ntt_pass_kernel<2, 384, 2>},
    {0, 1, 11, 3, ntt_pass_kernel<1, 512, 1>}, /* any other thread count */
    {0, 2, 11, 3, ntt_pass_kernel<2, 512, 1>},
    {0, 3, 11, 3, ntt_pass_kernel<3, 512, 1>},
};
#define NTT_VARIANTS (sizeof pass_variants / sizeof pass_variants[0])

/* The variant for d->threads and `radix` stages per round trip (1..3). */
static unsigned find_variant(unsigned threads, unsigned radix)
{
    for (unsigned v = 0; v < NTT_VARIANTS; v++)
        if (pass_variants[v].radix == radix && (pass_variants[v].threads == threads || !pass_variants[v].threads))
            return v;
    return 0; /* not reached: every radix has a catch-all entry */
}

/* Sets the main kernel and the plan's elements per block for d->threads and radix, and the
 * kernels by radix that share those elements per block (for the fused DIF_DIT passes, which may
 * run another radix: ntt_tables.radix_dd); radix_dd falls back to the main radix when its
 * kernel does not share them. */
static void pick_variant(g16__gpu_ntt *d, unsigned radix)
{
    unsigned pick = find_variant(d->threads, radix);
    d->tb.radix = radix;
    d->tb.elems_log = pass_variants[pick].elems_log;
    for (unsigned r = 1; r <= 3; r++) {
        unsigned v = find_variant(d->threads, r);
        d->kernel_r[r] = pass_variants[v].elems_log == d->tb.elems_log ? pass_variants[v].fn : NULL;
    }
    if (d->tb.radix_dd > 3 || !d->kernel_r[d->tb.radix_dd ? d->tb.radix_dd : radix])
        d->tb.radix_dd = 0;
}

__global__ static void __launch_bounds__(256) ntt_bitrev_kernel(const __grid_constant__ ntt_pass p)
{
    extern __shared__ g16_u4 sm[];
    if (!ntt_br_tiled(p.log_n)) {
        ntt_phase_br_small(&p, blockIdx.y, threadIdx.x);
        return;
    }
    if (!ntt_phase_br_load(&p, blockIdx.x, blockIdx.y, threadIdx.x, blockDim.x, sm))
        return; /* the whole block: its tile pair belongs to another block */
    __syncthreads();
    ntt_phase_br_store(&p, blockIdx.x, blockIdx.y, threadIdx.x, blockDim.x, sm);
}

/* x[i] <- x[i]·y[i], i < n (canonical values in, canonical out). */
__global__ static void __launch_bounds__(256) ntt_mul_into_kernel(gfr *x, const gfr *y, uint64_t n)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    gfr a = ntt_ld(&x[i]), b = ntt_ld(&y[i]);
    gfr_mul(&a, &a, &b);
    ntt_st(&x[i], &a);
}

static g16_status run_launches(g16__gpu_ntt *d, const ntt_launch *L, uint32_t cnt, g16_error *err)
{
    g16_status st = G16_OK;
    cudaStream_t s = d->g->stream;
    G16_CU(cudaSetDevice(d->g->device));
    for (uint32_t q = 0; q < cnt; q++) {
        dim3 grid(L[q].blocks, L[q].nvec);
        if (L[q].type == G16_LAUNCH_PASS) {
            size_t smem = (size_t)2 * ntt_elems(&L[q].p) * sizeof(g16_u4);
            pass_kernel_fn k = d->kernel_r[L[q].p.radix];
            G16_CU_LAUNCH(k<<<grid, d->threads, smem, s>>>(L[q].p));
        } else {
            size_t smem = (size_t)2 * G16_NTT_BR_CAP * sizeof(g16_u4);
            G16_CU_LAUNCH(ntt_bitrev_kernel<<<grid, 256, smem, s>>>(L[q].p));
        }
    }
cleanup:
    return st;
}

extern "C" unsigned g16__gpu_ntt_log_n(const g16__gpu_ntt *d) { return d->log_n; }

extern "C" void g16__gpu_ntt_destroy(g16__gpu_ntt *d)
{
    if (!d)
        return;
    g16__gpu_free(d->g, d->tables);
    free(d);
}

extern "C" g16_status g16__gpu_ntt_create(g16__gpu_ntt **out, g16__gpu *g, unsigned log_n,
                                          const g16_fr *root_generator, const g16_fr *coset_shift, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_ntt *d = NULL;
    g16__gpu_ntt_host_tables ht;
    g16__gpu_plan plan;
    size_t bytes = 0;
    memset(&ht, 0, sizeof ht);
    if (!out || !g) {
        st = g16__error(err, G16_ERR_ARG, "gpu ntt: NULL %s", out ? "context" : "output pointer");
        goto cleanup;
    }
    *out = NULL;
    st = g16__gpu_ntt_tables_build(&ht, log_n, root_generator, coset_shift, err);
    if (st != G16_OK)
        goto cleanup;
    bytes = ht.total * sizeof(g16_fr);
    g16__gpu_plan_init(&plan);
    g16__gpu_plan_add(&plan, "ntt tables", bytes);
    st = g16__gpu_plan_check(g, &plan, err);
    if (st != G16_OK)
        goto cleanup;
    d = (g16__gpu_ntt *)calloc(1, sizeof *d);
    if (!d) {
        st = g16__error(err, G16_ERR_NOMEM, "gpu ntt: domain struct");
        goto cleanup;
    }
    d->g = g;
    d->log_n = log_n;
    d->threads = NTT_THREADS_DEFAULT(log_n);
    st = g16__gpu_alloc(g, (void **)&d->tables, bytes, "ntt tables", err);
    if (st != G16_OK)
        goto cleanup;
    G16_CU(cudaMemcpyAsync(d->tables, ht.buf, bytes, cudaMemcpyHostToDevice, g->stream));
    G16_CU(cudaStreamSynchronize(g->stream)); /* ht.buf is freed below */
    for (unsigned v = 0; v < NTT_VARIANTS; v++) {
        pass_kernel_fn f = pass_variants[v].fn;
        /* shared memory for the variant's blocks per SM (each 2^(e+5) bytes + 1 KiB the system
         * reserves; in percent of the SM's 228 KiB, rounded up): the rest stays L1 cache, which
         * holds the twiddle tables */
        unsigned need = pass_variants[v].blocks_per_sm * ((32u << pass_variants[v].elems_log) + 1024u);
        unsigned pct = (100u * need + 228u * 1024u - 1) / (228u * 1024u);
        G16_CU(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    (int)(2 * sizeof(g16_u4) << G16_NTT_ELEMS_LOG)));
        G16_CU(cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, (int)(pct > 100 ? 100 : pct)));
    }
    ntt_tables_init(&d->tb, &ht, d->tables);
    d->tb.radix_dd = NTT_RADIX_FUSED_DEFAULT;
    pick_variant(d, NTT_RADIX_DEFAULT(log_n));
    d->tb.uni = NTT_UNIFORM_DEFAULT;
    *out = d;
    d = NULL;
cleanup:
    g16__gpu_ntt_tables_free(&ht);
    g16__gpu_ntt_destroy(d);
    return st;
}

extern "C" g16_status g16__gpu_ntt_set_threads(g16__gpu_ntt *d, unsigned threads)
{
    if (threads < 32 || threads > 512 || (threads & 31))
        return G16_ERR_ARG;
    d->threads = threads;
    pick_variant(d, d->tb.radix);
    return G16_OK;
}

extern "C" g16_status g16__gpu_ntt_set_radix_fused(g16__gpu_ntt *d, unsigned stages)
{
    if (stages > 3 || (stages && !d->kernel_r[stages]))
        return G16_ERR_ARG;
    d->tb.radix_dd = stages;
    return G16_OK;
}

extern "C" g16_status g16__gpu_ntt_set_radix(g16__gpu_ntt *d, unsigned stages)
{
    if (stages < 1 || stages > 3)
        return G16_ERR_ARG;
    pick_variant(d, stages);
    return G16_OK;
}

extern "C" void g16__gpu_ntt_set_uniform(g16__gpu_ntt *d, int on) { d->tb.uni = on ? 1 : 0; }

extern "C" g16_status g16__gpu_ntt_device(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                                          g16_error *err)
{
    if (!d || !x || (unsigned)kind >= G16__GPU_NTT_KIND_COUNT)
        return g16__error(err, G16_ERR_ARG, "gpu ntt: NULL domain or vectors, or bad kind %d", (int)kind);
    for (size_t i = 0; i < count; i++)
        if (!x[i])
            return g16__error(err, G16_ERR_ARG, "gpu ntt: vector %zu is NULL", i);
    for (size_t i = 0; i < count; i += G16_NTT_MAX_VEC) {
        uint32_t nv = (uint32_t)(count - i < G16_NTT_MAX_VEC ? count - i : G16_NTT_MAX_VEC);
        ntt_launch L[G16_NTT_MAX_LAUNCHES];
        uint32_t cnt = ntt_plan_transform(&d->tb, (uint32_t)kind, (gfr *const *)(x + i), nv, L);
        g16_status st = run_launches(d, L, cnt, err);
        if (st != G16_OK)
            return st;
    }
    return G16_OK;
}

extern "C" g16_status g16__gpu_ntt_groth16_h_device(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c,
                                                    g16_error *err)
{
    if (!d || !a || !b || !c)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H: NULL domain or vector");
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    uint32_t cnt = ntt_plan_h(&d->tb, (gfr *)a, (gfr *)b, (gfr *)c, L);
    return run_launches(d, L, cnt, err);
}

extern "C" g16_status g16__gpu_ntt_h_ab(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err)
{
    if (!d || !a || !b)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H (a·b): NULL domain or vector");
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    uint32_t cnt = ntt_plan_h_ab(&d->tb, (gfr *)a, (gfr *)b, L);
    return run_launches(d, L, cnt, err);
}

extern "C" g16_status g16__gpu_ntt_h_c(g16__gpu_ntt *d, g16_fr *a, g16_fr *c, g16_error *err)
{
    if (!d || !a || !c)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H (c): NULL domain or vector");
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    uint32_t cnt = ntt_plan_h_c(&d->tb, (gfr *)a, (gfr *)c, L);
    return run_launches(d, L, cnt, err);
}

extern "C" g16_status g16__gpu_ntt_h_in(g16__gpu_ntt *d, g16_fr *x, g16_error *err)
{
    if (!d || !x)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H (one input): NULL domain or vector");
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    uint32_t cnt = ntt_plan_h_in(&d->tb, (gfr *)x, L);
    return run_launches(d, L, cnt, err);
}

extern "C" g16_status g16__gpu_ntt_h_mul(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err)
{
    if (!d || !a || !b)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H (b into a·b): NULL domain or vector");
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    uint32_t cnt = ntt_plan_h_mul(&d->tb, (gfr *)a, (gfr *)b, L);
    return run_launches(d, L, cnt, err);
}

extern "C" g16_status g16__gpu_ntt_h_in_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *keep, g16_error *err)
{
    g16_status st = G16_OK;
    if (!d || !a || !keep)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H (a, kept): NULL domain or vector");
    G16_CU(cudaSetDevice(d->g->device));
    G16_CU(cudaMemcpyAsync(keep, a, sizeof(g16_fr) << d->log_n, cudaMemcpyDeviceToDevice, d->g->stream));
    st = g16__gpu_ntt_h_in(d, a, err);
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_ntt_h_mul_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *keep, g16_error *err)
{
    g16_status st = G16_OK;
    uint64_t n;
    if (!d || !a || !b || !keep)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H (b into a·b, kept): NULL domain or vector");
    n = (uint64_t)1 << d->log_n;
    G16_CU(cudaSetDevice(d->g->device));
    G16_CU_LAUNCH(ntt_mul_into_kernel<<<(unsigned)((n + 255) / 256), 256, 0, d->g->stream>>>((gfr *)keep,
                                                                                           (const gfr *)b, n));
    st = g16__gpu_ntt_h_mul(d, a, b, err);
cleanup:
    return st;
}

/* Device buffer for `nvec` vectors of the domain, after checking the plan. */
static g16_status alloc_vectors(g16__gpu_ntt *d, size_t nvec, const char *what, g16_fr **buf, g16_error *err)
{
    g16__gpu_plan plan;
    size_t bytes = nvec * (sizeof(g16_fr) << d->log_n);
    g16__gpu_plan_init(&plan);
    g16__gpu_plan_add(&plan, what, bytes);
    g16_status st = g16__gpu_plan_check(d->g, &plan, err);
    if (st != G16_OK)
        return st;
    return g16__gpu_alloc(d->g, (void **)buf, bytes, what, err);
}

extern "C" g16_status g16__gpu_ntt_host(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                                        g16_error *err)
{
    g16_status st = G16_OK;
    g16_fr *buf = NULL;
    size_t n, chunk;
    if (!d || !x || (unsigned)kind >= G16__GPU_NTT_KIND_COUNT)
        return g16__error(err, G16_ERR_ARG, "gpu ntt: NULL domain or vectors, or bad kind %d", (int)kind);
    n = (size_t)1 << d->log_n;
    chunk = count < G16_NTT_MAX_VEC ? count : G16_NTT_MAX_VEC;
    if (count == 0)
        return G16_OK;
    st = alloc_vectors(d, chunk, "ntt vectors", &buf, err);
    if (st != G16_OK)
        goto cleanup;
    for (size_t i = 0; i < count; i += chunk) {
        size_t nv = count - i < chunk ? count - i : chunk;
        g16_fr *dx[G16_NTT_MAX_VEC];
        for (size_t v = 0; v < nv; v++) {
            dx[v] = buf + v * n;
            if (!x[i + v]) {
                st = g16__error(err, G16_ERR_ARG, "gpu ntt: vector %zu is NULL", i + v);
                goto cleanup;
            }
            G16_CU(cudaMemcpyAsync(dx[v], x[i + v], n * sizeof(g16_fr), cudaMemcpyHostToDevice, d->g->stream));
        }
        st = g16__gpu_ntt_device(d, kind, dx, nv, err);
        if (st != G16_OK)
            goto cleanup;
        for (size_t v = 0; v < nv; v++)
            G16_CU(cudaMemcpyAsync(x[i + v], dx[v], n * sizeof(g16_fr), cudaMemcpyDeviceToHost, d->g->stream));
        G16_CU(cudaStreamSynchronize(d->g->stream));
    }
cleanup:
    g16__gpu_free(d->g, buf);
    return st;
}

extern "C" g16_status g16__gpu_ntt_groth16_h_host(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c, g16_error *err)
{
    g16_status st = G16_OK;
    g16_fr *buf = NULL;
    size_t n, bytes;
    if (!d || !a || !b || !c)
        return g16__error(err, G16_ERR_ARG, "gpu groth16 H: NULL domain or vector");
    n = (size_t)1 << d->log_n;
    bytes = n * sizeof(g16_fr);
    st = alloc_vectors(d, 3, "groth16 H vectors a, b, c", &buf, err);
    if (st != G16_OK)
        goto cleanup;
    G16_CU(cudaMemcpyAsync(buf, a, bytes, cudaMemcpyHostToDevice, d->g->stream));
    G16_CU(cudaMemcpyAsync(buf + n, b, bytes, cudaMemcpyHostToDevice, d->g->stream));
    G16_CU(cudaMemcpyAsync(buf + 2 * n, c, bytes, cudaMemcpyHostToDevice, d->g->stream));
    st = g16__gpu_ntt_groth16_h_device(d, buf, buf + n, buf + 2 * n, err);
    if (st != G16_OK)
        goto cleanup;
    G16_CU(cudaMemcpyAsync(a, buf, bytes, cudaMemcpyDeviceToHost, d->g->stream));
    G16_CU(cudaStreamSynchronize(d->g->stream));
cleanup:
    g16__gpu_free(d->g, buf);
    return st;
}

extern "C" g16_status g16__gpu_ntt_profile(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *x, g16_fr *b,
                                           g16_fr *c, double *ms, char (*what)[64], size_t cap, size_t *count,
                                           g16_error *err)
{
    g16_status st = G16_OK;
    ntt_launch L[G16_NTT_MAX_LAUNCHES];
    cudaEvent_t ev[G16_NTT_MAX_LAUNCHES + 1];
    uint32_t cnt = 0, made = 0;
    *count = 0;
    if (!d || !x || (unsigned)kind > G16__GPU_NTT_KIND_COUNT || (kind == G16__GPU_NTT_KIND_COUNT && (!b || !c)))
        return g16__error(err, G16_ERR_ARG, "gpu ntt profile: bad arguments");
    if (kind == G16__GPU_NTT_KIND_COUNT)
        cnt = ntt_plan_h(&d->tb, (gfr *)x, (gfr *)b, (gfr *)c, L);
    else {
        gfr *xs[1] = {(gfr *)x};
        cnt = ntt_plan_transform(&d->tb, (uint32_t)kind, xs, 1, L);
    }
    for (; made <= cnt; made++)
        G16_CU(cudaEventCreate(&ev[made]));
    G16_CU(cudaEventRecord(ev[0], d->g->stream));
    for (uint32_t q = 0; q < cnt; q++) {
        st = run_launches(d, &L[q], 1, err);
        if (st != G16_OK)
            goto cleanup;
        G16_CU(cudaEventRecord(ev[q + 1], d->g->stream));
    }
    G16_CU(cudaEventSynchronize(ev[cnt]));
    for (uint32_t q = 0; q < cnt && q < cap; q++) {
        float f = 0;
        G16_CU(cudaEventElapsedTime(&f, ev[q], ev[q + 1]));
        ms[q] = f;
        const ntt_pass *p = &L[q].p;
        static const char *kn[3] = {"dif", "dit", "dif+dit"};
        if (L[q].type == G16_LAUNCH_PASS)
            snprintf(what[q], 64, "pass %s%s s=%u lo_bit=%u G=%u blocks=%u vec=%u%s", kn[p->kind],
                     p->inverse ? " inv" : "", p->s, p->lo_bit, 1u << p->log_g, L[q].blocks, L[q].nvec,
                     p->abc ? " +abc" : "");
        else
            snprintf(what[q], 64, "bitrev blocks=%u vec=%u%s", L[q].blocks, L[q].nvec,
                     p->store.mode ? " +scale" : "");
    }
    *count = cnt;
cleanup:
    for (uint32_t q = 0; q < made; q++)
        cudaEventDestroy(ev[q]);
    return st;
}
