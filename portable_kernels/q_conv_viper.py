"""Viper step of the int8 convolution / linear kernels (q_conv2d.py).

Imported only where the port has a native emitter (q_requant.HAS_VIPER).
Bytes are read unsigned: xb = x + 128 (gathered per output pixel, padding
as zx + 128) and wb = w + 128 (a copy made at load), so the dot product is
plain ptr8 loads; with C = bias - (128 + zx) * sum(w) per channel,
    acc = C + sum(xb * wb) - 128 * sum(xb)
equals bias + sum((x - zx) * w). Every intermediate fits a 32-bit word
(host_tools/quant_ref.check_viper_conv); the requantization is
q_requant.requant's, bit for bit. The step does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc

_OFF = 1 << 29  # per-channel values are stored non-negative (ptr32 loads zero-extend on 64-bit)


def prepare(x, weight, biases, ms, ss, ls, geom, zx, zo, lo, hi, out, what):
    oc_n = weight.sizes[0]
    k = weight.numel // oc_n
    wd = weight.data
    wb = bytearray(weight.numel)
    params = array("i", [0] * (4 * oc_n))
    for oc in range(oc_n):
        total = 0
        for i in range(oc * k, oc * k + k):
            v = wd[i]
            wb[i] = v + 128
            total += v
        params[4 * oc] = biases[oc] - (128 + zx) * total + _OFF
        params[4 * oc + 1] = ms[oc]
        params[4 * oc + 2] = ss[oc]
        params[4 * oc + 3] = ls[oc]
    g = array("i", [x.offset, out.offset] + list(geom) + [zx + 128, zo + 128, lo + 128, hi + 128])
    return _step, (x.buf, wb, out.buf, bytearray(k), params, g)


def _step(ctx):
    _conv(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5])


@micropython.viper
def _conv(x: ptr8, wt: ptr8, o: ptr8, col: ptr8, p: ptr32, g: ptr32):  # noqa: F821 (viper types)
    xoff = g[0]
    ooff = g[1]
    n = g[2]
    groups = g[3]
    opg = g[4]
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
    oh = g[16]
    ow = g[17]
    pad = g[18]
    zo = g[19] - 128
    lo = g[20] - 128
    hi = g[21] - 128
    hw = h * w
    kn = cpg * kh * kw
    k4 = kn - 3
    oc_n = groups * opg
    for b in range(n):
        for gi in range(groups):
            xb = xoff + (b * groups + gi) * cpg * hw
            for oy in range(oh):
                for ox in range(ow):
                    k = 0
                    sx = 0
                    for c in range(cpg):
                        cb = xb + c * hw
                        for ky in range(kh):
                            iy = oy * sh - ph + ky * dh
                            for kx in range(kw):
                                ix = ox * sw - pw + kx * dw
                                v = pad
                                if iy >= 0 and iy < h and ix >= 0 and ix < w:
                                    v = int(x[cb + iy * w + ix]) ^ 0x80
                                col[k] = v
                                sx += v
                                k += 1
                    oc = gi * opg
                    for _ in range(opg):
                        wb = oc * kn
                        d = 0
                        k = 0
                        while k < k4:
                            d += (
                                int(col[k]) * int(wt[wb + k])
                                + int(col[k + 1]) * int(wt[wb + k + 1])
                                + int(col[k + 2]) * int(wt[wb + k + 2])
                                + int(col[k + 3]) * int(wt[wb + k + 3])
                            )
                            k += 4
                        while k < kn:
                            d += int(col[k]) * int(wt[wb + k])
                            k += 1
                        pi = oc * 4
                        acc = int(p[pi]) - 0x20000000 + d - 128 * sx
                        m = int(p[pi + 1])
                        s = int(p[pi + 2])
                        lim = int(p[pi + 3])
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
                        o[ooff + ((b * oc_n + oc) * oh + oy) * ow + ox] = q & 0xFF
                        oc += 1


noalloc.mark(_step)
