/* Devices, contexts, memory and errors of the CUDA backend (see gpu.h). */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_internal.cuh"
#include "util/bgfree.h"

#define G16_STR2(x) #x
#define G16_STR(x) G16_STR2(x)
#ifdef __CUDA_ARCH_LIST__
#define G16_ARCH_LIST G16_STR(__CUDA_ARCH_LIST__)
#else
#define G16_ARCH_LIST "?"
#endif

/* The part of a source path from "src/" on (build paths are absolute). */
static const char *short_path(const char *file)
{
    const char *p = strstr(file, "src/");
    return p ? p : file;
}

static int is_no_device(cudaError_t e)
{
    return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver || e == cudaErrorInvalidDevice ||
           e == cudaErrorDevicesUnavailable || e == cudaErrorSystemDriverMismatch || e == cudaErrorCompatNotSupportedOnDevice;
}

g16_status g16__gpu_cuda_error(g16_error *err, cudaError_t code, const char *expr, const char *file, int line)
{
    (void)cudaGetLastError(); /* clear the non-sticky error so that later checks see their own */
    g16_status st = is_no_device(code) ? G16_ERR_NO_DEVICE : G16_ERR_DEVICE;
    return g16__error(err, st, "gpu: %s@%s:%d: %s (%s)", expr, short_path(file), line, cudaGetErrorName(code),
                      cudaGetErrorString(code));
}

/* ---------------------------------------------------------------- scratch pools
 *
 * One stream-ordered memory pool per device, shared by the process's contexts on it (reference
 * counted): scratch freed by one MSM is taken by the next without a cudaFree / cudaMalloc pair.
 * cudaFree waits for the device and takes ~0.63 ms per GB on the H200 (20 ms for 32 GB); freeing
 * and reallocating the MSM scratch of each query cost ~25-50 ms per 2^25 proof (bench/RESULTS.md,
 * 2026-12-03, tenth session). The pool keeps what it was given (release threshold: all), so
 * g16__gpu_mem_info counts its idle bytes as free, and an allocation that fails gives the idle
 * bytes back to the driver (trim) and tries once more. Closing a context trims the pool; the last
 * context on the device destroys it. A device without memory pools gets plain cudaMalloc. */
#define POOL_DEVICES 64

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    cudaMemPool_t pool;
    int refs;
} pools[POOL_DEVICES];

/* g->pool := the device's pool, created by its first context. Where the device or driver has no
 * memory pools (cudaDevAttrMemoryPoolsSupported = 0, or the creation fails) g->pool stays NULL
 * and scratch buffers are plain cudaMalloc / cudaFree ones. */
static void pool_acquire(g16__gpu *g)
{
    int dev = g->device, supported = 0;
    g->pool = NULL;
    if (dev >= POOL_DEVICES || cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev) != cudaSuccess ||
        !supported) {
        (void)cudaGetLastError();
        return;
    }
    pthread_mutex_lock(&pool_mu);
    if (pools[dev].refs == 0) {
        cudaMemPoolProps props;
        uint64_t keep = UINT64_MAX;
        memset(&props, 0, sizeof props);
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = dev;
        if (cudaMemPoolCreate(&pools[dev].pool, &props) != cudaSuccess) {
            pools[dev].pool = NULL;
        } else if (cudaMemPoolSetAttribute(pools[dev].pool, cudaMemPoolAttrReleaseThreshold, &keep) != cudaSuccess) {
            (void)cudaMemPoolDestroy(pools[dev].pool);
            pools[dev].pool = NULL;
        }
        (void)cudaGetLastError();
    }
    if (pools[dev].pool) {
        pools[dev].refs++;
        g->pool = pools[dev].pool;
    }
    pthread_mutex_unlock(&pool_mu);
}

/* Gives the pool's idle memory back to the driver (frees already observed: the caller has
 * synchronized the streams that freed). */
static void pool_trim(g16__gpu *g)
{
    if (g->pool)
        (void)cudaMemPoolTrimTo(g->pool, 0);
    (void)cudaGetLastError();
}

