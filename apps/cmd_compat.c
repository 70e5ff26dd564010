/* g16 prove --zkey / --params (circom witnesses), g16 verify (snarkjs JSON), g16 check, g16 export,
 * g16 ptau: see cmd_compat.h. */
#include "cmd_compat.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "compat/circom_r1cs.h"
#include "compat/iden3.h"
#include "compat/ptau.h"
#include "compat/snarkjs.h"
#include "field/fr.h"
#include "groth16/groth16.h"
#include "groth16/zkey.h"
#include "util/bgfree.h"
#include "util/error.h"
#include "util/trace.h"

#define NOPTS(a) (sizeof(a) / sizeof((a)[0]))

static const char *opt(cli_opt *o, size_t n, const char *name) { return cli_find(o, n, name)->value; }
static int has(cli_opt *o, size_t n, const char *name) { return cli_find(o, n, name)->set; }

/* Writes text to path (replacing it). */
static g16_status write_text(const char *path, const char *text, g16_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return g16__error(err, G16_ERR_IO, "%s: %s", path, strerror(errno));
    size_t n = strlen(text);
    int ok = fwrite(text, 1, n, f) == n;
    ok = (fclose(f) == 0) && ok;
    return ok ? G16_OK : g16__error(err, G16_ERR_IO, "%s: write failed", path);
}

static g16_status write_json(const char *path, char *text, g16_error *err)
{
    g16_status st = text ? write_text(path, text, err) : g16__error(err, G16_ERR_NOMEM, "%s: building the JSON", path);
    free(text);
    return st;
}

static g16_status read_wtns(const char *path, g16_fr **w, size_t *n, g16_error *err)
{
    g16__mapped m;
    g16_status st = g16__map_file(&m, path, err);
    if (st == G16_OK)
        st = g16__wtns_read(w, n, m.buf, m.len, path, err);
    g16__unmap_file(&m);
    return st;
}

static g16_status read_r1cs(const char *path, g16__r1cs_file *r, g16_error *err)
{
    g16__mapped m;
    g16_status st = g16__map_file(&m, path, err);
    if (st == G16_OK)
        st = g16__r1cs_file_read(r, m.buf, m.len, path, err);
    g16__unmap_file(&m);
    return st;
}

/* ---------------------------------------------------------------- prove --zkey / --params */

int g16__compat_prove_wants_zkey(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--zkey") || !strcmp(argv[i], "--wtns"))
            return 1;
    return 0;
}

/* With --r1cs: the witness against the circuit's constraints first, naming a failing one. */
static int precheck(const char *r1cs_path, const g16_fr *w, size_t n)
{
    g16__r1cs_file r;
    g16_error err = {0};
    uint64_t bad;
    g16_status st = read_r1cs(r1cs_path, &r, &err);
    if (st != G16_OK)
        return cli_fail("prove", st, &err, "reading the circuit");
    st = g16__r1cs_file_check(&r, w, n, &bad, &err);
    g16__r1cs_file_free(&r);
    return st == G16_OK ? 0 : cli_fail("prove", st, &err, "the witness does not satisfy the circuit");
}

/* The proof and public values as snarkjs JSON. */
static int write_outputs(cli_opt *opts, size_t nopts, const g16_proof *proof, const g16_fr *w, uint64_t n_public)
{
    g16_error err = {0};
    g16_status st;
    if ((st = write_json(opt(opts, nopts, "--proof"), g16__snarkjs_proof_json(proof), &err)) != G16_OK ||
        (has(opts, nopts, "--public") &&
         (st = write_json(opt(opts, nopts, "--public"), g16__snarkjs_public_json(w + 1, n_public), &err)) != G16_OK))
        return cli_fail("prove", st, &err, "writing");
    return 0;
}

/* --params (a `snarkjs zkey export bellman` file) with the circom circuit (--r1cs): the circuit is
 * built as bellman builds circuits (compat/circom_r1cs.h) and proved by g16_prove, whose H step
 * runs over snarkjs's domain for these parameters (groth16.h: origin). */
