/*
 * The GPU worker of the Groth16 prover (see prove_gpu.h). Built in every configuration: without
 * CUDA the g16__gpu_* calls are the stubs and g16__gpu_prover_create reports G16_ERR_NO_DEVICE.
 */
#include <limits.h>
#include <pthread.h>
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
static const char *const q_name[Q_COUNT] = {"h", "l", "a", "b_g1", "b_g2"};

/* Streaming mode: the handle of the chunk after the current one (points [first, first + count) of
 * query q), created by thread th through the side stream while the current chunk's MSM runs. */
typedef struct {
    struct g16__gpu_prover *gp;
    int q;
    size_t first, count;
    g16__gpu_msm *m;
    g16_status st;
    g16_error err;
    pthread_t th;
    int running; /* th started, not joined yet */
} chunk_up;

/* The three matrices' packed words and row pointers (32- or 64-bit as the r1cs has them) and the
 * coefficient dictionary on the device (mats_alloc / mats_upload / mats_free). */
typedef struct {
    uint32_t *words[3];
    void *rp[3];
    g16_fr *coeffs;
} dev_mats;

struct g16__gpu_prover {
    g16__gpu *gpu;
    g16__gpu_ntt *ntt;
    g16__gpu_msm *q[Q_COUNT]; /* the resident queries' handles; a streamed one's: NULL between MSMs */
    int resident;      /* all five queries resident */
    unsigned res_mask; /* bit q: query q resident (all five, some (plan_partial) or none) */
    /* resident queries: points per MSM run (a view of the query, g16__gpu_msm_view), the pieces'
     * results summed on the host; 0: each query in one run. Set when the whole largest query's
     * scratch does not fit beside the bases (plan_resident, plan_partial). */
    size_t piece;
    /* resident queries: instead of pieces, each query's MSM in one run over all its bases, in
     * passes of fewer windows (msm_gpu.h, windows_per_pass) whose scratch fits in pass_room bytes
     * (wpp_for); 0: no passes. Set by passes_setup when the plan took pieces and the passes fit in
     * the memory left (G16_GPU_PASSES=0 turns it off): the pieces' extra window sums and smaller
     * windows cost more than a pass's extra read of the scalars. */
    size_t pass_room;
    int passes_ok;        /* G16_GPU_PASSES allows passes */
    unsigned passes_wpp;  /* G16_GPU_PASSES=N (tests): passes of N windows, whatever fits; 0: by room */
    const struct g16_params *p;
    const struct g16_r1cs *r;
    g16_fr *dabc; /* device: a, b, c of the H step (h_slots·n elements); H stays in the first n for msm.h */
    int h_slots;  /* 3, or 2 when three vectors do not fit (c then goes into b's, g16__gpu_ntt_h_ab) */
    int have_h;   /* dabc holds the H of the current circuit */
    /* Prefetch (prove_gpu.h). dabc_spare: a second 3n set, NULL without prefetch. It is never the
     * current circuit's set: g16__gpu_prover_h swaps the two when it takes a prefetch, and the
     * circuit whose set becomes the spare has no work left on the device (its H step and MSMs
     * returned synchronized; g16__gpu_prover_prefetch waits for both streams anyway before
     * writing the spare). pf_pending: copies of host pf_a, pf_b, pf_c into dabc_spare were
     * enqueued on the side stream, pf_done recorded after them (complete or in flight). In mode
     * G16__GPU_PF_A there is no spare set: pf_a alone was copied into dabc (pf_b, pf_c NULL). */
    g16_fr *dabc_spare;
    /* pf_mu guards the prefetch state and the swap of the two sets: the synth thread may enqueue
     * a prefetch (g16__gpu_prover_prefetch_early) while the GPU stage's thread uses the prover */
    pthread_mutex_t pf_mu;
    int pf_mu_init;
    int pf_knob; /* G16_GPU_PREFETCH's mode (prefetch_env), before the memory plan's word */
    /* the a slot: the first witness query from which on all are resident (a_slot_from); the copy
     * waits for the poll before it, so that it does not share PCIe with streamed chunks */
    int a_from;
    int next_q;  /* the MSM the last poll of g16__gpu_prover_msms came before; Q_COUNT: none pending */
    int pf_mode; /* g16__gpu_prover_prefetch_mode */
    int pf_pending;
    const g16_fr *pf_a, *pf_b, *pf_c, *pf_w;
    g16__gpu_event *pf_done;
    /* The a slot in two vectors (slot_target): dh holds the last H step's H (the first vector, or
     * the third where that step took its a from there); pf_v is where the pending a slot's copy
     * goes. slot3: the third vector is free between H steps (the compacted scalars fit in the
     * second) and all five queries are resident (G16_GPU_A_SLOT3=0 turns it off), so the slot
     * may be filled while H waits in the first for msm.h, by a poll or by the synth thread
     * (g16__gpu_prover_prefetch_early) as soon as the next circuit is ready. pf_open (pf_mu): no
     * H step runs, the synth thread may copy. */
    g16_fr *dh, *pf_v;
    int slot3, pf_open;
    uint64_t n_prefetched, n_prefetch_used, n_uploaded, n_early, n_paired;
    /* Witness MSMs in pairs (prove_gpu.h, g16__gpu_prover_msms_next): on when some witness query
     * is streamed and the H step's three vectors hold a second witness and both circuits'
     * compacted scalars (pair_setup); pair_note says which, for the backend line. w_after_h:
     * witness MSMs are expected after the current msm.h, so the upload thread fetches l's first
     * chunk after h's last; else h's, for the next circuit's msm.h (a guess where the caller
     * decides: a wrong one costs a chunk uploaded on the spot). w2_side: the second witness may
     * cross PCIe during msm.h (it lies clear of the first vector, where H is read: pair_w2);
     * w2_done marks the end of that copy on the side stream; n_w2_side counts them. */
    int pair;
    char pair_note[128];
    int w_after_h;
    int w2_side;
    g16__gpu_event *w2_done;
    /* The overlapped H step's device timeline in traced runs (h_mark, h_profile): timed events,
     * created at the first traced step; hp_on for the step under way, hp_w when the witness's copy
     * was marked too. */
    g16__gpu_event *hp[8];
    int hp_on, hp_w;
    uint64_t n_w2_side;
    /* the witness check on the device (G16_GPU_CHECK=1): dcheck receives the first failing row of
     * the last H step's a, b, c, check_bad its copy on the host (UINT64_MAX: none) */
    uint64_t *dcheck;
    uint64_t check_bad;
    char pf_note[256]; /* for g16__gpu_prover_describe */
    const char *pf_why; /* why pf_mode was turned off by the memory plan (static text), or NULL */
    g16_fr *dw;   /* device: the witness (num_inputs + num_aux), uploaded once per proof */
    const g16_fr *w_src; /* the host witness g16__gpu_prover_h uploaded into dw for the next MSMs */
    /* The H step's witness copy left running past the step (w_late: G16_GPU_W_LATE, read once,
     * default 1, where h is resident): it crosses PCIe on the side stream under msm.h, which reads
     * neither dw nor w; w_done marks its end, w_pending says it may still run. w_settle waits for
     * it before anything reads or rewrites dw and before the caller may rewrite w. n_w_late counts
     * those steps. */
    int w_late, w_pending;
    g16__gpu_event *w_done;
    uint64_t n_w_late;
    /* A·w, B·w, C·w on the device (prove_gpu.h, G16_GPU_SPMV): the matrices' packed words, row
     * pointers (32- or 64-bit as the r1cs has them) and the coefficient dictionary, resident;
     * spmv = 0 and all NULL when off. dw_early: dw holds the witness of the last
     * g16__gpu_prover_msms_w, which the next H step (given w = NULL) multiplies. */
    int spmv;
    g16_fr *dw_spare; /* SpMV on: the prefetch's spare witness (NULL without prefetch) */
    char spmv_note[256]; /* why not, when the matrices did not fit (for g16__gpu_prover_describe) */
    dev_mats mres;
    int dw_early;
    /* The same for one circuit at a time where the matrices do not stay (prove_gpu.h,
     * g16__gpu_prover_spmv_first): spmv_first says the route is open, mat_pinned that the
     * matrices' host memory is page-locked (the ranges in mat_pin); mtr the staged copy in scratch
     * memory (tr_staged: allocated and enqueued, until the H step or _unstage gives it back), the
     * word after its dictionary the rows' verdict (tr_check). */
    int spmv_first, mat_pinned, tr_staged;
    dev_mats mtr;
    uint64_t *tr_check;
    g16_fr *dscal; /* device: the compacted a / b scalars: dabc + n (the H step's b and c, free once H
                    * is computed) when they fit there, else an allocation of its own (dscal_own) */
    int dscal_own;
    uint64_t *dbits; /* device: the density bitmaps A aux, B input, B aux, one after the other */
    size_t bits_off[3]; /* word offset of each bitmap in dbits, indexed by G16__DENS_* */
    g16__gpu_compactor *cmp;
    size_t chunk;  /* streaming: points per uploaded chunk of a G1 query */
    size_t chunk2; /* streaming: points per uploaded chunk of b_g2 (G2 points take twice the bytes) */
    /* streaming (choose_chunk, passes allowed): the scratch bytes a streamed G1 / G2 chunk's run may
     * take, in passes of fewer windows where its one pass does not fit (wpp_for); 0: each chunk's
     * run in one pass (the chunks sized for it: G16_GPU_PASSES=0, G16_GPU_CHUNK, the partial plan) */
    size_t str_room1, str_room2;
    chunk_up up;  /* streaming: the next chunk's upload, on a thread of its own */
    int pinned;   /* streaming: the queries' host memory is page-locked (pin_acquire) */
    int stream_overlap; /* streaming: the upload thread is used (G16_GPU_STREAM_OVERLAP, read once) */
    int h_overlap; /* a, b, c from the host: each input's transforms overlap the next one's copy
                    * (G16_GPU_H_OVERLAP, read once; used when nothing is prefetched) */
    int c_ab_env;  /* G16_GPU_C_FROM_AB (read once; default 1): h_overlapped may form c as a·b */
    int c_from_ab; /* g16__gpu_prover_set_c_from_ab: the caller checks this circuit's rows */
    uint64_t n_c_formed; /* H steps that formed c on the device (g16__gpu_prover_c_formed) */
    char pin_note[160];
    /* bytes of the card this worker's plans leave to the other workers on it: what those may
     * allocate while they prove (g16__gpu_prover_transient_bytes), which is not in use yet when
     * this worker plans (g16__gpu_prover_create_shared) */
    size_t withheld;
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

/* Bytes of one affine base of query q (b_g2 is in G2). */
static size_t q_point_bytes(int q) { return q == Q_B2 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine); }

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

/* ---- streaming: the queries' host memory page-locked ----
 * Streamed chunks cross PCIe once per proof; from pageable memory the driver stages them at ~10
 * GB/s (H200 host, 2^25: ~2 s per proof for 19 GB of queries), from page-locked memory the DMA
 * reads them directly. Several provers (workers) share one parameter set, so registrations are
 * counted per range, process-wide: the last prover to let go unregisters (never while another
 * worker's upload may still read the memory).
 * Registration is by whole pages, and CUDA refuses one that overlaps another
 * (cudaErrorHostMemoryAlreadyRegistered): queries that share a page (the arrays of a small
 * parameter set, allocated one after the other) are registered as one range, the union of their
 * pages (compute-sanitizer saw the refusal in test_gpu_prove, whose provers then ran pageable). */
#define PIN_MAX 64
#define PIN_PAGE ((uintptr_t)4096)
static pthread_mutex_t pin_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    uintptr_t lo, hi;
    void *token;
    unsigned refs;
} pin_tab[PIN_MAX];

typedef struct {
    uintptr_t lo, hi; /* page-aligned [lo, hi) */
} pin_range;

/* Adds the pages of [b, b + bytes) to the k ranges of r (in address order); returns k + 1 (k when
 * bytes is 0). */
static int pin_range_add(pin_range *r, int k, const void *b, size_t bytes)
{
    if (!bytes)
        return k;
    uintptr_t lo = (uintptr_t)b;
    pin_range x = {lo & ~(PIN_PAGE - 1), (lo + bytes + PIN_PAGE - 1) & ~(PIN_PAGE - 1)};
    int i = k++;
    for (; i > 0 && r[i - 1].lo > x.lo; i--) /* insertion in address order */
        r[i] = r[i - 1];
    r[i] = x;
    return k;
}

/* The k ranges of r (in address order) merged where they overlap or touch; returns the count. */
static int pin_merge(pin_range *r, int k)
{
    int m = 0;
    for (int i = 0; i < k; i++) {
        if (m && r[i].lo <= r[m - 1].hi) {
            if (r[i].hi > r[m - 1].hi)
                r[m - 1].hi = r[i].hi;
        } else {
            r[m++] = r[i];
        }
    }
    return m;
}

/* The queries' pages as disjoint ranges (at most Q_COUNT), in address order. */
static int pin_ranges(const struct g16_params *p, pin_range *r)
{
    int k = 0;
    size_t n;
    for (int q = 0; q < Q_COUNT; q++) {
        const void *b = q_bases(p, q, &n);
        k = pin_range_add(r, k, b, n * q_point_bytes(q));
    }
    return pin_merge(r, k);
}

static g16_status pin_one(pin_range x, g16_error *err)
{
    g16_status st = G16_OK;
    int freeslot = -1;
    pthread_mutex_lock(&pin_mu);
    for (int i = 0; i < PIN_MAX; i++) {
        if (pin_tab[i].refs && pin_tab[i].lo == x.lo && pin_tab[i].hi == x.hi) {
            pin_tab[i].refs++;
            goto cleanup;
        }
        if (!pin_tab[i].refs && freeslot < 0)
            freeslot = i;
    }
    if (freeslot < 0) {
        st = g16__error(err, G16_ERR_UNSUPPORTED, "gpu prover: more than %d page-locked query ranges", PIN_MAX);
        goto cleanup;
    }
    if ((st = g16__gpu_host_register(&pin_tab[freeslot].token, (const void *)x.lo, x.hi - x.lo, err)) == G16_OK) {
        pin_tab[freeslot].lo = x.lo;
        pin_tab[freeslot].hi = x.hi;
        pin_tab[freeslot].refs = 1;
    }
cleanup:
    pthread_mutex_unlock(&pin_mu);
    return st;
}

static void unpin_one(pin_range x)
{
    pthread_mutex_lock(&pin_mu);
    for (int i = 0; i < PIN_MAX; i++) {
        if (pin_tab[i].refs && pin_tab[i].lo == x.lo && pin_tab[i].hi == x.hi) {
            if (--pin_tab[i].refs == 0) {
                g16__gpu_host_unregister(pin_tab[i].token);
                memset(&pin_tab[i], 0, sizeof pin_tab[i]);
            }
            break;
        }
    }
    pthread_mutex_unlock(&pin_mu);
}

static void pin_release(g16__gpu_prover *gp)
{
    pin_range r[Q_COUNT];
    if (gp->pinned)
        for (int i = 0, k = pin_ranges(gp->p, r); i < k; i++)
            unpin_one(r[i]);
    gp->pinned = 0;
}

/* Page-locks the ranges x[0..k), all or none (span `span`; G16_GPU_PIN_QUERIES=0: none, for A/B
 * measurements). A failure only means pageable uploads: *note says which, and why (for the backend
 * line). 1 when locked. */
static int pin_all(const pin_range *x, int k, const char *span, char *note, size_t len)
{
    const char *env = getenv("G16_GPU_PIN_QUERIES");
    g16_error e = {0, ""};
    int i = 0;
    if (env && !strcmp(env, "0")) {
        snprintf(note, len, "pageable (G16_GPU_PIN_QUERIES=0)");
        return 0;
    }
    g16__span sp = g16__span_begin(span);
    for (; i < k; i++)
        if (pin_one(x[i], &e) != G16_OK)
            break;
    g16__span_end(sp);
    if (i == k) {
        snprintf(note, len, "page-locked");
        return 1;
    }
    while (i-- > 0) /* the ones that worked */
        unpin_one(x[i]);
    snprintf(note, len, "pageable (%.100s)", e.msg);
    return 0;
}

/* Page-locks the five queries for the streamed chunks' uploads. */
static void pin_acquire(g16__gpu_prover *gp)
{
    pin_range r[Q_COUNT];
    gp->pinned = pin_all(r, pin_ranges(gp->p, r), "gpu.pin_queries", gp->pin_note, sizeof gp->pin_note);
}

/* The matrices' and the dictionary's pages (the transient SpMV's uploads, mat_stage) as disjoint
 * ranges (at most 7), in address order. */
#define MAT_RANGES 7
static int mat_ranges(const struct g16_r1cs *r, pin_range *x)
{
    int k = 0;
    for (int m = 0; m < 3; m++) {
        const g16__csr *c = &r->mat[m];
        k = pin_range_add(x, k, c->rp32 ? (const void *)c->rp32 : (const void *)c->rp64,
                          (r->num_constraints + 1) * (c->rp32 ? 4 : 8));
        k = pin_range_add(x, k, c->w, c->nwords * 4);
    }
    k = pin_range_add(x, k, r->coeffs, r->num_coeffs * sizeof(g16_fr));
    return pin_merge(x, k);
}

static void mat_unpin(g16__gpu_prover *gp)
{
    pin_range x[MAT_RANGES];
    if (gp->mat_pinned)
        for (int i = 0, k = mat_ranges(gp->r, x); i < k; i++)
            unpin_one(x[i]);
    gp->mat_pinned = 0;
}

/* Page-locks the matrices for the transient SpMV's uploads (from pageable memory the driver stages
 * them at ~10 GB/s, several times slower). A range that overlaps one registered already (e.g. by
 * the queries of a small circuit sharing its pages) leaves them pageable. */
static void mat_pin(g16__gpu_prover *gp, char *note, size_t len)
{
    pin_range x[MAT_RANGES];
    gp->mat_pinned = pin_all(x, mat_ranges(gp->r, x), "gpu.pin_matrices", note, len);
}

/* ---- streaming: the next chunk uploaded while the current one runs ----
 * The chunks are taken in the order of g16__gpu_prover_msms (h, l, a, b_g1, b_g2, each from its
 * first point), and after the last chunk of b_g2 comes the first of h for the next proof (the
 * bases are the same for every proof: that upload overlaps the next H step). Two chunks' bases
 * are on the device at a time (choose_chunk counts both). */

