"""The body of rows_mla, the assembler row kernel of the int8 convolution by output pixels:
native/q_conv_mla_thumb.py (MLA loops: every Thumb-2 port) and native/q_conv_mla_dsp.py (the
same, plus a 3-wide stride-1 loop on the DSP extension). blocks.py writes it into both
(blocks conv_mla_rows and conv_mla_rows_dsp); the driver and the loops have this one source.
It also writes rows_oc (block conv_oc_rows_dsp, native/q_conv_mla_dsp.py: by output pixels and
channels, below), reusing the DSP loop's pixel pairs.

The driver: the sums of every channel of the pass start at its 128 * sum(w); then for each
input channel and kernel row, the input row is copied into the padded row (or the row of
padding is taken) and the loop of ctl[17] adds that kernel row to every channel's sums.

Each MLA loop adds one kernel row to the int32 sums of every output channel of the pass (r1
walks the channels' rows of sums, contiguous, up to [sp, 8]; lr the signed weight bytes, kw
per channel, read once in order), 4 output pixels at a time: the 4 sums in r8-r11 (one LDM,
one STM), the row's kw weights in r3.., each input byte the 4 pixels read loaded once (LDRSB
from the padded row at [sp, 0]) and multiplied into every sum it belongs to (MLA: Thumb-2,
armv7-m and up):

    kw 3, stride 1: 23 instructions per 12 multiply-accumulates
    kw 5, stride 1: 33 per 20;  kw 3, stride 2: 26 per 12

plus 9-11 per channel and kernel row; r2 is the end of a channel's row of sums, r12 the
byte. No zoo model has a 5-wide kernel with stride 2 across (each loop is RAM on the board:
native code is copied there at import).

The DSP loop (kw 3, stride 1): one word of 4 input bytes, split by SXTB16 into the halfword
lanes (x0, x2) and (x1, x3), serves 4 pixels with 2 products each: pixel 0 is SMLAD((x0, x2),
(w0, w2)) + SMLABB(x1, w1), pixel 1 SMLAD((x1, x3), (w0, w2)) + SMLATB(x2, w1), pixels 2 and 3
pair (x2, x4) and (x3, x5) by PKHBT with (w2, w0): 17 instructions per 12 multiply-accumulates
(the same integers: every product and sum fits a word). The 5-wide one (stride 1) has 3
products per pixel against (w0, w2), (w1, w3) and w4, SMLADX for the pairs PKHBT makes in
reverse order: 21 instructions per 20 multiply-accumulates.
"""

# (kernel width, stride) of each MLA loop; the kernel's ctl word 17 is the index, DSP_VARIANT
# the DSP loop's (3 wide, stride 1)
VARIANTS = ((3, 1), (3, 2), (5, 1))
DSP_VARIANT = len(VARIANTS)
DSP5_VARIANT = DSP_VARIANT + 1  # the DSP loop of a 5-wide kernel, stride 1
PIXELS = 4

# a kernel row's input row copied into the padded row, or the row of padding taken
_COPY = """\
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
"""

_HEAD = (
    """\
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
"""
    + _COPY
    + """\
ldr(r1, [r3, 44])  # the first channel's sums
ldr(r5, [r3, 68])  # the loop
"""
)

_TAIL = """\
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
"""

_DONE = """\
label(DONE)
data(2, 0xB004)  # add sp, #16
data(2, 0xE8BD, 0x0F01)  # pop {r0, r8-r11}
mov(r0, 0)
"""


def _loop(kw, sw):
    name = "%d%d" % (kw, sw)
    out = ["label(V%s)" % name, "label(J%s)" % name]
    out.append("data(2, 0x9800)  # ldr r0, [sp, 0]: the row")
    out.append("data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums")
    out.append("add(r2, r2, r1)")
    for k in range(kw):
        out.append("data(2, 0xF91E, 0x%04X)  # ldrsb r%d, [lr], #1: weight kx = %d" % ((3 + k) << 12 | 0x0B01, 3 + k, k))
    out.append("label(L%s)" % name)
    out.append("data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums")
    for i in range(sw * (PIXELS - 1) + kw):
        out.append("data(2, 0xF990, 0x%04X)  # ldrsb r12, [r0, %d]" % (0xC000 | i, i))
        for p in range(PIXELS):
            k = i - sw * p
            if 0 <= k < kw:
                rd = 8 + p
                out.append("data(2, 0x%04X, 0x%04X)  # mla r%d, r%d, r12, r%d" % (0xFB00 | (3 + k), rd << 12 | rd << 8 | 12, rd, 3 + k, rd))
    out.append("data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11")
    out.append("add(r0, %d)" % (PIXELS * sw))
    out.append("cmp(r1, r2)")
    out.append("blt(L%s)" % name)
    out.append("data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums")
    out.append("cmp(r1, r3)")
    out.append("blt(J%s)" % name)
    out.append("b(JNEXT)")
    return out


