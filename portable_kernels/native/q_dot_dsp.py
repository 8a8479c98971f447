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


_SHARED = []  # the gather of every step with shared control arrays


def expanding(gx, col, private):
    """q_gather_thumb's (tab, ctl, colrows, psums, gather, fill) with gather_x in place of
    its gather: the row gathered into col, then expanded into the step's col (dotsx's
    lanes). One tuple for all steps that share their control arrays (load time)."""
    if not private and _SHARED:
        return _SHARED[0]
    t = gx[:4] + (gather_x, gx[5], gx[4], col)
    if not private:
        _SHARED.append(t)
    return t


def gather_x(xobj, gobj, xcol, sxobj, plane, oy, gx):
    gx[6](xobj, gobj, gx[7], sxobj, plane, oy, gx)
    expand(gx[7], xcol, gx[1])


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


@micropython.asm_thumb
def expand(r0, r1, r2):
    # expand(col, xcol, ctl): the row's patch bytes (ctl[12] pixels of ctl[3] bytes, as the
    # gather writes them; ctl is q_gather_thumb's) as the halfword lanes UXTB16 makes of each word (bytes 0 2, then
    # 1 3), pixel pairs interleaved 4 bytes at a time (16 bytes per pair), an odd last pixel
    # alone (8 bytes per 4): dotsx's operand, expanded once per row instead of once per
    # channel pair. ~9 instructions per 8 bytes. Writes only xcol; returns 0.
    data(2, 0xE92D, 0x0300)  # push {r8, r9}
    ldr(r3, [r2, 12])  # kp
    ldr(r4, [r2, 48])  # pixels
    data(2, 0xF1A3, 0x0C04)  # sub.w r12, r3, #4: the second pixel's bytes from r0 after its post-increment
    label(EP)
    cmp(r4, 2)
    blt(ELONE)
    add(r5, r0, r3)
    label(EL)
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: 4 bytes of pixel 0
    data(2, 0xF850, 0x800C)  # ldr.w r8, [r0, r12]: the same 4 of pixel 1
    data(2, 0xFA3F, 0xF796)  # uxtb16 r7, r6, ror #8
    data(2, 0xFA3F, 0xF686)  # uxtb16 r6, r6
    data(2, 0xFA3F, 0xF998)  # uxtb16 r9, r8, ror #8
    data(2, 0xFA3F, 0xF888)  # uxtb16 r8, r8
    data(2, 0xE8A1, 0x03C0)  # stm r1!, {r6-r9}
    cmp(r0, r5)
    blt(EL)
    add(r0, r0, r3)  # past pixel 1
    sub(r4, 2)
    b(EP)
    label(ELONE)
    cmp(r4, 1)
    bne(EDONE)
    add(r5, r0, r3)
    label(EL1)
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4
    data(2, 0xFA3F, 0xF796)  # uxtb16 r7, r6, ror #8
    data(2, 0xFA3F, 0xF686)  # uxtb16 r6, r6
    data(2, 0xE8E1, 0x6702)  # strd r6, r7, [r1], #8
    cmp(r0, r5)
    blt(EL1)
    label(EDONE)
    data(2, 0xE8BD, 0x0300)  # pop {r8, r9}
    mov(r0, 0)


