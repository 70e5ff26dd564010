/*
 * x86-64 Montgomery multiplication and squaring for Fr (4 limbs) with MULX/ADCX/ADOX.
 *
 * Same contract and method as fp_x86.c (read its header first): results identical to the
 * portable mont_mul, inputs and outputs fully reduced (< r), outputs may alias inputs,
 * constant-time, used only when CPUID reports BMI2 and ADX (fr.c decides at load time).
 *
 * Multiplication: 4 CIOS rounds with the product step on two carry chains (lo halves on
 * ADOX, hi halves on ADCX) and the reduction step T += m·r, m = T0·n0, then a renaming shift.
 * Bound: T < 2r before a round, T + a·b[i] + m·r < 2^65·r < 2^320 (r < 2^255) fits 5 limbs.
 * Squaring: 6 off-diagonal + 4 diagonal products, one doubling pass, the low half reduced alone
 * ((L + M·r)/2^256 < r + 1), plus the high half (< r), then one conditional subtraction.
 */
#include "fr.h"

#if defined(__x86_64__) && defined(__ELF__)

#if defined(__CET__) && (__CET__ & 1)
#define ENDBR "endbr64\n\t"
#else
#define ENDBR ""
#endif

#define R(k) ".Lg16_fr_r+" #k "(%rip)"
#define N0 ".Lg16_fr_n0(%rip)"

/* Round 0 product step: T0..T4 = a·b[0]. rsi = a, rcx = b, rbx temporary. */
#define MUL_FIRST(T0, T1, T2, T3, T4)                                                                      \
    "mov (%rcx), %rdx\n\t"                                                                                 \
    "mulx 0(%rsi), " T0 ", " T1 "\n\t"                                                                     \
    "mulx 8(%rsi), %rbx, " T2 "\n\t"                                                                       \
    "add %rbx, " T1 "\n\t"                                                                                 \
    "mulx 16(%rsi), %rbx, " T3 "\n\t"                                                                      \
    "adc %rbx, " T2 "\n\t"                                                                                 \
    "mulx 24(%rsi), %rbx, " T4 "\n\t"                                                                      \
    "adc %rbx, " T3 "\n\t"                                                                                 \
    "adc $0, " T4 "\n\t"

/* Rounds 1..3 product step: T0..T3 += a·b[i], new top limb T4 (rax = 0 after the XOR). */
#define MUL_NEXT(OFF, T0, T1, T2, T3, T4)                                                                  \
    "mov " #OFF "(%rcx), %rdx\n\t"                                                                         \
    "xor %eax, %eax\n\t"                                                                                   \
    "mulx 0(%rsi), %rbx, %rbp\n\t"                                                                         \
    "adox %rbx, " T0 "\n\t"                                                                                \
    "adcx %rbp, " T1 "\n\t"                                                                                \
    "mulx 8(%rsi), %rbx, %rbp\n\t"                                                                         \
    "adox %rbx, " T1 "\n\t"                                                                                \
    "adcx %rbp, " T2 "\n\t"                                                                                \
    "mulx 16(%rsi), %rbx, %rbp\n\t"                                                                        \
    "adox %rbx, " T2 "\n\t"                                                                                \
    "adcx %rbp, " T3 "\n\t"                                                                                \
    "mulx 24(%rsi), %rbx, " T4 "\n\t"                                                                      \
    "adox %rbx, " T3 "\n\t"                                                                                \
    "adcx %rax, " T4 "\n\t"                                                                                \
    "adox %rax, " T4 "\n\t"

/* Reduction step: T += m·r with m = T0·n0 (T0 becomes 0); nothing carries out of T4. */
#define MUL_REDUCE(T0, T1, T2, T3, T4)                                                                     \
    "mov " T0 ", %rdx\n\t"                                                                                 \
    "imul " N0 ", %rdx\n\t"                                                                                \
    "xor %eax, %eax\n\t"                                                                                   \
    "mulx " R(0) ", %rbx, %rbp\n\t"                                                                        \
    "adox %rbx, " T0 "\n\t"                                                                                \
    "adcx %rbp, " T1 "\n\t"                                                                                \
    "mulx " R(8) ", %rbx, %rbp\n\t"                                                                        \
    "adox %rbx, " T1 "\n\t"                                                                                \
    "adcx %rbp, " T2 "\n\t"                                                                                \
    "mulx " R(16) ", %rbx, %rbp\n\t"                                                                       \
    "adox %rbx, " T2 "\n\t"                                                                                \
    "adcx %rbp, " T3 "\n\t"                                                                                \
    "mulx " R(24) ", %rbx, %rbp\n\t"                                                                       \
    "adox %rbx, " T3 "\n\t"                                                                                \
    "adcx %rbp, " T4 "\n\t"                                                                                \
    "adox %rax, " T4 "\n\t"

