/* Field kernels: element-wise Fr / Fp operations (the tests' check against the CPU) and the
 * multiplication-throughput benchmark (see gpu.h). */
#include <stdlib.h>
#include <string.h>

#include "gpu/field.cuh"
#include "gpu/field_f64.cuh"
#include "gpu/field_inv.cuh"
#include "gpu/gpu_internal.cuh"

#define OP_THREADS 256

__global__ static void fr_op_kernel(int op, gfr *out, const gfr *a, const gfr *b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    gfr x = a[i], y = b[i], r;
    switch (op) {
    case G16__GPU_OP_MUL: gfr_mul(&r, &x, &y); break;
    case G16__GPU_OP_SQR: gfr_sqr(&r, &x); break;
    case G16__GPU_OP_ADD: gfr_add(&r, &x, &y); break;
    case G16__GPU_OP_SUB: gfr_sub(&r, &x, &y); break;
    case G16__GPU_OP_INV: gfr_inv_var(&r, &x); break;
    case G16__GPU_OP_MUL_F64: {
        gfr64 u, v;
        gfr64_from_gfr(&u, &x);
        gfr64_from_gfr(&v, &y);
        gfr64_mul(&u, &u, &v);
        gfr_from_gfr64(&r, &u);
        break;
    }
    default: gfr_neg(&r, &x); break;
    }
    out[i] = r;
}

__global__ static void fp_op_kernel(int op, gfp *out, const gfp *a, const gfp *b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    gfp x = a[i], y = b[i], r;
    switch (op) {
    case G16__GPU_OP_MUL: gfp_mul(&r, &x, &y); break;
    case G16__GPU_OP_SQR: gfp_sqr_cols(&r, &x); break; /* gfp_sqr is MUL's product */
    case G16__GPU_OP_ADD: gfp_add(&r, &x, &y); break;
    case G16__GPU_OP_SUB: gfp_sub(&r, &x, &y); break;
    case G16__GPU_OP_INV: gfp_inv_var(&r, &x); break;
    case G16__GPU_OP_MUL_F64: {
        gfp64 u, v;
        gfp64_from_gfp(&u, &x);
        gfp64_from_gfp(&v, &y);
        gfp64_mul(&u, &u, &v);
        gfp_from_gfp64(&r, &u);
        break;
    }
    default: gfp_neg(&r, &x); break;
    }
    out[i] = r;
}

/* Copies a and b (b = a when NULL) to the device, runs the op, copies the result to out. */
static g16_status elementwise(g16__gpu *g, int fp, g16__gpu_op op, void *out, const void *a, const void *b,
                              size_t n, g16_error *err)
{
    g16_status st = G16_OK;
    size_t esz = fp ? sizeof(gfp) : sizeof(gfr), bytes = n * esz;
    void *d = NULL;
    unsigned blocks = (unsigned)((n + OP_THREADS - 1) / OP_THREADS);
    g16__gpu_plan plan;
    if (!g || !out || !a || (unsigned)op >= G16__GPU_OP_COUNT)
        return g16__error(err, G16_ERR_ARG, "gpu field op: NULL argument or bad op %d", (int)op);
    if (n == 0)
        return G16_OK;
    if (n > ((size_t)1 << 31) * OP_THREADS / 2)
        return g16__error(err, G16_ERR_ARG, "gpu field op: %zu elements is too many for one call", n);
    g16__gpu_plan_init(&plan);
    g16__gpu_plan_add(&plan, "operands and result", 3 * bytes);
    st = g16__gpu_plan_check(g, &plan, err);
    if (st != G16_OK)
        goto cleanup;
    st = g16__gpu_alloc(g, &d, 3 * bytes, "field operands", err);
    if (st != G16_OK)
        goto cleanup;
    {
        char *da = (char *)d, *db = da + bytes, *dr = db + bytes;
        G16_CU(cudaMemcpyAsync(da, a, bytes, cudaMemcpyHostToDevice, g->stream));
        G16_CU(cudaMemcpyAsync(db, b ? b : a, bytes, cudaMemcpyHostToDevice, g->stream));
        if (fp)
            G16_CU_LAUNCH(fp_op_kernel<<<blocks, OP_THREADS, 0, g->stream>>>(op, (gfp *)dr, (const gfp *)da,
                                                                              (const gfp *)db, n));
        else
            G16_CU_LAUNCH(fr_op_kernel<<<blocks, OP_THREADS, 0, g->stream>>>(op, (gfr *)dr, (const gfr *)da,
                                                                              (const gfr *)db, n));
        G16_CU(cudaMemcpyAsync(out, dr, bytes, cudaMemcpyDeviceToHost, g->stream));
        G16_CU(cudaStreamSynchronize(g->stream));
    }
cleanup:
    g16__gpu_free(g, d);
    return st;
}

