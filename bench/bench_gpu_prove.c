/*
 * Full Groth16 proofs on the GPU backend, 2^min..2^max constraints of a demo circuit, with the
 * phase breakdown from the trace.
 *
 *   bench_gpu_prove [max_log=22] [min_log=16] [kind=bits|field] [batch=1] [devices=0]
 *
 * G16_BENCH_MEM_LIMITS=46G,23G,full runs one prover per listed card size (G16_GPU_MEM_LIMIT for
 * each prover's context; full: none) over the same circuit and parameters, so that the synthesis
 * and the random parameters (~75 s at 2^27) are paid once. An item may add settings for its
 * prover alone, as /NAME=VALUE after the size: "46G,46G/G16_GPU_RESIDENT=0" is an A/B of the
 * partial plan in one process (the backend line on stderr names each plan). The names are unset
 * after the item, so a setting meant for every item goes in each item, not in the environment.
 *
 * A CPU setup at 2^24 would take most of a device session, so the parameters here are random
 * subgroup points generated on the GPU (g16__gpu_msm_create_random_*, downloaded): the proving
 * work is the same as with real parameters, but the proof cannot verify, so proving runs with
 * G16_PROVE_NO_VERIFY. Correctness is the job of tests/test_gpu_prove.c (GPU proofs = CPU proofs
 * byte for byte, verified). One g16_prover per size (its creation, which uploads the queries,
 * is its own column) proves two batches: run 0 and run 1 show whether anything is paid again.
 * The witness check and SpMV of a GPU worker run on its synth thread (paths prove.synth/...),
 * overlapped with the GPU stage of the previous circuit; "waits for synth" is the GPU stage's
 * idle time (for a slot, for the next witness of a pair, for the second copy of a batch's early
 * pair). "upload a,b,c" is the H steps' synchronous uploads of a, b, c (GPU idle meanwhile);
 * with the prefetch (G16_GPU_PREFETCH, prove_gpu.h) the next circuit's copies run during the
 * current MSMs instead: "prefetched" counts the H steps that took them, "wait prefetch" the time
 * they still waited for those copies. Run with G16_GPU_PREFETCH=0 and =1 for an A/B. With the
 * matrices on the device (G16_GPU_SPMV, default when they fit) the synth thread only copies the
 * witness: "spmv (gpu)" is the device's A·w, B·w, C·w inside "H (gpu)", which then also holds the
 * witness's synchronous upload ("upload w"); run with G16_GPU_SPMV=0 and =1 for an A/B. Where they
 * do not stay on the device, the batch's first circuit's SpMV still runs there (G16_GPU_SPMV=1 or
 * first; =resident not), from matrices staged at the batch's start: "spmv (gpu)" then follows the
 * H step's wait for their copies ("/ wait"). With
 * witness MSMs in pairs, "upload w" also holds the second witnesses' uploads after msm.h and the
 * waits for those that crossed PCIe during msm.h (how many did: "of them during msm.h"), and the
 * wait for the H step's witness copy where it was left running under msm.h (G16_GPU_W_LATE).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench_util.h"
#include "g16.h"
#include "gpu/gpu.h"
#include "gpu/msm_gpu.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"
#include "util/trace.h"


/* n random points of the group into dst (host), generated on the device. */
static int random_points(g16__gpu *g, int g2, void *dst, size_t n, uint64_t seed)
{
    g16__gpu_msm *m = NULL;
    g16_error err = {0, ""};
    g16_status st = g2 ? g16__gpu_msm_create_random_p2(&m, g, n, seed, &err)
                       : g16__gpu_msm_create_random_p1(&m, g, n, seed, &err);
    if (st == G16_OK)
        st = g16__gpu_msm_download_bases(m, dst, 0, n, &err);
    g16__gpu_msm_destroy(m);
    if (st != G16_OK)
        fprintf(stderr, "bench_gpu_prove: random points: %s\n", err.msg);
    return st != G16_OK;
}

