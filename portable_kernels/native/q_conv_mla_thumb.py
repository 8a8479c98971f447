"""int8 convolution by output pixels on Thumb-2 (armv7-m and up: MLA), for
kernels 3 wide with stride 1 or 2 across, or 5 wide with stride 1
(native/q_conv_viper.py chooses it).

The im2col path (q_gather_thumb + the dots) copies every patch byte once per
output pixel: ~10 instructions per byte, paid once for all output channels,
so a convolution with few output channels (conv_autoencoder's last 8 -> 1,
lenet5's first 1 -> 6) spends most of its time gathering. Here nothing is
gathered: for each output row, each input row of the window is copied once
into a padded row (pad bytes zx), and for each output channel the row's kw
weights sit in registers while 4 output pixels' sums take every byte they
read (host_tools/codegen/conv_mla.py: ~1.7-2.2 instructions per
multiply-accumulate, whatever the channel counts).

With signed bytes x, w and padding bytes x = zx, the sum for one output
pixel is D = sum(x * w) + 128 * sum(w), so that the channel table's
C = bias - (128 + zx) * sum(w) gives C + D = bias + sum((x - zx) * w) and
q_requant_thumb.rows requantizes it with patch sums 0: the integers of
host_tools/quantize/ref.py. Per run the weights of cn output channels at a
time are written as signed bytes [c][ky][channel][kx] after the channels'
128 * sum(w) words (the "col" scratch: no more than the im2col path's row), the
sums are int32 [channel][pixel] rows of ow rounded up to 4 (the "acc" scratch).
Nothing allocates.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from mpy_et.port import const
from portable_kernels.util import scratch
from portable_kernels.util.emitters import DSP

# Thumb-2 only (MLA, LDRSB.W): the module goes only to those dists
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")
_ACC_WORDS = const(512)  # q_conv_viper's
# the most bytes of weights a pass keeps (the "col" scratch, RAM on the 224 KB board: resnet8's
# 32 -> 32 3x3 would take 4.4 KB for 15 channels a pass; 5 here, 1.5 KB, cost it 3% more
# instructions on cortex-m3 and left it 680 B inside its budget, against 120 B with 2 KB)
_WS_BYTES = const(1536)


def prepare(x, out, params, wt, geom, tail, kp, rq, fill_rq):
    """(step, ctx) of a convolution q_conv_viper.prepare chose for this module: one
    group, kernel 3 wide with stride 1 or 2 across or 5 wide with stride 1, no dilation across, at most 4
    padding columns, at most 30 kernel rows, kn + 4 <= ow * kp (load time)."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    owp = (ow + 3) & ~3
    kn = cpg * kh * kw
    cn = min(opg, max(1, _ACC_WORDS // owp), (ow * kp) // (kn + 4), max(1, _WS_BYTES // (kn + 4)))
    prow = (pw + w + 8 + 3) & ~3  # the padded row, room for restoring the right padding
    need = owp * sw + kw + 4
    if prow < need + 4:
        prow = (need + 4 + 3) & ~3
    variant = (0 if kw == 3 else 2) + (0 if sw == 1 else 1)  # host_tools/codegen/conv_mla.VARIANTS
    rows = rows_mla
    if DSP and sw == 1:
        from portable_kernels.native import q_conv_mla_dsp

        variant = 3 if kw == 3 else 4  # conv_mla.DSP_VARIANT, DSP5_VARIANT
        rows = q_conv_mla_dsp.rows_mla
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [kn, kp, cn, owp, prow, variant])
    ctx = (
        x.buf,
        out.buf,
        params,
        g,
        wt,
        scratch.rows("col", cn * (kn + 4)),
        scratch.rows("sx", owp),
        scratch.rows("acc", owp * cn),
        scratch.rows("qm ctl", 32),
        scratch.rows("qm rows", prow >> 1),  # the padded row, then the row of padding
        scratch.rows("qc rq", 16),
        rq,
        fill_rq,
        scratch.rows("qm wp", 9),
        rows,
    )
    return _step, ctx


def _step(ctx):
    g = ctx[3]
    rqa = ctx[10]
    ctx[12](rqa, g[4], g[17], g[16] * g[17], g[19] - 128, g[20] - 128, g[21] - 128)
    rqa[0] = 4
    rqa[15] = 4 * g[25]  # the sums of one channel: a row of owp words
    c = ctx[8]  # rows_mla's constant words (the addresses are _conv's)
    w = g[7]
    kh = g[8]
    dh = g[14]
    c[2] = g[5]
    c[3] = kh
    c[4] = dh * w
    c[5] = g[6] * w - kh * dh * w
    c[6] = (w + 3) & ~3
    c[13] = 4 * g[25]
    c[17] = g[27]
    wp = ctx[13]  # wprep's
    wp[3] = g[23]
    wp[4] = g[4] & ~1
    wp[5] = g[22]
    wp[6] = g[9]
    _conv(ctx[0], ctx[1], ctx[2], g, ctx[4], ctx[5], ctx[6], ctx[7], c, ctx[9], rqa, ctx[11], wp, ctx[14])


@micropython.viper
def _conv(xobj, oobj, pobj, gobj, wobj, wsobj, sxobj, accobj, ctlobj, rowsobj, rqobj, rq, wpobj, rowsfn):
    g = ptr32(gobj)
    c = ptr32(ctlobj)
    sx = ptr32(sxobj)
    wp = ptr32(wpobj)
    rc = ptr32(rqobj)
    rows = ptr8(rowsobj)
    owp = g[25]
    prow = g[26]
    for i in range(owp):
        sx[i] = 0
    zx = g[18] - 128
    for i in range(2 * prow):
        rows[i] = zx
    pr = int(rows)
    ws = int(ptr8(wsobj))
    c[7] = pr + g[13]
    c[8] = pr
    c[9] = pr + prow
    c[11] = int(ptr32(accobj))
    c[14] = (zx & 0xFF) * 0x01010101  # a viper int: no long int
    c[15] = ws
    c[18] = pr + g[13] + g[7]
    wp[0] = int(ptr8(wobj))
    wp[7] = ws
    n = g[2]
    opg = g[4]
    cpg = g[5]
    h = g[6]
    w = g[7]
    kh = g[8]
    oh = g[16]
    ow = g[17]
    xa = int(ptr8(xobj)) + g[0]
    table = int(ptr8(pobj))
    j0 = 0
    while j0 < opg:
        m = g[24]
        if m > opg - j0:
            m = opg - j0
        c[12] = m
        c[10] = ws + 4 * m
        wp[1] = j0
        wp[2] = m
        wp[8] = (m - 1) * g[9]
        wprep(wpobj)
        for b in range(n):
            for oy in range(oh):
                iy0 = oy * g[10] - g[12]
                c[0] = xa + b * cpg * h * w + iy0 * w
                mask = 0
                for ky in range(kh):
                    iy = iy0 + ky * g[14]
                    if iy >= 0 and iy < h:
                        mask |= 1 << ky
                c[1] = mask
                rowsfn(ctlobj)
                rc[4] = m
                rc[5] = table + j0 * 32
                rc[3] = g[1] + (b * opg + j0) * oh * ow + oy * ow
                rq(accobj, sxobj, oobj, rqobj)
        j0 += m


@micropython.asm_thumb
def wprep(r0):
    # wprep(wp): the block's weights as rows_mla reads them. wp (int32): [0] the packed
    # weights (uint8 w + 128, channel pairs interleaved 4 bytes at a time: quantize/pack.py),
    # [1] the block's first channel, [2] its channels m, [3] kp, [4] channels in pairs,
    # [5] kn, [6] kw, [7] where they go, [8] (m - 1) * kw. Writes m words 128 * sum(w), then
    # the signed bytes [c][ky][channel][kx]; ~14 instructions per weight. Returns 0.
    data(2, 0xB401)  # push {r0}
    data(2, 0xB084)  # sub sp, #16: [sp] (m - 1) * kw, [sp, 4] kw, [sp, 8] the stride past 4 bytes, [sp, 12] channel
    mov(r7, r0)
    ldr(r3, [r7, 32])
    data(2, 0x9300)  # str r3, [sp, 0]
    ldr(r3, [r7, 24])
    data(2, 0x9301)  # str r3, [sp, 4]
    mov(r3, 0)
    data(2, 0x9303)  # str r3, [sp, 12]
    label(CH)
    data(2, 0x9F04)  # ldr r7, [sp, 16]
    data(2, 0x9E03)  # ldr r6, [sp, 12]
    ldr(r3, [r7, 4])
    add(r3, r3, r6)  # the output channel
    ldr(r4, [r7, 12])
    mov(r0, r3)
    mul(r0, r4)  # its bytes at ch * kp,
    mov(r5, 0)
    ldr(r2, [r7, 16])
    cmp(r3, r2)
    bge(NOPAIR)
    mov(r5, 4)  # in a pair: 4 bytes, then 4 of the other channel's
    mov(r2, 1)
    and_(r2, r3)
    beq(NOPAIR)
    sub(r0, r0, r4)  # the pair's second: (ch - 1) * kp + 4
    add(r0, 4)
    label(NOPAIR)
    data(2, 0x9502)  # str r5, [sp, 8]
    ldr(r2, [r7, 0])
    add(r0, r0, r2)
    ldr(r1, [r7, 28])
    ldr(r2, [r7, 8])
    lsl(r2, r2, 2)
    add(r1, r1, r2)
    data(2, 0x9C01)  # ldr r4, [sp, 4]
    mov(r2, r6)
    mul(r2, r4)
    add(r1, r1, r2)  # its first kernel row's bytes
    mov(r2, 0)
    mov(r5, 4)
    ldr(r6, [r7, 20])
    label(P)
    ldrb(r3, [r0, 0])
    add(r0, 1)
    sub(r3, 128)
    add(r2, r2, r3)
    strb(r3, [r1, 0])
    add(r1, 1)
    sub(r4, 1)
    bne(NK)
    data(2, 0x9F00)  # ldr r7, [sp, 0]: the next kernel row's place
    add(r1, r1, r7)
    data(2, 0x9C01)  # ldr r4, [sp, 4]
    label(NK)
    sub(r5, 1)
    bne(NG)
    data(2, 0x9F02)  # ldr r7, [sp, 8]
    add(r0, r0, r7)
    mov(r5, 4)
    label(NG)
    sub(r6, 1)
    bne(P)
    lsl(r2, r2, 7)
    data(2, 0x9F04)  # ldr r7, [sp, 16]
    ldr(r1, [r7, 28])
    data(2, 0x9E03)  # ldr r6, [sp, 12]
    lsl(r3, r6, 2)
    add(r1, r1, r3)
    str(r2, [r1, 0])  # 128 * sum(w)
    add(r6, 1)
    data(2, 0x9603)  # str r6, [sp, 12]
    ldr(r3, [r7, 8])
    cmp(r6, r3)
    blt(CH)
    data(2, 0xB004)  # add sp, #16
    data(2, 0xBC01)  # pop {r0}
    mov(r0, 0)


@micropython.asm_thumb
def rows_mla(r0):
    # rows_mla(ctl): the sums of one output row for ctl[12] channels. ctl (int32): [0]
    # address of the window's first input row (channel 0), [1] the kernel rows inside the
    # input (bit ky), [2] input channels, [3] kernel rows, [4] bytes between kernel rows,
    # [5] from past the last kernel row to the next channel's first, [6] bytes copied per
    # row (w rounded up to 4), [7] where they go (padded row + pw), [8] the padded row,
    # [9] the row of padding, [10] the weight bytes, [11] the sums, [12] channels, [13]
    # bytes per channel's sums, [14] zx in every byte, [15] each channel's 128 * sum(w),
    # [17] the loop (host_tools/codegen/conv_mla.VARIANTS), [18] right after the copied
    # row; [19..21] scratch. Stack: [sp] the row the loops read, [sp, 4] ctl[13], [sp, 8]
    # the end of the sums, [sp, 16] ctl. Writes the sums, the padded row and ctl's
    # scratch; returns 0.
    # block conv_mla_rows: generated by host_tools/codegen/blocks.py
    data(2, 0xE92D, 0x0F01)  # push {r0, r8-r11}
    data(2, 0xB084)  # sub sp, #16
    mov(r3, r0)
    ldr(r0, [r3, 44])  # the sums start at each channel's 128 * sum(w)
    ldr(r1, [r3, 60])
    ldr(r2, [r3, 48])
    ldr(r4, [r3, 52])
    data(2, 0x9401)  # str r4, [sp, 4]
    label(INIT)
    ldr(r5, [r1, 0])
    add(r1, 4)
    mov(r8, r5)
    mov(r9, r5)
    mov(r10, r5)
    mov(r11, r5)
    add(r6, r0, r4)
    label(IL)
    data(2, 0xE8A0, 0x0F00)  # stm r0!, r8-r11
    cmp(r0, r6)
    blt(IL)
    sub(r2, 1)
    bgt(INIT)
    data(2, 0x9002)  # str r0, [sp, 8]
    ldr(r0, [r3, 40])
    mov(lr, r0)  # the weights, read in order by the loops
    ldr(r0, [r3, 0])
    str(r0, [r3, 84])  # this kernel row's input row
    ldr(r0, [r3, 8])
    str(r0, [r3, 76])  # input channels left
    label(CLOOP)
    mov(r0, 0)
    str(r0, [r3, 80])  # ky
    label(KYLOOP)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 4])
    ldr(r1, [r3, 80])
    lsr(r0, r1)
    mov(r2, 1)
    and_(r0, r2)
    beq(OUTSIDE)
    ldr(r0, [r3, 84])  # copy the input row into the padded row, 4 bytes at a time
    ldr(r1, [r3, 28])
    ldr(r2, [r3, 24])
    add(r2, r2, r1)
    label(CP)
    data(2, 0xF850, 0x4B04)  # ldr r4, [r0], #4
    data(2, 0xF841, 0x4B04)  # str r4, [r1], #4
    cmp(r1, r2)
    blt(CP)
    ldr(r1, [r3, 72])  # the right padding again (the copy wrote up to 3 bytes of it)
    ldr(r4, [r3, 56])
    str(r4, [r1, 0])
    str(r4, [r1, 4])
    ldr(r0, [r3, 32])
    b(ROWSRC)
    label(OUTSIDE)
    ldr(r0, [r3, 36])
    label(ROWSRC)
    data(2, 0x9000)  # str r0, [sp, 0]: the row the loops read
    ldr(r1, [r3, 44])  # the first channel's sums
    ldr(r5, [r3, 68])  # the loop
    cmp(r5, 0)
    bne(N31)
    b(V31)
    label(N31)
    cmp(r5, 1)
    bne(N32)
    b(V32)
    label(N32)
    cmp(r5, 2)
    bne(N51)
    b(V51)
    label(N51)
    b(JNEXT)
    label(JNEXT)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 84])  # the next kernel row
    ldr(r1, [r3, 16])
    add(r0, r0, r1)
    str(r0, [r3, 84])
    ldr(r0, [r3, 80])
    add(r0, 1)
    str(r0, [r3, 80])
    ldr(r1, [r3, 12])
    cmp(r0, r1)
    blt(KYLOOP)
    ldr(r0, [r3, 84])  # the next input channel
    ldr(r1, [r3, 20])
    add(r0, r0, r1)
    str(r0, [r3, 84])
    ldr(r0, [r3, 76])
    sub(r0, 1)
    str(r0, [r3, 76])
    bgt(MORE)
    b(DONE)
    label(MORE)
    b(CLOOP)
    label(V31)
    label(J31)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums
    add(r2, r2, r1)
    data(2, 0xF91E, 0x3B01)  # ldrsb r3, [lr], #1: weight kx = 0
    data(2, 0xF91E, 0x4B01)  # ldrsb r4, [lr], #1: weight kx = 1
    data(2, 0xF91E, 0x5B01)  # ldrsb r5, [lr], #1: weight kx = 2
    label(L31)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF990, 0xC000)  # ldrsb r12, [r0, 0]
    data(2, 0xFB03, 0x880C)  # mla r8, r3, r12, r8
    data(2, 0xF990, 0xC001)  # ldrsb r12, [r0, 1]
    data(2, 0xFB04, 0x880C)  # mla r8, r4, r12, r8
    data(2, 0xFB03, 0x990C)  # mla r9, r3, r12, r9
    data(2, 0xF990, 0xC002)  # ldrsb r12, [r0, 2]
    data(2, 0xFB05, 0x880C)  # mla r8, r5, r12, r8
    data(2, 0xFB04, 0x990C)  # mla r9, r4, r12, r9
    data(2, 0xFB03, 0xAA0C)  # mla r10, r3, r12, r10
    data(2, 0xF990, 0xC003)  # ldrsb r12, [r0, 3]
    data(2, 0xFB05, 0x990C)  # mla r9, r5, r12, r9
    data(2, 0xFB04, 0xAA0C)  # mla r10, r4, r12, r10
    data(2, 0xFB03, 0xBB0C)  # mla r11, r3, r12, r11
    data(2, 0xF990, 0xC004)  # ldrsb r12, [r0, 4]
    data(2, 0xFB05, 0xAA0C)  # mla r10, r5, r12, r10
    data(2, 0xFB04, 0xBB0C)  # mla r11, r4, r12, r11
    data(2, 0xF990, 0xC005)  # ldrsb r12, [r0, 5]
    data(2, 0xFB05, 0xBB0C)  # mla r11, r5, r12, r11
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    add(r0, 4)
    cmp(r1, r2)
    blt(L31)
    data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums
    cmp(r1, r3)
    blt(J31)
    b(JNEXT)
    label(V32)
    label(J32)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums
    add(r2, r2, r1)
    data(2, 0xF91E, 0x3B01)  # ldrsb r3, [lr], #1: weight kx = 0
    data(2, 0xF91E, 0x4B01)  # ldrsb r4, [lr], #1: weight kx = 1
    data(2, 0xF91E, 0x5B01)  # ldrsb r5, [lr], #1: weight kx = 2
    label(L32)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF990, 0xC000)  # ldrsb r12, [r0, 0]
    data(2, 0xFB03, 0x880C)  # mla r8, r3, r12, r8
    data(2, 0xF990, 0xC001)  # ldrsb r12, [r0, 1]
    data(2, 0xFB04, 0x880C)  # mla r8, r4, r12, r8
    data(2, 0xF990, 0xC002)  # ldrsb r12, [r0, 2]
    data(2, 0xFB05, 0x880C)  # mla r8, r5, r12, r8
    data(2, 0xFB03, 0x990C)  # mla r9, r3, r12, r9
    data(2, 0xF990, 0xC003)  # ldrsb r12, [r0, 3]
    data(2, 0xFB04, 0x990C)  # mla r9, r4, r12, r9
    data(2, 0xF990, 0xC004)  # ldrsb r12, [r0, 4]
    data(2, 0xFB05, 0x990C)  # mla r9, r5, r12, r9
    data(2, 0xFB03, 0xAA0C)  # mla r10, r3, r12, r10
    data(2, 0xF990, 0xC005)  # ldrsb r12, [r0, 5]
    data(2, 0xFB04, 0xAA0C)  # mla r10, r4, r12, r10
    data(2, 0xF990, 0xC006)  # ldrsb r12, [r0, 6]
    data(2, 0xFB05, 0xAA0C)  # mla r10, r5, r12, r10
    data(2, 0xFB03, 0xBB0C)  # mla r11, r3, r12, r11
    data(2, 0xF990, 0xC007)  # ldrsb r12, [r0, 7]
    data(2, 0xFB04, 0xBB0C)  # mla r11, r4, r12, r11
    data(2, 0xF990, 0xC008)  # ldrsb r12, [r0, 8]
    data(2, 0xFB05, 0xBB0C)  # mla r11, r5, r12, r11
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    add(r0, 8)
    cmp(r1, r2)
    blt(L32)
    data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums
    cmp(r1, r3)
    blt(J32)
    b(JNEXT)
    label(V51)
    label(J51)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums
    add(r2, r2, r1)
    data(2, 0xF91E, 0x3B01)  # ldrsb r3, [lr], #1: weight kx = 0
    data(2, 0xF91E, 0x4B01)  # ldrsb r4, [lr], #1: weight kx = 1
    data(2, 0xF91E, 0x5B01)  # ldrsb r5, [lr], #1: weight kx = 2
    data(2, 0xF91E, 0x6B01)  # ldrsb r6, [lr], #1: weight kx = 3
    data(2, 0xF91E, 0x7B01)  # ldrsb r7, [lr], #1: weight kx = 4
    label(L51)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF990, 0xC000)  # ldrsb r12, [r0, 0]
    data(2, 0xFB03, 0x880C)  # mla r8, r3, r12, r8
    data(2, 0xF990, 0xC001)  # ldrsb r12, [r0, 1]
    data(2, 0xFB04, 0x880C)  # mla r8, r4, r12, r8
    data(2, 0xFB03, 0x990C)  # mla r9, r3, r12, r9
    data(2, 0xF990, 0xC002)  # ldrsb r12, [r0, 2]
    data(2, 0xFB05, 0x880C)  # mla r8, r5, r12, r8
    data(2, 0xFB04, 0x990C)  # mla r9, r4, r12, r9
    data(2, 0xFB03, 0xAA0C)  # mla r10, r3, r12, r10
    data(2, 0xF990, 0xC003)  # ldrsb r12, [r0, 3]
    data(2, 0xFB06, 0x880C)  # mla r8, r6, r12, r8
    data(2, 0xFB05, 0x990C)  # mla r9, r5, r12, r9
    data(2, 0xFB04, 0xAA0C)  # mla r10, r4, r12, r10
    data(2, 0xFB03, 0xBB0C)  # mla r11, r3, r12, r11
    data(2, 0xF990, 0xC004)  # ldrsb r12, [r0, 4]
    data(2, 0xFB07, 0x880C)  # mla r8, r7, r12, r8
    data(2, 0xFB06, 0x990C)  # mla r9, r6, r12, r9
    data(2, 0xFB05, 0xAA0C)  # mla r10, r5, r12, r10
    data(2, 0xFB04, 0xBB0C)  # mla r11, r4, r12, r11
    data(2, 0xF990, 0xC005)  # ldrsb r12, [r0, 5]
    data(2, 0xFB07, 0x990C)  # mla r9, r7, r12, r9
    data(2, 0xFB06, 0xAA0C)  # mla r10, r6, r12, r10
    data(2, 0xFB05, 0xBB0C)  # mla r11, r5, r12, r11
    data(2, 0xF990, 0xC006)  # ldrsb r12, [r0, 6]
    data(2, 0xFB07, 0xAA0C)  # mla r10, r7, r12, r10
    data(2, 0xFB06, 0xBB0C)  # mla r11, r6, r12, r11
    data(2, 0xF990, 0xC007)  # ldrsb r12, [r0, 7]
    data(2, 0xFB07, 0xBB0C)  # mla r11, r7, r12, r11
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    add(r0, 4)
    cmp(r1, r2)
    blt(L51)
    data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums
    cmp(r1, r3)
    blt(J51)
    b(JNEXT)
    label(DONE)
    data(2, 0xB004)  # add sp, #16
    data(2, 0xE8BD, 0x0F01)  # pop {r0, r8-r11}
    mov(r0, 0)
    # end block conv_mla_rows


noalloc.mark(_step)
