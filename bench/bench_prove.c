/*
 * Full Groth16 proofs on the CPU: for each size, a child process sets up a demo circuit and
 * writes the parameters; a second child loads them (checked), synthesizes the witness and proves
 * a batch, and reports its phase times (from the trace) and its peak RSS. Separate processes
 * keep each size's peak memory its own.
 *
 *   bench_prove [max_log=16] [min_log=10] [kind=bits|field] [batch=1]
 *
 * Memory target (issue 3): peak RSS of the proving process <= parameter file + 256 bytes per
 * constraint. The table prints both and the excess per constraint.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"
#include "g16.h"
#include "util/trace.h"


typedef struct {
    double load_ms, synth_ms, prove_ms, check_ms, spmv_ms, ntt_ms, msm_ms[5], assemble_ms, verify_ms;
    long peak_kib;
    double params_bytes;
    int ok;
} result;

static int build(g16_demo_kind kind, uint64_t m, uint64_t seed, g16_r1cs **r, g16_fr **w, size_t *w_len)
{
    g16_cs *cs;
    g16_error err = {0};
    if (g16_demo_circuit(&cs, kind, m, seed, &err) || g16_cs_finalize(cs, r, &err)) {
        fprintf(stderr, "bench_prove: circuit: %s\n", err.msg);
        return -1;
    }
    if (w) {
        *w_len = g16_cs_num_inputs(cs) + g16_cs_num_aux(cs);
        *w = malloc(*w_len * sizeof **w);
        if (!*w || g16_cs_witness(cs, *w, *w_len, &err))
            return -1;
    }
    g16_cs_destroy(cs);
    return 0;
}

static int child_setup(g16_demo_kind kind, uint64_t m, const char *path)
{
    g16_r1cs *r;
    g16_params *p;
    g16_setup_opts so = {1, 42};
    g16_error err = {0};
    if (build(kind, m, 1, &r, NULL, NULL) || g16_setup(&p, r, &so, &err) || g16_params_save(p, path, &err)) {
        fprintf(stderr, "bench_prove: setup: %s\n", err.msg);
        return 1;
    }
    return 0;
}

static int child_prove(g16_demo_kind kind, uint64_t m, const char *path, size_t batch, result *res)
{
    g16_r1cs *r;
    g16_fr *w;
    size_t w_len;
    g16_params *p;
    g16_error err = {0};
    g16__trace_enable(G16__TRACE_RECORD);
    double t0 = bench_now_s();
    if (build(kind, m, 7, &r, &w, &w_len))
        return 1;
    res->synth_ms = (bench_now_s() - t0) * 1e3;
    t0 = bench_now_s();
    if (g16_params_load(&p, path, G16_PARAMS_UNCHECKED, &err)) { /* as g16 prove: curve checks only */
        fprintf(stderr, "bench_prove: load: %s\n", err.msg);
        return 1;
    }
    res->load_ms = (bench_now_s() - t0) * 1e3;
    g16_proof *proofs = malloc(batch * sizeof *proofs);
    const g16_fr **ws = malloc(batch * sizeof *ws);
    for (size_t i = 0; i < batch; i++)
        ws[i] = w;
    t0 = bench_now_s();
    if (g16_prove(proofs, p, r, ws, batch, NULL, &err)) {
        fprintf(stderr, "bench_prove: prove: %s\n", err.msg);
        return 1;
    }
    res->prove_ms = (bench_now_s() - t0) * 1e3;
    res->check_ms = bench_span_ms("prove/prove.synth/r1cs.check");
    res->spmv_ms = bench_span_ms("prove/prove.synth/spmv");
    res->ntt_ms = bench_span_ms("prove/prove.circuit/ntt.h");
    const char *msm[5] = {"msm.h", "msm.l", "msm.a", "msm.b_g1", "msm.b_g2"};
    for (int i = 0; i < 5; i++) {
        char pathbuf[64];
        snprintf(pathbuf, sizeof pathbuf, "prove/prove.circuit/%s", msm[i]);
        res->msm_ms[i] = bench_span_ms(pathbuf);
    }
    res->assemble_ms = bench_span_ms("prove/prove.circuit/prove.assemble");
    res->verify_ms = bench_span_ms("prove/prove.circuit/verify");
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    res->peak_kib = ru.ru_maxrss;
    g16_params_info info;
    g16_params_get_info(p, &info);
    res->params_bytes = (double)info.file_bytes;
    res->ok = 1;
    return 0;
}