/* Parameters shaped for r, every point random. */
static int random_params(g16__gpu *g, const struct g16_r1cs *r, struct g16_params **out)
{
    g16_error err = {0, ""};
    struct g16_params *p = calloc(1, sizeof *p);
    if (!p)
        return 1;
    p->vk.n_ic = r->num_inputs;
    p->n_h = r->n - 1;
    p->n_l = r->num_aux;
    p->n_a = r->num_inputs + r->density_count[G16__DENS_A_AUX];
    p->n_b_g1 = p->n_b_g2 = r->density_count[G16__DENS_B_INPUT] + r->density_count[G16__DENS_B_AUX];
    if (g16__params_alloc(p, &err) != G16_OK) {
        fprintf(stderr, "bench_gpu_prove: %s\n", err.msg);
        return 1;
    }
    g16_p1_affine g1[3];
    g16_p2_affine g2[3];
    int bad = random_points(g, 0, g1, 3, 1) || random_points(g, 1, g2, 3, 2) ||
              random_points(g, 0, p->vk.ic, p->vk.n_ic, 3) || random_points(g, 0, p->h, p->n_h, 4) ||
              random_points(g, 0, p->l, p->n_l, 5) || random_points(g, 0, p->a, p->n_a, 6) ||
              random_points(g, 0, p->b_g1, p->n_b_g1, 7) || random_points(g, 1, p->b_g2, p->n_b_g2, 8);
    p->vk.alpha_g1 = g1[0];
    p->vk.beta_g1 = g1[1];
    p->vk.delta_g1 = g1[2];
    p->vk.beta_g2 = g2[0];
    p->vk.gamma_g2 = g2[1];
    p->vk.delta_g2 = g2[2];
    *out = p;
    return bad;
}

/* A GPU-stage span of the proofs, under prove.circuit or under prove.witness_early for the witness
 * MSMs run ahead of their circuit's H step (prove.c): its milliseconds in both places, and in
 * *count (may be NULL) how many times it ran. */
static double circuit_stat(const char *leaf, uint64_t *count)
{
    static const char *const where[2] = {"prove/prove.circuit", "prove/prove.witness_early"};
    double ms = 0;
    uint64_t n = 0;
    for (int i = 0; i < 2; i++) {
        char path[128];
        g16__trace_stat st;
        snprintf(path, sizeof path, "%s/%s", where[i], leaf);
        if (g16__trace_query(path, &st) == G16_OK) {
            ms += (double)st.total_ns / 1e6;
            n += st.count;
        }
    }
    if (count)
        *count = n;
    return ms;
}

static double circuit_ms(const char *leaf) { return circuit_stat(leaf, NULL); }

/* The overlapped H step's device marks (prove_gpu.c, h_profile_end: metrics of ntt.h.gpu in µs)
 * as "a / wait b / b / wait c / c / witness tail" in ms summed over the batch; "-" when the step
 * did not run that way. */
static void h_marks(char *buf, size_t len)
{
    static const char *const keys[] = {"h.a_us", "h.wait_b_us", "h.b_us", "h.wait_c_us", "h.c_us", "h.w_tail_us"};
    g16__trace_stat st;
    size_t e = 0;
    snprintf(buf, len, "-");
    if (g16__trace_query("prove/prove.circuit/ntt.h.gpu", &st) != G16_OK)
        return;
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        int m = 0;
        while (m < G16__TRACE_METRICS && st.metric_key[m] && strcmp(st.metric_key[m], keys[k]) != 0)
            m++;
        if (m == G16__TRACE_METRICS || !st.metric_key[m]) {
            if (k == 0)
                return;
            continue;
        }
        e += (size_t)snprintf(buf + e, e < len ? len - e : 0, "%s%.1f", k ? " / " : "", st.metric_sum[m] / 1e3);
    }
}

/* One prover over circuit r and parameters p (its creation timed once), two batches of `batch`
 * proofs of w, a table row each. Returns nonzero on an error (printed as a row). */