static void pool_release(g16__gpu *g)
{
    if (!g->pool)
        return;
    pthread_mutex_lock(&pool_mu);
    pool_trim(g);
    if (--pools[g->device].refs == 0) {
        (void)cudaMemPoolDestroy(pools[g->device].pool);
        (void)cudaGetLastError();
        pools[g->device].pool = NULL;
    }
    g->pool = NULL;
    pthread_mutex_unlock(&pool_mu);
}

/* Bytes the pool holds but no allocation uses. */
static size_t pool_idle(const g16__gpu *g)
{
    uint64_t reserved = 0, used = 0;
    if (!g->pool || cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrReservedMemCurrent, &reserved) != cudaSuccess ||
        cudaMemPoolGetAttribute(g->pool, cudaMemPoolAttrUsedMemCurrent, &used) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return reserved > used ? (size_t)(reserved - used) : 0;
}

extern "C" int g16__gpu_compiled(void) { return 1; }

extern "C" int g16__gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

/* Runs on every device the build supports: proves that this binary has code for the device. */
__global__ static void probe_kernel(int *out) { *out = 0x6716; }

static g16_status probe(g16__gpu *g, g16_error *err)
{
    g16_status st = G16_OK;
    int *d = NULL, h = 0;
    G16_CU(cudaMalloc(&d, sizeof *d));
    probe_kernel<<<1, 1, 0, g->stream>>>(d);
    {
        cudaError_t e = cudaGetLastError();
        if (e == cudaErrorNoKernelImageForDevice || e == cudaErrorInvalidDeviceFunction) {
            st = g16__error(err, G16_ERR_UNSUPPORTED,
                            "gpu: device %d (%s, sm_%d%d) is not among this build's targets (CUDA archs %s); "
                            "rebuild with -DCMAKE_CUDA_ARCHITECTURES=%d%d",
                            g->device, g->info.name, g->info.cc_major, g->info.cc_minor, G16_ARCH_LIST,
                            g->info.cc_major, g->info.cc_minor);
            goto cleanup;
        }
        G16_CU(e);
    }
    G16_CU(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, g->stream));
    G16_CU(cudaStreamSynchronize(g->stream));
    if (h != 0x6716)
        st = g16__error(err, G16_ERR_DEVICE, "gpu: device %d: the probe kernel did not run", g->device);
cleanup:
    if (d)
        cudaFree(d);
    return st;
}

/* G16_GPU_MEM_LIMIT: bytes, with an optional K, M or G suffix (powers of 1024); unset or empty: 0. */
static g16_status mem_limit_env(size_t *limit, g16_error *err)
{
    const char *env = getenv("G16_GPU_MEM_LIMIT");
    char *end = NULL;
    unsigned long long v;
    *limit = 0;
    if (!env || !*env)
        return G16_OK;
    v = strtoull(env, &end, 10);
    if (end != env && (*end == 'K' || *end == 'M' || *end == 'G') && end[1] == 0) {
        unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : 30;
        v = v > (~0ULL >> shift) ? ~0ULL : v << shift;
        end++;
    }
    if (end == env || *end || v == 0)
        return g16__error(err, G16_ERR_ARG, "G16_GPU_MEM_LIMIT='%s': expected a positive byte count, optionally with "
                          "K, M or G", env);
    *limit = (size_t)v;
    return G16_OK;
}

