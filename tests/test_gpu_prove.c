/* Groth16 proving on the GPU (src/groth16/prove_gpu.c, the workers of prove.c): the query
 * scalars the GPU gets, checked on any machine against the CPU's density MSMs; and, where a
 * device exists, the device compaction of those scalars against a host loop, GPU proofs byte for
 * byte equal to CPU proofs for the same r and s (bits and
 * field circuits, batches, two workers on one card, queries resident or streamed), device
 * lists refused with clear errors, and device memory unchanged after 100 proofs. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "groth16/prove_gpu.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"

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

/* GPU = CPU byte for byte: several sizes (not powers of two), both demo kinds, batches, one and
 * two workers on the card, queries resident, streamed whole and streamed in chunks. */
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
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        fixture f;
        g16_error err = {0, ""};
        fixture_make(&f, cases[c].kind, cases[c].rows, cases[c].count);
        g16_proof *cpu = calloc(f.count, sizeof *cpu), *gpu = calloc(f.count, sizeof *gpu);
        assert_int_equal(prove_with(&f, cpu, "cpu", NULL, &err), G16_OK);
        if (prove_with(&f, gpu, "gpu", "0", &err) != G16_OK)
            fail_msg("gpu: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "one worker");
        memset(gpu, 0, f.count * sizeof *gpu);
        if (prove_with(&f, gpu, "gpu", "0,0", &err) != G16_OK)
            fail_msg("gpu 0,0: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "two workers on device 0");
        setenv("G16_GPU_STREAM", "1", 1);
        memset(gpu, 0, f.count * sizeof *gpu);
        g16_status st = prove_with(&f, gpu, "gpu", NULL, &err);
        if (st != G16_OK)
            fail_msg("gpu streamed: %s", err.msg);
        expect_same_proofs(cpu, gpu, f.count, "queries streamed");
        /* streamed in small chunks (several per query, the last one short) */
        char chunk[32];
        snprintf(chunk, sizeof chunk, "%zu", cases[c].rows / 3 + 1);
        setenv("G16_GPU_CHUNK", chunk, 1);
        memset(gpu, 0, f.count * sizeof *gpu);
        st = prove_with(&f, gpu, "gpu", NULL, &err);
        unsetenv("G16_GPU_CHUNK");
        unsetenv("G16_GPU_STREAM");
        if (st != G16_OK)
            fail_msg("gpu streamed in chunks of %s: %s", chunk, err.msg);
        expect_same_proofs(cpu, gpu, f.count, "queries streamed in chunks");
        printf("  %s demo, %zu rows, batch %zu: GPU proofs = CPU proofs (1 and 2 workers; queries "
               "resident, streamed, streamed in chunks)\n",
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
 * and, where there is one, on the GPU (whose synth stage runs ahead of its GPU stage). */
static void test_batch_failure(void **state)
{
    (void)state;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, G16_DEMO_BITS, 2000, 4);
    g16_proof *want = calloc(f.count, sizeof *want), *got = calloc(f.count, sizeof *got);
    assert_int_equal(prove_with(&f, want, "cpu", NULL, &err), G16_OK);
    const char *backends[2] = {"cpu", "gpu"};
    for (int b = 0; b < 2; b++) {
        if (b == 1 && !have_device())
            break;
        g16_prover *pv = NULL;
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = backends[b]};
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        for (size_t bad = 1; bad < f.count; bad += 2) {
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
            for (size_t j = 0; j < f.count * sizeof *got; j++)
                assert_int_equal(((unsigned char *)got)[j], 0x5a);
            f.w[bad][k] = keep;
        }
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err), G16_OK);
        expect_same_proofs(want, got, f.count, backends[b]);
        printf("  %s: an unsatisfied witness in a batch of %zu is named, then the batch proves\n", backends[b],
               f.count);
        g16_prover_destroy(pv);
    }
    free(want);
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
        assert_int_equal(g16__gpu_prover_msms(gp, &sums, f.w[0], &err), G16_OK);
        assert_int_equal(g16__gpu_prover_msms(gp, &sums, f.w[0], &err), G16_ERR_ARG);
        printf("  H step of %zu rows (n = %zu, domain from %s) on the GPU = CPU; MSMs consume it\n", rows[c], n,
               c == 1 ? "5" : "7");
        g16__ntt_domain_destroy(dom);
        g16__gpu_prover_destroy(gp);
        free(a);
        free(h);
        fixture_free(&f);
    }
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

/* 100 proofs (10 batches of 10) leave the device's free memory where it was. */
static void test_no_leak(void **state)
{
    (void)state;
    if (!have_device())
        return;
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
    for (int k = 0; k < 10; k++)
        if (prove_with(&f, out, "gpu", "0", &err) != G16_OK)
            fail_msg("batch %d: %s", k, err.msg);
    assert_int_equal(g16__gpu_mem_info(g, &after, &total, &err), G16_OK);
    printf("  device memory free before %zu, after 100 proofs %zu bytes\n", before, after);
    assert_int_equal(before, after);
    g16__gpu_close(g);
    free(out);
    fixture_free(&f);
}

int main(void)
{
    tu_seed("test_gpu_prove");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_scalars),
        cmocka_unit_test(test_compaction_large),
        cmocka_unit_test(test_gpu_compaction),
        cmocka_unit_test(test_gpu_equals_cpu),
        cmocka_unit_test(test_gpu_h_step),
        cmocka_unit_test(test_prover_reuse),
        cmocka_unit_test(test_batch_failure),
        cmocka_unit_test(test_bad_devices),
        cmocka_unit_test(test_no_leak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