static void *up_main(void *arg)
{
    chunk_up *u = arg;
    size_t n;
    const char *b = q_bases(u->gp->p, u->q, &n);
    size_t size = q_point_bytes(u->q);
    /* detached: background work, its span a root of its own (the GPU stage's wait for it, if any,
     * shows in that stage's MSM spans) */
    g16__trace_thread("gpu chunk upload", G16__TRACE_DETACHED);
    g16__span sp = g16__span_begin_n("gpu.upload_next_chunk", u->count);
    u->st = g16__gpu_msm_create_side(&u->m, u->gp->gpu, u->q == Q_B2, b + u->first * size, u->count, &u->err);
    g16__span_end(sp);
    return NULL;
}

/* Waits for the upload in flight, if any. */
static void up_join(g16__gpu_prover *gp)
{
    if (gp->up.running) {
        pthread_join(gp->up.th, NULL);
        gp->up.running = 0;
    }
}

/* Waits for the upload in flight and frees its handle. */
static void up_drop(g16__gpu_prover *gp)
{
    up_join(gp);
    g16__gpu_msm_destroy(gp->up.m);
    gp->up.m = NULL;
}

/* The chunk after [first, first + count) of streamed query q: the next streamed query's first
 * after q's last (b_g2's last: h's first; resident queries skipped; h's last: h's first again
 * when no witness MSMs follow this msm.h, gp->w_after_h). */
static void chunk_after(const g16__gpu_prover *gp, int q, size_t first, size_t count, int *nq, size_t *nfirst,
                        size_t *ncount)
{
    size_t n;
    q_bases(gp->p, q, &n);
    *nq = q;
    *nfirst = first + count;
    if (*nfirst >= n) {
        do /* (q itself is streamed: the loop ends) */
            *nq = (*nq + 1) % Q_COUNT;
        while (gp->res_mask >> *nq & 1);
        if (q == Q_H && !gp->w_after_h)
            *nq = Q_H;
        *nfirst = 0;
        q_bases(gp->p, *nq, &n);
    }
    size_t c = *nq == Q_B2 ? gp->chunk2 : gp->chunk;
    *ncount = n - *nfirst < c ? n - *nfirst : c;
}

/* Starts the upload of the chunk after (q, first, count). Without a thread (pthread_create
 * failed, or G16_GPU_STREAM_OVERLAP=0 for A/B measurements) the next chunk is simply uploaded
 * when it is needed. */
static void up_start(g16__gpu_prover *gp, int q, size_t first, size_t count)
{
    chunk_up *u = &gp->up;
    up_drop(gp);
    if (!gp->stream_overlap)
        return;
    u->gp = gp;
    chunk_after(gp, q, first, count, &u->q, &u->first, &u->count);
    u->st = G16_OK;
    u->err.msg[0] = 0;
    u->running = pthread_create(&u->th, NULL, up_main, u) == 0;
}

/* gp->q[q] := the handle of points [first, first + count): the upload in flight when it is that
 * chunk and it worked, else a synchronous upload now. A background upload that failed is tried
 * once more here, so that its error is this chunk's own: the upload of the first chunk of the next
 * proof runs after the batch has returned, and a failure there (memory taken by another process
 * meanwhile, say) would otherwise fail the next batch with an error of the idle time
 * (test_fakegpu_faults saw it); a lasting fault fails again here. */
static g16_status up_take(g16__gpu_prover *gp, int q, size_t first, size_t count, g16_error *err)
{
    chunk_up *u = &gp->up;
    up_join(gp);
    if (u->gp && u->q == q && u->first == first && u->count == count && u->m) {
        gp->q[q] = u->m;
        u->m = NULL;
        u->gp = NULL;
        return G16_OK;
    }
    up_drop(gp);
    return q_create(gp, q, first, count, err);
}

static void q_destroy_all(g16__gpu_prover *gp)
{
    for (int q = 0; q < Q_COUNT; q++) {
        g16__gpu_msm_destroy(gp->q[q]);
        gp->q[q] = NULL;
    }
}

/* d's buffers freed: from g16__gpu_alloc (waits for the device), or with scratch from the device's
 * pool (stream-ordered: work enqueued before still reads them; never waits). */
static void mats_free(g16__gpu_prover *gp, dev_mats *d, int scratch)
{
    void **p[7] = {(void **)&d->words[0], (void **)&d->words[1], (void **)&d->words[2], &d->rp[0], &d->rp[1],
                   &d->rp[2], (void **)&d->coeffs};
    for (int k = 0; k < 7; k++) {
        if (scratch)
            g16__gpu_scratch_free(gp->gpu, *p[k]);
        else
            g16__gpu_free(gp->gpu, *p[k]);
        *p[k] = NULL;
    }
}

/* The resident SpMV's matrices and dictionary freed (waits for the device). */
static void spmv_free(g16__gpu_prover *gp) { mats_free(gp, &gp->mres, 0); }

/* The transient SpMV's staged matrices given back to the device's pool (never waits). */
static void mat_unstage(g16__gpu_prover *gp)
{
    mats_free(gp, &gp->mtr, 1);
    gp->tr_check = NULL;
    gp->tr_staged = 0;
}

void g16__gpu_prover_destroy(g16__gpu_prover *gp)
{
    if (!gp)
        return;
    up_drop(gp);
    pin_release(gp);
    q_destroy_all(gp);
    g16__gpu_compactor_destroy(gp->cmp);
    if (gp->gpu) {
        /* a prefetch may still be copying into dabc_spare (side stream): nothing is freed under it */
        (void)g16__gpu_sync(gp->gpu, NULL);
        g16__gpu_free(gp->gpu, gp->dabc);
        g16__gpu_free(gp->gpu, gp->dabc_spare);
        g16__gpu_free(gp->gpu, gp->dw);
        g16__gpu_free(gp->gpu, gp->dw_spare);
        if (gp->dscal_own)
            g16__gpu_free(gp->gpu, gp->dscal);
        g16__gpu_free(gp->gpu, gp->dbits);
        g16__gpu_free(gp->gpu, gp->dcheck);
        spmv_free(gp);
        mat_unstage(gp); /* (after the sync: the pool takes it back at once) */
        mat_unpin(gp);   /* (after the sync: no staged upload still reads them) */
    }
    g16__gpu_event_destroy(gp->pf_done);
    g16__gpu_event_destroy(gp->w2_done);
    g16__gpu_event_destroy(gp->w_done);
    for (size_t k = 0; k < sizeof gp->hp / sizeof *gp->hp; k++)
        g16__gpu_event_destroy(gp->hp[k]);
    if (gp->pf_mu_init)
        pthread_mutex_destroy(&gp->pf_mu);
    g16__gpu_ntt_destroy(gp->ntt);
    g16__gpu_close(gp->gpu);
    free(gp);
}

#define Q_ALL ((1u << Q_COUNT) - 1)

/* The largest scratch of the runs over the queries of `mask` when each runs in pieces of at most
 * `piece` points (0: whole), every scalar non-trivial (msm_gpu.h, g16__gpu_msm_scratch_bytes: G1
 * 2^26 ~20.7 GB, 2^27 ~36.4 GB). */
static size_t scratch_at(const g16__gpu_prover *gp, size_t piece, unsigned mask)
{
    size_t most = 0, n;
    for (int q = 0; q < Q_COUNT; q++) {
        if (!(mask >> q & 1))
            continue;
        q_bases(gp->p, q, &n);
        size_t b = g16__gpu_msm_scratch_bytes(piece && piece < n ? piece : n, q == Q_B2);
        most = b > most ? b : most;
    }
    return most;
}

/* Windows per pass of a whole run over n points (G2 when g2) in `room` bytes of scratch, device
 * scalars: 0 when one pass fits, else the most windows whose passes fit, UINT_MAX when not even
 * passes of one window do. */
static unsigned wpp_for(size_t n, int g2, size_t room)
{
    if (g16__gpu_msm_scratch_bytes_opts(n, g2, 1, 0) <= room)
        return 0;
    for (unsigned w = g16__gpu_msm_windows(n); w-- > 1;)
        if (g16__gpu_msm_scratch_bytes_opts(n, g2, 1, w) <= room)
            return w;
    return UINT_MAX;
}

/* Every query of `mask` runs whole in `room` bytes, in passes where needed (wpp_for). */
static int passes_fit(const g16__gpu_prover *gp, size_t room, unsigned mask)
{
    size_t n;
    for (int q = 0; q < Q_COUNT; q++) {
        q_bases(gp->p, q, &n);
        if (mask >> q & 1 && wpp_for(n, q == Q_B2, room) == UINT_MAX)
            return 0;
    }
    return 1;
}

/* Windows per pass of a resident query's whole run over n points (passes on: gp->pass_room). */
static unsigned run_wpp(const g16__gpu_prover *gp, size_t n, int g2)
{
    if (gp->passes_wpp)
        return gp->passes_wpp;
    unsigned w = wpp_for(n, g2, gp->pass_room);
    return w == UINT_MAX ? 1 : w; /* (never: passes_setup checked, passes_fit) */
}

/* Windows per pass of the largest query's run (passes only). */
static unsigned largest_wpp(const g16__gpu_prover *gp)
{
    size_t n, most = 0;
    int qm = 0;
    for (int q = 0; q < Q_COUNT; q++) {
        q_bases(gp->p, q, &n);
        if (n > most) {
            most = n;
            qm = q;
        }
    }
    return run_wpp(gp, most, qm == Q_B2);
}

/* The same for the resident queries' runs (the pieces or passes the prover runs). */
static size_t largest_scratch(const g16__gpu_prover *gp)
{
    size_t most = 0, n;
    if (!gp->pass_room)
        return scratch_at(gp, gp->piece, gp->res_mask);
    for (int q = 0; q < Q_COUNT; q++) {
        q_bases(gp->p, q, &n);
        size_t b = g16__gpu_msm_scratch_bytes_opts(n, q == Q_B2, 1, run_wpp(gp, n, q == Q_B2));
        most = gp->res_mask >> q & 1 && b > most ? b : most;
    }
    return most;
}

/* Bytes of the bases of the queries of `mask`. */
static size_t bases_bytes(const g16__gpu_prover *gp, unsigned mask)
{
    size_t total = 0, n;
    for (int q = 0; q < Q_COUNT; q++) {
        q_bases(gp->p, q, &n);
        total += mask >> q & 1 ? n * q_point_bytes(q) : 0;
    }
    return total;
}

/* Points in the largest query of `mask`. */
static size_t largest_query(const g16__gpu_prover *gp, unsigned mask)
{
    size_t most = 0, n;
    for (int q = 0; q < Q_COUNT; q++) {
        q_bases(gp->p, q, &n);
        most = mask >> q & 1 && n > most ? n : most;
    }
    return most;
}

/* The bytes of a chunk of c1 G1 points' bases (*b1, with their infinity bits), of c2 G2 points'
 * (*b2), and of the larger (*nb: the next chunk's upload, whichever group it is of). */
static void stream_bases(size_t c1, size_t c2, size_t *b1, size_t *b2, size_t *nb)
{
    *b1 = c1 * (sizeof(g16_p1_affine) + 1);
    *b2 = c2 * (sizeof(g16_p2_affine) + 1);
    *nb = *b1 > *b2 ? *b1 : *b2;
}

/* Streaming: the bytes that chunks of c1 G1 points and c2 G2 points need at every step of the
 * stream: the running chunk's bases and MSM scratch plus the next chunk's bases, uploaded
 * meanwhile, whichever group it is of. The scratch by its bound (exact): !passes, one pass with
 * host scalars' room (g16__gpu_msm_scratch_bytes; the one-pass rule), else device scalars (H, the
 * witness, the compacted a / b scalars are on the device already) in passes of w1 / w2 windows (0:
 * one pass). */
static size_t stream_bytes(size_t c1, size_t c2, int passes, unsigned w1, unsigned w2)
{
    size_t b1, b2, nb;
    stream_bases(c1, c2, &b1, &b2, &nb);
    size_t s1 = passes ? g16__gpu_msm_scratch_bytes_opts(c1, 0, 1, w1) : g16__gpu_msm_scratch_bytes(c1, 0);
    size_t s2 = passes ? g16__gpu_msm_scratch_bytes_opts(c2, 1, 1, w2) : g16__gpu_msm_scratch_bytes(c2, 1);
    return b1 + s1 + nb > b2 + s2 + nb ? b1 + s1 + nb : b2 + s2 + nb;
}

static size_t chunks_need(size_t c1, size_t c2) { return stream_bytes(c1, c2, 0, 0, 0); }

/* The smallest streamed chunk of the largest query (below it, the runs' fixed costs dominate). */
#define STREAM_CHUNK_MIN ((size_t)4096)

/* The G1 and G2 chunks of the smallest stream (*c1, *c2), and the free bytes it needs beside the
 * reserve (stream_bytes, in passes of one window when passes are allowed, and choose_chunk's
 * sixteenth). */
static size_t chunks_min(const g16__gpu_prover *gp, size_t *c1, size_t *c2)
{
    size_t n1 = largest_query(gp, Q_ALL & ~(1u << Q_B2)), n2;
    q_bases(gp->p, Q_B2, &n2);
    *c1 = n1 < STREAM_CHUNK_MIN ? n1 : STREAM_CHUNK_MIN;
    *c2 = *c1 / 2 < n2 ? *c1 / 2 : n2;
    *c2 = *c2 ? *c2 : 1;
    return (stream_bytes(*c1, *c2, gp->passes_ok, 1, 1) + 14) / 15 * 16;
}

/* The device's free bytes for this worker's plans: g16__gpu_mem_info's less what the other
 * workers on the card may still allocate while proving (gp->withheld). */
static g16_status plan_free(const g16__gpu_prover *gp, size_t *free_b, g16_error *err)
{
    size_t total = 0;
    g16_status st = g16__gpu_mem_info(gp->gpu, free_b, &total, err);
    *free_b = st != G16_OK ? 0 : *free_b > gp->withheld ? *free_b - gp->withheld : 0;
    return st;
}

/* The same withheld bytes as an item of a plan checked by g16__gpu_plan_check. */
static void plan_add_withheld(const g16__gpu_prover *gp, g16__gpu_plan *plan)
{
    if (gp->withheld)
        g16__gpu_plan_add(plan, "other workers' MSMs on this card", gp->withheld);
}

/* Resident queries planned in pieces (plan_resident; not forced): when the memory left now, after
 * every buffer the prover keeps (the plan's estimate leaves the allocator's rounding out), holds
 * each query's whole run in passes of fewer windows (passes_fit), they replace the pieces: on an
 * H100 80GB at 2^27, passes of 2 windows against pieces of 2^24 points took msm.h from 1023 to
 * 905 ms per circuit and a proof from 1.83-1.89 to 1.68-1.76 s (bench/RESULTS.md, twenty-second
 * session). The partial plan (some queries streamed) settles its passes itself (plan_partial).
 * G16_GPU_PASSES=0 keeps the pieces; =N (tests) runs every query's MSM in passes of N windows when
 * all five are resident, whatever fits (pass_room then only says that passes are on). */
static g16_status passes_setup(g16__gpu_prover *gp, g16_error *err)
{
    size_t free_b = 0;
    if (!gp->resident)
        return G16_OK; /* the partial plan's passes are settled (plan_partial) */
    gp->pass_room = 0;
    if (gp->passes_wpp) {
        gp->piece = 0;
        gp->pass_room = SIZE_MAX;
        return G16_OK;
    }
    if (!gp->piece || !gp->passes_ok)
        return G16_OK;
    g16_status st = plan_free(gp, &free_b, err);
    if (st != G16_OK)
        return st;
    size_t room = free_b > G16__GPU_RESERVE ? free_b - G16__GPU_RESERVE : 0;
    if (passes_fit(gp, room, Q_ALL)) {
        gp->piece = 0;
        gp->pass_room = room;
    }
    return G16_OK;
}

/* Streaming with passes: the modelled cost, in mixed additions (msm_gpu.h, g16__gpu_msm_run_adds:
 * ~0.49 ns each), of a run over m points (random scalars) with s bytes of scratch: the run's
 * accumulation, sort and reduction at its automatic window, its fixed cost (launches, syncs, the
 * host's final sum: ~2 ms, an estimate), and each extra pass's second read of the bases and digits:
 * ~0.04 ns per point (H100 80GB, G1 2^27: one pass 958.8 ms, passes of 2 windows 980.4, of 1
 * 1023.0; bench/RESULTS.md, twenty-second session). Checked against the rule before on an H100 as
 * a 23 and a 15 GB card (2^27, batch of 3, twenty-third session): chunks of 19.4 M points in passes
 * of 3 windows against 9.5 M in one pass, 2.75-2.76 s per proof against 2.85-2.86 (msm.h -3%,
 * b_g2 -10%); 4.7 M in passes of 4 against 2.3 M, 3.46-3.48 s against 3.51-3.57 (b_g2 -10%, a and
 * b_g1 -6 to -27%, but msm.h +1-3% and msm.l +11-14%: at that size a pass's fixed ~2.5 ms, which
 * this model leaves out, outweighs the runs it saves; a model with it keeps h in one pass there and
 * loses the witness queries' gain, which this h-only model does not see). msm.l's loss went with
 * the MSM's widened passes (msm.cu, widen_passes): 15G 3.32-3.34 s per proof. */
#define STREAM_RUN_FIXED_ADDS 4.1e6
#define STREAM_PASS_ADDS 0.08
static double stream_run_adds(size_t m, size_t s)
{
    unsigned w = wpp_for(m, 0, s), nwin = g16__gpu_msm_windows(m), passes = w && w != UINT_MAX ? (nwin + w - 1) / w : 1;
    return g16__gpu_msm_run_adds(m) + STREAM_RUN_FIXED_ADDS + (double)(passes - 1) * (double)m * STREAM_PASS_ADDS;
}

/* The same for the largest G1 query's n1 points (h: random scalars, the streamed MSM that is bound
 * by compute, not by its upload) in chunks of c1 points. */
static double stream_adds(size_t n1, size_t c1, size_t s1)
{
    double cost = (double)(n1 / c1) * stream_run_adds(c1, s1);
    return n1 % c1 ? cost + stream_run_adds(n1 % c1, s1) : cost;
}

/* Chunks of c1 G1 and c2 G2 points in `room` bytes, each run in passes where its one pass does not
 * fit: chunks_need's items with the runs' scratch bound for device scalars (the prover's MSMs read
 * them in place) and passes (wpp_for); the scratch rooms of G1 and G2 runs into *s1, *s2. 0 when
 * not even passes of one window fit. */
static int stream_fits(size_t c1, size_t c2, size_t room, size_t *s1, size_t *s2)
{
    size_t b1, b2, nb;
    stream_bases(c1, c2, &b1, &b2, &nb);
    if (b1 + nb >= room || b2 + nb >= room)
        return 0;
    *s1 = room - b1 - nb;
    *s2 = room - b2 - nb;
    return wpp_for(c1, 0, *s1) != UINT_MAX && wpp_for(c2, 1, *s2) != UINT_MAX;
}

