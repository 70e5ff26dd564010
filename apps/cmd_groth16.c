/* g16 setup | prove | verify | demo: Groth16 over built-in demo circuits and files. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cmd_compat.h"
#include "field/fr.h"
#include "util/bgfree.h"
#include "util/trace.h"

#define NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* Witnesses for a batch: circuit 0's and, for the "bits" demo (whose structure does not depend
 * on the seed), fresh witnesses from seeds seed+1, ...; otherwise the same witness again. */
static int batch_witnesses(const char *cmd, cli_opt *opts, size_t nopts, const cli_circuit *c, size_t count,
                           g16_fr ***out)
{
    g16_fr **w = calloc(count, sizeof *w);
    if (!w)
        return cli_fail(cmd, G16_ERR_NOMEM, NULL, "allocating the batch");
    w[0] = c->witness;
    int vary = !cli_find(opts, nopts, "--r1cs")->set && !strcmp(cli_find(opts, nopts, "--circuit")->value, "bits");
    for (size_t i = 1; i < count; i++) {
        w[i] = c->witness;
        if (!vary)
            continue;
        cli_opt *seed = cli_find(opts, nopts, "--seed");
        uint64_t s0;
        if (cli_u64(cmd, seed, &s0))
            return 2;
        g16_cs *cs;
        g16_error err = {0};
        uint64_t m;
        cli_u64(cmd, cli_find(opts, nopts, "--constraints"), &m);
        g16__span sp = g16__span_begin_n("synthesis", i);
        g16_status st = g16_demo_circuit(&cs, G16_DEMO_BITS, m, s0 + i, &err);
        g16_fr *wi = malloc(c->w_len * sizeof *wi);
        if (st == G16_OK)
            st = wi ? g16_cs_witness(cs, wi, c->w_len, &err) : G16_ERR_NOMEM;
        g16_cs_destroy(cs);
        g16__span_end(sp);
        if (st != G16_OK) {
            free(wi);
            return cli_fail(cmd, st, &err, "building a witness of the batch");
        }
        w[i] = wi;
    }
    *out = w;
    return 0;
}

static void free_batch(g16_fr **w, size_t count, const cli_circuit *c)
{
    if (!w)
        return;
    for (size_t i = 1; i < count; i++)
        if (w[i] != c->witness)
            free(w[i]);
    free(w);
}

int g16__app_setup(int argc, char **argv)
{
    cli_opt opts[] = {
        CLI_CIRCUIT_OPTS,
        {"--params", "FILE", "write the parameters here (bellman format)", NULL, 0},
        {"--vk", "FILE", "also write the verifying key here", NULL, 0},
        {"--save-r1cs", "FILE", "also write the compiled circuit here", NULL, 0},
        {"--insecure-seed", "S", "derive the toxic waste from S (tests only: anyone can forge proofs)", NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 setup --params FILE [options]",
                       "Generates Groth16 parameters for a circuit from fresh random toxic waste (OS CSPRNG).");
    if (rc)
        return rc < 0 ? 2 : 0;
    if (!cli_find(opts, NOPTS(opts), "--params")->set) {
        fprintf(stderr, "g16 setup: --params FILE is required\n");
        return 2;
    }
    cli_circuit c;
    if ((rc = cli_circuit_load("setup", opts, NOPTS(opts), 0, &c)) != 0)
        goto cleanup;
    g16_setup_opts so = {0, 0};
    cli_opt *seed = cli_find(opts, NOPTS(opts), "--insecure-seed");
    if (seed->set) {
        so.deterministic = 1;
        if (cli_u64("setup", seed, &so.seed)) {
            rc = 2;
            goto cleanup;
        }
    }
    g16_params *p = NULL;
    g16_error err = {0};
    g16_status st = g16_setup(&p, c.r1cs, &so, &err);
    if (st == G16_OK)
        st = g16_params_save(p, cli_find(opts, NOPTS(opts), "--params")->value, &err);
    cli_opt *vk = cli_find(opts, NOPTS(opts), "--vk"), *r1 = cli_find(opts, NOPTS(opts), "--save-r1cs");
    if (st == G16_OK && vk->set)
        st = g16_vk_save(g16_params_vk(p), vk->value, &err);
    if (st == G16_OK && r1->set)
        st = g16_r1cs_save(c.r1cs, r1->value, &err);
    if (st != G16_OK) {
        rc = cli_fail("setup", st, &err, "setup failed");
    } else {
        g16_params_info info;
        g16_params_get_info(p, &info);
        printf("setup: %llu inputs, h %llu, l %llu, a %llu, b %llu points; %llu bytes written to %s\n",
               (unsigned long long)info.n_ic, (unsigned long long)info.n_h, (unsigned long long)info.n_l,
               (unsigned long long)info.n_a, (unsigned long long)info.n_b_g1, (unsigned long long)info.file_bytes,
               cli_find(opts, NOPTS(opts), "--params")->value);
    }
    g16_params_destroy(p);
cleanup:
    cli_circuit_free(&c);
    return rc;
}

static int write_proofs(const char *cmd, const char *path, const g16_proof *proofs, size_t count)
{
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "g16 %s: %s: cannot create\n", cmd, path);
        return 2;
    }
    int ok = 1;
    for (size_t i = 0; i < count && ok; i++) {
        uint8_t b[G16_PROOF_BYTES];
        g16_proof_write(b, &proofs[i]);
        ok = fwrite(b, 1, sizeof b, f) == sizeof b;
    }
    ok = (fclose(f) == 0) && ok;
    if (!ok)
        fprintf(stderr, "g16 %s: %s: write failed\n", cmd, path);
    return ok ? 0 : 2;
}

