"""Arm Thumb requantization of an int8 convolution output row
(native/q_conv_viper.py): imported only where the port has @micropython.asm_thumb
(emitters.HAS_THUMB). The integers of q_requant.requant, word for word:

    acc = clamp(C + dot - 128 * sum(patch), -L, L)
    r = (acc * M + 2**(s-1)) >> s                                  (s < 22)
    r = ((acc >> 15) * M + (((acc & 0x7FFF) * M) >> 15) + 2**(s-16)) >> (s-15)
    out = clamp(zo + r, lo, hi)

rows(acs, sxs, out, ctl): acs = int32 dots [pixel][channel], sxs = int32
patch sums per pixel, out = the output tensor's buffer, ctl = int32:
  [0] acs stride (bytes), [1] pixels, [2] output channel stride, [3] row
  offset in out, [4] channels, [5] address of the group's first entry in
  the channel table (host_tools/quantize/pack.py: int32 (C + 2**29, M, s, L,
  C, -L, s', R) per channel, read where it lies; the caller sets it), [6]
  zo, [7] lo, [8] hi, [9..13] scratch, [14] 0x7FFF, [15] acs stride
  between channels (bytes: 4 for [pixel][channel]).
The split / direct choice is made once per channel (two pixel loops).
Writes only out and ctl's scratch; returns 0 (a small int: nothing allocates).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython

from portable_kernels.util.emitters import THUMB2


def fill_ctl(ctl, opg, ow, plane, zo, lo, hi):
    """Writes rows()'s constant control words into ctl (steps share one: allocates
    nothing). The others are rows()'s scratch, or set per call by the step."""
    ctl[0] = opg * 4
    ctl[1] = ow
    ctl[2] = plane
    ctl[4] = opg
    ctl[6] = zo
    ctl[7] = lo
    ctl[8] = hi
    ctl[14] = 0x7FFF
    ctl[15] = 4


@micropython.asm_thumb
def rows1(r0, r1, r2, r3):
    # Thumb-1 (armv6m)
    str(r1, [r3, 52])  # patch sums
    ldr(r4, [r3, 12])
    add(r2, r2, r4)
    str(r2, [r3, 48])  # output of the current channel
    str(r0, [r3, 44])  # dots of the current channel
    ldr(r7, [r3, 20])  # the channel's table entry (in flash: 8 words per channel)
    ldr(r4, [r3, 16])
    str(r4, [r3, 36])  # channels left
    label(CH)
    ldr(r0, [r3, 44])
    ldr(r1, [r3, 52])
    ldr(r2, [r3, 48])
    ldr(r4, [r3, 4])
    str(r4, [r3, 40])  # pixels left (split loop)
    add(r6, r2, r4)  # end of the channel's output row (direct loop)
    ldr(r5, [r7, 8])
    cmp(r5, 22)  # s >= requant.SPLIT_FROM: the split multiply
    bge(SPX)
    label(PX)  # s < SPLIT_FROM: acc * M in one multiply
    ldr(r4, [r0, 0])
    ldr(r5, [r3, 0])
    add(r0, r0, r5)
    ldr(r5, [r1, 0])
    add(r1, 4)
    lsl(r5, r5, 7)
    sub(r4, r4, r5)
    ldr(r5, [r7, 16])
    add(r4, r4, r5)  # acc = C + dot - 128 * sum
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
    ldr(r5, [r7, 4])
    mul(r4, r5)
    ldr(r5, [r7, 28])
    add(r4, r4, r5)
    ldr(r5, [r7, 24])
    asr(r4, r5)
    ldr(r5, [r3, 24])
    add(r4, r4, r5)
    ldr(r5, [r3, 28])
    cmp(r4, r5)
    bge(C)
    mov(r4, r5)
    label(C)
    ldr(r5, [r3, 32])
    cmp(r4, r5)
    ble(D)
    mov(r4, r5)
    label(D)
    strb(r4, [r2, 0])
    add(r2, 1)
    cmp(r2, r6)
    blt(PX)
    b(CHEND)
    label(SPX)  # the split multiply
    ldr(r4, [r0, 0])
    ldr(r5, [r3, 0])
    add(r0, r0, r5)
    ldr(r5, [r1, 0])
    add(r1, 4)
    lsl(r5, r5, 7)
    sub(r4, r4, r5)
    ldr(r5, [r7, 16])
    add(r4, r4, r5)
    ldr(r5, [r7, 12])
    cmp(r4, r5)
    ble(SA)
    mov(r4, r5)
    label(SA)
    ldr(r5, [r7, 20])
    cmp(r4, r5)
    bge(SB)
    mov(r4, r5)
    label(SB)
    ldr(r5, [r3, 56])
    mov(r6, r4)
    and_(r6, r5)
    ldr(r5, [r7, 4])
    mul(r6, r5)
    asr(r6, r6, 15)
    asr(r4, r4, 15)
    mul(r4, r5)
    add(r4, r4, r6)
    ldr(r5, [r7, 28])
    add(r4, r4, r5)
    ldr(r5, [r7, 24])
    asr(r4, r5)
    ldr(r5, [r3, 24])
    add(r4, r4, r5)
    ldr(r5, [r3, 28])
    cmp(r4, r5)
    bge(SC)
    mov(r4, r5)
    label(SC)
    ldr(r5, [r3, 32])
    cmp(r4, r5)
    ble(SD)
    mov(r4, r5)
    label(SD)
    strb(r4, [r2, 0])
    add(r2, 1)
    ldr(r5, [r3, 40])
    sub(r5, 1)
    str(r5, [r3, 40])
    bgt(SPX)
    label(CHEND)
    ldr(r0, [r3, 44])
    ldr(r5, [r3, 60])
    add(r0, r0, r5)
    str(r0, [r3, 44])
    ldr(r2, [r3, 48])
    ldr(r5, [r3, 8])
    add(r2, r2, r5)
    str(r2, [r3, 48])
    add(r7, 32)
    ldr(r5, [r3, 36])
    sub(r5, 1)
    str(r5, [r3, 36])
    ble(DONE)
    b(CH)  # beyond a conditional branch's reach
    label(DONE)
    mov(r0, 0)


