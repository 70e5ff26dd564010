/*
 * x86-64 Montgomery multiplication and squaring for Fp (6 limbs) with MULX/ADCX/ADOX.
 *
 * Contract: exactly that of g16__fp_mul_portable / g16__fp_sqr_portable (fp.h): inputs fully
 * reduced (< p) in Montgomery form, output fully reduced, outputs may alias inputs (every
 * input limb is read before the single store pass at the end). Constant-time: no branch and
 * no memory address depends on the values; the final subtraction selects with CMOV.
 * Only called when CPUID reports BMI2 (MULX) and ADX (ADCX/ADOX); fp.c decides at load time.
 *
 * Why file-scope assembly: the routines need 14-15 general registers, more than GCC can hand
 * to an extended asm statement once RBP is the frame pointer (-O0, sanitizer builds), and
 * plain assembly needs no -mbmi2/-madx flags (the assembler accepts the instructions whatever
 * the compiler targets). SysV ELF only; elsewhere this file forwards to the portable code.
 *
 * Multiplication (CIOS, 6 rounds, one per limb b[i]). Accumulator T0..T6 lives in 7 registers.
 *   product step:   T += a·b[i]. MULX gives hi:lo of a[j]·b[i] without touching flags; the
 *                   lo halves go into T[j] on the ADOX (OF) chain and the hi halves into T[j+1]
 *                   on the ADCX (CF) chain, so the two carry chains run interleaved.
 *   reduction step: m = T0·n0 mod 2^64, T += m·p (same two chains), which zeroes T0; T >>= 64
 *                   is free: the next round renames T1..T6 to T0..T5 and reuses T0's register
 *                   (holding 0) as the new top limb.
 *   Bound: T < 2p before a round, so T + a·b[i] + m·p < 2p + 2^65·p < 2^448 fits 7 limbs and
 *   the shifted result is again < 2p (p < 2^381). One conditional subtraction of p ends it.
 *
 * Squaring: the 12-limb square a² = 2·Σ_{i<j} a_i a_j 2^(64(i+j)) + Σ a_i² 2^(128 i) costs 15 + 6
 * MULX instead of 36. The off-diagonal rows are summed on two chains, then one pass doubles
 * them (ADCX x, x) while adding the diagonal squares (ADOX). The low half L is Montgomery-
 * reduced on its own, (L + M·p)/2^384 < p + 1, the high half H < p is added, and the sum,
 * equal to (a² + M·p)/2^384 < 2p, gets the same conditional subtraction.
 */
#include "fp.h"

#if defined(__x86_64__) && defined(__ELF__)

/* Indirect-branch tracking: start with ENDBR64 when the build asks for CET (-fcf-protection). */
#if defined(__CET__) && (__CET__ & 1)
#define ENDBR "endbr64\n\t"
#else
#define ENDBR ""
#endif

/* p and n0 = -p^(-1) mod 2^64, local to the assembly so that RIP-relative operands reach them
 * in both position-dependent and position-independent builds. */
#define P(k) ".Lg16_fp_p+" #k "(%rip)"
#define N0 ".Lg16_fp_n0(%rip)"

/* Round 0 product step: T0..T6 = a·b[0] (one ADD/ADC chain; nothing to accumulate yet).
 * rsi = a, rcx = b, rbx/rbp temporaries. */
#define MUL_FIRST(T0, T1, T2, T3, T4, T5, T6)                                                              \
    "mov (%rcx), %rdx\n\t"                                                                                 \
    "mulx 0(%rsi), " T0 ", " T1 "\n\t"                                                                     \
    "mulx 8(%rsi), %rbx, " T2 "\n\t"                                                                       \
    "add %rbx, " T1 "\n\t"                                                                                 \
    "mulx 16(%rsi), %rbx, " T3 "\n\t"                                                                      \
    "adc %rbx, " T2 "\n\t"                                                                                 \
    "mulx 24(%rsi), %rbx, " T4 "\n\t"                                                                      \
    "adc %rbx, " T3 "\n\t"                                                                                 \
    "mulx 32(%rsi), %rbx, " T5 "\n\t"                                                                      \
    "adc %rbx, " T4 "\n\t"                                                                                 \
    "mulx 40(%rsi), %rbx, " T6 "\n\t"                                                                      \
    "adc %rbx, " T5 "\n\t"                                                                                 \
    "adc $0, " T6 "\n\t"

