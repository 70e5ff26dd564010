/* Groth16 proving on the GPU (src/groth16/prove_gpu.c, the workers of prove.c): the query
 * scalars the GPU gets, checked on any machine against the CPU's density MSMs; and, where a
 * device exists, the device compaction of those scalars against a host loop, GPU proofs byte for
 * byte equal to CPU proofs for the same r and s (bits and
 * field circuits, batches, two workers on one card, queries resident or streamed), the prefetch of
 * the next circuit's a, b, c (taken, skipped, released, cancelled; used by the pipeline, counted
 * through the trace), device lists refused with clear errors, and device memory unchanged after
 * 100 proofs. Built twice: test_gpu_prove against the CUDA backend (label gpu: the device cases
 * skip without a GPU) and test_gpu_prove_fake against two fake cards (tests/fakegpu: the same
 * cases on every machine, with the fake's pointer, race and memory checks; the device kernels
 * themselves are not exercised there). */
#include "testutil.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/msm_gpu.h"
#include "groth16/prove_gpu.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"
#include "util/trace.h"
#ifdef G16_FAKE_GPU
#include "fakegpu.h"
#endif

typedef struct {
    g16_cs *cs;
    g16_r1cs *r;
    g16_params *p;
    size_t w_len, count;
    g16_fr **w;
    g16_fr *rs; /* r values then s values */
} fixture;

/* A demo circuit of `rows` constraints, `count` witnesses (the bits demo: witness varies with
 * the seed over the same structure; the field demo: one witness repeated), seeded setup. */
static void fixture_make(fixture *f, g16_demo_kind kind, size_t rows, size_t count)
{
    g16_error err = {0, ""};
    uint64_t seed = tu_rand64();
    memset(f, 0, sizeof *f);
    f->count = count;
    assert_int_equal(g16_demo_circuit(&f->cs, kind, rows, seed, &err), G16_OK);
    assert_int_equal(g16_cs_finalize(f->cs, &f->r, &err), G16_OK);
    f->w_len = g16_cs_num_inputs(f->cs) + g16_cs_num_aux(f->cs);
    f->w = calloc(count, sizeof *f->w);
    f->rs = malloc(2 * count * sizeof *f->rs);
    assert_non_null(f->w);
    assert_non_null(f->rs);
    for (size_t i = 0; i < count; i++) {
        f->w[i] = malloc(f->w_len * sizeof(g16_fr));
        assert_non_null(f->w[i]);
        if (kind == G16_DEMO_BITS && i > 0) {
            g16_cs *ci;
            assert_int_equal(g16_demo_circuit(&ci, kind, rows, seed + i, &err), G16_OK);
            assert_int_equal(g16_cs_witness(ci, f->w[i], f->w_len, &err), G16_OK);
            g16_cs_destroy(ci);
        } else {
            assert_int_equal(g16_cs_witness(f->cs, f->w[i], f->w_len, &err), G16_OK);
        }
    }
    for (size_t i = 0; i < 2 * count; i++)
        tu_rand_fr(&f->rs[i]);
    g16_setup_opts so = {1, tu_rand64()};
    assert_int_equal(g16_setup(&f->p, f->r, &so, &err), G16_OK);
}

static void fixture_free(fixture *f)
{
    for (size_t i = 0; i < f->count; i++)
        free(f->w[i]);
    free(f->w);
    free(f->rs);
    g16_params_destroy(f->p);
    g16_r1cs_destroy(f->r);
    g16_cs_destroy(f->cs);
}

static g16_status prove_with(const fixture *f, g16_proof *out, const char *backend, const char *devices,
                             g16_error *err)
{
    g16_prove_opts o = {.r = f->rs, .s = f->rs + f->count, .backend = backend, .devices = devices};
    return g16_prove(out, f->p, f->r, (const g16_fr *const *)f->w, f->count, &o, err);
}

/* prove_with on the GPU with the trace recorded afresh, for the span counts read after it. */
static g16_status traced_prove(const fixture *f, g16_proof *out, const char *devices, g16_error *err)
{
    g16__trace_reset();
    g16__trace_enable(G16__TRACE_RECORD);
    g16_status st = prove_with(f, out, "gpu", devices, err);
    g16__trace_enable(0);
    return st;
}

static void expect_same_proofs(const g16_proof *a, const g16_proof *b, size_t count, const char *what)
{
    for (size_t i = 0; i < count; i++) {
        uint8_t x[G16_PROOF_BYTES], y[G16_PROOF_BYTES];
        g16_proof_write(x, &a[i]);
        g16_proof_write(y, &b[i]);
        if (memcmp(x, y, sizeof x) != 0)
            fail_msg("%s: proof %zu differs from the CPU's", what, i);
    }
}

/* The compacted a / b scalars over the parameters' a / b_g1 / b_g2 queries give the CPU's
 * density-filtered sums (bits demo: sparse densities; field demo: dense). Runs everywhere. */
static void test_query_scalars(void **state)
{
    (void)state;
    g16_demo_kind kinds[2] = {G16_DEMO_BITS, G16_DEMO_FIELD};
    for (int k = 0; k < 2; k++) {
        fixture f;
        fixture_make(&f, kinds[k], 700, 1);
        const struct g16_r1cs *r = f.r;
        const struct g16_params *p = f.p;
        const g16_fr *w = f.w[0];
        uint64_t ni = r->num_inputs, na = r->num_aux, nb_in = r->density_count[G16__DENS_B_INPUT];
        size_t cap = p->n_a > p->n_b_g1 ? p->n_a : p->n_b_g1;
        g16_fr *s = malloc((cap + 1) * sizeof *s);
        assert_non_null(s);
        memset(s, 0xa5, (cap + 1) * sizeof *s); /* poison: the count must cover what is read */
        g16_p1 want, got, t;
        g16_p2 want2, got2, t2;
        assert_int_equal(g16__prove_a_scalars(s, r, w), p->n_a);
        assert_int_equal(g16__p1_msm_var(&want, p->a, w, ni, NULL, NULL), G16_OK);
        assert_int_equal(g16__p1_msm_density_var(&t, p->a + ni, p->n_a - ni, w + ni, na,
                                                 r->density[G16__DENS_A_AUX], NULL, NULL),
                         G16_OK);
        g16__p1_add_var(&want, &want, &t);
        assert_int_equal(g16__p1_msm_var(&got, p->a, s, p->n_a, NULL, NULL), G16_OK);
        assert_true(g16__p1_eq(&got, &want));
        memset(s, 0xa5, (cap + 1) * sizeof *s);
        assert_int_equal(g16__prove_b_scalars(s, r, w), p->n_b_g1);
        assert_int_equal(g16__p1_msm_density_var(&want, p->b_g1, nb_in, w, ni, r->density[G16__DENS_B_INPUT], NULL,
                                                 NULL),
                         G16_OK);
        assert_int_equal(g16__p1_msm_density_var(&t, p->b_g1 + nb_in, p->n_b_g1 - nb_in, w + ni, na,
                                                 r->density[G16__DENS_B_AUX], NULL, NULL),
                         G16_OK);
        g16__p1_add_var(&want, &want, &t);
        assert_int_equal(g16__p1_msm_var(&got, p->b_g1, s, p->n_b_g1, NULL, NULL), G16_OK);
        assert_true(g16__p1_eq(&got, &want));
        assert_int_equal(g16__p2_msm_density_var(&want2, p->b_g2, nb_in, w, ni, r->density[G16__DENS_B_INPUT],
                                                 NULL, NULL),
                         G16_OK);
        assert_int_equal(g16__p2_msm_density_var(&t2, p->b_g2 + nb_in, p->n_b_g2 - nb_in, w + ni, na,
                                                 r->density[G16__DENS_B_AUX], NULL, NULL),
                         G16_OK);
        g16__p2_add_var(&want2, &want2, &t2);
        assert_int_equal(g16__p2_msm_var(&got2, p->b_g2, s, p->n_b_g2, NULL, NULL), G16_OK);
        assert_true(g16__p2_eq(&got2, &want2));
        printf("  %s demo: a %llu of %llu, b %llu of %llu scalars; sums equal the density MSMs\n",
               k ? "field" : "bits", (unsigned long long)p->n_a, (unsigned long long)(ni + na),
               (unsigned long long)p->n_b_g1, (unsigned long long)(ni + na));
        free(s);
        fixture_free(&f);
    }
}

/* The parallel compaction against a serial one, on random density bitmaps large enough for many
 * blocks (1024 words each) and with empty, full and ragged ends. */
static void test_compaction_large(void **state)
{
    (void)state;
    static const uint64_t sizes[][2] = {{3, 200001}, {130, 65536 * 3 + 17}, {1, 64}, {70000, 1}};
    for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
        struct g16_r1cs r;
        memset(&r, 0, sizeof r);
        r.num_inputs = sizes[c][0];
        r.num_aux = sizes[c][1];
        uint64_t nv = r.num_inputs + r.num_aux, wi = (r.num_inputs + 63) / 64, wa = (r.num_aux + 63) / 64;
        uint64_t *bits[3] = {calloc(wa, 8), calloc(wi, 8), calloc(wa, 8)};
        r.density[G16__DENS_A_AUX] = bits[0];
        r.density[G16__DENS_B_INPUT] = bits[1];
        r.density[G16__DENS_B_AUX] = bits[2];
        for (uint64_t i = 0; i < r.num_aux; i++) {
            /* density varies along the vector: dense, sparse, empty stretches */
            unsigned mode = (unsigned)((i >> 14) % 4), x = (unsigned)(tu_rand64() % 100);
            if (mode == 0 || (mode == 1 && x < 10) || (mode == 2 && x < 60))
                bits[0][i / 64] |= 1ull << (i % 64);
            if ((mode == 3) || x < 30)
                bits[2][i / 64] |= 1ull << (i % 64);
        }
        for (uint64_t i = 0; i < r.num_inputs; i++)
            if (tu_rand64() % 2)
                bits[1][i / 64] |= 1ull << (i % 64);
        g16_fr *w = malloc(nv * sizeof *w), *got = malloc((nv + 1) * sizeof *got), *want = malloc(nv * sizeof *want);
        assert_non_null(w);
        assert_non_null(got);
        assert_non_null(want);
        for (uint64_t i = 0; i < nv; i++)
            g16__fr_from_u64(&w[i], i * 0x9e3779b97f4a7c15ull);
        for (int q = 0; q < 2; q++) {
            size_t k = 0;
            for (uint64_t i = 0; i < r.num_inputs; i++)
                if (q == 0 || ((bits[1][i / 64] >> (i % 64)) & 1))
                    want[k++] = w[i];
            for (uint64_t i = 0; i < r.num_aux; i++)
                if ((bits[q == 0 ? 0 : 2][i / 64] >> (i % 64)) & 1)
                    want[k++] = w[r.num_inputs + i];
            memset(got, 0xa5, (nv + 1) * sizeof *got);
            size_t n = q == 0 ? g16__prove_a_scalars(got, &r, w) : g16__prove_b_scalars(got, &r, w);
            assert_int_equal(n, k);
            assert_memory_equal(got, want, k * sizeof *got);
            for (size_t j = 0; j < sizeof *got; j++) /* nothing written past the count */
                assert_int_equal(((unsigned char *)&got[k])[j], 0xa5);
        }
        free(w), free(got), free(want);
        free(bits[0]), free(bits[1]), free(bits[2]);
    }
    printf("  parallel compaction = serial compaction (up to 200,004 variables)\n");
}

static int have_device(void)
{
    if (g16__gpu_device_count() > 0)
        return 1;
    printf("  no CUDA device: skipped\n");
    return 0;
}

/* Sets an environment variable for one test; returns the previous value (malloc'd, or NULL when
 * it was unset) for env_restore, so that a knob set for the whole run (G16_GPU_PREFETCH=0 for an
 * A/B) is back for the other tests. */
static char *env_set(const char *name, const char *value)
{
    const char *old = getenv(name);
    char *saved = old ? strdup(old) : NULL;
    setenv(name, value, 1);
    return saved;
}

static void env_restore(const char *name, char *saved)
{
    if (saved)
        setenv(name, saved, 1);
    else
        unsetenv(name);
    free(saved);
}

/* The device compaction (what the GPU worker runs for the a / b scalars) against a host loop:
 * random, empty and full bitmaps, ragged ends with garbage bits past n (ignored), the output
 * poisoned past the count (untouched), and one compactor reused for every size below its maximum. */
static void test_gpu_compaction(void **state)
{
    (void)state;
    if (!have_device())
        return;
    static const size_t sizes[] = {1, 63, 64, 65, 1000, 200001, (1u << 20) + 3};
    const size_t max_n = (1u << 20) + 3, words_max = (max_n + 63) / 64;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_compactor *c = NULL;
    g16_fr *src = malloc(max_n * sizeof *src), *got = malloc((max_n + 1) * sizeof *got);
    g16_fr *want = malloc(max_n * sizeof *want), *dsrc = NULL, *dout = NULL;
    uint64_t *bits = malloc(words_max * 8), *dbits = NULL;
    assert_true(src && got && want && bits);
    if (g16__gpu_open(&g, 0, &err) != G16_OK || g16__gpu_compactor_create(&c, g, max_n, &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&dsrc, max_n * sizeof *src, "src", &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&dout, (max_n + 1) * sizeof *got, "out", &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&dbits, words_max * 8, "bits", &err) != G16_OK)
        fail_msg("setup: %s", err.msg);
    for (size_t i = 0; i < max_n; i++)
        tu_rand_fr(&src[i]);
    assert_int_equal(g16__gpu_upload(g, dsrc, src, max_n * sizeof *src, &err), G16_OK);
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        for (int mode = 0; mode < 4; mode++) { /* random 50%, random 3%, empty, full */
            size_t n = sizes[t], words = (n + 63) / 64, k = 0, count = 0;
            for (size_t w = 0; w < words; w++) {
                uint64_t x = tu_rand64();
                bits[w] = mode == 0 ? x : mode == 1 ? x & tu_rand64() & tu_rand64() & tu_rand64() & tu_rand64()
                        : mode == 2 ? 0 : ~0ull;
                if (mode != 2 && w == words - 1 && n % 64) /* garbage past n */
                    bits[w] |= ~0ull << (n % 64);
            }
            for (size_t i = 0; i < n; i++)
                if ((bits[i / 64] >> (i % 64)) & 1)
                    want[k++] = src[i];
            memset(got, 0x5a, (k + 1) * sizeof *got);
            assert_int_equal(g16__gpu_upload(g, dout, got, (k + 1) * sizeof *got, &err), G16_OK);
            assert_int_equal(g16__gpu_upload(g, dbits, bits, words * 8, &err), G16_OK);
            if (g16__gpu_compact(c, dout, dsrc, n, dbits, &count, &err) != G16_OK)
                fail_msg("compact n=%zu mode %d: %s", n, mode, err.msg);
            assert_int_equal(count, k);
            assert_int_equal(g16__gpu_download(g, got, dout, (k + 1) * sizeof *got, &err), G16_OK);
            assert_int_equal(g16__gpu_sync(g, &err), G16_OK);
            if (memcmp(got, want, k * sizeof *got) != 0)
                fail_msg("compact n=%zu mode %d: values differ from the host's", n, mode);
            for (size_t j = 0; j < sizeof *got; j++)
                assert_int_equal(((unsigned char *)&got[k])[j], 0x5a);
        }
    }
    size_t count = 1;
    assert_int_equal(g16__gpu_compact(c, dout, dsrc, max_n + 1, dbits, &count, &err), G16_ERR_SIZE_MISMATCH);
    assert_int_equal(g16__gpu_compact(c, dout, dsrc, 0, dbits, &count, &err), G16_OK);
    assert_int_equal(count, 0);
    printf("  device compaction = host loop (n up to 2^20 + 3; random, sparse, empty, full bitmaps)\n");
    g16__gpu_free(g, dsrc);
    g16__gpu_free(g, dout);
    g16__gpu_free(g, dbits);
    g16__gpu_compactor_destroy(c);
    g16__gpu_close(g);
    free(src), free(got), free(want), free(bits);
}

static uint64_t span_count(const char *path);

/* Spans `leaf` under query q's MSM span in the last traced call: the worker's circuit span is a
 * root on a thread of its own, or under prove. */
static uint64_t query_spans(const char *q, const char *leaf)
{
    char a[128], b[128];
    snprintf(a, sizeof a, "prove/prove.circuit/msm.%s.gpu/%s", q, leaf);
    snprintf(b, sizeof b, "prove.circuit/msm.%s.gpu/%s", q, leaf);
    return span_count(a) + span_count(b);
}

/* Runs of msm.h in pieces (prove_gpu.c's views) in the last traced call. */
static uint64_t h_piece_runs(void) { return query_spans("h", "gpu.msm_piece"); }
static uint64_t h_pass_runs(void) { return query_spans("h", "gpu.msm_passes"); }

/* Synchronous query uploads (prove_gpu.c's q_create) in the last traced call; early: those of the
 * early witness MSMs (prove.witness_early) instead. */
static uint64_t sync_query_uploads_in(int early)
{
    static const char *const q[] = {"h", "l", "a", "b_g1", "b_g2"};
    uint64_t k = 0;
    char path[128];
    for (int i = 0; i < 5; i++) {
        if (!early) {
            k += query_spans(q[i], "gpu.upload_query");
            continue;
        }
        snprintf(path, sizeof path, "prove/prove.witness_early/msm.%s.gpu/gpu.upload_query", q[i]);
        k += span_count(path);
    }
    return k;
}

static uint64_t sync_query_uploads(void) { return sync_query_uploads_in(0); }

/* Witness MSMs run in pairs (prove_gpu.h, g16__gpu_prover_msms_next) in the last traced call: one
 * upload of the second witness each. */
static uint64_t pair_spans(void)
{
    return span_count("prove/prove.circuit/gpu.upload_witness2") + span_count("prove.circuit/gpu.upload_witness2") +
           span_count("prove/prove.witness_early/gpu.upload_witness2") +
           span_count("prove.witness_early/gpu.upload_witness2");
}

/* Some queries resident, the others streamed (G16_GPU_RESIDENT names the resident ones): h and
 * b_g2 resident whole with l, a, b_g1 streamed in chunks, then l, a, b_g1 resident in pieces with
 * h, b_g2 streamed; the same proofs as the CPU's, and the trace shows each query where it was
 * meant to be (synchronous uploads: only the batch's first streamed chunk; pieces: exactly as
 * many runs as the resident queries need). */
static void partial_cases(fixture *f, const g16_proof *cpu, g16_proof *gpu, size_t rows)
{
    g16_error err = {0, ""};
    char chunk[32], piece[32];
    size_t np = (rows / 3 + 31) / 32 * 32, want = 0;
    size_t nres[3] = {f->p->n_l, f->p->n_a, f->p->n_b_g1};
    snprintf(chunk, sizeof chunk, "%zu", rows / 3 + 1);
    snprintf(piece, sizeof piece, "%zu", np);
    char *saved_res = env_set("G16_GPU_RESIDENT", "h,b_g2"), *saved_chunk = env_set("G16_GPU_CHUNK", chunk);
    memset(gpu, 0, f->count * sizeof *gpu);
    g16_status st = traced_prove(f, gpu, "0", &err); /* one worker: the counts */
    uint64_t sync_up = sync_query_uploads(), sync_l = query_spans("l", "gpu.upload_query");
    uint64_t next_up = span_count("gpu.upload_next_chunk");
    g16__trace_reset();
    if (st != G16_OK)
        fail_msg("gpu, h and b_g2 resident, chunks of %s: %s", chunk, err.msg);
    expect_same_proofs(cpu, gpu, f->count, "h and b_g2 resident, the others streamed in chunks");
    printf("  h, b_g2 resident; l, a, b_g1 in chunks of %s: %llu synchronous upload(s), %llu by the thread\n", chunk,
           (unsigned long long)sync_up, (unsigned long long)next_up);
    assert_int_equal(sync_up, 1); /* l's first chunk; h and b_g2 never, the rest by the thread */
    assert_int_equal(sync_l, 1);
    assert_true(next_up >= 3 * f->count);

    setenv("G16_GPU_RESIDENT", "l,a,b_g1", 1);
    char *saved_piece = env_set("G16_GPU_PIECE", piece);
    memset(gpu, 0, f->count * sizeof *gpu);
    st = traced_prove(f, gpu, "0", &err);
    uint64_t pieces = query_spans("l", "gpu.msm_piece") + query_spans("a", "gpu.msm_piece") +
                      query_spans("b_g1", "gpu.msm_piece");
    uint64_t h_pieces = h_piece_runs(), sync_h = query_spans("h", "gpu.upload_query"), pairs = pair_spans();
    sync_up = sync_query_uploads();
    g16__trace_reset();
    env_restore("G16_GPU_PIECE", saved_piece);
    env_restore("G16_GPU_CHUNK", saved_chunk);
    env_restore("G16_GPU_RESIDENT", saved_res);
    if (st != G16_OK)
        fail_msg("gpu, l, a, b_g1 resident in pieces of %s: %s", piece, err.msg);
    expect_same_proofs(cpu, gpu, f->count, "l, a, b_g1 resident in pieces, h and b_g2 streamed");
    for (int q = 0; q < 3; q++)
        want += nres[q] > np ? (nres[q] + np - 1) / np : 0;
    printf("  l, a, b_g1 resident in pieces of %s (%llu runs, %zu per proof expected, %llu witness MSMs in pairs); "
           "h, b_g2 streamed\n",
           piece, (unsigned long long)pieces, want, (unsigned long long)pairs);
    /* b_g2 streamed: the witness MSMs in pairs (circuits 0 and 1, ...) where the second witness
     * and both circuits' a / b scalars fit in the H step's vectors (not the field demo's dense
     * queries), a pair's sets share each piece's run */
    size_t nw = f->r->num_inputs + f->r->num_aux, nscal = f->p->n_a > f->p->n_b_g1 ? f->p->n_a : f->p->n_b_g1;
    assert_int_equal(pairs, nw + 2 * nscal <= 3 * f->r->n ? f->count / 2 : 0);
    assert_int_equal(pieces, want * (f->count - pairs));
    assert_int_equal(h_pieces, 0);
    assert_int_equal(sync_up, 1); /* h's first chunk */
    assert_int_equal(sync_h, 1);
}

/* The H step in two device vectors (G16_GPU_H_SLOTS=2: c goes into b's vector once a·b is
 * formed), queries resident and streamed, b's copy overlapping a's transforms (the default) and
 * not (G16_GPU_H_OVERLAP=0): the CPU's proofs, a, b, c from the host (the SpMV on the device needs
 * three vectors); the trace shows which upload ran. */
static void two_vector_cases(fixture *f, const g16_proof *cpu, g16_proof *gpu)
{
    g16_error err = {0, ""};
    char *saved = env_set("G16_GPU_H_SLOTS", "2");
    for (int k = 0; k < 4; k++) {
        int streamed = k & 1, overlap = !(k & 2);
        char *saved_stream = env_set("G16_GPU_STREAM", streamed ? "1" : "0");
        char *saved_ov = env_set("G16_GPU_H_OVERLAP", overlap ? "" : "0");
        memset(gpu, 0, f->count * sizeof *gpu);
        g16_status st = traced_prove(f, gpu, "0", &err);
        uint64_t spmv_gpu = span_count("prove/prove.circuit/ntt.h.gpu/gpu.spmv");
        uint64_t ups = span_count("prove/prove.circuit/ntt.h.gpu/gpu.upload_abc");
        uint64_t ups_a = span_count("prove/prove.circuit/ntt.h.gpu/gpu.upload_a");
        g16__trace_reset();
        env_restore("G16_GPU_H_OVERLAP", saved_ov);
        env_restore("G16_GPU_STREAM", saved_stream);
        if (st != G16_OK)
            fail_msg("gpu, H in two vectors%s%s: %s", streamed ? ", streamed" : "", overlap ? "" : ", not overlapped",
                     err.msg);
        expect_same_proofs(cpu, gpu, f->count, streamed ? "H in two vectors, streamed" : "H in two vectors");
        assert_int_equal(spmv_gpu, 0);
        assert_int_equal(overlap ? ups_a : ups, f->count);
        assert_int_equal(overlap ? ups : ups_a, 0);
    }
    setenv("G16_GPU_H_SLOTS", "4", 1);
    g16__gpu_prover *gp = NULL;
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f->p, f->r, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "G16_GPU_H_SLOTS"));
    env_restore("G16_GPU_H_SLOTS", saved);
}

/* GPU = CPU byte for byte: several sizes (not powers of two), both demo kinds, batches, one and
 * two workers on the card, queries resident, streamed whole and streamed in chunks (each chunk
 * but the first uploaded by a thread while the previous chunk's MSM runs: counted in the trace). */
