/*
 * Groth16 proving on the CPU, as bellman's prover computes it (same H, same query layout), so
 * that with the same r and s the proof is bit-identical to bellman's.
 *
 * Per circuit: check the witness; a, b, c = A·w, B·w, C·w; H = (a·b − c)/Z through 6 NTTs;
 * MSMs over the h, l, a, b_g1, b_g2 queries (density bitmaps select the a/b scalars); then
 *   A = α + Σa + r·δ,  B = β + Σb_g2 + s·δ,  C = s·A + r·(β + Σb_g1 + s·δ) − r·s·δ + Σh + Σl.
 * The assembly uses constant-time curve operations: r and s are the secrets of the proof.
 * Every proof is verified against the parameters' own verifying key before it is returned.
 * Backends (g16_prove_opts.backend / G16_BACKEND): one CPU worker, or one GPU worker per device
 * (g16_prove_opts.devices / G16_DEVICES; prove_gpu.h), which runs the H step and the five MSMs on
 * its GPU while the witness check, the sparse products and the assembly stay on the CPU. The
 * circuits of a batch go to the workers as they become free.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/random.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "groth16/prove_gpu.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"
#include "util/alloc.h"
#include "util/bgfree.h"
#include "util/error.h"
#include "util/threads.h"
#include "util/trace.h"

static g16_status check_shapes(const struct g16_params *p, const struct g16_r1cs *r, g16_error *err)
{
    uint64_t want_a = r->num_inputs + r->density_count[G16__DENS_A_AUX];
    uint64_t want_b = r->density_count[G16__DENS_B_INPUT] + r->density_count[G16__DENS_B_AUX];
    uint64_t vars = r->num_inputs + r->num_aux;
    int snarkjs = p->origin == G16__ORIGIN_SNARKJS;
    const char *what = NULL;
    uint64_t have = 0, want = 0;
    /* A snarkjs export holds one a/b point per variable (the loader dropped those at infinity,
     * leaving bellman's filtered layout); its file count must be that, or already filtered. */
    if (snarkjs && p->file_n_a != vars && p->file_n_a != want_a)
        what = "a", have = p->file_n_a, want = want_a;
    else if (snarkjs && p->file_n_b != vars && p->file_n_b != want_b)
        what = "b_g1", have = p->file_n_b, want = want_b;
    if (what)
        return g16__error(err, G16_ERR_SIZE_MISMATCH,
                          "parameters do not match the circuit: the %s query of the snarkjs export has %llu points, "
                          "the circuit needs %llu (one per variable, as snarkjs writes it) or %llu (filtered by "
                          "density, as bellman writes it)",
                          what, (unsigned long long)have, (unsigned long long)vars, (unsigned long long)want);
    if (p->vk.n_ic != r->num_inputs)
        what = "ic", have = p->vk.n_ic, want = r->num_inputs;
    else if (p->n_h != r->n - 1)
        what = "h", have = p->n_h, want = r->n - 1;
    else if (p->n_l != r->num_aux)
        what = "l", have = p->n_l, want = r->num_aux;
    else if (p->n_a != want_a)
        what = "a", have = p->n_a, want = want_a;
    else if (p->n_b_g1 != want_b)
        what = "b_g1", have = p->n_b_g1, want = want_b;
    else if (p->n_b_g2 != want_b)
        what = "b_g2", have = p->n_b_g2, want = want_b;
    if (!what)
        return G16_OK;
    if (snarkjs && (what[0] == 'a' || what[0] == 'b'))
        return g16__error(err, G16_ERR_SIZE_MISMATCH,
                          "parameters do not match the circuit: %llu of the %llu points of the snarkjs export's %s "
                          "query are not at infinity, but %llu variables of the circuit occur in %s",
                          (unsigned long long)have, (unsigned long long)(what[0] == 'a' ? p->file_n_a : p->file_n_b),
                          what, (unsigned long long)want, what[0] == 'a' ? "A (or are inputs)" : "B");
    return g16__error(err, G16_ERR_SIZE_MISMATCH,
                      "parameters do not match the circuit: %s query has %llu points, the circuit needs %llu", what,
                      (unsigned long long)have, (unsigned long long)want);
}

/* The five MSMs on the CPU. h (the H coefficients) is consumed: its MSM converts it in place. The
 * G1 MSMs may use the scratch_bytes at scratch (the dead b, c vectors) for their lane copies of
 * the bases: with both, the lane path adds nothing to the prover's peak memory (bench/RESULTS.md,
 * session 5). */