/* Rounds 1..5 product step: T0..T5 += a·b[i], new top limb T6. rax = 0 after the XOR,
 * which also clears CF and OF to start both chains. */
#define MUL_NEXT(OFF, T0, T1, T2, T3, T4, T5, T6)                                                          \
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
    "mulx 24(%rsi), %rbx, %rbp\n\t"                                                                        \
    "adox %rbx, " T3 "\n\t"                                                                                \
    "adcx %rbp, " T4 "\n\t"                                                                                \
    "mulx 32(%rsi), %rbx, %rbp\n\t"                                                                        \
    "adox %rbx, " T4 "\n\t"                                                                                \
    "adcx %rbp, " T5 "\n\t"                                                                                \
    "mulx 40(%rsi), %rbx, " T6 "\n\t"                                                                      \
    "adox %rbx, " T5 "\n\t"                                                                                \
    "adcx %rax, " T6 "\n\t"                                                                                \
    "adox %rax, " T6 "\n\t"

/* Reduction step of a multiplication round: T += m·p with m = T0·n0, after which T0 = 0.
 * T6 already holds the top limb; the total stays below 2^448, so nothing carries out of T6. */
#define MUL_REDUCE(T0, T1, T2, T3, T4, T5, T6)                                                             \
    "mov " T0 ", %rdx\n\t"                                                                                 \
    "imul " N0 ", %rdx\n\t"                                                                                \
    "xor %eax, %eax\n\t"                                                                                   \
    "mulx " P(0) ", %rbx, %rbp\n\t"                                                                        \
    "adox %rbx, " T0 "\n\t"                                                                                \
    "adcx %rbp, " T1 "\n\t"                                                                                \
    "mulx " P(8) ", %rbx, %rbp\n\t"                                                                        \
    "adox %rbx, " T1 "\n\t"                                                                                \
    "adcx %rbp, " T2 "\n\t"                                                                                \
    "mulx " P(16) ", %rbx, %rbp\n\t"                                                                       \
    "adox %rbx, " T2 "\n\t"                                                                                \
    "adcx %rbp, " T3 "\n\t"                                                                                \
    "mulx " P(24) ", %rbx, %rbp\n\t"                                                                       \
    "adox %rbx, " T3 "\n\t"                                                                                \
    "adcx %rbp, " T4 "\n\t"                                                                                \
    "mulx " P(32) ", %rbx, %rbp\n\t"                                                                       \
    "adox %rbx, " T4 "\n\t"                                                                                \
    "adcx %rbp, " T5 "\n\t"                                                                                \
    "mulx " P(40) ", %rbx, %rbp\n\t"                                                                       \
    "adox %rbx, " T5 "\n\t"                                                                                \
    "adcx %rbp, " T6 "\n\t"                                                                                \
    "adox %rax, " T6 "\n\t"

/* Reduction step of the squaring: same as MUL_REDUCE but the top limb T6 is new (the low half
 * is reduced alone). rax/rbx are the temporaries; T0, zero after its ADOX, feeds the last carries. */
