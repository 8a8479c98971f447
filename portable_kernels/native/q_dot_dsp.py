"""Arm DSP-extension inner loop of the int8 convolution / linear
(native/q_conv_viper.py): imported only where the port's native code is
armv7e-m (emitters.DSP: Cortex-M4 / M7), in place of q_dot_thumb.dots.

dots(col, wt, acs, ctl) has q_dot_thumb.dots's arguments, results and ctl
words 0..10, plus ctl[11] = kp - 4 (-4 when the row has one pixel) and
ctl[12] (scratch). Two pixels and two output channels at a time: 4 patch
bytes of each pixel and 4 weight bytes of each channel are loaded as words
and split into halfword lanes by UXTB16 (bytes 0, 2 and bytes 1, 3), and
SMLAD adds two 16 x 16 products per instruction: 22 instructions per 16
multiply-accumulates. The bytes are unsigned (x + 128, w + 128: at most
255, so every lane is a non-negative signed halfword and a product at most
65025); the sums are q_dot_thumb's, below 2**31 (quantize/ref.check_viper_conv),
so the result is the same integer. An odd last pixel (or a row of one pixel)
runs alone by two channels (15 instructions per 8 multiply-accumulates, not
a pair's 24 with a repeated pixel: ds_cnn's 5-pixel rows); its odd channel
pairs the pixel with itself. UXTB16, SMLAD and the wide loads are
emitted with data(). Writes only acs and ctl's scratch; returns 0.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
import micropython

# Thumb-2 dists (host_tools/deploy/build_targets.march_list): whether the CPU has the DSP
# extension is read on the device (emitters.DSP; e.g. a Cortex-M33 under an armv7m dist)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")


@micropython.asm_thumb
def dots(r0, r1, r2, r3):
    # inner loop registers: r0 patch of pixel 0, r1 weights, r2 r3 r4 r5 the four sums
    # (pixel 0 / 1 x channel 0 / 1: r2 r3 / r4 r5), r6-r9 the pixels' lanes, r10 r11 the
    # weights' lanes, r12 end of pixel 0's patch, lr kp - 4 (pixel 1's bytes from r0 after
    # its post-increment); ctl at [sp]
    data(2, 0xE92D, 0x0F08)  # push {r3, r8-r11}
    ldr(r4, [r3, 12])
    add(r1, r1, r4)
    str(r1, [r3, 28])  # first weight block of the group
    str(r0, [r3, 24])  # patch of the pair's first pixel
    str(r2, [r3, 32])  # its dots
    ldr(r4, [r3, 0])
    str(r4, [r3, 16])  # pixels left
    ldr(r4, [r3, 44])
    mov(lr, r4)
    label(PIX)
    data(2, 0x9B00)  # ldr r3, [sp, 0]
    ldr(r5, [r3, 0])
    cmp(r5, 1)
    beq(ONE)
    ldr(r6, [r3, 8])
    lsl(r6, r6, 2)
    str(r6, [r3, 48])  # the second pixel's dots: one row of channels further
    ldr(r4, [r3, 16])
    cmp(r4, 1)
    bne(PAIRS)
    mov(r4, 0)  # one pixel left of several: alone (lr = -4 for the odd channel's loop)
    sub(r4, 4)
    mov(lr, r4)
    label(ONE)  # a lone pixel: ctl[12] = 0 (its dots written once)
    mov(r6, 0)
    str(r6, [r3, 48])
    label(PAIRS)
    ldr(r1, [r3, 28])
    ldr(r4, [r3, 36])
    str(r4, [r3, 20])  # channel pairs left
    cmp(r4, 0)
    beq(ODD)
    ldr(r4, [r3, 48])
    cmp(r4, 0)
    beq(LPAIR)
    label(PAIR)
    data(2, 0x9B00)  # ldr r3, [sp, 0]
    ldr(r0, [r3, 24])
    ldr(r4, [r3, 4])
    add(r4, r0, r4)
    mov(r12, r4)
    mov(r2, 0)
    mov(r3, 0)
    mov(r4, 0)
    mov(r5, 0)
    label(LOOP)
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: 4 bytes of pixel 0
    data(2, 0xF850, 0x800E)  # ldr r8, [r0, lr]: the same 4 of pixel 1
    data(2, 0xFA3F, 0xF796)  # uxtb16 r7, r6, ror #8
    data(2, 0xFA3F, 0xF686)  # uxtb16 r6, r6
    data(2, 0xFA3F, 0xF998)  # uxtb16 r9, r8, ror #8
    data(2, 0xFA3F, 0xF888)  # uxtb16 r8, r8
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4: channel 0
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x220A)  # smlad r2, r6, r10, r2
    data(2, 0xFB27, 0x220B)  # smlad r2, r7, r11, r2
    data(2, 0xFB28, 0x440A)  # smlad r4, r8, r10, r4
    data(2, 0xFB29, 0x440B)  # smlad r4, r9, r11, r4
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4: channel 1
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x330A)  # smlad r3, r6, r10, r3
    data(2, 0xFB27, 0x330B)  # smlad r3, r7, r11, r3
    data(2, 0xFB28, 0x550A)  # smlad r5, r8, r10, r5
    data(2, 0xFB29, 0x550B)  # smlad r5, r9, r11, r5
    data(2, 0x4560)  # cmp r0, r12
    blt(LOOP)
    data(2, 0x9E00)  # ldr r6, [sp, 0]
    ldr(r7, [r6, 32])
    ldr(r0, [r6, 48])
    str(r2, [r7, 0])
    str(r3, [r7, 4])
    add(r0, r7, r0)
    str(r4, [r0, 0])
    str(r5, [r0, 4])
    add(r7, 8)
    str(r7, [r6, 32])
    ldr(r7, [r6, 20])
    sub(r7, 1)
    str(r7, [r6, 20])
    bgt(PAIR)
    b(ODD)
    label(LPAIR)  # a lone pixel by two channels: 15 instructions per 8 multiply-accumulates
    data(2, 0x9B00)  # ldr r3, [sp, 0]
    ldr(r0, [r3, 24])
    ldr(r4, [r3, 4])
    add(r4, r0, r4)
    mov(r12, r4)
    mov(r2, 0)
    mov(r3, 0)
    label(LONE)
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: 4 bytes of the pixel
    data(2, 0xFA3F, 0xF796)  # uxtb16 r7, r6, ror #8
    data(2, 0xFA3F, 0xF686)  # uxtb16 r6, r6
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4: channel 0
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x220A)  # smlad r2, r6, r10, r2
    data(2, 0xFB27, 0x220B)  # smlad r2, r7, r11, r2
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4: channel 1
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x330A)  # smlad r3, r6, r10, r3
    data(2, 0xFB27, 0x330B)  # smlad r3, r7, r11, r3
    data(2, 0x4560)  # cmp r0, r12
    blt(LONE)
    data(2, 0x9E00)  # ldr r6, [sp, 0]
    ldr(r7, [r6, 32])
    str(r2, [r7, 0])
    str(r3, [r7, 4])
    add(r7, 8)
    str(r7, [r6, 32])
    ldr(r7, [r6, 20])
    sub(r7, 1)
    str(r7, [r6, 20])
    bgt(LPAIR)
    label(ODD)
    data(2, 0x9B00)  # ldr r3, [sp, 0]
    ldr(r4, [r3, 40])
    cmp(r4, 0)
    beq(NEXT)
    ldr(r0, [r3, 24])
    ldr(r4, [r3, 4])
    add(r4, r0, r4)
    mov(r12, r4)
    mov(r2, 0)
    mov(r4, 0)
    label(L1)
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4
    data(2, 0xF850, 0x800E)  # ldr r8, [r0, lr]
    data(2, 0xFA3F, 0xF796)  # uxtb16 r7, r6, ror #8
    data(2, 0xFA3F, 0xF686)  # uxtb16 r6, r6
    data(2, 0xFA3F, 0xF998)  # uxtb16 r9, r8, ror #8
    data(2, 0xFA3F, 0xF888)  # uxtb16 r8, r8
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4: the odd channel
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x220A)  # smlad r2, r6, r10, r2
    data(2, 0xFB27, 0x220B)  # smlad r2, r7, r11, r2
    data(2, 0xFB28, 0x440A)  # smlad r4, r8, r10, r4
    data(2, 0xFB29, 0x440B)  # smlad r4, r9, r11, r4
    data(2, 0x4560)  # cmp r0, r12
    blt(L1)
    data(2, 0x9B00)  # ldr r3, [sp, 0]
    ldr(r7, [r3, 32])
    ldr(r0, [r3, 48])
    str(r2, [r7, 0])
    add(r0, r7, r0)
    str(r4, [r0, 0])
    add(r7, 4)
    str(r7, [r3, 32])
    label(NEXT)
    ldr(r7, [r3, 32])  # past the second pixel's row of dots
    ldr(r0, [r3, 48])
    add(r7, r7, r0)
    str(r7, [r3, 32])
    ldr(r0, [r3, 24])
    ldr(r4, [r3, 4])
    lsl(r4, r4, 1)
    add(r0, r0, r4)
    str(r0, [r3, 24])
    ldr(r4, [r3, 16])
    sub(r4, 2)
    str(r4, [r3, 16])
    ble(DONE)
    b(PIX)  # beyond a conditional branch's reach
    label(DONE)
    data(2, 0xE8BD, 0x0F08)  # pop {r3, r8-r11}
    mov(r0, 0)
