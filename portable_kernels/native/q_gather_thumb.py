"""Arm Thumb row gather of the int8 convolution (native/q_conv_viper.py): imported
only where the port has @micropython.asm_thumb (emitters.HAS_THUMB).

A viper loop costs ~43 instructions per byte copied on Thumb and each call
of an assembler function from viper ~1000, so a whole output row is two
calls: colrows writes every patch byte of the row (patch position k =
(c, ky, kx) for all pixels at once: padding, then a strided copy of the
input row, unsigned, then padding), psums the patch byte sums. Kernel rows
outside the input (by the ky bit of the row's mask) read the padding table.
The patch tail (k >= kn) is left as it is: its weights are 0 and psums
skips it. Same bytes and sums as q_conv_viper._gather; nothing allocates.

    tab (int32) = (dlo, dhi, soff) per kx (rows inside), then the same per kx
        for rows outside (all padding)
    ctl (int32) = [row offset in x, 0, kw, kp, sw, pad, ow * kp, scratch x4,
        segments, ow, scratch x2, x address, tab address, ky mask, 0, kn & ~3, kn & 3,
        the segment's offset and ky (scratch), dh * w, h * w - kh * dh * w, kh]
    Segments (c, ky) go c outer, ky inner; their offsets are counted, not
    tabulated (a table would grow with the input channels: 64 KB for a
    linear layer of 8192 inputs).
"""

# ruff: noqa: F821 (assembler mnemonics, registers and labels)
from array import array

import micropython

_SHARED = []  # the one (tab, ctl, colrows, psums, gather, fill) of every step


def shared(kw, kh):
    """(tab, ctl, colrows, psums, gather, fill) shared by every convolution, tab
    grown for kw (load time), or None (kernel taller than 30 rows)."""
    if kh > 30:
        return None
    from portable_kernels.util import scratch

    tab = scratch.rows("qg tab", 6 * kw)
    if not _SHARED:
        _SHARED.append((tab, scratch.rows("qg ctl", 26), colrows, psums, gather, fill))
    return _SHARED[0]


def private(kw, kh):
    """(tab, ctl, colrows, psums, gather, fill) of one convolution's own, or None
    (kernel taller than 30 rows); fill() writes them (load time)."""
    if kh > 30:
        return None
    return (array("i", bytearray(24 * kw)), array("i", bytearray(4 * 26)), colrows, psums, gather, fill)


def fill(tab, ctl, g):
    """Writes a convolution's tab and the constant words of its ctl (module
    docstring; the others are set per row or are colrows' scratch) from its g
    words (native/q_conv_viper._step, every run; allocates nothing)."""
    w = g[7]
    kw = g[9]
    sw = g[11]
    pw = g[13]
    dw = g[15]
    ow = g[17]
    kp = g[23]
    for kx in range(kw):
        t = pw - kx * dw  # ix = ox * sw - t
        lo = (t + sw - 1) // sw if t > 0 else 0
        hi = 0
        if w - 1 + t >= 0:
            hi = (w - 1 + t) // sw + 1
            if hi > ow:
                hi = ow
        if lo > hi:
            lo = hi
        e = 3 * kx
        tab[e] = lo * kp
        tab[e + 1] = hi * kp
        tab[e + 2] = lo * sw - t
        e += 3 * kw
        tab[e] = ow * kp
        tab[e + 1] = ow * kp
        tab[e + 2] = 0
    h = g[6]
    kh = g[8]
    dh = g[14]
    kn = g[22]
    ctl[2] = kw
    ctl[3] = kp
    ctl[4] = sw
    ctl[5] = g[18]  # the padding byte, zx + 128
    ctl[6] = ow * kp
    ctl[11] = g[5] * kh
    ctl[12] = ow
    ctl[19] = kn & ~3
    ctl[20] = kn & 3
    ctl[23] = dh * w
    ctl[24] = h * w - kh * dh * w
    ctl[25] = kh


@micropython.viper
def gather(xobj, gobj, colobj, sxobj, plane: int, oy: int, gx):
    g = ptr32(gobj)
    tabobj = gx[0]
    cobj = gx[1]
    c = ptr32(cobj)
    h = g[6]
    kh = g[8]
    dh = g[14]
    iy0 = oy * g[10] - g[12]
    c[0] = g[0] + plane * g[5] * h * g[7] + iy0 * g[7]
    mask = 0
    for ky in range(kh):
        iy = iy0 + ky * dh
        if iy >= 0 and iy < h:
            mask |= 1 << ky
    c[17] = mask
    fn = gx[2]
    fn(xobj, colobj, tabobj, cobj)
    fn = gx[3]
    fn(colobj, sxobj, cobj)


