"""Float32 gelu (exact, erf form: x * Phi(x)) in Arm Thumb-2 integer fixed
point, for boards without an FPU (Cortex-M3: emitters.THUMB2 and not
emitters.FPU / WIDE): `gelu(x, o, CTL, n)`, called directly by op_gelu's
step. Only an assembler function and its control words (a module of
bytecode costs RAM on the 224 KB board; its own module, so the programs
without gelu do not carry its ~700 bytes of code, copied to RAM at import).

With t = |x|, z = t / sqrt 2 and Q = Phi(-t) = erfc(z) / 2, gelu(x) =
x (1 - Q) for x >= 0 and -t Q for x < 0; Q by Numerical Recipes' erfcc as f32_exp_fpu's gelu has it
(fractional error below 1.2e-7 for every argument: no cancellation where Q
is tiny): erfc(z) = T exp(P(T) - z*z), T = 1 / (1 + z / 2), P of degree 9.
t in Q28 from the mantissa; T by three Newton steps from 48/17 - 32/17 d
(d = 1 + z / 2 normalized with CLZ into [1/2, 1), Q32); P by Horner in Q29
(SMULL); (z*z - P) log2 e in Q30 over 64 bits (UMULL) = k - u, k an
integer, u in [0, 1), and 2**u by softmax's polynomial; Q = T 2**u 2**-k / 2
normalized with CLZ; the product with the mantissa rounded once to float32
(to nearest even, denormals: round_t_thumb). +-0 gives x, x >= 6 gives x,
x <= -15 gives -0.0 (below the smallest denormal). Within 2 ulp of float64
math, mostly correctly rounded (tests/test_f32_gelu_thumb.py). It stops at
an inf or NaN and returns the elements it left (op_gelu's bytecode loop
finishes from there, in place). Does not allocate.

Thumb-2 instructions (CLZ, UMULL, SMULL, shifted-register ADD / ORR) are
emitted with data(), the rest are Thumb-1 mnemonics, as in f32_sigmoid_thumb.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

# 30 words: [0 .. 6] the step's spills (sign, mantissa, exponent, CLZ of
# 1 + z / 2, 1 / d, k, t); [7] log2 e in Q30, [8 .. 14] 2**f = c0 + c1 f + ...
# + c6 f**6 on [0, 1) in Q30, c6 first (f32_rows_thumb's softmax polynomial,
# the same numbers); [15] 1 / (2 sqrt 2) Q32 [16] 48/17 Q30 [17] 32/17 Q31
# [18] the bits of 6.0 [19] of 15.0 [20 .. 29] erfcc's c0 .. c9 (Q29).
CTL = array(
    "i",
    [0, 0, 0, 0, 0, 0, 0, 1549082005, 234908, 1330132, 10398739, 59571654, 257945537, 744260848, 1073741827]
    + [1518500250, -1263225675, -252645135, 1086324736, 1097859072]
    + [-679416705, 536883625, 200839092, 51960611, -100012641, 149716155, -609457996, 799140873, -441389618, 91736620],
)


@micropython.asm_thumb
def gelu(r0, r1, r2, r3):
    # r0 x cursor, r1 o cursor, r2 CTL (above), r3 n, then the end of o; returns the
    # elements left unwritten (from the first inf / NaN on). Spills: CTL[0 .. 6]
    lsl(r3, r3, 2)
    add(r3, r1, r3)
    b(LOOP)
    label(BAD1)
    b(BAD)
    label(STOREX1)
    b(STOREX)
    label(STORES1)
    b(STORES)
    label(LOOP)
    ldr(r4, [r0, 0])
    add(r0, 4)
    lsl(r5, r4, 1)
    lsr(r6, r5, 24)  # ex
    cmp(r6, 255)
    beq(BAD1)
    lsr(r5, r5, 1)  # |x|
    beq(STOREX1)  # +-0: x
    lsr(r7, r4, 31)
    lsl(r7, r7, 31)
    str(r7, [r2, 0])  # sign
    bne(NEG)
    ldr(r7, [r2, 72])
    cmp(r5, r7)
    bcs(STOREX1)  # x >= 6: x
    b(MANT)
    label(NEG)
    ldr(r7, [r2, 76])
    cmp(r5, r7)
    bcs(STORES1)  # x <= -15: -0.0
    label(MANT)
    lsl(r4, r4, 9)
    lsr(r4, r4, 9)
    cmp(r6, 0)
    bne(NORMAL)
    mov(r6, 1)  # denormal: exponent 1, no implicit bit
    b(MDONE)
    label(NORMAL)
    mov(r7, 1)
    lsl(r7, r7, 23)
    orr(r4, r7)
    label(MDONE)
    str(r4, [r2, 4])
    str(r6, [r2, 8])
    mov(r7, r6)
    sub(r7, 122)
    bmi(TRIGHT)
    lsl(r4, r7)  # t (Q28) = m << (ex - 122), ex <= 130
    b(TDONE)
    label(TRIGHT)
    neg(r7, r7)
    lsr(r4, r7)  # m >> (122 - ex): 0 from a shift of 32 on
    label(TDONE)
    str(r4, [r2, 24])
    ldr(r5, [r2, 60])
    data(2, 0xFBA4, 0x7505)  # umull r7, r5, r4, r5: z / 2 (Q28)
    mov(r7, 1)
    lsl(r7, r7, 28)
    add(r5, r5, r7)  # D = 1 + z / 2 (Q28), below 2**31
    data(2, 0xFAB5, 0xF685)  # clz r6, r5
    str(r6, [r2, 12])
    lsl(r5, r6)  # d = D 2**(n - 4) in [1/2, 1) (Q32)
    ldr(r4, [r2, 68])
    data(2, 0xFBA4, 0x7405)  # umull r7, r4, r4, r5
    lsr(r4, r4, 1)
    ldr(r7, [r2, 64])
    sub(r7, r7, r4)  # R = 48/17 - 32/17 d (Q30)
    mov(r6, 1)
    lsl(r6, r6, 31)
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7: d R
    sub(r4, r6, r4)  # 2 - d R
    data(2, 0xFBA7, 0xC704)  # umull r12, r7, r7, r4
    lsl(r7, r7, 2)
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7
    sub(r4, r6, r4)
    data(2, 0xFBA7, 0xC704)  # umull r12, r7, r7, r4
    lsl(r7, r7, 2)
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7
    sub(r4, r6, r4)
    data(2, 0xFBA7, 0xC704)  # umull r12, r7, r7, r4
    lsl(r7, r7, 2)  # R = 1 / d (Q30)
    str(r7, [r2, 16])
    ldr(r4, [r2, 12])
    mov(r5, 3)
    sub(r5, r5, r4)
    mov(r4, r7)
    lsr(r4, r5)  # T = 1 / D = R >> (3 - n) (Q31)
    sub(r6, 1)
    cmp(r4, r6)
    bls(TOK)
    mov(r4, r6)  # T = 1 (t below 2**-26): 1 - 2**-31, in SMULL's range
    label(TOK)
    ldr(r5, [r2, 116])  # P = c9; P = P T + cj for j = 8 .. 0 (Q29)
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 112])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 108])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 104])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 100])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 96])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 92])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 88])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 84])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    data(2, 0xFB85, 0xC704)  # smull r12, r7, r5, r4
    ldr(r5, [r2, 80])
    data(2, 0xEB05, 0x0547)  # add.w r5, r5, r7, lsl #1
    ldr(r4, [r2, 24])
    data(2, 0xFBA4, 0x6704)  # umull r6, r7, r4, r4: t*t (Q56)
    lsr(r6, r6, 25)
    data(2, 0xEA46, 0x16C7)  # orr.w r6, r6, r7, lsl #7
    lsr(r7, r7, 25)  # z*z (Q32, 64 bits)
    lsl(r4, r5, 3)
    asr(r5, r5, 29)  # P (Q32, 64 bits)
    sub(r6, r6, r4)
    sbc(r7, r5)  # W = z*z - P
    bpl(WPOS)
    mov(r6, 0)  # W below 0 (t near 0): 0
    mov(r7, 0)
    label(WPOS)
    ldr(r5, [r2, 28])
    data(2, 0xFBA6, 0xC405)  # umull r12, r4, r6, r5
    data(2, 0xFBA7, 0x6705)  # umull r6, r7, r7, r5
    add(r6, r6, r4)
    mov(r4, 0)
    adc(r7, r4)  # r7:r6 = W log2 e (Q30)
    lsl(r7, r7, 2)
    lsr(r4, r6, 30)
    orr(r7, r4)  # its floor
    lsl(r6, r6, 2)  # its fraction f (Q32)
    beq(FZERO)
    neg(r6, r6)  # u = 1 - f
    add(r7, 1)  # k = ceil(W log2 e): 2**-(W log2 e) = 2**u 2**-k
    label(FZERO)
    str(r7, [r2, 20])
    ldr(r5, [r2, 32])  # g = 2**u (Q30, [1, 2)) by Horner, as exps
    data(2, 0xFBA5, 0xC506)  # umull r12, r5, r5, r6
    ldr(r4, [r2, 36])
    add(r5, r5, r4)
    data(2, 0xFBA5, 0xC506)  # umull r12, r5, r5, r6
    ldr(r4, [r2, 40])
    add(r5, r5, r4)
    data(2, 0xFBA5, 0xC506)  # umull r12, r5, r5, r6
    ldr(r4, [r2, 44])
    add(r5, r5, r4)
    data(2, 0xFBA5, 0xC506)  # umull r12, r5, r5, r6
    ldr(r4, [r2, 48])
    add(r5, r5, r4)
    data(2, 0xFBA5, 0xC506)  # umull r12, r5, r5, r6
    ldr(r4, [r2, 52])
    add(r5, r5, r4)
    data(2, 0xFBA5, 0xC506)  # umull r12, r5, r5, r6
    ldr(r4, [r2, 56])
    add(r5, r5, r4)
    ldr(r4, [r2, 16])
    data(2, 0xFBA4, 0x6705)  # umull r6, r7, r4, r5: R g (2**59 .. 2**61)
    data(2, 0xFAB7, 0xF487)  # clz r4, r7
    lsl(r7, r4)
    mov(r5, 32)
    sub(r5, r5, r4)
    lsr(r6, r5)
    orr(r7, r6)  # H: Q = H 2**(n - nz - k - 33)
    ldr(r6, [r2, 20])
    add(r4, r4, r6)
    ldr(r6, [r2, 12])
    sub(r4, r4, r6)  # nz + k - n
    ldr(r5, [r2, 4])
    lsl(r5, r5, 8)
    ldr(r6, [r2, 0])
    cmp(r6, 0)
    bne(NEGOUT)
    add(r4, 2)
    lsr(r7, r4)  # Q (Q31): 0 from a shift of 32 on
    mov(r6, 1)
    lsl(r6, r6, 31)
    sub(r7, r6, r7)  # 1 - Q (Q31)
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7
    ldr(r6, [r2, 8])
    add(r6, 1)  # x (1 - Q) = r4 2**(ex + 1 - 158)
    b(NORM)
    label(NEGOUT)
    ldr(r6, [r2, 8])
    sub(r6, r6, r4)
    sub(r6, 1)  # t Q = r4 2**(ex - (nz + k - n) - 1 - 158)
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7
    # r4 * 2**(r6 - 158) to float32 bits, signed as ctl[25]
    label(NORM)
    data(2, 0xFAB4, 0xF584)  # clz r5, r4
    lsl(r4, r5)  # T: bit 31 set
    sub(r6, r6, r5)  # E
    # block round_t_thumb: generated by host_tools/codegen/blocks.py
    mov(r7, 8)
    cmp(r6, 1)
    bge(NOTDEN)
    mov(r5, 1)
    sub(r5, r5, r6)
    add(r7, r7, r5)
    mov(r6, 1)  # denormal: the mantissa's unit is 2**-149
    label(NOTDEN)
    sub(r7, 1)  # the round bit's position in T
    mov(r5, r4)
    lsr(r5, r7)
    lsr(r5, r5, 1)  # the mantissa; carry = the round bit
    bcc(NORND)
    neg(r7, r7)
    add(r7, 32)
    lsl(r4, r7)  # the bits below the round bit
    bne(RUP)
    lsr(r7, r5, 1)  # carry = the mantissa is odd
    bcc(NORND)
    label(RUP)
    add(r5, 1)
    label(NORND)
    sub(r6, 1)
    lsl(r6, r6, 23)
    add(r6, r6, r5)  # a rounding carry moves into the exponent
    # end block round_t_thumb
    ldr(r7, [r2, 0])
    orr(r6, r7)
    b(STORE)
    label(STORES)
    lsr(r6, r4, 31)
    lsl(r6, r6, 31)
    b(STORE)
    label(STOREX)
    mov(r6, r4)
    label(STORE)
    str(r6, [r1, 0])
    add(r1, 4)
    cmp(r1, r3)
    bcs(BAD)
    b(LOOP)
    label(BAD)
    sub(r0, r3, r1)
    asr(r0, r0, 2)
