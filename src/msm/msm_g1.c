/* MSM over G1: msm_tmpl.h instantiated with Fp, with the Fp8 lane path (msm_g1_fp8.h). */
#include "curve/g1.h"
#include "field/fp.h"
#include "field/fp2.h" /* g16__fpi_*: inline Fp additive operations */
#include "msm/msm.h"
#include "msm/msm_g1_fp8.h"

#define FE g16_fp
#define FE_ONE (&g16__fp_one)
#define fe_add g16__fpi_add
#define fe_sub g16__fpi_sub
#define fe_dbl g16__fpi_dbl
#define fe_neg g16__fpi_neg
#define fe_mul g16__fp_mul
#define fe_sqr g16__fp_sqr
#define fe_inv_var g16__fp_inv_var
#define AFF g16_p1_affine
#define JAC g16_p1
#define jac_set_inf g16__p1_set_infinity
#define MSM_SPAN "msm.g1"
#define MSM_G2 0
#define MSM_LANES 1
#define MSM_NAME(x) g16__p1_##x

#include "msm/msm_tmpl.h"
