"""Viper step of mpy_et_quant::quantize_per_tensor (quantized/op_quantize_per_tensor.py).

Imported only where the port has a native emitter (q_requant.use_viper). The
same integer search as the reference: each float32's 4 bytes form a monotone
key in two 16-bit halves, and the count of thresholds at or below it (binary
search over 16-bit halves: every value fits a 32-bit word) is the level.
A table of 4096 buckets (the key's top 12 bits: sign, exponent, 3 mantissa
bits; host_tools/quantize/ref.quantize_buckets) bounds the thresholds to
search: ~3 steps instead of 8. Both tables are read where they lie.
Bit-identical to the reference; does not allocate.
"""

from array import array

import micropython

from mpy_et import noalloc


def prepare(x, thresholds, buckets, levels, qmin, out):
    """(step, ctx): both tables read where they lie."""
    g = array("i", [x.offset, out.offset, out.numel, levels, qmin])
    return _step, (x.buf, out.buf, thresholds.buffer, g, buckets.buffer)


def _step(ctx):
    _quantize(ctx[0], ctx[1], ctx[2], ctx[3], ctx[4])


@micropython.viper
def _quantize(x: ptr8, o: ptr8, th: ptr16, g: ptr32, start: ptr8):  # noqa: F821 (viper types)
    # th: the int32 (high, low) pairs as 16-bit halves (little-endian, each < 2**16): high at 4 * i, low at 4 * i + 2
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
            t = th[4 * mid]
            if t < hi:
                a = mid + 1
            elif t == hi and th[4 * mid + 2] <= lo:
                a = mid + 1
            else:
                b = mid
        o[oi] = qmin + a
        oi += 1
        p += 4


noalloc.mark(_step)
