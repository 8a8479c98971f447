"""Float32 softmax and gelu (erf form) with FPU instructions (Cortex-M4F /
M7: emitters.FPU), each step itself an assembler function called directly
(native/thumb_steps.py: no bytecode frame, no float object; does not
allocate). FPU instructions are emitted with data(), so the module compiles
for every Thumb-2 arch; it is imported only where emitters.FPU.

Both share one exp() subroutine (label EXP, called with bl): x in s0 ->
exp(x) in s0; k = round(x * log2 e), r = x - k ln2 (ln2 in two parts,
Cephes' expf), exp(r) by Cephes' degree-7 polynomial (about 1 ulp), times
2**k built in the exponent field. x below -86 gives 0 (exp(-86) is 4e-38:
the softmax sum is at least 1, erfc's factor at most 1); NaN stays NaN.
Valid for x up to 88 (both callers pass x <= 0 or about 0).

softmax: exp(x - max) / sum along a row of any stride (rows b * span + s,
s < inner, elements 4 * inner bytes apart); a NaN or +inf in a row, or a
row of -inf, gives NaN as torch does. gelu: x * Phi(x), Phi(x) =
erfc(-x / sqrt 2) / 2 with Numerical Recipes' erfcc (fractional error below
1.2e-7 for every argument: no cancellation where Phi is tiny).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import address, at

# Thumb-2 dists: the FPU code is data(), so a dist's -march need not name the FPU
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

# exp: log2 e, ln2 = C1 - C2 in two parts, the clamp, Cephes' polynomial, 1.0;
# gelu: 1 / sqrt 2, 0.5, erfcc's coefficients c0 .. c9
_K = array(
    "f",
    [1.4426950408889634, 0.693359375, -2.12194440e-4, -86.0]
    + [1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1, 1.0]
    + [0.7071067811865476, 0.5]
    + [-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277],
)


def softmax(x, o, outer, d, inner):
    """(step, ctx): o = softmax of x's rows of d elements (row b * inner + s starts at
    element b * d * inner + s, its elements inner apart), outer * inner rows."""
    s = 4 * inner
    ctl = array("i", [0, at(x), at(o), outer, inner, d * s, s, d * s, address(_K), 0, 0])
    return _run, (ctl, x.buf, o.buf, _K)


def gelu(x, o, n):
    """(step, ctx): o = gelu(x) (erf form) over n elements."""
    ctl = array("i", [1, at(x), at(o), 4 * n, address(_K)])
    return _run, (ctl, x.buf, o.buf, _K)


@micropython.asm_thumb
def _run(r0):
    # r0: the context's items; [0] the control array, [0] the op: 0 softmax, 1 gelu.
    # softmax: [4] x [8] o [12] outer [16] inner [20] a row's bytes [24] element stride
    # [28] block stride [32] constants [36] b [40] s (scratch);
    # gelu: [4] x [8] o [12] bytes [16] constants
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    cmp(r1, 0)
    beq(SOFTMAX)
    b(GELU)  # beyond a narrow conditional branch's reach
    label(SOFTMAX)
    mov(r1, 0)
    str(r1, [r0, 36])
    label(OUTER)
    ldr(r1, [r0, 36])
    ldr(r2, [r0, 12])
    cmp(r1, r2)
    blt(GO1)
    b(DONE)
    label(GO1)
    mov(r2, 0)
    str(r2, [r0, 40])
    label(INNER)
    ldr(r1, [r0, 36])
    ldr(r2, [r0, 40])
    ldr(r3, [r0, 16])
    cmp(r2, r3)
    blt(ROW)
    b(NEXTB)
    label(ROW)
    ldr(r3, [r0, 28])
    mul(r3, r1)
    lsl(r2, r2, 2)
    add(r3, r3, r2)
    ldr(r1, [r0, 4])
    add(r1, r1, r3)
    ldr(r2, [r0, 8])
    add(r2, r2, r3)
    ldr(r3, [r0, 20])
    ldr(r4, [r0, 24])
    ldr(r6, [r0, 32])
    # the row's max in s4 (a NaN compares unordered: skipped, and it makes the sum NaN)
    data(2, 0xED91, 0x2A00)  # vldr s4, [r1, 0]
    mov(r5, r4)
    label(MAX)
    cmp(r5, r3)
    bge(MAXED)
    add(r7, r1, r5)
    data(2, 0xED97, 0x0A00)  # vldr s0, [r7, 0]
    data(2, 0xEEB4, 0x0A42)  # vcmp s0, s4
    data(2, 0xEEF1, 0xFA10)  # vmrs APSR_nzcv, fpscr
    ble(NOTMAX)
    data(2, 0xEEB0, 0x2A40)  # vmov.f32 s4, s0
    label(NOTMAX)
    add(r5, r5, r4)
    b(MAX)
    label(MAXED)
    mov(r7, 0)
    data(2, 0xEE02, 0x7A90)  # vmov s5, r7
    mov(r5, 0)
    label(EXPS)
    add(r7, r1, r5)
    data(2, 0xED97, 0x0A00)  # vldr s0, [r7, 0]
    data(2, 0xEE30, 0x0A42)  # vsub s0, s0, s4
    bl(EXP)
    data(2, 0xEE72, 0x2A80)  # vadd s5, s5, s0
    add(r7, r2, r5)
    data(2, 0xED87, 0x0A00)  # vstr s0, [r7, 0]
    add(r5, r5, r4)
    cmp(r5, r3)
    blt(EXPS)
    mov(r5, 0)
    label(DIVS)
    add(r7, r2, r5)
    data(2, 0xED97, 0x0A00)  # vldr s0, [r7, 0]
    data(2, 0xEE80, 0x0A22)  # vdiv s0, s0, s5
    data(2, 0xED87, 0x0A00)  # vstr s0, [r7, 0]
    add(r5, r5, r4)
    cmp(r5, r3)
    blt(DIVS)
    ldr(r2, [r0, 40])
    add(r2, 1)
    str(r2, [r0, 40])
    b(INNER)
    label(NEXTB)
    ldr(r1, [r0, 36])
    add(r1, 1)
    str(r1, [r0, 36])
    b(OUTER)
    label(GELU)
    ldr(r1, [r0, 4])
    ldr(r2, [r0, 8])
    ldr(r3, [r0, 12])
    add(r3, r3, r1)
    ldr(r6, [r0, 16])
    cmp(r1, r3)
    blt(GO2)
    b(DONE)
    label(GO2)
    label(LOOP)
    data(2, 0xED91, 0x4A00)  # vldr s8, [r1, 0]
    data(2, 0xEDD6, 0x4A0B)  # vldr s9, [r6, 44]
    data(2, 0xEE64, 0x4A24)  # vmul s9, s8, s9
    data(2, 0xEEB0, 0x5AE4)  # vabs s10, s9
    data(2, 0xEDD6, 0x5A0C)  # vldr s11, [r6, 48]
    data(2, 0xED96, 0x6A0A)  # vldr s12, [r6, 40]
    data(2, 0xEEA5, 0x6A25)  # vfma s12, s10, s11
    data(2, 0xEDD6, 0x6A0A)  # vldr s13, [r6, 40]
    data(2, 0xEE86, 0x6A86)  # vdiv s12, s13, s12
    data(2, 0xEDD6, 0x0A16)  # vldr s1, [r6, 88]
    data(2, 0xED96, 0x0A15)  # vldr s0, [r6, 84]
    data(2, 0xEEA0, 0x0A86)  # vfma s0, s1, s12
    data(2, 0xEDD6, 0x0A14)  # vldr s1, [r6, 80]
    data(2, 0xEEE0, 0x0A06)  # vfma s1, s0, s12
    data(2, 0xED96, 0x0A13)  # vldr s0, [r6, 76]
    data(2, 0xEEA0, 0x0A86)  # vfma s0, s1, s12
    data(2, 0xEDD6, 0x0A12)  # vldr s1, [r6, 72]
    data(2, 0xEEE0, 0x0A06)  # vfma s1, s0, s12
    data(2, 0xED96, 0x0A11)  # vldr s0, [r6, 68]
    data(2, 0xEEA0, 0x0A86)  # vfma s0, s1, s12
    data(2, 0xEDD6, 0x0A10)  # vldr s1, [r6, 64]
    data(2, 0xEEE0, 0x0A06)  # vfma s1, s0, s12
    data(2, 0xED96, 0x0A0F)  # vldr s0, [r6, 60]
    data(2, 0xEEA0, 0x0A86)  # vfma s0, s1, s12
    data(2, 0xEDD6, 0x0A0E)  # vldr s1, [r6, 56]
    data(2, 0xEEE0, 0x0A06)  # vfma s1, s0, s12
    data(2, 0xED96, 0x0A0D)  # vldr s0, [r6, 52]
    data(2, 0xEEA0, 0x0A86)  # vfma s0, s1, s12
    data(2, 0xEEA5, 0x0A45)  # vfms s0, s10, s10
    bl(EXP)
    data(2, 0xEE20, 0x0A06)  # vmul s0, s0, s12
    data(2, 0xEE20, 0x0A25)  # vmul s0, s0, s11
    data(2, 0xEEB5, 0x4A40)  # vcmp s8, #0
    data(2, 0xEEF1, 0xFA10)  # vmrs APSR_nzcv, fpscr
    bmi(NEG)
    data(2, 0xEDD6, 0x0A0A)  # vldr s1, [r6, 40]
    data(2, 0xEE30, 0x0AC0)  # vsub s0, s1, s0
    label(NEG)
    data(2, 0xEE20, 0x0A04)  # vmul s0, s0, s8
    data(2, 0xED82, 0x0A00)  # vstr s0, [r2, 0]
    add(r1, 4)
    add(r2, 4)
    cmp(r1, r3)
    bge(GELU_END)
    b(LOOP)
    label(GELU_END)
    b(DONE)
    # block exp_fpu
    label(EXP)  # s0 = exp(s0); r6 the constants; clobbers r7, s1 .. s3
    data(2, 0xEDD6, 0x0A03)  # vldr s1, [r6, 12]
    data(2, 0xEEB4, 0x0A60)  # vcmp s0, s1
    data(2, 0xEEF1, 0xFA10)  # vmrs APSR_nzcv, fpscr
    bmi(EXPZERO)
    data(2, 0xEDD6, 0x0A00)  # vldr s1, [r6, 0]
    data(2, 0xEE60, 0x0A20)  # vmul s1, s0, s1
    data(2, 0xEEFD, 0x0A60)  # vcvtr.s32.f32 s1, s1
    data(2, 0xEE10, 0x7A90)  # vmov r7, s1
    data(2, 0xEEF8, 0x0AE0)  # vcvt.f32.s32 s1, s1
    data(2, 0xED96, 0x1A01)  # vldr s2, [r6, 4]
    data(2, 0xEEA0, 0x0AC1)  # vfms s0, s1, s2
    data(2, 0xED96, 0x1A02)  # vldr s2, [r6, 8]
    data(2, 0xEEA0, 0x0AC1)  # vfms s0, s1, s2
    data(2, 0xEDD6, 0x0A04)  # vldr s1, [r6, 16]
    data(2, 0xED96, 0x1A05)  # vldr s2, [r6, 20]
    data(2, 0xEEA0, 0x1A80)  # vfma s2, s1, s0
    data(2, 0xEDD6, 0x0A06)  # vldr s1, [r6, 24]
    data(2, 0xEEE1, 0x0A00)  # vfma s1, s2, s0
    data(2, 0xED96, 0x1A07)  # vldr s2, [r6, 28]
    data(2, 0xEEA0, 0x1A80)  # vfma s2, s1, s0
    data(2, 0xEDD6, 0x0A08)  # vldr s1, [r6, 32]
    data(2, 0xEEE1, 0x0A00)  # vfma s1, s2, s0
    data(2, 0xED96, 0x1A09)  # vldr s2, [r6, 36]
    data(2, 0xEEA0, 0x1A80)  # vfma s2, s1, s0
    data(2, 0xEE60, 0x1A00)  # vmul s3, s0, s0
    data(2, 0xEDD6, 0x0A0A)  # vldr s1, [r6, 40]
    data(2, 0xEE70, 0x0A80)  # vadd s1, s1, s0
    data(2, 0xEEE1, 0x0A21)  # vfma s1, s2, s3
    add(r7, 127)
    lsl(r7, r7, 23)
    data(2, 0xEE01, 0x7A10)  # vmov s2, r7
    data(2, 0xEE20, 0x0A81)  # vmul s0, s1, s2
    bx(lr)
    label(EXPZERO)
    mov(r7, 0)
    data(2, 0xEE00, 0x7A10)  # vmov s0, r7
    bx(lr)
    # end block exp_fpu
    label(DONE)
    mov(r0, 0)


noalloc.mark(_run)