def _rn(r):
    return "lr" if r == 14 else "r%d" % r


def _dsp_half(a, b, na, nb):
    """4 pixels from the lanes (a, b) of x0..x3, loading x4..x7's into (na, nb); W02 r3, W20 r4, W1 r5."""
    A, B, NA, NB = _rn(a), _rn(b), _rn(na), _rn(nb)
    return [
        "data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums",
        "data(2, 0xF850, 0x%04X)  # ldr %s, [r0], #4: the next 4 bytes" % (na << 12 | 0x0B04, NA),
        "data(2, 0xFA2F, 0x%04X)  # sxtb16 %s, %s, ror #8: (x5, x7)" % (0xF090 | nb << 8 | na, NB, NA),
        "data(2, 0xFA2F, 0x%04X)  # sxtb16 %s, %s: (x4, x6)" % (0xF080 | na << 8 | na, NA, NA),
        "data(2, 0x%04X, 0x8803)  # smlad r8, %s, r3, r8: x0 w0 + x2 w2" % (0xFB20 | a, A),
        "data(2, 0x%04X, 0x8805)  # smlabb r8, %s, r5, r8: + x1 w1" % (0xFB10 | b, B),
        "data(2, 0x%04X, 0x9903)  # smlad r9, %s, r3, r9: x1 w0 + x3 w2" % (0xFB20 | b, B),
        "data(2, 0x%04X, 0x9925)  # smlatb r9, %s, r5, r9: + x2 w1" % (0xFB10 | a, A),
        "data(2, 0x%04X, 0x%04X)  # pkhbt %s, %s, %s: (x4, x2)" % (0xEAC0 | na, a << 8 | a, A, NA, A),
        "data(2, 0x%04X, 0xAA04)  # smlad r10, %s, r4, r10: x4 w2 + x2 w0" % (0xFB20 | a, A),
        "data(2, 0x%04X, 0xAA25)  # smlatb r10, %s, r5, r10: + x3 w1" % (0xFB10 | b, B),
        "data(2, 0x%04X, 0x%04X)  # pkhbt %s, %s, %s: (x5, x3)" % (0xEAC0 | nb, b << 8 | b, B, NB, B),
        "data(2, 0x%04X, 0xBB04)  # smlad r11, %s, r4, r11: x5 w2 + x3 w0" % (0xFB20 | b, B),
        "data(2, 0x%04X, 0xBB05)  # smlabb r11, %s, r5, r11: + x4 w1" % (0xFB10 | na, NA),
        "data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11",
        "cmp(r1, r2)",
    ]


def _dsp_loop():
    out = [
        "label(VD)",
        "data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the weights' pointer (lr holds lanes here)",
        "label(JD)",
        "data(2, 0x9800)  # ldr r0, [sp, 0]: the row",
        "data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums",
        "add(r2, r2, r1)",
        "data(2, 0xF8DD, 0xC00C)  # ldr r12, [sp, 12]",
        "data(2, 0xF91C, 0x3B01)  # ldrsb r3, [r12], #1: w0",
        "data(2, 0xF91C, 0x5B01)  # ldrsb r5, [r12], #1: w1",
        "data(2, 0xF91C, 0x4B01)  # ldrsb r4, [r12], #1: w2",
        "data(2, 0xF8CD, 0xC00C)  # str r12, [sp, 12]",
        "data(2, 0xEAC4, 0x4603)  # pkhbt r6, r4, r3, lsl #16: (w2, w0)",
        "data(2, 0xEAC3, 0x4304)  # pkhbt r3, r3, r4, lsl #16: (w0, w2)",
        "mov(r4, r6)",
        "data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3",
        "data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)",
        "data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)",
        "label(LD)",
    ]
    out += _dsp_half(6, 7, 12, 14)
    out.append("bge(XD)")
    out += _dsp_half(12, 14, 6, 7)
    out += [
        "blt(LD)",
        "label(XD)",
        "data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums",
        "cmp(r1, r3)",
        "blt(JD)",
        "data(2, 0xF8DD, 0xE00C)  # ldr lr, [sp, 12]",
        "b(JNEXT)",
    ]
    return out


