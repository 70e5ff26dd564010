/* MSM over G2: msm_tmpl.h instantiated with Fp2. */
#include "curve/g2.h"
#include "field/fp2.h"
#include "msm/msm.h"

#define FE g16_fp2
#define FE_ONE (&g16__fp2_one)
#define fe_add g16__fp2_add
#define fe_sub g16__fp2_sub
#define fe_dbl g16__fp2_dbl
#define fe_neg g16__fp2_neg
#define fe_mul g16__fp2_mul
#define fe_sqr g16__fp2_sqr
#define fe_inv_var g16__fp2_inv_var
#define AFF g16_p2_affine
#define JAC g16_p2
#define jac_set_inf g16__p2_set_infinity
#define MSM_SPAN "msm.g2"
#define MSM_G2 1
#define MSM_NAME(x) g16__p2_##x

#include "msm/msm_tmpl.h"
