/* Host-side checks of device results with the CPU field (see gpu_internal.cuh). */
#include <string.h>

#include "field/fp.h"
#include "field/fr.h"

int g16__gpu_replay_mul_chain(int fp, int inv, const uint32_t *x0, const uint32_t *y0, const uint32_t *xr, size_t i,
                              int c, unsigned iters);

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
