"""Viper step of mpy_et_quant::softmax (quantized/op_softmax.py), bit-identical with
its pure-Python step: the same row maximum, sum of table entries and floor
division. Imported only where the port has a native emitter
(q_requant.use_viper). The table (int32, entries in 0..2**29) is read in
place; sums stay below 2**29 (checked at load). Does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare(x, table, out, outer, n, inner, levels, zo):
    p = array("i", [outer, n, inner, levels, zo + 128, x.offset, table.offset, out.offset])
    return _step, (x.buf, table.buf, out.buf, p)


def _step(ctx):
    _softmax(ctx[0], ctx[1], ctx[2], ctx[3])


@micropython.viper
def _softmax(x: ptr8, tb: ptr8, o: ptr8, p: ptr32):  # noqa: F821 (viper types)
    outer = int(p[0])
    n = int(p[1])
    inner = int(p[2])
    levels = int(p[3])
    zo = int(p[4]) - 128
    xo = int(p[5])
    t = ptr32(uint(tb) + uint(p[6]))  # noqa: F821 (the table: int32 entries)
    oo = int(p[7])
    row = 0
    for _ in range(outer):
        for j in range(inner):
            first = row + j
            end = first + n * inner
            m = -128
            i = first
            while i < end:
                v = (int(x[xo + i]) ^ 0x80) - 128
                if v > m:
                    m = v
                i += inner
            s = 0
            i = first
            while i < end:
                s += int(t[m - ((int(x[xo + i]) ^ 0x80) - 128)])
                i += inner
            h = s >> 1
            i = first
            while i < end:
                q = zo + (int(t[m - ((int(x[xo + i]) ^ 0x80) - 128)]) * levels + h) // s
                if q > 127:
                    q = 127
                o[oo + i] = q & 0xFF
                i += inner
        row += n * inner


noalloc.mark(_step)