@micropython.asm_thumb
def dotsx(r0, r1, r2, r3):
    # dots() on expand()'s lanes: one LDM brings 4 bytes of both pixels, so 17 instructions
    # per 16 multiply-accumulates (dots' 22), 13 per 8 for a lone pixel (15), 10 per 8 for
    # an odd channel of a pair (15). Same sums, same ctl words (ctl[4], ctl[7] scratch).
    # Inner loop registers: r0 lanes, r1 weights, r2 r3 r4 r5 the four sums (pixel 0 / 1 x
    # channel 0 / 1: r2 r3 / r4 r5), r6-r9 the lanes, r10 r11 the weight's lanes, r12 end
    # of the block, lr the pixel's dots
    data(2, 0xE92D, 0x0F08)  # push {r3, r8-r11}: ctl at [sp, 16] once the locals are below it
    data(2, 0xB084)  # sub sp, #16: [sp] channel pairs left, [sp, 4] the block's first lane word, [sp, 8] its end, [sp, 12] 4 * channels
    ldr(r4, [r3, 12])
    add(r1, r1, r4)
    str(r1, [r3, 28])  # first weight block of the group
    data(2, 0x9001)  # str r0, [sp, #4]
    mov(lr, r2)  # dots of the current pixel
    ldr(r4, [r3, 0])
    str(r4, [r3, 16])  # pixels left
    ldr(r4, [r3, 8])
    lsl(r4, r4, 2)
    data(2, 0x9403)  # str r4, [sp, #12]: the second pixel's dots: one row of channels further
    label(PIX)
    data(2, 0x9B04)  # ldr r3, [sp, #16]
    ldr(r1, [r3, 28])
    ldr(r6, [r3, 36])
    data(2, 0x9600)  # str r6, [sp]
    ldr(r7, [r3, 4])
    data(2, 0x9801)  # ldr r0, [sp, #4]
    ldr(r6, [r3, 16])
    cmp(r6, 1)
    beq(LONE)
    data(2, 0xEB00, 0x0787)  # add.w r7, r0, r7, lsl #2: a pair's block: 4 * kp bytes
    data(2, 0x9702)  # str r7, [sp, #8]
    data(2, 0x9E00)  # ldr r6, [sp]
    cmp(r6, 0)
    beq(PODD)
    label(PAIR)
    data(2, 0xE9DD, 0x0C01)  # ldrd r0, r12, [sp, #4]
    mov(r2, 0)
    mov(r3, 0)
    mov(r4, 0)
    mov(r5, 0)
    label(LOOP)
    data(2, 0xE8B0, 0x03C0)  # ldm r0!, {r6-r9}: 4 bytes of both pixels, as halfword lanes (bytes 0 2, 1 3)
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
    data(2, 0x9E03)  # ldr r6, [sp, #12]
    data(2, 0xEB0E, 0x0706)  # add.w r7, lr, r6
    data(2, 0xE9C7, 0x4500)  # strd r4, r5, [r7]
    data(2, 0xE8EE, 0x2302)  # strd r2, r3, [lr], #8
    data(2, 0x9E00)  # ldr r6, [sp]
    data(2, 0x3E01)  # subs r6, #1
    data(2, 0x9600)  # str r6, [sp]
    bgt(PAIR)
    label(PODD)
    data(2, 0x9B04)  # ldr r3, [sp, #16]
    ldr(r6, [r3, 40])
    cmp(r6, 0)
    beq(PNEXT)
    data(2, 0xE9DD, 0x0C01)  # ldrd r0, r12, [sp, #4]
    mov(r2, 0)
    mov(r4, 0)
    label(L1)
    data(2, 0xE8B0, 0x03C0)  # ldm r0!, {r6-r9}
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4: the odd channel
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x220A)  # smlad r2, r6, r10, r2
    data(2, 0xFB27, 0x220B)  # smlad r2, r7, r11, r2
    data(2, 0xFB28, 0x440A)  # smlad r4, r8, r10, r4
    data(2, 0xFB29, 0x440B)  # smlad r4, r9, r11, r4
    data(2, 0x4560)  # cmp r0, r12
    blt(L1)
    data(2, 0x9E03)  # ldr r6, [sp, #12]
    data(2, 0xF84E, 0x4006)  # str.w r4, [lr, r6]
    data(2, 0xF84E, 0x2B04)  # str r2, [lr], #4
    label(PNEXT)
    data(2, 0x9E03)  # ldr r6, [sp, #12]
    data(2, 0x44B6)  # add lr, r6: past the second pixel's row of dots
    data(2, 0x9802)  # ldr r0, [sp, #8]
    data(2, 0x9001)  # str r0, [sp, #4]
    data(2, 0x9B04)  # ldr r3, [sp, #16]
    ldr(r6, [r3, 16])
    sub(r6, 2)
    str(r6, [r3, 16])
    ble(DONE)
    b(PIX)  # beyond a conditional branch's reach
    label(LONE)  # the last pixel alone: a block of 2 * kp bytes
    data(2, 0xEB00, 0x0747)  # add.w r7, r0, r7, lsl #1
    data(2, 0x9702)  # str r7, [sp, #8]
    data(2, 0x9E00)  # ldr r6, [sp]
    cmp(r6, 0)
    beq(LODD)
    label(LPAIR)
    data(2, 0xE9DD, 0x0C01)  # ldrd r0, r12, [sp, #4]
    mov(r2, 0)
    mov(r3, 0)
    label(LLOOP)
    data(2, 0xE8F0, 0x6702)  # ldrd r6, r7, [r0], #8
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x220A)  # smlad r2, r6, r10, r2
    data(2, 0xFB27, 0x220B)  # smlad r2, r7, r11, r2
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x330A)  # smlad r3, r6, r10, r3
    data(2, 0xFB27, 0x330B)  # smlad r3, r7, r11, r3
    data(2, 0x4560)  # cmp r0, r12
    blt(LLOOP)
    data(2, 0xE8EE, 0x2302)  # strd r2, r3, [lr], #8
    data(2, 0x9E00)  # ldr r6, [sp]
    data(2, 0x3E01)  # subs r6, #1
    data(2, 0x9600)  # str r6, [sp]
    bgt(LPAIR)
    label(LODD)
    data(2, 0x9B04)  # ldr r3, [sp, #16]
    ldr(r6, [r3, 40])
    cmp(r6, 0)
    beq(DONE)
    data(2, 0xE9DD, 0x0C01)  # ldrd r0, r12, [sp, #4]
    mov(r2, 0)
    label(L1L)
    data(2, 0xE8F0, 0x6702)  # ldrd r6, r7, [r0], #8
    data(2, 0xF851, 0xAB04)  # ldr r10, [r1], #4
    data(2, 0xFA3F, 0xFB9A)  # uxtb16 r11, r10, ror #8
    data(2, 0xFA3F, 0xFA8A)  # uxtb16 r10, r10
    data(2, 0xFB26, 0x220A)  # smlad r2, r6, r10, r2
    data(2, 0xFB27, 0x220B)  # smlad r2, r7, r11, r2
    data(2, 0x4560)  # cmp r0, r12
    blt(L1L)
    data(2, 0xF84E, 0x2B04)  # str r2, [lr], #4
    label(DONE)
    data(2, 0xB004)  # add sp, #16
    data(2, 0xE8BD, 0x0F08)  # pop {r3, r8-r11}
    mov(r0, 0)


