/* Fr arithmetic: see fr.h for the representation. */
#include "fr.h"

#include "inv_var.h"
#include "mont.h"

#define N G16__FR_LIMBS

const uint64_t g16__fr_modulus[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                     0x73eda753299d7d48ULL};
const uint64_t g16__fr_n0 = 0xfffffffeffffffffULL;
const g16_fr g16__fr_one = {{0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL,
                             0x1824b159acc5056fULL}};
const g16_fr g16__fr_r2 = {{0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL,
                            0x0748d9d99f59ff11ULL}};
const g16_fr g16__fr_generator = {{0x0000000efffffff1ULL, 0x17e363d300189c0fULL, 0xff9c57876f8457b0ULL,
                                   0x351332208fc5a8c4ULL}};
static const uint64_t fr_r_minus_2[4] = {0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
                                         0x73eda753299d7d48ULL};

void g16__fr_mul_portable(g16_fr *r, const g16_fr *a, const g16_fr *b)
{
    mont_mul(r->l, a->l, b->l, g16__fr_modulus, g16__fr_n0, N);
}

void g16__fr_sqr_portable(g16_fr *r, const g16_fr *a)
{
    mont_mul(r->l, a->l, a->l, g16__fr_modulus, g16__fr_n0, N);
}

/* Run-time dispatch, as in fp.c: the flags are written once by a load-time constructor
 * (before any thread can exist) and only read afterwards. */
static int fr_use_mulx;
static int fr_cpu_mulx;

#if defined(__x86_64__) && defined(__ELF__) && !defined(G16_NO_ASM)
#include <cpuid.h>
__attribute__((constructor)) static void fr_detect_cpu(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        /* EBX bit 8: BMI2 (MULX), bit 19: ADX (ADCX/ADOX) */
        fr_cpu_mulx = ((b >> 8) & 1) && ((b >> 19) & 1);
    }
    fr_use_mulx = fr_cpu_mulx;
}
#define FR_MULX_COMPILED 1
#else
#define FR_MULX_COMPILED 0
#endif

int g16__fr_have_mulx(void) { return fr_cpu_mulx; }
void g16__fr_force_portable(int on) { fr_use_mulx = on ? 0 : fr_cpu_mulx; }

void g16__fr_mul(g16_fr *r, const g16_fr *a, const g16_fr *b)
{
#if FR_MULX_COMPILED
    if (fr_use_mulx) {
        g16__fr_mul_mulx(r, a, b);
        return;
    }
#endif
    g16__fr_mul_portable(r, a, b);
}

void g16__fr_sqr(g16_fr *r, const g16_fr *a)
{
#if FR_MULX_COMPILED
    if (fr_use_mulx) {
        g16__fr_sqr_mulx(r, a);
        return;
    }
#endif
    g16__fr_sqr_portable(r, a);
}

/* Addition and friends: baseline x86-64 assembly whenever it is compiled in (no CPUID test). */
#if FR_MULX_COMPILED
void g16__fr_add(g16_fr *r, const g16_fr *a, const g16_fr *b) { g16__fr_add_x86(r, a, b); }
void g16__fr_sub(g16_fr *r, const g16_fr *a, const g16_fr *b) { g16__fr_sub_x86(r, a, b); }
void g16__fr_neg(g16_fr *r, const g16_fr *a) { g16__fr_neg_x86(r, a); }
void g16__fr_dbl(g16_fr *r, const g16_fr *a) { g16__fr_add_x86(r, a, a); }
#else
void g16__fr_add(g16_fr *r, const g16_fr *a, const g16_fr *b) { mont_add(r->l, a->l, b->l, g16__fr_modulus, N); }
void g16__fr_sub(g16_fr *r, const g16_fr *a, const g16_fr *b) { mont_sub(r->l, a->l, b->l, g16__fr_modulus, N); }
void g16__fr_neg(g16_fr *r, const g16_fr *a) { mont_neg(r->l, a->l, g16__fr_modulus, N); }
void g16__fr_dbl(g16_fr *r, const g16_fr *a) { mont_add(r->l, a->l, a->l, g16__fr_modulus, N); }
#endif