static g16_status run_msms(g16__query_sums *m, const struct g16_params *p, const struct g16_r1cs *r, const g16_fr *w,
                           g16_fr *h, void *scratch, size_t scratch_bytes, g16_error *err)
{
    g16_status st;
    uint64_t ni = r->num_inputs, na = r->num_aux;
    uint64_t nb_in = r->density_count[G16__DENS_B_INPUT];
    g16_p1 t1;
    g16_p2 t2;
    g16__msm_opts o = {0}, *opts = &o;
    o.scratch = scratch;
    o.scratch_bytes = scratch ? scratch_bytes : 0;
    g16__span sp = g16__span_begin_n("msm.h", p->n_h);
    st = g16__p1_msm_consume_var(&m->h, p->h, h, p->n_h, opts, err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.l", p->n_l);
    st = g16__p1_msm_var(&m->l, p->l, w + ni, na, opts, err);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.a", p->n_a);
    st = g16__p1_msm_var(&m->a, p->a, w, ni, opts, err);
    if (st == G16_OK)
        st = g16__p1_msm_density_var(&t1, p->a + ni, p->n_a - ni, w + ni, na, r->density[G16__DENS_A_AUX], opts,
                                     err);
    if (st == G16_OK)
        g16__p1_add_var(&m->a, &m->a, &t1);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.b_g1", p->n_b_g1);
    st = g16__p1_msm_density_var(&m->b1, p->b_g1, nb_in, w, ni, r->density[G16__DENS_B_INPUT], opts, err);
    if (st == G16_OK)
        st = g16__p1_msm_density_var(&t1, p->b_g1 + nb_in, p->n_b_g1 - nb_in, w + ni, na,
                                     r->density[G16__DENS_B_AUX], opts, err);
    if (st == G16_OK)
        g16__p1_add_var(&m->b1, &m->b1, &t1);
    g16__span_end(sp);
    if (st != G16_OK)
        return st;
    sp = g16__span_begin_n("msm.b_g2", p->n_b_g2);
    st = g16__p2_msm_density_var(&m->b2, p->b_g2, nb_in, w, ni, r->density[G16__DENS_B_INPUT], NULL, err);
    if (st == G16_OK)
        st = g16__p2_msm_density_var(&t2, p->b_g2 + nb_in, p->n_b_g2 - nb_in, w + ni, na,
                                     r->density[G16__DENS_B_AUX], NULL, err);
    if (st == G16_OK)
        g16__p2_add_var(&m->b2, &m->b2, &t2);
    g16__span_end(sp);
    return st;
}

void g16__groth16_assemble(g16_proof *proof, const struct g16_vk *vk, const g16_p1 *sum_a, const g16_p1 *sum_b1,
                           const g16_p2 *sum_b2, const g16_p1 *sum_c, const g16_fr *r, const g16_fr *s)
{
    g16__span sp = g16__span_begin("prove.assemble");
    g16_p1 a, b1, c, t, delta1;
    g16_p2 b2, u;
    g16_fr rs;
    g16__p1_from_affine(&delta1, &vk->delta_g1);
    /* A = α + Σa + r·δ */
    g16__p1_mul(&t, &delta1, r);
    g16__p1_add(&a, sum_a, &t);
    g16__p1_add_affine(&a, &a, &vk->alpha_g1);
    /* B = β + Σb + s·δ, in G2 and in G1 */
    g16__p2_from_affine(&u, &vk->delta_g2);
    g16__p2_mul(&u, &u, s);
    g16__p2_add(&b2, sum_b2, &u);
    g16__p2_add_affine(&b2, &b2, &vk->beta_g2);
    g16__p1_mul(&t, &delta1, s);
    g16__p1_add(&b1, sum_b1, &t);
    g16__p1_add_affine(&b1, &b1, &vk->beta_g1);
    /* C = s·A + r·B1 − r·s·δ + Σc */
    g16__p1_mul(&c, &a, s);
    g16__p1_mul(&t, &b1, r);
    g16__p1_add(&c, &c, &t);
    g16__fr_mul(&rs, r, s);
    g16__p1_mul(&t, &delta1, &rs);
    g16__p1_neg(&t, &t);
    g16__p1_add(&c, &c, &t);
    g16__p1_add(&c, &c, sum_c);
    g16__p1_to_affine(&proof->a, &a);
    g16__p2_to_affine(&proof->b, &b2);
    g16__p1_to_affine(&proof->c, &c);
    memset(&rs, 0, sizeof rs);
    g16__span_end(sp);
}

typedef struct {
    g16_fr *a, *b, *c;
    size_t bytes;
    int pinned;    /* page-locked (a GPU worker's): freed with g16__gpu_host_free */
    int block;     /* a, b, c are one allocation of 3·bytes at a (a CPU worker's: b, c are the
                    * MSMs' scratch, see run_msms) */
    g16_fr *w;     /* a GPU worker's page-locked copy of the witness (NULL: the caller's is uploaded) */
    size_t w_bytes;
    int c_large;   /* c added for a batch (h_buffers_add_c) from g16__alloc_large, the slot page-locked */
} h_buffers;

static void free_pinned(void *p, size_t bytes)
{
    (void)bytes;
    g16__gpu_host_free(p);
}

static void free_h_buffers(h_buffers *hb)
{
    g16__free_fn fn = hb->pinned ? free_pinned : g16__free_large;
    if (hb->block) {
        g16__free_async(hb->a, 3 * hb->bytes, "prove.abc", fn);
        hb->b = hb->c = NULL;
    } else if (hb->a) {
        g16__free_async(hb->a, hb->bytes, "prove.a", fn);
    }
    if (hb->b)
        g16__free_async(hb->b, hb->bytes, "prove.b", fn);
    if (hb->c)
        g16__free_async(hb->c, hb->bytes, "prove.c", hb->c_large ? g16__free_large : fn);
    if (hb->w)
        g16__free_async(hb->w, hb->w_bytes, "prove.w_pinned", free_pinned);
    memset(hb, 0, sizeof *hb);
}

/* a, b, c for one worker: page-locked for a GPU worker (the H step copies them to the device), else
 * (or when pinning fails) ordinary large allocations. A GPU worker also gets a page-locked slot
 * for the witness (w_len values; NULL when pinning fails): copied there by the synth thread, it
 * crosses PCIe at full speed while the H step's NTTs run (from the caller's pageable memory the
 * 2 GiB witness of a 2^26 circuit took ~480 ms on the H200's host, longer than the NTTs). A GPU
 * worker whose device computes a, b, c (!abc) gets only the witness slot; one whose device forms c
 * as a·b (!c_host: prove_gpu.h, g16__gpu_prover_forms_c) gets no page-locked c (4.3 GB per slot at
 * 2^27; a batch that needs one adds it, h_buffers_add_c). */
static g16_status alloc_h_buffers(h_buffers *hb, size_t n, size_t w_len, int pin, int abc, int c_host,
                                  g16_error *err)
{
    memset(hb, 0, sizeof *hb);
    hb->bytes = n * sizeof(g16_fr);
    if (pin && !abc) {
        if (w_len && g16__gpu_host_alloc((void **)&hb->w, w_len * sizeof(g16_fr), NULL) == G16_OK)
            hb->w_bytes = w_len * sizeof(g16_fr);
        else
            hb->w = NULL; /* the caller's witness is uploaded from pageable memory */
        hb->pinned = 1;
        return G16_OK;
    }
    if (pin) {
        g16__span sp = g16__span_begin_n(c_host ? "gpu.pin_abc" : "gpu.pin_ab", (2 + !!c_host) * hb->bytes);
        int ok = g16__gpu_host_alloc((void **)&hb->a, hb->bytes, NULL) == G16_OK &&
                 g16__gpu_host_alloc((void **)&hb->b, hb->bytes, NULL) == G16_OK &&
                 (!c_host || g16__gpu_host_alloc((void **)&hb->c, hb->bytes, NULL) == G16_OK);
        if (ok && w_len && g16__gpu_host_alloc((void **)&hb->w, w_len * sizeof(g16_fr), NULL) == G16_OK)
            hb->w_bytes = w_len * sizeof(g16_fr);
        else
            hb->w = NULL;
        g16__span_end(sp);
        hb->pinned = 1;
        if (ok)
            return G16_OK;
        free_h_buffers(hb);
        hb->bytes = n * sizeof(g16_fr);
    }
    if (n <= SIZE_MAX / (3 * sizeof(g16_fr)) && (hb->a = g16__alloc_large(3 * hb->bytes))) {
        hb->block = 1;
        hb->b = hb->a + n;
        hb->c = hb->b + n;
        return G16_OK;
    }
    return g16__error(err, G16_ERR_NOMEM, "g16_prove: 3 x %zu bytes for a, b, c", n * sizeof(g16_fr));
}

/* c for a slot that has a and b but no c (a GPU worker whose device forms c, given a batch whose
 * rows nobody checks: G16_PROVE_NO_CHECK): page-locked where the slot is, else (or when pinning
 * fails) an ordinary large allocation. Kept for later batches. */
static g16_status h_buffers_add_c(h_buffers *hb, g16_error *err)
{
    g16_status st = G16_OK;
    if (!hb->a || hb->c)
        return G16_OK;
    g16__span sp = g16__span_begin_n("prove.add_c", hb->bytes);
    if (hb->pinned && g16__gpu_host_alloc((void **)&hb->c, hb->bytes, NULL) == G16_OK)
        goto cleanup;
    hb->c = g16__alloc_large(hb->bytes);
    hb->c_large = 1;
    if (!hb->c)
        st = g16__error(err, G16_ERR_NOMEM, "g16_prove: %zu bytes for c (rows unchecked)", hb->bytes);
cleanup:
    g16__span_end(sp);
    return st;
}

/* Where a proof's H step and MSMs run: a CPU worker (domain tables, one a/b/c set) or a GPU
 * worker (prove_gpu.h, two a/b/c sets: the CPU stage of the next circuit fills one while the
 * GPU works from the other). */
typedef struct {
    g16__ntt_domain *dom;
    g16__gpu_prover *gp;
    h_buffers hb[2];
} worker;

static void worker_close(worker *wk)
{
    /* the device state first: its destruction waits for the streams, so no copy (a prefetch of
     * a/b/c) still reads the page-locked slots freed next */
    g16__gpu_prover_destroy(wk->gp);
    free_h_buffers(&wk->hb[0]);
    free_h_buffers(&wk->hb[1]);
    g16__ntt_domain_destroy(wk->dom);
    memset(wk, 0, sizeof *wk);
}

static g16_status worker_open(worker *wk, int device, size_t withheld, const struct g16_params *p,
                              const struct g16_r1cs *r, g16_error *err)
{
    g16_status st;
    memset(wk, 0, sizeof *wk);
    if (device < 0)
        st = g16__ntt_domain_create(&wk->dom, r->log_n, g16__params_root_generator(p), NULL, err);
    else
        st = g16__gpu_prover_create_shared(&wk->gp, device, withheld, p, r, err);
    size_t w_len = r->num_inputs + r->num_aux;
    int abc = !(wk->gp && g16__gpu_prover_spmv(wk->gp)), c_host = !(wk->gp && g16__gpu_prover_forms_c(wk->gp));
    if (st == G16_OK)
        st = alloc_h_buffers(&wk->hb[0], r->n, w_len, device >= 0, abc, c_host, err);
    if (st == G16_OK && device >= 0)
        st = alloc_h_buffers(&wk->hb[1], r->n, w_len, 1, abc, c_host, err);
    if (st != G16_OK)
        worker_close(wk);
    return st;
}

void g16__backend_notice(const char *what)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static char last[512];
    pthread_mutex_lock(&mu);
    if (strncmp(last, what, sizeof last - 1) != 0) {
        snprintf(last, sizeof last, "%s", what);
        fprintf(stderr, "g16: backend %s\n", what);
    }
    pthread_mutex_unlock(&mu);
}

/* The workers' devices: -1 for one CPU worker, else CUDA device indices (after
 * CUDA_VISIBLE_DEVICES) from `devices` ("0,1,1": one worker each; "all"), G16_DEVICES when that
 * is NULL, else every visible device. At most max_workers (the batch size). */
