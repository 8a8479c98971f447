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
L, C, -L, s', R), exactly as native/q_requant_thumb.rows (the
requant_ch_thumb block of host_tools/codegen/blocks.py):

    acc = clamp(C + dot - 128 * sum(xb), -L, L)
    r = (acc * M + R) >> s'        (s' = s below SPLIT_FROM, else split at bit 15)
    out = clamp(zo + r, lo, hi)

MLA (Rd = Rn * Rm + Ra) is a Thumb-2 instruction, emitted with data(): the
step is used where emitters.THUMB2 (armv7-m and up); elsewhere the general
step runs. Where the CPU has the DSP extension (emitters.DSP: Cortex-M4 /
M7; ctl[26] says so), the same function takes its other loops: xb is kept
as halfword lanes (bytes 0, 2 and 1, 3 of each word, UXTB16; sum(xb) by
USADA8), and each 4 weight bytes of a channel are split by UXTB16 and added
by two SMLADs: 13 instructions per 8 multiply-accumulates instead of 24
(every lane at most 255: the same integers). Runs in place from ROMFS.
Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at
from portable_kernels.util import scratch
from portable_kernels.util.emitters import DSP


def prepare(x, weight, channels, rows, k, o, zo, lo, hi, out):
    """(step, ctx) of a checked linear layer: rows x k int8 inputs (k a
    multiple of 4), o output channels."""
    # 12 words of operands and constants, the step's own scratch words up to [100], then [104]
    # whether the CPU has the DSP extension (27 words in all)
    head = [at(x), at(weight), at(out), at(channels), k, o >> 1, o & 1, rows, zo, lo, hi, 0x7FFF]
    ctl = array("i", head + [0] * 14 + [1 if DSP else 0])
    # with DSP, xb is kept as halfword lanes: two words per 4 bytes
    return _linear, (ctl, scratch.rows("col", 2 * k if DSP else k), x.buf, weight.buf, channels.buf, out.buf)