@micropython.asm_thumb
def rows2(r0, r1, r2, r3):
    # Thumb-2 (armv7m and later): the channel's table entry in registers (one LDM), the
    # clamps by IT blocks, zo folded into the rounding term where the sum stays below
    # 2**31; ~22 instructions per output (split multiply ~26), rows1's ~47.
    # Per pixel: r0 dots, r1 patch sums, r2 output, r3 end of the output row, r4 r6
    # scratch, r5 M, r7 L, r8 C, r9 dots stride, r10 s', r11 R (+ zo << s'), r12 lo,
    # lr hi; ctl at [sp]
    data(2, 0xE92D, 0x0F08)  # push {r3, r8-r11}: ctl at [sp]
    ldr(r4, [r3, 12])
    add(r2, r2, r4)
    str(r2, [r3, 48])  # output of the current channel
    str(r0, [r3, 44])  # dots of the current channel
    str(r1, [r3, 52])  # patch sums
    ldr(r4, [r3, 16])
    str(r4, [r3, 36])  # channels left
    ldr(r4, [r3, 20])
    str(r4, [r3, 40])  # the channel's table entry (in flash: 8 words per channel)
    label(CH)
    data(2, 0x9B00)  # ldr r3, [sp]
    data(2, 0xF8D3, 0xC028)  # ldr.w r12, [r3, #40]
    data(2, 0xE8BC, 0x0FF0)  # ldm.w r12!, {r4-r11}: r5 M, r6 s, r7 L, r8 C, r10 s', r11 R
    data(2, 0xF8C3, 0xC028)  # str.w r12, [r3, #40]
    ldr(r0, [r3, 44])
    ldr(r1, [r3, 52])
    ldr(r2, [r3, 48])
    data(2, 0xF8D3, 0x9000)  # ldr.w r9, [r3]: dots stride
    data(2, 0xF8D3, 0xC01C)  # ldr.w r12, [r3, #28]: lo
    data(2, 0xF8D3, 0xE020)  # ldr.w lr, [r3, #32]: hi
    ldr(r4, [r3, 24])  # zo
    ldr(r3, [r3, 4])
    add(r3, r2, r3)  # end of the channel's output row
    data(2, 0x2E20)  # cmp r6, #32: M' = M << (32 - s) where it fits a signed word and L * M >> s >= 257
    bgt(SLOW)
    data(2, 0xF1C6, 0x0420)  # rsb.w r4, r6, #32
    data(2, 0xFA05, 0xFB04)  # lsl.w r11, r5, r4
    data(2, 0xFA4B, 0xF404)  # asr.w r4, r11, r4
    cmp(r4, r5)
    bne(SLOWR)
    data(2, 0xFBA7, 0xE40B)  # umull lr, r4, r7, r11: r4 = (L * M) >> s
    data(2, 0xF8DD, 0xE000)  # ldr lr, [sp]
    data(2, 0xF8DE, 0xE020)  # ldr.w lr, [lr, #32]: hi again
    data(2, 0xF5B4, 0x7F80)  # cmp.w r4, #256: an accumulator beyond L saturates: clamping it changes nothing
    ble(SLOWR)
    mov(r5, r11)
    data(2, 0xF8DD, 0xB000)  # ldr r11, [sp]
    data(2, 0xF8DB, 0xB018)  # ldr.w r11, [r11, #24]: zo
    label(FX)  # one SMULL: (acc * M' + 2**31) >> 32 is (acc * M + 2**(s-1)) >> s
    ldr(r4, [r0, 0])
    data(2, 0x4448)  # add r0, r9
    data(2, 0xF851, 0x6B04)  # ldr r6, [r1], #4
    data(2, 0xEBA4, 0x14C6)  # sub.w r4, r4, r6, lsl #7
    data(2, 0x4444)  # add r4, r8: acc = C + dot - 128 * sum, not clamped
    data(2, 0xFB84, 0x6405)  # smull r6, r4, r4, r5
    data(2, 0xEB04, 0x74D6)  # add.w r4, r4, r6, lsr #31
    data(2, 0x445C)  # add r4, r11
    data(2, 0x4564)  # cmp r4, r12
    data(2, 0xBFB8)  # it lt
    data(2, 0x4664)  # movlt r4, r12
    data(2, 0x4574)  # cmp r4, lr
    data(2, 0xBFC8)  # it gt
    data(2, 0x4674)  # movgt r4, lr
    data(2, 0xF802, 0x4B01)  # strb r4, [r2], #1
    cmp(r2, r3)
    blt(FX)
    b(CHEND)
    label(SLOWR)
    data(2, 0xF04F, 0x0B01)  # mov.w r11, #1: R again: 2**(s'-1)
    data(2, 0xFA0B, 0xFB0A)  # lsl.w r11, r11, r10
    data(2, 0xEA4F, 0x0B5B)  # lsr.w r11, r11, #1
    label(SLOW)
    data(2, 0x9C00)  # ldr r4, [sp]
    ldr(r4, [r4, 24])  # zo
    cmp(r6, 22)  # s >= requant.SPLIT_FROM: the split multiply
    bge(SPLIT)
    data(2, 0xFA04, 0xF40A)  # lsl.w r4, r4, r10
    data(2, 0x44A3)  # add r11, r4: R + (zo << s): zo added before the shift (|sum| < 2**31)
    label(PX)  # s < SPLIT_FROM: acc * M in one multiply
    # block rows_acc_thumb: generated by host_tools/codegen/blocks.py
    ldr(r4, [r0, 0])
    data(2, 0x4448)  # add r0, r9
    data(2, 0xF851, 0x6B04)  # ldr r6, [r1], #4
    data(2, 0xEBA4, 0x14C6)  # sub.w r4, r4, r6, lsl #7
    data(2, 0x4444)  # add r4, r8: acc = C + dot - 128 * sum
    cmp(r4, r7)
    data(2, 0xBFC8)  # it gt
    data(2, 0x463C)  # movgt r4, r7
    data(2, 0x42FC)  # cmn r4, r7
    data(2, 0xBFB8)  # it lt
    data(2, 0x427C)  # rsblt r4, r7, #0: clamp(acc, -L, L)
    # end block rows_acc_thumb
    data(2, 0xFB04, 0xB405)  # mla r4, r4, r5, r11
    data(2, 0xFA44, 0xF40A)  # asr.w r4, r4, r10
    data(2, 0x4564)  # cmp r4, r12
    data(2, 0xBFB8)  # it lt
    data(2, 0x4664)  # movlt r4, r12
    data(2, 0x4574)  # cmp r4, lr
    data(2, 0xBFC8)  # it gt
    data(2, 0x4674)  # movgt r4, lr
    data(2, 0xF802, 0x4B01)  # strb r4, [r2], #1
    cmp(r2, r3)
    blt(PX)
    b(CHEND)
    label(SPLIT)  # the split multiply
    data(2, 0xF1BA, 0x0F16)  # cmp r10, #22
    bgt(SPZ)
    data(2, 0xFA04, 0xF40A)  # lsl.w r4, r4, r10
    data(2, 0x44A3)  # add r11, r4: R + (zo << s'), s' <= 22: |sum| < 2**31
    label(SPX)
    # block rows_acc_thumb: generated by host_tools/codegen/blocks.py
    ldr(r4, [r0, 0])
    data(2, 0x4448)  # add r0, r9
    data(2, 0xF851, 0x6B04)  # ldr r6, [r1], #4
    data(2, 0xEBA4, 0x14C6)  # sub.w r4, r4, r6, lsl #7
    data(2, 0x4444)  # add r4, r8: acc = C + dot - 128 * sum
    cmp(r4, r7)
    data(2, 0xBFC8)  # it gt
    data(2, 0x463C)  # movgt r4, r7
    data(2, 0x42FC)  # cmn r4, r7
    data(2, 0xBFB8)  # it lt
    data(2, 0x427C)  # rsblt r4, r7, #0: clamp(acc, -L, L)
    # end block rows_acc_thumb
    # block rows_split_thumb: generated by host_tools/codegen/blocks.py
    data(2, 0xF3C4, 0x060E)  # ubfx r6, r4, #0, #15
    mul(r6, r5)
    asr(r4, r4, 15)
    data(2, 0xFB04, 0xB405)  # mla r4, r4, r5, r11
    data(2, 0xEB04, 0x34E6)  # add.w r4, r4, r6, asr #15
    data(2, 0xFA44, 0xF40A)  # asr.w r4, r4, r10
    # end block rows_split_thumb
    data(2, 0x4564)  # cmp r4, r12
    data(2, 0xBFB8)  # it lt
    data(2, 0x4664)  # movlt r4, r12
    data(2, 0x4574)  # cmp r4, lr
    data(2, 0xBFC8)  # it gt
    data(2, 0x4674)  # movgt r4, lr
    data(2, 0xF802, 0x4B01)  # strb r4, [r2], #1
    cmp(r2, r3)
    blt(SPX)
    b(CHEND)
    label(SPZ)  # s' > 22: zo added after the shift
    # block rows_acc_thumb: generated by host_tools/codegen/blocks.py
    ldr(r4, [r0, 0])
    data(2, 0x4448)  # add r0, r9
    data(2, 0xF851, 0x6B04)  # ldr r6, [r1], #4
    data(2, 0xEBA4, 0x14C6)  # sub.w r4, r4, r6, lsl #7
    data(2, 0x4444)  # add r4, r8: acc = C + dot - 128 * sum
    cmp(r4, r7)
    data(2, 0xBFC8)  # it gt
    data(2, 0x463C)  # movgt r4, r7
    data(2, 0x42FC)  # cmn r4, r7
    data(2, 0xBFB8)  # it lt
    data(2, 0x427C)  # rsblt r4, r7, #0: clamp(acc, -L, L)
    # end block rows_acc_thumb
    # block rows_split_thumb: generated by host_tools/codegen/blocks.py
    data(2, 0xF3C4, 0x060E)  # ubfx r6, r4, #0, #15
    mul(r6, r5)
    asr(r4, r4, 15)
    data(2, 0xFB04, 0xB405)  # mla r4, r4, r5, r11
    data(2, 0xEB04, 0x34E6)  # add.w r4, r4, r6, asr #15
    data(2, 0xFA44, 0xF40A)  # asr.w r4, r4, r10
    # end block rows_split_thumb
    data(2, 0x9E00)  # ldr r6, [sp]
    ldr(r6, [r6, 24])
    add(r4, r4, r6)
    data(2, 0x4564)  # cmp r4, r12
    data(2, 0xBFB8)  # it lt
    data(2, 0x4664)  # movlt r4, r12
    data(2, 0x4574)  # cmp r4, lr
    data(2, 0xBFC8)  # it gt
    data(2, 0x4674)  # movgt r4, lr
    data(2, 0xF802, 0x4B01)  # strb r4, [r2], #1
    cmp(r2, r3)
    blt(SPZ)
    label(CHEND)
    data(2, 0x9B00)  # ldr r3, [sp]
    ldr(r0, [r3, 44])
    ldr(r5, [r3, 60])
    add(r0, r0, r5)  # the next channel's dots
    str(r0, [r3, 44])
    ldr(r2, [r3, 48])
    ldr(r5, [r3, 8])
    add(r2, r2, r5)
    str(r2, [r3, 48])
    ldr(r5, [r3, 36])
    sub(r5, 1)
    str(r5, [r3, 36])
    ble(DONE)
    b(CH)  # beyond a conditional branch's reach
    label(DONE)
    data(2, 0xE8BD, 0x0F08)  # pop {r3, r8-r11}
    mov(r0, 0)


rows = rows2 if THUMB2 else rows1
