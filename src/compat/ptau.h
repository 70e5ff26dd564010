/*
 * A prepared powers-of-tau file (snarkjs "ptau", after `powersoftau prepare phase2`) from KNOWN
 * toxic waste, for tests and benchmarks: `snarkjs groth16 setup` turns it into a .zkey without
 * the slow ceremony (snarkjs prepares power 12 in about 95 s on a 2-core machine; this writes
 * power 16 in seconds). Anyone who knows the seed can forge proofs for every key made from it.
 *
 * Layout (iden3 container "ptau", version 1, 11 sections; points as in a .zkey: affine,
 * little-endian Montgomery coordinates, infinity all zeros):
 *   1  header: u32 n8 (48), q, u32 power, u32 ceremonyPower (= power)
 *   2  τ^i·G1, i < 2^(power+1) − 1      3  τ^i·G2, i < 2^power
 *   4  α·τ^i·G1, i < 2^power            5  β·τ^i·G1, i < 2^power     6  β·G2
 *   7  contributions: u32 0 (none recorded)
 *  12  per level k = 0 .. power + 1: the inverse DFT over the 2^k-th roots (from 5, snarkjs's
 *      generator) of the first 2^k points of section 2, i.e. L_i(τ)·G1 for the Lagrange basis of
 *      that domain; at the top level the missing τ^(2^(power+1) − 1) is taken as 0, as snarkjs does
 *  13, 14, 15  the same over sections 3, 4, 5 for k = 0 .. power.
 * The values are computed in Fr (τ powers, one inverse NTT per level) and multiplied by the
 * generators with fixed-base tables, on all threads. power from 1 to 24.
 */
#ifndef G16_COMPAT_PTAU_H
#define G16_COMPAT_PTAU_H

#include <stdint.h>

#include "g16.h"

g16_status g16__ptau_write_insecure(const char *path, unsigned power, uint64_t seed, g16_error *err);

#endif /* G16_COMPAT_PTAU_H */
