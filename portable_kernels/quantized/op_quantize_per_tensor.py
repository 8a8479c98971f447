"""mpy_et_quant::quantize_per_tensor.out: float32 -> int8 with integers only.

The host stores, for each level qmin+1..qmax, the smallest float32 that
PyTorch's quantize_per_tensor maps to it, as a monotone 32-bit key in two
16-bit halves (host_tools/quant_ref.quantize_thresholds). The step reads
each input's 4 bytes, forms its key the same way and counts the thresholds
at or below it by binary search, within the bounds a 4097-entry table of
the key's top 12 bits gives (also written by the host: both tables are read
where they lie). Bit-identical to PyTorch, no float arithmetic, no
allocation (every value is a small int).
"""

from mpy_et import dtypes, noalloc
from portable_kernels.quantized import requant as q_requant
from portable_kernels.quantized.requant import check_int8
from portable_kernels.util import checks
from portable_kernels.util.emitters import HAS_THUMB, THUMB2


def quantize_per_tensor_out(x, thresholds, buckets, scale, zero_point, qmin, qmax, out):
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
    for i in range(levels):
        hi, lo = td[2 * i], td[2 * i + 1]
        if not (0 <= hi < 65536 and 0 <= lo < 65536) or (i and (hi < td[2 * i - 2] or (hi == td[2 * i - 2] and lo < td[2 * i - 1]))):
            checks.fail("%s: thresholds must be ascending 16-bit halves (row %d)" % (what, i))
    _check_buckets(buckets, td, levels, what)
    if out.numel == 0:
        return None
    fast = native_step(x, thresholds, buckets, levels, qmin, out)
    if fast is not None:
        return fast
    return _quantize, (x.buf, x.offset, out.data, out.numel, td, buckets.data, qmin)


def native_step(x, thresholds, buckets, levels, qmin, out):
    """The port's native (step, ctx) for these tables (also cortex_m::quantize_per_tensor's),
    or None: the bytecode step. Load time."""
    if not q_requant.use_viper:
        return None
    if THUMB2:  # armv7-m: the search with its constants in registers (None: thresholds not word-aligned)
        from portable_kernels.native import q_quantize_thumb2

        prepared = q_quantize_thumb2.prepare(x, thresholds, buckets, levels, qmin, out)
        if prepared is not None:
            return prepared
    if HAS_THUMB:  # Arm: the same search in assembler, the step an assembler function
        from portable_kernels.native import q_quantize_thumb as q_quantize_viper
    else:
        from portable_kernels.native import q_quantize_viper

    return q_quantize_viper.prepare(x, thresholds, buckets, levels, qmin, out)


def _check_buckets(buckets, td, levels, what):
    """buckets (uint8 [4097], host_tools/quantize/ref.quantize_buckets): entry b
    counts the thresholds whose high half >> 4 is below b. Checked against the
    thresholds at load: a wrong table would give wrong levels, silently."""
    checks.is_tensor(buckets, what + " buckets")
    checks.dtype_in(buckets, (dtypes.BYTE,), what + " buckets")
    if tuple(buckets.sizes) != (4097,):
        checks.fail("%s: buckets must be uint8[4097], got %s" % (what, checks.shape_str(buckets)))
    bd = buckets.data
    a = 0
    for b in range(4097):
        while a < levels and td[2 * a] >> 4 < b:
            a += 1
        if bd[b] != a:
            checks.fail("%s: buckets entry %d is %d; the thresholds give %d" % (what, b, bd[b], a))


def _quantize(ctx):
    buf, off, od, n, td, bd, qmin = ctx
    for i in range(n):
        p = off + 4 * i
        hi = (buf[p + 3] << 8) | buf[p + 2]
        lo = (buf[p + 1] << 8) | buf[p]
        if hi & 0x8000:  # negative: reversed order
            hi = 0xFFFF - hi
            lo = 0xFFFF - lo
        else:
            hi |= 0x8000
        # thresholds[:a] <= key < thresholds[b:]: the bucket of hi's top 12 bits bounds both
        a = bd[hi >> 4]
        b = bd[(hi >> 4) + 1]
        while a < b:
            mid = (a + b) >> 1
            th = td[2 * mid]
            if th < hi or (th == hi and td[2 * mid + 1] <= lo):
                a = mid + 1
            else:
                b = mid
        od[i] = qmin + a


noalloc.mark(_quantize)
