"""Float32 add, sub and mul in Arm Thumb-2 integer soft-float, for boards
without an FPU (Cortex-M3; emitters.THUMB2 and not emitters.FPU): f32_arith_viper's
binary() with the Cortex-M3's CLZ and UMULL, correctly rounded (to nearest,
ties to even; denormals; overflow to inf), so bit for bit what IEEE float32
arithmetic gives and what the bytecode steps give. No float object, does
not allocate. At an inf or NaN operand it stops and returns how many
elements it wrote (the caller runs its bytecode loop from there).

add / sub: the operands ordered by magnitude, mantissas at bits 30..7 (the
implicit bit at 30), the smaller shifted down by the exponent difference
with a sticky bit, added or subtracted (a 32-bit result: no carry is lost),
normalized with CLZ. mul: the exact 48-bit product of the mantissas
(UMULL), normalized with CLZ, the bits below its top word folded into a
sticky bit. Both round the same 32-bit top word T (bit 31 set, sticky in
bit 0) at biased exponent E: value T * 2**(E - 158).

Thumb-2 instructions (CLZ, UMULL) and the high-register adds and compares are
emitted with data(), everything else is a Thumb-1 mnemonic, as in f32_mm_thumb.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

ADD = 0
SUB = 1
MUL = 2

_CTL = array("i", [0] * 8)  # [7]: the elements _binary left unwritten
# the whole-tensor steps' own: [2..6] (offsets 0, strides 4) stay as written here
_CTLF = array("i", [0, 0, 0, 0, 0, 4, 4, 0])
_SCALAR = array("f", [0.0])  # a .Scalar step's operand, stored before each call


def flat(ctx):
    """util/f32_arith's step over whole tensors, ctx (a, b, o, op, n). Few
    locals: MicroPython puts a frame of up to 11 words on the C stack, a
    larger one on the heap (allocated and freed per call). Its own control
    array, whose offsets and strides never change: two stores per call."""
    c = _CTLF
    c[0] = ctx[3]
    c[1] = ctx[4]
    if _binary(ctx[0], ctx[1], ctx[2], c):
        _whole_tail(ctx, ctx[1], c, 1)


def scalar(ctx):
    """The same with b a Python float (ctx[1]), stored into _SCALAR (float32)
    and read at stride 0."""
    _SCALAR[0] = ctx[1]
    c = _CTL  # rare: the row steps' array, all of it written (no array of its own)
    c[0] = ctx[3]
    c[1] = ctx[4]
    c[2] = c[3] = c[4] = c[6] = 0
    c[5] = 4
    if _binary(ctx[0], _SCALAR, ctx[2], c):
        _whole_tail(ctx, _SCALAR, c, 0)


def _whole_tail(ctx, b, c, sb):
    from portable_kernels.util.f32_tail import tail  # an inf or NaN: the bytecode tail

    a, _, o, op, n = ctx
    tail(a, b, o, op, n - c[7], n, 0, 0, 0, 1, sb)


def row(rctx, ia, ib, io):
    """util/f32_arith's row step (loops.run_rows), rctx (a, b, o, op, n, sa, sb)."""
    _CTL[0] = rctx[3]
    _CTL[1] = rctx[4]
    _CTL[2] = 4 * ia
    _CTL[3] = 4 * ib
    _CTL[4] = 4 * io
    _CTL[5] = 4 * rctx[5]
    _CTL[6] = 4 * rctx[6]
    if _binary(rctx[0], rctx[1], rctx[2], _CTL):
        _row_tail(rctx, ia, ib, io)


def _row_tail(rctx, ia, ib, io):
    from portable_kernels.util.f32_tail import tail  # an inf or NaN: the bytecode tail

    a, b, o, op, n, sa, sb = rctx
    tail(a, b, o, op, n - _CTL[7], n, ia, ib, io, sa, sb)


def binary(a, b, o, op, n, ia, ib, io, sa, sb):
    """o[io + i] = a[ia + i * sa] OP b[ib + i * sb] for i < n
    (f32_arith_viper.binary's arguments); returns the count written: n, or
    the index of the first element with an inf or NaN operand."""
    if n <= 0:
        return 0
    c = _CTL
    c[0] = op
    c[1] = n
    c[2] = 4 * ia
    c[3] = 4 * ib
    c[4] = 4 * io
    c[5] = 4 * sa
    c[6] = 4 * sb
    return n - _binary(a, b, o, c)


