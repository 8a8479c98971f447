"""Viper steps of mpy_et_quant::max_pool2d (quantized/op_max_pool2d.py),
bit-identical with its pure-Python step: 2x2 stride 2 windows by row
pointers, any other window by offsets. Imported only where the port has a
native emitter (q_requant.use_viper). Bytes load unsigned: (v ^ 0x80) - 128
is the signed value. Parameters sit in an int32 array. Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare_max_pool(x, out, planes, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow):
    p = array("i", [planes, h, w, kh, kw, sh, sw, ph, pw, dh, dw, oh, ow, x.offset, out.offset])
    if (kh, kw, sh, sw, ph, pw, dh, dw) == (2, 2, 2, 2, 0, 0, 1, 1):
        return _pool2_step, (x.buf, out.buf, p)
    return _pool_step, (x.buf, out.buf, p)


def _pool2_step(ctx):
    _pool2(0, 0, ctx[1], ctx[0], ctx[2])


@micropython.viper
def _pool2(a: ptr8, b: ptr8, o: ptr8, xobj, pobj):  # noqa: F821 (viper types)
    """2x2 windows, stride 2, no padding: two row pointers and the output
    pointer (the first locals: x64 viper's register locals) walk the rows."""
    p = ptr32(pobj)  # noqa: F821
    planes = int(p[0])
    h = int(p[1])
    w = int(p[2])
    oh = int(p[11])
    ow = int(p[12])
    row = int(ptr8(xobj)) + int(p[13])  # noqa: F821
    o = ptr8(int(o) + int(p[14]))  # noqa: F821
    for _ in range(planes):
        r = row
        for _oy in range(oh):
            a = ptr8(r)  # noqa: F821
            b = ptr8(r + w)  # noqa: F821
            for _ox in range(ow):
                m = int(a[0]) ^ 0x80
                v = int(a[1]) ^ 0x80
                if v > m:
                    m = v
                v = int(b[0]) ^ 0x80
                if v > m:
                    m = v
                v = int(b[1]) ^ 0x80
                if v > m:
                    m = v
                o[0] = m ^ 0x80
                o = ptr8(int(o) + 1)  # noqa: F821
                a = ptr8(int(a) + 2)  # noqa: F821
                b = ptr8(int(b) + 2)  # noqa: F821
            r += w + w
        row += h * w


def _pool_step(ctx):
    _pool(ctx[0], ctx[1], ctx[2])


@micropython.viper
def _pool(x: ptr8, o: ptr8, p: ptr32):  # noqa: F821 (viper types)
    planes = int(p[0])
    h = int(p[1])
    w = int(p[2])
    kh = int(p[3])
    kw = int(p[4])
    sh = int(p[5])
    sw = int(p[6])
    ph = int(p[7])
    pw = int(p[8])
    dh = int(p[9])
    dw = int(p[10])
    oh = int(p[11])
    ow = int(p[12])
    base = int(p[13])
    oi = int(p[14])
    for _ in range(planes):
        for oy in range(oh):
            y0 = oy * sh - ph
            for ox in range(ow):
                x0 = ox * sw - pw
                best = 0  # unsigned: 0 stands for -128, below every value but equal to -128 (padding never wins)
                found = 0
                iy = y0
                for _ky in range(kh):
                    if iy >= 0 and iy < h:
                        rb = base + iy * w
                        ix = x0
                        for _kx in range(kw):
                            if ix >= 0 and ix < w:
                                v = x[rb + ix] ^ 0x80
                                if found == 0 or v > best:
                                    best = v
                                    found = 1
                            ix += dw
                    iy += dh
                o[oi] = best ^ 0x80
                oi += 1
        base += h * w


noalloc.mark(_pool_step, _pool2_step)
