/* Every CUDA call of a GPU batch failing in turn (the fake GPU, tests/fakegpu/fakegpu.h): for each
 * k, the k-th fallible backend call of a g16_prove / g16_prover_prove run fails as a CUDA error
 * would, and the run must either give the CPU's proofs byte for byte (a failure the prover absorbs,
 * e.g. no spare buffer: no prefetch) or fail with G16_ERR_DEVICE and the call in the message --
 * never another proof, a crash, a hang or a leak (device objects counted by the fake; host memory
 * by LeakSanitizer in the sanitizer build). A kept prover must prove correctly after a failed
 * batch, and hold no more device memory than after a clean one. Worker layouts: queries resident
 * (a/b/c from the device and from the CPU, two workers on one card and one on each of two), MSMs
 * in pieces, in passes, queries streamed in chunks, the H step in two vectors. */
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakegpu.h"
#include "gpu/gpu.h"
#include "util/bgfree.h"

typedef struct {
    g16_cs *cs;
    g16_r1cs *r;
    g16_params *p;
    size_t w_len, count;
    g16_fr **w;
    g16_fr *rs;
    g16_proof *cpu;
} fixture;

static void fixture_make(fixture *f, size_t rows, size_t count)
{
    g16_error err = {0, ""};
    uint64_t seed = tu_rand64();
    memset(f, 0, sizeof *f);
    f->count = count;
    assert_int_equal(g16_demo_circuit(&f->cs, G16_DEMO_BITS, rows, seed, &err), G16_OK);
    assert_int_equal(g16_cs_finalize(f->cs, &f->r, &err), G16_OK);
    f->w_len = g16_cs_num_inputs(f->cs) + g16_cs_num_aux(f->cs);
    f->w = calloc(count, sizeof *f->w);
    f->rs = malloc(2 * count * sizeof *f->rs);
    f->cpu = calloc(count, sizeof *f->cpu);
    assert_non_null(f->w);
    assert_non_null(f->rs);
    assert_non_null(f->cpu);
    for (size_t i = 0; i < count; i++) { /* a different witness per circuit, same structure */
        g16_cs *ci;
        f->w[i] = malloc(f->w_len * sizeof(g16_fr));
        assert_non_null(f->w[i]);
        assert_int_equal(g16_demo_circuit(&ci, G16_DEMO_BITS, rows, seed + i, &err), G16_OK);
        assert_int_equal(g16_cs_witness(ci, f->w[i], f->w_len, &err), G16_OK);
        g16_cs_destroy(ci);
    }
    for (size_t i = 0; i < 2 * count; i++)
        tu_rand_fr(&f->rs[i]);
    g16_setup_opts so = {1, tu_rand64()};
    assert_int_equal(g16_setup(&f->p, f->r, &so, &err), G16_OK);
    g16_prove_opts o = {.r = f->rs, .s = f->rs + count, .backend = "cpu"};
    assert_int_equal(g16_prove(f->cpu, f->p, f->r, (const g16_fr *const *)f->w, count, &o, &err), G16_OK);
}

static void fixture_free(fixture *f)
{
    for (size_t i = 0; i < f->count; i++)
        free(f->w[i]);
    free(f->w);
    free(f->rs);
    free(f->cpu);
    g16_params_destroy(f->p);
    g16_r1cs_destroy(f->r);
    g16_cs_destroy(f->cs);
}

static int same_as_cpu(const fixture *f, const g16_proof *got)
{
    for (size_t i = 0; i < f->count; i++) {
        uint8_t x[G16_PROOF_BYTES], y[G16_PROOF_BYTES];
        g16_proof_write(x, &f->cpu[i]);
        g16_proof_write(y, &got[i]);
        if (memcmp(x, y, sizeof x) != 0)
            return 0;
    }
    return 1;
}

