"""Arm Thumb-2 step of the int8 3x3 depthwise convolution (dilation 1; used
by native/q_conv_viper.prepare where emitters.THUMB2): one assembler
function, called directly as the step (native/thumb_steps.py: no bytecode
frame, no viper driver, no call per channel plane), does every plane:

- the plane is copied, as it is (signed bytes), into the shared "col"
  scratch at a fixed row stride of 64 bytes, inside borders of the input
  zero point written once per call; a row is copied a word at a time (up
  to 3 bytes past it, mended by one word of border);
- the channel's 9 taps (the packed row's bytes - 128) sit in registers, and
  its constant is C' = C + 128 * sum(w) (the table's C is for x + 128);
- the dots of a row's output pixels, each requantized in one multiply and
  clamped to [lo, hi]:

      zo + requant(acc) = (hi32(acc * (M << (33 - s))) + 1 + 2 * zo) >> 1

  which is floor((acc * M + 2**(s-1)) / 2**s) + zo exactly (the low word
  only adds a fraction below the rounding bit). Without the DSP extension:
  a pair of pixels (stride x 1) from 12 byte loads and 18 MLA, a single one
  from 9 and 9. With it (Cortex-M4 / M7): a window row is one word, its
  SXTB16 lanes (b0, b2), (b1, b3) meet the taps (w0, w2) with SMLAD and w1
  with SMLABB / SMLATB, so a pair takes 3 loads and 12 multiplies, is
  clamped as two bytes at once (SSAT, SSUB8 / SEL) and stored as a
  halfword; a single pixel (stride x 2, a row's odd last) 3 loads and 6.

The +-L clamp of requant.requant is left out: prepare() takes this step
only where, for every channel, no accumulator can reach L, or +-L already
requantizes beyond hi / lo (as host_tools/quantize/ref.requant_params
chooses L: 257 or more), so that any accumulator beyond it saturates
either way. prepare() returns None (the caller keeps its other
step) when a channel's multiplier does not fit (s > 33 or M << (33 - s) >=
2**31) or a padded row does not fit 64 bytes. Bit-identical to
host_tools/quantize/ref.py. Does not allocate.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.native.thumb_steps import at
from portable_kernels.quantized.requant import requant
from portable_kernels.util import scratch
from portable_kernels.util.emitters import DSP

MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

_ROW = 64  # the padded plane's row stride (the window offsets below)
_MAX_DOT = 9 * 255 * 128  # |sum((x + 128) * w)| of a 3x3 window


def _fits(channels, c, zo, lo, hi):
    """The requantization of channel c in one multiply, without the +-L clamp."""
    d = channels.data
    e = 8 * c
    m, s, lim, cc = d[e + 1], d[e + 2], d[e + 3], d[e + 4]
    if m == 0:
        return True
    if s > 33 or m << (33 - s) >= 1 << 31:
        return False
    # no accumulator reaches L, or +-L itself already saturates to hi / lo
    return abs(cc) + _MAX_DOT <= lim or (zo + requant(lim, m, s, lim) > hi and zo + requant(-lim, m, s, lim) < lo)


def prepare(x, weight, channels, geom, tail, out):
    """(step, ctx), or None where this step does not apply (module docstring)."""
    n, ch, _, _, h, w, _, _, sh, sw, ph, pw, _, _, oh, ow = geom
    hp = h + 2 * ph
    if w + pw + 4 > _ROW or (ow - 1) * sw + 3 >= _ROW:
        return None
    zx, zo, lo, hi = tail[0] - 128, tail[1] - 128, tail[2] - 128, tail[3] - 128
    for c in range(ch):
        if not _fits(channels, c, zo, lo, hi):
            return None
    pad = (zx & 0xFF) * 0x01010101
    if pad >= 1 << 31:
        pad -= 1 << 32
    fill = (hp * _ROW) // 4 + 1
    # [0] x [4] weights [8] out [12] channel table [16] planes [20] channels [24] h [28] w
    # [32] first interior byte [36] from a row's end to the next row's first window (stride
    # y * 64 - ow * stride x) [40] stride x [44] oh * ow [48] ow [52] border
    # word [56] zo [60] lo [64] hi [68] border words [72] kp [76] 1: the DSP extension's
    # loops; scratch: [80] buffer [84] the next plane's input [88] its channel [92] planes
    # left; [96] pixels per row taken in pairs (stride x 1)
    ctl = array(
        "i",
        [at(x), at(weight), at(out), at(channels), n * ch, ch, h, w, ph * _ROW + pw, sh * _ROW - ow * sw, sw, oh * ow, ow]
        + [pad, zo, lo, hi]
        + [fill, weight.sizes[1], 1 if DSP else 0, 0, 0, 0, 0, ow & ~1 if sw == 1 else 0],
    )
    return dw3x3, (ctl, scratch.rows("col", 4 * fill), x.buf, weight.buf, out.buf, channels.buf)


@micropython.asm_thumb
def dw3x3(r0):
    # r0: the context's items ([0] the control words, [1] the "col" scratch). Stack words: [0], [4]
    # C' [8] 1 + 2 * zo [12] lo [16] hi [20] the end of the row's pairs [24] the control words
    # [28] the end of the plane's output [32] row to row [36] stride x [40] hi in bytes 0, 1
    # [44] the end of the output row [48] M << (33 - s) [52] pixels per row in pairs [56] ow
    ldr(r1, [r0, 4])
    ldr(r1, [r1, 12])  # the "col" scratch's bytes (read at every call: it may have grown)
    ldr(r0, [r0, 0])
    ldr(r0, [r0, 12])  # the control words
    data(2, 0xE92D, 0x0F00)  # push.w {r8, r9, r10, r11}
    data(2, 0xB090)  # sub sp, #64
    data(2, 0x9006)  # str r0, [sp, #24]
    str(r1, [r0, 80])
    ldr(r2, [r0, 52])
    ldr(r3, [r0, 68])
    label(FILL)  # the padded planes' borders: the whole buffer, once per call
    str(r2, [r1, 0])
    add(r1, 4)
    sub(r3, 1)
    bgt(FILL)
    ldr(r2, [r0, 56])
    add(r2, r2, r2)
    add(r2, 1)
    data(2, 0x9202)  # str r2, [sp, #8]: 1 + 2 * zo
    ldr(r2, [r0, 60])
    data(2, 0x9203)  # str r2, [sp, #12]: lo
    ldr(r2, [r0, 64])
    data(2, 0x9204)  # str r2, [sp, #16]: hi
    ldr(r2, [r0, 40])
    data(2, 0x9209)  # str r2, [sp, #36]: stride x
    ldr(r2, [r0, 36])
    data(2, 0x9208)  # str r2, [sp, #32]: from a row's end to the next row's first window
    ldr(r2, [r0, 96])
    data(2, 0x920D)  # str r2, [sp, #52]: pixels per row taken in pairs
    ldr(r2, [r0, 48])
    data(2, 0x920E)  # str r2, [sp, #56]: ow
    ldr(r2, [r0, 0])
    str(r2, [r0, 84])  # the next plane's input
    mov(r2, 0)
    str(r2, [r0, 88])  # its channel
    ldr(r2, [r0, 16])
    str(r2, [r0, 92])  # planes left
    ldr(r2, [r0, 8])
    mov(lr, r2)  # the next output byte
    label(PLANE)  # r0: the control words
    ldr(r1, [r0, 84])
    ldr(r2, [r0, 80])
    ldr(r3, [r0, 32])
    add(r2, r2, r3)  # the plane's first byte in the buffer
    ldr(r4, [r0, 24])  # rows left
    ldr(r6, [r0, 52])
    ldr(r7, [r0, 28])
    label(CROW)
    add(r5, r1, r7)  # the end of the input row
    mov(r3, r2)
    label(CWORD)  # whole words, up to 3 bytes past the row (the border word below mends them)
    data(2, 0xF851, 0x0B04)  # ldr r0, [r1], #4
    data(2, 0xF843, 0x0B04)  # str r0, [r3], #4
    cmp(r1, r5)
    blt(CWORD)
    data(2, 0x51D6)  # str r6, [r2, r7]: the right border again
    mov(r1, r5)
    add(r2, 64)
    sub(r4, 1)
    bgt(CROW)
    data(2, 0x9806)  # ldr r0, [sp, #24]
    str(r1, [r0, 84])
    ldr(r1, [r0, 88])
    ldr(r2, [r0, 72])
    mul(r1, r2)
    ldr(r2, [r0, 4])
    add(r1, r1, r2)  # the channel's packed taps (w + 128)
    ldrb(r2, [r1, 5])
    sub(r2, 128)
    mov(r8, r2)
    mov(r3, r2)
    ldrb(r2, [r1, 6])
    sub(r2, 128)
    mov(r9, r2)
    add(r3, r3, r2)
    ldrb(r2, [r1, 7])
    sub(r2, 128)
    mov(r10, r2)
    add(r3, r3, r2)
    ldrb(r2, [r1, 8])
    sub(r2, 128)
    mov(r11, r2)
    add(r3, r3, r2)
    mov(r12, r3)
    ldrb(r3, [r1, 0])
    sub(r3, 128)
    ldrb(r4, [r1, 1])
    sub(r4, 128)
    ldrb(r5, [r1, 2])
    sub(r5, 128)
    ldrb(r6, [r1, 3])
    sub(r6, 128)
    ldrb(r7, [r1, 4])
    sub(r7, 128)
    mov(r2, r12)
    add(r2, r2, r3)
    add(r2, r2, r4)
    add(r2, r2, r5)
    add(r2, r2, r6)
    add(r2, r2, r7)
    lsl(r2, r2, 7)  # 128 * sum(w)
    ldr(r1, [r0, 88])
    lsl(r1, r1, 5)
    ldr(r0, [r0, 12])
    add(r1, r1, r0)  # the channel's table entry
    ldr(r0, [r1, 16])
    add(r2, r2, r0)
    data(2, 0x9200)  # str r2, [sp]: C + 128 * sum(w): the signed bytes' constant
    data(2, 0x9201)  # str r2, [sp, #4]
    ldr(r2, [r1, 4])
    ldr(r0, [r1, 8])
    neg(r0, r0)
    add(r0, 33)
    lsl(r2, r0)
    mov(r12, r2)  # M << (33 - s)
    data(2, 0x920C)  # str r2, [sp, #48]
    data(2, 0x9806)  # ldr r0, [sp, #24]
    ldr(r1, [r0, 44])
    data(2, 0x4471)  # add r1, lr
    data(2, 0x9107)  # str r1, [sp, #28]: the end of the plane's output
    ldr(r1, [r0, 76])
    ldr(r0, [r0, 80])  # the first output row's first window
    cmp(r1, 0)
    bne(DSP)
    b(ROW)  # beyond a conditional branch's reach
    label(DSP)
    data(2, 0xEAC3, 0x4505)  # pkhbt r5, r3, r5, lsl #16: (w0, w2)
    data(2, 0xEAC4, 0x4307)  # pkhbt r3, r4, r7, lsl #16: (w1, w4)
    data(2, 0xEAC6, 0x4608)  # pkhbt r6, r6, r8, lsl #16: (w3, w5)
    data(2, 0xEAC9, 0x470B)  # pkhbt r7, r9, r11, lsl #16: (w6, w8)
    mov(r8, r3)
    mov(r9, r10)  # w7
    data(2, 0x9902)  # ldr r1, [sp, #8]
    mov(r10, r1)
    data(2, 0x9903)  # ldr r1, [sp, #12]
    data(2, 0xF361, 0x210F)  # bfi r1, r1, #8, #8
    mov(r11, r1)  # lo in bytes 0 and 1
    data(2, 0x9904)  # ldr r1, [sp, #16]
    data(2, 0xF361, 0x210F)  # bfi r1, r1, #8, #8
    data(2, 0x910A)  # str r1, [sp, #40]: hi in bytes 0 and 1
    label(DROW)  # the DSP extension: a window row's 4 bytes in one word
    data(2, 0x9A0D)  # ldr r2, [sp, #52]
    data(2, 0x4472)  # add r2, lr
    data(2, 0x9205)  # str r2, [sp, #20]: the end of the row's pairs
    data(2, 0x9A0E)  # ldr r2, [sp, #56]
    data(2, 0x4472)  # add r2, lr
    data(2, 0x920B)  # str r2, [sp, #44]: the end of the output row
    b(PTEST)
    label(PAIR)  # stride x 1: two output pixels from each word
    data(2, 0xE9DD, 0x3400)  # ldrd r3, r4, [sp]: both accumulators start at C'
    ldr(r2, [r0, 0])
    data(2, 0xFA2F, 0xF182)  # sxtb16 r1, r2: (b0, b2)
    data(2, 0xFA2F, 0xF292)  # sxtb16 r2, r2, ror #8: (b1, b3)
    data(2, 0xFB21, 0x3305)  # smlad r3, r1, r5, r3: pixel 0: b0 w0 + b2 w2
    data(2, 0xFB22, 0x4405)  # smlad r4, r2, r5, r4: pixel 1: b1 w0 + b3 w2
    data(2, 0xFB12, 0x3308)  # smlabb r3, r2, r8, r3: b1 w1
    data(2, 0xFB11, 0x4428)  # smlatb r4, r1, r8, r4: b2 w1
    ldr(r2, [r0, 64])
    data(2, 0xFA2F, 0xF182)  # sxtb16 r1, r2
    data(2, 0xFA2F, 0xF292)  # sxtb16 r2, r2, ror #8
    data(2, 0xFB21, 0x3306)  # smlad r3, r1, r6, r3
    data(2, 0xFB22, 0x4406)  # smlad r4, r2, r6, r4
    data(2, 0xFB12, 0x3318)  # smlabt r3, r2, r8, r3: b1 w4
    data(2, 0xFB11, 0x4438)  # smlatt r4, r1, r8, r4: b2 w4
    data(2, 0xF8D0, 0x2080)  # ldr.w r2, [r0, #128]
    data(2, 0xFA2F, 0xF182)  # sxtb16 r1, r2
    data(2, 0xFA2F, 0xF292)  # sxtb16 r2, r2, ror #8
    data(2, 0xFB21, 0x3307)  # smlad r3, r1, r7, r3
    data(2, 0xFB22, 0x4407)  # smlad r4, r2, r7, r4
    data(2, 0xFB12, 0x3309)  # smlabb r3, r2, r9, r3: b1 w7
    data(2, 0xFB11, 0x4429)  # smlatb r4, r1, r9, r4: b2 w7
    data(2, 0xFB83, 0x120C)  # smull r1, r2, r3, r12
    data(2, 0x4452)  # add r2, r10
    asr(r2, r2, 1)
    data(2, 0xFB84, 0x130C)  # smull r1, r3, r4, r12
    data(2, 0x4453)  # add r3, r10
    asr(r3, r3, 1)
    data(2, 0xF302, 0x0207)  # ssat r2, #8, r2
    data(2, 0xF303, 0x0307)  # ssat r3, #8, r3
    data(2, 0xF363, 0x220F)  # bfi r2, r3, #8, #8: the pair as bytes 0 and 1, clamped to [lo, hi] both at once
    data(2, 0xFAC2, 0xF10B)  # ssub8 r1, r2, r11
    data(2, 0xFAA2, 0xF28B)  # sel r2, r2, r11
    data(2, 0x990A)  # ldr r1, [sp, #40]
    data(2, 0xFAC2, 0xF301)  # ssub8 r3, r2, r1
    data(2, 0xFAA1, 0xF282)  # sel r2, r1, r2
    data(2, 0xF82E, 0x2B02)  # strh r2, [lr], #2
    add(r0, 2)
    label(PTEST)
    data(2, 0x9905)  # ldr r1, [sp, #20]
    data(2, 0x458E)  # cmp lr, r1
    blt(PAIR)
    b(STEST)
    label(SINGLE)  # one output pixel (stride x > 1, or a row's odd last)
    data(2, 0x9B00)  # ldr r3, [sp]
    ldr(r2, [r0, 0])
    data(2, 0xFA2F, 0xF182)  # sxtb16 r1, r2
    data(2, 0xFA2F, 0xF292)  # sxtb16 r2, r2, ror #8
    data(2, 0xFB21, 0x3305)  # smlad r3, r1, r5, r3
    data(2, 0xFB12, 0x3308)  # smlabb r3, r2, r8, r3
    ldr(r2, [r0, 64])
    data(2, 0xFA2F, 0xF182)  # sxtb16 r1, r2
    data(2, 0xFA2F, 0xF292)  # sxtb16 r2, r2, ror #8
    data(2, 0xFB21, 0x3306)  # smlad r3, r1, r6, r3
    data(2, 0xFB12, 0x3318)  # smlabt r3, r2, r8, r3
    data(2, 0xF8D0, 0x2080)  # ldr.w r2, [r0, #128]
    data(2, 0xFA2F, 0xF182)  # sxtb16 r1, r2
    data(2, 0xFA2F, 0xF292)  # sxtb16 r2, r2, ror #8
    data(2, 0xFB21, 0x3307)  # smlad r3, r1, r7, r3
    data(2, 0xFB12, 0x3309)  # smlabb r3, r2, r9, r3
    data(2, 0xFB83, 0x120C)  # smull r1, r2, r3, r12
    data(2, 0x4452)  # add r2, r10
    asr(r2, r2, 1)
    data(2, 0xF302, 0x0207)  # ssat r2, #8, r2
    data(2, 0xFAC2, 0xF10B)  # ssub8 r1, r2, r11
    data(2, 0xFAA2, 0xF28B)  # sel r2, r2, r11
    data(2, 0x990A)  # ldr r1, [sp, #40]
    data(2, 0xFAC2, 0xF301)  # ssub8 r3, r2, r1
    data(2, 0xFAA1, 0xF282)  # sel r2, r1, r2
    data(2, 0xF80E, 0x2B01)  # strb r2, [lr], #1
    data(2, 0x9909)  # ldr r1, [sp, #36]
    add(r0, r0, r1)
    label(STEST)
    data(2, 0x990B)  # ldr r1, [sp, #44]
    data(2, 0x458E)  # cmp lr, r1
    blt(SINGLE)
    data(2, 0x9908)  # ldr r1, [sp, #32]
    add(r0, r0, r1)  # the next row's first window
    data(2, 0x9907)  # ldr r1, [sp, #28]
    data(2, 0x458E)  # cmp lr, r1
    blt(DAGAIN)
    b(PLANEEND)
    label(DAGAIN)
    b(DROW)
    label(ROW)
    data(2, 0x9A0D)  # ldr r2, [sp, #52]
    data(2, 0x4472)  # add r2, lr
    data(2, 0x9205)  # str r2, [sp, #20]: the end of the row's pairs
    data(2, 0x9A0E)  # ldr r2, [sp, #56]
    data(2, 0x4472)  # add r2, lr
    data(2, 0x920B)  # str r2, [sp, #44]: the end of the output row
    label(MPAIR)  # stride x 1: two output pixels, 12 byte loads (r12: the second's accumulator)
    data(2, 0x9905)  # ldr r1, [sp, #20]
    data(2, 0x458E)  # cmp lr, r1
    bge(MPEND)
    data(2, 0x9A00)  # ldr r2, [sp]
    mov(r12, r2)
    data(2, 0xF990, 0x1000)  # ldrsb.w r1, [r0]
    data(2, 0xFB01, 0x2203)  # mla r2, r1, r3, r2
    data(2, 0xF990, 0x1001)  # ldrsb.w r1, [r0, #1]
    data(2, 0xFB01, 0x2204)  # mla r2, r1, r4, r2
    data(2, 0xFB01, 0xCC03)  # mla r12, r1, r3, r12
    data(2, 0xF990, 0x1002)  # ldrsb.w r1, [r0, #2]
    data(2, 0xFB01, 0x2205)  # mla r2, r1, r5, r2
    data(2, 0xFB01, 0xCC04)  # mla r12, r1, r4, r12
    data(2, 0xF990, 0x1003)  # ldrsb.w r1, [r0, #3]
    data(2, 0xFB01, 0xCC05)  # mla r12, r1, r5, r12
    data(2, 0xF990, 0x1040)  # ldrsb.w r1, [r0, #64]
    data(2, 0xFB01, 0x2206)  # mla r2, r1, r6, r2
    data(2, 0xF990, 0x1041)  # ldrsb.w r1, [r0, #65]
    data(2, 0xFB01, 0x2207)  # mla r2, r1, r7, r2
    data(2, 0xFB01, 0xCC06)  # mla r12, r1, r6, r12
    data(2, 0xF990, 0x1042)  # ldrsb.w r1, [r0, #66]
    data(2, 0xFB01, 0x2208)  # mla r2, r1, r8, r2
    data(2, 0xFB01, 0xCC07)  # mla r12, r1, r7, r12
    data(2, 0xF990, 0x1043)  # ldrsb.w r1, [r0, #67]
    data(2, 0xFB01, 0xCC08)  # mla r12, r1, r8, r12
    data(2, 0xF990, 0x1080)  # ldrsb.w r1, [r0, #128]
    data(2, 0xFB01, 0x2209)  # mla r2, r1, r9, r2
    data(2, 0xF990, 0x1081)  # ldrsb.w r1, [r0, #129]
    data(2, 0xFB01, 0x220A)  # mla r2, r1, r10, r2
    data(2, 0xFB01, 0xCC09)  # mla r12, r1, r9, r12
    data(2, 0xF990, 0x1082)  # ldrsb.w r1, [r0, #130]
    data(2, 0xFB01, 0x220B)  # mla r2, r1, r11, r2
    data(2, 0xFB01, 0xCC0A)  # mla r12, r1, r10, r12
    data(2, 0xF990, 0x1083)  # ldrsb.w r1, [r0, #131]
    data(2, 0xFB01, 0xCC0B)  # mla r12, r1, r11, r12
    data(2, 0x990C)  # ldr r1, [sp, #48]
    data(2, 0xFB82, 0x1201)  # smull r1, r2, r2, r1
    data(2, 0x9902)  # ldr r1, [sp, #8]
    add(r2, r2, r1)
    asr(r2, r2, 1)
    data(2, 0x990C)  # ldr r1, [sp, #48]
    data(2, 0xFB8C, 0x1C01)  # smull r1, r12, r12, r1
    data(2, 0x9902)  # ldr r1, [sp, #8]
    data(2, 0x448C)  # add r12, r1
    data(2, 0xEA4F, 0x0C6C)  # asr.w r12, r12, #1
    data(2, 0x9903)  # ldr r1, [sp, #12]
    cmp(r2, r1)
    data(2, 0xBFB8)  # it lt
    data(2, 0x460A)  # movlt r2, r1
    data(2, 0x458C)  # cmp r12, r1
    data(2, 0xBFB8)  # it lt
    data(2, 0x468C)  # movlt r12, r1
    data(2, 0x9904)  # ldr r1, [sp, #16]
    cmp(r2, r1)
    data(2, 0xBFC8)  # it gt
    data(2, 0x460A)  # movgt r2, r1
    data(2, 0x458C)  # cmp r12, r1
    data(2, 0xBFC8)  # it gt
    data(2, 0x468C)  # movgt r12, r1
    data(2, 0xF80E, 0x2B01)  # strb r2, [lr], #1
    data(2, 0xF80E, 0xCB01)  # strb r12, [lr], #1
    add(r0, 2)
    b(MPAIR)
    label(MPEND)
    data(2, 0x990C)  # ldr r1, [sp, #48]
    mov(r12, r1)
    b(STEST1)
    label(PIX)
    data(2, 0x9A00)  # ldr r2, [sp]
    data(2, 0xF990, 0x1000)  # ldrsb.w r1, [r0]
    data(2, 0xFB01, 0x2203)  # mla r2, r1, r3, r2
    data(2, 0xF990, 0x1001)  # ldrsb.w r1, [r0, #1]
    data(2, 0xFB01, 0x2204)  # mla r2, r1, r4, r2
    data(2, 0xF990, 0x1002)  # ldrsb.w r1, [r0, #2]
    data(2, 0xFB01, 0x2205)  # mla r2, r1, r5, r2
    data(2, 0xF990, 0x1040)  # ldrsb.w r1, [r0, #64]
    data(2, 0xFB01, 0x2206)  # mla r2, r1, r6, r2
    data(2, 0xF990, 0x1041)  # ldrsb.w r1, [r0, #65]
    data(2, 0xFB01, 0x2207)  # mla r2, r1, r7, r2
    data(2, 0xF990, 0x1042)  # ldrsb.w r1, [r0, #66]
    data(2, 0xFB01, 0x2208)  # mla r2, r1, r8, r2
    data(2, 0xF990, 0x1080)  # ldrsb.w r1, [r0, #128]
    data(2, 0xFB01, 0x2209)  # mla r2, r1, r9, r2
    data(2, 0xF990, 0x1081)  # ldrsb.w r1, [r0, #129]
    data(2, 0xFB01, 0x220A)  # mla r2, r1, r10, r2
    data(2, 0xF990, 0x1082)  # ldrsb.w r1, [r0, #130]
    data(2, 0xFB01, 0x220B)  # mla r2, r1, r11, r2
    data(2, 0xFB82, 0x120C)  # smull r1, r2, r2, r12: acc * M << (33 - s): the high word
    data(2, 0x9902)  # ldr r1, [sp, #8]
    add(r2, r2, r1)
    asr(r2, r2, 1)  # zo + requant(acc)
    data(2, 0x9903)  # ldr r1, [sp, #12]
    cmp(r2, r1)
    data(2, 0xBFB8)  # it lt
    data(2, 0x460A)  # movlt r2, r1
    data(2, 0x9904)  # ldr r1, [sp, #16]
    cmp(r2, r1)
    data(2, 0xBFC8)  # it gt
    data(2, 0x460A)  # movgt r2, r1
    data(2, 0xF80E, 0x2B01)  # strb r2, [lr], #1
    data(2, 0x9909)  # ldr r1, [sp, #36]
    add(r0, r0, r1)
    label(STEST1)
    data(2, 0x990B)  # ldr r1, [sp, #44]
    data(2, 0x458E)  # cmp lr, r1
    blt(PIX)
    data(2, 0x9908)  # ldr r1, [sp, #32]
    add(r0, r0, r1)  # the next row's first window
    data(2, 0x9907)  # ldr r1, [sp, #28]
    data(2, 0x458E)  # cmp lr, r1
    bge(PLANEEND)
    b(ROW)
    label(PLANEEND)
    data(2, 0x9806)  # ldr r0, [sp, #24]
    ldr(r1, [r0, 88])
    add(r1, 1)
    ldr(r2, [r0, 20])
    cmp(r1, r2)
    blt(NEXT)
    mov(r1, 0)
    label(NEXT)
    str(r1, [r0, 88])  # the next plane's channel
    ldr(r1, [r0, 92])
    sub(r1, 1)
    str(r1, [r0, 92])
    ble(DONE)
    b(PLANE)
    label(DONE)
    data(2, 0xB010)  # add sp, #64
    data(2, 0xE8BD, 0x0F00)  # pop.w {r8, r9, r10, r11}
    mov(r0, 0)


noalloc.mark(dw3x3)
