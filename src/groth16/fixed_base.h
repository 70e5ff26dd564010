/*
 * Fixed-base scalar multiplication for setup: out[i] = scalars[i]·G for one base G and many
 * scalars, through a table of digit multiples of G per window (w-bit windows, 2^w − 1 affine
 * points each). Each product then costs ceil(255/w) mixed additions instead of a full
 * double-and-add. Variable time: setup's scalars are toxic waste that is discarded, and the
 * setup is for tests, demos and private circuits (real Filecoin parameters come from an MPC).
 */
#ifndef G16_GROTH16_FIXED_BASE_H
#define G16_GROTH16_FIXED_BASE_H

#include "curve/g1.h"
#include "curve/g2.h"

/* out[i] = scalars[i]·base (affine), parallel over i. G16_ERR_NOMEM on allocation failure. */
g16_status g16__p1_fixed_base_mul(g16_p1_affine *out, const g16_p1_affine *base, const g16_fr *scalars, size_t n);
g16_status g16__p2_fixed_base_mul(g16_p2_affine *out, const g16_p2_affine *base, const g16_fr *scalars, size_t n);

#endif