#define MAX_WORKERS 64
static g16_status choose_devices(int *dev, size_t *nw, const char *choice, const char *devices, size_t max_workers,
                                 g16_error *err)
{
    *nw = 1;
    dev[0] = -1;
    if (!choice)
        choice = getenv("G16_BACKEND");
    if (!choice || !*choice)
        choice = "auto";
    if (!strcmp(choice, "cpu"))
        return G16_OK;
    int want_gpu = !strcmp(choice, "gpu");
    if (!want_gpu && strcmp(choice, "auto") != 0)
        return g16__error(err, G16_ERR_ARG, "backend '%s': expected cpu, gpu or auto", choice);
    int count = g16__gpu_device_count();
    if (count == 0) {
        if (want_gpu)
            return g16__error(err, G16_ERR_NO_DEVICE, "backend gpu: %s",
                              g16__gpu_compiled() ? "no CUDA device is visible" : "this build has no CUDA backend");
        g16__backend_notice("auto: cpu (no CUDA device)");
        return G16_OK;
    }
    if (!devices)
        devices = getenv("G16_DEVICES");
    size_t n = 0;
    if (!devices || !*devices || !strcmp(devices, "all")) {
        for (int i = 0; i < count && n < MAX_WORKERS; i++)
            dev[n++] = i;
    } else {
        const char *s = devices;
        for (;;) {
            char *end;
            long v = *s >= '0' && *s <= '9' ? strtol(s, &end, 10) : -1;
            if (v < 0 || v >= count || (*end && *end != ',') || (*end == ',' && !end[1]))
                return g16__error(err, G16_ERR_ARG, "devices '%s': expected indices 0..%d separated by commas, or all",
                                  devices, count - 1);
            if (n == MAX_WORKERS)
                return g16__error(err, G16_ERR_ARG, "devices '%s': more than %d workers", devices, MAX_WORKERS);
            dev[n++] = (int)v;
            if (!*end)
                break;
            s = end + 1;
        }
    }
    *nw = n < max_workers ? n : max_workers;
    if (*nw == 0)
        *nw = 1;
    return G16_OK;
}

static g16_status circuit_error(g16_status st, size_t idx, g16_error *err)
{
    if (st != G16_OK && err && strncmp(err->msg, "circuit ", 8) != 0)
        g16__error_prefix(err, "circuit %zu: ", idx);
    return st;
}

/* dst = src (n bytes) on all threads, in 32 MiB pieces (a witness is gigabytes at 2^26 and up). */
typedef struct {
    unsigned char *dst;
    const unsigned char *src;
    size_t n;
} copy_job;

#define COPY_PIECE ((size_t)32 << 20)

static void copy_pieces(void *ctx, size_t begin, size_t end)
{
    copy_job *j = ctx;
    for (size_t k = begin; k < end; k++) {
        size_t off = k * COPY_PIECE, len = j->n - off < COPY_PIECE ? j->n - off : COPY_PIECE;
        memcpy(j->dst + off, j->src + off, len);
    }
}

static void copy_parallel(void *dst, const void *src, size_t n)
{
    copy_job j = {dst, src, n};
    g16__parallel_for((n + COPY_PIECE - 1) / COPY_PIECE, 1, copy_pieces, &j);
}

/* The rows a_i·b_i = c_i are tested on the worker's device, in its H step (prove_gpu.h,
 * G16_GPU_CHECK=1), instead of by the CPU stage. */
static int rows_on_gpu(const worker *wk, unsigned flags)
{
    return wk->gp && g16__gpu_prover_checks(wk->gp) && !(flags & G16_PROVE_NO_CHECK);
}

/* The witness check of the CPU stage (skipped with G16_PROVE_NO_CHECK), on the rows synth_eval
 * left in hb: one product per row instead of g16_r1cs_check's three sparse dot products; with
 * rows_gpu only the witness's length and w[0] (the rows are the H step's, prove_finish). */
static g16_status synth_check(size_t idx, const struct g16_r1cs *r, const g16_fr *w, const h_buffers *hb,
                              unsigned flags, int rows_gpu, g16_error *err)
{
    if (flags & G16_PROVE_NO_CHECK)
        return G16_OK;
    if (!rows_gpu && !hb->a) /* the device computes a, b, c only with the rows checked there */
        return g16__error(err, G16_ERR_INTERNAL, "g16_prove: circuit %zu: no a, b, c on the host to check", idx);
    g16__span span = g16__span_begin_n("prove.synth", idx);
    g16__span sp = g16__span_begin(rows_gpu ? "r1cs.check_witness" : "r1cs.check");
    g16_status st = rows_gpu ? g16__r1cs_check_witness(r, w, r->num_inputs + r->num_aux, err)
                             : g16__r1cs_check_evals(r, w, r->num_inputs + r->num_aux, hb->a, hb->b, hb->c, err);
    g16__span_end(sp);
    g16__span_end(span);
    return circuit_error(st, idx, err);
}

/* The first part of the CPU stage of a GPU worker: the witness into its page-locked slot (none:
 * nothing to do), before the SpMV, so that the GPU stage can run the circuit's witness MSMs from
 * it while the SpMV runs (prove_gpu.h, g16__gpu_prover_msms_w). */
static void synth_copy_w(size_t idx, const g16_fr *w, h_buffers *hb)
{
    if (!hb->w)
        return;
    g16__span span = g16__span_begin_n("prove.synth", idx);
    g16__span sp = g16__span_begin_n("copy_w", hb->w_bytes);
    copy_parallel(hb->w, w, hb->w_bytes);
    g16__span_end(sp);
    g16__span_end(span);
}

/* The rest of the CPU stage: a, b, c = A·w, B·w, C·w into hb; nothing when the worker's device
 * computes them (hb has no a, b, c then: prove_gpu.h, g16__gpu_prover_spmv). */
static g16_status synth_eval(size_t idx, const struct g16_r1cs *r, const g16_fr *w, h_buffers *hb, g16_error *err)
{
    if (!hb->a)
        return G16_OK;
    g16__span span = g16__span_begin_n("prove.synth", idx);
    g16__span sp = g16__span_begin_n("spmv", r->num_constraints);
    g16_status st = g16_r1cs_eval(r, w, r->num_inputs + r->num_aux, hb->a, hb->b, hb->c, r->n, err);
    g16__span_end(sp);
    g16__span_end(span);
    return circuit_error(st, idx, err);
}

/* The CPU stage of one proof (serial workers). */
static g16_status prove_synth(size_t idx, const struct g16_r1cs *r, const g16_fr *w, h_buffers *hb, unsigned flags,
                              int rows_gpu, g16_error *err)
{
    synth_copy_w(idx, w, hb);
    g16_status st = synth_eval(idx, r, w, hb, err);
    return st == G16_OK ? synth_check(idx, r, w, hb, flags, rows_gpu, err) : st;
}

/* The H step of a circuit whose a, b, c the device computes (abc_dev: the batch's first, prove_gpu.h,
 * g16__gpu_prover_spmv_first). Where its staged matrices find no room after all (G16_ERR_NOMEM: the
 * card's memory taken since the plan, e.g. by another process), this thread computes a, b, c on the
 * CPU as the synth thread does for the other circuits, checks the rows there when the batch is
 * checked, and takes the H step from them: the circuit proves, later, instead of failing. *rows_gpu
 * is then 0 (the device checked nothing). */
static g16_status h_device_abc(size_t idx, const struct g16_r1cs *r, const g16_fr *w, worker *wk, h_buffers *hb,
                               const g16_fr *wd, int rows_checked, int *rows_gpu, g16_error *err)
{
    g16_status st = g16__gpu_prover_h(wk->gp, NULL, NULL, NULL, wd, err);
    if (st != G16_ERR_NOMEM || !hb->a)
        return st;
    *rows_gpu = 0;
    if ((st = synth_eval(idx, r, w, hb, err)) == G16_OK &&
        (st = synth_check(idx, r, w, hb, rows_checked ? 0 : G16_PROVE_NO_CHECK, 0, err)) == G16_OK)
        st = g16__gpu_prover_h(wk->gp, hb->a, hb->b, hb->c, wd, err);
    return st;
}

/* The rest of one proof, from a, b, c in hb: H, MSMs, assembly, decoding with every check and
 * self-verification. poll (GPU workers, may be NULL): called between the GPU MSMs (prove_gpu.h).
 * next (GPU workers, may be NULL): where the prover pairs, gives the next circuit's witness once
 * msm.h is done, for the two circuits' witness MSMs at once (prove_gpu.h,
 * g16__gpu_prover_msms_next); both take poll_ctx. pre (GPU workers, may be NULL): the witness
 * MSMs' sums, already computed (early, or with the previous circuit's); then only msm.h runs here.
 * rows_gpu: the H step tested the rows on the device; its verdict here (a failing row ends the
 * proof before the MSMs, with g16_r1cs_check's error). rows_checked: some check of the rows (the
 * CPU's or the device's) decides whether this proof counts, so the GPU's H step may take c = a·b
 * (prove_gpu.h, g16__gpu_prover_set_c_from_ab). */
