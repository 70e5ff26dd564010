/* Fp2 arithmetic: see fp2.h. */
#include "fp2.h"

#include <string.h>

const g16_fp2 g16__fp2_one = {{{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                                0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
                              {{0}}};

static const uint64_t fp_p_minus_3_div_4[6] = {0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL,
                                               0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL,
                                               0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};
static const uint64_t fp_p_minus_1_div_2[6] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
                                               0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
                                               0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

/* ---------------------------------------------------------------------------------------------
 * Wide products and Montgomery reduction (see fp2.h). Portable versions first.
 * ------------------------------------------------------------------------------------------- */

void g16__fp_mul_wide_portable(g16__fp_wide *r, const g16_fp *a, const g16_fp *b)
{
    uint64_t t[12] = {0};
    for (int i = 0; i < 6; i++) {
        uint64_t c = 0;
        for (int j = 0; j < 6; j++) {
            unsigned __int128 acc = (unsigned __int128)a->l[j] * b->l[i] + t[i + j] + c;
            t[i + j] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        t[i + 6] = c;
    }
    memcpy(r->l, t, sizeof t);
}

/* Six word-by-word rounds on the low half L give (L + M·p)/2^384 <= p; adding the high half
 * H < p (t < p·2^384) gives t·2^(-384) mod p plus at most p: one conditional subtraction. */
void g16__fp_redc_portable(g16_fp *r, const g16__fp_wide *t)
{
    uint64_t w[6], s[6], d[6];
    memcpy(w, t->l, sizeof w);
    for (int i = 0; i < 6; i++) {
        uint64_t m = w[0] * g16__fp_n0;
        unsigned __int128 acc = (unsigned __int128)m * g16__fp_modulus[0] + w[0];
        uint64_t c = (uint64_t)(acc >> 64);
        for (int j = 1; j < 6; j++) {
            acc = (unsigned __int128)m * g16__fp_modulus[j] + w[j] + c;
            w[j - 1] = (uint64_t)acc;
            c = (uint64_t)(acc >> 64);
        }
        w[5] = c;
    }
    unsigned char carry = 0, bw = 0;
    for (int i = 0; i < 6; i++)
        G16__ADC(carry, w[i], t->l[6 + i], &s[i]);
    for (int i = 0; i < 6; i++)
        G16__SBB(bw, s[i], g16__fp_modulus[i], &d[i]);
    uint64_t keep_s = 0 - (uint64_t)bw;
    for (int i = 0; i < 6; i++)
        r->l[i] = (s[i] & keep_s) | (d[i] & ~keep_s);
}

#if defined(__x86_64__) && defined(__ELF__) && !defined(G16_NO_ASM)
#define FP2_MULX_COMPILED 1
/*
 * MULX/ADCX/ADOX versions, file-scope assembly (SysV ABI) so that all 15 registers are ours
 * whatever the compiler's frame-pointer settings. Both run two carry chains at once: low
 * halves of the 64×64 products on CF (ADCX), high halves on OF (ADOX).
 * Constant-time: no branch or address depends on the values; the final subtraction uses CMOV.
 */
#if defined(__CET__) && (__CET__ & 1)
#define FP2_ENDBR "endbr64\n\t"
#else
#define FP2_ENDBR ""
#endif
#define FP2_P(k) ".Lg16_fp2_p+" #k "(%rip)"

__asm__(".section .rodata\n\t"
        ".p2align 4\n"
        ".Lg16_fp2_p:\n\t"
        ".quad 0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624\n\t"
        ".quad 0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a\n"
        ".Lg16_fp2_n0:\n\t"
        ".quad 0x89f3fffcfffcfffd\n\t"
        ".text\n\t");

/* Row i >= 1 of the schoolbook product: A1..A6 (limbs i..i+5 of the partial sum) += a·b[i],
 * new top limb A7; then limb i is final and stored. rsi = a, rcx = b, rdi = r;
 * rax/rbp hold the low/high product halves, rbx = 0 (its XOR clears CF and OF). */
#define FP2_MUL_ROW(OFF, A1, A2, A3, A4, A5, A6, A7)                                                    \
    "mov " #OFF "(%rcx), %rdx\n\t"                                                                      \
    "xor %ebx, %ebx\n\t"                                                                                \
    "mulx 0(%rsi), %rax, %rbp\n\t"                                                                      \
    "adcx %rax, " A1 "\n\t"                                                                             \
    "adox %rbp, " A2 "\n\t"                                                                             \
    "mulx 8(%rsi), %rax, %rbp\n\t"                                                                      \
    "adcx %rax, " A2 "\n\t"                                                                             \
    "adox %rbp, " A3 "\n\t"                                                                             \
    "mulx 16(%rsi), %rax, %rbp\n\t"                                                                     \
    "adcx %rax, " A3 "\n\t"                                                                             \
    "adox %rbp, " A4 "\n\t"                                                                             \
    "mulx 24(%rsi), %rax, %rbp\n\t"                                                                     \
    "adcx %rax, " A4 "\n\t"                                                                             \
    "adox %rbp, " A5 "\n\t"                                                                             \
    "mulx 32(%rsi), %rax, %rbp\n\t"                                                                     \
    "adcx %rax, " A5 "\n\t"                                                                             \
    "adox %rbp, " A6 "\n\t"                                                                             \
    "mulx 40(%rsi), %rax, " A7 "\n\t"                                                                   \
    "adcx %rax, " A6 "\n\t"                                                                             \
    "adox %rbx, " A7 "\n\t"                                                                             \
    "adcx %rbx, " A7 "\n\t"                                                                             \
    "mov " A1 ", " #OFF "(%rdi)\n\t"

#define FP2_PUSH(reg) "push " reg "\n\t.cfi_adjust_cfa_offset 8\n\t.cfi_rel_offset " reg ", 0\n\t"
#define FP2_POP(reg) "pop " reg "\n\t.cfi_adjust_cfa_offset -8\n\t.cfi_restore " reg "\n\t"

/* void g16__fp_mul_wide_mulx(g16__fp_wide *r = rdi, const g16_fp *a = rsi, const g16_fp *b = rdx) */
__asm__(".text\n\t"
        ".globl g16__fp_mul_wide_mulx\n\t"
        ".hidden g16__fp_mul_wide_mulx\n\t"
        ".type g16__fp_mul_wide_mulx, @function\n\t"
        ".p2align 4\n"
        "g16__fp_mul_wide_mulx:\n\t"
        ".cfi_startproc\n\t" FP2_ENDBR
        FP2_PUSH("%rbx") FP2_PUSH("%rbp") FP2_PUSH("%r12") FP2_PUSH("%r13") FP2_PUSH("%r14")
        "mov %rdx, %rcx\n\t"
        /* row 0: r8..r13 = a·b[0] >> 64, limb 0 stored */
        "mov (%rcx), %rdx\n\t"
        "mulx 0(%rsi), %rax, %r8\n\t"
        "mov %rax, 0(%rdi)\n\t"
        "mulx 8(%rsi), %rax, %r9\n\t"
        "add %rax, %r8\n\t"
        "mulx 16(%rsi), %rax, %r10\n\t"
        "adc %rax, %r9\n\t"
        "mulx 24(%rsi), %rax, %r11\n\t"
        "adc %rax, %r10\n\t"
        "mulx 32(%rsi), %rax, %r12\n\t"
        "adc %rax, %r11\n\t"
        "mulx 40(%rsi), %rax, %r13\n\t"
        "adc %rax, %r12\n\t"
        "adc $0, %r13\n\t"
        FP2_MUL_ROW(8, "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14")
        FP2_MUL_ROW(16, "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r8")
        FP2_MUL_ROW(24, "%r10", "%r11", "%r12", "%r13", "%r14", "%r8", "%r9")
        FP2_MUL_ROW(32, "%r11", "%r12", "%r13", "%r14", "%r8", "%r9", "%r10")
        FP2_MUL_ROW(40, "%r12", "%r13", "%r14", "%r8", "%r9", "%r10", "%r11")
        "mov %r13, 48(%rdi)\n\t"
        "mov %r14, 56(%rdi)\n\t"
        "mov %r8, 64(%rdi)\n\t"
        "mov %r9, 72(%rdi)\n\t"
        "mov %r10, 80(%rdi)\n\t"
        "mov %r11, 88(%rdi)\n\t"
        FP2_POP("%r14") FP2_POP("%r13") FP2_POP("%r12") FP2_POP("%rbp") FP2_POP("%rbx")
        "ret\n\t"
        ".cfi_endproc\n\t"
        ".size g16__fp_mul_wide_mulx, .-g16__fp_mul_wide_mulx\n\t");

/* One reduction round on the window W0..W5: m = W0·n0, W += m·p (W0 becomes 0), the window
 * shifts down one limb and W0's register takes the new top limb. rbx = 0, rax/rbp temporaries. */
#define FP2_REDC_ROUND(W0, W1, W2, W3, W4, W5)                                                          \
    "mov " W0 ", %rdx\n\t"                                                                              \
    "imul .Lg16_fp2_n0(%rip), %rdx\n\t"                                                                 \
    "xor %ebx, %ebx\n\t"                                                                                \
    "mulx " FP2_P(0) ", %rax, %rbp\n\t"                                                                 \
    "adcx %rax, " W0 "\n\t"                                                                             \
    "adox %rbp, " W1 "\n\t"                                                                             \
    "mulx " FP2_P(8) ", %rax, %rbp\n\t"                                                                 \
    "adcx %rax, " W1 "\n\t"                                                                             \
    "adox %rbp, " W2 "\n\t"                                                                             \
    "mulx " FP2_P(16) ", %rax, %rbp\n\t"                                                                \
    "adcx %rax, " W2 "\n\t"                                                                             \
    "adox %rbp, " W3 "\n\t"                                                                             \
    "mulx " FP2_P(24) ", %rax, %rbp\n\t"                                                                \
    "adcx %rax, " W3 "\n\t"                                                                             \
    "adox %rbp, " W4 "\n\t"                                                                             \
    "mulx " FP2_P(32) ", %rax, %rbp\n\t"                                                                \
    "adcx %rax, " W4 "\n\t"                                                                             \
    "adox %rbp, " W5 "\n\t"                                                                             \
    "mulx " FP2_P(40) ", %rax, " W0 "\n\t"                                                              \
    "adcx %rax, " W5 "\n\t"                                                                             \
    "adox %rbx, " W0 "\n\t"                                                                             \
    "adcx %rbx, " W0 "\n\t"

/* void g16__fp_redc_mulx(g16_fp *r = rdi, const g16__fp_wide *t = rsi) */
__asm__(".text\n\t"
        ".globl g16__fp_redc_mulx\n\t"
        ".hidden g16__fp_redc_mulx\n\t"
        ".type g16__fp_redc_mulx, @function\n\t"
        ".p2align 4\n"
        "g16__fp_redc_mulx:\n\t"
        ".cfi_startproc\n\t" FP2_ENDBR
        FP2_PUSH("%rbx") FP2_PUSH("%rbp") FP2_PUSH("%r12") FP2_PUSH("%r13") FP2_PUSH("%r14")
        "mov 0(%rsi), %r8\n\t"
        "mov 8(%rsi), %r9\n\t"
        "mov 16(%rsi), %r10\n\t"
        "mov 24(%rsi), %r11\n\t"
        "mov 32(%rsi), %r12\n\t"
        "mov 40(%rsi), %r13\n\t"
        FP2_REDC_ROUND("%r8", "%r9", "%r10", "%r11", "%r12", "%r13")
        FP2_REDC_ROUND("%r9", "%r10", "%r11", "%r12", "%r13", "%r8")
        FP2_REDC_ROUND("%r10", "%r11", "%r12", "%r13", "%r8", "%r9")
        FP2_REDC_ROUND("%r11", "%r12", "%r13", "%r8", "%r9", "%r10")
        FP2_REDC_ROUND("%r12", "%r13", "%r8", "%r9", "%r10", "%r11")
        FP2_REDC_ROUND("%r13", "%r8", "%r9", "%r10", "%r11", "%r12")
        /* + high half (sum < 2p: no carry out), then subtract p unless that borrows */
        "add 48(%rsi), %r8\n\t"
        "adc 56(%rsi), %r9\n\t"
        "adc 64(%rsi), %r10\n\t"
        "adc 72(%rsi), %r11\n\t"
        "adc 80(%rsi), %r12\n\t"
        "adc 88(%rsi), %r13\n\t"
        "mov %r8, %rax\n\t"
        "mov %r9, %rbx\n\t"
        "mov %r10, %rcx\n\t"
        "mov %r11, %rdx\n\t"
        "mov %r12, %rbp\n\t"
        "mov %r13, %r14\n\t"
        "sub " FP2_P(0) ", %r8\n\t"
        "sbb " FP2_P(8) ", %r9\n\t"
        "sbb " FP2_P(16) ", %r10\n\t"
        "sbb " FP2_P(24) ", %r11\n\t"
        "sbb " FP2_P(32) ", %r12\n\t"
        "sbb " FP2_P(40) ", %r13\n\t"
        "cmovc %rax, %r8\n\t"
        "cmovc %rbx, %r9\n\t"
        "cmovc %rcx, %r10\n\t"
        "cmovc %rdx, %r11\n\t"
        "cmovc %rbp, %r12\n\t"
        "cmovc %r14, %r13\n\t"
        "mov %r8, 0(%rdi)\n\t"
        "mov %r9, 8(%rdi)\n\t"
        "mov %r10, 16(%rdi)\n\t"
        "mov %r11, 24(%rdi)\n\t"
        "mov %r12, 32(%rdi)\n\t"
        "mov %r13, 40(%rdi)\n\t"
        FP2_POP("%r14") FP2_POP("%r13") FP2_POP("%r12") FP2_POP("%rbp") FP2_POP("%rbx")
        "ret\n\t"
        ".cfi_endproc\n\t"
        ".size g16__fp_redc_mulx, .-g16__fp_redc_mulx\n\t");

/*
 * Both coefficients of an Fp2 reduction at once: the single reduction is latency-bound (each
 * round's m needs the previous round's sum), so two independent chains issued round by round
 * let the core overlap them. Windows A (rbx, rcx, rdi, rsi, r8, r9) and B (r10..r15), rdx = m,
 * rax/rbp the product halves: all 15 registers, so r and t wait on the stack. The final
 * subtraction stores the sum, subtracts p in registers and takes the stored sum back by CMOV
 * from memory when that borrows (no spare registers for copies).
 */
#define FP2_REDC2_ROUND(W0, W1, W2, W3, W4, W5)                                                         \
    "mov " W0 ", %rdx\n\t"                                                                              \
    "imul .Lg16_fp2_n0(%rip), %rdx\n\t"                                                                 \
    "xor %eax, %eax\n\t"                                                                                \
    "mulx " FP2_P(0) ", %rax, %rbp\n\t"                                                                 \
    "adcx %rax, " W0 "\n\t"                                                                             \
    "adox %rbp, " W1 "\n\t"                                                                             \
    "mulx " FP2_P(8) ", %rax, %rbp\n\t"                                                                 \
    "adcx %rax, " W1 "\n\t"                                                                             \
    "adox %rbp, " W2 "\n\t"                                                                             \
    "mulx " FP2_P(16) ", %rax, %rbp\n\t"                                                                \
    "adcx %rax, " W2 "\n\t"                                                                             \
    "adox %rbp, " W3 "\n\t"                                                                             \
    "mulx " FP2_P(24) ", %rax, %rbp\n\t"                                                                \
    "adcx %rax, " W3 "\n\t"                                                                             \
    "adox %rbp, " W4 "\n\t"                                                                             \
    "mulx " FP2_P(32) ", %rax, %rbp\n\t"                                                                \
    "adcx %rax, " W4 "\n\t"                                                                             \
    "adox %rbp, " W5 "\n\t"                                                                             \
    "mulx " FP2_P(40) ", %rax, " W0 "\n\t"                                                              \
    "adcx %rax, " W5 "\n\t"                                                                             \
    "mov $0, %eax\n\t" /* MOV keeps the flags */                                                        \
    "adox %rax, " W0 "\n\t"                                                                             \
    "adcx %rax, " W0 "\n\t"

/* window W += high half at HI(%rbp); store to OUT(%rdx); subtract p; on borrow reload the sum */
#define FP2_REDC2_FINAL(HI, OUT, W0, W1, W2, W3, W4, W5)                                                \
    "add " #HI "+0(%rbp), " W0 "\n\t"                                                                   \
    "adc " #HI "+8(%rbp), " W1 "\n\t"                                                                   \
    "adc " #HI "+16(%rbp), " W2 "\n\t"                                                                  \
    "adc " #HI "+24(%rbp), " W3 "\n\t"                                                                  \
    "adc " #HI "+32(%rbp), " W4 "\n\t"                                                                  \
    "adc " #HI "+40(%rbp), " W5 "\n\t"                                                                  \
    "mov " W0 ", " #OUT "+0(%rdx)\n\t"                                                                  \
    "mov " W1 ", " #OUT "+8(%rdx)\n\t"                                                                  \
    "mov " W2 ", " #OUT "+16(%rdx)\n\t"                                                                 \
    "mov " W3 ", " #OUT "+24(%rdx)\n\t"                                                                 \
    "mov " W4 ", " #OUT "+32(%rdx)\n\t"                                                                 \
    "mov " W5 ", " #OUT "+40(%rdx)\n\t"                                                                 \
    "sub " FP2_P(0) ", " W0 "\n\t"                                                                      \
    "sbb " FP2_P(8) ", " W1 "\n\t"                                                                      \
    "sbb " FP2_P(16) ", " W2 "\n\t"                                                                     \
    "sbb " FP2_P(24) ", " W3 "\n\t"                                                                     \
    "sbb " FP2_P(32) ", " W4 "\n\t"                                                                     \
    "sbb " FP2_P(40) ", " W5 "\n\t"                                                                     \
    "cmovc " #OUT "+0(%rdx), " W0 "\n\t"                                                                \
    "cmovc " #OUT "+8(%rdx), " W1 "\n\t"                                                                \
    "cmovc " #OUT "+16(%rdx), " W2 "\n\t"                                                               \
    "cmovc " #OUT "+24(%rdx), " W3 "\n\t"                                                               \
    "cmovc " #OUT "+32(%rdx), " W4 "\n\t"                                                               \
    "cmovc " #OUT "+40(%rdx), " W5 "\n\t"                                                               \
    "mov " W0 ", " #OUT "+0(%rdx)\n\t"                                                                  \
    "mov " W1 ", " #OUT "+8(%rdx)\n\t"                                                                  \
    "mov " W2 ", " #OUT "+16(%rdx)\n\t"                                                                 \
    "mov " W3 ", " #OUT "+24(%rdx)\n\t"                                                                 \
    "mov " W4 ", " #OUT "+32(%rdx)\n\t"                                                                 \
    "mov " W5 ", " #OUT "+40(%rdx)\n\t"

#define FP2_REDC2_PAIR(A0, A1, A2, A3, A4, A5, B0, B1, B2, B3, B4, B5)                                   \
    FP2_REDC2_ROUND(A0, A1, A2, A3, A4, A5) FP2_REDC2_ROUND(B0, B1, B2, B3, B4, B5)

/* void g16__fp2_redc_mulx(g16_fp2 *r = rdi, const g16__fp2_wide *t = rsi) */
__asm__(".text\n\t"
        ".globl g16__fp2_redc_mulx\n\t"
        ".hidden g16__fp2_redc_mulx\n\t"
        ".type g16__fp2_redc_mulx, @function\n\t"
        ".p2align 4\n"
        "g16__fp2_redc_mulx:\n\t"
        ".cfi_startproc\n\t" FP2_ENDBR
        FP2_PUSH("%rbx") FP2_PUSH("%rbp") FP2_PUSH("%r12") FP2_PUSH("%r13") FP2_PUSH("%r14") FP2_PUSH("%r15")
        "push %rdi\n\t.cfi_adjust_cfa_offset 8\n\t"
        "push %rsi\n\t.cfi_adjust_cfa_offset 8\n\t"
        "mov 96(%rsi), %r10\n\t"
        "mov 104(%rsi), %r11\n\t"
        "mov 112(%rsi), %r12\n\t"
        "mov 120(%rsi), %r13\n\t"
        "mov 128(%rsi), %r14\n\t"
        "mov 136(%rsi), %r15\n\t"
        "mov 0(%rsi), %rbx\n\t"
        "mov 8(%rsi), %rcx\n\t"
        "mov 16(%rsi), %rdi\n\t"
        "mov 32(%rsi), %r8\n\t"
        "mov 40(%rsi), %r9\n\t"
        "mov 24(%rsi), %rsi\n\t"
        FP2_REDC2_PAIR("%rbx", "%rcx", "%rdi", "%rsi", "%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r15")
        FP2_REDC2_PAIR("%rcx", "%rdi", "%rsi", "%r8", "%r9", "%rbx", "%r11", "%r12", "%r13", "%r14", "%r15", "%r10")
        FP2_REDC2_PAIR("%rdi", "%rsi", "%r8", "%r9", "%rbx", "%rcx", "%r12", "%r13", "%r14", "%r15", "%r10", "%r11")
        FP2_REDC2_PAIR("%rsi", "%r8", "%r9", "%rbx", "%rcx", "%rdi", "%r13", "%r14", "%r15", "%r10", "%r11", "%r12")
        FP2_REDC2_PAIR("%r8", "%r9", "%rbx", "%rcx", "%rdi", "%rsi", "%r14", "%r15", "%r10", "%r11", "%r12", "%r13")
        FP2_REDC2_PAIR("%r9", "%rbx", "%rcx", "%rdi", "%rsi", "%r8", "%r15", "%r10", "%r11", "%r12", "%r13", "%r14")
        "mov 0(%rsp), %rbp\n\t"
        "mov 8(%rsp), %rdx\n\t"
        FP2_REDC2_FINAL(48, 0, "%rbx", "%rcx", "%rdi", "%rsi", "%r8", "%r9")
        FP2_REDC2_FINAL(144, 48, "%r10", "%r11", "%r12", "%r13", "%r14", "%r15")
        "add $16, %rsp\n\t.cfi_adjust_cfa_offset -16\n\t"
        FP2_POP("%r15") FP2_POP("%r14") FP2_POP("%r13") FP2_POP("%r12") FP2_POP("%rbp") FP2_POP("%rbx")
        "ret\n\t"
        ".cfi_endproc\n\t"
        ".size g16__fp2_redc_mulx, .-g16__fp2_redc_mulx\n\t");

#include <cpuid.h>
static int fp2_cpu_mulx, fp2_use_mulx;
/* Written once before main (no thread exists yet), read-only afterwards. */
__attribute__((constructor)) static void fp2_detect_cpu(void)
{
    unsigned a, b, c, d;
    if (__get_cpuid_max(0, 0) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        fp2_cpu_mulx = ((b >> 8) & 1) && ((b >> 19) & 1); /* BMI2 and ADX */
    }
    fp2_use_mulx = fp2_cpu_mulx;
}
#else
#define FP2_MULX_COMPILED 0
static const int fp2_cpu_mulx = 0;
static int fp2_use_mulx;
#endif

int g16__fp2_have_mulx(void) { return fp2_cpu_mulx; }
void g16__fp2_force_portable(int on) { fp2_use_mulx = on ? 0 : fp2_cpu_mulx; }

void g16__fp_mul_wide(g16__fp_wide *r, const g16_fp *a, const g16_fp *b)
{
#if FP2_MULX_COMPILED
    if (fp2_use_mulx) {
        g16__fp_mul_wide_mulx(r, a, b);
        return;
    }
#endif
    g16__fp_mul_wide_portable(r, a, b);
}

void g16__fp_redc(g16_fp *r, const g16__fp_wide *t)
{
#if FP2_MULX_COMPILED
    if (fp2_use_mulx) {
        g16__fp_redc_mulx(r, t);
        return;
    }
#endif
    g16__fp_redc_portable(r, t);
}

/* ---------------------------------------------------------------------------------------------
 * Fp2 multiplication with one Montgomery reduction per output coefficient (lazy reduction).
 * ------------------------------------------------------------------------------------------- */

/* Karatsuba on unreduced products: c0 = a0b0 − a1b1, c1 = (a0 + a1)(b0 + b1) − a0b0 − a1b1.
 * The sums are < 2p, their product < 4p² < p·2^384; c1 is the exact integer a0b1 + a1b0. */
void g16__fp2_mul_wide(g16__fp2_wide *r, const g16_fp2 *a, const g16_fp2 *b)
{
    g16__fp_wide t0, t1, t2;
    g16_fp sa, sb;
    g16__fp_add_nr(&sa, &a->c0, &a->c1);
    g16__fp_add_nr(&sb, &b->c0, &b->c1);
    g16__fp_mul_wide(&t0, &a->c0, &b->c0);
    g16__fp_mul_wide(&t1, &a->c1, &b->c1);
    g16__fp_mul_wide(&t2, &sa, &sb);
    g16__fpw_sub_nr(&t2, &t2, &t0);
    g16__fpw_sub_nr(&r->c1, &t2, &t1);
    g16__fpw_sub(&r->c0, &t0, &t1);
}

void g16__fp2_redc(g16_fp2 *r, const g16__fp2_wide *t)
{
#if FP2_MULX_COMPILED
    if (fp2_use_mulx) {
        g16__fp2_redc_mulx(r, t);
        return;
    }
#endif
    g16__fp_redc(&r->c0, &t->c0);
    g16__fp_redc(&r->c1, &t->c1);
}

void g16__fp2_mul(g16_fp2 *r, const g16_fp2 *a, const g16_fp2 *b)
{
    g16__fp2_wide t;
    g16__fp2_mul_wide(&t, a, b);
    g16__fp2_redc(r, &t);
}

/* (c0 + c1 u)² = (c0 + c1)(c0 − c1) + 2c0c1·u with c0 − c1 taken as c0 + p − c1 (< 2p): the
 * products stay below 4p² < p·2^384, so each coefficient costs one wide product and one reduction. */
void g16__fp2_sqr_wide(g16__fp2_wide *r, const g16_fp2 *a)
{
    g16_fp s, d, two_c0;
    g16__fp_add_nr(&s, &a->c0, &a->c1);
    g16__fp_sub_nr(&d, &a->c0, &a->c1);
    g16__fp_add_nr(&two_c0, &a->c0, &a->c0);
    g16__fp_mul_wide(&r->c0, &s, &d);
    g16__fp_mul_wide(&r->c1, &two_c0, &a->c1);
}

void g16__fp2_sqr(g16_fp2 *r, const g16_fp2 *a)
{
    g16__fp2_wide t;
    g16__fp2_sqr_wide(&t, a);
    g16__fp2_redc(r, &t);
}

void g16__fp2_mul_fp(g16_fp2 *r, const g16_fp2 *a, const g16_fp *b)
{
    g16__fp_mul(&r->c0, &a->c0, b);
    g16__fp_mul(&r->c1, &a->c1, b);
}

/* x/2 mod p: add p when x is odd (masked, constant-time), then shift; x + p < 2^382 fits. */
static void fp_half(g16_fp *r, const g16_fp *a)
{
    uint64_t mask = 0 - (a->l[0] & 1), t[6], carry = 0;
    for (int i = 0; i < 6; i++) {
        unsigned __int128 s = (unsigned __int128)a->l[i] + (g16__fp_modulus[i] & mask) + carry;
        t[i] = (uint64_t)s;
        carry = (uint64_t)(s >> 64);
    }
    for (int i = 0; i < 5; i++)
        r->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
    r->l[5] = t[5] >> 1;
}

void g16__fp2_half(g16_fp2 *r, const g16_fp2 *a)
{
    fp_half(&r->c0, &a->c0);
    fp_half(&r->c1, &a->c1);
}

void g16__fp2_set_zero(g16_fp2 *r) { memset(r, 0, sizeof *r); }
void g16__fp2_set_one(g16_fp2 *r) { *r = g16__fp2_one; }
int g16__fp2_is_zero(const g16_fp2 *a) { return g16__fp_is_zero(&a->c0) & g16__fp_is_zero(&a->c1); }
int g16__fp2_is_one(const g16_fp2 *a) { return g16__fp_is_one(&a->c0) & g16__fp_is_zero(&a->c1); }
int g16__fp2_eq(const g16_fp2 *a, const g16_fp2 *b)
{
    return g16__fp_eq(&a->c0, &b->c0) & g16__fp_eq(&a->c1, &b->c1);
}

void g16__fp2_cmov(g16_fp2 *r, const g16_fp2 *a, int flag)
{
    g16__fp_cmov(&r->c0, &a->c0, flag);
    g16__fp_cmov(&r->c1, &a->c1, flag);
}

void g16__fp2_pow(g16_fp2 *r, const g16_fp2 *a, const uint64_t *e, size_t nlimbs)
{
    g16_fp2 acc = g16__fp2_one, base = *a;
    for (size_t i = nlimbs * 64; i-- > 0;) {
        g16__fp2_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1)
            g16__fp2_mul(&acc, &acc, &base);
    }
    *r = acc;
}

/* 1/(c0 + c1 u) = (c0 − c1 u)/(c0² + c1²) */
static void fp2_inv_with(g16_fp2 *r, const g16_fp2 *a, void (*fp_inv)(g16_fp *, const g16_fp *))
{
    g16_fp t0, t1;
    g16__fp_sqr(&t0, &a->c0);
    g16__fp_sqr(&t1, &a->c1);
    g16__fpi_add(&t0, &t0, &t1);
    fp_inv(&t0, &t0);
    g16__fp_mul(&r->c0, &a->c0, &t0);
    g16__fp_mul(&t1, &a->c1, &t0);
    g16__fpi_neg(&r->c1, &t1);
}

/*
 * a^(p − 2) with a fixed 4-bit window: 14 products for the table, 380 squarings and 92 products
 * (the non-zero nibbles of p − 2) instead of 384 + 229 for bit-by-bit exponentiation; saves
 * about 8 µs per inversion (the one inversion of the final exponentiation). Constant-time: the
 * exponent and hence every table index and branch is public; 0 maps to 0.
 */
static void fp_inv_ct(g16_fp *r, const g16_fp *a)
{
    static const uint64_t e[6] = {0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                  0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
    g16_fp table[16], acc;
    table[0] = g16__fp_one;
    table[1] = *a;
    for (int i = 2; i < 16; i++)
        g16__fp_mul(&table[i], &table[i - 1], a);
    acc = table[(e[5] >> 60) & 15];
    for (int w = 94; w >= 0; w--) {
        for (int k = 0; k < 4; k++)
            g16__fp_sqr(&acc, &acc);
        unsigned nib = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
        if (nib)
            g16__fp_mul(&acc, &acc, &table[nib]);
    }
    *r = acc;
}

void g16__fp2_inv(g16_fp2 *r, const g16_fp2 *a) { fp2_inv_with(r, a, fp_inv_ct); }
void g16__fp2_inv_var(g16_fp2 *r, const g16_fp2 *a) { fp2_inv_with(r, a, g16__fp_inv_var); }

int g16__fp2_sqrt(g16_fp2 *r, const g16_fp2 *a)
{
    g16_fp2 a1, alpha, x0, b, minus_one, x_u, check;
    g16__fp2_pow(&a1, a, fp_p_minus_3_div_4, 6);
    g16__fp2_mul(&x0, &a1, a);     /* a^((p+1)/4) */
    g16__fp2_mul(&alpha, &a1, &x0); /* a^((p-1)/2) */
    /* alpha = −1: the root is u·x0 */
    g16__fp2_neg(&minus_one, &g16__fp2_one);
    g16__fpi_neg(&x_u.c0, &x0.c1);
    x_u.c1 = x0.c0;
    /* otherwise: (1 + alpha)^((p-1)/2) · x0 */
    g16__fp2_add(&b, &alpha, &g16__fp2_one);
    g16__fp2_pow(&b, &b, fp_p_minus_1_div_2, 6);
    g16__fp2_mul(&b, &b, &x0);
    g16__fp2_cmov(&b, &x_u, g16__fp2_eq(&alpha, &minus_one));
    g16__fp2_sqr(&check, &b);
    *r = b;
    return g16__fp2_eq(&check, a);
}

int g16__fp2_is_lexmax(const g16_fp2 *a)
{
    int c1_zero = g16__fp_is_zero(&a->c1);
    return c1_zero ? g16__fp_is_lexmax(&a->c0) : g16__fp_is_lexmax(&a->c1);
}