@micropython.asm_thumb
def pwx(r0, r1, r2):
    # pwx(pctl, xcol, sxs): a pointwise convolution's (1x1, stride 1, no padding) pixels read
    # straight from the input planes, no gather: pctl = int32 [pixels, plane, channels x
    # plane, 0, address of channel 0 of the first pixel]; writes expand()'s lanes of the
    # pixels (channels 4 at a time: two halfword loads per pixel pair and channel pair,
    # PKHBT, x + 128 by EOR, UXTB16; ~21 instructions per 8 bytes) and each pixel's byte
    # sum (at most 512 channels: the halfword lanes do not carry out). Returns 0.
    data(2, 0xE92D, 0x0F00)  # push {r8-r11}
    data(2, 0xB084)  # sub sp, #16: [sp] the pair's first byte (channel 0), [sp, 4] its sums, [sp, 8] pixels left, [sp, 12] channels x plane
    ldr(r4, [r0, 16])
    data(2, 0x9400)  # str r4, [sp]
    data(2, 0x9201)  # str r2, [sp, #4]
    ldr(r4, [r0, 0])
    data(2, 0x9402)  # str r4, [sp, #8]
    ldr(r4, [r0, 8])
    data(2, 0x9403)  # str r4, [sp, #12]
    ldr(r2, [r0, 4])  # plane (bytes between channels)
    label(PAIRS)
    data(2, 0x9C02)  # ldr r4, [sp, #8]
    cmp(r4, 2)
    blt(PLONE)
    data(2, 0x9800)  # ldr r0, [sp]
    data(2, 0x9B03)  # ldr r3, [sp, #12]
    add(r3, r3, r0)
    data(2, 0xF04F, 0x0C00)  # mov.w r12, #0
    data(2, 0xF04F, 0x0E00)  # mov.w lr, #0
    label(PL)
    data(2, 0x8804)  # ldrh r4, [r0]: channel c of both pixels
    data(2, 0x5A85)  # ldrh r5, [r0, r2]: c + 1
    data(2, 0xEB00, 0x0042)  # add.w r0, r0, r2, lsl #1
    data(2, 0xF8B0, 0xA000)  # ldrh r10, [r0]: c + 2
    data(2, 0xF830, 0xB002)  # ldrh r11, [r0, r2]: c + 3
    data(2, 0xEB00, 0x0042)  # add.w r0, r0, r2, lsl #1
    data(2, 0xEAC4, 0x440A)  # pkhbt r4, r4, r10, lsl #16
    data(2, 0xEAC5, 0x450B)  # pkhbt r5, r5, r11, lsl #16
    data(2, 0xF084, 0x3480)  # eor r4, r4, #0x80808080: x + 128
    data(2, 0xF085, 0x3580)  # eor r5, r5, #0x80808080
    data(2, 0xFA3F, 0xF684)  # uxtb16 r6, r4: pixel 0: channels c, c + 2
    data(2, 0xFA3F, 0xF785)  # uxtb16 r7, r5: c + 1, c + 3
    data(2, 0xFA3F, 0xF894)  # uxtb16 r8, r4, ror #8: pixel 1
    data(2, 0xFA3F, 0xF995)  # uxtb16 r9, r5, ror #8
    data(2, 0xE8A1, 0x03C0)  # stm r1!, {r6-r9}
    data(2, 0xFA9C, 0xFC46)  # uadd16 r12, r12, r6: the sums in halfword lanes (at most 512 channels: no carry out)
    data(2, 0xFA9C, 0xFC47)  # uadd16 r12, r12, r7
    data(2, 0xFA9E, 0xFE48)  # uadd16 lr, lr, r8
    data(2, 0xFA9E, 0xFE49)  # uadd16 lr, lr, r9
    data(2, 0x4298)  # cmp r0, r3
    blt(PL)
    data(2, 0xFA1F, 0xF48C)  # uxth r4, r12
    data(2, 0xEB04, 0x441C)  # add.w r4, r4, r12, lsr #16
    data(2, 0xFA1F, 0xF58E)  # uxth r5, lr
    data(2, 0xEB05, 0x451E)  # add.w r5, r5, lr, lsr #16
    data(2, 0x9E01)  # ldr r6, [sp, #4]
    data(2, 0xE8E6, 0x4502)  # strd r4, r5, [r6], #8
    data(2, 0x9601)  # str r6, [sp, #4]
    data(2, 0x9800)  # ldr r0, [sp]
    add(r0, 2)
    data(2, 0x9000)  # str r0, [sp]
    data(2, 0x9C02)  # ldr r4, [sp, #8]
    sub(r4, 2)
    data(2, 0x9402)  # str r4, [sp, #8]
    b(PAIRS)
    label(PLONE)
    cmp(r4, 1)
    bne(PDONE)
    data(2, 0x9800)  # ldr r0, [sp]
    data(2, 0x9B03)  # ldr r3, [sp, #12]
    add(r3, r3, r0)
    data(2, 0xF04F, 0x0C00)  # mov.w r12, #0
    label(PL1)
    data(2, 0x7804)  # ldrb r4, [r0]
    data(2, 0x5C85)  # ldrb r5, [r0, r2]
    data(2, 0xEB00, 0x0042)  # add.w r0, r0, r2, lsl #1
    data(2, 0xF890, 0xA000)  # ldrb r10, [r0]
    data(2, 0xF810, 0xB002)  # ldrb r11, [r0, r2]
    data(2, 0xEB00, 0x0042)  # add.w r0, r0, r2, lsl #1
    data(2, 0xEA44, 0x460A)  # orr.w r6, r4, r10, lsl #16
    data(2, 0xEA45, 0x470B)  # orr.w r7, r5, r11, lsl #16
    data(2, 0xF086, 0x1680)  # eor r6, r6, #0x00800080
    data(2, 0xF087, 0x1780)  # eor r7, r7, #0x00800080
    data(2, 0xE8E1, 0x6702)  # strd r6, r7, [r1], #8
    data(2, 0xFA9C, 0xFC46)  # uadd16 r12, r12, r6
    data(2, 0xFA9C, 0xFC47)  # uadd16 r12, r12, r7
    data(2, 0x4298)  # cmp r0, r3
    blt(PL1)
    data(2, 0xFA1F, 0xF48C)  # uxth r4, r12
    data(2, 0xEB04, 0x441C)  # add.w r4, r4, r12, lsr #16
    data(2, 0x9E01)  # ldr r6, [sp, #4]
    str(r4, [r6, 0])
    label(PDONE)
    data(2, 0xB004)  # add sp, #16
    data(2, 0xE8BD, 0x0F00)  # pop {r8-r11}
    mov(r0, 0)