def _dsp5_half(a, b, na, nb):
    """4 pixels of a 5-wide kernel from the lanes (a, b) of x0..x3, loading x4..x7's into
    (na, nb); W02 r3, W13 r4, w4 r5."""
    A, B, NA, NB = _rn(a), _rn(b), _rn(na), _rn(nb)
    return [
        "data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums",
        "data(2, 0xF850, 0x%04X)  # ldr %s, [r0], #4: the next 4 bytes" % (na << 12 | 0x0B04, NA),
        "data(2, 0xFA2F, 0x%04X)  # sxtb16 %s, %s, ror #8: (x5, x7)" % (0xF090 | nb << 8 | na, NB, NA),
        "data(2, 0xFA2F, 0x%04X)  # sxtb16 %s, %s: (x4, x6)" % (0xF080 | na << 8 | na, NA, NA),
        "data(2, 0x%04X, 0x8803)  # smlad r8, %s, r3, r8: x0 w0 + x2 w2" % (0xFB20 | a, A),
        "data(2, 0x%04X, 0x8804)  # smlad r8, %s, r4, r8: + x1 w1 + x3 w3" % (0xFB20 | b, B),
        "data(2, 0x%04X, 0x8805)  # smlabb r8, %s, r5, r8: + x4 w4" % (0xFB10 | na, NA),
        "data(2, 0x%04X, 0x9903)  # smlad r9, %s, r3, r9: x1 w0 + x3 w2" % (0xFB20 | b, B),
        "data(2, 0x%04X, 0x%04X)  # pkhbt %s, %s, %s: (x4, x2)" % (0xEAC0 | na, a << 8 | a, A, NA, A),
        "data(2, 0x%04X, 0x9914)  # smladx r9, %s, r4, r9: + x4 w3 + x2 w1" % (0xFB20 | a, A),
        "data(2, 0x%04X, 0x9905)  # smlabb r9, %s, r5, r9: + x5 w4" % (0xFB10 | nb, NB),
        "data(2, 0x%04X, 0xAA13)  # smladx r10, %s, r3, r10: x4 w2 + x2 w0" % (0xFB20 | a, A),
        "data(2, 0x%04X, 0x%04X)  # pkhbt %s, %s, %s: (x5, x3)" % (0xEAC0 | nb, b << 8 | b, B, NB, B),
        "data(2, 0x%04X, 0xAA14)  # smladx r10, %s, r4, r10: + x5 w3 + x3 w1" % (0xFB20 | b, B),
        "data(2, 0x%04X, 0xAA25)  # smlatb r10, %s, r5, r10: + x6 w4" % (0xFB10 | na, NA),
        "data(2, 0x%04X, 0xBB13)  # smladx r11, %s, r3, r11: x5 w2 + x3 w0" % (0xFB20 | b, B),
        "data(2, 0x%04X, 0xBB04)  # smlad r11, %s, r4, r11: + x4 w1 + x6 w3" % (0xFB20 | na, NA),
        "data(2, 0x%04X, 0xBB25)  # smlatb r11, %s, r5, r11: + x7 w4" % (0xFB10 | nb, NB),
        "data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11",
        "cmp(r1, r2)",
    ]


def _dsp5_loop():
    out = [
        "label(VE)",
        "data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the weights' pointer (lr holds lanes here)",
        "label(JE)",
        "data(2, 0x9800)  # ldr r0, [sp, 0]: the row",
        "data(2, 0x9A01)  # ldr r2, [sp, 4]: bytes of one channel's sums",
        "add(r2, r2, r1)",
        "data(2, 0xF8DD, 0xC00C)  # ldr r12, [sp, 12]",
        "data(2, 0xF91C, 0x3B01)  # ldrsb r3, [r12], #1: w0",
        "data(2, 0xF91C, 0x4B01)  # ldrsb r4, [r12], #1: w1",
        "data(2, 0xF91C, 0x6B01)  # ldrsb r6, [r12], #1: w2",
        "data(2, 0xF91C, 0x7B01)  # ldrsb r7, [r12], #1: w3",
        "data(2, 0xF91C, 0x5B01)  # ldrsb r5, [r12], #1: w4",
        "data(2, 0xF8CD, 0xC00C)  # str r12, [sp, 12]",
        "data(2, 0xEAC3, 0x4306)  # pkhbt r3, r3, r6, lsl #16: (w0, w2)",
        "data(2, 0xEAC4, 0x4407)  # pkhbt r4, r4, r7, lsl #16: (w1, w3)",
        "data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3",
        "data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)",
        "data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)",
        "label(LE)",
    ]
    out += _dsp5_half(6, 7, 12, 14)
    out.append("bge(XE)")
    out += _dsp5_half(12, 14, 6, 7)
    out += [
        "blt(LE)",
        "label(XE)",
        "data(2, 0x9B02)  # ldr r3, [sp, 8]: past the last channel's sums",
        "cmp(r1, r3)",
        "blt(JE)",
        "data(2, 0xF8DD, 0xE00C)  # ldr lr, [sp, 12]",
        "b(JNEXT)",
    ]
    return out