#define SQR_REDUCE(T0, T1, T2, T3, T4, T5, T6)                                                             \
    "mov " T0 ", %rdx\n\t"                                                                                 \
    "imul " N0 ", %rdx\n\t"                                                                                \
    "xor %eax, %eax\n\t"                                                                                   \
    "mulx " P(0) ", %rax, %rbx\n\t"                                                                        \
    "adox %rax, " T0 "\n\t"                                                                                \
    "adcx %rbx, " T1 "\n\t"                                                                                \
    "mulx " P(8) ", %rax, %rbx\n\t"                                                                        \
    "adox %rax, " T1 "\n\t"                                                                                \
    "adcx %rbx, " T2 "\n\t"                                                                                \
    "mulx " P(16) ", %rax, %rbx\n\t"                                                                       \
    "adox %rax, " T2 "\n\t"                                                                                \
    "adcx %rbx, " T3 "\n\t"                                                                                \
    "mulx " P(24) ", %rax, %rbx\n\t"                                                                       \
    "adox %rax, " T3 "\n\t"                                                                                \
    "adcx %rbx, " T4 "\n\t"                                                                                \
    "mulx " P(32) ", %rax, %rbx\n\t"                                                                       \
    "adox %rax, " T4 "\n\t"                                                                                \
    "adcx %rbx, " T5 "\n\t"                                                                                \
    "mulx " P(40) ", %rax, " T6 "\n\t"                                                                     \
    "adox %rax, " T5 "\n\t"                                                                                \
    "adcx " T0 ", " T6 "\n\t"                                                                              \
    "adox " T0 ", " T6 "\n\t"

/* out = U - p if U >= p else U, for U < 2p in U0..U5; X0..X5 are scratch, OUT the address. */
#define FINAL_SUB(U0, U1, U2, U3, U4, U5, X0, X1, X2, X3, X4, X5, OUT)                                     \
    "mov " U0 ", " X0 "\n\t"                                                                               \
    "mov " U1 ", " X1 "\n\t"                                                                               \
    "mov " U2 ", " X2 "\n\t"                                                                               \
    "mov " U3 ", " X3 "\n\t"                                                                               \
    "mov " U4 ", " X4 "\n\t"                                                                               \
    "mov " U5 ", " X5 "\n\t"                                                                               \
    "sub " P(0) ", " X0 "\n\t"                                                                             \
    "sbb " P(8) ", " X1 "\n\t"                                                                             \
    "sbb " P(16) ", " X2 "\n\t"                                                                            \
    "sbb " P(24) ", " X3 "\n\t"                                                                            \
    "sbb " P(32) ", " X4 "\n\t"                                                                            \
    "sbb " P(40) ", " X5 "\n\t"                                                                            \
    "cmovc " U0 ", " X0 "\n\t"                                                                             \
    "cmovc " U1 ", " X1 "\n\t"                                                                             \
    "cmovc " U2 ", " X2 "\n\t"                                                                             \
    "cmovc " U3 ", " X3 "\n\t"                                                                             \
    "cmovc " U4 ", " X4 "\n\t"                                                                             \
    "cmovc " U5 ", " X5 "\n\t"                                                                             \
    "mov " X0 ", 0(" OUT ")\n\t"                                                                           \
    "mov " X1 ", 8(" OUT ")\n\t"                                                                           \
    "mov " X2 ", 16(" OUT ")\n\t"                                                                          \
    "mov " X3 ", 24(" OUT ")\n\t"                                                                          \
    "mov " X4 ", 32(" OUT ")\n\t"                                                                          \
    "mov " X5 ", 40(" OUT ")\n\t"

#define PUSH(R, OFF) "push " R "\n\t.cfi_adjust_cfa_offset 8\n\t.cfi_offset " R ", " #OFF "\n\t"
#define POP(R) "pop " R "\n\t.cfi_adjust_cfa_offset -8\n\t.cfi_restore " R "\n\t"

/* Squaring, the last three products of an off-diagonal row (rdx = a[i], both chains running):
 * adds a[i]·(a at byte offsets A1, A2, A3) into S0..S2; the last hi half starts the new top
 * limb S3, which takes both pending carries. rdi holds 0. */
#define SQR_ROW3(A1, A2, A3, S0, S1, S2, S3)                                                               \
    "mulx " #A1 "(%rsi), %rax, %rbx\n\t"                                                                   \
    "adox %rax, " S0 "\n\t"                                                                                \
    "adcx %rbx, " S1 "\n\t"                                                                                \
    "mulx " #A2 "(%rsi), %rax, %rbx\n\t"                                                                   \
    "adox %rax, " S1 "\n\t"                                                                                \
    "adcx %rbx, " S2 "\n\t"                                                                                \
    "mulx " #A3 "(%rsi), %rax, " S3 "\n\t"                                                                 \
    "adox %rax, " S2 "\n\t"                                                                                \
    "adcx %rdi, " S3 "\n\t"                                                                                \
    "adox %rdi, " S3 "\n\t"


