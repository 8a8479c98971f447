"""Float32 layer norm and softmax rows on Thumb-2 boards without an FPU
(Cortex-M3: emitters.THUMB2 and not emitters.FPU): the passes over a row's
elements in integer assembler, no float object per element. Only
assembler functions (RAM on the 224 KB board: a module of them runs in
place from ROMFS); the per-row steps that call them, with a few Python ints
and floats per row, are op_native_layer_norm's and op_softmax's.

Layer norm, `stats`: the row's largest exponent emax and each x as the
integer X = mantissa >> (emax - e) (x == X * 2**(emax - 150) to within
2**-24 of the largest element), summing X and X * X exactly in 64 bits
(SMLAL): the mean and the biased variance follow exactly from those sums
(n * sum(X * X) - sum(X)**2: no cancellation). Returns 1 for a row holding
inf / NaN. The elements then go through f32_arith_thumb's correctly
rounded float32 soft-float ((x - mean) * rstd, * w, + b).

Softmax, `exps`: the row's max (floats ordered as sign-magnitude integers);
each x as the integer X = x * 2**24 (exact for |x| >= 1, else to within
2**-24; the row is refused, returns 1, when an element is inf, NaN or
|x| >= 64); t = (X - Xmax) * log2 e (Q24, SMULL); 2**t = 2**frac(t) (a
degree-6 polynomial in Q30, relative error below 4e-9) >> -floor(t),
written into out as an integer and summed in 64 bits (UMLAL); then
R = (2**63 - 1) // (the sum's top 32 bits) by shift-and-subtract, and
out = e * R (UMULL) normalized with CLZ and rounded (half up) to float32:
about 1e-8 relative to the exact softmax of the float32 inputs.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

# The control words every layer norm and softmax step shares (steps run one at a
# time; each writes what it reads): layer norm [0 .. 6]; softmax [0 .. 5] and its
# constants [7 .. 14]: log2 e in Q30, then 2**f = c0 + c1 f + ... + c6 f**6 on
# [0, 1) in Q30, c6 first (fitted at Chebyshev nodes). 15 words: a 64-byte block.
CTL = array("i", [0, 0, 0, 0, 0, 0, 0, 1549082005, 234908, 1330132, 10398739, 59571654, 257945537, 744260848, 1073741827])
PAIR = array("f", [0.0, 0.0])  # layer norm's (mean, rstd) as f32_arith_thumb's operand


@micropython.asm_thumb
def stats(r0, r1):
    # r0 x, r1 ctl: [0] the row's byte offset [4] n; out: [8] emax [12] [16] sum X
    # (low, high) [20] [24] sum X * X; returns 1 for a row holding inf / NaN
    data(2, 0xE92D, 0x0F00)  # push.w {r8-r11}
    ldr(r2, [r1, 0])
    add(r2, r2, r0)
    ldr(r3, [r1, 4])
    lsl(r3, r3, 2)
    add(r3, r3, r2)
    mov(r5, 1)  # emax (denormals count as exponent 1)
    mov(r0, r2)
    label(EMAX)
    ldr(r4, [r0, 0])
    lsl(r4, r4, 1)
    lsr(r4, r4, 24)
    cmp(r4, 255)
    beq(BAD)
    cmp(r4, r5)
    ble(EMAX_NEXT)
    mov(r5, r4)
    label(EMAX_NEXT)
    add(r0, 4)
    cmp(r0, r3)
    blt(EMAX)
    mov(r4, 0)
    mov(r8, r4)
    mov(r9, r4)
    mov(r10, r4)
    mov(r11, r4)
    label(SUMS)
    ldr(r4, [r2, 0])
    lsl(r6, r4, 9)
    lsr(r6, r6, 9)  # the stored mantissa
    lsl(r0, r4, 1)
    lsr(r0, r0, 24)  # e
    cmp(r0, 0)
    bne(NORMAL)
    mov(r0, 1)
    b(ALIGN)
    label(NORMAL)
    mov(r7, 1)
    lsl(r7, r7, 23)
    orr(r6, r7)
    label(ALIGN)
    sub(r0, r5, r0)  # emax - e
    lsr(r6, r0)  # 32 or more: 0
    cmp(r4, 0)
    bge(POSITIVE)
    neg(r6, r6)
    label(POSITIVE)
    mov(r7, 1)
    data(2, 0xFBC6, 0x8907)  # smlal r8, r9, r6, r7
    data(2, 0xFBC6, 0xAB06)  # smlal r10, r11, r6, r6
    add(r2, 4)
    cmp(r2, r3)
    blt(SUMS)
    str(r5, [r1, 8])
    mov(r4, r8)
    str(r4, [r1, 12])
    mov(r4, r9)
    str(r4, [r1, 16])
    mov(r4, r10)
    str(r4, [r1, 20])
    mov(r4, r11)
    str(r4, [r1, 24])
    mov(r0, 0)
    b(DONE)
    label(BAD)
    mov(r0, 1)
    label(DONE)
    data(2, 0xE8BD, 0x0F00)  # pop.w {r8-r11}


@micropython.asm_thumb
def exps(r0, r1, r2):
    # r0 x, r1 o, r2 ctl: [0] the row's byte offset [8] n [12] byte stride; [28] log2 e
    # [32 .. 56] c6 .. c0; [16] [20] scratch. Returns 1 for a refused row.
    data(2, 0xE92D, 0x1F00)  # push.w {r8-r12}
    ldr(r3, [r2, 0])
    add(r6, r1, r3)
    str(r6, [r2, 20])  # o's row
    sub(r1, r1, r0)
    str(r1, [r2, 16])  # o - x
    add(r3, r3, r0)
    ldr(r5, [r2, 12])
    ldr(r4, [r2, 8])
    mul(r4, r5)
    add(r4, r4, r3)
    mov(r0, 1)
    lsl(r0, r0, 31)  # the max's key, from the lowest
    mov(r1, r3)
    label(MAX)
    ldr(r6, [r1, 0])
    lsl(r7, r6, 1)
    lsr(r7, r7, 24)
    cmp(r7, 133)  # |x| >= 64, inf, NaN
    bge(REFUSE)
    asr(r7, r6, 31)
    lsr(r7, r7, 1)
    eor(r7, r6)  # sign-magnitude -> ordered
    cmp(r7, r0)
    ble(NOTMAX)
    mov(r0, r7)
    label(NOTMAX)
    add(r1, r1, r5)
    cmp(r1, r4)
    blt(MAX)
    b(MAXED)
    label(REFUSE)
    mov(r0, 1)
    b(DONE)
    label(MAXED)
    asr(r7, r0, 31)
    lsr(r7, r7, 1)
    eor(r0, r7)
    mov(r6, r0)
    bl(DECODE)
    mov(r0, r6)  # Xmax
    mov(r6, 0)
    mov(r8, r6)
    mov(r9, r6)
    mov(r6, 1)
    mov(r11, r6)
    label(EXPS)
    ldr(r6, [r3, 0])
    bl(DECODE)
    sub(r6, r6, r0)  # D = X - Xmax <= 0 (Q24)
    ldr(r7, [r2, 28])
    data(2, 0xFB86, 0x6707)  # smull r6, r7, r6, r7: D * log2 e (Q54)
    lsl(r7, r7, 2)
    lsr(r6, r6, 30)
    orr(r6, r7)  # t (Q24)
    lsl(r7, r6, 8)  # frac(t) * 2**32
    asr(r6, r6, 24)
    neg(r6, r6)  # -floor(t)
    mov(r10, r6)
    ldr(r6, [r2, 32])
    ldr(r1, [r2, 36])
    data(2, 0xFBA6, 0xC607)  # umull r12, r6, r6, r7
    add(r6, r6, r1)
    ldr(r1, [r2, 40])
    data(2, 0xFBA6, 0xC607)  # umull r12, r6, r6, r7
    add(r6, r6, r1)
    ldr(r1, [r2, 44])
    data(2, 0xFBA6, 0xC607)  # umull r12, r6, r6, r7
    add(r6, r6, r1)
    ldr(r1, [r2, 48])
    data(2, 0xFBA6, 0xC607)  # umull r12, r6, r6, r7
    add(r6, r6, r1)
    ldr(r1, [r2, 52])
    data(2, 0xFBA6, 0xC607)  # umull r12, r6, r6, r7
    add(r6, r6, r1)
    ldr(r1, [r2, 56])
    data(2, 0xFBA6, 0xC607)  # umull r12, r6, r6, r7
    add(r6, r6, r1)  # 2**frac(t) (Q30)
    mov(r7, r10)
    lsr(r6, r7)  # 32 .. 255 places: 0
    ldr(r1, [r2, 16])
    add(r1, r1, r3)
    str(r6, [r1, 0])
    data(2, 0xFBE6, 0x890B)  # umlal r8, r9, r6, r11
    add(r3, r3, r5)
    cmp(r3, r4)
    blt(EXPS)
    mov(r6, r8)
    mov(r7, r9)
    mov(r0, 64)
    cmp(r7, 0)
    bne(HIGH)
    mov(r0, 32)
    mov(r7, r6)
    label(HIGH)
    data(2, 0xFAB7, 0xF187)  # clz r1, r7
    sub(r0, r0, r1)  # b, the sum's bit length (31 or more: the max's 2**30)
    mov(r6, r8)
    mov(r7, r9)
    cmp(r0, 32)
    ble(SHORT)
    mov(r1, 64)
    sub(r1, r1, r0)
    lsl(r7, r1)
    mov(r1, r0)
    sub(r1, 32)
    lsr(r6, r1)
    orr(r7, r6)  # the sum's top 32 bits
    b(DIVIDE)
    label(SHORT)
    mov(r1, 32)
    sub(r1, r1, r0)
    lsl(r6, r1)
    mov(r7, r6)
    label(DIVIDE)  # R = (2**63 - 1) // top, 2**31 <= R < 2**32, a bit at a time
    mov(r6, 1)
    lsl(r6, r6, 31)
    sub(r6, 1)  # the remainder: the numerator's high word
    mov(r1, 0)
    mov(r4, 32)
    label(BIT)
    lsl(r6, r6, 1)
    bcs(OVER)
    add(r6, 1)
    cmp(r6, r7)
    bcc(ZERO)
    sub(r6, r6, r7)
    lsl(r1, r1, 1)
    add(r1, 1)
    b(NEXT_BIT)
    label(ZERO)
    lsl(r1, r1, 1)
    b(NEXT_BIT)
    label(OVER)  # remainder + 2**32 > top
    add(r6, 1)
    sub(r6, r6, r7)
    lsl(r1, r1, 1)
    add(r1, 1)
    label(NEXT_BIT)
    sub(r4, 1)
    bne(BIT)
    mov(r5, r1)  # R
    mov(r6, 159)
    sub(r6, r6, r0)  # 159 - b
    ldr(r4, [r2, 12])
    ldr(r3, [r2, 8])
    mul(r3, r4)
    ldr(r7, [r2, 20])
    add(r3, r3, r7)
    mov(r2, r7)
    # out = e * R * 2**-(b + 31) as float32 (normalized with CLZ, rounded half up)
    label(SCALE)
    ldr(r7, [r2, 0])
    cmp(r7, 0)
    beq(STORE)
    data(2, 0xFBA7, 0x0105)  # umull r0, r1, r7, r5
    cmp(r1, 0)
    beq(LOW)
    data(2, 0xFAB1, 0xF781)  # clz r7, r1
    lsl(r1, r7)
    neg(r7, r7)
    add(r7, 32)
    lsr(r0, r7)  # 32 places: 0
    orr(r1, r0)  # the product's top 32 bits, bit 31 set
    neg(r7, r7)
    add(r7, 32)
    b(ROUND)
    label(LOW)
    data(2, 0xFAB0, 0xF780)  # clz r7, r0
    lsl(r0, r7)
    mov(r1, r0)
    add(r7, 32)
    label(ROUND)
    mov(r0, r6)
    sub(r0, r0, r7)  # the biased exponent
    lsr(r7, r1, 8)
    lsl(r1, r1, 24)
    bpl(ROUNDED)
    add(r7, 1)
    label(ROUNDED)
    sub(r0, 1)
    lsl(r0, r0, 23)
    add(r7, r7, r0)
    label(STORE)
    str(r7, [r2, 0])
    add(r2, r2, r4)
    cmp(r2, r3)
    blt(SCALE)
    mov(r0, 0)
    b(DONE)
    label(DECODE)  # r6: float32 bits (|x| < 64) -> X = x * 2**24 (to 2**-24); clobbers r7, r10
    mov(r10, r6)
    mov(r7, 1)
    lsl(r7, r7, 31)
    lsl(r6, r6, 8)
    orr(r6, r7)
    lsr(r6, r6, 8)  # the mantissa with its implicit bit
    mov(r7, r10)
    lsl(r7, r7, 1)
    lsr(r7, r7, 24)
    cmp(r7, 0)
    bne(NORMAL)
    mov(r6, r10)  # a denormal or zero: no implicit bit, exponent 1
    lsl(r6, r6, 9)
    lsr(r6, r6, 9)
    mov(r7, 1)
    label(NORMAL)
    sub(r7, 126)
    bmi(RIGHT)
    lsl(r6, r7)
    b(SIGN)
    label(RIGHT)
    neg(r7, r7)
    lsr(r6, r7)
    label(SIGN)
    mov(r7, r10)
    cmp(r7, 0)
    bge(DECODED)
    neg(r6, r6)
    label(DECODED)
    bx(lr)
    label(DONE)
    data(2, 0xE8BD, 0x1F00)  # pop.w {r8-r12}