@micropython.asm_thumb
def _binary(r0, r1, r2, r3):
    # r3 ctl: op, n, byte offsets of a, b, o, byte strides of a, b. Returns
    # the elements left unwritten (0, or from the first inf / NaN operand on),
    # also stored in ctl[7].
    # r0 a, r1 b, r2 o cursors; r8 / r9 a / b strides (bytes); r10 the end
    # of o; r11 0 (add), 1 << 31 (sub: b's sign flipped) or 1 (mul);
    # r12 the result's sign (bit 31); lr (add / sub) the signs differ (bit 31)
    mov(r4, r8)  # r8-r11 saved (the Thumb-1 way, as f32_mm_thumb)
    mov(r5, r9)
    mov(r6, r10)
    mov(r7, r11)
    push({r4, r5, r6, r7})
    push({r3})
    ldr(r4, [r3, 8])
    add(r0, r0, r4)
    ldr(r4, [r3, 12])
    add(r1, r1, r4)
    ldr(r4, [r3, 16])
    add(r2, r2, r4)
    ldr(r4, [r3, 20])
    mov(r8, r4)
    ldr(r4, [r3, 24])
    mov(r9, r4)
    ldr(r4, [r3, 4])
    lsl(r4, r4, 2)
    add(r4, r2, r4)
    mov(r10, r4)
    ldr(r5, [r3, 0])
    mov(r4, 1)
    cmp(r5, 2)
    beq(OPSET)
    mov(r4, 0)
    cmp(r5, 1)
    bne(OPSET)
    mov(r4, 1)
    lsl(r4, r4, 31)
    label(OPSET)
    mov(r11, r4)
    label(LOOP)
    ldr(r4, [r0, 0])
    ldr(r5, [r1, 0])
    data(2, 0x4440)  # add r0, r8
    data(2, 0x4449)  # add r1, r9
    mov(r6, r11)
    cmp(r6, 1)
    beq(MUL)
    eor(r5, r6)  # sub: b negated
    lsl(r6, r4, 1)
    lsl(r7, r5, 1)
    cmp(r6, r7)
    bcs(ORD)
    mov(r3, r4)  # |x| < |y|: swap them
    mov(r4, r5)
    mov(r5, r3)
    mov(r3, r6)
    mov(r6, r7)
    mov(r7, r3)
    label(ORD)  # |x| >= |y|
    lsr(r6, r6, 24)  # ex
    cmp(r6, 255)
    beq(BAD1)  # inf or NaN (y's exponent is not larger)
    lsr(r7, r7, 24)  # ey
    mov(r3, r4)
    eor(r3, r5)
    mov(lr, r3)
    mov(r12, r4)
    lsl(r4, r4, 9)
    lsr(r4, r4, 2)  # x's mantissa field at bits 29..7
    lsl(r5, r5, 9)
    lsr(r5, r5, 2)
    mov(r3, 1)
    lsl(r3, r3, 30)  # the implicit bit
    cmp(r6, 0)
    bne(XN)
    mov(r6, 1)  # zero or denormal: exponent 1, no implicit bit
    b(XD)
    label(XN)
    orr(r4, r3)
    label(XD)
    cmp(r7, 0)
    bne(YN)
    mov(r7, 1)
    b(YD)
    label(YN)
    orr(r5, r3)
    label(YD)
    sub(r7, r6, r7)  # d = ex - ey >= 0
    beq(ALIGNED)
    cmp(r7, 31)
    bge(YFAR)
    mov(r3, r5)
    lsr(r5, r7)
    neg(r7, r7)
    add(r7, 32)
    lsl(r3, r7)  # the bits shifted out
    beq(ALIGNED)
    mov(r3, 1)
    orr(r5, r3)  # sticky
    b(ALIGNED)
    label(BAD1)
    b(BAD)
    label(YFAR)  # y only sets the sticky bit
    cmp(r5, 0)
    beq(ALIGNED)
    mov(r5, 1)
    label(ALIGNED)
    mov(r3, lr)
    cmp(r3, 0)
    bmi(DIFF)
    add(r4, r4, r5)  # below 2**32: both are below 2**31
    beq(SZERO)
    b(NORM)
    label(DIFF)
    sub(r4, r4, r5)  # >= 0: |x| >= |y|
    beq(PZERO)
    label(NORM)
    data(2, 0xFAB4, 0xF384)  # clz r3, r4
    lsl(r4, r3)  # T
    sub(r6, r6, r3)
    add(r6, 1)  # E = ex + 1 - clz
    b(ROUND)
    label(MUL)
    mov(r3, r4)
    eor(r3, r5)
    mov(r12, r3)
    lsl(r6, r4, 1)
    lsr(r6, r6, 24)  # ex
    cmp(r6, 255)
    beq(BAD2)
    lsl(r7, r5, 1)
    lsr(r7, r7, 24)  # ey
    cmp(r7, 255)
    beq(BAD2)
    lsl(r4, r4, 9)
    lsr(r4, r4, 9)
    lsl(r5, r5, 9)
    lsr(r5, r5, 9)
    mov(r3, 1)
    lsl(r3, r3, 23)  # the implicit bit
    cmp(r6, 0)
    bne(MXN)
    mov(r6, 1)
    b(MXD)
    label(MXN)
    orr(r4, r3)
    label(MXD)
    cmp(r7, 0)
    bne(MYN)
    mov(r7, 1)
    b(MYD)
    label(MYN)
    orr(r5, r3)
    label(MYD)
    add(r6, r6, r7)  # the product is r5:r4 * 2**(r6 - 300)
    data(2, 0xFBA4, 0x4505)  # umull r4, r5, r4, r5
    cmp(r5, 0)
    beq(MLO)
    data(2, 0xFAB5, 0xF385)  # clz r3, r5 (16 or more: the product is below 2**48)
    lsl(r5, r3)
    mov(r7, r4)
    lsl(r7, r3)  # the bits below T
    sub(r6, r6, r3)
    sub(r6, 110)  # E = (63 - clz) + r6 - 173
    neg(r3, r3)
    add(r3, 32)
    lsr(r4, r3)
    orr(r4, r5)  # T
    cmp(r7, 0)
    beq(ROUND)
    mov(r7, 1)
    orr(r4, r7)  # sticky
    b(ROUND)
    label(BAD2)
    b(BAD)
    label(MLO)
    cmp(r4, 0)
    beq(SZERO)
    data(2, 0xFAB4, 0xF384)  # clz r3, r4
    lsl(r4, r3)  # T
    sub(r6, r6, r3)
    sub(r6, 142)  # E = (31 - clz) + r6 - 173
    # round T (r4) * 2**(E (r6) - 158) to float32 bits, signed as r12
    label(ROUND)
    cmp(r6, 255)
    bge(INF)
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
    mov(r3, 255)
    lsl(r3, r3, 23)
    cmp(r6, r3)
    blt(SIGN)
    label(INF)
    mov(r6, 255)
    lsl(r6, r6, 23)
    label(SIGN)
    mov(r3, r12)
    lsr(r3, r3, 31)
    lsl(r3, r3, 31)
    orr(r6, r3)
    b(STORE)
    label(SZERO)  # a zero with the sign of r12: +-0 + +-0 of one sign, or a product
    mov(r6, r12)
    lsr(r6, r6, 31)
    lsl(r6, r6, 31)
    b(STORE)
    label(PZERO)  # an exact zero of a difference is +0
    mov(r6, 0)
    label(STORE)
    str(r6, [r2, 0])
    add(r2, 4)
    data(2, 0x4552)  # cmp r2, r10
    bcs(BAD)
    b(LOOP)
    label(BAD)
    mov(r0, r10)
    sub(r0, r0, r2)
    asr(r0, r0, 2)
    pop({r3})
    str(r0, [r3, 28])
    pop({r4, r5, r6, r7})
    mov(r8, r4)
    mov(r9, r5)
    mov(r10, r6)
    mov(r11, r7)