@micropython.asm_thumb
def colrows(r0, r1, r2, r3):
    str(r0, [r3, 60])
    str(r2, [r3, 64])
    mov(r4, 0)
    str(r4, [r3, 84])  # the first segment: c = 0, ky = 0
    str(r4, [r3, 88])
    ldr(r4, [r3, 44])
    str(r4, [r3, 56])
    ldr(r4, [r3, 4])
    add(r1, r1, r4)
    str(r1, [r3, 32])  # col + k + kx
    label(SEG)
    ldr(r5, [r3, 84])  # this segment's offset, c * h * w + ky * dh * w
    ldr(r6, [r3, 88])  # its ky
    ldr(r7, [r3, 92])
    add(r4, r5, r7)  # the next one's: ky + 1
    add(r0, r6, 1)
    ldr(r7, [r3, 100])
    cmp(r0, r7)
    blt(SAMEC)
    mov(r0, 0)  # or the next channel's ky 0
    ldr(r7, [r3, 96])
    add(r4, r4, r7)
    label(SAMEC)
    str(r4, [r3, 84])
    str(r0, [r3, 88])
    ldr(r0, [r3, 60])
    ldr(r7, [r3, 0])
    add(r0, r0, r7)
    add(r0, r0, r5)
    str(r0, [r3, 28])  # x + row + c * hw + ky * dh * w
    ldr(r2, [r3, 64])
    ldr(r7, [r3, 68])
    lsr(r7, r6)
    mov(r6, 1)
    and_(r7, r6)
    bne(INSIDE)
    ldr(r7, [r3, 8])
    mov(r6, 12)
    mul(r7, r6)
    add(r2, r2, r7)  # padding table
    label(INSIDE)
    ldr(r4, [r3, 8])
    str(r4, [r3, 40])  # kx left
    label(KX)
    str(r2, [r3, 36])
    ldr(r1, [r3, 32])
    mov(r4, r1)  # destination
    ldr(r5, [r2, 0])
    add(r5, r5, r1)
    ldr(r6, [r3, 12])  # kp
    ldr(r7, [r3, 20])  # pad
    b(P1T)
    label(P1)
    strb(r7, [r4, 0])
    add(r4, r4, r6)
    label(P1T)
    cmp(r4, r5)
    blt(P1)
    ldr(r5, [r2, 4])
    add(r5, r5, r1)
    ldr(r0, [r3, 28])
    ldr(r7, [r2, 8])
    add(r0, r0, r7)  # source
    ldr(r1, [r3, 16])  # sw
    mov(r2, 0x80)
    b(P2T)
    label(P2)
    ldrb(r7, [r0, 0])
    eor(r7, r2)
    strb(r7, [r4, 0])
    add(r4, r4, r6)
    add(r0, r0, r1)
    label(P2T)
    cmp(r4, r5)
    blt(P2)
    ldr(r1, [r3, 32])
    ldr(r5, [r3, 24])
    add(r5, r5, r1)
    ldr(r7, [r3, 20])
    b(P3T)
    label(P3)
    strb(r7, [r4, 0])
    add(r4, r4, r6)
    label(P3T)
    cmp(r4, r5)
    blt(P3)
    add(r1, 1)
    str(r1, [r3, 32])
    ldr(r2, [r3, 36])
    add(r2, 12)
    ldr(r4, [r3, 40])
    sub(r4, 1)
    str(r4, [r3, 40])
    bgt(KX)
    ldr(r4, [r3, 56])
    sub(r4, 1)
    str(r4, [r3, 56])
    bgt(SEG)
    mov(r0, 0)


@micropython.asm_thumb
def psums(r0, r1, r2):
    ldr(r4, [r2, 48])  # pixels
    label(PX)
    mov(r3, r0)
    ldr(r5, [r2, 76])
    add(r5, r5, r0)
    mov(r6, 0)
    b(QT)
    label(Q)
    ldrb(r7, [r3, 0])
    add(r6, r6, r7)
    ldrb(r7, [r3, 1])
    add(r6, r6, r7)
    ldrb(r7, [r3, 2])
    add(r6, r6, r7)
    ldrb(r7, [r3, 3])
    add(r6, r6, r7)
    add(r3, 4)
    label(QT)
    cmp(r3, r5)
    blt(Q)
    ldr(r5, [r2, 80])
    add(r5, r5, r3)
    b(RT)
    label(R)
    ldrb(r7, [r3, 0])
    add(r6, r6, r7)
    add(r3, 1)
    label(RT)
    cmp(r3, r5)
    blt(R)
    str(r6, [r1, 0])
    add(r1, 4)
    ldr(r3, [r2, 12])
    add(r0, r0, r3)
    sub(r4, 1)
    bgt(PX)
    mov(r0, 0)