static void test_gpu_equals_cpu(void **state)
{
    (void)state;
    if (!have_device())
        return;
    static const struct {
        g16_demo_kind kind;
        size_t rows, count;
    } cases[] = {{G16_DEMO_BITS, 600, 1}, {G16_DEMO_BITS, 5000, 3}, {G16_DEMO_FIELD, 3000, 2},
                 {G16_DEMO_BITS, 70000, 2}};
    size_t ncases = sizeof cases / sizeof cases[0];
#if defined(G16_FAKE_GPU) && defined(__SANITIZE_ADDRESS__)
    ncases--; /* the fake under AddressSanitizer: 70000 rows would be most of the CI's sanitizer stage */
#endif
    for (size_t c = 0; c < ncases; c++) {
        fixture f;
        g16_error err = {0, ""};
        fixture_make(&f, cases[c].kind, cases[c].rows, cases[c].count);
        g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
        assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
        g16_status st0 = traced_prove(&f, gpu, "0", &err);
        uint64_t spmv_gpu = span_count("prove/prove.circuit/ntt.h.gpu/gpu.spmv");
        uint64_t spmv_cpu = span_count("prove.synth/spmv") + span_count("prove/prove.synth/spmv");
        g16__trace_reset();
        if (st0 != G16_OK)
            fail_msg("gpu: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "one worker");
        /* by default a, b, c come from the device's SpMV (the matrices fit on any test card) */
        assert_int_equal(spmv_gpu, f.count);
        assert_int_equal(spmv_cpu, 0);
        char *saved_spmv = env_set("G16_GPU_SPMV", "0");
        memset(gpu, 0, f.count * sizeof *gpu);
        st0 = prove_with(&f, gpu, "gpu", "0", &err);
        env_restore("G16_GPU_SPMV", saved_spmv);
        if (st0 != G16_OK)
            fail_msg("gpu, G16_GPU_SPMV=0: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "one worker, a/b/c from the CPU");
        memset(gpu, 0, f.count * sizeof *gpu);
        if (prove_with(&f, gpu, "gpu", "0,0", &err) != G16_OK)
            fail_msg("gpu 0,0: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "two workers on device 0");
        if (g16__gpu_device_count() >= 2) {
#ifdef G16_FAKE_GPU
            unsigned opened = g16__fake_gpu_opens(1);
#endif
            memset(gpu, 0, f.count * sizeof *gpu);
            if (prove_with(&f, gpu, "gpu", "0,1", &err) != G16_OK)
                fail_msg("gpu 0,1: %s", err.msg);
            expect_same_proofs(cpu, gpu, f.count, "one worker on each of devices 0 and 1");
#ifdef G16_FAKE_GPU
            if (f.count >= 2) /* (at most count workers start) the second worker is bound to card 1 */
                assert_true(g16__fake_gpu_opens(1) > opened);
#endif
        }
        setenv("G16_GPU_STREAM", "1", 1);
        memset(gpu, 0, f.count * sizeof *gpu);
        g16_status st = prove_with(&f, gpu, "gpu", NULL, &err);
        if (st != G16_OK)
            fail_msg("gpu streamed: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "queries streamed");
        /* streamed in small chunks (several per query, the last one short); no early witness
         * MSMs, which take the chunks out of the usual order that the counts below assume
         * (test_gpu_early_witness counts that order) */
        char chunk[32];
        snprintf(chunk, sizeof chunk, "%zu", cases[c].rows / 3 + 1);
        setenv("G16_GPU_CHUNK", chunk, 1);
        char *saved_early = env_set("G16_GPU_EARLY_W", "0");
        memset(gpu, 0, f.count * sizeof *gpu);
        st = traced_prove(&f, gpu, "0", &err); /* one worker (the counts below) */
        uint64_t sync_up = sync_query_uploads(), next_up = span_count("gpu.upload_next_chunk");
        g16__trace_reset();
        env_restore("G16_GPU_EARLY_W", saved_early);
        unsetenv("G16_GPU_CHUNK");
        unsetenv("G16_GPU_STREAM");
        if (st != G16_OK)
            fail_msg("gpu streamed in chunks of %s: %s", chunk, err.msg);
        expect_same_proofs(cpu, gpu, f.count, "queries streamed in chunks");
        /* one worker: only the batch's very first chunk is uploaded on the spot; every later one
         * (and one more, h's first for a next proof) by the upload thread */
        printf("  chunks of %s points: %llu synchronous upload(s), %llu by the upload thread\n", chunk,
               (unsigned long long)sync_up, (unsigned long long)next_up);
        assert_int_equal(sync_up, 1);
        assert_true(next_up >= 5 * f.count);
        /* resident, each MSM in pieces (views of the query; several per query, the last short) */
        snprintf(chunk, sizeof chunk, "%zu", (cases[c].rows / 3 + 31) / 32 * 32);
        char *saved_piece = env_set("G16_GPU_PIECE", chunk);
        memset(gpu, 0, f.count * sizeof *gpu);
        st = traced_prove(&f, gpu, "0", &err);
        uint64_t pieces = h_piece_runs();
        g16__trace_reset();
        env_restore("G16_GPU_PIECE", saved_piece);
        if (st != G16_OK)
            fail_msg("gpu in pieces of %s: %s", chunk, err.msg);
        expect_same_proofs(cpu, gpu, f.count, "MSMs in pieces");
        printf("  pieces of %s points: %llu runs of msm.h\n", chunk, (unsigned long long)pieces);
        assert_true(pieces >= 3 * f.count); /* h alone has n >= rows points: 3 pieces or more */
        /* resident, each MSM whole in passes of 2 windows (G16_GPU_PASSES=2: whatever fits) */
        char *saved_passes = env_set("G16_GPU_PASSES", "2");
        memset(gpu, 0, f.count * sizeof *gpu);
        st = traced_prove(&f, gpu, "0", &err);
        uint64_t passes = h_pass_runs(), ppieces = h_piece_runs();
        g16__trace_reset();
        env_restore("G16_GPU_PASSES", saved_passes);
        if (st != G16_OK)
            fail_msg("gpu in passes of 2 windows: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "MSMs in passes of 2 windows");
        assert_int_equal(passes, f.count);
        assert_int_equal(ppieces, 0);
        static const char *const bad_passes[] = {"x", "-1", "2w", "129"};
        for (size_t i = 0; i < sizeof bad_passes / sizeof bad_passes[0]; i++) {
            g16__gpu_prover *bp = NULL;
            saved_passes = env_set("G16_GPU_PASSES", bad_passes[i]);
            assert_int_equal(g16__gpu_prover_create(&bp, 0, f.p, f.r, &err), G16_ERR_ARG);
            assert_non_null(strstr(err.msg, "G16_GPU_PASSES"));
            assert_null(bp);
            env_restore("G16_GPU_PASSES", saved_passes);
        }
        saved_early = env_set("G16_GPU_EARLY_W", "0"); /* (its counts too) */
        partial_cases(&f, cpu, gpu, cases[c].rows);
        env_restore("G16_GPU_EARLY_W", saved_early);
        two_vector_cases(&f, cpu, gpu);
        printf("  %s demo, %zu rows, batch %zu: GPU proofs = CPU proofs (1 and 2 workers; queries "
               "resident with a/b/c from the device and from the CPU, in pieces, in passes, streamed, streamed in "
               "chunks, some resident and some streamed, the H step in two vectors)\n",
               cases[c].kind == G16_DEMO_BITS ? "bits" : "field", cases[c].rows, f.count);
        free(cpu);
        free(gpu);
        fixture_free(&f);
    }
}

/* A prover kept between batches gives the same proofs as g16_prove, call after call, on the CPU
 * (everywhere) and on the GPU (where there is one), and refuses NULLs and mismatched shapes. */
static void test_prover_reuse(void **state)
{
    (void)state;
    fixture f, other;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 3000, 3);
    fixture_make(&other, G16_DEMO_BITS, 5000, 1);
    g16_proof *want = calloc(f.count, sizeof *want), *got = calloc(f.count, sizeof *got);
    assert_int_equal(prove_with(&f, want, "cpu", NULL, &err), G16_OK);
    const char *backends[2] = {"cpu", "gpu"};
    for (int b = 0; b < 2; b++) {
        if (b == 1 && !have_device())
            break;
        g16_prover *pv = NULL;
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = backends[b]};
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        assert_true(g16_prover_workers(pv) >= 1);
        for (int call = 0; call < 3; call++) {
            memset(got, 0, f.count * sizeof *got);
            if (g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err) != G16_OK)
                fail_msg("%s call %d: %s", backends[b], call, err.msg);
            expect_same_proofs(want, got, f.count, backends[b]);
        }
        /* count 0 writes nothing; a NULL witness is refused */
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, 0, &o, &err), G16_OK);
        const g16_fr *nullw[1] = {NULL};
        assert_int_equal(g16_prover_prove(pv, got, nullw, 1, &o, &err), G16_ERR_ARG);
        g16_prover_destroy(pv);
        printf("  %s prover: 3 calls of 3 proofs = g16_prove's proofs\n", backends[b]);
    }
    g16_prover *pv = NULL;
    assert_int_equal(g16_prover_create(&pv, other.p, f.r, NULL, &err), G16_ERR_SIZE_MISMATCH);
    assert_null(pv);
    assert_int_equal(g16_prover_create(NULL, f.p, f.r, NULL, &err), G16_ERR_ARG);
    g16_prover_destroy(NULL);
    free(want);
    free(got);
    fixture_free(&f);
    fixture_free(&other);
}

/* A witness that does not satisfy the circuit in the middle of a batch: the error names that
 * circuit (the lowest failing one), nothing is written, and the prover stays usable; on the CPU
 * and, where there is one, on the GPU (whose synth stage runs ahead of its GPU stage). Unchecked
 * (G16_PROVE_NO_CHECK), the batch fails self-verification on every backend. */
static void test_batch_failure(void **state)
{
    (void)state;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 2000, 4);
    g16_proof *want = calloc(f.count, sizeof *want), *got = calloc(f.count, sizeof *got);
    assert_int_equal(prove_with(&f, want, "cpu", NULL, &err), G16_OK);
    /* the GPU with the prefetch as configured (on by default), then with G16_GPU_PREFETCH=wait:
     * the bad circuit's a, b, c are certainly prefetched during its predecessor's MSMs, and the
     * slot is released (or proved) while that copy may be pending; then with the rows checked on
     * the device (G16_GPU_CHECK=1), alone and with every circuit's witness MSMs early. Every
     * backend's error is the CPU's, word for word (the same first failing constraint). */
    /* configs 1-4 with a, b, c from the CPU (G16_GPU_SPMV=0), 5 and 6 from the device's SpMV (whose
     * rows are always checked on the device), 6 with every witness MSM early, 7 and 8 the batch's
     * first circuit from the device's SpMV and the others from the CPU's (=first), 8 with every
     * witness MSM early. The bad circuit is the first (0), then 1 and 3. */
    enum { CONFIGS = 9 };
    const char *backends[CONFIGS] = {"cpu", "gpu", "gpu", "gpu", "gpu", "gpu", "gpu", "gpu", "gpu"};
    const char *prefetch[CONFIGS] = {NULL, NULL, "wait", NULL, "wait", NULL, NULL, NULL, NULL};
    const char *gpu_check[CONFIGS] = {NULL, NULL, NULL, "1", "1", NULL, NULL, NULL, NULL};
    const char *early[CONFIGS] = {NULL, NULL, NULL, NULL, "2", NULL, "2", NULL, "2"};
    const char *spmv[CONFIGS] = {NULL, "0", "0", "0", "0", "1", "1", "first", "first"};
    char cpu_msg[4][sizeof err.msg];
    assert_true(f.count <= 4);
    for (int b = 0; b < CONFIGS; b++) {
        if (b == 1 && !have_device())
            break;
        char *saved = prefetch[b] ? env_set("G16_GPU_PREFETCH", prefetch[b]) : NULL;
        char *saved_check = gpu_check[b] ? env_set("G16_GPU_CHECK", gpu_check[b]) : NULL;
        char *saved_early = early[b] ? env_set("G16_GPU_EARLY_W", early[b]) : NULL;
        char *saved_spmv = spmv[b] ? env_set("G16_GPU_SPMV", spmv[b]) : NULL;
        g16_prover *pv = NULL;
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = backends[b]};
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        for (size_t bad = 0; bad < f.count; bad += bad ? 2 : 1) {
            size_t k = g16_cs_num_inputs(f.cs) + bad; /* an aux value: breaks a constraint */
            g16_fr keep = f.w[bad][k];
            g16__fr_add(&f.w[bad][k], &f.w[bad][k], &f.w[bad][0]);
            memset(got, 0x5a, f.count * sizeof *got);
            assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err),
                             G16_ERR_UNSATISFIED);
            char want_msg[32];
            snprintf(want_msg, sizeof want_msg, "circuit %zu", bad);
            if (!strstr(err.msg, want_msg))
                fail_msg("%s: expected '%s' in '%s'", backends[b], want_msg, err.msg);
            if (b == 0)
                snprintf(cpu_msg[bad], sizeof cpu_msg[bad], "%s", err.msg);
            else if (strcmp(err.msg, cpu_msg[bad]) != 0)
                fail_msg("gpu (config %d): '%s', the CPU said '%s'", b, err.msg, cpu_msg[bad]);
            for (size_t j = 0; j < f.count * sizeof *got; j++)
                assert_int_equal(((unsigned char *)got)[j], 0x5a);
            f.w[bad][k] = keep;
        }
        {
            /* unchecked (G16_PROVE_NO_CHECK): the bad witness is proved on, and self-verification
             * refuses the proof, as on the CPU (the device's check does not stop it) */
            g16_prove_opts nc = o;
            nc.flags = G16_PROVE_NO_CHECK;
            size_t k = g16_cs_num_inputs(f.cs) + 1;
            g16_fr keep = f.w[1][k];
            g16__fr_add(&f.w[1][k], &f.w[1][k], &f.w[1][0]);
            assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &nc, &err),
                             G16_ERR_VERIFY_FAILED);
            f.w[1][k] = keep;
        }
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err), G16_OK);
        expect_same_proofs(want, got, f.count, backends[b]);
        printf("  %s%s%s%s%s: an unsatisfied witness in a batch of %zu is named as the CPU names it, then the batch "
               "proves\n",
               backends[b], prefetch[b] ? " (G16_GPU_PREFETCH=wait)" : "", gpu_check[b] ? " (G16_GPU_CHECK=1)" : "",
               early[b] ? " (G16_GPU_EARLY_W=2)" : "",
               spmv[b] ? (*spmv[b] == '1' ? " (SpMV on the device)"
                          : *spmv[b] == 'f' ? " (the first circuit's SpMV on the device)" : " (SpMV on the CPU)")
                       : "", f.count);
        g16_prover_destroy(pv);
        if (spmv[b])
            env_restore("G16_GPU_SPMV", saved_spmv);
        if (early[b])
            env_restore("G16_GPU_EARLY_W", saved_early);
        if (gpu_check[b])
            env_restore("G16_GPU_CHECK", saved_check);
        if (prefetch[b])
            env_restore("G16_GPU_PREFETCH", saved);
    }
    free(want);
    free(got);
    fixture_free(&f);
}

/* Two unsatisfied witnesses in one batch, two workers (on one card: it runs wherever test_batch_failure
 * does): the error names the lower of the two, as the CPU's does, every time. With the rows checked on
 * the device (the SpMV there, the default) only the GPU stage finds a bad row; it used to skip every
 * circuit once any circuit had failed, so when the worker holding circuit 2 failed first, the other
 * worker skipped circuit 1 and the batch named circuit 2 (24 of 30 runs on the fake GPU). */
static void test_batch_failure_lowest(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    char cpu_msg[sizeof err.msg];
    fixture_make(&f, G16_DEMO_BITS, 2000, 4);
    g16_proof *got = calloc(f.count, sizeof *got);
    assert_non_null(got);
    size_t k = g16_cs_num_inputs(f.cs) + 1; /* an aux value: breaks a constraint */
    for (size_t bad = 1; bad <= 2; bad++)
        g16__fr_add(&f.w[bad][k], &f.w[bad][k], &f.w[bad][0]);
    assert_int_equal(prove_with(&f, got, "cpu", NULL, &err), G16_ERR_UNSATISFIED);
    assert_non_null(strstr(err.msg, "circuit 1"));
    snprintf(cpu_msg, sizeof cpu_msg, "%s", err.msg);
    static const char *const spmv[] = {"1", "0", "first"};
    for (size_t m = 0; m < sizeof spmv / sizeof spmv[0]; m++) {
        char *saved = env_set("G16_GPU_SPMV", spmv[m]);
        g16_prover *pv = NULL;
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0,0"};
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        for (int it = 0; it < 10; it++) {
            assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err),
                             G16_ERR_UNSATISFIED);
            if (strcmp(err.msg, cpu_msg) != 0)
                fail_msg("G16_GPU_SPMV=%s, two workers, run %d: '%s', the CPU said '%s'", spmv[m], it, err.msg,
                         cpu_msg);
        }
        g16_prover_destroy(pv);
        env_restore("G16_GPU_SPMV", saved);
        printf("  G16_GPU_SPMV=%s, two workers, circuits 1 and 2 unsatisfied: circuit 1 named, as by the CPU, in 10 "
               "runs\n", spmv[m]);
    }
    free(got);
    fixture_free(&f);
}

/* The GPU worker's H step (H left on the device) equals the CPU's g16__ntt_groth16_h, for the
 * bellman domain and for a snarkjs-style generator (5), at several sizes. */
static void test_gpu_h_step(void **state)
{
    (void)state;
    if (!have_device())
        return;
    static const size_t rows[] = {600, 5000, 70000};
    for (size_t c = 0; c < sizeof rows / sizeof rows[0]; c++) {
        fixture f;
        g16_error err = {0, ""};
        fixture_make(&f, G16_DEMO_FIELD, rows[c], 1);
        size_t n = f.r->n;
        g16_fr *a = malloc(3 * n * sizeof *a), *h = malloc(n * sizeof *h);
        assert_non_null(a);
        assert_non_null(h);
        assert_int_equal(g16_r1cs_eval(f.r, f.w[0], f.w_len, a, a + n, a + 2 * n, n, &err), G16_OK);
        if (c == 1) { /* parameters over snarkjs's domain: the worker must build it from 5 */
            f.p->origin = G16__ORIGIN_SNARKJS;
            g16__fr_from_u64(&f.p->root_gen, 5);
        }
        g16__gpu_prover *gp = NULL;
        if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("gpu prover: %s", err.msg);
        assert_int_equal(g16__gpu_prover_h(gp, a, a + n, a + 2 * n, NULL, &err), G16_OK);
        memset(h, 0xa5, n * sizeof *h);
        assert_int_equal(g16__gpu_prover_h_download(gp, h, &err), G16_OK);
        g16__ntt_domain *dom = NULL;
        assert_int_equal(g16__ntt_domain_create(&dom, f.r->log_n, g16__params_root_generator(f.p), NULL, &err),
                         G16_OK);
        g16__ntt_groth16_h(dom, a, a + n, a + 2 * n);
        if (memcmp(a, h, n * sizeof *h) != 0)
            fail_msg("H of %zu rows (n = %zu) differs from the CPU's", rows[c], n);
        /* the MSMs consume H: a second call needs a new H step */
        g16__query_sums sums;
        assert_int_equal(g16__gpu_prover_msms(gp, &sums, f.w[0], NULL, NULL, &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msms(gp, &sums, f.w[0], NULL, NULL, &err), G16_ERR_ARG);
        printf("  H step of %zu rows (n = %zu, domain from %s) on the GPU = CPU; MSMs consume it\n", rows[c], n,
               c == 1 ? "5" : "7");
        g16__gpu_prover_destroy(gp);
        gp = NULL;
        if (c == 0) {
            /* the rows checked on the device: a broken row is named, and leaves no H behind (the
             * MSMs refuse; the witness MSMs, which must not run while an H waits, are allowed) */
            char *saved = env_set("G16_GPU_CHECK", "1");
            if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
                fail_msg("gpu prover: %s", err.msg);
            assert_true(g16__gpu_prover_checks(gp));
            assert_int_equal(g16_r1cs_eval(f.r, f.w[0], f.w_len, a, a + n, a + 2 * n, n, &err), G16_OK);
            assert_int_equal(g16__gpu_prover_h(gp, a, a + n, a + 2 * n, NULL, &err), G16_OK);
            assert_true(g16__gpu_prover_check_first_bad(gp) == UINT64_MAX);
            size_t row = f.r->num_constraints / 3 + 1;
            g16__fr_add(&a[2 * n + row], &a[2 * n + row], &f.w[0][0]);
            assert_int_equal(g16__gpu_prover_h(gp, a, a + n, a + 2 * n, NULL, &err), G16_OK);
            assert_true(g16__gpu_prover_check_first_bad(gp) == row);
            assert_int_equal(g16__gpu_prover_msms_w(gp, &sums, f.w[0], &err), G16_ERR_ARG); /* H pending */
            g16__gpu_prover_drop_h(gp);
            assert_int_equal(g16__gpu_prover_msms(gp, &sums, f.w[0], NULL, NULL, &err), G16_ERR_ARG);
            assert_int_equal(g16__gpu_prover_msms_w(gp, &sums, f.w[0], &err), G16_OK);
            printf("  G16_GPU_CHECK=1: row %zu of %zu broken: named by the device; dropped, no H left for the "
                   "MSMs\n",
                   row, (size_t)f.r->num_constraints);
            g16__gpu_prover_destroy(gp);
            env_restore("G16_GPU_CHECK", saved);
        }
        g16__ntt_domain_destroy(dom);
        free(a);
        free(h);
        fixture_free(&f);
    }
}

/* The overlapped H step (a, b, c from the host one at a time: no prefetch, no SpMV or row check on
 * the device) with c formed on the device as a·b (g16__gpu_prover_set_c_from_ab): the host's c,
 * junk here, is never read, and H is the CPU's for the true c = C·w; off, or with
 * G16_GPU_C_FROM_AB=0, the junk is read and H is the CPU's for it. */
static void test_gpu_c_from_ab(void **state)
{
    (void)state;
    if (!have_device())
        return;
    char *s_pf = env_set("G16_GPU_PREFETCH", "0"), *s_spmv = env_set("G16_GPU_SPMV", "0");
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_FIELD, 5000, 1);
    size_t n = f.r->n, bytes = n * sizeof(g16_fr);
    g16_fr *abc = malloc(3 * bytes), *want = malloc(3 * bytes), *wjunk = malloc(3 * bytes), *junk = malloc(bytes),
           *h = malloc(bytes);
    assert_true(abc && want && wjunk && junk && h);
    assert_int_equal(g16_r1cs_eval(f.r, f.w[0], f.w_len, abc, abc + n, abc + 2 * n, n, &err), G16_OK);
    for (size_t i = 0; i < n; i++)
        tu_rand_fr(&junk[i]);
    g16__ntt_domain *dom = NULL;
    assert_int_equal(g16__ntt_domain_create(&dom, f.r->log_n, g16__params_root_generator(f.p), NULL, &err), G16_OK);
    memcpy(want, abc, 3 * bytes);
    g16__ntt_groth16_h(dom, want, want + n, want + 2 * n);
    memcpy(wjunk, abc, 2 * bytes);
    memcpy(wjunk + 2 * n, junk, bytes);
    g16__ntt_groth16_h(dom, wjunk, wjunk + n, wjunk + 2 * n);
    for (int k = 0; k < 3; k++) { /* on; off; on with G16_GPU_C_FROM_AB=0 */
        char *s_env = env_set("G16_GPU_C_FROM_AB", k == 2 ? "0" : "");
        g16__gpu_prover *gp = NULL;
        if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("gpu prover: %s", err.msg);
        env_restore("G16_GPU_C_FROM_AB", s_env);
        char line[512];
        g16__gpu_prover_describe(gp, line, sizeof line);
        assert_int_equal(g16__gpu_prover_forms_c(gp), k != 2);
        assert_int_equal(strstr(line, "c formed on the device") != NULL, k != 2);
        g16__gpu_prover_set_c_from_ab(gp, k != 1);
        assert_int_equal(g16__gpu_prover_h(gp, abc, abc + n, junk, NULL, &err), G16_OK);
        memset(h, 0xa5, bytes);
        assert_int_equal(g16__gpu_prover_h_download(gp, h, &err), G16_OK);
        int formed = k == 0;
        assert_int_equal(g16__gpu_prover_c_formed(gp), (uint64_t)formed);
        if (memcmp(h, formed ? want : wjunk, bytes) != 0)
            fail_msg("H with c %s differs from the CPU's", formed ? "formed as a·b" : "copied (junk)");
        g16__gpu_prover_destroy(gp);
    }
    printf("  H step with c formed as a·b on the device: the CPU's H for C·w, the host's c not read; off: read\n");
    g16__ntt_domain_destroy(dom);
    free(abc);
    free(want);
    free(wjunk);
    free(junk);
    free(h);
    fixture_free(&f);
    env_restore("G16_GPU_SPMV", s_spmv);
    env_restore("G16_GPU_PREFETCH", s_pf);
}

