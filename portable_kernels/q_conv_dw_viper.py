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


def prepare(x, weight, params, geom, tail, out):
    kn = weight.numel // weight.sizes[0]
    wd = weight.data
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


noalloc.mark(_step)