/* The outcome of one run with a failure injected: the CPU's proofs, or the injected error
 * (G16_ERR_DEVICE naming the call; G16_ERR_NOMEM for a refused allocation, nomem = 1). Returns 1
 * for an error, 0 for success. */
static int check_outcome(const fixture *f, g16_status st, const g16_error *err, const g16_proof *got,
                         const char *what, uint64_t k, int nomem)
{
    if (st == G16_OK) {
        if (!same_as_cpu(f, got))
            fail_msg("%s, failure at call %llu: success, but the proofs differ from the CPU's", what,
                     (unsigned long long)k);
        return 0;
    }
    if (st != (nomem ? G16_ERR_NOMEM : G16_ERR_DEVICE) || !strstr(err->msg, "injected failure"))
        fail_msg("%s, failure at call %llu: status %d (%s), message '%s' (expected the injected error)", what,
                 (unsigned long long)k, (int)st, g16_strerror(st), err->msg);
    return 1;
}

static void expect_nothing_live(const char *what, uint64_t k)
{
    g16__free_async_wait(); /* (page-locked buffers go to the background freeing thread) */
    size_t live = g16__fake_gpu_live(), u0 = g16__fake_gpu_used(0), u1 = g16__fake_gpu_used(1);
    if (live || u0 || u1) {
        g16__fake_gpu_dump(stdout);
        fail_msg("%s, failure at call %llu: %zu objects and %zu + %zu device bytes left behind", what,
                 (unsigned long long)k, live, u0, u1);
    }
}

/* Runs per sweep: every call up to SWEEP_ALL, then evenly spaced ones, about SWEEP_RUNS in all
 * (fewer under AddressSanitizer, where a run costs ~7x: the CI's sanitizer stage). */
#if defined(__SANITIZE_ADDRESS__)
#define SWEEP_ALL 16
#define SWEEP_RUNS 40
#else
#define SWEEP_ALL 64
#define SWEEP_RUNS 192
#endif

static uint64_t sweep_next(uint64_t k, uint64_t calls)
{
    uint64_t step = calls > SWEEP_RUNS ? (calls - SWEEP_ALL) / (SWEEP_RUNS - SWEEP_ALL) + 1 : 1;
    return k < SWEEP_ALL ? k + 1 : k + step;
}

typedef struct {
    const char *what, *devices;
    const char *env[4][2]; /* name, value */
} layout;

static void set_layout(const layout *l, int on)
{
    for (int i = 0; i < 4 && l->env[i][0]; i++) {
        if (on)
            setenv(l->env[i][0], l->env[i][1], 1);
        else
            unsetenv(l->env[i][0]);
    }
}

/* Fallible calls of one clean run, then a run failing at each of them (evenly spaced ones past
 * the first SWEEP_ALL, to bound the time) and a few past the end (no failure then); then each
 * allocation of the clean run refused as out of memory (the prover may fall back: no prefetch,
 * smaller pieces; or report G16_ERR_NOMEM). */