static uint64_t span_count(const char *path);

/* Spans `name` in the last traced call, at the root or under the root spans that open workers. */
static uint64_t open_spans(const char *name)
{
    static const char *const roots[] = {"", "prover.create/", "prove/"};
    char path[128];
    uint64_t k = 0;
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        snprintf(path, sizeof path, "%s%s", roots[i], name);
        k += span_count(path);
    }
    return k;
}

/* The overlapped H step's device marks in the last traced call (prove_gpu.c, h_profile_end): every
 * circuit's ntt.h.gpu span carries the five intervals and b's copy (the witness's tail only where
 * the step uploaded the witness: not for a circuit whose witness MSMs ran early). */
static void expect_h_profile(size_t circuits)
{
    static const char *const keys[] = {"h.a_us", "h.wait_b_us", "h.b_us", "h.wait_c_us", "h.c_us", "h.b_copy_us"};
    static const char *const paths[] = {"prove/prove.circuit/ntt.h.gpu", "prove.circuit/ntt.h.gpu"};
    uint64_t spans = 0;
    for (size_t p = 0; p < 2; p++) {
        g16__trace_stat ts;
        if (g16__trace_query(paths[p], &ts) != G16_OK)
            continue;
        spans += ts.count;
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
            int found = 0;
            for (size_t m = 0; m < G16__TRACE_METRICS && ts.metric_key[m]; m++)
                found |= !strcmp(ts.metric_key[m], keys[k]);
            if (!found)
                fail_msg("%s: no metric %s", paths[p], keys[k]);
        }
    }
    assert_int_equal(spans, circuits);
}

/* A GPU worker whose device forms c as a·b (a, b, c from the host one at a time: no prefetch, no
 * SpMV or row check on the device) keeps no c on the host: its two slots each page-lock a and b
 * only (span gpu.pin_ab), the CPU stage checks each row against C·w computed as it goes, and the
 * proofs are the CPU's; an unsatisfied witness is named as the CPU names it. A batch that checks
 * no rows (G16_PROVE_NO_CHECK) adds c to both slots (span prove.add_c, once) and proves as before,
 * a bad witness failing self-verification as on the CPU. G16_GPU_C_FROM_AB=0: c is page-locked
 * with a and b at creation. */
static void test_gpu_no_host_c(void **state)
{
    (void)state;
    if (!have_device())
        return;
    char *s_pf = env_set("G16_GPU_PREFETCH", "0"), *s_spmv = env_set("G16_GPU_SPMV", "0");
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 2000, 3);
    g16_proof *want = calloc(f.count, sizeof *want), *got = calloc(f.count, sizeof *got);
    assert_true(want && got);
    assert_int_equal(prove_with(&f, want, "cpu", NULL, &err), G16_OK);
    size_t bad = 1, k = g16_cs_num_inputs(f.cs) + 1;
    g16_fr keep = f.w[bad][k];
    g16__fr_add(&f.w[bad][k], &f.w[bad][k], &f.w[bad][0]);
    char cpu_msg[sizeof err.msg];
    assert_int_equal(prove_with(&f, got, "cpu", NULL, &err), G16_ERR_UNSATISFIED);
    snprintf(cpu_msg, sizeof cpu_msg, "%s", err.msg);
    g16_proof *want_bad = calloc(f.count, sizeof *want_bad);
    assert_non_null(want_bad);
    g16_prove_opts cnv = {.r = f.rs, .s = f.rs + f.count, .backend = "cpu",
                          .flags = G16_PROVE_NO_CHECK | G16_PROVE_NO_VERIFY};
    assert_int_equal(g16_prove(want_bad, f.p, f.r, (const g16_fr *const *)f.w, f.count, &cnv, &err), G16_OK);
    f.w[bad][k] = keep;
    {
        /* the knob takes 0 or 1 only */
        char *s_env = env_set("G16_GPU_C_FROM_AB", "off");
        g16_prover *pv = NULL;
        g16_prove_opts o = {.backend = "gpu"};
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_ERR_ARG);
        assert_non_null(strstr(err.msg, "G16_GPU_C_FROM_AB"));
        assert_null(pv);
        env_restore("G16_GPU_C_FROM_AB", s_env);
    }
    for (int off = 0; off < 2; off++) {
        char *s_env = env_set("G16_GPU_C_FROM_AB", off ? "0" : "");
        g16_prover *pv = NULL;
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu"};
        g16_prove_opts nc = o;
        nc.flags = G16_PROVE_NO_CHECK;
        g16__trace_reset();
        g16__trace_enable(G16__TRACE_RECORD);
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        g16__trace_enable(0);
        env_restore("G16_GPU_C_FROM_AB", s_env);
        uint64_t slots = 2 * g16_prover_workers(pv); /* (two slots per worker: a test run may see two cards) */
        assert_int_equal(open_spans("gpu.pin_ab"), off ? 0 : slots);
        assert_int_equal(open_spans("gpu.pin_abc"), off ? slots : 0);
        for (int round = 0; round < 2; round++) { /* (round 1: a prover that proved before) */
            memset(got, 0x5a, f.count * sizeof *got);
            assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err), G16_OK);
            expect_same_proofs(want, got, f.count, off ? "c on the host" : "no c on the host");
        }
        g16__fr_add(&f.w[bad][k], &f.w[bad][k], &f.w[bad][0]);
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err),
                         G16_ERR_UNSATISFIED);
        if (strcmp(err.msg, cpu_msg) != 0)
            fail_msg("no c on the host: '%s', the CPU said '%s'", err.msg, cpu_msg);
        g16__trace_reset();
        g16__trace_enable(G16__TRACE_RECORD);
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &nc, &err),
                         G16_ERR_VERIFY_FAILED);
        g16__trace_enable(0);
        assert_int_equal(open_spans("prove.add_c"), off ? 0 : slots);
        /* unchecked and unverified: the bad witness's proof is the CPU's byte for byte (its c read,
         * not formed as a·b) */
        g16_prove_opts nv = nc;
        nv.flags = G16_PROVE_NO_CHECK | G16_PROVE_NO_VERIFY;
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &nv, &err), G16_OK);
        expect_same_proofs(want_bad, got, f.count, "unchecked bad witness");
        f.w[bad][k] = keep;
        g16__trace_reset();
        g16__trace_enable(G16__TRACE_RECORD);
        memset(got, 0x5a, f.count * sizeof *got);
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &nc, &err), G16_OK);
        g16__trace_enable(0);
        assert_int_equal(open_spans("prove.add_c"), 0); /* (kept from the batch before) */
        expect_h_profile(f.count);
        expect_same_proofs(want, got, f.count, "rows unchecked");
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err), G16_OK);
        expect_same_proofs(want, got, f.count, "checked again, c kept");
        g16_prover_destroy(pv);
    }
    printf("  no c on the host where the device forms it: slots of a and b, the CPU's proofs and errors; "
           "c added for an unchecked batch\n");
    free(want_bad);
    free(want);
    free(got);
    fixture_free(&f);
    env_restore("G16_GPU_SPMV", s_spmv);
    env_restore("G16_GPU_PREFETCH", s_pf);
}

/* The device SpMV (gpu.h, g16__gpu_spmv) = g16_r1cs_eval byte for byte: both demo kinds (the field
 * demo's entries carry coefficient ids), 32- and 64-bit row pointers, the outputs past the rows
 * zeroed (poisoned first); bad arguments refused. Then the prover's knob: on by default (the
 * matrices fit on any test card), G16_GPU_SPMV=0 keeps the SpMV on the CPU, a bad value is refused. */
static void test_gpu_spmv(void **state)
{
    (void)state;
    if (!have_device())
        return;
    static const struct {
        g16_demo_kind kind;
        size_t rows;
    } cases[] = {{G16_DEMO_FIELD, 3001}, {G16_DEMO_BITS, 70000}};
    g16__gpu *g = NULL;
    g16_error err = {0, ""};
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fixture f;
        fixture_make(&f, cases[c].kind, cases[c].rows, 1);
        const g16_r1cs *r = f.r;
        size_t n = r->n, m = r->num_constraints;
        g16_fr *want = malloc(3 * n * sizeof *want), *got = malloc(n * sizeof *got), *dw = NULL, *dc = NULL,
               *dout = NULL;
        uint64_t *rp64 = malloc((m + 1) * sizeof *rp64);
        uint32_t *rp32 = malloc((m + 1) * sizeof *rp32);
        assert_true(want && got && rp64 && rp32);
        assert_int_equal(g16_r1cs_eval(r, f.w[0], f.w_len, want, want + n, want + 2 * n, n, &err), G16_OK);
        if (g16__gpu_alloc(g, (void **)&dw, f.w_len * sizeof(g16_fr), "w", &err) != G16_OK ||
            g16__gpu_alloc(g, (void **)&dc, r->num_coeffs * sizeof(g16_fr), "coeffs", &err) != G16_OK ||
            g16__gpu_alloc(g, (void **)&dout, n * sizeof(g16_fr), "out", &err) != G16_OK)
            fail_msg("setup: %s", err.msg);
        assert_int_equal(g16__gpu_upload(g, dw, f.w[0], f.w_len * sizeof(g16_fr), &err), G16_OK);
        assert_int_equal(g16__gpu_upload(g, dc, r->coeffs, r->num_coeffs * sizeof(g16_fr), &err), G16_OK);
        uint64_t with_id = 0;
        for (int k = 0; k < 3; k++) {
            const g16__csr *mat = &r->mat[k];
            uint32_t *dwords = NULL, *drp32 = NULL;
            uint64_t *drp64 = NULL;
            with_id += mat->nwords - mat->nnz;
            for (size_t i = 0; i <= m; i++) {
                rp64[i] = g16__csr_rp(mat, i);
                rp32[i] = (uint32_t)rp64[i];
            }
            if (g16__gpu_alloc(g, (void **)&dwords, (mat->nwords + 1) * 4, "words", &err) != G16_OK ||
                g16__gpu_alloc(g, (void **)&drp32, (m + 1) * 4, "rp32", &err) != G16_OK ||
                g16__gpu_alloc(g, (void **)&drp64, (m + 1) * 8, "rp64", &err) != G16_OK)
                fail_msg("setup: %s", err.msg);
            assert_int_equal(g16__gpu_upload(g, dwords, mat->w, mat->nwords * 4, &err), G16_OK);
            assert_int_equal(g16__gpu_upload(g, drp32, rp32, (m + 1) * 4, &err), G16_OK);
            assert_int_equal(g16__gpu_upload(g, drp64, rp64, (m + 1) * 8, &err), G16_OK);
            for (int wide = 0; wide < 2; wide++) {
                memset(got, 0xa5, n * sizeof *got);
                assert_int_equal(g16__gpu_upload(g, dout, got, n * sizeof *got, &err), G16_OK);
                if (g16__gpu_spmv(g, dout, n, m, wide ? NULL : drp32, wide ? drp64 : NULL, dwords, dc, dw, &err) !=
                    G16_OK)
                    fail_msg("spmv: %s", err.msg);
                assert_int_equal(g16__gpu_download(g, got, dout, n * sizeof *got, &err), G16_OK);
                assert_int_equal(g16__gpu_sync(g, &err), G16_OK);
                if (memcmp(got, want + k * n, n * sizeof *got) != 0)
                    fail_msg("%s demo, matrix %d, %d-bit row pointers: the device's rows differ from the CPU's",
                             cases[c].kind == G16_DEMO_BITS ? "bits" : "field", k, wide ? 64 : 32);
            }
            assert_int_equal(g16__gpu_spmv(g, dout, n, m, drp32, drp64, dwords, dc, dw, &err), G16_ERR_ARG);
            assert_int_equal(g16__gpu_spmv(g, dout, m - 1, m, drp32, NULL, dwords, dc, dw, &err), G16_ERR_ARG);
            g16__gpu_free(g, dwords);
            g16__gpu_free(g, drp32);
            g16__gpu_free(g, drp64);
        }
        if (cases[c].kind == G16_DEMO_FIELD)
            assert_true(with_id > 0); /* the product path ran */
        printf("  %s demo, %zu rows (n = %zu, %llu entries with a coefficient id): device SpMV = CPU for A, B, C, "
               "32- and 64-bit row pointers\n",
               cases[c].kind == G16_DEMO_BITS ? "bits" : "field", m, n, (unsigned long long)with_id);
        if (c == 0) {
            g16__gpu_prover *gp = NULL;
            char line[256];
            if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
                fail_msg("prover: %s", err.msg);
            g16__gpu_prover_describe(gp, line, sizeof line);
            assert_true(g16__gpu_prover_spmv(gp) && g16__gpu_prover_checks(gp));
            assert_int_equal(g16__gpu_prover_prefetch_mode(gp), 1);
            if (!strstr(line, "A/B/C times the witness on the device, next witness prefetched"))
                fail_msg("backend line: '%s'", line);
            g16__gpu_prover_destroy(gp);
            gp = NULL;
            char *saved = env_set("G16_GPU_SPMV", "0");
            if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
                fail_msg("prover: %s", err.msg);
            assert_false(g16__gpu_prover_spmv(gp));
            assert_int_equal(g16__gpu_prover_h(gp, NULL, NULL, NULL, f.w[0], &err), G16_ERR_ARG);
            g16__gpu_prover_destroy(gp);
            gp = NULL;
            setenv("G16_GPU_SPMV", "2", 1);
            assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
            assert_null(gp);
            assert_non_null(strstr(err.msg, "G16_GPU_SPMV"));
            env_restore("G16_GPU_SPMV", saved);
            printf("  prover: SpMV on the device by default ('%s'); G16_GPU_SPMV=0 off, =2 refused\n", line);
        }
        g16__gpu_free(g, dw);
        g16__gpu_free(g, dc);
        g16__gpu_free(g, dout);
        free(want), free(got), free(rp64), free(rp32);
        fixture_free(&f);
    }
    g16__gpu_close(g);
}

/* The device SpMV on synthetic rows that the demos do not have: lengths 0 to 300 entries with every
 * length around the warp threshold (16 and 17 words), long rows of ±1 entries only, of ids only and
 * mixed, ids up to 2^20 (their words have high bits set, never bit 31), a long row first and last;
 * against a schoolbook sum on the CPU field. */
static void test_gpu_spmv_rows(void **state)
{
    (void)state;
    if (!have_device())
        return;
    enum { ROWS = 3000, NW = 5000, NC = (1 << 20) + 7, NOUT = 3100 };
    g16__gpu *g = NULL;
    g16_error err = {0, ""};
    g16_fr *w = malloc(NW * sizeof *w), *coeffs = malloc(NC * sizeof *coeffs), *want = malloc(NOUT * sizeof *want),
           *got = malloc(NOUT * sizeof *got), *dw = NULL, *dc = NULL, *dout = NULL;
    uint64_t *rp = malloc((ROWS + 1) * sizeof *rp);
    size_t cap = (size_t)ROWS * 600 + 1;
    uint32_t *words = malloc(cap * sizeof *words), *dwords = NULL;
    uint64_t *drp = NULL;
    assert_true(w && coeffs && want && got && rp && words);
    for (size_t i = 0; i < NW; i++)
        tu_rand_fr(&w[i]);
    for (size_t i = 0; i < NC; i++)
        tu_rand_fr(&coeffs[i]);
    uint64_t k = 0;
    for (size_t i = 0; i < ROWS; i++) {
        rp[i] = k;
        unsigned mode = (unsigned)(tu_rand64() % 4); /* 0 mixed, 1 ±1 only, 2 ids only, 3 mixed */
        size_t len = i == 0 || i == ROWS - 1 ? 300 : i % 7 == 0 ? (size_t)(tu_rand64() % 301)
                     : i % 5 == 0 ? 8 + (size_t)(tu_rand64() % 12) /* 8..19 entries: 16 and 17 words */
                                  : (size_t)(tu_rand64() % 6);
        g16_fr acc, t;
        g16__fr_set_zero(&acc);
        for (size_t e = 0; e < len; e++) {
            uint32_t col = (uint32_t)(tu_rand64() % NW);
            unsigned kind = mode == 1 ? (unsigned)(tu_rand64() % 2) : mode == 2 ? 2 : (unsigned)(tu_rand64() % 3);
            if (kind == 0) {
                words[k++] = col;
                g16__fr_add(&acc, &acc, &w[col]);
            } else if (kind == 1) {
                words[k++] = col | 0x40000000u;
                g16__fr_sub(&acc, &acc, &w[col]);
            } else {
                uint32_t id = (uint32_t)(tu_rand64() % NC);
                words[k++] = col | 0x80000000u;
                words[k++] = id;
                g16__fr_mul(&t, &w[col], &coeffs[id]);
                g16__fr_add(&acc, &acc, &t);
            }
        }
        want[i] = acc;
    }
    rp[ROWS] = k;
    for (size_t i = ROWS; i < NOUT; i++)
        g16__fr_set_zero(&want[i]);
    if (g16__gpu_open(&g, 0, &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&dw, NW * sizeof *w, "w", &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&dc, NC * sizeof *coeffs, "coeffs", &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&dout, NOUT * sizeof *got, "out", &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&dwords, (k + 1) * sizeof *words, "words", &err) != G16_OK ||
        g16__gpu_alloc(g, (void **)&drp, (ROWS + 1) * sizeof *rp, "rp", &err) != G16_OK)
        fail_msg("setup: %s", err.msg);
    memset(got, 0xa5, NOUT * sizeof *got);
    assert_int_equal(g16__gpu_upload(g, dw, w, NW * sizeof *w, &err), G16_OK);
    assert_int_equal(g16__gpu_upload(g, dc, coeffs, NC * sizeof *coeffs, &err), G16_OK);
    assert_int_equal(g16__gpu_upload(g, dout, got, NOUT * sizeof *got, &err), G16_OK);
    assert_int_equal(g16__gpu_upload(g, dwords, words, k * sizeof *words, &err), G16_OK);
    assert_int_equal(g16__gpu_upload(g, drp, rp, (ROWS + 1) * sizeof *rp, &err), G16_OK);
    if (g16__gpu_spmv(g, dout, NOUT, ROWS, NULL, drp, dwords, dc, dw, &err) != G16_OK)
        fail_msg("spmv: %s", err.msg);
    assert_int_equal(g16__gpu_download(g, got, dout, NOUT * sizeof *got, &err), G16_OK);
    assert_int_equal(g16__gpu_sync(g, &err), G16_OK);
    for (size_t i = 0; i < NOUT; i++)
        if (memcmp(&got[i], &want[i], sizeof *got) != 0)
            fail_msg("synthetic row %zu (%llu words): the device's sum differs from the CPU's", i,
                     i < ROWS ? (unsigned long long)(rp[i + 1] - rp[i]) : 0ull);
    printf("  synthetic rows (0-300 entries, %llu words, ids to 2^20): device SpMV = schoolbook sums\n",
           (unsigned long long)k);
    g16__gpu_free(g, dw), g16__gpu_free(g, dc), g16__gpu_free(g, dout), g16__gpu_free(g, dwords),
        g16__gpu_free(g, drp);
    g16__gpu_close(g);
    free(w), free(coeffs), free(want), free(got), free(rp), free(words);
}

/* The five query sums of witness w with H (host), on the CPU. */
static void cpu_sums(const fixture *f, const g16_fr *w, const g16_fr *h, g16__query_sums *out)
{
    const struct g16_params *p = f->p;
    const struct g16_r1cs *r = f->r;
    size_t cap = p->n_a > p->n_b_g1 ? p->n_a : p->n_b_g1;
    g16_fr *s = malloc((cap + 1) * sizeof *s);
    assert_non_null(s);
    assert_int_equal(g16__p1_msm_var(&out->h, p->h, h, p->n_h, NULL, NULL), G16_OK);
    assert_int_equal(g16__p1_msm_var(&out->l, p->l, w + r->num_inputs, p->n_l, NULL, NULL), G16_OK);
    assert_int_equal(g16__prove_a_scalars(s, r, w), p->n_a);
    assert_int_equal(g16__p1_msm_var(&out->a, p->a, s, p->n_a, NULL, NULL), G16_OK);
    assert_int_equal(g16__prove_b_scalars(s, r, w), p->n_b_g1);
    assert_int_equal(g16__p1_msm_var(&out->b1, p->b_g1, s, p->n_b_g1, NULL, NULL), G16_OK);
    assert_int_equal(g16__p2_msm_var(&out->b2, p->b_g2, s, p->n_b_g2, NULL, NULL), G16_OK);
    free(s);
}

/* The poll of the MSMs in test_gpu_prefetch: prefetches a, b, c (when a is not NULL) each time. */
typedef struct {
    g16__gpu_prover *gp;
    const g16_fr *a, *b, *c;
    int calls;
} poll_state;

static g16_status poll_prefetch(void *ctx, g16_error *err)
{
    poll_state *ps = ctx;
    ps->calls++;
    return ps->a ? g16__gpu_prover_prefetch(ps->gp, ps->a, ps->b, ps->c, NULL, err) : G16_OK;
}

/* One circuit through the prover: the H step from host vectors abc (3n elements; w uploaded with
 * it), H compared with want_h, the MSMs (prefetching next's a, b, c at every poll when next is not
 * NULL) compared with the CPU's sums. */
static void expect_sums(const g16__query_sums *got, const g16__query_sums *want, const char *what)
{
    if (!g16__p1_eq(&got->h, &want->h) || !g16__p1_eq(&got->l, &want->l) || !g16__p1_eq(&got->a, &want->a) ||
        !g16__p1_eq(&got->b1, &want->b1) || !g16__p2_eq(&got->b2, &want->b2))
        fail_msg("%s: query sums differ from the CPU's", what);
}

static void run_circuit(g16__gpu_prover *gp, const fixture *f, const g16_fr *abc, const g16_fr *w,
                        const g16_fr *want_h, const g16__query_sums *want, const g16_fr *next, const char *what)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    g16__query_sums got;
    g16_fr *h = malloc(n * sizeof *h);
    assert_non_null(h);
    if (g16__gpu_prover_h(gp, abc, abc + n, abc + 2 * n, w, &err) != G16_OK)
        fail_msg("%s: H step: %s", what, err.msg);
    memset(h, 0xa5, n * sizeof *h);
    assert_int_equal(g16__gpu_prover_h_download(gp, h, &err), G16_OK);
    if (memcmp(h, want_h, n * sizeof *h) != 0)
        fail_msg("%s: H differs from the CPU's", what);
    poll_state ps = {gp, next, next ? next + n : NULL, next ? next + 2 * n : NULL, 0};
    if (g16__gpu_prover_msms(gp, &got, w, poll_prefetch, &ps, &err) != G16_OK)
        fail_msg("%s: MSMs: %s", what, err.msg);
    assert_int_equal(ps.calls, 5); /* before the first MSM and between the five */
    expect_sums(&got, want, what);
    free(h);
}

static void expect_counts(g16__gpu_prover *gp, uint64_t prefetched, uint64_t used, uint64_t uploaded,
                          const char *what)
{
    uint64_t p = 0, u = 0, up = 0;
    g16__gpu_prover_counts(gp, &p, &u, &up);
    if (p != prefetched || u != used || up != uploaded)
        fail_msg("%s: prefetched %llu, used %llu, uploaded %llu; expected %llu, %llu, %llu", what,
                 (unsigned long long)p, (unsigned long long)u, (unsigned long long)up,
                 (unsigned long long)prefetched, (unsigned long long)used, (unsigned long long)uploaded);
}

/* Three circuits' H step inputs for the prefetch tests: a, b, c in page-locked host vectors (abc[i],
 * 3n elements), the CPU's H (the first n of want_h[i]) and five sums (want[i]); keep: 3n of scratch. */
typedef struct {
    g16_fr *abc[3], *want_h[3], *keep;
    g16__query_sums want[3];
} three_circuits;

