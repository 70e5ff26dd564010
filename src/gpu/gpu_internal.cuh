/*
 * Internal to the CUDA files of src/gpu: the context structure and the error-checking macros.
 *
 * Every CUDA runtime call goes through G16_CU, inside a function that has `g16_status st`,
 * `g16_error *err` and a `cleanup:` label: a failure records "call@file:line: cudaErrorName
 * (text)" (G16_ERR_DEVICE; G16_ERR_NO_DEVICE for a missing device or driver) and jumps to
 * cleanup. Kernel launches go through G16_CU_LAUNCH, which checks cudaGetLastError (launch
 * configuration errors); errors while a kernel runs appear at the next synchronization
 * (g16__gpu_sync, or the copies of the host-array functions), which are checked the same way.
 */
#ifndef G16_GPU_GPU_INTERNAL_CUH
#define G16_GPU_GPU_INTERNAL_CUH

#include <cuda_runtime.h>

#include "gpu/gpu.h"

extern "C" {
#include "util/error.h"
}

struct g16__gpu {
    int device;
    cudaStream_t stream;
    cudaEvent_t ev_start, ev_stop;
    cudaStream_t side;       /* copies that overlap the stream's kernels (g16__gpu_upload_side) */
    cudaEvent_t side_done;   /* recorded on side after each such copy */
    cudaMemPool_t pool;      /* the device's scratch pool (gpu.cu: shared by the device's contexts) */
    size_t mem_limit;        /* G16_GPU_MEM_LIMIT: the card's memory as this context sees it (0: all) */
    g16__gpu_info info;
};

/* Records a failed CUDA call in err (clearing CUDA's sticky last-error slot) and returns the status. */
g16_status g16__gpu_cuda_error(g16_error *err, cudaError_t code, const char *expr, const char *file, int line);

#define G16_CU(call)                                                                                      \
    do {                                                                                                  \
        cudaError_t g16_cu_e_ = (call);                                                                   \
        if (g16_cu_e_ != cudaSuccess) {                                                                   \
            st = g16__gpu_cuda_error(err, g16_cu_e_, #call, __FILE__, __LINE__);                          \
            goto cleanup;                                                                                 \
        }                                                                                                 \
    } while (0)

/* A kernel launch `kernel<<<grid, block, smem, stream>>>(args)` followed by the launch check. */
#define G16_CU_LAUNCH(...)                                                                                \
    do {                                                                                                  \
        __VA_ARGS__;                                                                                      \
        G16_CU(cudaGetLastError());                                                                       \
    } while (0)

/* Host checks with the CPU field (host_check.c: plain C, so that no CPU field header goes through
 * nvcc): 1 when chain c of benchmark thread i (x0: 2 inputs per thread, y0: 1, xr: the device's
 * results; 8 or 12 limbs per element) equals `iters` CPU steps x <- x·y (inv = 0) or
 * x <- x^(-1) + y (inv = 1). */
extern "C" int g16__gpu_replay_mul_chain(int fp, int inv, const uint32_t *x0, const uint32_t *y0, const uint32_t *xr,
                                         size_t i, int c, unsigned iters);

/* The context's stream (everything a module enqueues for a context goes there). */
static inline cudaStream_t g16__gpu_stream(const g16__gpu *g) { return g->stream; }
/* Its side stream (uploads that overlap the stream's work). */
static inline cudaStream_t g16__gpu_side_stream(const g16__gpu *g) { return g->side; }

#endif