/* Windows per pass of a streamed chunk's run over n points (G2 when g2): 0 (one pass) unless
 * choose_chunk planned the runs in passes (str_room1/2). */
static unsigned stream_wpp(const g16__gpu_prover *gp, size_t n, int g2)
{
    size_t s = g2 ? gp->str_room2 : gp->str_room1;
    unsigned w = s ? wpp_for(n, g2, s) : 0;
    return w == UINT_MAX ? 1 : w; /* (never: choose_chunk checked, stream_fits) */
}

/* What the planned stream needs at every step (choose_chunk's plan): chunks_need's items, the
 * runs' scratch by the bound they were planned with. */
static size_t stream_need(const g16__gpu_prover *gp)
{
    size_t c1 = gp->chunk, c2 = gp->chunk2;
    if (!gp->str_room1 && !gp->str_room2)
        return chunks_need(c1, c2);
    return stream_bytes(c1, c2, 1, stream_wpp(gp, c1, 0), stream_wpp(gp, c2, 1));
}

/* Streaming chunks: G1 chunks (gp->chunk, at most the largest G1 query) whose stream fits in 15/16
 * of the free memory less the reserve (the sixteenth for what the bound leaves out: the bases'
 * infinity bitmaps, the pool's rounding), with G2 chunks (gp->chunk2) of half as many points (the
 * same bytes of bases). Each chunk of h is a run that pays the window sums again, and smaller runs
 * take smaller windows: on an H100 as a 16 GB card (2^27, bench/RESULTS.md, seventeenth session) h
 * took 1.74 s per circuit in chunks of 1.24 M points, against ~1 s whole. So, with passes allowed
 * (G16_GPU_PASSES not 0), the runs may go in passes of fewer windows, whose scratch is a fraction
 * of one pass's (G1 2^25: 8.9 GB in one pass, 1.9 GB in passes of 2 windows), and the chunks grow
 * into the room that frees: of the chunk sizes that fit, the one of the least modelled cost
 * (stream_adds), down to the largest chunk whose runs fit in one pass (never smaller: it would only
 * add runs). Without passes, the largest chunk whose runs fit in one pass by the host scalars' bound
 * (the rule before, for A/B). With some queries resident, plan_partial's chunks (with passes,
 * b_g2's of half the points; without, of as many), in passes where its room needs them;
 * G16_GPU_CHUNK=N sets both, one pass (tests, A/B). */
static g16_status choose_chunk(g16__gpu_prover *gp, g16_error *err)
{
    size_t free_b = 0, n2;
    const char *env = getenv("G16_GPU_CHUNK");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end || v < 1)
            return g16__error(err, G16_ERR_ARG, "G16_GPU_CHUNK='%s': expected a positive number of points", env);
        gp->chunk = gp->chunk2 = (size_t)v;
        gp->str_room1 = gp->str_room2 = 0;
        return G16_OK;
    }
    if (gp->chunk) /* plan_partial's, with its passes' room (plan_queries) */
        return G16_OK;
    gp->str_room1 = gp->str_room2 = 0;
    g16_status st = plan_free(gp, &free_b, err);
    if (st != G16_OK)
        return st;
    size_t room = free_b > G16__GPU_RESERVE ? (free_b - G16__GPU_RESERVE) / 16 * 15 : 0;
    size_t n1 = largest_query(gp, Q_ALL & ~(1u << Q_B2)), c1 = n1 ? n1 : 1, lo, lo2, least = chunks_min(gp, &lo, &lo2);
    double best = -1;
    q_bases(gp->p, Q_B2, &n2);
    for (;;) {
        size_t c2 = c1 / 2 < n2 ? c1 / 2 : n2, s1, s2;
        c2 = c2 ? c2 : 1;
        if (!gp->passes_ok && chunks_need(c1, c2) <= room) {
            gp->chunk = c1;
            gp->chunk2 = c2;
            return G16_OK;
        }
        if (gp->passes_ok && stream_fits(c1, c2, room, &s1, &s2)) {
            double cost = stream_adds(n1 ? n1 : 1, c1, s1);
            if (best < 0 || cost < best) {
                best = cost;
                gp->chunk = c1;
                gp->chunk2 = c2;
                gp->str_room1 = s1;
                gp->str_room2 = s2;
            }
            if (wpp_for(c1, 0, s1) == 0 && wpp_for(c2, 1, s2) == 0)
                break; /* the largest chunk in one pass: smaller ones only add runs */
        }
        if (c1 <= lo)
            break;
        c1 = c1 / 16 * 15 > lo ? c1 / 16 * 15 : lo;
    }
    if (best >= 0)
        return G16_OK;
    return g16__error(err, G16_ERR_NOMEM,
                      "gpu prover: %zu bytes free after the H step's vectors; streaming the queries needs at least %zu",
                      free_b, least + G16__GPU_RESERVE);
}

/* G16_GPU_H_SLOTS (tests): 2 or 3 forces the H step's device vectors; unset or empty: 3 when
 * they fit, else 2 (*slots = 0). */
static g16_status h_slots_env(int *slots, g16_error *err)
{
    const char *env = getenv("G16_GPU_H_SLOTS");
    *slots = 0;
    if (!env || !*env)
        return G16_OK;
    if (strcmp(env, "2") && strcmp(env, "3"))
        return g16__error(err, G16_ERR_ARG, "G16_GPU_H_SLOTS='%s': expected 2 or 3", env);
    *slots = env[0] - '0';
    return G16_OK;
}

/* The plan of vectors_create with the H step in `slots` vectors. */
static g16_status vectors_plan(g16__gpu_prover *gp, int slots, g16_error *err)
{
    const struct g16_r1cs *r = gp->r;
    const struct g16_params *p = gp->p;
    size_t n = r->n, nw = r->num_inputs + r->num_aux, nscal = p->n_a > p->n_b_g1 ? p->n_a : p->n_b_g1;
    size_t words = (r->num_aux + 63) / 64 * 2 + (r->num_inputs + 63) / 64;
    size_t max_c = r->num_aux > r->num_inputs ? r->num_aux : r->num_inputs, c1, c2;
    g16__gpu_plan plan;
    gp->dscal_own = nscal > (size_t)(slots - 1) * n;
    g16__gpu_plan_init(&plan);
    g16__gpu_plan_add(&plan, slots == 3 ? "H step vectors a, b, c" : "H step vectors a, b (c into b's)",
                      (size_t)slots * n * sizeof(g16_fr));
    g16__gpu_plan_add(&plan, "witness", nw * sizeof(g16_fr));
    if (gp->dscal_own)
        g16__gpu_plan_add(&plan, "a / b query scalars", nscal * sizeof(g16_fr));
    g16__gpu_plan_add(&plan, "density bitmaps", words * 8);
    g16__gpu_plan_add(&plan, "compaction scratch", g16__gpu_compactor_bytes(max_c));
    /* room for the smallest stream too: three vectors that leave none are worse than two */
    g16__gpu_plan_add(&plan, "smallest streamed chunks", chunks_min(gp, &c1, &c2));
    plan_add_withheld(gp, &plan);
    return g16__gpu_plan_check(gp->gpu, &plan, err);
}

/* The proof's vectors on the device, after one plan check: the H step's a, b, c (three vectors,
 * or two when three do not fit: ~4.3 GB less at 2^27, so that a 2^27 circuit proves on a 16 GB
 * card); the witness; the compacted a / b scalars (in the H step's b, c when they fit); the
 * density bitmaps (uploaded now: they belong to the circuit); the compaction scratch. */
static g16_status vectors_create(g16__gpu_prover *gp, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    const struct g16_params *p = gp->p;
    size_t n = r->n, nw = r->num_inputs + r->num_aux, nscal = p->n_a > p->n_b_g1 ? p->n_a : p->n_b_g1;
    size_t words[3] = {(r->num_aux + 63) / 64, (r->num_inputs + 63) / 64, (r->num_aux + 63) / 64};
    size_t max_c = r->num_aux > r->num_inputs ? r->num_aux : r->num_inputs;
    int forced;
    if ((st = h_slots_env(&forced, err)) != G16_OK)
        goto cleanup;
    gp->h_slots = forced ? forced : 3;
    st = vectors_plan(gp, gp->h_slots, err);
    if (st == G16_ERR_NOMEM && !forced) {
        g16_error e3 = err ? *err : (g16_error){0, ""};
        gp->h_slots = 2;
        if ((st = vectors_plan(gp, 2, err)) == G16_ERR_NOMEM && err)
            *err = e3; /* the error names the usual plan */
    }
    if (st != G16_OK ||
        (st = g16__gpu_alloc(gp->gpu, (void **)&gp->dabc, (size_t)gp->h_slots * n * sizeof(g16_fr), "H step vectors",
                             err)) != G16_OK ||
        (st = g16__gpu_alloc(gp->gpu, (void **)&gp->dw, (nw ? nw : 1) * sizeof(g16_fr), "witness", err)) != G16_OK)
        goto cleanup;
    gp->dh = gp->dabc;
    if (!gp->dscal_own)
        gp->dscal = gp->dabc + n;
    else if ((st = g16__gpu_alloc(gp->gpu, (void **)&gp->dscal, nscal * sizeof(g16_fr), "a / b query scalars",
                                  err)) != G16_OK)
        goto cleanup;
    if ((st = g16__gpu_alloc(gp->gpu, (void **)&gp->dbits, (words[0] + words[1] + words[2] + 1) * 8,
                             "density bitmaps", err)) != G16_OK)
        goto cleanup;
    gp->bits_off[G16__DENS_A_AUX] = 0;
    gp->bits_off[G16__DENS_B_INPUT] = words[0];
    gp->bits_off[G16__DENS_B_AUX] = words[0] + words[1];
    for (int k = 0; k < 3; k++) /* words[] is indexed by G16__DENS_* too */
        if (words[k] && (st = g16__gpu_upload(gp->gpu, gp->dbits + gp->bits_off[k], r->density[k], words[k] * 8,
                                              err)) != G16_OK)
            goto cleanup;
    if ((st = g16__gpu_compactor_create(&gp->cmp, gp->gpu, max_c, err)) != G16_OK)
        goto cleanup;
    st = g16__gpu_sync(gp->gpu, err);
cleanup:
    return st;
}

/* G16_GPU_PREFETCH: unset, empty or 1: prefetch when the spare set fits, else the a slot where it
 * applies; 0: never; wait: as 1, and the pipeline waits for the next circuit during the MSMs
 * (tests: every circuit after the first is prefetched, whatever the timing); a: the a slot only
 * (tests and A/B runs). */
static g16_status prefetch_env(int *mode, g16_error *err)
{
    const char *env = getenv("G16_GPU_PREFETCH");
    *mode = G16__GPU_PF_SPARE;
    if (!env || !*env || !strcmp(env, "1"))
        return G16_OK;
    if (!strcmp(env, "0"))
        *mode = G16__GPU_PF_OFF;
    else if (!strcmp(env, "wait"))
        *mode = G16__GPU_PF_WAIT;
    else if (!strcmp(env, "a"))
        *mode = G16__GPU_PF_A;
    else
        return g16__error(err, G16_ERR_ARG, "G16_GPU_PREFETCH='%s': expected 0, 1, wait or a", env);
    return G16_OK;
}

/* The first witness query (l, a, b_g1, b_g2 in the MSMs' order) from which on all are resident:
 * l when all are, Q_COUNT when b_g2 is streamed. */
static int a_slot_from(const g16__gpu_prover *gp)
{
    int q = Q_COUNT;
    while (q > Q_L && gp->res_mask >> (q - 1) & 1)
        q--;
    return q;
}

/* Witness MSMs in pairs (prove_gpu.h, g16__gpu_prover_msms_next) where they save uploads: some
 * witness query streamed (its chunks then cross PCIe once for two circuits), and the second
 * witness and both circuits' compacted scalars fit in the H step's three vectors, free between
 * msm.h and the next H step (witness_pair). G16_GPU_PAIR=0 turns it off. */
static g16_status pair_setup(g16__gpu_prover *gp, g16_error *err)
{
    const char *env = getenv("G16_GPU_PAIR");
    const struct g16_r1cs *r = gp->r;
    size_t nw = r->num_inputs + r->num_aux, nscal = gp->p->n_a > gp->p->n_b_g1 ? gp->p->n_a : gp->p->n_b_g1;
    unsigned wq = Q_ALL & ~(1u << Q_H);
    gp->pair = 0;
    gp->pair_note[0] = 0;
    if (env && *env && strcmp(env, "0") && strcmp(env, "1"))
        return g16__error(err, G16_ERR_ARG, "G16_GPU_PAIR='%s': expected 0 or 1", env);
    if ((env && !strcmp(env, "0")) || (gp->res_mask & wq) == wq)
        return G16_OK;
    if (gp->h_slots != 3 || gp->dscal_own || nw > 3 * r->n || 2 * nscal > 3 * r->n - nw) {
        snprintf(gp->pair_note, sizeof gp->pair_note,
                 "; witness MSMs one circuit at a time (no room for a second witness in the H step's vectors)");
        return G16_OK;
    }
    gp->pair = 1;
    /* (the a slot, the only other user of the vectors between H steps, is off with pairs);
     * G16_GPU_W2_SIDE=0: after msm.h always (A/B measurements) */
    const char *side = getenv("G16_GPU_W2_SIDE");
    gp->w2_side = nw <= 2 * r->n && !(side && !strcmp(side, "0"));
    snprintf(gp->pair_note, sizeof gp->pair_note, "; witness MSMs of two circuits per upload of the chunks%s",
             gp->w2_side ? "" : " (the second witness uploaded after msm.h)");
    return gp->w2_side ? g16__gpu_event_create(&gp->w2_done, gp->gpu, err) : G16_OK;
}

/* The a slot (prove_gpu.h, G16__GPU_PF_A) after the spare set's decision: taken when the knob
 * allows a prefetch (want) and the spare set is not there, where the layout has it (the last
 * witness MSMs on resident queries, which leave PCIe free: all of them when all queries are
 * resident, b_g1 and b_g2 in the partial plan of a 48 GB card at 2^27; a, b, c from the host one
 * input at a time). */
static g16_status a_slot_setup(g16__gpu_prover *gp, int want, g16_error *err)
{
    gp->a_from = a_slot_from(gp);
    gp->next_q = Q_COUNT;
    if (!want || (gp->pf_mode != G16__GPU_PF_OFF && gp->pf_mode != G16__GPU_PF_A))
        return G16_OK;
    size_t len = strlen(gp->pf_note);
    if (gp->pair) { /* (the pairs' second witness takes the slot's vector) */
        if (want == G16__GPU_PF_A)
            snprintf(gp->pf_note + len, sizeof gp->pf_note - len, "%sno a prefetch (witness MSMs in pairs)",
                     len ? "; " : "");
        gp->pf_mode = G16__GPU_PF_OFF;
        return G16_OK;
    }
    if (gp->a_from == Q_COUNT || gp->spmv || gp->h_slots != 3 || !gp->h_overlap || gp->dcheck) {
        if (want == G16__GPU_PF_A)
            snprintf(gp->pf_note + len, sizeof gp->pf_note - len, "%sno a prefetch (it needs the last witness "
                     "queries resident and a, b, c from the host one at a time)", len ? "; " : "");
        gp->pf_mode = G16__GPU_PF_OFF;
        return G16_OK;
    }
    const char *env = getenv("G16_GPU_A_SLOT3");
    if (env && *env && strcmp(env, "0") != 0 && strcmp(env, "1") != 0)
        return g16__error(err, G16_ERR_ARG, "G16_GPU_A_SLOT3='%s': expected 0 or 1", env);
    size_t nscal = gp->p->n_a > gp->p->n_b_g1 ? gp->p->n_a : gp->p->n_b_g1;
    /* (all five resident: no streamed chunk shares PCIe with a copy during msm.h) */
    gp->slot3 = !(env && !strcmp(env, "0")) && (gp->dscal_own || nscal <= gp->r->n) && gp->res_mask == Q_ALL;
    g16_status st = g16__gpu_event_create(&gp->pf_done, gp->gpu, err);
    if (st != G16_OK)
        return st;
    gp->pf_mode = G16__GPU_PF_A;
    snprintf(gp->pf_note + len, sizeof gp->pf_note - len, "%snext circuit's a copied %s", len ? "; " : "",
             gp->slot3 ? "once ready (the first and third vectors take turns)" : "during the witness MSMs");
    return G16_OK;
}

/* The spare set for prefetching (a, b, c; with the SpMV on the device, the witness), after the
 * resident queries: only when it leaves the scratch of the largest run free (largest_scratch, as
 * plan_resident counted it) besides the reserve; else no prefetch, and the proofs run as they did
 * without it (the note says why, for the backend line). */
static g16_status spare_create(g16__gpu_prover *gp, g16_error *err)
{
    size_t n = gp->r->n, nw = gp->r->num_inputs + gp->r->num_aux;
    size_t bytes = (gp->spmv ? (nw ? nw : 1) : 3 * n) * sizeof(g16_fr);
    const char *what_set = gp->spmv ? "witness" : "a/b/c";
    g16__gpu_plan plan;
    g16_error e = {0, ""};
    char what[160];
    g16__gpu_plan_init(&plan);
    g16__gpu_plan_add(&plan, gp->spmv ? "next circuit's witness" : "next circuit's a, b, c", bytes);
    g16__gpu_plan_add(&plan, "largest MSM's scratch, kept free", largest_scratch(gp));
    plan_add_withheld(gp, &plan);
    g16_status st = g16__gpu_plan_check(gp->gpu, &plan, &e);
    if (st == G16_ERR_NOMEM) {
        g16__gpu_plan_format(&plan, what, sizeof what);
        snprintf(gp->pf_note + strlen(gp->pf_note), sizeof gp->pf_note - strlen(gp->pf_note),
                 "no %s prefetch: it needs %.160s beside the queries", what_set, what);
        gp->pf_mode = 0;
        return G16_OK;
    }
    if (st != G16_OK) {
        if (err)
            *err = e;
        return st;
    }
    /* cudaMalloc's out-of-memory reads as G16_ERR_DEVICE (gpu.cu) and is not sticky: a spare that
     * the plan admitted but the allocator refuses only means no prefetch */
    if (g16__gpu_alloc(gp->gpu, gp->spmv ? (void **)&gp->dw_spare : (void **)&gp->dabc_spare, bytes,
                       gp->spmv ? "spare witness" : "spare H step vectors", &e) != G16_OK) {
        snprintf(gp->pf_note + strlen(gp->pf_note), sizeof gp->pf_note - strlen(gp->pf_note),
                 "no %s prefetch: %.150s", what_set, e.msg);
        gp->pf_mode = 0;
        return G16_OK;
    }
    snprintf(gp->pf_note + strlen(gp->pf_note), sizeof gp->pf_note - strlen(gp->pf_note),
             "next %s prefetched during the MSMs%s", what_set,
             gp->pf_mode == 2 ? " (waiting for it: G16_GPU_PREFETCH=wait)" : "");
    return g16__gpu_event_create(&gp->pf_done, gp->gpu, err);
}

