/* Uniformly random field elements from a g16__rng (rejection sampling on canonical values). */
#ifndef G16_FIELD_RANDOM_H
#define G16_FIELD_RANDOM_H

#include "field/fp.h"
#include "field/fr.h"
#include "util/random.h"

g16_status g16__fr_random(g16_fr *r, g16__rng *rng);
/* Uniform over Fr \ {0} (toxic waste, randomizers that must be invertible). */
g16_status g16__fr_random_nonzero(g16_fr *r, g16__rng *rng);
g16_status g16__fp_random(g16_fp *r, g16__rng *rng);

#endif
