"""rows_mla of native/q_conv_mla_thumb.py with one more loop, for the DSP extension
(emitters.DSP: Cortex-M4 / M7): a 3-wide kernel with stride 1 across takes SXTB16 lanes and
SMLAD / SMLABB / SMLATB, 17 instructions per 12 multiply-accumulates instead of MLA's 23
(host_tools/codegen/conv_mla.py writes both kernels). A module of its own: native code is
copied to RAM at import, and ports without DSP import only q_conv_mla_thumb's.

rows_oc goes by output pixels and channels (3-wide kernels, stride 1 or 2 across: takes):
the lanes of 4 pixels serve every output channel, whose two weight words (written from the
packed weights by native/q_oc_weights_dsp.expand at the start of every run into one scratch
buffer shared by all steps: no copy kept per layer) and 4 sums are one LDM each: 13 instructions per 12 multiply-accumulates at stride 1
(ARCHITECTURE.md). prepare writes its control words at load; each run gives it a band of
output rows per call and q_requant_thumb.rows the band's sums. Nothing allocates at run time.
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

from mpy_et import noalloc
from mpy_et.port import const
from portable_kernels.util import scratch

# Thumb-2 dists (as native/q_dot_dsp.py: whether the CPU has the DSP extension is read on the device)
MARCH = ("armv7m", "armv7em", "armv7emsp", "armv7emdp")

OC_VARIANT = const(5)  # host_tools/codegen/conv_mla.OC_VARIANT: stride 1, the next stride 2
_OC_SUMS = const(512)  # the most sums of one output row (q_conv_viper's _ACC_WORDS)
_OC_WORDS = const(4096)  # the most weight words of a convolution (the shared scratch: 16 KB at most)
_OC_BAND = const(512)  # the most [channel][pixel] sums of a band of rows (2 KB)


def takes(geom):
    """Whether rows_oc takes a convolution (load time): one group, a 3-wide kernel, no
    dilation across, at most 4 padding columns and 30 kernel rows (rows_mla's driver), stride
    2 across, or stride 1 with 4 or more output channels or one (its loop carries the lanes
    from pixel to pixel; 2 or 3 keep rows_mla's), every output channel in one pass."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    if groups != 1 or kw != 3 or dw != 1 or pw > 4 or kh > 30 or not (sw == 2 or (sw == 1 and (opg >= 4 or opg == 1))):
        return False
    return ((ow + 3) & ~3) * opg <= _OC_SUMS and opg * (1 + 2 * cpg * kh) <= _OC_WORDS


def prepare(x, out, params, wt, geom, tail, kp, rq, fill_rq):
    """(step, ctx) of a convolution rows_oc takes, None for any other (load time; called by
    native/q_conv_viper.prepare): rows_oc's control words and the requantization's, but for
    the scratch's addresses, are written here; each run gives rows_oc a band of output rows at
    a time, then q_requant_thumb.rows (rq) the band."""
    if not takes(geom):
        return None
    from portable_kernels.native import q_oc_weights_dsp
    from portable_kernels.native.thumb_steps import address

    if address(wt) & 3:  # expand's word loads (a .pte constant is 16-aligned; a caller's buffer may not be)
        return None
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    owp = (ow + 3) & ~3
    band = max(1, min(oh, (_OC_BAND // opg - 4) // ow))
    cs = 4 * (band * ow + 4)  # a channel's sums: the band's pixels, the last row's group spilling over
    prow = (pw + w + 8 + 3) & ~3  # the padded row, room for restoring the right padding
    need = owp * sw + kw + 4
    if prow < need + 4:
        prow = (need + 4 + 3) & ~3
    zx = tail[0] - 128
    c = array("i", bytearray(4 * 32))
    loop = OC_VARIANT + sw - 1  # host_tools/codegen/conv_mla.OC_VARIANT and the next four
    if opg == 1 and sw == 1:
        loop = OC_VARIANT + 2
    elif opg & 1 == 0:
        loop += 3
    whole = owp >> 2  # groups of 4 pixels; at stride 1 with channel pairs, the last 2 pixels on their own
    if loop == OC_VARIANT + 3 and ow > 4 and 1 <= ow & 3 <= 2:
        whole = ow >> 2
    z = zx & 0xFF
    words = ((1, h), (2, cpg), (3, kh), (4, dh * w), (5, h * w - kh * dh * w), (6, (w + 3) & ~3), (12, opg), (13, cs))
    words += ((14, z | z << 8 | z << 16 | (z if z < 128 else z - 256) << 24), (17, loop))
    for i, v in words + ((26, sh * w), (27, sh), (28, dh), (29, 4 * ow)):
        c[i] = v
    rqa = array("i", bytearray(4 * 16))
    fill_rq(rqa, opg, ow, oh * ow, tail[1] - 128, tail[2] - 128, tail[3] - 128)
    rqa[0] = 4
    rqa[15] = cs
    rqa[4] = opg
    g = array("i", [x.offset, out.offset, n, band, ow, oh, opg, cpg, h, w, sh, ph, pw, prow, zx, owp, whole])
    ctx = (
        x.buf,
        out.buf,
        params,
        g,
        scratch.rows("oc w", opg * (1 + 2 * cpg * kh)),  # the weight words, written by every run
        c,
        rqa,
        rq,
        scratch.rows("sx", band * ow),
        scratch.rows("acc", opg * (band * ow + 4) + owp * opg),
        scratch.rows("qm rows", prow >> 1),  # the padded row, then the row of padding
        wt,
        q_oc_weights_dsp.control(opg, cpg, kh, kp),
        q_oc_weights_dsp.expand,
    )
    return _step_oc, ctx


def _step_oc(ctx):
    ctx[13](ctx[11], ctx[4], ctx[12])  # the weight words into the shared scratch (q_oc_weights_dsp)
    _conv_oc(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5], ctx[6], ctx[7], ctx[8], ctx[9], ctx[10])


@micropython.viper
def _conv_oc(xobj, oobj, pobj, gobj, wsobj, cobj, rqobj, rq, sxobj, accobj, rowsobj):
    # objects, not pointers, are passed on: a pointer argument would be boxed as an int
    g = ptr32(gobj)
    c = ptr32(cobj)
    rc = ptr32(rqobj)
    sx = ptr32(sxobj)
    rows = ptr8(rowsobj)
    n = g[2]
    band = g[3]
    ow = g[4]
    oh = g[5]
    opg = g[6]
    h = g[8]
    w = g[9]
    prow = g[13]
    for i in range(band * ow):
        sx[i] = 0
    zx = g[14]
    for i in range(2 * prow):
        rows[i] = zx
    pr = int(rows)
    c[7] = pr + g[12]
    c[8] = pr
    c[9] = pr + prow
    c[18] = pr + g[12] + w
    ws = int(ptr8(wsobj))
    c[15] = ws
    c[10] = ws + 4 * opg
    acc = int(ptr8(accobj))
    c[22] = acc + opg * c[13]
    c[23] = c[22] + 4 * opg * g[15]
    c[30] = c[22] + 16 * opg * g[16]
    rc[5] = int(ptr8(pobj))
    xa = int(ptr8(xobj)) + g[0]
    for b in range(n):
        oy = 0
        while oy < oh:
            r = band
            if r > oh - oy:
                r = oh - oy
            iy = oy * g[10] - g[11]
            c[0] = xa + (b * g[7] * h + iy) * w
            c[16] = iy
            c[24] = r
            c[11] = acc
            rows_oc(cobj)
            rc[1] = r * ow
            rc[3] = g[1] + (b * opg * oh + oy) * ow
            rq(accobj, sxobj, oobj, rqobj)
            oy += r


@micropython.asm_thumb
def rows_mla(r0):
    # q_conv_mla_thumb.rows_mla's ctl, stack and results; ctl[17] may also be
    # conv_mla.DSP_VARIANT. [sp, 12] holds the weights' pointer in the DSP loop.
    # block conv_mla_rows_dsp: generated by host_tools/codegen/blocks.py
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
    cmp(r5, 3)
    bne(ND)
    b(VD)
    label(ND)
    cmp(r5, 4)
    bne(NE)
    b(VE)
    label(NE)
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
    label(VD)
    data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the weights' pointer (lr holds lanes here)
    label(JD)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums
    add(r2, r2, r1)
    data(2, 0xF8DD, 0xC00C)  # ldr r12, [sp, 12]
    data(2, 0xF91C, 0x3B01)  # ldrsb r3, [r12], #1: w0
    data(2, 0xF91C, 0x5B01)  # ldrsb r5, [r12], #1: w1
    data(2, 0xF91C, 0x4B01)  # ldrsb r4, [r12], #1: w2
    data(2, 0xF8CD, 0xC00C)  # str r12, [sp, 12]
    data(2, 0xEAC4, 0x4603)  # pkhbt r6, r4, r3, lsl #16: (w2, w0)
    data(2, 0xEAC3, 0x4304)  # pkhbt r3, r3, r4, lsl #16: (w0, w2)
    mov(r4, r6)
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    label(LD)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF850, 0xCB04)  # ldr r12, [r0], #4: the next 4 bytes
    data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8805)  # smlabb r8, r7, r5, r8: + x1 w1
    data(2, 0xFB27, 0x9903)  # smlad r9, r7, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB16, 0x9925)  # smlatb r9, r6, r5, r9: + x2 w1
    data(2, 0xEACC, 0x0606)  # pkhbt r6, r12, r6: (x4, x2)
    data(2, 0xFB26, 0xAA04)  # smlad r10, r6, r4, r10: x4 w2 + x2 w0
    data(2, 0xFB17, 0xAA25)  # smlatb r10, r7, r5, r10: + x3 w1
    data(2, 0xEACE, 0x0707)  # pkhbt r7, lr, r7: (x5, x3)
    data(2, 0xFB27, 0xBB04)  # smlad r11, r7, r4, r11: x5 w2 + x3 w0
    data(2, 0xFB1C, 0xBB05)  # smlabb r11, r12, r5, r11: + x4 w1
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r1, r2)
    bge(XD)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: the next 4 bytes
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x4, x6)
    data(2, 0xFB2C, 0x8803)  # smlad r8, r12, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB1E, 0x8805)  # smlabb r8, lr, r5, r8: + x1 w1
    data(2, 0xFB2E, 0x9903)  # smlad r9, lr, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB1C, 0x9925)  # smlatb r9, r12, r5, r9: + x2 w1
    data(2, 0xEAC6, 0x0C0C)  # pkhbt r12, r6, r12: (x4, x2)
    data(2, 0xFB2C, 0xAA04)  # smlad r10, r12, r4, r10: x4 w2 + x2 w0
    data(2, 0xFB1E, 0xAA25)  # smlatb r10, lr, r5, r10: + x3 w1
    data(2, 0xEAC7, 0x0E0E)  # pkhbt lr, r7, lr: (x5, x3)
    data(2, 0xFB2E, 0xBB04)  # smlad r11, lr, r4, r11: x5 w2 + x3 w0
    data(2, 0xFB16, 0xBB05)  # smlabb r11, r6, r5, r11: + x4 w1
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r1, r2)
    blt(LD)
    label(XD)
    data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums
    cmp(r1, r3)
    blt(JD)
    data(2, 0xF8DD, 0xE00C)  # ldr lr, [sp, 12]
    b(JNEXT)
    label(VE)
    data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the weights' pointer (lr holds lanes here)
    label(JE)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums
    add(r2, r2, r1)
    data(2, 0xF8DD, 0xC00C)  # ldr r12, [sp, 12]
    data(2, 0xF91C, 0x3B01)  # ldrsb r3, [r12], #1: w0
    data(2, 0xF91C, 0x4B01)  # ldrsb r4, [r12], #1: w1
    data(2, 0xF91C, 0x6B01)  # ldrsb r6, [r12], #1: w2
    data(2, 0xF91C, 0x7B01)  # ldrsb r7, [r12], #1: w3
    data(2, 0xF91C, 0x5B01)  # ldrsb r5, [r12], #1: w4
    data(2, 0xF8CD, 0xC00C)  # str r12, [sp, 12]
    data(2, 0xEAC3, 0x4306)  # pkhbt r3, r3, r6, lsl #16: (w0, w2)
    data(2, 0xEAC4, 0x4407)  # pkhbt r4, r4, r7, lsl #16: (w1, w3)
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    label(LE)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF850, 0xCB04)  # ldr r12, [r0], #4: the next 4 bytes
    data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB27, 0x8804)  # smlad r8, r7, r4, r8: + x1 w1 + x3 w3
    data(2, 0xFB1C, 0x8805)  # smlabb r8, r12, r5, r8: + x4 w4
    data(2, 0xFB27, 0x9903)  # smlad r9, r7, r3, r9: x1 w0 + x3 w2
    data(2, 0xEACC, 0x0606)  # pkhbt r6, r12, r6: (x4, x2)
    data(2, 0xFB26, 0x9914)  # smladx r9, r6, r4, r9: + x4 w3 + x2 w1
    data(2, 0xFB1E, 0x9905)  # smlabb r9, lr, r5, r9: + x5 w4
    data(2, 0xFB26, 0xAA13)  # smladx r10, r6, r3, r10: x4 w2 + x2 w0
    data(2, 0xEACE, 0x0707)  # pkhbt r7, lr, r7: (x5, x3)
    data(2, 0xFB27, 0xAA14)  # smladx r10, r7, r4, r10: + x5 w3 + x3 w1
    data(2, 0xFB1C, 0xAA25)  # smlatb r10, r12, r5, r10: + x6 w4
    data(2, 0xFB27, 0xBB13)  # smladx r11, r7, r3, r11: x5 w2 + x3 w0
    data(2, 0xFB2C, 0xBB04)  # smlad r11, r12, r4, r11: + x4 w1 + x6 w3
    data(2, 0xFB1E, 0xBB25)  # smlatb r11, lr, r5, r11: + x7 w4
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r1, r2)
    bge(XE)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: the next 4 bytes
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x4, x6)
    data(2, 0xFB2C, 0x8803)  # smlad r8, r12, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB2E, 0x8804)  # smlad r8, lr, r4, r8: + x1 w1 + x3 w3
    data(2, 0xFB16, 0x8805)  # smlabb r8, r6, r5, r8: + x4 w4
    data(2, 0xFB2E, 0x9903)  # smlad r9, lr, r3, r9: x1 w0 + x3 w2
    data(2, 0xEAC6, 0x0C0C)  # pkhbt r12, r6, r12: (x4, x2)
    data(2, 0xFB2C, 0x9914)  # smladx r9, r12, r4, r9: + x4 w3 + x2 w1
    data(2, 0xFB17, 0x9905)  # smlabb r9, r7, r5, r9: + x5 w4
    data(2, 0xFB2C, 0xAA13)  # smladx r10, r12, r3, r10: x4 w2 + x2 w0
    data(2, 0xEAC7, 0x0E0E)  # pkhbt lr, r7, lr: (x5, x3)
    data(2, 0xFB2E, 0xAA14)  # smladx r10, lr, r4, r10: + x5 w3 + x3 w1
    data(2, 0xFB16, 0xAA25)  # smlatb r10, r6, r5, r10: + x6 w4
    data(2, 0xFB2E, 0xBB13)  # smladx r11, lr, r3, r11: x5 w2 + x3 w0
    data(2, 0xFB26, 0xBB04)  # smlad r11, r6, r4, r11: + x4 w1 + x6 w3
    data(2, 0xFB17, 0xBB25)  # smlatb r11, r7, r5, r11: + x7 w4
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r1, r2)
    blt(LE)
    label(XE)
    data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums
    cmp(r1, r3)
    blt(JE)
    data(2, 0xF8DD, 0xE00C)  # ldr lr, [sp, 12]
    b(JNEXT)
    label(DONE)
    data(2, 0xB004)  # add sp, #16
    data(2, 0xE8BD, 0x0F01)  # pop {r0, r8-r11}
    mov(r0, 0)
    # end block conv_mla_rows_dsp


