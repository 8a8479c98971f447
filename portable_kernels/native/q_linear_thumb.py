"""Arm Thumb-2 step of the int8 linear layer (quantized/op_linear_packed.py)
where the input's rows are whole words (K a multiple of 4): one assembler
function, called directly as the step (native/thumb_steps.py: no bytecode
frame, no argument conversion per call), does what op_conv2d_packed's
general step does through a viper driver, a gather, the dots and the
requantization (a recurrent cell's 32 x 96 projection on a Cortex-M3:
~28,700 instructions there, ~17,000 here). Per row: xb = x + 128 into the
shared "col" scratch row, and sum(xb); per pair of output channels the two
dots over the packed weights (host_tools/quantize/pack.py: 4 bytes of the
first channel then 4 of the second) with MLA, then an odd last channel
alone; each dot requantized with its channel table entry (C + 2**29, M, s,
L, C, -L, s', R), exactly as native/q_requant_thumb.rows:

    acc = clamp(C + dot - 128 * sum(xb), -L, L)
    r = (acc * M + R) >> s'        (s' = s below SPLIT_FROM, else split at bit 15)
    out = clamp(zo + r, lo, hi)

MLA (Rd = Rn * Rm + Ra) is a Thumb-2 instruction, emitted with data(): the
step is used where emitters.THUMB2 (armv7-m and up); elsewhere the general
step runs. Runs in place from ROMFS. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at
from portable_kernels.util import scratch


def prepare(x, weight, channels, rows, k, o, zo, lo, hi, out):
    """(step, ctx) of a checked linear layer: rows x k int8 inputs (k a
    multiple of 4), o output channels."""
    ctl = array("i", [at(x), at(weight), at(out), at(channels), k, o >> 1, o & 1, rows, zo, lo, hi, 0x7FFF] + [0] * 14)
    return _linear, (ctl, scratch.rows("col", k), x.buf, weight.buf, channels.buf, out.buf)


@micropython.asm_thumb
def _linear(r0):
    # r0: the context's items; [0] the control array: [0] x [4] weights [8] out
    # [12] channel table [16] k [20] pairs [24] odd [28] rows [32] zo [36] lo
    # [40] hi [44] 0x7FFF; scratch: [48] the next row's x [52] the end of xb
    # [56] 128 * sum(xb) [60] weights [64] table entry [68] output [72] pairs
    # left [76] rows left [80] [84] the group's dots [88] its channels left
    # [92] the dot [96] odd done [100] xb; [1] the "col" scratch row
    ldr(r3, [r0, 0])
    ldr(r3, [r3, 12])
    ldr(r4, [r0, 4])
    ldr(r4, [r4, 12])
    str(r4, [r3, 100])  # the shared row of xb (read at every call: the scratch may have grown)
    ldr(r4, [r3, 28])
    str(r4, [r3, 76])  # rows left
    ldr(r4, [r3, 0])
    str(r4, [r3, 48])  # the row's x
    ldr(r4, [r3, 8])
    str(r4, [r3, 68])  # next output
    label(ROW)
    ldr(r1, [r3, 48])
    ldr(r2, [r3, 16])
    add(r2, r1, r2)
    str(r2, [r3, 48])  # the next row's x
    ldr(r6, [r3, 100])
    mov(r7, 0x80)
    mov(r5, 0)
    str(r5, [r3, 96])
    label(SX)
    ldrb(r4, [r1, 0])
    eor(r4, r7)
    strb(r4, [r6, 0])
    add(r5, r5, r4)
    add(r1, 1)
    add(r6, 1)
    cmp(r1, r2)
    blt(SX)
    str(r6, [r3, 52])  # the end of xb
    lsl(r5, r5, 7)
    str(r5, [r3, 56])  # 128 * sum(xb)
    ldr(r4, [r3, 4])
    str(r4, [r3, 60])  # weights: the first pair
    ldr(r4, [r3, 12])
    str(r4, [r3, 64])  # the first channel's table entry
    ldr(r4, [r3, 20])
    str(r4, [r3, 72])  # pairs left
    label(GROUP)
    ldr(r4, [r3, 72])
    cmp(r4, 0)
    beq(ODD)
    sub(r4, 1)
    str(r4, [r3, 72])
    mov(r4, 2)
    str(r4, [r3, 88])
    ldr(r6, [r3, 100])
    ldr(r1, [r3, 60])
    ldr(r4, [r3, 52])
    mov(r5, 0)
    mov(r2, 0)
    label(PLOOP)
    ldrb(r7, [r6, 0])
    ldrb(r0, [r1, 0])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    ldrb(r0, [r1, 4])
    data(2, 0xFB00, 0x2207)  # mla(r2, r0, r7, r2)
    ldrb(r7, [r6, 1])
    ldrb(r0, [r1, 1])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    ldrb(r0, [r1, 5])
    data(2, 0xFB00, 0x2207)  # mla(r2, r0, r7, r2)
    ldrb(r7, [r6, 2])
    ldrb(r0, [r1, 2])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    ldrb(r0, [r1, 6])
    data(2, 0xFB00, 0x2207)  # mla(r2, r0, r7, r2)
    ldrb(r7, [r6, 3])
    ldrb(r0, [r1, 3])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    ldrb(r0, [r1, 7])
    data(2, 0xFB00, 0x2207)  # mla(r2, r0, r7, r2)
    add(r6, 4)
    add(r1, 8)
    cmp(r6, r4)
    blt(PLOOP)
    str(r1, [r3, 60])
    str(r5, [r3, 80])
    str(r2, [r3, 84])
    b(RQ)
    label(ODD)
    ldr(r4, [r3, 24])
    cmp(r4, 0)
    beq(NEXTROW)
    mov(r4, 1)
    str(r4, [r3, 88])
    str(r4, [r3, 96])
    ldr(r6, [r3, 100])
    ldr(r1, [r3, 60])
    ldr(r4, [r3, 52])
    mov(r5, 0)
    label(OLOOP)
    ldrb(r7, [r6, 0])
    ldrb(r0, [r1, 0])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    ldrb(r7, [r6, 1])
    ldrb(r0, [r1, 1])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    ldrb(r7, [r6, 2])
    ldrb(r0, [r1, 2])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    ldrb(r7, [r6, 3])
    ldrb(r0, [r1, 3])
    data(2, 0xFB00, 0x5507)  # mla(r5, r0, r7, r5)
    add(r6, 4)
    add(r1, 4)
    cmp(r6, r4)
    blt(OLOOP)
    str(r1, [r3, 60])
    str(r5, [r3, 80])
    label(RQ)  # requantize the group's 1 or 2 dots
    mov(r0, r3)
    add(r0, 80)
    str(r0, [r3, 92])
    label(RQC)
    ldr(r0, [r3, 92])
    ldr(r4, [r0, 0])
    add(r0, 4)
    str(r0, [r3, 92])
    ldr(r5, [r3, 56])
    sub(r4, r4, r5)
    ldr(r7, [r3, 64])
    ldr(r5, [r7, 16])
    add(r4, r4, r5)  # acc = C + dot - 128 * sum(xb)
    ldr(r5, [r7, 12])
    cmp(r4, r5)
    ble(A)
    mov(r4, r5)
    label(A)
    ldr(r5, [r7, 20])
    cmp(r4, r5)
    bge(B)
    mov(r4, r5)
    label(B)
    ldr(r5, [r7, 8])
    cmp(r5, 22)  # s >= requant.SPLIT_FROM: the split multiply
    bge(SPL)
    ldr(r5, [r7, 4])
    mul(r4, r5)
    b(RND)
    label(SPL)
    ldr(r5, [r3, 44])
    mov(r6, r4)
    and_(r6, r5)
    ldr(r5, [r7, 4])
    mul(r6, r5)
    asr(r6, r6, 15)
    asr(r4, r4, 15)
    mul(r4, r5)
    add(r4, r4, r6)
    label(RND)
    ldr(r5, [r7, 28])
    add(r4, r4, r5)
    ldr(r5, [r7, 24])
    asr(r4, r5)
    ldr(r5, [r3, 32])
    add(r4, r4, r5)
    ldr(r5, [r3, 36])
    cmp(r4, r5)
    bge(C)
    mov(r4, r5)
    label(C)
    ldr(r5, [r3, 40])
    cmp(r4, r5)
    ble(D)
    mov(r4, r5)
    label(D)
    ldr(r0, [r3, 68])
    strb(r4, [r0, 0])
    add(r0, 1)
    str(r0, [r3, 68])
    add(r7, 32)
    str(r7, [r3, 64])
    ldr(r4, [r3, 88])
    sub(r4, 1)
    str(r4, [r3, 88])
    bgt(RQC)
    ldr(r4, [r3, 96])
    cmp(r4, 0)
    bne(NEXTROW)
    b(GROUP)
    label(NEXTROW)
    ldr(r4, [r3, 76])
    sub(r4, 1)
    str(r4, [r3, 76])
    ble(DONE)
    b(ROW)
    label(DONE)
    mov(r0, 0)


noalloc.mark(_linear)
