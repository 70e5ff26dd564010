/* The GPU backend of a build without CUDA: every entry point reports G16_ERR_NO_DEVICE (see
 * gpu.h), exactly as the CUDA build does at run time on a machine without a GPU. */
#include "gpu/gpu.h"
#include "util/error.h"

static g16_status no_cuda(g16_error *err)
{
    return g16__error(err, G16_ERR_NO_DEVICE,
                      "gpu: this build has no CUDA backend (configure with nvcc on the PATH, or -DG16_CUDA=ON)");
}

int g16__gpu_compiled(void) { return 0; }
int g16__gpu_device_count(void) { return 0; }

g16_status g16__gpu_open(g16__gpu **out, int device, g16_error *err)
{
    (void)device;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

void g16__gpu_close(g16__gpu *g) { (void)g; }

void g16__gpu_get_info(const g16__gpu *g, g16__gpu_info *info)
{
    (void)g;
    *info = (g16__gpu_info){0};
    info->device = -1;
}

g16_status g16__gpu_sync(g16__gpu *g, g16_error *err) { (void)g; return no_cuda(err); }
g16_status g16__gpu_sync_main(g16__gpu *g, g16_error *err) { (void)g; return no_cuda(err); }
g16_status g16__gpu_timer_start(g16__gpu *g, g16_error *err) { (void)g; return no_cuda(err); }

g16_status g16__gpu_timer_stop(g16__gpu *g, double *ms, g16_error *err)
{
    (void)g;
    if (ms)
        *ms = 0;
    return no_cuda(err);
}

g16_status g16__gpu_mem_info(g16__gpu *g, size_t *free_bytes, size_t *total_bytes, g16_error *err)
{
    (void)g;
    if (free_bytes)
        *free_bytes = 0;
    if (total_bytes)
        *total_bytes = 0;
    return no_cuda(err);
}

g16_status g16__gpu_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err)
{
    (void)g, (void)bytes, (void)what;
    if (dev)
        *dev = NULL;
    return no_cuda(err);
}

void g16__gpu_free(g16__gpu *g, void *dev) { (void)g, (void)dev; }

g16_status g16__gpu_scratch_alloc(g16__gpu *g, void **dev, size_t bytes, const char *what, g16_error *err)
{
    return g16__gpu_alloc(g, dev, bytes, what, err);
}

void g16__gpu_scratch_free(g16__gpu *g, void *dev) { (void)g, (void)dev; }

g16_status g16__gpu_host_alloc(void **host, size_t bytes, g16_error *err)
{
    (void)bytes;
    if (host)
        *host = NULL;
    return no_cuda(err);
}

void g16__gpu_host_free(void *host) { (void)host; }

g16_status g16__gpu_host_register(void **token, const void *host, size_t bytes, g16_error *err)
{
    (void)host, (void)bytes;
    if (token)
        *token = NULL;
    return no_cuda(err);
}

void g16__gpu_host_unregister(void *token) { (void)token; }

g16_status g16__gpu_upload(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    (void)g, (void)dev, (void)host, (void)bytes;
    return no_cuda(err);
}

g16_status g16__gpu_upload_side(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    (void)g, (void)dev, (void)host, (void)bytes;
    return no_cuda(err);
}

g16_status g16__gpu_upload_side_nowait(g16__gpu *g, void *dev, const void *host, size_t bytes, g16_error *err)
{
    (void)g, (void)dev, (void)host, (void)bytes;
    return no_cuda(err);
}