/* Bytes of matrix k's words and row pointers on the device. */
static size_t matrix_bytes(const struct g16_r1cs *r, int k)
{
    const g16__csr *m = &r->mat[k];
    return m->nwords * 4 + (r->num_constraints + 1) * (m->rp32 ? 4 : 8);
}

/* d's buffers for gp->r's matrices and dictionary (nothing uploaded): with g16__gpu_alloc, or with
 * scratch from the device's pool and one element more after the dictionary (the staged set's rows'
 * verdict). A failure leaves what was allocated in d (mats_free gives it back). */
static g16_status mats_alloc(g16__gpu_prover *gp, dev_mats *d, int scratch, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    g16_status (*alloc)(g16__gpu *, void **, size_t, const char *, g16_error *) =
        scratch ? g16__gpu_scratch_alloc : g16__gpu_alloc;
    for (int k = 0; k < 3 && st == G16_OK; k++) {
        const g16__csr *m = &r->mat[k];
        if ((st = alloc(gp->gpu, (void **)&d->words[k], m->nwords ? m->nwords * 4 : 4,
                        scratch ? "staged matrix words" : "matrix words", err)) == G16_OK)
            st = alloc(gp->gpu, &d->rp[k], (r->num_constraints + 1) * (m->rp32 ? 4 : 8),
                       scratch ? "staged matrix row pointers" : "matrix row pointers", err);
    }
    if (st == G16_OK)
        st = alloc(gp->gpu, (void **)&d->coeffs, (r->num_coeffs + !!scratch) * sizeof(g16_fr),
                   scratch ? "staged coefficients" : "coefficients", err);
    return st;
}

/* d's copies from gp->r's host arrays, enqueued on the stream. */
static g16_status mats_upload(g16__gpu_prover *gp, dev_mats *d, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    for (int k = 0; k < 3 && st == G16_OK; k++) {
        const g16__csr *m = &r->mat[k];
        const void *rp = m->rp32 ? (const void *)m->rp32 : (const void *)m->rp64;
        if (!m->nwords || (st = g16__gpu_upload(gp->gpu, d->words[k], m->w, m->nwords * 4, err)) == G16_OK)
            st = g16__gpu_upload(gp->gpu, d->rp[k], rp, (r->num_constraints + 1) * (m->rp32 ? 4 : 8), err);
    }
    if (st == G16_OK && r->num_coeffs)
        st = g16__gpu_upload(gp->gpu, d->coeffs, r->coeffs, r->num_coeffs * sizeof(g16_fr), err);
    return st;
}

/* G16_GPU_SPMV: unset, empty or 1: A·w, B·w, C·w on the device when the queries are resident and
 * the matrices fit beside them with the largest MSM's scratch kept free, else for each batch's
 * first circuit in that scratch (spmv_first_setup); "resident": the first alone (the rule before,
 * for A/B runs); "first": the second alone (tests, A/B runs); 0: on the CPU. *resident and *first
 * say which routes the mode allows. */
static g16_status spmv_env(int *resident, int *first, g16_error *err)
{
    const char *env = getenv("G16_GPU_SPMV");
    *resident = *first = 1;
    if (!env || !*env || !strcmp(env, "1"))
        return G16_OK;
    if (!strcmp(env, "resident")) {
        *first = 0;
    } else if (!strcmp(env, "first")) {
        *resident = 0;
    } else if (!strcmp(env, "0")) {
        *resident = *first = 0;
    } else {
        return g16__error(err, G16_ERR_ARG, "G16_GPU_SPMV='%s': expected 0, 1, resident or first", env);
    }
    return G16_OK;
}

/* The matrices and the dictionary on the device (resident queries only). When they do not fit
 * (by the plan, or when the allocator refuses what the plan admitted: cudaMalloc's out-of-memory
 * reads as G16_ERR_DEVICE and is not sticky), the SpMV stays on the CPU and the note says why: no
 * error. On: the prefetch copies the next witness (spare_create), the rows are checked on the
 * device. */
static g16_status spmv_create(g16__gpu_prover *gp, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    g16__gpu_plan plan;
    g16_error e = {0, ""};
    char what[160];
    if (r->num_coeffs > ((uint64_t)1 << 31)) { /* gpu.h: the device SpMV's ids are below 2^31 */
        snprintf(gp->spmv_note, sizeof gp->spmv_note, "; A/B/C times the witness on the CPU: %llu coefficients",
                 (unsigned long long)r->num_coeffs);
        return G16_OK;
    }
    g16__gpu_plan_init(&plan);
    for (int k = 0; k < 3; k++)
        g16__gpu_plan_add(&plan, k == 0 ? "matrix A" : k == 1 ? "matrix B" : "matrix C", matrix_bytes(r, k));
    g16__gpu_plan_add(&plan, "coefficients", r->num_coeffs * sizeof(g16_fr));
    g16__gpu_plan_add(&plan, "largest MSM's scratch, kept free", largest_scratch(gp));
    plan_add_withheld(gp, &plan);
    st = g16__gpu_plan_check(gp->gpu, &plan, &e);
    if (st == G16_ERR_NOMEM) {
        g16__gpu_plan_format(&plan, what, sizeof what);
        snprintf(gp->spmv_note, sizeof gp->spmv_note, "; A/B/C times the witness on the CPU: the device needs %.160s "
                 "beside the queries", what);
        return G16_OK;
    }
    if (st != G16_OK)
        goto fail;
    st = mats_alloc(gp, &gp->mres, 0, &e);
    if (st == G16_OK && !gp->dcheck)
        st = g16__gpu_alloc(gp->gpu, (void **)&gp->dcheck, sizeof *gp->dcheck, "witness check verdict", &e);
    if (st != G16_OK) {
        spmv_free(gp);
        snprintf(gp->spmv_note, sizeof gp->spmv_note, "; A/B/C times the witness on the CPU: %.200s", e.msg);
        return G16_OK;
    }
    g16__span sp = g16__span_begin("gpu.upload_matrices");
    if ((st = mats_upload(gp, &gp->mres, &e)) == G16_OK)
        st = g16__gpu_sync(gp->gpu, &e);
    g16__span_end(sp);
    if (st != G16_OK)
        goto fail;
    gp->spmv = 1;
    snprintf(gp->pf_note, sizeof gp->pf_note, "A/B/C times the witness on the device, ");
    return G16_OK;
fail:
    if (err)
        *err = e;
    return st;
}

/* Resident MSMs run in pieces of a power of two of points, down to PIECE_MIN (an eighth of the
 * largest query for circuits below 2^23): below that the runs' fixed costs (the window sums, ~12 ms
 * per G1 run from 2^24 points on the H200) add up, and streaming is the better plan anyway. */
#define PIECE_MIN ((size_t)1 << 20)

/* The largest piece whose runs over the queries of `mask` fit their scratch in `room` bytes: 0
 * (the whole queries), a power of two, or SIZE_MAX when not even the smallest piece fits. */
static size_t piece_for(const g16__gpu_prover *gp, size_t room, unsigned mask)
{
    size_t nmax = largest_query(gp, mask), floor = nmax / 8 < PIECE_MIN ? nmax / 8 : PIECE_MIN, p = 1;
    if (scratch_at(gp, 0, mask) <= room)
        return 0;
    while (p * 2 < nmax)
        p *= 2;
    for (; p >= floor && p >= 32; p /= 2)
        if (scratch_at(gp, p, mask) <= room)
            return p;
    return SIZE_MAX;
}

/* A piece as points per run, for comparisons: the whole queries count as the largest query
 * rounded up to a power of two, no fit as 0. */
static size_t piece_points(const g16__gpu_prover *gp, size_t piece)
{
    size_t nmax = largest_query(gp, Q_ALL), p = 1;
    if (piece == SIZE_MAX)
        return 0;
    if (piece)
        return piece;
    while (p < nmax)
        p *= 2;
    return p;
}

/* The SpMV's device bytes (matrices and dictionary; 0 when its ids cannot be addressed). */
static size_t spmv_bytes(const struct g16_r1cs *r)
{
    if (r->num_coeffs > ((uint64_t)1 << 31))
        return 0;
    return matrix_bytes(r, 0) + matrix_bytes(r, 1) + matrix_bytes(r, 2) + r->num_coeffs * sizeof(g16_fr);
}

/* The transient SpMV (prove_gpu.h, g16__gpu_prover_spmv_first): where the matrices do not stay on
 * the device beside the queries, but fit with the rows' verdict in the largest MSM's scratch,
 * which the plan keeps free and no MSM holds between proofs. Only with all five queries resident
 * (the streamed and partial plans fill the batch's start with the witness MSMs, in pairs) and the
 * H step in three vectors. The matrices' host memory is page-locked for the prover's life
 * (mat_pin). The note says which route the first circuits take. */
static void spmv_first_setup(g16__gpu_prover *gp)
{
    const struct g16_r1cs *r = gp->r;
    size_t need = spmv_bytes(r) + sizeof(g16_fr), room, len = strlen(gp->spmv_note);
    char pin[128];
    if (gp->spmv || !gp->resident || gp->h_slots != 3 || !spmv_bytes(r))
        return;
    room = largest_scratch(gp);
    if (need > room) {
        snprintf(gp->spmv_note + len, sizeof gp->spmv_note - len,
                 "; no SpMV on the device for a batch's first circuit: its matrices (%zu bytes) exceed the MSM "
                 "scratch (%zu)", need, room);
        return;
    }
    mat_pin(gp, pin, sizeof pin);
    gp->spmv_first = 1;
    snprintf(gp->spmv_note + len, sizeof gp->spmv_note - len,
             "; a batch's first circuit: A/B/C times the witness on the device, the matrices (%.3g GB, %s) staged "
             "in the MSM scratch", need / 1e9, pin);
}

/* G16_GPU_PASSES: unset, empty or "auto": passes where the plan took pieces and they fit
 * (passes_setup); "0": never; N >= 1 (tests): with all five queries resident, every MSM in passes
 * of N windows, whatever fits. */
static g16_status passes_env(g16__gpu_prover *gp, g16_error *err)
{
    const char *env = getenv("G16_GPU_PASSES");
    char *end;
    gp->passes_ok = 1;
    gp->passes_wpp = 0;
    if (!env || !*env || !strcmp(env, "auto"))
        return G16_OK;
    unsigned long v = strtoul(env, &end, 10);
    if (*end || *env < '0' || *env > '9' || v > 128)
        return g16__error(err, G16_ERR_ARG, "G16_GPU_PASSES='%s': expected auto, 0 or windows per pass (1..128)",
                          env);
    gp->passes_ok = v != 0;
    gp->passes_wpp = (unsigned)v;
    return G16_OK;
}

/* G16_GPU_PIECE=N (tests): the resident MSMs in pieces of N points (a multiple of 32), whatever
 * fits; 0 when unset. */
static g16_status piece_env(size_t *piece, g16_error *err)
{
    const char *env = getenv("G16_GPU_PIECE");
    char *end;
    *piece = 0;
    if (!env || !*env)
        return G16_OK;
    unsigned long long v = strtoull(env, &end, 10);
    if (*end || v < 32 || v % 32)
        return g16__error(err, G16_ERR_ARG, "G16_GPU_PIECE='%s': expected a positive multiple of 32 points", env);
    *piece = (size_t)v;
    return G16_OK;
}

/* Resident mode's plan, in the free memory left beside the H step's vectors: the five queries'
 * bases, and the largest run's scratch kept free: whole queries when that fits, else pieces (the
 * largest that fits, piece_for). Then the SpMV's matrices (*spmv) when they leave the pieces at
 * least half as large as without them (the SpMV saves ~0.7 s of CPU per 2^27 circuit on 16 cores;
 * halved pieces add the window sums of twice the runs, ~5% of an MSM), and the prefetch's spare
 * set (gp->pf_mode spare or wait; the a slot needs none) only when it leaves them as large. What
 * does not fit is turned off here, with the reason in the notes. 0: not even the bases with the
 * smallest pieces fit (streaming). Pieces may still become passes (passes_setup). */
static int plan_resident(g16__gpu_prover *gp, int *spmv, size_t forced_piece)
{
    size_t free_b = 0, need = bases_bytes(gp, Q_ALL) + G16__GPU_RESERVE, avail, p0, p_sm, p_all;
    size_t n = gp->r->n, nw = gp->r->num_inputs + gp->r->num_aux, sm, spare;
    if (plan_free(gp, &free_b, NULL) != G16_OK)
        return 0;
    avail = free_b > need ? free_b - need : 0;
    if ((p0 = piece_for(gp, avail, Q_ALL)) == SIZE_MAX)
        return 0;
    sm = *spmv ? spmv_bytes(gp->r) : 0;
    p_sm = sm < avail ? piece_for(gp, avail - sm, Q_ALL) : SIZE_MAX;
    if (sm && piece_points(gp, p_sm) * 2 < piece_points(gp, p0)) {
        *spmv = 0;
        sm = 0;
        p_sm = p0;
        snprintf(gp->spmv_note, sizeof gp->spmv_note,
                 "; A/B/C times the witness on the CPU: the matrices would more than halve the MSM pieces");
    }
    spare = gp->pf_mode == G16__GPU_PF_SPARE || gp->pf_mode == G16__GPU_PF_WAIT
                ? (sm ? (nw ? nw : 1) : 3 * n) * sizeof(g16_fr) : 0;
    p_all = sm + spare < avail ? piece_for(gp, avail - sm - spare, Q_ALL) : SIZE_MAX;
    if (spare && p_all != p_sm) {
        gp->pf_mode = 0;
        gp->pf_why = "its spare set would shrink the MSM pieces";
        p_all = p_sm;
    }
    gp->piece = p_all;
    if (forced_piece)
        gp->piece = forced_piece < largest_query(gp, Q_ALL) ? forced_piece : 0;
    return 1;
}

/* Partial residency: streamed chunks of at least this many points (or an eighth of the largest
 * streamed query, or all of it, when that is less). Each chunk's run of h (random scalars) pays
 * the window sums again, and smaller runs take smaller windows: on an H100 as a 48 GB card
 * (G16_GPU_MEM_LIMIT=46G, 2^27, bench/RESULTS.md, sixteenth session) l and b_g2 resident with
 * chunks of 2^22 took msm.h from 1.06-1.13 s to 1.38-1.40 s per circuit (~11 ms per extra run),
 * as much as the two resident queries saved (a proof 2.99-3.02 s against 2.95-3.07 s streaming
 * everything in chunks of 22.8 M points). */
#define PARTIAL_CHUNK_MIN ((size_t)1 << 24)

/* The bytes of the largest point among the queries of `mask` (a G2 point when it has b_g2). */
static size_t point_bytes_most(unsigned mask)
{
    return mask >> Q_B2 & 1 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine);
}

/* The largest chunk of the streamed queries (mask str) whose run fits in `room` bytes with two
 * chunks' bases (the one running and the next one's upload): all of the largest streamed query,
 * else a power of two of points, at least `lo`; 0 when none fits. */
static size_t chunk_for(const g16__gpu_prover *gp, size_t room, unsigned str, size_t lo)
{
    size_t nstream = largest_query(gp, str), pb = point_bytes_most(str);
    size_t c = nstream, p2 = 1;
    while (p2 * 2 < nstream)
        p2 *= 2;
    for (;;) {
        if (c < lo || c == 0)
            return 0;
        if (2 * c * pb <= room && scratch_at(gp, c, str) <= room - 2 * c * pb)
            return c;
        c = c > p2 ? p2 : c / 2;
    }
}

/* The G2 chunk of the partial plan with passes for G1 chunks of c points: half as many points (the
 * same bytes of bases), as in streaming mode. */
static size_t partial_chunk2(size_t c) { return c / 2 ? c / 2 : 1; }

/* Every streamed query's chunk run (mask str, G1 chunks of c points, b_g2's partial_chunk2(c))
 * fits in `room` bytes of scratch, in passes where one does not (wpp_for). */
static int chunk_runs_fit(const g16__gpu_prover *gp, size_t c, size_t room, unsigned str)
{
    size_t n;
    for (int q = 0; q < Q_COUNT; q++) {
        q_bases(gp->p, q, &n);
        size_t cq = q == Q_B2 ? partial_chunk2(c) : c;
        if (str >> q & 1 && wpp_for(cq < n ? cq : n, q == Q_B2, room) == UINT_MAX)
            return 0;
    }
    return 1;
}

/* The partial plan with passes (G16_GPU_PASSES not 0): for the resident set `mask` in `room` bytes
 * (free memory less its bases and the reserve), the G1 chunk of the streamed queries (b_g2's:
 * partial_chunk2) and the scratch room *s every run then gets (room less two chunks' bases: the
 * running one and the next one's upload, whichever query it is of; stream_bases). Candidates as
 * chunk_for's (all of the largest streamed query, then powers of two down to lo) whose runs all
 * fit in *s, the streamed chunks' and the resident queries' whole runs, in passes where one pass
 * does not fit; of those, the one of the least modelled cost of h's runs (stream_adds) when h is
 * streamed, else the largest. The resident runs go whole instead of in pieces and the chunks grow,
 * as in the all-resident and the all-streamed plans (passes_setup, choose_chunk); and b_g2's
 * chunks of half the points leave the room of a G1 query's bases where one pass's rule took two
 * G2 chunks of the G1 chunk's points. 0 when none fits. */
static size_t partial_passes(const g16__gpu_prover *gp, size_t room, unsigned mask, size_t lo, size_t *s)
{
    unsigned str = Q_ALL & ~mask;
    size_t nstream = largest_query(gp, str), c = nstream, p2 = 1, best_c = 0, nh, b1, b2, nb;
    double best = 0;
    q_bases(gp->p, Q_H, &nh);
    while (p2 * 2 < nstream)
        p2 *= 2;
    for (; c >= lo && c > 0; c = c > p2 ? p2 : c / 2) {
        stream_bases(c, partial_chunk2(c), &b1, &b2, &nb);
        if (2 * nb >= room)
            continue;
        size_t sc = room - 2 * nb;
        if (!passes_fit(gp, sc, mask) || !chunk_runs_fit(gp, c, sc, str))
            continue;
        double cost = str >> Q_H & 1 ? stream_adds(nh, c, sc) : -(double)c;
        if (!best_c || cost < best) {
            best = cost;
            best_c = c;
            *s = sc;
        }
    }
    return best_c;
}

