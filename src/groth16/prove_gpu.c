/*
 * The GPU worker of the Groth16 prover (see prove_gpu.h). Built in every configuration: without
 * CUDA the g16__gpu_* calls are the stubs and g16__gpu_prover_create reports G16_ERR_NO_DEVICE.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "gpu/msm_gpu.h"
#include "groth16/prove_gpu.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "util/error.h"
#include "util/threads.h"
#include "util/trace.h"

enum { Q_H, Q_L, Q_A, Q_B1, Q_B2, Q_COUNT };
static const char *const q_span[Q_COUNT] = {"msm.h.gpu", "msm.l.gpu", "msm.a.gpu", "msm.b_g1.gpu", "msm.b_g2.gpu"};

struct g16__gpu_prover {
    g16__gpu *gpu;
    g16__gpu_ntt *ntt;
    g16__gpu_msm *q[Q_COUNT]; /* resident mode: all five; streaming: NULL between MSMs */
    int resident;
    const struct g16_params *p;
    const struct g16_r1cs *r;
    g16_fr *scal; /* page-locked: the compacted a / b scalars */
    size_t scal_n;
    g16_fr *dabc; /* device: a, b, c of the H step (3n elements); H stays in the first n for msm.h */
    int have_h;   /* dabc holds the H of the current circuit */
    size_t chunk; /* streaming: points per uploaded chunk of a query */
};

/* Compaction of the values whose density bit is set, on all threads: the bitmap is cut into
 * blocks of COMPACT_WORDS words; the first pass counts each block's bits, a prefix sum gives
 * each block's output offset, the second pass copies. (Serial, it took ~0.3 s per query at 2^26
 * on the device's host: 2 GB read and written by one core.) */
#define COMPACT_WORDS 1024u

typedef struct {
    g16_fr *out;
    const g16_fr *src;
    uint64_t n;
    const uint64_t *bits;
    size_t *offset; /* per block: count (pass 1), then first output index (pass 2) */
    int pass;
} compact_job;

static void compact_blocks(void *ctx, size_t begin, size_t end)
{
    compact_job *j = ctx;
    for (size_t blk = begin; blk < end; blk++) {
        uint64_t w0 = (uint64_t)blk * COMPACT_WORDS, w1 = w0 + COMPACT_WORDS, words = (j->n + 63) / 64;
        if (w1 > words)
            w1 = words;
        if (j->pass == 1) {
            size_t c = 0;
            for (uint64_t w = w0; w < w1; w++)
                c += (size_t)__builtin_popcountll(j->bits[w]);
            j->offset[blk] = c;
            continue;
        }
        size_t k = j->offset[blk];
        for (uint64_t w = w0; w < w1; w++)
            for (uint64_t m = j->bits[w]; m; m &= m - 1)
                j->out[k++] = j->src[w * 64 + (uint64_t)__builtin_ctzll(m)];
    }
}

/* out[0..count) = src[i] for the set bits i < n of bits (unused high bits are zero, r1cs.h);
 * returns count. offsets: scratch of at least compact_blocks_for(n) entries. */
static size_t compact_blocks_for(uint64_t n) { return (size_t)(((n + 63) / 64 + COMPACT_WORDS - 1) / COMPACT_WORDS); }

static size_t compact(g16_fr *out, const g16_fr *src, uint64_t n, const uint64_t *bits, size_t *offsets)
{
    size_t nb = compact_blocks_for(n), total = 0;
    compact_job j = {out, src, n, bits, offsets, 1};
    g16__parallel_for(nb, 1, compact_blocks, &j);
    for (size_t b = 0; b < nb; b++) {
        size_t c = offsets[b];
        offsets[b] = total;
        total += c;
    }
    j.pass = 2;
    g16__parallel_for(nb, 1, compact_blocks, &j);
    return total;
}

static size_t *compact_scratch(const struct g16_r1cs *r)
{
    uint64_t m = r->num_aux > r->num_inputs ? r->num_aux : r->num_inputs;
    return malloc((compact_blocks_for(m) + 1) * sizeof(size_t));
}

size_t g16__prove_a_scalars(g16_fr *out, const struct g16_r1cs *r, const g16_fr *w)
{
    size_t *off = compact_scratch(r);
    if (!off)
        return (size_t)-1;
    memcpy(out, w, r->num_inputs * sizeof *w);
    size_t k = r->num_inputs + compact(out + r->num_inputs, w + r->num_inputs, r->num_aux,
                                       r->density[G16__DENS_A_AUX], off);
    free(off);
    return k;
}

