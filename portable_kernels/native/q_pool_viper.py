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
from portable_kernels.util.emitters import HAS_THUMB


def prepare_avg(x, out, planes, h, w, kh, kw, sh, sw, oh, ow, zx, m, s, lim, zo):
    g = array("i", [x.offset, out.offset, planes, h, w, kh, kw, sh, sw, oh, ow, (128 + zx) * kh * kw, m, s, lim, zo + 128, SPLIT_FROM])
    fn = None
    if HAS_THUMB and kh * kw >= 16:  # the window summed in assembler (ds_cnn's 25 x 5: 345,000 -> 89,000 instructions on a Cortex-M7)
        from portable_kernels.native.q_pool_thumb import wsum as fn
    g.append(0 if fn is None else 1)
    return _avg_step, (x.buf, out.buf, g, fn)


def _avg_step(ctx):
    _avg(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _avg(xobj, o: ptr8, gobj, fn):  # noqa: F821 (viper types)
    x = ptr8(xobj)  # noqa: F821
    g = ptr32(gobj)  # noqa: F821
    thumb = g[17]  # 1: the window sums are fn's
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
                if thumb:
                    acc += int(fn(xobj, rb, gobj))
                else:
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