static void three_make(three_circuits *t, const fixture *f)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    g16__ntt_domain *dom = NULL;
    t->keep = malloc(3 * n * sizeof(g16_fr));
    assert_non_null(t->keep);
    assert_int_equal(g16__ntt_domain_create(&dom, f->r->log_n, g16__params_root_generator(f->p), NULL, &err), G16_OK);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(g16__gpu_host_alloc((void **)&t->abc[i], 3 * n * sizeof(g16_fr), &err), G16_OK);
        g16_fr *abc = t->abc[i];
        t->want_h[i] = malloc(3 * n * sizeof(g16_fr));
        assert_non_null(t->want_h[i]);
        assert_int_equal(g16_r1cs_eval(f->r, f->w[i], f->w_len, abc, abc + n, abc + 2 * n, n, &err), G16_OK);
        memcpy(t->want_h[i], abc, 3 * n * sizeof(g16_fr));
        g16__ntt_groth16_h(dom, t->want_h[i], t->want_h[i] + n, t->want_h[i] + 2 * n);
        cpu_sums(f, f->w[i], t->want_h[i], &t->want[i]);
    }
    g16__ntt_domain_destroy(dom);
}

static void three_free(three_circuits *t)
{
    for (int i = 0; i < 3; i++) {
        g16__gpu_host_free(t->abc[i]);
        free(t->want_h[i]);
    }
    free(t->keep);
}

/* The prefetch at the prover's level, on three circuits in page-locked host vectors: taken by the
 * H step of the same pointers (the two device sets swapping roles, H and all five sums right each
 * time, so the compacted a/b scalars follow the current set), kept across an H step of other
 * pointers, replaced by a newer one, forgotten by release_host (the host vectors then rewritten:
 * the H step must upload the new values, not the stale copy) and by cancel, left pending at
 * destroy; off with G16_GPU_PREFETCH=0 and when streaming; a bad knob refused. */
static void test_gpu_prefetch(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 5000, 3);
    three_make(&t, &f);
    size_t n = f.r->n;
    g16_fr **abc = t.abc, **want_h = t.want_h, *keep = t.keep;
    const g16__query_sums *want = t.want;
    assert_true(memcmp(want_h[0], want_h[1], n * sizeof(g16_fr)) != 0); /* the circuits differ */

    char *saved_spmv = env_set("G16_GPU_SPMV", "0"); /* with the SpMV on the device nothing is prefetched */
    char *saved = env_set("G16_GPU_PREFETCH", "1");
    g16__gpu_prover *gp = NULL;
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover: %s", err.msg);
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), 1);
    run_circuit(gp, &f, abc[0], f.w[0], want_h[0], &want[0], abc[1], "circuit 0 (uploads, prefetches 1)");
    expect_counts(gp, 1, 0, 1, "after circuit 0");
    run_circuit(gp, &f, abc[1], f.w[1], want_h[1], &want[1], abc[2], "circuit 1 (prefetched)");
    run_circuit(gp, &f, abc[2], f.w[2], want_h[2], &want[2], abc[0], "circuit 2 (prefetched)");
    expect_counts(gp, 3, 2, 1, "after circuits 1, 2");
    /* 0 is pending; an H step of other pointers uploads and leaves it pending */
    run_circuit(gp, &f, abc[1], f.w[1], want_h[1], &want[1], abc[0], "circuit 1 again (0 pending)");
    expect_counts(gp, 3, 2, 2, "after circuit 1 again");
    run_circuit(gp, &f, abc[0], f.w[0], want_h[0], &want[0], NULL, "circuit 0 (prefetched earlier)");
    expect_counts(gp, 3, 3, 2, "after circuit 0 again");
    /* released, then rewritten with circuit 2's vectors: the H step must see the new values */
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_release_host(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
    memcpy(keep, abc[1], 3 * n * sizeof(g16_fr));
    memcpy(abc[1], abc[2], 3 * n * sizeof(g16_fr));
    run_circuit(gp, &f, abc[1], f.w[2], want_h[2], &want[2], NULL, "slot 1 rewritten after release");
    memcpy(abc[1], keep, 3 * n * sizeof(g16_fr));
    expect_counts(gp, 4, 3, 3, "after the release");
    /* cancelled: uploads */
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[0], abc[0] + n, abc[0] + 2 * n, NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_prefetch_cancel(gp, &err), G16_OK);
    run_circuit(gp, &f, abc[0], f.w[0], want_h[0], &want[0], NULL, "circuit 0 after cancel");
    expect_counts(gp, 5, 3, 4, "after the cancel");
    /* replaced by a newer prefetch; releasing other vectors keeps it */
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[0], abc[0] + n, abc[0] + 2 * n, NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[2], abc[2] + n, abc[2] + 2 * n, NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_release_host(gp, abc[0], abc[0] + n, abc[0] + 2 * n, NULL, &err), G16_OK);
    run_circuit(gp, &f, abc[0], f.w[0], want_h[0], &want[0], NULL, "circuit 0 (replaced prefetch)");
    run_circuit(gp, &f, abc[2], f.w[2], want_h[2], &want[2], NULL, "circuit 2 (newer prefetch)");
    expect_counts(gp, 7, 4, 5, "after the replacement");
    /* left pending at destroy: harmless */
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
    g16__gpu_prover_destroy(gp);
    gp = NULL;

    /* off: the prefetch is a no-op, every H step uploads */
    env_restore("G16_GPU_PREFETCH", saved);
    saved = env_set("G16_GPU_PREFETCH", "0");
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover (prefetch off): %s", err.msg);
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), 0);
    run_circuit(gp, &f, abc[0], f.w[0], want_h[0], &want[0], abc[1], "prefetch off: circuit 0");
    run_circuit(gp, &f, abc[1], f.w[1], want_h[1], &want[1], NULL, "prefetch off: circuit 1");
    expect_counts(gp, 0, 0, 2, "prefetch off");
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    env_restore("G16_GPU_PREFETCH", saved);

    /* streaming keeps today's behaviour; a bad knob is refused */
    char *saved_stream = env_set("G16_GPU_STREAM", "1");
    saved = env_set("G16_GPU_PREFETCH", "1");
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover (streaming): %s", err.msg);
    assert_int_equal(g16__gpu_prover_resident(gp), 0);
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), 0);
    run_circuit(gp, &f, abc[2], f.w[2], want_h[2], &want[2], abc[0], "streaming: circuit 2");
    expect_counts(gp, 0, 0, 1, "streaming");
    {
        /* the queries' memory page-locked, also for a second prover of the same parameters (one
         * registration per range, counted), and again after both let go. The small parameter
         * set's queries may share pages: registered one by one, CUDA refused the second (seen
         * under compute-sanitizer) and the provers ran from pageable memory. */
        g16__gpu_prover *gp2 = NULL;
        char d1[256], d2[256];
        if (g16__gpu_prover_create(&gp2, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("second streaming prover: %s", err.msg);
        g16__gpu_prover_describe(gp, d1, sizeof d1);
        g16__gpu_prover_describe(gp2, d2, sizeof d2);
        if (!strstr(d1, "from page-locked host memory") || !strstr(d2, "from page-locked host memory"))
            fail_msg("streaming provers: '%s' / '%s'", d1, d2);
        g16__gpu_prover_destroy(gp);
        g16__gpu_prover_destroy(gp2);
        gp = gp2 = NULL;
        if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("streaming prover again: %s", err.msg);
        g16__gpu_prover_describe(gp, d1, sizeof d1);
        if (!strstr(d1, "from page-locked host memory"))
            fail_msg("streaming prover again: '%s'", d1);
        run_circuit(gp, &f, abc[1], f.w[1], want_h[1], &want[1], NULL, "streaming again: circuit 1");
    }
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    env_restore("G16_GPU_STREAM", saved_stream);
    env_restore("G16_GPU_PREFETCH", saved);
    saved = env_set("G16_GPU_PREFETCH", "2");
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
    assert_null(gp);
    assert_non_null(strstr(err.msg, "G16_GPU_PREFETCH"));
    env_restore("G16_GPU_PREFETCH", saved);
    env_restore("G16_GPU_SPMV", saved_spmv);
    printf("  prefetch of a/b/c: taken (buffers swapped), kept, replaced, released, cancelled, left at destroy; "
           "off and streaming upload (page-locked, two provers); H and sums = CPU each time\n");
    three_free(&t);
    fixture_free(&f);
}

/* The a slot (prove_gpu.h, G16_GPU_PREFETCH=a; chosen by itself when the spare set does not fit):
 * through the prover calls, on three circuits in page-locked host vectors. A prefetch while the H
 * is on the device is a no-op (msm.h still reads the first vector); after msm.h the polls copy the
 * next a, which the next H step of the same a takes (its b and c uploaded as usual), an H step of
 * another a waits for the copy and uploads its own; release_host forgets it (the host vector then
 * rewritten: the H step must see the new values); H and the five sums equal the CPU's each time.
 * With the SpMV on the device the mode is refused with a note. */
static void test_gpu_prefetch_a(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 5000, 3);
    three_make(&t, &f);
    size_t n = f.r->n;
    g16_fr **abc = t.abc, **want_h = t.want_h, *keep = t.keep;
    const g16__query_sums *want = t.want;
    char desc[512];
    char *saved_spmv = env_set("G16_GPU_SPMV", "0");
    char *saved = env_set("G16_GPU_PREFETCH", "a");
    char *saved3 = env_set("G16_GPU_A_SLOT3", "0"); /* (the first vector alone; the third: test_gpu_a_slot3) */
    g16__gpu_prover *gp = NULL;
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover: %s", err.msg);
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), G16__GPU_PF_A);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  %s\n", desc);
    assert_non_null(strstr(desc, "next circuit's a copied during the witness MSMs"));
    /* the polls before msm.h are no-ops, the one after it copies abc[1]'s a */
    run_circuit(gp, &f, abc[0], f.w[0], want_h[0], &want[0], abc[1], "circuit 0 (uploads, copies the next a)");
    expect_counts(gp, 1, 0, 1, "after circuit 0");
    run_circuit(gp, &f, abc[1], f.w[1], want_h[1], &want[1], abc[2], "circuit 1 (a from the slot)");
    run_circuit(gp, &f, abc[2], f.w[2], want_h[2], &want[2], abc[0], "circuit 2 (a from the slot)");
    expect_counts(gp, 3, 2, 1, "after circuits 1, 2");
    /* abc[0]'s a is in the slot; an H step of another a waits for that copy and uploads */
    run_circuit(gp, &f, abc[1], f.w[1], want_h[1], &want[1], NULL, "circuit 1 again (another a in the slot)");
    expect_counts(gp, 3, 2, 2, "after circuit 1 again");
    /* between the H step and msm.h: no copy (the first vector holds H) */
    assert_int_equal(g16__gpu_prover_h(gp, abc[2], abc[2] + n, abc[2] + 2 * n, f.w[2], &err), G16_OK);
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[0], abc[0] + n, abc[0] + 2 * n, NULL, &err), G16_OK);
    expect_counts(gp, 3, 2, 3, "a prefetch while H is on the device");
    {
        g16__query_sums got;
        if (g16__gpu_prover_msms(gp, &got, f.w[2], NULL, NULL, &err) != G16_OK)
            fail_msg("circuit 2 again: MSMs: %s", err.msg);
        if (!g16__p1_eq(&got.h, &want[2].h) || !g16__p1_eq(&got.l, &want[2].l) || !g16__p2_eq(&got.b2, &want[2].b2))
            fail_msg("circuit 2 again: the sums differ from the CPU's");
    }
    /* copied, released, rewritten with circuit 2's vectors: the H step must upload the new a */
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
    expect_counts(gp, 4, 2, 3, "a copied after msm.h");
    assert_int_equal(g16__gpu_prover_release_host(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
    memcpy(keep, abc[1], 3 * n * sizeof(g16_fr));
    memcpy(abc[1], abc[2], 3 * n * sizeof(g16_fr));
    run_circuit(gp, &f, abc[1], f.w[2], want_h[2], &want[2], NULL, "slot 1 rewritten after release");
    memcpy(abc[1], keep, 3 * n * sizeof(g16_fr));
    expect_counts(gp, 4, 2, 4, "after the release");
    /* left pending at destroy: harmless */
    assert_int_equal(g16__gpu_prover_prefetch(gp, abc[0], abc[0] + n, abc[0] + 2 * n, NULL, &err), G16_OK);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    /* with the SpMV on the device there is nothing to copy: off, and the note says why */
    env_restore("G16_GPU_SPMV", saved_spmv);
    saved_spmv = env_set("G16_GPU_SPMV", "1");
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover (SpMV): %s", err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    if (g16__gpu_prover_spmv(gp)) {
        assert_int_equal(g16__gpu_prover_prefetch_mode(gp), G16__GPU_PF_OFF);
        assert_non_null(strstr(desc, "no a prefetch"));
    }
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    env_restore("G16_GPU_A_SLOT3", saved3);
    env_restore("G16_GPU_PREFETCH", saved);
    env_restore("G16_GPU_SPMV", saved_spmv);
    printf("  a slot: copied after msm.h only, taken, waited for under another a, released, left at destroy; "
           "H and sums = CPU each time\n");
    three_free(&t);
    fixture_free(&f);
}

/* One prover through three circuits with the a slot in the first and third vectors (keep: c formed
 * as a·b, not read), as test_gpu_a_slot3 says. */
static void a_slot3_run(const fixture *f, const three_circuits *t, int keep)
{
    size_t n = f->r->n;
    g16_fr *const *abc = t->abc;
    g16_error err = {0, ""};
    char desc[512];
    g16__gpu_prover *gp = NULL;
    if (g16__gpu_prover_create(&gp, 0, f->p, f->r, &err) != G16_OK)
        fail_msg("gpu prover: %s", err.msg);
    g16__gpu_prover_set_c_from_ab(gp, keep);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  %s\n", desc);
    assert_non_null(strstr(desc, "next circuit's a copied once ready (the first and third vectors take turns)"));
    assert_int_equal(g16__gpu_prover_prefetch_early(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
    expect_counts(gp, 0, 0, 0, "prefetch_early before any H step");
    /* circuit 0: uploads; its H in the first vector, circuit 1's a into the third meanwhile */
    assert_int_equal(g16__gpu_prover_h(gp, abc[0], abc[0] + n, abc[0] + 2 * n, f->w[0], &err), G16_OK);
    assert_int_equal(g16__gpu_prover_prefetch_early(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
    expect_counts(gp, 1, 0, 1, "prefetch_early while circuit 0's H waits for msm.h");
    for (int i = 0; i < 3; i++) {
        g16__query_sums got;
        if (i > 0 && g16__gpu_prover_h(gp, abc[i], abc[i] + n, abc[i] + 2 * n, f->w[i], &err) != G16_OK)
            fail_msg("circuit %d: H step: %s", i, err.msg);
        g16_fr *h = malloc(n * sizeof *h);
        assert_non_null(h);
        memset(h, 0xa5, n * sizeof *h);
        assert_int_equal(g16__gpu_prover_h_download(gp, h, &err), G16_OK);
        if (memcmp(h, t->want_h[i], n * sizeof *h) != 0)
            fail_msg("keep %d, circuit %d: H differs from the CPU's", keep, i);
        free(h);
        if (i == 1) { /* its H in the third vector: a poll before msm.h copies circuit 2's a into the first */
            assert_int_equal(g16__gpu_prover_prefetch(gp, abc[2], abc[2] + n, abc[2] + 2 * n, NULL, &err), G16_OK);
            expect_counts(gp, 2, 1, 1, "a poll before circuit 1's msm.h");
        }
        if (g16__gpu_prover_msms(gp, &got, f->w[i], NULL, NULL, &err) != G16_OK)
            fail_msg("keep %d, circuit %d: MSMs: %s", keep, i, err.msg);
        char what[64];
        snprintf(what, sizeof what, "keep %d, circuit %d", keep, i);
        expect_sums(&got, &t->want[i], what);
    }
    expect_counts(gp, 2, 2, 1, "after three circuits");
    assert_int_equal(g16__gpu_prover_c_formed(gp), keep ? 3u : 0u);
    g16__gpu_prover_destroy(gp);
}

/* The synth thread's side of a_slot3_stress: offers the next circuit's a until told to stop. */
typedef struct {
    g16__gpu_prover *gp;
    const three_circuits *t;
    size_t n;
    int next; /* atomic: the circuit whose a to offer */
    int stop; /* atomic */
} offer_ctx;

static void *offer_main(void *arg)
{
    offer_ctx *o = arg;
    while (!__atomic_load_n(&o->stop, __ATOMIC_ACQUIRE)) {
        const g16_fr *a = o->t->abc[__atomic_load_n(&o->next, __ATOMIC_ACQUIRE)];
        if (g16__gpu_prover_prefetch_early(o->gp, a, a + o->n, a + 2 * o->n, NULL, NULL) != G16_OK)
            break;
    }
    return NULL;
}

/* Another thread offers the next circuit's a (prefetch_early) all the time while this one runs
 * nine circuits: no copy may land in a vector an H step uses (the fake GPU's race check), and
 * every H and sum stays the CPU's. */
static void a_slot3_stress(const fixture *f, const three_circuits *t)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    offer_ctx o = {NULL, t, n, 0, 0};
    if (g16__gpu_prover_create(&o.gp, 0, f->p, f->r, &err) != G16_OK)
        fail_msg("gpu prover: %s", err.msg);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, offer_main, &o), 0);
    for (int k = 0; k < 9; k++) {
        int i = k % 3;
        __atomic_store_n(&o.next, (i + 1) % 3, __ATOMIC_RELEASE);
        run_circuit(o.gp, f, t->abc[i], f->w[i], t->want_h[i], &t->want[i], NULL, "a offered all the time");
    }
    __atomic_store_n(&o.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    uint64_t issued = 0, used = 0;
    g16__gpu_prover_counts(o.gp, &issued, &used, NULL);
    printf("  a offered by another thread all the time: %llu copies, %llu taken over 9 circuits; H and sums = "
           "CPU\n", (unsigned long long)issued, (unsigned long long)used);
    assert_true(used >= 1);
    g16__gpu_prover_destroy(o.gp);
}

/* The a slot in the first and third vectors (all five resident, the compacted scalars in the
 * second): once an H step has left H in the first, the synth thread's prefetch_early copies the
 * next a into the third (none before the first H step), the next H step takes it there and leaves
 * its H there (H and sums the CPU's, c read or formed); a poll before that circuit's msm.h then
 * copies the next a into the first, which the step after takes; the same with another thread
 * offering the next a all the time. G16_GPU_A_SLOT3 takes 0 or 1 only. */
static void test_gpu_a_slot3(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 5000, 3);
    three_make(&t, &f);
    char *saved_spmv = env_set("G16_GPU_SPMV", "0"), *saved = env_set("G16_GPU_PREFETCH", "a");
    char *saved3 = env_set("G16_GPU_A_SLOT3", "third");
    g16__gpu_prover *gp = NULL;
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "G16_GPU_A_SLOT3"));
    assert_null(gp);
    setenv("G16_GPU_A_SLOT3", "1", 1);
    a_slot3_run(&f, &t, 0);
    a_slot3_run(&f, &t, 1);
    a_slot3_stress(&f, &t);
    env_restore("G16_GPU_A_SLOT3", saved3);
    env_restore("G16_GPU_PREFETCH", saved);
    env_restore("G16_GPU_SPMV", saved_spmv);
    printf("  a slot in two vectors: the second circuit's a copied while the first's H waits for msm.h, the "
           "third's before the second's msm.h; H and sums = CPU, c read or formed\n");
    three_free(&t);
    fixture_free(&f);
}

/* The poll of test_gpu_prefetch_a_partial: prefetches next's a at every poll and notes the first
 * poll (0: before msm.h, 1 before msm.l, ... 4 before msm.b_g2) after which the prover counts a
 * prefetch more than before the MSMs. */
typedef struct {
    g16__gpu_prover *gp;
    const g16_fr *a, *b, *c;
    int calls, first_copy;
    uint64_t before;
} poll_where;

static g16_status poll_note(void *ctx, g16_error *err)
{
    poll_where *pw = ctx;
    uint64_t p = 0;
    g16_status st = g16__gpu_prover_prefetch(pw->gp, pw->a, pw->b, pw->c, NULL, err);
    g16__gpu_prover_counts(pw->gp, &p, NULL, NULL);
    if (pw->first_copy < 0 && p > pw->before)
        pw->first_copy = pw->calls;
    pw->calls++;
    return st;
}

/* The a slot in the partial plan (G16_GPU_RESIDENT names the set): with b_g1 and b_g2 resident
 * and h, l, a streamed, the next a is copied at the poll before msm.b_g1 (the first MSM after the
 * streamed ones), not after msm.h as with all five resident; the next H step takes it; H and the
 * sums are the CPU's. With b_g2 streamed there is no a slot (G16_GPU_PREFETCH=a says why). The
 * whole pipeline with it gives the CPU's proofs. */
static void test_gpu_prefetch_a_partial(void **state)
{
    (void)state;
    if (!have_device())
        return;
    static const struct {
        const char *resident;
        int first_copy;
    } cases[] = {{"h,l,a,b_g1,b_g2", 1}, {"b_g1,b_g2", 3}, {"l,b_g2", 4}};
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    char desc[512];
    fixture_make(&f, G16_DEMO_BITS, 5000, 3);
    three_make(&t, &f);
    size_t n = f.r->n;
    char *saved_spmv = env_set("G16_GPU_SPMV", "0"), *saved_res = env_set("G16_GPU_RESIDENT", "");
    char *saved_pf = env_set("G16_GPU_PREFETCH", "a"); /* (all five resident: else the spare set) */
    char *saved_pair = env_set("G16_GPU_PAIR", "0");     /* (witness MSMs in pairs take the slot's vector) */
    char *saved3 = env_set("G16_GPU_A_SLOT3", "0"); /* (the first vector's rule; the third's: test_gpu_a_slot3) */
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        g16__gpu_prover *gp = NULL;
        setenv("G16_GPU_RESIDENT", cases[k].resident, 1);
        if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("gpu prover, %s resident: %s", cases[k].resident, err.msg);
        g16__gpu_prover_describe(gp, desc, sizeof desc);
        printf("  %s resident: %s\n", cases[k].resident, desc);
        assert_int_equal(g16__gpu_prover_prefetch_mode(gp), G16__GPU_PF_A);
        assert_non_null(strstr(desc, "next circuit's a copied during the witness MSMs"));
        for (int i = 0; i < 3; i++) {
            g16__query_sums got;
            g16_fr *h = malloc(n * sizeof *h), *next = t.abc[(i + 1) % 3];
            assert_non_null(h);
            poll_where pw = {gp, next, next + n, next + 2 * n, 0, -1, 0};
            g16__gpu_prover_counts(gp, &pw.before, NULL, NULL);
            if (g16__gpu_prover_h(gp, t.abc[i], t.abc[i] + n, t.abc[i] + 2 * n, f.w[i], &err) != G16_OK)
                fail_msg("%s resident, circuit %d: H step: %s", cases[k].resident, i, err.msg);
            assert_int_equal(g16__gpu_prover_h_download(gp, h, &err), G16_OK);
            if (memcmp(h, t.want_h[i], n * sizeof *h) != 0)
                fail_msg("%s resident, circuit %d: H differs from the CPU's", cases[k].resident, i);
            if (g16__gpu_prover_msms(gp, &got, f.w[i], poll_note, &pw, &err) != G16_OK)
                fail_msg("%s resident, circuit %d: MSMs: %s", cases[k].resident, i, err.msg);
            if (!g16__p1_eq(&got.h, &t.want[i].h) || !g16__p1_eq(&got.l, &t.want[i].l) ||
                !g16__p1_eq(&got.a, &t.want[i].a) || !g16__p1_eq(&got.b1, &t.want[i].b1) ||
                !g16__p2_eq(&got.b2, &t.want[i].b2))
                fail_msg("%s resident, circuit %d: the sums differ from the CPU's", cases[k].resident, i);
            if (pw.first_copy != cases[k].first_copy)
                fail_msg("%s resident, circuit %d: the next a copied at poll %d, expected %d", cases[k].resident, i,
                         pw.first_copy, cases[k].first_copy);
            free(h);
        }
        /* three copies, the second and third circuits' H steps took theirs, one upload (the first) */
        expect_counts(gp, 3, 2, 1, cases[k].resident);
        g16__gpu_prover_destroy(gp);
    }
    /* b_g2 streamed: no a slot, and with G16_GPU_PREFETCH=a the backend line says why */
    setenv("G16_GPU_RESIDENT", "h,l,a,b_g1", 1);
    g16__gpu_prover *gp = NULL;
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover, b_g2 streamed: %s", err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  h, l, a, b_g1 resident: %s\n", desc);
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), G16__GPU_PF_OFF);
    assert_non_null(strstr(desc, "no a prefetch (it needs the last witness queries resident"));
    g16__gpu_prover_destroy(gp);
    /* with witness MSMs in pairs (the default where a witness query is streamed) no a slot either */
    setenv("G16_GPU_RESIDENT", "b_g1,b_g2", 1);
    unsetenv("G16_GPU_PAIR");
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover, b_g1 and b_g2 resident, pairs: %s", err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  b_g1, b_g2 resident, pairs allowed: %s\n", desc);
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), G16__GPU_PF_OFF);
    assert_true(g16__gpu_prover_pairs(gp));
    assert_non_null(strstr(desc, "no a prefetch (witness MSMs in pairs)"));
    g16__gpu_prover_destroy(gp);
    setenv("G16_GPU_PAIR", "0", 1);
    env_restore("G16_GPU_PREFETCH", saved_pf); /* the default takes the a slot in the partial plan */
    /* the pipeline with the a slot in the partial plan: the CPU's proofs */
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_non_null(cpu);
    assert_non_null(gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    setenv("G16_GPU_RESIDENT", "b_g1,b_g2", 1);
    g16_status st = traced_prove(&f, gpu, "0", &err);
    /* (how many the polls copy depends on the synth thread's pace: reported, not required) */
    uint64_t issued = span_count("prove/prove.circuit/gpu.prefetch_a");
    uint64_t taken = span_count("prove/prove.circuit/ntt.h.gpu/gpu.wait_prefetch");
    g16__trace_reset();
    if (st != G16_OK)
        fail_msg("proofs, b_g1 and b_g2 resident, the a slot: %s", err.msg);
    expect_same_proofs(cpu, gpu, f.count, "b_g1 and b_g2 resident, the a slot");
    printf("  the pipeline, b_g1 and b_g2 resident: %llu a copies issued by the polls, %llu taken\n",
           (unsigned long long)issued, (unsigned long long)taken);
    assert_true(taken <= issued);
    free(cpu);
    free(gpu);
    env_restore("G16_GPU_A_SLOT3", saved3);
    env_restore("G16_GPU_PAIR", saved_pair);
    env_restore("G16_GPU_RESIDENT", saved_res);
    env_restore("G16_GPU_SPMV", saved_spmv);
    three_free(&t);
    fixture_free(&f);
}