/* Addition, subtraction, negation: plain ADD/ADC/SUB/SBB chains (baseline x86-64, no CPUID needed)
 * in place of the portable loops. A result that may need a correction is first stored to r, the
 * corrected value is computed in registers, and CMOV with a memory source reloads the stored one
 * when the correction must not apply (such a CMOV always performs its load: constant-time).
 * r may alias a or b: both are read completely before the first store. */
#define LOAD6(SRC) "mov 0(" SRC "), %r8\n\tmov 8(" SRC "), %r9\n\tmov 16(" SRC "), %r10\n\t"               \
                   "mov 24(" SRC "), %r11\n\tmov 32(" SRC "), %rax\n\tmov 40(" SRC "), %rcx\n\t"
#define STORE6 "mov %r8, 0(%rdi)\n\tmov %r9, 8(%rdi)\n\tmov %r10, 16(%rdi)\n\t"                                \
               "mov %r11, 24(%rdi)\n\tmov %rax, 32(%rdi)\n\tmov %rcx, 40(%rdi)\n\t"
#define CMOV6(CC) "cmov" CC " 0(%rdi), %r8\n\tcmov" CC " 8(%rdi), %r9\n\tcmov" CC " 16(%rdi), %r10\n\t"         \
                  "cmov" CC " 24(%rdi), %r11\n\tcmov" CC " 32(%rdi), %rax\n\tcmov" CC " 40(%rdi), %rcx\n\t"
#define SUBP6 "sub " P(0) ", %r8\n\tsbb " P(8) ", %r9\n\tsbb " P(16) ", %r10\n\t"                              \
              "sbb " P(24) ", %r11\n\tsbb " P(32) ", %rax\n\tsbb " P(40) ", %rcx\n\t"
#define ADDP6 "add " P(0) ", %r8\n\tadc " P(8) ", %r9\n\tadc " P(16) ", %r10\n\t"                              \
              "adc " P(24) ", %r11\n\tadc " P(32) ", %rax\n\tadc " P(40) ", %rcx\n\t"
#define FUNC(NAME) ".p2align 4\n\t.globl " NAME "\n\t.type " NAME ", @function\n" NAME ":\n\t.cfi_startproc\n\t" ENDBR
#define ENDFUNC(NAME) "ret\n\t.cfi_endproc\n\t.size " NAME ", .-" NAME "\n\t"