static int prove_exported(cli_opt *opts, size_t nopts, const g16_fr *w, size_t n, double t0)
{
    g16_error err = {0};
    g16_status st;
    g16__r1cs_file rf = {0};
    g16_r1cs *r1cs = NULL;
    g16_params *p = NULL;
    g16_proof proof;
    int rc = 2;
    if ((st = read_r1cs(opt(opts, nopts, "--r1cs"), &rf, &err)) != G16_OK ||
        (st = g16__r1cs_from_circom(&r1cs, &rf, &err)) != G16_OK) {
        cli_fail("prove", st, &err, "reading the circuit");
        goto cleanup;
    }
    g16_r1cs_info ri;
    g16_r1cs_get_info(r1cs, &ri);
    if (n != ri.num_inputs + ri.num_aux) {
        fprintf(stderr, "g16 prove: the witness has %zu values, the circuit has %llu wires\n", n,
                (unsigned long long)(ri.num_inputs + ri.num_aux));
        goto cleanup;
    }
    /* Range and curve checks always; subgroup checks on request (as for --zkey: the proof is
     * decoded with every check and verified against the fully checked key before it is written). */
    unsigned flags = G16__PARAMS_SNARKJS | (has(opts, nopts, "--check-subgroups") ? 0 : G16_PARAMS_UNCHECKED);
    if ((st = g16_params_load(&p, opt(opts, nopts, "--params"), flags, &err)) != G16_OK) {
        cli_fail("prove", st, &err, "loading the parameters (a snarkjs export)");
        goto cleanup;
    }
    double t1 = cli_now();
    /* Either backend builds the domain these parameters need (g16__params_root_generator). */
    g16_prove_opts po = {.flags = has(opts, nopts, "--no-verify") ? G16_PROVE_NO_VERIFY : 0,
                         .backend = opt(opts, nopts, "--backend")};
    if ((st = g16_prove(&proof, p, r1cs, &w, 1, &po, &err)) != G16_OK) {
        cli_fail("prove", st, &err, "proving failed");
        goto cleanup;
    }
    double t2 = cli_now();
    if ((rc = write_outputs(opts, nopts, &proof, w, ri.num_inputs - 1)) != 0)
        goto cleanup;
    printf("prove: %llu wires, %llu public, domain 2^%u (snarkjs export); read %.3f s, proved %.3f s%s; proof "
           "written to %s\n",
           (unsigned long long)n, (unsigned long long)(ri.num_inputs - 1), ri.log_domain_size, t1 - t0, t2 - t1,
           po.flags ? " (not verified)" : " (verified)", opt(opts, nopts, "--proof"));
    rc = 0;
cleanup:
    g16_params_destroy(p);
    g16_r1cs_destroy(r1cs);
    g16__r1cs_file_free(&rf);
    return rc;
}

static int prove_zkey(cli_opt *opts, size_t nopts, const g16_fr *w, size_t n, double t0)
{
    g16_error err = {0};
    g16_status st;
    g16__mapped m = {0};
    g16__zkey zk = {0};
    g16_proof proof;
    const char *zpath = opt(opts, nopts, "--zkey");
    int rc = 2;
    if (has(opts, nopts, "--r1cs") && precheck(opt(opts, nopts, "--r1cs"), w, n))
        goto cleanup;
    /* The proving points get the range and curve checks; their subgroup checks cost several
     * times the proof (17.6 s against 1.2 s at 2^15 on 2 cores) and add no safety to what is
     * written: the proof is verified against the zkey's fully checked verifying key first. */
    unsigned flags = has(opts, nopts, "--check-subgroups") ? 0 : G16_PARAMS_UNCHECKED;
    if ((st = g16__map_file(&m, zpath, &err)) != G16_OK ||
        (st = g16__zkey_read(&zk, m.buf, m.len, flags, zpath, &err)) != G16_OK) {
        cli_fail("prove", st, &err, "reading the zkey");
        goto cleanup;
    }
    g16__unmap_file(&m);
    double t1 = cli_now();
    g16_prove_opts po = {.flags = has(opts, nopts, "--no-verify") ? G16_PROVE_NO_VERIFY : 0};
    if ((st = g16__zkey_prove(&proof, &zk, w, n, &po, &err)) != G16_OK) {
        cli_fail("prove", st, &err, "proving failed");
        goto cleanup;
    }
    double t2 = cli_now();
    if ((rc = write_outputs(opts, nopts, &proof, w, zk.n_public)) != 0)
        goto cleanup;
    printf("prove: %llu wires, %llu public, domain 2^%u; read %.3f s, proved %.3f s%s; proof written to %s\n",
           (unsigned long long)zk.n_vars, (unsigned long long)zk.n_public, zk.log_n, t1 - t0, t2 - t1,
           po.flags ? " (not verified)" : " (verified)", opt(opts, nopts, "--proof"));
    rc = 0;
cleanup:
    g16__unmap_file(&m);
    g16__zkey_free(&zk);
    return rc;
}