@micropython.asm_thumb
def rows_oc(r0):
    # rows_mla's ctl and stack, with the loops by output channels (ctl[17]
    # conv_mla.OC_VARIANT or the next): ctl[10] the weight words, [15] each channel's
    # 128 * sum(w) (q_oc_weights_dsp.expand), [12] every output channel (one pass), [22] [23] the
    # loops' sums (after the [channel][pixel] ones: twice ctl[12] * ctl[13] bytes).
    # block conv_oc_rows_dsp: generated by host_tools/codegen/blocks.py
    data(2, 0xE92D, 0x0F01)  # push {r0, r8-r11}
    data(2, 0xB084)  # sub sp, #16
    label(ROW)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 88])  # every channel's sums start at its 128 * sum(w)
    ldr(r2, [r3, 92])
    ldr(r6, [r3, 40])
    label(INITG)
    ldr(r1, [r3, 60])
    label(INITC)
    ldr(r5, [r1, 0])
    add(r1, 4)
    mov(r8, r5)
    mov(r9, r5)
    mov(r10, r5)
    mov(r11, r5)
    data(2, 0xE8A0, 0x0F00)  # stm r0!, r8-r11
    cmp(r1, r6)
    blt(INITC)
    cmp(r0, r2)
    blt(INITG)
    mov(lr, r6)  # the weight words, read in order: [input channel][kernel row][channel]
    ldr(r0, [r3, 0])
    str(r0, [r3, 84])  # this kernel row's input row
    ldr(r0, [r3, 8])
    str(r0, [r3, 76])  # input channels left
    label(CLOOP)
    ldr(r0, [r3, 64])
    str(r0, [r3, 80])  # its input row
    ldr(r0, [r3, 12])
    str(r0, [r3, 100])  # kernel rows left
    label(KYLOOP)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 80])
    ldr(r1, [r3, 4])
    cmp(r0, r1)
    bcs(OUTSIDE)  # unsigned: above the input too
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
    ldr(r5, [r3, 68])  # the loop
    cmp(r5, 7)
    bne(NF3)
    b(VF3)
    label(NF3)
    cmp(r5, 8)
    bne(NP1)
    b(VP1)
    label(NP1)
    cmp(r5, 9)
    bne(NP2)
    b(VP2)
    label(NP2)
    cmp(r5, 5)
    bne(NF1)
    b(VF1)
    label(NF1)
    cmp(r5, 6)
    bne(NF2)
    b(VF2)
    label(NF2)
    b(JNEXT)
    label(JNEXT)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 84])  # the next kernel row
    ldr(r1, [r3, 16])
    add(r0, r0, r1)
    str(r0, [r3, 84])
    ldr(r0, [r3, 80])
    ldr(r1, [r3, 112])
    add(r0, r0, r1)
    str(r0, [r3, 80])
    ldr(r0, [r3, 100])
    sub(r0, 1)
    str(r0, [r3, 100])
    bgt(KYLOOP)
    ldr(r0, [r3, 84])  # the next input channel
    ldr(r1, [r3, 20])
    add(r0, r0, r1)
    str(r0, [r3, 84])
    ldr(r0, [r3, 76])
    sub(r0, 1)
    str(r0, [r3, 76])
    ble(TRANS)
    b(CLOOP)
    label(TRANS)
    ldr(r0, [r3, 88])  # the sums back as [channel][pixel]
    ldr(r2, [r3, 92])
    ldr(r1, [r3, 44])
    ldr(r4, [r3, 52])
    ldr(r6, [r3, 48])
    label(TG)
    mov(r5, r1)
    mov(r7, r6)
    label(TC)
    data(2, 0xE8B0, 0x0F00)  # ldm r0!, r8-r11
    data(2, 0xE885, 0x0F00)  # stm r5, r8-r11
    add(r5, r5, r4)
    sub(r7, 1)
    bne(TC)
    add(r1, 16)
    cmp(r0, r2)
    blt(TG)
    ldr(r0, [r3, 44])  # the next output row
    ldr(r1, [r3, 116])
    add(r0, r0, r1)
    str(r0, [r3, 44])
    ldr(r0, [r3, 0])
    ldr(r1, [r3, 104])
    add(r0, r0, r1)
    str(r0, [r3, 0])
    ldr(r0, [r3, 64])
    ldr(r1, [r3, 108])
    add(r0, r0, r1)
    str(r0, [r3, 64])
    ldr(r0, [r3, 96])
    sub(r0, 1)
    str(r0, [r3, 96])
    bgt(NEXTROW)
    data(2, 0xB004)  # add sp, #16
    data(2, 0xE8BD, 0x0F01)  # pop {r0, r8-r11}
    mov(r0, 0)
    b(DONE)
    label(NEXTROW)
    b(ROW)
    label(VP1)
    data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the block's weights (lr holds lanes here)
    ldr(r1, [r3, 48])
    lsl(r1, r1, 3)
    mov(r2, lr)
    add(r2, r2, r1)  # past the block's weights
    ldr(r1, [r3, 88])  # the first group's sums
    label(GP1)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0xF8D0, 0xC004)  # ldr r12, [r0, 4]: x4..x7
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3
    data(2, 0x9000)  # str r0, [sp, 0]
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)
    data(2, 0xEACC, 0x0C06)  # pkhbt r12, r12, r6: (x4, x2)
    data(2, 0xEACE, 0x0E07)  # pkhbt lr, lr, r7: (x5, x3)
    data(2, 0x9803)  # ldr r0, [sp, 12]: the block's weights
    label(FP1)
    data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8804)  # smlabb r8, r7, r4, r8: + x1 w1
    data(2, 0xFB27, 0x9903)  # smlad r9, r7, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB16, 0x9924)  # smlatb r9, r6, r4, r9: + x2 w1
    data(2, 0xFB2C, 0xAA13)  # smladx r10, r12, r3, r10: x4 w2 + x2 w0
    data(2, 0xFB17, 0xAA24)  # smlatb r10, r7, r4, r10: + x3 w1
    data(2, 0xFB2E, 0xBB13)  # smladx r11, lr, r3, r11: x5 w2 + x3 w0
    data(2, 0xFB1C, 0xBB04)  # smlabb r11, r12, r4, r11: + x4 w1
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8804)  # smlabb r8, r7, r4, r8: + x1 w1
    data(2, 0xFB27, 0x9903)  # smlad r9, r7, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB16, 0x9924)  # smlatb r9, r6, r4, r9: + x2 w1
    data(2, 0xFB2C, 0xAA13)  # smladx r10, r12, r3, r10: x4 w2 + x2 w0
    data(2, 0xFB17, 0xAA24)  # smlatb r10, r7, r4, r10: + x3 w1
    data(2, 0xFB2E, 0xBB13)  # smladx r11, lr, r3, r11: x5 w2 + x3 w0
    data(2, 0xFB1C, 0xBB04)  # smlabb r11, r12, r4, r11: + x4 w1
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r0, r2)
    blt(FP1)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 120])  # past the groups of 4 pixels
    cmp(r1, r0)
    blt(GP1)
    ldr(r0, [r3, 92])
    cmp(r1, r0)
    bge(XP1)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0x6806)  # ldr r6, [r0, 0]: x0..x3
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    data(2, 0x9803)  # ldr r0, [sp, 12]: the block's weights
    label(TP1)
    data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1
    data(2, 0xE9D1, 0x8900)  # ldrd r8, r9, [r1]: 2 sums
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8804)  # smlabb r8, r7, r4, r8: + x1 w1
    data(2, 0xFB27, 0x9903)  # smlad r9, r7, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB16, 0x9924)  # smlatb r9, r6, r4, r9: + x2 w1
    data(2, 0xE8E1, 0x8904)  # strd r8, r9, [r1], #16
    cmp(r0, r2)
    blt(TP1)
    label(XP1)
    mov(lr, r2)
    b(JNEXT)
    label(VP2)
    data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the block's weights (lr holds lanes here)
    ldr(r1, [r3, 48])
    lsl(r1, r1, 3)
    mov(r2, lr)
    add(r2, r2, r1)  # past the block's weights
    ldr(r1, [r3, 88])  # the first group's sums
    label(GP2)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0xF8D0, 0xC004)  # ldr r12, [r0, 4]: x4..x7
    data(2, 0xF990, 0x5008)  # ldrsb r5, [r0, 8]: x8
    data(2, 0xF850, 0x6B08)  # ldr r6, [r0], #8: x0..x3
    data(2, 0x9000)  # str r0, [sp, 0]
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)
    data(2, 0x9803)  # ldr r0, [sp, 12]: the block's weights
    label(FP2)
    data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8804)  # smlabb r8, r7, r4, r8: + x1 w1
    data(2, 0xFB16, 0x9923)  # smlatb r9, r6, r3, r9: x2 w0
    data(2, 0xFB17, 0x9924)  # smlatb r9, r7, r4, r9: + x3 w1
    data(2, 0xFB1C, 0x9913)  # smlabt r9, r12, r3, r9: + x4 w2
    data(2, 0xFB2C, 0xAA03)  # smlad r10, r12, r3, r10: x4 w0 + x6 w2
    data(2, 0xFB1E, 0xAA04)  # smlabb r10, lr, r4, r10: + x5 w1
    data(2, 0xFB1C, 0xBB23)  # smlatb r11, r12, r3, r11: x6 w0
    data(2, 0xFB1E, 0xBB24)  # smlatb r11, lr, r4, r11: + x7 w1
    data(2, 0xFB15, 0xBB13)  # smlabt r11, r5, r3, r11: + x8 w2
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8804)  # smlabb r8, r7, r4, r8: + x1 w1
    data(2, 0xFB16, 0x9923)  # smlatb r9, r6, r3, r9: x2 w0
    data(2, 0xFB17, 0x9924)  # smlatb r9, r7, r4, r9: + x3 w1
    data(2, 0xFB1C, 0x9913)  # smlabt r9, r12, r3, r9: + x4 w2
    data(2, 0xFB2C, 0xAA03)  # smlad r10, r12, r3, r10: x4 w0 + x6 w2
    data(2, 0xFB1E, 0xAA04)  # smlabb r10, lr, r4, r10: + x5 w1
    data(2, 0xFB1C, 0xBB23)  # smlatb r11, r12, r3, r11: x6 w0
    data(2, 0xFB1E, 0xBB24)  # smlatb r11, lr, r4, r11: + x7 w1
    data(2, 0xFB15, 0xBB13)  # smlabt r11, r5, r3, r11: + x8 w2
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r0, r2)
    blt(FP2)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 120])  # past the groups of 4 pixels
    cmp(r1, r0)
    blt(GP2)
    mov(lr, r2)
    b(JNEXT)
    label(VF1)
    data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the block's weights (lr holds lanes here)
    ldr(r1, [r3, 48])
    lsl(r1, r1, 3)
    mov(r2, lr)
    add(r2, r2, r1)  # past the block's weights
    ldr(r1, [r3, 88])  # the first group's sums
    label(GF1)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0xF8D0, 0xC004)  # ldr r12, [r0, 4]: x4..x7
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3
    data(2, 0x9000)  # str r0, [sp, 0]
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)
    data(2, 0xEACC, 0x0C06)  # pkhbt r12, r12, r6: (x4, x2)
    data(2, 0xEACE, 0x0E07)  # pkhbt lr, lr, r7: (x5, x3)
    data(2, 0x9803)  # ldr r0, [sp, 12]: the block's weights
    label(FF1)
    data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8804)  # smlabb r8, r7, r4, r8: + x1 w1
    data(2, 0xFB27, 0x9903)  # smlad r9, r7, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB16, 0x9924)  # smlatb r9, r6, r4, r9: + x2 w1
    data(2, 0xFB2C, 0xAA13)  # smladx r10, r12, r3, r10: x4 w2 + x2 w0
    data(2, 0xFB17, 0xAA24)  # smlatb r10, r7, r4, r10: + x3 w1
    data(2, 0xFB2E, 0xBB13)  # smladx r11, lr, r3, r11: x5 w2 + x3 w0
    data(2, 0xFB1C, 0xBB04)  # smlabb r11, r12, r4, r11: + x4 w1
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r0, r2)
    blt(FF1)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 120])  # past the groups of 4 pixels
    cmp(r1, r0)
    blt(GF1)
    mov(lr, r2)
    b(JNEXT)
    label(VF2)
    data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the block's weights (lr holds lanes here)
    ldr(r1, [r3, 48])
    lsl(r1, r1, 3)
    mov(r2, lr)
    add(r2, r2, r1)  # past the block's weights
    ldr(r1, [r3, 88])  # the first group's sums
    label(GF2)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0xF8D0, 0xC004)  # ldr r12, [r0, 4]: x4..x7
    data(2, 0xF990, 0x5008)  # ldrsb r5, [r0, 8]: x8
    data(2, 0xF850, 0x6B08)  # ldr r6, [r0], #8: x0..x3
    data(2, 0x9000)  # str r0, [sp, 0]
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)
    data(2, 0x9803)  # ldr r0, [sp, 12]: the block's weights
    label(FF2)
    data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8804)  # smlabb r8, r7, r4, r8: + x1 w1
    data(2, 0xFB16, 0x9923)  # smlatb r9, r6, r3, r9: x2 w0
    data(2, 0xFB17, 0x9924)  # smlatb r9, r7, r4, r9: + x3 w1
    data(2, 0xFB1C, 0x9913)  # smlabt r9, r12, r3, r9: + x4 w2
    data(2, 0xFB2C, 0xAA03)  # smlad r10, r12, r3, r10: x4 w0 + x6 w2
    data(2, 0xFB1E, 0xAA04)  # smlabb r10, lr, r4, r10: + x5 w1
    data(2, 0xFB1C, 0xBB23)  # smlatb r11, r12, r3, r11: x6 w0
    data(2, 0xFB1E, 0xBB24)  # smlatb r11, lr, r4, r11: + x7 w1
    data(2, 0xFB15, 0xBB13)  # smlabt r11, r5, r3, r11: + x8 w2
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r0, r2)
    blt(FF2)
    data(2, 0x9B04)  # ldr r3, [sp, 16]
    ldr(r0, [r3, 120])  # past the groups of 4 pixels
    cmp(r1, r0)
    blt(GF2)
    mov(lr, r2)
    b(JNEXT)
    label(VF3)
    ldr(r2, [r3, 92])  # past the sums
    ldr(r1, [r3, 88])
    data(2, 0xE8BE, 0x0028)  # ldm lr!, {r3, r5}: (w0, w2), w1
    data(2, 0xEA4F, 0x4433)  # ror r4, r3, #16: (w2, w0)
    data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the weights (lr holds lanes here)
    data(2, 0x9800)  # ldr r0, [sp, 0]: the row
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)
    label(LF3)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF850, 0xCB04)  # ldr r12, [r0], #4: the next 4 bytes
    data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)
    data(2, 0xFB26, 0x8803)  # smlad r8, r6, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB17, 0x8805)  # smlabb r8, r7, r5, r8: + x1 w1
    data(2, 0xFB27, 0x9903)  # smlad r9, r7, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB16, 0x9925)  # smlatb r9, r6, r5, r9: + x2 w1
    data(2, 0xEACC, 0x0606)  # pkhbt r6, r12, r6: (x4, x2)
    data(2, 0xFB26, 0xAA04)  # smlad r10, r6, r4, r10: x4 w2 + x2 w0
    data(2, 0xFB17, 0xAA25)  # smlatb r10, r7, r5, r10: + x3 w1
    data(2, 0xEACE, 0x0707)  # pkhbt r7, lr, r7: (x5, x3)
    data(2, 0xFB27, 0xBB04)  # smlad r11, r7, r4, r11: x5 w2 + x3 w0
    data(2, 0xFB1C, 0xBB05)  # smlabb r11, r12, r5, r11: + x4 w1
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r1, r2)
    bge(XF3)
    data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums
    data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: the next 4 bytes
    data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x5, x7)
    data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x4, x6)
    data(2, 0xFB2C, 0x8803)  # smlad r8, r12, r3, r8: x0 w0 + x2 w2
    data(2, 0xFB1E, 0x8805)  # smlabb r8, lr, r5, r8: + x1 w1
    data(2, 0xFB2E, 0x9903)  # smlad r9, lr, r3, r9: x1 w0 + x3 w2
    data(2, 0xFB1C, 0x9925)  # smlatb r9, r12, r5, r9: + x2 w1
    data(2, 0xEAC6, 0x0C0C)  # pkhbt r12, r6, r12: (x4, x2)
    data(2, 0xFB2C, 0xAA04)  # smlad r10, r12, r4, r10: x4 w2 + x2 w0
    data(2, 0xFB1E, 0xAA25)  # smlatb r10, lr, r5, r10: + x3 w1
    data(2, 0xEAC7, 0x0E0E)  # pkhbt lr, r7, lr: (x5, x3)
    data(2, 0xFB2E, 0xBB04)  # smlad r11, lr, r4, r11: x5 w2 + x3 w0
    data(2, 0xFB16, 0xBB05)  # smlabb r11, r6, r5, r11: + x4 w1
    data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11
    cmp(r1, r2)
    blt(LF3)
    label(XF3)
    data(2, 0xF8DD, 0xE00C)  # ldr lr, [sp, 12]
    b(JNEXT)
    label(DONE)
    # end block conv_oc_rows_dsp


noalloc.mark(_step_oc)
