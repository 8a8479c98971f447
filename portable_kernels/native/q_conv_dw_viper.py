"""Viper step of the int8 depthwise convolution (one input and one output
channel per group, kernel larger than 1x1), used by q_conv_viper.prepare.

Per channel plane and output pixel, the window is read straight from the
input (no patch copy): pixels whose window lies inside the input take a
loop without bounds checks, border pixels read padding as zx + 128. The
arithmetic is q_conv_viper's (unsigned bytes, folded per-channel constant,
q_requant.requant's split multiply), so the results are bit-identical to
the reference. Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.util import scratch
from portable_kernels.util.emitters import HAS_THUMB


def prepare(x, weight, params, geom, tail, out):
    kn = weight.numel // weight.sizes[0]
    wd = weight.data
    kh, kw, dh, dw = geom[6], geom[7], geom[12], geom[13]
    if kh == 3 and kw == 3 and dh == 1 and dw == 1:
        if HAS_THUMB:
            return _prepare_thumb(x, weight, params, geom, tail, out)
        return _prepare_3x3(x, weight, params, geom, tail, out)
    wb = bytearray(weight.numel)
    for i in range(weight.numel):
        wb[i] = wd[i] + 128
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [kn])
    return _step, (x.buf, wb, out.buf, params, g)


def _step(ctx):
    _dw(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4])


@micropython.viper
def _dw(x: ptr8, wt: ptr8, o: ptr8, p: ptr32, g: ptr32):  # noqa: F821 (viper types)
    n = g[2]
    ch = g[3]
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
    oh = g[16]
    ow = g[17]
    pad = g[18]
    zo = g[19] - 128
    lo = g[20] - 128
    hi = g[21] - 128
    kn = g[22]
    hw = h * w
    ystep = dh * w
    oi = g[1]
    for plane in range(n * ch):
        c = plane % ch
        xb = g[0] + plane * hw
        wb0 = c * kn
        pi = c * 4
        base = int(p[pi]) - 0x20000000
        m = int(p[pi + 1])
        s = int(p[pi + 2])
        lim = int(p[pi + 3])
        for oy in range(oh):
            iy0 = oy * sh - ph
            rows_in = iy0 >= 0 and iy0 + (kh - 1) * dh < h
            for ox in range(ow):
                ix0 = ox * sw - pw
                d = 0
                sx = 0
                wi = wb0
                if rows_in and ix0 >= 0 and ix0 + (kw - 1) * dw < w:
                    rb = xb + iy0 * w + ix0
                    for _ky in range(kh):
                        i = rb
                        for _kx in range(kw):
                            v = int(x[i]) ^ 0x80
                            d += v * int(wt[wi])
                            sx += v
                            wi += 1
                            i += dw
                        rb += ystep
                else:
                    for ky in range(kh):
                        iy = iy0 + ky * dh
                        for kx in range(kw):
                            ix = ix0 + kx * dw
                            v = pad
                            if iy >= 0 and iy < h and ix >= 0 and ix < w:
                                v = int(x[xb + iy * w + ix]) ^ 0x80
                            d += v * int(wt[wi])
                            sx += v
                            wi += 1
                acc = base + d - 128 * sx
                if acc > lim:
                    acc = lim
                elif acc < 0 - lim:
                    acc = 0 - lim
                if s < 22:
                    r = (acc * m + (1 << (s - 1))) >> s
                else:
                    r = ((acc >> 15) * m + (((acc & 0x7FFF) * m) >> 15) + (1 << (s - 16))) >> (s - 15)
                q = zo + r
                if q < lo:
                    q = lo
                elif q > hi:
                    q = hi
                o[oi] = q & 0xFF
                oi += 1


def _prepare_thumb(x, weight, params, geom, tail, out):
    """3x3, dilation 1, on Arm: each channel plane is copied unsigned into a
    padded buffer, q_dw_thumb.dw3x3 computes every window's dot product with
    signed taps, q_requant_thumb.rows requantizes. Same integers as the other steps:
    sum(xb * w) = sum(xb * wb) - 128 * sum(xb) (params' constant is kept)."""
    from portable_kernels.native.q_dw_thumb import dw3x3, pad_plane
    from portable_kernels.native.q_requant_thumb import make_ctl, rows

    n, ch, _, _, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    wd = weight.data
    taps = array("i", [wd[i] for i in range(weight.numel)])
    wp, hp = w + 2 * pw, h + 2 * ph
    ctl = array("i", [wp, sw, ow, oh, sh * wp, 0, 0, 0, 0])
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [wp, hp])
    # requantized by q_requant_thumb.rows as one channel of oh * ow pixels whose patch sums are 0
    rqctl = make_ctl(params, ch, 1, oh * ow, oh * ow, tail[1] - 128, tail[2] - 128, tail[3] - 128)
    zeros = scratch.rows("zero", oh * ow)  # never written
    pctl = array("i", [0, w, h, pw, ph * wp, (hp - h - ph) * wp, tail[0], 0])  # q_dw_thumb.pad_plane's
    ctx = (
        x.buf,
        taps,
        out.buf,
        params,
        g,
        scratch.rows("col", wp * hp),
        scratch.rows("acc", oh * ow),
        ctl,
        dw3x3,
        rows,
        rqctl,
        zeros,
        pad_plane,
        pctl,
    )
    return _step_thumb, ctx


def _step_thumb(ctx):
    _dw_planes(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5], ctx[6], ctx[7], ctx[8], ctx[9], ctx[10], ctx[11], ctx[12], ctx[13])