extern "C" g16_status g16__gpu_open(g16__gpu **out, int device, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu *g = NULL;
    int count = 0;
    cudaDeviceProp prop;
    if (!out)
        return g16__error(err, G16_ERR_ARG, "gpu: NULL output pointer");
    *out = NULL;
    {
        cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess) {
            st = g16__gpu_cuda_error(err, e, "cudaGetDeviceCount(&count)", __FILE__, __LINE__);
            if (st == G16_ERR_NO_DEVICE)
                g16__error_prefix(err, "no usable CUDA device (no GPU or no NVIDIA driver): ");
            goto cleanup;
        }
    }
    if (device < 0 || device >= count) {
        st = g16__error(err, G16_ERR_NO_DEVICE, "gpu: device %d requested but %d CUDA device%s present", device,
                        count, count == 1 ? " is" : "s are");
        goto cleanup;
    }
    g = (g16__gpu *)calloc(1, sizeof *g);
    if (!g) {
        st = g16__error(err, G16_ERR_NOMEM, "gpu: context");
        goto cleanup;
    }
    g->device = device;
    if ((st = mem_limit_env(&g->mem_limit, err)) != G16_OK)
        goto cleanup;
    G16_CU(cudaSetDevice(device));
    G16_CU(cudaGetDeviceProperties(&prop, device));
    g->info.device = device;
    snprintf(g->info.name, sizeof g->info.name, "%s", prop.name);
    g->info.cc_major = prop.major;
    g->info.cc_minor = prop.minor;
    g->info.sm_count = prop.multiProcessorCount;
    g->info.total_bytes = prop.totalGlobalMem;
    g->info.l2_bytes = (size_t)prop.l2CacheSize;
    g->info.smem_block_optin = prop.sharedMemPerBlockOptin;
    {
        int khz = 0;
        if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess)
            g->info.clock_khz = khz;
        else
            (void)cudaGetLastError();
    }
    G16_CU(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    G16_CU(cudaEventCreate(&g->ev_start));
    G16_CU(cudaEventCreate(&g->ev_stop));
    G16_CU(cudaStreamCreateWithFlags(&g->side, cudaStreamNonBlocking));
    G16_CU(cudaEventCreateWithFlags(&g->side_done, cudaEventDisableTiming));
    pool_acquire(g);
    st = probe(g, err);
    if (st != G16_OK)
        goto cleanup;
    *out = g;
    g = NULL;
cleanup:
    g16__gpu_close(g);
    return st;
}

extern "C" void g16__gpu_close(g16__gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->device);
    if (g->stream)
        cudaStreamSynchronize(g->stream);
    if (g->side)
        cudaStreamSynchronize(g->side);
    if (g->side_done)
        cudaEventDestroy(g->side_done);
    if (g->side)
        cudaStreamDestroy(g->side);
    if (g->ev_start)
        cudaEventDestroy(g->ev_start);
    if (g->ev_stop)
        cudaEventDestroy(g->ev_stop);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    pool_release(g);
    (void)cudaGetLastError();
    free(g);
}

extern "C" void g16__gpu_get_info(const g16__gpu *g, g16__gpu_info *info) { *info = g->info; }

extern "C" g16_status g16__gpu_sync(g16__gpu *g, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaStreamSynchronize(g->stream));
    G16_CU(cudaStreamSynchronize(g->side));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_sync_main(g16__gpu *g, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaStreamSynchronize(g->stream));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_timer_start(g16__gpu *g, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaEventRecord(g->ev_start, g->stream));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_timer_stop(g16__gpu *g, double *ms, g16_error *err)
{
    g16_status st = G16_OK;
    float f = 0;
    *ms = 0;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaEventRecord(g->ev_stop, g->stream));
    G16_CU(cudaEventSynchronize(g->ev_stop));
    G16_CU(cudaEventElapsedTime(&f, g->ev_start, g->ev_stop));
    *ms = f;
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_mem_info(g16__gpu *g, size_t *free_bytes, size_t *total_bytes, g16_error *err)
{
    g16_status st = G16_OK;
    size_t f = 0, t = 0;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaMemGetInfo(&f, &t));
    f += pool_idle(g);
    if (g->mem_limit && g->mem_limit < t) {
        /* a smaller card: what is in use now (by anyone) counts against the limit */
        size_t used = t > f ? t - f : 0;
        f = g->mem_limit > used ? g->mem_limit - used : 0;
        t = g->mem_limit;
    }
cleanup:
    if (free_bytes)
        *free_bytes = f;
    if (total_bytes)
        *total_bytes = t;
    return st;
}

/* One more try for an allocation that found no memory: the streams synchronized (so that their
 * pool frees are observed), the pool's idle memory given back to the driver. Any other error is
 * the caller's to report. */
static int retry_after_trim(g16__gpu *g, cudaError_t e)
{
    if (e != cudaErrorMemoryAllocation)
        return 0;
    (void)cudaGetLastError();
    (void)cudaStreamSynchronize(g->stream);
    (void)cudaStreamSynchronize(g->side);
    pool_trim(g);
    return 1;
}