void g16__fr_set_zero(g16_fr *r) { memset(r, 0, sizeof *r); }
void g16__fr_set_one(g16_fr *r) { *r = g16__fr_one; }

void g16__fr_from_u64(g16_fr *r, uint64_t v)
{
    g16_fr t = {{v}};
    g16__fr_mul(r, &t, &g16__fr_r2);
}

int g16__fr_is_zero(const g16_fr *a) { return mont_is_zero(a->l, N); }
int g16__fr_is_one(const g16_fr *a) { return mont_eq(a->l, g16__fr_one.l, N); }
int g16__fr_eq(const g16_fr *a, const g16_fr *b) { return mont_eq(a->l, b->l, N); }
void g16__fr_cmov(g16_fr *r, const g16_fr *a, int flag) { mont_cmov(r->l, a->l, flag, N); }

void g16__fr_pow(g16_fr *r, const g16_fr *a, const uint64_t *e, size_t nlimbs)
{
    g16_fr acc = g16__fr_one, base = *a;
    for (size_t i = nlimbs * 64; i-- > 0;) {
        g16__fr_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1)
            g16__fr_mul(&acc, &acc, &base);
    }
    *r = acc;
}

void g16__fr_inv(g16_fr *r, const g16_fr *a) { g16__fr_pow(r, a, fr_r_minus_2, N); }

void g16__fr_inv_var(g16_fr *r, const g16_fr *a)
{
    mont_inv_var(r->l, a->l, g16__fr_modulus, g16__fr_n0, g16__fr_r2.l, N);
}

int g16__fr_root_of_unity_from(g16_fr *r, const g16_fr *g, unsigned log_n)
{
    if (log_n > G16__FR_TWO_ADICITY)
        return -1;
    /* e = (r - 1) >> log_n; r - 1 has 32 trailing zero bits, so this is exact. */
    uint64_t e[N];
    memcpy(e, g16__fr_modulus, sizeof e);
    e[0] -= 1;
    for (unsigned k = 0; k < log_n; k++) {
        for (size_t i = 0; i + 1 < N; i++)
            e[i] = (e[i] >> 1) | (e[i + 1] << 63);
        e[N - 1] >>= 1;
    }
    g16__fr_pow(r, g, e, N);
    return 0;
}

int g16__fr_root_of_unity(g16_fr *r, unsigned log_n)
{
    return g16__fr_root_of_unity_from(r, &g16__fr_generator, log_n);
}

int g16__fr_from_limbs(g16_fr *r, const uint64_t l[4])
{
    if (!mont_lt(l, g16__fr_modulus, N))
        return -1;
    g16_fr t;
    memcpy(t.l, l, sizeof t.l);
    g16__fr_mul(r, &t, &g16__fr_r2);
    return 0;
}

void g16__fr_to_limbs(uint64_t l[4], const g16_fr *a) { mont_reduce(l, a->l, g16__fr_modulus, g16__fr_n0, N); }

int g16__fr_from_be_bytes(g16_fr *r, const uint8_t in[32])
{
    uint64_t l[N];
    limbs_from_be(l, in, N);
    return g16__fr_from_limbs(r, l);
}

void g16__fr_to_be_bytes(uint8_t out[32], const g16_fr *a)
{
    uint64_t l[N];
    g16__fr_to_limbs(l, a);
    limbs_to_be(out, l, N);
}

int g16__fr_from_le_bytes(g16_fr *r, const uint8_t in[32])
{
    uint64_t l[N];
    limbs_from_le(l, in, N);
    return g16__fr_from_limbs(r, l);
}

void g16__fr_to_le_bytes(uint8_t out[32], const g16_fr *a)
{
    uint64_t l[N];
    g16__fr_to_limbs(l, a);
    limbs_to_le(out, l, N);
}