/* A partial plan: the resident runs' pieces (0: whole), the G1 and b_g2 chunks, the passes' room
 * of every run (0: one pass). */
typedef struct {
    size_t piece, chunk, chunk2, room;
} partial_plan;

/* The partial plan of the resident set `mask` in free_b bytes (plan_partial's test for one set)
 * into *pl; 0 when the set does not qualify (*pl untouched). */
static int partial_for(const g16__gpu_prover *gp, size_t free_b, unsigned mask, partial_plan *pl)
{
    unsigned str = Q_ALL & ~mask;
    size_t res = bases_bytes(gp, mask), nstream = largest_query(gp, str), room, c, pc = 0, s = 0;
    size_t pb = point_bytes_most(str);
    size_t lo = nstream / 8 < PARTIAL_CHUNK_MIN ? nstream / 8 : PARTIAL_CHUNK_MIN;
    lo = lo > 4096 ? lo : nstream < 4096 ? nstream : 4096;
    if (free_b <= res + G16__GPU_RESERVE)
        return 0;
    room = free_b - res - G16__GPU_RESERVE;
    if (gp->passes_ok) {
        if ((c = partial_passes(gp, room, mask, lo, &s)) == 0)
            return 0;
    } else if ((c = chunk_for(gp, room, str, lo)) == 0 || (pc = piece_for(gp, room - 2 * c * pb, mask)) == SIZE_MAX) {
        return 0;
    }
    pl->piece = pc;
    pl->chunk = c;
    pl->chunk2 = gp->passes_ok ? partial_chunk2(c) : c;
    pl->room = s;
    return 1;
}

/* When not all five queries fit (plan_resident said no), which ones stay resident, the others
 * streamed in chunks as in streaming mode: the set of the most bytes among l, a, b_g1 and b_g2,
 * then h as well when it fits too. h comes last because its MSM (random scalars) is bound by
 * compute while the witness queries' (mostly 0/1 scalars) are bound by their upload: 2^27 on the
 * H200 as an 80 GB card, streamed in chunks of 49.2 M points against resident in pieces of 2^24,
 * msm.h took 1082 against 1019 ms per circuit, the four witness MSMs 3.0-3.1 s against 0.74-0.80 s
 * per batch of 3 (bench/RESULTS.md, fifteenth session). A set qualifies when, in free_b less its
 * bases and the reserve, the streamed chunks keep at least PARTIAL_CHUNK_MIN points and the
 * resident runs fit their scratch beside two chunks' bases: with passes allowed, every run whole
 * in passes where needed (partial_passes; *room = the scratch room of every run, *piece = 0),
 * else in one pass, the streamed chunks by the host scalars' bound (chunk_for) and the resident
 * runs whole or in pieces (piece_for; room 0; b_g2's chunks of as many points as the G1 chunks).
 * Returns the set's mask (0: none qualifies) and its plan (partial_for). */
static unsigned plan_partial(const g16__gpu_prover *gp, size_t free_b, partial_plan *best_pl)
{
    unsigned best = 0;
    size_t best_w = 0, best_h = 0;
    partial_plan pl;
    for (unsigned mask = 1; mask < Q_ALL; mask++) {
        if (!partial_for(gp, free_b, mask, &pl))
            continue;
        size_t w = bases_bytes(gp, mask & ~(1u << Q_H)), h = bases_bytes(gp, mask & (1u << Q_H));
        if (w > best_w || (w == best_w && h > best_h)) {
            best = mask;
            best_w = w;
            best_h = h;
            *best_pl = pl;
        }
    }
    return best;
}

/* G16_GPU_RESIDENT (tests, A/B measurements): unset, empty or "auto": the memory plan decides;
 * "none": every query streamed (as G16_GPU_STREAM=1); "0": no partial residency (all five or
 * none); a comma-separated list of h, l, a, b_g1, b_g2: exactly those resident (their MSMs whole,
 * or in G16_GPU_PIECE's pieces), the others streamed; with passes allowed and room for the set as
 * the partial plan counts it (partial_for), its chunks and passes are that plan's. *mode: 0 auto,
 * 1 forced (*mask), 2 no partial. */
static g16_status resident_env(int *mode, unsigned *mask, g16_error *err)
{
    const char *env = getenv("G16_GPU_RESIDENT"), *s = env;
    *mode = 0;
    *mask = 0;
    if (!env || !*env || !strcmp(env, "auto"))
        return G16_OK;
    if (!strcmp(env, "0")) {
        *mode = 2;
        return G16_OK;
    }
    *mode = 1;
    if (!strcmp(env, "none"))
        return G16_OK;
    for (;;) { /* names separated by single commas, none empty */
        size_t len = strcspn(s, ","), q = 0;
        while (q < Q_COUNT && !(strlen(q_name[q]) == len && !strncmp(s, q_name[q], len)))
            q++;
        if (q == Q_COUNT)
            return g16__error(err, G16_ERR_ARG,
                              "G16_GPU_RESIDENT='%s': expected auto, none, 0 or a list of h, l, a, b_g1, b_g2", env);
        *mask |= 1u << q;
        if (!s[len])
            return G16_OK;
        s += len + 1;
    }
}

/* gp->res_mask, gp->resident and gp->piece: G16_GPU_RESIDENT's set when it names one (pieces only
 * when G16_GPU_PIECE asks), else nothing with G16_GPU_STREAM=1, else all five when they fit
 * (plan_resident, which also settles the SpMV and the prefetch), else the partial plan unless
 * G16_GPU_RESIDENT=0. */
static void plan_queries(g16__gpu_prover *gp, int *spmv, int rmode, unsigned rmask, size_t forced_piece)
{
    size_t free_b = 0;
    const char *stream = getenv("G16_GPU_STREAM");
    int stream_all = stream && !strcmp(stream, "1");
    gp->res_mask = 0;
    gp->piece = 0;
    gp->pass_room = gp->str_room1 = gp->str_room2 = 0;
    gp->chunk = gp->chunk2 = 0;
    partial_plan pl = {0, 0, 0, 0};
    if (rmode == 1 && rmask != Q_ALL) {
        /* the named set, with passes planned as the partial plan would when it qualifies, else its
         * runs whole in one pass and the chunks as in streaming mode (choose_chunk) */
        gp->res_mask = rmask;
        if (rmask && gp->passes_ok && plan_free(gp, &free_b, NULL) == G16_OK)
            (void)partial_for(gp, free_b, rmask, &pl); /* (pl stays zero when the set does not qualify) */
    } else if (!stream_all && plan_resident(gp, spmv, forced_piece)) {
        gp->res_mask = Q_ALL;
    } else if (!stream_all && rmode != 2 && plan_free(gp, &free_b, NULL) == G16_OK) {
        gp->res_mask = plan_partial(gp, free_b, &pl);
    }
    if (gp->res_mask && gp->res_mask != Q_ALL) {
        gp->piece = pl.piece;
        gp->chunk = pl.chunk;
        gp->chunk2 = pl.chunk2;
        /* the passes' room: the resident runs' (run_wpp) and the streamed chunks' (stream_wpp) */
        gp->pass_room = gp->str_room1 = gp->str_room2 = pl.room;
        if (forced_piece) {
            gp->piece = forced_piece < largest_query(gp, gp->res_mask) ? forced_piece : 0;
            gp->pass_room = 0;
        }
    }
    gp->resident = gp->res_mask == Q_ALL;
}

/* G16_GPU_W_LATE (default 1; 0 for A/B measurements): the H step leaves its witness copy running
 * (g16__gpu_prover_h) and the event that marks its end, where the h query is resident: msm.h then
 * leaves PCIe idle. Where h is streamed its chunks cross PCIe during msm.h on the side stream, behind
 * the witness: they would wait for it, and the step would gain nothing. */
static g16_status w_late_setup(g16__gpu_prover *gp, g16_error *err)
{
    const char *env = getenv("G16_GPU_W_LATE");
    if (env && *env && strcmp(env, "0") != 0 && strcmp(env, "1") != 0)
        return g16__error(err, G16_ERR_ARG, "G16_GPU_W_LATE='%s': expected 0 or 1", env);
    gp->w_late = !(env && !strcmp(env, "0")) && (gp->res_mask >> Q_H & 1);
    return gp->w_late ? g16__gpu_event_create(&gp->w_done, gp->gpu, err) : G16_OK;
}

/* The resident queries' handles (res_mask). One that the allocator refuses after the plan admitted
 * it (the estimate was optimistic) means streaming them all, no error. */
static g16_status res_create(g16__gpu_prover *gp, g16_error *err)
{
    g16_status st = G16_OK;
    for (int q = 0; q < Q_COUNT && st == G16_OK; q++) {
        size_t n;
        q_bases(gp->p, q, &n);
        if (gp->res_mask >> q & 1)
            st = q_create(gp, q, 0, n, err);
    }
    if (st == G16_ERR_NOMEM) {
        q_destroy_all(gp);
        gp->res_mask = 0;
        gp->resident = 0;
        gp->piece = 0;
        gp->pass_room = 0;
        gp->chunk = 0;
        st = G16_OK;
    }
    return st;
}

g16_status g16__gpu_prover_create(g16__gpu_prover **out, int device, const struct g16_params *p,
                                  const struct g16_r1cs *r, g16_error *err)
{
    return g16__gpu_prover_create_shared(out, device, 0, p, r, err);
}

/* The partial plan's streamed runs: the largest scratch of a chunk's run over a streamed query, by
 * the bound its plan took (in passes by its room, partial_passes; else one pass with the host
 * scalars' room, chunk_for). */
static size_t partial_stream_scratch(const g16__gpu_prover *gp)
{
    size_t most = 0, n;
    for (int q = 0; q < Q_COUNT; q++) {
        if (gp->res_mask >> q & 1)
            continue;
        q_bases(gp->p, q, &n);
        size_t cq = q == Q_B2 ? gp->chunk2 : gp->chunk, c = n < cq ? n : cq, b;
        b = gp->str_room1 ? g16__gpu_msm_scratch_bytes_opts(c, q == Q_B2, 1, stream_wpp(gp, c, q == Q_B2))
                          : g16__gpu_msm_scratch_bytes(c, q == Q_B2);
        most = b > most ? b : most;
    }
    return most;
}

/* The partial plan's two streamed chunks' bases at most: with passes, stream_bases's (b_g2's
 * chunks of half the points); in one pass, chunk_for's (as many points, of the largest streamed
 * point size). */
static size_t partial_bases(const g16__gpu_prover *gp)
{
    size_t b1, b2, nb;
    if (gp->passes_ok) {
        stream_bases(gp->chunk, gp->chunk2, &b1, &b2, &nb);
        return 2 * nb;
    }
    return 2 * gp->chunk * point_bytes_most(Q_ALL & ~gp->res_mask);
}

size_t g16__gpu_prover_transient_bytes(const g16__gpu_prover *gp)
{
    size_t r, s;
    if (!gp)
        return 0;
    if (gp->res_mask == Q_ALL) /* a resident run */
        return largest_scratch(gp);
    if (!gp->res_mask) { /* the streamed runs (choose_chunk's sixteenth on top of what they need) */
        s = stream_need(gp);
        return s + s / 15 + 1;
    }
    /* the partial plan: a resident or a streamed run beside two streamed chunks' bases */
    r = largest_scratch(gp);
    s = partial_stream_scratch(gp);
    return partial_bases(gp) + (r > s ? r : s);
}

g16_status g16__gpu_prover_create_shared(g16__gpu_prover **out, int device, size_t withheld,
                                         const struct g16_params *p, const struct g16_r1cs *r, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_prover *gp = NULL;
    *out = NULL;
    gp = calloc(1, sizeof *gp);
    if (!gp)
        return g16__error(err, G16_ERR_NOMEM, "gpu prover: context");
    gp->p = p;
    gp->r = r;
    gp->withheld = withheld;
    if (pthread_mutex_init(&gp->pf_mu, NULL) != 0) {
        free(gp);
        return g16__error(err, G16_ERR_NOMEM, "gpu prover: mutex");
    }
    gp->pf_mu_init = 1;
    g16__span sp = g16__span_begin_n("gpu.prover_create", (uint64_t)device);
    int spmv = 0, spmv_first = 0, rmode = 0;
    unsigned rmask = 0;
    size_t forced_piece = 0;
    if ((st = prefetch_env(&gp->pf_knob, err)) != G16_OK || (st = spmv_env(&spmv, &spmv_first, err)) != G16_OK ||
        (st = piece_env(&forced_piece, err)) != G16_OK || (st = resident_env(&rmode, &rmask, err)) != G16_OK ||
        (st = g16__gpu_open(&gp->gpu, device, err)) != G16_OK)
        goto cleanup;
    gp->pf_mode = gp->pf_knob;
    if ((st = passes_env(gp, err)) != G16_OK)
        goto cleanup;
    if ((st = g16__gpu_ntt_create(&gp->ntt, gp->gpu, r->log_n, g16__params_root_generator(p), NULL, err)) != G16_OK)
        goto cleanup;
    if ((st = vectors_create(gp, err)) != G16_OK)
        goto cleanup;
    if (gp->h_slots == 2) { /* the device SpMV, the row check and the spare set need a, b, c at once */
        if (spmv)
            snprintf(gp->spmv_note, sizeof gp->spmv_note,
                     "; A/B/C times the witness on the CPU: the H step runs in two device vectors");
        spmv = 0;
        gp->pf_mode = 0;
        gp->pf_why = "the H step runs in two device vectors";
    }
    if (gp->h_slots == 3 && getenv("G16_GPU_CHECK") && !strcmp(getenv("G16_GPU_CHECK"), "1") &&
        (st = g16__gpu_alloc(gp->gpu, (void **)&gp->dcheck, sizeof *gp->dcheck, "witness check verdict", err)) !=
            G16_OK)
        goto cleanup;
    gp->check_bad = UINT64_MAX;
    plan_queries(gp, &spmv, rmode, rmask, forced_piece);
    if ((st = res_create(gp, err)) != G16_OK)
        goto cleanup;
    /* the streamed queries' chunks from the memory left now (after a failed resident attempt too);
     * no prefetch there (the memory is the chunks') */
    if (gp->res_mask != Q_ALL && (st = choose_chunk(gp, err)) != G16_OK)
        goto cleanup;
    {
        const char *ho = getenv("G16_GPU_H_OVERLAP"), *ca = getenv("G16_GPU_C_FROM_AB");
        gp->h_overlap = !(ho && !strcmp(ho, "0"));
        gp->c_ab_env = !(ca && !strcmp(ca, "0"));
        if (ca && *ca && strcmp(ca, "0") != 0 && strcmp(ca, "1") != 0) {
            st = g16__error(err, G16_ERR_ARG, "G16_GPU_C_FROM_AB='%s': expected 0 or 1", ca);
            goto cleanup;
        }
    }
    if ((st = w_late_setup(gp, err)) != G16_OK)
        goto cleanup;
    if (gp->res_mask != Q_ALL) {
        const char *ov = getenv("G16_GPU_STREAM_OVERLAP");
        gp->stream_overlap = !(ov && !strcmp(ov, "0"));
        pin_acquire(gp);
    }
    if (gp->resident && spmv && (st = spmv_create(gp, err)) != G16_OK)
        goto cleanup;
    /* the knob's mode, not pf_mode: the memory plan may have turned the spare set off already
     * (plan_resident), which is where the a slot applies (an H100 80GB at 2^27 went without it) */
    int want = gp->pf_knob;
    if (want == G16__GPU_PF_A) {
        /* the a slot alone (a_slot_setup) */
    } else if (!gp->resident || !gp->pf_mode) {
        snprintf(gp->pf_note + strlen(gp->pf_note), sizeof gp->pf_note - strlen(gp->pf_note), "no %s prefetch (%s)",
                 gp->spmv ? "witness" : "a/b/c",
                 gp->resident ? (gp->pf_why ? gp->pf_why : "G16_GPU_PREFETCH=0")
                 : gp->res_mask ? "some queries streamed" : "queries streamed");
        gp->pf_mode = G16__GPU_PF_OFF;
    } else if ((st = spare_create(gp, err)) != G16_OK) {
        goto cleanup;
    }
    if ((st = pair_setup(gp, err)) != G16_OK || (st = a_slot_setup(gp, want, err)) != G16_OK)
        goto cleanup;
    if (!forced_piece && (st = passes_setup(gp, err)) != G16_OK)
        goto cleanup;
    if (spmv_first)
        spmv_first_setup(gp);
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
    if (gp->resident && gp->piece)
        snprintf(buf, len, "gpu %d (%s), queries resident, MSMs in pieces of up to %zu points (the whole queries' "
                 "scratch does not fit beside them), %s%s", info.device, info.name, gp->piece, gp->pf_note,
                 gp->spmv_note);
    else if (gp->resident && gp->pass_room)
        snprintf(buf, len, "gpu %d (%s), queries resident, MSMs whole in passes of up to %u windows (%s), %s%s",
                 info.device, info.name, largest_wpp(gp),
                 gp->passes_wpp ? "G16_GPU_PASSES" : "one pass's scratch does not fit beside them", gp->pf_note,
                 gp->spmv_note);
    else if (gp->resident)
        snprintf(buf, len, "gpu %d (%s), queries resident, %s%s", info.device, info.name, gp->pf_note, gp->spmv_note);
    else if (gp->res_mask) {
        char res[64] = "", str[64] = "", pc[96] = "";
        for (int q = 0; q < Q_COUNT; q++) {
            char *d = gp->res_mask >> q & 1 ? res : str;
            snprintf(d + strlen(d), 64 - strlen(d), "%s%s", *d ? ", " : "", q_name[q]);
        }
        unsigned wr = 0, ws = 0; /* the most windows per pass of a resident run, of a streamed chunk's */
        for (int q = 0; q < Q_COUNT; q++) {
            size_t n;
            q_bases(gp->p, q, &n);
            if (gp->res_mask >> q & 1) {
                unsigned w = gp->pass_room ? run_wpp(gp, n, q == Q_B2) : 0;
                wr = w > wr ? w : wr;
            } else {
                size_t c = q == Q_B2 ? gp->chunk2 : gp->chunk;
                unsigned w = stream_wpp(gp, n < c ? n : c, q == Q_B2);
                ws = w > ws ? w : ws;
            }
        }
        if (gp->piece)
            snprintf(pc, sizeof pc, " (MSMs in pieces of up to %zu points)", gp->piece);
        else if (wr)
            snprintf(pc, sizeof pc, " (MSMs whole in passes of up to %u windows)", wr);
        char pass[64] = "", ch[64];
        if (ws)
            snprintf(pass, sizeof pass, ", each chunk's MSM in passes of up to %u windows", ws);
        int g1s = (gp->res_mask & Q_ALL & ~(1u << Q_B2)) != (Q_ALL & ~(1u << Q_B2)), g2s = !(gp->res_mask >> Q_B2 & 1);
        if (g1s && g2s && gp->chunk2 != gp->chunk)
            snprintf(ch, sizeof ch, "%zu points (%zu for b_g2)", gp->chunk, gp->chunk2);
        else
            snprintf(ch, sizeof ch, "%zu points", g1s ? gp->chunk : gp->chunk2);
        snprintf(buf, len, "gpu %d (%s), queries %s resident%s, %s streamed in chunks of up to %s from %s host memory "
                 "(not all fit)%s, %s", info.device, info.name, res, pc, str, ch, gp->pin_note, pass, gp->pf_note);
    } else {
        unsigned w1 = stream_wpp(gp, gp->chunk, 0), w2 = stream_wpp(gp, gp->chunk2, 1);
        char pass[96] = "";
        if (w1 || w2)
            snprintf(pass, sizeof pass, ", each chunk's MSM in passes of up to %u windows (%u for b_g2; 0: one pass)",
                     w1, w2);
        snprintf(buf, len,
                 "gpu %d (%s), queries streamed in chunks of up to %zu points (%zu for b_g2; they do not all fit) "
                 "from %s host memory%s",
                 info.device, info.name, gp->chunk, gp->chunk2, gp->pin_note, pass);
    }
    if (gp->h_slots == 2 && strlen(buf) + 1 < len)
        snprintf(buf + strlen(buf), len - strlen(buf), "; the H step in two device vectors");
    if (strlen(buf) + 1 < len)
        snprintf(buf + strlen(buf), len - strlen(buf), "%s", gp->pair_note);
    if (g16__gpu_prover_forms_c(gp) && strlen(buf) + 1 < len)
        snprintf(buf + strlen(buf), len - strlen(buf), "; c formed on the device as a·b (none on the host)");
}

