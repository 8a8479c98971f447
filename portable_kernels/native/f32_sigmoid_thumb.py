"""Float32 sigmoid and tanh in Arm Thumb-2 integer fixed point, for boards
without an FPU (Cortex-M3; emitters.THUMB2 and not emitters.WIDE):
f32_sigmoid_viper.unary()'s arguments for SIGMOID and TANH. No float object,
does not allocate. At an inf or NaN it stops and returns how many elements
it wrote (the caller runs its bytecode loop from there).

exp(-|x|) (sigmoid) or exp(-2|x|) (tanh) as u = 2**-z: z = |x| * log2(e)
(or 2 log2(e), Q30) by UMULL, split into an integer k and a Q32 fraction
f; 2**-f = e**-t (t = f ln2) by its Taylor series to t**9, Horner in Q31
with UDIV by j. 1 / (1 + u) by three Newton steps from 48/17 - 32/17 d
(Q30). Then
  sigmoid(|x|) = 1 / (1 + u), sigmoid(-|x|) = (2**-f / (1 + u)) * 2**-k,
  tanh(|x|) = (1 - u) / (1 + u),
normalized with CLZ and rounded once to float32 (to nearest even,
denormals). Where 1 - u would cancel, tanh of 2**-12 <= |x| < 2**-4 is
x (1 - w (1/3 - w (2/15 - w 17/315))) (w = x**2, Q32), of |x| < 2**-12 x
itself (relative error below 2**-25), of |x| >= 16 +-1.0; sigmoid of
x <= -128 is 0.0 and of x >= 128 is 1.0. Within 1 ulp of float64 math
(tests/test_f32_sigmoid_thumb.py: 3,500+ inputs on the boards).

Thumb-2 instructions (CLZ, UMULL, UDIV) are emitted with data(), the rest
are Thumb-1 mnemonics, as in f32_mm_thumb.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

# only Thumb-2 dists carry it (host_tools/deploy/build_targets.march_list)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

SIGMOID = 0
TANH = 1

# 14 words: [0] op [1] n, constants [2] log2(e) Q30 [3] ln2 Q32 [4] 48/17 Q30
# [5] 32/17 Q31 [10] 2 log2(e) Q30 [11] 1/3 [12] 2/15 [13] 17/315 (Q32), and
# the step's spills [6] sign [7] k [8] 2**-f [9] x. From bytes: no big int
# on a 32-bit port.
_CTL = array(
    "I",
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x95\x1d\x55\x5c\xf8\x17\x72\xb1\xb5\xb4\xb4\xb4\xf1\xf0\xf0\xf0"
    b"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x29\x3b\xaa\xb8"
    b"\x55\x55\x55\x55\x22\x22\x22\x22\x0e\xdd\xd0\x0d",
)


def unary(a, o, n, op):
    """o[i] = sigmoid(a[i]) (op SIGMOID) or tanh(a[i]) (op TANH) for i < n.
    Returns the count written: n, or the index of the first inf/NaN."""
    if n <= 0:
        return 0
    c = _CTL
    c[0] = op
    c[1] = n
    return n - _unary(a, o, c)


def sigmoid(ctx):
    """op_sigmoid's step, ctx (x, o, n, exp, tail): _unary called directly
    (one bytecode call per step); tail(ctx, k) finishes from the first
    inf / NaN, element k, on."""
    c = _CTL
    c[0] = SIGMOID
    c[1] = ctx[2]
    left = _unary(ctx[0], ctx[1], c)
    if left:
        ctx[4](ctx, ctx[2] - left)


def tanh(ctx):
    """op_tanh's step, the same with TANH."""
    c = _CTL
    c[0] = TANH
    c[1] = ctx[2]
    left = _unary(ctx[0], ctx[1], c)
    if left:
        ctx[4](ctx, ctx[2] - left)


