"""Viper steps of mpy_et_quant::add, ::max_pool2d and ::dequantize_per_tensor
(quantized/op_add.py, quantized/op_max_pool2d.py, quantized/op_dequantize_per_tensor.py),
bit-identical with their pure-Python steps. Imported only where the port has
a native emitter (q_requant.use_viper). Bytes load unsigned: (v ^ 0x80) - 128
is the signed value. add's accumulator is at most 2 * 255 * 2**14 and the
requantization is q_requant.requant's, evaluated the same way, so every
intermediate fits a 32-bit word. Parameters sit in an int32 array as
non-negative values (ptr32 loads zero-extend on 64-bit ports). Neither step
allocates.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare_add(a, b, out, za, ma, zb, mb, m, s, lim, zo, lo, hi):
    # multipliers may be negative (sub): stored + 2**15
    p = array(
        "i",
        [out.numel, 128 + za, ma + 32768, 128 + zb, mb + 32768, m, s, lim, 128 + zo, 128 + lo, 128 + hi, a.offset, b.offset, out.offset],
    )
    return _add_step, (a.buf, b.buf, out.buf, p)


def _add_step(ctx):
    _add(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _add(a: ptr8, b: ptr8, o: ptr8, p: ptr32):  # noqa: F821 (viper types)
    n = int(p[0])
    ca = int(p[1])
    ma = int(p[2]) - 32768
    cb = int(p[3])
    mb = int(p[4]) - 32768
    mult = int(p[5])
    s = int(p[6])
    lim = int(p[7])
    zo = int(p[8]) - 128
    lo = int(p[9]) - 128
    hi = int(p[10]) - 128
    ai = int(p[11])
    bi = int(p[12])
    oi = int(p[13])
    end = oi + n
    split = s >= 22
    if split:
        half = 1 << (s - 16)
    else:
        half = 1 << (s - 1)
    while oi < end:
        acc = ((a[ai] ^ 0x80) - ca) * ma + ((b[bi] ^ 0x80) - cb) * mb
        if acc > lim:
            acc = lim
        elif acc < 0 - lim:
            acc = 0 - lim
        if split:
            r = ((acc >> 15) * mult + (((acc & 0x7FFF) * mult) >> 15) + half) >> (s - 15)
        else:
            r = (acc * mult + half) >> s
        q = zo + r
        if q < lo:
            q = lo
        elif q > hi:
            q = hi
        o[oi] = q & 0xFF
        ai += 1
        bi += 1
        oi += 1


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


noalloc.mark(_add_step, _pool_step, _pool2_step)


def prepare_dequantize(x, table, out):
    p = array("i", [out.numel, x.offset, table.offset + 512, out.offset])
    return _dequantize_step, (x.buf, table.buf, out.buf, p)


def _dequantize_step(ctx):
    _dequantize(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _dequantize(x: ptr8, t: ptr8, o: ptr8, p: ptr32):  # noqa: F821 (viper types)
    n = int(p[0])
    xi = int(p[1])
    t0 = int(p[2])  # the entry of value 0; value v at t0 + 4 * v
    oi = int(p[3])
    end = xi + n
    while xi < end:
        e = t0 + 4 * ((x[xi] ^ 0x80) - 128)
        o[oi] = t[e]
        o[oi + 1] = t[e + 1]
        o[oi + 2] = t[e + 2]
        o[oi + 3] = t[e + 3]
        xi += 1
        oi += 4


noalloc.mark(_dequantize_step)