/* a, b, c into the current set, synchronously (span gpu.upload_abc: the host waits for the copies,
 * so that the span is their time; the NTTs would wait for them on the stream anyway). */
static g16_status upload_abc(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c, g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = gp->r->n, bytes = n * sizeof(g16_fr);
    g16__span sp = g16__span_begin_n("gpu.upload_abc", 3 * n);
    if ((st = g16__gpu_upload(gp->gpu, gp->dabc, a, bytes, err)) == G16_OK &&
        (st = g16__gpu_upload(gp->gpu, gp->dabc + n, b, bytes, err)) == G16_OK &&
        (st = g16__gpu_upload(gp->gpu, gp->dabc + 2 * n, c, bytes, err)) == G16_OK)
        st = g16__gpu_sync(gp->gpu, err);
    else
        (void)g16__gpu_sync(gp->gpu, NULL); /* no copy from a, b, c left in flight (as h_two_vectors) */
    g16__span_end(sp);
    if (st == G16_OK)
        gp->n_uploaded++;
    return st;
}

/* Where the a slot copies the next circuit's a: the third vector while the first holds H, or held
 * it last (slot3), else the first (a's home; there only once msm.h has read H). */
static g16_fr *slot_target(const g16__gpu_prover *gp)
{
    return gp->slot3 && gp->dh == gp->dabc ? gp->dabc + 2 * gp->r->n : gp->dabc;
}

/* pf_open under pf_mu (the synth thread reads it there). */
static void set_pf_open(g16__gpu_prover *gp, int open)
{
    pthread_mutex_lock(&gp->pf_mu);
    gp->pf_open = open;
    pthread_mutex_unlock(&gp->pf_mu);
}

/* The pending prefetch holds exactly these host inputs (pf_mu held): the witness with the SpMV on
 * the device, else a, b, c. */
static int pf_holds(const g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c, const g16_fr *w)
{
    if (gp->pf_mode == G16__GPU_PF_A) /* a alone, into the current set */
        return gp->pf_pending && gp->pf_a == a;
    if (gp->spmv)
        return gp->pf_pending && gp->pf_w == w;
    return gp->pf_pending && gp->pf_a == a && gp->pf_b == b && gp->pf_c == c;
}

/* a, b, c = A·w, B·w, C·w into the current set from the witness in dw (span gpu.spmv, the stream
 * waited for inside it so that it is the kernels' time: not the side stream, where the next
 * circuit's witness may be crossing PCIe, which the whole-context sync waited for, 2.4x the
 * kernels' time at 2^27 on the H200). */
static g16_status spmv_abc(g16__gpu_prover *gp, const dev_mats *d, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    size_t n = r->n;
    g16__span sp = g16__span_begin_n("gpu.spmv", r->num_constraints);
    for (int k = 0; k < 3 && st == G16_OK; k++) {
        int wide = r->mat[k].rp32 == NULL;
        st = g16__gpu_spmv(gp->gpu, gp->dabc + k * n, n, r->num_constraints,
                           wide ? NULL : (const uint32_t *)d->rp[k], wide ? (const uint64_t *)d->rp[k] : NULL,
                           d->words[k], d->coeffs, gp->dw, err);
    }
    if (st == G16_OK)
        st = g16__gpu_sync_main(gp->gpu, err);
    g16__span_end(sp);
    return st;
}

/* The pending prefetch is forgotten after the wait for its copies (pf_mu held), which returned st.
 * Forgotten even when the wait failed: its pointers must never match a host buffer rewritten
 * later. After a failure both streams are drained as far as the device allows, so that no copy
 * still reads the caller's host buffers once the error is returned: a failure that leaves the
 * context usable would otherwise leave the copies running untracked (after a sticky one, CUDA
 * aborted them). */
static g16_status forget_locked(g16__gpu_prover *gp, g16_status st)
{
    gp->pf_pending = 0;
    if (st != G16_OK)
        (void)g16__gpu_sync(gp->gpu, NULL);
    return st;
}

/* cancel with pf_mu held */
static g16_status cancel_locked(g16__gpu_prover *gp, g16_error *err)
{
    if (!gp->pf_pending)
        return G16_OK;
    return forget_locked(gp, g16__gpu_event_sync(gp->pf_done, err));
}

/* Takes the pending prefetch (pf_mu held, pf_holds checked): waits for its copies (span
 * gpu.wait_prefetch: how much of the upload the MSMs did not hide), then the spare buffer (*spare,
 * elems values) becomes the current one (*cur) and the current one the spare: its circuit's work
 * returned synchronized, nothing on the device uses it any more. Work enqueued after this reads
 * complete data. cur = NULL: the a slot, copied into the current set already (no swap). */
static g16_status take_prefetch_locked(g16__gpu_prover *gp, g16_fr **cur, g16_fr **spare, uint64_t elems,
                                       g16_error *err)
{
    g16__span sp = g16__span_begin_n("gpu.wait_prefetch", elems);
    g16_status st = forget_locked(gp, g16__gpu_event_sync(gp->pf_done, err));
    g16__span_end(sp);
    if (st == G16_OK && cur) {
        g16_fr *t = *cur;
        *cur = *spare;
        *spare = t;
    }
    if (st == G16_OK)
        gp->n_prefetch_used++;
    return st;
}

/* The transient SpMV's matrices and dictionary in scratch memory from the device's pool, the
 * rows' verdict word after the dictionary (tr_check), their copies enqueued on the stream (span
 * gpu.stage_matrices: the enqueueing; from page-locked memory it returns at once). Nothing when
 * staged already. A failure gives back what was allocated (after the stream is drained: no copy
 * left in flight). */
static g16_status mat_stage(g16__gpu_prover *gp, g16_error *err)
{
    g16_status st;
    if (gp->tr_staged)
        return G16_OK;
    gp->tr_staged = 1;
    g16__span sp = g16__span_begin_n("gpu.stage_matrices", spmv_bytes(gp->r));
    if ((st = mats_alloc(gp, &gp->mtr, 1, err)) == G16_OK && (st = mats_upload(gp, &gp->mtr, err)) == G16_OK)
        gp->tr_check = (uint64_t *)(gp->mtr.coeffs + gp->r->num_coeffs);
    g16__span_end(sp);
    if (st != G16_OK) {
        (void)g16__gpu_sync(gp->gpu, NULL);
        mat_unstage(gp);
    }
    return st;
}

/* The H step's a, b, c from the witness on the device: w uploaded first (synchronously: the
 * SpMV reads it), or, with w = NULL, the one g16__gpu_prover_msms_w left in dw. From the resident
 * matrices, else (g16__gpu_prover_spmv_first) from the staged ones (mat_stage: by
 * g16__gpu_prover_spmv_stage already, or now), whose copies are waited for first (span
 * gpu.wait_matrices: what the caller's staging did not hide); a pending copy of the a slot, which
 * writes into the vectors the SpMV fills, is waited for and forgotten first. */
static g16_status h_inputs_spmv(g16__gpu_prover *gp, const g16_fr *w, int dw_early, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    if (!gp->spmv && !gp->spmv_first)
        return g16__error(err, G16_ERR_ARG, "gpu prover: no a, b, c given and the matrices are not on the device");
    if (!w && !dw_early)
        return g16__error(err, G16_ERR_ARG, "gpu prover: no witness on the device for the SpMV");
    pthread_mutex_lock(&gp->pf_mu);
    int take = gp->spmv && w && pf_holds(gp, NULL, NULL, NULL, w);
    if (take)
        st = take_prefetch_locked(gp, &gp->dw, &gp->dw_spare, r->num_inputs + r->num_aux, err);
    else if (!gp->spmv && gp->pf_mode == G16__GPU_PF_A)
        st = cancel_locked(gp, err);
    pthread_mutex_unlock(&gp->pf_mu);
    if (st == G16_OK && !gp->spmv && (st = mat_stage(gp, err)) == G16_OK) {
        g16__span sp = g16__span_begin_n("gpu.wait_matrices", spmv_bytes(r));
        st = g16__gpu_sync_main(gp->gpu, err);
        g16__span_end(sp);
    }
    if (st == G16_OK && w && !take) { /* (the stream alone: a prefetch of the next witness may run) */
        g16__span sp = g16__span_begin_n("gpu.upload_witness", r->num_inputs + r->num_aux);
        st = g16__gpu_upload(gp->gpu, gp->dw, w, (r->num_inputs + r->num_aux) * sizeof(g16_fr), err);
        if (st == G16_OK)
            st = g16__gpu_sync_main(gp->gpu, err);
        g16__span_end(sp);
        if (st == G16_OK)
            gp->n_uploaded++;
    }
    if (st != G16_OK)
        return st;
    return spmv_abc(gp, gp->spmv ? &gp->mres : &gp->mtr, err);
}

/* The H step's a, b, c from the host into the current set: the prefetched set when it holds
 * exactly these vectors, else uploaded now. */
static g16_status h_inputs_host(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = gp->r->n;
    pthread_mutex_lock(&gp->pf_mu);
    int take = gp->pf_mode != G16__GPU_PF_A && pf_holds(gp, a, b, c, NULL); /* (the a slot: h_overlapped) */
    if (take && (st = take_prefetch_locked(gp, &gp->dabc, &gp->dabc_spare, 3 * n, err)) == G16_OK &&
        !gp->dscal_own) /* the compacted scalars go into the current circuit's b, c */
        gp->dscal = gp->dabc + n;
    pthread_mutex_unlock(&gp->pf_mu);
    if (st == G16_OK && !take)
        st = upload_abc(gp, a, b, c, err);
    return st;
}

/* a into the H step's first vector, waited for (span gpu.upload_a: with the copies overlapped,
 * the only one the transforms cannot hide). */
static g16_status upload_a(g16__gpu_prover *gp, const g16_fr *a, g16_error *err)
{
    g16__span sp = g16__span_begin_n("gpu.upload_a", gp->r->n);
    g16_status st = g16__gpu_upload(gp->gpu, gp->dabc, a, gp->r->n * sizeof(g16_fr), err);
    if (st == G16_OK)
        st = g16__gpu_sync(gp->gpu, err);
    g16__span_end(sp);
    return st;
}

/* The overlapped H step's marks (gp->hp): on the main stream, its start and the end of a's
 * transforms, of the wait for b's copy, of b's transforms, of the wait for c's copy (none where c
 * is formed) and of c's; on the side stream, the end of b's copy and of the witness's. */
enum { HP_START, HP_A, HP_B_IN, HP_B, HP_C_IN, HP_END, HP_B_COPY, HP_W_COPY, HP_COUNT };
_Static_assert(HP_COUNT == sizeof((g16__gpu_prover *)0)->hp / sizeof(g16__gpu_event *), "gp->hp holds the marks");

static g16_status h_mark(g16__gpu_prover *gp, int k, g16_error *err)
{
    if (!gp->hp_on)
        return G16_OK;
    return k >= HP_B_COPY ? g16__gpu_event_record_side(gp->hp[k], err) : g16__gpu_event_record_main(gp->hp[k], err);
}

/* Turns the marks on for this step when the trace records (their events created the first time;
 * where that fails the step runs unmarked: a profile never fails a proof). */
static void h_profile_start(g16__gpu_prover *gp)
{
    g16_status st = G16_OK;
    gp->hp_on = gp->hp_w = 0;
    if (!g16__trace_enabled())
        return;
    for (int k = 0; k < HP_COUNT && st == G16_OK; k++)
        if (!gp->hp[k])
            st = g16__gpu_event_create_timed(&gp->hp[k], gp->gpu, NULL);
    gp->hp_on = st == G16_OK;
}

/* After the step's sync: the marks' intervals as metrics of the caller's open span (ntt.h.gpu in
 * a proof), in µs: h.a_us (a's transforms), h.wait_b_us (the transforms idle for b's copy),
 * h.b_us, h.wait_c_us, h.c_us, h.b_copy_us (from the start to the end of b's copy), h.w_tail_us
 * (the witness's copy past the transforms' end: what the step's final sync waited for it). An
 * interval the runtime cannot give is left out. */
static void h_interval(const g16__gpu_prover *gp, const char *key, int from, int to)
{
    float ms = 0;
    if (g16__gpu_event_ms(gp->hp[from], gp->hp[to], &ms, NULL) == G16_OK)
        g16__span_metric(key, ms > 0 ? (uint64_t)(ms * 1e3f) : 0);
}

static void h_profile_end(g16__gpu_prover *gp)
{
    static const char *const key[] = {"h.a_us", "h.wait_b_us", "h.b_us", "h.wait_c_us", "h.c_us"};
    if (!gp->hp_on)
        return;
    gp->hp_on = 0;
    for (int k = HP_START; k < HP_END; k++)
        h_interval(gp, key[k], k, k + 1);
    h_interval(gp, "h.b_copy_us", HP_START, HP_B_COPY);
    if (gp->hp_w)
        h_interval(gp, "h.w_tail_us", HP_END, HP_W_COPY);
}

/* Waits for the H step's witness copy when it may still run (span gpu.wait_witness: what msm.h did
 * not hide); after a failed wait for both streams, so that no copy from w is left running. */
static g16_status w_settle(g16__gpu_prover *gp, g16_error *err)
{
    if (!gp->w_pending)
        return G16_OK;
    g16__span sp = g16__span_begin("gpu.wait_witness");
    g16_status st = g16__gpu_event_sync(gp->w_done, err);
    if (st != G16_OK)
        (void)g16__gpu_sync(gp->gpu, NULL);
    gp->w_pending = 0;
    g16__span_end(sp);
    return st;
}

/* w into dw on the side stream while the H step's transforms run (span gpu.upload_witness,
 * enqueued only). With gp->w_late the copy may outlast the step: w_done is recorded after it and
 * the step waits for the main stream alone (w_pending). It follows b's copy on PCIe: at 2^27 the
 * two take 8.6 GB, under the transforms' 259 ms on an H100's host (~50 GB/s) but not on a PCIe 4
 * host (~25 GB/s: ~340 ms). Else the step's final sync waits for it, marked in the profile
 * (HP_W_COPY). */
static g16_status upload_witness_side(g16__gpu_prover *gp, const g16_fr *w, g16_error *err)
{
    size_t nw = gp->r->num_inputs + gp->r->num_aux;
    g16__span sp = g16__span_begin_n("gpu.upload_witness", nw);
    g16_status st;
    if (gp->w_late) {
        st = g16__gpu_upload_side_nowait(gp->gpu, gp->dw, w, nw * sizeof(g16_fr), err);
        if (st == G16_OK)
            st = g16__gpu_event_record_side(gp->w_done, err);
        if (st == G16_OK) {
            gp->w_pending = 1;
            gp->n_w_late++;
        } else {
            (void)g16__gpu_sync(gp->gpu, NULL); /* (the copy may be enqueued, untracked) */
        }
    } else {
        st = g16__gpu_upload_side(gp->gpu, gp->dw, w, nw * sizeof(g16_fr), err);
        if (st == G16_OK && gp->hp_on && (st = h_mark(gp, HP_W_COPY, err)) == G16_OK)
            gp->hp_w = 1;
    }
    g16__span_end(sp);
    return st;
}

/* The H step from a, b, c on the host, one input at a time (gp->h_overlap, no spare set, no row
 * check on the device): a uploaded (or taken from the a slot, prove_gpu.h: copied into da during
 * the previous circuit's witness MSMs), then its transforms while b crosses PCIe on the side
 * stream, b's (folded into a as a·b, then a's coset inverse) while c does, then c's inverse, folded
 * into H (gpu.h, g16__gpu_ntt_h_mul / _h_c: the transforms after c's arrival are one of six, no
 * longer three of seven). With gp->c_from_ab (the caller checks the rows: a satisfied R1CS has
 * c = a·b on every row) c does not cross PCIe at all: a is copied into dc before its transforms
 * and b multiplied into it before b's (g16__gpu_ntt_h_in_keep / _h_mul_keep), 4.3 GB less per
 * circuit at 2^27 and no wait for the last copy; a witness that fails the check gives no proof,
 * whatever H was. The transforms wait for their input's copy
 * (g16__gpu_upload_side). With the upload in one piece first, the three copies (12.9 GB at 2^27)
 * ran ahead of the step; now b's and c's run under a's and b's transforms: on the H200 as a 24 GB
 * card the step took 1.18 s per batch of 3 against 1.66-1.71 s (bench/RESULTS.md, eighteenth
 * session). Bit for bit the batched step's H (for c = a·b where c is formed). After a failure the
 * copies still in flight are waited for (the caller may rewrite a, b, c). In traced runs the
 * steps are marked on the device (h_mark). */
