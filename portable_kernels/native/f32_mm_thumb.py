"""Float32 matrix products (mm, bmm, addmm) in Arm Thumb-2 integer
soft-float: imported only where the port has Thumb-2 inline assembler
(emitters.THUMB2: Cortex-M3/M4/M7). The method of native/f32_mm_viper.py with the
Cortex-M3's 32 x 32 -> 64-bit SMULL: each row of a is decoded once into
the scratch xm / xe (signed 24-bit mantissa, exponent; a zero gets an
exponent below every term), each float32 of b is read as its bits and split
as it is used, the exact signed 48-bit product goes into a 64-bit
accumulator (two registers) aligned to the largest product exponent seen so
far (a larger product shifts the accumulator down, a smaller one is shifted
down: bits more than 62 places below the largest term are truncated), and
the sum is rounded once to float32 (to nearest, ties to even; denormals;
overflow to inf). No float object, nothing allocates; 37 instructions per
multiply-accumulate against 800-930 for the bytecode step on the emulated
Cortex-M3. Thumb-2 instructions (SMULL, CLZ) are emitted with data() and
only Thumb-1 mnemonics are used otherwise, so the module also compiles for
armv6m (every Thumb module is compiled for every Thumb board; armv6m boards
never import it).

mm(xm, w, acc, xe, a, b, o, bias, ctl) has f32_mm_viper.mm's arguments and
ctl layout (xm and xe: k words each; w and acc are not used); returns 1,
having written part of o, when an operand holds inf or NaN (the caller then
runs its bytecode step), else 0. Terms per output below 2**14 (the caller
checks) keep the sum within 63 bits.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython

# only Thumb-2 dists carry it (host_tools/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

# 29 words: the 8 ctl words, bias address, the loops' state, xm, xe, and the
# strided form's words (see _mm), which mm leaves 0
CX_BYTES = 116
_CX = bytearray(CX_BYTES)


def mm(xm, w, acc, xe, a, b, o, bias, ctl):
    _setup(_CX, ctl, bias)
    _scratch(_CX, xm, xe)
    return _mm(_CX, a, b, o)


@micropython.asm_thumb
def _scratch(r0, r1, r2):
    str(r1, [r0, 76])
    str(r2, [r0, 80])
    mov(r0, 0)


@micropython.asm_thumb
def _setup(r0, r1, r2):
    # cx[0:8] = ctl[0:8]; cx[8] = address of the bias
    ldr(r3, [r1, 0])
    str(r3, [r0, 0])
    ldr(r3, [r1, 4])
    str(r3, [r0, 4])
    ldr(r3, [r1, 8])
    str(r3, [r0, 8])
    ldr(r3, [r1, 12])
    str(r3, [r0, 12])
    ldr(r3, [r1, 16])
    str(r3, [r0, 16])
    ldr(r3, [r1, 20])
    str(r3, [r0, 20])
    ldr(r3, [r1, 24])
    str(r3, [r0, 24])
    ldr(r3, [r1, 28])
    str(r3, [r0, 28])
    str(r2, [r0, 32])
    mov(r0, 0)


@micropython.asm_thumb
def _mm(r0, r1, r2, r3):
    # r0 cx: [0] batches [4] m [8] k [12] n [16] b batch stride (elements)
    # [20] bias flag [24] bias row stride [28] bias column stride (elements)
    # [32] bias address [36] a row [40] b batch [44] next output
    # [48] bias row [52] columns left [56] rows left [60] batches left
    # [64] b column [68] bias element [72] sign of the sum [76] xm [80] xe:
    # row i of a decoded (signed mantissa, exponent; -1024 for a zero)
    # high registers: r8 cx, r9 end of xm, r10 accumulator exponent,
    # r11 b row stride (bytes), r12 0x800000 (the implicit mantissa bit),
    # lr xe - xm
    # [84] [88] [92] [96] byte offsets added to a, b, o and the bias address
    # [100] b row stride in bytes (0: n * 4) [104] bytes skipped in o after
    # each row of outputs [108] bias advance per batch (bytes) [112] bias of
    # the current batch (state): f32_conv_thumb's convolutions as products
    mov(r4, r8)  # r8-r11 saved (the Thumb-1 way: the module also compiles for armv6m)
    mov(r5, r9)
    mov(r6, r10)
    mov(r7, r11)
    push({r4, r5, r6, r7})
    mov(r8, r0)
    ldr(r4, [r0, 84])
    add(r1, r1, r4)
    ldr(r4, [r0, 88])
    add(r2, r2, r4)
    ldr(r4, [r0, 92])
    add(r3, r3, r4)
    str(r1, [r0, 36])
    str(r2, [r0, 40])
    str(r3, [r0, 44])
    ldr(r4, [r0, 32])
    ldr(r5, [r0, 96])
    add(r4, r4, r5)
    str(r4, [r0, 112])
    ldr(r4, [r0, 100])
    cmp(r4, 0)
    bne(BSTRIDE)
    ldr(r4, [r0, 12])
    lsl(r4, r4, 2)
    label(BSTRIDE)
    mov(r11, r4)
    mov(r4, 1)
    lsl(r4, r4, 23)
    mov(r12, r4)
    ldr(r4, [r0, 80])
    ldr(r5, [r0, 76])
    sub(r4, r4, r5)
    mov(lr, r4)
    ldr(r4, [r0, 0])
    str(r4, [r0, 60])
    label(BATCH)
    mov(r7, r8)
    ldr(r4, [r7, 4])
    str(r4, [r7, 56])
    ldr(r4, [r7, 112])
    str(r4, [r7, 48])
    label(ROW)
    mov(r7, r8)
    ldr(r4, [r7, 12])
    str(r4, [r7, 52])
    ldr(r4, [r7, 40])
    str(r4, [r7, 64])
    ldr(r4, [r7, 48])
    str(r4, [r7, 68])
    ldr(r0, [r7, 36])
    ldr(r5, [r7, 8])
    lsl(r5, r5, 2)
    add(r4, r0, r5)
    mov(r9, r4)
    ldr(r1, [r7, 76])
    label(DEC)  # decode row i of a into xm / xe
    ldr(r4, [r0, 0])
    add(r0, 4)
    lsl(r6, r4, 1)
    lsr(r6, r6, 24)
    beq(DDEN)
    cmp(r6, 255)
    beq(BAD3)
    asr(r2, r4, 31)
    lsl(r4, r4, 9)
    lsr(r4, r4, 9)
    data(2, 0x4464)  # add r4, r12
    label(DSIGN)
    eor(r4, r2)
    sub(r4, r4, r2)
    label(DSTORE)
    str(r4, [r1, 0])
    mov(r5, r1)
    data(2, 0x4475)  # add r5, lr
    str(r6, [r5, 0])
    add(r1, 4)
    data(2, 0x4548)  # cmp r0, r9
    bcc(DEC)
    str(r0, [r7, 36])  # the next row of a
    mov(r9, r1)  # the end of xm
    b(COL)
    label(BAD3)
    b(BAD)
    label(DDEN)  # zero or denormal a: exponent 1, no implicit bit
    asr(r2, r4, 31)
    mov(r6, 1)
    lsl(r4, r4, 9)
    lsr(r4, r4, 9)
    bne(DSIGN)
    mov(r6, 4)  # a zero: its products lie below every other term
    lsl(r6, r6, 8)
    neg(r6, r6)
    b(DSTORE)
    label(COL)
    mov(r7, r8)
    mov(r2, 0)
    mov(r3, 0)
    mov(r4, 0)
    mov(r10, r4)
    ldr(r4, [r7, 20])
    cmp(r4, 0)
    beq(NOBIAS)
    # bias * 1.0 is the first term: mantissa << 23 at exponent e + 127
    ldr(r5, [r7, 68])
    ldr(r4, [r5, 0])
    ldr(r6, [r7, 28])
    lsl(r6, r6, 2)
    add(r5, r5, r6)
    str(r5, [r7, 68])
    lsl(r6, r4, 1)
    lsr(r6, r6, 24)
    beq(BIASDEN)
    cmp(r6, 255)
    beq(BAD2)
    lsl(r5, r4, 9)
    lsr(r5, r5, 9)
    data(2, 0x4465)  # add r5, r12
    b(BIASM)
    label(BAD2)
    b(BAD)
    label(BIASDEN)
    lsl(r5, r4, 9)
    lsr(r5, r5, 9)
    beq(NOBIAS)
    mov(r6, 1)
    label(BIASM)
    lsl(r2, r5, 23)
    lsr(r3, r5, 9)
    add(r6, 127)
    mov(r10, r6)
    asr(r4, r4, 31)
    eor(r2, r4)
    eor(r3, r4)
    sub(r2, r2, r4)
    sbc(r3, r4)
    label(NOBIAS)
    ldr(r0, [r7, 76])
    ldr(r1, [r7, 64])
    # the sum over the row: r0 xm cursor, r1 b cursor, r2:r3 accumulator
    label(LOOP)
    ldr(r4, [r0, 0])
    ldr(r5, [r1, 0])
    mov(r6, r0)
    data(2, 0x4476)  # add r6, lr
    ldr(r6, [r6, 0])
    add(r0, 4)
    data(2, 0x4459)  # add r1, r11
    lsl(r7, r5, 1)
    lsr(r7, r7, 24)
    beq(BDEN)
    cmp(r7, 255)
    beq(BAD1)
    add(r6, r6, r7)
    asr(r7, r5, 31)
    lsl(r5, r5, 9)
    lsr(r5, r5, 9)
    data(2, 0x4465)  # add r5, r12
    label(BDONE)
    # r4 signed mantissa a, r5 |mantissa b|, r6 product exponent, r7 b's sign mask
    eor(r5, r7)
    sub(r5, r5, r7)
    data(2, 0xFB84, 0x4505)  # smull r4, r5, r4, r5
    mov(r7, r10)
    sub(r7, r7, r6)  # d = accumulator exponent - product exponent
    bmi(NEWMAX)
    cmp(r7, 32)
    bge(FAR)
    lsr(r4, r7)
    mov(r6, r5)
    asr(r5, r7)
    neg(r7, r7)
    add(r7, 32)
    lsl(r6, r7)  # a shift by 32 gives 0
    orr(r4, r6)
    label(ACC)
    add(r2, r2, r4)
    adc(r3, r5)
    label(NEXT)
    data(2, 0x4548)  # cmp r0, r9
    bcc(LOOP)
    b(ROUND)
    label(BAD1)
    b(BAD)
    label(BDEN)  # zero (nothing to add) or denormal b: exponent 1, no implicit bit
    asr(r7, r5, 31)
    lsl(r5, r5, 9)
    lsr(r5, r5, 9)
    beq(NEXT)
    add(r6, 1)
    b(BDONE)
    label(FAR)  # product 32 or more places below: hi >> (d - 32)
    cmp(r7, 63)
    bge(NEXT)
    sub(r7, 32)
    asr(r5, r7)
    mov(r4, r5)
    asr(r5, r4, 31)
    b(ACC)
    label(NEWMAX)  # a larger product: the accumulator moves down by -d
    mov(r10, r6)
    neg(r7, r7)
    cmp(r7, 32)
    bge(NMFAR)
    lsr(r2, r7)
    mov(r6, r3)
    asr(r3, r7)
    neg(r7, r7)
    add(r7, 32)
    lsl(r6, r7)
    orr(r2, r6)
    b(ACC)
    label(NMFAR)
    cmp(r7, 63)
    blt(NM2)
    mov(r7, 63)
    label(NM2)
    sub(r7, 32)
    asr(r3, r7)
    mov(r2, r3)
    asr(r3, r2, 31)
    b(ACC)
    # round r2:r3 * 2**(r10 - 300) to float32 bits
    label(ROUND)
    mov(r7, r8)
    asr(r6, r3, 31)
    str(r6, [r7, 72])
    eor(r2, r6)
    eor(r3, r6)
    sub(r2, r2, r6)
    sbc(r3, r6)
    mov(r4, r2)
    orr(r4, r3)
    beq(ZERO)
    cmp(r3, 0)
    beq(LOONLY)
    data(2, 0xFAB3, 0xF483)  # clz r4, r3
    mov(r5, r2)
    lsl(r3, r4)
    lsl(r2, r4)
    mov(r6, 32)
    sub(r6, r6, r4)
    lsr(r5, r6)
    orr(r3, r5)
    cmp(r2, 0)
    beq(NOST)
    mov(r5, 1)
    orr(r3, r5)  # bits below the top word only matter as sticky
    label(NOST)
    mov(r5, 63)
    sub(r5, r5, r4)
    b(NORMD)
    label(LOONLY)
    data(2, 0xFAB2, 0xF482)  # clz r4, r2
    lsl(r2, r4)
    mov(r3, r2)
    mov(r5, 31)
    sub(r5, r5, r4)
    label(NORMD)
    # r3 = the sum's top 32 bits (bit 31 set, sticky in bit 0), r5 = its bit length - 1
    mov(r4, r10)
    add(r5, r5, r4)
    sub(r5, 173)  # biased float32 exponent
    cmp(r5, 255)
    bge(INF)
    mov(r6, 8)
    cmp(r5, 1)
    bge(NOTDEN)
    mov(r4, 1)
    sub(r4, r4, r5)
    add(r6, r6, r4)
    mov(r5, 1)
    label(NOTDEN)
    sub(r6, 1)
    mov(r2, r3)
    lsr(r2, r6)  # mantissa and round bit
    lsr(r4, r2, 1)  # mantissa; carry = round bit
    bcc(NORND)
    mov(r0, 32)
    sub(r0, r0, r6)
    mov(r1, r3)
    lsl(r1, r0)  # bits below the round bit
    cmp(r1, 0)
    bne(RUP)
    lsr(r1, r4, 1)  # carry = mantissa odd
    bcc(NORND)
    label(RUP)
    add(r4, 1)
    label(NORND)
    sub(r5, 1)
    lsl(r5, r5, 23)
    add(r5, r5, r4)  # a rounding carry moves into the exponent
    mov(r4, 255)
    lsl(r4, r4, 23)
    cmp(r5, r4)
    blt(SIGN)
    label(INF)
    mov(r5, 255)
    lsl(r5, r5, 23)
    label(SIGN)
    mov(r7, r8)
    ldr(r6, [r7, 72])
    lsl(r6, r6, 31)
    orr(r5, r6)
    b(STORE)
    label(ZERO)
    mov(r5, 0)
    label(STORE)
    ldr(r4, [r7, 44])
    str(r5, [r4, 0])
    add(r4, 4)
    str(r4, [r7, 44])
    ldr(r4, [r7, 64])
    add(r4, 4)
    str(r4, [r7, 64])
    ldr(r4, [r7, 52])
    sub(r4, 1)
    str(r4, [r7, 52])
    beq(ROWEND)
    b(COL)
    label(ROWEND)
    ldr(r4, [r7, 44])
    ldr(r5, [r7, 104])
    add(r4, r4, r5)
    str(r4, [r7, 44])
    ldr(r4, [r7, 48])
    ldr(r5, [r7, 24])
    lsl(r5, r5, 2)
    add(r4, r4, r5)
    str(r4, [r7, 48])
    ldr(r4, [r7, 56])
    sub(r4, 1)
    str(r4, [r7, 56])
    beq(BATCHEND)
    b(ROW)
    label(BATCHEND)
    ldr(r4, [r7, 112])
    ldr(r5, [r7, 108])
    add(r4, r4, r5)
    str(r4, [r7, 112])
    ldr(r4, [r7, 40])
    ldr(r5, [r7, 16])
    lsl(r5, r5, 2)
    add(r4, r4, r5)
    str(r4, [r7, 40])
    ldr(r4, [r7, 60])
    sub(r4, 1)
    str(r4, [r7, 60])
    beq(DONE)
    b(BATCH)
    label(DONE)
    mov(r0, 0)
    b(EXIT)
    label(BAD)
    mov(r0, 1)
    label(EXIT)
    pop({r4, r5, r6, r7})
    mov(r8, r4)
    mov(r9, r5)
    mov(r10, r6)
    mov(r11, r7)