#ifdef G16_FAKE_GPU
/* A wait for a prefetch's copies that fails while the context stays usable (the fake injects such a
 * failure; on CUDA most are sticky): the error reaches the caller, the prefetch is forgotten, and no
 * copy from the caller's host buffers is left in flight when the error returns -- the caller may
 * rewrite them next. Three waits: release_host's, a prefetch's of the previous one, and the H
 * step's taking it. After each, the circuit's H step uploads afresh and gives the CPU's sums. */
static void expect_failed_wait(g16_status st, const g16_error *err, const char *what)
{
    g16__fake_gpu_fail_at(0);
    if (st != G16_ERR_DEVICE || !strstr(err->msg, "injected failure"))
        fail_msg("%s: status %d, '%s' (expected the injected failure)", what, (int)st, err->msg);
    if (g16__fake_gpu_held() != 0)
        fail_msg("%s: %zu copies from the host buffers still in flight after the error", what, g16__fake_gpu_held());
}

static void test_gpu_prefetch_failed_wait(void **state)
{
    (void)state;
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 600, 3);
    three_make(&t, &f);
    size_t n = f.r->n;
    g16_fr **abc = t.abc;
    char *saved_spmv = env_set("G16_GPU_SPMV", "0");
    char *saved = env_set("G16_GPU_PREFETCH", "a");
    g16__gpu_prover *gp = NULL;
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover: %s", err.msg);
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), G16__GPU_PF_A);
    run_circuit(gp, &f, abc[0], f.w[0], t.want_h[0], &t.want[0], abc[1], "circuit 0 (copies circuit 1's a)");
    expect_counts(gp, 1, 0, 1, "after circuit 0");
    assert_true(g16__fake_gpu_held() > 0); /* (held back until something waits for it) */
    g16__fake_gpu_fail_at(1);
    expect_failed_wait(g16__gpu_prover_release_host(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), &err,
                       "release_host");
    memcpy(t.keep, abc[1], 3 * n * sizeof(g16_fr)); /* rewritten: the old copy must not be taken */
    memcpy(abc[1], abc[2], 3 * n * sizeof(g16_fr));
    run_circuit(gp, &f, abc[1], f.w[2], t.want_h[2], &t.want[2], abc[0], "circuit 2 in slot 1 (copies circuit 0's a)");
    memcpy(abc[1], t.keep, 3 * n * sizeof(g16_fr));
    expect_counts(gp, 2, 0, 2, "after the failed release");
    assert_true(g16__fake_gpu_held() > 0);
    g16__fake_gpu_fail_at(1);
    expect_failed_wait(g16__gpu_prover_prefetch(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), &err,
                       "a prefetch of circuit 1 over circuit 0's");
    run_circuit(gp, &f, abc[0], f.w[0], t.want_h[0], &t.want[0], abc[2], "circuit 0 (copies circuit 2's a)");
    expect_counts(gp, 3, 0, 3, "after the failed prefetch");
    g16__fake_gpu_fail_at(1);
    expect_failed_wait(g16__gpu_prover_h(gp, abc[2], abc[2] + n, abc[2] + 2 * n, f.w[2], &err), &err,
                       "the H step taking circuit 2's a");
    run_circuit(gp, &f, abc[2], f.w[2], t.want_h[2], &t.want[2], NULL, "circuit 2 after the failed take");
    expect_counts(gp, 3, 0, 4, "after the failed take");
    g16__gpu_prover_destroy(gp);
    env_restore("G16_GPU_PREFETCH", saved);
    env_restore("G16_GPU_SPMV", saved_spmv);
    printf("  failed waits (release, prefetch, take): the error returned, no copy left in flight, the next H "
           "steps upload and give the CPU's sums\n");
    three_free(&t);
    fixture_free(&f);
}
#endif

/* The side copies the fake GPU holds back (none known on a real card). */
static void expect_w_pending(size_t want, const char *what)
{
#ifdef G16_FAKE_GPU
    if (g16__fake_gpu_held() != want)
        fail_msg("%s: %zu side copies in flight, expected %zu", what, g16__fake_gpu_held(), want);
#else
    (void)want;
    (void)what;
#endif
}

/* The H step's witness copy left running (G16_GPU_W_LATE, default 1, where the h query is
 * resident): with a, b, c from the host one at a time (no prefetch, no SpMV) the step returns with
 * the copy still pending (the fake GPU holds it back until something waits), the MSMs wait for it
 * and give the CPU's sums; msm_h, drop_h, release_host and the next H step wait for it too, so
 * that the caller may rewrite w after each (the next circuit's sums are right). =0, or the h query
 * streamed: the step waits for the copy, none pending after it; a value other than 0 or 1 is
 * refused at creation. */
static void test_gpu_witness_late(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 600, 3);
    three_make(&t, &f);
    size_t n = f.r->n, nw = f.w_len;
    g16_fr **abc = t.abc, *w_keep = malloc(nw * sizeof *w_keep);
    assert_non_null(w_keep);
    char *s_spmv = env_set("G16_GPU_SPMV", "0"), *s_pf = env_set("G16_GPU_PREFETCH", "0");
    char *s_late = env_set("G16_GPU_W_LATE", "later");
    g16__gpu_prover *gp = NULL;
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "G16_GPU_W_LATE"));
    assert_null(gp);
    for (int late = 1; late >= 0; late--) {
        setenv("G16_GPU_W_LATE", late ? "1" : "0", 1);
        if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("gpu prover: %s", err.msg);
        for (int i = 0; i < 3; i++) {
            assert_int_equal(g16__gpu_prover_h(gp, abc[i], abc[i] + n, abc[i] + 2 * n, f.w[i], &err), G16_OK);
            expect_w_pending((size_t)late, "after the H step");
            g16__query_sums got;
            assert_int_equal(g16__gpu_prover_msms(gp, &got, f.w[i], NULL, NULL, &err), G16_OK);
            expect_w_pending(0, "after the MSMs");
            char what[64];
            snprintf(what, sizeof what, "G16_GPU_W_LATE=%d, circuit %d", late, i);
            expect_sums(&got, &t.want[i], what);
        }
        assert_int_equal(g16__gpu_prover_w_late_count(gp), late ? 3u : 0u);
        /* a proof that ends after its H step: drop_h or release_host waits, then w is rewritten
         * (circuit 1's witness in circuit 0's buffer) and proved; or the next H step waits; or
         * msm.h alone does */
        for (int how = 0; how < 4; how++) {
            memcpy(w_keep, f.w[0], nw * sizeof *w_keep);
            assert_int_equal(g16__gpu_prover_h(gp, abc[0], abc[0] + n, abc[0] + 2 * n, f.w[0], &err), G16_OK);
            expect_w_pending((size_t)late, "after the H step");
            if (how == 3) { /* msm.h alone (its witness MSMs ran early): the copy is not needed */
                g16_p1 hsum;
                assert_int_equal(g16__gpu_prover_msm_h(gp, &hsum, NULL, NULL, &err), G16_OK);
                expect_w_pending(0, "after msm_h");
                if (!g16__p1_eq(&hsum, &t.want[0].h))
                    fail_msg("G16_GPU_W_LATE=%d: msm.h alone differs from the CPU's", late);
                continue;
            }
            if (how == 1)
                assert_int_equal(g16__gpu_prover_release_host(gp, abc[0], abc[0] + n, abc[0] + 2 * n, f.w[0], &err),
                                 G16_OK);
            else if (how == 0)
                g16__gpu_prover_drop_h(gp);
            if (how == 2) {
                run_circuit(gp, &f, abc[1], f.w[1], t.want_h[1], &t.want[1], NULL, "after the next H step");
                continue;
            }
            expect_w_pending(0, how ? "after release_host" : "after drop_h");
            g16__gpu_prover_drop_h(gp);
            memcpy(f.w[0], f.w[1], nw * sizeof *w_keep);
            run_circuit(gp, &f, abc[1], f.w[0], t.want_h[1], &t.want[1], NULL,
                        how ? "rewritten after release_host" : "rewritten after drop_h");
            memcpy(f.w[0], w_keep, nw * sizeof *w_keep);
        }
        g16__gpu_prover_destroy(gp);
        gp = NULL;
    }
    /* the h query streamed (its chunks would queue behind the copy during msm.h): the step waits */
    setenv("G16_GPU_W_LATE", "1", 1);
    char *s_res = env_set("G16_GPU_RESIDENT", "b_g2");
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("gpu prover (h streamed): %s", err.msg);
    assert_int_equal(g16__gpu_prover_h(gp, abc[2], abc[2] + n, abc[2] + 2 * n, f.w[2], &err), G16_OK);
    expect_w_pending(0, "after the H step, h streamed");
    g16__query_sums got;
    assert_int_equal(g16__gpu_prover_msms(gp, &got, f.w[2], NULL, NULL, &err), G16_OK);
    expect_sums(&got, &t.want[2], "h streamed");
    assert_int_equal(g16__gpu_prover_w_late_count(gp), 0u);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    env_restore("G16_GPU_RESIDENT", s_res);
    printf("  the H step's witness copy left running: pending after the step, waited for by the MSMs, "
           "msm_h, drop_h, release_host and the next H step; the CPU's sums; =0, or h streamed: waited for in "
           "the step\n");
    env_restore("G16_GPU_W_LATE", s_late);
    env_restore("G16_GPU_PREFETCH", s_pf);
    env_restore("G16_GPU_SPMV", s_spmv);
    free(w_keep);
    three_free(&t);
    fixture_free(&f);
}

static uint64_t span_count(const char *path)
{
    g16__trace_stat st;
    return g16__trace_query(path, &st) == G16_OK ? st.count : 0;
}

/* The first row i with a_i·b_i != c_i of witness w (host), or UINT64_MAX. */
static uint64_t first_bad_row(const fixture *f, const g16_fr *w)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    g16_fr *abc = malloc(3 * n * sizeof *abc), t;
    uint64_t bad = UINT64_MAX;
    assert_non_null(abc);
    assert_int_equal(g16_r1cs_eval(f->r, w, f->w_len, abc, abc + n, abc + 2 * n, n, &err), G16_OK);
    for (uint64_t i = 0; i < f->r->num_constraints && bad == UINT64_MAX; i++) {
        g16__fr_mul(&t, &abc[i], &abc[n + i]);
        if (memcmp(&t, &abc[2 * n + i], sizeof t) != 0)
            bad = i;
    }
    free(abc);
    return bad;
}

/* The transient SpMV's H step for witness w (given, or left by msms_w when NULL) against the CPU's
 * H (want_h) and, unless skipped, the MSMs against the CPU's sums; the device's row verdict. */
static uint64_t spmv_first_step(g16__gpu_prover *gp, const fixture *f, const g16_fr *w, const g16_fr *want_h,
                                const g16__query_sums *want, const char *what)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    g16_fr *h = malloc(n * sizeof *h);
    assert_non_null(h);
    if (g16__gpu_prover_h(gp, NULL, NULL, NULL, w, &err) != G16_OK)
        fail_msg("%s: H step: %s", what, err.msg);
    memset(h, 0xa5, n * sizeof *h);
    assert_int_equal(g16__gpu_prover_h_download(gp, h, &err), G16_OK);
    if (want_h && memcmp(h, want_h, n * sizeof *h) != 0)
        fail_msg("%s: H differs from the CPU's", what);
    free(h);
    uint64_t bad = g16__gpu_prover_check_first_bad(gp);
    if (!want) {
        g16__gpu_prover_drop_h(gp);
        return bad;
    }
    g16__query_sums got;
    if (w && g16__gpu_prover_msms(gp, &got, w, NULL, NULL, &err) != G16_OK)
        fail_msg("%s: MSMs: %s", what, err.msg);
    if (!w) {
        got = *want; /* (the witness MSMs ran early: the caller compared them) */
        if (g16__gpu_prover_msm_h(gp, &got.h, NULL, NULL, &err) != G16_OK)
            fail_msg("%s: msm.h: %s", what, err.msg);
    }
    expect_sums(&got, want, what);
    return bad;
}

/* A·w, B·w, C·w on the device for one circuit at a time (prove_gpu.h, g16__gpu_prover_spmv_first;
 * G16_GPU_SPMV=first closes the resident route): the route is open where the matrices fit in the
 * MSM scratch (closed with streamed queries, two H vectors, =resident or 0); the H step from the
 * witness alone gives the CPU's H and sums, with the matrices staged by the step, ahead of it, or
 * staged, given back unused and staged again; from the witness the early witness MSMs left on the
 * device; with a pending a-slot copy into the vectors the SpMV fills (waited for, forgotten); a
 * witness that breaks a row gets that row from the device's check (the first failing, as the CPU
 * finds it); staging takes device memory, and the prover leaves the device as it found it. */
static void test_gpu_spmv_first(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    size_t n, before = 0, after = 0, total = 0;
    char line[512], first[512];
    fixture_make(&f, G16_DEMO_BITS, 5000, 3);
    three_make(&t, &f);
    n = f.r->n;
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    char *saved = env_set("G16_GPU_SPMV", "first"), *saved_pf = env_set("G16_GPU_PREFETCH", "a");
    assert_int_equal(g16__gpu_mem_info(g, &before, &total, &err), G16_OK);
    g16__gpu_prover *gp = NULL;
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover: %s", err.msg);
    g16__gpu_prover_describe(gp, line, sizeof line);
    assert_true(g16__gpu_prover_spmv_first(gp));
    assert_false(g16__gpu_prover_spmv(gp));
    assert_false(g16__gpu_prover_checks(gp)); /* (the rows of host a, b, c are the caller's) */
    if (!strstr(line, "a batch's first circuit: A/B/C times the witness on the device"))
        fail_msg("backend line: '%s'", line);
    snprintf(first, sizeof first, "%s", line);
    /* staged by the step; then ahead of it; then staged, given back, and staged by the step */
    assert_int_equal(spmv_first_step(gp, &f, f.w[0], t.want_h[0], &t.want[0], "staged by the step"), UINT64_MAX);
    assert_int_equal(g16__gpu_prover_spmv_stage(gp, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_spmv_stage(gp, &err), G16_OK); /* (staged already: nothing) */
    assert_int_equal(spmv_first_step(gp, &f, f.w[1], t.want_h[1], &t.want[1], "staged ahead"), UINT64_MAX);
    /* staging takes the matrices' bytes (from the pool's idle memory, which counts as free) */
    size_t idle = 0, staged = 0;
    assert_int_equal(g16__gpu_mem_info(g, &idle, &total, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_spmv_stage(gp, &err), G16_OK);
    assert_int_equal(g16__gpu_mem_info(g, &staged, &total, &err), G16_OK);
    if (staged + 4 * f.r->num_constraints > idle)
        fail_msg("staged matrices: %zu bytes free, %zu before", staged, idle);
    g16__gpu_prover_spmv_unstage(gp);
    g16__gpu_prover_spmv_unstage(gp); /* (nothing staged: a no-op) */
    assert_int_equal(spmv_first_step(gp, &f, f.w[2], t.want_h[2], &t.want[2], "given back, staged again"),
                     UINT64_MAX);
    /* the witness the early witness MSMs left on the device */
    g16__query_sums early;
    assert_int_equal(g16__gpu_prover_msms_w(gp, &early, f.w[1], &err), G16_OK);
    if (!g16__p1_eq(&early.l, &t.want[1].l) || !g16__p1_eq(&early.a, &t.want[1].a) ||
        !g16__p1_eq(&early.b1, &t.want[1].b1) || !g16__p2_eq(&early.b2, &t.want[1].b2))
        fail_msg("early witness MSMs differ from the CPU's");
    assert_int_equal(spmv_first_step(gp, &f, NULL, t.want_h[1], &t.want[1], "from the early witness"), UINT64_MAX);
    /* a pending copy of the a slot (circuit 2's a, polled in after circuit 0's msm.h) */
    g16_fr *abc0 = t.abc[0];
    g16__query_sums got;
    poll_state ps = {gp, t.abc[2], t.abc[2] + n, t.abc[2] + 2 * n, 0};
    assert_int_equal(g16__gpu_prover_h(gp, abc0, abc0 + n, abc0 + 2 * n, f.w[0], &err), G16_OK);
    assert_int_equal(g16__gpu_prover_msms(gp, &got, f.w[0], poll_prefetch, &ps, &err), G16_OK);
    expect_sums(&got, &t.want[0], "a, b, c from the host");
    uint64_t pf = 0;
    g16__gpu_prover_counts(gp, &pf, NULL, NULL);
    assert_true(pf > 0);
    assert_int_equal(spmv_first_step(gp, &f, f.w[1], t.want_h[1], &t.want[1], "after a pending a-slot copy"),
                     UINT64_MAX);
    /* a broken row: the device names the first, as the CPU finds it */
    g16_fr *bad = malloc(f.w_len * sizeof *bad);
    assert_non_null(bad);
    memcpy(bad, f.w[2], f.w_len * sizeof *bad);
    size_t k = f.w_len / 2;
    g16__fr_add(&bad[k], &bad[k], &bad[0]);
    uint64_t want_bad = first_bad_row(&f, bad);
    assert_true(want_bad != UINT64_MAX);
    assert_int_equal(spmv_first_step(gp, &f, bad, NULL, NULL, "broken row"), want_bad);
    assert_int_equal(spmv_first_step(gp, &f, f.w[0], t.want_h[0], &t.want[0], "after the broken row"), UINT64_MAX);
    free(bad);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    assert_int_equal(g16__gpu_mem_info(g, &after, &total, &err), G16_OK);
    assert_int_equal(after, before);
    /* closed: with streamed queries, with the H step in two vectors, with =resident and =0 (the
     * size rule, matrices beyond the MSM scratch, needs a circuit of millions of rows: the scratch
     * bound starts at ~270 MB) */
    static const char *const closed[][2] = {{"G16_GPU_STREAM", "1"}, {"G16_GPU_H_SLOTS", "2"},
                                            {"G16_GPU_SPMV", "resident"}, {"G16_GPU_SPMV", "0"}};
    for (size_t c = 0; c < sizeof closed / sizeof closed[0]; c++) {
        char *keep = env_set(closed[c][0], closed[c][1]);
        assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK);
        if (g16__gpu_prover_spmv_first(gp))
            fail_msg("%s=%s: the route is open", closed[c][0], closed[c][1]);
        assert_int_equal(g16__gpu_prover_spmv_stage(gp, &err), G16_OK); /* (closed: a no-op) */
        if (strcmp(closed[c][1], "resident") != 0)
            assert_int_equal(g16__gpu_prover_h(gp, NULL, NULL, NULL, f.w[0], &err), G16_ERR_ARG);
        g16__gpu_prover_destroy(gp);
        gp = NULL;
        env_restore(closed[c][0], keep);
    }
    setenv("G16_GPU_SPMV", "firsts", 1);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "G16_GPU_SPMV"));
    env_restore("G16_GPU_PREFETCH", saved_pf);
    env_restore("G16_GPU_SPMV", saved);
    printf("  one circuit's SpMV on the device ('%s'): H and sums = CPU (staged by the step, ahead, again after a "
           "give-back, from the early witness, after an a-slot copy); row %llu named; memory back\n",
           first, (unsigned long long)want_bad);
    g16__gpu_close(g);
    three_free(&t);
    fixture_free(&f);
}

/* Spans `leaf` of the worker's H step (ntt.h.gpu) and of its CPU stage (prove.synth) in the last
 * traced call, on worker 0 (under prove) and on the others (roots). */
static uint64_t h_step_spans(const char *leaf)
{
    char a[128], b[128];
    snprintf(a, sizeof a, "prove/prove.circuit/ntt.h.gpu/%s", leaf);
    snprintf(b, sizeof b, "prove.circuit/ntt.h.gpu/%s", leaf);
    return span_count(a) + span_count(b);
}

static uint64_t cpu_spmv_spans(void) { return span_count("prove.synth/spmv") + span_count("prove/prove.synth/spmv"); }

/* The pipeline with the batch's first circuit from the device's SpMV (G16_GPU_SPMV=first): batches
 * of 1 and 4 through one worker, a kept prover called twice, every witness MSM early, unchecked,
 * and two workers give the CPU's proofs byte for byte; the trace shows one device SpMV per worker
 * and call (its matrices staged ahead, so no wait span is missing) and the CPU's for the others.
 * On the fake GPU, with the staged matrices refused as out of memory, the GPU stage computes and
 * checks the first circuit's rows on the CPU: the CPU's proofs, and the CPU's error for a broken
 * row. */
static void test_gpu_spmv_first_batch(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 5000, 4);
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_true(cpu && gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    char *saved = env_set("G16_GPU_SPMV", "first");
    /* one worker: batches of 4 and of 1 */
    for (size_t count = 4; count >= 1; count -= 3) {
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0"};
        memset(gpu, 0x5a, f.count * sizeof *gpu);
        g16__trace_reset();
        g16__trace_enable(G16__TRACE_RECORD);
        g16_status st = g16_prove(gpu, f.p, f.r, (const g16_fr *const *)f.w, count, &o, &err);
        g16__trace_enable(0);
        if (st != G16_OK)
            fail_msg("batch of %zu: %s", count, err.msg);
        expect_same_proofs(cpu, gpu, count, "first circuit's SpMV on the device");
        uint64_t dev = h_step_spans("gpu.spmv"), host = cpu_spmv_spans(), waits = h_step_spans("gpu.wait_matrices");
        if (dev != 1 || host != count - 1 || waits != 1)
            fail_msg("batch of %zu: %llu device SpMVs, %llu on the CPU, %llu waits for the matrices; expected 1, %zu, 1",
                     count, (unsigned long long)dev, (unsigned long long)host, (unsigned long long)waits, count - 1);
        if (count == 1)
            break;
    }
    /* a kept prover: each call's first circuit */
    {
        g16_prover *pv = NULL;
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0"};
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        g16__trace_reset();
        g16__trace_enable(G16__TRACE_RECORD);
        for (int call = 0; call < 2; call++) {
            memset(gpu, 0x5a, f.count * sizeof *gpu);
            assert_int_equal(g16_prover_prove(pv, gpu, (const g16_fr *const *)f.w, f.count, &o, &err), G16_OK);
            expect_same_proofs(cpu, gpu, f.count, "kept prover");
        }
        g16__trace_enable(0);
        assert_int_equal(h_step_spans("gpu.spmv"), 2);
        assert_int_equal(cpu_spmv_spans(), 2 * (f.count - 1));
        g16_prover_destroy(pv);
    }
    /* every witness MSM early (the device's SpMV from the witness they left), then unchecked */
    {
        char *saved_early = env_set("G16_GPU_EARLY_W", "2");
        memset(gpu, 0x5a, f.count * sizeof *gpu);
        assert_int_equal(traced_prove(&f, gpu, "0", &err), G16_OK);
        expect_same_proofs(cpu, gpu, f.count, "every witness MSM early");
        assert_int_equal(h_step_spans("gpu.spmv"), 1);
        env_restore("G16_GPU_EARLY_W", saved_early);
        g16_prove_opts nc = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0",
                             .flags = G16_PROVE_NO_CHECK};
        memset(gpu, 0x5a, f.count * sizeof *gpu);
        assert_int_equal(g16_prove(gpu, f.p, f.r, (const g16_fr *const *)f.w, f.count, &nc, &err), G16_OK);
        expect_same_proofs(cpu, gpu, f.count, "unchecked");
    }
