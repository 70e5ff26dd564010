/* Host-side checks of device results with the CPU field (see gpu_internal.cuh). */
#include <string.h>

#include "field/fp.h"
#include "field/fr.h"

int g16__gpu_replay_mul_chain(int fp, int inv, const uint32_t *x0, const uint32_t *y0, const uint32_t *xr, size_t i,
                              int c, unsigned iters);

/* Replays chain c of thread i on the CPU: x <- x·y (inv = 0) or x <- x^(-1) + y, iters times, and
 * compares with the device's result. The FP64-pipe chains (bench fields 5, 6) replay as the
 * ordinary products: their kernels convert in and out, and the Fr conversions change the radix
 * (2^256 <-> 2^260) with it, so no per-step 2^-4 factor remains in the stored result. */

int g16__gpu_replay_mul_chain(int fp, int inv, const uint32_t *x0, const uint32_t *y0, const uint32_t *xr, size_t i,
                              int c, unsigned iters)
{
    size_t limbs = fp ? 12 : 8, at = (2 * i + (size_t)c) * limbs;
    if (fp) {
        g16_fp a, w;
        memcpy(&a, x0 + at, sizeof a);
        memcpy(&w, y0 + i * limbs, sizeof w);
        for (unsigned k = 0; k < iters; k++) {
            if (inv) {
                g16__fp_inv_var(&a, &a);
                g16__fp_add(&a, &a, &w);
            } else {
                g16__fp_mul(&a, &a, &w);
            }
        }
        return memcmp(&a, xr + at, sizeof a) == 0;
    }
    g16_fr a, w;
    memcpy(&a, x0 + at, sizeof a);
    memcpy(&w, y0 + i * limbs, sizeof w);
    for (unsigned k = 0; k < iters; k++) {
        if (inv) {
            g16__fr_inv_var(&a, &a);
            g16__fr_add(&a, &a, &w);
        } else {
            g16__fr_mul(&a, &a, &w);
        }
    }
    return memcmp(&a, xr + at, sizeof a) == 0;
}
