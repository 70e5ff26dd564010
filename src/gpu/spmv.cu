/* A·w, B·w, C·w on the device (see gpu.h, g16__gpu_spmv): one thread per row over the packed CSR
 * words of r1cs.h, long rows by their whole warp. */
#include "gpu/field.cuh"
#include "gpu/gpu_internal.cuh"

#define SPMV_THREADS 256

/* The packed entry's fields (r1cs.h: G16__W_COL, G16__W_MINUS, G16__W_ID), restated for this layer. */
#define SPMV_COL 0x3FFFFFFFu
#define SPMV_MINUS 0x40000000u
#define SPMV_ID 0x80000000u

/* Rows of more than this many words are summed by their whole warp: the bits demo's packing rows
 * (255 and 64 entries with coefficient ids, two per 449 rows) held their warps for ~300 serial
 * products while the other lanes' rows took 1-3 steps (83 ms per 2^27 circuit on the H200). */
#define SPMV_LONG 16

/* One entry's term added into acc: ±1 entries cost an add or a sub, an entry with a coefficient id
 * a product. Each step reduces, so the result is the canonical value whatever the order. */
static __device__ __forceinline__ void spmv_term(gfr *acc, uint32_t x, const uint32_t *id_word, const gfr *coeffs,
                                                 const gfr *w)
{
    gfr v = w[x & SPMV_COL];
    if (!(x & (SPMV_MINUS | SPMV_ID))) {
        gfr_add(acc, acc, &v);
    } else if (x & SPMV_MINUS) {
        gfr_sub(acc, acc, &v);
    } else {
        gfr c = coeffs[*id_word], t;
        gfr_mul(&t, &v, &c);
        gfr_add(acc, acc, &t);
    }
}

/* Row i of a thread's own, as the CPU's row_dot (r1cs/eval.c), the rows of at most SPMV_LONG words;
 * then each longer row of the warp by all 32 lanes: lane j takes the words start + j, + j + 32, ...
 * that begin an entry and their terms are summed over the warp. A word begins an entry when it is
 * the row's first or the word before it does not have the id kind (an id word is below 2^31, so it
 * never has that bit: that is the precondition on the ids). Adjacent threads take adjacent rows,
 * so a warp's word reads fall in a few lines; the w[col] reads are gathers. */
template <typename RP>
__global__ static void __launch_bounds__(SPMV_THREADS)
    k_spmv(gfr *out, uint64_t n_out, uint64_t rows, const RP *rp, const uint32_t *words, const gfr *coeffs,
           const gfr *w)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    unsigned lane = threadIdx.x & 31;
    gfr acc;
    for (int j = 0; j < 8; j++)
        acc.l[j] = 0;
    uint64_t start = 0, end = 0;
    if (i < rows) {
        start = rp[i];
        end = rp[i + 1];
    }
    if (end - start <= SPMV_LONG) {
        for (uint64_t k = start; k < end;) {
            uint32_t x = words[k++];
            spmv_term(&acc, x, &words[k], coeffs, w);
            k += x >> 31; /* past the id word */
        }
    }
    /* every lane of the warp is here (blocks are whole warps; no lane returned) */
    for (unsigned long_rows = __ballot_sync(0xffffffffu, end - start > SPMV_LONG); long_rows;
         long_rows &= long_rows - 1) {
        int src = __ffs(long_rows) - 1;
        uint64_t s0 = __shfl_sync(0xffffffffu, start, src), e0 = __shfl_sync(0xffffffffu, end, src);
        gfr part;
        for (int j = 0; j < 8; j++)
            part.l[j] = 0;
        for (uint64_t k = s0 + lane; k < e0; k += 32) {
            uint32_t x = words[k];
            if (k == s0 || !(words[k - 1] & SPMV_ID))
                spmv_term(&part, x, &words[k + 1], coeffs, w);
        }
        for (int off = 16; off > 0; off >>= 1) {
            gfr o;
            for (int j = 0; j < 8; j++)
                o.l[j] = __shfl_down_sync(0xffffffffu, part.l[j], off);
            gfr_add(&part, &part, &o);
        }
        for (int j = 0; j < 8; j++)
            part.l[j] = __shfl_sync(0xffffffffu, part.l[j], 0);
        if ((int)lane == src)
            acc = part;
    }
    if (i < n_out)
        out[i] = acc;
}

extern "C" g16_status g16__gpu_spmv(g16__gpu *g, g16_fr *out, uint64_t n_out, uint64_t rows, const uint32_t *rp32,
                                    const uint64_t *rp64, const uint32_t *words, const g16_fr *coeffs,
                                    const g16_fr *w, g16_error *err)
{
    g16_status st = G16_OK;
    if (!g || !out || (!rp32 == !rp64) || rows > n_out || (rows && (!words || !w)))
        return g16__error(err, G16_ERR_ARG, "gpu spmv: NULL argument, both or neither row-pointer width, or %llu rows "
                                            "for %llu outputs",
                          (unsigned long long)rows, (unsigned long long)n_out);
    if (n_out > ((uint64_t)1 << 31) * SPMV_THREADS)
        return g16__error(err, G16_ERR_ARG, "gpu spmv: %llu rows is too many for one launch",
                          (unsigned long long)n_out);
    if (n_out == 0)
        return G16_OK;
    {
        unsigned blocks = (unsigned)((n_out + SPMV_THREADS - 1) / SPMV_THREADS);
        G16_CU(cudaSetDevice(g->device));
        if (rp32)
            G16_CU_LAUNCH(k_spmv<uint32_t><<<blocks, SPMV_THREADS, 0, g->stream>>>(
                (gfr *)out, n_out, rows, rp32, words, (const gfr *)coeffs, (const gfr *)w));
        else
            G16_CU_LAUNCH(k_spmv<uint64_t><<<blocks, SPMV_THREADS, 0, g->stream>>>(
                (gfr *)out, n_out, rows, rp64, words, (const gfr *)coeffs, (const gfr *)w));
    }
cleanup:
    return st;
}