#ifdef G16_FAKE_GPU
    /* no room for the staged matrices after all (the card's memory taken since the plan): the first
     * circuit's a, b, c and row check on the CPU, by the GPU stage, and the batch proves; a broken
     * row there is named as the CPU names it */
    g16__fake_gpu_fail_alloc_named("staged matrix");
    for (int e2 = 0; e2 < 2; e2++) { /* (then with every witness MSM early: the step after them) */
        char *saved_early = e2 ? env_set("G16_GPU_EARLY_W", "2") : NULL;
        memset(gpu, 0x5a, f.count * sizeof *gpu);
        assert_int_equal(traced_prove(&f, gpu, "0", &err), G16_OK);
        expect_same_proofs(cpu, gpu, f.count, e2 ? "staging refused, witness MSMs early" : "staging refused");
        assert_int_equal(h_step_spans("gpu.spmv"), 0);
        assert_int_equal(h_step_spans("prove.synth/spmv"), 1); /* (the GPU stage's, inside the H step) */
        assert_int_equal(cpu_spmv_spans(), f.count - 1);
        if (e2)
            env_restore("G16_GPU_EARLY_W", saved_early);
    }
    {
        char cpu_msg[sizeof err.msg];
        size_t k = g16_cs_num_inputs(f.cs) + 1;
        g16_fr keep = f.w[0][k];
        g16__fr_add(&f.w[0][k], &f.w[0][k], &f.w[0][0]);
        assert_int_equal(prove_with(&f, gpu, "cpu", NULL, &err), G16_ERR_UNSATISFIED);
        snprintf(cpu_msg, sizeof cpu_msg, "%s", err.msg);
        assert_int_equal(prove_with(&f, gpu, "gpu", "0", &err), G16_ERR_UNSATISFIED);
        if (strcmp(err.msg, cpu_msg) != 0)
            fail_msg("staging refused, circuit 0 unsatisfied: '%s', the CPU said '%s'", err.msg, cpu_msg);
        f.w[0][k] = keep;
    }
    g16__fake_gpu_fail_alloc_named(NULL);
#endif
    /* two workers on the card: each one's first circuit (a worker may find none left) */
    memset(gpu, 0x5a, f.count * sizeof *gpu);
    assert_int_equal(traced_prove(&f, gpu, "0,0", &err), G16_OK);
    expect_same_proofs(cpu, gpu, f.count, "two workers");
    uint64_t dev = h_step_spans("gpu.spmv");
    assert_true(dev >= 1 && dev <= 2);
    assert_int_equal(cpu_spmv_spans(), f.count - dev);
    env_restore("G16_GPU_SPMV", saved);
    printf("  G16_GPU_SPMV=first: batches of 4 and 1, a kept prover twice, early witness MSMs, unchecked, two workers "
           "(%llu device SpMVs): proofs = CPU, one device SpMV per worker and call\n", (unsigned long long)dev);
    free(cpu);
    free(gpu);
    fixture_free(&f);
}

/* The pipeline of a GPU worker with the prefetch: a batch of 5 through one worker gives the CPU's
 * proofs byte for byte; with G16_GPU_PREFETCH=wait every circuit after the first takes its a, b, c
 * from a prefetch (trace spans counted: the test fails if the prefetch silently never happens),
 * with =1 as the timing allows, with =0 never; two workers on the card with =wait. */
static void test_gpu_prefetch_batch(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 5000, 5);
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    /* a, b, c from the CPU (prefetched: a, b, c), then from the device's SpMV (prefetched: the witness) */
    /* no early witness MSMs: with the SpMV an early circuit's H step neither uploads nor takes a
     * prefetch, which would blur the counts */
    char *saved_early = env_set("G16_GPU_EARLY_W", "0");
    for (int spmv = 0; spmv < 2; spmv++) {
        char *saved_spmv = env_set("G16_GPU_SPMV", spmv ? "1" : "0");
        static const char *const modes[] = {"wait", "1", "0", "a"};
        for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
            char *saved = env_set("G16_GPU_PREFETCH", modes[m]);
            memset(gpu, 0, f.count * sizeof *gpu);
            g16_status st = traced_prove(&f, gpu, "0", &err);
            const char *up = spmv ? "prove/prove.circuit/ntt.h.gpu/gpu.upload_witness"
                                  : "prove/prove.circuit/ntt.h.gpu/gpu.upload_abc";
            /* without a prefetch, a, b, c cross one at a time, each under the previous one's transforms */
            uint64_t one_at_a_time = span_count("prove/prove.circuit/ntt.h.gpu/gpu.upload_a");
            int a_slot = !strcmp(modes[m], "a");
            const char *pf_poll = spmv     ? "prove/prove.circuit/gpu.prefetch_w"
                                  : a_slot ? "prove/prove.circuit/gpu.prefetch_a"
                                           : "prove/prove.circuit/gpu.prefetch_abc";
            /* a root: the synth thread has no parent span */
            const char *pf_synth = spmv     ? "prove.prefetch/gpu.prefetch_w"
                                   : a_slot ? "prove.prefetch/gpu.prefetch_a"
                                            : "prove.prefetch/gpu.prefetch_abc";
            uint64_t used = span_count("prove/prove.circuit/ntt.h.gpu/gpu.wait_prefetch");
            uint64_t uploaded = span_count(up) + one_at_a_time;
            /* issued by the GPU stage's polls or, as soon as the slot is ready, by the synth thread */
            uint64_t issued = span_count(pf_poll) + span_count(pf_synth);
            g16__trace_reset();
            env_restore("G16_GPU_PREFETCH", saved);
            if (st != G16_OK)
                fail_msg("G16_GPU_PREFETCH=%s, G16_GPU_SPMV=%d: %s", modes[m], spmv, err.msg);
            expect_same_proofs(cpu, gpu, f.count, modes[m]);
            printf("  G16_GPU_PREFETCH=%s, G16_GPU_SPMV=%d, batch of %zu, one worker: %llu prefetches issued, %llu "
                   "used, %llu synchronous uploads; proofs = CPU\n",
                   modes[m], spmv, f.count, (unsigned long long)issued, (unsigned long long)used,
                   (unsigned long long)uploaded);
            assert_int_equal(used + uploaded, f.count);
            assert_true(used <= issued);
            if (!strcmp(modes[m], "wait")) {
                assert_int_equal(used, f.count - 1);
                assert_int_equal(issued, f.count - 1);
                assert_int_equal(uploaded, 1);
            } else if (!strcmp(modes[m], "0") || (a_slot && spmv)) { /* (the a slot needs a, b, c from the host) */
                assert_int_equal(issued, 0);
                assert_int_equal(used, 0);
                assert_int_equal(one_at_a_time, spmv ? 0 : f.count);
            } else if (a_slot) { /* every H step one input at a time, a taken from the slot or uploaded */
                assert_int_equal(span_count(up), 0);
                assert_int_equal(used + one_at_a_time, f.count);
            }
            if (strcmp(modes[m], "0") && !a_slot)
                assert_int_equal(one_at_a_time, 0); /* (a prefetch's copies could hold b's back) */
        }
        char *saved = env_set("G16_GPU_PREFETCH", "wait");
        memset(gpu, 0, f.count * sizeof *gpu);
        g16_status st = prove_with(&f, gpu, "gpu", "0,0", &err);
        env_restore("G16_GPU_PREFETCH", saved);
        if (st != G16_OK)
            fail_msg("two workers, G16_GPU_PREFETCH=wait, G16_GPU_SPMV=%d: %s", spmv, err.msg);
        expect_same_proofs(cpu, gpu, f.count, "two workers with prefetch");
        env_restore("G16_GPU_SPMV", saved_spmv);
        printf("  two workers on device 0 with G16_GPU_PREFETCH=wait, G16_GPU_SPMV=%d: proofs = CPU\n", spmv);
    }
    env_restore("G16_GPU_EARLY_W", saved_early);
    free(cpu);
    free(gpu);
    fixture_free(&f);
}

/* The witness MSMs ahead of the H step (prove_gpu.h, g16__gpu_prover_msms_w; prove.c runs them while
 * the GPU stage waits for a circuit's a, b, c): through the prover calls, refused between an H step
 * and its MSMs; through the pipeline with G16_GPU_EARLY_W=2 for every circuit (counted in the trace
 * and by the prover: the test fails if they silently never run), with the prefetch waiting for
 * every circuit too, with two workers, and with =0 never; each time the CPU's proofs. */
static void test_gpu_early_witness(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 5000, 4);
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    {
        /* the calls: msms_w, the H step without the witness, msm.h = g16__gpu_prover_msms's sums */
        size_t n = f.r->n;
        g16__gpu_prover *gp = NULL;
        g16_fr *abc = malloc(3 * n * sizeof *abc);
        g16__query_sums want, got;
        assert_non_null(abc);
        assert_int_equal(g16_r1cs_eval(f.r, f.w[1], f.r->num_inputs + f.r->num_aux, abc, abc + n, abc + 2 * n, n,
                                       &err),
                         G16_OK);
        if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("prover: %s", err.msg);
        assert_int_equal(g16__gpu_prover_h(gp, abc, abc + n, abc + 2 * n, f.w[1], &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msms_w(gp, &got, f.w[1], &err), G16_ERR_ARG); /* H pending */
        assert_int_equal(g16__gpu_prover_msms(gp, &want, f.w[1], NULL, NULL, &err), G16_OK);
        memset(&got, 0xa5, sizeof got);
        assert_int_equal(g16__gpu_prover_msms_w(gp, &got, f.w[1], &err), G16_OK);
        assert_int_equal(g16__gpu_prover_h(gp, abc, abc + n, abc + 2 * n, NULL, &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msm_h(gp, &got.h, NULL, NULL, &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msm_h(gp, &got.h, NULL, NULL, &err), G16_ERR_ARG); /* H consumed */
        if (!g16__p1_eq(&got.h, &want.h) || !g16__p1_eq(&got.l, &want.l) || !g16__p1_eq(&got.a, &want.a) ||
            !g16__p1_eq(&got.b1, &want.b1) || !g16__p2_eq(&got.b2, &want.b2))
            fail_msg("early witness MSMs: the sums differ from g16__gpu_prover_msms's");
        assert_int_equal(g16__gpu_prover_early_count(gp), 1);
        /* from the matrices on the device: the H step multiplies the witness msms_w left there
         * (and refuses when there is none: after msm.h, or before any msms_w) */
        assert_true(g16__gpu_prover_spmv(gp));
        assert_int_equal(g16__gpu_prover_h(gp, NULL, NULL, NULL, NULL, &err), G16_ERR_ARG);
        memset(&got, 0xa5, sizeof got);
        assert_int_equal(g16__gpu_prover_msms_w(gp, &got, f.w[1], &err), G16_OK);
        assert_int_equal(g16__gpu_prover_h(gp, NULL, NULL, NULL, NULL, &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msm_h(gp, &got.h, NULL, NULL, &err), G16_OK);
        if (!g16__p1_eq(&got.h, &want.h) || !g16__p1_eq(&got.l, &want.l) || !g16__p1_eq(&got.a, &want.a) ||
            !g16__p1_eq(&got.b1, &want.b1) || !g16__p2_eq(&got.b2, &want.b2))
            fail_msg("early witness MSMs, SpMV on the device: the sums differ from g16__gpu_prover_msms's");
        assert_int_equal(g16__gpu_prover_h(gp, NULL, NULL, NULL, NULL, &err), G16_ERR_ARG);
        g16__gpu_prover_destroy(gp);
        free(abc);
    }
    /* resident: "" (the plan: all five at this size), "none" (streamed in chunks that several
     * circuits' early MSMs take out of the usual order) or a partial set; slots: the H step's
     * device vectors ("" the plan's, 2 forced: c into b's place after the early compaction used b) */
    static const struct {
        const char *early, *prefetch, *devices, *spmv, *resident, *slots;
        int every;
    } runs[] = {{"2", "1", "0", "0", "", "", 1},         {"2", "wait", "0", "0", "", "", 1},
                {"2", "wait", "0,0", "0", "", "", 1},    {"0", "1", "0", "0", "", "", 0},
                {"2", "1", "0", "1", "", "", 1},         {"2", "1", "0,0", "1", "", "", 1},
                {"0", "1", "0", "1", "", "", 0},         {"2", "1", "0", "0", "none", "", 1},
                {"2", "1", "0", "0", "l,b_g2", "", 1},   {"2", "1", "0", "0", "none", "2", 1},
                {"0", "1", "0", "0", "none", "", 0}};
    /* (one circuit's witness MSMs at a time: test_gpu_pairs counts the pairs) */
    char *saved_pair = env_set("G16_GPU_PAIR", "0");
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        char *se = env_set("G16_GPU_EARLY_W", runs[k].early), *sp = env_set("G16_GPU_PREFETCH", runs[k].prefetch);
        char *ss = env_set("G16_GPU_SPMV", runs[k].spmv), *sr = env_set("G16_GPU_RESIDENT", runs[k].resident);
        char *sh = env_set("G16_GPU_H_SLOTS", runs[k].slots);
        /* chunks of 1000 points: each streamed query in several, so that the order matters */
        char *sc = env_set("G16_GPU_CHUNK", *runs[k].resident ? "1000" : "");
        memset(gpu, 0, f.count * sizeof *gpu);
        g16_status st = traced_prove(&f, gpu, runs[k].devices, &err);
        /* worker 0 under the call's span, a second worker's as roots of its thread */
        uint64_t early = span_count("prove/prove.witness_early") + span_count("prove.witness_early");
        uint64_t late = span_count("prove/prove.circuit/msm.l.gpu") + span_count("prove.circuit/msm.l.gpu");
        uint64_t sync_up = sync_query_uploads() + sync_query_uploads_in(1);
        g16__trace_reset();
        env_restore("G16_GPU_CHUNK", sc);
        env_restore("G16_GPU_H_SLOTS", sh);
        env_restore("G16_GPU_RESIDENT", sr);
        env_restore("G16_GPU_SPMV", ss);
        env_restore("G16_GPU_PREFETCH", sp);
        env_restore("G16_GPU_EARLY_W", se);
        if (st != G16_OK)
            fail_msg("G16_GPU_EARLY_W=%s, prefetch %s, devices %s, G16_GPU_SPMV=%s, G16_GPU_RESIDENT='%s', "
                     "G16_GPU_H_SLOTS='%s': %s",
                     runs[k].early, runs[k].prefetch, runs[k].devices, runs[k].spmv, runs[k].resident, runs[k].slots,
                     err.msg);
        expect_same_proofs(cpu, gpu, f.count, "early witness MSMs");
        printf("  G16_GPU_EARLY_W=%s, G16_GPU_PREFETCH=%s, devices %s, G16_GPU_SPMV=%s, G16_GPU_RESIDENT='%s', "
               "G16_GPU_H_SLOTS='%s', batch of %zu: %llu circuits' witness MSMs early, %llu after msm.h; proofs = "
               "CPU\n",
               runs[k].early, runs[k].prefetch, runs[k].devices, runs[k].spmv, runs[k].resident, runs[k].slots,
               f.count, (unsigned long long)early, (unsigned long long)late);
        assert_int_equal(early, runs[k].every ? f.count : 0);
        assert_int_equal(late, runs[k].every ? 0 : f.count);
        /* streamed, every circuit in the early order (l, a, b_g1, b_g2, then h): the upload thread
         * follows it, only the batch's first chunk is uploaded on the spot */
        if (*runs[k].resident && runs[k].every)
            assert_int_equal(sync_up, 1);
    }
    env_restore("G16_GPU_PAIR", saved_pair);
    free(cpu);
    free(gpu);
    fixture_free(&f);
}

/* The next circuit's witness for g16__gpu_prover_msms_next: w (NULL: none) with its sums' place;
 * late: not ready before msm.h (the call without wait gets NULL). */
typedef struct {
    const g16_fr *w;
    g16__query_sums out;
    g16_status st;
    int calls, late;
} pair_state;

static const g16_fr *pair_give(void *ctx, int wait, g16__query_sums **out2, g16_status **st2)
{
    pair_state *ps = ctx;
    ps->calls++;
    if (!ps->w || (ps->late && !wait))
        return NULL;
    *out2 = &ps->out;
    *st2 = &ps->st;
    return ps->w;
}

/* Synchronous query uploads of prover calls made outside any span (the traced spans are roots). */
static uint64_t prover_sync_uploads(void)
{
    static const char *const q[] = {"h", "l", "a", "b_g1", "b_g2"};
    uint64_t k = 0;
    for (int i = 0; i < 5; i++) {
        char path[64];
        snprintf(path, sizeof path, "msm.%s.gpu/gpu.upload_query", q[i]);
        k += span_count(path);
    }
    return k;
}

/* Chunks of n points of `chunk` per upload. */
static uint64_t chunks_of(size_t n, size_t chunk) { return (n + chunk - 1) / chunk; }

/* Three circuits through one streaming prover (G16_GPU_STREAM=1, chunks of `chunk` points): the
 * first with msms_next offering the second's witness (late: only once msm.h is done, else before
 * it, when it crosses PCIe during msm.h), the second then with the H step alone and msm.h, the
 * third offered none. With pairs the first two share their witness MSMs: the sums of both are the
 * CPU's, and the chunk uploads are 3 of h's and 2 of each witness query's where one at a time
 * takes 3 of each; the upload thread foresees every chunk but the first (h's after an msm.h whose
 * circuit's witness MSMs ran before, l's after the others). Returns the uploads. */
static uint64_t pair_sequence(const fixture *f, three_circuits *t, size_t chunk, int pairs, int late)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    g16__gpu_prover *gp = NULL;
    g16__query_sums got;
    g16_fr **abc = t->abc;
    if (g16__gpu_prover_create(&gp, 0, f->p, f->r, &err) != G16_OK)
        fail_msg("streaming prover: %s", err.msg);
    assert_int_equal(g16__gpu_prover_pairs(gp), pairs);
    g16__trace_reset();
    g16__trace_enable(G16__TRACE_RECORD);
    pair_state next, none;
    memset(&next, 0xa5, sizeof next); /* (poisoned sums: the pair must write them) */
    next.w = f->w[1];
    next.st = G16_ERR_INTERNAL;
    next.calls = 0;
    next.late = late;
    memset(&none, 0, sizeof none);
    assert_int_equal(g16__gpu_prover_h(gp, abc[0], abc[0] + n, abc[0] + 2 * n, f->w[0], &err), G16_OK);
    if (g16__gpu_prover_msms_next(gp, &got, f->w[0], NULL, pair_give, &next, &err) != G16_OK)
        fail_msg("circuit 0 (pairs %d): %s", pairs, err.msg);
    expect_sums(&got, &t->want[0], "circuit 0");
    /* asked only when the prover pairs: before msm.h (this fixture's witness fits beside H), and
     * once more after it when not given then */
    assert_int_equal(next.calls, pairs * (1 + late));
    assert_int_equal(g16__gpu_prover_w2_side_count(gp), (uint64_t)(pairs && !late));
    assert_int_equal(span_count("gpu.wait_witness2"), (uint64_t)(pairs && !late));
    if (pairs) {
        assert_int_equal(next.st, G16_OK);
        got = next.out;
        assert_int_equal(g16__gpu_prover_h(gp, abc[1], abc[1] + n, abc[1] + 2 * n, NULL, &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msm_h(gp, &got.h, NULL, NULL, &err), G16_OK);
    } else {
        assert_int_equal(g16__gpu_prover_h(gp, abc[1], abc[1] + n, abc[1] + 2 * n, f->w[1], &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msms(gp, &got, f->w[1], NULL, NULL, &err), G16_OK);
    }
    expect_sums(&got, &t->want[1], pairs ? "circuit 1, its witness MSMs with circuit 0's" : "circuit 1");
    assert_int_equal(g16__gpu_prover_h(gp, abc[2], abc[2] + n, abc[2] + 2 * n, f->w[2], &err), G16_OK);
    if (g16__gpu_prover_msms_next(gp, &got, f->w[2], NULL, pair_give, &none, &err) != G16_OK)
        fail_msg("circuit 2 (pairs %d): %s", pairs, err.msg);
    expect_sums(&got, &t->want[2], "circuit 2, none to pair with");
    assert_int_equal(none.calls, 2 * pairs);
    assert_int_equal(g16__gpu_prover_paired_count(gp), pairs);
    g16__gpu_prover_destroy(gp); /* (joins the upload thread: its last, unused upload is counted) */
    g16__trace_enable(0);
    uint64_t sync_up = prover_sync_uploads(), thread_up = span_count("gpu.upload_next_chunk"), want = 0;
    size_t nq[5] = {f->p->n_h, f->p->n_l, f->p->n_a, f->p->n_b_g1, f->p->n_b_g2};
    for (int i = 0; i < 5; i++)
        want += chunks_of(nq[i], chunk) * (i == 0 || !pairs ? 3 : 2);
    g16__trace_reset();
    printf("  pairs %d%s: %llu chunk uploads (%llu on the spot), %llu expected\n", pairs,
           pairs ? late ? ", the second witness after msm.h" : ", the second witness during msm.h" : "",
           (unsigned long long)(sync_up + thread_up - 1), (unsigned long long)sync_up, (unsigned long long)want);
    assert_int_equal(sync_up, 1);
    assert_int_equal(sync_up + thread_up - 1, want); /* (the thread's last one is for a next proof) */
    return want;
}

/* The early pair (g16__gpu_prover_msms_w2; with via = 1 g16__gpu_prover_msms_w_next, given the second
 * witness by its callback; via = 2 the same offered none): both circuits' witness MSMs before their
 * H steps (via 2: the first's alone, the second's after its msm.h), then each H step without a
 * witness and msm.h alone: the CPU's sums; refused while an H step waits for its MSMs; the chunks
 * still foreseen (one upload on the spot). */
static void pair_early_sequence(const fixture *f, three_circuits *t, int via)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    g16__gpu_prover *gp = NULL;
    g16__query_sums got[2];
    g16_fr **abc = t->abc;
    pair_state give;
    if (g16__gpu_prover_create(&gp, 0, f->p, f->r, &err) != G16_OK)
        fail_msg("streaming prover: %s", err.msg);
    assert_true(g16__gpu_prover_pairs(gp));
    g16__trace_reset();
    g16__trace_enable(G16__TRACE_RECORD);
    memset(got, 0xa5, sizeof got);
    memset(&give, 0xa5, sizeof give);
    give.w = via == 1 ? f->w[1] : NULL;
    give.st = G16_ERR_INTERNAL;
    give.calls = 0;
    give.late = 0;
    g16_status st = via ? g16__gpu_prover_msms_w_next(gp, &got[0], f->w[0], pair_give, &give, &err)
                        : g16__gpu_prover_msms_w2(gp, &got[0], f->w[0], &got[1], f->w[1], &err);
    if (st != G16_OK)
        fail_msg("early pair (via %d): %s", via, err.msg);
    if (via) {
        assert_int_equal(give.calls, 1);
        if (via == 1) {
            assert_int_equal(give.st, G16_OK);
            got[1] = give.out;
        }
    }
    if (via == 2) { /* the second circuit's witness MSMs with its own msm.h, after the first's proof */
        assert_int_equal(g16__gpu_prover_h(gp, abc[0], abc[0] + n, abc[0] + 2 * n, NULL, &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msm_h(gp, &got[0].h, NULL, NULL, &err), G16_OK);
        expect_sums(&got[0], &t->want[0], "circuit 0, early and alone");
        assert_int_equal(g16__gpu_prover_h(gp, abc[1], abc[1] + n, abc[1] + 2 * n, f->w[1], &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msms(gp, &got[1], f->w[1], NULL, NULL, &err), G16_OK);
        expect_sums(&got[1], &t->want[1], "circuit 1, after an early circuit alone");
        assert_int_equal(g16__gpu_prover_early_count(gp), 1);
        assert_int_equal(g16__gpu_prover_paired_count(gp), 0);
        g16__gpu_prover_destroy(gp);
        g16__trace_enable(0);
        g16__trace_reset();
        return;
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(g16__gpu_prover_h(gp, abc[i], abc[i] + n, abc[i] + 2 * n, NULL, &err), G16_OK);
        if (i == 0) /* (an H step waits for its msm.h) */
            assert_int_equal(g16__gpu_prover_msms_w2(gp, &got[1], f->w[1], &got[0], f->w[0], &err), G16_ERR_ARG);
        assert_int_equal(g16__gpu_prover_msm_h(gp, &got[i].h, NULL, NULL, &err), G16_OK);
        expect_sums(&got[i], &t->want[i], i ? "circuit 1 of the early pair" : "circuit 0 of the early pair");
    }
    assert_int_equal(g16__gpu_prover_early_count(gp), 2);
    assert_int_equal(g16__gpu_prover_paired_count(gp), 1);
    g16__gpu_prover_destroy(gp);
    g16__trace_enable(0);
    uint64_t sync_up = prover_sync_uploads();
    g16__trace_reset();
    assert_int_equal(sync_up, 1);
}

/* A prover that fails inside a pair's MSMs (an injected device error at each of a clean run's calls
 * in turn): the error reaches the caller, and the second circuit's status says so too when the
 * failure came after it was taken; otherwise both circuits' sums are the CPU's. After each, the
 * prover proves the next circuit right. */
#ifdef G16_FAKE_GPU
static void pair_faults(const fixture *f, three_circuits *t)
{
    size_t n = f->r->n;
    g16_error err = {0, ""};
    g16__gpu_prover *gp = NULL;
    g16__query_sums got;
    g16_fr **abc = t->abc;
    uint64_t calls = 0, failed = 0, in_pair = 0;
    if (g16__gpu_prover_create(&gp, 0, f->p, f->r, &err) != G16_OK)
        fail_msg("streaming prover: %s", err.msg);
    for (uint64_t k = 0; k <= calls; k++) {
        pair_state next;
        memset(&next, 0xa5, sizeof next);
        next.w = f->w[1];
        next.st = G16_ERR_INTERNAL;
        next.calls = 0;
        next.late = 0; /* (taken before msm.h: a failure there fails the pair too) */
        assert_int_equal(g16__gpu_prover_h(gp, abc[0], abc[0] + n, abc[0] + 2 * n, f->w[0], &err), G16_OK);
        g16__fake_gpu_fail_at(k);
        g16_status st = g16__gpu_prover_msms_next(gp, &got, f->w[0], NULL, pair_give, &next, &err);
        if (k == 0)
            calls = g16__fake_gpu_calls();
        g16__fake_gpu_fail_at(0);
        if (st == G16_OK) {
            expect_sums(&got, &t->want[0], "circuit 0 of a pair");
            assert_int_equal(next.calls, 1);
            assert_int_equal(next.st, G16_OK);
            got = next.out;
            got.h = t->want[1].h;
            expect_sums(&got, &t->want[1], "circuit 1 of a pair");
        } else {
            if (st != G16_ERR_DEVICE || !strstr(err.msg, "injected failure"))
                fail_msg("a failure at call %llu: status %d, '%s'", (unsigned long long)k, (int)st, err.msg);
            failed++;
            if (next.calls && next.st != G16_OK) {
                assert_int_equal(next.st, G16_ERR_DEVICE);
                in_pair++;
            }
            g16__gpu_prover_drop_h(gp);
        }
        assert_int_equal(g16__gpu_prover_h(gp, abc[2], abc[2] + n, abc[2] + 2 * n, f->w[2], &err), G16_OK);
        if (g16__gpu_prover_msms(gp, &got, f->w[2], NULL, NULL, &err) != G16_OK)
            fail_msg("circuit 2 after a failure at call %llu: %s", (unsigned long long)k, err.msg);
        expect_sums(&got, &t->want[2], "circuit 2 after a failure in a pair");
    }
    g16__gpu_prover_destroy(gp);
    printf("  a failure at each of a pair's %llu device calls in turn: %llu errors (%llu in the pair's witness "
           "MSMs, reported for both circuits), the others both circuits' sums; the next circuit right each time\n",
           (unsigned long long)calls, (unsigned long long)failed, (unsigned long long)in_pair);
    assert_true(failed > calls / 2);
    assert_true(in_pair > 0);
}
#endif

/* Witness MSMs in pairs (prove_gpu.h, g16__gpu_prover_msms_next): at the prover's level with and
 * without pairs (G16_GPU_PAIR=0), the sums and the chunk uploads counted (pair_sequence); a device
 * error inside a pair (fake GPU); the knob checked; through the pipeline, a batch of 5 with one
 * worker (pairs 0+1 and 2+3 with no early witness MSMs, counted in the trace), with early witness
 * MSMs, with two workers on the card, and with pairs off: the CPU's proofs each time. */
static void test_gpu_pairs(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    three_circuits t;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 5000, 5);
    three_make(&t, &f);
    char *saved_stream = env_set("G16_GPU_STREAM", "1"), *saved_chunk = env_set("G16_GPU_CHUNK", "1000");
    char *saved_pair = env_set("G16_GPU_PAIR", "");
    uint64_t paired = pair_sequence(&f, &t, 1000, 1, 0);
    assert_int_equal(pair_sequence(&f, &t, 1000, 1, 1), paired);
    setenv("G16_GPU_PAIR", "0", 1);
    uint64_t single = pair_sequence(&f, &t, 1000, 0, 0);
    assert_true(paired < single);
    setenv("G16_GPU_PAIR", "1", 1);
    for (int via = 0; via < 3; via++)
        pair_early_sequence(&f, &t, via);
#ifdef G16_FAKE_GPU
    setenv("G16_GPU_PAIR", "1", 1);
    pair_faults(&f, &t);
#endif
    g16__gpu_prover *gp = NULL;
    setenv("G16_GPU_PAIR", "2", 1);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "G16_GPU_PAIR"));
    assert_null(gp);
    /* resident: nothing to save, no pairs */
    setenv("G16_GPU_PAIR", "1", 1);
    setenv("G16_GPU_STREAM", "0", 1);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK);
    assert_false(g16__gpu_prover_pairs(gp));
    g16__gpu_prover_destroy(gp);
    setenv("G16_GPU_STREAM", "1", 1);
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_non_null(cpu);
    assert_non_null(gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    static const struct {
        const char *pair, *early, *devices, *overlap; /* overlap: G16_GPU_PAIR_OVERLAP */
        int want; /* pairs expected; -1: as the timing allows */
    } runs[] = {{"", "0", "0", "1", 2},    {"", "1", "0", "1", 2}, {"", "2", "0", "1", -1}, {"", "2", "0", "0", -1},
                {"", "0", "0,0", "1", -1}, {"0", "0", "0", "1", 0}, {"0", "1", "0", "1", 0}};
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        setenv("G16_GPU_PAIR", runs[k].pair, 1);
        char *se = env_set("G16_GPU_EARLY_W", runs[k].early), *so = env_set("G16_GPU_PAIR_OVERLAP", runs[k].overlap);
        memset(gpu, 0, f.count * sizeof *gpu);
        g16_status st = traced_prove(&f, gpu, runs[k].devices, &err);
        uint64_t pairs = pair_spans(), sync_up = sync_query_uploads() + sync_query_uploads_in(1);
        uint64_t early_pairs = span_count("prove/prove.witness_early/gpu.upload_witness2");
        uint64_t copy_waits = span_count("prove/prove.witness_early/wait.pair_copy");
        g16__trace_reset();
        env_restore("G16_GPU_EARLY_W", se);
        env_restore("G16_GPU_PAIR_OVERLAP", so);
        if (st != G16_OK)
            fail_msg("G16_GPU_PAIR='%s', G16_GPU_EARLY_W=%s, G16_GPU_PAIR_OVERLAP=%s, devices %s: %s", runs[k].pair,
                     runs[k].early, runs[k].overlap, runs[k].devices, err.msg);
        expect_same_proofs(cpu, gpu, f.count, "witness MSMs in pairs");
        printf("  G16_GPU_PAIR='%s', G16_GPU_EARLY_W=%s, G16_GPU_PAIR_OVERLAP=%s, devices %s, batch of %zu: %llu pairs "
               "(%llu early, %llu waiting for the second's copy), %llu chunks uploaded on the spot; proofs = CPU\n",
               runs[k].pair, runs[k].early, runs[k].overlap, runs[k].devices, f.count, (unsigned long long)pairs,
               (unsigned long long)early_pairs, (unsigned long long)copy_waits, (unsigned long long)sync_up);
        /* every circuit early: the batch's first two witnesses are copied before the first SpMV,
         * so its first early MSMs are a pair (prove.c, pair_early) */
        if (runs[k].early[0] == '2')
            assert_true(early_pairs >= 1);
        /* the first witness uploaded during the second's copy: the GPU stage then waits for the
         * second once (prove.c, early_next), unless the copy was done before the early MSMs began;
         * with G16_GPU_PAIR_OVERLAP=0 both are copied first, never */
        assert_true(copy_waits <= (runs[k].overlap[0] == '1' ? 1u : 0u));
        if (runs[k].want >= 0)
            assert_int_equal(pairs, runs[k].want);
        /* one worker, its chunks foreseen (an early circuit without pairs: h's first chunk after
         * its msm.h, guessed l's, comes on the spot) */
        if (runs[k].want >= 0 && (runs[k].pair[0] != '0' || runs[k].early[0] == '0'))
            assert_int_equal(sync_up, 1);
    }
    free(cpu);
    free(gpu);
    env_restore("G16_GPU_PAIR", saved_pair);
    env_restore("G16_GPU_CHUNK", saved_chunk);
    env_restore("G16_GPU_STREAM", saved_stream);
    three_free(&t);
    fixture_free(&f);
}

