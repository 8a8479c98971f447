"""Float32 layer norm rows with FPU instructions (Cortex-M4F / M7:
emitters.FPU), the step itself an assembler function called directly
(native/thumb_steps.py: no bytecode frame, no float object; does not
allocate). Per row, as torch's CPU kernel, in float32: the mean, the biased
variance from a second pass over (x - mean)**2, rstd = 1 / sqrt(var + eps),
then o = (x - mean) * rstd * w + b (one fused multiply-add); mean and rstd
are stored to out1 / out2 where those are wanted. inf / NaN propagate as
IEEE arithmetic has them. FPU instructions are emitted with data(), so the
module compiles for every Thumb-2 arch; imported only where emitters.FPU.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import address, at

# Thumb-2 dists: the FPU code is data(), so a dist's -march need not name the FPU
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


def layer_norm(x, o, rows, m, w, b, eps, mean, rstd):
    """(step, ctx): rows of m elements of tensor x into o; w, b (tensors of m
    elements or None: then 1.0 and 0.0 read at stride 0), mean and rstd
    (tensors of `rows` elements, or None)."""
    ctl = array("i", [0] * 14)
    base = address(ctl)
    ctl[0] = at(x)
    ctl[1] = at(o)
    ctl[2] = rows
    ctl[3] = m
    ctl[4], ctl[5] = (at(w), 4) if w is not None else (base + 48, 0)
    ctl[6], ctl[7] = (at(b), 4) if b is not None else (base + 52, 0)
    ctl[8] = at(mean) if mean is not None else 0
    ctl[9] = at(rstd) if rstd is not None else 0
    bits = array("i", bytes(array("f", [eps, 1.0, 1.0, 0.0])))  # the float32s' bit patterns
    for i in range(4):
        ctl[10 + i] = bits[i]
    bufs = tuple(t.buf for t in (x, o, w, b, mean, rstd) if t is not None)
    return _layer_norm, (ctl,) + bufs


@micropython.asm_thumb
def _layer_norm(r0):
    # r0: the context's items; [0] the control array: [0] x [4] o [8] rows [12] m
    # [16] w [20] its stride [24] b [28] its stride [32] mean [36] rstd (0: none)
    # [40] eps [44] 1.0 [48] 1.0 (w absent) [52] 0.0 (b absent)
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])
    ldr(r1, [r0, 0])
    ldr(r2, [r0, 4])
    ldr(r4, [r0, 12])
    data(2, 0xEE07, 0x4A90)  # vmov s15, r4
    data(2, 0xEEF8, 0x7AE7)  # vcvt.f32.s32 s15, s15
    lsl(r4, r4, 2)
    mov(r3, 0)
    label(ROW)
    ldr(r6, [r0, 8])
    cmp(r3, r6)
    blt(NEXT_ROW)
    b(DONE)
    label(NEXT_ROW)
    mov(r6, 0)
    data(2, 0xEE00, 0x6A10)  # vmov s0, r6
    data(2, 0xEE01, 0x6A90)  # vmov s3, r6
    mov(r5, r1)
    add(r7, r1, r4)
    label(SUM)
    data(2, 0xEDD5, 0x0A00)  # vldr s1, [r5, 0]
    data(2, 0xEE30, 0x0A20)  # vadd s0, s0, s1
    add(r5, 4)
    cmp(r5, r7)
    blt(SUM)
    data(2, 0xEE80, 0x1A27)  # vdiv s2, s0, s15
    mov(r5, r1)
    label(SQUARES)
    data(2, 0xEDD5, 0x0A00)  # vldr s1, [r5, 0]
    data(2, 0xEE70, 0x0AC1)  # vsub s1, s1, s2
    data(2, 0xEEE0, 0x1AA0)  # vfma s3, s1, s1
    add(r5, 4)
    cmp(r5, r7)
    blt(SQUARES)
    data(2, 0xEEC1, 0x1AA7)  # vdiv s3, s3, s15
    data(2, 0xED90, 0x2A0A)  # vldr s4, [r0, 40]
    data(2, 0xEE71, 0x1A82)  # vadd s3, s3, s4
    data(2, 0xEEF1, 0x1AE1)  # vsqrt s3, s3
    data(2, 0xED90, 0x2A0B)  # vldr s4, [r0, 44]
    data(2, 0xEEC2, 0x1A21)  # vdiv s3, s4, s3
    lsl(r7, r3, 2)
    ldr(r6, [r0, 32])
    cmp(r6, 0)
    beq(NOMEAN)
    add(r6, r6, r7)
    data(2, 0xED86, 0x1A00)  # vstr s2, [r6, 0]
    label(NOMEAN)
    ldr(r6, [r0, 36])
    cmp(r6, 0)
    beq(NORSTD)
    add(r6, r6, r7)
    data(2, 0xEDC6, 0x1A00)  # vstr s3, [r6, 0]
    label(NORSTD)
    push({r3, r4})
    mov(r5, r1)
    add(r4, r1, r4)
    mov(r3, r2)
    ldr(r6, [r0, 16])
    ldr(r7, [r0, 24])
    label(OUT)
    data(2, 0xEDD5, 0x0A00)  # vldr s1, [r5, 0]
    data(2, 0xEE70, 0x0AC1)  # vsub s1, s1, s2
    data(2, 0xEE60, 0x0AA1)  # vmul s1, s1, s3
    data(2, 0xED96, 0x2A00)  # vldr s4, [r6, 0]
    data(2, 0xEDD7, 0x2A00)  # vldr s5, [r7, 0]
    data(2, 0xEEE0, 0x2A82)  # vfma s5, s1, s4
    data(2, 0xEDC3, 0x2A00)  # vstr s5, [r3, 0]
    add(r5, 4)
    add(r3, 4)
    ldr(r1, [r0, 20])
    add(r6, r6, r1)
    ldr(r1, [r0, 28])
    add(r7, r7, r1)
    cmp(r5, r4)
    blt(OUT)
    mov(r1, r4)
    mov(r2, r3)
    pop({r3, r4})
    add(r3, 1)
    b(ROW)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_layer_norm)
