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
  zo, [7] lo, [8] hi, [9..13] scratch, [14] 0x7FFF, [15] 0.
The split / direct choice is made once per channel (two pixel loops).
Writes only out and ctl's scratch; returns 0 (a small int: nothing allocates).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython


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


@micropython.asm_thumb
def rows(r0, r1, r2, r3):
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
    add(r0, 4)
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
