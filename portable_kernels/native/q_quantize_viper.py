"""Viper step of mpy_et_quant::quantize_per_tensor (quantized/op_quantize_per_tensor.py).

Imported only where the port has a native emitter (q_requant.use_viper). The
same integer search as the reference: each float32's 4 bytes form a monotone
key in two 16-bit halves, and the count of thresholds at or below it (binary
search over 16-bit halves: every value fits a 32-bit word) is the level.
A table of 4096 buckets (the key's top 12 bits: sign, exponent, 3 mantissa
bits) bounds the thresholds to search: ~3 steps instead of 8.
Bit-identical to the reference; does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare(x, his, los, levels, qmin, out):
    # start[b]: how many thresholds have hi >> 4 below b (levels <= 255: bytes)
    start = bytearray(4097)
    a = 0
    for b in range(4097):
        while a < levels and his[a] >> 4 < b:
            a += 1
        start[b] = a
    g = array("i", [x.offset, out.offset, out.numel, levels, qmin])
    return _step, (x.buf, out.buf, array("H", his), array("H", los), g, start)


def _step(ctx):
    _quantize(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4], ctx[5])


@micropython.viper
def _quantize(x: ptr8, o: ptr8, his: ptr16, los: ptr16, g: ptr32, start: ptr8):  # noqa: F821 (viper types)
    p = g[0]
    oi = g[1]
    end = oi + g[2]
    qmin = g[4]
    while oi < end:
        hi = (x[p + 3] << 8) | x[p + 2]
        lo = (x[p + 1] << 8) | x[p]
        if hi & 0x8000:  # negative: reversed order
            hi = 0xFFFF - hi
            lo = 0xFFFF - lo
        else:
            hi = hi | 0x8000
        # thresholds[:a] <= key < thresholds[b:]: the bucket of hi's top 12 bits bounds both
        a = int(start[hi >> 4])
        b = int(start[(hi >> 4) + 1])
        while a < b:
            mid = (a + b) >> 1
            th = his[mid]
            if th < hi:
                a = mid + 1
            elif th == hi and los[mid] <= lo:
                a = mid + 1
            else:
                b = mid
        o[oi] = qmin + a
        oi += 1
        p += 4


noalloc.mark(_step)
