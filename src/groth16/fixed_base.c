#include "groth16/fixed_base.h"

#include <stdlib.h>

#include "util/threads.h"

#define FB_P g16_p1
#define FB_PA g16_p1_affine
#define FB(name) p1_##name
#define p1_set_infinity g16__p1_set_infinity
#define p1_add_affine_var g16__p1_add_affine_var
#define p1_add_var g16__p1_add_var
#define p1_batch_to_affine g16__p1_batch_to_affine
#define p1_from_affine g16__p1_from_affine
#define p1_dbl g16__p1_dbl
#include "groth16/fixed_base_tmpl.h"
#undef FB_P
#undef FB_PA
#undef FB

#define FB_P g16_p2
#define FB_PA g16_p2_affine
#define FB(name) p2_##name
#define p2_set_infinity g16__p2_set_infinity
#define p2_add_affine_var g16__p2_add_affine_var
#define p2_add_var g16__p2_add_var
#define p2_batch_to_affine g16__p2_batch_to_affine
#define p2_from_affine g16__p2_from_affine
#define p2_dbl g16__p2_dbl
#include "groth16/fixed_base_tmpl.h"

g16_status g16__p1_fixed_base_mul(g16_p1_affine *out, const g16_p1_affine *base, const g16_fr *scalars, size_t n)
{
    return p1_fixed_base_mul(out, base, scalars, n);
}

g16_status g16__p2_fixed_base_mul(g16_p2_affine *out, const g16_p2_affine *base, const g16_fr *scalars, size_t n)
{
    return p2_fixed_base_mul(out, base, scalars, n);
}