/* The error of an allocation that failed: no memory is G16_ERR_NOMEM with the bytes asked and
 * free; anything else the CUDA error of `expr`. */
static g16_status alloc_error(g16__gpu *g, cudaError_t e, const char *expr, const char *what, size_t bytes,
                              g16_error *err)
{
    g16_status st;
    if (e == cudaErrorMemoryAllocation) {
        size_t f = 0, t = 0;
        (void)cudaGetLastError();
        (void)g16__gpu_mem_info(g, &f, &t, NULL);
        st = g16__error(err, G16_ERR_NOMEM, "gpu: %s: out of device memory (%zu bytes free of %zu)", expr, f, t);
    } else {
        st = g16__gpu_cuda_error(err, e, expr, __FILE__, __LINE__);
    }
    g16__error_prefix(err, "allocating %s (%zu bytes): ", what ? what : "a buffer", bytes);
    return st;
}

/* A buffer from the driver (scratch = 0) or from the pool on the stream (scratch = 1), with one
 * more try after a trim when there was no memory. */
static cudaError_t try_alloc(g16__gpu *g, void **dev, size_t bytes, int scratch)
{
    if (g->mem_limit) { /* G16_GPU_MEM_LIMIT: refused as the smaller card would refuse it */
        size_t f = 0, t = 0;
        if (g16__gpu_mem_info(g, &f, &t, NULL) == G16_OK && bytes > f)
            return cudaErrorMemoryAllocation;
    }
    if (scratch && g->pool)
        return cudaMallocFromPoolAsync(dev, bytes ? bytes : 1, g->pool, g->stream);
    return cudaMalloc(dev, bytes ? bytes : 1);
}

static g16_status alloc_any(g16__gpu *g, void **dev, size_t bytes, const char *what, int scratch, g16_error *err)
{
    g16_status st = G16_OK;
    const char *expr = "cudaSetDevice(g->device)";
    cudaError_t e = cudaSetDevice(g->device);
    *dev = NULL;
    if (e == cudaSuccess) {
        expr = scratch && g->pool ? "cudaMallocFromPoolAsync" : "cudaMalloc";
        e = try_alloc(g, dev, bytes, scratch);
        if (retry_after_trim(g, e))
            e = try_alloc(g, dev, bytes, scratch);
    }
    if (e != cudaSuccess) {
        *dev = NULL;
        st = alloc_error(g, e, expr, what, bytes, err);
    }
    return st;
}

extern "C" g16_status g16__gpu_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err)
{
    return alloc_any(g, dev, bytes, what, 0, err);
}

extern "C" void g16__gpu_free(g16__gpu *g, void *dev)
{
    if (!dev)
        return;
    cudaSetDevice(g->device);
    cudaFree(dev); /* synchronizes with the device */
}

extern "C" g16_status g16__gpu_scratch_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err)
{
    return alloc_any(g, dev, bytes, what, 1, err);
}

extern "C" void g16__gpu_scratch_free(g16__gpu *g, void *dev)
{
    if (!dev)
        return;
    cudaSetDevice(g->device);
    if (g->pool)
        (void)cudaFreeAsync(dev, g->stream);
    else
        (void)cudaFree(dev); /* no pool: a cudaMalloc buffer */
    (void)cudaGetLastError();
}

/* Page-locked buffers are often freed in the background (util/bgfree.h), whose exit handler frees
 * what is still queued. That handler is registered at the first background free, which may come
 * before the CUDA runtime's own exit handlers (a CPU proof first): exit handlers run in reverse
 * order, so the runtime was torn down first and the queued cudaFreeHost calls failed (compute-
 * sanitizer: 4 page-locked buffers "leaked" at the end of test_gpu_prove). A second drain, registered
 * after the first page-locked allocation, runs before the runtime's teardown. */
static void drain_bgfree_at_exit(void) { g16__free_async_shutdown(); }
static void register_bgfree_drain(void) { atexit(drain_bgfree_at_exit); }