static g16_status h_overlapped(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                               g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = gp->r->n, bytes = n * sizeof(g16_fr);
    g16_fr *da = gp->dabc, *db = gp->dabc + n, *dc = gp->dabc + 2 * n;
    int take = 0;
    pthread_mutex_lock(&gp->pf_mu);
    if (gp->pf_mode == G16__GPU_PF_A && gp->pf_pending) { /* this a's copy taken, another's waited for */
        take = pf_holds(gp, a, b, c, NULL);
        st = take ? take_prefetch_locked(gp, NULL, NULL, n, err) : cancel_locked(gp, err);
    }
    if (take && st == G16_OK && gp->pf_v != gp->dabc) { /* a in the third vector: b into the first, c the second */
        da = gp->pf_v;
        db = gp->dabc;
        dc = gp->dabc + n;
    }
    gp->dh = da; /* (under pf_mu: slot_target reads it there) */
    pthread_mutex_unlock(&gp->pf_mu);
    int keep = gp->c_from_ab && gp->c_ab_env;
    if (st == G16_OK && !take)
        st = upload_a(gp, a, err);
    if (st == G16_OK && (st = h_mark(gp, HP_START, err)) == G16_OK)
        st = keep ? g16__gpu_ntt_h_in_keep(gp->ntt, da, dc, err) : g16__gpu_ntt_h_in(gp->ntt, da, err);
    if (st == G16_OK && (st = h_mark(gp, HP_A, err)) == G16_OK &&
        (st = g16__gpu_upload_side(gp->gpu, db, b, bytes, err)) == G16_OK &&
        (st = h_mark(gp, HP_B_COPY, err)) == G16_OK && (st = h_mark(gp, HP_B_IN, err)) == G16_OK)
        st = keep ? g16__gpu_ntt_h_mul_keep(gp->ntt, da, db, dc, err) : g16__gpu_ntt_h_mul(gp->ntt, da, db, err);
    if (st == G16_OK && (st = h_mark(gp, HP_B, err)) == G16_OK && !keep)
        st = g16__gpu_upload_side(gp->gpu, dc, c, bytes, err);
    if (st == G16_OK && (st = h_mark(gp, HP_C_IN, err)) == G16_OK &&
        (st = g16__gpu_ntt_h_c(gp->ntt, da, dc, err)) == G16_OK)
        st = h_mark(gp, HP_END, err);
    if (st != G16_OK) {
        (void)g16__gpu_sync(gp->gpu, NULL);
    } else {
        gp->n_uploaded += !take;
        gp->n_c_formed += keep;
    }
    return st;
}

/* The H step in two device vectors (gp->h_slots = 2; no SpMV, prefetch or row check there): a
 * uploaded; with gp->h_overlap its transforms run while b crosses PCIe on the side stream, then
 * b's fold the product into a (else a and b uploaded first, then both); then c into b's vector in
 * stream order (its copy waits for the product; the host waits for both at the step's end) and H
 * into a. */
static g16_status h_two_vectors(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = gp->r->n, bytes = n * sizeof(g16_fr);
    if (!a)
        return g16__error(err, G16_ERR_ARG, "gpu prover: the H step in two vectors takes a, b, c from the host");
    if (gp->h_overlap) {
        if ((st = upload_a(gp, a, err)) == G16_OK && (st = g16__gpu_ntt_h_in(gp->ntt, gp->dabc, err)) == G16_OK &&
            (st = g16__gpu_upload_side(gp->gpu, gp->dabc + n, b, bytes, err)) == G16_OK)
            st = g16__gpu_ntt_h_mul(gp->ntt, gp->dabc, gp->dabc + n, err);
    } else {
        g16__span sp = g16__span_begin_n("gpu.upload_abc", 2 * n);
        if ((st = g16__gpu_upload(gp->gpu, gp->dabc, a, bytes, err)) == G16_OK &&
            (st = g16__gpu_upload(gp->gpu, gp->dabc + n, b, bytes, err)) == G16_OK)
            st = g16__gpu_sync(gp->gpu, err);
        g16__span_end(sp);
        if (st == G16_OK)
            st = g16__gpu_ntt_h_ab(gp->ntt, gp->dabc, gp->dabc + n, err);
    }
    if (st == G16_OK && (st = g16__gpu_upload(gp->gpu, gp->dabc + n, c, bytes, err)) == G16_OK)
        st = g16__gpu_ntt_h_c(gp->ntt, gp->dabc, gp->dabc + n, err);
    if (st == G16_OK)
        gp->n_uploaded++;
    else
        (void)g16__gpu_sync(gp->gpu, NULL); /* no copy from a, b, c left in flight */
    return st;
}

static g16_status h_step(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c, const g16_fr *w,
                         g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = gp->r->n;
    int dw_early = gp->dw_early;
    uint64_t *chk = NULL; /* the rows' verdict on the device, when they are checked there */
    gp->have_h = 0;
    gp->w_src = NULL;
    gp->dw_early = 0; /* used now, or left behind by this step's upload */
    gp->check_bad = UINT64_MAX;
    gp->hp_on = 0;
    set_pf_open(gp, 0); /* (the step uses all the vectors) */
    gp->dh = gp->dabc;  /* (h_overlapped may choose the third) */
    if ((st = w_settle(gp, err)) != G16_OK) /* (a caller that skipped the MSMs and drop_h) */
        return st;
    if (a && (!b || (!c && !(gp->c_from_ab && g16__gpu_prover_forms_c(gp)))))
        return g16__error(err, G16_ERR_ARG, "gpu prover: the H step needs %s from the host", b ? "c" : "b");
    if (gp->h_slots == 2) {
        if ((st = h_two_vectors(gp, a, b, c, err)) != G16_OK)
            return st;
    } else if (a && gp->h_overlap && (!gp->pf_mode || gp->pf_mode == G16__GPU_PF_A) && !gp->dcheck) {
        h_profile_start(gp);
        if ((st = h_overlapped(gp, a, b, c, err)) != G16_OK)
            return st;
    } else {
        st = a ? h_inputs_host(gp, a, b, c, err) : h_inputs_spmv(gp, w, dw_early, err);
        if (st != G16_OK)
            return st;
        gp->dh = gp->dabc; /* (after a take of the spare set, which swaps the two) */
        /* the rows' check before the NTTs transform a, b, c in place (same stream): always after
         * the transient SpMV, whose circuit the caller's CPU stage did not check */
        chk = gp->dcheck ? gp->dcheck : !a && !gp->spmv ? gp->tr_check : NULL;
        if (chk && (st = g16__gpu_check_products(gp->gpu, gp->dabc, gp->dabc + n, gp->dabc + 2 * n,
                                                 gp->r->num_constraints, chk, err)) != G16_OK)
            return st;
        if ((st = g16__gpu_ntt_groth16_h_device(gp->ntt, gp->dabc, gp->dabc + n, gp->dabc + 2 * n, err)) != G16_OK)
            return st;
    }
    /* the witness crosses PCIe while the NTTs run (nothing on the device reads dw now: the
     * previous proof's MSMs returned synchronized; the SpMV path uploaded it already) */
    if (w && a && (st = upload_witness_side(gp, w, err)) != G16_OK)
        return st;
    if ((st = gp->w_pending ? g16__gpu_sync_main(gp->gpu, err) : g16__gpu_sync(gp->gpu, err)) != G16_OK)
        return st;
    h_profile_end(gp);
    if (chk && ((st = g16__gpu_download(gp->gpu, &gp->check_bad, chk, sizeof gp->check_bad, err)) != G16_OK ||
                (st = g16__gpu_sync(gp->gpu, err)) != G16_OK))
        return st;
    gp->w_src = w;
    gp->have_h = 1; /* (a failing row: the caller decides, g16__gpu_prover_drop_h) */
    set_pf_open(gp, 1);
    return G16_OK;
}

/* The step, then the transient SpMV's matrices given back to the pool (whether they were used,
 * staged for nothing, or the step failed): the MSMs' scratch takes their place. */
g16_status g16__gpu_prover_h(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                             const g16_fr *w, g16_error *err)
{
    g16_status st = h_step(gp, a, b, c, w, err);
    if (gp->tr_staged)
        mat_unstage(gp);
    return st;
}

void g16__gpu_prover_drop_h(g16__gpu_prover *gp)
{
    (void)w_settle(gp, NULL); /* the caller may rewrite w next */
    gp->have_h = 0;
    gp->w_src = NULL;
    gp->dw_early = 0;
}

g16_status g16__gpu_prover_h_download(g16__gpu_prover *gp, g16_fr *h, g16_error *err)
{
    if (!gp->have_h)
        return g16__error(err, G16_ERR_ARG, "gpu prover: no H on the device");
    g16_status st = g16__gpu_download(gp->gpu, h, gp->dh, gp->r->n * sizeof(g16_fr), err);
    return st == G16_OK ? g16__gpu_sync(gp->gpu, err) : st;
}

/* The scalar sets one MSM call runs over the same bases: one, or two (witness MSMs in pairs). */
#define SETS_MAX 2

/* MSMs over the points [first, first + count) of query q, one per scalar set (out[s] from
 * scalars[s] + first, s < nsets): the handle (the resident one, or uploaded now and destroyed
 * after, so that a streamed chunk crosses PCIe once for all the sets), the window sums combined
 * on the host (the default, msm_gpu.h: a CPU core does the final ~256 doublings faster), the
 * scratch given back to the device's pool (stream-ordered: the next query takes it without the
 * driver). */
static g16_status q_run_part(g16__gpu_prover *gp, int q, void *const *out, const g16_fr *const *scalars, int nsets,
                             size_t first, size_t count, g16_error *err)
{
    g16_status st = G16_OK;
    g16__gpu_msm_opts o;
    g16__gpu_msm *view = NULL, *m = NULL;
    int res = gp->res_mask >> q & 1, spanned = 0;
    g16__span sp = 0;
    memset(&o, 0, sizeof o);
    o.device_scalars = 1; /* H, the witness and the compacted scalars all live on the device */
    o.windows_per_pass = res ? (gp->pass_room ? run_wpp(gp, count, q == Q_B2) : 0) : stream_wpp(gp, count, q == Q_B2);
    if (!res) {
        /* this chunk (uploaded while the previous one ran), then the next one's upload */
        if ((st = up_take(gp, q, first, count, err)) != G16_OK)
            goto cleanup;
        up_start(gp, q, first, count);
    } else if (!gp->q[q] && (st = q_create(gp, q, first, count, err)) != G16_OK) {
        goto cleanup;
    }
    m = gp->q[q];
    if (res && count < g16__gpu_msm_size(m)) { /* a piece: its own scratch, sized by count */
        if ((st = g16__gpu_msm_view(&view, m, first, count, err)) != G16_OK)
            goto cleanup;
        m = view;
        sp = g16__span_begin_n("gpu.msm_piece", count);
        spanned = 1;
    } else if (o.windows_per_pass) { /* span gpu.msm_passes, its count the windows per pass */
        sp = g16__span_begin_n("gpu.msm_passes", o.windows_per_pass);
        spanned = 1;
    }
    /* (one set per call: the sets' scalars are not one array; the scratch stays with the handle
     * from the first set's run to the next) */
    for (int s = 0; s < nsets && st == G16_OK; s++)
        st = q == Q_B2 ? g16__gpu_msm_run_p2(m, out[s], scalars[s] + first, 1, &o, err)
                       : g16__gpu_msm_run_p1(m, out[s], scalars[s] + first, 1, &o, err);
cleanup:
    /* after a failed run too: a resident handle would keep its scratch into the next batch, on top
     * of the next run's, which the memory plan does not count (test_fakegpu_faults) */
    g16__gpu_msm_release_scratch(m);
    if (spanned)
        g16__span_end(sp);
    g16__gpu_msm_destroy(view);
    if (!res) {
        g16__gpu_msm_destroy(gp->q[q]);
        gp->q[q] = NULL;
    }
    return st;
}

/* *out = part (start) or *out += part, in query q's group. */
static void part_add(int q, void *out, const void *part, int start)
{
    if (q == Q_B2 && start)
        *(g16_p2 *)out = *(const g16_p2 *)part;
    else if (q == Q_B2)
        g16__p2_add_var(out, out, part);
    else if (start)
        *(g16_p1 *)out = *(const g16_p1 *)part;
    else
        g16__p1_add_var(out, out, part);
}

/* The MSMs of query q, one per scalar set (q_run_part): one part when resident (or pieces of
 * gp->piece points: the scratch bounded by the piece), else chunks of gp->chunk points (memory
 * bounded by the chunk, whatever the query's size; each chunk's upload overlaps the previous
 * chunk's MSMs); the parts summed on the host. */
static g16_status q_run_sets(g16__gpu_prover *gp, int q, void *const *out, const g16_fr *const *scalars, int nsets,
                             g16_error *err)
{
    g16_status st = G16_OK;
    size_t n, step;
    q_bases(gp->p, q, &n);
    step = gp->res_mask >> q & 1 ? (gp->piece ? gp->piece : n) : q == Q_B2 ? gp->chunk2 : gp->chunk;
    g16__span sp = g16__span_begin_n(q_span[q], n);
    if (n <= step) {
        st = q_run_part(gp, q, out, scalars, nsets, 0, n, err);
        goto cleanup;
    }
    for (size_t first = 0; first < n && st == G16_OK; first += step) {
        size_t count = n - first < step ? n - first : step;
        g16_p1 p1[SETS_MAX];
        g16_p2 p2[SETS_MAX];
        void *part[SETS_MAX];
        for (int s = 0; s < nsets; s++)
            part[s] = q == Q_B2 ? (void *)&p2[s] : (void *)&p1[s];
        st = q_run_part(gp, q, part, scalars, nsets, first, count, err);
        for (int s = 0; s < nsets && st == G16_OK; s++)
            part_add(q, out[s], part[s], first == 0);
    }
cleanup:
    g16__span_end(sp);
    return st;
}

/* The MSM of query q over one scalar set. */
static g16_status q_run(g16__gpu_prover *gp, int q, void *out, const g16_fr *scalars, g16_error *err)
{
    void *o[1] = {out};
    const g16_fr *sc[1] = {scalars};
    return q_run_sets(gp, q, o, sc, 1, err);
}

/* dst = the a query's scalars (a) or the b queries' (!a), compacted on the device from the
 * witness dw (device) as g16__prove_a_scalars / g16__prove_b_scalars do on the host; checks the
 * count against the query. */
static g16_status compact_scalars(g16__gpu_prover *gp, int a, g16_fr *dst, const g16_fr *dw, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    const g16_fr *aux = dw + r->num_inputs;
    size_t k = 0, kb = 0, want = a ? gp->p->n_a : gp->p->n_b_g1;
    g16__span sp = g16__span_begin(a ? "gpu.compact_a" : "gpu.compact_b");
    if (a) {
        k = r->num_inputs;
        if (k > want)
            goto count;
        if ((st = g16__gpu_copy(gp->gpu, dst, dw, k * sizeof(g16_fr), err)) != G16_OK)
            goto cleanup;
    } else if ((st = g16__gpu_compact(gp->cmp, dst, dw, r->num_inputs,
                                      gp->dbits + gp->bits_off[G16__DENS_B_INPUT], &k, err)) != G16_OK) {
        goto cleanup;
    }
    if (k > want) /* more inputs than the query has points (prove.c checks the counts first) */
        goto count;
    if ((st = g16__gpu_compact(gp->cmp, dst + k, aux, r->num_aux,
                               gp->dbits + gp->bits_off[a ? G16__DENS_A_AUX : G16__DENS_B_AUX], &kb, err)) != G16_OK)
        goto cleanup;
    k += kb;
count:
    if (k != want || (!a && k != gp->p->n_b_g2))
        st = a ? g16__error(err, G16_ERR_SIZE_MISMATCH, "a query: %zu scalars for %llu points", k,
                            (unsigned long long)gp->p->n_a)
               : g16__error(err, G16_ERR_SIZE_MISMATCH, "b queries: %zu scalars for %llu / %llu points", k,
                            (unsigned long long)gp->p->n_b_g1, (unsigned long long)gp->p->n_b_g2);
cleanup:
    g16__span_end(sp);
    return st;
}

/* The caller's poll before MSM q (none: G16_OK); gp->next_q tells a prefetch in the a slot where
 * the MSMs are (g16__gpu_prover_prefetch). */
static g16_status poll_now(g16__gpu_prover *gp, int q, g16__gpu_poll_fn poll, void *ctx, g16_error *err)
{
    gp->next_q = q;
    return poll ? poll(ctx, err) : G16_OK;
}

/* w into dw, unless the H step uploaded this w already; waited for inside the span (enqueued only,
 * the copy's time went into the next MSM's span: the early msm.l measured ~47 ms longer at 2^26,
 * H200, bench/RESULTS.md "twelfth and thirteenth"). */
static g16_status upload_witness(g16__gpu_prover *gp, const g16_fr *w, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    if (w != gp->w_src && (st = w_settle(gp, err)) == G16_OK) { /* (no two copies into dw at once) */
        g16__span sp = g16__span_begin_n("gpu.upload_witness", r->num_inputs + r->num_aux);
        st = g16__gpu_upload(gp->gpu, gp->dw, w, (r->num_inputs + r->num_aux) * sizeof(g16_fr), err);
        if (st == G16_OK)
            st = g16__gpu_sync(gp->gpu, err);
        g16__span_end(sp);
    }
    gp->w_src = NULL; /* the next proof uploads its witness again, whatever its address */
    return st;
}

/* The four MSMs (l, a, b_g1, b_g2) over each witness dws[s] (device) into out[s], s < nsets, each
 * query's bases read once for all the sets (a streamed chunk crosses PCIe once), poll between
 * the queries. The compacted a / b scalars of witness s go into scal[s] (the current set's b, c
 * or dscal's own buffer; in pairs the H step's vectors beside the second witness): no H step may
 * be pending. Every q_run_sets and compact_scalars returns synchronized: at each poll the device
 * is idle. */
static g16_status witness_sets(g16__gpu_prover *gp, g16__query_sums *const *out, const g16_fr *const *dws,
                               g16_fr *const *scal, int nsets, g16__gpu_poll_fn poll, void *poll_ctx, g16_error *err)
{
    static const int order[4] = {Q_L, Q_A, Q_B1, Q_B2};
    g16_status st = G16_OK;
    const g16_fr *sc[SETS_MAX];
    void *o[SETS_MAX];
    if ((st = w_settle(gp, err)) != G16_OK) /* dw's copy, left running by the H step */
        return st;
    for (int k = 0; k < 4 && st == G16_OK; k++) {
        int q = order[k];
        if (k > 0 && (st = poll_now(gp, q, poll, poll_ctx, err)) != G16_OK)
            break;
        for (int s = 0; s < nsets && st == G16_OK; s++) {
            g16__query_sums *os = out[s];
            o[s] = q == Q_L    ? (void *)&os->l
                   : q == Q_A  ? (void *)&os->a
                   : q == Q_B1 ? (void *)&os->b1
                               : (void *)&os->b2;
            sc[s] = q == Q_L ? dws[s] + gp->r->num_inputs : scal[s];
            if (q == Q_A || q == Q_B1) /* (b_g2 takes b_g1's scalars) */
                st = compact_scalars(gp, q == Q_A, scal[s], dws[s], err);
        }
        if (st == G16_OK)
            st = q_run_sets(gp, q, o, sc, nsets, err);
    }
    gp->next_q = Q_COUNT;
    return st;
}