static g16_status prove_finish(g16_proof *proof, size_t idx, const struct g16_params *p, const struct g16_r1cs *r,
                               const g16_fr *w, worker *wk, h_buffers *hb, int abc_dev, const g16_pvk *pvk,
                               const g16_fr *rr, const g16_fr *ss, g16__gpu_poll_fn poll, g16__gpu_next_fn next,
                               void *poll_ctx, const g16__query_sums *pre, int rows_gpu, int rows_checked,
                               g16_error *err)
{
    g16_status st = G16_OK;
    g16__span span = g16__span_begin_n("prove.circuit", idx);
    g16__span sp = g16__span_begin_n(wk->gp ? "ntt.h.gpu" : "ntt.h", r->n);
    const g16_fr *wd = hb->w ? hb->w : w; /* the witness the GPU reads: the pinned copy if any */
    if (wk->gp) { /* (hb->a NULL, or abc_dev: from the witness, by the device's SpMV) */
        g16__gpu_prover_set_c_from_ab(wk->gp, rows_checked);
        st = abc_dev ? h_device_abc(idx, r, w, wk, hb, pre ? NULL : wd, rows_checked, &rows_gpu, err)
                     : g16__gpu_prover_h(wk->gp, hb->a, hb->b, hb->c, pre ? NULL : wd, err);
    } else {
        g16__ntt_groth16_h(wk->dom, hb->a, hb->b, hb->c);
    }
    g16__span_end(sp);
    if (st == G16_OK && rows_gpu) {
        st = g16__r1cs_row_verdict(r, g16__gpu_prover_check_first_bad(wk->gp), err);
        if (st != G16_OK)
            g16__gpu_prover_drop_h(wk->gp); /* the proof ends here: no MSMs will take that H */
    }
    if (st != G16_OK)
        goto cleanup;
    g16__query_sums m;
    if (wk->gp && pre) {
        m = *pre;
        st = g16__gpu_prover_msm_h(wk->gp, &m.h, poll, poll_ctx, err);
    } else if (wk->gp) {
        st = g16__gpu_prover_msms_next(wk->gp, &m, wd, poll, next, poll_ctx, err);
    } else {
        st = run_msms(&m, p, r, w, hb->a, hb->block ? hb->b : NULL, 2 * hb->bytes, err);
    }
    if (st != G16_OK)
        goto cleanup;
    g16_p1 sum_c;
    g16__p1_add(&sum_c, &m.h, &m.l);
    g16__groth16_assemble(proof, &p->vk, &m.a, &m.b1, &m.b2, &sum_c, rr, ss);
    /* The proof goes through the decoder's checks (curve, subgroup) as a verifier would read it,
     * always: parameters loaded without subgroup checks cannot make a proof with a torsion
     * component (which would leak the witness modulo the small cofactor primes) reach the caller. */
    uint8_t bytes[G16_PROOF_BYTES];
    g16_proof_write(bytes, proof);
    if ((st = g16_proof_read(proof, bytes, err)) != G16_OK)
        goto cleanup;
    if (pvk && (st = g16__verify_with(pvk, proof, w + 1, r->num_inputs - 1, err)) != G16_OK)
        g16__error(err, G16_ERR_VERIFY_FAILED, "circuit %zu: the proof does not verify (refusing to return it)", idx);
cleanup:
    /* A GPU proof that failed between its H step and msm.h (a device error in the upload, a poll or
     * the MSM) would leave the worker holding an H that no MSM will take, and a kept prover would
     * then refuse every later circuit's early witness MSMs (test_fakegpu_faults found it) */
    if (st != G16_OK && wk->gp)
        g16__gpu_prover_drop_h(wk->gp);
    g16__span_end(span);
    return circuit_error(st, idx, err);
}

/* A prover: its workers (each with its device state and a, b, c buffers), kept between calls. */
struct g16_prover {
    const struct g16_params *p;
    const struct g16_r1cs *r;
    size_t nw;
    worker wk[MAX_WORKERS];
    int dev[MAX_WORKERS];
    g16_pvk *pvk; /* made by the first call that verifies */
    pthread_mutex_t call; /* one g16_prover_prove at a time */
};

/* The batch of one call, shared by the workers: each claims the next circuit until none is left
 * or one has failed; the error of the lowest failing circuit is the one reported. */
typedef struct {
    g16_prover *pv;
    const g16_fr *const *witnesses;
    const g16_fr *rs; /* r_i, s_i pairs */
    unsigned flags;
    size_t count;
    g16_proof *out;
    size_t next;       /* atomic: the next circuit to claim */
    int failed;        /* atomic */
    pthread_mutex_t mu; /* guards the fields below */
    g16_status st;
    size_t bad; /* lowest failing circuit */
    g16_error err;
} batch;

typedef struct {
    batch *b;         /* a prove call's batch, or NULL when opening the worker */
    g16_prover *pv;
    size_t index;     /* worker index; worker 0 runs on the caller's thread */
    size_t withheld;  /* opening: bytes of its device left to the workers opened on it before */
    g16_status st;    /* opening: the result */
    g16_error err;
    pthread_t th;
    int started;
} worker_arg;

static void batch_fail(batch *b, size_t idx, g16_status st, const g16_error *e)
{
    pthread_mutex_lock(&b->mu);
    if (b->st == G16_OK || idx < b->bad) {
        b->st = st;
        b->bad = idx;
        b->err = *e;
    }
    pthread_mutex_unlock(&b->mu);
    __atomic_store_n(&b->failed, 1, __ATOMIC_RELEASE);
}

/* Names a thread that drives work of its own: the trace places its spans and its pool work as
 * its own (roots of their paths) instead of under the caller's spans. */
static void name_thread(const char *what, size_t index)
{
    char name[48];
    snprintf(name, sizeof name, "%s %zu", what, index);
    g16__trace_thread(name, G16__TRACE_DRIVER);
}

static void *worker_open_main(void *arg)
{
    worker_arg *wa = arg;
    if (wa->index > 0)
        name_thread("prover open", wa->index);
    wa->st = worker_open(&wa->pv->wk[wa->index], wa->pv->dev[wa->index], wa->withheld, wa->pv->p, wa->pv->r,
                         &wa->err);
    return NULL;
}

/* The next circuit of the batch for this worker, or count when none is left or one failed. */
static size_t batch_claim(batch *b)
{
    if (__atomic_load_n(&b->failed, __ATOMIC_ACQUIRE))
        return b->count;
    size_t i = __atomic_fetch_add(&b->next, 1, __ATOMIC_RELAXED);
    return i < b->count ? i : b->count;
}

/* Circuit idx or one below it failed, so idx's proof cannot change what the call reports. A circuit
 * below the first failure is still proved: its own failure may be the lowest (with the rows checked on the
 * device only its proof finds a bad witness; skipped, the batch named a higher circuit than a single
 * worker proving in order does, test_batch_failure_lowest). */
static int batch_failed_upto(batch *b, size_t idx)
{
    if (!__atomic_load_n(&b->failed, __ATOMIC_ACQUIRE))
        return 0;
    pthread_mutex_lock(&b->mu);
    int upto = b->st != G16_OK && b->bad <= idx;
    pthread_mutex_unlock(&b->mu);
    return upto;
}

static const g16_pvk *batch_pvk(const batch *b)
{
    return (b->flags & G16_PROVE_NO_VERIFY) ? NULL : b->pv->pvk;
}

/* Both stages of each claimed circuit on this thread, one circuit at a time (a CPU worker; a GPU
 * worker whose synth thread could not start). */
static void serial_run(batch *b, worker *wk)
{
    g16_error e = {0, ""};
    for (size_t i; (i = batch_claim(b)) < b->count;) {
        int rows_gpu = rows_on_gpu(wk, b->flags);
        g16_status st = prove_synth(i, b->pv->r, b->witnesses[i], &wk->hb[0], b->flags, rows_gpu, &e);
        if (st == G16_OK)
            st = prove_finish(&b->out[i], i, b->pv->p, b->pv->r, b->witnesses[i], wk, &wk->hb[0], 0, batch_pvk(b),
                              &b->rs[2 * i], &b->rs[2 * i + 1], NULL, NULL, NULL, NULL, rows_gpu,
                              !(b->flags & G16_PROVE_NO_CHECK), &e);
        if (st != G16_OK)
            batch_fail(b, i, st, &e);
    }
}