extern "C" g16_status g16__gpu_fr_op(g16__gpu *g, g16__gpu_op op, g16_fr *out, const g16_fr *a, const g16_fr *b,
                                     size_t n, g16_error *err)
{
    return elementwise(g, 0, op, out, a, b, n, err);
}

extern "C" g16_status g16__gpu_fp_op(g16__gpu *g, g16__gpu_op op, g16_fp *out, const g16_fp *a, const g16_fp *b,
                                     size_t n, g16_error *err)
{
    return elementwise(g, 1, op, out, a, b, n, err);
}

/* ---------------------------------------------------------------- the witness check */

__global__ static void __launch_bounds__(OP_THREADS) k_check_products(const gfr *a, const gfr *b, const gfr *c,
                                                                      uint64_t rows, unsigned long long *first_bad)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    uint32_t d = 0;
    if (i < rows) {
        gfr ab;
        gfr_mul(&ab, &a[i], &b[i]);
        for (int j = 0; j < 8; j++)
            d |= ab.l[j] ^ c[i].l[j];
    }
    /* the warp's lowest failing row (lanes are consecutive rows): one atomic per warp */
    unsigned bad = __ballot_sync(0xffffffffu, d != 0);
    if (bad && (threadIdx.x & 31) == (unsigned)(__ffs(bad) - 1))
        atomicMin(first_bad, (unsigned long long)i);
}

extern "C" g16_status g16__gpu_check_products(g16__gpu *g, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                              uint64_t rows, uint64_t *first_bad, g16_error *err)
{
    g16_status st = G16_OK;
    if (!g || !a || !b || !c || !first_bad)
        return g16__error(err, G16_ERR_ARG, "gpu check: NULL argument");
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaMemsetAsync(first_bad, 0xff, sizeof *first_bad, g->stream));
    if (rows > 0)
        G16_CU_LAUNCH(k_check_products<<<(unsigned)((rows + OP_THREADS - 1) / OP_THREADS), OP_THREADS, 0,
                                         g->stream>>>((const gfr *)a, (const gfr *)b, (const gfr *)c, rows,
                                                      (unsigned long long *)first_bad));
cleanup:
    return st;
}

/* ---------------------------------------------------------------- throughput */

#define BENCH_THREADS 256
#define BENCH_BLOCKS_PER_SM 4

/* Each thread: two independent chains x0 <- x0·y, x1 <- x1·y (MODE 0: Fr, 1: Fr through the
 * generic reduction), or x <- x^(-1) + y (MODE 2). x holds 2 elements per thread, y one. One
 * instantiation per MODE, so that each kernel has the registers of its own operation only (with
 * the three in one kernel, ptxas gave the products the inversion's 88 registers: 16 warps per SM
 * instead of 32, and ncu saw an eligible warp in only 46% of the cycles). */
template <int MODE>
__global__ static void __launch_bounds__(BENCH_THREADS) fr_bench_kernel(gfr *x, const gfr *y, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    gfr a = x[2 * i], b = x[2 * i + 1], w = y[i];
    for (unsigned k = 0; k < iters; k++) {
        if (MODE == 2) {
            gfr_inv_var(&a, &a);
            gfr_add(&a, &a, &w);
            gfr_inv_var(&b, &b);
            gfr_add(&b, &b, &w);
        } else if (MODE == 1) {
            gfr_mul_generic(&a, &a, &w);
            gfr_mul_generic(&b, &b, &w);
        } else {
            gfr_mul(&a, &a, &w);
            gfr_mul(&b, &b, &w);
        }
    }
    x[2 * i] = a;
    x[2 * i + 1] = b;
}

template <int INV>
__global__ static void __launch_bounds__(BENCH_THREADS) fp_bench_kernel(gfp *x, const gfp *y, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    gfp a = x[2 * i], b = x[2 * i + 1], w = y[i];
    for (unsigned k = 0; k < iters; k++) {
        if (INV) {
            gfp_inv_var(&a, &a);
            gfp_add(&a, &a, &w);
            gfp_inv_var(&b, &b);
            gfp_add(&b, &b, &w);
        } else {
            gfp_mul(&a, &a, &w);
            gfp_mul(&b, &b, &w);
        }
    }
    x[2 * i] = a;
    x[2 * i + 1] = b;
}

/* The FP64-pipe products (gpu/field_f64.cuh) in the same chains: converted to the f64 form before
 * the loop and back after, so that x holds ordinary reduced gfp / gfr values. The Fr conversions
 * also change the Montgomery radix (2^256 <-> 2^260), so the chain's result is exactly the gfr
 * chain's x·y^iters and the CPU replay is the ordinary product chain. */