static void sweep_prove(const fixture *f, const layout *l)
{
    g16_error err = {0, ""};
    g16_proof *got = calloc(f->count, sizeof *got);
    g16_prove_opts o = {.r = f->rs, .s = f->rs + f->count, .backend = "gpu", .devices = l->devices};
    assert_non_null(got);
    set_layout(l, 1);
    g16__fake_gpu_fail_at(0);
    if (g16_prove(got, f->p, f->r, (const g16_fr *const *)f->w, f->count, &o, &err) != G16_OK)
        fail_msg("%s: %s", l->what, err.msg);
    assert_true(same_as_cpu(f, got));
    uint64_t calls = g16__fake_gpu_calls(), errors = 0, runs = 0;
    expect_nothing_live(l->what, 0);
    for (uint64_t k = 1; k <= calls + 4; k = sweep_next(k, calls)) {
        memset(got, 0, f->count * sizeof *got);
        err.msg[0] = 0;
        g16__fake_gpu_fail_at(k);
        g16_status st = g16_prove(got, f->p, f->r, (const g16_fr *const *)f->w, f->count, &o, &err);
        g16__fake_gpu_fail_at(0);
        errors += check_outcome(f, st, &err, got, l->what, k, 0);
        expect_nothing_live(l->what, k);
        runs++;
    }
    /* each allocation of a clean run refused in turn */
    g16__fake_gpu_fail_alloc_at(0);
    assert_int_equal(g16_prove(got, f->p, f->r, (const g16_fr *const *)f->w, f->count, &o, &err), G16_OK);
    uint64_t nalloc = g16__fake_gpu_allocs(), nomem_errors = 0;
    for (uint64_t k = 1; k <= nalloc; k = sweep_next(k, nalloc)) {
        memset(got, 0, f->count * sizeof *got);
        err.msg[0] = 0;
        g16__fake_gpu_fail_alloc_at(k);
        g16_status st = g16_prove(got, f->p, f->r, (const g16_fr *const *)f->w, f->count, &o, &err);
        g16__fake_gpu_fail_alloc_at(0);
        nomem_errors += check_outcome(f, st, &err, got, l->what, k, 1);
        expect_nothing_live(l->what, k);
    }
    set_layout(l, 0);
    printf("  %s: %llu backend calls per batch of %zu; %llu runs with one failing: %llu errors, the others the "
           "CPU's proofs; %llu allocations refused in turn: %llu G16_ERR_NOMEM, the others absorbed\n", l->what,
           (unsigned long long)calls, f->count, (unsigned long long)runs, (unsigned long long)errors,
           (unsigned long long)nalloc, (unsigned long long)nomem_errors);
    assert_true(errors > runs / 2); /* most calls matter: the injection reaches the caller */
    assert_true(nalloc > 0);
    free(got);
}

static void test_fault_sweep(void **state)
{
    (void)state;
    fixture f;
    fixture_make(&f, 600, 3);
    static const layout layouts[] = {
        {"resident, SpMV on the device", "0", {{NULL, NULL}}},
        {"resident, a/b/c from the CPU, two workers on card 0", "0,0", {{"G16_GPU_SPMV", "0"}}},
        {"resident, one worker on each of cards 0 and 1", "0,1", {{NULL, NULL}}},
        {"resident, MSMs in pieces of 224 points", "0", {{"G16_GPU_PIECE", "224"}}},
        {"resident, MSMs whole in passes of 3 windows", "0", {{"G16_GPU_PASSES", "3"}}},
        {"resident, a/b/c from the CPU, the next a copied during the witness MSMs", "0",
         {{"G16_GPU_SPMV", "0"}, {"G16_GPU_PREFETCH", "a"}}},
        {"resident, the first circuit's SpMV on the device (staged), the next a copied during the witness MSMs", "0",
         {{"G16_GPU_SPMV", "first"}, {"G16_GPU_PREFETCH", "a"}}},
        {"resident, each worker's first circuit's SpMV on the device, two workers on card 0", "0,0",
         {{"G16_GPU_SPMV", "first"}}},
        {"streamed in chunks of 201 points", "0", {{"G16_GPU_STREAM", "1"}, {"G16_GPU_CHUNK", "201"}}},
        {"streamed, the H step in two vectors", "0", {{"G16_GPU_STREAM", "1"}, {"G16_GPU_H_SLOTS", "2"}}},
        {"streamed in chunks of 201 points, witness MSMs in pairs (no early ones)", "0",
         {{"G16_GPU_STREAM", "1"}, {"G16_GPU_CHUNK", "201"}, {"G16_GPU_EARLY_W", "0"}}},
        {"h, b_g2 resident, the others streamed, no early witness MSMs", "0",
         {{"G16_GPU_RESIDENT", "h,b_g2"}, {"G16_GPU_CHUNK", "201"}, {"G16_GPU_EARLY_W", "0"}}},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
        sweep_prove(&f, &layouts[i]);
    fixture_free(&f);
}

static uint64_t kept_errors;

/* One kept prover: a clean batch, then a batch failing at each of its calls in turn, each followed
 * by a clean batch that must give the CPU's proofs. Returns the clean batch's call count (errors in
 * kept_errors). */
static uint64_t kept_batches(const fixture *f, g16_proof *got, const g16_prove_opts *o, const char *what)
{
    g16_error err = {0, ""};
    g16_prover *pv = NULL;
    g16__fake_gpu_fail_at(0);
    assert_int_equal(g16_prover_create(&pv, f->p, f->r, o, &err), G16_OK);
    g16__fake_gpu_fail_at(0);
    assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f->w, f->count, o, &err), G16_OK);
    uint64_t calls = g16__fake_gpu_calls();
    kept_errors = 0;
    for (uint64_t k = 1; k <= calls + 2; k = sweep_next(k, calls)) {
        memset(got, 0, f->count * sizeof *got);
        g16__fake_gpu_fail_at(k);
        g16_status st = g16_prover_prove(pv, got, (const g16_fr *const *)f->w, f->count, o, &err);
        g16__fake_gpu_fail_at(0);
        kept_errors += check_outcome(f, st, &err, got, what, k, 0);
        memset(got, 0, f->count * sizeof *got);
        if (g16_prover_prove(pv, got, (const g16_fr *const *)f->w, f->count, o, &err) != G16_OK)
            fail_msg("%s, the batch after a failure at call %llu: %s", what, (unsigned long long)k, err.msg);
        if (!same_as_cpu(f, got))
            fail_msg("%s, the batch after a failure at call %llu: proofs differ from the CPU's", what,
                     (unsigned long long)k);
    }
    g16_prover_destroy(pv);
    expect_nothing_live(what, 0);
    return calls;
}