/* A GPU worker's two stages: the synth thread claims circuits and fills the two a/b/c slots in
 * turn (SpMV, then the witness check); the worker's own thread takes them in the same order for
 * the GPU stage. With the SpMV on the device (prove_gpu.h, g16__gpu_prover_spmv; the default when
 * the matrices fit) a slot holds only the witness: the synth thread copies it and checks its
 * length and w[0], the H step computes a, b, c and checks the rows, and the prefetch below copies
 * the next witness instead of a, b, c. Slot states: FREE -> (synth: a, b, c) -> READY -> (GPU stage) -> FREE. The check
 * runs after the slot is READY, while the GPU works on it: the first circuit of a batch reaches
 * the GPU after its SpMV alone (the check was about half of the CPU stage: 1.0 of 1.9 s per
 * circuit at 2^27 on the H200's host), and the GPU stage waits for the check's verdict (checked,
 * check_st) before the proof counts: a witness that fails the check never gives a proof.
 *
 * Prefetch (prove_gpu.h): the synth thread enqueues a slot's a, b, c to the device on the side
 * stream as soon as the slot is READY (prefetch_early: only when no prefetch is pending, i.e. the
 * spare device set is free), and while the MSMs of the circuit in slot `cur` run the GPU stage
 * polls the other slot (prefetch_next, between the MSMs) for the case the spare set was still
 * busy then; the next H step takes the copies without an upload (in the a slot mode, without a
 * spare set, the next a alone: by the polls once msm.h is done, or, where the first and third
 * vectors take turns, by either thread from the end of the current H step on). Why this is safe:
 * - the synth thread writes a slot's a, b, c only while it is FREE (synth_eval), and only reads
 *   them once READY (the check); a READY slot becomes FREE only here, on this thread, after
 *   g16__gpu_prover_release_host, which waits for any prefetch copy still reading it (in the
 *   usual case the H step of that slot already waited for the copies; the release matters when
 *   the slot is skipped after a failure, or its proof failed);
 * - the copies go into the prover's spare device set, never the one of the circuit whose MSMs run
 *   (the a slot: into a vector that no MSM of the current circuit reads, and only while no H step
 *   runs: prove_gpu.h, G16__GPU_PF_A);
 * - at the end of a batch nothing is left in flight (prefetch_cancel), before the next call's
 *   synth thread rewrites the slots or the worker frees them (worker_close destroys the device
 *   state, which waits for the streams, before the slots are freed).
 *
 * Early witness MSMs (G16_GPU_EARLY_W): the synth thread copies a circuit's witness into the slot
 * first (w_ready), then runs the SpMV. A GPU stage that waits for that slot runs the circuit's four
 * witness MSMs meanwhile (prove_gpu.h, g16__gpu_prover_msms_w), and its proof then needs only the
 * H step and msm.h. It happens at a batch's start, where the GPU waited ~470 ms for the first
 * circuit's SpMV at 2^26 (H200: 2.81 / 2.70 -> 2.70 / 2.64 s per batch of 3, same job), and
 * whenever the CPU stage is the slower one. The slot's witness is not rewritten before the slot is
 * FREE, which is after its proof.
 *
 * Witness MSMs in pairs (prove_gpu.h, g16__gpu_prover_pairs: some witness query streamed): after
 * msm.h of the circuit in slot cur, the GPU stage takes the other slot's witness (pair_next) and
 * the prover runs both circuits' witness MSMs over each streamed chunk; that circuit's proof then
 * takes the sums as early ones. At a batch's start the synth thread copies the first two
 * witnesses before the first SpMV, so that the early witness MSMs are a pair as well; the GPU
 * stage uploads the first while the second is copied (early_next). */
enum { SLOT_FREE, SLOT_READY };
typedef struct {
    batch *b;
    worker *wk;
    size_t index;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state[2];
    size_t idx[2];
    int checked[2];          /* the check of the slot's circuit is done ... */
    g16_status check_st[2];  /* ... with this result (a failure is reported by the synth thread) */
    int synth_done;
    int cur;                 /* the GPU stage's slot (its thread only) */
    /* Early witness MSMs (prove_gpu.h, g16__gpu_prover_msms_w). w_ready: the synth thread copied the
     * slot's witness (circuit idx_w) into its page-locked slot, before the SpMV. The rest belongs
     * to the GPU stage's thread: the slot's witness MSMs ran (have_early) with this result. */
    int w_ready[2];
    size_t idx_w[2];
    int early_mode;          /* 0: off; 1: while the GPU stage waits for the slot; 2: always (tests) */
    /* Early witness MSMs in pairs (prove_gpu.h, g16__gpu_prover_msms_w_next): at the batch's start
     * the synth thread claims two circuits and copies both witnesses before the first SpMV, so
     * that the GPU stage's early MSMs take both; the first is w_ready as soon as it is copied,
     * pair_coming while the second is (the GPU stage uploads the first meanwhile, then waits for
     * it in early_next, which sets early_took when it takes it); pre: the slot's circuit pre_idx is
     * claimed and its witness copied already (the synth thread's own). */
    int pair_early, pair_coming, early_slot, early_took;
    int pair_overlap; /* G16_GPU_PAIR_OVERLAP (default 1): 0 = the second copied before the first is ready */
    int pre[2];
    size_t pre_idx[2];
    /* The batch's first circuit on the device (prove_gpu.h, g16__gpu_prover_spmv_first): spmv_first
     * says the route is taken; dev[slot] that the slot's a, b, c are the device's (the synth thread
     * copied its witness only, and checked its length and w[0]; the rows are checked on the
     * device). */
    int spmv_first, dev[2];
    int have_early[2];
    g16_status early_st[2];
    g16_error early_err[2];
    g16__query_sums early[2];
} pipe_ctx;

/* A slot whose inputs to the H step are page-locked (the witness with the SpMV on the device, else
 * a, b, c): from pageable memory the copy would hold the calling thread about as long as the H
 * step's own upload, no gain, so no prefetch. */
static int slot_prefetchable(const g16__gpu_prover *gp, const h_buffers *hb)
{
    return g16__gpu_prover_spmv(gp) ? hb->w != NULL : hb->pinned;
}

/* The synth thread's prefetch of the slot it just made READY (prove_gpu.h: _early), from the
 * second circuit it fills on: the first one's GPU stage is idle, waiting for it, and uploads it
 * at once. Only from page-locked slots, and not after a failure. A device error fails the batch
 * at this circuit (its copies could not be enqueued). */
static g16_status prefetch_early(pipe_ctx *pc, int slot, size_t nfilled, g16_error *err)
{
    h_buffers *hb = &pc->wk->hb[slot];
    g16__gpu_prover *gp = pc->wk->gp;
    int mode = gp ? g16__gpu_prover_prefetch_mode(gp) : G16__GPU_PF_OFF; /* (the a slot: the prover decides) */
    if (nfilled == 0 || !gp || !slot_prefetchable(gp, hb) || mode == G16__GPU_PF_OFF ||
        __atomic_load_n(&pc->b->failed, __ATOMIC_ACQUIRE))
        return G16_OK;
    g16__span sp = g16__span_begin_n("prove.prefetch", pc->idx[slot]);
    g16_status st = g16__gpu_prover_prefetch_early(gp, hb->a, hb->b, hb->c, hb->w, err);
    g16__span_end(sp);
    return st;
}