int g16__app_prove_zkey(int argc, char **argv)
{
    cli_opt opts[] = {
        {"--zkey", "FILE", "Groth16 proving key from snarkjs (BLS12-381)", NULL, 0},
        {"--params", "FILE", "or: parameters from `snarkjs zkey export bellman` (needs --r1cs)", NULL, 0},
        {"--wtns", "FILE", "witness from circom's witness calculator (.wtns)", NULL, 0},
        {"--proof", "FILE", "write the proof here (snarkjs proof.json)", NULL, 0},
        {"--public", "FILE", "write the public values here (snarkjs public.json)", NULL, 0},
        {"--r1cs", "FILE", "the circom circuit (.r1cs); with --zkey: check the witness against it first", NULL, 0},
        {"--check-subgroups", NULL, "also check that every proving point is in its subgroup (slow: 5-10x the proof)", NULL, 0},
        {"--no-verify", NULL, "do not verify the proof before writing it (benchmarks)", NULL, 0},
        {"--backend", "B", "with --params: cpu, gpu or auto (default: $G16_BACKEND, else auto)", NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts),
                       "g16 prove --zkey FILE --wtns FILE --proof FILE [--public FILE] [--r1cs FILE]\n"
                       "   or: g16 prove --params FILE --r1cs FILE --wtns FILE --proof FILE [--public FILE]",
                       "Proves a circom witness (BLS12-381) with a snarkjs zkey, or with the parameters\n"
                       "`snarkjs zkey export bellman` writes from one (the circuit then comes from --r1cs; such\n"
                       "files keep points at infinity as zero bytes, hold one a/b point per wire and need snarkjs's\n"
                       "evaluation domain, which g16 takes care of). The proof is verified before it is written;\n"
                       "`snarkjs groth16 verify` accepts it with the zkey's verification_key.json.");
    if (rc)
        return rc < 0 ? 2 : 0;
    int zkey = has(opts, NOPTS(opts), "--zkey"), params = has(opts, NOPTS(opts), "--params");
    if (zkey == params || !has(opts, NOPTS(opts), "--wtns") || !has(opts, NOPTS(opts), "--proof") ||
        (params && !has(opts, NOPTS(opts), "--r1cs")) || (zkey && has(opts, NOPTS(opts), "--backend"))) {
        fprintf(stderr, "g16 prove: a circom witness needs --wtns FILE, --proof FILE and either --zkey FILE or "
                        "--params FILE --r1cs FILE [--backend B] (see g16 prove --wtns FILE --help)\n");
        return 2;
    }
    double t0 = cli_now();
    g16_error err = {0};
    g16_status st;
    g16_fr *w = NULL;
    size_t n = 0;
    if ((st = read_wtns(opt(opts, NOPTS(opts), "--wtns"), &w, &n, &err)) != G16_OK)
        rc = cli_fail("prove", st, &err, "reading the witness");
    else
        rc = params ? prove_exported(opts, NOPTS(opts), w, n, t0) : prove_zkey(opts, NOPTS(opts), w, n, t0);
    free(w);
    return rc;
}

/* ---------------------------------------------------------------- verify (JSON) */

/* 1 when the file's first non-blank byte opens a JSON object or array. */
static int looks_like_json(const char *path)
{
    FILE *f = fopen(path, "rb");
    int c = EOF;
    if (!f)
        return 0;
    while ((c = fgetc(f)) == ' ' || c == '\t' || c == '\n' || c == '\r')
        ;
    fclose(f);
    return c == '{' || c == '[';
}