/* A kept prover (g16_prover_create once): creation failing at each call leaves nothing behind;
 * a batch failing at any call leaves the prover able to prove the next batch correctly. */
static void test_fault_kept_prover(void **state)
{
    (void)state;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, 600, 3);
    g16_proof *got = calloc(f.count, sizeof *got);
    g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0"};
    g16_prover *pv = NULL;
    assert_non_null(got);
    g16__fake_gpu_fail_at(0);
    assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
    uint64_t create_calls = g16__fake_gpu_calls(), create_errors = 0;
    g16_prover_destroy(pv);
    expect_nothing_live("prover creation", 0);
    for (uint64_t k = 1; k <= create_calls + 2; k++) {
        pv = NULL;
        g16__fake_gpu_fail_at(k);
        g16_status st = g16_prover_create(&pv, f.p, f.r, &o, &err);
        g16__fake_gpu_fail_at(0);
        if (st != G16_OK) {
            create_errors++;
            assert_null(pv);
            if (st != G16_ERR_DEVICE || !strstr(err.msg, "injected failure"))
                fail_msg("prover creation, failure at call %llu: %s", (unsigned long long)k, err.msg);
        }
        g16_prover_destroy(pv);
        expect_nothing_live("prover creation", k);
    }
    printf("  kept prover: creation (%llu calls) failing at each: %llu errors, nothing left\n",
           (unsigned long long)create_calls, (unsigned long long)create_errors);
    assert_true(create_errors > 0);
    /* the pipeline's usual order; every circuit's witness MSMs early with the GPU stage waiting for
     * each prefetch (a failure between the H step and msm.h then always falls in a poll); a/b/c
     * from the CPU; streamed in chunks (the upload thread); two workers, on one card and on two */
    static const layout kept[] = {
        {"kept prover", "0", {{NULL, NULL}}},
        {"kept prover, every circuit early, prefetch=wait", "0",
         {{"G16_GPU_EARLY_W", "2"}, {"G16_GPU_PREFETCH", "wait"}}},
        {"kept prover, a/b/c from the CPU, prefetch=wait", "0", {{"G16_GPU_SPMV", "0"}, {"G16_GPU_PREFETCH", "wait"}}},
        {"kept prover, streamed in chunks of 201", "0", {{"G16_GPU_STREAM", "1"}, {"G16_GPU_CHUNK", "201"}}},
        {"kept prover, two workers on card 0", "0,0", {{NULL, NULL}}},
        {"kept prover, the first circuit's SpMV on the device", "0", {{"G16_GPU_SPMV", "first"}}},
        {"kept prover, one worker on each of cards 0 and 1", "0,1", {{"G16_GPU_EARLY_W", "2"}}},
    };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++) {
        g16_prove_opts ko = o;
        ko.devices = kept[i].devices;
        set_layout(&kept[i], 1);
        uint64_t calls = kept_batches(&f, got, &ko, kept[i].what);
        set_layout(&kept[i], 0);
        printf("  %s: a batch (%llu calls) failing at each call: %llu errors, the next batch the CPU's proofs every "
               "time\n", kept[i].what, (unsigned long long)calls, (unsigned long long)kept_errors);
        assert_true(kept_errors > 0);
    }
    free(got);
    fixture_free(&f);
}