/* Runs "self child <what> <kind> <m> <batch> <path>" (a fresh exec, so that the child traces and
 * its peak RSS is its own); a proving child writes its result struct to stdout. */
static int in_child(const char *self, const char *what, g16_demo_kind kind, uint64_t m, const char *path, size_t batch,
                    result *res)
{
    int fds[2];
    if (pipe(fds))
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char ks[4], ms[24], bs[24];
        snprintf(ks, sizeof ks, "%d", (int)kind);
        snprintf(ms, sizeof ms, "%llu", (unsigned long long)m);
        snprintf(bs, sizeof bs, "%zu", batch);
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(self, self, "child", what, ks, ms, bs, path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    memset(res, 0, sizeof *res);
    ssize_t got = read(fds[0], res, sizeof *res);
    close(fds[0]);
    int status;
    waitpid(pid, &status, 0);
    int ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    return ok && (!strcmp(what, "setup") || got == (ssize_t)sizeof *res) ? 0 : -1;
}

static int child_main(char **argv)
{
    g16_demo_kind kind = (g16_demo_kind)atoi(argv[3]);
    uint64_t m = strtoull(argv[4], NULL, 10);
    size_t batch = (size_t)atoi(argv[5]);
    if (!strcmp(argv[2], "setup"))
        return child_setup(kind, m, argv[6]);
    result r = {0};
    int rc = child_prove(kind, m, argv[6], batch, &r);
    if (rc == 0 && fwrite(&r, sizeof r, 1, stdout) != 1)
        rc = 1;
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 7 && !strcmp(argv[1], "child"))
        return child_main(argv);
    unsigned max_log = argc > 1 ? (unsigned)atoi(argv[1]) : 16, min_log = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
    g16_demo_kind kind = argc > 3 && !strcmp(argv[3], "field") ? G16_DEMO_FIELD : G16_DEMO_BITS;
    size_t batch = argc > 4 ? (size_t)atoi(argv[4]) : 1;
    if (min_log < 9)
        min_log = 9;
    char path[64];
    snprintf(path, sizeof path, "/tmp/bench_prove_%d.params", (int)getpid());
    printf("Groth16 prove on the CPU, demo circuit '%s', batch %zu, threads: G16_THREADS or all cores\n",
           kind == G16_DEMO_BITS ? "bits" : "field", batch);
    printf("%-6s %9s %9s | %8s %7s %7s %8s %8s %8s %8s %8s %8s %7s %7s | %9s %9s %9s\n", "log2 m", "load ms",
           "prove ms", "check", "spmv", "ntt.h", "msm.h", "msm.l", "msm.a", "msm.b1", "msm.b2", "assemble", "verify",
           "synth", "params MB", "peak MB", "B/constr");
    for (unsigned lg = min_log; lg <= max_log; lg++) {
        /* just under 2^lg so that with the input constraints the domain is 2^lg (as in Filecoin
         * circuits sized for their domain); 2^lg exactly would pad a, b, c to twice the size */
        uint64_t m = (1ULL << lg) - 64;
        result res;
        if (in_child(argv[0], "setup", kind, m, path, batch, &res) || in_child(argv[0], "prove", kind, m, path, batch, &res)) {
            printf("%-6u failed\n", lg);
            unlink(path);
            return 1;
        }
        double excess = (res.peak_kib * 1024.0 - res.params_bytes) / (double)m;
        printf("%-6u %9.1f %9.1f | %8.1f %7.1f %7.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %7.1f %7.1f | %9.1f %9.1f %9.0f\n",
               lg, res.load_ms, res.prove_ms, res.check_ms, res.spmv_ms, res.ntt_ms, res.msm_ms[0], res.msm_ms[1],
               res.msm_ms[2], res.msm_ms[3], res.msm_ms[4], res.assemble_ms, res.verify_ms, res.synth_ms,
               res.params_bytes / 1e6, res.peak_kib / 1024.0, excess);
        fflush(stdout);
        unlink(path);
    }
    printf("B/constr = (peak RSS - parameter file) / constraints; target <= 256 (issue 3). Phase columns in ms.\n");
    return 0;
}
