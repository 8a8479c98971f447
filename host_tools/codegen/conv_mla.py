"""The pixel loops of native/q_conv_mla_thumb.py, one per (kernel width, stride).

Each loop adds one kernel row to the int32 sums of every output channel of
the block (r1 walks the channels' rows of sums, contiguous, up to [sp, 8];
lr the signed weight bytes, kw per channel, read once in order), 4 output
pixels at a time: the 4 sums in r8-r11 (one LDM, one STM), the row's kw
weights in r3.., each input byte the 4 pixels read loaded once (LDRSB from
the padded row at [sp, 0]) and multiplied into every sum it belongs to
(MLA: Thumb-2, armv7-m and up):

    kw 3, stride 1: 23 instructions per 12 multiply-accumulates
    kw 5, stride 1: 33 per 20;  kw 3, stride 2: 26 per 12
(no zoo model has a 5-wide kernel with stride 2 across: each loop is RAM on the
board, as native code is copied there at import)

plus 9-11 per channel and kernel row. r2 is the end of a channel's row of sums,
r12 the byte. blocks.py writes them into the kernel (block conv_mla_loops).
"""

# (kernel width, stride) of each loop; the kernel's ctl word 17 is the index
VARIANTS = ((3, 1), (3, 2), (5, 1))
PIXELS = 4


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


def pixel_loops():
    """The text of every loop (asm_thumb statements, one a line)."""
    lines = []
    for kw, sw in VARIANTS:
        lines += _loop(kw, sw)
    return "\n".join(lines) + "\n"


def dispatch():
    """The branch from the kernel row loop to the variant in r5 (ctl word 17)."""
    lines = []
    for v, (kw, sw) in enumerate(VARIANTS):
        skip = "N%d%d" % (kw, sw)
        lines += ["cmp(r5, %d)" % v, "bne(%s)" % skip, "b(V%d%d)" % (kw, sw), "label(%s)" % skip]
    lines.append("b(JNEXT)")
    return "\n".join(lines) + "\n"