def _dispatch(variants):
    lines = []
    for v, name in variants:
        lines += ["cmp(r5, %d)" % v, "bne(N%s)" % name, "b(V%s)" % name, "label(N%s)" % name]
    lines.append("b(JNEXT)")
    return lines


def _rows(dsp):
    variants = [(v, "%d%d" % kws) for v, kws in enumerate(VARIANTS)]
    loops = []
    for kw, sw in VARIANTS:
        loops += _loop(kw, sw)
    if dsp:
        variants += [(DSP_VARIANT, "D"), (DSP5_VARIANT, "E")]
        loops += _dsp_loop() + _dsp5_loop()
    return _HEAD + "\n".join(_dispatch(variants)) + "\n" + _TAIL + "\n".join(loops) + "\n" + _DONE


def rows():
    """rows_mla's body with the MLA loops (asm_thumb statements, one a line)."""
    return _rows(False)


def rows_dsp():
    """rows_mla's body with the MLA loops and the DSP loop."""
    return _rows(True)


# The DSP loops by output channels (rows_oc in native/q_conv_mla_dsp.py): 3-wide kernels with
# stride 1 (OC_VARIANT) or 2 (OC_VARIANT + 1) across. For each kernel row, the 4 pixels' input
# bytes are split into halfword lanes once and serve every output channel of the pass: per
# channel one LDM of its two weight words ((w0, w2) and w1, written at load), one LDM / STM of
# its 4 sums and 8 products (stride 1: 13 instructions per 12 multiply-accumulates) or 10
# (stride 2: 15). The sums are [group of 4 pixels][channel][4] (stm r1! walks them); the end
# writes them back as q_requant_thumb.rows reads them, [channel][pixel].
# + 2: one output channel, stride 1; + 3, + 4: stride 1, 2 with channels in pairs
OC_VARIANT = DSP5_VARIANT + 1


def _smla(op, rd, rn, rm, ra, note):
    base = {"smlad": (0xFB20, 0), "smladx": (0xFB20, 0x10), "smlabb": (0xFB10, 0), "smlatb": (0xFB10, 0x20), "smlabt": (0xFB10, 0x10)}
    hi, lo = base[op]
    regs = ", ".join(_rn(r) for r in (rd, rn, rm, ra))
    return "data(2, 0x%04X, 0x%04X)  # %s %s: %s" % (hi | rn, ra << 12 | rd << 8 | lo | rm, op, regs, note)


def _oc_group(sw):
    """The lanes of one group of 4 pixels (the row at [sp, 0], advanced), then r0 = the block's weights."""
    if sw == 1:
        out = [
            "data(2, 0x9800)  # ldr r0, [sp, 0]: the row",
            "data(2, 0xF8D0, 0xC004)  # ldr r12, [r0, 4]: x4..x7",
            "data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3",
            "data(2, 0x9000)  # str r0, [sp, 0]",
            "data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)",
            "data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)",
            "data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)",
            "data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)",
            "data(2, 0xEACC, 0x0C06)  # pkhbt r12, r12, r6: (x4, x2)",
            "data(2, 0xEACE, 0x0E07)  # pkhbt lr, lr, r7: (x5, x3)",
        ]
    else:
        out = [
            "data(2, 0x9800)  # ldr r0, [sp, 0]: the row",
            "data(2, 0xF8D0, 0xC004)  # ldr r12, [r0, 4]: x4..x7",
            "data(2, 0xF990, 0x5008)  # ldrsb r5, [r0, 8]: x8",
            "data(2, 0xF850, 0x6B08)  # ldr r6, [r0], #8: x0..x3",
            "data(2, 0x9000)  # str r0, [sp, 0]",
            "data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)",
            "data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)",
            "data(2, 0xFA2F, 0xFE9C)  # sxtb16 lr, r12, ror #8: (x5, x7)",
            "data(2, 0xFA2F, 0xFC8C)  # sxtb16 r12, r12: (x4, x6)",
        ]
    return out + ["data(2, 0x9803)  # ldr r0, [sp, 12]: the block's weights"]


