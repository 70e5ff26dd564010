/* Fp arithmetic: see fp.h for the representation. */
#include "fp.h"

#include "inv_var.h"
#include "mont.h"

#define N G16__FP_LIMBS

const uint64_t g16__fp_modulus[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                     0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
const uint64_t g16__fp_n0 = 0x89f3fffcfffcfffdULL;
const g16_fp g16__fp_one = {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                             0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};
const g16_fp g16__fp_r2 = {{0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,
                            0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL}};
static const uint64_t fp_p_minus_2[6] = {0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                         0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
static const uint64_t fp_p_plus_1_div_4[6] = {0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL,
                                              0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL,
                                              0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};
static const uint64_t fp_p_minus_1_div_2[6] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
                                               0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
                                               0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

void g16__fp_mul_portable(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
    mont_mul(r->l, a->l, b->l, g16__fp_modulus, g16__fp_n0, N);
}

void g16__fp_sqr_portable(g16_fp *r, const g16_fp *a)
{
    mont_mul(r->l, a->l, a->l, g16__fp_modulus, g16__fp_n0, N);
}

/* Run-time dispatch. The flag is written once by a load-time constructor (before any
 * thread can exist) and only read afterwards, so no synchronisation is needed. */
static int fp_use_mulx;
static int fp_cpu_mulx;

#if defined(__x86_64__) && defined(__ELF__) && !defined(G16_NO_ASM)
#include <cpuid.h>
__attribute__((constructor)) static void fp_detect_cpu(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        /* EBX bit 8: BMI2 (MULX), bit 19: ADX (ADCX/ADOX) */
        fp_cpu_mulx = ((b >> 8) & 1) && ((b >> 19) & 1);
    }
    fp_use_mulx = fp_cpu_mulx;
}
#define FP_MULX_COMPILED 1
#else
#define FP_MULX_COMPILED 0
#endif

int g16__fp_have_mulx(void) { return fp_cpu_mulx; }
void g16__fp_force_portable(int on) { fp_use_mulx = on ? 0 : fp_cpu_mulx; }

void g16__fp_mul(g16_fp *r, const g16_fp *a, const g16_fp *b)
{
#if FP_MULX_COMPILED
    if (fp_use_mulx) {
        g16__fp_mul_mulx(r, a, b);
        return;
    }
#endif
    g16__fp_mul_portable(r, a, b);
}

void g16__fp_sqr(g16_fp *r, const g16_fp *a)
{
#if FP_MULX_COMPILED
    if (fp_use_mulx) {
        g16__fp_sqr_mulx(r, a);
        return;
    }
#endif
    g16__fp_sqr_portable(r, a);
}

/* Addition and friends: the x86-64 assembly needs only baseline instructions, so no CPUID test
 * (it is about 3x faster than the portable loops, which GCC -O2 does not unroll). */
#if FP_MULX_COMPILED
void g16__fp_add(g16_fp *r, const g16_fp *a, const g16_fp *b) { g16__fp_add_x86(r, a, b); }
void g16__fp_sub(g16_fp *r, const g16_fp *a, const g16_fp *b) { g16__fp_sub_x86(r, a, b); }
void g16__fp_neg(g16_fp *r, const g16_fp *a) { g16__fp_neg_x86(r, a); }
void g16__fp_dbl(g16_fp *r, const g16_fp *a) { g16__fp_add_x86(r, a, a); }
#else
void g16__fp_add(g16_fp *r, const g16_fp *a, const g16_fp *b) { mont_add(r->l, a->l, b->l, g16__fp_modulus, N); }
void g16__fp_sub(g16_fp *r, const g16_fp *a, const g16_fp *b) { mont_sub(r->l, a->l, b->l, g16__fp_modulus, N); }
void g16__fp_neg(g16_fp *r, const g16_fp *a) { mont_neg(r->l, a->l, g16__fp_modulus, N); }
void g16__fp_dbl(g16_fp *r, const g16_fp *a) { mont_add(r->l, a->l, a->l, g16__fp_modulus, N); }
#endif

void g16__fp_set_zero(g16_fp *r) { memset(r, 0, sizeof *r); }
void g16__fp_set_one(g16_fp *r) { *r = g16__fp_one; }

void g16__fp_from_u64(g16_fp *r, uint64_t v)
{
    g16_fp t = {{v}};
    g16__fp_mul(r, &t, &g16__fp_r2);
}

int g16__fp_is_zero(const g16_fp *a) { return mont_is_zero(a->l, N); }
int g16__fp_is_one(const g16_fp *a) { return mont_eq(a->l, g16__fp_one.l, N); }
int g16__fp_eq(const g16_fp *a, const g16_fp *b) { return mont_eq(a->l, b->l, N); }
void g16__fp_cmov(g16_fp *r, const g16_fp *a, int flag) { mont_cmov(r->l, a->l, flag, N); }

void g16__fp_pow(g16_fp *r, const g16_fp *a, const uint64_t *e, size_t nlimbs)
{
    g16_fp acc = g16__fp_one, base = *a;
    for (size_t i = nlimbs * 64; i-- > 0;) {
        g16__fp_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1)
            g16__fp_mul(&acc, &acc, &base);
    }
    *r = acc;
}