int g16__app_prove(int argc, char **argv)
{
    if (g16__compat_prove_wants_zkey(argc, argv)) /* a circom witness and a snarkjs zkey */
        return g16__app_prove_zkey(argc, argv);
    cli_opt opts[] = {
        CLI_CIRCUIT_OPTS,
        {"--params", "FILE", "parameters (bellman format)", NULL, 0},
        {"--batch", "K", "proofs in the batch (the bits demo varies the witness by seed)", "1", 0},
        {"--proof", "FILE", "write the proofs here (192 bytes each, concatenated)", NULL, 0},
        {"--public", "FILE", "write the public inputs here (one line of hex per proof)", NULL, 0},
        {"--check-subgroups", NULL, "check every parameter point's subgroup at load (slow; see below)", NULL, 0},
        {"--no-verify", NULL, "do not verify the proofs before writing them (benchmarks)", NULL, 0},
        {"--save-witness", "FILE", "also write the first witness here (for --r1cs/--witness runs)", NULL, 0},
        {"--backend", "B", "cpu, gpu or auto (default: $G16_BACKEND, else auto)", NULL, 0},
        {"--devices", "LIST", "GPU workers: device indices like 0,1 or all (default: $G16_DEVICES, else all)",
         NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 prove --params FILE --proof FILE [options]",
                       "Proves a batch of witnesses of one circuit; every proof is verified before it is written.\n"
                       "circom witnesses: g16 prove --zkey Z --wtns W ... (a snarkjs zkey) or g16 prove --params P "
                       "--r1cs C --wtns W ... (parameters from snarkjs zkey export bellman); see g16 prove --wtns X "
                       "--help.");
    if (rc)
        return rc < 0 ? 2 : 0;
    if (!cli_find(opts, NOPTS(opts), "--params")->set || !cli_find(opts, NOPTS(opts), "--proof")->set) {
        fprintf(stderr, "g16 prove: --params FILE and --proof FILE are required\n");
        return 2;
    }
    uint64_t count;
    if (cli_u64("prove", cli_find(opts, NOPTS(opts), "--batch"), &count))
        return 2;
    if (count == 0 || count > 1024) {
        fprintf(stderr, "g16 prove: --batch must be between 1 and 1024\n");
        return 2;
    }
    cli_circuit c;
    g16_fr **ws = NULL;
    g16_params *p = NULL;
    g16_proof *proofs = NULL;
    g16_error err = {0};
    g16_status st;
    if ((rc = cli_circuit_load("prove", opts, NOPTS(opts), 1, &c)) != 0 ||
        (rc = batch_witnesses("prove", opts, NOPTS(opts), &c, count, &ws)) != 0)
        goto cleanup;
    cli_opt *save_w = cli_find(opts, NOPTS(opts), "--save-witness");
    if (save_w->set && (st = cli_witness_save(save_w->value, c.witness, c.w_len, &err)) != G16_OK) {
        rc = cli_fail("prove", st, &err, "writing the witness");
        goto cleanup;
    }
    /* Parameter points always get the range and curve checks; the subgroup checks cost more than
     * the proof itself and guard nothing the prover does not check anyway: each proof is decoded
     * with every check and verified before it is written. */
    unsigned lflags = cli_find(opts, NOPTS(opts), "--check-subgroups")->set ? 0 : G16_PARAMS_UNCHECKED;
    if ((st = g16_params_load(&p, cli_find(opts, NOPTS(opts), "--params")->value, lflags, &err)) != G16_OK) {
        rc = cli_fail("prove", st, &err, "loading the parameters");
        goto cleanup;
    }
    proofs = malloc(count * sizeof *proofs);
    g16_prove_opts po = {.flags = cli_find(opts, NOPTS(opts), "--no-verify")->set ? G16_PROVE_NO_VERIFY : 0,
                         .backend = cli_find(opts, NOPTS(opts), "--backend")->value,
                         .devices = cli_find(opts, NOPTS(opts), "--devices")->value};
    st = proofs ? g16_prove(proofs, p, c.r1cs, (const g16_fr *const *)ws, count, &po, &err) : G16_ERR_NOMEM;
    if (st != G16_OK) {
        rc = cli_fail("prove", st, &err, "proving failed");
        goto cleanup;
    }
    if ((rc = write_proofs("prove", cli_find(opts, NOPTS(opts), "--proof")->value, proofs, count)) != 0)
        goto cleanup;
    cli_opt *pub = cli_find(opts, NOPTS(opts), "--public");
    if (pub->set) {
        const g16_fr **ins = malloc(count * sizeof *ins);
        for (size_t i = 0; ins && i < count; i++)
            ins[i] = ws[i] + 1;
        st = ins ? cli_public_save(pub->value, ins, c.num_inputs - 1, count, &err) : G16_ERR_NOMEM;
        free(ins);
        if (st != G16_OK) {
            rc = cli_fail("prove", st, &err, "writing the public inputs");
            goto cleanup;
        }
    }
    printf("prove: %llu proof(s) written to %s\n", (unsigned long long)count, cli_find(opts, NOPTS(opts), "--proof")->value);
cleanup:
    free(proofs);
    g16_params_destroy(p);
    free_batch(ws, count, &c);
    cli_circuit_free(&c);
    return rc;
}

int g16__app_verify(int argc, char **argv)
{
    if (g16__compat_verify_wants_json(argc, argv)) /* snarkjs verification_key.json */
        return g16__app_verify_json(argc, argv);
    cli_opt opts[] = {
        {"--vk", "FILE", "verifying key (bellman format), or a parameter file", NULL, 0},
        {"--proof", "FILE", "proofs (192 bytes each, concatenated)", NULL, 0},
        {"--public", "FILE", "public inputs (one line of hex per proof)", NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 verify --vk FILE --proof FILE --public FILE",
                       "Verifies proofs. Exit status 0: all valid; 1: some proof is invalid; 2: error.");
    if (rc)
        return rc < 0 ? 2 : 0;
    if (cli_require_all("verify", opts, NOPTS(opts)))
        return 2;
    g16_error err = {0};
    g16_status st;
    g16_vk *vk = NULL;
    g16_pvk *pvk = NULL;
    uint8_t *pb = NULL;
    g16_fr *inputs = NULL;
    size_t plen, count;
    rc = 2;
    if ((st = g16_vk_load(&vk, opts[0].value, &err)) != G16_OK) {
        cli_fail("verify", st, &err, "loading the verifying key");
        goto cleanup;
    }
    size_t n_inputs = g16_vk_num_inputs(vk) - 1;
    if ((st = cli_read_file(opts[1].value, &pb, &plen, &err)) != G16_OK ||
        (st = cli_public_load(opts[2].value, n_inputs, &inputs, &count, &err)) != G16_OK ||
        (st = g16_pvk_create(&pvk, vk, &err)) != G16_OK) {
        cli_fail("verify", st, &err, "reading the inputs");
        goto cleanup;
    }
    if (plen == 0 || plen % G16_PROOF_BYTES || plen / G16_PROOF_BYTES != count) {
        fprintf(stderr, "g16 verify: %s holds %zu bytes (%zu proofs of 192 bytes?) but %s has %zu lines\n",
                opts[1].value, plen, plen / G16_PROOF_BYTES, opts[2].value, count);
        goto cleanup;
    }
    rc = 0;
    for (size_t i = 0; i < count; i++) {
        g16_proof proof;
        st = g16_proof_read(&proof, pb + i * G16_PROOF_BYTES, &err);
        if (st == G16_OK)
            st = g16_verify(pvk, &proof, inputs + i * n_inputs, n_inputs, &err);
        printf("proof %zu: %s\n", i, st == G16_OK ? "valid" : "INVALID");
        if (st != G16_OK) {
            fprintf(stderr, "g16 verify: proof %zu: %s\n", i, err.msg[0] ? err.msg : g16_strerror(st));
            rc = 1;
        }
    }
cleanup:
    g16_pvk_destroy(pvk);
    g16_vk_destroy(vk);
    free(pb);
    free(inputs);
    return rc;
}

/* The README's main job: synthesize a demo circuit, set up, save and reload the parameters (with
 * every check), prove a batch, verify it, and print the phase table from the trace. */
int g16__app_demo(int argc, char **argv)
{
    cli_opt opts[] = {
        CLI_CIRCUIT_OPTS,
        {"--batch", "K", "proofs in the batch", "2", 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 demo [options]",
                       "Groth16 end to end on a built-in circuit: setup, prove a batch, verify, phase table.");
    if (rc)
        return rc < 0 ? 2 : 0;
    uint64_t count;
    if (cli_u64("demo", cli_find(opts, NOPTS(opts), "--batch"), &count))
        return 2;
    if (count == 0 || count > 64) {
        fprintf(stderr, "g16 demo: --batch must be between 1 and 64\n");
        return 2;
    }
    if (!g16__trace_enabled())
        g16__trace_enable(G16__TRACE_RECORD);
    double t0 = cli_now();
    cli_circuit c = {0};
    g16_fr **ws = NULL;
    g16_params *setup = NULL, *p = NULL;
    g16_pvk *pvk = NULL;
    g16_proof *proofs = NULL;
    const g16_fr **ins = NULL;
    g16_error err = {0};
    g16_status st;
    char path[64];
    snprintf(path, sizeof path, "/tmp/g16-demo-%d.params", (int)getpid());

    g16__span demo = g16__span_begin("demo");
    g16__span sp = g16__span_begin("synthesis");
    rc = cli_circuit_load("demo", opts, NOPTS(opts), 1, &c);
    g16__span_end(sp);
    if (rc || (rc = batch_witnesses("demo", opts, NOPTS(opts), &c, count, &ws)) != 0)
        goto cleanup;
    g16_r1cs_info ri;
    g16_r1cs_get_info(c.r1cs, &ri);
    printf("circuit: %s, %llu constraints (domain 2^%u), %llu public inputs, %llu private variables\n",
           cli_find(opts, NOPTS(opts), "--circuit")->value, (unsigned long long)ri.num_constraints,
           ri.log_domain_size, (unsigned long long)(ri.num_inputs - 1), (unsigned long long)ri.num_aux);
    if ((st = g16_setup(&setup, c.r1cs, NULL, &err)) != G16_OK ||
        (st = g16_params_save(setup, path, &err)) != G16_OK) {
        rc = cli_fail("demo", st, &err, "setup");
        goto cleanup;
    }
    g16_params_destroy(setup);
    setup = NULL;
    if ((st = g16_params_load(&p, path, 0, &err)) != G16_OK) {
        rc = cli_fail("demo", st, &err, "loading the parameters");
        goto cleanup;
    }
    unlink(path);
    proofs = malloc(count * sizeof *proofs);
    ins = malloc(count * sizeof *ins);
    if (!proofs || !ins) {
        rc = cli_fail("demo", G16_ERR_NOMEM, NULL, "allocating the batch");
        goto cleanup;
    }
    if ((st = g16_prove(proofs, p, c.r1cs, (const g16_fr *const *)ws, count, NULL, &err)) != G16_OK) {
        rc = cli_fail("demo", st, &err, "proving");
        goto cleanup;
    }
    for (size_t i = 0; i < count; i++)
        ins[i] = ws[i] + 1;
    if ((st = g16_pvk_create(&pvk, g16_params_vk(p), &err)) != G16_OK ||
        (st = g16_verify_batch(pvk, proofs, ins, c.num_inputs - 1, count, &err)) != G16_OK) {
        rc = cli_fail("demo", st, &err, "verifying the batch");
        goto cleanup;
    }
    for (size_t i = 0; i < count; i++) {
        uint8_t b[G16_PROOF_BYTES];
        g16_proof_write(b, &proofs[i]);
        printf("proof %zu: ", i);
        for (int k = 0; k < 8; k++)
            printf("%02x", b[k]);
        printf("... (192 bytes) verified\n");
    }
    /* the verifier must refuse a changed public input */
    if (c.num_inputs > 1) {
        g16_fr *bad = malloc((c.num_inputs - 1) * sizeof *bad);
        memcpy(bad, ins[0], (c.num_inputs - 1) * sizeof *bad);
        g16__fr_add(&bad[0], &bad[0], &g16__fr_one);
        st = g16_verify(pvk, &proofs[0], bad, c.num_inputs - 1, NULL);
        free(bad);
        printf("proof 0 with a changed public input: %s\n", st == G16_ERR_VERIFY_FAILED ? "refused" : "ACCEPTED");
        if (st != G16_ERR_VERIFY_FAILED) {
            rc = 2;
            goto cleanup;
        }
    }
cleanup:
    unlink(path);
    g16_pvk_destroy(pvk);
    g16_params_destroy(setup);
    g16_params_destroy(p);
    free(proofs);
    free(ins);
    free_batch(ws, count, &c);
    cli_circuit_free(&c);
    g16__free_async_wait();
    g16__span_end(demo);
    if (rc == 0) {
        printf("\nphases (G16_TRACE_FILE=path writes them as a Perfetto/Chrome trace):\n");
        g16__trace_report(stdout);
        printf("demo: %.2f s wall\n", cli_now() - t0);
    }
    return rc;
}
