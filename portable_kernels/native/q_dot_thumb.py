"""Arm Thumb inner loop of the int8 convolution / linear (native/q_conv_viper.py):
imported only where the port has @micropython.asm_thumb (emitters.HAS_THUMB).

dots(col, wt, acs, ctl), all buffers (int32 ctl):
    ctl = [pixels, kp, channels, woff, scratch x5, channels >> 1, channels & 1]
    acs[px * channels + j] = sum(col[px*kp + i] * w_j[i], i < kp)
with the packed weights of host_tools/quantize/pack.py, read in place: channel pairs,
for every 4 patch positions 4 bytes of the first channel then 4 of the
second, then the odd channel's row. Each patch byte is loaded once for both
channels of a pair (4 instructions per MAC instead of 5). Bytes unsigned, kp
a multiple of 4. Sums are below 2**31 (host_tools/quant_ref.check_viper_conv).
Writes only acs and ctl's scratch; returns 0 (a small int: nothing allocates).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython


@micropython.asm_thumb
def dots(r0, r1, r2, r3):
    # r0 patch bytes, r1 weight bytes, r2 int32 out, r3 ctl
    ldr(r4, [r3, 12])
    add(r1, r1, r4)
    str(r1, [r3, 28])  # first weight block of the group
    str(r0, [r3, 24])  # patch of the current pixel
    str(r2, [r3, 32])  # next output
    ldr(r4, [r3, 0])
    str(r4, [r3, 16])  # pixels left
    label(PIX)
    ldr(r1, [r3, 28])
    ldr(r4, [r3, 24])
    ldr(r7, [r3, 4])
    add(r4, r4, r7)  # end of this pixel's patch
    ldr(r7, [r3, 36])
    str(r7, [r3, 20])  # pairs left
    cmp(r7, 0)
    beq(ODD)
    label(PAIR)
    ldr(r6, [r3, 24])
    mov(r5, 0)
    mov(r2, 0)
    label(LOOP)
    ldrb(r7, [r6, 0])
    ldrb(r0, [r1, 0])
    mul(r0, r7)
    add(r5, r5, r0)
    ldrb(r0, [r1, 4])
    mul(r0, r7)
    add(r2, r2, r0)
    ldrb(r7, [r6, 1])
    ldrb(r0, [r1, 1])
    mul(r0, r7)
    add(r5, r5, r0)
    ldrb(r0, [r1, 5])
    mul(r0, r7)
    add(r2, r2, r0)
    ldrb(r7, [r6, 2])
    ldrb(r0, [r1, 2])
    mul(r0, r7)
    add(r5, r5, r0)
    ldrb(r0, [r1, 6])
    mul(r0, r7)
    add(r2, r2, r0)
    ldrb(r7, [r6, 3])
    ldrb(r0, [r1, 3])
    mul(r0, r7)
    add(r5, r5, r0)
    ldrb(r0, [r1, 7])
    mul(r0, r7)
    add(r2, r2, r0)
    add(r6, 4)
    add(r1, 8)
    cmp(r6, r4)
    blt(LOOP)
    ldr(r0, [r3, 32])
    str(r5, [r0, 0])
    str(r2, [r0, 4])
    add(r0, 8)
    str(r0, [r3, 32])
    ldr(r7, [r3, 20])
    sub(r7, 1)
    str(r7, [r3, 20])
    bgt(PAIR)
    label(ODD)
    ldr(r7, [r3, 40])
    cmp(r7, 0)
    beq(NEXT)
    ldr(r6, [r3, 24])
    mov(r5, 0)
    label(L1)
    ldrb(r7, [r6, 0])
    ldrb(r0, [r1, 0])
    mul(r7, r0)
    add(r5, r5, r7)
    ldrb(r7, [r6, 1])
    ldrb(r0, [r1, 1])
    mul(r7, r0)
    add(r5, r5, r7)
    ldrb(r7, [r6, 2])
    ldrb(r0, [r1, 2])
    mul(r7, r0)
    add(r5, r5, r7)
    ldrb(r7, [r6, 3])
    ldrb(r0, [r1, 3])
    mul(r7, r0)
    add(r5, r5, r7)
    add(r6, 4)
    add(r1, 4)
    cmp(r6, r4)
    blt(L1)
    ldr(r0, [r3, 32])
    str(r5, [r0, 0])
    add(r0, 4)
    str(r0, [r3, 32])
    label(NEXT)
    str(r4, [r3, 24])  # next pixel's patch follows
    ldr(r7, [r3, 16])
    sub(r7, 1)
    str(r7, [r3, 16])
    bgt(PIX)
    mov(r0, 0)