void g16__fp_inv(g16_fp *r, const g16_fp *a) { g16__fp_pow(r, a, fp_p_minus_2, N); }

void g16__fp_inv_var(g16_fp *r, const g16_fp *a)
{
    mont_inv_var(r->l, a->l, g16__fp_modulus, g16__fp_n0, g16__fp_r2.l, N);
}

int g16__fp_sqrt(g16_fp *r, const g16_fp *a)
{
    g16_fp s, check;
    g16__fp_pow(&s, a, fp_p_plus_1_div_4, N);
    g16__fp_sqr(&check, &s);
    *r = s;
    return g16__fp_eq(&check, a);
}

int g16__fp_legendre(const g16_fp *a)
{
    g16_fp t;
    g16__fp_pow(&t, a, fp_p_minus_1_div_2, N);
    return g16__fp_is_zero(&t) ? 0 : g16__fp_is_one(&t) ? 1 : -1;
}

int g16__fp_from_limbs(g16_fp *r, const uint64_t l[6])
{
    if (!mont_lt(l, g16__fp_modulus, N))
        return -1;
    g16_fp t;
    memcpy(t.l, l, sizeof t.l);
    g16__fp_mul(r, &t, &g16__fp_r2);
    return 0;
}

void g16__fp_to_limbs(uint64_t l[6], const g16_fp *a) { mont_reduce(l, a->l, g16__fp_modulus, g16__fp_n0, N); }

int g16__fp_from_be_bytes(g16_fp *r, const uint8_t in[48])
{
    uint64_t l[N];
    limbs_from_be(l, in, N);
    return g16__fp_from_limbs(r, l);
}

void g16__fp_to_be_bytes(uint8_t out[48], const g16_fp *a)
{
    uint64_t l[N];
    g16__fp_to_limbs(l, a);
    limbs_to_be(out, l, N);
}

int g16__fp_from_le_bytes(g16_fp *r, const uint8_t in[48])
{
    uint64_t l[N];
    limbs_from_le(l, in, N);
    return g16__fp_from_limbs(r, l);
}

void g16__fp_to_le_bytes(uint8_t out[48], const g16_fp *a)
{
    uint64_t l[N];
    g16__fp_to_limbs(l, a);
    limbs_to_le(out, l, N);
}

int g16__fp_is_lexmax(const g16_fp *a)
{
    uint64_t l[N];
    g16__fp_to_limbs(l, a);
    /* a > (p-1)/2  <=>  (p-1)/2 < a */
    return mont_lt(fp_p_minus_1_div_2, l, N);
}
