"""Viper step of mpy_et_quant::mul (quantized/op_mul.py), bit-identical with
its pure-Python step. Imported only where the port has a native emitter
(q_requant.use_viper). Bytes load unsigned: (v ^ 0x80) - 128 is the signed
value. The product is at most 255 * 255 and the requantization is
q_requant.requant's, evaluated the same way, so every intermediate fits a
32-bit word. Parameters sit in an int32 array as non-negative values (ptr32
loads zero-extend on 64-bit ports). Does not allocate: recurrent cells run
dozens of these on 32-element tensors, so the per-element work is machine
code.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare_mul(a, b, out, za, zb, m, s, lim, zo, lo, hi):
    p = array("i", [out.numel, 128 + za, 128 + zb, m, s, lim, 128 + zo, 128 + lo, 128 + hi, a.offset, b.offset, out.offset])
    return _mul_step, (a.buf, b.buf, out.buf, p)


def _mul_step(ctx):
    _mul(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _mul(a: ptr8, b: ptr8, o: ptr8, p: ptr32):  # noqa: F821 (viper types)
    n = int(p[0])
    ca = int(p[1])
    cb = int(p[2])
    mult = int(p[3])
    s = int(p[4])
    lim = int(p[5])
    zo = int(p[6]) - 128
    lo = int(p[7]) - 128
    hi = int(p[8]) - 128
    ai = int(p[9])
    bi = int(p[10])
    oi = int(p[11])
    end = oi + n
    split = s >= 22
    if split:
        half = 1 << (s - 16)
    else:
        half = 1 << (s - 1)
    while oi < end:
        acc = ((a[ai] ^ 0x80) - ca) * ((b[bi] ^ 0x80) - cb)
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


noalloc.mark(_mul_step)
