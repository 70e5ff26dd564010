/*
 * A circom circuit (.r1cs, read by compat/iden3.c) as a g16_r1cs, built through g16_cs exactly as
 * a bellman circuit is built, so that g16_prove can prove it with bellman-layout parameters, i.e.
 * those written by `snarkjs zkey export bellman` (loaded with G16__PARAMS_SNARKJS, groth16.h).
 *
 * Variables: circom wire 0 is ONE (the g16_cs's input 0); wires 1 .. nPublic (outputs, then public
 * inputs) are inputs 1 .. nPublic in order; wire nPublic + 1 + j is aux j. So a .wtns witness is
 * the full witness of the result as it is (w[k] = wire k), and public value i is w[1 + i].
 * Rows: circom's constraints in file order (each linear combination normalized by g16_cs: terms
 * merged, zero coefficients dropped, which changes no value), then the input rows g16_cs_finalize
 * appends (input k: A = {k}), which are where snarkjs's setup puts its own (row nConstraints + k,
 * A = wire k): both have the same rows, densities and domain size.
 * Refused with G16_ERR_ARG naming the wire: a private wire in no constraint (bellman-style
 * circuits cannot have one; snarkjs gives it an L point at infinity). The result is owned by the
 * caller (g16_r1cs_destroy).
 */
#ifndef G16_COMPAT_CIRCOM_R1CS_H
#define G16_COMPAT_CIRCOM_R1CS_H

#include "compat/iden3.h"
#include "g16.h"

g16_status g16__r1cs_from_circom(g16_r1cs **out, const g16__r1cs_file *f, g16_error *err);

#endif /* G16_COMPAT_CIRCOM_R1CS_H */