static void *synth_main(void *arg)
{
    pipe_ctx *pc = arg;
    batch *b = pc->b;
    size_t nfilled = 0;
    g16_error e = {0, ""};
    name_thread("prove synth", pc->index);
    for (int slot = 0;; slot ^= 1) {
        pthread_mutex_lock(&pc->mu);
        while (pc->state[slot] != SLOT_FREE && !__atomic_load_n(&b->failed, __ATOMIC_ACQUIRE))
            pthread_cond_wait(&pc->cv, &pc->mu);
        pthread_mutex_unlock(&pc->mu);
        size_t i;
        int dev = nfilled == 0 && pc->spmv_first; /* (never with pair_early: gpu_worker_run) */
        if (pc->pre[slot]) {
            i = pc->pre_idx[slot];
            pc->pre[slot] = 0;
        } else if ((i = batch_claim(b)) >= b->count) {
            break;
        } else if (dev) {
            synth_copy_w(i, b->witnesses[i], &pc->wk->hb[slot]); /* (ready with the slot, below) */
        } else {
            synth_copy_w(i, b->witnesses[i], &pc->wk->hb[slot]);
            /* the batch's start: the next circuit's witness too, into the other slot (free), while
             * the GPU stage uploads this one (pair_early: both slots page-locked) */
            size_t i2 = nfilled == 0 && pc->pair_early ? batch_claim(b) : b->count;
            int coming = i2 < b->count && pc->pair_overlap; /* (else both copied, then both ready) */
            if (i2 < b->count && !coming)
                synth_copy_w(i2, b->witnesses[i2], &pc->wk->hb[slot ^ 1]);
            if (pc->wk->hb[slot].w) {
                pthread_mutex_lock(&pc->mu);
                pc->w_ready[slot] = 1;
                pc->idx_w[slot] = i;
                if (i2 < b->count) {
                    pc->pair_coming = coming;
                    pc->w_ready[slot ^ 1] = !coming;
                    pc->idx_w[slot ^ 1] = i2;
                    pc->pre[slot ^ 1] = 1;
                    pc->pre_idx[slot ^ 1] = i2;
                }
                pthread_cond_broadcast(&pc->cv);
                pthread_mutex_unlock(&pc->mu);
            }
            if (coming) {
                synth_copy_w(i2, b->witnesses[i2], &pc->wk->hb[slot ^ 1]);
                pthread_mutex_lock(&pc->mu);
                pc->w_ready[slot ^ 1] = 1; /* (idx_w set above) */
                pc->pair_coming = 0;
                pthread_cond_broadcast(&pc->cv);
                pthread_mutex_unlock(&pc->mu);
            }
        }
        g16_status st = dev ? G16_OK : synth_eval(i, b->pv->r, b->witnesses[i], &pc->wk->hb[slot], &e);
        if (st != G16_OK) {
            batch_fail(b, i, st, &e);
            break;
        }
        pthread_mutex_lock(&pc->mu);
        pc->state[slot] = SLOT_READY;
        pc->idx[slot] = i;
        pc->checked[slot] = 0;
        pc->dev[slot] = dev;
        if (dev && pc->wk->hb[slot].w) { /* (with the slot: no early witness MSMs before its H step) */
            pc->w_ready[slot] = 1;
            pc->idx_w[slot] = i;
        }
        pthread_cond_broadcast(&pc->cv);
        pthread_mutex_unlock(&pc->mu);
        st = prefetch_early(pc, slot, nfilled++, &e);
        if (st == G16_OK)
            st = synth_check(i, b->pv->r, b->witnesses[i], &pc->wk->hb[slot], b->flags,
                             dev || rows_on_gpu(pc->wk, b->flags), &e);
        if (st != G16_OK)
            batch_fail(b, i, st, &e);
        pthread_mutex_lock(&pc->mu);
        pc->checked[slot] = 1;
        pc->check_st[slot] = st;
        pthread_cond_broadcast(&pc->cv);
        pthread_mutex_unlock(&pc->mu);
        if (st != G16_OK)
            break;
    }
    pthread_mutex_lock(&pc->mu);
    pc->synth_done = 1;
    pthread_cond_broadcast(&pc->cv);
    pthread_mutex_unlock(&pc->mu);
    return NULL;
}

/* The poll of g16__gpu_prover_msms (GPU stage thread, between the MSMs of the circuit in slot
 * cur): prefetches the other slot's a, b, c once it is READY (G16_GPU_PREFETCH=wait: waits for
 * that, or for the synth thread's end, first). A READY slot stays READY until this thread frees
 * it, and its a, b, c were written before it became READY (under pc->mu), so they are final. */
static g16_status prefetch_next(void *ctx, g16_error *err)
{
    pipe_ctx *pc = ctx;
    int next = pc->cur ^ 1;
    g16__gpu_prover *gp = pc->wk->gp;
    pthread_mutex_lock(&pc->mu);
    if (g16__gpu_prover_prefetch_mode(gp) == G16__GPU_PF_WAIT && pc->state[next] != SLOT_READY && !pc->synth_done) {
        /* cannot deadlock: the synth thread fills the slots in the same order as this thread takes
         * them, and `next` was freed before this circuit started: it is filling `next`, or has
         * filled it (READY), or has stopped (synth_done); it never waits for `cur` (held here)
         * while `next` is not READY */
        g16__span sp = g16__span_begin("wait.next_slot");
        while (pc->state[next] != SLOT_READY && !pc->synth_done)
            pthread_cond_wait(&pc->cv, &pc->mu);
        g16__span_end(sp);
    }
    int ready = pc->state[next] == SLOT_READY;
    pthread_mutex_unlock(&pc->mu);
    h_buffers *hb = &pc->wk->hb[next];
    /* (from pageable slots the GPU would idle between two MSMs during the copy) */
    if (!ready || !slot_prefetchable(gp, hb))
        return G16_OK;
    return g16__gpu_prover_prefetch(gp, hb->a, hb->b, hb->c, hb->w, err);
}

/* Waits until the check of the circuit in `slot` is done; its result. */
static g16_status wait_check(pipe_ctx *pc, int slot)
{
    g16__span sp = g16__span_begin("wait.check");
    pthread_mutex_lock(&pc->mu);
    while (!pc->checked[slot])
        pthread_cond_wait(&pc->cv, &pc->mu);
    g16_status st = pc->check_st[slot];
    pthread_mutex_unlock(&pc->mu);
    g16__span_end(sp);
    return st;
}

/* The early witness MSMs of `slot` are due: on, its witness copied, not done yet, no failure (pc->mu
 * held). */
static int early_due(const pipe_ctx *pc, int slot)
{
    return pc->early_mode && pc->w_ready[slot] && !pc->have_early[slot] &&
           !__atomic_load_n(&pc->b->failed, __ATOMIC_ACQUIRE);
}

/* The second witness of the batch's early pair (prove_gpu.h, g16__gpu_prover_msms_w_next; the
 * GPU stage's thread, once the first has crossed PCIe): the other slot's, once the synth thread
 * has copied it (pair_coming until then; it never waits for this thread meanwhile). */
static const g16_fr *early_next(void *ctx, int wait, g16__query_sums **out2, g16_status **st2)
{
    pipe_ctx *pc = ctx;
    int other = pc->early_slot ^ 1;
    const g16_fr *w = NULL;
    g16__span sp = wait ? g16__span_begin("wait.pair_copy") : 0; /* (the GPU idles while it lasts) */
    pthread_mutex_lock(&pc->mu);
    while (wait && pc->pair_coming && !__atomic_load_n(&pc->b->failed, __ATOMIC_ACQUIRE))
        pthread_cond_wait(&pc->cv, &pc->mu);
    if (early_due(pc, other)) {
        pc->have_early[other] = 1;
        pc->early_took = 1;
        *out2 = &pc->early[other];
        *st2 = &pc->early_st[other];
        w = pc->wk->hb[other].w;
    }
    pthread_mutex_unlock(&pc->mu);
    g16__span_end(sp);
    return w;
}

/* Runs them (pc->mu held on entry and on return, released meanwhile): the waiting span *wait
 * ends before and a new one begins after, so that "wait.synth" stays time the GPU stage idled.
 * With the other slot's witness copied already or coming (the batch's early pair), for both. */
static void early_run(pipe_ctx *pc, int slot, g16__span *wait)
{
    size_t i = pc->idx_w[slot];
    int other = slot ^ 1, two = pc->pair_early && early_due(pc, other); /* (the other slot: the next circuit) */
    int coming = pc->pair_early && !two && pc->pair_coming;
    pc->have_early[slot] = 1;
    pc->have_early[other] |= two;
    pc->early_slot = slot;
    pc->early_took = 0;
    pthread_mutex_unlock(&pc->mu);
    g16__span_end(*wait);
    g16__span sp = g16__span_begin_n("prove.witness_early", i);
    if (coming) {
        pc->early_st[slot] = g16__gpu_prover_msms_w_next(pc->wk->gp, &pc->early[slot], pc->wk->hb[slot].w, early_next,
                                                         pc, &pc->early_err[slot]);
        two = pc->early_took; /* (set by early_next, on this thread) */
    } else {
        pc->early_st[slot] = g16__gpu_prover_msms_w2(pc->wk->gp, &pc->early[slot], pc->wk->hb[slot].w,
                                                     two ? &pc->early[other] : NULL, two ? pc->wk->hb[other].w : NULL,
                                                     &pc->early_err[slot]);
    }
    if (two) {
        pc->early_st[other] = pc->early_st[slot];
        pc->early_err[other] = pc->early_err[slot];
    }
    g16__span_end(sp);
    *wait = g16__span_begin("wait.synth");
    pthread_mutex_lock(&pc->mu);
}

