/* A·w, B·w, C·w on the device (see gpu.h, g16__gpu_spmv): one thread per row over the packed CSR
 * words of r1cs.h. */
#include "gpu/field.cuh"
#include "gpu/gpu_internal.cuh"

#define SPMV_THREADS 256

/* The packed entry's fields (r1cs.h: G16__W_COL, G16__W_MINUS, G16__W_ID), restated for this layer. */
#define SPMV_COL 0x3FFFFFFFu
#define SPMV_MINUS 0x40000000u
#define SPMV_ID 0x80000000u

/* Row i's dot product as the CPU's row_dot (r1cs/eval.c): ±1 entries cost an add or a sub, an
 * entry with a coefficient id a product; the sum is reduced at every step, so the result is the
 * canonical value, the same bytes as the CPU's whatever the order. Adjacent threads take adjacent
 * rows, so a warp's word reads fall in a few lines; the w[col] reads are gathers. */
template <typename RP>
__global__ static void __launch_bounds__(SPMV_THREADS)
    k_spmv(gfr *out, uint64_t n_out, uint64_t rows, const RP *rp, const uint32_t *words, const gfr *coeffs, const gfr *w)
{
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= n_out)
        return;
    gfr acc;
    for (int j = 0; j < 8; j++)
        acc.l[j] = 0;
    if (i < rows) {
        for (uint64_t k = rp[i], end = rp[i + 1]; k < end;) {
            uint32_t x = words[k++];
            gfr v = w[x & SPMV_COL];
            if (!(x & (SPMV_MINUS | SPMV_ID))) {
                gfr_add(&acc, &acc, &v);
            } else if (x & SPMV_MINUS) {
                gfr_sub(&acc, &acc, &v);
            } else {
                gfr c = coeffs[words[k++]], t;
                gfr_mul(&t, &v, &c);
                gfr_add(&acc, &acc, &t);
            }
        }
    }
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
        return g16__error(err, G16_ERR_ARG, "gpu spmv: %llu rows is too many for one launch", (unsigned long long)n_out);
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
