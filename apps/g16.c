/* g16 command-line tool: dispatches to the subcommands (see `g16 help`). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cmd_compat.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} commands[] = {
    {"demo", g16__app_demo, "set up, prove a batch and verify a built-in circuit; print the phase table"},
    {"setup", g16__app_setup, "generate parameters for a circuit"},
    {"prove", g16__app_prove, "prove a batch of witnesses (or a circom witness with a snarkjs zkey)"},
    {"verify", g16__app_verify, "verify proofs against a verifying key (bellman files or snarkjs JSON)"},
    {"inspect", g16__app_inspect, "sizes, sections and digest of a parameter or key file"},
    {"inspect-proof", g16__app_inspect_proof, "decode and check 192-byte proofs"},
    {"check", g16__app_check, "check a circom witness (.wtns) against its circuit (.r1cs)"},
    {"export", g16__app_export, "write a verifying key and proofs as snarkjs JSON"},
    {"ptau", g16__app_ptau, "write an INSECURE prepared powers-of-tau file (snarkjs tests)"},
    {"selftest", g16__app_selftest, "arithmetic self-checks and a timing table"},
};

static int usage(FILE *f)
{
    fprintf(f, "usage: g16 <command> [options]   (g16 <command> --help for its options)\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "  %-14s %s\n", "version", "print the version");
    return f == stdout ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
        printf("g16 %s\n", g16_version());
        return 0;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "help") || !strcmp(argv[1], "-h"))
        return usage(stdout);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "g16: unknown command '%s'\n", argv[1]);
    return usage(stderr);
}
