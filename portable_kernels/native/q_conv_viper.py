"""Viper steps of the int8 convolution / linear kernels (quantized/op_conv2d_packed.py).

Imported only where the port has a native emitter (q_requant.use_viper).
Bytes are read unsigned: xb = x + 128 (padding as zx + 128) and the packed
weights wb = w + 128 (host_tools/quantize/pack.py, read where they lie), so
a dot product is plain byte loads; with the channel table's
C = bias - (128 + zx) * sum(w),
    acc = C + sum(xb * wb) - 128 * sum(xb)
equals bias + sum((x - zx) * w). Every intermediate fits a 32-bit word
(host_tools/quantize/ref.check_viper_conv); the requantization is
q_requant.requant's, bit for bit.

Regular / pointwise convolution and linear work one output row at a time:
_gather writes the patch of every pixel of the row (kp bytes each, kp =
patch length rounded up to 4, the tail left 0) and its byte sum; a dot
kernel computes every (pixel, output channel) dot of the group into an
int32 row (q_dot_thumb.dots in Arm Thumb assembly where the port has it,
q_dots_viper.dots elsewhere; both read the packed channel pairs);
_requant_row writes the int8 outputs. Depthwise convolution (one input and
one output channel per group) has its own step in native/q_conv_dw_viper.py.
No step allocates; the constants are not copied.
"""

from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.util import scratch
from portable_kernels.util.emitters import HAS_THUMB


def prepare(x, weight, channels, geom, zx, zo, lo, hi, out):
    """(step, ctx) of a checked convolution (quantized/op_conv2d_packed.make)."""
    n, groups, opg, cpg, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    params = channels.buffer  # (C + 2**29, M, s, L) per channel, in place
    wt = weight.buffer
    tail = [zx + 128, zo + 128, lo + 128, hi + 128]
    if cpg == 1 and opg == 1 and kh * kw > 1:
        from portable_kernels.native import q_conv_dw_viper

        return q_conv_dw_viper.prepare(x, weight, channels, geom, tail, out)
    if not HAS_THUMB and (opg <= 2 or cpg == 1) and kh == 3 and kw == 3 and dh == 1 and dw == 1 and cpg <= 1024:
        from portable_kernels.native import q_conv_direct_viper

        return q_conv_direct_viper.prepare(x, weight, channels, geom, tail, out)
    kp = weight.sizes[1]
    kn = cpg * kh * kw
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [kn, kp])
    # dot control: pixels, kp, channels, weight offset, the kernel's scratch, channel pairs, odd channel
    ctl = array("i", [ow, kp, opg, 0, 0, 0, 0, 0, 0, opg >> 1, opg & 1])
    rq = rqctl = None
    if HAS_THUMB:
        from portable_kernels.native.q_dot_thumb import dots
        from portable_kernels.native.q_requant_thumb import make_ctl, rows

        rqctl = make_ctl(opg, ow, oh * ow, zo, lo, hi)
        rq = rows
    else:
        from portable_kernels.native.q_dots_viper import dots
    g.append(1 if rq is not None else 0)  # g[24]: requantize with the Thumb rows
    gx = None
    if HAS_THUMB:
        from portable_kernels.native import q_gather_thumb

        gx = q_gather_thumb.prepare(geom, tail[0], kn, kp)
    g.append(1 if gx is not None else 0)  # g[25]: gather with q_gather_thumb
    ctx = (
        x.buf,
        out.buf,
        params,
        g,
        scratch.rows("col", ow * kp),
        scratch.rows("sx", ow),
        wt,
        scratch.rows("acc", ow * opg),
        ctl,
        dots,
        rq,
        rqctl,
        gx,
    )
    return _step, ctx


def _step(ctx):
    _conv_rows(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5], ctx[6], ctx[7], ctx[8], ctx[9], ctx[10], ctx[11], ctx[12])


@micropython.viper
def _conv_rows(xobj, oobj, pobj, gobj, colobj, sxobj, wtobj, accobj, ctlobj, dots, rq, rqobj, gx):
    # objects, not pointers, are passed on: a pointer argument would be boxed as an int
    ctl = ptr32(ctlobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    thumb_rq = g[24]
    thumb_gather = g[25]
    gth = gx  # an object local: q_gather_thumb.gather where used
    if thumb_gather:
        gth = gx[4]
    ow = g[17]
    n = g[2]
    groups = g[3]
    opg = g[4]
    kp = g[23]
    oh = g[16]
    for b in range(n):
        for gi in range(groups):
            ctl[3] = gi * opg * kp
            if thumb_rq:
                rc = ptr32(rqobj)  # noqa: F821
                rc[5] = int(ptr8(pobj)) + gi * opg * 16  # noqa: F821 (the group's channel table entries)
            for oy in range(oh):
                if thumb_gather:
                    gth(xobj, gobj, colobj, sxobj, b * groups + gi, oy, gx)
                else:
                    _gather(xobj, colobj, 0, gobj, sxobj, colobj, b * groups + gi, oy)
                if thumb_rq:
                    dots(colobj, wtobj, accobj, ctlobj)
                else:
                    dots(colobj, wtobj, 0, accobj, ctlobj)
                if thumb_rq:
                    rc = ptr32(rqobj)  # noqa: F821
                    rc[3] = g[1] + ((b * groups + gi) * opg * oh + oy) * ow
                    rq(accobj, sxobj, oobj, rqobj)
                else:
                    _requant_row(0, 0, 0, pobj, gobj, accobj, sxobj, oobj, b, gi, oy)


@micropython.viper
def _gather(x: ptr8, col: ptr8, d: int, g: ptr32, sxobj, colobj, plane: int, oy: int):  # noqa: F821
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
def _requant_row(o: ptr8, a: ptr32, sx: ptr32, pobj, gobj, accobj, sxobj, oobj, b: int, gi: int, oy: int):  # noqa: F821
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
    pi = gi * opg * 4
    for k in range(opg):  # channel outer: its constants stay in locals
        base = int(p[pi]) - 0x20000000
        m = int(p[pi + 1])
        s = int(p[pi + 2])
        lim = int(p[pi + 3])
        pi += 4
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


noalloc.mark(_step)
