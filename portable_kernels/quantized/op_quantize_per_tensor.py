"""mpy_et_quant::quantize_per_tensor.out: float32 -> int8 with integers only.

The host stores, for each level qmin+1..qmax, the smallest float32 that
PyTorch's quantize_per_tensor maps to it, as a monotone 32-bit key in two
16-bit halves (host_tools/quant_ref.quantize_thresholds). The step reads
each input's 4 bytes, forms its key the same way and counts the thresholds
at or below it by binary search: bit-identical to PyTorch, no float
arithmetic, no allocation (every value is a small int).
"""

from mpy_et import dtypes, noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import checks


def quantize_per_tensor_out(x, thresholds, scale, zero_point, qmin, qmax, out):
    what = "mpy_et_quant::quantize_per_tensor"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, (dtypes.FLOAT,), what + " input")
    check_int8(out, what + " out")
    checks.same_shape(x, out, what)
    checks.is_tensor(thresholds, what + " thresholds")
    checks.dtype_in(thresholds, (dtypes.INT,), what + " thresholds")
    if not (isinstance(qmin, int) and isinstance(qmax, int) and -128 <= qmin < qmax <= 127):
        checks.fail("%s: qmin %r, qmax %r must be ints with -128 <= qmin < qmax <= 127" % (what, qmin, qmax))
    levels = qmax - qmin
    if tuple(thresholds.sizes) != (levels, 2):
        checks.fail("%s: thresholds must be int32[%d, 2], got %s" % (what, levels, checks.shape_str(thresholds)))
    td = thresholds.data
    his = [td[2 * i] for i in range(levels)]
    los = [td[2 * i + 1] for i in range(levels)]
    for i in range(levels):
        if not (0 <= his[i] < 65536 and 0 <= los[i] < 65536) or (i and (his[i], los[i]) < (his[i - 1], los[i - 1])):
            checks.fail("%s: thresholds must be ascending 16-bit halves (row %d)" % (what, i))
    if out.numel == 0:
        return None
    if q_requant.use_viper:
        from portable_kernels.native import q_quantize_viper

        return q_quantize_viper.prepare(x, his, los, levels, qmin, out)
    return _quantize, (x.buf, x.offset, out.data, out.numel, his, los, levels, qmin)


def _quantize(ctx):
    buf, off, od, n, his, los, levels, qmin = ctx
    for i in range(n):
        p = off + 4 * i
        hi = (buf[p + 3] << 8) | buf[p + 2]
        lo = (buf[p + 1] << 8) | buf[p]
        if hi & 0x8000:  # negative: reversed order
            hi = 0xFFFF - hi
            lo = 0xFFFF - lo
        else:
            hi |= 0x8000
        a = 0  # thresholds[:a] <= key < thresholds[b:]
        b = levels
        while a < b:
            mid = (a + b) >> 1
            th = his[mid]
            if th < hi or (th == hi and los[mid] <= lo):
                a = mid + 1
            else:
                b = mid
        od[i] = qmin + a


noalloc.mark(_quantize)