size_t g16__prove_b_scalars(g16_fr *out, const struct g16_r1cs *r, const g16_fr *w)
{
    size_t *off = compact_scratch(r);
    if (!off)
        return (size_t)-1;
    size_t k = compact(out, w, r->num_inputs, r->density[G16__DENS_B_INPUT], off);
    k += compact(out + k, w + r->num_inputs, r->num_aux, r->density[G16__DENS_B_AUX], off);
    free(off);
    return k;
}

static const void *q_bases(const struct g16_params *p, int q, size_t *n)
{
    switch (q) {
    case Q_H: *n = p->n_h; return p->h;
    case Q_L: *n = p->n_l; return p->l;
    case Q_A: *n = p->n_a; return p->a;
    case Q_B1: *n = p->n_b_g1; return p->b_g1;
    default: *n = p->n_b_g2; return p->b_g2;
    }
}

/* A handle over points [first, first + count) of query q in gp->q[q]. */
static g16_status q_create(g16__gpu_prover *gp, int q, size_t first, size_t count, g16_error *err)
{
    size_t n;
    const void *b = q_bases(gp->p, q, &n);
    g16__span sp = g16__span_begin_n("gpu.upload_query", count);
    g16_status st = q == Q_B2 ? g16__gpu_msm_create_p2(&gp->q[q], gp->gpu, (const g16_p2_affine *)b + first, count,
                                                       err)
                              : g16__gpu_msm_create_p1(&gp->q[q], gp->gpu, (const g16_p1_affine *)b + first, count,
                                                       err);
    g16__span_end(sp);
    return st;
}

static void q_destroy_all(g16__gpu_prover *gp)
{
    for (int q = 0; q < Q_COUNT; q++) {
        g16__gpu_msm_destroy(gp->q[q]);
        gp->q[q] = NULL;
    }
}

void g16__gpu_prover_destroy(g16__gpu_prover *gp)
{
    if (!gp)
        return;
    q_destroy_all(gp);
    if (gp->gpu)
        g16__gpu_free(gp->gpu, gp->dabc);
    g16__gpu_ntt_destroy(gp->ntt);
    g16__gpu_host_free(gp->scal);
    g16__gpu_close(gp->gpu);
    free(gp);
}

/* Resident when the five queries fit in the free memory left beside the H step's vectors with a
 * margin for one MSM's scratch; the MSM handles check their own plans as well. */
static int fits_resident(g16__gpu_prover *gp, g16_error *err)
{
    size_t free_b = 0, total = 0, need = 0, n;
    if (g16__gpu_mem_info(gp->gpu, &free_b, &total, err) != G16_OK)
        return 0;
    for (int q = 0; q < Q_COUNT; q++) {
        q_bases(gp->p, q, &n);
        need += n * (q == Q_B2 ? 192 : 96);
    }
    /* plus one MSM's scratch with every scalar non-trivial (about 246 B per scalar for G1 at
     * 2^26, msm_gpu.h: 256 B per constraint); the H step's vectors are already allocated */
    need += (size_t)gp->r->n * 256;
    return need + G16__GPU_RESERVE < free_b;
}

/* Streaming chunk: the points whose base (192 B in G2), scalar (32 B) and MSM scratch (~256 B
 * per scalar, see fits_resident) fit in half the free memory; G16_GPU_CHUNK=N overrides (tests). */
static g16_status choose_chunk(g16__gpu_prover *gp, g16_error *err)
{
    size_t free_b = 0, total = 0;
    const char *env = getenv("G16_GPU_CHUNK");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end || v < 1)
            return g16__error(err, G16_ERR_ARG, "G16_GPU_CHUNK='%s': expected a positive number of points", env);
        gp->chunk = (size_t)v;
        return G16_OK;
    }
    g16_status st = g16__gpu_mem_info(gp->gpu, &free_b, &total, err);
    if (st != G16_OK)
        return st;
    size_t avail = free_b > G16__GPU_RESERVE ? (free_b - G16__GPU_RESERVE) / 2 : 0;
    gp->chunk = avail / (192 + 32 + 256);
    if (gp->chunk < 4096) {
        char need[64];
        snprintf(need, sizeof need, "%zu", (size_t)4096 * (192 + 32 + 256) * 2 + G16__GPU_RESERVE);
        return g16__error(err, G16_ERR_NOMEM,
                          "gpu prover: %zu bytes free after the H step's vectors; streaming the queries needs at "
                          "least %s",
                          free_b, need);
    }
    return G16_OK;
}