def _oc_products(sw):
    if sw == 1:  # lanes r6 (x0, x2), r7 (x1, x3), r12 (x4, x2), lr (x5, x3)
        return [
            _smla("smlad", 8, 6, 3, 8, "x0 w0 + x2 w2"),
            _smla("smlabb", 8, 7, 4, 8, "+ x1 w1"),
            _smla("smlad", 9, 7, 3, 9, "x1 w0 + x3 w2"),
            _smla("smlatb", 9, 6, 4, 9, "+ x2 w1"),
            _smla("smladx", 10, 12, 3, 10, "x4 w2 + x2 w0"),
            _smla("smlatb", 10, 7, 4, 10, "+ x3 w1"),
            _smla("smladx", 11, 14, 3, 11, "x5 w2 + x3 w0"),
            _smla("smlabb", 11, 12, 4, 11, "+ x4 w1"),
        ]
    # lanes r6 (x0, x2), r7 (x1, x3), r12 (x4, x6), lr (x5, x7), r5 x8
    return [
        _smla("smlad", 8, 6, 3, 8, "x0 w0 + x2 w2"),
        _smla("smlabb", 8, 7, 4, 8, "+ x1 w1"),
        _smla("smlatb", 9, 6, 3, 9, "x2 w0"),
        _smla("smlatb", 9, 7, 4, 9, "+ x3 w1"),
        _smla("smlabt", 9, 12, 3, 9, "+ x4 w2"),
        _smla("smlad", 10, 12, 3, 10, "x4 w0 + x6 w2"),
        _smla("smlabb", 10, 14, 4, 10, "+ x5 w1"),
        _smla("smlatb", 11, 12, 3, 11, "x6 w0"),
        _smla("smlatb", 11, 14, 4, 11, "+ x7 w1"),
        _smla("smlabt", 11, 5, 3, 11, "+ x8 w2"),
    ]


def _oc_tail():
    """The last 2 pixels of a row at stride 1 (ow 4k + 1 or 4k + 2): LDRD / STRD of 2 sums."""
    return [
        "ldr(r0, [r3, 92])",
        "cmp(r1, r0)",
        "bge(XT)",
        "data(2, 0x9800)  # ldr r0, [sp, 0]: the row",
        "data(2, 0x6806)  # ldr r6, [r0, 0]: x0..x3",
        "data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)",
        "data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)",
        "data(2, 0x9803)  # ldr r0, [sp, 12]: the block's weights",
        "label(TT)",
        "data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1",
        "data(2, 0xE9D1, 0x8900)  # ldrd r8, r9, [r1]: 2 sums",
        _smla("smlad", 8, 6, 3, 8, "x0 w0 + x2 w2"),
        _smla("smlabb", 8, 7, 4, 8, "+ x1 w1"),
        _smla("smlad", 9, 7, 3, 9, "x1 w0 + x3 w2"),
        _smla("smlatb", 9, 6, 4, 9, "+ x2 w1"),
        "data(2, 0xE8E1, 0x8904)  # strd r8, r9, [r1], #16",
        "cmp(r0, r2)",
        "blt(TT)",
        "label(XT)",
    ]


def _oc_loop(sw, pairs, name):
    """The loop of OC_VARIANT + sw - 1 (+ 2 with pairs: channels two at a time, an even count)."""
    out = [
        "label(V%s)" % name,
        "data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the block's weights (lr holds lanes here)",
        "ldr(r1, [r3, 48])",
        "lsl(r1, r1, 3)",
        "mov(r2, lr)",
        "add(r2, r2, r1)  # past the block's weights",
        "ldr(r1, [r3, 88])  # the first group's sums",
        "label(G%s)" % name,
    ]
    out += _oc_group(sw)
    out.append("label(F%s)" % name)
    for _ in range(2 if pairs else 1):
        out += ["data(2, 0xC818)  # ldm r0!, {r3, r4}: (w0, w2), w1", "data(2, 0xE891, 0x0F00)  # ldm r1, r8-r11: 4 sums"]
        out += _oc_products(sw)
        out.append("data(2, 0xE8A1, 0x0F00)  # stm r1!, r8-r11")
    out += [
        "cmp(r0, r2)",
        "blt(F%s)" % name,
        "data(2, 0x9B04)  # ldr r3, [sp, 16]",
        "ldr(r0, [r3, 120])  # past the groups of 4 pixels",
        "cmp(r1, r0)",
        "blt(G%s)" % name,
    ]
    if sw == 1 and pairs:
        out += [line.replace("(TT)", "(T%s)" % name).replace("(XT)", "(X%s)" % name) for line in _oc_tail()]
    return out + ["mov(lr, r2)", "b(JNEXT)"]