/* Squaring reduction step: the top limb T4 is new; T0 (zero after its ADOX) feeds the last
 * carries. rax/rbx temporaries. */
#define SQR_REDUCE(T0, T1, T2, T3, T4)                                                                     \
    "mov " T0 ", %rdx\n\t"                                                                                 \
    "imul " N0 ", %rdx\n\t"                                                                                \
    "xor %eax, %eax\n\t"                                                                                   \
    "mulx " R(0) ", %rax, %rbx\n\t"                                                                        \
    "adox %rax, " T0 "\n\t"                                                                                \
    "adcx %rbx, " T1 "\n\t"                                                                                \
    "mulx " R(8) ", %rax, %rbx\n\t"                                                                        \
    "adox %rax, " T1 "\n\t"                                                                                \
    "adcx %rbx, " T2 "\n\t"                                                                                \
    "mulx " R(16) ", %rax, %rbx\n\t"                                                                       \
    "adox %rax, " T2 "\n\t"                                                                                \
    "adcx %rbx, " T3 "\n\t"                                                                                \
    "mulx " R(24) ", %rax, " T4 "\n\t"                                                                     \
    "adox %rax, " T3 "\n\t"                                                                                \
    "adcx " T0 ", " T4 "\n\t"                                                                              \
    "adox " T0 ", " T4 "\n\t"

/* out = U - r if U >= r else U, for U < 2r in U0..U3; X0..X3 scratch, OUT the address. */
#define FINAL_SUB(U0, U1, U2, U3, X0, X1, X2, X3, OUT)                                                     \
    "mov " U0 ", " X0 "\n\t"                                                                               \
    "mov " U1 ", " X1 "\n\t"                                                                               \
    "mov " U2 ", " X2 "\n\t"                                                                               \
    "mov " U3 ", " X3 "\n\t"                                                                               \
    "sub " R(0) ", " X0 "\n\t"                                                                             \
    "sbb " R(8) ", " X1 "\n\t"                                                                             \
    "sbb " R(16) ", " X2 "\n\t"                                                                            \
    "sbb " R(24) ", " X3 "\n\t"                                                                            \
    "cmovc " U0 ", " X0 "\n\t"                                                                             \
    "cmovc " U1 ", " X1 "\n\t"                                                                             \
    "cmovc " U2 ", " X2 "\n\t"                                                                             \
    "cmovc " U3 ", " X3 "\n\t"                                                                             \
    "mov " X0 ", 0(" OUT ")\n\t"                                                                           \
    "mov " X1 ", 8(" OUT ")\n\t"                                                                           \
    "mov " X2 ", 16(" OUT ")\n\t"                                                                          \
    "mov " X3 ", 24(" OUT ")\n\t"

#define PUSH(REG, OFF) "push " REG "\n\t.cfi_adjust_cfa_offset 8\n\t.cfi_offset " REG ", " #OFF "\n\t"
#define POP(REG) "pop " REG "\n\t.cfi_adjust_cfa_offset -8\n\t.cfi_restore " REG "\n\t"


/* Addition, subtraction, negation: as in fp_x86.c (store, correct in registers, CMOV from memory
 * back to the stored value when the correction must not apply). r may alias a or b. */
#define LOAD4(SRC) "mov 0(" SRC "), %r8\n\tmov 8(" SRC "), %r9\n\tmov 16(" SRC "), %r10\n\tmov 24(" SRC "), %r11\n\t"
#define STORE4 "mov %r8, 0(%rdi)\n\tmov %r9, 8(%rdi)\n\tmov %r10, 16(%rdi)\n\tmov %r11, 24(%rdi)\n\t"
#define CMOV4(CC)                                                                                          \
    "cmov" CC " 0(%rdi), %r8\n\tcmov" CC " 8(%rdi), %r9\n\tcmov" CC " 16(%rdi), %r10\n\tcmov" CC " 24(%rdi), %r11\n\t"
#define SUBR4 "sub " R(0) ", %r8\n\tsbb " R(8) ", %r9\n\tsbb " R(16) ", %r10\n\tsbb " R(24) ", %r11\n\t"
#define ADDR4 "add " R(0) ", %r8\n\tadc " R(8) ", %r9\n\tadc " R(16) ", %r10\n\tadc " R(24) ", %r11\n\t"
#define FUNC(NAME) ".p2align 4\n\t.globl " NAME "\n\t.type " NAME ", @function\n" NAME ":\n\t.cfi_startproc\n\t" ENDBR
#define ENDFUNC(NAME) "ret\n\t.cfi_endproc\n\t.size " NAME ", .-" NAME "\n\t"