static int run_prover(g16__gpu *g, unsigned lg, const struct g16_r1cs *r, const struct g16_params *p,
                      const g16_fr **ws, g16_proof *proofs, size_t batch, const g16_prove_opts *opts)
{
    g16_prove_opts po = *opts;
    g16_error err = {0, ""};
    double t0;
    g16_prover *pv = NULL;
    t0 = bench_now_s();
    if (g16_prover_create(&pv, p, r, &po, &err) != G16_OK) {
        printf("| %u | prover: %s |\n", lg, err.msg);
        return 1;
    }
    double create_ms = (bench_now_s() - t0) * 1e3;
    for (int run = 0; run < 2; run++) {
        g16__trace_reset();
        g16__trace_enable(G16__TRACE_RECORD);
        t0 = bench_now_s();
        g16_status st = g16_prover_prove(pv, proofs, ws, batch, &po, &err);
        double ms = (bench_now_s() - t0) * 1e3;
        g16__trace_enable(0);
        if (st != G16_OK) {
            printf("| %u | %d | prove: %s |\n", lg, run, err.msg);
            g16_prover_destroy(pv);
            return 1;
        }
        g16__trace_stat ps;
        int64_t unacc = g16__trace_query("prove", &ps) == G16_OK ? ps.unaccounted_ns : 0;
        uint64_t prefetched =
            g16__trace_query("prove/prove.circuit/ntt.h.gpu/gpu.wait_prefetch", &ps) == G16_OK ? ps.count : 0;
        uint64_t early = g16__trace_query("prove/prove.witness_early", &ps) == G16_OK ? ps.count : 0;
        uint64_t pairs, w2_side;
        double w2_ms = circuit_stat("gpu.upload_witness2", &pairs); /* the early pair's too */
        w2_ms += circuit_stat("gpu.wait_witness2", &w2_side);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        /* the device's memory held after the batch: the prover's buffers (g16__gpu_mem_info counts
         * the scratch pool's idle bytes as free; the largest MSM's scratch comes on top while it
         * runs, g16__gpu_msm_scratch_bytes) */
        size_t dev_free = 0, dev_total = 0;
        (void)g16__gpu_mem_info(g, &dev_free, &dev_total, NULL);
        char marks[128];
        h_marks(marks, sizeof marks);
        printf("| %u | %d | %.1f | %.1f | %.1f | %.1f | %.1f / %.1f | %.1f | %s | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | "
               "%.1f | %llu | %llu | %llu (of them during msm.h %llu) | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.2f | "
               "%.2f |\n",
               lg, run, ms, ms / (double)batch, bench_span_ms("prove.synth/r1cs.check"),
               bench_span_ms("prove.synth/spmv"), bench_span_ms("prove/prove.circuit/ntt.h.gpu/gpu.spmv"),
               bench_span_ms("prove/prove.circuit/ntt.h.gpu/gpu.wait_matrices"),
               bench_span_ms("prove/prove.circuit/ntt.h.gpu"), marks,
               bench_span_ms("prove/prove.circuit/msm.h.gpu"), circuit_ms("msm.l.gpu"), circuit_ms("msm.a.gpu"),
               circuit_ms("msm.b_g1.gpu"), circuit_ms("msm.b_g2.gpu"),
               bench_span_ms("prove/prove.circuit/ntt.h.gpu/gpu.upload_witness") + circuit_ms("gpu.upload_witness") +
                   circuit_ms("gpu.wait_witness") + w2_ms,
               bench_span_ms("prove/prove.circuit/ntt.h.gpu/gpu.upload_abc") +
                   bench_span_ms("prove/prove.circuit/ntt.h.gpu/gpu.upload_a"),
               (unsigned long long)prefetched,
               (unsigned long long)early, (unsigned long long)pairs, (unsigned long long)w2_side,
               bench_span_ms("prove/prove.circuit/ntt.h.gpu/gpu.wait_prefetch"),
               circuit_ms("gpu.compact_a") + circuit_ms("gpu.compact_b"),
               bench_span_ms("prove/prove.circuit/prove.assemble"),
               bench_span_ms("prove/wait.synth") + bench_span_ms("prove/prove.circuit/wait.next_w") +
                   bench_span_ms("prove/prove.witness_early/wait.pair_copy"),
               create_ms,
               unacc / 1e6, ru.ru_maxrss / 1048576.0,
               (double)(dev_total - dev_free) / 1e9);
        fflush(stdout);
    }
    t0 = bench_now_s();
    g16_prover_destroy(pv);
    fprintf(stderr, "2^%u: prover destroy %.1f ms\n", lg, (bench_now_s() - t0) * 1e3);
    return 0;
}

/* One G16_BENCH_MEM_LIMITS item, SIZE[/NAME=VALUE...] (len bytes at it): set = 1 sets
 * G16_GPU_MEM_LIMIT (unset for "full") and each NAME; set = 0 unsets them. Returns nonzero (and
 * prints a row) for a malformed item. */
