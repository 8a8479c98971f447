"""Viper step of mpy_et_quant::bmm (quantized/op_bmm.py), bit-identical with its
pure-Python step. Imported only where the port has a native emitter
(q_requant.use_viper). Bytes load unsigned: (v ^ 0x80) - 128 is the signed
value, so (a - za) = (a_byte ^ 0x80) - (128 + za). Every intermediate fits a
32-bit word: |acc| <= K * 255 * 255 < 2**30 (K bounded at load) and the
requantization is q_requant.requant's, evaluated the same way. Parameters sit
in an int32 array as non-negative values (ptr32 loads zero-extend on 64-bit
ports). Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare(a, b, out, nb, m, k, n, za, zb, mult, s, lim, zo, lo, hi):
    p = array("i", [nb, m, k, n, 128 + za, 128 + zb, mult, s, lim, 128 + zo, 128 + lo, 128 + hi, a.offset, b.offset, out.offset])
    return _step, (a.buf, b.buf, out.buf, p)


def _step(ctx):
    _bmm(ctx[0], ctx[1], ctx[2], ctx[3])


noalloc.mark(_step)


@micropython.viper
def _bmm(a: ptr8, b: ptr8, o: ptr8, p: ptr32):  # noqa: F821
    nb = int(p[0])
    m = int(p[1])
    k = int(p[2])
    n = int(p[3])
    ca = int(p[4])
    cb = int(p[5])
    mult = int(p[6])
    s = int(p[7])
    lim = int(p[8])
    zo = int(p[9]) - 128
    lo = int(p[10]) - 128
    hi = int(p[11]) - 128
    ai = int(p[12])
    b0 = int(p[13])
    oi = int(p[14])
    for _bi in range(nb):
        for _i in range(m):
            end = ai + k
            for j in range(n):
                acc = 0
                bj = b0 + j
                t = ai
                while t < end:
                    acc += ((a[t] ^ 0x80) - ca) * ((b[bj] ^ 0x80) - cb)
                    t += 1
                    bj += n
                if acc > lim:
                    acc = lim
                elif acc < 0 - lim:
                    acc = 0 - lim
                if s < 22:
                    r = (acc * mult + (1 << (s - 1))) >> s
                else:
                    r = ((acc >> 15) * mult + (((acc & 0x7FFF) * mult) >> 15) + (1 << (s - 16))) >> (s - 15)
                q = zo + r
                if q < lo:
                    q = lo
                elif q > hi:
                    q = hi
                o[oi] = q & 0xFF
                oi += 1
            ai = end
        b0 += k * n