int g16__compat_verify_wants_json(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--vk"))
            return looks_like_json(argv[i + 1]);
    return 0;
}

int g16__app_verify_json(int argc, char **argv)
{
    cli_opt opts[] = {
        {"--vk", "FILE", "verifying key (snarkjs verification_key.json)", NULL, 0},
        {"--proof", "FILE", "proof (snarkjs proof.json)", NULL, 0},
        {"--public", "FILE", "public values (snarkjs public.json)", NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 verify --vk FILE --proof FILE --public FILE",
                       "Verifies a snarkjs Groth16 proof (BLS12-381). Exit 0: valid; 1: invalid; 2: error.");
    if (rc)
        return rc < 0 ? 2 : 0;
    if (cli_require_all("verify", opts, NOPTS(opts)))
        return 2;
    g16_error err = {0};
    g16_status st;
    uint8_t *text[3] = {NULL, NULL, NULL};
    size_t len[3];
    g16_vk *vk = NULL;
    g16_pvk *pvk = NULL;
    g16_proof proof;
    g16_fr *inputs = NULL;
    size_t n_inputs = 0;
    rc = 2;
    for (int i = 0; i < 3; i++)
        if ((st = cli_read_file(opts[i].value, &text[i], &len[i], &err)) != G16_OK) {
            cli_fail("verify", st, &err, "reading");
            goto cleanup;
        }
    if ((st = g16__snarkjs_vk_read(&vk, (char *)text[0], len[0], opts[0].value, &err)) != G16_OK ||
        (st = g16__snarkjs_proof_read(&proof, (char *)text[1], len[1], opts[1].value, &err)) != G16_OK ||
        (st = g16__snarkjs_public_read(&inputs, &n_inputs, (char *)text[2], len[2], opts[2].value, &err)) != G16_OK) {
        cli_fail("verify", st, &err, "reading");
        goto cleanup;
    }
    if (n_inputs + 1 != g16_vk_num_inputs(vk)) {
        fprintf(stderr, "g16 verify: %s holds %zu public values, the verifying key expects %llu (nPublic)\n",
                opts[2].value, n_inputs, (unsigned long long)(g16_vk_num_inputs(vk) - 1));
        goto cleanup;
    }
    if ((st = g16_pvk_create(&pvk, vk, &err)) != G16_OK) {
        cli_fail("verify", st, &err, "preparing the key");
        goto cleanup;
    }
    st = g16_verify(pvk, &proof, inputs, n_inputs, &err);
    printf("proof: %s\n", st == G16_OK ? "valid" : "INVALID");
    if (st == G16_OK)
        rc = 0;
    else if (st == G16_ERR_VERIFY_FAILED)
        rc = 1;
    else
        cli_fail("verify", st, &err, "verifying");
cleanup:
    for (int i = 0; i < 3; i++)
        free(text[i]);
    free(inputs);
    g16_vk_destroy(vk);
    g16_pvk_destroy(pvk);
    return rc;
}

/* ---------------------------------------------------------------- check */

int g16__app_check(int argc, char **argv)
{
    cli_opt opts[] = {
        {"--r1cs", "FILE", "circom circuit (.r1cs, BLS12-381)", NULL, 0},
        {"--wtns", "FILE", "witness (.wtns)", NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 check --r1cs FILE --wtns FILE",
                       "Checks a circom witness against its circuit. Exit 0: satisfied; 1: a constraint fails; 2: error.");
    if (rc)
        return rc < 0 ? 2 : 0;
    if (!opts[0].set || !opts[1].set) {
        fprintf(stderr, "g16 check: --r1cs FILE and --wtns FILE are required\n");
        return 2;
    }
    g16_error err = {0};
    g16__r1cs_file r;
    g16_fr *w = NULL;
    size_t n = 0;
    uint64_t bad;
    g16_status st = read_r1cs(opts[0].value, &r, &err);
    if (st != G16_OK)
        return cli_fail("check", st, &err, "reading the circuit");
    rc = 2;
    if ((st = read_wtns(opts[1].value, &w, &n, &err)) != G16_OK) {
        cli_fail("check", st, &err, "reading the witness");
        goto cleanup;
    }
    st = g16__r1cs_file_check(&r, w, n, &bad, &err);
    if (st == G16_OK) {
        printf("satisfied: %llu constraints, %llu wires (%llu public)\n", (unsigned long long)r.n_constraints,
               (unsigned long long)r.n_wires, (unsigned long long)g16__r1cs_file_n_public(&r));
        rc = 0;
    } else if (st == G16_ERR_UNSATISFIED) {
        printf("NOT satisfied: %s\n", err.msg);
        rc = 1;
    } else {
        cli_fail("check", st, &err, "checking");
    }
cleanup:
    free(w);
    g16__r1cs_file_free(&r);
    return rc;
}

/* ---------------------------------------------------------------- export */

static g16_status load_any_vk(cli_opt *opts, size_t nopts, g16_vk **vk, g16_error *err)
{
    if (has(opts, nopts, "--vk"))
        return g16_vk_load(vk, opt(opts, nopts, "--vk"), err);
    if (has(opts, nopts, "--params")) {
        g16_params *p = NULL;
        g16_status st = g16_params_load(&p, opt(opts, nopts, "--params"), G16_PARAMS_UNCHECKED, err);
        if (st == G16_OK)
            st = g16_vk_clone(vk, g16_params_vk(p));
        g16_params_destroy(p);
        return st;
    }
    const char *path = opt(opts, nopts, "--zkey");
    g16__mapped m;
    g16__zkey zk = {0};
    g16_status st = g16__map_file(&m, path, err);
    if (st == G16_OK)
        st = g16__zkey_read(&zk, m.buf, m.len, G16_PARAMS_UNCHECKED, path, err);
    if (st == G16_OK)
        st = g16_vk_clone(vk, &zk.vk);
    g16__unmap_file(&m);
    g16__zkey_free(&zk);
    return st;
}

int g16__app_export(int argc, char **argv)
{
    cli_opt opts[] = {
        {"--vk", "FILE", "verifying key (bellman format)", NULL, 0},
        {"--params", "FILE", "or: parameters (bellman format): their verifying key", NULL, 0},
        {"--zkey", "FILE", "or: a snarkjs zkey: its verifying key", NULL, 0},
        {"--proof", "FILE", "proofs (192 bytes each, concatenated)", NULL, 0},
        {"--public", "FILE", "public inputs (one line of hex per proof, as g16 prove writes them)", NULL, 0},
        {"--out-dir", "DIR", "write verification_key.json, proof.json and public.json here", NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 export --vk FILE [--proof FILE --public FILE] --out-dir DIR",
                       "Writes a verifying key and proofs as snarkjs JSON (several proofs: proof_<i>.json, public_<i>.json).");
    if (rc)
        return rc < 0 ? 2 : 0;
    int sources = has(opts, NOPTS(opts), "--vk") + has(opts, NOPTS(opts), "--params") + has(opts, NOPTS(opts), "--zkey");
    if (sources != 1 || !has(opts, NOPTS(opts), "--out-dir") ||
        has(opts, NOPTS(opts), "--proof") != has(opts, NOPTS(opts), "--public")) {
        fprintf(stderr, "g16 export: one of --vk, --params, --zkey, and --out-dir DIR are required; --proof and "
                        "--public go together\n");
        return 2;
    }
    const char *dir = opt(opts, NOPTS(opts), "--out-dir");
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "g16 export: %s: %s\n", dir, strerror(errno));
        return 2;
    }
    g16_error err = {0};
    g16_status st;
    g16_vk *vk = NULL;
    uint8_t *pb = NULL;
    g16_fr *inputs = NULL;
    size_t plen = 0, count = 0;
    char path[4096];
    rc = 2;
    if ((st = load_any_vk(opts, NOPTS(opts), &vk, &err)) != G16_OK) {
        cli_fail("export", st, &err, "loading the verifying key");
        goto cleanup;
    }
    snprintf(path, sizeof path, "%s/verification_key.json", dir);
    if ((st = write_json(path, g16__snarkjs_vk_json(vk), &err)) != G16_OK) {
        cli_fail("export", st, &err, "writing");
        goto cleanup;
    }
    size_t n_inputs = g16_vk_num_inputs(vk) - 1;
    if (has(opts, NOPTS(opts), "--proof")) {
        if ((st = cli_read_file(opt(opts, NOPTS(opts), "--proof"), &pb, &plen, &err)) != G16_OK ||
            (st = cli_public_load(opt(opts, NOPTS(opts), "--public"), n_inputs, &inputs, &count, &err)) != G16_OK) {
            cli_fail("export", st, &err, "reading");
            goto cleanup;
        }
        if (plen == 0 || plen % G16_PROOF_BYTES || plen / G16_PROOF_BYTES != count) {
            fprintf(stderr, "g16 export: %s holds %zu bytes (%zu proofs of 192 bytes?) but %s has %zu lines\n",
                    opt(opts, NOPTS(opts), "--proof"), plen, plen / G16_PROOF_BYTES, opt(opts, NOPTS(opts), "--public"),
                    count);
            goto cleanup;
        }
        for (size_t i = 0; i < count; i++) {
            g16_proof proof;
            if ((st = g16_proof_read(&proof, pb + i * G16_PROOF_BYTES, &err)) != G16_OK) {
                g16__error_prefix(&err, "proof %zu: ", i);
                cli_fail("export", st, &err, "decoding");
                goto cleanup;
            }
            char suffix[32] = "";
            if (count > 1)
                snprintf(suffix, sizeof suffix, "_%zu", i);
            snprintf(path, sizeof path, "%s/proof%s.json", dir, suffix);
            if ((st = write_json(path, g16__snarkjs_proof_json(&proof), &err)) != G16_OK)
                break;
            snprintf(path, sizeof path, "%s/public%s.json", dir, suffix);
            if ((st = write_json(path, g16__snarkjs_public_json(inputs + i * n_inputs, n_inputs), &err)) != G16_OK)
                break;
        }
        if (st != G16_OK) {
            cli_fail("export", st, &err, "writing");
            goto cleanup;
        }
    }
    printf("export: verification_key.json (%zu public inputs)%s%zu proof(s) written to %s\n", n_inputs,
           count ? " and " : ", ", count, dir);
    rc = 0;
cleanup:
    g16_vk_destroy(vk);
    free(pb);
    free(inputs);
    return rc;
}

/* ---------------------------------------------------------------- ptau */

int g16__app_ptau(int argc, char **argv)
{
    cli_opt opts[] = {
        {"--power", "P", "2^P constraints at most (1 to 24)", NULL, 0},
        {"--insecure-seed", "S", "derive tau, alpha, beta from S (REQUIRED: the toxic waste is known)", NULL, 0},
        {"--out", "FILE", "the prepared .ptau file to write", NULL, 0},
    };
    int rc = cli_parse(argc, argv, opts, NOPTS(opts), "g16 ptau --power P --insecure-seed S --out FILE",
                       "Writes a prepared powers-of-tau file (snarkjs format, phase 2 ready) from KNOWN toxic waste,\n"
                       "for tests and benchmarks only: anyone who knows S can forge proofs for keys made from it.");
    if (rc)
        return rc < 0 ? 2 : 0;
    uint64_t power, seed;
    if (!opts[0].set || !opts[1].set || !opts[2].set) {
        fprintf(stderr, "g16 ptau: --power, --insecure-seed and --out are required\n");
        return 2;
    }
    if (cli_u64("ptau", &opts[0], &power) || cli_u64("ptau", &opts[1], &seed))
        return 2;
    if (power < 1 || power > 24) {
        fprintf(stderr, "g16 ptau: --power must be between 1 and 24\n");
        return 2;
    }
    g16_error err = {0};
    double t0 = cli_now();
    g16_status st = g16__ptau_write_insecure(opts[2].value, (unsigned)power, seed, &err);
    if (st != G16_OK)
        return cli_fail("ptau", st, &err, "writing");
    printf("ptau: power %llu written to %s in %.2f s (INSECURE: seed %llu)\n", (unsigned long long)power, opts[2].value,
           cli_now() - t0, (unsigned long long)seed);
    return 0;
}
