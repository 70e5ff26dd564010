/*
 * The fake GPU: every entry point of src/gpu/gpu.h and src/gpu/msm_gpu.h (the ones the .cu files
 * define) on host memory, with the CPU layers as the "kernels". Test executables link it in place
 * of the CUDA backend (the library g16_fakegpu, CMakeLists.txt), so that the GPU prover's host
 * code (src/groth16/prove_gpu.c and the GPU workers of prove.c: memory plans, residency and
 * streaming decisions, chunks and pieces, the H step's variants, prefetches, early witness MSMs,
 * several workers and devices) runs in CI on a machine without a GPU, under the sanitizers too.
 *
 * What it models, and why:
 *  - Devices: G16_FAKE_GPUS of them (default 1, at most 8), each a card of G16_FAKE_GPU_MEM bytes
 *    (K/M/G suffix; default 16G) whose use is counted per device across contexts;
 *    G16_GPU_MEM_LIMIT acts as on the real backend. Buffers are host memory (so AddressSanitizer
 *    sees overruns), filled with 0xA5 when allocated (a read before any write gives wrong field
 *    values, hence wrong proofs). Each MSM handle's scratch is counted, not allocated, at
 *    g16__gpu_msm_scratch_bytes_opts for the run's options (the bound the prover plans with),
 *    kept until it is released.
 *  - Pointers: every device range an entry point reads or writes must lie in one live buffer of
 *    the context's device; anything else (a host pointer, a freed buffer, past the end, another
 *    device's buffer) is reported on stderr and aborts the test: a harness, not the library.
 *  - Streams: the main stream runs at once. Copies queued by g16__gpu_upload_side_nowait are held
 *    back until the caller orders them (an event recorded after them and synchronized, or
 *    g16__gpu_sync / g16__gpu_free / g16__gpu_close / a waiting side upload) -- the latest moment
 *    the real device may run them: main-stream work that touches a range with a copy still held
 *    back is reported as a race and aborts, and a host buffer changed before the copy is ordered
 *    gives wrong data.
 *  - Scratch outputs: the b and c vectors that the H step leaves as scratch are overwritten with
 *    0xA5, so a caller that reads them gets wrong proofs.
 *  - Failures: g16__fake_gpu_fail_at(k) (or G16_FAKE_GPU_FAIL=k) makes the k-th fallible call
 *    after it fail with G16_ERR_DEVICE, as a CUDA error would, and g16__fake_gpu_fail_alloc_at(k)
 *    the k-th allocation with G16_ERR_NOMEM; the rest of the run works, or, after
 *    g16__fake_gpu_sticky(1), every later call fails as after a kernel fault.
 * Not modelled: timing, concurrency between streams (all work is done in call order), kernels'
 * own bugs (tests/test_gpu_*.c check those on a device and in the host simulations).
 */
#ifndef G16_TESTS_FAKEGPU_H
#define G16_TESTS_FAKEGPU_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The k-th fallible call counted from now fails (k = 0: none). Resets the call count and a sticky
 * failure. */
void g16__fake_gpu_fail_at(uint64_t k);
/* on = 1: an injected failure is sticky, as a CUDA kernel fault is: every later fallible call
 * fails too (G16_ERR_DEVICE, cudaErrorIllegalAddress), until the next g16__fake_gpu_fail_at. */
void g16__fake_gpu_sticky(int on);
/* The k-th allocation (device, page-locked host, MSM scratch) counted from now is refused with
 * G16_ERR_NOMEM, as a full card would refuse it (k = 0: none). Resets the allocation count. */
void g16__fake_gpu_fail_alloc_at(uint64_t k);
/* Every device allocation whose name (g16__gpu_alloc's `what`) begins with `prefix` is refused with
 * G16_ERR_NOMEM until the next call (NULL: none; the string must stay valid until then). */
void g16__fake_gpu_fail_alloc_named(const char *prefix);
/* Allocations since the last g16__fake_gpu_fail_alloc_at (or the start). */
uint64_t g16__fake_gpu_allocs(void);
/* Contexts opened on device dev since the start (which cards a prover's workers took). */
unsigned g16__fake_gpu_opens(int dev);
/* Fallible calls since the last g16__fake_gpu_fail_at (or the start). */
uint64_t g16__fake_gpu_calls(void);
/* Side-stream copies held back (queued by g16__gpu_upload_side_nowait, not yet ordered by a wait),
 * over all contexts: each still reads its host buffer when it runs. */
size_t g16__fake_gpu_held(void);
/* Live device bytes (buffers and counted scratch) on device dev. */
size_t g16__fake_gpu_used(int dev);
/* Live objects of every kind: device buffers, scratch counts, page-locked host buffers and
 * registrations, contexts, events, NTT domains, MSM handles, compactors. 0 when everything was
 * given back. */
size_t g16__fake_gpu_live(void);
/* One line per live object (kind, name, bytes, device) on f. */
void g16__fake_gpu_dump(FILE *f);
/* Highest device use seen on dev since the start or the last g16__fake_gpu_peak_reset (which sets
 * it to the current use). */
size_t g16__fake_gpu_peak(int dev);
void g16__fake_gpu_peak_reset(int dev);

#endif /* G16_TESTS_FAKEGPU_H */