/* A failed batch leaves the device as a clean batch does: what a kept prover holds between batches
 * (its buffers and resident queries), no MSM scratch on top, which the next batch's memory plan
 * does not count (the largest run's scratch is what it keeps free). Streamed layouts without the
 * chunk upload thread only: that thread may hold the next chunk after a batch, clean or not. */
static void test_fault_device_use(void **state)
{
    (void)state;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, 600, 2);
    g16_proof *got = calloc(f.count, sizeof *got);
    assert_non_null(got);
    static const layout layouts[] = {
        {"resident, SpMV on the device", "0", {{NULL, NULL}}},
        {"resident, a/b/c from the CPU, every circuit early", "0", {{"G16_GPU_SPMV", "0"}, {"G16_GPU_EARLY_W", "2"}}},
        {"resident, MSMs in pieces of 224 points", "0", {{"G16_GPU_PIECE", "224"}}},
        {"resident, MSMs whole in passes of 3 windows", "0", {{"G16_GPU_PASSES", "3"}}},
        {"resident, a/b/c from the CPU, the next a copied during the witness MSMs", "0",
         {{"G16_GPU_SPMV", "0"}, {"G16_GPU_PREFETCH", "a"}, {"G16_GPU_EARLY_W", "0"}}},
        {"resident, the first circuit's SpMV on the device (staged)", "0", {{"G16_GPU_SPMV", "first"}}},
        {"resident, the first circuit's SpMV on the device, every circuit early", "0",
         {{"G16_GPU_SPMV", "first"}, {"G16_GPU_EARLY_W", "2"}}},
        {"streamed in chunks of 201 points, no upload thread", "0",
         {{"G16_GPU_STREAM", "1"}, {"G16_GPU_CHUNK", "201"}, {"G16_GPU_STREAM_OVERLAP", "0"}}},
        {"h, b_g2 resident, the others streamed, no upload thread", "0",
         {{"G16_GPU_RESIDENT", "h,b_g2"}, {"G16_GPU_CHUNK", "201"}, {"G16_GPU_STREAM_OVERLAP", "0"}}},
        {"the H step in two vectors", "0", {{"G16_GPU_H_SLOTS", "2"}}},
    };
    for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++) {
        g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = layouts[i].devices};
        g16_prover *pv = NULL;
        uint64_t errors = 0;
        set_layout(&layouts[i], 1);
        g16__fake_gpu_fail_at(0);
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        g16__fake_gpu_fail_at(0);
        assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err), G16_OK);
        uint64_t calls = g16__fake_gpu_calls();
        size_t held = g16__fake_gpu_used(0);
        for (uint64_t k = 1; k <= calls; k = sweep_next(k, calls)) {
            g16__fake_gpu_fail_at(k);
            g16_status st = g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err);
            g16__fake_gpu_fail_at(0);
            errors += st != G16_OK;
            size_t used = g16__fake_gpu_used(0);
            if (used != held) {
                g16__fake_gpu_dump(stdout);
                fail_msg("%s, failure at call %llu (%s): %zu device bytes in use after the batch, %zu after a clean "
                         "one", layouts[i].what, (unsigned long long)k, st == G16_OK ? "no error" : err.msg, used,
                         held);
            }
        }
        g16_prover_destroy(pv);
        set_layout(&layouts[i], 0);
        expect_nothing_live(layouts[i].what, 0);
        printf("  %s: a batch (%llu calls) failing at each call: %llu errors, the device as after a clean batch\n",
               layouts[i].what, (unsigned long long)calls, (unsigned long long)errors);
    }
    free(got);
    fixture_free(&f);
}