__asm__(".section .rodata\n\t"
        ".p2align 5\n"
        ".Lg16_fr_r:\n\t"
        ".quad 0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48\n"
        ".Lg16_fr_n0:\n\t"
        ".quad 0xfffffffeffffffff\n\t"
        ".text\n\t"

        /* void g16__fr_mul_mulx(g16_fr *r = rdi, const g16_fr *a = rsi, const g16_fr *b = rdx)
         * T registers rotate through r8..r12. */
        ".p2align 5\n\t"
        ".globl g16__fr_mul_mulx\n\t"
        ".type g16__fr_mul_mulx, @function\n"
        "g16__fr_mul_mulx:\n\t"
        ".cfi_startproc\n\t" ENDBR
        PUSH("%rbx", -16) PUSH("%rbp", -24) PUSH("%r12", -32)
        "mov %rdx, %rcx\n\t"
        MUL_FIRST("%r8", "%r9", "%r10", "%r11", "%r12")
        MUL_REDUCE("%r8", "%r9", "%r10", "%r11", "%r12")
        MUL_NEXT(8, "%r9", "%r10", "%r11", "%r12", "%r8")
        MUL_REDUCE("%r9", "%r10", "%r11", "%r12", "%r8")
        MUL_NEXT(16, "%r10", "%r11", "%r12", "%r8", "%r9")
        MUL_REDUCE("%r10", "%r11", "%r12", "%r8", "%r9")
        MUL_NEXT(24, "%r11", "%r12", "%r8", "%r9", "%r10")
        MUL_REDUCE("%r11", "%r12", "%r8", "%r9", "%r10")
        FINAL_SUB("%r12", "%r8", "%r9", "%r10", "%rax", "%rdx", "%rcx", "%rsi", "%rdi")
        POP("%r12") POP("%rbp") POP("%rbx")
        "ret\n\t"
        ".cfi_endproc\n\t"
        ".size g16__fr_mul_mulx, .-g16__fr_mul_mulx\n\t"

        /* void g16__fr_sqr_mulx(g16_fr *r = rdi, const g16_fr *a = rsi)
         * Off-diagonal sum s1..s6 in r8..r13 (doubled in place into t1..t6), t0 = r14, t7 = r15,
         * rcx = 0 while the rows run. */
        ".p2align 5\n\t"
        ".globl g16__fr_sqr_mulx\n\t"
        ".type g16__fr_sqr_mulx, @function\n"
        "g16__fr_sqr_mulx:\n\t"
        ".cfi_startproc\n\t" ENDBR
        PUSH("%rbx", -16) PUSH("%rbp", -24) PUSH("%r12", -32) PUSH("%r13", -40) PUSH("%r14", -48)
        PUSH("%r15", -56)
        /* Row 0: a0·(a1, a2, a3) -> s1..s4 on one ADD/ADC chain. */
        "mov 0(%rsi), %rdx\n\t"
        "mulx 8(%rsi), %r8, %r9\n\t"
        "mulx 16(%rsi), %rax, %r10\n\t"
        "add %rax, %r9\n\t"
        "mulx 24(%rsi), %rax, %r11\n\t"
        "adc %rax, %r10\n\t"
        "adc $0, %r11\n\t"
        /* Row 1: a1·(a2, a3) into s3, s4, new s5. */
        "mov 8(%rsi), %rdx\n\t"
        "xor %ecx, %ecx\n\t"
        "mulx 16(%rsi), %rax, %rbx\n\t"
        "adox %rax, %r10\n\t"
        "adcx %rbx, %r11\n\t"
        "mulx 24(%rsi), %rax, %r12\n\t"
        "adox %rax, %r11\n\t"
        "adcx %rcx, %r12\n\t"
        "adox %rcx, %r12\n\t"
        /* Row 2: a2·a3 into s5, new s6. */
        "mov 16(%rsi), %rdx\n\t"
        "mulx 24(%rsi), %rax, %r13\n\t"
        "add %rax, %r12\n\t"
        "adc $0, %r13\n\t"
        /* Doubling (CF) + diagonal squares (OF): t0 = r14, t1..t6 = r8..r13, t7 = r15. */
        "xor %eax, %eax\n\t"
        "mov 0(%rsi), %rdx\n\t"
        "mulx %rdx, %r14, %rbx\n\t"
        "adcx %r8, %r8\n\t"
        "adox %rbx, %r8\n\t"
        "mov 8(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %rbx\n\t"
        "adcx %r9, %r9\n\t"
        "adox %rax, %r9\n\t"
        "adcx %r10, %r10\n\t"
        "adox %rbx, %r10\n\t"
        "mov 16(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %rbx\n\t"
        "adcx %r11, %r11\n\t"
        "adox %rax, %r11\n\t"
        "adcx %r12, %r12\n\t"
        "adox %rbx, %r12\n\t"
        "mov 24(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %r15\n\t"
        "adcx %r13, %r13\n\t"
        "adox %rax, %r13\n\t"
        "adcx %rcx, %r15\n\t"
        "adox %rcx, %r15\n\t"
        /* Reduce the low half t0..t3; T registers rotate through r14 r8 r9 r10 rbp. */
        SQR_REDUCE("%r14", "%r8", "%r9", "%r10", "%rbp")
        SQR_REDUCE("%r8", "%r9", "%r10", "%rbp", "%r14")
        SQR_REDUCE("%r9", "%r10", "%rbp", "%r14", "%r8")
        SQR_REDUCE("%r10", "%rbp", "%r14", "%r8", "%r9")
        /* + high half t4..t7 (sum < 2r: no carry out), then the final subtraction. */
        "add %r11, %rbp\n\t"
        "adc %r12, %r14\n\t"
        "adc %r13, %r8\n\t"
        "adc %r15, %r9\n\t"
        FINAL_SUB("%rbp", "%r14", "%r8", "%r9", "%rax", "%rbx", "%rcx", "%rdx", "%rdi")
        POP("%r15") POP("%r14") POP("%r13") POP("%r12") POP("%rbp") POP("%rbx")
        "ret\n\t"
        ".cfi_endproc\n\t"
        ".size g16__fr_sqr_mulx, .-g16__fr_sqr_mulx\n\t"

        /* void g16__fr_add_x86(r = rdi, a = rsi, b = rdx): a + b < 2r < 2^256 cannot carry out. */
        FUNC("g16__fr_add_x86")
        LOAD4("%rsi")
        "add 0(%rdx), %r8\n\tadc 8(%rdx), %r9\n\tadc 16(%rdx), %r10\n\tadc 24(%rdx), %r11\n\t"
        STORE4 SUBR4 CMOV4("c") STORE4
        ENDFUNC("g16__fr_add_x86")

        /* void g16__fr_sub_x86(r = rdi, a = rsi, b = rdx): a - b, plus r when it borrowed. */
        FUNC("g16__fr_sub_x86")
        LOAD4("%rsi")
        "sub 0(%rdx), %r8\n\tsbb 8(%rdx), %r9\n\tsbb 16(%rdx), %r10\n\tsbb 24(%rdx), %r11\n\t"
        "sbb %rdx, %rdx\n\t" /* -1 when a < b */
        STORE4 ADDR4
        "test %rdx, %rdx\n\t"
        CMOV4("z") STORE4
        ENDFUNC("g16__fr_sub_x86")

        /* void g16__fr_neg_x86(r = rdi, a = rsi): r - a, masked to 0 when a = 0. */
        FUNC("g16__fr_neg_x86")
        "mov " R(0) ", %r8\n\tmov " R(8) ", %r9\n\tmov " R(16) ", %r10\n\tmov " R(24) ", %r11\n\t"
        "sub 0(%rsi), %r8\n\tsbb 8(%rsi), %r9\n\tsbb 16(%rsi), %r10\n\tsbb 24(%rsi), %r11\n\t"
        "mov 0(%rsi), %rdx\n\tor 8(%rsi), %rdx\n\tor 16(%rsi), %rdx\n\tor 24(%rsi), %rdx\n\t"
        "neg %rdx\n\t"        /* CF = (a != 0) */
        "sbb %rdx, %rdx\n\t" /* mask */
        "and %rdx, %r8\n\tand %rdx, %r9\n\tand %rdx, %r10\n\tand %rdx, %r11\n\t"
        STORE4
        ENDFUNC("g16__fr_neg_x86"));

#else /* not SysV ELF x86-64: keep the symbols, forward to the portable code */

#if defined(__x86_64__)
void g16__fr_mul_mulx(g16_fr *r, const g16_fr *a, const g16_fr *b) { g16__fr_mul_portable(r, a, b); }
void g16__fr_sqr_mulx(g16_fr *r, const g16_fr *a) { g16__fr_sqr_portable(r, a); }
#endif
/* fr.c calls none of these outside SysV ELF x86-64 (see FR_MULX_COMPILED there). */

#endif
