"""Viper step of mpy_et_quant::avg_pool2d (quantized/op_avg_pool2d.py), imported only
where the port has a native emitter (q_requant.use_viper).

Bytes load unsigned (x ^ 0x80 = x + 128), so a window's sum(x - zx) is
sum(xb) - (128 + zx) * kh * kw; the requantization is q_requant.requant's,
bit for bit. Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc
from portable_kernels.quantized.requant import SPLIT_FROM


def prepare_avg(x, out, planes, h, w, kh, kw, sh, sw, oh, ow, zx, m, s, lim, zo):
    g = array("i", [x.offset, out.offset, planes, h, w, kh, kw, sh, sw, oh, ow, (128 + zx) * kh * kw, m, s, lim, zo + 128, SPLIT_FROM])
    return _avg_step, (x.buf, out.buf, g)


def _avg_step(ctx):
    _avg(ctx[0], ctx[1], ctx[2])


@micropython.viper
def _avg(x: ptr8, o: ptr8, g: ptr32):  # noqa: F821 (viper types)
    planes = g[2]
    h = g[3]
    w = g[4]
    kh = g[5]
    kw = g[6]
    sh = g[7]
    sw = g[8]
    oh = g[9]
    ow = g[10]
    bias = g[11]
    m = g[12]
    s = g[13]
    lim = g[14]
    zo = g[15] - 128
    split = g[16]
    oi = g[1]
    base = g[0]
    for _p in range(planes):
        for oy in range(oh):
            for ox in range(ow):
                acc = 0 - bias
                rb = base + oy * sh * w + ox * sw
                for _ky in range(kh):
                    i = rb
                    e = rb + kw
                    while i < e:
                        acc += int(x[i]) ^ 0x80
                        i += 1
                    rb += w
                if acc > lim:
                    acc = lim
                elif acc < 0 - lim:
                    acc = 0 - lim
                if s < split:
                    r = (acc * m + (1 << (s - 1))) >> s
                else:
                    r = ((acc >> 15) * m + (((acc & 0x7FFF) * m) >> 15) + (1 << (s - 16))) >> (s - 15)
                q = zo + r
                if q < -128:
                    q = -128
                elif q > 127:
                    q = 127
                o[oi] = q & 0xFF
                oi += 1
        base += h * w


noalloc.mark(_avg_step)