@micropython.viper
def _dw_planes(xobj, tapobj, oobj, pobj, gobj, padobj, dobj, ctlobj, kern, rq, rqobj, zobj, padfn, pctlobj):
    g = ptr32(gobj)  # noqa: F821
    ctl = ptr32(ctlobj)  # noqa: F821
    pctl = ptr32(pctlobj)  # noqa: F821
    n = g[2]
    ch = g[3]
    npx = g[16] * g[17]
    hw = g[6] * g[7]
    for plane in range(n * ch):
        c = plane % ch
        pctl[0] = g[0] + plane * hw
        padfn(xobj, padobj, pctlobj)
        ctl[5] = c * 36
        kern(padobj, tapobj, dobj, ctlobj)
        rc = ptr32(rqobj)  # noqa: F821
        rc[3] = g[1] + plane * npx
        rc[5] = 64 + c * 32
        rq(dobj, zobj, oobj, rqobj)


@micropython.viper
def _pad_plane(x: ptr8, pb: ptr8, g: ptr32, plane: int):  # noqa: F821
    """The padded, unsigned copy of one channel plane (borders rewritten: the buffer is shared)."""
    h = g[6]
    w = g[7]
    ph = g[12]
    pw = g[13]
    pad = g[18]
    wp = g[22]
    hp = g[23]
    i = 0
    end = ph * wp
    while i < end:
        pb[i] = pad
        i += 1
    src = g[0] + plane * h * w
    for _y in range(h):
        for _x in range(pw):
            pb[i] = pad
            i += 1
        e = src + w
        while src < e:
            pb[i] = x[src] ^ 0x80
            i += 1
            src += 1
        for _x in range(pw):
            pb[i] = pad
            i += 1
    end = hp * wp
    while i < end:
        pb[i] = pad
        i += 1


def _prepare_3x3(x, weight, params, geom, tail, out):
    """3x3, dilation 1, viper without asm_thumb: each channel plane is copied
    unsigned into a padded buffer (_pad_plane) and every window is read there
    through three row pointers with constant offsets, dotted with signed taps:
    sum(xb * w) = sum(xb * wb) - 128 * sum(xb), so params' constant is kept and
    no patch sum is needed (padding, zx + 128, cancels in the constant)."""

    n, ch, _, _, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow = geom
    wd = weight.data
    wb = bytearray(weight.numel)
    for i in range(weight.numel):
        wb[i] = wd[i] + 128
    wp, hp = w + 2 * pw, h + 2 * ph
    g = array("i", [x.offset, out.offset] + list(geom) + tail + [wp, hp])
    return _step_3x3, (x.buf, wb, out.buf, params, g, scratch.rows("col", wp * hp))


def _step_3x3(ctx):
    _dw3x3(0, 0, 0, ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5])


@micropython.viper
def _dw3x3(a: ptr8, b: ptr8, c: ptr8, xobj, wobj, oobj, pobj, gobj, padobj):  # noqa: F821
    # a, b, c (the three window rows) are the first locals: the ones x64 viper keeps in registers
    wt = ptr8(wobj)  # noqa: F821
    o = ptr8(oobj)  # noqa: F821
    p = ptr32(pobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    n = g[2]
    ch = g[3]
    sh = g[10]
    sw = g[11]
    oh = g[16]
    ow = g[17]
    zo = g[19] - 128
    lo = g[20] - 128
    hi = g[21] - 128
    wp = g[22]
    pbase = int(ptr8(padobj))  # noqa: F821
    oi = g[1]
    for plane in range(n * ch):
        cc = plane % ch
        _pad_plane(xobj, padobj, gobj, plane)
        t = cc * 9
        w0 = int(wt[t]) - 128
        w1 = int(wt[t + 1]) - 128
        w2 = int(wt[t + 2]) - 128
        w3 = int(wt[t + 3]) - 128
        w4 = int(wt[t + 4]) - 128
        w5 = int(wt[t + 5]) - 128
        w6 = int(wt[t + 6]) - 128
        w7 = int(wt[t + 7]) - 128
        w8 = int(wt[t + 8]) - 128
        pi = cc * 4
        base = int(p[pi]) - 0x20000000
        m = int(p[pi + 1])
        s = int(p[pi + 2])
        lim = int(p[pi + 3])
        row = pbase
        for _oy in range(oh):
            a = ptr8(row)  # noqa: F821
            b = ptr8(row + wp)  # noqa: F821
            c = ptr8(row + wp + wp)  # noqa: F821
            for _ox in range(ow):
                acc = base + (
                    int(a[0]) * w0
                    + int(a[1]) * w1
                    + int(a[2]) * w2
                    + int(b[0]) * w3
                    + int(b[1]) * w4
                    + int(b[2]) * w5
                    + int(c[0]) * w6
                    + int(c[1]) * w7
                    + int(c[2]) * w8
                )
                a = ptr8(int(a) + sw)  # noqa: F821
                b = ptr8(int(b) + sw)  # noqa: F821
                c = ptr8(int(c) + sw)  # noqa: F821
                if acc > lim:
                    acc = lim
                elif acc < 0 - lim:
                    acc = 0 - lim
                if s < 22:
                    r = (acc * m + (1 << (s - 1))) >> s
                else:
                    r = ((acc >> 15) * m + (((acc & 0x7FFF) * m) >> 15) + (1 << (s - 16))) >> (s - 15)
                q = zo + r
                if q < lo:
                    q = lo
                elif q > hi:
                    q = hi
                o[oi] = q & 0xFF
                oi += 1
            row += sh * wp


noalloc.mark(_step)
noalloc.mark(_step_thumb)
noalloc.mark(_step_3x3)