@micropython.asm_thumb
def _linear(r0):
    # r0: the context's items; [0] the control array: [0] x [4] weights [8] out
    # [12] channel table [16] k [20] pairs [24] odd [28] rows [32] zo [36] lo
    # [40] hi [44] 0x7FFF; scratch: [48] the next row's x [52] the end of xb
    # [56] -128 * sum(xb) [60] weights [64] table entry [68] output [72] pairs
    # left [76] rows left [84] the pair's second dot [100] xb; [1] the "col"
    # scratch row
    data(2, 0xE92D, 0x0F00)  # push {r8-r11}
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
    ldr(r4, [r3, 104])
    cmp(r4, 0)
    beq(SX)
    data(2, 0xF04F, 0x0B00)  # mov.w r11, #0
    label(DSX)  # DSP: xb's 4 bytes as two words of halfword lanes (bytes 0, 2 and 1, 3)
    data(2, 0xF851, 0x4B04)  # ldr r4, [r1], #4
    data(2, 0xF084, 0x3480)  # eor r4, r4, #0x80808080
    data(2, 0xFB74, 0x550B)  # usada8 r5, r4, r11, r5: sum(xb)
    data(2, 0xFA3F, 0xF884)  # uxtb16 r8, r4
    data(2, 0xFA3F, 0xF994)  # uxtb16 r9, r4, ror #8
    data(2, 0xE8E6, 0x8902)  # strd r8, r9, [r6], #8
    cmp(r1, r2)
    blt(DSX)
    b(SXEND)
    label(SX)
    ldrb(r4, [r1, 0])
    eor(r4, r7)
    strb(r4, [r6, 0])
    add(r5, r5, r4)
    add(r1, 1)
    add(r6, 1)
    cmp(r1, r2)
    blt(SX)
    label(SXEND)
    str(r6, [r3, 52])  # the end of xb
    lsl(r5, r5, 7)
    neg(r5, r5)
    str(r5, [r3, 56])  # -128 * sum(xb): where every dot starts
    ldr(r4, [r3, 4])
    str(r4, [r3, 60])  # weights: the first pair
    ldr(r4, [r3, 12])
    str(r4, [r3, 64])  # the first channel's table entry
    ldr(r4, [r3, 20])
    str(r4, [r3, 72])  # pairs left
    label(GROUP)
    ldr(r4, [r3, 72])
    cmp(r4, 0)
    bne(PAIR)
    b(ODD)
    label(PAIR)
    sub(r4, 1)
    str(r4, [r3, 72])
    ldr(r6, [r3, 100])
    ldr(r1, [r3, 60])
    ldr(r4, [r3, 52])
    ldr(r5, [r3, 56])
    mov(r2, r5)
    ldr(r0, [r3, 104])
    cmp(r0, 0)
    beq(PLOOP)
    label(DPLOOP)  # DSP: 13 instructions per 8 multiply-accumulates (24 with MLA)
    data(2, 0xE8F6, 0x8902)  # ldrd r8, r9, [r6], #8: 4 of xb as halfword lanes
    data(2, 0xF851, 0x0B04)  # ldr r0, [r1], #4: channel 0
    data(2, 0xFA3F, 0xFA80)  # uxtb16 r10, r0
    data(2, 0xFA3F, 0xFB90)  # uxtb16 r11, r0, ror #8
    data(2, 0xFB28, 0x550A)  # smlad r5, r8, r10, r5
    data(2, 0xFB29, 0x550B)  # smlad r5, r9, r11, r5
    data(2, 0xF851, 0x0B04)  # ldr r0, [r1], #4: channel 1
    data(2, 0xFA3F, 0xFA80)  # uxtb16 r10, r0
    data(2, 0xFA3F, 0xFB90)  # uxtb16 r11, r0, ror #8
    data(2, 0xFB28, 0x220A)  # smlad r2, r8, r10, r2
    data(2, 0xFB29, 0x220B)  # smlad r2, r9, r11, r2
    cmp(r6, r4)
    blt(DPLOOP)
    b(PEND)
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
    label(PEND)
    str(r1, [r3, 60])
    str(r2, [r3, 84])
    ldr(r0, [r3, 68])
    ldr(r7, [r3, 64])
    mov(r4, r5)
    # block requant_ch_thumb(t=P0): generated by host_tools/codegen/blocks.py
    ldr(r5, [r7, 16])
    add(r4, r4, r5)  # acc = C + dot - 128 * sum(xb)
    ldr(r5, [r7, 12])
    cmp(r4, r5)
    ble(P0A)
    mov(r4, r5)
    label(P0A)
    ldr(r5, [r7, 20])
    cmp(r4, r5)
    bge(P0B)
    mov(r4, r5)
    label(P0B)
    ldr(r5, [r7, 8])
    cmp(r5, 22)  # s >= requant.SPLIT_FROM: the split multiply
    bge(P0S)
    ldr(r5, [r7, 4])
    mul(r4, r5)
    b(P0R)
    label(P0S)
    ldr(r5, [r3, 44])
    mov(r6, r4)
    and_(r6, r5)
    ldr(r5, [r7, 4])
    mul(r6, r5)
    asr(r6, r6, 15)
    asr(r4, r4, 15)
    mul(r4, r5)
    add(r4, r4, r6)
    label(P0R)
    ldr(r5, [r7, 28])
    add(r4, r4, r5)
    ldr(r5, [r7, 24])
    asr(r4, r5)
    ldr(r5, [r3, 32])
    add(r4, r4, r5)
    ldr(r5, [r3, 36])
    cmp(r4, r5)
    bge(P0C)
    mov(r4, r5)
    label(P0C)
    ldr(r5, [r3, 40])
    cmp(r4, r5)
    ble(P0D)
    mov(r4, r5)
    label(P0D)
    strb(r4, [r0, 0])
    add(r0, 1)
    add(r7, 32)
    # end block requant_ch_thumb
    ldr(r4, [r3, 84])
    # block requant_ch_thumb(t=P1): generated by host_tools/codegen/blocks.py
    ldr(r5, [r7, 16])
    add(r4, r4, r5)  # acc = C + dot - 128 * sum(xb)
    ldr(r5, [r7, 12])
    cmp(r4, r5)
    ble(P1A)
    mov(r4, r5)
    label(P1A)
    ldr(r5, [r7, 20])
    cmp(r4, r5)
    bge(P1B)
    mov(r4, r5)
    label(P1B)
    ldr(r5, [r7, 8])
    cmp(r5, 22)  # s >= requant.SPLIT_FROM: the split multiply
    bge(P1S)
    ldr(r5, [r7, 4])
    mul(r4, r5)
    b(P1R)
    label(P1S)
    ldr(r5, [r3, 44])
    mov(r6, r4)
    and_(r6, r5)
    ldr(r5, [r7, 4])
    mul(r6, r5)
    asr(r6, r6, 15)
    asr(r4, r4, 15)
    mul(r4, r5)
    add(r4, r4, r6)
    label(P1R)
    ldr(r5, [r7, 28])
    add(r4, r4, r5)
    ldr(r5, [r7, 24])
    asr(r4, r5)
    ldr(r5, [r3, 32])
    add(r4, r4, r5)
    ldr(r5, [r3, 36])
    cmp(r4, r5)
    bge(P1C)
    mov(r4, r5)
    label(P1C)
    ldr(r5, [r3, 40])
    cmp(r4, r5)
    ble(P1D)
    mov(r4, r5)
    label(P1D)
    strb(r4, [r0, 0])
    add(r0, 1)
    add(r7, 32)
    # end block requant_ch_thumb
    str(r0, [r3, 68])
    str(r7, [r3, 64])
    b(GROUP)
    label(ODD)
    ldr(r4, [r3, 24])
    cmp(r4, 0)
    beq(NEXTROW)
    ldr(r6, [r3, 100])
    ldr(r1, [r3, 60])
    ldr(r4, [r3, 52])
    ldr(r5, [r3, 56])
    ldr(r0, [r3, 104])
    cmp(r0, 0)
    beq(OLOOP)
    label(DOLOOP)
    data(2, 0xE8F6, 0x8902)  # ldrd r8, r9, [r6], #8
    data(2, 0xF851, 0x0B04)  # ldr r0, [r1], #4
    data(2, 0xFA3F, 0xFA80)  # uxtb16 r10, r0
    data(2, 0xFA3F, 0xFB90)  # uxtb16 r11, r0, ror #8
    data(2, 0xFB28, 0x550A)  # smlad r5, r8, r10, r5
    data(2, 0xFB29, 0x550B)  # smlad r5, r9, r11, r5
    cmp(r6, r4)
    blt(DOLOOP)
    b(OEND)
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
    label(OEND)
    ldr(r0, [r3, 68])
    ldr(r7, [r3, 64])
    mov(r4, r5)
    # block requant_ch_thumb(t=O): generated by host_tools/codegen/blocks.py
    ldr(r5, [r7, 16])
    add(r4, r4, r5)  # acc = C + dot - 128 * sum(xb)
    ldr(r5, [r7, 12])
    cmp(r4, r5)
    ble(OA)
    mov(r4, r5)
    label(OA)
    ldr(r5, [r7, 20])
    cmp(r4, r5)
    bge(OB)
    mov(r4, r5)
    label(OB)
    ldr(r5, [r7, 8])
    cmp(r5, 22)  # s >= requant.SPLIT_FROM: the split multiply
    bge(OS)
    ldr(r5, [r7, 4])
    mul(r4, r5)
    b(OR)
    label(OS)
    ldr(r5, [r3, 44])
    mov(r6, r4)
    and_(r6, r5)
    ldr(r5, [r7, 4])
    mul(r6, r5)
    asr(r6, r6, 15)
    asr(r4, r4, 15)
    mul(r4, r5)
    add(r4, r4, r6)
    label(OR)
    ldr(r5, [r7, 28])
    add(r4, r4, r5)
    ldr(r5, [r7, 24])
    asr(r4, r5)
    ldr(r5, [r3, 32])
    add(r4, r4, r5)
    ldr(r5, [r3, 36])
    cmp(r4, r5)
    bge(OC)
    mov(r4, r5)
    label(OC)
    ldr(r5, [r3, 40])
    cmp(r4, r5)
    ble(OD)
    mov(r4, r5)
    label(OD)
    strb(r4, [r0, 0])
    add(r0, 1)
    add(r7, 32)
    # end block requant_ch_thumb
    str(r0, [r3, 68])
    label(NEXTROW)
    ldr(r4, [r3, 76])
    sub(r4, 1)
    str(r4, [r3, 76])
    ble(DONE)
    b(ROW)
    label(DONE)
    data(2, 0xE8BD, 0x0F00)  # pop {r8-r11}
    mov(r0, 0)


noalloc.mark(_linear)
