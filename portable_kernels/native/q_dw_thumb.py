"""Arm Thumb inner loop of the int8 3x3 depthwise convolution with dilation
1 (native/q_conv_dw_viper.py): imported only where the port has
@micropython.asm_thumb (emitters.HAS_THUMB).

dw3x3(plane, weights, d, ctl): plane = one channel's input, unsigned
(x + 128) and already padded (row width W); weights = int32, 9 signed taps
per channel; d = int32 out, one dot product per output pixel, row-major;
ctl = int32 [W, stride x, out width, output rows, stride y * W, byte offset
of the channel's taps, scratch x3, byte offset in plane of the first output
row's windows]: a band of output rows per call. d[p] = sum(plane[window] * w): the
caller folds 128 * sum(w) into its per-channel constant. |d| <= 9*255*128.
Writes only d and ctl's scratch; returns 0 (a small int: nothing allocates).

pad_plane(x, plane, ctl): the padded, unsigned copy of one input channel
plane that dw3x3 reads (a viper loop costs ~43 instructions per byte on
Thumb, this ~7).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython


@micropython.asm_thumb
def dw3x3(r0, r1, r2, r3):
    ldr(r4, [r3, 20])
    add(r1, r1, r4)  # this channel's 9 taps
    ldr(r4, [r3, 36])
    add(r0, r0, r4)  # the first output row's windows
    str(r0, [r3, 32])  # top-left of the current output row's first window
    ldr(r4, [r3, 12])
    str(r4, [r3, 28])  # rows left
    label(ROW)
    ldr(r0, [r3, 32])
    ldr(r4, [r3, 8])
    str(r4, [r3, 24])  # pixels left in the row
    label(PIX)
    ldr(r6, [r3, 0])
    add(r5, r0, r6)  # second window row
    ldrb(r4, [r0, 0])
    ldr(r7, [r1, 0])
    mul(r4, r7)
    ldrb(r6, [r0, 1])
    ldr(r7, [r1, 4])
    mul(r6, r7)
    add(r4, r4, r6)
    ldrb(r6, [r0, 2])
    ldr(r7, [r1, 8])
    mul(r6, r7)
    add(r4, r4, r6)
    ldrb(r6, [r5, 0])
    ldr(r7, [r1, 12])
    mul(r6, r7)
    add(r4, r4, r6)
    ldrb(r6, [r5, 1])
    ldr(r7, [r1, 16])
    mul(r6, r7)
    add(r4, r4, r6)
    ldrb(r6, [r5, 2])
    ldr(r7, [r1, 20])
    mul(r6, r7)
    add(r4, r4, r6)
    ldr(r6, [r3, 0])
    add(r5, r5, r6)  # third window row
    ldrb(r6, [r5, 0])
    ldr(r7, [r1, 24])
    mul(r6, r7)
    add(r4, r4, r6)
    ldrb(r6, [r5, 1])
    ldr(r7, [r1, 28])
    mul(r6, r7)
    add(r4, r4, r6)
    ldrb(r6, [r5, 2])
    ldr(r7, [r1, 32])
    mul(r6, r7)
    add(r4, r4, r6)
    str(r4, [r2, 0])
    add(r2, 4)
    ldr(r6, [r3, 4])
    add(r0, r0, r6)  # next window: stride x
    ldr(r6, [r3, 24])
    sub(r6, 1)
    str(r6, [r3, 24])
    bgt(PIX)
    ldr(r0, [r3, 32])
    ldr(r6, [r3, 16])
    add(r0, r0, r6)  # next output row: stride y rows down
    str(r0, [r3, 32])
    ldr(r6, [r3, 28])
    sub(r6, 1)
    str(r6, [r3, 28])
    bgt(ROW)
    mov(r0, 0)


@micropython.asm_thumb
def pad_plane(r0, r1, r2):
    # r0 input buffer, r1 padded plane, r2 ctl = int32 [input offset, w, h, pw,
    # top padding bytes, bottom padding bytes, pad, scratch]: the plane unsigned
    # (x ^ 0x80) between borders of pad
    ldr(r4, [r2, 0])
    add(r0, r0, r4)
    ldr(r7, [r2, 24])  # pad
    mov(r6, 0x80)
    ldr(r5, [r2, 16])
    add(r5, r5, r1)
    b(TT)
    label(T)
    strb(r7, [r1, 0])
    add(r1, 1)
    label(TT)
    cmp(r1, r5)
    blt(T)
    ldr(r4, [r2, 8])
    str(r4, [r2, 28])  # rows left
    label(ROW)
    ldr(r5, [r2, 12])
    add(r5, r5, r1)
    b(LT)
    label(L)
    strb(r7, [r1, 0])
    add(r1, 1)
    label(LT)
    cmp(r1, r5)
    blt(L)
    ldr(r5, [r2, 4])
    add(r5, r5, r1)
    b(CT)
    label(C)
    ldrb(r4, [r0, 0])
    eor(r4, r6)
    strb(r4, [r1, 0])
    add(r0, 1)
    add(r1, 1)
    label(CT)
    cmp(r1, r5)
    blt(C)
    ldr(r5, [r2, 12])
    add(r5, r5, r1)
    b(RT)
    label(R)
    strb(r7, [r1, 0])
    add(r1, 1)
    label(RT)
    cmp(r1, r5)
    blt(R)
    ldr(r4, [r2, 28])
    sub(r4, 1)
    str(r4, [r2, 28])
    bgt(ROW)
    ldr(r5, [r2, 20])
    add(r5, r5, r1)
    b(BT)
    label(B)
    strb(r7, [r1, 0])
    add(r1, 1)
    label(BT)
    cmp(r1, r5)
    blt(B)
    mov(r0, 0)
