/*
 * Shared pieces of the g16 command line: option parsing, messages, file helpers, and the
 * circuit/witness sources every proving command accepts.
 *
 * Every command prints one clear line to stderr on error ("g16 <cmd>: ...") and returns a
 * non-zero exit status: 1 for a proof that does not verify, 2 for anything else.
 */
#ifndef G16_APPS_CLI_H
#define G16_APPS_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "g16.h"

typedef struct {
    const char *name; /* "--name" */
    const char *arg;  /* metavariable for options with a value, NULL for flags */
    const char *help;
    const char *value; /* parsed value (or the default set before parsing) */
    int set;           /* given on the command line */
} cli_opt;

/* Parses argv[1..] (argv[0] is the command name) into opts. Returns 0 to go on, 1 when --help
 * was printed (exit 0), -1 after printing an error (exit 2). */
int cli_parse(int argc, char **argv, cli_opt *opts, size_t nopts, const char *usage, const char *summary);
cli_opt *cli_find(cli_opt *opts, size_t nopts, const char *name);
/* Parses an unsigned integer option (decimal, 0x hex, or a power like 2^14). -1 on error (printed). */
int cli_u64(const char *cmd, const cli_opt *o, uint64_t *out);
/* 0 when every option of opts[0..nopts) was given; else prints "g16 CMD: --name FILE is
 * required" for the first missing one and returns 2 (the exit status for usage errors). */
int cli_require_all(const char *cmd, const cli_opt *opts, size_t nopts);

/* Prints "g16 <cmd>: <text>[: detail]" to stderr and returns 2. */
int cli_fail(const char *cmd, g16_status st, const g16_error *err, const char *what);

/* A circuit and a witness from the built-in demos (--circuit, --constraints, --seed) or from
 * files (--r1cs, --witness). Owned by the struct; cli_circuit_free releases it. */
typedef struct {
    g16_r1cs *r1cs;
    g16_fr *witness; /* NULL when only the circuit was asked for */
    size_t w_len;
    uint64_t num_inputs;
} cli_circuit;

#define CLI_CIRCUIT_OPTS                                                                                         \
    {"--circuit", "KIND", "built-in demo circuit: bits (mostly 0/1 values) or field", "bits", 0},                 \
        {"--constraints", "N", "demo circuit size in constraints (e.g. 8192 or 2^13)", "2^13", 0},              \
        {"--seed", "S", "demo circuit seed (its witness and public inputs)", "1", 0},                            \
        {"--r1cs", "FILE", "a compiled circuit (G16R1CS file) instead of a demo", NULL, 0},                      \
    {                                                                                                            \
        "--witness", "FILE", "a witness file (G16WTNS1) for --r1cs", NULL, 0                                     \
    }
#define CLI_CIRCUIT_NOPTS 5

int cli_circuit_load(const char *cmd, cli_opt *opts, size_t nopts, int need_witness, cli_circuit *out);
void cli_circuit_free(cli_circuit *c);

/* Witness file: "G16WTNS1", u64 LE count, count × 32-byte little-endian canonical Fr values. */
g16_status cli_witness_save(const char *path, const g16_fr *w, size_t n, g16_error *err);
g16_status cli_witness_load(const char *path, g16_fr **w, size_t *n, g16_error *err);

/* Public inputs file: one line per proof, each input as 64 hex digits (big-endian), separated by
 * spaces; ONE is not written. */
g16_status cli_public_save(const char *path, const g16_fr *const *inputs, size_t n_inputs, size_t count,
                           g16_error *err);
/* Reads every line (exactly n_inputs values each) into a new array of count × n_inputs values. */
g16_status cli_public_load(const char *path, size_t n_inputs, g16_fr **inputs, size_t *count, g16_error *err);

/* Reads a whole file into a new buffer. */
g16_status cli_read_file(const char *path, uint8_t **buf, size_t *len, g16_error *err);

double cli_now(void);

/* Subcommands. */
int g16__app_selftest(int argc, char **argv);
int g16__app_setup(int argc, char **argv);
int g16__app_prove(int argc, char **argv);
int g16__app_verify(int argc, char **argv);
int g16__app_demo(int argc, char **argv);
int g16__app_inspect(int argc, char **argv);
int g16__app_inspect_proof(int argc, char **argv);

#endif
