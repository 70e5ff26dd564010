/* The GPU MSM of a build without CUDA: every entry point reports G16_ERR_NO_DEVICE (msm_gpu.h),
 * as the CUDA build does at run time on a machine without a GPU. Built with gpu_stub.c. */
#include "gpu/msm_gpu.h"
#include "util/error.h"

static g16_status no_cuda(g16_error *err)
{
    return g16__error(err, G16_ERR_NO_DEVICE,
                      "gpu msm: this build has no CUDA backend (configure with nvcc on the PATH, or -DG16_CUDA=ON)");
}

g16_status g16__gpu_msm_create_p1(g16__gpu_msm **out, g16__gpu *g, const g16_p1_affine *bases, size_t n,
                                  g16_error *err)
{
    (void)g, (void)bases, (void)n;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

g16_status g16__gpu_msm_create_p2(g16__gpu_msm **out, g16__gpu *g, const g16_p2_affine *bases, size_t n,
                                  g16_error *err)
{
    (void)g, (void)bases, (void)n;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

g16_status g16__gpu_msm_create_side(g16__gpu_msm **out, g16__gpu *g, int g2, const void *bases, size_t n,
                                    g16_error *err)
{
    (void)g, (void)g2, (void)bases, (void)n;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

g16_status g16__gpu_msm_create_random_p1(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed, g16_error *err)
{
    (void)g, (void)n, (void)seed;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

g16_status g16__gpu_msm_create_random_p2(g16__gpu_msm **out, g16__gpu *g, size_t n, uint64_t seed, g16_error *err)
{
    (void)g, (void)n, (void)seed;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

g16_status g16__gpu_msm_view(g16__gpu_msm **out, g16__gpu_msm *m, size_t first, size_t count, g16_error *err)
{
    (void)m, (void)first, (void)count;
    if (out)
        *out = NULL;
    return no_cuda(err);
}

g16_status g16__gpu_msm_download_bases(g16__gpu_msm *m, void *host, size_t first, size_t count, g16_error *err)
{
    (void)m, (void)host, (void)first, (void)count;
    return no_cuda(err);
}

g16_status g16__gpu_msm_ab_bench(g16__gpu_msm *m, g16__gpu_ab_bench *b, g16_error *err)
{
    (void)m, (void)b;
    return no_cuda(err);
}

void g16__gpu_msm_destroy(g16__gpu_msm *m) { (void)m; }
void g16__gpu_msm_release_scratch(g16__gpu_msm *m) { (void)m; }
size_t g16__gpu_msm_size(const g16__gpu_msm *m) { (void)m; return 0; }

g16_status g16__gpu_msm_run_p1(g16__gpu_msm *m, g16_p1 *out, const g16_fr *scalars, size_t nsets,
                               const g16__gpu_msm_opts *opts, g16_error *err)
{
    (void)m, (void)out, (void)scalars, (void)nsets, (void)opts;
    return no_cuda(err);
}

g16_status g16__gpu_msm_run_p2(g16__gpu_msm *m, g16_p2 *out, const g16_fr *scalars, size_t nsets,
                               const g16__gpu_msm_opts *opts, g16_error *err)
{
    (void)m, (void)out, (void)scalars, (void)nsets, (void)opts;
    return no_cuda(err);
}

g16_status g16__gpu_p1_msm(g16__gpu *g, g16_p1 *out, const g16_p1_affine *bases, const g16_fr *scalars, size_t n,
                           g16_error *err)
{
    (void)g, (void)out, (void)bases, (void)scalars, (void)n;
    return no_cuda(err);
}

g16_status g16__gpu_p2_msm(g16__gpu *g, g16_p2 *out, const g16_p2_affine *bases, const g16_fr *scalars, size_t n,
                           g16_error *err)
{
    (void)g, (void)out, (void)bases, (void)scalars, (void)n;
    return no_cuda(err);
}