g16_status g16__gpu_event_create(g16__gpu_event **out, g16__gpu *g, g16_error *err)
{
    (void)g;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

void g16__gpu_event_destroy(g16__gpu_event *e) { (void)e; }
g16_status g16__gpu_event_record_side(g16__gpu_event *e, g16_error *err) { (void)e; return no_cuda(err); }
g16_status g16__gpu_event_sync(g16__gpu_event *e, g16_error *err) { (void)e; return no_cuda(err); }

g16_status g16__gpu_event_create_timed(g16__gpu_event **out, g16__gpu *g, g16_error *err)
{
    return g16__gpu_event_create(out, g, err);
}

g16_status g16__gpu_event_record_main(g16__gpu_event *e, g16_error *err) { (void)e; return no_cuda(err); }

g16_status g16__gpu_event_ms(const g16__gpu_event *from, const g16__gpu_event *to, float *ms, g16_error *err)
{
    (void)from, (void)to;
    *ms = 0;
    return no_cuda(err);
}

g16_status g16__gpu_copy(g16__gpu *g, void *dst, const void *src, size_t bytes, g16_error *err)
{
    (void)g, (void)dst, (void)src, (void)bytes;
    return no_cuda(err);
}

g16_status g16__gpu_download(g16__gpu *g, void *host, const void *dev, size_t bytes, g16_error *err)
{
    (void)g, (void)dev, (void)host, (void)bytes;
    return no_cuda(err);
}

g16_status g16__gpu_check_products(g16__gpu *g, const g16_fr *a, const g16_fr *b, const g16_fr *c, uint64_t rows,
                                   uint64_t *first_bad, g16_error *err)
{
    (void)g, (void)a, (void)b, (void)c, (void)rows, (void)first_bad;
    return no_cuda(err);
}

g16_status g16__gpu_spmv(g16__gpu *g, g16_fr *out, uint64_t n_out, uint64_t rows, const uint32_t *rp32,
                         const uint64_t *rp64, const uint32_t *words, const g16_fr *coeffs, const g16_fr *w,
                         g16_error *err)
{
    (void)g, (void)out, (void)n_out, (void)rows, (void)rp32, (void)rp64, (void)words, (void)coeffs, (void)w;
    return no_cuda(err);
}

g16_status g16__gpu_fr_op(g16__gpu *g, g16__gpu_op op, g16_fr *out, const g16_fr *a, const g16_fr *b, size_t n,
                          g16_error *err)
{
    (void)g, (void)op, (void)out, (void)a, (void)b, (void)n;
    return no_cuda(err);
}

g16_status g16__gpu_fp_op(g16__gpu *g, g16__gpu_op op, g16_fp *out, const g16_fp *a, const g16_fp *b, size_t n,
                          g16_error *err)
{
    (void)g, (void)op, (void)out, (void)a, (void)b, (void)n;
    return no_cuda(err);
}

size_t g16__gpu_compactor_bytes(size_t max_n) { return (max_n + 63) / 64 * 8; }

g16_status g16__gpu_compactor_create(g16__gpu_compactor **out, g16__gpu *g, size_t max_n, g16_error *err)
{
    (void)g, (void)max_n;
    *out = NULL;
    return no_cuda(err);
}

void g16__gpu_compactor_destroy(g16__gpu_compactor *c) { (void)c; }

g16_status g16__gpu_compact(g16__gpu_compactor *c, g16_fr *out, const g16_fr *src, size_t n, const uint64_t *bits,
                            size_t *count, g16_error *err)
{
    (void)c, (void)out, (void)src, (void)n, (void)bits;
    *count = 0;
    return no_cuda(err);
}

g16_status g16__gpu_mul_bench(g16__gpu *g, int field, unsigned iters, double *per_s, uint32_t *check,
                              g16_error *err)
{
    (void)g, (void)field, (void)iters;
    if (per_s)
        *per_s = 0;
    if (check)
        *check = 0;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_create(g16__gpu_ntt **out, g16__gpu *g, unsigned log_n, const g16_fr *root_generator,
                               const g16_fr *coset_shift, g16_error *err)
{
    (void)g, (void)log_n, (void)root_generator, (void)coset_shift;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

void g16__gpu_ntt_destroy(g16__gpu_ntt *d) { (void)d; }
unsigned g16__gpu_ntt_log_n(const g16__gpu_ntt *d) { (void)d; return 0; }

g16_status g16__gpu_ntt_set_radix(g16__gpu_ntt *d, unsigned stages)
{
    (void)d, (void)stages;
    return G16_ERR_NO_DEVICE;
}

g16_status g16__gpu_ntt_set_radix_fused(g16__gpu_ntt *d, unsigned stages)
{
    (void)d, (void)stages;
    return G16_ERR_NO_DEVICE;
}

void g16__gpu_ntt_set_uniform(g16__gpu_ntt *d, int on) { (void)d, (void)on; }

g16_status g16__gpu_ntt_set_threads(g16__gpu_ntt *d, unsigned threads)
{
    (void)d, (void)threads;
    return G16_ERR_NO_DEVICE;
}

g16_status g16__gpu_ntt_device(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                               g16_error *err)
{
    (void)d, (void)kind, (void)x, (void)count;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_groth16_h_device(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c, g16_error *err)
{
    (void)d, (void)a, (void)b, (void)c;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_h_ab(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err)
{
    (void)d, (void)a, (void)b;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_h_c(g16__gpu_ntt *d, g16_fr *a, g16_fr *c, g16_error *err)
{
    (void)d, (void)a, (void)c;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_h_in(g16__gpu_ntt *d, g16_fr *x, g16_error *err)
{
    (void)d, (void)x;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_h_mul(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_error *err)
{
    (void)d, (void)a, (void)b;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_h_in_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *keep, g16_error *err)
{
    (void)d, (void)a, (void)keep;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_h_mul_keep(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *keep, g16_error *err)
{
    (void)d, (void)a, (void)b, (void)keep;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_host(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *const *x, size_t count,
                             g16_error *err)
{
    (void)d, (void)kind, (void)x, (void)count;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_groth16_h_host(g16__gpu_ntt *d, g16_fr *a, g16_fr *b, g16_fr *c, g16_error *err)
{
    (void)d, (void)a, (void)b, (void)c;
    return no_cuda(err);
}

g16_status g16__gpu_ntt_profile(g16__gpu_ntt *d, g16__gpu_ntt_kind kind, g16_fr *x, g16_fr *b, g16_fr *c,
                                double *ms, char (*what)[64], size_t cap, size_t *count, g16_error *err)
{
    (void)d, (void)kind, (void)x, (void)b, (void)c, (void)ms, (void)what, (void)cap;
    if (count)
        *count = 0;
    return no_cuda(err);
}