# rows_oc: the rows of a band, each as rows_mla's driver does it (copy each input row of the
# window into the padded row or take the row of padding, then the loop), the sums back as
# [channel][pixel] at the end of each row. ctl words (int32; offsets in bytes): [0] 0 the
# window's first input row (channel 0) of the band's next output row, [1] 4 input rows h,
# [2] 8 input channels, [3] 12 kernel rows, [4] 16 bytes between kernel rows, [5] 20 from
# past the last kernel row to the next channel's first, [6] 24 bytes copied per row, [7] 28
# where they go (padded row + pw), [8] 32 the padded row, [9] 36 the row of padding, [10] 40
# the weight words, [11] 44 where the row's [channel][pixel] sums go, [12] 48 channels m,
# [13] 52 bytes between channels there, [14] 56 zx in every byte, [15] 60 each channel's
# 128 * sum(w), [16] 64 the input row of the next output row's first kernel row, [17] 68
# the loop, [18] 72 right after the copied row, [19..21] 76.. scratch (channels left, input
# row, its address), [22] 88 [23] 92 the loops' sums and their end, [24] 96 rows left,
# [25] 100 kernel rows left, [26] 104 bytes between output rows' windows, [27] 108 stride
# down, [28] 112 dilation down, [29] 116 bytes between rows of sums, [30] 120 the end of
# the loops' sums of whole groups of 4 pixels (a row's last 2 pixels: _oc_tail).
_OC_DRIVER = (
    """\
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
"""
    + _COPY
    + """\
ldr(r5, [r3, 68])  # the loop
cmp(r5, %(one)d)
bne(NF3)
b(VF3)
label(NF3)
cmp(r5, %(p1)d)
bne(NP1)
b(VP1)
label(NP1)
cmp(r5, %(p2)d)
bne(NP2)
b(VP2)
label(NP2)
cmp(r5, %(s1)d)
bne(NF1)
b(VF1)
label(NF1)
cmp(r5, %(s2)d)
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
"""
)


def _oc_single():
    """One output channel, stride 1: _dsp_loop's pixel loop (the lanes carried from group to
    group) on the channel's weight words."""
    out = [
        "label(VF3)",
        "ldr(r2, [r3, 92])  # past the sums",
        "ldr(r1, [r3, 88])",
        "data(2, 0xE8BE, 0x0028)  # ldm lr!, {r3, r5}: (w0, w2), w1",
        "data(2, 0xEA4F, 0x4433)  # ror r4, r3, #16: (w2, w0)",
        "data(2, 0xF8CD, 0xE00C)  # str lr, [sp, 12]: the weights (lr holds lanes here)",
        "data(2, 0x9800)  # ldr r0, [sp, 0]: the row",
        "data(2, 0xF850, 0x6B04)  # ldr r6, [r0], #4: x0..x3",
        "data(2, 0xFA2F, 0xF796)  # sxtb16 r7, r6, ror #8: (x1, x3)",
        "data(2, 0xFA2F, 0xF686)  # sxtb16 r6, r6: (x0, x2)",
        "label(LF3)",
    ]
    out += _dsp_half(6, 7, 12, 14)
    out.append("bge(XF3)")
    out += _dsp_half(12, 14, 6, 7)
    out += ["blt(LF3)", "label(XF3)", "data(2, 0xF8DD, 0xE00C)  # ldr lr, [sp, 12]", "b(JNEXT)"]
    return out


def rows_oc():
    """rows_oc's body: the rows of a band by output pixels and channels (its ctl above)."""
    loops = _oc_loop(1, True, "P1") + _oc_loop(2, True, "P2") + _oc_loop(1, False, "F1") + _oc_loop(2, False, "F2") + _oc_single()
    return (
        _OC_DRIVER % {"s1": OC_VARIANT, "s2": OC_VARIANT + 1, "one": OC_VARIANT + 2, "p1": OC_VARIANT + 3, "p2": OC_VARIANT + 4}
        + "\n".join(loops)
        + "\nlabel(DONE)\n"
    )