g16_status g16__gpu_prover_create(g16__gpu_prover **out, int device, const struct g16_params *p,
                                  const struct g16_r1cs *r, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_prover *gp = NULL;
    *out = NULL;
    gp = calloc(1, sizeof *gp);
    if (!gp)
        return g16__error(err, G16_ERR_NOMEM, "gpu prover: context");
    gp->p = p;
    gp->r = r;
    g16__span sp = g16__span_begin_n("gpu.prover_create", (uint64_t)device);
    if ((st = g16__gpu_open(&gp->gpu, device, err)) != G16_OK)
        goto cleanup;
    if ((st = g16__gpu_ntt_create(&gp->ntt, gp->gpu, r->log_n, g16__params_root_generator(p), NULL, err)) != G16_OK)
        goto cleanup;
    {
        g16__gpu_plan plan;
        g16__gpu_plan_init(&plan);
        g16__gpu_plan_add(&plan, "H step vectors a, b, c", 3 * (size_t)r->n * sizeof(g16_fr));
        if ((st = g16__gpu_plan_check(gp->gpu, &plan, err)) != G16_OK ||
            (st = g16__gpu_alloc(gp->gpu, (void **)&gp->dabc, 3 * (size_t)r->n * sizeof(g16_fr), "H step vectors",
                                 err)) != G16_OK)
            goto cleanup;
    }
    gp->scal_n = p->n_a > p->n_b_g1 ? p->n_a : p->n_b_g1;
    if ((st = g16__gpu_host_alloc((void **)&gp->scal, (gp->scal_n ? gp->scal_n : 1) * sizeof(g16_fr), err)) !=
        G16_OK)
        goto cleanup;
    /* G16_GPU_STREAM=1 forces streaming (tests of that path on a card where all would fit) */
    gp->resident = !(getenv("G16_GPU_STREAM") && !strcmp(getenv("G16_GPU_STREAM"), "1")) && fits_resident(gp, err);
    for (int q = 0; gp->resident && q < Q_COUNT; q++) {
        size_t n;
        q_bases(p, q, &n);
        st = q_create(gp, q, 0, n, err);
        if (st == G16_ERR_NOMEM) { /* the estimate was optimistic: stream instead */
            q_destroy_all(gp);
            gp->resident = 0;
            st = G16_OK;
        }
        if (st != G16_OK)
            goto cleanup;
    }
    /* streaming: the chunk from the memory left now (after a failed resident attempt too) */
    if (!gp->resident && (st = choose_chunk(gp, err)) != G16_OK)
        goto cleanup;
    *out = gp;
    gp = NULL;
cleanup:
    g16__span_end(sp);
    if (st != G16_OK)
        g16__error_prefix(err, "gpu %d: ", device);
    g16__gpu_prover_destroy(gp);
    return st;
}

int g16__gpu_prover_resident(const g16__gpu_prover *gp) { return gp->resident; }

void g16__gpu_prover_describe(const g16__gpu_prover *gp, char *buf, size_t len)
{
    g16__gpu_info info;
    g16__gpu_get_info(gp->gpu, &info);
    if (gp->resident)
        snprintf(buf, len, "gpu %d (%s), queries resident", info.device, info.name);
    else
        snprintf(buf, len, "gpu %d (%s), queries streamed in chunks of up to %zu points (they do not all fit)",
                 info.device, info.name, gp->chunk);
}

g16_status g16__gpu_prover_h(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c, g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = gp->r->n, bytes = n * sizeof(g16_fr);
    gp->have_h = 0;
    if ((st = g16__gpu_upload(gp->gpu, gp->dabc, a, bytes, err)) != G16_OK ||
        (st = g16__gpu_upload(gp->gpu, gp->dabc + n, b, bytes, err)) != G16_OK ||
        (st = g16__gpu_upload(gp->gpu, gp->dabc + 2 * n, c, bytes, err)) != G16_OK)
        return st;
    if ((st = g16__gpu_ntt_groth16_h_device(gp->ntt, gp->dabc, gp->dabc + n, gp->dabc + 2 * n, err)) != G16_OK)
        return st;
    if ((st = g16__gpu_sync(gp->gpu, err)) != G16_OK)
        return st;
    gp->have_h = 1;
    return G16_OK;
}

g16_status g16__gpu_prover_h_download(g16__gpu_prover *gp, g16_fr *h, g16_error *err)
{
    if (!gp->have_h)
        return g16__error(err, G16_ERR_ARG, "gpu prover: no H on the device");
    g16_status st = g16__gpu_download(gp->gpu, h, gp->dabc, gp->r->n * sizeof(g16_fr), err);
    return st == G16_OK ? g16__gpu_sync(gp->gpu, err) : st;
}

/* One query's MSM: the handle (uploaded now in streaming mode), one scalar set, the window sums
 * combined on the host (msm_gpu.h: a CPU core does the final ~256 doublings faster), the
 * scratch freed so that the next query has the room. */