template <int MINB>
__global__ static void __launch_bounds__(BENCH_THREADS, MINB) fp64_bench_kernel(gfp *x, const gfp *y, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    gfp u = x[2 * i], v = x[2 * i + 1], t = y[i];
    gfp64 a, b, w;
    gfp64_from_gfp(&a, &u);
    gfp64_from_gfp(&b, &v);
    gfp64_from_gfp(&w, &t);
    for (unsigned k = 0; k < iters; k++) {
        gfp64_mul(&a, &a, &w);
        gfp64_mul(&b, &b, &w);
    }
    gfp_from_gfp64(&u, &a);
    gfp_from_gfp64(&v, &b);
    x[2 * i] = u;
    x[2 * i + 1] = v;
}

/* Mixed pipes: chain a through the IMAD product, chain b through the FP64-pipe product, in the
 * same thread (the two products use different pipes: does the SM run both at once?) */
template <int MINB>
__global__ static void __launch_bounds__(BENCH_THREADS, MINB) fpmix_bench_kernel(gfp *x, const gfp *y, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    gfp a = x[2 * i], v = x[2 * i + 1], w = y[i];
    gfp64 b, w64;
    gfp64_from_gfp(&b, &v);
    gfp64_from_gfp(&w64, &w);
    for (unsigned k = 0; k < iters; k++) {
        gfp_mul(&a, &a, &w);
        gfp64_mul(&b, &b, &w64);
    }
    gfp_from_gfp64(&v, &b);
    x[2 * i] = a;
    x[2 * i + 1] = v;
}

template <int MINB>
__global__ static void __launch_bounds__(BENCH_THREADS, MINB) frmix_bench_kernel(gfr *x, const gfr *y, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    gfr a = x[2 * i], v = x[2 * i + 1], w = y[i];
    gfr64 b, w64;
    gfr64_from_gfr(&b, &v);
    gfr64_from_gfr(&w64, &w);
    for (unsigned k = 0; k < iters; k++) {
        gfr_mul(&a, &a, &w);
        gfr64_mul(&b, &b, &w64);
    }
    gfr_from_gfr64(&v, &b);
    x[2 * i] = a;
    x[2 * i + 1] = v;
}

template <int MINB>
__global__ static void __launch_bounds__(BENCH_THREADS, MINB) fr64_bench_kernel(gfr *x, const gfr *y, unsigned iters)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    gfr u = x[2 * i], v = x[2 * i + 1], t = y[i];
    gfr64 a, b, w;
    gfr64_from_gfr(&a, &u);
    gfr64_from_gfr(&b, &v);
    gfr64_from_gfr(&w, &t);
    for (unsigned k = 0; k < iters; k++) {
        gfr64_mul(&a, &a, &w);
        gfr64_mul(&b, &b, &w);
    }
    gfr_from_gfr64(&u, &a);
    gfr_from_gfr64(&v, &b);
    x[2 * i] = u;
    x[2 * i + 1] = v;
}

/* Reduced pseudo-random elements: random limbs with the top limb masked below the modulus's. */
static void fill_elems(uint32_t *w, size_t count, int limbs, uint32_t top_mask, uint64_t *state)
{
    for (size_t i = 0; i < count * (size_t)limbs; i++) {
        uint64_t s = *state;
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        *state = s;
        w[i] = (uint32_t)(s >> 16);
        if (i % (size_t)limbs == (size_t)limbs - 1)
            w[i] &= top_mask;
    }
}