__asm__(".section .rodata\n\t"
        ".p2align 6\n"
        ".Lg16_fp_p:\n\t"
        ".quad 0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624\n\t"
        ".quad 0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a\n"
        ".Lg16_fp_n0:\n\t"
        ".quad 0x89f3fffcfffcfffd\n\t"
        ".text\n\t"

        /* void g16__fp_mul_mulx(g16_fp *r = rdi, const g16_fp *a = rsi, const g16_fp *b = rdx)
         * T registers rotate through r8..r14 (round k: T_j = list[(k + j) mod 7]). */
        ".p2align 5\n\t"
        ".globl g16__fp_mul_mulx\n\t"
        ".type g16__fp_mul_mulx, @function\n"
        "g16__fp_mul_mulx:\n\t"
        ".cfi_startproc\n\t" ENDBR
        PUSH("%rbx", -16) PUSH("%rbp", -24) PUSH("%r12", -32) PUSH("%r13", -40) PUSH("%r14", -48)
        "mov %rdx, %rcx\n\t"
        MUL_FIRST("%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14")
        MUL_REDUCE("%r8", "%r9", "%r10", "%r11", "%r12", "%r13", "%r14")
        MUL_NEXT(8, "%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r8")
        MUL_REDUCE("%r9", "%r10", "%r11", "%r12", "%r13", "%r14", "%r8")
        MUL_NEXT(16, "%r10", "%r11", "%r12", "%r13", "%r14", "%r8", "%r9")
        MUL_REDUCE("%r10", "%r11", "%r12", "%r13", "%r14", "%r8", "%r9")
        MUL_NEXT(24, "%r11", "%r12", "%r13", "%r14", "%r8", "%r9", "%r10")
        MUL_REDUCE("%r11", "%r12", "%r13", "%r14", "%r8", "%r9", "%r10")
        MUL_NEXT(32, "%r12", "%r13", "%r14", "%r8", "%r9", "%r10", "%r11")
        MUL_REDUCE("%r12", "%r13", "%r14", "%r8", "%r9", "%r10", "%r11")
        MUL_NEXT(40, "%r13", "%r14", "%r8", "%r9", "%r10", "%r11", "%r12")
        MUL_REDUCE("%r13", "%r14", "%r8", "%r9", "%r10", "%r11", "%r12")
        FINAL_SUB("%r14", "%r8", "%r9", "%r10", "%r11", "%r12",
                  "%rax", "%rbx", "%rbp", "%rdx", "%rcx", "%rsi", "%rdi")
        POP("%r14") POP("%r13") POP("%r12") POP("%rbp") POP("%rbx")
        "ret\n\t"
        ".cfi_endproc\n\t"
        ".size g16__fp_mul_mulx, .-g16__fp_mul_mulx\n\t"

        /* void g16__fp_sqr_mulx(g16_fp *r = rdi, const g16_fp *a = rsi)
         * Stack frame (after the pushes): 0..47 high half t6..t11, 48 r, 56 s1, 64 s2. */
        ".p2align 5\n\t"
        ".globl g16__fp_sqr_mulx\n\t"
        ".type g16__fp_sqr_mulx, @function\n"
        "g16__fp_sqr_mulx:\n\t"
        ".cfi_startproc\n\t" ENDBR
        PUSH("%rbx", -16) PUSH("%rbp", -24) PUSH("%r12", -32) PUSH("%r13", -40) PUSH("%r14", -48)
        PUSH("%r15", -56)
        "sub $72, %rsp\n\t"
        ".cfi_adjust_cfa_offset 72\n\t"
        "mov %rdi, 48(%rsp)\n\t"

        /* Off-diagonal sum S (limbs s1..s10): s1=r8 s2=r9 s3=r10 s4=r11 s5=r12 s6=r13 s7=r14
         * s8=r15 s9=rcx s10=rbp. Row 0: a0·(a1..a5) on one ADD/ADC chain. */
        "mov 0(%rsi), %rdx\n\t"
        "mulx 8(%rsi), %r8, %r9\n\t"
        "mulx 16(%rsi), %rax, %r10\n\t"
        "add %rax, %r9\n\t"
        "mulx 24(%rsi), %rax, %r11\n\t"
        "adc %rax, %r10\n\t"
        "mulx 32(%rsi), %rax, %r12\n\t"
        "adc %rax, %r11\n\t"
        "mulx 40(%rsi), %rax, %r13\n\t"
        "adc %rax, %r12\n\t"
        "adc $0, %r13\n\t"
        "mov %r8, 56(%rsp)\n\t" /* s1, s2 are final: spill them to free registers */
        "mov %r9, 64(%rsp)\n\t"
        "xor %edi, %edi\n\t"
        /* Row 1: a1·(a2..a5) into s3..s6, new s7. */
        "mov 8(%rsi), %rdx\n\t"
        "xor %eax, %eax\n\t"
        "mulx 16(%rsi), %rax, %rbx\n\t"
        "adox %rax, %r10\n\t"
        "adcx %rbx, %r11\n\t"
        SQR_ROW3(24, 32, 40, "%r11", "%r12", "%r13", "%r14")
        /* Row 2: a2·(a3..a5) into s5..s7, new s8. */
        "mov 16(%rsi), %rdx\n\t"
        "xor %eax, %eax\n\t"
        SQR_ROW3(24, 32, 40, "%r12", "%r13", "%r14", "%r15")
        /* Row 3: a3·(a4, a5) into s7, s8, new s9. */
        "mov 24(%rsi), %rdx\n\t"
        "xor %eax, %eax\n\t"
        "mulx 32(%rsi), %rax, %rbx\n\t"
        "adox %rax, %r14\n\t"
        "adcx %rbx, %r15\n\t"
        "mulx 40(%rsi), %rax, %rcx\n\t"
        "adox %rax, %r15\n\t"
        "adcx %rdi, %rcx\n\t"
        "adox %rdi, %rcx\n\t"
        /* Row 4: a4·a5 into s9, new s10. */
        "mov 32(%rsi), %rdx\n\t"
        "mulx 40(%rsi), %rax, %rbp\n\t"
        "add %rax, %rcx\n\t"
        "adc $0, %rbp\n\t"

        /* Doubling + diagonal: t_k = 2 s_k + (a_{k/2}²)_{k mod 2}; CF doubles, OF adds squares.
         * Low half t0..t5 -> r8 r9 rdi r10 r11 r12; high half t6..t11 -> stack 0..40. */
        "xor %eax, %eax\n\t"
        "mov 0(%rsi), %rdx\n\t"
        "mulx %rdx, %r8, %rbx\n\t"
        "mov 56(%rsp), %r9\n\t"
        "adcx %r9, %r9\n\t"
        "adox %rbx, %r9\n\t"
        "mov 8(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %rbx\n\t"
        "mov 64(%rsp), %rdi\n\t"
        "adcx %rdi, %rdi\n\t"
        "adox %rax, %rdi\n\t"
        "adcx %r10, %r10\n\t"
        "adox %rbx, %r10\n\t"
        "mov 16(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %rbx\n\t"
        "adcx %r11, %r11\n\t"
        "adox %rax, %r11\n\t"
        "adcx %r12, %r12\n\t"
        "adox %rbx, %r12\n\t"
        "mov 24(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %rbx\n\t"
        "adcx %r13, %r13\n\t"
        "adox %rax, %r13\n\t"
        "adcx %r14, %r14\n\t"
        "adox %rbx, %r14\n\t"
        "mov %r13, 0(%rsp)\n\t"
        "mov %r14, 8(%rsp)\n\t"
        "mov 32(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %rbx\n\t"
        "adcx %r15, %r15\n\t"
        "adox %rax, %r15\n\t"
        "adcx %rcx, %rcx\n\t"
        "adox %rbx, %rcx\n\t"
        "mov %r15, 16(%rsp)\n\t"
        "mov %rcx, 24(%rsp)\n\t"
        "mov 40(%rsi), %rdx\n\t"
        "mulx %rdx, %rax, %rbx\n\t"
        "adcx %rbp, %rbp\n\t"
        "adox %rax, %rbp\n\t"
        "mov $0, %r13\n\t" /* MOV keeps the flags */
        "adcx %r13, %rbx\n\t"
        "adox %r13, %rbx\n\t"
        "mov %rbp, 32(%rsp)\n\t"
        "mov %rbx, 40(%rsp)\n\t"

        /* Reduce the low half; T registers rotate through r8 r9 rdi r10 r11 r12 r13. */
        SQR_REDUCE("%r8", "%r9", "%rdi", "%r10", "%r11", "%r12", "%r13")
        SQR_REDUCE("%r9", "%rdi", "%r10", "%r11", "%r12", "%r13", "%r8")
        SQR_REDUCE("%rdi", "%r10", "%r11", "%r12", "%r13", "%r8", "%r9")
        SQR_REDUCE("%r10", "%r11", "%r12", "%r13", "%r8", "%r9", "%rdi")
        SQR_REDUCE("%r11", "%r12", "%r13", "%r8", "%r9", "%rdi", "%r10")
        SQR_REDUCE("%r12", "%r13", "%r8", "%r9", "%rdi", "%r10", "%r11")
        /* + high half (the sum is < 2p: no carry out), then the final subtraction. */
        "add 0(%rsp), %r13\n\t"
        "adc 8(%rsp), %r8\n\t"
        "adc 16(%rsp), %r9\n\t"
        "adc 24(%rsp), %rdi\n\t"
        "adc 32(%rsp), %r10\n\t"
        "adc 40(%rsp), %r11\n\t"
        "mov 48(%rsp), %rsi\n\t"
        FINAL_SUB("%r13", "%r8", "%r9", "%rdi", "%r10", "%r11",
                  "%rax", "%rbx", "%rdx", "%rcx", "%rbp", "%r14", "%rsi")
        "add $72, %rsp\n\t"
        ".cfi_adjust_cfa_offset -72\n\t"
        POP("%r15") POP("%r14") POP("%r13") POP("%r12") POP("%rbp") POP("%rbx")
        "ret\n\t"
        ".cfi_endproc\n\t"
        ".size g16__fp_sqr_mulx, .-g16__fp_sqr_mulx\n\t"

        /* void g16__fp_add_x86(r = rdi, a = rsi, b = rdx): a + b < 2p < 2^384 cannot carry out. */
        FUNC("g16__fp_add_x86")
        LOAD6("%rsi")
        "add 0(%rdx), %r8\n\tadc 8(%rdx), %r9\n\tadc 16(%rdx), %r10\n\t"
        "adc 24(%rdx), %r11\n\tadc 32(%rdx), %rax\n\tadc 40(%rdx), %rcx\n\t"
        STORE6 SUBP6 CMOV6("c") STORE6
        ENDFUNC("g16__fp_add_x86")

        /* void g16__fp_sub_x86(r = rdi, a = rsi, b = rdx): a - b, plus p when it borrowed. */
        FUNC("g16__fp_sub_x86")
        LOAD6("%rsi")
        "sub 0(%rdx), %r8\n\tsbb 8(%rdx), %r9\n\tsbb 16(%rdx), %r10\n\t"
        "sbb 24(%rdx), %r11\n\tsbb 32(%rdx), %rax\n\tsbb 40(%rdx), %rcx\n\t"
        "sbb %rdx, %rdx\n\t" /* -1 when a < b */
        STORE6 ADDP6
        "test %rdx, %rdx\n\t"
        CMOV6("z") STORE6
        ENDFUNC("g16__fp_sub_x86")

        /* void g16__fp_neg_x86(r = rdi, a = rsi): p - a, masked to 0 when a = 0. */
        FUNC("g16__fp_neg_x86")
        "mov " P(0) ", %r8\n\tmov " P(8) ", %r9\n\tmov " P(16) ", %r10\n\t"
        "mov " P(24) ", %r11\n\tmov " P(32) ", %rax\n\tmov " P(40) ", %rcx\n\t"
        "sub 0(%rsi), %r8\n\tsbb 8(%rsi), %r9\n\tsbb 16(%rsi), %r10\n\t"
        "sbb 24(%rsi), %r11\n\tsbb 32(%rsi), %rax\n\tsbb 40(%rsi), %rcx\n\t"
        "mov 0(%rsi), %rdx\n\tor 8(%rsi), %rdx\n\tor 16(%rsi), %rdx\n\t"
        "or 24(%rsi), %rdx\n\tor 32(%rsi), %rdx\n\tor 40(%rsi), %rdx\n\t"
        "neg %rdx\n\t"        /* CF = (a != 0) */
        "sbb %rdx, %rdx\n\t" /* mask */
        "and %rdx, %r8\n\tand %rdx, %r9\n\tand %rdx, %r10\n\t"
        "and %rdx, %r11\n\tand %rdx, %rax\n\tand %rdx, %rcx\n\t"
        STORE6
        ENDFUNC("g16__fp_neg_x86"));

#else /* not SysV ELF x86-64: keep the symbols, forward to the portable code */

#if defined(__x86_64__)
void g16__fp_mul_mulx(g16_fp *r, const g16_fp *a, const g16_fp *b) { g16__fp_mul_portable(r, a, b); }
void g16__fp_sqr_mulx(g16_fp *r, const g16_fp *a) { g16__fp_sqr_portable(r, a); }
#endif
/* fp.c calls none of these outside SysV ELF x86-64 (see FP_ASM_COMPILED there). */

#endif