/* One MSM over the points [first, first + count) of query q: the handle (the resident one, or
 * uploaded now and destroyed after), one scalar set, the window sums combined on the host
 * (msm_gpu.h: a CPU core does the final ~256 doublings faster), the scratch freed so that the
 * next query has the room. */
static g16_status q_run_part(g16__gpu_prover *gp, int q, void *out, const g16_fr *scalars, size_t first,
                             size_t count, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_msm_opts o;
    memset(&o, 0, sizeof o);
    o.final_host = 1;
    o.device_scalars = q == Q_H; /* H never leaves the device */
    if (!gp->q[q] && (st = q_create(gp, q, first, count, err)) != G16_OK)
        goto cleanup;
    if (q == Q_B2)
        st = g16__gpu_msm_run_p2(gp->q[q], out, scalars + first, 1, &o, err);
    else
        st = g16__gpu_msm_run_p1(gp->q[q], out, scalars + first, 1, &o, err);
    if (st != G16_OK)
        goto cleanup;
    g16__gpu_msm_release_scratch(gp->q[q]);
cleanup:
    if (!gp->resident) {
        g16__gpu_msm_destroy(gp->q[q]);
        gp->q[q] = NULL;
    }
    return st;
}

/* The MSM of query q: one part when resident, else chunks of gp->chunk points summed on the host
 * (memory bounded by the chunk, whatever the query's size; uploads not overlapped yet). */
static g16_status q_run(g16__gpu_prover *gp, int q, void *out, const g16_fr *scalars, g16_error *err)
{
    g16_status st = G16_OK;
    size_t n;
    q_bases(gp->p, q, &n);
    g16__span sp = g16__span_begin_n(q_span[q], n);
    if (gp->resident || n <= gp->chunk) {
        st = q_run_part(gp, q, out, scalars, 0, n, err);
        goto cleanup;
    }
    for (size_t first = 0; first < n && st == G16_OK; first += gp->chunk) {
        size_t count = n - first < gp->chunk ? n - first : gp->chunk;
        if (q == Q_B2) {
            g16_p2 part;
            st = q_run_part(gp, q, &part, scalars, first, count, err);
            if (st == G16_OK && first == 0)
                *(g16_p2 *)out = part;
            else if (st == G16_OK)
                g16__p2_add_var(out, out, &part);
        } else {
            g16_p1 part;
            st = q_run_part(gp, q, &part, scalars, first, count, err);
            if (st == G16_OK && first == 0)
                *(g16_p1 *)out = part;
            else if (st == G16_OK)
                g16__p1_add_var(out, out, &part);
        }
    }
cleanup:
    g16__span_end(sp);
    return st;
}

g16_status g16__gpu_prover_msms(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    if (!gp->have_h)
        return g16__error(err, G16_ERR_ARG, "gpu prover: the MSMs need the H step first");
    st = q_run(gp, Q_H, &out->h, gp->dabc, err);
    gp->have_h = 0;
    if (st != G16_OK)
        goto cleanup;
    if ((st = q_run(gp, Q_L, &out->l, w + r->num_inputs, err)) != G16_OK)
        goto cleanup;
    g16__span sp = g16__span_begin("gpu.compact_a");
    size_t k = g16__prove_a_scalars(gp->scal, r, w);
    g16__span_end(sp);
    if (k == (size_t)-1) {
        st = g16__error(err, G16_ERR_NOMEM, "a query: compaction scratch");
        goto cleanup;
    }
    if (k != gp->p->n_a) {
        st = g16__error(err, G16_ERR_SIZE_MISMATCH, "a query: %zu scalars for %llu points", k,
                        (unsigned long long)gp->p->n_a);
        goto cleanup;
    }
    if ((st = q_run(gp, Q_A, &out->a, gp->scal, err)) != G16_OK)
        goto cleanup;
    sp = g16__span_begin("gpu.compact_b");
    k = g16__prove_b_scalars(gp->scal, r, w);
    g16__span_end(sp);
    if (k == (size_t)-1) {
        st = g16__error(err, G16_ERR_NOMEM, "b queries: compaction scratch");
        goto cleanup;
    }
    if (k != gp->p->n_b_g1 || k != gp->p->n_b_g2) {
        st = g16__error(err, G16_ERR_SIZE_MISMATCH, "b queries: %zu scalars for %llu / %llu points", k,
                        (unsigned long long)gp->p->n_b_g1, (unsigned long long)gp->p->n_b_g2);
        goto cleanup;
    }
    if ((st = q_run(gp, Q_B1, &out->b1, gp->scal, err)) != G16_OK)
        goto cleanup;
    st = q_run(gp, Q_B2, &out->b2, gp->scal, err);
cleanup:
    return st;
}