/* The next circuit's witness for witness MSMs in pairs (prove_gpu.h, g16__gpu_prover_msms_next;
 * the GPU stage's thread, before msm.h of the circuit in slot cur without waiting, else once it is
 * done): the other slot's, once the synth thread has copied it there. With wait, waits for that
 * (span wait.next_w): the other slot was freed before this circuit started, so the synth thread,
 * done with this circuit's check, fills it next or stops (synth_done); it never waits for this
 * thread meanwhile. The sums go where the slot's early witness MSMs' would, and its proof takes
 * them as those (with their status). */
static const g16_fr *pair_next(void *ctx, int wait, g16__query_sums **out2, g16_status **st2)
{
    pipe_ctx *pc = ctx;
    int other = pc->cur ^ 1;
    const g16_fr *w = NULL;
    if (!pc->wk->hb[other].w) /* (no page-locked slot: the synth thread copies no witness) */
        return NULL;
    g16__span sp = wait ? g16__span_begin("wait.next_w") : 0; /* (the try before msm.h never waits) */
    pthread_mutex_lock(&pc->mu);
    while (wait && !pc->w_ready[other] && !pc->synth_done)
        pthread_cond_wait(&pc->cv, &pc->mu);
    if (pc->w_ready[other] && !pc->have_early[other] && !__atomic_load_n(&pc->b->failed, __ATOMIC_ACQUIRE)) {
        pc->have_early[other] = 1;
        /* (until the prover writes the MSMs' status: a failure names the circuit they ran with) */
        pc->early_st[other] = G16_ERR_INTERNAL;
        pc->early_err[other].status = G16_ERR_INTERNAL;
        snprintf(pc->early_err[other].msg, sizeof pc->early_err[other].msg,
                 "its witness MSMs ran with circuit %zu's, which failed", pc->idx[pc->cur]);
        *out2 = &pc->early[other];
        *st2 = &pc->early_st[other];
        w = pc->wk->hb[other].w;
    }
    pthread_mutex_unlock(&pc->mu);
    g16__span_end(sp);
    return w;
}

/* G16_GPU_EARLY_W: 0 off, 1 (default), 2 for every circuit (tests). With streamed queries too: the
 * early MSMs take the chunks out of the usual order (l first, h last), which costs at most two
 * chunks uploaded synchronously (prove_gpu.c, up_take) where the GPU would otherwise idle for the
 * first circuit's SpMV on the CPU (~0.8-1.0 s per batch at 2^27 on an H100 as a 16-48 GB card,
 * bench/RESULTS.md, eighteenth session). */
static int early_mode_for(void)
{
    const char *e = getenv("G16_GPU_EARLY_W");
    int v = e ? atoi(e) : 1;
    return v < 0 ? 0 : v > 2 ? 2 : v;
}

/* G16_GPU_PAIR_OVERLAP: 1 (default; also unset or empty) the batch's first witness is uploaded
 * while the second is copied (early_next); 0 the order before (both copied first), kept for
 * same-process A/B runs. */
static int pair_overlap_for(void)
{
    const char *e = getenv("G16_GPU_PAIR_OVERLAP");
    return e && *e ? atoi(e) != 0 : 1;
}

static void gpu_worker_run(batch *b, worker *wk, size_t index)
{
    pipe_ctx pc;
    pthread_t th;
    g16_error e = {0, ""};
    int prefetch = g16__gpu_prover_prefetch_mode(wk->gp) != 0;
    memset(&pc, 0, sizeof pc);
    pc.b = b;
    pc.wk = wk;
    pc.index = index;
    pc.early_mode = early_mode_for();
    pc.pair_early = pc.early_mode && g16__gpu_prover_pairs(wk->gp) && wk->hb[0].w && wk->hb[1].w;
    pc.pair_overlap = pair_overlap_for();
    pc.spmv_first = g16__gpu_prover_spmv_first(wk->gp) && !pc.pair_early;
    pthread_mutex_init(&pc.mu, NULL);
    pthread_cond_init(&pc.cv, NULL);
    if (pthread_create(&th, NULL, synth_main, &pc) != 0) {
        serial_run(b, wk); /* no second thread: both stages here, one circuit at a time */
        goto cleanup;
    }
    /* the first circuit's matrices cross PCIe while its witness is copied (a failure here is left to
     * that circuit's H step, which stages them again and names it); not where every circuit's
     * witness MSMs run early (tests), whose scratch the staged matrices would take */
    if (pc.spmv_first && pc.early_mode != 2 && g16__gpu_prover_spmv_stage(wk->gp, &e) != G16_OK)
        e = (g16_error){0, ""};
    for (int slot = 0;; slot ^= 1) {
        /* while the slot's a, b, c are not ready, its witness MSMs when its witness is (at a batch's
         * start the GPU waits for the first circuit's SpMV) */
        g16__span sp = g16__span_begin("wait.synth");
        pthread_mutex_lock(&pc.mu);
        while (pc.state[slot] != SLOT_READY && !pc.synth_done) {
            if (early_due(&pc, slot))
                early_run(&pc, slot, &sp);
            else
                pthread_cond_wait(&pc.cv, &pc.mu);
        }
        int ready = pc.state[slot] == SLOT_READY;
        size_t i = pc.idx[slot];
        if (ready && pc.early_mode == 2 && early_due(&pc, slot))
            early_run(&pc, slot, &sp);
        pthread_mutex_unlock(&pc.mu);
        g16__span_end(sp);
        if (!ready)
            break;
        g16_status st = G16_OK;
        h_buffers *hb = &wk->hb[slot];
        const g16__query_sums *pre = NULL;
        pc.cur = slot;
        if (pc.have_early[slot] && pc.idx_w[slot] == i) {
            st = pc.early_st[slot];
            if (st != G16_OK) {
                e = pc.early_err[slot];
                st = circuit_error(st, i, &e);
            }
            pre = &pc.early[slot];
        }
        int dev = pc.dev[slot], no_check = (b->flags & G16_PROVE_NO_CHECK) != 0;
        if (st == G16_OK && !batch_failed_upto(b, i))
            st = prove_finish(&b->out[i], i, b->pv->p, b->pv->r, b->witnesses[i], wk, hb, dev, batch_pvk(b),
                              &b->rs[2 * i], &b->rs[2 * i + 1], prefetch ? prefetch_next : NULL, pair_next, &pc,
                              pre, (dev && !no_check) || rows_on_gpu(wk, b->flags), !no_check, &e);
        /* the proof counts only for a witness that passed the check (a failed check already
         * failed the batch, naming this circuit: the proof's own error would say less) */
        g16_status cst = wait_check(&pc, slot);
        /* before the synth thread may rewrite the slot (whether the proof ran, failed or was
         * skipped): no prefetch copy may still read it */
        g16_error re = {0, ""};
        g16_status rst = g16__gpu_prover_release_host(wk->gp, hb->a, hb->b, hb->c, hb->w, &re);
        if (st == G16_OK && rst != G16_OK) {
            st = rst;
            e = re;
        }
        if (cst == G16_OK && st != G16_OK)
            batch_fail(b, i, st, &e);
        pthread_mutex_lock(&pc.mu);
        pc.state[slot] = SLOT_FREE;
        pc.w_ready[slot] = 0;
        pc.have_early[slot] = 0;
        pc.dev[slot] = 0;
        pthread_cond_broadcast(&pc.cv);
        pthread_mutex_unlock(&pc.mu);
    }
    pthread_join(th, NULL);
    g16__gpu_prover_spmv_unstage(wk->gp); /* (staged for a first circuit that never reached its H step) */
    /* every READY slot went through release_host above, so nothing should be pending; the next
     * call's synth thread rewrites both slots, hence the certainty */
    g16_status fin = g16__gpu_prover_prefetch_cancel(wk->gp, &e);
    if (fin != G16_OK)
        batch_fail(b, b->count, fin, &e);
cleanup:
    pthread_cond_destroy(&pc.cv);
    pthread_mutex_destroy(&pc.mu);
}

static void *worker_main(void *arg)
{
    worker_arg *wa = arg;
    batch *b = wa->b;
    worker *wk = &b->pv->wk[wa->index];
    if (wa->index > 0)
        name_thread("prove worker", wa->index);
    if (wk->gp) {
        gpu_worker_run(b, wk, wa->index);
        return NULL;
    }
    serial_run(b, wk);
    return NULL;
}

/* Runs fn on every worker index, 0 on this thread and the others on their own threads (a
 * worker whose thread cannot start has its part done by the others, or, when opening, by this
 * thread afterwards). */
