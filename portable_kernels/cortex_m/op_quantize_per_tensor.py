"""cortex_m::quantize_per_tensor.out: float32 -> int8, bit for bit as torch's
quantize_per_tensor (clamp(round(x * float32(1 / scale)) + zp)).

At load the smallest float32 reaching each level is found by binary search
over float32 keys, each candidate quantized with exact integer float32
arithmetic (cortex_m/f32.py), giving the threshold and bucket tables of
mpy_et_quant::quantize_per_tensor (2 KB + 4 KB of RAM), whose step (and native
fast path) then runs: integers only, no allocation.
"""

import struct
from array import array

from mpy_et import dim_orders, dtypes
from portable_kernels.cortex_m import f32, layout
from portable_kernels.quantized import op_quantize_per_tensor as q_op
from portable_kernels.util import checks


def quantize_per_tensor_out(x, scale, zero_point, quant_min, quant_max, dtype, out):
    what = "cortex_m::quantize_per_tensor"
    checks.is_tensor(x, what + " input")
    checks.dtype_in(x, (dtypes.FLOAT,), what + " input")
    checks.is_tensor(out, what + " out")
    checks.dtype_in(out, (dtypes.CHAR,), what + " out")
    if dtype != dtypes.CHAR:
        checks.not_supported("%s: dtype %r is not supported; only int8" % (what, dtype))
    checks.same_shape(x, out, what)
    layout.same_order(x, out, what)
    checks.number(scale, what + " scale")
    if not (scale > 0 and isinstance(zero_point, int) and isinstance(quant_min, int) and isinstance(quant_max, int)):
        checks.fail("%s: scale %r must be > 0 and zero_point, quant_min, quant_max ints" % (what, scale))
    if not -128 <= quant_min < quant_max <= 127:
        checks.fail("%s: quant range [%d, %d] must lie within int8" % (what, quant_min, quant_max))
    if out.numel == 0:
        return None
    td, bd = tables(scale, zero_point, quant_min, quant_max)
    fast = q_op.native_step(x, Table(td), Table(bd), quant_max - quant_min, quant_min, out)
    if fast is not None:
        return fast
    return q_op._quantize, (x.buf, x.offset, out.data, out.numel, td, bd, quant_min)


class Table:
    """A tensor-like face (buf, offset, data, buffer) on a table made at load."""

    def __init__(self, a):
        self.buf = a
        self.offset = 0
        self.data = a
        self.buffer = a


def tables(scale, zp, qmin, qmax):
    """thresholds (int32 [levels, 2]: 16-bit halves of the smallest key quantizing
    to qmin + 1 + i) and buckets (uint8 [4097]) as mpy_et_quant's kernel reads them.

    Each threshold is searched from the port's float estimate of the level's
    boundary, (level - zp - 1/2) * scale: galloping out to a bracket, then
    bisecting (a few exact evaluations each instead of 32)."""
    inv = f32.of_float(1.0 / scale)
    levels = qmax - qmin
    td = array("i", bytes(8 * levels))
    floor = 0x007FFFFF  # key of -inf: quantizes to qmin
    for i in range(levels):
        target = qmin + 1 + i
        k = _float_key((target - zp - 0.5) * scale)
        k = floor + 1 if k <= floor else k
        step = 1
        if _quantize_key(k, inv, zp, qmin, qmax) >= target:
            hi, lo = k, k - 1  # move lo down until below the level
            while lo > floor and _quantize_key(lo, inv, zp, qmin, qmax) >= target:
                hi = lo
                lo = max(floor, lo - step)
                step <<= 1
        else:
            lo, hi = k, k + 1  # move hi up until at the level
            while hi < 0xFF800000 and _quantize_key(hi, inv, zp, qmin, qmax) < target:
                lo = hi
                hi = min(0xFF800000, hi + step)
                step <<= 1
        while hi - lo > 1:
            mid = (lo + hi) >> 1
            if _quantize_key(mid, inv, zp, qmin, qmax) >= target:
                hi = mid
            else:
                lo = mid
        td[2 * i] = hi >> 16
        td[2 * i + 1] = hi & 0xFFFF
        floor = hi - 1
    bd = bytearray(4097)
    a = 0
    for b in range(4097):
        while a < levels and td[2 * a] >> 4 < b:
            a += 1
        bd[b] = a
    return td, bd


def _float_key(v):
    """The monotone key of the float32 nearest v (clamped to the finite range)."""
    v = 3.0e38 if v > 3.0e38 else -3.0e38 if v < -3.0e38 else v
    bits = struct.unpack("<I", struct.pack("<f", v))[0]
    return 0xFFFFFFFF - bits if bits >> 31 else bits | 0x80000000


def _quantize_key(key, inv, zp, qmin, qmax):
    bits = key & 0x7FFFFFFF if key >> 31 else 0xFFFFFFFF - key
    x = f32.decode(bits)
    if x is None:  # NaN keys sit beyond +-inf: never searched
        return qmax
    q = f32.round_int(f32.mul(x, inv)) + zp
    return qmin if q < qmin else qmax if q > qmax else q


dim_orders.mark(quantize_per_tensor_out)