extern "C" g16_status g16__gpu_host_alloc(void **host, size_t bytes, g16_error *err)
{
    g16_status st = G16_OK;
    static pthread_once_t drain_once = PTHREAD_ONCE_INIT;
    *host = NULL;
    G16_CU(cudaMallocHost(host, bytes ? bytes : 1));
    pthread_once(&drain_once, register_bgfree_drain);
cleanup:
    if (st != G16_OK)
        *host = NULL;
    return st;
}

extern "C" void g16__gpu_host_free(void *host)
{
    if (host)
        cudaFreeHost(host);
}

extern "C" g16_status g16__gpu_host_register(void **token, const void *host, size_t bytes, g16_error *err)
{
    g16_status st = G16_OK;
    const uintptr_t page = 4096;
    uintptr_t lo = (uintptr_t)host & ~(page - 1), hi = ((uintptr_t)host + bytes + page - 1) & ~(page - 1);
    *token = NULL;
    if (!bytes)
        return G16_OK;
    G16_CU(cudaHostRegister((void *)lo, hi - lo, cudaHostRegisterPortable | cudaHostRegisterReadOnly));
    *token = (void *)lo;
cleanup:
    return st;
}

extern "C" void g16__gpu_host_unregister(void *token)
{
    if (token)
        cudaHostUnregister(token);
}

extern "C" g16_status g16__gpu_upload(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->stream));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_upload_side(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->side));
    G16_CU(cudaEventRecord(g->side_done, g->side));
    G16_CU(cudaStreamWaitEvent(g->stream, g->side_done, 0));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_upload_side_nowait(g16__gpu *g, void *dev, const void *host, size_t bytes,
                                                  g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, g->side));
cleanup:
    return st;
}

struct g16__gpu_event {
    g16__gpu *g;
    cudaEvent_t ev;
};

static g16_status event_create(g16__gpu_event **out, g16__gpu *g, unsigned flags, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_event *e = (g16__gpu_event *)calloc(1, sizeof *e);
    *out = NULL;
    if (!e)
        return g16__error(err, G16_ERR_NOMEM, "gpu: event");
    e->g = g;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaEventCreateWithFlags(&e->ev, flags));
    *out = e;
    e = NULL;
cleanup:
    free(e);
    return st;
}

extern "C" g16_status g16__gpu_event_create(g16__gpu_event **out, g16__gpu *g, g16_error *err)
{
    return event_create(out, g, cudaEventDisableTiming, err);
}

extern "C" g16_status g16__gpu_event_create_timed(g16__gpu_event **out, g16__gpu *g, g16_error *err)
{
    return event_create(out, g, cudaEventDefault, err);
}

static g16_status event_record(g16__gpu_event *e, cudaStream_t stream, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(e->g->device));
    G16_CU(cudaEventRecord(e->ev, stream));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_event_record_main(g16__gpu_event *e, g16_error *err)
{
    return event_record(e, e->g->stream, err);
}

extern "C" g16_status g16__gpu_event_ms(const g16__gpu_event *from, const g16__gpu_event *to, float *ms,
                                        g16_error *err)
{
    g16_status st = G16_OK;
    *ms = 0;
    G16_CU(cudaSetDevice(from->g->device));
    G16_CU(cudaEventElapsedTime(ms, from->ev, to->ev));
cleanup:
    return st;
}

extern "C" void g16__gpu_event_destroy(g16__gpu_event *e)
{
    if (!e)
        return;
    cudaSetDevice(e->g->device);
    cudaEventDestroy(e->ev); /* the runtime releases it once recorded work is done */
    (void)cudaGetLastError();
    free(e);
}

extern "C" g16_status g16__gpu_event_record_side(g16__gpu_event *e, g16_error *err)
{
    return event_record(e, e->g->side, err);
}

extern "C" g16_status g16__gpu_event_sync(g16__gpu_event *e, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(e->g->device));
    G16_CU(cudaEventSynchronize(e->ev));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_copy(g16__gpu *g, void *dst, const void *src, size_t bytes, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream));
cleanup:
    return st;
}

extern "C" g16_status g16__gpu_download(g16__gpu *g, void *host, const void *dev, size_t bytes, g16_error *err)
{
    g16_status st = G16_OK;
    G16_CU(cudaSetDevice(g->device));
    G16_CU(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, g->stream));
cleanup:
    return st;
}
