"""Viper row gather and requantization of the int8 convolution / linear rows
(native/q_conv_viper.py) on ports without asm_thumb (and, on Arm, for a
kernel taller than q_gather_thumb takes). Same integers as
q_gather_thumb and q_requant_thumb: the patches unsigned (x + 128, padding
zx + 128, the tail 0) with their byte sums; acc = C + dot - 128 * sum,
requantized as q_requant.requant, bit for bit. Does not allocate.
"""

import micropython

_SHARED = []


def shared():
    """(gather, requant_row), one tuple for every step that uses them."""
    if not _SHARED:
        _SHARED.append((gather, requant_row))
    return _SHARED[0]


@micropython.viper
def gather(x: ptr8, col: ptr8, d: int, g: ptr32, sxobj, colobj, plane: int, oy: int):  # noqa: F821
    """The patches of output row oy, unsigned, and their byte sums. x, col and
    d (the copy's source, destination and index) are the first locals: the
    ones x64 viper keeps in registers."""
    sxs = ptr32(sxobj)  # noqa: F821
    cpg = g[5]
    h = g[6]
    w = g[7]
    kh = g[8]
    kw = g[9]
    sh = g[10]
    sw = g[11]
    ph = g[12]
    pw = g[13]
    dh = g[14]
    dw = g[15]
    ow = g[17]
    pad = g[18]
    kp = g[23]
    hw = h * w
    xb = g[0] + plane * cpg * hw
    iy0 = oy * sh - ph
    rows_in = iy0 >= 0 and iy0 + (kh - 1) * dh < h
    if kh == 1 and kw == 1 and rows_in and pw == 0:  # pointwise: the patch is one pixel's channels
        rb = xb + iy0 * w
        for ox in range(ow):
            i = rb + ox * sw
            d = ox * kp
            e = d + cpg
            sx = 0
            while d < e:
                v = int(x[i]) ^ 0x80
                col[d] = v
                sx += v
                d += 1
                i += hw
            sxs[ox] = sx
        return
    # patch position k = (c, ky, kx) for every pixel at once: a strided copy
    # of the input row between two runs of padding (the tail k >= kn is 0)
    xa = int(x)
    kp2 = kp + kp
    kp3 = kp2 + kp
    kp4 = kp3 + kp
    k = 0
    for c in range(cpg):
        cb = xb + c * hw
        for ky in range(kh):
            iy = iy0 + ky * dh
            for kx in range(kw):
                t = pw - kx * dw  # ix = ox * sw - t
                lo = ow
                hi = ow
                if iy >= 0 and iy < h:
                    lo = 0
                    if t > 0:
                        lo = (t + sw - 1) // sw
                    hi = 0
                    if w - 1 + t >= 0:
                        hi = (w - 1 + t) // sw + 1
                    if hi > ow:
                        hi = ow
                    if lo > hi:
                        lo = hi
                d = k
                e = lo * kp + k
                while d < e:
                    col[d] = pad
                    d += kp
                e = hi * kp + k
                x = ptr8(xa + cb + iy * w + lo * sw - t)  # noqa: F821
                if sw == 1:  # four bytes per pass
                    while d < e - kp3:
                        col[d] = x[0] ^ 0x80
                        col[d + kp] = x[1] ^ 0x80
                        col[d + kp2] = x[2] ^ 0x80
                        col[d + kp3] = x[3] ^ 0x80
                        d += kp4
                        x = ptr8(int(x) + 4)  # noqa: F821
                while d < e:
                    col[d] = x[0] ^ 0x80
                    d += kp
                    x = ptr8(int(x) + sw)  # noqa: F821
                e = ow * kp + k
                while d < e:
                    col[d] = pad
                    d += kp
                k += 1
    while k < kp:
        d = k
        e = ow * kp + k
        while d < e:
            col[d] = 0
            d += kp
        k += 1
    _patch_sums(colobj, sxobj, ow, kp)


@micropython.viper
def _patch_sums(cw: ptr32, sxs: ptr32, ow: int, kp: int):  # noqa: F821
    """sxs[ox] = byte sum of patch ox (kp bytes, kp % 4 == 0), four bytes per
    word load: two 16-bit lanes of byte pairs, flushed every 128 words (a lane
    then holds at most 128 * 510 < 2**16; 32-bit safe)."""
    q = 0
    n4 = kp >> 2
    for ox in range(ow):
        sx = 0
        e = q + n4
        while q < e:
            f = q + 128
            if f > e:
                f = e
            acc = 0
            while q < f:
                v = int(cw[q])
                acc += (v & 0xFF00FF) + ((v >> 8) & 0xFF00FF)
                q += 1
            sx += (acc & 0xFFFF) + ((acc >> 16) & 0xFFFF)
        sxs[ox] = sx


@micropython.viper
def requant_row(o: ptr8, a: ptr32, sx: ptr32, pobj, gobj, accobj, sxobj, oobj, b: int, gi: int, oy: int):  # noqa: F821
    # o, a, sx (output, dot and patch-sum pointers, rebased per channel and
    # walked per pixel) are the first locals: the ones x64 viper keeps in registers
    p = ptr32(pobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    groups = g[3]
    opg = g[4]
    oh = g[16]
    ow = g[17]
    zo = g[19] - 128
    lo = g[20] - 128
    hi = g[21] - 128
    plane = oh * ow
    ob = int(ptr8(oobj)) + g[1] + ((b * groups + gi) * opg * oh + oy) * ow  # noqa: F821
    ab = int(ptr32(accobj))  # noqa: F821
    sb = int(ptr32(sxobj))  # noqa: F821
    astep = 4 * opg
    pi = gi * opg * 8
    for k in range(opg):  # channel outer: its constants stay in locals
        base = int(p[pi]) - 0x20000000
        m = int(p[pi + 1])
        s = int(p[pi + 2])
        lim = int(p[pi + 3])
        pi += 8
        o = ptr8(ob + k * plane)  # noqa: F821
        a = ptr32(ab + 4 * k)  # noqa: F821
        sx = ptr32(sb)  # noqa: F821
        rnd = 1 << (s - 1)
        if s >= 22:
            rnd = 1 << (s - 16)
        for _ox in range(ow):
            acc = base + int(a[0]) - (int(sx[0]) << 7)
            a = ptr32(int(a) + astep)  # noqa: F821
            sx = ptr32(int(sx) + 4)  # noqa: F821
            if acc > lim:
                acc = lim
            elif acc < 0 - lim:
                acc = 0 - lim
            if s < 22:
                r = (acc * m + rnd) >> s
            else:
                r = ((acc >> 15) * m + (((acc & 0x7FFF) * m) >> 15) + rnd) >> (s - 15)
            q = zo + r
            if q < lo:
                q = lo
            elif q > hi:
                q = hi
            o[0] = q & 0xFF
            o = ptr8(int(o) + 1)  # noqa: F821