extern "C" g16_status g16__gpu_mul_bench(g16__gpu *g, int field, unsigned iters, double *per_s, uint32_t *check,
                                         g16_error *err)
{
    g16_status st = G16_OK;
    int fp = field == 1 || field == 4 || field == 5, inv = field == 3 || field == 4, limbs = fp ? 12 : 8, per_sm = 0;
    const void *kerns[7] = {(const void *)fr_bench_kernel<0>, (const void *)fp_bench_kernel<0>,
                            (const void *)fr_bench_kernel<1>, (const void *)fr_bench_kernel<2>,
                            (const void *)fp_bench_kernel<1>, (const void *)fp64_bench_kernel<1>,
                            (const void *)fr64_bench_kernel<1>};
    const void *kern = field >= 0 && field < 7 ? kerns[field] : NULL;
    {
        /* G16_BENCH_F64_MINB = 2..4: the f64 kernels compiled for that many resident blocks per SM
         * (fewer registers; occupancy experiments) */
        const char *e = getenv("G16_BENCH_F64_MINB");
        int mb = e ? atoi(e) : 1;
        const void *k5[4] = {(const void *)fp64_bench_kernel<1>, (const void *)fp64_bench_kernel<2>,
                             (const void *)fp64_bench_kernel<3>, (const void *)fp64_bench_kernel<4>};
        const void *k6[4] = {(const void *)fr64_bench_kernel<1>, (const void *)fr64_bench_kernel<2>,
                             (const void *)fr64_bench_kernel<3>, (const void *)fr64_bench_kernel<4>};
        if (mb >= 1 && mb <= 4 && field == 5)
            kern = k5[mb - 1];
        if (mb >= 1 && mb <= 4 && field == 6)
            kern = k6[mb - 1];
        /* G16_BENCH_MIX=1: fields 5 and 6 run one IMAD chain and one FP64 chain per thread */
        e = getenv("G16_BENCH_MIX");
        if (e && atoi(e) == 1 && field == 5)
            kern = mb == 2 ? (const void *)fpmix_bench_kernel<2> : (const void *)fpmix_bench_kernel<1>;
        if (e && atoi(e) == 1 && field == 6)
            kern = mb == 2 ? (const void *)frmix_bench_kernel<2> : (const void *)frmix_bench_kernel<1>;
    }
    size_t threads = 0, xb = 0, yb = 0;
    uint32_t *hx = NULL, *hy = NULL, *hr = NULL;
    void *d = NULL;
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    float ms = 0;
    *per_s = 0;
    if (check)
        *check = 0;
    if (!kern)
        return g16__error(err, G16_ERR_ARG,
                          "gpu mul bench: field %d (0 Fr, 1 Fp, 2 Fr generic, 3 Fr inversion, 4 Fp inversion, "
                          "5 Fp FP64 product, 6 Fr FP64 product)",
                          field);
    /* one full wave: as many blocks as fit on every SM at once (at most BENCH_BLOCKS_PER_SM), so
     * that no second, partial wave runs with idle SMs */
    G16_CU(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, BENCH_THREADS, 0));
    if (per_sm < 1 || per_sm > BENCH_BLOCKS_PER_SM)
        per_sm = per_sm < 1 ? 1 : BENCH_BLOCKS_PER_SM;
    threads = (size_t)g->info.sm_count * (size_t)per_sm * BENCH_THREADS;
    xb = 2 * threads * limbs * 4;
    yb = threads * limbs * 4;
    hx = (uint32_t *)malloc(xb);
    hy = (uint32_t *)malloc(yb);
    hr = (uint32_t *)malloc(xb);
    if (!hx || !hy || !hr) {
        st = g16__error(err, G16_ERR_NOMEM, "gpu mul bench: host buffers");
        goto cleanup;
    }
    fill_elems(hx, 2 * threads, limbs, fp ? 0x0fffffffu : 0x3fffffffu, &state);
    fill_elems(hy, threads, limbs, fp ? 0x0fffffffu : 0x3fffffffu, &state);
    st = g16__gpu_alloc(g, &d, xb + yb, "benchmark operands", err);
    if (st != G16_OK)
        goto cleanup;
    G16_CU(cudaMemcpyAsync(d, hx, xb, cudaMemcpyHostToDevice, g->stream));
    G16_CU(cudaMemcpyAsync((char *)d + xb, hy, yb, cudaMemcpyHostToDevice, g->stream));
    G16_CU(cudaEventRecord(g->ev_start, g->stream));
    {
        unsigned blocks = (unsigned)(threads / BENCH_THREADS);
        void *dy = (char *)d + xb;
        void *args[3] = {&d, &dy, &iters};
        G16_CU(cudaLaunchKernel(kern, dim3(blocks), dim3(BENCH_THREADS), args, 0, g->stream));
    }
    G16_CU(cudaEventRecord(g->ev_stop, g->stream));
    G16_CU(cudaMemcpyAsync(hr, d, xb, cudaMemcpyDeviceToHost, g->stream));
    G16_CU(cudaStreamSynchronize(g->stream));
    G16_CU(cudaEventElapsedTime(&ms, g->ev_start, g->ev_stop));
    {
        size_t probe[3] = {0, threads / 2 + 1, threads - 1};
        for (int q = 0; q < 3; q++)
            for (int c = 0; c < 2; c++)
                if (!g16__gpu_replay_mul_chain(fp, inv, hx, hy, hr, probe[q], c, iters)) {
                    st = g16__error(err, G16_ERR_INTERNAL,
                                    "gpu mul bench: thread %zu chain %d differs from the CPU after %u steps",
                                    probe[q], c, iters);
                    goto cleanup;
                }
    }
    *per_s = ms > 0 ? (double)threads * 2.0 * iters / (ms * 1e-3) : 0;
    if (check) {
        uint32_t x = 0;
        for (size_t i = 0; i < xb / 4; i++)
            x ^= hr[i];
        *check = x;
    }
cleanup:
    g16__gpu_free(g, d);
    free(hx);
    free(hy);
    free(hr);
    return st;
}
