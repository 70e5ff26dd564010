/*
 * Commands that connect g16 to circom and snarkjs (cmd_compat.c): proving a .wtns from a .zkey
 * or from the bellman-format parameters snarkjs exports from one, verifying snarkjs JSON files,
 * checking a circom witness, exporting bellman-format keys and proofs as snarkjs JSON, and
 * writing a test powers-of-tau file.
 */
#ifndef G16_APPS_CMD_COMPAT_H
#define G16_APPS_CMD_COMPAT_H

/* g16 prove for a circom witness: --zkey (a snarkjs zkey) or --params (its `snarkjs zkey export
 * bellman` file) with --r1cs; called by g16 prove when --zkey or --wtns is on its command line. */
int g16__app_prove_zkey(int argc, char **argv);
/* 1 when argv names --zkey or --wtns (g16 prove then hands over to g16__app_prove_zkey). */
int g16__compat_prove_wants_zkey(int argc, char **argv);
/* g16 verify over snarkjs JSON files; g16 verify hands over when the --vk file is JSON. */
int g16__app_verify_json(int argc, char **argv);
int g16__compat_verify_wants_json(int argc, char **argv);

int g16__app_check(int argc, char **argv);
int g16__app_export(int argc, char **argv);
int g16__app_ptau(int argc, char **argv);

#endif
