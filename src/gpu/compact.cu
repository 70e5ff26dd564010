/* Density compaction on the device (see gpu.h): per-word bit counts, CUB's exclusive scan of the
 * counts, then one thread per element writes its value at (word offset + set bits below it). */
#include <stdlib.h>

#include <cub/cub.cuh>

#include "gpu/gpu_internal.cuh"

#define TPB 256

struct g16__gpu_compactor {
    g16__gpu *g;
    size_t max_n;
    uint32_t *cnt;   /* per bitmap word: its set bits below n */
    uint32_t *off;   /* per bitmap word: exclusive prefix sum of cnt; then the total after the last */
    void *tmp;       /* CUB scan scratch */
    size_t tmp_bytes;
    uint32_t *total; /* page-locked: the count read back */
};

static __host__ __device__ uint64_t words_for(uint64_t n) { return (n + 63) / 64; }

/* The bits of word w that stand for elements below n. */
static __device__ __forceinline__ uint64_t word_bits(const uint64_t *bits, uint64_t w, uint64_t n)
{
    uint64_t m = bits[w];
    uint64_t rest = n - w * 64;
    return rest >= 64 ? m : m & ((1ULL << rest) - 1);
}

__global__ static void __launch_bounds__(TPB) k_count(const uint64_t *bits, uint64_t n, uint32_t *cnt)
{
    uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (w < words_for(n))
        cnt[w] = (uint32_t)__popcll(word_bits(bits, w, n));
}

__global__ static void k_total(const uint32_t *cnt, uint32_t *off, uint64_t words)
{
    off[words] = off[words - 1] + cnt[words - 1];
}

/* One thread per element; a Fr value is two 16-byte loads and stores (vectors are 32-byte aligned). */
__global__ static void __launch_bounds__(TPB) k_scatter(const uint4 *src, const uint64_t *bits, const uint32_t *off,
                                                        uint64_t n, uint4 *out)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t w = i >> 6, b = i & 63, m = bits[w];
    if (!((m >> b) & 1))
        return;
    uint64_t pos = off[w] + (uint64_t)__popcll(m & ((1ULL << b) - 1));
    uint4 lo = src[2 * i], hi = src[2 * i + 1];
    out[2 * pos] = lo;
    out[2 * pos + 1] = hi;
}

extern "C" void g16__gpu_compactor_destroy(g16__gpu_compactor *c)
{
    if (!c)
        return;
    g16__gpu_free(c->g, c->cnt);
    g16__gpu_free(c->g, c->off);
    g16__gpu_free(c->g, c->tmp);
    g16__gpu_host_free(c->total);
    free(c);
}

extern "C" size_t g16__gpu_compactor_bytes(size_t max_n)
{
    size_t words = (size_t)words_for(max_n) + 1, tmp = 0;
    /* CUB's scratch for the scan, as the query answers it (a few KiB); 1 MiB when it cannot say */
    if (cub::DeviceScan::ExclusiveSum(NULL, tmp, (const uint32_t *)NULL, (uint32_t *)NULL, (int)words) !=
        cudaSuccess) {
        (void)cudaGetLastError();
        tmp = (size_t)1 << 20;
    }
    return 2 * words * sizeof(uint32_t) + tmp;
}

extern "C" g16_status g16__gpu_compactor_create(g16__gpu_compactor **out, g16__gpu *g, size_t max_n, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_compactor *c = NULL;
    size_t words = (size_t)words_for(max_n) + 1;
    *out = NULL;
    if (max_n >= ((uint64_t)1 << 32) - 64)
        return g16__error(err, G16_ERR_UNSUPPORTED, "gpu compaction: %zu elements (at most 2^32 - 65)", max_n);
    if (!(c = (g16__gpu_compactor *)calloc(1, sizeof *c)))
        return g16__error(err, G16_ERR_NOMEM, "gpu compaction: context");
    c->g = g;
    c->max_n = max_n;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cub::DeviceScan::ExclusiveSum(NULL, c->tmp_bytes, (const uint32_t *)NULL, (uint32_t *)NULL, (int)words,
                                         g16__gpu_stream(g)));
    if ((st = g16__gpu_alloc(g, (void **)&c->cnt, words * sizeof(uint32_t), "compaction counts", err)) != G16_OK ||
        (st = g16__gpu_alloc(g, (void **)&c->off, words * sizeof(uint32_t), "compaction offsets", err)) != G16_OK ||
        (st = g16__gpu_alloc(g, &c->tmp, c->tmp_bytes ? c->tmp_bytes : 1, "compaction scan scratch", err)) !=
            G16_OK ||
        (st = g16__gpu_host_alloc((void **)&c->total, sizeof *c->total, err)) != G16_OK)
        goto cleanup;
    *out = c;
    c = NULL;
cleanup:
    g16__gpu_compactor_destroy(c);
    return st;
}

extern "C" g16_status g16__gpu_compact(g16__gpu_compactor *c, g16_fr *out, const g16_fr *src, size_t n,
                                       const uint64_t *bits, size_t *count, g16_error *err)
{
    g16_status st = G16_OK;
    cudaStream_t s = g16__gpu_stream(c->g);
    uint64_t words = words_for(n);
    *count = 0;
    if (n > c->max_n)
        return g16__error(err, G16_ERR_SIZE_MISMATCH, "gpu compaction: %zu elements for a compactor of %zu", n,
                          c->max_n);
    if (n == 0)
        return G16_OK;
    G16_CU(cudaSetDevice(c->g->device));
    G16_CU_LAUNCH(k_count<<<(unsigned)((words + TPB - 1) / TPB), TPB, 0, s>>>(bits, n, c->cnt));
    {
        size_t bytes = c->tmp_bytes;
        G16_CU(cub::DeviceScan::ExclusiveSum(c->tmp, bytes, c->cnt, c->off, (int)words, s));
    }
    G16_CU_LAUNCH(k_total<<<1, 1, 0, s>>>(c->cnt, c->off, words));
    G16_CU_LAUNCH(k_scatter<<<(unsigned)((n + TPB - 1) / TPB), TPB, 0, s>>>((const uint4 *)src, bits, c->off, n,
                                                                          (uint4 *)out));
    G16_CU(cudaMemcpyAsync(c->total, c->off + words, sizeof *c->total, cudaMemcpyDeviceToHost, s));
    G16_CU(cudaStreamSynchronize(s));
    *count = *c->total;
cleanup:
    return st;
}