static int item_env(const char *it, size_t len, int set)
{
    char buf[256], *save = NULL;
    if (len >= sizeof buf) {
        printf("| item too long: %.*s |\n", (int)len, it);
        return 1;
    }
    memcpy(buf, it, len);
    buf[len] = 0;
    char *tok = strtok_r(buf, "/", &save);
    if (!tok || !set || !strcmp(tok, "full"))
        unsetenv("G16_GPU_MEM_LIMIT");
    else
        setenv("G16_GPU_MEM_LIMIT", tok, 1);
    while ((tok = strtok_r(NULL, "/", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok) {
            printf("| item %s: expected NAME=VALUE after the size |\n", tok);
            return 1;
        }
        *eq = 0;
        if (set)
            setenv(tok, eq + 1, 1);
        else
            unsetenv(tok);
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 22, min_log = argc > 2 ? (unsigned)atoi(argv[2]) : 16;
    g16_demo_kind kind = argc > 3 && !strcmp(argv[3], "field") ? G16_DEMO_FIELD : G16_DEMO_BITS;
    size_t batch = argc > 4 ? (size_t)atoi(argv[4]) : 1;
    const char *devices = argc > 5 ? argv[5] : "0";
    g16__gpu *g = NULL;
    g16_error err = {0, ""};
    if (batch < 1 || batch > 64)
        batch = 1;
    if (g16__gpu_open(&g, 0, &err) != G16_OK) {
        printf("bench_gpu_prove: no GPU: %s\n", err.msg);
        return 0;
    }
    g16__gpu_info info;
    g16__gpu_get_info(g, &info);
    const char *chk = getenv("G16_GPU_CHECK"), *early_env = getenv("G16_GPU_EARLY_W"), *spmv = getenv("G16_GPU_SPMV");
    printf("Groth16 prove on the GPU backend (%s), demo '%s', batch %zu, devices %s; ms per batch "
           "(phase columns: sums over the batch's circuits); witness rows checked on the %s (G16_GPU_CHECK; always on "
           "the device when the SpMV is there); "
           "early witness MSMs %s (G16_GPU_EARLY_W); A/B/C times the witness on the device when they fit, else "
           "for each batch's first circuit, G16_GPU_SPMV=%s (the rows are then checked on the device too; the backend "
           "line on stderr says which)\n\n",
           info.name, kind == G16_DEMO_BITS ? "bits" : "field", batch, devices,
           chk && !strcmp(chk, "1") ? "device" : "CPU", early_env ? early_env : "default", spmv ? spmv : "default (1)");
    printf("| log2 m | run | prove | per proof | check | spmv | spmv (gpu) / wait for its staged matrices | H (gpu) | H on the device: a / wait b / "
           "b / wait c / c / witness tail | msm.h | msm.l | msm.a | "
           "msm.b_g1 | msm.b_g2 | upload w (and waits for its copies) | upload a,b,c | prefetched | "
           "witness MSMs early | witness MSMs in pairs | "
           "wait prefetch | compact a, b | "
           "assemble | GPU stage waits for synth | prover create (once) | unaccounted in prove | peak RSS GB | "
           "device GB held |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
           "---|---|\n");
    for (unsigned lg = min_log; lg <= max_log; lg++) {
        g16_cs *cs = NULL;
        g16_r1cs *r = NULL;
        struct g16_params *p = NULL;
        uint64_t m = (1ull << lg) - 64; /* room for the input constraints: the domain stays 2^lg */
        double t0 = bench_now_s();
        if (g16_demo_circuit(&cs, kind, m, 7, &err) || g16_cs_finalize(cs, &r, &err)) {
            printf("| %u | circuit: %s |\n", lg, err.msg);
            return 1;
        }
        size_t w_len = g16_cs_num_inputs(cs) + g16_cs_num_aux(cs);
        g16_fr *w = malloc(w_len * sizeof *w);
        if (!w || g16_cs_witness(cs, w, w_len, &err)) {
            printf("| %u | witness failed |\n", lg);
            return 1;
        }
        double synth = bench_now_s() - t0;
        t0 = bench_now_s();
        if (random_params(g, r, &p))
            return 1;
        fprintf(stderr, "2^%u: synthesis %.1f s, random parameters %.1f s\n", lg, synth, bench_now_s() - t0);
        const g16_fr **ws = malloc(batch * sizeof *ws);
        g16_proof *proofs = malloc(batch * sizeof *proofs);
        for (size_t i = 0; i < batch; i++)
            ws[i] = w;
        g16_prove_opts po = {.flags = G16_PROVE_NO_VERIFY, .backend = "gpu", .devices = devices};
        const char *lims = getenv("G16_BENCH_MEM_LIMITS"), *lim = lims;
        if (!lims && run_prover(g, lg, r, p, ws, proofs, batch, &po))
            return 1;
        while (lims && *lim) { /* one prover per item */
            size_t len = strcspn(lim, ",");
            printf("| %u | card: %.*s |\n", lg, (int)len, lim);
            fflush(stdout);
            if (item_env(lim, len, 1) == 0)
                (void)run_prover(g, lg, r, p, ws, proofs, batch, &po); /* (an error is a row; the next runs) */
            (void)item_env(lim, len, 0);
            lim += len + (lim[len] == ',');
        }
        free(ws);
        free(proofs);
        free(w);
        g16_params_destroy(p);
        g16_r1cs_destroy(r);
        g16_cs_destroy(cs);
    }
    g16__gpu_close(g);
    return 0;
}