@micropython.asm_thumb
def _unary(r0, r1, r2):
    # r0 x cursor, r1 o cursor, r2 ctl (above), r3 the end of o; returns the
    # elements left unwritten (from the first inf / NaN on)
    ldr(r3, [r2, 4])
    lsl(r3, r3, 2)
    add(r3, r1, r3)
    label(LOOP)
    ldr(r4, [r0, 0])
    add(r0, 4)
    str(r4, [r2, 36])
    lsr(r5, r4, 31)
    lsl(r5, r5, 31)
    str(r5, [r2, 24])  # sign
    lsl(r6, r4, 1)
    lsr(r6, r6, 24)  # ex
    cmp(r6, 255)
    beq(BAD1)
    ldr(r7, [r2, 0])  # op
    cmp(r7, 0)
    beq(SIGTH)
    cmp(r6, 115)
    blt(STOREX1)  # tanh of |x| < 2**-12: x
    cmp(r6, 131)
    bge(SAT1)  # tanh of |x| >= 16: +-1.0
    cmp(r6, 123)
    bge(GO)
    b(TSMALL)
    label(BAD1)
    b(BAD)
    label(STOREX1)
    b(STOREX)
    label(SAT1)
    b(SAT)
    label(SIGTH)
    cmp(r6, 134)
    bge(SAT1)  # sigmoid of |x| >= 128: 0.0 or 1.0
    label(GO)
    lsl(r4, r4, 9)
    lsr(r4, r4, 9)
    cmp(r6, 0)
    bne(NORMAL)
    mov(r6, 1)  # denormal: exponent 1, no implicit bit
    b(MDONE)
    label(NORMAL)
    mov(r5, 1)
    lsl(r5, r5, 23)
    orr(r4, r5)
    label(MDONE)
    ldr(r5, [r2, 8])
    cmp(r7, 0)
    beq(CSIG)
    ldr(r5, [r2, 40])
    label(CSIG)
    data(2, 0xFBA4, 0x4505)  # umull r4, r5, r4, r5: z = r5:r4 * 2**(ex - 180)
    mov(r7, 148)
    sub(r6, r7, r6)  # s = 148 - ex >= 15: z in Q32 is r5:r4 >> s
    cmp(r6, 32)
    bge(SBIG)
    lsr(r4, r6)
    mov(r7, r5)
    lsr(r7, r6)
    str(r7, [r2, 28])  # k
    mov(r7, 32)
    sub(r7, r7, r6)
    lsl(r5, r7)
    orr(r4, r5)  # f (Q32)
    b(ZDONE)
    label(SBIG)
    mov(r7, 0)
    str(r7, [r2, 28])
    sub(r6, 32)
    lsr(r5, r6)
    mov(r4, r5)
    label(ZDONE)
    cmp(r4, 2)  # z <= 2 * 2**-32: as if 0 (1 + u would be 2.0, past Q31; sigmoid rounds to 0.5 from |x| < 2**-24)
    bhi(NZ)
    ldr(r7, [r2, 28])
    cmp(r7, 0)
    beq(ZERO1)
    label(NZ)
    ldr(r5, [r2, 12])
    data(2, 0xFBA4, 0x6405)  # umull r6, r4, r4, r5: t = f ln2 (Q32)
    mov(r5, 1)
    lsl(r5, r5, 31)
    mov(r7, 9)
    label(HORNER)  # r = 1 - t r / j for j = 9 .. 1 (Q31)
    data(2, 0xFBA4, 0xC605)  # umull r12, r6, r4, r5
    data(2, 0xFBB6, 0xF6F7)  # udiv r6, r6, r7
    mov(r5, 1)
    lsl(r5, r5, 31)
    sub(r5, r5, r6)
    sub(r7, 1)
    bne(HORNER)
    str(r5, [r2, 32])  # g = 2**-f (Q31)
    ldr(r7, [r2, 28])
    add(r7, 1)
    mov(r6, r5)
    lsr(r6, r7)  # u (Q30)
    mov(r7, 1)
    lsl(r7, r7, 30)
    add(r6, r6, r7)  # D = 1 + u (Q30)
    lsl(r6, r6, 1)  # d = D / 2 (Q32)
    ldr(r4, [r2, 20])
    data(2, 0xFBA4, 0xC406)  # umull r12, r4, r4, r6
    lsr(r4, r4, 1)
    ldr(r7, [r2, 16])
    sub(r7, r7, r4)  # R = 48/17 - 32/17 d (Q30)
    mov(r5, 1)
    lsl(r5, r5, 31)
    data(2, 0xFBA6, 0xC407)  # umull r12, r4, r6, r7: d R
    sub(r4, r5, r4)  # 2 - d R
    data(2, 0xFBA7, 0xC704)  # umull r12, r7, r7, r4
    lsl(r7, r7, 2)
    data(2, 0xFBA6, 0xC407)  # umull r12, r4, r6, r7
    sub(r4, r5, r4)
    data(2, 0xFBA7, 0xC704)  # umull r12, r7, r7, r4
    lsl(r7, r7, 2)
    data(2, 0xFBA6, 0xC407)  # umull r12, r4, r6, r7
    sub(r4, r5, r4)
    data(2, 0xFBA7, 0xC704)  # umull r12, r7, r7, r4
    lsl(r7, r7, 2)  # R = 1 / d (Q30) = 1 / D (Q31)
    ldr(r6, [r2, 0])
    cmp(r6, 0)
    bne(TANH)
    ldr(r6, [r2, 24])
    cmp(r6, 0)
    bne(SIGNEG)
    mov(r4, r7)  # sigmoid(|x|) = R * 2**-31
    mov(r6, 127)
    b(NORM)
    label(ZERO1)
    b(ZERO)
    label(SIGNEG)  # sigmoid(-|x|) = g R * 2**(-32 - k)
    ldr(r5, [r2, 32])
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7
    ldr(r5, [r2, 28])
    mov(r6, 128)
    sub(r6, r6, r5)
    mov(r5, 0)
    str(r5, [r2, 24])  # positive
    b(NORM)
    label(TANH)  # tanh(|x|) = (1 - u) R * 2**-32
    ldr(r5, [r2, 32])
    ldr(r6, [r2, 28])
    lsr(r5, r6)
    mov(r6, 1)
    lsl(r6, r6, 31)
    sub(r5, r6, r5)
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7
    mov(r6, 128)
    # r4 * 2**(r6 - 158) to float32 bits, signed as ctl[6]
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
    ldr(r7, [r2, 24])
    orr(r6, r7)
    b(STORE)
    label(TSMALL)  # tanh of 2**-12 <= |x| < 2**-4: x (1 - w (1/3 - w (2/15 - w 17/315))), w = x**2
    lsl(r4, r4, 9)
    lsr(r4, r4, 9)
    mov(r5, 1)
    lsl(r5, r5, 23)
    orr(r4, r5)  # m
    lsl(r5, r4, 8)
    str(r5, [r2, 36])
    data(2, 0xFBA4, 0x5704)  # umull r5, r7, r4, r4: m**2
    add(r4, r6, 1)
    str(r4, [r2, 28])  # E0 = ex + 1: x h = (m << 8) h (Q31) * 2**(ex - 189)
    lsl(r6, r6, 1)
    mov(r4, 255)
    add(r4, 13)
    sub(r6, r4, r6)  # w (Q32) = m**2 >> (268 - 2 ex), a shift of 24 .. 38
    cmp(r6, 32)
    bge(WBIG)
    lsr(r5, r6)
    neg(r6, r6)
    add(r6, 32)
    lsl(r7, r6)
    orr(r5, r7)
    b(WDONE)
    label(WBIG)
    sub(r6, 32)
    lsr(r7, r6)
    mov(r5, r7)
    label(WDONE)
    ldr(r7, [r2, 52])
    data(2, 0xFBA5, 0xC707)  # umull r12, r7, r5, r7
    ldr(r6, [r2, 48])
    sub(r7, r6, r7)
    data(2, 0xFBA5, 0xC707)  # umull r12, r7, r5, r7
    ldr(r6, [r2, 44])
    sub(r7, r6, r7)
    data(2, 0xFBA5, 0xC707)  # umull r12, r7, r5, r7
    lsr(r7, r7, 1)
    mov(r6, 1)
    lsl(r6, r6, 31)
    sub(r7, r6, r7)  # h (Q31)
    ldr(r5, [r2, 36])
    data(2, 0xFBA5, 0xC407)  # umull r12, r4, r5, r7
    ldr(r6, [r2, 28])
    b(NORM)
    label(ZERO)  # z below 3 * 2**-32: sigmoid 0.5, tanh x
    ldr(r7, [r2, 0])
    cmp(r7, 0)
    bne(STOREX)
    mov(r6, 126)
    lsl(r6, r6, 23)
    b(STORE)
    label(SAT)
    mov(r6, 127)
    lsl(r6, r6, 23)  # 1.0
    ldr(r5, [r2, 24])
    cmp(r7, 0)
    beq(SATSIG)
    orr(r6, r5)
    b(STORE)
    label(SATSIG)
    cmp(r5, 0)
    beq(STORE)
    mov(r6, 0)
    b(STORE)
    label(STOREX)
    ldr(r6, [r2, 36])
    label(STORE)
    str(r6, [r1, 0])
    add(r1, 4)
    cmp(r1, r3)
    bcs(BAD)
    b(LOOP)
    label(BAD)
    sub(r0, r3, r1)
    asr(r0, r0, 2)
