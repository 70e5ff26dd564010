/* Shared command-line helpers: see cli.h. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "field/fr.h"
#include "util/error.h"

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

cli_opt *cli_find(cli_opt *opts, size_t nopts, const char *name)
{
    for (size_t i = 0; i < nopts; i++)
        if (!strcmp(opts[i].name, name))
            return &opts[i];
    return NULL;
}

static void print_help(const char *usage, const char *summary, const cli_opt *opts, size_t nopts)
{
    printf("usage: %s\n%s\n\noptions:\n", usage, summary);
    for (size_t i = 0; i < nopts; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", opts[i].name, opts[i].arg ? " " : "", opts[i].arg ? opts[i].arg : "");
        printf("  %-24s %s", left, opts[i].help);
        if (opts[i].arg && opts[i].value)
            printf(" (default: %s)", opts[i].value);
        printf("\n");
    }
    printf("  %-24s %s\n", "--help", "show this help");
}

int cli_parse(int argc, char **argv, cli_opt *opts, size_t nopts, const char *usage, const char *summary)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            print_help(usage, summary, opts, nopts);
            return 1;
        }
        cli_opt *o = cli_find(opts, nopts, argv[i]);
        if (!o) {
            fprintf(stderr, "g16 %s: unknown option '%s' (see g16 %s --help)\n", argv[0], argv[i], argv[0]);
            return -1;
        }
        if (o->arg) {
            if (i + 1 >= argc) {
                fprintf(stderr, "g16 %s: option %s needs a value %s\n", argv[0], o->name, o->arg);
                return -1;
            }
            o->value = argv[++i];
        } else {
            o->value = "1";
        }
        o->set = 1;
    }
    return 0;
}

int cli_require_all(const char *cmd, const cli_opt *opts, size_t nopts)
{
    for (size_t i = 0; i < nopts; i++)
        if (!opts[i].set) {
            fprintf(stderr, "g16 %s: %s%s%s is required\n", cmd, opts[i].name, opts[i].arg ? " " : "",
                    opts[i].arg ? opts[i].arg : "");
            return 2;
        }
    return 0;
}

int cli_u64(const char *cmd, const cli_opt *o, uint64_t *out)
{
    const char *s = o->value;
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        goto bad;
    if (!strncmp(s, "2^", 2)) {
        unsigned long e = strtoul(s + 2, &end, 10);
        if (*end || e > 63 || errno)
            goto bad;
        *out = 1ULL << e;
        return 0;
    }
    *out = strtoull(s, &end, 0);
    if (*end || errno)
        goto bad;
    return 0;
bad:
    fprintf(stderr, "g16 %s: %s expects an unsigned integer, got '%s'\n", cmd, o->name, s ? s : "");
    return -1;
}

int cli_fail(const char *cmd, g16_status st, const g16_error *err, const char *what)
{
    if (err && err->msg[0])
        fprintf(stderr, "g16 %s: %s: %s (%s)\n", cmd, what, err->msg, g16_strerror(st));
    else
        fprintf(stderr, "g16 %s: %s: %s\n", cmd, what, g16_strerror(st));
    return 2;
}

g16_status cli_read_file(const char *path, uint8_t **buf, size_t *len, g16_error *err)
{
    g16_status st = G16_OK;
    uint8_t *b = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return g16__error(err, G16_ERR_IO, "%s: %s", path, strerror(errno));
    if (fseek(f, 0, SEEK_END) != 0) {
        st = g16__error(err, G16_ERR_IO, "%s: cannot seek", path);
        goto cleanup;
    }
    long n = ftell(f);
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        st = g16__error(err, G16_ERR_IO, "%s: cannot size", path);
        goto cleanup;
    }
    b = malloc((size_t)n + 1);
    if (!b) {
        st = g16__error(err, G16_ERR_NOMEM, "%s: %ld bytes", path, n);
        goto cleanup;
    }
    if (fread(b, 1, (size_t)n, f) != (size_t)n) {
        st = g16__error(err, G16_ERR_IO, "%s: short read", path);
        goto cleanup;
    }
    b[n] = 0;
    *buf = b;
    *len = (size_t)n;
    b = NULL;
cleanup:
    free(b);
    fclose(f);
    return st;
}

static const char witness_magic[8] = {'G', '1', '6', 'W', 'T', 'N', 'S', '1'};

g16_status cli_witness_save(const char *path, const g16_fr *w, size_t n, g16_error *err)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return g16__error(err, G16_ERR_IO, "%s: %s", path, strerror(errno));
    uint8_t hdr[16];
    memcpy(hdr, witness_magic, 8);
    for (int i = 0; i < 8; i++)
        hdr[8 + i] = (uint8_t)((uint64_t)n >> (8 * i));
    int ok = fwrite(hdr, 1, 16, f) == 16;
    for (size_t i = 0; ok && i < n; i++) {
        uint8_t b[32];
        g16__fr_to_le_bytes(b, &w[i]);
        ok = fwrite(b, 1, 32, f) == 32;
    }
    ok = (fclose(f) == 0) && ok;
    return ok ? G16_OK : g16__error(err, G16_ERR_IO, "%s: write failed", path);
}

g16_status cli_witness_load(const char *path, g16_fr **w, size_t *n, g16_error *err)
{
    uint8_t *buf;
    size_t len;
    g16_status st = cli_read_file(path, &buf, &len, err);
    if (st != G16_OK)
        return st;
    g16_fr *out = NULL;
    if (len < 16 || memcmp(buf, witness_magic, 8) != 0) {
        st = g16__error(err, len < 16 ? G16_ERR_TRUNCATED : G16_ERR_FORMAT, "%s: header (bytes 0..15): not a G16WTNS1 witness",
                        path);
        goto cleanup;
    }
    uint64_t count = 0;
    for (int i = 7; i >= 0; i--)
        count = (count << 8) | buf[8 + i];
    if (count > (len - 16) / 32 || count == 0) {
        st = g16__error(err, G16_ERR_TRUNCATED, "%s: %llu values need %llu bytes from byte 16; the file has %zu", path,
                        (unsigned long long)count, (unsigned long long)count * 32, len);
        goto cleanup;
    }
    out = malloc(count * sizeof *out);
    if (!out) {
        st = g16__error(err, G16_ERR_NOMEM, "%s: %llu values", path, (unsigned long long)count);
        goto cleanup;
    }
    for (uint64_t i = 0; i < count; i++)
        if (g16__fr_from_le_bytes(&out[i], buf + 16 + 32 * i) != 0) {
            st = g16__error(err, G16_ERR_SCALAR_RANGE, "%s: value %llu at byte %llu is not below r", path,
                            (unsigned long long)i, (unsigned long long)(16 + 32 * i));
            goto cleanup;
        }
    *w = out;
    *n = count;
    out = NULL;
cleanup:
    free(out);
    free(buf);
    return st;
}

g16_status cli_public_save(const char *path, const g16_fr *const *inputs, size_t n_inputs, size_t count,
                           g16_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return g16__error(err, G16_ERR_IO, "%s: %s", path, strerror(errno));
    for (size_t i = 0; i < count; i++) {
        for (size_t j = 0; j < n_inputs; j++) {
            uint8_t b[32];
            g16__fr_to_be_bytes(b, &inputs[i][j]);
            for (int k = 0; k < 32; k++)
                fprintf(f, "%02x", b[k]);
            fputc(j + 1 < n_inputs ? ' ' : '\n', f);
        }
        if (n_inputs == 0)
            fputc('\n', f);
    }
    return fclose(f) == 0 ? G16_OK : g16__error(err, G16_ERR_IO, "%s: write failed", path);
}

static int hex_nibble(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

g16_status cli_public_load(const char *path, size_t n_inputs, g16_fr **inputs, size_t *count, g16_error *err)
{
    uint8_t *buf;
    size_t len;
    g16_status st = cli_read_file(path, &buf, &len, err);
    if (st != G16_OK)
        return st;
    size_t lines = 0, cap = 0;
    g16_fr *out = NULL;
    char *save = NULL;
    for (char *line = strtok_r((char *)buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        if (lines + 1 > cap) {
            cap = cap ? 2 * cap : 16;
            g16_fr *grown = realloc(out, cap * (n_inputs ? n_inputs : 1) * sizeof *out);
            if (!grown) {
                st = g16__error(err, G16_ERR_NOMEM, "%s: line %zu", path, lines + 1);
                goto cleanup;
            }
            out = grown;
        }
        size_t j = 0;
        char *tok_save = NULL;
        for (char *tok = strtok_r(line, " \t\r", &tok_save); tok; tok = strtok_r(NULL, " \t\r", &tok_save), j++) {
            uint8_t b[32];
            if (j >= n_inputs || strlen(tok) != 64) {
                st = g16__error(err, G16_ERR_FORMAT, "%s: line %zu: expected %zu inputs of 64 hex digits", path,
                                lines + 1, n_inputs);
                goto cleanup;
            }
            for (int k = 0; k < 32; k++) {
                int hi = hex_nibble(tok[2 * k]), lo = hex_nibble(tok[2 * k + 1]);
                if (hi < 0 || lo < 0) {
                    st = g16__error(err, G16_ERR_FORMAT, "%s: line %zu, input %zu: not hex", path, lines + 1, j);
                    goto cleanup;
                }
                b[k] = (uint8_t)(hi << 4 | lo);
            }
            if (g16__fr_from_be_bytes(&out[lines * n_inputs + j], b) != 0) {
                st = g16__error(err, G16_ERR_SCALAR_RANGE, "%s: line %zu, input %zu: not below r", path, lines + 1, j);
                goto cleanup;
            }
        }
        if (j != n_inputs) {
            st = g16__error(err, G16_ERR_SIZE_MISMATCH, "%s: line %zu has %zu inputs, the key expects %zu", path,
                            lines + 1, j, n_inputs);
            goto cleanup;
        }
        lines++;
    }
    *inputs = out;
    *count = lines;
    out = NULL;
cleanup:
    free(out);
    free(buf);
    return st;
}

int cli_circuit_load(const char *cmd, cli_opt *opts, size_t nopts, int need_witness, cli_circuit *out)
{
    g16_error err = {0};
    g16_status st;
    memset(out, 0, sizeof *out);
    cli_opt *r1cs = cli_find(opts, nopts, "--r1cs"), *wit = cli_find(opts, nopts, "--witness");
    if (r1cs->set) {
        if ((st = g16_r1cs_load(&out->r1cs, r1cs->value, &err)) != G16_OK)
            return cli_fail(cmd, st, &err, "loading the circuit");
        if (need_witness) {
            if (!wit->set) {
                fprintf(stderr, "g16 %s: --r1cs needs --witness FILE\n", cmd);
                return 2;
            }
            if ((st = cli_witness_load(wit->value, &out->witness, &out->w_len, &err)) != G16_OK)
                return cli_fail(cmd, st, &err, "loading the witness");
        }
    } else {
        const char *kind = cli_find(opts, nopts, "--circuit")->value;
        g16_demo_kind k;
        uint64_t m, seed;
        if (!strcmp(kind, "bits"))
            k = G16_DEMO_BITS;
        else if (!strcmp(kind, "field"))
            k = G16_DEMO_FIELD;
        else {
            fprintf(stderr, "g16 %s: --circuit must be bits or field, not '%s'\n", cmd, kind);
            return 2;
        }
        if (cli_u64(cmd, cli_find(opts, nopts, "--constraints"), &m) || cli_u64(cmd, cli_find(opts, nopts, "--seed"), &seed))
            return 2;
        g16_cs *cs;
        if ((st = g16_demo_circuit(&cs, k, m, seed, &err)) != G16_OK)
            return cli_fail(cmd, st, &err, "building the demo circuit");
        st = g16_cs_finalize(cs, &out->r1cs, &err);
        if (st == G16_OK && need_witness) {
            out->w_len = g16_cs_num_inputs(cs) + g16_cs_num_aux(cs);
            out->witness = malloc(out->w_len * sizeof(g16_fr));
            st = out->witness ? g16_cs_witness(cs, out->witness, out->w_len, &err) : G16_ERR_NOMEM;
        }
        g16_cs_destroy(cs);
        if (st != G16_OK)
            return cli_fail(cmd, st, &err, "building the demo circuit");
    }
    g16_r1cs_info info;
    g16_r1cs_get_info(out->r1cs, &info);
    out->num_inputs = info.num_inputs;
    if (need_witness && out->w_len != info.num_inputs + info.num_aux) {
        fprintf(stderr, "g16 %s: the witness has %zu values, the circuit needs %llu\n", cmd, out->w_len,
                (unsigned long long)(info.num_inputs + info.num_aux));
        return 2;
    }
    return 0;
}

void cli_circuit_free(cli_circuit *c)
{
    g16_r1cs_destroy(c->r1cs);
    free(c->witness);
    memset(c, 0, sizeof *c);
}