/* Device lists that name no usable device are refused before any work, and nothing is written. */
static void test_bad_devices(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 600, 1);
    char bad_idx[32];
    snprintf(bad_idx, sizeof bad_idx, "%d", g16__gpu_device_count());
    const char *bad[] = {bad_idx, "x", "0,", "0,,0", "-1", "0;1", " 0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        g16_proof out;
        memset(&out, 0x5a, sizeof out);
        assert_int_equal(prove_with(&f, &out, "gpu", bad[i], &err), G16_ERR_ARG);
        assert_non_null(strstr(err.msg, "devices"));
        for (size_t j = 0; j < sizeof out; j++)
            assert_int_equal(((unsigned char *)&out)[j], 0x5a);
    }
    printf("  refused: \"%s\" (%s)\n", bad[0], err.msg);
    fixture_free(&f);
}

/* The device memory a prover holds between proofs (the queries, the H step's vectors, the witness
 * and its spare, the matrices, the bitmaps; the MSM scratch pool's idle bytes count as free) stays
 * within 1 KiB per domain element plus 256 MiB of fixed costs (measured on the H200 with the bits
 * demo: ~650 bytes per constraint at 2^26 and 2^27, bench/RESULTS.md), and destroying it gives all
 * of it back. */
static void test_gpu_memory(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    size_t before, after, gone, total;
    fixture_make(&f, G16_DEMO_BITS, 70000, 1);
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    g16__gpu_prover *gp = NULL;
    /* one prover first: the CUDA runtime's lazily loaded modules are not the prover's */
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    assert_int_equal(g16__gpu_mem_info(g, &before, &total, &err), G16_OK);
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover: %s", err.msg);
    assert_true(g16__gpu_prover_resident(gp) && g16__gpu_prover_spmv(gp));
    assert_int_equal(g16__gpu_mem_info(g, &after, &total, &err), G16_OK);
    size_t held = before > after ? before - after : 0, n = f.r->n, bound = 1024 * n + ((size_t)256 << 20);
    g16__gpu_prover_destroy(gp);
    assert_int_equal(g16__gpu_mem_info(g, &gone, &total, &err), G16_OK);
    printf("  prover of %llu constraints (n = %zu): %zu bytes held on the device (%.0f per domain element), all "
           "given back\n",
           (unsigned long long)f.r->num_constraints, n, held, (double)held / (double)n);
    assert_true(held > 0);
    assert_true(held <= bound);
    assert_int_equal(gone, before);
#ifdef G16_FAKE_GPU
    {
        /* while proving: what the prover holds plus the largest query's MSM scratch (counted by the
         * fake at g16__gpu_msm_scratch_bytes_opts: device scalars, one pass) plus the compaction's
         * and small buffers, no more */
        size_t nq[5] = {f.p->n_h, f.p->n_l, f.p->n_a, f.p->n_b_g1, f.p->n_b_g2}, scratch = 0;
        for (int q = 0; q < 5; q++) {
            size_t b = g16__gpu_msm_scratch_bytes_opts(nq[q], q == 4, 1, 0);
            scratch = b > scratch ? b : scratch;
        }
        g16_proof pr[1];
        g16_prove_opts po = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0"};
        g16__fake_gpu_peak_reset(0);
        size_t base = g16__fake_gpu_used(0);
        assert_int_equal(g16_prove(pr, f.p, f.r, (const g16_fr *const *)f.w, 1, &po, &err), G16_OK);
        size_t peak = g16__fake_gpu_peak(0) - base;
        printf("  peak while proving %zu bytes (%.0f per domain element): held %zu + MSM scratch %zu + %zu\n", peak,
               (double)peak / (double)n, held, scratch, peak > held + scratch ? peak - held - scratch : 0);
        assert_true(peak >= held + scratch);
        assert_true(peak <= held + scratch + ((size_t)8 << 20));
    }
#endif
    g16__gpu_close(g);
    fixture_free(&f);
}

/* The device bytes a prover of f's circuit holds between proofs (created once before, so that the
 * CUDA runtime's lazily loaded modules are not counted); *used: the bytes in use besides. With
 * plain != 0, without the matrices and the spare set (what a partly resident prover keeps). */
static size_t prover_held(g16__gpu *g, const fixture *f, int plain, size_t *used)
{
    g16_error err = {0, ""};
    g16__gpu_prover *gp = NULL;
    size_t before, after, total;
    char *saved_spmv = plain ? env_set("G16_GPU_SPMV", "0") : NULL;
    char *saved_pf = plain ? env_set("G16_GPU_PREFETCH", "0") : NULL;
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f->p, f->r, &err), G16_OK);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    assert_int_equal(g16__gpu_mem_info(g, &before, &total, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f->p, f->r, &err), G16_OK);
    assert_int_equal(g16__gpu_mem_info(g, &after, &total, &err), G16_OK);
    g16__gpu_prover_destroy(gp);
    if (plain) {
        env_restore("G16_GPU_PREFETCH", saved_pf);
        env_restore("G16_GPU_SPMV", saved_spmv);
    }
    if (used)
        *used = total - before;
    return before - after;
}

/* What a prover created under G16_GPU_MEM_LIMIT=lim leaves free (g was opened before the limit)
 * holds what it allocates while it proves (g16__gpu_prover_transient_bytes: its runs' scratch by
 * their bounds and its streamed chunks' bases) and the reserve, to what the plan leaves out: the
 * bases' infinity bitmaps (1 MiB here) and, on a real card, the allocator's rounding (2 MiB pages;
 * 32 MiB allowed). The fake card allocates exactly, so there a plan that counts a chunk's bases
 * too few fails. */
static void expect_plan_fits(g16__gpu *g, const g16__gpu_prover *gp, const char *lim)
{
    g16_error err = {0, ""};
    g16__gpu_info info;
    size_t after = 0, total = 0, t = g16__gpu_prover_transient_bytes(gp);
    assert_int_equal(g16__gpu_mem_info(g, &after, &total, &err), G16_OK);
    g16__gpu_get_info(g, &info);
    size_t left = strtoull(lim, NULL, 10) - (total - after), slack = (size_t)(strstr(info.name, "fake") ? 1 : 32) << 20;
    printf("  left free %zu, the runs and chunks take up to %zu, the reserve %zu\n", left, t, G16__GPU_RESERVE);
    assert_true(left + slack >= t + G16__GPU_RESERVE);
}

/* A card smaller than the H200, emulated with G16_GPU_MEM_LIMIT: the prover keeps the queries
 * resident and runs its MSMs in pieces when the whole queries' scratch does not fit beside them
 * (the proofs the CPU's, no allocation beyond the limit refused); streams them when not even the
 * bases fit; and refuses with a clear error when not even the H step's vectors fit. */
static void test_gpu_mem_limit(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_prover *gp = NULL;
    size_t held, used, nmax = 0;
    char lim[32], desc[512];
    fixture_make(&f, G16_DEMO_BITS, 70000, 2);
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    /* what an unlimited prover holds between proofs (vectors, bases, matrices, spare set), and
     * without the matrices and the spare set */
    held = prover_held(g, &f, 0, &used);
    size_t held_plain = prover_held(g, &f, 1, NULL);
    size_t nq[5] = {f.p->n_h, f.p->n_l, f.p->n_a, f.p->n_b_g1, f.p->n_b_g2};
    size_t whole = 0, quarter = 0;
    for (int q = 0; q < 5; q++)
        nmax = nq[q] > nmax ? nq[q] : nmax;
    for (int q = 0; q < 5; q++) {
        size_t w = g16__gpu_msm_scratch_bytes(nq[q], q == 4), p = nq[q] < nmax / 4 ? nq[q] : nmax / 4;
        size_t k = g16__gpu_msm_scratch_bytes(p, q == 4);
        whole = w > whole ? w : whole;
        quarter = k > quarter ? k : quarter;
    }
    /* room for a quarter of the largest query per run, not for the whole: pieces when the passes
     * are off (G16_GPU_PASSES=0; with them, below) */
    assert_true(whole > quarter + ((size_t)8 << 20));
    snprintf(lim, sizeof lim, "%zu", used + held + quarter + G16__GPU_RESERVE + ((size_t)4 << 20));
    char *saved = env_set("G16_GPU_MEM_LIMIT", lim);
    char *saved_passes = env_set("G16_GPU_PASSES", "0");
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover limited to %s bytes: %s", lim, err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  limit %s bytes (%zu in use, the prover holds %zu, whole-query scratch %zu, a quarter's %zu): %s\n", lim,
           used, held, whole, quarter, desc);
    assert_true(g16__gpu_prover_resident(gp));
    assert_non_null(strstr(desc, "MSMs in pieces of up to"));
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    g16_status st = traced_prove(&f, gpu, "0", &err);
    uint64_t pieces = h_piece_runs();
    g16__trace_reset();
    if (st != G16_OK)
        fail_msg("proofs limited to %s bytes: %s", lim, err.msg);
    expect_same_proofs(cpu, gpu, f.count, "limited memory, MSMs in pieces");
    assert_true(pieces >= 2 * f.count);

    /* the same room without the matrices (a, b, c from the CPU, as on an 80 GB card at 2^27): the
     * spare set would shrink the pieces, so the default knob takes the a slot instead (the memory
     * plan's word once kept it off); the proofs the CPU's */
    char *saved_spmv = env_set("G16_GPU_SPMV", "0");
    snprintf(lim, sizeof lim, "%zu", used + held_plain + quarter + G16__GPU_RESERVE + ((size_t)4 << 20));
    setenv("G16_GPU_MEM_LIMIT", lim, 1);
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover limited to %s bytes, a, b, c from the CPU: %s", lim, err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  limit %s bytes, a, b, c from the CPU: %s\n", lim, desc);
    assert_true(g16__gpu_prover_resident(gp));
    assert_non_null(strstr(desc, "MSMs in pieces of up to"));
    assert_non_null(strstr(desc, "no a/b/c prefetch (its spare set would shrink the MSM pieces)"));
    assert_non_null(strstr(desc, "next circuit's a copied"));
    assert_int_equal(g16__gpu_prover_prefetch_mode(gp), G16__GPU_PF_A);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    memset(gpu, 0, f.count * sizeof *gpu);
    if ((st = prove_with(&f, gpu, "gpu", "0", &err)) != G16_OK)
        fail_msg("proofs limited to %s bytes, the a slot: %s", lim, err.msg);
    expect_same_proofs(cpu, gpu, f.count, "limited memory, MSMs in pieces, the a slot");
    env_restore("G16_GPU_SPMV", saved_spmv);

    /* the first room with the passes (the default): every query's MSM whole, in passes of fewer
     * windows (one pass's scratch does not fit), one run of msm.h per proof, the matrices and the
     * spare set kept; the proofs the CPU's */
    env_restore("G16_GPU_PASSES", saved_passes);
    snprintf(lim, sizeof lim, "%zu", used + held + quarter + G16__GPU_RESERVE + ((size_t)4 << 20));
    setenv("G16_GPU_MEM_LIMIT", lim, 1);
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover limited to %s bytes, passes: %s", lim, err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  limit %s bytes, passes allowed: %s\n", lim, desc);
    assert_true(g16__gpu_prover_resident(gp));
    assert_non_null(strstr(desc, "MSMs whole in passes of up to"));
    /* the passes take what is left after the matrices and the spare set, as the pieces did */
    assert_non_null(strstr(desc, "A/B/C times the witness on the device"));
    assert_non_null(strstr(desc, "next witness prefetched during the MSMs"));
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    memset(gpu, 0, f.count * sizeof *gpu);
    st = traced_prove(&f, gpu, "0", &err);
    uint64_t passes = h_pass_runs(), hpieces = h_piece_runs();
    g16__trace_reset();
    if (st != G16_OK)
        fail_msg("proofs limited to %s bytes, passes: %s", lim, err.msg);
    expect_same_proofs(cpu, gpu, f.count, "limited memory, MSMs whole in passes");
    printf("  msm.h: %llu runs in passes, %llu pieces\n", (unsigned long long)passes, (unsigned long long)hpieces);
    assert_int_equal(passes, f.count);
    assert_int_equal(hpieces, 0);

    /* room for the bases but not for the smallest pieces' scratch beside them: l, a, b_g1 and
     * b_g2 stay resident, h is streamed (prove_gpu.c, plan_partial), the runs whole in passes of
     * fewer windows where one pass does not fit (partial_passes); the same proofs. Then the same
     * room with G16_GPU_PASSES=0: the same set, one pass (pieces where needed), no run in passes. */
    size_t pmin = 32, small = 0;
    while (pmin < nmax / 8)
        pmin *= 2;
    for (int q = 0; q < 5; q++) {
        size_t k = g16__gpu_msm_scratch_bytes(nq[q] < pmin ? nq[q] : pmin, q == 4);
        small = k > small ? k : small;
    }
    snprintf(lim, sizeof lim, "%zu", used + held_plain + G16__GPU_RESERVE + small - ((size_t)4 << 20));
    setenv("G16_GPU_MEM_LIMIT", lim, 1);
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover limited to %s bytes: %s", lim, err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  limit %s bytes (held without matrices and spare %zu, smallest pieces' scratch %zu): %s\n", lim,
           held_plain, small, desc);
    assert_false(g16__gpu_prover_resident(gp));
    assert_non_null(strstr(desc, "queries l, a, b_g1, b_g2 resident (MSMs whole in passes of up to "));
    assert_non_null(strstr(desc, " h streamed in chunks"));
    int h_in_passes = strstr(desc, "each chunk's MSM in passes of up to ") != NULL;
    expect_plan_fits(g, gp, lim);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    for (int on = 1; on >= 0; on--) {
        if (!on) {
            saved_passes = env_set("G16_GPU_PASSES", "0");
            assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK);
            g16__gpu_prover_describe(gp, desc, sizeof desc);
            printf("  the same limit, G16_GPU_PASSES=0: %s\n", desc);
            assert_non_null(strstr(desc, "queries l, a, b_g1, b_g2 resident"));
            assert_null(strstr(desc, "passes"));
            expect_plan_fits(g, gp, lim);
            g16__gpu_prover_destroy(gp);
            gp = NULL;
        }
        memset(gpu, 0, f.count * sizeof *gpu);
        st = traced_prove(&f, gpu, "0", &err);
        uint64_t up_h = query_spans("h", "gpu.upload_query") + span_count("gpu.upload_next_chunk");
        uint64_t up_rest = sync_query_uploads() - query_spans("h", "gpu.upload_query");
        uint64_t res_passes = 0, h_passes = h_pass_runs(), sync_h = query_spans("h", "gpu.upload_query");
        uint64_t thread_h = span_count("gpu.upload_next_chunk");
        for (int q = 1; q < 5; q++) {
            static const char *const qn[] = {"h", "l", "a", "b_g1", "b_g2"};
            char path[128];
            snprintf(path, sizeof path, "prove/prove.witness_early/msm.%s.gpu/gpu.msm_passes", qn[q]);
            res_passes += query_spans(qn[q], "gpu.msm_passes") + span_count(path);
        }
        g16__trace_reset();
        if (st != G16_OK)
            fail_msg("proofs limited to %s bytes, G16_GPU_PASSES %s: %s", lim, on ? "auto" : "0", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "limited memory, h streamed, the others resident");
        printf("  runs in passes: resident %llu, h %llu; h's chunks uploaded synchronously %llu, by the thread %llu\n",
               (unsigned long long)res_passes, (unsigned long long)h_passes, (unsigned long long)sync_h,
               (unsigned long long)thread_h);
        assert_true(up_h >= f.count);
        assert_int_equal(up_rest, 0);
        /* the resident runs go in passes (their largest query at least, once per proof) and h's
         * chunks exactly when the backend line says so */
        assert_true(on ? res_passes >= f.count : res_passes == 0);
        assert_true(on && h_in_passes ? h_passes >= f.count : h_passes == 0);
    }
    env_restore("G16_GPU_PASSES", saved_passes);

    /* l, a and b_g1 named resident (G16_GPU_RESIDENT), h and b_g2 streamed, in the room of the
     * partial case above: the set planned as the partial plan plans it (at this size the planner
     * itself keeps b_g2, whose bases are small beside a chunk run's fixed scratch), so b_g2's chunks
     * have half the G1 chunks' points (as many bytes), the runs in passes where needed; the plan
     * fits and the proofs are the CPU's */
    char *saved_named = env_set("G16_GPU_RESIDENT", "l,a,b_g1");
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover limited to %s bytes, l, a, b_g1 resident: %s", lim, err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  limit %s bytes, G16_GPU_RESIDENT=l,a,b_g1: %s\n", lim, desc);
    size_t c1 = 0, c2 = 0;
    const char *at = strstr(desc, "queries l, a, b_g1 resident");
    assert_non_null(at);
    at = strstr(at, " h, b_g2 streamed in chunks of up to ");
    assert_non_null(at);
    assert_int_equal(sscanf(at, " h, b_g2 streamed in chunks of up to %zu points (%zu for b_g2)", &c1, &c2), 2);
    assert_int_equal(c2, c1 / 2);
    expect_plan_fits(g, gp, lim);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    memset(gpu, 0, f.count * sizeof *gpu);
    if ((st = prove_with(&f, gpu, "gpu", "0", &err)) != G16_OK)
        fail_msg("proofs limited to %s bytes, h and b_g2 streamed: %s", lim, err.msg);
    expect_same_proofs(cpu, gpu, f.count, "limited memory, h and b_g2 streamed, the others resident");
    env_restore("G16_GPU_RESIDENT", saved_named);

    /* half the bases' room, and no partial residency (G16_GPU_RESIDENT=0): not even the smallest
     * pieces' scratch bound (256 MiB and more) fits beside the bases, so the queries are
     * streamed; the same proofs */
    char *saved_res = env_set("G16_GPU_RESIDENT", "0");
    size_t bases = 0;
    for (int q = 0; q < 5; q++)
        bases += nq[q] * (q == 4 ? sizeof(g16_p2_affine) : sizeof(g16_p1_affine));
    assert_true(held > bases && bases / 2 > ((size_t)8 << 20));
    snprintf(lim, sizeof lim, "%zu", used + (held - bases) + bases / 2 + G16__GPU_RESERVE + ((size_t)260 << 20));
    setenv("G16_GPU_MEM_LIMIT", lim, 1);
    memset(gpu, 0, f.count * sizeof *gpu);
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover limited to %s bytes: %s", lim, err.msg);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  limit %s bytes (bases %zu): %s\n", lim, bases, desc);
    assert_false(g16__gpu_prover_resident(gp));
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    if ((st = prove_with(&f, gpu, "gpu", "0", &err)) != G16_OK)
        fail_msg("proofs limited to %s bytes: %s", lim, err.msg);
    expect_same_proofs(cpu, gpu, f.count, "limited memory, streamed");
    env_restore("G16_GPU_RESIDENT", saved_res);

    /* nothing fits: G16_ERR_NOMEM saying so; a malformed limit: G16_ERR_ARG */
    snprintf(lim, sizeof lim, "%zu", used + ((size_t)1 << 20));
    setenv("G16_GPU_MEM_LIMIT", lim, 1);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_NOMEM);
    assert_null(gp);
    printf("  limit %s bytes: %s\n", lim, err.msg);
    assert_int_equal(prove_with(&f, gpu, "gpu", "0", &err), G16_ERR_NOMEM);
    setenv("G16_GPU_MEM_LIMIT", "12X", 1);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
    assert_non_null(strstr(err.msg, "G16_GPU_MEM_LIMIT"));
    env_restore("G16_GPU_MEM_LIMIT", saved);
    static const char *const bad_res[] = {"x", "h,,l", "b_g3", "h,l,", "all"};
    saved_res = env_set("G16_GPU_RESIDENT", "");
    for (size_t i = 0; i < sizeof bad_res / sizeof bad_res[0]; i++) {
        setenv("G16_GPU_RESIDENT", bad_res[i], 1);
        assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_ERR_ARG);
        assert_non_null(strstr(err.msg, "G16_GPU_RESIDENT"));
    }
    env_restore("G16_GPU_RESIDENT", saved_res);
    g16__gpu_close(g);
    free(cpu);
    free(gpu);
    fixture_free(&f);
}