static void run_workers(worker_arg *wa, size_t nw, void *(*fn)(void *))
{
    for (size_t k = 1; k < nw; k++)
        wa[k].started = pthread_create(&wa[k].th, NULL, fn, &wa[k]) == 0;
    fn(&wa[0]);
    for (size_t k = 1; k < nw; k++) {
        if (wa[k].started)
            pthread_join(wa[k].th, NULL);
        else if (!wa[k].b)
            fn(&wa[k]);
    }
}

/* Opens the prover's workers: those on different devices in parallel, those sharing a device
 * (G16_DEVICES=0,0) one after another, in rounds: each plans its device memory beside what the
 * ones before it hold and leaves them what they allocate while proving (their MSMs' scratch,
 * streamed chunks), so that two workers' MSMs running at once on the card both fit. Opened
 * together, each would plan against the whole card. wa: room for pv->nw arguments. */
static g16_status open_workers(g16_prover *pv, worker_arg *wa, g16_error *err)
{
    g16_status st = G16_OK;
    size_t done = 0;
    for (size_t round = 0; done < pv->nw; round++) {
        size_t m = 0;
        for (size_t k = 0; k < pv->nw; k++) {
            size_t before = 0, withheld = 0;
            for (size_t j = 0; j < k; j++)
                if (pv->dev[k] >= 0 && pv->dev[j] == pv->dev[k]) {
                    before++;
                    withheld += g16__gpu_prover_transient_bytes(pv->wk[j].gp);
                }
            if (before != round)
                continue;
            memset(&wa[m], 0, sizeof wa[m]);
            wa[m].pv = pv;
            wa[m].index = k;
            wa[m].withheld = withheld;
            m++;
        }
        run_workers(wa, m, worker_open_main);
        done += m;
        for (size_t j = 0; j < m; j++)
            if (wa[j].st != G16_OK) {
                st = wa[j].st;
                if (err)
                    *err = wa[j].err;
                goto cleanup;
            }
    }
cleanup:
    return st;
}

void g16_prover_destroy(g16_prover *pv)
{
    if (!pv)
        return;
    g16__span sp = g16__span_begin("prover.destroy");
    for (size_t k = 0; k < pv->nw; k++)
        worker_close(&pv->wk[k]);
    g16_pvk_destroy(pv->pvk);
    pthread_mutex_destroy(&pv->call);
    free(pv);
    g16__span_end(sp);
}

g16_status g16_prover_create(g16_prover **out, const g16_params *params, const g16_r1cs *r1cs,
                             const g16_prove_opts *opts, g16_error *err)
{
    g16_status st = G16_OK;
    g16_prover *pv = NULL;
    worker_arg *wa = NULL;
    g16__span span = g16__span_begin("prover.create");
    if (!out || !params || !r1cs) {
        st = g16__error(err, G16_ERR_ARG, "g16_prover_create: NULL argument");
        goto cleanup;
    }
    *out = NULL;
    if ((st = check_shapes(params, r1cs, err)) != G16_OK)
        goto cleanup;
    pv = calloc(1, sizeof *pv);
    wa = calloc(MAX_WORKERS, sizeof *wa);
    if (!pv || !wa) {
        free(pv);
        pv = NULL;
        st = g16__error(err, G16_ERR_NOMEM, "g16_prover_create: prover");
        goto cleanup;
    }
    pthread_mutex_init(&pv->call, NULL);
    pv->p = params;
    pv->r = r1cs;
    size_t max_workers = opts && opts->max_workers ? opts->max_workers : MAX_WORKERS;
    if ((st = choose_devices(pv->dev, &pv->nw, opts ? opts->backend : NULL, opts ? opts->devices : NULL, max_workers,
                             err)) != G16_OK)
        goto cleanup;
    if ((st = open_workers(pv, wa, err)) != G16_OK)
        goto cleanup;
    for (size_t k = 0; k < pv->nw; k++)
        if (pv->wk[k].gp) {
            char line[512];
            g16__gpu_prover_describe(pv->wk[k].gp, line, sizeof line);
            if (pv->nw > 1)
                snprintf(line + strlen(line), sizeof line - strlen(line), " (+%zu more worker%s)", pv->nw - 1,
                         pv->nw > 2 ? "s" : "");
            g16__backend_notice(line);
            break;
        }
    *out = pv;
    pv = NULL;
cleanup:
    free(wa);
    g16_prover_destroy(pv);
    g16__span_end(span);
    return st;
}

size_t g16_prover_workers(const g16_prover *pv) { return pv ? pv->nw : 0; }

g16_status g16_prover_prove(g16_prover *pv, g16_proof *proofs, const g16_fr *const *witnesses, size_t count,
                            const g16_prove_opts *opts, g16_error *err)
{
    g16_status st = G16_OK;
    unsigned flags = opts ? opts->flags : 0;
    g16_fr *rs = NULL;
    worker_arg wa[MAX_WORKERS];
    batch b;
    if (!pv || !proofs || (count && !witnesses))
        return g16__error(err, G16_ERR_ARG, "g16_prover_prove: NULL argument");
    memset(&b, 0, sizeof b);
    pthread_mutex_init(&b.mu, NULL);
    pthread_mutex_lock(&pv->call);
    g16__span span = g16__span_begin_n("prove", count);
    for (size_t i = 0; i < count; i++)
        if (!witnesses[i]) {
            st = g16__error(err, G16_ERR_ARG, "g16_prove: witness %zu is NULL", i);
            goto cleanup;
        }
    if (count == 0)
        goto cleanup;
    if (!(flags & G16_PROVE_NO_VERIFY) && !pv->pvk && (st = g16_pvk_create(&pv->pvk, &pv->p->vk, err)) != G16_OK)
        goto cleanup;
    b.out = malloc(count * sizeof *b.out);
    rs = malloc(2 * count * sizeof *rs);
    if (!b.out || !rs) {
        st = g16__error(err, G16_ERR_NOMEM, "g16_prove: %zu proofs", count);
        goto cleanup;
    }
    /* every r and s drawn before any work, on this thread */
    if (opts && opts->r && opts->s) {
        for (size_t i = 0; i < count; i++) {
            rs[2 * i] = opts->r[i];
            rs[2 * i + 1] = opts->s[i];
        }
    } else {
        g16__rng rng;
        g16__rng_init_os(&rng);
        for (size_t i = 0; i < 2 * count; i++)
            if ((st = g16__fr_random(&rs[i], &rng)) != G16_OK) {
                g16__error(err, st, "g16_prove: the OS random generator failed");
                goto cleanup;
            }
    }
    /* (a worker without c on the host: its H steps form c only where the rows are checked) */
    for (size_t k = 0; k < pv->nw && (flags & G16_PROVE_NO_CHECK) && st == G16_OK; k++)
        for (int j = 0; j < 2 && st == G16_OK; j++)
            st = h_buffers_add_c(&pv->wk[k].hb[j], err);
    if (st != G16_OK)
        goto cleanup;
    b.pv = pv;
    b.witnesses = witnesses;
    b.rs = rs;
    b.flags = flags;
    b.count = count;
    size_t nw = pv->nw < count ? pv->nw : count;
    memset(wa, 0, sizeof wa);
    for (size_t k = 0; k < nw; k++) {
        wa[k].b = &b;
        wa[k].pv = pv;
        wa[k].index = k;
    }
    run_workers(wa, nw, worker_main);
    if (b.st != G16_OK) {
        st = b.st;
        if (err)
            *err = b.err;
        goto cleanup;
    }
    memcpy(proofs, b.out, count * sizeof *b.out);
cleanup:
    if (rs) {
        g16__secure_zero(rs, 2 * count * sizeof *rs);
        free(rs);
    }
    free(b.out);
    pthread_mutex_destroy(&b.mu);
    g16__span_end(span);
    pthread_mutex_unlock(&pv->call);
    return st;
}

g16_status g16_prove(g16_proof *proofs, const g16_params *params, const g16_r1cs *r1cs,
                     const g16_fr *const *witnesses, size_t count, const g16_prove_opts *opts, g16_error *err)
{
    g16_status st = G16_OK;
    g16_prover *pv = NULL;
    g16_prove_opts o;
    if (!proofs || !params || !r1cs || (count && !witnesses))
        return g16__error(err, G16_ERR_ARG, "g16_prove: NULL argument");
    if (count == 0)
        return check_shapes(params, r1cs, err);
    memset(&o, 0, sizeof o);
    if (opts)
        o = *opts;
    if (!o.max_workers || o.max_workers > count)
        o.max_workers = count; /* no more workers than circuits */
    if ((st = g16_prover_create(&pv, params, r1cs, &o, err)) == G16_OK)
        st = g16_prover_prove(pv, proofs, witnesses, count, opts, err);
    g16_prover_destroy(pv);
    return st;
}