/* A sticky failure (a kernel fault: every later call of the process fails, as CUDA's context is
 * then lost): the batch fails with G16_ERR_DEVICE or, when the fault came after its last call,
 * succeeds with the CPU's proofs; every later batch on the kept prover fails with G16_ERR_DEVICE
 * (never a proof), and destroying the prover leaves nothing behind. */
static void test_fault_sticky(void **state)
{
    (void)state;
    fixture f;
    g16_error err = {0, ""};
    fixture_make(&f, 600, 2);
    g16_proof *got = calloc(f.count, sizeof *got);
    g16_prove_opts o = {.r = f.rs, .s = f.rs + f.count, .backend = "gpu", .devices = "0"};
    g16_prover *pv = NULL;
    assert_non_null(got);
    g16__fake_gpu_fail_at(0);
    assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
    g16__fake_gpu_fail_at(0);
    assert_int_equal(g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err), G16_OK);
    uint64_t calls = g16__fake_gpu_calls(), errors = 0;
    g16_prover_destroy(pv);
    g16__fake_gpu_sticky(1);
    for (uint64_t k = 1; k <= calls; k = sweep_next(k, calls)) {
        pv = NULL;
        g16__fake_gpu_fail_at(0);
        assert_int_equal(g16_prover_create(&pv, f.p, f.r, &o, &err), G16_OK);
        g16__fake_gpu_fail_at(k);
        memset(got, 0, f.count * sizeof *got);
        g16_status st = g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err);
        errors += check_outcome(&f, st, &err, got, "sticky failure", k, 0);
        if (st != G16_OK) {
            memset(got, 0, f.count * sizeof *got);
            st = g16_prover_prove(pv, got, (const g16_fr *const *)f.w, f.count, &o, &err);
            if (st != G16_ERR_DEVICE || !strstr(err.msg, "sticky"))
                fail_msg("sticky failure at call %llu: the next batch gave status %d (%s)", (unsigned long long)k,
                         (int)st, err.msg);
        }
        g16_prover_destroy(pv);
        g16__fake_gpu_fail_at(0);
        expect_nothing_live("sticky failure", k);
    }
    g16__fake_gpu_sticky(0);
    printf("  sticky failure at each of a batch's %llu calls: %llu failed batches, each followed by a batch that "
           "fails with the device error; nothing left after destroy\n", (unsigned long long)calls,
           (unsigned long long)errors);
    assert_true(errors > 0);
    free(got);
    fixture_free(&f);
}

int main(void)
{
    tu_seed("test_fakegpu_faults");
    setenv("G16_FAKE_GPUS", "2", 1);
    if (getenv("G16_TEST_FILTER"))
        cmocka_set_test_filter(getenv("G16_TEST_FILTER"));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fault_sweep),
        cmocka_unit_test(test_fault_kept_prover),
        cmocka_unit_test(test_fault_sticky),
        cmocka_unit_test(test_fault_device_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