/* The four witness MSMs of one proof, over the witness in dw. */
static g16_status witness_msms(g16__gpu_prover *gp, g16__query_sums *out, g16__gpu_poll_fn poll, void *poll_ctx,
                               g16_error *err)
{
    g16__query_sums *o[1] = {out};
    const g16_fr *w[1] = {gp->dw};
    g16_fr *sc[1] = {gp->dscal};
    return witness_sets(gp, o, w, sc, 1, poll, poll_ctx, err);
}

/* msm.h from the H on the device, after the first poll: a prefetch issued then hides behind the
 * MSMs (msm.h alone is ~0.5 s at 2^26 against ~0.13 s for the three copies); the device is idle
 * there (the H step returned synchronized). */
static g16_status msm_h(g16__gpu_prover *gp, g16_p1 *out, g16__gpu_poll_fn poll, void *poll_ctx, g16_error *err)
{
    g16_status st;
    if (!gp->have_h)
        return g16__error(err, G16_ERR_ARG, "gpu prover: the MSMs need the H step first");
    if ((st = poll_now(gp, Q_H, poll, poll_ctx, err)) != G16_OK)
        return st;
    st = q_run(gp, Q_H, out, gp->dh, err);
    gp->have_h = 0; /* from here on dscal may overwrite the H step's vectors */
    gp->next_q = Q_COUNT; /* (the MSMs' next poll says which comes next) */
    return st;
}

/* A pair's place in the H step's vectors (free between msm.h and the next H step; pair_setup
 * checked that they fit): the two circuits' compacted scalars from the start, the second witness
 * at the end (with w2_side clear of the first vector, which msm.h reads). */
static g16_fr *pair_w2(const g16__gpu_prover *gp)
{
    const struct g16_r1cs *r = gp->r;
    return gp->dabc + 3 * r->n - (r->num_inputs + r->num_aux);
}

/* The second witness's copy into pair_w2 on the side stream, for msm.h to hide (the span counts
 * the pair's upload either way). The caller waits for w2_done before anything reads or rewrites
 * the vectors; w2 stays unchanged until then. */
static g16_status w2_upload_side(g16__gpu_prover *gp, const g16_fr *w2, g16_error *err)
{
    size_t nw = gp->r->num_inputs + gp->r->num_aux;
    g16__span sp = g16__span_begin_n("gpu.upload_witness2", nw);
    g16_status st = g16__gpu_upload_side_nowait(gp->gpu, pair_w2(gp), w2, nw * sizeof(g16_fr), err);
    if (st == G16_OK)
        st = g16__gpu_event_record_side(gp->w2_done, err);
    g16__span_end(sp);
    return st;
}

/* Waits for that copy (span gpu.wait_witness2: what msm.h did not hide); st passes an earlier
 * failure through, after a wait for both streams (the event may not have been recorded). */
static g16_status w2_wait(g16__gpu_prover *gp, g16_status st, g16_error *err)
{
    g16_error e = {0, ""};
    g16__span sp = g16__span_begin("gpu.wait_witness2");
    g16_status ws = st == G16_OK ? g16__gpu_event_sync(gp->w2_done, &e) : g16__gpu_sync(gp->gpu, &e);
    g16__span_end(sp);
    if (st == G16_OK && ws != G16_OK) {
        *err = e;
        st = ws;
    }
    return st;
}

/* The witness MSMs of two circuits: gp->dw holds the first's witness; the second's, w2, is in
 * pair_w2 already (w2_up: its copy done) or is uploaded now. */
static g16_status witness_pair(g16__gpu_prover *gp, g16__query_sums *out, g16__query_sums *out2, const g16_fr *w2,
                               int w2_up, g16__gpu_poll_fn poll, void *poll_ctx, g16_error *err)
{
    g16_status st = G16_OK;
    const struct g16_r1cs *r = gp->r;
    size_t nw = r->num_inputs + r->num_aux, nscal = gp->p->n_a > gp->p->n_b_g1 ? gp->p->n_a : gp->p->n_b_g1;
    g16_fr *dw2 = pair_w2(gp), *s0 = gp->dabc, *s1 = s0 + nscal;
    if (!w2_up) {
        g16__span sp = g16__span_begin_n("gpu.upload_witness2", nw);
        st = g16__gpu_upload(gp->gpu, dw2, w2, nw * sizeof(g16_fr), err);
        if (st == G16_OK)
            st = g16__gpu_sync(gp->gpu, err);
        g16__span_end(sp);
    }
    gp->dw_early = 0; /* dw holds the first circuit's witness, not the second's */
    if (st != G16_OK)
        return st;
    g16__query_sums *o[2] = {out, out2};
    const g16_fr *w[2] = {gp->dw, dw2};
    g16_fr *sc[2] = {s0, s1};
    if ((st = witness_sets(gp, o, w, sc, 2, poll, poll_ctx, err)) == G16_OK)
        gp->n_paired++;
    return st;
}

g16_status g16__gpu_prover_msms_next(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16__gpu_poll_fn poll,
                                     g16__gpu_next_fn next, void *ctx, g16_error *err)
{
    g16_status st, *st2 = NULL;
    g16__query_sums *out2 = NULL;
    if (!gp->have_h)
        return g16__error(err, G16_ERR_ARG, "gpu prover: the MSMs need the H step first");
    gp->w_after_h = 1;
    if ((st = poll_now(gp, Q_H, poll, ctx, err)) != G16_OK || (st = upload_witness(gp, w, err)) != G16_OK)
        return st;
    /* the second witness, when ready now, crosses PCIe during msm.h (at 2^27 ~80 ms the device
     * would otherwise idle per pair; msm.h leaves PCIe mostly free even with h streamed) */
    const g16_fr *w2 = gp->pair && next && gp->w2_side ? next(ctx, 0, &out2, &st2) : NULL;
    int side = w2 && out2;
    if (side && (st = w2_upload_side(gp, w2, err)) == G16_OK)
        gp->n_w2_side++;
    if (st == G16_OK && (st = msm_h(gp, &out->h, NULL, NULL, err)) == G16_OK)
        st = poll_now(gp, Q_L, poll, ctx, err);
    if (side)
        st = w2_wait(gp, st, err);
    if (st == G16_OK && !side)
        w2 = gp->pair && next ? next(ctx, 1, &out2, &st2) : NULL;
    if (st == G16_OK && (!w2 || !out2))
        return witness_msms(gp, out, poll, ctx, err);
    if (st == G16_OK)
        st = witness_pair(gp, out, out2, w2, side, poll, ctx, err);
    if (st2)
        *st2 = st;
    return st;
}

g16_status g16__gpu_prover_msms(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16__gpu_poll_fn poll,
                                void *poll_ctx, g16_error *err)
{
    return g16__gpu_prover_msms_next(gp, out, w, poll, NULL, poll_ctx, err);
}

g16_status g16__gpu_prover_msms_w(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16_error *err)
{
    return g16__gpu_prover_msms_w_next(gp, out, w, NULL, NULL, err);
}

/* g16__gpu_prover_msms_w2's second witness, given up front, for g16__gpu_prover_msms_w_next. */
typedef struct {
    const g16_fr *w2;
    g16__query_sums *out2;
    g16_status st;
} given_w2;

static const g16_fr *give_w2(void *ctx, int wait, g16__query_sums **out2, g16_status **st2)
{
    given_w2 *g = ctx;
    (void)wait;
    *out2 = g->out2;
    *st2 = &g->st;
    return g->w2;
}

g16_status g16__gpu_prover_msms_w2(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w, g16__query_sums *out2,
                                   const g16_fr *w2, g16_error *err)
{
    given_w2 g = {w2, out2, G16_OK};
    return g16__gpu_prover_msms_w_next(gp, out, w, w2 ? give_w2 : NULL, &g, err);
}

g16_status g16__gpu_prover_msms_w_next(g16__gpu_prover *gp, g16__query_sums *out, const g16_fr *w,
                                       g16__gpu_next_fn next, void *ctx, g16_error *err)
{
    g16_status st, *st2 = NULL;
    g16__query_sums *out2 = NULL;
    if (gp->have_h)
        return g16__error(err, G16_ERR_ARG, "gpu prover: the witness MSMs come before the H step or after msm.h");
    gp->w_src = NULL;
    gp->dw_early = 0;
    if ((st = upload_witness(gp, w, err)) != G16_OK)
        return st;
    const g16_fr *w2 = gp->pair && next ? next(ctx, 1, &out2, &st2) : NULL;
    if (!w2 || !out2) {
        if ((st = witness_msms(gp, out, NULL, NULL, err)) != G16_OK)
            return st;
        gp->dw_early = 1; /* for an H step from the matrices on the device, given w = NULL */
        gp->n_early++;
        return G16_OK;
    }
    st = witness_pair(gp, out, out2, w2, 0, NULL, NULL, err);
    *st2 = st;
    if (st == G16_OK)
        gp->n_early += 2;
    return st;
}

g16_status g16__gpu_prover_msm_h(g16__gpu_prover *gp, g16_p1 *out, g16__gpu_poll_fn poll, void *poll_ctx,
                                 g16_error *err)
{
    gp->w_src = NULL;
    gp->dw_early = 0;
    /* after this msm.h: with pairs the next circuit's msm.h (it pairs with the one after it), else
     * as a rule the next circuit's early witness MSMs (G16_GPU_EARLY_W=2; a guess either way: a
     * wrong one costs one chunk uploaded on the spot) */
    gp->w_after_h = !gp->pair;
    g16_status st = msm_h(gp, out, poll, poll_ctx, err);
    /* a witness the H step copied is not used: no copy left running */
    g16_status ws = w_settle(gp, st == G16_OK ? err : NULL);
    return st != G16_OK ? st : ws;
}

uint64_t g16__gpu_prover_early_count(const g16__gpu_prover *gp) { return gp->n_early; }

int g16__gpu_prover_pairs(const g16__gpu_prover *gp) { return gp->pair; }

uint64_t g16__gpu_prover_paired_count(const g16__gpu_prover *gp) { return gp->n_paired; }

uint64_t g16__gpu_prover_w2_side_count(const g16__gpu_prover *gp) { return gp->n_w2_side; }

int g16__gpu_prover_checks(const g16__gpu_prover *gp) { return gp->dcheck != NULL; }

int g16__gpu_prover_spmv(const g16__gpu_prover *gp) { return gp->spmv; }

int g16__gpu_prover_spmv_first(const g16__gpu_prover *gp) { return gp->spmv_first; }

g16_status g16__gpu_prover_spmv_stage(g16__gpu_prover *gp, g16_error *err)
{
    return gp->spmv_first ? mat_stage(gp, err) : G16_OK;
}

void g16__gpu_prover_spmv_unstage(g16__gpu_prover *gp)
{
    if (gp->tr_staged)
        mat_unstage(gp);
}

uint64_t g16__gpu_prover_check_first_bad(const g16__gpu_prover *gp) { return gp->check_bad; }

int g16__gpu_prover_prefetch_mode(const g16__gpu_prover *gp) { return gp->pf_mode; }

g16_status g16__gpu_prover_prefetch_cancel(g16__gpu_prover *gp, g16_error *err)
{
    pthread_mutex_lock(&gp->pf_mu);
    g16_status st = cancel_locked(gp, err);
    pthread_mutex_unlock(&gp->pf_mu);
    return st;
}

g16_status g16__gpu_prover_release_host(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                        const g16_fr *w, g16_error *err)
{
    g16_status st = G16_OK, ws = w_settle(gp, err); /* (the H step's witness copy may read w) */
    pthread_mutex_lock(&gp->pf_mu);
    if (gp->pf_pending && (gp->spmv ? gp->pf_w == w : (gp->pf_a == a || (gp->pf_b && gp->pf_b == b) ||
                                                        (gp->pf_c && gp->pf_c == c))))
        st = cancel_locked(gp, ws == G16_OK ? err : NULL);
    pthread_mutex_unlock(&gp->pf_mu);
    return ws != G16_OK ? ws : st;
}

/* The copies into the spare set (the witness with the SpMV on the device, else a, b, c) and the
 * event after them (pf_mu held, no prefetch pending, nothing else using the spare set). */
static g16_status enqueue_locked(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                 const g16_fr *w, g16_error *err)
{
    g16_status st = G16_OK;
    size_t n = gp->r->n, bytes = n * sizeof(g16_fr), nw = gp->r->num_inputs + gp->r->num_aux;
    int a_slot = gp->pf_mode == G16__GPU_PF_A;
    g16__span sp = gp->spmv ? g16__span_begin_n("gpu.prefetch_w", nw)
                   : a_slot ? g16__span_begin_n("gpu.prefetch_a", n)
                            : g16__span_begin_n("gpu.prefetch_abc", 3 * n);
    /* (one statement per step: as a single ?: expression, the event's record once bound to the
     * a, b, c arm only, and a witness prefetch was taken without waiting for its copy; the fake
     * GPU's race check found it, tests/fakegpu) */
    if (gp->spmv) {
        st = g16__gpu_upload_side_nowait(gp->gpu, gp->dw_spare, w, nw * sizeof(g16_fr), err);
    } else if (a_slot) {
        gp->pf_v = slot_target(gp);
        st = g16__gpu_upload_side_nowait(gp->gpu, gp->pf_v, a, bytes, err);
    } else {
        st = g16__gpu_upload_side_nowait(gp->gpu, gp->dabc_spare, a, bytes, err);
        if (st == G16_OK)
            st = g16__gpu_upload_side_nowait(gp->gpu, gp->dabc_spare + n, b, bytes, err);
        if (st == G16_OK)
            st = g16__gpu_upload_side_nowait(gp->gpu, gp->dabc_spare + 2 * n, c, bytes, err);
    }
    if (st == G16_OK)
        st = g16__gpu_event_record_side(gp->pf_done, err);
    if (st != G16_OK) {
        /* some copies may be enqueued without the event: wait for them here, so that no copy
         * from a, b, c is left in flight untracked (the caller may rewrite them after an error) */
        (void)g16__gpu_sync(gp->gpu, NULL);
        goto cleanup;
    }
    gp->pf_a = a;
    gp->pf_b = a_slot ? NULL : b;
    gp->pf_c = a_slot ? NULL : c;
    gp->pf_w = w;
    gp->pf_pending = 1;
    gp->n_prefetched++;
cleanup:
    g16__span_end(sp);
    return st;
}

g16_status g16__gpu_prover_prefetch_early(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                          const g16_fr *w, g16_error *err)
{
    g16_status st = G16_OK;
    pthread_mutex_lock(&gp->pf_mu);
    /* pending (the current circuit's own prefetch not taken yet, or this one): the spare set is
     * not free, the GPU stage's polls will do it */
    if ((gp->pf_mode == G16__GPU_PF_SPARE || gp->pf_mode == G16__GPU_PF_WAIT) && !gp->pf_pending)
        st = enqueue_locked(gp, a, b, c, w, err);
    /* the a slot in the vector msm.h does not read, between two H steps (slot_target) */
    else if (gp->pf_mode == G16__GPU_PF_A && gp->slot3 && gp->pf_open && !gp->pf_pending && a)
        st = enqueue_locked(gp, a, b, c, w, err);
    pthread_mutex_unlock(&gp->pf_mu);
    return st;
}

g16_status g16__gpu_prover_prefetch(g16__gpu_prover *gp, const g16_fr *a, const g16_fr *b, const g16_fr *c,
                                    const g16_fr *w, g16_error *err)
{
    g16_status st = G16_OK;
    pthread_mutex_lock(&gp->pf_mu);
    if (!gp->pf_mode || pf_holds(gp, a, b, c, w))
        goto cleanup;
    /* the a slot: the first vector holds the current circuit's H until msm.h has read it; the copy
     * waits for the resident witness MSMs (a_from). slot3: the third vector takes it meanwhile,
     * from msm.h on (all five resident) */
    if (gp->pf_mode == G16__GPU_PF_A && (!a || (!gp->slot3 && (gp->have_h || gp->next_q < gp->a_from))))
        goto cleanup;
    /* Both streams drained first: a previous prefetch's copies (side stream) and any work still
     * enqueued on the main stream (none between the synchronous MSMs; after an error, possibly
     * some) may use the spare set. Then it is ours until g16__gpu_prover_h takes it. The a slot
     * waits for the main stream and a previous copy still pending (its event) only: in the partial
     * plan the side stream also carries the next streamed chunk's upload, which the slot's copy
     * need not wait for (up to a chunk's upload, ~36 ms for 2^24 G1 points). */
    if (gp->pf_mode == G16__GPU_PF_A) {
        st = g16__gpu_sync_main(gp->gpu, err);
        if (st == G16_OK && gp->pf_pending)
            st = g16__gpu_event_sync(gp->pf_done, err);
        st = forget_locked(gp, st);
    } else {
        st = forget_locked(gp, g16__gpu_sync(gp->gpu, err));
    }
    if (st != G16_OK)
        goto cleanup;
    st = enqueue_locked(gp, a, b, c, w, err);
cleanup:
    pthread_mutex_unlock(&gp->pf_mu);
    return st;
}

void g16__gpu_prover_set_c_from_ab(g16__gpu_prover *gp, int on) { gp->c_from_ab = on; }

uint64_t g16__gpu_prover_c_formed(const g16__gpu_prover *gp) { return gp->n_c_formed; }

uint64_t g16__gpu_prover_w_late_count(const g16__gpu_prover *gp) { return gp->n_w_late; }

int g16__gpu_prover_forms_c(const g16__gpu_prover *gp)
{
    /* g16__gpu_prover_h's choice of h_overlapped for host inputs, and its keep */
    return gp->h_slots == 3 && gp->h_overlap && (gp->pf_mode == G16__GPU_PF_OFF || gp->pf_mode == G16__GPU_PF_A) &&
           !gp->dcheck && !gp->spmv && gp->c_ab_env;
}

void g16__gpu_prover_counts(const g16__gpu_prover *gp, uint64_t *prefetched, uint64_t *prefetch_used,
                            uint64_t *uploaded)
{
    if (prefetched)
        *prefetched = gp->n_prefetched;
    if (prefetch_used)
        *prefetch_used = gp->n_prefetch_used;
    if (uploaded)
        *uploaded = gp->n_uploaded;
}