/* A card too small for the H step's three vectors but not for two: the prover takes two (the
 * backend line says so). The smallest limit at which a streaming prover (chunks of 1024 points,
 * so that the vectors are all it needs) can be created is found by bisection: there it runs the H
 * step in two vectors, and with one vector more of room (plus 4 MiB for the allocator's rounding)
 * in three. (Proofs in two vectors: test_gpu_equals_cpu, G16_GPU_H_SLOTS=2.) */
static void test_gpu_h_two_vectors_limit(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_prover *gp = NULL;
    size_t before, total;
    char lim[32], desc[512];
    fixture_make(&f, G16_DEMO_BITS, 70000, 1);
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK); /* lazily loaded modules */
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    assert_int_equal(g16__gpu_mem_info(g, &before, &total, &err), G16_OK);
    size_t used = total - before, vec = f.r->n * sizeof(g16_fr), lo = used, hi = used + 8 * vec + ((size_t)1 << 30);
    char *saved_res = env_set("G16_GPU_RESIDENT", "none"), *saved_chunk = env_set("G16_GPU_CHUNK", "1024");
    snprintf(lim, sizeof lim, "%zu", hi);
    char *saved = env_set("G16_GPU_MEM_LIMIT", lim);
    if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
        fail_msg("prover limited to %s bytes: %s", lim, err.msg);
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    while (hi - lo > ((size_t)256 << 10)) { /* created at hi, not at lo */
        size_t mid = lo + (hi - lo) / 2;
        snprintf(lim, sizeof lim, "%zu", mid);
        setenv("G16_GPU_MEM_LIMIT", lim, 1);
        g16_status st = g16__gpu_prover_create(&gp, 0, f.p, f.r, &err);
        if (st != G16_OK && st != G16_ERR_NOMEM)
            fail_msg("prover limited to %s bytes: %s", lim, err.msg);
        g16__gpu_prover_destroy(gp);
        gp = NULL;
        *(st == G16_OK ? &hi : &lo) = mid;
    }
    snprintf(lim, sizeof lim, "%zu", hi);
    setenv("G16_GPU_MEM_LIMIT", lim, 1);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  smallest limit %s bytes (%zu in use, one vector %zu): %s\n", lim, used, vec, desc);
    assert_non_null(strstr(desc, "the H step in two device vectors"));
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    snprintf(lim, sizeof lim, "%zu", hi + vec + ((size_t)4 << 20));
    setenv("G16_GPU_MEM_LIMIT", lim, 1);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK);
    g16__gpu_prover_describe(gp, desc, sizeof desc);
    printf("  limit %s bytes: %s\n", lim, desc);
    assert_null(strstr(desc, "two device vectors"));
    g16__gpu_prover_destroy(gp);
    env_restore("G16_GPU_MEM_LIMIT", saved);
    env_restore("G16_GPU_CHUNK", saved_chunk);
    env_restore("G16_GPU_RESIDENT", saved_res);
    g16__gpu_close(g);
    fixture_free(&f);
}

/* The streaming chunks of a backend line ("chunks of up to C1 points (C2 for b_g2"): 0 when absent. */
static int stream_chunks(const char *desc, size_t *c1, size_t *c2)
{
    const char *at = strstr(desc, "queries streamed in chunks of up to ");
    return at && sscanf(at, "queries streamed in chunks of up to %zu points (%zu for b_g2", c1, c2) == 2;
}

/* The windows per pass of a backend line's streamed runs ("in passes of up to W1 windows (W2 for
 * b_g2"): 0 and 0 when absent (one pass). */
static void stream_passes(const char *desc, unsigned *w1, unsigned *w2)
{
    const char *at = strstr(desc, "in passes of up to ");
    *w1 = *w2 = 0;
    if (at && sscanf(at, "in passes of up to %u windows (%u for b_g2", w1, w2) != 2)
        fail_msg("malformed passes in: %s", desc);
}

/* Runs in passes (span gpu.msm_passes) of every query in the last traced call. */
static uint64_t all_pass_runs(void)
{
    static const char *const q[] = {"h", "l", "a", "b_g1", "b_g2"};
    uint64_t k = 0;
    for (int i = 0; i < 5; i++)
        k += query_spans(q[i], "gpu.msm_passes");
    return k;
}

/* The smallest G16_GPU_MEM_LIMIT in (lo, hi] at which a prover is created, to 256 KiB (hi must
 * work, lo not). */
static size_t smallest_limit(const fixture *f, size_t lo, size_t hi)
{
    g16_error err = {0, ""};
    char lim[32];
    while (hi - lo > ((size_t)256 << 10)) {
        size_t mid = lo + (hi - lo) / 2;
        g16__gpu_prover *gp = NULL;
        snprintf(lim, sizeof lim, "%zu", mid);
        setenv("G16_GPU_MEM_LIMIT", lim, 1);
        g16_status st = g16__gpu_prover_create(&gp, 0, f->p, f->r, &err);
        if (st != G16_OK && st != G16_ERR_NOMEM)
            fail_msg("prover limited to %s bytes: %s", lim, err.msg);
        g16__gpu_prover_destroy(gp);
        *(st == G16_OK ? &hi : &lo) = mid;
    }
    return hi;
}

/* Streaming with the automatic chunks (prove_gpu.c, choose_chunk: sized by the MSMs' exact scratch
 * bound, G1 chunks and b_g2's of half as many points, the runs in passes of fewer windows where
 * that lets the chunks grow): the smallest limit a streaming prover is created at is found by
 * bisection, with passes (the default) and without (G16_GPU_PASSES=0: each chunk's run in one
 * pass, the rule before); the passes start lower. At the smallest limit and with more room (larger
 * chunks, up to whole queries), the proofs are the CPU's, so no allocation of the stream went
 * beyond the limit; the chunks are never smaller than the one-pass rule's at the same limit, and
 * the runs go in passes exactly when the plan says so (trace). */
static void test_gpu_stream_chunks_limit(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_prover *gp = NULL;
    size_t before, total, n2 = 0, last = 0;
    char lim[32], desc[512];
    fixture_make(&f, G16_DEMO_BITS, 70000, 2);
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    assert_int_equal(g16__gpu_prover_create(&gp, 0, f.p, f.r, &err), G16_OK); /* lazily loaded modules */
    g16__gpu_prover_destroy(gp);
    gp = NULL;
    assert_int_equal(g16__gpu_mem_info(g, &before, &total, &err), G16_OK);
    size_t used = total - before, vec = f.r->n * sizeof(g16_fr), lo = used, hi = used + 8 * vec + ((size_t)1 << 30);
    size_t n1 = 0, nq[4] = {f.p->n_h, f.p->n_l, f.p->n_a, f.p->n_b_g1};
    for (int q = 0; q < 4; q++)
        n1 = nq[q] > n1 ? nq[q] : n1;
    n2 = f.p->n_b_g2;
    char *saved_res = env_set("G16_GPU_RESIDENT", "none"), *saved = env_set("G16_GPU_MEM_LIMIT", "");
    hi = smallest_limit(&f, lo, hi);
    char *saved_passes = env_set("G16_GPU_PASSES", "0");
    size_t hi_one = smallest_limit(&f, lo, used + 8 * vec + ((size_t)1 << 30));
    env_restore("G16_GPU_PASSES", saved_passes);
    printf("  smallest streaming limit: %zu bytes with passes, %zu with every run in one pass\n", hi, hi_one);
    assert_true(hi < hi_one);
    const size_t extra[] = {0, (size_t)32 << 20, (size_t)128 << 20, (size_t)1 << 30};
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        size_t c1 = 0, c2 = 0, o1 = 0, o2 = 0;
        unsigned w1, w2;
        snprintf(lim, sizeof lim, "%zu", hi + extra[i]);
        setenv("G16_GPU_MEM_LIMIT", lim, 1);
        /* the one-pass rule at this limit (refused at the smallest: it needs more) */
        saved_passes = env_set("G16_GPU_PASSES", "0");
        g16_status st = g16__gpu_prover_create(&gp, 0, f.p, f.r, &err);
        env_restore("G16_GPU_PASSES", saved_passes);
        if (i == 0 ? st != G16_ERR_NOMEM : st != G16_OK && st != G16_ERR_NOMEM)
            fail_msg("one-pass prover limited to %s bytes: %s (status %d)", lim, err.msg, (int)st);
        if (st == G16_OK) {
            g16__gpu_prover_describe(gp, desc, sizeof desc);
            g16__gpu_prover_destroy(gp);
            gp = NULL;
            if (!stream_chunks(desc, &o1, &o2))
                fail_msg("no streaming chunks in: %s", desc);
            stream_passes(desc, &w1, &w2);
            assert_true(w1 == 0 && w2 == 0);
        }
        if (g16__gpu_prover_create(&gp, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("prover limited to %s bytes: %s", lim, err.msg);
        g16__gpu_prover_describe(gp, desc, sizeof desc);
        g16__gpu_prover_destroy(gp);
        gp = NULL;
        printf("  limit %s bytes (smallest + %zu MiB): %s (one pass per run: chunks of %zu)\n", lim, extra[i] >> 20,
               desc, o1);
        if (!stream_chunks(desc, &c1, &c2))
            fail_msg("no streaming chunks in: %s", desc);
        stream_passes(desc, &w1, &w2);
        assert_true(c1 >= o1 && o1 >= last && c1 <= n1 && (i > 0 || c1 < n1));
        assert_true(i > 0 || w1 > 0 || w2 > 0); /* the smallest limit needs the passes */
        assert_int_equal(c2, c1 / 2 < n2 ? (c1 / 2 ? c1 / 2 : 1) : n2);
        last = o1;
        memset(gpu, 0, f.count * sizeof *gpu);
        st = traced_prove(&f, gpu, "0", &err);
        uint64_t pass_runs = all_pass_runs();
        g16__trace_reset();
        if (st != G16_OK)
            fail_msg("proofs limited to %s bytes: %s", lim, err.msg);
        expect_same_proofs(cpu, gpu, f.count, "streamed in automatic chunks at a limit");
        printf("    %llu runs in passes\n", (unsigned long long)pass_runs);
        assert_true((pass_runs > 0) == (w1 > 0 || w2 > 0));
    }
    assert_int_equal(last, n1); /* with a GiB more, the whole largest query is one chunk in one pass */
    env_restore("G16_GPU_MEM_LIMIT", saved);
    env_restore("G16_GPU_RESIDENT", saved_res);
    g16__gpu_close(g);
    free(cpu);
    free(gpu);
    fixture_free(&f);
}

/* 100 proofs (10 batches of 10) leave the device's free memory where it was.
 * G16_GPU_TEST_LEAK_BATCHES sets the batch count (1 under compute-sanitizer, where 100 proofs are
 * slow). */
/* Two workers on one card (G16_DEVICES=0,0): the second plans beside what the first holds and
 * leaves it what it allocates while proving (g16__gpu_prover_create_shared), so that the memory
 * both leave free covers both workers' MSMs at once. Opened together (before), each planned
 * against the whole card, and two MSMs running at once could need more than the card has. Then
 * whole batches on "0,0" at card sizes from roomy to tight (G16_GPU_MEM_LIMIT): each prover is
 * refused at creation (G16_ERR_NOMEM) or proves the CPU's proofs; on the fake, the device's peak
 * stays within the limit. */
static void test_gpu_shared_card(void **state)
{
    (void)state;
    if (!have_device())
        return;
    fixture f;
    g16_error err = {0, ""};
    g16__gpu *g = NULL;
    g16__gpu_prover *gp0 = NULL, *gp1 = NULL;
    size_t after, total, t0, t1, nq[5], whole = 0;
    char lim[32], desc[512];
    fixture_make(&f, G16_DEMO_BITS, 20000, 4);
    g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
    assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    nq[0] = f.p->n_h, nq[1] = f.p->n_l, nq[2] = f.p->n_a, nq[3] = f.p->n_b_g1, nq[4] = f.p->n_b_g2;
    for (int q = 0; q < 5; q++) {
        size_t w = g16__gpu_msm_scratch_bytes(nq[q], q == 4);
        whole = w > whole ? w : whole;
    }
    /* what one worker holds between proofs, without the matrices and the spare set */
    size_t used, held = prover_held(g, &f, 1, &used);

    /* card sizes: two workers' holdings, one whole-query scratch and the reserve, plus from a few
     * MiB (too little for a second scratch: whole > the reserve here) to two more scratches */
    size_t extra[5] = {(size_t)4 << 20, whole / 2, whole + G16__GPU_RESERVE, 2 * whole + G16__GPU_RESERVE,
                       3 * whole + 2 * G16__GPU_RESERVE};
    int both = 0, proved = 0;
    char *saved = env_set("G16_GPU_MEM_LIMIT", "1G");
    assert_true(whole > G16__GPU_RESERVE + extra[0]);
    for (int k = 0; k < 5; k++) {
        size_t room = 2 * held + whole + G16__GPU_RESERVE + extra[k];
        snprintf(lim, sizeof lim, "%zu", used + room);
        setenv("G16_GPU_MEM_LIMIT", lim, 1);
        /* the two workers as prove.c opens them: the second one's plan withholds the first one's
         * transient bytes; when both are created, what they leave free covers both at once */
        if (g16__gpu_prover_create(&gp0, 0, f.p, f.r, &err) != G16_OK)
            fail_msg("first worker limited to %s bytes: %s", lim, err.msg);
        t0 = g16__gpu_prover_transient_bytes(gp0);
        g16_status st = g16__gpu_prover_create_shared(&gp1, 0, t0, f.p, f.r, &err);
        if (st == G16_OK) {
            /* g was opened before the limit: what is in use now, against the limit */
            assert_int_equal(g16__gpu_mem_info(g, &after, &total, &err), G16_OK);
            size_t left = used + room > total - after ? used + room - (total - after) : 0;
            t1 = g16__gpu_prover_transient_bytes(gp1);
            g16__gpu_prover_describe(gp1, desc, sizeof desc);
            printf("  limit %s bytes: %zu left free by both workers, their MSMs take up to %zu + %zu; second: %s\n",
                   lim, left, t0, t1, desc);
            assert_true(t0 >= g16__gpu_msm_scratch_bytes(32, 0) && t1 >= g16__gpu_msm_scratch_bytes(32, 0));
            assert_true(left >= t0 + t1);
            both++;
        } else {
            printf("  limit %s bytes: second worker refused: %s\n", lim, err.msg);
            assert_int_equal(st, G16_ERR_NOMEM);
            /* a plan's refusal gives the totals once, then the items (the items used to repeat the total) */
            const char *items = strstr(err.msg, "kept in reserve): ");
            if (items) { /* and the message holds them all, the withheld bytes last */
                assert_false(isdigit((unsigned char)items[strlen("kept in reserve): ")]));
                assert_non_null(strstr(items, "other workers' MSMs on this card"));
            }
        }
        g16__gpu_prover_destroy(gp1);
        g16__gpu_prover_destroy(gp0);
        gp0 = gp1 = NULL;

        /* a whole batch on two workers sharing the card */
#ifdef G16_FAKE_GPU
        g16__fake_gpu_peak_reset(0);
        size_t base = g16__fake_gpu_used(0);
#endif
        memset(gpu, 0xA5, f.count * sizeof *gpu);
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0,0"};
        g16_prover *pv = NULL;
        st = g16_prover_create(&pv, f.p, f.r, &o, &err);
        if (st == G16_ERR_NOMEM)
            continue; /* refused at creation, with the bytes needed */
        if (st != G16_OK)
            fail_msg("devices 0,0 limited to %s bytes: %s", lim, err.msg);
        assert_int_equal(g16_prover_workers(pv), 2);
        st = g16_prover_prove(pv, gpu, (const g16_fr *const *)f.w, f.count, &o, &err);
        g16_prover_destroy(pv);
        if (st != G16_OK)
            fail_msg("devices 0,0 limited to %s bytes: %s", lim, err.msg);
        expect_same_proofs(cpu, gpu, f.count, "two workers on one card");
        proved++;
#ifdef G16_FAKE_GPU
        size_t peak = g16__fake_gpu_peak(0) - base;
        printf("    devices 0,0 proved; device peak %zu bytes of the %zu the limit leaves\n", peak, room);
        assert_true(peak <= room);
#endif
    }
    assert_true(both > 0);
    assert_true(proved > 0);
    env_restore("G16_GPU_MEM_LIMIT", saved);
    g16__gpu_close(g);
    free(cpu);
    free(gpu);
    fixture_free(&f);
}

static void test_no_leak(void **state)
{
    (void)state;
    if (!have_device())
        return;
    const char *nb = getenv("G16_GPU_TEST_LEAK_BATCHES");
    int batches = nb && atoi(nb) > 0 ? atoi(nb) : 10;
    g16__gpu *g;
    g16_error err = {0, ""};
    size_t before, after, total;
    fixture f;
    fixture_make(&f, G16_DEMO_BITS, 4000, 10);
    g16_proof *out = calloc(f.count, sizeof *out);
    assert_int_equal(g16__gpu_open(&g, 0, &err), G16_OK);
    /* one batch first: the CUDA runtime's own lazily loaded modules are not a leak */
    assert_int_equal(prove_with(&f, out, "gpu", "0", &err), G16_OK);
    assert_int_equal(g16__gpu_mem_info(g, &before, &total, &err), G16_OK);
    for (int k = 0; k < batches; k++)
        if (prove_with(&f, out, "gpu", "0", &err) != G16_OK)
            fail_msg("batch %d: %s", k, err.msg);
    assert_int_equal(g16__gpu_mem_info(g, &after, &total, &err), G16_OK);
    printf("  device memory free before %zu, after %d proofs %zu bytes\n", before, batches * (int)f.count, after);
    assert_int_equal(before, after);
    g16__gpu_close(g);
    free(out);
    fixture_free(&f);
}

int main(void)
{
    tu_seed("test_gpu_prove");
    /* G16_TEST_FILTER=name (a cmocka pattern): only those tests */
    if (getenv("G16_TEST_FILTER"))
        cmocka_set_test_filter(getenv("G16_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_scalars),
        cmocka_unit_test(test_compaction_large),
        cmocka_unit_test(test_gpu_compaction),
        cmocka_unit_test(test_gpu_equals_cpu),
        cmocka_unit_test(test_gpu_h_step),
        cmocka_unit_test(test_gpu_c_from_ab),
        cmocka_unit_test(test_gpu_no_host_c),
        cmocka_unit_test(test_gpu_spmv),
        cmocka_unit_test(test_gpu_spmv_rows),
        cmocka_unit_test(test_gpu_spmv_first),
        cmocka_unit_test(test_gpu_spmv_first_batch),
        cmocka_unit_test(test_prover_reuse),
        cmocka_unit_test(test_batch_failure),
        cmocka_unit_test(test_batch_failure_lowest),
        cmocka_unit_test(test_gpu_prefetch),
        cmocka_unit_test(test_gpu_prefetch_a),
        cmocka_unit_test(test_gpu_prefetch_a_partial),
        cmocka_unit_test(test_gpu_a_slot3),
#ifdef G16_FAKE_GPU
        cmocka_unit_test(test_gpu_prefetch_failed_wait),
#endif
        cmocka_unit_test(test_gpu_witness_late),
        cmocka_unit_test(test_gpu_prefetch_batch),
        cmocka_unit_test(test_gpu_early_witness),
        cmocka_unit_test(test_gpu_pairs),
        cmocka_unit_test(test_bad_devices),
        cmocka_unit_test(test_gpu_memory),
        cmocka_unit_test(test_gpu_mem_limit),
        cmocka_unit_test(test_gpu_h_two_vectors_limit),
        cmocka_unit_test(test_gpu_stream_chunks_limit),
        cmocka_unit_test(test_gpu_shared_card),
        cmocka_unit_test(test_no_leak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
